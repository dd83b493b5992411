package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/ralphloop/ralph_loop/analysis"
	"github.com/ralphloop/ralph_loop/internal/agentcall"
	"github.com/ralphloop/ralph_loop/internal/config"
	"github.com/ralphloop/ralph_loop/internal/console"
	"github.com/ralphloop/ralph_loop/internal/engine"
	"github.com/ralphloop/ralph_loop/internal/events"
	"github.com/ralphloop/ralph_loop/internal/observe"
	"github.com/ralphloop/ralph_loop/internal/ralphdir"
	"github.com/ralphloop/ralph_loop/internal/store"
	"github.com/ralphloop/ralph_loop/internal/supervise"
	"github.com/ralphloop/ralph_loop/internal/tasks"
)

// dryRunJSON is the --dry-run --json object: the preview, and the loop
// that holds the project's lock, if any.
type dryRunJSON struct {
	engine.Preview
	PromptBytes  int         `json:"prompt_bytes"`
	ContextBytes int         `json:"context_bytes"`
	Command      string      `json:"command"` // argv, shell-quoted
	LockedBy     *int        `json:"locked_by_pid,omitempty"`
	Locked       bool        `json:"locked"`
	UsageLimit   string      `json:"usage_limit"`
	Waits        []waitJSON  `json:"waits"` // the preview's waits, with their words
	Reach        []reachJSON `json:"reach"` // the keys set that run programs or send data away
	// Sandbox says what SANDBOX confines; SandboxCommand is the whole
	// command line the call runs as in it ("" without a sandbox).
	Sandbox        []string `json:"sandbox"`
	SandboxCommand string   `json:"sandbox_command,omitempty"`
	// Tasks are the trackers (TASK_SOURCES): the commands a run would
	// run and the items it would import; absent without trackers.
	Tasks *tasks.Preview `json:"tasks,omitempty"`
	// Warnings are the configuration's warnings (a .ralphrc's unknown or
	// ignored keys), the ones a run logs as WARN lines at its start.
	Warnings []string `json:"warnings"`
}

// reachJSON is a key that is set and starts a program, decides what the
// agent may do, or sends data off the machine (config.ReachKeys).
type reachJSON struct {
	Key            string `json:"key"`
	Value          string `json:"value"`
	Source         string `json:"source"`          // ".ralph/.ralphrc:3", "env KEY", "flag --x"
	FromRepository bool   `json:"from_repository"` // a .ralphrc: the repository chose it
	Does           string `json:"does"`
}

// waitJSON is a wait that would come before the call, and what it means.
type waitJSON struct {
	engine.Wait
	Note string `json:"note"`
}

// The words of the preview's waits and of the usage limit, which the engine
// gives as values.
var waitNotes = map[string]string{
	"rate_limit": "the hour's calls are used up: wait for the next hour",
	"pause":      "paused: waits until 'ralph_loop --resume'",
}

const usageLimitNote = "no wait pending: a usage-limit wait starts only when a call reports the limit"

// dryRunCommand is --dry-run [--json].
var dryRunCommand = &command{
	flag: &flagSpec{Flag: config.Flag{Long: "dry-run", Doc: "DRY-RUN.md", Group: config.GroupCommands, Common: true,
		Help: "run the start-up checks, show the next agent call and exit; calls no agent and writes nothing"}, kind: commandFlag},
	shares: []string{"json"},
	loop:   true,
	where:  atProjectRoot,
	run: func(e *runEnv, l *line) error {
		return dryRun(e.cfg, dryRunOptionsOf(l), e.warnings, e.dir, e.cwd, e.reset, e.colour(e.stderr), e.safeOut, e.safeErr, e.sig)
	},
}

// dryRunOptions are --dry-run's: the preview as JSON (--json).
type dryRunOptions struct {
	json bool
}

func dryRunOptionsOf(l *line) dryRunOptions { return dryRunOptions{json: l.has("json")} }

