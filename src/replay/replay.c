/*
 * Motions over the recorded history (stepi, nexti, step, next, finish,
 * continue; forward and reverse) and backtraces in the past.
 *
 * Every motion walks the history one instruction at a time with a cursor,
 * tracking the function-call segment of the position, and asks a per-motion
 * goal predicate at each arrival; breakpoints, gaps and the two ends are
 * checked first.  Frames are compared through the call segments (level and
 * function instance), never through names, so recursion is stepped over
 * correctly.  The line rules are gdb 13's (checked against its `record
 * full` on this machine): stepping ranges are line-table rows; forward,
 * stop at the start of an is_stmt row of a different line, refresh the
 * range on a mid-row arrival; reverse, stop when the start of the current
 * row is reached (except at a function entry, or the start of a part of
 * the function elsewhere: go on into what ran before).
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "history/history_int.h"
#include "replay/replay.h"
#include "util/error.h"

struct walker {
	const struct ptd_history *h;
	const struct ptd_calls *calls;
	const struct ptd_replay_env *env;
	struct ptd_hcursor c;
	const struct ptd_callseg *s;
	uint64_t count;
	int has_tail;
	int reverse;
};

static const struct ptd_callseg null_seg;

static void track_seg(struct walker *w)
{
	const struct ptd_callseg *s = w->s;
	uint64_t n = w->c.number;

	if (w->env && w->env->at)
		*w->env->at = n;
	if (!w->calls) {
		w->s = &null_seg;
		return;
	}
	if (s && s != &null_seg) {
		/* Usually the neighbour (or after empty segments). */
		int i;

		for (i = 0; i < 8 && s; i++) {
			if (n >= s->first && n <= s->last)
				break;
			s = ptd_calls_get(w->calls, n > s->last ? s->index + 1 : s->index - 1);
		}
		if (s && n >= s->first && n <= s->last) {
			w->s = s;
			return;
		}
	}
	s = ptd_calls_find(w->calls, n);
	w->s = s ? s : &null_seg;
}

static int move1(struct walker *w)
{
	int rc = w->reverse ? ptd_hcursor_prev(&w->c) : ptd_hcursor_next(&w->c);

	if (rc < 0)
		return rc;
	track_seg(w);
	return 0;
}

static int is_bp(const struct walker *w, uint64_t ip, int *id)
{
	*id = 0;
	if (!w->env || !w->env->is_breakpoint || !ip)
		return 0;
	return w->env->is_breakpoint(w->env->ctx, ip, id) != 0;
}

static int in_tramp(const struct walker *w, uint64_t ip)
{
	return w->env && w->env->in_trampoline && ip && w->env->in_trampoline(w->env->ctx, ip);
}

static int line_of(const struct walker *w, uint64_t ip, struct ptd_line_info *li)
{
	if (!w->env || !w->env->line_of || !ip)
		return -1;
	memset(li, 0, sizeof(*li));
	if (w->env->line_of(w->env->ctx, ip, li) < 0)
		return -1;
	if (li->line <= 0)
		return -1;
	return 0;
}

static int line_differs(const struct ptd_line_info *a, const struct ptd_line_info *b)
{
	if (a->line != b->line)
		return 1;
	if (a->file && b->file && a->file != b->file && strcmp(a->file, b->file))
		return 1;
	return 0;
}

static int in_range(uint64_t ip, const struct ptd_line_info *li)
{
	return ip >= li->lo && ip < li->hi;
}

/* Entry of the function containing @ip at segment @s, or 0. */
static uint64_t func_entry(const struct walker *w, const struct ptd_callseg *s, uint64_t ip)
{
	const struct ptd_callseg *first;

	if (w->env && w->env->func_of)
		return w->env->func_of(w->env->ctx, ip);
	first = w->calls ? ptd_calls_get(w->calls, s->instance) : NULL;
	if (first && (first->how == PTD_SEG_CALL || first->how == PTD_SEG_TAILCALL))
		return first->ip;
	return 0;
}

/* The function the C++ thunk at @entry leads to, or 0 (no thunk). */
static int skipped(const struct walker *w, uint64_t ip)
{
	return w->env && w->env->skipped && ip && w->env->skipped(w->env->ctx, ip);
}

static uint64_t thunk_target(const struct walker *w, uint64_t entry)
{
	if (w->env && w->env->thunk_target)
		return w->env->thunk_target(w->env->ctx, entry);
	return 0;
}

/* Start of the range of the function at @ip that holds @ip (a .cold part
 * has its own), or 0: gdb's stop_func_start, where reverse stepping does
 * not stop at the start of a row but goes on back into what ran before. */
static uint64_t range_start(const struct walker *w, const struct ptd_callseg *s, uint64_t ip)
{
	if (w->env && w->env->range_start)
		return w->env->range_start(w->env->ctx, ip);
	return func_entry(w, s, ip);
}

/*
 * Where gdb stops when `step` enters the function at @entry: after
 * endbr64/push %rbp/mov %rsp,%rbp when the function sets up a frame (in
 * 32-bit code endbr32/push %ebp/mov %esp,%ebp), moved
 * on to the end of the line-table row when that is mid-row; the entry when
 * the function is frameless.  Returns 0 when @entry has no line info (the
 * function is stepped over).
 */
