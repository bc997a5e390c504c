#!/usr/bin/env bats
# capture_meta.bats: what a manifest's meta says was inspected: the
# Python interpreter (meta.python.interpreter), its virtual environment
# (venv), the site-packages directories read in search order
# (site_packages), the conda prefix (meta.conda.prefix); each checked
# against what Python itself says, and a manifest with them compared with
# one without (or with other paths): no drift, since meta is never
# compared.

load setup

GEN=$BATS_TEST_DIRNAME/../fixtures/gen-site-packages.sh

# meta.python less the markers and requires: what was inspected.
inspected() { # file
	jq -c '.meta.python | {interpreter, venv, site_packages}' "$1"
}

@test "a venv (\$VIRTUAL_ENV): its python, its root, its site-packages" {
	python3 -m venv --without-pip "$T/v"
	site=$(echo "$T"/v/lib/python*/site-packages)
	[ -d "$site" ]
	VIRTUAL_ENV=$T/v run "$EP" capture -q --no-discover -o m.json
	[ "$status" -eq 0 ]
	[ "$(inspected m.json)" = "{\"interpreter\":\"$T/v/bin/python\",\"venv\":\"$T/v\",\"site_packages\":[\"$site\"]}" ]
	validate_schema manifest m.json
	# Named with --python, the same.
	run "$EP" capture -q --no-discover --python "$T/v/bin/python3" -o m2.json
	[ "$(inspected m2.json)" = "{\"interpreter\":\"$T/v/bin/python3\",\"venv\":\"$T/v\",\"site_packages\":[\"$site\"]}" ]
}

@test "a venv layout whose python is a script: never run, no python.version, its one site-packages recorded as given" {
	mkdir -p fake/bin fake/lib/python3.99/site-packages
	printf 'home = /nonexistent\nversion_info = 3.99.1.final.0\n' > fake/pyvenv.cfg
	printf '#!/bin/sh\necho ran >>%s/ran; exit 1\n' "$T" > fake/bin/python
	chmod +x fake/bin/python
	run "$EP" capture -q --no-discover --python fake/bin/python -o m.json
	[ "$status" -eq 0 ]
	[ ! -e ran ]
	[ -z "$(fact m.json python.version)" ]
	[ "$(jq -r .meta.unavailable.python m.json)" = "fake/bin/python: a script (#!), not an interpreter: not run" ]
	# Paths as they were given: relative stays relative.
	[ "$(inspected m.json)" = '{"interpreter":"fake/bin/python","venv":"fake","site_packages":["fake/lib/python3.99/site-packages"]}' ]
	validate_schema manifest m.json
}

@test "a --system-site-packages venv: its own directory first, then the base's, as sys.path orders them" {
	[ -x /usr/bin/python3 ] || skip "no /usr/bin/python3"
	/usr/bin/python3 -m venv --without-pip --system-site-packages "$T/sv"
	run "$EP" capture -q --no-discover --python "$T/sv/bin/python" -o m.json
	[ "$status" -eq 0 ]
	[ "$(jq -r .meta.python.venv m.json)" = "$T/sv" ]
	# What the venv's Python searches, existing directories only.
	"$T/sv/bin/python" - > want <<'EOF'
import os, site, sys
dirs = list(site.getsitepackages())
if site.ENABLE_USER_SITE:
    dirs.append(site.getusersitepackages())
seen = []
for p in sys.path:
    if p in dirs and os.path.isdir(p) and os.path.realpath(p) not in [os.path.realpath(s) for s in seen]:
        seen.append(p)
print("\n".join(seen))
EOF
	jq -r '.meta.python.site_packages[]' m.json > got
	cat want got
	diff <(xargs -n1 realpath < want) <(xargs -n1 realpath < got)
	[ "$(head -n1 got)" = "$(echo "$T"/sv/lib/python*/site-packages)" ]
}

@test "an interpreter that is no venv: no venv key; its site-packages as Python lists them" {
	[ -x /usr/bin/python3 ] || skip "no /usr/bin/python3"
	run "$EP" capture -q --no-discover --python /usr/bin/python3 -o m.json
	[ "$status" -eq 0 ]
	[ "$(jq -r .meta.python.interpreter m.json)" = /usr/bin/python3 ]
	[ "$(jq -r '.meta.python | has("venv")' m.json)" = false ]
	/usr/bin/python3 -c 'import os, site; print("\n".join(d for d in site.getsitepackages() if os.path.isdir(d)))' > want
	jq -r '.meta.python.site_packages[]' m.json > got
	diff want got
}

