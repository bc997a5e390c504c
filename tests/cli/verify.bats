#!/usr/bin/env bats
# verify.bats: `envparity verify`, the deploy job's side: keys rotated,
# --require, --max-age, --subject, --image (a digest reference or a
# name), --profile, --store and --golden-commit; each refusal one line
# with its exit code: 1 a
# condition that fails, 2 an envelope, statement or key that is not one,
# 3 an attestation that cannot be read.  Statements a signer could make
# (expired, for another image, WARNED) are signed here with openssl.

load setup
load attest

# att.json: a PASSED check of this machine, signed with key.pem.
attested() {
	make_keys
	bless_store
	ep_check --attest att.json --sign-key "$T/key.pem" -o m.json > /dev/null
}

@test "verify: one line on standard output, and several --key while keys rotate" {
	attested
	run "$EP" verify att.json --key "$T/pub.pem"
	echo "$output"
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -eq 1 ]
	[[ "$output" == "envparity verify: OK: PASSED (--require no-fail): check of $(hostname) at "*", profile default, commit "*"; signed with $T/pub.pem (keyid $(keyid_of "$T/pub.pem" | cut -c1-16))" ]]
	# Rotation: the old key and the new, either order.
	run "$EP" verify att.json --key "$T/other_pub.pem" --key "$T/pub.pem"
	[ "$status" -eq 0 ]
	[[ "$output" == *"signed with $T/pub.pem"* ]]
	run "$EP" verify att.json --key "$T/pub.pem" --key "$T/other_pub.pem"
	[ "$status" -eq 0 ]
	# The other key alone: no signature holds (exit 1).
	run "$EP" verify att.json --key "$T/other_pub.pem"
	[ "$status" -eq 1 ]
	[ "$output" = "envparity verify: att.json: no signature holds under the key given (1 signature): the envelope was changed after it was signed, or signed with another key" ]
	# Standard input.
	run "$EP" verify - --key "$T/pub.pem" < att.json
	[ "$status" -eq 0 ]
	# An envelope in the URL-safe alphabet without padding is the same
	# envelope (DSSE: verifiers accept either).
	jq '.payload |= (gsub("\\+"; "-") | gsub("/"; "_") | rtrimstr("=") | rtrimstr("="))
	    | .signatures[0].sig |= (gsub("\\+"; "-") | gsub("/"; "_") | rtrimstr("=") | rtrimstr("="))' \
	    att.json > url.json
	run "$EP" verify url.json --key "$T/pub.pem"
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "--require: no-fail (the default, check's exit 0) takes WARNED, parity wants PASSED; FAILED passes neither" {
	attested
	resign att.json '.predicate.verdict = "WARNED" | .predicate.counts.waived = 2
	    | .predicate.waived = ["python.pkg.a", "python.pkg.b"]' "$T/key.pem" > warned.json
	run "$EP" verify warned.json --key "$T/pub.pem"
	[ "$status" -eq 0 ]
	[[ "$output" == "envparity verify: OK: WARNED (--require no-fail)"* ]]
	run "$EP" verify warned.json --key "$T/pub.pem" --require parity
	[ "$status" -eq 1 ]
	[ "$output" = "envparity verify: warned.json: verdict WARNED (0 warned, 2 waived): --require parity accepts PASSED only (--require no-fail also accepts WARNED)" ]
	run "$EP" verify warned.json --key "$T/pub.pem" --require no-fail
	[ "$status" -eq 0 ]
	[[ "$output" == "envparity verify: OK: WARNED (--require no-fail)"* ]]
	run "$EP" verify att.json --key "$T/pub.pem" --require no-fail
	[ "$status" -eq 0 ]
	run "$EP" verify att.json --key "$T/pub.pem" --require all
	[ "$status" -eq 2 ]
	[[ "${lines[0]}" == "envparity verify: --require 'all': parity or no-fail" ]]
	# A verdict its counts contradict is malformed, whoever signed it.
	resign att.json '.predicate.verdict = "PASSED" | .predicate.counts.fail = 1' "$T/key.pem" > liar.json
	run "$EP" verify liar.json --key "$T/pub.pem"
	[ "$status" -eq 2 ]
	[[ "$output" == *"the verdict \"PASSED\" is not what its counts give (FAILED)"* ]]
}

