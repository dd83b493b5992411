package events

import "time"

// Notice is something the loop tells the person watching it that belongs
// to no happening of its own (observe.Observer.Said): a log line, a box, a
// countdown tick. The engine says notices as typed values
// (observe.Fan.Note); the console package renders them,
// for the terminal and for logs/ralph.log alike, so the wording, level
// and colour of every line live in one place.
//
// The unexported method keeps the set of notices closed to this package,
// so the renderer can cover every case.
type Notice interface{ notice() }

// Logged is a line whose text was composed outside the engine: by the
// command line (configuration warnings), by ralphdir (a quarantined
// file), by a leaf package that owns its own wording (session, review,
// fixplan, the exit decision, an agent probe). The engine never builds
// the text of a Logged notice itself.
type Logged struct {
	Level Level
	Text  string
}

// Phrase is a notice without values: one fixed line (or a fixed piece of
// console output), named for what happened.
type Phrase uint8

// The phrases.
const (
	RateLimitReset        Phrase = iota + 1 // SUCCESS, the wait for the next hour is over
	LiveNeedsJSON                           // WARN, live mode switched text output to json
	LiveEnded                               // console: the end of the live output
	GateBlocksCompletion                    // WARN, a quality gate withholds the exit signals
	GateWithholdsProgress                   // WARN, a circuit-breaker gate withholds progress
	DenialsNotCleared                       // WARN, the permission denial markers stay
	UsageLimitNoAnswer                      // console + INFO, no answer in time: wait
	StreamKept                              // INFO, the whole stream stays in the output log
	StreamResultInvalid                     // WARN, the final result record was not JSON
	StreamCollapsed                         // INFO, the output log keeps the final result only
)

// Starting opens a run: which agent, the call limit and where to look.
type Starting struct {
	Agent string
	// IgnoredTools: ALLOWED_TOOLS was given, but the agent has no such
	// setting.
	IgnoredTools             bool
	MaxCalls                 int
	LogsDir, DocsDir, Status string // as shown: relative to the project when inside it
}

// StartupFailed: a start-up check failed and the run stops. Err is a
// failure that says it all (an unreadable prompt or plan, an unknown
// driver, a missing agent CLI); otherwise Check names the failed check.
type StartupFailed struct {
	Check StartupCheck
	Err   error
	// Path is the prompt file as configured (PromptMissing) or the
	// project directory (NoGitRepo).
	Path string
	// Restore: the directory is a Ralph project missing its PROMPT.md,
	// which belongs here ("" when it is not a Ralph project).
	Restore string
}

// StartupCheck names a start-up check.
type StartupCheck uint8

// The start-up checks that fail without an error of their own.
const (
	PromptMissing  StartupCheck = iota + 1 // the prompt file does not exist
	GitMissing                             // no git on PATH
	NoGitRepo                              // the project is not a git repository
	NoCommits                              // the repository has no commit
	NoAgentCommand                         // PLATFORM_DRIVER=command without AGENT_COMMAND
)

var checkNames = map[StartupCheck]string{
	PromptMissing: "prompt missing", GitMissing: "git missing", NoGitRepo: "no git repository",
	NoCommits: "no commits", NoAgentCommand: "no agent command",
}

// String names the check.
func (c StartupCheck) String() string { return checkNames[c] }

// TempFilesRemoved: start-up removed temp files an interrupted write left.
type TempFilesRemoved struct{ Count int }

// AgentFound: the agent CLI's version and path (DEBUG), and where the
// version came from (its package.json, its init record...).
type AgentFound struct{ Agent, Version, Path, From string }

// LoopMark opens (Done false) or closes an iteration.
type LoopMark struct {
	Loop int
	Done bool
}

// Interrupted: a signal stops the run. Blocked: the loop was stuck
// outside an agent call and exits without waiting for it.
type Interrupted struct {
	Signal  string
	Blocked bool
}

// BreakerHalted: the run stops because the breaker is open. Report is the
// breaker's own account of its state, shown on the console.
type BreakerHalted struct{ Report []string }

// GracefulExit: an exit condition ended the run (Reason: its name).
type GracefulExit struct{ Reason string }

// Stalled: the iteration repeated the last reply with no change in git.
type Stalled struct{ Count, Limit int }

// CallStarting: the agent is about to be called.
type CallStarting struct {
	Agent          string
	Call, MaxCalls int
	Timeout        time.Duration
	// Retry: the failed calls in a row before this one (the hour's count,
	// Call, leaves out those the provider did not serve).
	Retry int
}

// LoopContext is the context text given to the agent (DEBUG).
type LoopContext struct{ Text string }

// CLIMode: the output format asked of the agent.
type CLIMode struct{ Format string }

// NoLiveStreaming: the agent cannot stream; live mode is off.
type NoLiveStreaming struct{ Agent string }

// LiveStarted: the agent's output is shown as it comes.
type LiveStarted struct{ Agent string }

// WriteTimeoutClamped: the write heartbeat was not shorter than the call
// timeout; Used is the value taken instead.
type WriteTimeoutClamped struct{ Write, Timeout, Used time.Duration }

