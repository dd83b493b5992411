package store

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/ralphloop/ralph_loop/internal/events"
	"github.com/ralphloop/ralph_loop/internal/observe"
	"github.com/ralphloop/ralph_loop/internal/ralphdir"
)

// tailLines reads path from offset 0 until stop is closed and the file has
// no more bytes, calling line for every complete (newline-terminated) line.
// A trailing fragment is an append still under way: it is kept until its
// newline arrives. It never sleeps; it yields between empty reads.
func tailLines(path string, stop <-chan struct{}, line func([]byte) error) error {
	var f *os.File
	for f == nil {
		var err error
		f, err = os.Open(path)
		if err != nil {
			select {
			case <-stop:
				return fmt.Errorf("%s never appeared: %w", path, err)
			default:
				runtime.Gosched()
				continue
			}
		}
	}
	defer f.Close()
	var pending []byte
	buf := make([]byte, 32<<10)
	for {
		n, err := f.Read(buf)
		pending = append(pending, buf[:n]...)
		for {
			i := bytes.IndexByte(pending, '\n')
			if i < 0 {
				break
			}
			if err := line(pending[:i]); err != nil {
				return err
			}
			pending = pending[i+1:]
		}
		if err != nil && err != io.EOF {
			return err
		}
		if n == 0 {
			select {
			case <-stop:
				// One last read after the writer finished.
				rest, err := io.ReadAll(f)
				if err != nil {
					return err
				}
				pending = append(pending, rest...)
				for _, l := range bytes.SplitAfter(pending, []byte("\n")) {
					if len(l) == 0 {
						continue
					}
					if !bytes.HasSuffix(l, []byte("\n")) {
						return fmt.Errorf("file ends in a fragment: %q", l)
					}
					if err := line(bytes.TrimSuffix(l, []byte("\n"))); err != nil {
						return err
					}
				}
				return nil
			default:
				runtime.Gosched()
			}
		}
	}
}

// checkEventLine is what a reader of events.jsonl may rely on: every
// complete line is one JSON object of the current schema.
func checkEventLine(l []byte, want int) error {
	var e events.Event
	if err := json.Unmarshal(l, &e); err != nil {
		return fmt.Errorf("line %d is not valid JSON (%v): %.200q", want, err, l)
	}
	if e.V != events.SchemaVersion || e.Type == "" || e.Loop != want {
		return fmt.Errorf("line %d: v=%d type=%q loop=%d", want, e.V, e.Type, e.Loop)
	}
	return nil
}

// Events stay valid JSON lines while another reader tails the file during
// the run. Messages of up to 12 KiB make lines cross page boundaries.
func TestEventsLogWhileReaderTails(t *testing.T) {
	d := newDir(t)
	b := observe.New(fixedClock, "r")
	b.Add(newStream(d, nil, failOnErr(t)))
	const n = 600

	stop := make(chan struct{})
	var seen int
	var readErr error
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		readErr = tailLines(d.Path(ralphdir.EventsLog), stop, func(l []byte) error {
			if err := checkEventLine(l, seen); err != nil {
				return err
			}
			seen++
			return nil
		})
	}()
	for i := 0; i < n; i++ {
		msg := strings.Repeat(`"\x`, (i*37)%4096) + "\xff\n"
		emit(b, events.Event{Type: events.IterationCompleted, Reason: msg, Snapshot: events.Snapshot{Loop: i}})
	}
	close(stop)
	wg.Wait()
	if readErr != nil {
		t.Fatal(readErr)
	}
	if seen != n {
		t.Errorf("reader saw %d events, want %d", seen, n)
	}
}

// The same with the reader in another process (the test binary re-run as a
// tail): it exits non-zero at the first line that is not valid JSON.
func TestEventsLogWhileOtherProcessTails(t *testing.T) {
	d := newDir(t)
	b := observe.New(fixedClock, "r")
	b.Add(newStream(d, nil, failOnErr(t)))
	emit(b, events.Event{Type: events.RunStarted, Snapshot: events.Snapshot{Loop: 0}})

	const n = 400
	cmd := exec.Command(os.Args[0], "-test.run=^TestTailChild$", "-test.count=1")
	cmd.Env = append(os.Environ(), "EVENTS_TAIL_FILE="+d.Path(ralphdir.EventsLog), "EVENTS_TAIL_N="+strconv.Itoa(n+1))
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= n; i++ {
		msg := strings.Repeat("é\\\"", (i*53)%3000)
		emit(b, events.Event{Type: events.IterationCompleted, Reason: msg, Snapshot: events.Snapshot{Loop: i}})
	}
	stdin.Close() // tells the child the writer is done
	if err := cmd.Wait(); err != nil {
		t.Fatalf("tailing process: %v\n%s", err, out.String())
	}
	if !strings.Contains(out.String(), fmt.Sprintf("tail ok %d", n+1)) {
		t.Errorf("tailing process output:\n%s", out.String())
	}
}

// TestTailChild is the child half of TestEventsLogWhileOtherProcessTails.
func TestTailChild(t *testing.T) {
	path := os.Getenv("EVENTS_TAIL_FILE")
	if path == "" {
		t.Skip("helper process only")
	}
	want, _ := strconv.Atoi(os.Getenv("EVENTS_TAIL_N"))
	stop := make(chan struct{})
	go func() {
		io.Copy(io.Discard, os.Stdin)
		close(stop)
	}()
	seen := 0
	err := tailLines(path, stop, func(l []byte) error {
		if err := checkEventLine(l, seen); err != nil {
			return err
		}
		seen++
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if seen != want {
		t.Fatalf("saw %d lines, want %d", seen, want)
	}
	fmt.Printf("tail ok %d\n", seen)
}

// The fan is safe from many goroutines: lines never interleave.
func TestFanConcurrentReports(t *testing.T) {
	d := newDir(t)
	b := observe.New(fixedClock, "r")
	b.Add(newStream(d, nil, failOnErr(t)))
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for i := 0; i < 50; i++ {
				emit(b, events.Event{Type: events.DelayStarted, Reason: strings.Repeat("x", g*500), Snapshot: events.Snapshot{Loop: g}})
				b.Log(events.Info, "g%d", g)
			}
		}(g)
	}
	wg.Wait()
	data := readFile(t, d, ralphdir.EventsLog)
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	if len(lines) != 400 {
		t.Fatalf("%d lines", len(lines))
	}
	for _, l := range lines {
		if !json.Valid([]byte(l)) {
			t.Fatalf("invalid line %.100q", l)
		}
	}
}
