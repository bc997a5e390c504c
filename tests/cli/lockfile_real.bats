#!/usr/bin/env bats
# lockfile_real.bats: conda-lock.yml, pylock.toml, pdm.lock and pixi.lock
# of real public projects (tests/fixtures/lockfiles/README.md) through
# `capture --lockfile`: every pin equal to the file's own package list as
# Python's tomllib and PyYAML read it (tests/cli/lock_pins.py), and a
# drift between two versions of a file naming the package; Pipfile.lock's
# own categories; requirements files under other names, read by what they
# contain; and a named file in no format envparity reads, exit 2.

load setup

bats_require_minimum_version 1.5.0

L=$FIXTURES/lockfiles

# One cache for the file: the rest of the machine (its CUDA libraries,
# 2.3 GB to hash) is the same in every capture; the lockfiles are not,
# and the cache knows them apart by path and file identity.
capture() { # lockfile out
	XDG_CACHE_HOME=$BATS_FILE_TMPDIR/cache run --separate-stderr "$EP" \
	    capture -q --no-discover --lockfile "$1" -o "$2"
	echo "$status: $stderr"
}

pins() { # manifest lockfile-key: "name=version" per pin, sorted
	jq -r --arg p "lockfile.$2.pin." '.facts | to_entries[] |
	    select(.key | startswith($p)) | "\(.key | ltrimstr($p))=\(.value)"' "$1" |
	    LC_ALL=C sort
}

# FORMAT FILE COUNT: the file's pins are its own package list, COUNT of
# them, under the file's own name and under a name that says nothing.
same_pins() { # format fixture count
	cp "$L/$2" .
	f=$(basename "$2")
	capture "$f" m.json
	[ "$status" -eq 0 ]
	python3 "$BATS_TEST_DIRNAME/lock_pins.py" "$1" "$f" | LC_ALL=C sort > want
	pins m.json "$f" > got
	diff want got
	[ "$(wc -l < got)" -eq "$3" ]
	cp "$f" renamed.lock
	capture renamed.lock m2.json
	[ "$status" -eq 0 ]
	pins m2.json renamed.lock > got2
	diff want got2
}

# FILE SED NAME OLD NEW: FILE with one version moved by SED gives a drift
# that names the package NAME (OLD to NEW) and the file's hash, nothing
# else of the file.
drift_names() { # file sed name old new
	capture "$1" a.json
	[ "$status" -eq 0 ]
	sed -i "$2" "$1"
	capture "$1" b.json
	[ "$status" -eq 0 ]
	run "$EP" diff a.json b.json --json r.json
	[ "$status" -eq 1 ]
	# (stack.lock.* judges the file against this machine's interpreter,
	# which has none of its packages: not what is looked at here.)
	jq -r '.results[] | select(.status == "fail") | .key |
	    select(startswith("stack.lock.") | not)' r.json > failed
	printf 'lockfile.%s.pin.%s\nlockfile.%s.sha256\n' "$1" "$3" "$1" > want
	diff want failed
	[ "$(jq -r --arg k "lockfile.$1.pin.$3" '.results[] | select(.key == $k) | .message' r.json)" = \
	    "lockfile.$1.pin.$3: expected $4, got $5" ]
}

@test "conda-lock.yml (01-ai/Yi): 188 pins, each the file's own, conda and pip" {
	same_pins conda-lock conda-lock-yml/conda-lock.yml 188
	[ "$(jq -r '.facts["lockfile.conda-lock.yml.pin.pytorch"]' m.json)" = 2.0.1 ]
	[ "$(jq -r '.facts["lockfile.conda-lock.yml.pin._libgcc_mutex"]' m.json)" = 0.1 ]
	drift_names conda-lock.yml 's/^  version: 0.24.1$/  version: 0.25.0/' \
	    accelerate 0.24.1 0.25.0
}

@test "pylock.toml (AlonKellner-RedHat/Oyez-SA-ASR): 89 pins, the project's own directory said, not pinned" {
	same_pins pylock pylock/pylock.toml 89
	jq -r '.meta.warnings[]' m.json > warnings
	grep -qx 'pylock.toml:[0-9]*: oyez-sa-asr has no version (it comes from a source tree); no pin' warnings
	# A name at two versions, each behind its marker: one pin, both.
	[ "$(jq -r '.facts["lockfile.pylock.toml.pin.numpy"]' m.json)" = 2.2.6,2.4.2 ]
	drift_names pylock.toml 's/^version = "4.12.1"$/version = "4.13.0"/' \
	    anyio 4.12.1 4.13.0
}

