package gates

import (
	"context"
	"strings"
	"testing"
	"time"
)

// A check passes on exit 0 and fails on anything else, a command that
// hangs past the timeout or cannot start included; it sees the task's
// variables in its environment.
func TestCheck(t *testing.T) {
	if testing.Short() {
		t.Skip("runs bash")
	}
	dir := t.TempDir()
	cfg := Config{Dir: dir, Timeout: 2 * time.Second, Grace: 100 * time.Millisecond}
	ctx := context.Background()
	env := []string{"RALPH_TASK=Task A"}
	if f, err := Check(ctx, cfg, `test "$RALPH_TASK" = "Task A"`, env); err != nil || f != nil {
		t.Errorf("a passing check: %+v, %v", f, err)
	}
	f, err := Check(ctx, cfg, `echo "no: $RALPH_TASK"; exit 3`, env)
	if err != nil || f == nil || f.ExitCode != 3 || f.Gate != GateVerify || !strings.Contains(f.Tail, "no: Task A") {
		t.Errorf("a failing check: %+v, %v", f, err)
	}
	cfg.Timeout = 300 * time.Millisecond
	if f, err := Check(ctx, cfg, "sleep 30", nil); err != nil || f == nil || !f.TimedOut {
		t.Errorf("a hanging check: %+v, %v", f, err)
	}
	cfg.Dir = dir + "/missing"
	if f, err := Check(ctx, cfg, "true", nil); err != nil || f == nil || f.ExitCode != 127 {
		t.Errorf("a check that cannot start: %+v, %v", f, err)
	}
	canceled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := Check(canceled, cfg, "true", nil); err == nil {
		t.Error("a stopped loop's check: no error")
	}
}
