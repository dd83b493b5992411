package config

// askKeys are the keys of the agent's questions to the person: how long
// the loop waits for an answer and what it does when none comes
// (docs/LOOP-CONTROL.md#when-the-agent-must-ask).
var askKeys = []*keySpec{
	{name: "ASK_TIMEOUT", env: []string{"ASK_TIMEOUT"}, rc: true, def: "30m",
		accepts: "duration (0 = do not wait)", doc: "how long the loop waits, making no call, for the person's answer to the agent's question (ralph_loop --answer, the dashboard, the answer file); then ASK_TIMEOUT_ACTION",
		set: durationSetter(func(c *Config) *int64 { return (*int64)(&c.AskTimeout) })},
	{name: "ASK_TIMEOUT_ACTION", env: []string{"ASK_TIMEOUT_ACTION"}, rc: true, def: "continue",
		accepts: "continue, skip, stop", doc: "what an unanswered question does: the next call is told nobody answered and takes its own default (continue), the task is set aside in the plan with the question (skip), or the run stops (stop, exit 13)",
		set: enumSetter("Valid actions", []string{"continue", "skip", "stop"}, func(c *Config) *string { return &c.AskTimeoutAction })},
}
