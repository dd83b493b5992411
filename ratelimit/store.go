package ratelimit

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"

	"github.com/ralphloop/ralph_loop/internal/ralphdir"
)

// Load reads .call_count and .last_reset. Missing or empty files give a
// zero count and an unknown hour. A file that is not what the bash loop
// writes (a non-negative integer; ten digits) is quarantined by ralphdir
// with a warning and read as missing.
func Load(d *ralphdir.Dir) (Window, error) {
	var w Window
	if _, err := d.ReadValid(ralphdir.CallCount, func(b []byte) error {
		n, err := parseCount(b)
		w.Count = n
		return err
	}); err != nil {
		return Window{}, fmt.Errorf("load call count: %w", err)
	}
	if _, err := d.ReadValid(ralphdir.LastReset, func(b []byte) error {
		h, err := parseHour(b)
		w.Hour = h
		return err
	}); err != nil {
		return Window{}, fmt.Errorf("load call window: %w", err)
	}
	return w, nil
}

// Peek reads .call_count and .last_reset as Load does but never moves a
// file aside: a missing, unreadable or invalid file reads as a zero count
// or an unknown hour. It is for readers that must not change .ralph/
// (--status) while a loop may be running.
func Peek(d *ralphdir.Dir) Window {
	var w Window
	if b, found, err := d.ReadFile(ralphdir.CallCount); err == nil && found {
		w.Count, _ = parseCount(b)
	}
	if b, found, err := d.ReadFile(ralphdir.LastReset); err == nil && found {
		w.Hour, _ = parseHour(b)
	}
	return w
}

// Save writes w as the bash loop does: the count, then the hour, each
// followed by a newline, each atomically. The count goes first so that a
// crash in between leaves an old hour (which rolls over to 0), never a new
// hour with an old count.
func Save(d *ralphdir.Dir, w Window) error {
	if w.Count < 0 {
		return fmt.Errorf("save call count: negative count %d", w.Count)
	}
	if err := d.WriteFile(ralphdir.CallCount, []byte(strconv.Itoa(w.Count)+"\n")); err != nil {
		return fmt.Errorf("save call count: %w", err)
	}
	if err := d.WriteFile(ralphdir.LastReset, []byte(w.Hour+"\n")); err != nil {
		return fmt.Errorf("save call window: %w", err)
	}
	return nil
}

func parseCount(b []byte) (int, error) {
	s := string(bytes.TrimSpace(b))
	if s == "" {
		return 0, nil
	}
	if !allDigits(s) {
		return 0, fmt.Errorf("call count %q is not a non-negative integer", clip(s))
	}
	n, err := strconv.Atoi(s)
	if err != nil {
		return 0, errors.New("call count is out of range")
	}
	return n, nil
}

func parseHour(b []byte) (string, error) {
	s := string(bytes.TrimSpace(b))
	if s == "" {
		return "", nil
	}
	if len(s) != len(HourLayout) || !allDigits(s) {
		return "", fmt.Errorf("hour %q is not YYYYMMDDHH", clip(s))
	}
	return s, nil
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

func clip(s string) string {
	if len(s) > 40 {
		return s[:40] + "..."
	}
	return s
}
