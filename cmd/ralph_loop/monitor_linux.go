package main

import (
	"os"

	"golang.org/x/sys/unix"
)

// discardTypeahead drops what was typed on the terminal f and not read
// yet.
func discardTypeahead(f *os.File) { unix.IoctlSetInt(int(f.Fd()), unix.TCFLSH, unix.TCIFLUSH) }
