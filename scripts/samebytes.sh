#!/usr/bin/env bash
# samebytes.sh OLD_BINARY NEW_BINARY — run every shared conformance scenario
# with both builds and compare what a user and bmalph see: stdout, stderr
# and every file under the scenario project's .ralph/, after masking what
# differs from run to run (times, stamps in names, pids in the lock, git
# object ids, session ids, the fake agent's random text). Prints one line
# per file that differs and exits 1 if any does; exits 0 when the two
# builds are indistinguishable. For a change that must be invisible (a
# refactor), run it against a build of the commit before. JOBS and FILTER
# (a scenario-id regex) are passed to the suite. A scenario that fails in
# either run (a busy machine can time one out) is named, not compared;
# run it again alone with FILTER. KEEP=1 leaves both scratch folders for a
# look at the files that differ.
set -euo pipefail
[ $# -eq 2 ] || { echo "usage: scripts/samebytes.sh OLD_BINARY NEW_BINARY" >&2; exit 1; }
here=$(cd "$(dirname "$0")/.." && pwd)
suite=${CONFORMANCE:-$here/../shared/conformance/run.sh}
[ -x "$suite" ] || { echo "samebytes.sh: $suite not found (set CONFORMANCE=path/to/run.sh)" >&2; exit 1; }

failed=$(mktemp)
keep() { # keep BINARY WHICH -> prints the scratch folder the suite kept
	local out dir
	out=$("$suite" --impl "$1" --jobs "${JOBS:-3}" --filter "${FILTER:-.}" --keep 2>&1) || true
	dir=$(echo "$out" | sed -n 's/^scratch kept in //p' | tail -1)
	[ -n "$dir" ] && [ -d "$dir" ] || { echo "$out" | tail -5 >&2; exit 1; }
	echo "$out" | sed -n "s/^FAIL  *\([^ ]*\) ([^)]*): \(.*\)  \[scratch.*/\1: failed with the $2 build: \2/p" >>"$failed"
	echo "$dir"
}
old=$(keep "$(realpath "$1")" old)
new=$(keep "$(realpath "$2")" new)

mask() {
	sed -E \
		-e "s#/tmp/ralph-conformance\.[A-Za-z0-9]+#ROOT#g" \
		-e 's/[0-9]{4}-[0-9]{2}-[0-9]{2}[ T_][0-9]{2}[:-][0-9]{2}[:-][0-9]{2}(\.[0-9]+)?(Z|[+-][0-9]{2}:[0-9]{2})?(-[0-9]{3})?/TS/g' \
		-e 's/\b[0-9]{2}:[0-9]{2}:[0-9]{2}\b/HMS/g' \
		-e 's/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/UUID/g' \
		-e 's/ralph-[0-9]+-[0-9]+/ralph-ID/g' \
		-e 's/"(wall_ms|duration_ms|delay_seconds|pid)": *[0-9.]+/"\1":N/g' \
		-e 's/\b1[6-9][0-9]{8}\b/EPOCH/g' \
		-e 's/Sleeping for [0-9]+ seconds/Sleeping for N seconds/g' \
		-e 's/corrupt-[0-9]{8}-[0-9]{6}/corrupt-STAMP/g' \
		-e 's/\b[0-9a-f]{40}\b/SHA/g' \
		-e 's/(last commit|commit) [0-9a-f]{7,12}\b/\1 SHORTSHA/g' "$1" |
		# GNU timeout signals the loop and then its process group: one
		# stop notice or two (each after a blank line), as they arrive.
		awk '/^ralph_loop: stopping \(SIG[A-Z]+\)/ { blank = 0; next }
			blank { print ""; blank = 0 }
			/^$/ { blank = 1; next }
			{ print }
			END { if (blank) print "" }'
}
names() { (cd "$1" && find . -path ./proj/.git -prune -o -type f -print | grep -E '^\./(stdout|stderr)|^\./proj/\.ralph/' |
	grep -v '\.ralph_loop\.lock$' | sed -E 's/[0-9]{4}-[0-9]{2}-[0-9]{2}_[0-9]{2}-[0-9]{2}-[0-9]{2}-[0-9]{3}/STAMP/; s/corrupt-[0-9]{8}-[0-9]{6}/corrupt-STAMP/' | sort); }
real() { (cd "$1" && find . -path ./proj/.git -prune -o -type f -print | grep -E '^\./(stdout|stderr)|^\./proj/\.ralph/' | grep -v '\.ralph_loop\.lock$' | sort); }

report=$(mktemp)
cat "$failed" >"$report"
for sc in $(ls "$old"); do
	if grep -q "^$sc: failed" "$failed"; then continue; fi
	if [ "$(names "$old/$sc")" != "$(names "$new/$sc")" ]; then
		echo "$sc: not the same files"; continue
	fi
	paste <(real "$old/$sc") <(real "$new/$sc") | while IFS=$'\t' read -r a b; do
		# The fake agent's random filler: compare its size only.
		if grep -q 'Long log follows' "$old/$sc/$a" 2>/dev/null; then
			[ "$(wc -c < "$old/$sc/$a")" = "$(wc -c < "$new/$sc/$b")" ] || echo "$sc: ${a#./} (size)"
			continue
		fi
		cmp -s <(mask "$old/$sc/$a") <(mask "$new/$sc/$b") || echo "$sc: ${a#./}"
	done
done >>"$report"
rm -f "$failed"
if [ "${KEEP:-}" = 1 ]; then echo "kept: old $old, new $new" >&2; else rm -rf "$old" "$new"; fi
if [ -s "$report" ]; then
	cat "$report"; rm -f "$report"
	echo "differ: the files above (a scenario whose fake agent writes random text may differ in"
	echo "what that text triggers; run that scenario again with both builds to tell)"
	exit 1
fi
rm -f "$report"
echo "the same: every scenario's output and .ralph/ files match"
