#!/usr/bin/env bats
# report.bats: the JUnit XML, JSON and Markdown reports of diff and check,
# checked with real readers (report_readers.bash: xmllint against our
# junit.xsd and Jenkins xunit's junit-10.xsd, junit2json,
# python3-junitparser, cmark-gfm; ajv); GitHub Actions' step summary and
# annotations; and how reports are written: whole or not at all, whatever
# the facts held.  report_consumers.bats has what each consumer shows.

load setup
load report_readers

# Were these tests run by GitHub Actions, the runner's own variables would
# send our summaries and annotations into that job.
unset GITHUB_ACTIONS GITHUB_STEP_SUMMARY

# A golden and a current manifest with one result of each kind: numpy
# drifted (fail), lib.x is waived, python.pkg.old's waiver has expired
# (fail), the GPU could not be looked at (skip), the driver version is
# no version (error: the check could not run), torch matches (pass); the
# kernel, which a built-in rule ignores, changed (listed, not a result).
scenario() {
	manifest a.json '{"python.pkg.numpy": "1.26.4", "python.pkg.torch": "2.3.1", "os.kernel": "6.18.0",
	  "python.pkg.old": "1", "lib.x.version": "1", "gpu.0.name": "NVIDIA H100",
	  "gpu.driver.version": "bogus", "lib.cudart.version": "13.0.96"}'
	manifest b.json '{"python.pkg.numpy": "2.0.0", "python.pkg.torch": "2.3.1", "os.kernel": "6.1.0",
	  "python.pkg.old": "2", "lib.x.version": "2",
	  "gpu.driver.version": "bogus", "lib.cudart.version": "13.0.96"}' \
	  '{"unavailable": {"gpu": "no GPU on this runner"}}'
	cat > policy.json <<-'EOF'
	{"schema": "envparity/policy@1", "rules": [], "waivers": [
	  {"key": "lib.x.version", "reason": "rebuilt, same code",
	   "owner": "ml-platform", "expires": "2099-12-31"},
	  {"key": "python.pkg.old", "reason": "was fine once",
	   "owner": "someone", "expires": "2020-01-31"}]}
	EOF
}

# Cells of each Markdown table row that starts with prefix: pipes that no
# backslash escapes, less one; one number per row.
md_cells() { # file prefix
	grep -F -- "$2" "$1" | sed 's/\\|//g' | awk -F'|' '{ print NF - 2 }'
}

@test "diff with all three reports: each valid, each with the same counts" {
	scenario
	run "$EP" diff --policy policy.json a.json b.json \
	    --junit r.xml --json r.json --markdown r.md
	echo "$output"
	[ "$status" -eq 1 ]
	validate_schema report r.json
	jq -e '.ignored_changes == [{"key": "os.kernel", "expected": "6.18.0", "actual": "6.1.0", "reason": "host identity: a container runs on its node'"'"'s kernel"}]' r.json
	junit_read r.xml r.json
	md_read r.md
	[ "$(jq -c '[.counts.fail, .counts.waived, .counts.error]' r.json)" = "[2,1,1]" ]
	x() { xmllint --xpath "$1" r.xml; }
	[ "$(x 'string(//testcase[@name="python.pkg.numpy"]/failure/@message)')" = \
	    "expected 1.26.4, got 2.0.0 (rule exact)" ]
	[ "$(x 'string(//testcase[@name="python.pkg.numpy"]/@classname)')" = envparity.python ]
	[ "$(x 'string(//testcase[@name="gpu.0.name"]/skipped/@message)')" = \
	    "not checked here: no GPU on this runner" ]
	[ "$(x 'count(//testcase[@name="stack.driver_min"]/error)')" = 1 ]
	# Waived: an expected failure, as pytest writes one, saying whose
	# waiver until when.
	[ "$(x 'count(//testcase[@name="lib.x.version"]/failure)')" = 0 ]
	[ "$(x 'string(//testcase[@name="lib.x.version"]/skipped/@type)')" = waived ]
	[ "$(x 'string(//testcase[@name="lib.x.version"]/skipped/@message)')" = \
	    "waived by ml-platform until 2099-12-31: rebuilt, same code" ]
	# The expired waiver is shown on the failure.
	[[ "$(x 'string(//testcase[@name="python.pkg.old"]/failure)')" == *"waiver:   owner someone, expires 2020-01-31, reason: was fine once"* ]]
	# Every suite has every attribute readers require.
	[ "$(x 'count(//testsuite[not(@name and @tests and @failures and @errors and @skipped and @time and @timestamp)])')" = 0 ]
	[ "$(x 'string(//testsuite[1]//property[@name="golden"]/@value)')" = a.json ]
	# Markdown: the verdict, the counts, then drift, waived, skipped.
	[ "$(head -1 r.md)" = "## envparity diff: DRIFT" ]
	c=$(grep -n '^| Total |' r.md | cut -d: -f1)
	d=$(grep -n '^### Drift' r.md | cut -d: -f1)
	w=$(grep -n '^### Waived' r.md | cut -d: -f1)
	s=$(grep -n '^<details><summary>Skipped' r.md | cut -d: -f1)
	[ "$c" -lt "$d" ] && [ "$d" -lt "$w" ] && [ "$w" -lt "$s" ]
	grep -qxF "| $(jq -r '[.counts | .total, .pass, .fail, .error, .warn,
	    .waived, .skip] | join(" | ")' r.json) |" r.md
	grep -qF '| fail | <code>python.pkg.numpy</code> | <code>1.26.4</code> | <code>2.0.0</code> | exact |' r.md
	grep -qF '| <code>lib.x.version</code> | <code>1</code> | <code>2</code> | 2099-12-31 | ml-platform | rebuilt, same code |' r.md
	grep -qF 'waiver by someone expired on 2020-01-31' r.md
}

