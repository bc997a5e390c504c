#!/usr/bin/env bats
# capture_venv.bats: a virtual environment's own files cannot choose what
# envparity reports of it.  Every file of a venv may have been written by
# a package, without running any code of its own: a wheel's data files
# install under the venv's root (a pyvenv.cfg, a lib/pythonX.Y of its
# own), its scripts into bin/ (a "python" of its own), and a dist-info
# of another distribution's name anywhere in site-packages.  Each test
# installs such a wheel, built here, with the venv's own pip from the
# file (--no-index), and checks what a gate sees.

load setup

setup_file() {
	unset VIRTUAL_ENV ENVPARITY_STORE ENVPARITY_PROFILE
	export ENVPARITY_AUTHOR="Ada Lovelace <ada@example.org>"
}

# wheel OUT.whl NAME VERSION [ARCHIVE-PATH FILE]...: a wheel of NAME with
# a RECORD, its files taken from FILEs; those under NAME-VERSION.data/
# scripts/ executable, as a build backend makes a script.
wheel() {
	python3 - "$@" <<'PY'
import base64, hashlib, sys, zipfile
out, name, version, rest = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
di = '%s-%s.dist-info' % (name, version)
files = {
    di + '/METADATA': ('Metadata-Version: 2.1\nName: %s\nVersion: %s\n\n'
                       % (name, version)).encode(),
    di + '/WHEEL': b'Wheel-Version: 1.0\nGenerator: hand\n'
                   b'Root-Is-Purelib: true\nTag: py3-none-any\n\n',
    name + '/__init__.py': b'',
}
for arc, path in zip(rest[::2], rest[1::2]):
    files[arc] = open(path, 'rb').read()
rec = ['%s,sha256=%s,%d' % (n, base64.urlsafe_b64encode(
    hashlib.sha256(d).digest()).rstrip(b'=').decode(), len(d))
    for n, d in files.items()] + [di + '/RECORD,,']
with zipfile.ZipFile(out, 'w') as z:
    for n, d in files.items():
        zi = zipfile.ZipInfo(n)
        zi.external_attr = (0o100755 if '.data/scripts/' in n
                            else 0o100644) << 16
        z.writestr(zi, d)
    z.writestr(di + '/RECORD', '\n'.join(rec) + '\n')
PY
}

# A venv with pip, at $T/v; $XY its python's X.Y, $REAL its version.
pip_venv() {
	python3 -m venv v || skip "no venv with pip here"
	[ -x v/bin/pip ] || skip "no pip in a new venv here"
	XY=$(v/bin/python -I -c 'import sys; print("%d.%d" % sys.version_info[:2])')
	REAL=$(v/bin/python -I -c 'import sys; print(sys.version.split()[0])')
	SITE=$T/v/lib/python$XY/site-packages
	[ -d "$SITE" ]
}

install() { # wheel
	v/bin/pip install -q --no-index --disable-pip-version-check "$1"
}

