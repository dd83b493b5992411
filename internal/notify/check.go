package notify

import (
	"context"
	"fmt"
	"net"
	"net/url"
	"runtime"
	"time"

	"github.com/ralphloop/ralph_loop/internal/events"
)

// Check is one notifier's line of --doctor.
type Check struct {
	Notifier string // what and where, without secrets
	OK       bool
	Skipped  bool   // nothing to check here (no desktop tool on this system)
	Detail   string // what was found, or what is wrong and how to fix it
}

// testType is the type of the event --doctor --notify-test sends.
const testType events.Type = "notify_test"

// Checks are --doctor's lines for the configured notifiers: each looked
// at without sending anything (probe), or, with send, sent a test
// notification (sendTest).
func Checks(cfg Config, send bool) []Check {
	if send {
		return sendTest(cfg)
	}
	return probe(cfg, nil)
}

// probe checks each configured notifier without sending anything: the
// hook's command is found, the webhook's host accepts a connection (not
// for a webhook the repository named: WebhookFrom), the system has a
// desktop tool. dial nil is a net.Dialer's.
func probe(cfg Config, dial func(ctx context.Context, network, addr string) (net.Conn, error)) []Check {
	if dial == nil {
		dial = (&net.Dialer{}).DialContext
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = defaultTimeout
	}
	var out []Check
	if len(cfg.Command) > 0 {
		out = append(out, probeCommand(cfg))
	}
	if cfg.Webhook != "" {
		out = append(out, probeWebhook(cfg, dial))
	}
	if cfg.Desktop {
		out = append(out, probeDesktop(cfg))
	}
	return out
}

func probeCommand(cfg Config) Check {
	c := Check{Notifier: "command " + cfg.Command[0]}
	if cfg.LookPath == nil {
		c.Skipped, c.Detail = true, "not looked for"
		return c
	}
	p, err := cfg.LookPath(cfg.Command[0])
	if err != nil {
		c.Detail = fmt.Sprintf("not found (%v); fix NOTIFY_COMMAND or make the file executable", err)
		return c
	}
	c.OK, c.Detail = true, "found at "+p
	return c
}

func probeWebhook(cfg Config, dial func(ctx context.Context, network, addr string) (net.Conn, error)) Check {
	c := Check{Notifier: "webhook " + redact(cfg.Webhook)}
	u, err := url.Parse(cfg.Webhook)
	if err != nil || u.Hostname() == "" {
		c.Detail = "not a URL; set NOTIFY_WEBHOOK to the incoming webhook's http(s):// URL"
		return c
	}
	if cfg.WebhookFrom != "" {
		c.Skipped = true
		c.Detail = "named by the project (" + cfg.WebhookFrom + "), so not contacted; --doctor --notify-test sends it a test"
		return c
	}
	port := u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[u.Scheme]
	}
	addr := net.JoinHostPort(u.Hostname(), port)
	ctx, cancel := context.WithTimeout(context.Background(), min(cfg.Timeout, 5*time.Second))
	defer cancel()
	conn, err := dial(ctx, "tcp", addr)
	if err != nil {
		c.Detail = fmt.Sprintf("%s cannot be reached (%v); check the URL and the network", addr, unwrapOp(err))
		return c
	}
	conn.Close()
	c.OK, c.Detail = true, addr+" reachable (nothing sent; --doctor --notify-test sends a test)"
	return c
}

// unwrapOp drops the "dial tcp ADDR:" prefix net puts on its errors.
func unwrapOp(err error) error {
	if oe, ok := err.(*net.OpError); ok && oe.Err != nil {
		return oe.Err
	}
	return err
}

func probeDesktop(cfg Config) Check {
	d := desktop(cfg, cfg.Env)
	if d == nil {
		goos := cfg.GOOS
		if goos == "" {
			goos = runtime.GOOS
		}
		return Check{Notifier: "desktop", Skipped: true, Detail: fmt.Sprintf("no way to show a notice here (%s: notify-send in a desktop session, osascript, PowerShell); none will be shown", goos)}
	}
	return Check{Notifier: d.String(), OK: true, Detail: "found at " + d.argv[0]}
}

// sendTest sends one test notification to each configured notifier, one
// after the other, and says how each went.
func sendTest(cfg Config) []Check {
	if cfg.Timeout <= 0 {
		cfg.Timeout = defaultTimeout
	}
	now := time.Now
	if cfg.Now != nil {
		now = cfg.Now
	}
	e := events.Event{V: events.SchemaVersion, TS: now(), Type: testType, RunID: events.ISOTime(now()),
		Message: "test notification from ralph_loop --doctor --notify-test"}
	var out []Check
	for _, t := range targets(cfg) {
		n := &Notifier{cfg: cfg}
		n.cfg.Text = func(events.Event) string { return "test notification (ralph_loop --doctor --notify-test)" }
		m, err := n.message(e, string(testType))
		c := Check{Notifier: t.String()}
		if err == nil {
			_, err = t.send(context.Background(), m)
		}
		if err != nil {
			c.Detail = fmt.Sprintf("test notification failed: %v", err)
		} else {
			c.OK, c.Detail = true, "test notification sent"
		}
		out = append(out, c)
	}
	if cfg.Desktop && desktop(cfg, cfg.Env) == nil {
		out = append(out, probeDesktop(cfg))
	}
	return out
}
