#!/usr/bin/env bats
# reloc.bats: the relocatable build (make relocatable, tools/reloc.sh):
# envparity and envparity-probe built in a Debian 11 root with the
# libraries they link in lib/, unpacked and run in fresh Debian roots as
# old as the build's (Debian 11) and newer (this machine's Debian 12),
# where none of those libraries is installed: version, a capture, a bless
# and a check against it, parity and drift.  The NVIDIA libraries are the
# root's, found as a system's are: CUDA's runtime (the real one, copied
# from /usr/local/cuda/lib64) in the root's /usr/local/cuda/lib64, and
# the GPU driver, which is not here, played by a TEST DOUBLE of
# libnvidia-ml.so.1 (tests/doubles/fake_nvml.c) registered in the root's
# ld.so.cache: the carried libraries' RUNPATH must hide neither.
#
# The GitHub action's install: auto unpacks that tarball (from a folder,
# and over https on 127.0.0.1) only when its SHA-256 is the one input
# release-sha256 pins, never trusting a .sha256 beside it, and builds from
# source without a pin or when it does not match.
#
# The build root, the roots run in and the objects are made once per
# machine, under locks (tools/reloc.sh, debroot.bash's cache); on a warm
# machine the file costs seconds.  Root only (debootstrap, unshare).

load setup
load git_daemon
load ci
load debroot

ACTION=$REPO_ROOT/ci/github/action.yml
NM=$REPO_ROOT/tools/node_modules

setup_file() {
	unset ENVPARITY_STORE ENVPARITY_PROFILE ENVPARITY_GIT_TOKEN
	unset GITHUB_OUTPUT GITHUB_STEP_SUMMARY GITHUB_ENV GITHUB_PATH
	[ "$(id -u)" = 0 ] || return 0
	command -v debootstrap >/dev/null 2>&1 && command -v unshare >/dev/null 2>&1 || return 0
	"$REPO_ROOT/tools/reloc.sh" "$BATS_FILE_TMPDIR/out" >"$BATS_FILE_TMPDIR/reloc.log" 2>&1 ||
		{ tail -n 30 "$BATS_FILE_TMPDIR/reloc.log" >&3; return 1; }
	cc -shared -fPIC -o "$BATS_FILE_TMPDIR/libnvidia-ml.so.1" \
	    "$BATS_TEST_DIRNAME/../doubles/fake_nvml.c" \
	    "$BATS_TEST_DIRNAME/../doubles/fake_nvml_health.c"
}

need_root() {
	[ "$(id -u)" = 0 ] || skip "needs root (debootstrap, unshare --root)"
	command -v debootstrap >/dev/null 2>&1 || skip "debootstrap is not installed"
	command -v unshare >/dev/null 2>&1 || skip "unshare is not installed"
}

VERSION=$(sed -n 's/^#define EP_VERSION "\(.*\)"$/\1/p' "$REPO_ROOT/checker/util/version.h")
NAME=envparity-$VERSION-linux-$(uname -m)

# A minbase root of SUITE as a tar in the test cache, made once per
# machine under a lock (this machine's own suite is debroot_tar's).
suite_tar() { # suite
	local tar=$EP_TEST_CACHE/debian-$1-minbase.tar tmp
	mkdir -p -m 0700 "$EP_TEST_CACHE"
	(
		flock 9 || exit 1
		[ ! -s "$tar" ] || exit 0
		tmp=$(mktemp -d "$EP_TEST_CACHE/boot.XXXXXX")
		if ! debootstrap --variant=minbase "$1" "$tmp/root" "$(debroot_mirror)" \
		    >"$tmp/log" 2>&1; then
			tail -n 20 "$tmp/log" >&2
			rm -rf "$tmp"
			exit 1
		fi
		tar -C "$tmp/root" -cf "$tmp/root.tar" . && mv "$tmp/root.tar" "$tar"
		rm -rf "$tmp"
	) 9>"$tar.lock" || return 1
	echo "$tar"
}

# Run a command in root $R: its own mount and pid namespaces, a fresh
# /proc, an environment of nothing but PATH, HOME, a cache and the NVML
# double's healthy GPUs ($GPUS, default 2; handed to the helpers that
# load it).
inroot() {
	unshare --mount --pid --fork --mount-proc --root="$R" /usr/bin/env -i \
	    PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root XDG_CACHE_HOME=/tmp/cache \
	    ENVPARITY_CHILD_ENV='FAKE_*' FAKE_NVML_GPUS="${GPUS:-2}" "$@"
}

