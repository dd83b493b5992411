package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/term"

	"github.com/ralphloop/ralph_loop/internal/config"
	"github.com/ralphloop/ralph_loop/internal/engine"
	"github.com/ralphloop/ralph_loop/internal/ralphdir"
	"github.com/ralphloop/ralph_loop/internal/readmodel"
)

// noTmux is the refusal of --monitor on a system without tmux: Windows has
// none, so one line points to --live there.
func noTmux(goos string) error {
	if goos == "windows" {
		return &exitError{code: 1, lines: []string{
			"--monitor needs tmux, which Windows does not have; run ralph_loop --live instead (and ralph_loop --status in a second window to watch it)",
		}}
	}
	return &exitError{code: 1, lines: []string{
		"tmux is not installed. Please install tmux or run without --monitor flag.",
		"Install tmux:",
		"  Ubuntu/Debian: sudo apt-get install tmux",
		"  macOS: brew install tmux",
		"  CentOS/RHEL: sudo yum install tmux",
	}}
}

// monitorCommand is --monitor: the loop in tmux, beside its status.
var monitorCommand = &command{
	flag: &flagSpec{Flag: config.Flag{Long: "monitor", Short: "m", Group: config.GroupMain, Common: true,
		Help: "run inside tmux next to a live status view (needs tmux)"}, kind: commandFlag},
	loop: true,
	run:  func(e *runEnv, _ *line) error { return monitor(e.cfg, e.args, e.dir, e.reset, e.safeErr) },
}

// monitor is --monitor: the loop (with --live) and a refreshed --status
// summary in two tmux panes, run by this binary's own path, never a
// different ralph found on PATH. Outside tmux it makes a session and
// attaches to it; inside tmux it opens a window in the current session.
// The loop gets the caller's whole environment (a tmux pane starts from
// the server's, which may be an older shell's); when it ends, its pane
// shows the end for a few seconds and closes the window or session, and
// this command exits with the loop's exit code.
func monitor(cfg *config.Config, args []string, dir *ralphdir.Dir, reset string, stderr io.Writer) error {
	tmux, err := exec.LookPath("tmux")
	if err != nil {
		return noTmux(runtime.GOOS)
	}
	cwd, err := os.Getwd()
	if err != nil {
		return fmt.Errorf("cannot read the current directory: %w", err)
	}
	// What would stop the loop at once is said here, not in a pane that
	// closes a few seconds later, and before anything is written.
	if err := precheck(cfg, dir, projectRepo(settingsFor(cfg, reset).ProjectDir, "", nil, nil), cwd, reset, false, stderr, stderr); err != nil {
		return err
	}
	held, err := dir.LockHolder()
	if err != nil {
		return err
	}
	if held != nil {
		return held
	}
	self, err := os.Executable()
	if err != nil {
		return fmt.Errorf("cannot find my own executable for the tmux panes: %w", err)
	}
	if err := dir.EnsureLayout(); err != nil {
		return err
	}
	dir.WriteFile(ralphdir.LiveLog, []byte("=== Ralph Live Output - Waiting for first loop... ===\n"))

	m := &monitorRun{tmux: tmux, stderr: stderr, inside: os.Getenv("TMUX") != ""}
	m.name = "ralph-" + strconv.FormatInt(time.Now().Unix(), 10)
	if !m.inside && m.run("has-session", "-t", "="+m.name) == nil {
		m.name += "-" + strconv.Itoa(os.Getpid())
	}
	files := filepath.Join(dir.Path(ralphdir.LogsDir), ".monitor-"+m.name+"-"+strconv.Itoa(os.Getpid()))
	spec, exitFile := files+".json", files+".exit"
	// The loop's pane removes the spec once it has read it; after a
	// detach it may not have started yet, so the spec stays for it.
	detached := false
	defer func() {
		if !detached {
			os.Remove(spec)
		}
	}()
	defer os.Remove(exitFile)
	if err := writePaneSpec(spec, loopPaneSpec{
		Exe: self, Args: loopArgs(args), Env: os.Environ(), Dir: cwd, Exit: exitFile, Tmux: tmux,
		Close: m.kind(),
	}); err != nil {
		return err
	}
	lay := chooseLayout(m.size())
	loopCmd := shellQuote(self) + " " + monitorPaneFlag + " loop " + shellQuote(spec)
	statusCmd := shellQuote(self) + " " + monitorPaneFlag + " status " + shellQuote(dir.Root()) + " " + strconv.Itoa(cfg.MaxCallsPerHour)
	if err := m.open(cwd, lay, loopCmd, statusCmd); err != nil {
		return err
	}
	code, err := m.follow(exitFile)
	if errors.Is(err, errDetached) {
		detached = true
		return nil
	}
	if err != nil {
		return err
	}
	v := readmodel.Load(dir, cfg.MaxCallsPerHour, time.Now())
	fmt.Fprintf(stderr, "ralph_loop: the loop in tmux ended with exit code %d (%s)\n", code, v.StateLine())
	return exitStatus(code)
}

