/*
 * The pt and bts recorders' settings a session keeps for its next
 * recording (`set record pt ...`, --pt-buffer=...), and the pt config a
 * recording starts with: the user's filters (FUNC, FILE, START/SIZE@FILE)
 * resolved against the process as it is mapped then.  Internal to
 * src/session; the public calls are ptd_session_set/get_record_option().
 */
#ifndef PTD_SESSION_RECORD_OPTIONS_H
#define PTD_SESSION_RECORD_OPTIONS_H

#include <sys/types.h>

#include "record/btsrec.h"
#include "record/ptrec.h"

struct ptd_session;
struct ptd_symbols;

struct ptd_record_options {
	struct ptd_ptrec_config pt;  /* filters as the user gave them */
	struct ptd_btsrec_config bts;
};

void ptd__record_options_init(struct ptd_record_options *o);
void ptd__record_options_fini(struct ptd_record_options *o);
/* The session's options (session.c owns the storage). */
struct ptd_record_options *ptd__session_record_options(struct ptd_session *s);

/*
 * The config a pt recording of process @pid starts with: a copy of the
 * settings whose filters are in the kernel's syntax "filter
 * START/SIZE@FILE" (START an offset in FILE): FUNC and FUNC@FILE through
 * @sym and /proc/@pid/maps, FILE as the whole file.  Free it with
 * ptd_recopts_pt_fini().  Returns 0, or -ptde_notfound (no such function
 * or file, the message names it), -ptde_nomem.
 */
int ptd__record_options_pt_config(const struct ptd_record_options *o, pid_t pid,
				  struct ptd_symbols *sym, struct ptd_ptrec_config *out);

/* Resolves one filter as above into @out.  Returns 0 or <0. */
int ptd__record_filter_resolve(const char *spec, pid_t pid, struct ptd_symbols *sym, char *out,
			       size_t n);

#endif
