//go:build !linux

package main

import "os"

// discardTypeahead drops what was typed on the terminal f and not read
// yet (Linux only; elsewhere a line typed during the run closes the
// window at once).
func discardTypeahead(f *os.File) {}
