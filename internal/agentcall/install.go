package agentcall

import (
	"errors"
	"path/filepath"
	"strings"

	"github.com/ralphloop/ralph_loop/drivers"
	"github.com/ralphloop/ralph_loop/internal/cmdshim"
	"github.com/ralphloop/ralph_loop/internal/ralphdir"
)

// shimCap bounds the read of an npm .cmd shim (they are under 1 KiB).
const shimCap = 64 << 10

// Installed is what the install of d's CLI, found on PATH at path, says
// of its version (drivers.InstalledVersion): the start-up's look at the
// CLI's own files, before the first call, which starts nothing. The
// links on the way are resolved once (filepath.EvalSymlinks); an npm .cmd
// shim (Windows) is read for the program it runs; a file is read only
// when it is a regular file, not a link, and small. Anything unexpected
// is an unknown version, never an error.
func Installed(d drivers.Driver, path string) drivers.Installed {
	return drivers.InstalledVersion(d, path, drivers.InstallFiles{Resolve: program, Read: ralphdir.ReadFileNoLink})
}

// program is the program the CLI at path runs: path with every link
// resolved and, for an npm .cmd shim, the program the shim runs (its
// links resolved too).
func program(path string) (string, error) {
	p, err := filepath.EvalSymlinks(path)
	if err != nil || !strings.EqualFold(filepath.Ext(p), ".cmd") {
		return p, err
	}
	text, err := ralphdir.ReadFileNoLink(p, shimCap)
	if err != nil {
		return "", err
	}
	// Which node runs it does not matter: the program is the last word.
	argv, ok := cmdshim.Resolve(string(text), filepath.Dir(p), false, func(string) bool { return false })
	if !ok {
		return "", errNotShim
	}
	return filepath.EvalSymlinks(argv[len(argv)-1])
}

var errNotShim = errors.New("not an npm shim")
