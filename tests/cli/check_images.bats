#!/usr/bin/env bats
# check_images.bats: `check` resolves the images its golden manifest
# recorded (meta.images) again, with this run's registry options, --image
# or not: against Debian's docker-registry on 127.0.0.1.  Parity when
# nothing moved; a tag pushed again is drift naming the image; a registry
# that is down stops the check as an --image would (exit 3, no verdict);
# the platform the golden was blessed for is the one asked again; a golden
# from before meta.images checks as it did; credentials stay out of the
# manifest.

load setup
load registry

setup_file() {
	unset REGISTRY_AUTH_FILE XDG_RUNTIME_DIR DOCKER_CONFIG
	reg_start "$BATS_FILE_TMPDIR/plain" || return 1
	export PLAIN=$REG_HOST PLAIN_LOG=$REG_LOG
}

teardown_file() {
	reg_stop_all
}

# A repository of this test's own (tests move its tags): app:v1 and
# app:other, two single manifests; multi:v1, a two-platform index.
push_images() {
	R=t$BATS_TEST_NUMBER
	V1=$(reg_push_image "$PLAIN" "$R/app" v1) &&
	OTHER=$(reg_push_image "$PLAIN" "$R/app" other) &&
	read -r IDX AMD ARM < <(reg_push_index "$PLAIN" "$R/multi" v1)
	[ -n "$ARM" ] && [ "$V1" != "$OTHER" ]
	mkdir -p sp
	"$FIXTURES/gen-site-packages.sh" sp 2 >/dev/null
}

# Point $R/app:v1 at what $R/app:other is.
retag_v1() {
	local mt=application/vnd.docker.distribution.manifest.v2+json
	curl -sS -H "Accept: $mt" -o "$T/other.json" \
	    "http://$PLAIN/v2/$R/app/manifests/$OTHER" &&
	[ "$(reg_push_manifest "$PLAIN" "$R/app" v1 "$mt" "$T/other.json")" = "$OTHER" ]
}

# The image.* results of a JSON report: "KEY STATUS", sorted.
image_results() { # report
	jq -r '.results[] | select(.key | startswith("image.")) |
	    "\(.key) \(.status)"' "$1" | sort
}

# The golden manifest in the default store.
golden() {
	git --git-dir=.envparity/store show main:default/manifest.json
}

@test "bless with --image, check without it: the golden's images are resolved again, parity" {
	push_images
	run "$EP" bless -q --no-discover --site-packages sp \
	    --insecure-registry "$PLAIN" --image "$PLAIN/$R/app:v1" \
	    --image "docker://$PLAIN/$R/multi:v1"
	echo "$output"
	[ "$status" -eq 0 ]
	golden > g.json
	# The references as normalized, sorted; no platform was asked for.
	[ "$(jq -c .meta.images g.json)" = "[{\"ref\":\"$PLAIN/$R/app:v1\"},{\"ref\":\"$PLAIN/$R/multi:v1\"}]" ]
	validate_schema manifest g.json
	before=$(wc -l <"$PLAIN_LOG")
	run "$EP" check -q --no-discover --site-packages sp \
	    --insecure-registry "$PLAIN" --json r.json -o cur.json
	echo "$output"
	[ "$status" -le 1 ]
	# Asked of the registry again (the cache holds the documents, but
	# a tag is always asked): both tags.
	reg_wait_log "$PLAIN_LOG" "/v2/$R/app/manifests/v1 " $(( $(head -n "$before" "$PLAIN_LOG" | grep -c "/v2/$R/app/manifests/v1 ") + 1 ))
	reg_wait_log "$PLAIN_LOG" "/v2/$R/multi/manifests/v1 " $(( $(head -n "$before" "$PLAIN_LOG" | grep -c "/v2/$R/multi/manifests/v1 ") + 1 ))
	image_results r.json > got
	cat got
	[ "$(wc -l < got)" -eq 10 ]
	[ "$(grep -vc ' pass$' got)" -eq 0 ]
	[ "$(fact cur.json "image.$PLAIN/$R/app:v1.digest")" = "$V1" ]
	[ "$(fact cur.json "image.$PLAIN/$R/multi:v1.platform_digest")" = "$AMD" ]
	[ "$(jq -c .meta.images cur.json)" = "$(jq -c .meta.images g.json)" ]
	# What check fails on this machine anyway is the same as with --image.
	run "$EP" check -q --no-discover --site-packages sp \
	    --insecure-registry "$PLAIN" --image "$PLAIN/$R/app:v1" \
	    --image "$PLAIN/$R/multi:v1" --json r2.json
	[ "$status" -le 1 ]
	diff <(jq -r '.results[] | "\(.key) \(.status)"' r.json | sort) \
	    <(jq -r '.results[] | "\(.key) \(.status)"' r2.json | sort)
}

