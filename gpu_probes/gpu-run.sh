#!/usr/bin/env bash
# gpu_probes/gpu-run.sh: run envparity-probe on a GPU host and keep what
# it says, for tests/fixtures/gpu/<host>/ and the issue's closing note.
#
#   gpu_probes/gpu-run.sh PROBE OUTDIR [RUNS] [quick]
#
# Runs every backend RUNS times (default 5), each a fresh process, with
# the CUDA libraries of the host's PyTorch passed as --lib (as the runner
# passes what capture found), and once more searching by soname; records
# wall times, a start-up A/B of the GPU backends (startup.txt: the driver
# version from NVML, eager module loading), the host's identity, compute-sanitizer's verdict on the
# kernels, a build of the probe with the host's own nvcc and cc when it
# can, and PyTorch doing the same work for comparison.  Everything lands
# in OUTDIR; nothing here fails the script.  "quick" runs the probe
# alone (no sanitizer, host build or PyTorch).
set -u
probe=$1 out=$2 runs=${3:-5} quick=${4:-}
mkdir -p "$out"
log=$out/host.txt
site=$(python3 -c 'import site; print(site.getsitepackages()[0])' 2>/dev/null)
nv=$site/nvidia
libs=()
[ -e "$nv/cu13/lib/libcublas.so.13" ] && libs+=(--lib "cublas=$nv/cu13/lib/libcublas.so.13")
[ -e "$nv/cu13/lib/libcublasLt.so.13" ] && libs+=(--lib "cublaslt=$nv/cu13/lib/libcublasLt.so.13")
[ -e "$nv/cudnn/lib/libcudnn.so.9" ] && libs+=(--lib "cudnn=$nv/cudnn/lib/libcudnn.so.9")

ms() { date +%s%N; }

{
	echo "== host"; uname -a; grep PRETTY /etc/os-release
	nvidia-smi --query-gpu=name,driver_version,compute_cap,memory.total --format=csv 2>&1
	echo "== driver libraries"; ldconfig -p | grep -E 'libcuda\.so|libnvidia-ml' 
	echo "== tools"; command -v nvcc cc gcc make pkg-config; nvcc --version 2>&1 | tail -2
	echo "== probe"; ldd "$probe"; "$probe" --version
	echo "== libs passed"; printf '%s\n' "${libs[@]}"
} >"$log" 2>&1

timing=$out/timing.txt
: >"$timing"
for b in cpu cuda cublas cudnn; do
	for i in $(seq 1 "$runs"); do
		t0=$(ms)
		"$probe" --backend "$b" "${libs[@]}" >>"$out/probe-$b.jsonl" 2>>"$out/stderr.txt"
		rc=$?
		echo "$b run $i rc=$rc wall_ms=$(( ($(ms) - t0) / 1000000 ))" >>"$timing"
	done
done
# By soname alone, as a probe without --lib would find them.
for b in cublas cudnn; do
	"$probe" --backend "$b" >>"$out/probe-$b-soname.jsonl" 2>>"$out/stderr.txt"
done
# All four backends, 5 runs each, as one number against PyTorch below.
t0=$(ms)
for i in $(seq 1 "$runs"); do
	for b in cpu cuda cublas cudnn; do
		"$probe" --backend "$b" "${libs[@]}" >/dev/null 2>&1
	done
done
echo "all backends x $runs: wall_ms=$(( ($(ms) - t0) / 1000000 ))" >>"$timing"

