/*
 * Backtraces of live, ptrace-stopped threads with libunwind-ptrace.
 *
 * The unwinder's address space (the accessor table plus libunwind's
 * caches of unwind tables) is created once and reused for every call,
 * because building it and re-parsing .eh_frame per backtrace is most of
 * the cost.  The caches are flushed at the start of each call: between
 * two stops the process may have exec'd, dlopen'd or dlclose'd, or the
 * caller may ask about a different process, and a stale unwind table
 * would give a wrong backtrace rather than an error.  The per-thread
 * _UPT state (which thread to read) is made per call.
 */
#include "unwind/unwind.h"

#include <errno.h>
#include <libunwind-ptrace.h>
#include <pthread.h>
#include <string.h>

#include "util/error.h"

static pthread_mutex_t as_lock = PTHREAD_MUTEX_INITIALIZER;
static unw_addr_space_t as;

int ptd_unwind_backtrace(pid_t tid, struct ptd_frame *frames, int max)
{
	unw_cursor_t cur;
	void *upt;
	int n = 0, r;

	if (tid <= 0 || !frames || max <= 0)
		return ptd__err(-ptde_invalid, "unwind: bad argument");

	pthread_mutex_lock(&as_lock);
	if (!as) {
		as = unw_create_addr_space(&_UPT_accessors, 0);
		if (!as) {
			pthread_mutex_unlock(&as_lock);
			return ptd__err(-ptde_nomem, "unwind: cannot create address space");
		}
		unw_set_caching_policy(as, UNW_CACHE_GLOBAL);
	}
	unw_flush_cache(as, 0, 0);

	upt = _UPT_create(tid);
	if (!upt) {
		pthread_mutex_unlock(&as_lock);
		return ptd__err(-ptde_nomem, "unwind: cannot create state for thread %d", (int)tid);
	}
	r = unw_init_remote(&cur, as, upt);
	if (r < 0) {
		_UPT_destroy(upt);
		pthread_mutex_unlock(&as_lock);
		/* Reading registers fails with ESRCH when the thread is not
		 * stopped under our ptrace. */
		if (r == -UNW_EBADREG || r == -UNW_EUNSPEC)
			return ptd__err(-ptde_nosrch,
					"cannot unwind thread %d: is it stopped under ptrace? (%s)",
					(int)tid, unw_strerror(r));
		return ptd__err(-ptde_internal, "cannot unwind thread %d: %s", (int)tid,
				unw_strerror(r));
	}
	for (;;) {
		unw_word_t ip = 0, sp = 0;

		if (unw_get_reg(&cur, UNW_REG_IP, &ip) < 0 || unw_get_reg(&cur, UNW_REG_SP, &sp) < 0)
			break;
		if (n > 0) {
			/* A frame's CFA is its caller's sp after the return. */
			frames[n - 1].cfa = sp;
			/* A zero return address marks the outermost frame. */
			if (ip == 0 || n >= max)
				break;
			/* Loops in corrupted stacks: stop when nothing moves. */
			if (sp == frames[n - 1].sp && ip == frames[n - 1].pc)
				break;
		}
		frames[n].pc = ip;
		frames[n].sp = sp;
		frames[n].cfa = 0;
		n++;
		if (unw_step(&cur) <= 0)
			break;
	}
	_UPT_destroy(upt);
	pthread_mutex_unlock(&as_lock);
	if (n == 0)
		return ptd__err(-ptde_internal, "cannot read the pc of thread %d", (int)tid);
	return n;
}
