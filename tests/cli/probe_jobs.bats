#!/usr/bin/env bats
# probe_jobs.bats: how the runs of the reference workload are scheduled.
# Run 1 of every backend on every GPU goes at once, then the other runs at
# once, at most --jobs processes at a time, each with its own deadline.
# There is no GPU here: the GPUs are played by the NVML TEST DOUBLE
# (tests/doubles/fake_nvml.c, FAKE_NVML_GPUS=N H100s) and the probe TEST
# DOUBLE (tests/doubles/fake_probe.sh), which logs when each process
# started and ended and can wait at a barrier for the others of its wave.

load setup
load probe_gpus

# The most processes the log ($1, default the state's) shows at work at
# once (an end at the same nanosecond as a start counts first).
most_at_once() {
	awk '$1 == "start" { print $5, 1 } $1 == "end" { print $5, 0 }' "${1:-$T/state/log}" |
	    sort -k1,1n -k2,2n |
	    awk '{ n += $2 ? 1 : -1; if (n > m) m = n } END { print m + 0 }'
}

# The time of the first or last start or end ($1 min|max, $2 start|end) of
# the runs matching $3 (an awk condition on $4, the run).
edge() {
	awk -v f="$1" -v what="$2" "\$1 == what && ($3) { if (v == \"\" || (f == \"min\" ? \$5 < v : \$5 > v)) v = \$5 } END { print v }" "$T/state/log"
}


@test "probe --jobs: run 1 of every backend on every GPU at once, then the other runs at once" {
	# 1 CPU + 3 GPU backends x 2 GPUs = 7 processes in run 1; 14 in
	# runs 2 and 3.  Each waits until all of its wave have started: one
	# wave at a time, each whole, or the double logs barrier-timeout.
	FAKE_PROBE_BARRIER_WAVE=7,14 gpus 2 --runs 3 --jobs 16 --timeout 30 -o "$T/f.json"
	[ "$status" -eq 0 ]
	! grep -q barrier-timeout "$T/state/log"
	[ "$(grep -c '^start' "$T/state/log")" = 21 ]
	# Every run 1 ended before any later run started.
	[ "$(edge max end '$4 == 1')" -lt "$(edge min start '$4 > 1')" ]
	[ "$(most_at_once)" = 14 ]
	[[ "$output" == *"at most 16 at once"* ]]
	# And the verdicts are those of runs one after the other.
	[[ "$output" == *"cuda:1 gemm            pass  identical in 3 runs;"* ]]
	[[ "$output" == *"cudnn  conv_fwd gpus   pass  identical on GPUs 0 and 1"* ]]
	[ -n "$(fact "$T/f.json" probe.cublas.gpu1.sgemm_pedantic.sha256)" ]
}

@test "probe --jobs 1: one process at a time, in order, each run numbered" {
	gpus 2 --runs 2 --jobs 1
	[ "$status" -eq 0 ]
	[ "$(most_at_once)" = 1 ]
	[ "$(awk '$1 == "start" { print $2, $3, $4 }' "$T/state/log" | tr '\n' ',')" = \
	    "cpu - 1,cuda 0 1,cuda 1 1,cublas 0 1,cublas 1 1,cudnn 0 1,cudnn 1 1,cpu - 2,cuda 0 2,cuda 1 2,cublas 0 2,cublas 1 2,cudnn 0 2,cudnn 1 2," ]
}

@test "probe --jobs 3: never more than 3 at once, and 3 at once" {
	# Wave 2's first three wait for one another: they could not pass
	# one at a time.
	FAKE_PROBE_BARRIER_WAVE=1,3 gpus 2 --runs 3 --jobs 3 --timeout 30
	[ "$status" -eq 0 ]
	! grep -q barrier-timeout "$T/state/log"
	[ "$(most_at_once)" = 3 ]
	[ "$(grep -c '^start' "$T/state/log")" = 21 ]
}

@test "probe --jobs 1: each run's deadline starts with it, not with the first" {
	# Five runs of 0.6 s one after the other take 3 s; each has 2 s.
	FAKE_PROBE_SLEEP=0.6 gpus 1 --backend cpu --runs 5 --jobs 1 --timeout 2
	[ "$status" -eq 0 ]
	[[ "$output" == *"cpu    gemm            pass  identical in 5 runs;"* ]]
	[[ "$output" != *"hung"* ]]
}

@test "probe: a run that hangs frees its place for the next, which still runs" {
	FAKE_PROBE_MODE=hang FAKE_PROBE_RUN=2 gpus 1 --backend cpu --runs 4 --jobs 1 --timeout 1
	[ "$status" -eq 1 ]
	[[ "$output" == *"run 2 of cpu: hung, killed after 1 s"* ]]
	[[ "$output" == *"cpu    gemm            pass  identical in 3 runs (of 4);"* ]]
	[ "$(cat "$T/state/count.cpu")" = 4 ]
	# Its child went with it.
	! kill -0 "$(cat "$T/state/hang.pid")" 2>/dev/null
}

