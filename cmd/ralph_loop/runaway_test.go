//go:build linux

package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/ralphloop/ralph_loop/internal/fakeagent"
)

// These tests run the real program on agents that misbehave for hours:
// printing without end, daemonising helpers, a full disk, and stops that
// arrive while the loop is still starting.

// runLoopFor runs ralph_loop to its end (at most limit) and returns its
// exit code and console.
func runLoopFor(t *testing.T, cmd *exec.Cmd, limit time.Duration) (int, string) {
	t.Helper()
	code, console, _ := runLoopPeak(t, cmd, limit)
	return code, console
}

// runLoopPeak is runLoopFor that also returns the loop's own peak resident
// memory in KiB (0 if it could not be read).
func runLoopPeak(t *testing.T, cmd *exec.Cmd, limit time.Duration) (int, string, int64) {
	t.Helper()
	var console bytes.Buffer
	cmd.Stdout, cmd.Stderr = &console, &console
	cmd.WaitDelay = 5 * time.Second
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var peak atomic.Int64
	go watchPeakRSS(cmd.Process.Pid, &peak)
	timer := time.AfterFunc(limit, func() { cmd.Process.Kill() })
	defer timer.Stop()
	err := cmd.Wait()
	if errors.Is(err, exec.ErrWaitDelay) {
		t.Errorf("a process still held ralph_loop's stdout/stderr after it exited")
	}
	return cmd.ProcessState.ExitCode(), console.String(), peak.Load()
}

// outputLogs lists the agent output logs of the run.
func outputLogs(t *testing.T, p *loopProject) []string {
	t.Helper()
	logs, err := filepath.Glob(p.path(".ralph/logs/claude_output_*.log"))
	if err != nil {
		t.Fatal(err)
	}
	return logs
}

// TestRunawayOutputCap: an agent that prints without end is stopped at
// MAX_OUTPUT_MB, the call fails as output_too_large, its log keeps the head
// and the tail, live.log is bounded the same way, and the loop's memory
// stays flat.
func TestRunawayOutputCap(t *testing.T) {
	t.Parallel()
	p := newLoopProject(t, 2, fakeagent.Script{Default: fakeagent.Reply{Flood: fakeagent.FloodForever}})
	cmd := p.command(t, []string{"MAX_OUTPUT_MB=1", "MAX_CONSECUTIVE_FAILURES=1"})
	start := time.Now()
	code, console, peak := runLoopPeak(t, cmd, 60*time.Second)
	if code != 3 {
		t.Fatalf("exit code %d, want 3 (failure guard)\n%s", code, console)
	}
	if took := time.Since(start); took > 20*time.Second {
		t.Errorf("took %s to stop a 1 MB flood", took)
	}
	// The loop's own high-water mark: the rusage of a waited-for process
	// also counts its reaped children (here the fake agent, a copy of the
	// whole test binary, and git), which are not the loop's memory.
	if rss := peak; rss == 0 || rss > maxRSSKiB {
		t.Errorf("ralph_loop's peak RSS was %d KB, want under %d MB (0: not measured)", rss, maxRSSKiB>>10)
	}
	for _, want := range []string{"output too large", "MAX_OUTPUT_MB=1"} {
		if !strings.Contains(console, want) {
			t.Errorf("console lacks %q:\n%s", want, console)
		}
	}
	if strings.Contains(console, "completed successfully") {
		t.Errorf("console claims success:\n%s", console)
	}
	logs := outputLogs(t, p)
	if len(logs) != 1 {
		t.Fatalf("output logs %v, want one", logs)
	}
	b, err := os.ReadFile(logs[0])
	if err != nil {
		t.Fatal(err)
	}
	if len(b) < 1<<20 || len(b) > 1<<20+200 {
		t.Errorf("output log is %d bytes, want the 1 MB cap plus the omission line", len(b))
	}
	if !bytes.HasPrefix(b, []byte("flood line 0:")) || !bytes.Contains(b, []byte(" bytes omitted ...]\n")) {
		t.Errorf("output log lacks the head or the omission line: %.100q ... ", b)
	}
	if live, err := os.Stat(p.path(".ralph/live.log")); err != nil || live.Size() > 1<<20+300 {
		t.Errorf("live.log: %v, %d bytes, want at most the cap", err, live.Size())
	}
	metrics, _ := os.ReadFile(p.path(".ralph/logs/metrics.jsonl"))
	if !bytes.Contains(metrics, []byte("output_too_large")) {
		t.Errorf("metrics.jsonl does not record output_too_large:\n%s", metrics)
	}
	st := readJSONMap(t, p.path(".ralph/status.json"))
	if st["status"] == "running" {
		t.Errorf("status.json still says running: %v", st)
	}
	agent := readPid(t, filepath.Join(p.agent, "calls", "1.started"))
	if !waitFor(time.Second, func() bool { return processGone(agent) }) {
		syscall.Kill(agent, syscall.SIGKILL)
		t.Errorf("the flooding agent (pid %d) survived", agent)
	}
}

