#!/usr/bin/env bash
# version.sh — print ralph_loop's version, from CHANGELOG.md (the one place it is set).
#
#   scripts/version.sh           X.Y.Z when HEAD is tagged vX.Y.Z (the release), else
#                                X.Y.Z-dev+COMMIT: X.Y.Z is the newest "## [X.Y.Z]" heading
#   scripts/version.sh --base    X.Y.Z alone
#   scripts/version.sh --notes   the newest release's section of CHANGELOG.md (release notes)
#
# install.sh and scripts/release.sh stamp the binary with what it prints.
set -euo pipefail
cd "$(dirname "$0")/.."

die() {
	echo "version.sh: $*" >&2
	exit 1
}

[ -f CHANGELOG.md ] || die "CHANGELOG.md is missing; the version is set by its newest '## [X.Y.Z]' heading"
base=$(sed -n 's/^## \[\([0-9][0-9]*\.[0-9][0-9]*\.[0-9][0-9]*\)\].*/\1/p' CHANGELOG.md | head -n 1)
[ -n "$base" ] || die "CHANGELOG.md has no '## [X.Y.Z] - YYYY-MM-DD' heading; add the release's section"

case "${1:-}" in
--base)
	echo "$base"
	;;
--notes)
	awk -v v="$base" '
		index($0, "## [" v "]") == 1 { on = 1; next }
		on && /^## \[/ { exit }
		on { print }
	' CHANGELOG.md | sed -e '/./,$!d'
	;;
"")
	if tag=$(git describe --tags --exact-match --match 'v[0-9]*' 2>/dev/null) && [ -z "$(git status --porcelain --untracked-files=no 2>/dev/null)" ]; then
		[ "$tag" = "v$base" ] || die "HEAD is tagged $tag but CHANGELOG.md's newest release is $base; add its section or move the tag"
		echo "$base"
	else
		echo "$base-dev+$(git describe --always --dirty 2>/dev/null || echo unknown)"
	fi
	;;
-h | --help)
	sed -n '2,9p' "$0" | sed 's/^# \{0,1\}//'
	;;
*)
	die "unknown option '$1' (see scripts/version.sh --help)"
	;;
esac
