package store

import (
	"fmt"
	"strconv"

	"github.com/ralphloop/ralph_loop/internal/ralphdir"
	"github.com/ralphloop/ralph_loop/ratelimit"
)

// loadWindow reads .call_count and .last_reset. Missing or empty files
// give a zero count and an unknown hour. A file that is not what the bash
// loop writes (a non-negative integer; ten digits) is quarantined by
// ralphdir with a warning and read as missing.
func loadWindow(d *ralphdir.Dir) (ratelimit.Window, error) {
	var w ratelimit.Window
	if _, err := d.ReadValid(ralphdir.CallCount, func(b []byte) error {
		n, err := ratelimit.ParseCount(b)
		w.Count = n
		return err
	}); err != nil {
		return ratelimit.Window{}, fmt.Errorf("load call count: %w", err)
	}
	if _, err := d.ReadValid(lastReset, func(b []byte) error {
		h, err := ratelimit.ParseHour(b)
		w.Hour = h
		return err
	}); err != nil {
		return ratelimit.Window{}, fmt.Errorf("load call window: %w", err)
	}
	return w, nil
}

// peekWindow reads .call_count and .last_reset as loadWindow does but
// never moves a file aside: a missing, unreadable or invalid file reads as
// a zero count or an unknown hour. It is for readers that must not change
// .ralph/ (--status) while a loop may be running.
func peekWindow(d *ralphdir.Dir) ratelimit.Window {
	var w ratelimit.Window
	if b, found, err := d.ReadFile(ralphdir.CallCount); err == nil && found {
		w.Count, _ = ratelimit.ParseCount(b)
	}
	if b, found, err := d.ReadFile(lastReset); err == nil && found {
		w.Hour, _ = ratelimit.ParseHour(b)
	}
	return w
}

// saveWindow writes w as the bash loop does: the count, then the hour,
// each followed by a newline, each atomically. The count goes first so
// that a crash in between leaves an old hour (which rolls over to 0),
// never a new hour with an old count.
func saveWindow(d *ralphdir.Dir, w ratelimit.Window) error {
	if w.Count < 0 {
		return fmt.Errorf("save call count: negative count %d", w.Count)
	}
	if err := d.WriteFile(ralphdir.CallCount, []byte(strconv.Itoa(w.Count)+"\n")); err != nil {
		return fmt.Errorf("save call count: %w", err)
	}
	if err := d.WriteFile(lastReset, []byte(w.Hour+"\n")); err != nil {
		return fmt.Errorf("save call window: %w", err)
	}
	return nil
}
