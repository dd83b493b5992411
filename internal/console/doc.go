// Package console shows the loop to a person: it words the engine's
// reports (the happenings that have words, happenings.go, and the notices,
// events.Notice, render.go) as the log lines, boxes, banners, countdowns
// and live agent output a run prints, and owns the terminal they go to.
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
// Both word through one speaker, so the wording, level and order of every
// line are written once (happenings.go, render.go) and the console and
// ralph.log cannot drift apart. The words are the bash loop's, kept byte for byte.
//
// A new notice is a type in package events and one case in render.go,
// with a golden line in render_test.go; a happening's words are a speaker
// method in happenings.go.
package console
