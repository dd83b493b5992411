#!/usr/bin/env bash
# bmalph-suites.sh — bmalph's own vitest suites, run with the bash loop and with ralph_loop.
#
#   scripts/bmalph-suites.sh BMALPH_SRC [--loop] [--suites e2e,unit] [--files 'F ...']
#                            [--jobs N] [--ralph-loop DIR] [--keep]
#
#   BMALPH_SRC  a bmalph source folder (a checkout, or `git archive HEAD` of one). It is
#               copied and never changed; the copy gets its own `npm ci` and `npm run build`.
#   --suites    which of bmalph's vitest suites to run: e2e (vitest.config.e2e.ts) and unit
#               (vitest.config.ts); default both
#   --files     vitest file filters, e.g. 'tests/e2e/run.e2e tests/e2e/swarm.e2e'
#   --loop      the e2e tests that start the loop: --suites e2e --files 'tests/e2e/run.e2e
#               tests/e2e/swarm.e2e'
#   --jobs N    vitest workers for the unit suite (default 2; the e2e suite runs one file at
#               a time, as its config says)
#   --ralph-loop DIR  build ralph_loop from DIR, a checkout of this repository (an earlier
#               commit's `git worktree`, say), instead of the one this script is in
#   --keep      keep the scratch folder (printed at the end)
#
# bmalph is built once and copied: one copy as it is (its ralph/ralph_loop.sh is the bash
# loop), one with ralph/ralph_loop.sh replaced by the shim `install.sh --project` writes (the
# file itself, taken from a scratch project), so every project a test sets up with
# `bmalph init` runs ralph_loop. Each suite runs on both copies in the same environment; the
# script prints the tests whose results differ, as a table, and the counts. Exit 0 when no
# test passes with the bash loop and fails with ralph_loop, other than the tests listed in
# TEXT_TESTS below, which read the bash file's text rather than its behaviour; 1 otherwise;
# 2 when it could not run.
#
# Needs go, git, node (20+), npm (its registry, for `npm ci`), jq and bash. Takes a scratch
# HOME (git identity; npm and Go keep their caches) and a scratch TMPDIR per run, where the
# tests make their projects; processes left running there after a run (the bash loop's
# agents and retries) are stopped. See docs/BMALPH.md.
set -uo pipefail

usage() { sed -n '2,30p' "$0" | sed 's/^# \{0,1\}//'; }

# Tests that read bmalph's ralph/ralph_loop.sh (or the .ralph/ralph_loop.sh copied from it)
# as text, not the loop's behaviour: file|full test name|what it reads. The shim has no
# bash functions or strings to find, so these fail with ralph_loop by construction.
TEXT_TESTS=(
	'tests/installer.test.ts|installer bundled asset validation ralph_loop.sh references @fix_plan.md for completion detection|looks for the string "$RALPH_DIR/@fix_plan.md" in the installed .ralph/ralph_loop.sh'
)

RL_SRC="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
SRC_BMALPH=""
SUITES="e2e,unit"
FILES=""
JOBS=2
KEEP=0
while [ $# -gt 0 ]; do
	case "$1" in
	--suites) SUITES="$2"; shift 2 ;;
	--files) FILES="$2"; shift 2 ;;
	--loop) SUITES=e2e FILES="tests/e2e/run.e2e tests/e2e/swarm.e2e"; shift ;;
	--jobs) JOBS="$2"; shift 2 ;;
	--ralph-loop) RL_SRC="$(cd "$2" && pwd)" || exit 2; shift 2 ;;
	--keep) KEEP=1; shift ;;
	-h | --help) usage; exit 0 ;;
	-*) echo "bmalph-suites.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
	*) [ -z "$SRC_BMALPH" ] || { echo "bmalph-suites.sh: unexpected argument '$1'" >&2; exit 2; }; SRC_BMALPH="$1"; shift ;;
	esac
done
[ -n "$SRC_BMALPH" ] || { usage >&2; exit 2; }
[ -f "$SRC_BMALPH/package.json" ] && [ -d "$SRC_BMALPH/ralph" ] || { echo "bmalph-suites.sh: $SRC_BMALPH is not a bmalph source folder (no package.json and ralph/)" >&2; exit 2; }
SRC_BMALPH="$(cd "$SRC_BMALPH" && pwd)"
for tool in go git node npm jq bash tar; do
	command -v "$tool" >/dev/null || { echo "bmalph-suites.sh: $tool is required" >&2; exit 2; }
done
case ",$SUITES," in *,e2e,* | *,unit,*) ;; *) echo "bmalph-suites.sh: --suites takes e2e, unit or both" >&2; exit 2 ;; esac

