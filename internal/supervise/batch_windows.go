package supervise

import (
	"os/exec"
	"path/filepath"
	"strings"
)

// batchFile is the path of the .cmd or .bat file that name runs, found as
// CreateProcess would find it (PATHEXT); ok is false for anything else.
func batchFile(name string) (string, bool) {
	path, err := exec.LookPath(name)
	if err != nil {
		return "", false
	}
	ext := strings.ToLower(filepath.Ext(path))
	return path, ext == ".cmd" || ext == ".bat"
}
