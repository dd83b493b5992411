package review

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/ralphloop/ralph_loop/internal/clip"
	"github.com/ralphloop/ralph_loop/internal/ralphdir"
)

// The markers around the findings JSON in the review agent's answer.
const (
	beginMarker = "---REVIEW_FINDINGS---"
	endMarker   = "---END_REVIEW_FINDINGS---"
)

// maxPayload bounds the findings JSON taken from the output, in bytes.
const maxPayload = 64 << 10

// ParseFindings errors; the engine logs them (see Outcome) and goes on.
var (
	errNoFindings = errors.New("no structured findings in the review output")
	errMalformed  = errors.New("review findings JSON is malformed")
)

// Findings is the review's result, the payload REVIEW_PROMPT.md asks for.
type Findings struct {
	Severity    string // LOW, MEDIUM, HIGH or CRITICAL: the worst issue's
	IssuesFound int
	Summary     string
	Details     []Detail
	// raw is the payload exactly as the agent wrote it; Save writes it so
	// fields we do not model survive.
	raw []byte
}

// Detail is one issue.
type Detail struct {
	Severity   string
	File       string
	Line       int
	Issue      string
	Suggestion string
}

// ParseFindings takes the findings JSON from the review call's output: the
// text between a beginMarker line and an endMarker line (the last such block
// when there are several; both markers on one line also work), looked for
// first in the raw output and then in the result text of JSON output
// (`result`, `content` or `item.text` of each JSON object). The payload must
// be a JSON object. It returns errNoFindings when there is no block and an
// error wrapping errMalformed when the block is not a JSON object.
func ParseFindings(output []byte) (Findings, error) {
	err := errNoFindings
	for i := 0; i < 2; i++ {
		text := string(output)
		if i == 1 {
			text = resultText(output)
		}
		block, ok := extract(text)
		if !ok || strings.TrimSpace(block) == "" {
			continue
		}
		if len(block) > maxPayload {
			err = fmt.Errorf("%w: payload is larger than %d bytes", errMalformed, maxPayload)
			continue
		}
		f, derr := Decode([]byte(block))
		if derr == nil {
			return f, nil
		}
		if err == errNoFindings {
			err = derr
		}
	}
	return Findings{}, err
}

// extract returns the last marker block's content with its line breaks
// removed (the JSON may be pretty-printed over several lines).
func extract(text string) (string, bool) {
	var (
		found, in bool
		cur, last strings.Builder
	)
	finish := func() {
		last.Reset()
		last.WriteString(cur.String())
		cur.Reset()
		found, in = true, false
	}
	for _, line := range strings.Split(text, "\n") {
		if !in {
			i := strings.Index(line, beginMarker)
			if i < 0 {
				continue
			}
			in = true
			rest := line[i+len(beginMarker):]
			if j := strings.Index(rest, endMarker); j >= 0 {
				cur.WriteString(rest[:j])
				finish()
			}
			continue
		}
		if strings.Contains(line, endMarker) {
			finish()
			continue
		}
		if t := strings.TrimSpace(line); strings.HasPrefix(t, "```") {
			continue // a code fence inside the markers
		}
		cur.WriteString(strings.TrimSuffix(line, "\r"))
	}
	if in { // no end marker: the block runs to the end of the output
		finish()
	}
	return last.String(), found
}

// resultText collects the answer text from JSON or JSON-lines output.
func resultText(output []byte) string {
	var parts []string
	add := func(v any) {
		obj, ok := v.(map[string]any)
		if !ok {
			return
		}
		for _, k := range []string{"result", "content"} {
			if s, ok := obj[k].(string); ok && s != "" {
				parts = append(parts, s)
				return
			}
		}
		if item, ok := obj["item"].(map[string]any); ok {
			if s, ok := item["text"].(string); ok && s != "" {
				parts = append(parts, s)
			}
		}
	}
	dec := json.NewDecoder(bytes.NewReader(output))
	for {
		var v any
		if err := dec.Decode(&v); err != nil {
			break
		}
		if arr, ok := v.([]any); ok {
			for _, e := range arr {
				add(e)
			}
			continue
		}
		add(v)
	}
	return strings.Join(parts, "\n")
}

