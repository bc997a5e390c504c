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
# comes from its task shell (BASH_ENV: every task is a bash -c).  Then
# the shipped HealthCheckProgram (ci/slurm/healthcheck.sh), run as slurmd
# runs it against the cluster (could not check: in service unless asked;
# a long reason cut to whole keys) and under the real slurmd
# (HealthCheckNodeState=IDLE,CYCLE): drift drains, parity resumes, an
# administrator's drain stays, a store out of reach drains nothing.

load setup

setup_file() {
	command -v slurmctld >/dev/null && command -v munged >/dev/null ||
		{ echo "slurm-wlm and munge missing: run tools/deps.sh test" >&2; return 1; }
	export SLURM_LOCAL_BASE=/tmp
	eval "$(bash "$BATS_TEST_DIRNAME/../slurm-local.sh" start 4)"
	export SLURM_CONF SLURM_LOCAL_DIR
	# One hash cache for the file, warmed here: the CUDA libraries are
	# hashed and loaded once, not by every node of every job.
	mkdir -m 700 "$BATS_FILE_TMPDIR/cache"
	XDG_CACHE_HOME=$BATS_FILE_TMPDIR/cache "$EP" capture -q --no-discover >/dev/null
}

teardown_file() {
	bash "$BATS_TEST_DIRNAME/../slurm-local.sh" stop "$SLURM_LOCAL_DIR"
}

