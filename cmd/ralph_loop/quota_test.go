//go:build unix

package main

import (
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/gofrs/flock"
	"github.com/rogpeppe/go-internal/testscript"

	"github.com/ralphloop/ralph_loop/internal/ledger"
)

// The usage governor's scenarios (usage_governor_*.txtar, usage_ledger_*)
// wait for the ledger to count calls, and hold its lock from another
// process.
func init() {
	extraCmds["waitledger"] = cmdWaitLedger
	mainCmds["holdledger"] = holdLedger
}

// waitledger FILE N: wait (up to 20 s) until the usage ledger FILE has
// counted N calls, all accounts together: a loop has recorded its call.
func cmdWaitLedger(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 || neg {
		ts.Fatalf("usage: waitledger FILE N")
	}
	want, err := strconv.ParseInt(args[1], 10, 64)
	ts.Check(err)
	f := ledger.Open(ts.MkAbs(args[0]), nil, time.Now)
	deadline := time.Now().Add(20 * time.Second)
	var got int64
	for time.Now().Before(deadline) {
		got = 0
		if b, err := f.Peek(); err == nil {
			for _, a := range b.Accounts {
				got += a.Calls
			}
		}
		if got >= want {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
	ts.Fatalf("the usage ledger %s counted %d calls in 20 s, want %d", args[0], got, want)
}

// holdledger LEDGER PIDFILE: take the ledger's lock as an update does,
// write this process's pid to PIDFILE and hold the lock until killed (a
// loop stopped, or killed, in the middle of an update).
func holdLedger() {
	if len(os.Args) != 3 {
		os.Exit(2)
	}
	p := os.Args[1]
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		os.Exit(3)
	}
	fl := flock.New(p + ".lock")
	if ok, err := fl.TryLock(); !ok || err != nil {
		os.Exit(4)
	}
	os.WriteFile(p+".lock", []byte(strconv.Itoa(os.Getpid())+"\n"), 0o600)
	tmp := os.Args[2] + ".tmp" // written whole, then named: waitfile sees all of it
	os.WriteFile(tmp, []byte(strconv.Itoa(os.Getpid())+"\n"), 0o644)
	os.Rename(tmp, os.Args[2])
	time.Sleep(time.Hour)
	os.Exit(0)
}