static uint64_t step_into_target(const struct walker *w, uint64_t entry)
{
	struct ptd_line_info li;
	uint8_t b[8];
	uint64_t p = entry;
	int n, off = 0;

	if (line_of(w, entry, &li) < 0)
		return 0;
	memset(b, 0, sizeof(b));
	n = ptd__history_read(w->h, entry, b, sizeof(b));
	if (w->c.mode == PTD_MODE_64) {
		if (n >= 4 && b[0] == 0xf3 && b[1] == 0x0f && b[2] == 0x1e && b[3] == 0xfa)
			off = 4;
		if (n >= off + 4 && b[off] == 0x55 &&
		    ((b[off + 1] == 0x48 && b[off + 2] == 0x89 && b[off + 3] == 0xe5) ||
		     (b[off + 1] == 0x48 && b[off + 2] == 0x8b && b[off + 3] == 0xec)))
			p = entry + off + 4;
		else
			return entry;
	} else {
		/* (16-bit code: push %bp; mov %sp,%bp has the same bytes) */
		if (n >= 4 && b[0] == 0xf3 && b[1] == 0x0f && b[2] == 0x1e && b[3] == 0xfb)
			off = 4;
		if (n >= off + 3 && b[off] == 0x55 &&
		    ((b[off + 1] == 0x89 && b[off + 2] == 0xe5) ||
		     (b[off + 1] == 0x8b && b[off + 2] == 0xec)))
			p = entry + off + 3;
		else
			return entry;
	}
	if (line_of(w, p, &li) < 0)
		return p;
	if (li.lo != p && li.hi > p)
		return li.hi;
	return p;
}

/* Instance of the function that really called @s's frame (tail-call
 * links skipped), or 0. */
static uint64_t caller_inst(const struct walker *w, const struct ptd_callseg *s)
{
	const struct ptd_callseg *up;
	int i;

	for (i = 0; s && s->up_is_tail && i < 1 << 20; i++)
		s = ptd_calls_get(w->calls, s->up);
	up = s && s->up ? ptd_calls_get(w->calls, s->up) : NULL;
	return up ? up->instance : 0;
}

/* Level of the frame a longjmp-like jump landing at the current position
 * unwound to, or INT_MAX when the position is no such landing. */
static int landing_level(const struct walker *w)
{
	const struct ptd_callseg *s = w->s, *a;

	if (s->how != PTD_SEG_SWITCH || !s->unwound_to || w->c.number != s->first)
		return INT_MAX;
	a = ptd_calls_get(w->calls, s->unwound_to);
	return a ? a->level : INT_MAX;
}

/* Whether reverse stepping just went back over a longjmp-like landing
 * (@prev, the segment of the instruction after the current one) into the
 * jump that made it. */
static int back_over_landing(const struct walker *w, const struct ptd_callseg *prev)
{
	return prev && prev != w->s && prev->how == PTD_SEG_SWITCH && prev->unwound_to &&
	       prev->first == w->c.number + 1;
}

void ptd__vis_at(const struct ptd_replay_env *env, uint64_t pc, int skip, struct ptd__vis *v)
{
	v->n = 0;
	if (env && env->inline_chain && pc)
		v->n = env->inline_chain(env->ctx, pc, v->b, PTD_ICHAIN_MAX);
	if (v->n < 0)
		v->n = 0;
	if (skip < 0)
		for (skip = 0; skip < v->n && v->b[skip].starts; skip++)
			;
	if (skip > v->n)
		skip = v->n;
	v->skip = skip;
	v->depth = v->n - skip;
	v->entry = skip < v->n ? v->b[skip].entry : 0;
}

static int same_file(const char *a, const char *b)
{
	if (a == b)
		return 1;
	return a && b && !strcmp(a, b);
}

struct stepstate {
	enum ptd_motion m;
	int level;
	uint64_t inst;
	/* the frame being stepped among inline frames (struct ptd__vis) */
	int vdepth;
	uint64_t ventry;
	int stop_skip;
	/* gdb's step_frame_id: the frame the step started in, as refreshed
	 * by the line rules only (not by entering a callee); a stop in
	 * another frame prints the frame line */
	int pf_level, pf_vdepth;
	uint64_t pf_inst, pf_ventry;
	int has_line;
	struct ptd_line_info li;
	int into;
	uint64_t into_target;
	int into_level;
	/* into a C++ thunk: the target is reached in whatever frame (gdb's
	 * step-resume breakpoint without a frame: the thunk jumps to the
	 * function, or calls it to adjust what it returns) */
	int into_any;
	int prev_level;
	const struct ptd_callseg *prev_seg;
	/* Forward next/step/nexti over a call made in the frame being
	 * stepped: its return address and the frame's level (over_step) */
	uint64_t over_ret;
	int over_level;
	int over_gone, over_landed;
	/* the instruction before the current one (for over_start) */
	uint64_t p_ip, p_inst;
	int p_len, p_class, p_level;
	/* step into longjmp: gdb lost it (live.c's longjmp_lost), the
	 * motion runs on as a continue */
	int free_run;
	/* reverse step entered a callee through its return and runs back
	 * to the start of that row (goal_step_rev) */
	int rev_into;
};

