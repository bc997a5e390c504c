#!/usr/bin/env bats
# report_consumers.bats: what the consumers of the reports show, asked of
# the consumers themselves (report_readers.bash): the JUnit report read by
# python3-junitparser and junit2json and validated by our schema and the
# Jenkins xunit plugin's, a waived finding and a warning as skipped cases
# that say why; the workflow commands compared byte for byte with what
# @actions/core writes; the Markdown rendered by cmark-gfm with GitHub's
# extensions: no value a link, every row its cells, newlines visible, long
# values breakable, a blank line before the heading, the step summary
# under GitHub's 1 MiB.

load setup
load report_readers

policy() { # body
	printf '{"schema": "envparity/policy@1", %s}\n' "$1" > p.json
}

x() { # xpath
	xmllint --xpath "$1" r.xml
}

@test "JUnit: a waived finding and a warning are skipped cases that say why, counted as skipped" {
	manifest a.json '{"python.pkg.numpy": "1.26.4", "python.pkg.torch": "2.3.1",
	  "lib.x.version": "1", "os.name": "Debian"}'
	manifest b.json '{"python.pkg.numpy": "2.0.0", "python.pkg.torch": "2.4.0",
	  "lib.x.version": "2", "os.name": "Debian"}'
	policy '"rules": [{"key": "python.pkg.torch", "rule": "exact", "severity": "warn"}],
	  "waivers": [{"key": "lib.x.version", "reason": "rebuilt, same code",
	  "owner": "ml-platform", "expires": "2099-12-31"}]'
	run "$EP" diff --policy p.json a.json b.json --junit r.xml --json r.json
	echo "$output"
	[ "$status" -eq 1 ]
	junit_read r.xml r.json
	[ "$(jq -c '.counts | [.fail, .warn, .waived]' r.json)" = "[1,1,1]" ]
	[ "$(x 'string(//testcase[@name="lib.x.version"]/skipped/@type)')" = waived ]
	[ "$(x 'string(//testcase[@name="lib.x.version"]/skipped/@message)')" = \
	    "waived by ml-platform until 2099-12-31: rebuilt, same code" ]
	[ "$(x 'string(//testcase[@name="python.pkg.torch"]/skipped/@type)')" = warn ]
	[ "$(x 'string(//testsuite[@name="lib"]/@skipped)')" = 1 ]
	# As junitparser (publish-unit-test-result-action) sees each case.
	"$SYS_PYTHON" - r.xml > seen <<-'EOF'
	import sys
	from junitparser import JUnitXml
	for suite in JUnitXml.fromfile(sys.argv[1]):
	    for case in suite:
	        for r in case.result:
	            print(case.name, r._tag, r.type, r.message, sep="|")
	EOF
	cat seen
	grep -qxF 'lib.x.version|skipped|waived|waived by ml-platform until 2099-12-31: rebuilt, same code' seen
	grep -qxF 'python.pkg.torch|skipped|warn|warning: expected 2.3.1, got 2.4.0' seen
	grep -qxF 'python.pkg.numpy|failure|drift|expected 1.26.4, got 2.0.0 (rule exact)' seen
	[ "$(grep -c '|waived|' seen)" = 1 ]
	[ "$(grep -c '|warn|' seen)" = 1 ]
}

@test "annotations are byte for byte what @actions/core writes for the same values" {
	core=$REPO_ROOT/tools/node_modules/@actions/core/lib/core.js
	need_reader @actions/core test -e "$core"
	# Percent signs, CR and LF, ':' and ',' (in a title), commands of
	# their own, and characters past ASCII.
	manifest a.json '{"python.pkg.x": "1", "python.pkg.k:e,y%25\n::warning::k": "1",
	  "python.pkg.w": "1", "lib.x.version": "1", "gpu.driver.version": "bogus",
	  "lib.cudart.version": "13.0.96"}'
	manifest b.json '{"python.pkg.x": "2%0A\n::error::forged\r\n100%, a:b",
	  "python.pkg.k:e,y%25\n::warning::k": "2\r", "python.pkg.w": "é ☃ 𝄞 %3A,%2C",
	  "lib.x.version": "2", "gpu.driver.version": "bogus", "lib.cudart.version": "13.0.96"}'
	policy '"rules": [{"key": "python.pkg.w", "rule": "exact", "severity": "warn"}],
	  "waivers": [{"key": "lib.x.version", "reason": "a%b\nc:d,e\r::notice::n",
	  "owner": "o,p:q", "expires": "2099-12-31"}]'
	GITHUB_ACTIONS=true "$EP" diff --policy p.json a.json b.json --json r.json \
	    > out 2> err || true
	cat err
	# The same findings through @actions/core's error(), warning() and
	# notice(), which escape with its command module's escapeData and
	# escapeProperty.
	CORE=$core node --input-type=module -e '
	import { readFileSync } from "fs";
	const core = await import(process.env.CORE);
	const as = { fail: ["error", "drift"], error: ["error", "could not check"],
	    warn: ["warning", "warning"], waived: ["notice", "waived"] };
	for (const r of JSON.parse(readFileSync(process.argv[1])).results) {
		const a = as[r.status];
		if (!a)
			continue;
		const m = r.message ?? r.key;
		core[a[0]](r.status === "fail" ? `${m} (rule ${r.rule ?? "(none)"})` : m,
		    { title: `envparity ${a[1]}: ${r.key}` });
	}' r.json > want
	cat want
	[ "$(jq '[.results[] | select(.status != "pass" and .status != "skip")] | length' r.json)" = 5 ]
	cmp err want
	! grep -q '^::' out || false
}

