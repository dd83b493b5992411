package fakeagent

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/gofrs/flock"
	"golang.org/x/term"
)

// Environment variables the fake agent reads.
const (
	EnvDir     = "FAKE_AGENT_DIR"     // the script directory
	envVersion = "FAKE_AGENT_VERSION" // the --version answer
	envSleeper = "FAKE_AGENT_SLEEPER" // set for the grandchild that .child starts
)

// defaultVersion is printed by --version when $FAKE_AGENT_VERSION is unset.
const defaultVersion = "1.0.0 (fake)"

// stdinCap bounds how long a call waits for stdin to close.
const stdinCap = 2 * time.Second

// releaseCap bounds how long a .wait call waits for its release file, so
// a test that never releases it fails instead of hanging; releaseRC is
// the exit code of a call that was not released in time (timeout(1)'s).
const (
	releaseCap = time.Minute
	releaseRC  = 124
)

// Main runs the fake agent CLI with os.Args and exits the process.
func Main() {
	os.Exit(run(os.Args, os.Stdin, os.Stdout, os.Stderr))
}

func run(args []string, stdin *os.File, stdout, stderr io.Writer) int {
	if os.Getenv(envSleeper) == "1" {
		blockForever()
	}
	self := "agent"
	if len(args) > 0 {
		self = filepath.Base(args[0])
	}
	args = append([]string{self}, args[min(1, len(args)):]...)
	dir := os.Getenv(EnvDir)
	if dir != "" {
		if abs, err := filepath.Abs(dir); err == nil {
			dir = abs
		}
	}

	// Auxiliary invocations: answered, never counted.
	if len(args) > 1 && (args[1] == "--version" || args[1] == "-v") {
		auxLog(dir, args)
		v := os.Getenv(envVersion)
		if v == "" {
			v = defaultVersion
		}
		fmt.Fprintln(stdout, v)
		return 0
	}
	if self == "opencode" && len(args) > 1 && args[1] == "session" {
		auxLog(dir, args)
		b, err := os.ReadFile(filepath.Join(dir, "session-list.out"))
		if err != nil || dir == "" {
			b = []byte("[]\n")
		}
		_, _ = stdout.Write(b)
		return 0
	}

	if dir == "" {
		fmt.Fprintf(stderr, "fakeagent: $%s is not set (point it at a script directory)\n", EnvDir)
		return 2
	}
	c := &call{dir: dir, calls: filepath.Join(dir, "calls")}
	if err := c.do(args, stdin, stdout, stderr); err != nil {
		fmt.Fprintf(stderr, "fakeagent: %v\n", err)
		return 2
	}
	return c.rc
}

type call struct {
	dir, calls string
	n, rc      int
	quiet      func() // ends .chatter
}

// chatterEvery is how often a .chatter call prints a line.
const chatterEvery = 50 * time.Millisecond

// chatter prints a line on stderr every chatterEvery until the returned
// func is called (and returns once the printing has stopped).
func (c *call) chatter(stderr io.Writer) func() {
	stop, stopped := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(stopped)
		t := time.NewTicker(chatterEvery)
		defer t.Stop()
		for {
			fmt.Fprintf(stderr, "fakeagent: call %d is working\n", c.n)
			select {
			case <-stop:
				return
			case <-t.C:
			}
		}
	}()
	var once sync.Once
	return func() {
		once.Do(func() { close(stop) })
		<-stopped
	}
}

func (c *call) do(args []string, stdin *os.File, stdout, stderr io.Writer) error {
	var err error
	if c.n, err = allocate(c.calls); err != nil {
		return err
	}
	if c.flag("chatter") {
		quiet := c.chatter(stderr)
		defer quiet()
		c.quiet = quiet
	}
	if err := c.record(args, stdin); err != nil {
		return err
	}
	if c.flag("check") {
		if err := tickFirstBox(filepath.Join(".ralph", "@fix_plan.md")); err != nil {
			fmt.Fprintf(stderr, "fakeagent: .check: %v\n", err)
		}
	}
	if b, ok := c.reply("touch"); ok {
		if err := c.touch(string(b)); err != nil {
			return err
		}
	}
	if c.flag("child") {
		if err := c.startChild(); err != nil {
			return err
		}
	}
	if b, ok := c.reply("err"); ok {
		_, _ = stderr.Write(c.expand(b))
	}
	if b, ok := c.reply("flood"); ok && strings.TrimSpace(string(b)) != "" {
		if err := c.flood(strings.TrimSpace(string(b)), stdout); err != nil {
			return err
		}
	}
	if b, ok := c.reply("out"); ok {
		_, _ = stdout.Write(c.expand(b))
	}
	wait, waits := c.reply("wait")
	waits = waits && flagOn(wait)
	if c.quiet != nil && !waits {
		c.quiet()
	}
	if err := writeAtomic(c.path("started"), strconv.Itoa(os.Getpid())+"\n"); err != nil {
		return err
	}
	if waits && !c.awaitRelease(releaseLimit(wait), stderr) {
		c.rc = releaseRC
		return appendLine(filepath.Join(c.calls, "done.log"), fmt.Sprintf("%d %d", c.n, c.rc))
	}
	if c.quiet != nil {
		c.quiet()
	}
	if b, ok := c.reply("delay"); ok {
		d, err := parseDelay(string(b))
		if err != nil {
			return fmt.Errorf("%s: %w", c.replyPath("delay"), err)
		}
		time.Sleep(d)
	}
	if c.flag("hang") {
		blockForever()
	}
	if b, ok := c.reply("rc"); ok {
		rc, err := strconv.Atoi(strings.TrimSpace(string(b)))
		if err != nil {
			return fmt.Errorf("%s: exit code %q is not an integer", c.replyPath("rc"), strings.TrimSpace(string(b)))
		}
		c.rc = rc
	}
	return appendLine(filepath.Join(c.calls, "done.log"), fmt.Sprintf("%d %d", c.n, c.rc))
}

