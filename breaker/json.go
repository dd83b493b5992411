package breaker

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// isoLayout is the bash loop's timestamp (date -u -Iseconds).
const isoLayout = "2006-01-02T15:04:05+00:00"

// formatISO renders t as the bash loop does; the zero time renders as "".
func formatISO(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(isoLayout)
}

// parseISO accepts what the bash loop's parse_iso_to_epoch accepts: RFC 3339
// with "+00:00" or "Z", with or without fractional seconds, a "+0000" zone,
// or no zone at all (taken as UTC). Anything else is the zero time.
func parseISO(s string) time.Time {
	s = strings.TrimSpace(s)
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05.999999999-0700", "2006-01-02T15:04:05.999999999"} {
		if t, err := time.Parse(layout, s); err == nil {
			if t.Year() < 1 || t.Year() > 9999 {
				return time.Time{}
			}
			return stamp(t)
		}
	}
	return time.Time{}
}

// wire is the file's key order: the bash loop's keys first, in the
// bash loop's order (opened_at last of them), then the added keys.
type wire struct {
	State                        string      `json:"state"`
	LastChange                   string      `json:"last_change"`
	ConsecutiveNoProgress        int         `json:"consecutive_no_progress"`
	ConsecutiveSameError         int         `json:"consecutive_same_error"`
	ConsecutivePermissionDenials int         `json:"consecutive_permission_denials"`
	ConsecutiveReadOnlyTimeouts  int         `json:"consecutive_read_only_timeouts"`
	LastProgressLoop             int         `json:"last_progress_loop"`
	TotalOpens                   int         `json:"total_opens"`
	Reason                       string      `json:"reason"`
	CurrentLoop                  *int        `json:"current_loop,omitempty"`
	OpenedAt                     string      `json:"opened_at,omitempty"`
	TrippedBy                    string      `json:"tripped_by,omitempty"`
	NoProgressLoops              []int       `json:"no_progress_loops,omitempty"`
	QuestionLoops                []int       `json:"question_loops,omitempty"`
	Errors                       []ErrorLine `json:"error_streak,omitempty"`
	DeniedCommands               []string    `json:"denied_commands,omitempty"`
	LastOutputLength             int         `json:"last_output_length,omitempty"`
}

// MarshalJSON writes the state with the bash loop's keys in the bash loop's
// order; current_loop and opened_at are omitted while unset, as the
// bash loop omits them.
func (s State) MarshalJSON() ([]byte, error) {
	w := wire{
		State:                        s.State,
		LastChange:                   formatISO(s.LastChange),
		ConsecutiveNoProgress:        s.ConsecutiveNoProgress,
		ConsecutiveSameError:         s.ConsecutiveSameError,
		ConsecutivePermissionDenials: s.ConsecutivePermissionDenials,
		ConsecutiveReadOnlyTimeouts:  s.ConsecutiveReadOnlyTimeouts,
		LastProgressLoop:             s.LastProgressLoop,
		TotalOpens:                   s.TotalOpens,
		Reason:                       s.Reason,
		OpenedAt:                     formatISO(s.OpenedAt),
		TrippedBy:                    s.TrippedBy,
		NoProgressLoops:              s.NoProgressLoops,
		QuestionLoops:                s.QuestionLoops,
		Errors:                       s.Errors,
		DeniedCommands:               s.DeniedCommands,
		LastOutputLength:             s.LastOutputLength,
	}
	if s.CurrentLoop != 0 {
		w.CurrentLoop = &s.CurrentLoop
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false) // jq writes <, > and & as they are
	if err := enc.Encode(w); err != nil {
		return nil, err
	}
	return bytes.TrimRight(b.Bytes(), "\n"), nil
}

