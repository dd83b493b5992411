// Package gates runs the quality gates after a successful loop: the test
// gate (TEST_COMMAND, or the agent's reported TESTS_STATUS when no command
// is set) and the user's QUALITY_GATES commands, and turns the outcome into
// a Decision the engine applies according to QUALITY_GATE_MODE:
//
//	warn             failures are recorded and logged; nothing else changes
//	block            completion signals of this loop are suppressed (Blocked)
//	circuit-breaker  the loop counts as "no progress" for the stagnation
//	                 breaker (WithholdProgress)
//
// In block and circuit-breaker mode a failure also becomes feedback text for
// the next loop's context (Feedback).
//
// TEST_COMMAND and each QUALITY_GATES entry are shell commands the user wrote
// in their own configuration, so they run as `bash -c <command>` from the
// project root, as the bash loop runs them. This is the one place where
// ralph_loop hands a string to a shell on purpose. Each command runs through
// supervise.Run, in its own process group, with stdout and stderr on one
// pipe (2>&1) and QUALITY_GATE_TIMEOUT as its limit: on timeout the whole
// group gets SIGTERM, then SIGKILL after a short grace, and the gate is
// recorded as timed out with exit code 124 (GNU timeout's code, which the
// bash loop records). No external `timeout` program is needed.
//
// API:
//
//	cfg := gates.Config{TestCommand: ..., Gates: ..., Mode: "block", Timeout: 120 * time.Second, Dir: root}
//	dec, err := gates.Run(ctx, cfg, gates.Input{Loop: n, ExitSignal: es, HaveAnalysis: true, TestsStatus: "PASSING"}, time.Now())
//	if dec.Results != nil { keep(dec.Results) }  // the state store writes .ralph/.quality_gate_results
//	r, err := gates.Decode(data)           // that file's shape, as the store reads it back
//	r.OverallStatus, r.Mode                // status.json "quality_gates": {overall_status, mode}
//	text := gates.Feedback(r)              // for templates.ContextInput.QualityGateFeedback
package gates
