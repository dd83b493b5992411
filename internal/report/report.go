// Package report rebuilds what happened in a run from its NDJSON event log
// (logs/events.jsonl): the loops and their outcomes, time per loop, tokens,
// cost, breaker changes and why the run stopped. It is what
// `ralph_loop --report` prints.
package report

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/ralphloop/ralph_loop/internal/events"
)

// Loop is one agent call of the run.
type Loop struct {
	Loop     int           `json:"loop"`
	Outcome  string        `json:"outcome"`
	Duration time.Duration `json:"-"`
	Seconds  float64       `json:"seconds"`
	Usage    *events.Usage `json:"usage,omitempty"`
	Ticked   []string      `json:"tasks_ticked,omitempty"`
	// Verified: VERIFY_COMMAND's verdicts on the tasks the call ticked.
	Verified []events.TaskVerdict `json:"verified,omitempty"`
	// FilesChanged is the files the call changed in git (the dashboard
	// shows it; --report --json does not).
	FilesChanged int `json:"-"`
}

// Receipt is what one ticked task took: the loops since the previous tick
// (or the start of the run) up to and including the loop that ticked it.
// Tasks ticked by the same loop share one set of numbers (SharedBy > 1).
type Receipt struct {
	Task     string  `json:"task"`
	Loop     int     `json:"loop"` // the loop that ticked it
	Loops    int     `json:"loops"`
	Calls    int     `json:"calls"`
	Tokens   int64   `json:"tokens"`
	CostUSD  float64 `json:"cost_usd"`
	Seconds  float64 `json:"seconds"` // wall time from the previous tick (or the start) to this one
	SharedBy int     `json:"shared_by,omitempty"`
	// Verdict is VERIFY_COMMAND's: "passed", or "failed (exit N)" /
	// "failed (timed out)" for a tick the check took back (the task stays
	// open, and its calls go on to the receipt of its next tick); "" when
	// no check ran.
	Verdict string `json:"verdict,omitempty"`
}

// pending adds up the calls since the last tick.
type pending struct {
	loops  map[int]bool
	calls  int
	tokens int64
	cost   float64
	since  time.Time
}

// Change is one breaker transition.
type Change struct {
	At     time.Time `json:"at"`
	Loop   int       `json:"loop"`
	From   string    `json:"from"`
	To     string    `json:"to"`
	Reason string    `json:"reason"`
}

// Question is one question the agent asked the person in the run, and
// what came of it.
type Question struct {
	Loop     int       `json:"loop"`
	Question string    `json:"question"`
	Asked    time.Time `json:"asked"`
	// Outcome: answered, timeout, skipped (the wait was cut short),
	// stopped (the run stopped while it waited: the question stays
	// open), or "" while the run still waits.
	Outcome string  `json:"outcome,omitempty"`
	Answer  string  `json:"answer,omitempty"`
	Via     string  `json:"via,omitempty"`  // command, dashboard, file
	Then    string  `json:"then,omitempty"` // unanswered: continue, skip, stop
	Task    string  `json:"task,omitempty"` // then skip: the task set aside
	Waited  float64 `json:"waited_seconds"`
}

// Summary is one run.
type Summary struct {
	RunID      string    `json:"run_id"`
	Driver     string    `json:"driver,omitempty"`
	Started    time.Time `json:"started"`
	Ended      time.Time `json:"ended,omitempty"`
	Finished   bool      `json:"finished"`
	ExitReason string    `json:"exit_reason,omitempty"`
	ExitCode   *int      `json:"exit_code,omitempty"`
	Status     string    `json:"status,omitempty"`
	// QualityGates is the quality gates as the run's end saw them
	// (run_finished's quality_gates); absent when none ran.
	QualityGates *events.Gates `json:"quality_gates,omitempty"`
	Loops        []Loop        `json:"loops"`
	// FailedCalls are the calls among Loops that failed (an error, a
	// timeout, a usage limit, a reply that did nothing): every call is
	// one of Loops.
	FailedCalls int            `json:"failed_calls"`
	Outcomes    map[string]int `json:"outcomes"`
	Totals      events.Usage   `json:"totals"`
	Breaker     []Change       `json:"breaker_changes"`
	Waits       map[string]int `json:"waits"`
	Invalid     int            `json:"invalid_lines"`
	Receipts    []Receipt      `json:"receipts"`
	// Questions are the agent's questions to the person, in order.
	Questions []Question `json:"questions"`
	// Trackers are the run's tracker events (tasks.go); absent without
	// TASK_SOURCES.
	Trackers []Tracked `json:"trackers,omitempty"`

	open    pending           // calls not yet paid for by a tick
	started bool              // a run_started event was seen
	starts  map[int]time.Time // iteration_started times by loop
}