[ -x "$RL_SRC/install.sh" ] || { echo "bmalph-suites.sh: $RL_SRC has no install.sh (not a ralph_loop checkout)" >&2; exit 2; }
WORK="$(mktemp -d "${TMPDIR:-/tmp}/bmalph-suites.XXXXXX")"
LOOPS=(bash ralph_loop)
say() { printf '\n== %s\n' "$*"; }
die() { echo "bmalph-suites.sh: $*" >&2; exit 2; }

# --- the environment both loops share ------------------------------------------------
# Caches stay where they are; HOME is a scratch one.
npm_config_cache="$(npm config get cache)"
GOCACHE="$(go env GOCACHE)" GOMODCACHE="$(go env GOMODCACHE)" GOPATH="$(go env GOPATH)"
export npm_config_cache GOCACHE GOMODCACHE GOPATH
export HOME="$WORK/home"
mkdir -p "$HOME" "$WORK/results" "$WORK/logs"
git config --global user.name "bmalph-suites" && git config --global user.email "bmalph-suites@example.invalid"
export npm_config_update_notifier=false npm_config_fund=false npm_config_audit=false
export NO_COLOR=1 FORCE_COLOR=0
unset RALPH_DIR PLATFORM_DRIVER AGENT_COMMAND CLAUDE_CODE_CMD 2>/dev/null

# bmalph runs its checks through a login shell (`bash -lc 'command -v cursor-agent'`). A login
# shell reads /etc/profile, which on Debian sets PATH afresh, so a fake CLI the test put
# first on PATH is not found and the test fails before any loop starts. Where that happens,
# the scratch HOME's .bash_profile puts back the PATH the shell was started with, for both
# loops alike.
PROBE_DIR="$WORK/path-probe"
mkdir -p "$PROBE_DIR"
LOGIN_PATH_NOTE="the login shell keeps PATH: nothing changed"
if ! PATH="$PROBE_DIR:$PATH" bash -lc 'case ":$PATH:" in *":'"$PROBE_DIR"':"*) exit 0 ;; *) exit 1 ;; esac'; then
	cat >"$HOME/.bash_profile" <<'EOF'
# bmalph-suites.sh: keep the PATH this login shell was started with (Debian's /etc/profile resets it).
if [ -r "/proc/$$/environ" ]; then
	_path=$(tr '\0' '\n' <"/proc/$$/environ" | sed -n 's/^PATH=//p' | head -n 1)
	[ -n "$_path" ] && PATH=$_path && export PATH
	unset _path
fi
EOF
	PATH="$PROBE_DIR:$PATH" bash -lc 'case ":$PATH:" in *":'"$PROBE_DIR"':"*) exit 0 ;; *) exit 1 ;; esac' ||
		die "the login shell resets PATH and \$HOME/.bash_profile could not keep it (no /proc?)"
	LOGIN_PATH_NOTE="the login shell (bash -l) resets PATH (/etc/profile); \$HOME/.bash_profile puts back the caller's PATH, for both loops"
fi
echo "login shell: $LOGIN_PATH_NOTE"

# --- bmalph, built once, in two copies -------------------------------------------------
say "bmalph from $SRC_BMALPH: npm ci and build"
B_BASH="$WORK/bmalph-bash"
mkdir -p "$B_BASH"
tar -C "$SRC_BMALPH" --exclude=./node_modules --exclude=./dist --exclude=./.git -cf - . | tar -C "$B_BASH" -xf - || die "cannot copy $SRC_BMALPH"
(cd "$B_BASH" && npm ci --ignore-scripts) >"$WORK/logs/npm-ci.log" 2>&1 || { tail -20 "$WORK/logs/npm-ci.log"; die "npm ci failed (log: $WORK/logs/npm-ci.log)"; }
(cd "$B_BASH" && npm run build) >"$WORK/logs/build.log" 2>&1 || { tail -20 "$WORK/logs/build.log"; die "npm run build failed"; }
BMALPH_VERSION="$(node "$B_BASH/bin/bmalph.js" --version 2>/dev/null)"
BMALPH_COMMIT="$(git -C "$SRC_BMALPH" rev-parse --short HEAD 2>/dev/null || echo "source folder $SRC_BMALPH")"
echo "bmalph $BMALPH_VERSION ($BMALPH_COMMIT)"

