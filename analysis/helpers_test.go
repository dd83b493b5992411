package analysis_test

import (
	"os"

	. "github.com/ralphloop/ralph_loop/analysis"
	"github.com/ralphloop/ralph_loop/internal/explain"
)

// AnalyzeFile analyses the output file at path, as ralph_loop --analyze
// FILE does: the Result and its explanation. opts.OutputFile defaults to
// path.
func AnalyzeFile(path string, opts Options) (Result, explain.Lines, error) {
	f, err := os.Open(path)
	if err != nil {
		return Result{}, nil, err
	}
	defer f.Close()
	if opts.OutputFile == "" {
		opts.OutputFile = path
	}
	res, err := Analyze(f, opts)
	if err != nil {
		return Result{}, nil, err
	}
	return res, explain.Of(&res), nil
}