// Read parses an event log, given as one or more logs read one after the
// other (the rotated copies, then the live log), and returns its runs in
// order. Lines that are not valid JSON events are counted (Invalid of the run they fall in, or of
// the next run for lines before the first event) and skipped; a last line
// without its newline is an append still under way and is left out
// silently. A line longer than MaxLine is skipped as invalid without being
// held in memory, so a damaged log cannot exhaust it. A run_started event for a run id
// already seen with one starts a new run (two runs started within the same
// second share their id).
func Read(logs ...io.Reader) ([]*Summary, error) {
	br := bufio.NewReaderSize(concat(logs...), 64<<10)
	var runs []*Summary
	byID := map[string]*Summary{}
	var cur *Summary
	orphans := 0 // invalid lines before the first event
	for {
		line, long, err := readLine(br)
		partial := err == io.EOF && (len(line) > 0 || long)
		if long {
			if !partial {
				if cur != nil {
					cur.Invalid++
				} else {
					orphans++
				}
			}
			line = nil
		}
		if len(bytes.TrimSpace(line)) > 0 {
			var e events.Event
			if json.Unmarshal(line, &e) != nil || e.Type == "" {
				switch {
				case partial:
				case cur != nil:
					cur.Invalid++
				default:
					orphans++
				}
			} else {
				s := byID[e.RunID]
				if s == nil || e.Type == events.RunStarted && s.started || s.Finished {
					s = &Summary{RunID: e.RunID, Started: e.TS, Loops: []Loop{}, Outcomes: map[string]int{},
						Breaker: []Change{}, Waits: map[string]int{}, starts: map[int]time.Time{},
						Receipts: []Receipt{}, Questions: []Question{}, open: pending{loops: map[int]bool{}, since: e.TS}}
					byID[e.RunID] = s
					runs = append(runs, s)
					s.Invalid, orphans = orphans, 0
				}
				cur = s
				apply(s, e)
			}
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return runs, fmt.Errorf("read events: %w", err)
		}
	}
	return runs, nil
}

// MaxLine bounds one event line; an event is a few hundred bytes.
const MaxLine = 1 << 20

// readLine returns the next line with its newline; long reports a line over
// MaxLine, whose bytes are skipped, not returned.
func readLine(br *bufio.Reader) (line []byte, long bool, err error) {
	for {
		chunk, err := br.ReadSlice('\n')
		if !long {
			line = append(line, chunk...)
			if len(line) > MaxLine {
				long, line = true, nil
			}
		}
		if err != bufio.ErrBufferFull {
			if long {
				return nil, true, err
			}
			return line, false, err
		}
	}
}

func apply(s *Summary, e events.Event) {
	s.Ended = e.TS
	s.Totals = e.Totals
	starts := s.starts
	switch e.Type {
	case events.RunStarted:
		s.Driver, s.Started, s.started = e.Driver, e.TS, true
		s.open.since = e.TS
	case events.IterationStarted:
		starts[e.Loop] = e.TS
	case events.IterationCompleted, events.IterationFailed, events.IterationTimedOut, events.IterationIdle, events.IterationDenied:
		l := Loop{Loop: e.Loop, Outcome: string(e.Type)}
		if it := e.Iteration; it != nil {
			l.Outcome = it.Outcome
			l.Usage = it.Usage
			l.Ticked = it.TasksTicked
			l.Verified = it.Verified
			l.FilesChanged = it.FilesChanged
			l.Duration = time.Duration(it.WallMS) * time.Millisecond
		} else if t, ok := starts[e.Loop]; ok {
			l.Duration = e.TS.Sub(t)
		}
		l.Seconds = l.Duration.Seconds()
		s.Loops = append(s.Loops, l)
		s.Outcomes[l.Outcome]++
		if e.Type == events.IterationFailed || e.Type == events.IterationTimedOut {
			s.FailedCalls++
		}
		s.account(l, e.TS)
	case events.BreakerChanged:
		s.Breaker = append(s.Breaker, Change{At: e.TS, Loop: e.Loop, From: e.From, To: e.To, Reason: e.Reason})
	case events.DelayStarted:
		s.Waits[e.Wait]++
	case events.RunFinished:
		s.Finished, s.ExitReason, s.ExitCode, s.Status = true, e.Reason, e.ExitCode, e.Status
		s.QualityGates = e.QualityGates
	case events.QuestionAsked, events.QuestionAnswered, events.QuestionUnanswered:
		s.question(e)
	default:
		if isTracked(e.Type) {
			s.track(e)
		}
	}
}

