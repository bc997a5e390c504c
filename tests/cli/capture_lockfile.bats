#!/usr/bin/env bats
# capture_lockfile.bats: lockfile.<path>.sha256 and lockfile.<path>.pin.<name>
# through the real binary, for files named with --lockfile and files found
# in the current directory; bad input (exit 2 for a named file, a warning
# for a found one); a 2 GB file; and no credential from any URL in any
# lockfile ever reaching the manifest or the terminal.

load setup

bats_require_minimum_version 1.5.0

L=$FIXTURES/lockfiles

# Number of facts whose key starts with $2 in manifest $1.
count() { # file prefix
	jq --arg p "$2" '[.facts | keys[] | select(startswith($p))] | length' "$1"
}

warnings() { # file
	jq -r '.meta.warnings // [] | .[]' "$1"
}

sha() { # file
	sha256sum "$1" | cut -d' ' -f1
}

@test "pip-compile requirements.txt: every pin and the file's sha256" {
	cp "$L/pip-tools/requirements.txt" .
	"$EP" capture -q --no-discover --lockfile requirements.txt -o m.json
	[ "$(fact m.json lockfile.requirements.txt.pin.torch)" = "2.3.1+cu121" ]
	[ "$(fact m.json lockfile.requirements.txt.pin.numpy)" = "1.26.4" ]
	[ "$(fact m.json lockfile.requirements.txt.pin.nvidia-cudnn-cu12)" = "8.9.2.26" ]
	[ "$(fact m.json lockfile.requirements.txt.pin.typing-extensions)" = "4.12.2" ]
	[ "$(count m.json lockfile.requirements.txt.pin.)" -eq 38 ]
	[ "$(fact m.json lockfile.requirements.txt.sha256)" = "$(sha requirements.txt)" ]
	[ "$(warnings m.json | grep -c lockfile || true)" -eq 0 ]
}

@test "markers, extras, specifiers and direct references in requirements" {
	cp "$L/handwritten/requirements-gpu.txt" .
	"$EP" capture -q --no-discover --lockfile requirements-gpu.txt -o m.json
	k=lockfile.requirements-gpu.txt.pin
	[ "$(fact m.json $k.numpy)" = "1.24.4,1.26.4" ]
	[ "$(fact m.json $k.torch)" = "2.3.1,2.3.1+cu121" ]
	[ "$(fact m.json $k.nvidia-cublas-cu12)" = "12.1.3.1" ]
	[ "$(fact m.json $k.jinja2)" = "3.1.4" ]
	[ "$(fact m.json $k.pyyaml)" = ">=6.0,<7" ]
	[ "$(fact m.json $k.requests)" = "~=2.32" ]
	[ "$(fact m.json $k.sympy)" = "*" ]
	[ "$(fact m.json $k.internal-utils)" = "@ git+https://github.com/example-org/internal-utils.git@v0.4.2" ]
	[ "$(count m.json $k.)" -eq 14 ]
}

@test "poetry.lock 2.0 and 2.1, uv.lock, Pipfile.lock and conda explicit files" {
	mkdir -p p20 p21
	cp "$L/poetry-2.0/poetry.lock" p20/
	cp "$L/poetry-2.1/poetry.lock" p21/
	cp "$L/uv/uv.lock" "$L/pipenv/Pipfile.lock" \
	    "$L/conda-lock/conda-linux-64.lock" "$L/conda/env.explicit.txt" .
	"$EP" capture -q --no-discover --lockfile p20/poetry.lock \
	    --lockfile p21/poetry.lock --lockfile uv.lock \
	    --lockfile Pipfile.lock --lockfile conda-linux-64.lock \
	    --lockfile env.explicit.txt -o m.json
	for f in p20/poetry.lock p21/poetry.lock; do
		[ "$(fact m.json lockfile.$f.pin.torch)" = "2.3.1+cu121" ]
		[ "$(fact m.json lockfile.$f.pin.nvidia-nccl-cu12)" = "2.20.5" ]
		[ "$(count m.json lockfile.$f.pin.)" -eq 39 ]
	done
	[ "$(fact m.json lockfile.uv.lock.pin.torch)" = "2.3.1,2.3.1+cu121" ]
	[ "$(fact m.json lockfile.uv.lock.pin.trainer)" = "" ]
	[ "$(count m.json lockfile.uv.lock.pin.)" -eq 38 ]
	[ "$(fact m.json lockfile.Pipfile.lock.pin.nvidia-cudnn-cu12)" = "8.9.2.26" ]
	[ "$(fact m.json lockfile.Pipfile.lock.pin.pytest)" = "8.2.2" ]
	[ "$(count m.json lockfile.Pipfile.lock.pin.)" -eq 41 ]
	[ "$(fact m.json lockfile.conda-linux-64.lock.pin.pytorch)" = "2.3.1" ]
	[ "$(fact m.json lockfile.conda-linux-64.lock.pin._libgcc_mutex)" = "0.1" ]
	[ "$(count m.json lockfile.conda-linux-64.lock.pin.)" -eq 32 ]
	[ "$(fact m.json lockfile.env.explicit.txt.pin.tqdm)" = "4.66.4" ]
	for f in p20/poetry.lock p21/poetry.lock uv.lock Pipfile.lock \
	    conda-linux-64.lock env.explicit.txt; do
		[ "$(fact m.json lockfile.$f.sha256)" = "$(sha $f)" ]
	done
}

