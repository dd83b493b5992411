package swarm

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/ralphloop/ralph_loop/internal/gates"
	"github.com/ralphloop/ralph_loop/internal/ralphdir"
	"github.com/ralphloop/ralph_loop/internal/supervise"
)

// Worker counts --swarm accepts.
const (
	minWorkers = 2
	maxWorkers = 6 // bmalph's SWARM_MAX_WORKERS
)

// defaultGrace is Options.Grace when unset.
const defaultGrace = 15 * time.Second

// planFile is the plan every loop works from.
const planFile = "@fix_plan.md"

// Options are what Run needs.
type Options struct {
	Root    string   // the project: the main worktree, on the branch the workers merge into
	Workers int      // minWorkers to maxWorkers
	Exe     string   // the program of a worker's loop: this binary
	Args    []string // its arguments (the person's flags, --swarm left out)
	Env     []string // its environment, before envDir is added
	// Stagger is the wait between two workers' starts (0: none).
	Stagger time.Duration
	// Gates are TEST_COMMAND and QUALITY_GATES, run on each merged result
	// (Dir is set to the scratch worktree): the person's, as the main
	// branch's .ralphrc has them. A Wrap must sandbox each command with
	// its folder as the project, never the root's.
	Gates   gates.Config
	Retries int           // hand-backs per worker; < 0 means none
	Grace   time.Duration // a stopped worker's time between SIGTERM and SIGKILL
	Poll    time.Duration // how often the workers' loop and tasks are read for Show (0: 1 s)
	// Show is told every change of a worker's line: its state, loop, tasks.
	Show func(Worker)
	// Release, when set, gives back the tracker claims a worker's loop
	// still holds once it has exited (a loop killed before its own end
	// could), in the worker's worktree; it returns lines for Log.
	Release func(ctx context.Context, worktree string) []string
	// Log receives the queue's messages, one line each.
	Log io.Writer
	Now func() time.Time
}

// Report is the swarm's end: how it ended and every worker's last state.
type Report struct {
	// Status is how the swarm ended, as swarm.json's status says it:
	// "merged" (every worker's branch is in the main branch), "held" (some
	// branch is not: held by red gates or a loop that stopped short, or in
	// conflict) or "stopped" (stopped by a signal; running --swarm again
	// resumes).
	Status  string
	Base    string
	Workers []Worker
}

// HeldBack is one line per worker not merged into Base: its name, state
// and note, and the branch that keeps its work.
func (r Report) HeldBack() []string {
	var lines []string
	for _, w := range r.Workers {
		if w.State != mergedState {
			lines = append(lines, fmt.Sprintf("  %s (%s): %s; branch %s", workerName(w.ID), w.State, w.Note, w.Branch))
		}
	}
	return lines
}

type swarm struct {
	o      Options
	dir    string // root/.swarm
	base   string
	common string     // the root repository's common git folder (rootCommon), asked once by prepare
	mu     sync.Mutex // guards st and the state file
	st     state
	queue  sync.Mutex // one merge at a time
}

// Run runs the swarm until every worker is merged, held or stopped.
func Run(ctx context.Context, o Options) (Report, error) {
	if o.Workers < minWorkers || o.Workers > maxWorkers {
		return Report{}, fmt.Errorf("--swarm %d: give %d to %d workers", o.Workers, minWorkers, maxWorkers)
	}
	s := &swarm{o: o.withDefaults(), dir: filepath.Join(o.Root, dir)}
	// A repository may carry a .swarm that is a link: the worktrees, the
	// shared budget and swarm.json would then be written wherever it points.
	if fi, err := os.Lstat(s.dir); err == nil && !fi.IsDir() {
		return Report{}, fmt.Errorf("%s is not a folder (a link or a file the repository brought); remove it and run --swarm again", s.dir)
	}
	if err := s.ownFiles(ctx); err != nil {
		return Report{}, err
	}
	if err := os.MkdirAll(s.dir, 0o755); err != nil {
		return Report{}, err
	}
	lock, held, err := ralphdir.LockPath(filepath.Join(s.dir, swarmLock), false)
	if err != nil || held {
		return Report{}, fmt.Errorf("another ralph_loop --swarm is using %s (or its lock cannot be taken: %v)", s.dir, err)
	}
	defer lock.Unlock()
	if err := s.prepare(ctx); err != nil {
		return Report{}, err
	}

	pollCtx, stopPoll := context.WithCancel(ctx)
	defer stopPoll()
	go s.poll(pollCtx)
	s.startWorkers(ctx)
	stopPoll()
	return s.report(ctx), nil
}

