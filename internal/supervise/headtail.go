package supervise

import (
	"fmt"
	"io"
)

// maxTail bounds the tail a headTail keeps in memory, whatever its limit.
const maxTail = 4 << 20

// headTail is what NewHeadTail returns.
type headTail struct {
	w       io.Writer
	head    int64 // bytes that may still pass through
	size    int   // tail capacity
	ring    []byte
	start   int   // oldest byte in ring once it is full
	omitted int64 // bytes dropped between head and tail so far
	limited bool
	err     error
}

// NewHeadTail bounds what reaches w to about limit bytes: the first half
// of the limit passes through as it arrives, the last bytes (half the
// limit, at most maxTail) are kept in a ring in memory, and Close writes a
// line "[... N bytes omitted ...]" and that tail; it does not close w. An
// agent's status block comes at the end of its output, so both ends are
// kept. Memory stays bounded however much is written. A limit of 0 or less
// passes everything.
//
// Writes report w's first error, and every later write fails with it. The
// writer is not safe for concurrent use.
func NewHeadTail(w io.Writer, limit int64) io.WriteCloser {
	h := &headTail{w: w, limited: limit > 0}
	if h.limited {
		h.head = limit / 2
		h.size = int(min(limit-h.head, maxTail))
	}
	return h
}

// Write passes p on, or keeps it for the tail.
func (h *headTail) Write(p []byte) (int, error) {
	if h.err != nil {
		return 0, h.err
	}
	n := len(p)
	if !h.limited {
		_, h.err = h.w.Write(p)
		return n, h.err
	}
	if h.head > 0 {
		k := int(min(int64(len(p)), h.head))
		if _, err := h.w.Write(p[:k]); err != nil {
			h.err = err
			return 0, err
		}
		h.head -= int64(k)
		p = p[k:]
	}
	h.keep(p)
	return n, nil
}

// keep adds p to the tail ring, counting what falls out of it.
func (h *headTail) keep(p []byte) {
	if len(p) == 0 || h.size == 0 {
		h.omitted += int64(len(p))
		return
	}
	if len(p) >= h.size {
		h.omitted += int64(len(h.ring) + len(p) - h.size)
		h.ring = append(h.ring[:0], p[len(p)-h.size:]...)
		h.start = 0
		return
	}
	if room := h.size - len(h.ring); room > 0 {
		k := min(room, len(p))
		h.ring = append(h.ring, p[:k]...)
		p = p[k:]
	}
	for len(p) > 0 { // the ring is full: overwrite the oldest bytes
		k := copy(h.ring[h.start:], p)
		h.omitted += int64(k)
		h.start = (h.start + k) % h.size
		p = p[k:]
	}
}

// Close writes the omission line and the tail. It does not close the
// underlying writer.
func (h *headTail) Close() error {
	if h.err != nil || len(h.ring) == 0 {
		return h.err
	}
	if h.omitted > 0 {
		if _, h.err = fmt.Fprintf(h.w, "\n[... %d bytes omitted ...]\n", h.omitted); h.err != nil {
			return h.err
		}
	}
	if _, h.err = h.w.Write(h.ring[h.start:]); h.err == nil {
		_, h.err = h.w.Write(h.ring[:h.start])
	}
	h.ring = h.ring[:0]
	return h.err
}
