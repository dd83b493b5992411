package events

// The trackers' events (TASK_SOURCES, docs/TASKS.md): what the loop did
// with the items of beads or GitHub issues it works on.
const (
	TaskImported Type = "task_imported" // new items were written into the plan's section
	TaskClaimed  Type = "task_claimed"  // an item was claimed for the next call (TASK_WRITEBACK)
	TaskTaken    Type = "task_taken"    // a claim was lost: another loop or person has the item; its line is dropped
	TaskClosed   Type = "task_closed"   // an item was closed or commented on as done, or was found closed in the tracker
	TaskReleased Type = "task_released" // a claim was given back (the run stopped before the item was done)
	TrackerError Type = "tracker_error" // a tracker command failed; that step was skipped, the run goes on
)

// TaskTypes are the trackers' event types, in Types.
var TaskTypes = []Type{TaskImported, TaskClaimed, TaskTaken, TaskClosed, TaskReleased, TrackerError}

// Task is what happened to a tracker's items (the value of
// observe.Observer.Tracked). Kind is one of the task types; Tracker the
// source ("beads", "github"); Keys the items as the plan shows them
// ("bd-a1b2", "#12"). Title is the item's, for the one-item kinds; Note
// says how it was closed or why it was released, taken or skipped; Op and
// Err, for tracker_error, the step that failed (sync, claim, close,
// release) and the one-line error.
type Task struct {
	Kind    Type
	Tracker string
	Keys    []string
	Title   string
	Note    string
	Op      string
	Err     string
}
