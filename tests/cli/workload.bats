#!/usr/bin/env bats
# workload.bats: a team's own reference run (--workload NAME=COMMAND,
# docs/workloads.md) with the example docs/examples/workload_torch.py on
# Debian's python3-torch (CPU): identical bits in every run; the unseeded
# variant named as it differs; a node of the fleet whose OMP_NUM_THREADS
# differs named with that fact as the likely cause; a check against the
# golden in the same domain failing on the hash (another domain's golden
# is a skip: tests/unit/cases/compare.test); and workloads that hang,
# crash, print nothing or print 1 GB (plain /bin/sh commands), each one
# clear result while the rest goes on.  PyTorch is imported once per run,
# so the model's runs are shared by the file (setup_file).

load setup

PY=/usr/bin/python3

have_torch() {
	"$PY" -c 'import torch' 2> /dev/null
}

# Two captures of this machine with the example model, kept for the
# file: OMP_NUM_THREADS=1 (with the unseeded variant) and 2.
setup_file() {
	have_torch || return 0
	local w=$BATS_FILE_TMPDIR/w
	mkdir -p "$w/sp" "$w/home"
	cp "$BATS_TEST_DIRNAME/../../docs/examples/workload_torch.py" "$w/"
	cd "$w" || return 1
	export HOME=$w/home XDG_CACHE_HOME=$w/cache
	"$FIXTURES/gen-site-packages.sh" sp 2 > /dev/null
	OMP_NUM_THREADS=1 "$EP" capture -q --no-discover --site-packages sp \
	    --node n1 --runs 3 --backend cpu \
	    --workload "model=$PY workload_torch.py" \
	    --workload "loose=$PY workload_torch.py --no-seed" -o one.json
	OMP_NUM_THREADS=2 "$EP" capture -q --no-discover --site-packages sp \
	    --node n4 --runs 1 --backend cpu \
	    --workload "model=$PY workload_torch.py" -o two.json
}

# A capture without the unseeded variant.
NO_LOOSE='del(.facts."workload.loose.runs") | .meta.probe.findings |= map(select(.key | startswith("workload.loose") | not))'

need_torch() {
	have_torch || skip "python3-torch is not installed (tools/deps.sh)"
	W=$BATS_FILE_TMPDIR/w
}

@test "workload: the PyTorch example is identical in every run; unseeded, its runs are named as they differ" {
	need_torch
	m=$W/one.json
	[[ "$(fact "$m" workload.model.sha256)" =~ ^[0-9a-f]{64}$ ]]
	[ "$(fact "$m" workload.model.runs)" = identical ]
	[ "$(fact "$m" workload.loose.runs)" = "3 distinct" ]
	[ -z "$(fact "$m" workload.loose.sha256)" ]
	# The domain: what binds the bits here (no GPU: the CPU's ISA and
	# the framework), never a setting such as OMP_NUM_THREADS.
	[[ "$(fact "$m" workload.domain)" == *"cpu "* ]]
	[[ "$(fact "$m" workload.domain)" != *OMP* ]]
	[ "$(fact "$m" env.OMP_NUM_THREADS)" = 1 ]
	# The times are meta, one a run; the finding is kept for fleet.
	[ "$(jq '.meta.workload.model.seconds | length' "$m")" = 3 ]
	[[ "$(jq -r '.meta.probe.findings[] | select(.key == "workload.loose") | .message' "$m")" == \
	    "workload loose: 3 distinct outputs in 3 runs:"*" in run 1;"*" in run 2;"*" in run 3" ]]
	[ "$(jq -r '[.meta.probe.findings[] | select(.key | startswith("workload.model"))] | length' "$m")" = 0 ]
	# Another thread count on the same stack: other bits.
	[ "$(fact "$W/two.json" workload.domain)" = "$(fact "$m" workload.domain)" ]
	[ "$(fact "$W/two.json" workload.model.sha256)" != "$(fact "$m" workload.model.sha256)" ]
	validate_schema manifest "$m"
}

@test "workload: fleet names the node of one domain whose hash differs, with env.OMP_NUM_THREADS as the likely cause" {
	need_torch
	mkdir d
	for n in n1 n2 n3; do
		jq --arg n "$n" "$NO_LOOSE"' | .meta.node = $n' \
		    "$W/one.json" > "d/$n.json"
	done
	cp "$W/two.json" d/n4.json
	run "$EP" fleet d --json r.json
	echo "$output"
	[ "$status" -eq 1 ]
	[[ "$output" == *"n4: workload.model.sha256: "*" on the fleet's majority (3 of 4 nodes in domain "* ]]
	[[ "$output" == *"the nodes that differ are exactly those with: env.OMP_NUM_THREADS=2"* ]]
	[ "$(jq -r '.fleet.splits[] | select(.key == "workload.model.sha256") | .causes | join(",")' r.json)" = \
	    "env.OMP_NUM_THREADS=2" ]
	# In a domain of its own, n4's hash is said, never failed.
	jq '.facts."workload.domain" = "another stack"' "$W/two.json" > d/n4.json
	run "$EP" fleet d --json r.json
	echo "$output"
	[ "$(jq -r '[.results[] | select(.key == "workload.model.sha256" and .status == "fail")] | length' r.json)" = 0 ]
	[ "$(jq -r '.fleet.splits[] | select(.key == "workload.domain") | .kind' r.json)" = domain ]
	validate_schema fleet r.json
}