# Start-up, A/B, interleaved (issue 18): each GPU backend as it runs by
# default (driver version from /proc/driver/nvidia/version, and
# CUDA_MODULE_LOADING=LAZY unless set), with the version from NVML as
# before (--lib nvml=, which makes the probe ask NVML), and with EAGER
# module loading (on a CUDA 12.2+ driver LAZY is the default anyway:
# default vs eager shows what lazy loading is worth there, not what the
# probe's setting adds).  The driver field must be the same either way.
nvml=$(ldconfig -p 2>/dev/null | awk '$1 == "libnvidia-ml.so.1" { print $NF; exit }')
{
	echo "== /proc/driver/nvidia/version, first line"
	head -n 1 /proc/driver/nvidia/version 2>&1
	echo "== libnvidia-ml.so.1 for the A/B: ${nvml:-(none)}"
} >>"$log"
startup=$out/startup.txt
: >"$startup"
for i in $(seq 1 "$runs"); do
	for b in cuda cublas cudnn; do
		for v in default nvml eager; do
			set -- env -u CUDA_MODULE_LOADING
			case $v in
			nvml)	[ -n "$nvml" ] || continue ;;
			eager)	set -- "$@" CUDA_MODULE_LOADING=EAGER ;;
			esac
			set -- "$@" "$probe" --backend "$b" "${libs[@]}"
			[ "$v" = nvml ] && set -- "$@" --lib "nvml=$nvml"
			t0=$(ms)
			"$@" >>"$out/startup-$b-$v.jsonl" 2>>"$out/stderr.txt"
			rc=$?
			echo "$b $v run $i rc=$rc wall_ms=$(( ($(ms) - t0) / 1000000 ))" >>"$startup"
		done
	done
done
timed=$(cat "$startup")
for b in cuda cublas cudnn; do
	for v in default nvml eager; do
		[ -e "$out/startup-$b-$v.jsonl" ] || continue
		printf '%s\n' "$timed" |
			awk -v k="$b $v" '$1 " " $2 == k { sub("wall_ms=", "", $6); print $6 }' |
			sort -n | awk -v k="$b $v" '{ a[NR] = $1 } END { if (NR) print k ": median_ms=" a[int((NR + 1) / 2)] " min_ms=" a[1] " max_ms=" a[NR] " n=" NR }'
		echo "$b $v drivers: $(grep -o '"driver":[^,]*' "$out/startup-$b-$v.jsonl" | sort -u | tr '\n' ' ')"
	done
done >>"$startup"
[ "$quick" = quick ] && exit 0

# The kernels under compute-sanitizer: out-of-bounds, races in the
# shared-memory tree, uninitialised reads.
if command -v compute-sanitizer >/dev/null; then
	for tool in memcheck racecheck initcheck; do
		timeout 120 compute-sanitizer --tool "$tool" --error-exitcode 9 \
			"$probe" --backend cuda >"$out/sanitizer-$tool.txt" 2>&1
		echo "compute-sanitizer $tool rc=$?" >>"$timing"
	done
fi

# A build with the host's own toolchain, when it has one.
if command -v cc >/dev/null && command -v make >/dev/null; then
	b=/tmp/probe-build
	if make -s B=$b $b/envparity-probe >"$out/build.txt" 2>&1; then
		for be in cpu cuda; do
			"$b/envparity-probe" --backend "$be" >>"$out/probe-hostbuild.jsonl" 2>&1
		done
	fi
	echo "host build rc=$?" >>"$timing"
fi

# PyTorch doing the same work: start-up alone, then gemm, sum, conv.
cat >"$out/torch_same.py" <<'EOF'
import time, sys
t0 = time.perf_counter()
import torch
torch.cuda.init(); torch.zeros(1, device="cuda"); torch.cuda.synchronize()
t1 = time.perf_counter()
if len(sys.argv) > 1:
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    a = torch.rand(1024, 1024, device="cuda"); b = torch.rand(1024, 1024, device="cuda")
    c = (a @ b).cpu()
    x = torch.rand(1 << 24, device="cuda"); s = x.sum().cpu()
    xi = torch.rand(8, 16, 64, 64, device="cuda"); w = torch.rand(32, 16, 3, 3, device="cuda")
    y = torch.nn.functional.conv2d(xi, w, padding=1).cpu()
    torch.cuda.synchronize()
t2 = time.perf_counter()
print(f"import+init_ms={1e3*(t1-t0):.0f} work_ms={1e3*(t2-t1):.0f}")
EOF
for i in 1 2 3; do
	t0=$(ms); python3 "$out/torch_same.py" >>"$out/torch.txt" 2>&1
	echo "torch start-up only run $i wall_ms=$(( ($(ms) - t0) / 1000000 ))" >>"$timing"
	t0=$(ms); python3 "$out/torch_same.py" work >>"$out/torch.txt" 2>&1
	echo "torch same work run $i wall_ms=$(( ($(ms) - t0) / 1000000 ))" >>"$timing"
done
exit 0
