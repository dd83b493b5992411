package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/ralphloop/ralph_loop/internal/config"
	"github.com/ralphloop/ralph_loop/internal/events"
	"github.com/ralphloop/ralph_loop/internal/ralphdir"
	"github.com/ralphloop/ralph_loop/internal/readmodel"
)

// The dashboard's timeline says each event in the words a notification
// and the console use (events.Event.Headline): a failed loop reads "Loop #2
// failed: ...", not "iteration failed: loop 2, error, error".
func TestTimelineSaysWhatTheConsoleSays(t *testing.T) {
	root := filepath.Join(t.TempDir(), ".ralph")
	if err := os.MkdirAll(filepath.Join(root, "logs"), 0o755); err != nil {
		t.Fatal(err)
	}
	lines := `{"v":1,"ts":"2030-01-02T03:04:05Z","type":"iteration_failed","run_id":"r","loop":2,"reason":"error (exit 2)","iteration":{"outcome":"error","driver":"claude-code","session_id":"","wall_ms":5,"files_changed":0,"reported_files_modified":0,"has_errors":false,"exit_signal":false,"has_permission_denials":false}}
{"v":1,"ts":"2030-01-02T03:04:06Z","type":"breaker_changed","run_id":"r","loop":2,"from":"CLOSED","to":"HALF_OPEN","reason":"no progress in 2 loops"}
`
	if err := os.WriteFile(filepath.Join(root, ralphdir.EventsLog), []byte(lines), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := &config.Config{MaxCallsPerHour: 100}
	b, err := json.Marshal(readmodel.FromFiles(projectFiles("p", ralphdir.New(root, nil), cfg)).Snapshot())
	if err != nil {
		t.Fatal(err)
	}
	var s struct {
		Events []struct {
			Text string `json:"text"`
		} `json:"events"`
	}
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
	want := []string{
		"Loop #2 failed: error (exit 2)",
		"Circuit breaker: " + events.BreakerMove("CLOSED", "HALF_OPEN", "no progress in 2 loops"),
	}
	if len(s.Events) != len(want) {
		t.Fatalf("timeline %+v, want %d lines", s.Events, len(want))
	}
	for i, w := range want {
		if s.Events[i].Text != w {
			t.Errorf("timeline line %d = %q, want %q", i, s.Events[i].Text, w)
		}
	}
}
