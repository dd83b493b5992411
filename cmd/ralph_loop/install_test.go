package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestInstallScript runs install.sh as a newcomer would: it installs the
// binary into $PREFIX/bin, installs the bmalph shim into a project with
// the templates that are missing, keeps what is there, and a second run
// changes nothing but the shim. It installs this test binary (which is
// ralph_loop under that name) with --binary; the build itself, stamped
// with CHANGELOG.md's version and the commit, runs in CI (CI=true), as
// the release dry run builds every target there.
func TestInstallScript(t *testing.T) {
	t.Parallel() // it waits on the processes it starts: the scenarios run meanwhile
	root := installRoot(t)
	self, err := exec.LookPath("ralph_loop") // TestMain's copy of this binary
	if err != nil {
		t.Fatal(err)
	}
	want, err := exec.Command(self, "--version").Output()
	if err != nil {
		t.Fatalf("ralph_loop --version: %v", err)
	}
	t.Run("prebuilt", func(t *testing.T) {
		t.Parallel()
		checkInstall(t, root, []string{"--binary", self}, func(t *testing.T, out string, v []byte) {
			if strings.Contains(out, "Building") {
				t.Errorf("install.sh --binary built a binary:\n%s", out)
			}
			if string(v) != string(want) {
				t.Errorf("shim --version %q, want the installed binary's %q", v, want)
			}
		})
	})
	t.Run("build", func(t *testing.T) {
		if !inCI() {
			t.Skip("builds the binary (a minute or two on a cold cache): run with CI=true")
		}
		if _, err := exec.LookPath("go"); err != nil {
			t.Fatal("no go on PATH")
		}
		t.Parallel()
		checkInstall(t, root, nil, func(t *testing.T, out string, v []byte) {
			if !strings.Contains(out, "compiles for a minute or two") {
				t.Errorf("install.sh does not say that a first build takes a while:\n%s", out)
			}
			if !regexp.MustCompile(`^ralph_loop ` + regexp.QuoteMeta(devVersion) + `\+[0-9a-f]+`).Match(v) {
				t.Errorf("shim --version %q; want CHANGELOG.md's version %s with the commit", v, devVersion)
			}
		})
	})
}

// checkInstall runs install.sh args --project twice into a scratch prefix
// and project and checks what it installed and kept; checkBin checks the
// first run's output and what the shim's --version printed.
func checkInstall(t *testing.T, root string, args []string, checkBin func(t *testing.T, out string, version []byte)) {
	tmp := t.TempDir()
	prefix := filepath.Join(tmp, "pre fix") // a space in the path must survive the shim
	proj := filepath.Join(tmp, "proj")
	ralph := filepath.Join(proj, ".ralph")
	if err := os.MkdirAll(ralph, 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(ralph, "PROMPT.md"), []byte("my own prompt\n"), 0o644)

	install := func() string {
		cmd := exec.Command("bash", append(append([]string{filepath.Join(root, "install.sh")}, args...), "--project", proj)...)
		cmd.Env = append(os.Environ(), "PREFIX="+prefix)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("install.sh: %v\n%s", err, out)
		}
		return string(out)
	}
	out := install()
	bin := filepath.Join(prefix, "bin", "ralph_loop")
	if !strings.Contains(out, "Installed "+bin) || !strings.Contains(out, "not on your PATH") {
		t.Errorf("install.sh does not say where it installed and whether that is on PATH:\n%s", out)
	}
	for _, name := range []string{"ralph_loop.sh", "@fix_plan.md", "@AGENT.md", ".ralphrc", "REVIEW_PROMPT.md", ".gitignore"} {
		if _, err := os.Stat(filepath.Join(ralph, name)); err != nil {
			t.Errorf("%s not installed: %v", name, err)
		}
	}
	if st, err := os.Stat(filepath.Join(ralph, "lib")); err != nil || !st.IsDir() {
		t.Errorf(".ralph/lib/ missing (bmalph doctor checks it)")
	}
	if b, _ := os.ReadFile(filepath.Join(ralph, "PROMPT.md")); string(b) != "my own prompt\n" {
		t.Errorf("PROMPT.md was overwritten: %q", b)
	}
	// The shim tells the binary it was started this way (hints name it).
	if b, _ := os.ReadFile(filepath.Join(ralph, "ralph_loop.sh")); !strings.Contains(string(b), "export RALPH_SHIM='bash .ralph/ralph_loop.sh'") {
		t.Errorf("the shim does not set RALPH_SHIM:\n%s", b)
	}
	// bmalph runs the shim with bash; it must reach the binary.
	v, err := exec.Command("bash", filepath.Join(ralph, "ralph_loop.sh"), "--version").CombinedOutput()
	if err != nil {
		t.Fatalf("shim --version: %v %q", err, v)
	}
	checkBin(t, out, v)
	// bmalph upgrade overwrites the shim; installing again restores it and
	// touches nothing else.
	os.WriteFile(filepath.Join(ralph, "ralph_loop.sh"), []byte("#!/bin/bash\necho bash loop\n"), 0o755)
	plan := filepath.Join(ralph, "@fix_plan.md")
	os.WriteFile(plan, []byte("- [ ] mine\n"), 0o644)
	out = install()
	if b, _ := os.ReadFile(plan); string(b) != "- [ ] mine\n" {
		t.Errorf("re-install changed @fix_plan.md: %q", b)
	}
	if !strings.Contains(out, "Kept") {
		t.Errorf("re-install output does not say what it kept:\n%s", out)
	}
	if b, _ := os.ReadFile(filepath.Join(ralph, "ralph_loop.sh")); !strings.Contains(string(b), "exec") {
		t.Errorf("shim not restored: %q", b)
	}
}

