#!/usr/bin/env bats
# attest.bats: `check --attest`, `fleet --attest` and `check -o`: the
# envelope and its statement (schema, subjects recomputed by anyone with
# jq, sha256sum and git), a failed gate's statement, the signing key's
# rules (its mode, its type, its bytes never shown), envparity's
# signature equal to openssl's, and two independent verifiers
# (sigstore-js, securesystemslib) that accept what envparity signs and
# refuse it changed.

load setup
load attest

@test "check --attest: a signed in-toto statement anyone can recompute, and check's exit code" {
	make_keys
	bless_store
	run ep_check --attest att.json --sign-key "$T/key.pem" -o m.json --json r.json
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"PARITY"* ]]
	# The envelope: DSSE, in-toto's payload type, one signature whose
	# keyid is the SHA-256 of the DER SubjectPublicKeyInfo.
	[ "$(jq -r .payloadType att.json)" = "$PT" ]
	[ "$(jq -r '.signatures | length' att.json)" = 1 ]
	[ "$(jq -r '.signatures[0].keyid' att.json)" = "$(keyid_of "$T/pub.pem")" ]
	payload att.json > st.json
	validate_schema attestation st.json
	[ "$(jq -r ._type st.json)" = https://in-toto.io/Statement/v1 ]
	[ "$(jq -r .predicateType st.json)" = "$PREDICATE" ]
	# The predicate: the verdict, the counts of the JSON report.
	[ "$(jq -r .predicate.verdict st.json)" = PASSED ]
	[ "$(jq -r .predicate.exitStatus st.json)" = 0 ]
	[ "$(jq -cS '.predicate.counts | {pass, fail, skip, waived, error}' st.json)" = \
	    "$(jq -cS '.counts | {pass, fail, skip, waived, error}' r.json)" ]
	[ "$(jq -r .predicate.profile st.json)" = default ]
	[ "$(jq -r .predicate.store st.json)" = .envparity/store ]
	[ "$(jq -r .predicate.ref st.json)" = main ]
	[ "$(jq -r .predicate.commit st.json)" = "$(git --git-dir=.envparity/store rev-parse main)" ]
	[ "$(jq -r .predicate.host st.json)" = "$(hostname)" ]
	[ "$(jq -r .predicate.envparityVersion st.json)" = "$("$EP" --version | cut -d' ' -f2)" ]
	# The time is now, in UTC.
	t=$(date -u -d "$(jq -r .predicate.time st.json)" +%s)
	[ $(( $(date +%s) - t )) -lt 120 ]
	# Subjects: the facts checked, as `jq -cjS .facts | sha256sum` of
	# the manifest -o kept; the golden and the policy as git names them.
	[ "$(jq -r '.subject[] | select(.name == "facts:'"$(hostname)"'") | .digest.sha256' st.json)" = \
	    "$(jq -cjS .facts m.json | sha256sum | cut -d' ' -f1)" ]
	git clone -q .envparity/store wt
	[ "$(jq -r '.subject[] | select(.name == "default/manifest.json") | .digest.gitBlob' st.json)" = \
	    "$(git hash-object wt/default/manifest.json)" ]
	[ "$(jq -r '.subject[] | select(.name == "default/policy.json") | .digest.gitBlob' st.json)" = \
	    "$(git hash-object wt/default/policy.json)" ]
	[ "$(jq -r '.subject[] | select(.name == "default/policy.json") | .digest.gitBlob' st.json)" = \
	    "$(git --git-dir=.envparity/store rev-parse main:default/policy.json)" ]
	[ "$(jq -r '.subject | length' st.json)" = 3 ]
	run "$EP" verify att.json --key "$T/pub.pem" --max-age 10m --profile default \
	    --subject "sha256:$(jq -cjS .facts m.json | sha256sum | cut -d' ' -f1)" \
	    --subject "gitBlob:$(git hash-object wt/default/manifest.json)"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == "envparity verify: OK: PASSED"* ]]
}

