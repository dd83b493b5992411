package gates

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/ralphloop/ralph_loop/internal/clip"
	"github.com/ralphloop/ralph_loop/internal/supervise"
)

// outcome is one finished gate command.
type outcome struct {
	exitCode int
	output   string
	tail     string // the end of its output (tail)
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
		timeout = defaultTimeout
	}
	grace := cfg.Grace
	if grace <= 0 {
		grace = defaultGrace
	}
	out := &capture{limit: 8 << 10}
	var stdout io.Writer = out
	var log io.WriteCloser
	if cfg.Log != nil {
		fmt.Fprintf(cfg.Log, "=== %s ===\n", command)
		log = supervise.NewHeadTail(lenient{w: cfg.Log}, cfg.LogMax)
		stdout = io.MultiWriter(out, log)
	}
	cmd := supervise.Command{Argv: shellArgv(command), Env: cfg.Env, Dir: cfg.Dir}
	if cfg.Wrap != nil {
		wrapped, cleanup, err := cfg.Wrap(cmd)
		if err != nil {
			return outcome{exitCode: 126, output: clip.Runes(err.Error(), outputMax)}, nil
		}
		if cleanup != nil {
			defer cleanup()
		}
		cmd = wrapped
	}
	res := supervise.Run(ctx, cmd, supervise.Options{Timeout: timeout, Grace: grace, Stdout: stdout, Combined: true})

	o := outcome{exitCode: res.ExitCode, output: out.text(outputMax), tail: tail(out.tailText()), elapsed: res.Duration}
	switch res.Reason {
	case supervise.Canceled:
		return outcome{}, fmt.Errorf("quality gate %q stopped: %w", command, context.Cause(ctx))
	case supervise.StartFailed:
		// As `bash -c` does for a command it cannot run.
		o = outcome{exitCode: 127, output: clip.Runes(res.Err.Error(), outputMax), tail: tail(res.Err.Error())}
	case supervise.TimedOut:
		o.exitCode, o.timedOut = timeoutExitCode, true
	}
	if log != nil {
		log.Close()
		switch {
		case o.timedOut:
			fmt.Fprintf(cfg.Log, "\n=== timed out after %s (exit %d) ===\n\n", timeout, o.exitCode)
		case res.Reason == supervise.StartFailed:
			fmt.Fprintf(cfg.Log, "%s\n=== not started (exit %d) ===\n\n", res.Err, o.exitCode)
		default:
			fmt.Fprintf(cfg.Log, "\n=== exit %d ===\n\n", o.exitCode)
		}
	}
	return o, nil
}

// lenient passes writes on and drops their errors: the full-output log
// is for a person to read; a full disk must not fail the gate.
type lenient struct{ w io.Writer }

func (l lenient) Write(p []byte) (int, error) {
	l.w.Write(p)
	return len(p), nil
}

// capture keeps the head of a command's combined output, and its last
// tailKeep bytes.
type capture struct {
	limit int
	buf   bytes.Buffer
	tail  []byte // the last bytes written, at most tailKeep
	// more is set when a byte other than a newline arrived past the limit,
	// so trailing newlines of the kept head are not the output's end.
	more bool
}

// tailKeep is how many of the last bytes a capture keeps.
const tailKeep = 4 << 10

func (c *capture) Write(p []byte) (int, error) {
	n := len(p)
	if len(p) >= tailKeep {
		c.tail = append(c.tail[:0], p[len(p)-tailKeep:]...)
	} else {
		if over := len(c.tail) + len(p) - tailKeep; over > 0 {
			c.tail = append(c.tail[:0], c.tail[over:]...)
		}
		c.tail = append(c.tail, p...)
	}
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

// tailText is the end of the output, from its first whole line on (when
// the kept bytes start inside a line) and without a split character.
func (c *capture) tailText() string {
	t := c.tail
	if len(t) == tailKeep {
		if i := bytes.IndexByte(t, '\n'); i >= 0 && i < len(t)-1 {
			t = t[i+1:]
		}
	}
	return strings.ToValidUTF8(string(t), "")
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
