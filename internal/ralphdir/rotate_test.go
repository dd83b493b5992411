package ralphdir

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

func TestAppendLineRotates(t *testing.T) {
	d := New(t.TempDir(), nil)
	d.SetRotation(100)
	line := strings.Repeat("x", 29) // 30 bytes with the newline
	for i := 0; i < 40; i++ {
		if err := d.AppendLine(EventsLog, line); err != nil {
			t.Fatal(err)
		}
	}
	// 40 lines of 30 bytes, 3 a file: NAME holds 1, NAME.1 … NAME.5 hold 3
	// each, the older ones are gone.
	for i, want := range []int64{30, 90, 90, 90, 90, 90} {
		name := EventsLog
		if i > 0 {
			name += "." + string(rune('0'+i))
		}
		st, err := os.Stat(d.Path(name))
		if err != nil {
			t.Fatal(err)
		}
		if st.Size() != want {
			t.Errorf("%s: %d bytes, want %d", name, st.Size(), want)
		}
	}
	if d.Exists(EventsLog + ".6") {
		t.Error("a sixth rotated copy is kept")
	}
	// A log not in the list is never rotated.
	for i := 0; i < 10; i++ {
		d.AppendLine("logs/other.log", line)
	}
	if d.Exists("logs/other.log.1") {
		t.Error("logs/other.log rotated")
	}
}

func TestAppendLineNoRotationByDefault(t *testing.T) {
	d := New(t.TempDir(), nil)
	for i := 0; i < 100; i++ {
		d.AppendLine(RalphLog, strings.Repeat("y", 99))
	}
	if d.Exists(RalphLog + ".1") {
		t.Error("rotated without SetRotation")
	}
}

func TestPruneCallLogs(t *testing.T) {
	d := New(t.TempDir(), nil)
	os.MkdirAll(d.Path(LogsDir), 0o755)
	stamps := []string{
		"2026-01-01_10-00-00-000_loop1", "2026-01-01_10-00-00-000_loop2",
		"2026-01-01_10-00-00-000_loop10", "2026-01-01_10-00-01-000_loop11",
		"2026-01-01_10-00-01-000_loop11-2",
	}
	for _, s := range stamps {
		for _, n := range []string{"claude_output_" + s + ".log", "claude_stderr_" + s + ".log", "claude_output_" + s + "_stream.log"} {
			os.WriteFile(filepath.Join(d.Path(LogsDir), n), []byte("12345"), 0o644)
		}
	}
	os.WriteFile(d.Path("logs/review_loop1.log"), []byte("r"), 0o644)
	freed, err := d.PruneCallLogs(3, "2026-01-01_10-00-02-000_loop12")
	if err != nil {
		t.Fatal(err)
	}
	if freed.Files != 9 || freed.Bytes != 45 {
		t.Errorf("freed %+v, want 9 files, 45 bytes", freed)
	}
	for i, s := range stamps {
		kept := d.Exists("logs/claude_stderr_" + s + ".log")
		if kept != (i >= 3) {
			t.Errorf("%s kept=%v", s, kept)
		}
	}
	if !d.Exists("logs/review_loop1.log") {
		t.Error("a log that is not a call's was removed")
	}
	// The current call is never removed, even when it sorts first.
	if _, err := d.PruneCallLogs(1, stamps[3]); err != nil {
		t.Fatal(err)
	}
	if !d.Exists("logs/claude_output_"+stamps[3]+".log") || d.Exists("logs/claude_output_"+stamps[4]+".log") {
		t.Error("the current call's logs were removed, or an older one kept")
	}
}

func TestWithRotated(t *testing.T) {
	want := []string{"e.5", "e.4", "e.3", "e.2", "e.1", "e"}
	if got := WithRotated("e"); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("WithRotated = %v, want %v", got, want)
	}
}