@test "the facts digest is the same on another host, at another time, with other meta" {
	make_keys
	mkdir sp && "$FIXTURES/gen-site-packages.sh" sp 3 > /dev/null
	# Two node manifests with the same facts and different meta, and one
	# whose keys and values need every escape jq writes.
	manifest n1.json '{"os.id": "debian", "python.pkg.numpy": "1.26.4"}' \
	    '{"host": "n1", "node": "n1", "captured_at": "2026-01-01T00:00:00Z"}'
	manifest n2.json '{"python.pkg.numpy": "1.26.4", "os.id": "debian"}' \
	    '{"host": "n2", "node": "n2", "captured_at": "2027-06-01T12:00:00Z"}'
	cat > n3.json <<'EOF'
{"schema": "envparity/manifest@1", "meta": {"node": "n3"}, "facts": {
  "b": "x\u007fy\u0001\u00e9\ud83d\ude00/\u2028", "a\n": "1", "\uffff": "2",
  "\ud83d\ude00": "3", "A": "\"\\\b\f\t\r", "os.id": "debian",
  "env.X": "##[group]\u200b<b>"}}
EOF
	mkdir nodes && cp n1.json n2.json n3.json nodes/
	run "$EP" fleet nodes --attest att.json --sign-key "$T/key.pem" -q
	echo "$output"
	payload att.json > st.json
	validate_schema attestation st.json
	[ "$(jq -r .predicate.command st.json)" = fleet ]
	[ "$(jq -r .predicate.profile st.json)" = null ]
	[ "$(jq -r .predicate.nodes.reported st.json)" = 3 ]
	for n in n1 n2 n3; do
		[ "$(jq -r --arg n "facts:$n" '.subject[] | select(.name == $n) | .digest.sha256' st.json)" = \
		    "$(jq -cjS .facts "$n.json" | sha256sum | cut -d' ' -f1)" ]
	done
	d1=$(jq -r '.subject[] | select(.name == "facts:n1") | .digest.sha256' st.json)
	d2=$(jq -r '.subject[] | select(.name == "facts:n2") | .digest.sha256' st.json)
	[ "$d1" = "$d2" ]
	# The same facts through check: the digest of what -o wrote.
	bless_store
	ep_check -o m.json --attest a2.json --sign-key "$T/key.pem" > /dev/null
	[ "$(payload a2.json | jq -r '.subject[0].digest.sha256')" = \
	    "$(jq -cjS .facts m.json | sha256sum | cut -d' ' -f1)" ]
}

@test "check --attest with drift: a FAILED statement naming the key, and exit 1" {
	make_keys
	bless_store
	MKL=COMPATIBLE run ep_check --attest att.json --sign-key "$T/key.pem"
	echo "$output"
	[ "$status" -eq 1 ]
	[[ "$output" == *DRIFT* ]]
	payload att.json > st.json
	validate_schema attestation st.json
	[ "$(jq -r .predicate.verdict st.json)" = FAILED ]
	[ "$(jq -r .predicate.exitStatus st.json)" = 1 ]
	[ "$(jq -r '.predicate.failing | join(",")' st.json)" = env.MKL_CBWR ]
	[ "$(jq -r .predicate.counts.fail st.json)" = 1 ]
	run "$EP" verify att.json --key "$T/pub.pem"
	echo "$output"
	[ "$status" -eq 1 ]
	[ "${#lines[@]}" -eq 1 ]
	[ "$output" = "envparity verify: att.json: verdict FAILED (1 failed, 0 errors; first env.MKL_CBWR): --require no-fail accepts PASSED or WARNED" ]
	run "$EP" verify att.json --key "$T/pub.pem" --require no-fail
	[ "$status" -eq 1 ]
}

