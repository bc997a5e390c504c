#!/usr/bin/env bats
# capture_cuda_order.bats: which copy of a CUDA library the manifest names
# when there are several: a framework's wheel beats the loader's cache.

load setup

@test "a cuDNN in site-packages/nvidia/cudnn/lib wins over the loader cache's" {
	[ -e /usr/local/cuda/lib64/libcudnn.so.9 ] || skip "no CUDA libraries here"
	mkdir -p sp/nvidia/cudnn/lib
	# A copy, not a link, so that its real path tells which one was taken.
	cp /usr/local/cuda/lib64/libcudnn.so.9 sp/nvidia/cudnn/lib/
	"$EP" capture -q --no-discover --site-packages "$T/sp" > m.json
	[ "$(fact m.json lib.cudnn.path)" = "$T/sp/nvidia/cudnn/lib/libcudnn.so.9" ]
	[ "$(fact m.json lib.cudnn.version)" = "9.19.0" ]
	[ "$(fact m.json lib.cudnn.sha256)" = "$(sha256sum < sp/nvidia/cudnn/lib/libcudnn.so.9 | cut -d' ' -f1)" ]
	# Libraries the wheel folder lacks still come from the system.
	[ "$(fact m.json lib.cublas.path)" = "$(readlink -f /usr/local/cuda/lib64/libcublas.so.13)" ]
}

@test "LD_LIBRARY_PATH still wins over site-packages" {
	[ -e /usr/local/cuda/lib64/libcudnn.so.9 ] || skip "no CUDA libraries here"
	mkdir -p sp/nvidia/cudnn/lib ld
	cp /usr/local/cuda/lib64/libcudnn.so.9 sp/nvidia/cudnn/lib/
	cp /usr/local/cuda/lib64/libcudnn.so.9 ld/
	LD_LIBRARY_PATH=$T/ld "$EP" capture -q --no-discover --site-packages "$T/sp" > m.json
	[ "$(fact m.json lib.cudnn.path)" = "$T/ld/libcudnn.so.9" ]
}
