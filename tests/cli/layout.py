#!/usr/bin/env python3
"""layout.py: the architecture of checker/ as the tree and the objects show
it (tests/cli/layout.bats runs it).

    layout.py REPO BUILD            check everything below
    layout.py REPO BUILD --graph    print the folder graph and exit

 - every folder of checker/, and gpu_probes/, opens with a README.md;
 - arrows point down: a file includes headers, and its object calls
   functions, only of its own folder and of the folders its folder may
   use (ALLOWED below, the table each README repeats);
 - no circle between objects, inside a folder or across folders: the
   callers of a function are above the file that defines it (and the
   same in envparity-probe, gpu_probes/, objects in BUILD/probe);
 - each external library has one owner (OWNERS below), and no header
   of ours hides a system header of the same name;
 - gpu_probes/ (envparity-probe) includes only its own headers and
   util/'s, and <dlfcn.h> in loader.c alone.
The objects are read with nm, so a call through a header that declares
another folder's function is seen even when no include gives it away.
"""
import collections
import os
import re
import subprocess
import sys

# What each folder may use besides itself.  "cmd" is checker/ itself:
# main.c, cmd.c and the commands.
ALLOWED = {
    "cmd": {"core", "collect", "image", "store", "probe", "fleet", "attest",
            "util", "reports"},
    "reports": {"core", "util"},
    "collect": {"core", "image", "util"},
    "store": {"core", "util"},
    "probe": {"core", "util"},
    "fleet": {"core", "util"},
    "attest": {"core", "util"},
    "image": {"util"},
    "core": {"util"},
    "util": set(),
}

# Header prefix: the files that may include it.
OWNERS = {
    "git2.h": r"^checker/store/",
    "curl/": r"^checker/image/registry\.c$",
    "openssl/": r"^checker/(util/hash\.c$|attest/)",
    "dlfcn.h": r"^checker/collect/dynload\.c$",
    "libxml/": r"^reports/junit\.c$",
}


# The system's headers a header of ours would hide, <glob.h> as "glob.h"
# (the -I folders are searched before them, for <> as well).
SYSTEM_INCLUDE = ("/usr/include", "/usr/include/x86_64-linux-gnu",
                  "/usr/include/aarch64-linux-gnu")


def folder(rel):
    """The folder a path (or an object's path) below the root belongs to."""
    parts = rel.split("/")
    if parts[0] == "reports":
        return "reports"
    if parts[0] == "checker":
        return parts[1] if len(parts) > 2 else "cmd"
    return None


def sources(repo):
    for top in ("checker", "reports"):
        for d, _, files in os.walk(os.path.join(repo, top)):
            for f in sorted(files):
                if f.endswith((".c", ".h")):
                    yield os.path.relpath(os.path.join(d, f), repo)


def check_readmes(repo, problems):
    # envparity-probe's folder is one of the tree's, README included.
    if os.path.isdir(os.path.join(repo, "gpu_probes")) and not \
            os.path.isfile(os.path.join(repo, "gpu_probes", "README.md")):
        problems.append("gpu_probes/ has no README.md")
    for d in sorted(os.listdir(os.path.join(repo, "checker"))):
        p = os.path.join(repo, "checker", d)
        if os.path.isdir(p) and not os.path.isfile(
                os.path.join(p, "README.md")):
            problems.append("checker/%s/ has no README.md" % d)
        if os.path.isdir(p) and d not in ALLOWED:
            problems.append("checker/%s/ is not in the layout's table "
                            "(tests/cli/layout.py ALLOWED)" % d)


def check_includes(repo, problems):
    headers = {}
    for rel in sources(repo):
        if rel.endswith(".h"):
            name = os.path.basename(rel)
            if name in headers:
                problems.append("%s and %s: one header name, two files "
                                "(headers are found by name)" %
                                (headers[name], rel))
            headers[name] = rel
            for sysdir in SYSTEM_INCLUDE:
                if os.path.isfile(os.path.join(sysdir, name)):
                    problems.append("%s: hides <%s> of %s (every folder "
                                    "is on the -I path)" %
                                    (rel, name, sysdir))
    inc = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]')
    for rel in sources(repo):
        me = folder(rel)
        with open(os.path.join(repo, rel), encoding="utf-8") as f:
            for no, line in enumerate(f, 1):
                m = inc.match(line)
                if m is None:
                    continue
                kind, name = m.groups()
                if kind == "<":
                    for prefix, who in OWNERS.items():
                        if name.startswith(prefix) and \
                                not re.search(who, rel):
                            problems.append(
                                "%s:%d: includes <%s>, which only %s may" %
                                (rel, no, name, who))
                    continue
                target = headers.get(name)
                if target is None:
                    continue
                there = folder(target)
                if there != me and there not in ALLOWED[me]:
                    problems.append("%s:%d: includes %s: %s/ may not use "
                                    "%s/" % (rel, no, target, me, there))


