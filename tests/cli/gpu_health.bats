#!/usr/bin/env bats
# gpu_health.bats: the GPU facts and health checks (stack.gpu.<i>.*) from
# NVML, through the real binary, with NVML played by a TEST DOUBLE of
# libnvidia-ml.so.1 (tests/doubles/fake_nvml.c; the build machines have
# no GPU): FAKE_NVML_GPUS gives N healthy H100s, FAKE_NVML_HEALTH makes
# one of them unhealthy, and the double built with -DFAKE_NVML_OLD lacks
# the newer NVML symbols.  The checks run in `envparity diff A B` (those
# of B, under --policy), the same code `check` runs.

load setup

setup_file() {
	mkdir -p "$BATS_FILE_TMPDIR/drv" "$BATS_FILE_TMPDIR/old" \
	    "$BATS_FILE_TMPDIR/site"
	cc -shared -fPIC -o "$BATS_FILE_TMPDIR/drv/libnvidia-ml.so.1" \
		"$BATS_TEST_DIRNAME/../doubles/fake_nvml.c" \
		"$BATS_TEST_DIRNAME/../doubles/fake_nvml_health.c"
	cc -shared -fPIC -DFAKE_NVML_OLD \
		-o "$BATS_FILE_TMPDIR/old/libnvidia-ml.so.1" \
		"$BATS_TEST_DIRNAME/../doubles/fake_nvml.c" \
		"$BATS_TEST_DIRNAME/../doubles/fake_nvml_health.c"
}

# Capture into $T/$1 with N GPUs (FAKE_NVML_GPUS) and health $3; $4, if
# given, is the folder of the double ("old").
capture() { # out gpus health [drv]
	FAKE_NVML_GPUS=$2 FAKE_NVML_HEALTH=$3 \
	    XDG_CACHE_HOME=$BATS_FILE_TMPDIR/cache \
	    LD_LIBRARY_PATH=$BATS_FILE_TMPDIR/${4:-drv} run "$EP" capture \
	    --no-discover --site-packages "$BATS_FILE_TMPDIR/site" -o "$T/$1"
	[ "$status" -eq 0 ]
	[ -z "$(jq -r '.meta.unavailable.gpu // empty' "$T/$1")" ]
}

# The checks of $1 (diffed with itself: no drift) under policy $2.
checks() { # manifest [policy]
	if [ -n "${2-}" ]; then
		run "$EP" diff -q --policy "$2" "$1" "$1" --json r.json
	else
		run "$EP" diff -q "$1" "$1" --json r.json
	fi
}

# "status message" of result $1 in r.json.
result() { # key
	jq -r --arg k "$1" '.results[] | select(.key == $k) |
	    "\(.status) \(.message)"' r.json
}

# The keys of stack.gpu results with status $1.
gpu_keys() { # status
	jq -r --arg s "$1" '[.results[] | select(.status == $s and
	    (.key | startswith("stack.gpu."))) | .key] | sort | join(" ")' r.json
}

