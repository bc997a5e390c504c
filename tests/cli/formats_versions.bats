#!/usr/bin/env bats
# formats_versions.bats: PEP 440 as pypa/packaging reads it, through the
# policy's version rule in `check` (lockfile pins are the versions under
# test: a requirements file pins exactly the strings written) and `diff`:
# <V and >V on whole versions, === on text, a local label refused with an
# ordered comparison, blanks around a version, and strings packaging
# refuses that are no versions here either.

load setup

bats_require_minimum_version 1.5.0

# bless the requirements file written here, then commit a policy of a
# version rule per pin (pairs: package range ...) that ignores the rest.
bless_with_rules() { # package range [package range ...]
	local rules='{"key": "lockfile.*.sha256", "rule": "ignore"}, {"key": "stack.*", "rule": "ignore"}'
	mkdir -p sp
	# (sp is empty: stack.lock.* fails on every pin, which the policy
	# below ignores; the golden is what is under test.)
	"$EP" bless -q --accept-failing --no-discover --site-packages sp \
	    --lockfile requirements.txt >/dev/null
	while [ $# -gt 0 ]; do
		rules="$rules, {\"key\": \"lockfile.requirements.txt.pin.$1\", \"rule\": \"version\", \"range\": \"$2\"}"
		shift 2
	done
	git clone -q .envparity/store wt
	mkdir -p wt/default
	printf '{"schema": "envparity/policy@1", "rules": [%s]}\n' "$rules" > wt/default/policy.json
	git -C wt add default/policy.json
	git -C wt -c user.name=t -c user.email=t@x commit -qm policy
	git -C wt push -q origin HEAD
	rm -rf wt
}

result() { # report key: "STATUS MESSAGE"
	jq -r --arg k "$2" '.results[] | select(.key == $k) | "\(.status) \(.message)"' "$1"
}

@test "check: <V and >V exclude V's own pre- and post-releases, compared as whole versions" {
	printf 'a==1.0.post0\nb==1.0rc1\nc==1.0.dev0\nd==1.0.post0\ne==1.0a1.post0\nf==1.0.dev0\n' > requirements.txt
	bless_with_rules a '>1.0.dev1' b '<1.0.post1' c '==1.0.dev0,<1.0.post1' \
	    d '>1.0' e '>1.0a1' f '<1.0'
	run "$EP" check --no-discover --site-packages sp --lockfile requirements.txt --json r.json
	echo "$output"
	k=lockfile.requirements.txt.pin
	[ "$(result r.json $k.a)" = "pass $k.a: 1.0.post0 in >1.0.dev1" ]
	[ "$(result r.json $k.b)" = "pass $k.b: 1.0rc1 in <1.0.post1" ]
	[ "$(result r.json $k.c)" = "pass $k.c: 1.0.dev0 in ==1.0.dev0,<1.0.post1" ]
	# V's own stay out.
	[ "$(result r.json $k.d)" = "fail $k.d: 1.0.post0 not in >1.0" ]
	[ "$(result r.json $k.e)" = "fail $k.e: 1.0a1.post0 not in >1.0a1" ]
	[ "$(result r.json $k.f)" = "fail $k.f: 1.0.dev0 not in <1.0" ]
	[ "$status" -eq 1 ]
}

@test "check: === compares text, a version or not (foobar is in ===foobar)" {
	printf 'a===foobar\nb===1.0\n' > requirements.txt
	bless_with_rules a '===foobar' b '===1.0.0'
	run "$EP" check --no-discover --site-packages sp --lockfile requirements.txt --json r.json
	echo "$output"
	k=lockfile.requirements.txt.pin
	[ "$(result r.json $k.a)" = "pass $k.a: foobar in ===foobar" ]
	[ "$(result r.json $k.b)" = "fail $k.b: 1.0 not in ===1.0.0" ]
}

@test "check: a local label with an ordered comparison is a malformed policy: exit 2, before any capture" {
	printf 'a==1.0\n' > requirements.txt
	bless_with_rules a '>=1.0+abc'
	run "$EP" check --no-discover --site-packages sp --lockfile requirements.txt --lib-path /nonexistent
	echo "$output"
	[ "$status" -eq 2 ]
	[ "${#lines[@]}" -eq 1 ]
	[[ "$output" == *'range ">=1.0+abc": clause ">=1.0+abc": a local label (+abc) goes only with ==, != and ==='* ]]
}

@test "check: strings packaging refuses (1..0, 1.0+a+, 1.0.) are no versions under a version rule" {
	printf 'a===1..0\nb===1.0+a+\nc===1.0.\n' > requirements.txt
	bless_with_rules a '>=1' b '>=1' c '>=1'
	run "$EP" check --no-discover --site-packages sp --lockfile requirements.txt --json r.json
	echo "$output"
	[ "$status" -eq 1 ]
	k=lockfile.requirements.txt.pin
	[ "$(result r.json $k.a)" = "fail $k.a: \"1..0\" is not a version (range >=1)" ]
	[ "$(result r.json $k.b)" = "fail $k.b: \"1.0+a+\" is not a version (range >=1)" ]
	[ "$(result r.json $k.c)" = "fail $k.c: \"1.0.\" is not a version (range >=1)" ]
}

@test "diff: blanks around a version do not count (\"  v1.0\\n\" is 1.0), blanks inside do" {
	jq -n '{schema: "envparity/manifest@1", meta: {}, facts: {"python.pkg.a": "1.0", "python.pkg.b": "1.0"}}' > a.json
	jq -n '{schema: "envparity/manifest@1", meta: {}, facts: {"python.pkg.a": "  v1.0\n", "python.pkg.b": "1. 0"}}' > b.json
	printf '{"schema": "envparity/policy@1", "rules": [{"key": "python.pkg.*", "rule": "version", "range": "==1.0"}]}\n' > p.json
	run "$EP" diff --policy p.json a.json b.json --json r.json
	echo "$output"
	[ "$(result r.json python.pkg.a | cut -d' ' -f1)" = pass ]
	[ "$(result r.json python.pkg.b)" = 'fail python.pkg.b: "1. 0" is not a version (range ==1.0)' ]
}
