package dashboard

import (
	"bytes"
	"context"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

//go:embed static
var static embed.FS

// Source is what the dashboard shows of one loop.
type Source interface {
	// Stamps are cheap to compute: snap changes whenever Snapshot may
	// return something new, live whenever Live may (file sizes and times,
	// say).
	Stamps() (snap, live string)
	// Snapshot is the loop's state, marshalled to JSON for the page.
	Snapshot() any
	// Live is the end of the running (or last) call's output.
	Live() string
}

// actions are the controls a page may offer.
var actions = []string{"pause", "resume", "skip", "stop"}

// Project is one loop the server shows.
type Project struct {
	Name   string
	Source Source
	// Control does what a button asks: "pause", "resume", "skip" or
	// "stop"; nil: this loop offers no controls.
	Control func(action string) error
	// Answer gives the person's answer to the question the agent asked
	// (POST /api/p/N/answer), and returns the question it answered; an
	// error says why it could not (no question waits, it is answered
	// already). Nil: this loop takes no answers. It is a control: it
	// needs SERVE_CONTROL and the token.
	Answer func(text string) (question string, err error)
}

// Options set up a Server.
type Options struct {
	// Token guards the controls and every request from another machine;
	// empty means none (the server then binds to loopback only).
	Token string
	// Controls turns the controls on (they still need the token).
	Controls bool
	// TokenEverywhere: every request needs the token, this machine's too
	// (a sandboxed agent with the network on shares this machine's
	// loopback, and the page shows the logs the sandbox hides from it).
	TokenEverywhere bool
	// Poll is how often the sources are looked at (their Stamp); 0 means
	// every second.
	Poll time.Duration
	// MaxConns bounds the connections open at once (0: DefaultMaxConns);
	// past it new ones wait in the system's queue, costing no file here.
	MaxConns int
	// MaxStreams bounds the event streams among them (0:
	// defaultMaxStreams); one more is refused.
	MaxStreams int
	// Timeout is how long a connection may take to send a request's
	// headers, sit idle between requests, or leave an answer unread
	// (0: defaultTimeout).
	Timeout time.Duration
}

// DefaultMaxConns is the connections a dashboard holds open at once, as
// docs/DASHBOARD.md says: a dashboard is a few pages, and its server must
// never take the files its loop needs.
const DefaultMaxConns = 64

// The defaults of Options' other bounds.
const (
	defaultMaxStreams = 32
	defaultTimeout    = 10 * time.Second
)

// Server is the dashboard's HTTP handler.
type Server struct {
	opts     Options
	projects []*feed
	overview *feed
	poke     chan struct{}
	files    http.Handler
	streams  chan struct{} // one per open event stream
}

// New builds a server for one or more projects.
func New(projects []Project, opts Options) *Server {
	if opts.Poll <= 0 {
		opts.Poll = time.Second
	}
	if opts.MaxConns <= 0 {
		opts.MaxConns = DefaultMaxConns
	}
	if opts.MaxStreams <= 0 {
		opts.MaxStreams = defaultMaxStreams
	}
	if opts.Timeout <= 0 {
		opts.Timeout = defaultTimeout
	}
	sub, err := fs.Sub(static, "static")
	if err != nil {
		panic(err) // the embedded folder is part of the binary
	}
	s := &Server{opts: opts, overview: newFeed(Project{}), poke: make(chan struct{}, 1),
		files: http.FileServerFS(sub), streams: make(chan struct{}, opts.MaxStreams)}
	for _, p := range projects {
		s.projects = append(s.projects, newFeed(p))
	}
	s.refresh(true)
	return s
}

// Poke asks for the sources to be read again soon; it never blocks.
func (s *Server) Poke() {
	select {
	case s.poke <- struct{}{}:
	default:
	}
}

// run looks at the sources on every poll and every Poke until ctx ends,
// and reads again the ones whose stamps moved.
// Between two reads it waits at least a tenth of the poll, so a burst of
// pokes (a fast stream of live output) costs a few reads a second.
func (s *Server) run(ctx context.Context) {
	tick := time.NewTicker(s.opts.Poll)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		case <-s.poke:
		}
		s.refresh(false)
		select {
		case <-ctx.Done():
			return
		case <-time.After(s.opts.Poll / 10):
		}
	}
}

