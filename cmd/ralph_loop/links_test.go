//go:build unix

package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// These tests run the real program in a repository that committed a link
// out of .ralph/ (or a named pipe in a file's place) and check, for the
// loop and for every command that reads or writes .ralph/, that nothing
// outside changes, the secret never shows, and nothing hangs.

const linkSecret = "SECRET-c0ffee-4242-do-not-show"

// linkAttack plants one hostile thing in a fresh project; outside is a
// folder beside the project holding secret.txt.
type linkAttack struct {
	name  string
	plant func(t *testing.T, p *loopProject, outside string)
	// refuse is what the loop must say (and then exit non-zero without
	// calling the agent); "" when the loop may run.
	refuse string
}

func linkAttacks() []linkAttack {
	symlink := func(t *testing.T, target, link string) {
		t.Helper()
		os.RemoveAll(link)
		if err := os.Symlink(target, link); err != nil {
			t.Fatal(err)
		}
	}
	// moveOut moves .ralph/NAME to outside/NAME and leaves a link to it.
	moveOut := func(t *testing.T, p *loopProject, outside, name string) {
		t.Helper()
		from, to := p.path(".ralph/"+name), filepath.Join(outside, filepath.Base(name))
		os.MkdirAll(from, 0o755)
		mustWrite(t, filepath.Join(from, "keep.txt"), linkSecret+"\n")
		if err := os.Rename(from, to); err != nil {
			t.Fatal(err)
		}
		symlink(t, to, from)
	}
	return []linkAttack{
		{name: "ralph-dir", refuse: ".ralph is a symbolic link to ", plant: func(t *testing.T, p *loopProject, outside string) {
			mustWrite(t, p.path(".ralph/status.json"), `{"status":"`+linkSecret+`"}`+"\n")
			mustWrite(t, p.path(".ralph/live.log"), linkSecret+"\n")
			mustWrite(t, p.path(".ralph/logs/claude_output_2026-01-01_00-00-00_loop1.log"), linkSecret+"\n")
			to := filepath.Join(outside, "elsewhere")
			if err := os.Rename(p.path(".ralph"), to); err != nil {
				t.Fatal(err)
			}
			symlink(t, to, p.path(".ralph"))
		}},
		{name: "logs", refuse: ".ralph/logs is a symbolic link to ", plant: func(t *testing.T, p *loopProject, outside string) {
			moveOut(t, p, outside, "logs")
			mustWrite(t, filepath.Join(outside, "logs", "claude_output_2026-01-01_00-00-00_loop1.log"), linkSecret+"\n")
			mustWrite(t, filepath.Join(outside, "logs", "events.jsonl"), `{"type":"`+linkSecret+`"}`+"\n")
			mustWrite(t, filepath.Join(outside, "logs", "ralph.log.1"), linkSecret+"\n")
		}},
		{name: "docs", refuse: ".ralph/docs is a symbolic link to ", plant: func(t *testing.T, p *loopProject, outside string) {
			moveOut(t, p, outside, "docs")
		}},
		{name: "status.json", plant: func(t *testing.T, p *loopProject, outside string) {
			symlink(t, filepath.Join(outside, "secret.txt"), p.path(".ralph/status.json"))
		}},
		{name: "live.log", plant: func(t *testing.T, p *loopProject, outside string) {
			symlink(t, filepath.Join(outside, "secret.txt"), p.path(".ralph/live.log"))
		}},
		{name: "ralphrc", refuse: ".ralph/.ralphrc: it is a symbolic link to ", plant: func(t *testing.T, p *loopProject, outside string) {
			mustWrite(t, filepath.Join(outside, "rc.txt"), "PROMPT_FILE="+linkSecret+"\n"+linkSecret+"\n")
			symlink(t, filepath.Join(outside, "rc.txt"), p.path(".ralph/.ralphrc"))
		}},
		{name: "rc-events-file", refuse: ".ralphrc's EVENTS_FILE may not leave it", plant: func(t *testing.T, p *loopProject, outside string) {
			mustWrite(t, p.path(".ralph/.ralphrc"), "EVENTS_FILE="+filepath.Join(outside, "secret.txt")+"\n")
		}},
		{name: "rc-events-link", refuse: "events.txt: is a symbolic link", plant: func(t *testing.T, p *loopProject, outside string) {
			mustWrite(t, p.path(".ralph/.ralphrc"), "EVENTS_FILE=events.txt\n")
			symlink(t, filepath.Join(outside, "secret.txt"), p.path(".ralph/events.txt"))
		}},
		{name: "rc-prompt-file", refuse: ".ralphrc's PROMPT_FILE may not leave it", plant: func(t *testing.T, p *loopProject, outside string) {
			mustWrite(t, p.path(".ralph/.ralphrc"), "PROMPT_FILE=../../outside/secret.txt\n")
		}},
		{name: "prompt-environ", refuse: "PROMPT.md: is a symbolic link to /proc/self/environ", plant: func(t *testing.T, p *loopProject, outside string) {
			symlink(t, "/proc/self/environ", p.path(".ralph/PROMPT.md"))
		}},
		{name: "plan-fifo", refuse: "@fix_plan.md: is a named pipe (FIFO), not a regular file", plant: func(t *testing.T, p *loopProject, outside string) {
			os.Remove(p.path(".ralph/@fix_plan.md"))
			if err := syscall.Mkfifo(p.path(".ralph/@fix_plan.md"), 0o644); err != nil {
				t.Fatal(err)
			}
		}},
	}
}

