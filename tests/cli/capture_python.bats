#!/usr/bin/env bats
# capture_python.bats: python.version, python.pkg.<name> and conda.pkg.<name>
# through `envparity capture`, against generated site-packages, real
# interpreters (the one on PATH, a venv, /usr/bin/python3) and a conda-meta
# directory; bad input is a warning naming the path, or exit 2 when the
# user named it.

load setup

GEN=$BATS_TEST_DIRNAME/../fixtures/gen-site-packages.sh

# The python.* facts of a manifest, "KEY VALUE" per line, sorted.
py_facts() { # file
	jq -r '.facts | to_entries[] | select(.key | startswith("python.pkg."))
	    | "\(.key) \(.value)"' "$1" | LC_ALL=C sort
}

# Warnings of a manifest, one per line.
warnings() { # file
	jq -r '.meta.warnings // [] | .[]' "$1"
}

# What importlib.metadata sees in an interpreter's site directories, in
# the same form, the first of a name in search order winning.
importlib_facts() { # python
	"$1" - <<'EOF' | LC_ALL=C sort
import importlib.metadata as md, re, site, sys
dirs = list(site.getsitepackages())
if site.ENABLE_USER_SITE:
    dirs.append(site.getusersitepackages())
seen = {}
for d in [p for p in sys.path if p in dirs]:
    for dist in sorted(md.distributions(path=[d]), key=lambda x: str(x._path)):
        name = dist.metadata["Name"]
        if name and dist.version:
            seen.setdefault(re.sub(r"[-_.]+", "-", name).lower(), dist.version)
for n, v in seen.items():
    print("python.pkg.%s %s" % (n, v))
EOF
}

real_python() {
	python3 -c 'import sys; print(getattr(sys, "_base_executable", None) or sys.executable)'
}

@test "--site-packages: every generated distribution, PEP 503 names, no python.version" {
	"$GEN" --expect expect "$T/sp" 60
	run "$EP" capture -q --no-discover --site-packages "$T/sp" -o out.json
	[ "$status" -eq 0 ]
	diff <(py_facts out.json) expect
	[ "$(fact out.json python.pkg.data-tools-pkg4)" = 4.4.4 ]
	[ "$(fact out.json python.pkg.zope-sample-lib1)" = 1.1.1 ]
	[ "$(fact out.json python.pkg.legacy-thing-2)" = 2.2.2 ]
	[ "$(fact out.json python.pkg.poetry-built-pkg3)" = 3.3.3 ]
	[ -z "$(fact out.json python.version)" ]
	! warnings out.json | grep -F "$T/sp" || false
	validate_schema manifest out.json
}

@test "--site-packages: malformed distributions are warnings naming the path" {
	"$GEN" --malformed --expect expect "$T/sp" 8
	run "$EP" capture -q --no-discover --site-packages "$T/sp" -o out.json
	[ "$status" -eq 0 ]
	diff <(py_facts out.json) expect
	warnings out.json >w
	grep -F "$T/sp/bad_noversion-1.0.dist-info/METADATA: no Version field; using \"1.0\" from the directory name" w
	grep -F "$T/sp/bad_eggnover.egg-info/PKG-INFO: no Version field (distribution skipped)" w
	! grep -F "deb-double" w || false
	grep -F "$T/sp/bad_empty.egg-link: names no directory (editable install skipped)" w
	grep -F "$T/sp/bad_gone.egg-link: /nonexistent/envparity-project: No such file or directory (editable install skipped)" w
	[ "$(jq -c .meta.python.editable out.json)" = "{\"linked-proj\":\"$T/sp/linked_src\",\"pep660-proj\":\"/src/pep660-proj\"}" ]
	grep -F "$T/sp/bad_empty-1.0.dist-info/METADATA: empty" w
	grep -F "$T/sp/bad_garbage-1.0.dist-info/METADATA: binary data" w
	grep -F "$T/sp/bad_loop-1.0.dist-info/METADATA: Too many levels of symbolic links" w
	grep -F "$T/sp/bad_selflink-1.0.dist-info/METADATA: Too many levels of symbolic links" w
	grep -F "$T/sp/bad_isdir-1.0.dist-info/METADATA: is a directory" w
	grep -F "$T/sp/bad_fifo-1.0.dist-info/METADATA: not a regular file" w
	grep -F "$T/sp/bad_nometa-1.0.dist-info/METADATA: No such file or directory" w
	grep -F "$T/sp/bad_badname-1.0.dist-info/METADATA: invalid Name" w
	grep -F "$T/sp/bad_noname-2.0.dist-info/METADATA: no Name field; using \"bad_noname\"" w
	grep -F "python package bad-dup is installed twice: $T/sp/Bad_Dup-1.0.dist-info/METADATA (1.0) is used, $T/sp/bad.dup-2.0.dist-info/METADATA (2.0) is shadowed" w
	if [ -r "$T/sp/bad_unreadable-1.0.dist-info/METADATA" ]; then
		[ "$(fact out.json python.pkg.bad-unreadable)" = 1.0 ]	# root
	else
		grep -F "$T/sp/bad_unreadable-1.0.dist-info/METADATA: Permission denied" w
	fi
	validate_schema manifest out.json
}

