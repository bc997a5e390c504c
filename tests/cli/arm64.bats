#!/usr/bin/env bats
# arm64.bats: envparity on aarch64 (NVIDIA Grace, GH200), as this x86-64
# host can test it.  `make ARCH=arm64` cross-builds envparity,
# envparity-probe and a representative set of the unit tests with
# Debian's cross toolchain against the sysroot tools/cross.sh makes from
# Debian's arm64 packages; qemu-aarch64 -L SYSROOT runs them, on the
# arm64 libc and libraries they were linked with.  The arm64 .deb is
# built by tools/deb.sh --arch arm64 from the tarball of HEAD.
#
# What qemu-user cannot show: the host's /proc and /sys (an x86 CPU's),
# so the capture runs over a Grace-shaped tree (tests/fixtures/arm64:
# qemu opens a file of the -L prefix in place of the absolute path asked
# for, when the prefix has one); a seccomp filter (qemu refuses it,
# EINVAL, and envparity then refuses to run its helpers: Python, the
# CUDA libraries' loads and the probe through `envparity probe` are
# answered here from the seeded cache or are unavailable); a GPU.  Those
# need arm64 hardware (docs/development.md, "What is tested where").
#
# tools/cross.sh keeps the sysroot in a cache folder that must be the
# user's own and writable by no one else: one another user made first
# in /var/tmp, or a link, is refused.

load setup

setup_file() {
	local t
	command -v aarch64-linux-gnu-gcc >/dev/null && command -v qemu-aarch64 >/dev/null ||
	    skip "no cross toolchain or qemu-user (tools/deps.sh test installs crossbuild-essential-arm64 and qemu-user)"
	SYSROOT=$("$REPO_ROOT/tools/cross.sh" arm64)
	export SYSROOT
	# The unit tests that run here: the parsers and collectors with an
	# arm64 path (os, libsearch, node), the libraries' own arm64 code
	# (OpenSSL's hashes and signatures, libgit2, libxml2, libyaml, zlib),
	# the probe's generator.  The rest pass natively; those that start
	# helpers cannot run under qemu-user (above).
	ARM64_UNITS="test_os test_libsearch test_node test_hash test_util
	    test_clean test_manifest test_attest test_imgtar test_report_junit
	    test_textproto test_lockfile_formats test_store_policy
	    test_probe_rng test_probe_line"
	export ARM64_UNITS
	local targets=(all)
	for t in $ARM64_UNITS; do targets+=("build-arm64/tests/$t"); done
	make -s -C "$REPO_ROOT" -j2 ARCH=arm64 WERROR=1 "${targets[@]}" \
	    >"$BATS_FILE_TMPDIR/build.log" 2>&1 ||
	    { cat "$BATS_FILE_TMPDIR/build.log" >&2; false; }
}

arm64() { # program args...
	qemu-aarch64 -L "${ROOT:-$SYSROOT}" "$@"
}

@test "make ARCH=arm64: aarch64 ELF under build-arm64/, beside the native build, linked against the sysroot's arm64 libraries" {
	local b=$REPO_ROOT/build-arm64 f
	for f in "$b/envparity" "$b/envparity-probe" "$b/tests/test_os"; do
		readelf -h "$f" | grep -Eq 'Machine: +AArch64'
		readelf -l "$f" | grep -q '/lib/ld-linux-aarch64.so.1'
	done
	readelf -d "$b/envparity" | grep -q 'NEEDED.*libgit2'
	# No object of one build in the other's folder.
	! find "$REPO_ROOT/build-arm64/obj" -name '*.o' -exec readelf -h {} + |
	    grep -Eq 'Machine: +Advanced Micro Devices X86-64'
	[ ! -e "$REPO_ROOT/build" ] || ! readelf -h "$EP" | grep -q AArch64
	run arm64 "$b/envparity" version
	[ "$status" -eq 0 ]
	[[ "$output" == "envparity $(make -s -C "$REPO_ROOT" version)"* ]]
	# ARCH names an architecture the cross build knows.
	run make -s -C "$REPO_ROOT" ARCH=riscv64 all
	[ "$status" -ne 0 ]
	[[ "$output" == *"ARCH=riscv64: the cross build knows arm64 only"* ]]
}

