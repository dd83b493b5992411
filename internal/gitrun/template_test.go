package gitrun

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

// noMaintenance goes before the arguments of the tests' own git commands:
// without it every commit starts a `git maintenance run --auto` of its own,
// a process that has nothing to do in a scratch repository.
var noMaintenance = []string{"-c", "maintenance.auto=false"}

// templates holds the repositories fromTemplate copies, made once per test
// binary, in a folder removed when the tests end.
var templates struct {
	sync.Mutex
	root string
	made map[string]string
}

func TestMain(m *testing.M) {
	root, err := os.MkdirTemp("", "gitrun-templates-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	templates.root, templates.made = root, map[string]string{}
	code := m.Run()
	os.RemoveAll(root)
	os.Exit(code)
}

// fromTemplate is a new temporary folder holding a copy of the repository
// build makes in an empty folder. build runs once per name and test
// binary; each test after that gets its own copy without starting git
// (a repository made with init, add and commit costs three git processes).
func fromTemplate(t *testing.T, name string, build func(dir string)) string {
	t.Helper()
	templates.Lock()
	defer templates.Unlock()
	src, ok := templates.made[name]
	if !ok {
		var err error
		if src, err = os.MkdirTemp(templates.root, name+"-"); err != nil {
			t.Fatal(err)
		}
		build(src)
		templates.made[name] = src
	}
	dir := filepath.Join(t.TempDir(), "repo")
	if err := os.CopyFS(dir, os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
	return dir
}

// initCopy makes dir a repository as `git init -q .` run there with env
// does, without starting git: a copy of the .git folder of one such init,
// made once per test binary in an empty folder (git init writes the same
// files whatever the folder holds).
func initCopy(t *testing.T, dir string, env []string) {
	t.Helper()
	templates.Lock()
	defer templates.Unlock()
	src, ok := templates.made["init"]
	if !ok {
		var err error
		if src, err = os.MkdirTemp(templates.root, "init-"); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command("git", "init", "-q", ".")
		cmd.Dir, cmd.Env = src, env
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git init: %v\n%s", err, out)
		}
		templates.made["init"] = src
	}
	if err := os.CopyFS(filepath.Join(dir, ".git"), os.DirFS(filepath.Join(src, ".git"))); err != nil {
		t.Fatal(err)
	}
}
