//go:build linux

package engine

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/ralphloop/ralph_loop/internal/config"
	"github.com/ralphloop/ralph_loop/internal/ralphdir"
)

// fileOpens counts, with inotify, the opens of the files in a few folders:
// every open by any process, with no seam in the code under test.
type fileOpens struct {
	fd    int
	dirs  map[int]string // watch descriptor → folder
	opens map[string]int // path → IN_OPEN
	write map[string]int // path → IN_CLOSE_WRITE (opened for writing)
}

func watchOpens(t *testing.T, dirs ...string) *fileOpens {
	t.Helper()
	fd, err := unix.InotifyInit1(unix.IN_NONBLOCK | unix.IN_CLOEXEC)
	if err != nil {
		t.Skipf("inotify: %v", err)
	}
	t.Cleanup(func() { unix.Close(fd) })
	w := &fileOpens{fd: fd, dirs: map[int]string{}, opens: map[string]int{}, write: map[string]int{}}
	for _, d := range dirs {
		wd, err := unix.InotifyAddWatch(fd, d, unix.IN_OPEN|unix.IN_CLOSE_WRITE)
		if err != nil {
			t.Fatalf("inotify watch %s: %v", d, err)
		}
		w.dirs[wd] = d
	}
	return w
}

// drain reads the queued events (the queue must not overflow: a short run).
func (w *fileOpens) drain(t *testing.T) {
	t.Helper()
	buf := make([]byte, 1<<16)
	for {
		n, err := unix.Read(w.fd, buf)
		if err == unix.EAGAIN || n <= 0 {
			return
		}
		if err != nil {
			t.Fatalf("inotify read: %v", err)
		}
		for off := 0; off+unix.SizeofInotifyEvent <= n; {
			ev := (*unix.InotifyEvent)(unsafe.Pointer(&buf[off]))
			name := string(bytes.TrimRight(buf[off+unix.SizeofInotifyEvent:off+unix.SizeofInotifyEvent+int(ev.Len)], "\x00"))
			off += unix.SizeofInotifyEvent + int(ev.Len)
			if ev.Mask&unix.IN_Q_OVERFLOW != 0 {
				t.Fatal("inotify queue overflowed")
			}
			p := filepath.Join(w.dirs[int(ev.Wd)], name)
			if ev.Mask&unix.IN_OPEN != 0 {
				w.opens[p]++
			}
			if ev.Mask&unix.IN_CLOSE_WRITE != 0 {
				w.write[p]++
			}
		}
	}
}

// TestPlanAndOutputReadOnce pins the reads of one iteration: @fix_plan.md
// is opened at most twice (before the call and after it), and the agent's
// output log exactly once, for writing: the analysis is fed as the log is
// written, and nothing reads the log back or rewrites it.
func TestPlanAndOutputReadOnce(t *testing.T) {
	t.Parallel()
	r := newObsRun(t)
	r.reply = func(n int) string { return claudeReply(n, 0.01, 10, 10, 0, 0) }
	r.settle = func(s *config.Config) { s.MaxLoops = 3 }
	plan := r.dir.Path(ralphdir.FixPlan)
	w := watchOpens(t, r.dir.Root(), r.dir.Path(ralphdir.LogsDir))
	r.run()
	if r.res.Code != ExitMaxLoops {
		t.Fatalf("exit %d (%s), want %d", r.res.Code, r.res.Stop.Sentence(), ExitMaxLoops)
	}
	w.drain(t)

	t.Logf("@fix_plan.md opens: %d", w.opens[plan])
	const iterations = 3
	if got := w.opens[plan]; got == 0 || got > 2*iterations {
		t.Errorf("@fix_plan.md opened %d times in %d iterations, want 1 to %d", got, iterations, 2*iterations)
	}
	outputs := 0
	for p, n := range w.opens {
		if !strings.HasPrefix(filepath.Base(p), "claude_output_") {
			continue
		}
		outputs++
		if n != 1 || w.write[p] != 1 {
			t.Errorf("%s: %d opens, %d for writing; want one, for writing", filepath.Base(p), n, w.write[p])
		}
	}
	if outputs != iterations {
		t.Errorf("%d output logs, want %d", outputs, iterations)
	}
}