@test "--max-age: a statement older is refused (exit 1), a bad duration is usage (exit 2)" {
	attested
	run "$EP" verify att.json --key "$T/pub.pem" --max-age 30m
	[ "$status" -eq 0 ]
	old=$(date -u -d '-3 days -2 hours' +%Y-%m-%dT%H:%M:%SZ)
	resign att.json ".predicate.time = \"$old\"" "$T/key.pem" > old.json
	for d in 24h 7d 1d12h 3d; do
		run "$EP" verify old.json --key "$T/pub.pem" --max-age "$d"
		echo "$d: $output"
		if [ "$d" = 7d ]; then
			[ "$status" -eq 0 ]
		else
			[ "$status" -eq 1 ]
			[ "${#lines[@]}" -eq 1 ]
			[[ "$output" == "envparity verify: old.json: made at $old, 3d 2h"*" ago: older than --max-age "* ]]
		fi
	done
	# Dated ahead of this clock by more than 5 minutes.
	ahead=$(date -u -d '+1 hour' +%Y-%m-%dT%H:%M:%SZ)
	resign att.json ".predicate.time = \"$ahead\"" "$T/key.pem" > ahead.json
	run "$EP" verify ahead.json --key "$T/pub.pem" --max-age 7d
	[ "$status" -eq 1 ]
	[[ "$output" == *"in the future"* ]]
	# A time that is not RFC 3339 is malformed.
	resign att.json '.predicate.time = "yesterday"' "$T/key.pem" > notime.json
	run "$EP" verify notime.json --key "$T/pub.pem"
	[ "$status" -eq 2 ]
	[[ "$output" == *"\"time\" \"yesterday\" is not an RFC 3339 date-time"* ]]
	for d in 7 x 7x 1.5h -1h 0s "" "7d " 999999999999d; do
		run "$EP" verify att.json --key "$T/pub.pem" --max-age "$d"
		echo "'$d': $output"
		[ "$status" -eq 2 ]
		[[ "${lines[0]}" == "envparity verify: --max-age"* ]]
	done
}

@test "--subject and --profile: the facts, the golden, the profile must be the ones asked" {
	attested
	facts=$(jq -cjS .facts m.json | sha256sum | cut -d' ' -f1)
	blob=$(git --git-dir=.envparity/store rev-parse main:default/manifest.json)
	run "$EP" verify att.json --key "$T/pub.pem" --subject "sha256:$facts" \
	    --subject "gitBlob:$blob" --profile default
	echo "$output"
	[ "$status" -eq 0 ]
	# Upper-case hex is the same digest.
	run "$EP" verify att.json --key "$T/pub.pem" --subject "sha256:${facts^^}"
	[ "$status" -eq 0 ]
	run "$EP" verify att.json --key "$T/pub.pem" --subject "sha256:$(printf x | sha256sum | cut -d' ' -f1)"
	[ "$status" -eq 1 ]
	[[ "$output" == "envparity verify: att.json: no subject has digest sha256:"*" (the statement has 3 subjects)" ]]
	run "$EP" verify att.json --key "$T/pub.pem" --subject "gitBlob:$facts"
	[ "$status" -eq 2 ]
	run "$EP" verify att.json --key "$T/pub.pem" --subject "md5:abc"
	[ "$status" -eq 2 ]
	[[ "${lines[0]}" == *"'md5:abc' is not a digest"* ]]
	run "$EP" verify att.json --key "$T/pub.pem" --profile train/h100
	[ "$status" -eq 1 ]
	[ "$output" = "envparity verify: att.json: profile default, not train/h100" ]
}