// question keeps a question event: asked opens one, its end fills it in.
func (s *Summary) question(e events.Event) {
	q := e.Question
	if q == nil {
		return
	}
	if e.Type == events.QuestionAsked {
		s.Questions = append(s.Questions, Question{Loop: q.Loop, Question: q.Text, Asked: e.TS})
		return
	}
	if len(s.Questions) == 0 || s.Questions[len(s.Questions)-1].Outcome != "" {
		return // its start is in a rotated log no longer there
	}
	last := &s.Questions[len(s.Questions)-1]
	last.Waited = e.TS.Sub(last.Asked).Seconds()
	if e.Type == events.QuestionAnswered {
		last.Outcome, last.Answer, last.Via = "answered", q.Answer, q.Via
		return
	}
	last.Outcome, last.Then, last.Task = e.Reason, q.Then, q.Task
}

// account adds a finished call to the open receipt and closes it when the
// call ticked tasks.
func (s *Summary) account(l Loop, at time.Time) {
	o := &s.open
	o.loops[l.Loop] = true
	o.calls++
	if l.Usage != nil {
		o.tokens += l.Usage.Tokens()
		o.cost += l.Usage.CostUSD
	}
	verdicts := map[string]string{}
	for _, v := range l.Verified {
		if v.Passed {
			verdicts[v.Task] = "passed"
			continue
		}
		// A tick the check took back: its receipt so far; the task's calls
		// go on to the receipt of its next tick.
		s.Receipts = append(s.Receipts, Receipt{Task: v.Task, Loop: l.Loop, Loops: len(o.loops), Calls: o.calls,
			Tokens: o.tokens, CostUSD: events.RoundCost(o.cost), Seconds: at.Sub(o.since).Seconds(), Verdict: failedVerdict(v)})
	}
	if len(l.Ticked) == 0 {
		return
	}
	shared := 0
	if len(l.Ticked) > 1 {
		shared = len(l.Ticked)
	}
	for _, t := range l.Ticked {
		s.Receipts = append(s.Receipts, Receipt{Task: t, Loop: l.Loop, Loops: len(o.loops), Calls: o.calls,
			Tokens: o.tokens, CostUSD: events.RoundCost(o.cost), Seconds: at.Sub(o.since).Seconds(), SharedBy: shared, Verdict: verdicts[t]})
	}
	s.open = pending{loops: map[int]bool{}, since: at}
}

// failedVerdict words a failed check: "failed (exit 1)".
func failedVerdict(v events.TaskVerdict) string {
	if v.TimedOut {
		return "failed (timed out)"
	}
	return fmt.Sprintf("failed (exit %d)", v.ExitCode)
}

// Find returns the last run with the id, or nil.
func Find(runs []*Summary, id string) *Summary {
	for i := len(runs) - 1; i >= 0; i-- {
		if runs[i].RunID == id {
			return runs[i]
		}
	}
	return nil
}

// concat reads logs one after the other as one log. A newline goes between
// them, so a copy that ends without one cannot join two events.
func concat(logs ...io.Reader) io.Reader {
	rs := make([]io.Reader, 0, 2*len(logs))
	for i, r := range logs {
		if i > 0 {
			rs = append(rs, bytes.NewReader([]byte("\n")))
		}
		rs = append(rs, r)
	}
	return io.MultiReader(rs...)
}

// failedStartup reports whether the run ended before it started: a
// run_finished without run_started and without a loop (no git commit, a
// missing prompt, a bad setting...).
func (s *Summary) failedStartup() bool { return s.Finished && !s.started && len(s.Loops) == 0 }

// Last returns the most recent run that got past its start-up, else the
// most recent run, or nil.
func Last(runs []*Summary) *Summary {
	for i := len(runs) - 1; i >= 0; i-- {
		if !runs[i].failedStartup() {
			return runs[i]
		}
	}
	if len(runs) == 0 {
		return nil
	}
	return runs[len(runs)-1]
}

