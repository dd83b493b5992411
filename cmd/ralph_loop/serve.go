package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"time"

	"github.com/ralphloop/ralph_loop/internal/config"
	"github.com/ralphloop/ralph_loop/internal/console"
	"github.com/ralphloop/ralph_loop/internal/dashboard"
	"github.com/ralphloop/ralph_loop/internal/events"
	"github.com/ralphloop/ralph_loop/internal/fixplan"
	"github.com/ralphloop/ralph_loop/internal/observe"
	"github.com/ralphloop/ralph_loop/internal/ralphdir"
	"github.com/ralphloop/ralph_loop/internal/report"
)

// The dashboard's bounds: what one snapshot reads and holds.
const (
	dashEventBytes = 4 << 20  // the end of the event log read for the timeline and the last events
	dashLiveBytes  = 48 << 10 // the end of live.log shown
	dashLoops      = 50       // loops in the timeline
	dashEvents     = 30       // last events
	dashPlanTasks  = 300      // plan tasks
)

// dashSnapshot is what the dashboard page shows of one project: the
// --status view plus the last run's loops (from the event log, as --report
// reads it), the plan and the last events.
type dashSnapshot struct {
	Name string `json:"name"`
	*statusView
	Run        *dashRun        `json:"run"`
	Loops      []dashLoop      `json:"loops"`
	LoopsTotal int             `json:"loops_total"`
	Plan       []fixplan.Task  `json:"plan"`
	PlanTotal  int             `json:"plan_total"`
	Events     []dashEventLine `json:"events"`
}

type dashRun struct {
	RunID      string    `json:"run_id"`
	Driver     string    `json:"driver,omitempty"`
	Started    time.Time `json:"started"`
	Finished   bool      `json:"finished"`
	ExitReason string    `json:"exit_reason,omitempty"`
	ExitCode   *int      `json:"exit_code,omitempty"`
}

type dashLoop struct {
	Loop         int      `json:"loop"`
	Outcome      string   `json:"outcome"`
	Seconds      float64  `json:"seconds"`
	FilesChanged int      `json:"files_changed"`
	Tokens       int64    `json:"tokens"`
	CostUSD      float64  `json:"cost_usd"`
	Ticked       []string `json:"tasks_ticked,omitempty"`
}

type dashEventLine struct {
	TS   time.Time `json:"ts"`
	Type string    `json:"type"`
	Text string    `json:"text"`
}

// projectSource shows one project's .ralph/ without writing a byte there.
type projectSource struct {
	name     string
	dir      *ralphdir.Dir
	maxCalls int
	now      func() time.Time
}

// stampFiles are the files whose change changes the snapshot.
var stampFiles = []string{ralphdir.Status, ralphdir.EventsLog, ralphdir.FixPlan, ralphdir.CircuitBreakerState,
	ralphdir.CallCount, ralphdir.PauseFile, ralphdir.ResponseAnalysis, ralphdir.LockFile}

// Stamps are the size, time and inode of each file the snapshot reads, the
// lock's holder and the clock hour (the call count rolls over with it);
// and those of live.log.
func (p *projectSource) Stamps() (snap, live string) {
	var b strings.Builder
	for _, name := range stampFiles {
		b.WriteString(fileStamp(p.dir, name))
	}
	if held, _ := p.dir.LockHolder(); held != nil {
		fmt.Fprintf(&b, "pid%d;", held.PID)
	}
	fmt.Fprintf(&b, "%d", p.now().Unix()/3600)
	return b.String(), fileStamp(p.dir, ralphdir.LiveLog)
}

func fileStamp(d *ralphdir.Dir, name string) string {
	st, err := d.Lstat(name)
	if err != nil {
		return "-;"
	}
	return fmt.Sprintf("%d.%d.%d;", st.Size(), st.ModTime().UnixNano(), fileID(st))
}

