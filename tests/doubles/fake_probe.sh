#!/usr/bin/env bash
# fake_probe.sh: a TEST DOUBLE standing in for envparity-probe
# (gpu_probes/).  It is not the reference workload: it computes nothing
# and prints contract lines (envparity/probe@1) made from canned data, so
# that the runner in checker/probe/probe_run.c can be shown the misbehaviour a
# real probe on a real GPU stack could show: runs that disagree, a hang, a
# crash, garbage, a missing workload, a wrong known answer.  The real
# probe's CPU backend is tested end to end elsewhere (tests/cli/probe.bats).
#
#	fake_probe.sh --backend cpu|cuda|cublas|cudnn [--lib NAME=PATH]...
#
# Environment:
#   FAKE_PROBE_STATE  a directory for the start counters (count.<backend>:
#                     how many times that backend started) and the
#                     argument log (args.<backend>: one line per start).
#                     The run's number is ENVPARITY_PROBE_RUN, as envparity
#                     sets it (runs start together, in no fixed order),
#                     else the start's count.  Unset: every start is run
#                     ENVPARITY_PROBE_RUN (or 1) and nothing is logged.
#   FAKE_PROBE_MODE   how to behave (default ok):
#     ok         every workload computes, identical in every run (but
#                for the GPU atomic canary, see FAKE_PROBE_GPU)
#     nondet     gemm of FAKE_PROBE_ON differs in runs 2 and 4 (two
#                different outputs), identical in the other runs
#     hang       run FAKE_PROBE_RUN of FAKE_PROBE_ON prints one line, then
#                waits forever in a child (its pid in STATE/hang.pid)
#     crash      run FAKE_PROBE_RUN of FAKE_PROBE_ON prints two lines, then
#                dies of SIGSEGV (kill -SEGV $$)
#     garbage    run FAKE_PROBE_RUN of FAKE_PROBE_ON prints a line that is
#                not JSON, with a control byte in it
#     schema     run FAKE_PROBE_RUN of FAKE_PROBE_ON prints its lines with
#                schema envparity/probe@2
#     missing    FAKE_PROBE_ON never prints its reduce line
#     other      gemm of FAKE_PROBE_ON computes other bits than in mode
#                ok, the same in every run (a node whose stack computes a
#                different, deterministic answer)
#     kat_wrong  run FAKE_PROBE_RUN of FAKE_PROBE_ON reports kat's known
#                answer false (and so a different hash)
#     exit3      FAKE_PROBE_ON exits 3 with a message on standard error
#   FAKE_PROBE_GPU    1: the GPU backends run on a canned H100, their
#                     libs naming the --lib paths given, and the cuda
#                     atomic canary differs in every run.  Otherwise they
#                     skip: "no NVIDIA driver (libcuda.so.1 not found)".
#   FAKE_PROBE_ON     the backend that misbehaves (default cpu)
#   FAKE_PROBE_RUN    the run that misbehaves (default 2)
#
# One GPU per process: envparity gives each GPU's process its
# CUDA_VISIBLE_DEVICES (CVD below); this double reads it as "the GPU".
# With CVD set, the start counter is count.<backend>.<CVD> and env.<backend>
# gets "CVD CUDA_DEVICE_ORDER" per start.  Every process logs
# "start|end <backend> <CVD or -> <run> <ns>" lines to log.
#   FAKE_PROBE_ON_GPU      misbehave (FAKE_PROBE_MODE) only where CVD is this
#   FAKE_PROBE_DIVERGE_GPU where CVD is this, every GPU workload but kat and
#                          the canary computes other bits (a bad GPU)
#   FAKE_PROBE_OTHER_MODEL CVD values (comma-separated) that are an A100:
#                          another model, so another determinism domain,
#                          computing other gemm bits
#   FAKE_PROBE_BARRIER=N   after starting, wait (at most 10 s) until N
#                          processes of this backend and run have started;
#                          log "barrier-timeout ..." when they did not: run
#                          one after the other, they never would
#   FAKE_PROBE_BARRIER_WAVE=N1,N2  the same across backends and GPUs:
#                          a run-1 process waits until N1 run-1 processes
#                          have started, a later run's until N2 processes of
#                          runs 2 and over have
#   FAKE_PROBE_SLEEP=S     every process sleeps S seconds before its lines
#   FAKE_PROBE_EXCLUSIVE   CVD values (comma-separated) of GPUs in
#                          EXCLUSIVE_PROCESS compute mode: a GPU backend's
#                          process that finds another at work on its GPU
#                          reports every workload as an error
#                          (CUDA_ERROR_DEVICE_UNAVAILABLE) and logs busy
set -u

