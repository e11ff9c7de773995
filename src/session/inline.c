/*
 * gdb's inline frames at stops and in motions (DW_TAG_inlined_subroutine,
 * gdb 13's inline-frame.c and infrun.c): where a stop's pc is the start
 * of inlined calls, gdb first shows the frame around them, at the call
 * site's line ("skipped" inline frames); `step` (and reverse-step) then
 * goes into the innermost skipped one without moving.  stepi and nexti
 * stops, breakpoints at the pc (set by address or line) and the ends of
 * the history skip nothing.  The stepping rules themselves are in
 * src/replay (replay.c for the past, live.c for live steps); this file
 * keeps each thread's skipped count and starts the motions with it.
 */
#include <stdlib.h>
#include <string.h>

#include "session/session_int.h"
#include "symbols/symbols.h"
#include "util/error.h"

int ptd__ses_env_inline_chain(void *ctx, uint64_t addr, struct ptd_iblock *out, int max)
{
	struct ptd_session *s = ctx;
	struct ptd_symbols *sym = ptd__ses_symbols_at(s);

	return sym ? ptd__symbols_inline_chain(sym, addr, out, max) : 0;
}

void ptd__ses_inline_stop(struct ptd_session *s, const struct ptd_event *ev)
{
	struct ptd_iblock b[PTD_ICHAIN_MAX];
	struct sthread *th = ev->tid ? ptd__ses_thread_by_tid(s, ev->tid) : ptd__ses_cur_thread(s);
	int n, skip = 0;

	/* (gdb keeps inline state for the thread that stopped only) */
	for (int i = 0; i < s->nth; i++)
		s->th[i].inl_skip = 0;
	if (!th)
		return;
	th->inl_pc = ev->pc;
	if (!ev->pc)
		return;
	switch (ev->kind) {
	case PTD_EVENT_EXITED:
	case PTD_EVENT_KILLED:
	case PTD_EVENT_NO_HISTORY: /* gdb's no-history stop keeps no inline state */
		return;
	default:
		break;
	}
	if (s->inl_motion == PTD_MOTION_STEPI || s->inl_motion == PTD_MOTION_NEXTI)
		return; /* gdb does not look for inlined calls after stepi */
	n = ptd__ses_env_inline_chain(s, ev->pc, b, PTD_ICHAIN_MAX);
	if (n <= 0)
		return;
	if (ev->kind == PTD_EVENT_BREAKPOINT) {
		/* A user breakpoint stops in the function it names, or at the
		 * innermost one for an address or a line (the breakpoints of
		 * the stop: ptd__ses_bp_note_stop). */
		if (!s->stop_inner && s->stop_func)
			for (; skip < n && b[skip].starts && strcmp(b[skip].name, s->stop_func);
			     skip++)
				;
	} else if (s->adv_places_on && ptd__ses_adv_at(s, ev->pc)) {
		skip = 0;
	} else if (s->inl_override >= 0) {
		skip = s->inl_override < n ? s->inl_override : n;
	} else {
		for (; skip < n && b[skip].starts; skip++)
			;
	}
	th->inl_skip = skip;
}

int ptd_session_inline_skipped(struct ptd_session *s)
{
	struct sthread *th;
	uint64_t pc;

	if (!s)
		return -ptde_invalid;
	th = ptd__ses_cur_thread(s);
	if (!th || ptd_session_pc(s, &pc) < 0) {
		ptd_clear_error();
		return 0;
	}
	return th->inl_pc == pc ? th->inl_skip : 0;
}

/*
 * Before motion @m of thread @th: `step` (either direction) with skipped
 * inline frames goes into the innermost of them and stops (filling @ev,
 * returns 1); otherwise the stepping rules get the frame shown at the
 * start, and finish knows which frame it finishes (an inline one, or
 * an outer real one: ptd_session_finish_frame()), returns 0; <0 when
 * that frame cannot be finished.
 */
int ptd__ses_inline_prepare(struct ptd_session *s, struct sthread *th, enum ptd_motion m,
			    int reverse, struct ptd_event *ev)
{
	struct ptd_iblock b[PTD_ICHAIN_MAX];
	uint64_t pc = 0;
	int skip, n;

	s->senv.base.inline_chain = ptd__ses_env_inline_chain;
	s->senv.base.start_skip = 0;
	s->senv.base.finish_inline = 0;
	s->inl_motion = m;
	s->inl_override = -1;
	if (ptd_session_pc(s, &pc) < 0) {
		ptd_clear_error();
		return 0;
	}
	skip = th->inl_pc == pc ? th->inl_skip : 0;
	if (m == PTD_MOTION_STEP && skip > 0) {
		uint64_t count = ptd_history_count(th->h);

		th->inl_skip = skip - 1;
		memset(ev, 0, sizeof(*ev));
		ev->kind = PTD_EVENT_STEPPED;
		ev->tid = th->tid;
		ev->thread_num = th->num;
		ev->pc = pc;
		ev->replaying = th->pos != 0;
		ev->number = th->pos ? th->pos : count;
		ev->new_frame = 1;
		{
			struct ptd_line_info li;

			ev->at_line_start = ptd__ses_env_line_of(s, pc, &li) == 0 && li.lo == pc &&
					    li.is_stmt;
		}
		return 1;
	}
	s->senv.base.start_skip = skip;
	s->senv.base.finish_real = 0;
	s->senv.base.finish_pc = 0;
	n = ptd__ses_env_inline_chain(s, pc, b, PTD_ICHAIN_MAX);
	if (n < skip)
		n = skip;
	if (m == PTD_MOTION_FINISH) {
		int real = s->fin_sel_real > 0 ? s->fin_sel_real : 0;
		int k = s->fin_sel_real >= 0 && s->fin_sel_k > 0 ? s->fin_sel_k : 0;

		if (real == 0) {
			/* frame 0's real frame: an inlined frame shown there
			 * (k < its inlined frames shown), or the real one */
			s->senv.base.finish_inline = k < n - skip ? k + 1 : 0;
		} else {
			/* (the frames up to the selected one, however deep) */
			uint64_t *pcs = real >= 0 && real < INT32_MAX
						? malloc((size_t)(real + 1) * sizeof(*pcs))
						: NULL;
			int nf = pcs ? ptd_session_backtrace(s, pcs, real + 1) : 0, ni = 0;
			uint64_t fpc = nf > real ? pcs[real] : 0;

			free(pcs);
			ptd_clear_error();
			if (nf > real)
				ni = ptd__ses_env_inline_chain(s, fpc - 1, b, PTD_ICHAIN_MAX);
			if (nf <= real)
				return ptd__err(-ptde_invalid, "No frame at level %d.", real);
			/* reverse-finish of a real frame runs back to the
			 * innermost frame's entry whichever frame is selected,
			 * as gdb's finish_backward; of an inlined one it steps
			 * back out of that frame into its caller (gdb's finish
			 * of an INLINE_FRAME, either direction) */
			if (reverse && k >= ni)
				return 0;
			s->senv.base.finish_real = real;
			/* an inlined call's frame there: its caller steps on */
			s->senv.base.finish_inline = k < ni ? k + 1 : 0;
			s->senv.base.finish_pc = fpc - 1;
		}
	}
	return 0;
}

int ptd_session_finish_frame(struct ptd_session *s, int real, int inline_k)
{
	if (!s || real < 0 || inline_k < 0)
		return -ptde_invalid;
	s->fin_sel_real = real;
	s->fin_sel_k = inline_k;
	return 0;
}
