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
#                     failing keys, whole, and the report ("envparity:
#                     node.rdma.mlx5_0.port1.rate, node.mem.thp …+3 more;
#                     /var/log/envparity/gpu017.txt", at most 255 bytes:
#                     slurmdbd keeps a reason in a MySQL tinytext; sinfo -R
#                     shows its first 20 characters), unless it is drained
#                     or down already for another reason (an
#                     administrator's is never replaced, and never undone)
#   could not check   (the binary missing, bad input, the store
#                     unreachable, the time limit): said in slurmd's log
#                     and at the end of the report, and the node is left
#                     as it is.  Unlike NHC, whose every failure (its own
#                     watchdog's too) offlines the node, envparity's own
#                     failures are mostly shared by every node (a store
#                     that is down, a release not installed, a profile
#                     misnamed): draining for them would drain the whole
#                     cluster at once, for no fault of a node.  A node it
#                     drained stays drained until a check passes.  To
#                     drain after N runs in a row that could not check,
#                     set ENVPARITY_HEALTHCHECK_UNCHECKED_DRAIN=N (reason
#                     "envparity: could not check N times (exit E); ...",
#                     resumed by the next passing check).
#
# In slurm.conf:
#   HealthCheckProgram=/opt/envparity/ci/slurm/healthcheck.sh
#   HealthCheckInterval=300
#   HealthCheckNodeState=IDLE,CYCLE
# HealthCheckNodeState=IDLE (no job on the node) keeps the check off a
# node that trains, whose GPUs it would find busy; IDLE includes drained
# idle nodes, which is what lets the check resume a node it drained.
# CYCLE: slurmctld starts the checks of at most max(10, 2 x nodes /
# HealthCheckInterval) nodes a second instead of every node's at once, so
# a cycle over the cluster takes about half the interval and the store
# sees a few checks at a time (Slurm 22.05 and later:
# src/slurmctld/ping_nodes.c, run_health_check); a cluster of fewer than
# 10 nodes is checked at once either way.
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
#   ENVPARITY_HEALTHCHECK_UNCHECKED_DRAIN=0          (drain after this
#                     many runs in a row that could not check; 0: never)
#   ENVPARITY_GIT_TOKEN=...                          (a private store)
# Values given in the environment win over the file's (a wrapper, a test).
#
# The limits it sees (node.limits.*) are slurmd's, not a job's (jobs get
# the submit host's, PropagateResourceLimits): a profile blessed from a
# job step says {"key": "node.limits.*", "rule": "ignore"} in its policy,
# and leaves the job's limits to the audit and the preflight, which
# capture inside the job.
#
# The reports, DIR/<node>.json and DIR/<node>.txt (check's own lines,
# and this script's last word when it could not check), are replaced on
# every run: where an administrator looks after `sinfo -R` shows
# "envparity: ...".
#
# Exit: check's exit code (0 parity, 1 drift, 2 usage or bad input, 3
# could not check, 124 the time limit, 127 the binary missing); slurmd
# only logs it.
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
		ENVPARITY_HEALTHCHECK_UNCHECKED_DRAIN=* | \
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
unchecked_drain=${ENVPARITY_HEALTHCHECK_UNCHECKED_DRAIN:-0}
case $unchecked_drain in '' | *[!0-9]*)
	say "ENVPARITY_HEALTHCHECK_UNCHECKED_DRAIN=$unchecked_drain is not a count: 0"
	unchecked_drain=0 ;;
esac
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

# The check: no lockfile of the working directory, reports beside it
# (the last run's JSON removed first: a run that writes none must not
# leave an old verdict there).
rm -f "$dir/$node.json"
if [ -x "$ep" ] && [ -f "$ep" ]; then
	# shellcheck disable=SC2086 # ENVPARITY_HEALTHCHECK_ARGS is words
	timeout -k 2 "$limit" "$ep" check --no-discover \
		--json "$dir/$node.json" ${ENVPARITY_HEALTHCHECK_ARGS:-} \
		>"$dir/.$node.txt" 2>&1 </dev/null
	rc=$?
else
	echo "$ep: no such program (set ENVPARITY in $conf)" >"$dir/.$node.txt"
	rc=127
fi
case $rc in
0 | 1) why_not= ;;
2) why_not="bad input or usage" ;;
3) why_not="it could not run (the store, a file, a helper)" ;;
124 | 137) why_not="the time limit, ${limit} s" ;;
126 | 127) why_not="the program $ep is missing or not executable" ;;
*) why_not="exit $rc" ;;
esac
[ -z "$why_not" ] || echo "envparity healthcheck: could not check ($why_not, exit $rc): the node is left as it is" >>"$dir/.$node.txt"
mv -f "$dir/.$node.txt" "$dir/$node.txt"

# Runs in a row that could not check, counted for
# ENVPARITY_HEALTHCHECK_UNCHECKED_DRAIN.
count_file=$dir/.$node.unchecked
unchecked=0
if [ -n "$why_not" ]; then
	[ -r "$count_file" ] && read -r unchecked <"$count_file"
	case $unchecked in '' | *[!0-9]*) unchecked=0 ;; esac
	unchecked=$((unchecked + 1))
	echo "$unchecked" >"$count_file"
else
	rm -f "$count_file"
fi

# The drain reason for drift: "envparity: KEY, KEY …+N more; REPORT",
# whole keys in check's order, as many as fit in 255 bytes (slurmdbd's
# tinytext); the report's path left out when it alone would take more
# than half of them.
drain_reason() { # report keys...
	local LC_ALL=C
	local report="; $1" why="envparity:" cand more suffix n=0 total
	shift
	total=$#
	[ "${#report}" -le 128 ] || report=
	for k in "$@"; do
		if [ "$n" -eq 0 ]; then cand="$why $k"; else cand="$why, $k"; fi
		more=$((total - n - 1))
		suffix=$report
		[ "$more" -eq 0 ] || suffix=" …+$more more$report"
		[ $((${#cand} + ${#suffix})) -le 255 ] || break
		why=$cand
		n=$((n + 1))
	done
	[ "$total" -gt 0 ] || why="envparity: drift"
	[ "$n" -ge "$total" ] || why="$why …+$((total - n)) more"
	printf '%s%s\n' "$why" "$report"
}

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
	why=$(drain_reason "$dir/$node.txt" "${keys[@]}")
	if [ "$drained" = 1 ] && [ "$ours" = 0 ]; then
		say "drift, left as it is: ${state:-?} for another reason (${reason:-none})"
	elif [ "$reason" != "$why" ] || [ "$drained" = 0 ]; then
		say "drift: draining: $why"
		scontrol update NodeName="$node" State=DRAIN Reason="$why"
	fi
	;;
*)
	if [ "$unchecked_drain" -gt 0 ] && [ "$unchecked" -ge "$unchecked_drain" ]; then
		why="envparity: could not check $unchecked times (exit $rc); $dir/$node.txt"
		if [ "$drained" = 1 ] && [ "$ours" = 0 ]; then
			say "could not check ($why_not), left as it is: ${state:-?} for another reason (${reason:-none})"
		elif [ "$drained" = 0 ]; then
			say "could not check $unchecked times in a row ($why_not): draining: $why"
			scontrol update NodeName="$node" State=DRAIN Reason="$why"
		else
			say "could not check ($why_not): still drained"
		fi
	else
		say "could not check ($why_not, exit $rc; $dir/$node.txt): the node is left as it is"
	fi
	;;
esac
exit "$rc"
