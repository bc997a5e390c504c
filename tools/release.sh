#!/usr/bin/env bash
# tools/release.sh [--prepare] X.Y.Z: a release of envparity
# (`make release VERSION=X.Y.Z`, `make release-prepare VERSION=X.Y.Z`).
#
# The one source of the version is checker/util/version.h; every file
# that names the release (the manual pages' .TH, the image tag, the pins
# of the CI templates and of the docs, the package and tarball names)
# follows it, and debian/changelog gets an entry.  CHANGELOG.md must hold
# "## X.Y.Z" with a "**What to do:**" line: what a user must do (bless
# again, a new default rule, nothing).
#
#   --prepare X.Y.Z   bump the version and every file that follows it in
#                     the work tree, nothing committed (a release's pull
#                     request); a version the tree has already is kept
#   X.Y.Z             on a clean tree: bump as --prepare when the tree
#                     says another version and commit "release X.Y.Z";
#                     then the annotated tag vX.Y.Z, whose message is the
#                     changelog's entry.  Nothing is pushed: publishing
#                     is `git push origin vX.Y.Z` (docs/install.md).
#
# Refused (exit 2, nothing changed): a version that is not X.Y.Z, one
# older than the tree's, a tag that exists, no changelog entry or no
# "What to do" in it, uncommitted changes (without --prepare).
set -euo pipefail

die() { echo "release: $*" >&2; exit 2; }

prepare=0
if [ "${1:-}" = --prepare ]; then
	prepare=1
	shift
fi
[ $# -eq 1 ] || die "usage: tools/release.sh [--prepare] X.Y.Z"
new=$1
top=$(git rev-parse --show-toplevel 2>/dev/null) ||
    die "not in a git work tree"
cd "$top"

[[ "$new" =~ ^(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)$ ]] ||
    die "VERSION '$new' is not MAJOR.MINOR.PATCH (e.g. 0.3.0)"
old=$(sed -n 's/^#define EP_VERSION "\(.*\)"$/\1/p' checker/util/version.h)
[ -n "$old" ] || die "checker/util/version.h names no EP_VERSION"
if [ "$old" != "$new" ] &&
    [ "$(printf '%s\n%s\n' "$old" "$new" | sort -V | tail -1)" != "$new" ]; then
	die "$new is older than the tree's $old"
fi

# The changelog's entry: from "## X.Y.Z" to the next "## ".
entry() {
	awk -v v="$new" '
	    /^## / { if (on) exit; on = ($2 == v) }
	    on' CHANGELOG.md
}
[ -f CHANGELOG.md ] || die "no CHANGELOG.md"
[ -n "$(entry)" ] || die "CHANGELOG.md has no entry '## $new'"
entry | grep -q '^\*\*What to do:\*\*' ||
    die "CHANGELOG.md's entry for $new does not say what a user must do (a line '**What to do:** ...')"

if [ "$prepare" = 0 ]; then
	git rev-parse -q --verify "refs/tags/v$new" >/dev/null &&
	    die "tag v$new exists already"
	[ -z "$(git status --porcelain --untracked-files=no)" ] ||
	    die "the work tree has uncommitted changes: commit them first"
fi

# Every file that names the release besides version.h, by its name.
followers() {
	printf '%s\n' man/envparity.1 man/envparity-probe.1 Containerfile \
	    README.md docs/ci.md docs/install.md docs/manifest.md \
	    docs/attestations.md
	git ls-files ci | grep -E '\.(ya?ml|md)$'
}

bump() {
	local re=${old//./\\.} today f
	today=$(date -u +%Y-%m-%d)
	sed -i "s/^#define EP_VERSION \"$re\"$/#define EP_VERSION \"$new\"/" \
	    checker/util/version.h
	while read -r f; do
		[ -f "$f" ] || continue
		# The version where no digit or dot comes before it and no
		# digit after: v0.2.0, _0.2.0_, 0.2.0.tar.gz, never 10.2.0.
		sed -i -E -e "s/(^|[^0-9.])$re([^0-9]|\$)/\\1$new\\2/g" \
		    -e "s/(^|[^0-9.])$re([^0-9]|\$)/\\1$new\\2/g" "$f"
	done < <(followers)
	sed -i -E "s/^(\.TH [A-Z-]+ 1 )[0-9-]+ /\\1$today /" \
	    man/envparity.1 man/envparity-probe.1
	{
		printf 'envparity (%s) unstable; urgency=medium\n\n' "$new"
		printf '  * Release %s: see CHANGELOG.md.\n\n' "$new"
		printf ' -- The envparity authors <maintainers@users.noreply.a-seed-b378f515.example>  %s\n\n' \
		    "$(date -u -R)"
		cat debian/changelog
	} > debian/changelog.new
	mv debian/changelog.new debian/changelog
}

if [ "$old" != "$new" ]; then
	bump
	echo "release: $old -> $new in checker/util/version.h and every file that follows it"
fi
[ "$prepare" = 1 ] && exit 0

if [ "$old" != "$new" ]; then
	git add -u
	git commit -q -m "release $new"
fi
entry | git tag -a -F - --cleanup=verbatim "v$new"
echo "release: tagged v$new at $(git rev-parse --short HEAD); publish it with: git push origin v$new"
