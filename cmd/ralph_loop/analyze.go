package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/ralphloop/ralph_loop/analysis"
	"github.com/ralphloop/ralph_loop/drivers"
	"github.com/ralphloop/ralph_loop/internal/config"
	"github.com/ralphloop/ralph_loop/internal/explain"
)

// analyzeCommand is --analyze FILE [--driver NAME].
var analyzeCommand = &command{
	flag: &flagSpec{Flag: config.Flag{Long: "analyze", Arg: "FILE", Group: config.GroupCommands,
		Help: "analyse a saved agent output file and exit (--driver tells which agent wrote it)", Accepts: "a file name (a saved agent output)"},
		kind:  commandFlag,
		check: required(flagError("--analyze", "--analyze requires a file name (a saved agent output)"))},
	where:   whereItIs,
	noAgent: true,
	run:     func(e *runEnv, l *line) error { return analyze(e.cfg, analyzeOptionsOf(l), e.safeOut, e.safeErr) },
}

// analyzeOptions are --analyze's: the saved output it reads.
type analyzeOptions struct {
	file string
}

func analyzeOptionsOf(l *line) analyzeOptions { return analyzeOptions{file: l.value("analyze")} }

// analyze is --analyze FILE [--driver NAME]: the .response_analysis JSON
// of one saved agent output on stdout, the explanation on stderr.
func analyze(cfg *config.Config, o analyzeOptions, stdout, stderr io.Writer) error {
	driver := ""
	if cfg.Sources["PLATFORM_DRIVER"].Kind != config.SourceDefault {
		driver = cfg.Driver
	}
	opts := analysis.Options{Formats: drivers.Formats(driver), Now: time.Now(), LimitPatterns: cfg.UsageLimitPatterns}
	res, err := analyzeFile(o.file, opts)
	if err != nil {
		return err
	}
	why := explain.Of(&res)
	if !res.UsageLimited {
		why = append(why, limitIfFailed(res.IfFailed())...)
	}
	b, err := res.ResponseAnalysis().Marshal()
	if err != nil {
		return err
	}
	stdout.Write(b)
	for _, l := range why {
		fmt.Fprintln(stderr, l)
	}
	return nil
}

// analyzeFile analyses the output file at path, streamed (any size).
func analyzeFile(path string, opts analysis.Options) (analysis.Result, error) {
	f, err := os.Open(path)
	if err != nil {
		return analysis.Result{}, fmt.Errorf("analyze %s: %w", path, err)
	}
	defer f.Close()
	opts.OutputFile = path
	res, err := analysis.Analyze(f, opts)
	if err != nil {
		return analysis.Result{}, fmt.Errorf("analyze %s: %w", path, err)
	}
	return res, nil
}

// limitIfFailed explains the usage limit the agent's text tells of, which
// counts only for a call that failed: a saved output does not say how its
// call ended, so --analyze reads it once more as a failed call's.
func limitIfFailed(failed analysis.Result) []string {
	if !failed.UsageLimited {
		return nil
	}
	var out []string
	for _, l := range explain.Of(&failed) {
		if strings.HasPrefix(l, "usage limit") {
			out = append(out, "if the call failed, "+l)
		}
	}
	return out
}
