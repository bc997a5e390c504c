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

# $PYW ($T/w/bin/python-wrapper): the checkout's interpreter.  While
# $T/w/hold exists it touches $T/w/running, then waits (at most 20 s) for
# $T/w/go; then it runs the real python3.  Its world is $T/w, the one
# folder a helper may write (ENVPARITY_CHILD_DIRS): the keys, in $T, are
# out of its reach, and a folder that held one would be refused to it.
wrapper() {
	W=$T/w PYW=$T/w/bin/python-wrapper
	mkdir -p "$W/bin"
	export ENVPARITY_CHILD_DIRS=$W
	cat > "$PYW" <<EOF
#!/bin/sh
if [ -e "$W/hold" ]; then
	: > "$W/running"
	i=0
	while [ ! -e "$W/go" ] && [ \$i -lt 200 ]; do sleep 0.1; i=\$((i + 1)); done
fi
exec python3 "\$@"
EOF
	chmod +x "$PYW"
}

# The raw seed of an Ed25519 private key: what OpenSSL holds once the
# key is read.
seed_hex() { # key.pem
	openssl pkey -in "$1" -outform DER | tail -c 32 | xxd -p | tr -d '\n'
}

# The capture time of the golden in the local store: a text only
# envparity's heap holds while it runs (what shows proc_mem.py finds what
# is there).
golden_time() {
	git --git-dir=.envparity/store show main:default/manifest.json | jq -r .meta.captured_at
}

# Run "$@" (envparity) in the background, standard input $HELD_IN (default
# /dev/null), held while the checkout's interpreter runs: mem.txt gets
# the count of each of "${NEEDLES[@]}" in its memory, then it is let go.
# Sets status; its output is in out.txt.
held() {
	rm -f "$W/running" "$W/go"
	touch "$W/hold"
	"$@" < "${HELD_IN:-/dev/null}" > "$T/out.txt" 2>&1 &
	local pid=$!
	wait_running
	python3 "$BATS_TEST_DIRNAME/proc_mem.py" "$pid" "${NEEDLES[@]}" > "$T/mem.txt"
	${HELD_DO:-:}
	touch "$W/go"
	status=0
	wait "$pid" || status=$?
	rm -f "$W/hold"
	cat "$T/out.txt"
}

# A store blessed from this machine through the wrapper.
bless_wrapped() {
	wrapper
	"$EP" bless -q --no-discover --python "$PYW" > /dev/null
}

# Wait (at most 20 s) for $W/running; fail if it never comes.
wait_running() {
	local i
	for i in $(seq 200); do
		[ -e "$W/running" ] && return 0
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
	    --python "$PYW" --store "$url"
	: > "$GIT_HTTP_AUTH_LOG"

	# check, held while the checkout's interpreter runs: what its
	# environment block shows then.
	touch "$W/hold"
	ENVPARITY_GIT_TOKEN=$secret CI_JOB_TOKEN=$job EP_VISIBLE=still-here \
	    "$EP" check -q --no-discover --python "$PYW" \
	    --store "$url" > out.txt 2>&1 &
	pid=$!
	wait_running
	tr '\0' '\n' < "/proc/$pid/environ" > environ.txt
	cat "/proc/$pid/cmdline" > cmdline.txt
	# Its memory too: the token, the job token, and (to show the scan
	# finds what is there) the golden's capture time, which only the text
	# read from the store holds.  A sanitizer's runtime keeps a copy of the
	# environment it read before main(): no scan of the tokens there.
	when=$(git --git-dir=srv/s.git show main:default/manifest.json | jq -r .meta.captured_at)
	python3 "$BATS_TEST_DIRNAME/proc_mem.py" "$pid" "$secret" "$job" \
	    "$when" > mem.txt
	sanitized=0
	grep -q 'libasan\|libtsan\|libubsan' "/proc/$pid/maps" && sanitized=1
	touch "$W/go"
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
	[ "$(sed -n 3p mem.txt)" -gt 0 ]
	if [ "$sanitized" = 0 ]; then
		[ "$(sed -n 1,2p mem.txt | tr '\n' ' ')" = "0 0 " ]
	fi
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
	"$EP" bless -q --no-discover --python "$PYW"
	: > "$GIT_HTTP_AUTH_LOG"
	touch "$W/hold"
	"$EP" check -q --no-discover --python "$PYW" > out.txt 2>&1 &
	pid=$!
	wait_running
	tr '\0' '\n' < "/proc/$pid/environ" > environ.txt
	touch "$W/go"
	status=0
	wait "$pid" || status=$?
	cat out.txt
	[ "$status" -eq 0 ]
	grep -q "^PATH=" environ.txt
	absent "$secret" environ.txt
	grep -qx "u:$secret" "$GIT_HTTP_AUTH_LOG"
}

