package gates

import (
	"context"
	"os"
)

// Check is one VERIFY_COMMAND run: the command run as a gate command is
// (bash -c in the project, its own process group, cfg.Timeout, the
// sandbox's Wrap, the whole output to cfg.Log) with env added to the
// environment. A command that fails, hangs past the timeout or cannot
// start is a failed check (Failure), never an error; the error is non-nil
// only when ctx ended. The Failure's Gate is "VERIFY_COMMAND".
func Check(ctx context.Context, cfg Config, command string, env []string) (*Failure, error) {
	if len(env) > 0 {
		base := cfg.Env
		if base == nil {
			base = os.Environ() // what a nil Env would have inherited
		}
		cfg.Env = append(base[:len(base):len(base)], env...)
	}
	o, err := run(ctx, cfg, command)
	if err != nil {
		return nil, err
	}
	if o.exitCode == 0 {
		return nil, nil
	}
	return &Failure{Gate: GateVerify, Command: command, ExitCode: o.exitCode, TimedOut: o.timedOut, Tail: o.tail}, nil
}

// GateVerify names the per-task check in a Failure.
const GateVerify = "VERIFY_COMMAND"
