package ralphdir

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

type breakerShape struct {
	State string `json:"state"`
	N     int    `json:"consecutive_no_progress"`
}

func newDir(t *testing.T) (*Dir, *[]string) {
	t.Helper()
	var warnings []string
	d := New(filepath.Join(t.TempDir(), ".ralph"), func(m string) { warnings = append(warnings, m) })
	d.now = func() time.Time { return time.Date(2026, 11, 22, 3, 4, 5, 0, time.UTC) }
	if err := d.EnsureLayout(); err != nil {
		t.Fatal(err)
	}
	return d, &warnings
}

func TestWriteJSONRoundTripAndFormat(t *testing.T) {
	d, _ := newDir(t)
	if err := d.WriteJSON(CircuitBreakerState, breakerShape{"OPEN", 3}); err != nil {
		t.Fatal(err)
	}
	raw, _ := os.ReadFile(d.Path(CircuitBreakerState))
	want := "{\n  \"state\": \"OPEN\",\n  \"consecutive_no_progress\": 3\n}\n"
	if string(raw) != want {
		t.Fatalf("file = %q, want %q", raw, want)
	}
	var got breakerShape
	found, err := d.ReadJSON(CircuitBreakerState, &got)
	if err != nil || !found || got.State != "OPEN" || got.N != 3 {
		t.Fatalf("ReadJSON = %+v found=%v err=%v", got, found, err)
	}
	// No temp files are left behind.
	entries, _ := os.ReadDir(d.Root())
	for _, e := range entries {
		if strings.Contains(e.Name(), ".tmp-") {
			t.Errorf("leftover temp file %s", e.Name())
		}
	}
}

func TestReadJSONMissingIsDefault(t *testing.T) {
	d, warnings := newDir(t)
	v := breakerShape{State: "CLOSED"}
	found, err := d.ReadJSON(Status, &v)
	if err != nil || found || v.State != "CLOSED" || len(*warnings) != 0 {
		t.Fatalf("found=%v err=%v v=%+v warnings=%v", found, err, v, *warnings)
	}
}

func TestCorruptFilesAreQuarantined(t *testing.T) {
	for name, content := range map[string]string{
		"empty":     "",
		"blank":     "  \n",
		"garbage":   "\x00\x01not json",
		"truncated": `{"state": "OP`,
		"wrongtype": `{"state": 5}`,
	} {
		t.Run(name, func(t *testing.T) {
			d, warnings := newDir(t)
			os.WriteFile(d.Path(CircuitBreakerState), []byte(content), 0o644)
			var v breakerShape
			found, err := d.ReadJSON(CircuitBreakerState, &v)
			if err != nil || found {
				t.Fatalf("found=%v err=%v", found, err)
			}
			if d.Exists(CircuitBreakerState) {
				t.Fatal("corrupt file still in place")
			}
			moved := d.Path(CircuitBreakerState) + ".corrupt-20261122-030405"
			got, err := os.ReadFile(moved)
			if err != nil || string(got) != content {
				t.Fatalf("quarantined copy %q err=%v", got, err)
			}
			if len(*warnings) != 1 || !strings.Contains((*warnings)[0], "corrupt") || !strings.Contains((*warnings)[0], ".corrupt-20261122-030405") {
				t.Fatalf("warnings = %q", *warnings)
			}
		})
	}
}

func TestQuarantineNeverOverwritesEarlierCopy(t *testing.T) {
	d, _ := newDir(t)
	for i := 0; i < 3; i++ {
		os.WriteFile(d.Path(".exit_signals"), []byte("bad"+string(rune('a'+i))), 0o644)
		var v map[string]any
		d.ReadJSON(".exit_signals", &v)
	}
	matches, _ := filepath.Glob(d.Path(".exit_signals") + ".corrupt-*")
	if len(matches) != 3 {
		t.Fatalf("quarantined copies = %v, want 3", matches)
	}
}