@test "relocatable: the tarball carries its libraries but glibc's, RUNPATH \$ORIGIN, nothing newer than glibc 2.31, its checksum" {
	need_root
	out=$BATS_FILE_TMPDIR/out
	[ -s "$out/$NAME.tar.gz" ]
	(cd "$out" && sha256sum -c --quiet "$NAME.tar.gz.sha256")
	tar -C "$T" -xzf "$out/$NAME.tar.gz"
	d=$T/$NAME
	[ -x "$d/bin/envparity" ] && [ -x "$d/bin/envparity-probe" ]
	[ -s "$d/README" ] && [ -s "$d/LICENSE" ] && [ -s "$d/share/man/man1/envparity.1" ]
	for l in libgit2.so.1.1 libcurl.so.4 libjansson.so.4 libcrypto.so.1.1 libssl.so.1.1 \
	    libxml2.so.2 libyaml-0.so.2; do
		[ -f "$d/lib/$l" ]
	done
	# glibc's own libraries come from the machine, never from lib/.
	[ -z "$(ls "$d/lib" | grep -E '^(ld-linux|libc|libm|libdl|libpthread|librt|libresolv)[.-]so' || true)" ]
	# Each carried library's licence is carried too.
	[ -s "$d/share/doc/libraries/libgit2-1.1.copyright" ]
	# DT_RUNPATH (after LD_LIBRARY_PATH, not inherited by what is
	# dlopen'ed), not DT_RPATH.
	for b in envparity envparity-probe; do
		readelf -d "$d/bin/$b" | grep -F 'Library runpath: [$ORIGIN/../lib]'
		! readelf -d "$d/bin/$b" | grep -q '(RPATH)' || false
	done
	readelf -d "$d/lib/libcurl.so.4" | grep -F 'Library runpath: [$ORIGIN]'
	"$REPO_ROOT/tools/reloc.sh" --check-glibc 2.31 "$d"/bin/* "$d"/lib/*
	# The check bites: this machine's own build needs a newer glibc.
	run "$REPO_ROOT/tools/reloc.sh" --check-glibc 2.31 "$EP"
	[ "$status" -eq 1 ]
	[[ "$output" == "reloc: envparity needs glibc 2."*", newer than 2.31" ]]
	# The tarball is the same for the same tree.
	run tar -tzf "$out/$NAME.tar.gz"
	[ "${lines[0]}" = "$NAME/" ]
	[ "$(tar -tzvf "$out/$NAME.tar.gz" | awk '{ print $2 }' | sort -u)" = 0/0 ]
}

@test "relocatable: runs in a Debian 11 root (the build's) and a Debian 12 root with none of its libraries installed: capture, bless, check" {
	need_root
	cudart=/usr/local/cuda/lib64/libcudart.so.13
	for suite in bullseye "$(. /etc/os-release && echo "$VERSION_CODENAME")"; do
		R=$T/$suite
		mkdir -p "$R"
		tar -C "$R" -xf "$(suite_tar "$suite")"
		tar -C "$R/opt" -xzf "$BATS_FILE_TMPDIR/out/$NAME.tar.gz"
		ep=/opt/$NAME/bin/envparity
		# None of what it links is installed there.
		run inroot dpkg-query -W -f '${Package} ${Status}\n' 'libgit2*' 'libjansson*' \
		    'libyaml*' 'libxml2*' 'libcurl*'
		[[ "$output" != *" installed"* ]]
		run inroot /usr/bin/ldd "$ep"
		echo "$output"
		[[ "$output" == *"libgit2.so.1.1 => /opt/$NAME/bin/../lib/libgit2.so.1.1"* ]]
		[[ "$output" != *"not found"* ]]
		[[ "$output" == *"libc.so.6 => /lib/x86_64-linux-gnu/libc.so.6"* ]]

		run inroot "$ep" version
		echo "$output"
		[ "$status" -eq 0 ]
		[ "${lines[0]}" = "envparity $VERSION" ]

		# The system's NVIDIA libraries: CUDA's runtime where CUDA puts
		# it, the driver's NVML (the double) through ld.so.cache.
		if [ -e "$cudart" ]; then
			mkdir -p "$R/usr/local/cuda/lib64"
			cp "$cudart" "$R/usr/local/cuda/lib64/"
		fi
		cp "$BATS_FILE_TMPDIR/libnvidia-ml.so.1" "$R/usr/lib/x86_64-linux-gnu/"
		inroot ldconfig
		mkdir -p "$R/tmp/site"
		run inroot "$ep" capture -q --no-discover --site-packages /tmp/site -o /tmp/m.json
		echo "$output"
		[ "$status" -eq 0 ]
		m=$R/tmp/m.json
		[ "$(jq -r '.facts["os.version_id"]' "$m")" = "$(. "$R/etc/os-release" && echo "$VERSION_ID")" ]
		[ "$(jq -r '.facts["gpu.driver.version"]' "$m")" = 580.159.04 ]
		[ "$(jq -r '.facts["gpu.count"]' "$m")" = 2 ]
		if [ -e "$cudart" ]; then
			[ "$(jq -r '.facts["lib.cudart.path"]' "$m")" = /usr/local/cuda/lib64/libcudart.so.13 ]
			[ -n "$(jq -r '.facts["lib.cudart.version"] // empty' "$m")" ]
		fi

		# A golden blessed there, checked there: parity; then drift.
		git init -q --bare -b main "$R/tmp/s.git"
		run inroot "$ep" bless -q --store /tmp/s.git --no-discover --site-packages /tmp/site
		echo "$output"
		[ "$status" -eq 0 ]
		run inroot "$ep" check --store /tmp/s.git --no-discover --site-packages /tmp/site \
		    --json /tmp/r.json
		echo "$output"
		[ "$status" -eq 0 ]
		jq -e '.exit_status == 0 and .counts.fail == 0' "$R/tmp/r.json"
		# One GPU fewer: drift, exit 1.
		GPUS=1 run inroot "$ep" check --store /tmp/s.git --no-discover --site-packages /tmp/site
		echo "$output"
		[ "$status" -eq 1 ]
		[[ "$output" == *"gpu.count"* ]]
		rm -rf "$R"
	done
}

# A static https server on 127.0.0.1 for folder $1 (make_tls_cert's
# certificate); its port in $HTTPS_PORT.
start_https() { # dir
	mkfifo "$T/port"
	python3 -c '
import functools, http.server, ssl, sys
h = functools.partial(http.server.SimpleHTTPRequestHandler, directory=sys.argv[1])
s = http.server.HTTPServer(("127.0.0.1", 0), h)
c = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
c.load_cert_chain(sys.argv[2], sys.argv[3])
s.socket = c.wrap_socket(s.socket, server_side=True)
with open(sys.argv[4], "w") as f:
    f.write("%d\n" % s.server_address[1])
s.serve_forever()' "$1" "$TLS_CERT" "$TLS_KEY" "$T/port" >/dev/null 2>&1 3>&- &
	HTTPS_PID=$!
	read -r HTTPS_PORT <"$T/port"
}

eval "ep_daemon_$(declare -f teardown)"
teardown() {
	[ -z "${HTTPS_PID:-}" ] || { kill "$HTTPS_PID" 2>/dev/null; wait "$HTTPS_PID" 2>/dev/null; }
	ep_daemon_teardown
}

@test "action: install auto unpacks the release's relocatable build only when its SHA-256 is the one release-sha256 pins, else builds from source" {
	need_root
	need_node
	out=$BATS_FILE_TMPDIR/out
	golden s.git sp 2
	# The mirror: an absolute folder outside the workspace ($T).
	rel=$BATS_TEST_TMPDIR/rel
	mkdir "$rel"
	cp "$out/$NAME.tar.gz" "$out/$NAME.tar.gz.sha256" "$rel/"
	sum=$(cut -d' ' -f1 "$out/$NAME.tar.gz.sha256")
	rb=$T/runner/envparity-reloc/$NAME/bin/envparity
	check=(store=s.git "args=--no-discover --site-packages sp")

	# From a folder (a mirror of the release's assets), the pin in upper
	# case as release notes may show it.
	run_action r.json envparity= install=auto release-url="$rel" release-sha256="${sum^^}" "${check[@]}"
	[ "$status" -eq 0 ]
	[[ "$output" == *"install auto: the relocatable build $NAME, SHA-256 as pinned"* ]]
	[ "$(jq -r .outputs.envparity r.json)" = "$rb" ]
	jq -e '.outputs.status == "parity" and .outputs["envparity-version"] == "'"$VERSION"'"' r.json

	# Over https, as from a release's assets; the .sha256 is not needed.
	rm "$rel/$NAME.tar.gz.sha256"
	make_tls_cert
	start_https "$rel"
	rm -rf runner
	CURL_CA_BUNDLE=$TLS_CA run_action r.json envparity= install=auto \
	    release-url="https://127.0.0.1:$HTTPS_PORT/" release-sha256="$sum" "${check[@]}"
	[ "$status" -eq 0 ]
	[[ "$output" == *"the relocatable build $NAME, SHA-256 as pinned"* ]]
	[ "$(jq -r .outputs.envparity r.json)" = "$rb" ]

	# Whatever goes wrong, the build from source (a make that leaves a
	# mark and fails at once: the build is not what is tested here).
	mkdir fakemake
	printf '#!/bin/sh\ntouch "%s/made"\nexit 1\n' "$T" >fakemake/make
	chmod +x fakemake/make
	fallback() { # why release-url [release-sha256]
		rm -rf made runner
		CURL_CA_BUNDLE=$TLS_CA PATH=$T/fakemake:$PATH run_action r.json envparity= install=auto \
		    release-url="$2" release-sha256="${3-$sum}" "${check[@]}"
		[ "$status" -ne 0 ]
		[[ "$output" == *"install auto: no relocatable build ($1"*"): building from source"* ]]
		[ -e made ]
		[ ! -e "$rb" ]
	}
	# No pin: nothing is downloaded, even with a .sha256 beside it.
	cp "$out/$NAME.tar.gz.sha256" "$rel/"
	fallback "no input release-sha256 to check it against" "$rel" ""
	[ ! -e runner/envparity-reloc ]
	# A wrong pin.
	wrong=$(printf 'other' | sha256sum | cut -d' ' -f1)
	fallback "$NAME.tar.gz's SHA-256 is $sum, not $wrong as input release-sha256 pins" "$rel" "$wrong"
	# A replaced tarball (a working build, repacked with a file more)
	# whose .sha256 was replaced too: consistent with each other, not
	# with the pin.
	mkdir evil
	tar -C evil -xzf "$out/$NAME.tar.gz"
	touch "evil/$NAME/bin/planted"
	tar -C evil -czf "$rel/$NAME.tar.gz" "$NAME"
	(cd "$rel" && sha256sum "$NAME.tar.gz" >"$NAME.tar.gz.sha256" && sha256sum -c --quiet "$NAME.tar.gz.sha256")
	evil=$(cut -d' ' -f1 "$rel/$NAME.tar.gz.sha256")
	fallback "$NAME.tar.gz's SHA-256 is $evil, not $sum as input release-sha256 pins" "$rel"
	fallback "$NAME.tar.gz's SHA-256 is $evil, not " "https://127.0.0.1:$HTTPS_PORT"
	[ ! -e "$T/runner/envparity-reloc/$NAME/bin/planted" ]
	cp "$out/$NAME.tar.gz" "$rel/"
	# No such release; plain http; a local action without release-url.
	fallback "cannot download https://127.0.0.1:$HTTPS_PORT/v9/$NAME.tar.gz" "https://127.0.0.1:$HTTPS_PORT/v9"
	fallback "input release-url: only https:// URLs or folders" "http://127.0.0.1:$HTTPS_PORT"
	fallback "no release to download from (input release-url)" ""

	# Refused, exit 2, nothing built: a mirror folder that is relative or
	# in the workspace (through a link too), a pin that is no SHA-256.
	refused() { # error input...
		local err=$1
		shift
		rm -rf made runner
		PATH=$T/fakemake:$PATH run_action r.json envparity= install=auto "$@" "${check[@]}"
		[ "$status" -ne 0 ]
		jq -e '.steps.setup.exit_code == 2 and .steps.check.outcome == "skipped"' r.json
		[ "$(grep -c '^::error' <<<"$output")" = 1 ]
		[[ "$output" == *"::error title=envparity::$err"* ]]
		[ ! -e made ]
		[ ! -e runner/envparity-reloc ]
	}
	cp -r "$rel" inws
	ln -s "$T/inws" "$BATS_TEST_TMPDIR/link"
	refused "input release-url: inws is a relative folder" release-url=inws release-sha256="$sum"
	refused "input release-url: $T/inws is in the working directory or the workspace" release-url="$T/inws" release-sha256="$sum"
	refused "input release-url: $BATS_TEST_TMPDIR/link is in the working directory or the workspace" \
	    release-url="$BATS_TEST_TMPDIR/link" release-sha256="$sum"
	refused "input release-sha256: not a SHA-256 (64 hex digits)" release-url="$rel" release-sha256="${sum:1}"
	refused "input release-sha256: not a SHA-256 (64 hex digits)" release-url="$rel" release-sha256="${sum:1}g"

	# install: source never downloads.
	rm -rf made runner
	PATH=$T/fakemake:$PATH run_action r.json envparity= install=source release-url="$rel" release-sha256="$sum" "${check[@]}"
	[ -e made ]
	[ ! -e runner/envparity-reloc ]
}
