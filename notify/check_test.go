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
	got := Probe(Config{Command: []string{"hook"}, Webhook: "https://up.example/T/secret", Desktop: true, GOOS: "linux", LookPath: lookPath}, dial)
	got = append(got, Probe(Config{Command: []string{"nohook"}, Webhook: "http://down.example:8080/x", LookPath: lookPath}, dial)...)
	want := []string{
		"true command hook: found at /usr/bin/hook",
		"true webhook https://up.example/…: up.example:443 reachable (nothing sent; --doctor --notify-test sends a test)",
		"false desktop: no way to show a notice on this linux system (notify-send, osascript or PowerShell); none will be shown",
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
}
