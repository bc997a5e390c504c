#!/usr/bin/env bats
# digest_registry.bats: `envparity digest` against Debian's
# docker-registry on 127.0.0.1 (one per file, images pushed with curl):
# a manifest (its platform from its config), a two-platform index, an
# explicit --platform held against single manifests, pinned digests,
# 404s, bad references, twenty references in one run, the document
# cache, plain http only when asked, and TLS with --registry-ca.  skopeo
# is the witness for every digest and platform.

load setup
load registry

setup_file() {
	unset REGISTRY_AUTH_FILE XDG_RUNTIME_DIR DOCKER_CONFIG
	local d=$BATS_FILE_TMPDIR i
	reg_start "$d/plain" || return 1
	export PLAIN=$REG_HOST PLAIN_LOG=$REG_LOG
	SINGLE=$(reg_push_image "$PLAIN" app v1) || return 1
	ARMSINGLE=$(reg_push_image "$PLAIN" armapp v1 arm64 v8) || return 1
	export ARMSINGLE
	read -r IDX AMD ARM < <(reg_push_index "$PLAIN" multi v1)
	[ -n "$ARM" ] || return 1
	export SINGLE IDX AMD ARM
	for i in $(seq 1 20); do
		reg_push_image "$PLAIN" many "t$i" || return 1
	done >"$d/many.digests"
	REG_TLS=1 reg_start "$d/tls" || return 1
	export TLS=$REG_HOST TLS_CA=$d/tls/ca.crt
	TLS_DIGEST=$(REG_CA=$TLS_CA reg_push_image "$TLS" app v1) || return 1
	export TLS_DIGEST
}

teardown_file() {
	reg_stop_all
}

# Run envparity digest against the plain registry.
digest() {
	run "$EP" digest --insecure-registry "$PLAIN" "$@"
}

field() { # n: the nth field of $output's line for name $2
	awk -v n="$1" -v ref="$2" '$5 == ref { print $n }' <<<"$output"
}

