package tasks

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/ralphloop/ralph_loop/internal/events"
	"github.com/ralphloop/ralph_loop/internal/fixplan"
	"github.com/ralphloop/ralph_loop/internal/ralphdir"
	"github.com/ralphloop/ralph_loop/internal/supervise"
)

// Options are a Tracker's settings and connections.
type Options struct {
	Sources     []string      // TASK_SOURCES: local, beads, github
	Label       string        // GITHUB_TASK_LABEL
	Filter      string        // BEADS_FILTER
	Writeback   bool          // TASK_WRITEBACK (the person's only): claims and write-back
	CloseIssues bool          // GITHUB_CLOSE_ISSUES (the person's only)
	Timeout     time.Duration // TASK_TIMEOUT: one command's limit
	Project     string        // the project: the CLIs run there
	Dir         *ralphdir.Dir // .ralph/: the plan and the map
	Env         []string      // the loop's environment
	// Run runs one command (supervise.Run when nil).
	Run func(context.Context, supervise.Command, supervise.Options) supervise.Outcome
	// Worker and SwarmDir: a --swarm worker's name ("worker-2") and the
	// swarm's folder; "" for a loop of its own.
	Worker, SwarmDir string
	// NoHooks: a sandbox is on, so bd runs none of the repository's
	// .beads/hooks (they would run outside it): BD_NO_HOOKS=1.
	NoHooks bool
	// Gates: quality gates are configured, so a write-back can say they
	// passed.
	Gates bool
}

// Tracker is the plan's tracked items: it syncs the trackers into the
// plan's sections, claims the item the next call works on, writes back
// the items whose lines were ticked once the gates pass, and gives back
// the claims the run ends with. It is the engine's Tasks.
type Tracker struct {
	o       Options
	r       *runner // every tracker command runs through it
	sources []source
	m       *trackMap
	// items are what the trackers last said of each key, for the context.
	items map[string]Item
	// pending are keys ticked by a call, waiting for passing gates.
	pending map[string]bool
	// failing are the last error shown per tracker and step, so that the
	// same failure is said once until it changes or the step works again.
	failing map[string]string
	// loaded: the map was read (once, at the first sync).
	loaded bool
}

// New returns the Tracker of the sources o names, with the warnings to
// show once (an unknown source, a BEADS_FILTER that cannot be read); nil
// when no tracker is named (TASK_SOURCES empty or local).
func New(o Options) (*Tracker, []string) {
	var warns []string
	r := newRunner(o)
	t := &Tracker{o: o, r: r, items: map[string]Item{}, pending: map[string]bool{}, failing: map[string]string{}}
	for _, name := range o.Sources {
		switch name {
		case "local":
		case "beads":
			if slices.ContainsFunc(t.sources, func(s source) bool { return s.name() == name }) {
				continue
			}
			filter, err := parseBeadsFilter(o.Filter)
			if err != nil {
				warns = append(warns, err.Error()+"; nothing is imported from beads")
				continue
			}
			t.sources = append(t.sources, &beads{r: r, filter: filter, actor: o.actor()})
		case "github":
			if slices.ContainsFunc(t.sources, func(s source) bool { return s.name() == name }) {
				continue
			}
			if o.Label == "" {
				warns = append(warns, "GITHUB_TASK_LABEL is empty; nothing is imported from GitHub (name the label of the issues to import)")
				continue
			}
			g := &github{r: r, label: o.Label, closeIssues: o.CloseIssues}
			if o.Worker != "" && o.SwarmDir != "" {
				g.claims = &claimDir{dir: filepath.Join(o.SwarmDir, "claims"), worker: o.Worker}
			}
			t.sources = append(t.sources, g)
		default:
			warns = append(warns, fmt.Sprintf("TASK_SOURCES: %q is not a source ralph_loop reads (local, beads, github); ignored", shown(name)))
		}
	}
	if len(t.sources) == 0 {
		return nil, warns
	}
	return t, warns
}

