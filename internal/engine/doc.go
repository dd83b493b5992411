// Package engine is the loop: start-up checks, one iteration after another
// in the bash loop's order, the waits between them (loop delay, idle and
// failure backoff, rate and usage limits, pause), and the decision when to
// stop and with which reason and exit code.
//
// The engine decides; it never formats a state file or writes one. It keeps
// the run's state in memory and reports to its observers through an
// observe.Fan: one method per kind of happening, each with a typed value
// (the console, logs/ralph.log, status.json, progress.json, metrics.jsonl
// and the event stream render themselves from them), the typed notices of
// the rest of what a person is told (the engine never prints, and the
// words of every line are the console package's). The kept state is no
// happening: it is one value (loop.kept, a store.Kept), which the state
// store loaded once at start-up, through State, and which the engine
// hands whole to its keeper (Deps.Keeper, keep.go) at a few named save
// points; the store writes the files of the parts that changed. A save
// that fails comes back as an error the engine warns of, and the run goes
// on, as the bash loop does — but after a full disk it stops before its
// next call. The agent's own logs are
// opened through Logs, and a call whose output cannot be stored fails
// (write_failed or disk_full, counted by the failure guard).
//
// Its other edges are interfaces it defines for what it asks, handed in
// through Deps: Repo, the project's repository (git, run by package gitrun,
// in production); Agent, the agent CLI's calls; Project, the prompt, the
// plan, the review prompt and a call's logs (ralphdir.Project, which
// follows no link out of .ralph/). Its tests hand in a repository in
// memory (MemRepo) and start no git.
//
// One iteration reads top to bottom in iteration.go: beforeCall (the checks
// before a call, in the bash loop's order), the call (agent.go, through the
// agent edge, Deps.Agent: package agentcall's, which opens the logs and
// tees the output in one pass: log, live view, stream copy, and the
// analysis that analyze.go finishes after the call: no log is read back),
// then what it means, each step a call that comes back to iteration: a
// failed call is counted and said (failure.go) and the policy (policy.go:
// failures in a row, outages, usage limits, the fallback; its own state and
// clock) decides what comes next, which act carries out; a reply is
// analysed, measured, gated and recorded (success.go), fed to the breaker
// (breaker.go), and its completion decided (exit.go: decideExit and refuse,
// functions of values); then next waits before the next turn (limits.go,
// wait.go). A stop is a Result whose Stop (events.Stop) says why as values;
// its Sentence words it.
package engine
