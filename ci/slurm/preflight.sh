#!/bin/bash
# preflight.sh: stop a multi-node training job before it wastes GPU hours
# on nodes that disagree.  The first line of the job's batch script:
#
#   #!/bin/bash
#   #SBATCH -N 4 --ntasks-per-node=8 --gpus-per-node=8
#   /opt/envparity/ci/slurm/preflight.sh --store https://git.example/golden.git --profile train/h100 || exit 1
#   srun python train.py
#
# It captures every allocated node once (one task per node, in the job's
# allocation), then runs `envparity fleet --expect-from-slurm` over them:
# each node against the golden when a store is named, every fact and
# every probe hash against the other nodes, and every node of the job
# must have reported.  Exit 0 only at parity; otherwise fleet's exit code
# (1 drift, an odd node or a missing node, 2 bad input or a directory
# refused, 3 could not run), and the batch script's `|| exit 1` ends the
# job.
#
#   preflight.sh [fleet options...] [-- capture options...]
#
# A node speaks only for itself: each node's manifest comes back through
# Slurm's own channel (the capture's standard output, which srun carries
# to this batch step and labels with the task's number), into a new
# directory private to this step on this host, and is bound to the node
# Slurm ran that task on (`fleet --bind-filenames`); no node writes a
# file another node's manifest could be read from, so no shared file
# system is needed for them.  The node that runs this batch script is
# trusted with the verdict, as Slurm trusts it with the job.
#
# Capture options default to `--runs 2` (the reference workload twice on
# every node: nodes that compute different bits are named).  The reports,
# and a copy of the manifests made after the verdict, go to
# $ENVPARITY_PREFLIGHT_DIR (default: .envparity-preflight/<job id> in the
# submit directory).  That directory must be new, and no other user may
# be able to change the path to it (every directory above it owned by
# root or by the job's user, not writable by group or others unless
# sticky, as /tmp): otherwise it is refused, exit 2.  ENVPARITY names the
# binary (default envparity on PATH).
set -u