@test "eight healthy GPUs: every check passes, XID is said not checked" {
	capture m.json 8 ""
	checks m.json
	[ "$status" -eq 0 ]
	[ "$(fact m.json gpu.count)" = 8 ]
	for i in 0 1 2 3 4 5 6 7; do
		for c in busy ecc_volatile ecc_aggregate retired_pages \
		    remapped_rows throttle pcie; do
			[[ "$(result stack.gpu.$i.$c)" == "pass stack.gpu.$i.$c: GPU $i (NVIDIA H100 80GB HBM3): "* ]]
		done
	done
	[ "$(jq '[.results[] | select(.key | startswith("stack.gpu."))] |
	    length' r.json)" -eq 57 ]
	[ -z "$(gpu_keys fail)$(gpu_keys warn)" ]
	[[ "$(result stack.gpu.xid)" == "skip stack.gpu.xid: not checked: NVML reports XID errors only as events"* ]]
	# Idle: gen 1 of 5 passes, saying why.
	[[ "$(result stack.gpu.0.pcie)" == *"gen 1 of 5, x16 of x16 (a link below its top generation is normal on an idle GPU"* ]]
}

@test "the new facts are facts; the health of now is in meta.gpu, never a fact" {
	capture m.json 2 "1:compute_mode=3,1:power_limit=500000,1:app_clocks=1410/1593"
	[ "$(fact m.json gpu.0.pcie_gen_max)" = 5 ]
	[ "$(fact m.json gpu.0.pcie_width_max)" = 16 ]
	[ "$(fact m.json gpu.0.compute_mode)" = default ]
	[ "$(fact m.json gpu.1.compute_mode)" = exclusive_process ]
	[ "$(fact m.json gpu.0.power_limit_mw)" = 700000 ]
	[ "$(fact m.json gpu.1.power_limit_mw)" = 500000 ]
	[ "$(fact m.json gpu.0.app_clock_graphics_mhz)" = 1755 ]
	[ "$(fact m.json gpu.1.app_clock_graphics_mhz)" = 1410 ]
	[ "$(fact m.json gpu.1.app_clock_mem_mhz)" = 1593 ]
	[ "$(fact m.json gpu.0.persistence)" = enabled ]
	[ "$(fact m.json gpu.0.mig)" = disabled ]
	[ "$(jq -r '.meta.gpu["0"].pcie_gen' m.json)" = 1 ]
	[ "$(jq -r '.meta.gpu["0"].clocks_event_reasons' m.json)" = 0x1 ]
	[ "$(jq -r '.meta.gpu["1"].ecc_uncorrected_volatile' m.json)" = 0 ]
	[ "$(jq -r '.meta.gpu["1"].memory_reserved' m.json)" = 553648128 ]
	# No health value among the facts.
	[ -z "$(jq -r '.facts | keys[] | select(test("health|ecc_uncorrected|pcie_gen$|pcie_width$|processes|memory_used|clocks_event"))' m.json)" ]
	validate_schema manifest m.json
}

@test "each unhealthy condition fails (or warns) naming the GPU and the condition" {
	capture healthy.json 8 ""
	while IFS='|' read -r health key want text; do
		capture m.json 8 "$health"
		checks m.json
		echo "# $health -> $(result "$key")"
		[[ "$(result "$key")" == "$want $key: GPU "*"(NVIDIA H100 80GB HBM3): "*"$text"* ]]
		# That one finding, nothing else about the GPUs.
		[ "$(gpu_keys fail)$(gpu_keys warn)" = "$key" ]
		if [ "$want" = fail ]; then
			[ "$(jq -r .exit_status r.json)" -eq 1 ]
		else
			[ "$(jq -r .exit_status r.json)" -eq 0 ]
		fi
		# Nothing of it is drift: the facts are those of the healthy
		# capture.  (gpu.<i>.remapped_rows_pending, a fact from before
		# the health checks, keeps its meaning, and so still moves.)
		diff <(jq -S '.facts | with_entries(select(.key |
		    endswith(".remapped_rows_pending") | not))' healthy.json) \
		    <(jq -S '.facts | with_entries(select(.key |
		    endswith(".remapped_rows_pending") | not))' m.json)
	done <<'EOF'
3:processes=2|stack.gpu.3.busy|fail|in use: 2 compute processes, 0 MiB allocated
4:memory_used=4294967296|stack.gpu.4.busy|fail|0 compute processes, 4096 MiB allocated
1:ecc_volatile=2|stack.gpu.1.ecc_volatile|fail|2 uncorrected ECC errors since the driver loaded
2:ecc_aggregate=5|stack.gpu.2.ecc_aggregate|warn|5 uncorrected ECC errors over the GPU's life
5:retired_pending=1|stack.gpu.5.retired_pages|fail|pending retirement
6:remap_pending=1|stack.gpu.6.remapped_rows|fail|row remappings are pending: the GPU needs a reset
7:remap_failure=1|stack.gpu.7.remapped_rows|fail|a row remapping has failed
0:throttle=sw_thermal|stack.gpu.0.throttle|fail|clocks held down by software thermal slowdown
1:throttle=hw_thermal+gpu_idle|stack.gpu.1.throttle|fail|clocks held down by hardware thermal slowdown
2:throttle=hw_power_brake|stack.gpu.2.throttle|fail|clocks held down by hardware power brake slowdown
3:throttle=hw_slowdown|stack.gpu.3.throttle|fail|clocks held down by hardware slowdown
4:pcie_width=8/16|stack.gpu.4.pcie|warn|PCIe link x8, narrower than its x16
EOF
}

