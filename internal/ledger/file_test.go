package ledger

import (
	"bufio"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"testing/synctest"
	"time"

	"github.com/gofrs/flock"
	"github.com/ralphloop/ralph_loop/internal/quota"
)

// TestMain doubles as a process that holds a ledger's lock: with
// LEDGER_HOLD set it takes the lock of that ledger, says "locked" and
// waits to be killed.
func TestMain(m *testing.M) {
	if p := os.Getenv("LEDGER_HOLD"); p != "" {
		fl := flock.New(p + ".lock")
		if ok, err := fl.TryLock(); !ok || err != nil {
			os.Exit(3)
		}
		os.WriteFile(p+".lock", []byte(strconv.Itoa(os.Getpid())+"\n"), 0o600)
		os.Stdout.WriteString("locked\n")
		time.Sleep(time.Hour) // until killed (a bare select{} is a deadlock the runtime ends)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

var t0 = time.Date(2026, 2, 18, 1, 2, 3, 0, time.UTC)

func fixed() time.Time { return t0 }

type warnings []string

func (w *warnings) add(s string) { *w = append(*w, s) }

func entry(tokens int64) quota.Entry {
	return quota.Entry{Account: "claude-code", Run: quota.Run{ID: "r#1", PID: 1, Project: "/p"}, Calls: 1, Tokens: tokens, By: "r#1"}
}

func TestPath(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("Unix paths")
	}
	for _, tc := range []struct {
		env  map[string]string
		want string
		err  string
	}{
		{env: map[string]string{"HOME": "/home/me"}, want: "/home/me/.local/state/ralph_loop/usage-ledger.json"},
		{env: map[string]string{"HOME": "/home/me", "XDG_STATE_HOME": "/state"}, want: "/state/ralph_loop/usage-ledger.json"},
		{env: map[string]string{"HOME": "/home/me", "XDG_STATE_HOME": "relative"}, want: "/home/me/.local/state/ralph_loop/usage-ledger.json"},
		{env: map[string]string{"HOME": "/home/me", EnvPath: "/tmp/x/../l.json"}, want: "/tmp/l.json"},
		{env: map[string]string{EnvPath: "l.json"}, err: "RALPH_USAGE_LEDGER=l.json is not an absolute path"},
		{env: map[string]string{}, err: "$HOME is not set; set RALPH_USAGE_LEDGER"},
	} {
		got, err := Path(func(k string) string { return tc.env[k] })
		if got != tc.want || (err == nil) != (tc.err == "") || err != nil && !strings.Contains(err.Error(), tc.err) {
			t.Errorf("Path(%v) = %q, %v; want %q, %q", tc.env, got, err, tc.want, tc.err)
		}
	}
}

// Update reads, changes and writes the book atomically (0600, no temp
// file left, a temp file a killed writer left removed); an update that
// changes nothing writes nothing; Peek reads it back.
func TestUpdateAndPeek(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "state", FileName)
	var w warnings
	f := Open(p, w.add, fixed)
	if b, err := f.Peek(); err != nil || len(b.Accounts) != 0 {
		t.Fatalf("Peek of no ledger = %+v, %v", b, err)
	}
	stale := filepath.Join(filepath.Dir(p), "."+FileName+".tmp-123")
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(stale, []byte("half a ledger"), 0o600)
	if _, err := f.Update(func(b *quota.Book) { b.Add(t0, entry(500)) }); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(p)
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("ledger %v, %v; want a 0600 file", st, err)
	}
	if _, err := os.Stat(stale); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the dead writer's temp file is still there: %v", err)
	}
	before := st.ModTime()
	time.Sleep(10 * time.Millisecond) // a distinct mtime would show a write
	if _, err := f.Update(func(*quota.Book) {}); err != nil {
		t.Fatal(err)
	}
	if st, _ := os.Stat(p); !st.ModTime().Equal(before) {
		t.Error("an update that changed nothing rewrote the ledger")
	}
	b, err := f.Peek()
	if err != nil || b.Accounts["claude-code"].Tokens != 500 || len(b.Runs) != 1 {
		t.Fatalf("Peek = %+v, %v", b, err)
	}
	if len(w) != 0 {
		t.Errorf("warnings: %q", w)
	}
}