@test "check with all three reports at once" {
	"$EP" bless -q --no-discover >/dev/null
	run "$EP" check --no-discover --junit r.xml --json r.json --markdown r.md
	echo "$output"
	[ "$status" -eq 0 ] || [ "$status" -eq 1 ]
	[ "$(jq -r .exit_status r.json)" = "$status" ]
	[ "$(jq -r .command r.json)" = check ]
	validate_schema report r.json
	junit_read r.xml r.json
	md_read r.md
	[[ "$(xmllint --xpath 'string(//testsuite[1]//property[@name="golden.commit"]/@value)' r.xml)" =~ ^[0-9a-f]{40}$ ]]
	head -1 r.md | grep -qE '^## envparity check: (PARITY|DRIFT)$'
	# A long value may break (a <wbr> in every 32 characters).
	grep -qE 'profile <code>default</code>, commit <code>[0-9a-f]{32}<wbr>[0-9a-f]{8}</code>' r.md
}

@test "hostile facts: valid XML, valid JSON, one Markdown row per result" {
	# Markup, a CDATA end, quotes, pipes, newlines, backticks, control
	# characters and ANSI escapes, in values and in keys.
	evil='"]]> <b>&amp; \"q\" '"'"'s | a\nb `x` \u0001 \u001b[31mred\u001b[0m \u007f \\ end"'
	manifest a.json "{\"python.pkg.evil\": $evil, \"python.pkg.k\u001b[1m|<i>&\": \"1\",
	  \"python.pkg.numpy\": \"1.26.4\"}"
	manifest b.json "{\"python.pkg.evil\": \"2 ]]> \u0002 <script>alert(1)</script> | x\r\ny\",
	  \"python.pkg.k\u001b[1m|<i>&\": \"2\", \"python.pkg.numpy\": \"1.26.4\"}"
	run "$EP" diff a.json b.json --junit r.xml --json r.json --markdown r.md
	[ "$status" -eq 1 ]
	validate_schema report r.json
	junit_read r.xml r.json
	md_read r.md
	# The JSON report keeps the exact value (escaped by JSON itself).
	[ "$(jq -r '.results[] | select(.key == "python.pkg.evil") | .expected' r.json)" = \
	    "$(jq -r '.facts["python.pkg.evil"]' a.json)" ]
	# No raw control character anywhere: not in reports, not on the
	# terminal.  JSON keeps the exact value: C0 controls escaped (\u0001)
	# as JSON requires, DEL as itself, which JSON allows.
	! grep -qP '[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]' r.xml r.md || false
	! grep -qP '[\x00-\x1f]' r.json || false
	grep -qF '\u0001' r.json
	! printf '%s' "$output" | grep -qP '[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]' || false
	# XML: the text survived as text, controls as visible pictures.
	[ "$(xmllint --xpath 'string(//testcase[@name="python.pkg.evil"]/failure/@message)' r.xml)" = \
	    "$(printf 'expected ]]> <b>&amp; "q" '"'"'s | a\nb `x` \xe2\x90\x81 \xe2\x90\x9b[31mred\xe2\x90\x9b[0m \xe2\x90\xa1 \\ end, got 2 ]]> \xe2\x90\x82 <script>alert(1)</script> | x\r\ny (rule exact)')" ]
	[ "$(xmllint --xpath 'string(//testcase[starts-with(@name, "python.pkg.k")]/@name)' r.xml)" = \
	    "$(printf 'python.pkg.k\xe2\x90\x9b[1m|<i>&')" ]
	# Markdown: two failures, two rows, each one line of six cells,
	# nothing live.
	[ "$(grep -c '^| fail |' r.md)" = 2 ]
	[ "$(md_cells r.md '| fail |' | sort -u)" = 6 ]
	! grep -q '<script' r.md || false
	! grep -q '<b>' r.md || false
	! grep -q '<i>' r.md || false
}

@test "stdout is the same with and without reports, and under GitHub Actions" {
	scenario
	"$EP" diff --policy policy.json a.json b.json > plain.out && false || true
	"$EP" diff --policy policy.json a.json b.json --junit r.xml \
	    --json r.json --markdown r.md > reports.out && false || true
	GITHUB_ACTIONS=true GITHUB_STEP_SUMMARY=$T/summary.md \
	    "$EP" diff --policy policy.json a.json b.json --junit r.xml \
	    > gha.out 2> gha.err && false || true
	cmp plain.out reports.out
	cmp plain.out gha.out
	grep -q '^::error ' gha.err
	! grep -q '::' plain.out || false
}

@test "GitHub Actions: the step summary is appended, annotations go to stderr" {
	scenario
	printf '# an earlier step\n\nits summary\n' > summary.md
	GITHUB_ACTIONS=true GITHUB_STEP_SUMMARY=$T/summary.md \
	    "$EP" diff --policy policy.json a.json b.json --markdown r.md \
	    > out 2> err || status=$?
	[ "${status:-0}" -eq 1 ]
	cat err
	# Earlier content kept; ours follows after a blank line.
	[ "$(head -3 summary.md)" = "$(printf '# an earlier step\n\nits summary')" ]
	[ "$(sed -n 4,5p summary.md)" = "$(printf '\n## envparity diff: DRIFT')" ]
	# The --markdown file is written too, and is the same text.
	[ "$(tail -n +5 summary.md)" = "$(cat r.md)" ]
	# Workflow commands: fails and errors as ::error, the waiver as a
	# ::notice, on stderr, never on stdout.
	[ "$(grep -c '^::error ' err)" = 3 ]
	grep -qxF '::error title=envparity drift%3A python.pkg.numpy::python.pkg.numpy: expected 1.26.4, got 2.0.0 (rule exact)' err
	grep -q '^::error title=envparity could not check%3A stack.driver_min::' err
	grep -q '^::notice title=envparity waived%3A lib.x.version::' err
	! grep -q '::' out || false
	# Without GITHUB_ACTIONS: a summary, no commands.
	GITHUB_STEP_SUMMARY=$T/s2.md "$EP" diff --policy policy.json a.json \
	    b.json > out2 2> err2 || true
	grep -q '^## envparity diff: DRIFT' s2.md
	! grep -q '::' err2 || false
}

@test "annotations escape what the runner would read as a new command" {
	manifest a.json '{"python.pkg.x": "1"}'
	manifest b.json '{"python.pkg.x": "2%0A\n::warning::injected\r\n100%"}'
	GITHUB_ACTIONS=true "$EP" diff a.json b.json > out 2> err || true
	cat err
	[ "$(grep -c '' err)" = 1 ]
	grep -qF '2%250A%0A::warning::injected%0D%0A100%25 (rule exact)' err
}

# What is in the test's directory, but for setup's own.
left() {
	ls -A | grep -vxE 'cache|home' | sort | tr '\n' ' '
}

# A full disk, honestly: RLIMIT_FSIZE makes writes fail past the limit
# (EFBIG once SIGXFSZ is ignored), as ENOSPC would.
small_disk() { # blocks command...
	local n=$1
	shift
	bash -c 'trap "" XFSZ; ulimit -f "$0"; exec "$@"' "$n" "$@"
}

big_scenario() {
	jq -n '[range(300) | {key: "python.pkg.p\(.)", value: "1.0.\(.)"}] | from_entries' > fa
	jq -n '[range(300) | {key: "python.pkg.p\(.)", value: "2.0.\(.)"}] | from_entries' > fb
	manifest a.json "$(cat fa)"
	manifest b.json "$(cat fb)"
	rm fa fb
}

@test "a full disk: exit 3, one line naming the report, no partial or temporary file" {
	big_scenario
	printf 'old report\n' > r.xml
	run small_disk 8 "$EP" diff a.json b.json --junit r.xml
	echo "$output"
	[ "$status" -eq 3 ]
	[ "${#lines[@]}" -eq 1 ]
	[[ "${lines[0]}" == *"r.xml: cannot write: File too large"* ]]
	# The old report is untouched, and nothing else was left.
	[ "$(cat r.xml)" = "old report" ]
	[ "$(left)" = "a.json b.json r.xml " ]
	# Several reports: the JSON one (about 80 kB, written first) fits
	# and is whole; the JUnit one (about 95 kB) does not and is untouched.
	run small_disk 86 "$EP" diff a.json b.json --json r.json --junit r.xml
	[ "$status" -eq 3 ]
	[[ "$output" == *"r.xml: cannot write"* ]]
	[ "$(cat r.xml)" = "old report" ]
	validate_schema report r.json
	[ "$(left)" = "a.json b.json r.json r.xml " ]
}

@test "a full disk under the step summary: cut back to what it held" {
	big_scenario
	head -c 6000 /dev/zero | tr '\0' x > summary.md
	GITHUB_STEP_SUMMARY=$T/summary.md run small_disk 8 "$EP" diff a.json b.json
	echo "$output"
	[ "$status" -eq 3 ]
	[[ "$output" == *"summary.md: cannot write"* ]]
	[ "$(stat -c %s summary.md)" = 6000 ]
}

@test "report paths that cannot hold a report: no report, no damage" {
	manifest a.json '{"python.pkg.x": "1"}'
	manifest b.json '{"python.pkg.x": "2"}'
	# Renaming over /dev/full (root may) would replace the device.
	run "$EP" diff a.json b.json --junit /dev/full
	[ "$status" -eq 2 ]
	[[ "$output" == *"/dev/full: refused: a character device, not a regular file"* ]]
	[ -c /dev/full ]
	mkdir adir
	run "$EP" diff a.json b.json --json adir
	[ "$status" -eq 2 ]
	[[ "$output" == *"adir: refused: a directory, not a regular file"* ]]
	run "$EP" diff a.json b.json --markdown nodir/r.md
	[ "$status" -eq 3 ]
	[[ "$output" == *"nodir/r.md: cannot write"* ]]
	touch afile
	run "$EP" diff a.json b.json --junit afile/r.xml
	[ "$status" -eq 3 ]
	[[ "$output" == *"afile/r.xml: cannot write"* ]]
	run "$EP" diff a.json b.json --json same --junit same
	[ "$status" -eq 2 ]
	[[ "$output" == *"same: given for --json and --junit"* ]]
	[ "$(left)" = "a.json adir afile b.json " ]
	[ -z "$(ls -A adir)" ]
}

@test "a report path that is a symbolic link is refused: neither link nor target is touched" {
	manifest a.json '{"python.pkg.x": "1"}'
	manifest b.json '{"python.pkg.x": "2"}'
	mkdir out
	echo old > out/real.xml
	ln -s out/real.xml link.xml
	run "$EP" diff a.json b.json --junit link.xml
	[ "$status" -eq 2 ]
	[[ "$output" == *"link.xml: refused: a symbolic link"* ]]
	[ -L link.xml ]
	[ "$(cat out/real.xml)" = old ]
}

@test "the help lists the report options" {
	run "$EP" diff --help
	[[ "$output" == *"--junit FILE"* ]]
	[[ "$output" == *"--markdown FILE"* ]]
	[[ "$output" == *"GITHUB_STEP_SUMMARY"* ]]
}
