# bench/lib.sh: timing and table helpers for bench/run.sh (sourced).
#
# Times are "MEDIAN BEST" pairs of seconds; a row prints both, the
# throughput where a byte count is given, and their ratios to a reference
# time (the two-core limit, pip, or the aim).

bench_timer_name() {
	if command -v hyperfine >/dev/null 2>&1; then
		hyperfine --version | head -1
	else
		echo "bash loop of date +%s%N (hyperfine not installed)"
	fi
}

# Wall time of CMD (a shell command line) over RUNS runs after one
# warm-up run, as "MEDIAN BEST" in seconds; PREPARE, when given, runs
# before each run and is not counted.  A command that fails is still
# timed: the bench only reports.  Best is shown beside the median because
# on a shared machine the neighbours only ever add time.
bench_time() { # runs cmd [prepare]
	local runs=$1 cmd=$2 prep=${3:-} json t0 t1 i
	local -a opt=()

	if command -v hyperfine >/dev/null 2>&1; then
		json=$(mktemp "${TMPDIR:-/tmp}/envparity-bench-json.XXXXXX")
		[ -z "$prep" ] || opt=(--prepare "$prep")
		hyperfine --style none --ignore-failure --warmup 1 \
		    --runs "$runs" "${opt[@]}" --export-json "$json" "$cmd" \
		    >/dev/null 2>&1
		jq -r '.results[0].times[]' "$json" 2>/dev/null | bench_stats
		rm -f "$json"
		return
	fi
	bash -c "$cmd" >/dev/null 2>&1
	for ((i = 0; i < runs; i++)); do
		[ -z "$prep" ] || bash -c "$prep" >/dev/null 2>&1
		t0=$(date +%s%N)
		bash -c "$cmd" >/dev/null 2>&1
		t1=$(date +%s%N)
		awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.6f\n", (b - a) / 1e9 }'
	done | bench_stats
}

# "MEDIAN BEST" of the numbers on standard input, one a line.
bench_stats() {
	grep -E '^[0-9.]+$' | sort -g | awk '{ v[NR] = $1 } END {
		if (NR == 0) { print "0 0"; exit }
		if (NR % 2) m = v[(NR + 1) / 2];
		else m = (v[NR / 2] + v[NR / 2 + 1]) / 2;
		printf "%.6f %.6f\n", m, v[1] }'
}

# 0 if this process may drop the page cache (root, and a kernel that lets
# it); dropping it once is the test.
bench_can_drop_caches() {
	[ -w /proc/sys/vm/drop_caches ] || return 1
	sync
	(echo 3 >/proc/sys/vm/drop_caches) 2>/dev/null
}

# Seconds the machine's two-core SHA-256 limit (openssl speed, EVP, 16 KiB
# blocks, two processes) needs for BYTES; empty if openssl cannot say.
bench_sha256_limit() { # bytes
	openssl speed -evp sha256 -multi 2 -seconds 3 -bytes 16384 \
	    2>/dev/null | awk -v t="$1" '
		$1 == "sha256" { sub(/k$/, "", $2); k = $2 }
		END { if (k > 0) printf "%.4f\n", t / (k * 1000) }'
}

bench_size() { # bytes
	awk -v b="$1" 'BEGIN {
		if (b >= 1e9) printf "%.2f GB", b / 1e9;
		else if (b >= 1e6) printf "%.1f MB", b / 1e6;
		else printf "%d bytes", b }'
}

bench_ratio() { # a b: a / b, one decimal (of the first fields)
	awk -v a="${1%% *}" -v b="${2%% *}" 'BEGIN {
		if (b > 0) printf "%.1f", a / b; else printf "?" }'
}

bench_row_head() { # ratio-label
	printf '    %-42s %10s %10s %6s %9s %7s\n' "" "median" "best" "GB/s" \
	    "$1" "(best)"
}

# A row: TIMES is "MEDIAN BEST"; GB/s from the median when BYTES is set;
# the ratios of median and best to REF seconds.
bench_row() { # name times bytes ref [aim]
	local med best
	read -r med best <<<"$2"
	awk -v n="$1" -v s="$med" -v t="${best:-$med}" -v b="$3" -v r="$4" \
	    -v aim="${5:-}" '
	function dur(x) {
		return x < 1 ? sprintf("%.1f ms", x * 1000) : sprintf("%.3f s", x)
	}
	BEGIN {
		g = (b != "" && s > 0) ? sprintf("%.2f", b / s / 1e9) : "";
		x = (r > 0) ? sprintf("%.2fx", s / r) : "";
		y = (r > 0) ? sprintf("%.2fx", t / r) : "";
		printf "    %-42s %10s %10s %6s %9s %7s  %s\n", n, dur(s),
		    dur(t), g, x, y, aim }'
}

# Compare envparity's artifact.<path>.sha256 facts in MANIFEST with
# sha256sum of each file; prints a short verdict.
bench_check_digests() { # manifest file...
	local m=$1 f want got bad=0
	shift
	for f in "$@"; do
		want=$(sha256sum "$f" | cut -d' ' -f1)
		got=$(jq -r --arg k "artifact.$f.sha256" '.facts[$k] // empty' \
		    "$m" 2>/dev/null)
		[ "$want" = "$got" ] || bad=$((bad + 1))
	done
	if [ "$bad" -eq 0 ]; then
		echo "equal to sha256sum's"
	else
		echo "DIFFER from sha256sum's for $bad of $# files"
	fi
}

# A plain site-packages of N wheel-style distributions, for when the test
# fixtures' generator is not there.
bench_gen_site_packages() { # dir n
	local i d
	for ((i = 1; i <= $2; i++)); do
		d=$1/bench_pkg_$i-1.0.$i.dist-info
		mkdir -p "$d"
		printf 'Metadata-Version: 2.1\nName: bench-pkg-%d\nVersion: 1.0.%d\n\n' \
		    "$i" "$i" >"$d/METADATA"
	done
}
