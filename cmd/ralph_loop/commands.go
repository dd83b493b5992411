package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/ralphloop/ralph_loop/analysis"
	"github.com/ralphloop/ralph_loop/config"
	"github.com/ralphloop/ralph_loop/ralphdir"
	"github.com/ralphloop/ralph_loop/report"
	"github.com/ralphloop/ralph_loop/templates"
)

// installTemplates writes the default project files into a .ralph/ folder
// where they are missing (install.sh --project); it never overwrites.
func installTemplates(dir string, stdout io.Writer) error {
	if err := os.MkdirAll(filepath.Join(dir, "specs"), 0o755); err != nil {
		return err
	}
	for _, name := range templates.Names() {
		p := filepath.Join(dir, name)
		if _, err := os.Lstat(p); err == nil {
			fmt.Fprintf(stdout, "Kept %s (already there)\n", p)
			continue
		}
		if err := ralphdir.WriteFileAtomic(p, templates.Files()[name], 0o644); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "Added %s\n", p)
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
	res, why, err := analysis.AnalyzeFile(cfg.AnalyzeFile, analysis.Options{Driver: driver, Now: time.Now()})
	if err != nil {
		return err
	}
	b, err := res.ResponseAnalysis().Marshal()
	if err != nil {
		return err
	}
	stdout.Write(b)
	io.WriteString(stderr, why.String())
	return nil
}

// showReport is --report [--json]: the last run, rebuilt from its events.
func showReport(d *ralphdir.Dir, cfg *config.Config, stdout, stderr io.Writer) error {
	f, err := ralphdir.OpenRegular(d.Path(ralphdir.EventsLog))
	if err != nil {
		return fmt.Errorf("no run to report: %w; run ralph_loop first", err)
	}
	defer f.Close()
	runs, err := report.Read(f)
	if err != nil {
		// What could be read is still reported.
		fmt.Fprintf(stderr, "ralph_loop: %v\n", err)
	}
	last := report.Last(runs)
	if last == nil {
		return fmt.Errorf("no run to report: %s holds no events", d.Path(ralphdir.EventsLog))
	}
	if cfg.JSON {
		return report.WriteJSON(stdout, last)
	}
	report.WriteText(stdout, last)
	return nil
}
