#!/usr/bin/env bats
# redteam_python.bats: a judged venv widens its own interpreter helper's
# Landlock rules.  The helper may read the tree pyvenv.cfg's "home" names
# (pyprobe.c, python_fs), and pyvenv.cfg is the judged venv's own file:
# "home = <the key's folder>" makes the folder readable, and, as root,
# makes nobody unable to read what the helper "needs", so that it stays
# root without capabilities, which may open a root-owned 0600 key.  The
# same for the checkout's .python-version files (read by a pyenv shim):
# a link there is followed when the rule is made.

load setup
load git_daemon
load trust

# A venv whose interpreter is a script (the spy, then Debian's python)
# and whose pyvenv.cfg names the folder of the signing key as its home.
venv_home_at_key() {
	[ -x /usr/bin/python3 ] || skip "no /usr/bin/python3"
	mkdir -p evil/bin evil/lib
	write_python_spy evil/lib/spy.py
	cat >evil/bin/python <<EOF2
#!/bin/sh
/usr/bin/python3 -S "$T/evil/lib/spy.py" "$T/spy/report" "\$PPID"
exec /usr/bin/python3 "\$@"
EOF2
	chmod 755 evil/bin/python
	printf 'home = %s\ninclude-system-site-packages = true\n' \
	    "$T/keys" >evil/pyvenv.cfg
}

@test "pyvenv.cfg's home of a judged venv does not open the key's folder to its interpreter" {
	trust_gate_setup
	needs_landlock
	venv_home_at_key
	run gate --python "$T/evil/bin/python"
	echo "$output"
	# A venv's python that is a script is no interpreter: it is not run
	# at all (and a real one is run where its binary lies, with no
	# pyvenv.cfg beside it), so the spy never gets the helper's rules.
	[ ! -e spy/report ]
	jq -e --arg p "$T/evil/bin/python" '.meta.unavailable.python ==
	    "\($p): a script (#!), not an interpreter: not run"' m.json
}

@test "a .python-version link in the checkout does not open the key to a judged interpreter" {
	trust_gate_setup
	needs_landlock
	venv_home_at_key
	rm evil/pyvenv.cfg
	# The checkout is the current directory; a pyenv shim would read its
	# .python-version, so the helper may: a link to "/" opens everything,
	# without knowing where the key is.
	ln -s / .python-version
	run gate --python "$T/evil/bin/python"
	echo "$output"
	[ -s spy/report ]
	spy_found_nothing spy/report
}