// actor is the name this loop claims beads as: bd's claim is atomic
// between names, and a claim by the name that holds an item succeeds
// again, so two loops of one person need names of their own. It is the
// person's (BEADS_ACTOR, BD_ACTOR or USER from the environment), then a
// swarm worker's name, or for a loop of its own "ralph-" and a digest of
// the machine and the project's folder: the same for every run in that
// folder, whose claims it takes up again.
func (o Options) actor() string {
	base := "ralph_loop"
	for _, name := range []string{"BEADS_ACTOR", "BD_ACTOR", "USER"} {
		if v := envValue(o.Env, name); v != "" {
			base = v
			break
		}
	}
	if o.Worker != "" {
		return base + "/" + o.Worker
	}
	host, _ := os.Hostname()
	sum := sha256.Sum256([]byte(host + "\x00" + o.Project))
	return base + "/ralph-" + hex.EncodeToString(sum[:3])
}

func envValue(env []string, name string) string {
	for i := len(env) - 1; i >= 0; i-- {
		if v, ok := strings.CutPrefix(env[i], name+"="); ok {
			return v
		}
	}
	return ""
}

// source returns the tracker named name (nil when it is not on).
func (t *Tracker) source(name string) source {
	for _, s := range t.sources {
		if s.name() == name {
			return s
		}
	}
	return nil
}

// news collects what happened in one step, for the engine to report.
type news []events.Task

func (n *news) add(t events.Task) { *n = append(*n, t) }

// fail adds a tracker_error, unless the same error was the last one said
// for this tracker and step.
func (t *Tracker) fail(n *news, s source, op string, err error) {
	if errors.Is(err, errCanceled) {
		return
	}
	msg := err.Error()
	if t.failing[s.name()+op] == msg {
		return
	}
	t.failing[s.name()+op] = msg
	n.add(events.Task{Kind: events.TrackerError, Tracker: s.name(), Op: op, Err: msg})
}

// worked forgets the failure of a step that now worked.
func (t *Tracker) worked(s source, op string) { delete(t.failing, s.name()+op) }

// readPlan reads the plan; found is false when there is none.
func (t *Tracker) readPlan() ([]byte, error) {
	data, _, err := t.o.Dir.ReadFile(ralphdir.FixPlan)
	return data, err
}

// writePlan writes the plan when it changed.
func (t *Tracker) writePlan(before, after []byte) error {
	if string(before) == string(after) {
		return nil
	}
	return t.o.Dir.WriteFile(ralphdir.FixPlan, after)
}

// load reads the map once.
func (t *Tracker) load() error {
	if t.loaded {
		return nil
	}
	m, err := loadMap(t.o.Dir)
	t.m, t.loaded = m, true
	return err
}

// Next runs before each agent call: it syncs every tracker into its
// section of the plan, claims the item the call will work on (with
// TASK_WRITEBACK), and returns the block the call's context gets about
// that item ("" when the next task is no tracker's) and what happened.
// A tracker that fails leaves its section as it was: that sync is
// skipped with a tracker_error, never the run.
func (t *Tracker) Next(ctx context.Context) (string, []events.Task) {
	var n news
	if err := t.load(); err != nil {
		n.add(events.Task{Kind: events.TrackerError, Tracker: "map", Op: "read", Err: err.Error()})
	}
	plan, err := t.readPlan()
	if err != nil {
		n.add(events.Task{Kind: events.TrackerError, Tracker: t.sources[0].name(), Op: "sync", Err: err.Error()})
		return "", n
	}
	synced := plan
	for _, s := range t.sources {
		synced = t.sync(ctx, s, synced, &n)
	}
	if t.o.Writeback {
		synced = t.claimNext(ctx, synced, &n)
	}
	if err := t.writePlan(plan, synced); err != nil {
		n.add(events.Task{Kind: events.TrackerError, Tracker: t.sources[0].name(), Op: "sync", Err: err.Error()})
		return "", n
	}
	t.save(&n)
	return t.brief(ctx, synced, &n), n
}

// save writes the map, saying so when it cannot.
func (t *Tracker) save(n *news) {
	if err := t.m.save(t.o.Dir); err != nil {
		n.add(events.Task{Kind: events.TrackerError, Tracker: "map", Op: "save", Err: err.Error()})
	}
}

