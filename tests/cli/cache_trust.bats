#!/usr/bin/env bats
# cache_trust.bats: the hash cache can make a trojaned file report the
# golden SHA-256, because its checksum has no secret (cache_poison.py
# forges an entry the way an attacker would).  So envparity only trusts a
# cache directory that is its user's and that nobody else can write, in a
# parent nobody else can swap it out of; anything else is not used, and a
# warning says why.  --no-cache ignores it altogether.

load setup
# The cache itself is what these tests look at: each starts empty.
EP_TEST_COLD_CACHE=1

POISON=$BATS_TEST_DIRNAME/cache_poison.py
FORGED=0000000000000000000000000000000000000000000000000000000000000bad

# A lockfile with a settled timestamp (the cache never holds a file that
# changed in the last two seconds), and its real hash.
lockfile() {
	echo 'numpy==1.26.4' > requirements.txt
	touch -d '2 minutes ago' requirements.txt
	REAL=$(sha256sum requirements.txt | cut -c1-64)
}

# The capture's hash of requirements.txt, and its warnings in w.txt.
captured() {
	"$EP" capture -q --no-discover --lockfile requirements.txt \
	    --site-packages "$T/site" "$@" > m.json
	jq -r '.meta.warnings // [] | .[]' m.json > w.txt
	fact m.json lockfile.requirements.txt.sha256
}


@test "a fresh cache is made private: the directory 0700, the file 0600" {
	mkdir site
	lockfile
	umask 022
	[ "$(captured)" = "$REAL" ]
	[ "$(stat -c %a "$XDG_CACHE_HOME/envparity")" = 700 ]
	[ "$(stat -c %a "$XDG_CACHE_HOME/envparity/cache-v1")" = 600 ]
}

@test "an entry forged in our own private cache is believed: the rules below are what protect it" {
	mkdir site
	lockfile
	captured > /dev/null
	"$POISON" "$XDG_CACHE_HOME/envparity/cache-v1" requirements.txt "$FORGED"
	[ "$(captured)" = "$FORGED" ]
	# --no-cache, for gates on shared runners, reads none of it.
	[ "$(captured --no-cache)" = "$REAL" ]
}

@test "a cache directory others can write is not used, and a warning says why" {
	mkdir site
	lockfile
	captured > /dev/null
	"$POISON" "$XDG_CACHE_HOME/envparity/cache-v1" requirements.txt "$FORGED"
	chmod 777 "$XDG_CACHE_HOME/envparity"
	before=$(sha256sum < "$XDG_CACHE_HOME/envparity/cache-v1")
	[ "$(captured)" = "$REAL" ]
	grep -q "^cache not used: $XDG_CACHE_HOME/envparity: writable by group or others (mode 0777) (everything is hashed again)$" w.txt
	# Nor is anything written there.
	[ "$(sha256sum < "$XDG_CACHE_HOME/envparity/cache-v1")" = "$before" ]
}

@test "a cache directory owned by another user is not used" {
	[ "$(id -u)" = 0 ] || skip "chown needs root"
	mkdir site
	lockfile
	captured > /dev/null
	"$POISON" "$XDG_CACHE_HOME/envparity/cache-v1" requirements.txt "$FORGED"
	chown -R 65534 "$XDG_CACHE_HOME/envparity"
	[ "$(captured)" = "$REAL" ]
	grep -q "cache not used: $XDG_CACHE_HOME/envparity: owned by uid 65534, not by this user (uid 0)" w.txt
}

@test "a cache file owned by another user is not read" {
	[ "$(id -u)" = 0 ] || skip "chown needs root"
	mkdir site
	lockfile
	captured > /dev/null
	"$POISON" "$XDG_CACHE_HOME/envparity/cache-v1" requirements.txt "$FORGED"
	chown 65534 "$XDG_CACHE_HOME/envparity/cache-v1"
	[ "$(captured)" = "$REAL" ]
}

@test "a cache file others can write is not read" {
	mkdir site
	lockfile
	captured > /dev/null
	"$POISON" "$XDG_CACHE_HOME/envparity/cache-v1" requirements.txt "$FORGED"
	chmod 666 "$XDG_CACHE_HOME/envparity/cache-v1"
	[ "$(captured)" = "$REAL" ]
}

@test "a cache in a directory others can write (not sticky) is not used" {
	mkdir site
	lockfile
	captured > /dev/null
	"$POISON" "$XDG_CACHE_HOME/envparity/cache-v1" requirements.txt "$FORGED"
	chmod 777 "$XDG_CACHE_HOME"
	[ "$(captured)" = "$REAL" ]
	grep -q "cache not used: $XDG_CACHE_HOME: writable by group or others and not sticky (mode 0777)" w.txt
	# Sticky, like /tmp: our own directory in it is ours to trust.
	chmod 1777 "$XDG_CACHE_HOME"
	[ "$(captured)" = "$FORGED" ]
}

@test "a cache directory planted as a link is not followed" {
	mkdir site elsewhere
	lockfile
	ln -s "$T/elsewhere" "$XDG_CACHE_HOME/envparity" 2>/dev/null || {
		mkdir -p "$XDG_CACHE_HOME"; ln -s "$T/elsewhere" "$XDG_CACHE_HOME/envparity"; }
	[ "$(captured)" = "$REAL" ]
	grep -q "cache not used: $XDG_CACHE_HOME/envparity: a symbolic link, not a directory" w.txt
	[ -z "$(ls -A elsewhere)" ]
}
