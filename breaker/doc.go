// Package breaker is the stagnation circuit breaker: a pure state machine
// (CLOSED, HALF_OPEN, OPEN) that stops the loop when the agent stops
// making progress. It defines the shapes of .ralph/.circuit_breaker_state
// (State's JSON) and of an entry of .ralph/.circuit_breaker_history
// (Transition.HistoryJSON) in the bash loop's formats, so a .ralph/ folder
// left by ralph_loop.sh is continued and bmalph and ralph_monitor read
// ours; the state store (internal/store) reads and writes the files.
//
// Time is always passed in; the package has no clock and does no I/O.
//
// The engine keeps the state in memory; the state store writes it:
//
//	s := kept.Breaker                          // loaded once at start-up by the store
//	s, t := s.Startup(now, cfg)                // before each iteration: cooldown / auto-reset
//	if err := s.Err(cfg); err != nil { ... } // OPEN: show breaker.Halted(s, now, cfg), stop
//	s, t = s.Record(breaker.LoopResult{...}, now, cfg)
//	if err := s.Err(cfg); err != nil { stop with err }
//
// The other pieces: Fresh, Reset (for --reset-circuit), Describe (the
// --circuit-status text).
//
// # What is recorded
//
// Record takes only SUCCESSFUL agent calls (exit 0, output analysed). A
// call that crashed, exited non-zero, timed out or hit the usage limit is
// never fed to Record: it is an infrastructure failure, not a sign that
// the agent is stuck on the work, and counting it as "no progress" would
// open the circuit when the network or the API is down. Those failures
// belong to package guard. The one exception, as in the bash loop, is a
// call stopped by the write heartbeat (the agent read for
// WRITE_TIMEOUT_MINUTES without writing): the engine records it with
// LoopResult.ReadOnlyTimeout set and no analysis, so it counts towards
// the read-only rule and as no progress.
//
// # Rules
//
// Progress is any of: files changed in the loop, a completion signal, or
// a files-modified count reported by the agent. Per Record call the
// counters are updated first, then the first matching rule of the
// current state decides, in the bash loop's priority order (machine.go
// holds them as the ordered table rules):
//
//	CLOSED:    permission denials >= threshold  -> OPEN
//	           read-only timeouts >= threshold  -> OPEN
//	           no progress >= threshold         -> OPEN
//	           loops with errors >= threshold   -> OPEN
//	           no progress >= 2                 -> HALF_OPEN ("Monitoring: …")
//	           output shrank > decline % and no progress -> HALF_OPEN
//	HALF_OPEN: permission denials, read-only timeouts -> OPEN
//	           progress                         -> CLOSED
//	           no progress >= threshold         -> OPEN ("No recovery, …")
//	OPEN:      stays OPEN until Startup finds CB_AUTO_RESET (-> CLOSED)
//	           or the cooldown over (-> HALF_OPEN), or a manual Reset.
//
// Reasons, history entries and file keys are the bash loop's, word for
// word. The state file also carries added keys that explain a trip:
// tripped_by, no_progress_loops, question_loops, error_streak,
// denied_commands and last_output_length. Describe turns them into
// advice. Deviations from the bash loop are listed in
// docs/COMPATIBILITY.md.
package breaker
