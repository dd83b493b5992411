package console

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"testing"
	"time"
)

// safeBuffer is a bytes.Buffer for one writer goroutine and a reader.
type safeBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (s *safeBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.buf.Write(p)
}

func (s *safeBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.buf.String()
}

func isClosed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

// A drained stream gets everything, in order, by the time Close returns.
func TestTerminalDelivers(t *testing.T) {
	var sb safeBuffer
	term := NewTerminal(&sb, io.Discard, false, false, 1024)
	a := term.Stdout()
	var want strings.Builder
	for i := 0; i < 500; i++ {
		line := strings.Repeat("x", i%7) + "\n"
		want.WriteString(line)
		p := []byte(line)
		n, err := a.Write(p)
		if n != len(p) || err != nil {
			t.Fatalf("Write = %d, %v", n, err)
		}
		p[0] = '!' // the caller may reuse its buffer at once
	}
	term.Close(time.Minute)
	if !isClosed(term.done) {
		t.Fatal("Close returned before the queue drained")
	}
	if sb.String() != want.String() {
		t.Errorf("delivered %d bytes, want %d", len(sb.String()), want.Len())
	}
	if n, err := a.Write([]byte("late")); n != 4 || err != nil {
		t.Errorf("Write after Close = %d, %v", n, err)
	}
	term.Close(time.Minute) // twice is fine
}

// Nobody reads the pipe: writes still return at once (the surplus is
// dropped), and when the reader goes away (EPIPE) the stream is given up
// quietly and Close does not wait out its timeout.
func TestTerminalUndrainedPipe(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	term := NewTerminal(w, io.Discard, false, false, 4)
	a := term.Stdout()
	chunk := bytes.Repeat([]byte("y"), 1024)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := 0; i < 2048; i++ { // 2 MiB: far more than a pipe holds
			if n, err := a.Write(chunk); n != len(chunk) || err != nil {
				t.Errorf("Write = %d, %v", n, err)
				return
			}
		}
	}()
	select {
	case <-done:
	case <-time.After(30 * time.Second): // a guard only: the writes never wait
		t.Fatal("Write blocked on an undrained pipe")
	}
	if isClosed(term.done) {
		t.Fatal("copier ended early")
	}

	// The reader goes away: the copier's blocked write (or, if it was idle,
	// its next one) fails with EPIPE.
	r.Close()
	a.Write(chunk)
	term.Close(time.Minute)
	if !isClosed(term.done) {
		t.Fatal("Close timed out instead of seeing the broken pipe")
	}
	if !term.dead[stdoutStream] {
		t.Error("stream not marked dead after EPIPE")
	}
	if n, err := a.Write(chunk); n != len(chunk) || err != nil {
		t.Errorf("Write after EPIPE = %d, %v", n, err)
	}
}

// A pipe whose reader is gone before the first write; the other stream
// still gets its lines.
func TestTerminalBrokenPipeFirst(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	r.Close()
	var errs safeBuffer
	term := NewTerminal(w, &errs, false, false, 256)
	for i := 0; i < 100; i++ {
		if n, err := term.Stdout().Write([]byte("z\n")); n != 2 || err != nil {
			t.Fatalf("Write = %d, %v", n, err)
		}
	}
	term.Stderr().Write([]byte("still here\n"))
	term.Close(time.Minute)
	if !isClosed(term.done) || !term.dead[stdoutStream] {
		t.Errorf("done=%v dead=%v", isClosed(term.done), term.dead[stdoutStream])
	}
	if errs.String() != "still here\n" {
		t.Errorf("stderr got %q", errs.String())
	}
}

// Close with an undrained, still-open pipe returns after its timeout: an
// undrained pipe cannot hold the loop's exit.
func TestTerminalCloseBounded(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	term := NewTerminal(w, io.Discard, false, false, 256)
	chunk := bytes.Repeat([]byte("q"), 4096)
	for i := 0; i < 64; i++ { // 256 KiB: the copier blocks on the full pipe
		term.Stdout().Write(chunk)
	}
	term.Close(time.Millisecond) // the one real wait in this file: Close's own bound
	if isClosed(term.done) {
		t.Error("copier finished although nobody read the pipe")
	}
}

