#!/usr/bin/env python3
"""proc_mem.py: how many times each needle occurs in the memory of a
running process, read as root reads it (/proc/PID/maps, /proc/PID/mem):
what a process of the judged environment with that power would find.

    proc_mem.py PID NEEDLE...    one count per needle, one a line

A needle written hex:HEX is those bytes (a key's raw seed).

Every readable mapping is read but those over 1 GiB (a sanitizer's shadow
memory, reserved and never written, holds no copy of anything)."""
import re
import sys

LIMIT = 1 << 30


def main():
    pid = sys.argv[1]
    needles = [bytes.fromhex(n[4:]) if n.startswith("hex:") else n.encode()
               for n in sys.argv[2:]]
    counts = [0] * len(needles)
    with open("/proc/%s/maps" % pid) as maps, \
            open("/proc/%s/mem" % pid, "rb", 0) as mem:
        for line in maps:
            f = line.split()
            if f[1][0] != "r":
                continue
            lo, hi = (int(x, 16) for x in f[0].split("-"))
            if hi - lo > LIMIT:
                continue
            try:
                mem.seek(lo)
                data = mem.read(hi - lo)
            except (OSError, OverflowError, ValueError):
                continue  # [vvar] and the like
            for i, n in enumerate(needles):
                counts[i] += len(re.findall(re.escape(n), data))
    for c in counts:
        print(c)


if __name__ == "__main__":
    main()
