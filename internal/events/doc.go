// Package events holds what the loop engine tells the world, as typed
// values; package observe hands them to the surfaces (the Observer
// interface and its Fan).
//
//   - Event is the run's lifecycle: iteration started and ended, waits,
//     breaker changes, run finished. Every event carries the run's state,
//     so a surface can render itself from the last event alone. Package
//     store's observers keep them: status.json, progress.json,
//     logs/metrics.jsonl and the NDJSON stream (logs/events.jsonl,
//     --events), whose shape docs/EVENTS.md documents.
//   - Notice is what a person watching the loop is told: log lines, boxes,
//     countdown ticks, the agent's live output. Notices carry typed
//     values, never preformatted text; package console renders them, for
//     the terminal and (through store.RalphLog) for logs/ralph.log.
//
// How a run ended early (Stop: a limit, a stall, the failure guard, a
// signal...) and how an agent call failed (Failure) are values too. The
// console words them (console.StopLine, console.FailureWords); the JSON
// keeps a text for each (run_finished's message, a failed call's reason),
// which the fan fills from the words it was given (observe.Fan.SetWords)
// before any surface sees the event.
//
// The changes of the kept state (the call count, the breaker, the
// analysis, the session...) are not values here: each is a method of
// observe.Keeper. Saved is that state as the store loads it at start-up.
package events
