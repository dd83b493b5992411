package engine_test

// The harness of the engine-level tests: a real temporary project
// (.ralph/PROMPT.md, @fix_plan.md; its repository in memory, MemRepo), the settings resolved by the
// config package from an environment map, every real sink on the bus plus a
// recorder, and a scripted fake agent in place of supervise.Run. Tests run
// the loop inside a testing/synctest bubble, so every wait is virtual time:
// the timestamps of the recorded events are exact.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/ralphloop/ralph_loop/internal/agentcall"
	"github.com/ralphloop/ralph_loop/internal/ask"
	"github.com/ralphloop/ralph_loop/internal/config"
	"github.com/ralphloop/ralph_loop/internal/console"
	"github.com/ralphloop/ralph_loop/internal/engine"
	"github.com/ralphloop/ralph_loop/internal/events"
	"github.com/ralphloop/ralph_loop/internal/fakeagent"
	"github.com/ralphloop/ralph_loop/internal/observe"
	"github.com/ralphloop/ralph_loop/internal/ralphdir"
	"github.com/ralphloop/ralph_loop/internal/store"
	"github.com/ralphloop/ralph_loop/internal/supervise"
)

// ctlReply is what the fake agent does on one call.
type ctlReply struct {
	Text    string             // the agent's reply; a RALPH_STATUS block is appended
	Raw     string             // exact stdout instead of ClaudeJSON(Text + status); with Outcome, what the failed call printed
	Stderr  string             // what a failed call printed on stderr
	Took    time.Duration      // virtual time the call takes
	Outcome *supervise.Outcome // returned instead of a clean exit
	Touch   string             // append a line to this project file (a git-visible change)
	Commit  bool               // commit everything after Touch
	// CommitRalph commits .ralph/ alone (the loop's own files, as an
	// agent's `git add -A && git commit` takes them along), even when
	// nothing there changed.
	CommitRalph bool
	Pause       bool // run "ralph_loop --pause" while the call runs
	Check       bool // tick the first open box of @fix_plan.md
}

// ctlHarness is one project and one run of the loop.
type ctlHarness struct {
	t       *testing.T
	dir     string
	rd      *ralphdir.Dir
	repo    *engine.MemRepo // the project's repository, in memory
	rec     *ctlRecorder
	out     *ctlBuffer
	stopper *engine.Stopper
	script  func(n int) ctlReply
	swarm   engine.Swarm // what a swarm's workers share; nil for a loop of its own
	box     *ask.Box     // where the agent's questions wait for their answer
	quota   engine.Quota // the usage ledger; nil: the governor is off
	tasks   engine.Tasks // the trackers; nil for none
	// lookPath finds the agent CLIs; nil finds every one at /bin/true.
	lookPath func(string) (string, error)

	mu    sync.Mutex
	calls int
	opts  []supervise.Options
	argvs [][]string
}

// newCtlHarness creates the project. It must be called inside the bubble
// (the Stopper's context belongs to it).
func newCtlHarness(t *testing.T, interactive bool, script func(n int) ctlReply) *ctlHarness {
	t.Helper()
	dir := ctlTempDir(t)
	files := map[string]string{
		".gitignore":          ".ralph/logs/\n",
		".ralph/PROMPT.md":    "Do the next task. When nothing is left, reply STOP on a line of its own.\n",
		".ralph/@fix_plan.md": "# Fix Plan\n- [ ] Task A\n- [ ] Task B\n",
		"src/app.txt":         "hello\n",
	}
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	repo := engine.NewMemRepo(dir)
	rd := ralphdir.New(filepath.Join(dir, ".ralph"), func(msg string) { t.Logf("ralphdir: %s", msg) })
	if err := rd.EnsureLayout(); err != nil {
		t.Fatal(err)
	}
	box, err := ask.Open(filepath.Join(ctlTempDir(t), "questions"), rd.Root())
	if err != nil {
		t.Fatal(err)
	}
	return &ctlHarness{
		t: t, dir: dir, rd: rd, repo: repo, rec: newCtlRecorder(), out: &ctlBuffer{}, box: box,
		stopper: engine.NewStopper(context.Background(), interactive, time.Now),
		script:  script,
	}
}

