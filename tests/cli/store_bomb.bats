#!/usr/bin/env bats
# store_bomb.bats: one size limit for a golden manifest, on both sides.  A
# store is input: a small compressed blob can inflate to any size, so
# check learns an object's size from its header and refuses it before
# inflating anything; and bless refuses a manifest that check would
# refuse, so nothing it commits is unreadable.

load setup

setup_file() {
	export ENVPARITY_AUTHOR="Ada Lovelace <ada@example.org>"
	unset ENVPARITY_STORE ENVPARITY_PROFILE
}

LIMIT=$((64 << 20))

# Commit blob (an object id) as PROFILE/FILE on main of the bare store.
commit_blob() { # store profile file blob
	local sub root c
	sub=$(printf '100644 blob %s\t%s\n' "$4" "$3" | git --git-dir="$1" mktree)
	root=$(printf '040000 tree %s\t%s\n' "$sub" "$2" | git --git-dir="$1" mktree)
	c=$(git --git-dir="$1" -c user.name=X -c user.email=x@y commit-tree \
	    "$root" -m bomb)
	git --git-dir="$1" update-ref refs/heads/main "$c"
}

# Peak resident memory of a command, in KiB, from GNU time.
peak_kib() {
	sed -n 's/^[[:space:]]*Maximum resident set size (kbytes): //p' "$1"
}

@test "a blob bomb in the store: check refuses it from its header, in little memory" {
	git init -q --bare -b main s.git
	# 96 MiB of spaces, under 1 MiB on disk.
	blob=$(head -c $((96 << 20)) /dev/zero | tr '\0' ' ' |
	    git --git-dir=s.git hash-object -w --stdin)
	commit_blob s.git default manifest.json "$blob"
	[ "$(du -sk s.git | cut -f1)" -lt 2048 ]
	head=$(git --git-dir=s.git rev-parse --short=12 main)

	run /usr/bin/time -v -o time.txt "$EP" check --store s.git --no-discover
	# Well under the blob's size: it was never inflated.
	[ "$(peak_kib time.txt)" -lt $((48 << 10)) ]
	[ "$status" -eq 2 ]
	[ "${#lines[@]}" -eq 1 ]
	[ "$output" = "envparity check: store s.git: default/manifest.json at $head is too large ($((96 << 20)) bytes; the limit is $LIMIT)" ]

	# The same for log and diff, and for a policy.
	run "$EP" log --store s.git
	[ "$status" -eq 2 ]
	[[ "$output" == *"default/manifest.json at $head is too large"* ]]
	run "$EP" diff "s.git#main:default" s.git
	[ "$status" -eq 2 ]
	[[ "$output" == *"is too large"* ]]
	commit_blob s.git p policy.json "$blob"
	run "$EP" check --store s.git --profile p --no-discover
	[ "$status" -eq 2 ]
	[[ "$output" == *"p/policy.json at "*" is too large"* ]]
}

@test "bless refuses a manifest larger than check would read; nothing is committed" {
	git init -q --bare -b main s.git
	# Compact on disk, past the limit once written in canonical form.
	python3 - "$LIMIT" <<'EOF' >big.json
import json, sys
n = 200000
width = (int(sys.argv[1]) - 3 * n) // n - 14	# 6 bytes a fact short
facts = {"k.%06d" % i: "v" * width for i in range(n)}
json.dump({"schema": "envparity/manifest@1", "meta": {}, "facts": facts},
          sys.stdout, separators=(",", ":"))
EOF
	[ "$(stat -c %s big.json)" -lt "$LIMIT" ]
	run "$EP" bless --store s.git big.json
	[ "$status" -eq 2 ]
	[ "${#lines[@]}" -eq 1 ]
	[[ "$output" =~ ^envparity\ bless:\ big.json\ is\ too\ large\ for\ the\ store\ \([0-9]+\ bytes\;\ the\ limit\ is\ $LIMIT\)$ ]]
	[ -z "$(git --git-dir=s.git for-each-ref)" ]
	[ -z "$(find s.git/objects -type f)" ]
	# The default store is not even created.
	run "$EP" bless big.json
	[ "$status" -eq 2 ]
	[ ! -e .envparity ]
}