# Bless this machine with the venv as it is into a local store, with a
# policy that ignores what is not the subject (the machine's own stack
# findings, the forging wheels' own python.pkg.* keys).
golden() { # ignored-key-glob...
	local rules='[{"key": "stack.duplicate.*", "rule": "exact"}, {"key": "stack.*", "rule": "ignore"}' k
	for k in "$@"; do
		rules+=", {\"key\": \"$k\", \"rule\": \"ignore\"}"
	done
	git init -q --bare -b main "$T/store"
	"$EP" bless -q --store "$T/store" --no-discover --python "$T/v/bin/python" >/dev/null
	git clone -q "$T/store" wt
	printf '{"schema": "envparity/policy@1", "rules": %s], "waivers": []}\n' \
	    "$rules" >wt/default/policy.json
	git -C wt add default/policy.json
	git -C wt -c user.name=t -c user.email=t@x commit -qm policy
	git -C wt push -q origin HEAD
	rm -rf wt
	run "$EP" check --store "$T/store" --no-discover --python "$T/v/bin/python"
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "a wheel's script in place of the venv's python is no interpreter: never run, said, and check fails" {
	pip_venv
	golden python.pkg.shim
	# The script would answer with a version of its choosing, and
	# leave a trace if run.
	printf '#!/bin/sh\necho run >>%s/ran\necho "envparity-probe-v1 {\\"version\\": \\"%s\\", \\"user\\": null, \\"site\\": []}"\n' \
	    "$T" "$REAL" >python.sh
	wheel shim-1.0-py3-none-any.whl shim 1.0 shim-1.0.data/scripts/python python.sh
	install shim-1.0-py3-none-any.whl
	[ ! -L v/bin/python ]
	head -c 2 v/bin/python | grep -q '#!'

	run "$EP" capture --no-discover --python "$T/v/bin/python" -o m.json
	echo "$output"
	[ "$status" -eq 0 ]
	[ ! -e ran ]
	[[ "$output" == *"python not checked: $T/v/bin/python: a script (#!), not an interpreter: not run"* ]]
	[ -z "$(fact m.json python.version)" ]
	# The venv's packages, found without the script's word.
	[ "$(fact m.json python.pkg.shim)" = 1.0 ]
	[ "$(jq -c .meta.python.site_packages m.json)" = "[\"$SITE\"]" ]
	[[ "$output" == *"$SITE: read without an interpreter to say it is the one this virtual environment uses"* ]]
	validate_schema manifest m.json

	# The golden's python.version cannot be read here: not parity.
	run "$EP" check --store "$T/store" --no-discover --python "$T/v/bin/python" --json r.json
	echo "$output"
	[ "$status" -eq 1 ]
	[[ "$output" == *"ERROR   python.version: expected $REAL, could not be read here (python: $T/v/bin/python: a script (#!), not an interpreter: not run)"* ]]
	[ ! -e ran ]
	# $VIRTUAL_ENV chooses the same venv: the same.
	VIRTUAL_ENV=$T/v run "$EP" check --store "$T/store" --no-discover
	[ "$status" -eq 1 ]
	[ ! -e ran ]
}

@test "a wheel's pyvenv.cfg cannot choose the venv's interpreter's answer through its home" {
	pip_venv
	golden python.pkg.forge
	# A pyvenv.cfg whose home is a folder of the wheel's, holding a
	# standard library of the wheel's: run at the venv's path, CPython
	# would take os, encodings and json from there (-I -S or not), and
	# the json the probe imports would answer for it.
	stdlib=$(v/bin/python -I -c 'import os; print(os.path.dirname(os.__file__))')
	sed -e "s|^home *=.*|home = $T/v/fake/bin|" -e '/^version/d' v/pyvenv.cfg >cfg
	cat >json.py <<EOF
import sys, os
sys.stdout.write('envparity-probe-v1 {"version": "3.10.14", "user": null, "site": ["$T/v/lib/python3.10/site-packages"]}\n')
sys.stdout.flush()
os._exit(0)
EOF
	args=(forge-1.0.data/data/pyvenv.cfg cfg
	    "forge-1.0.data/data/fake/lib/python$XY/os.py" "$stdlib/os.py"
	    "forge-1.0.data/data/fake/lib/python$XY/json.py" json.py)
	for f in "$stdlib"/encodings/*.py; do
		args+=("forge-1.0.data/data/fake/lib/python$XY/encodings/${f##*/}" "$f")
	done
	printf 'Metadata-Version: 2.1\nName: torch\nVersion: 2.4.0\n\n' >torch.meta
	args+=(forge-1.0.data/data/lib/python3.10/site-packages/torch-2.4.0.dist-info/METADATA torch.meta)
	wheel forge-1.0-py3-none-any.whl forge 1.0 "${args[@]}"
	install forge-1.0-py3-none-any.whl
	# What the venv's python now runs is the wheel's json (where the
	# rest of its start-up is frozen in the binary, as from 3.11).
	run v/bin/python -I -S -c 'import json'
	[[ "$output" == *3.10.14* ]] || skip "this python does not start from the wheel's files"

	run "$EP" capture --no-discover --python "$T/v/bin/python" -o m.json
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(fact m.json python.version)" = "$REAL" ]
	[ -z "$(fact m.json python.pkg.torch)" ]
	[ "$(jq -c .meta.python.site_packages m.json)" = "[\"$SITE\"]" ]
	# Said: the venv's python takes its standard library from there.
	[[ "$output" == *"$T/v/pyvenv.cfg: home = $T/v/fake/bin does not hold the interpreter $T/v/bin/python runs"* ]]
	# The facts are the interpreter's: parity, and the warning shown.
	run "$EP" check --store "$T/store" --no-discover --python "$T/v/bin/python"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"warn    capture.warning"*"does not hold the interpreter"* ]]
}