// UnmarshalJSON reads a state file as leniently as the bash loop does: a
// counter that is missing, null, a string or any other non-number counts
// as 0 (a numeric string such as "3" counts as 3), and unparseable
// timestamps are treated as absent. Only "state" is strict: a file that is
// not an object or whose state is not CLOSED, HALF_OPEN or OPEN is an
// error, so the caller quarantines it instead of running with a breaker
// that can never trip.
func (s *State) UnmarshalJSON(data []byte) error {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return err
	}
	if raw == nil {
		return errors.New("state file holds null, not an object")
	}
	var st string
	if err := json.Unmarshal(raw["state"], &st); err != nil || !validState(st) {
		got := strings.TrimSpace(string(raw["state"]))
		if got == "" {
			got = "missing"
		}
		return fmt.Errorf(`"state" is %s, want "CLOSED", "HALF_OPEN" or "OPEN"`, clip(got, 40))
	}
	*s = State{
		State:                        st,
		LastChange:                   parseISO(jsonString(raw["last_change"])),
		ConsecutiveNoProgress:        jsonCount(raw["consecutive_no_progress"]),
		ConsecutiveSameError:         jsonCount(raw["consecutive_same_error"]),
		ConsecutivePermissionDenials: jsonCount(raw["consecutive_permission_denials"]),
		ConsecutiveReadOnlyTimeouts:  jsonCount(raw["consecutive_read_only_timeouts"]),
		LastProgressLoop:             jsonCount(raw["last_progress_loop"]),
		TotalOpens:                   jsonCount(raw["total_opens"]),
		Reason:                       jsonString(raw["reason"]),
		CurrentLoop:                  jsonCount(raw["current_loop"]),
		OpenedAt:                     parseISO(jsonString(raw["opened_at"])),
		TrippedBy:                    jsonString(raw["tripped_by"]),
		LastOutputLength:             jsonCount(raw["last_output_length"]),
	}
	// Evidence is advisory: a malformed list is dropped, never an error.
	var loops []json.RawMessage
	if json.Unmarshal(raw["no_progress_loops"], &loops) == nil {
		s.NoProgressLoops = counts(loops, maxLoopsKept)
	}
	loops = nil
	if json.Unmarshal(raw["question_loops"], &loops) == nil {
		s.QuestionLoops = counts(loops, maxLoopsKept)
	}
	var errs []map[string]json.RawMessage
	if json.Unmarshal(raw["error_streak"], &errs) == nil {
		for _, e := range keepLast(errs, maxErrorsKept) {
			s.Errors = append(s.Errors, ErrorLine{Loop: jsonCount(e["loop"]), Line: clip(jsonString(e["line"]), maxErrorLineLen)})
		}
	}
	var denied []json.RawMessage
	if json.Unmarshal(raw["denied_commands"], &denied) == nil {
		for _, d := range keepLast(denied, maxDeniedKept) {
			if c := jsonString(d); c != "" {
				s.DeniedCommands = append(s.DeniedCommands, c)
			}
		}
	}
	return nil
}

// jsonString returns a JSON string's value, or "" for anything else.
func jsonString(raw json.RawMessage) string {
	var v string
	if json.Unmarshal(raw, &v) != nil {
		return ""
	}
	return v
}

// jsonCount reads a non-negative integer the way the bash loop's
// `jq -r … | tr -d '[:space:]'` then `$((x + 0))` does for sane input:
// numbers and numeric strings count, everything else is 0. Fractions are
// truncated, negatives become 0 and huge values are capped.
func jsonCount(raw json.RawMessage) int {
	var v any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if len(raw) == 0 || dec.Decode(&v) != nil {
		return 0
	}
	var f float64
	switch x := v.(type) {
	case json.Number:
		if n, err := x.Int64(); err == nil {
			return clampCount(float64(n))
		}
		var err error
		if f, err = x.Float64(); err != nil {
			return 0
		}
	case string:
		n, err := strconv.ParseInt(strings.Join(strings.Fields(x), ""), 10, 64)
		if err != nil {
			return 0
		}
		f = float64(n)
	default:
		return 0
	}
	return clampCount(f)
}

func clampCount(f float64) int {
	switch {
	case math.IsNaN(f) || f <= 0:
		return 0
	case f >= math.MaxInt32:
		return math.MaxInt32
	}
	return int(f)
}

func counts(raws []json.RawMessage, n int) []int {
	var out []int
	for _, r := range keepLast(raws, n) {
		if c := jsonCount(r); c > 0 {
			out = append(out, c)
		}
	}
	return out
}

// clip shortens s to at most n bytes on a rune boundary, marking the cut.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n - len("…")
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

// historyEntry is one element of .circuit_breaker_history, in the
// bash loop's key order.
type historyEntry struct {
	Timestamp string `json:"timestamp"`
	Loop      int    `json:"loop"`
	FromState string `json:"from_state"`
	ToState   string `json:"to_state"`
	Reason    string `json:"reason"`
}

// HistoryJSON is t as one element of .circuit_breaker_history, written as
// jq writes it (">=" as is, not HTML-escaped).
func (t Transition) HistoryJSON() (json.RawMessage, error) {
	var e bytes.Buffer
	enc := json.NewEncoder(&e)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(historyEntry{
		Timestamp: formatISO(stamp(t.At)),
		Loop:      t.Loop,
		FromState: t.From,
		ToState:   t.To,
		Reason:    t.Reason,
	}); err != nil {
		return nil, fmt.Errorf("encode breaker history entry: %w", err)
	}
	return bytes.TrimRight(e.Bytes(), "\n"), nil
}
