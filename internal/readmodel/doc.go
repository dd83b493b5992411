// Package readmodel is the one read side of a .ralph/ folder: a View of
// the loop (what it is doing, its progress, breaker, session, call window,
// usage, plan and recent events) that --status (text and JSON), the
// --monitor status pane, --serve and --dashboard show, and the event log's
// runs that --report and the dashboard's timeline rebuild.
//
// A View is built from Raw, the folder's contents as the loop wrote them.
// Load reads Raw from the folder and never writes a byte there: a damaged
// file leaves its part of the View empty and stays where it is (the loop
// moves it aside when it next starts). Live keeps Raw in memory for the
// loop running in this process, updated as the loop records its changes,
// so that its dashboard does not read the folder again at every change.
//
// Files and Live are the dashboard's two sources: a View marshalled as the
// page's snapshot, the end of the running call's output, and a stamp that
// moves whenever either may have changed.
package readmodel
