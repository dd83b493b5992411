package ralphdir

import (
	"errors"
	"os"
	"testing"
	"testing/synctest"
	"time"

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
	if d.Exists(oldLockFile) {
		t.Fatal("lock file at the old place")
	}
}

func TestLockRemovesFreeOldLock(t *testing.T) {
	d, _ := newDir(t)
	if err := os.WriteFile(d.Path(oldLockFile), []byte("123\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	l, err := d.Lock()
	if err != nil {
		t.Fatal(err)
	}
	defer l.Unlock()
	if d.Exists(oldLockFile) {
		t.Fatal("the old, free lock file is still there")
	}
}

func TestLockRefusesWhileOldVersionHoldsOldLock(t *testing.T) {
	d, _ := newDir(t)
	if err := os.WriteFile(d.Path(oldLockFile), []byte("4242\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	old := flock.New(d.Path(oldLockFile))
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

// A link planted as the lock file, or as the old one, is replaced or
// removed; its target is never opened, locked or written.
func TestLockNeverFollowsALink(t *testing.T) {
	for _, name := range []string{LockFile, oldLockFile} {
		t.Run(name, func(t *testing.T) {
			d, _ := newDir(t)
			outside := t.TempDir() + "/precious"
			if err := os.WriteFile(outside, []byte("keep me\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			missing := t.TempDir() + "/never-created"
			if err := os.MkdirAll(d.Path("logs"), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(outside, d.Path(name)); err != nil {
				t.Fatal(err)
			}
			other := LockFile
			if name == LockFile {
				other = oldLockFile
			}
			if err := os.Symlink(missing, d.Path(other)); err != nil {
				t.Fatal(err)
			}
			l, err := d.Lock()
			if err != nil {
				t.Fatal(err)
			}
			defer l.Unlock()
			if b, _ := os.ReadFile(outside); string(b) != "keep me\n" {
				t.Errorf("the link's target was written: %q", b)
			}
			if _, err := os.Stat(missing); err == nil {
				t.Errorf("a missing link target was created")
			}
			st, err := os.Lstat(d.Path(LockFile))
			if err != nil || !st.Mode().IsRegular() {
				t.Errorf("the lock is not a regular file: %v %v", st, err)
			}
		})
	}
}

// A lock held for a moment, as --status and --doctor hold it to probe it,
// does not make a starting loop think another loop runs.
func TestLockWaitsOutAProbe(t *testing.T) {
	d, _ := newDir(t)
	if err := os.MkdirAll(d.Path("logs"), 0o755); err != nil {
		t.Fatal(err)
	}
	synctest.Test(t, func(t *testing.T) {
		probe := flock.New(d.Path(LockFile))
		if ok, err := probe.TryLock(); !ok || err != nil {
			t.Fatalf("trylock: %v %v", ok, err)
		}
		released := make(chan struct{})
		go func() {
			defer close(released)
			time.Sleep(3 * lockRetryGap)
			probe.Unlock()
		}()
		l, err := d.Lock()
		<-released
		if err != nil {
			t.Fatalf("Lock while a probe held the lock for a moment: %v", err)
		}
		l.Unlock()
	})
}