// TestRunawaySetsidGrandchild: an agent's helper that left the process
// group with setsid is gone once the call ends (Linux: the loop is a child
// subreaper and finds the helper by its environment).
func TestRunawaySetsidGrandchild(t *testing.T) {
	t.Parallel()
	reply := tickScript().Default
	reply.Child, reply.Setsid = true, true
	p := newLoopProject(t, 3, fakeagent.Script{Default: reply})
	start := time.Now()
	code, console := runLoopFor(t, p.command(t, nil, "--max-loops", "1"), 30*time.Second)
	if code != 4 {
		t.Fatalf("exit code %d, want 4 (--max-loops)\n%s", code, console)
	}
	if took := time.Since(start); took > 10*time.Second {
		t.Errorf("took %s: the loop waited for the helper holding the agent's output", took)
	}
	child := readPid(t, filepath.Join(p.agent, "calls", "1.child.pid"))
	if !waitFor(time.Second, func() bool { return processGone(child) }) {
		syscall.Kill(child, syscall.SIGKILL)
		t.Errorf("the agent's setsid helper (pid %d) survived the loop", child)
	}
}

// TestRunawayStopDuringStartup: SIGTERM while start-up is blocked reading
// a state file (a FIFO nobody writes) exits 143 within 2 s, releases the
// lock and leaves status.json stopped.
func TestRunawayStopDuringStartup(t *testing.T) {
	t.Parallel()
	p := newLoopProject(t, 2, hangScript())
	if err := syscall.Mkfifo(p.path(".ralph/.call_count"), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := p.command(t, nil)
	var console bytes.Buffer
	cmd.Stdout, cmd.Stderr = &console, &console
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// The session file is written just before the call counter is read.
	if !waitFor(20*time.Second, func() bool { _, err := os.Stat(p.path(".ralph/.ralph_session")); return err == nil }) {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("start-up did not reach the session file\n%s", console.String())
	}
	sent := time.Now()
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		cmd.Process.Kill()
		<-done
		t.Fatalf("SIGTERM did not stop a blocked start-up\n%s", console.String())
	}
	if took := time.Since(sent); took > 2*time.Second {
		t.Errorf("took %s to exit after SIGTERM, want <= 2s", took.Round(time.Millisecond))
	}
	if code := cmd.ProcessState.ExitCode(); code != 143 {
		t.Errorf("exit code %d, want 143\n%s", code, console.String())
	}
	if !lockFree(t, p) {
		t.Errorf("the lock is still held")
	}
	st := readJSONMap(t, p.path(".ralph/status.json"))
	if st["status"] != "stopped" || st["exit_reason"] != "SIGTERM" {
		t.Errorf("status.json = %v, want stopped by SIGTERM", st)
	}
	// The stop is worded once: the last console line and run_finished's
	// message say the same.
	if !strings.HasSuffix(console.String(), "\nralph_loop: stopped by SIGTERM\n") {
		t.Errorf("console does not end with the stop line:\n%s", console.String())
	}
	evs, _ := os.ReadFile(p.path(".ralph/logs/events.jsonl"))
	if !bytes.Contains(evs, []byte(`"type":"run_finished"`)) || !bytes.Contains(evs, []byte(`"message":"stopped by SIGTERM"}`)) {
		t.Errorf("events.jsonl lacks run_finished with the stop's message:\n%s", evs)
	}
}

// mountTmpfs mounts a tmpfs of size bytes on dir, or skips the test when
// that is not allowed (not root, no mount namespace rights).
func mountTmpfs(t *testing.T, dir string, size int64) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("mounting a tmpfs needs root")
	}
	if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, "size="+strconv.FormatInt(size, 10)); err != nil {
		t.Skipf("cannot mount a tmpfs on %s: %v", dir, err)
	}
	t.Cleanup(func() {
		if err := syscall.Unmount(dir, syscall.MNT_DETACH); err != nil {
			t.Errorf("unmount %s: %v", dir, err)
		}
	})
}