@test "a little memory in use, the software power cap and sync boost are healthy" {
	capture m.json 2 "0:memory_used=268435456,1:throttle=sw_power_cap+sync_boost"
	checks m.json
	[ "$status" -eq 0 ]
	[[ "$(result stack.gpu.0.busy)" == "pass "*"0 compute processes, 256 MiB allocated"* ]]
	[[ "$(result stack.gpu.1.throttle)" == "pass "*"(clocks reasons now: software power cap, sync boost)" ]]
	capture m2.json 2 "0:memory_used=268435457"
	checks m2.json
	[[ "$(result stack.gpu.0.busy)" == "fail "* ]]
}

@test "a PCIe link below its top generation is health info; a lower maximum is drift" {
	capture golden.json 2 ""
	capture idle.json 2 "0:pcie_gen=2/5,1:pcie_gen=5/5"
	run "$EP" diff -q golden.json idle.json --json r.json
	[ "$status" -eq 0 ]
	[[ "$(result stack.gpu.0.pcie)" == "pass "*"PCIe gen 2 of 5"*"normal on an idle GPU"* ]]
	[[ "$(result stack.gpu.1.pcie)" == "pass "*"PCIe gen 5 of 5, x16 of x16" ]]
	# A slot (or BIOS setting) that caps the link at gen 4 is drift.
	capture slot.json 2 "1:pcie_gen=1/4"
	run "$EP" diff -q golden.json slot.json --json r.json
	[ "$status" -eq 1 ]
	[ "$(jq -r '[.results[] | select(.status == "fail") | .key] | join(" ")' r.json)" = gpu.1.pcie_gen_max ]
	[ "$(jq -r '.results[] | select(.key == "gpu.1.pcie_gen_max") | "\(.expected) \(.actual)"' r.json)" = "5 4" ]
}

@test "the policy decides: severity warn, a waiver, an ignore rule" {
	capture m.json 4 "1:ecc_volatile=2,2:throttle=sw_thermal,3:processes=1"
	checks m.json
	[ "$status" -eq 1 ]
	[ "$(gpu_keys fail)" = "stack.gpu.1.ecc_volatile stack.gpu.2.throttle stack.gpu.3.busy" ]

	cat > policy.json <<'EOF'
{"schema": "envparity/policy@1",
 "rules": [
  {"key": "stack.gpu.*.throttle", "rule": "exact", "severity": "warn",
   "reason": "the racks run hot in summer"},
  {"key": "stack.gpu.*.busy", "rule": "ignore"}],
 "waivers": [
  {"key": "stack.gpu.1.ecc_volatile", "actual": "2", "reason": "RMA filed",
   "owner": "hw-team", "expires": "2099-12-31"}]}
EOF
	checks m.json policy.json
	[ "$status" -eq 0 ]
	[ -z "$(gpu_keys fail)" ]
	[[ "$(result stack.gpu.2.throttle)" == "warn "*"software thermal slowdown (a warning under the policy's rule for stack.gpu.*.throttle: the racks run hot in summer)" ]]
	[ "$(result stack.gpu.1.ecc_volatile | cut -d' ' -f1)" = waived ]
	[ "$(jq -r '.results[] | select(.key == "stack.gpu.1.ecc_volatile") | .waiver.owner' r.json)" = hw-team ]
	# Ignored: no result at all, for any GPU.
	[ -z "$(jq -r '.results[] | select(.key | endswith(".busy")) | .key' r.json)" ]

	# The waiver accepts 2 errors, not 3.
	capture m3.json 4 "1:ecc_volatile=3"
	checks m3.json policy.json
	[ "$status" -eq 1 ]
	[ "$(gpu_keys fail)" = stack.gpu.1.ecc_volatile ]
}

