#!/usr/bin/env bash
# bmalph-e2e.sh — run ralph_loop under a real bmalph, end to end, with a fake claude.
#
#   scripts/bmalph-e2e.sh BMALPH [--keep] [--only NAME] [--reference]
#
#   BMALPH   an already-built bmalph: the bin/bmalph.js of a built checkout
#            (run with node) or a `bmalph` executable. This script never
#            fetches or builds bmalph; docs/BMALPH.md says how to.
#   --keep   keep the scratch folder (printed at the end)
#   --only   run one scenario: complete, signals, stop, detach, term, dashboard,
#            review, review-ultimate, review-off
#   --reference  leave bmalph's bash ralph_loop.sh in place instead of our
#            shim: the same checks then show where the bash loop differs
#
# Needs: go, git, node, jq, script (util-linux), bash. Builds ralph_loop with
# ./install.sh into a scratch PREFIX and installs the shim into scratch bmalph
# projects (bmalph init + bmalph implement of a one-story plan). Exit 0 when
# every check passed; each failed check prints "FAIL: ...".
set -uo pipefail

usage() { sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//'; }

BMALPH=""
KEEP=0
ONLY=""
REFERENCE=0
while [ $# -gt 0 ]; do
	case "$1" in
	--keep) KEEP=1; shift ;;
	--reference) REFERENCE=1; shift ;;
	--only) ONLY="$2"; shift 2 ;;
	-h | --help) usage; exit 0 ;;
	*) [ -z "$BMALPH" ] || { echo "bmalph-e2e.sh: unexpected argument '$1'" >&2; exit 2; }; BMALPH="$1"; shift ;;
	esac
done
[ -n "$BMALPH" ] || { usage >&2; exit 2; }
[ -e "$BMALPH" ] || { echo "bmalph-e2e.sh: $BMALPH does not exist (build bmalph first: docs/BMALPH.md)" >&2; exit 2; }
BMALPH="$(cd "$(dirname "$BMALPH")" && pwd)/$(basename "$BMALPH")"
for tool in go git node jq script; do
	command -v "$tool" >/dev/null || { echo "bmalph-e2e.sh: $tool is required" >&2; exit 2; }
done

SRC="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
WORK="$(mktemp -d "${TMPDIR:-/tmp}/bmalph-e2e.XXXXXX")"
FAILS=0
ORIG_PATH="$PATH"
export PATH="$WORK/bin:$ORIG_PATH"
# A scratch HOME for git and bmalph; Go keeps its caches where they are.
GOCACHE="$(go env GOCACHE)" GOMODCACHE="$(go env GOMODCACHE)" GOPATH="$(go env GOPATH)"
export GOCACHE GOMODCACHE GOPATH
export HOME="$WORK/home"
mkdir -p "$HOME" "$WORK/bin"
git config --global user.name "e2e" && git config --global user.email "e2e@example.invalid" && git config --global init.defaultBranch main

