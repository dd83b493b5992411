//go:build unix

package drivers

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// parseErrors are what the CLIs print when their argument parser rejects
// the command line (commander, clap, yargs, Copilot's own check).
var parseErrors = []string{
	"unknown option", "unexpected argument", "Invalid command format", "error: option",
	"Unknown argument", "requires --verbose", "requires --print", "Positionals:",
}

// TestRealCLIsAcceptArgv runs the argv each driver builds through the real
// CLIs' argument parsers. It is opt-in: set RALPH_REAL_CLI_DIR to a folder
// holding claude, codex, copilot and opencode (see docs/DRIVERS.md). Nothing
// is logged in, so no call gets past authentication; a run counts as
// accepted when the CLI did not report a usage error.
func TestRealCLIsAcceptArgv(t *testing.T) {
	dir := os.Getenv("RALPH_REAL_CLI_DIR")
	if dir == "" {
		t.Skip("set RALPH_REAL_CLI_DIR to check the argv against installed agent CLIs")
	}
	home := t.TempDir()
	project := t.TempDir()
	if out, err := exec.Command("git", "init", "-q", project).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	if err := os.MkdirAll(filepath.Join(home, ".codex"), 0o755); err != nil {
		t.Fatal(err)
	}
	env := []string{"HOME=" + home, "PATH=" + dir + ":/usr/local/bin:/usr/bin:/bin", "IS_SANDBOX=1",
		"COPILOT_AUTO_UPDATE=false", "NO_COLOR=1", "CODEX_HOME=" + filepath.Join(home, ".codex")}
	lp := func(name string) (string, error) {
		p := filepath.Join(dir, name)
		if _, err := os.Stat(p); err != nil {
			return "", err
		}
		return p, nil
	}
	version := func(ctx context.Context, path string) (string, error) {
		out, err := exec.CommandContext(ctx, path, "--version").CombinedOutput()
		return string(out), err
	}
	const session = "1b4e28ba-2fa1-11d2-883f-0016d3cca427"
	cases := map[string]Request{
		"background":  {Context: "Loop #1. Remaining tasks: 2."},
		"no-context":  {},
		"resume":      {Context: "Loop #2. Session continued.", SessionID: session, SystemExtra: "Review: fix it."},
		"live":        {Live: true, Context: "Loop #1."},
		"live-resume": {Live: true, Context: "Loop #2.", SessionID: session},
		"dash-prompt": {Prompt: "---\ntitle: x\n---\nbody", SessionID: session},
	}
	for _, name := range []string{"claude-code", "codex", "copilot", "opencode"} {
		d, _ := Get(name)
		res, err := Check(context.Background(), d, CheckOptions{LookPath: lp, Version: version})
		if err != nil {
			t.Logf("skipping %s: %v", name, err)
			continue
		}
		t.Logf("%s %s at %s %s", name, res.Version, res.Path, res.Warning)
		// Control: a flag no CLI has must be reported, or the check proves nothing.
		t.Run(name+"/control-unknown-flag", func(t *testing.T) {
			spec, err := d.Build(Request{Prompt: "Say hello.", Dir: project, Env: env})
			if err != nil {
				t.Fatal(err)
			}
			spec.Argv[0] = res.Path
			n := len(spec.Argv) - 1
			if name == "copilot" {
				n-- // keep -p and its value together
			}
			spec.Argv = append(spec.Argv[:n:n], append([]string{"--ralph-no-such-flag"}, spec.Argv[n:]...)...)
			if out := runBriefly(t, spec); !hasParseError(out) {
				t.Errorf("%s accepted an unknown flag (%q):\n%s", name, spec.Argv, out)
			}
		})
		for cname, req := range cases {
			t.Run(name+"/"+cname, func(t *testing.T) {
				if req.Prompt == "" {
					req.Prompt = "Say hello."
				}
				req.OutputFormat, req.AllowedTools, req.CLIVersion = "json", []string{"Read", "Bash(git add *)"}, res.Version
				req.Dir, req.Env = project, env
				spec, err := d.Build(req)
				if err != nil {
					t.Fatal(err)
				}
				spec.Argv[0] = res.Path
				if out := runBriefly(t, spec); hasParseError(out) {
					t.Errorf("%s rejected %q:\n%s", name, spec.Argv, out)
				} else if testing.Verbose() {
					t.Logf("output: %.300s", out)
				}
			})
		}
	}
}

func hasParseError(out string) bool {
	for _, marker := range parseErrors {
		if strings.Contains(out, marker) {
			return true
		}
	}
	return false
}

// runBriefly runs spec for at most 12 seconds and returns its output.
func runBriefly(t *testing.T, spec Spec) string {
	ctx, cancel := context.WithTimeout(context.Background(), 12*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, spec.Argv[0], spec.Argv[1:]...)
	cmd.Dir, cmd.Env = spec.Dir, spec.Env
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 2 * time.Second
	out, err := cmd.CombinedOutput()
	if cmd.Process != nil {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
	var exitErr *exec.ExitError
	if err != nil && !errors.As(err, &exitErr) && ctx.Err() == nil {
		t.Fatalf("run %s: %v", spec.Argv[0], err)
	}
	return string(out)
}
