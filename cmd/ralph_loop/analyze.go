package main

import (
	"io"
	"strings"
	"time"

	"github.com/ralphloop/ralph_loop/analysis"
	"github.com/ralphloop/ralph_loop/drivers"
	"github.com/ralphloop/ralph_loop/internal/config"
)

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
