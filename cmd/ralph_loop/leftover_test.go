//go:build linux

package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ralphloop/ralph_loop/internal/fakeagent"
	"github.com/ralphloop/ralph_loop/internal/ralphdir"
)

// TestKillLeavesNoSetsidHelper: a helper the agent moved to a session of
// its own is out of the group, yet dies with a loop killed with SIGKILL
// (the sentinel finds it by the call's token).
func TestKillLeavesNoSetsidHelper(t *testing.T) {
	t.Parallel()
	script := hangScript()
	script.Default.Setsid = true
	p := newLoopProject(t, 2, script)
	cmd, agent, child := startUntilAgent(t, p)
	defer syscall.Kill(child, syscall.SIGKILL)
	defer syscall.Kill(-agent, syscall.SIGKILL)
	var rec callRecord
	b, err := os.ReadFile(p.path(".ralph/" + ralphdir.AgentCall))
	if err != nil || json.Unmarshal(b, &rec) != nil || rec.Pid != agent {
		t.Errorf("the running call's record: %v %q, want pid %d", err, b, agent)
	}
	cmd.Process.Kill()
	cmd.Wait()
	if !waitFor(5*time.Second, func() bool { return processGone(agent) && processGone(child) }) {
		t.Errorf("5 s after ralph_loop was killed: agent gone %v, its setsid helper gone %v", processGone(agent), processGone(child))
	}
}

// callRecord is ralphdir.AgentCall's content; callTokenVar names the
// environment variable that carries a call's token.
type callRecord struct {
	Pid   int    `json:"pid"`
	Start uint64 `json:"start_ticks"`
	Token string `json:"token"`
}

const callTokenVar = "RALPH_LOOP_CALL"

// planted is a process the test starts as a dead loop's agent would be
// left: leading its own group in the project, with token in its
// environment ("" for none) and a child in the group without it.
type planted struct{ leader, child int }

func plant(t *testing.T, dir, token string) planted {
	t.Helper()
	pidFile := filepath.Join(t.TempDir(), "child.pid")
	// The child drops the token: only a kill of the group reaches it.
	cmd := exec.Command("sh", "-c", `env -u `+callTokenVar+` sleep 600 & echo $! > "$1"; wait`, "sh", pidFile)
	cmd.Dir = dir
	cmd.Env = []string{"PATH=" + os.Getenv("PATH")}
	if token != "" {
		cmd.Env = append(cmd.Env, token)
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go cmd.Wait() // reap it when it is stopped
	t.Cleanup(func() { syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) })
	if !waitFor(5*time.Second, func() bool { b, _ := os.ReadFile(pidFile); return bytes.HasSuffix(b, []byte("\n")) }) {
		t.Fatal("the planted process did not start its child")
	}
	return planted{leader: cmd.Process.Pid, child: readPid(t, pidFile)}
}

// deadPid is the pid of a process that has ended.
func deadPid(t *testing.T) int {
	t.Helper()
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	return cmd.Process.Pid
}

// startTicks is /proc/PID/stat field 22.
func startTicks(t *testing.T, pid int) uint64 {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	var n uint64
	fmt.Sscan(f[19], &n)
	return n
}