@test "a tag pushed again: check without --image fails exactly that image's moved facts" {
	push_images
	"$EP" bless -q --no-discover --site-packages sp \
	    --insecure-registry "$PLAIN" --image "$PLAIN/$R/app:v1" \
	    --image "$PLAIN/$R/multi:v1" >/dev/null
	retag_v1
	run "$EP" check --no-discover --site-packages sp \
	    --insecure-registry "$PLAIN" --json r.json
	echo "$output"
	[ "$status" -eq 1 ]
	validate_schema report r.json
	image_results r.json | grep -v ' pass$' > failed || true
	printf '%s fail\n' "image.$PLAIN/$R/app:v1.config_digest" \
	    "image.$PLAIN/$R/app:v1.digest" \
	    "image.$PLAIN/$R/app:v1.platform_digest" > want
	diff want failed
	[ "$(jq -r --arg k "image.$PLAIN/$R/app:v1.digest" \
	    '.results[] | select(.key == $k) | "\(.expected) \(.actual)"' r.json)" = "$V1 $OTHER" ]
	# The summary names the image.
	[[ "$output" == *"image.$PLAIN/$R/app:v1.digest"* ]]
}

@test "--image given: it is resolved as given, and the golden's other images too" {
	push_images
	"$EP" bless -q --no-discover --site-packages sp \
	    --insecure-registry "$PLAIN" --image "$PLAIN/$R/app:v1" \
	    --image "$PLAIN/$R/multi:v1" >/dev/null
	retag_v1
	run "$EP" check -q --no-discover --site-packages sp \
	    --insecure-registry "$PLAIN" --image "$PLAIN/$R/multi:v1" \
	    --json r.json -o cur.json
	[ "$status" -eq 1 ]
	image_results r.json | grep -v ' pass$' | cut -d' ' -f1 > failed
	[ "$(wc -l < failed)" -eq 3 ]
	! grep -v "^image.$PLAIN/$R/app:v1\." failed || false
	[ "$(fact cur.json "image.$PLAIN/$R/app:v1.digest")" = "$OTHER" ]
	[ "$(jq '.meta.images | length' cur.json)" -eq 2 ]
	# A new image named here and not in the golden: new, as before.
	run "$EP" check -q --no-discover --site-packages sp \
	    --insecure-registry "$PLAIN" --image "$PLAIN/$R/app:other" \
	    --json r2.json
	[ "$status" -eq 1 ]
	[ "$(jq -r --arg k "image.$PLAIN/$R/app:other.digest" \
	    '.results[] | select(.key == $k) | .status' r2.json)" = fail ]
	[ "$(image_results r2.json | grep -c "^image.$PLAIN/$R/multi:v1.* pass$")" -eq 5 ]
}

