#!/usr/bin/env bats
# pipcheck.bats: stack.requires against `pip check` itself, on the same
# site-packages: a real venv (python3 -m venv, with the pip ensurepip
# puts in it: pip check has no --path, it checks the environment of the
# interpreter that runs it) filled by the generator with requirements met
# and unmet, and this machine's own site-packages.  envparity's sentences
# must be pip's, one for one.
#
# Where they differ on purpose (docs/checking.md, "stack.requires"):
# pip says a missing requirement once per requirement line and envparity
# once; pip also reports wheels built for another platform, which is not
# a requirement; and a requirement pip cannot read makes pip drop its
# distribution (a warning on standard error), where envparity reports it
# and goes on.  None of that is in the trees below.

load setup

GEN=$BATS_TEST_DIRNAME/../fixtures/gen-site-packages.sh

# One venv with pip for the file (ensurepip takes seconds), copied fresh
# into each test.
setup_file() {
	export PIPCHECK_VENV=$BATS_FILE_TMPDIR/venv
	python3 -m venv "$PIPCHECK_VENV" >/dev/null 2>&1 &&
	    "$PIPCHECK_VENV/bin/python" -m pip --version >/dev/null 2>&1 ||
	    rm -rf "$PIPCHECK_VENV"
}

venv() { # dir: a copy of the file's venv; its site-packages in $SITE
	[ -d "$PIPCHECK_VENV" ] || skip "python3 -m venv gives no venv with pip here"
	cp -a "$PIPCHECK_VENV" "$1"
	SITE=$(echo "$1"/lib/python3*/site-packages)
	[ -d "$SITE" ] || skip "no lib/python3*/site-packages in the venv"
}

# pip check's findings, one sentence a line, sorted, duplicates once.
pip_check() { # python
	"$1" -m pip check --disable-pip-version-check 2>/dev/null |
	    grep -v -e '^No broken requirements found\.$' \
	    -e ' is not supported on this platform$' | LC_ALL=C sort -u
}

# envparity's: the stack.requires.* results of a diff of the manifest
# with itself, their messages cut back into pip's sentences.
ep_findings() { # manifest status
	"$EP" diff "$1" "$1" --json r.json >/dev/null 2>&1 || true
	jq -r --arg s "$2" '.results[] | select((.key | startswith(
	    "stack.requires.")) and .status == $s) | .message
	    | sub("^stack\\.requires\\.[^:]*: "; "")' r.json |
	    sed -E 's/(which is not installed\.|, but you have [^ ]+ [^ ]+\.|from [^)]*\)\.) /\1\n/g' |
	    LC_ALL=C sort -u
}

@test "generated conflicts: envparity finds what pip check finds, in its words" {
	venv v
	"$GEN" --conflicts "$SITE" 40 >/dev/null
	run "$T/v/bin/python" -m pip check --disable-pip-version-check
	[ "$status" -eq 1 ]
	pip_check "$T/v/bin/python" >pip.txt
	# The venv's interpreter is asked (python_version is known, so the
	# python_version >= "3" one is reported).
	"$EP" capture -q --no-discover --python "$T/v/bin/python" -o m.json
	[ "$(jq -r .meta.python.markers_from m.json)" = interpreter ]
	ep_findings m.json fail >ep.txt
	diff pip.txt ep.txt
	[ "$(wc -l <pip.txt)" -eq 5 ]
	grep -qx 'conflict-missing 1.0 requires not-installed-pkg, which is not installed.' ep.txt
	grep -qx 'conflict-version 1.0 has requirement Zope.Sample-Lib1>=99, but you have zope-sample-lib1 1.1.1.' ep.txt
	grep -qx 'conflict-prereq 1.0 has requirement conflict-pre>=2.0, but you have conflict-pre 2.0rc1.' ep.txt
	grep -qx 'conflict-skipped 1.0 requires absent-py3, which is not installed.' ep.txt
	grep -qx 'conflict-egg 1.0 requires absent-egg-dep, which is not installed.' ep.txt
	# Behind a false marker, an extra or a requires.txt section: not a
	# finding for either (the manifest keeps findings, not lines).
	! grep -q -e absent-on-old -e absent-on-windows -e absent-extra \
	    -e absent-egg-extra -e absent-egg-old pip.txt ep.txt m.json
	# Met: a pre-release where the range admits it, a URL requirement.
	! grep -q 'conflict-version 1.0 has requirement Conflict-Pre' ep.txt
	# Nothing else: no warning, no error, and the exit code says drift.
	[ -z "$(ep_findings m.json warn)" ]
	[ -z "$(ep_findings m.json error)" ]
	run "$EP" diff m.json m.json
	[ "$status" -eq 1 ]
	[[ "$output" == *"FAIL    stack.requires.conflict-egg: conflict-egg 1.0 requires absent-egg-dep, which is not installed."* ]]
}

