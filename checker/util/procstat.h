/*
 * procstat.h: a process's /proc/PID/stat, read past its command name,
 * for the code that watches its children (child.c, reap.c, secret.c).
 * files.c implements it.
 */
#ifndef EP_PROCSTAT_H
#define EP_PROCSTAT_H

#include <stddef.h>
#include <sys/types.h>

/* /proc/PID/stat (pid 0: this process's) read into buf (size bytes),
 * from the last ')' on: the command name before it is in parentheses and
 * may hold anything, so field k + 2 opens at the k-th space after the
 * returned pointer (the state is field 3, the parent field 4).  NULL when
 * the process is gone or the file cannot be read. */
const char *ep_proc_stat(char *buf, size_t size, pid_t pid);

#endif