// monitorRun is one --monitor: the tmux it drives and what it made.
type monitorRun struct {
	tmux   string
	stderr io.Writer
	inside bool   // started from inside tmux: a window, not a session
	name   string // the session's (outside tmux) or the window's name
	target string // the session or window it made (tmux id)
}

// kind is what --monitor made: a window inside tmux, else a session.
func (m *monitorRun) kind() string {
	if m.inside {
		return "window"
	}
	return "session"
}

// run runs a tmux command whose output does not matter.
func (m *monitorRun) run(args ...string) error {
	_, err := m.output(args...)
	return err
}

// output runs a tmux command and returns its output, trimmed.
func (m *monitorRun) output(args ...string) (string, error) {
	out, err := exec.Command(m.tmux, args...).CombinedOutput()
	s := strings.TrimSpace(string(out))
	if err != nil {
		if s == "" {
			s = err.Error()
		}
		return "", fmt.Errorf("tmux %s: %s", args[0], s)
	}
	return s, nil
}

// size is the terminal the panes will fill: the current tmux window, or
// this command's terminal (80x24 when there is none).
func (m *monitorRun) size() (cols, rows int) {
	if m.inside {
		out, err := m.output("display-message", "-p", "#{window_width} #{window_height}")
		if _, serr := fmt.Sscan(out, &cols, &rows); err == nil && serr == nil {
			return cols, rows
		}
	}
	for _, f := range []*os.File{os.Stdout, os.Stdin, os.Stderr} {
		if c, r, err := term.GetSize(int(f.Fd())); err == nil && c > 0 && r > 0 {
			return c, r
		}
	}
	return 80, 24
}

// open makes the window (inside tmux) or the detached session with the
// status pane, then splits the loop's pane before it (left or above), so
// that the loop starts in a pane of its final size.
func (m *monitorRun) open(cwd string, lay paneLayout, loopCmd, statusCmd string) error {
	format := []string{"-P", "-F", "#{session_id} #{window_id} #{pane_id}"}
	cwd = tmuxStartDir(cwd)
	var out string
	var err error
	if m.inside {
		fmt.Fprintf(m.stderr, "Opening the monitor in a new tmux window: %s\n", m.name)
		out, err = m.output(append(append([]string{"new-window", "-n", m.name, "-c", cwd}, format...), statusCmd)...)
	} else {
		fmt.Fprintf(m.stderr, "Setting up tmux session: %s\n", m.name)
		cols, rows := lay.cols, lay.rows
		out, err = m.output(append(append([]string{"new-session", "-d", "-s", m.name, "-n", "Ralph: Loop | Status",
			"-x", strconv.Itoa(cols), "-y", strconv.Itoa(rows), "-c", cwd}, format...), statusCmd)...)
	}
	if err != nil {
		return err
	}
	var session, window, status string
	if _, err := fmt.Sscan(out, &session, &window, &status); err != nil {
		return fmt.Errorf("tmux: unexpected answer %q to new-window/new-session; is tmux 3.0 or newer installed?", out)
	}
	m.target = map[bool]string{true: window, false: session}[m.inside]
	split := []string{"split-window", "-b", lay.direction(), "-l", strconv.Itoa(lay.loopSize()), "-t", status, "-c", cwd, "-P", "-F", "#{pane_id}", loopCmd}
	loop, err := m.output(split...)
	if err != nil {
		m.run("kill-"+m.kind(), "-t", m.target)
		return err
	}
	m.run("select-pane", "-t", status, "-T", "Status")
	m.run("select-pane", "-t", loop, "-T", "Ralph Loop")
	where := map[bool][2]string{true: {"Top:   ", "Bottom:"}, false: {"Left: ", "Right:"}}[lay.stacked]
	fmt.Fprintf(m.stderr, "Tmux %s created with 2 panes:\n", m.kind())
	fmt.Fprintf(m.stderr, "  %s Ralph loop (--live)\n", where[0])
	fmt.Fprintf(m.stderr, "  %s Status (ralph_loop --status summary, every %d s)\n", where[1], int(statusEvery.Seconds()))
	return nil
}

