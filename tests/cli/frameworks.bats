#!/usr/bin/env bats
# What TensorFlow, PyTorch and JAX were built for (framework.*), read from
# the files their wheels install, in the formats their generators write
# (shared/research/frameworks.md quotes them), against the real CUDA 13
# libraries in /usr/local/cuda/lib64 (cudart 13.0, cuDNN 9.19): the
# stack.framework.* checks.

load setup

CUDA_LIB=${EP_CUDA_LIB:-/usr/local/cuda/lib64}

# dist SITE NAME VERSION [Requires-Dist...]: a .dist-info with METADATA.
dist() {
	local site=$1 name=$2 version=$3 d
	shift 3
	d="$site/$(echo "$name" | tr - _)-$version.dist-info"
	mkdir -p "$d"
	{
		printf 'Metadata-Version: 2.1\nName: %s\nVersion: %s\n' "$name" "$version"
		for r in "$@"; do printf 'Requires-Dist: %s\n' "$r"; done
		printf '\nThe long description, with a line\nRequires-Dist: not-a-header==1\n'
	} > "$d/METADATA"
}

# tensorflow SITE VERSION CUDA CUDNN CAPS IS_CUDA [and-cuda pins...]:
# build_info.py as tensorflow/tools/build_info/gen_build_info.py writes it.
tensorflow() {
	local site=$1 v=$2 cuda=$3 cudnn=$4 caps=$5 is_cuda=$6
	shift 6
	mkdir -p "$site/tensorflow/python/platform"
	if [ "$is_cuda" = True ]; then
		cat > "$site/tensorflow/python/platform/build_info.py" <<-EOF
		# Copyright 2023 The TensorFlow Authors. All Rights Reserved.
		"""Auto-generated module providing information about the build."""
		import collections

		build_info = collections.OrderedDict([('cpu_compiler', '/usr/lib/llvm-17/bin/clang'), ('cuda_compute_capabilities', [$caps]), ('cuda_version', '$cuda'), ('cudnn_version', '$cudnn'), ('is_cuda_build', True), ('is_rocm_build', False), ('is_tensorrt_build', True)])
		EOF
	else
		cat > "$site/tensorflow/python/platform/build_info.py" <<-EOF
		import collections

		build_info = collections.OrderedDict([('cpu_compiler', '/usr/lib/llvm-17/bin/clang'), ('is_cuda_build', False), ('is_rocm_build', False), ('is_tensorrt_build', False)])
		EOF
	fi
	local reqs=("absl-py>=1.0.0" "numpy<2.0.0,>=1.23.5")
	for p in "$@"; do reqs+=("$p; extra == \"and-cuda\""); done
	dist "$site" tensorflow "$v" "${reqs[@]}"
}

# torch SITE VERSION CUDA CUDNN [pins...]: torch/version.py as
# tools/generate_torch_version.py writes it, caffe2's macros.h.
torch() {
	local site=$1 v=$2 cuda=$3 cudnn=$4
	shift 4
	mkdir -p "$site/torch/include/caffe2/core"
	cat > "$site/torch/version.py" <<-EOF
	from typing import Optional

	__all__ = ['__version__', 'debug', 'cuda', 'git_version', 'hip', 'xpu']
	__version__ = '$v'
	debug = False
	cuda: Optional[str] = '$cuda'
	git_version = '5a8c8e0ad8b3b1f1a4e5a0b1f3e3b56a1a7c2d9e'
	hip: Optional[str] = None
	xpu: Optional[str] = None
	EOF
	cat > "$site/torch/include/caffe2/core/macros.h" <<-EOF
	#pragma once
	#define CAFFE2_BUILD_STRINGS { \\
	  {"TORCH_VERSION", "${v%%+*}"}, \\
	  {"CUDA_VERSION", "$cuda"}, \\
	  {"CUDNN_VERSION", "$cudnn"}, \\
	  {"USE_CUDNN", "1"}, \\
	}
	EOF
	local reqs=("filelock" "typing-extensions>=4.10.0")
	for p in "$@"; do reqs+=("$p; platform_system == \"Linux\" and platform_machine == \"x86_64\""); done
	dist "$site" torch "${v%%+*}" "${reqs[@]}"
	# What pip installs beside it (stack.requires checks that it is).
	dist "$site" filelock 3.16.1
	dist "$site" typing-extensions 4.12.2
}

