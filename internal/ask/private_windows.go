package ask

import (
	"fmt"
	"os"
)

// private checks that dir is a folder (not a link); the user's cache
// folder is the user's own on Windows.
func private(dir string) error {
	st, err := os.Lstat(dir)
	if err != nil {
		return err
	}
	if !st.IsDir() {
		return fmt.Errorf("%s is not a folder (%s): the agent's questions need a private folder there; move it aside", dir, st.Mode().Type())
	}
	return nil
}
