package main

import (
	"fmt"
	"io"

	"github.com/ralphloop/ralph_loop/internal/config"
	"github.com/ralphloop/ralph_loop/internal/ralphdir"
	"github.com/ralphloop/ralph_loop/internal/readmodel"
	"github.com/ralphloop/ralph_loop/internal/report"
)

// reportCommand is --report [--run ID] [--json].
var reportCommand = &command{
	flag: &flagSpec{Flag: config.Flag{Long: "report", Doc: "EVENTS.md", Group: config.GroupCommands, Common: true,
		Help: "summarise the runs so far and exit"}, kind: commandFlag},
	options: []*flagSpec{runFlag},
	shares:  []string{"json"},
	refuse:  refusesLive("--report"),
	where:   atProjectRoot,
	run: func(e *runEnv, l *line) error {
		return showReport(e.dir, reportOptionsOf(l), e.safeOut, e.safeErr)
	},
}

// reportOptions are --report's: one run alone (--run ID, "" for the last
// run and the history), as JSON (--json).
type reportOptions struct {
	run  string
	json bool
}

func reportOptionsOf(l *line) reportOptions {
	return reportOptions{run: l.value("run"), json: l.has("json")}
}

// runFlag is --run ID.
var runFlag = &flagSpec{
	Flag:  config.Flag{Long: "run", Arg: "ID", Group: config.GroupCommands, Help: "with --report: that run alone", Accepts: "a run id (ralph_loop --report lists them)"},
	check: required(flagError("--run", "--run requires a run id (ralph_loop --report lists them)")),
	refused: func(string) error {
		return flagError("--run", "--run only applies to --report")
	},
}

// showReport is --report [--json] [--run ID]: the last run and one line per
// run, rebuilt from the event log and its rotated copies; or one run.
func showReport(d *ralphdir.Dir, o reportOptions, stdout, stderr io.Writer) error {
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
	if o.run != "" {
		one := report.Find(runs, o.run)
		if one == nil {
			return fmt.Errorf("--run %s: no such run in %s; ralph_loop --report lists the runs", o.run, d.Path(ralphdir.EventsLog))
		}
		if o.json {
			return report.WriteJSON(stdout, one)
		}
		report.WriteText(stdout, one)
		return nil
	}
	if o.json {
		return report.WriteJSON(stdout, report.All{Last: last, Runs: report.History(runs)})
	}
	report.WriteText(stdout, last)
	report.WriteHistory(stdout, runs)
	return nil
}
