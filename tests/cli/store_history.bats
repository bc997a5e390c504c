#!/usr/bin/env bats
# store_history.bats: a remote store's branch rewritten under the cache (a
# force push, a branch deleted and made again) is a result, store.history,
# naming the commit the cache saw last and the one the branch holds now:
# a failure unless the policy says otherwise.

load setup
load git_daemon

setup_file() {
	export ENVPARITY_AUTHOR="Ada Lovelace <ada@example.org>"
	unset ENVPARITY_STORE ENVPARITY_PROFILE ENVPARITY_GIT_TOKEN
}

# This machine's findings that need no golden (a cuDNN built for a newer
# cudart, say) are not what these tests are about.
POLICY='{"schema": "envparity/policy@1", "rules": [
  {"key": "stack.*", "rule": "ignore"}], "waivers": []}'

# Serve a store whose golden is this machine, and open it once.
golden() {
	mkdir srv
	git init -q --bare -b main srv/s.git
	start_git_daemon "$T/srv"
	url=git://127.0.0.1:$GIT_DAEMON_PORT/s.git
	"$EP" capture -q --no-discover -o now.json
	"$EP" bless -q --store "$url" now.json >/dev/null
	git clone -q "$url" wt
	printf '%s\n' "$POLICY" >wt/default/policy.json
	git -C wt add default/policy.json
	git -C wt -c user.name=M -c user.email=m@x commit -qm policy
	git -C wt push -q origin main
	rm -rf wt
	run "$EP" check --no-discover --store "$url"
	[ "$status" -eq 0 ]
}

# Force-push a branch whose single commit holds this machine's manifest
# and the policy (or the one given): history nobody here has seen.
rewrite() { # [policy]
	rm -rf rw
	git init -q -b main rw
	mkdir rw/default
	cp now.json rw/default/manifest.json
	printf '%s\n' "${1:-$POLICY}" >rw/default/policy.json
	git -C rw add .
	git -C rw -c user.name=M -c user.email=m@x commit -qm "rewritten"
	git -C rw push -q --force "$url" main
}

@test "a force-pushed golden: check fails with store.history naming both commits" {
	golden
	seen=$(git --git-dir=srv/s.git rev-parse main)

	rewrite
	now=$(git --git-dir=srv/s.git rev-parse main)
	[ "$now" != "$seen" ]
	# log reads it, and leaves the finding for the next check.
	run "$EP" log --store "$url"
	[ "$status" -eq 0 ]
	run "$EP" check --no-discover --store "$url" --json r.json
	[ "$status" -eq 1 ]
	[[ "$output" == *"FAIL    store.history: branch main of $url was rewritten: the cache last saw ${seen:0:12}, and ${now:0:12} does not descend from it"* ]]
	jq -e --arg s "$seen" --arg n "$now" '[.results[] | select(.key == "store.history"
	    and .status == "fail" and .expected == $s and .actual == $n)] | length == 1' r.json
	# Said again on every check, of any profile, until someone acts:
	# a second run of the same job is no way round it.
	run "$EP" check --no-discover --store "$url"
	[ "$status" -eq 1 ]
	[[ "$output" == *"FAIL    store.history"* ]]
	run "$EP" check --no-discover --store "$url" --profile other
	[ "$status" -eq 2 ]
	run "$EP" check --no-discover --store "$url"
	[ "$status" -eq 1 ]
	[[ "$output" == *"FAIL    store.history"* ]]
	# A bless on top of the new history acts on it.
	"$EP" bless -q --store "$url" -m "accept the new history" now.json
	run "$EP" check --no-discover --store "$url"
	[ "$status" -eq 0 ]
	[[ "$output" != *store.history* ]]
}

# Push the policy given on top of the branch, as a reviewed change
# would land: history the cache then sees.
push_policy() { # policy
	rm -rf wt
	git clone -q "$url" wt
	printf '%s\n' "$1" >wt/default/policy.json
	git -C wt -c user.name=M -c user.email=m@x commit -qam "policy"
	git -C wt push -q origin main
	rm -rf wt
}

IGNORE_IT='.rules += [{"key": "store.history", "rule": "ignore"}]'
WAIVE_IT='.waivers += [{"key": "store.history", "reason": "we rebase the golden",
    "owner": "infra", "expires": "2099-12-31"}]'