// tmuxStartDir is the folder the panes start in: dir, or its nearest
// parent with no '#' in its path. tmux expands a start directory as a
// format, so #(command) in a folder's name would run the command; the
// panes' programs get the project's folder in their arguments and change
// to it themselves, never through tmux.
func tmuxStartDir(dir string) string {
	for strings.Contains(dir, "#") {
		parent := filepath.Dir(dir)
		if parent == dir {
			return string(filepath.Separator)
		}
		dir = parent
	}
	return dir
}

// follow waits for the loop's exit code: attached to the session outside
// tmux, else (inside tmux, or when attaching fails) by watching for the
// file its pane writes. A person who detaches gets the command line back
// and the loop goes on.
func (m *monitorRun) follow(exitFile string) (int, error) {
	if m.inside {
		fmt.Fprintf(m.stderr, "The loop runs in window %s of this session; waiting for it to end (Ctrl+C stops waiting, not the loop).\n", m.name)
		return m.wait(exitFile)
	}
	fmt.Fprintln(m.stderr, "Use Ctrl+B then D to detach from session")
	fmt.Fprintf(m.stderr, "Use 'tmux attach -t %s' to reattach\n", m.name)
	cmd := exec.Command(m.tmux, "attach-session", "-t", m.target)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	attachErr := cmd.Run()
	if code, ok := readExitCode(exitFile); ok {
		m.gone()
		return code, nil
	}
	if !m.alive() {
		return m.wait(exitFile)
	}
	if attachErr == nil {
		fmt.Fprintf(m.stderr, "Detached: the loop keeps running in tmux session %s ('tmux attach -t %s' to reattach).\n", m.name, m.name)
		unwatched(exitFile)
		return 0, errDetached
	}
	fmt.Fprintf(m.stderr, "ralph_loop: tmux attach: %v; the loop runs in tmux session %s ('tmux attach -t %s'); waiting for it to end.\n", attachErr, m.name, m.name)
	return m.wait(exitFile)
}

// Polling: the exit file is checked every monitorPoll, tmux (a process
// each time) every monitorAliveEvery.
const (
	monitorPoll       = 100 * time.Millisecond
	monitorAliveEvery = 2 * time.Second
)

// errDetached: the person detached from the session, the loop goes on.
var errDetached = errors.New("detached from the monitor's tmux session")

// unwatchedSuffix marks an exit file nobody waits for any more: the
// loop's pane then writes none.
const unwatchedSuffix = ".unwatched"

// unwatched tells the loop's pane that nobody waits for its exit code.
func unwatched(exitFile string) {
	ralphdir.WriteFileAtomic(exitFile+unwatchedSuffix, nil, 0o644)
	if _, err := os.Stat(exitFile); err == nil { // it came in the meantime
		os.Remove(exitFile + unwatchedSuffix)
	}
}

