#!/usr/bin/env bats
# The NVIDIA stack through the real binary.  The CUDA libraries are the
# real ones in /usr/local/cuda/lib64 (tests that need them skip where it
# is missing); the GPU driver, absent from the build machines, is played
# by a TEST DOUBLE of libnvidia-ml.so.1 (tests/doubles/fake_nvml.c),
# compiled here and put on LD_LIBRARY_PATH.  FAKE_NVML_MODE picks how it
# behaves: ok, init_fails, no_devices, hang, crash, crash_on_load.
#
# The captures of most tests share one cache (hashes and library answers)
# so that only the first pays for hashing 1.4 GB of libraries; the test of
# the cache itself uses its own.  They name an empty --site-packages so as
# not to start a Python interpreter each time.

load setup

CUDA=/usr/local/cuda

setup_file() {
	mkdir -p "$BATS_FILE_TMPDIR/drv" "$BATS_FILE_TMPDIR/site"
	cc -shared -fPIC -o "$BATS_FILE_TMPDIR/drv/libnvidia-ml.so.1" \
		"$BATS_TEST_DIRNAME/../doubles/fake_nvml.c" \
		"$BATS_TEST_DIRNAME/../doubles/fake_nvml_health.c"
}

need_cuda() {
	[ -e "$CUDA/lib64/libcudart.so.13" ] && [ -e "$CUDA/lib64/libcudnn.so.9" ] ||
		skip "no CUDA 13 libraries in $CUDA/lib64"
}

# A machine with a real NVML would not show the "not found" path.
need_no_driver() {
	if ldconfig -p 2>/dev/null | grep -q 'libnvidia-ml\.so\.1 '; then
		skip "this machine has an NVIDIA driver"
	fi
}

# Capture into $T/$1 with the shared cache; other arguments are options.
capture() { # out [options...]
	local out=$1
	shift
	XDG_CACHE_HOME=$BATS_FILE_TMPDIR/cache run "$EP" capture --no-discover \
		--site-packages "$BATS_FILE_TMPDIR/site" -o "$T/$out" "$@"
	[ "$status" -eq 0 ]
}

# Capture with the double as the driver, in mode $1.
capture_gpu() { # mode out [options...]
	local mode=$1
	shift
	FAKE_NVML_MODE=$mode LD_LIBRARY_PATH=$BATS_FILE_TMPDIR/drv${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} capture "$@"
}

define() { # header NAME
	awk -v n="$2" '$1 == "#define" && $2 == n { print $3; exit }' \
		"$CUDA/include/$1"
}

sha() { # path
	sha256sum "$1" | cut -d' ' -f1
}

meta() { # file jq-path
	jq -r "$2 // empty" "$T/$1"
}

