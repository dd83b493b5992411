package swarm

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/ralphloop/ralph_loop/internal/gates"
	"github.com/ralphloop/ralph_loop/internal/ralphdir"
	"github.com/ralphloop/ralph_loop/internal/safetext"
)

// progress is a worktree's loop number (its status.json loop_count), its
// plan's ticked and all tasks, and the agent's question its loop waits on
// (status.json's question, "" when none); zeros for what cannot be read.
func progress(worktree string) (loop, done, total int, question string) {
	if b, err := ralphdir.ReadFileBeneath(worktree, filepath.Join(".ralph", "status.json"), 1<<20); err == nil {
		var st struct {
			LoopCount  int    `json:"loop_count"`
			LastAction string `json:"last_action"`
			Question   *struct {
				Text string `json:"text"`
			} `json:"question"`
		}
		if json.Unmarshal(b, &st) == nil {
			loop = st.LoopCount
			if st.Question != nil && st.LastAction == "waiting_for_answer" {
				question = st.Question.Text
			}
		}
	}
	if b, err := ralphdir.ReadFileBeneath(worktree, filepath.Join(".ralph", planFile), 16<<20); err == nil {
		done, total = count(string(b))
	}
	return loop, done, total, question
}

// verdict is what the queue made of one finished loop.
type verdict int

const (
	merged     verdict = iota // in the main branch
	red                       // the gates failed on the merged result
	conflicted                // the branch conflicts with the main branch
	refused                   // cannot go in for another reason (named in the worker's note)
)

// afterLoop takes a worker whose loop ended with code: a loop that did
// not finish goes no further; a finished one goes through the merge
// queue, and a red merge or a conflict is handed back to its loop while
// attempts are left. It reports whether the worker is done with (merged or
// held back); false means its loop runs again.
func (s *swarm) afterLoop(ctx context.Context, id, code int) bool {
	w := s.worker(id)
	if code != 0 {
		s.update(id, func(w *Worker) {
			w.State, w.ExitCode = held, &code
			w.Note = fmt.Sprintf("its loop stopped with exit code %d before the epics were done (see %s)", code, filepath.Join(dir, workerName(id)+".log"))
		})
		fmt.Fprintf(s.o.Log, "%s: held back: its loop exited %d; branch %s kept\n", workerName(w.ID), code, w.Branch)
		return true
	}
	wt := filepath.Join(s.o.Root, w.Worktree)
	if err := s.checkWorktree(ctx, workerName(id), w.Branch); err != nil {
		return s.hold(id, held, err.Error())
	}
	if w.State == resolving {
		if left := outside(unmerged(ctx, wt)); len(left) > 0 {
			return s.handBack(ctx, id, conflicted, left, "")
		}
	}
	if err := commitAll(ctx, wt, "swarm: "+workerName(id)+": "+epicList(w.Epics)); err != nil {
		return s.hold(id, held, "cannot commit its work: "+err.Error())
	}
	s.update(id, func(w *Worker) { w.State = queued })

	s.queue.Lock()
	if ctx.Err() != nil {
		s.queue.Unlock()
		return false
	}
	s.update(id, func(w *Worker) { w.State = merging })
	v, files, feedback, err := s.tryMerge(ctx, id)
	s.queue.Unlock()
	switch {
	case ctx.Err() != nil:
		return false
	case err != nil:
		return s.hold(id, held, err.Error())
	case v == merged:
		s.update(id, func(w *Worker) { w.State, w.Note = mergedState, "" })
		fmt.Fprintf(s.o.Log, "%s: merged into %s (%s)\n", workerName(id), s.base, strings.Join(w.Epics, ", "))
		return true
	default:
		return s.handBack(ctx, id, v, files, feedback)
	}
}

// hold ends a worker as held back or in conflict, with why.
func (s *swarm) hold(id int, state, note string) bool {
	s.update(id, func(w *Worker) { w.State, w.Note = state, note })
	w := s.worker(id)
	fmt.Fprintf(s.o.Log, "%s: not merged: %s; branch %s kept\n", workerName(id), note, w.Branch)
	return true
}

