package events

// Level is a log line's level, as the bash loop prints it. The constants
// are the levels a line worded outside the console comes at; the console
// words its own lines at SUCCESS, LOOP and DEBUG too.
type Level string

const (
	Info  Level = "INFO"
	Warn  Level = "WARN"
	Error Level = "ERROR"
)

// LocalStamp is the local "YYYY-MM-DD HH:MM:SS" that starts every log
// line, as the bash loop stamps them.
const LocalStamp = "2006-01-02 15:04:05"
