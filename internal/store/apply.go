package store

import (
	"fmt"

	"github.com/ralphloop/ralph_loop/breaker"
	"github.com/ralphloop/ralph_loop/internal/events"
)

// Apply implements events.ChangeSink: it writes the state file c belongs
// to, atomically, and returns the write's error for the engine to report.
// Some changes have no error to report (as the bash loop ignores those
// writes' failures); they return nil.
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
		return true, breaker.SaveStartup(s.d, c.State, c.Transition, c.Created)
	case events.BreakerRecorded:
		return true, breaker.SaveRecorded(s.d, c.State, c.Transition)
	case events.AnalysisRecorded:
		return true, s.saveAnalysis(c.Analysis)
	case events.AnalysisCleared:
		s.removeAnalysis()
		return true, nil
	case events.ExitSignalsChanged:
		return true, s.saveExitSignals(c.Signals)
	case events.ErrorHistoryChanged:
		s.saveErrorHistory(c.History)
		return true, nil
	case events.OutputLengthChanged:
		s.saveOutputLength(c.Length)
		return true, nil
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
		s.removeFindings()
	case events.ReviewSHARecorded:
		s.saveReviewSHA(c.SHA)
	case events.LoopStarted:
		s.saveLoopStart(c.SHA)
	case events.DiffSummaryRecorded:
		s.saveDiffSummary(c.Text)
	case events.DiffSummaryTaken:
		s.removeDiffSummary()
	case events.WriteTimeoutMarked:
		s.markWriteTimeout(c.At)
	case events.WriteTimeoutCleared:
		s.clearWriteTimeout()
	case events.PlanCollapsed:
		return true, s.savePlan(c.Content)
	default:
		return false, nil
	}
	return true, nil
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
		return true, s.sessions.SaveFallbackID(c.Driver, c.ID, c.At)
	case events.SessionReset:
		return true, s.resetSession(c.Reason, c.Loop, c.At)
	}
	return false, nil
}
