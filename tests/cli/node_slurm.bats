#!/usr/bin/env bats
# node_slurm.bats: the node facts under a real Slurm cluster on 127.0.0.1
# (tests/slurm-local.sh, as slurm.bats runs it): the shipped audit
# (ci/slurm/envparity-audit.sbatch) and the training job's preflight
# (ci/slurm/preflight.sh) on 4 nodes, one of them drifted in every way a
# node's setup splits a cluster: its HCA's port at HDR and its firmware
# older, nvidia_peermem not loaded, another MTU, another THP mode, a
# locked-memory limit of 64 KiB, another /dev/shm.  The nodes share this
# host, so each reads its /sys and /proc from a fixture tree
# (EP_NODE_ROOT: tests/fixtures/node, the stand-in for the HCAs that are
# not here) given by the TaskProlog's nodeenv/<node>.env, and n3's limit
# comes from its task shell (BASH_ENV: every task is a bash -c).

load setup

setup_file() {
	command -v slurmctld >/dev/null && command -v munged >/dev/null ||
		{ echo "slurm-wlm and munge missing: run tools/deps.sh test" >&2; return 1; }
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
	unset GITHUB_ACTIONS GITHUB_STEP_SUMMARY CI GITLAB_CI
	mkdir -p "$HOME"
	cd "$T" || return 1
	rm -f "$SLURM_LOCAL_DIR"/nodeenv/*.env
	scontrol update nodename=n[1-4] state=resume >/dev/null 2>&1 || true
	export ENVPARITY=$EP
	export ENVPARITY_PROBE=$BATS_TEST_DIRNAME/../doubles/fake_probe.sh
	export ENVPARITY_CHILD_ENV='FAKE_*'
	# Every node a tree of its own, with a /dev/shm: a directory of the
	# test's file system for three, the real tmpfs /dev/shm for n3 (of
	# another size); n3's tree drifted.
	for n in n1 n2 n4; do
		cp -a "$FIXTURES/node/ib-ndr" "$T/root-$n"
		mkdir -p "$T/root-$n/dev/shm"
		echo "EP_NODE_ROOT=$T/root-$n" > "$SLURM_LOCAL_DIR/nodeenv/$n.env"
	done
	cp -a "$FIXTURES/node/ib-drift" "$T/root-n3"
	mkdir -p "$T/root-n3/dev"
	ln -s /dev/shm "$T/root-n3/dev/shm"
	printf 'ulimit -l 64\n' > "$T/lowlimit.sh"
	{
		echo "EP_NODE_ROOT=$T/root-n3"
		echo "BASH_ENV=$T/lowlimit.sh"
	} > "$SLURM_LOCAL_DIR/nodeenv/n3.env"
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

# What n3 differs in, as "node key" lines.
DRIFT='n3 node.kmod.nvidia_peermem.state
n3 node.kmod.nvidia_peermem.version
n3 node.limits.memlock
n3 node.mem.thp
n3 node.net.eno1.mtu
n3 node.rdma.mlx5_0.fw_ver
n3 node.rdma.mlx5_0.port1.rate
n3 node.shm.size_mib'

@test "slurm audit: the drifted node is named with each node fact it differs in, and no other" {
	run_job -N4 "$REPO_ROOT/ci/slurm/envparity-audit.sbatch" "$T/audit" -- --no-discover
	[ "$JOB_EXIT" = 1 ]
	jq -r '.results[] | select(.status == "fail" and .node != null) |
	    "\(.node) \(.key)"' audit/report/fleet.json | sort -u > failed
	diff -u <(echo "$DRIFT") failed
	[ "$(jq -r '.facts["node.limits.memlock"]' audit/n3.json)" = 65536 ]
	[ "$(jq -r '.facts["node.rdma.mlx5_0.port1.rate"]' audit/n1.json)" = "400 Gb/sec (4X NDR)" ]
	grep -q 'node.rdma.mlx5_0.port1.rate' "$JOB_OUT"
}

@test "slurm preflight: the drifted node stops the job before training, named with its keys" {
	cat > train.sh <<-EOF
	#!/bin/bash
	#SBATCH --ntasks-per-node=1
	"$REPO_ROOT/ci/slurm/preflight.sh" -- --no-discover --runs 2 --backend cpu || exit 1
	touch "$T/TRAINED"
	EOF
	chmod +x train.sh
	run_job -N4 -D "$T" train.sh
	[ "$JOB_EXIT" = 1 ]
	[ ! -e TRAINED ]
	for k in node.rdma.mlx5_0.port1.rate node.rdma.mlx5_0.fw_ver \
	    node.kmod.nvidia_peermem.state node.net.eno1.mtu \
	    node.limits.memlock node.shm.size_mib node.mem.thp; do
		grep -q "n3: $k" "$JOB_OUT"
	done
}
