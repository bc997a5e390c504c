#!/usr/bin/env bash
# tests/fuzz/clang.sh: what needs clang, as TAP (tests/run.sh runs it
# once, after the gcc passes).
#
#  - envparity-probe builds and links with clang under ASan and UBSan
#    (make SAN=1 CC=clang, in build-fuzz/clang-san/), its CPU tests pass,
#    and its CPU hashes are the ones the H100 fixtures hold: the vector
#    paths must give the same bits whatever the compiler;
#  - the fuzz targets build with libFuzzer (make fuzz-build) and every
#    saved input (tests/fuzz/regress/ and tests/fuzz/corpus/) runs clean
#    through them under clang's sanitizers;
#  - then each target runs FUZZ_SMOKE_SECONDS (default 2) on its corpus,
#    in a scratch copy: a crash, leak or broken promise fails.
set -u
cd "$(dirname "$0")/../.."
cc=${FUZZ_CC:-clang}
jobs=$(nproc 2>/dev/null || echo 2)

if ! command -v "$cc" >/dev/null 2>&1 ||
    [ ! -e "$("$cc" --print-runtime-dir 2>/dev/null)/libclang_rt.fuzzer-$(uname -m).a" ]; then
	echo "1..1"
	echo "ok 1 # SKIP $cc with libFuzzer is not installed (tools/deps.sh test installs it)"
	exit 0
fi

echo "1..6"
log=$(mktemp "${TMPDIR:-/tmp}/envparity-clang.XXXXXX")
trap 'rm -f "$log"' EXIT
b=build-fuzz/clang-san
n=0
result() { # ok? description
	n=$((n + 1))
	if [ "$1" = 0 ]; then
		echo "ok $n - $2"
	else
		echo "not ok $n - $2"
		tail -40 "$log" | sed 's/^/# /'
	fi
}

make -s -j"$jobs" SAN=1 CC="$cc" B="$b" WERROR="${WERROR:-1}" \
    "$b/envparity-probe" "$b/tests/test_probe_cpu" \
    "$b/tests/test_probe_fixture" >"$log" 2>&1
built=$?
result $built "make SAN=1 CC=$cc builds and links envparity-probe"

if [ $built = 0 ]; then
	CMOCKA_MESSAGE_OUTPUT=TAP "$b/tests/test_probe_cpu" >"$log" 2>&1
	result $? "the CPU backend's tests pass when built by $cc"
	CMOCKA_MESSAGE_OUTPUT=TAP "$b/tests/test_probe_fixture" >"$log" 2>&1
	result $? "the H100 fixtures' tests pass when built by $cc"
	# The first run recorded on the H100: kat, gemm and reduce (not the
	# atomic canary) must hash the same here.
	fx=tests/fixtures/gpu/h100/probe-cpu.jsonl
	(
		pick='select(.canary == false) | "\(.workload) \(.sha256)"'
		want=$(head -4 "$fx" | jq -r "$pick") &&
		    got=$("$b/envparity-probe" --backend cpu | jq -r "$pick") &&
		    echo "want: $want" && echo "got:  $got" &&
		    [ -n "$got" ] && [ "$got" = "$want" ]
	) >"$log" 2>&1
	result $? "the $cc probe's CPU hashes equal the H100 fixtures'"
else
	for what in "CPU tests" "H100 fixtures' tests" "CPU hashes"; do
		n=$((n + 1))
		echo "not ok $n - $what (no clang build)"
	done
fi

(
	make -s -j"$jobs" WERROR="${WERROR:-1}" FUZZ_CC="$cc" fuzz-build ||
	    exit 1
	for f in tests/fuzz/fuzz_*.c; do
		t=${f#tests/fuzz/fuzz_}
		t=${t%.c}
		# Files, not folders: libFuzzer then runs each once.
		inputs=$(find "tests/fuzz/corpus/$t" "tests/fuzz/regress/$t" \
		    -type f 2>/dev/null | sort)
		# shellcheck disable=SC2086
		build-fuzz/fuzz_$t $inputs || { echo "$t failed"; exit 1; }
	done
) >"$log" 2>&1
result $? "the fuzz targets build with libFuzzer and replay their saved inputs"

smoke=${FUZZ_SMOKE_SECONDS:-2}
if [ "$smoke" -gt 0 ] 2>/dev/null && [ -x build-fuzz/fuzz_policy ]; then
	work=$(mktemp -d "${TMPDIR:-/tmp}/envparity-fuzz.XXXXXX")
	tests/fuzz/run.sh --seconds "$smoke" --work "$work" >"$log" 2>&1
	rc=$?
	if [ $rc = 0 ]; then
		rm -rf "$work"
	else
		# Keep what it found: the input is the regression test.
		mkdir -p build-fuzz/smoke &&
		    cp -r "$work/artifacts" "build-fuzz/smoke/$(date +%s)" &&
		    echo "# artifacts kept in build-fuzz/smoke/" >>"$log"
		rm -rf "$work"
	fi
	result $rc "every fuzz target runs $smoke s on its corpus without a finding"
else
	n=$((n + 1))
	echo "ok $n # SKIP the fuzz smoke run (FUZZ_SMOKE_SECONDS=$smoke, or no build)"
fi
