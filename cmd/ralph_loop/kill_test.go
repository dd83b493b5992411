//go:build unix

package main

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gofrs/flock"

	"github.com/ralphloop/ralph_loop/internal/fakeagent"
)

// killsEnv sets how many SIGKILLs TestKillAnyMoment delivers: a few by
// default, so that go test ./... stays quick, and many in CI (CI=true),
// where each run tries 50 more moments. RALPH_KILL_TEST_SEED replays a run.
const (
	killsEnv     = "RALPH_KILL_TEST_KILLS"
	killSeedEnv  = "RALPH_KILL_TEST_SEED"
	defaultKills = 5
	ciKills      = 50
)

// jsonStateFiles are the .ralph/ files that hold one JSON document each
// (the state files the bash loop and bmalph read). Absent files
// are fine; present ones must parse, whenever the loop was killed.
var jsonStateFiles = []string{
	"status.json",
	"progress.json",
	".circuit_breaker_state",
	".circuit_breaker_history",
	".ralph_session",
	".ralph_session_history",
	".exit_signals",
	".response_analysis",
	".quality_gate_results",
	".review_findings.json",
}

// jsonLineFiles are append-only JSON Lines logs: every line, including the
// last, must be a whole JSON object ending in a newline.
var jsonLineFiles = []string{"logs/metrics.jsonl", "logs/events.jsonl"}

// TestKillAnyMoment kills ralph_loop with SIGKILL at random moments of
// multi-loop runs in one project (each run continues from what the last
// kill left) and checks after every kill that each JSON file under .ralph/
// parses and each JSON Lines log holds only whole lines. A final run must
// then finish the plan from that state.
func TestKillAnyMoment(t *testing.T) {
	t.Parallel() // it waits on the processes it starts: the scenarios run meanwhile
	kills := defaultKills
	if inCI() {
		kills = ciKills
	}
	if v := os.Getenv(killsEnv); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			t.Fatalf("%s=%q: want a positive number of kills", killsEnv, v)
		}
		kills = n
	}
	seed := uint64(time.Now().UnixNano())
	if v := os.Getenv(killSeedEnv); v != "" {
		s, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			t.Fatalf("%s=%q: want an unsigned integer", killSeedEnv, v)
		}
		seed = s
	}
	t.Logf("%d kills, seed %d (replay with %s=%d)", kills, seed, killSeedEnv, seed)
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))

	const tasks = 3 // multi-loop runs; kills fall anywhere in one (its span is measured)
	p := newLoopProject(t, tasks, tickScript())
	// A quality gate adds .quality_gate_results and one more child per loop;
	// the call budget must not run out over many runs in one hour.
	env := []string{"TEST_COMMAND=true", "MAX_CALLS_PER_HOUR=100000"}

	// One undisturbed run measures how long a whole run takes; kills are
	// spread over that span (and a little beyond, to catch the exit path).
	full := runToEnd(t, p, env)
	checkState(t, p, "after the undisturbed run")
	span := full + full/4
	t.Logf("undisturbed run of %d loops: %s", tasks, full.Round(time.Millisecond))

	var killed, finished int
	for i := range kills {
		if planDone(t, p) {
			p.writePlan(t, tasks)
		}
		cmd := p.command(t, env)
		var stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stderr, &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		at := time.Duration(rng.Int64N(int64(span)))
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
			finished++
		case <-time.After(at):
			_ = syscall.Kill(cmd.Process.Pid, syscall.SIGKILL)
			<-done
			killed++
		}
		if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok && !ws.Signaled() && ws.ExitStatus() != 0 {
			t.Errorf("kill %d: the run after a kill failed (%v)\n%s", i, cmd.ProcessState, stderr.String())
		}
		when := "kill " + strconv.Itoa(i) + " at " + at.Round(time.Microsecond).String()
		checkState(t, p, when)
		// A child caught between fork and exec holds a copy of the lock's
		// descriptor for a few milliseconds; nothing may hold it longer.
		if !waitFor(2*time.Second, func() bool { return lockFree(t, p) }) {
			t.Errorf("%s: .ralph/logs/.ralph_loop.lock is still held 2 s after the kill", when)
		}
		if t.Failed() {
			t.FailNow()
		}
	}
	t.Logf("%d runs killed, %d finished before their kill", killed, finished)
	if killed == 0 {
		t.Errorf("no run was killed: the kill moments never fell inside a run")
	}

	// Whatever the kills left, the loop can carry on and finish the plan.
	// The sentinels stop the agents the kills orphaned; let them be gone
	// (an agent still running would tick the new plan).
	if !waitFor(5*time.Second, func() bool { return len(processesOf(p)) == 0 }) {
		t.Errorf("5 s after the last kill, processes of the project still run: %v", processesOf(p))
	}
	p.writePlan(t, tasks)
	runToEnd(t, p, env)
	checkState(t, p, "after the final run")
	st := readJSONMap(t, p.path(".ralph/status.json"))
	if st["status"] != "completed" {
		t.Errorf("final run: status.json status = %v, want completed", st["status"])
	}
	if tmp := leftoverTemps(t, p); len(tmp) > 0 {
		t.Logf("temp files left by killed atomic writes: %d (e.g. %s)", len(tmp), tmp[0])
	}
}