@test "a force push whose own policy ignores and waives store.history: still a failure, saying so" {
	golden
	seen=$(git --git-dir=srv/s.git rev-parse main)

	rewrite "$(jq -c "$IGNORE_IT | $WAIVE_IT" <<<"$POLICY")"
	now=$(git --git-dir=srv/s.git rev-parse main)
	run "$EP" check --no-discover --store "$url" --json r.json
	[ "$status" -eq 1 ]
	[[ "$output" == *"FAIL    store.history: branch main of $url was rewritten: the cache last saw ${seen:0:12}, and ${now:0:12} does not descend from it; the rewritten branch's policy cannot ignore or waive this, only the policy as it stood at ${seen:0:12}"* ]]
	jq -e --arg s "$seen" --arg n "$now" '[.results[] | select(.key == "store.history"
	    and .status == "fail" and .expected == $s and .actual == $n)] | length == 1' r.json
	# A waiver alone, in a second rewrite: the same.
	rewrite "$(jq -c "$WAIVE_IT" <<<"$POLICY")"
	run "$EP" check --no-discover --store "$url"
	[ "$status" -eq 1 ]
	[[ "$output" == *"FAIL    store.history: branch main of $url was rewritten: the cache last saw ${seen:0:12}"*"cannot ignore or waive this"* ]]
	# diff of the store spec and fleet say it too.
	run "$EP" diff "$url#main:default" now.json
	[ "$status" -eq 1 ]
	[[ "$output" == *"FAIL    store.history: "*"cannot ignore or waive this"* ]]
	mkdir nodes
	cp now.json nodes/n1.json
	run "$EP" fleet --store "$url" --json f.json nodes
	[ "$status" -eq 1 ]
	jq -e '[.results[] | select(.key == "store.history" and .status == "fail")] | length == 1' f.json
	# A bless on top is the act that accepts the new history.
	"$EP" bless -q --store "$url" -m "accept the new history" now.json
	run "$EP" check --no-discover --store "$url" --json r.json
	[ "$status" -eq 0 ]
	jq -e '[.results[] | select(.key == "store.history")] | length == 0' r.json
	# The branch's own waiver never waived it: a stale waiver, said.
	[[ "$output" == *"warn    policy.waivers[0]: the waiver for store.history (infra, until 2099-12-31) waived nothing in this run"* ]]
}

@test "the policy as the cache last saw it decides; a rewrite that comes back; a branch deleted and made again" {
	golden

	# A waiver in the history the cache saw, then a rewrite: waived,
	# saying whose policy waived it.
	push_policy "$(jq -c "$WAIVE_IT" <<<"$POLICY")"
	run "$EP" check --no-discover --store "$url"
	[ "$status" -eq 0 ]
	trusted=$(git --git-dir=srv/s.git rev-parse main)
	rewrite
	run "$EP" check --no-discover --store "$url" --json r.json
	[ "$status" -eq 0 ]
	[[ "$output" == *"waived  store.history: branch main of $url was rewritten: the cache last saw ${trusted:0:12}"*"; waived by infra until 2099-12-31: we rebase the golden (the policy at ${trusted:0:12})"* ]]
	jq -e '[.results[] | select(.key == "store.history" and .status == "waived")] | length == 1' r.json

	# Put back before the next check: nothing to say.
	git --git-dir=srv/s.git update-ref refs/heads/main "$trusted"
	run "$EP" check --no-discover --store "$url" --json r.json
	[ "$status" -eq 0 ]
	jq -e '[.results[] | select(.key == "store.history")] | length == 0' r.json

	# An ignore rule in the history the cache saw: no result.
	push_policy "$(jq -c "$IGNORE_IT" <<<"$POLICY")"
	run "$EP" check --no-discover --store "$url"
	[ "$status" -eq 0 ]
	ignoring=$(git --git-dir=srv/s.git rev-parse main)
	rewrite
	run "$EP" check --no-discover --store "$url" --json r.json
	[ "$status" -eq 0 ]
	jq -e '[.results[] | select(.key == "store.history")] | length == 0' r.json
	git --git-dir=srv/s.git update-ref refs/heads/main "$ignoring"
	"$EP" log --store "$url" >/dev/null

	# The team takes the ignore back; then the branch is deleted, seen
	# gone, and made again with other history that ignores it itself.
	push_policy "$POLICY"
	run "$EP" check --no-discover --store "$url"
	[ "$status" -eq 0 ]
	last=$(git --git-dir=srv/s.git rev-parse main)
	git --git-dir=srv/s.git update-ref -d refs/heads/main
	run "$EP" log --store "$url"
	[ "$status" -eq 2 ]
	rewrite "$(jq -c "$IGNORE_IT" <<<"$POLICY")"
	run "$EP" check --no-discover --store "$url"
	[ "$status" -eq 1 ]
	# The commit named is the last one the cache saw, before the branch
	# was gone.
	[[ "$output" == *"store.history: branch main of $url was rewritten: the cache last saw ${last:0:12}"*"cannot ignore or waive this"* ]]
}

