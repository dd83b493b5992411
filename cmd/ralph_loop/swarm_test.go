//go:build unix

package main

import (
	"encoding/json"
	"os"
	"strconv"
	"strings"
	"syscall"

	"github.com/rogpeppe/go-internal/testscript"
)

func init() {
	extraCmds["swarmterm"] = cmdSwarmTerm
	extraCmds["gone"] = cmdGone
}

// swarmterm: send SIGTERM to the --swarm process named in .swarm/swarm.json.
func cmdSwarmTerm(ts *testscript.TestScript, neg bool, args []string) {
	b, err := os.ReadFile(ts.MkAbs(".swarm/swarm.json"))
	ts.Check(err)
	var st struct {
		PID int `json:"pid"`
	}
	ts.Check(json.Unmarshal(b, &st))
	if st.PID <= 0 {
		ts.Fatalf("no pid in .swarm/swarm.json")
	}
	ts.Check(syscall.Kill(st.PID, syscall.SIGTERM))
}

// gone FILE...: the process whose pid each FILE holds has ended.
func cmdGone(ts *testscript.TestScript, neg bool, args []string) {
	for _, a := range args {
		b, err := os.ReadFile(ts.MkAbs(a))
		ts.Check(err)
		pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
		ts.Check(err)
		if alive := !processGone(pid); alive != neg {
			ts.Fatalf("process %d (%s): alive=%v", pid, a, alive)
		}
	}
}
