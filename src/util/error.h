/*
 * Internal error helpers: set the thread's detailed message and return a
 * negative code in one expression, e.g.
 *     return ptd__err(-ptde_perm, "cannot attach to %d: %s", pid, strerror(errno));
 */
#ifndef PTD_UTIL_ERROR_H
#define PTD_UTIL_ERROR_H

#include "ptdbg/ptdbg.h"

int ptd__err(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Maps an errno value to a ptd_error code (negative). */
int ptd__errno_code(int err);

#endif
