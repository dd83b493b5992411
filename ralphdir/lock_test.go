package ralphdir

import (
	"errors"
	"os"
	"testing"

	"github.com/gofrs/flock"
)

func TestLockLivesUnderLogs(t *testing.T) {
	d, _ := newDir(t)
	l, err := d.Lock()
	if err != nil {
		t.Fatal(err)
	}
	defer l.Unlock()
	if !d.Exists("logs/.ralph_loop.lock") {
		t.Fatal("no lock file under logs/")
	}
	if d.Exists(OldLockFile) {
		t.Fatal("lock file at the old place")
	}
}

func TestLockRemovesFreeOldLock(t *testing.T) {
	d, _ := newDir(t)
	if err := os.WriteFile(d.Path(OldLockFile), []byte("123\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	l, err := d.Lock()
	if err != nil {
		t.Fatal(err)
	}
	defer l.Unlock()
	if d.Exists(OldLockFile) {
		t.Fatal("the old, free lock file is still there")
	}
}

func TestLockRefusesWhileOldVersionHoldsOldLock(t *testing.T) {
	d, _ := newDir(t)
	if err := os.WriteFile(d.Path(OldLockFile), []byte("4242\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	old := flock.New(d.Path(OldLockFile))
	if ok, err := old.TryLock(); !ok || err != nil {
		t.Fatalf("trylock: %v %v", ok, err)
	}
	_, err := d.Lock()
	var le *LockedError
	if !errors.As(err, &le) || le.PID != 4242 {
		t.Fatalf("err = %v, want *LockedError naming pid 4242", err)
	}
	old.Unlock()
	l, err := d.Lock()
	if err != nil {
		t.Fatalf("lock after the old holder left: %v", err)
	}
	l.Unlock()
}