say "ralph_loop: install.sh --project into a scratch project, its shim into the second copy"
B_RL="$WORK/bmalph-ralph_loop"
cp -a "$B_BASH" "$B_RL" || die "cannot copy the build"
mkdir -p "$WORK/shim-project"
(cd "$RL_SRC" && PREFIX="$WORK/prefix" ./install.sh --project "$WORK/shim-project") >"$WORK/logs/install.log" 2>&1 ||
	{ cat "$WORK/logs/install.log"; die "install.sh --project failed"; }
cp "$WORK/shim-project/.ralph/ralph_loop.sh" "$B_RL/ralph/ralph_loop.sh" || die "cannot put the shim in place"
RL_VERSION="$("$WORK/prefix/bin/ralph_loop" --version)"
echo "$RL_VERSION; $B_RL/ralph/ralph_loop.sh:"
sed 's/^/  | /' "$B_RL/ralph/ralph_loop.sh"

# --- running ---------------------------------------------------------------------------
# leftovers DIR: processes (other than this script) whose working directory is under DIR:
# only the tests' projects are there, so only what the runs started.
leftovers() {
	local p cwd
	for p in /proc/[0-9]*; do
		[ "${p#/proc/}" = "$$" ] && continue
		cwd=$(readlink "$p/cwd" 2>/dev/null) || continue
		case "$cwd" in "$1" | "$1"/*) echo "${p#/proc/}" ;; esac
	done
}
# stop_leftovers DIR NAME: say how many were left and stop them (TERM, then KILL).
stop_leftovers() {
	local pids p n=0
	pids=$(leftovers "$1")
	[ -z "$pids" ] && return 0
	for p in $pids; do
		n=$((n + 1))
		echo "  left running: $p $(tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null | cut -c1-100)"
	done >>"$WORK/logs/leftovers-$2.log"
	echo "  $n process(es) left running after the run (stopped; list in logs/leftovers-$2.log)"
	kill -TERM $pids 2>/dev/null
	sleep 2
	pids=$(leftovers "$1")
	[ -n "$pids" ] && kill -KILL $pids 2>/dev/null
	return 0
}

# run_suite LOOP SUITE RUN [FILTER...]: one vitest run of SUITE's tests (those FILTER picks,
# else $FILES); results/RUN.json, logs/RUN.log
run_suite() {
	local loop="$1" suite="$2" run="$3" dir config args=() tmp start rc
	shift 3
	case "$loop" in bash) dir="$B_BASH" ;; *) dir="$B_RL" ;; esac
	case "$suite" in e2e) config=vitest.config.e2e.ts ;; *) config=vitest.config.ts; args+=(--maxWorkers="$JOBS") ;; esac
	# shellcheck disable=SC2206 # FILES is a list of filters
	[ $# -gt 0 ] || set -- $FILES
	tmp="$WORK/tmp/$run"
	mkdir -p "$tmp"
	start=$(date +%s)
	(cd "$dir" && TMPDIR="$tmp" ./node_modules/.bin/vitest run --config "$config" "${args[@]}" \
		--reporter=dot --reporter=json --outputFile.json="$WORK/results/$run.json" "$@") \
		>"$WORK/logs/$run.log" 2>&1
	rc=$?
	echo "  $loop: vitest exit $rc in $(($(date +%s) - start)) s ($(grep -E '^ +Tests ' "$WORK/logs/$run.log" | tail -n 1 | sed 's/^ *//'))"
	stop_leftovers "$tmp" "$run"
	[ -s "$WORK/results/$run.json" ] || { tail -20 "$WORK/logs/$run.log"; die "vitest wrote no results ($WORK/logs/$run.log)"; }
	tsv "$run" | sort >"$WORK/results/$run.tsv"
}

# tsv RUN: "file<TAB>full name<TAB>status" per test (a file that did not load is one line of
# its own), file names relative to bmalph's root.
tsv() {
	jq -r '.testResults[] | (.name | sub("^.*?/bmalph-[a-z_]+/"; "")) as $f |
		if (.assertionResults | length) == 0 then "\($f)\t(the file did not load)\t\(.status)"
		else .assertionResults[] | "\($f)\t\(.fullName)\t\(.status)" end' "$WORK/results/$1.json"
}

# text_test FILE NAME: the reason when the test reads the bash file's text
text_test() {
	local t f n why
	for t in "${TEXT_TESTS[@]}"; do
		IFS='|' read -r f n why <<<"$t"
		[ "$f" = "$1" ] && [ "$n" = "$2" ] && { echo "$why"; return 0; }
	done
	return 1
}

IFS=',' read -r -a suite_list <<<"$SUITES"
for suite in "${suite_list[@]}"; do
	say "$suite suite${FILES:+ ($FILES)}"
	for loop in "${LOOPS[@]}"; do run_suite "$loop" "$suite" "$loop-$suite"; done
