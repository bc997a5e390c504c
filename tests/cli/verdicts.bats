#!/usr/bin/env bats
# verdicts.bats: a gate is worth its verdict.  Policies that cannot
# silently pass (ranges of one clause each, waivers that name the value
# they accept, no waiver for every key), warnings that are seen and never
# fail, and stale or expiring waivers reported.  Run through diff (two
# manifests and a --policy file) and check, as a user would.

load setup

bats_require_minimum_version 1.5.0

unset GITHUB_ACTIONS GITHUB_STEP_SUMMARY CI GITLAB_CI

policy() { # json: the rules and waivers members
	printf '{"schema": "envparity/policy@1", %s}\n' "$1" > p.json
}

result() { # report key: "STATUS MESSAGE" of key
	jq -r --arg k "$2" '.results[] | select(.key == $k) | "\(.status) \(.message)"' "$1"
}

@test "a range with a clause that is not comma-separated stops the run: exit 2, naming rule, key and text" {
	manifest a.json '{"python.pkg.numpy": "1.26.4"}'
	manifest b.json '{"python.pkg.numpy": "2.0.0"}'
	for r in '>1.0 <2' '>=1.26;<2' '> 1.0 and < 2' '>=1.26 || <1'; do
		policy "\"rules\": [{\"key\": \"python.pkg.*\", \"rule\": \"version\", \"range\": \"$r\"}]"
		run "$EP" diff --policy p.json a.json b.json
		echo "$output"
		[ "$status" -eq 2 ]
		[ "${#lines[@]}" -eq 1 ]
		[[ "$output" == *"p.json: rules[0] (key \"python.pkg.*\"): range \"$r\": "*"is not one version"* ]]
	done
	# White space around comma-separated clauses is fine.
	policy '"rules": [{"key": "python.pkg.*", "rule": "version", "range": " >1.0 , <2 "}]'
	run "$EP" diff --policy p.json a.json b.json
	[ "$status" -eq 1 ]
	[[ "$output" == *"python.pkg.numpy: 2.0.0 not in >1.0 , <2"* ]]
}

@test "a waiver that names its value does not hide a node that went elsewhere" {
	manifest golden.json '{"python.pkg.numpy": "1.26.4"}'
	manifest rolled.json '{"python.pkg.numpy": "2.0.1"}'
	manifest regressed.json '{"python.pkg.numpy": "1.25.2"}'
	policy '"waivers": [{"key": "python.pkg.numpy", "reason": "numpy 2 rollout",
	  "owner": "ml-platform", "expires": "2099-12-31", "range": ">=2,<2.1"}]'
	run "$EP" diff --policy p.json golden.json rolled.json --json r1.json
	[ "$status" -eq 0 ]
	[ "$(result r1.json python.pkg.numpy | cut -d' ' -f1)" = waived ]
	run "$EP" diff --policy p.json golden.json regressed.json --json r2.json
	[ "$status" -eq 1 ]
	[ "$(result r2.json python.pkg.numpy)" = "fail python.pkg.numpy: expected 1.26.4, got 1.25.2; the waiver by ml-platform covers only range >=2,<2.1, not 1.25.2" ]
	policy '"waivers": [{"key": "python.pkg.numpy", "reason": "r", "owner": "o",
	  "expires": "2099-12-31", "actual": "2.0.1"}]'
	run "$EP" diff --policy p.json golden.json rolled.json
	[ "$status" -eq 0 ]
	run "$EP" diff --policy p.json golden.json regressed.json
	[ "$status" -eq 1 ]
}

@test "a waiver for every key is refused: an ignore rule says it visibly" {
	manifest a.json '{"python.pkg.numpy": "1.26.4"}'
	policy '"waivers": [{"key": "*", "reason": "r", "owner": "o", "expires": "2099-12-31"}]'
	run "$EP" diff --policy p.json a.json a.json
	[ "$status" -eq 2 ]
	[[ "$output" == *"p.json: waivers[0] (key \"*\"): a waiver for every key hides every finding"* ]]
}

