#!/usr/bin/env bash
# tools/gpu-run.sh: run on a GPU host (through the device tool) after
# tools/gpu-carry.sh: describe the host, capture its stack cold and warm,
# capture PyTorch's CUDA libraries, and run the unit and CLI tests there.
# Everything lands in $OUT (default ./gpu-out).
set -u
cd "$(dirname "$0")/.."
OUT=${OUT:-$PWD/gpu-out}
mkdir -p "$OUT"
export LD_LIBRARY_PATH=$PWD/gpu-carry/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export PATH=$PWD/gpu-carry/bin:$PATH
export XDG_CACHE_HOME=$OUT/.cache
EP=$PWD/gpu-carry/bin/envparity

{
	echo "== os"; cat /etc/os-release; ldd --version | head -1; uname -a
	echo "== nvidia-smi"; nvidia-smi
	nvidia-smi --query-gpu=name,driver_version,vbios_version,ecc.mode.current,persistence_mode,mig.mode.current,memory.total,compute_cap --format=csv
	echo "== python"; command -v python3 python
	python3 -c 'import sys, site; print(sys.executable, sys.version); print(site.getsitepackages())'
	python3 -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda, "cudnn", torch.backends.cudnn.version(), torch.cuda.get_device_name(0))'
	for sp in $(python3 -c 'import site; print(" ".join(site.getsitepackages()))'); do
		ls -d "$sp"/nvidia/*/lib 2>/dev/null && ls "$sp"/nvidia/*/lib 2>/dev/null
	done
	echo "== ld cache"; ldconfig -p | grep -E 'cuda|cudnn|cublas|nvidia-ml|nccl|nvrtc'
	ls -la /usr/local/cuda/lib64 2>/dev/null | head -50
	echo "== tools"; command -v cc gcc nvcc; nvcc --version | tail -2
} > "$OUT/host.txt" 2>&1

t() { local s=$(date +%s%N); "$@"; local rc=$?; echo "$(( ($(date +%s%N) - s) / 1000000 )) ms rc=$rc: $*" >> "$OUT/timings.txt"; return $rc; }
t "$EP" capture -o "$OUT/capture-cold.json" 2> "$OUT/capture-cold.err"
t "$EP" capture -o "$OUT/capture-warm.json" 2> "$OUT/capture-warm.err"
t "$EP" capture --no-cache -o "$OUT/capture-nocache.json" 2> /dev/null
sp=$(python3 -c 'import site; print(site.getsitepackages()[0])' 2>/dev/null)
if [ -n "$sp" ] && [ -d "$sp/nvidia" ]; then
	args=()
	for d in "$sp"/nvidia/*/lib; do args+=(--lib-path "$d"); done
	t "$EP" capture "${args[@]}" -o "$OUT/capture-torch.json" 2> "$OUT/capture-torch.err"
fi
# How the helpers that touched the GPU were confined (meta.confinement:
# nobody or root without capabilities, Landlock with /dev/nvidia*, the
# seccomp filter), and whether the probe ran so: one GPU run each.
t "$EP" capture --no-cache --runs 1 --require-gpu -o "$OUT/capture-probe.json" 2> "$OUT/capture-probe.err"
for f in capture-nocache capture-probe; do
	python3 -c 'import json, sys; m = json.load(open(sys.argv[1])); print(sys.argv[2], json.dumps(m["meta"].get("confinement"), indent=1)); print(json.dumps(m["meta"].get("unavailable"), indent=1))' \
	    "$OUT/$f.json" "$f" >> "$OUT/confinement.txt" 2>&1
done

# bless, then check with the reference workload, through a local store.
(
	cd "$(mktemp -d)" || exit 1
	"$EP" bless -q -m "H100 reference" > "$OUT/bless.txt" 2>&1
	if command -v git > /dev/null; then
		git clone -q .envparity/store wt &&
		mkdir -p wt/default &&
		cp "$OLDPWD/manifests/examples/default/policy.json" wt/default/ &&
		git -C wt add default/policy.json &&
		git -C wt -c user.name=t -c user.email=t@x commit -qm policy &&
		git -C wt push -q origin HEAD
	fi
	t "$EP" check --runs 5 --require-gpu --json "$OUT/check-report.json" > "$OUT/check.txt" 2>&1
	echo "check exit $?" >> "$OUT/check.txt"
	t "$EP" probe --runs 5 --backend all --require-gpu -o "$OUT/probe-facts.json" > "$OUT/probe.txt" 2>&1
	echo "probe exit $?" >> "$OUT/probe.txt"
	# The gate's speed: one process at a time (as before --jobs) against
	# side by side, three times each, and PyTorch's start-up beside it.
	for i in 1 2 3; do
		t "$EP" check -q --runs 5 --require-gpu --jobs 1 >> "$OUT/check-jobs.txt" 2>&1
		t "$EP" check -q --runs 5 --require-gpu >> "$OUT/check-jobs.txt" 2>&1
		t "$EP" probe -q --runs 5 --require-gpu --jobs 1 >> "$OUT/check-jobs.txt" 2>&1
		t "$EP" probe -q --runs 5 --require-gpu >> "$OUT/check-jobs.txt" 2>&1
		t python3 -c 'import torch; torch.cuda.init()' >> "$OUT/check-jobs.txt" 2>&1
	done
	# Contention: the probe's own per-workload times, one at a time and
	# side by side.
	"$EP" probe --runs 5 --require-gpu --jobs 1 > "$OUT/probe-jobs1.txt" 2>&1
	"$EP" probe --runs 5 --require-gpu --jobs 16 > "$OUT/probe-jobs16.txt" 2>&1
)

for u in gpu-carry/tests/test_*; do
	CMOCKA_MESSAGE_OUTPUT=TAP "$u" > "$OUT/unit-$(basename "$u").tap" 2>&1
done
EP_NO_VALIDATOR=1 EP_BIN=$EP bats --tap tests/cli > "$OUT/bats.tap" 2>&1
cat "$OUT"/*.tap | grep -cE "^ok " > "$OUT/passed"
grep -hE '^not ok ' "$OUT"/*.tap > "$OUT/failed.txt"
echo "passed $(cat "$OUT/passed" 2>/dev/null), failed $(wc -l < "$OUT/failed.txt")"
cat "$OUT/timings.txt"
grep -H -A3 '^not ok' "$OUT"/unit-*.tap
# The device tool brings back only a few files: one archive of the rest,
# named to sort first.
tar czf /tmp/gpu-results.tgz -C "$OUT" --exclude=.cache --exclude='capture-*.json' .
find "$OUT" -mindepth 1 -maxdepth 1 ! -name 'capture-*.json' -exec rm -rf {} +
mv /tmp/gpu-results.tgz "$OUT/0-results.tgz"