// dryRun runs the start-up checks and shows the next agent call without
// making it. Nothing under .ralph/ is written: the state is loaded from a
// throw-away copy, and only the console listens to the engine (the start-up
// lines go to stderr, the preview to stdout).
func dryRun(cfg *config.Config, o dryRunOptions, warnings []config.Warning, dir *ralphdir.Dir, cwd, reset string, colour bool, stdout, stderr io.Writer, sig *signals) error {
	if cfg.EventsFile != "" {
		return &exitError{code: 1, lines: []string{"ralph_loop: --events does not apply to --dry-run (a dry run emits no events); drop one of them"}}
	}
	if err := checkLayout(cfg, dir, cwd); err != nil {
		return err
	}
	sb, err := newSandbox(cfg, dir.Root(), cwd, exec.LookPath)
	if err != nil {
		return err
	}
	copyDir, err := os.MkdirTemp("", "ralph_dryrun_")
	if err != nil {
		return fmt.Errorf("dry run: cannot make a temporary folder: %w (set TMPDIR to a writable folder)", err)
	}
	defer os.RemoveAll(copyDir)
	if err := copyStateFiles(dir, copyDir); err != nil {
		return fmt.Errorf("dry run: cannot copy the state of %s: %w", dir.Root(), err)
	}
	warn := func(msg string) { fmt.Fprintf(stderr, "ralph_loop: warning: %s\n", msg) }
	bus := observe.New(time.Now, events.ISOTime(time.Now()))
	bus.Add(problemsOnly{Observer: observe.Ignore, next: console.New(stderr, stderr, console.Options{Colour: colour, Verbose: cfg.Verbose})})
	// The configuration's warnings, as the run logs them at its start,
	// and Claude Code's refusal as root, as the run warns of it.
	for _, w := range warnings {
		bus.Log(events.Warn, "%s", w.String())
	}
	refusal := rootRefusal(cfg, sb)
	if refusal != nil {
		bus.Note(*refusal)
	}
	// The store's own log lines (a session started or resumed...) are what
	// a real run would log; a dry run shows only its warnings and errors.
	// It loads the copy; the changes the start-up checks make are kept
	// nowhere (engine.Discard).
	state := store.New(ralphdir.New(copyDir, warn), func(level, msg string) {
		if events.Level(level) == events.Warn || events.Level(level) == events.Error {
			warn(msg)
		}
	}, func(err error) { bus.Warned(time.Time{}, events.Warn, err) }, cfg.Verbose)
	s := settingsFor(cfg, reset)
	repo := projectRepo(s.ProjectDir, dir.Root(), os.Environ(), func(err error) {
		bus.Note(events.Logged{Level: events.Warn, Text: err.Error()})
	})
	// The agent only says its install's version: a dry run makes no call.
	p, err := engine.DryRun(s, engine.Deps{
		Bus: bus, Keeper: engine.Discard, Dir: dir, Project: projectReader(s, dir), Repo: repo, Agent: agentcall.Agent{Logs: state}, State: state, Logs: state, Now: time.Now,
		LookPath: exec.LookPath, Env: os.Environ(), Stopper: sig.stopper, Version: programVersion(),
	})
	if err != nil {
		return exitStatus(1) // the console has shown what failed
	}
	out := dryRunJSON{Preview: p, PromptBytes: len(p.Prompt), ContextBytes: len(p.Context), Command: shellJoin(p.Argv),
		UsageLimit: usageLimitNote, Waits: []waitJSON{}, Reach: []reachJSON{}, Warnings: []string{}}
	for _, w := range warnings {
		out.Warnings = append(out.Warnings, w.String())
	}
	if refusal != nil {
		out.Warnings = append(out.Warnings, refusal.Text())
	}
	for _, r := range cfg.Reach() {
		out.Reach = append(out.Reach, reachJSON{Key: r.Key, Value: r.Value, Source: r.Source.String(), FromRepository: r.Source.FromRepository(), Does: r.Does})
	}
	for _, w := range p.Waits {
		out.Waits = append(out.Waits, waitJSON{Wait: w, Note: waitNotes[w.Kind]})
	}
	out.Sandbox = sb.describe()
	if sb != nil && len(p.Argv) > 0 {
		argv, err := sb.preview(supervise.Command{Argv: p.Argv, Dir: cwd})
		if err != nil {
			return err
		}
		out.SandboxCommand = shellJoin(argv)
	}
	out.Tasks = trackerPreview(cfg, dir, cwd, warn)
	withImports(&out.Preview, out.Tasks)
	if held, _ := dir.LockHolder(); held != nil {
		out.Locked = true
		if held.PID > 0 {
			out.LockedBy = &held.PID
		}
	}
	if o.json {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(out)
	}
	printDryRun(stdout, out)
	return nil
}

