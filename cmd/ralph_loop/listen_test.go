//go:build unix

package main

import (
	"fmt"
	"net"
	"os"
	"sync"

	"github.com/rogpeppe/go-internal/testscript"
)

func init() { extraCmds["listen"] = cmdListen }

// listen NAME: a TCP listener on 127.0.0.1 for the rest of the script;
// $NAME is an http:// URL on it, and each connection it accepts (and
// closes) appends a line to NAME.conns.
func cmdListen(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: listen NAME")
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	ts.Check(err)
	ts.Setenv(args[0], fmt.Sprintf("http://%s/hook", l.Addr()))
	file := ts.MkAbs(args[0] + ".conns")
	var mu sync.Mutex
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			if f, err := os.OpenFile(file, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644); err == nil {
				fmt.Fprintln(f, c.RemoteAddr())
				f.Close()
			}
			mu.Unlock()
			c.Close()
		}
	}()
	ts.Defer(func() { l.Close() })
}
