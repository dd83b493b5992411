package supervise

import (
	"bytes"
	"errors"
	"os"
	"strings"
	"sync"
	"syscall"
	"testing"
)

func TestHeadTail(t *testing.T) {
	cases := []struct {
		name   string
		limit  int64
		writes []string
		want   string
	}{
		{"under the limit", 10, []string{"abc", "def"}, "abcdef"},
		{"exactly the limit", 6, []string{"abc", "def"}, "abcdef"},
		{"unlimited", 0, []string{"abc", "def"}, "abcdef"},
		{"over, one write", 6, []string{"0123456789"}, "012\n[... 4 bytes omitted ...]\n789"},
		{"over, byte by byte", 6, strings.Split("0123456789", ""), "012\n[... 4 bytes omitted ...]\n789"},
		{"over, ring wraps", 6, []string{"01", "23", "45", "67", "89", "ab"}, "012\n[... 6 bytes omitted ...]\n9ab"},
		{"over, big write after small", 6, []string{"0123", "4", "56789abcdef"}, "012\n[... 10 bytes omitted ...]\ndef"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var out bytes.Buffer
			h := NewHeadTail(&out, tc.limit)
			for _, w := range tc.writes {
				if n, err := h.Write([]byte(w)); n != len(w) || err != nil {
					t.Fatalf("Write(%q) = %d, %v", w, n, err)
				}
			}
			if err := h.Close(); err != nil {
				t.Fatal(err)
			}
			if out.String() != tc.want {
				t.Errorf("got %q, want %q", out.String(), tc.want)
			}
		})
	}
}

// The tail never holds more than maxTail, whatever the limit.
func TestHeadTailMemoryBound(t *testing.T) {
	var out countWriter
	h := NewHeadTail(&out, 1<<40).(*headTail)
	chunk := bytes.Repeat([]byte("x"), 1<<20)
	for range 8 {
		h.Write(chunk)
	}
	if cap(h.ring) > maxTail {
		t.Errorf("ring holds %d bytes, want at most %d", cap(h.ring), maxTail)
	}
	h = NewHeadTail(&out, 2<<20).(*headTail)
	for range 8 {
		h.Write(chunk)
	}
	h.Close()
	if want := int64(6 << 20); h.omitted != want {
		t.Errorf("omitted %d, want %d", h.omitted, want)
	}
}

func TestHeadTailWriteError(t *testing.T) {
	h := NewHeadTail(&fullDisk{ok: 2}, 100)
	if _, err := h.Write([]byte("abcd")); !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("Write err = %v, want ENOSPC", err)
	}
	if _, err := h.Write([]byte("e")); !errors.Is(err, syscall.ENOSPC) {
		t.Errorf("a later Write err = %v, want the first error again", err)
	}
	if err := h.Close(); !errors.Is(err, syscall.ENOSPC) {
		t.Errorf("Close err = %v, want the write error", err)
	}
	// The tail is written at Close: its failure is reported there.
	fd := &fullDisk{ok: 60}
	h = NewHeadTail(fd, 100)
	if _, err := h.Write([]byte(strings.Repeat("y", 200))); err != nil {
		t.Fatal(err)
	}
	if err := h.Close(); !errors.Is(err, syscall.ENOSPC) {
		t.Errorf("Close err = %v, want ENOSPC", err)
	}
}

type countWriter struct{ n int64 }

func (c *countWriter) Write(p []byte) (int, error) { c.n += int64(len(p)); return len(p), nil }

// fullDisk accepts ok bytes, then fails every write with ENOSPC.
type fullDisk struct {
	mu sync.Mutex
	ok int
}

func (f *fullDisk) Write(p []byte) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(p) <= f.ok {
		f.ok -= len(p)
		return len(p), nil
	}
	n := f.ok
	f.ok = 0
	return n, &os.PathError{Op: "write", Path: "claude_output.log", Err: syscall.ENOSPC}
}
