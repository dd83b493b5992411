package gates

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/ralphloop/ralph_loop/internal/clip"
)

var errGateTimeout = errors.New("quality gate timed out")

// outcome is one finished gate command.
type outcome struct {
	exitCode int
	output   string
	elapsed  time.Duration
	timedOut bool
}

// run runs `bash -c command` in its own process group under cfg.Timeout.
// On timeout the group gets SIGTERM, and SIGKILL once cfg.Grace has passed;
// after every run the group is swept with SIGKILL so no helper the command
// started outlives it. The error is non-nil only when ctx ended.
func run(ctx context.Context, cfg Config, command string) (outcome, error) {
	if ctx.Err() != nil {
		return outcome{}, fmt.Errorf("quality gate %q not run: %w", command, context.Cause(ctx))
	}
	timeout := cfg.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	grace := cfg.Grace
	if grace <= 0 {
		grace = DefaultGrace
	}
	cctx, cancel := context.WithTimeoutCause(ctx, timeout, errGateTimeout)
	defer cancel()

	out := &capture{limit: 8 << 10}
	cmd := exec.CommandContext(cctx, "bash", "-c", command)
	cmd.Dir = cfg.Dir
	cmd.Env = cfg.Env
	cmd.Stdout, cmd.Stderr = out, out // one pipe: output interleaved as in 2>&1
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	var cancelled atomic.Bool
	cmd.Cancel = func() error {
		cancelled.Store(true)
		return syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
	}
	cmd.WaitDelay = grace

	start := time.Now()
	if err := cmd.Start(); err != nil {
		return outcome{exitCode: 127, output: clip.Runes(err.Error(), OutputMax)}, nil
	}
	pgid := cmd.Process.Pid
	_ = cmd.Wait() // the exit status is read from ProcessState below
	elapsed := time.Since(start)
	_ = syscall.Kill(-pgid, syscall.SIGKILL) // ESRCH when the group is gone

	o := outcome{output: out.text(OutputMax), elapsed: elapsed}
	if cancelled.Load() {
		if ctx.Err() != nil {
			return outcome{}, fmt.Errorf("quality gate %q stopped: %w", command, context.Cause(ctx))
		}
		o.exitCode, o.timedOut = TimeoutExitCode, true
		return o, nil
	}
	o.exitCode = exitCode(cmd)
	return o, nil
}

// exitCode is the shell's view of how the command ended: its exit status,
// or 128+N when signal N killed it.
func exitCode(cmd *exec.Cmd) int {
	st := cmd.ProcessState
	if st == nil {
		return 1
	}
	if ws, ok := st.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return st.ExitCode()
}

// capture keeps the head of a command's combined output.
type capture struct {
	limit int
	buf   bytes.Buffer
	// more is set when a byte other than a newline arrived past the limit,
	// so trailing newlines of the kept head are not the output's end.
	more bool
}

func (c *capture) Write(p []byte) (int, error) {
	n := len(p)
	if room := c.limit - c.buf.Len(); room > 0 {
		take := min(room, len(p))
		c.buf.Write(p[:take])
		p = p[take:]
	}
	if !c.more && len(bytes.Trim(p, "\n")) > 0 {
		c.more = true
	}
	return n, nil
}

// text is the output as `$(...)` yields it (trailing newlines removed), cut
// to max characters.
func (c *capture) text(max int) string {
	b := c.buf.Bytes()
	if !c.more {
		b = bytes.TrimRight(b, "\n")
	}
	return clip.Runes(string(b), max)
}
