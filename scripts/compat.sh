#!/usr/bin/env bash
# compat.sh — rebuild docs/COMPATIBILITY.md from the per-area notes in docs/compat/.
# Each area's engineer keeps docs/compat/<area>.md; this script joins them under one
# introduction, demoting their headings by one level. Run after editing a note:
#   scripts/compat.sh && git diff docs/COMPATIBILITY.md
set -euo pipefail
cd "$(dirname "$0")/.."
order=(engine process config analysis breaker session ratelimit supervise drivers gates control observability swarm)
out=docs/COMPATIBILITY.md
{
	cat <<'HEAD'
# Compatibility with the bash loop

`ralph_loop` is a drop-in for bmalph's `ralph/ralph_loop.sh`, the bash loop. Formats are a
contract and stay exactly as the bash loop has them: file names under `.ralph/`, JSON field names
and value sets (`exit_reason` strings included), flag names, exit code 1 for usage errors, and the
`[YYYY-MM-DD HH:MM:SS] [LEVEL] msg` log lines. Where the bash loop is buggy, `ralph_loop` does
what its code, comments and docs intend; where today's agent CLIs disagree with the bash loop's
drivers, it follows the real CLI; new features are opt-in. This page lists every deviation, area
by area: what the bash loop does, what we do, and why.

A black-box conformance suite, run against both the bash loop and `ralph_loop` (`.ci/run` runs
it), checks the observable parts; its `expect-differ` scenarios pin the fixed bugs. This file is
generated from `docs/compat/*.md` by `scripts/compat.sh`; edit those.

HEAD
	printf '## Contents\n\n'
	for a in "${order[@]}"; do
		title=$(head -n 1 "docs/compat/$a.md" | sed 's/^# //')
		printf -- '- [%s](#%s)\n' "$title" "$a"
	done
	for f in docs/compat/*.md; do
		a=$(basename "$f" .md)
		case " ${order[*]} " in *" $a "*) ;; *) echo "compat.sh: $f is not in the order list" >&2; exit 1 ;; esac
	done
	for a in "${order[@]}"; do
		printf '\n<a id="%s"></a>\n\n' "$a"
		sed -e 's/^#/##/' "docs/compat/$a.md"
	done
} >"$out.tmp"
mv "$out.tmp" "$out"
echo "wrote $out"