@test "a rule of severity warn reports drift as warn, counted everywhere, never failing" {
	manifest a.json '{"python.pkg.numpy": "1.26.4", "python.pkg.torch": "2.3.1"}'
	manifest b.json '{"python.pkg.numpy": "2.0.0", "python.pkg.torch": "2.3.1", "python.pkg.rich": "13.0"}'
	policy '"rules": [{"key": "python.pkg.*", "rule": "exact", "severity": "warn"}]'
	GITHUB_ACTIONS=true run --separate-stderr "$EP" diff --policy p.json a.json b.json --json r.json --junit r.xml
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"envparity diff: PARITY"* ]]
	[[ "$output" == *"  warn    python.pkg.numpy: expected 1.26.4, got 2.0.0"* ]]
	[[ "$output" == *"  warn    python.pkg.rich: new here (13.0), not in the golden manifest"* ]]
	[[ "$output" == *" 0 fail, 2 warn,"* ]]
	jq -e '.counts.warn == 2 and .exit_status == 0' r.json
	[ "$(result r.json python.pkg.numpy | cut -d' ' -f1)" = warn ]
	grep -q '<skipped type="warn" message="warning: expected 1.26.4, got 2.0.0' r.xml ||
	    grep -q '<skipped type="warn" message="warning: python.pkg.numpy' r.xml || \
	    grep -q 'type="warn"' r.xml
	[[ "$stderr" == *"::warning title=envparity warning%3A python.pkg.numpy::"* ]]
}

@test "a waiver that waived nothing, and one about to expire, are warnings" {
	manifest a.json '{"python.pkg.numpy": "1.26.4", "python.pkg.torch": "2.3.1"}'
	manifest b.json '{"python.pkg.numpy": "1.26.4", "python.pkg.torch": "2.4.0"}'
	soon=$(date -u -d '+5 days' +%F)
	policy "\"waivers\": [
	  {\"key\": \"python.pkg.numpy\", \"reason\": \"numpy 2 rollout\", \"owner\": \"ml\", \"expires\": \"2099-12-31\"},
	  {\"key\": \"python.pkg.torch\", \"reason\": \"torch 2.4 trial\", \"owner\": \"research\", \"expires\": \"$soon\"}]"
	run "$EP" diff --policy p.json a.json b.json --json r.json
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(result r.json 'policy.waivers[0]')" = "warn policy.waivers[0]: the waiver for python.pkg.numpy (ml, until 2099-12-31) waived nothing in this run: the drift it was for is gone, or it never matched; remove it" ]
	[ "$(result r.json 'policy.waivers[1]')" = "warn policy.waivers[1]: the waiver for python.pkg.torch (research) expires on $soon, in 5 days" ]
	[ "$(result r.json python.pkg.torch | cut -d' ' -f1)" = waived ]
	# --expiry-warning moves the window.
	run "$EP" diff --policy p.json --expiry-warning 3 a.json b.json --json r2.json
	[ "$status" -eq 0 ]
	[ -z "$(result r2.json 'policy.waivers[1]')" ]
	run "$EP" diff --policy p.json --expiry-warning soon a.json b.json
	[ "$status" -eq 2 ]
	[[ "$output" == *"--expiry-warning soon: not a number of days from 0 to 3650"* ]]
}

@test "what capture had to skip is shown next to the failure it causes" {
	mkdir site
	mkdir site/numpy-1.26.4.egg-info
	printf 'Metadata-Version: 2.1\nName: numpy\nVersion: 1.26.4\n' > site/numpy-1.26.4.egg-info/PKG-INFO
	"$EP" capture -q --no-discover --site-packages site -o golden.json
	# The PKG-INFO loses its Version (an egg-info's name is no proof of
	# one, unlike a dist-info's): the package is "missing here".
	printf 'Metadata-Version: 2.1\nName: numpy\n' > site/numpy-1.26.4.egg-info/PKG-INFO
	"$EP" capture -q --no-discover --site-packages site -o now.json
	run "$EP" diff golden.json now.json --json r.json --markdown r.md
	echo "$output"
	[ "$status" -eq 1 ]
	[[ "$output" == *"FAIL    python.pkg.numpy: expected 1.26.4, missing here"* ]]
	[[ "$output" == *"warn    capture.warning[0]: "*"numpy-1.26.4.egg-info/PKG-INFO: no Version field (distribution skipped)"* ]]
	jq -e '[.results[] | select(.key == "capture.warning[0]" and .status == "warn")] | length == 1' r.json
	grep -q 'capture.warning' r.md
}

@test "cuDNN built for a newer CUDA minor than the runtime is a warning: the first ./run is parity" {
	[ -e /usr/local/cuda/lib64/libcudnn.so.9 ] || skip "no CUDA libraries here"
	"$EP" bless -q --no-discover > /dev/null
	run "$EP" check --no-discover --json r.json
	echo "$output"
	# Where python3's own site-packages fail pip check (a system Python
	# with Debian's python3-gi and no python3-cairo, say), stack.requires
	# fails as pip check would: not parity, and not this test's point.
	if [ "$status" -eq 1 ] && jq -e '[.results[] | select(.status ==
	    "fail")] | all(.key | startswith("stack.requires."))' r.json \
	    > /dev/null; then
		skip "python3's site-packages fail pip check here: $(jq -r \
		    '[.results[] | select(.status == "fail") | .key] | join(", ")' r.json)"
	fi
	[ "$status" -eq 0 ]
	[[ "$output" == *"PARITY"* ]]
	if jq -e '.results[] | select(.key == "stack.cudart_minor.cudnn")' r.json > /dev/null; then
		[ "$(result r.json stack.cudart_minor.cudnn | cut -d' ' -f1)" = warn ]
	fi
}

