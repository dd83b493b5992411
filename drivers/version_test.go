package drivers

import (
	"strings"
	"testing"
)

func TestVersionWatch(t *testing.T) {
	hook := `{"type":"system","subtype":"hook_response","session_id":"s"}` + "\n"
	init := `{"type":"system","subtype":"init","cwd":"/p","session_id":"s","tools":["Bash"],"claude_code_version":"2.1.330","output_style":"default"}` + "\n"
	result := `{"type":"result","subtype":"success","result":"done","session_id":"s"}` + "\n"
	tests := []struct {
		name, format, out, want string
	}{
		{"init record", FormatClaudeStreamJSON, init + result, "2.1.330"},
		{"after a hook record", FormatClaudeStreamJSON, hook + init + result, "2.1.330"},
		{"no version in init", FormatClaudeStreamJSON, `{"type":"system","subtype":"init","session_id":"s"}` + "\n" + result, ""},
		{"a later init does not count", FormatClaudeStreamJSON,
			`{"type":"system","subtype":"init","session_id":"s"}` + "\n" + init, ""},
		{"version of another type", FormatClaudeStreamJSON, `{"type":"system","subtype":"init","claude_code_version":2}` + "\n", ""},
		{"not a version", FormatClaudeStreamJSON, `{"type":"system","subtype":"init","claude_code_version":"dev"}` + "\n", ""},
		{"the word init in text", FormatClaudeStreamJSON, `{"type":"assistant","message":"\"init\" \"claude_code_version\":\"9.9.9\""}` + "\n" + init, "2.1.330"},
		{"last line without newline", FormatClaudeStreamJSON, strings.TrimSuffix(init, "\n"), ""},
		{"json result object", FormatClaudeJSON, result, ""},
		{"cursor stream", FormatCursorStreamJSON, init, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w := NewVersionWatch(tc.format)
			if w == nil {
				if tc.want != "" {
					t.Fatalf("no watch for %s", tc.format)
				}
				if w.Version() != "" {
					t.Fatal("a nil watch reports a version")
				}
				return
			}
			// one byte at a time, as a pipe may deliver it
			for i := range len(tc.out) {
				if n, err := w.Write([]byte{tc.out[i]}); n != 1 || err != nil {
					t.Fatalf("Write = %d, %v", n, err)
				}
			}
			if got := w.Version(); got != tc.want {
				t.Errorf("Version = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestVersionWatchBounded(t *testing.T) {
	w := NewVersionWatch(FormatClaudeStreamJSON)
	filler := strings.Repeat("x", 1000) + "\n"
	for range versionScan/len(filler) + 2 {
		w.Write([]byte(filler))
	}
	w.Write([]byte(`{"type":"system","subtype":"init","claude_code_version":"2.1.330"}` + "\n"))
	if got := w.Version(); got != "" {
		t.Errorf("an init record past %d bytes was read: %q", versionScan, got)
	}
	if len(w.cur) != 0 {
		t.Errorf("%d bytes held after the watch gave up", len(w.cur))
	}
	// one endless line is never held whole
	w = NewVersionWatch(FormatClaudeStreamJSON)
	for range versionScan/len(filler) + 2 {
		w.Write([]byte(filler[:999]))
	}
	if len(w.cur) > versionScan {
		t.Errorf("%d bytes held of one line", len(w.cur))
	}
}
