//go:build unix

package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"
)

// These tests run the real program (see signal_test.go): a loop with
// --dashboard, and a loop with --serve beside it, driven over HTTP.

const testToken = "real-binary-token-0123456789"

// freeAddr is a loopback address with a port nobody listens on.
func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// snapshotOf is the dashboard's snapshot at addr, nil while it does not
// answer.
func snapshotOf(addr string) map[string]any {
	res, err := http.Get("http://" + addr + "/api/p/0/snapshot")
	if err != nil {
		return nil
	}
	defer res.Body.Close()
	var m map[string]any
	if json.NewDecoder(io.LimitReader(res.Body, 1<<20)).Decode(&m) != nil {
		return nil
	}
	return m
}

func phaseOf(m map[string]any) string {
	st, _ := m["state"].(map[string]any)
	s, _ := st["phase"].(string)
	return s
}

func loopsOf(m map[string]any) int {
	ls, _ := m["loops"].([]any)
	return len(ls)
}

// post sends a control; it returns the status code and the body.
func post(t *testing.T, addr, action, token string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest("POST", "http://"+addr+"/api/p/0/control/"+action, nil)
	if token != "" {
		req.Header.Set("X-Ralph-Token", token)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, strings.TrimSpace(string(b))
}

func commandExitCode(err error) int {
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode()
	}
	if err != nil {
		return -1
	}
	return 0
}

// TestDashboardRunsAndControlsTheLoop: --dashboard serves the loop it
// runs; its skip control skips the hour-long wait as a Ctrl+C would, and
// only with the token.
func TestDashboardRunsAndControlsTheLoop(t *testing.T) {
	t.Parallel()
	p := newLoopProject(t, 3, tickScript())
	addr := freeAddr(t)
	var console bytes.Buffer
	cmd := p.command(t, []string{"LOOP_DELAY=1h", "MAX_LOOPS=2", "SERVE_CONTROL=true", "SERVE_TOKEN=" + testToken}, "--dashboard", addr)
	cmd.Stdout, cmd.Stderr = &console, &console
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	defer func() {
		cmd.Process.Kill()
		<-done
	}()
	var snap map[string]any
	if !waitFor(20*time.Second, func() bool { snap = snapshotOf(addr); return phaseOf(snap) == "waiting" && loopsOf(snap) == 1 }) {
		t.Fatalf("the dashboard never showed the wait after loop 1: %v\n%s", snap, console.String())
	}
	if code, body := post(t, addr, "skip", ""); code != http.StatusUnauthorized {
		t.Fatalf("skip without the token: %d %s", code, body)
	}
	if code, body := post(t, addr, "skip", testToken); code != http.StatusOK {
		t.Fatalf("skip with the token: %d %s", code, body)
	}
	select {
	case err := <-done:
		done <- err
		if c := commandExitCode(err); c != 4 {
			t.Fatalf("exit code %d, want 4 (max loops after the skipped wait)\n%s", c, console.String())
		}
	case <-time.After(30 * time.Second):
		t.Fatalf("the loop did not go on after the skip\n%s", console.String())
	}
	if !strings.Contains(console.String(), "Dashboard: http://"+addr+"/ (open it with ?token=<SERVE_TOKEN>") {
		t.Errorf("no dashboard address on the console:\n%s", console.String())
	}
	if log, _ := os.ReadFile(p.path(".ralph/logs/ralph.log")); bytes.Contains(log, []byte(testToken)) || strings.Contains(console.String(), testToken) {
		t.Errorf("the token was written to the console or ralph.log")
	}
	ev, _ := os.ReadFile(p.path(".ralph/logs/events.jsonl"))
	if !bytes.Contains(ev, []byte(`"type":"delay_ended","run_id"`)) || !bytes.Contains(ev, []byte(`"skipped":true`)) {
		t.Errorf("no skipped delay in the event log:\n%s", ev)
	}
}

