#!/usr/bin/env bats
# fleet_bind.bats: a node speaks only for itself.  In a directory every
# node can write, a manifest names its own node (meta.node), so any
# writer can speak for any node: write the manifest of a node that is
# down, overwrite a drifted node's.  `fleet --bind-filenames` takes the
# node from the file's name, as the scheduler's channel delivered it
# (ci/slurm/), and refuses a manifest that names another; `capture
# --sign-key` signs a manifest with the node's own key and `fleet
# --node-keys DIR` opens NODE.json only under DIR/NODE.pub, refusing an
# unsigned, tampered or other node's one; `--max-age` refuses a replay of
# an older capture.  A refused manifest is its node's error, and the node
# counts as not reported.  The Slurm scripts are in slurm.bats.

load setup

# Keys for n1..n4 (KEYS/NODE.pub public, NODE.key private) and a signed
# capture of each into d/ (n3's with another numpy: the drifted node).
signed_nodes() {
	mkdir -p keys d
	for n in n1 n2 n3 n4; do
		openssl genpkey -algorithm ed25519 -out "$n.key" 2>/dev/null
		chmod 600 "$n.key"
		openssl pkey -in "$n.key" -pubout -out "keys/$n.pub"
	done
	for n in n1 n2 n4; do
		run "$EP" capture -q --no-discover --node "$n" --sign-key "$n.key" -o "d/$n.json"
		[ "$status" -eq 0 ]
	done
	cp -r "$CONDA_PREFIX" conda3
	sed -i 's/1.26.4/2.0.0/' conda3/conda-meta/*.json
	CONDA_PREFIX=$T/conda3 run "$EP" capture -q --no-discover --node n3 --sign-key n3.key -o d/n3.json
	[ "$status" -eq 0 ]
}

setup() {
	T=$(mktemp -d "${BATS_TMPDIR:-/tmp}/envparity-bind.XXXXXX")
	export XDG_CACHE_HOME=$T/cache HOME=$T/home
	seed_cache
	unset GITHUB_ACTIONS GITHUB_STEP_SUMMARY CI GITLAB_CI SLURMD_NODENAME
	mkdir -p "$HOME"
	cd "$T" || return 1
	mkdir -p conda/conda-meta
	printf '{"name": "numpy", "version": "1.26.4", "build": "py311h0", "channel": "conda-forge"}\n' \
	    > conda/conda-meta/numpy-1.26.4-py311h0.json
	export CONDA_PREFIX=$T/conda
}

# The payload of an envelope, as a file.
payload() { # envelope out
	jq -r .payload "$1" | base64 -d > "$2"
}

# The nodes a report says failed, and those in error, "node key" each.
bad() { # report.json
	jq -r '.results[] | select((.status == "fail" or .status == "error") and .node != null) | "\(.node) \(.status) \(.key)"' "$1" | sort -u
}

@test "capture --sign-key: the manifest inside a DSSE envelope that an independent verifier accepts, the key read after the capture" {
	openssl genpkey -algorithm ed25519 -out n1.key 2>/dev/null
	chmod 600 n1.key
	openssl pkey -in n1.key -pubout -out n1.pub
	run "$EP" capture -q --no-discover --node n1 --sign-key n1.key -o env.json
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(jq -r .payloadType env.json)" = application/vnd.envparity.manifest+json ]
	[ "$(jq -r '.signatures | length' env.json)" = 1 ]
	payload env.json m.json
	[ "$(jq -r .meta.node m.json)" = n1 ]
	[ "$(jq -r .schema m.json)" = envparity/manifest@1 ]
	# DSSE's PAE over the payload, verified by OpenSSL itself.
	t=application/vnd.envparity.manifest+json
	{ printf 'DSSEv1 %d %s %d ' "${#t}" "$t" "$(stat -c %s m.json)"; cat m.json; } > pae
	jq -r '.signatures[0].sig' env.json | base64 -d > sig
	openssl pkeyutl -verify -pubin -inkey n1.pub -rawin -in pae -sigfile sig
	# The key on a descriptor and on standard input: the same envelope
	# (Ed25519 is deterministic, the capture time aside).
	run "$EP" capture -q --no-discover --node n1 --sign-key-fd 3 -o fd.json 3<n1.key
	[ "$status" -eq 0 ]
	payload fd.json mfd.json
	{ printf 'DSSEv1 %d %s %d ' "${#t}" "$t" "$(stat -c %s mfd.json)"; cat mfd.json; } > pae
	jq -r '.signatures[0].sig' fd.json | base64 -d > sig
	openssl pkeyutl -verify -pubin -inkey n1.pub -rawin -in pae -sigfile sig
	[ "$(jq -r '.signatures[0].keyid' fd.json)" = "$(jq -r '.signatures[0].keyid' env.json)" ]
	run "$EP" capture -q --no-discover --node n1 --sign-key - -o in.json <n1.key
	[ "$status" -eq 0 ]
	[ "$(jq -r '.signatures[0].keyid' in.json)" = "$(jq -r '.signatures[0].keyid' env.json)" ]
	run "$EP" capture -q --no-discover --sign-key n1.key --sign-key-fd 3 -o x.json 3<n1.key
	[ "$status" -eq 2 ]
	[[ "$output" == *"--sign-key and --sign-key-fd exclude each other"* ]]
	[ ! -e x.json ]
	# A key others can read, a key that is not a file, and an output that
	# is the key: refused before the work, the key untouched.
	cp n1.key k0
	chmod 644 n1.key
	run "$EP" capture -q --no-discover --sign-key n1.key -o x.json
	[ "$status" -eq 2 ]
	[[ "$output" == *"n1.key: the private key is open to group or others (mode 0644)"* ]]
	[ ! -e x.json ]
	chmod 600 n1.key
	run "$EP" capture -q --no-discover --sign-key . -o x.json
	[ "$status" -eq 2 ]
	run "$EP" capture -q --no-discover --sign-key n1.key -o ./n1.key
	[ "$status" -eq 2 ]
	[[ "$output" == *"that is the signing key"* ]]
	ln n1.key hard.json
	run "$EP" capture -q --no-discover --sign-key n1.key -o hard.json
	[ "$status" -eq 2 ]
	cmp n1.key k0
	# A public key is not a signing key: refused after the capture, with
	# nothing written.
	run "$EP" capture -q --no-discover --sign-key n1.pub -o x.json
	[ "$status" -eq 2 ]
	[ ! -e x.json ]
}

@test "fleet --node-keys: every node signed by its own key is read, and the drifted node is named" {
	signed_nodes
	run "$EP" fleet d --node-keys keys --expect 'n[1-4]' --json r.json
	echo "$output"
	[ "$status" -eq 1 ]
	[ "$(jq -r .fleet.node_counts.reported r.json)" = 4 ]
	bad r.json
	[ "$(bad r.json)" = "n3 fail conda.pkg.numpy" ]
	validate_schema fleet r.json
	# Signed manifests without the keys: each node's one error, saying so.
	run "$EP" fleet d --json r.json
	[ "$status" -eq 1 ]
	[ "$(jq -r .fleet.node_counts.unreadable r.json)" = 4 ]
	[[ "$(jq -r '.fleet.nodes[0].error' r.json)" == *"a signed manifest (a DSSE envelope, capture --sign-key): name the nodes' public keys with --node-keys DIR"* ]]
}

@test "fleet --node-keys: a manifest signed by another node's key, an unsigned one and a tampered one are refused, and the drift stays named" {
	signed_nodes
	cp d/n3.json n3.real
	# n2 overwrites drifted n3 with its own clean capture, named n3 and
	# signed with n2's key; and writes one for n4 (down) unsigned.
	run "$EP" capture -q --no-discover --node n3 --sign-key n2.key -o d/n3.json
	[ "$status" -eq 0 ]
	rm d/n4.json
	run "$EP" capture -q --no-discover --node n4 -o d/n4.json
	run "$EP" fleet d --node-keys keys --expect 'n[1-4]' --json r.json
	echo "$output"
	[ "$status" -eq 1 ]
	[ "$(jq -r '.fleet.nodes[] | select(.name == "n3") | .error' r.json)" = \
	    "d/n3.json: not signed by node n3's key (keys/n3.pub): no signature holds under the key given (1 signature): the envelope was changed after it was signed, or signed with another key" ]
	[ "$(jq -r '.fleet.nodes[] | select(.name == "n4") | .error' r.json)" = \
	    "d/n4.json: not signed: a manifest without node n4's signature (--node-keys takes only manifests their node signed, capture --sign-key)" ]
	[ "$(jq -r '.fleet.node_counts | "\(.reported) \(.unreadable)"' r.json)" = "2 2" ]
	[ "$(jq -r '[.fleet.nodes[] | select(.state == "reported") | .name] | join(",")' r.json)" = n1,n2 ]
	# Tampered: n3's own envelope, its payload changed back to the
	# majority's numpy.
	cp n3.real d/n3.json
	jq -r .payload d/n3.json | base64 -d | sed 's/2\.0\.0/1.26.4/' > p.json
	jq --arg p "$(base64 -w0 < p.json)" '.payload = $p' d/n3.json > t && mv t d/n3.json
	run "$EP" fleet d --node-keys keys --json r.json
	[ "$status" -eq 1 ]
	[[ "$(jq -r '.fleet.nodes[] | select(.name == "n3") | .error' r.json)" == *"not signed by node n3's key"* ]]
	# n3's manifest, signed by n3, but under n2's name: n2's error.
	cp n3.real d/n2.json
	cp n3.real d/n3.json
	cp keys/n3.pub keys/n2.pub
	run "$EP" fleet d --node-keys keys --json r.json
	[ "$(jq -r '.fleet.nodes[] | select(.name == "n2") | .error' r.json)" = \
	    "d/n2.json: the manifest says it is node 'n3', but it came as node n2's (its file's name and its signature, --node-keys): a node speaks only for itself" ]
	# An unsigned directory with --node-keys: all refused.
	rm -r d && mkdir d
	for n in n1 n2; do "$EP" capture -q --no-discover --node "$n" -o "d/$n.json"; done
	run "$EP" fleet d --node-keys keys --json r.json
	[ "$status" -eq 1 ]
	[ "$(jq -r .fleet.node_counts.reported r.json)" = 0 ]
	[ "$(jq -r .fleet.node_counts.unreadable r.json)" = 2 ]
	# A node without a key in the directory, and a directory that is not.
	signed_nodes
	rm keys/n4.pub
	run "$EP" fleet d --node-keys keys --json r.json
	[[ "$(jq -r '.fleet.nodes[] | select(.name == "n4") | .error' r.json)" == "d/n4.json: no key of node n4 to open it with: keys/n4.pub: "* ]]
	run "$EP" fleet d --node-keys nowhere --json r2.json
	[ "$status" -eq 2 ]
	[[ "$output" == *"--node-keys nowhere: No such file or directory"* ]]
	[ ! -e r2.json ]
}

@test "fleet --max-age: a replay of an older signed capture is its node's error" {
	signed_nodes
	# n3 has drifted today; a clean capture n3 signed two days ago is
	# put in its place: genuine, signed by n3, but stale.
	run "$EP" capture -q --no-discover --node n3 -o clean.json
	jq '.meta.captured_at = "2020-01-01T00:00:00Z"' clean.json > old.json
	t=application/vnd.envparity.manifest+json
	{ printf 'DSSEv1 %d %s %d ' "${#t}" "$t" "$(stat -c %s old.json)"; cat old.json; } > pae
	openssl pkeyutl -sign -inkey n3.key -rawin -in pae -out sig
	jq -n --arg p "$(base64 -w0 < old.json)" --arg s "$(base64 -w0 < sig)" --arg t "$t" \
	    '{payload: $p, payloadType: $t, signatures: [{keyid: "", sig: $s}]}' > d/n3.json
	run "$EP" fleet d --node-keys keys --json r.json
	echo "$output"
	[ "$status" -eq 0 ]
	run "$EP" fleet d --node-keys keys --max-age 6h --json r.json
	echo "$output"
	[ "$status" -eq 1 ]
	[ "$(jq -r '.fleet.nodes[] | select(.name == "n3") | .error' r.json)" = \
	    "d/n3.json: captured at 2020-01-01T00:00:00Z, more than 6h before this run (--max-age)" ]
	[ "$(jq -r .fleet.node_counts.reported r.json)" = 3 ]
	run "$EP" fleet d --max-age soon
	[ "$status" -eq 2 ]
	[[ "${lines[0]}" == *"--max-age"* ]]
}

@test "fleet --bind-filenames: a manifest that names another node than the channel it came through is that node's error, naming both" {
	mkdir d
	for n in n1 n4; do
		manifest "d/$n.json" '{"os.id": "debian", "python.pkg.numpy": "1.26.4"}' "{\"node\": \"$n\"}"
	done
	manifest d/n3.json '{"os.id": "debian", "python.pkg.numpy": "2.0.0"}' '{"node": "n3"}'
	# What came through n2's channel speaks for n3, with clean facts.
	manifest d/n2.json '{"os.id": "debian", "python.pkg.numpy": "1.26.4"}' '{"node": "n3"}'
	# Read as the manifests say: n3 twice, both refused, n3's drift
	# named nowhere.
	run "$EP" fleet d --expect 'n[1-4]' --json r.json
	[ "$status" -eq 1 ]
	[ "$(jq -r '[.results[] | select(.key == "python.pkg.numpy")] | length' r.json)" = 0 ]
	run "$EP" fleet d --bind-filenames --expect 'n[1-4]' --json r.json
	echo "$output"
	[ "$status" -eq 1 ]
	[ "$(jq -r '.fleet.nodes[] | select(.name == "n2") | .error' r.json)" = \
	    "d/n2.json: the manifest says it is node 'n3', but it came as node n2's (its file's name, --bind-filenames): a node speaks only for itself" ]
	[ "$(jq -r '.fleet.nodes[] | select(.name == "n2") | .state' r.json)" = unreadable ]
	[ "$(jq -r '.results[] | select(.key == "python.pkg.numpy") | "\(.node) \(.status)"' r.json)" = "n3 fail" ]
	[ "$(jq -r .fleet.node_counts.reported r.json)" = 3 ]
	# A file whose name is not a node name cannot be bound.
	manifest 'd/a b.json' '{"os.id": "debian"}' '{"node": "n5"}'
	run "$EP" fleet d --bind-filenames --json r.json
	[[ "$(jq -r '.fleet.nodes[] | select(.file == "d/a b.json") | .error' r.json)" == *"the file's name 'a b' is not a node name"* ]]
}

@test "capture --sign-key: the node's key is read once the capture's helpers are gone (the key there then signs)" {
	openssl genpkey -algorithm ed25519 -out n1.key 2>/dev/null
	openssl genpkey -algorithm ed25519 -out late.key 2>/dev/null
	chmod 600 n1.key late.key
	openssl pkey -in late.key -pubout -out late.pub
	# The node's interpreter, code of the machine captured, waits while
	# the key file is swapped.  Its world is w/, the one folder a helper
	# may write; the keys are out of its reach.
	mkdir -p w/bin
	export ENVPARITY_CHILD_DIRS=$T/w
	cat > w/bin/python-wrapper <<WRAP
#!/bin/sh
: > '$T/w/running'
i=0
while [ ! -e '$T/w/go' ] && [ \$i -lt 200 ]; do sleep 0.1; i=\$((i + 1)); done
exec python3 "\$@"
WRAP
	chmod +x w/bin/python-wrapper
	"$EP" capture -q --no-discover --node n1 --python "$T/w/bin/python-wrapper" \
	    --sign-key n1.key -o env.json > out.txt 2>&1 &
	pid=$!
	for i in $(seq 200); do [ -e w/running ] && break; sleep 0.1; done
	[ -e w/running ]
	mv late.key n1.key
	touch w/go
	status=0
	wait "$pid" || status=$?
	cat out.txt
	[ "$status" -eq 0 ]
	payload env.json m.json
	t=application/vnd.envparity.manifest+json
	{ printf 'DSSEv1 %d %s %d ' "${#t}" "$t" "$(stat -c %s m.json)"; cat m.json; } > pae
	jq -r '.signatures[0].sig' env.json | base64 -d > sig
	openssl pkeyutl -verify -pubin -inkey late.pub -rawin -in pae -sigfile sig
}
