#!/usr/bin/env python3
"""bench/gen-poetry-lock.py EXPECT DIR: from the facts
gen-site-packages.sh --expect wrote ("python.pkg.<name> <version>" a
line), a poetry project in DIR (pyproject.toml, poetry.lock as poetry 1.3
writes its lock-version 2.0) that pins every distribution but a few: one
in a hundred at another version, one in a hundred left out (installed
and not pinned), and ten pinned that are not installed.  Its content-hash
is not poetry's (poetry warns, and installs from the lock as asked)."""
import sys

pkgs = []
for line in open(sys.argv[1]):
    key, version = line.split()
    pkgs.append((key[len("python.pkg."):], version))
lock, deps = [], []
pins = [(n, v + ".post1" if i % 100 == 3 else v)
        for i, (n, v) in enumerate(pkgs) if i % 100 != 7]
pins += [("absent-%d" % i, "1.0") for i in range(10)]
for name, version in pins:
    lock.append('[[package]]\nname = "%s"\nversion = "%s"\ndescription = ""\n'
                'category = "main"\noptional = false\npython-versions = "*"\n'
                'files = []\n' % (name, version))
    deps.append('%s = "%s"' % (name, version))
with open(sys.argv[2] + "/poetry.lock", "w") as f:
    f.write("\n".join(lock) + '\n[metadata]\nlock-version = "2.0"\n'
            'python-versions = "^3.8"\ncontent-hash = "0"\n')
with open(sys.argv[2] + "/pyproject.toml", "w") as f:
    f.write('[tool.poetry]\nname = "bench"\nversion = "0.1.0"\n'
            'description = ""\nauthors = ["bench <bench@example.org>"]\n'
            '[tool.poetry.dependencies]\npython = "^3.8"\n' +
            "\n".join(deps) + "\n")
