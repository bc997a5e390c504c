#!/usr/bin/env bash
# tests/fuzz/replay.sh BUILD: replay every saved input through the fuzz
# harnesses that `make unit` built with the project's compiler
# (BUILD/fuzz/fuzz_TARGET, driver.c's main): the regression inputs of
# tests/fuzz/regress/TARGET (each once a crash, fixed since) and the seeds
# of tests/fuzz/corpus/TARGET.  TAP on standard output, one test per
# target; a target whose harness aborts (a sanitizer error, a broken
# promise) fails, with its output.  tests/run.sh runs it for the plain
# and the sanitizer builds.
set -u
cd "$(dirname "$0")/../.."
b=${1:?usage: tests/fuzz/replay.sh BUILD-DIR}

targets=()
for f in tests/fuzz/fuzz_*.c; do
	t=${f#tests/fuzz/fuzz_}
	targets+=("${t%.c}")
done
err=$(mktemp "${TMPDIR:-/tmp}/envparity-replay.XXXXXX")
trap 'rm -f "$err"' EXIT
echo "1..${#targets[@]}"
n=0
for t in "${targets[@]}"; do
	n=$((n + 1))
	dirs=("tests/fuzz/corpus/$t")
	nreg=0
	if [ -d "tests/fuzz/regress/$t" ]; then
		dirs+=("tests/fuzz/regress/$t")
		nreg=$(find "tests/fuzz/regress/$t" -type f | wc -l)
	fi
	if out=$("$b/fuzz/fuzz_$t" "${dirs[@]}" 2>"$err"); then
		echo "ok $n - fuzz $t: ${out##*: } replayed ($nreg regression)"
	else
		echo "not ok $n - fuzz $t: a saved input fails"
		tail -40 "$err" | sed 's/^/# /'
	fi
done
