package engine

import (
	"context"
	"testing"
	"time"
)

func TestStopperSkip(t *testing.T) {
	t.Parallel()
	s := NewStopper(context.Background(), false, time.Now)
	if s.Skip() {
		t.Fatal("Skip outside a wait reported a skip")
	}
	ch := s.beginWait()
	if !s.Skip() {
		t.Fatal("Skip during a wait (no terminal) did not skip")
	}
	select {
	case <-ch:
	default:
		t.Fatal("the wait's channel is still open")
	}
	if s.Skip() || s.Context().Err() != nil {
		t.Fatal("a second Skip skipped again or stopped the loop")
	}
	s.endWait()
}
