package notify

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/ralphloop/ralph_loop/internal/events"
	"github.com/ralphloop/ralph_loop/internal/safetext"
	"github.com/ralphloop/ralph_loop/internal/supervise"
)

// stopGrace is how long a hook has between SIGTERM and SIGKILL once its
// time is up or the run's end stops it.
const stopGrace = time.Second

// keptOutput is how much of a hook's output the hooks log keeps; a hook
// printing more than maxOutput is stopped.
const (
	keptOutput = 16 << 10
	maxOutput  = 1 << 20
)

// command is a hook: argv run in the project directory with the event's
// JSON on stdin and RALPH_* in its environment. It runs once per event (a
// script that must not run twice is not retried).
type command struct {
	argv    []string
	env     []string
	dir     string
	project string
	timeout time.Duration
	label   string                   // "command" or "desktop"
	build   func(m message) []string // argv per message; nil = argv
	stdin   bool                     // feed the event's JSON
	run     func(context.Context, supervise.Command, supervise.Options) supervise.Outcome
}

func (c *command) String() string {
	name := c.argv[0]
	if c.label == "desktop" {
		name = filepath.Base(name)
	}
	return c.label + " " + name
}

func (c *command) send(ctx context.Context, m message) (string, error) {
	argv := c.argv
	if c.build != nil {
		argv = c.build(m)
	}
	cmd := supervise.Command{Argv: argv, Env: append(append([]string{}, c.env...), hookEnv(m, c.project, c.dir)...), Dir: c.dir}
	if c.stdin {
		cmd.Stdin = string(m.json) + "\n"
	}
	out := &keep{max: keptOutput}
	run := c.run
	if run == nil {
		run = supervise.Run
	}
	o := run(ctx, cmd, supervise.Options{Timeout: c.timeout, Grace: stopGrace, MaxOutput: maxOutput, Stdout: out, Combined: true})
	return out.report(), outcomeError(o, c.timeout)
}

// outcomeError is nil for a hook that exited 0, else one line saying how
// it ended.
func outcomeError(o supervise.Outcome, timeout time.Duration) error {
	switch o.Reason {
	case supervise.Exited:
		if o.ExitCode == 0 {
			return nil
		}
		return fmt.Errorf("exit %d", o.ExitCode)
	case supervise.TimedOut:
		return fmt.Errorf("timed out after %s (NOTIFY_TIMEOUT)", timeout)
	case supervise.Canceled:
		return errors.New("stopped: still running when the loop exited")
	case supervise.OutputTooLarge:
		return fmt.Errorf("stopped: printed more than %d bytes", maxOutput)
	}
	if o.Err != nil {
		return o.Err
	}
	return fmt.Errorf("ended with code %d", o.ExitCode)
}

// hookEnv is what a hook finds in its environment besides the loop's own.
func hookEnv(m message, project, dir string) []string {
	e := m.event
	env := []string{
		"RALPH_EVENT=" + string(e.Type),
		"RALPH_NOTIFY=" + m.name,
		"RALPH_TEXT=" + m.text,
		"RALPH_PROJECT=" + project,
		"RALPH_PROJECT_DIR=" + dir,
		"RALPH_RUN_ID=" + e.RunID,
		"RALPH_LOOP=" + strconv.Itoa(e.Loop),
		"RALPH_STATUS=" + e.Status,
		"RALPH_REASON=" + e.Reason,
		"RALPH_BREAKER_STATE=" + e.BreakerState,
		"RALPH_TASKS_COMPLETED=" + strconv.Itoa(e.TasksCompleted),
		"RALPH_TASKS_TOTAL=" + strconv.Itoa(e.TasksTotal),
		"RALPH_COST_USD=" + strconv.FormatFloat(e.Totals.CostUSD, 'f', -1, 64),
		"RALPH_EXIT_REASON=",
		"RALPH_EXIT_CODE=",
	}
	if e.Type == events.RunFinished {
		env[len(env)-2] = "RALPH_EXIT_REASON=" + e.Reason
		if e.ExitCode != nil {
			env[len(env)-1] = "RALPH_EXIT_CODE=" + strconv.Itoa(*e.ExitCode)
		}
	}
	if q := e.Question; q != nil {
		// The agent's question, on one line with its controls made
		// visible, and where the answer goes (question_asked).
		env = append(env, "RALPH_QUESTION="+safetext.Line(q.Text), "RALPH_ANSWER_FILE="+q.AnswerFile)
	}
	return env
}

// keep holds the first max bytes written to it and counts the rest.
type keep struct {
	mu      sync.Mutex
	max     int
	b       []byte
	dropped int64
}

func (k *keep) Write(p []byte) (int, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	room := k.max - len(k.b)
	if room > len(p) {
		room = len(p)
	}
	k.b = append(k.b, p[:room]...)
	k.dropped += int64(len(p) - room)
	return len(p), nil
}

// report is the output as the hooks log shows it: each line indented
// under the delivery's line.
func (k *keep) report() string {
	k.mu.Lock()
	defer k.mu.Unlock()
	s := strings.TrimRight(strings.ToValidUTF8(string(k.b), "\uFFFD"), "\n")
	if s == "" && k.dropped == 0 {
		return ""
	}
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = "    " + strings.TrimRight(l, "\r")
	}
	if k.dropped > 0 {
		lines = append(lines, fmt.Sprintf("    [... %d more bytes not kept]", k.dropped))
	}
	return strings.Join(lines, "\n")
}
