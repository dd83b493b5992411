#!/usr/bin/env bash
# waste.sh — how many agent calls each kind of agent behaviour costs before the loop stops,
# and whether it stops for the right reason.
#
#   scripts/waste.sh [--mode signals|strict|both] [--ref COMMIT] [--bin NAME=PATH]
#                    [--bash] [--only REGEX] [--cap N] [--check] [--fast] [--keep]
#
#   --mode M      COMPLETION_MODE of the runs of this build (default both)
#   --ref COMMIT  also run an earlier build (git archive COMMIT), default mode only
#   --bin N=PATH  also run the binary PATH, named N in the tables (default mode only)
#   --bash        also run the bash loop (bmalph's ralph/ralph_loop.sh from REF_REPO, a git
#                 dir of LarsCowe/bmalph) with its external `sleep` divided by 20
#   --only REGEX  run only the behaviours whose name matches
#   --cap N       calls after which a run is stopped from outside (default 15; MAX_LOOPS=N
#                 for ralph_loop, a kill for the bash loop)
#   --check       exit 1 unless the acceptance holds for this build: in strict mode every
#                 behaviour stops for the right reason within one call of its ideal; in the
#                 default mode none runs on to the cap, and every wrong stop is one the bash
#                 loop makes too (the "bash also" list below)
#   --fast        this build only, no --ref/--bin/--bash (what CI runs: about a minute)
#   --keep        keep the scratch folder
#
# Each behaviour is a fake `claude` (a bash script written below) that counts its calls and
# the tokens it reports, in a fresh git project with a 5-task @fix_plan.md, run to its end
# with LOOP_DELAY=0 (the bash loop keeps its own pauses, shortened by the sleep shim). Per
# behaviour the table says: calls made; the calls the loop counted in the run (status.json's
# calls_this_run, "API calls used") and in the hour's window (calls_made_this_hour, the
# "(Call N/100)" line, bmalph's dashboard); failed calls (the fake's own count of the calls
# it made fail or answer with nothing); the ideal (the fewest calls a loop that stops for the
# right reason can make: the work itself, plus failures no loop can avoid, plus the tries the
# loop's own thresholds give); calls wasted beyond it; tokens the loop counted against the
# tokens the fake reported; the exit code and exit_reason; and whether the stop was right.
# RALPH_BIN=path runs that binary as "this" instead of building the tree.
set -uo pipefail

MODES="signals strict"
REFS=()
BINS=()
BASH_REF=0
ONLY=""
CAP=15
CHECK=0
FAST=0
KEEP=0
while [ $# -gt 0 ]; do
	case "$1" in
	--mode) [ "$2" = both ] && MODES="signals strict" || MODES="$2"; shift 2 ;;
	--ref) REFS+=("$2"); shift 2 ;;
	--bin) BINS+=("$2"); shift 2 ;;
	--bash) BASH_REF=1; shift ;;
	--only) ONLY="$2"; shift 2 ;;
	--cap) CAP="$2"; shift 2 ;;
	--check) CHECK=1; shift ;;
	--fast) FAST=1; shift ;;
	--keep) KEEP=1; shift ;;
	-h | --help) sed -n '2,34p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "waste.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
	esac
done
if [ "$FAST" = 1 ]; then REFS=() BINS=() BASH_REF=0; fi
for tool in git jq timeout setsid; do
	command -v "$tool" >/dev/null || { echo "waste.sh: $tool is required" >&2; exit 2; }
done

SRC="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
WORK="$(mktemp -d "${TMPDIR:-/tmp}/ralph-waste.XXXXXX")"
trap '[ "$KEEP" = 1 ] && echo "kept $WORK" >&2 || rm -rf "$WORK"' EXIT
REAL_SLEEP="$(command -v sleep)"

# --- the builds -------------------------------------------------------------------
IMPL_NAMES=() IMPL_PATHS=()
if [ -n "${RALPH_BIN:-}" ]; then
	IMPL_NAMES+=(this) IMPL_PATHS+=("$(cd "$(dirname "$RALPH_BIN")" && pwd)/$(basename "$RALPH_BIN")")
else
	(cd "$SRC" && CGO_ENABLED=0 go build -trimpath -o "$WORK/ralph_loop" ./cmd/ralph_loop) || { echo "waste.sh: build failed" >&2; exit 1; }
	IMPL_NAMES+=(this) IMPL_PATHS+=("$WORK/ralph_loop")
