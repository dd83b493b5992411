package dashboard

import (
	"bufio"
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

const token = "0123456789abcdef-token"

// fakeSource is a Source whose state the test sets.
type fakeSource struct {
	mu    sync.Mutex
	n     int
	live  string
	stamp int
}

func (f *fakeSource) Stamps() (string, string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	s := strings.Repeat("x", f.stamp)
	return s, s
}

func (f *fakeSource) Snapshot() any {
	f.mu.Lock()
	defer f.mu.Unlock()
	return map[string]int{"loop": f.n}
}

func (f *fakeSource) Live() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.live
}

func (f *fakeSource) set(n int, live string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.n, f.live = n, live
	f.stamp++
}

type controls struct {
	mu   sync.Mutex
	done []string
}

func (c *controls) do(action string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.done = append(c.done, action)
	return nil
}

func (c *controls) list() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return strings.Join(c.done, ",")
}

func newTestServer(opts Options) (*Server, *fakeSource, *controls) {
	src, ctl := &fakeSource{}, &controls{}
	return New([]Project{{Name: "demo", Source: src, Control: ctl.do}}, opts), src, ctl
}

// request is one request as the server would see it: from remote, to host.
func request(method, target, remote, host string, hdr map[string]string) *http.Request {
	r := httptest.NewRequest(method, target, nil)
	r.RemoteAddr, r.Host = remote, host
	for k, v := range hdr {
		r.Header.Set(k, v)
	}
	return r
}

func do(s *Server, r *http.Request) *httptest.ResponseRecorder {
	w := httptest.NewRecorder()
	s.ServeHTTP(w, r)
	return w
}

const (
	here  = "127.0.0.1:50000"
	there = "192.0.2.7:50000"
	host  = "127.0.0.1:8765"
)

func TestAccessRules(t *testing.T) {
	open, _, _ := newTestServer(Options{})
	guarded, _, _ := newTestServer(Options{Token: token, Controls: true})
	// A sandboxed agent with the network on shares this machine's loopback.
	sandboxed, _, _ := newTestServer(Options{Token: token, TokenEverywhere: true})
	for _, tc := range []struct {
		name string
		s    *Server
		r    *http.Request
		want int
	}{
		{"loopback, no token set", open, request("GET", "/p/0/", here, host, nil), 200},
		{"loopback by name", open, request("GET", "/p/0/", "[::1]:4000", "localhost:8765", nil), 200},
		{"other machine, no token set", open, request("GET", "/p/0/", there, host, nil), 403},
		{"other machine, token set, none sent", guarded, request("GET", "/p/0/", there, "203.0.113.1:8765", nil), 401},
		{"other machine, wrong token", guarded, request("GET", "/p/0/", there, "203.0.113.1:8765", map[string]string{"X-Ralph-Token": token + "x"}), 401},
		{"other machine, token header", guarded, request("GET", "/p/0/", there, "203.0.113.1:8765", map[string]string{"X-Ralph-Token": token}), 200},
		{"other machine, bearer", guarded, request("GET", "/api/p/0/snapshot", there, "203.0.113.1:8765", map[string]string{"Authorization": "Bearer " + token}), 200},
		{"other machine, cookie", guarded, request("GET", "/p/0/", there, "203.0.113.1:8765", map[string]string{"Cookie": cookieName + "=" + token}), 200},
		{"DNS rebinding: loopback peer, foreign host", open, request("GET", "/api/p/0/snapshot", here, "evil.example:8765", nil), 403},
		{"cross-site fetch", open, request("GET", "/api/p/0/snapshot", here, host, map[string]string{"Sec-Fetch-Site": "cross-site"}), 403},
		{"same-site fetch", open, request("GET", "/api/p/0/snapshot", here, host, map[string]string{"Sec-Fetch-Site": "same-site"}), 403},
		{"foreign origin", open, request("GET", "/api/p/0/snapshot", here, host, map[string]string{"Origin": "http://evil.example"}), 403},
		{"same origin", open, request("GET", "/api/p/0/snapshot", here, host, map[string]string{"Origin": "http://" + host, "Sec-Fetch-Site": "same-origin"}), 200},
		{"sandboxed: loopback, no token sent", sandboxed, request("GET", "/api/p/0/snapshot", here, host, nil), 401},
		{"sandboxed: loopback, wrong token", sandboxed, request("GET", "/p/0/", here, host, map[string]string{"X-Ralph-Token": token + "x"}), 401},
		{"sandboxed: loopback, token cookie", sandboxed, request("GET", "/p/0/", here, host, map[string]string{"Cookie": cookieName + "=" + token}), 200},
		{"unknown project", open, request("GET", "/p/1/", here, host, nil), 404},
		{"project number spelled oddly", open, request("GET", "/p/00/", here, host, nil), 404},
	} {
		w := do(tc.s, tc.r)
		if w.Code != tc.want {
			t.Errorf("%s: %d %q, want %d", tc.name, w.Code, strings.TrimSpace(w.Body.String()), tc.want)
		}
		if w.Header().Get("Access-Control-Allow-Origin") != "" {
			t.Errorf("%s: a CORS header was sent", tc.name)
		}
		if csp := w.Header().Get("Content-Security-Policy"); !strings.Contains(csp, "default-src 'none'") || strings.Contains(csp, "unsafe") {
			t.Errorf("%s: Content-Security-Policy %q", tc.name, csp)
		}
	}
}

