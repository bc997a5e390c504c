#!/usr/bin/env python3
"""bench/gen-fleet.py DIR NODES FACTS ODD: write NODES node manifests of
FACTS facts each into DIR, as `envparity capture --node` writes them
(sorted keys, two-space indent), all alike but for ODD nodes spread over
the fleet, each with one fact of its own value.  Prints the odd nodes'
names, one a line.  The facts look like a GPU node's: packages, library
versions, paths and SHA-256s, environment variables."""
import json
import os
import random
import sys

out, nodes, nfacts, nodd = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
rnd = random.Random(42)
facts = {}
i = 0
while len(facts) < nfacts:
    k = i % 4
    if k == 0:
        facts["python.pkg.package-%04d" % i] = "%d.%d.%d" % (rnd.randint(0, 30), rnd.randint(0, 30), rnd.randint(0, 9))
    elif k == 1:
        facts["lib.library%04d.sha256" % i] = "%064x" % rnd.getrandbits(256)
    elif k == 2:
        facts["lib.library%04d.path" % i] = "/usr/local/cuda-13.0/targets/x86_64-linux/lib/liblibrary%04d.so.13" % i
    else:
        facts["env.VARIABLE_%04d" % i] = "value-%d" % rnd.randint(0, 1 << 30)
    i += 1
keys = sorted(facts)
odd = sorted(rnd.sample(range(nodes), nodd))
os.makedirs(out, exist_ok=True)
width = len(str(nodes))
for n in range(nodes):
    name = "n%0*d" % (width, n + 1)
    f = facts
    if n in odd:
        f = dict(facts)
        f[keys[(n * 7919) % len(keys)]] = "odd-%d" % n
        print(name)
    m = {"facts": f, "meta": {"captured_at": "2026-11-24T02:30:00Z", "host": "gpu-host",
         "node": name, "tool": "envparity 0.1.0"}, "schema": "envparity/manifest@1"}
    with open(os.path.join(out, name + ".json"), "w") as fp:
        json.dump(m, fp, indent=2, sort_keys=True)
        fp.write("\n")
