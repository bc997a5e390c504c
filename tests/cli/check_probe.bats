#!/usr/bin/env bats
# check_probe.bats: the reference workload through bless and check: golden
# hashes recorded and matched, run-to-run differences caught and named,
# a machine whose runs differ never blessed.  The real envparity-probe's
# CPU backend where it is built; the named test double
# (tests/doubles/fake_probe.sh) for misbehaviour.

load setup

PROBE=${EP_BUILD:-$REPO_ROOT/build}/envparity-probe
FAKE=$REPO_ROOT/tests/doubles/fake_probe.sh

setup_env() {
	mkdir -p sp
	"$FIXTURES/gen-site-packages.sh" sp 3 > /dev/null
}

@test "bless --runs records the CPU hashes; check --runs matches them" {
	[ -x "$PROBE" ] || skip "envparity-probe not built"
	setup_env
	run "$EP" bless -q --no-discover --site-packages sp --runs 3 --backend cpu --probe "$PROBE"
	[ "$status" -eq 0 ]
	git clone -q .envparity/store wt
	for w in kat gemm reduce; do
		[[ "$(jq -r --arg k "probe.cpu.$w.sha256" '.facts[$k]' wt/default/manifest.json)" =~ ^[0-9a-f]{64}$ ]]
	done
	# The canary varies by design: never a golden hash.
	[ "$(jq -r '.facts["probe.cpu.atomic.sha256"] // "none"' wt/default/manifest.json)" = none ]
	[ -n "$(jq -r '.facts["probe.cpu.domain"]' wt/default/manifest.json)" ]
	run "$EP" check --no-discover --site-packages sp --runs 3 --backend cpu --probe "$PROBE" --json r.json
	echo "$output"
	for w in kat gemm reduce; do
		[ "$(jq -r --arg k "probe.cpu.$w.sha256" '.results[] | select(.key == $k) | .status' r.json)" = pass ]
		[ "$(jq -r --arg k "probe.cpu.$w.runs" '.results[] | select(.key == $k) | .status' r.json)" = pass ]
	done
	[ "$(jq -r '.results[] | select(.key == "probe.cpu.kat.known_answer") | .status' r.json)" = pass ]
	[ "$(jq -r '[.results[] | select(.area == "probe" and (.status == "fail" or .status == "error"))] | length' r.json)" = 0 ]
	validate_schema report r.json
}

@test "check without --runs shows the golden's probe hashes as skips, not drift" {
	[ -x "$PROBE" ] || skip "envparity-probe not built"
	setup_env
	"$EP" bless -q --no-discover --site-packages sp --runs 2 --backend cpu --probe "$PROBE" > /dev/null
	run "$EP" check --no-discover --site-packages sp --json r.json
	[ "$(jq -r '.results[] | select(.key == "probe.cpu.gemm.sha256") | .status' r.json)" = skip ]
	[[ "$(jq -r '.results[] | select(.key == "probe.cpu.gemm.sha256") | .message' r.json)" == *"not run"* ]]
	[ "$(jq -r '[.results[] | select(.area == "probe" and .status == "fail")] | length' r.json)" = 0 ]
}

@test "check --runs fails and names the runs that differ (test double)" {
	setup_env
	"$EP" bless -q --no-discover --site-packages sp > /dev/null
	export FAKE_PROBE_STATE=$T/state FAKE_PROBE_MODE=nondet
	mkdir -p "$FAKE_PROBE_STATE"
	run "$EP" check --no-discover --site-packages sp --runs 5 --backend cpu --probe "$FAKE" --json r.json
	echo "$output"
	[ "$status" -eq 1 ]
	[ "$(jq -r '.results[] | select(.key == "probe.cpu.gemm.runs") | .status' r.json)" = fail ]
	[[ "$(jq -r '.results[] | select(.key == "probe.cpu.gemm.runs") | .message' r.json)" == *"runs 2 and 4 differ from run 1"* ]]
}

@test "a machine whose runs differ is not blessed (test double)" {
	setup_env
	export FAKE_PROBE_STATE=$T/state FAKE_PROBE_MODE=nondet
	mkdir -p "$FAKE_PROBE_STATE"
	run "$EP" bless -q --no-discover --site-packages sp --runs 5 --backend cpu --probe "$FAKE"
	[ "$status" -eq 1 ]
	[[ "$output" == *"not blessed: the reference workload failed"* ]]
	[ ! -e .envparity/store/refs/heads/main ] || ! git -C .envparity/store rev-parse -q --verify main
}

@test "bad probe options are usage errors" {
	run "$EP" check --runs 0
	[ "$status" -eq 2 ]
	[[ "$output" == *"--runs 0: not a number"* ]]
	run "$EP" check --backend tpu
	[ "$status" -eq 2 ]
	run "$EP" bless --runs 2 some.json
	[ "$status" -eq 2 ]
}
