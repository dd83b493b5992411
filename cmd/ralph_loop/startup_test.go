//go:build unix

package main

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/rogpeppe/go-internal/testscript"
)

func init() {
	extraCmds["chownall"] = cmdChownall
	extraCmds["treestamp"] = cmdTreestamp
	conditions["root"] = func() bool { return os.Geteuid() == 0 }
}

// chownall UID PATH: give PATH and everything under it to UID (as root:
// guard it with [root]).
func cmdChownall(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 || neg {
		ts.Fatalf("usage: chownall UID PATH")
	}
	uid, err := strconv.Atoi(args[0])
	ts.Check(err)
	err = filepath.WalkDir(ts.MkAbs(args[1]), func(p string, _ fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		return os.Lchown(p, uid, -1)
	})
	ts.Check(err)
}

// treestamp DIR OUT: one line per entry under DIR (path, mode, size,
// modification time in nanoseconds) to OUT, to show that a command
// created, renamed, rotated or rewrote nothing there.
func cmdTreestamp(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 || neg {
		ts.Fatalf("usage: treestamp DIR OUT")
	}
	root := ts.MkAbs(args[0])
	var b strings.Builder
	err := filepath.WalkDir(root, func(p string, _ fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := os.Lstat(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		fmt.Fprintf(&b, "%s %v %d %d\n", rel, info.Mode(), info.Size(), info.ModTime().UnixNano())
		return nil
	})
	ts.Check(err)
	ts.Check(os.WriteFile(ts.MkAbs(args[1]), []byte(b.String()), 0o644))
}
