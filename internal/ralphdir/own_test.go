//go:build unix

package ralphdir

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestNotOwn: only a regular file with one name (or a real folder) is
// taken for one the program made; anything else is described.
func TestNotOwn(t *testing.T) {
	dir := t.TempDir()
	p := func(n string) string { return filepath.Join(dir, n) }
	os.WriteFile(p("file"), []byte("x"), 0o644)
	os.Mkdir(p("folder"), 0o755)
	os.Symlink("../elsewhere", p("link"))
	os.Symlink("folder", p("dirlink"))
	syscall.Mkfifo(p("pipe"), 0o644)
	os.WriteFile(p("twice"), []byte("x"), 0o644)
	os.Link(p("twice"), p("twice2"))
	for _, tc := range []struct {
		name   string
		folder bool
		want   string
	}{
		{"missing", false, ""}, {"file", false, ""}, {"folder", true, ""},
		{"link", false, "is a symbolic link to ../elsewhere"},
		{"dirlink", true, "is a symbolic link to folder"},
		{"pipe", false, "is a named pipe (FIFO), not a regular file"},
		{"twice", false, "is a file with 2 names (a hard link)"},
		{"file", true, "is a file, not a folder"},
		{"folder", false, "is a directory, not a regular file"},
	} {
		if got := NotOwn(p(tc.name), tc.folder); got != tc.want {
			t.Errorf("NotOwn(%s, %v) = %q, want %q", tc.name, tc.folder, got, tc.want)
		}
	}
}

// TestLockPath: a lock file is created and locked; a second lock does not
// wait and is told the lock is held; a link in its place is refused
// without its target being created.
func TestLockPath(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, ".lock")
	l, held, err := LockPath(p, false)
	if err != nil || held {
		t.Fatalf("LockPath: %v, held %v", err, held)
	}
	if _, held, err := LockPath(p, false); err != nil || !held {
		t.Fatalf("second LockPath: %v, held %v; want held", err, held)
	}
	if err := l.Unlock(); err != nil {
		t.Fatal(err)
	}
	l, _, err = LockPath(p, true)
	if err != nil {
		t.Fatalf("LockPath after unlock: %v", err)
	}
	l.Unlock()

	target := filepath.Join(dir, "nologin")
	link := filepath.Join(dir, ".link.lock")
	os.Symlink(target, link)
	_, _, err = LockPath(link, true)
	if err == nil || !strings.Contains(err.Error(), "is a symbolic link") {
		t.Fatalf("LockPath through a link: %v", err)
	}
	if _, err := os.Lstat(target); err == nil {
		t.Fatal("the link's target was created")
	}
}