/*
 * gdb steps over a call with a breakpoint at its return address that
 * checks the frame (its step-resume breakpoint, in record full's replay as
 * live): the step over ends there, whatever ran in between.  A longjmp or
 * a C++ catch that lands in the frame being stepped runs on until the code
 * gets back to the return address (a catch jumping back after the call);
 * one that lands in an outer frame never does: the motion runs on to a
 * breakpoint or the end of the history, as gdb's.  Returns 1 while such a
 * landing keeps the step over going (nothing else stops the motion), 0
 * otherwise (inside the callee the usual rules step over it, or on into
 * the function a stub jumps to; back at the return address they go on).
 */
static int over_step(const struct walker *w, struct stepstate *st)
{
	const struct ptd_callseg *s = w->s;
	int lv;

	if (!st->over_ret)
		return 0;
	lv = landing_level(w);
	if (lv < st->over_level)
		st->over_gone = 1;
	else if (lv == st->over_level)
		st->over_landed = 1;
	if (st->over_gone)
		return 1;
	if (s->level <= st->over_level && (w->c.ip == st->over_ret || !st->over_landed)) {
		st->over_ret = 0;
		st->over_landed = 0;
		return 0;
	}
	return st->over_landed;
}

/* The instruction just left (@ip, @len, @iclass, at @level of frame
 * @inst) was a call from the frame being stepped into a deeper one: the
 * step over it starts (over_step). */
static void over_start(const struct walker *w, struct stepstate *st, int frame_level,
		       uint64_t frame_inst)
{
	if (st->over_ret || st->p_class != PTD_IC_CALL || !st->p_len || w->s->level <= st->p_level ||
	    st->p_level != frame_level || (frame_inst && st->p_inst != frame_inst))
		return;
	st->over_ret = st->p_ip + (uint64_t)st->p_len;
	st->over_level = st->p_level;
	st->over_gone = 0;
	st->over_landed = 0;
}

/*
 * The line rules shared by both directions once the position is outside
 * the stepping range and not in a callee (gdb's process_event_stop_test):
 * stop where there is no line info, or at the start of an is_stmt row of
 * another line; a non-statement row start only moves the range (and
 * forgets the line when the frame changed, so that the next statement
 * stops); anywhere else the row becomes the range, its line the line being
 * stepped and the frame the one being stepped.  Returns 1 to stop.
 */
/* gdb's set_step_info: the frame being stepped becomes @s's (the inline
 * frame @v shows there). */
static void set_step_frame(struct stepstate *st, const struct ptd_callseg *s, const struct ptd__vis *v)
{
	st->pf_level = st->level = s->level;
	st->pf_inst = st->inst = s->instance;
	st->pf_vdepth = st->vdepth = v ? v->depth : 0;
	st->pf_ventry = st->ventry = v ? v->entry : 0;
}

static int line_rules(struct walker *w, struct stepstate *st, int same_frame,
		      const struct ptd__vis *v)
{
	const struct ptd_callseg *s = w->s;
	uint64_t ip = w->c.ip;
	struct ptd_line_info li;

	if (line_of(w, ip, &li) < 0)
		return 1;
	if (ip == li.lo && (!st->has_line || line_differs(&li, &st->li))) {
		if (li.is_stmt)
			return 1;
		st->li.lo = li.lo;
		st->li.hi = li.hi;
		if (!same_frame) {
			st->li.line = 0;
			st->li.file = NULL;
			set_step_frame(st, s, v);
		}
		st->has_line = 1;
		return 0;
	}
	st->li = li;
	st->has_line = 1;
	set_step_frame(st, s, v);
	return 0;
}

/* Whether the frame being stepped is a caller of the inline frame @v
 * shows, in the same real frame (gdb's stepped_in_from). */
static int stepped_in_from(const struct ptd__vis *v, const struct stepstate *st)
{
	if (st->vdepth >= v->depth)
		return 0;
	if (st->vdepth == 0)
		return 1;
	return v->b[v->skip + (v->depth - st->vdepth)].entry == st->ventry;
}

/*
 * gdb's rules for inline frames, then the line rules, once the position
 * is out of the stepping range and not in a callee (process_event_stop_
 * test's "calls to inlined functions", parts one and two): where inlined
 * calls start in the very frame being stepped (gdb compares frame ids,
 * the inline depth and block included), `step` stops at the call
 * site (going into the inlined function at once when the call site is
 * the line being stepped) and `next` goes on when the call site is that
 * line; inside an inline frame called from the frame being stepped,
 * `step` stops and `next` goes on.  @same_real: the real frame is the
 * one being stepped.
 */
static int inline_rules(struct walker *w, struct stepstate *st, int same_real)
{
	struct ptd_line_info li;
	struct ptd__vis v;

	if (line_of(w, w->c.ip, &li) < 0)
		return 1;
	ptd__vis_at(w->env, w->c.ip, -1, &v);
	if (same_real && v.skip > 0 && v.depth == st->vdepth && v.entry == st->ventry) {
		const struct ptd_iblock *c = &v.b[v.skip - 1];
		int same_line = c->call_line == st->li.line && same_file(c->call_file, st->li.file);

		if (st->m == PTD_MOTION_STEP) {
			if (same_line)
				st->stop_skip = v.skip - 1;
			return 1;
		}
		return !same_line;
	}
	if (same_real && v.depth > 0 && (v.depth != st->vdepth || v.entry != st->ventry) &&
	    stepped_in_from(&v, st))
		return st->m == PTD_MOTION_STEP;
	return line_rules(w, st, same_real && v.depth == st->vdepth && v.entry == st->ventry, &v);
}

