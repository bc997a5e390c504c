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
# (1 drift, an odd node or a missing node, 2 bad input, 3 could not run),
# and the batch script's `|| exit 1` ends the job.
#
#   preflight.sh [fleet options...] [-- capture options...]
#
# Capture options default to `--runs 2` (the reference workload twice on
# every node: nodes that compute different bits are named).  Manifests go
# to $ENVPARITY_PREFLIGHT_DIR (default: .envparity-preflight/<job id> in the
# submit directory, which must be on a file system every node sees);
# reports to its report/ folder.  ENVPARITY names the binary (default
# envparity on PATH).
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
dir=${ENVPARITY_PREFLIGHT_DIR:-${SLURM_SUBMIT_DIR:-$PWD}/.envparity-preflight/$SLURM_JOB_ID}
mkdir -p "$dir/report" || exit 3
if compgen -G "$dir/*.json" >/dev/null; then
	echo "envparity preflight: $dir holds manifests already: give each job its own directory" >&2
	exit 2
fi

# One task on every node of the allocation, whatever the job's own
# task layout; --overlap so that it runs inside any allocation.
# shellcheck disable=SC2016 # $SLURMD_NODENAME is expanded on each node
srun --nodes="$SLURM_JOB_NUM_NODES" --ntasks="$SLURM_JOB_NUM_NODES" \
	--ntasks-per-node=1 --overlap --kill-on-bad-exit=0 bash -c \
	'exec "$0" capture -q --node "$SLURMD_NODENAME" -o "$1/$SLURMD_NODENAME.json" "${@:2}"' \
	"$ep" "$dir" "${capture_args[@]}" ||
	echo "envparity preflight: a capture failed on some node (fleet names it)" >&2

"$ep" fleet "$dir" --expect-from-slurm \
	--json "$dir/report/fleet.json" --junit "$dir/report/fleet.xml" \
	--markdown "$dir/report/fleet.md" "${fleet_args[@]}"
