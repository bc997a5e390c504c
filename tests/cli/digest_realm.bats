#!/usr/bin/env bats
# digest_realm.bats: where a registry's token realm may take the
# credentials.  The registry is docker-registry on 127.0.0.1 with token
# auth; its realm names the token issuer as localhost, another host as
# far as any client can tell (as auth.docker.io is for Docker Hub).  A
# token asked anonymously may come from any https realm; credentials
# (Basic to the token server, an identity token) go only to a realm on
# the registry's host or one named with --registry-auth-realm, and a
# plain-http realm needs --insecure-registry as well.

load setup
load registry

PW=Realm-s3cret-Pw-3

setup_file() {
	unset REGISTRY_AUTH_FILE XDG_RUNTIME_DIR DOCKER_CONFIG
	local d=$BATS_FILE_TMPDIR
	# https, the realm https://localhost:PORT/token.
	REG_TLS=1 REG_REALM_HOST=localhost reg_start "$d/far" token "bob:$PW" ||
	    return 1
	export FAR=$REG_HOST FAR_CA=$d/far/ca.crt FAR_LOG=$TOKEN_LOG
	export FAR_REALM=localhost:$TOKEN_PORT
	read -r IDX AMD ARM < <(REG_CA=$FAR_CA REG_PUSH_USER=bob:$PW reg_push_index "$FAR" multi v1)
	[ -n "$ARM" ] || return 1
	PRIV=$(REG_CA=$FAR_CA REG_PUSH_USER=bob:$PW reg_push_image "$FAR" private/app v1) ||
	    return 1
	export IDX AMD PRIV
	# Plain http, the realm http://localhost:PORT/token.
	REG_REALM_HOST=localhost reg_start "$d/plain" token "bob:$PW" || return 1
	export PLAIN=$REG_HOST PLAIN_LOG=$TOKEN_LOG
	export PLAIN_REALM=localhost:$TOKEN_PORT
	PLAIN_PRIV=$(REG_PUSH_USER=bob:$PW reg_push_image "$PLAIN" private/app v1) ||
	    return 1
	export PLAIN_PRIV
}

teardown_file() {
	reg_stop_all
}

far() {
	run "$EP" digest --registry-ca "$FAR_CA" "$@"
}

# $HOME/.docker/config.json with JSON entry $2 for host $1.
authfile() { # host entry-json
	mkdir -p "$HOME/.docker"
	jq -n --arg h "$1" --argjson e "$2" '{auths: {($h): $e}}' \
	    >"$HOME/.docker/config.json"
}

basic_creds() { # host
	authfile "$1" "{\"auth\": \"$(printf 'bob:%s' "$PW" | base64 -w0)\"}"
}

no_secrets() {
	local s
	for s in "$PW" "$(printf 'bob:%s' "$PW" | base64 -w0)" eyJ; do
		[[ "$output" != *"$s"* ]] || { echo "secret in output: $s"; return 1; }
	done
}

@test "anonymous: a token from an https realm on another host (as Docker Hub's)" {
	: >"$FAR_LOG"
	far "$FAR/multi:v1"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == "$IDX $AMD sha256:"*" linux/amd64 $FAR/multi:v1" ]]
	[ "$(cat "$FAR_LOG")" = "anonymous repository:multi:pull" ]
}

@test "credentials are not sent to a realm on another host: refused before any request" {
	basic_creds "$FAR"
	: >"$FAR_LOG"
	far "$FAR/private/app:v1" "$FAR/multi:v1"
	echo "$output"
	[ "$status" -eq 3 ]
	[ "${#lines[@]}" -eq 2 ]
	[ "${lines[0]}" = "envparity digest: $FAR/private/app:v1: registry $FAR: token server https://$FAR_REALM/token is not on the registry's host; the credentials for $FAR from $HOME/.docker/config.json are not sent there (--registry-auth-realm $FAR_REALM allows it)" ]
	[ "${lines[1]}" = "envparity digest: $FAR/multi:v1: registry $FAR: token server https://$FAR_REALM/token is not on the registry's host; the credentials for $FAR from $HOME/.docker/config.json are not sent there (--registry-auth-realm $FAR_REALM allows it)" ]
	# The token server was never asked.
	[ ! -s "$FAR_LOG" ]
	no_secrets
	# An identity token, the same.
	authfile "$FAR" "{\"identitytoken\": \"$PW\"}"
	far "$FAR/private/app:v1"
	[ "$status" -eq 3 ]
	[[ "$output" == *"token server https://$FAR_REALM/token is not on the registry's host; the credentials for $FAR from $HOME/.docker/config.json are not sent there"* ]]
	[ ! -s "$FAR_LOG" ]
	no_secrets
}

