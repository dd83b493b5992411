// Command gen-output writes a generated agent output of about N MB in one
// of the formats of internal/gen, for benchmarks:
//
//	go run ./scripts/gen-output -format claude-stream -mb 50 -o /tmp/out.log
package main

import (
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/ralphloop/ralph_loop/internal/gen"
)

func main() {
	format := flag.String("format", "claude-stream", "output format: "+strings.Join(gen.Formats, ", "))
	mb := flag.Float64("mb", 50, "size in megabytes (10^6 bytes)")
	out := flag.String("o", "", "file to write (required)")
	seed := flag.Uint64("seed", 1, "random seed")
	flag.Parse()
	if err := run(*format, *mb, *out, *seed); err != nil {
		fmt.Fprintf(os.Stderr, "gen-output: %v\n", err)
		os.Exit(1)
	}
}

func run(format string, mb float64, out string, seed uint64) error {
	if out == "" {
		return fmt.Errorf("no output file: pass -o PATH")
	}
	if mb <= 0 {
		return fmt.Errorf("-mb must be above 0, got %g", mb)
	}
	f, err := os.Create(out)
	if err != nil {
		return fmt.Errorf("create %s: %w", out, err)
	}
	if err := gen.Write(f, format, int64(mb*1e6), seed); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("close %s: %w", out, err)
	}
	return nil
}