// scratchName is where the queue tries a merge, under .swarm/: a worktree
// of its own, which --serve --projects .swarm does not list (it looks one
// level down).
var scratchName = filepath.Join(queueDir, "merge")

// scratch is the scratch worktree's path.
func (s *swarm) scratch() string { return filepath.Join(s.dir, scratchName) }

// epicList is the epics' headings for a commit subject: the repository's
// text, made safe (git log hands a subject to the terminal as it is).
func epicList(epics []string) string {
	safe := make([]string, len(epics))
	for i, e := range epics {
		safe[i] = safetext.Line(e)
	}
	return strings.Join(safe, ", ")
}

// removeScratch removes the scratch worktree, whatever state it is in.
func (s *swarm) removeScratch(ctx context.Context) {
	p := s.scratch()
	if _, err := os.Lstat(p); err != nil {
		return
	}
	if !gitOK(ctx, s.o.Root, "worktree", "remove", "--force", p) {
		os.RemoveAll(p)
		gitOK(ctx, s.o.Root, "worktree", "prune")
	}
}

// tryMerge merges the worker's branch into the main branch's tip in the
// scratch worktree, keeps .ralph/ and the scripts the gates name as the
// main branch has them (with the worker's ticked tasks ticked), runs the
// gates there and, when they pass, moves the main branch to the result.
// Nothing reaches the main branch otherwise. Branches are named by their
// full refs: a tag the worker made with a branch's name is never taken
// for it.
func (s *swarm) tryMerge(ctx context.Context, id int) (v verdict, files []string, feedback string, err error) {
	w := s.worker(id)
	root, sc := s.o.Root, s.scratch()
	if err := s.queueFolder(); err != nil {
		return refused, nil, "", err
	}
	s.removeScratch(ctx)
	defer s.removeScratch(ctx)
	if _, err := git(ctx, root, "worktree", "add", "-q", "--detach", sc, "refs/heads/"+s.base); err != nil {
		return refused, nil, "", err
	}
	tip, err := s.checkScratch(ctx)
	if err != nil {
		return refused, nil, "", err
	}
	if tip == "" {
		if tip, err = git(ctx, sc, "rev-parse", "HEAD"); err != nil {
			return refused, nil, "", err
		}
	}
	msg := fmt.Sprintf("swarm: merge worker %d (%s)", id, epicList(w.Epics)) // bmalph's words
	// git merge exits 0 only for a merge without conflicts (the scratch
	// worktree is new: no conflict was there before it), so the
	// conflicts are looked for only after a merge that failed.
	if _, err := git(ctx, sc, "merge", "--no-ff", "--no-commit", "-q", "refs/heads/"+w.Branch); err != nil {
		if !inMerge(ctx, sc) {
			return refused, nil, "", err
		}
		if c := outside(unmerged(ctx, sc)); len(c) > 0 {
			gitOK(ctx, sc, "merge", "--abort")
			return conflicted, c, "", nil
		}
	}
	if err := s.keepRalph(ctx, sc, filepath.Join(root, w.Worktree)); err != nil {
		return refused, nil, "", err
	}
	kept, err := s.keepGateScripts(ctx, sc, id)
	if err != nil {
		return refused, nil, "", err
	}
	if s.o.Gates.Enabled() {
		g := s.o.Gates
		g.Dir = sc
		d, err := gates.Run(ctx, g, gates.Input{Loop: 1, HaveAnalysis: true}, s.o.Now())
		if err != nil {
			return refused, nil, "", err
		}
		if d.OverallStatus == gates.StatusFail {
			gitOK(ctx, sc, "merge", "--abort")
			feedback := gateFeedback(d.Failures)
			if len(kept) > 0 {
				feedback += fmt.Sprintf("(the gates ran %s as %s has it: a change to a script a gate runs is not merged)\n", strings.Join(kept, ", "), s.base)
			}
			return red, nil, feedback, nil
		}
	}
	if _, err := git(ctx, sc, "commit", "-q", "--no-verify", "-m", msg); err != nil {
		return refused, nil, "", err
	}
	head, err := git(ctx, sc, "rev-parse", "HEAD")
	if err != nil {
		return refused, nil, "", err
	}
	// The main branch moves only from the tip the merge was tried on.
	if now, _ := git(ctx, root, "rev-parse", "HEAD"); now != tip {
		return refused, nil, "", fmt.Errorf("%s moved while the merge was tried (%s, not %s); run --swarm again", s.base, short(now), short(tip))
	}
	if _, err := git(ctx, root, "merge", "--ff-only", "-q", head); err != nil {
		return refused, nil, "", err
	}
	gitOK(ctx, root, "worktree", "remove", "--force", filepath.Join(root, w.Worktree))
	gitOK(ctx, root, "branch", "-D", w.Branch)
	return merged, nil, "", nil
}