done

# --- the comparison ----------------------------------------------------------------------
# join A.tsv B.tsv: "file<TAB>name<TAB>status in A<TAB>status in B" ("missing" when a run
# did not have the test)
join_runs() {
	awk -F'\t' '
		FNR == NR { a[$1 FS $2] = $3; next }
		{ k = $1 FS $2; b[k] = $3; if (!(k in a)) a[k] = "missing" }
		END { for (k in a) print k FS a[k] FS ((k in b) ? b[k] : "missing") }' "$1" "$2" | sort
}

# The tests whose results differ. A file holding one is run again, on both copies: a test
# that then passes with both (it timed out on a loaded machine) is not the loop's; one that
# fails again with ralph_loop counts, whatever the bash loop did the second time (it is
# slow, and times out under load too).
: >"$WORK/results/differ.tsv"
for suite in "${suite_list[@]}"; do
	join_runs "$WORK/results/bash-$suite.tsv" "$WORK/results/ralph_loop-$suite.tsv" |
		awk -F'\t' -v s="$suite" '$3 != $4 { print s FS $0 }' >>"$WORK/results/differ.tsv"
done
if [ -s "$WORK/results/differ.tsv" ]; then
	say "again: the files whose tests differ, on both copies"
	i=0
	while IFS=$'\t' read -r suite f; do
		i=$((i + 1))
		echo " $f"
		for loop in "${LOOPS[@]}"; do run_suite "$loop" "$suite" "$loop-again-$i" "$f"; done
		join_runs "$WORK/results/bash-again-$i.tsv" "$WORK/results/ralph_loop-again-$i.tsv" |
			awk -F'\t' -v s="$suite" '{ print s FS $0 }' >>"$WORK/results/again.tsv"
	done < <(cut -f1,2 "$WORK/results/differ.tsv" | sort -u)
fi

say "results"
echo "bmalph $BMALPH_VERSION ($BMALPH_COMMIT), $RL_VERSION; $(node --version), npm $(npm --version), $(uname -sm)"
echo "login shell: $LOGIN_PATH_NOTE"
echo
echo "| suite | loop | tests | passed | failed | skipped |"
echo "| --- | --- | ---: | ---: | ---: | ---: |"
for suite in "${suite_list[@]}"; do
	for loop in "${LOOPS[@]}"; do
		jq -r --arg s "$suite" --arg l "$loop" '"| \($s) | \($l) | \(.numTotalTests) | \(.numPassedTests) | \(.numFailedTests) | \(.numPendingTests + .numTodoTests) |"' "$WORK/results/$loop-$suite.json"
	done
done

regressions=0 text=0 rows=()
while IFS=$'\t' read -r suite f n a b; do
	again=$(S="$suite" F="$f" N="$n" awk -F'\t' '$1 == ENVIRON["S"] && $2 == ENVIRON["F"] && $3 == ENVIRON["N"] { print $4 " / " $5; exit }' "$WORK/results/again.tsv" 2>/dev/null)
	note=""
	if [ -n "$again" ] && [ "$again" = "passed / passed" ]; then
		note="passed with both loops when run again: not the loop"
	elif [ "$a" = passed ]; then
		if why=$(text_test "$f" "$n"); then
			note="reads the bash file's text: $why"
			text=$((text + 1))
		else
			note="**passes with the bash loop only**"
			regressions=$((regressions + 1))
		fi
	elif [ "$b" = passed ]; then
		note="passes with ralph_loop only"
	fi
	rows+=("| $suite | \`$f\` › ${n//|/\\|} | $a | $b | ${again:-–} | $note |")
done <"$WORK/results/differ.tsv"
echo
if [ ${#rows[@]} -eq 0 ]; then
	echo "No test's result differs between the two loops."
else
	echo "Tests whose results differ:"
	echo
	echo "| suite | test | bash loop | ralph_loop | run again (bash / ralph_loop) | note |"
	echo "| --- | --- | --- | --- | --- | --- |"
	printf '%s\n' "${rows[@]}"
fi

echo
if [ "$KEEP" = 1 ]; then echo "scratch kept in $WORK (results/, logs/)"; else rm -rf "$WORK"; fi
if [ "$regressions" -gt 0 ]; then
	echo "bmalph-suites: $regressions test(s) pass with the bash loop and fail with ralph_loop ($text more read the bash file's text)"
	exit 1
fi
echo "bmalph-suites: no test passes with the bash loop and fails with ralph_loop ($text read the bash file's text)"
