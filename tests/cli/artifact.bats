#!/usr/bin/env bats
# artifact.bats: --artifact PATH through the real binary, on real files: a
# SavedModel directory, a TorchScript and an ONNX file, TF Serving's
# models.config and batching parameters.  A directory's digest is the one
# the coreutils line in docs/manifest.md computes, awkward names and links
# inside included; a changed file between bless and check is drift; what
# is refused (a link that leaves, a FIFO, a missing path, an unreadable
# file) is exit 2 naming it, with nothing written; a warm run hashes
# nothing; and the key is the path as given, spelled one way.

load setup

bats_require_minimum_version 1.5.0

# The coreutils line of docs/manifest.md ("Model and serving artifacts"),
# taken from there and run as a user would run it, in the directory.
DOC_LINE=$(grep -m1 -F '(cd DIR && ' "$REPO_ROOT/docs/manifest.md")
oneliner() { # dir
	[ -n "$DOC_LINE" ] || { echo "no coreutils line in docs/manifest.md" >&2; return 1; }
	(cd "$1" && bash -c "${DOC_LINE//DIR/.}") | cut -d' ' -f1
}

sha() { # file
	sha256sum "$1" | cut -d' ' -f1
}

# A capture that keeps Python out of it (an empty --site-packages) and
# picks up no lockfile; the artifacts are the arguments.
cap() { # out [options...]
	local out=$1
	shift
	mkdir -p "$T/sp"
	run --separate-stderr "$EP" capture -q --no-discover \
	    --site-packages "$T/sp" -o "$out" "$@"
}

# What TensorFlow writes for tf.saved_model.save, TorchScript's zip, an
# ONNX file, and TF Serving's two configuration files, under DIR.
make_models() { # dir
	local d=$1
	mkdir -p "$d/bert/1/variables" "$d/bert/1/assets"
	head -c 70000 /dev/urandom >"$d/bert/1/saved_model.pb"
	head -c 300000 /dev/urandom >"$d/bert/1/variables/variables.data-00000-of-00001"
	head -c 2000 /dev/urandom >"$d/bert/1/variables/variables.index"
	printf 'vocab\n[CLS]\n[SEP]\n' >"$d/bert/1/assets/vocab.txt"
	printf '\x08\x01' >"$d/bert/1/fingerprint.pb"
	# TorchScript: a zip archive (torch.jit.save); ONNX: a protobuf.
	(cd "$d" && mkdir -p ts/code && printf 'def forward(self, x):\n  return x\n' \
	    >ts/code/model.py && printf 'PK' >ts/data.pkl &&
	    python3 -c 'import zipfile,sys; z=zipfile.ZipFile("model.pt","w"); [z.write(f) for f in sys.argv[1:]]' \
	    ts/code/model.py ts/data.pkl && rm -rf ts)
	head -c 50000 /dev/urandom >"$d/resnet50.onnx"
	cat >"$d/models.config" <<-'EOF'
	model_config_list {
	  config {
	    name: "bert"
	    base_path: "/models/bert"
	    model_platform: "tensorflow"
	  }
	}
	EOF
	cat >"$d/batching_parameters.txt" <<-'EOF'
	max_batch_size { value: 128 }
	batch_timeout_micros { value: 0 }
	max_enqueued_batches { value: 1000000 }
	num_batch_threads { value: 8 }
	EOF
}

@test "a SavedModel, TorchScript, ONNX, models.config and batching parameters: each digest as coreutils computes it" {
	make_models m
	cap out.json --artifact m/bert --artifact m/model.pt \
	    --artifact m/resnet50.onnx --artifact m/models.config \
	    --artifact m/batching_parameters.txt
	echo "$stderr"
	[ "$status" -eq 0 ]
	[ "$(fact out.json artifact.m/bert.sha256)" = "$(oneliner m/bert)" ]
	[ "$(fact out.json artifact.m/bert.files)" = 5 ]
	for f in model.pt resnet50.onnx models.config batching_parameters.txt; do
		[ "$(fact out.json "artifact.m/$f.sha256")" = "$(sha "m/$f")" ]
		[ "$(fact out.json "artifact.m/$f.files")" = 1 ]
	done
	[ "$(jq '[.facts | keys[] | select(startswith("artifact."))] | length' out.json)" -eq 10 ]
	validate_schema manifest out.json
}