// problemsOnly passes on what says something is wrong (a failed start-up
// check, a warning, Claude Code's refusal as root): a dry run shows those, and not the lines of a loop
// starting.
type problemsOnly struct {
	observe.Observer // observe.Ignore
	next             observe.Observer
}

func (p problemsOnly) Warned(ts time.Time, level events.Level, err error) {
	p.next.Warned(ts, level, err)
}

func (p problemsOnly) Said(ts time.Time, n events.Notice) {
	switch n := n.(type) {
	case events.StartupFailed, events.RootRefusal:
		p.next.Said(ts, n)
	case events.Logged:
		if n.Level == events.Warn || n.Level == events.Error {
			p.next.Said(ts, n)
		}
	}
}

// printDryRun shows the preview for a person.
func printDryRun(w io.Writer, d dryRunJSON) {
	p := d.Preview
	line := func(label, format string, a ...any) {
		fmt.Fprintf(w, "%-13s %s\n", label+":", fmt.Sprintf(format, a...))
	}
	fmt.Fprintln(w, "Dry run: the next agent call (no agent is called, nothing under .ralph/ is written)")
	line("Driver", "%s", p.Driver)
	line("Command", "%s", shellJoin(promptOut(p.Argv, p.Prompt)))
	line("Starts", "%s once per call, and for nothing else (only --doctor asks its --version)", shellQuote(p.AgentPath))
	if p.CLIVersion != "" {
		line("Version", "%s (from %s)", p.CLIVersion, p.CLIVersionFrom)
	}
	line("Directory", "%s", p.Dir)
	for i, l := range d.Sandbox {
		if i == 0 {
			line("Sandbox", "%s", l)
		} else {
			fmt.Fprintf(w, "%-13s %s\n", "", l)
		}
	}
	if d.SandboxCommand != "" {
		line("In sandbox", "%s", d.SandboxCommand)
	}
	if len(p.EnvAdded) == 0 {
		line("Environment", "nothing added")
	} else {
		line("Environment", "%s", shellJoin(p.EnvAdded))
	}
	if p.Stdin > 0 {
		line("Stdin", "%d bytes", p.Stdin)
	} else {
		line("Stdin", "none")
	}
	line("Loop", "%d", p.Loop)
	line("Prompt", "%s (%d bytes)", p.PromptFile, d.PromptBytes)
	line("Context", "%d bytes", d.ContextBytes)
	if p.SessionID != "" {
		line("Session", "resumes %s", p.SessionID)
	}
	switch {
	case !p.HavePlan:
		line("Next task", "none (no @fix_plan.md)")
	case p.NextTask == "":
		line("Next task", "none (%d of %d tasks left)", p.TasksLeft, p.TasksTotal)
	default:
		line("Next task", "%s (%d of %d tasks left)", p.NextTask, p.TasksLeft, p.TasksTotal)
	}
	line("Breaker", "%s (no progress %d, same error %d)", p.Breaker, p.NoProgress, p.SameError)
	line("Calls", "%d of %d this hour (next reset %s)", p.Calls, p.MaxCalls, p.NextReset)
	line("Usage limit", "%s", d.UsageLimit)
	if len(d.Waits) == 0 {
		line("Waits first", "none")
	}
	for _, wt := range d.Waits {
		if wt.Until.IsZero() {
			line("Waits first", "%s: %s", wt.Kind, wt.Note)
		} else {
			line("Waits first", "%s until %s: %s", wt.Kind, wt.Until.Format("15:04:05"), wt.Note)
		}
	}
	if d.Locked {
		who := "another ralph_loop"
		if d.LockedBy != nil {
			who = fmt.Sprintf("another ralph_loop (pid %d)", *d.LockedBy)
		}
		line("Lock", "%s is running here: a loop started now would refuse to start", who)
	}
	if p.WouldCall {
		line("Next", "call the agent")
	} else {
		line("Next", "stop without calling (%s)", p.WouldStopAs)
	}
	printReach(w, d.Reach)
	printTrackers(w, d.Tasks)
	fmt.Fprintf(w, "\n--- prompt (%d bytes) ---\n%s\n", d.PromptBytes, p.Prompt)
	if p.Context != "" {
		fmt.Fprintf(w, "--- loop context (%d bytes) ---\n%s\n", d.ContextBytes, p.Context)
	}
}

