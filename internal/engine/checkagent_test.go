package engine

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/ralphloop/ralph_loop/internal/config"
)

func TestCheckAgent(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	found := func(name string) (string, error) { return "/bin/" + name, nil }
	missing := func(string) (string, error) { return "", errors.New("not found") }

	if _, _, err := CheckAgent(ctx, config.Config{Driver: "command"}, found, false); err == nil || !strings.Contains(err.Error(), "needs AGENT_COMMAND") {
		t.Fatalf("command driver without a command: %v", err)
	}
	drv, res, err := CheckAgent(ctx, config.Config{Driver: "command", AgentArgv: []string{"my-agent", "--go"}}, found, false)
	if err != nil || drv.Name() != "command" || res.Path != "/bin/my-agent" {
		t.Fatalf("command driver: %v %+v %v", drv, res, err)
	}
	if _, _, err := CheckAgent(ctx, config.Config{Driver: "codex"}, missing, false); err == nil || !strings.Contains(err.Error(), "not found on PATH") {
		t.Fatalf("missing codex: %v", err)
	}
	if _, _, err := CheckAgent(ctx, config.Config{Driver: "nope"}, found, false); err == nil {
		t.Fatal("unknown driver accepted")
	}
}