@test "awkward names, hidden files and links inside: the same digest as the coreutils line" {
	mkdir -p d/sub d/B d/a.b d/a
	printf 1 >'d/with space'
	printf 2 >'d/back\slash'
	printf 3 >"d/$(printf 'new\nline')"
	printf 4 >"d/$(printf 'carriage\rreturn')"
	printf 5 >'d/mod'$'\xc3\xa8''le'
	printf 6 >d/.hidden
	printf 7 >d/-dash
	printf 8 >d/a/b
	printf 9 >d/a.b/c
	printf 10 >d/B/x
	: >d/empty-file
	mkdir d/empty-dir
	ln -s ../a/b d/sub/to-file
	ln -s ../B d/sub/to-dir
	ln -s sub/to-file d/chain
	cap out.json --artifact d
	echo "$stderr"
	[ "$status" -eq 0 ]
	[ "$(fact out.json artifact.d.sha256)" = "$(oneliner d)" ]
	# Links to a file count as files, a link to a folder as its files.
	[ "$(fact out.json artifact.d.files)" = 14 ]
	[ "$(fact out.json artifact.d.files)" = "$(find -L d -type f -printf . | wc -c)" ]
}

@test "an empty directory is the digest of no bytes, as the coreutils line says" {
	mkdir empty
	cap out.json --artifact empty
	[ "$status" -eq 0 ]
	[ "$(fact out.json artifact.empty.sha256)" = \
	    e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855 ]
	[ "$(fact out.json artifact.empty.sha256)" = "$(oneliner empty)" ]
	[ "$(fact out.json artifact.empty.files)" = 0 ]
}

# The team's policy for this test: only the artifacts are compared, so
# that the verdict is the artifacts' alone.
commit_policy() { # store policy-json
	git clone -q "$1" "$T/wt"
	mkdir -p "$T/wt/default"
	printf '%s\n' "$2" >"$T/wt/default/policy.json"
	git -C "$T/wt" add default/policy.json
	git -C "$T/wt" -c user.name=t -c user.email=t@x commit -qm policy
	git -C "$T/wt" push -q origin HEAD
	rm -rf "$T/wt"
}

# Every other area is ignored by name: one rule "ignore" for every key
# ("*") is refused, so that a kind of fact nobody named is still judged.
ONLY_ARTIFACTS=$(jq -nc '{schema: "envparity/policy@1", rules: ([{key: "artifact.*",
  rule: "exact", missing: "fail"}] + (["conda", "cpu", "env", "framework", "gpu",
  "image", "lib", "libc", "lockfile", "os", "probe", "python", "stack"]
  | map({key: (. + ".*"), rule: "ignore"})))}')