@test "the golden's registry is down: check stops as with --image (exit 3, naming it), no report" {
	push_images
	reg_start "$T/down" || return 1
	local down=$REG_HOST pid=$REG_PID
	reg_push_image "$down" app v1 >/dev/null
	"$EP" bless -q --no-discover --site-packages sp \
	    --insecure-registry "$PLAIN" --insecure-registry "$down" \
	    --image "$down/app:v1" --image "$PLAIN/$R/app:v1" >/dev/null
	kill "$pid"
	wait "$pid" 2>/dev/null || true
	run "$EP" check -q --no-discover --site-packages sp \
	    --insecure-registry "$PLAIN" --insecure-registry "$down" \
	    --json r.json --junit r.xml
	echo "$output"
	[ "$status" -eq 3 ]
	[ "${#lines[@]}" -eq 1 ]
	[[ "$output" == "envparity check: $down/app:v1: registry $down: "*"onnect"*" (an image the golden manifest recorded)" ]]
	[ ! -e r.json ] && [ ! -e r.xml ]
	# Named with --image, the same stop, without the note.
	run "$EP" check -q --no-discover --site-packages sp \
	    --insecure-registry "$PLAIN" --insecure-registry "$down" \
	    --image "$down/app:v1"
	[ "$status" -eq 3 ]
	[[ "$output" == "envparity check: $down/app:v1: registry $down: "*"onnect"* ]]
	[[ "$output" != *"golden"* ]]
}

@test "the registry options are this run's: without --insecure-registry the golden's plain-http registry is not used" {
	push_images
	"$EP" bless -q --no-discover --site-packages sp \
	    --insecure-registry "$PLAIN" --image "$PLAIN/$R/app:v1" >/dev/null
	golden > g.json
	! grep -q insecure g.json || false
	run "$EP" check -q --no-discover --site-packages sp
	echo "$output"
	[ "$status" -eq 3 ]
	[[ "$output" == *"$PLAIN/$R/app:v1: registry $PLAIN: "*"--insecure-registry $PLAIN"*"(an image the golden manifest recorded)" ]]
}

@test "the platform blessed for is asked again; an explicit --platform on check overrides it" {
	push_images
	"$EP" bless -q --no-discover --site-packages sp \
	    --insecure-registry "$PLAIN" --platform linux/arm64 \
	    --image "$PLAIN/$R/multi:v1" >/dev/null
	golden > g.json
	[ "$(jq -c .meta.images g.json)" = "[{\"platform\":\"linux/arm64\",\"ref\":\"$PLAIN/$R/multi:v1\"}]" ]
	[ "$(jq -r --arg k "image.$PLAIN/$R/multi:v1.platform_digest" '.facts[$k]' g.json)" = "$ARM" ]
	run "$EP" check -q --no-discover --site-packages sp \
	    --insecure-registry "$PLAIN" --json r.json -o cur.json
	[ "$status" -le 1 ]
	[ "$(image_results r.json | grep -c ' pass$')" -eq 5 ]
	[ "$(jq -c .meta.images cur.json)" = "$(jq -c .meta.images g.json)" ]
	run "$EP" check -q --no-discover --site-packages sp \
	    --insecure-registry "$PLAIN" --platform linux/amd64 --json r2.json
	[ "$status" -eq 1 ]
	image_results r2.json | grep -v ' pass$' | cut -d' ' -f1 > failed
	printf '%s\n' "image.$PLAIN/$R/multi:v1.platform" \
	    "image.$PLAIN/$R/multi:v1.platform_digest" \
	    "image.$PLAIN/$R/multi:v1.config_digest" | sort > want
	diff want <(sort failed)
}

@test "a golden from before meta.images: check without --image reports the facts missing, as before" {
	push_images
	"$EP" capture -q --no-discover --site-packages sp \
	    --insecure-registry "$PLAIN" --image "$PLAIN/$R/app:v1" -o m.json
	jq 'del(.meta.images)' m.json > old.json
	"$EP" bless -q old.json >/dev/null
	before=$(wc -l <"$PLAIN_LOG")
	run "$EP" check -q --no-discover --site-packages sp \
	    --insecure-registry "$PLAIN" --json r.json
	[ "$status" -eq 1 ]
	image_results r.json > got
	[ "$(wc -l < got)" -eq 5 ]
	[ "$(grep -c ' fail$' got)" -eq 5 ]
	[ "$(jq -r --arg k "image.$PLAIN/$R/app:v1.digest" \
	    '.results[] | select(.key == $k) | .message' r.json)" = "image.$PLAIN/$R/app:v1.digest: expected $V1, missing here" ]
	# Nothing was asked of the registry.
	sleep 0.3
	[ "$(wc -l <"$PLAIN_LOG")" -eq "$before" ]
	# With --image, parity for the image, as before.
	run "$EP" check -q --no-discover --site-packages sp \
	    --insecure-registry "$PLAIN" --image "$PLAIN/$R/app:v1" --json r2.json
	[ "$status" -le 1 ]
	[ "$(image_results r2.json | grep -c ' pass$')" -eq 5 ]
}

