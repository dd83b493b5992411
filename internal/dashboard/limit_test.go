package dashboard

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

// counting counts the connections it accepted that are still open, and
// the most ever open at once.
type counting struct {
	net.Listener
	mu         sync.Mutex
	open, peak int
}

func (l *counting) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	l.mu.Lock()
	l.open++
	l.peak = max(l.peak, l.open)
	l.mu.Unlock()
	return &countedConn{Conn: c, l: l}, nil
}

func (l *counting) counts() (open, peak int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.open, l.peak
}

type countedConn struct {
	net.Conn
	l    *counting
	once sync.Once
}

func (c *countedConn) Close() error {
	c.once.Do(func() {
		c.l.mu.Lock()
		c.l.open--
		c.l.mu.Unlock()
	})
	return c.Conn.Close()
}

// serveReal serves s on a real loopback port until the test ends.
func serveReal(t *testing.T, s *Server) (addr string, l *counting) {
	t.Helper()
	raw, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	l = &counting{Listener: raw}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); Serve(ctx, l, s) }()
	t.Cleanup(func() { cancel(); <-done })
	return raw.Addr().String(), l
}

// closedWithin reports whether the server closes c within limit (the
// read ends, having read what the server sent).
func closedWithin(c net.Conn, limit time.Duration) (string, bool) {
	c.SetReadDeadline(time.Now().Add(limit))
	b, err := io.ReadAll(c)
	return string(b), err == nil
}

// TestConnectionsAreBoundedAndClosed: a real server on 127.0.0.1 holds at
// most MaxConns connections however many are opened, closes one that
// sends no request within Timeout, and closes a refused request's
// connection.
func TestConnectionsAreBoundedAndClosed(t *testing.T) {
	s, _, _ := newTestServer(Options{MaxConns: 4, Timeout: 300 * time.Millisecond})
	addr, l := serveReal(t, s)
	var conns []net.Conn
	for range 12 {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		c.Write([]byte("GET /p/0/ HTTP/1.1\r\nHost: 127.0.0.1\r\n")) // never finished
		conns = append(conns, c)
	}
	for i, c := range conns {
		if _, ok := closedWithin(c, 10*time.Second); !ok {
			t.Fatalf("connection %d that never sent its headers is still open", i)
		}
	}
	if !waitUntil(func() bool { open, _ := l.counts(); return open == 0 }) {
		t.Errorf("connections still open on the server")
	}
	if _, peak := l.counts(); peak > 4 {
		t.Errorf("the server held %d connections at once, want at most 4", peak)
	}

	// A refused request (a page using DNS rebinding) gets its answer and
	// loses its connection, though it asked to keep it.
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.Write([]byte("GET /api/p/0/snapshot HTTP/1.1\r\nHost: evil.example\r\nConnection: keep-alive\r\n\r\n"))
	got, ok := closedWithin(c, 200*time.Millisecond) // before the 300 ms idle timeout
	if !ok || !strings.HasPrefix(got, "HTTP/1.1 403") || !strings.Contains(got, "Connection: close") {
		t.Errorf("refused request: closed %v, answer %q", ok, got)
	}
}

// TestEventStreamsAreBounded: past MaxStreams an event stream is refused
// (503) and its connection closed; the page itself still loads.
func TestEventStreamsAreBounded(t *testing.T) {
	s, _, _ := newTestServer(Options{MaxStreams: 2})
	addr, _ := serveReal(t, s)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	for i := range 2 {
		req, _ := http.NewRequestWithContext(ctx, "GET", "http://"+addr+"/api/p/0/events", nil)
		res, err := http.DefaultClient.Do(req)
		if err != nil || res.StatusCode != 200 {
			t.Fatalf("stream %d: %v %v", i, err, res)
		}
		defer res.Body.Close()
		bufio.NewReader(res.Body).ReadString('\n') // it is served
	}
	res, err := http.Get("http://" + addr + "/api/p/0/events")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusServiceUnavailable || !res.Close {
		t.Errorf("a third stream: %d (close %v), want 503 and the connection closed", res.StatusCode, res.Close)
	}
	if res, err := http.Get("http://" + addr + "/p/0/"); err != nil || res.StatusCode != 200 {
		t.Errorf("the page with the streams full: %v %v", err, res)
	} else {
		res.Body.Close()
	}
}

func waitUntil(cond func() bool) bool {
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		if cond() {
			return true
		}
	}
	return cond()
}

// TestTokenLinkStaysHome: a ?token= link leads to one of the server's own
// pages whatever its path (//evil.example/ is an address to a browser),
// keeps only the right token, in a cookie named after the server's port,
// and a wrong one neither sets nor replaces the cookie.
func TestTokenLinkStaysHome(t *testing.T) {
	s, _, _ := newTestServer(Options{Token: token, Controls: true})
	addr, _ := serveReal(t, s)
	_, port, _ := net.SplitHostPort(addr)
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	get := func(path string) *http.Response {
		t.Helper()
		// The path goes on the request line as it is.
		req, _ := http.NewRequest("GET", "http://"+addr+"/", nil)
		req.URL.Opaque = path
		res, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		return res
	}
	for path, want := range map[string]string{
		"//evil.example/?token=" + token:     "/",
		"/%2F%2Fevil.example?token=" + token: "/",
		"/p/0/?token=" + token:               "/p/0/",
		"/p/9/?token=" + token:               "/",
		"/static/app.js?token=" + token:      "/",
	} {
		res := get(path)
		c := res.Cookies()
		if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != want {
			t.Errorf("%s: %d to %q, want 303 to %q", path, res.StatusCode, res.Header.Get("Location"), want)
		}
		if len(c) != 1 || c[0].Name != "ralph_token_"+port || c[0].Value != token || c[0].Path != "/" || !c[0].HttpOnly || c[0].SameSite != http.SameSiteStrictMode {
			t.Errorf("%s: cookie %+v, want ralph_token_%s=the token, Path=/, HttpOnly, SameSite=Strict", path, c, port)
		}
	}
	res := get("/p/0/?token=attacker-chosen-0123456789")
	if res.StatusCode != http.StatusUnauthorized || len(res.Cookies()) != 0 || !res.Close {
		t.Errorf("a wrong token link: %d, cookies %v, close %v; want 401, no cookie, the connection closed", res.StatusCode, res.Cookies(), res.Close)
	}
}
