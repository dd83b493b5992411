#!/usr/bin/env bash
# wine-smoke.sh: run the Windows build of ralph_loop under Wine, as a user would.
#
# Builds ralph_loop.exe and the fake agent (internal/fakeagent) for windows/amd64, then runs,
# each under Wine through the workplace tool $WINE_SMOKE_TOOL (default
# ../shared/tools/wine-smoke.sh, which installs Wine when missing):
#   1. --version, 2. --help, 3. --analyze of a fixture,
#   4. a two-loop run whose agent is a plain claude.cmd (the plan has CRLF line ends; every
#      call leaves a grandchild holding the pipes, which the Job Object must end),
#   5. the same with an npm-style claude.cmd shim: the prompt must arrive intact (a plain .cmd
#      lets cmd.exe expand %OS% in it, the resolved shim must not),
#   6. during a hanging call, a second loop in the project is refused (the lock) and --status
#      reads the running one; then Ctrl+C (SIGINT, which Wine turns into a console event): exit
#      130 and no process of the call left.
# Wine has no git: a stub git.cmd answers every command with nothing (exit 0) and HEAD is read
# from the .git that Linux git made. Exits non-zero on the first failed case.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
tool=${WINE_SMOKE_TOOL:-../shared/tools/wine-smoke.sh}
[ -x "$tool" ] || { echo "wine-smoke: $tool not found; set WINE_SMOKE_TOOL to the workplace's wine-smoke.sh" >&2; exit 2; }
tool=$(cd "$(dirname "$tool")" && pwd)/$(basename "$tool")

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export WINEPREFIX=${WINEPREFIX:-${TMPDIR:-/tmp}/wine-smoke-prefix}
win() { printf 'Z:%s' "${1//\//\\}"; } # a Linux path as Wine's Z: drive sees it
fail() { echo "FAIL: $*" >&2; exit 1; }
step() { echo "== $*"; }

GOOS=windows GOARCH=amd64 CGO_ENABLED=0 go build -o "$work/ralph_loop.exe" ./cmd/ralph_loop
mkdir -p "$work/plain" "$work/npm/node_modules/@anthropic-ai/claude-code" "$work/agent"
GOOS=windows GOARCH=amd64 CGO_ENABLED=0 go build -o "$work/plain/fakeagent.exe" ./internal/fakeagent/cmd/fakeagent
printf '@"%%~dp0fakeagent.exe" %%*\r\n' >"$work/plain/claude.cmd"
cp "$work/plain/fakeagent.exe" "$work/npm/node.exe" # the shim prefers a node.exe beside it
echo '// the shim runs node with this script' >"$work/npm/node_modules/@anthropic-ai/claude-code/cli.js"
cp internal/cmdshim/testdata/cmdshim8-claude.cmd "$work/npm/claude.cmd"
for d in plain npm; do printf '@exit /b 0\r\n' >"$work/$d/git.cmd"; done
cat >"$work/agent/default.out" <<'EOF'
{"type":"result","subtype":"success","is_error":false,"result":"Worked on call {{CALL}}.\n---RALPH_STATUS---\nSTATUS: IN_PROGRESS\nTASKS_COMPLETED_THIS_LOOP: 1\nFILES_MODIFIED: 1\nTESTS_STATUS: PASSING\nWORK_TYPE: IMPLEMENTATION\nEXIT_SIGNAL: false\nRECOMMENDATION: next\n---END_RALPH_STATUS---","session_id":"sess-{{CALL}}"}
EOF
echo 1 >"$work/agent/default.check"
export FAKE_AGENT_DIR LOOP_DELAY=0 FAKE_AGENT_VERSION='2.1.330 (Claude Code)'
FAKE_AGENT_DIR=$(win "$work/agent")

