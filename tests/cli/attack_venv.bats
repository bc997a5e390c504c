#!/usr/bin/env bats
# attack_venv.bats: a wheel, installed by pip without running any code of
# its own, tries to choose what envparity reports of its venv.  A wheel's
# "data" files install under sys.prefix, the venv's root: one named
# pyvenv.cfg replaces the venv's (a forged "version"), another a
# site-packages of forged dist-infos beside it.  The venv's python is
# asked as the binary it really is, never what the venv's files say, so
# the gate sees the interpreter and packages that really run.

load setup

# forge-1.0, a wheel that forges python.version and a torch of the
# golden's: its pyvenv.cfg is the venv's own but for the version.
forge_wheel() { # venv out.whl
	python3 - "$1/pyvenv.cfg" "$2" <<'PY'
import base64, hashlib, re, sys, zipfile
cfg = open(sys.argv[1]).read()
cfg = re.sub(r'(?m)^version(_info)?\s*=.*\n?', '', cfg) + 'version = 3.10.14\n'
files = {
    'forge/__init__.py': b'',
    'forge-1.0.dist-info/METADATA':
        b'Metadata-Version: 2.1\nName: forge\nVersion: 1.0\n\n',
    'forge-1.0.dist-info/WHEEL': b'Wheel-Version: 1.0\nGenerator: hand\n'
        b'Root-Is-Purelib: true\nTag: py3-none-any\n\n',
    'forge-1.0.data/data/pyvenv.cfg': cfg.encode(),
    'forge-1.0.data/data/lib/python3.10/site-packages/'
        'torch-2.4.0.dist-info/METADATA':
        b'Metadata-Version: 2.1\nName: torch\nVersion: 2.4.0\n\n',
}
rec = ['%s,sha256=%s,%d' % (n, base64.urlsafe_b64encode(
    hashlib.sha256(d).digest()).rstrip(b'=').decode(), len(d))
    for n, d in files.items()] + ['forge-1.0.dist-info/RECORD,,']
with zipfile.ZipFile(sys.argv[2], 'w') as z:
    for n, d in files.items():
        z.writestr(n, d)
    z.writestr('forge-1.0.dist-info/RECORD', '\n'.join(rec) + '\n')
PY
}

@test "a wheel's data files cannot choose the python facts of the venv it is installed in" {
	python3 -m venv v || skip "no venv with pip here"
	[ -x v/bin/pip ] || skip "no pip in a new venv here"
	forge_wheel v forge-1.0-py3-none-any.whl
	v/bin/pip install -q --no-index forge-1.0-py3-none-any.whl
	real=$(v/bin/python -I -c 'import sys; print(sys.version.split()[0])')
	run "$EP" capture --no-discover --python "$T/v/bin/python" -o m.json
	echo "$output"
	[ "$status" -eq 0 ]
	jq -c '.facts | with_entries(select(.key | startswith("python.")))' m.json
	# What the interpreter runs, not what the wheel wrote.
	[ "$(fact m.json python.version)" = "$real" ]
	[ "$(fact m.json python.pkg.forge)" = 1.0 ]
	[ -z "$(fact m.json python.pkg.torch)" ]
}