@test "--site-packages: a 2 GB METADATA is read only at its head" {
	mkdir -p "$T/sp/huge-1.0.dist-info" "$T/sp/zeros-1.0.dist-info"
	printf 'Metadata-Version: 2.1\nName: Huge\nVersion: 1.0\n\n' \
	    >"$T/sp/huge-1.0.dist-info/METADATA"
	truncate -s 2G "$T/sp/huge-1.0.dist-info/METADATA"
	truncate -s 2G "$T/sp/zeros-1.0.dist-info/METADATA"
	run "$EP" capture -q --no-discover --site-packages "$T/sp" -o out.json
	[ "$status" -eq 0 ]
	[ "$(fact out.json python.pkg.huge)" = 1.0 ]
	warnings out.json | grep -F "$T/sp/zeros-1.0.dist-info/METADATA: binary data"
}

@test "--site-packages: several directories, the first of a name wins" {
	mkdir -p "$T/a/Same_Pkg-2.0.dist-info" "$T/b/same.pkg-1.0.dist-info" \
	    "$T/b/other-3.0.dist-info"
	printf 'Name: Same_Pkg\nVersion: 2.0\n\n' >"$T/a/Same_Pkg-2.0.dist-info/METADATA"
	printf 'Name: same.pkg\nVersion: 1.0\n\n' >"$T/b/same.pkg-1.0.dist-info/METADATA"
	printf 'Name: other\nVersion: 3.0\n\n' >"$T/b/other-3.0.dist-info/METADATA"
	run "$EP" capture -q --no-discover --site-packages "$T/a" \
	    --site-packages "$T/b" -o out.json
	[ "$status" -eq 0 ]
	[ "$(fact out.json python.pkg.same-pkg)" = 2.0 ]
	[ "$(fact out.json python.pkg.other)" = 3.0 ]
	warnings out.json | grep -F "$T/a/Same_Pkg-2.0.dist-info/METADATA (2.0) is used, $T/b/same.pkg-1.0.dist-info/METADATA (1.0) is shadowed"
}

@test "a missing --site-packages directory is exit 2 with one line naming it" {
	run "$EP" capture -q --no-discover --site-packages "$T/nope"
	[ "$status" -eq 2 ]
	[ "${#lines[@]}" -eq 1 ]
	[ "$output" = "envparity capture: site-packages $T/nope: No such file or directory" ]
	touch plain
	run "$EP" capture -q --no-discover --site-packages "$T/plain"
	[ "$status" -eq 2 ]
	[ "$output" = "envparity capture: site-packages $T/plain: not a directory" ]
}

@test "a missing --python is exit 2 with one line naming it" {
	run "$EP" capture -q --no-discover --python "$T/no/python3"
	[ "$status" -eq 2 ]
	[ "${#lines[@]}" -eq 1 ]
	[ "$output" = "envparity capture: python: $T/no/python3: not found" ]
	run "$EP" capture -q --no-discover --python no-such-python-here
	[ "$status" -eq 2 ]
	[ "$output" = "envparity capture: python: no-such-python-here: not found on PATH" ]
	printf '#!/bin/sh\n' >notexec
	run "$EP" capture -q --no-discover --python "$T/notexec"
	[ "$status" -eq 2 ]
	[ "$output" = "envparity capture: python: $T/notexec: not executable" ]
}

@test "--python: the real interpreter's version and packages, as importlib.metadata sees them" {
	py=$(real_python)
	[ -n "$py" ]
	run "$EP" capture -q --no-discover --python "$py" -o out.json
	[ "$status" -eq 0 ]
	[ "$(fact out.json python.version)" = "$("$py" -c 'import platform; print(platform.python_version())')" ]
	diff <(py_facts out.json) <(importlib_facts "$py")
	[ "$(py_facts out.json | wc -l)" -gt 0 ]
	validate_schema manifest out.json
}

