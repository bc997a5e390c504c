#!/usr/bin/env bats
# docs.bats: the README and docs/ hold together.  Every relative link
# between them names a file of the tree and, into a Markdown file, one of
# its headings (tools/doc-links.py, by the anchors GitHub makes), and each
# docs/ file opens with its title and a link back to the README; no
# Markdown file outside the tree is named; the README's contents list
# every document, and its quick start runs in order.

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

# The README and docs/ point at no Markdown file outside the repository
# (notes kept beside it are not the reader's): a path to a .md file
# exists in the tree, from the root or from the document's folder, or is
# another project's file with its repository named just before it
# (tensorflow/docs `site/en/install/source.md`), or a file envparity
# writes at run time (.envparity/report.md).
@test "the README and docs/ point at no Markdown file outside the repository" {
	run python3 - "$REPO_ROOT" <<-'PY'
	import os, re, sys
	root = os.path.realpath(sys.argv[1])
	docs = ["README.md"] + ["docs/" + f for f in sorted(os.listdir(root + "/docs")) if f.endswith(".md")]
	path = re.compile(r"(?<![\w.:/-])((?:\.\./)*[A-Za-z0-9_.-]+(?:/[A-Za-z0-9_.-]+)+\.md)(?![\w/-])")
	owner = re.compile(r"[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+[` ]+`?$")
	seen = bad = 0
	for d in docs:
	    for n, line in enumerate(open(os.path.join(root, d)), 1):
	        for m in path.finditer(line):
	            p, seen = m.group(1), seen + 1
	            if p.startswith(".envparity/") or owner.search(line[:m.start()]):
	                continue
	            for base in (root, os.path.join(root, os.path.dirname(d))):
	                full = os.path.realpath(os.path.join(base, p))
	                if os.path.isfile(full) and full.startswith(root + "/"):
	                    break
	            else:
	                print(f"{d}:{n}: {p}: not a file of the repository")
	                bad += 1
	print(f"{seen} paths")
	sys.exit(1 if bad or seen < 5 else 0)
	PY
	echo "$output"
	[ "$status" -eq 0 ]
}

# The README's contents list names every document of docs/.
@test "the README's contents list links every docs/*.md" {
	awk '/^## Contents/ { on = 1; next } /^## / { on = 0 } on' "$REPO_ROOT/README.md" >contents
	[ -s contents ]
	n=0
	for f in "$REPO_ROOT"/docs/*.md; do
		n=$((n + 1))
		grep -qF "(docs/${f##*/})" contents || { echo "contents: no docs/${f##*/}"; false; }
	done
	[ "$n" -ge 10 ]
}

# The quick start's commands follow from one another: run in order in an
# empty folder (the install line aside), each succeeds with what the
# lines before it made, and the check finds this machine the one blessed.
@test "the README's quick start runs in order: capture, bless what it wrote, check, log" {
	sed -n '/^## Quick start/,/^## /p' "$REPO_ROOT/README.md" |
	    sed -n '/^```sh$/,/^```$/p' | grep '^envparity ' | sed 's/ *#.*$//' >steps
	cat steps
	[ "$(wc -l <steps)" -ge 4 ]
	grep -q '^envparity capture -o this.json' steps
	grep -q '^envparity bless this.json' steps
	mkdir bin && ln -s "$EP" bin/envparity
	i=0
	while IFS= read -r step; do
		i=$((i + 1))
		PATH=$PWD/bin:$PATH bash -c "$step" >"out.$i" 2>&1 ||
		    { echo "step $i failed: $step"; cat "out.$i"; false; }
	done <steps
	# check found parity with the golden bless committed from this.json,
	# and wrote its report.
	grep -q "PARITY" out.3
	[ -f report.xml ]
	grep -q "reference host" out.4
}