// OutputNotStored: the output of a call that failed anyway could not be
// stored in full (Err, the writer's error); DiskFull when the disk or the
// quota is full, which changes the remedy shown. (A call whose output
// could not be stored fails: its Failure says so.)
type OutputNotStored struct {
	Err      error
	DiskFull bool
}

// AgentWorking is the agent call as it works: the time since it started
// and its last output line, if any (the value of
// observe.Observer.CallProgress, every 10 s: a DEBUG line); said once a
// second in the default (not --live) mode, with the bytes of output so
// far and the last tool call that output showed ("" when its format shows
// none), it is the ticking line a terminal redraws in place, never a log
// line.
type AgentWorking struct {
	Agent, Last string
	Elapsed     time.Duration
	Bytes       int64
	Tool        string
}

// AgentSucceeded: the agent call ended well.
type AgentSucceeded struct{ Agent string }

// Analysing: the agent's reply is being analysed.
type Analysing struct{ Agent string }

// Analysed is the summary of one analysed reply (a box on the console).
type Analysed struct {
	Loop         int
	ExitSignal   bool
	Confidence   int
	TestOnly     bool
	FilesChanged int
	Summary      string // the agent's own work summary, as it wrote it
}

// FilesChanged: the files changed since the loop started (DEBUG).
type FilesChanged struct{ Count int }

// OutputErrors: the agent's output has error lines.
type OutputErrors struct {
	File  string
	Lines []string
}

// UnknownState: the agent reported a state marker the loop ignores.
type UnknownState struct{ Name string }

// DoneMatched: DONE_PATTERN matched the reply (a failing quality gate may
// still hold the run's completion: CompletionHeld).
type DoneMatched struct {
	Pattern string
}

// NoWrites: the write heartbeat stopped a call that changed no file.
type NoWrites struct{ After time.Duration }

// BreakerChange: the breaker moved from one state to another (the value
// of observe.Observer.BreakerMoved). Report is the breaker's own account,
// shown on the console.
type BreakerChange struct {
	From, To, Reason string
	Closed           bool // the breaker closed again: good news
	Report           []string
}

// PermissionDenied: the agent was refused Commands in loop Loop. With
// Halt the run stops (PermissionHelp follows); otherwise Mode
// (PERMISSION_DENIAL_MODE) lets it go on.
type PermissionDenied struct {
	Commands, Mode string
	Loop           int
	Halt           bool
}

// PermissionHelp is the box shown when a denial halts the run: Help (the
// driver's words), and the current ALLOWED_TOOLS when ShowTools.
type PermissionHelp struct {
	Agent        string
	Help         []string
	ShowTools    bool
	AllowedTools []string
}

// UsageLimitWait: the loop waits Wait for the usage limit, until Until.
type UsageLimitWait struct {
	Wait  time.Duration
	Until time.Time
}

// UsageLimitQuestion: console, the wait-or-exit question for the limit of
// Usage's window.
type UsageLimitQuestion struct{ Usage UsageWindow }

// WaitSkipped: Ctrl+C skipped a wait; the next call starts after Window.
type WaitSkipped struct{ Window time.Duration }

// WaitTick is the time left in a wait, at the wait's start and at every
// whole second after. Kind is the wait's name in events (loop_delay,
// idle_backoff, failure_backoff, outage_backoff, rate_limit, usage_limit).
type WaitTick struct {
	Kind string
	Left time.Duration
}

// WaitOver ends the countdown of a wait.
type WaitOver struct{}

func (Logged) notice()              {}
func (Phrase) notice()              {}
func (Starting) notice()            {}
func (TempFilesRemoved) notice()    {}
func (StartupFailed) notice()       {}
func (AgentFound) notice()          {}
func (LoopMark) notice()            {}
func (Interrupted) notice()         {}
func (BreakerHalted) notice()       {}
func (GracefulExit) notice()        {}
func (Stalled) notice()             {}
func (CallStarting) notice()        {}
func (LoopContext) notice()         {}
func (CLIMode) notice()             {}
func (NoLiveStreaming) notice()     {}
func (LiveStarted) notice()         {}
func (WriteTimeoutClamped) notice() {}
func (OutputNotStored) notice()     {}
func (AgentSucceeded) notice()      {}
func (Analysing) notice()           {}
func (Analysed) notice()            {}
func (FilesChanged) notice()        {}
func (OutputErrors) notice()        {}
func (UnknownState) notice()        {}
func (DoneMatched) notice()         {}
func (NoWrites) notice()            {}
func (PermissionDenied) notice()    {}
func (PermissionHelp) notice()      {}
func (UsageLimitWait) notice()      {}
func (UsageLimitQuestion) notice()  {}
func (WaitSkipped) notice()         {}
func (WaitTick) notice()            {}
func (WaitOver) notice()            {}

// CallWindowReset: a new clock hour started a new call window.
type CallWindowReset struct{ Hour string }

func (CallWindowReset) notice() {}
