package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unicode/utf8"

	"golang.org/x/term"

	"github.com/ralphloop/ralph_loop/internal/clip"
	"github.com/ralphloop/ralph_loop/internal/ralphdir"
	"github.com/ralphloop/ralph_loop/internal/readmodel"
	"github.com/ralphloop/ralph_loop/internal/safetext"
	"github.com/ralphloop/ralph_loop/internal/supervise"
)

// monitorPaneFlag starts one of the programs --monitor runs in its tmux
// panes; it comes first on the command line and is not for people.
const monitorPaneFlag = "--monitor-pane"

const (
	// monitorLinger is how long the loop's pane shows how the run ended
	// before it closes the window or session.
	monitorLinger = 5 * time.Second
	// statusEvery is how often the status pane is redrawn.
	statusEvery = 2 * time.Second
	// monitorSpecCap bounds the loop pane's spec (mostly the environment).
	monitorSpecCap = 4 << 20
)

// loopPaneSpec is what the loop's pane runs: the loop's command line, the
// caller's environment and where to report the exit code.
type loopPaneSpec struct {
	Exe   string   `json:"exe"`
	Args  []string `json:"args"`
	Env   []string `json:"env"`
	Dir   string   `json:"dir"`
	Exit  string   `json:"exit"`  // the file that gets the loop's exit code
	Tmux  string   `json:"tmux"`  // the tmux binary
	Close string   `json:"close"` // what closes when done, for the closing line: "window" or "session"
}

// monitorPane runs one pane's program: "loop SPEC" or "status DIR MAX_CALLS".
func monitorPane(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	switch {
	case len(args) == 2 && args[0] == "loop":
		return loopPane(args[1], stdin, stdout, stderr)
	case len(args) == 3 && args[0] == "status":
		maxCalls, err := strconv.Atoi(args[2])
		if err != nil {
			return fmt.Errorf("%s status: the call limit %q is not a number; run 'ralph_loop --monitor' instead", monitorPaneFlag, args[2])
		}
		return statusPane(ralphdir.New(args[1], func(string) {}), maxCalls, stdout)
	}
	return fmt.Errorf("%s runs the panes of --monitor (loop SPEC | status DIR MAX_CALLS); run 'ralph_loop --monitor' instead", monitorPaneFlag)
}

// loopPane runs the loop in the pane with the caller's environment,
// reports its exit code, shows the end for monitorLinger (Enter closes
// at once) and closes the window --monitor made (outside tmux, the
// session's only window: the session goes with it).
func loopPane(specPath string, stdin io.Reader, stdout, stderr io.Writer) error {
	// Ctrl+C in the pane reaches the loop (the terminal signals its whole
	// foreground group); this program stays to report how it ended.
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM, syscall.SIGQUIT)
	s, err := readPaneSpec(specPath)
	if err != nil {
		fmt.Fprintf(stderr, "ralph_loop: %v\n", err)
		s = loopPaneSpec{Tmux: "tmux", Close: "window"}
	} else {
		code := s.run(stdin, stdout, stderr)
		drain(sigs)
		reportExit(s.Exit, code, stderr)
		fmt.Fprintf(stdout, "\nralph_loop exited with code %d; ", code)
	}
	waitForEnter(stdin, monitorLinger, sigs, func() {
		fmt.Fprintf(stdout, "this %s closes in %d s (Enter closes it now).\n", s.Close, int(monitorLinger.Seconds()))
	})
	if pane := os.Getenv("TMUX_PANE"); pane != "" {
		exec.Command(s.Tmux, "kill-window", "-t", pane).Run()
	}
	return nil
}

// reportExit writes the loop's exit code for --monitor, then takes it back
// if nobody waits for it any more. Each side writes its file before it
// looks for the other's (--monitor marks the code unwatched, then looks for
// it: see unwatched), so whatever the order, one of them sees both files
// and removes them: looking first and writing after would leave the code
// behind when --monitor gave up in between.
func reportExit(path string, code int, stderr io.Writer) {
	if err := ralphdir.WriteFileAtomic(path, []byte(strconv.Itoa(code)+"\n"), 0o644); err != nil {
		fmt.Fprintf(stderr, "ralph_loop: cannot report the exit code to --monitor: %v\n", err)
	}
	if os.Remove(path+unwatchedSuffix) == nil {
		os.Remove(path)
	}
}

// readPaneSpec reads the loop pane's spec and removes it: it holds the
// caller's environment.
func readPaneSpec(path string) (loopPaneSpec, error) {
	var s loopPaneSpec
	data, err := ralphdir.ReadFileCapped(path, monitorSpecCap)
	os.Remove(path)
	if err != nil {
		return s, fmt.Errorf("%s loop: %w; start the run again with ralph_loop --monitor", monitorPaneFlag, err)
	}
	if err := json.Unmarshal(data, &s); err != nil {
		return s, fmt.Errorf("%s loop: %s is not a pane spec (%v); start the run again with ralph_loop --monitor", monitorPaneFlag, path, err)
	}
	return s, nil
}

