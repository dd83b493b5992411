package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// workDir is the directory a command works in. It is cwd, unless cwd
// has no .ralph/ and one of its parents has: then cwd is a subfolder of
// that project, found the way git finds .git (walking up, not past a
// filesystem boundary, not into $HOME's parent, and only to a .ralph/ of
// this user). The commands that only look (--status, --circuit-status,
// --report, --doctor, --dry-run, --serve) then work there and say so on
// stderr; the loop and the commands that write refuse with one line that
// names the project, so nothing ever makes or uses a second .ralph/ inside
// a project. An absolute RALPH_DIR names its folder itself: no walk.
func workDir(c *command, lookupEnv func(string) (string, bool), cwd string, stderr io.Writer) (string, error) {
	if v, ok := lookupEnv("RALPH_DIR"); ok && v != "" && v != ".ralph" {
		return cwd, nil
	}
	if isDir(filepath.Join(cwd, ".ralph")) {
		return cwd, nil
	}
	home, _ := lookupEnv("HOME")
	root, found := findRoot(cwd, home)
	if !found {
		return cwd, nil
	}
	switch c.where {
	case whereItIs:
		return cwd, nil
	case atProjectRoot:
		fmt.Fprintf(stderr, "ralph_loop: using the project at %s (its .ralph/ is there; you are in %s)\n", root, cwd)
		return root, nil
	}
	return "", fmt.Errorf("%s is inside the project at %s, which has the .ralph/ folder; run ralph_loop there: cd %s", cwd, root, shellQuote(root))
}

// findRoot walks up from dir's parent to the first folder with a .ralph/
// folder, as git looks for .git: it stops at a filesystem boundary, at
// the parent of home (not looked into, like git's
// GIT_CEILING_DIRECTORIES) and at the top; a .ralph/ another user owns is
// not this user's project, and ends the walk.
func findRoot(dir, home string) (string, bool) {
	ceiling := ""
	if home != "" {
		ceiling = filepath.Dir(filepath.Clean(home))
	}
	child := filepath.Clean(dir)
	for {
		parent := filepath.Dir(child)
		if parent == child || parent == ceiling || !sameDevice(parent, child) {
			return "", false
		}
		if st, err := os.Stat(filepath.Join(parent, ".ralph")); err == nil && st.IsDir() {
			return parent, ownedByMe(st)
		}
		child = parent
	}
}
