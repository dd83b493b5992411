package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/ralphloop/ralph_loop/drivers"
	"github.com/ralphloop/ralph_loop/internal/config"
	"github.com/ralphloop/ralph_loop/internal/engine"
	"github.com/ralphloop/ralph_loop/internal/events"
	"github.com/ralphloop/ralph_loop/internal/gitrun"
	"github.com/ralphloop/ralph_loop/internal/ralphdir"
	"github.com/ralphloop/ralph_loop/internal/sandbox"
)

// minFreeMB is the free space --doctor asks for on the .ralph/ filesystem:
// a long run writes a log per call, and a full disk stops the loop.
const minFreeMB = 500

// check is one line of --doctor: a mark, what was checked, and on failure
// how to fix it.
type check struct {
	mark string // ✓ passed, ⚠ passed with a warning (the run may fail or do less), ✗ failed, – skipped (cannot tell)
	text string
}

func good(format string, a ...any) check { return check{"✓", fmt.Sprintf(format, a...)} }
func warn(format string, a ...any) check { return check{"⚠", fmt.Sprintf(format, a...)} }
func bad(format string, a ...any) check  { return check{"✗", fmt.Sprintf(format, a...)} }
func skip(format string, a ...any) check { return check{"–", fmt.Sprintf(format, a...)} }

// doctorEnv is what the checks read from the outside world.
type doctorEnv struct {
	cwd       string
	lookPath  func(string) (string, error)
	lookupEnv func(string) (string, bool)
	home      string
	goos      string
	root      bool // the loop would run as root
}

// doctorCommand is --doctor [--monitor] [--notify-test].
var doctorCommand = &command{
	flag: &flagSpec{Flag: config.Flag{Long: "doctor", Doc: "DOCTOR.md", Group: config.GroupCommands, Common: true,
		Help: "check this project is ready to run unattended, and exit"}, kind: commandFlag},
	options: []*flagSpec{notifyTestFlag},
	refuse:  refusesLive("--doctor"),
	where:   atProjectRoot,
	run: func(e *runEnv, l *line) error {
		return doctor(e.cfg, doctorOptionsOf(l), e.warnings, e.dir, e.cwd, e.lookupEnv, e.safeOut)
	},
}

// doctorOptions are --doctor's: check what a monitored run needs (with
// --monitor: tmux), send each notifier a test (--notify-test).
type doctorOptions struct {
	monitor    bool
	notifyTest bool
}

func doctorOptionsOf(l *line) doctorOptions {
	return doctorOptions{monitor: doctorMonitor(l.commandFlags()), notifyTest: l.has("notify-test")}
}

// doctorMonitor reports whether the commands named are --doctor and
// --monitor, in either order: --doctor's, checking what a monitored run
// needs, and no second command.
func doctorMonitor(named []string) bool {
	return len(named) == 2 && named[0] != named[1] &&
		slices.Contains(named, "--doctor") && slices.Contains(named, "--monitor")
}

// notifyTestFlag is --notify-test.
var notifyTestFlag = &flagSpec{
	Flag: config.Flag{Long: "notify-test", Group: config.GroupCommands, Help: "with --doctor: send a test notification to each notifier"},
	refused: func(string) error {
		return flagError("--notify-test", "--notify-test only applies to --doctor")
	},
}

