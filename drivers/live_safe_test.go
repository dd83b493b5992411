package drivers

import (
	"bytes"
	"testing"
)

// The live rendering keeps the agent's colours and nothing else that
// drives a terminal, also when a sequence or a rune is cut between two
// chunks of the stream.
func TestLiveRendererMadeSafe(t *testing.T) {
	var b bytes.Buffer
	r := NewLiveRenderer("text", &b)
	for _, chunk := range []string{"a\x1b[3", "1mb\x1b[0m \x1b]0;t\x07 \xe2\x94", "\x80 \x1b[2J\r", "\n"} {
		r.Write([]byte(chunk))
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	if want := "a\x1b[31mb\x1b[0m \\u001b]0;t\\u0007 ─ \\u001b[2J\n"; b.String() != want {
		t.Errorf("got %q\nwant %q", b.String(), want)
	}
	b.Reset()
	r = NewLiveRenderer(FormatClaudeStreamJSON, &b)
	r.Write([]byte(`{"type":"stream_event","event":{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"hi \u001b]52;c;eA==\u0007"}}}` + "\n"))
	r.Close()
	if want := `hi \u001b]52;c;eA==\u0007`; b.String() != want {
		t.Errorf("got %q\nwant %q", b.String(), want)
	}
}
