package analysis

import (
	"strconv"
	"strings"
)

// StatusBlock is one RALPH_STATUS block found in the agent's own text:
//
//	---RALPH_STATUS---
//	STATUS: IN_PROGRESS | COMPLETE | BLOCKED
//	TASKS_COMPLETED_THIS_LOOP: <n>
//	FILES_MODIFIED: <n>
//	TESTS_STATUS: PASSING | FAILING | NOT_RUN
//	WORK_TYPE: IMPLEMENTATION | TESTING | DOCUMENTATION | REFACTORING
//	EXIT_SIGNAL: false | true
//	RECOMMENDATION: <one line>
//	QUESTION: <one line: what the agent asks the person>
//	---END_RALPH_STATUS---
//
// The grammar is the bash loop's: markers are literal and case-sensitive and
// may sit anywhere in a line; each body line is trimmed and must start with
// the upper-case key and a colon; EXIT_SIGNAL only accepts exactly "true" or
// "false"; for a repeated key the last valid line wins. A block without an end
// marker runs to the end of the text. When a text holds several blocks the
// last one closed by an end marker counts (the bash loop reads the first; see docs/COMPATIBILITY.md).
type StatusBlock struct {
	Line     int  // line of the start marker within the text (1-based)
	Complete bool // closed by an end marker

	Status          string // "" when absent
	ExitSignal      bool
	ExitSignalFound bool   // a valid EXIT_SIGNAL line was present
	TasksCompleted  int    // TASKS_COMPLETED_THIS_LOOP, 0 when absent
	TestsStatus     string // "UNKNOWN" when absent

	// Parsed for reporting only; the bash loop never reads them.
	FilesModified  *int
	WorkType       string
	Recommendation string

	// Question is what the agent asks the person (QUESTION:, with
	// STATUS: BLOCKED): the loop waits for the answer. The bash loop
	// knows no such key and ignores the line.
	Question string
}

// parseBlockLine reads one body line (leading blanks and CRs already gone).
func parseBlockLine(b *StatusBlock, raw []byte) {
	line := strings.TrimRight(string(raw), spaceChars)
	key, val, ok := strings.Cut(line, ":")
	if !ok {
		return
	}
	val = strings.Trim(val, spaceChars)
	switch key {
	case "STATUS":
		if val != "" {
			b.Status = val
		}
	case "EXIT_SIGNAL":
		if val == "true" || val == "false" {
			b.ExitSignal = val == "true"
			b.ExitSignalFound = true
		}
	case "TASKS_COMPLETED_THIS_LOOP":
		if n, ok := atoiSigned(val); ok {
			b.TasksCompleted = n
		}
	case "TESTS_STATUS":
		if val != "" {
			b.TestsStatus = val
		}
	case "FILES_MODIFIED":
		if n, ok := atoiSigned(val); ok {
			b.FilesModified = &n
		}
	case "WORK_TYPE":
		if val != "" {
			b.WorkType = val
		}
	case "RECOMMENDATION":
		if val != "" {
			b.Recommendation = val
		}
	case "QUESTION":
		if val != "" {
			b.Question = val
		}
	}
}

// atoiSigned accepts ^-?[0-9]+$ (leading zeros allowed, decimal).
func atoiSigned(s string) (int, bool) {
	d := strings.TrimPrefix(s, "-")
	if d == "" {
		return 0, false
	}
	for i := 0; i < len(d); i++ {
		if d[i] < '0' || d[i] > '9' {
			return 0, false
		}
	}
	n, err := strconv.Atoi(s)
	if err != nil {
		return 0, false
	}
	return n, true
}
