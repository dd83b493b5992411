//go:build unix

package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"
)

// The demo's tests run examples/demo/run.sh end to end against this test
// binary as ralph_loop (TestMain's copy on PATH), so the demo (project,
// agent.sh, run.sh) cannot rot, and check that the copy of the demo in
// the scenario testdata/script/driver_demo.txtar matches its files.

// demoDir is the demo project, beside run.sh.
const demoDir = "../../examples/demo"

// demoRalphLoop is the ralph_loop run.sh is given: this test binary.
func demoRalphLoop(t *testing.T) string {
	t.Helper()
	p, err := exec.LookPath("ralph_loop")
	if err != nil {
		t.Fatalf("ralph_loop is not on PATH (TestMain registers it): %v", err)
	}
	return p
}

type demoRun struct {
	rc     int
	out    string // stdout and stderr, interleaved
	proj   string // the temporary project run.sh made
	status map[string]any
}

// runDemo runs run.sh with no delays; extra are KEY=VALUE settings.
func runDemo(t *testing.T, extra ...string) demoRun {
	t.Helper()
	tmp := t.TempDir()
	var env []string
	for _, kv := range os.Environ() {
		// The caller's git and agent settings must not leak in.
		if strings.HasPrefix(kv, "GIT_") || strings.HasPrefix(kv, "RALPH_") || strings.HasPrefix(kv, "DEMO_") ||
			strings.HasPrefix(kv, "LOOP_DELAY=") || strings.HasPrefix(kv, "HOME=") || strings.HasPrefix(kv, "TMPDIR=") {
			continue
		}
		env = append(env, kv)
	}
	env = append(env, "HOME="+tmp, "TMPDIR="+tmp, "RALPH_LOOP="+demoRalphLoop(t), "GORACE=atexit_sleep_ms=0",
		"LOOP_DELAY=0", "DEMO_AGENT_DELAY=0",
		"PLATFORM_DRIVER=codex", "AGENT_COMMAND=false") // run.sh must ignore these
	env = append(env, extra...)
	cmd := exec.Command("sh", "run.sh")
	cmd.Dir, cmd.Env = demoDir, env
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	r := demoRun{out: out.String()}
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		r.rc = ee.ExitCode()
	case err != nil:
		t.Fatalf("run.sh: %v", err)
	}
	if m := regexp.MustCompile(`run\.sh: demo project in (\S+)`).FindStringSubmatch(r.out); m != nil {
		r.proj = m[1]
		if b, err := os.ReadFile(filepath.Join(r.proj, ".ralph", "status.json")); err == nil {
			if err := json.Unmarshal(b, &r.status); err != nil {
				t.Fatalf("status.json: %v\n%s", err, b)
			}
		}
	}
	return r
}

func TestDemoRun(t *testing.T) {
	tests := []struct {
		name       string
		env        []string
		rc         int
		status     map[string]any
		breaker    string
		checked    int      // ticked boxes in the plan afterwards
		commits    int      // git commits afterwards
		files      []string // project files afterwards
		noFiles    []string
		outputHave []string
	}{
		{
			name:    "completes the plan",
			rc:      0,
			status:  map[string]any{"status": "completed", "exit_reason": "plan_complete", "loop_count": 4.0, "tasks_completed": 4.0, "tasks_total": 4.0},
			breaker: "CLOSED",
			checked: 4,
			commits: 5,
			files:   []string{"greet.sh", "test.sh", "USAGE.md"},
			noFiles: []string{"run.sh", "README.md", "NOTES.md"},
			outputHave: []string{
				"Ralph loop starting with Agent command",
				// the loop context, as the agent received it on stdin (--live shows it)
				"  | Loop #1. Remaining tasks: 4. Next: - [ ] Create greet.sh",
				"  | Loop #2. Remaining tasks: 3. Next: - [ ] Let greet.sh take a name",
				"Previous: Summary: task 1 done (greet.sh), 3 left.",
				"Changed: .ralph/@fix_plan.md",
				"TESTS_STATUS: PASSING",
				"EXIT_SIGNAL: true",
				"Summary:          task 4 done (USAGE.md), 0 left.",
				"Ralph has completed the project",
				"State:                 ✅ CLOSED",
				"test.sh: 2 checks passed",
			},
		},
		{
			name:       "a stuck agent trips the breaker",
			env:        []string{"DEMO_AGENT_STUCK=1"},
			rc:         2,
			status:     map[string]any{"status": "halted", "exit_reason": "stagnation_detected", "loop_count": 3.0, "tasks_completed": 0.0},
			breaker:    "OPEN",
			checked:    0,
			commits:    1,
			noFiles:    []string{"greet.sh"},
			outputHave: []string{"CIRCUIT BREAKER OPENED", "State:                 🚨 OPEN", "ralph_loop exited with 2"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel() // each run has its own project, HOME and TMPDIR
			r := runDemo(t, tt.env...)
			if r.rc != tt.rc {
				t.Errorf("run.sh exit code = %d, want %d", r.rc, tt.rc)
			}
			if r.proj == "" {
				t.Fatalf("run.sh did not say where the project is:\n%s", r.out)
			}
			for k, want := range tt.status {
				if got := r.status[k]; got != want {
					t.Errorf("status.json %s = %v, want %v", k, got, want)
				}
			}
			checkProject(t, r.proj, tt.breaker, tt.checked, tt.commits)
			checkFiles(t, r.proj, tt.files, tt.noFiles)
			for _, s := range tt.outputHave {
				if !strings.Contains(r.out, s) {
					t.Errorf("output lacks %q", s)
				}
			}
			if t.Failed() {
				t.Logf("output:\n%s", r.out)
			}
		})
	}
}