@test "an NVML without the newer symbols: not checked, with the symbol named; the older names still work" {
	capture m.json 2 "1:throttle=hw_thermal" old
	checks m.json
	[ "$status" -eq 1 ]
	[ "$(result stack.gpu.0.busy)" = "skip stack.gpu.0.busy: GPU 0 (NVIDIA H100 80GB HBM3): processes not checked: nvmlDeviceGetComputeRunningProcesses_v3 is not in this driver's NVML; memory not checked: nvmlDeviceGetMemoryInfo_v2 is not in this driver's NVML" ]
	# nvmlDeviceGetCurrentClocksThrottleReasons, the older name of the call.
	[[ "$(result stack.gpu.1.throttle)" == "fail "*"hardware thermal slowdown" ]]
	[[ "$(result stack.gpu.0.throttle)" == "pass "* ]]
	# A fact whose call is missing is absent, and meta says why.
	[ -z "$(fact m.json gpu.0.app_clock_graphics_mhz)" ]
	[ "$(jq -r '.meta.gpu["0"].not_checked.app_clock_graphics_mhz' m.json)" = \
	    "nvmlDeviceGetApplicationsClock is not in this driver's NVML" ]
	[ "$(fact m.json gpu.0.pcie_gen_max)" = 5 ]
}

@test "a call the GPU does not support: not checked, saying so" {
	capture m.json 2 "0:unsupported=ecc_total,0:unsupported=retired,1:unsupported=pcie,1:unsupported=clocks"
	checks m.json
	[ "$status" -eq 0 ]
	[ "$(result stack.gpu.0.ecc_volatile)" = "skip stack.gpu.0.ecc_volatile: GPU 0 (NVIDIA H100 80GB HBM3): not checked: nvmlDeviceGetTotalEccErrors: not supported on this GPU (NVML_ERROR_NOT_SUPPORTED)" ]
	[[ "$(result stack.gpu.0.ecc_aggregate)" == "skip "*"nvmlDeviceGetTotalEccErrors: not supported"* ]]
	[[ "$(result stack.gpu.0.retired_pages)" == "skip "*"nvmlDeviceGetRetiredPagesPendingStatus: not supported"* ]]
	[[ "$(result stack.gpu.1.pcie)" == "skip "*"nvmlDeviceGetCurrPcieLinkWidth: not supported"* ]]
	[[ "$(result stack.gpu.1.throttle)" == "skip "*"nvmlDeviceGetCurrentClocksEventReasons: not supported"* ]]
	[ "$(fact m.json gpu.1.pcie_gen_max)" = unsupported ]
	[[ "$(result stack.gpu.1.busy)" == "pass "* ]]

	capture e.json 1 "0:ecc_mode=0"
	checks e.json
	[ "$(fact e.json gpu.0.ecc)" = disabled ]
	[ "$(result stack.gpu.0.ecc_volatile)" = "skip stack.gpu.0.ecc_volatile: GPU 0 (NVIDIA H100 80GB HBM3): not checked: ECC is disabled on this GPU (gpu.0.ecc; nvmlDeviceGetTotalEccErrors: not supported on this GPU (NVML_ERROR_NOT_SUPPORTED))" ]
}

@test "no GPU, no NVML: no stack.gpu result" {
	capture m.json 0 ""
	checks m.json
	[ "$(fact m.json gpu.count)" = 0 ]
	[ -z "$(jq -r '.results[] | select(.key | startswith("stack.gpu")) | .key' r.json)" ]
	# A hand-made manifest without meta.gpu (one captured before these
	# checks) skips each GPU, saying why.
	manifest old.json '{"gpu.count": "1", "gpu.0.name": "NVIDIA H100 80GB HBM3"}'
	checks old.json
	[ "$(result stack.gpu.0)" = "skip stack.gpu.0: GPU 0 (NVIDIA H100 80GB HBM3): not checked: this capture has no health for it (meta.gpu.0)" ]
}