// screen is one terminal behind both stdout and stderr.
type screen struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *screen) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *screen) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// One writer owns the terminal: a redrawn line (the countdown) is ended
// before any other line is printed on either stream, and the two streams
// keep the order they were written in.
func TestTerminalOwnsBothStreams(t *testing.T) {
	const cd = "Next loop in: 00:00:30"
	tests := []struct {
		name           string
		outTTY, errTTY bool
		do             func(out, err *termStream)
		want           string
	}{
		{
			name: "a log line erases the countdown on a terminal", outTTY: true, errTTY: true,
			do: func(out, err *termStream) {
				out.Redraw(cd)
				io.WriteString(err, "[LOOP] === Completed Loop #1 ===\n")
				out.Redraw("Next loop in: 00:00:29")
				out.EndRedraw()
				io.WriteString(err, "[LOOP] === Starting Loop #2 ===\n")
			},
			want: "\r" + cd + "\033[K\r\033[K[LOOP] === Completed Loop #1 ===\n\rNext loop in: 00:00:29\033[K\n[LOOP] === Starting Loop #2 ===\n",
		},
		{
			name: "a box on the same stream erases it too", outTTY: true, errTTY: true,
			do: func(out, err *termStream) {
				out.Redraw(cd)
				io.WriteString(out, "box\n")
			},
			want: "\r" + cd + "\033[K\r\033[Kbox\n",
		},
		{
			name: "not a terminal: the redrawn line is ended with a newline", outTTY: false, errTTY: false,
			do: func(out, err *termStream) {
				out.Redraw(cd)
				io.WriteString(err, "line\n")
			},
			want: "\r" + cd + "\033[K\nline\n",
		},
		{
			name: "output left mid-line on a terminal is ended before the other stream's line", outTTY: true, errTTY: true,
			do: func(out, err *termStream) {
				io.WriteString(out, "partial agent output")
				io.WriteString(err, "[INFO] log\n")
				io.WriteString(out, "more\n")
			},
			want: "partial agent output\n[INFO] log\nmore\n",
		},
		{
			name: "a countdown after a partial line starts on its own line", outTTY: true, errTTY: true,
			do: func(out, err *termStream) {
				io.WriteString(out, "Choose: ")
				out.Redraw(cd)
				out.EndRedraw()
			},
			want: "Choose: \n\r" + cd + "\033[K\n",
		},
		{
			name: "order across streams", outTTY: false, errTTY: false,
			do: func(out, err *termStream) {
				for i := range 50 {
					fmt.Fprintf(out, "o%d\n", i)
					fmt.Fprintf(err, "e%d\n", i)
				}
			},
			want: func() string {
				var b strings.Builder
				for i := range 50 {
					fmt.Fprintf(&b, "o%d\ne%d\n", i, i)
				}
				return b.String()
			}(),
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var s screen
			term := NewTerminal(&s, &s, tc.outTTY, tc.errTTY, 1024)
			tc.do(term.stream(stdoutStream), term.stream(stderrStream))
			term.Close(5 * time.Second)
			if got := s.String(); got != tc.want {
				t.Errorf("screen:\n got %q\nwant %q", got, tc.want)
			}
		})
	}
}

// Close ends a countdown still on screen, and never waits long for a pipe
// nobody drains.
func TestTerminalClose(t *testing.T) {
	var s screen
	term := NewTerminal(&s, &s, true, true, 16)
	term.stream(stdoutStream).Redraw("x")
	term.Close(5 * time.Second)
	if got := s.String(); got != "\rx\033[K\n" {
		t.Errorf("screen %q", got)
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	term = NewTerminal(w, w, false, false, 4)
	big := bytes.Repeat([]byte("x"), 1<<20) // printable: queued as it is, not made six times longer as NULs would be
	for range 10 {
		term.Stderr().Write(big) // never blocks
	}
	start := time.Now()
	term.Close(100 * time.Millisecond)
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("Close took %s on an undrained pipe", d)
	}
}
