//go:build unix

package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
)

func init() {
	extraCmds["mkfifo"] = cmdMkfifo
	extraCmds["fill"] = cmdFill
	mainCmds["rss-probe"] = rssProbe
}

// rssProbe runs its arguments as a command with this process's stdio and
// environment, writes the command's peak RSS in KiB to $RSS_PROBE_OUT and
// exits with the command's code. The measurement needs a fresh process in
// between: a child the test binary starts itself begins with the test
// binary's own peak RSS, which Linux carries across vfork and exec.
func rssProbe() {
	cmd := exec.Command(os.Args[1], os.Args[2:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	err := cmd.Run()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		fmt.Fprintln(os.Stderr, "rss-probe:", err)
		os.Exit(125)
	}
	rss := cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss // KiB on Linux
	if err := os.WriteFile(os.Getenv("RSS_PROBE_OUT"), []byte(strconv.FormatInt(rss, 10)), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "rss-probe:", err)
		os.Exit(125)
	}
	os.Exit(cmd.ProcessState.ExitCode())
}

// mkfifo PATH...: make named pipes.
func cmdMkfifo(ts *testscript.TestScript, neg bool, args []string) {
	for _, a := range args {
		ts.Check(syscall.Mkfifo(ts.MkAbs(a), 0o644))
	}
}

// fill FILE N PREFIX: write PREFIX followed by N 'x' bytes and a newline.
func cmdFill(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 3 {
		ts.Fatalf("usage: fill FILE N PREFIX")
	}
	var n int
	for _, c := range args[1] {
		n = n*10 + int(c-'0')
	}
	ts.Check(os.WriteFile(ts.MkAbs(args[0]), []byte(args[2]+strings.Repeat("x", n)+"\n"), 0o644))
}

// TestHostileDevZero runs the real program in a scratch project where one
// file is a link to /dev/zero: it must end (one line and exit 1, or a
// moved-aside warning and a finished run) without reading the device, so
// within a generous time bound and a small peak RSS.
func TestHostileDevZero(t *testing.T) {
	t.Parallel()
	if _, err := os.Stat("/dev/zero"); err != nil {
		t.Skip("no /dev/zero")
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		file string
		code int
		want string
	}{
		{".ralph/PROMPT.md", 1, "is a symbolic link to /dev/zero"},
		{".ralph/.ralphrc", 1, "is a symbolic link to /dev/zero"},
		{".ralph/status.json", 0, "moved it to status.json.corrupt-"},
		{".ralph/.call_count", 0, "moved it to .call_count.corrupt-"},
	} {
		t.Run(filepath.Base(tc.file), func(t *testing.T) {
			t.Parallel()
			work, bin := hostileProject(t, self, tc.file)
			code, out, rss := runHostile(t, work, bin)
			if code != tc.code || !strings.Contains(out, tc.want) {
				t.Fatalf("exit %d, want %d with %q; output:\n%s", code, tc.code, tc.want, out)
			}
			if rss > maxRSSKiB {
				t.Errorf("max RSS %d KiB, want under %d MiB", rss, maxRSSKiB>>10)
			}
			if code == 1 {
				var lines int
				for _, l := range strings.Split(out, "\n") {
					if strings.Contains(l, "/dev/zero") || strings.Contains(l, tc.want) {
						lines++
					}
				}
				if lines != 1 {
					t.Errorf("want one line about the file, got %d:\n%s", lines, out)
				}
			}
		})
	}
}

// hostileProject makes a committed scratch project whose file is a link to
// /dev/zero, with ralph_loop and the fake claude linked into its .bin/.
func hostileProject(t *testing.T, self, file string) (work, bin string) {
	t.Helper()
	work = t.TempDir()
	bin = filepath.Join(work, ".bin")
	os.MkdirAll(bin, 0o755)
	for _, name := range []string{"ralph_loop", "claude"} {
		target := self
		if alt := os.Getenv("HOSTILE_RALPH_LOOP"); alt != "" && name == "ralph_loop" {
			target = alt // another build, e.g. to show the old code failing
		}
		if err := os.Symlink(target, filepath.Join(bin, name)); err != nil {
			t.Fatal(err)
		}
	}
	write := func(name, s string) {
		p := filepath.Join(work, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(".ralph/PROMPT.md", "Do the next task.\n")
	write(".ralph/@fix_plan.md", "- [ ] Task A\n")
	write("agent/default.check", "")
	write("agent/default.out", `{"type":"result","subtype":"success","is_error":false,"result":"done\n---RALPH_STATUS---\nSTATUS: COMPLETE\nTASKS_COMPLETED_THIS_LOOP: 1\nFILES_MODIFIED: 1\nTESTS_STATUS: PASSING\nWORK_TYPE: IMPLEMENTATION\nEXIT_SIGNAL: true\nRECOMMENDATION: done\n---END_RALPH_STATUS---","session_id":"sess-1"}`+"\n")
	os.Remove(filepath.Join(work, file))
	if err := os.Symlink("/dev/zero", filepath.Join(work, file)); err != nil {
		t.Fatal(err)
	}
	for _, a := range [][]string{{"init", "-q", "."}, {"add", "-A"}, {"-c", "user.name=T", "-c", "user.email=t@e.invalid", "commit", "-q", "-m", "init"}} {
		if out, err := exec.Command("git", append([]string{"-C", work}, a...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", a, err, out)
		}
	}
	return work, bin
}

// runHostile runs ralph_loop in work to its end and returns its exit code,
// its combined output and its peak RSS in KiB.
func runHostile(t *testing.T, work, bin string) (code int, out string, rss int64) {
	t.Helper()
	// A generous bound that only catches a hang; the run itself takes
	// well under 2 s.
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	rssFile := filepath.Join(t.TempDir(), "rss")
	cmd := exec.CommandContext(ctx, self, filepath.Join(bin, "ralph_loop"))
	cmd.Args[0] = "rss-probe"
	cmd.Dir = work
	cmd.Env = append(os.Environ(), "PATH="+bin+":"+os.Getenv("PATH"), "HOME="+work, "RSS_PROBE_OUT="+rssFile,
		"FAKE_AGENT_DIR="+filepath.Join(work, "agent"), "LOOP_DELAY=0", "WRITE_TIMEOUT_MINUTES=0",
		"GORACE=atexit_sleep_ms=0", "FAKE_AGENT_VERSION=2.1.330 (Claude Code)")
	var b strings.Builder
	cmd.Stdout, cmd.Stderr = &b, &b
	start := time.Now()
	err = cmd.Run()
	elapsed := time.Since(start)
	if ctx.Err() != nil {
		t.Fatalf("ralph_loop hung in %s", work)
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	if code == 125 {
		t.Fatalf("rss-probe failed:\n%s", b.String())
	}
	data, err := os.ReadFile(rssFile)
	if err != nil {
		t.Fatal(err)
	}
	if rss, err = strconv.ParseInt(string(data), 10, 64); err != nil {
		t.Fatal(err)
	}
	t.Logf("exit %d in %v, max RSS %d KiB", code, elapsed, rss)
	return code, b.String(), rss
}
