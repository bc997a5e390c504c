#!/usr/bin/env bats
# store_cache.bats: the cache clone of a remote store is the user's alone
# (0700), and its own config is never read: whoever can write it must not
# be able to send the fetch to another repository.  The user's git config
# still applies (test_store.c: insteadOf from ~/.gitconfig).

load setup
load git_daemon

setup_file() {
	export ENVPARITY_AUTHOR="Ada Lovelace <ada@example.org>"
	unset ENVPARITY_STORE ENVPARITY_PROFILE ENVPARITY_GIT_TOKEN
}

mk() { # file key=value
	jq -n --arg k "${2%%=*}" --arg v "${2#*=}" \
	    '{schema: "envparity/manifest@1", meta: {}, facts: {($k): $v}}' >"$1"
}

@test "an insteadOf planted in the cache clone's config does not redirect the fetch" {
	mkdir srv
	git init -q --bare -b main srv/real.git
	git init -q --bare -b main srv/evil.git
	start_git_daemon "$T/srv"
	real=git://127.0.0.1:$GIT_DAEMON_PORT/real.git
	evil=git://127.0.0.1:$GIT_DAEMON_PORT/evil.git
	mk m.json fact=real
	"$EP" bless --store "$real" m.json
	mk e.json fact=evil
	"$EP" bless --store "$evil" e.json
	"$EP" log --store "$real"
	cache=$(find "$XDG_CACHE_HOME/envparity/stores" -mindepth 1 -maxdepth 1 \
	    -type d -name "$(printf %s "$real" | sha256sum | cut -d' ' -f1)")
	[ -d "$cache" ]
	git --git-dir="$cache" config "url.$evil.insteadOf" "$real"

	# A new golden in the real store; the cache must fetch it from there.
	mk m.json fact=real2
	XDG_CACHE_HOME=$T/other "$EP" bless --store "$real" m.json
	want=$(git --git-dir=srv/real.git rev-parse main)
	run "$EP" log --store "$real" -v
	[ "$status" -eq 0 ]
	[[ "${lines[0]}" == "${want:0:12}  "* ]]
	[[ "$output" == *"~ fact: real -> real2"* ]]
	[[ "$output" != *evil* ]]
	[ "$(git --git-dir="$cache" rev-parse main)" = "$want" ]
	# A check reads the real golden too.
	run "$EP" diff "$real#:default" m.json
	[ "$status" -eq 0 ]
}

@test "the cache is created 0700, and an existing one is made so" {
	git init -q --bare -b main s.git
	mk m.json a=1
	"$EP" bless --store "file://$T/s.git" m.json
	stores=$XDG_CACHE_HOME/envparity/stores
	[ "$(stat -c %a "$stores")" = 700 ]
	cache=$(find "$stores" -mindepth 1 -maxdepth 1 -type d)
	[ "$(stat -c %a "$cache")" = 700 ]
	[ "$(stat -c %a "$cache.lock")" = 600 ]
	chmod 755 "$stores" "$cache"
	run "$EP" log --store "file://$T/s.git"
	[ "$status" -eq 0 ]
	[ "$(stat -c %a "$stores")" = 700 ]
	[ "$(stat -c %a "$cache")" = 700 ]
}
