#!/usr/bin/env bats
# digest_bad.bats: a registry that answers badly (bad_registry.py): a
# body that is not JSON, bodies over the size cap (with and without
# Content-Length), digest headers that disagree with the body, an index
# entry whose manifest hashes to something else, a server that stalls,
# 429 and 5xx (retried), a missing digest header (GET and hash), and 401
# without a challenge; config blobs that do not hash to their digest, are
# missing or too big, and blob redirects to storage on another origin
# (followed, credentials never sent there).  Never a digest for a
# reference that failed.

load setup
load registry

setup_file() {
	unset REGISTRY_AUTH_FILE XDG_RUNTIME_DIR DOCKER_CONFIG
	reg_start_bad "$BATS_FILE_TMPDIR/bad" || return 1
	export BAD=$BAD_HOST BAD_LOG
	# What the server's good manifest hashes to, fetched by curl.
	GOOD=sha256:$(curl -sS "http://$BAD/v2/good/manifests/v1" | sha256sum | cut -c1-64)
	export GOOD
}

teardown_file() {
	reg_stop_all
}

digest() {
	run "$EP" digest --insecure-registry "$BAD" "$@"
}

# One failure line for REF, exit 3, and no digest printed.
fails() { # ref message
	[ "$status" -eq 3 ]
	[ "$output" = "envparity digest: $1: registry $BAD: $2" ]
}

@test "the good manifest resolves (the server itself is sound)" {
	digest "$BAD/good:v1"
	[ "$status" -eq 0 ]
	[[ "$output" == "$GOOD $GOOD sha256:"*" - $BAD/good:v1" ]]
}

@test "a body that is not JSON" {
	local g=sha256:$(printf '<html>this is not a manifest</html>\n' | sha256sum | cut -c1-64)
	digest "$BAD/garbage:v1"
	[ "$status" -eq 3 ]
	[[ "$output" == "envparity digest: $BAD/garbage:v1: registry $BAD: manifest $g: not JSON"* ]]
	[ "${#lines[@]}" -eq 1 ]
}

@test "a body over the cap, with Content-Length and without" {
	digest "$BAD/big:v1"
	fails "$BAD/big:v1" "document larger than 4194304 bytes"
	digest "$BAD/bigstream:v1"
	fails "$BAD/bigstream:v1" "document larger than 4194304 bytes"
}

@test "a digest header that disagrees with the body: HEAD then GET by digest" {
	local other
	other=$(curl -sS -I "http://$BAD/v2/liar/manifests/v1" | tr -d '\r' |
	    sed -n 's/^Docker-Content-Digest: //p')
	[ -n "$other" ] && [ "$other" != "$GOOD" ]
	digest "$BAD/liar:v1"
	fails "$BAD/liar:v1" "digest mismatch: Docker-Content-Digest says $other, the body hashes to $GOOD"
	# Nothing of it was cached.
	[ ! -e "$XDG_CACHE_HOME/envparity/manifests/sha256/${other#sha256:}" ]
	[ ! -e "$XDG_CACHE_HOME/envparity/manifests/sha256/${GOOD#sha256:}" ]
}

@test "a digest header that disagrees with the body: GET by tag" {
	digest "$BAD/liarget:v1"
	[ "$status" -eq 3 ]
	[[ "$output" == "envparity digest: $BAD/liarget:v1: registry $BAD: digest mismatch: Docker-Content-Digest says sha256:"*", the body hashes to $GOOD" ]]
}

@test "a pinned digest the registry answers another digest for" {
	local pin=sha256:$(printf pin | sha256sum | cut -c1-64)
	digest "$BAD/liar@$pin"
	[ "$status" -eq 3 ]
	[[ "$output" == "envparity digest: $BAD/liar@$pin: registry $BAD: digest mismatch: "* ]]
}

@test "an index entry whose manifest hashes to something else" {
	digest "$BAD/badchild:v1"
	[ "$status" -eq 3 ]
	[[ "$output" == "envparity digest: $BAD/badchild:v1: registry $BAD: digest mismatch: asked for sha256:"*", the body hashes to $GOOD" ]]
}