// summarizer is a Source that can say in a few fields how its loop is,
// for the overview of many loops. The overview carries these summaries
// only (a Source that is no summarizer shows its name only): it stays
// small and cheap for hundreds of loops, and a loop's whole snapshot is
// read when its own page or API asks for it.
type summarizer interface {
	Summary() any
}

// refresh looks at every source's stamps (and reads every summary when
// force is set) and tells the pages what is new. Nothing else is read
// here: a snapshot or live output whose stamp moved is read when a page,
// stream or request asks for it. The overview is built again only when
// a summary changed.
func (s *Server) refresh(force bool) {
	summarize := len(s.projects) > 1
	changed := false
	for _, f := range s.projects {
		if f.refresh(force, summarize) {
			changed = true
		}
	}
	if !changed && !force {
		return
	}
	rows := make([]overviewRow, len(s.projects))
	for i, f := range s.projects {
		rows[i] = overviewRow{Name: f.p.Name, Href: "/p/" + strconv.Itoa(i) + "/", Summary: f.summarized()}
	}
	b, err := json.Marshal(rows)
	if err == nil {
		s.overview.set(b, nil)
	}
}

// overviewRow is one loop in the overview: GET /api/overview and the
// overview page's event stream.
type overviewRow struct {
	Name    string          `json:"name"`
	Href    string          `json:"href"`
	Summary json.RawMessage `json:"summary"`
}

// feed is the last snapshot and live output of one source, read when
// asked for after their stamps moved, and the channel closed when a stamp
// moves (or, for the overview, when it changes).
type feed struct {
	p Project

	mu        sync.Mutex
	snapStamp string
	liveStamp string
	snapStale bool // snapStamp moved since snap was read
	liveStale bool
	snap      []byte
	live      []byte
	summary   []byte
	changed   chan struct{}

	reading sync.Mutex // one read of the source at a time
}

func newFeed(p Project) *feed {
	return &feed{p: p, snap: []byte("null"), live: []byte(`""`), summary: []byte("null"), changed: make(chan struct{}),
		snapStale: p.Source != nil, liveStale: p.Source != nil}
}