func TestAppendLineConcurrentWholeLines(t *testing.T) {
	d, _ := newDir(t)
	var wg sync.WaitGroup
	line := strings.Repeat("x", 3000)
	for i := 0; i < 20; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := d.AppendLine(MetricsLog, line); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	raw, _ := os.ReadFile(d.Path(MetricsLog))
	lines := strings.Split(strings.TrimSuffix(string(raw), "\n"), "\n")
	if len(lines) != 20 {
		t.Fatalf("got %d lines", len(lines))
	}
	for _, l := range lines {
		if l != line {
			t.Fatal("interleaved line")
		}
	}
}

func TestLockRefusesSecondHolder(t *testing.T) {
	d, _ := newDir(t)
	l1, err := d.Lock()
	if err != nil {
		t.Fatal(err)
	}
	_, err = New(d.Root(), nil).Lock()
	var le *LockedError
	if !errors.As(err, &le) {
		t.Fatalf("second lock err = %v, want *LockedError", err)
	}
	if le.PID != os.Getpid() || !strings.Contains(err.Error(), LockFile) {
		t.Fatalf("message %q pid %d", err, le.PID)
	}
	if err := l1.Unlock(); err != nil {
		t.Fatal(err)
	}
	l2, err := New(d.Root(), nil).Lock()
	if err != nil {
		t.Fatalf("lock after unlock: %v", err)
	}
	l2.Unlock()
}

func TestWriteFileSkipsIdenticalContent(t *testing.T) {
	d, _ := newDir(t)
	if err := d.WriteFile(".last_reset", []byte("2026112203\n")); err != nil {
		t.Fatal(err)
	}
	st1, _ := os.Stat(d.Path(".last_reset"))
	// Same content: the file (its inode) is left alone.
	if err := d.WriteFile(".last_reset", []byte("2026112203\n")); err != nil {
		t.Fatal(err)
	}
	st2, _ := os.Stat(d.Path(".last_reset"))
	if !os.SameFile(st1, st2) {
		t.Error("identical content was rewritten")
	}
	if err := d.WriteFile(".last_reset", []byte("2026112204\n")); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(d.Path(".last_reset")); string(b) != "2026112204\n" {
		t.Errorf("content = %q", b)
	}
}

// WriteFile reads the file only for bytes it last wrote there; whatever
// another program writes in between, the file ends up holding what was
// written last.
func TestWriteFileAfterAnotherWriter(t *testing.T) {
	d, _ := newDir(t)
	p := d.Path(".call_count")
	write := func(s string) {
		t.Helper()
		if err := d.WriteFile(".call_count", []byte(s)); err != nil {
			t.Fatal(err)
		}
	}
	holds := func(want string) {
		t.Helper()
		if b, _ := os.ReadFile(p); string(b) != want {
			t.Errorf("file holds %q, want %q", b, want)
		}
	}
	write("1\n")
	os.WriteFile(p, []byte("7\n"), 0o644) // another program
	write("1\n")                          // the bytes last written: compared, and put back
	holds("1\n")
	os.WriteFile(p, []byte("2\n"), 0o644) // another program wrote the next bytes already
	st1, _ := os.Stat(p)
	write("2\n") // new bytes: written without a look, the same bytes again
	holds("2\n")
	st2, _ := os.Stat(p)
	if os.SameFile(st1, st2) {
		t.Error("new bytes were not written")
	}
	os.Remove(p)
	write("2\n") // the bytes last written, the file gone: written again
	holds("2\n")
	write("2\n")
	st3, _ := os.Stat(p)
	write("2\n")
	if st4, _ := os.Stat(p); !os.SameFile(st3, st4) {
		t.Error("identical content was rewritten")
	}
}

func TestCleanTempRemovesLeftovers(t *testing.T) {
	d, _ := newDir(t)
	for _, name := range []string{".status.json.tmp-123", ".ralph_session.tmp-9", "logs/.x.tmp-1"} {
		os.WriteFile(d.Path(name), []byte("half"), 0o644)
	}
	os.WriteFile(d.Path(Status), []byte("{}"), 0o644)
	if n := d.CleanTemp(); n != 3 {
		t.Errorf("removed %d, want 3", n)
	}
	if !d.Exists(Status) {
		t.Error("removed a real state file")
	}
}
