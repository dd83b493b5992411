package store

import (
	"fmt"

	"github.com/ralphloop/ralph_loop/internal/events"
)

// Apply implements events.ChangeSink: it writes the state file c belongs
// to, atomically, and returns the write's error for the engine to report.
// Every write's error is returned, worded with what it means.
func (s *Store) Apply(c events.Change) error {
	if ok, err := s.applyLoop(c); ok {
		return err
	}
	if ok, err := s.applyContext(c); ok {
		return err
	}
	if ok, err := s.applySession(c); ok {
		return err
	}
	return fmt.Errorf("store: unknown change %T", c)
}

// applyLoop writes the state the loop decides from: the call count, the
// breaker, the last analysis, the exit signals and histories, the gates.
func (s *Store) applyLoop(c events.Change) (bool, error) {
	switch c := c.(type) {
	case events.WindowChanged:
		return true, s.saveWindow(c.Window)
	case events.BreakerChecked:
		return true, s.saveBreakerStartup(c)
	case events.BreakerRecorded:
		return true, s.saveBreakerRecorded(c)
	case events.AnalysisRecorded:
		return true, s.saveAnalysis(c.Analysis)
	case events.AnalysisCleared:
		return true, s.removeAnalysis()
	case events.ExitSignalsChanged:
		return true, s.saveExitSignals(c.Signals)
	case events.ErrorHistoryChanged:
		return true, s.saveErrorHistory(c.History)
	case events.OutputLengthChanged:
		return true, s.saveOutputLength(c.Length)
	case events.GatesRecorded:
		return true, s.saveGates(c.Results)
	}
	return false, nil
}

// applyContext writes what one loop hands the next: review findings, the
// start commit and diff summary, the write-timeout mark, the plan.
func (s *Store) applyContext(c events.Change) (bool, error) {
	switch c := c.(type) {
	case events.FindingsRecorded:
		return true, s.saveFindings(c.Findings)
	case events.FindingsCleared:
		return true, s.removeFindings()
	case events.ReviewSHARecorded:
		return true, s.saveReviewSHA(c.SHA)
	case events.LoopStarted:
		return true, s.saveLoopStart(c.SHA)
	case events.DiffSummaryRecorded:
		return true, s.saveDiffSummary(c.Text)
	case events.DiffSummaryTaken:
		return true, s.removeDiffSummary()
	case events.WriteTimeoutMarked:
		return true, s.markWriteTimeout(c.At)
	case events.WriteTimeoutCleared:
		return true, s.clearWriteTimeout()
	case events.PlanCollapsed:
		return true, s.savePlan(c.Content)
	}
	return false, nil
}

// applySession writes the session files.
func (s *Store) applySession(c events.Change) (bool, error) {
	switch c := c.(type) {
	case events.SessionStarted:
		return true, s.startSession(c.At)
	case events.SessionTouched:
		return true, s.touchSession(c.At)
	case events.SessionIDSaved:
		return true, s.saveSessionID(c.ID, c.At)
	case events.FallbackSessionIDSaved:
		return true, s.saveFallbackID(c.Driver, c.ID, c.At)
	case events.SessionReset:
		return true, s.resetSession(c.Reason, c.Loop, c.At)
	}
	return false, nil
}