@test "the signing key is read after the environment's code is done: not in envparity's memory while it runs, and the file there then signs" {
	make_keys
	bless_wrapped
	# The key file is swapped while the checkout's interpreter runs.
	NEEDLES=("hex:$(seed_hex key.pem)" "hex:$(seed_hex other.pem)" "$(golden_time)")
	HELD_DO="mv $T/other.pem $T/key.pem" held "$EP" check -q --no-discover --python "$PYW" \
	    --attest att.json --sign-key "$T/key.pem"
	[ "$status" -eq 0 ]
	cat mem.txt
	[ "$(sed -n 1,2p mem.txt | tr '\n' ' ')" = "0 0 " ]
	[ "$(sed -n 3p mem.txt)" -gt 0 ]
	# The key read was the one there after the capture.
	run "$EP" verify att.json --key other_pub.pem
	[ "$status" -eq 0 ]
	run "$EP" verify att.json --key pub.pem
	[ "$status" -eq 1 ]
	[[ "$output" == *"no signature holds"* ]]
}

@test "--sign-key - and --sign-key-fd N: the key read from a pipe after the work, into envelopes verify accepts" {
	make_keys
	bless_wrapped
	NEEDLES=("hex:$(seed_hex key.pem)" "$(golden_time)")
	mkfifo k.fifo
	cat key.pem > k.fifo &
	HELD_IN=k.fifo held "$EP" check -q --no-discover --python "$PYW" \
	    --attest a1.json --sign-key - --json r.json
	[ "$status" -eq 0 ]
	cat mem.txt
	[ "$(sed -n 1p mem.txt)" = 0 ] && [ "$(sed -n 2p mem.txt)" -gt 0 ]
	run "$EP" verify a1.json --key pub.pem
	[ "$status" -eq 0 ]
	[ "$(payload a1.json | jq -r .predicate.exitStatus)" = 0 ]
	jq -e .results r.json > /dev/null

	cat key.pem > k.fifo &
	exec 7< k.fifo
	held "$EP" check -q --no-discover --python "$PYW" \
	    --attest a2.json --sign-key-fd 7
	exec 7<&-
	[ "$status" -eq 0 ]
	[ "$(sed -n 1p mem.txt)" = 0 ]
	run "$EP" verify a2.json --key pub.pem
	[ "$status" -eq 0 ]
	# A regular file on standard input or on a descriptor serves too.
	run "$EP" check -q --no-discover --python "$PYW" \
	    --attest a3.json --sign-key - < key.pem
	[ "$status" -eq 0 ]
	"$EP" verify a3.json --key pub.pem
}

@test "no output replaces the signing key: the same path, ./, a folder through a link, a hard link; refused before the work (exit 2), the key byte for byte" {
	make_keys
	# A store with a golden, so that a run not stopped would reach its
	# outputs (and replace the key: what --json key.pem once did).
	bless_store
	cp key.pem key.orig
	ln key.pem hard.pem
	ln -s "$T" alias
	for path in key.pem ./key.pem "$T/alias/key.pem" hard.pem; do
		for opt in --json --junit --markdown --prom -o --attest --statement; do
			run ep_check --attest att.json --sign-key key.pem $opt "$path"
			echo "$opt $path: $output"
			[ "$status" -eq 2 ]
			[ "${#lines[@]}" -eq 1 ]
			[ "$output" = "envparity check: $path: refused: that is the signing key (key.pem); no output ever replaces it" ]
			cmp key.pem key.orig
		done
	done
	# Nothing else was written.
	[ ! -e att.json ]
	# Given on standard input or a descriptor, its file is known too.
	run ep_check --attest att.json --sign-key - --json hard.pem < key.pem
	[ "$status" -eq 2 ]
	[ "$output" = "envparity check: hard.pem: refused: that is the signing key (standard input); no output ever replaces it" ]
	run ep_check --attest att.json --sign-key-fd 7 --markdown ./key.pem 7< key.pem
	[ "$status" -eq 2 ]
	[ "$output" = "envparity check: ./key.pem: refused: that is the signing key (descriptor 7); no output ever replaces it" ]
	# fleet's outputs, and attest's envelope.
	mkdir nodes
	manifest nodes/n1.json '{"os.id": "debian"}' '{"node": "n1"}'
	for opt in --json --prom --attest; do
		run "$EP" fleet nodes -q --attest att.json --sign-key "$T/key.pem" $opt hard.pem
		[ "$status" -eq 2 ]
		[ "$output" = "envparity fleet: hard.pem: refused: that is the signing key ($T/key.pem); no output ever replaces it" ]
	done
	echo '{}' > st.json
	run "$EP" attest st.json --sign-key key.pem -o "$T/alias/key.pem"
	[ "$status" -eq 2 ]
	[ "$output" = "envparity attest: $T/alias/key.pem: refused: that is the signing key (key.pem); no output ever replaces it" ]
	cmp key.pem key.orig
	cmp hard.pem key.orig
	[ ! -e att.json ]
}