setup() {
	T=$(mktemp -d "${BATS_TMPDIR:-/tmp}/envparity-slurm.XXXXXX")
	chmod 755 "$T"
	export XDG_CACHE_HOME=$BATS_FILE_TMPDIR/cache HOME=$T/home
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
	local lock
	rm -f "$SLURM_LOCAL_DIR"/nodeenv/*.env
	scancel --user="$(id -un)" >/dev/null 2>&1 || true
	# slurmd may be running the health check into $T: no new run does
	# anything (a script put in its place by rename, so that a running
	# one reads on from its own file), and the running ones are waited
	# for by their node's lock, before $T goes.
	if grep -q '^HealthCheckProgram=' "$SLURM_CONF"; then
		sed -i '/^HealthCheck/d' "$SLURM_CONF"
		scontrol reconfigure
	fi
	if [ -e "$T/hc.sh" ]; then
		printf '#!/bin/sh\nexit 0\n' > "$T/hc.sh.off"
		chmod 755 "$T/hc.sh.off" && mv "$T/hc.sh.off" "$T/hc.sh"
	fi
	for lock in "$T"/hc/.*.lock; do
		[ -e "$lock" ] && flock "$lock" true
	done
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
	"$REPO_ROOT/ci/slurm/preflight.sh" -- --no-discover || exit 1
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

# Wait (at most 90 s) until sinfo's state and reason for node match the
# extended regular expression; "STATE|REASON" said either way.
wait_node() { # node regex
	local line
	for _ in $(seq 1 450); do
		line=$(sinfo -h -N -n "$1" -o '%T|%E' | head -1)
		[[ $line =~ $2 ]] && { echo "$1: $line"; return 0; }
		sleep 0.2
	done
	echo "$1: $line, never /$2/"
	return 1
}

# The golden of profile hc in $T/store.git, blessed from the tree $1 in
# slurmd's bare environment (its Python: an empty site-packages, not the
# host's); and $T/hc.sh, which slurmd (or a test, as slurmd would) runs
# with nothing but SLURMD_NODENAME: it gives each node its tree (the
# stand-in for its hardware) and the settings a config file would;
# $T/hc-<node>.env, when there, adds to them.  Both use the file's warm
# hash cache.
hc_setup() { # tree
	git init -q --bare store.git
	mkdir -p sp
	env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin EP_NODE_ROOT="$1" \
	    XDG_CACHE_HOME="$XDG_CACHE_HOME" "$EP" bless -q --store "$T/store.git" --profile hc --no-discover \
	    --site-packages "$T/sp"
	cat > hc.sh <<-EOF
	#!/bin/bash
	export EP_NODE_ROOT=$T/root-\$SLURMD_NODENAME ENVPARITY=$EP
	export ENVPARITY_STORE=$T/store.git ENVPARITY_PROFILE=hc
	export ENVPARITY_HEALTHCHECK_DIR=$T/hc ENVPARITY_HEALTHCHECK_CONF=/nonexistent
	export ENVPARITY_HEALTHCHECK_ARGS="--site-packages $T/sp" SLURM_CONF=$SLURM_CONF
	export ENVPARITY_HEALTHCHECK_CACHE=$XDG_CACHE_HOME
	set -a
	[ -r $T/hc-\$SLURMD_NODENAME.env ] && . $T/hc-\$SLURMD_NODENAME.env
	set +a
	exec $REPO_ROOT/ci/slurm/healthcheck.sh
	EOF
	chmod 755 hc.sh
}

# One run of the health check on node, as slurmd runs it; $rc its exit.
hc_run() { # node
	rc=0
	env -i SLURMD_NODENAME="$1" "$T/hc.sh" 2>>hc-stderr || rc=$?
}

@test "slurm HealthCheckProgram: could not check leaves the node in service (binary missing, time limit, store unreachable) unless asked; a long drain reason keeps whole keys" {
	# n4 is a DGX H100 (its PCIe tree): the golden; the slot of a GPU
	# moved later gives twenty failing keys, more than a reason holds.
	rm -rf root-n4 && cp -a "$FIXTURES/node/dgx-h100" root-n4
	mkdir -p root-n4/dev/shm
	hc_setup "$T/root-n4"
	# The binary missing: exit 127, said, the node left in service.
	echo "ENVPARITY=$T/none" > hc-n4.env
	hc_run n4
	[ "$rc" = 127 ]
	grep -q "could not check (the program $T/none is missing or not executable, exit 127): the node is left as it is" hc/n4.txt
	[ ! -e hc/n4.json ]
	# A check that hangs: killed at the time limit, exit 124.
	mkfifo fifo
	printf '#!/bin/sh\nexec cat %s\n' "$T/fifo" > hang.sh
	chmod 755 hang.sh
	printf 'ENVPARITY=%s\nENVPARITY_HEALTHCHECK_TIMEOUT=1\n' "$T/hang.sh" > hc-n4.env
	hc_run n4
	[ "$rc" = 124 ]
	grep -q 'could not check (the time limit, 1 s, exit 124)' hc/n4.txt
	wait_node n4 '^idle\|none$'
	# The store unreachable: in service by default, though the third run
	# in a row that could not check; drained at the fourth when
	# ENVPARITY_HEALTHCHECK_UNCHECKED_DRAIN=4 asks for it, with
	# envparity's reason.
	echo "ENVPARITY_STORE=$T/nostore.git" > hc-n4.env
	hc_run n4
	[ "$rc" = 3 ]
	wait_node n4 '^idle\|none$'
	printf 'ENVPARITY_STORE=%s\nENVPARITY_HEALTHCHECK_UNCHECKED_DRAIN=4\n' "$T/nostore.git" > hc-n4.env
	hc_run n4
	[ "$rc" = 3 ]
	wait_node n4 "^drain.*\|envparity: could not check 4 times \(exit 3\); $T/hc/n4.txt$"
	grep -q 'could not check 4 times in a row' hc-stderr

	# Drift: GPU 3 reseated under socket 1's first switch.  The reason
	# (ours: replaced) names whole keys within 255 bytes, then how many
	# more and the report.
	rm hc-n4.env
	new=pci0000:97/0000:97:01.0/0000:98:00.0/0000:99:05.0/0000:9c:00.0
	mkdir -p "root-n4/sys/devices/${new%/*}"
	mv root-n4/sys/devices/pci0000:5b/0000:5b:01.0/0000:5c:00.0/0000:5d:03.0/0000:61:00.0 \
	    "root-n4/sys/devices/$new"
	echo 1 > "root-n4/sys/devices/$new/numa_node"
	rm root-n4/sys/bus/pci/devices/0000:61:00.0
	ln -s "../../../devices/$new" root-n4/sys/bus/pci/devices/0000:9c:00.0
	hc_run n4
	[ "$rc" = 1 ]
	[ ! -e hc/.n4.unchecked ]
	nfail=$(grep -c '^  FAIL    node\.topo\.' hc/n4.txt)
	[ "$nfail" -ge 15 ]
	wait_node n4 '^drain.*\|envparity: node\.topo\.'
	reason=$(sinfo -h -N -n n4 -o '%E')
	echo "$reason"
	[ "$(LC_ALL=C; echo "${#reason}")" -le 255 ]
	[[ $reason == "envparity: node.topo.gpu"* ]]
	[[ $reason =~ \ …\+([0-9]+)\ more\;\ $T/hc/n4\.txt$ ]]
	shown=${reason#envparity: }
	shown=${shown% …*}
	IFS=', ' read -ra shown_keys <<< "${shown//, / }"
	[ "$((${#shown_keys[@]} + BASH_REMATCH[1]))" = "$nfail" ]
	# Each key shown whole, in check's order.
	diff <(printf '%s\n' "${shown_keys[@]}") \
	    <(sed -n 's/^  FAIL    \([^ ]*\): .*/\1/p' hc/n4.txt | head -n "${#shown_keys[@]}")
	# Repaired: resumed.
	rm -rf root-n4 && cp -a "$FIXTURES/node/dgx-h100" root-n4
	mkdir -p root-n4/dev/shm
	hc_run n4
	[ "$rc" = 0 ]
	wait_node n4 '^idle\|none$'
}

