// Package dashboard serves a loop's web dashboard: a page (plain HTML, CSS
// and a little JavaScript, embedded) that shows what a Source reports, kept
// live by Server-Sent Events, with optional controls behind a token.
//
// The package knows nothing of .ralph/: a Source says what to show (a value
// marshalled to JSON, and the running call's output as text) and a Control
// does what a button asks. The server re-reads its sources on a gentle
// poll and whenever Poke is called (a sink on the engine's bus), and sends
// a page only what changed.
//
// Safe by default: it binds only to a loopback address unless a token is
// set; a request from another machine, or one naming a host that is not a
// loopback one, needs the token; every control needs it; cross-site
// requests are refused and no CORS header is ever sent; the page renders
// every text as text, never as HTML, under a strict Content-Security-Policy.
package dashboard
