package main

import (
	"context"
	"errors"
	"fmt"
	"github.com/ralphloop/ralph_loop/internal/events"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/ralphloop/ralph_loop/internal/config"
	"github.com/ralphloop/ralph_loop/internal/dashboard"
	"github.com/ralphloop/ralph_loop/internal/engine"
	"github.com/ralphloop/ralph_loop/internal/observe"
	"github.com/ralphloop/ralph_loop/internal/ralphdir"
	"github.com/ralphloop/ralph_loop/internal/readmodel"
)

// fileControl acts on a loop in another process the way the command line
// does: --pause and --resume write and remove the pause file; skip sends
// the loop SIGUSR1 (the skip a Ctrl+C gives during a wait); stop sends it
// SIGTERM, as bmalph's stop and kill do. The loop signalled is the process
// proven to hold the lock (signalHolder), not the pid in the lock file.
func fileControl(d *ralphdir.Dir) func(action string) error {
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

// serveCommand is --serve [ADDR] [--projects DIR...].
var serveCommand = &command{
	flag: &flagSpec{Flag: config.Flag{Long: "serve", Arg: "ADDR", Optional: true, Group: config.GroupWeb,
		Help: "serve the dashboard of this project's loop, running or finished, without running it"},
		kind: commandFlag, setting: "SERVE_ADDR"},
	options: []*flagSpec{projectsFlag},
	refuse: func(name string) error {
		if name != liveName {
			return nil
		}
		return flagError("--live", "--live does not apply with --serve, which runs no loop; the dashboard shows the live output of the loop it watches")
	},
	where: atProjectRoot,
	run: func(e *runEnv, l *line) error {
		// A value the dashboard ignores (a SERVE_TOKEN too short, say) is
		// said before it serves without it.
		for _, w := range e.warnings {
			fmt.Fprintf(e.safeErr, "ralph_loop: warning: %s\n", w)
		}
		return serve(e.cfg, serveOptionsOf(l), e.dir, e.cfg.ProjectDir, e.safeOut)
	},
}

// serveOptions are --serve's: the projects it shows (--projects DIR...,
// none for this one).
type serveOptions struct {
	projects []string
}

func serveOptionsOf(l *line) serveOptions { return serveOptions{projects: l.values("projects")} }

// projectsFlag is --projects DIR...
var projectsFlag = &flagSpec{
	Flag: config.Flag{Long: "projects", Arg: "DIR...", Group: config.GroupWeb,
		Help:    "with --serve: one row per project (or per worktree of a folder of worktrees)",
		Accepts: "one or more project folders (each holding .ralph/), or a folder of worktrees"},
	check: required(flagError("--projects", "--projects requires one or more project folders (each holding .ralph/), or a folder of worktrees")),
	refused: func(string) error {
		return flagError("--projects", "--projects only applies to --serve")
	},
}

// serve is --serve: the dashboard of this project's loop, or of several
// (--projects), until Ctrl+C.
func serve(cfg *config.Config, o serveOptions, dir *ralphdir.Dir, cwd string, stdout io.Writer) error {
	if err := checkServeConfig(cfg); err != nil {
		return err
	}
	var projects []dashboard.Project
	if len(o.projects) == 0 {
		if !exists(dir.Root()) {
			return fmt.Errorf("no %s here (%s); run --serve in a project, or name projects with --serve --projects DIR", cfg.RalphDir, cwd)
		}
		projects = append(projects, serveProject(filepath.Base(cwd), dir, cfg))
	} else {
		ralphName := cfg.RalphDir
		if filepath.IsAbs(ralphName) {
			ralphName = ".ralph"
		}
		roots, err := findProjects(o.projects, cwd, ralphName)
		if err != nil {
			return err
		}
		for _, r := range roots {
			projects = append(projects, serveProject(r.name, ralphdir.New(r.ralph, nil), cfg))
		}
	}
	l, err := dashboard.Listen(cfg.ServeAddr, cfg.ServeToken, "--serve")
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
	p := dashboard.Project{Name: name, Source: readmodel.FromFiles(projectFiles(name, d, cfg))}
	if cfg.ServeControl {
		p.Control = fileControl(d)
		p.Answer = dashboardAnswer(d)
	}
	return p
}

// projectFiles is the dashboard's view of the project named name.
func projectFiles(name string, d *ralphdir.Dir, cfg *config.Config) readmodel.Files {
	f := readmodel.Files{Name: name, Dir: d, MaxCalls: cfg.MaxCallsPerHour, Now: time.Now, Text: events.Event.Headline}
	if q := newQuotaSource(cfg); q != nil {
		f.Quota = q
	}
	return f
}

// checkServeConfig refuses settings that leave the dashboard unusable.
func checkServeConfig(cfg *config.Config) error {
	if cfg.ServeControl && cfg.ServeToken == "" {
		return errors.New("SERVE_CONTROL=true needs SERVE_TOKEN: every control needs the token; set SERVE_TOKEN (for example to the output of 'openssl rand -hex 16')")
	}
	return nil
}

// sandboxedDashboard refuses --dashboard without SERVE_TOKEN while a
// sandboxed agent with the network on runs: it shares this machine's
// loopback, so it would reach the page, and the logs the sandbox hides
// from it, unless every request needs the token.
func sandboxedDashboard(cfg *config.Config, o loopOptions, sb *agentSandbox) error {
	if !o.dashboard || sb == nil || !cfg.SandboxNetwork || cfg.ServeToken != "" {
		return nil
	}
	return errors.New("--dashboard with a sandbox needs SERVE_TOKEN: the sandboxed agent shares this machine's network and would reach the page, and the logs it shows, on 127.0.0.1; set SERVE_TOKEN (for example to the output of 'openssl rand -hex 16'), or SANDBOX_NETWORK=false")
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
// the loop runs in this process, from the View kept in memory from bus
// and the kept state keeper saves (readmodel.Watch), shown again at every
// event and notice. Its controls act on this process: pause and resume
// through the pause file as --pause does, skip as a Ctrl+C during a wait,
// stop as SIGTERM. It returns the function that stops serving and the
// keeper the engine must be given instead of keeper.
func startDashboard(cfg *config.Config, dir *ralphdir.Dir, cwd string, bus *observe.Fan, keeper engine.Keeper, sig *signals, sandboxed bool) (func(), engine.Keeper, error) {
	if err := checkServeConfig(cfg); err != nil {
		return nil, nil, err
	}
	l, err := dashboard.Listen(cfg.ServeAddr, cfg.ServeToken, "--dashboard")
	if err != nil {
		return nil, nil, err
	}
	p := serveProject(filepath.Base(cwd), dir, cfg)
	if p.Control != nil {
		p.Control = selfControl(dir, sig)
		p.Answer = dashboardAnswer(dir)
	}
	p.Source, keeper = readmodel.Watch(bus, keeper, projectFiles(p.Name, dir, cfg))
	srv := dashboard.New([]dashboard.Project{p}, dashboard.Options{Token: cfg.ServeToken, Controls: cfg.ServeControl, TokenEverywhere: sandboxed})
	wireDashboard(bus, srv)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := dashboard.Serve(ctx, l, srv); err != nil {
			bus.Log(events.Warn, "dashboard: %v", err)
		}
	}()
	// The console's lines also go to ralph.log: the token stays out of them.
	hint := ""
	switch {
	case sandboxed:
		hint = " (open it with ?token=<SERVE_TOKEN>: the sandboxed agent shares this machine's loopback, so every request needs the token)"
	case cfg.ServeToken != "":
		hint = " (open it with ?token=<SERVE_TOKEN> to use its controls or to reach it from another machine)"
	}
	bus.Log(events.Info, "Dashboard: %s%s", dashURL(l.Addr().String(), ""), hint)
	return func() { cancel(); <-done }, keeper, nil
}

// selfControl is the controls of the loop in this process.
func selfControl(d *ralphdir.Dir, sig *signals) func(action string) error {
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
