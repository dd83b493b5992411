package ralphdir

import (
	"os"
	"path/filepath"
	"testing"
)

func TestLockHolder(t *testing.T) {
	root := filepath.Join(t.TempDir(), ".ralph")
	if err := os.MkdirAll(root, 0o755); err != nil {
		t.Fatal(err)
	}
	d := New(root, nil)
	// No lock file: free, and nothing is created.
	if le, err := d.LockHolder(); le != nil || err != nil {
		t.Fatalf("no lock file: got %v, %v", le, err)
	}
	if _, err := os.Stat(d.Path(LockFile)); !os.IsNotExist(err) {
		t.Fatalf("the probe created %s", d.Path(LockFile))
	}
	lock, err := d.Lock()
	if err != nil {
		t.Fatal(err)
	}
	before, _ := os.Stat(d.Path(LockFile))
	le, err := d.LockHolder()
	if err != nil || le == nil || le.PID != os.Getpid() || le.Path != d.Path(LockFile) {
		t.Fatalf("held lock: got %+v, %v", le, err)
	}
	lock.Unlock()
	if le, err := d.LockHolder(); le != nil || err != nil {
		t.Fatalf("released lock: got %v, %v", le, err)
	}
	after, _ := os.Stat(d.Path(LockFile))
	if !after.ModTime().Equal(before.ModTime()) || after.Size() != before.Size() {
		t.Fatalf("the probe changed the lock file")
	}
	// The probe never keeps the lock: a loop can take it right after.
	l2, err := d.Lock()
	if err != nil {
		t.Fatalf("lock after the probe: %v", err)
	}
	l2.Unlock()
}