// TestServeBesideARunningLoop: --serve starts while a loop holds the lock,
// shows it, and its controls reach the loop: pause and resume through the
// pause file, skip (SIGUSR1) and stop (SIGTERM, exit 143).
func TestServeBesideARunningLoop(t *testing.T) {
	t.Parallel()
	p := newLoopProject(t, 5, tickScript())
	var console bytes.Buffer
	loop := p.command(t, []string{"LOOP_DELAY=1h", "MAX_LOOPS=4"})
	loop.Stdout, loop.Stderr = &console, &console
	if err := loop.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- loop.Wait() }()
	defer func() {
		loop.Process.Kill()
		<-done
	}()
	if !waitFor(20*time.Second, func() bool {
		ev, _ := os.ReadFile(p.path(".ralph/logs/events.jsonl"))
		return bytes.Contains(ev, []byte("delay_started"))
	}) {
		t.Fatalf("loop 1 never finished\n%s", console.String())
	}

	addr := freeAddr(t)
	var served bytes.Buffer
	srv := p.command(t, []string{"SERVE_CONTROL=true", "SERVE_TOKEN=" + testToken}, "--serve", addr)
	srv.Stdout, srv.Stderr = &served, &served
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		srv.Process.Signal(os.Interrupt)
		srv.Wait()
		if !strings.Contains(served.String(), "Serving the dashboard of proj at http://"+addr+"/?token=") {
			t.Errorf("--serve said: %s", served.String())
		}
	}()
	var snap map[string]any
	if !waitFor(20*time.Second, func() bool { snap = snapshotOf(addr); return phaseOf(snap) == "waiting" }) {
		t.Fatalf("--serve never showed the waiting loop: %v\n%s", snap, served.String())
	}
	if code, body := post(t, addr, "pause", testToken); code != 200 || !exists(p.path(".ralph/.ralph_paused")) {
		t.Fatalf("pause: %d %s", code, body)
	}
	if code, body := post(t, addr, "resume", testToken); code != 200 || exists(p.path(".ralph/.ralph_paused")) {
		t.Fatalf("resume: %d %s", code, body)
	}
	if code, body := post(t, addr, "skip", testToken); code != 200 {
		t.Fatalf("skip: %d %s", code, body)
	}
	if !waitFor(20*time.Second, func() bool { snap = snapshotOf(addr); return loopsOf(snap) == 2 && phaseOf(snap) == "waiting" }) {
		t.Fatalf("loop 2 never ran after the skip: %v\n%s", snap, console.String())
	}
	if code, body := post(t, addr, "stop", testToken); code != 200 {
		t.Fatalf("stop: %d %s", code, body)
	}
	select {
	case err := <-done:
		done <- err
		if c := commandExitCode(err); c != 143 {
			t.Fatalf("exit code %d, want 143 (stopped as by SIGTERM)\n%s", c, console.String())
		}
	case <-time.After(20 * time.Second):
		t.Fatalf("stop did not stop the loop\n%s", console.String())
	}
	if !waitFor(10*time.Second, func() bool { return phaseOf(snapshotOf(addr)) == "stopped" }) {
		t.Errorf("--serve still shows %q after the loop ended", phaseOf(snapshotOf(addr)))
	}
	if code, _ := post(t, addr, "stop", testToken); code != http.StatusConflict {
		t.Errorf("stop with no loop running: %d, want 409", code)
	}
}

// TestServeRefusals: settings that make no sense are refused with one line.
func TestServeRefusals(t *testing.T) {
	t.Parallel()
	p := newLoopProject(t, 1, tickScript())
	for _, tc := range []struct {
		env  []string
		args []string
		want string
	}{
		{nil, []string{"--serve", "0.0.0.0:" + strconv.Itoa(0)}, "is not a loopback address; set SERVE_TOKEN"},
		{[]string{"SERVE_CONTROL=true"}, []string{"--serve", "127.0.0.1:0"}, "SERVE_CONTROL=true needs SERVE_TOKEN"},
		{[]string{"SERVE_CONTROL=true"}, []string{"--dashboard", "127.0.0.1:0"}, "SERVE_CONTROL=true needs SERVE_TOKEN"},
	} {
		var out bytes.Buffer
		cmd := p.command(t, tc.env, tc.args...)
		cmd.Stdout, cmd.Stderr = &out, &out
		err := cmd.Run()
		if commandExitCode(err) != 1 || !strings.Contains(out.String(), tc.want) || strings.Count(strings.TrimSpace(out.String()), "\n") > 0 {
			t.Errorf("%v %v: exit %d, output %q; want exit 1 and one line with %q", tc.env, tc.args, commandExitCode(err), out.String(), tc.want)
		}
	}
}

// TestServeSaysWhatItIgnores: a SERVE_TOKEN that cannot be used is said
// (never shown) before --serve goes on without it.
func TestServeSaysWhatItIgnores(t *testing.T) {
	t.Parallel()
	p := newLoopProject(t, 1, tickScript())
	var out bytes.Buffer
	cmd := p.command(t, []string{"SERVE_TOKEN=short", "SERVE_CONTROL=true"}, "--serve", "127.0.0.1:0")
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	if commandExitCode(err) != 1 || !strings.Contains(out.String(), "warning: Invalid SERVE_TOKEN (not shown) (env SERVE_TOKEN)") || strings.Contains(out.String(), "short") {
		t.Errorf("exit %d, output %q; want the ignored token named (its value not shown), then the refusal", commandExitCode(err), out.String())
	}
}
