package supervise

import (
	"context"
	"fmt"
	"io"
	"os"
	"sync"
	"sync/atomic"
	"time"
)

// output copies the child's two streams to the caller's writers as bytes
// arrive, and remembers when the last byte came.
type output struct {
	clk   clock
	start time.Time
	last  atomic.Int64 // nanoseconds after start of the last byte read

	limit int64 // Options.MaxOutput; 0 is none
	total atomic.Int64
	stop  context.CancelCauseFunc

	mu   sync.Mutex // serialises writes: Stdout and Stderr may be one writer
	sink [2]io.Writer
	werr error // first write error
}

func newOutput(clk clock, start time.Time, stdout, stderr io.Writer, limit int64, stop context.CancelCauseFunc) *output {
	o := &output{clk: clk, start: start, sink: [2]io.Writer{stdout, stderr}, limit: limit, stop: stop}
	for i, w := range o.sink {
		if w == nil {
			o.sink[i] = io.Discard
		}
	}
	return o
}

// copy reads r until EOF or until r is closed. A failing writer, or output
// past the limit, stops the call but not the reading: the child must never
// block on a full pipe.
func (o *output) copy(r *os.File, stream int) {
	buf := make([]byte, 256*1024)
	for {
		n, err := r.Read(buf)
		if n > 0 {
			o.last.Store(int64(o.clk.Now().Sub(o.start)))
			if t := o.total.Add(int64(n)); o.limit > 0 && t > o.limit && t-int64(n) <= o.limit {
				o.stop(errOutputTooLarge)
			}
			o.mu.Lock()
			if o.werr == nil {
				if _, werr := o.sink[stream].Write(buf[:n]); werr != nil {
					o.werr = werr
					o.stop(fmt.Errorf("%w: %w", ErrOutputWrite, werr))
				}
			}
			o.mu.Unlock()
		}
		if err != nil {
			return
		}
	}
}

// over reports whether more than the limit was read.
func (o *output) over() bool { return o.limit > 0 && o.total.Load() > o.limit }

func (o *output) err() error {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.werr
}

// idle is how long no byte has arrived.
func (o *output) idle() time.Duration {
	return o.clk.Now().Sub(o.start) - time.Duration(o.last.Load())
}

// watchInactivity stops the call when no output arrived for limit.
func watchInactivity(done <-chan struct{}, limit time.Duration, o *output, clk clock, stop context.CancelCauseFunc) {
	fired := make(chan struct{}, 1)
	wait := limit
	for {
		cancel := clk.AfterFunc(wait, sendTo(fired))
		select {
		case <-done:
			cancel()
			return
		case <-fired:
		}
		idle := o.idle()
		if idle >= limit {
			stop(errInactive)
			return
		}
		wait = limit - idle
	}
}