// wait polls for the exit code until the window or session is gone. A
// signal (Ctrl+C) ends the waiting, not the loop.
func (m *monitorRun) wait(exitFile string) (int, error) {
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	defer signal.Stop(stop)
	lastCheck := time.Now()
	for {
		if code, ok := readExitCode(exitFile); ok {
			m.gone()
			return code, nil
		}
		if time.Since(lastCheck) >= monitorAliveEvery {
			lastCheck = time.Now()
			if !m.alive() {
				if code, ok := readExitCode(exitFile); ok {
					return code, nil
				}
				return 0, fmt.Errorf("the monitor's tmux %s %s closed before the loop reported its exit code; see .ralph/logs/ralph.log for how the run ended", m.kind(), m.name)
			}
		}
		select {
		case sig := <-stop:
			unwatched(exitFile)
			fmt.Fprintf(m.stderr, "\nralph_loop: stopped waiting; the loop goes on in tmux %s %s.\n", m.kind(), m.name)
			return 0, engine.NewSignalError(sig)
		case <-time.After(monitorPoll):
		}
	}
}

// gone waits (a bounded while) until the loop's pane has closed the
// window or session, so that the command line comes back as it goes.
func (m *monitorRun) gone() {
	deadline := time.Now().Add(monitorLinger + 5*time.Second)
	for time.Now().Before(deadline) && m.alive() {
		time.Sleep(monitorPoll)
	}
}

// alive reports whether the window or session it made still exists.
func (m *monitorRun) alive() bool {
	return m.run("list-panes", "-t", m.target) == nil
}

// readExitCode reads the exit code the loop's pane wrote.
func readExitCode(path string) (int, bool) {
	data, err := ralphdir.ReadFileCapped(path, 64)
	if err != nil {
		return 0, false
	}
	code, err := strconv.Atoi(strings.TrimSpace(string(data)))
	return code, err == nil
}

// loopArgs are the loop pane's arguments: the caller's, without the
// monitor flag, with --live.
func loopArgs(args []string) []string {
	out := []string{"--live"}
	for _, a := range args {
		if a == "-m" || a == "--monitor" || a == "-l" || a == "--live" {
			continue
		}
		out = append(out, a)
	}
	return out
}

// writePaneSpec hands the loop's pane what it runs. The file holds the
// caller's environment (tokens, keys), so only its owner may read it, and
// the pane removes it as soon as it has read it.
func writePaneSpec(path string, s loopPaneSpec) error {
	data, err := json.Marshal(s)
	if err != nil {
		return err
	}
	if len(data) > monitorSpecCap {
		return fmt.Errorf("--monitor: the environment is %d bytes, over the %d the loop's pane accepts; unset some variables", len(data), monitorSpecCap)
	}
	return ralphdir.WriteFileAtomic(path, data, 0o600)
}

// paneLayout is where the two panes go in a window of cols x rows: side
// by side (the loop left) from wideColumns on, else stacked (the loop
// above), so that a line of the loop's boxes never has to wrap.
type paneLayout struct {
	cols, rows int
	stacked    bool
	status     int // the status pane's columns (side by side) or rows (stacked)
}

// wideColumns is the narrowest window that gets the panes side by side.
const wideColumns = 120

func chooseLayout(cols, rows int) paneLayout {
	l := paneLayout{cols: cols, rows: rows, stacked: cols < wideColumns}
	if l.stacked {
		// The status pane's heading and summary are at most eight lines,
		// and a line may wrap.
		l.status = 9
		if rows < 24 {
			l.status = max(rows/3, 2)
		}
		return l
	}
	l.status = min(max(cols*2/5, 40), 80)
	return l
}

// direction is split-window's flag for the layout.
func (l paneLayout) direction() string {
	if l.stacked {
		return "-v"
	}
	return "-h"
}

// loopSize is the loop pane's rows (stacked) or columns (side by side):
// what the status pane and the border leave.
func (l paneLayout) loopSize() int {
	if l.stacked {
		return max(l.rows-l.status-1, 1)
	}
	return max(l.cols-l.status-1, 1)
}

// terminalWidth asks a terminal file w for its width in columns each
// time it is called; nil for anything else.
func terminalWidth(w io.Writer) func() int {
	f, ok := w.(*os.File)
	if !ok || !term.IsTerminal(int(f.Fd())) {
		return nil
	}
	return func() int {
		cols, _, err := term.GetSize(int(f.Fd()))
		if err != nil {
			return 0
		}
		return cols
	}
}

// shellQuote quotes s for a POSIX shell (tmux runs the panes' commands
// through one).
func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./=:,+@%", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
