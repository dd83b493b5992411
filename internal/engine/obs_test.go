package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/ralphloop/ralph_loop/analysis"
	"github.com/ralphloop/ralph_loop/drivers"
	"github.com/ralphloop/ralph_loop/internal/agentcall"
	"github.com/ralphloop/ralph_loop/internal/config"
	"github.com/ralphloop/ralph_loop/internal/events"
	"github.com/ralphloop/ralph_loop/internal/observe"
	"github.com/ralphloop/ralph_loop/internal/ralphdir"
	"github.com/ralphloop/ralph_loop/internal/report"
	"github.com/ralphloop/ralph_loop/internal/store"
	"github.com/ralphloop/ralph_loop/internal/supervise"
)

// The totals the engine keeps are analysis.Result.Usage → usageOf →
// events.Usage.Add, call after call. Over the fixtures that report usage
// they must equal the hand-summed fields exactly (the cost included: Add
// keeps totals to the nano-dollar, so 0.42+0.1234+0.0021+0.01+0.02 is the
// float64 nearest 0.5755, the value strconv gives for "0.5755").
func TestUsageTotalsEqualFixtureSums(t *testing.T) {
	t.Parallel()
	tests := []struct {
		file, driver string
		want         events.Usage
	}{
		{"cli_object_with_usage.json", "claude-code", events.Usage{InputTokens: 45000, OutputTokens: 12000, CacheReadTokens: 30000, CacheCreationTokens: 5000, CostUSD: 0.42}},
		{"claude_stream.jsonl", "claude-code", events.Usage{InputTokens: 1200, OutputTokens: 340, CacheReadTokens: 9000, CacheCreationTokens: 150, CostUSD: 0.1234}},
		{"claude_result_error.json", "claude-code", events.Usage{InputTokens: 10, CostUSD: 0.0021}},
		// Codex reports cached_input_tokens as a part of input_tokens (24763)
		// and no cost; input_tokens here is the uncached rest, so that the
		// four counts never overlap (as Claude's do not).
		{"codex_real.jsonl", "codex", events.Usage{InputTokens: 24763 - 24448, OutputTokens: 122, CacheReadTokens: 24448}},
		// OpenCode: two step_finish events; reasoning tokens count as output.
		{"opencode_real.jsonl", "opencode", events.Usage{InputTokens: 300, OutputTokens: 65, CacheReadTokens: 110, CacheCreationTokens: 10, CostUSD: 0.03}},
	}
	var total events.Usage
	for _, tt := range tests {
		res, err := analyzeLog(filepath.Join("testdata", "usage", tt.file), analysis.Options{Formats: drivers.Formats(tt.driver)})
		if err != nil {
			t.Fatal(err)
		}
		u := usageOf(res.Usage)
		if u == nil {
			t.Fatalf("%s: no usage extracted", tt.file)
		}
		if diff := cmp.Diff(tt.want, *u); diff != "" {
			t.Errorf("%s: usage (-want +got):\n%s", tt.file, diff)
		}
		total = total.Add(*u)
	}
	want := events.Usage{InputTokens: 71273 - 24448, OutputTokens: 12527, CacheReadTokens: 63558, CacheCreationTokens: 5160, CostUSD: 0.5755}
	if total != want {
		t.Errorf("totals = %+v, want %+v", total, want)
	}
	if got := total.Tokens(); got != 71273-24448+12527+63558+5160 {
		t.Errorf("Tokens() = %d", got)
	}
	// The JSON a person reads says 0.5755, not 0.5755000000000001.
	b, _ := json.Marshal(total)
	if !strings.Contains(string(b), `"cost_usd":0.5755}`) {
		t.Errorf("totals JSON %s", b)
	}
}

// A usage-free output adds nothing and keeps the metrics fields null.
func TestUsageAbsentIsNil(t *testing.T) {
	t.Parallel()
	if usageOf(nil) != nil {
		t.Fatal("usageOf(nil) != nil")
	}
}