// writeGates says how the quality gates stood at the run's end; failing
// gates are named, whatever the mode let the run do.
func writeGates(w io.Writer, g *events.Gates) {
	if g == nil {
		return
	}
	if g.OverallStatus != "fail" {
		fmt.Fprintf(w, "  quality gates %s (%s mode)\n", g.OverallStatus, g.Mode)
		return
	}
	fmt.Fprintf(w, "  quality gates FAILING (%s mode): %s", g.Mode, strings.Join(g.Failing, "; "))
	if g.Log != "" {
		fmt.Fprintf(w, "; full output: %s", g.Log)
	}
	fmt.Fprintln(w)
}

// WriteText renders s as a table for a terminal.
func WriteText(w io.Writer, s *Summary) {
	fmt.Fprintf(w, "Run %s", s.RunID)
	if s.Driver != "" {
		fmt.Fprintf(w, " (%s)", s.Driver)
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "  started  %s\n", s.Started.Local().Format(events.LocalStamp))
	if s.Finished {
		code := "?"
		if s.ExitCode != nil {
			code = fmt.Sprint(*s.ExitCode)
		}
		fmt.Fprintf(w, "  ended    %s  (%s)\n", s.Ended.Local().Format(events.LocalStamp), s.Ended.Sub(s.Started).Round(time.Second))
		fmt.Fprintf(w, "  stopped  %s, exit code %s, status %s\n", s.ExitReason, code, s.Status)
		writeGates(w, s.QualityGates)
	} else {
		fmt.Fprintf(w, "  last event %s: still running, or ended without a run_finished event (killed)\n", s.Ended.Local().Format(events.LocalStamp))
	}
	if s.failedStartup() {
		fmt.Fprintf(w, "  the start-up failed: no loop ran (logs/ralph.log says why)\n")
		return
	}
	fmt.Fprintf(w, "\n  %-5s %-22s %9s %12s %12s %10s\n", "loop", "outcome", "seconds", "input tok", "output tok", "cost USD")
	for _, l := range s.Loops {
		in, out, cost := "-", "-", "-"
		if l.Usage != nil {
			in, out, cost = fmt.Sprint(l.Usage.InputTokens), fmt.Sprint(l.Usage.OutputTokens), fmt.Sprintf("%.4f", l.Usage.CostUSD)
		}
		fmt.Fprintf(w, "  %-5d %-22s %9.1f %12s %12s %10s\n", l.Loop, l.Outcome, l.Seconds, in, out, cost)
	}
	t := s.Totals
	fmt.Fprintf(w, "\n  loops %d", len(s.Loops))
	for _, k := range sortedKeys(s.Outcomes) {
		fmt.Fprintf(w, ", %s %d", k, s.Outcomes[k])
	}
	fmt.Fprintf(w, "\n  calls %d, failed %d", len(s.Loops), s.FailedCalls)
	fmt.Fprintf(w, "\n  tokens: input %d, output %d, cache read %d, cache write %d; cost $%.4f\n",
		t.InputTokens, t.OutputTokens, t.CacheReadTokens, t.CacheCreationTokens, t.CostUSD)
	if len(s.Breaker) > 0 {
		fmt.Fprintln(w, "\n  circuit breaker:")
		for _, c := range s.Breaker {
			fmt.Fprintf(w, "    loop %d: %s\n", c.Loop, events.BreakerMove(c.From, c.To, c.Reason))
		}
	}
	writeReceipts(w, s.Receipts)
	writeQuestions(w, s.Questions)
	writeTrackers(w, s.Trackers)
	if s.Invalid > 0 {
		fmt.Fprintf(w, "\n  (%d unreadable event lines skipped)\n", s.Invalid)
	}
}

func writeReceipts(w io.Writer, rs []Receipt) {
	if len(rs) == 0 {
		return
	}
	fmt.Fprintf(w, "\n  tasks ticked:\n  %-5s %5s %5s %12s %10s %9s  %s\n", "loop", "loops", "calls", "tokens", "cost USD", "seconds", "task")
	for _, r := range rs {
		shared := ""
		if r.SharedBy > 1 {
			shared = fmt.Sprintf("  (shared by %d tasks)", r.SharedBy)
		}
		check := ""
		if r.Verdict != "" {
			check = "  [check " + r.Verdict + "]"
		}
		fmt.Fprintf(w, "  %-5d %5d %5d %12d %10.4f %9.1f  %s%s%s\n", r.Loop, r.Loops, r.Calls, r.Tokens, r.CostUSD, r.Seconds, r.Task, shared, check)
	}
}