// sync brings s's section of plan up to date with what s lists: titles
// renewed, new items added, items closed in the tracker ticked, items
// that left it (taken by someone else, no longer labelled, deleted)
// dropped unless ticked or claimed by this loop. Ticks the plan has are
// kept. It returns the new plan.
func (t *Tracker) sync(ctx context.Context, s source, plan []byte, n *news) []byte {
	held := func(key string) bool { r := t.m.get(key); return r != nil && r.Claimed && r.Tracker == s.name() }
	listed, err := s.list(ctx, held)
	if err != nil {
		t.fail(n, s, "sync", err)
		return plan
	}
	t.worked(s, "sync")
	lines, _ := fixplan.Section(plan, s.heading())
	listed, over := capItems(listed, lines, held)
	byKey := map[string]Item{}
	for _, it := range listed {
		byKey[it.Key] = it
		t.items[it.Key] = it
	}
	var out []fixplan.Tracked
	var missing []record
	seen := map[string]bool{}
	for _, l := range lines {
		if seen[l.Key] {
			continue // a line written twice: the first one counts
		}
		seen[l.Key] = true
		r := t.m.put(l.Key, s.name())
		if it, ok := byKey[l.Key]; ok {
			r.ID, r.Title, r.URL = it.ID, it.Title, it.URL
			if it.Status == "DONE" && !r.finished() {
				// finished by another machine's loop, not yet closed
				r.Closed, r.Claimed = true, false
				delete(t.pending, l.Key)
				n.add(events.Task{Kind: events.TaskClosed, Tracker: s.name(), Keys: []string{l.Key}, Title: r.Title, Note: "was finished by another loop"})
			}
			out = append(out, fixplan.Tracked{Key: l.Key, Title: it.Title, Done: l.Done || r.finished()})
			continue
		}
		if r.ID == "" {
			r.ID = strings.TrimPrefix(l.Key, "#")
		}
		out = append(out, l)
		if !l.Done && !r.finished() || r.Claimed {
			missing = append(missing, *r)
		}
	}
	out = t.settle(ctx, s, out, missing, n)
	var added []string
	for _, it := range listed {
		if seen[it.Key] {
			continue // its line is there, or the tracker listed it twice
		}
		seen[it.Key] = true
		r := t.m.put(it.Key, s.name())
		r.ID, r.Title, r.URL = it.ID, it.Title, it.URL
		r.Closed = it.Status == "DONE"
		out = append(out, fixplan.Tracked{Key: it.Key, Title: it.Title, Done: r.finished()})
		added = append(added, it.Key)
	}
	if len(added) > 0 {
		imported := events.Task{Kind: events.TaskImported, Tracker: s.name(), Keys: added}
		if over > 0 {
			imported.Note = fmt.Sprintf("%d more items are left out: the plan takes %d of a tracker's", over, itemsMax)
		}
		n.add(imported)
	}
	t.forget(s, out)
	return fixplan.WithSection(plan, s.heading(), out)
}

// itemsMax is the most items of one tracker the plan takes at a time, so
// that a tracker listing thousands (or a hostile one) cannot swell the
// plan, rewritten before every call, nor the map, a state file of at most
// ralphdir.StateCap.
const itemsMax = 300

// capItems is listed cut to itemsMax, and how many were left out: the
// items that have a line already or a claim of this loop's stay, then the
// others in the tracker's order.
func capItems(listed []Item, lines []fixplan.Tracked, held func(string) bool) ([]Item, int) {
	if len(listed) <= itemsMax {
		return listed, 0
	}
	inPlan := make(map[string]bool, len(lines))
	for _, l := range lines {
		inPlan[l.Key] = true
	}
	kept := make(map[string]bool, itemsMax)
	for _, it := range listed {
		if len(kept) < itemsMax && (inPlan[it.Key] || held(it.Key)) {
			kept[it.Key] = true
		}
	}
	for _, it := range listed {
		if len(kept) < itemsMax {
			kept[it.Key] = true
		}
	}
	out := slices.DeleteFunc(slices.Clone(listed), func(it Item) bool { return !kept[it.Key] })
	return out, len(listed) - len(out)
}

