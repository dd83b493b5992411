// Package fixplan reads and rewrites .ralph/@fix_plan.md, the checkbox plan
// the agent works through. Everything here is pure: it takes the file's bytes
// and returns numbers, text or new bytes; the caller reads and writes the
// file through ralphdir.
//
// The counting rules are the bash loop's, so that ralph_loop and bmalph
// agree on the numbers: a line is a task when it
// starts (after optional whitespace) with "- [ ]" (open) or "- [x]"/"- [X]"
// (done). "* [ ]" bullets, "-[ ]" without the space and dates such as
// "- [2026-01-29]" are not tasks.
//
//	c := fixplan.Count(plan)            // c.Checked, c.Unchecked, c.Total()
//	next := fixplan.NextTask(plan)      // "- [ ] Story 1.2: Login" or ""
//	out, changed := fixplan.Collapse(plan)
//	t := fixplan.Track(claimed, before, after) // one task per loop, claimed == ticked
//	done, total := fixplan.Progress(plan) // bmalph's Story-line progress, else every task
package fixplan
