#!/usr/bin/env bats
# envparity fleet: node manifests judged against the golden, the fleet's
# majority (odd node out), probe hashes within a determinism domain, and
# the nodes expected; bad node manifests stay that node's error.  The
# reports go through their real readers (report_readers.bash) and the
# fleet schema; the Slurm and Prometheus ends are in slurm.bats and
# prom.bats.

load setup
load report_readers

# Four nodes n1..n4 with the same facts; "$@" are jq programs applied to
# node n3's facts.
nodes() {
	local base='{"os.id": "debian", "os.kernel": "6.1.0-1", "python.pkg.numpy": "1.26.4", "lib.cublas.version": "13.1.0.3", "env.NCCL_ALGO": "Ring"}'
	mkdir -p d
	for n in n1 n2 n3 n4; do
		manifest "d/$n.json" "$base" "{\"node\": \"$n\", \"host\": \"vm\"}"
	done
	for prog in "$@"; do
		jq ".facts |= ($prog)" d/n3.json > d/t && mv d/t d/n3.json
	done
}

@test "fleet: identical nodes are parity, exit 0, every node reported" {
	nodes
	run "$EP" fleet d --json r.json
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"PARITY"* ]]
	[ "$(jq -r '.fleet.node_counts.reported' r.json)" = 4 ]
	[ "$(jq -r '.fleet.splits | length' r.json)" = 0 ]
	validate_schema fleet r.json
}