@test "check -o keeps the manifest checked, probe facts included; -o - is standard output" {
	make_keys
	bless_store
	PROBE=${EP_BUILD:-$REPO_ROOT/build}/envparity-probe
	if [ -x "$PROBE" ]; then
		probe=(--runs 2 --backend cpu --probe "$PROBE")
	else
		probe=()
	fi
	run ep_check -o m.json "${probe[@]}"
	echo "$output"
	[ "$status" -eq 0 ]
	validate_schema manifest m.json
	[ "$(jq -r '.facts["env.MKL_CBWR"]' m.json)" = AUTO ]
	[ "$(jq -r '.facts | length' m.json)" -gt 10 ]
	if [ -x "$PROBE" ]; then
		[[ "$(jq -r '.facts["probe.cpu.gemm.sha256"]' m.json)" =~ ^[0-9a-f]{64}$ ]]
	fi
	# The facts blessed and those checked are the same (parity).
	git clone -q .envparity/store wt
	[ "$(jq -cS '.facts | with_entries(select(.key | startswith("probe.") | not))' m.json)" = \
	    "$(jq -cS .facts wt/default/manifest.json)" ]
	# -o -: the manifest alone on standard output, the summary on
	# standard error.
	MKL_CBWR=AUTO "$EP" check -q $(env_opts) -o - > out.json 2> err.txt
	jq -e .facts out.json > /dev/null
	grep -q "PARITY" err.txt
	absent PARITY out.json
	# Two outputs at one path, a link, a directory: refused before the
	# work (exit 2), nothing written.
	run ep_check -o r.json --json r.json
	[ "$status" -eq 2 ]
	[[ "$output" == *"r.json: given for --json and -o"* ]]
	[ ! -e r.json ]
	run ep_check -o - --attest - --sign-key "$T/key.pem"
	[ "$status" -eq 2 ]
	[[ "$output" == *"-o and --attest both asked for standard output; only one output can take it"* ]]
	ln -s /tmp/elsewhere link.json
	run ep_check -o link.json
	[ "$status" -eq 2 ]
	[ ! -e /tmp/elsewhere ]
	mkdir d
	run ep_check -o d
	[ "$status" -eq 2 ]
	# A directory that does not exist: the work is not done (exit 3).
	run ep_check -o nodir/m.json
	[ "$status" -eq 3 ]
}

@test "--attest and a key need each other, one key at a time (exit 2, one line)" {
	make_keys
	run "$EP" check --attest att.json
	[ "$status" -eq 2 ]
	[ "${lines[0]}" = "envparity check: --attest needs --sign-key KEY.pem (or --sign-key -, --sign-key-fd N: the Ed25519 private key to sign with); --statement FILE writes the statement unsigned" ]
	run "$EP" check --sign-key "$T/key.pem"
	[ "$status" -eq 2 ]
	[ "${lines[0]}" = "envparity check: --sign-key needs --attest FILE (where to write the attestation)" ]
	run "$EP" check --sign-key-fd 3 3< "$T/key.pem"
	[ "$status" -eq 2 ]
	[ "${lines[0]}" = "envparity check: --sign-key-fd needs --attest FILE (where to write the attestation)" ]
	run "$EP" check --attest att.json --sign-key "$T/key.pem" --sign-key-fd 3 3< "$T/key.pem"
	[ "$status" -eq 2 ]
	[ "${lines[0]}" = "envparity check: --sign-key and --sign-key-fd exclude each other (one key signs)" ]
	run "$EP" fleet . --attest att.json
	[ "$status" -eq 2 ]
	[[ "${lines[0]}" == "envparity fleet: --attest needs --sign-key"* ]]
	[ ! -e att.json ]
}

