package countdown

import (
	"context"
	"time"
)

// Wait blocks until the wall clock reaches until, or ctx is done.
//
// tick (may be nil) is called at once with the time left, then each time the
// time left reaches a whole number of seconds, and never with zero or less:
// waiting 2s gives ticks of 2s and 1s, waiting 2.5s gives 2.5s, 2s and 1s.
// A deadline already passed returns nil without a tick.
//
// When ctx ends first, Wait returns context.Cause(ctx).
func Wait(ctx context.Context, until time.Time, tick func(remaining time.Duration)) error {
	var timer *time.Timer
	defer func() {
		if timer != nil {
			timer.Stop()
		}
	}()
	for {
		if ctx.Err() != nil {
			return context.Cause(ctx)
		}
		// until carries no monotonic reading when built with time.Date, so
		// this is wall-clock time: a suspend is noticed at the next step.
		left := time.Until(until)
		if left <= 0 {
			return nil
		}
		if tick != nil {
			tick(left)
		}
		step := left % time.Second
		if step == 0 {
			step = time.Second
		}
		if timer == nil {
			timer = time.NewTimer(step)
		} else {
			timer.Reset(step)
		}
		select {
		case <-ctx.Done():
			return context.Cause(ctx)
		case <-timer.C:
		}
	}
}