bmalph() {
	case "$BMALPH" in
	*.js) node "$BMALPH" "$@" ;;
	*) "$BMALPH" "$@" ;;
	esac
}
bmalph_cmd() { # the command line, for script(1)
	case "$BMALPH" in
	*.js) printf 'node %q' "$BMALPH" ;;
	*) printf '%q' "$BMALPH" ;;
	esac
}
say() { printf '\n== %s\n' "$*"; }
ok() { printf 'ok: %s\n' "$*"; }
fail() { printf 'FAIL: %s\n' "$*"; FAILS=$((FAILS + 1)); }
check() { # check DESCRIPTION COMMAND...
	local what="$1"; shift
	if "$@"; then ok "$what"; else fail "$what"; fi
}
jqf() { jq -r "$1" "$2" 2>/dev/null; }
# wait_for SECONDS COMMAND...: poll every 0.1 s
wait_for() {
	local limit=$(($1 * 10)); shift
	local i
	for ((i = 0; i < limit; i++)); do "$@" && return 0; sleep 0.1; done
	return 1
}
gone() { # gone PID: not running (a zombie counts as gone)
	local st
	kill -0 "$1" 2>/dev/null || return 0
	st=$(awk '{print $3}' "/proc/$1/stat" 2>/dev/null) || return 0
	[ "$st" = Z ] || [ "$st" = X ]
}
# survivors DIR: pids of processes (other than this script) whose cwd is
# under DIR; call it from outside DIR.
survivors() {
	local p cwd
	for p in /proc/[0-9]*; do
		[ "${p#/proc/}" = "$$" ] && continue
		cwd=$(readlink "$p/cwd" 2>/dev/null) || continue
		case "$cwd" in "$1" | "$1"/*) gone "${p#/proc/}" || echo "${p#/proc/}" ;; esac
	done
}
# loop_pid DIR: the process bmalph (node) started in DIR: the loop (our shim
# exec's ralph_loop, so the pid is the same).
loop_pid() {
	local p ppid
	for p in /proc/[0-9]*; do
		[ "$(readlink "$p/cwd" 2>/dev/null)" = "$1" ] || continue
		ppid=$(awk '{print $4}' "$p/stat" 2>/dev/null) || continue
		[ "$(cat "/proc/$ppid/comm" 2>/dev/null)" = node ] && { echo "${p#/proc/}"; return; }
	done
}
# no_survivors DIR: true when nothing runs in DIR; else lists and kills
# those processes (all started by this script's scenarios).
no_survivors() {
	local s p
	cd "$WORK" || return 1
	s=$(survivors "$1")
	[ -z "$s" ] && return 0
	for p in $s; do echo "  survivor $p: $(tr '\0\n' '  ' <"/proc/$p/cmdline" 2>/dev/null | cut -c1-120)"; done
	kill -9 $s 2>/dev/null
	return 1
}

# --- the fake claude ---------------------------------------------------------
# FAKE_CLAUDE_LOG    one line per call: pid and whether --resume was given
# FAKE_CLAUDE_MODE   tick (default): tick the first open box, report 1 task done
#                    notick: report EXIT_SIGNAL true, 0 tasks, tick nothing
#                    hang: start a grandchild in the same group, write
#                    "<pid> <grandchild pid>" to $FAKE_CLAUDE_PIDS, wait forever
# FAKE_CLAUDE_DELAY  seconds to sleep before answering
# FAKE_CLAUDE_NOTICK_AT  the K-th implementation call ticks nothing (tick mode)
# A review call (tools exactly "Read Glob Grep" after --allowedTools and an
# --append-system-prompt starting "CODE REVIEW LOOP (read-only)") ticks
# nothing and answers a ---REVIEW_FINDINGS--- block (one HIGH issue).
# Each call's log line also says kind=impl|review, findings=yes|no (was
# .ralph/.review_findings.json there) and the REVIEW_* variables it saw;
# $FAKE_CLAUDE_LOG.d/<n>.argv holds call n's arguments, NUL-separated, and
# <n>.findings a copy of the findings file it saw.
cat >"$WORK/bin/claude" <<'EOF'
#!/usr/bin/env bash
case "${1:-}" in --version | -v) echo "2.1.0 (Claude Code)"; exit 0 ;; esac
resume=no tools="" ctx="" prev="" intools=0
for a in "$@"; do
	[ "$a" = --resume ] && resume=yes
	[ "$prev" = --append-system-prompt ] && ctx="$a"
	if [ "$a" = --allowedTools ]; then intools=1
	elif [ "$intools" = 1 ]; then case "$a" in -*) intools=0 ;; *) tools="$tools $a" ;; esac
	fi
	prev="$a"
done
kind=impl
[ "${tools# }" = "Read Glob Grep" ] && case "$ctx" in "CODE REVIEW LOOP (read-only)"*) kind=review ;; esac
findings=no
[ -f .ralph/.review_findings.json ] && findings=yes
impls=$(grep -c 'kind=impl' "${FAKE_CLAUDE_LOG:-/dev/null}" 2>/dev/null)
reviews=$(grep -c 'kind=review' "${FAKE_CLAUDE_LOG:-/dev/null}" 2>/dev/null)
[ -n "${FAKE_CLAUDE_LOG:-}" ] && echo "$$ resume=$resume kind=$kind findings=$findings REVIEW_MODE=${REVIEW_MODE-unset} REVIEW_ENABLED=${REVIEW_ENABLED-unset} REVIEW_INTERVAL=${REVIEW_INTERVAL-unset}" >>"$FAKE_CLAUDE_LOG"
n=$(wc -l <"${FAKE_CLAUDE_LOG:-/dev/null}" 2>/dev/null || echo 1)
if [ -n "${FAKE_CLAUDE_LOG:-}" ]; then
	mkdir -p "$FAKE_CLAUDE_LOG.d"
	printf '%s\0' "$@" >"$FAKE_CLAUDE_LOG.d/$n.argv"
	[ "$findings" = yes ] && cp .ralph/.review_findings.json "$FAKE_CLAUDE_LOG.d/$n.findings"
fi
if [ "$kind" = review ]; then
	r=$((reviews + 1))
	printf '{"type":"result","subtype":"success","is_error":false,"duration_ms":900,"num_turns":2,"total_cost_usd":0.01,"result":"Reviewed the changes.\\n---REVIEW_FINDINGS---\\n{\\"severity\\":\\"HIGH\\",\\"issues_found\\":1,\\"summary\\":\\"Review %s: src.txt grows without bound\\",\\"details\\":[{\\"severity\\":\\"HIGH\\",\\"file\\":\\"src.txt\\",\\"line\\":1,\\"issue\\":\\"unbounded append\\",\\"suggestion\\":\\"cap it\\"}]}\\n---END_REVIEW_FINDINGS---","session_id":"review-session-%s","usage":{"input_tokens":80,"output_tokens":40}}\n' "$r" "$n"
	exit 0
fi
case "${FAKE_CLAUDE_MODE:-tick}" in
hang)
	sleep 100000 &
	echo "$$ $!" >"$FAKE_CLAUDE_PIDS"
	wait
	exit 0
	;;
notick) tasks=0 exit=true status=COMPLETE ;;
*)
	echo "call $n" >>src.txt
	if [ "$((impls + 1))" = "${FAKE_CLAUDE_NOTICK_AT:-0}" ]; then
		tasks=0
	else
		sed -i '0,/- \[ \]/s//- [x]/' .ralph/@fix_plan.md
		tasks=1
	fi
	exit=false status=IN_PROGRESS
	grep -q -- '- \[ \]' .ralph/@fix_plan.md || { exit=true status=COMPLETE; }
	;;
esac
[ -n "${FAKE_CLAUDE_DELAY:-}" ] && sleep "$FAKE_CLAUDE_DELAY"
printf '{"type":"result","subtype":"success","is_error":false,"duration_ms":1200,"num_turns":3,"total_cost_usd":0.01,"result":"Worked on the story.\\n---RALPH_STATUS---\\nSTATUS: %s\\nTASKS_COMPLETED_THIS_LOOP: %s\\nFILES_MODIFIED: 1\\nTESTS_STATUS: PASSING\\nWORK_TYPE: IMPLEMENTATION\\nEXIT_SIGNAL: %s\\nRECOMMENDATION: next\\n---END_RALPH_STATUS---","session_id":"fake-session-%s","usage":{"input_tokens":100,"output_tokens":50}}\n' \
	"$status" "$tasks" "$exit" "$n"
EOF
chmod +x "$WORK/bin/claude"

# --- the project template: bmalph init + implement + our shim ------------------
say "template project (bmalph $(bmalph --version 2>/dev/null))"
T="$WORK/template"
mkdir -p "$T" && cd "$T" || exit 2
git init -q && git commit -q --allow-empty -m initial
bmalph init -n e2e-demo -d "ralph_loop end-to-end test" --platform claude-code </dev/null >"$WORK/init.log" 2>&1 || { cat "$WORK/init.log"; echo "bmalph init failed" >&2; exit 2; }
mkdir -p _bmad-output/planning-artifacts
cat >_bmad-output/planning-artifacts/epics-and-stories.md <<'EOF'
# Epics and Stories

## Epic 1: Workspace Access

The workspace access flow lets users enter the product safely.

### Story 1.1: Sign in to a workspace

As a member, I want to sign in to my workspace, So that I can continue my work.

**Acceptance Criteria:**

- **Given** the workspace exists
- **When** I submit valid credentials
- **Then** I should reach the dashboard
EOF
printf '# Architecture Document\n\n## Tech Stack\n\n- Node.js 20\n' >_bmad-output/planning-artifacts/architecture.md
printf '# Product Requirements Document\n\n## Executive Summary\n\nDemo.\n\n## Functional Requirements\n\n- Sign-in\n\n## Non-Functional Requirements\n\n- Deterministic\n\n## Scope\n\n- Sign-in\n' >_bmad-output/planning-artifacts/prd.md
bmalph implement </dev/null >"$WORK/implement.log" 2>&1 || { cat "$WORK/implement.log"; echo "bmalph implement failed" >&2; exit 2; }
git add -A && git commit -q -m "bmalph init + implement"
if [ "$REFERENCE" = 1 ]; then
	echo "reference mode: bmalph's bash .ralph/ralph_loop.sh stays in place"
else
	(cd "$SRC" && PREFIX="$WORK/prefix" ./install.sh --project "$T") >"$WORK/install.log" 2>&1 || { cat "$WORK/install.log"; echo "install.sh failed" >&2; exit 2; }
	git add -A && git commit -q -m "ralph_loop shim"
	check "install.sh put the shim at .ralph/ralph_loop.sh (exec of $WORK/prefix/bin/ralph_loop)" grep -qF "exec $WORK/prefix/bin/ralph_loop" <(tr -d "\"'" <.ralph/ralph_loop.sh)
	check ".ralph/lib/ kept" test -d .ralph/lib
fi

project() { # project NAME: a fresh copy of the template; cd into it
	P="$WORK/$1"
	cp -a "$T" "$P" && cd "$P" || exit 2
	export FAKE_CLAUDE_LOG="$WORK/$1.calls"
	: >"$FAKE_CLAUDE_LOG"
}
calls() { wc -l <"$FAKE_CLAUDE_LOG"; }
want() { [ "$(jqf ".$2" "$1")" = "$3" ] || { echo "  $1: .$2 = $(jqf ".$2" "$1"), want $3"; return 1; }; }
run() { [ -z "$ONLY" ] || [ "$ONLY" = "$1" ]; }

# --- 1. one-story plan to completion, then status and doctor --------------------
if run complete; then
	say "complete: bmalph run --no-dashboard, a one-story plan"
	project complete
	bmalph run --no-dashboard </dev/null >"$WORK/complete.out" 2>"$WORK/complete.err"
	rc=$?
	check "bmalph run exits 0 (got $rc)" test "$rc" = 0
	check "the fake claude was called once (got $(calls))" test "$(calls)" = 1
	check "'Ralph has completed the project' on stderr" grep -q "Ralph has completed the project" "$WORK/complete.err"
	check "status.json completed / graceful_exit / plan_complete, tasks 1/1" \
		bash -c "$(declare -f want jqf); want .ralph/status.json status completed && want .ralph/status.json last_action graceful_exit && want .ralph/status.json exit_reason plan_complete && want .ralph/status.json tasks_completed 1 && want .ralph/status.json tasks_total 1"
	check ".ralph_session reset (project_complete)" bash -c "$(declare -f want jqf); want .ralph/.ralph_session reset_reason project_complete"
	bmalph status >"$WORK/status.out" 2>&1
	sed 's/^/  | /' "$WORK/status.out"
	check "bmalph status: Status: completed, Loop count: 1, Tasks: 1/1" \
		bash -c "grep -q 'Status: completed' '$WORK/status.out' && grep -q 'Loop count: 1' '$WORK/status.out' && grep -q 'Tasks: 1/1' '$WORK/status.out'"
	check "bmalph status --json: ralph.status completed, no corrupt-file warning" \
		bash -c "bmalph_out=\$($(bmalph_cmd) status --json 2>/dev/null); [ \"\$(jq -r .ralph.status <<<\"\$bmalph_out\")\" = completed ]"
	bmalph doctor >"$WORK/doctor.out" 2>&1
	rc=$?
	sed 's/^/  | /' "$WORK/doctor.out"
	check "bmalph doctor exits 0 (got $rc), all checks OK" grep -q "all checks OK" "$WORK/doctor.out"
	check "no process left in the project" no_survivors "$P"
fi

# --- 2. completion signals: EXIT_SIGNAL without ticking, as bmalph's own e2e ----
if run signals; then
	say "signals: EXIT_SIGNAL true, nothing ticked (bmalph's e2e expectation)"
	project signals
	FAKE_CLAUDE_MODE=notick bmalph run --no-dashboard </dev/null >"$WORK/signals.out" 2>"$WORK/signals.err"
	rc=$?
	check "bmalph run exits 0 (got $rc)" test "$rc" = 0
	check "two calls (got $(calls))" test "$(calls)" = 2
	check "second call resumes the session" grep -q "resume=yes" <(sed -n 2p "$FAKE_CLAUDE_LOG")
	check "status.json completed / completion_signals" \
		bash -c "$(declare -f want jqf); want .ralph/status.json status completed && want .ralph/status.json exit_reason completion_signals"
	check "'Ralph has completed the project' on stderr" grep -q "Ralph has completed the project" "$WORK/signals.err"
fi

# --- 3. stop from the dashboard (q, s) during a hanging agent call ---------------
if run stop; then
	say "stop: dashboard q then s while the agent hangs (with a grandchild)"
	project stop
	export FAKE_CLAUDE_PIDS="$WORK/stop.pids"
	rm -f "$FAKE_CLAUDE_PIDS"
	start=$(date +%s)
	{
		wait_for 30 test -s "$FAKE_CLAUDE_PIDS"
		sleep 2 # one dashboard refresh
		printf q
		sleep 1
		printf s
		sleep 5
	} | FAKE_CLAUDE_MODE=hang TERM=xterm-256color script -qfec "stty cols 120 rows 40; $(bmalph_cmd) run --no-review" /dev/null >"$WORK/stop.typescript" 2>&1
	rc=$?
	read -r agent grandchild <"$FAKE_CLAUDE_PIDS" 2>/dev/null
	check "bmalph exits 143 (got $rc)" test "$rc" = 143
	check "status.json stopped / interrupted / SIGTERM" \
		bash -c "$(declare -f want jqf); want .ralph/status.json status stopped && want .ralph/status.json last_action interrupted && want .ralph/status.json exit_reason SIGTERM"
	check ".ralph_session reset (manual_interrupt)" bash -c "$(declare -f want jqf); want .ralph/.ralph_session reset_reason manual_interrupt"
	check "the agent (pid ${agent:-?}) is gone" wait_for 2 gone "${agent:-0}"
	check "the agent's grandchild (pid ${grandchild:-?}) is gone" wait_for 2 gone "${grandchild:-0}"
	check "no process left in the project" no_survivors "$P"
	unset FAKE_CLAUDE_PIDS
fi

# --- 4. detach from the dashboard (q, d): the loop goes on with closed pipes -------
if run detach; then
	say "detach: dashboard q then d; the loop finishes a 3-story plan with its stdout/stderr closed"
	project detach
	printf -- '- [ ] Story 1.2: Sign out\n- [ ] Story 1.3: Reset a password\n' >>.ralph/@fix_plan.md
	git commit -qam "three stories"
	{
		wait_for 30 test -s "$FAKE_CLAUDE_LOG"
		sleep 1
		printf q
		sleep 1
		printf d
		sleep 2
	} | FAKE_CLAUDE_DELAY=2 TERM=xterm-256color script -qfec "stty cols 120 rows 40; $(bmalph_cmd) run --no-review" /dev/null >"$WORK/detach.typescript" 2>&1
	rc=$?
	check "bmalph exits 0 after detach (got $rc)" test "$rc" = 0
	check "bmalph detached while the loop was still running (status.json: $(jqf .status .ralph/status.json))" \
		test "$(jqf .status .ralph/status.json)" != completed
	check "the detached loop finishes: status.json completed within 60 s" \
		wait_for 60 bash -c "[ \"\$(jq -r .status .ralph/status.json 2>/dev/null)\" = completed ]"
	check "three calls (got $(calls))" test "$(calls)" = 3
	check "the loop logged to the end (Total loops in ralph.log)" wait_for 5 grep -q "Total loops: 3" .ralph/logs/ralph.log
	cd "$WORK" || exit 2
	check "no process left in the project" wait_for 5 bash -c "[ -z \"\$($(declare -f survivors gone); survivors '$P')\" ]"
	no_survivors "$P" >/dev/null
fi

# --- 5. SIGTERM to the loop's group in --no-dashboard mode -------------------------
if run term; then
	say "term: kill -TERM -<loop pgid> during a hanging call, bmalph --no-dashboard"
	project term
	export FAKE_CLAUDE_PIDS="$WORK/term.pids"
	rm -f "$FAKE_CLAUDE_PIDS"
	FAKE_CLAUDE_MODE=hang bmalph run --no-dashboard </dev/null >"$WORK/term.out" 2>"$WORK/term.err" &
	bm=$!
	if wait_for 30 test -s "$FAKE_CLAUDE_PIDS"; then
		loop=$(loop_pid "$P")
		read -r agent grandchild <"$FAKE_CLAUDE_PIDS"
		pgid=$(ps -o pgid= -p "${loop:-0}" | tr -d ' ')
		check "the loop (pid $loop) leads its own process group (pgid $pgid), as bmalph spawns it" test -n "$loop" -a "$loop" = "$pgid"
		t0=$(date +%s%N)
		kill -TERM -- "-$loop"
		wait "$bm"
		rc=$?
		ms=$((($(date +%s%N) - t0) / 1000000))
		check "bmalph exits 143 (got $rc) in ${ms} ms (<= 2000)" test "$rc" = 143 -a "$ms" -le 2000
		check "the agent (pid $agent) and its grandchild (pid $grandchild) are gone" wait_for 2 bash -c "$(declare -f gone); gone $agent && gone $grandchild"
		check "status.json stopped / SIGTERM" bash -c "$(declare -f want jqf); want .ralph/status.json status stopped && want .ralph/status.json exit_reason SIGTERM"
	else
		fail "the agent did not start within 30 s"
		kill "$bm" 2>/dev/null
	fi
	check "no process left in the project" no_survivors "$P"
	unset FAKE_CLAUDE_PIDS
fi

# --- 6. dashboard run to completion --------------------------------------------
if run dashboard; then
	say "dashboard: a one-story plan with the dashboard, then q"
	project dashboard
	{
		wait_for 30 bash -c "[ \"\$(jq -r .status .ralph/status.json 2>/dev/null)\" = completed ]"
		sleep 3 # the footer updates on the next refresh
		printf q
		sleep 2
	} | TERM=xterm-256color script -qfec "stty cols 120 rows 40; $(bmalph_cmd) run --no-review" /dev/null >"$WORK/dashboard.typescript" 2>&1
	rc=$?
	check "bmalph exits 0 (got $rc)" test "$rc" = 0
	check "the dashboard footer says 'Ralph: stopped — completed'" grep -q "Ralph: stopped — completed" "$WORK/dashboard.typescript"
	check "no process left in the project" no_survivors "$P"
fi

# --- 7. review modes: bmalph run --review / --review ultimate / --no-review ------
# The fake's log says which calls were reviews; the checks read their
# arguments and what the next implementation call was given.
stories() { # stories K: add Story 1.2 .. 1.K to the one-story plan; commit
	local k
	for ((k = 2; k <= $1; k++)); do printf -- '- [ ] Story 1.%s: Story number %s\n' "$k" "$k" >>.ralph/@fix_plan.md; done
	git commit -qam "$1 stories"
}
kinds() { awk '{for (i = 1; i <= NF; i++) if ($i ~ /^kind=/) printf "%s%s", (n++ ? " " : ""), substr($i, 6)}' "$FAKE_CLAUDE_LOG"; }
field() { sed -n "$1p" "$FAKE_CLAUDE_LOG" | tr ' ' '\n' | sed -n "s/^$2=//p"; }
argv_of() { ARGV=(); [ -f "$FAKE_CLAUDE_LOG.d/$1.argv" ] && readarray -d '' -t ARGV <"$FAKE_CLAUDE_LOG.d/$1.argv"; }
arg_after() { # arg_after N FLAG: the value after FLAG in call N
	local i
	argv_of "$1"
	for ((i = 0; i + 1 < ${#ARGV[@]}; i++)); do [ "${ARGV[i]}" = "$2" ] && { printf '%s' "${ARGV[i + 1]}"; return 0; }; done
	return 1
}
all_after() { # all_after N FLAG: every value after FLAG in call N, joined by a space (the
	# bash loop passes review findings in a second --append-system-prompt)
	local i out=""
	argv_of "$1"
	for ((i = 0; i + 1 < ${#ARGV[@]}; i++)); do [ "${ARGV[i]}" = "$2" ] && out="$out${out:+ }${ARGV[i + 1]}"; done
	printf '%s' "$out"
}
no_arg() { argv_of "$1"; local a; for a in "${ARGV[@]}"; do [ "$a" = "$2" ] && return 1; done; return 0; }
tools_of() { # the words after --allowedTools up to the next option
	local a in=0 out=""
	argv_of "$1"
	for a in "${ARGV[@]}"; do
		if [ "$a" = --allowedTools ]; then in=1
		elif [ "$in" = 1 ]; then case "$a" in -*) break ;; *) out="$out${out:+ }$a" ;; esac
		fi
	done
	printf '%s' "$out"
}
contains() { case "$1" in *"$2"*) return 0 ;; *) return 1 ;; esac; }
starts() { case "$1" in "$2"*) return 0 ;; *) return 1 ;; esac; }
# review_checks NAME WANT_KINDS: call sequence, each review call's arguments,
# the findings the next call was given, the log lines and files
review_checks() {
	local name="$1" want="$2" got i k next loop=0 r=0 ctx loops="" prev=impl
	got=$(kinds)
	check "call sequence '$want' (got '$got')" test "$got" = "$want"
	for ((i = 1; i <= $(calls); i++)); do
		k=$(field "$i" kind)
		if [ "$k" = impl ]; then
			loop=$((loop + 1))
			ctx=$(all_after "$i" --append-system-prompt)
			if [ "$prev" = impl ]; then
				check "call $i (loop $loop): no findings file, no findings in its system prompt" \
					test "$(field "$i" findings)" = no -a "${ctx/REVIEW FINDINGS/}" = "$ctx"
			fi
			prev=impl
			continue
		fi
		r=$((r + 1)) prev=review loops="$loops${loops:+ }$loop"
		check "call $i (review after loop $loop): --allowedTools Read Glob Grep and nothing else (got '$(tools_of "$i")')" test "$(tools_of "$i")" = "Read Glob Grep"
		check "call $i (review): no --resume" no_arg "$i" --resume
		check "call $i (review): --append-system-prompt 'CODE REVIEW LOOP (read-only). Analyze changes since last review. Recent changes: ...'" \
			starts "$(arg_after "$i" --append-system-prompt)" "CODE REVIEW LOOP (read-only). Analyze changes since last review. Recent changes: "
		check "call $i (review): -p is REVIEW_PROMPT.md" contains "$(arg_after "$i" -p)" "# Code Review Instructions"
		check "call $i (review): .ralph/logs/review_loop_$loop.log holds its output" grep -q -- "---REVIEW_FINDINGS---" ".ralph/logs/review_loop_$loop.log"
		next=$((i + 1))
		[ "$next" -le "$(calls)" ] || continue
		check "call $next saw .ralph/.review_findings.json (issues_found 1, summary 'Review $r: ...')" \
			test "$(jqf '"\(.issues_found) \(.summary)"' "$FAKE_CLAUDE_LOG.d/$next.findings")" = "1 Review $r: src.txt grows without bound"
		ctx=$(all_after "$next" --append-system-prompt)
		check "call $next's --append-system-prompt (all of them) carries the findings (PRIORITY: ... REVIEW FINDINGS (HIGH, 1 issues): Review $r: ...)" \
			contains "$ctx" "PRIORITY: Fix these code review findings BEFORE picking a new story. REVIEW FINDINGS (HIGH, 1 issues): Review $r: src.txt grows without bound"
		check "call $next resumes the implementation session (fake-session-$((i - 1))), not the review's" \
			test "$(arg_after "$next" --resume)" = "fake-session-$((i - 1))"
	done
	got=$(sed -n 's/.*Starting periodic code review (loop #\([0-9]*\)).*/\1/p' "$WORK/$name.err" | tr '\n' ' ')
	check "stderr: 'Starting periodic code review (loop #N)' for loops '$loops' (got '${got% }')" test "${got% }" = "$loops"
	check "stderr: 'Code review complete. 1 issue(s) found.' $r time(s)" test "$(grep -c 'Code review complete. 1 issue(s) found.' "$WORK/$name.err")" = "$r"
	if [ "$r" -gt 0 ]; then check ".ralph/.review_last_sha written" test -s .ralph/.review_last_sha; fi
	check "status.json completed / plan_complete" \
		bash -c "$(declare -f want jqf); want .ralph/status.json status completed && want .ralph/status.json exit_reason plan_complete"
	check "no process left in the project" no_survivors "$P"
}

