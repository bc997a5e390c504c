#!/usr/bin/env bats
# digest_auth.bats: registries that want credentials: htpasswd Basic auth,
# and token auth with a token issuer (token_issuer.py) that gives
# anonymous pull tokens except under private/ and checks Basic
# credentials.  Credentials from ~/.docker/config.json,
# $REGISTRY_AUTH_FILE and --registry-auth-file; 401 without them; and no
# secret ever in any output or in the cache.

load setup
load registry

BASIC_PW=Basic-s3cret-Pw-1
TOKEN_PW=Token-s3cret-Pw-2

setup_file() {
	unset REGISTRY_AUTH_FILE XDG_RUNTIME_DIR DOCKER_CONFIG
	local d=$BATS_FILE_TMPDIR
	reg_start "$d/basic" htpasswd "alice:$BASIC_PW" || return 1
	export BASIC=$REG_HOST
	BASIC_DIGEST=$(REG_PUSH_USER=alice:$BASIC_PW reg_push_image "$BASIC" app v1) ||
	    return 1
	export BASIC_DIGEST
	reg_start "$d/token" token "bob:$TOKEN_PW" || return 1
	export TOKEN=$REG_HOST TOKEN_LOG
	read -r IDX AMD ARM < <(REG_PUSH_USER=bob:$TOKEN_PW reg_push_index "$TOKEN" multi v1)
	[ -n "$ARM" ] || return 1
	PRIV_DIGEST=$(REG_PUSH_USER=bob:$TOKEN_PW reg_push_image "$TOKEN" private/app v1) ||
	    return 1
	export IDX AMD ARM PRIV_DIGEST
}

teardown_file() {
	reg_stop_all
}

# A docker config.json / containers auth.json with USER:PASS for HOST.
authfile() { # file host user:pass [host user:pass]...
	local f=$1 json='{}'
	shift
	while [ $# -ge 2 ]; do
		json=$(jq -c --arg h "$1" --arg a "$(printf %s "$2" | base64 -w0)" \
		    '.auths[$h] = {auth: $a}' <<<"$json")
		shift 2
	done
	mkdir -p "$(dirname "$f")"
	printf '%s\n' "$json" >"$f"
}

digest() {
	run "$EP" digest --insecure-registry "$BASIC" \
	    --insecure-registry "$TOKEN" "$@"
}

# No secret in the output, in any form, nor anywhere in the cache.
no_secrets() {
	local s
	for s in "$BASIC_PW" "$TOKEN_PW" "$(printf 'alice:%s' "$BASIC_PW" | base64 -w0)" \
	    "$(printf 'bob:%s' "$TOKEN_PW" | base64 -w0)" Bearer eyJ; do
		[[ "$output" != *"$s"* ]] || { echo "secret in output: $s"; return 1; }
		if [ -d "$XDG_CACHE_HOME" ] && grep -rqF -- "$s" "$XDG_CACHE_HOME"; then
			echo "secret in the cache: $s"
			return 1
		fi
	done
}

@test "basic auth: 401 without credentials names the files looked at" {
	digest "$BASIC/app:v1"
	[ "$status" -eq 3 ]
	[ "$output" = "envparity digest: $BASIC/app:v1: registry $BASIC: authentication required (401); no credentials for $BASIC in $HOME/.docker/config.json" ]
	XDG_RUNTIME_DIR=$T/run digest "$BASIC/app:v1"
	[ "$status" -eq 3 ]
	[[ "$output" == *"no credentials for $BASIC in $T/run/containers/auth.json, $HOME/.docker/config.json" ]]
}

@test "basic auth with ~/.docker/config.json: the digests skopeo sees" {
	authfile "$HOME/.docker/config.json" "$BASIC" "alice:$BASIC_PW"
	digest "$BASIC/app:v1"
	[ "$status" -eq 0 ]
	read -r dg pdg cdg plat name <<<"$output"
	[ "$dg" = "$BASIC_DIGEST" ]
	[ "$dg" = "$(skopeo_digest raw "$BASIC/app:v1")" ]
	[ "$cdg" = "$(skopeo_digest config "$BASIC/app:v1")" ]
	no_secrets
}

@test "basic auth with \$REGISTRY_AUTH_FILE, which comes before ~/.docker/config.json" {
	authfile "$HOME/.docker/config.json" "$BASIC" "alice:wrong"
	authfile "$T/auth.json" "$BASIC" "alice:$BASIC_PW"
	REGISTRY_AUTH_FILE=$T/auth.json digest "$BASIC/app:v1"
	[ "$status" -eq 0 ]
	[[ "$output" == "$BASIC_DIGEST "* ]]
	no_secrets
	# docker's config alone: its wrong password.
	digest "$BASIC/app:v1"
	[ "$status" -eq 3 ]
	[ "$output" = "envparity digest: $BASIC/app:v1: registry $BASIC: authentication failed (401) with the credentials for $BASIC from $HOME/.docker/config.json" ]
	no_secrets
}

@test "--registry-auth-file is the only file looked at" {
	authfile "$T/auth.json" "$BASIC" "alice:wrong"
	authfile "$T/mine.json" "https://$BASIC/" "alice:$BASIC_PW"
	REGISTRY_AUTH_FILE=$T/auth.json digest --registry-auth-file "$T/mine.json" "$BASIC/app:v1"
	[ "$status" -eq 0 ]
	[[ "$output" == "$BASIC_DIGEST "* ]]
	authfile "$T/other.json" other.example "alice:$BASIC_PW"
	digest --registry-auth-file "$T/other.json" "$BASIC/app:v1"
	[ "$status" -eq 3 ]
	[[ "$output" == *"no credentials for $BASIC in $T/other.json" ]]
	no_secrets
}

@test "an auth file named explicitly that is missing or malformed: exit 2 naming it" {
	digest --registry-auth-file "$T/none.json" "$BASIC/app:v1"
	[ "$status" -eq 2 ]
	[[ "$output" == *"$T/none.json"* ]]
	printf '{"auths": {"%s": {"auth": "not*base64"}}}\n' "$BASIC" >"$T/bad.json"
	REGISTRY_AUTH_FILE=$T/bad.json digest "$BASIC/app:v1"
	[ "$status" -eq 2 ]
	[ "$output" = "envparity digest: $BASIC/app:v1: $T/bad.json: auths.\"$BASIC\".auth: not base64" ]
	printf '{"auths": [\n' >"$T/bad.json"
	digest --registry-auth-file "$T/bad.json" "$BASIC/app:v1"
	[ "$status" -eq 2 ]
	[[ "$output" == *"$T/bad.json: not JSON"* ]]
	[[ "$output" != *sha256:* ]]
}

@test "token auth, anonymous: one token per repository for all its references" {
	: >"$TOKEN_LOG"
	digest "$TOKEN/multi:v1" "$TOKEN/multi:v1-amd64" "$TOKEN/multi:v1-arm64"
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -eq 3 ]
	read -r dg pdg cdg plat name <<<"${lines[0]}"
	[ "$dg" = "$IDX" ] && [ "$pdg" = "$AMD" ] && [ "$plat" = linux/amd64 ]
	[ "$dg" = "$(skopeo_digest raw "$TOKEN/multi:v1")" ]
	[ "$cdg" = "$(skopeo_digest config "$TOKEN/multi:v1" --override-os linux --override-arch amd64)" ]
	[[ "${lines[2]}" == "$ARM $ARM "* ]]
	# skopeo asked too: count ours alone.
	run grep -c "anonymous repository:multi:pull" "$TOKEN_LOG"
	[ "$output" -ge 1 ]
	: >"$TOKEN_LOG"
	XDG_CACHE_HOME=$T/cache2 digest "$TOKEN/multi:v1" "$TOKEN/multi:v1-amd64" "$TOKEN/multi:v1-arm64"
	[ "$status" -eq 0 ]
	[ "$(cat "$TOKEN_LOG")" = "anonymous repository:multi:pull" ]
}

