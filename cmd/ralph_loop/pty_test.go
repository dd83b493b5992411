//go:build unix

package main

import (
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"time"

	"github.com/creack/pty"
	"github.com/rogpeppe/go-internal/testscript"
)

func init() { extraCmds["pty"] = cmdPty }

// ptyEnv are the variables a command under pty inherits from the script.
var ptyEnv = []string{
	"PATH", "HOME", "TMPDIR", "WORK", "TZ", "GORACE", "GOCOVERDIR",
	"FAKE_AGENT_DIR", "FAKE_AGENT_VERSION", "LOOP_DELAY", "WRITE_TIMEOUT_MINUTES",
	"MAX_LOOPS", "NO_COLOR", "TERM", "RALPH_SHIM",
}

// pty OUT PROG [ARGS...]: run PROG with stdin, stdout and stderr on one
// 160x45 pseudo-terminal, as a person at a terminal would, and save
// everything the terminal showed (raw bytes) in OUT. With !, PROG must
// exit non-zero.
func cmdPty(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) < 2 {
		ts.Fatalf("usage: pty OUT PROG [ARGS...]")
	}
	cmd := exec.Command(args[1], args[2:]...)
	cmd.Dir = ts.MkAbs(".")
	for _, k := range ptyEnv {
		if v := ts.Getenv(k); v != "" {
			cmd.Env = append(cmd.Env, k+"="+v)
		}
	}
	if ts.Getenv("TERM") == "" {
		cmd.Env = append(cmd.Env, "TERM=xterm")
	}
	f, err := pty.StartWithSize(cmd, &pty.Winsize{Cols: 160, Rows: 45})
	ts.Check(err)
	defer f.Close()
	var out bytes.Buffer
	copied := make(chan struct{})
	go func() {
		io.Copy(&out, f) // ends with EIO once the program has exited
		close(copied)
	}()
	werr := cmd.Wait()
	select {
	case <-copied:
	case <-time.After(5 * time.Second):
	}
	ts.Check(os.WriteFile(ts.MkAbs(args[0]), out.Bytes(), 0o644))
	var ee *exec.ExitError
	if werr != nil && !errors.As(werr, &ee) {
		ts.Fatalf("pty %s: %v", args[1], werr)
	}
	if (werr != nil) != neg {
		ts.Fatalf("pty %s: exit %v (want %s)\n%s", args[1], werr, map[bool]string{true: "failure", false: "success"}[neg], out.String())
	}
}