func TestControlsNeedTheToken(t *testing.T) {
	s, _, ctl := newTestServer(Options{Token: token, Controls: true})
	post := func(path string, hdr map[string]string) int {
		return do(s, request("POST", path, here, host, hdr)).Code
	}
	if c := post("/api/p/0/control/pause", nil); c != 401 {
		t.Errorf("pause without the token: %d, want 401", c)
	}
	if c := post("/api/p/0/control/pause", map[string]string{"X-Ralph-Token": "wrong-token-0123456789"}); c != 401 {
		t.Errorf("pause with a wrong token: %d, want 401", c)
	}
	if c := post("/api/p/0/control/stop", map[string]string{"X-Ralph-Token": token, "Origin": "http://evil.example"}); c != 403 {
		t.Errorf("stop from another origin: %d, want 403", c)
	}
	if c := post("/api/p/0/control/stop", map[string]string{"Cookie": cookieName + "=" + token, "Sec-Fetch-Site": "cross-site"}); c != 403 {
		t.Errorf("stop from another site with the cookie: %d, want 403", c)
	}
	if c := post("/api/p/0/control/explode", map[string]string{"X-Ralph-Token": token}); c != 404 {
		t.Errorf("an unknown control: %d, want 404", c)
	}
	if c := do(s, request("GET", "/api/p/0/control/pause", here, host, map[string]string{"X-Ralph-Token": token})).Code; c != 405 {
		t.Errorf("a control by GET: %d, want 405", c)
	}
	if got := ctl.list(); got != "" {
		t.Fatalf("controls ran without the token: %s", got)
	}
	for _, a := range actions {
		if c := post("/api/p/0/control/"+a, map[string]string{"X-Ralph-Token": token, "Origin": "http://" + host}); c != 200 {
			t.Errorf("%s with the token: %d, want 200", a, c)
		}
	}
	if got := ctl.list(); got != "pause,resume,skip,stop" {
		t.Errorf("controls run: %s", got)
	}

	off, _, ctl2 := newTestServer(Options{Token: token})
	if c := do(off, request("POST", "/api/p/0/control/pause", here, host, map[string]string{"X-Ralph-Token": token})).Code; c != 403 || ctl2.list() != "" {
		t.Errorf("pause with controls off: %d (%s), want 403 and nothing done", c, ctl2.list())
	}
}

func TestTokenLinkSetsCookie(t *testing.T) {
	s, _, _ := newTestServer(Options{Token: token, Controls: true})
	w := do(s, request("GET", "/p/0/?token="+token, there, "203.0.113.1:8765", nil))
	if w.Code != http.StatusSeeOther || w.Header().Get("Location") != "/p/0/" {
		t.Fatalf("token link: %d to %q, want 303 to /p/0/ (the token out of the address)", w.Code, w.Header().Get("Location"))
	}
	c := w.Result().Cookies()
	if len(c) != 1 || c[0].Value != token || !c[0].HttpOnly || c[0].SameSite != http.SameSiteStrictMode {
		t.Errorf("cookie: %+v, want the token, HttpOnly, SameSite=Strict", c)
	}
	if w := do(s, request("GET", "/p/0/?token=wrong-token-0123456789", there, "203.0.113.1:8765", nil)); w.Code != 401 || len(w.Result().Cookies()) != 0 {
		t.Errorf("a wrong token link: %d, cookies %v; want 401 and none", w.Code, w.Result().Cookies())
	}
}