func short(sha string) string {
	if len(sha) > 10 {
		return sha[:10]
	}
	return sha
}

// keepRalph puts .ralph/ back as the main branch has it, with the tasks
// the worker ticked ticked in its plan: a worker's plan holds its own
// epics only and its state files are its own.
func (s *swarm) keepRalph(ctx context.Context, sc, worktree string) error {
	if out, _ := git(ctx, sc, "ls-tree", "--name-only", "HEAD", ".ralph"); out == "" {
		_, err := git(ctx, sc, "rm", "-r", "-q", "-f", "--cached", "--ignore-unmatch", ".ralph")
		return err
	}
	if _, err := git(ctx, sc, "checkout", "HEAD", "--", ".ralph"); err != nil {
		return err
	}
	// Files the worker added under .ralph/ go too.
	if added, _ := git(ctx, sc, "diff", "--cached", "--name-only", "--diff-filter=A", "HEAD", "--", ".ralph"); added != "" {
		for _, p := range lines(added) {
			if _, err := git(ctx, sc, "rm", "-q", "-f", "--", p); err != nil {
				return err
			}
		}
	}
	mainPlan, err := ralphdir.ReadFileBeneath(sc, filepath.Join(".ralph", planFile), 16<<20)
	if err != nil {
		return nil // no plan on the main branch: nothing to tick
	}
	workerPlan, err := ralphdir.ReadFileBeneath(worktree, filepath.Join(".ralph", planFile), 16<<20)
	if err != nil {
		return nil
	}
	plan, n := completions(string(mainPlan), string(workerPlan))
	if n == 0 {
		return nil
	}
	if err := ralphdir.WriteFileAtomic(filepath.Join(sc, ".ralph", planFile), []byte(plan), 0o644); err != nil {
		return err
	}
	_, err = git(ctx, sc, "add", "--", ".ralph/"+planFile)
	return err
}

// gateFeedback is what the worker's loop is told of the failed gates.
func gateFeedback(fs []gates.Failure) string {
	var b strings.Builder
	for _, f := range fs {
		what := f.Command
		if what == "" {
			what = f.Gate
		}
		fmt.Fprintf(&b, "`%s` exited %d", what, f.ExitCode)
		if f.TimedOut {
			b.WriteString(" (timed out)")
		}
		b.WriteString("\n")
		for _, l := range strings.Split(f.Tail, "\n") {
			b.WriteString(l + "\n")
		}
	}
	return b.String()
}

