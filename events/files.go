package events

import (
	"sync"
	"time"

	"github.com/ralphloop/ralph_loop/ralphdir"
)

// ISOTime is a run id's time as the bash loop writes it (`date -u
// -Iseconds`): UTC with a +00:00 suffix.
func ISOTime(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05+00:00") }

// RalphLog appends plain "[stamp] [LEVEL] msg" lines to logs/ralph.log, the
// format bmalph's dashboard parses. Write errors are reported once through
// onErr and never stop the loop.
type RalphLog struct {
	d     *ralphdir.Dir
	once  sync.Once
	onErr func(error)
}

// NewRalphLog returns the logs/ralph.log sink.
func NewRalphLog(d *ralphdir.Dir, onErr func(error)) *RalphLog {
	return &RalphLog{d: d, onErr: onErr}
}

// Line implements console.LineSink.
func (r *RalphLog) Line(ts time.Time, level Level, msg string) {
	line := "[" + ts.Local().Format(LocalStamp) + "] [" + string(level) + "] " + msg
	if err := r.d.AppendLine(ralphdir.RalphLog, line); err != nil && r.onErr != nil {
		r.once.Do(func() { r.onErr(err) })
	}
}
