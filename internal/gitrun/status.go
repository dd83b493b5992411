package gitrun

import (
	"context"
	"strings"
)

// One `git status` answers two of the loop's questions after each call:
// the tree's mark and which of the diffs Changes runs can print anything
// at all (Changes answers both). An agent that commits its work leaves a
// clean tree, and an agent that leaves an edit rarely stages it, so most
// loops need one diff or none.

// runStatus is `git status --porcelain=v2` of every changed, staged,
// deleted and untracked (not ignored) file, renames not paired, read.
// GIT_OPTIONAL_LOCKS=0: a look, not a refresh of the index (no write, no
// index.lock taken beside the agent's own git).
func (g *repo) runStatus(ctx context.Context) (status, error) {
	env := append(g.env[:len(g.env):len(g.env)], "GIT_OPTIONAL_LOCKS=0")
	out, err := runIn(ctx, g.dir, env, "status", "--porcelain=v2", "-z", "--untracked-files=all", "--no-renames")
	if err != nil {
		if Stuck(err) {
			g.warned.note(err) // as run says it
		}
		return status{}, err
	}
	return parseStatus(out), nil
}

// status is `git status --porcelain=v2 -z` read: one entry per path.
type status []statusEntry

// statusEntry is one path of a status: kind is the record's type ('1' a
// changed entry, '2' a renamed or copied one, 'u' unmerged, '?' untracked,
// '!' ignored), xy its two status letters ("M." staged, ".M" changed in
// the working tree, "??" untracked), path its name from the top, as it is
// (no quoting).
type statusEntry struct {
	kind byte
	xy   string
	path string
}

// parseStatus reads porcelain v2's -z records: "1 XY sub mH mI mW hH hI
// path", "2 XY sub mH mI mW hH hI Xscore path" followed by the source's
// record, "u XY sub m1 m2 m3 mW h1 h2 h3 path", "? path", "! path". A
// record it does not know is left out.
func parseStatus(out string) status {
	var st status
	records := strings.Split(out, "\x00")
	for i := 0; i < len(records); i++ {
		r := records[i]
		if len(r) < 3 || r[1] != ' ' {
			continue
		}
		var fields int // the space-separated fields before the path
		switch r[0] {
		case '1':
			fields = 8
		case '2':
			fields = 9
			i++ // the next record is the source's path
		case 'u':
			fields = 10
		case '?', '!':
			st = append(st, statusEntry{kind: r[0], xy: r[:1] + r[:1], path: r[2:]})
			continue
		default:
			continue
		}
		f := strings.SplitN(r, " ", fields+1)
		if len(f) != fields+1 || len(f[1]) != 2 {
			continue
		}
		st = append(st, statusEntry{kind: r[0], xy: f[1], path: f[fields]})
	}
	return st
}

// diffs reports which of the diffs Changes runs can print a path that is
// not the loop's own (owned): work, the working tree against the index;
// staged, the index against HEAD. A rename or an unmerged path asks for
// both: git is asked rather than guessed for.
func (st status) diffs(owned func(string) bool) (work, staged bool) {
	for _, e := range st {
		switch e.kind {
		case '?', '!':
			continue
		case '1':
		default:
			return true, true
		}
		if owned(e.path) {
			continue
		}
		if e.xy[0] != '.' {
			staged = true
		}
		if e.xy[1] != '.' {
			work = true
		}
	}
	return work, staged
}
