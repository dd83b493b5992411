package gitrun

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/ralphloop/ralph_loop/internal/ralphdir"
)

// git opens the files it reads with a plain open(2): a named pipe with no
// writer blocks it forever, and a device (a link to /dev/tty, /dev/zero)
// blocks it or feeds it without end. A repository can commit a named pipe
// as .gitignore or .gitattributes, and an agent can make one anywhere in
// the tree or under .git/ during its call. So before each command the
// files git reads on every command are looked at (one lstat each, far less
// than the git process), and a command that would read one that is not a
// regular file is not run (a *StuckError). The files git reads only for
// some paths (a .gitignore or .gitattributes in a sub-folder, a loose ref)
// are caught by the timeout every command runs under: when it strikes, the
// tree and the git folder are searched for such files, which are named in
// the error and looked at before every later command, so that one costs
// one timeout, not one per command.

// layout is where git finds a repository's files for a command run in a
// folder: the work tree's top and the git folders, as git itself finds
// them (GIT_DIR, GIT_WORK_TREE and GIT_COMMON_DIR first, then the nearest
// .git upwards, a "gitdir:" file and a commondir file followed). A field
// is "" when it is not known; special names a file on the way that is no
// regular file (a named pipe as .git/commondir, say).
type layout struct {
	top, gitDir, commonDir string
	head                   string // HEAD's branch ("refs/heads/main"), "" when detached or unknown
	special                string
}

// locate finds the layout of the repository of dir in env.
func locate(dir string, env []string) layout {
	var l layout
	abs := func(base, p string) string {
		if p == "" || filepath.IsAbs(p) {
			return p
		}
		return filepath.Join(base, p)
	}
	dir, _ = filepath.Abs(dir)
	l.gitDir = abs(dir, envValue(env, "GIT_DIR"))
	l.top = abs(dir, envValue(env, "GIT_WORK_TREE"))
	if l.gitDir == "" {
		for d := dir; ; d = filepath.Dir(d) {
			p := filepath.Join(d, ".git")
			st, err := os.Lstat(p)
			if err == nil {
				l.top = d
				switch {
				case st.IsDir():
					l.gitDir = p
				case st.Mode().IsRegular():
					b, err := ralphdir.ReadFileCapped(p, 4096)
					if rest, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "gitdir: "); err == nil && ok {
						l.gitDir = abs(d, rest)
					}
				case st.Mode()&fs.ModeSymlink == 0:
					l.special = p
				}
				break
			}
			if filepath.Dir(d) == d {
				break
			}
		}
	}
	if l.gitDir == "" {
		return l
	}
	l.commonDir = abs(dir, envValue(env, "GIT_COMMON_DIR"))
	if l.commonDir == "" {
		l.commonDir = l.gitDir
		p := filepath.Join(l.gitDir, "commondir")
		b, err := ralphdir.ReadFileCapped(p, 4096)
		switch {
		case err == nil:
			l.commonDir = abs(l.gitDir, strings.TrimSpace(string(b)))
		case !errors.Is(err, fs.ErrNotExist) && special(p) != "":
			l.special = p
		}
	}
	if b, err := ralphdir.ReadFileCapped(filepath.Join(l.gitDir, "HEAD"), 4096); err == nil {
		if ref, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "ref: "); ok && strings.HasPrefix(ref, "refs/heads/") && !strings.Contains(ref, "..") {
			l.head = ref
		}
	}
	return l
}

// envValue is the value of key in env, "" when unset.
func envValue(env []string, key string) string {
	v := ""
	for _, kv := range env {
		if k, val, ok := strings.Cut(kv, "="); ok && k == key {
			v = val
		}
	}
	return v
}

// Files git reads on (nearly) every command, by where they are.
var (
	topFiles = []string{".gitignore", ".gitattributes", ".gitmodules", ".mailmap"}
	gitFiles = []string{"HEAD", "index", "config.worktree", "commondir", "gitdir", "logs/HEAD",
		"MERGE_HEAD", "MERGE_MSG", "MERGE_MODE", "ORIG_HEAD", "FETCH_HEAD", "AUTO_MERGE",
		"CHERRY_PICK_HEAD", "REVERT_HEAD", "SQUASH_MSG", "COMMIT_EDITMSG", "info/sparse-checkout"}
	commonFiles = []string{"config", "packed-refs", "shallow", "info/exclude", "info/attributes",
		"info/grafts", "info/sparse-checkout", "objects/info/alternates", "objects/info/packs",
		"objects/info/commit-graph"}
)

