package notify

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"github.com/ralphloop/ralph_loop/internal/events"
	"github.com/ralphloop/ralph_loop/internal/observe"
)

// Config says which events go where. The zero values of the functions are
// safe: nothing is logged, no warning is given.
type Config struct {
	On      []string      // NOTIFY_ON
	Command []string      // NOTIFY_COMMAND as argv; nil = no command hook
	Webhook string        // NOTIFY_WEBHOOK; "" = no webhook
	Desktop bool          // NOTIFY_DESKTOP
	Timeout time.Duration // one delivery's (a webhook try's) time limit; 0 = DefaultTimeout

	// WebhookFrom, when set, says the webhook is the repository's choice
	// (its .ralphrc line, ".ralph/.ralphrc:3"): --doctor's look at the
	// notifiers does not connect to it, for the repository would pick the
	// host and port the person's machine reaches (a test sent with
	// --notify-test is the person's own request).
	WebhookFrom string

	Project string   // the project's name, in texts and RALPH_PROJECT
	Dir     string   // the project directory: the hooks' working directory
	Env     []string // the hooks' environment before the RALPH_* variables

	Text     func(events.Event) string // an event in one line for a person
	Now      func() time.Time          // the hooks log's time stamps; nil = time.Now
	Log      func(block string)        // logs/hooks.log: one delivery's lines
	Warn     func(msg string)          // ralph.log: one line per notification that failed
	LookPath func(string) (string, error)
	GOOS     string // picks the desktop tool
}

// defaultTimeout is a delivery's time limit when Config.Timeout is 0.
const defaultTimeout = 10 * time.Second

// queueSize is how many selected events wait for one notifier before
// further ones are dropped.
const queueSize = 64

// message is one selected event, ready for every notifier.
type message struct {
	event events.Event
	name  string // the selected name that picked it
	json  []byte // the event as events.jsonl has it
	text  string // the event for a person, with the project's name
	// headline is text without the project's name (a desktop notice has
	// it in its title)
	headline string
}

// target is one notifier.
type target interface {
	String() string // for the logs: what and where, without secrets
	// send delivers m within ctx; the report is what the hooks log keeps
	// (a status, the hook's output).
	send(ctx context.Context, m message) (report string, err error)
}

// worker delivers one notifier's queue, one message at a time.
type worker struct {
	t           target
	q           chan message
	dropped     int // under Notifier.mu
	undelivered int // messages the run's end cut off; the worker's own
}

// Notifier is the notifiers' observer of the loop: each report's event
// line (observe.Lines) is what it selects and sends. It never blocks.
type Notifier struct {
	observe.Observer
	sel     selection
	cfg     Config
	ctx     context.Context
	cancel  context.CancelFunc
	mu      sync.Mutex
	closed  bool
	workers []*worker
	wg      sync.WaitGroup
}