@test "--golden-commit and --store: the golden judged against must be the one pinned" {
	attested
	old=$(git --git-dir=.envparity/store rev-parse main)
	run "$EP" verify att.json --key "$T/pub.pem" --golden-commit "$old" \
	    --store .envparity/store --profile default
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *", profile default, commit ${old:0:12}; signed with"* ]]
	run "$EP" verify att.json --key "$T/pub.pem" --golden-commit "${old^^}"
	[ "$status" -eq 0 ]

	# The store's branch moves on (a push nobody reviewed); a check
	# judged against it is signed as faithfully, and refused.
	git clone -q .envparity/store wt
	jq '.description = "moved on"' wt/default/policy.json > p.json
	mv p.json wt/default/policy.json
	git -C wt -c user.name=t -c user.email=t@x commit -qam "moved on"
	git -C wt push -q origin HEAD
	new=$(git --git-dir=.envparity/store rev-parse main)
	ep_check --attest att2.json --sign-key "$T/key.pem" > /dev/null
	run "$EP" verify att2.json --key "$T/pub.pem"
	[ "$status" -eq 0 ]
	run "$EP" verify att2.json --key "$T/pub.pem" --golden-commit "$old"
	[ "$status" -eq 1 ]
	[ "$output" = "envparity verify: att2.json: judged against golden commit $new on main, not $old" ]
	run "$EP" verify att2.json --key "$T/pub.pem" --golden-commit "$new"
	[ "$status" -eq 0 ]

	# Another store: exit 1.  Credentials in --store are left out, as
	# the statement leaves them out, and never shown.
	run "$EP" verify att.json --key "$T/pub.pem" --store other.git
	[ "$status" -eq 1 ]
	[ "$output" = "envparity verify: att.json: judged against store .envparity/store, not other.git" ]
	resign att.json '.predicate.store = "https://git.example/golden.git"' "$T/key.pem" > remote.json
	run "$EP" verify remote.json --key "$T/pub.pem" --store "https://ci:s3cret@git.example/golden.git"
	[ "$status" -eq 0 ]
	run "$EP" verify remote.json --key "$T/pub.pem" --store "https://ci:s3cret@git.example/other.git"
	[ "$status" -eq 1 ]
	[ "$output" = "envparity verify: remote.json: judged against store https://git.example/golden.git, not https://git.example/other.git" ]
	[[ "$output" != *s3cret* ]]
	# A statement that names no golden (a fleet without a store).
	resign att.json '.predicate.store = null | .predicate.commit = null | .predicate.ref = null' \
	    "$T/key.pem" > none.json
	run "$EP" verify none.json --key "$T/pub.pem" --golden-commit "$old"
	[ "$status" -eq 1 ]
	[ "$output" = "envparity verify: none.json: golden commit: the statement names none (no store, or an empty one), --golden-commit $old asked" ]
	run "$EP" verify none.json --key "$T/pub.pem" --store .envparity/store
	[ "$status" -eq 1 ]
	# A prefix is no pin: usage, exit 2.
	for bad in "${old:0:12}" "${old}0" "g${old:1}" ""; do
		run "$EP" verify att.json --key "$T/pub.pem" --golden-commit "$bad"
		[ "$status" -eq 2 ]
		[[ "${lines[0]}" == "envparity verify: --golden-commit '$bad': the full commit id, 40 hex digits"* ]]
	done
	run "$EP" verify att.json --key "$T/pub.pem" --store ""
	[ "$status" -eq 2 ]
}

