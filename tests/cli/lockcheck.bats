#!/usr/bin/env bats
# lockcheck.bats: stack.lock.* (the environment against its own lockfile)
# against the real tools, on a real venv (Debian's python3 -m venv, with
# the pip ensurepip puts in it): Debian's poetry 1.3.2 locks a project
# offline from local wheels (file dependencies) and `poetry install
# --sync --dry-run` says what it would change in the venv: its
# Installing, Updating and Removing lines must be envparity's missing,
# other version and extra findings, one for one; a requirements file
# against `pip freeze` of the same venv; and a real pdm.lock (pdm is not
# in Debian 12) against its own package list read with tomllib, its
# markers evaluated by Debian's packaging under the venv's interpreter.

load setup

bats_require_minimum_version 1.5.0

PY=/usr/bin/python3

# One venv, the wheels and the poetry project for the file: alpha 2.0,
# gamma 1.0 and delta 1.0 installed; the project pins alpha 1.0 and beta
# 1.0 (main) and gamma 1.0 (dev group); beta needs winonly on Windows
# alone, which poetry 1.x's lock says on beta's edge, never on winonly
# (lock-version 2.0 gives no package a marker of its own).  The wheels are built by
# poetry-core (Debian's, beside its poetry) in one process; the venv has
# no pip of its own (ensurepip takes seconds): Debian's pip installs into
# it and lists it with --python.
setup_file() {
	export LK=$BATS_FILE_TMPDIR/lk
	mkdir -p "$LK/pkgs" "$LK/wheels" "$LK/proj"
	[ -x "$PY" ] && command -v poetry >/dev/null &&
	    "$PY" -c 'import poetry.core, packaging, tomllib' 2>/dev/null || return 0
	for nv in alpha:1.0 alpha:2.0 beta:1.0 gamma:1.0 delta:1.0 winonly:1.0; do
		d=$LK/pkgs/${nv%:*}-${nv#*:}
		mkdir -p "$d/${nv%:*}"
		: > "$d/${nv%:*}/__init__.py"
		dep=
		[ "${nv%:*}" = beta ] &&
		    dep="winonly = {version = \"*\", markers = \"sys_platform == 'win32'\"}"
		printf '[tool.poetry]\nname = "%s"\nversion = "%s"\ndescription = ""\nauthors = ["t <t@example.org>"]\n[tool.poetry.dependencies]\npython = "^3.8"\n%s\n[build-system]\nrequires = ["poetry-core"]\nbuild-backend = "poetry.core.masonry.api"\n' \
		    "${nv%:*}" "${nv#*:}" "$dep" > "$d/pyproject.toml"
	done
	"$PY" - "$LK" >/dev/null 2>&1 <<-'EOF' || return 0
	import pathlib, sys
	from poetry.core.factory import Factory
	from poetry.core.masonry.builders.wheel import WheelBuilder
	lk = pathlib.Path(sys.argv[1])
	for d in sorted((lk / "pkgs").iterdir()):
	    WheelBuilder.make_in(Factory().create_poetry(d), lk / "wheels")
	EOF
	"$PY" -m venv --without-pip "$LK/v" >/dev/null 2>&1 &&
	    "$PY" -m pip --python "$LK/v/bin/python" install -q --no-index \
	    --no-deps "$LK"/wheels/alpha-2.0-*.whl "$LK"/wheels/gamma-1.0-*.whl \
	    "$LK"/wheels/delta-1.0-*.whl >/dev/null 2>&1 || return 0
	cat > "$LK/proj/pyproject.toml" <<-EOF
	[tool.poetry]
	name = "proj"
	version = "0.1.0"
	description = ""
	authors = ["t <t@example.org>"]
	[tool.poetry.dependencies]
	python = "^3.8"
	alpha = {path = "../wheels/alpha-1.0-py3-none-any.whl"}
	beta = {path = "../wheels/beta-1.0-py3-none-any.whl"}
	winonly = {path = "../wheels/winonly-1.0-py3-none-any.whl", markers = "sys_platform == 'win32'"}
	[tool.poetry.group.dev.dependencies]
	gamma = {path = "../wheels/gamma-1.0-py3-none-any.whl"}
	EOF
	(cd "$LK/proj" && HOME=$BATS_FILE_TMPDIR POETRY_NO_INTERACTION=1 \
	    poetry lock --no-update >/dev/null 2>&1) || rm -f "$LK/proj/poetry.lock"
	# pip's view of the venv: what pip freeze lists (not pip's own), at
	# the versions pip list says.
	"$PY" -m pip --python "$LK/v/bin/python" freeze \
	    --disable-pip-version-check > "$LK/freeze.txt" 2>/dev/null
	"$PY" -m pip --python "$LK/v/bin/python" list --format=json \
	    --disable-pip-version-check > "$LK/list.json" 2>/dev/null
}

# The findings the pins NAME VERSION [MARKER] (one a line on standard
# input, "-" for no marker) should give against pip's view of the venv,
# markers evaluated by packaging under the venv's interpreter (Debian's
# python3, the same binary), as "kind name" lines.
expect() {
	"$PY" -c '
import json, sys
from packaging.markers import Marker
from packaging.utils import canonicalize_name
from packaging.version import Version
names = {canonicalize_name(l.replace(" @ ", "==").split("==")[0])
         for l in open(sys.argv[1]) if l.strip()}
have = {canonicalize_name(p["name"]): p["version"]
        for p in json.load(open(sys.argv[2]))
        if canonicalize_name(p["name"]) in names}
pins = {}
for line in sys.stdin:
    name, version, marker = line.rstrip("\n").split(" ", 2)
    if marker == "-" or Marker(marker).evaluate():
        pins.setdefault(canonicalize_name(name), set()).add(version)
out = []
for n, vs in pins.items():
    if n not in have:
        out.append("missing " + n)
    elif Version(have[n]) not in {Version(v) for v in vs}:
        out.append("version " + n)
out += ["extra " + n for n in have if n not in pins]
print("\n".join(sorted(out)))' "$LK/freeze.txt" "$LK/list.json" | LC_ALL=C sort
}

need() {
	[ -f "$LK/proj/poetry.lock" ] || skip "no offline poetry, venv or wheels here"
}

# What poetry install --sync --dry-run [ARGS] would do to the venv, as
# "kind name" lines: Installing (not skipped) is missing, Updating another
# version, Removing extra.
poetry_changes() {
	(cd "$LK/proj" && HOME=$BATS_FILE_TMPDIR POETRY_NO_INTERACTION=1 \
	    POETRY_VIRTUALENVS_CREATE=false VIRTUAL_ENV=$LK/v \
	    PATH=$LK/v/bin:$PATH poetry install --sync --dry-run --no-root "$@" 2>&1) |
	    sed -nE -e '/Skipped/d' -e 's/^ *• Installing ([^ ]+) .*/missing \1/p' \
	    -e 's/^ *• Updating ([^ ]+) .*/version \1/p' \
	    -e 's/^ *• Removing ([^ ]+) .*/extra \1/p' | LC_ALL=C sort
}

# envparity's findings for lockfile KEY in manifest M, as "kind name".
ep_changes() { # manifest key
	jq -r --arg k "$2" '.meta.lock[$k].findings | to_entries[] |
	    "\(.value.kind) \(.key)"' "$1" | LC_ALL=C sort
}

@test "poetry.lock: stack.lock finds what poetry install --sync --dry-run would change, by default and with --only main" {
	need
	cp "$LK/proj/poetry.lock" .
	# winonly's marker on beta's edge alone: poetry leaves it out here,
	# and so must envparity (it failed as missing before).
	grep -qF 'winonly = {version = "*", markers = "sys_platform == \"win32\""}' poetry.lock
	grep -qFx 'lock-version = "2.0"' poetry.lock
	! grep -q '^markers' poetry.lock
	"$EP" capture -q --no-discover --python "$LK/v/bin/python" \
	    --lockfile poetry.lock -o m.json
	poetry_changes > poetry.txt
	ep_changes m.json poetry.lock > ep.txt
	diff poetry.txt ep.txt
	# Each kind once: alpha 2.0 for 1.0, beta missing, delta not pinned;
	# gamma (dev) is installed at its pin, pip and setuptools are
	# the installer's own.
	[ "$(cat ep.txt)" = "$(printf 'extra delta\nmissing beta\nversion alpha')" ]
	# The main group alone: gamma is now one poetry would remove.
	"$EP" capture -q --no-discover --python "$LK/v/bin/python" \
	    --lockfile poetry.lock --lock-group main -o m2.json
	poetry_changes --only main > poetry2.txt
	ep_changes m2.json poetry.lock > ep2.txt
	diff poetry2.txt ep2.txt
	grep -qx 'extra gamma' ep2.txt
	# The results: one per package, the lockfile and the pin said; the
	# extra a warning; exit 1 for the drift.
	run "$EP" diff m.json m.json --json r.json
	[ "$status" -eq 1 ]
	[ "$(jq -r '.results[] | select(.key | startswith("stack.lock.")) |
	    "\(.status) \(.message)"' r.json)" = "$(printf '%s\n' \
	    'fail stack.lock.poetry.lock.alpha: alpha is pinned to 1.0 by poetry.lock (poetry), but 2.0 is installed' \
	    'fail stack.lock.poetry.lock.beta: beta is pinned to 1.0 by poetry.lock (poetry) and is not installed' \
	    'warn stack.lock.poetry.lock.delta: delta 1.0 is installed, but poetry.lock (poetry) pins no such package where it applies here')" ]
	validate_schema manifest m.json
}

@test "requirements file: stack.lock finds what pip freeze says against its == pins; a loose pin makes no extra" {
	need
	# The file pins alpha at 1.0 (2.0 is installed), beta (missing),
	# gamma as installed; delta, installed, is not in it.
	printf 'alpha==1.0 ; python_version >= "3"\nbeta==1.0\ngamma==1.0\nwinonly==9 ; sys_platform == "win32"\n' > requirements.txt
	"$EP" capture -q --no-discover --python "$LK/v/bin/python" \
	    --lockfile requirements.txt -o m.json
	printf '%s\n' 'alpha 1.0 python_version >= "3"' 'beta 1.0 -' 'gamma 1.0 -' \
	    'winonly 9 sys_platform == "win32"' | expect > pip.txt
	ep_changes m.json requirements.txt > ep.txt
	diff pip.txt ep.txt
	[ "$(cat ep.txt)" = "$(printf 'extra delta\nmissing beta\nversion alpha')" ]
	# Not a freeze (a loose pin): judged pins only, no extra.
	printf 'alpha==2.0\ngamma>=1\n' > requirements.txt
	"$EP" capture -q --no-discover --python "$LK/v/bin/python" \
	    --lockfile requirements.txt -o m2.json
	[ "$(jq -c '.meta.lock["requirements.txt"] | [.pins, .unjudged, .extras, .findings]' m2.json)" = '[1,1,false,{}]' ]
	run "$EP" diff m2.json m2.json --json r.json
	[ "$(jq -r '.results[] | select(.key == "stack.lock.requirements.txt") | .status' r.json)" = pass ]
}

@test "pdm.lock (3dct/vIQA): the pins that apply are the file's own, by tomllib and packaging; groups chosen" {
	need
	cp "$FIXTURES/lockfiles/pdm/pdm.lock" .
	# Its pins, by tomllib: of the selected group (every one by
	# default), with their markers.
	pins() { # group|""
		"$PY" -c '
import sys, tomllib
for p in tomllib.load(open("pdm.lock", "rb"))["package"]:
    if sys.argv[1] and sys.argv[1] not in p.get("groups", []):
        continue
    print(p["name"], p["version"], p.get("marker", "-"))' "$1"
	}
	"$EP" capture -q --no-discover --python "$LK/v/bin/python" \
	    --lockfile pdm.lock -o m.json
	pins "" | expect > want.txt
	ep_changes m.json pdm.lock > ep.txt
	diff want.txt ep.txt
	[ "$(grep -c '^missing' ep.txt)" -ge 90 ]
	# pdm sync surely installs the default group: torch missing fails;
	# alabaster, only in dev and docs (which pdm.lock does not say are
	# not optional groups), warns.
	run "$EP" diff m.json m.json --json r.json
	[ "$status" -eq 1 ]
	[ "$(jq -r '.results[] | select(.key == "stack.lock.pdm.lock.torch") | .status' r.json)" = fail ]
	[ "$(jq -r '.results[] | select(.key == "stack.lock.pdm.lock.alabaster") | .status' r.json)" = warn ]
	"$EP" capture -q --no-discover --python "$LK/v/bin/python" \
	    --lockfile pdm.lock --lock-group default -o m2.json
	pins default | expect > want2.txt
	ep_changes m2.json pdm.lock > ep2.txt
	diff want2.txt ep2.txt
	[ "$(grep -c '^missing' ep2.txt)" -lt 40 ]
}
