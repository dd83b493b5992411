//go:build linux

package main

import (
	"bytes"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/ralphloop/ralph_loop/internal/dashboard"
	"github.com/ralphloop/ralph_loop/internal/ralphdir"
)

// TestStopSignalsTheLockHolderNotThePidInTheFile: the lock file's pid is
// the project's to rewrite. With a sleep's pid written into it, --serve's
// stop reaches the loop that holds the lock; the sleep lives.
func TestStopSignalsTheLockHolderNotThePidInTheFile(t *testing.T) {
	t.Parallel()
	p := newLoopProject(t, 5, tickScript())
	var console bytes.Buffer
	loop := startLoop(t, p, []string{"LOOP_DELAY=1h", "MAX_LOOPS=4"}, &console)
	if !waitFor(20*time.Second, func() bool {
		ev, _ := os.ReadFile(p.path(".ralph/logs/events.jsonl"))
		return bytes.Contains(ev, []byte("delay_started"))
	}) {
		t.Fatalf("loop 1 never finished\n%s", console.String())
	}
	victim := exec.Command("sleep", "300")
	if err := victim.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { victim.Process.Kill(); victim.Wait() }()
	// Rewritten in place, as an agent in the project can.
	if err := os.WriteFile(p.path(filepath.Join(".ralph", ralphdir.LockFile)), []byte(strconv.Itoa(victim.Process.Pid)+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}

	addr := freeAddr(t)
	var served bytes.Buffer
	startLoop(t, p, []string{"SERVE_CONTROL=true", "SERVE_TOKEN=" + testToken}, &served, "--serve", addr)
	if !waitFor(20*time.Second, func() bool { return snapshotOf(addr) != nil }) {
		t.Fatalf("--serve never answered\n%s", served.String())
	}
	if code, body := post(t, addr, "stop", testToken); code != 200 {
		t.Fatalf("stop: %d %s", code, body)
	}
	if code, ok := loop.exit(20 * time.Second); code != 143 || !ok {
		t.Errorf("the loop holding the lock: exited %v with %d, want 143 (stopped by the control)\n%s", ok, code, console.String())
	}
	if processGone(victim.Process.Pid) {
		t.Errorf("the process whose pid was written into the lock file was killed")
	}
}

// TestRalphrcCannotServeTheNetwork: a cloned project's .ralphrc asks for
// the dashboard on every interface with a token and controls; --serve
// says it ignores each, in one line each, and binds loopback only.
func TestRalphrcCannotServeTheNetwork(t *testing.T) {
	t.Parallel()
	p := newLoopProject(t, 1, tickScript())
	mustWrite(t, p.path(".ralph/.ralphrc"), "SERVE_ADDR=0.0.0.0:0\nSERVE_CONTROL=true\nSERVE_TOKEN=0123456789abcdef-from-the-repo\n")
	// The default address is taken (by us, or by anyone): --serve can only
	// fail to bind it, quickly, after its warnings; before the fix it
	// served 0.0.0.0 and never ended.
	if l, err := net.Listen("tcp", "127.0.0.1:8765"); err == nil {
		defer l.Close()
	}
	var out bytes.Buffer
	cmd := p.command(t, nil, "--serve")
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		cmd.Process.Kill()
		<-done
		t.Fatalf("--serve served what the project's .ralphrc asked for:\n%s", out.String())
	}
	for _, want := range []string{
		"warning: .ralph/.ralphrc:1: SERVE_ADDR=0.0.0.0:0 ignored: ",
		"warning: .ralph/.ralphrc:2: SERVE_CONTROL ignored: ",
		"warning: .ralph/.ralphrc:3: SERVE_TOKEN ignored: ",
		"127.0.0.1:8765",
	} {
		if strings.Count(out.String(), want) != 1 {
			t.Errorf("output lacks one %q:\n%s", want, out.String())
		}
	}
	if strings.Contains(out.String(), "from-the-repo") {
		t.Errorf("the token was printed:\n%s", out.String())
	}
}

