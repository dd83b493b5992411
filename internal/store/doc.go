// Package store is a project's .ralph/ state store: status.json,
// progress.json, the circuit breaker, the session files, the call count,
// the exit signals, the response analysis, the error and breaker
// histories, the review and gate results, logs/metrics.jsonl and
// logs/events.jsonl.
//
// It is the one package that knows the state files: the design card's
// leaves (breaker, session, ratelimit) and gates and review hold their
// shapes and decisions and do no I/O; the reading and writing is here,
// through internal/ralphdir (atomic writes, corrupt files moved aside).
//
// Two kinds of writer live here, both observers of the engine
// (observe.Observer). The event observers (Sinks: Status, Progress,
// Metrics, Stream) render their file from each event; their write errors
// go to an onErr function and never stop the loop. Store holds every other
// state file: the kept state is one value (Kept), loaded once at start-up
// (Repair, then Load); from then on the Store saves each change of the kept
// state the engine reports (the observe.Keeper methods, apply.go),
// atomically. Every save's error is returned, worded as one line that names
// the file and says what the failure means (failed); observe.Fan warns of
// it once on every surface and the run goes on, as the bash loop does. Nothing here re-reads a file
// it wrote. Peek reads the same Kept for commands that only look (--status,
// --circuit-status, the dashboard): it moves, repairs and writes nothing. The agent's logs
// (output, stderr, stream copy, live.log) are created through Store too,
// so that the engine opens no file for writing; a log that cannot be
// written fails the call in the engine (write_failed or disk_full, counted
// by the failure guard).
package store
