#!/usr/bin/env bats
# probe_gpus.bats: the reference workload on every GPU.  There is no GPU
# here: the GPUs are played by two TEST DOUBLES, the NVML one
# (tests/doubles/fake_nvml.c, FAKE_NVML_GPUS=N H100s: the capture's
# gpu.count) and the probe one (tests/doubles/fake_probe.sh), which reads
# the CUDA_VISIBLE_DEVICES envparity gives each GPU's process as "its
# GPU", and can make one GPU compute other bits, be another model, crash
# or hang, and record when each process started and ended.

load setup
load probe_gpus

sha() { printf '%s' "$1" | sha256sum | cut -c1-64; }

@test "probe on 8 GPUs that agree: one process per GPU, per-GPU facts, the CPU once" {
	gpus 8 --runs 2 -o "$T/f.json"
	[ "$status" -eq 0 ]
	for i in 0 1 2 3 4 5 6 7; do
		[ "$(cat "$T/state/count.cuda.$i")" = 2 ]
		[ "$(cat "$T/state/count.cudnn.$i")" = 2 ]
		[ "$(fact "$T/f.json" probe.cuda.gpu$i.gemm.sha256)" = "$(sha cuda/gemm)" ]
		[ "$(fact "$T/f.json" probe.cublas.gpu$i.sgemm_pedantic.sha256)" = "$(sha cublas/sgemm_pedantic)" ]
		[ "$(fact "$T/f.json" probe.gpu$i.domain)" = "$(fact "$T/f.json" probe.domain)" ]
	done
	# Each process saw one GPU, by NVML's (PCI bus) order.
	[ "$(sort -u "$T/state/env.cuda" | tr '\n' ' ')" = "0 PCI_BUS_ID 1 PCI_BUS_ID 2 PCI_BUS_ID 3 PCI_BUS_ID 4 PCI_BUS_ID 5 PCI_BUS_ID 6 PCI_BUS_ID 7 PCI_BUS_ID " ]
	# The CPU backend runs once per run, not per GPU.
	[ "$(cat "$T/state/count.cpu")" = 2 ]
	[ ! -e "$T/state/count.cpu.0" ]
	# The single-GPU keys keep their meaning: the hash all GPUs agree on.
	[ "$(fact "$T/f.json" probe.cuda.gemm.sha256)" = "$(sha cuda/gemm)" ]
	[ -z "$(fact "$T/f.json" probe.cuda.gpu0.atomic.sha256)" ]
	[[ "$output" == *"cuda   gemm gpus       pass  identical on GPUs 0-7 (NVIDIA H100 80GB HBM3)"* ]]
	[[ "$output" == *"cuda:3 gemm            pass  identical in 2 runs;"* ]]
	[[ "$output" == *"cuda:5 atomic          pass  canary: varied across runs"* ]]
	validate_schema manifest "$T/f.json"
}

@test "probe: the GPUs of a run are processes at work at the same time" {
	# Each process waits until all 8 of its run have started: one after
	# the other they could not, and the double logs barrier-timeout.
	FAKE_PROBE_BARRIER=8 gpus 8 --runs 2 --backend cuda --timeout 30
	[ "$status" -eq 0 ]
	! grep -q barrier-timeout "$T/state/log"
	# In each run every GPU's process started before any of them ended.
	for r in 1 2; do
		last_start=$(awk -v r=$r '$1 == "start" && $4 == r { print $5 }' "$T/state/log" | sort -n | tail -1)
		first_end=$(awk -v r=$r '$1 == "end" && $4 == r { print $5 }' "$T/state/log" | sort -n | head -1)
		[ "$(awk -v r=$r '$1 == "start" && $4 == r' "$T/state/log" | wc -l)" = 8 ]
		[ "$last_start" -lt "$first_end" ]
	done
}