@test "pdm.lock (3dct/vIQA): 100 pins, each the file's own, torch and the CUDA wheels among them" {
	same_pins pdm pdm/pdm.lock 100
	[ "$(jq -r '.facts["lockfile.pdm.lock.pin.torch"]' m.json)" = 2.2.1 ]
	[ -n "$(jq -r '.facts["lockfile.pdm.lock.pin.nvidia-cudnn-cu12"] // empty' m.json)" ]
	drift_names pdm.lock 's/^version = "0.7.16"$/version = "0.7.17"/' \
	    alabaster 0.7.16 0.7.17
}

@test "pixi.lock (218OSCAR/adaptive_compliance_policy, version 6): 321 pins, conda ones from their file names" {
	same_pins pixi pixi/pixi.lock 321
	[ "$(jq -r '.facts["lockfile.pixi.lock.pin._openmp_mutex"]' m.json)" = 4.5 ]
	[ "$(jq -r '.facts["lockfile.pixi.lock.pin.accelerate"]' m.json)" = 1.12.0 ]
	drift_names pixi.lock 's/^  version: 1.12.0$/  version: 1.13.0/' \
	    accelerate 1.12.0 1.13.0
}

@test "pixi.lock version 4 (kind: and url:) and a malformed one" {
	cat > pixi.lock <<-'EOF'
	version: 4
	environments:
	  default:
	    channels:
	    - url: https://conda.anaconda.org/conda-forge/
	    packages:
	      linux-64:
	      - conda: https://conda.anaconda.org/conda-forge/linux-64/numpy-1.26.4-py311h64a7726_0.conda
	      - pypi: https://files.pythonhosted.org/packages/x/Torch_Audio-2.3.1-py3-none-any.whl
	packages:
	- kind: conda
	  name: numpy
	  version: 1.26.4
	  build: py311h64a7726_0
	  url: https://conda.anaconda.org/conda-forge/linux-64/numpy-1.26.4-py311h64a7726_0.conda
	- kind: pypi
	  name: Torch_Audio
	  version: 2.3.1
	  url: https://files.pythonhosted.org/packages/x/Torch_Audio-2.3.1-py3-none-any.whl
	EOF
	capture pixi.lock m.json
	[ "$status" -eq 0 ]
	[ "$(pins m.json pixi.lock | tr '\n' ' ')" = "numpy=1.26.4 torch-audio=2.3.1 " ]
	diff <(python3 "$BATS_TEST_DIRNAME/lock_pins.py" pixi pixi.lock) <(pins m.json pixi.lock)
	# A package without a version: one line naming file and line, no pins.
	sed -i '/^  version: 2.3.1$/d' pixi.lock
	capture pixi.lock m2.json
	[ "$status" -eq 2 ]
	[ "$stderr" = "envparity capture: pixi.lock:16: a package without a version" ]
	[ ! -e m2.json ]
}

@test "conda-lock.yml and pylock.toml that are malformed: exit 2, file and line, no manifest" {
	printf 'version: 1\nmetadata: {}\npackage:\n- name: numpy\n  version: "1.26.4\\x01"\n  manager: conda\n  platform: linux-64\n' > conda-lock.yml
	capture conda-lock.yml m.json
	[ "$status" -eq 2 ]
	[ "$stderr" = 'envparity capture: conda-lock.yml:5: "version" holds a control character' ]
	printf 'version: 1\nmetadata: {}\npackage:\n- name: numpy\n  version: [1\n' > conda-lock.yml
	capture conda-lock.yml m.json
	[ "$status" -eq 2 ]
	[[ "$stderr" == "envparity capture: conda-lock.yml:6: not valid YAML: "* ]]
	printf 'version: 2\nmetadata: {}\npackage: []\n' > conda-lock.yml
	capture conda-lock.yml m.json
	[ "$status" -eq 2 ]
	[ "$stderr" = "envparity capture: conda-lock.yml:1: version 2 of the conda-lock.yml format is not one envparity reads (1 to 1)" ]
	printf 'lock-version = "1.0"\n[[packages]]\nname = "numpy"\nmarker = "x"\n' > pylock.toml
	capture pylock.toml m.json
	[ "$status" -eq 2 ]
	[ "$stderr" = 'envparity capture: pylock.toml:2: [[packages]] "numpy" has no version' ]
	[ ! -e m.json ]
}

