package tasks

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/ralphloop/ralph_loop/internal/ralphdir"
)

// claimDir holds the claims of one --swarm's workers on GitHub issues:
// the workers are one GitHub user, whom GitHub's assignees cannot tell
// apart, so a worker first creates a file for the issue here, exclusively
// (O_EXCL), holding its name. The file goes when its claim does.
type claimDir struct {
	dir    string // .swarm/claims
	worker string // "worker-2"
}

func (c *claimDir) path(key string) string {
	return filepath.Join(c.dir, "github-"+strings.TrimPrefix(key, "#"))
}

// take claims key for c.worker; another worker's claim is errTaken.
func (c *claimDir) take(key string) error {
	if problem := ralphdir.NotOwn(c.dir, true); problem != "" {
		return fmt.Errorf("%s %s, not the folder of the swarm's claims; remove it", c.dir, problem)
	}
	if err := os.MkdirAll(c.dir, 0o755); err != nil {
		return err
	}
	f, err := os.OpenFile(c.path(key), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err == nil {
		_, err = f.WriteString(c.worker + "\n")
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		return err
	}
	if !errors.Is(err, fs.ErrExist) {
		return err
	}
	if holder := c.holder(key); holder != c.worker {
		return &takenError{why: holder + " of this swarm has it"}
	}
	return nil
}

// holder is the worker whose claim file key has ("another worker" when
// it cannot be read, or is not a file a worker made).
func (c *claimDir) holder(key string) string {
	if ralphdir.NotOwn(c.path(key), false) != "" {
		return "another worker"
	}
	b, err := ralphdir.ReadFileCapped(c.path(key), 256)
	if err != nil {
		return "another worker"
	}
	return strings.TrimSpace(string(b))
}

// give removes c.worker's claim on key (another worker's stays).
func (c *claimDir) give(key string) {
	if c.holder(key) == c.worker {
		_ = os.Remove(c.path(key))
	}
}
