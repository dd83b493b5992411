package events

import (
	"fmt"
	"sync"
	"time"
)

// Level is a log line's level, as the bash loop prints it.
type Level string

const (
	Info    Level = "INFO"
	Warn    Level = "WARN"
	Error   Level = "ERROR"
	Success Level = "SUCCESS"
	LoopLvl Level = "LOOP"
	Debug   Level = "DEBUG"
)

// Sink receives every lifecycle event.
type Sink interface {
	Handle(Event)
}

// NoticeSink receives every notice, stamped with the time it was noted.
type NoticeSink interface {
	Notice(ts time.Time, n Notice)
}

// Bus fans events and notices out to sinks. It is safe for concurrent
// use; sinks are called one at a time, in the order they were added, and
// events and notices share one order: a sink that takes both sees them
// as they happened.
type Bus struct {
	mu      sync.Mutex
	now     func() time.Time
	runID   string
	sinks   []Sink
	notices []NoticeSink
	words   Words

	cmu     sync.Mutex // held while a change is handed over (change.go)
	changes []ChangeSink
}

// Words turn the typed values an event carries into the text fields its
// JSON keeps, for the sinks that store it (status.json, events.jsonl):
// the console's wording, given by whoever builds the bus, so the engine
// emits values and one function words each of them.
type Words struct {
	Stop    func(Stop) string    // run_finished's message
	Failure func(Failure) string // a failed call's reason
}

// SetWords sets the words of the events emitted from now on.
func (b *Bus) SetWords(w Words) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.words = w
}

// NewBus returns a bus stamping events with now() and runID.
func NewBus(now func() time.Time, runID string) *Bus {
	return &Bus{now: now, runID: runID}
}

// Add registers sinks. A value that is several of Sink, NoticeSink and
// ChangeSink gets each.
func (b *Bus) Add(sinks ...any) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, s := range sinks {
		if es, ok := s.(Sink); ok {
			b.sinks = append(b.sinks, es)
		}
		if ns, ok := s.(NoticeSink); ok {
			b.notices = append(b.notices, ns)
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
	if e.Stop != nil && e.Message == "" && b.words.Stop != nil {
		e.Message = b.words.Stop(*e.Stop)
	}
	if e.Failure != nil && e.Reason == "" && b.words.Failure != nil {
		e.Reason = b.words.Failure(*e.Failure)
	}
	for _, s := range b.sinks {
		s.Handle(e)
	}
}

// Note hands n, stamped with the time, to every notice sink.
func (b *Bus) Note(n Notice) {
	b.mu.Lock()
	defer b.mu.Unlock()
	ts := b.now()
	for _, s := range b.notices {
		s.Notice(ts, n)
	}
}

// Log notes a line whose text is composed outside the engine (see
// Logged): format and args as for fmt.Sprintf, or a plain text without
// args.
func (b *Bus) Log(level Level, format string, args ...any) {
	msg := format
	if len(args) > 0 {
		msg = fmt.Sprintf(format, args...)
	}
	b.Note(Logged{Level: level, Text: msg})
}

// Infof and Warnf are shorthands for Log.
func (b *Bus) Infof(format string, args ...any) { b.Log(Info, format, args...) }
func (b *Bus) Warnf(format string, args ...any) { b.Log(Warn, format, args...) }

// LocalStamp is the local "YYYY-MM-DD HH:MM:SS" that starts every log
// line, as the bash loop stamps them.
const LocalStamp = "2006-01-02 15:04:05"
