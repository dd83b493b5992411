package tasks

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/ralphloop/ralph_loop/drivers"
	"github.com/ralphloop/ralph_loop/internal/clip"
	"github.com/ralphloop/ralph_loop/internal/supervise"
)

// maxOutput bounds what one tracker command may print: a list of
// thousands of issues with their bodies fits many times over.
const maxOutput = 64 << 20

// grace is a tracker command's time between SIGTERM and SIGKILL.
const grace = 2 * time.Second

// quiet is what the trackers' CLIs get in their environment besides the
// person's: no colour, no prompt, no pager, no spinner and no update
// check, since their output is read by the loop and no one can answer;
// and no background daemon or server started by the command, which would
// outlive the command's process group: bd releases that have a daemon
// start one, detached, on a command (bd then works on its database
// directly, or through a daemon the person runs), and bd in server mode
// starts a dolt sql-server, listening on a port, when none runs — a mode
// the repository's .beads/ may choose, and nothing from the repository
// opens a port (the person starts it: 'bd dolt start').
var quiet = []string{
	"NO_COLOR=1", "CLICOLOR=0",
	"GH_PROMPT_DISABLED=1", "GH_NO_UPDATE_NOTIFIER=1", "GH_SPINNER_DISABLED=1", "GH_PAGER=cat",
	"BEADS_NO_DAEMON=1", "BEADS_DOLT_AUTO_START=0",
}

// runner runs a tracker's CLI through supervise, as the agent is run: in
// a process group of its own that is stopped as a whole (SIGTERM, then
// SIGKILL), its stdin /dev/null, bounded in time (Options.Timeout) and in
// output, in the project's folder, with the agent's environment (the
// nested-session markers of an agent CLI dropped) and the quiet settings
// above.
type runner struct {
	dir     string
	env     []string
	timeout time.Duration
	// maxOutput is maxOutput but in tests.
	maxOutput int
	run       func(context.Context, supervise.Command, supervise.Options) supervise.Outcome
	// ran, when set, is told every command line that ran (tests, the
	// dry run's list of what would run).
	ran func(argv []string)
}

func newRunner(o Options) *runner {
	env := drivers.WithoutSession(o.Env)
	if env == nil {
		env = []string{}
	}
	env = slices.DeleteFunc(env, func(kv string) bool {
		name, _, _ := strings.Cut(kv, "=")
		return slices.ContainsFunc(quiet, func(q string) bool { return strings.HasPrefix(q, name+"=") })
	})
	env = append(env, quiet...)
	if o.NoHooks {
		env = append(slices.DeleteFunc(env, func(kv string) bool { return strings.HasPrefix(kv, "BD_NO_HOOKS=") }), "BD_NO_HOOKS=1")
	}
	run := o.Run
	if run == nil {
		run = supervise.Run
	}
	return &runner{dir: o.Project, env: env, timeout: o.Timeout, maxOutput: maxOutput, run: run}
}

// CLIError is a tracker command that failed: it could not start, it
// timed out, or it exited non-zero. Its Error is one line: what ran, what
// happened, and what to do when that is known.
type CLIError struct {
	Argv     []string
	ExitCode int
	Stderr   string // its last non-empty line, clipped
	TimedOut bool
	TooLarge bool   // it printed more than Limit
	Limit    string // TooLarge: "64 MiB"
	NotFound bool   // the program is not installed (not on PATH)
	// NotLoggedIn: gh's exit code 4, no credentials.
	NotLoggedIn bool
	After       time.Duration // TimedOut: the limit
	Err         error         // StartFailed: why
	Hint        string        // what to do, when the loop knows
}

// exited reports whether the command ran and exited non-zero on its own
// (what it printed says why), rather than being stopped or not starting.
func (e *CLIError) exited() bool {
	return !e.TimedOut && !e.TooLarge && !e.NotFound && e.Err == nil
}

func (e *CLIError) Error() string {
	name := e.Argv[0]
	verb := strings.Join(e.Argv[:min(len(e.Argv), 3)], " ")
	switch {
	case e.NotFound:
		return fmt.Sprintf("%s is not installed (not found on PATH); install it, or take it out of TASK_SOURCES", name)
	case e.NotLoggedIn:
		return "gh is not logged in to GitHub (exit 4); run 'gh auth login' or set GH_TOKEN in your environment, or take github out of TASK_SOURCES"
	case e.TimedOut:
		return fmt.Sprintf("'%s' gave no answer within %s (TASK_TIMEOUT) and was stopped", verb, e.After)
	case e.TooLarge:
		return fmt.Sprintf("'%s' printed more than %s and was stopped; import fewer items (BEADS_FILTER, GITHUB_TASK_LABEL)", verb, e.Limit)
	case e.Err != nil:
		return fmt.Sprintf("'%s' could not start: %v", verb, e.Err)
	case e.Stderr != "" && e.Hint != "":
		return fmt.Sprintf("'%s' failed (exit %d): %s; %s", verb, e.ExitCode, e.Stderr, e.Hint)
	case e.Stderr != "":
		return fmt.Sprintf("'%s' failed (exit %d): %s", verb, e.ExitCode, e.Stderr)
	}
	return fmt.Sprintf("'%s' failed (exit %d)", verb, e.ExitCode)
}

