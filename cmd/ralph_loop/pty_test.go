//go:build unix

package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"time"

	"github.com/creack/pty"
	"github.com/rogpeppe/go-internal/testscript"

	"github.com/ralphloop/ralph_loop/internal/fakeagent"
)

func init() { extraCmds["pty"] = cmdPty }

// ptyEnv are the variables a command under pty inherits from the script.
var ptyEnv = []string{
	"PATH", "HOME", "TMPDIR", "WORK", "TZ", "GORACE", "GOCOVERDIR",
	"FAKE_AGENT_DIR", "FAKE_AGENT_VERSION", "LOOP_DELAY", "WRITE_TIMEOUT_MINUTES",
	"MAX_LOOPS", "NO_COLOR", "TERM", "RALPH_SHIM",
}

// pty [-cols N] [-release REGEXP N]... OUT PROG [ARGS...]: run PROG with
// stdin, stdout and stderr on one 160x45 pseudo-terminal (N columns with
// -cols), as a person at a terminal would, and save everything the
// terminal showed (raw bytes) in OUT. With !, PROG must exit non-zero.
// -release lets the fake agent's call N (which waits: agent/N.wait) go on
// once the screen so far matches REGEXP.
func cmdPty(ts *testscript.TestScript, neg bool, args []string) {
	type latch struct {
		re *regexp.Regexp
		n  int
	}
	var latches []latch
	cols := uint16(160)
	if len(args) >= 2 && args[0] == "-cols" {
		n, err := strconv.ParseUint(args[1], 10, 16)
		ts.Check(err)
		cols, args = uint16(n), args[2:]
	}
	for len(args) >= 3 && args[0] == "-release" {
		re, err := regexp.Compile(args[1])
		ts.Check(err)
		n, err := strconv.Atoi(args[2])
		ts.Check(err)
		latches = append(latches, latch{re, n})
		args = args[3:]
	}
	if len(args) < 2 {
		ts.Fatalf("usage: pty [-release REGEXP N]... OUT PROG [ARGS...]")
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
	dir := ts.Getenv("FAKE_AGENT_DIR")
	f, err := pty.StartWithSize(cmd, &pty.Winsize{Cols: cols, Rows: 45})
	ts.Check(err)
	defer f.Close()
	var out bytes.Buffer
	copied := make(chan struct{})
	releaseErrs := make(chan error, len(latches))
	go func() {
		defer close(copied)
		buf := make([]byte, 32<<10)
		for {
			n, err := f.Read(buf) // ends with EIO once the program has exited
			out.Write(buf[:n])
			for i := 0; i < len(latches); i++ {
				if latches[i].re.Match(out.Bytes()) {
					if err := fakeagent.Release(dir, latches[i].n); err != nil {
						releaseErrs <- err
					}
					latches = append(latches[:i], latches[i+1:]...)
					i--
				}
			}
			if err != nil {
				return
			}
		}
	}()
	werr := cmd.Wait()
	select {
	case <-copied:
	case <-time.After(5 * time.Second):
	}
	ts.Check(os.WriteFile(ts.MkAbs(args[0]), out.Bytes(), 0o644))
	select {
	case err := <-releaseErrs:
		ts.Fatalf("pty: %v", err)
	default:
	}
	var ee *exec.ExitError
	if werr != nil && !errors.As(werr, &ee) {
		ts.Fatalf("pty %s: %v", args[1], werr)
	}
	if (werr != nil) != neg {
		ts.Fatalf("pty %s: exit %v (want %s)\n%s", args[1], werr, map[bool]string{true: "failure", false: "success"}[neg], out.String())
	}
}
