package supervise

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// helperEnv switches the test binary into helper mode: it then acts as the
// supervised program, running the behaviour named by its first argument.
const helperEnv = "SUPERVISE_TEST_HELPER"

func TestMain(m *testing.M) {
	if os.Getenv(helperEnv) == "1" {
		os.Exit(helper(os.Args[1:]))
	}
	os.Exit(m.Run())
}

// helperCmd is the argv that runs the test binary as helper behaviour args.
func helperCmd(t *testing.T, args ...string) Command {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return Command{
		Argv: append([]string{exe}, args...),
		// A race-built helper would otherwise sleep 1s when it exits 0.
		Env: append(os.Environ(), helperEnv+"=1", "GORACE=atexit_sleep_ms=0"),
	}
}

func blockForever() {
	for {
		time.Sleep(time.Hour)
	}
}

// startGrandchild starts the helper "block" in the same process group,
// inheriting stdout and stderr, and writes its pid to pidFile.
func startGrandchild(pidFile string, ignoreTerm bool) error {
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	args := []string{"block"}
	if ignoreTerm {
		args = []string{"ignore-term", ""}
	}
	c := exec.Command(exe, args...)
	c.Stdout, c.Stderr = os.Stdout, os.Stderr
	if err := c.Start(); err != nil {
		return err
	}
	return writeFileAtomic(pidFile, strconv.Itoa(c.Process.Pid))
}

// writeFileAtomic makes a readiness file appear complete or not at all.
func writeFileAtomic(path, content string) error {
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, []byte(content), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

func helper(args []string) int {
	if len(args) == 0 {
		fmt.Fprintln(os.Stderr, "helper: no behaviour")
		return 2
	}
	arg := func(i int) string {
		if i < len(args) {
			return args[i]
		}
		return ""
	}
	ready := func(path string) {
		if path != "" {
			if err := writeFileAtomic(path, strconv.Itoa(os.Getpid())); err != nil {
				fmt.Fprintln(os.Stderr, err)
				os.Exit(2)
			}
		}
	}
	switch args[0] {
	case "exit": // exit CODE [STDOUT [STDERR]]
		fmt.Print(arg(2))
		fmt.Fprint(os.Stderr, arg(3))
		code, _ := strconv.Atoi(arg(1))
		return code
	case "selfkill":
		_ = syscall.Kill(os.Getpid(), syscall.SIGKILL)
		blockForever()
	case "cat": // copy stdin to stdout
		_, _ = io.Copy(os.Stdout, os.Stdin)
		return 0
	case "stdin-is-devnull":
		a, err1 := os.Stdin.Stat()
		b, err2 := os.Stat(os.DevNull)
		fmt.Print(err1 == nil && err2 == nil && os.SameFile(a, b))
		return 0
	case "bigline": // bigline BYTES: one line of BYTES 'x' on stdout, then "end" on stderr
		n, _ := strconv.Atoi(arg(1))
		_, _ = os.Stdout.WriteString(strings.Repeat("x", n) + "\n")
		fmt.Fprint(os.Stderr, "end")
		return 0
	case "block": // block [READY]: print "hello", become ready, block
		fmt.Println("hello")
		ready(arg(1))
		blockForever()
	case "ignore-term": // ignore-term READY [GRANDCHILD-PIDFILE]
		signal.Ignore(syscall.SIGTERM)
		if arg(2) != "" {
			if err := startGrandchild(arg(2), true); err != nil {
				fmt.Fprintln(os.Stderr, err)
				return 2
			}
		}
		ready(arg(1))
		blockForever()
	case "orphan": // orphan PIDFILE: leave a grandchild holding the pipes, exit 0
		if err := startGrandchild(arg(1), false); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 2
		}
		fmt.Println("leader done")
		return 0
	case "flood": // flood: print lines forever
		line := []byte(strings.Repeat("flood ", 20) + "\n")
		for {
			if _, err := os.Stdout.Write(line); err != nil {
				return 3
			}
		}
	case "setsid-orphan": // setsid-orphan PIDFILE: leave a grandchild in a new session holding the pipes, exit 0
		exe, err := os.Executable()
		if err != nil {
			return 2
		}
		c := exec.Command(exe, "block")
		c.Stdout, c.Stderr = os.Stdout, os.Stderr
		c.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
		if err := c.Start(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 2
		}
		if err := writeFileAtomic(arg(1), strconv.Itoa(c.Process.Pid)); err != nil {
			return 2
		}
		fmt.Println("leader done")
		return 0
	case "chatty": // chatty N GAP: print N lines GAP apart, exit 0
		n, _ := strconv.Atoi(arg(1))
		gap, _ := time.ParseDuration(arg(2))
		for i := range n {
			fmt.Println("line", i)
			time.Sleep(gap)
		}
		return 0
	case "write": // write PATH... READY: write files, become ready, block
		for _, p := range args[1 : len(args)-1] {
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				return 2
			}
			if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
				return 2
			}
		}
		ready(args[len(args)-1])
		blockForever()
	}
	fmt.Fprintf(os.Stderr, "helper: unknown behaviour %q\n", args[0])
	return 2
}

// waitFile waits until path exists and returns its content. It polls: the
// file is written by another process.
func waitFile(t *testing.T, path string) string {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		b, err := os.ReadFile(path)
		if err == nil {
			return string(b)
		}
		if !errors.Is(err, os.ErrNotExist) || time.Now().After(deadline) {
			t.Fatalf("waiting for %s: %v", path, err)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// alive reports whether pid is a running (not zombie) process.
func alive(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return syscall.Kill(pid, 0) == nil
	}
	// state is the field after the parenthesised command name
	s := string(b)
	if i := strings.LastIndexByte(s, ')'); i >= 0 && i+2 < len(s) {
		return s[i+2] != 'Z' && s[i+2] != 'X'
	}
	return true
}

// assertGone fails unless pid dies soon: SIGKILL is delivered asynchronously.
func assertGone(t *testing.T, pidText string) {
	t.Helper()
	pid, err := strconv.Atoi(strings.TrimSpace(pidText))
	if err != nil {
		t.Fatalf("bad pid %q", pidText)
	}
	deadline := time.Now().Add(2 * time.Second)
	for alive(pid) {
		if time.Now().After(deadline) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
			t.Fatalf("process %d survived the call", pid)
		}
		time.Sleep(2 * time.Millisecond)
	}
}
