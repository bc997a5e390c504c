# report_readers.bash: the real readers of envparity's reports, for the
# report*.bats files (load setup, then load report_readers):
#
#   junit_read XML JSON   both schemas (ours and the Jenkins xunit plugin's
#                         junit-10.xsd), junit2json and python3-junitparser
#                         (what publish-unit-test-result-action reads JUnit
#                         with), each with the JSON report's counts
#   md_read MD            cmark-gfm with GitHub's extensions: no link made,
#                         every table row with its header's cells
#
# The counts: JUnit's tests are every result, failures fail, errors error,
# and skipped skip + warn + waived (the three that never fail the run).
# A host that cannot have a reader (a GPU host with no package registry)
# sets EP_NO_VALIDATOR=1 to skip, by name, the tests that need it.

J2J=$REPO_ROOT/tools/node_modules/.bin/junit2json
# Debian's python3, which python3-junitparser is installed for (a pyenv
# shim on PATH may be another).
SYS_PYTHON=/usr/bin/python3
GFM="cmark-gfm --unsafe -e table -e autolink -e strikethrough -e tagfilter"

need_reader() { # what test-command...
	local what=$1
	shift
	"$@" >/dev/null 2>&1 && return 0
	[ "${EP_NO_VALIDATOR:-}" = 1 ] && skip "no $what on this host"
	echo "$what missing: run tools/deps.sh test" >&2
	return 1
}

# The JSON report's counts as JUnit counts them: tests failures errors
# skipped.
json_counts() { # json
	jq -r '"\(.counts.total) \(.counts.fail) \(.counts.error) \(.counts.skip + (.counts.warn // 0) + .counts.waived)"' "$1"
}

junit_read() { # xml json
	local want got
	xmllint --noout --schema "$REPO_ROOT/manifests/junit.xsd" "$1"
	xmllint --noout --schema "$REPO_ROOT/manifests/junit-jenkins-10.xsd" "$1"
	want=$(json_counts "$2")
	need_reader junit2json test -x "$J2J"
	got=$("$J2J" "$1" | jq -r '[.tests, .failures, .errors,
	    ([.testsuite[]?.skipped] | add // 0)] | map(tostring) | join(" ")')
	echo "junit2json: $got, json: $want"
	[ "$got" = "$want" ]
	need_reader python3-junitparser "$SYS_PYTHON" -c 'import junitparser'
	# The suites' attributes, and the cases' outcomes counted one by one.
	got=$("$SYS_PYTHON" - "$1" <<-'EOF'
	import sys
	from junitparser import JUnitXml, Failure, Error, Skipped
	xml = JUnitXml.fromfile(sys.argv[1])
	suites = list(xml) if xml._tag == "testsuites" else [xml]
	attrs = [sum(getattr(s, a) or 0 for s in suites)
	         for a in ("tests", "failures", "errors", "skipped")]
	cases = [c for s in suites for c in s]
	kinds = [[type(r) for r in c.result] for c in cases]
	outcomes = [len(cases), sum(Failure in k for k in kinds),
	            sum(Error in k for k in kinds),
	            sum(Skipped in k for k in kinds)]
	if attrs != outcomes:
	    sys.exit("suite attributes %s, outcomes %s" % (attrs, outcomes))
	print(" ".join(map(str, outcomes)))
	EOF
	)
	echo "junitparser: $got, json: $want"
	[ "$got" = "$want" ]
}

# Render a Markdown report as GitHub does (cmark-gfm with its
# extensions; raw HTML kept, as GitHub keeps it before its sanitizer).
md_html() { # md
	need_reader cmark-gfm command -v cmark-gfm
	$GFM "$1"
}

md_read() { # md
	need_reader cmark-gfm command -v cmark-gfm
	$GFM "$1" > "$1.html"
	"$SYS_PYTHON" - "$1" "$1.html" <<-'EOF'
	import re, sys
	from html.parser import HTMLParser
	md = open(sys.argv[1], encoding="utf-8").read()
	html = open(sys.argv[2], encoding="utf-8").read()

	class Tables(HTMLParser):
	    def __init__(self):
	        super().__init__()
	        self.tables, self.links = [], 0
	    def handle_starttag(self, tag, attrs):
	        if tag == "a":
	            self.links += 1
	        elif tag == "table":
	            self.tables.append([])
	        elif tag == "tr":
	            self.tables[-1].append(0)
	        elif tag in ("td", "th"):
	            self.tables[-1][-1] += 1
	p = Tables()
	p.feed(html)
	if p.links:
	    sys.exit("%d links in the rendered report" % p.links)
	# GFM pads a short row and drops what is past the header's cells:
	# count the cells of every table line of the Markdown itself too.
	raw = []
	for block in re.split(r"\n\s*\n", md):
	    lines = [l for l in block.split("\n") if l.startswith("|")]
	    if lines:
	        raw.append([len(re.split(r"(?<!\\)\|", l)) - 2 for l in lines])
	rendered = [[t[0]] + t[1:] for t in p.tables]
	raw = [[r[0]] + r[2:] for r in raw]	# less the delimiter row
	if raw != rendered:
	    sys.exit("cells per row: markdown %s, rendered %s" % (raw, rendered))
	for t in rendered:
	    if len(set(t)) != 1:
	        sys.exit("a row with other cells than its header: %s" % t)
	print("%d tables, %d rows, no link" % (len(rendered),
	      sum(len(t) for t in rendered)))
	EOF
}