backend="" libs=()
while [ $# -gt 0 ]; do
	case $1 in
	--backend) backend=$2; shift ;;
	--lib) libs+=("$2"); shift ;;
	--seed) shift ;;
	*) echo "fake_probe: unknown argument $1" >&2; exit 2 ;;
	esac
	shift
done
case $backend in
cpu|cuda) workloads="kat gemm reduce atomic" ;;
cublas) workloads="sgemm_pedantic sgemm_default" ;;
cudnn) workloads="conv_fwd" ;;
*) echo "fake_probe: --backend cpu|cuda|cublas|cudnn" >&2; exit 2 ;;
esac

mode=${FAKE_PROBE_MODE:-ok} on=${FAKE_PROBE_ON:-cpu} bad_run=${FAKE_PROBE_RUN:-2}
state=${FAKE_PROBE_STATE:-}
run=${ENVPARITY_PROBE_RUN:-1}
cvd=${CUDA_VISIBLE_DEVICES-}
counter=count.$backend
[ -n "${CUDA_VISIBLE_DEVICES+set}" ] && counter=count.$backend.$cvd
if [ -n "$state" ]; then
	# Processes of one backend start together: the count under a lock.
	exec 9>>"$state/lock"
	flock 9
	n=$(cat "$state/$counter" 2>/dev/null || echo 0)
	echo "$((n + 1))" >"$state/$counter"
	flock -u 9
	exec 9>&-
	run=${ENVPARITY_PROBE_RUN:-$((n + 1))}
	echo "${libs[*]:-}" >>"$state/args.$backend"
	[ -n "${CUDA_VISIBLE_DEVICES+set}" ] &&
		echo "$cvd ${CUDA_DEVICE_ORDER-unset}" >>"$state/env.$backend"
	echo "start $backend ${cvd:--} $run $(date +%s%N)" >>"$state/log"
fi
# Mark this process as "$1.<mine>" in the state directory, then wait (at
# most 10 s) until $2 processes have marks starting "$1."; else log
# "barrier-timeout $3".
barrier() {
	local waited=0
	touch "$state/$1.$backend.$run.${cvd:--}"
	while [ "$(ls "$state" | grep -c "^$1\.")" -lt "$2" ]; do
		if [ "$waited" -ge 500 ]; then
			echo "barrier-timeout $3" >>"$state/log"
			return
		fi
		sleep 0.02
		waited=$((waited + 1))
	done
}
if [ -n "${FAKE_PROBE_BARRIER_WAVE:-}" ] && [ -n "$state" ]; then
	if [ "$run" = 1 ]; then
		barrier wave1 "${FAKE_PROBE_BARRIER_WAVE%%,*}" "wave1 $backend ${cvd:--} $run"
	else
		barrier wave2 "${FAKE_PROBE_BARRIER_WAVE#*,}" "wave2 $backend ${cvd:--} $run"
	fi
fi
[ -n "${FAKE_PROBE_BARRIER:-}" ] && [ -n "$state" ] &&
	barrier "up.$backend.$run" "$FAKE_PROBE_BARRIER" "$backend $cvd $run"
in_list() { case ",$2," in *",$1,"*) return 0 ;; esac; return 1; }
# Misbehave only where asked.
me=0
[ "$backend" = "$on" ] && me=1
[ -n "${FAKE_PROBE_ON_GPU:-}" ] && [ "$cvd" != "$FAKE_PROBE_ON_GPU" ] && me=0
other_model=0
in_list "$cvd" "${FAKE_PROBE_OTHER_MODEL:-}" && [ -n "$cvd" ] && other_model=1
this_run=0
[ "$me" = 1 ] && [ "$run" = "$bad_run" ] && this_run=1

hash() { printf '%s' "$1" | sha256sum | cut -c1-64; }

schema=envparity/probe@1
[ "$mode" = schema ] && [ "$this_run" = 1 ] && schema=envparity/probe@2

# The library a --lib argument named, as "name": "path" pairs.
libs_json() {
	local out="" l
	for l in ${libs[@]+"${libs[@]}"}; do
		out="$out, \"${l%%=*}_path\": \"${l#*=}\""
	done
	case $backend in
	cublas) echo "{\"cublas\": \"13.1.0\"$out}" ;;
	cudnn) echo "{\"cudnn\": \"9.19.0\"$out}" ;;
	*) echo "{}" ;;
	esac
}