fi
for ref in "${REFS[@]}"; do
	mkdir -p "$WORK/src-$ref"
	if git -C "$SRC" archive "$ref" | tar -x -C "$WORK/src-$ref" &&
		(cd "$WORK/src-$ref" && CGO_ENABLED=0 go build -trimpath -o "$WORK/ralph_loop-$ref" ./cmd/ralph_loop); then
		IMPL_NAMES+=("$ref") IMPL_PATHS+=("$WORK/ralph_loop-$ref")
	else
		echo "waste.sh: cannot build $ref" >&2; exit 1
	fi
done
for b in "${BINS[@]}"; do
	p=${b#*=}
	IMPL_NAMES+=("${b%%=*}") IMPL_PATHS+=("$(cd "$(dirname "$p")" && pwd)/$(basename "$p")")
done
if [ "$BASH_REF" = 1 ]; then
	if [ -z "${REF_REPO:-}" ] || ! git -C "$REF_REPO" rev-parse --git-dir >/dev/null 2>&1; then
		echo "waste.sh: --bash needs REF_REPO, a git dir of LarsCowe/bmalph (e.g. /work/.mirror/LarsCowe+bmalph/repo)" >&2
		exit 2
	fi
	mkdir -p "$WORK/ref"
	git -C "$REF_REPO" archive HEAD ralph | tar -x -C "$WORK/ref" || exit 1
	IMPL_NAMES+=(bash) IMPL_PATHS+=(bash)
fi

# --- the behaviours ----------------------------------------------------------------
# name | ideal | what is right | what it does
#   right: done = completed with the plan 5/5 ticked; stuck = stopped on its own, not as
#   completed, by the breaker or a refused completion; fail = stopped on its own as a
#   failure, not completed
BEHAVIOURS=(
	"honest|5|done|ticks one task a call and commits it, says EXIT_SIGNAL: true with the last"
	"idle|3|stuck|says there is nothing to do and changes nothing"
	"same-error|5|stuck|edits a file every call, and its reply (plain text) repeats the same error"
	"dirty-tree|4|stuck|leaves an uncommitted edit on call 1, then changes nothing"
	"lies-warn|2|stuck|ticks every box on call 1 and says all done every call; TEST_COMMAND fails, QUALITY_GATE_MODE=warn"
	"lies-block|2|stuck|the same with QUALITY_GATE_MODE=block"
	"never-signals|5|done|ticks one task a call, never says it is done"
	"untouched|2|stuck|says EXIT_SIGNAL: true and all done every call, ticks nothing"
	"outage|8|done|calls 1-3: API Error 529 overloaded (exit 1), then works as honest"
	"auth|1|fail|Invalid API key, every call (exit 1)"
	"usage-limit|6|done|call 2 hits the usage limit (resets in 3 s), otherwise honest"
	"committer|3|stuck|commits (git add -A, --allow-empty) every call with the same reply, no work"
	"no-request|7|done|calls 1-2 answer \"I don't see a request\" (exit 0, no tool use), then honest"
)
# behaviour_env NAME: the behaviour's own settings, one KEY=VALUE a line.
behaviour_env() {
	case "$1" in
	lies-warn) printf '%s\n' "TEST_COMMAND=echo FAIL: TestLogin; exit 1" "QUALITY_GATE_MODE=warn" ;;
	lies-block) printf '%s\n' "TEST_COMMAND=echo FAIL: TestLogin; exit 1" "QUALITY_GATE_MODE=block" ;;
	esac
}
# Wrong stops the bash loop makes too (its own decisions, kept in the default mode).
BASH_ALSO=" lies-warn untouched "

field() { local IFS='|'; read -r -a f <<<"$1"; echo "${f[$2]}"; }

