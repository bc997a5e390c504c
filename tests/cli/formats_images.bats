#!/usr/bin/env bats
# formats_images.bats: image references as distribution/reference reads
# them, through `digest`: a host with an empty or dash-edged label, a port
# past 65535 and a bare image ID are malformed references (exit 2, one
# line naming the reference and the part), refused before any lookup; and
# the names docker reads the same way still resolve to requests.

load setup

bats_require_minimum_version 1.5.0

@test "digest: a host with an empty or dash-edged label is malformed (exit 2), never looked up" {
	for ref in dock..er/docker ab-.com/foo ab.-com/foo ab.com-/foo \
	    'a..b.c:5000/foo' 'x.y:75050/foo'; do
		# A lookup would go through this proxy, which is not there:
		# exit 3.  A malformed reference never gets that far.
		http_proxy=http://127.0.0.1:9 https_proxy=http://127.0.0.1:9 \
		    run --separate-stderr "$EP" digest "$ref"
		echo "$ref: $status: $stderr"
		[ "$status" -eq 2 ]
		[ -z "$output" ]
		[ "${#stderr_lines[@]}" -eq 1 ]
		[[ "$stderr" == *"image reference '$ref': bad registry host"* ]]
	done
}

@test "digest: 64 hexadecimal digits are an image ID, refused as docker refuses them, not sent to Docker Hub" {
	id=1a3f5e7d9c1b3a5f7e9d1c3b5a7f9e1d3c5b7a9f1e3d5d7c9b1a3f5e7d9c1b3a
	http_proxy=http://127.0.0.1:9 https_proxy=http://127.0.0.1:9 \
	    run --separate-stderr "$EP" digest "$id"
	echo "$stderr"
	[ "$status" -eq 2 ]
	[ -z "$output" ]
	[[ "$stderr" == *"image reference '$id': 64 hexadecimal digits are an image ID"* ]]
	[[ "$stderr" != *"docker.io/library"* ]]
}

@test "digest: the hosts and names docker takes are still looked up" {
	# Each reaches the (absent) proxy: exit 3, the canonical name in
	# the message.  Not malformed.
	for ref in a-b.com/foo 001a.com/foo 'b.gbc.io:443/foo' \
	    '[fd00:1:2::3]:5000/foo' \
	    docker.io/1a3f5e7d9c1b3a5f7e9d1c3b5a7f9e1d3c5b7a9f1e3d5d7c9b1a3f5e7d9c1b3; do
		http_proxy=http://127.0.0.1:9 https_proxy=http://127.0.0.1:9 \
		    no_proxy= NO_PROXY= run --separate-stderr "$EP" digest \
		    --registry-timeout 5 "$ref"
		echo "$ref: $status: $stderr"
		[ "$status" -eq 3 ]
		[[ "$stderr" != *"image reference '$ref'"* ]]
	done
}