@test "bless refuses a manifest that fails its own checks, naming each, unless --accept-failing; a waiver or the GPUs' health now does not count" {
	git init -q --bare -b main s.git
	# A CUDA 13 runtime on a CUDA 12.8 driver, and cuDNN sub-libraries
	# of two releases.
	manifest bad.json '{"lib.cudnn.version": "9.19.0",
	    "lib.cudnn_ops.version": "9.10.2", "lib.cudart.version": "13.0.96",
	    "gpu.cuda_driver.version": "12.8", "gpu.driver.version": "580.65.06"}'
	run --separate-stderr "$EP" bless --store s.git bad.json
	[ "$status" -eq 1 ]
	[ -z "$output" ]
	[[ "$stderr" == *"FAIL stack.cuda_driver: CUDA runtime 13.0.96 is a newer major release than the driver supports (CUDA 12.8)"* ]]
	[[ "$stderr" == *"FAIL stack.cudnn_sublibs: cuDNN sub-libraries disagree with cuDNN 9.19.0: cudnn_ops 9.10.2"* ]]
	[[ "$stderr" == *"not blessed: the manifest fails 2 of its own checks"*"--accept-failing" ]]
	run git -C s.git rev-parse -q --verify main
	[ "$status" -ne 0 ]
	# The default store is not created for a refused bless.
	run "$EP" bless bad.json
	[ "$status" -eq 1 ]
	[ ! -e .envparity ]
	# --accept-failing: blessed, each failure still named.
	run --separate-stderr "$EP" bless --accept-failing --store s.git bad.json
	[ "$status" -eq 0 ]
	[[ "$output" == "blessed default at "* ]]
	[[ "$stderr" == *"FAIL stack.cudnn_sublibs"*"blessed with 2 failing checks of its own (--accept-failing)"* ]]
	# The profile's policy applies: a waived check does not count.
	git clone -q s.git wt 2>/dev/null
	printf '%s\n' '{"schema": "envparity/policy@1", "waivers": [
	    {"key": "stack.cuda_driver", "reason": "r", "owner": "o", "expires": "2099-12-31"},
	    {"key": "stack.cudnn_sublibs", "reason": "r", "owner": "o", "expires": "2099-12-31"}]}' \
	    > wt/default/policy.json
	git -C wt add default/policy.json
	git -C wt -c user.name=t -c user.email=t@x commit -qm waive
	git -C wt push -q origin HEAD:main
	run --separate-stderr "$EP" bless --store s.git bad.json
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	# The GPUs' health at the moment of the capture is no property of a
	# golden: a page pending retirement does not refuse the bless.
	manifest gpu.json '{"gpu.count": "1", "gpu.0.name": "NVIDIA H100"}' \
	    '{"gpu": {"0": {"retired_pages_pending": "yes"}}}'
	run "$EP" diff gpu.json gpu.json --json r.json
	jq -e '.results[] | select(.key == "stack.gpu.0.retired_pages" and .status == "fail")' r.json
	run --separate-stderr "$EP" bless --store s.git --profile gpu gpu.json
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
}

