package ralphdir

import (
	"os"
	"path/filepath"
	"testing"
)

// A log kept open between lines must still follow its name: a removed log
// is created again, and a log replaced by a link is refused, its target
// never written.
func TestAppendLineFollowsTheName(t *testing.T) {
	root := t.TempDir()
	d := New(root, nil)
	p := filepath.Join(root, LogsDir, "x.log")
	read := func(p string) string {
		t.Helper()
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	for _, l := range []string{"one", "two"} {
		if err := d.AppendLine("logs/x.log", l); err != nil {
			t.Fatal(err)
		}
	}
	if got := read(p); got != "one\ntwo\n" {
		t.Fatalf("log = %q", got)
	}

	if err := os.Remove(p); err != nil {
		t.Fatal(err)
	}
	if err := d.AppendLine("logs/x.log", "three"); err != nil {
		t.Fatal(err)
	}
	if got := read(p); got != "three\n" {
		t.Fatalf("after removal, log = %q, want the line in a new file", got)
	}

	target := filepath.Join(root, "target")
	if err := os.WriteFile(target, []byte("keep\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(p); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, p); err != nil {
		t.Fatal(err)
	}
	if err := d.AppendLine("logs/x.log", "four"); !isFileError(err) {
		t.Fatalf("append through a link: %v, want a FileError", err)
	}
	if got := read(target); got != "keep\n" {
		t.Fatalf("link target = %q, want it untouched", got)
	}
}