// refresh notes which stamps moved (all with force), wakes the pages when
// one did, reads the summary again when summarize is set and the
// snapshot's stamp moved, and reports whether the summary changed.
func (f *feed) refresh(force, summarize bool) bool {
	if f.p.Source == nil {
		return false
	}
	snapStamp, liveStamp := f.p.Source.Stamps()
	f.mu.Lock()
	snapMoved, liveMoved := force || snapStamp != f.snapStamp, force || liveStamp != f.liveStamp
	f.snapStamp, f.liveStamp = snapStamp, liveStamp
	f.snapStale = f.snapStale || snapMoved
	f.liveStale = f.liveStale || liveMoved
	if snapMoved || liveMoved {
		close(f.changed)
		f.changed = make(chan struct{})
	}
	f.mu.Unlock()
	sum, ok := f.p.Source.(summarizer)
	if !summarize || !ok || !snapMoved {
		return false
	}
	b, err := json.Marshal(sum.Summary())
	if err != nil {
		b, _ = json.Marshal(map[string]string{"error": err.Error()})
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if bytes.Equal(b, f.summary) {
		return false
	}
	f.summary = b
	return true
}

func (f *feed) summarized() json.RawMessage {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.summary
}

// set stores snap and live (nil keeps the old value) and wakes the pages
// when either changed.
func (f *feed) set(snap, live []byte) {
	f.mu.Lock()
	defer f.mu.Unlock()
	changed := false
	if snap != nil && !bytes.Equal(snap, f.snap) {
		f.snap, changed = snap, true
	}
	if live != nil && !bytes.Equal(live, f.live) {
		f.live, changed = live, true
	}
	if changed {
		close(f.changed)
		f.changed = make(chan struct{})
	}
}

// get is the snapshot and live output, read again first where their
// stamps moved, and the channel closed at the next move.
func (f *feed) get() (snap, live []byte, changed <-chan struct{}) {
	f.reading.Lock()
	defer f.reading.Unlock()
	f.mu.Lock()
	readSnap, readLive := f.snapStale, f.liveStale
	f.snapStale, f.liveStale = false, false
	// A move during the read closes this channel: its reader comes back.
	changed = f.changed
	f.mu.Unlock()
	if readSnap {
		var err error
		if snap, err = json.Marshal(f.p.Source.Snapshot()); err != nil {
			snap, _ = json.Marshal(map[string]string{"error": err.Error()})
		}
	}
	if readLive {
		live, _ = json.Marshal(f.p.Source.Live())
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if snap != nil {
		f.snap = snap
	}
	if live != nil {
		f.live = live
	}
	return f.snap, f.live, changed
}

// ServeHTTP applies the access rules, then routes the request.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Content-Security-Policy", "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("Cache-Control", "no-store")
	if why, code := s.refused(r); why != "" {
		// A refused client gets its answer and loses its connection.
		h.Set("Connection", "close")
		http.Error(w, why, code)
		return
	}
	if t := r.URL.Query().Get("token"); t != "" && r.Method == http.MethodGet {
		// A link with the token: keep it in a cookie and drop it from the
		// address bar (and from the history). Only the right token is
		// kept, and the redirect goes to one of the server's own pages.
		if !s.isToken(t) {
			h.Set("Connection", "close")
			http.Error(w, "this link's token is wrong: open the ?token= link the dashboard printed", http.StatusUnauthorized)
			return
		}
		http.SetCookie(w, &http.Cookie{Name: cookieFor(r), Value: t, Path: "/", HttpOnly: true, SameSite: http.SameSiteStrictMode})
		http.Redirect(w, r, s.landing(r.URL.Path), http.StatusSeeOther)
		return
	}
	s.route(w, r)
}

// landing is the page a token link leads to: path when it is one of the
// server's pages (/ or /p/N/), else /. It is never built from anything
// else of the request, so a link cannot send the browser elsewhere
// (//evil.example/ is a path to the server and an address to a browser).
func (s *Server) landing(path string) string {
	if num, ok := strings.CutPrefix(path, "/p/"); ok {
		num, ok = strings.CutSuffix(num, "/")
		if i, err := strconv.Atoi(num); ok && err == nil && i >= 0 && i < len(s.projects) && strconv.Itoa(i) == num {
			return "/p/" + num + "/"
		}
	}
	return "/"
}

func (s *Server) route(w http.ResponseWriter, r *http.Request) {
	path := r.URL.Path
	switch {
	case path == "/" && r.Method == http.MethodGet:
		if len(s.projects) == 1 {
			http.Redirect(w, r, "/p/0/", http.StatusSeeOther)
			return
		}
		s.page(w, r, s.overview, false)
	case strings.HasPrefix(path, "/static/") && r.Method == http.MethodGet:
		http.StripPrefix("/static", s.files).ServeHTTP(w, r)
	case path == "/api/overview/events" && r.Method == http.MethodGet:
		s.stream(w, r, s.overview, false)
	case path == "/api/overview" && r.Method == http.MethodGet:
		rows, _, _ := s.overview.get()
		w.Header().Set("Content-Type", "application/json")
		w.Write(rows)
	default:
		s.projectRoute(w, r)
	}
}

// projectRoute serves /p/N/ (the page) and /api/p/N/... (its data and
// controls).
func (s *Server) projectRoute(w http.ResponseWriter, r *http.Request) {
	rest, api := strings.CutPrefix(r.URL.Path, "/api/p/")
	if !api {
		var ok bool
		if rest, ok = strings.CutPrefix(r.URL.Path, "/p/"); !ok {
			http.NotFound(w, r)
			return
		}
	}
	num, tail, _ := strings.Cut(rest, "/")
	i, err := strconv.Atoi(num)
	if err != nil || i < 0 || i >= len(s.projects) || strconv.Itoa(i) != num {
		http.NotFound(w, r)
		return
	}
	f := s.projects[i]
	switch {
	case !api && tail == "" && r.Method == http.MethodGet:
		s.page(w, r, f, true)
	case api && tail == "events" && r.Method == http.MethodGet:
		s.stream(w, r, f, true)
	case api && tail == "snapshot" && r.Method == http.MethodGet:
		snap, _, _ := f.get()
		w.Header().Set("Content-Type", "application/json")
		w.Write(snap)
	case api && strings.HasPrefix(tail, "control/"):
		s.control(w, r, f, strings.TrimPrefix(tail, "control/"))
	case api && tail == "answer":
		s.answer(w, r, f)
	default:
		http.NotFound(w, r)
	}
}

// page serves the page with f's data as it is now, so that it shows the
// loop before its event stream connects (and to a one-shot screenshot).
// The data goes in a JSON block, which the page reads and never runs;
// encoding/json escapes '<', '>' and '&', so no value can end the block.
func (s *Server) page(w http.ResponseWriter, r *http.Request, f *feed, project bool) {
	b, err := static.ReadFile("static/index.html")
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	snap, live, _ := f.get()
	data := map[string]json.RawMessage{"snapshot": snap}
	if project {
		data["meta"] = s.meta(r, f)
		data["live"] = live
	}
	inline, err := json.Marshal(data)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	block := append(append([]byte(`<script id="initial" type="application/json">`), inline...), "</script>\n</body>"...)
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Write(bytes.Replace(b, []byte("</body>"), block, 1))
}

// meta tells the page what it may offer.
type meta struct {
	Name       string `json:"name"`
	Controls   bool   `json:"controls"`   // the server offers controls for this loop
	Answers    bool   `json:"answers"`    // ... and takes the answer to the agent's question
	Authorized bool   `json:"authorized"` // this request carries the token
	Poll       int64  `json:"poll_ms"`
}

// meta is what the page of f may offer to the sender of r, as JSON.
func (s *Server) meta(r *http.Request, f *feed) []byte {
	m, _ := json.Marshal(meta{Name: f.p.Name, Controls: s.opts.Controls && f.p.Control != nil, Answers: s.opts.Controls && f.p.Answer != nil,
		Authorized: s.authorized(r), Poll: s.opts.Poll.Milliseconds()})
	return m
}

// keepAlive is how often an idle event stream gets a comment line, so that
// proxies and tunnels do not close it.
const keepAlive = 15 * time.Second

// stream sends f's snapshot (and, for a project, its live output) as
// Server-Sent Events, again each time it changes, until the page goes.
func (s *Server) stream(w http.ResponseWriter, r *http.Request, f *feed, project bool) {
	select {
	case s.streams <- struct{}{}:
		defer func() { <-s.streams }()
	default:
		w.Header().Set("Connection", "close")
		w.Header().Set("Retry-After", "10")
		http.Error(w, "too many dashboard pages are open; close some and reload", http.StatusServiceUnavailable)
		return
	}
	rc := http.NewResponseController(w)
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("X-Accel-Buffering", "no")
	if project {
		fmt.Fprintf(w, "event: meta\ndata: %s\n\n", s.meta(r, f))
	}
	var sentSnap, sentLive []byte
	alive := time.NewTicker(keepAlive)
	defer alive.Stop()
	for {
		// A page that stops reading loses its stream (and its
		// connection) once a write has waited Timeout.
		_ = rc.SetWriteDeadline(time.Now().Add(s.opts.Timeout))
		snap, live, changed := f.get()
		if !bytes.Equal(snap, sentSnap) {
			fmt.Fprintf(w, "event: snapshot\ndata: %s\n\n", snap)
			sentSnap = snap
		}
		if project && !bytes.Equal(live, sentLive) {
			fmt.Fprintf(w, "event: live\ndata: %s\n\n", live)
			sentLive = live
		}
		if rc.Flush() != nil {
			return
		}
		select {
		case <-r.Context().Done():
			return
		case <-changed:
		case <-alive.C:
			fmt.Fprint(w, ": alive\n\n")
		}
	}
}

// control runs one of the controls for a POST that carries the token.
func (s *Server) control(w http.ResponseWriter, r *http.Request, f *feed, action string) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		http.Error(w, "controls take a POST", http.StatusMethodNotAllowed)
		return
	}
	known := false
	for _, a := range actions {
		known = known || a == action
	}
	switch {
	case !known:
		http.NotFound(w, r)
		return
	case !s.opts.Controls || f.p.Control == nil:
		http.Error(w, "controls are off: start the dashboard with SERVE_CONTROL=true and SERVE_TOKEN set", http.StatusForbidden)
		return
	case !s.authorized(r):
		w.Header().Set("Connection", "close")
		http.Error(w, "this control needs the token: open the dashboard through its ?token= link", http.StatusUnauthorized)
		return
	}
	if err := f.p.Control(action); err != nil {
		http.Error(w, err.Error(), http.StatusConflict)
		return
	}
	s.Poke()
	w.Header().Set("Content-Type", "application/json")
	fmt.Fprintf(w, "{\"done\":%q}\n", action)
}

