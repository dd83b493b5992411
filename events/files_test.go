package events

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/ralphloop/ralph_loop/ralphdir"
)

var t0 = time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)

func fixedClock() time.Time { return t0 }

func newDir(t *testing.T) *ralphdir.Dir {
	t.Helper()
	d := ralphdir.New(filepath.Join(t.TempDir(), ".ralph"), func(msg string) { t.Logf("ralphdir: %s", msg) })
	if err := d.EnsureLayout(); err != nil {
		t.Fatal(err)
	}
	return d
}

// failOnErr is an onErr that fails the test.
func failOnErr(t *testing.T) func(error) {
	return func(err error) { t.Helper(); t.Errorf("sink error: %v", err) }
}

func readFile(t *testing.T, d *ralphdir.Dir, name string) []byte {
	t.Helper()
	data, found, err := d.ReadFile(name)
	if err != nil || !found {
		t.Fatalf("%s: found=%v err=%v", name, found, err)
	}
	return data
}

// keysOf returns the top-level keys of a JSON object in file order.
func TestRalphLog(t *testing.T) {
	d := newDir(t)
	l := NewRalphLog(d, failOnErr(t))
	l.Line(t0, Info, "hello 1")
	l.Line(t0, Warn, "100% literal")
	l.Line(t0, Debug, "shown")
	stamp := t0.Local().Format(LocalStamp)
	want := "[" + stamp + "] [INFO] hello 1\n[" + stamp + "] [WARN] 100% literal\n[" + stamp + "] [DEBUG] shown\n"
	if diff := cmp.Diff(want, string(readFile(t, d, ralphdir.RalphLog))); diff != "" {
		t.Errorf("ralph.log (-want +got):\n%s", diff)
	}

	if err := os.Remove(d.Path(ralphdir.RalphLog)); err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(d.Path(ralphdir.RalphLog), 0o755)
	var errs []error
	l2 := NewRalphLog(d, func(err error) { errs = append(errs, err) })
	l2.Line(t0, Info, "a")
	l2.Line(t0, Info, "b")
	if len(errs) != 1 {
		t.Errorf("write errors reported %d times, want once", len(errs))
	}
}
