//go:build unix

package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
)

func init() {
	extraCmds["webhook"] = cmdWebhook
	extraCmds["jsonlines"] = cmdJSONLines
	extraCmds["clock"] = cmdClock
}

// webhook serve NAME [STATUS]: an HTTP server on 127.0.0.1 for the rest of
// the script; $NAME is its URL (with a secret-looking path) and every body
// POSTed to it is appended, as one line, to NAME.bodies. It answers STATUS
// (default 200).
//
// webhook refusing NAME: $NAME is a URL on 127.0.0.1 where nothing listens.
func cmdWebhook(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: webhook serve NAME [STATUS] | webhook refusing NAME")
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	ts.Check(err)
	url := fmt.Sprintf("http://%s/hooks/T0/secret-%s", l.Addr(), strings.ToLower(args[1]))
	ts.Setenv(args[1], url)
	if args[0] == "refusing" {
		l.Close()
		return
	}
	status := http.StatusOK
	if len(args) > 2 {
		status, err = strconv.Atoi(args[2])
		ts.Check(err)
	}
	file := ts.MkAbs(args[1] + ".bodies")
	var mu sync.Mutex
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
		mu.Lock()
		defer mu.Unlock()
		f, err := os.OpenFile(file, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
		if err == nil {
			fmt.Fprintf(f, "%s %s %s\n", r.Method, r.Header.Get("Content-Type"), b)
			f.Close()
		}
		w.WriteHeader(status)
	})}
	go srv.Serve(l)
	ts.Defer(func() { srv.Close() })
}

// jsonlines FILE KEY...: for each line of FILE (a JSON object, after any
// words before its first '{'), print the keys' values on one line; a key
// such as event.type reads a field of an object field.
func cmdJSONLines(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: jsonlines FILE KEY...")
	}
	for _, line := range strings.Split(strings.TrimSpace(ts.ReadFile(args[0])), "\n") {
		i := strings.IndexByte(line, '{')
		if i < 0 {
			ts.Fatalf("%s: not a JSON line: %s", args[0], line)
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(line[i:]), &m); err != nil {
			ts.Fatalf("%s: %v: %s", args[0], err, line)
		}
		var vals []string
		for _, k := range args[1:] {
			vals = append(vals, lookupPath(m, k))
		}
		fmt.Fprintln(ts.Stdout(), strings.Join(vals, " | "))
	}
}

// clock start: note the time. clock within SECONDS: fail unless less than
// SECONDS have passed since.
func cmdClock(ts *testscript.TestScript, neg bool, args []string) {
	switch {
	case len(args) == 1 && args[0] == "start":
		ts.Setenv("CLOCK_START", strconv.FormatInt(time.Now().UnixNano(), 10))
	case len(args) == 2 && args[0] == "within":
		n, err := strconv.ParseInt(ts.Getenv("CLOCK_START"), 10, 64)
		ts.Check(err)
		limit, err := strconv.ParseFloat(args[1], 64)
		ts.Check(err)
		took := time.Since(time.Unix(0, n))
		if (took < time.Duration(limit*float64(time.Second))) == neg {
			ts.Fatalf("%s passed since clock start, want within %ss", took.Round(time.Millisecond), args[1])
		}
	default:
		ts.Fatalf("usage: clock start | clock within SECONDS")
	}
}

// lookupPath is the value at a dotted path of m, "-" when there is none.
func lookupPath(m map[string]any, path string) string {
	var v any = m
	for _, k := range strings.Split(path, ".") {
		obj, ok := v.(map[string]any)
		if !ok {
			return "-"
		}
		if v, ok = obj[k]; !ok {
			return "-"
		}
	}
	return fmt.Sprint(v)
}