// A piece is cut after its last newline that fits; a line longer than the
// limit is cut at the limit in an empty file, and goes to a new file when
// the current one holds anything.
func TestRotatingCutsPieces(t *testing.T) {
	d := New(t.TempDir(), nil)
	os.MkdirAll(d.Path(LogsDir), 0o755)
	d.SetRotation(10)
	f, err := d.Create(LiveLog)
	if err != nil {
		t.Fatal(err)
	}
	r := d.newRotating(LiveLog, f, 0)
	for _, p := range []string{"ab\ncd\nefghi", "ij\n", "0123456789012"} {
		if n, err := r.Write([]byte(p)); n != len(p) || err != nil {
			t.Fatalf("Write(%q) = %d, %v", p, n, err)
		}
	}
	r.Close()
	want := map[string]string{LiveLog + ".3": "ab\ncd\n", LiveLog + ".2": "efghiij\n", LiveLog + ".1": "0123456789", LiveLog: "012"}
	for name, w := range want {
		if b, _ := os.ReadFile(d.Path(name)); string(b) != w {
			t.Errorf("%s = %q, want %q", name, b, w)
		}
	}
}

// plantFolders puts a folder with a file in it at name.1 … name.5.
func plantFolders(d *Dir, name string) {
	for i := 1; i <= rotateKeep; i++ {
		p := d.Path(name + "." + strconv.Itoa(i))
		os.RemoveAll(p)
		os.MkdirAll(filepath.Join(p, "x"), 0o755)
	}
}

// size is the size of name, -1 when it cannot be read.
func size(d *Dir, name string) int64 {
	st, err := os.Stat(d.Path(name))
	if err != nil {
		return -1
	}
	return st.Size()
}

// Folders planted at rotated names never stop a log: a copy that cannot
// move up is dropped, and when NAME itself cannot be rotated, the line
// goes to NAME, past the limit, and the reason comes once (AppendLine's
// error, or a warning for live.log).
func TestRotationPastPlantedFolders(t *testing.T) {
	var warnings []string
	d := New(t.TempDir(), func(m string) { warnings = append(warnings, m) })
	d.SetRotation(100)
	os.MkdirAll(d.Path(LogsDir), 0o755)
	os.MkdirAll(d.Path(EventsLog+".3/x"), 0o755)
	os.MkdirAll(d.Path(EventsLog+".5/x"), 0o755)
	line := strings.Repeat("x", 59) // 60 bytes with the newline: one a file
	for i := 0; i < 8; i++ {
		if err := d.AppendLine(EventsLog, line); err != nil {
			t.Fatalf("line %d: %v", i, err)
		}
	}
	if n := size(d, EventsLog); n != 60 || len(warnings) != 0 {
		t.Errorf("events.jsonl holds %d bytes (want 60), warnings %q", n, warnings)
	}

	// None of .1 … .5 can move or go.
	plantFolders(d, EventsLog)
	var errs []string
	for i := 0; i < 3; i++ {
		if err := d.AppendLine(EventsLog, line); err != nil {
			errs = append(errs, err.Error())
		}
	}
	if len(errs) != 1 || !strings.Contains(errs[0], "cannot rotate") {
		t.Errorf("want one error saying so, got %q", errs)
	}
	if n := size(d, EventsLog); n != 4*60 || len(warnings) != 0 {
		t.Errorf("events.jsonl holds %d bytes (want the 4 lines that could not rotate), warnings %q", n, warnings)
	}

	plantFolders(d, LiveLog)
	f, err := d.Create(LiveLog)
	if err != nil {
		t.Fatal(err)
	}
	r := d.newRotating(LiveLog, f, 0)
	for i := 0; i < 3; i++ {
		if _, err := r.Write([]byte(line + "\n")); err != nil {
			t.Fatal(err)
		}
	}
	r.Close()
	if n := size(d, LiveLog); n != 3*60 || len(warnings) != 1 || !strings.Contains(warnings[0], "cannot rotate") {
		t.Errorf("live.log holds %d bytes (want all 3 lines), warnings %q (want one)", n, warnings)
	}
}

// The quality gates' log of a call goes with the call's other logs.
func TestPruneCallLogsGates(t *testing.T) {
	d := New(t.TempDir(), nil)
	os.MkdirAll(d.Path(LogsDir), 0o755)
	old, cur := "2026-01-01_10-00-00-000_loop1", "2026-01-01_10-00-01-000_loop2"
	for _, n := range []string{"claude_output_" + old + ".log", "quality_gates_" + old + ".log"} {
		os.WriteFile(filepath.Join(d.Path(LogsDir), n), []byte("x"), 0o644)
	}
	if _, err := d.PruneCallLogs(1, cur); err != nil {
		t.Fatal(err)
	}
	if d.Exists("logs/quality_gates_" + old + ".log") {
		t.Error("an old call's quality gates log was kept")
	}
}
