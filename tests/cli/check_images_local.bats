#!/usr/bin/env bats
# check_images_local.bats: the local images (oci:, docker-archive:) a
# golden manifest recorded in meta.images.  The golden is written by
# whoever can push to the store, so check resolves by itself only those
# it names by a relative path inside the directory check runs in, and
# through no symbolic link; any other (an absolute path, a '..', a link)
# is exit 2 before anything is read, unless the user names the same
# reference with --image.

load setup
load attest

setup() {
	T=$(mktemp -d "${BATS_TMPDIR:-/tmp}/envparity-cli.XXXXXX")
	export XDG_CACHE_HOME=$T/cache HOME=$T/home
	seed_cache
	unset GITHUB_ACTIONS GITHUB_STEP_SUMMARY CI GITLAB_CI ENVPARITY_STORE ENVPARITY_PROFILE
	mkdir -p "$HOME" "$T/work/sp"
	cd "$T/work" || return 1
	"$EP" capture -q --no-discover --site-packages sp -o m.json
	# A layout elsewhere on the machine, not the user's to show.
	oci_image "$T/private" SECRET-TAG-2 secret >/dev/null
}

# Bless m.json with meta.images = [{ref: $1}].
golden_with() { # ref
	jq --arg r "$1" '.meta.images = [{ref: $r}]' m.json > g.json
	"$EP" bless -q g.json >/dev/null
}

@test "a relative local image the golden recorded is resolved again" {
	oci_image lay v1 one >/dev/null
	run "$EP" bless -q --no-discover --site-packages sp --image oci:./lay:v1
	[ "$status" -eq 0 ]
	run "$EP" check -q --no-discover --site-packages sp --json r.json
	[ "$status" -le 1 ]
	[ "$(jq -r '[.results[] | select(.key | startswith("image.oci:./lay:v1.")) | .status] | unique | join(",")' r.json)" = pass ]
}

@test "a golden's local image outside the working directory is refused, nothing of it shown" {
	ln -s "$T/private" lnk
	mkdir sub
	for ref in "oci:$T/private" "oci:$T/private:nope" "oci:$T/private:SECRET-TAG-2" "oci:../private" \
	    "oci:sub/../../private" "oci:lnk" "oci:./lnk:v1" \
	    "docker-archive:/etc/passwd" "docker-archive:../../etc/passwd"; do
		golden_with "$ref"
		run "$EP" check -q --no-discover --site-packages sp --json r.json
		echo "$ref: $output"
		[ "$status" -eq 2 ]
		[ "${#lines[@]}" -eq 1 ]
		[[ "$output" == "envparity check: "*"default/manifest.json: meta.images[0]: local image '$ref': "*"--image"* ]]
		[[ "$output" != *"it has"* ]]
		[[ "$output" != *"index.json"* ]]
		[ ! -e r.json ]
	done
	# The user naming it is the user's choice: resolved.
	"$EP" capture -q --no-discover --site-packages sp \
	    --image "oci:$T/private:SECRET-TAG-2" -o m.json
	"$EP" bless -q m.json >/dev/null
	run "$EP" check -q --no-discover --site-packages sp \
	    --image "oci:$T/private:SECRET-TAG-2" --json r.json
	[ "$status" -le 1 ]
	[ "$(jq -r --arg k "image.oci:$T/private:SECRET-TAG-2.digest" '.results[] | select(.key == $k) | .status' r.json)" = pass ]
}

@test "a golden's local image whose facts the policy ignores is neither resolved nor refused" {
	golden_with "oci:$T/private:SECRET-TAG-2"
	echo '{"schema": "envparity/policy@1", "rules": [{"key": "image.*", "rule": "ignore"}]}' > p.json
	git clone -q .envparity/store wt
	cp p.json wt/default/policy.json
	jq --arg k "image.oci:$T/private:SECRET-TAG-2.digest" '.facts[$k] = "sha256:x"' g.json > wt/default/manifest.json
	git -C wt add -A
	git -C wt -c user.name=t -c user.email=t@x commit -qm p
	git -C wt push -q origin HEAD:main
	run "$EP" check -q --no-discover --site-packages sp
	[ "$status" -le 1 ]
	[[ "$output" != *"local image"* ]]
}
