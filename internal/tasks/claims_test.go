package tasks

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The swarm's claims: one worker's claim stands against the others, is
// its own again, and goes with give; a link planted as the folder or a
// claim file is never followed or taken as a worker's.
func TestClaimDir(t *testing.T) {
	root := t.TempDir()
	w1 := &claimDir{dir: filepath.Join(root, "claims"), worker: "worker-1"}
	w2 := &claimDir{dir: w1.dir, worker: "worker-2"}
	if err := w1.take("#7"); err != nil {
		t.Fatal(err)
	}
	if err := w1.take("#7"); err != nil {
		t.Errorf("its own claim again: %v", err)
	}
	if err := w2.take("#7"); !errors.Is(err, errTaken) || err.Error() != "worker-1 of this swarm has it" {
		t.Errorf("another worker's claim: %v", err)
	}
	w2.give("#7")
	if _, err := os.Stat(w1.path("#7")); err != nil {
		t.Errorf("worker-2 removed worker-1's claim: %v", err)
	}
	w1.give("#7")
	if err := w2.take("#7"); err != nil {
		t.Errorf("a free issue: %v", err)
	}

	secret := filepath.Join(root, "secret")
	os.WriteFile(secret, []byte("worker-3\n"), 0o600)
	os.Symlink(secret, w1.path("#8"))
	if err := w2.take("#8"); !errors.Is(err, errTaken) {
		t.Errorf("a link as the claim file: %v", err)
	}
	if b, _ := os.ReadFile(secret); string(b) != "worker-3\n" {
		t.Errorf("written through the link: %q", b)
	}
	linked := &claimDir{dir: filepath.Join(root, "linked"), worker: "worker-1"}
	os.Symlink(root, linked.dir)
	if err := linked.take("#9"); err == nil || !strings.Contains(err.Error(), "is a symbolic link") {
		t.Errorf("a link as the folder: %v", err)
	}
}
