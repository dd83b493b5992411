package main

import (
	"strings"
	"testing"

	"github.com/ralphloop/ralph_loop/internal/swarm"
)

// On a terminal the workers' lines are one block, redrawn in place below
// the messages; off a terminal every change is a line; epic headings
// cannot bring escapes of their own.
func TestSwarmBoard(t *testing.T) {
	var out strings.Builder
	b := &board{w: &out, tty: true, stamp: func() string { return "T" }, width: func() int { return 44 }}
	b.show(swarm.Worker{ID: 1, State: "running", Epics: []string{"A"}})
	b.show(swarm.Worker{ID: 2, State: "running", Epics: []string{"B\x1b]0;x\x07"}})
	b.log("worker-1: merged")
	b.show(swarm.Worker{ID: 1, State: "merged", Epics: []string{"A"}})
	w1, w1m := "worker-1  running   loop 0   0/0 tasks  A\n", "worker-1  merged    loop 0   0/0 tasks  A\n"
	w2 := "worker-2  running   loop 0   0/0 tasks  B\\u\n" // made safe, then cut to the width
	want := w1 + "\x1b[1A\x1b[J" + w1 + w2 + "\x1b[2A\x1b[J[T] worker-1: merged\n" + w1 + w2 + "\x1b[2A\x1b[J" + w1m + w2
	if got := out.String(); got != want {
		t.Errorf("tty board:\n%q\nwant\n%q", got, want)
	}
	out.Reset()
	b = &board{w: &out, stamp: func() string { return "T" }}
	b.show(swarm.Worker{ID: 1, State: "running", Epics: []string{"A"}})
	b.log("m")
	if got := out.String(); got != "[T] [SWARM] worker-1  running   loop 0   0/0 tasks  A\n[T] m\n" {
		t.Errorf("plain board: %q", got)
	}
}

// A worker whose loop waits for the person's answer shows the question
// (its escapes made visible) and how to answer it; the others' lines are
// as before.
func TestSwarmBoardShowsTheQuestion(t *testing.T) {
	var out strings.Builder
	b := &board{w: &out, stamp: func() string { return "T" }}
	b.show(swarm.Worker{ID: 2, State: "running", Loop: 3, Epics: []string{"B"}, Worktree: ".swarm/worker-2", Question: "Postgres \x1b[31mor\x1b[0m SQLite?"})
	want := `[T] [SWARM] worker-2  running   loop 3   0/0 tasks  B — asks: "Postgres \u001b[31mor\u001b[0m SQLite?" (answer: cd .swarm/worker-2 && ralph_loop --answer "YOUR ANSWER")` + "\n"
	if got := out.String(); got != want {
		t.Errorf("board:\n%q\nwant\n%q", got, want)
	}
}
