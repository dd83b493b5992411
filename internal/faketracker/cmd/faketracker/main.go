// Command faketracker is internal/faketracker as a program of its own:
// linked or copied under the name bd or gh, it answers as that tracker's
// CLI over the state file named by $FAKE_TRACKER_STATE.
package main

import "github.com/ralphloop/ralph_loop/internal/faketracker"

func main() { faketracker.Main() }
