package events

import (
	"fmt"
	"sync"
	"time"
)

// Level is a log line's level, as the reference prints it.
type Level string

const (
	Info    Level = "INFO"
	Warn    Level = "WARN"
	Error   Level = "ERROR"
	Success Level = "SUCCESS"
	LoopLvl Level = "LOOP"
	Debug   Level = "DEBUG"
)

// Sink receives every event.
type Sink interface {
	Handle(Event)
}

// LineSink receives every log line.
type LineSink interface {
	Line(ts time.Time, level Level, msg string)
}

// Bus fans events and log lines out to sinks. It is safe for concurrent
// use; sinks are called one at a time, in the order they were added.
type Bus struct {
	mu      sync.Mutex
	now     func() time.Time
	runID   string
	sinks   []Sink
	lines   []LineSink
	verbose bool

	cmu     sync.Mutex // held while a change is handed over (change.go)
	changes []ChangeSink
}

// NewBus returns a bus stamping events with now() and runID.
func NewBus(now func() time.Time, runID string) *Bus {
	return &Bus{now: now, runID: runID}
}

// RunID is the run's id (the ISO time the run started).
func (b *Bus) RunID() string { return b.runID }

// SetVerbose enables DEBUG lines.
func (b *Bus) SetVerbose(v bool) { b.verbose = v }

// Add registers sinks. A value that is several of Sink, LineSink and
// ChangeSink gets each.
func (b *Bus) Add(sinks ...any) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, s := range sinks {
		if es, ok := s.(Sink); ok {
			b.sinks = append(b.sinks, es)
		}
		if ls, ok := s.(LineSink); ok {
			b.lines = append(b.lines, ls)
		}
		if cs, ok := s.(ChangeSink); ok {
			b.changes = append(b.changes, cs)
		}
	}
}

// Emit stamps e (version, time, run id) and hands it to every sink.
func (b *Bus) Emit(e Event) {
	b.mu.Lock()
	defer b.mu.Unlock()
	e.V = SchemaVersion
	if e.TS.IsZero() {
		e.TS = b.now()
	}
	e.RunID = b.runID
	if e.Delay != 0 && e.DelaySecs == 0 {
		e.DelaySecs = e.Delay.Seconds()
	}
	for _, s := range b.sinks {
		s.Handle(e)
	}
}

// Log writes one log line ("[stamp] [LEVEL] msg") to every line sink.
func (b *Bus) Log(level Level, format string, args ...any) {
	if level == Debug && !b.verbose {
		return
	}
	msg := format
	if len(args) > 0 {
		msg = fmt.Sprintf(format, args...)
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	ts := b.now()
	for _, s := range b.lines {
		s.Line(ts, level, msg)
	}
}

// Infof, Warnf... are shorthands for Log.
func (b *Bus) Infof(format string, args ...any)    { b.Log(Info, format, args...) }
func (b *Bus) Warnf(format string, args ...any)    { b.Log(Warn, format, args...) }
func (b *Bus) Errorf(format string, args ...any)   { b.Log(Error, format, args...) }
func (b *Bus) Successf(format string, args ...any) { b.Log(Success, format, args...) }
func (b *Bus) Loopf(format string, args ...any)    { b.Log(LoopLvl, format, args...) }
func (b *Bus) Debugf(format string, args ...any)   { b.Log(Debug, format, args...) }
