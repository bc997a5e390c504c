#!/usr/bin/env bats
# The hash cache through the real binary: an unchanged file is not read
# again, a rewritten one always is (even with the same size and mtime),
# --no-cache bypasses the cache without touching it, and a cache that is
# damaged or cannot be written never fails a capture.
#
# The files are dated 2020 with touch -d, but touch sets their ctime to
# now, and the cache refuses files changed within 2 seconds (git's racy
# rule), so they are made once for the whole file, 3 seconds before the
# first test.  Each test still has its own empty cache (setup.bash).

load setup
# The cache itself is what these tests look at: each starts empty.
EP_TEST_COLD_CACHE=1

# Two files to capture as lockfiles in DIR: a pinned requirements file
# and a binary blob larger than the hasher's buffer.
make_files() { # dir
	mkdir -p "$1"
	printf 'numpy==1.26.4\nscipy==1.11.4\n' >"$1/requirements.txt"
	head -c 3000000 /dev/urandom >"$1/blob.bin"
	touch -d '2020-01-01' "$1/requirements.txt" "$1/blob.bin"
}

setup_file() {
	make_files "$BATS_FILE_TMPDIR/shared"	# never modified
	make_files "$BATS_FILE_TMPDIR/rewrite"	# the one test that does
	sleep 3
}

# Capture the two files of the current directory into $T/OUT.
capture() { # out [extra options...]
	local out=$1
	shift
	run "$EP" capture -q --no-discover --lockfile requirements.txt \
		--artifact blob.bin -o "$T/$out" "$@"
	[ "$status" -eq 0 ]
}

hashing() { # file field
	jq -r ".meta.hashing.$2" "$T/$1"
}

sha() { # path
	sha256sum "$1" | cut -d' ' -f1
}

@test "a second capture of unchanged files hashes nothing" {
	cd "$BATS_FILE_TMPDIR/shared"
	capture m1.json
	[ "$(hashing m1.json files)" -ge 2 ]
	[ "$(hashing m1.json bytes_hashed)" -ge 3000000 ]
	[ -s "$XDG_CACHE_HOME/envparity/cache-v1" ]

	capture m2.json
	[ "$(hashing m2.json bytes_hashed)" -eq 0 ]
	[ "$(hashing m2.json cached)" -eq "$(hashing m2.json files)" ]
	[ "$(fact "$T/m2.json" artifact.blob.bin.sha256)" = "$(sha blob.bin)" ]
	[ "$(fact "$T/m2.json" lockfile.requirements.txt.sha256)" = \
	  "$(sha requirements.txt)" ]
	[ "$(fact "$T/m2.json" lockfile.requirements.txt.pin.numpy)" = 1.26.4 ]
}

@test "a file rewritten with the same size and mtime is hashed again" {
	cd "$BATS_FILE_TMPDIR/rewrite"
	capture m1.json
	old=$(fact "$T/m1.json" artifact.blob.bin.sha256)
	ino=$(stat -c %i blob.bin)
	size=$(stat -c %s blob.bin)

	# Same inode, same size, mtime put back: only the ctime tells.
	head -c "$size" /dev/urandom | dd of=blob.bin conv=notrunc status=none
	touch -d '2020-01-01' blob.bin
	[ "$(stat -c %i blob.bin)" = "$ino" ]
	[ "$(stat -c %s blob.bin)" = "$size" ]
	[ "$(stat -c %Y blob.bin)" = "$(date -d 2020-01-01 +%s)" ]

	capture m2.json
	new=$(fact "$T/m2.json" artifact.blob.bin.sha256)
	[ "$new" != "$old" ]
	[ "$new" = "$(sha blob.bin)" ]
	[ "$(hashing m2.json bytes_hashed)" -ge "$size" ]
	# The unchanged requirements file still came from the cache.
	[ "$(hashing m2.json cached)" -ge 1 ]
}

@test "--no-cache hashes everything and leaves the cache alone" {
	cd "$BATS_FILE_TMPDIR/shared"
	capture m1.json
	cache=$XDG_CACHE_HOME/envparity/cache-v1
	cp -p "$cache" "$T/before"
	before_ino=$(stat -c %i "$cache")

	capture m2.json --no-cache
	[ "$(hashing m2.json cached)" -eq 0 ]
	[ "$(hashing m2.json bytes_hashed)" -ge 3000000 ]
	[ "$(fact "$T/m2.json" artifact.blob.bin.sha256)" = "$(sha blob.bin)" ]
	cmp "$cache" "$T/before"
	[ "$(stat -c %i "$cache")" = "$before_ino" ]
}

@test "--no-cache on a fresh machine creates no cache" {
	cd "$BATS_FILE_TMPDIR/shared"
	capture m.json --no-cache
	[ ! -e "$XDG_CACHE_HOME/envparity" ]
}

@test "a corrupt cache file is read as empty and then rewritten" {
	cd "$BATS_FILE_TMPDIR/shared"
	mkdir -p "$XDG_CACHE_HOME/envparity"
	head -c 5000 /dev/urandom >"$XDG_CACHE_HOME/envparity/cache-v1"

	capture m1.json
	[ "$(hashing m1.json cached)" -eq 0 ]
	[ "$(fact "$T/m1.json" artifact.blob.bin.sha256)" = "$(sha blob.bin)" ]
	# Read as empty without a word: the cache only ever saves time.
	run jq -e '[.meta.warnings // [] | .[] | select(test("cache"))]
	    | length == 0' "$T/m1.json"
	[ "$status" -eq 0 ]

	capture m2.json
	[ "$(hashing m2.json bytes_hashed)" -eq 0 ]
}

@test "a cache file cut short is read as empty" {
	cd "$BATS_FILE_TMPDIR/shared"
	capture m1.json
	cache=$XDG_CACHE_HOME/envparity/cache-v1
	truncate -s -10 "$cache"

	capture m2.json
	[ "$(hashing m2.json cached)" -eq 0 ]
	[ "$(fact "$T/m2.json" artifact.blob.bin.sha256)" = "$(sha blob.bin)" ]
}

@test "a cache directory that cannot be created is a warning, not a failure" {
	cd "$BATS_FILE_TMPDIR/shared"
	# A regular file where the cache directory's parent should be.
	: >"$T/not-a-dir"
	export XDG_CACHE_HOME=$T/not-a-dir
	capture m.json
	[ "$(fact "$T/m.json" artifact.blob.bin.sha256)" = "$(sha blob.bin)" ]
	run jq -r '.meta.warnings[]' "$T/m.json"
	[[ "$output" == *"cache not used: $T/not-a-dir/envparity: cannot create: Not a directory"* ]]

	# Without -q the warning reaches standard error too.
	run "$EP" capture --no-discover --artifact blob.bin -o "$T/m2.json"
	[ "$status" -eq 0 ]
	[[ "$output" == *"cache not used: $T/not-a-dir/envparity: cannot create: Not a directory"* ]]
}

@test "a directory where the cache file should be is a warning, not a failure" {
	cd "$BATS_FILE_TMPDIR/shared"
	mkdir -p "$XDG_CACHE_HOME/envparity/cache-v1"
	capture m.json
	[ "$(hashing m.json cached)" -eq 0 ]
	[ "$(fact "$T/m.json" artifact.blob.bin.sha256)" = "$(sha blob.bin)" ]
	run jq -r '.meta.warnings[]' "$T/m.json"
	[[ "$output" == *"cache not saved: $XDG_CACHE_HOME/envparity/cache-v1: refused: a directory, not a regular file"* ]]
}