@test "workload: check against the golden fails on the hash in the same domain, and on the setting that changed it" {
	need_torch
	cp -r "$W/workload_torch.py" "$W/sp" .
	jq "$NO_LOOSE" "$W/one.json" > golden.json
	"$EP" bless -q golden.json > /dev/null
	OMP_NUM_THREADS=2 run "$EP" check --no-discover --site-packages sp \
	    --workload "model=$PY workload_torch.py" --runs 1 --backend cpu --json r.json
	echo "$output"
	[ "$status" -eq 1 ]
	st() { jq -r --arg k "$1" '.results[] | select(.key == $k) | .status' r.json; }
	[ "$(st workload.model.sha256)" = fail ]
	[ "$(st workload.model)" = pass ]
	[ "$(st workload.domain)" = pass ]
	[ "$(st env.OMP_NUM_THREADS)" = fail ]
	validate_schema report r.json
}

@test "workload: a hang, a crash, no output and 1 GB are one clear result each; the others still run" {
	mkdir sp
	run "$EP" capture -q --no-discover --site-packages sp --runs 2 --backend cpu --timeout 1 \
	    --workload 'hang=[ "$ENVPARITY_WORKLOAD_RUN" = 1 ] && exec sleep 60; echo late' \
	    --workload 'crash=echo some; kill -SEGV $$' \
	    --workload 'empty=true' \
	    --workload 'flood=head -c 1000000000 /dev/zero' \
	    --workload 'ok=printf "ok:%s" "${OMP_NUM_THREADS-unset}" > "$ENVPARITY_WORKLOAD_OUTPUT"; echo ignored' \
	    -o m.json
	echo "$output"
	[ "$status" -eq 0 ]
	msg() { jq -r --arg k "$1" '.meta.probe.findings[] | select(.key == $k) | .message' m.json; }
	[ "$(msg workload.hang.run1)" = "workload hang: run 1 of 2: hung, killed after 1 s" ]
	[ -z "$(msg workload.hang.run2)" ]
	[ "$(fact m.json workload.hang.runs)" = identical ]
	[ "$(msg workload.crash.run2)" = "workload crash: run 2 of 2: crashed (signal 11, Segmentation fault)" ]
	[ "$(msg workload.empty)" = "workload empty: no run of 2 gave an output" ]
	[ "$(msg workload.flood.run1)" = "workload flood: run 1 of 2: wrote more than 64 MiB (the limit of an output; stopped there)" ]
	[ "$(fact m.json workload.ok.sha256)" = "$(printf 'ok:%s' "${OMP_NUM_THREADS-unset}" | sha256sum | cut -d' ' -f1)" ]
}

@test "workload: a malformed or repeated --workload is exit 2, one line naming it, before any work" {
	run "$EP" capture --workload 'python3 model.py'
	[ "$status" -eq 2 ]
	[[ "$output" == *"--workload: expected NAME=COMMAND, got no '='"* ]]
	run "$EP" check --workload 'm=true' --workload 'm=false'
	[ "$status" -eq 2 ]
	[[ "$output" == *"--workload m: named twice"* ]]
	run "$EP" bless --workload 'a.b=true'
	[ "$status" -eq 2 ]
	[[ "$output" == *"--workload: the name may hold only letters, digits, '_' and '-'"* ]]
	run "$EP" probe --workload 'm=true'
	[ "$status" -eq 2 ]
}

@test "workload: a profile's policy runs its workloads in check from a named store, never from the implicit one" {
	mkdir sp
	"$EP" bless -q --no-discover --site-packages sp --workload 'smoke=echo ok' > /dev/null
	git clone -q .envparity/store wt
	printf '%s\n' '{"schema": "envparity/policy@1", "workloads": {"smoke": "echo ok"}}' > wt/default/policy.json
	git -C wt add default/policy.json
	git -C wt -c user.name=t -c user.email=t@x commit -qm policy
	git -C wt push -q origin HEAD
	run "$EP" check --store "$T/.envparity/store" --no-discover --site-packages sp --json r.json
	echo "$output"
	[ "$status" -eq 0 ]
	st() { jq -r --arg k "$1" '.results[] | select(.key == $k) | .status' r.json; }
	[ "$(st workload.smoke)" = pass ]
	[ "$(st workload.smoke.sha256)" = pass ]
	# The same store found implicitly in the current directory, which a
	# checkout can write: its workloads are not run, and it says so.
	run "$EP" check --no-discover --site-packages sp --json r.json
	echo "$output"
	[ "$status" -eq 1 ]
	[ "$(st workload.smoke)" = skip ]
	[[ "$(jq -r '.results[] | select(.key == "workload.smoke") | .message' r.json)" == \
	    "workload smoke (the policy's): not run: the implicit store"* ]]
	[ "$(st workload.smoke.runs)" = fail ]
}

@test "workload: bless runs the profile's policy's workloads from a named store, so the golden holds their hashes; never from the implicit one" {
	mkdir sp
	"$EP" bless -q --no-discover --site-packages sp > /dev/null
	git clone -q .envparity/store wt
	printf '%s\n' '{"schema": "envparity/policy@1", "workloads": {"smoke": "echo other"}}' > wt/default/policy.json
	git -C wt add default/policy.json
	git -C wt -c user.name=t -c user.email=t@x commit -qm policy
	git -C wt push -q origin HEAD
	golden() { git -C .envparity/store show "HEAD:default/manifest.json"; }
	run "$EP" bless -q --store "$T/.envparity/store" --no-discover --site-packages sp
	echo "$output"
	[ "$status" -eq 0 ]
	want=$(printf 'other\n' | sha256sum | cut -d' ' -f1)
	[ "$(golden | jq -r '.facts["workload.smoke.sha256"]')" = "$want" ]
	[ "$(golden | jq -r '.facts["workload.smoke.runs"]')" = identical ]
	# From the implicit store, which the checkout can write: not run,
	# and said.
	run "$EP" bless -q --no-discover --site-packages sp
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"workload smoke (the policy's): not run: the implicit store"* ]]
	[ "$(golden | jq -r '.facts["workload.smoke.sha256"] // "none"')" = none ]
}
