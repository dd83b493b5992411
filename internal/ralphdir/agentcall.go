package ralphdir

// AgentCall records the agent call under way (its leader's pid, start time
// and token) while it runs, so that a loop that starts after one that died
// can stop what that one left running. It is under logs/, so loop-owned.
const AgentCall = "logs/.agent_call"
