#!/usr/bin/env bash
# tests/run.sh: every test envparity has.  Builds the normal and the
# sanitizer (ASan + UBSan) binaries, runs the cmocka unit tests and the
# bats CLI tests on each, and ends with one line "N passed, N failed".
#
#   tests/run.sh              everything
#   tests/run.sh --no-san     skip the sanitizer pass (quicker while editing)
#   tests/run.sh --only PAT   only unit and bats files whose name has PAT
set -u
cd "$(dirname "$0")/.."
top=$PWD

san=1 only=
while [ $# -gt 0 ]; do
	case $1 in
	--no-san) san=0 ;;
	--only) only=$2; shift ;;
	*) echo "usage: tests/run.sh [--no-san] [--only PATTERN]" >&2; exit 2 ;;
	esac
	shift
done

jobs=$(nproc 2>/dev/null || echo 2)
passed=0 failed=0 skipped=0
log=$(mktemp -d "${TMPDIR:-/tmp}/envparity-tests.XXXXXX")
trap 'rm -rf "$log"' EXIT

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

pass() { # build-dir label
	local b=$1 label=$2 t out
	for t in "$b"/tests/test_*; do
		[ -x "$t" ] || continue
		case $t in *"$only"*) ;; *) continue ;; esac
		out=$log/$(basename "$t").$label
		# cmocka writes TAP with this; each binary is its own process.
		CMOCKA_MESSAGE_OUTPUT=TAP "$t" >"$out" 2>&1
		tally "unit $(basename "$t") [$label]" "$out"
	done
	for t in tests/cli/*.bats; do
		[ -f "$t" ] || continue
		case $t in *"$only"*) ;; *) continue ;; esac
		out=$log/$(basename "$t").$label
		EP_BIN=$top/$b/envparity EP_BUILD=$top/$b bats --tap "$t" >"$out" 2>&1
		tally "cli $(basename "$t") [$label]" "$out"
	done
	# The fuzz harnesses on their saved inputs (tests/fuzz/).
	case fuzz_replay in *"$only"*)
		out=$log/fuzz_replay.$label
		tests/fuzz/replay.sh "$b" >"$out" 2>&1
		tally "fuzz replay [$label]" "$out" ;;
	esac
}

build() { # make args...
	if ! make -s -j"$jobs" "$@" all unit >"$log/build" 2>&1; then
		cat "$log/build"
		echo "build failed: make $*"
		failed=$((failed + 1))
		return 1
	fi
}

if build WERROR="${WERROR:-1}"; then
	pass build plain
fi
if [ "$san" = 1 ] && build SAN=1 WERROR="${WERROR:-1}"; then
	# Leaks are errors too; a library's own leaks at exit are not ours.
	export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:exitcode=99
	export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
	export LSAN_OPTIONS=suppressions=$top/tests/lsan.supp:print_suppressions=0
	pass build-san san
fi

# What needs clang: the probe built by it, the libFuzzer targets.
case fuzz_clang in *"$only"*)
	tests/fuzz/clang.sh >"$log/fuzz_clang" 2>&1
	tally "fuzz clang" "$log/fuzz_clang" ;;
esac

echo "$skipped skipped"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