def check_probe_includes(repo, problems):
    """gpu_probes/ (envparity-probe) uses its own headers and util/'s, and
    loader.c alone opens libraries."""
    top = os.path.join(repo, "gpu_probes")
    if not os.path.isdir(top):
        return
    headers = {}
    for rel in sources(repo):
        if rel.endswith(".h"):
            headers.setdefault(os.path.basename(rel), rel)
    inc = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]')
    for f in sorted(os.listdir(top)):
        if not f.endswith((".c", ".h")):
            continue
        rel = "gpu_probes/" + f
        with open(os.path.join(top, f), encoding="utf-8") as fh:
            for no, line in enumerate(fh, 1):
                m = inc.match(line)
                if m is None:
                    continue
                kind, name = m.groups()
                if kind == "<":
                    if name == "dlfcn.h" and f != "loader.c":
                        problems.append("%s:%d: includes <dlfcn.h>, which "
                                        "only gpu_probes/loader.c may" %
                                        (rel, no))
                    continue
                if os.path.isfile(os.path.join(top, name)):
                    continue
                target = headers.get(name)
                if target is not None and folder(target) != "util":
                    problems.append("%s:%d: includes %s: gpu_probes/ may "
                                    "use only util/" % (rel, no, target))


def source_of(repo, sub, name):
    """The source an object was built from: BUILD/obj/<path>.o from
    <path>.c, BUILD/probe/<name>.o from gpu_probes/<name>.c and
    BUILD/probe/util/<name>.o from checker/util/<name>.c."""
    if sub == "obj":
        if "/" not in name:	# the flat layout before checker/<dir>/
            for top in ("checker", "reports"):
                if os.path.isfile(os.path.join(repo, top, name + ".c")):
                    return os.path.join(repo, top, name + ".c")
        return os.path.join(repo, name + ".c")
    if name.startswith("util/"):
        return os.path.join(repo, "checker", name + ".c")
    return os.path.join(repo, "gpu_probes", name + ".c")


def objects(repo, build, sub="obj"):
    """The objects of the current sources (one left by an older layout,
    whose source is gone, is not the program's)."""
    root = os.path.join(build, sub)
    for d, _, files in os.walk(root):
        for f in sorted(files):
            if f.endswith(".o"):
                path = os.path.join(d, f)
                name = os.path.relpath(path, root)[:-2]
                if os.path.isfile(source_of(repo, sub, name)):
                    yield name, path


def call_graph(repo, build, sub="obj"):
    defs, uses = {}, collections.defaultdict(set)
    for name, path in objects(repo, build, sub):
        out = subprocess.run(["nm", path], capture_output=True, text=True,
                             check=True).stdout
        for line in out.splitlines():
            p = line.split()
            if len(p) == 3 and p[1] in "TDBRV":
                defs[p[2]] = name
            elif len(p) == 2 and p[0] == "U":
                uses[name].add(p[1])
    graph = collections.defaultdict(set)
    why = {}
    for name, syms in uses.items():
        for s in sorted(syms):
            if s in defs and defs[s] != name:
                graph[name].add(defs[s])
                why.setdefault((name, defs[s]), s)
    return sorted(set(defs.values()) | set(graph)), graph, why


def circles(nodes, graph):
    """Tarjan's strongly connected components of more than one node."""
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in nodes:
        if v not in index:
            visit(v)
    return out


def check_calls(repo, build, problems, show):
    nodes, graph, why = call_graph(repo, build)
    if not nodes:
        problems.append("%s/obj: no objects (build first)" % build)
        return
    folders = collections.defaultdict(set)
    for a in nodes:
        for b in sorted(graph[a]):
            fa, fb = folder(a), folder(b)
            if fa is None or fb is None or fa == fb:
                continue
            folders[fa].add(fb)
            if fb not in ALLOWED[fa]:
                problems.append("%s calls %s (%s): %s/ may not use %s/" %
                                (a, b, why[(a, b)], fa, fb))
    for comp in circles(nodes, graph):
        edges = ["%s -> %s (%s)" % (a, b, why[(a, b)])
                 for a in comp for b in sorted(graph[a]) if b in comp]
        problems.append("a circle: " + "; ".join(edges))
    if show:
        for f in sorted(folders):
            print("%s/ -> %s" % (f, ", ".join(sorted(folders[f]))))
    # envparity-probe (gpu_probes/, objects in BUILD/probe): one folder,
    # no circle either.
    nodes, graph, why = call_graph(repo, build, "probe")
    for comp in circles(nodes, graph):
        edges = ["%s -> %s (%s)" % (a, b, why[(a, b)])
                 for a in comp for b in sorted(graph[a]) if b in comp]
        problems.append("a circle in envparity-probe: " + "; ".join(edges))


def main():
    if len(sys.argv) < 3:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    repo, build = sys.argv[1], sys.argv[2]
    show = "--graph" in sys.argv[3:]
    problems = []
    if not show:
        check_readmes(repo, problems)
        check_includes(repo, problems)
        check_probe_includes(repo, problems)
    check_calls(repo, build, problems, show)
    for p in problems:
        print(p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
