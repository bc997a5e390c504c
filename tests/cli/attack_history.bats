#!/usr/bin/env bats
# attack_history.bats: a store branch rewritten under the cache stays a
# failure (store.history) until someone takes the new history by
# committing on it (bless, waive, unwaive), and whoever does is told so,
# even with -q, naming the commit the cache saw last and the rewritten
# head; an unwaive that changes nothing takes nothing, and the finding
# stays where it was.

load setup
load git_daemon

setup_file() {
	export ENVPARITY_AUTHOR="Ada Lovelace <ada@example.org>"
	unset ENVPARITY_STORE ENVPARITY_PROFILE ENVPARITY_GIT_TOKEN
}

POLICY='{"schema": "envparity/policy@1", "rules": [
  {"key": "stack.*", "rule": "ignore"}], "waivers": []}'

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

rewrite() {
	rm -rf rw
	git init -q -b main rw
	mkdir rw/default
	cp now.json rw/default/manifest.json
	printf '%s\n' "$POLICY" >rw/default/policy.json
	git -C rw add .
	git -C rw -c user.name=M -c user.email=m@x commit -qm "rewritten"
	git -C rw push -q --force "$url" main
}

@test "a bless that takes a rewritten history says so" {
	golden
	seen=$(git --git-dir=srv/s.git rev-parse main)
	rewrite
	run "$EP" bless -q --store "$url" now.json
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"rewritten"*"${seen:0:12}"* ]]
}

@test "an unwaive of a key no waiver names does not take a rewritten history" {
	golden
	rewrite
	run "$EP" unwaive --store "$url" python.pkg.nothing
	echo "unwaive: $status $output"
	run "$EP" check --no-discover --store "$url"
	echo "$output"
	[ "$status" -eq 1 ]
	[[ "$output" == *"FAIL    store.history"* ]]
}
