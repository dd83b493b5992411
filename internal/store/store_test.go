package store

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ralphloop/ralph_loop/internal/ralphdir"
)

// The live log is truncated in place when it is a plain file of its own,
// and replaced when another name shares it: the other name's content
// never changes.
func TestOpenLiveLog(t *testing.T) {
	d := newDir(t)
	s := New(d, nil, nil, false)
	p := d.Path(ralphdir.LiveLog)
	if err := os.WriteFile(p, []byte("old call\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := s.OpenLiveLog("header\n")
	if err != nil {
		t.Fatal(err)
	}
	io.WriteString(f, "stream\n")
	f.Close()
	if got := string(readFile(t, d, ralphdir.LiveLog)); got != "header\nstream\n" {
		t.Errorf("live.log = %q", got)
	}

	other := filepath.Join(t.TempDir(), "other.txt")
	if err := os.Link(p, other); err != nil {
		t.Skipf("hard link: %v", err)
	}
	f, err = s.OpenLiveLog("second\n")
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	if got := string(readFile(t, d, ralphdir.LiveLog)); got != "second\n" {
		t.Errorf("live.log = %q", got)
	}
	if b, _ := os.ReadFile(other); string(b) != "header\nstream\n" {
		t.Errorf("the other name's content changed: %q", b)
	}
}

// With LOG_MAX_MB set, live.log is rotated as the other logs are: no file
// passes the limit, lines stay whole, nothing is lost.
func TestLiveLogRotates(t *testing.T) {
	d := newDir(t)
	d.SetRotation(100)
	s := New(d, nil, nil, false)
	f, err := s.OpenLiveLog("=== Loop #1 ===\n")
	if err != nil {
		t.Fatal(err)
	}
	var all strings.Builder
	all.WriteString("=== Loop #1 ===\n")
	for i := range 30 {
		line := strings.Repeat(string(rune('a'+i%26)), 5+i) + "\n"
		all.WriteString(line)
		if _, err := io.WriteString(f, line); err != nil {
			t.Fatal(err)
		}
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	var got strings.Builder
	for _, name := range ralphdir.WithRotated(ralphdir.LiveLog) {
		b, err := os.ReadFile(d.Path(name))
		if os.IsNotExist(err) {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		if len(b) > 100 || len(b) == 0 || b[len(b)-1] != '\n' {
			t.Errorf("%s: %d bytes, want 1 to 100 ending in a newline: %q", name, len(b), b)
		}
		got.Write(b)
	}
	// Five copies and the current file hold the newest 600 bytes at most.
	if want := all.String(); !strings.HasSuffix(want, got.String()) || got.Len() < 400 {
		t.Errorf("live.log and its copies hold %d bytes, not the end of what was written (%d bytes):\n%s", got.Len(), len(want), got.String())
	}
	if _, err := os.Stat(d.Path(ralphdir.LiveLog + ".5")); err != nil {
		t.Errorf("live.log.5: %v", err)
	}
}