@test "probe: a GPU that computes other bits fails, named with its model and the majority" {
	FAKE_PROBE_DIVERGE_GPU=3 gpus 8 --runs 2 -o "$T/f.json"
	[ "$status" -eq 1 ]
	[[ "$output" == *"cuda   gemm gpus       fail  GPU 3 (NVIDIA H100 80GB HBM3) differs from the majority, GPUs 0-2 and 4-7 (2 distinct outputs)"* ]]
	[[ "$output" == *"cublas sgemm_pedantic gpus fail  GPU 3 (NVIDIA H100 80GB HBM3) differs from the majority"* ]]
	# Its runs agree among themselves: the difference is the GPU's.
	[[ "$output" == *"cuda:3 gemm            pass  identical in 2 runs;"* ]]
	[ "$(fact "$T/f.json" probe.cuda.gpu3.gemm.sha256)" = "$(sha cuda/gemm/diverged)" ]
	[ "$(fact "$T/f.json" probe.cuda.gpu2.gemm.sha256)" = "$(sha cuda/gemm)" ]
	# No node-wide hash where the GPUs disagree.
	[ -z "$(fact "$T/f.json" probe.cuda.gemm.sha256)" ]
	[ "$(fact "$T/f.json" probe.cuda.kat.sha256)" = "$(sha cuda/kat)" ]
	# capture --runs keeps it as a finding, under its key.
	FAKE_NVML_GPUS=8 LD_LIBRARY_PATH=$BATS_FILE_TMPDIR/drv FAKE_PROBE_GPU=1 \
	    FAKE_PROBE_DIVERGE_GPU=3 XDG_CACHE_HOME=$BATS_FILE_TMPDIR/cache \
	    run "$EP" capture -q --no-discover --site-packages "$BATS_FILE_TMPDIR/site" \
	    --runs 2 --probe "$FAKE" -o "$T/m.json"
	[ "$status" -eq 0 ]
	[ "$(jq -r '.meta.probe.findings[] | select(.key == "probe.cuda.gemm.gpus") | .status' "$T/m.json")" = fail ]
	[[ "$(jq -r '.meta.probe.findings[] | select(.key == "probe.cuda.gemm.gpus") | .message' "$T/m.json")" == "GPU 3 (NVIDIA H100 80GB HBM3) differs"* ]]
}

@test "probe: GPUs of another model are another domain, said and not failed" {
	FAKE_PROBE_OTHER_MODEL=4,5,6,7 gpus 8 --runs 2 -o "$T/f.json"
	[ "$status" -eq 0 ]
	[[ "$output" == *"cuda   gemm gpus       pass  identical on GPUs 0-3 (NVIDIA H100 80GB HBM3); another determinism domain, not compared with the first: identical on GPUs 4-7 (NVIDIA A100-SXM4-80GB)"* ]]
	[[ "$(fact "$T/f.json" probe.gpu5.domain)" == "NVIDIA A100-SXM4-80GB cc 8.0 108 SMs "* ]]
	[[ "$(fact "$T/f.json" probe.domain)" == "NVIDIA H100 80GB HBM3 "* ]]
	# The node-wide hash is the first GPU's domain's.
	[ "$(fact "$T/f.json" probe.cuda.gemm.sha256)" = "$(sha cuda/gemm)" ]
	[ "$(fact "$T/f.json" probe.cuda.gpu6.gemm.sha256)" = "$(sha cuda/gemm/a100)" ]
	# A GPU of the A100s that differs from the other A100s fails.
	FAKE_PROBE_OTHER_MODEL=4,5,6,7 FAKE_PROBE_DIVERGE_GPU=6 gpus 8 --runs 1 --backend cuda
	[ "$status" -eq 1 ]
	[[ "$output" == *"identical on GPUs 0-3 (NVIDIA H100 80GB HBM3); another determinism domain, not compared with the first: GPU 6 (NVIDIA A100-SXM4-80GB) differs from the majority, GPUs 4, 5 and 7 (2 distinct outputs)"* ]]
}

@test "probe --gpus 0,3 runs only those GPUs" {
	gpus 8 --runs 2 --gpus 0,3 -o "$T/f.json"
	[ "$status" -eq 0 ]
	[ "$(ls "$T/state" | grep '^count\.cuda\.' | sort | tr '\n' ' ')" = "count.cuda.0 count.cuda.3 " ]
	[ -n "$(fact "$T/f.json" probe.cuda.gpu3.gemm.sha256)" ]
	[ -z "$(fact "$T/f.json" probe.cuda.gpu1.gemm.sha256)" ]
	[[ "$output" == *"cuda   gemm gpus       pass  identical on GPUs 0 and 3 (NVIDIA H100 80GB HBM3)"* ]]
	# One GPU: the results and summary are as before per-GPU probing.
	gpus 8 --runs 1 --gpus 5 -o "$T/g.json"
	[ "$status" -eq 0 ]
	[[ "$output" == *"cuda   gemm            pass  identical in 1 run;"* ]]
	[[ "$output" != *"gpus "* ]]
	[ "$(fact "$T/g.json" probe.cuda.gpu5.gemm.sha256)" = "$(fact "$T/g.json" probe.cuda.gemm.sha256)" ]
	[ "$(cat "$T/state/env.cuda" | tail -1)" = "5 PCI_BUS_ID" ]
}