@test "bless, then a changed variables file is drift in check, naming the artifact" {
	make_models m
	mkdir -p sp
	args=(--no-discover --site-packages sp --artifact m/bert
	    --artifact m/batching_parameters.txt)
	run "$EP" bless -q "${args[@]}"
	echo "$output"
	[ "$status" -eq 0 ]
	commit_policy .envparity/store "$ONLY_ARTIFACTS"
	run "$EP" check "${args[@]}" --json r0.json
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(jq -r '.results[] | select(.key == "artifact.m/bert.sha256") | .status' r0.json)" = pass ]

	# One byte of the weights changes; the count stays.
	printf 'X' | dd of=m/bert/1/variables/variables.data-00000-of-00001 \
	    bs=1 seek=1000 conv=notrunc status=none
	run "$EP" check "${args[@]}" --json r1.json
	echo "$output"
	[ "$status" -eq 1 ]
	[[ "${lines[0]}" == "envparity check: DRIFT: "* ]]
	jq -r '.results[] | select(.status == "fail") | .key' r1.json >failed
	[ "$(cat failed)" = artifact.m/bert.sha256 ]
	[ "$(jq -r '.results[] | select(.key == "artifact.m/bert.sha256") | .actual' r1.json)" = "$(oneliner m/bert)" ]

	# A batching parameter and a new file: both digests and the count.
	sed -i 's/128/256/' m/batching_parameters.txt
	printf x >m/bert/1/assets/extra.txt
	run "$EP" check "${args[@]}" --json r2.json
	[ "$status" -eq 1 ]
	jq -r '.results[] | select(.status == "fail") | .key' r2.json | sort >failed
	[ "$(paste -sd' ' failed)" = "artifact.m/batching_parameters.txt.sha256 artifact.m/bert.files artifact.m/bert.sha256" ]

	# Not named at all: missing, a failure.
	run "$EP" check --no-discover --site-packages sp --json r3.json
	[ "$status" -eq 1 ]
	[ "$(jq -r '.results[] | select(.key == "artifact.m/bert.sha256") | .status' r3.json)" = fail ]
}

@test "a link that leaves the directory, absolute or relative, is refused: exit 2 naming it, nothing written" {
	make_models m
	echo secret >outside
	ln -s ../../../outside m/bert/1/escape
	cap out.json --artifact m/bert
	[ "$status" -eq 2 ]
	[ "$stderr" = "envparity capture: --artifact m/bert: m/bert/1/escape -> ../../../outside: a symbolic link that leaves the artifact (refused: only a relative link that stays inside it is followed)" ]
	[ ! -e out.json ]
	rm m/bert/1/escape

	# Absolute: refused even when it points inside, since the same
	# directory elsewhere would resolve it elsewhere.
	ln -s "$T/m/bert/1/saved_model.pb" m/bert/1/abs
	cap out.json --artifact m/bert
	[ "$status" -eq 2 ]
	[ "$stderr" = "envparity capture: --artifact m/bert: m/bert/1/abs -> $T/m/bert/1/saved_model.pb: an absolute symbolic link (refused: only a relative link that stays inside the artifact is followed)" ]
	[ ! -e out.json ]
	rm m/bert/1/abs

	# A loop, and a link to nothing.
	ln -s .. m/bert/1/assets/up
	cap out.json --artifact m/bert
	[ "$status" -eq 2 ]
	[[ "$stderr" == *"m/bert/1/assets/up -> ..: a symbolic link to a directory that holds it (a loop; refused)" ]]
	rm m/bert/1/assets/up
	ln -s gone m/bert/1/dangling
	cap out.json --artifact m/bert
	[ "$status" -eq 2 ]
	[[ "$stderr" == *"m/bert/1/dangling -> gone: a symbolic link to nothing" ]]
	rm m/bert/1/dangling

	# check and bless stop the same way, before any verdict or commit.
	ln -s ../../../outside m/bert/1/escape
	run --separate-stderr "$EP" bless -q --no-discover --site-packages "$T/sp" --artifact m/bert
	[ "$status" -eq 2 ]
	[[ "$stderr" == "envparity bless: --artifact m/bert: m/bert/1/escape -> "* ]]
	[ ! -e .envparity/store ]
}

