package engine

import (
	"errors"
	"io/fs"
	"os/exec"
	"strings"

	"github.com/ralphloop/ralph_loop/analysis"
	"github.com/ralphloop/ralph_loop/drivers"
	"github.com/ralphloop/ralph_loop/internal/supervise"
)

// diagLines is how many of the last lines of the reply and of stderr the
// driver's error patterns read.
const diagLines = 20

// diagnose reads what a failed call said of its failure with the
// driver's error patterns: the last lines of its reply, the errors the
// CLI reported and the last lines of its stderr. A call that could not
// start is diagnosed from its start error. Calls the loop stopped itself
// (timeout, inactivity, output too large, a log not written) are not
// read: they are counted as they always were.
func (l *loop) diagnose(c *call, res analysis.Result, stderr []string) drivers.Diagnosis {
	switch o := c.outcome; o.Reason {
	case supervise.StartFailed:
		return drivers.NotStarted(l.drv, l.argv0(), o.Err, notInstalled(o.Err))
	case supervise.Exited:
	default:
		return drivers.Diagnosis{}
	}
	text := lastN(strings.Split(res.ResultText, "\n"), diagLines)
	text = append(text, res.ErrorMessages...)
	text = append(text, lastN(stderr, diagLines)...)
	return drivers.Diagnose(l.drv, strings.Join(text, "\n"))
}

// argv0 is the program the driver runs.
func (l *loop) argv0() string {
	if b := l.drv.Binary(); b != "" {
		return b
	}
	if len(l.s.AgentArgv) > 0 {
		return l.s.AgentArgv[0]
	}
	return l.s.Driver
}

// notInstalled tells a start error of a program that is not there (not on
// PATH, or no such file) from any other.
func notInstalled(err error) bool {
	return errors.Is(err, exec.ErrNotFound) || errors.Is(err, fs.ErrNotExist)
}