@test "a signing key others can read, public or encrypted: refused before the work; of another type or not a key: after it, before any output; its bytes never shown" {
	make_keys
	# What is told without reading a key byte (the mode, the armour):
	# before the work.  No store at all: the key is refused first.
	chmod 644 "$T/key.pem"
	run "$EP" check --no-discover --attest att.json --sign-key "$T/key.pem"
	[ "$status" -eq 2 ]
	[ "${#lines[@]}" -eq 1 ]
	[ "$output" = "envparity check: $T/key.pem: the private key is open to group or others (mode 0644); make it private: chmod 600 $T/key.pem" ]
	chmod 640 "$T/key.pem"
	run "$EP" check --no-discover --attest att.json --sign-key "$T/key.pem"
	[ "$status" -eq 2 ]
	[[ "$output" == *"(mode 0640)"* ]]
	run "$EP" check --no-discover --attest att.json --sign-key-fd 3 3< "$T/key.pem"
	[ "$status" -eq 2 ]
	[ "$output" = "envparity check: descriptor 3: the private key is open to group or others (mode 0640); make it private: chmod 600 its file" ]
	chmod 600 "$T/key.pem"
	cp "$T/pub.pem" p.pem
	run "$EP" check --no-discover --attest att.json --sign-key p.pem
	[ "$status" -eq 2 ]
	[ "$output" = "envparity check: p.pem: a public key: signing needs the private key" ]
	openssl pkey -in "$T/key.pem" -aes256 -passout pass:secret -out enc.pem 2>/dev/null
	chmod 600 enc.pem
	run "$EP" check --no-discover --attest att.json --sign-key enc.pem
	[ "$status" -eq 2 ]
	[[ "$output" == "envparity check: enc.pem: an encrypted private key"* ]]
	run "$EP" check --no-discover --attest att.json --sign-key /nonexistent/key.pem
	[ "$status" -eq 2 ]
	[ "$output" = "envparity check: /nonexistent/key.pem: cannot read: No such file or directory" ]
	run "$EP" check --no-discover --attest att.json --sign-key-fd 7
	[ "$status" -eq 2 ]
	[ "$output" = "envparity check: descriptor 7: not open (give the key on it: --sign-key-fd 3 3< key.pem)" ]
	run "$EP" check --no-discover --attest att.json --sign-key-fd 3 3> w.pem
	[ "$status" -eq 2 ]
	[ "$output" = "envparity check: descriptor 3: not open for reading" ]
	run "$EP" check --no-discover --attest att.json --sign-key-fd x3
	[ "$status" -eq 2 ]
	[ "$output" = "envparity check: --sign-key-fd x3: not a descriptor number" ]
	[ ! -e att.json ]
	[ ! -e .envparity ]

	# What needs the key's bytes (its type, its PEM) is read after the
	# work: refused then (exit 2), before any output is written.
	bless_store
	openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out rsa.pem 2>/dev/null
	openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out ec.pem 2>/dev/null
	head -c 60 "$T/key.pem" > cut.pem
	chmod 600 rsa.pem ec.pem cut.pem
	run ep_check --attest att.json --sign-key rsa.pem -o m.json --json r.json --statement st.json
	[ "$status" -eq 2 ]
	[ "$output" = "envparity check: rsa.pem: the key is RSA, not Ed25519: envparity signs and verifies with Ed25519 keys only (openssl genpkey -algorithm ed25519)" ]
	[ ! -e att.json ] && [ ! -e m.json ] && [ ! -e r.json ] && [ ! -e st.json ]
	run ep_check --attest att.json --sign-key ec.pem
	[ "$status" -eq 2 ]
	[ "$output" = "envparity check: ec.pem: the key is EC, not Ed25519: envparity signs and verifies with Ed25519 keys only (openssl genpkey -algorithm ed25519)" ]
	run ep_check --attest att.json --sign-key - < cut.pem
	[ "$status" -eq 2 ]
	[[ "$output" == "envparity check: standard input: not a PEM private key"* ]]
	[ ! -e att.json ]

	# A run that signs: the key's base64 and its seed are in no output
	# and no file written, nor in any refusal above.
	ep_check --attest att.json --sign-key "$T/key.pem" -o m.json \
	    --json r.json --junit r.xml --markdown r.md > out.txt 2> err.txt
	b64=$(grep -v -- ----- "$T/key.pem")
	seed=$(openssl pkey -in "$T/key.pem" -outform DER | tail -c 32 | xxd -p | tr -d '\n')
	seed64=$(openssl pkey -in "$T/key.pem" -outform DER | tail -c 32 | base64 -w0)
	payload att.json > st.json
	for f in out.txt err.txt att.json st.json m.json r.json r.xml r.md; do
		absent "$b64" "$f"
		absent "$seed" "$f"
		absent "${seed^^}" "$f"
		absent "${seed64%=}" "$f"
	done
	for k in rsa.pem ec.pem enc.pem cut.pem; do
		ep_check --attest att.json --sign-key "$k" > out.txt 2>&1 || :
		absent "$(grep -v -- ----- "$k" | head -1)" out.txt
	done
	chmod 644 "$T/key.pem"
	"$EP" check --no-discover --attest att.json --sign-key "$T/key.pem" > out.txt 2>&1 || :
	grep -q "mode 0644" out.txt
	absent "$b64" out.txt
}