# The fake claude. State in $WASTE_STATE: count (calls), tokens (reported), failed (calls it
# made fail or answer with nothing).
cat >"$WORK/claude" <<'FAKE'
#!/usr/bin/env bash
[[ "${1:-}" == --version ]] && { echo "2.1.0 (Claude Code)"; exit 0; }
S="$WASTE_STATE"
n=$(( $(cat "$S/count" 2>/dev/null || echo 0) + 1 ))
echo "$n" >"$S/count"
plan=.ralph/@fix_plan.md
open() { grep -c '^- \[ \]' "$plan"; }
block() { # STATUS EXIT TASKS
	printf -- '---RALPH_STATUS---\nSTATUS: %s\nTASKS_COMPLETED_THIS_LOOP: %s\nFILES_MODIFIED: 1\nTESTS_STATUS: PASSING\nWORK_TYPE: IMPLEMENTATION\nEXIT_SIGNAL: %s\nRECOMMENDATION: next task\n---END_RALPH_STATUS---' "$1" "$3" "$2"
}
result() { # TEXT TURNS IN OUT [is_error]
	echo $(( $(cat "$S/tokens" 2>/dev/null || echo 0) + $3 + $4 )) >"$S/tokens"
	jq -cn --arg t "$1" --argjson turns "$2" --argjson in "$3" --argjson out "$4" --argjson err "${5:-false}" \
		'{type:"result",subtype:"success",is_error:$err,duration_ms:1000,duration_api_ms:900,num_turns:$turns,result:$t,session_id:"waste-session",total_cost_usd:(($in*3+$out*15)/1000000),usage:{input_tokens:$in,output_tokens:$out,cache_read_input_tokens:0,cache_creation_input_tokens:0}}'
}
failed() { echo $(( $(cat "$S/failed" 2>/dev/null || echo 0) + 1 )) >"$S/failed"; }
commit() { git add -A src "$plan" >/dev/null 2>&1; git commit -qm "$1" >/dev/null 2>&1; }
work() { # honest work: tick the next task, change the code, commit; say done with the last
	if [ "$(open)" -gt 0 ]; then
		sed -i '0,/- \[ \]/s//- [x]/' "$plan"
		echo "call $n" >>src/app.txt
		commit "task (call $n)"
	fi
	if [ "$(open)" = 0 ]; then
		result "Implemented the last task; every task is done.
$(block COMPLETE "${1:-true}" 1)" 6 1000 200
	else
		result "Implemented the next task.
$(block IN_PROGRESS false 1)" 6 1000 200
	fi
}
case "$WASTE_BEHAVIOUR" in
honest) work ;;
never-signals) work false ;;
idle) result "Nothing to do right now; waiting for the next task.
$(block IN_PROGRESS false 0)" 2 1000 50 ;;
same-error)
	echo "call $n" >>src/app.txt
	printf 'Tried to build the project.\nError: build failed in module core\n' ;;
dirty-tree)
	[ "$n" = 1 ] && echo "half a change" >>src/app.txt
	result "Still working on the first task.
$(block IN_PROGRESS false 0)" 3 1000 100 ;;
lies-*)
	[ "$n" = 1 ] && sed -i 's/- \[ \]/- [x]/' "$plan"
	result "All done: every task is implemented and all tests pass.
$(block COMPLETE true 0)" 3 1000 100 ;;
untouched) result "All done! The project is complete.
$(block COMPLETE true 0)" 2 1000 50 ;;
outage)
	if [ "$n" -le 3 ]; then
		failed
		result 'API Error: 529 {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}' 1 0 0 true
		exit 1
	fi
	work ;;
auth)
	failed
	result "Invalid API key · Please run /login" 1 0 0 true
	exit 1 ;;
usage-limit)
	if [ "$n" = 2 ]; then
		failed
		result "Claude AI usage limit reached|$(( $(date +%s) + 3 ))" 1 0 0 true
		exit 1
	fi
	work ;;
committer)
	git add -A >/dev/null 2>&1; git commit -q --allow-empty -m "wip" >/dev/null 2>&1
	result "Committed my progress.
$(block IN_PROGRESS false 0)" 2 1000 50 ;;
no-request)
	if [ "$n" -le 2 ]; then
		failed
		result "I don't see a request in your message, just system context. What would you like help with?" 1 800 20
		exit 0
	fi
	work ;;
esac
exit 0
FAKE
chmod +x "$WORK/claude"
# The bash loop's external sleep, 20 times shorter (its 10 s poll per call, its 5 s pause).
cat >"$WORK/sleep" <<EOF
#!/usr/bin/env bash
exec $REAL_SLEEP "\$(awk -v s="\${1:-0}" 'BEGIN{ sub(/s\$/,"",s); printf "%.3f", s/20 }')"
EOF
chmod +x "$WORK/sleep"

# setup DIR: a fresh project with a 5-task plan (committed), the fake first on PATH.
setup() {
	local d="$1"
	mkdir -p "$d/proj/.ralph" "$d/proj/src" "$d/bin" "$d/home" "$d/state"
	printf '[user]\n\tname = waste\n\temail = waste@example.invalid\n[init]\n\tdefaultBranch = main\n' >"$d/home/.gitconfig"
	cp "$WORK/claude" "$d/bin/claude"
	(
		cd "$d/proj" || exit 1
		printf 'Implement the next unchecked task of .ralph/@fix_plan.md. End with a RALPH_STATUS block.\n' >.ralph/PROMPT.md
		{ echo "# Fix Plan"; for i in 1 2 3 4 5; do echo "- [ ] Task $i"; done; } >.ralph/@fix_plan.md
		echo hello >src/app.txt
		echo ".ralph/logs/" >.gitignore
		HOME="$d/home" git init -q . && HOME="$d/home" git add -A && HOME="$d/home" git commit -qm init
	) || exit 1
}

