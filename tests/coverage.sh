#!/usr/bin/env bash
# tests/coverage.sh: the line coverage of the C code (checker/, reports/,
# gpu_probes/) by the whole suite, measured with gcc's gcov; and which bats
# files the sanitizer pass must run (tests/san.list).
#
#   tests/coverage.sh [--jobs N] [--san-list] [DIR]
#
# Builds DIR (default: this checkout) with gcov's counters into
# DIR/build-cov/ (what `make COV=1` does, said in flags that a Makefile
# without COV takes too, so that an older tree is measured the same way),
# runs every unit test and the fuzz replay, then every bats file, each
# test file side by side with its own GCOV_PREFIX so that its counts are
# its own (tests/serial.list's files alone, at the end).  A helper process
# that is given a filtered environment (envparity's children) writes its
# counts to build-cov/ itself: they count in the totals, not for any file.
#
# Prints the lines covered per folder, by the unit tests and fuzz replay
# alone and by the whole suite, and, per bats file, the lines it reaches
# that no unit test does; keeps the figures in DIR/build-cov/coverage/.
#
# --san-list rewrites tests/san.list: the bats files that, added one at a
# time by the most new lines first (a greedy set cover), reach every line
# the whole suite reaches beyond the unit tests and fuzz replay.  So every
# line of C a test reaches runs under ASan and UBSan in some test.
set -u
here=$(cd "$(dirname "$0")/.." && pwd)
jobs=$(( $(nproc 2>/dev/null || echo 2) * 2 )) sanlist=0 dir=$here
while [ $# -gt 0 ]; do
	case $1 in
	--jobs) [[ ${2-} =~ ^[1-9][0-9]*$ ]] || { echo "tests/coverage.sh: --jobs N" >&2; exit 2; }
		jobs=$2; shift ;;
	--san-list) sanlist=1 ;;
	-*) echo "usage: tests/coverage.sh [--jobs N] [--san-list] [DIR]" >&2; exit 2 ;;
	*) dir=$(cd "$1" && pwd) || exit 2 ;;
	esac
	shift
done
cd "$dir" || exit 2
command -v gcov >/dev/null || { echo "tests/coverage.sh: no gcov (gcc's)" >&2; exit 3; }

b=build-cov
work=$dir/$b/coverage
echo "building $dir/$b" >&2
if ! make -s -j"$(nproc 2>/dev/null || echo 2)" B=$b OPT='-O0 -g' \
    CFLAGS=--coverage LDFLAGS=--coverage all unit >"$dir/$b.log" 2>&1; then
	cat "$dir/$b.log"
	echo "tests/coverage.sh: the build failed" >&2
	exit 3
fi
rm -f "$dir/$b.log"
rm -rf "$work"
find "$b" -name '*.gcda' -delete
mkdir -p "$work/logs" "$work/gcda"

# One test file: its TAP in logs/SET.tap, its counts under gcda/SET/.
cov1() { # set kind path
	local set=$1 kind=$2 t=$3
	export GCOV_PREFIX=$work/gcda/$set
	case $kind in
	unit) CMOCKA_MESSAGE_OUTPUT=TAP "$t" ;;
	fuzz) tests/fuzz/replay.sh "$b" ;;
	cli) EP_BIN=$dir/$b/envparity EP_BUILD=$dir/$b bats --tap "$t" ;;
	esac >"$work/logs/$set.$kind.${t##*/}.tap" 2>&1
}
export -f cov1
export work dir b

serial() { grep -qxF "${1##*/}" <(sed 's/#.*//; s/[[:space:]]*$//' "$here/tests/serial.list" 2>/dev/null); }
{
	for t in "$b"/tests/test_*; do [ -x "$t" ] && echo "base unit $t"; done
	echo "base fuzz replay"
	for t in tests/cli/*.bats; do serial "$t" || echo "${t##*/} cli $t"; done
} >"$work/jobs"
start=$(date +%s)
echo "running $(wc -l <"$work/jobs") test files, $jobs at a time" >&2
xargs -P "$jobs" -L 1 bash -c 'cov1 "$@"' cov1 <"$work/jobs"
for t in tests/cli/*.bats; do
	serial "$t" && (cov1 "${t##*/}" cli "$t")
done
echo "tests ran in $(($(date +%s) - start)) s" >&2

# What a filtered child wrote to build-cov/ itself.
find "$b" -path "$b/coverage" -prune -o -name '*.gcda' -print |
	while read -r f; do
		mkdir -p "$work/gcda/stray$dir/$(dirname "$f")"
		mv "$f" "$work/gcda/stray$dir/$f"
	done

args=("$dir" "$b" "$work" --jobs "$(nproc 2>/dev/null || echo 2)")
[ "$sanlist" = 1 ] && args+=(--san-list "$here/tests/san.list")
python3 "$here/tests/coverage.py" "${args[@]}"
