/*
 * vercmp.h: version-aware comparison of the versions facts carry
 * (580.65.06, 13.0.96, 9.19.0.56, 2.1.0+cu121, 1.0rc1, 2.0.0.post1) and
 * (ranges of them are verrange.h's).  Not string order: 580.65.06 <
 * 580.159.04.
 *
 * A version is [v][EPOCH!]N(.N)* followed by PEP 440 suffixes (a, b, rc
 * and their spellings, .postN, -N, .devN, +local) or, where the rest is
 * not PEP 440, an opaque tail ("6.18.44-fc-v657-gpu", "96.00.DA.00.0C"):
 * ASCII letters and digits, each run after at most one of . - _ ~ +, none
 * at the end, one '+' at most.  White space around a version is not part
 * of it ("  v1.0\n" is 1.0); inside one, it is no version ("1. 0").
 * Release components compare as numbers of any length, trailing zeros do
 * not count (580.65 == 580.65.0); within one release, PEP 440 orders
 * 1.0.dev1 < 1.0a1 < 1.0b1 < 1.0rc1 < 1.0 < 1.0.post1.  A local label or
 * an opaque tail sorts after the plain release and is compared segment
 * by segment, numbers as numbers (cu92 < cu121).
 */
#ifndef EP_VERCMP_H
#define EP_VERCMP_H

#include <stddef.h>


/* <0, 0 or >0 as a is older than, the same as, or newer than b.  A total
 * order: strings that are not versions sort before every version and
 * among themselves by byte order. */
int ep_vercmp(const char *a, const char *b);

/* 1 if v is a version as above, else 0. */
int ep_version_valid(const char *v);

/* 1 if v is a PEP 440 version (one packaging's Version() takes: no opaque
 * tail, so "1.0.org1" is not one), else 0. */
int ep_version_pep440(const char *v);

/* str(Version(v)) as packaging writes it: the epoch only when not 0,
 * numbers without leading zeros, a, b, rc, .postN, .devN, a local label
 * lowercased with '.' between its parts ("1.0-RC1_post" is "1.0rc1.post0",
 * "v01.02+Ubuntu-1" is "1.2+ubuntu.1").  A new string, or NULL when v is
 * not PEP 440. */
char *ep_version_pep440_norm(const char *v);

/* The leading release components of v (580.159.04 gives 580, 159, 4),
 * at most max of them into parts (values beyond ULONG_MAX are clamped).
 * Returns how many v has (possibly more than max), 0 if v is not a
 * version. */
size_t ep_version_release(unsigned long *parts, size_t max, const char *v);

#endif