@test "--image: by repository and digest, or by name alone (said); another image is exit 1" {
	attested
	A=sha256:$(printf a | sha256sum | cut -d' ' -f1)
	B=sha256:$(printf b | sha256sum | cut -d' ' -f1)
	# What a check with --image reg.example:5000/team/app:v1 records.
	resign att.json '.subject += [{"name": "reg.example:5000/team/app:v1", "digest": {"sha256": "'"${A#sha256:}"'"}}]
	    | .predicate.images["reg.example:5000/team/app:v1"] = {"digest": "'"$A"'",
	      "mediaType": "application/vnd.oci.image.index.v1+json", "platformDigest": null,
	      "platform": "linux/amd64", "configDigest": null}' "$T/key.pem" > img.json
	payload img.json > st.json
	validate_schema attestation st.json
	# The deploy pins the digest it deploys: repository and digest.
	run "$EP" verify img.json --key "$T/pub.pem" --image "reg.example:5000/team/app@$A"
	echo "$output"
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -eq 1 ]
	run "$EP" verify img.json --key "$T/pub.pem" --image "reg.example:5000/team/app:v2@$A"
	[ "$status" -eq 0 ]
	run "$EP" verify img.json --key "$T/pub.pem" --image "reg.example:5000/team/app@$B"
	[ "$status" -eq 1 ]
	[ "$output" = "envparity verify: img.json: image reg.example:5000/team/app@$B: the check recorded $A for reg.example:5000/team/app:v1, not $B" ]
	run "$EP" verify img.json --key "$T/pub.pem" --image "reg.example:5000/team/other@$A"
	[ "$status" -eq 1 ]
	[ "$output" = "envparity verify: img.json: image reg.example:5000/team/other@$A: the check recorded no image of that repository (images recorded: reg.example:5000/team/app:v1)" ]
	# By name: matched, and said on standard error.
	run "$EP" verify img.json --key "$T/pub.pem" --image reg.example:5000/team/app:v1
	[ "$status" -eq 0 ]
	[[ "$output" == *"envparity verify: note: --image reg.example:5000/team/app:v1 names no digest, so it was matched by name alone (the check recorded $A)"* ]]
	run "$EP" verify img.json --key "$T/pub.pem" --image reg.example:5000/team/app:v2
	[ "$status" -eq 1 ]
	[[ "$output" == *"image reg.example:5000/team/app:v2: not an image the check recorded"* ]]
	# A check that recorded no image.
	run "$EP" verify att.json --key "$T/pub.pem" --image "reg.example:5000/team/app@$A"
	[ "$status" -eq 1 ]
	[[ "$output" == *"(images recorded: none)" ]]
	# A reference that is not one: usage.
	run "$EP" verify img.json --key "$T/pub.pem" --image "Reg/App:v1"
	[ "$status" -eq 2 ]
	[[ "${lines[0]}" == "envparity verify: --image "* ]]
	# An image in the predicate that is not a subject: malformed.
	resign att.json '.predicate.images["x.example/a:1"] = {"digest": "'"$A"'",
	    "mediaType": null, "platformDigest": null, "platform": null, "configDigest": null}' \
	    "$T/key.pem" > lie.json
	run "$EP" verify lie.json --key "$T/pub.pem"
	[ "$status" -eq 2 ]
	[[ "$output" == *"image x.example/a:1 is not a subject of that digest"* ]]
}