@test "health from a manifest that is not a number is an error, not a pass" {
	manifest m.json '{"gpu.count": "1"}' \
	    '{"gpu": {"0": {"ecc_uncorrected_volatile": "lots", "processes": "0", "memory_used": "x"}}}'
	checks m.json
	[ "$(result stack.gpu.0.ecc_volatile)" = "error stack.gpu.0.ecc_volatile: GPU 0: meta.gpu.0.ecc_uncorrected_volatile \"lots\" is not a number" ]
	[[ "$(result stack.gpu.0.busy)" == "error "*"meta.gpu.0.memory_used \"x\" is not a number" ]]
	# Decimal only, in range, and a string: "0x10" is not 16, "010" is
	# not 8, a count past 2^64 is not 2^64 - 1, a JSON number is not
	# "NVML gave none".
	manifest m.json '{"gpu.count": "3"}' \
	    '{"gpu": {"0": {"processes": "0x10", "memory_used": "0"},
	              "1": {"processes": "010", "memory_used": "0", "pcie_gen": 5, "pcie_width": "16"},
	              "2": {"processes": "0", "memory_used": "99999999999999999999999"}}}'
	checks m.json
	[ "$(result stack.gpu.0.busy)" = "error stack.gpu.0.busy: GPU 0: meta.gpu.0.processes \"0x10\" is not a number" ]
	[[ "$(result stack.gpu.1.busy)" == "fail "*": 10 compute processes, "* ]]
	[ "$(result stack.gpu.1.pcie)" = "error stack.gpu.1.pcie: GPU 1: meta.gpu.1.pcie_gen is not a string of digits" ]
	[ "$(result stack.gpu.2.busy)" = "error stack.gpu.2.busy: GPU 2: meta.gpu.2.memory_used \"99999999999999999999999\" is not a number" ]
}

@test "the double refuses a malformed FAKE_NVML_HEALTH, so a typo cannot pass" {
	FAKE_NVML_GPUS=2 FAKE_NVML_HEALTH="1:ecc_volatle=2" \
	    XDG_CACHE_HOME=$BATS_FILE_TMPDIR/cache \
	    LD_LIBRARY_PATH=$BATS_FILE_TMPDIR/drv run "$EP" capture \
	    --no-discover --site-packages "$BATS_FILE_TMPDIR/site" -o m.json
	[ "$(jq -r .meta.unavailable.gpu m.json)" = "nvmlInit_v2: Invalid Argument (2)" ]
	FAKE_NVML_GPUS=2 FAKE_NVML_HEALTH="9:ecc_volatile=2" \
	    XDG_CACHE_HOME=$BATS_FILE_TMPDIR/cache \
	    LD_LIBRARY_PATH=$BATS_FILE_TMPDIR/drv run "$EP" capture \
	    --no-discover --site-packages "$BATS_FILE_TMPDIR/site" -o m2.json
	[ "$(jq -r .meta.unavailable.gpu m2.json)" = "nvmlInit_v2: Invalid Argument (2)" ]
}

@test "a pending row remap is the check's finding, not drift of the fact from before the checks (a default ignore rule)" {
	capture golden.json 8 ""
	capture m.json 8 "6:remap_pending=1"
	[ "$(jq -r '.facts["gpu.6.remapped_rows_pending"]' golden.json)" = no ]
	[ "$(jq -r '.facts["gpu.6.remapped_rows_pending"]' m.json)" = yes ]
	run "$EP" diff -q golden.json m.json --json r.json
	[ "$status" -eq 1 ]
	[[ "$(result stack.gpu.6.remapped_rows)" == "fail "*"row remappings are pending"* ]]
	# The fact is ignored, and said so; nothing else failed.
	[[ "$(result gpu.6.remapped_rows_pending)" == "skip "* ]] ||
	    [ -z "$(result gpu.6.remapped_rows_pending)" ]
	[ "$(jq -r '[.results[] | select(.status == "fail") | .key] | join(" ")' r.json)" = stack.gpu.6.remapped_rows ]
}