# jax SITE VERSION CUDA-MAJOR CUDNN-RANGE: jaxlib/version.py, jax, the
# CUDA plugin and PJRT wheels with their with-cuda ranges.
jax() {
	local site=$1 v=$2 cu=$3 range=$4
	mkdir -p "$site/jaxlib"
	cat > "$site/jaxlib/version.py" <<-EOF
	_version: str = "$v"
	_release_version: str = '$v'
	_git_hash: str = 'c2a7f6d1'
	EOF
	dist "$site" jax "$v" "jaxlib<=$v,>=$v"
	dist "$site" jaxlib "$v"
	dist "$site" "jax-cuda$cu-plugin" "$v" "jax-cuda$cu-pjrt==$v" \
	    "nvidia-cudnn-cu$cu$range; extra == \"with-cuda\"" \
	    "nvidia-nccl-cu$cu>=2.27.7; extra == \"with-cuda\""
	dist "$site" "jax-cuda$cu-pjrt" "$v"
}

cap() { # site -> m.json
	"$EP" capture -q --no-discover --site-packages "$1" --lib-path "$CUDA_LIB" -o m.json
}

result() { # report key -> "status"
	jq -r --arg k "$2" '.results[] | select(.key == $k) | .status' "$1"
}

check() { # site [args]
	local site=$1
	shift
	run "$EP" check --store store.git --no-discover --site-packages "$site" \
	    --lib-path "$CUDA_LIB" --json r.json "$@"
	echo "$output"
}

# The golden is the machine under test, failing its own checks on
# purpose: what check says of them is the test.
setup_store() {
	git init -q --bare store.git
	"$EP" bless -q --accept-failing --store store.git m.json 2>/dev/null
}

@test "frameworks: TensorFlow 2.15 with its and-cuda pins on cuDNN 9 and CUDA 13 fails, naming why" {
	tensorflow sp 2.15.0 12.2 8 "'sm_50', 'sm_60', 'sm_70', 'sm_75', 'compute_80'" True \
	    nvidia-cudnn-cu12==8.9.4.25 nvidia-cuda-runtime-cu12==12.2.140
	cap sp
	[ "$(fact m.json framework.tensorflow.cuda_version)" = 12.2 ]
	[ "$(fact m.json framework.tensorflow.cudnn_version)" = 8 ]
	[ "$(fact m.json framework.tensorflow.is_cuda_build)" = true ]
	[ "$(fact m.json framework.tensorflow.cuda_compute_capabilities)" = "sm_50,sm_60,sm_70,sm_75,compute_80" ]
	[ "$(fact m.json framework.tensorflow.requires.nvidia-cudnn-cu12)" = "==8.9.4.25" ]
	[ "$(fact m.json framework.tensorflow.distribution)" = tensorflow ]
	# Only the and-cuda extra's NVIDIA pins: not absl-py, not the long
	# description's look-alike.
	[ "$(jq -r '[.facts | keys[] | select(startswith("framework.tensorflow.requires."))] | length' m.json)" = 2 ]
	setup_store
	check sp
	[ "$status" -eq 1 ]
	[ "$(result r.json stack.framework.tensorflow.cudnn)" = fail ]
	[ "$(result r.json stack.framework.tensorflow.cudart)" = fail ]
	[[ "$output" == *"was built with cuDNN 8.9 (its and-cuda extra pins nvidia-cudnn-cu12==8.9.4.25); the cuDNN here is 9.19.0, another major release (it looks for libcudnn.so.8): TensorFlow would skip the GPU and run on the CPU"* ]]
}