// run runs the loop in the pane and returns its exit code.
func (s loopPaneSpec) run(stdin io.Reader, stdout, stderr io.Writer) int {
	cmd := exec.Command(s.Exe, s.Args...)
	cmd.Dir = s.Dir
	cmd.Env = paneEnv(s.Env, os.Environ())
	cmd.Stdin, cmd.Stdout, cmd.Stderr = stdin, stdout, stderr
	return exitCodeOf(cmd.Run(), stderr)
}

// exitCodeOf is a finished command's exit code, 128 + the signal's number
// for one killed by a signal.
func exitCodeOf(err error, stderr io.Writer) int {
	var ee *exec.ExitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &ee):
		return supervise.ExitCode(ee.ProcessState)
	}
	fmt.Fprintf(stderr, "ralph_loop: cannot start the loop: %v\n", err)
	return 1
}

// paneVars are the variables that describe the pane rather than the
// caller: they keep the pane's values.
var paneVars = []string{"TERM", "TMUX", "TMUX_PANE", "COLUMNS", "LINES"}

// paneEnv is the caller's environment with the pane's own terminal
// variables.
func paneEnv(caller, pane []string) []string {
	isPaneVar := func(kv string) bool {
		name, _, _ := strings.Cut(kv, "=")
		for _, p := range paneVars {
			if name == p {
				return true
			}
		}
		return false
	}
	env := make([]string, 0, len(caller)+3)
	for _, kv := range caller {
		if !isPaneVar(kv) {
			env = append(env, kv)
		}
	}
	for _, kv := range pane {
		if isPaneVar(kv) {
			env = append(env, kv)
		}
	}
	return env
}

// drain empties c of the signals that came while the loop ran.
func drain(c chan os.Signal) {
	for {
		select {
		case <-c:
		default:
			return
		}
	}
}

// waitForEnter shows prompt, then waits for d, or less when a line is
// typed on in (a terminal) after the prompt or a signal arrives (Ctrl+C
// closes at once too): what was typed during the run does not count.
func waitForEnter(in io.Reader, d time.Duration, sigs <-chan os.Signal, prompt func()) {
	typed := make(chan struct{})
	f, _ := in.(*os.File)
	tty := f != nil && term.IsTerminal(int(f.Fd()))
	if tty {
		discardTypeahead(f)
	}
	prompt()
	if tty {
		go func() {
			bufio.NewReader(f).ReadString('\n')
			close(typed)
		}()
	}
	select {
	case <-typed:
	case <-sigs:
	case <-time.After(d):
	}
}

// statusPane redraws the --status summary every statusEvery (and when
// the pane is resized) until the pane closes.
func statusPane(d *ralphdir.Dir, maxCalls int, out io.Writer) error {
	resized := make(chan os.Signal, 1)
	if len(resizeSignals) > 0 {
		signal.Notify(resized, resizeSignals...)
	}
	tick := time.NewTicker(statusEvery)
	defer tick.Stop()
	io.WriteString(out, "\033[?25l\033[2J") // no cursor; a clean screen
	for {
		cols, rows := 80, 24
		if f, ok := out.(*os.File); ok {
			if c, r, err := term.GetSize(int(f.Fd())); err == nil {
				cols, rows = c, r
			}
		}
		now := time.Now()
		lines := statusScreen(readmodel.Load(d, maxCalls, now), now, cols, rows)
		if _, err := io.WriteString(out, "\033[H"+strings.Join(lines, "\033[K\r\n")+"\033[K\033[J"); err != nil {
			return nil // the pane is gone
		}
		select {
		case <-tick.C:
		case <-resized:
		}
	}
}

// statusIndent lines a wrapped summary line up with the values.
const statusIndent = "             "

// statusScreen is the status pane's text: a heading, then the --status
// summary, each line wrapped to cols under its value, at most rows lines.
func statusScreen(v *readmodel.View, now time.Time, cols, rows int) []string {
	var b bytes.Buffer
	v.WriteSummary(&b)
	lines := []string{fmt.Sprintf("Status at %s (every %d s)", now.Local().Format("15:04:05"), int(statusEvery.Seconds()))}
	for _, l := range strings.Split(strings.TrimRight(b.String(), "\n"), "\n") {
		if l == "" || l == "Summary:" {
			continue
		}
		lines = append(lines, wrapLine(safetext.Line(l), cols, statusIndent)...)
	}
	if rows > 0 && len(lines) > rows {
		lines = lines[:rows]
	}
	for i, l := range lines {
		lines[i] = clip.Ellipsis(l, cols)
	}
	return lines
}

// wrapLine breaks l into lines of at most cols runes at spaces, the
// following lines indented; a word longer than a line is cut.
func wrapLine(l string, cols int, indent string) []string {
	if cols <= len(indent)+10 || utf8.RuneCountInString(l) <= cols {
		return []string{l}
	}
	var out []string
	for utf8.RuneCountInString(l) > cols {
		r := []rune(l)
		cut := strings.LastIndex(string(r[:cols+1]), " ")
		if cut <= len(indent) {
			cut = len(string(r[:cols]))
		}
		out = append(out, strings.TrimRight(l[:cut], " "))
		l = indent + strings.TrimLeft(l[cut:], " ")
	}
	return append(out, l)
}
