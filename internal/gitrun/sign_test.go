package gitrun

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestCommitsNeverSign: with commit.gpgSign in the repository's config,
// a commit made through Run does not run the program of any signature
// format (gpg.program, gpg.ssh.program, gpg.x509.program), and a merge
// with merge.verifySignatures does not run it to check one; a plain git
// does run it, which shows the test can fail.
func TestCommitsNeverSign(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	for _, format := range []struct{ name, key string }{
		{"openpgp", "gpg.program"}, {"ssh", "gpg.ssh.program"}, {"x509", "gpg.x509.program"},
	} {
		t.Run(format.name, func(t *testing.T) {
			dir, tmp := t.TempDir(), t.TempDir()
			marker := filepath.Join(tmp, "ran")
			prog := filepath.Join(tmp, "sign.sh")
			if err := os.WriteFile(prog, []byte("#!/bin/sh\necho \"$@\" >> "+marker+"\nexit 1\n"), 0o755); err != nil {
				t.Fatal(err)
			}
			git := func(args ...string) error {
				cmd := exec.Command("git", append(append(noMaintenance, "-c", "user.name=t", "-c", "user.email=t@t"), args...)...)
				cmd.Dir = dir
				return cmd.Run()
			}
			for _, a := range [][]string{
				{"init", "-q", "-b", "main", "."}, {"commit", "-q", "--allow-empty", "-m", "init"},
				{"branch", "side"},
				{"config", "commit.gpgSign", "true"}, {"config", "merge.verifySignatures", "true"},
				{"config", "gpg.format", format.name}, {"config", "user.signingKey", "key"},
				{"config", format.key, prog},
			} {
				if err := git(a...); err != nil {
					t.Fatalf("git %v: %v", a, err)
				}
			}
			ctx := context.Background()
			if _, err := Run(ctx, dir, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "--allow-empty", "-m", "mine"); err != nil {
				t.Fatalf("commit: %v", err)
			}
			if _, err := Run(ctx, dir, "-c", "user.name=t", "-c", "user.email=t@t", "merge", "-q", "--no-ff", "--no-edit", "side"); err != nil {
				t.Fatalf("merge: %v", err)
			}
			if _, err := Run(ctx, dir, "log", "-3", "--format=%s"); err != nil {
				t.Fatalf("log: %v", err)
			}
			if _, err := os.Stat(marker); err == nil {
				t.Fatalf("%s ran", format.key)
			}
			git("commit", "-q", "--allow-empty", "-m", "plain")
			if _, err := os.Stat(marker); err != nil {
				t.Fatalf("%s never ran for a plain git: the test proves nothing", format.key)
			}
		})
	}
}
