// Package events holds the loop engine's typed events, the bus that fans
// them out, and the sinks a person reads: the console and logs/ralph.log.
// The sinks of the .ralph/ files (status.json, progress.json,
// logs/metrics.jsonl and the NDJSON event stream) are in package store.
//
// The engine decides; it never writes a state file or formats a console
// line itself. It calls Bus.Emit with an Event, and Bus.Log for the
// reference's human log lines ("[stamp] [LEVEL] msg"). Every sink is one
// Sink; a new output (a notifier, a web view) is one more.
package events