// printReach lists the keys set that run programs or send data away, and
// where each came from: a .ralphrc is the repository's choice.
// promptOut is argv with the prompt argument written as a pointer to the
// prompt printed below it, so that the text shows the prompt once.
func promptOut(argv []string, prompt string) []string {
	out := slices.Clone(argv)
	for i, a := range out {
		if prompt != "" && a == prompt {
			out[i] = "<the prompt below>"
		}
	}
	return out
}

func printReach(w io.Writer, reach []reachJSON) {
	fmt.Fprintln(w, "\nWhat runs or leaves this machine (the settings that start programs, widen what the agent may do or send data away):")
	if len(reach) == 0 {
		fmt.Fprintln(w, "  none set: the agent CLI of the default driver only")
	}
	for _, r := range reach {
		from := r.Source
		if r.FromRepository {
			from += ", the repository's .ralphrc"
		}
		fmt.Fprintf(w, "  %s=%s (%s): %s\n", r.Key, r.Value, from, r.Does)
	}
}

// shellJoin quotes each word for a POSIX shell.
func shellJoin(words []string) string {
	q := make([]string, len(words))
	for i, s := range words {
		q[i] = shellQuote(s)
	}
	return strings.Join(q, " ")
}

// copyStateFiles copies the regular files at the top of .ralph/ (where the
// loop keeps its state) into to, for a load that may write.
func copyStateFiles(from *ralphdir.Dir, to string) error {
	entries, err := from.ReadDir(".")
	if errors.Is(err, fs.ErrNotExist) {
		return nil // a --goal run that was never set up: no state yet
	}
	if err != nil {
		return err
	}
	for _, e := range entries {
		if !e.Type().IsRegular() {
			continue
		}
		data, err := from.ReadText(e.Name())
		if err != nil {
			continue // too big or unreadable: the load treats it as missing
		}
		if err := os.WriteFile(filepath.Join(to, e.Name()), data, 0o600); err != nil {
			return err
		}
	}
	return nil
}

// withImports corrects the plan's side of the preview for the trackers'
// first sync, which a run makes before its first call: items not yet in
// the plan arrive as open tasks, so a plan complete now is not complete
// then, and the first of them is the next task.
func withImports(p *engine.Preview, t *tasks.Preview) {
	if t == nil {
		return
	}
	first, added := "", 0
	for _, tr := range t.Trackers {
		for _, it := range tr.Items {
			if it.New {
				if first == "" {
					first = "[" + it.Key + "] " + it.Title
				}
				added++
			}
		}
	}
	if added == 0 {
		return
	}
	p.TasksLeft += added
	p.TasksTotal += added
	if p.NextTask == "" {
		p.NextTask = first
	}
	if p.WouldStopAs == analysis.ExitPlanComplete {
		p.WouldStopAs, p.ExitReason, p.WouldCall = "", "", true
	}
}