// ralphOnTmpfs moves the project's .ralph/ onto a tmpfs of size bytes.
func ralphOnTmpfs(t *testing.T, p *loopProject, size int64) {
	t.Helper()
	keep := t.TempDir()
	src := p.path(".ralph")
	if err := os.CopyFS(keep, os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
	mountTmpfs(t, src, size)
	if err := os.CopyFS(src, os.DirFS(keep)); err != nil {
		t.Fatal(err)
	}
}

// fill takes all but free bytes of the filesystem holding dir.
func fill(t *testing.T, dir string, free int64) {
	t.Helper()
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		t.Fatal(err)
	}
	avail := int64(st.Bavail) * st.Bsize
	if avail <= free {
		return
	}
	if err := os.WriteFile(filepath.Join(dir, "ballast"), make([]byte, avail-free), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestRunawayFullDisk: on a full disk (a tiny tmpfs under .ralph/) the
// agent's output cannot be stored: the console says so in one line, no
// call is reported as a success, the failure guard stops the run with
// exit 3 and reason disk_full.
func TestRunawayFullDisk(t *testing.T) {
	t.Parallel()
	reply := tickScript().Default
	reply.Flood = 512 << 10
	p := newLoopProject(t, 3, fakeagent.Script{Default: reply})
	ralphOnTmpfs(t, p, 2<<20)
	fill(t, p.path(".ralph"), 96<<10)
	code, console := runLoopFor(t, p.command(t, []string{"MAX_CONSECUTIVE_FAILURES=2"}), 60*time.Second)
	if code != 3 {
		t.Fatalf("exit code %d, want 3\n%s", code, console)
	}
	if strings.Contains(console, "completed successfully") {
		t.Errorf("console claims success:\n%s", console)
	}
	if !strings.Contains(console, "Agent output could not be stored") || !strings.Contains(console, "no space left on device") || !strings.Contains(console, "free disk space") {
		t.Errorf("console does not say the output could not be stored on a full disk:\n%s", console)
	}
	st := readJSONMap(t, p.path(".ralph/status.json"))
	if st["status"] == "running" || st["exit_reason"] != "disk_full" {
		t.Errorf("status.json = %v, want the run ended with exit_reason disk_full\nconsole:\n%s", st, console)
	}
}

// TestRunawayReadOnlyRalph: a read-only .ralph/ whose folders all exist
// stops the loop at start-up with one line, before any agent call.
func TestRunawayReadOnlyRalph(t *testing.T) {
	t.Parallel()
	p := newLoopProject(t, 3, tickScript())
	ralphOnTmpfs(t, p, 4<<20)
	for _, d := range []string{"logs", "docs/generated", "specs"} {
		os.MkdirAll(p.path(filepath.Join(".ralph", d)), 0o755)
	}
	if err := syscall.Mount("", p.path(".ralph"), "", syscall.MS_REMOUNT|syscall.MS_RDONLY, ""); err != nil {
		t.Skipf("cannot remount read-only: %v", err)
	}
	code, console := runLoopFor(t, p.command(t, nil), 30*time.Second)
	if code != 1 {
		t.Fatalf("exit code %d, want 1\n%s", code, console)
	}
	if !strings.Contains(console, "read-only file system") || strings.Count(strings.TrimSpace(console), "\n") > 1 {
		t.Errorf("want one line naming the read-only folder, got:\n%s", console)
	}
	if n, _ := fakeagent.Count(p.agent); n != 0 {
		t.Errorf("%d agent calls, want none", n)
	}
}

// watchPeakRSS follows /proc/PID/status until the process is gone and keeps
// its high-water mark of resident memory (VmHWM, which only grows) in peak,
// read every millisecond, so at most the last millisecond's growth is missed.
func watchPeakRSS(pid int, peak *atomic.Int64) {
	path := "/proc/" + strconv.Itoa(pid) + "/status"
	for {
		b, err := os.ReadFile(path)
		if err != nil {
			return
		}
		for _, line := range strings.Split(string(b), "\n") {
			if f := strings.Fields(line); len(f) >= 2 && f[0] == "VmHWM:" {
				if kb, err := strconv.ParseInt(f[1], 10, 64); err == nil && kb > peak.Load() {
					peak.Store(kb)
				}
			}
		}
		time.Sleep(time.Millisecond)
	}
}
