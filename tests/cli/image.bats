#!/usr/bin/env bats
# image.bats: the Containerfile builds with Debian's buildah (storage
# driver overlay where the kernel mounts it here, else vfs; --isolation
# chroot), the image runs envparity as a user of
# its own with no compiler in it, and pushed to Debian's docker-registry
# on 127.0.0.1 its digest, resolved by `envparity digest`, is the one
# buildah reports for the push.
#
# No registry on the internet is reachable here, so debian:12-slim cannot
# be pulled: the base is a debootstrap --variant=minbase root of this
# machine's release (tests/cli/debroot.bash), imported as the local image
# localhost/debian:12-slim and given as --build-arg BASE.  apt inside the
# build reaches this machine's Debian mirror.  buildah's storage is kept
# under the test cache, so that the base and the build's layers are
# reused by a rerun.

load setup
load registry
load debroot

setup_file() {
	[ "$(id -u)" = 0 ] || skip "needs root (buildah with chroot isolation, debootstrap)"
	command -v buildah >/dev/null || skip "buildah is not installed"
	# overlay where the kernel mounts it here (each layer is then a diff,
	# not a copy of the whole root), vfs where it does not (inside some
	# containers); each driver with a storage of its own.
	BH_DRIVER=vfs
	local probe c
	probe=$(mktemp -d "${BATS_TMPDIR:-/tmp}/envparity-ovl.XXXXXX")
	if c=$(buildah --storage-driver overlay --root "$probe/root" --runroot "$probe/run" \
	    from scratch 2>/dev/null) &&
	    buildah --storage-driver overlay --root "$probe/root" --runroot "$probe/run" \
	    mount "$c" >/dev/null 2>&1; then
		BH_DRIVER=overlay
	fi
	buildah --storage-driver overlay --root "$probe/root" --runroot "$probe/run" \
	    umount -a >/dev/null 2>&1
	buildah --storage-driver overlay --root "$probe/root" --runroot "$probe/run" \
	    rm -a >/dev/null 2>&1
	rm -rf "$probe"
	export BH_DRIVER
}

teardown() {
	[ -z "${CTR:-}" ] || bh rm "$CTR" >/dev/null 2>&1
	reg_stop_all
	cd / && rm -rf "$T"
}

bh() {
	local root=$EP_TEST_CACHE/containers
	[ "$BH_DRIVER" = vfs ] || root=$root-$BH_DRIVER
	buildah --storage-driver "$BH_DRIVER" --root "$root" \
	    --runroot "$T/runroot" "$@"
}

@test "the Containerfile builds on a local Debian base, runs, and its pushed digest is what envparity digest resolves" {
	unset REGISTRY_AUTH_FILE XDG_RUNTIME_DIR DOCKER_CONFIG
	# The base: a debootstrap root as localhost/debian:12-slim, once.
	if ! bh inspect --type image localhost/debian:12-slim >/dev/null 2>&1; then
		tar=$(debroot_tar)
		c=$(bh from scratch)
		bh add "$c" "$tar" / >/dev/null
		bh config --cmd /bin/bash "$c"
		bh commit -q "$c" localhost/debian:12-slim >/dev/null
		bh rm "$c" >/dev/null
	fi
	v=$(make -s -C "$REPO_ROOT" version)
	run bh build --isolation chroot --layers \
	    --build-arg BASE=localhost/debian:12-slim \
	    -f "$REPO_ROOT/Containerfile" -t "localhost/envparity:$v" "$REPO_ROOT"
	echo "$output" | tail -n 20
	[ "$status" -eq 0 ]

	# It runs envparity, as uid 10001, and holds no compiler.
	CTR=$(bh from "localhost/envparity:$v")
	[ "$(bh inspect --format '{{.OCIv1.Config.User}}' "$CTR")" = 10001:10001 ]
	run bh run --isolation chroot "$CTR" -- envparity version
	echo "$output"
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "envparity $v" ]
	run bh run --isolation chroot "$CTR" -- id -u
	[ "$output" = 10001 ]
	run bh run --isolation chroot "$CTR" -- sh -c 'command -v cc gcc || dpkg -l | grep -- "-dev "'
	[ "$status" -ne 0 ]
	run bh run --isolation chroot "$CTR" -- sh -c 'envparity capture -q -o /tmp/m.json && cat /tmp/m.json'
	[ "$status" -eq 0 ]
	[ "$(jq -r '.facts["os.id"]' <<<"$output")" = debian ]
	[ -f "$(bh mount "$CTR")/usr/share/envparity/schemas/manifest.schema.json" ]
	bh umount "$CTR" >/dev/null

	# Pushed to a registry on loopback: buildah's digest is envparity's.
	reg_start "$T/reg"
	bh push --tls-verify=false --digestfile pushed.digest \
	    "localhost/envparity:$v" "docker://$REG_HOST/envparity:v$v" >/dev/null
	run "$EP" digest --insecure-registry "$REG_HOST" "$REG_HOST/envparity:v$v"
	echo "$output"
	[ "$status" -eq 0 ]
	read -r digest _ config platform name <<<"$output"
	[ "$digest" = "$(cat pushed.digest)" ]
	[ "$platform" = linux/amd64 ]
	[ "$name" = "$REG_HOST/envparity:v$v" ]
	[ "$config" = "sha256:$(bh inspect --format '{{.FromImageID}}' "$CTR")" ]
	bh rmi -f "localhost/envparity:$v" >/dev/null 2>&1 || true
}
