#!/usr/bin/env bats
# digest_local.bats: `envparity digest` and `capture --image` on local
# images: OCI layouts built here blob by blob (a single manifest and a
# two-platform index), docker-archive files written by skopeo, each digest
# checked against skopeo (an independent reader) and sha256sum; then what
# must fail: a tampered blob, a missing tag or oci-layout, unsafe and
# truncated tars, an oversized index.json, an explicit --platform a
# single image is not; and bless/check with an image that moved.

load setup

MT_INDEX=application/vnd.oci.image.index.v1+json
MT_MANIFEST=application/vnd.oci.image.manifest.v1+json
MT_CONFIG=application/vnd.oci.image.config.v1+json
MT_LAYER=application/vnd.oci.image.layer.v1.tar+gzip

# Store $2 (bytes) as a blob of layout $1; print its digest.
blob() { # layout content
	local h
	h=$(printf '%s' "$2" | sha256sum | cut -d' ' -f1)
	printf '%s' "$2" > "$1/blobs/sha256/$h"
	echo "sha256:$h"
}

# A gzipped layer holding $2; print "digest size diff_id".
layer() { # layout text
	local h
	printf '%s' "$2" | gzip -n > "$T/layer.gz"
	h=$(sha256sum < "$T/layer.gz" | cut -d' ' -f1)
	mv "$T/layer.gz" "$1/blobs/sha256/$h"
	echo "sha256:$h $(stat -c %s "$1/blobs/sha256/$h")" \
	    "sha256:$(printf '%s' "$2" | sha256sum | cut -d' ' -f1)"
}

# An image for one platform: config and manifest; print "digest size".
image() { # layout arch variant text
	local l d s id cfg cd man plat
	read -r d s id <<<"$(layer "$1" "$4")"
	plat="\"architecture\":\"$2\",\"os\":\"linux\""
	[ -n "$3" ] && plat="$plat,\"variant\":\"$3\""
	cfg="{$plat,\"config\":{\"Env\":[\"X=$4\"]},\"rootfs\":{\"type\":\"layers\",\"diff_ids\":[\"$id\"]}}"
	cd=$(blob "$1" "$cfg")
	man="{\"schemaVersion\":2,\"mediaType\":\"$MT_MANIFEST\",\"config\":{\"mediaType\":\"$MT_CONFIG\",\"digest\":\"$cd\",\"size\":${#cfg}},\"layers\":[{\"mediaType\":\"$MT_LAYER\",\"digest\":\"$d\",\"size\":$s}]}"
	echo "$(blob "$1" "$man") ${#man}"
}

