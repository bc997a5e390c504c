#!/usr/bin/env bats
# The fleet under a real Slurm cluster on 127.0.0.1 (tests/slurm-local.sh:
# Debian's slurm-wlm and munge, one slurmd per node, all on this host): the
# shipped audit batch script (ci/slurm/envparity-audit.sbatch) and the
# training job's preflight (ci/slurm/preflight.sh) on 4 nodes, with one
# node drifted in turn: a package, a library, an environment variable, a
# probe hash, a team's workload (docs/examples/workload_torch.py).  The nodes share this host, so a node's difference comes
# from the environment its tasks get (the TaskProlog's nodeenv/<node>.env;
# never n1's, where the batch script itself runs and passes its
# environment on to every task), and the probe is the GPU stand-in
# tests/doubles/fake_probe.sh.
#
# A compromised node is n2 running code of its own before its capture
# (BASH_ENV in its task environment: every task is a bash -c); it can do
# what the job's user can on a shared file system, never touch another
# host's local disk (here every node shares one host: the test's attacker
# keeps to what a separate machine could reach).  Another user of a
# shared submit directory is `nobody`, through setpriv.  EP_SLURM_CI
# points at another copy of ci/slurm (the scripts as they were, to show
# what they let through).

load setup

setup_file() {
	command -v slurmctld >/dev/null && command -v munged >/dev/null ||
		{ echo "slurm-wlm and munge missing: run tools/deps.sh test" >&2; return 1; }
	# munged wants o+x on every directory above its socket: not bats'.
	export SLURM_LOCAL_BASE=/tmp
	eval "$(bash "$BATS_TEST_DIRNAME/../slurm-local.sh" start 4)"
	export SLURM_CONF SLURM_LOCAL_DIR
}

teardown_file() {
	bash "$BATS_TEST_DIRNAME/../slurm-local.sh" stop "$SLURM_LOCAL_DIR"
}

setup() {
	T=$(mktemp -d "${BATS_TMPDIR:-/tmp}/envparity-slurm.XXXXXX")
	chmod 755 "$T"
	export XDG_CACHE_HOME=$T/cache HOME=$T/home
	seed_cache
	unset GITHUB_ACTIONS GITHUB_STEP_SUMMARY CI GITLAB_CI
	mkdir -p "$HOME"
	cd "$T" || return 1
	rm -f "$SLURM_LOCAL_DIR"/nodeenv/*.env
	scontrol update nodename=n[1-4] state=resume >/dev/null 2>&1 || true
	# What every node sees: this build, a conda environment, the probe
	# stand-in (CPU backend only: no GPU here).
	export ENVPARITY=$EP
	mkdir -p conda/conda-meta
	printf '{"name": "numpy", "version": "1.26.4", "build": "py311h0", "channel": "conda-forge"}\n' \
	    > conda/conda-meta/numpy-1.26.4-py311h0.json
	export CONDA_PREFIX=$T/conda
	export ENVPARITY_PROBE=$BATS_TEST_DIRNAME/../doubles/fake_probe.sh
	# Its settings (FAKE_*) reach it through envparity's allowlist of
	# what a helper gets (docs/manifest.md, "What child processes see").
	export ENVPARITY_CHILD_ENV='FAKE_*'
}

teardown() {
	rm -f "$SLURM_LOCAL_DIR"/nodeenv/*.env
	scancel --user="$(id -un)" >/dev/null 2>&1 || true
	cd / && rm -rf "$T"
}

# Submit a batch script and wait for it; $JOB_EXIT is its exit code.
run_job() { # sbatch arguments...
	local id state
	id=$(sbatch --parsable -o "$T/job-%j.out" "$@") || return 1
	for _ in $(seq 1 600); do
		state=$(scontrol show job "$id" 2>/dev/null | sed -n 's/.*JobState=\([A-Z_]*\).*/\1/p')
		case $state in COMPLETED|FAILED|CANCELLED|TIMEOUT|NODE_FAIL) break ;; esac
		sleep 0.1
	done
	JOB_EXIT=$(scontrol show job "$id" | sed -n 's/.* ExitCode=\([0-9]*\):.*/\1/p')
	JOB_OUT=$T/job-$id.out
	cat "$JOB_OUT"
	echo "job $id: $state, exit $JOB_EXIT"
}

