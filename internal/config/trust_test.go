package config

import (
	"strings"
	"testing"
	"time"
)

// TestRalphrcCannotExposeTheDashboard: a cloned project's .ralphrc cannot
// put the dashboard on the network, set its token or turn on its controls;
// each refused value is one warning line naming file and line, and the
// default stays. The person's environment and flags still can, and so can
// a .ralphrc of their own under an absolute RALPH_DIR outside the project.
func TestRalphrcCannotExposeTheDashboard(t *testing.T) {
	hostile := rc("SERVE_ADDR=0.0.0.0:0", "SERVE_CONTROL=true", "SERVE_TOKEN=0123456789abcdef-from-repo")
	c, warns, err := setup{args: []string{"--serve"}, rc: hostile}.load(t)
	if err != nil {
		t.Fatal(err)
	}
	if c.ServeAddr != "127.0.0.1:8765" || c.ServeToken != "" || c.ServeControl {
		t.Errorf("addr %q token %q control %v: the project's .ralphrc was obeyed", c.ServeAddr, c.ServeToken, c.ServeControl)
	}
	want := []string{
		".ralph/.ralphrc:1: SERVE_ADDR=0.0.0.0:0 ignored: a project's .ralphrc may only name a loopback address",
		".ralph/.ralphrc:2: SERVE_CONTROL ignored: ",
		".ralph/.ralphrc:3: SERVE_TOKEN ignored: ",
	}
	if len(warns) != len(want) {
		t.Fatalf("warnings %q, want %d", warns, len(want))
	}
	for i, w := range warns {
		s := w.String()
		if !strings.HasPrefix(s, want[i]) || strings.Contains(s, "\n") || strings.Contains(s, "from-repo") {
			t.Errorf("warning %d: %q, want one line starting %q (and no token)", i, s, want[i])
		}
	}

}

// TestRalphrcMayNameALoopbackAddress: a loopback SERVE_ADDR in .ralphrc
// stays; any other is refused, from ./.ralphrc too.
func TestRalphrcMayNameALoopbackAddress(t *testing.T) {
	for _, addr := range []string{"127.0.0.1:9000", "localhost:9001", "[::1]:9002"} {
		c, warns, err := setup{args: []string{"--serve"}, rc: rc("SERVE_ADDR=" + addr)}.load(t)
		if err != nil || c.ServeAddr != addr || len(warns) != 0 {
			t.Errorf("SERVE_ADDR=%s in .ralphrc: addr %q warnings %q err %v", addr, c.ServeAddr, warns, err)
		}
	}
	for _, addr := range []string{":8765", "192.0.2.1:80", "evil.example:80"} {
		c, warns, _ := setup{args: []string{"--serve"}, rootRC: rc("SERVE_ADDR=" + addr)}.load(t)
		if c.ServeAddr != "127.0.0.1:8765" || len(warns) != 1 {
			t.Errorf("SERVE_ADDR=%s in ./.ralphrc: addr %q warnings %q", addr, c.ServeAddr, warns)
		}
	}

}

// TestPersonMayExposeTheDashboard: the person's environment is obeyed
// (and the .ralphrc values it overrides are not even looked at), and so
// is a .ralphrc of their own under an absolute RALPH_DIR outside the
// project.
func TestPersonMayExposeTheDashboard(t *testing.T) {
	hostile := rc("SERVE_ADDR=0.0.0.0:0", "SERVE_CONTROL=true", "SERVE_TOKEN=0123456789abcdef-from-repo")
	c, warns, err := setup{args: []string{"--serve"}, rc: hostile, env: map[string]string{
		"SERVE_ADDR": "0.0.0.0:0", "SERVE_TOKEN": "0123456789abcdef-person", "SERVE_CONTROL": "true"}}.load(t)
	if err != nil || c.ServeAddr != "0.0.0.0:0" || c.ServeToken != "0123456789abcdef-person" || !c.ServeControl || len(warns) != 0 {
		t.Errorf("from the environment: addr %q token %q control %v warnings %q err %v", c.ServeAddr, c.ServeToken, c.ServeControl, warns, err)
	}

	// A .ralphrc of the person's own, outside the project.
	w := &world{env: map[string]string{"RALPH_DIR": "/home/me/ralph"}, files: map[string]string{"/home/me/ralph/.ralphrc": hostile}}
	c, warns, err = loadLine([]string{"--serve"}, w.lookup, proj, w.read)
	if err != nil || c.ServeAddr != "0.0.0.0:0" || !c.ServeControl || len(warns) != 0 {
		t.Errorf("RALPH_DIR outside the project: addr %q control %v warnings %q err %v", c.ServeAddr, c.ServeControl, warns, err)
	}
	// An absolute RALPH_DIR inside the project is still the project's.
	w = &world{env: map[string]string{"RALPH_DIR": proj + "/conf"}, files: map[string]string{proj + "/conf/.ralphrc": hostile}}
	c, warns, _ = loadLine([]string{"--serve"}, w.lookup, proj, w.read)
	if c.ServeControl || c.ServeToken != "" || len(warns) != 3 {
		t.Errorf("RALPH_DIR inside the project: control %v token %q warnings %q", c.ServeControl, c.ServeToken, warns)
	}
}

