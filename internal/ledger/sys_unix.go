//go:build unix

package ledger

import (
	"fmt"
	"os"
	"syscall"
)

// noFollow makes an open refuse a link in the last component.
const noFollow = syscall.O_NOFOLLOW

// owned refuses a file at p (when there is one) that belongs to another
// user: another's ledger is never read, written or moved.
func owned(p string) error {
	st, err := os.Lstat(p)
	if err != nil {
		return nil
	}
	sys, ok := st.Sys().(*syscall.Stat_t)
	if !ok || int(sys.Uid) == os.Geteuid() {
		return nil
	}
	return fmt.Errorf("%s belongs to user %d, not to you: ralph_loop does not use another user's usage ledger; set %s to a file of yours", p, sys.Uid, EnvPath)
}