@test "attest: check --statement, then attest in a step of its own: the envelope check --attest writes, byte for byte; fleet's too" {
	make_keys
	bless_store
	ep_check --attest a1.json --sign-key "$T/key.pem" --statement st.json -o m.json > /dev/null
	# The statement, unsigned: what the envelope's payload is, and a
	# newline.
	validate_schema attestation st.json
	[ "$(payload a1.json)" = "$(cat st.json)" ]
	[ "$(tail -c 1 st.json | xxd -p)" = 0a ]
	# Signed apart, with the key on a descriptor: the same envelope
	# (Ed25519 signatures are deterministic).
	run "$EP" attest st.json --sign-key-fd 7 -o a2.json 7< key.pem
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$output" = "envparity attest: a2.json: signed the check of $(hostname) at $(jq -r .predicate.time st.json) ($(jq -r .predicate.verdict st.json))" ]
	cmp a1.json a2.json
	# The statement on standard input, the envelope on standard output.
	"$EP" attest - --sign-key "$T/key.pem" < st.json > a3.json
	cmp a1.json a3.json
	run "$EP" verify a3.json --key pub.pem --subject "sha256:$(jq -cjS .facts m.json | sha256sum | cut -d' ' -f1)"
	[ "$status" -eq 0 ]
	# --statement alone: no key needed, no envelope.
	ep_check --statement st2.json > /dev/null
	validate_schema attestation st2.json
	"$EP" attest st2.json --sign-key - -o a4.json < key.pem > /dev/null
	"$EP" verify a4.json --key pub.pem
	# fleet's statement.
	mkdir nodes
	manifest nodes/n1.json '{"os.id": "debian"}' '{"node": "n1"}'
	manifest nodes/n2.json '{"os.id": "debian"}' '{"node": "n2"}'
	"$EP" fleet nodes -q --statement fst.json --attest f1.json --sign-key "$T/key.pem" > /dev/null
	"$EP" attest fst.json --sign-key "$T/key.pem" -o f2.json > /dev/null
	cmp f1.json f2.json
	[ "$(payload f2.json | jq -r .predicate.command)" = fleet ]
}

@test "attest: envelopes signed apart or from a pipe are accepted by sigstore-js and securesystemslib" {
	need_sigstore
	need_sslib
	make_keys
	bless_store
	ep_check --statement st.json > /dev/null
	"$EP" attest st.json --sign-key-fd 7 -o att.json 7< key.pem > /dev/null
	cat key.pem | ep_check --attest a2.json --sign-key - > /dev/null
	for f in att.json a2.json; do
		run sigstore_verify "$f" "$T/pub.pem"
		echo "$output"
		[ "$status" -eq 0 ]
		[[ "$output" == "OK https://in-toto.io/Statement/v1 $PREDICATE "* ]]
		for mode in "" --pure; do
			run sslib_verify "$f" "$T/pub.pem" $mode
			echo "$output"
			[ "$status" -eq 0 ]
		done
		run sigstore_verify "$f" "$T/other_pub.pem"
		[ "$status" -eq 1 ]
	done
}

@test "attest: a statement that is not one, no key, a key that cannot sign: exit 2 in one line, nothing written; an unreadable statement: exit 3" {
	make_keys
	echo '{}' > empty.json
	run "$EP" attest empty.json --sign-key key.pem -o env.json
	[ "$status" -eq 2 ]
	[ "${#lines[@]}" -eq 1 ]
	[ "$output" = 'envparity attest: empty.json: not an envparity attestation: not an in-toto Statement v1 (_type "")' ]
	printf 'not json' > text.json
	run "$EP" attest text.json --sign-key key.pem -o env.json
	[ "$status" -eq 2 ]
	[ "${#lines[@]}" -eq 1 ]
	[[ "$output" == "envparity attest: text.json: not an envparity attestation: the statement is not JSON"* ]]
	# An in-toto statement of another predicate is not envparity's.
	jq -nc '{_type: "https://in-toto.io/Statement/v1", subject: [], predicateType: "https://slsa.dev/provenance/v1", predicate: {}}' > slsa.json
	run "$EP" attest slsa.json --sign-key key.pem -o env.json
	[ "$status" -eq 2 ]
	[[ "$output" == *"predicateType \"https://slsa.dev/provenance/v1\" is not $PREDICATE" ]]
	[ ! -e env.json ]
	run "$EP" attest missing.json --sign-key key.pem
	[ "$status" -eq 3 ]
	[ "$output" = "envparity attest: missing.json: cannot read: No such file or directory" ]
	run "$EP" attest empty.json
	[ "$status" -eq 2 ]
	[ "${lines[0]}" = "envparity attest: sign with --sign-key KEY.pem, --sign-key - or --sign-key-fd N (the Ed25519 private key)" ]
	run "$EP" attest - --sign-key - < key.pem
	[ "$status" -eq 2 ]
	[ "${lines[0]}" = "envparity attest: the statement and the key cannot both come from standard input" ]
	run "$EP" attest
	[ "$status" -eq 2 ]
	# A real statement, and a key of another type: read, refused, no
	# envelope.
	mkdir nodes
	manifest nodes/n1.json '{"os.id": "debian"}' '{"node": "n1"}'
	"$EP" fleet nodes -q --statement st.json > /dev/null || true
	openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out rsa.pem 2>/dev/null
	chmod 600 rsa.pem
	run "$EP" attest st.json --sign-key rsa.pem -o env.json
	[ "$status" -eq 2 ]
	[[ "$output" == "envparity attest: rsa.pem: the key is RSA, not Ed25519"* ]]
	[ ! -e env.json ]
}
