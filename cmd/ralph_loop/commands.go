package main

import (
	"encoding/json"
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
func installTemplates(dir string, stdout, stderr io.Writer) int {
	if err := os.MkdirAll(filepath.Join(dir, "specs"), 0o755); err != nil {
		fmt.Fprintf(stderr, "ralph_loop: %v\n", err)
		return 1
	}
	for _, name := range templates.Names() {
		p := filepath.Join(dir, name)
		if _, err := os.Lstat(p); err == nil {
			fmt.Fprintf(stdout, "Kept %s (already there)\n", p)
			continue
		}
		if err := ralphdir.WriteFileAtomic(p, templates.Files()[name], 0o644); err != nil {
			fmt.Fprintf(stderr, "ralph_loop: %v\n", err)
			return 1
		}
		fmt.Fprintf(stdout, "Added %s\n", p)
	}
	return 0
}

// analyze is --analyze FILE [--driver NAME]: the .response_analysis JSON
// of one saved agent output on stdout, the explanation on stderr.
func analyze(cfg *config.Config, stdout, stderr io.Writer) int {
	driver := ""
	if cfg.Sources["PLATFORM_DRIVER"].Kind != config.SourceDefault {
		driver = cfg.Driver
	}
	res, why, err := analysis.AnalyzeFile(cfg.AnalyzeFile, analysis.Options{Driver: driver, Now: time.Now()})
	if err != nil {
		fmt.Fprintf(stderr, "ralph_loop: %v\n", err)
		return 1
	}
	b, err := res.ResponseAnalysis().Marshal()
	if err != nil {
		fmt.Fprintf(stderr, "ralph_loop: %v\n", err)
		return 1
	}
	stdout.Write(b)
	io.WriteString(stderr, why.String())
	return 0
}

// showReport is --report [--json]: the last run, rebuilt from its events.
func showReport(d *ralphdir.Dir, cfg *config.Config, stdout, stderr io.Writer) int {
	f, err := ralphdir.OpenRegular(d.Path(ralphdir.EventsLog))
	if err != nil {
		fmt.Fprintf(stderr, "ralph_loop: no run to report: %v; run ralph_loop first\n", err)
		return 1
	}
	defer f.Close()
	runs, err := report.Read(f)
	if err != nil {
		fmt.Fprintf(stderr, "ralph_loop: %v\n", err)
	}
	last := report.Last(runs)
	if last == nil {
		fmt.Fprintf(stderr, "ralph_loop: no run to report: %s holds no events\n", d.Path(ralphdir.EventsLog))
		return 1
	}
	if cfg.JSON {
		if err := report.WriteJSON(stdout, last); err != nil {
			fmt.Fprintf(stderr, "ralph_loop: %v\n", err)
			return 1
		}
		return 0
	}
	report.WriteText(stdout, last)
	return 0
}

var _ = json.Marshal
