package supervise

import "time"

// clock times Run's limits (Timeout, Inactivity, WriteTimeout) and the
// call's Duration: the real clock, or one a test moves by hand. The stop
// ladder's grace and the sweeps of escaped processes wait for real
// processes and always use real time.
type clock interface {
	Now() time.Time
	// AfterFunc calls f in its own goroutine once d has passed; the
	// returned func cancels it (false if f was already called).
	AfterFunc(d time.Duration, f func()) (stop func() bool)
}

type realClock struct{}

func (realClock) Now() time.Time { return time.Now() }

func (realClock) AfterFunc(d time.Duration, f func()) func() bool {
	return time.AfterFunc(d, f).Stop
}

// clockOf is o's clock: the real one unless a test set another.
func (o Options) clockOf() clock {
	if o.clock != nil {
		return o.clock
	}
	return realClock{}
}

// sendTo returns a func that sends on c (made with room for one) without
// blocking: a timer's callback.
func sendTo(c chan struct{}) func() {
	return func() {
		select {
		case c <- struct{}{}:
		default:
		}
	}
}
