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
// (except the one AnalyzeFile reads), no processes; a Stream's one
// goroutine ends when the stream is closed. The engine persists what it
// returns.
//
// # Formats
//
// What each agent CLI prints is described once, in package wire: a
// wire.Line is one JSON document of any of them, and its struct tags say
// which paths this package keeps and how. The output's shape is detected as
// the bash loop does (a first byte of '{' or '[', then the number of JSON
// documents and the event types, Codex before OpenCode before stream-json);
// Options.Family (the driver's Family()) puts that CLI's shape first, and
// wire.FamilyText reads plain text. Shapes: one JSON object (Claude or
// Cursor --output-format json, or the flat format), Claude's message array,
// Claude/Cursor stream-json (with stream_event deltas), Codex exec --json
// (item.text and the older content[] form), OpenCode run --format json
// (1.x events with sessionID, and the older assumed shape), and plain text.
//
// Everything is read as a stream in bounded memory: the JSON reader
// (lexer.go, decode.go) walks the tree of wire.Line's paths (paths.go) and
// decodes strings piece by piece straight into a text scanner (an automaton
// over case-folded bytes, text.go and dfa.go), so a line of any length
// works and only a prefix of the reply (MaxResultText) is kept; a general
// JSON decoder would hold a 50 MB result string whole. Lines that are not
// valid JSON are skipped and counted. A seekable input that starts like
// JSON but is not is read a second time as text; any other input (a pipe,
// a Stream) is read as JSON and as text in one pass, which costs the text
// scan on JSON outputs too (about 0.15 s more per 50 MB) and decides the
// same. A Stream runs that one pass in its own goroutine while the agent
// writes, so the loop never reads the output log back.
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
