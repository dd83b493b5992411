// Package analysis reads one agent output and decides what it says: the
// agent's own reply, its session, usage and errors, and whether the loop
// should exit.
//
// # API
//
//	Analyze(r io.Reader, opts Options) (Result, error)
//	AnalyzeFile(path string, opts Options) (Result, Explanation, error) // ralph_loop --analyze FILE
//	NewStream(opts Options) *Stream          // the loop: written beside the output log,
//	(*Stream).Write(p), Close(), Finish(Ending) (Result, error) // same Result as AnalyzeFile
//
//	(*Result).ResponseAnalysis() ResponseAnalysis  // .ralph/.response_analysis; Marshal() gives the bytes
//	(*Result).Explain() Explanation                // short lines for people (stderr of --analyze)
//	(*Result).SetFilesModified(n int)              // the loop's git count (also Options.FilesModified)
//	(*Result).ApplyFixPlanDelta(delta int) bool    // claimed tasks vs checked boxes; a mismatch suppresses completion
//	(*Result).SuppressCompletion()                 // quality-gate block mode
//	(*Result).ClearPermissionDenials()             // after a denial was handled
//	(*Result).HasState(name string) bool, FirstErrorLine() string, UpdatesLastOutputLength() bool
//
//	ExitSignals: Update(ResponseAnalysis), Decide(lastExitSignal bool, PlanProgress) ExitDecision,
//	Marshal, ParseExitSignals, InitialExitSignals   // .ralph/.exit_signals and should_exit_gracefully
//	ErrorHistory: Add, Previous, Marshal, ParseErrorHistory // error lines of recent loops (stuck detection)
//
// The package is pure: no clock (Options.Now, Ending.Now), no files
// (except the one AnalyzeFile reads), no processes, no goroutines. The
// engine persists what it returns.
//
// # Formats
//
// Each agent CLI's output format is described once, in its own file here,
// which the drivers point at (their Family): claude.go (Claude Code and
// Cursor: the result object, the message array, stream-json), codex.go
// (codex exec --json), opencode.go (opencode run --format json, 1.x and the
// older assumed shape); plain text (Copilot, FamilyText) has no records.
// A format file holds the records the CLI emits (structs decoded with
// go-json-experiment: a member of an unexpected type reads as empty, as jq's
// `.a.b // empty` does), where its reply, session, usage, cost, limits and
// errors are, the function that gathers its records, and its shape (what
// the rules read). The live renderer (drivers/live.go) decodes the same
// records.
//
// reader.go reads an output line by line, the same code for a file
// (Analyze, AnalyzeFile) and for a Stream written as the output arrives.
// A line longer than MaxLine is skipped, counted (Result.SkippedLines) and
// noted, without being held. The output's shape is detected as the bash
// loop does (a first byte of '{' or '[', then the number of JSON documents
// and the record types, Codex before OpenCode before stream-json);
// Options.Family (the driver's Family()) puts that CLI's formats first, and
// FamilyText reads plain text. A document may span lines (a pretty-printed
// object). The bulk of an output is counted, not decoded: Claude's tool
// results, Codex's command outputs, and Claude's text deltas until the
// stream turns out to have no result record.
//
// The bash loop's text rules (text.go: status block, keywords, error and
// test lines, questions, the first paragraph's denials, state markers) run
// once, line by line, on the decoded text: the reply of a JSON output, the
// whole of a plain-text one (in an output that starts like JSON, the lines
// that are not JSON). The phrases of a line are found in one pass of a
// small automaton (dfa.go); only a prefix of the reply (MaxResultText) is
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
// docs/COMPATIBILITY.md (the status block is read in every format, the last
// closed block counts, session ids are never "0", errors are looked for in
// the agent's own text, usage limits need a structured signal or a failed
// call).
package analysis