// A ledger that is not JSON, not a ledger, too big or not a regular file
// is moved aside with one warning and a new one started; Peek only says
// so and moves nothing.
func TestDamagedLedgerMovedAside(t *testing.T) {
	for _, tc := range []struct {
		name string
		make func(p string)
		why  string
	}{
		{"not JSON", func(p string) { os.WriteFile(p, []byte(`{"version":1,"accounts":`), 0o600) }, "not valid JSON"},
		{"empty", func(p string) { os.WriteFile(p, nil, 0o600) }, "not valid JSON"},
		{"not a ledger", func(p string) { os.WriteFile(p, []byte(`{"version":1,"accounts":{"x":"y"}}`), 0o600) }, "not a usage ledger"},
		{"no version", func(p string) { os.WriteFile(p, []byte(`{"accounts":{}}`), 0o600) }, "not a usage ledger"},
		{"too big", func(p string) { os.WriteFile(p, make([]byte, maxSize+1), 0o600) }, "over the 4 MiB limit"},
		{"a folder", func(p string) { os.Mkdir(p, 0o700) }, "a directory"},
		{"a named pipe", func(p string) { mkfifo(p) }, "a named pipe"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.name == "a named pipe" && runtime.GOOS == "windows" {
				t.Skip("no FIFOs")
			}
			p := filepath.Join(t.TempDir(), FileName)
			tc.make(p)
			var w warnings
			f := Open(p, w.add, fixed)
			if _, err := f.Peek(); err == nil || !strings.Contains(err.Error(), tc.why) {
				t.Errorf("Peek: %v, want %q", err, tc.why)
			}
			b, err := f.Update(func(b *quota.Book) { b.Add(t0, entry(7)) })
			if err != nil || b.Accounts["claude-code"].Tokens != 7 {
				t.Fatalf("Update = %+v, %v", b, err)
			}
			aside := p + ".corrupt-20260218-010203"
			if _, err := os.Lstat(aside); err != nil {
				t.Errorf("not moved aside to %s: %v", aside, err)
			}
			if len(w) != 1 || !strings.Contains(w[0], tc.why) || !strings.Contains(w[0], "moved it to "+filepath.Base(aside)+" and started a new one") {
				t.Errorf("warnings %q", w)
			}
			if b, err := f.Peek(); err != nil || b.Accounts["claude-code"].Tokens != 7 {
				t.Errorf("the new ledger: %+v, %v", b, err)
			}
		})
	}
}

// A ledger (or its lock) replaced by a link is never followed: the link
// itself is moved aside, its target is neither read nor written.
func TestLinkNotFollowed(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("links need rights on Windows")
	}
	dir := t.TempDir()
	target := filepath.Join(dir, "elsewhere.json")
	os.WriteFile(target, []byte(`{"version":1}`+"\n"), 0o600)
	p := filepath.Join(dir, FileName)
	if err := os.Symlink(target, p); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(dir, "lock-target"), p+".lock"); err != nil {
		t.Fatal(err)
	}
	var w warnings
	f := Open(p, w.add, fixed)
	if _, err := f.Peek(); err == nil || !strings.Contains(err.Error(), "a symbolic link") {
		t.Errorf("Peek: %v", err)
	}
	if _, err := f.Update(func(b *quota.Book) { b.Add(t0, entry(1)) }); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(target); string(got) != `{"version":1}`+"\n" {
		t.Errorf("the link's target was written: %q", got)
	}
	if _, err := os.Lstat(filepath.Join(dir, "lock-target")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the lock link's target was created: %v", err)
	}
	for _, name := range []string{p, p + ".lock"} {
		if st, err := os.Lstat(name); err != nil || !st.Mode().IsRegular() {
			t.Errorf("%s: %v, %v; want a regular file", name, st, err)
		}
		if st, err := os.Lstat(name + ".corrupt-20260218-010203"); err != nil || st.Mode()&os.ModeSymlink == 0 {
			t.Errorf("the link %s was not moved aside: %v, %v", name, st, err)
		}
	}
	if len(w) != 2 || !strings.Contains(w[0], "lock") || !strings.Contains(w[1], "was a symbolic link to") {
		t.Errorf("warnings %q", w)
	}
}

