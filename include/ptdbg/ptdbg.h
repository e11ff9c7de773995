/*
 * ptdbg public API: error codes and the library version.
 *
 * Every ptdbg function that can fail returns a negative `enum ptd_error`
 * code (-ptde_x) on failure and zero or a positive count on success, as
 * libipt does.  ptd_errstr() names a code; ptd_last_error() gives the
 * detailed message of the most recent failure in the calling thread
 * ("cannot attach to 4242: operation not permitted"), which front ends
 * print as is.
 */
#ifndef PTDBG_PTDBG_H
#define PTDBG_PTDBG_H

#include <stdarg.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define PTD_EXPORT __attribute__((visibility("default")))

#define PTD_VERSION_MAJOR 0
#define PTD_VERSION_MINOR 1

enum ptd_error {
	ptde_ok = 0,
	ptde_internal,    /* a broken invariant inside ptdbg */
	ptde_invalid,     /* a caller mistake: bad argument */
	ptde_nomem,       /* out of memory */
	ptde_sys,         /* a system call failed; the message keeps errno */
	ptde_nosrch,      /* no such process or thread */
	ptde_perm,        /* permission denied */
	ptde_exited,      /* the process has exited */
	ptde_not_running, /* there is no process */
	ptde_eos,         /* end of history reached */
	ptde_bos,         /* beginning of history reached */
	ptde_nomap,       /* no memory mapped at that address */
	ptde_bad_trace,   /* a trace or file is malformed */
	ptde_unsupported, /* not supported here (hardware, kernel) */
	ptde_notfound,    /* no such symbol, line, breakpoint, thread */
	ptde_busy,        /* already in that state */
	ptde_bad_insn,    /* an instruction could not be decoded */
	ptde_max
};

/* Returns a short constant name for @code (positive or negative). */
extern PTD_EXPORT const char *ptd_errstr(int code);

/*
 * Returns the detailed message of the last error set in this thread, or
 * the ptd_errstr() of @code when none was set since ptd_clear_error().
 */
extern PTD_EXPORT const char *ptd_last_error(int code);
extern PTD_EXPORT void ptd_clear_error(void);

#ifdef __cplusplus
}
#endif
#endif
