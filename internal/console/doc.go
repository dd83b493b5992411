// Package console shows the loop to a person: it lays out what the
// engine's reports say (the words each value knows, events.Line) as the
// log lines, boxes, banners, countdowns and live agent output a run
// prints, and owns the terminal they go to. It adds no word of its own.
//
//   - Terminal is the one writer of stdout and stderr while the loop runs:
//     one ordered queue that never blocks, so a redrawn countdown is
//     always ended before another line is printed and nothing is glued to
//     a line on the other stream.
//   - Console (New) is the observer for the screen: log lines
//     ("[stamp] [LEVEL] msg", coloured by level on a terminal) on one
//     stream, boxes, banners, the live output and countdowns on the other.
//   - Log (NewLog) is the observer that hands the same log lines, without
//     colour, to a LineSink: logs/ralph.log, which bmalph's dashboard
//     parses.
//
// Both show through one speaker, which answers every method of
// observe.Observer with the Lines of the value it carries, laid out by
// layout.go (colours, redrawn lines, the countdown's once-a-minute line,
// boxes fitted to the terminal), so the console and ralph.log cannot
// drift apart. A new line is words of a value in package events; nothing
// here changes.
package console
