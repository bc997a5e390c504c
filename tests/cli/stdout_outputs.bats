#!/usr/bin/env bats
# stdout_outputs.bats: every output option of every command takes "-" and
# /dev/stdout for standard output, and then standard output carries that
# output alone (the whole of it parses: jq for JSON, xmllint for XML,
# promtool for metrics), the human summary going to standard error; two
# outputs asking for standard output is exit 2 with one line.  The rule
# for other paths (outfile.h) is output_paths.bats'.

load setup

FAKE=$BATS_TEST_DIRNAME/../doubles/fake_probe.sh

setup_file() {
	export XDG_CACHE_HOME=$BATS_FILE_TMPDIR/cache
}

pair() {
	manifest a.json '{"python.pkg.x": "1"}'
	manifest b.json '{"python.pkg.x": "2"}'
}

nodes() {
	mkdir -p d
	for n in n1 n2 n3; do
		manifest "d/$n.json" '{"os.id": "debian", "python.pkg.x": "1"}' \
		    "{\"node\": \"$n\", \"host\": \"vm\"}"
	done
}

keys() {
	openssl genpkey -algorithm ed25519 -out key.pem 2>/dev/null
	chmod 600 key.pem
}

# Standard output (out) is exactly one document of the kind: kind json,
# xml (against our JUnit schema), md, prom or envelope; nothing of the
# summary in it.
only() { # kind file
	case $1 in
	json) jq -e 'type == "object" and .schema != null' "$2" >/dev/null ;;
	manifest) jq -e '.schema == "envparity/manifest@1"' "$2" >/dev/null ;;
	envelope) jq -e '.payloadType == "application/vnd.in-toto+json"' "$2" >/dev/null ;;
	xml) xmllint --noout --schema "$REPO_ROOT/manifests/junit.xsd" "$2" ;;
	md) head -1 "$2" | grep -q '^## envparity ' ;;
	prom) promtool check metrics < "$2" ;;
	esac
	# A JSON document is one value: jq -s counts them.
	case $1 in json|manifest|envelope) [ "$(jq -s length "$2")" = 1 ] ;; esac
	! grep -qE '^envparity [a-z]+: |^[0-9]+ results: |^probe: ' "$2"
}

# Run a command with its output on standard output, once with "-" and
# once with /dev/stdout: check out and the summary on standard error.
both() { # kind summary-regex command...
	local kind=$1 want=$2 to
	shift 2
	for to in - /dev/stdout; do
		"$@" "$to" > out 2> err || [ $? -eq 1 ]
		echo "$* $to:" >&2
		cat err >&2
		only "$kind" out
		[ -z "$want" ] || grep -qE "$want" err
	done
}

@test "capture -o - and -o /dev/stdout: the manifest alone" {
	both manifest "" "$EP" capture --no-discover -o
	both manifest "" "$EP" capture --no-discover --output
}

@test "diff: each report on standard output alone, the summary on standard error" {
	pair
	both json 'envparity diff: DRIFT' "$EP" diff a.json b.json --json
	both xml 'envparity diff: DRIFT' "$EP" diff a.json b.json --junit
	both md 'envparity diff: DRIFT' "$EP" diff a.json b.json --markdown
	both prom 'envparity diff: DRIFT' "$EP" diff a.json b.json --prom
	# -q: still the verdict, still on standard error.
	both json 'envparity diff: DRIFT' "$EP" diff -q a.json b.json --json
}

@test "check: each report, -o and --attest on standard output alone" {
	mkdir sp
	keys
	"$EP" bless -q --no-discover --site-packages sp > /dev/null
	c=("$EP" check --no-discover --site-packages sp)
	both json 'envparity check: ' "${c[@]}" --json
	both xml 'envparity check: ' "${c[@]}" --junit
	both md 'envparity check: ' "${c[@]}" --markdown
	both prom 'envparity check: ' "${c[@]}" --prom
	both manifest 'envparity check: ' "${c[@]}" --json r.json -o
	jq -e '.command == "check"' r.json
	both envelope 'envparity check: ' "${c[@]}" --sign-key key.pem --attest
}

