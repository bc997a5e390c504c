#!/usr/bin/env bats
# junit_commands.bats: the GitHub Actions that read a JUnit report print
# what they decode into the job's log, where the runner reads workflow
# commands.  A fact value, a key or a waiver that holds "::add-mask::",
# "::stop-commands::", "##[error]" (after a newline, a CR, white space, an
# emoji a reader drops, or in the part of a classname a reader cuts out)
# must reach the log as no command: dorny/test-reporter and
# mikepenz/action-junit-report run here on envparity's report
# (junit_consumers.mjs, their own code from tests/consumers/), and
# runner_commands.py reads what they printed as the runner would.

load setup

RC=$BATS_TEST_DIRNAME/runner_commands.py

# A golden and a current manifest, and a policy, whose keys, values,
# waiver and warning say what a pull request's packages could.
hostile() {
	jq -n '{schema: "envparity/manifest@1", meta: {}, facts: {
	    "python.pkg.mask": "1", "python.pkg.lines": "1",
	    "python.pkg.emoji": "1", "python.pkg.legacy": "1",
	    "::add-mask::area.k": "1", "python.pkg.##[error]key": "1",
	    "env.XLA_FLAGS": "1", "lib.w.version": "1", "lib.v.version": "1"}}' >a.json
	jq -n '{schema: "envparity/manifest@1", meta: {}, facts: {
	    "python.pkg.mask": "::add-mask::secret",
	    "python.pkg.lines": "2\n::stop-commands::tok\n \t::set-output name=x::y\r::error::cr",
	    "python.pkg.emoji": "#\ud83d\ude00#[warning]emoji",
	    "python.pkg.legacy": "x ##[error]legacy",
	    "::add-mask::area.k": "2", "python.pkg.##[error]key": "2",
	    "env.XLA_FLAGS": "#\r#[x\n\u00a0::warning::nbsp",
	    "lib.w.version": "2\n::add-mask::warned",
	    "lib.v.version": "2\n::add-mask::waived"}}' >b.json
	jq -n '{schema: "envparity/policy@1",
	    rules: [{key: "lib.w.version", rule: "exact", severity: "warn"}],
	    waivers: [{key: "lib.v.version", reason: "r\n::add-mask::w ##[x",
	    owner: "::o", expires: "2099-12-31"}]}' >p.json
}

@test "dorny/test-reporter and mikepenz/action-junit-report print no workflow command from a hostile report" {
	[ -e "$REPO_ROOT/tools/node_modules/typescript/lib/typescript.js" ] &&
	    [ -e "$REPO_ROOT/tools/node_modules/xml-js/package.json" ] &&
	    [ -e "$REPO_ROOT/tools/node_modules/@actions/github/package.json" ] ||
	    { [ "${EP_NO_VALIDATOR:-}" = 1 ] && skip "no JUnit readers on this host"; \
	    echo "run tools/deps.sh test" >&2; false; }
	hostile
	run "$EP" diff --policy p.json a.json b.json --junit r.xml --json r.json
	[ "$status" -eq 1 ]
	xmllint --noout --schema "$REPO_ROOT/manifests/junit.xsd" r.xml
	run node "$BATS_TEST_DIRNAME/junit_consumers.mjs" "$T/r.xml" "$T/w"
	echo "$output"
	[ "$status" -eq 0 ]
	cat w/plain.log
	# What they printed holds the values (the test is not vacuous) ...
	grep -q 'stop-commands' w/plain.log
	grep -q 'add-mask' w/plain.log
	grep -q 'emoji' w/plain.log
	grep -q 'legacy' w/plain.log
	[ "$(grep -c 'python.pkg.lines' w/plain.log)" -ge 1 ]
	# ... as no command, read as the runner reads a log.
	"$RC" w/plain.log
	# What @actions/core issued is theirs alone: annotations and debug
	# lines, one line each (escaped), one annotation per case.
	cat w/commands.log
	! grep -vE '^::(debug|error|warning|notice)[ :]' w/commands.log || false
	[ "$(grep -cE '^::(error|warning|notice) ' w/commands.log)" = \
	    "$(jq '.results | length' r.json)" ]
}

@test "the JUnit report's text holds no '::' and no '##[', even across a character a reader drops; two values stay two" {
	hostile
	"$EP" diff --policy p.json a.json b.json --junit r.xml >/dev/null || true
	# Every attribute and text, decoded as a reader decodes them.
	python3 - r.xml <<-'EOF'
	import re, sys, xml.etree.ElementTree as ET
	bad = 0
	for el in ET.parse(sys.argv[1]).iter():
	    for v in list(el.attrib.values()) + [el.text or ""]:
	        # As a reader that drops emoji and CRs would print it.
	        seen = re.sub(r"[^\x00-\x7f]|\r", "", v)
	        if "::" in seen or "##[" in seen:
	            print("decoded:", repr(v))
	            bad = 1
	sys.exit(bad)
	EOF
	# The values are written out, not lost.
	grep -q ':&lt;U+003A&gt;stop-commands:&lt;U+003A&gt;tok' r.xml ||
	    grep -q ':<U+003A>stop-commands' r.xml
	# A key that holds "::" and one that holds its written-out form are
	# two test cases.
	manifest c.json '{"python.pkg.a::b": "1", "python.pkg.a:<U+003A>b": "1"}'
	manifest d.json '{"python.pkg.a::b": "2", "python.pkg.a:<U+003A>b": "2"}'
	"$EP" diff c.json d.json --junit r2.xml >/dev/null || true
	xmllint --xpath '//testcase[starts-with(@name, "python.pkg.a")]/@name' r2.xml | sort -u >names
	cat names
	[ "$(grep -c name= names)" = 2 ]
}