@test "a FIFO inside, or as the artifact, is refused at once, not waited on" {
	make_models m
	mkfifo m/bert/1/variables/pipe
	run --separate-stderr timeout 20 "$EP" capture -q --no-discover \
	    --site-packages "$T/sp" --artifact m/bert -o out.json
	[ "$status" -ne 124 ]
	[ "$status" -eq 2 ]
	[ "$stderr" = "envparity capture: --artifact m/bert: m/bert/1/variables/pipe: a FIFO (refused: only regular files, directories and links inside the artifact are hashed)" ]
	[ ! -e out.json ]
	rm m/bert/1/variables/pipe
	# A link inside to a FIFO inside ("p" is listed before "pipe": the
	# first entry refused, by name).
	mkfifo m/pipe
	ln -s ../pipe m/bert/p
	run --separate-stderr timeout 20 "$EP" capture -q --no-discover \
	    --site-packages "$T/sp" --artifact m/bert -o out.json
	[ "$status" -eq 2 ]
	[[ "$stderr" == *"leaves the artifact"* ]]
	mv m/pipe m/bert/pipe
	rm m/bert/p
	ln -s pipe m/bert/p
	run --separate-stderr timeout 20 "$EP" capture -q --no-discover \
	    --site-packages "$T/sp" --artifact m/bert -o out.json
	[ "$status" -eq 2 ]
	[[ "$stderr" == *"m/bert/p -> pipe: a link to a FIFO (refused: only regular files are hashed)" ]]
	run --separate-stderr timeout 20 "$EP" capture -q --no-discover \
	    --site-packages "$T/sp" --artifact m/bert/pipe -o out.json
	[ "$status" -eq 2 ]
	[ "$stderr" = "envparity capture: --artifact m/bert/pipe: a FIFO, not a file or directory" ]
	[ ! -e out.json ]
}

@test "a missing artifact is exit 2 in one line, in capture and in check" {
	cap out.json --artifact /models/none
	[ "$status" -eq 2 ]
	[ "$stderr" = "envparity capture: --artifact /models/none: No such file or directory" ]
	[ ! -e out.json ]
	mkdir -p sp
	"$EP" bless -q --no-discover --site-packages sp >/dev/null
	run --separate-stderr "$EP" check --no-discover --site-packages sp \
	    --artifact models/none --json r.json
	[ "$status" -eq 2 ]
	[ "$stderr" = "envparity check: --artifact models/none: No such file or directory" ]
	[ ! -e r.json ]
}

@test "an unreadable file or directory inside is exit 2 naming it" {
	make_models m
	chmod 000 m/bert/1/variables/variables.index
	chmod 755 "$T"
	if [ "$(id -u)" -eq 0 ]; then
		# Root reads anything: run as nobody to see a refusal.
		command -v setpriv >/dev/null || skip "root, and no setpriv"
		as=(setpriv --reuid=65534 --regid=65534 --clear-groups)
	else
		as=()
	fi
	mkdir -p sp
	run --separate-stderr "${as[@]}" "$EP" capture -q --no-discover \
	    --site-packages sp --artifact m/bert
	[ "$status" -eq 2 ]
	[ "$stderr" = "envparity capture: --artifact m/bert: m/bert/1/variables/variables.index: cannot read: Permission denied" ]
	chmod 644 m/bert/1/variables/variables.index
	chmod 000 m/bert/1/assets
	mkdir -p sp
	run --separate-stderr "${as[@]}" "$EP" capture -q --no-discover \
	    --site-packages sp --artifact m/bert
	chmod 755 m/bert/1/assets
	[ "$status" -eq 2 ]
	[ "$stderr" = "envparity capture: --artifact m/bert: m/bert/1/assets: cannot list the directory: Permission denied" ]
}

@test "more files than ENVPARITY_ARTIFACT_MAX_FILES is exit 2; the default takes 10,000" {
	mkdir many
	(cd many && seq -f 'f%05g' 1 10000 | xargs touch)
	cap out.json --artifact many
	[ "$status" -eq 0 ]
	[ "$(fact out.json artifact.many.files)" = 10000 ]
	[ "$(fact out.json artifact.many.sha256)" = "$(oneliner many)" ]
	ENVPARITY_ARTIFACT_MAX_FILES=9999 cap out2.json --artifact many
	[ "$status" -eq 2 ]
	[ "$stderr" = "envparity capture: --artifact many: more than 9999 files (ENVPARITY_ARTIFACT_MAX_FILES raises the limit)" ]
	[ ! -e out2.json ]
}