@test "probe --gpus: a bad list is exit 2 with one line naming it" {
	for bad in x 0,,1 0, ,1 -1 0,0 1.5; do
		gpus 8 --gpus "$bad"
		[ "$status" -eq 2 ]
		[[ "${lines[0]}" == "envparity probe: --gpus $bad: "* ]]
		[ "${#lines[@]}" -le 2 ]
	done
	gpus 8 --gpus 0,0
	[[ "${lines[0]}" == *"GPU 0 named twice"* ]]
	gpus 8 --gpus 0,99 --runs 1
	[ "$status" -eq 2 ]
	[ "${#lines[@]}" -eq 1 ]
	[ "${lines[0]}" = "envparity probe: --gpus 0,99: GPU 99 is not visible here (8 GPUs, 0 to 7, by gpu.count)" ]
	[ ! -e "$T/state/count.cuda.0" ]
	# The same option on check, bless and capture.
	run "$EP" capture --runs 1 --gpus x
	[ "$status" -eq 2 ]
	[[ "${lines[0]}" == "envparity capture: --gpus x: "* ]]
	run "$EP" check --runs 1 --gpus 0,,1
	[ "$status" -eq 2 ]
	[[ "${lines[0]}" == "envparity check: --gpus 0,,1: "* ]]
	run "$EP" bless --runs 1 --gpus x
	[ "$status" -eq 2 ]
	[[ "${lines[0]}" == "envparity bless: --gpus x: "* ]]
}

@test "probe: a CUDA_VISIBLE_DEVICES already set is indexed into, not overridden" {
	# Slurm gave this job the physical GPUs 5, 2 and 7; NVML sees all 8.
	CUDA_VISIBLE_DEVICES=5,2,7 FAKE_PROBE_DIVERGE_GPU=2 gpus 8 --runs 1 -o "$T/f.json"
	[ "$status" -eq 1 ]
	# Three GPUs, each process given its entry, CUDA_DEVICE_ORDER untouched.
	[ "$(sort "$T/state/env.cuda" | tr '\n' ' ')" = "2 unset 5 unset 7 unset " ]
	[ -n "$(fact "$T/f.json" probe.cuda.gpu2.gemm.sha256)" ]
	[ -z "$(fact "$T/f.json" probe.cuda.gpu3.gemm.sha256)" ]
	# Entry 1 (physical 2) is the one that differs: named by its index.
	[[ "$output" == *"cuda   gemm gpus       fail  GPU 1 (NVIDIA H100 80GB HBM3) differs from the majority, GPUs 0 and 2 (2 distinct outputs)"* ]]
	[ "$(fact "$T/f.json" probe.cuda.gpu1.gemm.sha256)" = "$(sha cuda/gemm/diverged)" ]
	# --gpus picks among the entries.
	CUDA_VISIBLE_DEVICES=5,2 CUDA_DEVICE_ORDER=FASTEST_FIRST gpus 8 --runs 1 --gpus 1 --backend cuda
	[ "$status" -eq 0 ]
	[ "$(tail -1 "$T/state/env.cuda")" = "2 FASTEST_FIRST" ]
	CUDA_VISIBLE_DEVICES=5,2 gpus 8 --runs 1 --gpus 2
	[ "$status" -eq 2 ]
	[ "${lines[0]}" = "envparity probe: --gpus 2: GPU 2 is not visible here (2 GPUs, 0 to 1, by CUDA_VISIBLE_DEVICES=5,2)" ]
}

@test "probe: a GPU whose process crashes or hangs is named; the other GPUs go on" {
	FAKE_PROBE_MODE=crash FAKE_PROBE_ON=cuda FAKE_PROBE_ON_GPU=3 gpus 4 --runs 3 --backend cuda
	[ "$status" -eq 1 ]
	[[ "$output" == *"cuda:3 run 2           fail  run 2 of cuda on GPU 3: crashed (SIGSEGV)"* ]]
	[[ "$output" == *"cuda:3 gemm            pass  identical in 2 runs (of 3);"* ]]
	[[ "$output" == *"cuda:2 gemm            pass  identical in 3 runs;"* ]]
	[[ "$output" != *"cuda:2 run"* ]]
	rm -rf "$T/state"
	FAKE_PROBE_MODE=hang FAKE_PROBE_ON=cuda FAKE_PROBE_ON_GPU=1 gpus 4 --runs 2 --backend cuda --timeout 2
	[ "$status" -eq 1 ]
	[[ "$output" == *"cuda:1 run 2           fail  run 2 of cuda on GPU 1: hung, killed after 2 s"* ]]
	[[ "$output" == *"cuda:0 gemm            pass  identical in 2 runs;"* ]]
	[[ "$output" == *"cuda:3 gemm            pass  identical in 2 runs;"* ]]
	pid=$(cat "$T/state/hang.pid")
	st=$(ps -o stat= -p "$pid" || true)
	[ -z "$st" ] || [[ "$st" == Z* ]]
}