// doctor is --doctor: the checks a person wants passed before leaving a
// loop to run unattended, one line each, exit 1 when any fails. It writes
// nothing under .ralph/ and never takes the lock.
func doctor(cfg *config.Config, o doctorOptions, warnings []config.Warning, dir *ralphdir.Dir, cwd string, lookupEnv func(string) (string, bool), stdout io.Writer) error {
	home, _ := os.UserHomeDir()
	if h, found := lookupEnv("HOME"); found && h != "" {
		home = h
	}
	env := doctorEnv{cwd: cwd, lookPath: exec.LookPath, lookupEnv: lookupEnv, home: home, goos: runtime.GOOS, root: os.Geteuid() == 0}
	var checks []check
	checks = append(checks, agentChecks(cfg, env)...)
	checks = append(checks, fallbackChecks(cfg, env)...)
	if c, ok := rootCheck(cfg, env); ok {
		checks = append(checks, c)
	}
	checks = append(checks, gitCheck(cwd), configCheck(cfg, warnings), ralphDirCheck(cfg, dir))
	if exists(dir.Root()) {
		checks = append(checks, lockCheck(dir), diskCheck(dir.Root()), ignoreCheck(cwd, dir), stateIgnoreCheck(cwd, dir))
	}
	if o.monitor {
		checks = append(checks, tmuxCheck(env))
	}
	checks = append(checks, notifyChecks(cfg, o.notifyTest, cwd, env.lookPath)...)
	checks = append(checks, trackerChecks(cfg, dir, cwd)...)
	checks = append(checks, sandboxCheck(cfg, dir, cwd, env.lookPath))
	failed, warned := 0, 0
	for _, c := range checks {
		fmt.Fprintf(stdout, "%s %s\n", c.mark, c.text)
		switch c.mark {
		case "✗":
			failed++
		case "⚠":
			warned++
		}
	}
	if failed > 0 {
		return &exitError{code: 1, lines: []string{fmt.Sprintf("ralph_loop: --doctor: %d of %d checks failed", failed, len(checks))}}
	}
	if warned > 0 {
		fmt.Fprintf(stdout, "ralph_loop: --doctor: no check failed; %d of %d passed with a warning (⚠)\n", warned, len(checks))
	}
	return nil
}

// rootCheck: as root, Claude Code refuses --dangerously-skip-permissions
// (CLAUDE_PERMISSION_MODE=bypassPermissions, the default) unless it is told
// it runs in a sandbox: every call would fail (drivers.RootBypass, the rule
// the run warns with too). No line when the question does not arise.
func rootCheck(cfg *config.Config, env doctorEnv) (check, bool) {
	rb := drivers.RootBypass{Root: env.root && env.goos != "windows", PermissionMode: cfg.PermissionMode,
		Driver: cfg.Driver, Fallback: cfg.FallbackDriver, LookupEnv: env.lookupEnv}
	if mode, _, err := sandbox.Resolve(cfg.Sandbox, env.goos, cfg.SandboxEngine, env.lookPath); err == nil && mode != sandbox.Off {
		rb.Sandbox = mode
	}
	asked, refused, sandboxed := rb.Check()
	switch {
	case !asked:
		return check{}, false
	case refused:
		return bad("permissions: %s; %s", drivers.RootBypassProblem, drivers.RootBypassFix), true
	}
	return good("permissions: running as root with CLAUDE_PERMISSION_MODE=bypassPermissions; %s tells Claude Code it runs in a sandbox", sandboxed), true
}

// agentChecks: the agent CLI, as the loop's start-up check finds it, its
// version (`<cli> --version`: --doctor is the one command that starts the
// CLI other than to make a call), and whether it is logged in where that
// can be told without a network call.
func agentChecks(cfg *config.Config, env doctorEnv) []check {
	drv, res, err := engine.CheckAgent(context.Background(), *cfg, env.lookPath, false)
	return agentLines("", cfg.Driver, drv, res, err, env)
}

