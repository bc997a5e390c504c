#!/usr/bin/env bats
# output_paths.bats: one rule for every path envparity writes (capture -o,
# probe -o, the reports), tried as an attacker would.  A device node other
# than the null device (made here with mknod, never the system's own), a
# FIFO, a socket, a directory or a symbolic link at the path is refused and
# left exactly as it was; the null device is written through, never
# replaced; a regular file or a new path is replaced atomically with a mode
# no wider than 0644; "-" and /dev/stdout write through to standard
# output.

load setup

unset GITHUB_ACTIONS GITHUB_STEP_SUMMARY

FAKE=$BATS_TEST_DIRNAME/../doubles/fake_probe.sh

pair() {
	manifest a.json '{"python.pkg.x": "1"}'
	manifest b.json '{"python.pkg.x": "2"}'
}

# A character device of our own in the test's directory, a twin of
# /dev/null (1 3) or of /dev/zero (1 5, which discards writes too):
# replacing it harms nothing, and shows whether envparity would have
# replaced the real one.
devnode() { # path [major minor]
	[ "$(id -u)" = 0 ] || skip "mknod needs root"
	mknod -m 666 "$1" c "${2:-1}" "${3:-3}"
}

# Every way a path can name an output, for each writer in turn.
writers() {
	echo "capture"
	echo "probe"
	echo "json"
	echo "junit"
	echo "markdown"
}

write_to() { # writer path
	case $1 in
	capture) run "$EP" capture -q --no-discover -o "$2" ;;
	probe) mkdir -p site state
		FAKE_PROBE_STATE=$T/state run "$EP" probe --probe "$FAKE" \
		    --backend cpu --runs 1 --no-discover --site-packages site \
		    -o "$2" ;;
	*) run "$EP" diff a.json b.json "--$1" "$2" ;;
	esac
}

@test "the null device, by any name, is written through and stays a device, for every writer; another device is refused" {
	pair
	devnode null
	devnode zero 1 5
	for w in $(writers); do
		write_to "$w" "$T/null"
		echo "$w: $output"
		[ "$status" -le 1 ]
		[[ "$output" != *"refused"* ]]
		[ -c null ]
		[ "$(stat -c %t:%T null)" = 1:3 ]
		write_to "$w" "$T/zero"
		[ "$status" -eq 2 ]
		[[ "$output" == *"zero: refused: a character device, not a regular file"*"only the null device is written through)"* ]]
		[ -c zero ]
		[ "$(stat -c %t:%T zero)" = 1:5 ]
	done
	# Every report to it at once: no clash, as nothing is kept.
	run "$EP" diff a.json b.json --json null --junit null --markdown null --prom null
	[ "$status" -eq 1 ]
	[ -c null ]
	# A link to it is still a link: refused.
	ln -s null null-link
	run "$EP" diff a.json b.json --json null-link
	[ "$status" -eq 2 ]
	[[ "$output" == *"null-link: refused: a symbolic link"* ]]
	[ "$(ls -A | grep -c tmp)" = 0 ]
}

@test "a FIFO, a socket or a directory at an output path is refused and left alone" {
	pair
	mkfifo fifo
	python3 -c 'import socket; s = socket.socket(socket.AF_UNIX); s.bind("sock")'
	mkdir dir
	for w in $(writers); do
		write_to "$w" fifo
		[ "$status" -eq 2 ]
		[[ "$output" == *"fifo: refused: a FIFO, not a regular file"* ]]
		[ -p fifo ]
		write_to "$w" sock
		[ "$status" -eq 2 ]
		[[ "$output" == *"sock: refused: a socket, not a regular file"* ]]
		[ -S sock ]
		write_to "$w" dir
		[ "$status" -eq 2 ]
		[[ "$output" == *"dir: refused: a directory, not a regular file"* ]]
		[ -z "$(ls -A dir)" ]
	done
}

@test "a symbolic link at an output path is never followed: link and target untouched" {
	pair
	mkdir victim
	echo precious > victim/authorized_keys
	chmod 600 victim/authorized_keys
	ln -s victim/authorized_keys link
	ln -s victim/nothing-yet dangling
	for w in $(writers); do
		write_to "$w" link
		echo "$w: $output"
		[ "$status" -eq 2 ]
		[[ "$output" == *"link: refused: a symbolic link"* ]]
		[ -L link ]
		[ "$(cat victim/authorized_keys)" = precious ]
		write_to "$w" dangling
		[ "$status" -eq 2 ]
		[ -L dangling ]
		[ ! -e victim/nothing-yet ]
	done
	[ "$(stat -c %a victim/authorized_keys)" = 600 ]
}

