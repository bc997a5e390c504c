#!/usr/bin/env bats
# docs.bats: the README and docs/ hold together.  Every relative link
# between them names a file of the tree and, into a Markdown file, one of
# its headings (tools/doc-links.py, by the anchors GitHub makes), and each
# docs/ file opens with its title and a link back to the README.

load setup

@test "every link of the README and docs/ names a file and a heading that exist" {
	run python3 "$REPO_ROOT/tools/doc-links.py" "$REPO_ROOT"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *" links in "*" files hold" ]]
	for f in "$REPO_ROOT"/docs/*.md; do
		head -1 "$f" | grep -q '^# ' || { echo "$f: no title"; false; }
		sed -n 3p "$f" | grep -qF '[Back to the README](../README.md)' ||
		    { echo "$f: no link back to the README"; false; }
	done
}

@test "the link check bites: a missing file, a missing heading, a link out of the tree" {
	# The tree, with README.md and docs/ copies to break.
	mkdir r
	for f in "$REPO_ROOT"/*; do
		case ${f##*/} in README.md|docs) ;; *) ln -s "$f" "r/${f##*/}" ;; esac
	done
	mkdir r/docs
	cp "$REPO_ROOT/README.md" r/
	cp "$REPO_ROOT"/docs/*.md r/docs/
	run python3 "$REPO_ROOT/tools/doc-links.py" r
	echo "$output"
	[ "$status" -eq 0 ]
	sed -i 's#(docs/fleet.md)#(docs/fleat.md)#' r/README.md
	sed -i 's#(checking.md\#credentials)#(checking.md\#credentails)#' r/docs/commands.md
	printf '\nSee [x](../../etc/passwd) and `[not a link](nowhere.md)`.\n' >>r/docs/ci.md
	run python3 "$REPO_ROOT/tools/doc-links.py" r
	echo "$output"
	[ "$status" -eq 1 ]
	[[ "$output" == *"README.md:"*": docs/fleat.md: no such file"* ]]
	[[ "$output" == *"docs/commands.md:"*": checking.md#credentails: no heading #credentails in docs/checking.md"* ]]
	[[ "$output" == *"docs/ci.md:"*": ../../etc/passwd: leaves the tree"* ]]
	[[ "$output" != *nowhere.md* ]]
}
