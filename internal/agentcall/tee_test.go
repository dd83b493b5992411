package agentcall

import (
	"bytes"
	"math/rand"
	"strings"
	"testing"
)

// lastLineByBytes is lastLine's rule read byte by byte: the last line not
// blank, the first 4 KiB of it.
func lastLineByBytes(p []byte) string {
	var cur, last []byte
	for _, b := range p {
		if b == '\n' {
			if len(bytes.TrimSpace(cur)) > 0 {
				last = append(last[:0], cur...)
			}
			cur = cur[:0]
			continue
		}
		if len(cur) < maxLastLine {
			cur = append(cur, b)
		}
	}
	if len(bytes.TrimSpace(cur)) > 0 {
		return string(cur)
	}
	return string(last)
}

// TestLastLine: the last line is the same however the output is cut into
// writes, long lines and blank ones included.
func TestLastLine(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	parts := []string{"a", " ", "\n", "\n\n", "  \n", "line one\n", "\t", strings.Repeat("x", 5000), strings.Repeat(" ", 4100) + "y\n"}
	for i := 0; i < 3000; i++ {
		var out []byte
		for k := r.Intn(12); k > 0; k-- {
			out = append(out, parts[r.Intn(len(parts))]...)
		}
		var l lastLine
		for rest := out; len(rest) > 0; {
			n := 1 + r.Intn(len(rest))
			l.Write(rest[:n])
			rest = rest[n:]
		}
		if got, want := l.String(), lastLineByBytes(out); got != want {
			t.Fatalf("output %q: last line %q, want %q", out, got, want)
		}
	}
}