// treeSum describes every entry under root (see treehash).
func treeSum(t *testing.T, root string) string {
	t.Helper()
	lines, err := treeLines(root)
	if err != nil {
		t.Fatal(err)
	}
	return lines
}

// runBounded runs ralph_loop with args in p, killed after a minute: a
// command that hangs fails the test instead of the suite.
func runBounded(t *testing.T, p *loopProject, env []string, args ...string) (code int, out string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := p.command(t, env, args...)
	var b bytes.Buffer
	cmd.Stdout, cmd.Stderr = &b, &b
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		return commandExitCode(err), b.String()
	case <-ctx.Done():
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		<-done
		t.Fatalf("ralph_loop %v did not end within a minute:\n%s", args, b.String())
		return 0, ""
	}
}

// served is what --serve answers for p: the snapshot and the page (which
// holds the live output).
func served(t *testing.T, p *loopProject) string {
	t.Helper()
	addr := freeAddr(t)
	var log bytes.Buffer
	srv := p.command(t, nil, "--serve", addr)
	srv.Stdout, srv.Stderr = &log, &log
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- srv.Wait() }()
	// stop ends the server; its output may be read only after (the copy
	// into log runs until the process is gone).
	stopped := false
	stop := func() {
		if stopped {
			return
		}
		stopped = true
		srv.Process.Signal(os.Interrupt)
		select {
		case err := <-done:
			done <- err
		case <-time.After(20 * time.Second):
			syscall.Kill(-srv.Process.Pid, syscall.SIGKILL)
			done <- <-done
		}
	}
	defer stop()
	get := func(path string) (string, bool) {
		res, err := http.Get("http://" + addr + path)
		if err != nil {
			return "", false
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(io.LimitReader(res.Body, 4<<20))
		return fmt.Sprintf("%d %s", res.StatusCode, b), true
	}
	var snap, page string
	if !waitFor(20*time.Second, func() bool {
		select {
		case err := <-done:
			done <- err // for stop
			return true // it ended: what it said is the answer
		default:
		}
		var ok bool
		snap, ok = get("/api/p/0/snapshot")
		return ok
	}) {
		stop()
		t.Fatalf("--serve never answered:\n%s", log.String())
	}
	page, _ = get("/p/0/")
	stop()
	return log.String() + "\n" + snap + "\n" + page
}

// TestLinksOutOfRalphDir: every attack, against the loop and every command
// that reads or writes .ralph/.
func TestLinksOutOfRalphDir(t *testing.T) {
	if _, err := os.Stat("/proc/self/environ"); err != nil {
		t.Skip("no /proc/self/environ")
	}
	commands := [][]string{
		{"--status"}, {"--circuit-status"}, {"--reset-session"}, {"--pause"}, {"--clean"}, {"--report"},
		{"--serve"}, {"--init"}, {"--resume"}, {}, // the loop last: it may create files inside .ralph/
	}
	for _, a := range linkAttacks() {
		t.Run(a.name, func(t *testing.T) {
			t.Parallel()
			p := newLoopProject(t, 1, tickScript())
			outside := filepath.Join(filepath.Dir(p.dir), "outside")
			mustWrite(t, filepath.Join(outside, "secret.txt"), linkSecret+"\n")
			a.plant(t, p, outside)
			before := treeSum(t, outside)
			env := []string{"RALPH_TEST_SECRET=" + linkSecret}
			for _, args := range commands {
				name := strings.Join(args, " ")
				if name == "" {
					name = "the loop"
				}
				var code int
				var out string
				if name == "--serve" {
					out = served(t, p)
				} else {
					code, out = runBounded(t, p, env, args...)
				}
				if strings.Contains(out, linkSecret) {
					i := strings.Index(out, linkSecret)
					t.Errorf("%s showed the secret: …%s…", name, out[max(0, i-300):min(len(out), i+100)])
				}
				if after := treeSum(t, outside); after != before {
					t.Fatalf("%s changed what is outside the project:\nbefore:\n%safter:\n%s\noutput:\n%s", name, before, after, out)
				}
				if name != "the loop" || a.refuse == "" {
					continue
				}
				if code == 0 || !strings.Contains(out, a.refuse) {
					t.Errorf("the loop: exit %d, want non-zero with %q:\n%s", code, a.refuse, out)
				}
				if _, err := os.Stat(filepath.Join(p.agent, "calls", "1.argv")); err == nil {
					t.Errorf("the loop called the agent")
				}
			}
		})
	}
}