@test "a file given with --lockfile in no format envparity reads is exit 2, never a bare hash" {
	printf '[packages]\nnumpy = "*"\n' > Pipfile
	head -c 4096 /dev/urandom > blob.bin
	printf '# Notes\nSome words\n' > notes.md
	for f in Pipfile blob.bin notes.md; do
		run --separate-stderr "$EP" capture -q --no-discover --lockfile "$f" -o m.json
		[ "$status" -eq 2 ]
		[ -z "$output" ]
		[[ "$stderr" == "envparity capture: $f: not a lockfile format envparity reads (requirements files, poetry.lock, uv.lock, pdm.lock, pylock.toml, Pipfile.lock, conda-lock.yml, pixi.lock, conda explicit files); as a requirements file, line "* ]]
		[ "$(printf '%s\n' "$stderr" | wc -l)" -eq 1 ]
		[ ! -e m.json ]
	done
	# Found in the current directory, such a file is not even looked at.
	"$EP" capture -q -o m.json
	[ "$(count m.json lockfile.)" -eq 0 ]
}

@test "./x, x and \$PWD/x are one file with one key; outside paths keep theirs" {
	cp "$L/uv/uv.lock" .
	mkdir sub
	cp "$L/pip-tools/requirements.txt" sub/
	"$EP" capture -q --lockfile ./uv.lock --lockfile "$T/uv.lock" \
	    --lockfile uv.lock --lockfile .//sub/../sub/requirements.txt -o m.json
	[ "$(count m.json lockfile.uv.lock.sha256)" -eq 1 ]
	[ "$(count m.json lockfile.sub/requirements.txt.sha256)" -eq 1 ]
	[ "$(jq '[.facts | keys[] | select(endswith(".sha256") and startswith("lockfile."))] | length' m.json)" -eq 2 ]
	cd sub
	"$EP" capture -q --no-discover --lockfile ../uv.lock -o ../m2.json
	[ "$(fact ../m2.json lockfile.../uv.lock.pin.numpy)" = "1.26.4" ]
}

@test "lockfiles in the current directory are found; --no-discover skips them" {
	cp "$L/uv/uv.lock" "$L/pipenv/Pipfile.lock" "$L/conda-lock/conda-linux-64.lock" .
	cp "$L/handwritten/requirements-gpu.txt" requirements-dev.txt
	printf 'numpy==1.0\n' > requirements.in
	printf '{}\n' > package-lock.json
	"$EP" capture -q -o m.json
	for f in uv.lock Pipfile.lock conda-linux-64.lock requirements-dev.txt; do
		[ "$(fact m.json lockfile.$f.sha256)" = "$(sha $f)" ]
	done
	[ "$(fact m.json lockfile.requirements-dev.txt.pin.numpy)" = "1.24.4,1.26.4" ]
	[ "$(count m.json lockfile.requirements.in)" -eq 0 ]
	[ "$(count m.json lockfile.package-lock.json)" -eq 0 ]
	"$EP" capture -q --no-discover -o m2.json
	[ "$(count m2.json lockfile.)" -eq 0 ]
}

