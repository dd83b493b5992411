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

// showReport is --report [--json] [--run ID]: the last run and one line per
// run, rebuilt from the event log and its rotated copies; or one run. In a
// project that ran --swarm, the swarm follows (the workers, how each
// ended, what each worker's calls took); with no run of the folder's own,
// the swarm alone (--json: {"swarm": …}).
func showReport(d *ralphdir.Dir, cfg *config.Config, stdout, stderr io.Writer) error {
	root := filepath.Dir(d.Root())
	runs, err, readErr := readmodel.Runs(d)
	hasSwarm := cfg.ReportRun == "" && swarm.Here(root)
	if (err != nil || report.Last(runs) == nil) && hasSwarm {
		return showSwarmReport(root, cfg.JSON, stdout)
	}
	if err != nil {
		return err
	}
	if err := readErr; err != nil {
		// What could be read is still reported.
		fmt.Fprintf(stderr, "ralph_loop: %v\n", err)
	}
	if report.Last(runs) == nil {
		return fmt.Errorf("no run to report: %s holds no events", d.Path(ralphdir.EventsLog))
	}
	found, err := report.Write(stdout, runs, cfg.ReportRun, cfg.JSON)
	if !found {
		return fmt.Errorf("--run %s: no such run in %s; ralph_loop --report lists the runs", cfg.ReportRun, d.Path(ralphdir.EventsLog))
	}
	if err == nil && hasSwarm && !cfg.JSON {
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
