// Package events holds what the loop engine tells the world, as typed
// values, and the bus that hands them to sinks.
//
// Two kinds of value share the bus, in one order:
//
//   - Event (Bus.Emit) is the run's lifecycle: iteration started and
//     ended, waits, breaker changes, run finished. Every event carries the
//     run's state, so a sink can render itself from the last event alone.
//     Package store's sinks keep them: status.json, progress.json,
//     logs/metrics.jsonl and the NDJSON stream (logs/events.jsonl,
//     --events), whose shape docs/EVENTS.md documents.
//   - Notice (Bus.Note) is what a person watching the loop is told: log
//     lines, boxes, countdown ticks, the agent's live output. Notices
//     carry typed values, never preformatted text; package console renders
//     them, for the terminal and (through store.RalphLog) for logs/ralph.log.
//
// How a run ended early (Stop: a limit, a stall, the failure guard, a
// signal...) and how an agent call failed (Failure) are values too. The
// console words them (console.StopLine, console.FailureWords); the JSON
// keeps a text for each (run_finished's message, a failed call's reason),
// which the bus fills from the words it was given (Bus.SetWords) before
// any sink sees the event.
//
// The engine decides; it never writes a state file or formats a console
// line itself. It calls Bus.Emit with an Event, Bus.Note with a Notice,
// and Bus.Record with a Change (change.go) for every change of the kept
// state: the call count, the breaker, the analysis, the session... The
// .ralph/ state store is the ChangeSink that writes them; a Record's error
// is its write's error, which the engine reports. Every output is one
// sink: a new one (a notifier, a hook, a dashboard) adds a Sink for the
// events, a NoticeSink for what a person is told, a ChangeSink for the
// state changes, or several, with one Bus.Add.
package events