@test "CRLF line ends and a byte order mark are accepted" {
	printf '\xef\xbb\xbfnumpy==1.26.4 \\\r\n    --hash=sha256:ab\r\ntorch==2.3.1\r\n' > requirements.txt
	printf '\xef\xbb\xbf[[package]]\r\nname = "NumPy"\r\nversion = "1.26.4"\r\n' > poetry.lock
	"$EP" capture -q -o m.json
	[ "$(fact m.json lockfile.requirements.txt.pin.numpy)" = "1.26.4" ]
	[ "$(fact m.json lockfile.requirements.txt.pin.torch)" = "2.3.1" ]
	[ "$(fact m.json lockfile.poetry.lock.pin.numpy)" = "1.26.4" ]
	[ "$(warnings m.json | grep -c lock || true)" -eq 0 ]
}

# One malformed file named with --lockfile: exit 2, nothing on standard
# output, and exactly one line on standard error, naming path and line.
expect_bad() { # file expected-stderr-line
	run --separate-stderr "$EP" capture -q --no-discover --lockfile "$1"
	echo "status=$status stderr=$stderr"
	[ "$status" -eq 2 ]
	[ -z "$output" ]
	[ "${#stderr_lines[@]}" -eq 1 ]
	[ "$stderr" = "$2" ]
}

@test "a malformed lockfile named with --lockfile is exit 2 naming path and line" {
	mkdir a b c d
	printf '{\n  "default": {,\n}\n' > a/Pipfile.lock
	run --separate-stderr "$EP" capture -q --no-discover --lockfile a/Pipfile.lock
	[ "$status" -eq 2 ]
	[ -z "$output" ]
	[ "${#stderr_lines[@]}" -eq 1 ]
	[[ "$stderr" == "envparity capture: a/Pipfile.lock:2: not valid JSON: "* ]]
	printf '[[package]]\nname = "numpy"\nversion = "1.26.4\n' > b/poetry.lock
	expect_bad b/poetry.lock "envparity capture: b/poetry.lock:3: unterminated string"
	printf '[[package]]\nname = "a"\nversion = "1"\n\n[[package]]\nname = "numpy"\ndescription = ""\n\n[metadata]\n' > c/poetry.lock
	expect_bad c/poetry.lock "envparity capture: c/poetry.lock:5: [[package]] \"numpy\" has no version"
	printf 'numpy==1.26.4\n# fine\nthis is not a requirement\n' > d/requirements.txt
	expect_bad d/requirements.txt "envparity capture: d/requirements.txt:3: unexpected text after the package name"
	printf '@EXPLICIT\nhttps://conda.anaconda.org/conda-forge/linux-64/numpy.zip\n' > conda-x.lock
	expect_bad conda-x.lock "envparity capture: conda-x.lock:2: not a conda package URL (expected .../NAME-VERSION-BUILD.conda or .tar.bz2)"
}

@test "a missing, directory or unreadable lockfile named with --lockfile is exit 2" {
	expect_bad nope/uv.lock "envparity capture: nope/uv.lock: cannot read: No such file or directory"
	mkdir requirements.txt
	expect_bad requirements.txt "envparity capture: requirements.txt: a directory, not a regular file"
	mkfifo uv.lock
	expect_bad uv.lock "envparity capture: uv.lock: a FIFO, not a regular file"
	printf 'numpy==1\n' > requirements-x.txt
	chmod 000 requirements-x.txt
	if [ "$(id -u)" -eq 0 ]; then
		# Root reads anything: run as nobody to see a refusal.
		command -v setpriv >/dev/null || skip "root, and no setpriv"
		chmod 755 "$T"
		run --separate-stderr setpriv --reuid=65534 --regid=65534 \
		    --clear-groups "$EP" capture -q --no-discover \
		    --lockfile requirements-x.txt
	else
		run --separate-stderr "$EP" capture -q --no-discover \
		    --lockfile requirements-x.txt
	fi
	[ "$status" -eq 2 ]
	[ "$stderr" = "envparity capture: requirements-x.txt: cannot read: Permission denied" ]
}

