//go:build unix

package supervise

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
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

// helper runs the behaviour named by args[0] with the rest of args and
// returns its exit code.
func helper(args []string) int {
	if len(args) == 0 {
		fmt.Fprintln(os.Stderr, "helper: no behaviour")
		return 2
	}
	b, ok := behaviours[args[0]]
	if !ok {
		fmt.Fprintf(os.Stderr, "helper: unknown behaviour %q\n", args[0])
		return 2
	}
	return b(helperArgs(args[1:]))
}

// helperArgs are a behaviour's arguments; a missing one reads as "".
type helperArgs []string

func (a helperArgs) at(i int) string {
	if i < len(a) {
		return a[i]
	}
	return ""
}

// ready writes our pid to path, atomically, to tell the test we got this
// far; "" means no one waits.
func ready(path string) {
	if path == "" {
		return
	}
	if err := writeFileAtomic(path, strconv.Itoa(os.Getpid())); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
}

// behaviours are the programs the helper can act as, by name; each
// comment gives its arguments.
var behaviours = map[string]func(helperArgs) int{
	"exit":             helperExit,       // CODE [STDOUT [STDERR]]
	"selfkill":         helperSelfKill,   //
	"cat":              helperCat,        // copy stdin to stdout
	"stdin-is-devnull": helperDevNull,    // print whether stdin is /dev/null
	"bigline":          helperBigLine,    // BYTES: one line of BYTES 'x' on stdout, then "end" on stderr
	"interleave":       helperInterleave, // N: N lines "out i" and "err i", alternating stdout and stderr
	"block":            helperBlock,      // [READY]: print "hello", become ready, block
	"ignore-term":      helperIgnoreTerm, // READY [GRANDCHILD-PIDFILE]
	"orphan":           helperOrphan,     // PIDFILE: leave a grandchild holding the pipes, exit 0
	"flood":            helperFlood,      // print lines forever
	"setsid-orphan":    helperSetsid,     // PIDFILE: leave a grandchild in a new session holding the pipes, exit 0
	"lines":            helperLines,      // DIR N: print "line i" once DIR/i exists, for i = 1..N, exit 0
	"write":            helperWrite,      // PATH... READY: write files, become ready, block
}

func helperExit(a helperArgs) int {
	fmt.Print(a.at(1))
	fmt.Fprint(os.Stderr, a.at(2))
	code, _ := strconv.Atoi(a.at(0))
	return code
}

func helperSelfKill(helperArgs) int {
	_ = syscall.Kill(os.Getpid(), syscall.SIGKILL)
	blockForever()
	return 0
}

func helperCat(helperArgs) int {
	_, _ = io.Copy(os.Stdout, os.Stdin)
	return 0
}

func helperDevNull(helperArgs) int {
	a, err1 := os.Stdin.Stat()
	b, err2 := os.Stat(os.DevNull)
	fmt.Print(err1 == nil && err2 == nil && os.SameFile(a, b))
	return 0
}

func helperBigLine(a helperArgs) int {
	n, _ := strconv.Atoi(a.at(0))
	_, _ = os.Stdout.WriteString(strings.Repeat("x", n) + "\n")
	fmt.Fprint(os.Stderr, "end")
	return 0
}

func helperInterleave(a helperArgs) int {
	n, _ := strconv.Atoi(a.at(0))
	for i := range n {
		fmt.Fprintf(os.Stdout, "out %d\n", i)
		fmt.Fprintf(os.Stderr, "err %d\n", i)
	}
	return 0
}

func helperBlock(a helperArgs) int {
	fmt.Println("hello")
	ready(a.at(0))
	blockForever()
	return 0
}

func helperIgnoreTerm(a helperArgs) int {
	signal.Ignore(syscall.SIGTERM)
	if a.at(1) != "" {
		if err := startGrandchild(a.at(1), true); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 2
		}
	}
	ready(a.at(0))
	blockForever()
	return 0
}

func helperOrphan(a helperArgs) int {
	if err := startGrandchild(a.at(0), false); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	fmt.Println("leader done")
	return 0
}

func helperFlood(helperArgs) int {
	line := []byte(strings.Repeat("flood ", 20) + "\n")
	for {
		if _, err := os.Stdout.Write(line); err != nil {
			return 3
		}
	}
}

func helperSetsid(a helperArgs) int {
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
	if err := writeFileAtomic(a.at(0), strconv.Itoa(c.Process.Pid)); err != nil {
		return 2
	}
	fmt.Println("leader done")
	return 0
}

func helperLines(a helperArgs) int {
	n, _ := strconv.Atoi(a.at(1))
	for i := 1; i <= n; i++ {
		for {
			if _, err := os.Stat(filepath.Join(a.at(0), strconv.Itoa(i))); err == nil {
				break
			}
			time.Sleep(time.Millisecond)
		}
		fmt.Println("line", i)
	}
	return 0
}

func helperWrite(a helperArgs) int {
	if len(a) == 0 {
		return 2
	}
	for _, p := range a[:len(a)-1] {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return 2
		}
		if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
			return 2
		}
	}
	ready(a[len(a)-1])
	blockForever()
	return 0
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

// syncBuffer is a bytes.Buffer Run may write while the test reads it.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// await waits (at most 10 s) until the buffer holds s.
func (b *syncBuffer) await(t *testing.T, s string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(b.String(), s) {
		if time.Now().After(deadline) {
			t.Fatalf("output %q has no %q after 10 s", b.String(), s)
		}
		time.Sleep(time.Millisecond)
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
