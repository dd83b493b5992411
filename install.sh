#!/usr/bin/env bash
# install.sh — build and install ralph_loop, or put its bmalph shim into a project.
#
#   ./install.sh                  build ralph_loop into $PREFIX/bin (default ~/.local/bin)
#   ./install.sh --project DIR    also install DIR/.ralph/ralph_loop.sh (a shim that execs the
#                                 binary), keep DIR/.ralph/lib/, and add the default templates
#                                 (PROMPT.md, @fix_plan.md, @AGENT.md, .ralphrc) where missing
#   ./install.sh --binary FILE    install FILE (a ralph_loop already built or from a release
#                                 archive) instead of building one; needs no Go
#
# Needs only Go (1.26 or newer), or nothing with --binary. Safe to run again: the shim is rewritten, nothing else is touched.
set -euo pipefail

usage() {
	sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//'
}

PREFIX="${PREFIX:-$HOME/.local}"
project=""
binary=""
while [ $# -gt 0 ]; do
	case "$1" in
	--project)
		[ $# -ge 2 ] && [ -n "$2" ] || { echo "install.sh: --project needs a directory (e.g. --project .)" >&2; exit 1; }
		project="$2"
		shift 2
		;;
	--project=*)
		project="${1#--project=}"
		shift
		;;
	--binary)
		[ $# -ge 2 ] && [ -n "$2" ] || { echo "install.sh: --binary needs a file (e.g. --binary ./ralph_loop)" >&2; exit 1; }
		binary="$2"
		shift 2
		;;
	--binary=*)
		binary="${1#--binary=}"
		shift
		;;
	--prefix)
		[ $# -ge 2 ] || { echo "install.sh: --prefix needs a directory" >&2; exit 1; }
		PREFIX="$2"
		shift 2
		;;
	-h | --help)
		usage
		exit 0
		;;
	*)
		echo "install.sh: unknown option '$1' (see ./install.sh --help)" >&2
		exit 1
		;;
	esac
done

# The project is checked before the build, so a refusal comes at once.
if [ -n "$project" ]; then
	[ -d "$project" ] || { echo "install.sh: project directory '$project' does not exist" >&2; exit 1; }
	ralph="$(cd "$project" && pwd)/.ralph"
	# .ralph/ is the repository's: a link there (to a folder elsewhere) is
	# never written through.
	for d in "$ralph" "$ralph/lib" "$ralph/ralph_loop.sh"; do
		if [ -L "$d" ]; then
			echo "install.sh: $d is a symbolic link to $(readlink "$d"): refusing to write through it; replace it with a folder (or remove it)" >&2
			exit 1
		fi
	done
fi

src="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
bindir="$PREFIX/bin"

if [ -n "$binary" ]; then
	[ -f "$binary" ] && [ -x "$binary" ] || { echo "install.sh: --binary '$binary' is not an executable file; name a ralph_loop binary (e.g. --binary ./ralph_loop)" >&2; exit 1; }
	case "$binary" in *.exe) bin="$bindir/ralph_loop.exe" ;; *) bin="$bindir/ralph_loop" ;; esac
	mkdir -p "$bindir"
	cp -f "$binary" "$bin.tmp"
	chmod 0755 "$bin.tmp"
else
	if ! command -v go >/dev/null 2>&1; then
		echo "install.sh: Go is not installed or not on PATH; install Go 1.26+ from https://go.dev/dl/ and retry" >&2
		exit 1
	fi
	# ".exe" under Git Bash on Windows, where the shim then execs ralph_loop.exe.
	bin="$bindir/ralph_loop$(cd "$src" && go env GOEXE)"

	mkdir -p "$bindir"
	# The version from CHANGELOG.md (scripts/version.sh): the release when HEAD is its tag, else
	# the development version with the commit as build metadata, 0.1.0-dev+abc1234.
	version="$("$src/scripts/version.sh")" || exit 1
	echo "Building ralph_loop $version (a first build fetches modules and compiles for a minute or two) ..."
	start=$(date +%s)
	(cd "$src" && CGO_ENABLED=0 go build -trimpath -ldflags "-s -w -X main.version=$version" -o "$bin.tmp" ./cmd/ralph_loop)
	echo "Built in $(($(date +%s) - start)) s"
fi
mv -f "$bin.tmp" "$bin"
echo "Installed $bin"
case ":$PATH:" in
*":$bindir:"*) echo "$bindir is on your PATH: run 'ralph_loop --help'." ;;
*) echo "Note: $bindir is not on your PATH. Add it (e.g. export PATH=\"$bindir:\$PATH\") or run $bin directly." ;;
esac

if [ -n "$project" ]; then
	ralph="$(cd "$project" && pwd)/.ralph"
	mkdir -p "$ralph/lib"
	shim="$ralph/ralph_loop.sh"
	tmp="$(mktemp "$ralph/.ralph_loop.sh.XXXXXX")"
	qbin="$(printf '%q' "$bin")"
	cat >"$tmp" <<SHIM
#!/usr/bin/env bash
# ralph_loop shim: bmalph runs 'bash .ralph/ralph_loop.sh'; the Go ralph_loop does the work.
# Written by ralph_loop's install.sh; re-run 'install.sh --project .' after 'bmalph upgrade'.
# RALPH_SHIM tells ralph_loop it was started this way, so its hints name this command.
export RALPH_SHIM='bash .ralph/ralph_loop.sh'
if [ -x $qbin ]; then exec $qbin "\$@"; fi
exec ralph_loop "\$@"
SHIM
	chmod 0755 "$tmp"
	mv -f "$tmp" "$shim"
	echo "Installed shim $shim -> $bin"
	"$bin" --install-templates "$ralph"
fi
