package supervise

import (
	"context"
	"io/fs"
	"path/filepath"
	"time"
)

// defaultWatchSkip are the top-level directories the bash loop's write
// heartbeat ignores: the loop's own files, VCS data, and build or dependency
// output that tools rewrite without the agent writing code.
var defaultWatchSkip = []string{".ralph", ".git", "node_modules", ".next", "dist", "build", "__pycache__", ".turbo"}

// mtimeSlack widens the "modified since the call started" test. File times
// come from the kernel's coarse clock (and some filesystems round further),
// so a file written just after the start can carry a time a little before it.
const mtimeSlack = time.Second

// maxPoll bounds the scan interval; the bash loop scans every 30 s.
const maxPoll = 30 * time.Second

// watchWrites stops the call when no regular file under dir (outside skip) was
// modified within limit after start. It returns as soon as a write is seen,
// at the deadline, or when done closes — never later.
func watchWrites(done <-chan struct{}, dir string, skip []string, limit time.Duration, clk clock, start time.Time, stop context.CancelCauseFunc) {
	since := start.Add(-mtimeSlack)
	poll := min(max(limit/4, time.Millisecond), maxPoll)
	tick, deadline := make(chan struct{}, 1), make(chan struct{}, 1)
	defer clk.AfterFunc(limit-clk.Now().Sub(start), sendTo(deadline))()
	for {
		cancel := clk.AfterFunc(poll, sendTo(tick))
		select {
		case <-done:
			cancel()
			return
		case <-tick:
			if modifiedSince(dir, skip, since) {
				return
			}
		case <-deadline:
			cancel()
			if !modifiedSince(dir, skip, since) {
				stop(errWriteStall)
			}
			return
		}
	}
}

// modifiedSince reports whether a regular file under dir, outside the skipped
// trees, has a modification time after since. Unreadable parts are ignored.
func modifiedSince(dir string, skip []string, since time.Time) bool {
	skipped := make(map[string]bool, len(skip))
	for _, s := range skip {
		skipped[filepath.Clean(filepath.FromSlash(s))] = true
	}
	found := false
	_ = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if d != nil && d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			if rel, rerr := filepath.Rel(dir, path); rerr == nil && skipped[rel] {
				return fs.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() {
			return nil
		}
		info, ierr := d.Info()
		if ierr == nil && info.ModTime().After(since) {
			found = true
			return fs.SkipAll
		}
		return nil
	})
	return found
}