// checkProject checks the demo project after a run: the breaker's state,
// how many of the plan's four boxes are ticked, and how many commits it has.
func checkProject(t *testing.T, proj, breaker string, checked, commits int) {
	t.Helper()
	var cb struct{ State string }
	if b, err := os.ReadFile(filepath.Join(proj, ".ralph", ".circuit_breaker_state")); err != nil {
		t.Error(err)
	} else if err := json.Unmarshal(b, &cb); err != nil || cb.State != breaker {
		t.Errorf(".circuit_breaker_state state = %q (%v), want %q", cb.State, err, breaker)
	}
	plan, err := os.ReadFile(filepath.Join(proj, ".ralph", "@fix_plan.md"))
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Count(string(plan), "- [x]"); got != checked {
		t.Errorf("checked tasks = %d, want %d:\n%s", got, checked, plan)
	}
	if got := strings.Count(string(plan), "- [ ]"); got != 4-checked {
		t.Errorf("unchecked tasks = %d, want %d:\n%s", got, 4-checked, plan)
	}
	log, err := exec.Command("git", "-C", proj, "rev-list", "--count", "HEAD").Output()
	if err != nil {
		t.Fatalf("git rev-list: %v", err)
	}
	if got := strings.TrimSpace(string(log)); got != strconv.Itoa(commits) {
		t.Errorf("commits = %s, want %d", got, commits)
	}
}

// checkFiles checks that the project has files and lacks noFiles.
func checkFiles(t *testing.T, proj string, files, noFiles []string) {
	t.Helper()
	for _, f := range files {
		if _, err := os.Stat(filepath.Join(proj, f)); err != nil {
			t.Errorf("project file %s: %v", f, err)
		}
	}
	for _, f := range noFiles {
		if _, err := os.Stat(filepath.Join(proj, f)); err == nil {
			t.Errorf("project file %s exists, want none", f)
		}
	}
}

func TestDemoRunWithoutBinary(t *testing.T) {
	t.Parallel()
	r := runDemo(t, "RALPH_LOOP="+filepath.Join(t.TempDir(), "missing"))
	if r.rc != 127 || !strings.Contains(r.out, "is not an executable file") || r.proj != "" {
		t.Errorf("rc = %d, output:\n%s", r.rc, r.out)
	}
}

// TestDemoScenarioCopy: driver_demo.txtar carries the demo project byte for byte.
func TestDemoScenarioCopy(t *testing.T) {
	t.Parallel()
	const scenario = "testdata/script/driver_demo.txtar"
	a, err := txtar.ParseFile(scenario)
	if err != nil {
		t.Fatal(err)
	}
	inScenario := map[string][]byte{}
	for _, f := range a.Files {
		inScenario[f.Name] = f.Data
	}
	var n int
	err = filepath.WalkDir(demoDir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		p, err = filepath.Rel(demoDir, p)
		if err != nil {
			return err
		}
		switch p {
		case "run.sh", "README.md":
			return nil
		}
		n++
		want, err := os.ReadFile(filepath.Join(demoDir, p))
		if err != nil {
			return err
		}
		got, ok := inScenario[filepath.ToSlash(p)]
		switch {
		case !ok:
			t.Errorf("%s: no copy of examples/demo/%s (add it as -- %s --)", scenario, p, p)
		case !bytes.Equal(got, want):
			t.Errorf("%s: its copy of examples/demo/%s differs; copy the file into the scenario again", scenario, p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n < 5 {
		t.Errorf("walked %d demo files, want at least 5 (agent.sh, .gitignore, .ralph/...)", n)
	}
}
