#!/usr/bin/env bats
# `envparity probe`: the runner of the reference workload.
#
# Most tests run a TEST DOUBLE of envparity-probe (tests/doubles/
# fake_probe.sh): it prints contract lines from canned data and, chosen by
# FAKE_PROBE_MODE, misbehaves the way a probe on a broken GPU stack could
# (runs that differ, a hang, a crash, garbage, a missing workload, a wrong
# known answer), which the real probe on this GPU-less machine never
# shows.  The last tests run the real envparity-probe built beside the
# binary under test, CPU backend end to end; they skip, by name, where it
# has not been built.
#
# Tests that run the GPU backends capture the machine for the library
# paths; they share one cache and name an empty --site-packages so that
# only the first pays for hashing the CUDA libraries.

load setup

FAKE=$BATS_TEST_DIRNAME/../doubles/fake_probe.sh
REAL=${EP_BUILD:-$(dirname "$EP")}/envparity-probe

# Run envparity probe with the double and a state directory of its own;
# arguments go to envparity probe.
fake() {
	mkdir -p "$T/state" "$T/site"
	FAKE_PROBE_STATE=$T/state XDG_CACHE_HOME=$BATS_FILE_TMPDIR/cache \
		run "$EP" probe --probe "$FAKE" --no-discover \
		--site-packages "$T/site" "$@"
}

sha() { printf '%s' "$1" | sha256sum | cut -c1-64; }

@test "probe: identical runs pass, facts recorded, the GPU backends skip with the reason" {
	fake -o "$T/f.json"
	[ "$status" -eq 0 ]
	[[ "$output" == *"cpu    kat             pass  identical in 5 runs; known answer exact in 5 runs;"* ]]
	[[ "$output" == *"cpu    gemm            pass  identical in 5 runs;"* ]]
	[[ "$output" == *"cpu    atomic          pass  canary: identical in 5 runs;"* ]]
	[[ "$output" == *"cuda   -               skip  no NVIDIA driver (libcuda.so.1 not found)"* ]]
	[[ "$output" == *"cudnn  -               skip  no NVIDIA driver (libcuda.so.1 not found)"* ]]
	[[ "$output" == *"probe: 5 passed, 0 failed, 0 errors, 3 skipped"* ]]
	# Five fresh processes per backend, but a skipped backend runs once.
	[ "$(cat "$T/state/count.cpu")" = 5 ]
	[ "$(cat "$T/state/count.cuda")" = 1 ]
	[ "$(fact "$T/f.json" probe.cpu.gemm.sha256)" = "$(sha cpu/gemm)" ]
	[ "$(fact "$T/f.json" probe.cpu.domain)" = "x86_64 envparity-probe 1" ]
	# A canary's hash binds nothing; a skipped backend has no domain.
	[ -z "$(fact "$T/f.json" probe.cpu.atomic.sha256)" ]
	[ -z "$(fact "$T/f.json" probe.domain)" ]
	validate_schema manifest "$T/f.json"
}

@test "probe: a run-to-run difference fails and names the runs that differ" {
	FAKE_PROBE_MODE=nondet fake --backend cpu -o "$T/f.json"
	[ "$status" -eq 1 ]
	[[ "$output" == *"cpu    gemm            fail  runs 2 and 4 differ from run 1 (3 distinct outputs);"* ]]
	[[ "$output" == *"cpu    reduce          pass  identical in 5 runs;"* ]]
	[ -z "$(fact "$T/f.json" probe.cpu.gemm.sha256)" ]
	[ "$(fact "$T/f.json" probe.cpu.reduce.sha256)" = "$(sha cpu/reduce)" ]
}

@test "probe: a hung run is killed with its children; the other runs and backends go on" {
	FAKE_PROBE_GPU=1 FAKE_PROBE_MODE=hang FAKE_PROBE_ON=cuda fake \
		--runs 3 --timeout 1
	[ "$status" -eq 1 ]
	[[ "$output" == *"cuda   run 2           fail  run 2 of cuda: hung, killed after 1 s"* ]]
	[[ "$output" == *"cuda   gemm            pass  identical in 2 runs (of 3);"* ]]
	[[ "$output" == *"cpu    gemm            pass  identical in 3 runs;"* ]]
	[[ "$output" == *"cublas sgemm_pedantic  pass  identical in 3 runs;"* ]]
	[[ "$output" == *"cudnn  conv_fwd        pass  identical in 3 runs;"* ]]
	[ "$(cat "$T/state/count.cuda")" = 3 ]
	# The hung probe's child went with it (at most a zombie is left).
	pid=$(cat "$T/state/hang.pid")
	st=$(ps -o stat= -p "$pid" || true)
	[ -z "$st" ] || [[ "$st" == Z* ]]
}

@test "probe: a crashed run is reported with its signal and survived" {
	FAKE_PROBE_MODE=crash fake
	[ "$status" -eq 1 ]
	[[ "$output" == *"cpu    run 2           fail  run 2 of cpu: crashed (SIGSEGV)"* ]]
	[[ "$output" == *"cpu    kat             pass  identical in 4 runs (of 5);"* ]]
	[[ "$output" == *"cuda   -               skip  no NVIDIA driver"* ]]
	[[ "$output" == *"probe: 5 passed, 1 failed, 0 errors, 3 skipped"* ]]
}

