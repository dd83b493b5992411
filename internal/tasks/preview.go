package tasks

import (
	"context"
	"errors"
	"strings"

	"github.com/ralphloop/ralph_loop/internal/fixplan"
)

// probe is one of --doctor's checks of a tracker's CLI.
type probe struct {
	what string // version, login, database
	argv []string
}

// Check is one line of --doctor about a tracker.
type Check struct {
	Tracker string
	What    string // cli, version, login, database, writeback
	OK      bool
	Skipped bool
	Text    string
}

// Doctor checks each tracker's CLI: that it runs (its version) and that
// it can reach its items (gh's login, bd's database), with the commands a
// run uses; and says whether claims and write-back are on.
func (t *Tracker) Doctor(ctx context.Context) []Check {
	var out []Check
	for _, s := range t.sources {
		for _, p := range s.probes() {
			stdout, err := t.r.exec(ctx, p.argv...)
			c := Check{Tracker: s.name(), What: p.what, OK: err == nil}
			switch {
			case err != nil:
				c.Text = err.Error()
			case p.what == "version":
				c.Text = firstLine(stdout)
			default:
				c.Text = "'" + strings.Join(p.argv, " ") + "' works"
			}
			out = append(out, c)
			var ce *CLIError
			if errors.As(err, &ce) && ce.NotFound {
				break // the rest cannot run either
			}
		}
	}
	w := Check{Tracker: "all", What: "writeback", OK: true, Skipped: !t.o.Writeback}
	if t.o.Writeback {
		w.Text = "claims and write-back are on (TASK_WRITEBACK)"
		if t.o.CloseIssues {
			w.Text += "; done GitHub issues are closed (GITHUB_CLOSE_ISSUES)"
		}
	} else {
		w.Text = "claims and write-back are off: items are imported, never claimed or closed (TASK_WRITEBACK=true or --task-writeback turns them on)"
	}
	return append(out, w)
}

func firstLine(b []byte) string {
	l, _, _ := strings.Cut(strings.TrimSpace(string(b)), "\n")
	return shown(strings.TrimSpace(l))
}

// Preview is what --dry-run shows of the trackers: the commands a run
// would run, and the items the import would bring into the plan now (the
// read-only list commands run; nothing is claimed, written or closed).
type Preview struct {
	Writeback bool             `json:"writeback"`
	Trackers  []TrackerPreview `json:"trackers"`
}

// TrackerPreview is one tracker's part of the preview.
type TrackerPreview struct {
	Tracker  string        `json:"tracker"`
	Section  string        `json:"section"`
	Commands []string      `json:"commands"`
	Items    []PreviewItem `json:"items"`
	Error    string        `json:"error,omitempty"`
}

// PreviewItem is one item the import would write into the plan: New when
// its line is not there yet.
type PreviewItem struct {
	Key   string `json:"key"`
	Title string `json:"title"`
	New   bool   `json:"new"`
}

// Preview lists, per tracker, the commands and the items to import.
func (t *Tracker) Preview(ctx context.Context) Preview {
	p := Preview{Writeback: t.o.Writeback}
	plan, _ := t.readPlan()
	m, _ := loadMap(t.o.Dir)
	for _, s := range t.sources {
		tp := TrackerPreview{Tracker: s.name(), Section: s.heading(), Commands: s.commands(t.o.Writeback), Items: []PreviewItem{}}
		held := func(key string) bool { r := m.get(key); return r != nil && r.Claimed }
		items, err := s.list(ctx, held)
		if err != nil {
			tp.Error = err.Error()
		}
		lines, _ := fixplan.Section(plan, s.heading())
		for _, it := range items {
			isNew := true
			for _, l := range lines {
				if l.Key == it.Key {
					isNew = false
				}
			}
			tp.Items = append(tp.Items, PreviewItem{Key: it.Key, Title: it.Title, New: isNew})
		}
		if g, ok := s.(*github); ok {
			tp.Commands = g.commands(t.o.Writeback) // with the repository it resolved
		}
		p.Trackers = append(p.Trackers, tp)
	}
	return p
}

// quoteArgs is argv as a shell would read it back: an argument with a
// blank or a shell character is single-quoted.
func quoteArgs(argv []string) string {
	out := make([]string, len(argv))
	for i, a := range argv {
		if a == "" || strings.ContainsAny(a, " \t\n'\"\\$`*?[]{}()<>|&;#~!") {
			a = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
		out[i] = a
	}
	return strings.Join(out, " ")
}
