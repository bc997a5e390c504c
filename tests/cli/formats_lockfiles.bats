#!/usr/bin/env bats
# formats_lockfiles.bats: lockfiles as their owners define them, through
# `capture`: poetry.lock and uv.lock with TOML's own syntax (a date-time
# with a blank, uv's dotted source keys, an inline array of package
# tables), no garbage in a pin (a NUL, a control byte, bytes that are not
# UTF-8), and requirements files as pip reads them (its options, UTF-16
# and UTF-32, a direct reference with markers, a version that is not
# PEP 440).

load setup

bats_require_minimum_version 1.5.0

capture() { # lockfile: capture it into m.json
	run --separate-stderr "$EP" capture -q --no-discover --lockfile "$1" -o m.json
	echo "$status: $stderr"
}

pins() { # lockfile-key: "name=version" per pin, sorted
	jq -r --arg p "lockfile.$1.pin." '.facts | to_entries[] |
	    select(.key | startswith($p)) | "\(.key | ltrimstr($p))=\(.value)"' m.json | sort | tr '\n' ' '
}

@test "poetry.lock: a date-time with a blank for T (TOML 1.0) keeps every pin" {
	cat > poetry.lock <<-'EOF2'
	[[package]]
	name = "numpy"
	version = "1.26.4"

	[[package]]
	name = "torch"
	version = "2.3.1"

	[metadata]
	created = 1979-05-27 07:32:00Z
	local = 1979-05-27 00:32:00.999999
	lock-version = "2.0"
	EOF2
	capture poetry.lock
	[ "$status" -eq 0 ]
	[ "$(pins poetry.lock)" = "numpy=1.26.4 torch=2.3.1 " ]
}

@test "uv.lock: a NUL in a version is refused (exit 2), never cut short into a pin" {
	printf 'version = 1\n\n[[package]]\nname = "numpy"\nversion = "1.26.4\\u0000rc1"\n' > uv.lock
	capture uv.lock
	[ "$status" -eq 2 ]
	[[ "$stderr" == *'uv.lock:5: "version" holds a NUL character'* ]]
	[ ! -e m.json ]
}

@test "poetry.lock: a control byte or bytes that are not UTF-8 in a version never become a pin" {
	printf '[[package]]\nname = "numpy"\nversion = "1.26.4\001"\n' > poetry.lock
	capture poetry.lock
	[ "$status" -eq 2 ]
	[[ "$stderr" == *"poetry.lock:3: control character in a string"* ]]
	[ ! -e m.json ]
	printf '[[package]]\nname = "numpy"\nversion = "1.26.4\377"\n' > poetry.lock
	capture poetry.lock
	[ "$status" -eq 2 ]
	[[ "$stderr" == *"poetry.lock:3: not UTF-8 text"* ]]
	[ ! -e m.json ]
	# An escaped control character is TOML, but no version.
	printf '[[package]]\nname = "numpy"\nversion = "1.26.4\\u0007"\n' > poetry.lock
	capture poetry.lock
	[ "$status" -eq 2 ]
	[[ "$stderr" == *'poetry.lock:3: "version" holds a control character'* ]]
}

@test "uv.lock: source.editable = \".\" (dotted keys) is the workspace member an inline table makes" {
	cat > uv.lock <<-'EOF2'
	version = 1
	revision = 2

	[[package]]
	name = "me"
	source.editable = "."

	[[package]]
	name = "virt"
	source.virtual = "."

	[[package]]
	name = "numpy"
	version = "1.26.4"
	source.registry = "https://pypi.org/simple"
	EOF2
	capture uv.lock
	[ "$status" -eq 0 ]
	[ "$(pins uv.lock)" = "numpy=1.26.4 " ]
}

