// Package supervise runs one command safely — an agent call or a quality
// gate: in its own process group, with output streamed to the caller's
// writers, and stopped — the whole group, grandchildren included — when a
// deadline, an output-inactivity limit, a write heartbeat or the caller's
// context says so. It never knows which agent it runs.
//
// API:
//
//	func Run(ctx context.Context, c Command, o Options) Outcome
//
//	type Command struct{ Argv, Env []string; Dir, Stdin string }
//	type Options struct{ Timeout, Inactivity, WriteTimeout, Grace time.Duration;
//	                     WatchDir string; WatchSkip []string; MaxOutput int64;
//	                     Stdout, Stderr io.Writer; Combined bool }
//	type Outcome struct{ ExitCode int; Duration time.Duration; Reason Reason; Err error }
//	type Reason int // Exited, TimedOut, Inactive, WriteStalled, Canceled, StartFailed, OutputTooLarge, WriteFailed
//
// The stop ladder is the same for every ending that Run causes: SIGTERM to the
// group, up to Grace for the leader to exit, SIGKILL to the leader; after the
// leader has been reaped a final SIGKILL to the group removes anything left
// (also when the leader exited on its own and left helpers running). Output is
// copied through pipes owned by Run, so a grandchild that keeps the pipes open
// cannot hold Run up.
//
// No call outlives the process that runs it: on Linux the leader has a
// parent-death signal, and after Guard the first call starts a sentinel
// process that kills the running calls' groups once this process has
// died, however it died (Sentinel is its main). Options.Record gives the record of a call's
// leader to keep while it runs, and Guard stops what a dead process left
// running, signalling only what it proves to be such a leftover (see
// docs/PLATFORMS.md).
//
// On Windows the group is a Job Object that the command joins before it
// runs: the graceful stop is CTRL_BREAK_EVENT to its console process
// group, the final one TerminateJobObject, and an npm .cmd shim runs as the
// node command line it wraps (see docs/PLATFORMS.md).
package supervise