// Snapshot reads the project's state as --status does, and the timeline
// from the end of the event log (across a rotation) as --report does; the
// end read once gives the timeline, the last events and the last event
// --status's phase is told from.
func (p *projectSource) Snapshot() any {
	tail := tailLogs(p.dir, ralphdir.WithRotated(ralphdir.EventsLog), dashEventBytes)
	evs := tailEvents(tail, dashEvents)
	var last *events.Event
	if len(evs) > 0 {
		last = &evs[len(evs)-1]
	}
	s := &dashSnapshot{Name: p.name, statusView: statusAt(p.dir, p.maxCalls, p.now(), last), Loops: []dashLoop{},
		Plan: []fixplan.Task{}, Events: []dashEventLine{}}
	if data, found, err := p.dir.ReadFile(ralphdir.FixPlan); err == nil && found {
		s.Plan, s.PlanTotal = fixplan.Tasks(data, dashPlanTasks)
	}
	runs, _ := report.Read(bytes.NewReader(tail))
	if last := report.Last(runs); last != nil {
		s.Run = &dashRun{RunID: last.RunID, Driver: last.Driver, Started: last.Started, Finished: last.Finished,
			ExitReason: last.ExitReason, ExitCode: last.ExitCode}
		s.LoopsTotal = len(last.Loops)
		for _, l := range last.Loops[max(0, len(last.Loops)-dashLoops):] {
			d := dashLoop{Loop: l.Loop, Outcome: l.Outcome, Seconds: l.Seconds, FilesChanged: l.FilesChanged, Ticked: l.Ticked}
			if l.Usage != nil {
				d.Tokens, d.CostUSD = l.Usage.Tokens(), l.Usage.CostUSD
			}
			s.Loops = append(s.Loops, d)
		}
	}
	for _, e := range evs {
		s.Events = append(s.Events, dashEventLine{TS: e.TS, Type: string(e.Type), Text: console.Headline(e)})
	}
	return s
}

// ansi matches the terminal escapes a live renderer may have written.
var ansi = regexp.MustCompile(`\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(\x07|\x1b\\)`)

// Live is the end of live.log from a whole line on, as the agent's text
// (liveText), without terminal escapes.
func (p *projectSource) Live() string {
	data := tailLogs(p.dir, []string{ralphdir.LiveLog}, dashLiveBytes)
	if len(data) == dashLiveBytes {
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			data = data[i+1:]
		}
	}
	return strings.TrimLeft(strings.ToValidUTF8(ansi.ReplaceAllString(liveText(data), ""), "\uFFFD"), "\n")
}

// tailLogs is the last n bytes of the files, oldest first, read as one
// (a log and its rotated copies: the end spans a rotation). A missing or
// unreadable file (a link among them) is skipped.
func tailLogs(d *ralphdir.Dir, names []string, n int64) []byte {
	var parts [][]byte
	left := n
	for i := len(names) - 1; i >= 0 && left > 0; i-- {
		f, err := d.Open(names[i])
		if err != nil {
			continue
		}
		st, err := f.Stat()
		if err == nil {
			off := max(0, st.Size()-left)
			data, _ := io.ReadAll(io.NewSectionReader(f, off, st.Size()-off))
			if len(data) > 0 && data[len(data)-1] != '\n' {
				data = append(data, '\n')
			}
			parts = append(parts, data)
			left -= int64(len(data))
		}
		f.Close()
	}
	var out []byte
	for i := len(parts) - 1; i >= 0; i-- {
		out = append(out, parts[i]...)
	}
	return out
}

// fileControl acts on a loop in another process the way the command line
// does: --pause and --resume write and remove the pause file; skip sends
// the loop SIGUSR1 (the skip a Ctrl+C gives during a wait); stop sends it
// SIGTERM, as bmalph's stop and kill do. The loop signalled is the process
// proven to hold the lock (signalHolder), not the pid in the lock file.
func fileControl(d *ralphdir.Dir) dashboard.Control {
	return func(action string) error {
		switch action {
		case "pause", "resume":
			return pause(d, action == "pause", io.Discard)
		}
		held, err := d.LockHolder()
		if err != nil {
			return err
		}
		if held == nil {
			return errors.New("no loop is running in this project")
		}
		return signalHolder(held.Path, action == "skip")
	}
}

// serve is --serve: the dashboard of this project's loop, or of several
// (--projects), until Ctrl+C.
func serve(cfg *config.Config, dir *ralphdir.Dir, cwd string, stdout io.Writer) error {
	if err := checkServeConfig(cfg); err != nil {
		return err
	}
	var projects []dashboard.Project
	if len(cfg.Projects) == 0 {
		if !exists(dir.Root()) {
			return fmt.Errorf("no %s here (%s); run --serve in a project, or name projects with --serve --projects DIR", cfg.RalphDir, cwd)
		}
		projects = append(projects, serveProject(filepath.Base(cwd), dir, cfg))
	} else {
		ralphName := cfg.RalphDir
		if filepath.IsAbs(ralphName) {
			ralphName = ".ralph"
		}
		roots, err := findProjects(cfg.Projects, cwd, ralphName)
		if err != nil {
			return err
		}
		for _, r := range roots {
			projects = append(projects, serveProject(r.name, ralphdir.New(r.ralph, nil), cfg))
		}
	}
	l, err := dashboard.Listen(cfg.ServeAddr, cfg.ServeToken)
	if err != nil {
		return err
	}
	srv := dashboard.New(projects, dashboard.Options{Token: cfg.ServeToken, Controls: cfg.ServeControl})
	fmt.Fprintf(stdout, "Serving the dashboard of %s at %s (Ctrl+C to stop)\n", describeProjects(projects), dashURL(l.Addr().String(), cfg.ServeToken))
	ctx, stop := signal.NotifyContext(context.Background(), stopSignals...)
	defer stop()
	return dashboard.Serve(ctx, l, srv)
}

