#!/usr/bin/env bash
# release.sh — build a ralph_loop release: a static binary for every target, one archive
# each (ralph_loop_VERSION_OS_ARCH.tar.gz, .zip for windows) and SHA256SUMS; the same
# commit and Go toolchain give the same bytes.
#
#   scripts/release.sh --dry-run [--out DIR]  build and check everything into DIR (default: a
#                                             new temporary directory); publish nothing
#   scripts/release.sh [--out DIR]            the same into dist/ (the default DIR)
#   scripts/release.sh --publish [--out DIR]  then create the GitHub release vVERSION with gh
#                                             (a clean tree whose HEAD is tagged vVERSION)
#
# RELEASE_DRY_RUN=1 is --dry-run. RELEASE_TARGETS="linux/amd64 darwin/arm64" builds only these
# targets (default: linux, darwin and windows, each amd64 and arm64). RELEASE_VERSION replaces
# the version from CHANGELOG.md (scripts/version.sh: X.Y.Z at the tag vX.Y.Z, else
# X.Y.Z-dev+COMMIT, as install.sh). The release notes (RELEASE_NOTES.md beside the archives) are
# CHANGELOG.md's section of that version.
# SOURCE_DATE_EPOCH (default: the commit's time) dates every archive entry.
set -euo pipefail

usage() {
	sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//'
}

die() {
	echo "release.sh: $*" >&2
	exit 1
}

dry=false
case "${RELEASE_DRY_RUN:-}" in
"" | 0 | false) ;;
1 | true) dry=true ;;
*) die "RELEASE_DRY_RUN='$RELEASE_DRY_RUN' is not 1 or 0; set RELEASE_DRY_RUN=1 for a dry run" ;;
esac
publish=false
out=""
while [ $# -gt 0 ]; do
	case "$1" in
	--dry-run) dry=true ;;
	--publish) publish=true ;;
	--out)
		[ $# -ge 2 ] && [ -n "$2" ] || die "--out needs a directory (e.g. --out dist)"
		out="$2"
		shift
		;;
	--out=*) out="${1#--out=}" ;;
	-h | --help)
		usage
		exit 0
		;;
	*) die "unknown option '$1' (see scripts/release.sh --help)" ;;
	esac
	shift
done
if $dry && $publish; then
	die "--publish does not apply to a dry run (--dry-run or RELEASE_DRY_RUN=1); drop one of them"
fi

cd "$(dirname "$0")/.."
root=$PWD
command -v go >/dev/null 2>&1 || die "Go is not on PATH; install Go 1.26+ from https://go.dev/dl/"
if command -v sha256sum >/dev/null 2>&1; then
	sha256=(sha256sum)
elif command -v shasum >/dev/null 2>&1; then
	sha256=(shasum -a 256)
else
	die "neither sha256sum nor shasum is on PATH; install coreutils (or perl's shasum)"
fi