// withDefaults fills what o leaves unset.
func (o Options) withDefaults() Options {
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Log == nil {
		o.Log = io.Discard
	}
	if o.Show == nil {
		o.Show = func(Worker) {}
	}
	if o.Grace <= 0 {
		o.Grace = defaultGrace
	}
	if o.Poll <= 0 {
		o.Poll = time.Second
	}
	return o
}

// startWorkers starts the loop of every worker with work left, Stagger
// apart, and waits for them all.
func (s *swarm) startWorkers(ctx context.Context) {
	var wg sync.WaitGroup
	started := 0
	for i := range s.st.Workers {
		w := s.st.Workers[i]
		if w.finished() {
			continue
		}
		if started > 0 && s.o.Stagger > 0 {
			select {
			case <-ctx.Done():
			case <-time.After(s.o.Stagger):
			}
		}
		started++
		if ctx.Err() != nil {
			s.update(w.ID, func(w *Worker) { w.State = stopped })
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			s.work(ctx, w.ID)
		}()
	}
	wg.Wait()
}

// report is the run's outcome, saved in swarm.json.
func (s *swarm) report(ctx context.Context) Report {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := Report{Base: s.base, Workers: slices.Clone(s.st.Workers), Status: "merged"}
	for _, w := range r.Workers {
		switch {
		case w.State == mergedState:
		case !w.finished() || ctx.Err() != nil:
			r.Status = "stopped"
		case r.Status == "merged":
			r.Status = "held"
		}
	}
	s.st.Status = r.Status
	if r.Status == "stopped" {
		for _, w := range r.Workers {
			if !w.finished() && w.State != stopped {
				s.set(w.ID, func(w *Worker) { w.State = stopped })
			}
		}
		r.Workers = slices.Clone(s.st.Workers)
	}
	s.saveLocked()
	return r
}

// prepare checks the project, then resumes the swarm of an earlier run
// that still has work, or splits the plan and makes the worktrees.
func (s *swarm) prepare(ctx context.Context) error {
	root := s.o.Root
	base, err := git(ctx, root, "symbolic-ref", "--short", "-q", "HEAD")
	if err != nil || base == "" {
		return errors.New("--swarm needs a branch checked out (HEAD is detached); run 'git switch <branch>' first")
	}
	s.base = base
	if err := os.MkdirAll(s.dir, 0o755); err != nil {
		return err
	}
	if err := s.exclude(ctx); err != nil {
		return err
	}
	status, err := git(ctx, root, "status", "--porcelain", "--untracked-files=normal")
	if err != nil {
		return err
	}
	if dirty := lines(status); len(dirty) > 0 {
		return fmt.Errorf("--swarm needs a clean working tree (%d changes, first: %s); commit or stash them first", len(dirty), strings.TrimSpace(dirty[0]))
	}
	if s.common, err = rootCommon(ctx, root); err != nil {
		return err
	}
	old, found, err := load(root)
	if err != nil {
		return err
	}
	if found && old.Base == base && slices.ContainsFunc(old.Workers, func(w Worker) bool { return !w.finished() || w.stoppedShort() }) {
		return s.resume(ctx, old)
	}
	return s.start(ctx)
}

// exclude keeps .swarm/ out of the project's git status, as bmalph's
// .gitignore entry does, through the repository's info/exclude. The file
// is appended to only when it is a regular file, reached through no link
// (as OpenAppendBeneath opens one).
func (s *swarm) exclude(ctx context.Context) error {
	if gitOK(ctx, s.o.Root, "check-ignore", "-q", dir+"/") {
		return nil
	}
	p, err := git(ctx, s.o.Root, "rev-parse", "--git-path", "info/exclude")
	if err != nil {
		return err
	}
	base, rel := s.o.Root, filepath.FromSlash(p)
	if filepath.IsAbs(p) {
		// Another layout (the root is a worktree or a submodule): the
		// common git folder is the repository's own.
		base, rel = filepath.Dir(filepath.Dir(p)), filepath.Join("info", "exclude")
	}
	if err := os.MkdirAll(filepath.Dir(filepath.Join(base, rel)), 0o755); err != nil {
		return err
	}
	f, err := ralphdir.OpenAppendBeneath(base, rel)
	if err != nil {
		return fmt.Errorf("keep %s/ out of git: %w", dir, err)
	}
	defer f.Close()
	_, err = fmt.Fprintf(f, "\n# ralph_loop --swarm\n/%s/\n", dir)
	return err
}

