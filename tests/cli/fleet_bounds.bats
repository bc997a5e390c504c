#!/usr/bin/env bats
# fleet_bounds.bats: what one node's manifest can cost `envparity fleet`.
# A fleet of 20 real nodes (the H100 host's capture, 286 facts, in
# tests/fixtures/gpu) and one node whose manifest is full of facts no
# other node has: past EP_FLEET_FACTS_MAX (100,000) it is that node's one
# error, read and refused at about the cost of its bytes; below it, the
# cost grows with its facts, not faster, and the reports list a bounded
# part of it while the other nodes' drift stays listed.  Costs are CPU
# time and peak memory from getrusage (/usr/bin/time), compared as
# ratios between runs of this test, never against the clock.

load setup

# 20 nodes n01..n20 in d/, the real capture with its node name.
fleet20() {
	mkdir -p d
	for i in $(seq -w 1 20); do
		jq --arg n "n$i" '.meta.node = $n' \
		    "$FIXTURES/gpu/h100/capture.json" > "d/n$i.json"
	done
}

# A node manifest NAME.json in DIR with the capture's facts and N facts of
# its own, shaped as SHAPE: "pkg" (python.pkg.*) or "probe" (per-GPU probe
# hashes, each its own split within a domain).
own_node() { # dir name n shape
	python3 - "$@" <<-'EOF'
	import json, sys
	d, name, n, shape = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
	m = json.load(open("%s/n01.json" % d))
	m["meta"]["node"] = name
	for i in range(n):
	    if shape == "pkg":
	        m["facts"]["python.pkg.a%06d" % i] = "1.0.%d" % i
	    else:
	        m["facts"]["probe.cublas.gpu%d.w%06d.sha256" % (i % 8, i)] = "%064x" % i
	json.dump(m, open("%s/%s.json" % (d, name), "w"), indent=2, sort_keys=True)
	EOF
}

# CPU seconds (user + system) and peak KB of REPS runs of fleet over DIR:
# "CPU KB".  A run that takes longer than a minute is a failure.
cost() { # reps dir [fleet options...]
	local reps=$1 dir=$2 cpu=0 kb=0 u s m
	shift 2
	for _ in $(seq 1 "$reps"); do
		/usr/bin/time -f '%U %S %M' -o t.out timeout 60 "$EP" fleet -q "$dir" "$@" >/dev/null 2>&1 || true
		# time says "Command exited with non-zero status 1" first (a
		# drift); a timeout is status 124.
		! grep -q 'status 124' t.out || { echo "over a minute"; return 1; }
		read -r u s m < <(tail -n 1 t.out)
		cpu=$(echo "$cpu + $u + $s" | bc -l)
		[ "$m" -gt "$kb" ] && kb=$m
	done
	echo "$cpu $kb"
}

@test "fleet bounds: one node's 6 MB manifest of facts of its own is that node's one error, at about the cost of its bytes" {
	fleet20
	cp -r d d21
	own_node d21 a-big 160000 pkg
	size=$(stat -c %s d21/a-big.json)
	echo "the node's manifest: $size bytes"
	[ "$size" -gt 6000000 ]
	read -r c20 m20 < <(cost 10 d)
	read -r c21 m21 < <(cost 10 d21 --json r.json --markdown r.md --junit r.xml)
	echo "10 runs: 20 nodes ${c20}s ${m20} KB; 20 nodes and the 6 MB one ${c21}s ${m21} KB"
	# Reading 6 MB costs a few times what 20 real manifests do; judging
	# 160,000 facts against 20 nodes cost a hundred times more.
	[ "$(echo "$c21 < 8 * ($c20 + 0.05)" | bc -l)" = 1 ]
	[ "$(echo "$m21 < 4 * $m20" | bc -l)" = 1 ]
	# One error, naming the node, its file and its count; nothing else
	# of it; the others judged (all alike: parity among them).
	[ "$(jq -r '[.results[] | select(.node == "a-big")] | length' r.json)" = 1 ]
	[ "$(jq -r '.results[] | select(.node == "a-big") | "\(.status) \(.key)"' r.json)" = "error node.manifest" ]
	[ "$(jq -r '.fleet.nodes[] | select(.name == "a-big") | .error' r.json)" = \
	    "d21/a-big.json: 160286 facts, more than a node manifest may hold (100000)" ]
	[ "$(jq -r '.fleet.node_counts | "\(.reported) \(.unreadable)"' r.json)" = "20 1" ]
	[ "$(jq -r '.fleet.splits | length' r.json)" = 0 ]
	[ "$(jq -r '.fleet.keys' r.json)" = 286 ]
	[ "$(stat -c %s r.json)" -lt 200000 ]
	validate_schema fleet r.json
}

@test "fleet bounds: below the cap a node's facts of its own cost their number, and another node's drift is still listed" {
	fleet20
	jq '.facts."python.pkg.numpy" = "9.9.9"' d/n07.json > t && mv t d/n07.json
	cp -r d dA
	cp -r d dB
	own_node dA a-own 20000 probe
	own_node dB a-own 40000 probe
	read -r c0 m0 < <(cost 3 d)
	read -r cA mA < <(cost 3 dA)
	read -r cB mB < <(cost 3 dB --json r.json --markdown r.md --junit r.xml)
	echo "3 runs: 20 nodes ${c0}s ${m0} KB; +20,000 facts ${cA}s ${mA} KB; +40,000 facts ${cB}s ${mB} KB"
	# Twice the facts, about twice the extra cost (a square would be 4).
	[ "$(echo "($cB - $c0) < 3 * ($cA - $c0) + 0.1" | bc -l)" = 1 ]
	[ "$(echo "($mB - $m0) < 3 * ($mA - $m0) + 2048" | bc -l)" = 1 ]
	# n07's drift: its own result, its split, its verdict, in every report.
	[ "$(jq -r '.results[] | select(.node == "n07" and .key == "python.pkg.numpy") | .status' r.json)" = fail ]
	[ "$(jq -r '.fleet.splits[] | select(.key == "python.pkg.numpy") | .groups[1].nodes' r.json)" = n07 ]
	[ "$(jq -r '.fleet.nodes[] | select(.name == "n07") | .exit_status' r.json)" = 1 ]
	grep -q '<code>python.pkg.numpy</code> | fail odd' r.md
	xmllint --xpath "count(//testsuite[@name='n07']/testcase/failure)" r.xml | grep -qx 1
	# The node with its own facts: 100 of them listed, the rest counted.
	[ "$(jq -r '[.results[] | select(.node == "a-own" and .rule == "fleet:probe")] | length' r.json)" = 100 ]
	[ "$(jq -r '.results[] | select(.node == "a-own" and .key == "node.odd_omitted") | .status' r.json)" = fail ]
	[ "$(jq -r '.fleet.splits | length' r.json)" = 101 ]
	[ "$(jq -r '.fleet.splits_omitted' r.json)" = 39900 ]
	[ "$(jq -r '.results[] | select(.key == "fleet.splits_omitted") | .status' r.json)" = fail ]
	grep -q '39900 more facts that differ across nodes are not listed' r.md
	xmllint --xpath "count(//testsuite[@name='fleet']/testcase[@name='fleet.splits_omitted']/failure)" r.xml | grep -qx 1
	[ "$(jq -r '.fleet.nodes[] | select(.name == "a-own") | "\(.odd) \(.exit_status)"' r.json)" = "40000 1" ]
	validate_schema fleet r.json
}
