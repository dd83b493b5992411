package engine

// saveFailed reports a failed save the observers' fan did not see (the
// store's start-up load creating .exit_signals): once, as a warning that
// says what could not be written and what that means. A save reported to
// the fan is warned of by the fan itself.
func (l *loop) saveFailed(err error) { l.warn(err) }
