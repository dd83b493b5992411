//go:build unix

package main

import (
	"crypto/sha256"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

func init() { extraCmds["treehash"] = cmdTreehash }

// treehash DIR OUT: write one line per entry under DIR (path, type, mode,
// size, sha256 of a file's bytes or a link's target) to OUT, to compare
// a tree before and after a command.
func cmdTreehash(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 || neg {
		ts.Fatalf("usage: treehash DIR OUT")
	}
	lines, err := treeLines(ts.MkAbs(args[0]))
	ts.Check(err)
	ts.Check(os.WriteFile(ts.MkAbs(args[1]), []byte(lines), 0o644))
}

// treeLines is what treehash writes for root.
func treeLines(root string) (string, error) {
	var b strings.Builder
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		info, err := os.Lstat(p)
		if err != nil {
			return err
		}
		sum := ""
		switch {
		case info.Mode().IsRegular():
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			sum = fmt.Sprintf("%x", sha256.Sum256(data))
		case info.Mode()&fs.ModeSymlink != 0:
			target, _ := os.Readlink(p)
			sum = "-> " + target
		}
		fmt.Fprintf(&b, "%s %v %d %s\n", rel, info.Mode(), info.Size(), sum)
		return nil
	})
	return b.String(), err
}

func TestShellJoin(t *testing.T) {
	got := shellJoin([]string{"my-agent", "--yes", "two words", "it's", "", "a=b"})
	want := `my-agent --yes 'two words' 'it'\''s' '' a=b`
	if got != want {
		t.Fatalf("shellJoin = %s, want %s", got, want)
	}
}
