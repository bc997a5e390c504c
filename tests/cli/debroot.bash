# A fresh Debian root for the package and image tests: debootstrap
# --variant=minbase of this machine's release from its configured apt
# mirror, made once and kept as a tar under the test cache
# ($EP_TEST_CACHE, default /var/tmp/envparity-test-cache), so that a
# rerun only unpacks it.  Root only (debootstrap and chroot are).
#
# debroot_tar          prints the cached tar's path, making it first
# debroot_make DIR     unpacks a fresh root into DIR, with the host's
#                      resolv.conf (apt inside reaches the mirror)
# deb_of_head DIR      the package of HEAD, built once a test run

EP_TEST_CACHE=${EP_TEST_CACHE:-/var/tmp/envparity-test-cache}

# The release and the mirror apt uses here (deb822 or one-line sources).
debroot_mirror() {
	local m
	m=$(sed -n 's/^URIs: *\([^ ]*debian\/*\)$/\1/p' /etc/apt/sources.list.d/*.sources 2>/dev/null | head -n 1)
	[ -n "$m" ] || m=$(awk '$1 == "deb" && $2 ~ /debian\/?$/ { print $2; exit }' \
	    /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null)
	echo "${m:-http://deb.debian.org/debian}"
}

debroot_tar() {
	local suite tar tmp
	suite=$(. /etc/os-release && echo "${VERSION_CODENAME:-bookworm}")
	tar=$EP_TEST_CACHE/debian-$suite-minbase.tar
	mkdir -p -m 0700 "$EP_TEST_CACHE"
	# What is unpacked is run as root: the cache must be root's alone.
	if [ "$(stat -c %u "$EP_TEST_CACHE")" != 0 ] ||
	    [ -n "$(find "$EP_TEST_CACHE" -maxdepth 0 -perm /022)" ]; then
		echo "debroot: $EP_TEST_CACHE is not root's alone" >&2
		return 1
	fi
	# One debootstrap at a time: the files running side by side that
	# need a root (deb, ci_install, image) wait for the first to make it.
	(
		flock 9 || exit 1
		[ ! -s "$tar" ] || exit 0
		tmp=$(mktemp -d "$EP_TEST_CACHE/boot.XXXXXX")
		if ! debootstrap --variant=minbase "$suite" "$tmp/root" \
		    "$(debroot_mirror)" >"$tmp/log" 2>&1; then
			tail -n 20 "$tmp/log" >&2
			rm -rf "$tmp"
			exit 1
		fi
		tar -C "$tmp/root" -cf "$tmp/root.tar" . && mv "$tmp/root.tar" "$tar"
		rm -rf "$tmp"
	) 9>"$tar.lock" || return 1
	echo "$tar"
}

# deb_of_head DIR: envparity's Debian package of HEAD (make dist, then
# tools/deb.sh) into DIR, with its .buildinfo and .changes; prints the
# .deb's path.  Under tests/run.sh (EP_TEST_RUN_DIR, one run's scratch
# folder) the package is built once a run and copied: deb.bats and
# ci_install.bats test the same package, and a rebuild would only take
# the time of a compile.
deb_of_head() { # dir
	local out=$1 run=${EP_TEST_RUN_DIR:-} src
	mkdir -p "$out" || return 1
	src=$out
	if [ -n "$run" ] && [ -d "$run" ]; then
		src=$run/deb
		(
			flock 9 || exit 1
			[ ! -e "$src/done" ] || exit 0
			rm -rf "$src" && mkdir -p "$src" &&
			    make -s -C "$REPO_ROOT" dist DISTDIR="$src" >/dev/null &&
			    "$REPO_ROOT/tools/deb.sh" "$src"/envparity-*.tar.gz "$src" >/dev/null &&
			    : >"$src/done"
		) 9>"$run/deb.lock" || return 1
		cp "$src"/envparity*.deb "$src"/envparity*.buildinfo \
		    "$src"/envparity*.changes "$out"/ || return 1
	else
		make -s -C "$REPO_ROOT" dist DISTDIR="$out" >/dev/null &&
		    "$REPO_ROOT/tools/deb.sh" "$out"/envparity-*.tar.gz "$out" >/dev/null ||
		    return 1
	fi
	ls "$out"/envparity_*.deb | grep -v dbgsym
}

debroot_make() { # dir
	local tar
	tar=$(debroot_tar) || return 1
	mkdir -p "$1" && tar -C "$1" -xf "$tar" || return 1
	cp -L /etc/resolv.conf "$1/etc/resolv.conf"
}
