#!/usr/bin/env bash
# tools/cross.sh [--path] ARCH: the sysroot envparity is cross-built
# against (`make ARCH=arm64`), made from Debian's own packages for ARCH
# and printed.
#
# The host's package setup is not touched: apt runs with a state, cache
# and dpkg status of its own (an empty system of architecture ARCH, with
# the host's sources and keys), resolves the -dev packages the build
# needs (the Makefile's PKGS, cmocka for the unit tests) with everything
# they depend on, downloads them, and dpkg -x unpacks each into the
# sysroot.  The compiler is Debian's cross toolchain
# (crossbuild-essential-ARCH), pointed at the sysroot with --sysroot;
# pkg-config reads the sysroot's .pc files (PKG_CONFIG_LIBDIR,
# PKG_CONFIG_SYSROOT_DIR); qemu-user runs the binaries with -L SYSROOT,
# whose libc and libraries are the ones they were linked with.  The
# sysroot's var/lib/dpkg is a dpkg database of those packages, their
# files listed under the sysroot's path, so that dpkg-shlibdeps
# (--admindir) finds which package each library comes from, and its
# symbols, for the arm64 .deb's Depends (tools/deb.sh --arch).
#
# The sysroot is made once and kept under $EP_CROSS_CACHE (default
# /var/tmp/envparity-cross), one folder per Debian release and
# architecture, behind a lock: runs side by side wait for the first.  It
# is made afresh when this script's package list changes (its stamp).
# That folder must be the user's own and writable by no one else (another
# user could have made it first in /var/tmp): otherwise refused, exit 1.
# --path prints where it is (or would be) without making it.
#
# ARCH is a Debian architecture; arm64 is the one tested (tests/cli/
# arm64.bats).  Needs apt-get, dpkg-deb and flock; the host's mirror must
# be reachable the first time.
set -eu

usage() { echo "usage: tools/cross.sh [--path] ARCH" >&2; exit 2; }
path_only=0
[ "${1:-}" = --path ] && { path_only=1; shift; }
[ $# -eq 1 ] || usage
arch=$1
case $arch in
arm64) ;;
*) echo "tools/cross.sh: $arch: not an architecture envparity is cross-built for (arm64)" >&2
   exit 2 ;;
esac

# What the build needs, for ARCH (libc6-dev for the C library itself).
pkgs="libc6-dev libgit2-dev libcurl4-openssl-dev libjansson-dev libssl-dev libxml2-dev libyaml-dev libcmocka-dev"
stamp="v3 $arch $pkgs"

suite=$(. /etc/os-release 2>/dev/null && echo "${VERSION_CODENAME:-}")
suite=${suite:-bookworm}
cache=${EP_CROSS_CACHE:-/var/tmp/envparity-cross}
root=$cache/debian-$suite-$arch
# What the build compiles against and runs under qemu comes from here:
# in a shared folder such as /var/tmp, another user could have made it
# first.  It must be a folder of this user's that no one else can write.
own() {
	if [ -L "$cache" ] || [ ! -d "$cache" ] || [ "$(stat -c %u "$cache")" != "$(id -u)" ] ||
	    [ -n "$(find "$cache" -maxdepth 0 -perm /022)" ]; then
		echo "tools/cross.sh: $cache is not a folder of $(id -un)'s that only it can write (remove it, or name another with EP_CROSS_CACHE)" >&2
		exit 1
	fi
}
if [ "$path_only" = 1 ]; then
	if [ -e "$cache" ] || [ -L "$cache" ]; then own; fi
	echo "$root"
	exit 0
fi
[ -e "$cache" ] || [ -L "$cache" ] || (umask 077 && mkdir -p -- "$cache")
own

(
	flock 9 || exit 1
	[ "$(cat "$root/.envparity-sysroot" 2>/dev/null)" = "$stamp" ] && exit 0
	work=$(mktemp -d "$cache/make.XXXXXX")
	trap 'rm -rf "$work"' EXIT
	mkdir -p "$work/state/lists/partial" "$work/cache/archives/partial" \
	    "$work/sysroot"
	: >"$work/status"
	apt=(apt-get -q -o Dir::State="$work/state" -o Dir::State::status="$work/status"
	    -o Dir::Cache="$work/cache" -o APT::Architecture="$arch"
	    -o APT::Architectures="$arch" -o Debug::NoLocking=1
	    -o APT::Sandbox::User="$(id -un)")
	# shellcheck disable=SC2086 # $pkgs: one package a word
	if ! "${apt[@]}" update >"$work/log" 2>&1 ||
	    ! "${apt[@]}" install -y --download-only --no-install-recommends \
	    $pkgs >>"$work/log" 2>&1; then
		tail -n 20 "$work/log" >&2
		echo "tools/cross.sh: apt could not fetch the $arch packages (above)" >&2
		exit 1
	fi
	for deb in "$work"/cache/archives/*.deb; do
		dpkg-deb -x "$deb" "$work/sysroot"
	done
	# The few links a package makes absolute (/lib/...) point into the
	# sysroot instead, so that the linker and qemu find them there.
	find "$work/sysroot" -type l -lname '/*' -print0 |
	while IFS= read -r -d '' l; do
		t=$work/sysroot$(readlink "$l")
		ln -sfn "$(realpath -m --relative-to="$(dirname "$l")" "$t")" "$l"
	done
	# The dpkg database: each package installed, its files (as they lie
	# in the sysroot once in place), its shlibs and symbols.
	db=$work/sysroot/var/lib/dpkg
	mkdir -p "$db/info" "$work/ctl"
	printf '%s\n' "$(dpkg --print-architecture)" "$arch" | sort -u >"$db/arch"
	: >"$db/status"
	for deb in "$work"/cache/archives/*.deb; do
		name=$(dpkg-deb -f "$deb" Package)
		dpkg-deb -f "$deb" | sed '1a Status: install ok installed' >>"$db/status"
		echo >>"$db/status"
		dpkg-deb -c "$deb" | awk '{ print $6 }' | sed -e "s,^\./,$root/," \
		    -e 's,/$,,' | grep -v '^\.$' >"$db/info/$name.list"
		rm -rf "$work/ctl" && dpkg-deb -e "$deb" "$work/ctl"
		for f in shlibs symbols; do
			[ ! -f "$work/ctl/$f" ] || cp "$work/ctl/$f" "$db/info/$name.$f"
		done
	done
	(cd "$work/cache/archives" && printf '%s\n' *.deb) >"$work/sysroot/.envparity-packages"
	echo "$stamp" >"$work/sysroot/.envparity-sysroot"
	rm -rf "$root"
	mv "$work/sysroot" "$root"
) 9>"$cache/debian-$suite-$arch.lock"
echo "$root"
