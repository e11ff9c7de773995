/*
 * The user's settings of the pt and bts recorders by name, as the shell's
 * `set record pt ...`, the command line (--pt-buffer=...) and a gdb stub
 * give them: parsed and checked here once, stored in the recorders' own
 * config structs (record/ptrec.h, record/btsrec.h), and shown back in one
 * canonical form.  What the machine permits (caps, buffer sizes the kernel
 * accepts) is checked when recording starts, by the recorders.
 *
 * Names and values:
 *   buffer-size      bytes per thread, K/M/G suffixes, a power-of-two
 *                    number of 4 KiB pages (pt: at least 2); 0 or
 *                    "default" (pt 4M, bts 1M)
 *   buffer           circular (default: the newest trace survives) | full
 *                    (linear: drained at each stop, nothing lost)   [pt]
 *   kernel           on | off (default off)                          [pt]
 *   ret-compression  on | off | auto (auto: the PMU's default, on)   [pt]
 *   tsc, mtc, cyc    on | off | auto (auto: the term is left unset, so
 *                    off, as in the bare intel_pt event; on is refused
 *                    when the PMU's caps lack it)                    [pt]
 *   psb-period       0..15 (the psb_period format term: a PSB every
 *                    2^(N+11) bytes, as caps/psb_periods allows) | auto
 *                    (the hardware's default)                         [pt]
 *   filter           one address filter added: START/SIZE@FILE (perf's
 *                    syntax, START an offset in FILE), FUNC, FUNC@FILE or
 *                    FILE (resolved to START/SIZE@FILE when recording
 *                    starts); "none" removes them all                [pt]
 */
#ifndef PTD_RECORD_RECOPTS_H
#define PTD_RECORD_RECOPTS_H

#include <stddef.h>

#include "record/btsrec.h"
#include "record/ptrec.h"

/* A config with every setting at its default. */
void ptd_recopts_pt_init(struct ptd_ptrec_config *c);
void ptd_recopts_bts_init(struct ptd_btsrec_config *c);
/* Frees the filters of @c (NULL-safe); @c is at its defaults afterwards. */
void ptd_recopts_pt_fini(struct ptd_ptrec_config *c);
/* Deep copy (filters duplicated).  Returns 0 or -ptde_nomem. */
int ptd_recopts_pt_copy(struct ptd_ptrec_config *dst, const struct ptd_ptrec_config *src);

/* Sets option @name to @value.  Returns 0, or -ptde_notfound (no such
 * option; the message lists them), -ptde_invalid (a bad value; the
 * message says what is valid), -ptde_nomem. */
int ptd_recopts_pt_set(struct ptd_ptrec_config *c, const char *name, const char *value);
int ptd_recopts_bts_set(struct ptd_btsrec_config *c, const char *name, const char *value);
/* Writes option @name's value in canonical form ("4194304", "circular",
 * "on", "auto", filters joined by ", " or "none") into @buf.  Returns its
 * length, or -ptde_notfound, -ptde_invalid (@n too small). */
int ptd_recopts_pt_get(const struct ptd_ptrec_config *c, const char *name, char *buf, size_t n);
int ptd_recopts_bts_get(const struct ptd_btsrec_config *c, const char *name, char *buf,
			size_t n);

/* The option names, NULL-terminated. */
extern const char *const ptd_recopts_pt_names[];
extern const char *const ptd_recopts_bts_names[];

/* A filter written as START/SIZE@FILE: fills @start, @size and @file
 * (a pointer into @spec).  Returns 1, 0 when @spec has another form
 * (FUNC, FILE), -ptde_invalid when it looks like one but is malformed. */
int ptd_recopts_filter_range(const char *spec, unsigned long long *start,
			     unsigned long long *size, const char **file);

#endif
