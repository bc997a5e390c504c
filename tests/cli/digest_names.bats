#!/usr/bin/env bats
# digest_names.bats: a registry image and a local one never share a
# name, so never a fact key.  A registry whose host is called `oci` (or
# `docker-archive`) with a port is written docker://oci:PORT/foo, and
# oci:PORT/foo:latest is the local layout PORT/foo; both in one run are
# two images, two lines, two sets of facts.
#
# The host name oci does not resolve here: the registry is reached
# through libcurl's http_proxy, which is the registry itself
# (docker-registry answers a request whose target is a whole URL).

load setup
load registry

setup_file() {
	unset REGISTRY_AUTH_FILE XDG_RUNTIME_DIR DOCKER_CONFIG
	reg_start "$BATS_FILE_TMPDIR/plain" || return 1
	export PLAIN=$REG_HOST PORT=${REG_HOST##*:}
	# The registry's foo:latest, and another image for the layout.
	REMOTE=$(reg_push_image "$PLAIN" foo latest) || return 1
	reg_push_image "$PLAIN" foo other arm64 v8 >/dev/null || return 1
	export REMOTE
}

teardown_file() {
	reg_stop_all
}

# envparity, with the registry answering for any host.
via_proxy() {
	http_proxy=http://$PLAIN no_proxy= NO_PROXY= "$EP" "$@"
}

# The layout PORT/foo, tag latest, under $T: foo:other, as skopeo
# writes it (an OCI manifest); LOCAL is its digest.
make_layout() {
	mkdir -p "$PORT"
	skopeo copy -q --src-tls-verify=false "docker://$PLAIN/foo:other" \
	    "oci:$PORT/foo:latest" >/dev/null
	LOCAL=sha256:$(skopeo inspect --raw "oci:$PORT/foo:latest" | sha256sum | cut -d' ' -f1)
	[ "$LOCAL" != "$REMOTE" ]
}

@test "digest: oci:PORT/foo:latest and docker://oci:PORT/foo are two images, two lines" {
	make_layout
	run via_proxy digest --insecure-registry "oci:$PORT" \
	    "oci:$PORT/foo:latest" "docker://oci:$PORT/foo"
	echo "$output"
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -eq 2 ]
	[[ "${lines[0]}" == "$LOCAL $LOCAL sha256:"*" linux/arm64/v8 oci:$PORT/foo:latest" ]]
	[[ "${lines[1]}" == "$REMOTE $REMOTE sha256:"*" linux/amd64 docker://oci:$PORT/foo:latest" ]]
	# The registry's name, given back, is the registry's image again.
	local remote_line=${lines[1]}
	run via_proxy digest --insecure-registry "oci:$PORT" \
	    "docker://oci:$PORT/foo:latest"
	[ "$status" -eq 0 ]
	[ "$output" = "$remote_line" ]
	# --json: both under images.
	via_proxy digest --json --insecure-registry "oci:$PORT" \
	    "docker://oci:$PORT/foo" "oci:$PORT/foo:latest" >d.json
	[ "$(jq -r '.images | length' d.json)" = 2 ]
	[ "$(jq -r --arg n "oci:$PORT/foo:latest" '.images[$n].digest' d.json)" = "$LOCAL" ]
	[ "$(jq -r --arg n "docker://oci:$PORT/foo:latest" '.images[$n].digest' d.json)" = "$REMOTE" ]
}

@test "capture --image of both: each its own facts" {
	make_layout
	run via_proxy capture -q --no-discover --insecure-registry "oci:$PORT" \
	    --image "docker://oci:$PORT/foo" --image "oci:$PORT/foo:latest" \
	    -o m.json
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(fact m.json "image.oci:$PORT/foo:latest.digest")" = "$LOCAL" ]
	[ "$(fact m.json "image.oci:$PORT/foo:latest.platform")" = linux/arm64/v8 ]
	[ "$(fact m.json "image.docker://oci:$PORT/foo:latest.digest")" = "$REMOTE" ]
	[ "$(fact m.json "image.docker://oci:$PORT/foo:latest.platform")" = linux/amd64 ]
	# Ten facts: five per image, none shared.
	[ "$(jq '[.facts | keys[] | select(startswith("image."))] | length' m.json)" = 10 ]
}

@test "a registry called docker-archive: its name keeps docker://" {
	run via_proxy digest --insecure-registry "docker-archive:$PORT" \
	    "docker://docker-archive:$PORT/foo"
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$output" = "$REMOTE $REMOTE $(skopeo_digest config "$PLAIN/foo:latest") linux/amd64 docker://docker-archive:$PORT/foo:latest" ]
}
