package gates

import (
	"bytes"
	"context"
	"fmt"
	"time"

	"github.com/ralphloop/ralph_loop/internal/clip"
	"github.com/ralphloop/ralph_loop/supervise"
)

// outcome is one finished gate command.
type outcome struct {
	exitCode int
	output   string
	elapsed  time.Duration
	timedOut bool
}

// run runs `bash -c command` (see shellArgv) through supervise.Run: in its own process
// group, with stdout and stderr on one pipe as 2>&1 gives them, under
// cfg.Timeout. On timeout the group gets SIGTERM, and SIGKILL once
// cfg.Grace has passed; after every run the group is swept with SIGKILL so
// no helper the command started outlives it. The error is non-nil only
// when ctx ended.
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
	out := &capture{limit: 8 << 10}
	cmd := supervise.Command{Argv: shellArgv(command), Env: cfg.Env, Dir: cfg.Dir}
	if cfg.Wrap != nil {
		wrapped, cleanup, err := cfg.Wrap(cmd)
		if err != nil {
			return outcome{exitCode: 126, output: clip.Runes(err.Error(), OutputMax)}, nil
		}
		if cleanup != nil {
			defer cleanup()
		}
		cmd = wrapped
	}
	res := supervise.Run(ctx, cmd, supervise.Options{Timeout: timeout, Grace: grace, Stdout: out, Combined: true})

	o := outcome{exitCode: res.ExitCode, output: out.text(OutputMax), elapsed: res.Duration}
	switch res.Reason {
	case supervise.Canceled:
		return outcome{}, fmt.Errorf("quality gate %q stopped: %w", command, context.Cause(ctx))
	case supervise.StartFailed:
		// As `bash -c` does for a command it cannot run.
		return outcome{exitCode: 127, output: clip.Runes(res.Err.Error(), OutputMax)}, nil
	case supervise.TimedOut:
		o.exitCode, o.timedOut = TimeoutExitCode, true
	}
	return o, nil
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
