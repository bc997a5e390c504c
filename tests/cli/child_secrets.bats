#!/usr/bin/env bats
# child_secrets.bats: what envparity's children get.  On a CI runner the
# current directory is the checkout of a pull request, the environment
# holds the store token, and envparity starts an interpreter, loads CUDA
# libraries found where the checkout can put them, and runs the probe.
# Each test is the attack itself: code the checkout controls tries to run,
# and to read the credentials (child.bash exports them, marked).

load setup
load child

setup_file() {
	mkdir -p "$BATS_FILE_TMPDIR/site"
}

# Code that writes the environment it sees to $T/leak when imported.
leaky_module() { # file
	cat >"$1" <<EOF
import os
open("$T/leak", "w").write(repr(sorted(os.environ.items())))
EOF
}

# Capture from the checkout $T/co; arguments go to envparity capture.
capture_in_co() {
	cd "$T/co"
	run "$EP" capture -q --no-discover -o "$T/m.json" "$@"
	cd "$T"
}

@test "python: a json.py in the checkout is not imported" {
	py=$(real_python)
	want=$("$py" -c 'import platform; print(platform.python_version())')
	secrets
	mkdir co
	leaky_module co/json.py
	capture_in_co --python "$py"
	[ "$status" -eq 0 ]
	[ ! -e leak ]
	[ "$(fact m.json python.version)" = "$want" ]
	[ -z "$(jq -r '.meta.unavailable.python // empty' m.json)" ]
}

@test "python: a sitecustomize.py on PYTHONPATH is not imported" {
	py=$(real_python)
	secrets
	mkdir co
	leaky_module co/sitecustomize.py
	PYTHONPATH=$T/co capture_in_co --python "$py"
	[ "$status" -eq 0 ]
	[ ! -e leak ]
	[ -n "$(fact m.json python.version)" ]
}

@test "python: no usercustomize.py runs; the user site is still listed" {
	py=$(real_python)
	secrets
	mkdir co
	leaky_module co/usercustomize.py
	# The checkout as HOME, with a user site of its own.
	usite=$(HOME=$T/co "$py" -c 'import site; print(site.getusersitepackages())')
	mkdir -p "$usite/User_Only-0.1.dist-info"
	printf 'Name: User_Only\nVersion: 0.1\n\n' >"$usite/User_Only-0.1.dist-info/METADATA"
	leaky_module "$usite/usercustomize.py"
	HOME=$T/co PYTHONPATH=$T/co capture_in_co --python "$py"
	[ "$status" -eq 0 ]
	[ ! -e leak ]
	[ "$(fact m.json python.pkg.user-only)" = 0.1 ]
	# PYTHONNOUSERSITE still means what it says.
	HOME=$T/co PYTHONNOUSERSITE=1 capture_in_co --python "$py"
	[ "$status" -eq 0 ]
	[ -z "$(fact m.json python.pkg.user-only)" ]
}

@test "python: the interpreter runs isolated, from /, without credentials or PYTHON* variables" {
	py=$(real_python)
	secrets
	mkdir co
	cat >co/python-wrapper <<EOF
#!/bin/sh
env >"$T/wrapper.env"
pwd >"$T/wrapper.pwd"
echo "\$1 \$2" >"$T/wrapper.arg1"
exec "$py" "\$@"
EOF
	chmod +x co/python-wrapper
	: >co/env.sh
	PYTHONPATH=$T/co PYTHONSTARTUP=$T/co/startup.py BASH_ENV=$T/co/env.sh \
		capture_in_co --python "$T/co/python-wrapper"
	[ "$status" -eq 0 ]
	[ -n "$(fact m.json python.version)" ]
	! grep -q "$MARK" wrapper.env || false
	grep -qx LC_IDENTIFICATION=kept-by-children wrapper.env
	! grep -q EP_CHILD_DROP wrapper.env || false
	grep -qx "PATH=$PATH" wrapper.env
	! grep -qE '^(PYTHONPATH|PYTHONSTARTUP|BASH_ENV)=' wrapper.env || false
	# A pyenv shim run from / still finds the checkout's .python-version.
	grep -qx "PYENV_DIR=$T/co" wrapper.env
	[ "$(cat wrapper.pwd)" = / ]
	# Isolated, and site.py's main() never runs (no .pth executed).
	[ "$(cat wrapper.arg1)" = "-I -S" ]
}

@test "python: a real pyenv shim, run from /, picks the checkout's .python-version" {
	command -v pyenv >/dev/null || skip "no pyenv here"
	shim=$(pyenv root)/shims/python3
	[ -x "$shim" ] || skip "no pyenv python3 shim"
	mkdir co
	# "system" is a choice envparity leaves to pyenv: the shim runs.
	echo system >co/.python-version
	want=$(cd co && "$shim" -c 'import platform; print(platform.python_version())')
	secrets
	capture_in_co --python "$shim"
	[ "$status" -eq 0 ]
	[ "$(fact m.json python.version)" = "$want" ]
}

@test "python: Python 2.7, which has no -I, runs with -E -s -S from /" {
	py2=
	for c in /usr/bin/python2.7 /usr/local/bin/python2.7 \
	    "${PYENV_ROOT:-/nonexistent}"/versions/2.7*/bin/python2.7; do
		[ -x "$c" ] && { py2=$c; break; }
	done
	[ -n "$py2" ] || skip "no Python 2.7 here"
	want=$("$py2" -c 'import platform; print(platform.python_version())')
	secrets
	mkdir co
	leaky_module co/json.py
	leaky_module co/sitecustomize.py
	PYTHONPATH=$T/co capture_in_co --python "$py2"
	[ "$status" -eq 0 ]
	[ ! -e leak ]
	[ "$(fact m.json python.version)" = "$want" ]
}