/* `step` entered longjmp at @ip, whose stop address is that entry: gdb 13
 * loses the step there and runs on (live.c's longjmp_lost, the same rule
 * live). */
static int longjmp_lost(const struct walker *w, const struct stepstate *st, uint64_t ip)
{
	const struct ptd_replay_env *env = w->env;

	return st->m == PTD_MOTION_STEP && env && env->is_longjmp && env->is_longjmp(env->ctx, ip);
}

static int goal_step_fwd(struct walker *w, struct stepstate *st)
{
	const struct ptd_callseg *s = w->s;
	uint64_t ip = w->c.ip;
	int same;

	if (st->free_run)
		return 0;
	if (st->into && st->into_any)
		/* gdb's step-resume breakpoint at a C++ thunk's target is no
		 * stop of the thunk's frame: gdb runs on until the target is
		 * reached wherever, also after the thunk returned without going
		 * there (a thunk with its target's code inlined), through
		 * whatever lands where (a C++ catch), to a breakpoint or the end
		 * of the history (live, the exit). */
		return ip == st->into_target;
	if (s->how == PTD_SEG_SIGTRAMP && s->level >= st->level)
		return 0; /* gdb steps through signal trampolines */
	if (!st->into && over_step(w, st))
		return 0;
	if (landing_level(w) <= st->level)
		return 1; /* a longjmp out of the frame: gdb stops where it lands */
	if (st->into) {
		/* Running to the post-prologue address (gdb's step-resume
		 * breakpoint in the function stepped into). */
		if (s->level > st->into_level)
			return 0;
		if (s->level == st->into_level)
			return ip == st->into_target;
		st->into = 0; /* returned before reaching it: go on in the caller */
	}
	if (s->how == PTD_SEG_TAILCALL && w->c.number == s->first && s->level == st->level + 1 &&
	    ptd_calls_get(w->calls, s->up) && ptd_calls_get(w->calls, s->up)->instance == st->inst) {
		/* The frame being stepped jumped to another function: for
		 * gdb that is the same frame depth with another function, not
		 * a callee; the line rules apply (no lines: stop).  `step`
		 * goes on through a PLT stub or the dynamic linker (and the
		 * function they jump to is judged the same way). */
		if (st->m == PTD_MOTION_STEP && in_tramp(w, ip)) {
			st->level = s->level;
			st->inst = s->instance;
			st->vdepth = 0;
			st->ventry = 0;
			return 0;
		}
		return line_rules(w, st, 0, NULL);
	}
	if (s->level > st->level) {
		/* A function called from the frame being stepped, directly
		 * or through tail calls (PLT stubs jump to the function). */
		if (st->m == PTD_MOTION_STEP && w->c.number == s->first &&
		    (s->how == PTD_SEG_CALL || s->how == PTD_SEG_TAILCALL) &&
		    caller_inst(w, s) == st->inst && !in_tramp(w, ip)) {
			uint64_t to = thunk_target(w, ip);
			uint64_t t = skipped(w, to ? to : ip) ? 0 : step_into_target(w, to ? to : ip);

			if (t) {
				if (t == ip && longjmp_lost(w, st, ip)) {
					st->free_run = 1;
					return 0;
				}
				if (t == ip)
					return 1;
				st->into = 1;
				st->into_target = t;
				st->into_level = s->level;
				st->into_any = to != 0;
			}
		}
		if (!st->into)
			over_start(w, st, st->level, st->inst);
		return 0; /* stepped over until it returns */
	}
	same = s->level == st->level && s->instance == st->inst;
	if (!st->has_line && same)
		return 0; /* stepping until exit from a function without lines */
	if (st->has_line && in_range(ip, &st->li))
		return 0;
	if (in_tramp(w, ip))
		return 0; /* through the dynamic linker to the function */
	return inline_rules(w, st, same);
}

