#!/usr/bin/env bats
# progress.bats: the progress line on standard error (util/progress.c):
# shown on a terminal (a pseudo-terminal here, python3's pty module), not
# into a pipe, not in CI, unless --progress; never with --no-progress;
# rewritten in place with \r and wiped at the end, so nothing of it is
# left; never text of the input.  The work: hashing a large sparse
# artifact, and resolving references against a registry that stalls
# (bad_registry.py).

load setup
load registry

setup_file() {
	unset REGISTRY_AUTH_FILE XDG_RUNTIME_DIR DOCKER_CONFIG
	reg_start_bad "$BATS_FILE_TMPDIR/bad" || return 1
	export BAD=$BAD_HOST
}

teardown_file() {
	reg_stop_all
}

# Run a command with standard error on a pseudo-terminal, standard output
# to a file; what the terminal got into the file err.
on_tty() { # command...
	python3 - "$@" <<-'PY'
	import os, pty, subprocess, sys
	m, s = pty.openpty()
	with open("out", "wb") as out:
	    p = subprocess.Popen(sys.argv[1:], stdin=subprocess.DEVNULL,
	                         stdout=out, stderr=s)
	os.close(s)
	buf = b""
	while True:
	    try:
	        d = os.read(m, 65536)
	    except OSError:
	        break
	    if not d:
	        break
	    buf += d
	open("err", "wb").write(buf)
	sys.exit(p.wait())
	PY
}

# A capture with enough to hash for the line to be drawn (it waits
# 100 ms): a sparse 1 GiB artifact, nothing cached.
hashing() {
	truncate -s 1G "$T/model.bin"
	# The cache holds this machine's libraries (setup.bash): the
	# gigabyte is what is hashed.
	echo "$EP" capture -q --no-discover --artifact "$T/model.bin" -o m.json
}

drawn() { grep -q $'\rhashing: [0-9]*/[0-9]* files, ' err; }

# The last bytes wipe the line: \r, spaces, \r.
wiped() { tail -c 400 err | tr -d '\n' | grep -qE $'\r +\r$'; }

@test "on a terminal: hashing progress drawn in place and wiped; the manifest intact" {
	t0=$(date +%s%N)
	on_tty $(hashing)
	ms=$(( ($(date +%s%N) - t0) / 1000000 ))
	drawn
	wiped
	# Only the progress line ever: no newline from it.
	[ "$(grep -c '' err)" -le 1 ]
	jq -e --arg k "artifact.$T/model.bin.sha256" '.facts[$k] | length == 64' m.json
	# At most 10 a second: no more drawings than the 100 ms the run
	# lasted.
	n=$(tr '\r' '\n' < err | grep -c '^hashing: ')
	echo "drawn $n times in $ms ms"
	[ "$n" -ge 1 ]
	[ "$n" -le $((ms / 100 + 1)) ]
}

@test "not in CI, not with --no-progress, not into a pipe" {
	CI=true on_tty $(hashing)
	! grep -q hashing err
	GITHUB_ACTIONS=true on_tty $(hashing)
	! grep -q hashing err
	GITLAB_CI=true on_tty $(hashing)
	! grep -q hashing err
	on_tty $(hashing) --no-progress
	! grep -q hashing err
	$(hashing) 2> err
	! grep -q hashing err
	# CI=false is not CI.
	CI=false on_tty $(hashing)
	drawn
}

@test "--progress: into a pipe and in CI too, and still wiped" {
	$(hashing) --progress 2> err
	drawn
	wiped
	CI=true on_tty $(hashing) --progress
	drawn
	# The last of --progress/--no-progress counts.
	on_tty $(hashing) --progress --no-progress
	! grep -q hashing err
}

@test "registries: references resolved n/m, no reference named in the line" {
	run "$EP" digest --progress --insecure-registry "$BAD" --registry-timeout 2 \
	    "$BAD/good:v1" "$BAD/stall:v1"
	echo "$output"
	[ "$status" -eq 3 ]
	"$EP" digest --progress --insecure-registry "$BAD" --registry-timeout 2 \
	    "$BAD/good:v1" "$BAD/stall:v1" > out 2> err || true
	grep -q $'\rregistries: 1/2 references resolved' err
	# Wiped before the error, which is on a line of its own.
	grep -qE $'\r +\renvparity digest: ' err
	tr '\r' '\n' < err | grep -q "^envparity digest: $BAD/stall:v1: registry $BAD: timed out"
	! tr '\r' '\n' < err | grep '^registries' | grep -q stall
	# Without --progress, into a pipe: nothing.
	"$EP" digest --insecure-registry "$BAD" --registry-timeout 2 \
	    "$BAD/good:v1" "$BAD/stall:v1" > out 2> err || true
	! grep -q registries err
}

@test "probe: runs done n/m while a run hangs" {
	mkdir -p state site
	FAKE_PROBE_STATE=$T/state FAKE_PROBE_MODE=hang "$EP" probe \
	    --probe "$BATS_TEST_DIRNAME/../doubles/fake_probe.sh" --no-discover \
	    --site-packages site --backend cpu --runs 3 --timeout 1 --progress \
	    > out 2> err || true
	grep -qE $'\rprobe: [0-2]/3 runs' err
	wiped
	grep -q 'run 2 of cpu: hung' out
}

@test "every command that does long work takes --progress and --no-progress" {
	for c in capture check bless probe digest fleet; do
		run "$EP" "$c" --help
		[[ "$output" == *"--progress"* ]]
		[[ "$output" == *"--no-progress"* ]]
	done
	run "$EP" capture -q --no-discover --no-progress -o m.json
	[ "$status" -eq 0 ]
	run "$EP" diff --progress a b
	[ "$status" -eq 2 ]
	[[ "$output" == *"unknown option '--progress'"* ]]
}
