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

@test "a rewrite the policy ignores, one that comes back, and a branch deleted and made again" {
	golden
	orig=$(git --git-dir=srv/s.git rev-parse main)

	# Ignored by the policy: no result.
	rewrite "$(jq -c '.rules += [{"key": "store.history", "rule": "ignore"}]' <<<"$POLICY")"
	run "$EP" check --no-discover --store "$url" --json r.json
	[ "$status" -eq 0 ]
	jq -e '[.results[] | select(.key == "store.history")] | length == 0' r.json

	# Rewritten, then put back before any check: nothing to say.
	good=$(git --git-dir=srv/s.git rev-parse main)
	rewrite
	"$EP" log --store "$url" >/dev/null
	git --git-dir=srv/s.git update-ref refs/heads/main "$good"
	run "$EP" check --no-discover --store "$url"
	[ "$status" -eq 0 ]
	[[ "$output" != *store.history* ]]

	# Deleted, seen gone, then made again with other history.
	git --git-dir=srv/s.git update-ref -d refs/heads/main
	run "$EP" log --store "$url"
	[ "$status" -eq 2 ]
	rewrite
	run "$EP" check --no-discover --store "$url"
	[ "$status" -eq 1 ]
	# The commit named is the last one trusted: the first rewrite was
	# only ever ignored, never acted on.
	[[ "$output" == *"store.history: branch main of $url was rewritten: the cache last saw ${orig:0:12}"* ]]
}