targets=(${RELEASE_TARGETS:-linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 windows/amd64 windows/arm64})
[ ${#targets[@]} -gt 0 ] || die "RELEASE_TARGETS is empty; name targets as OS/ARCH (e.g. linux/amd64) or unset it"
for t in "${targets[@]}"; do
	[[ $t =~ ^[a-z0-9]+/[a-z0-9]+$ ]] || die "RELEASE_TARGETS: '$t' is not OS/ARCH (e.g. linux/amd64); see 'go tool dist list'"
done

# The version as install.sh stamps it (scripts/version.sh, from CHANGELOG.md): the release when
# HEAD is tagged vX.Y.Z, else the development version with the commit as build metadata.
if [ -n "${RELEASE_VERSION:-}" ]; then
	version=$RELEASE_VERSION
else
	version=$(scripts/version.sh) || die "no version: see the line above"
fi
[[ $version =~ ^[0-9A-Za-z.+-]+$ ]] || die "version '$version' has characters a file name cannot carry; set RELEASE_VERSION=X.Y.Z"
if [ -z "${SOURCE_DATE_EPOCH:-}" ]; then
	SOURCE_DATE_EPOCH=$(git log -1 --format=%ct 2>/dev/null) ||
		die "no git commit to date the archives; run in a git checkout or set SOURCE_DATE_EPOCH"
fi
[[ $SOURCE_DATE_EPOCH =~ ^[0-9]+$ ]] || die "SOURCE_DATE_EPOCH='$SOURCE_DATE_EPOCH' is not seconds since the epoch"

if $publish; then
	command -v gh >/dev/null 2>&1 || die "--publish needs the GitHub CLI (gh) on PATH; install it and run 'gh auth login'"
	[ -z "$(git status --porcelain)" ] || die "--publish needs a clean tree; commit or stash your changes"
	tag=$(git describe --tags --exact-match --match 'v[0-9]*' 2>/dev/null) ||
		die "--publish needs HEAD tagged vX.Y.Z; tag it (git tag v1.2.3 && git push origin v1.2.3)"
	[ "$tag" = "v$version" ] || die "--publish: HEAD is tagged $tag but the version is $version; unset RELEASE_VERSION"
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/ralph-release.XXXXXX")
trap 'rm -rf "$work"' EXIT
if [ -z "$out" ]; then
	if $dry; then out=$(mktemp -d "${TMPDIR:-/tmp}/ralph-release-dry.XXXXXX"); else out=dist; fi
fi
mkdir -p "$out"
out=$(cd "$out" && pwd)
rm -f "$out"/ralph_loop_*.tar.gz "$out"/ralph_loop_*.zip "$out"/SHA256SUMS "$out"/RELEASE_NOTES.md

# The same bytes wherever it is built: no local paths (-trimpath), no VCS stamp or build id,
# the baseline instruction sets, no cgo, nothing from the caller's GOFLAGS.
export GOFLAGS="" CGO_ENABLED=0 GOAMD64=v1 GOARM64=v8.0
go build -o "$work/archive" ./scripts/archive
extras=()
for f in README.md LICENSE CHANGELOG.md; do
	[ -f "$f" ] && extras+=("$root/$f")
done

echo "ralph_loop $version, $(go version | cut -d' ' -f3), SOURCE_DATE_EPOCH=$SOURCE_DATE_EPOCH -> $out"
archives=()
for t in "${targets[@]}"; do
	goos=${t%/*} goarch=${t#*/}
	exe=ralph_loop ext=tar.gz
	[ "$goos" = windows ] && exe=ralph_loop.exe ext=zip
	mkdir -p "$work/$goos-$goarch"
	bin="$work/$goos-$goarch/$exe"
	GOOS=$goos GOARCH=$goarch go build -trimpath -buildvcs=false \
		-ldflags "-s -w -buildid= -X main.version=$version" -o "$bin" ./cmd/ralph_loop ||
		die "go build for $t failed (above); fix it, or build other targets with RELEASE_TARGETS"
	archive="ralph_loop_${version}_${goos}_${goarch}.$ext"
	"$work/archive" -o "$out/$archive" -mtime "$SOURCE_DATE_EPOCH" "$bin" "${extras[@]}"
	archives+=("$archive")
done
(cd "$out" && printf '%s\n' "${archives[@]}" | LC_ALL=C sort | while read -r a; do "${sha256[@]}" "$a"; done) >"$work/SHA256SUMS"
mv "$work/SHA256SUMS" "$out/SHA256SUMS"

# Check what was built: every checksum, and the binary in every archive.
(cd "$out" && "${sha256[@]}" -c SHA256SUMS >/dev/null) || die "$out/SHA256SUMS does not match the archives"
for a in "${archives[@]}"; do
	case "$a" in
	*.zip) listing=$(cd "$out" && python3 -c 'import sys, zipfile; print("\n".join(zipfile.ZipFile(sys.argv[1]).namelist()))' "$a" 2>/dev/null || unzip -Z1 "$a") ;;
	*) listing=$(tar -tzf "$out/$a") ;;
	esac
	grep -qxE 'ralph_loop(\.exe)?' <<<"$listing" || die "$out/$a has no ralph_loop binary"
done
# The release notes: CHANGELOG.md's section of the newest release.
notes=$(scripts/version.sh --notes)
[ -n "$notes" ] || die "CHANGELOG.md's section of $(scripts/version.sh --base) is empty; write the release's notes there"
printf '%s\n' "$notes" >"$out/RELEASE_NOTES.md"
(cd "$out" && ls -l "${archives[@]}" SHA256SUMS RELEASE_NOTES.md | awk '{printf "  %10d  %s\n", $5, $NF}')

if $dry; then
	echo "dry run: nothing published"
	exit 0
fi
if $publish; then
	gh release create "v$version" --verify-tag --title "ralph_loop $version" --notes-file "$out/RELEASE_NOTES.md" \
		"${archives[@]/#/$out/}" "$out/SHA256SUMS"
	echo "published release v$version"
else
	echo "built; publish with scripts/release.sh --publish (needs the tag v$version at HEAD)"
fi
