#!/usr/bin/env python3
"""tools/doc-links.py [ROOT]: check the links between README.md and docs/*.md.

Every relative link in README.md and docs/*.md must name a file that exists
in the tree, and a link with a #fragment into a Markdown file must name a
heading of that file, by the anchor GitHub gives it (lowercase, punctuation
but '-' and '_' dropped, blanks as '-', a repeated anchor numbered -1, -2,
...).  Links inside code (fences and `spans`) are not links.

Exit 0 when every link holds, 1 naming each that does not, 2 on usage.
"""
import os
import re
import sys

LINK = re.compile(r"\[(?:[^\]\[]|\[[^\]]*\])*\]\(([^)\s]+)\)")
HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")


def prose(text):
    """The lines of text outside code fences, code spans blanked."""
    out, fence = [], None
    for n, line in enumerate(text.split("\n"), 1):
        m = re.match(r"^\s*(`{3,}|~{3,})", line)
        if m:
            if fence is None:
                fence = m.group(1)[0]
            elif m.group(1)[0] == fence:
                fence = None
            continue
        if fence is None:
            out.append((n, line))
    return out


def slug(heading):
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading)   # a link's text
    text = text.replace("`", "").replace("*", "")
    text = text.strip().lower()
    text = "".join(c for c in text if c.isalnum() or c in " -_")
    return text.replace(" ", "-")


def anchors(path):
    seen, out = {}, set()
    with open(path, encoding="utf-8") as f:
        for _, line in prose(f.read()):
            m = HEADING.match(line)
            if not m:
                continue
            s = slug(m.group(2))
            k = seen.get(s, 0)
            seen[s] = k + 1
            out.add(s if k == 0 else "%s-%d" % (s, k))
    return out


def main():
    if len(sys.argv) > 2:
        sys.stderr.write("usage: tools/doc-links.py [ROOT]\n")
        return 2
    root = os.path.abspath(sys.argv[1] if len(sys.argv) == 2 else ".")
    docs = os.path.join(root, "docs")
    files = [os.path.join(root, "README.md")]
    if os.path.isdir(docs):
        files += sorted(os.path.join(docs, f) for f in os.listdir(docs)
                        if f.endswith(".md"))
    bad = links = 0
    cache = {}
    for src in files:
        with open(src, encoding="utf-8") as f:
            text = f.read()
        rel = os.path.relpath(src, root)
        for n, line in prose(text):
            line = re.sub(r"`[^`]*`", lambda m: " " * len(m.group(0)), line)
            for m in LINK.finditer(line):
                target = m.group(1)
                if re.match(r"^[a-z][a-z0-9+.-]*:", target):
                    continue                    # https:, mailto:
                links += 1
                path, _, frag = target.partition("#")
                dest = src if path == "" else os.path.normpath(
                    os.path.join(os.path.dirname(src), path))
                why = None
                if not dest.startswith(root + os.sep) and dest != root:
                    why = "leaves the tree"
                elif not os.path.exists(dest):
                    why = "no such file"
                elif frag and dest.endswith(".md"):
                    if dest not in cache:
                        cache[dest] = anchors(dest)
                    if frag not in cache[dest]:
                        why = "no heading #%s in %s" % (
                            frag, os.path.relpath(dest, root))
                if why:
                    bad += 1
                    print("%s:%d: %s: %s" % (rel, n, target, why))
    if bad == 0:
        print("%d links in %d files hold" % (links, len(files)))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