@test "Markdown: no URL, www. name or e-mail address in a value becomes a link" {
	manifest a.json '{"python.pkg.url": "https://evil.example/x?a=b", "python.pkg.www": "www.evil.example",
	  "python.pkg.mail": "owner@example.com", "python.pkg.see https://k.example/": "1",
	  "lib.x.version": "1"}'
	manifest b.json '{"python.pkg.url": "ftp://f.example/y HTTP://CAPS.EXAMPLE/z", "python.pkg.www": "x WWW.Evil.Example/p",
	  "python.pkg.mail": "mailto:a@b.example xmpp:c@d.example/r", "python.pkg.see https://k.example/": "2",
	  "lib.x.version": "2"}'
	policy '"waivers": [{"key": "lib.x.version", "reason": "see https://wiki.example/w and www.w.example",
	  "owner": "ml-platform@example.com", "expires": "2099-12-31"}]'
	GITHUB_STEP_SUMMARY=$T/summary.md run "$EP" diff --policy p.json a.json b.json --markdown r.md
	[ "$status" -eq 1 ]
	md_read r.md
	md_read summary.md
	# The text is all there, as text.
	md_html r.md > r.html
	for s in evil.example/x k.example/ CAPS.EXAMPLE/z Evil.Example/p b.example \
	    ml-platform@ wiki.example/w; do
		grep -qF "$s" r.html
	done
}

@test "Markdown: a newline and a CR in a value are shown, as pictures" {
	manifest a.json '{"python.pkg.x": "one"}'
	manifest b.json '{"python.pkg.x": "line1\nline2\rline3\r\n"}'
	run "$EP" diff a.json b.json --markdown r.md
	[ "$status" -eq 1 ]
	md_read r.md
	md_html r.md > r.html
	grep -qF '<code>line1␊line2␍line3␍␊</code>' r.html
	! grep '^| fail |' r.md | grep -q '<br>' || false
}

@test "Markdown: a long unbroken value may break every 32 characters; the JSON has it whole" {
	long=$(head -c 3000 /dev/zero | tr '\0' a)
	manifest a.json '{"python.pkg.x": "1"}'
	manifest b.json "{\"python.pkg.x\": \"$long\", \"python.pkg.$long\": \"2\"}"
	run "$EP" diff a.json b.json --markdown r.md --json r.json
	[ "$status" -eq 1 ]
	md_read r.md
	md_html r.md > r.html
	# No run of text in a cell longer than 32 characters without a place
	# to break (a space, or a <wbr> between two runs).
	"$SYS_PYTHON" - r.html <<-'EOF'
	import sys
	from html.parser import HTMLParser
	class Runs(HTMLParser):
	    cell, longest = 0, 0
	    def handle_starttag(self, tag, attrs):
	        self.cell += tag in ("td", "th")
	    def handle_endtag(self, tag):
	        self.cell -= tag in ("td", "th")
	    def handle_data(self, data):
	        if self.cell:
	            self.longest = max([self.longest] + [len(w) for w in data.split()])
	p = Runs()
	p.feed(open(sys.argv[1], encoding="utf-8").read())
	print("longest run", p.longest)
	sys.exit(p.longest > 32)
	EOF
	[ "$(jq -r '.results[] | select(.key == "python.pkg.x") | .actual | length' r.json)" = 3000 ]
}

@test "the step summary stays under 1 MiB whatever the values: rows cut, counts at the top" {
	# 210 values of 600 '"': six times as long once escaped.
	for v in a b; do
		jq -n --arg v $v '{schema: "envparity/manifest@1", meta: {},
		    facts: ([range(210) | {key: "python.pkg.p\(.)",
		    value: ($v + ("\"" * 600))}] | from_entries)}' > $v.json
	done
	# An earlier step's content, which must be kept and counted.
	head -c 100000 /dev/zero | tr '\0' x > summary.md
	GITHUB_STEP_SUMMARY=$T/summary.md run "$EP" diff a.json b.json --markdown r.md \
	    --json r.json
	[ "$status" -eq 1 ]
	[ "$(jq .counts.fail r.json)" = 210 ]
	size=$(stat -c %s summary.md)
	echo "summary: $size bytes; --markdown: $(stat -c %s r.md)"
	[ "$size" -le 1048576 ]
	[ "$(stat -c %s r.md)" -gt 1048576 ]
	[ "$(head -c 100000 summary.md | tr -d x | wc -c)" = 0 ]
	tail -c +100001 summary.md > ours.md
	md_read ours.md
	# The counts before any row, and what was cut said.
	c=$(grep -nxF "| $(jq -r '[.counts | .total, .pass, .fail, .error, .warn,
	    .waived, .skip] | join(" | ")' r.json) |" ours.md | cut -d: -f1)
	d=$(grep -n '^| fail |' ours.md | head -1 | cut -d: -f1)
	[ "$c" -lt "$d" ]
	grep -qE '^\*… and [0-9]+ more, not shown here' ours.md
}