func describeProjects(ps []dashboard.Project) string {
	if len(ps) == 1 {
		return ps[0].Name
	}
	return fmt.Sprintf("%d projects", len(ps))
}

// dashURL is the address to open; with a token, the link that carries it.
func dashURL(addr, token string) string {
	u := "http://" + addr + "/"
	if token != "" {
		u += "?token=" + token
	}
	return u
}

func serveProject(name string, d *ralphdir.Dir, cfg *config.Config) dashboard.Project {
	p := dashboard.Project{Name: name, Source: &projectSource{name: name, dir: d, maxCalls: cfg.MaxCallsPerHour, now: time.Now}}
	if cfg.ServeControl {
		p.Control = fileControl(d)
	}
	return p
}

// checkServeConfig refuses settings that leave the dashboard unusable.
func checkServeConfig(cfg *config.Config) error {
	if cfg.ServeControl && cfg.ServeToken == "" {
		return errors.New("SERVE_CONTROL=true needs SERVE_TOKEN: every control needs the token; set SERVE_TOKEN (for example to the output of 'openssl rand -hex 16')")
	}
	return nil
}

type projectRoot struct{ name, ralph string }

// findProjects resolves --projects: a folder holding .ralph/ is a project;
// any other folder is searched one level down (a folder of worktrees, such
// as bmalph's .swarm/).
func findProjects(dirs []string, cwd, ralphName string) ([]projectRoot, error) {
	var out []projectRoot
	for _, d := range dirs {
		if !filepath.IsAbs(d) {
			d = filepath.Join(cwd, d)
		}
		d = filepath.Clean(d)
		if isDir(filepath.Join(d, ralphName)) {
			out = append(out, projectRoot{filepath.Base(d), filepath.Join(d, ralphName)})
			continue
		}
		entries, err := os.ReadDir(d)
		if err != nil {
			return nil, fmt.Errorf("--projects %s: %w; name folders that hold %s, or a folder of them", d, errors.Unwrap(err), ralphName)
		}
		found := 0
		for _, e := range entries {
			sub := filepath.Join(d, e.Name())
			if e.IsDir() && isDir(filepath.Join(sub, ralphName)) {
				out = append(out, projectRoot{filepath.Base(d) + "/" + e.Name(), filepath.Join(sub, ralphName)})
				found++
			}
		}
		if found == 0 {
			return nil, fmt.Errorf("--projects %s: no %s in it nor in any folder directly below it; name a project folder or a folder of worktrees", d, ralphName)
		}
	}
	return out, nil
}

func isDir(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}

// startDashboard is --dashboard: it serves this project's dashboard while
// the loop runs in this process, read again at every event, notice and
// state change on bus. Its controls act on this process: pause and resume
// through the pause file as --pause does, skip as a Ctrl+C during a wait,
// stop as SIGTERM. The returned function stops serving.
func startDashboard(cfg *config.Config, dir *ralphdir.Dir, cwd string, bus *observe.Fan, sig *signals) (func(), error) {
	if err := checkServeConfig(cfg); err != nil {
		return nil, err
	}
	l, err := dashboard.Listen(cfg.ServeAddr, cfg.ServeToken)
	if err != nil {
		return nil, err
	}
	p := serveProject(filepath.Base(cwd), dir, cfg)
	if p.Control != nil {
		p.Control = selfControl(dir, sig)
	}
	srv := dashboard.New([]dashboard.Project{p}, dashboard.Options{Token: cfg.ServeToken, Controls: cfg.ServeControl})
	wireDashboard(bus, srv)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := dashboard.Serve(ctx, l, srv); err != nil {
			bus.Warnf("dashboard: %v", err)
		}
	}()
	// The console's lines also go to ralph.log: the token stays out of them.
	hint := ""
	if cfg.ServeToken != "" {
		hint = " (open it with ?token=<SERVE_TOKEN> to use its controls or to reach it from another machine)"
	}
	bus.Infof("Dashboard: %s%s", dashURL(l.Addr().String(), ""), hint)
	return func() { cancel(); <-done }, nil
}

// selfControl is the controls of the loop in this process.
func selfControl(d *ralphdir.Dir, sig *signals) dashboard.Control {
	return func(action string) error {
		switch action {
		case "pause", "resume":
			return pause(d, action == "pause", io.Discard)
		case "skip":
			if !sig.stopper.Skip() {
				return errors.New("no wait to skip: the loop is not waiting")
			}
			return nil
		}
		sig.deliver(syscall.SIGTERM)
		return nil
	}
}