@test "probe: a backend that skips in run 1 is not started again, whatever --jobs" {
	mkdir -p "$T/state"
	run env FAKE_PROBE_STATE="$T/state" "$EP" probe --probe "$FAKE" --runs 5 --jobs 8
	[ "$status" -eq 0 ]
	[ "$(cat "$T/state/count.cpu")" = 5 ]
	[ "$(cat "$T/state/count.cuda")" = 1 ]
	[ "$(cat "$T/state/count.cudnn")" = 1 ]
}

@test "probe and check: --jobs must be 1 to 256" {
	for bad in 0 257 -1 x 3x "+3" ""; do
		run "$EP" probe --jobs "$bad"
		[ "$status" -eq 2 ]
		[[ "$output" == *"--jobs $bad: not a number from 1 to 256"* ]]
		run "$EP" check --runs 1 --jobs "$bad"
		[ "$status" -eq 2 ]
		[[ "$output" == *"--jobs $bad: not a number from 1 to 256"* ]]
	done
}

@test "check --runs --jobs: the same scheduling under check" {
	FAKE_NVML_GPUS=2 LD_LIBRARY_PATH=$BATS_FILE_TMPDIR/drv FAKE_PROBE_GPU=1 \
	    run "$EP" bless --no-discover --site-packages "$BATS_FILE_TMPDIR/site"
	[ "$status" -eq 0 ]
	mkdir -p "$T/state"
	FAKE_NVML_GPUS=2 LD_LIBRARY_PATH=$BATS_FILE_TMPDIR/drv FAKE_PROBE_GPU=1 \
	    FAKE_PROBE_STATE=$T/state FAKE_PROBE_BARRIER_WAVE=7,7 \
	    run "$EP" check --no-discover --site-packages "$BATS_FILE_TMPDIR/site" \
	    --probe "$FAKE" --runs 2 --jobs 7 --timeout 30
	[ "$status" -eq 0 ]
	! grep -q barrier-timeout "$T/state/log"
	[ "$(most_at_once)" = 7 ]
}

@test "probe: a GPU in exclusive-process mode gets one process at a time, the others side by side" {
	# GPU 1 takes one context at a time (the NVML double says so to the
	# capture; the probe double fails a second context there, as CUDA
	# does).  Its processes go one after the other; GPU 0's together.
	FAKE_NVML_HEALTH=1:compute_mode=3 FAKE_PROBE_EXCLUSIVE=1 FAKE_PROBE_SLEEP=0.3 \
	    gpus 2 --runs 3 --jobs 16
	[ "$status" -eq 0 ]
	! grep -q '^busy' "$T/state/log"
	[[ "$output" == *"cuda:1 gemm            pass  identical in 3 runs;"* ]]
	grep '^start\|^end' "$T/state/log" | awk '$3 == 1' >"$T/gpu1.log"
	grep '^start\|^end' "$T/state/log" | awk '$3 == 0' >"$T/gpu0.log"
	[ "$(most_at_once "$T/gpu1.log")" = 1 ]
	[ "$(most_at_once "$T/gpu0.log")" -gt 1 ]
}

@test "probe: without the capture's compute mode, an exclusive GPU would fail runs side by side" {
	# The same GPU, but the capture does not say it is exclusive: the
	# double's busy GPU is what envparity would report, which is why the
	# compute mode is read first.
	FAKE_PROBE_EXCLUSIVE=1 FAKE_PROBE_SLEEP=0.3 gpus 2 --runs 3 --jobs 16
	[ "$status" -eq 1 ]
	grep -q '^busy' "$T/state/log"
	[[ "$output" == *"CUDA_ERROR_DEVICE_UNAVAILABLE"* ]]
}

@test "probe: with CUDA_VISIBLE_DEVICES set, any exclusive GPU of the capture makes every GPU one at a time" {
	# Entries of CUDA_VISIBLE_DEVICES cannot be matched with NVML's
	# indexes here, so envparity is careful with all of them.
	CUDA_VISIBLE_DEVICES=1,0 FAKE_NVML_HEALTH=1:compute_mode=3 FAKE_PROBE_SLEEP=0.2 \
	    gpus 2 --runs 2 --jobs 16 --backend cuda
	[ "$status" -eq 0 ]
	grep '^start\|^end' "$T/state/log" | awk '$3 == 0' >"$T/g0.log"
	grep '^start\|^end' "$T/state/log" | awk '$3 == 1' >"$T/g1.log"
	[ "$(most_at_once "$T/g0.log")" = 1 ]
	[ "$(most_at_once "$T/g1.log")" = 1 ]
	# The two GPUs still go together.
	[ "$(most_at_once)" = 2 ]
}

@test "probe --runs 12: more runs than a set first holds, side by side" {
	# Each GPU's set of runs grows while the wave is prepared.
	gpus 2 --runs 12 --jobs 16 -o "$T/f.json"
	[ "$status" -eq 0 ]
	[[ "$output" == *"cpu    gemm            pass  identical in 12 runs;"* ]]
	[[ "$output" == *"cuda:1 gemm            pass  identical in 12 runs;"* ]]
	[ "$(grep -c '^start' "$T/state/log")" = 84 ]
}
