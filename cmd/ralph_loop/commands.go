package main

import (
	"fmt"
	"io"

	"github.com/ralphloop/ralph_loop/internal/config"
	"github.com/ralphloop/ralph_loop/internal/ralphdir"
	"github.com/ralphloop/ralph_loop/internal/readmodel"
	"github.com/ralphloop/ralph_loop/internal/report"
)

// showReport is --report [--json] [--run ID]: the last run and one line per
// run, rebuilt from the event log and its rotated copies; or one run.
func showReport(d *ralphdir.Dir, cfg *config.Config, stdout, stderr io.Writer) error {
	runs, err, readErr := readmodel.Runs(d)
	if err != nil {
		return err
	}
	if err := readErr; err != nil {
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
