# probe_gpus.bash: what probe_gpus.bats and probe_jobs.bats share (load
# after setup).  The GPUs are two TEST DOUBLES: the NVML one
# (tests/doubles/fake_nvml.c, FAKE_NVML_GPUS=N H100s: the capture's
# gpu.count, FAKE_NVML_HEALTH their state) and the probe one
# (tests/doubles/fake_probe.sh), which takes its CUDA_VISIBLE_DEVICES as
# its GPU.

FAKE=$BATS_TEST_DIRNAME/../doubles/fake_probe.sh

setup_file() {
	mkdir -p "$BATS_FILE_TMPDIR/drv" "$BATS_FILE_TMPDIR/site"
	cc -shared -fPIC -o "$BATS_FILE_TMPDIR/drv/libnvidia-ml.so.1" \
		"$BATS_TEST_DIRNAME/../doubles/fake_nvml.c" \
		"$BATS_TEST_DIRNAME/../doubles/fake_nvml_health.c"
}

# envparity probe with N fake GPUs ($1), the fake probe's GPU backends
# on, and a state directory; the rest are probe's arguments.
gpus() {
	local n=$1
	shift
	mkdir -p "$T/state"
	FAKE_NVML_GPUS=$n LD_LIBRARY_PATH=$BATS_FILE_TMPDIR/drv \
	    FAKE_PROBE_GPU=1 FAKE_PROBE_STATE=$T/state \
	    XDG_CACHE_HOME=$BATS_FILE_TMPDIR/cache \
	    run "$EP" probe --probe "$FAKE" --no-discover \
	    --site-packages "$BATS_FILE_TMPDIR/site" "$@"
}

# No GPU list from the machine running the tests.
unset CUDA_VISIBLE_DEVICES CUDA_DEVICE_ORDER