@test "slurm HealthCheckProgram: shellcheck finds nothing" {
	shellcheck "$REPO_ROOT/ci/slurm/healthcheck.sh"
}

# Last in the file: it leaves the health check configured on the cluster.
@test "slurm HealthCheckProgram: a drifted node is drained with envparity's reason, resumed at parity; an administrator's drain stays" {
	# The golden: a healthy node's capture in slurmd's bare environment.
	hc_setup "$T/root-n1"
	# n4 cannot reach the store: it is never drained for that.
	echo "ENVPARITY_STORE=$T/nostore.git" > hc-n4.env
	# n3 drifted (its tree; its task limit does not apply here); n2 at
	# parity but drained by hand, then drifted too.
	rm -rf root-n3/dev/shm && mkdir root-n3/dev/shm
	scontrol update nodename=n2 state=drain reason="fan 3 replaced"
	{
		echo "HealthCheckProgram=$T/hc.sh"
		echo "HealthCheckInterval=3"
		echo "HealthCheckNodeState=IDLE,CYCLE"
	} >> "$SLURM_CONF"
	scontrol reconfigure
	wait_node n3 'drain.*\|envparity: node\.'
	sinfo -R -h -o '%N|%E' | grep -q '^n3|envparity: node\.kmod\.nvidia_peermem\.state, '
	reason=$(sinfo -h -N -n n3 -o '%E')
	[[ $reason == "envparity: node.kmod.nvidia_peermem.state, "* ]]
	[[ $reason == *"node.rdma.mlx5_0.port1.rate"*"; $T/hc/n3.txt" ]]
	grep -q 'FAIL    node.rdma.mlx5_0.port1.rate: expected 400 Gb/sec (4X NDR), got 200 Gb/sec (4X HDR)' hc/n3.txt
	[ "$(jq -r '[.results[] | select(.status == "fail")] | length' hc/n3.json)" = 6 ]
	wait_node n1 '^idle\|'
	wait_node n2 'drain.*\|fan 3 replaced'
	for _ in $(seq 1 150); do
		grep -q 'could not check' hc/n4.txt 2>/dev/null && break
		sleep 0.2
	done
	grep -q 'could not check (it could not run (the store, a file, a helper), exit 3): the node is left as it is' hc/n4.txt
	wait_node n4 '^idle\|none$'
	# A job that asks for every node does not start while n3 is drained:
	# it starts only after n3 is seen drained with the job waiting.
	scontrol update nodename=n2 state=resume
	id=$(sbatch --parsable -N4 -o /dev/null --wrap true)
	wait_node n3 'drain.*\|envparity: '
	waited=$(date +%s)
	[ "$(squeue -h -j "$id" -o %T)" = PENDING ]
	scontrol update nodename=n2 state=drain reason="fan 3 replaced"

	# n3 repaired: resumed by the check; the job then runs.  n2 drifted
	# while drained by hand: its reason is the administrator's still.
	rm -rf root-n3 && cp -a "$FIXTURES/node/ib-ndr" root-n3
	mkdir -p root-n3/dev/shm
	rm -rf root-n2 && cp -a "$FIXTURES/node/ib-drift" root-n2
	wait_node n3 '^(idle|allocated|mixed|completing)\|none$'
	# n2: a check that saw its drift, and one after it (one at a time:
	# the first has acted by then); its reason is the administrator's.
	for _ in $(seq 1 300); do
		grep -q 'FAIL    node.rdma.mlx5_0.port1.rate' hc/n2.txt 2>/dev/null && break
		sleep 0.2
	done
	seen=$(stat -c %.9Y hc/n2.txt)
	for _ in $(seq 1 300); do
		[ "$(stat -c %.9Y hc/n2.txt)" != "$seen" ] && break
		sleep 0.2
	done
	[ "$(stat -c %.9Y hc/n2.txt)" != "$seen" ]
	wait_node n2 'drain.*\|fan 3 replaced$'
	# The job ran once n3 was back, never before.
	scontrol update nodename=n2 state=resume
	for _ in $(seq 1 300); do
		[ "$(squeue -h -j "$id" -o %T)" = "" ] && break
		sleep 0.2
	done
	started=$(date -d "$(scontrol show job "$id" | sed -n 's/.*StartTime=\([^ ]*\).*/\1/p')" +%s)
	[ "$started" -ge "$waited" ]
}