// writeQuestions lists the agent's questions and what came of each.
func writeQuestions(w io.Writer, qs []Question) {
	if len(qs) == 0 {
		return
	}
	fmt.Fprintln(w, "\n  questions to the person:")
	for _, q := range qs {
		fmt.Fprintf(w, "    loop %d: %s\n      ", q.Loop, events.Quoted(q.Question, 300))
		waited := (time.Duration(q.Waited * float64(time.Second))).Round(time.Second)
		switch q.Outcome {
		case "":
			fmt.Fprintln(w, "waiting for the answer")
		case "answered":
			fmt.Fprintf(w, "answered via %s after %s: %s\n", q.Via, waited, events.Quoted(q.Answer, 300))
		case "stopped":
			fmt.Fprintf(w, "the run stopped after %s while it waited; the question stays open (ralph_loop --answer)\n", waited)
		default:
			fmt.Fprintf(w, "no answer (%s after %s): %s", q.Outcome, waited, q.Then)
			if q.Task != "" {
				fmt.Fprintf(w, ", task %s set aside", events.Quoted(q.Task, 120))
			}
			fmt.Fprintln(w)
		}
	}
}

// Line is one run in the history.
type Line struct {
	RunID      string    `json:"run_id"`
	Started    time.Time `json:"started"`
	Seconds    float64   `json:"seconds"`
	Finished   bool      `json:"finished"`
	ExitReason string    `json:"exit_reason,omitempty"`
	Loops      int       `json:"loops"`
	Tasks      int       `json:"tasks_ticked"`
	Tokens     int64     `json:"tokens"`
	CostUSD    float64   `json:"cost_usd"`
}

// History is one Line per run, oldest first.
func History(runs []*Summary) []Line {
	out := make([]Line, 0, len(runs))
	for _, s := range runs {
		out = append(out, Line{RunID: s.RunID, Started: s.Started, Seconds: s.Ended.Sub(s.Started).Seconds(),
			Finished: s.Finished, ExitReason: s.ExitReason, Loops: len(s.Loops), Tasks: len(s.Receipts),
			Tokens: s.Totals.Tokens(), CostUSD: s.Totals.CostUSD})
	}
	return out
}

// WriteHistory renders one line per run, oldest first.
func WriteHistory(w io.Writer, runs []*Summary) {
	fmt.Fprintf(w, "\nRuns (%d):\n  %-25s %-19s %9s %5s %5s %12s %10s  %s\n", len(runs), "run", "started", "seconds", "loops", "tasks", "tokens", "cost USD", "stopped")
	lines := History(runs)
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		// Failed start-ups in a row are one line: how many, from when to when.
		n := 0
		for i+n < len(runs) && runs[i+n].failedStartup() {
			n++
		}
		if n > 1 {
			last := lines[i+n-1]
			fmt.Fprintf(w, "  %-25s %-19s %9s %5s %5s %12s %10s  %d failed start-ups, the last at %s (%s)\n", "(start-up failed)",
				l.Started.Local().Format(events.LocalStamp), "", "", "", "", "", n, last.Started.Local().Format(events.LocalStamp), last.ExitReason)
			i += n - 1
			continue
		}
		why := l.ExitReason
		switch {
		case !l.Finished:
			why = "(no run_finished: running or killed)"
		case n == 1:
			why += " (start-up failed)"
		}
		fmt.Fprintf(w, "  %-25s %-19s %9.0f %5d %5d %12d %10.4f  %s\n", l.RunID, l.Started.Local().Format(events.LocalStamp),
			l.Seconds, l.Loops, l.Tasks, l.Tokens, l.CostUSD, why)
	}
}

// All is --report --json: the last run in full and the history.
type All struct {
	Last *Summary `json:"last"`
	Runs []Line   `json:"runs"`
}

// WriteJSON renders s (a *Summary or an All) as indented JSON.
func WriteJSON(w io.Writer, s any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(s)
}

func sortedKeys(m map[string]int) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
