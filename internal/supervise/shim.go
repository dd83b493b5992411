package supervise

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/ralphloop/ralph_loop/internal/cmdshim"
	"github.com/ralphloop/ralph_loop/internal/ralphdir"
)

// shimCap bounds the read of a batch file that may be an npm shim (they
// are under 1 KiB).
const shimCap = 64 << 10

// resolveArgv replaces an npm shim (claude.cmd, codex.cmd) with the node
// command line it runs, so that the arguments (a multi-line prompt) reach
// the program intact instead of through cmd.exe. When the .cmd is not a
// shim npm writes, its extensionless sh sibling is read; when neither is,
// argv is run as it is.
func resolveArgv(argv []string) []string {
	path, ok := batchFile(argv[0])
	if !ok {
		return argv
	}
	return resolveShim(path, argv)
}

// resolveShim is resolveArgv for argv whose program is the batch file at
// path.
func resolveShim(path string, argv []string) []string {
	dir := filepath.Dir(path)
	for _, cand := range []struct {
		path string
		sh   bool
	}{{path, false}, {strings.TrimSuffix(path, filepath.Ext(path)), true}} {
		text, ok := readSmall(cand.path)
		if !ok {
			continue
		}
		if run, ok := cmdshim.Resolve(text, dir, cand.sh, exists); ok {
			return append(run, argv[1:]...)
		}
	}
	return argv
}

func exists(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular()
}

// readSmall reads a regular file of at most shimCap bytes.
func readSmall(p string) (string, bool) {
	b, err := ralphdir.ReadFileCapped(p, shimCap)
	return string(b), err == nil
}
