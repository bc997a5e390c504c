#!/usr/bin/env bats
# store_remote.bats: remote stores served on 127.0.0.1 by `git daemon`
# (git://) and by git's http-backend behind Basic authentication
# (http://, https://): push, a second machine reading through its own cache, one
# negotiation for an up-to-date cache, unreachable servers, refused
# pushes, races, and credentials that never reach output or disk.

load setup
load git_daemon

mk() { # file host key=value...
	local f=$1 h=$2 facts='{}' kv
	shift 2
	for kv in "$@"; do
		facts=$(jq -c --arg k "${kv%%=*}" --arg v "${kv#*=}" \
		    '. + {($k): $v}' <<<"$facts")
	done
	jq -n --arg h "$h" --argjson f "$facts" \
	    '{schema: "envparity/manifest@1", meta: {host: $h}, facts: $f}' >"$f"
}

setup_file() {
	export ENVPARITY_AUTHOR="Ada Lovelace <ada@example.org>"
	unset ENVPARITY_STORE ENVPARITY_PROFILE ENVPARITY_GIT_TOKEN
}

# Another machine: its own cache.
other() {
	seed_cache "$T/cache-other"
	XDG_CACHE_HOME=$T/cache-other "$@"
}

@test "git daemon: bless pushes; another machine reads it; an up-to-date cache is one negotiation" {
	mkdir srv
	git init -q --bare -b main srv/golden.git
	start_git_daemon "$T/srv"
	url=git://127.0.0.1:$GIT_DAEMON_PORT/golden.git
	mk m.json h1 a=1 b=2
	run "$EP" bless --store "$url" m.json
	[ "$status" -eq 0 ]
	commit=$(git --git-dir=srv/golden.git rev-parse main)
	[ "$output" = "blessed default at $commit on $url main" ]
	git --git-dir=srv/golden.git show main:default/manifest.json |
	    cmp - <(jq -S --indent 2 . m.json)

	# A second machine: a cache of its own, cloned on first use.
	run other "$EP" log --store "$url"
	[ "$status" -eq 0 ]
	[[ "$output" == "${commit:0:12}  "*"+2 -0 ~0  bless default from h1" ]]
	cache=$(find "$T/cache-other/envparity/stores" -mindepth 1 -maxdepth 1 -type d)
	[ "$(git --git-dir="$cache" rev-parse main)" = "$commit" ]
	inode=$(stat -c %i "$cache")
	packs=$(find "$cache/objects" -type f | sort | sha256sum)

	# Up to date: one more upload-pack request, nothing downloaded, the
	# same clone.
	fetches=$(daemon_fetches)
	run other "$EP" log --store "$url"
	[ "$status" -eq 0 ]
	[ "$(daemon_fetches)" -eq $((fetches + 1)) ]
	[ "$(stat -c %i "$cache")" = "$inode" ]
	[ "$(find "$cache/objects" -type f | sort | sha256sum)" = "$packs" ]

	# The first machine blesses again; the second sees it on its next
	# open, fetched into the same clone.
	mk m.json h1 a=1 b=3
	"$EP" bless --store "$url" m.json
	run other "$EP" log --store "$url"
	[ "${#lines[@]}" -eq 2 ]
	[[ "${lines[0]}" == *"+0 -0 ~1  bless default from h1" ]]
	[ "$(stat -c %i "$cache")" = "$inode" ]
	[ "$(git --git-dir="$cache" rev-parse main)" = \
	    "$(git --git-dir=srv/golden.git rev-parse main)" ]
}

