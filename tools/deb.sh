#!/usr/bin/env bash
# tools/deb.sh TARBALL OUTDIR: build envparity's Debian package
# (dpkg-buildpackage -us -uc -b, debian/) from a source tarball of
# `make dist`, in a temporary folder, so that the package holds what is
# committed and the tree is not touched; the .deb, .buildinfo and
# .changes are moved to OUTDIR and the .deb's path is printed.
# Needs dpkg-dev, debhelper and the -dev packages (tools/deps.sh test).
set -eu
[ $# -eq 2 ] || { echo "usage: tools/deb.sh TARBALL OUTDIR" >&2; exit 2; }
tarball=$(realpath "$1")
mkdir -p "$2"
out=$(realpath "$2")
work=$(mktemp -d "${TMPDIR:-/tmp}/envparity-deb.XXXXXX")
trap 'rm -rf "$work"' EXIT
tar -C "$work" -xzf "$tarball"
src=$(find "$work" -mindepth 1 -maxdepth 1 -type d)
(cd "$src" && dpkg-buildpackage -us -uc -b -j"$(nproc 2>/dev/null || echo 2)") \
    >"$work/build.log" 2>&1 || { cat "$work/build.log" >&2; exit 1; }
for f in "$work"/*.deb "$work"/*.buildinfo "$work"/*.changes; do
	[ -e "$f" ] && mv -f "$f" "$out/"
done
ls "$out"/envparity_*.deb | grep -v dbgsym
