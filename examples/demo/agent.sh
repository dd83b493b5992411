#!/bin/sh
# agent.sh - the demo's stand-in for an AI coding agent (POSIX sh, no API key).
#
# ralph_loop runs it once per loop through the command driver
# (AGENT_COMMAND="sh agent.sh" in .ralph/.ralphrc), in the project root, with
# the loop context and .ralph/PROMPT.md on stdin. Each call it
#   1. reads what the loop sent,
#   2. does the first unchecked task of .ralph/@fix_plan.md (writes a file),
#   3. ticks that task's box and commits,
#   4. answers: a summary line, the loop context it received, and a
#      RALPH_STATUS block whose EXIT_SIGNAL is true once no task is left.
#
# DEMO_AGENT_DELAY (seconds, default 1) makes each call take a moment, as a
# real agent would; the tests set it to 0. DEMO_AGENT_STUCK=1 makes it a
# stuck agent that changes nothing, to watch the circuit breaker open.
set -eu

plan=.ralph/@fix_plan.md
unchecked='^[[:space:]]*- \[ \]'

# 1. The loop context ("Loop #N. Remaining tasks: ...") comes first, then a
#    blank line, then the prompt (.ralph/PROMPT.md).
input=$(cat)
sleep "${DEMO_AGENT_DELAY:-1}"

if [ ! -f "$plan" ]; then
	echo "Agent: $plan is missing, nothing to do." >&2
	exit 1
fi

# status STATUS TASKS FILES TESTS WORK EXIT RECOMMENDATION: the block the loop reads.
status() {
	cat <<EOF

---RALPH_STATUS---
STATUS: $1
TASKS_COMPLETED_THIS_LOOP: $2
FILES_MODIFIED: $3
TESTS_STATUS: $4
WORK_TYPE: $5
EXIT_SIGNAL: $6
RECOMMENDATION: $7
---END_RALPH_STATUS---
EOF
}

# DEMO_AGENT_STUCK=1: change nothing, so the circuit breaker opens after
# CB_NO_PROGRESS_THRESHOLD loops without progress and stops the run.
if [ "${DEMO_AGENT_STUCK:-0}" = 1 ]; then
	echo "Summary: still reading the code, changed nothing."
	status IN_PROGRESS 0 0 NOT_RUN IMPLEMENTATION false "Keep reading"
	exit 0
fi

# 2. The first unchecked task: its line number and its text.
first=$(grep -n "$unchecked" "$plan" | head -n 1 || true)
if [ -z "$first" ]; then
	echo "Summary: nothing to do, every task in the plan is checked."
	status COMPLETE 0 0 PASSING IMPLEMENTATION true "Nothing left to do"
	exit 0
fi
line=${first%%:*}
task=$(printf '%s\n' "${first#*:}" | sed 's/^[[:space:]]*- \[ \][[:space:]]*//')
number=$(($(grep -c '^[[:space:]]*- \[[xX]\]' "$plan" || true) + 1))

case $number in
1)
	file=greet.sh work=IMPLEMENTATION
	cat >greet.sh <<'EOF'
#!/bin/sh
echo "Hello, world!"
EOF
	;;
2)
	file=greet.sh work=IMPLEMENTATION
	cat >greet.sh <<'EOF'
#!/bin/sh
echo "Hello, ${1:-world}!"
EOF
	;;
3)
	file=test.sh work=TESTING
	cat >test.sh <<'EOF'
#!/bin/sh
set -e
[ "$(sh greet.sh)" = "Hello, world!" ]
[ "$(sh greet.sh Ada)" = "Hello, Ada!" ]
echo "test.sh: 2 checks passed"
EOF
	;;
4)
	file=USAGE.md work=DOCUMENTATION
	cat >USAGE.md <<'EOF'
# Usage

    sh greet.sh          # Hello, world!
    sh greet.sh Ada      # Hello, Ada!
    sh test.sh           # checks both
EOF
	;;
*)
	file=NOTES.md work=IMPLEMENTATION
	printf -- '- %s\n' "$task" >>NOTES.md
	;;
esac

# 3. Tick the box of that task, and of no other.
awk -v n="$line" 'NR == n { sub(/- \[ \]/, "- [x]") } { print }' "$plan" >"$plan.tmp"
mv "$plan.tmp" "$plan"

# Commit the work, as a real agent would (the loop sees the new commit as
# progress, and the next loop's context lists the changed files).
if git add -- "$file" "$plan" >/dev/null 2>&1 && git commit -q -m "demo agent: task $number: $task" >/dev/null 2>&1; then
	committed="and committed it"
else
	committed="(not committed: git has no user.name/user.email here)"
fi

# 4. The answer. The loop takes the first line that says "summary" as the
#    loop's summary and passes it on in the next loop's context.
left=$(grep -c "$unchecked" "$plan" || true)
tests=NOT_RUN
if [ -f test.sh ]; then
	if sh test.sh >/dev/null 2>&1; then tests=PASSING; else tests=FAILING; fi
fi
echo "Summary: task $number done ($file), $left left."
echo
echo "Agent: the loop sent me this context before the prompt:"
printf '%s\n' "$input" | sed -n '1,/^$/p' | sed '/^$/d; s/^/  | /'
echo
echo "Agent: I did \"$task\", wrote $file $committed. Tests: $tests."
if [ "$left" -eq 0 ]; then
	status COMPLETE 1 1 "$tests" "$work" true "All tasks are done"
else
	status IN_PROGRESS 1 1 "$tests" "$work" false "Do the next task ($left left)"
fi
