package analysis_test

import (
	"os"
	"strings"

	. "github.com/ralphloop/ralph_loop/analysis"
	"github.com/ralphloop/ralph_loop/internal/explain"
)

// explained is explain.Of(r) as ralph_loop --analyze prints it: a line each.
func explained(r *Result) string {
	var b strings.Builder
	for _, l := range explain.Of(r) {
		b.WriteString(l + "\n")
	}
	return b.String()
}

// AnalyzeFile analyses the output file at path, as ralph_loop --analyze
// FILE does: the Result and its explanation. opts.OutputFile defaults to
// path.
func AnalyzeFile(path string, opts Options) (Result, string, error) {
	f, err := os.Open(path)
	if err != nil {
		return Result{}, "", err
	}
	defer f.Close()
	if opts.OutputFile == "" {
		opts.OutputFile = path
	}
	res, err := Analyze(f, opts)
	if err != nil {
		return Result{}, "", err
	}
	return res, explained(&res), nil
}
