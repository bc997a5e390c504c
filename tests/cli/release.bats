#!/usr/bin/env bats
# release.bats: releases a team can pin.  Every pin of envparity in the
# docs, the README and ci/ (@vX.Y.Z, ref: vX.Y.Z, the image and package
# names) names the current version, which CHANGELOG.md has an entry for
# that says what a user must do; and `make release` (tools/release.sh),
# run on a scratch clone of this tree, refuses what it must, bumps the one
# version source and every file that follows it, commits and makes an
# annotated tag, pushing nothing.

load setup

# Every pin of a release in the files users copy from, one a line.
pins() { # tree
	(cd "$1" && grep -rhoE \
	    '(ci/github@|ref: |envparity:|releases/download/|envparity_|envparity-)v?[0-9]+\.[0-9]+\.[0-9]+' \
	    README.md docs ci)
}

# The files of this tree (committed or not, never ignored) in a new
# repository: a scratch clone that a release may commit to and tag.
scratch() { # dir
	git -C "$REPO_ROOT" rev-parse --git-dir >/dev/null 2>&1 ||
	    skip "not a git checkout: a release is made from one"
	mkdir -p "$1"
	git -C "$REPO_ROOT" ls-files -z --cached --others --exclude-standard |
	    (cd "$REPO_ROOT" && tar --null --ignore-failed-read -T - -cf -) |
	    tar -C "$1" -xf -
	git -C "$1" init -q -b main
	git -C "$1" config user.name "Rel Ease"
	git -C "$1" config user.email rel@example.org
	git -C "$1" add -A
	git -C "$1" commit -q -m tree
}

rel() { # the release script in the scratch clone s
	(cd s && tools/release.sh "$@")
}

@test "every pin in the docs, the README and ci/ names the current version, which the changelog says what to do about" {
	v=$(make -s -C "$REPO_ROOT" version)
	run pins "$REPO_ROOT"
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -ge 10 ]
	bad=$(grep -vE "[^0-9.]v?$v\$" <<<"$output" || true)
	[ -z "$bad" ] || { echo "pins not of $v: $bad"; false; }
	# Each kind of pin is there: the action, GitLab's include, the image.
	grep -q "ci/github@v$v" <<<"$output"
	grep -q "ref: v$v" <<<"$output"
	grep -q "envparity:v$v" <<<"$output"
	awk -v v="$v" '/^## /{on = ($2 == v)} on' "$REPO_ROOT/CHANGELOG.md" >entry
	grep -q '^\*\*What to do:\*\*' entry
	# Every entry says what to do.
	[ "$(grep -c '^## ' "$REPO_ROOT/CHANGELOG.md")" = \
	    "$(grep -c '^\*\*What to do:\*\*' "$REPO_ROOT/CHANGELOG.md")" ]
}

@test "make release on a scratch clone: refusals change nothing; the current version is tagged as it is; the next is bumped, committed and tagged" {
	scratch s
	v=$(make -s -C s version)
	head0=$(git -C s rev-parse HEAD)
	# Refused: not X.Y.Z, older, no entry, an entry without what to do
	# (make release is tools/release.sh VERSION: the script is run
	# directly where make would add nothing but time).
	run make -s -C s release VERSION=1.2
	[ "$status" -ne 0 ]
	[[ "$output" == *"release: VERSION '1.2' is not MAJOR.MINOR.PATCH"* ]]
	run rel v1.2.3
	[ "$status" -eq 2 ]
	run rel 0.0.1
	[ "$status" -eq 2 ]
	[[ "$output" == *"0.0.1 is older than the tree's $v"* ]]
	run rel 9.9.9
	[ "$status" -eq 2 ]
	[[ "$output" == *"CHANGELOG.md has no entry '## 9.9.9'"* ]]
	awk 'NR==FNR{new=new $0 "\n"; next} /^## / && !done {printf "%s", new; done=1} 1' \
	    <(printf '## 9.9.9\n\nNothing said.\n\n') s/CHANGELOG.md >c && mv c s/CHANGELOG.md
	run rel 9.9.9
	[[ "$output" == *"does not say what a user must do"* ]]
	git -C s checkout -q CHANGELOG.md
	[ "$(git -C s rev-parse HEAD)" = "$head0" ]
	[ -z "$(git -C s status --porcelain)" ]
	[ -z "$(git -C s tag)" ]

	# The tree's own version: tagged where it is, no commit.
	run make -s -C s release VERSION=$v
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"tagged v$v"*"git push origin v$v"* ]]
	[ "$(git -C s rev-parse HEAD)" = "$head0" ]
	[ "$(git -C s cat-file -t "v$v")" = tag ]
	git -C s cat-file -p "v$v" | grep -q '^\*\*What to do:\*\*'
	run rel "$v"
	[[ "$output" == *"tag v$v exists already"* ]]

	# The next: bumped everywhere, committed, tagged.
	next=${v%.*}.$(( ${v##*.} + 1 ))
	awk -v n="$next" 'NR==1{print; next} /^## / && !d {print "## " n "\n\n**What to do:** nothing.\n"; d=1} 1' \
	    s/CHANGELOG.md >c && mv c s/CHANGELOG.md
	echo dirty >>s/README.md
	run rel "$next"
	[[ "$output" == *"uncommitted changes"* ]]
	git -C s checkout -q README.md
	git -C s commit -qam "CHANGELOG: $next"
	run make -s -C s release VERSION=$next
	echo "$output"
	[ "$status" -eq 0 ]
	grep -qx "#define EP_VERSION \"$next\"" s/checker/util/version.h
	[ "$(git -C s log -1 --format=%s)" = "release $next" ]
	[ "$(git -C s rev-parse "v$next^{commit}")" = "$(git -C s rev-parse HEAD)" ]
	[ "$(git -C s cat-file -t "v$next")" = tag ]
	[ -z "$(git -C s status --porcelain)" ]
	# Every pin follows, and nothing of the old version is left where
	# the release is named.
	run pins s
	[ -z "$(grep -vE "[^0-9.]v?$next\$" <<<"$output")" ]
	run grep -rlF "$v" s/README.md s/ci s/man s/Containerfile s/docs/ci.md s/docs/install.md
	[ "$status" -ne 0 ]
	head -1 s/debian/changelog | grep -qF "envparity ($next) unstable"
	grep -qF "\"envparity $next\"" s/man/envparity.1
	# Nothing was pushed anywhere: the scratch clone has no remote.
	[ -z "$(git -C s remote)" ]
}
