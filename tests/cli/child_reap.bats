#!/usr/bin/env bats
# child_reap.bats: nothing a child of envparity starts outlives it.  A
# process group is not enough: each test's child starts a grandchild that
# calls setsid (a session and group of its own), records its pid in
# $T/*.pid and sleeps; by the time envparity returns it must be gone.

load setup
load child

setup_file() {
	mkdir -p "$BATS_FILE_TMPDIR/site"
}

# Shell lines that start the setsid sleeper with the given redirections
# and wait until it has written its pid to file.
sleeper() { # file [redirections]
	cat <<EOF
setsid sh -c 'echo \$\$ >"$1"; exec sleep 1000' $2 &
while [ ! -s "$1" ]; do sleep 0.01; done
EOF
}

probe() { # arguments for envparity probe
	XDG_CACHE_HOME=$BATS_FILE_TMPDIR/cache run "$EP" probe --backend cpu \
		--runs 1 --no-discover --site-packages "$BATS_FILE_TMPDIR/site" "$@"
}

@test "probe: a hung run's setsid grandchild is killed at the timeout" {
	{
		echo '#!/bin/sh'
		sleeper "$T/stray.pid" '</dev/null >/dev/null 2>&1'
		echo 'sleep 1000'
	} >probe.sh
	chmod +x probe.sh
	probe --probe "$T/probe.sh" --timeout 1
	[ "$status" -eq 1 ]
	[[ "$output" == *"run 1 of cpu: hung, killed after 1 s"* ]]
	pid=$(pid_in stray.pid)
	gone "$pid"
}

@test "probe: a grandchild left holding the output is killed when the probe exits, not at the timeout" {
	{
		echo '#!/bin/sh'
		sleeper "$T/stray.pid"
		echo 'exit 0'
	} >probe.sh
	chmod +x probe.sh
	start=$SECONDS
	probe --probe "$T/probe.sh" --timeout 30
	# No lines: the contract is broken, but the run ended.
	[ "$status" -eq 1 ]
	[[ "$output" != *"hung"* ]]
	[ $((SECONDS - start)) -lt 20 ]
	pid=$(pid_in stray.pid)
	gone "$pid"
}

@test "libraries: a library constructor's setsid daemon goes with its child" {
	mkdir lib
	cat >lib.c <<EOF
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>
__attribute__((constructor)) static void
daemonize(void)
{
	pid_t mid = fork(), pid;

	if (mid == 0) {
		if ((pid = fork()) == 0) {
			setsid();
			for (;;)
				pause();
		}
		FILE *f = fopen("$T/stray.pid", "w");
		fprintf(f, "%d\n", (int)pid);
		fclose(f);
		_exit(0);
	}
	waitpid(mid, NULL, 0);
}
int cudaRuntimeGetVersion(int *v) { *v = 13000; return 0; }
EOF
	cc -shared -fPIC -o lib/libcudart.so.13 lib.c
	XDG_CACHE_HOME=$BATS_FILE_TMPDIR/cache run "$EP" capture -q --no-discover \
		--site-packages "$BATS_FILE_TMPDIR/site" --lib-path "$T/lib" -o m.json
	[ "$status" -eq 0 ]
	[ "$(fact m.json lib.cudart.version)" = 13.0 ]
	pid=$(pid_in stray.pid)
	gone "$pid"
}

@test "python: an interpreter wrapper's setsid grandchild is killed, and does not hold up the answer" {
	py=$(real_python)
	{
		echo '#!/bin/sh'
		sleeper "$T/stray.pid"
		echo "exec \"$py\" \"\$@\""
	} >python-wrapper
	chmod +x python-wrapper
	run "$EP" capture -q --no-discover --python "$T/python-wrapper" -o m.json
	[ "$status" -eq 0 ]
	[ -z "$(jq -r '.meta.unavailable.python // empty' m.json)" ]
	[ -n "$(fact m.json python.version)" ]
	pid=$(pid_in stray.pid)
	gone "$pid"
}
