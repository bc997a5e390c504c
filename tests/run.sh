#!/usr/bin/env bash
# tests/run.sh: every test envparity has.  Builds the normal and the
# sanitizer (ASan + UBSan) binaries, runs the cmocka unit tests, the fuzz
# replay and the bats CLI tests on each, and ends with one line
# "N passed, N failed".
#
#   tests/run.sh              everything
#   tests/run.sh --no-san     skip the sanitizer pass (quicker while editing)
#   tests/run.sh --only PAT   only unit and bats files whose name has PAT;
#                             builds only what those need
#   tests/run.sh --san-all    every bats file in the sanitizer pass too
#   tests/run.sh --jobs N     N test files at once (default: twice the
#                             cores; EP_TEST_JOBS too)
#
# The plain pass runs every test.  The sanitizer pass runs every unit
# test and fuzz input, and the bats files of tests/san.list: those that
# reach C code no unit test does (tests/coverage.sh --san-list made it).
# Test files run side by side, each to its own log, the slowest first;
# the files of tests/serial.list (a cluster of daemons on this host) run
# one after the other, as one job among the others.  The report is in a
# stable order whatever finished first.
set -u
cd "$(dirname "$0")/.."
top=$PWD

usage() {
	echo "usage: tests/run.sh [--no-san] [--san-all] [--jobs N] [--only PATTERN]" >&2
	exit 2
}
san=1 san_all=0 only= jobs=${EP_TEST_JOBS:-}
while [ $# -gt 0 ]; do
	case $1 in
	--no-san) san=0 ;;
	--san-all) san_all=1 ;;
	--only) [ $# -ge 2 ] || usage; only=$2; shift ;;
	--jobs) [ $# -ge 2 ] && [[ $2 =~ ^[1-9][0-9]*$ ]] || usage; jobs=$2; shift ;;
	*) usage ;;
	esac
	shift
done
ncpu=$(nproc 2>/dev/null || echo 2)
[ -n "$jobs" ] || jobs=$((ncpu * 2))

passed=0 failed=0 skipped=0
log=$(mktemp -d "${TMPDIR:-/tmp}/envparity-tests.XXXXXX")
trap 'rm -rf "$log"' EXIT

# What --only selects: unit tests by "tests/test_NAME" (tests/unit and,
# as test_probe_NAME, tests/probe), bats files by "tests/cli/NAME.bats",
# the fuzz steps by "fuzz_replay" and "fuzz_clang".
match() { case $1 in *"$only"*) return 0 ;; esac; return 1; }
units=() bats=()
for f in tests/unit/test_*.c tests/probe/test_*.c; do
	[ -f "$f" ] || continue
	n=${f##*/}; n=${n%.c}
	case $f in tests/probe/*) n=test_probe_${n#test_} ;; esac
	match "tests/$n" && units+=("$n")
done
for f in tests/cli/*.bats; do
	[ -f "$f" ] && match "$f" && bats+=("$f")
done
replay=0; match fuzz_replay && replay=1

# A list of bats file names (tests/san.list, tests/serial.list): one
# a line, # comments.
listed() { # list-file bats-path
	grep -qxF "${2##*/}" <(sed 's/#.*//; s/[[:space:]]*$//' "$1")
}
san_bats=()
for t in ${bats[@]+"${bats[@]}"}; do
	if [ "$san_all" = 1 ] || listed tests/san.list "$t"; then
		san_bats+=("$t")
	fi
done