@test "--python: the interpreter's answer is cached; a script's never is" {
	py=$(real_python)
	run "$EP" capture -q --no-discover --python "$py" -o out1.json
	[ "$status" -eq 0 ]
	grep -q python-probe "$XDG_CACHE_HOME/envparity/cache-v1"
	run "$EP" capture -q --no-discover --python "$py" -o out2.json
	[ "$status" -eq 0 ]
	diff <(jq .facts out1.json) <(jq .facts out2.json)

	# A wrapper script (as a pyenv shim is) picks its interpreter at run
	# time: its answer must not be stored.
	rm -rf "$XDG_CACHE_HOME"
	printf '#!/bin/sh\nexec "%s" "$@"\n' "$py" >wrapper
	chmod +x wrapper
	run "$EP" capture -q --no-discover --python "$T/wrapper" -o out3.json
	[ "$status" -eq 0 ]
	[ "$(fact out3.json python.version)" = "$(fact out1.json python.version)" ]
	! grep -q python-probe "$XDG_CACHE_HOME/envparity/cache-v1" || false
}

@test "a venv: its interpreter asked (and cached), not its pyvenv.cfg; \$VIRTUAL_ENV selects it" {
	python3 -m venv --without-pip "$T/venv"
	version=$(python3 -c 'import platform; print(platform.python_version())')
	site=$(echo "$T"/venv/lib/python*/site-packages)
	mkdir "$site/Venv_Only-0.1.dist-info"
	printf 'Metadata-Version: 2.1\nName: Venv_Only\nVersion: 0.1\n\n' \
	    >"$site/Venv_Only-0.1.dist-info/METADATA"
	# A version pyvenv.cfg states is not what the interpreter is: any
	# wheel can install a pyvenv.cfg of its own into the venv's root.
	sed -i 's/^version *=.*/version = 3.99.1/' "$T/venv/pyvenv.cfg"
	grep -qx 'version = 3.99.1' "$T/venv/pyvenv.cfg"

	run "$EP" capture -q --no-discover --python "$T/venv/bin/python" -o out.json
	[ "$status" -eq 0 ]
	[ "$(fact out.json python.version)" = "$version" ]
	[ "$(py_facts out.json)" = "python.pkg.venv-only 0.1" ]
	[ "$(jq -r '.meta.unavailable.python // empty' out.json)" = "" ]
	[ "$(jq -r .meta.python.markers_from out.json)" = interpreter ]
	grep -q python-probe "$XDG_CACHE_HOME/envparity/cache-v1"

	VIRTUAL_ENV=$T/venv run "$EP" capture -q --no-discover -o out2.json
	[ "$status" -eq 0 ]
	diff <(jq '.facts | with_entries(select(.key | startswith("python")))' out.json) \
	    <(jq '.facts | with_entries(select(.key | startswith("python")))' out2.json)
}

@test "/usr/bin/python3 and a --system-site-packages venv of it" {
	[ -x /usr/bin/python3 ] || skip "no /usr/bin/python3"
	run "$EP" capture -q --no-discover --python /usr/bin/python3 -o out.json
	[ "$status" -eq 0 ]
	[ "$(fact out.json python.version)" = "$(/usr/bin/python3 -c 'import platform; print(platform.python_version())')" ]
	diff <(py_facts out.json) <(importlib_facts /usr/bin/python3)

	/usr/bin/python3 -m venv --without-pip --system-site-packages "$T/sv"
	site=$(echo "$T"/sv/lib/python*/site-packages)
	mkdir "$site/Venv_Only-0.1.dist-info"
	printf 'Name: Venv_Only\nVersion: 0.1\n\n' >"$site/Venv_Only-0.1.dist-info/METADATA"
	run "$EP" capture -q --no-discover --python "$T/sv/bin/python" -o sv.json
	[ "$status" -eq 0 ]
	[ "$(fact sv.json python.pkg.venv-only)" = 0.1 ]
	diff <(py_facts sv.json) <(importlib_facts "$T/sv/bin/python")
}