// agentLines are the lines of one agent CLI's check: found (where, which
// version) and, unless it is a command of one's own, its login. label
// names a second agent ("fallback ").
func agentLines(label, driver string, drv drivers.Driver, res drivers.CheckResult, err error, env doctorEnv) []check {
	if err != nil {
		return []check{bad("%sagent: %v", label, err)}
	}
	name := drv.DisplayName()
	line := fmt.Sprintf("%sagent: %s found at %s", label, name, res.Path)
	// The one start of the agent CLI that is not a call (engine.CheckAgent);
	// the line says so. A command of one's own is only looked for.
	asked := shellQuote(res.Path) + " --version"
	switch {
	case driver == "command":
	case res.Version != "":
		line += fmt.Sprintf("; '%s' says %s", asked, res.Version)
	case res.Warning == "":
		line += fmt.Sprintf("; '%s' shows no version number", asked)
	}
	warned := res.Warning != ""
	if warned {
		line += " (warning: " + res.Warning + ")"
	}
	installed, differs := installedLine(drv, res)
	line += installed
	found := good("%s", line)
	if warned || differs { // a check with a warning is not a ✓
		found = warn("%s", line)
	}
	if driver == "command" { // a command of one's own: nothing to log in to that we know of
		return []check{found}
	}
	login := loginCheck(driver, name, env)
	login.text = label + login.text
	return []check{found, login}
}

// installedLine is what the loop reads of the CLI's version from its
// install, without starting it (engine.InstalledVersion), for the agent
// line: "" when the install does not say; a warning (differs: the line
// is ⚠) when it says another version than `--version` did, as the loop
// builds its first calls for the install's.
func installedLine(drv drivers.Driver, res drivers.CheckResult) (line string, differs bool) {
	v, from := engine.InstalledVersion(drv, res.Path)
	if v == "" {
		return "", false
	}
	s := fmt.Sprintf("; the loop reads %s from %s", v, from)
	if res.Version != "" && res.Version != v {
		return s + fmt.Sprintf(" (warning: not the version '--version' says; a run builds its first calls for %s)", v), true
	}
	return s, false
}

// loginCheck looks for the credentials the CLI documents keeping on disk
// or reading from the environment. Their absence is not a failure: the
// CLI may keep them where only it can look (macOS keychain, a cloud
// provider's login), so that line is marked as not told.
func loginCheck(driver, name string, env doctorEnv) check {
	var vars, files []string
	switch driver {
	case "claude-code":
		vars = []string{"ANTHROPIC_API_KEY", "CLAUDE_CODE_OAUTH_TOKEN", "CLAUDE_CODE_USE_BEDROCK", "CLAUDE_CODE_USE_VERTEX"}
		cfgDir := filepath.Join(env.home, ".claude")
		if v, found := env.lookupEnv("CLAUDE_CONFIG_DIR"); found && v != "" {
			cfgDir = v
		}
		files = []string{filepath.Join(cfgDir, ".credentials.json")}
	case "codex":
		vars = []string{"OPENAI_API_KEY", "CODEX_API_KEY"}
		codexHome := filepath.Join(env.home, ".codex")
		if v, found := env.lookupEnv("CODEX_HOME"); found && v != "" {
			codexHome = v
		}
		files = []string{filepath.Join(codexHome, "auth.json")}
	default:
		return skip("login: %s cannot tell without a network call; skipped", name)
	}
	for _, v := range vars {
		if s, found := env.lookupEnv(v); found && s != "" {
			return good("login: %s is set", v)
		}
	}
	for _, f := range files {
		if st, err := os.Stat(f); err == nil && st.Mode().IsRegular() {
			return good("login: %s credentials found (%s)", name, f)
		}
	}
	where := "no " + strings.Join(files, ", ") + " and no " + strings.Join(vars, "/")
	if env.goos == "darwin" && driver == "claude-code" {
		where = "no API key set; the login may be in the macOS keychain, which is not read"
	}
	return skip("login: cannot tell (%s); run %s once by hand and log in if it asks", where, loginHint(driver))
}

// loginHint is the command a person runs to log a driver's CLI in.
func loginHint(driver string) string {
	if driver == "codex" {
		return "'codex login'"
	}
	return "'claude' (then /login)"
}

