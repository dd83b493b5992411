// Package notify sends the events a person wants to hear about while a
// loop runs unattended: a sink of the bus that picks events by name
// (NOTIFY_ON) and hands each one to every configured notifier — a command
// hook (NOTIFY_COMMAND), an HTTP webhook (NOTIFY_WEBHOOK) and a desktop
// notice (NOTIFY_DESKTOP).
//
// Nothing a notifier does reaches the loop: Event only puts the event on
// each notifier's own bounded queue (a full queue drops it and counts),
// every delivery has a time limit, a command runs in its own process group
// through supervise, and a notifier that still fails after its tries writes
// one warning. At the end of a run DrainCut waits, within a bound, for the
// queues to empty, so the run's last event is delivered before the process
// exits.
package notify