@test "git daemon: bless from a capture fetches twice: to read the golden, and under the lock to commit" {
	mkdir srv site
	git init -q --bare -b main srv/golden.git
	start_git_daemon "$T/srv"
	url=git://127.0.0.1:$GIT_DAEMON_PORT/golden.git
	run "$EP" bless --store "$url" --no-discover --site-packages site
	[ "$status" -eq 0 ]
	# Again, with a golden to read: its images carried over, its store
	# handle kept for the commit rather than fetched a third time.  (A
	# distribution more, so that there is something to commit: the same
	# manifest again is no commit.)
	mkdir site/x-1.0.dist-info
	printf 'Metadata-Version: 2.1\nName: x\nVersion: 1.0\n' >site/x-1.0.dist-info/METADATA
	fetches=$(daemon_fetches)
	run "$EP" bless --store "$url" --no-discover --site-packages site -m again
	[ "$status" -eq 0 ]
	[ "$(daemon_fetches)" -eq $((fetches + 2)) ]
	[ "$(git --git-dir=srv/golden.git log -1 --format=%s main)" = again ]
	# --dry-run reads once and writes nothing.
	fetches=$(daemon_fetches)
	run "$EP" bless --store "$url" --no-discover --site-packages site --dry-run
	[ "$status" -eq 0 ]
	[ "$(daemon_fetches)" -eq $((fetches + 1)) ]

	# Another profile blessed between the read and the commit (the
	# capture held up by a slow probe, a TEST DOUBLE): the commit still
	# lands on top of it, since the branch is read again under the lock.
	FAKE_PROBE_SLEEP=2 "$EP" bless --store "$url" --no-discover --site-packages site \
	    --runs 1 --backend cpu --probe "$BATS_TEST_DIRNAME/../doubles/fake_probe.sh" \
	    -m slow >"$T/slow.out" 2>&1 &
	slow=$!
	sleep 0.7
	mk m.json h2 a=1
	run "$EP" bless --store "$url" --profile other m.json -m between
	[ "$status" -eq 0 ]
	wait "$slow"
	[ "$(git --git-dir=srv/golden.git log -2 --format=%s main | tr '\n' ,)" = "slow,between," ]
	git --git-dir=srv/golden.git cat-file -e main:other/manifest.json
}

@test "git daemon: the default branch is the remote's HEAD; --ref makes another" {
	mkdir srv
	git init -q -b trunk seed
	git -C seed -c user.name=X -c user.email=x@y commit -q --allow-empty -m seed
	git clone -q --bare seed srv/s.git
	start_git_daemon "$T/srv"
	url=git://127.0.0.1:$GIT_DAEMON_PORT/s.git
	mk m.json h1 a=1
	run "$EP" bless --store "$url" m.json
	[ "$status" -eq 0 ]
	[[ "$output" == *" on $url trunk" ]]
	[ "$(git --git-dir=srv/s.git rev-list --count trunk)" -eq 2 ]
	run "$EP" bless --store "$url" --ref golden m.json
	[ "$status" -eq 0 ]
	[[ "$output" == *" on $url golden" ]]
	git --git-dir=srv/s.git cat-file -e golden:default/manifest.json
	# A branch the remote lacks: exit 2, the branches it has, and how to
	# start it.
	run other "$EP" log --store "$url" --ref nothing
	[ "$status" -eq 2 ]
	[[ "$output" == *"--ref nothing: no such branch (its branches: golden, trunk); name one of them, or bless to --ref nothing to start it" ]]
}

@test "an unreachable store is exit 3 with one line naming it" {
	port=$(free_port)
	mk m.json h1 a=1
	run "$EP" bless --store "git://127.0.0.1:$port/x.git" m.json
	[ "$status" -eq 3 ]
	[ "${#lines[@]}" -eq 1 ]
	[[ "$output" == "envparity bless: store git://127.0.0.1:$port/x.git: cannot fetch: "* ]]
	run "$EP" log --store "ssh://git@127.0.0.1:$port/x.git"
	[ "$status" -eq 3 ]
	[ "${#lines[@]}" -eq 1 ]
	[[ "$output" == "envparity log: store ssh://git@127.0.0.1:$port/x.git: cannot fetch: "* ]]
	run "$EP" log --store "http://127.0.0.1:$port/x.git"
	[ "$status" -eq 3 ]
	[ "${#lines[@]}" -eq 1 ]
}

@test "a daemon that serves no such repository, and a push the server refuses: exit 3" {
	mkdir srv
	git init -q --bare -b main srv/s.git
	printf '#!/bin/sh\necho "golden is frozen" >&2\nexit 1\n' >srv/s.git/hooks/pre-receive
	chmod +x srv/s.git/hooks/pre-receive
	start_git_daemon "$T/srv"
	mk m.json h1 a=1
	run "$EP" log --store "git://127.0.0.1:$GIT_DAEMON_PORT/none.git"
	[ "$status" -eq 3 ]
	run "$EP" bless --store "git://127.0.0.1:$GIT_DAEMON_PORT/s.git" m.json
	[ "$status" -eq 3 ]
	[[ "$output" == *"the remote refused the push to main"* ]]
	[ -z "$(git --git-dir=srv/s.git for-each-ref)" ]
}