// settle decides the lines of the items that left s's list: closed ones
// are ticked, this loop's claims stay, the rest leave the plan. When s
// cannot say, every line stays as it is.
func (t *Tracker) settle(ctx context.Context, s source, out []fixplan.Tracked, missing []record, n *news) []fixplan.Tracked {
	if len(missing) == 0 {
		return out
	}
	st, err := s.states(ctx, missing)
	if err != nil {
		t.fail(n, s, "sync", err)
		return out
	}
	var keep []fixplan.Tracked
	for _, l := range out {
		if !slices.ContainsFunc(missing, func(r record) bool { return r.Key == l.Key }) {
			keep = append(keep, l)
			continue
		}
		r := t.m.get(l.Key)
		got, ok := st[l.Key]
		if ok {
			t.items[l.Key] = got.item
		}
		switch {
		case ok && got.standing == closed:
			if !r.finished() {
				n.add(events.Task{Kind: events.TaskClosed, Tracker: s.name(), Keys: []string{l.Key}, Title: r.Title, Note: "was closed in " + trackerNames[s.name()]})
			}
			r.Closed, r.Claimed = true, false
			delete(t.pending, l.Key)
			l.Done = true
			keep = append(keep, l)
		case ok && got.standing == claimed:
			keep = append(keep, l)
		case l.Done:
			keep = append(keep, l) // ticked here: it stays ticked
		case r.Claimed:
			// This loop's claim is no longer in the tracker: taken over
			// or reopened by someone.
			r.Claimed = false
		}
	}
	return keep
}

// forget drops the map's records of s that have no line any more, but
// for the claims this loop still has to give back.
func (t *Tracker) forget(s source, lines []fixplan.Tracked) {
	for _, r := range t.m.of(s.name()) {
		if !r.Claimed && !slices.ContainsFunc(lines, func(l fixplan.Tracked) bool { return l.Key == r.Key }) {
			t.m.drop(r.Key)
			delete(t.items, r.Key)
		}
	}
}

// claimNext claims the item of the plan's next open task. A claim lost to
// someone else drops its line and tries the next task; a tracker that
// fails leaves the item unclaimed for this call (tracker_error) and the
// claim is tried again before the next one.
func (t *Tracker) claimNext(ctx context.Context, plan []byte, n *news) []byte {
	for range 20 {
		key := fixplan.TrackedKey(fixplan.NextTask(plan))
		r := t.m.get(key)
		if r == nil || r.Claimed || r.finished() {
			return plan
		}
		s := t.source(r.Tracker)
		if s == nil {
			return plan
		}
		err := s.claim(ctx, r)
		switch {
		case err == nil:
			t.worked(s, "claim")
			r.Claimed = true
			n.add(events.Task{Kind: events.TaskClaimed, Tracker: s.name(), Keys: []string{key}, Title: r.Title})
			return plan
		case errors.Is(err, errTaken):
			n.add(events.Task{Kind: events.TaskTaken, Tracker: s.name(), Keys: []string{key}, Title: r.Title, Note: err.Error()})
			plan = t.without(plan, s, key)
		default:
			t.fail(n, s, "claim", err)
			return plan
		}
	}
	return plan
}

// without is plan with key's line taken out of s's section.
func (t *Tracker) without(plan []byte, s source, key string) []byte {
	lines, _ := fixplan.Section(plan, s.heading())
	lines = slices.DeleteFunc(lines, func(l fixplan.Tracked) bool { return l.Key == key })
	t.m.drop(key)
	delete(t.items, key)
	return fixplan.WithSection(plan, s.heading(), lines)
}

// brief is the fenced block about the next task's item, "" when the next
// task is no tracker's.
func (t *Tracker) brief(ctx context.Context, plan []byte, n *news) string {
	key := fixplan.TrackedKey(fixplan.NextTask(plan))
	r := t.m.get(key)
	if r == nil {
		return ""
	}
	it, ok := t.items[key]
	if !ok {
		it = Item{Key: key, ID: r.ID, Title: r.Title, URL: r.URL}
	}
	if s := t.source(r.Tracker); s != nil {
		if err := s.detail(ctx, &it); err != nil {
			t.fail(n, s, "sync", err)
		}
	}
	return fence(r.Tracker, it)
}

// Done runs after a call whose reply was analysed: ticked are the plan's
// tasks the call ticked (their text without the box), green whether the
// quality gates passed (true when none is configured; false when they
// did not run). With TASK_WRITEBACK each tracked item ticked is written
// back (closed in beads; commented on and labelled, and closed with
// GITHUB_CLOSE_ISSUES, on GitHub) once a call's gates pass with its line
// still ticked. commit is HEAD's short id, for the note.
func (t *Tracker) Done(ctx context.Context, loop int, ticked []string, green bool, commit string) []events.Task {
	if !t.o.Writeback || t.load() != nil {
		return nil
	}
	for _, task := range ticked {
		if r := t.m.get(fixplan.TrackedKey(task)); r != nil && !r.finished() {
			t.pending[r.Key] = true
		}
	}
	if !green || len(t.pending) == 0 {
		return nil
	}
	var n news
	t.flush(ctx, loop, commit, &n)
	t.save(&n)
	return n
}

