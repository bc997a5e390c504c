#!/bin/bash
# healthcheck.sh: Slurm's HealthCheckProgram for envparity.  slurmd runs
# it as root on every node (every HealthCheckInterval seconds, and when
# slurmd starts); it runs `envparity check` of this node against its
# profile's golden and acts on the verdict itself, as Slurm leaves every
# action to the program:
#
#   parity (exit 0)   a node envparity drained is resumed; any other
#                     node is left as it is
#   drift (exit 1)    the node is drained, the reason naming the first
#                     failing keys ("envparity: node.rdma.mlx5_0.port1.rate,
#                     node.mem.thp (+3 more)"), unless it is drained or
#                     down already for another reason (an administrator's
#                     is never replaced, and never undone)
#   could not check   (usage, a store unreachable, the time limit): said
#                     in slurmd's log and the report, the node left as it
#                     is: a store that is down must not drain a cluster
#
# In slurm.conf:
#   HealthCheckProgram=/opt/envparity/ci/slurm/healthcheck.sh
#   HealthCheckInterval=300
#   HealthCheckNodeState=IDLE,CYCLE
# HealthCheckNodeState=IDLE (no job on the node) keeps the check off a
# node that trains, whose GPUs it would find busy; IDLE includes drained
# idle nodes, which is what lets the check resume a node it drained.
# CYCLE spreads the runs over the interval rather than starting every
# node's at once (a store hit by the whole cluster at the same second).
#
# slurmd gives it no PATH and no environment but SLURMD_NODENAME, so its
# settings come from a file, /etc/envparity/healthcheck.conf (another with
# ENVPARITY_HEALTHCHECK_CONF), of shell assignments:
#   ENVPARITY_STORE=https://git.example/golden.git   (required)
#   ENVPARITY_PROFILE=train/h100                      (default: default)
#   ENVPARITY=/usr/bin/envparity                      (the binary)
#   ENVPARITY_HEALTHCHECK_DIR=/var/log/envparity     (the reports)
#   ENVPARITY_HEALTHCHECK_CACHE=/var/cache/envparity (the hash cache:
#                     without it every run hashes and loads the CUDA
#                     libraries again, 3 s instead of 0.1 s)
#   ENVPARITY_HEALTHCHECK_TIMEOUT=45                 (seconds; slurmd
#                     kills the program at 60 s before Slurm 26.05)
#   ENVPARITY_HEALTHCHECK_ARGS="--lib-path /opt/cuda/lib64"  (more check
#                     options; no probe by default: it costs seconds)
#   ENVPARITY_GIT_TOKEN=...                          (a private store)
# Values given in the environment win over the file's (a wrapper, a test).
#
# The limits it sees (node.limits.*) are slurmd's, not a job's (jobs get
# the submit host's, PropagateResourceLimits): a profile blessed from a
# job step says {"key": "node.limits.*", "rule": "ignore"} in its policy,
# and leaves the job's limits to the audit and the preflight, which
# capture inside the job.
#
# The reports, DIR/<node>.json and DIR/<node>.txt (check's own lines),
# are replaced on every run: where an administrator looks after
# `sinfo -R` shows "envparity: ...".  The reason is cut to fit Slurm's
# limits (sinfo -R shows 20 characters; slurmdbd keeps 255 bytes).
#
# Exit: check's exit code (0 parity, 1 drift, 2 usage or bad input, 3
# could not check, 124 the time limit); slurmd only logs it.
set -u
PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export PATH

conf=${ENVPARITY_HEALTHCHECK_CONF:-/etc/envparity/healthcheck.conf}
node=${SLURMD_NODENAME:-$(hostname -s)}
say() { echo "envparity healthcheck ($node): $*" >&2; }

