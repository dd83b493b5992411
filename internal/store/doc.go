// Package store is a project's .ralph/ state store: status.json,
// progress.json, the circuit breaker, the session files, the call count,
// the exit signals, the response analysis, the error and breaker
// histories, the review and gate results, logs/metrics.jsonl and
// logs/events.jsonl.
//
// Two kinds of writer live here, both observers of the engine
// (observe.Observer). The event observers (Sinks: Status, Progress,
// Metrics, Stream) render their file from each event; their write errors
// go to an onErr function and never stop the loop. Store holds every other
// state file: it loads them once at start-up (Repair, then Load), and from
// then on saves each change of the kept state the engine reports (the
// observe.Keeper methods, apply.go), atomically. A failed save comes back
// through observe.Fan, which warns of it once on every surface; the run
// goes on from the state the engine keeps in memory, as the bash loop does,
// and the file keeps its previous content. Nothing here re-reads a file it
// wrote. The agent's logs
// (output, stderr, stream copy, live.log) are created through Store too,
// so that the engine opens no file for writing; a log that cannot be
// written fails the call in the engine (write_failed or disk_full, counted
// by the failure guard).
package store