# run IMPL_NAME IMPL_PATH MODE BEHAVIOUR: one run; prints one table row's fields, tab-separated.
run() {
	local name="$1" bin="$2" mode="$3" spec="$4"
	local b ideal right
	b=$(field "$spec" 0) ideal=$(field "$spec" 1) right=$(field "$spec" 2)
	local d="$WORK/runs/$name-$mode-$b"
	setup "$d"
	local -a env=(env -i HOME="$d/home" PATH="$d/bin:$PATH" LANG=C.UTF-8 TERM=dumb TZ=UTC
		WASTE_STATE="$d/state" WASTE_BEHAVIOUR="$b" WRITE_TIMEOUT_MINUTES=0)
	local kv
	while IFS= read -r kv; do
		[ -n "$kv" ] && env+=("$kv")
	done < <(behaviour_env "$b")
	local -a cmd limit=120
	if [ "$bin" = bash ]; then
		cp "$WORK/ref/ralph/ralph_loop.sh" "$d/proj/.ralph/"
		cp -r "$WORK/ref/ralph/lib" "$WORK/ref/ralph/drivers" "$d/proj/.ralph/"
		printf '/.ralph/ralph_loop.sh\n/.ralph/lib/\n/.ralph/drivers/\n' >>"$d/proj/.git/info/exclude"
		cp "$WORK/sleep" "$d/bin/sleep"
		cmd=(bash .ralph/ralph_loop.sh)
		limit=400
	else
		env+=(LOOP_DELAY=0 MAX_LOOPS="$CAP" RETRY_MAX_DELAY=2s COMPLETION_MODE="$mode")
		cmd=("$bin")
	fi
	local start=$SECONDS
	(cd "$d/proj" && exec setsid "${env[@]}" timeout -k 5 "$limit" "${cmd[@]}" </dev/null >"$d/out" 2>&1) &
	local pid=$! capped=0
	# The bash loop has no --max-loops: stop it from outside once it passes the cap.
	while kill -0 "$pid" 2>/dev/null; do
		local now
		now=$(cat "$d/state/count" 2>/dev/null)
		if [ "${now:-0}" -gt "$CAP" ]; then
			capped=1
			kill -TERM "$pid" 2>/dev/null # timeout (the job, exec'd into) passes it on
			break
		fi
		"$REAL_SLEEP" 0.2
	done
	wait "$pid"
	local rc=$?
	local calls failed spent counted reason status plan breaker seen runcalls
	calls=$(cat "$d/state/count" 2>/dev/null || echo 0)
	failed=$(cat "$d/state/failed" 2>/dev/null || echo 0)
	spent=$(cat "$d/state/tokens" 2>/dev/null || echo 0)
	local st="$d/proj/.ralph/status.json"
	reason=$(jq -r '.exit_reason // ""' "$st" 2>/dev/null)
	status=$(jq -r '.status // ""' "$st" 2>/dev/null)
	breaker=$(jq -r '.state // ""' "$d/proj/.ralph/.circuit_breaker_state" 2>/dev/null)
	seen=$(jq -r '.calls_made_this_hour // "-"' "$st" 2>/dev/null)
	runcalls=$(jq -r '.calls_this_run // "-"' "$st" 2>/dev/null)
	plan=$(grep -c '^- \[[xX]\]' "$d/proj/.ralph/@fix_plan.md")
	if [ "$bin" = bash ]; then
		counted=-
		[ -s "$d/proj/.ralph/logs/metrics.jsonl" ] && counted=$(jq -s 'map(to_entries | map(select(.key | endswith("_tokens")) | .value // 0) | add // 0) | add // 0' "$d/proj/.ralph/logs/metrics.jsonl" 2>/dev/null | head -1)
	else
		counted=$(jq -r '[to_entries[] | select(.key | endswith("_tokens_total")) | .value // 0] | add // 0' "$st" 2>/dev/null | head -1)
	fi
	# The stop: ran on (the cap, MAX_LOOPS or the outside limit), completed, stuck (breaker
	# open or a refused completion) or fail (any other stop of its own).
	local stop
	if [ "$capped" = 1 ] || [ "$rc" = 124 ] || [ "$rc" = 137 ] || [ "$reason" = max_loops ]; then
		stop=ran-on
	elif [ "$status" = completed ]; then
		stop=done
	elif [ "$breaker" = OPEN ] || [ "$reason" = stagnation_detected ] || [ "$reason" = completion_not_proven ] || [ "$reason" = stalled ]; then
		stop=stuck
	else
		stop=fail
	fi
	local verdict=wrong
	if [ "$stop" = "$right" ] && { [ "$right" != done ] || [ "$plan" = 5 ]; }; then verdict=right; fi
	local wasted=$((calls - ideal))
	[ "$wasted" -lt 0 ] && wasted=0
	[ "$capped" = 1 ] && reason="(stopped from outside at the cap)"
	[ "$rc" = 124 ] && reason="(outside time limit)"
	[ -z "$reason" ] && reason="-"
	# One row, "|"-separated: a tab is whitespace to read, which would
	# merge empty fields.
	printf '%s|%s|%s|%s|%s|%s|%s|%s|%s|%s|%s|%s|%s|%s\n' "$b" "$calls" "${runcalls:--}" "${seen:--}" "$failed" "$ideal" "$wasted" "${counted:--}" "${spent:--}" "$rc" "${reason//|//}" "$stop" "$verdict" "$((SECONDS - start))"
}