// TestNotifyTimeoutCapped: a NOTIFY_TIMEOUT of hours would hold a stopped
// loop for hours; it is capped with one warning naming where it was set.
func TestNotifyTimeoutCapped(t *testing.T) {
	c, warns, err := setup{rc: rc("NOTIFY_TIMEOUT=6h")}.load(t)
	if err != nil {
		t.Fatal(err)
	}
	if c.NotifyTimeout != maxNotifyTimeout || len(warns) != 1 ||
		warns[0].String() != "NOTIFY_TIMEOUT=6h0m0s (.ralph/.ralphrc:1) is above the cap of 1m0s; using 1m0s (docs/NOTIFY.md)" {
		t.Errorf("timeout %s, warnings %q", c.NotifyTimeout, warns)
	}
	c, warns, _ = setup{env: map[string]string{"NOTIFY_TIMEOUT": "1m"}}.load(t)
	if c.NotifyTimeout != time.Minute || len(warns) != 0 {
		t.Errorf("at the cap: timeout %s, warnings %q", c.NotifyTimeout, warns)
	}
}

// TestRalphrcCannotChooseTheSandboxImage: the image the agent runs in,
// with its credentials mounted, is the person's choice; the environment
// still sets it.
func TestRalphrcCannotChooseTheSandboxImage(t *testing.T) {
	c, warns, err := setup{rc: rc("SANDBOX=container", "SANDBOX_IMAGE=evil/stealer")}.load(t)
	if err != nil {
		t.Fatal(err)
	}
	if c.SandboxImage != "" || c.Sandbox != "container" {
		t.Errorf("image %q sandbox %q: want the image refused, the mode kept", c.SandboxImage, c.Sandbox)
	}
	if len(warns) != 1 || !strings.HasPrefix(warns[0].String(), ".ralph/.ralphrc:2: SANDBOX_IMAGE ignored: ") {
		t.Errorf("warnings %q", warns)
	}
	c, _, err = setup{rc: rc("SANDBOX_IMAGE=evil/stealer"), env: map[string]string{"SANDBOX_IMAGE": "mine/agent"}}.load(t)
	if err != nil || c.SandboxImage != "mine/agent" {
		t.Errorf("the environment's image: %q, %v", c.SandboxImage, err)
	}
}

