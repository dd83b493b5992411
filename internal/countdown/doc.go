// Package countdown waits until a wall-clock deadline while reporting the
// time left, for every wait of the loop: the top of the next hour when the
// call limit is used up, the usage-limit pause, retry back-offs.
//
//	err := countdown.Wait(ctx, until, func(left time.Duration) {
//		bus.Note(events.WaitTick{Kind: kind, Left: left})
//	})
//
// Wait sleeps on real timers in steps of at most one second and recomputes
// the time left from the wall clock at every step, so it ends on the
// deadline itself (not after a count of sleeps that drifts) and catches up
// at once after the machine was suspended. Tests run it inside
// testing/synctest, where the steps take no real time. Showing the time
// left is the console's job (package console).
//
// API:
//
//	func Wait(ctx context.Context, until time.Time, tick func(remaining time.Duration)) error
package countdown
