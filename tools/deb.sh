#!/usr/bin/env bash
# tools/deb.sh [--arch ARCH] TARBALL OUTDIR: build envparity's Debian
# package (dpkg-buildpackage -us -uc -b, debian/) from a source tarball
# of `make dist`, in a temporary folder, so that the package holds what
# is committed and the tree is not touched; the .deb, .buildinfo and
# .changes are moved to OUTDIR and the .deb's path is printed.
# Needs dpkg-dev, debhelper and the -dev packages (tools/deps.sh test).
#
# --arch ARCH (arm64) cross-builds the package for ARCH
# (dpkg-buildpackage -a ARCH) with Debian's cross toolchain
# (crossbuild-essential-ARCH) against the sysroot tools/cross.sh makes
# from Debian's ARCH packages; the host's own packages are not changed,
# so the Build-Depends are not checked here (-d): the sysroot holds them.
set -eu
usage() { echo "usage: tools/deb.sh [--arch ARCH] TARBALL OUTDIR" >&2; exit 2; }
arch=
if [ "${1:-}" = --arch ]; then
	[ $# -ge 2 ] || usage
	arch=$2
	shift 2
fi
[ $# -eq 2 ] || usage
cross=()
if [ -n "$arch" ] && [ "$arch" != "$(dpkg --print-architecture)" ]; then
	SYSROOT=$("$(dirname "$0")/cross.sh" "$arch") || exit 1
	export SYSROOT
	cross=(-a "$arch" -d)
fi
tarball=$(realpath "$1")
mkdir -p "$2"
out=$(realpath "$2")
work=$(mktemp -d "${TMPDIR:-/tmp}/envparity-deb.XXXXXX")
trap 'rm -rf "$work"' EXIT
tar -C "$work" -xzf "$tarball"
src=$(find "$work" -mindepth 1 -maxdepth 1 -type d)
(cd "$src" && dpkg-buildpackage -us -uc -b ${cross[@]+"${cross[@]}"} \
    -j"$(nproc 2>/dev/null || echo 2)") \
    >"$work/build.log" 2>&1 || { cat "$work/build.log" >&2; exit 1; }
for f in "$work"/*.deb "$work"/*.buildinfo "$work"/*.changes; do
	[ -e "$f" ] && mv -f "$f" "$out/"
done
ls "$out"/envparity_*_"${arch:-$(dpkg --print-architecture)}".deb