ep=${ENVPARITY:-envparity}
fleet_args=()
capture_args=(--runs 2)
while [ $# -gt 0 ]; do
	if [ "$1" = -- ]; then
		shift
		capture_args=("$@")
		break
	fi
	fleet_args+=("$1")
	shift
done
if [ -z "${SLURM_JOB_ID:-}" ] || [ -z "${SLURM_JOB_NODELIST:-}" ]; then
	echo "envparity preflight: not inside a Slurm job (SLURM_JOB_ID and SLURM_JOB_NODELIST unset)" >&2
	exit 2
fi

# --- kept identical in ci/slurm/envparity-audit.sbatch (slurm.bats checks) ---
# new_private_dir WHO DIR: make DIR, new, mode 700, and set $made to its
# physical path.  As OpenSSH's StrictModes judges a path: every directory
# from DIR's parent up to / must be owned by root or by us and not be
# writable by group or others unless sticky (as /tmp is); else another
# user could replace what is written there.  A DIR that exists is
# refused: whoever made it may still write in it.  One line and exit 2.
new_private_dir() {
	local who=$1 dir=$2 parent base p owner mode uid
	uid=$(id -u)
	parent=$(dirname -- "$dir")
	base=$(basename -- "$dir")
	if [ "$base" = . ] || [ "$base" = .. ] || [ "$base" = / ]; then
		echo "$who: $dir: name a new directory" >&2
		exit 2
	fi
	if ! p=$(cd -P -- "$parent" 2>/dev/null && pwd -P); then
		echo "$who: $dir: its parent $parent is not a directory we can enter" >&2
		exit 2
	fi
	made=${p%/}/$base
	while :; do
		read -r owner mode < <(stat -c '%u %a' -- "$p")
		if [ "$owner" != 0 ] && [ "$owner" != "$uid" ]; then
			echo "$who: $dir refused: $p belongs to user $(id -nu "$owner" 2>/dev/null || echo "$owner"), who could replace what is written below it" >&2
			exit 2
		fi
		if (((8#$mode & 8#022) != 0 && (8#$mode & 8#1000) == 0)); then
			echo "$who: $dir refused: $p is writable by group or others (mode $mode) and not sticky: they could replace what is written below it" >&2
			exit 2
		fi
		[ "$p" = / ] && break
		p=$(dirname -- "$p")
	done
	if ! mkdir -m 700 -- "$made" 2>/dev/null; then
		if [ -e "$made" ] || [ -L "$made" ]; then
			echo "$who: $dir refused: it exists already (another user, or an earlier run, made it): each run makes its own" >&2
			exit 2
		fi
		echo "$who: cannot make $dir" >&2
		exit 3
	fi
}

# capture_nodes WHO EP DIR ARGS...: one capture on every node of the job,
# each to DIR/NODE.json.  srun runs one task per node (block distribution:
# task i on the i-th node of the job's node list, as Slurm lays them
# out), carries each task's standard output back here and labels each
# line with the task's number itself (--label); base64 keeps every line
# under Slurm's 1 KiB I/O message, which srun would otherwise cut into
# two labelled lines.  A node whose capture printed nothing is left to
# fleet's expected-node check; output that is not base64 is kept as it
# came, for fleet to refuse as that node's; past 88 MiB (a 64 MiB
# manifest in base64, fleet's bound) a node's output is cut, so that no
# node fills this host's disk.
capture_nodes() {
	local who=$1 bin=$2 out=$3 i node
	shift 3
	local -a nodes
	mapfile -t nodes < <(scontrol show hostnames "$SLURM_JOB_NODELIST")
	mkdir -m 700 "$out/in" "$out/nodes" || exit 3
	# shellcheck disable=SC2016 # $SLURMD_NODENAME is expanded on each node
	srun --nodes="${#nodes[@]}" --ntasks="${#nodes[@]}" --ntasks-per-node=1 \
		--distribution=block --overlap --kill-on-bad-exit=0 --label bash -c \
		'set -o pipefail; "$0" capture -q --node "$SLURMD_NODENAME" -o - "$@" | base64 -w 76' \
		"$bin" "$@" |
		awk -v dir="$out/in" -v n="${#nodes[@]}" '
		match($0, /^ *[0-9]+: /) {
			t = substr($0, 1, RLENGTH - 2) + 0
			if (t >= n) { bad++; next }
			f = dir "/" t
			if ((size[t] += length($0) - RLENGTH + 1) > 92274688) { cut[t] = 1; next }
			if (!(f in open)) {
				if (nopen >= 64) { for (g in open) close(g); split("", open); nopen = 0 }
				open[f] = 1; nopen++
			}
			print substr($0, RLENGTH + 1) >> f
			next
		}
		{ bad++ }
		END {
			if (bad) printf "%d lines of output not from a task of the step, left out\n", bad > "/dev/stderr"
			for (t in cut) printf "task %d printed more than 88 MiB: cut\n", t > "/dev/stderr"
		}'
	if [ "${PIPESTATUS[0]}" != 0 ]; then
		echo "$who: a capture failed on some node (fleet names it)" >&2
	fi
	for i in "${!nodes[@]}"; do
		node=${nodes[$i]}
		[ -s "$out/in/$i" ] || continue
		base64 -d <"$out/in/$i" >"$out/nodes/$node.json" 2>/dev/null ||
			cp "$out/in/$i" "$out/nodes/$node.json"
	done
	rm -rf "$out/in"
}
# --- end of the part kept identical ---

if [ -n "${ENVPARITY_PREFLIGHT_DIR:-}" ]; then
	new_private_dir "envparity preflight" "$ENVPARITY_PREFLIGHT_DIR"
else
	top=${SLURM_SUBMIT_DIR:-$PWD}/.envparity-preflight
	[ -d "$top" ] || new_private_dir "envparity preflight" "$top"
	new_private_dir "envparity preflight" "$top/$SLURM_JOB_ID"
fi
dir=$made
new_private_dir "envparity preflight" "$(mktemp -u "${TMPDIR:-/tmp}/envparity-nodes.XXXXXXXX")"
priv=$made
trap 'rm -rf "$priv"' EXIT
mkdir -m 700 "$dir/report" || exit 3

capture_nodes "envparity preflight" "$ep" "$priv" "${capture_args[@]}"

"$ep" fleet "$priv/nodes" --bind-filenames --expect-from-slurm \
	--json "$dir/report/fleet.json" --junit "$dir/report/fleet.xml" \
	--markdown "$dir/report/fleet.md" "${fleet_args[@]}"
rc=$?
# A record of what was judged, written after the verdict.
cp -p "$priv/nodes/"*.json "$dir/" 2>/dev/null
exit "$rc"
