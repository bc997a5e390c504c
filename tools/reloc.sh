#!/usr/bin/env bash
# tools/reloc.sh [OUTDIR]: the relocatable build (`make relocatable`):
# envparity and envparity-probe built inside a Debian 11 (bullseye) root,
# so that they need no glibc newer than bullseye's 2.31 and run on every
# later distribution (Ubuntu 22.04 and 24.04 runners among them), with the
# shared libraries they link (libgit2, libcurl, OpenSSL, jansson, libxml2,
# libyaml and theirs) beside them in lib/, as manylinux wheels carry
# theirs.  glibc's own libraries are never carried: they come from the
# machine, as they must for the NVIDIA libraries envparity loads (a static
# glibc binary cannot dlopen them reliably).  Those are found as before:
# the binaries' RUNPATH ($ORIGIN/../lib) holds only what was carried, and
# the system's paths (ld.so.cache, /usr/local/cuda/lib64) come after it.
#
# Writes OUTDIR/envparity-VERSION-linux-ARCH.tar.gz (default OUTDIR:
# build/reloc), with envparity-VERSION-linux-ARCH/{bin,lib,share,README},
# and its .sha256 (sha256sum's format, for `sha256sum -c`).  The tarball is
# reproducible for a given tree and root: names sorted, owner 0, times of
# the last commit.
#
# The build root is made once per machine with debootstrap from this
# machine's apt mirror and kept under $EP_RELOC_CACHE (default
# /var/tmp/envparity-reloc, root's alone), one build at a time under a
# lock; later builds copy the tree in and rebuild what changed.  That root
# has run, as root, the code of every tree built in it (the test suite's
# included): a release is built with EP_RELOC_FRESH=1, in a root made
# afresh in a folder of its own and removed afterwards.  Root only
# (debootstrap, chroot).  What is built is the work tree's tracked files
# as they are (`make release` runs it on the tagged commit).
#
# Refused (exit 1, nothing written): a binary or carried library that
# needs a glibc symbol version newer than the root's (objdump -T), a
# build that fails.  Exit 2: usage, not root.
#
# tools/reloc.sh --check-glibc VERSION FILE... runs that check alone.
set -euo pipefail

die() { echo "reloc: $*" >&2; exit "${2:-1}"; }

# check_glibc VERSION FILE...: refuse (exit 1) when a FILE needs a glibc
# symbol version newer than VERSION (objdump -T), naming them.
check_glibc() {
	local max=$1 bad f syms
	shift
	for f in "$@"; do
		[ "$(head -c 4 "$f" | od -An -c | tr -d ' ')" = '177ELF' ] ||
			die "$f: not an ELF file"
		# A library without dynamic symbols (ICU's data) has none to need.
		syms=$(objdump -T "$f" 2>/dev/null) || syms=
		bad=$(grep -o 'GLIBC_[0-9][0-9.]*' <<<"$syms" | sed 's/^GLIBC_//' |
		    sort -u -V | while read -r v; do
			[ "$(printf '%s\n%s\n' "$v" "$max" | sort -V | tail -n 1)" = "$max" ] ||
			    printf ' %s' "$v"
		    done) || true
		[ -z "$bad" ] || die "${f##*/} needs glibc$bad, newer than $max"
	done
}