// obsRun is an in-process run of the real engine with a fake agent: every
// call prints reply(n), appends a line to src/app.txt (a git change, so the
// breaker sees progress) and exits 0.
type obsRun struct {
	t      *testing.T
	proj   string
	dir    *ralphdir.Dir
	repo   *MemRepo // the project's repository, in memory
	stream bytes.Buffer
	mu     sync.Mutex
	calls  int
	res    Result
	reply  func(n int) string
	clock  time.Time
	settle func(*config.Config)
}

func claudeReply(n int, cost float64, in, out, cacheR, cacheW int) string {
	text := fmt.Sprintf("Worked on call %d.\n---RALPH_STATUS---\nSTATUS: IN_PROGRESS\nTASKS_COMPLETED_THIS_LOOP: 0\nFILES_MODIFIED: 1\nTESTS_STATUS: PASSING\nWORK_TYPE: IMPLEMENTATION\nEXIT_SIGNAL: false\nRECOMMENDATION: next\n---END_RALPH_STATUS---", n)
	b, _ := json.Marshal(map[string]any{
		"type": "result", "subtype": "success", "is_error": false, "result": text,
		"session_id": fmt.Sprintf("sess-%d", n), "total_cost_usd": cost, "duration_ms": 1000, "num_turns": 2,
		"usage": map[string]int{"input_tokens": in, "output_tokens": out, "cache_read_input_tokens": cacheR, "cache_creation_input_tokens": cacheW},
	})
	return string(b) + "\n"
}