@test "a dist-info of another's name beside the real one is a failure, not a choice" {
	pip_venv
	# The golden has dup 2.0; this machine has 1.0, and a wheel that
	# plants a Dup-2.0.dist-info as a data file, named to sort first.
	wheel dup-2.0-py3-none-any.whl dup 2.0
	install dup-2.0-py3-none-any.whl
	golden python.pkg.forger
	v/bin/pip uninstall -q -y dup
	wheel dup-1.0-py3-none-any.whl dup 1.0
	install dup-1.0-py3-none-any.whl
	printf 'Metadata-Version: 2.1\nName: dup\nVersion: 2.0\n\n' >dup.meta
	wheel forger-1.0-py3-none-any.whl forger 1.0 \
	    "forger-1.0.data/data/lib/python$XY/site-packages/Dup-2.0.dist-info/METADATA" dup.meta
	install forger-1.0-py3-none-any.whl
	[ -d "$SITE/Dup-2.0.dist-info" ] && [ -d "$SITE/dup-1.0.dist-info" ]
	# Python's importlib.metadata takes either, as the directory lists
	# them: nothing tells the real one.
	v/bin/python -I -c 'import importlib.metadata as m; print(m.version("dup"))' | grep -qx -e 1.0 -e 2.0

	run "$EP" capture -q --no-discover --python "$T/v/bin/python" -o m.json
	[ "$status" -eq 0 ]
	jq -e --arg s "$SITE" '.meta.python.duplicates.dup == [
	    {"metadata": "\($s)/Dup-2.0.dist-info/METADATA", "version": "2.0"},
	    {"metadata": "\($s)/dup-1.0.dist-info/METADATA", "version": "1.0"}]' m.json
	validate_schema manifest m.json

	run "$EP" check --store "$T/store" --no-discover --python "$T/v/bin/python" --json r.json
	echo "$output"
	[ "$status" -eq 1 ]
	[[ "$output" == *"FAIL    stack.duplicate.dup: dup is installed 2 times in one site-packages: $SITE/Dup-2.0.dist-info/METADATA (2.0), $SITE/dup-1.0.dist-info/METADATA (1.0); python.pkg.dup records the first by name"* ]]
	jq -e '[.results[] | select(.key == "stack.duplicate.dup" and .status == "fail"
	    and .actual == "2.0, 1.0")] | length == 1' r.json
	validate_schema report r.json

	# Across directories it is search order, as Python's: the first
	# wins, a warning, no failure.
	v/bin/pip uninstall -q -y forger
	[ ! -e "$SITE/Dup-2.0.dist-info" ]
	mkdir -p other/dup-3.0.dist-info
	printf 'Name: dup\nVersion: 3.0\n\n' >other/dup-3.0.dist-info/METADATA
	run "$EP" capture -q --no-discover --site-packages "$SITE" --site-packages other -o m2.json
	[ "$(fact m2.json python.pkg.dup)" = 1.0 ]
	jq -e '.meta.python.duplicates == null' m2.json
	jq -r '.meta.warnings[]' m2.json | grep -q "python package dup is installed twice"
}