@test "a fact a built-in rule ignores that changed (os.kernel) is listed in the JSON report's ignored_changes and one summary line, never judged" {
	manifest g.json '{"os.kernel": "6.18.0", "a": "1"}'
	manifest c.json '{"os.kernel": "6.1.0", "a": "1"}'
	run "$EP" diff g.json c.json --json r.json
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"PARITY"* ]]
	[[ "$output" == *"  ignored 1 change a built-in rule does not judge: os.kernel 6.18.0 -> 6.1.0 (the JSON report lists it)"* ]]
	[ "$(jq -c '.ignored_changes' r.json)" = '[{"actual":"6.1.0","expected":"6.18.0","key":"os.kernel","reason":"host identity: a container runs on its node'"'"'s kernel"}]' ]
	jq -e '[.results[] | select(.key == "os.kernel")] | length == 0' r.json
	# The same kernel: nothing listed, no line; -q keeps its two lines.
	run "$EP" diff g.json g.json --json r.json
	[[ "$output" != *"ignored"* ]]
	[ "$(jq -c '.ignored_changes' r.json)" = '[]' ]
	run "$EP" diff -q g.json c.json
	[[ "$output" != *"ignored"* ]]
}

@test "a golden blessed by an older envparity: a fact a newer release began to capture is a note, 'fact new since envparity X.Y', not drift" {
	manifest g.json '{"gpu.0.name": "NVIDIA H100", "python.pkg.x": "1"}' \
	    '{"tool": "envparity 0.2.0"}'
	manifest c.json '{"gpu.0.name": "NVIDIA H100", "python.pkg.x": "1",
	    "gpu.0.compute_mode": "default", "gpu.0.power_limit_mw": "700000"}'
	run "$EP" diff g.json c.json --json r.json
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"PARITY"* ]]
	[[ "$output" == *"skip    2 gpu facts: fact new since envparity 0.3 (the golden was blessed by envparity 0.2.0): not judged until the profile is blessed again"* ]]
	[ "$(jq -r '.results[] | select(.key == "gpu.0.compute_mode") | .status' r.json)" = skip ]
	# The same facts against a golden of this release are drift, as any
	# fact new here; so is a fact any release captured.
	manifest g3.json '{"gpu.0.name": "NVIDIA H100", "python.pkg.x": "1"}' \
	    '{"tool": "envparity 0.3.0"}'
	run "$EP" diff g3.json c.json
	[ "$status" -eq 1 ]
	[[ "$output" == *"FAIL    gpu.0.compute_mode: new here (default), not in the golden manifest"* ]]
	jq '.facts["python.pkg.y"] = "2"' c.json > c2.json
	run "$EP" diff g.json c2.json
	[ "$status" -eq 1 ]
	[[ "$output" == *"FAIL    python.pkg.y: new here (2)"* ]]
}