@test "fleet: the odd node is named with its key, its value and the majority's" {
	nodes '."python.pkg.numpy" = "2.0.0"'
	run "$EP" fleet d --json r.json
	echo "$output"
	[ "$status" -eq 1 ]
	[[ "$output" == *"n3: python.pkg.numpy: '2.0.0' here, '1.26.4' on the fleet's majority (3 of 4 nodes)"* ]]
	# Exactly that node and that key.
	[ "$(jq -r '[.results[] | select(.status == "fail") | "\(.node // "fleet") \(.key)"] | sort | join(",")' r.json)" = \
	    "fleet fleet.odd.python.pkg.numpy,n3 python.pkg.numpy" ]
	[ "$(jq -r '.fleet.splits[0] | "\(.key) \(.kind) \(.groups[0].value) \(.groups[0].nodes) \(.groups[1].value) \(.groups[1].nodes)"' r.json)" = \
	    "python.pkg.numpy odd 1.26.4 n[1-2,4] 2.0.0 n3" ]
	[ "$(jq -r '.fleet.nodes[] | select(.name == "n3") | "\(.odd) \(.exit_status)"' r.json)" = "1 1" ]
	[ "$(jq -r '.fleet.nodes[] | select(.name == "n1") | "\(.odd) \(.exit_status)"' r.json)" = "0 0" ]
	validate_schema fleet r.json
}

@test "fleet: a fact one node lacks, or has alone, is odd too" {
	nodes 'del(."env.NCCL_ALGO")' '."env.CUDA_LAUNCH_BLOCKING" = "1"'
	run "$EP" fleet d --json r.json
	[ "$status" -eq 1 ]
	[ "$(jq -r '[.results[] | select(.node == "n3" and .status == "fail") | .key] | sort | join(",")' r.json)" = \
	    "env.CUDA_LAUNCH_BLOCKING,env.NCCL_ALGO" ]
}

@test "fleet: a tie is named as such, not a majority" {
	nodes
	for n in n3 n4; do
		jq '.facts."python.pkg.numpy" = "2.0.0"' "d/$n.json" > d/t && mv d/t "d/$n.json"
	done
	run "$EP" fleet d --json r.json
	echo "$output"
	[ "$status" -eq 1 ]
	[[ "$output" == *"python.pkg.numpy: no majority among 4 nodes: '1.26.4' on n[1-2] (2); '2.0.0' on n[3-4] (2)"* ]]
	[ "$(jq -r '.fleet.splits[0].kind' r.json)" = tie ]
	# Nobody is singled out.
	[ "$(jq -r '[.results[] | select(.node != null and .status == "fail")] | length' r.json)" = 0 ]
}

@test "fleet: os.kernel is per host, and a policy's ignore rules apply" {
	nodes '."os.kernel" = "6.1.0-2"' '."lib.cublas.path" = "/opt/x/libcublas.so.13"'
	run "$EP" fleet d
	[ "$status" -eq 1 ]
	[[ "$output" != *"os.kernel"* ]]
	[[ "$output" == *"lib.cublas.path"* ]]
	cat > p.json <<-'EOF'
	{"schema": "envparity/policy@1", "rules": [{"key": "lib.*.path", "rule": "ignore", "reason": "venvs live in different places"}]}
	EOF
	run "$EP" fleet d --policy p.json
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "fleet: a version rule's spread is a warning, an exact rule's a failure" {
	nodes '."lib.cublas.version" = "13.1.0.9"'
	cat > p.json <<-'EOF'
	{"schema": "envparity/policy@1", "rules": [{"key": "lib.cublas.version", "rule": "version", "range": ">=13.1,<13.2"}]}
	EOF
	run "$EP" fleet d --policy p.json --json r.json
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(jq -r '.fleet.splits[0].status' r.json)" = warn ]
}

# Probe facts as capture --runs writes them.
probe_nodes() {
	local dom=$1
	nodes
	for n in n1 n2 n3 n4; do
		jq --arg d "$dom" '.facts += {"probe.domain": $d, "probe.cublas.gemm.sha256": "aaaa", "probe.cublas.reduce.sha256": "bbbb"}' \
		    "d/$n.json" > d/t && mv d/t "d/$n.json"
	done
}

@test "fleet: a node whose probe computes other bits in one domain fails, with the likely cause" {
	probe_nodes "NVIDIA H100 80GB HBM3 cc 9.0 driver 580.159.04"
	jq '.facts."probe.cublas.gemm.sha256" = "cccc" | .facts."lib.cublas.version" = "13.1.0.9"' d/n3.json > d/t && mv d/t d/n3.json
	run "$EP" fleet d --json r.json
	echo "$output"
	[ "$status" -eq 1 ]
	[[ "$output" == *"n3: probe.cublas.gemm.sha256: 'cccc' here, 'aaaa' on the fleet's majority (3 of 4 nodes in domain NVIDIA H100"* ]]
	[[ "$output" == *"the nodes that differ are exactly those with: lib.cublas.version=13.1.0.9"* ]]
	[ "$(jq -r '.fleet.splits[] | select(.key == "probe.cublas.gemm.sha256") | "\(.kind) \(.causes | join(","))"' r.json)" = \
	    "probe lib.cublas.version=13.1.0.9" ]
	# The reduce hash agrees: no finding for it.
	[ "$(jq -r '[.results[] | select(.key | test("reduce"))] | length' r.json)" = 0 ]
	validate_schema fleet r.json
}

# Per-GPU probe facts as capture --runs writes them on 2-GPU nodes.
gpu_nodes() {
	probe_nodes "NVIDIA H100 80GB HBM3 cc 9.0"
	for n in n1 n2 n3 n4; do
		jq '.facts += {"probe.gpu0.domain": .facts."probe.domain", "probe.gpu1.domain": .facts."probe.domain", "probe.cublas.gpu0.gemm.sha256": "aaaa", "probe.cublas.gpu1.gemm.sha256": "aaaa"}' \
		    "d/$n.json" > d/t && mv d/t "d/$n.json"
	done
}

@test "fleet: one node's GPU 1 computing other bits fails that node, by the per-GPU key" {
	gpu_nodes
	jq '.facts."probe.cublas.gpu1.gemm.sha256" = "cccc"' d/n3.json > d/t && mv d/t d/n3.json
	run "$EP" fleet d --json r.json
	echo "$output"
	[ "$status" -eq 1 ]
	[[ "$output" == *"n3: probe.cublas.gpu1.gemm.sha256: 'cccc' here, 'aaaa' on the fleet's majority (3 of 4 nodes in domain NVIDIA H100"* ]]
	[ "$(jq -r '[.results[] | select(.status == "fail") | .key | select(endswith("probe.cublas.gpu1.gemm.sha256") | not)] | length' r.json)" = 0 ]
}

@test "fleet: a GPU of another model binds within its own domain, said and not failed" {
	gpu_nodes
	# On n4, GPU 1 is an A100 (the node's probe.domain, GPU 0's, is the
	# H100 of the others): its hash binds to probe.gpu1.domain, where it
	# is alone, and is no odd node out of the H100s.
	jq '.facts."probe.gpu1.domain" = "NVIDIA A100-SXM4-80GB cc 8.0" | .facts."probe.cublas.gpu1.gemm.sha256" = "dddd"' \
	    d/n4.json > d/t && mv d/t d/n4.json
	run "$EP" fleet d --json r.json
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(jq -r '[.results[] | select(.status == "fail")] | length' r.json)" = 0 ]
	[ "$(jq -r '.fleet.splits[] | select(.key == "probe.gpu1.domain") | .kind' r.json)" = domain ]
	# Nodes that probed fewer GPUs: the GPU they lack is no value of theirs.
	gpu_nodes
	for n in n3 n4; do
		jq '.facts |= del(."probe.gpu1.domain", ."probe.cublas.gpu1.gemm.sha256")' "d/$n.json" > d/t && mv d/t "d/$n.json"
	done
	run "$EP" fleet d --json r.json
	echo "$output"
	[ "$(jq -r '[.results[] | select(.status == "fail" and (.key | startswith("probe.cublas")))] | length' r.json)" = 0 ]
}

@test "fleet: nodes in different determinism domains are grouped and said, never failed" {
	probe_nodes "NVIDIA H100 80GB HBM3 cc 9.0"
	for n in n3 n4; do
		jq '.facts."probe.domain" = "NVIDIA A100-SXM4-80GB cc 8.0" | .facts."probe.cublas.gemm.sha256" = "dddd"' \
		    "d/$n.json" > d/t && mv d/t "d/$n.json"
	done
	run "$EP" fleet d --json r.json
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(jq -r '[.fleet.splits[] | .kind] | sort | join(",")' r.json)" = "domain" ]
	[ "$(jq -r '[.results[] | select(.status == "fail")] | length' r.json)" = 0 ]
}

@test "fleet: a node expected but missing fails; --expect takes Slurm's hostlist syntax" {
	nodes
	run "$EP" fleet d --expect 'n[1-5]' --json r.json
	echo "$output"
	[ "$status" -eq 1 ]
	[[ "$output" == *"n5: node.manifest: expected, but no manifest names it"* ]]
	[ "$(jq -r '.fleet.nodes[] | select(.name == "n5") | .state' r.json)" = missing ]
	run "$EP" fleet d --expect 'n[1-4]'
	[ "$status" -eq 0 ]
	SLURM_JOB_NODELIST='n[1-3,5]' run "$EP" fleet d --expect-from-slurm --json r.json
	[ "$status" -eq 1 ]
	[ "$(jq -r '[.fleet.nodes[] | select(.state == "missing") | .name] | join(",")' r.json)" = n5 ]
	# n4 reported without being expected: said, not failed.
	[ "$(jq -r '.results[] | select(.node == "n4" and .key == "node.expected") | .status' r.json)" = warn ]
}

@test "fleet: a bad hostlist is one line naming it, exit 2, no report" {
	nodes
	for bad in 'n[1-' 'n[5-1]' 'n[1-3]]' 'a/b' '..' 'n[0-99999999]'; do
		run "$EP" fleet d --expect "$bad" --json r.json
		echo "$bad: $output"
		[ "$status" -eq 2 ]
		[ "$(printf '%s\n' "$output" | grep -c .)" -le 2 ]
		[[ "${lines[0]}" == *"--expect"* ]]
		[ ! -e r.json ]
	done
	unset SLURM_JOB_NODELIST
	run "$EP" fleet d --expect-from-slurm
	[ "$status" -eq 2 ]
	[[ "$output" == *"SLURM_JOB_NODELIST is not set"* ]]
}

@test "fleet: bad node manifests are errors of those nodes; every other node is still judged" {
	nodes '."python.pkg.numpy" = "2.0.0"'
	head -c 100 d/n1.json > d/trunc.json
	: > d/empty.json
	echo '{"schema": "envparity/report@1", "facts": {}}' > d/other.json
	truncate -s 1G d/huge.json
	manifest d/evil.json '{}' '{"node": "../etc"}'
	manifest d/slash.json '{}' '{"node": "a/b"}'
	manifest d/n2dup.json '{"os.id": "debian"}' '{"node": "n2"}'
	run "$EP" fleet d --json r.json
	echo "$output"
	[ "$status" -eq 1 ]
	# Each bad node has one error naming its file and the problem.
	for f in trunc empty other huge evil slash; do
		[ "$(jq -r --arg f "d/$f.json" '.fleet.nodes[] | select(.file == $f) | .state' r.json)" = unreadable ]
	done
	jq -r '.fleet.nodes[] | select(.state == "unreadable") | .error' r.json > errs
	cat errs
	grep -q 'd/trunc.json: not a manifest' errs
	grep -q 'd/empty.json: not a manifest' errs
	grep -q 'd/other.json: unsupported manifest schema "envparity/report@1"' errs
	grep -q 'd/huge.json: too large (1073741824 bytes, limit 67108864)' errs
	grep -q "d/evil.json: node name '../etc' is not a node name" errs
	grep -q "d/slash.json: node name 'a/b' is not a node name" errs
	# Duplicate names: neither manifest is taken for n2.
	[ "$(jq -r '[.fleet.nodes[] | select(.name == "n2") | .state] | join(",")' r.json)" = "unreadable,unreadable" ]
	grep -q 'duplicate node names are refused' errs
	# The others are still judged: n3 is the odd one among n1, n4.
	[ "$(jq -r '.results[] | select(.node == "n3" and .key == "python.pkg.numpy") | .status' r.json)" = fail ]
	[ "$(jq -r '.fleet.node_counts | "\(.reported) \(.unreadable)"' r.json)" = "3 8" ]
	validate_schema fleet r.json
}

@test "fleet: a link or a FIFO in the directory is that node's error, and what a link points to is never read" {
	nodes
	printf 'SECRET-TOKEN-abc123 not json\n' > secret.txt
	ln -s "$T/secret.txt" d/n5.json
	mkfifo d/n6.json
	run timeout 20 "$EP" fleet d --json r.json
	echo "$output"
	[ "$status" -eq 1 ]
	[ "$(jq -r '.fleet.nodes[] | select(.name == "n5") | .error' r.json)" = \
	    "d/n5.json: a symbolic link (a directory of node manifests holds files, not links)" ]
	[ "$(jq -r '.fleet.nodes[] | select(.name == "n6") | .error' r.json)" = "d/n6.json: a FIFO, not a regular file" ]
	! grep -q SECRET r.json
	[[ "$output" != *SECRET* ]]
	# A link named on the command line is the user's own choice.
	run "$EP" fleet d/n1.json d/n2.json
	[ "$status" -eq 0 ]
}

@test "fleet: a directory without manifests, or an input that does not exist, is exit 2" {
	mkdir empty
	run "$EP" fleet empty
	[ "$status" -eq 2 ]
	[[ "$output" == *"empty: no node manifests (*.json) in it"* ]]
	run "$EP" fleet nowhere
	[ "$status" -eq 2 ]
	[[ "$output" == *"nowhere: No such file or directory"* ]]
	run "$EP" fleet
	[ "$status" -eq 2 ]
}

@test "fleet: a node is named by meta.node, else by its file name; files can be named one by one" {
	nodes
	jq 'del(.meta.node)' d/n4.json > n4.json
	rm d/n4.json
	run "$EP" fleet d/n1.json d/n2.json d/n3.json n4.json --expect 'n[1-4]'
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "fleet: JUnit has a suite per node and one for the fleet; the reports pass their readers" {
	nodes '."python.pkg.numpy" = "2.0.0"'
	run "$EP" fleet d --expect 'n[1-5]' --json r.json --junit r.xml --markdown r.md
	[ "$status" -eq 1 ]
	junit_read r.xml r.json
	md_read r.md
	[ "$(xmllint --xpath 'string-join(//testsuite/@name, ",")' r.xml 2>/dev/null ||
	    xmllint --xpath '//testsuite/@name' r.xml | tr -s ' \n' ' ')" != "" ]
	for s in fleet n1 n2 n3 n4 n5; do
		xmllint --xpath "count(//testsuite[@name='$s'])" r.xml | grep -qx 1
	done
	xmllint --xpath "count(//testsuite[@name='n3']/testcase/failure)" r.xml | grep -qx 1
	xmllint --xpath "count(//testsuite[@name='n5']/testcase/failure)" r.xml | grep -qx 1
	# The Markdown matrix: the fact, the majority and the odd group.
	grep -q '| <code>python.pkg.numpy</code> | fail odd | <code>1.26.4</code> ×3 <code>n\\\[1-2,4\\\]</code> | <code>2.0.0</code> ×1 <code>n3</code> |' r.md
	grep -q '| missing | 1 | <code>n5</code> |' r.md
}

@test "fleet: at 10,000 nodes the Markdown stays under GitHub's 1 MiB, nodes in hostlist syntax" {
	mkdir d
	python3 - <<-'EOF'
	import json
	for i in range(1, 10001):
	    f = {"os.id": "debian", "python.pkg.numpy": "1.26.4", "host.serial": "S%05d" % i}
	    if i in (17, 4242, 9999): f["python.pkg.numpy"] = "2.0.0"
	    json.dump({"schema": "envparity/manifest@1", "meta": {"node": "n%05d" % i}, "facts": f},
	              open("d/n%05d.json" % i, "w"))
	EOF
	run "$EP" fleet d --expect 'n[00001-10000]' --markdown r.md --json r.json -q
	[ "$status" -eq 1 ]
	[ "$(stat -c %s r.md)" -lt 1048576 ]
	md_read r.md
	grep -q '| drift | 3 | <code>n\\\[00017,04242,09999\\\]</code> |' r.md
	grep -q '| <code>python.pkg.numpy</code> | fail odd | <code>1.26.4</code> ×9997 <code>n\\\[00001-00016,00018-04241,04243-<wbr>09998,10000\\\]</code> | <code>2.0.0</code> ×3 <code>n\\\[00017,04242,09999\\\]</code> |' r.md
	# A value on every node is no majority: failed, unless the policy
	# calls the fact per host (node.bats).
	[ "$(jq -r '.fleet.splits[] | select(.key == "host.serial") | "\(.kind) \(.status)"' r.json)" = "tie fail" ]
	[ "$(jq -r '.fleet.node_counts.odd' r.json)" = 3 ]
}

@test "fleet: with a store, each node is checked against the golden, with the policy's waivers" {
	nodes '."python.pkg.numpy" = "2.0.0"'
	git init -q --bare store.git
	run "$EP" bless --store store.git --profile train d/n1.json
	echo "$output"
	[ "$status" -eq 0 ]
	run "$EP" fleet d --store store.git --profile train --json r.json
	echo "$output"
	[ "$status" -eq 1 ]
	# n3 drifts from the golden (rule exact) and from the majority.
	[ "$(jq -r '[.results[] | select(.node == "n3" and .key == "python.pkg.numpy") | .rule] | sort | join(",")' r.json)" = "exact,fleet:majority" ]
	[ "$(jq -r '.results[] | select(.node == "n1" and .key == "node.golden") | .status' r.json)" = pass ]
	[ "$(jq -r '.golden.profile' r.json)" = train ]
	validate_schema fleet r.json
	# A waiver in the store's policy covers the node's drift and its odd
	# value alike, as check's waivers do.
	git clone -q store.git wt
	mkdir -p wt/train
	cat > wt/train/policy.json <<-'EOF'
	{"schema": "envparity/policy@1", "rules": [], "waivers": [
	  {"key": "python.pkg.numpy", "actual": "2.0.0", "reason": "numpy 2 canary",
	   "owner": "ml-platform", "expires": "2099-12-31"}]}
	EOF
	git -C wt add train/policy.json
	git -C wt -c user.name=t -c user.email=t@x commit -qm policy
	git -C wt push -q origin HEAD
	run "$EP" fleet d --store store.git --profile train --json r.json
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(jq -r '[.results[] | select(.node == "n3" and .key == "python.pkg.numpy") | .status] | unique | join(",")' r.json)" = waived ]
	[ "$(jq -r '.results[] | select(.key == "fleet.odd.python.pkg.numpy") | .status' r.json)" = waived ]
}

@test "fleet: a change a built-in rule ignores (os.kernel) is listed per node in the JSON report and one line of the summary and the Markdown, never judged" {
	nodes '."os.kernel" = "6.18.0"'
	git init -q --bare store.git
	"$EP" bless -q --store store.git --profile p d/n1.json >/dev/null
	run "$EP" fleet d --store store.git --profile p --json r.json --markdown r.md
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"  ignored changes built-in rules do not judge on 1 node (os.kernel on n3): the JSON report lists them"* ]]
	[ "$(jq -c '.fleet.nodes[] | select(.name == "n3") | .ignored_changes' r.json)" = '[{"actual":"6.18.0","expected":"6.1.0-1","key":"os.kernel","reason":"host identity: a container runs on its node'"'"'s kernel"}]' ]
	[ "$(jq -c '[.fleet.nodes[] | select(.name != "n3") | .ignored_changes | length] | unique' r.json)" = '[0]' ]
	[ "$(jq -r '.fleet.node_counts.ignored_changes' r.json)" = 1 ]
	jq -e '[.results[] | select(.key == "os.kernel")] | length == 0' r.json
	grep -qxF '**Ignored changes:** 1 node has changes a built-in rule does not judge (<code>os.kernel</code> on <code>n3</code>): the JSON report lists them per node.' r.md
	validate_schema fleet r.json
	# Two nodes: counted as nodes; none without a golden.
	jq '.facts."os.kernel" = "6.2.0"' d/n4.json > t && mv t d/n4.json
	run "$EP" fleet d --store store.git --profile p --markdown r.md
	[[ "$output" == *"on 2 nodes (os.kernel on n3, ...)"* ]]
	grep -qF '**Ignored changes:** 2 nodes have changes' r.md
	run "$EP" fleet d --json r.json --markdown r.md
	[[ "$output" != *"ignored"* ]]
	[ "$(jq -r '.fleet.node_counts.ignored_changes' r.json)" = 0 ]
	! grep -q "Ignored changes" r.md
}

@test "fleet: a report path that cannot take a report fails before the work, leaving nothing" {
	nodes
	ln -s /etc/passwd link.json
	run "$EP" fleet d --json link.json
	[ "$status" -eq 2 ]
	[ -L link.json ]
	run "$EP" fleet d --json nodir/r.json --markdown r.md
	[ "$status" -eq 3 ]
	[ ! -e r.md ]
}

@test "capture --node records meta.node: the flag, else SLURMD_NODENAME, else the host name" {
	run "$EP" capture -q --no-discover --node gpu017 -o m.json
	[ "$status" -eq 0 ]
	[ "$(jq -r .meta.node m.json)" = gpu017 ]
	SLURMD_NODENAME=n7 run "$EP" capture -q --no-discover -o m.json
	[ "$(jq -r .meta.node m.json)" = n7 ]
	unset SLURMD_NODENAME
	run "$EP" capture -q --no-discover -o m.json
	[ "$(jq -r .meta.node m.json)" = "$(hostname)" ]
	run "$EP" capture -q --no-discover --node ../x -o m.json
	[ "$status" -eq 2 ]
	[[ "$output" == *"--node: '../x' is not a node name"* ]]
	[ ! -e m2.json ]
}

@test "capture --runs puts the probe's facts in the manifest, and its findings in meta.probe" {
	run "$EP" capture -q --no-discover --runs 2 --backend cpu -o m.json
	echo "$output"
	[ "$status" -eq 0 ]
	[ -n "$(fact m.json probe.cpu.gemm.sha256)" ]
	[ -n "$(fact m.json probe.cpu.domain)" ]
	[ "$(jq -r '.meta.probe.runs' m.json)" = 2 ]
	# Without --runs the capture is as before: no probe facts, no meta.probe.
	run "$EP" capture -q --no-discover -o plain.json
	[ "$(jq -r '[.facts | keys[] | select(startswith("probe."))] | length' plain.json)" = 0 ]
	[ "$(jq -r '.meta.probe // "none"' plain.json)" = none ]
}

@test "capture --runs: runs that disagree are kept in meta.probe.findings and fleet reports them for that node" {
	export FAKE_PROBE_STATE=$T/state FAKE_PROBE_MODE=nondet
	mkdir -p "$T/state" d
	run "$EP" capture -q --no-discover --node n1 --runs 5 --backend cpu \
	    --probe "$BATS_TEST_DIRNAME/../doubles/fake_probe.sh" -o d/n1.json
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(jq -r '.meta.probe.findings[] | select(.key == "probe.cpu.gemm.runs") | .status' d/n1.json)" = fail ]
	unset FAKE_PROBE_MODE
	rm -rf "$T/state"; mkdir "$T/state"
	run "$EP" capture -q --no-discover --node n2 --runs 5 --backend cpu \
	    --probe "$BATS_TEST_DIRNAME/../doubles/fake_probe.sh" -o d/n2.json
	run "$EP" fleet d --json r.json
	echo "$output"
	[ "$status" -eq 1 ]
	[ "$(jq -r '.results[] | select(.node == "n1" and .key == "probe.cpu.gemm.runs") | .status' r.json)" = fail ]
}