@test "probe: garbage output is an error quoting the line, made printable" {
	FAKE_PROBE_MODE=garbage fake --backend cpu
	[ "$status" -eq 1 ]
	[[ "$output" == *'cpu    run 2           error run 2 of cpu: garbage output: Segmentation fault? \x01not json (not JSON ('* ]]
	[[ "$output" == *"cpu    gemm            pass  identical in 4 runs (of 5);"* ]]
}

@test "probe: lines of another schema are rejected" {
	FAKE_PROBE_MODE=schema FAKE_PROBE_RUN=1 fake --backend cpu --runs 2
	[ "$status" -eq 1 ]
	[[ "$output" == *'run 1 of cpu: garbage output: {"schema": "envparity/probe@2",'*'(unknown schema "envparity/probe@2" (this envparity reads envparity/probe@1))'* ]]
}

@test "probe: a workload missing from the output is an error" {
	FAKE_PROBE_MODE=missing fake --backend cpu --runs 3 -o "$T/f.json"
	[ "$status" -eq 1 ]
	[[ "$output" == *"cpu    reduce          error missing from the output of runs 1, 2 and 3"* ]]
	[[ "$output" == *"cpu    gemm            pass"* ]]
	[ -z "$(fact "$T/f.json" probe.cpu.reduce.sha256)" ]
}

@test "probe: a wrong known answer fails, naming the run" {
	FAKE_PROBE_MODE=kat_wrong FAKE_PROBE_RUN=3 fake --backend cpu
	[ "$status" -eq 1 ]
	[[ "$output" == *"cpu    kat             fail  run 3 differs from run 1 (2 distinct outputs); known answer wrong in run 3;"* ]]
}

@test "probe: a probe that exits non-zero is an error with its standard error" {
	FAKE_PROBE_MODE=exit3 fake --backend cpu --runs 2
	[ "$status" -eq 1 ]
	[[ "$output" == *"run 1 of cpu: exited with status 3; stderr: envparity-probe: cannot start: out of file descriptors"* ]]
	[[ "$output" == *"run 2 of cpu: exited with status 3;"* ]]
}

@test "probe: --require-gpu turns a skipped GPU backend into a failure" {
	fake --require-gpu --runs 2
	[ "$status" -eq 1 ]
	[[ "$output" == *"cuda   -               fail  --require-gpu: no NVIDIA driver (libcuda.so.1 not found)"* ]]
	[[ "$output" == *"cublas -               fail  --require-gpu: no NVIDIA driver"* ]]
	[[ "$output" == *"cpu    gemm            pass"* ]]
	fake --backend cuda --runs 2
	[ "$status" -eq 0 ]
	[[ "$output" == *"cuda   -               skip  no NVIDIA driver"* ]]
}

@test "probe: the GPU backends load the libraries capture found; the domain and the canary" {
	[ -e /usr/local/cuda/lib64/libcublas.so.13 ] || skip "no CUDA 13 libraries"
	FAKE_PROBE_GPU=1 fake --runs 3 -o "$T/f.json"
	[ "$status" -eq 0 ]
	XDG_CACHE_HOME=$BATS_FILE_TMPDIR/cache "$EP" capture -q --no-discover \
		--site-packages "$T/site" -o "$T/cap.json"
	want="cublaslt=$(fact "$T/cap.json" lib.cublaslt.path)"
	want="$want cublas=$(fact "$T/cap.json" lib.cublas.path)"
	want="$want cudnn=$(fact "$T/cap.json" lib.cudnn.path)"
	[ "$(sort -u "$T/state/args.cublas")" = "$want" ]
	[ "$(sort -u "$T/state/args.cuda")" = "$want" ]
	# The CPU backend loads no CUDA library.
	[ "$(sort -u "$T/state/args.cpu")" = "" ]
	[[ "$output" == *"cuda   atomic          pass  canary: varied across runs (3 distinct outputs): the check can see non-determinism;"* ]]
	[ -z "$(fact "$T/f.json" probe.cuda.atomic.sha256)" ]
	[ "$(fact "$T/f.json" probe.cublas.sgemm_pedantic.sha256)" = "$(sha cublas/sgemm_pedantic)" ]
	[ "$(fact "$T/f.json" probe.domain)" = "NVIDIA H100 80GB HBM3 cc 9.0 132 SMs driver 580.159.04 cuda 13.0 cublas 13.1.0 cudnn 9.19.0 envparity-probe 1" ]
}

