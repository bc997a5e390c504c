/*
 * hostlist.h: Slurm's hostlist syntax ("n[001-003,007],gpu[1-2]-ib"), both
 * ways: expanding a list a user wrote into node names, and compressing
 * node names into a list short enough to read in a message or a report.
 *
 * The semantics are Slurm's (SchedMD's src/common/hostlist.c, read at
 * master 284c3b95f0, and `scontrol show hostnames` and `scontrol show
 * hostlistsorted` of Debian's Slurm 22.05, which tests/unit/
 * test_hostlist_compress.c compares with where scontrol is installed):
 *  - a range's numbers are as wide as its lower bound is written, zeros
 *    kept: "[08-11]" gives 08 09 10 11, "[1-010]" gives 1 ... 10 and
 *    "[0001-3]" gives 0001 0002 0003;
 *  - each range in a bracket has its own width: "n[1,02,003]" is n1 n02
 *    n003; ranges are expanded in the order written ("n[3,1-2]" is n3 n1
 *    n2), and several brackets in one name as their product, the leftmost
 *    varying slowest;
 *  - text after the last bracket ("gpu[1-2]-ib") is read as Slurm reads
 *    it since 23.02.5 (SchedMD commit 0994b5f198, "Extend hostlist to
 *    support suffix"); older Slurm refuses it.
 * Where Slurm is lenient this is strict, since a list here is something
 * a user typed to say what to expect, and a typo must not silently name
 * other nodes: Slurm skips empty hosts ("n1,,n2"), reads "n[1-]" as n1,
 * lets strtoul() skip blanks and '+' in a range ("n[ 1-2]" is n01 n02),
 * saturates a number too large for an unsigned long, and accepts any
 * byte in a name ("a/b"); all of these are errors here.  Slurm caps a
 * range at 65536 names; here the caller's max caps the whole list.  Like
 * Slurm, white space separates hosts as a comma does ("n1 n2").
 */
#ifndef EP_HOSTLIST_H
#define EP_HOSTLIST_H

#include <stddef.h>

#include "errors.h"
#include "strv.h"

/* Node names are at most this long. */
#define EP_HOSTLIST_NAME_MAX	255

/* Expand the hostlist text into names, appended to out (copies it owns)
 * in the order written: "n[001-003,007],gpu[1-2]-ib,login" gives n001
 * n002 n003 n007 gpu1-ib gpu2-ib login; "r[1-2]n[01-02]" gives r1n01
 * r1n02 r2n01 r2n02.  Commas inside brackets do not separate hosts; white
 * space around hosts is ignored.  Duplicates are kept (the caller
 * decides).
 *
 * Fails with EP_E_INPUT, out as it was, and one message that starts with
 * what (the option or file the list came from, e.g. "--expect"), says the
 * problem and quotes the text around the column where it is, cleaned to
 * printable ASCII, on: an empty list or an empty host; an unclosed or
 * nested '[', a ']' without '['; an empty range or bound; a lower bound
 * above the upper; a non-digit in a range; a number above 2^64-1; more
 * than max names in all ("expands to more than MAX names", found before
 * anything is allocated for them); a name longer than
 * EP_HOSTLIST_NAME_MAX bytes; a byte outside [A-Za-z0-9._-] (so '/' is
 * refused); a name that is "." or "..".  A NULL text is an empty list. */
int ep_hostlist_expand(struct ep_strv *out, const char *text,
    const char *what, size_t max, struct ep_err *err);

/* The n names (none NULL) as one hostlist, a new string the caller
 * frees ("" for n == 0): what `scontrol show hostlistsorted` writes, but
 * with each name once (Slurm writes "n[1,1-2]") and with suffixes.
 *
 * Each name splits at its last run of digits into prefix, number and
 * suffix; names with the same prefix and suffix share one bracket, where
 * consecutive numbers of the same width become ranges: n001..n047,n049
 * give "n[001-047,049]", and a number alone stays bare ("n3", not
 * "n[3]").  A number is unpadded (n9 and n10 give "n[9-10]") or
 * zero-padded to its width, and different widths share a bracket ("n1,
 * n01" give "n[1,01]"); the numbers 10, 11, ... (100, ...) continue a
 * padded 09 (099) when there is one, so n08 n09 n10 give "n[08-10]", as
 * in Slurm.  Names without digits, or whose digits exceed 2^64-1 (Slurm
 * would rewrite those), are listed as they are.
 *
 * Sorted by prefix then suffix in natural order (r2n1 before r10n1, as
 * Slurm's strnatcmp), names without digits before the bracket of their
 * prefix; in a bracket, ranges by the width their lower bound is written
 * in, then by number ("n[1-3,01-02]", "n[001-002,1000]", as Slurm; its
 * order of equal widths can differ: n09 n9 n10 give "n[9,09-10]" here,
 * "n[9-10,09]" there).  Slurm's own compressor stops at trailing digits
 * (gpu1-ib, gpu2-ib stay apart there); this one writes "gpu[1-2]-ib",
 * which Slurm before 23.02.5 cannot read.
 *
 * For names that pass ep_hostlist_name_ok, ep_hostlist_expand of the
 * result gives the same set of names.  O(n log n); never fails (aborts on
 * out-of-memory, like the x* allocators). */
char *ep_hostlist_compress(const char *const *names, size_t n);

/* 1 if name (not NULL) is a valid node name here: 1 to
 * EP_HOSTLIST_NAME_MAX bytes of [A-Za-z0-9._-], not "." or "..";
 * else 0. */
int ep_hostlist_name_ok(const char *name);

#endif