func newObsRun(t *testing.T) *obsRun {
	t.Helper()
	proj := t.TempDir()
	write := func(name, data string) {
		p := filepath.Join(proj, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(".ralph/PROMPT.md", "Do the next task.\n")
	write(".ralph/@fix_plan.md", "# Fix Plan\n- [ ] Task A\n- [ ] Task B\n")
	write("src/app.txt", "hello\n")
	d := ralphdir.New(filepath.Join(proj, ".ralph"), func(msg string) { t.Logf("ralphdir: %s", msg) })
	if err := d.EnsureLayout(); err != nil {
		t.Fatal(err)
	}
	return &obsRun{t: t, proj: proj, dir: d, repo: NewMemRepo(proj), clock: time.Date(2030, 5, 6, 7, 8, 0, 0, time.UTC)}
}

func (r *obsRun) now() time.Time {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.clock = r.clock.Add(time.Second)
	return r.clock
}

func (r *obsRun) agent(ctx context.Context, c supervise.Command, o supervise.Options) supervise.Outcome {
	r.mu.Lock()
	r.calls++
	n := r.calls
	r.mu.Unlock()
	f, err := os.OpenFile(filepath.Join(r.proj, "src/app.txt"), os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return supervise.Outcome{ExitCode: 1, Reason: supervise.StartFailed, Err: err}
	}
	fmt.Fprintf(f, "call %d\n", n)
	f.Close()
	io.WriteString(o.Stdout, r.reply(n))
	return supervise.Outcome{ExitCode: 0, Reason: supervise.Exited, Duration: 1500 * time.Millisecond}
}

func (r *obsRun) run() {
	t := r.t
	// The configuration as the CLI resolves it, with no loop delay and a
	// 20-call cap.
	env := map[string]string{"LOOP_DELAY": "0", "MAX_LOOPS": "20", "CLAUDE_TIMEOUT_MINUTES": "15"}
	c, _, err := config.Load(nil, true, func(k string) (string, bool) { v, ok := env[k]; return v, ok }, r.proj, os.ReadFile)
	if err != nil {
		t.Fatalf("config.Load: %v", err)
	}
	s := *c
	if r.settle != nil {
		r.settle(&s)
	}
	bus := observe.New(r.now, "run-1")
	onErr := func(err error) { t.Errorf("sink: %v", err) }
	bus.Add(store.Sinks(r.dir, &r.stream, onErr)...)
	st := store.New(r.dir, nil, func(err error) { bus.Warned(time.Time{}, events.Warn, err) }, false)
	r.res = Run(s, Deps{
		Bus: bus, Keeper: st, Dir: r.dir, Project: projectOf(s, r.dir), Repo: r.repo, State: st, Logs: st, Now: r.now, Agent: agentcall.Agent{Start: r.agent, Logs: st},
		LookPath: func(string) (string, error) { return "/bin/true", nil },
		Stopper:  NewStopper(context.Background(), false, r.now), Version: "test",
	})
}

// projectOf is the reader of the project files under dir with settings s.
func projectOf(s config.Config, dir *ralphdir.Dir) ralphdir.Project {
	return ralphdir.Project{Dir: dir, ProjectDir: s.ProjectDir, PromptFile: s.PromptFile, PromptFromRepo: s.PromptFromRepo}
}

func (r *obsRun) status() store.StatusFile {
	r.t.Helper()
	var st store.StatusFile
	data, found, err := r.dir.ReadFile(ralphdir.Status)
	if err != nil || !found {
		r.t.Fatalf("status.json: found=%v err=%v", found, err)
	}
	if err := json.Unmarshal(data, &st); err != nil {
		r.t.Fatalf("status.json: %v\n%s", err, data)
	}
	return st
}

func (r *obsRun) lastEvent() events.Event {
	r.t.Helper()
	lines := strings.Split(strings.TrimSpace(r.stream.String()), "\n")
	var e events.Event
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &e); err != nil {
		r.t.Fatal(err)
	}
	return e
}

// The budgets stop the loop before the call that would start at or past
// them: after the call that reached them, never one call later, with exit
// code 5 and the reason in status.json and in run_finished.
func TestBudgetStopsBeforeNextCall(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		maxCost   float64
		maxTokens int64
		cost      float64
		calls     int
		reason    string
	}{
		// 0.1 summed eight times is 0.7999999999999999 in float64: the
		// budget must still count as reached after the eighth call.
		{"cost reached exactly after 8 calls", 0.8, 0, 0.1, 8, "max_cost"},
		{"cost passed during call 3", 0.25, 0, 0.1, 3, "max_cost"},
		{"cost per call larger than the budget", 0.05, 0, 0.1, 1, "max_cost"},
		// 1540 tokens a call: 3080 after two.
		{"tokens reached exactly after 2 calls", 0, 3080, 0.1, 2, "max_tokens"},
		{"tokens passed during call 2", 0, 2000, 0.1, 2, "max_tokens"},
		{"tokens one short after 2 calls", 0, 3081, 0.1, 3, "max_tokens"},
		{"no budget: max loops", 0, 0, 0.1, 4, "max_loops"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := newObsRun(t)
			r.reply = func(n int) string { return claudeReply(n, tt.cost, 1000, 200, 300, 40) }
			r.settle = func(s *config.Config) {
				s.MaxCostUSD, s.MaxTokens = tt.maxCost, tt.maxTokens
				if tt.reason == "max_loops" {
					s.MaxLoops = 4
				}
			}
			r.run()
			wantCode := ExitBudget
			if tt.reason == "max_loops" {
				wantCode = ExitMaxLoops
			}
			if r.calls != tt.calls || r.res.Code != wantCode || r.res.Reason != tt.reason {
				t.Fatalf("calls=%d code=%d reason=%q, want %d, %d, %q (%s)", r.calls, r.res.Code, r.res.Reason, tt.calls, wantCode, tt.reason, r.res.Stop.Sentence())
			}
			st := r.status()
			if st.ExitReason != tt.reason || st.Status != "stopped" || st.LoopCount != tt.calls {
				t.Errorf("status.json exit_reason=%q status=%q loop_count=%d", st.ExitReason, st.Status, st.LoopCount)
			}
			if want := events.RoundCost(float64(tt.calls) * tt.cost); st.CostUSD != want {
				t.Errorf("cost_usd_total = %v, want %v", st.CostUSD, want)
			}
			if st.InputTokens != int64(1000*tt.calls) || st.CacheCreateTokens != int64(40*tt.calls) {
				t.Errorf("token totals %+v", st)
			}
			e := r.lastEvent()
			if e.Type != events.RunFinished || e.Reason != tt.reason || e.ExitCode == nil || *e.ExitCode != wantCode || e.Status != "stopped" {
				t.Errorf("last event %s reason=%q exit_code=%v status=%q", e.Type, e.Reason, e.ExitCode, e.Status)
			}
			checkBudgetStop(t, r.res.Stop, e, tt.reason, tt.maxCost, tt.maxTokens)
		})
	}
}