@test "generated conflicts: the markers of a venv are its interpreter's own" {
	venv v
	"$GEN" --conflicts "$SITE" 12 >/dev/null
	pip_check "$T/v/bin/python" >pip.txt
	"$EP" capture -q --no-discover --python "$T/v/bin/python" -o venv.json
	jq -e '.meta.python.markers.python_version and
	    .meta.python.markers.implementation_name == "cpython" and
	    .meta.python.markers.sys_platform == "linux"' venv.json >/dev/null
	# What the capture gave is what the venv's python says of itself.
	"$T/v/bin/python" -c 'import json, os, platform, sys
i = sys.implementation.version
print(json.dumps({"implementation_name": sys.implementation.name,
    "implementation_version": "%d.%d.%d" % (i[0], i[1], i[2]) + ("" if i[3] == "final" else i[3][0] + str(i[4])),
    "os_name": os.name, "platform_machine": platform.machine(),
    "platform_python_implementation": platform.python_implementation(),
    "platform_release": platform.release(), "platform_system": platform.system(),
    "platform_version": platform.version(),
    "python_full_version": platform.python_version(),
    "python_version": ".".join(platform.python_version_tuple()[:2]),
    "sys_platform": sys.platform}, sort_keys=True))' >want.json
	jq -S -c .meta.python.markers venv.json >got.json
	diff <(jq -S -c . want.json) got.json
	ep_findings venv.json fail >ep.txt
	diff pip.txt ep.txt
}

@test "--site-packages without an interpreter: what the marker needs and cannot know is a warning" {
	venv v
	"$GEN" --conflicts "$SITE" 12 >/dev/null
	"$EP" capture -q --no-discover --site-packages "$SITE" -o m.json
	[ "$(jq -r .meta.python.markers_from m.json)" = uname ]
	[ "$(jq -r '.meta.python.markers.python_version // "unknown"' m.json)" = unknown ]
	# python_version is not known: absent-py3 (>= "3") and absent-on-old
	# (< "3") may each apply, so each is a warning that says why (in a
	# result that fails for another reason, a sentence of its message);
	# sys_platform is known, so the win32 one is still left out.
	ep_findings m.json fail | grep -v 'if its marker holds' >fail.txt
	pip_check "$T/v/bin/python" | grep -v absent-py3 >pip.txt
	diff pip.txt fail.txt
	ep_findings m.json fail | grep -qx 'conflict-egg 1.0 requires absent-egg-old, which is not installed, if its marker holds (python_version is not known here: the capture took the marker environment from uname).'
	"$EP" diff m.json m.json --json r.json >/dev/null 2>&1 || true
	[ "$(jq -r '.results[] | select(.key == "stack.requires.conflict-skipped") | .status' r.json)" = warn ]
	msg=$(jq -r '.results[] | select(.key == "stack.requires.conflict-skipped") | .message' r.json)
	[[ "$msg" == *"conflict-skipped 1.0 requires absent-on-old, which is not installed, if its marker holds (python_version is not known here: the capture took the marker environment from uname)."* ]]
	[[ "$msg" == *"requires absent-py3, which is not installed, if its marker holds"* ]]
	[[ "$msg" != *absent-on-windows* ]]
}