@test "a blank line before the report's heading: an HTML block an earlier step left open cannot take it in" {
	manifest a.json '{"python.pkg.x": "1"}'
	manifest b.json '{"python.pkg.x": "2"}'
	printf '<div>' > summary.md
	GITHUB_STEP_SUMMARY=$T/summary.md run "$EP" diff a.json b.json
	[ "$status" -eq 1 ]
	md_html summary.md > s.html
	cat s.html
	grep -qxF '<h2>envparity diff: DRIFT</h2>' s.html
	grep -q '<table>' s.html
}

@test "two keys that differ only in a control character and its picture stay two test cases" {
	manifest a.json '{"env.X\u0001": "1", "env.X\u2401": "2", "env.Y<U+200B>": "3", "env.Y\u200b": "4"}'
	manifest b.json '{"env.X\u0001": "1", "env.X\u2401": "2", "env.Y<U+200B>": "3", "env.Y\u200b": "4"}'
	run "$EP" diff a.json b.json --junit r.xml --json r.json
	[ "$status" -eq 0 ]
	need_reader python3-junitparser "$SYS_PYTHON" -c 'import junitparser'
	"$SYS_PYTHON" - r.xml > names <<-'EOF'
	import sys
	from junitparser import JUnitXml
	print("\n".join(c.name for s in JUnitXml.fromfile(sys.argv[1]) for c in s))
	EOF
	cat names
	[ "$(grep -c '^env\.' names)" = 4 ]
	[ "$(sort -u names | grep -c '^env\.')" = 4 ]
	grep -qxF 'env.X␁' names
	grep -qxF 'env.X<U+2401>' names
	junit_read r.xml r.json
}

@test "Markdown: a run with only errors is headed ERROR, and a check's failure says why" {
	manifest a.json '{"gpu.driver.version": "bogus", "lib.cudart.version": "13.0.96"}'
	run "$EP" diff a.json a.json --markdown r.md --json r.json
	[ "$status" -ne 0 ]
	[ "$(jq -r '.counts | "\(.fail) \(.error)"' r.json)" = "0 1" ]
	[ "$(head -1 r.md)" = "## envparity diff: ERROR" ]
	md_read r.md
	# A failure of a check: expected and actual alone say nothing.
	manifest b.json '{"gpu.driver.version": "500.1", "lib.cudart.version": "13.0.96"}'
	run "$EP" diff b.json b.json --markdown r.md
	[ "$status" -eq 1 ]
	[ "$(head -1 r.md)" = "## envparity diff: DRIFT" ]
	grep -F '| fail | <code>stack.driver\_min</code> |' r.md | grep -qF \
	    '| check:driver-min | driver 500.1 is older than 580, the minimum for CUDA 13.x (runtime 13.0.96) |'
	md_read r.md
}

@test "check names the host it ran on, in every report" {
	"$EP" bless -q --no-discover >/dev/null
	run "$EP" check --no-discover --junit r.xml --json r.json --markdown r.md
	[ "$status" -eq 0 ] || [ "$status" -eq 1 ]
	host=$(uname -n)
	[ "$(jq -r .current r.json)" = "this machine ($host)" ]
	[ "$(x 'string(//testsuite[1]//property[@name="current"]/@value)')" = "this machine ($host)" ]
	md_html r.md | grep -qF "<strong>Current:</strong> <code>this machine ($host)</code>"
	[[ "${lines[0]}" == *": this machine ($host) against "* ]]
}

@test "a hostile host name is cleaned like any value" {
	unshare --uts true 2>/dev/null || skip "no UTS namespace here"
	"$EP" bless -q --no-discover >/dev/null
	unshare --uts sh -c 'printf "h<b>|x::error::y" > /proc/sys/kernel/hostname &&
	    exec "$@"' sh \
	    "$EP" check --no-discover --json r.json --markdown r.md > out || true
	cat out
	[ "$(jq -r .current r.json)" = 'this machine (h<b>|x::error::y)' ]
	grep -qF '**Current:** <code>this machine (h&lt;b&gt;\|x::error::y)</code>' r.md
	md_read r.md
	! grep -q '^::' out || false
}
