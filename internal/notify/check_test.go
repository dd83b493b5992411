package notify

import (
	"context"
	"errors"
	"net"
	"strings"
	"syscall"
	"testing"
)

func TestProbe(t *testing.T) {
	var dialed []string
	dial := func(_ context.Context, network, addr string) (net.Conn, error) {
		dialed = append(dialed, addr)
		if strings.HasPrefix(addr, "down.example") {
			return nil, &net.OpError{Op: "dial", Net: network, Err: syscall.ECONNREFUSED}
		}
		c1, c2 := net.Pipe()
		c2.Close()
		return c1, nil
	}
	lookPath := func(n string) (string, error) {
		if n == "hook" {
			return "/usr/bin/hook", nil
		}
		return "", errors.New("executable file not found in $PATH")
	}
	got := probe(Config{Command: []string{"hook"}, Webhook: "https://up.example/T/secret", Desktop: true, GOOS: "linux", LookPath: lookPath}, dial)
	got = append(got, probe(Config{Command: []string{"nohook"}, Webhook: "http://down.example:8080/x", LookPath: lookPath}, dial)...)
	want := []string{
		"true command hook: found at /usr/bin/hook",
		"true webhook https://up.example/…: up.example:443 reachable (nothing sent; --doctor --notify-test sends a test)",
		"false desktop: no way to show a notice here (linux: notify-send in a desktop session, osascript, PowerShell); none will be shown",
		"false command nohook: not found (executable file not found in $PATH); fix NOTIFY_COMMAND or make the file executable",
		"false webhook http://down.example:8080/…: down.example:8080 cannot be reached (connection refused); check the URL and the network",
	}
	for i, c := range got {
		line := map[bool]string{true: "true", false: "false"}[c.OK] + " " + c.Notifier + ": " + c.Detail
		if i >= len(want) || line != want[i] {
			t.Errorf("check %d = %q", i, line)
		}
	}
	if len(got) != len(want) || !got[2].Skipped {
		t.Errorf("%d checks, desktop skipped %v", len(got), got[2].Skipped)
	}

	// A webhook the repository named is not contacted.
	dialed = nil
	got = probe(Config{Webhook: "http://127.0.0.1:22/x", WebhookFrom: ".ralph/.ralphrc:3"}, dial)
	if len(dialed) != 0 || len(got) != 1 || !got[0].Skipped ||
		got[0].Detail != "named by the project (.ralph/.ralphrc:3), so not contacted; --doctor --notify-test sends it a test" {
		t.Errorf("a repository's webhook: dialed %q, checks %+v", dialed, got)
	}
}

func TestGraphical(t *testing.T) {
	for _, tc := range []struct {
		goos string
		env  []string
		want bool
	}{
		{"linux", nil, false},
		{"linux", []string{"DISPLAY="}, false},
		{"linux", []string{"DISPLAY=:0"}, true},
		{"linux", []string{"WAYLAND_DISPLAY=wayland-0"}, true},
		{"freebsd", []string{"DBUS_SESSION_BUS_ADDRESS=unix:path=/run/user/1000/bus"}, true},
		{"darwin", nil, true},
		{"windows", nil, true},
	} {
		if got := graphical(tc.goos, tc.env); got != tc.want {
			t.Errorf("graphical(%s, %q) = %v", tc.goos, tc.env, got)
		}
	}
	// notify-send on PATH but no desktop session: no notifier.
	found := func(string) (string, error) { return "/usr/bin/notify-send", nil }
	if n := New(Config{On: []string{"all"}, Desktop: true, GOOS: "linux", LookPath: found, Env: []string{"PATH=/usr/bin"}}); n != nil {
		t.Error("a desktop notifier without a desktop session")
	}
	if n := New(Config{On: []string{"all"}, Desktop: true, GOOS: "linux", LookPath: found, Env: []string{"DISPLAY=:0"}}); n == nil {
		t.Error("no desktop notifier in a desktop session")
	} else {
		n.drain(0)
	}
}