@test "malformed envelopes, statements and keys are exit 2; an unreadable attestation is exit 3; each one line" {
	attested
	head -c 200 att.json > trunc.json
	run "$EP" verify trunc.json --key "$T/pub.pem"
	[ "$status" -eq 2 ]
	[ "${#lines[@]}" -eq 1 ]
	[[ "$output" == "envparity verify: trunc.json: not a DSSE envelope: line "*"premature end of input" ]]
	jq '.payload = "eyJf%%%garbage"' att.json > garbage.json
	run "$EP" verify garbage.json --key "$T/pub.pem"
	[ "$status" -eq 2 ]
	[ "$output" = "envparity verify: garbage.json: payload: not base64: byte 4 (0x25) is outside both alphabets" ]
	jq '.signatures[0].sig = "not base64!"' att.json > badsig.json
	run "$EP" verify badsig.json --key "$T/pub.pem"
	[ "$status" -eq 2 ]
	[[ "$output" == *"signatures[0].sig: not base64"* ]]
	jq '.signatures = []' att.json > nosig.json
	run "$EP" verify nosig.json --key "$T/pub.pem"
	[ "$status" -eq 2 ]
	[[ "$output" == *"no signatures"* ]]
	echo '[1]' > array.json
	run "$EP" verify array.json --key "$T/pub.pem"
	[ "$status" -eq 2 ]
	# A payload type other than in-toto's, signed: refused after the
	# signature holds (DSSE's order), as malformed.
	payload att.json > st.json
	openssl_envelope st.json "$T/key.pem" application/vnd.example+json > othertype.json
	run "$EP" verify othertype.json --key "$T/pub.pem"
	[ "$status" -eq 2 ]
	[ "$output" = "envparity verify: othertype.json: payloadType \"application/vnd.example+json\" is not application/vnd.in-toto+json" ]
	# Signed statements that are not envparity's.
	resign att.json '._type = "https://in-toto.io/Statement/v0.1"' "$T/key.pem" > v01.json
	run "$EP" verify v01.json --key "$T/pub.pem"
	[ "$status" -eq 2 ]
	[[ "$output" == *"not an in-toto Statement v1"* ]]
	resign att.json '.predicateType = "https://in-toto.io/attestation/test-result/v0.1"' "$T/key.pem" > tr.json
	run "$EP" verify tr.json --key "$T/pub.pem"
	[ "$status" -eq 2 ]
	[[ "$output" == *"predicateType \"https://in-toto.io/attestation/test-result/v0.1\" is not $PREDICATE"* ]]
	printf 'not json' > body.txt
	openssl_envelope body.txt "$T/key.pem" > notjson.json
	run "$EP" verify notjson.json --key "$T/pub.pem"
	[ "$status" -eq 2 ]
	[[ "$output" == *"the statement is not JSON"* ]]

	# Keys: another type, not a key, a private key, none at all.
	openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 2>/dev/null | openssl pkey -pubout -out rsa_pub.pem
	run "$EP" verify att.json --key rsa_pub.pem
	[ "$status" -eq 2 ]
	[ "$output" = "envparity verify: rsa_pub.pem: the key is RSA, not Ed25519: envparity signs and verifies with Ed25519 keys only (openssl genpkey -algorithm ed25519)" ]
	openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 2>/dev/null | openssl pkey -pubout -out ec_pub.pem
	run "$EP" verify att.json --key "$T/pub.pem" --key ec_pub.pem
	[ "$status" -eq 2 ]
	[[ "$output" == *"ec_pub.pem: the key is EC, not Ed25519"* ]]
	echo hello > junk.pem
	run "$EP" verify att.json --key junk.pem
	[ "$status" -eq 2 ]
	[[ "$output" == *"junk.pem: not a PEM public key"* ]]
	run "$EP" verify att.json --key "$T/key.pem"
	[ "$status" -eq 2 ]
	[[ "$output" == *"key.pem: a private key: give the public key"* ]]
	run "$EP" verify att.json
	[ "$status" -eq 2 ]
	[[ "${lines[0]}" == *"--key PUB.pem is required"* ]]
	run "$EP" verify --key "$T/pub.pem"
	[ "$status" -eq 2 ]
	run "$EP" verify att.json att.json --key "$T/pub.pem"
	[ "$status" -eq 2 ]

	# The attestation cannot be read: exit 3.
	run "$EP" verify missing.json --key "$T/pub.pem"
	[ "$status" -eq 3 ]
	[ "$output" = "envparity verify: cannot read the attestation: missing.json: cannot read: No such file or directory" ]
	mkdir dir.json
	run "$EP" verify dir.json --key "$T/pub.pem"
	[ "$status" -eq 3 ]
	[ "${#lines[@]}" -eq 1 ]
}