@test "git daemon: two machines bless different profiles at once, ten times; nothing lost" {
	mkdir srv
	start_git_daemon "$T/srv"
	mk a.json ha k=a
	mk b.json hb k=b
	for i in $(seq 1 10); do
		rm -rf srv/r.git
		git init -q --bare -b main srv/r.git
		url=git://127.0.0.1:$GIT_DAEMON_PORT/r.git
		rm -f rc.a rc.b
		( rc=0; XDG_CACHE_HOME=$T/ca "$EP" bless --store "$url" \
		    --profile pa a.json >out.a 2>&1 || rc=$?; echo $rc >rc.a ) &
		pa=$!
		( rc=0; XDG_CACHE_HOME=$T/cb "$EP" bless --store "$url" \
		    --profile pb b.json >out.b 2>&1 || rc=$?; echo $rc >rc.b ) &
		wait "$pa" "$!"
		[ "$(cat rc.a)" -eq 0 ] || { cat out.a; false; }
		[ "$(cat rc.b)" -eq 0 ] || { cat out.b; false; }
		[ "$(git --git-dir=srv/r.git rev-list --count main)" -eq 2 ]
		[ "$(git --git-dir=srv/r.git show main:pa/manifest.json | jq -r .facts.k)" = a ]
		[ "$(git --git-dir=srv/r.git show main:pb/manifest.json | jq -r .facts.k)" = b ]
	done
}

@test "git daemon: the same profile at once from two machines: one whole manifest, a loser that says so" {
	mkdir srv
	start_git_daemon "$T/srv"
	mk a.json ha k=a
	mk b.json hb k=b
	for i in $(seq 1 10); do
		rm -rf srv/r.git
		git init -q --bare -b main srv/r.git
		url=git://127.0.0.1:$GIT_DAEMON_PORT/r.git
		rm -f rc.a rc.b
		( rc=0; XDG_CACHE_HOME=$T/ca "$EP" bless --store "$url" \
		    --profile p a.json >out.a 2>&1 || rc=$?; echo $rc >rc.a ) &
		pa=$!
		( rc=0; XDG_CACHE_HOME=$T/cb "$EP" bless --store "$url" \
		    --profile p b.json >out.b 2>&1 || rc=$?; echo $rc >rc.b ) &
		wait "$pa" "$!"
		ra=$(cat rc.a) rb=$(cat rc.b)
		commits=$(git --git-dir=srv/r.git rev-list --count main)
		if [ "$ra" -eq 0 ] && [ "$rb" -eq 0 ]; then
			[ "$commits" -eq 2 ]
			last=$(git --git-dir=srv/r.git log -1 --format=%s main)
			[ "$last" = "bless p from ha" ] && want=a || want=b
		else
			[ "$commits" -eq 1 ]
			if [ "$ra" -ne 0 ]; then
				[ "$ra" -eq 3 ] && [ "$rb" -eq 0 ]
				loser=out.a want=b
			else
				[ "$rb" -eq 3 ]
				loser=out.b want=a
			fi
			[[ "$(cat "$loser")" == "envparity bless: profile p was blessed by someone else (commit "*") while this bless ran; check again and re-bless" ]]
		fi
		git --git-dir=srv/r.git show main:p/manifest.json |
		    cmp - <(jq -S --indent 2 . "$want.json")
	done
}

