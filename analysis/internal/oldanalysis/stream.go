package oldanalysis

import (
	"io"
	"sync"
	"time"
)

// Stream analyses an output while it is being written: the caller writes
// the bytes as they arrive (beside the output log, in the pass that writes
// it) and calls Finish once the output has ended. Finish gives the Result
// that Analyze gives for the same bytes and options, so the output never
// has to be read back.
//
// The reading runs in its own goroutine, pulled through a pipe; a Write
// returns once the reader has taken its bytes. Memory stays bounded as in
// Analyze: the output is never held whole.
type Stream struct {
	opts Options
	pw   *io.PipeWriter
	done chan struct{}
	rd   *reading
	err  error
	once sync.Once
}

// Ending is what is known of a call only once its output has ended.
type Ending struct {
	ExitCode int       // the agent's exit code
	TimedOut bool      // the call was stopped by a timeout
	Now      time.Time // the analysis time (timestamp field)
}

// NewStream starts the analysis of one output. opts are the options of
// Analyze; their ExitCode, TimedOut and Now are ignored, Finish's Ending
// gives them.
func NewStream(opts Options) *Stream {
	pr, pw := io.Pipe()
	s := &Stream{opts: opts, pw: pw, done: make(chan struct{})}
	go func() {
		defer close(s.done)
		// The last lines are kept whatever the ending: the usage-limit
		// check reads them only for a call that failed without a timeout,
		// which is known at Finish.
		s.rd, s.err = onePass(pr, family(opts), true)
		pr.Close()
	}()
	return s
}

// Write feeds the next bytes of the output. It never fails: a stream
// written after Close drops the bytes, and what the reader cannot make
// sense of is analysed as well as it can be, as in Analyze.
func (s *Stream) Write(p []byte) (int, error) {
	s.pw.Write(p)
	return len(p), nil
}

// Close ends the output. The reading finishes in the background; Finish
// closes the stream too, so Close is only needed when the output is never
// analysed (it lets the reader's goroutine end). It never fails.
func (s *Stream) Close() error {
	s.once.Do(func() { s.pw.Close() })
	return nil
}

// Finish ends the output, waits for its reading and analyses it with the
// ending given. It fails only as Analyze does.
func (s *Stream) Finish(e Ending) (Result, error) {
	s.Close()
	<-s.done
	if s.err != nil {
		return Result{}, s.err
	}
	opts := s.opts
	opts.ExitCode, opts.TimedOut, opts.Now = e.ExitCode, e.TimedOut, e.Now
	return s.rd.build(opts), nil
}
