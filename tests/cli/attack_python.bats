#!/usr/bin/env bats
# attack_python.bats: a judged venv and checkout try to widen their
# interpreter helper's Landlock rules to the signing key: pyvenv.cfg's
# "home" naming the key's folder (which, as root, would also keep the
# helper root without capabilities, able to open a root-owned 0600 key),
# and a .python-version link in the checkout (read by a pyenv shim).
# Neither widens them: a home counts only when it holds an interpreter,
# and .python-version only as a plain file.

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