// resume takes up the workers of an earlier swarm that still have work.
func (s *swarm) resume(ctx context.Context, old state) error {
	for i, w := range old.Workers {
		if w.finished() && !w.stoppedShort() {
			continue
		}
		if _, err := os.Stat(filepath.Join(s.o.Root, w.Worktree)); err != nil {
			return fmt.Errorf("cannot resume the swarm: %s is gone (%v); move %s aside to start a new swarm", w.Worktree, err, filepath.Join(dir, stateFile))
		}
		switch {
		case w.State == fixing, w.State == resolving, w.State == queued, w.State == merging:
		default:
			old.Workers[i].State, old.Workers[i].ExitCode, old.Workers[i].Note = pending, nil, ""
		}
	}
	s.st = old
	s.st.Status, s.st.PID = "running", os.Getpid()
	fmt.Fprintf(s.o.Log, "Resuming the swarm of %s: %d workers still have work\n", old.StartedAt, len(slices.DeleteFunc(slices.Clone(old.Workers), Worker.finished)))
	return s.saveState()
}

// start splits the plan and makes one worktree per worker.
func (s *swarm) start(ctx context.Context) error {
	root := s.o.Root
	plan, err := ralphdir.ReadFileCapped(filepath.Join(root, ".ralph", planFile), 16<<20)
	if err != nil {
		return fmt.Errorf("--swarm reads the plan: %w", err)
	}
	preamble, parts, err := split(string(plan), s.o.Workers)
	if err != nil {
		return fmt.Errorf("--swarm: %w", err)
	}
	if len(parts) < s.o.Workers {
		fmt.Fprintf(s.o.Log, "%d workers, not %d: the plan has %d unfinished epics\n", len(parts), s.o.Workers, len(parts))
	}
	for i := range parts {
		id := i + 1
		if gitOK(ctx, root, "rev-parse", "-q", "--verify", "refs/heads/"+branch(id)) {
			return fmt.Errorf("branch %s is left from an earlier swarm; merge or delete it (git worktree remove --force %s; git branch -D %s) first", branch(id), filepath.Join(dir, workerName(id)), branch(id))
		}
		if _, err := os.Lstat(filepath.Join(s.dir, workerName(id))); err == nil {
			return fmt.Errorf("%s is left from an earlier swarm; remove it (git worktree remove --force %s) first", filepath.Join(dir, workerName(id)), filepath.Join(dir, workerName(id)))
		}
	}
	s.st = state{Base: s.base, StartedAt: s.o.Now().UTC().Format(time.RFC3339), Status: "running", PID: os.Getpid()}
	for i, epics := range parts {
		id := i + 1
		wt := filepath.Join(s.dir, workerName(id))
		if _, err := git(ctx, root, "worktree", "add", "-q", "-b", branch(id), wt, "HEAD"); err != nil {
			return err
		}
		body := workerPlan(preamble, epics)
		if err := ralphdir.WriteFileAtomic(filepath.Join(wt, ".ralph", planFile), []byte(body), 0o644); err != nil {
			return err
		}
		done, total := count(body)
		s.st.Workers = append(s.st.Workers, Worker{ID: id, Worktree: filepath.ToSlash(filepath.Join(dir, workerName(id))), Branch: branch(id),
			Epics: headings(epics), State: pending, Done: done, Total: total})
		fmt.Fprintf(s.o.Log, "%s: %s (%s) in %s on %s\n", workerName(id), strings.Join(headings(epics), ", "), countOf(total-done, "open task"), filepath.Join(dir, workerName(id)), branch(id))
	}
	return s.saveState()
}