// ctlTempDir is a fresh project directory, on tmpfs when there is one:
// the loop fsyncs every state file it writes, which on a disk costs more
// than everything else the tests do.
func ctlTempDir(t *testing.T) string {
	t.Helper()
	if st, err := os.Stat("/dev/shm"); err == nil && st.IsDir() {
		if dir, err := os.MkdirTemp("/dev/shm", "ralph-engine-test-"); err == nil {
			t.Cleanup(func() { os.RemoveAll(dir) })
			return dir
		}
	}
	return t.TempDir()
}

// settings resolves the configuration as the CLI does (config.Load with env
// as the whole environment and args, settings' flags such as "--max-loops
// 2" or "--live", as the command line), which is the engine's Settings.
func (h *ctlHarness) settings(env map[string]string, args ...string) config.Config {
	h.t.Helper()
	switches := map[string]bool{}
	for _, f := range config.Flags() {
		switches[f.Long] = f.Arg == ""
	}
	flags := &config.FlagValues{}
	for i := 0; i < len(args); i++ {
		name, value := strings.TrimPrefix(args[i], "--"), "true"
		if !switches[name] {
			i++
			value = args[i]
		}
		if err := flags.Set(name, value); err != nil {
			h.t.Fatalf("%s: %v", args[i], err)
		}
	}
	lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	c, _, err := config.Load(flags, true, lookup, h.dir, os.ReadFile)
	if err != nil {
		h.t.Fatalf("config.Load: %v", err)
	}
	return *c
}

// run runs the loop to its end with every real sink attached.
func (h *ctlHarness) run(s config.Config) engine.Result {
	start := time.Now()
	bus := observe.New(time.Now, events.ISOTime(start))
	onErr := func(err error) { h.t.Errorf("sink: %v", err) }
	shown := console.Options{Verbose: true}
	bus.Add(h.rec, console.NewLog(h.rec, shown), console.New(h.out, io.Discard, shown),
		console.NewLog(store.NewRalphLog(h.rd, onErr), shown))
	bus.Add(store.Sinks(h.rd, nil, onErr)...)
	st := store.New(h.rd, func(level, msg string) { bus.Log(events.Level(level), "%s", msg) },
		func(err error) { bus.Warned(time.Time{}, events.Warn, err) }, s.Verbose)
	r := engine.Run(s, engine.Deps{
		Bus:      bus,
		Keeper:   st,
		Dir:      h.rd,
		Project:  h.project(s),
		Repo:     h.repo,
		State:    st,
		Logs:     st,
		Now:      time.Now,
		Agent:    agentcall.Agent{Start: h.agent, Logs: st},
		LookPath: h.findAgent,
		Env:      []string{"HOME=" + h.dir, "PATH=/usr/bin:/bin"},
		Stopper:  h.stopper,
		// Interactive follows the Stopper; the usage-limit prompt is
		// never reached here (no Stdin).
		Interactive: false,
		Version:     "test",
		Swarm:       h.swarm,
		Ask:         h.box,
		Quota:       h.quota,
		Tasks:       h.tasks,
	})
	// Let goroutines the run left behind (a progress tick that fired with
	// the end of the last call) finish their writes before anyone looks
	// at the files or removes the project.
	synctest.Wait()
	return r
}

// project is the reader of h's project files with settings s.
func (h *ctlHarness) project(s config.Config) ralphdir.Project {
	return ralphdir.Project{Dir: h.rd, ProjectDir: s.ProjectDir, PromptFile: s.PromptFile, PromptFromRepo: s.PromptFromRepo}
}

// findAgent is the run's PATH look-up: h.lookPath, or /bin/true for every
// CLI.
func (h *ctlHarness) findAgent(name string) (string, error) {
	if h.lookPath != nil {
		return h.lookPath(name)
	}
	return "/bin/true", nil
}

// start runs the loop in a goroutine; the result arrives on the channel.
func (h *ctlHarness) start(s config.Config) <-chan engine.Result {
	ch := make(chan engine.Result, 1)
	go func() { ch <- h.run(s) }()
	return ch
}

