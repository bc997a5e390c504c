#!/usr/bin/env python3
"""tests/coverage.py DIR BUILD WORK [--jobs N] [--san-list FILE]: the
figures of tests/coverage.sh, from the counts it gathered.

WORK/gcda/SET/ holds the .gcda files one set of tests wrote (SET is
"base" for the unit tests and fuzz replay, a bats file's name, or
"stray" for what no set can claim), under their absolute paths.  Each is
read with gcov (JSON) beside a link to its .gcno; a line is covered when
its count is not zero.  The lines that count are those of checker/,
reports/ and gpu_probes/ in every object's notes, whether run or not.

Writes WORK/summary.txt (the per-folder figures), WORK/bats.txt (per bats
file: lines it reaches, and those beyond the unit tests) and, with
--san-list, FILE: a greedy cover of the lines the bats files reach
beyond the unit tests."""
import json
import os
import subprocess
import sys

# Fewer lines than this a bats file adds to the sanitizer pass: left out.
MIN_GAIN = 6
from multiprocessing import Pool

FOLDERS = ("checker/", "reports/", "gpu_probes/")


def gcov_lines(cwd, files):
    """{(source, line): count} over the gcov JSON of these .gcno/.gcda."""
    lines = {}
    for i in range(0, len(files), 200):
        out = subprocess.run(["gcov", "--json-format", "--stdout"] +
                             files[i:i + 200], cwd=cwd,
                             stdout=subprocess.PIPE,
                             stderr=subprocess.DEVNULL, check=False).stdout
        for doc in out.splitlines():
            if not doc.strip():
                continue
            for f in json.loads(doc)["files"]:
                src = f["file"]
                if not src.startswith(FOLDERS):
                    continue
                for ln in f["lines"]:
                    k = (src, ln["line_number"])
                    lines[k] = lines.get(k, 0) + ln["count"]
    return lines


def covered_by(args):
    """The covered lines of one set: its .gcda files beside their notes."""
    root, build_abs, name = args
    gcdas = []
    for d, _, files in os.walk(os.path.join(root, name)):
        for f in files:
            if not f.endswith(".gcda"):
                continue
            p = os.path.join(d, f)
            notes = "/" + os.path.relpath(p[:-5] + ".gcno",
                                          os.path.join(root, name))
            if not notes.startswith(build_abs + "/") or \
                    not os.path.isfile(notes):
                continue
            link = p[:-5] + ".gcno"
            if not os.path.exists(link):
                os.link(notes, link)
            gcdas.append(p)
    cwd = os.path.dirname(build_abs)
    return name, {k for k, c in gcov_lines(cwd, sorted(gcdas)).items()
                  if c > 0}


def per_folder(lines):
    n = {f: 0 for f in FOLDERS}
    for src, _ in lines:
        n[src[:src.index("/") + 1]] += 1
    return n


