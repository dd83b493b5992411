// Package console shows the loop to a person: it renders the engine's
// notices (events.Notice) as the log lines, boxes, banners, countdowns
// and live agent output a run prints, and owns the terminal they go to.
//
//   - Terminal is the one writer of stdout and stderr while the loop runs:
//     one ordered queue that never blocks, so a redrawn countdown is
//     always ended before another line is printed and nothing is glued to
//     a line on the other stream.
//   - Console (New) is the bus sink for the screen: log lines
//     ("[stamp] [LEVEL] msg", coloured by level on a terminal) on one
//     stream, boxes, banners, the live output and countdowns on the other.
//   - Log (NewLog) is the bus sink that hands the same log lines, without
//     colour, to a LineSink: logs/ralph.log, which bmalph's dashboard
//     parses.
//
// Both render through one renderer, so the wording, level and order of
// every line are written once (render.go) and the console and ralph.log
// cannot drift apart. The words are the bash loop's, kept byte for byte.
//
// A new notice is a type in package events and one case in render.go,
// with a golden line in render_test.go.
package console
