/*
 * lockreach.h: where a poetry.lock written by poetry 1.x (lock-version
 * 2.0 and older) installs each package.  Such a file gives no package a
 * marker of its own: the markers sit on its dependents' edges
 * ([package.dependencies] colorama = {version = "*", markers =
 * "sys_platform == \"win32\""}), so whether a package applies here is
 * whether a path of edges true here reaches it from what the project
 * installs.  Used by lockjudge.c.
 */
#ifndef EP_LOCKREACH_H
#define EP_LOCKREACH_H

#include <stddef.h>

#include "lockfile.h"
#include "pep508.h"

/* How surely each name of pins (their deps lines, struct ep_pin) is
 * installed here: a new array, one byte per name, 2 surely, 1 perhaps (a
 * path through an edge whose marker cannot be decided with env, NULL
 * meaning none can, or that only an extra asks for), 0 not (every path
 * to it crosses an edge whose marker is false here).  A name is numbered
 * where it first occurs among pins; *node (a new array) is each pin's
 * name.  The roots, 2 each, are the names of the pins whose root[i] is
 * set (of the selected groups) that no pin depends on; a path is as sure
 * as its least sure edge, a name as its surest path.  Linear in the pins
 * and edges; a cycle ends (a name is queued only when its reach grows).
 * Never fails. */
unsigned char *ep_lock_reach(size_t **node, const struct ep_pins *pins,
    const unsigned char *root, const struct ep_markerenv *env);

#endif
