#!/usr/bin/env bats
# fifo_hangs.bats: files that envparity finds rather than is given (a
# checkout's .python-version, an OCI layout's index.json, a registry cache
# entry) are read only when they are regular files on a real file system:
# a FIFO planted there, or a link to /proc/kmsg, must never hang the run.
# Every command runs under timeout; a hang is a failure.

load setup
load registry

unset GITHUB_ACTIONS GITHUB_STEP_SUMMARY CI GITLAB_CI

# A pyenv layout whose shim is what python3 on PATH is (capture_pyenv.bats
# has the same; here only the shim's look matters).
make_pyenv() {
	real=$(python3 -c 'import sys; print(getattr(sys, "_base_executable", None) or sys.executable)')
	mkdir -p "$T/pyenv/shims" "$T/pyenv/versions/7.7.7/bin" "$T/pyenv/libexec"
	ln -s "$real" "$T/pyenv/versions/7.7.7/bin/python3"
	echo 7.7.7 > "$T/pyenv/version"
	printf '#!/usr/bin/env bash\nshift 2\nexec "%s" "$@"\n' "$real" > "$T/pyenv/libexec/pyenv"
	printf '#!/usr/bin/env bash\nset -e\nprogram="${0##*/}"\nexport PYENV_ROOT="%s/pyenv"\nexec "%s/pyenv/libexec/pyenv" exec "$program" "$@"\n' "$T" "$T" \
	    > "$T/pyenv/shims/python3"
	chmod +x "$T/pyenv/shims/python3" "$T/pyenv/libexec/pyenv"
}

@test "a .python-version that is a FIFO does not hang the capture" {
	make_pyenv
	mkdir proj
	mkfifo proj/fifo
	ln -s fifo proj/.python-version
	cd proj
	run timeout 20 "$EP" capture -q --no-discover --python "$T/pyenv/shims/python3" -o m.json
	echo "$output"
	[ "$status" -ne 124 ]
	[ "$status" -eq 0 ]
}

@test "an OCI layout whose index.json is a FIFO is an error, not a hang" {
	mkdir layout
	printf '{"imageLayoutVersion": "1.0.0"}' > layout/oci-layout
	mkfifo layout/index.json
	run timeout 20 "$EP" digest oci:./layout
	echo "$output"
	[ "$status" -ne 124 ]
	[ "$status" -eq 2 ]
	[[ "$output" == *"index.json: a FIFO, not a regular file"* ]]
}

@test "a lockfile that is a huge sparse file found unasked is not hashed for ever" {
	truncate -s 1T big
	ln -s big requirements-huge.txt
	run timeout 30 "$EP" capture -q --no-cache -o m.json
	echo "$output"
	[ "$status" -ne 124 ]
	[ "$status" -eq 0 ]
	jq -e '.meta.warnings | any(test("requirements-huge.txt: too large to hash"))' m.json
}

@test "a FIFO in the registry cache is never read, and a cache others can write is not used" {
	command -v docker-registry >/dev/null 2>&1 || skip "no docker-registry"
	reg_start "$T/reg" || return 1
	host=$REG_HOST
	d=$(reg_push_image "$host" app v1)
	hex=${d#sha256:}
	ref="$host/app@$d"
	# Our own private cache, with a FIFO where the document would be.
	mkdir -p "$XDG_CACHE_HOME/envparity/manifests/sha256"
	chmod 700 "$XDG_CACHE_HOME/envparity"
	mkfifo "$XDG_CACHE_HOME/envparity/manifests/sha256/$hex"
	run timeout 20 "$EP" digest --insecure-registry "$host" "$ref"
	echo "$output"
	[ "$status" -ne 124 ]
	[ "$status" -eq 0 ]
	[[ "$output" == "$d "* ]]
	# A cache directory anyone can write is not used at all.
	chmod 777 "$XDG_CACHE_HOME/envparity"
	rm "$XDG_CACHE_HOME/envparity/manifests/sha256/$hex"
	run timeout 20 "$EP" digest --insecure-registry "$host" "$ref"
	[ "$status" -eq 0 ]
	[ ! -e "$XDG_CACHE_HOME/envparity/manifests/sha256/$hex" ]
	reg_stop_all || true
}
