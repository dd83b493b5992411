package store

import (
	"sync"
	"time"

	"github.com/ralphloop/ralph_loop/internal/events"
	"github.com/ralphloop/ralph_loop/internal/ralphdir"
	"github.com/ralphloop/ralph_loop/internal/safetext"
)

// RalphLog appends plain "[stamp] [LEVEL] msg" lines to logs/ralph.log, the
// format bmalph's dashboard parses; package console lays out the values'
// words as those lines (console.NewLog). Write errors are reported once through onErr and never
// stop the loop.
type RalphLog struct {
	d     *ralphdir.Dir
	once  sync.Once
	onErr func(error)
}

// NewRalphLog returns the logs/ralph.log sink.
func NewRalphLog(d *ralphdir.Dir, onErr func(error)) *RalphLog {
	return &RalphLog{d: d, onErr: onErr}
}

// Line implements console.LineSink. msg is made safe as one line
// (safetext.Line): no escape sequence reaches a terminal that shows the
// log, and no newline in it can start a line that looks like the loop's.
func (r *RalphLog) Line(ts time.Time, level events.Level, msg string) {
	line := "[" + ts.Local().Format(events.LocalStamp) + "] [" + string(level) + "] " + safetext.Line(msg)
	if err := r.d.AppendLine(ralphdir.RalphLog, line); err != nil && r.onErr != nil {
		r.once.Do(func() { r.onErr(err) })
	}
}