@test "the unit tests, built for arm64, pass under qemu-aarch64" {
	local t n=0
	cd "$REPO_ROOT"
	for t in $ARM64_UNITS; do
		CMOCKA_MESSAGE_OUTPUT=TAP arm64 "build-arm64/tests/$t" >"$T/$t.tap" 2>&1 ||
		    { echo "$t failed:"; cat "$T/$t.tap"; false; }
		! grep -q '^not ok' "$T/$t.tap" || { cat "$T/$t.tap"; false; }
		n=$((n + $(grep -c '^ok ' "$T/$t.tap")))
	done
	echo "$n tests passed"
	[ "$n" -ge 60 ]
	# The Grace cpuinfo test is among them, and ran (not skipped).
	grep -q '^ok .* test_cpu_model' "$T/test_os.tap"
	grep -q '^ok .* test_ldcache_search' "$T/test_libsearch.tap"
}

@test "a capture under qemu-aarch64 over a Grace-shaped /proc and /sys: os.arch aarch64, the Neoverse V2 named, its ISA, the node's facts, NVML under aarch64-linux-gnu; diff against this host's fails on os.arch" {
	local g=$FIXTURES/arm64/grace d m=usr/lib/aarch64-linux-gnu
	# The -L prefix: the sysroot (links), with the fixture's proc and
	# sys, and in the arm64 multiarch folder an empty file in the place
	# of NVIDIA's driver library (a stand-in for a driver that is not
	# here: only where it is found is looked at).
	ROOT=$T/root
	mkdir -p "$ROOT/$m"
	for d in "$SYSROOT"/*; do [ "${d##*/}" = usr ] || ln -s "$d" "$ROOT/"; done
	for d in "$SYSROOT"/usr/*; do [ "${d##*/}" = lib ] || ln -s "$d" "$ROOT/usr/"; done
	for d in "$SYSROOT"/usr/lib/*; do
		[ "${d##*/}" = aarch64-linux-gnu ] || ln -s "$d" "$ROOT/usr/lib/"
	done
	ln -s "$SYSROOT/$m"/* "$ROOT/$m/"
	: >"$ROOT/$m/libnvidia-ml.so.1"
	cp -r "$g/proc" "$g/sys" "$ROOT/"
	run arm64 "$REPO_ROOT/build-arm64/envparity" capture -q --no-discover -o arm.json
	echo "$output"
	[ "$status" -eq 0 ]
	validate_schema manifest arm.json
	[ "$(fact arm.json os.arch)" = aarch64 ]
	[ "$(fact arm.json cpu.model)" = "ARM Neoverse-V2" ]
	[ "$(fact arm.json cpu.isa)" = "asimd asimddp asimdfhm asimdhp bf16 fcma fphp i8mm sve sve2 svebf16 svei8mm" ]
	# glibc reads the online CPUs from /sys: the fixture's 72.
	[ "$(fact arm.json cpu.count)" = 72 ]
	# The arm64 libc it runs on, the sysroot's.
	[ "$(fact arm.json libc.version)" = "$(awk '/^Package: libc6$/ { p = 1 }
	    p && /^Version:/ { sub(/-.*/, "", $2); print $2; exit }' "$SYSROOT/var/lib/dpkg/status")" ]
	[ "$(fact arm.json node.cpu.smt)" = notsupported ]
	[ "$(fact arm.json node.cpu.governor)" = performance ]
	[ "$(fact arm.json node.mem.hugepage_size_kb)" = 524288 ]
	[ "$(fact arm.json node.numa.nodes)" = 2 ]
	[ "$(fact arm.json node.mem.thp)" = madvise ]
	[ "$(fact arm.json node.cmdline.iommu.passthrough)" = 1 ]
	# The driver library is looked for where arm64 Debian and Ubuntu put
	# it (gpudrv.c's aarch64-linux-gnu); found, it cannot be loaded here
	# (no helper runs under qemu-user).
	jq -e '.meta.unavailable.gpu | contains("/usr/lib/aarch64-linux-gnu/libnvidia-ml.so.1")' arm.json
	# The same capture natively, and the native diff of the two: the
	# architecture is a change of its own.
	"$EP" capture -q --no-discover -o x86.json
	[ "$(fact x86.json os.arch)" = "$(uname -m)" ]
	run "$EP" diff -q --json r.json x86.json arm.json
	[ "$status" -eq 1 ]
	jq -e --arg m "$(uname -m)" '[.results[] | select(.key == "os.arch")] |
	    length == 1 and .[0].status == "fail" and .[0].expected == $m and
	    .[0].actual == "aarch64"' r.json
	jq -e '.results[] | select(.key == "cpu.model") | .status == "fail" and
	    .actual == "ARM Neoverse-V2"' r.json
}

