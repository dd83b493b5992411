//go:build unix

package main

import (
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

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
	s, err := treeStamp(ts.MkAbs(args[0]))
	ts.Check(err)
	ts.Check(os.WriteFile(ts.MkAbs(args[1]), []byte(s), 0o644))
}

// treeStamp is treestamp's text for root.
func treeStamp(root string) (string, error) {
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
	return b.String(), err
}

// TestServeWritesNothing: --serve, asked for its page, snapshot and event
// stream, creates, renames, quarantines, rotates and rewrites nothing under
// .ralph/ of a project whose state files are corrupt.
func TestServeWritesNothing(t *testing.T) {
	t.Parallel()
	p := newLoopProject(t, 1, tickScript())
	for name, content := range map[string]string{
		".circuit_breaker_state": `{"state": "SIDEWAYS"`, ".circuit_breaker_history": "nope",
		".ralph_session": "{", ".claude_session_id": "", ".exit_signals": "garbage",
		".call_count": "twelve", ".last_reset": "yesterday", ".response_analysis": "{",
		"status.json": "{not json", "progress.json": `{"status":`, "live.log": "old\n",
		"logs/events.jsonl": "{\"type\":\"run_started\"\nnot json\n", "logs/metrics.jsonl": "{]\n",
	} {
		mustWrite(t, p.path(".ralph/"+name), content)
	}
	before, err := treeStamp(p.path(".ralph"))
	if err != nil {
		t.Fatal(err)
	}
	addr := freeAddr(t)
	var served bytes.Buffer
	srv := p.command(t, nil, "--serve", addr)
	srv.Stdout, srv.Stderr = &served, &served
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	if !waitFor(20*time.Second, func() bool { return snapshotOf(addr) != nil }) {
		srv.Process.Kill()
		srv.Wait()
		t.Fatalf("--serve never answered\n%s", served.String())
	}
	for _, path := range []string{"/", "/p/0/", "/api/p/0/snapshot"} {
		if res, err := http.Get("http://" + addr + path); err == nil {
			io.Copy(io.Discard, res.Body)
			res.Body.Close()
		}
	}
	// The event stream sends the snapshot first; read a little of it.
	if res, err := http.Get("http://" + addr + "/api/p/0/events"); err == nil {
		buf := make([]byte, 256)
		res.Body.Read(buf)
		res.Body.Close()
	}
	srv.Process.Signal(os.Interrupt)
	srv.Wait()
	after, err := treeStamp(p.path(".ralph"))
	if err != nil {
		t.Fatal(err)
	}
	if after != before {
		t.Errorf("--serve changed .ralph/:\nbefore:\n%s\nafter:\n%s\n--serve said:\n%s", before, after, served.String())
	}
}
