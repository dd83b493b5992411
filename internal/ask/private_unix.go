//go:build unix

package ask

import (
	"fmt"
	"os"
	"syscall"
)

// private checks that dir is a folder of this user's (not a link) and
// takes away every other user's access to it.
func private(dir string) error {
	st, err := os.Lstat(dir)
	if err != nil {
		return err
	}
	if !st.IsDir() {
		return fmt.Errorf("%s is not a folder (%s): the agent's questions need a private folder there; move it aside", dir, st.Mode().Type())
	}
	if sys, ok := st.Sys().(*syscall.Stat_t); ok && int(sys.Uid) != os.Geteuid() {
		return fmt.Errorf("%s belongs to another user (uid %d): the agent's questions need a folder of yours; move it aside", dir, sys.Uid)
	}
	if st.Mode().Perm()&0o077 != 0 {
		return os.Chmod(dir, 0o700)
	}
	return nil
}