@test "--site-packages: the directories in the order given, each once; no interpreter" {
	mkdir a b
	"$GEN" a 2 >/dev/null
	"$GEN" b 2 >/dev/null
	run "$EP" capture -q --no-discover --site-packages b --site-packages a \
	    --site-packages b -o m.json
	[ "$status" -eq 0 ]
	[ "$(inspected m.json)" = '{"interpreter":null,"venv":null,"site_packages":["b","a"]}' ]
	[ "$(jq -r '.meta.python | has("interpreter")' m.json)" = false ]
	validate_schema manifest m.json
}

@test "a conda prefix: --conda-prefix as named, else \$CONDA_PREFIX; none, or unreadable: no meta.conda" {
	mkdir -p env/conda-meta empty
	printf '{"name": "numpy", "version": "1.26.4", "build": "py311_0"}\n' \
	    > env/conda-meta/numpy-1.26.4-py311_0.json
	run "$EP" capture -q --no-discover --site-packages empty \
	    --conda-prefix env -o m.json
	[ "$status" -eq 0 ]
	[ "$(jq -c .meta.conda m.json)" = '{"prefix":"env"}' ]
	[ "$(fact m.json conda.pkg.numpy)" = 1.26.4 ]
	validate_schema manifest m.json
	CONDA_PREFIX=$T/env run "$EP" capture -q --no-discover \
	    --site-packages empty -o m2.json
	[ "$(jq -r .meta.conda.prefix m2.json)" = "$T/env" ]
	env -u CONDA_PREFIX "$EP" capture -q --no-discover --site-packages empty -o m3.json
	[ "$(jq -r 'has("conda")' <(jq .meta m3.json))" = false ]
	CONDA_PREFIX=$T/empty run "$EP" capture -q --no-discover \
	    --site-packages empty -o m4.json
	[ "$(jq -r '.meta | has("conda")' m4.json)" = false ]
	[ -n "$(jq -r .meta.unavailable.conda m4.json)" ]
}

@test "meta is not compared: the same packages seen through other paths, or without the new meta, is parity" {
	mkdir -p e1/conda-meta e2/conda-meta
	for e in e1 e2; do
		printf '{"name": "numpy", "version": "1.26.4", "build": "py311_0"}\n' \
		    > $e/conda-meta/numpy-1.26.4-py311_0.json
		python3 -m venv --without-pip "$T/v_$e"
		"$GEN" "$(echo "$T"/v_$e/lib/python*/site-packages)" 3 >/dev/null
	done
	VIRTUAL_ENV=$T/v_e1 "$EP" capture -q --no-discover --conda-prefix e1 -o one.json
	VIRTUAL_ENV=$T/v_e2 "$EP" capture -q --no-discover --conda-prefix e2 -o two.json
	[ "$(jq -r .meta.python.venv one.json)" != "$(jq -r .meta.python.venv two.json)" ]
	[ "$(jq -r .meta.conda.prefix one.json)" = e1 ]
	[ "$(jq -r '[.facts | keys[] | select(startswith("python.pkg."))] | length' one.json)" -eq 3 ]
	run "$EP" diff one.json two.json
	echo "$output"
	[ "$status" -eq 0 ]
	# A manifest from before the new meta against one with it, both ways.
	jq 'del(.meta.conda, .meta.python.interpreter, .meta.python.venv,
	    .meta.python.site_packages, .meta.images)' one.json > old.json
	run "$EP" diff old.json two.json
	[ "$status" -eq 0 ]
	run "$EP" diff two.json old.json
	[ "$status" -eq 0 ]
	# check: blessed before (no inspected paths), checked from the other
	# venv and prefix: the same results as against the golden with them.
	"$EP" bless -q old.json >/dev/null
	VIRTUAL_ENV=$T/v_e2 run "$EP" check -q --no-discover --conda-prefix e2 --json r1.json
	[ "$status" -le 1 ]
	"$EP" bless -q one.json >/dev/null
	VIRTUAL_ENV=$T/v_e2 run "$EP" check -q --no-discover --conda-prefix e2 --json r2.json
	[ "$status" -le 1 ]
	diff <(jq -r '.results[] | "\(.key) \(.status)"' r1.json | sort) \
	    <(jq -r '.results[] | "\(.key) \(.status)"' r2.json | sort)
	! jq -r '.results[] | select(.status == "fail") | .key' r2.json | grep -E '^(python|conda)\.' || false
}
