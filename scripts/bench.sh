#!/usr/bin/env bash
# bench.sh — measure ralph_loop's own cost per loop iteration and of output analysis.
#
#   scripts/bench.sh [--loops N] [--runs R] [--no-analysis] [--sizes "50"]
#                    [--ref COMMIT] [--loop-ref COMMIT] [--commit] [--no-overhead] [--reference]
#                    [--conformance]
#
#   --loops N       iterations per measured run (default 50)
#   --runs R        repetitions of each measurement; the best (lowest) is reported (default 5)
#   --no-analysis   skip the output-analysis part
#   --sizes LIST    output sizes in MB for the analysis part (default "50")
#   --ref COMMIT    the earlier build the analysis is compared with (default f07e265, before
#                   the analysis redesign; "" for none): built from `git archive COMMIT`
#   --loop-ref C    also measure the per-iteration part of an earlier build (git archive C),
#                   the two builds alternated run by run, and print this / C
#   --commit        the fake claude also commits its tick (`git commit` of the plan), as an
#                   agent told to commit its work does: the loop then finds a clean tree and
#                   a moved HEAD each time (default: the tick is left uncommitted)
#   --no-overhead   skip the per-iteration part
#   --reference     also run the bash reference's bench (needs REF_REPO, a git dir of
#                   LarsCowe/bmalph; about 17 s per loop): /work/shared/conformance/bench.sh
#   --conformance   also run that shared bench on our binary (same harness, real 5 s pauses)
#
# Per-iteration overhead: a plan of N unchecked items and an instant, fork-free fake
# claude (a bash script using only builtins) that ticks one box per call and reports
# TASKS_COMPLETED_THIS_LOOP: 1, so the run ends with plan_complete after exactly N
# calls; LOOP_DELAY=0, WRITE_TIMEOUT_MINUTES=0. Reported per loop:
#   wall, CPU (user+sys of ralph_loop and everything it waited for), and the engine's
#   own share: the slope between an N-loop and a 1-loop run (start-up cancels out)
#   minus the fake agent's own cost per call, measured alone. Target: < 20 ms.
# RALPH_BIN=path measures that binary instead of building one from this tree.
# Output analysis: `ralph_loop --analyze FILE` on generated Claude stream-json, Codex
# JSONL and Claude JSON (one result object) outputs (scripts/gen-output), this build and
# the --ref build run interleaved R times, medians of wall time, CPU and peak RSS, and a
# plain scan of the same bytes (grep -c) for scale; then a 1-item loop whose reply is the
# 50 MB Claude JSON result, minus the same loop with a tiny reply, for both builds.
set -uo pipefail

LOOPS=50
RUNS=5
ANALYSIS=1
SIZES="50"
REFERENCE=0
CONFORMANCE=0
REF=f07e265
OVERHEAD=1
LOOP_REF=""
COMMIT=""
while [ $# -gt 0 ]; do
	case "$1" in
	--loops) LOOPS="$2"; shift 2 ;;
	--runs) RUNS="$2"; shift 2 ;;
	--no-analysis) ANALYSIS=0; shift ;;
	--sizes) SIZES="$2"; shift 2 ;;
	--ref) REF="$2"; shift 2 ;;
	--loop-ref) LOOP_REF="$2"; shift 2 ;;
	--no-overhead) OVERHEAD=0; shift ;;
	--commit) COMMIT=1; shift ;;
	--reference) REFERENCE=1; shift ;;
	--conformance) CONFORMANCE=1; shift ;;
	-h | --help) sed -n '2,36p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "bench.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
	esac
done
[ "$LOOPS" -ge 2 ] 2>/dev/null || { echo "bench.sh: --loops must be >= 2" >&2; exit 2; }
[ "$RUNS" -ge 1 ] 2>/dev/null || { echo "bench.sh: --runs must be >= 1" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "bench.sh: /usr/bin/time (GNU time) is required" >&2; exit 2; }

SRC="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CONF="${CONF_DIR:-/work/shared/conformance}"
WORK="$(mktemp -d "${TMPDIR:-/tmp}/ralph-bench.XXXXXX")"
trap '[ -n "${BENCH_KEEP:-}" ] || rm -rf "$WORK"' EXIT
BIN="$WORK/ralph_loop"