@test "a malformed meta.images in the golden: exit 2 naming the golden and the entry" {
	mkdir sp
	"$EP" capture -q --no-discover --site-packages sp -o m.json
	for bad in '"x"' '[{"ref": 1}]' '[{"ref": "Bad:x"}]' \
	    '[{"ref": "a/b:1", "platform": "Linux"}]'; do
		jq --argjson b "$bad" '.meta.images = $b' m.json > g.json
		"$EP" bless -q g.json >/dev/null
		run "$EP" check -q --no-discover --site-packages sp
		echo "$bad: $output"
		[ "$status" -eq 2 ]
		[ "${#lines[@]}" -eq 1 ]
		[[ "$output" == "envparity check: "*"default/manifest.json: meta.images"* ]]
	done
	[[ "$output" == *"meta.images[0].platform: expected OS/ARCH"* ]]
}

@test "credentials stay out of the manifest; the auth file given to check is used" {
	push_images
	reg_start "$T/auth" htpasswd alice:s3cr3t-pw || return 1
	local ah=$REG_HOST
	REG_PUSH_USER=alice:s3cr3t-pw reg_push_image "$ah" priv v1 >/dev/null
	printf '{"auths":{"%s":{"auth":"%s"}}}' "$ah" \
	    "$(printf alice:s3cr3t-pw | base64)" > auth.json
	# A reference with a user part is not a reference at all.
	run "$EP" capture -q --no-discover --site-packages sp \
	    --insecure-registry "$ah" --image "alice:s3cr3t-pw@$ah/priv:v1" -o m.json
	[ "$status" -eq 2 ]
	[ ! -e m.json ]
	"$EP" bless -q --no-discover --site-packages sp --insecure-registry "$ah" \
	    --registry-auth-file auth.json --image "$ah/priv:v1" >/dev/null
	golden > g.json
	! grep -q -e s3cr3t -e alice -e "$(printf alice:s3cr3t-pw | base64)" -e auth.json g.json || false
	[ "$(jq -c .meta.images g.json)" = "[{\"ref\":\"$ah/priv:v1\"}]" ]
	run "$EP" check -q --no-discover --site-packages sp \
	    --insecure-registry "$ah" --registry-auth-file auth.json --json r.json
	[ "$status" -le 1 ]
	[ "$(image_results r.json | grep -c ' pass$')" -eq 5 ]
	# Without the credentials: denied, exit 3.
	echo '{"auths": {}}' > none.json
	run "$EP" check -q --no-discover --site-packages sp \
	    --insecure-registry "$ah" --registry-auth-file none.json
	echo "$output"
	[ "$status" -eq 3 ]
	[[ "$output" == *"$ah/priv:v1: registry $ah: authentication required (401)"*"(an image the golden manifest recorded)" ]]
}

# Commit a policy beside the golden in the default store.
commit_policy() { # policy-json
	git clone -q .envparity/store "$T/wt"
	printf '%s\n' "$1" > "$T/wt/default/policy.json"
	git -C "$T/wt" add default/policy.json
	git -C "$T/wt" -c user.name=t -c user.email=t@x commit -qm policy
	git -C "$T/wt" push -q origin HEAD
	rm -rf "$T/wt"
}

