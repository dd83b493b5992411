// Package fakeagent is a scriptable stand-in for an agent CLI (claude, codex,
// cursor-agent, copilot, opencode, …), for testscript scenarios and engine
// tests. Register Main in testscript.Main under the CLI names, or run the
// test binary as a helper that calls Main. The same fake is a program of its
// own, cmd/fakeagent, for trying the loop by hand: link it as claude (or
// another CLI's name) on PATH.
//
// API:
//
//	func Main()                                      // the fake CLI; exits the process
//	type Reply struct{ Out, Err string; RC int; Delay time.Duration;
//	                   Wait, Hang, Chatter, Child, Setsid, Check bool; Flood int64; Touch []string }
//	type Script struct{ Default Reply; Calls map[int]Reply; SessionList string }
//	func (s Script) Write(dir string) error          // lay out a script directory
//	func Count(dir string) (int, error)              // counted calls so far
//	func Argv(dir string, n int) ([]string, error)   // call n's argv (argv0 basename first)
//	func AwaitStarted(dir string, n int, limit time.Duration) error // wait for calls/N.started
//	func Release(dir string, n int) error            // let a .wait call n go on
//	func ClaudeJSON(text, session string) string     // a claude --output-format json result
//	func StatusBlock(status string, exit bool, tasks int) string // a RALPH_STATUS block
//	const EnvDir                                     // FAKE_AGENT_DIR
//
// Under the race detector a helper that exits 0 sleeps 1 s; scenarios should
// set GORACE=atexit_sleep_ms=0 in testscript's Setup.
//
// Protocol. $FAKE_AGENT_DIR names the script directory. Every counted call
// takes the next number N (calls/count, under a file lock, so concurrent
// calls are safe) and records, under calls/:
//
//	N.argv       one argument per line, the basename of argv0 first
//	N.argv.json  the same as a JSON array of strings
//	N.stdin      what it read on stdin (<tty> for a terminal; 2 s cap)
//	N.env        the environment, sorted KEY=VALUE lines
//	N.cwd        the working directory
//
// It then answers from N.<ext> in the script directory, else
// dir-<DIR>.<ext> (DIR the working directory's name: a swarm worker's own
// replies), else default.<ext>, one lookup per extension:
//
//	.out    stdout reply        .err    stderr reply       .rc  exit code (default 0)
//	.delay  sleep before exiting (a Go duration such as 2s, or seconds)
//	.wait   after calls/N.started, block until calls/N.release exists (a latch the
//	        test opens with Release); a call not released within a minute (or the
//	        Go duration in the file) says so on stderr and exits 124, so a broken
//	        test fails instead of hanging
//	.hang   print .out, then block until killed
//	.chatter from the moment the call has its number until just before
//	        calls/N.started (with .wait, until its release), print "fakeagent:
//	        call N is working" on stderr every 50 ms: an agent that talks while
//	        it works, then falls silent (a .hang after it is silent from then on)
//	.child  start a grandchild in the same process group that blocks forever,
//	        holding stdout and stderr; its pid goes to calls/N.child.pid
//	        (run such a call through supervise: testscript's own exec would
//	        wait for the held pipe forever)
//	.setsid with .child: the grandchild starts a new session (setsid),
//	        leaving the process group as a daemonising helper does
//	.flood  before .out, print that many bytes of filler lines on stdout,
//	        or without end for "forever" (calls/N.started comes first then)
//	.check  tick the first "- [ ]" box in ./.ralph/@fix_plan.md
//	.touch  relative paths, one a line: append "call N" to each (a git-visible change)
//	        ({{DIR}} in a path: the working directory's name, e.g. a swarm worker's)
//
// Flag files (.wait, .hang, .chatter, .child, .setsid, .check) are on when present, unless their content
// is 0, false, no or off, so a per-call file can switch off a default. In
// .out and .err, {{CALL}} becomes N, {{SESSION}} becomes sess-N and
// {{EPOCH+S}} the Unix time S seconds from now ({{EPOCH}}: now), for a
// usage-limit reset a few seconds away.
//
// In order: .chatter starts, record, .check, .touch, .child, .err, .flood, .out,
// .chatter stops (unless .wait), calls/N.started (written atomically, so tests can
// wait for it), .wait (then .chatter stops), .delay or .hang, and
// finally "N rc" is appended to calls/done.log and the process exits with rc.
//
// Not counted: "<cli> --version" (or -v) prints $FAKE_AGENT_VERSION or
// "1.0.0 (fake)"; "opencode session …" prints session-list.out or "[]". Both
// are logged to calls/aux.log when $FAKE_AGENT_DIR is set.
package fakeagent
