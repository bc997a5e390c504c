#!/usr/bin/env bash
# tests/fuzz/run.sh: run the libFuzzer targets built by `make fuzz-build`.
#
#   tests/fuzz/run.sh [--seconds N | --runs N] [--work DIR] [TARGET...]
#                     [-- LIBFUZZER-ARGS]
#
# Each target (default: all of them, one after the other) runs N seconds
# (default 10) or N inputs on its corpus: build-fuzz/corpus/TARGET, where
# new inputs go, then the seeds in tests/fuzz/corpus/TARGET and the
# regression inputs in tests/fuzz/regress/TARGET, with
# tests/fuzz/TARGET.dict when there is one.  A crash leaves its input in
# build-fuzz/artifacts/TARGET/ (with --work DIR: DIR/corpus/TARGET and
# DIR/artifacts/TARGET, DIR/TARGET.log, for a scratch run).  Prints one line per target with the
# executions libFuzzer reports, and fails if any target crashed.
set -u
cd "$(dirname "$0")/../.."

seconds=10 runs= extra=() base=build-fuzz
targets=()
while [ $# -gt 0 ]; do
	case $1 in
	--seconds) seconds=$2; shift ;;
	--runs) runs=$2; shift ;;
	--work) base=$2; shift ;;
	--) shift; extra=("$@"); break ;;
	-*) echo "usage: tests/fuzz/run.sh [--seconds N | --runs N] [--work DIR] [TARGET...] [-- ARGS]" >&2
	    exit 2 ;;
	*) targets+=("$1") ;;
	esac
	shift
done
if [ ${#targets[@]} -eq 0 ]; then
	for f in tests/fuzz/fuzz_*.c; do
		t=${f#tests/fuzz/fuzz_}
		targets+=("${t%.c}")
	done
fi

# A generous timeout per input still catches a real hang.
limit=(-max_total_time="$seconds")
[ -n "$runs" ] && limit=(-runs="$runs")

crashed=0 total=0
for t in "${targets[@]}"; do
	bin=build-fuzz/fuzz_$t
	if [ ! -x "$bin" ]; then
		echo "$t: no $bin (make fuzz-build)" >&2
		crashed=1
		continue
	fi
	work=$base/corpus/$t art=$base/artifacts/$t
	mkdir -p "$work" "$art"
	dirs=("$work" "tests/fuzz/corpus/$t")
	[ -d "tests/fuzz/regress/$t" ] && dirs+=("tests/fuzz/regress/$t")
	dict=()
	[ -f "tests/fuzz/$t.dict" ] && dict=(-dict="tests/fuzz/$t.dict")
	log=$base/$t.log
	"$bin" "${limit[@]}" -timeout=30 -rss_limit_mb=2048 \
	    -print_final_stats=1 -artifact_prefix="$art/" "${dict[@]}" \
	    "${extra[@]}" "${dirs[@]}" >"$log" 2>&1
	rc=$?
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
	cov=$(grep -oE 'cov: [0-9]+' "$log" | tail -1)
	total=$((total + ${execs:-0}))
	if [ "$rc" -ne 0 ]; then
		crashed=1
		echo "$t: CRASHED after ${execs:-?} executions (exit $rc); input in $art/"
		grep -E '^(==[0-9]+==ERROR|SUMMARY|.*broken:|.*runtime error)' "$log" | head -5 |
		    sed 's/^/    /'
	else
		echo "$t: ${execs:-?} executions, ${cov:-cov: ?}"
	fi
done
echo "fuzz: ${#targets[@]} targets, $total executions, $([ $crashed = 0 ] && echo "no crash" || echo "CRASHES")"
exit $crashed
