package main

import (
	"io"

	"github.com/ralphloop/ralph_loop/console"
	"github.com/ralphloop/ralph_loop/events"
	"github.com/ralphloop/ralph_loop/ralphdir"
	"github.com/ralphloop/ralph_loop/store"
)

// wire attaches the standard sinks of a run to bus: the console (log
// lines on errOut; boxes, live output and countdowns on boxOut),
// logs/ralph.log and the .ralph/ files (with the --events copy to
// eventsOut, nil for none); onErr receives their write errors. It returns
// the state store the engine writes through.
func wire(bus *events.Bus, dir *ralphdir.Dir, boxOut, errOut io.Writer, shown console.Options, eventsOut io.Writer, onErr func(error)) *store.Store {
	bus.SetWords(console.EventWords())
	bus.Add(console.New(boxOut, errOut, shown), console.NewLog(events.NewRalphLog(dir, onErr), shown))
	bus.Add(store.Sinks(dir, eventsOut, onErr)...)
	return store.New(dir, func(level, msg string) { bus.Log(events.Level(level), "%s", msg) }, shown.Verbose)
}