@test "envparity's signature over a PAE is openssl pkeyutl -sign -rawin's over the same bytes" {
	make_keys
	bless_store
	ep_check --attest att.json --sign-key "$T/key.pem" > /dev/null
	payload att.json > body.bin
	{ printf 'DSSEv1 %d %s %d ' "${#PT}" "$PT" "$(wc -c < body.bin)"; cat body.bin; } > pae.bin
	openssl pkeyutl -sign -inkey "$T/key.pem" -rawin -in pae.bin -out sig.bin
	[ "$(jq -r '.signatures[0].sig' att.json)" = "$(base64 -w0 sig.bin)" ]
	jq -r '.signatures[0].sig' att.json | base64 -d > ours.bin
	openssl pkeyutl -verify -pubin -inkey "$T/pub.pem" -rawin -in pae.bin -sigfile ours.bin
	# An envelope openssl signed, envparity verifies.
	openssl_envelope body.bin "$T/key.pem" > theirs.json
	run "$EP" verify theirs.json --key "$T/pub.pem"
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "an --image is a subject, by the digest envparity digest prints" {
	make_keys
	d=$(oci_image "$T/layout" v1 one)
	bless_store --image "oci:$T/layout:v1"
	run ep_check --image "oci:$T/layout:v1" --attest att.json --sign-key "$T/key.pem"
	echo "$output"
	[ "$status" -eq 0 ]
	payload att.json > st.json
	validate_schema attestation st.json
	name="oci:$T/layout:v1"
	[ "$(jq -r --arg n "$name" '.subject[] | select(.name == $n) | .digest.sha256' st.json)" = "${d#sha256:}" ]
	[ "$("$EP" digest "$name" | cut -d' ' -f1)" = "$d" ]
	[ "$(jq -r --arg n "$name" '.predicate.images[$n].digest' st.json)" = "$d" ]
	[ "$(jq -r --arg n "$name" '.predicate.images[$n].platform' st.json)" = linux/amd64 ]
	run "$EP" verify att.json --key "$T/pub.pem" --image "$name" --subject "$d"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"matched by name alone"* ]]
	# The tag moved to another image: drift, and a statement that
	# records the new digest.
	d2=$(oci_image "$T/layout" v1 two)
	run ep_check --image "oci:$T/layout:v1" --attest att.json --sign-key "$T/key.pem"
	[ "$status" -eq 1 ]
	[ "$(payload att.json | jq -r --arg n "$name" '.predicate.images[$n].digest')" = "$d2" ]
	run "$EP" verify att.json --key "$T/pub.pem" --require no-fail --subject "$d"
	[ "$status" -eq 1 ]
}

