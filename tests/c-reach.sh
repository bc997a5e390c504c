#!/usr/bin/env bash
# tests/c-reach.sh: which bats tests run envparity's own binaries.
#
#   tests/c-reach.sh [--jobs N] [FILE.bats...]   (default: tests/san.list)
#
# The sanitizer pass (tests/run.sh) runs the bats files of tests/san.list
# a second time, under ASan and UBSan; a test there that never starts
# envparity or envparity-probe (one that only validates YAML, or builds
# the tarball and runs its own build) spends that time for nothing, and
# is tagged `# bats test_tags=plain-only` so that the pass leaves it out.
# This script finds them: it runs each file with wrappers in place of the
# two binaries that log the test that started them (the nearest
# bats-exec-test above them, whatever the test did to the environment)
# and then run the real one, and prints per file the tests
# that never did, and the tests tagged plain-only that did (a tag that is
# wrong).  It changes nothing; it needs build/ (make).
set -u
cd "$(dirname "$0")/.."
top=$PWD
jobs=$(nproc 2>/dev/null || echo 2)
if [ "${1:-}" = --jobs ]; then
	jobs=$2
	shift 2
fi
files=("$@")
if [ ${#files[@]} -eq 0 ]; then
	while read -r f; do files+=("tests/cli/$f"); done < <(sed 's/#.*//; s/[[:space:]]*$//; /^$/d' tests/san.list)
fi
[ -x build/envparity ] && [ -x build/envparity-probe ] || { echo "c-reach: make first" >&2; exit 2; }

work=$(mktemp -d "${TMPDIR:-/tmp}/envparity-creach.XXXXXX")
trap 'rm -rf "$work"' EXIT
chmod 755 "$work"
mkdir -m 1777 "$work/log"
# A build folder of links, but for the two binaries.
mkdir "$work/build"
for f in build/*; do ln -s "$top/$f" "$work/build/${f#build/}"; done
for b in envparity envparity-probe; do
	rm -f "$work/build/$b"
	cat >"$work/build/$b" <<WRAP
#!/bin/bash
# The test is the nearest bats-exec-test above: its arguments are
# flags, the file, the test's name, its number in the suite and in the file.
p=\$\$ hit=
while [ -z "\$hit" ] && [ "\$p" -gt 1 ] 2>/dev/null; do
	mapfile -d '' a </proc/\$p/cmdline 2>/dev/null
	for ((i = 0; i < \${#a[@]}; i++)); do
		[[ \${a[i]} == */bats-exec-test ]] || continue
		for ((i++; i < \${#a[@]}; i++)); do [[ \${a[i]} == --* ]] || break; done
		hit="\${a[i]##*/} \${a[i+3]}"
		break
	done
	p=\$(awk '/^PPid:/ { print \$2 }' /proc/\$p/status 2>/dev/null)
done
echo "\${hit:-outside a test}" >>"$work/log/hits" 2>/dev/null
exec "$top/build/$b" "\$@"
WRAP
	chmod 755 "$work/build/$b"
done
touch "$work/log/hits" && chmod 666 "$work/log/hits"

one() { # file
	local out
	out=$work/${1##*/}.tap
	EP_BIN=$work/build/envparity EP_BUILD=$work/build bats --tap "$1" >"$out" 2>&1
}
export -f one
export work
printf '%s\n' "${files[@]}" | xargs -P "$jobs" -I{} bash -c 'one {}'

# Each test by its number in the file (bats numbers them in order when
# nothing is filtered), and whether it is tagged plain-only.
for f in "${files[@]}"; do
	n=${f##*/}
	grep -q '^not ok' "$work/$n.tap" &&
	    echo "$n: some tests failed under the wrappers (their result here is not theirs)" >&2
	awk -v n="$n" '
	/^[[:blank:]]*#[[:blank:]]*bats[[:blank:]]+test_tags=/ { tag = ($0 ~ /plain-only/) }
	/^[[:blank:]]*@test[[:blank:]]/ {
		d = $0; sub(/^[[:blank:]]*@test[[:blank:]]+/, "", d); sub(/[[:blank:]]*\{[[:blank:]]*$/, "", d)
		print n, ++k, tag ? "tagged" : "-", d
		tag = 0
	}' "$f"
done >"$work/tests"
while read -r n k tag d; do
	if grep -qxF "$n $k" "$work/log/hits"; then
		[ "$tag" = tagged ] && echo "$n: tagged plain-only but runs envparity: $d"
	else
		[ "$tag" = tagged ] || echo "$n: runs no envparity binary: $d"
	fi
done <"$work/tests"
