// Package analysis reads one agent output and decides what it says: the
// agent's own reply, its session, usage and errors, and whether the loop
// should exit. Analyze reads a saved output (ralph_loop --analyze FILE); a
// Stream is written beside the output log in the loop and gives the same
// Result. Result.ResponseAnalysis is .ralph/.response_analysis;
// explain.Of (internal/explain) puts a Result in short lines for people;
// ExitSignals and ErrorHistory keep what spans loops. The package is pure:
// no clock (Options.Now, Ending.Now), files, processes or goroutines.
//
// Each agent CLI's JSON output format is described once, next to its
// driver (drivers/*_format.go), as a FormatReader: it decodes the CLI's
// records and gives a Reply. reader.go reads an output line by line, the
// same code for Analyze and a Stream, and detects its shape as the bash
// loop does (a first byte of '{' or '[', then the number of documents and
// the formats' records); Options.Formats has the driver's format first. A
// document may span lines; a format may count a record without decoding it
// (most of an output's bytes are tool results and command outputs). A line
// of JSON past 256 KiB is read as it comes (longline.go), its long strings
// decoded in pieces for the formats that read them (LongReader); another
// line past MaxLine is skipped, counted
// (Result.SkippedLines) and noted, without being held.
//
// The bash loop's text rules (text.go: status block, keywords, error and
// test lines, questions, the first paragraph's denials, state markers) run
// once, line by line, on the decoded text: the reply of a JSON output, the
// whole of a plain-text one; a prefix of it (256 KiB) is kept. The
// decisions follow the bash loop's response analyser: the RALPH_STATUS
// block is authoritative (EXIT_SIGNAL: false beats STATUS: COMPLETE);
// without one, completion keywords, test-only lines, more than five error
// lines, no-work phrases and a shorter output decide. Where the bash loop
// is buggy this package does what it intends (docs/COMPATIBILITY.md).
package analysis
