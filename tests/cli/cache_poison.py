#!/usr/bin/env python3
"""cache_poison.py CACHE FILE HEX: rewrite envparity's hash cache CACHE so
that it claims FILE (as it is now: device, inode, size, times) hashes to
HEX, with a trailer checksum that validates.  The attack the cache's rules
must defeat: the trailer (checker/util/cache.c) has no secret, so whoever can
write the cache can forge any entry."""
import os
import sys

M = (1 << 64) - 1


def mix64(x):
    x ^= x >> 30
    x = (x * 0xBF58476D1CE4E5B9) & M
    x ^= x >> 27
    x = (x * 0x94D049BB133111EB) & M
    x ^= x >> 31
    return x


def checksum(b):
    h = 0x243F6A8885A308D3 ^ len(b)
    i = 0
    while len(b) - i >= 8:
        w = int.from_bytes(b[i:i + 8], "little")
        h = ((h ^ w) * 0x9E3779B97F4A7C15) & M
        h ^= h >> 29
        i += 8
    w = int.from_bytes(b[i:] + b"\0" * (8 - (len(b) - i)), "little")
    h = ((h ^ w) * 0x9E3779B97F4A7C15) & M
    return mix64(h)


cache, path, hexsum = sys.argv[1:4]
st = os.stat(path)
line = "sha256 %d %d %d %d.%09d %d.%09d %s\n" % (
    st.st_dev, st.st_ino, st.st_size,
    st.st_mtime_ns // 10**9, st.st_mtime_ns % 10**9,
    st.st_ctime_ns // 10**9, st.st_ctime_ns % 10**9, hexsum)
body = line.encode()
with open(cache, "wb") as f:
    f.write(b"envparity-cache 1\n" + body +
            b"end 1 %016x\n" % checksum(body))