// answerMax bounds an answer's request body.
const answerMax = 64 << 10

// answer gives the person's answer to the agent's question, for a POST
// that carries the token: a JSON body {"answer": "..."} or a form field
// answer. It answers {"answered": QUESTION}.
func (s *Server) answer(w http.ResponseWriter, r *http.Request, f *feed) {
	switch {
	case r.Method != http.MethodPost:
		w.Header().Set("Allow", http.MethodPost)
		http.Error(w, "an answer takes a POST", http.StatusMethodNotAllowed)
		return
	case !s.opts.Controls || f.p.Answer == nil:
		http.Error(w, "answers are off: start the dashboard with SERVE_CONTROL=true and SERVE_TOKEN set", http.StatusForbidden)
		return
	case !s.authorized(r):
		w.Header().Set("Connection", "close")
		http.Error(w, "an answer needs the token: open the dashboard through its ?token= link", http.StatusUnauthorized)
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, answerMax)
	var text string
	if strings.HasPrefix(r.Header.Get("Content-Type"), "application/json") {
		var body struct {
			Answer string `json:"answer"`
		}
		if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
			http.Error(w, "the body is not {\"answer\": \"...\"}: "+err.Error(), http.StatusBadRequest)
			return
		}
		text = body.Answer
	} else {
		if err := r.ParseForm(); err != nil {
			http.Error(w, "the form cannot be read: "+err.Error(), http.StatusBadRequest)
			return
		}
		text = r.PostForm.Get("answer")
	}
	q, err := f.p.Answer(text)
	if err != nil {
		http.Error(w, err.Error(), http.StatusConflict)
		return
	}
	s.Poke()
	w.Header().Set("Content-Type", "application/json")
	b, _ := json.Marshal(map[string]string{"answered": q})
	w.Write(append(b, '\n'))
}