# The comparison with a golden (`diff A B` compares as `check` does).
H='NVIDIA H100 80GB HBM3 cc 9.0 132 SMs driver 580.159.04 cuda 13.0 envparity-probe 1'
A='NVIDIA A100-SXM4-80GB cc 8.0 108 SMs driver 580.159.04 cuda 13.0 envparity-probe 1'

# Facts of a node whose GPUs ($2...) computed gemm $1.
node() { # hash gpu...
	local h=$1 f
	shift
	f=$(jq -n --arg d "$H" --arg h "$h" '{"os.id": "debian", "probe.domain": $d, "probe.cuda.gemm.sha256": $h}')
	for i in "$@"; do
		f=$(jq --arg i "$i" --arg d "$H" --arg h "$h" '. + {("probe.gpu" + $i + ".domain"): $d, ("probe.cuda.gpu" + $i + ".gemm.sha256"): $h}' <<<"$f")
	done
	echo "$f"
}
status_of() { jq -r --arg k "$1" '.results[] | select(.key == $k) | .status' r.json; }

@test "diff: a golden blessed before per-GPU probing compares on one GPU without drift" {
	manifest old.json "$(jq -n --arg d "$H" '{"os.id": "debian", "probe.domain": $d, "probe.cuda.gemm.sha256": "aaaa"}')"
	manifest new.json "$(node aaaa 0)"
	run "$EP" diff old.json new.json --json r.json
	[ "$status" -eq 0 ]
	[ "$(status_of probe.cuda.gemm.sha256)" = pass ]
	# The per-GPU facts the old golden lacks are not reported.
	[ "$(jq -r '[.results[] | select(.key | test("gpu"))] | length' r.json)" = 0 ]
	# On 8 GPUs too; and the node-wide hash still fails where it changed.
	manifest new.json "$(node bbbb 0 1 2 3 4 5 6 7)"
	run "$EP" diff old.json new.json --json r.json
	[ "$status" -eq 1 ]
	[ "$(status_of probe.cuda.gemm.sha256)" = fail ]
	[ "$(jq -r '[.results[] | select(.key | test("gpu"))] | length' r.json)" = 0 ]
}

@test "diff: per-GPU hashes compare GPU by GPU, within each GPU's domain" {
	manifest golden.json "$(node aaaa 0 1 2 3)"
	# GPU 3 computes other bits here: that GPU's key fails.
	manifest here.json "$(node aaaa 0 1 2 3 | jq '."probe.cuda.gpu3.gemm.sha256" = "cccc" | del(."probe.cuda.gemm.sha256")')"
	run "$EP" diff golden.json here.json --json r.json
	[ "$status" -eq 1 ]
	[ "$(status_of probe.cuda.gpu3.gemm.sha256)" = fail ]
	[ "$(status_of probe.cuda.gpu2.gemm.sha256)" = pass ]
	# Probed on GPUs 0 and 3 only (--gpus 0,3): the others are skips.
	manifest here.json "$(node aaaa 0 3)"
	run "$EP" diff golden.json here.json --json r.json
	[ "$status" -eq 0 ]
	[ "$(status_of probe.cuda.gpu1.gemm.sha256)" = skip ]
	[[ "$(jq -r '.results[] | select(.key == "probe.cuda.gpu1.gemm.sha256") | .message' r.json)" == *"GPU 1 was not probed here"* ]]
	[ "$(status_of probe.cuda.gpu3.gemm.sha256)" = pass ]
	# GPU 2 is another model here: its hash does not bind.
	manifest here.json "$(node aaaa 0 1 2 3 | jq --arg a "$A" '."probe.gpu2.domain" = $a | ."probe.cuda.gpu2.gemm.sha256" = "dddd"')"
	run "$EP" diff golden.json here.json --json r.json
	[ "$status" -eq 0 ]
	[ "$(status_of probe.cuda.gpu2.gemm.sha256)" = skip ]
	[ "$(status_of probe.gpu2.domain)" = skip ]
	[[ "$(jq -r '.results[] | select(.key == "probe.cuda.gpu2.gemm.sha256") | .message' r.json)" == *"determinism domains differ"* ]]
}
