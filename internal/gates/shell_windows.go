package gates

import (
	"os"
	"os/exec"
)

// hostShells: the bash on %PATH% (Git Bash puts its own there), the
// Windows folder and cmd.exe.
func hostShells() (bash, systemRoot, comspec string) {
	bash, _ = exec.LookPath("bash")
	return bash, os.Getenv("SystemRoot"), os.Getenv("ComSpec")
}
