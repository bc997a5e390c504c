#!/usr/bin/env bats
# node.bats: the node facts end to end.  The fixture trees of
# tests/fixtures/node stand in, through EP_NODE_ROOT, for the hardware
# that is not here (an HCA, a fabric manager): a node is blessed, a
# drifted one checked, a fleet with one drifted node judged; the limits
# are this process's own, set here with ulimit.

load setup

NODES=$FIXTURES/node

# One hash cache for the file, warmed once: the CUDA libraries found here
# are hashed and loaded once, not by every capture.  And the TEST DOUBLE
# of libnvidia-ml.so.1 (tests/doubles/fake_nvml.c: the build machines
# have no GPU) for the NVLink and topology facts.
setup_file() {
	export XDG_CACHE_HOME=$BATS_FILE_TMPDIR/cache
	HOME=$BATS_FILE_TMPDIR "$EP" capture -q --no-discover >/dev/null
	mkdir -p "$BATS_FILE_TMPDIR/drv"
	cc -shared -fPIC -o "$BATS_FILE_TMPDIR/drv/libnvidia-ml.so.1" \
		"$BATS_TEST_DIRNAME/../doubles/fake_nvml.c" \
		"$BATS_TEST_DIRNAME/../doubles/fake_nvml_health.c"
}

cache() {
	export XDG_CACHE_HOME=$BATS_FILE_TMPDIR/cache
}

