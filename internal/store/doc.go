// Package store is a project's .ralph/ state store: status.json,
// progress.json, the circuit breaker, the session files, the call count,
// the exit signals, the response analysis, the error and breaker
// histories, the review and gate results, logs/metrics.jsonl and
// logs/events.jsonl.
//
// Two kinds of writer live here. The event sinks (Sinks: Status, Progress,
// Metrics, Stream) subscribe to the engine's events.Bus and render their
// file from each event; their write errors go to an onErr function and
// never stop the loop. Store holds every other state file: it loads them
// once at start-up (Repair, then Load), and from then on subscribes to the
// changes the engine records on the bus (events.Change, through Apply) and
// writes each atomically. Apply returns the write's error to the engine
// (through Bus.Record), which reports it as a warning and goes on, as the
// bash loop does; nothing here re-reads a file it wrote. The agent's logs
// (output, stderr, stream copy, live.log) are created through Store too,
// so that the engine opens no file for writing; a log that cannot be
// written fails the call in the engine (write_failed or disk_full, counted
// by the failure guard).
package store