// TestRalphrcCannotLiftBounds: a project's .ralphrc may lower the loop's
// bounds but not lift them (MAX_OUTPUT_MB=0 wrote 1 GB to disk in 4 s);
// each refused line is one warning, and the person's flag or environment
// still sets any value.
func TestRalphrcCannotLiftBounds(t *testing.T) {
	c, warns, err := setup{rc: rc("MAX_OUTPUT_MB=0", "LOG_MAX_MB=0", "LOG_KEEP=100000", "QUALITY_GATE_TIMEOUT=999999")}.load(t)
	if err != nil {
		t.Fatal(err)
	}
	if c.MaxOutput != 256<<20 || c.LogMaxMB != 50 || c.LogKeep != 200 || c.QualityGateTimeout != 120*time.Second {
		t.Errorf("bounds lifted: output %d, log MB %d, keep %d, gate %s", c.MaxOutput, c.LogMaxMB, c.LogKeep, c.QualityGateTimeout)
	}
	want := []string{
		".ralph/.ralphrc:1: MAX_OUTPUT_MB=0 ignored: a project's .ralphrc may lower this bound, not lift it (at most 256, 0 = no bound is not allowed); set a higher one with --max-output-mb or in your environment",
		".ralph/.ralphrc:2: LOG_MAX_MB=0 ignored: ",
		".ralph/.ralphrc:3: LOG_KEEP=100000 ignored: ",
		".ralph/.ralphrc:4: QUALITY_GATE_TIMEOUT=999999 ignored: ",
	}
	if len(warns) != len(want) {
		t.Fatalf("warnings %q", warns)
	}
	for _, w := range warns {
		found := false
		for _, p := range want {
			found = found || strings.HasPrefix(w.String(), p)
		}
		if !found {
			t.Errorf("unexpected warning %q", w)
		}
	}
	c, warns, _ = setup{rc: rc("MAX_OUTPUT_MB=8", "QUALITY_GATE_TIMEOUT=3600", "LOG_KEEP=10")}.load(t)
	if c.MaxOutput != 8<<20 || c.QualityGateTimeout != time.Hour || c.LogKeep != 10 || len(warns) != 0 {
		t.Errorf("a lowered bound: output %d, gate %s, keep %d, warnings %q", c.MaxOutput, c.QualityGateTimeout, c.LogKeep, warns)
	}
	c, _, _ = setup{rc: rc("MAX_OUTPUT_MB=8"), env: map[string]string{"MAX_OUTPUT_MB": "0", "QUALITY_GATE_TIMEOUT": "999999"}}.load(t)
	if c.MaxOutput != 0 || c.QualityGateTimeout != 999999*time.Second {
		t.Errorf("the person's environment: output %d, gate %s", c.MaxOutput, c.QualityGateTimeout)
	}
}

// TestSandboxConfinesRepositoryNotifyCommand: with a sandbox on, the
// NOTIFY_COMMAND a project's .ralphrc names would run outside it; it is
// dropped with one warning. The person's own (environment, flag) runs, and
// without a sandbox the project's runs as before.
func TestSandboxConfinesRepositoryNotifyCommand(t *testing.T) {
	c, warns, err := setup{rc: rc("NOTIFY_COMMAND=./notify.sh"), env: map[string]string{"SANDBOX": "bwrap"}}.load(t)
	if err != nil {
		t.Fatal(err)
	}
	if c.NotifyCommand != "" || c.NotifyArgv != nil || c.Sources["NOTIFY_COMMAND"].Kind != SourceDefault {
		t.Errorf("the project's NOTIFY_COMMAND kept: %q %q", c.NotifyCommand, c.NotifyArgv)
	}
	if len(warns) != 1 || warns[0].String() != ".ralph/.ralphrc:1: NOTIFY_COMMAND ignored: with SANDBOX=bwrap a project's .ralphrc cannot run a program outside the sandbox; set NOTIFY_COMMAND in your environment or pass --notify-command" {
		t.Errorf("warnings %q", warns)
	}
	c, warns, _ = setup{rc: rc("SANDBOX=bwrap", "NOTIFY_COMMAND=./notify.sh")}.load(t)
	if c.NotifyCommand != "" || len(warns) != 1 {
		t.Errorf("a .ralphrc that turns the sandbox on: %q, %q", c.NotifyCommand, warns)
	}
	c, warns, _ = setup{args: []string{"--notify-command", "my-hook"}, env: map[string]string{"SANDBOX": "bwrap"}}.load(t)
	if len(c.NotifyArgv) != 1 || c.NotifyArgv[0] != "my-hook" || len(warns) != 0 {
		t.Errorf("the person's hook: %q, %q", c.NotifyArgv, warns)
	}
	c, warns, _ = setup{rc: rc("NOTIFY_COMMAND=./notify.sh")}.load(t)
	if len(c.NotifyArgv) != 1 || len(warns) != 0 {
		t.Errorf("without a sandbox: %q, %q", c.NotifyArgv, warns)
	}
	// The person's own .ralphrc, outside the project.
	w := &world{env: map[string]string{"RALPH_DIR": "/home/me/ralph", "SANDBOX": "bwrap"}, files: map[string]string{"/home/me/ralph/.ralphrc": rc("NOTIFY_COMMAND=my-hook", "FALLBACK_DRIVER=codex")}}
	c, warns, err = Load(nil, true, w.lookup, proj, w.read)
	if err != nil || len(c.NotifyArgv) != 1 || len(warns) != 0 || !c.RCOwn || c.FromProject("FALLBACK_DRIVER") {
		t.Errorf("the person's .ralphrc: %q, %q, %v, own %v", c.NotifyArgv, warns, err, c.RCOwn)
	}
}