@test "fleet: each report and --attest on standard output alone" {
	nodes
	keys
	both json 'envparity fleet: PARITY' "$EP" fleet d --json
	both xml 'envparity fleet: PARITY' "$EP" fleet d --junit
	both md 'envparity fleet: PARITY' "$EP" fleet d --markdown
	both prom 'envparity fleet: PARITY' "$EP" fleet d --prom
	both envelope 'envparity fleet: PARITY' "$EP" fleet d --sign-key key.pem --attest
	# Options after the directory (fleet permutes).
	both json 'envparity fleet: PARITY' "$EP" fleet --json - d -q --json
}

@test "probe: -o and each report on standard output alone" {
	mkdir -p state site
	export FAKE_PROBE_STATE=$T/state
	p=("$EP" probe --probe "$FAKE" --no-discover --site-packages site --backend cpu --runs 2)
	both manifest '^probe: 5 passed' "${p[@]}" -o
	both json '^probe: 5 passed' "${p[@]}" --json
	both xml '^probe: 5 passed' "${p[@]}" --junit
	both md '^probe: 5 passed' "${p[@]}" --markdown
	both prom '^probe: 5 passed' "${p[@]}" --prom
}

@test "two outputs on standard output: exit 2, one line, nothing written" {
	pair
	nodes
	keys
	for args in "--json - --junit /dev/stdout" "--junit /dev/stdout --markdown -" \
	    "--markdown - --prom -"; do
		run "$EP" diff a.json b.json $args
		echo "$output"
		[ "$status" -eq 2 ]
		[ "${#lines[@]}" -eq 1 ]
		[[ "$output" == "envparity diff: --"*" and --"*" both asked for standard output; only one output can take it" ]]
	done
	run "$EP" fleet d --json - --sign-key key.pem --attest /dev/stdout
	[ "$status" -eq 2 ]
	[ "$output" = "envparity fleet: --json and --attest both asked for standard output; only one output can take it" ]
	run "$EP" capture --no-discover -o - -o /dev/stdout
	[ "$status" -eq 0 ]	# the last -o counts, as any repeated option
	# Standard error is another stream: a report there and one on
	# standard output is fine.
	"$EP" diff a.json b.json --json - --markdown /dev/stderr > out 2> err || true
	only json out
	grep -q '^## envparity diff: DRIFT' err
}

@test "/dev/stdout is the stream, not a link to follow: other links stay refused" {
	pair
	ln -s /dev/stdout mystdout
	ln -s /proc/self/fd/1 myfd
	for l in mystdout myfd; do
		run "$EP" diff a.json b.json --json "$l"
		[ "$status" -eq 2 ]
		[[ "$output" == *"$l: refused: a symbolic link"* ]]
	done
	run "$EP" diff a.json b.json --json /proc/self/fd/1
	[ "$status" -eq 2 ]
}

@test "the real /dev/null as root is written through, as - is to standard output, and stays a character device" {
	[ "$(id -u)" = 0 ] || skip "only root could replace /dev/null"
	[ -c /dev/null ]
	pair
	run "$EP" diff a.json b.json --json /dev/null --junit /dev/null \
	    --markdown /dev/null --prom /dev/null
	ok=0
	[ -c /dev/null ] && [ "$(stat -c %t:%T /dev/null)" = 1:3 ] && ok=1
	if [ "$ok" = 0 ]; then
		# Put it back before failing: the machine needs it.
		rm -f /dev/null
		mknod -m 666 /dev/null c 1 3
	fi
	[ "$ok" = 1 ]
	[ "$status" -eq 1 ]
	[[ "$output" == *"DRIFT"* ]]
	[[ "$output" != *"refused"* ]]
}