// New returns the sink for cfg, or nil when no notifier is configured (or
// none can work here: no desktop tool, nothing else) or nothing is
// selected.
func New(cfg Config) *Notifier {
	if cfg.Timeout <= 0 {
		cfg.Timeout = defaultTimeout
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Text == nil {
		cfg.Text = func(e events.Event) string { return string(e.Type) }
	}
	sel := pick(cfg.On)
	ts := targets(cfg)
	if len(ts) == 0 || sel.empty() {
		return nil
	}
	return start(cfg, sel, ts)
}

// start runs one worker per target.
func start(cfg Config, sel selection, targets []target) *Notifier {
	ctx, cancel := context.WithCancel(context.Background())
	n := &Notifier{sel: sel, cfg: cfg, ctx: ctx, cancel: cancel}
	n.Observer = observe.Lines(n.event)
	for _, t := range targets {
		w := &worker{t: t, q: make(chan message, queueSize)}
		n.workers = append(n.workers, w)
		n.wg.Add(1)
		go n.run(w)
	}
	return n
}

// event queues a selected event for every notifier; a full queue drops
// it.
func (n *Notifier) event(e events.Event) {
	name := n.sel.match(e)
	if name == "" {
		return
	}
	m, err := n.message(e, name)
	if err != nil {
		// Not a warning: event runs inside the fan, which a warning
		// would enter again.
		n.log(fmt.Sprintf("[%s] %s: cannot encode the event: %v", n.cfg.Now().Local().Format(events.LocalStamp), e.Type, err))
		return
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.closed {
		return
	}
	for _, w := range n.workers {
		select {
		case w.q <- m:
		default:
			w.dropped++
		}
	}
}

// message prepares e for the notifiers.
func (n *Notifier) message(e events.Event, name string) (message, error) {
	b, err := json.Marshal(e)
	if err != nil {
		return message{}, err
	}
	h := n.cfg.Text(e)
	return message{event: e, name: name, json: b, text: withProject(n.cfg.Project, h), headline: h}, nil
}

// withProject is a headline with the project's name in front.
func withProject(project, headline string) string {
	if project != "" {
		return "ralph_loop [" + project + "]: " + headline
	}
	return "ralph_loop: " + headline
}

// run delivers w's queue until it is closed; once the run's end has cut
// the wait short, the rest is counted, not sent.
func (n *Notifier) run(w *worker) {
	defer n.wg.Done()
	for m := range w.q {
		if n.ctx.Err() != nil {
			w.undelivered++
			continue
		}
		n.deliver(w.t, m)
	}
}

// deliver sends m to t and logs how it went.
func (n *Notifier) deliver(t target, m message) {
	start := n.cfg.Now()
	report, err := t.send(n.ctx, m)
	took := n.cfg.Now().Sub(start).Round(time.Millisecond)
	head := fmt.Sprintf("[%s] %s → %s", start.Local().Format(events.LocalStamp), m.name, t)
	status := fmt.Sprintf("ok (%s)", took)
	if err != nil {
		status = fmt.Sprintf("failed (%s): %v", took, err)
		n.warn(fmt.Sprintf("notify: %s to %s failed: %v (logs/hooks.log has its output)", m.name, t, err))
	}
	block := head + ": " + status
	if report != "" {
		block += "\n" + report
	}
	n.log(block)
}

// DrainCut stops taking events and waits up to bound for every queue to
// be delivered; then it stops what is still running (a hook gets SIGTERM,
// then SIGKILL after a grace of stopGrace) and waits for that too. Each
// notifier that lost messages (dropped on a full queue, or cut off by the
// bound) gets one warning. Each value received on cut may shorten the
// bound: the wait then ends at most that long from now (0: at once); the
// loop sends one per stop signal that arrives while it waits. DrainCut on
// nil does nothing.
func (n *Notifier) DrainCut(bound time.Duration, cut <-chan time.Duration) {
	if n == nil {
		return
	}
	n.mu.Lock()
	if n.closed {
		n.mu.Unlock()
		return
	}
	n.closed = true
	for _, w := range n.workers {
		close(w.q)
	}
	n.mu.Unlock()

	done := make(chan struct{})
	go func() { n.wg.Wait(); close(done) }()
	end := time.Now().Add(bound)
	t := time.NewTimer(bound)
	defer t.Stop()
wait:
	for {
		select {
		case <-done:
			break wait
		case d := <-cut:
			if e := time.Now().Add(max(d, 0)); e.Before(end) {
				end = e
				t.Reset(max(d, 0))
			}
		case <-t.C:
			n.cancel()
			select {
			case <-done:
			case <-time.After(stopGrace + time.Second):
			}
			break wait
		}
	}
	n.cancel()
	// The warnings go out after the lock is released: a warning goes
	// through the fan, which may be waiting for this observer.
	var warns []string
	n.mu.Lock()
	for _, w := range n.workers {
		if w.dropped > 0 {
			warns = append(warns, fmt.Sprintf("notify: %d events for %s were dropped: its queue of %d was full", w.dropped, w.t, queueSize))
		}
	}
	n.mu.Unlock()
	select {
	case <-done: // the workers' counts are final
		for _, w := range n.workers {
			if w.undelivered > 0 {
				warns = append(warns, fmt.Sprintf("notify: %d events for %s were not sent: the loop exited first", w.undelivered, w.t))
			}
		}
	default:
	}
	for _, msg := range warns {
		n.warn(msg)
	}
}

func (n *Notifier) warn(msg string) {
	if n.cfg.Warn != nil {
		n.cfg.Warn(msg)
	}
}

func (n *Notifier) log(block string) {
	if n.cfg.Log != nil {
		n.cfg.Log(block)
	}
}
