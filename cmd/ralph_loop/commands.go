package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/ralphloop/ralph_loop/analysis"
	"github.com/ralphloop/ralph_loop/drivers"
	"github.com/ralphloop/ralph_loop/internal/config"
	"github.com/ralphloop/ralph_loop/internal/ralphdir"
	"github.com/ralphloop/ralph_loop/internal/readmodel"
	"github.com/ralphloop/ralph_loop/internal/report"
	"github.com/ralphloop/ralph_loop/templates"
)

// installTemplates writes the default project files, and the .gitignore
// that keeps the loop's own files out of git, into a .ralph/ folder where
// they are missing (install.sh --project); it never overwrites. A .ralph/
// (or a folder in it) that is a symbolic link is refused first.
func installTemplates(dir string, stdout io.Writer) error {
	d := ralphdir.New(dir, nil)
	if err := d.CheckFolders(); err != nil {
		return err
	}
	if err := os.MkdirAll(d.Path(ralphdir.Specs), 0o755); err != nil {
		return err
	}
	for _, name := range templates.Names() {
		p := d.Path(name)
		if _, err := d.Lstat(name); err == nil {
			fmt.Fprintf(stdout, "Kept %s (already there)\n", p)
			continue
		}
		if err := d.ReplaceFile(name, templates.Files()[name]); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "Added %s\n", p)
	}
	// The loop's own files stay out of the project's history.
	created, err := ralphdir.New(dir, nil).EnsureGitIgnore()
	if err != nil {
		return err
	}
	if created {
		fmt.Fprintf(stdout, "Added %s (the loop's own files stay out of git)\n", filepath.Join(dir, ralphdir.GitIgnore))
	} else {
		fmt.Fprintf(stdout, "Kept %s (already there)\n", filepath.Join(dir, ralphdir.GitIgnore))
	}
	return nil
}

// analyze is --analyze FILE [--driver NAME]: the .response_analysis JSON
// of one saved agent output on stdout, the explanation on stderr.
func analyze(cfg *config.Config, stdout, stderr io.Writer) error {
	driver := ""
	if cfg.Sources["PLATFORM_DRIVER"].Kind != config.SourceDefault {
		driver = cfg.Driver
	}
	opts := analysis.Options{Family: drivers.FamilyOf(driver), Now: time.Now(), LimitPatterns: cfg.UsageLimitPatterns}
	res, why, err := analysis.AnalyzeFile(cfg.AnalyzeFile, opts)
	if err != nil {
		return err
	}
	if !res.UsageLimited {
		why = append(why, limitIfFailed(res.IfFailed())...)
	}
	b, err := res.ResponseAnalysis().Marshal()
	if err != nil {
		return err
	}
	stdout.Write(b)
	io.WriteString(stderr, why.String())
	return nil
}

// limitIfFailed explains the usage limit the agent's text tells of, which
// counts only for a call that failed: a saved output does not say how its
// call ended, so --analyze reads it once more as a failed call's.
func limitIfFailed(failed analysis.Result) []string {
	if !failed.UsageLimited {
		return nil
	}
	var out []string
	for _, l := range failed.Explain() {
		if strings.HasPrefix(l, "usage limit") {
			out = append(out, "if the call failed, "+l)
		}
	}
	return out
}

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