// agent is the fake supervise.Run: it answers from the script.
func (h *ctlHarness) agent(ctx context.Context, c supervise.Command, o supervise.Options) supervise.Outcome {
	h.mu.Lock()
	h.calls++
	n := h.calls
	h.opts = append(h.opts, o)
	h.argvs = append(h.argvs, c.Argv)
	h.mu.Unlock()
	r := h.script(n)
	if r.Pause {
		if err := h.rd.WriteFile(ralphdir.PauseFile, []byte("paused\n")); err != nil {
			h.t.Errorf("pause: %v", err)
		}
	}
	if r.Check {
		plan, _, err := h.rd.ReadFile(ralphdir.FixPlan)
		if err == nil {
			err = h.rd.WriteFile(ralphdir.FixPlan, []byte(strings.Replace(string(plan), "- [ ]", "- [x]", 1)))
		}
		if err != nil {
			h.t.Errorf("check: %v", err)
		}
	}
	if r.Touch != "" {
		f, err := os.OpenFile(filepath.Join(h.dir, r.Touch), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
		if err != nil {
			h.t.Errorf("touch: %v", err)
		} else {
			fmt.Fprintf(f, "call %d\n", n)
			f.Close()
		}
	}
	h.commit(r, n)
	if r.Took > 0 {
		select {
		case <-time.After(r.Took):
		case <-ctx.Done():
			return supervise.Outcome{ExitCode: -1, Reason: supervise.Canceled, Err: context.Cause(ctx), Duration: r.Took}
		}
	}
	if r.Outcome != nil {
		if r.Raw != "" && o.Stdout != nil {
			o.Stdout.Write([]byte(r.Raw)) // what a failing call printed
		}
		if r.Stderr != "" && o.Stderr != nil {
			o.Stderr.Write([]byte(r.Stderr))
		}
		return *r.Outcome
	}
	out := r.Raw
	if out == "" {
		out = fakeagent.ClaudeJSON(r.Text+"\n"+fakeagent.StatusBlock("IN_PROGRESS", false, 0), fmt.Sprintf("sess-%d", n))
	}
	if o.Stdout != nil {
		o.Stdout.Write([]byte(out))
	}
	return supervise.Outcome{ExitCode: 0, Reason: supervise.Exited, Duration: r.Took}
}

// commit commits what the reply says: the project without .ralph/
// (Commit), or .ralph/ alone (CommitRalph).
func (h *ctlHarness) commit(r ctlReply, n int) {
	inRalph := func(p string) bool { return strings.HasPrefix(p, ".ralph/") }
	switch {
	case r.Commit:
		h.repo.CommitFiles(fmt.Sprintf("call %d", n), func(p string) bool { return !inRalph(p) })
	case r.CommitRalph:
		h.repo.CommitFiles(fmt.Sprintf("call %d", n), inRalph)
	}
}

func (h *ctlHarness) callCount() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.calls
}

// status reads .ralph/status.json.
func (h *ctlHarness) status() store.StatusFile {
	h.t.Helper()
	var s store.StatusFile
	b, err := os.ReadFile(h.rd.Path(ralphdir.Status))
	if err != nil {
		h.t.Fatalf("status.json: %v", err)
	}
	if err := json.Unmarshal(b, &s); err != nil {
		h.t.Fatalf("status.json: %v\n%s", err, b)
	}
	return s
}

// breakerState reads the state field of .circuit_breaker_state.
func (h *ctlHarness) breakerState() string {
	h.t.Helper()
	var v struct{ State string }
	b, err := os.ReadFile(h.rd.Path(ralphdir.CircuitBreakerState))
	if err != nil {
		h.t.Fatalf("breaker state: %v", err)
	}
	if err := json.Unmarshal(b, &v); err != nil {
		h.t.Fatalf("breaker state: %v", err)
	}
	return v.State
}

