package main

import (
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/ralphloop/ralph_loop/internal/config"
	"github.com/ralphloop/ralph_loop/internal/console"
	"github.com/ralphloop/ralph_loop/internal/dashboard"
	"github.com/ralphloop/ralph_loop/internal/events"
	"github.com/ralphloop/ralph_loop/internal/notify"
	"github.com/ralphloop/ralph_loop/internal/observe"
	"github.com/ralphloop/ralph_loop/internal/ralphdir"
	"github.com/ralphloop/ralph_loop/internal/store"
)

// wire adds the standard observers of a run to bus: the console (log
// lines on errOut; boxes, live output and countdowns on boxOut),
// logs/ralph.log and the .ralph/ files (with the --events copy to
// eventsOut, nil for none); onErr receives the event files' write errors.
// It returns the state store, which the engine reads at start-up, saves
// the kept state through (an engine.Keeper: the engine warns of a failed
// save on bus) and opens its logs through; bus hears what Load carried on
// from.
func wire(bus *observe.Fan, dir *ralphdir.Dir, boxOut, errOut io.Writer, shown console.Options, eventsOut io.Writer, onErr func(error)) *store.Store {
	bus.Add(console.New(boxOut, errOut, shown), console.NewLog(store.NewRalphLog(dir, onErr), shown))
	bus.Add(store.Sinks(dir, eventsOut, onErr)...)
	return store.New(dir, func(level, msg string) { bus.Log(events.Level(level), "%s", msg) },
		func(err error) { bus.Warned(time.Time{}, events.Warn, err) }, shown.Verbose)
}

// wireDashboard adds the web dashboard to bus: every event and notice
// (live output included) makes it read the project again (after the
// store's observers, added before it, have written their files).
func wireDashboard(bus *observe.Fan, srv *dashboard.Server) {
	bus.Add(dashboard.Poker(srv.Poke))
}

// wireNotify adds the notifiers to bus when any is configured, and returns
// them (nil for none) for the run's end to drain.
func wireNotify(cfg *config.Config, bus *observe.Fan, dir *ralphdir.Dir, cwd string) *notify.Notifier {
	warn := func(msg string) { bus.Log(events.Warn, "%s", msg) }
	var once sync.Once
	log := func(block string) {
		if err := dir.AppendLine(ralphdir.HooksLog, block); err != nil {
			once.Do(func() { warn(fmt.Sprintf("notify: cannot write the hooks' log: %v", err)) })
		}
	}
	nc := notifyConfig(cfg, cwd, log, warn)
	n := notify.New(nc)
	if n == nil {
		return nil
	}
	for _, name := range notify.Unknown(cfg.NotifyOn) {
		warn("NOTIFY_ON: '" + name + "' is not an event type this version emits (docs/NOTIFY.md lists them); it selects nothing")
	}
	bus.Add(n)
	return n
}
