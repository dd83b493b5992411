package main

import (
	"io"
	"os"

	"golang.org/x/sys/windows"
)

// escapes turns on virtual-terminal processing for the console w (Windows
// 10 and later), so that colours and cursor moves are understood; false
// when the console cannot, and then no colour is written.
func escapes(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	h := windows.Handle(f.Fd())
	var mode uint32
	if windows.GetConsoleMode(h, &mode) != nil {
		return false
	}
	if mode&windows.ENABLE_VIRTUAL_TERMINAL_PROCESSING != 0 {
		return true
	}
	return windows.SetConsoleMode(h, mode|windows.ENABLE_VIRTUAL_TERMINAL_PROCESSING) == nil
}