// checkEnd asserts the exit code, the run_finished event and status.json.
func (h *ctlHarness) checkEnd(r engine.Result, code int, reason, status string) {
	h.t.Helper()
	if r.Code != code || r.Reason != reason || r.Status != status {
		h.t.Fatalf("result = code %d, reason %q, status %q (%s); want %d, %q, %q\nlog:\n%s",
			r.Code, r.Reason, r.Status, r.Stop.Sentence(), code, reason, status, h.rec.logText())
	}
	fin := h.rec.ofType(events.RunFinished)
	if len(fin) != 1 || fin[0].ExitCode == nil || *fin[0].ExitCode != code || fin[0].Reason != reason {
		h.t.Fatalf("run_finished events = %+v, want one with exit %d reason %q", fin, code, reason)
	}
	st := h.status()
	if st.ExitReason != reason || st.Status != status {
		h.t.Fatalf("status.json exit_reason %q status %q, want %q %q", st.ExitReason, st.Status, reason, status)
	}
	h.rec.checkWaitPairs(h.t)
}

// ctlRecorder keeps every event line and log line.
type ctlRecorder struct {
	observe.Observer
	mu     sync.Mutex
	events []events.Event
	lines  []string
}

func newCtlRecorder() *ctlRecorder {
	r := &ctlRecorder{}
	r.Observer = observe.Lines(r.event)
	return r
}

func (r *ctlRecorder) event(e events.Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, e)
}

func (r *ctlRecorder) Line(ts time.Time, level events.Level, msg string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.lines = append(r.lines, fmt.Sprintf("[%s] %s", level, msg))
}

func (r *ctlRecorder) all() []events.Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]events.Event(nil), r.events...)
}

func (r *ctlRecorder) ofType(t events.Type) []events.Event {
	var out []events.Event
	for _, e := range r.all() {
		if e.Type == t {
			out = append(out, e)
		}
	}
	return out
}

func (r *ctlRecorder) logText() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return strings.Join(r.lines, "\n")
}

func (r *ctlRecorder) hasLine(sub string) bool {
	return strings.Contains(r.logText(), sub)
}

// ctlWait is one recorded wait.
type ctlWait struct {
	Kind    string
	Delay   time.Duration
	Skipped bool
}

// waits returns the waits in order, from the delay_started/ended pairs.
func (r *ctlRecorder) waits() []ctlWait {
	var out []ctlWait
	for _, e := range r.all() {
		switch e.Type {
		case events.DelayStarted:
			out = append(out, ctlWait{Kind: e.Wait, Delay: delayOf(e)})
		case events.DelayEnded:
			if len(out) > 0 && e.Skipped {
				out[len(out)-1].Skipped = true
			}
		}
	}
	return out
}

// delayOf is a wait's length as its event line has it (delay_seconds).
func delayOf(e events.Event) time.Duration {
	return time.Duration(math.Round(e.DelaySecs * float64(time.Second)))
}

// checkWaitPairs: every delay_started is followed by its delay_ended
// (same kind and delay) before anything else waits or the run ends.
func (r *ctlRecorder) checkWaitPairs(t *testing.T) {
	t.Helper()
	var open *events.Event
	for _, e := range r.all() {
		switch e.Type {
		case events.DelayStarted:
			if open != nil {
				t.Errorf("delay_started %s while %s is still open", e.Wait, open.Wait)
			}
			ev := e
			open = &ev
		case events.DelayEnded:
			if open == nil || open.Wait != e.Wait || open.DelaySecs != e.DelaySecs {
				t.Errorf("delay_ended %s %gs without its delay_started (open: %v)", e.Wait, e.DelaySecs, open)
			}
			open = nil
		case events.RunFinished, events.IterationStarted:
			if open != nil {
				t.Errorf("%s while the %s wait is still open", e.Type, open.Wait)
			}
		}
	}
}

// starts returns the times iteration_started was emitted, relative to t0.
func (r *ctlRecorder) starts(t0 time.Time) []time.Duration {
	var out []time.Duration
	for _, e := range r.ofType(events.IterationStarted) {
		out = append(out, e.TS.Sub(t0))
	}
	return out
}

// ctlBuffer is a goroutine-safe console.
type ctlBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *ctlBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *ctlBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}