@test "frameworks: a torch cu124 build on CUDA 13 libraries fails on the runtime's major" {
	torch sp 2.5.1+cu124 12.4 9.1.0 nvidia-cudnn-cu12==9.1.0.70 nvidia-cuda-runtime-cu12==12.4.127
	cap sp
	# The local version part is kept, as version.py writes it.
	[ "$(fact m.json framework.torch.version)" = 2.5.1+cu124 ]
	[ "$(fact m.json framework.torch.cuda)" = 12.4 ]
	[ "$(fact m.json framework.torch.cudnn)" = 9.1.0 ]
	[ "$(fact m.json framework.torch.hip)" = "" ]
	[ "$(fact m.json framework.torch.requires.nvidia-cudnn-cu12)" = "==9.1.0.70" ]
	setup_store
	check sp
	[ "$status" -eq 1 ]
	[ "$(result r.json stack.framework.torch.cudart)" = fail ]
	[[ "$output" == *"PyTorch 2.5.1+cu124 was built for CUDA 12.4; the runtime here is 13.0.96, another major release"* ]]
}

@test "frameworks: a build matching the libraries passes" {
	torch sp 2.11.0+cu130 13.0 9.13.0 nvidia-cudnn-cu13==9.19.0.56
	dist sp nvidia-cudnn-cu13 9.19.0.56
	cap sp
	setup_store
	check sp
	[ "$status" -eq 0 ]
	[ "$(result r.json stack.framework.torch.cudart)" = pass ]
	[ "$(result r.json stack.framework.torch.cudnn)" = pass ]
	[ "$(result r.json stack.framework.torch.cuda_libs)" = pass ]
}

@test "frameworks: a cuDNN older than the one a build was made with fails (XLA's and PyTorch's rule)" {
	torch sp 2.12.0+cu130 13.0 9.20.0
	cap sp
	setup_store
	check sp
	[ "$status" -eq 1 ]
	[ "$(result r.json stack.framework.torch.cudnn)" = fail ]
	[[ "$output" == *'"Loaded runtime CuDNN library: 9.19.0 but source was compiled with: 9.20"'* ]]
}

@test "frameworks: JAX and torch whose cuDNN needs cannot both hold are one finding naming both" {
	torch sp 2.9.0 13.0 9.13.0 nvidia-cudnn-cu13==9.13.0.50
	jax sp 0.8.3 13 ">=9.15.0,<10.0"
	cap sp
	[ "$(fact m.json framework.jax.cuda)" = 13 ]
	[ "$(fact m.json framework.jax.jaxlib)" = 0.8.3 ]
	[ "$(fact m.json framework.jax.plugin)" = 0.8.3 ]
	[ "$(fact m.json framework.jax.pjrt)" = 0.8.3 ]
	[ "$(fact m.json framework.jax.requires.nvidia-cudnn-cu13)" = ">=9.15.0,<10.0" ]
	setup_store
	check sp
	[ "$status" -eq 1 ]
	[ "$(result r.json stack.framework.clash.cudnn)" = fail ]
	[[ "$output" == *"stack.framework.clash.cudnn: PyTorch 2.9.0 was built with cuDNN 9.13.0 and pins nvidia-cudnn-cu13==9.13.0.50, while JAX 0.8.3 needs nvidia-cudnn-cu13>=9.15.0,<10.0 (its CUDA plugin's requirement): no cuDNN satisfies both"* ]]
	# Needs that overlap are no clash.
	rm -rf sp
	torch sp 2.9.0 13.0 9.13.0 nvidia-cudnn-cu13==9.19.0.56
	jax sp 0.8.3 13 ">=9.12.0.46,<10.0"
	check sp
	[ "$(result r.json stack.framework.clash.cudnn)" = pass ]
}