# The nodes and keys that failed in the fleet report, "node key" each.
failed() { # report.json
	jq -r '.results[] | select(.status == "fail" and .node != null) | "\(.node) \(.key)"' "$1" | sort -u
}

CI_SLURM=${EP_SLURM_CI:-$REPO_ROOT/ci/slurm}

audit() { # capture options...
	run_job -N4 "$CI_SLURM/envparity-audit.sbatch" "$T/audit" -- --no-discover "$@"
}

@test "slurm audit: every node captures once, named by Slurm's node name, and the fleet is at parity" {
	audit
	[ "$JOB_EXIT" = 0 ]
	ls audit/*.json
	[ "$(ls audit/*.json | xargs -n1 basename | tr '\n' ' ')" = "n1.json n2.json n3.json n4.json " ]
	for n in n1 n2 n3 n4; do
		[ "$(jq -r .meta.node "audit/$n.json")" = "$n" ]
	done
	[ "$(jq -r .fleet.node_counts.reported audit/report/fleet.json)" = 4 ]
	[ "$(jq -r .fleet.expect audit/report/fleet.json)" = 'n[1-4]' ]
	xmllint --noout audit/report/fleet.xml
	grep -q 'envparity fleet: PARITY' "$JOB_OUT"
}

@test "slurm audit: a package on one node (its conda environment) is named, with that node only" {
	cp -r conda conda3
	sed -i 's/1.26.4/2.0.0/' conda3/conda-meta/*.json
	echo "CONDA_PREFIX=$T/conda3" > "$SLURM_LOCAL_DIR/nodeenv/n3.env"
	audit
	[ "$JOB_EXIT" = 1 ]
	failed audit/report/fleet.json
	[ "$(failed audit/report/fleet.json | cut -d' ' -f1 | sort -u)" = n3 ]
	failed audit/report/fleet.json | grep -qx 'n3 conda.pkg.numpy'
}

@test "slurm audit: a library loaded from elsewhere on one node is named, with that node only" {
	mkdir lib3
	cp /usr/local/cuda/lib64/libcudart.so.13 lib3/
	printf 'x' >> lib3/libcudart.so.13
	echo "LD_LIBRARY_PATH=$T/lib3" > "$SLURM_LOCAL_DIR/nodeenv/n2.env"
	audit
	[ "$JOB_EXIT" = 1 ]
	failed audit/report/fleet.json
	[ "$(failed audit/report/fleet.json | cut -d' ' -f1 | sort -u)" = n2 ]
	failed audit/report/fleet.json | grep -qx 'n2 lib.cudart.sha256'
	failed audit/report/fleet.json | grep -qx 'n2 lib.cudart.path'
	[ -z "$(failed audit/report/fleet.json | grep -v ' lib\.cudart\.')" ]
}

@test "slurm audit: an environment variable set on one node is named, with that node only" {
	echo 'NCCL_ALGO=Tree' > "$SLURM_LOCAL_DIR/nodeenv/n4.env"
	audit
	[ "$JOB_EXIT" = 1 ]
	[ "$(failed audit/report/fleet.json)" = "n4 env.NCCL_ALGO" ]
}

@test "slurm audit: a node whose probe computes other bits is named with its domain and the likely cause" {
	# Not n1: the batch script runs there, and its TaskProlog environment
	# would reach every srun task it starts.
	printf 'FAKE_PROBE_MODE=other\nNCCL_PROTO=LL\n' > "$SLURM_LOCAL_DIR/nodeenv/n2.env"
	audit --runs 2 --backend cpu
	[ "$JOB_EXIT" = 1 ]
	failed audit/report/fleet.json
	failed audit/report/fleet.json | grep -qx 'n2 probe.cpu.gemm.sha256'
	[ "$(failed audit/report/fleet.json | cut -d' ' -f1 | sort -u)" = n2 ]
	[ "$(jq -r '.fleet.splits[] | select(.key == "probe.cpu.gemm.sha256") | "\(.kind) \(.domain) \(.groups[1].nodes) \(.causes | join(","))"' audit/report/fleet.json)" = \
	    "probe x86_64 envparity-probe 1 n2 env.NCCL_PROTO=LL" ]
}

@test "slurm audit: the team's PyTorch workload computes the same bits on every node; OMP_NUM_THREADS=2 on n3 is named as the cause" {
	/usr/bin/python3 -c 'import torch' 2>/dev/null ||
		skip "python3-torch is not installed (tools/deps.sh)"
	cp "$REPO_ROOT/docs/examples/workload_torch.py" .
	export OMP_NUM_THREADS=1
	echo 'OMP_NUM_THREADS=2' > "$SLURM_LOCAL_DIR/nodeenv/n3.env"
	audit --runs 2 --backend cpu --workload "model=/usr/bin/python3 $T/workload_torch.py"
	[ "$JOB_EXIT" = 1 ]
	failed audit/report/fleet.json
	h=$(jq -r '.facts."workload.model.sha256"' audit/n1.json)
	[[ "$h" =~ ^[0-9a-f]{64}$ ]]
	for n in n2 n4; do
		[ "$(jq -r '.facts."workload.model.sha256"' "audit/$n.json")" = "$h" ]
		[ "$(jq -r '.facts."workload.model.runs"' "audit/$n.json")" = identical ]
	done
	[ "$(failed audit/report/fleet.json)" = "n3 env.OMP_NUM_THREADS
n3 workload.model.sha256" ]
	[ "$(jq -r '.fleet.splits[] | select(.key == "workload.model.sha256") | "\(.groups[1].nodes) \(.causes | join(","))"' audit/report/fleet.json)" = \
	    "n3 env.OMP_NUM_THREADS=2" ]
}

@test "slurm audit: a node that is down is missing, and the audit fails naming it" {
	scontrol update nodename=n4 state=down reason=envparity-test
	run_job -N3 "$CI_SLURM/envparity-audit.sbatch" "$T/audit" -- --no-discover
	scontrol update nodename=n4 state=resume
	[ "$JOB_EXIT" = 1 ]
	[ "$(jq -r '[.fleet.nodes[] | select(.state == "missing") | .name] | join(",")' audit/report/fleet.json)" = n4 ]
	grep -q 'n4: node.manifest: expected, but no manifest names it' "$JOB_OUT"
}

@test "slurm audit: a directory that exists, or under a directory others can write, is refused" {
	mkdir audit && echo '{}' > audit/old.json
	audit
	[ "$JOB_EXIT" = 2 ]
	grep -q "envparity-audit: $T/audit refused: it exists already" "$JOB_OUT"
	rm -r audit
	mkdir shared
	chmod 777 shared
	run_job -N4 "$CI_SLURM/envparity-audit.sbatch" "$T/shared/audit" -- --no-discover
	[ "$JOB_EXIT" = 2 ]
	grep -q "envparity-audit: $T/shared/audit refused: $T/shared is writable by group or others (mode 777) and not sticky" "$JOB_OUT"
	[ ! -e shared/audit ]
}

# n2's code of its own (BASH_ENV), run before its capture: what a node
# the job's user runs code on can do to the audit through a shared file
# system.  Within 8 s, as soon as n3 has written its manifest in DIR (the
# audit's or the preflight's), it puts a clean one in its place, named
# n3, and one for n4, made from its own capture.
compromise_n2() { # dir-glob
	cat > evil.sh <<-EOF
	unset BASH_ENV
	forge() { # node file
		SLURMD_NODENAME=\$1 "$EP" capture -q --no-discover -o "\$2.tmp" 2>/dev/null && mv -f "\$2.tmp" "\$2"
	}
	for _ in \$(seq 1 80); do
		for d in $1; do
			[ -f "\$d/n3.json" ] || continue
			forge n3 "\$d/n3.json"; forge n4 "\$d/n4.json"
			echo forged > "$T/FORGED"
			break 2
		done
		sleep 0.1
	done
	EOF
	echo "BASH_ENV=$T/evil.sh" > "$SLURM_LOCAL_DIR/nodeenv/n2.env"
	# n3 drifted: another numpy in its conda environment.
	cp -r conda conda3
	sed -i 's/1.26.4/2.0.0/' conda3/conda-meta/*.json
	echo "CONDA_PREFIX=$T/conda3" > "$SLURM_LOCAL_DIR/nodeenv/n3.env"
}

@test "slurm audit: a compromised node writing another node's manifest, and one for a node that is down, does not hide the drift" {
	compromise_n2 "$T/audit"
	scontrol update nodename=n4 state=down reason=envparity-test
	run_job -N3 "$CI_SLURM/envparity-audit.sbatch" "$T/audit" -- --no-discover
	scontrol update nodename=n4 state=resume
	ls -l audit
	[ "$JOB_EXIT" = 1 ]
	failed audit/report/fleet.json
	failed audit/report/fleet.json | grep -qx 'n3 conda.pkg.numpy'
	[ "$(jq -r '[.fleet.nodes[] | select(.state == "missing") | .name] | join(",")' audit/report/fleet.json)" = n4 ]
	[ "$(jq -r '.fleet.nodes[] | select(.name == "n3") | .state' audit/report/fleet.json)" = reported ]
}

@test "slurm audit: a node that speaks for another through its own output is that node's error, naming both" {
	# n2 prints, as its capture, a clean manifest that says it is n3.
	cat > evil.sh <<-EOF
	unset BASH_ENV
	SLURMD_NODENAME=n3 "$EP" capture -q --no-discover -o - | base64 -w 76
	exit 0
	EOF
	echo "BASH_ENV=$T/evil.sh" > "$SLURM_LOCAL_DIR/nodeenv/n2.env"
	cp -r conda conda3
	sed -i 's/1.26.4/2.0.0/' conda3/conda-meta/*.json
	echo "CONDA_PREFIX=$T/conda3" > "$SLURM_LOCAL_DIR/nodeenv/n3.env"
	audit
	[ "$JOB_EXIT" = 1 ]
	[ "$(jq -r '.fleet.nodes[] | select(.name == "n2") | .error' audit/report/fleet.json)" = \
	    "$(jq -r '.fleet.nodes[] | select(.name == "n2") | .file' audit/report/fleet.json): the manifest says it is node 'n3', but it came as node n2's (its file's name, --bind-filenames): a node speaks only for itself" ]
	failed audit/report/fleet.json | grep -qx 'n3 conda.pkg.numpy'
}

@test "slurm scripts: the directory checks and the capture are the same code in both" {
	part() { sed -n '/^# --- kept identical in/,/^# --- end of the part kept identical ---$/p' "$1" | sed 1d; }
	[ -n "$(part "$REPO_ROOT/ci/slurm/preflight.sh")" ]
	diff <(part "$REPO_ROOT/ci/slurm/preflight.sh") <(part "$REPO_ROOT/ci/slurm/envparity-audit.sbatch")
}

# A training job whose first line is the preflight; TRAINED marks that
# training started.
train_job() {
	cat > train.sh <<-EOF
	#!/bin/bash
	#SBATCH --ntasks-per-node=1
	"$CI_SLURM/preflight.sh" -- --no-discover --runs 2 --backend cpu || exit 1
	touch "$T/TRAINED"
	EOF
	chmod +x train.sh
	SECONDS=0
	run_job -N4 -D "$T" train.sh
	PREFLIGHT_SECONDS=$SECONDS
	echo "preflight job on 4 nodes: ${PREFLIGHT_SECONDS}s (submit to end)"
}

@test "slurm preflight: at parity training starts" {
	train_job
	[ "$JOB_EXIT" = 0 ]
	[ -e TRAINED ]
	ls .envparity-preflight/*/
	[ "$(ls .envparity-preflight/*/*.json | wc -l)" = 4 ]
}