@test "probe: the binary from --probe, ENVPARITY_PROBE, beside envparity, then PATH" {
	unset ENVPARITY_PROBE
	mkdir -p "$T/bin" "$T/path" "$T/empty"
	cp "$EP" "$T/bin/envparity"
	# Nowhere: exit 3, saying where it looked.
	PATH=$T/empty run "$T/bin/envparity" probe --backend cpu
	[ "$status" -eq 3 ]
	[[ "$output" == *"envparity-probe not found in $T/bin nor on PATH"* ]]
	# On PATH.
	cp "$FAKE" "$T/path/envparity-probe"
	PATH=$T/path:/usr/bin:/bin run "$T/bin/envparity" probe --backend cpu --runs 1
	[ "$status" -eq 0 ]
	[[ "$output" == *"probe: $T/path/envparity-probe, 1 run per backend"* ]]
	# Beside the binary wins over PATH.
	cp "$FAKE" "$T/bin/envparity-probe"
	PATH=$T/path:/usr/bin:/bin run "$T/bin/envparity" probe --backend cpu --runs 1
	[ "$status" -eq 0 ]
	[[ "$output" == *"probe: $T/bin/envparity-probe, 1 run per backend"* ]]
	# ENVPARITY_PROBE wins over both, and a bad one is not passed over.
	ENVPARITY_PROBE=$FAKE run "$T/bin/envparity" probe --backend cpu --runs 1
	[[ "$output" == *"probe: $FAKE, 1 run per backend"* ]]
	ENVPARITY_PROBE=$T/nothing run "$T/bin/envparity" probe --backend cpu
	[ "$status" -eq 3 ]
	[[ "$output" == *"ENVPARITY_PROBE=$T/nothing: not an executable file"* ]]
	run "$EP" probe --probe "$T/bin" --backend cpu
	[ "$status" -eq 3 ]
	[[ "$output" == *"--probe $T/bin: not an executable file"* ]]
}

@test "probe: a probe that cannot be executed is exit 3" {
	printf 'not a program\n' >"$T/probe"
	chmod +x "$T/probe"
	run "$EP" probe --probe "$T/probe" --backend cpu
	[ "$status" -eq 3 ]
	[[ "$output" == *"$T/probe: cannot run: Exec format error"* ]]
}

@test "probe: usage errors are exit 2" {
	run "$EP" probe --runs 0
	[ "$status" -eq 2 ]
	[[ "$output" == *"--runs 0: not a number from 1 to 100"* ]]
	run "$EP" probe --runs 3x
	[ "$status" -eq 2 ]
	run "$EP" probe --backend gpu
	[ "$status" -eq 2 ]
	[[ "$output" == *"--backend gpu: not cpu, cuda, cublas, cudnn or all"* ]]
	run "$EP" probe --timeout -1
	[ "$status" -eq 2 ]
	run "$EP" probe extra
	[ "$status" -eq 2 ]
	run "$EP" probe --help
	[ "$status" -eq 0 ]
	[[ "$output" == *"usage: envparity probe"* ]]
}

# The real envparity-probe (gpu_probes/), built beside the binary.
need_real() {
	[ -x "$REAL" ] || skip "envparity-probe not built in $(dirname "$REAL")"
}

@test "probe: the real CPU backend end to end: 5 runs identical, known answer exact" {
	need_real
	run "$EP" probe --probe "$REAL" --backend cpu -o "$T/f.json"
	[ "$status" -eq 0 ]
	for w in kat gemm reduce; do
		[[ "$output" == *"cpu    $w"*"pass  identical in 5 runs;"* ]]
		[[ "$(fact "$T/f.json" probe.cpu.$w.sha256)" =~ ^[0-9a-f]{64}$ ]]
	done
	[[ "$output" == *"cpu    kat             pass  identical in 5 runs; known answer exact in 5 runs;"* ]]
	[[ "$output" == *"cpu    atomic          pass  canary: "* ]]
	[[ "$(fact "$T/f.json" probe.cpu.domain)" == "$(uname -m) envparity-probe "* ]]
	# Another five runs, five other processes: the same hashes.
	run "$EP" probe --probe "$REAL" --backend cpu -o "$T/g.json"
	[ "$status" -eq 0 ]
	[ "$(jq -S .facts "$T/f.json")" = "$(jq -S .facts "$T/g.json")" ]
}

@test "probe: the real GPU backends skip here with a reason" {
	need_real
	if ldconfig -p 2>/dev/null | grep -q 'libcuda\.so\.1 '; then
		skip "this machine has an NVIDIA driver"
	fi
	mkdir -p "$T/site"
	XDG_CACHE_HOME=$BATS_FILE_TMPDIR/cache run "$EP" probe --probe "$REAL" \
		--no-discover --site-packages "$T/site" --runs 2
	[ "$status" -eq 0 ]
	for b in cuda cublas cudnn; do
		[[ "$output" == *"$b"*" -               skip  "?* ]]
	done
	[[ "$output" == *"cpu    gemm            pass  identical in 2 runs;"* ]]
	XDG_CACHE_HOME=$BATS_FILE_TMPDIR/cache run "$EP" probe --probe "$REAL" \
		--no-discover --site-packages "$T/site" --runs 2 --require-gpu
	[ "$status" -eq 1 ]
	[[ "$output" == *"cuda   -               fail  --require-gpu: "?* ]]
}
