# attest.bash: what attest.bats and verify.bats share: keys made with
# openssl, a store blessed from this machine with a policy, an OCI
# layout of one image, and envelopes signed with openssl alone (the
# recipe of shared/research/attestation.md), an independent signer that
# lets a test say anything a signer could.
#
# Use in a .bats file:   load setup; load attest

PT=application/vnd.in-toto+json
PREDICATE=https://envparity.dev/attestation/check/v1

# This machine's CUDA mix (a supported minor-version warning) is not
# under test: without it a parity check is PASSED, nothing warned.
QUIET_POLICY='{"schema": "envparity/policy@1", "rules": [
  {"key": "stack.*", "rule": "ignore", "reason": "the CUDA mix of the test machine"}],
  "waivers": []}'

# key.pem / pub.pem, and other.pem / other_pub.pem, in $T; private
# keys 0600 as they must be.
make_keys() {
	local k
	for k in key other; do
		openssl genpkey -algorithm ed25519 -out "$T/$k.pem" 2>/dev/null
		chmod 600 "$T/$k.pem"
	done
	openssl pkey -in "$T/key.pem" -pubout -out "$T/pub.pem"
	openssl pkey -in "$T/other.pem" -pubout -out "$T/other_pub.pem"
}

# envparity's keyid of a public key: SHA-256 of its DER SPKI.
keyid_of() { # pub.pem
	openssl pkey -pubin -in "$1" -outform DER | sha256sum | cut -d' ' -f1
}

# The collector options every check here uses: a small site-packages,
# no lockfile picked up, and MKL_CBWR in the environment ($MKL, default
# AUTO), the fact a test changes to make drift.
env_opts() {
	echo --no-discover --site-packages "$T/sp"
}

# A store at .envparity/store blessed from this machine (extra bless
# options in "$@"), with QUIET_POLICY committed beside the golden.
bless_store() {
	mkdir -p "$T/sp"
	"$FIXTURES/gen-site-packages.sh" "$T/sp" 3 > /dev/null
	MKL_CBWR=AUTO "$EP" bless -q $(env_opts) "$@" > /dev/null
	git clone -q .envparity/store "$T/wt"
	printf '%s\n' "$QUIET_POLICY" > "$T/wt/default/policy.json"
	git -C "$T/wt" add default/policy.json
	git -C "$T/wt" -c user.name=t -c user.email=t@x commit -qm policy
	git -C "$T/wt" push -q origin HEAD
	rm -rf "$T/wt"
}

# envparity check with the options above; MKL_CBWR=$MKL (default AUTO).
ep_check() {
	MKL_CBWR=${MKL:-AUTO} "$EP" check -q $(env_opts) "$@"
}

# The statement inside an envelope.
payload() { # envelope
	jq -r .payload "$1" | base64 -d
}

# Sign statement file $1 with private key $2 into an envelope on
# standard output, with openssl alone; $3 the payload type.
openssl_envelope() { # statement key [payload-type]
	local pt=${3:-$PT} id
	{ printf 'DSSEv1 %d %s %d ' "$(printf '%s' "$pt" | wc -c)" "$pt" \
	    "$(wc -c < "$1")"; cat "$1"; } > "$T/pae.bin"
	openssl pkeyutl -sign -inkey "$2" -rawin -in "$T/pae.bin" \
	    -out "$T/sig.bin"
	id=$(openssl pkey -in "$2" -pubout -outform DER | sha256sum | cut -d' ' -f1)
	jq -n --arg pt "$pt" --arg p "$(base64 -w0 "$1")" --arg k "$id" \
	    --arg s "$(base64 -w0 "$T/sig.bin")" \
	    '{payload: $p, payloadType: $pt, signatures: [{keyid: $k, sig: $s}]}'
}

# The statement of envelope $1 changed by jq filter $2, signed again
# with key $3: what a holder of the key could sign.
resign() { # envelope jq-filter key
	payload "$1" | jq -cS "$2" | tr -d '\n' > "$T/st.json"
	openssl_envelope "$T/st.json" "$3"
}

# The statement of envelope $1 changed by jq filter $2, the signature
# kept: tampering.
tamper() { # envelope jq-filter
	local p
	p=$(payload "$1" | jq -cS "$2" | tr -d '\n' | base64 -w0)
	jq --arg p "$p" '.payload = $p' "$1"
}

# An OCI layout at $1 whose tag $2 is one linux/amd64 image made of text
# $3 (no layers); prints its manifest digest.
oci_image() { # dir tag text
	local cfg man cd md
	mkdir -p "$1/blobs/sha256"
	printf '{"imageLayoutVersion":"1.0.0"}' > "$1/oci-layout"
	cfg="{\"architecture\":\"amd64\",\"os\":\"linux\",\"config\":{\"Env\":[\"X=$3\"]},\"rootfs\":{\"type\":\"layers\",\"diff_ids\":[]}}"
	cd=$(printf '%s' "$cfg" | sha256sum | cut -d' ' -f1)
	printf '%s' "$cfg" > "$1/blobs/sha256/$cd"
	man="{\"schemaVersion\":2,\"mediaType\":\"application/vnd.oci.image.manifest.v1+json\",\"config\":{\"mediaType\":\"application/vnd.oci.image.config.v1+json\",\"digest\":\"sha256:$cd\",\"size\":${#cfg}},\"layers\":[]}"
	md=$(printf '%s' "$man" | sha256sum | cut -d' ' -f1)
	printf '%s' "$man" > "$1/blobs/sha256/$md"
	printf '{"schemaVersion":2,"manifests":[{"mediaType":"application/vnd.oci.image.manifest.v1+json","digest":"sha256:%s","size":%d,"annotations":{"org.opencontainers.image.ref.name":"%s"}}]}' \
	    "$md" "${#man}" "$2" > "$1/index.json"
	echo "sha256:$md"
}

# The independent verifiers: sigstore-js (npm @sigstore/verify, from
# tools/node_modules) and Debian's python3-securesystemslib (PyNaCl, and
# its pure-Python Ed25519).  Each prints one line, OK or FAIL.
need_sigstore() {
	command -v node > /dev/null &&
	    [ -d "$REPO_ROOT/tools/node_modules/@sigstore/verify" ] ||
	    skip "@sigstore/verify not installed (tools/deps.sh test)"
}
need_sslib() {
	/usr/bin/python3 -c 'import securesystemslib, nacl' 2>/dev/null ||
	    skip "python3-securesystemslib or python3-nacl not installed (tools/deps.sh test)"
}
sigstore_verify() { # envelope pub.pem
	node "$BATS_TEST_DIRNAME/dsse_sigstore.js" "$1" "$2"
}
sslib_verify() { # envelope pub.pem [--pure]
	/usr/bin/python3 "$BATS_TEST_DIRNAME/dsse_sslib.py" "$@"
}

# Fail, saying so, when file holds needle (a `! grep` is no assertion
# under bats' errexit).
absent() { # needle file
	if grep -qF -- "$1" "$2"; then
		echo "$2 holds $1"
		return 1
	fi
}
