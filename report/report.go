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
	"time"

	"github.com/ralphloop/ralph_loop/events"
)

// Loop is one agent call of the run.
type Loop struct {
	Loop     int           `json:"loop"`
	Outcome  string        `json:"outcome"`
	Duration time.Duration `json:"-"`
	Seconds  float64       `json:"seconds"`
	Usage    *events.Usage `json:"usage,omitempty"`
}

// Change is one breaker transition.
type Change struct {
	At     time.Time `json:"at"`
	Loop   int       `json:"loop"`
	From   string    `json:"from"`
	To     string    `json:"to"`
	Reason string    `json:"reason"`
}

// Summary is one run.
type Summary struct {
	RunID      string         `json:"run_id"`
	Driver     string         `json:"driver,omitempty"`
	Started    time.Time      `json:"started"`
	Ended      time.Time      `json:"ended,omitempty"`
	Finished   bool           `json:"finished"`
	ExitReason string         `json:"exit_reason,omitempty"`
	ExitCode   *int           `json:"exit_code,omitempty"`
	Status     string         `json:"status,omitempty"`
	Loops      []Loop         `json:"loops"`
	Outcomes   map[string]int `json:"outcomes"`
	Totals     events.Usage   `json:"totals"`
	Breaker    []Change       `json:"breaker_changes"`
	Waits      map[string]int `json:"waits"`
	Invalid    int            `json:"invalid_lines"`

	started bool              // a run_started event was seen
	starts  map[int]time.Time // iteration_started times by loop
}

// Read parses an event log and returns its runs in order. Lines that are
// not valid JSON events are counted (Invalid of the run they fall in, or of
// the next run for lines before the first event) and skipped; a last line
// without its newline is an append still under way and is left out
// silently. A line longer than MaxLine is skipped as invalid without being
// held in memory, so a damaged log cannot exhaust it. A run_started event for a run id
// already seen with one starts a new run (two runs started within the same
// second share their id).
func Read(r io.Reader) ([]*Summary, error) {
	br := bufio.NewReaderSize(r, 64<<10)
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
				if s == nil || e.Type == events.RunStarted && s.started {
					s = &Summary{RunID: e.RunID, Started: e.TS, Loops: []Loop{}, Outcomes: map[string]int{},
						Breaker: []Change{}, Waits: map[string]int{}, starts: map[int]time.Time{}}
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
	case events.IterationStarted:
		starts[e.Loop] = e.TS
	case events.IterationCompleted, events.IterationFailed, events.IterationTimedOut, events.IterationIdle, events.IterationDenied:
		l := Loop{Loop: e.Loop, Outcome: string(e.Type)}
		if it := e.Iteration; it != nil {
			l.Outcome = it.Outcome
			l.Usage = it.Usage
			l.Duration = time.Duration(it.WallMS) * time.Millisecond
		} else if t, ok := starts[e.Loop]; ok {
			l.Duration = e.TS.Sub(t)
		}
		l.Seconds = l.Duration.Seconds()
		s.Loops = append(s.Loops, l)
		s.Outcomes[l.Outcome]++
	case events.BreakerChanged:
		s.Breaker = append(s.Breaker, Change{At: e.TS, Loop: e.Loop, From: e.From, To: e.To, Reason: e.Reason})
	case events.DelayStarted:
		s.Waits[e.Wait]++
	case events.RunFinished:
		s.Finished, s.ExitReason, s.ExitCode, s.Status = true, e.Reason, e.ExitCode, e.Status
	}
}

// Last returns the most recent run, or nil.
func Last(runs []*Summary) *Summary {
	if len(runs) == 0 {
		return nil
	}
	return runs[len(runs)-1]
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
	} else {
		fmt.Fprintf(w, "  last event %s: still running, or ended without a run_finished event (killed)\n", s.Ended.Local().Format(events.LocalStamp))
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
	fmt.Fprintf(w, "\n  tokens: input %d, output %d, cache read %d, cache write %d; cost $%.4f\n",
		t.InputTokens, t.OutputTokens, t.CacheReadTokens, t.CacheCreationTokens, t.CostUSD)
	if len(s.Breaker) > 0 {
		fmt.Fprintln(w, "\n  circuit breaker:")
		for _, c := range s.Breaker {
			fmt.Fprintf(w, "    loop %d: %s -> %s (%s)\n", c.Loop, c.From, c.To, c.Reason)
		}
	}
	if s.Invalid > 0 {
		fmt.Fprintf(w, "\n  (%d unreadable event lines skipped)\n", s.Invalid)
	}
}

// WriteJSON renders s as indented JSON.
func WriteJSON(w io.Writer, s *Summary) error {
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