static int goal_step_rev(struct walker *w, struct stepstate *st)
{
	const struct ptd_callseg *s = w->s;
	uint64_t ip = w->c.ip;
	struct ptd_line_info li;
	int prev = st->prev_level, same;
	/* Left a tail-called function backward into the one that jumped to
	 * it, or the trampoline into the handler: gdb sees a new callee of
	 * the stepping frame there too (e.g. g jumping to h without lines). */
	int from_tail = st->prev_seg && st->prev_seg != s &&
			((st->prev_seg->how == PTD_SEG_TAILCALL && st->prev_seg->up == s->index) ||
			 (st->prev_seg->how == PTD_SEG_SIGTRAMP && st->prev_seg->level == s->level));

	int landing = back_over_landing(w, st->prev_seg);

	st->prev_level = s->level;
	st->prev_seg = s;
	if (landing && prev <= st->level &&
	    (s->level > st->level || (s->level == st->level && s->instance != st->inst)))
		/* gdb's record full sees the jump (its stack already the
		 * landing frame's) as another function of the frame being
		 * stepped: the line rules decide, as for a jump between
		 * functions, and the frame becomes the jumper's.  A landing
		 * in a callee of that frame (an exception caught inside the
		 * function stepped over) is inside the call, as for gdb. */
		return line_rules(w, st, 0, NULL);
	if (s->how == PTD_SEG_SIGTRAMP && s->level >= st->level)
		return 0; /* gdb steps through signal trampolines */
	if (in_tramp(w, ip))
		return 0; /* and back through PLT stubs and the dynamic linker */
	if (s->level > st->level) {
		if (st->m == PTD_MOTION_STEP && st->rev_into && (prev <= st->level || from_tail) &&
		    w->c.number == s->last && caller_inst(w, s) == st->inst) {
			/* Back into a callee of the callee stepped into
			 * backward (a destructor's free): for gdb, whose frame
			 * being stepped is still the caller's, that is no
			 * callee of it but another frame, and the line rules
			 * decide (no line info stops, a row that is no
			 * statement moves the range, the frame becomes this
			 * one). */
			st->rev_into = 0;
			return line_rules(w, st, 0, NULL);
		}
		/* Back into a callee through its return: step enters it when
		 * it has line info (at the start of the row of the return). */
		if (st->m == PTD_MOTION_STEP && (prev <= st->level || from_tail) &&
		    w->c.number == s->last && caller_inst(w, s) == st->inst &&
		    line_of(w, ip, &li) == 0 && !skipped(w, ip)) {
			st->level = s->level;
			st->inst = s->instance;
			st->vdepth = 0;
			st->ventry = 0;
			st->rev_into = 1;
			st->li = li;
			st->has_line = 1;
			return ip == li.lo;
		}
		return 0; /* back to the call */
	}
	same = s->level == st->level && s->instance == st->inst;
	if (!st->has_line && same)
		return 0;
	if (st->rev_into && same && in_range(ip, &st->li))
		/* In the callee stepped into backward, gdb's frame being
		 * stepped is still the caller's (handle_step_into_function_
		 * backward moves only the range): whatever inline frame the
		 * position shows, it stops at the start of the row. */
		return ip == st->li.lo;
	st->rev_into = 0;
	if (st->has_line && same && in_range(ip, &st->li)) {
		/* Backward, gdb's "stepping inside range" also wants the
		 * frame being stepped, inline frames included: back at the
		 * start of an inlined call (its frame hidden there, as at any
		 * stop) the position is the caller's, and the line rules
		 * decide (the row becomes the range, the caller's frame the
		 * one being stepped). */
		struct ptd__vis v;

		ptd__vis_at(w->env, ip, -1, &v);
		if (v.depth == st->vdepth && v.entry == st->ventry)
			return ip == st->li.lo && ip != range_start(w, s, ip);
	}
	return inline_rules(w, st, same);
}

static void set_res(struct ptd_replay_result *res, const struct walker *w,
		    enum ptd_replay_stop stop)
{
	res->stop = stop;
	res->number = w->c.number;
	res->ip = w->c.is_gap ? 0 : w->c.ip;
}

/* What a motion that reached the tail still has to do (see replay.h). */
static void pending_state(struct ptd_replay_result *res, const struct walker *w,
			  const struct stepstate *st, enum ptd_motion m, int start_level)
{
	int lv = w->s->level;

	switch (m) {
	case PTD_MOTION_FINISH:
		res->returns = lv - start_level + 1;
		break;
	case PTD_MOTION_NEXTI:
		res->returns = lv - start_level;
		break;
	case PTD_MOTION_STEP:
	case PTD_MOTION_NEXT:
		if (st->into) {
			res->into_pc = st->into_target;
			res->returns = lv - st->into_level;
		} else {
			res->returns = lv - st->level;
		}
		if (st->has_line)
			res->range = st->li;
		break;
	default:
		break;
	}
	if (res->returns < 0)
		res->returns = 0;
}

uint64_t ptd_replay_first_insn(const struct ptd_history *h)
{
	struct ptd_hcursor c;

	if (!h || ptd_hcursor_goto(&c, h, 1) < 0)
		return 0;
	while (c.is_gap)
		if (ptd_hcursor_next(&c) < 0)
			return 0;
	return c.number;
}

static uint64_t first_insn(const struct ptd_history *h)
{
	uint64_t n = ptd_replay_first_insn(h);

	ptd_clear_error();
	return n ? n : 1;
}

int ptd_replay_move(const struct ptd_history *h, const struct ptd_calls *calls, uint64_t from,
		    enum ptd_motion m, int reverse, const struct ptd_replay_env *env,
		    struct ptd_replay_result *res)
{
	struct walker w;
	struct stepstate st;
	uint64_t last_real, first_real, fin_entry = 0;
	int start_level, rev_finish_level, rc, fin_armed = 0, fin_tramp = 0;
	int fin_inline = 0;
	uint64_t start_func = 0;

