// Package events holds what the loop engine tells the world, as typed
// values, and their words; package observe hands them to the surfaces
// (the Observer interface, one method per kind of happening, and its
// Fan). It does no I/O and imports no machinery.
//
//   - Moment is what every report of the run's lifecycle carries: the
//     time, the run id, the run's state (Snapshot), so a surface can
//     render itself from the last report alone, and status.json's action
//     and status. Call (how an agent call ended), Wait (a wait, a limit),
//     End (how the run ended), BreakerChange, DriverSwitch and
//     AgentWorking are the values of the happenings that have one. A
//     value carries what a person is told with its happening (a failed
//     call's agent, failure and stderr tail, the usage window that
//     stopped it, the breaker it opened; why a back-off waits), and its
//     Lines word them: one report, one place.
//   - Event is one line of logs/events.jsonl (docs/EVENTS.md), the shape
//     observe.Lines builds from a report and the log's readers decode;
//     Type names its kinds.
//   - Notice is the rest of what a person watching the loop is told (log
//     lines, boxes, countdown ticks, the ticking line of a call) that
//     belongs to no happening, or comes apart from it: typed values,
//     each with its own words (Lines); package console lays them out,
//     for the terminal and (through store.RalphLog) for logs/ralph.log.
//   - Line is one piece of those words: a log line at a Level, or text
//     only the console shows (a box, a banner, a countdown, the ticking
//     line), with how it is shown.
//
// How a run ended early (Stop: a limit, a stall, the failure guard, a
// signal...) and how an agent call failed (Failure) are values too, with
// their words (Stop.Sentence, Failure.Words), which the event line keeps
// too (run_finished's message, a failed call's reason). A value more than one surface words has one
// function here (words.go: BreakerMove; Event.Headline, SummaryLine).
//
// The kept state (the call count, the breaker, the analysis, the
// session...) is not a value here: it is one value, store.Kept, which the
// engine saves whole through its engine.Keeper.
package events