@test "--registry-auth-realm HOST: the credentials go to that token server" {
	basic_creds "$FAR"
	: >"$FAR_LOG"
	far --registry-auth-realm localhost "$FAR/private/app:v1"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == "$PRIV $PRIV sha256:"*" linux/amd64 $FAR/private/app:v1" ]]
	[ "$(cat "$FAR_LOG")" = "user bob repository:private/app:pull" ]
	no_secrets
	# HOST:PORT names that port only.
	: >"$FAR_LOG"
	far --registry-auth-realm "$FAR_REALM" "$FAR/private/app:v1"
	[ "$status" -eq 0 ]
	far --registry-auth-realm localhost:1 --registry-auth-realm other.example \
	    "$FAR/private/app:v1"
	[ "$status" -eq 3 ]
	[[ "$output" == *"is not on the registry's host"* ]]
	[ "$(cat "$FAR_LOG")" = "user bob repository:private/app:pull" ]
	# An identity token: the refresh POSTed there.
	authfile "$FAR" "{\"identitytoken\": \"$PW\"}"
	: >"$FAR_LOG"
	far --registry-auth-realm localhost "$FAR/private/app:v1"
	[ "$status" -eq 0 ]
	[[ "$output" == "$PRIV $PRIV "* ]]
	[ "$(cat "$FAR_LOG")" = "refresh bob repository:private/app:pull" ]
	no_secrets
}

@test "a plain-http realm on another host: --insecure-registry for it, and for credentials --registry-auth-realm too" {
	: >"$PLAIN_LOG"
	run "$EP" digest --insecure-registry "$PLAIN" "$PLAIN/private/app:v1"
	[ "$status" -eq 3 ]
	[ "$output" = "envparity digest: $PLAIN/private/app:v1: registry $PLAIN: token server http://$PLAIN_REALM/token is plain http; use --insecure-registry $PLAIN_REALM to allow it" ]
	# Allowed plain http, anonymously: asked, and private/ refused.
	run "$EP" digest --insecure-registry "$PLAIN" \
	    --insecure-registry "$PLAIN_REALM" "$PLAIN/private/app:v1"
	[ "$status" -eq 3 ]
	[ "$(cat "$PLAIN_LOG")" = "refused anonymous repository:private/app:pull" ]
	# With credentials: plain http allowed is not the credentials
	# allowed.
	basic_creds "$PLAIN"
	: >"$PLAIN_LOG"
	run "$EP" digest --insecure-registry "$PLAIN" \
	    --insecure-registry "$PLAIN_REALM" "$PLAIN/private/app:v1"
	[ "$status" -eq 3 ]
	[ "$output" = "envparity digest: $PLAIN/private/app:v1: registry $PLAIN: token server http://$PLAIN_REALM/token is not on the registry's host; the credentials for $PLAIN from $HOME/.docker/config.json are not sent there (--registry-auth-realm $PLAIN_REALM allows it)" ]
	[ ! -s "$PLAIN_LOG" ]
	run "$EP" digest --insecure-registry "$PLAIN" \
	    --insecure-registry "$PLAIN_REALM" --registry-auth-realm localhost \
	    "$PLAIN/private/app:v1"
	[ "$status" -eq 0 ]
	[[ "$output" == "$PLAIN_PRIV $PLAIN_PRIV "* ]]
	[ "$(cat "$PLAIN_LOG")" = "user bob repository:private/app:pull" ]
	# --registry-auth-realm alone does not allow plain http.
	: >"$PLAIN_LOG"
	run "$EP" digest --insecure-registry "$PLAIN" \
	    --registry-auth-realm localhost "$PLAIN/private/app:v1"
	[ "$status" -eq 3 ]
	[[ "$output" == *"is plain http; use --insecure-registry $PLAIN_REALM"* ]]
	[ ! -s "$PLAIN_LOG" ]
	no_secrets
}

@test "--registry-auth-realm takes HOST[:PORT]: a URL or a path is exit 2" {
	local a
	for a in https://localhost localhost/token "" u@localhost localhost: \
	    "a b" localhost:1:2 localhost:123456; do
		run "$EP" digest --registry-auth-realm "$a" "$FAR/multi:v1"
		[ "$status" -eq 2 ]
		[ "${lines[0]}" = "envparity digest: --registry-auth-realm $a: expected HOST[:PORT] (the token server's host, no scheme or path)" ]
	done
	# capture and check take it too.
	run "$EP" capture -q --no-discover --registry-auth-realm https://x \
	    --image "$FAR/multi:v1" -o m.json
	[ "$status" -eq 2 ]
	[[ "$output" == *"--registry-auth-realm https://x: expected HOST[:PORT]"* ]]
	[ ! -e m.json ]
}