// handBack gives a red merge or a conflict back to the worker's loop as a
// task in its plan, after merging the main branch into its branch (so
// that it fixes what the merged result does), while attempts are left;
// otherwise the worker is held back and its branch kept.
func (s *swarm) handBack(ctx context.Context, id int, v verdict, files []string, feedback string) bool {
	w := s.worker(id)
	wt := filepath.Join(s.o.Root, w.Worktree)
	if err := s.checkWorktree(ctx, workerName(id), w.Branch); err != nil {
		return s.hold(id, held, err.Error())
	}
	if w.Attempts >= max(s.o.Retries, 0) {
		if inMerge(ctx, wt) {
			gitOK(ctx, wt, "merge", "--abort")
		}
		if v == conflicted {
			return s.hold(id, conflict, "conflicts with "+s.base+" in "+strings.Join(files, ", "))
		}
		note := "the quality gates fail on the merged result"
		if first, _, _ := strings.Cut(feedback, "\n"); first != "" {
			note += ": " + first
		}
		return s.hold(id, held, note)
	}
	// A merge already under way (the loop did not conclude the last one)
	// is taken up: git refuses to start another while MERGE_HEAD is
	// there, before it touches anything, so a failed merge with a merge
	// under way after it is that one or a merge left in conflict.
	if _, err := git(ctx, wt, "merge", "--no-edit", "-q", "refs/heads/"+s.base); err != nil && !inMerge(ctx, wt) {
		return s.hold(id, held, "cannot merge "+s.base+" into its branch: "+err.Error())
	}
	// .ralph/ stays the worker's own. What is put back here is under
	// .ralph/ alone, so the conflicts outside it are those listed first.
	conflicts := unmerged(ctx, wt)
	for _, p := range conflicts {
		if isRalph(p) {
			if !gitOK(ctx, wt, "checkout", "--ours", "--", p) {
				gitOK(ctx, wt, "rm", "-q", "-f", "--", p)
			} else {
				gitOK(ctx, wt, "add", "--", p)
			}
		}
	}
	left := outside(conflicts)
	if len(left) == 0 && inMerge(ctx, wt) {
		if _, err := git(ctx, wt, "commit", "-q", "--no-verify", "--no-edit"); err != nil {
			return s.hold(id, held, "cannot conclude the merge of "+s.base+": "+err.Error())
		}
	}
	// task goes into the plan; said is the same in one line, for the
	// console and the worker's note.
	var task, said string
	state := fixing
	switch {
	case len(left) > 0:
		state = resolving
		said = fmt.Sprintf("Resolve the merge of %s into this branch (swarm merge queue, attempt %d): remove the conflict markers in %s, keep both sides' intent, `git add` them and `git commit`; the tests must pass",
			s.base, w.Attempts+1, strings.Join(left, ", "))
		task = "- [ ] " + said + "\n"
	case v == conflicted:
		// The main branch merged in cleanly here (the conflict was in
		// .ralph/ only): try the queue again.
		s.update(id, func(w *Worker) { w.Attempts++ })
		return s.afterLoop(ctx, id, 0)
	default:
		// The task's line names the failing gate (the first line of the
		// feedback), as the console and the worker's note say it; the
		// gates' output follows it in the plan as quoted lines.
		said = fmt.Sprintf("Make the quality gates pass after merging %s (swarm merge queue, attempt %d)", s.base, w.Attempts+1)
		if first, _, _ := strings.Cut(feedback, "\n"); strings.TrimSpace(first) != "" {
			said += "; failed on the merged result: " + strings.TrimSpace(first)
		}
		task = "- [ ] " + said + " (the gates' output below)\n"
		for _, l := range strings.Split(strings.TrimRight(feedback, "\n"), "\n") {
			task += "  > " + l + "\n"
		}
	}
	if err := addTask(wt, task); err != nil {
		return s.hold(id, held, err.Error())
	}
	s.update(id, func(w *Worker) {
		w.Attempts++
		w.State = state
		w.Note = said
	})
	fmt.Fprintf(s.o.Log, "%s: handed back to its loop: %s\n", workerName(id), said)
	return false
}

// addTask appends a task to the worktree's plan, under a heading of its
// own, and clears the loop's memory of having finished.
func addTask(wt, task string) error {
	p := filepath.Join(wt, ".ralph", planFile)
	b, err := ralphdir.ReadFileBeneath(wt, filepath.Join(".ralph", planFile), 16<<20)
	if err != nil {
		return fmt.Errorf("read the worker's plan: %w", err)
	}
	plan := strings.TrimRight(string(b), "\n") + "\n"
	if !strings.Contains(plan, "\n"+queueHeading+"\n") {
		plan += "\n" + queueHeading + "\n"
	}
	plan += task
	if err := ralphdir.WriteFileAtomic(p, []byte(plan), 0o644); err != nil {
		return err
	}
	// The last loop ended on its completion signals; the next one starts
	// from the new open task.
	os.Remove(filepath.Join(wt, ".ralph", ".exit_signals"))
	os.Remove(filepath.Join(wt, ".ralph", ".response_analysis"))
	return nil
}

// queueHeading heads the tasks the merge queue hands back.
const queueHeading = "## Swarm merge queue"
