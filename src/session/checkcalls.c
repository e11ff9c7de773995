/*
 * maint check calls: the selected thread's function-call view as ptdbg
 * serves it (from the history's call log and its part summaries, where it
 * has them) against the view built by walking the items alone, segment by
 * segment.  The two must never differ: the log is only a faster way to
 * the same segments.
 */
#include "session/session_int.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "history/history_int.h"
#include "util/error.h"

/* The first field in which @a and @b differ, or NULL. */
static const char *seg_diff(const struct ptd_callseg *a, const struct ptd_callseg *b,
			    uint64_t *va, uint64_t *vb)
{
#define F(name)                                   \
	if (a->name != b->name) {                 \
		*va = (uint64_t)(int64_t)a->name; \
		*vb = (uint64_t)(int64_t)b->name; \
		return #name;                     \
	}
	F(index)
	F(first)
	F(last)
	F(ip)
	F(level)
	F(is_gap)
	F(up)
	F(prev_same)
	F(next_same)
	F(instance)
	F(how)
	F(up_is_ret)
	F(up_is_tail)
	F(unwound_to)
#undef F
	return NULL;
}

int ptd_session_check_calls(struct ptd_session *s, struct ptd_calls_check *out)
{
	const struct ptd_calls *served;
	struct ptd_calls *items = NULL;
	struct sthread *th;
	uint64_t n, i, cnt_log = 0, cnt_items = 0;
	int rc = 0;

	if (!s || !out)
		return ptd__err(-ptde_invalid, "maint check calls: bad arguments");
	memset(out, 0, sizeof(*out));
	th = ptd__ses_cur_thread(s);
	if (!th)
		return ptd__err(-ptde_not_running, "no thread: nothing is recorded");
	served = ptd_session_calls(s); /* (the log written again if it must be) */
	if (!served)
		return ptd__err(-ptde_invalid, "no function-call history: %s",
				ptd_last_error(-ptde_invalid));
	out->nitems = ptd_history_nitems(th->h);
	out->rebuilt = s->relogs;
	out->has_log = ptd__history_calllog(th->h, &out->logged) != NULL;
	if (!out->has_log)
		out->logged = 0;
	items = ptd__calls_build_items(th->h, ptd__ses_env_func_of, s);
	if (!items)
		return ptd__err(-ptde_nomem, "cannot build the call view from the items: %s",
				ptd_last_error(-ptde_nomem));
	n = ptd_calls_count(served);
	out->nsegs = n;
	if (n != ptd_calls_count(items)) {
		snprintf(out->diff, sizeof(out->diff),
			 "%" PRIu64 " segments from the log, %" PRIu64 " from the items", n,
			 ptd_calls_count(items));
		rc = 1;
		goto out;
	}
	for (i = 1; i <= n; i++) {
		const struct ptd_callseg *p = ptd_calls_get(served, i);
		struct ptd_callseg a, b;
		const char *f;
		uint64_t va = 0, vb = 0;

		if (!p)
			goto lost;
		a = *p;
		p = ptd_calls_get(items, i);
		if (!p)
			goto lost;
		b = *p;
		f = seg_diff(&a, &b, &va, &vb);
		if (f) {
			snprintf(out->diff, sizeof(out->diff),
				 "segment %" PRIu64 ": %s is %" PRId64 " (0x%" PRIx64
				 ") from the log, %" PRId64 " (0x%" PRIx64 ") from the items",
				 i, f, (int64_t)va, va, (int64_t)vb, vb);
			rc = 1;
			goto out;
		}
	}
	/* info record's count takes another path (no segments stored). */
	if (ptd_calls_count_only(th->h, ptd__ses_env_func_of, s, &cnt_log) < 0 ||
	    ptd__calls_count_items(th->h, ptd__ses_env_func_of, s, &cnt_items) < 0) {
		rc = ptd__err(-ptde_nomem, "cannot count the calls: %s",
			      ptd_last_error(-ptde_nomem));
		goto out;
	}
	if (cnt_log != n || cnt_items != n) {
		snprintf(out->diff, sizeof(out->diff),
			 "info record counts %" PRIu64 " segments from the log, %" PRIu64
			 " from the items, the view has %" PRIu64,
			 cnt_log, cnt_items, n);
		rc = 1;
	}
	goto out;
lost:
	rc = ptd__err(-ptde_internal, "call segment %" PRIu64 " missing: %s", i,
		      ptd_last_error(-ptde_internal));
out:
	ptd_calls_free(items);
	return rc;
}
