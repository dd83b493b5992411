package session

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
	"time"

	"github.com/ralphloop/ralph_loop/internal/ralphdir"
)

// FallbackResumeID is ResumeID for the fallback driver's own session file
// (ralphdir.FallbackSessionID(driver)), so that one CLI's session id is
// never handed to another: the same validation and expiry, the age taken
// from the file alone (.ralph_session follows the main driver's session),
// and log lines that name the driver.
func (s *Store) FallbackResumeID(driver string, now time.Time, expiry time.Duration) (string, error) {
	name := ralphdir.FallbackSessionID(driver)
	info, err := s.d.Lstat(name)
	if errors.Is(err, fs.ErrNotExist) {
		s.log(LevelInfo, "Starting new "+driver+" session")
		return "", nil
	}
	if err != nil || info.ModTime().Unix() <= 0 {
		s.log(LevelWarn, "Could not determine the age of the "+driver+" session, starting new session")
		return "", s.d.Remove(name)
	}
	var f idFile
	found, err := s.d.ReadValid(name, func(b []byte) error {
		var perr error
		f, perr = parseIDFile(b)
		return perr
	})
	if err != nil {
		return "", fmt.Errorf("read %s session id: %w", driver, err)
	}
	if !found || f.id == "" {
		s.log(LevelInfo, "Starting new "+driver+" session")
		return "", nil
	}
	age := now.Sub(info.ModTime())
	if f.hasStamp {
		age = max(age, now.Sub(f.stamp))
	}
	if age >= expiry {
		s.log(LevelInfo, fmt.Sprintf("%s session expired (%dh old, max %sh), starting new session", driver, wholeHours(age), hoursText(expiry)))
		return "", s.d.Remove(name)
	}
	s.log(LevelInfo, fmt.Sprintf("Resuming %s session: %s... (%dh old)", driver, short(f.id), wholeHours(age)))
	return f.id, nil
}

// SaveFallbackID keeps the fallback driver's session id in its own file,
// as SaveID keeps the main driver's (an empty id ignored, an invalid one
// ignored with a warning); .ralph_session is left alone.
func (s *Store) SaveFallbackID(driver, id string, now time.Time) error {
	id = strings.TrimSpace(id)
	if id == "" {
		return nil
	}
	if !ValidID(id) {
		s.log(LevelWarn, fmt.Sprintf("Ignoring invalid %s session id %s from the agent's output; keeping the previous session", driver, quoteClip(id)))
		return nil
	}
	if err := s.d.WriteFile(ralphdir.FallbackSessionID(driver), []byte(id+"\n")); err != nil {
		return fmt.Errorf("save %s session id: %w", driver, err)
	}
	s.log(LevelInfo, "Saved "+driver+" session: "+short(id)+"...")
	return nil
}

// clearFallbackIDs removes every fallback driver's session file (a reset
// ends them with the main one). Quarantined copies are left alone.
func (s *Store) clearFallbackIDs() error {
	matches, _ := filepath.Glob(filepath.Join(s.d.Root(), ralphdir.FallbackSessionPrefix+"*"))
	var errs []error
	for _, m := range matches {
		name := filepath.Base(m)
		if strings.Contains(strings.TrimPrefix(name, ralphdir.FallbackSessionPrefix), ".") {
			continue
		}
		errs = append(errs, s.d.Remove(name))
	}
	return errors.Join(errs...)
}