@test "fleet --attest against a store: one subject per node, the golden's blob, the fleet's verdict" {
	make_keys
	bless_store
	mkdir nodes
	for n in n1 n2; do
		MKL_CBWR=AUTO "$EP" capture -q $(env_opts) --node "$n" -o "nodes/$n.json"
	done
	run "$EP" fleet nodes --store .envparity/store --attest att.json --sign-key "$T/key.pem" -q
	echo "$output"
	payload att.json > st.json
	validate_schema attestation st.json
	[ "$(jq -r .predicate.command st.json)" = fleet ]
	[ "$(jq -r .predicate.profile st.json)" = default ]
	[ "$(jq -r .predicate.nodes.reported st.json)" = 2 ]
	for n in n1 n2; do
		[ "$(jq -r --arg n "facts:$n" '.subject[] | select(.name == $n) | .digest.sha256' st.json)" = \
		    "$(jq -cjS .facts "nodes/$n.json" | sha256sum | cut -d' ' -f1)" ]
	done
	[ "$(jq -r '.subject[] | select(.name == "default/manifest.json") | .digest.gitBlob' st.json)" = \
	    "$(git --git-dir=.envparity/store rev-parse main:default/manifest.json)" ]
	[ "$(jq -r .predicate.exitStatus st.json)" = "$status" ]
	# A node that drifts: FAILED, the node named with the key.
	MKL_CBWR=COMPATIBLE "$EP" capture -q $(env_opts) --node n3 -o nodes/n3.json
	run "$EP" fleet nodes --store .envparity/store --attest att.json --sign-key "$T/key.pem" -q
	[ "$status" -eq 1 ]
	[ "$(payload att.json | jq -r .predicate.verdict)" = FAILED ]
	payload att.json | jq -e '.predicate.failing | index("n3:env.MKL_CBWR")'
}

@test "two independent verifiers accept envparity's envelope and refuse it changed" {
	need_sigstore
	need_sslib
	make_keys
	bless_store
	ep_check --attest att.json --sign-key "$T/key.pem" > /dev/null
	run sigstore_verify att.json "$T/pub.pem"
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$output" = "OK https://in-toto.io/Statement/v1 $PREDICATE PASSED" ]
	for mode in "" --pure; do
		run sslib_verify att.json "$T/pub.pem" $mode
		echo "$output"
		[ "$status" -eq 0 ]
		[[ "$output" == "OK securesystemslib 0.26"*" https://in-toto.io/Statement/v1 $PREDICATE PASSED" ]]
	done
	# A changed payload, a changed subject, a changed payload type, and
	# another key: all three refuse each (and so does envparity).
	tamper att.json '.predicate.verdict = "FAILED"' > payload.json
	tamper att.json '.subject[0].digest.sha256 = ("0" * 64)' > subject.json
	jq '.payloadType = "application/vnd.in-toto.check+json"' att.json > type.json
	for f in payload.json subject.json type.json; do
		run sigstore_verify "$f" "$T/pub.pem"
		echo "$f: $output"
		[ "$status" -eq 1 ]
		[[ "$output" == FAIL* ]]
		run sslib_verify "$f" "$T/pub.pem"
		[ "$status" -eq 1 ]
		run sslib_verify "$f" "$T/pub.pem" --pure
		[ "$status" -eq 1 ]
		run "$EP" verify "$f" --key "$T/pub.pem"
		[ "$status" -eq 1 ]
		[[ "$output" == *"no signature holds"* ]]
	done
	run sigstore_verify att.json "$T/other_pub.pem"
	[ "$status" -eq 1 ]
	run sslib_verify att.json "$T/other_pub.pem"
	[ "$status" -eq 1 ]
	run "$EP" verify att.json --key "$T/other_pub.pem"
	[ "$status" -eq 1 ]
	# Signed again by the key, the changed statement holds for all.
	resign att.json '.predicate.host = "elsewhere"' "$T/key.pem" > again.json
	sigstore_verify again.json "$T/pub.pem"
	sslib_verify again.json "$T/pub.pem"
	"$EP" verify again.json --key "$T/pub.pem"
}