# The file's assignments, under the names the environment has not set.
if [ -r "$conf" ]; then
	while IFS= read -r line || [ -n "$line" ]; do
		case $line in
		'' | '#'*) continue ;;
		ENVPARITY=* | ENVPARITY_STORE=* | ENVPARITY_PROFILE=* | \
		ENVPARITY_HEALTHCHECK_DIR=* | ENVPARITY_HEALTHCHECK_TIMEOUT=* | \
		ENVPARITY_HEALTHCHECK_CACHE=* | \
		ENVPARITY_HEALTHCHECK_ARGS=* | ENVPARITY_GIT_TOKEN=*)
			name=${line%%=*}
			value=${line#*=}
			value=${value#\"}
			value=${value%\"}
			[ -n "${!name+x}" ] || export "$name=$value"
			;;
		*) say "$conf: ignored line: ${line%%=*}" ;;
		esac
	done <"$conf"
fi

ep=${ENVPARITY:-/usr/bin/envparity}
dir=${ENVPARITY_HEALTHCHECK_DIR:-/var/log/envparity}
limit=${ENVPARITY_HEALTHCHECK_TIMEOUT:-45}
if [ -z "${ENVPARITY_STORE:-}" ]; then
	say "no store: set ENVPARITY_STORE in $conf"
	exit 2
fi
if ! [ -d "$dir" ] && ! (umask 077 && mkdir -p "$dir") 2>/dev/null; then
	say "cannot make $dir"
	exit 3
fi
cd "$dir" || exit 3
cache=${ENVPARITY_HEALTHCHECK_CACHE:-/var/cache/envparity}
[ -d "$cache" ] || (umask 077 && mkdir -p "$cache") 2>/dev/null
export XDG_CACHE_HOME=$cache
# One check at a time on a node: a run slower than the interval is let
# finish, the next one skipped.
exec 9>"$dir/.$node.lock"
if ! flock -n 9; then
	say "the previous check is still running: skipped"
	exit 0
fi

# The check: no lockfile of the working directory, reports beside it.
# shellcheck disable=SC2086 # ENVPARITY_HEALTHCHECK_ARGS is words
timeout -k 2 "$limit" "$ep" check --no-discover \
	--json "$dir/$node.json" ${ENVPARITY_HEALTHCHECK_ARGS:-} \
	>"$dir/.$node.txt" 2>&1 </dev/null
rc=$?
mv -f "$dir/.$node.txt" "$dir/$node.txt"

# The node's state and reason as slurmctld has them (scontrol appends
# " [user@time]" to a reason).
info=$(scontrol show node "$node" 2>/dev/null)
state=$(sed -n 's/^.* State=\([^ ]*\).*$/\1/p' <<<"$info" | head -1)
reason=$(sed -n 's/^ *Reason=//p' <<<"$info" | head -1)
reason=${reason% \[*\]}
ours=0
case $reason in envparity:*) ours=1 ;; esac
drained=0
case $state in *DRAIN* | *DOWN* | *FAIL*) drained=1 ;; esac

case $rc in
0)
	if [ "$ours" = 1 ] && [ "$drained" = 1 ]; then
		say "parity again: resuming"
		scontrol update NodeName="$node" State=RESUME
	fi
	;;
1)
	# The failing keys, in check's order, from its own lines.
	mapfile -t keys < <(sed -n 's/^  FAIL    \([^ ]*\): .*/\1/p' "$dir/$node.txt")
	why="envparity:"
	n=0
	for k in "${keys[@]}"; do
		[ $((${#why} + ${#k} + 2)) -le 200 ] || break
		[ "$n" -eq 0 ] || why="$why,"
		why="$why $k"
		n=$((n + 1))
	done
	[ "$n" -gt 0 ] || why="envparity: drift"
	[ "${#keys[@]}" -le "$n" ] || why="$why (+$((${#keys[@]} - n)) more)"
	why="$why; $dir/$node.txt"
	[ "${#why}" -le 250 ] || why="${why:0:250}"
	if [ "$drained" = 1 ] && [ "$ours" = 0 ]; then
		say "drift, left as it is: ${state:-?} for another reason (${reason:-none})"
	elif [ "$reason" != "$why" ] || [ "$drained" = 0 ]; then
		say "drift: draining: $why"
		scontrol update NodeName="$node" State=DRAIN Reason="$why"
	fi
	;;
*)
	say "could not check (exit $rc; $dir/$node.txt): the node is left as it is"
	;;
esac
exit "$rc"