# Count TAP lines of one suite's output, echo failures in full.  A
# "# SKIP" directive is a skip whatever precedes it (cmocka writes
# "not ok N # SKIP" for a skipped test).
tally() { # name file
	local p f s
	s=$(grep -cE '^(not )?ok .*# (SKIP|skip)' "$2")
	p=$(grep -E '^ok ' "$2" | grep -cvE '# (SKIP|skip)')
	f=$(grep -E '^not ok ' "$2" | grep -cvE '# (SKIP|skip)')
	passed=$((passed + p)) failed=$((failed + f)) skipped=$((skipped + s))
	printf '%-44s %4d passed, %d failed, %d skipped\n' "$1" "$p" "$f" "$s"
	if [ "$f" -gt 0 ] || ! grep -qE '^(not )?ok ' "$2"; then
		sed 's/^/    /' "$2"
		[ "$f" -gt 0 ] || { failed=$((failed + 1)); echo "    (no test ran: counted as a failure)"; }
	fi
}

# Build only what the selected tests need: each unit test by name,
# envparity and envparity-probe for bats files, the replay harnesses.
build() { # label make-args...
	local label=$1 b t targets=()
	shift
	b=build; [ "$label" = san ] && b=build-san
	for t in ${units[@]+"${units[@]}"}; do targets+=("$b/tests/$t"); done
	[ "$label" = plain ] && [ ${#bats[@]} -gt 0 ] && targets+=(all)
	[ "$label" = san ] && [ ${#san_bats[@]} -gt 0 ] && targets+=(all)
	[ "$replay" = 1 ] && targets+=(fuzz-replay)
	[ ${#targets[@]} -gt 0 ] || return 0
	if ! make -s -j"$ncpu" "$@" "${targets[@]}" >"$log/build" 2>&1; then
		cat "$log/build"
		echo "build failed: make $*"
		failed=$((failed + 1))
		return 1
	fi
}

# The user and system CPU seconds of a shell's children, from what its
# times wrote (times must run in that shell: a pipe or $(...) would ask
# a fresh subshell).
cpu_used() { # times-output-file
	awk 'NR == 2 {
		s = 0
		for (i = 1; i <= 2; i++) { split($i, m, "m"); s += m[1] * 60 + m[2] }
		printf "%d", s + 0.5 }' "$1"
	rm -f "$1"
}
export -f cpu_used

# One test file, to its own log; the sanitizers' settings for san.
# Prints nothing: the report is read from the logs afterwards.
run1() { # label kind name
	local label=$1 kind=$2 t=$3 b=build out start filter
	if [ "$kind" = serial ]; then
		# The files of tests/serial.list, one after the other, in one
		# place of the pool.
		while read -r label kind t; do (run1 "$label" "$kind" "$t"); done <"$log/serial"
		return
	fi
	[ "$label" = san ] && b=build-san
	out=$log/$kind.${t##*/}.$label
	start=$(date +%s)
	if [ "$label" = san ]; then
		# Leaks are errors too; a library's own leaks at exit are not ours.
		export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:exitcode=99
		export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
		export LSAN_OPTIONS=suppressions=$top/tests/lsan.supp:print_suppressions=0
	fi
	case $kind in
	unit)	# cmocka writes TAP with this; each binary is its own process.
		CMOCKA_MESSAGE_OUTPUT=TAP "$b/tests/$t" >"$out" 2>&1 ;;
	cli)	# A test tagged plain-only runs none of envparity's binaries
		# (tests/c-reach.sh finds them): the sanitizers have nothing
		# to watch there.
		filter=()
		[ "$label" = san ] && filter=(--filter-tags '!plain-only')
		EP_BIN=$top/$b/envparity EP_BUILD=$top/$b bats --tap "${filter[@]}" "$t" >"$out" 2>&1 ;;
	fuzz)	# The fuzz harnesses on their saved inputs (tests/fuzz/).
		tests/fuzz/replay.sh "$b" >"$out" 2>&1 ;;
	clang)	# What needs clang: the probe built by it, the libFuzzer
		# targets (their own build folder, build-fuzz/).
		tests/fuzz/clang.sh >"$out" 2>&1 ;;
	esac
	# Wall seconds, then the CPU seconds of everything it waited for.
	times >"$out.cpu"
	echo "$kind.${t##*/}.$label $(($(date +%s) - start)) $(cpu_used "$out.cpu")" >"$out.time"
}
export -f run1
export log top
# What the test files of this run may share (tests/cli/debroot.bash: one
# Debian package a run); removed with the logs.
export EP_TEST_RUN_DIR=$log

# The jobs of one pass: "label kind name" lines.
jobs_of() { # label
	local t
	for t in ${units[@]+"${units[@]}"}; do echo "$1 unit $t"; done
	if [ "$1" = plain ]; then
		for t in ${bats[@]+"${bats[@]}"}; do echo "$1 cli $t"; done
	else
		for t in ${san_bats[@]+"${san_bats[@]}"}; do echo "$1 cli $t"; done
	fi
	[ "$replay" = 1 ] && echo "$1 fuzz replay"
}

# Each phase's wall seconds, for build/test-phases.
phase_start=$(date +%s) phases=
phase() { # name
	local now
	now=$(date +%s)
	phases+="$1 $((now - phase_start))"$'\n'
	phase_start=$now
}

passes=()
if build plain WERROR="${WERROR:-1}"; then
	passes+=(plain)
fi
if [ "$san" = 1 ] && build san SAN=1 WERROR="${WERROR:-1}"; then
	passes+=(san)
fi
phase build

# Every job of every pass built, side by side: the slowest first, by the
# times of the last run here (build/test-times) or, in a fresh clone, by
# those committed (tests/times.list), so that no long file starts last.
# The files of tests/serial.list run one after the other, as one job
# among the others, first.
times=build/test-times order=$times
[ -s "$order" ] || order=tests/times.list
: >"$log/jobs" && : >"$log/serial"
for p in ${passes[@]+"${passes[@]}"}; do jobs_of "$p" >>"$log/jobs"; done
case fuzz_clang in *"$only"*) echo "plain clang fuzz_clang" >>"$log/jobs" ;; esac
while read -r label kind t; do
	if [ "$kind" = cli ] && listed tests/serial.list "$t"; then
		echo "$label $kind $t" >>"$log/serial"
		continue
	fi
	s=$(awk -v k="$kind.${t##*/}.$label" '$1 == k { print $2 }' "$order" 2>/dev/null)
	echo "${s:-9999} $label $kind $t"
done <"$log/jobs" | sort -k1,1nr | cut -d' ' -f2- >"$log/parallel"
if [ -s "$log/serial" ]; then
	{ echo "- serial -"; cat "$log/parallel"; } >"$log/parallel.new" &&
	    mv "$log/parallel.new" "$log/parallel"
fi
xargs -P "$jobs" -L 1 bash -c 'run1 "$@"' run1 <"$log/parallel"
phase tests
if [ -d build ]; then
	cat "$log"/*.time 2>/dev/null | LC_ALL=C sort -k1,1 >"$times.new" &&
	    { [ -f "$times" ] && LC_ALL=C join -v1 "$times" "$times.new"; cat "$times.new"; } |
	    LC_ALL=C sort -k1,1 >"$times.tmp" && mv "$times.tmp" "$times"
	rm -f "$times.new"
fi

# The report, in the order the tests were listed.
for p in ${passes[@]+"${passes[@]}"}; do
	while read -r label kind t; do
		case $kind in
		unit) name="unit $t" ;;
		cli) name="cli ${t##*/}" ;;
		fuzz) name="fuzz replay" ;;
		esac
		tally "$name [$label]" "$log/$kind.${t##*/}.$label"
	done < <(jobs_of "$p")
done
if [ "$san" = 1 ] && [ ${#bats[@]} -gt ${#san_bats[@]} ]; then
	echo "$((${#bats[@]} - ${#san_bats[@]})) bats files not in tests/san.list: plain pass only (--san-all runs them)"
fi

case fuzz_clang in *"$only"*) tally "fuzz clang" "$log/clang.fuzz_clang.plain" ;; esac
[ -d build ] && printf '%s' "$phases" >build/test-phases

echo "$skipped skipped"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