@test "node: bless a node, check a drifted one: each node fact that drifted fails, named" {
	cache
	run env EP_NODE_ROOT="$NODES/ib-ndr" "$EP" bless -q --no-discover
	[ "$status" -eq 0 ]
	run env EP_NODE_ROOT="$NODES/ib-ndr" "$EP" check -q --no-discover \
	    --json same.json
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(jq -r '.results[] | select(.key == "stack.node.fabricmanager")
	    | .status' same.json)" = pass ]
	[ "$(jq '[.results[] | select(.key | startswith("node.")) |
	    select(.status == "pass")] | length' same.json)" -ge 50 ]

	run env EP_NODE_ROOT="$NODES/ib-drift" "$EP" check --no-discover \
	    --json r.json
	echo "$output"
	[ "$status" -eq 1 ]
	jq -r '.results[] | select(.status == "fail") | .key' r.json > failed
	diff -u - failed <<-EOF
	node.kmod.nvidia_peermem.state
	node.kmod.nvidia_peermem.version
	node.mem.thp
	node.net.eno1.mtu
	node.rdma.mlx5_0.fw_ver
	node.rdma.mlx5_0.port1.rate
	EOF
	[[ "$output" == *"FAIL    node.rdma.mlx5_0.port1.rate: expected 400 Gb/sec (4X NDR), got 200 Gb/sec (4X HDR)"* ]]
	[[ "$output" == *"FAIL    node.kmod.nvidia_peermem.state: expected loaded, got absent"* ]]
	# Facts read under the root are said to be a test tree's.
	[[ "$output" == *"node facts read under EP_NODE_ROOT=$NODES/ib-drift, a test tree"* ]]
	validate_schema report r.json

	# A locked-memory limit below the blessed one: the job's own.
	run bash -c 'ulimit -l 64 && exec env EP_NODE_ROOT="$1" "$2" check \
	    --no-discover' _ "$NODES/ib-ndr" "$EP"
	echo "$output"
	[ "$status" -eq 1 ]
	[[ "$output" == *"FAIL    node.limits.memlock: expected "*", got 65536"* ]]
	[ "$(grep -c '^  FAIL' <<< "$output")" -eq 1 ]
}

@test "node: a fleet of four names the drifted node and each of its keys" {
	cache
	mkdir d
	for n in n1 n2 n4; do
		EP_NODE_ROOT="$NODES/ib-ndr" "$EP" capture -q --no-discover \
		    --node "$n" -o "d/$n.json"
	done
	EP_NODE_ROOT="$NODES/ib-drift" "$EP" capture -q --no-discover \
	    --node n3 -o d/n3.json
	validate_schema manifest d/n3.json
	run "$EP" fleet d --json f.json
	echo "$output"
	[ "$status" -eq 1 ]
	jq -r '.results[] | select(.status == "fail" and .node != null) |
	    "\(.node) \(.key)"' f.json | sort > odd
	diff -u - odd <<-EOF
	n3 node.kmod.nvidia_peermem.state
	n3 node.kmod.nvidia_peermem.version
	n3 node.mem.thp
	n3 node.net.eno1.mtu
	n3 node.rdma.mlx5_0.fw_ver
	n3 node.rdma.mlx5_0.port1.rate
	EOF
	[[ "$output" == *"node.rdma.mlx5_0.port1.rate"*"200 Gb/sec (4X HDR)"*"n3"* ]]
}

@test "fleet: eight nodes, eight numpy versions: no majority, a failure, not an identity" {
	mkdir d
	for i in 1 2 3 4 5 6 7 8; do
		manifest "d/n$i.json" "{\"os.id\": \"debian\", \"python.pkg.numpy\": \"1.2$i.0\", \"host.serial\": \"S-$i\"}" \
		    "{\"node\": \"n$i\", \"host\": \"vm\"}"
	done
	printf '%s\n' '{"schema": "envparity/policy@1", "rules": [
	    {"key": "host.serial", "rule": "present", "reason": "per host"}]}' \
	    > policy.json
	run "$EP" fleet d --policy policy.json --json f.json
	echo "$output"
	[ "$status" -eq 1 ]
	[ "$(jq -r '.results[] | select(.key == "fleet.odd.python.pkg.numpy")
	    | .status' f.json)" = fail ]
	[[ "$output" == *"python.pkg.numpy: no majority among 8 nodes, a different value on each"* ]]
	# The fact the policy calls per host: seen, a warning.
	[ "$(jq -r '.results[] | select(.key == "fleet.odd.host.serial")
	    | .status' f.json)" = warn ]
	[[ "$output" == *"host.serial: a different value on each of the 8 nodes, which its present rule accepts"* ]]
	# No node is odd: there is no majority to differ from.
	[ "$(jq '[.results[] | select(.node != null and .status == "fail")]
	    | length' f.json)" = 0 ]
	validate_schema fleet f.json
}

@test "NVLink and topology: dead links and a GPU moved to the other CPU are drift, named by GPU and link" {
	cache
	FAKE_NVML_GPUS=8 LD_LIBRARY_PATH=$BATS_FILE_TMPDIR/drv \
	    "$EP" capture -q --no-discover -o good.json
	FAKE_NVML_GPUS=8 FAKE_NVML_HEALTH=3:nvlink_down=5+7,6:numa=0,2:nvlinks=0 \
	    LD_LIBRARY_PATH=$BATS_FILE_TMPDIR/drv \
	    "$EP" capture -q --no-discover -o bad.json
	[ "$(jq -r '.facts["gpu.0.nvlink_links"], .facts["gpu.0.nvlink_inactive"],
	    .facts["gpu.0.nvlink_version"], .facts["gpu.0.topo.3"],
	    .facts["gpu.0.topo.4"]' good.json | paste -sd' ')" = "18 none 4.0 node system" ]
	[ "$(jq '[.facts | keys[] | select(test("^gpu\\.[0-9]+\\.topo\\."))]
	    | length' good.json)" = 28 ]
	validate_schema manifest bad.json
	run "$EP" diff good.json bad.json --json r.json
	echo "$output"
	[ "$status" -eq 1 ]
	jq -r '.results[] | select(.status == "fail") | "\(.key) \(.expected) \(.actual)"' \
	    r.json > failed
	diff -u - failed <<-EOF
	gpu.0.topo.6 system node
	gpu.1.topo.6 system node
	gpu.2.nvlink_inactive none null
	gpu.2.nvlink_links 18 unsupported
	gpu.2.nvlink_version 4.0 null
	gpu.2.topo.6 system node
	gpu.3.nvlink_inactive none 5,7
	gpu.3.topo.6 system node
	gpu.4.topo.6 node system
	gpu.5.topo.6 node system
	gpu.6.topo.7 node system
	EOF
}

@test "node topology: a GPU moved to the other socket's slot is drift, named by GPU and HCA; without a GPU driver" {
	cache
	EP_NODE_ROOT=$NODES/dgx-h100 "$EP" capture -q --no-discover -o good.json
	# GPU 3 (0000:61:00.0) reseated under socket 1's first root complex,
	# away from its ConnectX-7.
	cp -a "$NODES/dgx-h100" bad
	new=pci0000:97/0000:97:01.0/0000:98:00.0/0000:99:05.0/0000:9c:00.0
	mkdir -p "bad/sys/devices/${new%/*}"
	mv bad/sys/devices/pci0000:5b/0000:5b:01.0/0000:5c:00.0/0000:5d:03.0/0000:61:00.0 \
	    "bad/sys/devices/$new"
	echo 1 > "bad/sys/devices/$new/numa_node"
	rm bad/sys/bus/pci/devices/0000:61:00.0
	ln -s "../../../devices/$new" bad/sys/bus/pci/devices/0000:9c:00.0
	EP_NODE_ROOT=$PWD/bad "$EP" capture -q --no-discover -o bad.json
	[ "$(jq -r '.facts["node.topo.gpus"], .facts["node.topo.gpu3.hca3"],
	    .facts["node.topo.gpu3.hca4"], .facts["node.topo.hca6.rdma"]' good.json |
	    paste -sd' ')" = "8 single system mlx5_10" ]
	validate_schema manifest bad.json
	run "$EP" diff good.json bad.json --json r.json
	echo "$output"
	[ "$status" -eq 1 ]
	# Still the 4th GPU in PCI order (9c before 9d), now on socket 1,
	# on the switch of socket 1's first ConnectX-7 and GPU.
	jq -r '.results[] | select(.status == "fail") | "\(.key) \(.expected) \(.actual)"' \
	    r.json > failed
	grep -qx 'node.topo.gpu3.hca3 single system' failed
	grep -qx 'node.topo.gpu3.hca4 system single' failed
	grep -qx 'node.topo.gpu3.numa 0 1' failed
	grep -qx 'node.topo.gpu3.gpu4 system single' failed
	[ "$(grep -c '^node\.topo\.' failed)" = "$(wc -l < failed)" ]
}

@test "fabric manager on an RPM system: not checked, said in the fact, meta.unavailable and the check" {
	cache
	cp -a "$NODES/ib-ndr" rpm
	rm -r rpm/var/lib/dpkg
	# RHEL 9's database: never opened, so an empty file stands for it.
	mkdir -p rpm/var/lib/rpm
	: > rpm/var/lib/rpm/rpmdb.sqlite
	EP_NODE_ROOT=$PWD/rpm "$EP" capture -q --no-discover -o m.json
	[ "$(jq -r '.facts["node.fabricmanager.version"]' m.json)" = "not checked" ]
	[[ "$(jq -r '.meta.unavailable.fabricmanager' m.json)" == *"installed on an RPM system: its version is only in the RPM database /var/lib/rpm/rpmdb.sqlite, which envparity does not read"* ]]
	EP_NODE_ROOT=$PWD/rpm "$EP" bless -q --no-discover
	run env EP_NODE_ROOT="$PWD/rpm" "$EP" check --no-discover --json r.json
	[ "$status" -eq 0 ]
	echo "$output"
	[ "$(jq -r '.results[] | select(.key == "stack.node.fabricmanager") | .status' r.json)" = skip ]
	[[ "$output" == *"stack.node.fabricmanager: fabric manager installed, but its version is not read here"*"580.95.05"* ]]
}
