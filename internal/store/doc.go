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
// Two kinds of writer live here. The event observers (Sinks: Status,
// Progress, Metrics, Stream; each an observe.Observer of the engine)
// render their file from each event; their write errors go to an onErr
// function and never stop the loop. Store holds every other state file:
// the kept state is one value (Kept), loaded once at start-up (Repair, then
// Load); from then on the engine keeps it and hands it whole to Save
// (save.go) at a few points of each iteration, which writes the file of
// each part that changed since Load read it or Save last saved it,
// atomically, appends the breaker's new moves to its history and carries
// out the engine's session steps (with their log lines). A save that
// fails is worded as one line that names the file and says what the
// failure means, and returned, never warned of here: the engine decides
// what it means. Nothing here re-reads a file it wrote. Peek reads the same Kept for commands that only look (--status,
// --circuit-status, the dashboard): it moves, repairs and writes nothing. The agent's logs
// (output, stderr, stream copy, live.log) are created through Store too,
// so that the engine opens no file for writing; a log that cannot be
// written fails the call in the engine (write_failed or disk_full, counted
// by the failure guard).
package store