@test "token auth with Basic credentials for the token server" {
	digest "$TOKEN/private/app:v1"
	[ "$status" -eq 3 ]
	[ "$output" = "envparity digest: $TOKEN/private/app:v1: registry $TOKEN: authentication required (401); no credentials for $TOKEN in $HOME/.docker/config.json" ]
	authfile "$HOME/.docker/config.json" "$TOKEN" "bob:$TOKEN_PW"
	: >"$TOKEN_LOG"
	digest "$TOKEN/private/app:v1" "$TOKEN/multi:v1"
	[ "$status" -eq 0 ]
	[[ "${lines[0]}" == "$PRIV_DIGEST $PRIV_DIGEST "* ]]
	[[ "${lines[1]}" == "$IDX $AMD "* ]]
	[ "$(sort "$TOKEN_LOG")" = "$(printf 'user bob repository:multi:pull\nuser bob repository:private/app:pull')" ]
	no_secrets
}

@test "token auth with a wrong password: the token server's refusal, no secret" {
	authfile "$HOME/.docker/config.json" "$TOKEN" "bob:wrong-$TOKEN_PW"
	digest "$TOKEN/private/app:v1"
	[ "$status" -eq 3 ]
	[[ "$output" == "envparity digest: $TOKEN/private/app:v1: registry $TOKEN: authentication failed (401): token server http://127.0.0.1:"*"/token refused the credentials for $TOKEN from $HOME/.docker/config.json" ]]
	no_secrets
}

@test "credentials for one registry are never sent to another" {
	authfile "$HOME/.docker/config.json" "$TOKEN" "alice:$BASIC_PW"
	digest "$BASIC/app:v1"
	[ "$status" -eq 3 ]
	[[ "$output" == *"no credentials for $BASIC in"* ]]
	no_secrets
}

@test "a credentials file that is not JSON: named, and nothing near the error is quoted" {
	local pw=hunter2-s3cret-$$
	# A bad escape right after the password: jansson's own message would
	# quote the bytes before it.
	printf '{"auths":{"%s":{"password":"%s\\q"}}}' "$BASIC" "$pw" \
	    >"$T/bad.json"
	run "$EP" digest --insecure-registry "$BASIC" \
	    --registry-auth-file "$T/bad.json" "$BASIC/app:v1"
	[ "$status" -eq 2 ]
	[[ "$output" == *"$T/bad.json: not JSON (line 1, column "* ]]
	[[ "$output" != *"$pw"* ]]
	[[ "$output" != *hunter2* ]]
}