// flush writes back the pending items whose lines are still ticked.
func (t *Tracker) flush(ctx context.Context, loop int, commit string, n *news) {
	plan, err := t.readPlan()
	if err != nil {
		return
	}
	for _, s := range t.sources {
		lines, _ := fixplan.Section(plan, s.heading())
		for _, l := range lines {
			r := t.m.get(l.Key)
			if !t.pending[l.Key] || r == nil {
				continue
			}
			if !l.Done {
				delete(t.pending, l.Key) // unticked since: not done
				continue
			}
			note, err := s.finish(ctx, *r, summary{Loop: loop, Commit: commit, Gates: t.o.Gates})
			if err != nil {
				t.fail(n, s, "close", err)
				continue
			}
			t.worked(s, "close")
			delete(t.pending, l.Key)
			r.Done, r.Claimed = true, false
			n.add(events.Task{Kind: events.TaskClosed, Tracker: s.name(), Keys: []string{l.Key}, Title: r.Title, Note: note})
		}
	}
	for key := range t.pending {
		if r := t.m.get(key); r == nil {
			delete(t.pending, key) // its line left the plan
		}
	}
}

// stopTimeout and TASK_TIMEOUT, the shorter, three times over, bound the
// run's end (the write-backs and releases), whose context is not the
// loop's: the loop may be stopping.
const stopTimeout = 10 * time.Second

// End runs once as the run ends (ctx is not the loop's, which a stop has
// canceled; it is bounded further here): with TASK_WRITEBACK it writes back what
// is pending when green says the end was verified (a completed run whose
// gates pass), then gives back every claim of an item not done, so that
// another loop or person may take it. loop and commit are as for Done.
func (t *Tracker) End(ctx context.Context, loop int, green bool, commit string) []events.Task {
	if !t.o.Writeback || t.load() != nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, min(t.o.Timeout, stopTimeout)*3)
	defer cancel()
	var n news
	if green && len(t.pending) > 0 {
		t.flush(ctx, loop, commit, &n)
	}
	t.releaseAll(ctx, "the run ended before it was done", &n)
	t.save(&n)
	return n
}

// releaseAll gives back every claim of an item not done.
func (t *Tracker) releaseAll(ctx context.Context, why string, n *news) {
	for _, r := range slices.Clone(t.m.items) {
		if !r.Claimed || r.finished() {
			continue
		}
		s := t.source(r.Tracker)
		if s == nil {
			continue
		}
		if err := s.release(ctx, *r); err != nil {
			if errors.Is(err, errCanceled) {
				// Said, unlike another step cut short: the item stays
				// claimed, by this loop's map, until a run here ends.
				err = errors.New("the stop cut it short")
			}
			t.fail(n, s, "release", fmt.Errorf("%s stays claimed (the next run here gives it back): %w", r.Key, err))
			continue
		}
		r.Claimed, r.Actor, r.Worker = false, "", ""
		n.add(events.Task{Kind: events.TaskReleased, Tracker: s.name(), Keys: []string{r.Key}, Title: r.Title, Note: why})
	}
}

// ReleaseClaims gives back the claims the map in o.Dir still holds (a
// swarm worker's loop that was killed before its end could), and returns
// one line per claim: given back, or why not.
func ReleaseClaims(ctx context.Context, o Options) []string {
	o.Writeback = true
	t, _ := New(o)
	if t == nil {
		return nil
	}
	if err := t.load(); err != nil {
		return []string{err.Error()}
	}
	var n news
	t.releaseAll(ctx, "its worker's loop stopped", &n)
	if len(n) == 0 {
		return nil
	}
	t.save(&n)
	var lines []string
	for _, e := range n {
		if e.Kind == events.TrackerError {
			lines = append(lines, fmt.Sprintf("could not give back a claim on %s: %s", e.Tracker, e.Err))
		} else {
			lines = append(lines, fmt.Sprintf("gave back its claim on %s (%s)", strings.Join(e.Keys, ", "), e.Tracker))
		}
	}
	return lines
}
