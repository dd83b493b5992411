package engine

import (
	"context"
	"os"
	"sync"
	"syscall"
	"time"
)

// SignalError is the cancellation cause when the loop is stopped by a
// signal; Code is the conventional exit code, 128 + the signal's number
// (129 SIGHUP, 130 SIGINT, 131 SIGQUIT, 143 SIGTERM).
type SignalError struct {
	Signal os.Signal
	Name   string // "SIGINT", "SIGTERM", "SIGHUP" or "SIGQUIT"
	Code   int
}

func (e *SignalError) Error() string { return "interrupted by " + e.Name }

// NewSignalError describes sig.
func NewSignalError(sig os.Signal) *SignalError {
	switch sig {
	case syscall.SIGTERM:
		return &SignalError{sig, "SIGTERM", ExitSIGTERM}
	case syscall.SIGHUP:
		return &SignalError{sig, "SIGHUP", ExitSIGHUP}
	case syscall.SIGQUIT:
		return &SignalError{sig, "SIGQUIT", ExitSIGQUIT}
	default:
		return &SignalError{sig, "SIGINT", ExitSIGINT}
	}
}

// Stopper turns signals into either "skip the current wait" or "stop the
// loop". With a terminal on stdin a single Ctrl+C during a wait skips it; a
// second one within skipWindow, or one outside a wait, stops the loop. A
// supervisor's signal (no terminal) always stops.
type Stopper struct {
	ctx    context.Context
	cancel context.CancelCauseFunc

	interactive bool
	now         func() time.Time

	mu        sync.Mutex
	skip      chan struct{} // non-nil while a skippable wait runs
	lastSkip  time.Time
	skipped   bool // a wait was skipped: so are the others before the next call
	skipCalls int  // the loop's agent-call count at that skip
}

// skipWindow is how soon a second Ctrl+C turns a skip into a stop.
const skipWindow = 2 * time.Second

// NewStopper derives the loop's context from parent.
func NewStopper(parent context.Context, interactive bool, now func() time.Time) *Stopper {
	ctx, cancel := context.WithCancelCause(parent)
	return &Stopper{ctx: ctx, cancel: cancel, interactive: interactive, now: now}
}

// Context is canceled, with a *SignalError cause, when the loop must stop.
func (s *Stopper) Context() context.Context { return s.ctx }

// Signal handles one received signal and reports what it did ("skip" or
// "stop").
func (s *Stopper) Signal(sig os.Signal) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.now()
	if sig == os.Interrupt && s.interactive && s.skip != nil && (s.lastSkip.IsZero() || now.Sub(s.lastSkip) > skipWindow) {
		s.lastSkip = now
		close(s.skip)
		s.skip = nil
		return "skip"
	}
	s.cancel(NewSignalError(sig))
	return "stop"
}

// beginWait marks a skippable wait and returns the channel closed on skip.
func (s *Stopper) beginWait() <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.skip = make(chan struct{})
	return s.skip
}

func (s *Stopper) endWait() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.skip = nil
}

// noteSkip records that a wait after the calls-th agent call was skipped.
func (s *Stopper) noteSkip(calls int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.skipped, s.skipCalls = true, calls
}

// skipping reports whether a wait after the calls-th agent call is covered
// by an earlier skip (no agent call since).
func (s *Stopper) skipping(calls int) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.skipped && s.skipCalls == calls
}

// Cause returns the *SignalError that stopped the loop, or nil.
func Cause(ctx context.Context) *SignalError {
	if se, ok := context.Cause(ctx).(*SignalError); ok {
		return se
	}
	return nil
}

// Skip skips the wait under way, as a Ctrl+C from a terminal does, with or
// without a terminal on stdin; it reports false when no wait runs.
func (s *Stopper) Skip() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.skip == nil {
		return false
	}
	s.lastSkip = s.now()
	close(s.skip)
	s.skip = nil
	return true
}
