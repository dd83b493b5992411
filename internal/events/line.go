package events

import (
	"fmt"
	"time"
)

// Level is a log line's level, as the bash loop prints it.
type Level string

// The levels.
const (
	Info    Level = "INFO"
	Warn    Level = "WARN"
	Error   Level = "ERROR"
	Success Level = "SUCCESS" // good news
	Loop    Level = "LOOP"    // the loop's own marks ("=== Starting Loop #1 ===")
	Debug   Level = "DEBUG"   // details shown with --verbose only
)

// LocalStamp is the local "YYYY-MM-DD HH:MM:SS" that starts every log
// line, as the bash loop stamps them.
const LocalStamp = "2006-01-02 15:04:05"

// Line is one piece of what a person is told, in its words. Most are log
// lines: a level and a text, which the console shows as "[stamp] [LEVEL]
// text" and logs/ralph.log keeps. The others only the console shows, laid
// out as their Show says. Package console lays lines out; it adds no word.
type Line struct {
	Show   Show
	Level  Level         // a log line's level (Log; Countdown when it is not redrawn)
	Text   string        // a log line's text; Output's text with its newlines
	Colour Colour        // Output: drawn in this colour on a terminal (a box, a banner)
	Left   time.Duration // Countdown: the time left in the wait
}

// Show says how the console shows a Line.
type Show uint8

// The ways a Line is shown.
const (
	// Log is a log line at Level: on the console and in logs/ralph.log.
	Log Show = iota
	// Output is Text on the console's output stream, as it is (a box, a
	// banner, a question, the agent's live output).
	Output
	// Countdown is a wait's time left: redrawn in place on a terminal;
	// elsewhere a log line at Level, at the wait's start and then once a
	// minute of Left.
	Countdown
	// CountdownOver ends the countdown of a wait.
	CountdownOver
	// Ticking is the running call's line, redrawn in place on a terminal
	// and shown nowhere else.
	Ticking
	// TickingOver erases the ticking line: the call has ended.
	TickingOver
)

// Colour is the colour of a box or banner on a terminal.
type Colour uint8

// The colours, as the bash loop draws its boxes.
const (
	NoColour Colour = iota
	Red
	Yellow
	Blue
	Purple
)

// logf is a log line, formatted as by fmt.Sprintf.
func logf(level Level, format string, args ...any) Line {
	return Line{Level: level, Text: fmt.Sprintf(format, args...)}
}

// logText is a log line of a text made elsewhere.
func logText(level Level, text string) Line { return Line{Level: level, Text: text} }

// outf is text for the console's output stream, formatted as by
// fmt.Sprintf.
func outf(format string, args ...any) Line {
	return Line{Show: Output, Text: fmt.Sprintf(format, args...)}
}

// drawn is text for the console's output stream, in colour on a terminal.
func drawn(c Colour, text string) Line { return Line{Show: Output, Text: text, Colour: c} }

// outLines is lines on the console's output stream, one Line each.
func outLines(lines []string) []Line {
	out := make([]Line, 0, len(lines))
	for _, l := range lines {
		out = append(out, Line{Show: Output, Text: l + "\n"})
	}
	return out
}
