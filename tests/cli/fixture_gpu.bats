#!/usr/bin/env bats
# fixture_gpu.bats: real data from a GPU host, checked on machines without
# one.  tests/fixtures/gpu/h100/ holds what `envparity capture` wrote on an
# H100 (driver 580, PyTorch 2.11 with its cu130 wheels; see host.txt and
# run.txt there), so that the manifest format, the schema and everything
# that reads manifests are held to a real GPU stack, not an invented one.

load setup

H100=$FIXTURES/gpu/h100

@test "the H100 captures validate against manifest.schema.json" {
	validate_schema manifest "$H100/capture.json"
	validate_schema manifest "$H100/capture-lib-path-torch.json"
}

@test "the H100 capture holds every GPU fact NVML gave, matching nvidia-smi" {
	m=$H100/capture.json
	smi=$(grep -A1 '^name, driver_version' "$H100/host.txt" | tail -1)
	IFS=, read -r name drv vbios ecc pers mig mem cc <<<"$smi"
	[ "$(fact "$m" gpu.count)" = 1 ]
	[ "$(fact "$m" gpu.0.name)" = "$name" ]
	[ "$(fact "$m" gpu.driver.version)" = "${drv# }" ]
	[ "$(fact "$m" gpu.0.vbios)" = "${vbios# }" ]
	[ "$(fact "$m" gpu.0.cc)" = "${cc# }" ]
	[ "$(fact "$m" gpu.0.ecc)" = "$(tr 'A-Z' 'a-z' <<<"${ecc# }")" ]
	[ "$(fact "$m" gpu.0.persistence)" = "$(tr 'A-Z' 'a-z' <<<"${pers# }")" ]
	[ "$(fact "$m" gpu.0.mig)" = "$(tr 'A-Z' 'a-z' <<<"${mig# }")" ]
	# nvidia-smi rounds to MiB; NVML gives bytes.
	mib=$(( $(fact "$m" gpu.0.memory_total) / 1048576 ))
	[ "$mib" -ge "${mem//[^0-9]/}" ] && [ "$mib" -le $(( ${mem//[^0-9]/} + 1024 )) ]
	[ "$(fact "$m" gpu.0.remapped_rows_pending)" = no ]
	[ "$(fact "$m" gpu.cuda_driver.version)" = 13.0 ]
	[ "$(jq '.meta.unavailable // {} | length' "$m")" -eq 0 ]
}

@test "on the H100, the default capture names the cuDNN PyTorch loads" {
	m=$H100/capture.json
	# PyTorch reported cudnn 91900 there (host.txt), and the loader cache
	# also listed a system cuDNN under /lib/x86_64-linux-gnu: the wheels'
	# folders, searched before the cache, must win.
	grep -q 'cudnn 91900' "$H100/host.txt"
	grep -q 'libcudnn.so.9 (libc6,x86-64) => /lib/x86_64-linux-gnu/' "$H100/host.txt"
	[ "$(fact "$m" lib.cudnn.version)" = 9.19.0 ]
	[[ "$(fact "$m" lib.cudnn.path)" == */site-packages/nvidia/cudnn/lib/libcudnn.so.9 ]]
	[ "$(fact "$m" lib.cudnn.cudart)" = 13.1 ]
	[ "$(fact "$m" lib.cudart.version)" = 13.0.96 ]
	# The same wheels as this project's build machines: the same bytes.
	[ "$(fact "$m" lib.cudnn.sha256)" = "$(fact "$m" lib.cudnn.record_sha256)" ]
	# --lib-path at the same folders says the same.
	cmp <(jq -S '.facts | with_entries(select(.key | startswith("lib.")))' "$m") \
	    <(jq -S '.facts | with_entries(select(.key | startswith("lib.")))' "$H100/capture-lib-path-torch.json")
}

@test "the H100 check --runs 5 report: every backend ran, runs identical, canary varied" {
	r=$H100/check-runs5-report.json
	validate_schema report "$r"
	[ "$(jq -r .exit_status "$r")" = 0 ]
	for k in probe.cuda.kat probe.cuda.gemm probe.cuda.reduce \
	    probe.cublas.sgemm_pedantic probe.cublas.sgemm_default \
	    probe.cudnn.conv_fwd probe.cpu.gemm; do
		[ "$(jq -r --arg k "$k.runs" '.results[] | select(.key == $k) | .status' "$r")" = pass ]
	done
	[ "$(jq -r '.results[] | select(.key == "probe.cuda.kat.known_answer") | .status' "$r")" = pass ]
	[[ "$(jq -r '.results[] | select(.key == "probe.cuda.atomic.runs") | .message' "$r")" == *"varied across runs"* ]]
	# The GPU computes kat, gemm and reduce bit for bit as the CPU does.
	f=$H100/probe-facts.json
	for w in kat gemm reduce; do
		[ "$(fact "$f" probe.cuda.$w.sha256)" = "$(fact "$f" probe.cpu.$w.sha256)" ]
	done
	[[ "$(fact "$f" probe.domain)" == "NVIDIA H100 80GB HBM3 cc 9.0 132 SMs driver 580.159.04 "* ]]
}

@test "this machine's CPU backend computes the H100 host's CPU hashes" {
	probe=${EP_BUILD:-$REPO_ROOT/build}/envparity-probe
	[ -x "$probe" ] || skip "envparity-probe not built"
	f=$H100/probe-facts.json
	run "$EP" probe --runs 1 --backend cpu --probe "$probe" -o here.json
	[ "$status" -eq 0 ]
	for w in kat gemm reduce; do
		[ "$(fact here.json probe.cpu.$w.sha256)" = "$(fact "$f" probe.cpu.$w.sha256)" ]
	done
}