@test "a malformed lockfile found in the current directory is a warning; capture goes on" {
	printf '[[package]]\nname = "numpy"\nversion = "1.26.4\n' > poetry.lock
	printf '{"default": ' > Pipfile.lock
	mkdir requirements-old.txt
	mkfifo uv.lock
	cp "$L/pip-tools/requirements.txt" .
	run --separate-stderr "$EP" capture -o m.json
	[ "$status" -eq 0 ]
	warnings m.json > w.txt
	cat w.txt
	grep -qxF 'poetry.lock:3: unterminated string (poetry lockfile; its pins are not recorded)' w.txt
	grep -q '^Pipfile.lock:1: not valid JSON: .*(pipfile lockfile; its pins are not recorded)$' w.txt
	grep -qxF 'requirements-old.txt: a directory, not a regular file' w.txt
	grep -qxF 'uv.lock: a FIFO, not a regular file' w.txt
	# The warnings are echoed on standard error too, once each.
	[ "$(grep -c 'poetry.lock:3: unterminated string' <<<"$stderr")" -eq 1 ]
	# Hashes are still taken; the good file's pins still recorded.
	[ "$(fact m.json lockfile.poetry.lock.sha256)" = "$(sha poetry.lock)" ]
	[ "$(fact m.json lockfile.Pipfile.lock.sha256)" = "$(sha Pipfile.lock)" ]
	[ "$(count m.json lockfile.poetry.lock.pin.)" -eq 0 ]
	[ "$(fact m.json lockfile.requirements.txt.pin.torch)" = "2.3.1+cu121" ]
}

@test "a 2 GB lockfile is hashed, never read whole: a warning, not an error" {
	truncate -s 2G requirements.txt
	run --separate-stderr "$EP" capture --lockfile requirements.txt -o m.json
	[ "$status" -eq 0 ]
	warnings m.json | grep -qxF 'requirements.txt: too large to read pins (2147483648 bytes, limit 64 MiB); only its hash is recorded'
	# sha256sum of 2 GiB of zero bytes, worked out once.
	[ "$(fact m.json lockfile.requirements.txt.sha256)" = a7c744c13cc101ed66c29f672f92455547889cc586ce6d44fe76ae824958ea51 ]
	[ "$(count m.json lockfile.requirements.txt.pin.)" -eq 0 ]
}

@test "no credential from any lockfile URL reaches the manifest or the terminal" {
	cp "$L/handwritten/requirements-gpu.txt" "$L/pipenv/Pipfile.lock" \
	    "$L/conda-lock/conda-linux-64.lock" "$L/conda/env.explicit.txt" .
	mkdir p
	cp "$L/poetry-2.0/poetry.lock" p/
	# Malformed files with secrets right where the parsers stop.
	mkdir bad
	printf -- '--index-urll https://u:LEAKCANARY-opt@h/simple\n' > bad/requirements.txt
	printf '{"_meta": {"sources": [{"url": https://u:LEAKCANARY-json@h/}]}}\n' > bad/Pipfile.lock
	printf '@EXPLICIT\nhttps://u:LEAKCANARY-conda@h/c/linux-64/x.whl\n' > bad/conda-bad.lock
	printf 'x @ https://u:LEAKCANARY-dr@h/x.whl ; python_version < "3" junk\n' > requirements-dr.txt
	run bash -c '"$0" capture --lockfile p/poetry.lock -o m.json 2>&1' "$EP"
	[ "$status" -eq 0 ]
	echo "$output"
	[[ "$output" != *LEAKCANARY* ]]
	run grep -c LEAKCANARY m.json
	[ "$output" = 0 ]
	[ "$(fact m.json lockfile.requirements-gpu.txt.pin.flash-attn)" = "@ https://wheels.internal.example.com/flash_attn-2.5.9-cp311-cp311-linux_x86_64.whl" ]
	[ "$(fact m.json lockfile.requirements-dr.txt.pin.x)" = "@ https://h/x.whl" ]
	[ "$(fact m.json lockfile.conda-linux-64.lock.pin.trainer-data)" = "2024.07.1" ]
	for f in bad/requirements.txt bad/Pipfile.lock bad/conda-bad.lock; do
		run --separate-stderr "$EP" capture -q --no-discover --lockfile "$f"
		[ "$status" -eq 2 ]
		[[ "$stderr" == *"$f:1"* || "$stderr" == *"$f:2"* ]]
		[[ "$stderr" != *LEAKCANARY* ]]
	done
}
