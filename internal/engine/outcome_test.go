package engine

import (
	"maps"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// README's "Exit codes" table is the contract scripts and schedulers are
// written to (docs/SCALING.md's samples are checked against it): every
// code a run returns is in it, and it lists no other but --swarm's 11.
func TestExitCodesDocumented(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, table, _ := strings.Cut(string(data), "\n### Exit codes\n")
	table, _, _ = strings.Cut(table, "\n#")
	documented := map[int]bool{}
	for _, m := range regexp.MustCompile(`(?m)^\| ([0-9][0-9, ]*) \|`).FindAllStringSubmatch(table, -1) {
		for _, c := range strings.Split(m[1], ",") {
			n, err := strconv.Atoi(strings.TrimSpace(c))
			if err != nil {
				t.Fatalf("README's Exit codes: %q: %v", m[0], err)
			}
			documented[n] = true
		}
	}
	for _, code := range []int{ExitComplete, ExitError, ExitHalted, ExitFailed, ExitMaxLoops, ExitBudget, ExitIdle,
		ExitStalled, ExitUsageLimit, ExitUsagePace, ExitOutage, ExitUnproven, ExitUnanswered, ExitSIGHUP, ExitSIGINT, ExitSIGQUIT, ExitSIGTERM} {
		if !documented[code] {
			t.Errorf("exit code %d is not in README's Exit codes table", code)
		}
		delete(documented, code)
	}
	delete(documented, 11) // --swarm's: a worker's branch was held back
	if len(documented) > 0 {
		t.Errorf("README's Exit codes table lists codes no run returns: %v", slices.Sorted(maps.Keys(documented)))
	}
}