echo "host: $(nproc) CPUs, $(uname -sr), $(go version | cut -d' ' -f3-), $(git -C "$SRC" describe --always --dirty 2>/dev/null)"
if [ -n "${RALPH_BIN:-}" ]; then
	cp "$RALPH_BIN" "$BIN" || exit 1
	echo "using RALPH_BIN=$RALPH_BIN"
else
	echo "building ralph_loop ..."
	(cd "$SRC" && CGO_ENABLED=0 go build -trimpath -o "$BIN" ./cmd/ralph_loop) || { echo "bench.sh: build failed" >&2; exit 1; }
fi

# --- per-iteration overhead ----------------------------------------------------
mkdir -p "$WORK/bin" "$WORK/home"
printf '[user]\n\tname = bench\n\temail = bench@example.invalid\n' >"$WORK/home/.gitconfig"
reply='{"type":"result","subtype":"success","is_error":false,"duration_ms":10,"num_turns":1,"result":"Ticked one task.\n---RALPH_STATUS---\nSTATUS: IN_PROGRESS\nTASKS_COMPLETED_THIS_LOOP: 1\nFILES_MODIFIED: 1\nTESTS_STATUS: PASSING\nWORK_TYPE: IMPLEMENTATION\nEXIT_SIGNAL: false\nRECOMMENDATION: next\n---END_RALPH_STATUS---","session_id":"bench-session"}'
# The fake claude forks nothing: read the plan, tick the first box, print the reply.
cat >"$WORK/bin/claude" <<EOF
#!/usr/bin/env bash
[[ "\${1:-}" == --version ]] && { echo "2.1.0 (Claude Code)"; exit 0; }
IFS= read -r -d '' plan < .ralph/@fix_plan.md
printf '%s' "\${plan/- \[ \]/- [x]}" > .ralph/@fix_plan.md
if [[ -n "\${BENCH_COMMIT:-}" ]]; then git commit -q -m tick .ralph/@fix_plan.md >/dev/null; fi
if [[ -n "\${REPLY_FILE:-}" ]]; then exec cat "\$REPLY_FILE"; fi
printf '%s\n' '$reply'
EOF
chmod +x "$WORK/bin/claude"

P="$WORK/proj"
mkdir -p "$P/.ralph" "$P/src"
(
	cd "$P" || exit 1
	echo "Do the next task." >.ralph/PROMPT.md
	echo "hello" >src/app.txt
	HOME="$WORK/home" git init -q . && HOME="$WORK/home" git add -A && HOME="$WORK/home" git commit -q -m init
) || exit 1
plan() { # plan N, committed: a ticked box in a tracked plan is the progress git sees
	{ echo "# Fix Plan"; for ((i = 1; i <= $1; i++)); do echo "- [ ] Task $i"; done; } >"$P/.ralph/@fix_plan.md"
	(cd "$P" && HOME="$WORK/home" git add .ralph/@fix_plan.md && HOME="$WORK/home" git commit -q --allow-empty -m "plan $1")
}
reset_state() { # keep the project, drop the loop's state (a fresh run each time)
	find "$P/.ralph" -mindepth 1 -maxdepth 1 ! -name PROMPT.md ! -name @fix_plan.md -exec rm -rf {} +
}
ENVV=(env -i HOME="$WORK/home" PATH="$WORK/bin:$PATH" LANG=C.UTF-8 TERM=dumb TZ=UTC
	LOOP_DELAY=0 WRITE_TIMEOUT_MINUTES=0 MAX_CALLS_PER_HOUR=100000 BENCH_COMMIT="$COMMIT")
