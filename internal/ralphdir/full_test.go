//go:build linux

package ralphdir

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// On a full disk a state file that cannot get a new copy is rewritten in
// its own blocks, so status.json still records how the run ended.
func TestWriteFileFullDisk(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("mounting a tmpfs needs root")
	}
	dir := t.TempDir()
	if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, "size=256k"); err != nil {
		t.Skipf("cannot mount a tmpfs: %v", err)
	}
	defer syscall.Unmount(dir, syscall.MNT_DETACH)
	d := New(dir, func(string) {})
	if err := d.WriteFile("status.json", []byte(`{"status": "running"}`+"\n")); err != nil {
		t.Fatal(err)
	}
	ballast, _ := os.Create(filepath.Join(dir, "ballast"))
	for {
		if _, err := ballast.Write(make([]byte, 4096)); err != nil {
			break
		}
	}
	ballast.Close()
	want := `{"status": "stopped", "exit_reason": "disk_full"}` + "\n"
	if err := d.WriteFile("status.json", []byte(want)); err != nil {
		t.Fatalf("WriteFile on a full disk: %v", err)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "status.json")); string(got) != want {
		t.Errorf("status.json = %q, want %q", got, want)
	}
	if err := d.WriteFile("new.json", []byte("{}\n")); err == nil {
		t.Errorf("a new file was written on a full disk")
	}
	if m, _ := filepath.Glob(filepath.Join(dir, ".*.tmp-*")); len(m) > 0 {
		t.Errorf("temp files left: %v", m)
	}
}