// checkBudgetStop: the stop travels as values, and its one sentence is
// run_finished's message.
func checkBudgetStop(t *testing.T, s events.Stop, finished events.Event, reason string, maxCost float64, maxTokens int64) {
	t.Helper()
	kinds := map[string]events.StopKind{"max_cost": events.StopMaxCost, "max_tokens": events.StopMaxTokens, "max_loops": events.StopMaxLoops}
	if s.Kind != kinds[reason] || s.Budget != maxCost || s.TokenLimit != maxTokens {
		t.Errorf("stop %+v, want kind %d with budget %v and token limit %d", s, kinds[reason], maxCost, maxTokens)
	}
	if msg := s.Sentence(); msg == "" || finished.Message != msg {
		t.Errorf("run_finished message %q, want %q", finished.Message, msg)
	}
}

// A run's outcome is rebuilt from its events alone: the loops and their
// outcomes, the exit reason and code, and totals equal to the sum of the
// metrics lines and to status.json.
func TestReportRebuildsRunFromEvents(t *testing.T) {
	t.Parallel()
	r := newObsRun(t)
	costs := []float64{0.0123, 0.25, 0.0007}
	r.reply = func(n int) string {
		if n == 2 {
			// No usage in this reply: metrics fields null, totals unchanged.
			return `{"type":"result","subtype":"success","is_error":false,"result":"Call 2, no usage reported.\n---RALPH_STATUS---\nSTATUS: IN_PROGRESS\nEXIT_SIGNAL: false\n---END_RALPH_STATUS---","session_id":"sess-2"}` + "\n"
		}
		return claudeReply(n, costs[(n-1)%3], 100*n, 10*n, 1000, 5)
	}
	r.settle = func(s *config.Config) { s.MaxLoops = 3 }
	r.run()
	if r.res.Code != ExitMaxLoops {
		t.Fatalf("exit %d (%s), want %d", r.res.Code, r.res.Stop.Sentence(), ExitMaxLoops)
	}

	want := events.Usage{InputTokens: 100 + 300, OutputTokens: 10 + 30, CacheReadTokens: 2000, CacheCreationTokens: 10, CostUSD: 0.013}
	checkReport(t, r, want)
	// status.json says the same; the metrics lines sum to the same totals.
	st := r.status()
	if st.InputTokens != want.InputTokens || st.OutputTokens != want.OutputTokens || st.CacheReadTokens != want.CacheReadTokens ||
		st.CacheCreateTokens != want.CacheCreationTokens || st.CostUSD != want.CostUSD {
		t.Errorf("status.json totals %+v, want %+v", st, want)
	}
	checkMetricsSum(t, r, want)
	checkEventLines(t, r)
}