// releaseLimit is how long a .wait call waits: a Go duration in the file
// (2s), else releaseCap.
func releaseLimit(b []byte) time.Duration {
	if d, err := time.ParseDuration(strings.TrimSpace(string(b))); err == nil && d > 0 {
		return d
	}
	return releaseCap
}

// awaitRelease blocks until calls/N.release exists (the test's latch: it
// waits for calls/N.started, acts, then releases the call) and reports
// whether it came within limit.
func (c *call) awaitRelease(limit time.Duration, stderr io.Writer) bool {
	deadline := time.Now().Add(limit)
	for {
		if _, err := os.Stat(c.path("release")); err == nil {
			return true
		}
		if time.Now().After(deadline) {
			fmt.Fprintf(stderr, "fakeagent: call %d was not released within %s (create %s)\n", c.n, limit, c.path("release"))
			return false
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// allocate takes the next call number under a file lock.
func allocate(calls string) (int, error) {
	if err := os.MkdirAll(calls, 0o755); err != nil {
		return 0, fmt.Errorf("create calls dir: %w", err)
	}
	lock := flock.New(filepath.Join(calls, ".lock"))
	if err := lock.Lock(); err != nil {
		return 0, fmt.Errorf("lock %s: %w", lock.Path(), err)
	}
	defer func() { _ = lock.Unlock() }()
	n, err := readCount(calls)
	if err != nil {
		return 0, err
	}
	n++
	if err := writeAtomic(filepath.Join(calls, "count"), strconv.Itoa(n)+"\n"); err != nil {
		return 0, err
	}
	return n, nil
}

func readCount(calls string) (int, error) {
	p := filepath.Join(calls, "count")
	b, err := os.ReadFile(p)
	if errors.Is(err, os.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("read call count: %w", err)
	}
	n, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		return 0, fmt.Errorf("read call count %s: %q is not an integer", p, strings.TrimSpace(string(b)))
	}
	return n, nil
}

func (c *call) record(args []string, stdin *os.File) error {
	js, err := json.Marshal(args)
	if err != nil {
		return err
	}
	env := slices.Clone(os.Environ())
	slices.Sort(env)
	cwd, err := os.Getwd()
	if err != nil {
		return fmt.Errorf("get working directory: %w", err)
	}
	files := []struct{ ext, content string }{
		{"argv", lines(args)},
		{"argv.json", string(js) + "\n"},
		{"stdin", readStdin(stdin)},
		{"env", lines(env)},
		{"cwd", cwd + "\n"},
	}
	for _, f := range files {
		if err := writeAtomic(c.path(f.ext), f.content); err != nil {
			return err
		}
	}
	return nil
}

func lines(ss []string) string {
	var b strings.Builder
	for _, s := range ss {
		b.WriteString(s)
		b.WriteByte('\n')
	}
	return b.String()
}

// readStdin returns what stdin holds, waiting at most stdinCap for it to close.
func readStdin(f *os.File) string {
	if f == nil {
		return ""
	}
	if term.IsTerminal(int(f.Fd())) {
		return "<tty>"
	}
	got := make(chan []byte, 1)
	go func() {
		b, _ := io.ReadAll(f)
		got <- b
	}()
	select {
	case b := <-got:
		return string(b)
	case <-time.After(stdinCap):
		return "<stdin still open after " + stdinCap.String() + ">"
	}
}

// path is calls/N.<ext>.
func (c *call) path(ext string) string {
	return filepath.Join(c.calls, fmt.Sprintf("%d.%s", c.n, ext))
}

// replyPath is the file that answers ext for this call: N.<ext>, else
// dir-<DIR>.<ext> (DIR the working directory's name: one swarm worker's
// own replies), else default.<ext>, else "".
func (c *call) replyPath(ext string) string {
	dir := "default"
	if wd, err := os.Getwd(); err == nil {
		dir = "dir-" + filepath.Base(wd)
	}
	for _, name := range []string{strconv.Itoa(c.n), dir, "default"} {
		p := filepath.Join(c.dir, name+"."+ext)
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	return ""
}

func (c *call) reply(ext string) ([]byte, bool) {
	p := c.replyPath(ext)
	if p == "" {
		return nil, false
	}
	b, err := os.ReadFile(p)
	return b, err == nil
}

// flag reports whether a flag file is on.
func (c *call) flag(ext string) bool {
	b, ok := c.reply(ext)
	return ok && flagOn(b)
}

func flagOn(b []byte) bool {
	switch strings.ToLower(strings.TrimSpace(string(b))) {
	case "0", "false", "no", "off":
		return false
	}
	return true
}

func (c *call) expand(b []byte) []byte {
	n := strconv.Itoa(c.n)
	b = bytes.ReplaceAll(b, []byte("{{CALL}}"), []byte(n))
	b = bytes.ReplaceAll(b, []byte("{{SESSION}}"), []byte("sess-"+n))
	return epochRE.ReplaceAllFunc(b, func(m []byte) []byte {
		secs, _ := strconv.ParseInt(string(epochRE.FindSubmatch(m)[1]), 10, 64)
		return strconv.AppendInt(nil, time.Now().Unix()+secs, 10)
	})
}

// epochRE is {{EPOCH}} or {{EPOCH+N}}: the Unix time now, plus N seconds.
var epochRE = regexp.MustCompile(`\{\{EPOCH(?:\+([0-9]{1,9}))?\}\}`)

func (c *call) touch(spec string) error {
	for _, p := range strings.Split(spec, "\n") {
		p = strings.TrimSpace(p)
		if p == "" {
			continue
		}
		if wd, err := os.Getwd(); err == nil {
			p = strings.ReplaceAll(p, "{{DIR}}", filepath.Base(wd))
		}
		if filepath.IsAbs(p) {
			return fmt.Errorf(".touch: %q is not a relative path", p)
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return fmt.Errorf(".touch: %w", err)
		}
		if err := appendLine(p, fmt.Sprintf("call %d", c.n)); err != nil {
			return fmt.Errorf(".touch: %w", err)
		}
	}
	return nil
}

// startChild leaves a process in our group that blocks forever and holds
// our stdout and stderr, as an agent's stray helper would.
func (c *call) startChild() error {
	exe, err := os.Executable()
	if err != nil {
		return fmt.Errorf(".child: %w", err)
	}
	cmd := exec.Command(exe)
	cmd.Args = []string{os.Args[0]} // testscript.Main dispatches on argv0
	cmd.Env = append(os.Environ(), envSleeper+"=1")
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	if c.flag("setsid") {
		leaveGroup(cmd)
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf(".child: %w", err)
	}
	return writeAtomic(c.path("child.pid"), strconv.Itoa(cmd.Process.Pid)+"\n")
}

var uncheckedBox = regexp.MustCompile(`(?m)^([ \t]*)- \[ \]`)

// tickFirstBox turns the first unchecked "- [ ]" item of the plan into "- [x]".
func tickFirstBox(plan string) error {
	b, err := os.ReadFile(plan)
	if err != nil {
		return err
	}
	loc := uncheckedBox.FindSubmatchIndex(b)
	if loc == nil {
		return fmt.Errorf("no unchecked task in %s", plan)
	}
	box := loc[3] // end of the indentation: "- [ ]" starts here
	out := slices.Concat(b[:box], []byte("- [x]"), b[box+len("- [ ]"):])
	return os.WriteFile(plan, out, 0o644)
}

func parseDelay(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	if d, err := time.ParseDuration(s); err == nil {
		return d, nil
	}
	secs, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 0, fmt.Errorf("delay %q is neither a duration (2s) nor seconds", s)
	}
	return time.Duration(secs * float64(time.Second)), nil
}

func auxLog(dir string, args []string) {
	if dir == "" {
		return
	}
	if err := os.MkdirAll(filepath.Join(dir, "calls"), 0o755); err == nil {
		_ = appendLine(filepath.Join(dir, "calls", "aux.log"), strings.Join(args, " "))
	}
}

func appendLine(path, line string) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	_, err = f.WriteString(line + "\n")
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// writeAtomic writes through a temp file and a rename, so a reader sees the
// whole file or none.
func writeAtomic(path, content string) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	_, err = f.WriteString(content)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		_ = os.Remove(f.Name())
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// flood prints numbered filler lines: spec bytes of them, or "forever"
// (calls/N.started is written first, as nothing comes after).
func (c *call) flood(spec string, stdout io.Writer) error {
	n, forever := int64(0), spec == "forever"
	if forever {
		if err := writeAtomic(c.path("started"), strconv.Itoa(os.Getpid())+"\n"); err != nil {
			return err
		}
	} else {
		var err error
		if n, err = strconv.ParseInt(spec, 10, 64); err != nil {
			return fmt.Errorf("%s: %q is neither a byte count nor forever", c.replyPath("flood"), spec)
		}
	}
	w := bufio.NewWriterSize(stdout, 64<<10)
	var line []byte
	for i := 0; forever || n > 0; i++ {
		line = fmt.Appendf(line[:0], "flood line %d: the agent is printing without end\n", i)
		if !forever && int64(len(line)) > n {
			line = line[:n]
		}
		if _, err := w.Write(line); err != nil {
			return nil // the reader is gone: stop quietly
		}
		n -= int64(len(line))
	}
	_ = w.Flush()
	return nil
}

func blockForever() {
	for {
		time.Sleep(time.Hour)
	}
}
