package dashboard

import (
	"crypto/subtle"
	"net"
	"net/http"
	"net/url"
	"strings"
)

// cookieName holds the token once a ?token= link was opened; each
// server's cookie has its port in its name (see cookieFor), since a
// browser sends a host's cookies to every port of it.
const cookieName = "ralph_token"

// cookieFor is the name of the token's cookie for the server r reached:
// ralph_token_PORT, so that two dashboards on 127.0.0.1 (or another
// program there) never read or overwrite each other's.
func cookieFor(r *http.Request) string {
	if a, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr); ok {
		if _, port, err := net.SplitHostPort(a.String()); err == nil {
			return cookieName + "_" + port
		}
	}
	return cookieName
}

// isToken reports whether got is the token; the comparison takes the same
// time for any wrong token.
func (s *Server) isToken(got string) bool {
	return s.opts.Token != "" && subtle.ConstantTimeCompare([]byte(got), []byte(s.opts.Token)) == 1
}

// tokenHeader carries the token for scripts (curl -H).
const tokenHeader = "X-Ralph-Token"

// refused says why a request is turned away (with its status code), or "".
// A cross-site request is always refused; a request from another machine,
// or one naming a host that is not a loopback name (a DNS rebinding page),
// needs the token, and so does every request with TokenEverywhere.
func (s *Server) refused(r *http.Request) (string, int) {
	switch r.Header.Get("Sec-Fetch-Site") {
	case "", "same-origin", "none":
	default:
		return "cross-site requests are refused", http.StatusForbidden
	}
	if o := r.Header.Get("Origin"); o != "" && !sameOrigin(o, r.Host) {
		return "cross-origin requests are refused", http.StatusForbidden
	}
	if (local(r) && !s.opts.TokenEverywhere) || s.authorized(r) {
		return "", 0
	}
	if s.opts.Token == "" {
		return "this dashboard serves this machine only (no SERVE_TOKEN is set)", http.StatusForbidden
	}
	return "this dashboard needs its token: open it through its ?token= link", http.StatusUnauthorized
}

// local reports whether the request comes from this machine and names a
// loopback host.
func local(r *http.Request) bool {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil || !loopbackIP(host) {
		return false
	}
	h := r.Host
	if hh, _, err := net.SplitHostPort(h); err == nil {
		h = hh
	}
	return loopbackHost(h)
}

// authorized reports whether the request carries the token, in the
// X-Ralph-Token header, an Authorization: Bearer header, the cookie or a
// ?token= link; the comparison takes the same time for any wrong token.
func (s *Server) authorized(r *http.Request) bool {
	if s.opts.Token == "" {
		return false
	}
	got := r.Header.Get(tokenHeader)
	if a, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer "); ok && got == "" {
		got = a
	}
	if c, err := r.Cookie(cookieFor(r)); err == nil && got == "" {
		got = c.Value
	}
	if q := r.URL.Query().Get("token"); q != "" && got == "" {
		got = q
	}
	return s.isToken(got)
}

// sameOrigin reports whether origin names host (the Host the request was
// sent to).
func sameOrigin(origin, host string) bool {
	u, err := url.Parse(origin)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && strings.EqualFold(u.Host, host)
}

func loopbackIP(host string) bool {
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// loopbackHost reports whether host is a loopback address or localhost.
func loopbackHost(host string) bool {
	h := strings.TrimSuffix(strings.ToLower(strings.Trim(host, "[]")), ".")
	return h == "localhost" || strings.HasSuffix(h, ".localhost") || loopbackIP(h)
}
