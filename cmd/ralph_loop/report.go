package main

import (
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"

	"github.com/ralphloop/ralph_loop/internal/config"
	"github.com/ralphloop/ralph_loop/internal/ralphdir"
	"github.com/ralphloop/ralph_loop/internal/readmodel"
	"github.com/ralphloop/ralph_loop/internal/report"
	"github.com/ralphloop/ralph_loop/internal/swarm"
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
// run, rebuilt from the event log and its rotated copies; or one run. In a
// project that ran --swarm, the swarm follows (the workers, how each
// ended, what each worker's calls took); with no run of the folder's own,
// the swarm alone (--json: {"swarm": …}).
func showReport(d *ralphdir.Dir, o reportOptions, stdout, stderr io.Writer) error {
	root := filepath.Dir(d.Root())
	runs, err, readErr := readmodel.Runs(d)
	hasSwarm := o.run == "" && swarm.Here(root)
	if (err != nil || report.Last(runs) == nil) && hasSwarm {
		return showSwarmReport(root, o.json, stdout)
	}
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
	if hasSwarm {
		// --json stays the one object it was; the swarm is text here.
		fmt.Fprintln(stdout)
		_, err = swarm.WriteReport(stdout, root)
	}
	return err
}

// showSwarmReport is --report in a project whose only runs are its
// swarm's workers'.
func showSwarmReport(root string, asJSON bool, stdout io.Writer) error {
	if !asJSON {
		_, err := swarm.WriteReport(stdout, root)
		return err
	}
	r, _, err := swarm.ReportOf(root)
	if err != nil {
		return err
	}
	b, err := json.MarshalIndent(map[string]any{"swarm": r}, "", "  ")
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(stdout, "%s\n", b)
	return err
}
