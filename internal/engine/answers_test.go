package engine

import (
	"context"
	"io"
	"testing"
	"testing/synctest"
	"time"

	"github.com/ralphloop/ralph_loop/internal/events"
	"github.com/ralphloop/ralph_loop/internal/observe"
)

// TestQuestionsShareOneReader: a question nobody answered (it timed out
// after 30 s) leaves no reader behind to steal the answer to the next one;
// two questions in a row then both get their answer, in order.
func TestQuestionsShareOneReader(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		in, person := io.Pipe()
		l := &loop{ctx: context.Background(), bus: observe.New(time.Now, "test"), deps: Deps{Stdin: in}}
		var w events.UsageWindow

		start := time.Now()
		if l.askExit(w) {
			t.Fatal("an unanswered question chose to stop")
		}
		if waited := time.Since(start); waited != 30*time.Second {
			t.Fatalf("the unanswered question waited %s, want 30s", waited)
		}

		for i, answer := range []string{"2", "1", "2"} {
			got := make(chan bool, 1)
			go func() { got <- l.askExit(w) }()
			synctest.Wait()
			if _, err := io.WriteString(person, answer+"\n"); err != nil {
				t.Fatal(err)
			}
			if stop := <-got; stop != (answer == "2") {
				t.Errorf("question %d answered %q: stop = %v", i+2, answer, stop)
			}
		}
		person.Close() // the reader ends at EOF
		if l.askExit(w) {
			t.Error("a question at end of input chose to stop")
		}
		synctest.Wait()
	})
}
