package ledger

// noFollow: Windows has no O_NOFOLLOW; the lock file is checked with
// Lstat before it is opened, and the ledger read through
// ralphdir.ReadFileNoFollow, which does the same.
const noFollow = 0

// owned: a file's owner is not checked on Windows, where the state
// folder is under the person's own profile.
func owned(string) error { return nil }
