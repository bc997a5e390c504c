#!/usr/bin/env bats
# --ref pins the golden to what was reviewed: a tag (NAME, refs/tags/NAME,
# annotated or not) or a full commit id, for reading; blessing to either
# is refused.  A local store and one served by git daemon on 127.0.0.1.

load setup
load git_daemon

m() { # file value
	manifest "$1" "{\"python.pkg.numpy\": \"$2\"}"
}

# A store with two goldens: v1 (tagged, numpy 1.26.4) then numpy 2.0.0.
two_goldens() { # store
	git init -q --bare "$1"
	m m1.json 1.26.4
	m m2.json 2.0.0
	"$EP" bless -q --store "$1" m1.json
	C1=$(git -C "$1" rev-parse HEAD)
	git -C "$1" tag v1
	git -C "$1" -c user.name=t -c user.email=t@x tag -a -m reviewed v1-reviewed
	"$EP" bless -q --store "$1" m2.json
}

golden_numpy() { # store ref -> the golden's numpy, through diff
	"$EP" diff "$1#$2:default" m2.json --json r.json >/dev/null 2>&1
	jq -r '.results[] | select(.key == "python.pkg.numpy") | .expected' r.json
}

@test "--ref: a tag, refs/tags/NAME, an annotated tag and a commit id read that golden; the branch reads the newest" {
	two_goldens store.git
	[ "$(golden_numpy store.git v1)" = 1.26.4 ]
	[ "$(golden_numpy store.git refs/tags/v1)" = 1.26.4 ]
	[ "$(golden_numpy store.git v1-reviewed)" = 1.26.4 ]
	[ "$(golden_numpy store.git "$C1")" = 1.26.4 ]
	[ "$(golden_numpy store.git master)" = 2.0.0 ]
	# check with --ref: the JSON report names the ref and the commit.
	run "$EP" check --store store.git --ref v1 --no-discover --json r.json
	[ "$(jq -r '"\(.golden.ref) \(.golden.commit)"' r.json)" = "v1 $C1" ]
	run "$EP" check --store store.git --ref "$C1" --no-discover --json r.json
	[ "$(jq -r '.golden.commit' r.json)" = "$C1" ]
}

@test "--ref: blessing to a tag or a commit is refused with one line, the store unchanged" {
	two_goldens store.git
	before=$(git -C store.git for-each-ref --format='%(refname) %(objectname)')
	for ref in v1 refs/tags/v1 "$C1"; do
		run "$EP" bless --store store.git --ref "$ref" m1.json
		echo "$output"
		[ "$status" -eq 2 ]
		[ "${#lines[@]}" -eq 1 ]
		[[ "$output" == *"is a tag, which is read-only: bless to a branch, then tag the reviewed commit"* ||
		   "$output" == *"is a commit, which is read-only"* ]]
	done
	[ "$(git -C store.git for-each-ref --format='%(refname) %(objectname)')" = "$before" ]
}

@test "--ref: a tag or a commit that is not in the store is an error naming it, not 'no golden'" {
	two_goldens store.git
	run "$EP" check --store store.git --ref refs/tags/v9 --no-discover
	[ "$status" -eq 2 ]
	[[ "$output" == *"--ref v9: no such tag"* ]]
	run "$EP" check --store store.git --ref 0123456789abcdef0123456789abcdef01234567 --no-discover
	[ "$status" -eq 2 ]
	[[ "$output" == *"no such commit in the store"* ]]
	run "$EP" check --store store.git --ref refs/remotes/x --no-discover
	[ "$status" -eq 2 ]
	[[ "$output" == *"give a branch, a tag (refs/tags/NAME) or a full commit id"* ]]
}

@test "--ref: a branch the store lacks, when it has others, is named with the branches it has, not 'no golden'" {
	two_goldens store.git
	git -C store.git branch staging master
	run "$EP" check --store store.git --ref nosuchbranch --no-discover --json r.json
	echo "$output"
	[ "$status" -eq 2 ]
	[ "${#lines[@]}" -eq 1 ]
	[ "$output" = "envparity check: store store.git: --ref nosuchbranch: no such branch (its branches: master, staging); name one of them, or bless to --ref nosuchbranch to start it" ]
	[ ! -e r.json ]
	run "$EP" diff "store.git#nosuchbranch:default" m1.json
	[ "$status" -eq 2 ]
	[[ "$output" == *"--ref nosuchbranch: no such branch (its branches: master, staging)"* ]]
	run "$EP" log --store store.git --ref nosuchbranch
	[ "$status" -eq 2 ]
	[[ "$output" == *"no such branch (its branches: master, staging)"* ]]
	# A branch that exists but has no golden for the profile is still
	# "no golden", and blessing to a new branch starts it.
	run "$EP" check --store store.git --ref staging --profile other --no-discover
	[ "$status" -eq 2 ]
	[[ "$output" == *"no golden manifest for profile other"* ]]
	"$EP" bless -q --store store.git --ref nosuchbranch m1.json
	[ "$(git -C store.git rev-parse --verify -q refs/heads/nosuchbranch)" != "" ]
	# An empty store says "no golden", as before: nothing to list.
	git init -q --bare empty.git
	run "$EP" check --store empty.git --ref nosuchbranch --no-discover
	[ "$status" -eq 2 ]
	[[ "$output" == *"no golden manifest"* ]]
}

@test "--ref: a tag and a commit of a store served by git daemon" {
	mkdir srv
	two_goldens srv/store.git
	touch srv/store.git/git-daemon-export-ok
	start_git_daemon "$T/srv"
	url="git://127.0.0.1:$GIT_DAEMON_PORT/store.git"
	run "$EP" check --store "$url" --ref v1 --no-discover --json r.json
	echo "$output"
	[ "$(jq -r '"\(.golden.ref) \(.golden.commit)"' r.json)" = "v1 $C1" ]
	run "$EP" check --store "$url" --ref v1-reviewed --no-discover --json r.json
	[ "$(jq -r '.golden.commit' r.json)" = "$C1" ]
	run "$EP" check --store "$url" --ref "$C1" --no-discover --json r.json
	echo "$output"
	[ "$(jq -r '.golden.commit' r.json)" = "$C1" ]
	run "$EP" check --store "$url" --ref refs/tags/nope --no-discover
	[ "$status" -eq 2 ]
	[[ "$output" == *"--ref nope: no such tag"* ]]
	# A branch the remote lacks: named, with the branches it advertises.
	git -C srv/store.git branch staging master
	rm -f r.json
	run "$EP" check --store "$url" --ref nosuchbranch --no-discover --json r.json
	echo "$output"
	[ "$status" -eq 2 ]
	[ "${#lines[@]}" -eq 1 ]
	[[ "$output" == *"--ref nosuchbranch: no such branch (its branches: master, staging)"* ]]
	[ ! -e r.json ]
	run "$EP" bless --store "$url" --ref v1 m1.json
	[ "$status" -eq 2 ]
	[[ "$output" == *"read-only"* ]]
	# The branch still reads (and blesses) as before.
	run "$EP" check --store "$url" --no-discover --json r.json
	[ "$(jq -r '.golden.ref' r.json)" = master ]
}