// TestKillDuringAgentCall: a loop killed with SIGKILL while its agent runs
// takes the agent and the helper it started in its group along (the
// sentinel kills the group; on Linux the agent also has a parent-death
// signal), and the agent, which inherits no descriptor of the lock, leaves
// the project unlocked.
func TestKillDuringAgentCall(t *testing.T) {
	t.Parallel()
	p := newLoopProject(t, 2, hangScript())
	cmd, agent, child := startUntilAgent(t, p)
	defer syscall.Kill(-agent, syscall.SIGKILL) // should the test fail
	cmd.Process.Kill()
	cmd.Wait()
	checkState(t, p, "after the kill")
	if !waitFor(5*time.Second, func() bool { return processGone(agent) && processGone(child) }) {
		t.Errorf("5 s after ralph_loop was killed: agent gone %v, its child gone %v", processGone(agent), processGone(child))
	}
	if !waitFor(2*time.Second, func() bool { return lockFree(t, p) }) {
		t.Errorf("the lock is still held after the loop was killed")
	}
}

// startUntilAgent starts ralph_loop in p and returns once its first call's
// agent, whose script leaves a child, has started: the loop and the pids
// of the agent and its child.
func startUntilAgent(t *testing.T, p *loopProject) (cmd *exec.Cmd, agent, child int) {
	t.Helper()
	cmd = p.command(t, nil)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	started := filepath.Join(p.agent, "calls", "1.started")
	if !waitFor(20*time.Second, func() bool { _, err := os.Stat(started); return err == nil }) {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("the agent was not started within 20 s\n%s", out.String())
	}
	return cmd, readPid(t, started), readPid(t, filepath.Join(p.agent, "calls", "1.child.pid"))
}

// processesOf lists the live processes whose environment names p's fake
// agent directory: its loops, their sentinels and its agents.
func processesOf(p *loopProject) []int {
	var pids []int
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		n, err := strconv.Atoi(e.Name())
		if err != nil || n == os.Getpid() {
			continue
		}
		env, _ := os.ReadFile("/proc/" + e.Name() + "/environ")
		if bytes.Contains(env, []byte("\x00"+fakeagent.EnvDir+"="+p.agent+"\x00")) && !processGone(n) {
			pids = append(pids, n)
		}
	}
	return pids
}

// lockFree reports whether the project's single-instance lock can be taken.
func lockFree(t *testing.T, p *loopProject) bool {
	t.Helper()
	fl := flock.New(p.path(".ralph/logs/.ralph_loop.lock"))
	ok, err := fl.TryLock()
	if err != nil {
		t.Fatalf("lock probe: %v", err)
	}
	if ok {
		fl.Unlock()
	}
	return ok
}

// runToEnd runs ralph_loop until it exits 0 and returns how long it took.
func runToEnd(t *testing.T, p *loopProject, env []string) time.Duration {
	t.Helper()
	cmd := p.command(t, env)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	start := time.Now()
	if err := cmd.Run(); err != nil {
		t.Fatalf("ralph_loop: %v\n%s", err, out.String())
	}
	return time.Since(start)
}

func planDone(t *testing.T, p *loopProject) bool {
	t.Helper()
	b, err := os.ReadFile(p.path(".ralph/@fix_plan.md"))
	if err != nil {
		return true
	}
	return !strings.Contains(string(b), "- [ ]")
}

// checkState fails t for any JSON state file that does not parse and any
// JSON Lines log with a partial or invalid line.
func checkState(t *testing.T, p *loopProject, when string) {
	t.Helper()
	for _, name := range jsonStateFiles {
		path := p.path(filepath.Join(".ralph", name))
		b, err := os.ReadFile(path)
		if os.IsNotExist(err) {
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", when, err)
			continue
		}
		if !json.Valid(b) {
			t.Errorf("%s: .ralph/%s is not valid JSON (%d bytes): %.200q", when, name, len(b), b)
		}
	}
	for _, name := range jsonLineFiles {
		b, err := os.ReadFile(p.path(filepath.Join(".ralph", name)))
		if os.IsNotExist(err) {
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", when, err)
			continue
		}
		if len(b) > 0 && b[len(b)-1] != '\n' {
			t.Errorf("%s: .ralph/%s ends in a partial line: %.200q", when, name, b[bytes.LastIndexByte(b, '\n')+1:])
		}
		for i, line := range bytes.Split(bytes.TrimSuffix(b, []byte("\n")), []byte("\n")) {
			if len(b) == 0 {
				break
			}
			if !json.Valid(line) {
				t.Errorf("%s: .ralph/%s line %d is not valid JSON: %.200q", when, name, i+1, line)
			}
		}
	}
}

// leftoverTemps lists temp files of atomic writes that a kill interrupted.
func leftoverTemps(t *testing.T, p *loopProject) []string {
	t.Helper()
	var out []string
	filepath.WalkDir(p.path(".ralph"), func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.Contains(d.Name(), ".tmp-") {
			out = append(out, path)
		}
		return nil
	})
	return out
}
