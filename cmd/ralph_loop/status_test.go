//go:build unix

package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/ralphloop/ralph_loop/internal/events"
	"github.com/ralphloop/ralph_loop/internal/ralphdir"
)

func init() {
	extraCmds["jsonout"] = cmdJSONOut
	extraCmds["dirsum"] = cmdDirsum
	extraCmds["waitgrep"] = cmdWaitgrep
}

// waitgrep FILE TEXT: wait until FILE contains TEXT (at most 20 s).
func cmdWaitgrep(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: waitgrep FILE TEXT")
	}
	p := ts.MkAbs(args[0])
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if b, err := os.ReadFile(p); err == nil && bytes.Contains(b, []byte(args[1])) {
			return
		}
	}
	ts.Fatalf("%s did not contain %q within 20s", args[0], args[1])
}

// jsonout PATH WANT: the last command's stdout is exactly one JSON object
// and its value at PATH (keys, or list indexes, joined by dots) prints as
// WANT.
func cmdJSONOut(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 {
		ts.Fatalf("usage: jsonout PATH WANT")
	}
	got, err := jsonPath([]byte(ts.ReadFile("stdout")), args[0])
	if err != nil {
		ts.Fatalf("%v", err)
	}
	if (got == args[1]) == neg {
		ts.Fatalf("stdout %s = %q, want %s%q", args[0], got, map[bool]string{true: "not ", false: ""}[neg], args[1])
	}
}

// jsonPath decodes data as one JSON object, nothing after it, and returns
// the value at path: "null" for null, "<missing>" for an absent key.
func jsonPath(data []byte, path string) (string, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return "", fmt.Errorf("stdout is not JSON: %v", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return "", fmt.Errorf("stdout holds more than one JSON value")
	}
	for _, k := range strings.Split(path, ".") {
		if a, ok := v.([]any); ok {
			// a number indexes a list
			i, err := strconv.Atoi(k)
			if err != nil || i < 0 || i >= len(a) {
				return "<missing>", nil
			}
			v = a[i]
			continue
		}
		m, ok := v.(map[string]any)
		if !ok {
			return "<missing>", nil
		}
		if v, ok = m[k]; !ok {
			return "<missing>", nil
		}
	}
	if v == nil {
		return "null", nil
	}
	return fmt.Sprint(v), nil
}

// dirsum DIR: one line per entry under DIR (path, mode, sha256 of the
// content), so that two runs can be compared with cmp.
func cmdDirsum(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: dirsum DIR")
	}
	root := ts.MkAbs(args[0])
	err := filepath.WalkDir(root, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := e.Info()
		if err != nil {
			return err
		}
		sum := ""
		if info.Mode().IsRegular() {
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			sum = fmt.Sprintf("%x", sha256.Sum256(b))
		}
		rel, _ := filepath.Rel(root, p)
		fmt.Fprintf(ts.Stdout(), "%s %v %s\n", rel, info.Mode(), sum)
		return nil
	})
	if err != nil {
		ts.Fatalf("dirsum: %v", err)
	}
}

func writeFiles(t *testing.T, root string, files map[string]string) *ralphdir.Dir {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(root, ".ralph", name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return ralphdir.New(filepath.Join(root, ".ralph"), func(string) {})
}

// A loop waiting for its rate limit says what for and until when; the
// last event is found in the tail of the event log.
func TestStatusWaiting(t *testing.T) {
	until := time.Date(2026, 1, 1, 14, 0, 0, 0, time.UTC)
	ev, _ := json.Marshal(events.Event{Type: events.RateLimited, TS: until.Add(-time.Hour), Wait: "rate_limit", Until: &until})
	d := writeFiles(t, t.TempDir(), map[string]string{
		ralphdir.EventsLog: "not json\n" + string(ev) + "\n",
		ralphdir.Status:    `{"loop_count":3,"status":"running","max_calls_per_hour":5,"input_tokens_total":10,"cost_usd_total":0.5}`,
		ralphdir.CallCount: "5\n",
		ralphdir.LastReset: "2026010113\n",
	})
	v := &statusView{Progress: &progressView{}, State: stateView{Running: true}, Status: json.RawMessage(`{}`)}
	if got := phase(v, statusFile{}, lastEvent(d), until); got != "waiting" || v.State.WaitingFor != "rate_limit" || !v.State.Until.Equal(until) {
		t.Fatalf("phase = %q, waiting for %q until %v", got, v.State.WaitingFor, v.State.Until)
	}
	now := time.Date(2026, 1, 1, 13, 30, 0, 0, time.Local)
	full := readStatus(d, 100, now)
	if full.Calls.ThisHour != 5 || full.Calls.Max != 5 || full.Totals.InputTokens != 10 || full.Progress.Loop != 3 {
		t.Fatalf("view = %+v calls %+v totals %+v", full, full.Calls, full.Totals)
	}
	if next := readStatus(d, 100, now.Add(time.Hour)); next.Calls.ThisHour != 0 {
		t.Fatalf("an earlier hour's count should read as 0, got %d", next.Calls.ThisHour)
	}
	var b bytes.Buffer
	v.State.Phase, v.Progress.Loop = "waiting", 3
	writeSummary(&b, v)
	if !strings.Contains(b.String(), "waiting for rate_limit until "+until.Local().Format("15:04:05")+", loop 3") {
		t.Fatalf("summary:\n%s", b.String())
	}
}

// Damaged or hostile files leave their part out; nothing is moved aside.
func TestStatusDamagedFiles(t *testing.T) {
	root := t.TempDir()
	d := writeFiles(t, root, map[string]string{
		ralphdir.Status:              "{broken",
		ralphdir.CircuitBreakerState: "[]",
		ralphdir.RalphSession:        "nope",
		ralphdir.CallCount:           "lots",
		ralphdir.ResponseAnalysis:    "{",
	})
	if err := os.Symlink("/etc/passwd", filepath.Join(root, ".ralph", ralphdir.FixPlan)); err != nil {
		t.Fatal(err)
	}
	v := readStatus(d, 7, time.Now())
	if v.Status != nil || v.Breaker != nil || v.Session != nil || v.Totals != nil || v.Calls.ThisHour != 0 || v.Calls.Max != 7 ||
		v.State.Phase != "stopped" || v.State.Reason != "no loop is running; status.json cannot be read" {
		t.Fatalf("view = %+v", v)
	}
	entries, _ := os.ReadDir(filepath.Join(root, ".ralph"))
	if len(entries) != 6 {
		t.Fatalf("--status changed .ralph/: %d entries", len(entries))
	}
}

// A status.json that says running with no loop holding the lock is a loop
// that was killed: stopped, and the summary says so.
func TestStatusKilledLoop(t *testing.T) {
	d := writeFiles(t, t.TempDir(), map[string]string{
		ralphdir.Status:   `{"loop_count":7,"status":"running","exit_reason":""}`,
		ralphdir.LockFile: "12345\n",
	})
	v := readStatus(d, 100, time.Now())
	if v.State.Phase != "stopped" || v.State.Running || v.State.Reason != "no loop is running; status.json last said running" {
		t.Fatalf("state = %+v", v.State)
	}
}
