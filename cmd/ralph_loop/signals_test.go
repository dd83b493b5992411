package main

import (
	"context"
	"syscall"
	"testing"
	"testing/synctest"
	"time"

	"github.com/ralphloop/ralph_loop/internal/engine"
)

// stoppedSignals is a signals whose stop has already arrived.
func stoppedSignals() *signals {
	s := &signals{stopper: engine.NewStopper(context.Background(), false, time.Now)}
	s.stopper.Signal(syscall.SIGTERM)
	return s
}

// A stopped run's end is bounded steps with short stretches between them
// (the state saved, a git look-up, the trackers' claims given back): a
// tick of the blocked check that falls in one of those stretches must not
// end the run as blocked while it still moves.
func TestStopLetsTheRunsEndFinish(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := stoppedSignals()
		finished := false
		ended := make(chan struct{})
		res, ok := s.engine(func() engine.Result {
			defer close(ended)
			release := s.steps.hold() // the agent call, stopping
			time.Sleep(2900 * time.Millisecond)
			release()
			time.Sleep(300 * time.Millisecond) // saves; the tick at 3 s falls here
			release = s.steps.hold()           // the trackers give back their claims
			time.Sleep(1300 * time.Millisecond)
			release()
			time.Sleep(100 * time.Millisecond)
			finished = true
			return engine.Result{Code: 143}
		})
		<-ended // a run given up on still ends here, in virtual time
		if !ok || !finished || res.Code != 143 {
			t.Fatalf("the run's end was cut short as blocked: ok %v, finished %v, exit code %d", ok, finished, res.Code)
		}
	})
}

// A run stuck outside its bounded steps (a read that never returns) is
// given up on once a whole blockedWait passes with no step started or
// ended, and not sooner.
func TestStopGivesUpOnABlockedRun(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := stoppedSignals()
		stuck := make(chan struct{})
		defer close(stuck)
		start := time.Now()
		_, ok := s.engine(func() engine.Result {
			release := s.steps.hold()
			time.Sleep(1500 * time.Millisecond)
			release()
			<-stuck
			return engine.Result{}
		})
		if ok {
			t.Fatal("a run blocked outside any step was waited for")
		}
		if waited := time.Since(start); waited < 1500*time.Millisecond+blockedWait || waited > 1500*time.Millisecond+2*blockedWait {
			t.Errorf("given up after %v; want a whole %v after the last step ended (1.5 s), within one more", waited, blockedWait)
		}
	})
}
