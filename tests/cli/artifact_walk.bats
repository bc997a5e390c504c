#!/usr/bin/env bats
# artifact_walk.bats: an --artifact directory is the judged environment's,
# so its walk must survive whatever it holds: a chain of 5,000 links to
# folders and a tree thousands of folders deep are exit 2 in one line
# naming the artifact (never a crash, never a partial digest); up to the
# kernel's own limit of 40 links on the way to a file, and 1,024 folders
# down, the digest is the coreutils line's.

load setup

bats_require_minimum_version 1.5.0

cap() { # out [options...]
	local out=$1
	shift
	mkdir -p "$T/sp"
	run --separate-stderr "$EP" capture -q --no-discover \
	    --site-packages "$T/sp" -o "$out" "$@"
}

# The coreutils line of docs/manifest.md, as artifact.bats runs it.
DOC_LINE=$(grep -m1 -F '(cd DIR && ' "$REPO_ROOT/docs/manifest.md")
oneliner() { # dir
	[ -n "$DOC_LINE" ] || return 1
	(cd "$1" && bash -c "${DOC_LINE//DIR/.}") | cut -d' ' -f1
}

# DIR/d0 ... DIR/dN, each dI holding a link n -> ../dI+1, and dN a file:
# ./d0/n/n/.../n/f goes through N links.
chain() { # dir n
	python3 - "$1" "$2" <<-'PY'
	import os, sys
	top, n = sys.argv[1], int(sys.argv[2])
	for i in range(n + 1):
	    os.makedirs("%s/d%d" % (top, i))
	for i in range(n):
	    os.symlink("../d%d" % (i + 1), "%s/d%d/n" % (top, i))
	open("%s/d%d/f" % (top, n), "w").write("weights\n")
	PY
}

# A tree n folders deep (the top included), one file at the bottom.
deep() { # dir n
	python3 - "$1" "$2" <<-'PY'
	import os, sys
	os.mkdir(sys.argv[1])
	os.chdir(sys.argv[1])
	for _ in range(int(sys.argv[2]) - 1):
	    os.mkdir("a")
	    os.chdir("a")
	open("f", "w").write("x\n")
	PY
}

@test "a chain of 5,000 links to folders inside is exit 2 in one line at the 41st link, not a crash" {
	chain chain 5000
	cap out.json --artifact chain
	echo "status $status: $stderr" | cut -c1-400
	[ "$status" -eq 2 ]
	[ "$stderr" = "envparity capture: --artifact chain: $(realpath chain)/d40/n -> ../d41: more than 40 symbolic links on the way from the top (the kernel's limit, ELOOP; refused)" ]
	[ ! -e out.json ]
	# check stops the same way, before any verdict.
	"$EP" bless -q --no-discover --site-packages sp >/dev/null
	run --separate-stderr "$EP" check --no-discover --site-packages sp \
	    --artifact chain --json r.json
	[ "$status" -eq 2 ]
	[[ "$stderr" == "envparity check: --artifact chain: "*"more than 40 symbolic links"* ]]
	[ ! -e r.json ]
}

@test "40 links on the way to a file, as the kernel allows, are followed: the coreutils line's digest; 41 are refused, by find too" {
	chain c40 40
	cap out.json --artifact c40
	echo "$stderr"
	[ "$status" -eq 0 ]
	[ "$(fact out.json artifact.c40.sha256)" = "$(oneliner c40)" ]
	[ "$(fact out.json artifact.c40.files)" = 41 ]

	chain c41 41
	cap out.json --artifact c41
	[ "$status" -eq 2 ]
	[[ "$stderr" == *"/c41/d40/n -> ../d41: more than 40 symbolic links on the way from the top (the kernel's limit, ELOOP; refused)" ]]
	# The name it refuses is one the coreutils line cannot follow either.
	run bash -c 'cd c41 && find -L . -type f >/dev/null'
	[ "$status" -ne 0 ]
	[[ "$output" == *"Too many levels of symbolic links"* ]]
}

@test "a tree 3,000 folders deep is exit 2 in one short line naming it; 1,024 deep is hashed" {
	deep deep 3000
	cap out.json --artifact deep
	echo "status $status: $stderr" | cut -c1-400
	[ "$status" -eq 2 ]
	[[ "$stderr" == "envparity capture: --artifact deep: deep/a/a/"*"[...]"*"/a/a: more than 1024 directories deep (refused)" ]]
	[ "$(printf '%s' "$stderr" | wc -l)" -eq 0 ]
	[ "${#stderr}" -lt 300 ]
	[ ! -e out.json ]

	deep ok 1024
	cap out.json --artifact ok
	echo "$stderr"
	[ "$status" -eq 0 ]
	[ "$(fact out.json artifact.ok.files)" = 1 ]
	[ "$(fact out.json artifact.ok.sha256)" = "$(oneliner ok)" ]
	deep over 1025
	cap out.json --artifact over
	[ "$status" -eq 2 ]
	[[ "$stderr" == *": more than 1024 directories deep (refused)" ]]
}