func TestListenLoopbackOnlyWithoutToken(t *testing.T) {
	for _, addr := range []string{"0.0.0.0:0", ":0", "192.0.2.1:0"} {
		if l, err := Listen(addr, "", "--serve"); err == nil {
			l.Close()
			t.Errorf("Listen(%q) without a token: no error", addr)
		} else if !strings.Contains(err.Error(), "SERVE_TOKEN") || strings.Contains(err.Error(), "\n") {
			t.Errorf("Listen(%q): %v", addr, err)
		}
	}
	l, err := Listen("127.0.0.1:0", "", "--serve")
	if err != nil {
		t.Fatal(err)
	}
	l.Close()
}

func TestEventStreamSendsChanges(t *testing.T) {
	s, src, _ := newTestServer(Options{})
	src.set(1, "first line\n")
	s.refresh(false)
	ts := httptest.NewServer(s)
	defer ts.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", ts.URL+"/api/p/0/events", nil)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if ct := res.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("Content-Type %q", ct)
	}
	sc := bufio.NewScanner(res.Body)
	next := func(want string) {
		t.Helper()
		for sc.Scan() {
			if strings.HasPrefix(sc.Text(), "data: ") && strings.Contains(sc.Text(), want) {
				return
			}
		}
		t.Fatalf("stream ended before %q", want)
	}
	next(`"controls":false`)
	next(`{"loop":1}`)
	next(`"first line\n"`)
	src.set(2, "first line\nsecond line\n")
	s.refresh(false)
	next(`{"loop":2}`)
	next(`second line`)
}

func TestOverviewListsProjects(t *testing.T) {
	a, b := &summarized{}, &summarized{}
	a.set(3, "")
	s := New([]Project{{Name: "one", Source: a}, {Name: "two", Source: b}}, Options{})
	if w := do(s, request("GET", "/", here, host, nil)); w.Code != 200 || !strings.Contains(w.Body.String(), "<table id=\"rows\">") {
		t.Fatalf("/ with two projects: %d", w.Code)
	}
	want := `[{"name":"one","href":"/p/0/","summary":{"loop":3}},{"name":"two","href":"/p/1/","summary":{"loop":0}}]`
	if w := do(s, request("GET", "/api/overview", here, host, nil)); w.Body.String() != want {
		t.Errorf("overview: %s", w.Body.String())
	}
	a.set(4, "")
	s.refresh(false)
	if w := do(s, request("GET", "/api/overview", here, host, nil)); !strings.Contains(w.Body.String(), `"summary":{"loop":4}`) {
		t.Errorf("overview after a change: %s", w.Body.String())
	}
}

// summarized is a fakeSource with a summary of its own.
type summarized struct{ fakeSource }

func (f *summarized) Summary() any {
	f.mu.Lock()
	defer f.mu.Unlock()
	return map[string]int{"loop": f.n}
}

// hostileSource is a loop whose output and plan try to end the page's
// data block.
type hostileSource struct{}

func (hostileSource) Stamps() (string, string) { return "", "" }
func (hostileSource) Snapshot() any {
	return map[string]string{"task": "</script><script>alert(1)</script>"}
}
func (hostileSource) Live() string   { return "<!-- </script> & done" }
func (h hostileSource) Summary() any { return h.Snapshot() }

// The page carries the loop as it is, so that it shows before its event
// stream connects; nothing in the data can end the block it sits in.
func TestPageCarriesInitialData(t *testing.T) {
	s := New([]Project{{Name: "demo", Source: hostileSource{}}}, Options{})
	w := do(s, request("GET", "/p/0/", here, host, nil))
	body := w.Body.String()
	const open = `<script id="initial" type="application/json">`
	i := strings.Index(body, open)
	if w.Code != 200 || i < 0 {
		t.Fatalf("/p/0/: %d, no data block:\n%s", w.Code, body)
	}
	block, _, _ := strings.Cut(body[i+len(open):], "</script>")
	want := `{"live":"\u003c!-- \u003c/script\u003e \u0026 done","meta":{"name":"demo","controls":false,"answers":false,"authorized":false,"poll_ms":1000},"snapshot":{"task":"\u003c/script\u003e\u003cscript\u003ealert(1)\u003c/script\u003e"}}`
	if block != want {
		t.Errorf("data block\n got %s\nwant %s", block, want)
	}
	if n := strings.Count(body, "</script>"); n != 2 {
		t.Errorf("%d </script> in the page, want 2 (app.js's and the data block's)", n)
	}

	s = New([]Project{{Name: "a", Source: hostileSource{}}, {Name: "b", Source: hostileSource{}}}, Options{})
	body = do(s, request("GET", "/", here, host, nil)).Body.String()
	if !strings.Contains(body, open+`{"snapshot":[{"name":"a","href":"/p/0/","summary":{"task":"\u003c/script\u003e`) {
		t.Errorf("the overview page carries no rows:\n%s", body)
	}
}
