package oldanalysis

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// ErrorHistory keeps the error lines of the last few loops so that a loop
// can be recognised as stuck on the same errors (the bash loop's
// detect_stuck_loop, which compares against the three newest output logs).
// It is a small JSON document the engine may persist; the bash loop has no
// such file.
type ErrorHistory struct {
	Loops []ErrorHistoryEntry `json:"loops"`
}

// ErrorHistoryEntry is one loop's error lines.
type ErrorHistoryEntry struct {
	Loop   int      `json:"loop"`
	Errors []string `json:"errors"`
}

const historyLoops = 3

// Add records a loop's error lines (an empty list too: a clean loop breaks
// a run of repeated errors), keeping the last three loops.
func (h *ErrorHistory) Add(loop int, errorLines []string) {
	e := ErrorHistoryEntry{Loop: loop, Errors: append([]string{}, errorLines...)}
	h.Loops = append(h.Loops, e)
	if len(h.Loops) > historyLoops {
		h.Loops = append([]ErrorHistoryEntry(nil), h.Loops[len(h.Loops)-historyLoops:]...)
	}
}

// Previous returns the error lines newest first, for Options.PreviousErrors.
func (h ErrorHistory) Previous() [][]string {
	out := make([][]string, 0, len(h.Loops))
	for i := len(h.Loops) - 1; i >= 0; i-- {
		out = append(out, h.Loops[i].Errors)
	}
	return out
}

// Marshal returns the document as pretty JSON with a final newline.
func (h ErrorHistory) Marshal() ([]byte, error) {
	if h.Loops == nil {
		h.Loops = []ErrorHistoryEntry{}
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(h); err != nil {
		return nil, fmt.Errorf("encode error history: %w", err)
	}
	return buf.Bytes(), nil
}

// ParseErrorHistory reads the document.
func ParseErrorHistory(b []byte) (ErrorHistory, error) {
	var h ErrorHistory
	if err := json.Unmarshal(b, &h); err != nil {
		return ErrorHistory{}, fmt.Errorf("parse error history: %w", err)
	}
	return h, nil
}
