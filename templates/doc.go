// Package templates holds ralph_loop's default project files and builds the
// text Ralph adds to the agent's system prompt each loop.
//
// Files returns the defaults by the name they are installed under in
// .ralph/: PROMPT.md (the agent's standing instructions, including the
// RALPH_STATUS block the analysis reads), @fix_plan.md, @AGENT.md (with the
// headings bmalph's tech-stack customisation rewrites), .ralphrc (every key
// with its default, each in the "${VAR:-default}" form so the environment
// wins) and REVIEW_PROMPT.md (the review agent's instructions and the
// REVIEW_FINDINGS payload). These are our own texts, written for this
// project; PROMPT.md and REVIEW_PROMPT.md keep bmalph's "[YOUR PROJECT NAME]"
// placeholder so `bmalph implement` fills in the project name.
//
// LoopContext builds the one system-prompt addition of a loop from data the
// engine gathers (fix plan bytes, breaker state, previous summary, gate
// feedback from package gates, the diff summary, review findings text from
// package review); DiffSummary formats `git diff --numstat` output into its
// "Changed: ..." line.
//
//	files := templates.Files()                 // ".ralphrc" -> content, ...
//	ctx := templates.LoopContext(templates.ContextInput{Loop: 2, SessionResumed: true, FixPlan: plan, HaveFixPlan: true})
//	line := templates.DiffSummary(numstat)     // "Changed: src/app.txt (+1/-0)"
package templates
