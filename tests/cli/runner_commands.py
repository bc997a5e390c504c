#!/usr/bin/env python3
"""runner_commands.py FILE...: print every line of FILE that GitHub's
runner would read as a workflow command, and exit 1 if there is one.

The runner (actions/runner, src/Runner.Common/ActionCommand.cs) reads a
line as a command when, after TrimStart(), it starts with "::" (TryParseV2)
or when it holds "##[" anywhere (TryParse, the legacy syntax).  It splits
lines as .NET's ReadLine does (LF, CR, CR LF), and it matches with ICU,
which ignores default-ignorable characters: they are dropped here first,
so "#<ZWSP>#[" counts as "##[".
"""
import re
import sys
import unicodedata


def ignorable(c):
    o = ord(c)
    return (unicodedata.category(c) == "Cf" or o == 0x034F or
            0x115F <= o <= 0x1160 or 0x17B4 <= o <= 0x17B5 or
            0x180B <= o <= 0x180F or o == 0x3164 or
            0xFE00 <= o <= 0xFE0F or o == 0xFFA0 or
            0xE0000 <= o <= 0xE0FFF)


def commands(text):
    for line in re.split(r"\r\n|\r|\n", text):
        seen = "".join(c for c in line if not ignorable(c))
        if seen.lstrip().startswith("::") or "##[" in seen:
            yield line


bad = 0
for path in sys.argv[1:]:
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in commands(f.read()):
            print(f"{path}: a workflow command: {line!r}")
            bad = 1
sys.exit(bad)