// errCanceled: the loop is being stopped; the command was cut short.
var errCanceled = errors.New("stopped")

// exec runs argv and returns its stdout; a failure is a *CLIError, or
// errCanceled when ctx ended.
func (r *runner) exec(ctx context.Context, argv ...string) ([]byte, error) {
	out, _, err := r.execErr(ctx, argv...)
	return out, err
}

// execErr is exec that returns stderr too (a failed claim says why there).
func (r *runner) execErr(ctx context.Context, argv ...string) (stdout, stderr []byte, err error) {
	if r.ran != nil {
		r.ran(slices.Clone(argv))
	}
	o, e := capped{max: r.maxOutput}, capped{max: r.maxOutput}
	res := r.run(ctx, supervise.Command{Argv: argv, Env: r.env, Dir: r.dir},
		supervise.Options{Timeout: r.timeout, Grace: grace, MaxOutput: int64(o.max), Stdout: &o, Stderr: &e})
	stdout, stderr = o.b.Bytes(), e.b.Bytes()
	ce := &CLIError{Argv: argv, ExitCode: res.ExitCode, Stderr: failLine(stdout, stderr)}
	switch res.Reason {
	case supervise.Exited:
		if res.ExitCode == 0 {
			return stdout, stderr, nil
		}
		ce.NotLoggedIn = res.ExitCode == 4 && argv[0] == "gh"
		if argv[0] == "bd" && bytes.Contains(stderr, []byte("auto-start is")) {
			ce.Hint = "the loop lets bd start no dolt server: start it yourself ('bd dolt start')"
		}
		return stdout, stderr, ce
	case supervise.Canceled:
		return stdout, stderr, errCanceled
	case supervise.TimedOut:
		ce.TimedOut, ce.After = true, r.timeout
	case supervise.OutputTooLarge:
		ce.TooLarge, ce.Limit = true, sizeWords(r.maxOutput)
	case supervise.StartFailed:
		ce.NotFound = res.ExitCode == 127
		ce.Err = res.Err
	default:
		ce.Err = res.Err
	}
	if ctx.Err() != nil {
		return stdout, stderr, errCanceled
	}
	return stdout, stderr, ce
}

// sizeWords is n bytes in words: "64 MiB", "300 bytes".
func sizeWords(n int) string {
	if n >= 1<<20 && n%(1<<20) == 0 {
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%d bytes", n)
}

// capped keeps what a command prints, up to maxOutput (supervise stops
// the command past it).
type capped struct {
	b   bytes.Buffer
	max int
}

func (c *capped) Write(p []byte) (int, error) {
	if room := c.max - c.b.Len(); room > 0 {
		c.b.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}

// lastLine is the last non-empty line of out, clipped, with its control
// characters escaped.
func lastLine(out []byte) string {
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	return shown(strings.TrimSpace(lines[len(lines)-1]))
}

// failLine is what a failed command said of why, as one line: its first
// "Error…" line on stderr (a CLI that prints its usage after the error,
// as bd does for a flag it does not know, ends with the usage), else the
// "error" of the JSON object it printed (bd --json prints its errors on
// stdout), else its last line on stderr.
func failLine(stdout, stderr []byte) string {
	for l := range strings.Lines(string(stderr)) {
		if l = strings.TrimSpace(l); len(l) >= 5 && strings.EqualFold(l[:5], "error") {
			return shown(l)
		}
	}
	if msg := jsonError(stdout); msg != "" {
		return shown(msg)
	}
	return lastLine(stderr)
}

// jsonError is the message of an error bd printed as JSON: {"error": …},
// or the same inside the envelope's "data"; "" for anything else.
func jsonError(out []byte) string {
	var v struct {
		Error string `json:"error"`
		Data  struct {
			Error string `json:"error"`
		} `json:"data"`
	}
	out = bytes.TrimSpace(out)
	if len(out) == 0 || out[0] != '{' || json.Unmarshal(out, &v) != nil {
		return ""
	}
	return cmp.Or(v.Error, v.Data.Error)
}

// shown is a tracker's text as a one-line message quotes it: control
// characters written as Go escapes, clipped to 200 bytes.
func shown(s string) string {
	if strings.IndexFunc(s, unicode.IsControl) >= 0 {
		q := strconv.Quote(s)
		s = q[1 : len(q)-1]
	}
	if len(s) > 200 {
		s = clip.Bytes(s, 200) + "…"
	}
	return s
}