// A ledger of a later format is left alone, and said so.
func TestLaterFormatLeftAlone(t *testing.T) {
	p := filepath.Join(t.TempDir(), FileName)
	os.WriteFile(p, []byte(`{"version":2,"whatever":true}`), 0o600)
	f := Open(p, nil, fixed)
	if _, err := f.Update(func(b *quota.Book) { b.Add(t0, entry(1)) }); err == nil || !strings.Contains(err.Error(), "format 2, written by a later ralph_loop") {
		t.Errorf("Update: %v", err)
	}
	if got, _ := os.ReadFile(p); string(got) != `{"version":2,"whatever":true}` {
		t.Errorf("the later ledger was changed: %q", got)
	}
}

// holder starts a process that holds p's lock and returns it once it has.
func holder(t *testing.T, p string) *exec.Cmd {
	t.Helper()
	c := exec.Command(os.Args[0], "-test.run=^$")
	c.Env = append(os.Environ(), "LEDGER_HOLD="+p)
	out, err := c.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Process.Kill(); c.Wait() })
	if line, err := bufio.NewReader(out).ReadString('\n'); err != nil || line != "locked\n" {
		t.Fatalf("the lock holder said %q, %v", line, err)
	}
	return c
}

// A lock held by a process that died (kill -9 in the middle of an
// update) is no lock: the kernel dropped it, and the next update goes on
// at once; the pid it left in the lock file does not matter.
func TestLockOfDeadProcess(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("kill -9")
	}
	p := filepath.Join(t.TempDir(), FileName)
	c := holder(t, p)
	c.Process.Signal(syscall.SIGKILL)
	c.Wait()
	if pid := lockPID(p + ".lock"); pid != c.Process.Pid {
		t.Fatalf("the dead holder's pid in the lock file = %d, want %d", pid, c.Process.Pid)
	}
	start := time.Now()
	if _, err := Open(p, nil, fixed).Update(func(b *quota.Book) { b.Add(t0, entry(1)) }); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > lockWait/2 {
		t.Errorf("the update waited %s for a dead process's lock", d)
	}
}

// A lock held by a live process (one stopped in the middle of an update)
// is waited for lockWait, then the update fails naming the holder: the
// caller goes on without the ledger.
func TestLockHeldByLiveProcess(t *testing.T) {
	p := filepath.Join(t.TempDir(), FileName)
	c := holder(t, p)
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		_, err := Open(p, nil, fixed).Update(func(*quota.Book) { t.Error("changed without the lock") })
		var le *LockedError
		if !errors.As(err, &le) || le.PID != c.Process.Pid || time.Since(start) < lockWait {
			t.Fatalf("Update = %v after %s; want a LockedError naming pid %d after %s", err, time.Since(start), c.Process.Pid, lockWait)
		}
		if want := "is locked by process " + strconv.Itoa(c.Process.Pid) + " for more than 2s"; !strings.Contains(err.Error(), want) {
			t.Errorf("%v, want %q", err, want)
		}
	})
}

// Another user's ledger is refused, never read, written or moved.
func TestOtherUsersLedgerRefused(t *testing.T) {
	if runtime.GOOS == "windows" || os.Geteuid() != 0 {
		t.Skip("needs root to give a file to another user")
	}
	p := filepath.Join(t.TempDir(), FileName)
	os.WriteFile(p, []byte("not json"), 0o644)
	if err := os.Chown(p, 65534, 65534); err != nil {
		t.Fatal(err)
	}
	_, err := Open(p, nil, fixed).Update(func(*quota.Book) {})
	if err == nil || !strings.Contains(err.Error(), "belongs to user 65534, not to you") {
		t.Fatalf("Update: %v", err)
	}
	if got, _ := os.ReadFile(p); string(got) != "not json" {
		t.Errorf("another's ledger was changed: %q", got)
	}
}
