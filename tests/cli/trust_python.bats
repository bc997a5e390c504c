#!/usr/bin/env bats
# trust_python.bats: the interpreter under test runs no code of the
# judged environment inside the gate, and one that is hostile itself
# finds neither the store token nor the signing key.  The gate is a real
# one (trust.bash: check against an https store that takes a token, with
# --attest and --sign-key), the venv a real one, the package in it laid
# out as a wheel installs it: a .pth file among its files, whose import
# line site.py executes, runs a spy that tries /proc/PPID/environ, the
# key named on the gate's command line, and the gate's memory.

load setup
load git_daemon
load trust

# A venv with the spy installed as a wheel would install it.  pyvenv.cfg
# names no version (as other tools than venv may write it), so that the
# interpreter itself is asked for its paths.
venv_with_pth() {
	local site di
	python3 -m venv --without-pip "$T/venv"
	sed -i '/^version/d' "$T/venv/pyvenv.cfg"
	site=$(echo "$T"/venv/lib/python3*/site-packages)
	write_python_spy "$site/zz_spy.py"
	printf "import zz_spy, os; zz_spy.spy('%s', os.getppid())\n" \
	    "$T/spy/report" >"$site/zz.pth"
	di=$site/zz_spy-1.0.dist-info
	mkdir "$di"
	printf 'Metadata-Version: 2.1\nName: zz-spy\nVersion: 1.0\n\n' >"$di/METADATA"
	printf 'Wheel-Version: 1.0\nRoot-Is-Purelib: true\nTag: py3-none-any\n' >"$di/WHEEL"
	printf '%s,,\n' zz_spy.py zz.pth zz_spy-1.0.dist-info/METADATA \
	    zz_spy-1.0.dist-info/WHEEL zz_spy-1.0.dist-info/RECORD >"$di/RECORD"
}

# An interpreter that is a script: it runs the spy, then the real one
# (Debian's, which any user may run) with the gate's arguments.
hostile_python() {
	[ -x /usr/bin/python3 ] || skip "no /usr/bin/python3"
	mkdir -p evil/bin evil/lib
	write_python_spy evil/lib/spy.py
	cat >evil/bin/python <<EOF
#!/bin/sh
/usr/bin/python3 -S "$T/evil/lib/spy.py" "$T/spy/report" "\$PPID"
exec /usr/bin/python3 "\$@"
EOF
	chmod 755 evil/bin/python
}


@test "a .pth file in the judged venv never runs in the gate; its packages are still read" {
	trust_gate_setup
	venv_with_pth
	run gate --python "$T/venv/bin/python"
	echo "$output"
	[ "$status" -eq 1 ]	# drift from another machine's golden
	[ -s att.json ]
	if [ -e spy/report ]; then
		cat spy/report
		false
	fi
	# The interpreter was asked, and its answer is the venv's.
	[ -z "$(jq -r '.meta.unavailable.python // empty' m.json)" ]
	[ "$(fact m.json python.pkg.zz-spy)" = 1.0 ]
	jq -e --arg s "$(echo "$T"/venv/lib/python3*/site-packages)" \
	    '.meta.python.site_packages | index($s) != null' m.json
	jq -e '.meta.confinement.python | test("no_new_privs")' m.json
}

@test "a hostile interpreter script finds neither token nor key: confined even as root" {
	trust_gate_setup
	hostile_python
	# $T is private to root: nobody cannot run it, so the helper stays
	# root (when we are), without capabilities, fenced by Landlock.
	needs_landlock
	run gate --python "$T/evil/bin/python"
	echo "$output"
	[ "$status" -eq 1 ]
	[ -s att.json ]
	spy_found_nothing spy/report
	[ -n "$(fact m.json python.version)" ]
	if [ "$(id -u)" = 0 ]; then
		grep -qx 'ran as 0' spy/report
		jq -r .meta.confinement.python m.json |
		    grep -q '^root without capabilities'
	fi
}

@test "as root, a hostile interpreter nobody can read runs as nobody" {
	[ "$(id -u)" = 0 ] || skip "needs root"
	trust_gate_setup
	hostile_python
	chmod 711 "$T"
	chmod -R a+rX evil
	# Nothing the helper may run is under root's private home (pyenv's).
	unset PYENV_ROOT
	PATH=/usr/bin:/bin run gate --python "$T/evil/bin/python"
	echo "$output"
	[ "$status" -eq 1 ]
	[ -s att.json ]
	spy_found_nothing spy/report
	grep -qx "ran as $(id -u nobody)" spy/report
	jq -r .meta.confinement.python m.json | grep -q '^user nobody'
	[ -n "$(fact m.json python.version)" ]
}