@test "no Docker-Content-Digest: GET by tag, and the body's hash is the digest" {
	local first
	digest "$BAD/nodigest:v1"
	[ "$status" -eq 0 ]
	[[ "$output" == "$GOOD $GOOD sha256:"*" - $BAD/nodigest:v1" ]]
	first=$output
	grep -q "^GET /v2/nodigest/manifests/v1$" "$BAD_LOG"
	# A tag seen before is asked with HEAD first; without a digest
	# header the GET by tag still decides.
	local before
	before=$(wc -l <"$BAD_LOG")
	digest "$BAD/nodigest:v1"
	[ "$status" -eq 0 ]
	[ "$output" = "$first" ]
	tail -n +$((before + 1)) "$BAD_LOG" | grep -q "^HEAD /v2/nodigest/manifests/v1$"
	tail -n +$((before + 1)) "$BAD_LOG" | grep -q "^GET /v2/nodigest/manifests/v1$"
}

@test "a server that accepts and never answers: a timeout" {
	digest --registry-timeout 1 "$BAD/stall:v1"
	[ "$status" -eq 3 ]
	[[ "$output" == "envparity digest: $BAD/stall:v1: registry $BAD: timed out ("*"); see --registry-timeout" ]]
}

@test "429 with Retry-After, then success: retried" {
	local r=r429-$BATS_TEST_NUMBER-$$
	digest "$BAD/$r:v1"
	[ "$status" -eq 0 ]
	[[ "$output" == "$GOOD $GOOD "* ]]
	[ "$(grep -c "^GET /v2/$r/manifests/v1$" "$BAD_LOG")" -eq 2 ]
}

@test "500, then success: retried" {
	local r=r500-$BATS_TEST_NUMBER-$$
	digest "$BAD/$r:v1"
	[ "$status" -eq 0 ]
	[[ "$output" == "$GOOD $GOOD "* ]]
	[ "$(grep -c "^GET /v2/$r/manifests/v1$" "$BAD_LOG")" -eq 2 ]
}

@test "503 every time: given up after the retries" {
	local before
	before=$(grep -c "^GET /v2/always503/" "$BAD_LOG" || true)
	digest "$BAD/always503:v1"
	fails "$BAD/always503:v1" "server error (503), 4 attempts"
	[ "$(grep -c "^GET /v2/always503/" "$BAD_LOG")" -eq $((before + 4)) ]
}

@test "401 without a challenge" {
	digest "$BAD/noauth:v1"
	fails "$BAD/noauth:v1" "authentication required (401), and no WWW-Authenticate challenge"
}

@test "good and bad in one run: the good resolved, each bad one its own line" {
	digest "$BAD/garbage:v1" "$BAD/good:v1" "$BAD/big:v1" "$BAD/nodigest:v1" \
	    "$BAD/liar:v1" "$BAD/missing:v1"
	[ "$status" -eq 3 ]
	[ "$(grep -c '^sha256:' <<<"$output")" -eq 2 ]
	[ "$(grep -c '^envparity digest: ' <<<"$output")" -eq 4 ]
	[[ "$output" == *"$BAD/missing:v1: registry $BAD: manifest unknown (404)"* ]]
	# No failed reference has a digest line.
	! grep -E "^sha256:.* $BAD/(garbage|big|liar|missing):v1$" <<<"$output" || false
}

# The config digest the manifest of REPO names, by curl.
config_of() { # repo
	curl -sS "http://$BAD/v2/$1/manifests/v1" | jq -r .config.digest
}

@test "a config blob whose bytes are not what its digest names: fails naming the blob" {
	local c
	c=$(config_of badconfig)
	digest "$BAD/badconfig:v1"
	[ "$status" -eq 3 ]
	[[ "$output" == "envparity digest: $BAD/badconfig:v1: registry $BAD: config blob $c: digest mismatch: the body hashes to sha256:"* ]]
	[ "${#lines[@]}" -eq 1 ]
	# Neither the config nor what came instead is cached.
	[ ! -e "$XDG_CACHE_HOME/envparity/manifests/sha256/${c#sha256:}" ]
	[ "$(ls "$XDG_CACHE_HOME/envparity/manifests/sha256" | wc -l)" -eq 1 ]
}