emit() { # workload status reason sha known_answer canary ms
	local device
	if [ "$backend" = cpu ]; then
		device='{"arch": "x86_64"}'
	elif [ "$2" = skip ]; then
		device=null
	elif [ "$other_model" = 1 ]; then
		device='{"name": "NVIDIA A100-SXM4-80GB", "cc": "8.0", "sm_count": 108, "driver": "580.159.04", "cuda_driver": "13.0"}'
	else
		device='{"name": "NVIDIA H100 80GB HBM3", "cc": "9.0", "sm_count": 132, "driver": "580.159.04", "cuda_driver": "13.0"}'
	fi
	local libs_out='{}'
	[ "$2" = skip ] || libs_out=$(libs_json)
	printf '{"schema": "%s", "backend": "%s", "workload": "%s", "status": "%s", "reason": %s, "sha256": %s, "known_answer": %s, "canary": %s, "elapsed_ms": %s, "device": %s, "libs": %s, "probe": "envparity-probe 1"}\n' \
		"$schema" "$backend" "$1" "$2" "$3" "$4" "$5" "$6" "$7" "$device" \
		"$libs_out"
}

# A GPU in EXCLUSIVE_PROCESS compute mode takes one context at a time:
# the second process's context creation fails, as CUDA's does.
if [ -n "$cvd" ] && [ -n "$state" ] && [ "$backend" != cpu ] &&
    in_list "$cvd" "${FAKE_PROBE_EXCLUSIVE:-}"; then
	exec 8>>"$state/exclusive.$cvd"
	if ! flock -n 8; then
		echo "busy $backend $cvd $run" >>"$state/log"
		for w in $workloads; do
			emit "$w" error '"cuDevicePrimaryCtxRetain: CUDA_ERROR_DEVICE_UNAVAILABLE"' null null false 0
		done
		exit 0
	fi
fi
[ -n "${FAKE_PROBE_SLEEP:-}" ] && sleep "$FAKE_PROBE_SLEEP"

if [ "$mode" = exit3 ] && [ "$me" = 1 ]; then
	echo "envparity-probe: cannot start: out of file descriptors" >&2
	exit 3
fi

if [ "$backend" != cpu ] && [ "${FAKE_PROBE_GPU:-0}" != 1 ]; then
	for w in $workloads; do
		emit "$w" skip '"no NVIDIA driver (libcuda.so.1 not found)"' null null false 0
	done
	exit 0
fi

i=0
for w in $workloads; do
	i=$((i + 1))
	if [ "$this_run" = 1 ]; then
		case $mode in
		hang)
			if [ "$i" = 2 ]; then
				sleep 1000 &
				echo $! >"$state/hang.pid"
				wait
			fi ;;
		crash)
			[ "$i" = 3 ] && kill -SEGV $$ ;;
		garbage)
			[ "$i" = 2 ] && { printf 'Segmentation fault? \001not json\n'; continue; } ;;
		esac
	fi
	[ "$mode" = missing ] && [ "$me" = 1 ] && [ "$w" = reduce ] && continue

	seed="$backend/$w"
	kat=null canary=false
	case $w in
	kat) kat=true ;;
	atomic) canary=true
		# The GPU atomicAdd canary varies; the CPU one does not here.
		[ "$backend" = cuda ] && seed="$seed/$run" ;;
	esac
	if [ "$mode" = nondet ] && [ "$me" = 1 ] && [ "$w" = gemm ]; then
		case $run in 2|4) seed="$seed/variant$run" ;; esac
	fi
	if [ "$mode" = other ] && [ "$me" = 1 ] && [ "$w" = gemm ]; then
		seed="$seed/other"
	fi
	if [ "$backend" != cpu ] && [ -n "$cvd" ] && [ "$w" != kat ] &&
	    [ "$canary" = false ]; then
		[ "$cvd" = "${FAKE_PROBE_DIVERGE_GPU:-none}" ] && seed="$seed/diverged"
		[ "$other_model" = 1 ] && [ "$w" = gemm ] && seed="$seed/a100"
	fi
	if [ "$mode" = kat_wrong ] && [ "$this_run" = 1 ] && [ "$w" = kat ]; then
		kat=false seed="$seed/wrong"
	fi
	emit "$w" ok null "\"$(hash "$seed")\"" "$kat" "$canary" "$i.5"
done
[ -n "$state" ] && echo "end $backend ${cvd:--} $run $(date +%s%N)" >>"$state/log"
exit 0