if run review; then
	say "review: bmalph run --no-dashboard --review (enhanced: every REVIEW_INTERVAL=5 loops), a six-story plan"
	project review
	stories 6
	LOOP_DELAY=0 bmalph run --no-dashboard --review </dev/null >"$WORK/review.out" 2>"$WORK/review.err"
	rc=$?
	check "bmalph run exits 0 (got $rc)" test "$rc" = 0
	check "bmalph says 'Enhanced mode: code review every 5 implementation loops'" grep -q "Enhanced mode: code review every 5 implementation loops" "$WORK/review.out"
	check "the agent saw REVIEW_MODE=enhanced REVIEW_ENABLED=true REVIEW_INTERVAL=5 (got $(field 1 REVIEW_MODE) $(field 1 REVIEW_ENABLED) $(field 1 REVIEW_INTERVAL))" \
		test "$(field 1 REVIEW_MODE) $(field 1 REVIEW_ENABLED) $(field 1 REVIEW_INTERVAL)" = "enhanced true 5"
	review_checks review "impl impl impl impl impl review impl"
fi

if run review-ultimate; then
	# Loop 2 ticks nothing, so no review follows it. Ours never reviews after
	# loop 1 (docs/compat/gates.md "Never after the first loop"); the bash
	# loop does.
	say "review-ultimate: bmalph run --no-dashboard --review ultimate, three stories, loop 2 ticks nothing"
	project review-ultimate
	stories 3
	LOOP_DELAY=0 FAKE_CLAUDE_NOTICK_AT=2 bmalph run --no-dashboard --review ultimate </dev/null >"$WORK/review-ultimate.out" 2>"$WORK/review-ultimate.err"
	rc=$?
	check "bmalph run exits 0 (got $rc)" test "$rc" = 0
	check "bmalph says 'Ultimate mode: code review after every completed story'" grep -q "Ultimate mode: code review after every completed story" "$WORK/review-ultimate.out"
	check "the agent saw REVIEW_MODE=ultimate REVIEW_ENABLED=true, no REVIEW_INTERVAL (got $(field 1 REVIEW_MODE) $(field 1 REVIEW_ENABLED) $(field 1 REVIEW_INTERVAL))" \
		test "$(field 1 REVIEW_MODE) $(field 1 REVIEW_ENABLED) $(field 1 REVIEW_INTERVAL)" = "ultimate true unset"
	if [ "$REFERENCE" = 1 ]; then
		review_checks review-ultimate "impl review impl impl review impl"
	else
		review_checks review-ultimate "impl impl impl review impl"
	fi
