//go:build unix

package main

import (
	"bytes"
	"io"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/ralphloop/ralph_loop/internal/fakeagent"
)

// askScript is an agent that asks the person on call 2 and ticks a task
// on every other call.
func askScript(question string) fakeagent.Script {
	s := tickScript()
	s.Calls = map[int]fakeagent.Reply{2: {
		Out: fakeagent.ClaudeJSON("I must not guess this.\n---RALPH_STATUS---\nSTATUS: BLOCKED\nTASKS_COMPLETED_THIS_LOOP: 0\nEXIT_SIGNAL: false\nQUESTION: "+question+"\n---END_RALPH_STATUS---", "sess-2") + "\n",
	}}
	return s
}

// postAnswer answers the question through the dashboard at addr.
func postAnswer(t *testing.T, addr, token, body string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest("POST", "http://"+addr+"/api/p/0/answer", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
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

// questionOf is the snapshot's state.question.text, "" when none.
func questionOf(m map[string]any) string {
	st, _ := m["state"].(map[string]any)
	q, _ := st["question"].(map[string]any)
	s, _ := q["text"].(string)
	return s
}

// awaitMaxLoops waits for the loop to go on after the answer and stop
// at its --max-loops (exit 4); done gets its result back for the
// deferred kill.
func awaitMaxLoops(t *testing.T, done chan error, console *bytes.Buffer) {
	t.Helper()
	select {
	case err := <-done:
		done <- err
		if c := commandExitCode(err); c != 4 {
			t.Fatalf("exit code %d, want 4 (max loops)\n%s", c, console.String())
		}
	case <-time.After(30 * time.Second):
		t.Fatalf("the loop did not go on after the answer\n%s", console.String())
	}
}

// TestDashboardAnswersTheQuestion: the agent asks on call 2; --dashboard
// on 127.0.0.1 shows the loop waiting for the answer with the question,
// makes no call meanwhile, refuses an answer without the token, and takes
// the person's answer over real HTTP; call 3's context has it once.
func TestDashboardAnswersTheQuestion(t *testing.T) {
	t.Parallel()
	p := newLoopProject(t, 5, askScript("Postgres or SQLite?"))
	addr := freeAddr(t)
	var console bytes.Buffer
	cmd := p.command(t, []string{"MAX_LOOPS=3", "SERVE_CONTROL=true", "SERVE_TOKEN=" + testToken}, "--dashboard", addr)
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
	if !waitFor(20*time.Second, func() bool { snap = snapshotOf(addr); return phaseOf(snap) == "waiting_for_answer" }) {
		t.Fatalf("the dashboard never showed the loop waiting for the answer: %v\n%s", snap, console.String())
	}
	if q := questionOf(snap); q != "Postgres or SQLite?" {
		t.Errorf("the page's question: %q", q)
	}
	if n, _ := fakeagent.Count(p.agent); n != 2 {
		t.Fatalf("%d calls while the question waits, want 2", n)
	}
	if code, body := postAnswer(t, addr, "", `{"answer":"SQLite"}`); code != http.StatusUnauthorized {
		t.Fatalf("an answer without the token: %d %s", code, body)
	}
	if code, body := postAnswer(t, addr, testToken, `{"answer":"SQLite, one file."}`); code != http.StatusOK || body != `{"answered":"Postgres or SQLite?"}` {
		t.Fatalf("the answer with the token: %d %s", code, body)
	}
	awaitMaxLoops(t, done, &console)
	argv, _ := os.ReadFile(p.agent + "/calls/3.argv")
	if n := strings.Count(string(argv), "ANSWER FROM THE PERSON to your question of loop 2 (\"Postgres or SQLite?\"): SQLite, one file."); n != 1 {
		t.Errorf("call 3's argv has the answer %d times:\n%s", n, argv)
	}
	ev, _ := os.ReadFile(p.path(".ralph/logs/events.jsonl"))
	if !bytes.Contains(ev, []byte(`"answer":"SQLite, one file.","via":"dashboard"`)) {
		t.Errorf("no answer via the dashboard in the event log:\n%s", ev)
	}
}

// TestServeAnswersTheQuestion: --serve beside a waiting loop takes the
// answer for it (another process than the loop's) and refuses a second.
func TestServeAnswersTheQuestion(t *testing.T) {
	t.Parallel()
	p := newLoopProject(t, 5, askScript("Which port?"))
	var console bytes.Buffer
	loop := p.command(t, []string{"MAX_LOOPS=3"})
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
	}()
	var snap map[string]any
	if !waitFor(20*time.Second, func() bool { snap = snapshotOf(addr); return phaseOf(snap) == "waiting_for_answer" }) {
		t.Fatalf("--serve never showed the loop waiting: %v\n%s\n%s", snap, console.String(), served.String())
	}
	if code, body := postAnswer(t, addr, testToken, `{"answer":"8080"}`); code != 200 {
		t.Fatalf("answer: %d %s", code, body)
	}
	if code, body := postAnswer(t, addr, testToken, `{"answer":"9090"}`); code != http.StatusConflict || !strings.Contains(body, "answered already") {
		t.Errorf("a second answer: %d %s", code, body)
	}
	awaitMaxLoops(t, done, &console)
	if argv, _ := os.ReadFile(p.agent + "/calls/3.argv"); !bytes.Contains(argv, []byte("): 8080 — this is the person's own answer")) {
		t.Errorf("call 3's argv:\n%s", argv)
	}
}