@test "python: a venv's own interpreter, named relative to the checkout, still finds its site-packages" {
	python3 -m venv --without-pip "$T/co/venv"
	# Without a version in pyvenv.cfg the interpreter has to be run.
	sed -i '/^version/d' co/venv/pyvenv.cfg
	site=$(echo "$T"/co/venv/lib/python*/site-packages)
	mkdir "$site/Venv_Only-0.1.dist-info"
	printf 'Name: Venv_Only\nVersion: 0.1\n\n' >"$site/Venv_Only-0.1.dist-info/METADATA"
	capture_in_co --python venv/bin/python
	[ "$status" -eq 0 ]
	[ -z "$(jq -r '.meta.unavailable.python // empty' m.json)" ]
	[ -n "$(fact m.json python.version)" ]
	[ "$(fact m.json python.pkg.venv-only)" = 0.1 ]
}

@test "python: a python3 planted in a relative PATH entry is never run" {
	secrets
	mkdir -p co/bin
	for f in co/python3 co/bin/python3; do
		printf '#!/bin/sh\nenv >"%s/leak"\nexit 1\n' "$T" >"$f"
		chmod +x "$f"
	done
	for p in ".:/usr/bin:/bin" ":/usr/bin:/bin" "/usr/bin:/bin:" "bin:/usr/bin:/bin"; do
		PATH=$p capture_in_co
		[ "$status" -eq 0 ]
		[ ! -e leak ]
	done
}

@test "libraries: a libcudart under --lib-path sees no credentials when loaded" {
	secrets
	mkdir lib
	cat >lib.c <<EOF
#include <stdio.h>
extern char **environ;
__attribute__((constructor)) static void
dump(void)
{
	FILE *f = fopen("$T/lib.env", "w"), *p;
	int c;

	for (char **e = environ; *e != NULL; e++)
		fprintf(f, "%s\n", *e);
	/* And the block the process started with. */
	if ((p = fopen("/proc/self/environ", "r")) != NULL) {
		while ((c = getc(p)) != EOF)
			putc(c == 0 ? '\n' : c, f);
		fclose(p);
	}
	fclose(f);
}
int cudaRuntimeGetVersion(int *v) { *v = 13000; return 0; }
EOF
	cc -shared -fPIC -o lib/libcudart.so.13 lib.c
	XDG_CACHE_HOME=$BATS_FILE_TMPDIR/cache run "$EP" capture -q --no-discover \
		--site-packages "$BATS_FILE_TMPDIR/site" --lib-path "$T/lib" -o m.json
	[ "$status" -eq 0 ]
	[ "$(fact m.json lib.cudart.path)" = "$T/lib/libcudart.so.13" ]
	[ "$(fact m.json lib.cudart.version)" = 13.0 ]
	[ -s lib.env ]
	! grep -q "$MARK" lib.env || false
	grep -qx LC_IDENTIFICATION=kept-by-children lib.env
	! grep -q EP_CHILD_DROP lib.env || false
}

@test "probe: envparity-probe gets no credentials, and what it needs" {
	secrets
	cat >probe.sh <<EOF
#!/bin/sh
env >"$T/probe.env"
EOF
	chmod +x probe.sh
	CUDA_VISIBLE_DEVICES=3 LD_LIBRARY_PATH=$T/nolib \
		XDG_CACHE_HOME=$BATS_FILE_TMPDIR/cache run "$EP" probe \
		--probe "$T/probe.sh" --backend cpu --runs 1 --no-discover \
		--site-packages "$BATS_FILE_TMPDIR/site"
	[ -s probe.env ]
	! grep -q "$MARK" probe.env || false
	grep -qx LC_IDENTIFICATION=kept-by-children probe.env
	! grep -q EP_CHILD_DROP probe.env || false
	grep -qx CUDA_VISIBLE_DEVICES=3 probe.env
	grep -qx "LD_LIBRARY_PATH=$T/nolib" probe.env
}

@test "probe: an envparity-probe planted in a relative PATH entry is never run" {
	secrets
	mkdir -p bin co/sub
	# No probe beside this copy: PATH is where it would look next.
	cp "$EP" bin/envparity
	for f in co/envparity-probe co/sub/envparity-probe; do
		printf '#!/bin/sh\nenv >"%s/leak"\nexit 1\n' "$T" >"$f"
		chmod +x "$f"
	done
	cd co
	for p in ".:/usr/bin:/bin" ":/usr/bin:/bin" "/usr/bin:/bin:" "sub:/usr/bin:/bin"; do
		PATH=$p XDG_CACHE_HOME=$BATS_FILE_TMPDIR/cache run "$T/bin/envparity" \
			probe --backend cpu --runs 1 --no-discover \
			--site-packages "$BATS_FILE_TMPDIR/site"
		[ "$status" -eq 3 ]
		[[ "$output" == *"envparity-probe not found in $T/bin nor on PATH (relative and empty PATH entries are never searched;"* ]]
		[ ! -e "$T/leak" ]
	done
}
