//go:build unix

package main

import "io"

// escapes reports whether the terminal w reads ANSI escape sequences:
// every Unix terminal does.
func escapes(io.Writer) bool { return true }