echo "host: $(nproc) CPUs, $(uname -sr), $(go version | cut -d' ' -f3-), $(git -C "$SRC" describe --always --dirty 2>/dev/null); cap $CAP calls"
fails=0
for ((k = 0; k < ${#IMPL_NAMES[@]}; k++)); do
	name=${IMPL_NAMES[$k]} bin=${IMPL_PATHS[$k]}
	modes="$MODES"
	[ "$k" -gt 0 ] && modes=signals # earlier builds and the bash loop: their default
	for mode in $modes; do
		label="$name, COMPLETION_MODE=$mode"
		[ "$bin" = bash ] && label="bash loop (bmalph $(git -C "$REF_REPO" rev-parse --short HEAD) ralph/ralph_loop.sh)"
		[ "$k" -gt 0 ] && [ "$bin" != bash ] && label="$name (its default)"
		echo
		echo "### $label"
		echo
		echo "| behaviour | calls | run's count | hour's count | failed | ideal | wasted | tokens counted / spent | exit | exit_reason | stop | right? |"
		echo "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"
		tc=0 tw=0 tr=0 tn=0
		for spec in "${BEHAVIOURS[@]}"; do
			b=$(field "$spec" 0)
			[ -n "$ONLY" ] && ! [[ "$b" =~ $ONLY ]] && continue
			IFS='|' read -r b calls runcalls seen failed ideal wasted counted spent rc reason stop verdict secs < <(run "$name" "$bin" "$mode" "$spec")
			printf '| %s | %s | %s | %s | %s | %s | %s | %s / %s | %s | %s | %s | %s |\n' "$b" "$calls" "$runcalls" "$seen" "$failed" "$ideal" "$wasted" "$counted" "$spent" "$rc" "$reason" "$stop" "$verdict"
			tc=$((tc + calls)) tw=$((tw + wasted)) tn=$((tn + 1))
			[ "$verdict" = right ] && tr=$((tr + 1))
			if [ "$CHECK" = 1 ] && [ "$k" = 0 ]; then
				problem=""
				if [ "$mode" = strict ]; then
					[ "$verdict" = right ] || problem="stopped wrongly ($stop, $reason)"
					[ "$wasted" -le 1 ] || problem="$problem${problem:+; }$wasted calls beyond the ideal $ideal"
				else
					if [ "$stop" = ran-on ]; then
						problem="ran on to the cap"
					elif [ "$verdict" = wrong ] && [[ "$BASH_ALSO" != *" $b "* ]]; then
						problem="a wrong stop ($stop, $reason) the bash loop does not make"
					fi
				fi
				if [ -n "$problem" ]; then
					echo "waste.sh: $b, COMPLETION_MODE=$mode: $problem" >&2
					fails=$((fails + 1))
				fi
			fi
		done
		echo
		echo "$tn behaviours: $tr right stops, $((tn - tr)) wrong; $tc calls, $tw wasted beyond the ideal."
	done
done
if [ "$CHECK" = 1 ]; then
	[ "$fails" = 0 ] || { echo "waste.sh: $fails acceptance failure(s)" >&2; exit 1; }
	echo "waste.sh: acceptance holds"
fi
