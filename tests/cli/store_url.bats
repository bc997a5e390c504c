#!/usr/bin/env bats
# store_url.bats: a store URL whose password holds '#', '?' or '/'
# unencoded.  Its credentials end at the last '@' before the path: the
# store is reached with that password, and no part of it appears in any
# message, summary, report or log.

load setup
load git_daemon

setup_file() {
	export ENVPARITY_AUTHOR="Ada Lovelace <ada@example.org>"
	unset ENVPARITY_STORE ENVPARITY_PROFILE ENVPARITY_GIT_TOKEN
}

PW='pA55#w0rd?X7z/K3y9@q'

# Fail if any piece of the password is in the files or text given.
no_secret() { # file...
	local piece
	for piece in pA55 w0rd X7z K3y9 "$PW"; do
		! grep -rqF -- "$piece" "$@" || { grep -rF -- "$piece" "$@"; false; }
	done
}

@test "a password with '#', '?', '/' and '@': the store is reached, and the password is shown nowhere" {
	mkdir srv
	git init -q --bare -b main srv/s.git
	start_git_http "$T/srv" "alice:$PW"
	shown=http://127.0.0.1:$GIT_HTTP_PORT/s.git
	url=http://alice:$PW@127.0.0.1:$GIT_HTTP_PORT/s.git
	"$EP" capture -q --no-discover -o now.json

	run "$EP" bless --store "$url" now.json
	[ "$status" -eq 0 ]
	[ "$output" = "blessed default at $(git --git-dir=srv/s.git rev-parse main) on $shown main" ]
	echo "$output" >out.txt
	run "$EP" check --no-discover --store "$url" --json r.json --junit r.xml \
	    --markdown r.md
	[ "$status" -le 1 ]
	[[ "${lines[0]}" == *" this machine ("*") against $shown#main:default (commit "* ]]
	[ "$(jq -r .golden.store r.json)" = "$shown" ]
	echo "$output" >>out.txt
	run "$EP" log -v --store "$url"
	[ "$status" -eq 0 ]
	echo "$output" >>out.txt
	ENVPARITY_STORE=$url run "$EP" log
	[ "$status" -eq 0 ]
	echo "$output" >>out.txt
	run "$EP" diff "$url#main:default" now.json --json d.json
	[ "$status" -le 1 ]
	[[ "${lines[0]}" == *"$shown#main:default"* ]]
	echo "$output" >>out.txt
	# The password's '#' is not the one that starts REF:PROFILE.
	run "$EP" diff "$url" now.json
	[ "$status" -eq 2 ]
	echo "$output" >>out.txt
	# A wrong password fails without echoing either.
	run "$EP" log --store "http://alice:x${PW}@127.0.0.1:$GIT_HTTP_PORT/s.git"
	[ "$status" -eq 3 ]
	echo "$output" >>out.txt
	no_secret out.txt r.json r.xml r.md d.json "$XDG_CACHE_HOME"
	! grep -q alice out.txt || false
	# One cache for the store, named by the URL without credentials.
	[ -d "$XDG_CACHE_HOME/envparity/stores/$(printf %s "$shown" | sha256sum | cut -d' ' -f1)" ]
}

@test "an unreachable store with such a password: one line, no part of the password" {
	port=$(free_port)
	echo '{"schema": "envparity/manifest@1", "meta": {}, "facts": {"a": "1"}}' >m.json
	for spec in "https://u:$PW@127.0.0.1:$port/org/golden.git" \
	    "https://$PW@127.0.0.1:$port/golden.git" \
	    "ssh://git:$PW@127.0.0.1:$port/golden.git"; do
		run "$EP" bless --store "$spec" m.json
		[ "$status" -eq 3 ]
		[ "${#lines[@]}" -eq 1 ]
		[[ "$output" == "envparity bless: store "*"127.0.0.1:$port/"*"golden.git: cannot fetch: "* ]]
		echo "$output" >>out.txt
		run "$EP" check --no-discover --store "$spec"
		[ "$status" -eq 3 ]
		echo "$output" >>out.txt
		run "$EP" diff "$spec#main:default" m.json
		[ "$status" -eq 3 ]
		echo "$output" >>out.txt
	done
	no_secret out.txt
}