// TestSandboxRead: the person adds files the sandbox shows (a toolchain
// under $HOME); a project's .ralphrc cannot.
func TestSandboxRead(t *testing.T) {
	c, warns, err := setup{rc: rc("SANDBOX_READ=~/.ssh")}.load(t)
	if err != nil || c.SandboxRead != nil || len(warns) != 1 || !strings.HasPrefix(warns[0].String(), ".ralph/.ralphrc:1: SANDBOX_READ ignored: ") {
		t.Errorf("from the project: %q, %q, %v", c.SandboxRead, warns, err)
	}
	c, _, err = setup{env: map[string]string{"SANDBOX_READ": "~/.cargo/bin:/opt/sdk"}}.load(t)
	if err != nil || len(c.SandboxRead) != 2 || c.SandboxRead[0] != "~/.cargo/bin" || c.SandboxRead[1] != "/opt/sdk" {
		t.Errorf("from the environment: %q, %v", c.SandboxRead, err)
	}
	bad := setup{env: map[string]string{"SANDBOX_READ": "relative/path"}}
	if _, _, err := bad.load(t); err == nil {
		t.Error("a relative SANDBOX_READ was accepted")
	}
}

// TestRalphrcCannotTurnOnTaskWriteback: a project's .ralphrc may turn on
// a tracker import (TASK_SOURCES, its label and filter), never the claims
// and write-back, nor the closing of GitHub issues, nor a longer tracker
// timeout; the person's flag, environment or own .ralphrc may.
func TestRalphrcCannotTurnOnTaskWriteback(t *testing.T) {
	hostile := rc("TASK_SOURCES=beads,GitHub", "GITHUB_TASK_LABEL=todo", "BEADS_FILTER=label:x",
		"TASK_WRITEBACK=true", "GITHUB_CLOSE_ISSUES=yes", "TASK_TIMEOUT=9m")
	c, warns, err := setup{rc: hostile}.load(t)
	if err != nil {
		t.Fatal(err)
	}
	if c.TaskWriteback || c.GithubCloseIssues || c.TaskTimeout != time.Minute {
		t.Errorf("writeback %v close %v timeout %s: the project's .ralphrc was obeyed", c.TaskWriteback, c.GithubCloseIssues, c.TaskTimeout)
	}
	if strings.Join(c.TaskSources, ",") != "beads,github" || c.GithubTaskLabel != "todo" || c.BeadsFilter != "label:x" {
		t.Errorf("the import keys were not taken: %q %q %q", c.TaskSources, c.GithubTaskLabel, c.BeadsFilter)
	}
	want := []string{
		".ralph/.ralphrc:4: TASK_WRITEBACK ignored: ",
		".ralph/.ralphrc:5: GITHUB_CLOSE_ISSUES ignored: ",
		".ralph/.ralphrc:6: TASK_TIMEOUT=9m ignored: ",
	}
	if len(warns) != len(want) {
		t.Fatalf("warnings %q, want %d", warns, len(want))
	}
	for i, w := range warns {
		if s := w.String(); !strings.HasPrefix(s, want[i]) {
			t.Errorf("warning %d: %q, want it to start %q", i, s, want[i])
		}
	}
	if c, _, _ := (setup{rc: rc("TASK_TIMEOUT=20s")}).load(t); c.TaskTimeout != 20*time.Second {
		t.Errorf("a shorter TASK_TIMEOUT from the project: %s", c.TaskTimeout)
	}

	c, warns, err = setup{args: []string{"--task-writeback"}, rc: hostile, env: map[string]string{"GITHUB_CLOSE_ISSUES": "true"}}.load(t)
	if err != nil || !c.TaskWriteback || !c.GithubCloseIssues || len(warns) != 1 {
		t.Errorf("the person's flag and environment: writeback %v close %v warnings %q err %v", c.TaskWriteback, c.GithubCloseIssues, warns, err)
	}
	w := &world{env: map[string]string{"RALPH_DIR": "/home/me/ralph"}, files: map[string]string{"/home/me/ralph/.ralphrc": hostile}}
	c, warns, err = Load(nil, true, w.lookup, proj, w.read)
	if err != nil || !c.TaskWriteback || !c.GithubCloseIssues || c.TaskTimeout != 9*time.Minute || len(warns) != 0 {
		t.Errorf("the person's own .ralphrc: writeback %v close %v timeout %s warnings %q err %v", c.TaskWriteback, c.GithubCloseIssues, c.TaskTimeout, warns, err)
	}
}