# The cache keeps no hash of a file changed in the last two seconds, so
# the warm test's files are made once, 3 seconds before it runs.
setup_file() {
	make_models "$BATS_FILE_TMPDIR/warm"
	sleep 3
}

@test "a warm run gives the same digest and hashes nothing" {
	cd "$BATS_FILE_TMPDIR/warm"
	cap "$T/m1.json" --artifact bert --artifact models.config
	[ "$status" -eq 0 ]
	[ "$(jq -r .meta.hashing.bytes_hashed "$T/m1.json")" -ge 372000 ]
	cap "$T/m2.json" --artifact bert --artifact models.config
	[ "$status" -eq 0 ]
	[ "$(jq -r .meta.hashing.bytes_hashed "$T/m2.json")" -eq 0 ]
	[ "$(jq -r .meta.hashing.cached "$T/m2.json")" = \
	    "$(jq -r .meta.hashing.files "$T/m2.json")" ]
	# Every part of the directory was asked of the cache.
	[ "$(jq -r .meta.hashing.files "$T/m2.json")" -ge 7 ]
	[ "$(fact "$T/m2.json" artifact.bert.sha256)" = "$(oneliner bert)" ]
	[ "$(fact "$T/m2.json" artifact.bert.sha256)" = \
	    "$(fact "$T/m1.json" artifact.bert.sha256)" ]
	[ "$(fact "$T/m2.json" artifact.models.config.sha256)" = "$(sha models.config)" ]
	# --no-cache reads them all again.
	cap "$T/m3.json" --artifact bert --no-cache
	[ "$(jq -r .meta.hashing.cached "$T/m3.json")" -eq 0 ]
	[ "$(fact "$T/m3.json" artifact.bert.sha256)" = "$(oneliner bert)" ]
}

@test "the key is the path as given, spelled one way: relative stays relative, absolute stays absolute" {
	make_models work/models
	cd work
	# "./models/bert/", "models//bert" and "models/bert" are one artifact.
	cap "$T/r.json" --artifact ./models/bert/ --artifact models//bert \
	    --artifact models/bert
	[ "$status" -eq 0 ]
	[ "$(jq '[.facts | keys[] | select(startswith("artifact."))]' -c "$T/r.json")" = \
	    '["artifact.models/bert.files","artifact.models/bert.sha256"]' ]
	# Absolute: the path itself, whatever the working directory, so
	# /models/bert on two machines is one key.
	cap "$T/a1.json" --artifact "$T/work/models/bert/"
	cd /
	cap "$T/a2.json" --artifact "$T/work/models/bert"
	[ "$status" -eq 0 ]
	k="artifact.$T/work/models/bert.sha256"
	[ "$(fact "$T/a1.json" "$k")" = "$(fact "$T/r.json" artifact.models/bert.sha256)" ]
	[ "$(fact "$T/a2.json" "$k")" = "$(fact "$T/a1.json" "$k")" ]
	# Relative from elsewhere: another key (name artifacts the same way
	# on every machine).
	cd "$T/work/models"
	cap "$T/r2.json" --artifact ../models/bert
	[ "$(fact "$T/r2.json" artifact.../models/bert.sha256)" = "$(fact "$T/a1.json" "$k")" ]
	# White space and bytes past ASCII are %XX: a key has no blank.
	cd "$T"
	mkdir 'my model' 'modèle'
	printf x >'my model/w'
	cap "$T/s.json" --artifact 'my model' --artifact 'modèle'
	[ "$status" -eq 0 ]
	[ "$(fact "$T/s.json" artifact.my%20model.files)" = 1 ]
	[ "$(fact "$T/s.json" artifact.mod%C3%A8le.files)" = 0 ]
	validate_schema manifest "$T/s.json"
}

@test "--artifact is in the help of capture, check and bless" {
	for c in capture check bless; do
		run "$EP" "$c" --help
		[ "$status" -eq 0 ]
		[[ "$output" == *"--artifact PATH"* ]]
	done
}