// TestLeftoverAgentAtStart: a loop that starts after one that died with its
// agent still running stops that agent and its group, and only when the
// record is proven: the recorded process must carry the recorded token of
// a loop that is gone, and started when recorded.
func TestLeftoverAgentAtStart(t *testing.T) {
	t.Parallel() // it waits on the processes it starts: the scenarios run meanwhile
	cases := []struct {
		name    string
		token   func(t *testing.T) string // in the planted process
		recTok  func(tok string) string   // in the record
		recOff  uint64                    // added to the start time recorded
		stopped bool
	}{
		{name: "dead loop's agent", stopped: true,
			token: func(t *testing.T) string { return fmt.Sprintf("%s=%d-1-1", callTokenVar, deadPid(t)) }},
		{name: "innocent process", token: func(*testing.T) string { return "" },
			recTok: func(string) string { return fmt.Sprintf("%s=%d-1-1", callTokenVar, 999999) }},
		{name: "other token", token: func(t *testing.T) string { return fmt.Sprintf("%s=%d-1-1", callTokenVar, deadPid(t)) },
			recTok: func(tok string) string { return tok + "0" }},
		{name: "live loop's agent", // the token names this test, which runs
			token: func(*testing.T) string { return fmt.Sprintf("%s=%d-1-1", callTokenVar, os.Getpid()) }},
		{name: "reused pid", recOff: 1, // the group goes untouched; the carrier is the dead loop's
			token: func(t *testing.T) string { return fmt.Sprintf("%s=%d-1-1", callTokenVar, deadPid(t)) }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p := newLoopProject(t, 1, tickScript())
			tok := tc.token(t)
			proc := plant(t, p.dir, tok)
			recTok := tok
			if tc.recTok != nil {
				recTok = tc.recTok(tok)
			}
			rec := callRecord{Pid: proc.leader, Start: startTicks(t, proc.leader) + tc.recOff, Token: recTok}
			b, _ := json.Marshal(rec)
			mustWrite(t, p.path(".ralph/"+ralphdir.AgentCall), string(b))

			cmd := p.command(t, nil)
			var out bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &out
			if err := cmd.Run(); err != nil {
				t.Fatalf("ralph_loop: %v\n%s", err, out.String())
			}
			said := strings.Contains(out.String(), "a previous run left running")
			if tc.name == "reused pid" {
				// Not the recorded leader, so its group is not signalled;
				// it carries a dead loop's token, so it is stopped itself.
				if !waitFor(5*time.Second, func() bool { return processGone(proc.leader) }) || !said {
					t.Errorf("the token carrier was not stopped\n%s", out.String())
				}
				if processGone(proc.child) {
					t.Errorf("the group of a process whose start time differs from the record was signalled")
				}
				return
			}
			// A leftover is stopped during the run's start-up, so by now it
			// has its signal: a stopped one is gone within moments, and one
			// that must stay is not waited for long.
			wait := 5 * time.Second
			if !tc.stopped {
				wait = 500 * time.Millisecond
			}
			gone := waitFor(wait, func() bool { return processGone(proc.leader) && processGone(proc.child) })
			if gone != tc.stopped || said != tc.stopped {
				t.Errorf("stopped = %v, said so = %v, want %v\n%s", gone, said, tc.stopped, out.String())
			}
			if !tc.stopped && (processGone(proc.leader) || processGone(proc.child)) {
				t.Errorf("a process that is not a leftover was touched")
			}
			if _, err := os.Stat(p.path(".ralph/" + ralphdir.AgentCall)); !os.IsNotExist(err) {
				t.Errorf("the record is still there after a run: %v", err)
			}
		})
	}
}

// TestLeftoverAfterLoopAndSentinelKilled: when the loop and its sentinel
// are killed together (pkill -9 ralph_loop), the agent still dies (its
// parent-death signal), its child in the group is re-parented and lives
// on, and the next loop stops that child before its first call.
func TestLeftoverAfterLoopAndSentinelKilled(t *testing.T) {
	t.Parallel()
	script := tickScript()
	script.Calls = map[int]fakeagent.Reply{1: hangScript().Default}
	p := newLoopProject(t, 1, script)
	cmd, agent, child := startUntilAgent(t, p)
	defer syscall.Kill(child, syscall.SIGKILL)
	sentinel := sentinelOf(t, p)
	syscall.Kill(sentinel, syscall.SIGKILL)
	cmd.Process.Kill()
	cmd.Wait()
	if !waitFor(5*time.Second, func() bool { return processGone(agent) && processGone(sentinel) }) {
		t.Fatalf("5 s after the kill: agent gone %v (its parent-death signal), sentinel gone %v", processGone(agent), processGone(sentinel))
	}
	if processGone(child) {
		t.Fatal("the agent's child died too: the test did not leave a leftover")
	}

	next := p.command(t, nil)
	var out bytes.Buffer
	next.Stdout, next.Stderr = &out, &out
	if err := next.Run(); err != nil {
		t.Fatalf("ralph_loop: %v\n%s", err, out.String())
	}
	if !strings.Contains(out.String(), "stopped 1 process(es) of the agent call a previous run left running") {
		t.Errorf("the next start did not say it stopped the leftover:\n%s", out.String())
	}
	if !waitFor(5*time.Second, func() bool { return processGone(child) }) {
		t.Errorf("the leftover child still runs after the next start")
	}
}

// sentinelOf is the pid of the sentinel of the loop running in p: a
// process started with the sentinel argument and p's environment.
func sentinelOf(t *testing.T, p *loopProject) int {
	t.Helper()
	var pid int
	ok := waitFor(5*time.Second, func() bool {
		ents, _ := os.ReadDir("/proc")
		for _, e := range ents {
			n, err := strconv.Atoi(e.Name())
			if err != nil {
				continue
			}
			argv, _ := os.ReadFile("/proc/" + e.Name() + "/cmdline")
			env, _ := os.ReadFile("/proc/" + e.Name() + "/environ")
			if bytes.Contains(argv, []byte("--ralph-loop-sentinel"+"\x00watch")) && bytes.Contains(env, []byte(fakeagent.EnvDir+"="+p.agent+"\x00")) {
				pid = n
				return true
			}
		}
		return false
	})
	if !ok {
		t.Fatal("no sentinel of the running loop found")
	}
	return pid
}