@test "Pipfile.lock: every category pipenv writes, not only default and develop" {
	cat > Pipfile.lock <<-'EOF'
	{
	    "_meta": {"hash": {"sha256": "0"}, "pipfile-spec": 6,
	              "requires": {"python_version": "3.11"}, "sources": []},
	    "default": {"numpy": {"hashes": [], "version": "==1.26.4"}},
	    "develop": {"pytest": {"hashes": [], "version": "==8.2.2"}},
	    "gpu": {"torch": {"hashes": [], "index": "pytorch", "version": "==2.3.1+cu121"}},
	    "prereq": {"setuptools": {"hashes": [], "version": "==70.0.0"}}
	}
	EOF
	capture Pipfile.lock m.json
	[ "$status" -eq 0 ]
	[ "$(pins m.json Pipfile.lock | tr '\n' ' ')" = \
	    "numpy=1.26.4 pytest=8.2.2 setuptools=70.0.0 torch=2.3.1+cu121 " ]
	diff <(python3 "$BATS_TEST_DIRNAME/lock_pins.py" pipfile Pipfile.lock) <(pins m.json Pipfile.lock)
}

@test "requirements files under other names, named with --lockfile, are read by what they contain" {
	mkdir requirements
	printf 'numpy==1.26.4\ntorch==2.3.1 ; sys_platform == "linux"\n' > dev-requirements.txt
	cp dev-requirements.txt requirements/prod.txt
	printf 'numpy<2\n' > constraints.txt
	printf '# generated by rye\n# use `rye lock` or `rye sync` to update this lockfile\n-e file:.\nnumpy==1.26.4\n' > requirements.lock
	for f in dev-requirements.txt requirements/prod.txt constraints.txt requirements.lock; do
		capture "$f" m.json
		[ "$status" -eq 0 ]
		[ "$(jq -r --arg k "lockfile.$f.pin.numpy" '.facts[$k]' m.json)" != null ]
	done
	[ "$(jq -r '.facts["lockfile.requirements.lock.pin.numpy"]' m.json)" = 1.26.4 ]
	capture requirements/prod.txt m.json
	[ "$(pins m.json requirements/prod.txt | tr '\n' ' ')" = "numpy=1.26.4 torch=2.3.1 " ]
	capture constraints.txt m.json
	[ "$(jq -r '.facts["lockfile.constraints.txt.pin.numpy"]' m.json)" = "<2" ]
	# A real poetry.lock and uv.lock under other names: by their content.
	cp "$L/poetry-2.1/poetry.lock" a.lock
	cp "$L/uv/uv.lock" b.lock
	capture a.lock m.json
	[ "$(jq -r '.facts["lockfile.a.lock.pin.torch"]' m.json)" = 2.3.1+cu121 ]
	capture b.lock m.json
	[ "$(jq -r '.facts["lockfile.b.lock.pin.torch"]' m.json)" = 2.3.1,2.3.1+cu121 ]
}

@test "a named file in no format envparity reads: exit 2, one line naming it and the formats" {
	printf '# Notes\nSome words\n' > notes.md
	capture notes.md m.json
	[ "$status" -eq 2 ]
	[ "$stderr" = "envparity capture: notes.md: not a lockfile format envparity reads (requirements files, poetry.lock, uv.lock, pdm.lock, pylock.toml, Pipfile.lock, conda-lock.yml, pixi.lock, conda explicit files); as a requirements file, line 2: unexpected text after the package name" ]
	[ ! -e m.json ]
	: > empty.md
	capture empty.md m.json
	[ "$status" -eq 2 ]
	[[ "$stderr" == *"empty.md: not a lockfile format envparity reads ("*"); as a requirements file, line 1: it names no package" ]]
}

@test "pixi.lock: one list aliased into thousands of environments is refused, not multiplied" {
	{
		printf 'version: 6\nenvironments:\n  e0:\n    packages:\n      linux-64: &l\n'
		for i in $(seq 2000); do
			printf '      - conda: https://c/a-1-0.conda\n'
		done
		for i in $(seq 1999); do
			printf '  e%d:\n    packages:\n      linux-64: *l\n' "$i"
		done
		printf 'packages:\n- conda: https://c/a-1-0.conda\n'
	} > pixi.lock
	capture pixi.lock m.json
	[ "$status" -eq 2 ]
	[[ "$stderr" == "envparity capture: pixi.lock:"*": more than 1048576 packages listed by the environments" ]]
	[ ! -e m.json ]
}
