#!/usr/bin/env bats
# trust_secrets.bats: secrets enter late and leave early.  The store token
# leaves envparity's environment block before the judged environment's
# code runs, and still reaches the https store; the signing key is read
# only once that code is done, from a file, a descriptor or standard
# input, and no output ever replaces it.  The judged environment here is
# the one a pull request controls: the interpreter it names (a script in
# front of the real python3), run while the tests read envparity's
# /proc/PID as root does.

load setup
load git_daemon
load attest

setup_file() {
	unset ENVPARITY_STORE ENVPARITY_PROFILE ENVPARITY_GIT_TOKEN CI_JOB_TOKEN
}

# $T/python-wrapper: the checkout's interpreter.  While $T/hold exists it
# touches $T/running, then waits (at most 20 s) for $T/go; then it runs
# the real python3, after running the shell command in $T/act if there
# is one.
wrapper() {
	cat > "$T/python-wrapper" <<EOF
#!/bin/sh
if [ -e "$T/hold" ]; then
	[ -e "$T/act" ] && . "$T/act"
	: > "$T/running"
	i=0
	while [ ! -e "$T/go" ] && [ \$i -lt 200 ]; do sleep 0.1; i=\$((i + 1)); done
fi
exec python3 "\$@"
EOF
	chmod +x "$T/python-wrapper"
}

# Wait (at most 20 s) for $T/running; fail if it never comes.
wait_running() {
	local i
	for i in $(seq 200); do
		[ -e "$T/running" ] && return 0
		sleep 0.1
	done
	echo "the wrapper never ran"
	return 1
}

@test "the store token: gone from envparity's /proc/PID/environ while the environment runs, and still sent over https" {
	secret=tok-$RANDOM$RANDOM-s3cr3t
	job=job-$RANDOM$RANDOM-s3cr3t
	mkdir srv
	git init -q --bare -b main srv/s.git
	make_tls_cert
	export GIT_SSL_CAINFO=$TLS_CA
	start_git_http "$T/srv" "x-access-token:$secret" --tls "$TLS_CERT" "$TLS_KEY"
	url=https://127.0.0.1:$GIT_HTTP_PORT/s.git
	wrapper
	ENVPARITY_GIT_TOKEN=$secret "$EP" bless -q --no-discover \
	    --python "$T/python-wrapper" --store "$url"
	: > "$GIT_HTTP_AUTH_LOG"

	# check, held while the checkout's interpreter runs: what its
	# environment block shows then.
	touch hold
	ENVPARITY_GIT_TOKEN=$secret CI_JOB_TOKEN=$job EP_VISIBLE=still-here \
	    "$EP" check -q --no-discover --python "$T/python-wrapper" \
	    --store "$url" > out.txt 2>&1 &
	pid=$!
	wait_running
	tr '\0' '\n' < "/proc/$pid/environ" > environ.txt
	cat "/proc/$pid/cmdline" > cmdline.txt
	# Its memory too: the token, the Basic credentials libgit2 sent, and
	# (to show the scan finds what is there) the golden's capture time,
	# which only the text read from the store holds.
	when=$(git --git-dir=srv/s.git show main:default/manifest.json | jq -r .meta.captured_at)
	python3 "$BATS_TEST_DIRNAME/proc_mem.py" "$pid" "$secret" \
	    "$(printf 'x-access-token:%s' "$secret" | base64 -w0)" "$job" \
	    "$when" > mem.txt
	touch go
	status=0
	wait "$pid" || status=$?
	cat out.txt
	[ "$status" -eq 0 ]
	# That was envparity's block, read as root reads it.
	grep -qx EP_VISIBLE=still-here environ.txt
	grep -q -- "--store" cmdline.txt
	# The values are gone from it; the names stand, followed by zeros.
	absent "$secret" environ.txt
	absent "$job" environ.txt
	grep -qx ENVPARITY_GIT_TOKEN= environ.txt
	# Nor anywhere in its memory: wiped once the golden was read.
	cat mem.txt
	[ "$(sed -n 1,3p mem.txt | tr '\n' ' ')" = "0 0 0 " ]
	[ "$(sed -n 4p mem.txt)" -gt 0 ]
	# And the token still went to the store, once, over https.
	grep -qx "x-access-token:$secret" "$GIT_HTTP_AUTH_LOG"
}

@test "a store URL with a password in ENVPARITY_STORE: gone from /proc/PID/environ, and still used" {
	secret=pw-$RANDOM$RANDOM-s3cr3t
	mkdir srv
	git init -q --bare -b main srv/s.git
	make_tls_cert
	export GIT_SSL_CAINFO=$TLS_CA
	start_git_http "$T/srv" "u:$secret" --tls "$TLS_CERT" "$TLS_KEY"
	wrapper
	export ENVPARITY_STORE=https://u:$secret@127.0.0.1:$GIT_HTTP_PORT/s.git
	"$EP" bless -q --no-discover --python "$T/python-wrapper"
	: > "$GIT_HTTP_AUTH_LOG"
	touch hold
	"$EP" check -q --no-discover --python "$T/python-wrapper" > out.txt 2>&1 &
	pid=$!
	wait_running
	tr '\0' '\n' < "/proc/$pid/environ" > environ.txt
	touch go
	status=0
	wait "$pid" || status=$?
	cat out.txt
	[ "$status" -eq 0 ]
	grep -q "^PATH=" environ.txt
	absent "$secret" environ.txt
	grep -qx "u:$secret" "$GIT_HTTP_AUTH_LOG"
}