# project NAME: a fresh git project with a two-task CRLF plan and a prompt with %OS% in it.
project() {
	local p="$work/$1"
	mkdir -p "$p/.ralph"
	printf 'Do the next task.\nKeep 100%%OS%% as written.\n' >"$p/.ralph/PROMPT.md"
	printf -- '- [ ] Task A\r\n- [ ] Task B\r\n' >"$p/.ralph/@fix_plan.md"
	git -C "$p" init -q && git -C "$p" add -A && git -C "$p" -c user.email=smoke@example.com -c user.name=smoke commit -qm init
	rm -rf "$work/agent/calls"
	echo "$p"
}
# run BIN ARGS...: ralph_loop.exe under Wine with BIN's folder first on Wine's PATH.
run() {
	local bin=$1
	shift
	WINEPATH=$(win "$work/$bin") timeout 120 "$tool" "$work/ralph_loop.exe" "$@"
}
# gone: no process of this smoke's agents is left, waiting up to 5 s for Wine to tear them down.
gone() {
	local pat="^$(win "$work" | sed 's/[\\.]/\\&/g').*(fakeagent|node)\.exe"
	for _ in $(seq 50); do pgrep -f "$pat" >/dev/null || return 0; sleep 0.1; done
	pgrep -af "$pat" >&2
	return 1
}

step "--version"
out=$(run plain --version) || fail "--version exited $?"
[[ $out == "ralph_loop "* ]] || fail "--version printed '$out'"

step "--help"
run plain --help | grep -q '^Usage: ralph_loop' || fail "--help has no usage line"

step "--analyze a fixture"
out=$(run plain --analyze analysis/testdata/agent-output/cli_object_response.json 2>&1) || fail "--analyze exited $?"
grep -q '^decision: exit signal' <<<"$out" || fail "--analyze: $out"

step "two loops with a plain claude.cmd, a grandchild per call"
echo 1 >"$work/agent/default.child"
p=$(project loop-plain)
(cd "$p" && run plain --max-loops 2 >"$work/plain.out" 2>&1) || fail "loop exited $?: $(tail -5 "$work/plain.out")"
rm "$work/agent/default.child"
grep -q 'Exit reason: plan_complete' "$work/plain.out" || fail "plan not complete: $(tail -5 "$work/plain.out")"
[ "$(cat "$work/agent/calls/count")" = 2 ] || fail "$(cat "$work/agent/calls/count") calls, want 2"
gone || fail "a grandchild outlived its call (the Job Object did not end it)"
grep -q 'Keep 100Windows_NT as written' "$work/agent/calls/1.argv" || echo "   note: cmd.exe did not expand %OS% in the prompt"

step "two loops with an npm claude.cmd shim: the prompt arrives intact"
p=$(project loop-npm)
(cd "$p" && run npm --max-loops 2 >"$work/npm.out" 2>&1) || fail "loop exited $?: $(tail -5 "$work/npm.out")"
grep -q 'Exit reason: plan_complete' "$work/npm.out" || fail "plan not complete: $(tail -5 "$work/npm.out")"
[ "$(head -1 "$work/agent/calls/1.argv")" = node.exe ] || fail "the shim was not resolved to node.exe: $(head -2 "$work/agent/calls/1.argv")"
grep -q 'Keep 100%OS% as written' "$work/agent/calls/1.argv" || fail "prompt changed: $(tail -2 "$work/agent/calls/1.argv")"

step "Ctrl+C during a hanging call"
echo 1 >"$work/agent/default.hang"
echo 1 >"$work/agent/default.child"
p=$(project stop)
(cd "$p" && { run npm --max-loops 2 >"$work/stop.out" 2>&1 && echo 0 || echo $?; } >"$work/stop.rc") &
for _ in $(seq 300); do [ -f "$work/agent/calls/1.started" ] && break; sleep 0.1; done
[ -f "$work/agent/calls/1.started" ] || fail "the call never started: $(tail -5 "$work/stop.out")"
step "a second loop in the same project is refused (the lock); --status reads the running one"
out=$(cd "$p" && run npm --max-loops 1 2>&1) && fail "a second loop ran: $out"
grep -q 'already running in this project' <<<"$out" || fail "second loop: $out"
echo "   $out" | head -2
out=$(cd "$p" && run npm --status 2>&1) || fail "--status exited $?: $out"
grep -qi 'running' <<<"$out" || fail "--status: $out"
pkill -INT -f '^[^ ]*ralph_loop\.exe --max-loops 2' || fail "no ralph_loop.exe to interrupt"
wait
rm "$work/agent/default.hang" "$work/agent/default.child"
[ "$(cat "$work/stop.rc")" = 130 ] || fail "exit $(cat "$work/stop.rc") after Ctrl+C, want 130: $(tail -5 "$work/stop.out")"
gone || fail "a process of the stopped call is still running"
echo "wine smoke: all cases passed"