@test "slurm preflight: a node that disagrees stops the job before training" {
	echo 'FAKE_PROBE_MODE=other' > "$SLURM_LOCAL_DIR/nodeenv/n2.env"
	train_job
	[ "$JOB_EXIT" = 1 ]
	[ ! -e TRAINED ]
	grep -q 'n2: probe.cpu.gemm.sha256' "$JOB_OUT"
}

@test "slurm preflight: a compromised node writing another node's manifest does not let training start" {
	compromise_n2 "$T/.envparity-preflight/*"
	train_job
	[ "$JOB_EXIT" = 1 ]
	[ ! -e TRAINED ]
	grep -q 'n3: conda.pkg.numpy' "$JOB_OUT"
}

@test "slurm preflight: a directory another user made in a shared submit directory is refused, and training does not start" {
	# A submit directory every user can write (a project's shared
	# folder), where nobody has made the next jobs' preflight directories
	# and keeps putting a clean n2 in place of whatever n2 writes there.
	chmod 1777 "$T"
	setpriv --reuid=nobody --regid=nogroup --clear-groups mkdir -m 777 .envparity-preflight
	next=$(($(sbatch --parsable --wrap true) + 1))
	for id in $(seq "$next" $((next + 20))); do
		setpriv --reuid=nobody --regid=nogroup --clear-groups mkdir -m 777 ".envparity-preflight/$id"
	done
	"$EP" capture -q --no-discover --node n2 --runs 2 --backend cpu -o clean.json
	chmod 644 clean.json
	setpriv --reuid=nobody --regid=nogroup --clear-groups bash -c '
		for _ in $(seq 1 300); do
			for d in .envparity-preflight/*/; do
				[ -f "$d/n2.json" ] && ! cmp -s clean.json "$d/n2.json" &&
					cp clean.json "$d/.n2" && mv -f "$d/.n2" "$d/n2.json"
			done
			sleep 0.02
		done' &
	swapper=$!
	echo 'FAKE_PROBE_MODE=other' > "$SLURM_LOCAL_DIR/nodeenv/n2.env"
	train_job
	kill "$swapper" 2>/dev/null || true
	wait "$swapper" 2>/dev/null || true
	[ "$JOB_EXIT" = 1 ]
	[ ! -e TRAINED ]
	grep -q "envparity preflight: .*refused: $T/.envparity-preflight belongs to user nobody" "$JOB_OUT"
	# And a parent writable by others, without the sticky bit.
	rm -rf .envparity-preflight
	chmod 777 "$T"
	rm -f "$SLURM_LOCAL_DIR/nodeenv/n2.env"
	train_job
	[ "$JOB_EXIT" = 1 ]
	[ ! -e TRAINED ]
	grep -q "refused: $T is writable by group or others (mode 777) and not sticky" "$JOB_OUT"
	[ ! -e .envparity-preflight ]
}

@test "slurm scripts: shellcheck finds nothing" {
	shellcheck "$REPO_ROOT/ci/slurm/envparity-audit.sbatch" "$REPO_ROOT/ci/slurm/preflight.sh"
}

@test "slurm preflight: outside a Slurm job it refuses, exit 2" {
	unset SLURM_JOB_ID SLURM_JOB_NODELIST
	run "$REPO_ROOT/ci/slurm/preflight.sh"
	[ "$status" -eq 2 ]
	[[ "$output" == *"not inside a Slurm job"* ]]
}