# measure N [BIN]: one run of ralph_loop (this build, or BIN) over an N-item plan; prints
# "wall cpu rss_kb calls"
measure() {
	plan "$1"
	reset_state
	local TIMEFORMAT='%3R %3U %3S' bin=${2:-$BIN}
	{ time (cd "$P" && "${ENVV[@]}" /usr/bin/time -f '%M' -o "$WORK/rss" "$bin" </dev/null >"$WORK/out" 2>"$WORK/err"); } 2>"$WORK/time"
	local rc=$? reason
	reason=$(jq -r .exit_reason "$P/.ralph/status.json" 2>/dev/null)
	if [ "$rc" != 0 ] || [ "$reason" != plan_complete ]; then
		echo "bench.sh: run of $1 loops ended rc=$rc exit_reason=$reason" >&2
		tail -5 "$WORK/err" >&2
		exit 1
	fi
	read -r w u s <"$WORK/time"
	read -r m <"$WORK/rss"
	awk -v w="$w" -v u="$u" -v s="$s" -v m="$m" 'BEGIN { printf "%.4f %.4f %d\n", w, u + s, m }'
}
# agent_cost N: the fake claude alone, N calls; prints "wall cpu"
agent_cost() {
	plan "$1"
	local TIMEFORMAT='%3R %3U %3S'
	{ time (cd "$P" && "${ENVV[@]}" bash -c 'for ((i = 0; i < '"$1"'; i++)); do claude -p x >/dev/null; done'); } 2>"$WORK/time"
	read -r w u s <"$WORK/time"
	awk -v w="$w" -v u="$u" -v s="$s" 'BEGIN { printf "%.4f %.4f\n", w, u + s }'
}
# best: the smallest value. Other work on the machine only ever adds time, so
# the best of R runs is the closest to the program's own cost.
best() { sort -g | head -1; }

if [ "$OVERHEAD" = 1 ]; then
LBINS=("$BIN") LNAMES=(this)
if [ -n "$LOOP_REF" ]; then
	mkdir -p "$WORK/loopref-src"
	if git -C "$SRC" archive "$LOOP_REF" | tar -x -C "$WORK/loopref-src" &&
		(cd "$WORK/loopref-src" && CGO_ENABLED=0 go build -trimpath -o "$WORK/ralph_loop-loopref" ./cmd/ralph_loop); then
		LBINS+=("$WORK/ralph_loop-loopref") LNAMES+=("$LOOP_REF")
	else
		echo "bench.sh: cannot build $LOOP_REF; measuring this build alone" >&2
	fi