@test "poetry.lock: package = [{...}, {...}] gives its pins, or an error; never silence" {
	cat > poetry.lock <<-'EOF2'
	package = [
	  {name = "numpy", version = "1.26.4"},
	  {name = "Torch", version = "2.3.1", source = {type = "legacy"}},
	]

	[metadata]
	lock-version = "2.0"
	EOF2
	capture poetry.lock
	[ "$status" -eq 0 ]
	[ "$(pins poetry.lock)" = "numpy=1.26.4 torch=2.3.1 " ]
	printf 'package = [{name = "numpy"}]\n' > poetry.lock
	capture poetry.lock
	[ "$status" -eq 2 ]
	[[ "$stderr" == *'poetry.lock:1: [[package]] "numpy" has no version'* ]]
	printf 'package = ["numpy==1.26.4"]\n' > poetry.lock
	capture poetry.lock
	[ "$status" -eq 2 ]
	[[ "$stderr" == *'poetry.lock:1: "package" is an array of something else than tables'* ]]
}

@test "requirements: pip's --only-final, --all-releases, --no-require-hashes (and the rest) are read, pins kept" {
	cat > requirements.txt <<-'EOF2'
	--only-final :all:
	--all-releases pkg1,pkg2
	--no-require-hashes
	--pypi-url https://pypi.example/simple
	-C key=value
	--extra-index https://pypi.example/extra
	numpy==1.26.4 --hash=sha256:aaaa --config-settings="a=b"
	EOF2
	capture requirements.txt
	[ "$status" -eq 0 ]
	[ "$(pins requirements.txt)" = "numpy=1.26.4 " ]
	# What pip refuses stays refused, naming the option, never a value.
	printf -- '--bogus https://user:s3cret@x/\nnumpy==1.26.4\n' > requirements.txt
	capture requirements.txt
	[ "$status" -eq 2 ]
	[[ "$stderr" == *"requirements.txt:1: unknown option '--bogus'"* ]]
	[[ "$stderr" != *s3cret* ]]
	printf 'numpy==1.26.4 --hash=somehash\n' > requirements.txt
	capture requirements.txt
	[ "$status" -eq 2 ]
	[[ "$stderr" == *"requirements.txt:1: --hash needs ALGO:DIGEST"* ]]
}

@test "requirements: UTF-16 and UTF-32 files with a byte order mark are decoded, as pip decodes them" {
	for enc in utf-16 utf-16-le utf-16-be utf-32 utf-32-le utf-32-be; do
		python3 -c 'import codecs, sys
enc = sys.argv[1]
bom = {"utf-16-le": codecs.BOM_UTF16_LE, "utf-16-be": codecs.BOM_UTF16_BE,
       "utf-32-le": codecs.BOM_UTF32_LE, "utf-32-be": codecs.BOM_UTF32_BE}.get(enc, b"")
sys.stdout.buffer.write(bom + "numpy==1.26.4\r\ntorch==2.3.1 # caf\u00e9\n".encode(enc))' "$enc" > requirements.txt
		capture requirements.txt
		[ "$status" -eq 0 ]
		[ "$(pins requirements.txt)" = "numpy=1.26.4 torch=2.3.1 " ]
	done
}

@test "requirements: name @ URL; marker pins the URL, without the marker's ';'" {
	printf 'x @ https://example.com/x.whl; extra == "e"\ny @ https://example.com/y.whl ; python_version >= "3.8"\n' > requirements.txt
	capture requirements.txt
	[ "$status" -eq 0 ]
	[ "$(pins requirements.txt)" = "x=@ https://example.com/x.whl y=@ https://example.com/y.whl " ]
}

@test "requirements: name==1.0.org1 is no PEP 440 version: a warning, and the specifier as written" {
	printf 'a==1.0.org1\nb==1.0.post1\n' > requirements.txt
	capture requirements.txt
	[ "$status" -eq 0 ]
	[ "$(pins requirements.txt)" = "a===1.0.org1 b=1.0.post1 " ]
	[ "$(jq -r '.meta.warnings[]' m.json | grep -c 'requirements.txt:1: a: the version after == is not a PEP 440 version; the pin is the specifier as written')" -eq 1 ]
}
