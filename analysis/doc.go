// Package analysis reads one agent output and decides what it says: the
// agent's own reply, its session, usage and errors, and whether the loop
// should exit.
//
// # API
//
//	Analyze(r io.Reader, opts Options) (Result, error)  // a saved output (ralph_loop --analyze FILE)
//	NewStream(opts Options) *Stream                      // the loop: written beside the output log,
//	(*Stream).Write(p), Close(), Finish(Ending) (Result, error) // same Result as Analyze
//
//	(*Result).ResponseAnalysis() ResponseAnalysis  // .ralph/.response_analysis; Marshal() gives the bytes
//	explain.Of(*Result) (internal/explain)          // short lines for people (stderr of --analyze)
//	(*Result).SetFilesModified, ApplyFixPlanDelta, SuppressCompletion, ClearPermissionDenials
//	ExitSignals (.ralph/.exit_signals, should_exit_gracefully), ErrorHistory (stuck detection)
//
// The package is pure: no clock (Options.Now, Ending.Now), no files, no
// processes, no goroutines. The engine persists what it returns.
//
// # Formats
//
// Each agent CLI's JSON output format is described once, next to its
// driver (drivers/claude_format.go, codex_format.go, opencode_format.go),
// as a FormatReader that Options.Formats makes for each output: it decodes
// the CLI's records and gives a Reply (the agent's text, session, usage,
// errors, denials). Plain text (Copilot, FamilyText) has no records.
//
// reader.go reads an output line by line, the same code for Analyze and
// for a Stream written as the output arrives. A line longer than MaxLine
// is skipped, counted (Result.SkippedLines) and noted, without being held.
// The output's shape is detected as the bash loop does (a first byte of
// '{' or '[', then the number of JSON documents and the formats' records,
// Codex before OpenCode before stream-json); Options.Family (the driver's
// Family()) puts that CLI's format first, and FamilyText reads plain text.
// A document may span lines. A format may count a record without decoding
// it (most of an output's bytes are tool results and command outputs).
//
// The bash loop's text rules (text.go: status block, keywords, error and
// test lines, questions, the first paragraph's denials, state markers) run
// once, line by line, on the decoded text: the reply of a JSON output, the
// whole of a plain-text one. Only a prefix of the reply (MaxResultText) is
// kept.
//
// # Decisions
//
// The per-loop values follow the bash loop's response analyser: the
// RALPH_STATUS block is authoritative (explicit EXIT_SIGNAL: false beats
// STATUS: COMPLETE; without EXIT_SIGNAL, STATUS: COMPLETE signals
// completion); without a block, completion keywords on word boundaries,
// test-only lines, more than five error lines, no-work phrases and a
// shorter output decide, as in the bash loop. Where the bash loop is buggy
// this package does what it intends; every such place is listed in
// docs/COMPATIBILITY.md.
package analysis