@test "a link committed at a report path in the checkout does not reach its target" {
	pair
	mkdir -p home/.ssh envparity-reports
	echo 'ssh-ed25519 AAAA me' > home/.ssh/authorized_keys
	ln -s "$T/home/.ssh/authorized_keys" envparity-reports/report.json
	run "$EP" diff a.json b.json --json envparity-reports/report.json \
	    --junit envparity-reports/report.xml
	[ "$status" -eq 2 ]
	[ "$(cat home/.ssh/authorized_keys)" = 'ssh-ed25519 AAAA me' ]
	# Refused before anything was written.
	[ ! -e envparity-reports/report.xml ]
}

@test "new outputs are 0644 at most whatever the umask; a replaced file keeps a narrower mode" {
	pair
	umask 000
	"$EP" capture -q --no-discover -o m.json
	[ "$(stat -c %a m.json)" = 644 ]
	"$EP" diff a.json b.json --json r.json --junit r.xml --markdown r.md || true
	[ "$(stat -c %a r.json r.xml r.md | sort -u)" = 644 ]
	chmod 600 r.json
	chmod 666 r.xml
	"$EP" diff a.json b.json --json r.json --junit r.xml || true
	[ "$(stat -c %a r.json)" = 600 ]
	[ "$(stat -c %a r.xml)" = 644 ]
	umask 077
	"$EP" capture -q --no-discover -o n.json
	[ "$(stat -c %a n.json)" = 600 ]
}

@test "- and /dev/stdout write through to standard output; the summary moves to standard error" {
	pair
	run "$EP" capture -q --no-discover -o -
	[ "$status" -eq 0 ]
	echo "$output" | jq -e '.schema == "envparity/manifest@1"'
	"$EP" diff a.json b.json --json - > out 2> err || [ $? -eq 1 ]
	jq -e '.schema == "envparity/report@1" and ([.results[] | select(.status == "fail")] | length == 1)' out
	grep -q 'envparity diff: DRIFT' err
	"$EP" diff a.json b.json --junit /dev/stdout > out.xml 2> err || true
	xmllint --noout out.xml
	grep -q 'envparity diff: DRIFT' err
	run "$EP" diff a.json b.json --json - --junit /dev/stdout
	[ "$status" -eq 2 ]
	[ "${#lines[@]}" -eq 1 ]
	[ "$output" = "envparity diff: --json and --junit both asked for standard output; only one output can take it" ]
}

@test "bad output paths are refused before any work is done" {
	pair
	devnode null 1 5
	# The capture would take a while; the refusal must not.
	run "$EP" capture -q --no-discover -o "$T/null" --image 127.0.0.1:1/never:resolved \
	    --insecure-registry 127.0.0.1:1
	[ "$status" -eq 2 ]
	[[ "$output" != *"127.0.0.1:1"* ]]
	[ -c null ]
}

@test "a step summary path that is a link or a FIFO is refused, its target untouched" {
	pair
	echo precious > target
	ln -s target summary-link
	GITHUB_STEP_SUMMARY=$T/summary-link run "$EP" diff a.json b.json
	[ "$status" -eq 2 ]
	[[ "$output" == *"summary-link: refused: a symbolic link"* ]]
	[ "$(cat target)" = precious ]
	mkfifo summary-fifo
	GITHUB_STEP_SUMMARY=$T/summary-fifo run timeout 10 "$EP" diff a.json b.json
	[ "$status" -eq 2 ]
	[[ "$output" == *"summary-fifo: refused: not a regular file"* ]]
}

@test "a relative output path is never written through a folder that is a link" {
	pair
	mkdir -p elsewhere real/sub
	ln -s elsewhere reports
	for w in $(writers); do
		write_to "$w" reports/r.out
		echo "$w: $output"
		[ "$status" -eq 2 ]
		[[ "$output" == *"reports/r.out: refused: reports is a symbolic link (a relative output path is never written through one)"* ]]
	done
	[ -z "$(ls -A elsewhere)" ]
	# Real folders, . and .. are fine; an absolute path is the user's.
	"$EP" diff a.json b.json --json ./real/sub/../sub/r.json || true
	jq -e .schema real/sub/r.json
	"$EP" diff a.json b.json --json "$T/reports/abs.json" || true
	[ -f elsewhere/abs.json ]
}