// checkReport rebuilds the run from logs/events.jsonl: three successful
// loops, the second without usage, and the totals want.
func checkReport(t *testing.T, r *obsRun, want events.Usage) {
	t.Helper()
	f, err := os.Open(r.dir.Path(ralphdir.EventsLog))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	runs, err := report.Read(f)
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 1 {
		t.Fatalf("%d runs", len(runs))
	}
	s := runs[0]
	if !s.Finished || s.ExitReason != "max_loops" || s.ExitCode == nil || *s.ExitCode != ExitMaxLoops || s.Status != "stopped" {
		t.Errorf("summary finished=%v reason=%q code=%v status=%q", s.Finished, s.ExitReason, s.ExitCode, s.Status)
	}
	if s.Totals != want {
		t.Errorf("report totals %+v, want %+v", s.Totals, want)
	}
	if s.Driver != "claude-code" || s.RunID != "run-1" || s.Invalid != 0 {
		t.Errorf("driver=%q run_id=%q invalid=%d", s.Driver, s.RunID, s.Invalid)
	}
	var outcomes []string
	for i, l := range s.Loops {
		outcomes = append(outcomes, l.Outcome)
		if l.Loop != i+1 || l.Seconds != 1.5 {
			t.Errorf("loop %d: %+v", i+1, l)
		}
		if (l.Usage == nil) != (i == 1) {
			t.Errorf("loop %d usage %v", i+1, l.Usage)
		}
	}
	if diff := cmp.Diff([]string{"success", "success", "success"}, outcomes); diff != "" {
		t.Errorf("outcomes (-want +got):\n%s", diff)
	}
}

// checkMetricsSum sums logs/metrics.jsonl: want, and one line of nulls.
func checkMetricsSum(t *testing.T, r *obsRun, want events.Usage) {
	t.Helper()
	data, _, _ := r.dir.ReadFile(ralphdir.MetricsLog)
	var sum events.Usage
	var nulls int
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var m struct {
			In, Out, CR, CW *int64
			Cost            *float64
		}
		var raw map[string]json.RawMessage
		if err := json.Unmarshal([]byte(line), &raw); err != nil {
			t.Fatalf("metrics line %q: %v", line, err)
		}
		json.Unmarshal(raw["input_tokens"], &m.In)
		json.Unmarshal(raw["output_tokens"], &m.Out)
		json.Unmarshal(raw["cache_read_tokens"], &m.CR)
		json.Unmarshal(raw["cache_creation_tokens"], &m.CW)
		json.Unmarshal(raw["total_cost_usd"], &m.Cost)
		if m.In == nil {
			nulls++
			if string(raw["total_cost_usd"]) != "null" || string(raw["cache_read_tokens"]) != "null" {
				t.Errorf("usage-free metrics line without nulls: %s", line)
			}
			continue
		}
		sum = sum.Add(events.Usage{InputTokens: *m.In, OutputTokens: *m.Out, CacheReadTokens: *m.CR, CacheCreationTokens: *m.CW, CostUSD: *m.Cost})
	}
	if sum != want || nulls != 1 {
		t.Errorf("metrics sum %+v (null lines %d), want %+v", sum, nulls, want)
	}
}

// checkEventLines: every event line is one JSON object with the common
// fields, the types are those of three loops, and the --events copy is
// the file's content.
func checkEventLines(t *testing.T, r *obsRun) {
	t.Helper()
	types := map[events.Type]int{}
	for _, line := range strings.Split(strings.TrimSpace(r.stream.String()), "\n") {
		var e map[string]any
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			t.Fatalf("event line %q: %v", line, err)
		}
		for _, k := range []string{"v", "ts", "type", "run_id", "loop", "totals"} {
			if _, ok := e[k]; !ok {
				t.Errorf("event line without %q: %s", k, line)
			}
		}
		types[events.Type(e["type"].(string))]++
	}
	wantTypes := map[events.Type]int{events.RunStarted: 1, events.IterationStarted: 3, events.IterationCompleted: 3, events.RunFinished: 1}
	if diff := cmp.Diff(wantTypes, types); diff != "" {
		t.Errorf("event types (-want +got):\n%s", diff)
	}
	// The stream and the file hold the same lines.
	logged, _, _ := r.dir.ReadFile(ralphdir.EventsLog)
	if string(logged) != r.stream.String() {
		t.Errorf("--events stream and logs/events.jsonl differ")
	}
}

// analyzeLog analyses a saved output as ralph_loop --analyze does.
func analyzeLog(path string, opts analysis.Options) (analysis.Result, error) {
	f, err := os.Open(path)
	if err != nil {
		return analysis.Result{}, err
	}
	defer f.Close()
	opts.OutputFile = path
	return analysis.Analyze(f, opts)
}
