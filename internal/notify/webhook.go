package notify

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/ralphloop/ralph_loop/internal/clip"
)

// tries is how many times a webhook is tried before it counts as failed.
const tries = 3

// backoff is the wait before try n+1 (1 s, then 2 s).
func backoff(n int) time.Duration { return time.Duration(1<<(n-1)) * time.Second }

// webhook POSTs the event's JSON under a text field, so that a Slack or
// Mattermost incoming webhook shows the text as it is.
type webhook struct {
	url    string
	client *http.Client // its Timeout bounds one try
}

func newWebhook(u string, timeout time.Duration) *webhook {
	return &webhook{url: u, client: &http.Client{Timeout: timeout, CheckRedirect: noRedirects}}
}

// noRedirects keeps a webhook's POST where it was sent: a redirect, to
// another host or to the same one, is answered as it is (a failure) and
// never followed, so the event is never posted anywhere else and no
// request carries the secret URL in a Referer header.
func noRedirects(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }

// String names the webhook by its scheme and host: the path of an
// incoming webhook is its secret and is never shown.
func (w *webhook) String() string { return "webhook " + redact(w.url) }

// redact is u with everything after the host replaced by "…".
func redact(u string) string {
	p, err := url.Parse(u)
	if err != nil || p.Host == "" {
		return "(an invalid URL)"
	}
	shown := p.Scheme + "://" + p.Host
	if p.Path != "" && p.Path != "/" || p.RawQuery != "" {
		shown += "/…"
	}
	return shown
}

func (w *webhook) send(ctx context.Context, m message) (string, error) {
	body, err := webhookBody(m)
	if err != nil {
		return "", err
	}
	var last error
	try := 1
	for ; try <= tries; try++ {
		if try > 1 {
			if err := sleep(ctx, backoff(try-1)); err != nil {
				return "", fmt.Errorf("%v; stopped before try %d: the loop exited first", last, try)
			}
		}
		status, err := w.post(ctx, body)
		if err == nil {
			return fmt.Sprintf("    %s (try %d)", status, try), nil
		}
		if last != nil && ctx.Err() != nil {
			// The loop exited during a later try: the earlier tries'
			// failure is why it was still trying.
			return "", fmt.Errorf("%v; stopped during try %d: the loop exited first", last, try)
		}
		last = err
		var pe permanent
		if errors.As(err, &pe) {
			break
		}
	}
	if try > tries {
		try = tries
	}
	return "", fmt.Errorf("%v (after %d tries)", last, try)
}

// permanent is an answer that trying again will not change (a 4xx other
// than 408 and 429).
type permanent struct{ error }

// post makes one try. The error never quotes the URL.
func (w *webhook) post(ctx context.Context, body []byte) (string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, w.url, bytes.NewReader(body))
	if err != nil {
		return "", errors.New("cannot build the request: invalid URL")
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "ralph_loop")
	resp, err := w.client.Do(req)
	if err != nil {
		return "", unquoteURL(err, w.client.Timeout)
	}
	defer resp.Body.Close()
	answer, _ := io.ReadAll(io.LimitReader(resp.Body, 4<<10))
	if resp.StatusCode >= 200 && resp.StatusCode < 300 {
		return resp.Status, nil
	}
	if resp.StatusCode >= 300 && resp.StatusCode < 400 {
		return "", permanent{fmt.Errorf("HTTP %s: redirects are not followed; set NOTIFY_WEBHOOK to the address it redirects to", resp.Status)}
	}
	err = fmt.Errorf("HTTP %s: %s", resp.Status, oneLine(string(answer)))
	if resp.StatusCode >= 400 && resp.StatusCode < 500 && resp.StatusCode != http.StatusRequestTimeout && resp.StatusCode != http.StatusTooManyRequests {
		return "", permanent{err}
	}
	return "", err
}

// unquoteURL drops the URL that net/http puts in its errors.
func unquoteURL(err error, timeout time.Duration) error {
	var ue *url.Error
	if !errors.As(err, &ue) {
		return err
	}
	if ue.Timeout() {
		return fmt.Errorf("no answer within %s (NOTIFY_TIMEOUT)", timeout)
	}
	if errors.Is(ue.Err, context.Canceled) {
		return errors.New("stopped: still waiting when the loop exited")
	}
	return ue.Err
}

// webhookBody is {"text": the event for a person, "event": the event's
// JSON}. The event is nested rather than merged: its "type" at the top
// level would be read by Mattermost as the post's type, which it refuses
// unless it starts with "custom_".
func webhookBody(m message) ([]byte, error) {
	text, err := json.Marshal(m.text)
	if err != nil {
		return nil, err
	}
	if len(m.json) < 2 || m.json[0] != '{' {
		return nil, errors.New("the event is not a JSON object")
	}
	var b bytes.Buffer
	b.WriteString(`{"text":`)
	b.Write(text)
	b.WriteString(`,"event":`)
	b.Write(m.json)
	b.WriteByte('}')
	return b.Bytes(), nil
}

// sleep waits d, or until ctx ends.
func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// oneLine makes an answer fit a log line: blanks folded, clipped.
func oneLine(s string) string {
	s = strings.Join(strings.Fields(strings.ToValidUTF8(s, "\uFFFD")), " ")
	if len(s) > 200 {
		s = clip.Bytes(s, 200) + "…"
	}
	if s == "" {
		return "(no body)"
	}
	return s
}