@test "frameworks: a CPU-only TensorFlow gets no CUDA check" {
	tensorflow sp 2.15.0 "" "" "" False
	dist sp tensorflow-cpu 2.15.0
	rm -rf sp/tensorflow-2.15.0.dist-info
	cap sp
	[ "$(fact m.json framework.tensorflow.is_cuda_build)" = false ]
	[ "$(fact m.json framework.tensorflow.distribution)" = tensorflow-cpu ]
	setup_store
	check sp
	[ "$status" -eq 0 ]
	[ "$(result r.json stack.framework.tensorflow)" = skip ]
	[ -z "$(result r.json stack.framework.tensorflow.cudnn)" ]
	[ -z "$(result r.json stack.framework.tensorflow.cudart)" ]
}

@test "frameworks: a CUDA build with no CUDA library at all is named (TensorFlow would run on the CPU)" {
	tensorflow sp 2.20.0 12.5.1 9 "'sm_60', 'sm_70', 'sm_80', 'sm_89', 'compute_90'" True
	cap sp
	# This machine has CUDA in /usr/local/cuda: judge its manifest
	# without the libraries, as a node without them would capture it.
	mkdir fleet
	jq '.facts |= with_entries(select(.key | startswith("lib.") | not))' m.json > fleet/n1.json
	run "$EP" fleet fleet --json r.json
	echo "$output"
	[ "$status" -eq 1 ]
	[ "$(result r.json stack.framework.tensorflow.cuda_libs)" = fail ]
	[[ "$output" == *"TensorFlow 2.20.0 is a CUDA build (CUDA 12.5.1) but no CUDA runtime library was found: TensorFlow would run on the CPU"* ]]
}

@test "frameworks: a build_info changed between bless and check is drift" {
	tensorflow sp 2.15.0 12.2 8 "'sm_70', 'compute_80'" True
	cap sp
	setup_store
	sed -i "s/('cuda_version', '12.2')/('cuda_version', '12.3')/" sp/tensorflow/python/platform/build_info.py
	check sp
	[ "$status" -eq 1 ]
	[ "$(jq -r '.results[] | select(.key == "framework.tensorflow.cuda_version") | "\(.status) \(.expected) \(.actual)"' r.json)" = "fail 12.2 12.3" ]
}

@test "frameworks: a build_info that is not a literal is a warning, never executed" {
	mkdir -p sp/tensorflow/python/platform
	cat > sp/tensorflow/python/platform/build_info.py <<-EOF
	import os
	os.system("touch $T/EXECUTED")
	build_info = dict(cuda_version=os.environ.get("X"))
	EOF
	cap sp
	[ ! -e EXECUTED ]
	jq -r '.meta.warnings[]' m.json | grep -q 'build_info.py: not a build_info literal this envparity reads'
	[ -z "$(fact m.json framework.tensorflow.cuda_version)" ]
}

@test "frameworks: python.pkg keeps METADATA's version exactly, local part included" {
	dist sp torch 2.11.0+cu130
	cap sp
	[ "$(fact m.json python.pkg.torch)" = 2.11.0+cu130 ]
}

@test "frameworks: a golden blessed before framework facts sees them as new keys, or skips them by policy" {
	mkdir sp
	dist sp absl-py 2.1.0
	dist sp filelock 3.16.1
	dist sp typing-extensions 4.12.2
	cap sp
	setup_store
	torch sp 2.11.0+cu130 13.0 9.13.0
	check sp
	[ "$status" -eq 1 ]
	[ "$(jq -r '.results[] | select(.key == "framework.torch.cuda") | "\(.status) \(.expected) \(.actual)"' r.json)" = "fail null 13.0" ]
	git clone -q store.git wt
	mkdir -p wt/default
	echo '{"schema": "envparity/policy@1", "rules": [{"key": "framework.*", "rule": "exact", "missing": "skip"}, {"key": "python.pkg.torch", "rule": "exact", "missing": "skip"}]}' > wt/default/policy.json
	git -C wt add default/policy.json
	git -C wt -c user.name=t -c user.email=t@x commit -qm policy
	git -C wt push -q origin HEAD
	check sp
	[ "$status" -eq 0 ]
	[ "$(result r.json framework.torch.cuda)" = skip ]
}
