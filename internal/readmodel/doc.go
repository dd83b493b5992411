// Package readmodel is the one read side of a .ralph/ folder: a View of
// the loop (what it is doing, its progress, breaker, session, call window,
// usage, plan and recent events) that --status (text and JSON), the
// --monitor status pane, --serve and --dashboard show, and the event log's
// runs that --report rebuilds.
//
// A View is built from the folder's state as the loop wrote it. Load reads
// that state and never writes a byte there: a damaged file leaves its part
// of the View empty and stays where it is (the loop moves it aside when it
// next starts).
//
// The dashboard has two sources of Views: FromFiles reads the folder each
// time it is asked (--serve); Watch reads it once and then keeps it in
// memory from the engine's bus, for the loop running in this process
// (--dashboard), so that a page costs that loop no read of its state files
// or its event log. live_bus.go is the one file that knows the bus.
package readmodel
