// Package ledger keeps the usage governor's book (quota.Book) in one file
// per person and machine, shared by every ralph_loop of theirs: every
// project, every swarm worker (docs/USAGE-LIMITS.md).
//
// The file is usage-ledger.json under $XDG_STATE_HOME/ralph_loop/ (else
// ~/.local/state/ralph_loop/), or the absolute path in RALPH_USAGE_LEDGER,
// read from the person's environment only (Path). File reads and writes it
// under an exclusive lock beside it, atomically, following no link and
// moving aside what is not a ledger. Governor is one run's side of it:
// what the engine asks before each call (Look, which runs the person's
// USAGE_PROBE_COMMAND when one is due) and tells after (Record), with the
// run's own book in memory while the ledger cannot be used.
package ledger