	if (!h || !res)
		return ptd__err(-ptde_invalid, "no history or result");
	memset(res, 0, sizeof(*res));
	if (m != PTD_MOTION_STEPI && m != PTD_MOTION_CONTINUE && !calls)
		return ptd__err(-ptde_invalid, "this motion needs the function-call segments");
	if (m > PTD_MOTION_CONTINUE)
		return ptd__err(-ptde_invalid, "unknown motion %d", (int)m);
	memset(&w, 0, sizeof(w));
	w.h = h;
	w.calls = calls;
	w.env = env;
	w.reverse = reverse;
	w.count = ptd_history_count(h);
	w.has_tail = ptd_history_tail(h) != 0;
	if (from < 1 || from > w.count)
		return ptd__err(-ptde_invalid, "position %lu is outside the history (1..%lu)",
				(unsigned long)from, (unsigned long)w.count);
	rc = ptd_hcursor_goto(&w.c, h, from);
	if (rc < 0)
		return rc;
	track_seg(&w);
	start_level = w.s->level;
	if (m == PTD_MOTION_FINISH && !reverse && env && env->finish_real > 0 &&
	    !env->finish_inline)
		start_level -= env->finish_real; /* finishing an outer real frame */
	{
		/* reverse-finish by frames (no function entry known) goes back
		 * to the call in the caller: a function reached by jumps (a PLT
		 * stub, the dynamic linker, a tail call) replaced the frames of
		 * the jumpers, which gdb's unwinder never sees. */
		const struct ptd_callseg *r = w.s;
		int k;

		for (k = 0; r && r->up_is_tail && r->up && k < 1 << 20; k++)
			r = ptd_calls_get(calls, r->up);
		rev_finish_level = r ? r->level : start_level;
	}
	last_real = w.c.is_gap ? 0 : from;
	first_real = first_insn(h);

	/* reverse-finish as gdb 13 does it: a step-resume breakpoint at the
	 * entry of the current function, for any frame, then one step more
	 * back, onto the call.  In a recursion that is the most recent entry
	 * of the function, whichever invocation it was (gdb's record full and
	 * its record btrace through ptdbg-server agree), not necessarily the
	 * call of the current frame.  The entry is that of the range holding
	 * the pc (gdb's find_pc_partial_function): in a .cold part its start,
	 * so the step back goes onto the jump in the hot part that led there.
	 * Without an entry, by frames. */
	if (m == PTD_MOTION_FINISH && reverse && !w.c.is_gap && w.c.ip) {
		fin_entry = range_start(&w, w.s, w.c.ip);
		fin_armed = fin_entry && w.c.ip == fin_entry;
	}

	memset(&st, 0, sizeof(st));
	st.m = m;
	st.level = w.s->level;
	st.inst = w.s->instance;
	st.prev_level = st.level;
	/* the segment of the start: a reverse motion starting right at a
	 * longjmp landing or at the entry of a tail-called function leaves it
	 * with its first step (goal_step_rev) */
	st.prev_seg = w.s;
	st.stop_skip = -1;
	if (!w.c.is_gap && line_of(&w, w.c.ip, &st.li) == 0)
		st.has_line = 1;
	if (!w.c.is_gap) {
		/* the frame shown at the start, among inline frames */
		struct ptd__vis v;

		ptd__vis_at(w.env, w.c.ip, env ? env->start_skip : 0, &v);
		st.vdepth = v.depth;
		st.ventry = v.entry;
		if (v.skip > 0 && st.has_line) {
			/* the line being stepped is the shown frame's: the call
			 * site of the inlined calls not entered yet (gdb's
			 * find_frame_sal); the range stays the pc's row */
			st.li.line = v.b[v.skip - 1].call_line;
			st.li.file = v.b[v.skip - 1].call_file;
		}
		if (m == PTD_MOTION_FINISH && env && env->finish_inline > 0 && env->finish_real > 0 &&
		    env->finish_pc) {
			/* an inlined frame of an outer real frame: `next` in
			 * its caller's frame there, the callees run through
			 * (backward too: reverse-finish with it selected) */
			const struct ptd_callseg *r = w.s;
			struct ptd__vis o;
			int up = env->finish_inline, k;

			for (k = 0; r && k < env->finish_real; k++) {
				int j;

				for (j = 0; r->up_is_tail && r->up && j < 1 << 20; j++)
					r = ptd_calls_get(calls, r->up);
				r = r->up ? ptd_calls_get(calls, r->up) : NULL;
			}
			ptd__vis_at(w.env, env->finish_pc, 0, &o);
			if (r && o.depth - (up - 1) > 0) {
				m = st.m = PTD_MOTION_NEXT;
				st.level = r->level;
				st.inst = r->instance;
				st.vdepth = o.depth - up;
				st.ventry = up < o.n ? o.b[up].entry : 0;
				memset(&st.li, 0, sizeof(st.li));
				st.has_line = 1;
				fin_inline = 1;
			}
		} else if (m == PTD_MOTION_FINISH && env && env->finish_inline > 0 &&
			   v.depth - (env->finish_inline - 1) > 0) {
			/* gdb's finish out of an inline frame: `next` in the
			 * caller's frame with an empty range and no line */
			int up = v.skip + env->finish_inline;

			m = st.m = PTD_MOTION_NEXT;
			st.vdepth = v.depth - env->finish_inline;
			st.ventry = up < v.n ? v.b[up].entry : 0;
			memset(&st.li, 0, sizeof(st.li));
			st.has_line = 1;
			fin_inline = 1;
		}
	}
	start_func = w.c.is_gap ? 0 : func_entry(&w, w.s, w.c.ip);
	st.pf_level = st.level;
	st.pf_inst = st.inst;
	st.pf_vdepth = st.vdepth;
	st.pf_ventry = st.ventry;