@test "a manifest: its digest, platform digest and config digest are skopeo's" {
	digest "$PLAIN/app:v1"
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -eq 1 ]
	read -r dg pdg cdg plat name <<<"$output"
	[ "$name" = "$PLAIN/app:v1" ]
	[ "$dg" = "$SINGLE" ]
	[ "$dg" = "$(skopeo_digest raw "$PLAIN/app:v1")" ]
	[ "$dg" = "$(skopeo inspect --tls-verify=false "docker://$PLAIN/app:v1" | jq -r .Digest)" ]
	[ "$pdg" = "$dg" ]
	[ "$cdg" = "$(skopeo_digest config "$PLAIN/app:v1")" ]
	# The platform, from the config: skopeo's reading of it.
	[ "$plat" = linux/amd64 ]
	[ "$plat" = "$(skopeo inspect --tls-verify=false --config --raw \
	    "docker://$PLAIN/app:v1" | jq -r '.os + "/" + .architecture')" ]
	grep -q "GET /v2/app/blobs/$cdg " "$PLAIN_LOG"
}

@test "a single arm64 manifest: its platform recorded with the default --platform" {
	digest "$PLAIN/armapp:v1"
	[ "$status" -eq 0 ]
	read -r dg pdg cdg plat name <<<"$output"
	[ "$dg" = "$ARMSINGLE" ] && [ "$pdg" = "$ARMSINGLE" ]
	[ "$plat" = linux/arm64/v8 ]
	[ "$plat" = "$(skopeo inspect --tls-verify=false --config --raw \
	    "docker://$PLAIN/armapp:v1" | jq -r '.os + "/" + .architecture + "/" + .variant')" ]
	# arm64 alone is arm64/v8.
	for p in linux/arm64 linux/arm64/v8; do
		digest --platform "$p" "$PLAIN/armapp:v1"
		[ "$status" -eq 0 ]
		[ "$output" = "$ARMSINGLE $ARMSINGLE $cdg linux/arm64/v8 $PLAIN/armapp:v1" ]
	done
}

@test "an explicit --platform that a single manifest is not: exit 2 naming both, no digest" {
	digest --platform linux/arm64 "$PLAIN/app:v1"
	[ "$status" -eq 2 ]
	[ "$output" = "envparity digest: $PLAIN/app:v1: registry $PLAIN: the image is linux/amd64, not linux/arm64 (it names a single manifest, not an index)" ]
	digest --platform linux/amd64 "$PLAIN/armapp:v1" "$PLAIN/app:v1"
	[ "$status" -eq 2 ]
	[ "${lines[0]}" = "envparity digest: $PLAIN/armapp:v1: registry $PLAIN: the image is linux/arm64/v8, not linux/amd64 (it names a single manifest, not an index)" ]
	[ "${lines[1]}" = "$SINGLE $SINGLE $(skopeo_digest config "$PLAIN/app:v1") linux/amd64 $PLAIN/app:v1" ]
	[ "${#lines[@]}" -eq 2 ]
	# Another variant is another platform.
	digest --platform linux/arm64/v7 "$PLAIN/armapp:v1"
	[ "$status" -eq 2 ]
	[[ "$output" == *"the image is linux/arm64/v8, not linux/arm64/v7 "* ]]
	# --json: listed under errors only.
	run "$EP" digest --json --insecure-registry "$PLAIN" --platform linux/arm64 "$PLAIN/app:v1"
	[ "$status" -eq 2 ]
	"$EP" digest --json --insecure-registry "$PLAIN" --platform linux/arm64 \
	    "$PLAIN/app:v1" 2>/dev/null >d.json || true
	[ "$(jq -r '.images | length' d.json)" = 0 ]
	[[ "$(jq -r --arg n "$PLAIN/app:v1" '.errors[$n]' d.json)" == *"the image is linux/amd64, not linux/arm64"* ]]
	# capture --image stops, and writes nothing.
	run "$EP" capture -q --no-discover --insecure-registry "$PLAIN" \
	    --platform linux/arm64 --image "$PLAIN/app:v1" -o m.json
	[ "$status" -eq 2 ]
	[[ "$output" == *"$PLAIN/app:v1: registry $PLAIN: the image is linux/amd64, not linux/arm64"* ]]
	[ ! -e m.json ]
}

@test "an explicit --platform that a single manifest is: passes" {
	digest --platform linux/amd64 "$PLAIN/app:v1"
	[ "$status" -eq 0 ]
	[ "$output" = "$SINGLE $SINGLE $(skopeo_digest config "$PLAIN/app:v1") linux/amd64 $PLAIN/app:v1" ]
}

@test "an index: linux/amd64 by default, each digest as skopeo sees it" {
	digest "$PLAIN/multi:v1"
	[ "$status" -eq 0 ]
	read -r dg pdg cdg plat name <<<"$output"
	[ "$dg" = "$IDX" ]
	[ "$dg" = "$(skopeo_digest raw "$PLAIN/multi:v1")" ]
	[ "$plat" = linux/amd64 ]
	[ "$pdg" = "$AMD" ]
	[ "$pdg" = "$(skopeo_digest raw "$PLAIN/multi@$pdg")" ]
	[ "$cdg" = "$(skopeo_digest config "$PLAIN/multi:v1" \
	    --override-os linux --override-arch amd64)" ]
}

@test "an index: --platform linux/arm64/v8 and linux/arm64 pick the arm64 manifest" {
	local want
	want=$(skopeo_digest config "$PLAIN/multi:v1" --override-os linux \
	    --override-arch arm64 --override-variant v8)
	for p in linux/arm64/v8 linux/arm64; do
		digest --platform "$p" "$PLAIN/multi:v1"
		[ "$status" -eq 0 ]
		read -r dg pdg cdg plat name <<<"$output"
		[ "$dg" = "$IDX" ]
		[ "$pdg" = "$ARM" ]
		[ "$pdg" = "$(skopeo_digest raw "$PLAIN/multi@$pdg")" ]
		[ "$cdg" = "$want" ]
		[ "$plat" = linux/arm64/v8 ]
	done
}

@test "an index without the platform asked for: the error lists what it has" {
	digest --platform linux/s390x "$PLAIN/multi:v1"
	[ "$status" -eq 2 ]
	[ "$output" = "envparity digest: $PLAIN/multi:v1: registry $PLAIN: index $IDX has no manifest for linux/s390x (it has linux/amd64, linux/arm64/v8)" ]
}

@test "a pinned digest is checked to exist (GET, then HEAD once cached) and walked" {
	local before
	# Not cached: one GET by digest proves it exists and brings it.
	before=$(grep -c "GET /v2/multi/manifests/$IDX " "$PLAIN_LOG" || true)
	digest "$PLAIN/multi@$IDX"
	[ "$status" -eq 0 ]
	read -r dg pdg cdg plat name <<<"$output"
	[ "$name" = "$PLAIN/multi@$IDX" ]
	[ "$dg" = "$IDX" ] && [ "$pdg" = "$AMD" ] && [ "$plat" = linux/amd64 ]
	reg_wait_log "$PLAIN_LOG" "GET /v2/multi/manifests/$IDX " $((before + 1))
	# Cached: a HEAD by digest is enough to know it is still there.
	before=$(grep -c "HEAD /v2/multi/manifests/$IDX " "$PLAIN_LOG" || true)
	digest "$PLAIN/multi@$IDX"
	[ "$status" -eq 0 ]
	[ "$(field 1 "$PLAIN/multi@$IDX")" = "$IDX" ]
	reg_wait_log "$PLAIN_LOG" "HEAD /v2/multi/manifests/$IDX " $((before + 1))

	# A digest the registry does not have.
	local none=sha256:$(printf nothing | sha256sum | cut -c1-64)
	digest "$PLAIN/multi@$none"
	[ "$status" -eq 3 ]
	[ "$output" = "envparity digest: $PLAIN/multi@$none: registry $PLAIN: manifest unknown (404)" ]
}

@test "an unknown tag or repository: 404 naming the reference and the registry" {
	digest "$PLAIN/app:nope" "$PLAIN/nothing/here:v1"
	[ "$status" -eq 3 ]
	[ "${lines[0]}" = "envparity digest: $PLAIN/app:nope: registry $PLAIN: manifest unknown (404)" ]
	[ "${lines[1]}" = "envparity digest: $PLAIN/nothing/here:v1: registry $PLAIN: manifest unknown (404)" ]
	[ "${#lines[@]}" -eq 2 ]
}

@test "resolved references print even when others fail" {
	digest "$PLAIN/app:nope" "$PLAIN/app:v1"
	[ "$status" -eq 3 ]
	[[ "$output" == *"$PLAIN/app:nope: registry $PLAIN: manifest unknown (404)"* ]]
	[[ "$output" == *"$SINGLE $SINGLE "*" linux/amd64 $PLAIN/app:v1"* ]]
}

@test "a malformed reference: exit 2, and nothing is asked of the registry" {
	digest "$PLAIN/App:v1" "$PLAIN/app:bad-tag-for-$BATS_TEST_NUMBER@x"
	[ "$status" -eq 2 ]
	[[ "$output" == *"$PLAIN/App:v1"* ]]
	! grep -q '^sha256:' <<<"$output" || false
	# The registry logs what it answers: ask it something after.
	digest "$PLAIN/app:after-$BATS_TEST_NUMBER"
	reg_wait_log "$PLAIN_LOG" "/v2/app/manifests/after-$BATS_TEST_NUMBER " 1
	! grep -qE "/v2/App/|bad-tag-for-$BATS_TEST_NUMBER" "$PLAIN_LOG" || false
}

@test "twenty references in one run: every digest is the registry's and skopeo's" {
	local refs=() i
	for i in $(seq 1 20); do
		refs+=("$PLAIN/many:t$i")
	done
	digest "${refs[@]}"
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -eq 20 ]
	for i in $(seq 1 20); do
		[ "$(field 1 "$PLAIN/many:t$i")" = "$(sed -n "${i}p" "$BATS_FILE_TMPDIR/many.digests")" ]
	done
	# skopeo for a few: it takes a process each.
	for i in 1 7 20; do
		[ "$(field 1 "$PLAIN/many:t$i")" = "$(skopeo_digest raw "$PLAIN/many:t$i")" ]
		[ "$(field 3 "$PLAIN/many:t$i")" = "$(skopeo_digest config "$PLAIN/many:t$i")" ]
	done
}

@test "warm: one HEAD per reference, the documents and the config from the cache" {
	local before after cfg
	# Each test has a cache of its own: this run fills it.
	before=$(wc -l <"$PLAIN_LOG")
	digest "$PLAIN/multi:v1" "$PLAIN/app:v1"
	[ "$status" -eq 0 ]
	cold=$output
	# Tags never seen: one GET by tag each (digest and body at once),
	# then the index's manifest and the single manifest's config: 4,
	# and no HEAD.
	reg_wait_log "$PLAIN_LOG" . $((before + 4))
	[ "$(tail -n +$((before + 1)) "$PLAIN_LOG" | grep -c '"HEAD /v2/')" -eq 0 ]
	[ -f "$XDG_CACHE_HOME/envparity/manifests/sha256/${IDX#sha256:}" ]
	[ -f "$XDG_CACHE_HOME/envparity/manifests/sha256/${AMD#sha256:}" ]
	cfg=$(skopeo_digest config "$PLAIN/app:v1")
	[ -f "$XDG_CACHE_HOME/envparity/manifests/sha256/${cfg#sha256:}" ]
	before=$(wc -l <"$PLAIN_LOG")
	digest "$PLAIN/multi:v1" "$PLAIN/app:v1"
	[ "$status" -eq 0 ]
	[ "$output" = "$cold" ]
	reg_wait_log "$PLAIN_LOG" . $((before + 2))
	after=$(tail -n +$((before + 1)) "$PLAIN_LOG" | grep -c '"HEAD /v2/')
	[ "$after" -eq 2 ]
	[ "$(tail -n +$((before + 1)) "$PLAIN_LOG" | grep -c '"GET /v2/' || true)" -eq 0 ]
}

@test "a damaged cache entry is never believed: fetched again" {
	digest "$PLAIN/multi:v1"
	[ "$status" -eq 0 ]
	good=$output
	f=$XDG_CACHE_HOME/envparity/manifests/sha256/${AMD#sha256:}
	sed -i 's/amd64/arm64/g; s/"size":[0-9]*/"size":1/' "$f"
	digest "$PLAIN/multi:v1"
	[ "$status" -eq 0 ]
	[ "$output" = "$good" ]
	# Put back as it was.
	[ "$(tail -n +2 "$f" | sha256sum | cut -c1-64)" = "${AMD#sha256:}" ]
}

@test "plain http only with --insecure-registry HOST:PORT, never silently" {
	run "$EP" digest "$PLAIN/app:v1"
	[ "$status" -eq 3 ]
	[[ "$output" == "envparity digest: $PLAIN/app:v1: registry $PLAIN: TLS failed ("*"--insecure-registry $PLAIN" ]]
	[[ "$output" != *"$SINGLE"* ]]
	# An exact HOST[:PORT] match: the host alone is another registry.
	run "$EP" digest --insecure-registry 127.0.0.1 "$PLAIN/app:v1"
	[ "$status" -eq 3 ]
	[[ "$output" == *"TLS failed"* ]]
}

@test "TLS: verified; --registry-ca trusts a private CA" {
	run "$EP" digest "$TLS/app:v1"
	[ "$status" -eq 3 ]
	[[ "$output" == "envparity digest: $TLS/app:v1: registry $TLS: TLS failed (SSL certificate problem: "*"use --registry-ca FILE"* ]]
	run "$EP" digest --registry-ca "$TLS_CA" "$TLS/app:v1"
	[ "$status" -eq 0 ]
	read -r dg pdg cdg plat name <<<"$output"
	[ "$dg" = "$TLS_DIGEST" ]
	[ "$name" = "$TLS/app:v1" ]
	# A CA file that is not there.
	run "$EP" digest --registry-ca "$T/none.pem" "$TLS/app:v1"
	[ "$status" -eq 3 ]
	[[ "$output" == *"--registry-ca $T/none.pem: cannot be used"* ]]
	# Plain http to a TLS registry.
	run "$EP" digest --insecure-registry "$TLS" "$TLS/app:v1"
	[ "$status" -eq 3 ]
	[[ "$output" == *"unexpected answer (400) to plain http"* ]]
}

@test "a registry nobody listens on: exit 3 naming it" {
	port=$(free_port)
	run "$EP" digest --insecure-registry "127.0.0.1:$port" "127.0.0.1:$port/app:v1"
	[ "$status" -eq 3 ]
	[[ "$output" == "envparity digest: 127.0.0.1:$port/app:v1: registry 127.0.0.1:$port: "*"onnect"* ]]
}

@test "a damaged cached config is never believed: fetched again" {
	local cfg f before
	digest "$PLAIN/app:v1"
	[ "$status" -eq 0 ]
	good=$output
	cfg=$(skopeo_digest config "$PLAIN/app:v1")
	f=$XDG_CACHE_HOME/envparity/manifests/sha256/${cfg#sha256:}
	[ -f "$f" ]
	sed -i 's/amd64/arm64/g' "$f"
	before=$(grep -c "GET /v2/app/blobs/$cfg " "$PLAIN_LOG" || true)
	digest "$PLAIN/app:v1"
	[ "$status" -eq 0 ]
	[ "$output" = "$good" ]
	reg_wait_log "$PLAIN_LOG" "GET /v2/app/blobs/$cfg " $((before + 1))
	[ "$(tail -n +2 "$f" | sha256sum | cut -c1-64)" = "${cfg#sha256:}" ]
}
