#!/usr/bin/env bats
# lockfile_flood.bats: what a pull request can put in the checkout to
# exhaust or hang the runner through the lockfiles envparity reads (found
# in the current directory, unasked): a 60 MiB requirements.txt, a name
# pinned a hundred thousand times, a link to /proc/kmsg or a device, a
# thousand lockfiles, a thousand broken distributions; and the credentials
# a lockfile's options can carry.  Memory is measured (GNU time's maximum
# resident set size); time is compared as a ratio to an input of a quarter
# the size, never against the clock.

load setup

unset GITHUB_ACTIONS GITHUB_STEP_SUMMARY

# Kilobytes of peak resident memory of a command.
peak_kb() {
	/usr/bin/time -f '%M' -o "$T/rss" "$@" > /dev/null 2>&1 || true
	cat "$T/rss"
}

# Seconds (with fractions) a command takes, the best of three.
seconds() {
	local best= t
	for _ in 1 2 3; do
		/usr/bin/time -f '%e' -o "$T/sec" "$@" > /dev/null 2>&1 || true
		t=$(cat "$T/sec")
		if [ -z "$best" ] || awk -v a="$t" -v b="$best" 'BEGIN { exit !(a < b) }'; then
			best=$t
		fi
	done
	echo "$best"
}

@test "a 60 MiB requirements.txt: bounded memory, capped pins, a warning that says so" {
	# Two million distinct pins, as a pull request could commit, just
	# under the 64 MiB that envparity reads pins from at all.
	python3 - <<-'EOF'
	with open("requirements.txt", "w") as f:
	    for i in range(1_990_000):
	        f.write(f"package-number-{i:07d}==1.{i % 1000}.0\n")
	EOF
	[ "$(stat -c %s requirements.txt)" -gt $((60 * 1024 * 1024)) ]
	[ "$(stat -c %s requirements.txt)" -lt $((64 * 1024 * 1024)) ]
	# Warm: the CUDA libraries' version children (their memory counts
	# in GNU time's figure) are not what this measures.
	"$EP" capture -q --no-discover > /dev/null
	kb=$(peak_kb "$EP" capture -q --no-discover --lockfile requirements.txt -o m.json)
	echo "peak RSS: $kb KiB" >&3
	# The bound is the plain build's: AddressSanitizer keeps freed memory
	# in quarantine (256 MiB by default), which is not envparity's.
	case $EP in
	*/build-san/*) ;;
	*) [ "$kb" -lt $((200 * 1024)) ] ;;
	esac
	[ "$(jq '[.facts | keys[] | select(startswith("lockfile.requirements.txt.pin."))] | length' m.json)" -eq 10000 ]
	jq -e '.meta.warnings | any(test("requirements.txt: 1980000 more pins not recorded \\(at most 10000 a lockfile\\)"))' m.json
	# A check against an empty golden lists a bounded report.
	jq '.facts = {} | .meta = {}' m.json > golden.json
	run "$EP" diff golden.json m.json --json r.json --junit r.xml --markdown r.md
	[ "$status" -eq 1 ]
	[ "$(jq '.results | length' r.json)" -eq 10001 ]
	jq -e '.omitted.total > 0 and .omitted.fail > 0' r.json
	jq -e '[.results[] | select(.key == "report.omitted" and .status == "skip")] | length == 1' r.json
	validate_schema report r.json
	xmllint --noout --schema "$REPO_ROOT/manifests/junit.xsd" r.xml
	grep -q 'report.omitted' r.md
	[ "$(grep -c 'FAIL' <<<"$output")" -le 101 ]
}

@test "one name pinned over and over is read in linear time (requirements, poetry, conda)" {
	gen() { # n file
		python3 - "$1" "$2" <<-'EOF'
		import sys
		n, path = int(sys.argv[1]), sys.argv[2]
		with open(path, "w") as f:
		    if path.endswith("requirements.txt"):
		        for i in range(n):
		            f.write(f"numpy==1.{i}.0 ; python_version == '3.{i}'\n")
		    elif path.endswith("poetry.lock"):
		        for i in range(n):
		            f.write(f'[[package]]\nname = "numpy"\nversion = "1.{i}.0"\n\n')
		    else:
		        f.write("@EXPLICIT\n")
		        for i in range(n):
		            f.write(f"https://conda.anaconda.org/c/linux-64/numpy-1.{i}.0-py_0.conda\n")
		EOF
	}
	for f in requirements.txt poetry.lock conda-linux-64.lock; do
		mkdir -p small big
		gen 40000 "small/$f"
		gen 160000 "big/$f"
		s=$(seconds "$EP" capture -q --no-discover --lockfile "small/$f")
		b=$(seconds "$EP" capture -q --no-discover --lockfile "big/$f")
		echo "$f: 40000 pins ${s}s, 160000 pins ${b}s" >&3
		# Linear is 4x (plus start-up, less); quadratic 16x.
		awk -v s="$s" -v b="$b" 'BEGIN { exit !(b < 8 * (s < 0.05 ? 0.05 : s)) }'
		"$EP" capture -q --no-discover --lockfile "big/$f" -o m.json
		# The first 10000 pins (the cap), merged into one value.
		v=$(jq -r --arg k "lockfile.big/$f.pin.numpy" '.facts[$k]' m.json)
		[ "$(tr ',' '\n' <<<"$v" | wc -l)" -eq 10000 ]
		rm -rf small big
	done
}

@test "a long URL full of /t/ segments is scrubbed in linear time" {
	python3 - <<-'EOF'
	for name, n in (("small", 60_000), ("big", 240_000)):
	    with open(f"requirements-{name}.txt", "w") as f:
	        f.write("a @ https://h" + "/t/" * n + "x\n")
	EOF
	s=$(seconds "$EP" capture -q --no-discover --lockfile requirements-small.txt)
	b=$(seconds "$EP" capture -q --no-discover --lockfile requirements-big.txt)
	echo "small ${s}s big ${b}s"
	awk -v s="$s" -v b="$b" 'BEGIN { exit !(b < 8 * (s < 0.05 ? 0.05 : s)) }'
	"$EP" capture -q --no-discover --lockfile requirements-big.txt -o m.json
	[ "$(fact m.json lockfile.requirements-big.txt.pin.a)" = "@ https://h" ]
}

@test "a lockfile that links to /proc/kmsg, a device or a FIFO never hangs the capture" {
	ln -s /dev/zero uv.lock
	mkfifo poetry.lock
	if [ -r /proc/kmsg ]; then
		ln -s /proc/kmsg requirements.txt
	else
		ln -s /proc/self/status requirements.txt
	fi
	run timeout 20 "$EP" capture -o m.json
	echo "$output"
	[ "$status" -eq 0 ]
	jq -e '.meta.warnings | any(test("^uv.lock: a character device, not a regular file$"))' m.json
	jq -e '.meta.warnings | any(test("^poetry.lock: a FIFO, not a regular file$"))' m.json
	jq -e '.meta.warnings | any(test("^requirements.txt: a file of proc, not a regular file$"))' m.json
	[ "$(fact m.json lockfile.requirements.txt.sha256)" = "" ]
	run timeout 20 "$EP" capture -q --no-discover --lockfile requirements.txt
	[ "$status" -eq 2 ]
	[[ "$output" == *"requirements.txt: a file of proc, not a regular file"* ]]
}

@test "a thousand lockfiles in the checkout: the first 64 are read, a warning says so" {
	for i in $(seq -w 1 1000); do
		echo "pkg==1.$i" > "requirements-$i.txt"
	done
	"$EP" capture -q -o m.json
	[ "$(jq '[.facts | keys[] | select(endswith(".sha256") and startswith("lockfile."))] | length' m.json)" -eq 64 ]
	jq -e '.meta.warnings | any(test("current directory: 936 more lockfiles not read \\(at most 64 are found; name others with --lockfile\\)"))' m.json
}

@test "a thousand broken distributions: meta.warnings is capped with a count" {
	mkdir site
	for i in $(seq 1 1000); do
		mkdir "site/broken$i-1.0.dist-info"
		printf 'Metadata-Version: 2.1\nName: broken%s\n' "$i" > "site/broken$i-1.0.dist-info/METADATA"
	done
	"$EP" capture -q --no-discover --site-packages site -o m.json
	[ "$(jq '.meta.warnings | length' m.json)" -eq 201 ]
	jq -e '.meta.warnings[-1] == "and 800 more warnings not recorded (at most 200 are)"' m.json
	[ "$(stat -c %s m.json)" -lt $((1024 * 1024)) ]
}

@test "a lockfile option's URL never reaches a warning with its password" {
	cat > requirements.txt <<-'EOF'
	--index-url:https://user:s3cret@pypi.example/simple
	--bogus-option:https://user:s3cret@pypi.example/simple
	--weird=https://user:s3cret@pypi.example/simple
	numpy==1.26.4
	EOF
	"$EP" capture -o m.json 2> err
	cat err
	! grep -q s3cret m.json err || false
	grep -q "unknown option '--bogus-option'" err
}

@test "a warning that quotes a URL never shows its userinfo, whatever the password holds" {
	mkdir site d
	# A dist-info whose METADATA cannot be read names its path: put a
	# URL with a password in the path.
	p='site/x-1.0.dist-info'
	mkdir -p "$p"
	printf 'Metadata-Version: 2.1\nName: x\n' > "$p/METADATA"
	ln -s "$T/d" "site/https:"
	run "$EP" capture -q --no-discover --site-packages "$T/site" --lockfile "https://user:p@ss/w#rd@host/x/requirements.txt"
	[ "$status" -eq 2 ]
	[[ "$output" != *"p@ss"* && "$output" != *"w#rd"* ]]
	[[ "$output" == *"https://***@host/x/requirements.txt"* ]]
}