// gitCheck: the loop needs a git repository with at least one commit; the
// loop's own start-up check decides.
func gitCheck(cwd string) check {
	f, ok := engine.CheckGit(projectRepo(cwd, "", nil, nil), cwd)
	if ok {
		return good("git: a repository with commits")
	}
	if f.Err != nil {
		return bad("git: %v", f.Err)
	}
	switch f.Check {
	case events.GitMissing:
		return bad("git: not found on PATH; install git, then run 'git init' here")
	case events.NoGitRepo:
		return bad("git: %s is not a git repository; run 'git init' here", cwd)
	case events.NoCommits:
		return bad("git: the repository has no commit yet; make one: git add -A && git commit -m 'initial commit'")
	}
	return bad("git: %s", f.Check)
}

// configCheck: values the loop would refuse to start with were only
// warnings here (so that --doctor can run at all); each is a failure. Its
// message names the file and line or the variable, and what is accepted.
func configCheck(cfg *config.Config, warnings []config.Warning) check {
	from := "built-in defaults"
	if cfg.RCFile != "" {
		from = cfg.RCFile
	}
	var notes []string
	for _, w := range warnings {
		msg := w.String()
		if w.Invalid {
			msg = strings.TrimSuffix(strings.TrimSuffix(msg, "; using the defaults"), "; using the default")
			return bad("configuration: %s", msg)
		}
		notes = append(notes, msg)
	}
	if len(notes) > 0 {
		return warn("configuration: valid, with warnings (%s): %s", from, strings.Join(notes, "; "))
	}
	return good("configuration: valid (%s)", from)
}

// ralphDirCheck: the project was set up, with the prompt the loop sends.
func ralphDirCheck(cfg *config.Config, dir *ralphdir.Dir) check {
	if !exists(dir.Root()) {
		return bad("%s: not set up here; set it up with %s", cfg.RalphDir, config.SetupHint)
	}
	if err := dir.CheckFolders(); err != nil {
		return bad("%v", err)
	}
	p := cfg.PromptFile
	if !filepath.IsAbs(p) {
		p = filepath.Join(cfg.ProjectDir, p)
	}
	if st, err := os.Stat(p); err != nil || !st.Mode().IsRegular() {
		return bad("%s: no prompt file %s; run 'ralph_loop --init' to add the template, then edit it", cfg.RalphDir, cfg.PromptFile)
	}
	return good("%s: set up, prompt %s", cfg.RalphDir, cfg.PromptFile)
}

// lockCheck: no other loop runs in this project.
func lockCheck(dir *ralphdir.Dir) check {
	le, err := dir.LockHolder()
	if err != nil {
		return bad("lock: %v", err)
	}
	if le == nil {
		return good("lock: no other ralph_loop runs here")
	}
	stop := "stop it first (Ctrl+C where it runs)"
	who := "another ralph_loop"
	if le.PID > 0 {
		who = fmt.Sprintf("another ralph_loop (pid %d)", le.PID)
		stop = fmt.Sprintf("stop it first (Ctrl+C where it runs, or kill %d), or watch it with --status", le.PID)
	}
	return bad("lock: %s holds %s; %s", who, le.Path, stop)
}

// diskCheck: room for the logs of a long run.
func diskCheck(root string) check {
	free, err := freeMB(root)
	if err != nil {
		return bad("disk: cannot read the free space of %s: %v", root, err)
	}
	if free < minFreeMB {
		return bad("disk: only %d MB free on the filesystem of %s (at least %d MB wanted); free some space", free, root, minFreeMB)
	}
	return good("disk: %s free on the filesystem of %s", humanMB(free), root)
}

func humanMB(mb uint64) string {
	if mb >= 10*1024 {
		return fmt.Sprintf("%d GB", mb/1024)
	}
	return fmt.Sprintf("%d MB", mb)
}

