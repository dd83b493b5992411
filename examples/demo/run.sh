#!/bin/sh
# run.sh - watch a whole Ralph run in under a minute, with no API key.
#
#   examples/demo/run.sh [ralph_loop options]   (default: --live)
#
# Copies this demo project into a temporary directory, makes it a git
# repository with one commit, and runs ralph_loop there. The agent is
# agent.sh (see .ralph/.ralphrc); it does one task of .ralph/@fix_plan.md per
# loop. ralph_loop is taken from $RALPH_LOOP (a path), else from PATH, else
# built from this checkout with `go build`.
#
# LOOP_DELAY (default 1s) is the wait between loops, DEMO_AGENT_DELAY
# (default 1) the seconds each agent call takes; DEMO_AGENT_STUCK=1 makes the
# agent change nothing, so the circuit breaker stops the run (exit 2). The
# directory is kept; its path is printed at the end (delete it when done).
set -eu

here=$(cd "$(dirname "$0")" && pwd)

# The agent is chosen by the demo's .ralph/.ralphrc, not by the caller's
# environment (which would win over the file).
unset PLATFORM_DRIVER AGENT_COMMAND AGENT_PROMPT_MODE CLAUDE_OUTPUT_FORMAT 2>/dev/null || true

die() {
	echo "run.sh: $*" >&2
	exit 127
}

build=false
if [ -n "${RALPH_LOOP:-}" ]; then
	case $RALPH_LOOP in
	*/*)
		[ -f "$RALPH_LOOP" ] && [ -x "$RALPH_LOOP" ] ||
			die "RALPH_LOOP=$RALPH_LOOP is not an executable file"
		ralph=$(cd "$(dirname "$RALPH_LOOP")" && pwd)/$(basename "$RALPH_LOOP")
		;;
	*)
		command -v "$RALPH_LOOP" >/dev/null 2>&1 || die "RALPH_LOOP=$RALPH_LOOP is not on PATH"
		ralph=$RALPH_LOOP
		;;
	esac
elif command -v ralph_loop >/dev/null 2>&1; then
	ralph=ralph_loop
elif command -v go >/dev/null 2>&1 && [ -f "$here/../../cmd/ralph_loop/main.go" ]; then
	build=true
else
	die "ralph_loop not found: put it on PATH or set RALPH_LOOP=/path/to/ralph_loop"
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/ralph-demo.XXXXXX")
if $build; then
	echo "run.sh: ralph_loop is not on PATH; building it from this checkout ..."
	(cd "$here/../.." && go build -o "$work/.bin/ralph_loop" ./cmd/ralph_loop)
	ralph=$work/.bin/ralph_loop
fi

# The project: everything here but this script and the README.
cp -R "$here/." "$work/"
rm -f "$work/run.sh" "$work/README.md"
# Leave out loop state from an earlier run made in this folder itself.
for f in "$work"/.ralph/.[!.]* "$work"/.ralph/*; do
	case ${f##*/} in
	.ralphrc | PROMPT.md | @fix_plan.md | @AGENT.md | specs) ;;
	*) rm -rf "$f" ;;
	esac
done
cd "$work"
git init -q .
if [ -d .bin ]; then echo ".bin/" >>.git/info/exclude; fi
git config user.name "Ralph Demo"
git config user.email "demo@example.invalid"
git config commit.gpgsign false
git add -A
git commit -q -m "demo project"

echo "run.sh: demo project in $work"
echo "run.sh: plan:"
sed 's/^/    /' .ralph/@fix_plan.md
echo

# Without options the agent's answers stream to the terminal (--live).
if [ $# -eq 0 ]; then set -- --live; fi
rc=0
LOOP_DELAY=${LOOP_DELAY:-1s} "$ralph" "$@" || rc=$?

echo
echo "run.sh: ralph_loop exited with $rc. The plan now:"
sed 's/^/    /' .ralph/@fix_plan.md
echo "run.sh: circuit breaker:"
"$ralph" --circuit-status 2>&1 | sed 's/^/    /' || true
if [ -f test.sh ]; then
	echo "run.sh: what the agent built: sh test.sh"
	sh test.sh 2>&1 | sed 's/^/    /' || true
fi
echo "run.sh: look around in $work (the agent's answers are in .ralph/logs/)"
exit "$rc"
