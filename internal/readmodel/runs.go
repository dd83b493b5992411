package readmodel

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"

	"github.com/ralphloop/ralph_loop/internal/ralphdir"
	"github.com/ralphloop/ralph_loop/internal/report"
)

// Runs rebuilds the runs of d's event log, read whole with its rotated
// copies, oldest first (--report). err says the log itself cannot be
// opened (there is no run to report); readErr that reading stopped part
// way, runs then being what could be read.
func Runs(d *ralphdir.Dir) (runs []*report.Summary, err, readErr error) {
	var files []*os.File
	defer func() {
		for _, f := range files {
			f.Close()
		}
	}()
	names := ralphdir.WithRotated(ralphdir.EventsLog)
	for i, name := range names {
		f, err := d.Open(name)
		if err != nil {
			if i < len(names)-1 && errors.Is(err, fs.ErrNotExist) {
				continue
			}
			return nil, fmt.Errorf("no run to report: %w; run ralph_loop first", err), nil
		}
		files = append(files, f)
	}
	rs := make([]io.Reader, len(files))
	for i, f := range files {
		rs[i] = f
	}
	runs, readErr = report.Read(rs...)
	return runs, nil, readErr
}
