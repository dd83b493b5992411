//go:build unix

package gates

// hostShells: bash from $PATH, as the bash loop runs its gates.
func hostShells() (bash, systemRoot, comspec string) { return "bash", "", "" }
