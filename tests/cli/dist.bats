#!/usr/bin/env bats
# dist.bats: `make dist` makes envparity-VERSION.tar.gz of HEAD under one
# top folder envparity-VERSION/, and that tarball, unpacked where there
# is no git checkout, builds with warnings as errors and passes a subset
# of the tests (the layout check, install, the manual page and
# completions, verdicts, the store, and unit tests).
#
# The tarball is made of what is committed: a change not yet committed is
# not in it.  Run from an unpacked tarball (no .git), it skips: a tarball
# is made from a checkout.

load setup

setup_file() {
	git -C "$BATS_TEST_DIRNAME/../.." rev-parse --verify -q HEAD >/dev/null 2>&1 ||
	    skip "not a git checkout"
}

@test "make dist: envparity-VERSION.tar.gz of HEAD, one top folder, the same bytes twice" {
	v=$(make -s -C "$REPO_ROOT" version)
	[ "$v" = "$("$EP" --version | sed 's/^envparity //')" ]
	make -s -C "$REPO_ROOT" dist DISTDIR="$T/a" >/dev/null
	make -s -C "$REPO_ROOT" dist DISTDIR="$T/b" >/dev/null
	cmp "$T/a/envparity-$v.tar.gz" "$T/b/envparity-$v.tar.gz"
	tar -tzf "$T/a/envparity-$v.tar.gz" >list
	# Every entry under envparity-VERSION/, no .git, and what a build
	# and its tests need.
	! grep -v "^envparity-$v/" list
	! grep -E '(^|/)\.git(/|$)' list
	! grep -qx "envparity-$v/.gitattributes" list
	for f in Makefile .ci/run run-tests tools/deps.sh checker/util/version.h \
	    man/envparity.1 completions/envparity.bash completions/_envparity \
	    manifests/manifest.schema.json tests/run.sh; do
		grep -qx "envparity-$v/$f" list || { echo "missing $f"; false; }
	done
	# What git tracks is there, but for what .gitattributes leaves out.
	git -C "$REPO_ROOT" ls-files | grep -vx .gitattributes | sed "s|^|envparity-$v/|" | sort >tracked
	grep -v '/$' list | sort >shipped
	diff tracked shipped
}

@test "the tarball builds outside any git checkout and passes a subset of the tests there" {
	v=$(make -s -C "$REPO_ROOT" version)
	make -s -C "$REPO_ROOT" dist DISTDIR="$T" >/dev/null
	mkdir src && tar -C src -xzf "$T/envparity-$v.tar.gz"
	cd "src/envparity-$v"
	[ ! -e .git ]
	# Not inside a checkout either: git finds no repository here.
	! GIT_CEILING_DIRECTORIES=$T git rev-parse --git-dir 2>/dev/null
	make -s -j2 WERROR=1 all >"$T/build.log" 2>&1 || { cat "$T/build.log"; false; }
	run build/envparity --version
	[ "$output" = "envparity $v" ]
	# The tarball holds exactly what git tracks (the test above), so the
	# suite's own run covers the rest: here, that the test loop works
	# outside a checkout, with a bats file and unit tests of each kind.
	for p in cli/install verdicts test_version test_manifest; do
		run env GIT_CEILING_DIRECTORIES="$T" tests/run.sh --no-san --only "$p"
		echo "$output" | tail -n 20
		[ "$status" -eq 0 ]
		[[ "${lines[-1]}" =~ ^[1-9][0-9]*\ passed,\ 0\ failed$ ]]
	done
}