@test "a config blob the registry does not have, or over the cap" {
	local c
	c=$(config_of noconfig)
	digest "$BAD/noconfig:v1"
	fails "$BAD/noconfig:v1" "config blob $c unknown (404)"
	c=$(config_of bigconfig)
	digest "$BAD/bigconfig:v1"
	fails "$BAD/bigconfig:v1" "config blob $c: document larger than 4194304 bytes"
}

# The storage server's log lines for the last blob request.
storage_headers() {
	awk '/^STORAGE GET /{ buf = "" } /^STORAGE/{ buf = buf $0 "\n" } END { printf "%s", buf }' "$BAD_LOG"
}

@test "a blob redirected to storage on another port: followed, its platform recorded" {
	local c
	c=$(config_of redir)
	digest "$BAD/redir:v1"
	[ "$status" -eq 0 ]
	[[ "$output" == "sha256:"*" $c linux/arm64 $BAD/redir:v1" ]]
	grep -q "^GET /v2/redir/blobs/$c$" "$BAD_LOG"
	grep -q "^STORAGE GET /storage/$c$" "$BAD_LOG"
	# An explicit --platform is held against it.
	digest --platform linux/arm64/v8 "$BAD/redir:v1"
	[ "$status" -eq 0 ]
	digest --platform linux/amd64 "$BAD/redir:v1"
	[ "$status" -eq 2 ]
	[ "$output" = "envparity digest: $BAD/redir:v1: registry $BAD: the image is linux/arm64, not linux/amd64 (it names a single manifest, not an index)" ]
}

@test "Basic credentials go to the registry, never to the storage it redirects to" {
	local pw=basic-pa55-$$
	jq -n --arg h "$BAD" --arg a "$(printf 'bob:%s' "$pw" | base64 -w0)" \
	    '.auths[$h] = {auth: $a}' >"$T/auth.json"
	: >"$BAD_LOG"
	digest --registry-auth-file "$T/auth.json" "$BAD/basicredir:v1"
	[ "$status" -eq 0 ]
	[[ "$output" == *" linux/arm64 $BAD/basicredir:v1" ]]
	# The registry got them for the blob too...
	grep -A1 "^GET /v2/basicredir/blobs/" "$BAD_LOG" | grep -q '^AUTHORIZATION Basic$'
	# ...the storage did not.
	storage_headers | grep -q "^STORAGE GET /storage/sha256:"
	! storage_headers | grep -qi '^STORAGE-HEADER authorization' || false
	! grep -q "$(printf 'bob:%s' "$pw" | base64 -w0)" "$BAD_LOG" || false
}

@test "a bearer token goes to the registry, never to the storage it redirects to" {
	: >"$BAD_LOG"
	digest "$BAD/tokenredir:v1"
	[ "$status" -eq 0 ]
	[[ "$output" == *" linux/arm64 $BAD/tokenredir:v1" ]]
	grep -q "^GET /token" "$BAD_LOG"
	grep -A1 "^GET /v2/tokenredir/blobs/" "$BAD_LOG" | grep -q '^AUTHORIZATION Bearer$'
	storage_headers | grep -q "^STORAGE GET /storage/sha256:"
	! storage_headers | grep -qi '^STORAGE-HEADER authorization' || false
	! storage_headers | grep -q bad-registry-token-s3cret || false
	[[ "$output" != *s3cret* ]]
}

@test "an identity token's refresh POST never follows a redirect" {
	local secret=refresh-s3cret-$$
	jq -n --arg h "$BAD" --arg t "$secret" \
	    '.auths[$h] = {identitytoken: $t}' >"$T/auth.json"
	: >"$BAD_LOG"
	digest --registry-auth-file "$T/auth.json" "$BAD/idredir:v1"
	[ "$status" -eq 3 ]
	[[ "$output" == "envparity digest: $BAD/idredir:v1: registry $BAD: "* ]]
	[ "${#lines[@]}" -eq 1 ]
	grep -q "^POST /idtoken" "$BAD_LOG"
	! grep -q "^STORAGE POST" "$BAD_LOG" || false
	! grep -q "$secret" "$BAD_LOG" || false
	[[ "$output" != *"$secret"* ]]
}
