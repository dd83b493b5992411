package main

import (
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// A project folder is named by whoever made the repository (a monorepo
// subfolder, a worktree named after a branch, an unpacked archive), and
// tmux expands formats, #(command) among them, in some of the strings it
// is given. --monitor in a folder named x#(touch MARKER)y runs the loop
// there, inside tmux and outside it, and nothing runs the command: the
// marker appears nowhere.
func TestMonitorHashInFolderName(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, prefix, want string }{
		{"inside", "", "4"},
		{"outside", "unset TMUX; ", "4"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := newTmuxServer(t)
			parent := t.TempDir()
			dir := filepath.Join(parent, "x#(touch MARKER)y")
			if err := os.Rename(monitorProject(t, true), dir); err != nil {
				t.Fatal(err)
			}
			// The test's own session starts in / and cds there: its -c
			// would run the command itself.
			s.must("new-session", "-d", "-s", "user", "-x", "80", "-y", "24", "-c", "/",
				"cd "+shellQuote(dir)+" && "+callerCommand(dir, tc.prefix, "--max-loops 1"))
			s.watchLoop(t, 80)
			if code := s.outerCode(t, dir); code != tc.want {
				t.Errorf("ralph_loop --monitor exited %s, want %s", code, tc.want)
			}
			home := strings.TrimPrefix(s.env[1], "HOME=")
			for _, root := range []string{parent, home, "/"} {
				if _, err := os.Stat(filepath.Join(root, "MARKER")); err == nil {
					t.Errorf("tmux ran the command in the folder's name: %s/MARKER exists", root)
				}
			}
			filepath.WalkDir(parent, func(p string, d fs.DirEntry, err error) error {
				if err == nil && d.Name() == "MARKER" {
					t.Errorf("tmux ran the command in the folder's name: %s exists", p)
				}
				return nil
			})
		})
	}
}

// The panes' start directory never holds a '#': the nearest parent
// without one.
func TestTmuxStartDir(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no tmux on Windows; the paths are POSIX ones")
	}
	for in, want := range map[string]string{
		"/home/me/app":               "/home/me/app",
		"/home/me/x#(touch M)y":      "/home/me",
		"/tmp/a#b/c/d":               "/tmp",
		"/#{pane_id}/x":              "/",
		"/home/me/issue#12/sub#2/go": "/home/me",
	} {
		if got := tmuxStartDir(in); got != want {
			t.Errorf("tmuxStartDir(%q) = %q, want %q", in, got, want)
		}
	}
}
