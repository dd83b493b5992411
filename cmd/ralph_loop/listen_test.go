//go:build unix

package main

import (
	"fmt"
	"net"
	"strconv"
	"sync"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
)

func init() {
	extraCmds["listen"] = cmdListen
	extraCmds["conns"] = cmdConns
}

// listener counts the connections a "listen" command's socket accepted.
type listener struct {
	mu    sync.Mutex
	n     int
	added chan struct{} // closed and replaced on each connection
}

// listeners by script and name; a script's listeners close with it.
var (
	listenersMu sync.Mutex
	listeners   = map[*testscript.TestScript]map[string]*listener{}
)

// listen NAME: a TCP listener on 127.0.0.1 for the rest of the script;
// $NAME is an http:// URL on it. It accepts and closes each connection
// and counts it (see conns).
func cmdListen(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: listen NAME")
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	ts.Check(err)
	ts.Setenv(args[0], fmt.Sprintf("http://%s/hook", l.Addr()))
	ln := &listener{added: make(chan struct{})}
	listenersMu.Lock()
	if listeners[ts] == nil {
		listeners[ts] = map[string]*listener{}
	}
	listeners[ts][args[0]] = ln
	listenersMu.Unlock()
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			c.Close()
			ln.mu.Lock()
			ln.n++
			close(ln.added)
			ln.added = make(chan struct{})
			ln.mu.Unlock()
		}
	}()
	ts.Defer(func() {
		l.Close()
		listenersMu.Lock()
		delete(listeners, ts)
		listenersMu.Unlock()
	})
}

// conns NAME N: with N > 0, waits until listener NAME has accepted N
// connections (an event, not a window: it fails only if they never come,
// after a minute); with N = 0, fails if it has accepted any so far.
func cmdConns(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: conns NAME N")
	}
	want, err := strconv.Atoi(args[1])
	ts.Check(err)
	listenersMu.Lock()
	ln := listeners[ts][args[0]]
	listenersMu.Unlock()
	if ln == nil {
		ts.Fatalf("conns: no listener %s", args[0])
	}
	give := time.After(time.Minute)
	for {
		ln.mu.Lock()
		n, added := ln.n, ln.added
		ln.mu.Unlock()
		switch {
		case want == 0 && n != 0:
			ts.Fatalf("listener %s accepted %d connection(s), want none", args[0], n)
		case n >= want:
			if n > want {
				ts.Fatalf("listener %s accepted %d connections, want %d", args[0], n, want)
			}
			return
		}
		select {
		case <-added:
		case <-give:
			ts.Fatalf("listener %s accepted %d connection(s) in a minute, want %d", args[0], n, want)
		}
	}
}
