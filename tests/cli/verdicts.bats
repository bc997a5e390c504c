#!/usr/bin/env bats
# verdicts.bats: a gate is worth its verdict.  Policies that cannot
# silently pass (ranges of one clause each, waivers that name the value
# they accept, no waiver for every key), warnings that are seen and never
# fail, and stale or expiring waivers reported.  Run through diff (two
# manifests and a --policy file) and check, as a user would.

load setup

unset GITHUB_ACTIONS GITHUB_STEP_SUMMARY CI GITLAB_CI

manifest() { # file facts-json [meta-json]
	local meta=${3-}
	[ -n "$meta" ] || meta='{}'
	jq -n --argjson f "$2" --argjson m "$meta" \
	    '{schema: "envparity/manifest@1", meta: $m, facts: $f}' > "$1"
}

policy() { # json: the rules and waivers members
	printf '{"schema": "envparity/policy@1", %s}\n' "$1" > p.json
}

result() { # report key: "STATUS MESSAGE" of key
	jq -r --arg k "$2" '.results[] | select(.key == $k) | "\(.status) \(.message)"' "$1"
}

@test "a range with a clause that is not comma-separated stops the run: exit 2, naming rule, key and text" {
	manifest a.json '{"python.pkg.numpy": "1.26.4"}'
	manifest b.json '{"python.pkg.numpy": "2.0.0"}'
	for r in '>1.0 <2' '>=1.26;<2' '> 1.0 and < 2' '>=1.26 || <1'; do
		policy "\"rules\": [{\"key\": \"python.pkg.*\", \"rule\": \"version\", \"range\": \"$r\"}]"
		run "$EP" diff --policy p.json a.json b.json
		echo "$output"
		[ "$status" -eq 2 ]
		[ "${#lines[@]}" -eq 1 ]
		[[ "$output" == *"p.json: rules[0] (key \"python.pkg.*\"): range \"$r\": "*"is not one version"* ]]
	done
	# White space around comma-separated clauses is fine.
	policy '"rules": [{"key": "python.pkg.*", "rule": "version", "range": " >1.0 , <2 "}]'
	run "$EP" diff --policy p.json a.json b.json
	[ "$status" -eq 1 ]
	[[ "$output" == *"python.pkg.numpy: 2.0.0 not in >1.0 , <2"* ]]
}

@test "a waiver that names its value does not hide a node that went elsewhere" {
	manifest golden.json '{"python.pkg.numpy": "1.26.4"}'
	manifest rolled.json '{"python.pkg.numpy": "2.0.1"}'
	manifest regressed.json '{"python.pkg.numpy": "1.25.2"}'
	policy '"waivers": [{"key": "python.pkg.numpy", "reason": "numpy 2 rollout",
	  "owner": "ml-platform", "expires": "2099-12-31", "range": ">=2,<2.1"}]'
	run "$EP" diff --policy p.json golden.json rolled.json --json r1.json
	[ "$status" -eq 0 ]
	[ "$(result r1.json python.pkg.numpy | cut -d' ' -f1)" = waived ]
	run "$EP" diff --policy p.json golden.json regressed.json --json r2.json
	[ "$status" -eq 1 ]
	[ "$(result r2.json python.pkg.numpy)" = "fail python.pkg.numpy: expected 1.26.4, got 1.25.2; the waiver by ml-platform covers only range >=2,<2.1, not 1.25.2" ]
	policy '"waivers": [{"key": "python.pkg.numpy", "reason": "r", "owner": "o",
	  "expires": "2099-12-31", "actual": "2.0.1"}]'
	run "$EP" diff --policy p.json golden.json rolled.json
	[ "$status" -eq 0 ]
	run "$EP" diff --policy p.json golden.json regressed.json
	[ "$status" -eq 1 ]
}

@test "a waiver for every key is refused: an ignore rule says it visibly" {
	manifest a.json '{"python.pkg.numpy": "1.26.4"}'
	policy '"waivers": [{"key": "*", "reason": "r", "owner": "o", "expires": "2099-12-31"}]'
	run "$EP" diff --policy p.json a.json a.json
	[ "$status" -eq 2 ]
	[[ "$output" == *"p.json: waivers[0] (key \"*\"): a waiver for every key hides every finding"* ]]
}