// TestDashboardLoopSurvivesAFlood: connections held open to a --dashboard
// loop, far past the server's cap, in a process limited to 200 files,
// neither stop the loop nor take its files: it runs its loops to the end,
// and the process never holds more sockets than the cap (and its
// listener).
func TestDashboardLoopSurvivesAFlood(t *testing.T) {
	t.Parallel()
	p := newLoopProject(t, 5, tickScript())
	mustWrite(t, p.path(".ralph/.ralph_paused"), "") // it waits while the flood comes
	addr := freeAddr(t)
	var console bytes.Buffer
	loop := startLoop(t, p, []string{"MAX_LOOPS=3"}, &console, "--dashboard", addr)
	pid := loop.pid
	if !waitFor(20*time.Second, func() bool { return snapshotOf(addr) != nil }) {
		t.Fatalf("the dashboard never answered\n%s", console.String())
	}
	if err := unix.Prlimit(pid, unix.RLIMIT_NOFILE, &unix.Rlimit{Cur: 200, Max: 200}, nil); err != nil {
		t.Skipf("cannot lower the loop's file limit: %v", err)
	}
	peak := 0
	var conns []net.Conn
	defer func() {
		for _, c := range conns {
			c.Close()
		}
	}()
	for range 400 {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err != nil {
			break // the listen queue is full: the rest wait in the system
		}
		c.Write([]byte("GET /p/0/ HTTP/1.1\r\nHost: 127.0.0.1\r\n")) // never finished
		conns = append(conns, c)
		peak = max(peak, sockets(pid))
	}
	if err := os.Remove(p.path(".ralph/.ralph_paused")); err != nil {
		t.Fatal(err)
	}
	sampled := make(chan int)
	go func() { // the sockets the loop holds, until it exits
		n := peak
		for !processGone(pid) {
			n = max(n, sockets(pid))
			time.Sleep(20 * time.Millisecond)
		}
		sampled <- n
	}()
	if code, ok := loop.exit(60 * time.Second); code != 4 || !ok {
		t.Fatalf("the loop under the flood (%d connections held): exited %v with %d, want 4 (max loops)\n%s", len(conns), ok, code, console.String())
	}
	peak = <-sampled
	if peak > dashboard.DefaultMaxConns+1 {
		t.Errorf("the loop held %d sockets at once; the cap is %d connections and the listener", peak, dashboard.DefaultMaxConns)
	}
	if bytes.Contains(console.Bytes(), []byte("too many open files")) {
		t.Errorf("the loop ran out of files:\n%s", console.String())
	}
}

// sockets counts the sockets pid has open.
func sockets(pid int) int {
	dir := "/proc/" + strconv.Itoa(pid) + "/fd/"
	ents, _ := os.ReadDir(dir)
	n := 0
	for _, e := range ents {
		if l, err := os.Readlink(dir + e.Name()); err == nil && strings.HasPrefix(l, "socket:") {
			n++
		}
	}
	return n
}

// TestServeOverviewOfManyProjects: --serve --projects over a folder of
// 300 worktrees, each with a large plan, serves an overview of summaries:
// the page and /api/overview stay under 128 KB, and a row says its loop's
// state.
func TestServeOverviewOfManyProjects(t *testing.T) {
	t.Parallel()
	swarm := t.TempDir()
	plan := "# Fix Plan\n" + strings.Repeat("- [ ] a task with a long description of what to do next\n", 300)
	for i := range 300 {
		d := filepath.Join(swarm, "wt-"+strconv.Itoa(i), ".ralph")
		mustWrite(t, filepath.Join(d, "@fix_plan.md"), plan)
		mustWrite(t, filepath.Join(d, "status.json"), `{"loop_count": 7, "status": "completed", "exit_reason": "plan_complete", "tasks_completed": 3, "tasks_total": 300}`+"\n")
	}
	p := &loopProject{dir: swarm, home: t.TempDir()}
	addr := freeAddr(t)
	var out bytes.Buffer
	startLoop(t, p, nil, &out, "--serve", addr, "--projects", swarm)
	get := func(path string) []byte {
		res, err := http.Get("http://" + addr + path)
		if err != nil {
			return nil
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return b
	}
	var api []byte
	if !waitFor(20*time.Second, func() bool { api = get("/api/overview"); return bytes.Contains(api, []byte("wt-299")) }) {
		t.Fatalf("no overview: %s\n%s", api, out.String())
	}
	page := get("/")
	if len(page) > 128<<10 || len(api) > 128<<10 {
		t.Errorf("overview of 300 projects: page %d bytes, /api/overview %d bytes; want each under 128 KB", len(page), len(api))
	}
	if !bytes.Contains(api, []byte(`"href":"/p/0/","summary":{"state":{"phase":"stopped"`)) || !bytes.Contains(api, []byte(`"tasks_total":300`)) {
		t.Errorf("a row lacks its loop's state: %.400s", api)
	}
}