def main():
    argv = sys.argv[1:]
    jobs, sanlist = 2, None
    if "--jobs" in argv:
        i = argv.index("--jobs")
        jobs = int(argv[i + 1])
        del argv[i:i + 2]
    if "--san-list" in argv:
        i = argv.index("--san-list")
        sanlist = argv[i + 1]
        del argv[i:i + 2]
    top, build, work = argv
    build_abs = os.path.join(top, build)

    notes = []
    for d, dirs, files in os.walk(build_abs):
        if os.path.abspath(d) == os.path.join(build_abs, "coverage"):
            dirs[:] = []
            continue
        notes += [os.path.join(d, f) for f in files if f.endswith(".gcno")]
    total = set(gcov_lines(top, sorted(notes)))

    root = os.path.join(work, "gcda")
    sets = sorted(os.listdir(root))
    with Pool(jobs) as pool:
        cov = dict(pool.map(covered_by,
                            [(root, build_abs, s) for s in sets]))
    base = cov.get("base", set())
    bats = {s: c for s, c in cov.items() if s.endswith(".bats")}
    suite = set().union(*cov.values()) & total
    base &= total

    # Pass and fail counts of the runs measured, from their TAP.
    passed = failed = 0
    for f in os.listdir(os.path.join(work, "logs")):
        with open(os.path.join(work, "logs", f), errors="replace") as fh:
            for line in fh:
                if line.startswith("ok "):
                    passed += 1
                elif line.startswith("not ok ") and "# SKIP" not in line:
                    failed += 1

    t, b, s = per_folder(total), per_folder(base), per_folder(suite)
    out = ["line coverage (gcov) of %s" % top,
           "%-12s %14s %14s %6s" % ("", "unit+replay", "whole suite",
                                    "lines")]
    for f in FOLDERS + ("all",):
        if f == "all":
            tt, bb, ss = len(total), len(base), len(suite)
        else:
            tt, bb, ss = t[f], b[f], s[f]
        pct = (lambda x: 100.0 * x / tt if tt else 0.0)
        out.append("%-12s %7d %5.1f%% %7d %5.1f%% %6d" %
                   (f, bb, pct(bb), ss, pct(ss), tt))
    out.append("tests measured: %d passed, %d failed (TAP lines)" %
               (passed, failed))
    summary = "\n".join(out) + "\n"
    with open(os.path.join(work, "summary.txt"), "w") as fh:
        fh.write(summary)
    sys.stdout.write(summary)

    beyond = {n: (c & total) - base for n, c in bats.items()}
    with open(os.path.join(work, "bats.txt"), "w") as fh:
        fh.write("# bats file, lines it reaches, lines beyond the unit "
                 "tests and fuzz replay\n")
        for n in sorted(bats, key=lambda n: -len(beyond[n])):
            fh.write("%-28s %6d %6d\n" % (n, len(bats[n] & total),
                                          len(beyond[n])))

    if sanlist is None:
        return
    # Greedy cover: the file that adds most new lines first, until every
    # line some bats file reaches beyond the unit tests is reached.
    left = set().union(*beyond.values()) if beyond else set()
    chosen = []
    while left:
        n = max(sorted(beyond), key=lambda k: len(beyond[k] & left))
        gain = beyond[n] & left
        if not gain:
            break
        chosen.append((n, len(gain)))
        left -= gain
    # A file that adds fewer than MIN_GAIN lines costs its whole run under
    # the sanitizers for them: left out, named, its lines plain only
    # (listed in WORK/san-left-out.txt).
    kept = [(n, g) for n, g in chosen if g >= MIN_GAIN]
    out = [(n, g) for n, g in chosen if g < MIN_GAIN]
    with open(sanlist, "w") as fh:
        fh.write(
            "# tests/san.list: the bats files the sanitizer pass of "
            "tests/run.sh runs\n"
            "# (the plain pass runs every one).  Made by "
            "`tests/coverage.sh --san-list`:\n"
            "# of the C lines (gcov) the bats files reach that no unit "
            "test or fuzz\n"
            "# input does, the file reaching the most not yet reached, "
            "then the next,\n"
            "# until every such line is reached: each line of C a test "
            "reaches runs\n"
            "# under ASan and UBSan, but for the few of the files left "
            "out below.\n"
            "# After each file, the lines it added.\n"
            "#\n"
            "# Left out (below, commented): the files that added fewer "
            "than %d lines,\n"
            "# whose sanitizer run costs far more than those lines (they "
            "run in the\n"
            "# plain pass only; build-cov/coverage/san-left-out.txt names "
            "them).\n" % MIN_GAIN)
        for n, g in sorted(kept):
            fh.write("%-28s # %d\n" % (n, g))
        fh.write("#\n")
        for n, g in sorted(out):
            fh.write("# %-26s # %d\n" % (n, g))
    with open(os.path.join(work, "san-left-out.txt"), "w") as fh:
        for n, _ in sorted(out):
            for src, line in sorted(beyond[n] - set().union(
                    *(beyond[k] for k, _ in kept))):
                fh.write("%s %s:%d\n" % (n, src, line))
    print("%s: %d of %d bats files cover the %d lines beyond the unit "
          "tests; %d more, left out, would add %d" % (
              sanlist, len(kept), len(bats),
              len(set().union(*beyond.values()) if beyond else ()),
              len(out), sum(g for _, g in out)))


if __name__ == "__main__":
    main()