@test "envparity-probe's cpu backend under qemu-aarch64: the known answer, and the x86-64 build's gemm and reduce bits" {
	run arm64 "$REPO_ROOT/build-arm64/envparity-probe" --backend cpu --threads 2
	[ "$status" -eq 0 ]
	echo "$output" >arm.jsonl
	"$REPO_ROOT/build/envparity-probe" --backend cpu --threads 2 >x86.jsonl
	jq -se 'map(select(.workload == "kat"))[0] | .status == "ok" and .known_answer == true' arm.jsonl
	[ "$(jq -r 'select(.workload == "kat") | .device.arch' arm.jsonl)" = aarch64 ]
	for w in kat gemm reduce; do
		a=$(jq -r --arg w "$w" 'select(.workload == $w) | .sha256' arm.jsonl)
		x=$(jq -r --arg w "$w" 'select(.workload == $w) | .sha256' x86.jsonl)
		echo "$w $a $x"
		[ -n "$a" ] && [ "$a" = "$x" ]
	done
}

@test "tools/deb.sh --arch arm64: envparity_VERSION_arm64.deb of HEAD, aarch64 ELF, its Depends from the arm64 libraries, lintian clean" {
	git -C "$REPO_ROOT" rev-parse --verify -q HEAD >/dev/null 2>&1 || skip "not a git checkout"
	local v f
	v=$(make -s -C "$REPO_ROOT" version)
	make -s -C "$REPO_ROOT" dist DISTDIR="$T/deb" >/dev/null
	run "$REPO_ROOT/tools/deb.sh" --arch arm64 "$T/deb/envparity-$v.tar.gz" "$T/deb"
	echo "$output" | tail -n 20
	[ "$status" -eq 0 ]
	[ "$output" = "$T/deb/envparity_${v}_arm64.deb" ]
	[ "$(dpkg-deb -f "$output" Architecture)" = arm64 ]
	[ "$(dpkg-deb -f "$output" Version)" = "$v" ]
	dep=$(dpkg-deb -f "$output" Depends)
	echo "$dep"
	[[ "$dep" == *"libc6 (>="* && "$dep" == *libgit2* && "$dep" == *libcurl4* && "$dep" == *libjansson4* && "$dep" == *libssl3* ]]
	[[ "$dep" != *-dev* ]]
	dpkg-deb -x "$output" x
	for f in x/usr/bin/envparity x/usr/bin/envparity-probe; do
		file "$f" | grep -q 'ELF 64-bit LSB pie executable, ARM aarch64'
	done
	# The packaged binary runs (under qemu, on the sysroot's libraries).
	run arm64 x/usr/bin/envparity version
	[ "$status" -eq 0 ]
	run lintian --pedantic "$T/deb/envparity_${v}_arm64.changes"
	echo "$output"
	! grep -q '^[EW]:' <<<"$output"
}

@test "tools/cross.sh refuses a cache folder another user owns or others can write, a link; --path makes nothing" {
	local c=$BATS_TEST_TMPDIR/cross
	mkdir -m 0777 "$c"
	for a in arm64 "--path arm64"; do
		# shellcheck disable=SC2086 # $a: the arguments
		EP_CROSS_CACHE=$c run "$REPO_ROOT/tools/cross.sh" $a
		[ "$status" -eq 1 ]
		[ "$output" = "tools/cross.sh: $c is not a folder of $(id -un)'s that only it can write (remove it, or name another with EP_CROSS_CACHE)" ]
	done
	[ -z "$(ls -A "$c")" ]
	chmod 0755 "$c"
	chown nobody "$c" 2>/dev/null || skip "cannot give a folder to another user"
	EP_CROSS_CACHE=$c run "$REPO_ROOT/tools/cross.sh" --path arm64
	[ "$status" -eq 1 ]
	[[ "$output" == *"$c is not a folder of"* ]]
	ln -s "$BATS_TEST_TMPDIR" "$c.link"
	EP_CROSS_CACHE=$c.link run "$REPO_ROOT/tools/cross.sh" --path arm64
	[ "$status" -eq 1 ]
	[[ "$output" == *"$c.link is not a folder of"* ]]
	# Its own: --path makes nothing; the folder it makes is 0700.
	EP_CROSS_CACHE=$c.own run "$REPO_ROOT/tools/cross.sh" --path arm64
	[ "$status" -eq 0 ]
	[ "$output" = "$c.own/debian-$(. /etc/os-release && echo "$VERSION_CODENAME")-arm64" ]
	[ ! -e "$c.own" ]
}