@test "real CUDA libraries report their versions, real paths and hashes" {
	need_cuda
	capture m.json
	local cudnn cudart
	cudnn="$(define cudnn_version.h CUDNN_MAJOR).$(define cudnn_version.h \
		CUDNN_MINOR).$(define cudnn_version.h CUDNN_PATCHLEVEL)"
	cudart=$(define cuda_runtime_api.h CUDART_VERSION)
	cudart="$((cudart / 1000)).$((cudart % 1000 / 10))"

	[ "$(fact m.json lib.cudnn.version)" = "$cudnn" ]
	[ "$(fact m.json lib.cudart.version)" = "$cudart" ] ||
		[[ "$(fact m.json lib.cudart.version)" == "$cudart".* ]]
	[ "$(fact m.json lib.cublas.version)" = "$(define cublas_api.h \
		CUBLAS_VER_MAJOR).$(define cublas_api.h CUBLAS_VER_MINOR).$(define \
		cublas_api.h CUBLAS_VER_PATCH)" ]
	[ "$(fact m.json lib.cublaslt.version)" = \
		"$(fact m.json lib.cublas.version)" ]
	[ "$(fact m.json lib.nccl.version)" = "$(define nccl.h \
		NCCL_MAJOR).$(define nccl.h NCCL_MINOR).$(define nccl.h NCCL_PATCH)" ]
	[[ "$(fact m.json lib.nvrtc.version)" == "$cudart"* ]]
	[[ "$(fact m.json lib.cudnn.cudart)" =~ ^[0-9]+\.[0-9]+$ ]]
	[[ "$(fact m.json lib.cublas.cudart)" =~ ^[0-9]+\.[0-9]+$ ]]
	if [ "$cudnn" = 9.19.0 ]; then
		# This cuDNN was built for cudart 13.1; the runtime is 13.0.
		[ "$(fact m.json lib.cudnn.cudart)" = 13.1 ]
	fi

	for n in cudart:libcudart.so.13 cudnn:libcudnn.so.9 \
	    cudnn_ops:libcudnn_ops.so.9 nccl:libnccl.so.2 cublas:libcublas.so.13; do
		local real
		real=$(realpath "$CUDA/lib64/${n#*:}")
		[ "$(fact m.json "lib.${n%%:*}.path")" = "$real" ]
		[ "$(fact m.json "lib.${n%%:*}.sha256")" = "$(sha "$real")" ]
	done
	# Every cuDNN 9 sub-library is its own fact; those that say their
	# version agree with the dispatcher.
	for s in graph ops cnn adv engines_precompiled engines_runtime_compiled \
	    heuristic; do
		[ -n "$(fact m.json "lib.cudnn_$s.path")" ]
		[ -n "$(fact m.json "lib.cudnn_$s.sha256")" ]
	done
	for s in graph ops adv; do
		[ "$(fact m.json "lib.cudnn_$s.version")" = "$cudnn" ]
	done
	[ "$(fact m.json lib.cudnn_cnn.version_check)" = ok ]
	[ -z "$(meta m.json .meta.unavailable.lib)" ]

	# The math libraries say their versions as their headers do; the
	# others are found, hashed, and say what they can.
	local h l v
	for l in cufft:cufft.h:CUFFT curand:curand.h:CURAND \
	    cusolver:cusolver_common.h:CUSOLVER cusparse:cusparse.h:CUSPARSE; do
		IFS=: read -r n h v <<<"$l"
		[ "$(fact m.json "lib.$n.version")" = "$(define "$h" \
		    ${v}_VER_MAJOR).$(define "$h" ${v}_VER_MINOR).$(define "$h" \
		    ${v}_VER_PATCH)" ]
	done
	[[ "$(fact m.json lib.nvjitlink.version)" == "$(fact m.json \
	    lib.nvrtc.version | cut -d. -f1-2)"* ]]
	[ "$(fact m.json lib.cupti.api)" = "$(define cupti_version.h \
	    CUPTI_API_VERSION)" ]
	[[ "$(fact m.json lib.nvvm.api)" =~ ^[0-9]+\.[0-9]+$ ]]
	for n in cufft:libcufft.so.12 curand:libcurand.so.10 \
	    cusolver:libcusolver.so.12 cusparse:libcusparse.so.12 \
	    nvjitlink:libnvJitLink.so.13 cupti:libcupti.so.13 \
	    nvvm:libnvvm.so.4 nvblas:libnvblas.so.13; do
		[ -e "$CUDA/lib64/${n#*:}" ] || continue
		real=$(realpath "$CUDA/lib64/${n#*:}")
		[ "$(fact m.json "lib.${n%%:*}.path")" = "$real" ]
		[ "$(fact m.json "lib.${n%%:*}.sha256")" = "$(sha "$real")" ]
	done
	# TensorRT where it is installed (not on the build machines).
	if [ -e "$CUDA/lib64/libnvinfer.so" ] || ldconfig -p 2>/dev/null |
	    grep -q 'libnvinfer\.so\.'; then
		[[ "$(fact m.json lib.tensorrt.version)" =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]]
	else
		[ -z "$(fact m.json lib.tensorrt.path)" ]
	fi
}

@test "a --lib-path folder of links into lib64 wins and reports real paths" {
	need_cuda
	mkdir links copy
	for f in "$CUDA"/lib64/lib*.so.*; do
		ln -s "$f" links/
	done
	cp "$CUDA/lib64/libcudart.so.13" copy/

	# LD_LIBRARY_PATH comes before the loader's cache...
	LD_LIBRARY_PATH=$T/copy capture plain.json
	[ "$(fact plain.json lib.cudart.path)" = "$(realpath copy/libcudart.so.13)" ]
	# ...and --lib-path before LD_LIBRARY_PATH.
	LD_LIBRARY_PATH=$T/copy capture first.json --lib-path "$T/links"
	[ "$(fact first.json lib.cudart.path)" = \
		"$(realpath "$CUDA/lib64/libcudart.so.13")" ]
	[ "$(fact first.json lib.cudnn.path)" = \
		"$(realpath "$CUDA/lib64/libcudnn.so.9")" ]
	[ "$(fact first.json lib.cudart.sha256)" = \
		"$(sha "$CUDA/lib64/libcudart.so.13")" ]
	[ "$(fact first.json lib.cudnn.version)" = \
		"$(fact plain.json lib.cudnn.version)" ]
	! grep -q "$T/links" first.json || false
}

