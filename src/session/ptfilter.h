/*
 * The pt recorder's address filters as the user gives them (`record pt
 * filter F`, --pt-filter=F: FUNC, FUNC@FILE, FILE or START/SIZE@FILE)
 * turned into what the kernel takes (PERF_EVENT_IOC_SET_FILTER: "filter
 * START/SIZE@FILE" with START an offset in FILE) when a pt recording
 * starts, against the process as it is mapped then.
 */
#ifndef PTD_SESSION_PTFILTER_H
#define PTD_SESSION_PTFILTER_H

#include <stddef.h>
#include <sys/types.h>

#include "record/ptrec.h"

struct ptd_symbols;

/* A filter written START/SIZE@FILE: fills @start, @size and @file (a
 * pointer into @spec).  Returns 1, 0 when @spec has another form (FUNC,
 * FILE), -ptde_invalid when it starts like one but is malformed. */
int ptd__pt_filter_range(const char *spec, unsigned long long *start, unsigned long long *size,
			 const char **file);

/* Resolves one filter into @out ("filter 0x...%/0x...@/real/path"):
 * START/SIZE@FILE as is (FILE made absolute), FILE as the whole file,
 * FUNC and FUNC@FILE (FILE: the module's path or base name) through @sym
 * and /proc/@pid/maps.  Returns 0, or -ptde_notfound (no such function
 * or file, or not mapped; the message names it), -ptde_invalid,
 * -ptde_not_running (a function without a process). */
int ptd__pt_filter_resolve(const char *spec, pid_t pid, struct ptd_symbols *sym, char *out,
			   size_t n);

/* A copy of @in whose filters are resolved; free it with
 * ptd__pt_config_fini().  Returns 0 or <0 as above (@out is then empty). */
int ptd__pt_config_resolve(const struct ptd_ptrec_config *in, pid_t pid, struct ptd_symbols *sym,
			   struct ptd_ptrec_config *out);
void ptd__pt_config_fini(struct ptd_ptrec_config *c);

#endif