// paths are the files of l that git reads on every command, and more (the
// files extra names, which the repository's configuration points at).
func (l layout) paths(extra []string) []string {
	var ps []string
	if l.special != "" {
		ps = append(ps, l.special)
	}
	if l.top != "" {
		for _, n := range topFiles {
			ps = append(ps, filepath.Join(l.top, n))
		}
	}
	if l.gitDir != "" {
		for _, n := range gitFiles {
			ps = append(ps, filepath.Join(l.gitDir, filepath.FromSlash(n)))
		}
	}
	if l.commonDir != "" {
		for _, n := range commonFiles {
			ps = append(ps, filepath.Join(l.commonDir, filepath.FromSlash(n)))
		}
		if l.head != "" {
			ps = append(ps, filepath.Join(l.commonDir, filepath.FromSlash(l.head)),
				filepath.Join(l.commonDir, "logs", filepath.FromSlash(l.head)))
		}
	}
	return append(ps, extra...)
}

// special says what p is when git must not open it: a named pipe or a
// device, itself or at the end of its links ("is a named pipe (FIFO), not
// a regular file"); "" for anything else (a regular file, a folder, a
// socket, whose open fails at once, or nothing at all).
func special(p string) string {
	st, err := os.Lstat(p)
	if err != nil {
		return ""
	}
	if st.Mode()&fs.ModeSymlink != 0 {
		if st, err = os.Stat(p); err != nil {
			return ""
		}
	}
	if st.Mode()&(fs.ModeNamedPipe|fs.ModeDevice|fs.ModeCharDevice) != 0 {
		return ralphdir.Kind(st.Mode())
	}
	return ""
}

// StuckError is a git command that was not run, or was stopped, because
// it would never end: a file git reads is a named pipe or a device, or it
// ran past its time limit.
type StuckError struct {
	Args    []string      // git's arguments ("status", "--porcelain")
	Dir     string        // where it runs
	Path    string        // the file that is no regular file, "" when none is known
	Problem string        // what it is ("is a named pipe (FIFO), not a regular file")
	After   time.Duration // > 0: git ran this long and was stopped
}

func (e *StuckError) Error() string {
	what := "git"
	for i := 0; i < len(e.Args); i++ {
		if e.Args[i] == "-c" {
			i++
			continue
		}
		what += " " + e.Args[i]
		break
	}
	var b strings.Builder
	if e.After > 0 {
		fmt.Fprintf(&b, "%s in %s ran for %s and was stopped", what, e.Dir, e.After)
	} else {
		fmt.Fprintf(&b, "%s in %s not run", what, e.Dir)
	}
	switch {
	case e.Path != "":
		fmt.Fprintf(&b, ": %s %s, and git waits on it forever; remove it or make it a regular file", e.Path, e.Problem)
	default:
		fmt.Fprintf(&b, " (the limit is %s, %s in the environment sets it); a file git reads may be a named pipe or a device, or git needs longer in a repository this large: raise the limit", Timeout(), timeoutEnv)
	}
	return b.String()
}

// Stuck reports whether err is a *StuckError: git was not run, or was
// stopped, because it would never have ended.
func Stuck(err error) bool {
	var se *StuckError
	return errors.As(err, &se)
}

// found remembers, by work tree (or git folder), the files no regular file
// that a search after a timeout found, so that every later command looks
// at them first.
var found = struct {
	sync.Mutex
	m map[string][]string
}{m: map[string][]string{}}

// key is the folder found keeps l's files under.
func (l layout) key() string {
	if l.top != "" {
		return l.top
	}
	return l.gitDir
}

// check looks at the files of l git would read (and at those a search
// found before), and returns a *StuckError for the first that is a named
// pipe or a device.
func (l layout) check(args []string, dir string, extra []string) error {
	found.Lock()
	known := found.m[l.key()]
	found.Unlock()
	for _, p := range l.paths(append(extra, known...)) {
		if what := special(p); what != "" {
			return &StuckError{Args: args, Dir: dir, Path: p, Problem: what}
		}
	}
	return nil
}

// maxSearch bounds the entries a search after a timeout looks at.
const maxSearch = 500_000

// search looks through the work tree and the git folders, without
// following a link into a folder, for files git could open that are named
// pipes or devices, remembers them for later commands and returns the
// first.
func (l layout) search() (path, problem string) {
	var hits []string
	seen := 0
	walk := func(root string, skipGit bool) {
		if root == "" {
			return
		}
		filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if seen++; seen > maxSearch {
				return filepath.SkipAll
			}
			if err != nil {
				return nil
			}
			if d.IsDir() && skipGit && d.Name() == ".git" && p != root {
				return filepath.SkipDir
			}
			if !d.IsDir() && special(p) != "" {
				hits = append(hits, p)
			}
			return nil
		})
	}
	walk(l.top, true)
	walk(l.gitDir, false)
	if l.commonDir != l.gitDir {
		walk(l.commonDir, false)
	}
	if len(hits) == 0 {
		return "", ""
	}
	found.Lock()
	found.m[l.key()] = hits
	found.Unlock()
	return hits[0], special(hits[0])
}
