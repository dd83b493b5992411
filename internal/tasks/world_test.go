package tasks

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ralphloop/ralph_loop/internal/events"
	"github.com/ralphloop/ralph_loop/internal/faketracker"
	"github.com/ralphloop/ralph_loop/internal/ralphdir"
	"github.com/ralphloop/ralph_loop/internal/supervise"
)

// TestMain removes the fake trackers' program once the tests are done.
// The test binary doubles as bd and gh only where that program could not
// be built (see fakeTracker).
func TestMain(m *testing.M) {
	switch filepath.Base(os.Args[0]) {
	case "bd", "gh":
		faketracker.Main()
	}
	code := m.Run()
	if fakeTrackerDir != "" {
		os.RemoveAll(fakeTrackerDir)
	}
	os.Exit(code)
}

// fakeTrackerDir holds the built fake trackers' program, if any.
var fakeTrackerDir string

// fakeTracker is the program every world links as bd and gh: the
// internal/faketracker/cmd/faketracker command, built once per test binary
// at the first world. A separate small program rather than this test
// binary re-executed: the tests start a tracker 112 times, and a start of
// this binary cost about 30 ms of CPU on a 2-core test machine, one of
// that program about 18 (docs/PERFORMANCE.md). It asks go run for the
// program and copies it (go run -exec cp PKG BIN): go run keeps what it
// links in the build cache, so an unchanged
// program is not linked again on the next run (go test puts its own go
// command first on PATH). Where it cannot be built, the fake is this test
// binary under the tracker's name, as TestMain answers.
var fakeTracker = sync.OnceValue(func() string {
	exe, err := os.Executable()
	if err != nil {
		panic(err)
	}
	dir, err := os.MkdirTemp("", "tasks-faketracker-")
	if err != nil {
		panic(err)
	}
	fakeTrackerDir = dir
	bin := filepath.Join(dir, "faketracker")
	cmd := exec.Command("go", "run", "-exec", "cp", "github.com/ralphloop/ralph_loop/internal/faketracker/cmd/faketracker", bin)
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "the fake trackers are the test binary: go run -exec cp faketracker: %v\n%s", err, out)
		return exe
	}
	return bin
})

// world is a project and the fake trackers it talks to.
type world struct {
	t       *testing.T
	project string
	bin     string
	state   string
	log     string
}

func newWorld(t *testing.T, st faketracker.State) *world {
	t.Helper()
	root := t.TempDir()
	w := &world{t: t, project: filepath.Join(root, "project"), bin: filepath.Join(root, "bin"),
		state: filepath.Join(root, "state.json"), log: filepath.Join(root, "calls.log")}
	exe := fakeTracker()
	for _, d := range []string{w.bin, filepath.Join(w.project, ".ralph")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, name := range []string{"bd", "gh"} {
		if err := os.Symlink(exe, filepath.Join(w.bin, name)); err != nil {
			t.Fatal(err)
		}
	}
	w.setState(st)
	return w
}

// another is a second project (a swarm worker's worktree) on the same
// trackers.
func (w *world) another() *world {
	w2 := *w
	w2.project = filepath.Join(filepath.Dir(w.project), "project2")
	w2.log = filepath.Join(filepath.Dir(w.project), "calls2.log")
	if err := os.MkdirAll(filepath.Join(w2.project, ".ralph"), 0o755); err != nil {
		w.t.Fatal(err)
	}
	return &w2
}

func (w *world) setState(st faketracker.State) {
	b, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		w.t.Fatal(err)
	}
	if err := os.WriteFile(w.state, b, 0o644); err != nil {
		w.t.Fatal(err)
	}
}

func (w *world) getState() faketracker.State {
	var st faketracker.State
	b, err := os.ReadFile(w.state)
	if err == nil {
		err = json.Unmarshal(b, &st)
	}
	if err != nil {
		w.t.Fatal(err)
	}
	return st
}

func (w *world) change(f func(*faketracker.State)) {
	st := w.getState()
	f(&st)
	w.setState(st)
}

// options are a tracker's options in this world: the fake CLIs by their
// path, the state and log in the environment.
func (w *world) options(sources ...string) Options {
	return Options{
		Sources: sources, Label: "ralph-task", Timeout: 20 * time.Second, Project: w.project,
		Dir: ralphdir.New(filepath.Join(w.project, ".ralph"), func(msg string) { w.t.Log(msg) }),
		Env: []string{faketracker.EnvState + "=" + w.state, faketracker.EnvLog + "=" + w.log, "HOME=" + w.project, "PATH=" + w.bin},
		Run: func(ctx context.Context, c supervise.Command, o supervise.Options) supervise.Outcome {
			c.Argv = append([]string{filepath.Join(w.bin, c.Argv[0])}, c.Argv[1:]...)
			return supervise.Run(ctx, c, o)
		},
	}
}

func (w *world) tracker(o Options) *Tracker {
	w.t.Helper()
	tr, warns := New(o)
	if len(warns) > 0 || tr == nil {
		w.t.Fatalf("New: %v %v", tr, warns)
	}
	return tr
}

func (w *world) writePlan(s string) {
	if err := os.WriteFile(filepath.Join(w.project, ".ralph", "@fix_plan.md"), []byte(s), 0o644); err != nil {
		w.t.Fatal(err)
	}
}

func (w *world) plan() string {
	b, err := os.ReadFile(filepath.Join(w.project, ".ralph", "@fix_plan.md"))
	if err != nil {
		w.t.Fatal(err)
	}
	return string(b)
}

// tick ticks key's line, as an agent does.
func (w *world) tick(key string) {
	p := w.plan()
	q := strings.Replace(p, "- [ ] ["+key+"]", "- [x] ["+key+"]", 1)
	if p == q {
		w.t.Fatalf("no open line for %s in\n%s", key, p)
	}
	w.writePlan(q)
}

// calls are the command lines the fakes got, and forgets them.
func (w *world) calls() [][]string {
	w.t.Helper()
	f, err := os.Open(w.log)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		w.t.Fatal(err)
	}
	defer f.Close()
	var out [][]string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var argv []string
		if err := json.Unmarshal(sc.Bytes(), &argv); err != nil {
			w.t.Fatal(err)
		}
		out = append(out, argv)
	}
	_ = os.Remove(w.log)
	return out
}

// kinds are the kinds of ns, in order.
func kinds(ns []events.Task) []events.Type {
	var out []events.Type
	for _, n := range ns {
		out = append(out, n.Kind)
	}
	return out
}

func bead(id, title string) faketracker.Bead {
	return faketracker.Bead{ID: id, Title: title, Status: "open", Priority: 2, IssueType: "task"}
}
