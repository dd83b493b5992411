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
