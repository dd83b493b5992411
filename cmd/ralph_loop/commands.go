package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"

	"github.com/ralphloop/ralph_loop/internal/config"
	"github.com/ralphloop/ralph_loop/internal/ralphdir"
	"github.com/ralphloop/ralph_loop/internal/report"
)

// showReport is --report [--json] [--run ID]: the last run and one line per
// run, rebuilt from the event log and its rotated copies; or one run.
func showReport(d *ralphdir.Dir, cfg *config.Config, stdout, stderr io.Writer) error {
	logs, closeAll, err := openEventLogs(d)
	if err != nil {
		return err
	}
	defer closeAll()
	runs, err := report.Read(report.Concat(logs...))
	if err != nil {
		// What could be read is still reported.
		fmt.Fprintf(stderr, "ralph_loop: %v\n", err)
	}
	last := report.Last(runs)
	if last == nil {
		return fmt.Errorf("no run to report: %s holds no events", d.Path(ralphdir.EventsLog))
	}
	if cfg.ReportRun != "" {
		one := report.Find(runs, cfg.ReportRun)
		if one == nil {
			return fmt.Errorf("--run %s: no such run in %s; ralph_loop --report lists the runs", cfg.ReportRun, d.Path(ralphdir.EventsLog))
		}
		if cfg.JSON {
			return report.WriteJSON(stdout, one)
		}
		report.WriteText(stdout, one)
		return nil
	}
	if cfg.JSON {
		return report.WriteJSON(stdout, report.All{Last: last, Runs: report.History(runs)})
	}
	report.WriteText(stdout, last)
	report.WriteHistory(stdout, runs)
	return nil
}

// openEventLogs opens the event log's rotated copies that exist, oldest
// first, and the log itself, which must exist.
func openEventLogs(d *ralphdir.Dir) ([]io.Reader, func(), error) {
	var files []*os.File
	closeAll := func() {
		for _, f := range files {
			f.Close()
		}
	}
	names := ralphdir.WithRotated(ralphdir.EventsLog)
	for i, name := range names {
		f, err := d.Open(name)
		if err != nil {
			if i < len(names)-1 && errors.Is(err, fs.ErrNotExist) {
				continue
			}
			closeAll()
			return nil, nil, fmt.Errorf("no run to report: %w; run ralph_loop first", err)
		}
		files = append(files, f)
	}
	rs := make([]io.Reader, len(files))
	for i, f := range files {
		rs[i] = f
	}
	return rs, closeAll, nil
}
