package notify

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/ralphloop/ralph_loop/internal/events"
)

// answers is a transport that answers each try in turn (a status, or an
// error when status is 0), and records when each try came and its body.
type answers struct {
	status []int
	err    error
	hang   bool // never answer: wait for the request's context
	tries  []time.Duration
	bodies []string
	start  time.Time
}

func (a *answers) RoundTrip(req *http.Request) (*http.Response, error) {
	a.tries = append(a.tries, time.Since(a.start))
	b, _ := io.ReadAll(req.Body)
	a.bodies = append(a.bodies, string(b))
	if a.hang {
		<-req.Context().Done()
		return nil, req.Context().Err()
	}
	i := min(len(a.tries)-1, len(a.status)-1)
	if i < 0 || a.status[i] == 0 {
		return nil, a.err
	}
	return &http.Response{StatusCode: a.status[i], Status: http.StatusText(a.status[i]),
		Body: io.NopCloser(strings.NewReader("no_text")), Header: http.Header{}, Request: req}, nil
}

const secretURL = "https://hooks.example.com/services/T000/B000/secret-token"

func testMessage(t *testing.T) message {
	t.Helper()
	n := &Notifier{cfg: Config{Project: "demo", Text: func(events.Event) string { return "Ralph has completed the project" }}}
	m, err := n.message(events.Event{V: 1, Type: events.RunFinished, Reason: "plan_complete", ExitCode: new(0), Snapshot: events.Snapshot{Loop: 2}}, "run_finished")
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestWebhookRetries(t *testing.T) {
	refused := &errorString{"connect: connection refused"}
	for _, tc := range []struct {
		name    string
		a       answers
		tries   []time.Duration
		wantErr string
		report  string
	}{
		{"refused three times", answers{err: refused}, []time.Duration{0, time.Second, 3 * time.Second},
			"connect: connection refused (after 3 tries)", ""},
		{"a server error, then ok", answers{status: []int{503, 200}}, []time.Duration{0, time.Second}, "", "    OK (try 2)"},
		{"a client error is not tried again", answers{status: []int{404}}, []time.Duration{0},
			"HTTP Not Found: no_text (after 1 tries)", ""},
		{"too many requests is tried again", answers{status: []int{429, 429, 204}}, []time.Duration{0, time.Second, 3 * time.Second}, "", "    No Content (try 3)"},
		{"no answer", answers{hang: true}, []time.Duration{0, 11 * time.Second, 23 * time.Second},
			"no answer within 10s (NOTIFY_TIMEOUT) (after 3 tries)", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				a := tc.a
				a.start = time.Now()
				w := newWebhook(secretURL, 10*time.Second)
				w.client.Transport = &a
				report, err := w.send(context.Background(), testMessage(t))
				if diff := cmp.Diff(tc.tries, a.tries); diff != "" {
					t.Errorf("tries at (-want +got):\n%s", diff)
				}
				got := ""
				if err != nil {
					got = err.Error()
				}
				if got != tc.wantErr || report != tc.report {
					t.Errorf("send = %q, %q; want %q, %q", report, got, tc.report, tc.wantErr)
				}
				if strings.Contains(got, "secret") || strings.Contains(got, "/services") {
					t.Errorf("the error shows the URL's path: %s", got)
				}
			})
		})
	}
}

type errorString struct{ s string }

func (e *errorString) Error() string { return e.s }

// The run's end stops the waits between tries at once.
func TestWebhookStopsWithTheRun(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		a := &answers{err: syscall.ECONNREFUSED, start: time.Now()}
		w := newWebhook(secretURL, 10*time.Second)
		w.client.Transport = a
		ctx, cancel := context.WithCancel(context.Background())
		go func() { time.Sleep(500 * time.Millisecond); cancel() }()
		_, err := w.send(ctx, testMessage(t))
		if err == nil || !strings.Contains(err.Error(), "stopped before try 2: the loop exited first") || time.Since(a.start) != 500*time.Millisecond {
			t.Errorf("err %v after %s", err, time.Since(a.start))
		}
	})
}

// A try the run's end cuts short after earlier tries failed says why it
// was still trying: the earlier failure, then the stop.
func TestWebhookStoppedDuringALaterTry(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		w := newWebhook(secretURL, 10*time.Second)
		tries := 0
		w.client.Transport = roundTrip(func(req *http.Request) (*http.Response, error) {
			if tries++; tries < 3 {
				return nil, syscall.ECONNREFUSED
			}
			cancel() // the loop exits while the third try waits
			<-req.Context().Done()
			return nil, req.Context().Err()
		})
		_, err := w.send(ctx, testMessage(t))
		want := "connection refused; stopped during try 3: the loop exited first"
		if err == nil || err.Error() != want {
			t.Errorf("send error %v; want %q", err, want)
		}
	})
}

