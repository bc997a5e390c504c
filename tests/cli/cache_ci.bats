#!/usr/bin/env bats
# cache_ci.bats: in CI the hash cache is the job's own unless one is named.
# A pull request's code that ran earlier as the runner's user (a previous
# job on a self-hosted runner) can plant an entry in the default cache,
# ~/.cache/envparity, that makes a changed library report the golden
# SHA-256 (cache_poison.py forges it).  With CI, GITHUB_ACTIONS,
# GITLAB_CI, JENKINS_URL, ... set, whatever runs envparity, that cache is
# not read and nothing is written there: answers are kept for this run
# alone.  A cache named with XDG_CACHE_HOME is kept between runs, under
# the ownership rules cache_trust.bats shows.

load setup
# The cache itself is what these tests look at: each starts empty.
EP_TEST_COLD_CACHE=1

POISON=$BATS_TEST_DIRNAME/cache_poison.py
CUDART=/usr/local/cuda/lib64/libcudart.so.13

# A real cudart in a folder of its own, settled (the cache keeps nothing
# changed in the last two seconds), found first with --lib-path; GOLDEN
# its SHA-256.  Then the job under test changes it (REAL is the changed
# file's hash) and plants an entry saying it still hashes to GOLDEN in
# the default cache of the runner's user.
changed_library() {
	[ -e "$CUDART" ] || skip "no $CUDART here"
	mkdir -p lib site
	cp "$CUDART" lib/
	touch -d '2 minutes ago' lib/libcudart.so.13
	GOLDEN=$(sha256sum lib/libcudart.so.13 | cut -c1-64)
	printf 'trojan' >>lib/libcudart.so.13
	REAL=$(sha256sum lib/libcudart.so.13 | cut -c1-64)
	[ "$REAL" != "$GOLDEN" ]
	unset XDG_CACHE_HOME
	DEFAULT=$HOME/.cache/envparity
	mkdir -p -m 700 "$HOME/.cache" "$DEFAULT"
	"$POISON" "$DEFAULT/cache-v1" lib/libcudart.so.13 "$GOLDEN"
	PLANTED=$(sha256sum <"$DEFAULT/cache-v1")
}

# The capture's lib.cudart.sha256; the manifest in m.json.
cudart() {
	"$EP" capture -q --no-discover --site-packages "$T/site" \
	    --lib-path "$T/lib" "$@" >m.json
	[ "$(jq -r '.facts["lib.cudart.path"]' m.json)" = "$T/lib/libcudart.so.13" ]
	jq -r '.facts["lib.cudart.sha256"]' m.json
}

@test "outside CI the planted entry is believed: the attack this guards against" {
	changed_library
	[ "$(cudart)" = "$GOLDEN" ]
	[ "$(jq -r .meta.hashing.cache m.json)" = kept ]
	# CI=false and CI=0 are not CI.
	[ "$(CI=false cudart)" = "$GOLDEN" ]
	[ "$(CI=0 cudart)" = "$GOLDEN" ]
}

@test "in CI the default cache is not read: a changed library reports its real SHA-256, and nothing is written there" {
	changed_library
	for ci in CI=true GITHUB_ACTIONS=true GITLAB_CI=true \
	    JENKINS_URL=https://ci.example.com/ TF_BUILD=True; do
		[ "$(export "$ci"; cudart)" = "$REAL" ]
		[ "$(jq -r .meta.hashing.cache m.json)" = run ]
		[ "$(jq -r '.meta.warnings // [] | length' m.json)" = 0 ]
	done
	[ "$(sha256sum <"$DEFAULT/cache-v1")" = "$PLANTED" ]
	# A relative XDG_CACHE_HOME names nothing: still this run's own.
	[ "$(CI=true XDG_CACHE_HOME=rel cudart)" = "$REAL" ]
	[ ! -e rel ]
	# check judges the real file: drift against a golden of the original.
	manifest g.json "$(jq -n --arg s "$GOLDEN" '{"lib.cudart.sha256": $s}')"
	run "$EP" diff g.json m.json --json r.json
	[ "$status" -eq 1 ]
	[ "$(jq -r '.results[] | select(.key == "lib.cudart.sha256") | .status' r.json)" = fail ]
}

@test "in CI a cache named with XDG_CACHE_HOME is kept between runs, and trusted as its user's" {
	changed_library
	export CI=true XDG_CACHE_HOME=$T/named
	[ "$(cudart)" = "$REAL" ]
	[ "$(jq -r .meta.hashing.cache m.json)" = kept ]
	[ "$(stat -c %a "$XDG_CACHE_HOME/envparity/cache-v1")" = 600 ]
	# Warm: the second run takes the answers the first kept (the CUDA
	# libraries of /usr/local/cuda at least).
	[ "$(cudart)" = "$REAL" ]
	[ "$(jq -r .meta.hashing.cached m.json)" -ge 1 ]
	# Named, it is believed as any private cache of this user is (name
	# one that nothing the job under test runs can write) ...
	"$POISON" "$XDG_CACHE_HOME/envparity/cache-v1" lib/libcudart.so.13 "$GOLDEN"
	[ "$(cudart)" = "$GOLDEN" ]
	# ... --no-cache reads none of it ...
	[ "$(cudart --no-cache)" = "$REAL" ]
	[ "$(jq -r .meta.hashing.cache m.json)" = off ]
	# ... and one others can write is not used, with a warning.
	chmod 777 "$XDG_CACHE_HOME/envparity"
	[ "$(cudart)" = "$REAL" ]
	[ "$(jq -r .meta.hashing.cache m.json)" = off ]
	jq -r '.meta.warnings[]' m.json | grep -q "^cache not used: $XDG_CACHE_HOME/envparity: writable by group or others"
}