fi

if run review-off; then
	say "review-off: bmalph run --no-dashboard --no-review (REVIEW_MODE=off), a six-story plan"
	project review-off
	stories 6
	LOOP_DELAY=0 bmalph run --no-dashboard --no-review </dev/null >"$WORK/review-off.out" 2>"$WORK/review-off.err"
	rc=$?
	check "bmalph run exits 0 (got $rc)" test "$rc" = 0
	check "the agent saw REVIEW_MODE=off, no REVIEW_ENABLED, no REVIEW_INTERVAL (got $(field 1 REVIEW_MODE) $(field 1 REVIEW_ENABLED) $(field 1 REVIEW_INTERVAL))" \
		test "$(field 1 REVIEW_MODE) $(field 1 REVIEW_ENABLED) $(field 1 REVIEW_INTERVAL)" = "off unset unset"
	check "no review_loop_*.log" test -z "$(ls .ralph/logs/review_loop_* 2>/dev/null)"
	review_checks review-off "impl impl impl impl impl impl"
fi

cd / || true
if [ "$KEEP" = 1 ]; then echo; echo "scratch kept in $WORK"; else rm -rf "$WORK"; fi
echo
if [ "$FAILS" = 0 ]; then echo "bmalph-e2e: all checks passed"; else echo "bmalph-e2e: $FAILS check(s) failed"; exit 1; fi