type roundTrip func(*http.Request) (*http.Response, error)

func (f roundTrip) RoundTrip(req *http.Request) (*http.Response, error) { return f(req) }

func TestWebhookBody(t *testing.T) {
	m := testMessage(t)
	b, err := webhookBody(m)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"text":"ralph_loop [demo]: Ralph has completed the project","event":` + string(m.json) + `}`
	if string(b) != want {
		t.Errorf("body\n%s\nwant\n%s", b, want)
	}
	var got struct {
		Text  string         `json:"text"`
		Type  *string        `json:"type"`
		Event map[string]any `json:"event"`
	}
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatalf("body is not JSON: %v: %s", err, b)
	}
	// No top-level "type": Mattermost would take it for the post's type.
	if got.Type != nil || got.Text == "" || got.Event["type"] != "run_finished" || got.Event["reason"] != "plan_complete" || got.Event["exit_code"] != 0.0 || got.Event["loop"] != 2.0 {
		t.Errorf("body %s", b)
	}
}

func TestRedact(t *testing.T) {
	for in, want := range map[string]string{
		secretURL:                       "https://hooks.example.com/…",
		"http://127.0.0.1:8080":         "http://127.0.0.1:8080",
		"http://127.0.0.1:8080/":        "http://127.0.0.1:8080",
		"https://h.example/?token=abc":  "https://h.example/…",
		"https://user:pw@h.example/x/y": "https://h.example/…",
		"::":                            "(an invalid URL)",
	} {
		if got := redact(in); got != want {
			t.Errorf("Redact(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestUnquoteURL(t *testing.T) {
	w := newWebhook(secretURL, time.Second)
	w.client.Transport = &answers{err: errors.New("dial tcp: lookup hooks.example.com: no such host")}
	_, err := w.post(context.Background(), []byte("{}"))
	if err == nil || strings.Contains(err.Error(), "secret") || strings.Contains(err.Error(), "Post ") {
		t.Errorf("post error %v", err)
	}
}

// TestWebhookNeverFollowsARedirect: a webhook server that redirects (to
// another host, or to itself) gets one POST; the redirect's target gets
// nothing, and no request carries the secret URL in a Referer header. Two
// real servers on loopback: 127.0.0.1 and 127.0.0.2 (or localhost).
func TestWebhookNeverFollowsARedirect(t *testing.T) {
	var hits atomic.Int32
	var referer atomic.Value
	target := serveOn(t, "127.0.0.2:0", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		referer.Store(r.Header.Get("Referer"))
	}))
	for _, code := range []int{http.StatusTemporaryRedirect, http.StatusPermanentRedirect, http.StatusFound} {
		var posts atomic.Int32
		hook := serveOn(t, "127.0.0.1:0", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			posts.Add(1)
			to := target + "/elsewhere"
			if r.URL.Path == "/self" {
				to = "/elsewhere"
			}
			if r.URL.Path == "/elsewhere" {
				return
			}
			http.Redirect(w, r, to, code)
		}))
		for _, path := range []string{"/services/secret", "/self"} {
			posts.Store(0)
			_, err := newWebhook(hook+path, 2*time.Second).send(context.Background(), testMessage(t))
			if err == nil || !strings.Contains(err.Error(), "redirects are not followed") || strings.Contains(err.Error(), "secret") {
				t.Errorf("%d to %s: %v, want a failure saying redirects are not followed", code, path, err)
			}
			if n := posts.Load(); n != 1 {
				t.Errorf("%d to %s: the webhook server got %d requests, want 1 (no retry, no same-host follow)", code, path, n)
			}
		}
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("the redirect's target on another host got %d requests (Referer %q)", n, referer.Load())
	}
}

// serveOn serves h on addr (a loopback address) until the test ends and
// returns its base URL; where the address cannot be had (127.0.0.2 on a
// system without the whole 127/8), localhost on 127.0.0.1 stands in for
// another host.
func serveOn(t *testing.T, addr string, h http.Handler) string {
	t.Helper()
	l, err := net.Listen("tcp", addr)
	host := ""
	if err != nil {
		if l, err = net.Listen("tcp", "127.0.0.1:0"); err != nil {
			t.Fatal(err)
		}
		host = "localhost"
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 5 * time.Second}
	go srv.Serve(l)
	t.Cleanup(func() { srv.Close() })
	_, port, _ := net.SplitHostPort(l.Addr().String())
	if host == "" {
		host, _, _ = net.SplitHostPort(l.Addr().String())
	}
	return "http://" + net.JoinHostPort(host, port)
}