	for (;;) {
		int done = 0, bp, id;
		st.p_ip = w.c.ip;
		st.p_inst = w.s->instance;
		st.p_len = w.c.is_gap ? 0 : w.c.len;
		st.p_class = w.c.iclass;
		st.p_level = w.s->level;
		rc = move1(&w);
		if ((rc == -ptde_eos || rc == -ptde_bos) && w.c.is_gap && last_real) {
			/* Only gaps up to the end: back to the last instruction,
			 * as gdb does (it never stops at a gap). */
			if (ptd_hcursor_goto(&w.c, h, last_real) == 0)
				track_seg(&w);
		}
		if (rc == -ptde_eos) {
			set_res(res, &w, PTD_REPLAY_END);
			res->incomplete = 1;
			pending_state(res, &w, &st, m, start_level);
			goto out;
		}
		if (rc == -ptde_bos) {
			set_res(res, &w, PTD_REPLAY_BEGIN);
			goto out;
		}
		if (rc < 0) {
			set_res(res, &w, PTD_REPLAY_ERROR);
			goto out;
		}
		/* gdb's record btrace steps over gaps (trace lost to an
		 * overflow or a decode error): execution goes on at the next
		 * instruction on the other side. */
		if (w.c.is_gap) {
			if (!res->gaps_crossed++) {
				res->first_gap = w.c.number;
				res->first_gap_reason = w.c.gap_reason;
			}
			continue;
		}
		last_real = w.c.number;
		bp = is_bp(&w, w.c.ip, &id);
		if (!reverse && m == PTD_MOTION_NEXTI && w.c.number == from + 1)
			over_start(&w, &st, start_level, 0);
		switch (m) {
		case PTD_MOTION_STEPI:
			done = 1;
			break;
		case PTD_MOTION_NEXTI:
			if (!reverse && st.over_ret) {
				done = !over_step(&w, &st) && w.s->level <= start_level;
				break;
			}
			done = w.s->level <= start_level ||
			       (!reverse && landing_level(&w) <= start_level);
			break;
		case PTD_MOTION_FINISH:
			if (reverse && fin_tramp) {
				done = !in_tramp(&w, w.c.ip);
				break;
			}
			if (reverse && fin_entry) {
				done = fin_armed; /* one step back from the entry */
				if (done && in_tramp(&w, w.c.ip)) {
					/* The step back from the entry went into a
					 * PLT stub or the dynamic linker, which
					 * jumped to the function: gdb (its reverse
					 * stepping through solib trampolines) goes
					 * on back through them onto the call.  A
					 * jump from a function of the program's (a
					 * tail call) stops there, as one stepi. */
					fin_tramp = 1;
					done = 0;
				}
				fin_armed = w.c.ip == fin_entry;
				break;
			}
			done = w.s->level < (reverse ? rev_finish_level : start_level) ||
			       (!reverse && landing_level(&w) < start_level);
			break;
		case PTD_MOTION_CONTINUE:
			done = 0;
			break;
		case PTD_MOTION_STEP:
		case PTD_MOTION_NEXT:
			done = reverse ? goal_step_rev(&w, &st) : goal_step_fwd(&w, &st);
			break;
		}
		if (!reverse && w.has_tail && w.c.number == w.count) {
			set_res(res, &w, PTD_REPLAY_END);
			res->incomplete = !(done || bp);
			res->bp_id = bp ? id : 0;
			if (res->incomplete)
				pending_state(res, &w, &st, m, start_level);
			goto out;
		}
		if (bp) {
			set_res(res, &w, PTD_REPLAY_BREAKPOINT);
			res->bp_id = id;
			goto out;
		}
		if (reverse && w.c.number <= first_real) {
			set_res(res, &w, PTD_REPLAY_BEGIN);
			goto out;
		}
		if (done) {
			set_res(res, &w, PTD_REPLAY_DONE);
			goto out;
		}
	}
out:
	res->stop_skip = -1;
	res->new_frame = -1;
	if ((st.m == PTD_MOTION_STEP || st.m == PTD_MOTION_NEXT) && !w.c.is_gap && w.c.ip) {
		struct ptd__vis v;

		ptd__vis_at(w.env, w.c.ip, st.stop_skip, &v);
		res->stop_skip = st.stop_skip;
		/* gdb prints the frame line unless the stop is in the frame
		 * being stepped (as refreshed on the way) and in the function
		 * the step started in (print_stop_event; finish of an inline
		 * frame has no such function): in another function always */
		res->new_frame = fin_inline || w.s->level != st.pf_level ||
				 w.s->instance != st.pf_inst || v.depth != st.pf_vdepth ||
				 v.entry != st.pf_ventry || func_entry(&w, w.s, w.c.ip) != start_func;
	}
	return 0;
}

/* The call instruction before return address @ret, found by decoding the
 * usual call lengths (the call itself was not recorded) in the execution
 * mode @mode of the code returned to (the same lengths serve 32-bit code:
 * call rel32, call *%reg, call *disp8(%reg), call *abs32 or *disp32(%reg),
 * call *disp32(,%reg,s); 16-bit: call rel16). */