@test "an interpreter that crashes or prints garbage is unavailable, not a failure" {
	printf '#!/bin/sh\nkill -SEGV $$\n' >crash
	printf '#!/bin/sh\necho "Python 3.11.7"\n' >garbage
	chmod +x crash garbage
	run "$EP" capture -q --no-discover --python "$T/crash" -o out.json
	[ "$status" -eq 0 ]
	[[ "$(jq -r .meta.unavailable.python out.json)" == "$T/crash: killed by signal 11"* ]]
	run "$EP" capture -q --no-discover --python "$T/garbage" -o out.json
	[ "$status" -eq 0 ]
	[ "$(jq -r .meta.unavailable.python out.json)" = "$T/garbage: no answer in its output" ]
	[ -z "$(fact out.json python.version)" ]
}

@test "no python3 on PATH is unavailable, with the reason" {
	mkdir nobin
	PATH=$T/nobin run "$EP" capture -q --no-discover -o out.json
	[ "$status" -eq 0 ]
	[ "$(jq -r .meta.unavailable.python out.json)" = "python3 not found on PATH" ]
}

conda_env() { # dir
	mkdir -p "$1/conda-meta"
	cat >"$1/conda-meta/numpy-1.26.4-py311h64a7726_0.json" <<'EOF'
{
  "build": "py311h64a7726_0",
  "build_number": 0,
  "channel": "https://conda.anaconda.org/conda-forge/linux-64",
  "depends": ["libblas >=3.9.0,<4.0a0", "python >=3.11,<3.12.0a0"],
  "files": ["lib/python3.11/site-packages/numpy/__init__.py"],
  "fn": "numpy-1.26.4-py311h64a7726_0.conda",
  "name": "numpy",
  "subdir": "linux-64",
  "version": "1.26.4"
}
EOF
	cat >"$1/conda-meta/pytorch-2.1.2-cuda120_py311h25b6552_301.json" <<'EOF'
{
  "build": "cuda120_py311h25b6552_301",
  "build_number": 301,
  "name": "pytorch",
  "version": "2.1.2"
}
EOF
	printf '{"name": "_openmp_mutex", "version": "4.5", "build": "2_gnu"}\n' \
	    >"$1/conda-meta/_openmp_mutex-4.5-2_gnu.json"
	printf '==> 2024-01-01 <==\n# cmd: conda create\n' >"$1/conda-meta/history"
}

@test "--conda-prefix: conda.pkg and conda.build from conda-meta; malformed records warn" {
	conda_env "$T/env"
	printf '{"name": "broken", ' >"$T/env/conda-meta/broken-1.0-0.json"
	mkdir empty
	run "$EP" capture -q --no-discover --site-packages "$T/empty" \
	    --conda-prefix "$T/env" -o out.json
	[ "$status" -eq 0 ]
	[ "$(fact out.json conda.pkg.numpy)" = 1.26.4 ]
	[ "$(fact out.json conda.build.numpy)" = py311h64a7726_0 ]
	[ "$(fact out.json conda.pkg.pytorch)" = 2.1.2 ]
	[ "$(fact out.json conda.build.pytorch)" = cuda120_py311h25b6552_301 ]
	[ "$(fact out.json conda.pkg._openmp_mutex)" = 4.5 ]
	[ -z "$(fact out.json conda.pkg.broken)" ]
	warnings out.json | grep -F "$T/env/conda-meta/broken-1.0-0.json: malformed JSON"
	[ "$(jq '[.facts | keys[] | select(startswith("conda.pkg."))] | length' out.json)" -eq 3 ]
	validate_schema manifest out.json

	# The same from $CONDA_PREFIX, and again through the cache.
	CONDA_PREFIX=$T/env run "$EP" capture -q --no-discover \
	    --site-packages "$T/empty" -o out2.json
	[ "$status" -eq 0 ]
	diff <(jq '.facts | with_entries(select(.key | startswith("conda")))' out.json) \
	    <(jq '.facts | with_entries(select(.key | startswith("conda")))' out2.json)
}

@test "--conda-prefix without conda-meta is exit 2; a bad \$CONDA_PREFIX is unavailable" {
	mkdir notconda empty
	run "$EP" capture -q --no-discover --site-packages "$T/empty" \
	    --conda-prefix "$T/notconda"
	[ "$status" -eq 2 ]
	[ "${#lines[@]}" -eq 1 ]
	[ "$output" = "envparity capture: conda-prefix $T/notconda: not a conda environment (no conda-meta)" ]
	CONDA_PREFIX=$T/notconda run "$EP" capture -q --no-discover \
	    --site-packages "$T/empty" -o out.json
	[ "$status" -eq 0 ]
	[ "$(jq -r .meta.unavailable.conda out.json)" = "CONDA_PREFIX=$T/notconda: not a conda environment (no conda-meta)" ]
}