// TestInstallScriptRefusesLinks: install.sh --project never writes through
// a .ralph/, .ralph/lib or shim that the repository made a link: it says
// so in one line, exits non-zero, and the link's target stays as it was.
// It refuses before it builds anything.
func TestInstallScriptRefusesLinks(t *testing.T) {
	root := installRoot(t)
	tmp := t.TempDir()
	for _, name := range []string{".ralph", ".ralph/lib", ".ralph/ralph_loop.sh"} {
		t.Run(filepath.Base(name), func(t *testing.T) {
			proj := filepath.Join(tmp, filepath.Base(name), "proj")
			outside := filepath.Join(tmp, filepath.Base(name), "outside")
			os.MkdirAll(filepath.Join(proj, ".ralph"), 0o755)
			os.MkdirAll(outside, 0o755)
			os.Remove(filepath.Join(proj, name))
			if err := os.Symlink(outside, filepath.Join(proj, name)); err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command("bash", filepath.Join(root, "install.sh"), "--project", proj)
			cmd.Env = append(os.Environ(), "PREFIX="+filepath.Join(tmp, "prefix"))
			out, err := cmd.CombinedOutput()
			if err == nil || !strings.Contains(string(out), name+" is a symbolic link to "+outside+": refusing to write through it") {
				t.Fatalf("install.sh: %v, want a refusal:\n%s", err, out)
			}
			if entries, _ := os.ReadDir(outside); len(entries) != 0 {
				t.Fatalf("install.sh wrote %d files through the link", len(entries))
			}
			if _, err := os.Stat(filepath.Join(tmp, "prefix", "bin")); !os.IsNotExist(err) {
				t.Errorf("install.sh built and installed the binary before it refused (%v)", err)
			}
		})
	}
}

// installRoot is the repository's root, where install.sh is.
func installRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// TestInstallScriptBinaryNotAFile: --binary naming no executable file is
// refused in one line, and nothing is installed.
func TestInstallScriptBinaryNotAFile(t *testing.T) {
	root := installRoot(t)
	tmp := t.TempDir()
	notExec := filepath.Join(tmp, "ralph_loop")
	os.WriteFile(notExec, []byte("not a program\n"), 0o644)
	for _, arg := range []string{filepath.Join(tmp, "missing"), tmp, notExec} {
		cmd := exec.Command("bash", filepath.Join(root, "install.sh"), "--binary", arg)
		cmd.Env = append(os.Environ(), "PREFIX="+filepath.Join(tmp, "prefix"))
		out, err := cmd.CombinedOutput()
		if err == nil || string(out) != "install.sh: --binary '"+arg+"' is not an executable file; name a ralph_loop binary (e.g. --binary ./ralph_loop)\n" {
			t.Errorf("install.sh --binary %s: %v, want a one-line refusal:\n%s", arg, err, out)
		}
	}
	if _, err := os.Stat(filepath.Join(tmp, "prefix", "bin")); !os.IsNotExist(err) {
		t.Errorf("install.sh made the bin folder for a binary it refused (%v)", err)
	}
}
