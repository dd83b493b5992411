//go:build unix

package supervise

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/creack/pty"
	"golang.org/x/sys/unix"
)

func init() {
	behaviours["tty-run"] = helperTTYRun   // NEWSESSION: run "open-tty" through Run, print what it printed
	behaviours["open-tty"] = helperOpenTTY // print whether /dev/tty opens, and whether we lead our session
}

// helperTTYRun runs on a terminal that is its controlling one: it runs
// open-tty through Run, with Command.NewSession as its argument says.
func helperTTYRun(a helperArgs) int {
	exe, err := os.Executable()
	if err != nil {
		fmt.Println(err)
		return 2
	}
	var out bytes.Buffer
	c := Command{Argv: []string{exe, "open-tty"}, Env: os.Environ(), NewSession: a.at(0) == "true"}
	o := Run(context.Background(), c, Options{Grace: time.Second, Stdout: &out, Combined: true})
	fmt.Printf("%s exit %d\n", strings.TrimSpace(out.String()), o.ExitCode)
	return 0
}

func helperOpenTTY(helperArgs) int {
	lead := "leader"
	if sid, _ := unix.Getsid(0); sid != os.Getpid() {
		lead = "member"
	}
	f, err := os.OpenFile("/dev/tty", os.O_RDWR, 0)
	if err != nil {
		fmt.Printf("tty refused (%v), session %s", err, lead)
		return 0
	}
	f.Close()
	fmt.Printf("tty opened, session %s", lead)
	return 0
}

// TestNewSessionHasNoTerminal: a command Run starts with NewSession, from
// a process whose controlling terminal is a real pty, cannot open
// /dev/tty (so cannot inject keystrokes into the person's terminal), and
// leads its own session; without NewSession it shares the terminal, as
// every command did before.
func TestNewSessionHasNoTerminal(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		session bool
		want    string
	}{
		{false, "tty opened, session member exit 0"},
		{true, "tty refused (open /dev/tty: no such device or address), session leader exit 0"},
	} {
		exe, err := os.Executable()
		if err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(exe, "tty-run", strconv.FormatBool(tc.session))
		cmd.Env = append(os.Environ(), helperEnv+"=1", "GORACE=atexit_sleep_ms=0")
		f, err := pty.Start(cmd) // a session of its own with the pty as its controlling terminal
		if err != nil {
			t.Fatal(err)
		}
		out, _ := io.ReadAll(f) // until the pty closes (EIO)
		_ = cmd.Wait()
		f.Close()
		if got := strings.TrimSpace(string(out)); got != tc.want {
			t.Errorf("NewSession=%v: %q, want %q", tc.session, got, tc.want)
		}
	}
}

// TestNewSessionGroupIsStopped: a command in a session of its own is
// still stopped as a group: a stop, once it and its grandchild run, ends
// the TERM-ignoring leader and the grandchild it left in its group.
func TestNewSessionGroupIsStopped(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	ready, grandchild := filepath.Join(dir, "ready"), filepath.Join(dir, "grandchild")
	c := helperCmd(t, "ignore-term", ready, grandchild)
	c.NewSession = true
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan Outcome, 1)
	go func() { done <- Run(ctx, c, Options{Grace: 200 * time.Millisecond}) }()
	leader, child := waitFile(t, ready), waitFile(t, grandchild)
	cancel()
	if got := <-done; got.Reason != Canceled {
		t.Errorf("Run = %+v, want Canceled", got)
	}
	assertGone(t, leader)
	assertGone(t, child)
}