fi
echo
echo "== per-iteration overhead ($LOOPS loops, best of $RUNS runs; ${LNAMES[*]}, alternated)"
: >"$WORK/agent"
for ((k = 0; k < ${#LBINS[@]}; k++)); do
	measure 1 "${LBINS[$k]}" >/dev/null # warm caches
	: >"$WORK/n-$k" && : >"$WORK/one-$k"
done
for ((r = 0; r < RUNS; r++)); do
	for ((k = 0; k < ${#LBINS[@]}; k++)); do
		measure "$LOOPS" "${LBINS[$k]}" >>"$WORK/n-$k"
		measure 1 "${LBINS[$k]}" >>"$WORK/one-$k"
	done
	agent_cost "$LOOPS" >>"$WORK/agent"
done
col() { awk -v c="$2" '{ print $c }' "$1" | best; }
wA=$(col "$WORK/agent" 1) cA=$(col "$WORK/agent" 2)
for ((k = 0; k < ${#LBINS[@]}; k++)); do
	wN=$(col "$WORK/n-$k" 1) cN=$(col "$WORK/n-$k" 2) rss=$(col "$WORK/n-$k" 3)
	w1=$(col "$WORK/one-$k" 1) c1=$(col "$WORK/one-$k" 2)
	[ ${#LBINS[@]} -gt 1 ] && echo "-- ${LNAMES[$k]}"
	awk -v n="$LOOPS" -v wN="$wN" -v cN="$cN" -v w1="$w1" -v c1="$c1" -v wA="$wA" -v cA="$cA" -v rss="$rss" 'BEGIN {
		printf "run of %d loops: %.3f s wall, %.3f s CPU, peak RSS %.1f MB\n", n, wN, cN, rss / 1024
		printf "run of 1 loop (start-up + 1 iteration + exit): %.1f ms wall, %.1f ms CPU\n", w1 * 1000, c1 * 1000
		printf "fake claude alone: %.2f ms wall, %.2f ms CPU per call\n", wA / n * 1000, cA / n * 1000
		printf "per loop, all in: %.2f ms wall, %.2f ms CPU\n", wN / n * 1000, cN / n * 1000
		ew = ((wN - w1) / (n - 1) - wA / n) * 1000
		ec = ((cN - c1) / (n - 1) - cA / n) * 1000
		printf "per loop, engine only (slope minus the agent): %.2f ms wall, %.2f ms CPU  [target < 20 ms: %s]\n", ew, ec, (ew < 20 ? "met" : "NOT MET")
	}'
	echo "$wN $cN $w1 $c1" >"$WORK/loop-$k"
done
if [ ${#LBINS[@]} -gt 1 ]; then
	paste "$WORK/loop-0" "$WORK/loop-1" | awk -v n="$LOOPS" -v r="$LOOP_REF" -v wA="$wA" -v cA="$cA" '{
		printf "this / %s: per loop all in %.2f (wall), %.2f (CPU); engine only %.2f (wall), %.2f (CPU)\n", r,
			$1 / $5, $2 / $6, ((($1 - $3) / (n - 1)) - wA / n) / ((($5 - $7) / (n - 1)) - wA / n),
			((($2 - $4) / (n - 1)) - cA / n) / ((($6 - $8) / (n - 1)) - cA / n)
	}'
fi
if command -v strace >/dev/null && strace -qq -o /dev/null true 2>/dev/null; then
	plan 10
	reset_state
	(cd "$P" && "${ENVV[@]}" strace -f -qq -e trace=clone,clone3,fork,vfork,execve -o "$WORK/strace" "$BIN" </dev/null >/dev/null 2>&1)
	execs=$(grep -E ' execve\(' "$WORK/strace" | grep -vc '= -1 ')
	echo "child processes: $execs execve over 10 loops (10 are the fake claude) => $(awk -v e="$execs" 'BEGIN { printf "%.1f", e / 10 }') per loop"
	grep -E ' execve\(' "$WORK/strace" | grep -v '= -1 ' | sed -E 's/.*execve\("([^"]*)", \[("[^"]*")?(, "([^"]*)")?.*/\1 \4/' | sort | uniq -c | sort -rn | head -8 | sed 's/^/   /'
fi
fi

# --- output analysis -----------------------------------------------------------
# median: the middle value (the lower of the two middle ones)
median() { sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
if [ "$ANALYSIS" = 1 ]; then
	echo
	(cd "$SRC" && go build -o "$WORK/gen-output" ./scripts/gen-output) || { echo "bench.sh: cannot build scripts/gen-output" >&2; exit 1; }
	BINS=("$BIN")
	NAMES=(this)
	if [ -n "$REF" ]; then
		mkdir -p "$WORK/ref-src"
		if git -C "$SRC" archive "$REF" | tar -x -C "$WORK/ref-src" &&
			(cd "$WORK/ref-src" && CGO_ENABLED=0 go build -trimpath -o "$WORK/ralph_loop-ref" ./cmd/ralph_loop); then
			BINS+=("$WORK/ralph_loop-ref")
			NAMES+=("$REF")
		else
			echo "bench.sh: cannot build $REF; comparing nothing" >&2
		fi
	fi
	echo "== output analysis (ralph_loop --analyze FILE; ${NAMES[*]}; medians of $RUNS interleaved runs)"
	TIMEFORMAT='%3R'
	for mb in $SIZES; do
		for spec in "claude-stream:claude-code" "codex-jsonl:codex" "claude-json:claude-code"; do
			format=${spec%%:*} driver=${spec#*:}
			f="$WORK/out-$format-$mb"
			"$WORK/gen-output" -format "$format" -mb "$mb" -o "$f" || exit 1
			: >"$WORK/scan"
			for ((i = 0; i < ${#BINS[@]}; i++)); do : >"$WORK/an-$i"; done
			for ((r = 0; r < RUNS; r++)); do
				for ((i = 0; i < ${#BINS[@]}; i++)); do
					# wall in ms from bash's time; CPU and peak RSS from GNU time
					{ time (cd "$P" && PLATFORM_DRIVER="$driver" /usr/bin/time -f '%U %S %M' -o "$WORK/timev" "${BINS[$i]}" --analyze "$f" >"$WORK/analysis-$i.json" 2>"$WORK/analysis.err"); } 2>"$WORK/wall" ||
						{ echo "bench.sh: --analyze failed:" >&2; cat "$WORK/analysis.err" >&2; exit 1; }
					echo "$(cat "$WORK/wall") $(tail -1 "$WORK/timev")" >>"$WORK/an-$i"
				done
				{ time grep -c x "$f" >/dev/null; } 2>>"$WORK/scan"
			done
			scan=$(median <"$WORK/scan")
			for ((i = 0; i < ${#BINS[@]}; i++)); do
				wall=$(awk '{ print $1 }' "$WORK/an-$i" | median)
				cpu=$(awk '{ print $2 + $3 }' "$WORK/an-$i" | median)
				rss=$(awk '{ print $4 }' "$WORK/an-$i" | median)
				maxrss=$(awk '{ print $4 }' "$WORK/an-$i" | sort -g | tail -1)
				exitsig=$(jq -r '.analysis.exit_signal' "$WORK/analysis-$i.json" 2>/dev/null)
				tasks=$(jq -r '.analysis.tasks_completed_this_loop // empty' "$WORK/analysis-$i.json" 2>/dev/null)
				printf '%-14s %5s MB %-8s %6.3f s wall, %5.2f s CPU, peak RSS %5.1f MB (max %.1f), %5.1fx a grep -c (%.3f s); exit_signal=%s tasks=%s\n' \
					"$format" "$mb" "${NAMES[$i]}" "$wall" "$cpu" "$(awk -v r="$rss" 'BEGIN { print r / 1024 }')" \
					"$(awk -v r="$maxrss" 'BEGIN { print r / 1024 }')" "$(awk -v w="$wall" -v s="$scan" 'BEGIN { print (s > 0 ? w / s : 0) }')" "$scan" "$exitsig" "$tasks"
				echo "$wall $cpu" >"$WORK/wall-$format-$mb-$i"
			done
			if [ ${#BINS[@]} = 2 ]; then
				paste "$WORK/wall-$format-$mb-0" "$WORK/wall-$format-$mb-1" | awk -v f="$format" -v r="$REF" \
					'{ if ($3 > 0 && $4 > 0) printf "%-14s this / %s = %.2f (median wall), %.2f (median CPU)\n", f, r, $1 / $3, $2 / $4 }'
			fi
			[ "$format" = claude-json ] && [ "$mb" = "$(echo "$SIZES" | awk '{ print $NF }')" ] && cp "$f" "$WORK/reply-big" 
			rm -f "$f"
		done
	done

	# A loop whose reply is the last size's Claude JSON result: what it adds to a
	# 1-call run with a tiny reply.
	if [ -f "$WORK/reply-big" ]; then
		echo
		echo "== one loop with a $(stat -c %s "$WORK/reply-big")-byte reply, minus one with a tiny reply (medians of $RUNS interleaved runs)"
		loop_run() { # loop_run BIN [REPLY_FILE]: wall seconds of a 1-item run
			plan 1
			reset_state
			local TIMEFORMAT='%3R'
			{ time (cd "$P" && "${ENVV[@]}" REPLY_FILE="${2:-}" "$1" </dev/null >"$WORK/out" 2>"$WORK/err"); } 2>"$WORK/time"
			cat "$WORK/time"
		}
		for ((k = 0; k < ${#BINS[@]}; k++)); do : >"$WORK/big-$k" && : >"$WORK/small-$k"; done
		for ((r = 0; r < RUNS; r++)); do
			for ((k = 0; k < ${#BINS[@]}; k++)); do
				loop_run "${BINS[$k]}" "$WORK/reply-big" >>"$WORK/big-$k"
				loop_run "${BINS[$k]}" >>"$WORK/small-$k"
			done
		done
		for ((k = 0; k < ${#BINS[@]}; k++)); do
			big=$(median <"$WORK/big-$k") small=$(median <"$WORK/small-$k")
			printf '%-8s %.2f s with the big reply, %.2f s with a tiny one: the reply adds %.2f s\n' "${NAMES[$k]}" "$big" "$small" "$(awk -v b="$big" -v s="$small" 'BEGIN { print b - s }')"
		done
	fi
fi

# --- the shared harness: reference and/or ours ------------------------------------
if [ "$CONFORMANCE" = 1 ]; then
	echo
	echo "== shared bench ($CONF/bench.sh) on ralph_loop (real 5 s pauses; no analysis sizes)"
	"$CONF/bench.sh" --impl "$BIN" --loops 5 --sizes "" --no-strace
fi
if [ "$REFERENCE" = 1 ]; then
	echo
	if [ -z "${REF_REPO:-}" ]; then
		echo "--reference: REF_REPO is not set (a git dir of LarsCowe/bmalph, e.g. /work/.mirror/LarsCowe+bmalph/repo); skipped"
	else
		echo "== bash reference ($CONF/bench.sh --impl reference; about 17 s per loop)"
		REF_REPO="$REF_REPO" "$CONF/bench.sh" --impl reference --loops 5 --sizes "" --no-strace
	fi
fi