@test "a --lib-path that is missing or not a folder exits 2 naming it" {
	XDG_CACHE_HOME=$BATS_FILE_TMPDIR/cache run "$EP" capture --no-discover \
		--site-packages "$BATS_FILE_TMPDIR/site" --lib-path "$T/nope"
	[ "$status" -eq 2 ]
	[ "${#lines[@]}" -eq 1 ]
	[[ "${lines[0]}" == *"--lib-path $T/nope"*"No such file or directory"* ]]

	touch afile
	XDG_CACHE_HOME=$BATS_FILE_TMPDIR/cache run "$EP" capture --no-discover \
		--site-packages "$BATS_FILE_TMPDIR/site" --lib-path "$T/afile"
	[ "$status" -eq 2 ]
	[ "${#lines[@]}" -eq 1 ]
	[[ "${lines[0]}" == *"$T/afile: not a directory"* ]]
}

@test "without a driver, meta.unavailable.gpu says libnvidia-ml.so.1 is not found" {
	need_no_driver
	capture m.json
	[[ "$(meta m.json .meta.unavailable.gpu)" == "libnvidia-ml.so.1 not found"* ]]
	[ -z "$(jq -r '.facts | keys[] | select(startswith("gpu."))' m.json)" ]
}

@test "NVML (test double): driver, CUDA driver and every device fact" {
	capture_gpu ok m.json
	[ "$(fact m.json gpu.driver.version)" = 580.159.04 ]
	[ "$(fact m.json gpu.cuda_driver.version)" = 13.0 ]
	[ "$(fact m.json gpu.count)" = 2 ]
	for i in 0 1; do
		[ "$(fact m.json gpu.$i.name)" = "NVIDIA H100 80GB HBM3" ]
		[ "$(fact m.json gpu.$i.cc)" = 9.0 ]
		[ "$(fact m.json gpu.$i.ecc)" = enabled ]
		[ "$(fact m.json gpu.$i.memory_total)" = 85520809984 ]
	done
	[ "$(fact m.json gpu.0.vbios)" = 96.00.99.00.01 ]
	[ "$(fact m.json gpu.0.persistence)" = enabled ]
	[ "$(fact m.json gpu.1.persistence)" = disabled ]
	[ "$(fact m.json gpu.0.mig)" = disabled ]
	[ "$(fact m.json gpu.1.mig)" = unsupported ]
	[ "$(fact m.json gpu.0.remapped_rows_pending)" = no ]
	[ "$(fact m.json gpu.1.remapped_rows_pending)" = yes ]
	[ -z "$(meta m.json .meta.unavailable.gpu)" ]
	# Identifiers that differ across identical machines are not facts.
	! grep -qi -e uuid -e serial -e GPU-0000 -e 1650123456789 m.json || false
}

@test "NVML (test double): a failing nvmlInit is the reason the GPU is unavailable" {
	capture_gpu init_fails m.json
	[ "$(meta m.json .meta.unavailable.gpu)" = \
		"nvmlInit_v2: Driver Not Loaded (9)" ]
	[ -z "$(fact m.json gpu.count)" ]
}

@test "NVML (test double): no devices is a count of 0" {
	capture_gpu no_devices m.json
	[ "$(fact m.json gpu.count)" = 0 ]
	[ "$(fact m.json gpu.driver.version)" = 580.159.04 ]
	[ -z "$(fact m.json gpu.0.name)" ]
}

@test "NVML (test double): a crash is reported, the facts before it and the libraries stay" {
	need_cuda
	capture_gpu crash m.json
	[[ "$output" == *"libnvidia-ml.so.1) crashed (signal 11"* ]]
	[[ "$(meta m.json '.meta.warnings[]')" == *"libnvidia-ml.so.1) crashed"* ]]
	[[ "$(meta m.json .meta.unavailable.gpu)" == *crashed* ]]
	[ "$(fact m.json gpu.driver.version)" = 580.159.04 ]
	[ -z "$(fact m.json gpu.count)" ]
	[ "$(fact m.json lib.cudnn.version)" = \
		"$(define cudnn_version.h CUDNN_MAJOR).$(define cudnn_version.h \
		CUDNN_MINOR).$(define cudnn_version.h CUDNN_PATCHLEVEL)" ]

	capture_gpu crash_on_load m2.json
	[[ "$(meta m2.json .meta.unavailable.gpu)" == *"crashed (signal 11"* ]]
	[ -n "$(fact m2.json lib.cudart.version)" ]
}