@test "https with ENVPARITY_GIT_TOKEN: sent as x-access-token, never shown, never stored" {
	secret=tok-$RANDOM$RANDOM-s3cr3t
	mkdir srv
	git init -q --bare -b main srv/s.git
	make_tls_cert
	export GIT_SSL_CAINFO=$TLS_CA
	start_git_http "$T/srv" "x-access-token:$secret" --tls "$TLS_CERT" "$TLS_KEY"
	url=https://127.0.0.1:$GIT_HTTP_PORT/s.git
	mk m.json h1 a=1

	# Without the token: refused, exit 3, the way out named.
	run "$EP" bless --store "$url" m.json
	[ "$status" -eq 3 ]
	[[ "$output" == *"authentication failed"*"ENVPARITY_GIT_TOKEN"* ]]

	export ENVPARITY_GIT_TOKEN=$secret
	run "$EP" bless --store "$url" m.json
	[ "$status" -eq 0 ]
	all=$output
	[ "$output" = "blessed default at $(git --git-dir=srv/s.git rev-parse main) on $url main" ]
	grep -qx "x-access-token:$secret" "$GIT_HTTP_AUTH_LOG"
	run other "$EP" log -v --store "$url"
	[ "$status" -eq 0 ]
	all+=$output
	[[ "$output" == *"+1 -0 ~0"* ]]
	! grep -q "$secret" <<<"$all" || false
	! grep -rq "$secret" "$T/cache" "$T/cache-other" srv/s.git || false
	ENVPARITY_GIT_TOKEN=wrong run "$EP" log --store "$url"
	[ "$status" -eq 3 ]
	[[ "$output" != *wrong* ]]
}

@test "http with user:token in the URL: works, and the token appears nowhere" {
	secret=pw-$RANDOM$RANDOM-s3cr3t
	mkdir srv
	git init -q --bare -b main srv/s.git
	start_git_http "$T/srv" "alice:$secret"
	shown=http://127.0.0.1:$GIT_HTTP_PORT/s.git
	url=http://alice:$secret@127.0.0.1:$GIT_HTTP_PORT/s.git
	mk m.json h1 a=1
	run "$EP" bless --store "$url" m.json
	[ "$status" -eq 0 ]
	all=$output
	[[ "$output" == *" on $shown main" ]]
	run other "$EP" log --store "$url" -v
	[ "$status" -eq 0 ]
	all+=$output
	# A wrong password and a missing repository fail without echoing it.
	run "$EP" log --store "http://alice:wrong$secret@127.0.0.1:$GIT_HTTP_PORT/s.git"
	[ "$status" -eq 3 ]
	all+=$output
	run "$EP" log --store "http://alice:$secret@127.0.0.1:$GIT_HTTP_PORT/none.git"
	[ "$status" -eq 3 ]
	all+=$output
	! grep -q "$secret" <<<"$all" || false
	! grep -q alice <<<"$all" || false
	! grep -rq "$secret" "$T/cache" "$T/cache-other" srv/s.git || false
	# The cache is named by the URL without credentials.
	[ -d "$T/cache/envparity/stores/$(printf %s "$shown" | sha256sum | cut -d' ' -f1)" ]
}

@test "https with user:token in the URL, server unreachable: exit 3, token never printed" {
	secret=gh-$RANDOM$RANDOM-s3cr3t
	port=$(free_port)
	mk m.json h1 a=1
	run "$EP" bless --store "https://x-access-token:$secret@127.0.0.1:$port/org/golden.git" m.json
	[ "$status" -eq 3 ]
	[ "${#lines[@]}" -eq 1 ]
	[[ "$output" == "envparity bless: store https://127.0.0.1:$port/org/golden.git: cannot fetch: "* ]]
	[[ "$output" != *"$secret"* ]]
	run "$EP" log --store "https://$secret@127.0.0.1:$port/org/golden.git"
	[ "$status" -eq 3 ]
	[[ "$output" != *"$secret"* ]]
	! grep -rq "$secret" "$T/cache" || false
	# A store never reached leaves no clone behind.
	[ -z "$(find "$T/cache/envparity/stores" -mindepth 1 -maxdepth 1 -type d)" ]
}

@test "file:// stores: written in place, read through the cache" {
	git init -q --bare -b main s.git
	url=file://$T/s.git
	mk m.json h1 a=1
	run "$EP" bless --store "$url" m.json
	[ "$status" -eq 0 ]
	[ "$output" = "blessed default at $(git --git-dir=s.git rev-parse main) on $url main" ]
	run other "$EP" log --store "$url"
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -eq 1 ]
	run "$EP" log --store "file://$T/none.git"
	[ "$status" -eq 3 ]
}
