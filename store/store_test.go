package store

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/ralphloop/ralph_loop/ralphdir"
)

// The live log is truncated in place when it is a plain file of its own,
// and replaced when another name shares it: the other name's content
// never changes.
func TestOpenLiveLog(t *testing.T) {
	d := newDir(t)
	s := New(d, nil, false)
	p := d.Path(ralphdir.LiveLog)
	if err := os.WriteFile(p, []byte("old call\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := s.OpenLiveLog("header\n")
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("stream\n")
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
