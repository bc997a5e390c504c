#!/usr/bin/env bats
# store_ci.bats: a change under test cannot ship its own golden.  In CI the
# implicit default store (.envparity/store in the checkout, which a pull
# request can commit) is never used: check needs the store named.  And a
# check that compared nothing (a golden without facts, or a policy that
# ignores them all) is an error, not parity.

load setup

setup_file() {
	export ENVPARITY_AUTHOR="Ada Lovelace <ada@example.org>"
	unset ENVPARITY_STORE ENVPARITY_PROFILE
}

# A policy that ignores every area of manifest $1, each by name (one
# rule "ignore" for every key, "*", is refused when read:
# policy_guard.bats).
ignore_all() { # manifest
	jq -c '{schema: "envparity/policy@1", rules: ([.facts | keys[]
	    | split(".")[0]] | unique | map({key: (. + ".*"), rule: "ignore"}))}' "$1"
}

# What a pull request commits: a golden of this very machine in the
# default store, and a policy that ignores everything.
ship_own_golden() {
	"$EP" capture -q --no-discover -o pr.json
	"$EP" bless -q pr.json >/dev/null
	git clone -q .envparity/store wt
	ignore_all pr.json >wt/default/policy.json
	git -C wt add default/policy.json
	git -C wt -c user.name=pr -c user.email=pr@x commit -qm "ignore all"
	git -C wt push -q origin HEAD
	rm -rf wt
}

@test "in CI, check refuses the default store: exit 2, naming the fix" {
	ship_own_golden
	# The generic CI=true, and the services that do not always set it
	# (Jenkins, Azure Pipelines, ...).
	for ci in CI=true GITHUB_ACTIONS=true GITLAB_CI=true CI=1 \
	    JENKINS_URL=http://user:tok@jenkins.example/ TF_BUILD=True \
	    BUILDKITE=true CIRCLECI=true TEAMCITY_VERSION=2024.1; do
		run env "$ci" "$EP" check --no-discover --json r.json
		[ "$status" -eq 2 ] || { echo "$ci: $output"; false; }
		[ "${#lines[@]}" -eq 1 ]
		[[ "$output" == "envparity check: no store named, and in CI (${ci%%=*} is set) the default .envparity/store is not used"*"name the store with --store or ENVPARITY_STORE"* ]]
		# A variable's value can hold credentials: never shown.
		[[ "$output" != *"tok@"* ]]
		[ ! -e r.json ]
	done
	# CI=false is no CI; a store named explicitly is used in CI.
	run env CI=false "$EP" check --no-discover
	[ "$status" -ne 2 ]
	run env CI=true "$EP" check --no-discover --store .envparity/store
	[ "$status" -ne 2 ]
	run env CI=true ENVPARITY_STORE=.envparity/store "$EP" check --no-discover
	[ "$status" -ne 2 ]
}

@test "a policy that ignores every golden fact: an error result, not parity" {
	ship_own_golden
	run "$EP" check --no-discover --json r.json
	[ "$status" -eq 1 ]
	[[ "$output" == *"ERROR   golden.compared: nothing was compared: the policy ignores every fact of the golden manifest"* ]]
	jq -e '[.results[] | select(.key == "golden.compared" and .status == "error")] | length == 1' r.json
	# A rule or a waiver cannot hide it: errors are not the policy's.
	git clone -q .envparity/store wt
	ignore_all pr.json | jq '.waivers = [{"key": "golden.compared",
	    "reason": "r", "owner": "o", "expires": "2099-12-31"}]' >wt/default/policy.json
	git -C wt -c user.name=pr -c user.email=pr@x commit -qam "waive all"
	git -C wt push -q origin HEAD
	run "$EP" check --no-discover
	[ "$status" -eq 1 ]
	[[ "$output" == *"golden.compared: nothing was compared"* ]]
}

@test "a golden manifest with no facts: an error result, not parity" {
	git init -q --bare -b main s.git
	echo '{"schema": "envparity/manifest@1", "meta": {}, "facts": {}}' >empty.json
	"$EP" bless --store s.git empty.json
	run "$EP" diff "s.git#main:default" empty.json
	[ "$status" -eq 1 ]
	[[ "$output" == *"ERROR   golden.compared: nothing was compared: the golden manifest has no facts"* ]]
	# One fact compared is a comparison.
	echo '{"schema": "envparity/manifest@1", "meta": {}, "facts": {"a": "1"}}' >one.json
	run "$EP" diff one.json one.json
	[ "$status" -eq 0 ]
}
