package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/ralphloop/ralph_loop/internal/engine"
)

// stopSignals are the signals that stop the loop: SIGINT (Ctrl+C), SIGTERM
// (bmalph stop), SIGHUP (terminal closed) and SIGQUIT (Ctrl+\), which is
// handled like SIGTERM instead of dumping goroutines.
var stopSignals = []os.Signal{os.Interrupt, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT}

// blockedWait is how long a stop waits for the engine outside its bounded
// steps before giving up on it (it is blocked in a read that never
// returns): a whole blockedWait with no step under way and none started
// or ended. An agent call has its own bound (the supervisor's TERM →
// grace → KILL), and so has a tracker step (its command's timeout).
const blockedWait = time.Second

// signals turns the stop signals into the Stopper's cancellation, from the
// first instruction of the run.
type signals struct {
	stopper *engine.Stopper
	ch      chan os.Signal
	once    sync.Once
	stops   chan struct{} // one per stop, for the notifiers' drain (see drainCuts)

	mu  sync.Mutex
	out io.Writer // where the "stopping" notice goes

	steps steps // the engine's bounded steps (the notice says an agent call is stopped)
}

// steps are the engine's steps that bound themselves: an agent call and
// each tracker step. The stop's blocked check (signals.engine) waits as
// long as one is under way or one started or ended since it last looked.
type steps struct {
	active atomic.Bool
	moved  atomic.Uint64 // step starts and ends
}

// hold marks a step under way until the returned func is called.
func (s *steps) hold() func() {
	s.active.Store(true)
	s.moved.Add(1)
	return func() {
		s.active.Store(false)
		s.moved.Add(1)
	}
}

func catchSignals(interactive bool, out io.Writer) *signals {
	s := &signals{ch: make(chan os.Signal, 4), stops: make(chan struct{}, 4), out: out,
		stopper: engine.NewStopper(context.Background(), interactive, time.Now)}
	signal.Notify(s.ch, stopSignals...)
	go func() {
		for sig := range s.ch {
			s.deliver(sig)
		}
	}()
	return s
}

// deliver acts on one stop signal, caught or sent from within (the
// dashboard's stop control).
func (s *signals) deliver(sig os.Signal) {
	if s.stopper.Signal(sig) == "stop" {
		select {
		case s.stops <- struct{}{}:
		default:
		}
		what := "..."
		if s.steps.active.Load() {
			what = ": stopping the agent..."
		}
		s.mu.Lock()
		fmt.Fprintf(s.out, "\nralph_loop: stopping (%s)%s\n", engine.NewSignalError(sig).Name, what)
		s.mu.Unlock()
	}
}

// setOut sends later notices to w.
func (s *signals) setOut(w io.Writer) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.out = w
}

// release restores the default signal behaviour.
func (s *signals) release() {
	s.once.Do(func() {
		signal.Stop(s.ch)
		close(s.ch)
	})
}

// stopped returns the stop, once a signal has stopped the run, or nil.
func (s *signals) stopped() *engine.SignalError {
	return engine.Cause(s.stopper.Context())
}

// stopError is the stop that ended the run (SIGTERM's when there was none).
func (s *signals) stopError() *engine.SignalError {
	if se := s.stopped(); se != nil {
		return se
	}
	return engine.NewSignalError(syscall.SIGTERM)
}

// unlessStopped runs f and reports true when it returned, or false as soon
// as a stop arrives while f blocks (f is then abandoned: the process is
// about to exit).
func (s *signals) unlessStopped(f func()) bool {
	done := make(chan struct{})
	go func() {
		defer close(done)
		f()
	}()
	select {
	case <-done:
		return true
	case <-s.stopper.Context().Done():
	}
	select {
	case <-done:
		return true
	default:
		return false
	}
}

// engine runs the engine and returns its result, or ok=false when a stop
// arrived and the engine then spent a whole blockedWait outside its
// bounded steps, neither starting nor ending one (a stopped run's end —
// the state saved, the trackers' claims given back — is a few such
// steps with short stretches between them, which it must be let finish).
func (s *signals) engine(run func() engine.Result) (res engine.Result, ok bool) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		res = run()
	}()
	select {
	case <-done:
		return res, true
	case <-s.stopper.Context().Done():
	}
	t := time.NewTicker(blockedWait)
	defer t.Stop()
	seen := s.steps.moved.Load()
	for {
		select {
		case <-done:
			return res, true
		case <-t.C:
			moved := s.steps.moved.Load()
			if !s.steps.active.Load() && moved == seen {
				return engine.Result{}, false
			}
			seen = moved
		}
	}
}
