// Package events holds the loop engine's typed events and the sinks that
// turn them into everything a person or a program reads: the console,
// logs/ralph.log, status.json, progress.json, logs/metrics.jsonl and the
// NDJSON event stream (logs/events.jsonl, --events).
//
// The engine decides; it never writes a state file or formats a console
// line itself. It calls Bus.Emit with an Event, and Bus.Log for the
// reference's human log lines ("[stamp] [LEVEL] msg"). Every sink is one
// Sink; a new output (a notifier, a web view) is one more.
package events