// Listen binds addr, refusing a non-loopback address when no token is set.
// flag is the flag that asked for the dashboard ("--serve" or
// "--dashboard"): a busy port's error names it with another address.
func Listen(addr, token, flag string) (net.Listener, error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("dashboard address %q: %w; use HOST:PORT such as 127.0.0.1:8765", addr, err)
	}
	if token == "" && !loopbackHost(host) {
		return nil, fmt.Errorf("dashboard address %s is not a loopback address; set SERVE_TOKEN to serve it to other machines, or keep 127.0.0.1 and use an SSH tunnel (docs/DASHBOARD.md)", addr)
	}
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("dashboard: %w; pick another port: %s=%s (or SERVE_ADDR=%[3]s)", err, flag, otherPort(addr))
	}
	return l, nil
}

// otherPort is addr with the next port, the example a busy port's error
// offers (HOST:PORT when addr's port is not a number).
func otherPort(addr string) string {
	host, port, err := net.SplitHostPort(addr)
	if n, perr := strconv.Atoi(port); err == nil && perr == nil && n > 0 && n < 65535 {
		return net.JoinHostPort(host, strconv.Itoa(n+1))
	}
	return "HOST:PORT"
}

// Serve serves s on l until ctx ends, then closes the server. It holds at
// most Options.MaxConns connections; a connection that sends no headers,
// idles or leaves an answer unread for Options.Timeout is closed.
func Serve(ctx context.Context, l net.Listener, s *Server) error {
	t := s.opts.Timeout
	srv := &http.Server{Handler: s, ReadHeaderTimeout: t, IdleTimeout: t, WriteTimeout: t, MaxHeaderBytes: 64 << 10,
		BaseContext: func(net.Listener) context.Context { return ctx }}
	l = limitListener(l, s.opts.MaxConns)
	go s.run(ctx)
	go func() {
		<-ctx.Done()
		srv.Close()
	}()
	if err := srv.Serve(l); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
