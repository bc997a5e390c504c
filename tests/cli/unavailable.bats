#!/usr/bin/env bats
# unavailable.bats: "could not look" is a skip only where a machine may
# lack the area (no GPU on a CI runner, the probe not asked for).  A
# collector that failed (a Python that timed out or is missing, no CUDA
# library where the golden had them) proves no parity: its golden facts
# are errors, and a check that compared nothing but skips is no parity.

load setup

unset GITHUB_ACTIONS GITHUB_STEP_SUMMARY CI GITLAB_CI

status_of() { # report key
	jq -r --arg k "$2" '.results[] | select(.key == $k) | .status' "$1"
}

@test "a golden fact of an area whose collector failed is an error, not a skip" {
	manifest g.json '{"python.pkg.numpy": "1.26.4", "lib.cudnn.version": "9.19.0", "gpu.0.name": "NVIDIA H100", "os.id": "debian"}'
	manifest c.json '{"os.id": "debian"}' '{"unavailable": {
	  "python": "/usr/bin/python3: no answer after 10000 ms; killed",
	  "lib": "no CUDA libraries found", "gpu": "libnvidia-ml.so.1 not found"}}'
	run "$EP" diff g.json c.json --json r.json
	echo "$output"
	[ "$status" -eq 1 ]
	[ "$(status_of r.json python.pkg.numpy)" = error ]
	[ "$(status_of r.json lib.cudnn.version)" = error ]
	# A runner without a GPU may lack the GPU: a skip.
	[ "$(status_of r.json gpu.0.name)" = skip ]
	[[ "$output" == *"ERROR   python.pkg.numpy: expected 1.26.4, could not be read here (python: /usr/bin/python3: no answer after 10000 ms; killed)"* ]]
}

@test "no python3 on PATH: the golden's packages are not skipped into parity" {
	mkdir site bin
	mkdir site/numpy-1.26.4.dist-info
	printf 'Metadata-Version: 2.1\nName: numpy\nVersion: 1.26.4\n' > site/numpy-1.26.4.dist-info/METADATA
	"$EP" capture -q --no-discover --site-packages site -o golden.json
	ln -s "$EP" bin/envparity
	PATH=$T/bin run "$T/bin/envparity" capture -q --no-discover -o now.json
	jq -e '.meta.unavailable.python' now.json
	run "$EP" diff golden.json now.json
	echo "$output"
	[ "$status" -eq 1 ]
	[[ "$output" == *"ERROR   python.pkg.numpy"* ]]
}

@test "a manifest whose every area is unavailable compares nothing: not parity" {
	manifest g.json '{"python.pkg.numpy": "1.26.4", "gpu.0.name": "NVIDIA H100"}'
	manifest empty.json '{}' '{"unavailable": {"python": "x", "gpu": "x"}}'
	run "$EP" diff g.json empty.json --json r.json
	echo "$output"
	[ "$status" -eq 1 ]
	manifest g2.json '{"gpu.0.name": "NVIDIA H100", "gpu.count": "1"}'
	manifest e2.json '{}' '{"unavailable": {"gpu": "no GPU"}}'
	run "$EP" diff g2.json e2.json --json r2.json
	[ "$status" -eq 1 ]
	[ "$(status_of r2.json golden.compared)" = error ]
	[[ "$output" == *"golden.compared: nothing was compared"* ]]
}