@test "a golden image whose every fact the policy ignores is not resolved; one fact compared is enough to resolve it" {
	push_images
	reg_start "$T/down" || return 1
	local down=$REG_HOST pid=$REG_PID
	reg_push_image "$down" app v1 >/dev/null
	"$EP" bless -q --no-discover --site-packages sp \
	    --insecure-registry "$PLAIN" --insecure-registry "$down" \
	    --image "$down/app:v1" --image "$PLAIN/$R/app:v1" >/dev/null
	kill "$pid"
	wait "$pid" 2>/dev/null || true
	commit_policy "{\"schema\": \"envparity/policy@1\", \"rules\": [{\"key\": \"image.$down/*\", \"rule\": \"ignore\"}]}"
	run "$EP" check -q --no-discover --site-packages sp \
	    --insecure-registry "$PLAIN" --insecure-registry "$down" \
	    --json r.json -o cur.json
	echo "$output"
	[ "$status" -le 1 ]
	[ "$(image_results r.json | grep -c ' pass$')" -eq 5 ]
	[ "$(image_results r.json | wc -l)" -eq 5 ]
	[ "$(jq -c '[.meta.images[].ref]' cur.json)" = "[\"$PLAIN/$R/app:v1\"]" ]
	# Ignoring all but the digest: resolved, and the registry is down.
	commit_policy "{\"schema\": \"envparity/policy@1\", \"rules\": [{\"key\": \"image.$down/app:v1.digest\", \"rule\": \"exact\"}, {\"key\": \"image.$down/*\", \"rule\": \"ignore\"}]}"
	run "$EP" check -q --no-discover --site-packages sp \
	    --insecure-registry "$PLAIN" --insecure-registry "$down"
	[ "$status" -eq 3 ]
	[[ "$output" == *"$down/app:v1: registry $down: "*"(an image the golden manifest recorded)" ]]
}

@test "bless without --image keeps the golden's images (resolved again); with --image, the images named are the golden's" {
	push_images
	run "$EP" bless -q --no-discover --site-packages sp \
	    --insecure-registry "$PLAIN" --image "$PLAIN/$R/app:v1"
	[ "$status" -eq 0 ]
	# The tag moves; a bless without --image resolves it again and
	# records where it points now.
	retag_v1
	run "$EP" bless --dry-run --no-discover --site-packages sp \
	    --insecure-registry "$PLAIN"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"~ image.$PLAIN/$R/app:v1.digest: $V1 -> $OTHER"* ]]
	[[ "$output" != *"- image."* ]]
	run "$EP" bless -q --no-discover --site-packages sp \
	    --insecure-registry "$PLAIN"
	[ "$status" -eq 0 ]
	golden > g.json
	[ "$(jq -c .meta.images g.json)" = "[{\"ref\":\"$PLAIN/$R/app:v1\"}]" ]
	[ "$(fact g.json "image.$PLAIN/$R/app:v1.digest")" = "$OTHER" ]

	# --image names the images: the golden's other one is not kept.
	run "$EP" bless -q --no-discover --site-packages sp \
	    --insecure-registry "$PLAIN" --image "$PLAIN/$R/app:other"
	[ "$status" -eq 0 ]
	golden > g2.json
	[ "$(jq -c .meta.images g2.json)" = "[{\"ref\":\"$PLAIN/$R/app:other\"}]" ]
	[ -z "$(fact g2.json "image.$PLAIN/$R/app:v1.digest")" ]

	# A registry that is down stops a bless without --image as it stops
	# check: nothing committed.
	reg_start "$T/down" || return 1
	local down=$REG_HOST pid=$REG_PID
	reg_push_image "$down" app v1 >/dev/null
	run "$EP" bless -q --no-discover --site-packages sp \
	    --insecure-registry "$down" --image "$down/app:v1"
	[ "$status" -eq 0 ]
	head=$(git --git-dir=.envparity/store rev-parse main)
	kill "$pid"
	wait "$pid" 2>/dev/null || true
	run "$EP" bless -q --no-discover --site-packages sp \
	    --insecure-registry "$down" --registry-timeout 2
	echo "$output"
	[ "$status" -eq 3 ]
	[[ "$output" == *"$down/app:v1"*"(an image the golden manifest recorded)"* ]]
	[ "$(git --git-dir=.envparity/store rev-parse main)" = "$head" ]
}