@test "NVML (test double): a hang is killed at ENVPARITY_LOAD_TIMEOUT_MS" {
	need_cuda
	# Library answers cached first, so that only NVML runs under the
	# short deadline.
	capture_gpu ok warm.json
	ENVPARITY_LOAD_TIMEOUT_MS=500 capture_gpu hang m.json
	[[ "$(meta m.json .meta.unavailable.gpu)" == *"libnvidia-ml.so.1) did not finish within 500 ms" ]]
	[[ "$(meta m.json '.meta.warnings[]')" == *"did not finish within 500 ms"* ]]
	[ -z "$(fact m.json gpu.count)" ]
	[ "$(fact m.json lib.cudnn.version)" = "$(fact warm.json lib.cudnn.version)" ]
	[ "$(fact m.json lib.cudart.sha256)" = "$(fact warm.json lib.cudart.sha256)" ]
}

@test "a bad ENVPARITY_LOAD_TIMEOUT_MS is a warning, not a failure" {
	capture_gpu ok m.json
	ENVPARITY_LOAD_TIMEOUT_MS=soon capture_gpu ok m2.json
	[[ "$(meta m2.json '.meta.warnings[]')" == *"ENVPARITY_LOAD_TIMEOUT_MS=soon"* ]]
	[ "$(fact m2.json gpu.count)" = 2 ]
}

@test "a warm capture of an unchanged stack loads no library and says the same" {
	need_cuda
	need_no_driver
	local site=$BATS_FILE_TMPDIR/site
	# Cold: not the cache setup.bash seeds.
	rm -rf "$XDG_CACHE_HOME/envparity"
	run "$EP" capture --no-discover --site-packages "$site" -o "$T/cold.json"
	[ "$status" -eq 0 ]
	run "$EP" capture --no-discover --site-packages "$site" -o "$T/warm.json"
	[ "$status" -eq 0 ]
	[ "$(meta cold.json .meta.cudastack.children)" -ge 13 ]
	[ "$(meta warm.json .meta.cudastack.children)" -eq 0 ]
	# Every library loaded is cached; nvblas is never loaded.
	local unloaded=0
	[ -z "$(fact warm.json lib.nvblas.path)" ] || unloaded=1
	[ "$(meta warm.json .meta.cudastack.cached)" -eq \
		$(($(meta warm.json .meta.cudastack.libraries) - unloaded)) ]
	diff <(jq -S .facts cold.json) <(jq -S .facts warm.json)

	# --no-cache asks the libraries again.
	run "$EP" capture --no-discover --site-packages "$site" --no-cache \
		-o "$T/nocache.json"
	[ "$(meta nocache.json .meta.cudastack.children)" -ge 13 ]
}

# --- which wheel installed each library (libwheel.c) ---------------------

# The build machines' /usr/local/cuda was made from NVIDIA's wheels, their
# dist-infos kept in $CUDA/dist-info.
need_cuda_wheels() {
	need_cuda
	compgen -G "$CUDA/dist-info/nvidia_cuda_runtime-*.dist-info" >/dev/null ||
		skip "no NVIDIA wheel dist-infos in $CUDA/dist-info"
}

wheel_version() { # dist-info-prefix
	sed -n 's/^Version: *//p' "$CUDA"/dist-info/"$1"-*.dist-info/METADATA |
		head -1 | tr -d '\r'
}