# Layout $1: tag v1 is a linux/amd64 manifest, tag multi an index of
# linux/amd64 and linux/arm64/v8 (and an attestation-like entry), and an
# untagged second amd64 manifest is kept aside in $T/other.
make_layout() { # dir
	local a as b bs o os idx id is
	mkdir -p "$1/blobs/sha256"
	printf '{"imageLayoutVersion":"1.0.0"}' > "$1/oci-layout"
	read -r a as <<<"$(image "$1" amd64 "" amd-one)"
	read -r b bs <<<"$(image "$1" arm64 v8 arm-one)"
	read -r o os <<<"$(image "$1" amd64 "" amd-two)"
	echo "$o $os" > "$T/other"
	idx="{\"schemaVersion\":2,\"mediaType\":\"$MT_INDEX\",\"manifests\":[{\"mediaType\":\"$MT_MANIFEST\",\"digest\":\"$a\",\"size\":$as,\"platform\":{\"architecture\":\"amd64\",\"os\":\"linux\"}},{\"mediaType\":\"$MT_MANIFEST\",\"digest\":\"$b\",\"size\":$bs,\"platform\":{\"architecture\":\"arm64\",\"os\":\"linux\",\"variant\":\"v8\"}},{\"mediaType\":\"$MT_MANIFEST\",\"digest\":\"$o\",\"size\":$os,\"platform\":{\"architecture\":\"unknown\",\"os\":\"unknown\"}}]}"
	id=$(blob "$1" "$idx")
	is=${#idx}
	printf '{"schemaVersion":2,"mediaType":"%s","manifests":[{"mediaType":"%s","digest":"%s","size":%d,"annotations":{"org.opencontainers.image.ref.name":"v1"}},{"mediaType":"%s","digest":"%s","size":%d,"annotations":{"org.opencontainers.image.ref.name":"multi"}}]}' \
	    "$MT_INDEX" "$MT_MANIFEST" "$a" "$as" "$MT_INDEX" "$id" "$is" \
	    > "$1/index.json"
}

sha() { sha256sum | sed 's/^\([0-9a-f]*\).*/sha256:\1/'; }

# Field $2 (1 digest, 2 platform digest, 3 config digest, 4 platform) of
# digest's line for $1.
field() { # ref n
	"$EP" digest "$1" | cut -d' ' -f"$2"
}

@test "an OCI manifest: digest, platform digest and config agree with skopeo" {
	make_layout L
	run "$EP" digest oci:L:v1
	echo "$output"
	[ "$status" -eq 0 ]
	raw=$(skopeo inspect --raw oci:L:v1 | sha)
	cfg=$(skopeo inspect --config --raw oci:L:v1 | sha)
	[ "$(skopeo inspect oci:L:v1 | jq -r .Digest)" = "$raw" ]
	[ "$output" = "$raw $raw $cfg linux/amd64 oci:L:v1" ]
}

@test "a two-platform index: the index digest, and each platform's manifest and config" {
	make_layout L
	raw=$(skopeo inspect --raw oci:L:multi)
	idx=$(printf '%s' "$raw" | sha)
	amd=$(jq -r '.manifests[] | select(.platform.architecture == "amd64") | .digest' <<<"$raw")
	arm=$(jq -r '.manifests[] | select(.platform.architecture == "arm64") | .digest' <<<"$raw")
	run "$EP" digest oci:L:multi
	echo "$output"
	[ "$status" -eq 0 ]
	cfg=$(skopeo --override-os linux --override-arch amd64 inspect --config --raw oci:L:multi | sha)
	[ "$output" = "$idx $amd $cfg linux/amd64 oci:L:multi" ]
	[ "$(skopeo --override-os linux --override-arch amd64 inspect oci:L:multi | jq -r .Digest)" = "$idx" ]

	run "$EP" digest --platform linux/arm64/v8 oci:L:multi
	echo "$output"
	[ "$status" -eq 0 ]
	cfg=$(skopeo --override-os linux --override-arch arm64 --override-variant v8 inspect --config --raw oci:L:multi | sha)
	[ "$output" = "$idx $arm $cfg linux/arm64/v8 oci:L:multi" ]
	# arm64 means v8 when no variant is given.
	[ "$("$EP" digest --platform linux/arm64 oci:L:multi)" = "$output" ]

	run "$EP" digest --platform linux/s390x oci:L:multi
	[ "$status" -eq 2 ]
	[[ "$output" == *"no manifest for platform linux/s390x (it has: linux/amd64, linux/arm64/v8)"* ]]
}

@test "--json: a byte-stable document that validates" {
	make_layout L
	run "$EP" digest --json oci:L:multi oci:L:v1
	[ "$status" -eq 0 ]
	printf '%s\n' "$output" > d.json
	validate_schema digest d.json
	[ "$(jq -r .schema d.json)" = envparity/digest@1 ]
	[ "$(jq -r .platform d.json)" = linux/amd64 ]
	[ "$(jq -r '.images["oci:L:v1"].digest' d.json)" = "$(skopeo inspect --raw oci:L:v1 | sha)" ]
	[ "$(jq -r '.images["oci:L:multi"].media_type' d.json)" = "$MT_INDEX" ]
	[ "$(jq -r '.images["oci:L:multi"].input' d.json)" = oci:L:multi ]
	[ "$(jq -r '.errors | length' d.json)" = 0 ]
	"$EP" digest --json oci:L:v1 oci:L:multi > d2.json
	cmp d.json d2.json
}

@test "docker-archive written by skopeo: the image ID, checked against skopeo" {
	make_layout L
	skopeo copy -q oci:L:v1 docker-archive:a.tar:app:1
	cfg=$(skopeo inspect --config --raw docker-archive:a.tar | sha)
	for ref in docker-archive:a.tar docker-archive:a.tar:app:1 \
	    docker-archive:a.tar:docker.io/library/app:1; do
		run "$EP" digest "$ref"
		echo "$output"
		[ "$status" -eq 0 ]
		[ "$output" = "$cfg - $cfg linux/amd64 $ref" ]
	done
	# The config is the one the OCI image had.
	[ "$(field oci:L:v1 3)" = "$cfg" ]
	run "$EP" digest docker-archive:a.tar:app:2
	[ "$status" -eq 2 ]
	[[ "$output" == *"no image 'app:2' in the archive (it has: docker.io/library/app:1)"* ]]
}

@test "docker-archive with an OCI layout inside (docker 25+): walked like oci:" {
	make_layout L
	d=$(jq -r '.manifests[1].digest' L/index.json)
	printf '[{"Config":"blobs/sha256/x","RepoTags":["app:1"],"Layers":[]}]' > L/manifest.json
	jq -c '.manifests |= [.[1] | .annotations["io.containerd.image.name"] = "docker.io/library/app:1"]' \
	    L/index.json > idx && mv idx L/index.json
	tar -C L -cf x.tar oci-layout index.json manifest.json blobs
	want=$("$EP" digest oci:L:multi | cut -d' ' -f1-4)
	[[ "$want" == "$d "* ]]
	for ref in docker-archive:x.tar docker-archive:x.tar:app:1; do
		run "$EP" digest "$ref"
		echo "$output"
		[ "$status" -eq 0 ]
		[ "$output" = "$want $ref" ]
	done
}

@test "tar formats: ustar with a prefix, pax and GNU long names all read" {
	make_layout L
	jq -c '.manifests |= [.[0]]' L/index.json > idx && mv idx L/index.json
	want=$("$EP" digest oci:L | cut -d' ' -f1-4)
	python3 - <<'EOF'
import io, tarfile
for name, fmt in (("ustar.tar", tarfile.USTAR_FORMAT),
    ("pax.tar", tarfile.PAX_FORMAT), ("gnu.tar", tarfile.GNU_FORMAT)):
    with tarfile.open(name, "w", format=fmt) as t:
        t.add("L", arcname=".", recursive=True)
        if fmt == tarfile.USTAR_FORMAT:
            extra = "d" * 80 + "/" + "e" * 90	# prefix and name
        else:
            extra = "f" * 300			# pax path, GNU 'L'
        i = tarfile.TarInfo(extra)
        i.size = 3
        t.addfile(i, io.BytesIO(b"abc"))
EOF
	tar tf pax.tar | grep -q '^ffff'
	tar tf ustar.tar | grep -q '^dddd.*/eeee'
	for f in ustar pax gnu; do
		run "$EP" digest "docker-archive:$f.tar"
		echo "$output"
		[ "$status" -eq 0 ]
		[ "$output" = "$want docker-archive:$f.tar" ]
	done
}

@test "a tampered blob is exit 2 naming the blob, and no digest is printed" {
	make_layout L
	cfg=$(field oci:L:v1 3)
	f=L/blobs/sha256/${cfg#sha256:}
	sed -i 's/amd-one/amd-0ne/' "$f"
	run "$EP" digest oci:L:v1
	echo "$output"
	[ "$status" -eq 2 ]
	[ "$output" = "envparity digest: oci:L:v1: blob blobs/sha256/${cfg#sha256:}: its content does not hash to its name (changed or corrupt)" ]
	# skopeo agrees that the image is broken.
	! skopeo inspect --config oci:L:v1 >/dev/null 2>&1 || false
	run "$EP" digest --json oci:L:v1
	[ "$status" -eq 2 ]
	"$EP" digest --json oci:L:v1 2>/dev/null > d.json || true
	[ "$(jq -r '.images | length' d.json)" = 0 ]
	[[ "$(jq -r '.errors["oci:L:v1"]' d.json)" == *"blob blobs/sha256/"* ]]
	run "$EP" capture -q --no-discover --image oci:L:v1 -o m.json
	[ "$status" -eq 2 ]
	[ ! -e m.json ]
}

@test "missing tag, untagged choice, missing oci-layout, not a directory" {
	make_layout L
	run "$EP" digest oci:L:v2
	[ "$status" -eq 2 ]
	[ "$output" = "envparity digest: oci:L:v2: no image 'v2' in index.json (it has: v1, multi)" ]
	run "$EP" digest oci:L
	[ "$status" -eq 2 ]
	[ "$output" = "envparity digest: oci:L: index.json has 2 images; name one (v1, multi)" ]
	rm L/oci-layout
	run "$EP" digest oci:L:v1
	[ "$status" -eq 2 ]
	[[ "$output" == "envparity digest: oci:L:v1: not an OCI image layout: "*"oci-layout"* ]]
	printf '{"imageLayoutVersion":"2.0.0"}' > L/oci-layout
	run "$EP" digest oci:L:v1
	[ "$status" -eq 2 ]
	[[ "$output" == *"unsupported imageLayoutVersion '2.0.0'"* ]]
	run "$EP" digest oci:nowhere:v1
	[ "$status" -eq 2 ]
	[[ "$output" == *"oci:nowhere:v1: nowhere: No such file or directory"* ]]
}

@test "an oversized index.json is refused before it is parsed" {
	make_layout L
	head -c $((5 * 1024 * 1024)) /dev/zero | tr '\0' ' ' >> L/index.json
	run "$EP" digest oci:L:v1
	echo "$output"
	[ "$status" -eq 2 ]
	[[ "$output" == *"L/index.json: too large"* ]]
}

@test "tars: a member with .. or an absolute name, truncated, not a tar" {
	make_layout L
	skopeo copy -q oci:L:v1 docker-archive:a.tar:app:1
	python3 - <<'EOF'
import io, tarfile
for name, bad in (("dotdot.tar", "../evil"), ("abs.tar", "/etc/evil")):
    with tarfile.open(name, "w", format=tarfile.USTAR_FORMAT) as t:
        for n, data in (("manifest.json", b"[]"), (bad, b"x")):
            i = tarfile.TarInfo(n)
            i.size = len(data)
            t.addfile(i, io.BytesIO(data))
EOF
	run "$EP" digest docker-archive:dotdot.tar
	[ "$status" -eq 2 ]
	[ "$output" = "envparity digest: docker-archive:dotdot.tar: dotdot.tar: member '../evil': absolute name or '..' in it" ]
	run "$EP" digest docker-archive:abs.tar
	[ "$status" -eq 2 ]
	[[ "$output" == *"member '/etc/evil': absolute name or '..' in it" ]]
	# Cut in the middle of a member, and at a member boundary.
	size=$(stat -c %s a.tar)
	head -c $((size / 2 + 100)) a.tar > cut.tar
	run "$EP" digest docker-archive:cut.tar
	[ "$status" -eq 2 ]
	[[ "$output" == *"cut.tar: truncated tar file"* ]]
	first=$(tar tvf a.tar | head -1 | awk '{print $3}')
	head -c $((512 + (first + 511) / 512 * 512)) a.tar > cut2.tar
	run "$EP" digest docker-archive:cut2.tar
	[ "$status" -eq 2 ]
	[[ "$output" == *"cut2.tar: truncated tar file"* ]]
	printf 'not a tar file at all' > junk.tar
	run "$EP" digest docker-archive:junk.tar
	[ "$status" -eq 2 ]
	[[ "$output" == *"junk.tar: truncated tar file"* ]]
	head -c 2048 /dev/urandom > rand.tar
	run "$EP" digest docker-archive:rand.tar
	[ "$status" -eq 2 ]
	[[ "$output" == *"rand.tar: not a tar file or a corrupt header at byte 0"* ]]
}

@test "a pax header whose record length is not where it should be: exit 2, no crash" {
	# "\n\n\n3 AAA...": strtoull would skip the newlines and read 3, a
	# record that ends before its key starts.
	python3 - <<'EOF'
def hdr(name, size, typ):
    h = bytearray(512)
    h[0:len(name)] = name.encode()
    h[100:108] = b"0000644\0"
    h[108:116] = b"0000000\0"
    h[116:124] = b"0000000\0"
    h[124:136] = ("%011o\0" % size).encode()
    h[136:148] = b"00000000000\0"
    h[148:156] = b"        "
    h[156] = ord(typ)
    h[257:263] = b"ustar\0"
    h[263:265] = b"00"
    h[148:156] = ("%06o\0 " % sum(h)).encode()
    return bytes(h)
def pad(b):
    return b + b"\0" * ((512 - len(b) % 512) % 512)
meta = b"\n\n\n3 " + b"A" * 40
open("pax.tar", "wb").write(hdr("pax", len(meta), "x") + pad(meta) +
    hdr("f", 1, "0") + pad(b"x") + b"\0" * 1024)
EOF
	run "$EP" digest docker-archive:pax.tar
	[ "$status" -eq 2 ]
	[[ "$output" == "envparity digest: docker-archive:pax.tar: pax.tar: "* ]]
	[ "${#lines[@]}" -eq 1 ]
}

@test "a platform with a newline or a space in it: refused, never printed" {
	local cfg cd man md
	mkdir -p L/blobs/sha256
	printf '{"imageLayoutVersion":"1.0.0"}' > L/oci-layout
	# A variant that would forge a second output line for another image.
	cfg='{"architecture":"amd64","os":"linux","variant":"v1\nsha256:0000000000000000000000000000000000000000000000000000000000000000 - - linux/amd64 docker.io/library/ubuntu:24.04"}'
	cd=$(blob L "$cfg")
	man="{\"schemaVersion\":2,\"mediaType\":\"$MT_MANIFEST\",\"config\":{\"mediaType\":\"$MT_CONFIG\",\"digest\":\"$cd\",\"size\":${#cfg}},\"layers\":[]}"
	md=$(blob L "$man")
	printf '{"schemaVersion":2,"manifests":[{"mediaType":"%s","digest":"%s","size":%d,"annotations":{"org.opencontainers.image.ref.name":"v1"}}]}' \
	    "$MT_MANIFEST" "$md" "${#man}" > L/index.json
	run "$EP" digest oci:L:v1
	[ "$status" -eq 2 ]
	[ "${#lines[@]}" -eq 1 ]
	[[ "$output" == "envparity digest: oci:L:v1: "*"characters no platform has"* ]]
	[[ "$output" != *ubuntu* ]]
}

@test "malformed references are exit 2 naming the part; nothing is resolved" {
	make_layout L
	run "$EP" digest oci:L:v1 Ubuntu
	[ "$status" -eq 2 ]
	[ "$output" = "envparity digest: image reference 'Ubuntu': uppercase in repository name ('Ubuntu')" ]
	run "$EP" digest 'x@sha256:12'
	[ "$status" -eq 2 ]
	[[ "$output" == *"bad digest 'sha256:12'"* ]]
	run "$EP" digest
	[ "$status" -eq 2 ]
	run "$EP" digest --platform Linux/amd64 oci:L:v1
	[ "$status" -eq 2 ]
	[[ "$output" == *"--platform Linux/amd64"* ]]
}

@test "one image resolved, one registry unreachable: the first printed, exit 3" {
	make_layout L
	run "$EP" digest --registry-timeout 5 oci:L:v1 127.0.0.1:1/x:y
	echo "$output"
	[ "$status" -eq 3 ]
	[[ "$output" == *"$(skopeo inspect --raw oci:L:v1 | sha) "*" oci:L:v1"* ]]
	[[ "$output" == *"127.0.0.1:1"* ]]
	[ "$(grep -c '^sha256:' <<<"$output")" = 1 ]
}

@test "capture --image: the image facts, and a manifest that validates" {
	make_layout L
	# The archive's image is the arm64 one, as --platform asks.
	skopeo --override-os linux --override-arch arm64 --override-variant v8 \
	    copy -q oci:L:multi docker-archive:a.tar:app:1
	run "$EP" capture -q --no-discover --image oci:L:multi \
	    --image docker-archive:a.tar:app:1 --platform linux/arm64/v8 -o m.json
	echo "$output"
	[ "$status" -eq 0 ]
	validate_schema manifest m.json
	line=$("$EP" digest --platform linux/arm64/v8 oci:L:multi)
	[ "$(fact m.json image.oci:L:multi.digest)" = "$(cut -d' ' -f1 <<<"$line")" ]
	[ "$(fact m.json image.oci:L:multi.platform_digest)" = "$(cut -d' ' -f2 <<<"$line")" ]
	[ "$(fact m.json image.oci:L:multi.config_digest)" = "$(cut -d' ' -f3 <<<"$line")" ]
	[ "$(fact m.json image.oci:L:multi.platform)" = linux/arm64/v8 ]
	[ "$(fact m.json image.oci:L:multi.media_type)" = "$MT_INDEX" ]
	cfg=$(skopeo inspect --config --raw docker-archive:a.tar | sha)
	[ "$(fact m.json image.docker-archive:a.tar:app:1.digest)" = "$cfg" ]
	[ "$(fact m.json image.docker-archive:a.tar:app:1.config_digest)" = "$cfg" ]
	[ -z "$(fact m.json image.docker-archive:a.tar:app:1.platform_digest)" ]
	[ "$(fact m.json image.docker-archive:a.tar:app:1.platform)" = linux/arm64/v8 ]
	[ "$(jq '[.facts | keys[] | select(startswith("image."))] | length' m.json)" = 9 ]
}

@test "bless with an image, re-point its tag: check fails exactly its image facts" {
	make_layout L
	mkdir sp
	"$FIXTURES/gen-site-packages.sh" sp 2 >/dev/null
	run "$EP" bless -q --no-discover --site-packages sp --image oci:L:v1
	echo "$output"
	[ "$status" -eq 0 ]
	# What this machine fails anyway (cuDNN's cudart minor, ...): the
	# baseline the image's drift is measured against.
	run "$EP" check -q --no-discover --site-packages sp --image oci:L:v1 \
	    --json r0.json
	echo "$output"
	[ "$status" -le 1 ]
	jq -r '.results[] | select(.status == "fail") | .key' r0.json | sort > base
	! grep '^image\.' base || false
	# The tag now names the other amd64 manifest.
	read -r o os < "$T/other"
	jq -c --arg d "$o" --argjson s "$os" \
	    '.manifests[0].digest = $d | .manifests[0].size = $s' L/index.json > idx
	mv idx L/index.json
	run "$EP" check --no-discover --site-packages sp --image oci:L:v1 \
	    --json report.json
	echo "$output"
	[ "$status" -eq 1 ]
	validate_schema report report.json
	jq -r '.results[] | select(.status == "fail") | .key' report.json | sort > failed
	comm -13 base failed > new
	cat new
	printf '%s\n' image.oci:L:v1.config_digest image.oci:L:v1.digest \
	    image.oci:L:v1.platform_digest > want
	diff want new
	# Nothing that failed before passes now, or the other way round.
	[ -z "$(comm -23 base failed)" ]
	[ "$(jq -r '.results[] | select(.key == "image.oci:L:v1.digest") | .actual' report.json)" = "$o" ]
}

@test "check with an image that cannot be resolved: exit 2 or 3, no verdict" {
	make_layout L
	mkdir sp
	"$EP" bless -q --no-discover --site-packages sp >/dev/null
	run "$EP" check -q --no-discover --site-packages sp --image oci:L:nope
	echo "$output"
	[ "$status" -eq 2 ]
	[[ "$output" == *"oci:L:nope: no image 'nope' in index.json"* ]]
	run "$EP" check -q --no-discover --site-packages sp --image Bad:x
	[ "$status" -eq 2 ]
	[[ "$output" == *"'Bad:x': uppercase in repository name"* ]]
}

@test "an explicit --platform a single manifest is not: exit 2 naming both, nothing recorded" {
	make_layout L
	run "$EP" digest --platform linux/arm64 oci:L:v1
	[ "$status" -eq 2 ]
	[ "$output" = "envparity digest: oci:L:v1: the image is linux/amd64, not linux/arm64 (it names a single manifest, not an index)" ]
	# skopeo reads the same platform from the config.
	[ "$(skopeo inspect --config --raw oci:L:v1 | jq -r '.os + "/" + .architecture')" = linux/amd64 ]
	# Asked explicitly for what it is: fine; the default: fine.
	want=$("$EP" digest oci:L:v1)
	[[ "$want" == *" linux/amd64 oci:L:v1" ]]
	[ "$("$EP" digest --platform linux/amd64 oci:L:v1)" = "$want" ]
	# capture and check stop; no manifest.
	run "$EP" capture -q --no-discover --platform linux/arm64 --image oci:L:v1 -o m.json
	[ "$status" -eq 2 ]
	[[ "$output" == *"oci:L:v1: the image is linux/amd64, not linux/arm64"* ]]
	[ ! -e m.json ]
}

@test "an explicit --platform against a legacy docker-archive: its config's platform" {
	make_layout L
	skopeo copy -q oci:L:v1 docker-archive:a.tar:app:1
	run "$EP" digest --platform linux/arm64/v8 docker-archive:a.tar
	[ "$status" -eq 2 ]
	[ "$output" = "envparity digest: docker-archive:a.tar: the image is linux/amd64, not linux/arm64/v8 (a legacy docker-archive holds a single image, not an index)" ]
	run "$EP" digest --platform linux/amd64 docker-archive:a.tar
	[ "$status" -eq 0 ]
	[[ "$output" == *" linux/amd64 docker-archive:a.tar" ]]
	# An arm64 image in an archive: arm64 alone is arm64/v8.
	skopeo --override-os linux --override-arch arm64 --override-variant v8 \
	    copy -q oci:L:multi docker-archive:b.tar:app:2
	run "$EP" digest --platform linux/arm64 docker-archive:b.tar
	[ "$status" -eq 0 ]
	[[ "$output" == *" linux/arm64/v8 docker-archive:b.tar" ]]
}

@test "an explicit --platform against a config that names none: exit 2, it cannot be checked" {
	mkdir -p L/blobs/sha256
	printf '{"imageLayoutVersion":"1.0.0"}' > L/oci-layout
	cd=$(blob L '{"rootfs":{"type":"layers","diff_ids":[]}}')
	man="{\"schemaVersion\":2,\"mediaType\":\"$MT_MANIFEST\",\"config\":{\"mediaType\":\"$MT_CONFIG\",\"digest\":\"$cd\",\"size\":42},\"layers\":[]}"
	md=$(blob L "$man")
	printf '{"schemaVersion":2,"manifests":[{"mediaType":"%s","digest":"%s","size":%d}]}' \
	    "$MT_MANIFEST" "$md" "${#man}" > L/index.json
	run "$EP" digest oci:L
	[ "$status" -eq 0 ]
	[ "$output" = "$md $md $cd - oci:L" ]
	run "$EP" digest --platform linux/amd64 oci:L
	[ "$status" -eq 2 ]
	[ "$output" = "envparity digest: oci:L: the image config names no platform (os and architecture), so --platform linux/amd64 cannot be checked (it names a single manifest, not an index)" ]
}
