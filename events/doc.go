// Package events holds the loop engine's typed events, the bus that fans
// them out, and the sinks a person reads: the console and logs/ralph.log.
// The sinks of the .ralph/ files (status.json, progress.json,
// logs/metrics.jsonl and the NDJSON event stream) are in package store.
//
// The engine decides; it never writes a state file or formats a console
// line itself. It calls Bus.Emit with an Event, and Bus.Log for the
// bash loop's human log lines ("[stamp] [LEVEL] msg"), and Bus.Record
// with a Change (change.go) for every change of the kept state: the call
// count, the breaker, the analysis, the session... The .ralph/ state store
// is the ChangeSink that writes them; a Record's error is its write's
// error, which the engine reports. Every output is one sink: a new one (a
// notifier, a hook, a dashboard) adds a Sink for the events, a LineSink
// for the log lines, a ChangeSink for the state changes, or several.
package events
