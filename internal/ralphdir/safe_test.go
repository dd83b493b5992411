//go:build unix

package ralphdir

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// guard fails the test when f does not return within 10 s (a generous
// "never hangs" bound, not a timing assertion).
func guard(t *testing.T, what string, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() { defer close(done); f() }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatalf("%s hung", what)
	}
}

func mkfifo(t *testing.T, p string) {
	t.Helper()
	if err := syscall.Mkfifo(p, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
}

func TestReadFileCappedRefusesOddFiles(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	mkfifo(t, fifo)
	zero := filepath.Join(dir, "zero")
	if err := os.Symlink("/dev/zero", zero); err != nil {
		t.Fatal(err)
	}
	big := filepath.Join(dir, "big")
	os.WriteFile(big, make([]byte, 2000), 0o644)
	ok := filepath.Join(dir, "ok")
	os.WriteFile(ok, []byte("hello"), 0o644)
	link := filepath.Join(dir, "link")
	os.Symlink(ok, link)

	for _, tc := range []struct{ path, want string }{
		{fifo, "is a named pipe (FIFO), not a regular file"},
		{zero, "is a device, not a regular file"},
		{dir, "is a directory, not a regular file"},
		{big, "is 2000 bytes, over the 1000 bytes limit"},
	} {
		var err error
		guard(t, tc.path, func() { _, err = ReadFileCapped(tc.path, 1000) })
		if !isFileError(err) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ReadFileCapped(%s) = %v, want a FileError with %q", tc.path, err, tc.want)
		}
		if n := strings.Count(err.Error(), tc.path); n != 1 {
			t.Errorf("%q names the path %d times, want once", err, n)
		}
	}
	for _, p := range []string{ok, link} {
		if b, err := ReadFileCapped(p, 5); err != nil || string(b) != "hello" {
			t.Errorf("ReadFileCapped(%s) = %q, %v", p, b, err)
		}
	}
	if _, err := ReadFileCapped(filepath.Join(dir, "none"), 5); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
}

func TestReadFileNamesPathOnce(t *testing.T) {
	d, _ := newDir(t)
	os.MkdirAll(d.Path(FixPlan), 0o755)
	_, _, err := d.ReadFile(FixPlan)
	if err == nil || strings.Count(err.Error(), d.Path(FixPlan)) != 1 {
		t.Fatalf("err = %v, want the path once", err)
	}
}

func TestStateFileFIFOAndDeviceAreQuarantined(t *testing.T) {
	d, warnings := newDir(t)
	mkfifo(t, d.Path(Status))
	os.Symlink("/dev/zero", d.Path(CallCount))
	for _, name := range []string{Status, CallCount} {
		var found bool
		var err error
		guard(t, name, func() {
			found, err = d.ReadValid(name, func([]byte) error { return nil })
		})
		if found || err != nil {
			t.Fatalf("%s: found=%v err=%v, want a quarantine", name, found, err)
		}
		if _, err := os.Lstat(d.Path(name)); !errors.Is(err, fs.ErrNotExist) {
			t.Fatalf("%s still in place", name)
		}
	}
	if len(*warnings) != 2 || !strings.Contains((*warnings)[0], "named pipe") || !strings.Contains((*warnings)[1], "symbolic link to /dev/zero") {
		t.Fatalf("warnings = %q", *warnings)
	}
	if _, err := os.Stat("/dev/zero"); err != nil {
		t.Fatal("/dev/zero gone?")
	}
}

func TestAppendRefusesLinksAndFIFOsOnce(t *testing.T) {
	d, _ := newDir(t)
	outside := filepath.Join(t.TempDir(), "outside.txt")
	os.WriteFile(outside, []byte("keep\n"), 0o644)
	os.Symlink(outside, d.Path(EventsLog))
	mkfifo(t, d.Path(MetricsLog))

	for _, name := range []string{EventsLog, MetricsLog} {
		var errs []error
		guard(t, name, func() {
			for range 3 {
				errs = append(errs, d.AppendLine(name, "x"))
			}
		})
		if !isFileError(errs[0]) || errs[1] != nil || errs[2] != nil {
			t.Fatalf("%s: errors %v, want one FileError then nil", name, errs)
		}
	}
	if b, _ := os.ReadFile(outside); string(b) != "keep\n" {
		t.Fatalf("link target written: %q", b)
	}
}

func TestCreateReplacesPlantedLink(t *testing.T) {
	d, warnings := newDir(t)
	outside := filepath.Join(t.TempDir(), "outside.txt")
	os.WriteFile(outside, []byte("keep\n"), 0o644)
	name := "logs/claude_output_x.log"
	os.Symlink(outside, d.Path(name))
	f, err := d.Create(name)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("out")
	f.Close()
	if b, _ := os.ReadFile(outside); string(b) != "keep\n" {
		t.Fatalf("link target written: %q", b)
	}
	if st, _ := os.Lstat(d.Path(name)); !st.Mode().IsRegular() {
		t.Fatalf("%s is %v", name, st.Mode())
	}
	if len(*warnings) != 1 {
		t.Fatalf("warnings = %q", *warnings)
	}
}

func TestWriteFileThroughLinkToDeviceNeverReadsIt(t *testing.T) {
	d, _ := newDir(t)
	os.Symlink("/dev/zero", d.Path(Status))
	var err error
	guard(t, "WriteFile", func() { err = d.WriteFile(Status, []byte("{}\n")) })
	if err != nil {
		t.Fatal(err)
	}
	if st, _ := os.Lstat(d.Path(Status)); !st.Mode().IsRegular() {
		t.Fatalf("status.json is %v, want the link replaced", st.Mode())
	}
}
