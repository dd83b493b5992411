package fakeagent

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// Reply is the fake agent's whole answer to one call.
type Reply struct {
	Out   string        // stdout; {{CALL}}, {{SESSION}} and {{EPOCH+S}} are expanded
	Err   string        // stderr; expanded like Out
	RC    int           // exit code
	Delay time.Duration // sleep before exiting
	// Wait blocks the call after calls/N.started until the test calls
	// Release (at most a minute, then it exits 124).
	Wait bool
	Hang bool // print Out, then block until killed
	// Chatter prints a line on stderr every 50 ms until just before the
	// call has started (with Wait, until it is released), then falls
	// silent.
	Chatter bool
	Child   bool // leave a blocking grandchild in the process group
	// Setsid puts Child's grandchild in a new session instead, out of
	// the process group (as a daemonising helper does).
	Setsid bool
	// Flood prints this many bytes of filler lines on stdout before Out;
	// FloodForever prints them until the process is killed.
	Flood int64
	Check bool     // tick the first "- [ ]" box in ./.ralph/@fix_plan.md
	Touch []string // relative paths to append "call N" to
}

// FloodForever is Reply.Flood for an agent that never stops printing.
const FloodForever = -1

// Script describes a script directory. Every reply is written in full, so a
// per-call Reply replaces Default entirely.
type Script struct {
	Default     Reply
	Calls       map[int]Reply // by call number, from 1
	SessionList string        // answer to "opencode session list"; "" keeps "[]"
}

// Write lays the script out in dir, creating it if needed. Earlier call
// records under dir/calls are left alone.
func (s Script) Write(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("write fake agent script: %w", err)
	}
	if err := s.Default.write(dir, "default"); err != nil {
		return err
	}
	for n, r := range s.Calls {
		if n < 1 {
			return fmt.Errorf("write fake agent script %s: call number %d, want 1 or more", dir, n)
		}
		if err := r.write(dir, strconv.Itoa(n)); err != nil {
			return err
		}
	}
	if s.SessionList != "" {
		if err := os.WriteFile(filepath.Join(dir, "session-list.out"), []byte(s.SessionList), 0o644); err != nil {
			return fmt.Errorf("write fake agent script: %w", err)
		}
	}
	return nil
}

func (r Reply) write(dir, name string) error {
	touch := ""
	if len(r.Touch) > 0 {
		touch = strings.Join(r.Touch, "\n") + "\n"
	}
	files := []struct{ ext, content string }{
		{"out", r.Out},
		{"err", r.Err},
		{"rc", strconv.Itoa(r.RC) + "\n"},
		{"delay", r.Delay.String() + "\n"},
		{"wait", strconv.FormatBool(r.Wait) + "\n"},
		{"hang", strconv.FormatBool(r.Hang) + "\n"},
		{"chatter", strconv.FormatBool(r.Chatter) + "\n"},
		{"child", strconv.FormatBool(r.Child) + "\n"},
		{"setsid", strconv.FormatBool(r.Setsid) + "\n"},
		{"flood", flood(r.Flood)},
		{"check", strconv.FormatBool(r.Check) + "\n"},
		{"touch", touch},
	}
	for _, f := range files {
		if err := os.WriteFile(filepath.Join(dir, name+"."+f.ext), []byte(f.content), 0o644); err != nil {
			return fmt.Errorf("write fake agent script: %w", err)
		}
	}
	return nil
}

// Count returns how many counted calls the fake agent has taken in dir.
func Count(dir string) (int, error) {
	return readCount(filepath.Join(dir, "calls"))
}

// Argv returns the recorded argv of call n: argv0's basename, then the arguments.
func Argv(dir string, n int) ([]string, error) {
	p := filepath.Join(dir, "calls", strconv.Itoa(n)+".argv.json")
	b, err := os.ReadFile(p)
	if err != nil {
		return nil, fmt.Errorf("read fake agent argv: %w", err)
	}
	var argv []string
	if err := json.Unmarshal(b, &argv); err != nil {
		return nil, fmt.Errorf("read fake agent argv %s: %w", p, err)
	}
	return argv, nil
}

// AwaitStarted waits until call n has written calls/N.started (its
// output is written by then; a .wait call now waits for Release), for at
// most limit.
func AwaitStarted(dir string, n int, limit time.Duration) error {
	p := filepath.Join(dir, "calls", strconv.Itoa(n)+".started")
	deadline := time.Now().Add(limit)
	for {
		if _, err := os.Stat(p); err == nil {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("fake agent call %d did not start within %s (no %s)", n, limit, p)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// Release lets call n of a .wait script go on: it writes calls/N.release
// (before or after the call has started).
func Release(dir string, n int) error {
	calls := filepath.Join(dir, "calls")
	if err := os.MkdirAll(calls, 0o755); err != nil {
		return fmt.Errorf("release fake agent call %d: %w", n, err)
	}
	return writeAtomic(filepath.Join(calls, strconv.Itoa(n)+".release"), "")
}

func flood(n int64) string {
	switch {
	case n == FloodForever:
		return "forever\n"
	case n > 0:
		return strconv.FormatInt(n, 10) + "\n"
	}
	return ""
}
