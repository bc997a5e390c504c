# A fresh Debian root for the package and image tests: debootstrap
# --variant=minbase of this machine's release from its configured apt
# mirror, made once and kept as a tar under the test cache
# ($EP_TEST_CACHE, default /var/tmp/envparity-test-cache), so that a
# rerun only unpacks it.  Root only (debootstrap and chroot are).
#
# debroot_tar          prints the cached tar's path, making it first
# debroot_make DIR     unpacks a fresh root into DIR, with the host's
#                      resolv.conf (apt inside reaches the mirror)

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
	if [ ! -s "$tar" ]; then
		tmp=$(mktemp -d "$EP_TEST_CACHE/boot.XXXXXX")
		if ! debootstrap --variant=minbase "$suite" "$tmp/root" \
		    "$(debroot_mirror)" >"$tmp/log" 2>&1; then
			tail -n 20 "$tmp/log" >&2
			rm -rf "$tmp"
			return 1
		fi
		tar -C "$tmp/root" -cf "$tmp/root.tar" . && mv "$tmp/root.tar" "$tar"
		rm -rf "$tmp"
	fi
	echo "$tar"
}

debroot_make() { # dir
	local tar
	tar=$(debroot_tar) || return 1
	mkdir -p "$1" && tar -C "$1" -xf "$tar" || return 1
	cp -L /etc/resolv.conf "$1/etc/resolv.conf"
}