if [ "${1:-}" = --check-glibc ]; then
	[ $# -ge 3 ] || die "usage: tools/reloc.sh --check-glibc VERSION FILE..." 2
	shift
	check_glibc "$@"
	exit 0
fi
[ $# -le 1 ] || die "usage: tools/reloc.sh [OUTDIR] | --check-glibc VERSION FILE..." 2
[ "$(id -u)" = 0 ] || die "needs root (debootstrap and chroot make the build root)" 2
top=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-$top/build/reloc}
mkdir -p "$out"
out=$(cd "$out" && pwd)
suite=${EP_RELOC_SUITE:-bullseye}
cache=${EP_RELOC_CACHE:-/var/tmp/envparity-reloc}
version=$(sed -n 's/^#define EP_VERSION "\(.*\)"$/\1/p' "$top/checker/util/version.h")
arch=$(uname -m)
name=envparity-$version-linux-$arch
# The build packages (tools/deps.sh build's, in Debian's names) and patchelf.
pkgs=gcc,make,pkg-config,libc6-dev,libgit2-dev,libcurl4-openssl-dev,libjansson-dev,libssl-dev,libxml2-dev,libyaml-dev,patchelf

if [ "${EP_RELOC_FRESH:-}" = 1 ]; then
	cache=$(mktemp -d /var/tmp/envparity-reloc-fresh.XXXXXX)
	trap 'rm -rf "$cache"' EXIT
fi
mkdir -p -m 0700 "$cache"
# What is made here runs as root: the cache must be root's alone.
if [ "$(stat -c %u "$cache")" != 0 ] || [ -n "$(find "$cache" -maxdepth 0 -perm /022)" ]; then
	die "$cache is not root's alone"
fi

# This machine's Debian mirror (deb822 or one-line sources).
mirror() {
	local m
	m=$(sed -n 's/^URIs: *\([^ ]*debian\/*\)$/\1/p' /etc/apt/sources.list.d/*.sources 2>/dev/null | head -n 1)
	[ -n "$m" ] || m=$(awk '$1 == "deb" && $2 ~ /debian\/?$/ { print $2; exit }' \
	    /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null)
	echo "${m:-http://deb.debian.org/debian}"
}

build() {
	local root=$cache/$suite-build tmp glibc lib f bad src_epoch
	if [ ! -e "$root/.done" ]; then
		rm -rf "$root"
		tmp=$(mktemp -d "$cache/boot.XXXXXX")
		echo "reloc: making the $suite build root (debootstrap, once per machine)" >&2
		if ! debootstrap --variant=minbase --include="$pkgs" "$suite" "$tmp/root" \
		    "$(mirror)" >"$tmp/log" 2>&1; then
			tail -n 20 "$tmp/log" >&2
			rm -rf "$tmp"
			die "debootstrap of $suite failed"
		fi
		mv "$tmp/root" "$root"
		rm -rf "$tmp"
		: >"$root/.done"
	fi

	# The tree's tracked files as they are.  Only a file whose content
	# differs from the last build's (whatever tree that was: a scratch
	# clone's times say nothing) is replaced, and so newer than the
	# objects in /reloc-build made from the old one: only those rebuild.
	tmp=$(mktemp -d "$cache/src.XXXXXX")
	(cd "$top" && git ls-files -z | xargs -0 -r sh -c 'for f; do [ -e "$f" ] && printf "%s\0" "$f"; done' _ |
	    tar --null -T - -cf -) | tar -C "$tmp" -xf -
	mkdir -p "$root/src"
	rsync -rlc --delete "$tmp/" "$root/src/"
	rm -rf "$tmp"
	chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin LC_ALL=C \
	    make -s -C /src -j"$(nproc)" B=/reloc-build LD_FUSE= all >&2

	stage=$(mktemp -d "$cache/stage.XXXXXX")
	trap 'rm -rf "$stage"' EXIT
	mkdir -p "$stage/$name/bin" "$stage/$name/lib" "$stage/$name/share/doc/libraries" \
	    "$stage/$name/share/man/man1"
	cp "$root/reloc-build/envparity" "$root/reloc-build/envparity-probe" "$stage/$name/bin/"
	# What they link, but glibc's own: the loader, libc, libm, libdl,
	# libpthread, librt, libresolv, libutil, libanl, libnsl.
	chroot "$root" /usr/bin/ldd /reloc-build/envparity /reloc-build/envparity-probe |
	    awk '$2 == "=>" && $3 ~ /^\// { print $3 }' | sort -u >"$stage/libs"
	while read -r lib; do
		case ${lib##*/} in
		ld-linux* | libc.so.* | libm.so.* | libdl.so.* | libpthread.so.* | librt.so.* | \
		    libresolv.so.* | libutil.so.* | libanl.so.* | libnsl.so.*) continue ;;
		esac
		cp -L "$root$lib" "$stage/$name/lib/${lib##*/}"
		chmod 0644 "$stage/$name/lib/${lib##*/}"
		# The name and what it points to: dpkg knows one of them.
		printf '%s\n%s\n' "$lib" "$(readlink -f "$root$lib" | sed "s|^$root||")"
	done <"$stage/libs" >"$stage/carried"
	[ -s "$stage/carried" ] || die "ldd found no library to carry"
	# Each library's licence, from the package that ships it.
	# (dpkg -S fails for the names it does not know: the others count.)
	{ chroot "$root" dpkg -S $(sort -u "$stage/carried") 2>/dev/null || true; } |
	    cut -d: -f1 | sort -u |
	    while read -r f; do
		[ ! -f "$root/usr/share/doc/$f/copyright" ] ||
			cp "$root/usr/share/doc/$f/copyright" "$stage/$name/share/doc/libraries/$f.copyright"
	    done
	# The binaries look in ../lib first, the libraries beside themselves;
	# the system's paths come after (DT_RUNPATH, not DT_RPATH: it is not
	# inherited by what they dlopen, and LD_LIBRARY_PATH still wins).
	# patchelf is the root's: all of them patched there, in one go.
	rm -rf "$root/reloc-build/.patch"
	cp -r "$stage/$name" "$root/reloc-build/.patch"
	chroot "$root" /bin/sh -c 'cd /reloc-build/.patch &&
	    for f in bin/*; do patchelf --set-rpath "\$ORIGIN/../lib" "$f" || exit 1; done &&
	    for f in lib/*; do patchelf --set-rpath "\$ORIGIN" "$f" || exit 1; done' ||
		die "patchelf failed"
	cp "$root/reloc-build/.patch"/bin/* "$stage/$name/bin/"
	cp "$root/reloc-build/.patch"/lib/* "$stage/$name/lib/"
	rm -rf "$root/reloc-build/.patch"

	# No symbol version newer than the root's glibc.
	glibc=$(chroot "$root" /usr/bin/ldd --version | sed -n '1s/.* \([0-9][0-9.]*\)$/\1/p')
	check_glibc "$glibc" "$stage/$name"/bin/* "$stage/$name"/lib/*

	cp "$top/LICENSE" "$stage/$name/"
	cp "$top/man/envparity.1" "$top/man/envparity-probe.1" "$stage/$name/share/man/man1/"
	cat >"$stage/$name/README" <<EOF
envparity $version for Linux $arch, relocatable

Built in Debian $suite (glibc $glibc): it runs where glibc $glibc or newer
is the system's (Debian 11 and later, Ubuntu 20.04 and later, RHEL 9).
Unpack it anywhere and run bin/envparity; bin/envparity-probe is the
reference workload, found beside it.  lib/ holds the libraries it links
(their licences in share/doc/libraries/); glibc and the NVIDIA
libraries are the system's, found through ld.so.cache and
/usr/local/cuda/lib64 as for any build.

Check the download first: sha256sum -c $name.tar.gz.sha256
Source, documentation and the Debian package: see the project's README.
EOF
	src_epoch=$(git -C "$top" log -1 --format=%ct 2>/dev/null || date +%s)
	tar -C "$stage" --sort=name --owner=0 --group=0 --numeric-owner \
	    --mtime="@$src_epoch" -cf - "$name" | gzip -n >"$stage/$name.tar.gz"
	(cd "$stage" && sha256sum "$name.tar.gz" >"$name.tar.gz.sha256")
	mv "$stage/$name.tar.gz" "$out/$name.tar.gz"
	mv "$stage/$name.tar.gz.sha256" "$out/$name.tar.gz.sha256"
	echo "$out/$name.tar.gz"
}

# One build at a time per machine: the root and its objects are shared.
(
	flock 9 || die "cannot lock $cache/$suite.lock"
	build
) 9>"$cache/$suite.lock"