@test "a policy from before the rewrite that does not parse decides nothing: the failure stands, saying why" {
	golden
	# Seen by the cache (log fetches, then refuses the policy).
	push_policy "$(jq -c '.rules += [{"key": "*", "rule": "ignore"}]' <<<"$POLICY")"
	run "$EP" log --store "$url"
	[ "$status" -eq 2 ]
	seen=$(git --git-dir=srv/s.git rev-parse main)
	rewrite "$(jq -c "$IGNORE_IT" <<<"$POLICY")"
	run "$EP" check --no-discover --store "$url"
	[ "$status" -eq 1 ]
	[[ "$output" == *"FAIL    store.history: branch main of $url was rewritten: the cache last saw ${seen:0:12}"*"; the policy as it stood then does not parse, so nothing may ignore or waive this: $url#${seen:0:12}:default/policy.json: rules[1] (key \"*\"): rule \"ignore\" for every key lets every drift pass"* ]]
}

@test "a bless, waive or unwaive that takes a rewritten history says so on standard error, -q or not; one on history seen says nothing" {
	golden
	seen=$(git --git-dir=srv/s.git rev-parse main)

	# A waive on top of the rewritten branch takes it: said, naming
	# both commits as store.history did, and check no longer fails.
	rewrite
	now=$(git --git-dir=srv/s.git rev-parse main)
	"$EP" waive -q --store "$url" cpu.count --reason r \
	    --owner o --expires 2099-12-31 >out.txt 2>err.txt
	cat out.txt err.txt
	[ ! -s out.txt ]
	[ "$(wc -l <err.txt)" -eq 1 ]
	grep -qF "envparity waive: branch main of $url was rewritten: the cache last saw ${seen:0:12}, and ${now:0:12} does not descend from it; this took the rewritten history as it is, and store.history is no longer reported" err.txt
	run "$EP" check --no-discover --store "$url"
	[ "$status" -eq 0 ]
	[[ "$output" != *store.history* ]]
	# Once taken, the next command has nothing to say.
	"$EP" unwaive -q --store "$url" cpu.count >out.txt 2>err.txt
	[ ! -s err.txt ]

	# An unwaive that commits on a rewritten branch: the same.
	"$EP" waive -q --store "$url" cpu.count --reason r \
	    --owner o --expires 2099-12-31
	seen=$(git --git-dir=srv/s.git rev-parse main)
	run "$EP" check --no-discover --store "$url"
	rewrite "$(jq -c '.waivers += [{"key": "cpu.count", "reason": "r",
	    "owner": "o", "expires": "2099-12-31"}]' <<<"$POLICY")"
	now=$(git --git-dir=srv/s.git rev-parse main)
	"$EP" unwaive --store "$url" cpu.count >out.txt 2>err.txt
	cat out.txt err.txt
	grep -q "^unwaived cpu.count" out.txt
	grep -qF "envparity unwaive: branch main of $url was rewritten: the cache last saw ${seen:0:12}, and ${now:0:12} does not descend from it" err.txt

	# A bless that changes the golden: said, and blessed as asked.
	run "$EP" check --no-discover --store "$url"
	seen=$(git --git-dir=srv/s.git rev-parse main)
	rewrite
	now=$(git --git-dir=srv/s.git rev-parse main)
	jq '.facts["python.pkg.extra"] = "1.0"' now.json >changed.json
	# A dry run says what a bless would take, and takes nothing.
	"$EP" bless --dry-run --store "$url" changed.json >out.txt 2>err.txt
	grep -qF "envparity bless: branch main of $url was rewritten: the cache last saw ${seen:0:12}, and ${now:0:12} does not descend from it; a bless would take the rewritten history as it is" err.txt
	run "$EP" check --no-discover --store "$url"
	[ "$status" -eq 1 ]
	[[ "$output" == *"FAIL    store.history"* ]]
	"$EP" bless -q --store "$url" changed.json >out.txt 2>err.txt
	cat out.txt err.txt
	grep -q "^blessed default at " out.txt
	grep -qF "envparity bless: branch main of $url was rewritten: the cache last saw ${seen:0:12}, and ${now:0:12} does not descend from it" err.txt
	# On history the cache has seen: nothing on standard error.
	"$EP" bless -q --store "$url" now.json >out.txt 2>err.txt
	grep -q "^blessed default at " out.txt
	[ ! -s err.txt ]
}