static uint64_t call_before(const struct ptd_history *h, uint64_t ret, unsigned mode)
{
	static const int lens[] = { 5, 2, 3, 6, 7, 4 };
	struct ptd_insn_info in;
	size_t i;

	for (i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
		if (ret < (uint64_t)lens[i])
			continue;
		if (ptd__history_insn_len_mode(h, ret - lens[i], mode, &in) == lens[i] &&
		    in.iclass == PTD_IC_CALL) {
			ptd_clear_error();
			return ret - lens[i];
		}
	}
	ptd_clear_error();
	return ret;
}

static int entered_by_signal(const struct ptd_calls *calls, const struct ptd_callseg *s)
{
	const struct ptd_callseg *f = ptd_calls_get(calls, s->instance);

	return f && (f->how == PTD_SEG_SIGNAL || f->how == PTD_SEG_SIGTRAMP);
}

int ptd_replay_backtrace(const struct ptd_history *h, const struct ptd_calls *calls,
			 uint64_t number, uint64_t *pcs, int max)
{
	return ptd_replay_backtrace_outer(h, calls, number, NULL, 0, pcs, NULL, max);
}

/* The ip the frame a signal interrupted resumes at: the signal event's
 * (before the handler's first instruction, segment @sig). */
static uint64_t signal_resume_ip(const struct ptd_history *h, const struct ptd_callseg *sig)
{
	struct ptd_hcursor c;
	struct ptd_item ev[8];
	int n, i;

	if (ptd_hcursor_goto(&c, h, sig->first) < 0)
		return 0;
	n = ptd_hcursor_events(&c, ev, 8);
	for (i = n - 1; i >= 0; i--)
		if (ev[i].kind == PTD_ITEM_EVENT && ev[i].reason == PTD_EV_SIGNAL && ev[i].block.ip)
			return ev[i].block.ip;
	return 0;
}

/* Whether the history still starts where the recording started (nothing
 * dropped, no trace lost before its first block), so that its level 0 is
 * the frame the stack at the start describes. */
static int starts_at_record_start(const struct ptd_history *h)
{
	struct ptd_item it;

	if (ptd_history_dropped(h))
		return 0;
	return ptd_history_item(h, 0, &it) == 1 && it.kind != PTD_ITEM_GAP;
}

int ptd_replay_backtrace_outer(const struct ptd_history *h, const struct ptd_calls *calls,
			       uint64_t number, const uint64_t *outer, int nouter, uint64_t *pcs,
			       uint8_t *interrupted, int max)
{
	struct ptd_hcursor c;
	const struct ptd_callseg *s;
	int n = 0;

	if (!h || !calls || !pcs || max <= 0)
		return ptd__err(-ptde_invalid, "bad backtrace arguments");
	if (ptd_hcursor_goto(&c, h, number) < 0)
		return ptd__err(-ptde_invalid, "position %lu is outside the history",
				(unsigned long)number);
	if (interrupted)
		memset(interrupted, 0, (size_t)max);
	pcs[n++] = c.ip;
	s = ptd_calls_find(calls, number);
	while (s && n < max) {
		const struct ptd_callseg *u;
		int k;

		/* A function reached by a jump (a tail call, a PLT stub
		 * jumping to the dynamic linker and on to the function) has
		 * replaced the jumper's frame: the caller is the one that
		 * made the call, as a stack unwinder (gdb's) sees it. */
		for (k = 0; s && s->up_is_tail && s->up && k < 1 << 20; k++)
			s = ptd_calls_get(calls, s->up);
		if (s && !s->up && !s->is_gap && outer && s->level <= 0 && -s->level < nouter &&
		    starts_at_record_start(h)) {
			/* The call predates the recording: the frames are the
			 * stack's at the start, beyond the returns recorded
			 * out of it (each one level up). */
			struct ptd_hcursor oc;
			unsigned mode = ptd_hcursor_goto(&oc, h, s->first) == 0 ? oc.mode : 0;

			for (k = -s->level; k < nouter && n < max; k++)
				pcs[n++] = call_before(h, outer[k], mode);
			break;
		}
		if (!s || !s->up)
			break;
		u = ptd_calls_get(calls, s->up);
		if (!u)
			break;
		if (s->up_is_ret) {
			/* (the mode of the code there: its first instruction's) */
			struct ptd_hcursor rc;
			unsigned mode = ptd_hcursor_goto(&rc, h, u->first) == 0 ? rc.mode : 0;

			pcs[n++] = call_before(h, u->ip, mode);
		} else if (entered_by_signal(calls, s)) {
			/* The interrupted frame resumes where sigreturn goes. */
			const struct ptd_callseg *r = ptd_calls_get(calls, u->next_same);
			const struct ptd_callseg *sg = ptd_calls_get(calls, s->instance);
			uint64_t rip = sg ? signal_resume_ip(h, sg) : 0;

			if (interrupted)
				interrupted[n] = 1;
			if (r && r->how == PTD_SEG_SIGRETURN)
				pcs[n++] = r->ip;
			else if (rip)
				pcs[n++] = rip;
			else if (ptd_hcursor_goto(&c, h, u->last) == 0)
				pcs[n++] = c.ip;
			else
				break;
		} else {
			if (u->last < u->first || ptd_hcursor_goto(&c, h, u->last) < 0)
				break;
			pcs[n++] = c.ip;
		}
		s = u;
	}
	return n;
}
