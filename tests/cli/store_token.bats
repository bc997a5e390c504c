#!/usr/bin/env bats
# store_token.bats: where ENVPARITY_GIT_TOKEN may go.  Only over https, and
# only to the store URL's own scheme, host and port: not to an http://
# store, and not to where a store redirects.  Servers on 127.0.0.1 log
# every Authorization header they receive (git_http.py), so the tests see
# what reached them, not only what envparity printed.

load setup
load git_daemon

setup_file() {
	unset ENVPARITY_STORE ENVPARITY_PROFILE ENVPARITY_GIT_TOKEN
}

@test "an http:// store never receives the token, and the error says why" {
	secret=tok-$RANDOM$RANDOM-s3cr3t
	mkdir srv
	git init -q --bare -b main srv/s.git
	start_git_http "$T/srv" "x-access-token:$secret"
	url=http://127.0.0.1:$GIT_HTTP_PORT/s.git
	ENVPARITY_GIT_TOKEN=$secret run "$EP" log --store "$url"
	[ "$status" -eq 3 ]
	[ "${#lines[@]}" -eq 1 ]
	[ "$output" = "envparity log: store $url: cannot fetch: authentication required; ENVPARITY_GIT_TOKEN was not sent: the store is http://, and the token goes only over https" ]
	# The server asked; nothing came.
	[ -s "$GIT_HTTP_AUTH_LOG" ]
	! grep -q -- "$secret" "$GIT_HTTP_AUTH_LOG" || false
	! grep -vqx -- - "$GIT_HTTP_AUTH_LOG" || false
}

@test "an http store that redirects to another port: the token never arrives there" {
	secret=tok-$RANDOM$RANDOM-s3cr3t
	mkdir srv
	git init -q --bare -b main srv/s.git
	# The port that takes a token and logs it, and one that sends every
	# request there.
	start_git_http "$T/srv" "x-access-token:$secret"
	thief=$GIT_HTTP_PORT thief_log=$GIT_HTTP_AUTH_LOG
	start_git_http "$T/srv" nobody:none --redirect "http://127.0.0.1:$thief"
	url=http://127.0.0.1:$GIT_HTTP_PORT/s.git
	ENVPARITY_GIT_TOKEN=$secret run "$EP" log --store "$url"
	[ "$status" -eq 3 ]
	[ "${#lines[@]}" -eq 1 ]
	[[ "$output" == "envparity log: store $url: cannot fetch: authentication required; ENVPARITY_GIT_TOKEN was not sent: "* ]]
	[ -s "$thief_log" ]	# the redirect was followed, and asked
	! grep -q -- "$secret" "$thief_log" || false
}

@test "an https store that redirects to another port or host: the token never arrives there" {
	secret=tok-$RANDOM$RANDOM-s3cr3t
	mkdir srv
	git init -q --bare -b main srv/s.git
	make_tls_cert
	export GIT_SSL_CAINFO=$TLS_CA ENVPARITY_GIT_TOKEN=$secret
	start_git_http "$T/srv" "x-access-token:$secret" --tls "$TLS_CERT" "$TLS_KEY"
	thief=$GIT_HTTP_PORT thief_log=$GIT_HTTP_AUTH_LOG

	# The store itself takes the token (the same server, named directly).
	run "$EP" log --store "https://127.0.0.1:$thief/s.git"
	[ "$status" -eq 2 ]	# reached, and empty: no golden yet
	grep -qx "x-access-token:$secret" "$thief_log"
	: >"$thief_log"

	# Another port of the same host.
	start_git_http "$T/srv" nobody:none --tls "$TLS_CERT" "$TLS_KEY" \
	    --redirect "https://127.0.0.1:$thief"
	url=https://127.0.0.1:$GIT_HTTP_PORT/s.git
	run "$EP" log --store "$url"
	[ "$status" -eq 3 ]
	[ "${#lines[@]}" -eq 1 ]
	[ "$output" = "envparity log: store $url: cannot fetch: authentication required; ENVPARITY_GIT_TOKEN was not sent: the request was redirected to https://127.0.0.1:$thief, not the store's own https://127.0.0.1:$GIT_HTTP_PORT" ]
	[ -s "$thief_log" ]
	! grep -q -- "$secret" "$thief_log" || false

	# Another host (localhost is not 127.0.0.1), on the first request.
	: >"$thief_log"
	start_git_http "$T/srv" nobody:none --tls "$TLS_CERT" "$TLS_KEY" \
	    --redirect "https://localhost:$thief"
	echo '{"schema": "envparity/manifest@1", "meta": {}, "facts": {"a": "1"}}' >m.json
	run "$EP" bless --store "https://127.0.0.1:$GIT_HTTP_PORT/s.git" m.json
	[ "$status" -eq 3 ]
	[[ "$output" == *"ENVPARITY_GIT_TOKEN was not sent: the request was redirected to https://localhost:$thief, not the store's own https://127.0.0.1:$GIT_HTTP_PORT" ]]
	! grep -q -- "$secret" "$thief_log" || false
	[ -z "$(git --git-dir=srv/s.git for-each-ref)" ]
}

@test "GitLab CI: ENVPARITY_GIT_TOKEN=\$CI_JOB_TOKEN goes as gitlab-ci-token's (the URL's user when it names one); any other token as x-access-token's" {
	secret=job-$RANDOM$RANDOM-tok
	mkdir srv
	git init -q --bare -b main srv/s.git
	make_tls_cert
	export GIT_SSL_CAINFO=$TLS_CA
	echo '{"schema": "envparity/manifest@1", "meta": {}, "facts": {"a": "1"}}' >m.json

	# GitLab's job token: user gitlab-ci-token, named in the store URL.
	start_git_http "$T/srv" "gitlab-ci-token:$secret" --tls "$TLS_CERT" "$TLS_KEY"
	CI_JOB_TOKEN=$secret ENVPARITY_GIT_TOKEN=$secret run "$EP" bless -q \
	    --store "https://gitlab-ci-token@127.0.0.1:$GIT_HTTP_PORT/s.git" m.json
	[ "$status" -eq 0 ]
	grep -qx "gitlab-ci-token:$secret" "$GIT_HTTP_AUTH_LOG"
	! grep -q "x-access-token" "$GIT_HTTP_AUTH_LOG" || false
	[ -n "$(git --git-dir=srv/s.git for-each-ref)" ]
	# The token is in no output, even with the user in the URL.
	[[ "$output" != *"$secret"* ]]

	# No user in the URL, and the token is GitLab's job token: sent as
	# gitlab-ci-token's, the only user GitLab takes it for.
	: >"$GIT_HTTP_AUTH_LOG"
	CI_JOB_TOKEN=$secret ENVPARITY_GIT_TOKEN=$secret run "$EP" log \
	    --store "https://127.0.0.1:$GIT_HTTP_PORT/s.git"
	[ "$status" -eq 0 ]
	grep -qx "gitlab-ci-token:$secret" "$GIT_HTTP_AUTH_LOG"
	[[ "$output" != *"$secret"* ]]

	# No user in the URL and any other token: x-access-token's password,
	# which this server (gitlab-ci-token only) refuses.
	: >"$GIT_HTTP_AUTH_LOG"
	CI_JOB_TOKEN=other ENVPARITY_GIT_TOKEN=$secret run "$EP" log \
	    --store "https://127.0.0.1:$GIT_HTTP_PORT/s.git"
	[ "$status" -eq 3 ]
	grep -qx "x-access-token:$secret" "$GIT_HTTP_AUTH_LOG"
	[[ "$output" != *"$secret"* ]]
}
