// Package engine is the loop: start-up checks, one iteration after another
// in the reference's order, the waits between them (loop delay, idle and
// failure backoff, rate and usage limits, pause), and the decision when to
// stop and with which reason and exit code.
//
// The engine never formats a state file or a console line itself: it emits
// typed events and log lines on an events.Bus, and the sinks render
// status.json, progress.json, logs/ralph.log, metrics.jsonl, the event
// stream and the console from them.
package engine