@test "a site-packages whose requirements are all met: pip check finds nothing, stack.requires passes" {
	venv v
	"$GEN" "$SITE" 60 >/dev/null
	run "$T/v/bin/python" -m pip check --disable-pip-version-check
	[ "$status" -eq 0 ]
	[ "$output" = "No broken requirements found." ]
	"$EP" capture -q --no-discover --python "$T/v/bin/python" -o m.json
	# Only findings are kept: none here.  74 requirements apply: two of
	# each pip- and poetry-style distribution, one of each setuptools one
	# but the first; extras and false markers do not count.
	[ "$(jq '.meta.python.requires.unmet | length' m.json)" = 0 ]
	[ "$(jq '.meta.python.requires.requirements' m.json)" = 74 ]
	[ "$(jq '.meta.python.requires.distributions' m.json)" = 62 ]
	"$EP" diff m.json m.json --json r.json >/dev/null
	[ "$(jq -r '[.results[] | select(.key | startswith("stack.requires"))] | length' r.json)" = 1 ]
	jq -r '.results[] | select(.key == "stack.requires") | "\(.status) \(.message)"' r.json >pass.txt
	grep -q '^pass stack.requires: 62 distributions, 74 requirements that apply here: every one met' pass.txt
}

@test "this machine's own site-packages: envparity finds what pip check finds" {
	# The venv sees the system's packages too (its own pip and
	# setuptools first), as the interpreter does, through one pip.
	python3 -m venv --system-site-packages sysv >/dev/null 2>&1 &&
	    sysv/bin/python -m pip --version >/dev/null 2>&1 ||
	    skip "python3 -m venv gives no venv with pip here"
	pip_check sysv/bin/python >pip.txt
	"$EP" capture -q --no-discover --python sysv/bin/python -o m.json
	[ "$(jq -r .meta.python.markers_from m.json)" = interpreter ]
	ep_findings m.json fail >ep.txt
	diff pip.txt ep.txt
	[ -z "$(ep_findings m.json warn)" ]
	# And python3 itself, where it has pip.
	if python3 -m pip --version >/dev/null 2>&1; then
		pip_check python3 >pip3.txt
		"$EP" capture -q --no-discover --python "$(command -v python3)" \
		    -o m3.json
		ep_findings m3.json fail >ep3.txt
		diff pip3.txt ep3.txt
	fi
}

@test "a manifest from before requirements were recorded: stack.requires is a skip" {
	manifest old.json '{"python.pkg.numpy": "1.26.4"}' '{"tool": "envparity 0.1.0"}'
	run "$EP" diff old.json old.json --json r.json
	[ "$status" -eq 0 ]
	[ "$(jq -r '.results[] | select(.key == "stack.requires") | .status' r.json)" = skip ]
	jq -r '.results[] | select(.key == "stack.requires") | .message' r.json |
	    grep -q 'records no requirements'
}

@test "fleet compares facts: it runs no stack.requires, whatever meta.python holds" {
	mkdir nodes
	for n in n1 n2; do
		manifest "nodes/$n.json" '{"python.pkg.app": "1.0"}' \
		    "{\"tool\": \"envparity 0.1.0\", \"node\": \"$n\",
		      \"python\": {\"markers\": {}, \"markers_from\": \"uname\",
		      \"requires\": {\"distributions\": 1, \"requirements\": 1,
		      \"unmet\": {\"app\": [{\"kind\": \"missing\",
		      \"requirement\": \"missing-dep\", \"wants\": \"missing-dep\",
		      \"name\": \"missing-dep\"}]}}}}"
	done
	run "$EP" fleet -q nodes --json f.json
	[ "$status" -eq 0 ]
	[ "$(jq '[.results[] | select(.key | startswith("stack.requires"))] | length' f.json)" = 0 ]
	# The same manifest through diff: the check runs there.
	run "$EP" diff nodes/n1.json nodes/n1.json
	[ "$status" -eq 1 ]
	[[ "$output" == *"stack.requires.app: app 1.0 requires missing-dep, which is not installed."* ]]
}