// ignoreCheck: git ignores the logs, as `git check-ignore` says (so the
// loop's own commits and the agent's never carry them).
func ignoreCheck(cwd string, dir *ralphdir.Dir) check {
	logs := dir.Path(ralphdir.LogsDir)
	rel, err := filepath.Rel(cwd, logs)
	if err != nil || strings.HasPrefix(rel, "..") {
		return skip("gitignore: %s is outside the project; skipped", logs)
	}
	// A path inside logs/ is asked about, so that a pattern such as
	// ".ralph/logs/*" counts as well as ".ralph/logs/"; the file need not exist.
	probe := filepath.ToSlash(filepath.Join(rel, "ralph.log"))
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, err = gitrun.Run(ctx, cwd, "check-ignore", "-q", "--no-index", probe)
	var ee *exec.ExitError
	switch {
	case err == nil:
		return good("gitignore: %s/ is ignored", filepath.ToSlash(rel))
	case errors.As(err, &ee) && ee.ExitCode() == 1:
		return bad("gitignore: %s/ is not ignored; add the line '%s/' to .gitignore", filepath.ToSlash(rel), filepath.ToSlash(rel))
	case gitrun.Stuck(err):
		return bad("gitignore: %v", err)
	}
	return skip("gitignore: cannot ask git (%s); skipped", firstLine(err))
}

// stateIgnoreCheck: the loop's own state files under .ralph/ are ignored
// by git and none is tracked, so that an agent's `git add -A && git
// commit` never carries them (.ralph/.gitignore, which --init and the
// loop write, does it).
func stateIgnoreCheck(cwd string, dir *ralphdir.Dir) check {
	rel, err := filepath.Rel(cwd, dir.Root())
	if err != nil || strings.HasPrefix(rel, "..") {
		return skip("state files: %s is outside the project; skipped", dir.Root())
	}
	rel = filepath.ToSlash(rel)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	out, err := gitrun.Run(ctx, cwd, "ls-files", "-z", "--", rel)
	if gitrun.Stuck(err) {
		return bad("state files: %v", err)
	}
	if err != nil {
		return skip("state files: cannot ask git (%s); skipped", firstLine(err))
	}
	var tracked []string
	for _, p := range strings.Split(out, "\x00") {
		if name, ok := strings.CutPrefix(p, rel+"/"); ok && ralphdir.LoopOwned(name) && name != ralphdir.GitIgnore {
			tracked = append(tracked, p)
		}
	}
	if len(tracked) > 0 {
		return bad("state files: git tracks %d of the loop's own files (%s), so agents commit them; untrack them (they stay on disk): git rm --cached -q -- %s", len(tracked), tracked[0], strings.Join(tracked, " "))
	}
	probe := rel + "/" + ralphdir.Status
	_, err = gitrun.Run(ctx, cwd, "check-ignore", "-q", "--no-index", probe)
	var ee *exec.ExitError
	switch {
	case err == nil:
		return good("state files: git ignores the loop's own files under %s/", rel)
	case gitrun.Stuck(err):
		return bad("state files: %v", err)
	case !errors.As(err, &ee) || ee.ExitCode() != 1:
		return skip("state files: cannot ask git (%s); skipped", firstLine(err))
	}
	if exists(dir.Path(ralphdir.GitIgnore)) {
		return bad("state files: git does not ignore %s, and %s/.gitignore is not the loop's; move it aside and run 'ralph_loop --init' to write the loop's (it keeps every other file)", probe, rel)
	}
	return bad("state files: git does not ignore %s and the loop's other files, so an agent's 'git add -A' commits them; run 'ralph_loop --init' to add %s/.gitignore (it keeps every other file)", probe, rel)
}

// tmuxCheck: --monitor runs the loop inside tmux.
func tmuxCheck(env doctorEnv) check {
	p, err := env.lookPath("tmux")
	if err != nil {
		return bad("tmux: not found on PATH, and --monitor needs it; install tmux (apt install tmux, brew install tmux) or run without --monitor")
	}
	return good("tmux: found at %s (for --monitor)", p)
}

// firstLine is the first line of err's message.
func firstLine(err error) string { return strings.SplitN(err.Error(), "\n", 2)[0] }