// Decode reads .ralph/.review_findings.json: a JSON object of findings.
func Decode(payload []byte) (Findings, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(payload, &m); err != nil || m == nil {
		if err == nil {
			err = errors.New("not an object")
		}
		return Findings{}, fmt.Errorf("%w: %v", errMalformed, err)
	}
	f := Findings{
		Severity:    str(m["severity"]),
		IssuesFound: num(m["issues_found"]),
		Summary:     str(m["summary"]),
		raw:         bytes.TrimSpace(payload),
	}
	var details []map[string]json.RawMessage
	if json.Unmarshal(m["details"], &details) == nil {
		for _, d := range details {
			f.Details = append(f.Details, Detail{
				Severity:   str(d["severity"]),
				File:       str(d["file"]),
				Line:       num(d["line"]),
				Issue:      str(d["issue"]),
				Suggestion: str(d["suggestion"]),
			})
		}
	}
	return f, nil
}

// str reads a JSON value as text: a string as itself, a number or boolean
// as written, null or anything else as "".
func str(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	t := strings.TrimSpace(string(raw))
	if t == "true" || t == "false" {
		return t
	}
	var n json.Number
	if json.Unmarshal(raw, &n) == nil {
		return n.String()
	}
	return ""
}

// num reads a JSON number or numeric string as an int; anything else is 0.
func num(raw json.RawMessage) int {
	var f float64
	if json.Unmarshal(raw, &f) != nil {
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return 0
		}
		var err error
		if f, err = strconv.ParseFloat(strings.TrimSpace(s), 64); err != nil {
			return 0
		}
	}
	if math.IsNaN(f) || f > math.MaxInt32 || f < math.MinInt32 {
		return 0
	}
	return int(f)
}

// JSON returns the findings as written to .review_findings.json: the
// agent's payload as it was, or, for findings built in code, their fields.
func (f Findings) JSON() []byte {
	if len(f.raw) > 0 {
		return append(append([]byte(nil), f.raw...), '\n')
	}
	type detail struct {
		Severity   string `json:"severity"`
		File       string `json:"file"`
		Line       int    `json:"line"`
		Issue      string `json:"issue"`
		Suggestion string `json:"suggestion"`
	}
	v := struct {
		Severity    string   `json:"severity"`
		IssuesFound int      `json:"issues_found"`
		Summary     string   `json:"summary"`
		Details     []detail `json:"details"`
	}{f.Severity, f.IssuesFound, f.Summary, []detail{}}
	for _, d := range f.Details {
		v.Details = append(v.Details, detail(d))
	}
	b, _ := ralphdir.MarshalJSON(v) // plain strings and ints: cannot fail
	return b
}

// Outcome is the log level and line for a ParseFindings result.
func Outcome(f Findings, err error) (level, msg string) {
	switch {
	case err == nil:
		return "INFO", fmt.Sprintf("Code review complete. %d issue(s) found.", f.IssuesFound)
	case errors.Is(err, errNoFindings):
		return "INFO", "Code review complete. No structured findings extracted."
	default:
		return "WARN", "Review findings JSON is malformed — skipping"
	}
}

// Caps of the findings text in the next loop's system prompt, in characters.
const (
	contextMax         = 500
	contextMaxPriority = 700
	summaryMax         = 300
	detailsMax         = 150
)

// ContextFor is the findings text for the next implementation loop's system
// prompt, or "" when there is nothing to fix (no issues or no severity).
// HIGH and CRITICAL findings come first with an instruction to fix them
// before the next task and may use up to 700 characters, others 500:
//
//	PRIORITY: Fix these code review findings BEFORE picking a new story. REVIEW FINDINGS (HIGH, 2 issues): <summary> Details: - [HIGH] a.go: <issue>; - [LOW] b.go: <issue>
func ContextFor(f Findings) string {
	if f.IssuesFound == 0 || f.Severity == "" || f.Severity == "null" {
		return ""
	}
	var b strings.Builder
	max := contextMax
	if strings.EqualFold(f.Severity, "HIGH") || strings.EqualFold(f.Severity, "CRITICAL") {
		b.WriteString("PRIORITY: Fix these code review findings BEFORE picking a new story. ")
		max = contextMaxPriority
	}
	fmt.Fprintf(&b, "REVIEW FINDINGS (%s, %d issues): %s", f.Severity, f.IssuesFound, clip.Runes(oneLine(f.Summary), summaryMax))
	var items []string
	for i, d := range f.Details {
		if i == 2 {
			break
		}
		item := "- [" + d.Severity + "] "
		if d.File != "" {
			item += d.File + ": "
		}
		items = append(items, item+oneLine(d.Issue))
	}
	if len(items) > 0 {
		b.WriteString(" Details: " + clip.Runes(strings.Join(items, "; "), detailsMax))
	}
	return clip.Runes(b.String(), max)
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
