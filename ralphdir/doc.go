// Package ralphdir owns the files under a project's .ralph/ folder: their
// names, atomic writes (temp file in the same folder, fsync, rename),
// quarantine of empty or corrupt files, append-only logs, and the lock that
// keeps a second ralph_loop out of the same project.
//
// Every other package reads and writes .ralph/ state through this one, so a
// reader (bmalph, ralph_monitor, a user's jq) never sees a half-written file
// and a damaged file is moved aside with a warning instead of being silently
// overwritten or crashing the loop.
//
//	d := ralphdir.New("/proj/.ralph", warn)
//	found, err := d.ReadJSON(ralphdir.CircuitBreakerState, &state)
//	err = d.WriteJSON(ralphdir.CircuitBreakerState, state)
//	lock, err := d.Lock() // *LockedError when another loop holds it
package ralphdir