// work runs one worker until it is merged, held back or stopped.
func (s *swarm) work(ctx context.Context, id int) {
	w := s.worker(id)
	if w.State == queued || w.State == merging {
		if s.afterLoop(ctx, id, 0) {
			return
		}
	}
	for ctx.Err() == nil {
		s.update(id, func(w *Worker) { w.State = runningState(w.State) })
		code := s.runLoop(ctx, id)
		s.readProgress(id) // a loop quicker than the poll is shown too
		s.recordSpent(id)
		if ctx.Err() != nil {
			s.update(id, func(w *Worker) { w.State, w.ExitCode = stopped, &code })
			return
		}
		if s.afterLoop(ctx, id, code) {
			return
		}
	}
	s.update(id, func(w *Worker) { w.State = stopped })
}

// runningState keeps a hand-back's state while its loop runs.
func runningState(st string) string {
	if st == fixing || st == resolving {
		return st
	}
	return running
}

// runLoop runs the worker's loop: this program in its worktree, with the
// swarm's folder in its environment. It returns the loop's exit code.
func (s *swarm) runLoop(ctx context.Context, id int) int {
	w := s.worker(id)
	wt := filepath.Join(s.o.Root, w.Worktree)
	log, err := ralphdir.OpenAppendBeneath(s.dir, workerName(id)+".log")
	if err != nil {
		fmt.Fprintf(s.o.Log, "%s: cannot open its log: %v\n", workerName(id), err)
		log = nil
	}
	var out io.Writer = io.Discard
	if log != nil {
		defer log.Close()
		out = log
	}
	env := append(slices.Clone(s.o.Env), envDir+"="+s.dir)
	if !slices.ContainsFunc(env, func(kv string) bool { return strings.HasPrefix(kv, "GIT_CONFIG_COUNT=") }) {
		// No automatic gc while several worktrees share the repository,
		// as bmalph does (unless the person set git config of their own).
		env = append(env, "GIT_CONFIG_COUNT=1", "GIT_CONFIG_KEY_0=gc.auto", "GIT_CONFIG_VALUE_0=0")
	}
	res := supervise.Run(ctx, supervise.Command{Argv: append([]string{s.o.Exe}, s.o.Args...), Env: env, Dir: wt},
		supervise.Options{Grace: s.o.Grace, Stdout: out, Stderr: out})
	if s.o.Release != nil {
		for _, l := range s.o.Release(context.WithoutCancel(ctx), wt) {
			fmt.Fprintf(s.o.Log, "%s: %s\n", workerName(id), l)
		}
	}
	return res.ExitCode
}

// worker is a copy of worker id's state.
func (s *swarm) worker(id int) Worker {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.st.Workers[id-1]
}

// update changes worker id, saves the state and shows the worker.
func (s *swarm) update(id int, f func(*Worker)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.set(id, f)
}

func (s *swarm) set(id int, f func(*Worker)) {
	w := &s.st.Workers[id-1]
	before := *w
	f(w)
	if err := s.saveLocked(); err != nil {
		fmt.Fprintf(s.o.Log, "warning: %v\n", err)
	}
	if w.State != before.State || w.Loop != before.Loop || w.Done != before.Done || w.Total != before.Total || w.Note != before.Note || w.Question != before.Question {
		s.o.Show(*w)
	}
}

func (s *swarm) saveState() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.saveLocked()
}

func (s *swarm) saveLocked() error {
	s.st.UpdatedAt = s.o.Now().UTC().Format(time.RFC3339)
	return save(s.o.Root, s.st)
}

// poll reads the running workers' loop number and tasks, for Show.
func (s *swarm) poll(ctx context.Context) {
	t := time.NewTicker(s.o.Poll)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		s.mu.Lock()
		ids := []int{}
		for _, w := range s.st.Workers {
			// A worker in the queue may lose its worktree any moment:
			// what it showed last stays.
			if w.State == running || w.State == fixing || w.State == resolving {
				ids = append(ids, w.ID)
			}
		}
		s.mu.Unlock()
		for _, id := range ids {
			s.readProgress(id)
		}
	}
}

// readProgress takes worker id's loop and tasks from its worktree's
// status.json.
func (s *swarm) readProgress(id int) {
	w := s.worker(id)
	loop, done, total, question := progress(filepath.Join(s.o.Root, w.Worktree))
	if loop != w.Loop || done != w.Done || total != w.Total || question != w.Question {
		s.update(id, func(w *Worker) { w.Loop, w.Done, w.Total, w.Question = loop, done, total, question })
	}
}
