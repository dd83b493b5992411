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
// No symbolic link under .ralph/ is followed, nor .ralph/ itself if it is
// one: every Dir method checks .ralph/ and each folder on the way to its
// file first (a *linkError, nothing read or written) and opens the file
// itself with O_NOFOLLOW. Files the repository names outside .ralph/
// (PROMPT_FILE, EVENTS_FILE in .ralphrc) go through ReadFileBeneath and
// OpenAppendBeneath, which apply the same walk below the project folder.
//
//	d := ralphdir.New("/proj/.ralph", warn)
//	found, err := d.ReadJSON(ralphdir.CircuitBreakerState, &state)
//	err = d.WriteJSON(ralphdir.CircuitBreakerState, state)
//	lock, err := d.Lock() // *LockedError when another loop holds it
package ralphdir