@test "wheels: cudart and nvrtc get the wheel's full release, each library its wheel" {
	need_cuda_wheels
	capture m.json
	local rt nvrtc cudnn
	rt=$(wheel_version nvidia_cuda_runtime)
	nvrtc=$(wheel_version nvidia_cuda_nvrtc)
	cudnn=$(wheel_version nvidia_cudnn_cu13)
	[ -n "$rt" ] && [ -n "$cudnn" ]
	[ "$(fact m.json lib.cudart.wheel)" = "nvidia-cuda-runtime==$rt" ]
	[ "$(fact m.json lib.cudart.version)" = "$(echo "$rt" | cut -d. -f1-3)" ]
	[ "$(fact m.json lib.cudnn.wheel)" = "nvidia-cudnn-cu13==$cudnn" ]
	# cuDNN says 9.19.0 itself: the wheel's 9.19.0.56 does not replace it.
	[ "$(fact m.json lib.cudnn.version)" = "$(echo "$cudnn" | cut -d. -f1-3)" ]
	[ "$(fact m.json lib.cudnn_ops.wheel)" = "nvidia-cudnn-cu13==$cudnn" ]
	if [ -n "$nvrtc" ]; then
		[ "$(fact m.json lib.nvrtc.wheel)" = "nvidia-cuda-nvrtc==$nvrtc" ]
		[ "$(fact m.json lib.nvrtc.version)" = \
			"$(echo "$nvrtc" | cut -d. -f1-3)" ]
	fi
	if [ "$rt" = 13.0.96 ]; then
		[ "$(fact m.json lib.cudart.version)" = 13.0.96 ]
		[ "$(fact m.json lib.cudnn.wheel)" = nvidia-cudnn-cu13==9.19.0.56 ]
	fi
	# What pip recorded is what is on disk.
	local real
	real=$(realpath "$CUDA/lib64/libcudart.so.13")
	[ "$(fact m.json lib.cudart.record_sha256)" = "$(sha "$real")" ]
	[ "$(fact m.json lib.cudart.record_sha256)" = \
		"$(fact m.json lib.cudart.sha256)" ]
	validate_schema manifest m.json
}

@test "wheels: a site-packages wheel install is found; a RECORD that disagrees shows" {
	need_cuda
	local site=$T/site lib=$T/site/nvidia/cu13/lib di
	di=$site/nvidia_cuda_runtime-13.0.99.dist-info
	mkdir -p "$lib" "$di"
	cp "$CUDA/lib64/libcudart.so.13" "$lib/"
	# pip's RECORD: urlsafe base64 of the digest, no padding.
	local b64
	b64=$(openssl dgst -sha256 -binary "$lib/libcudart.so.13" | base64 -w0 |
		tr '+/' '-_' | tr -d =)
	printf 'Metadata-Version: 2.1\nName: nvidia-cuda-runtime\nVersion: 13.0.99\n\n' \
		>"$di/METADATA"
	printf 'nvidia/cu13/lib/libcudart.so.13,sha256=%s,%s\n%s\n' "$b64" \
		"$(stat -c %s "$lib/libcudart.so.13")" \
		nvidia_cuda_runtime-13.0.99.dist-info/RECORD,, >"$di/RECORD"

	capture m.json --lib-path "$lib"
	[ "$(fact m.json lib.cudart.path)" = "$lib/libcudart.so.13" ]
	[ "$(fact m.json lib.cudart.wheel)" = nvidia-cuda-runtime==13.0.99 ]
	[ "$(fact m.json lib.cudart.version)" = 13.0.99 ]
	[ "$(fact m.json lib.cudart.record_sha256)" = "$(sha "$lib/libcudart.so.13")" ]
	validate_schema manifest m.json

	# Overwritten after install: both digests are facts, and differ.
	printf 'x' >>"$lib/libcudart.so.13"
	capture t.json --lib-path "$lib"
	[ "$(fact t.json lib.cudart.wheel)" = nvidia-cuda-runtime==13.0.99 ]
	[ "$(fact t.json lib.cudart.record_sha256)" = \
		"$(fact m.json lib.cudart.record_sha256)" ]
	[ "$(fact t.json lib.cudart.sha256)" = "$(sha "$lib/libcudart.so.13")" ]
	[ "$(fact t.json lib.cudart.sha256)" != \
		"$(fact t.json lib.cudart.record_sha256)" ]
}

@test "wheels: a library no wheel lists has no wheel facts and keeps its own version" {
	need_cuda
	mkdir -p copy/lib nvidia_other-1.0.dist-info
	cp "$CUDA/lib64/libcudart.so.13" copy/lib/
	printf 'Name: nvidia-other\nVersion: 1.0\n' >nvidia_other-1.0.dist-info/METADATA
	printf 'nvidia/other/lib/libother.so.1,,1\n' >nvidia_other-1.0.dist-info/RECORD
	capture m.json --lib-path "$T/copy/lib"
	[ "$(fact m.json lib.cudart.path)" = "$T/copy/lib/libcudart.so.13" ]
	[ -z "$(fact m.json lib.cudart.wheel)" ]
	[ -z "$(fact m.json lib.cudart.record_sha256)" ]
	[[ "$(fact m.json lib.cudart.version)" =~ ^[0-9]+\.[0-9]+$ ]]
}
