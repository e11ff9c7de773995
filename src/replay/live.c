/*
 * Forward stepping predicate (see live.h).  The depth counts calls and
 * returns of the stepped thread, so recursion is handled by frame
 * instance, not by function name; signal handlers count as calls and
 * their sigreturn (a syscall that does not fall through) as a return.
 */
#include "replay/live.h"

#include <string.h>

#include "disasm/disasm.h"

static int line_of(const struct ptd_stepper *st, uint64_t pc, struct ptd_line_info *li)
{
	if (!st->env || !st->env->base.line_of)
		return -1;
	return st->env->base.line_of(st->env->base.ctx, pc, li);
}

static void set_range(struct ptd_stepper *st, uint64_t pc)
{
	struct ptd_line_info li;

	if (line_of(st, pc, &li) == 0) {
		st->lo = li.lo;
		st->hi = li.hi;
		st->line = li.line;
		st->file = li.file;
		st->have_line = 1;
	} else {
		st->lo = pc;
		st->hi = pc + 1;
		st->line = 0;
		st->file = NULL;
		st->have_line = 0;
	}
}

/* The replay environment inline frames are looked up in (ptd__vis_at). */
static const struct ptd_replay_env *stepper_env(const struct ptd_stepper *st)
{
	return st->env ? &st->env->base : NULL;
}

void ptd_stepper_init(struct ptd_stepper *st, enum ptd_motion m, uint64_t pc,
		      const struct ptd_stepper_env *env)
{
	struct ptd__vis v;

	memset(st, 0, sizeof(*st));
	st->m = m;
	st->env = env;
	st->stop_skip = -1;
	if (m == PTD_MOTION_STEP || m == PTD_MOTION_NEXT)
		set_range(st, pc);
	if (env && env->base.func_of)
		st->start_func = env->base.func_of(env->base.ctx, pc);
	ptd__vis_at(stepper_env(st), pc, env ? env->base.start_skip : 0, &v);
	st->vdepth = v.depth;
	st->ventry = v.entry;
	st->inl = v.n > 0;
	if (v.skip > 0 && st->have_line) {
		/* the line being stepped is the shown frame's: the call site
		 * of the inlined calls not entered yet (gdb's find_frame_sal);
		 * the range stays the pc's row */
		st->line = v.b[v.skip - 1].call_line;
		st->file = v.b[v.skip - 1].call_file;
	}
	if (m == PTD_MOTION_FINISH && env && !env->base.finish_inline)
		st->fin_real = env->base.finish_real > 0 ? env->base.finish_real : 0;
	if (m == PTD_MOTION_FINISH && env && env->base.finish_inline > 0 &&
	    env->base.finish_real > 0 && env->base.finish_pc) {
		/* an inlined frame of an outer real frame: `next` in its
		 * caller's frame there, after the callees between return */
		struct ptd__vis o;
		int up = env->base.finish_inline;

		ptd__vis_at(stepper_env(st), env->base.finish_pc, 0, &o);
		if (o.depth - (up - 1) > 0) {
			st->m = PTD_MOTION_NEXT;
			st->depth = env->base.finish_real;
			st->over_depth = 1;
			st->vdepth = o.depth - up;
			st->ventry = up < o.n ? o.b[up].entry : 0;
			st->lo = st->hi = 0;
			st->line = 0;
			st->file = NULL;
			st->have_line = 1;
			st->fin_inline = 1;
			st->inl = 1;
		}
	} else if (m == PTD_MOTION_FINISH && env && env->base.finish_inline > 0 &&
		   v.depth - (env->base.finish_inline - 1) > 0) {
		/* gdb's finish out of an inline frame: `next` in the caller's
		 * frame with an empty range and no line */
		int up = v.skip + env->base.finish_inline;

		st->m = PTD_MOTION_NEXT;
		st->vdepth = v.depth - env->base.finish_inline;
		st->ventry = up < v.n ? v.b[up].entry : 0;
		st->lo = st->hi = 0;
		st->line = 0;
		st->file = NULL;
		st->have_line = 1;
		st->fin_inline = 1;
	}
}

static int same_file(const char *a, const char *b)
{
	if (a == b)
		return 1;
	if (!a || !b)
		return 0;
	return strcmp(a, b) == 0;
}

/*
 * gdb 13 loses a `step` into longjmp (through the PLT or not): its longjmp
 * breakpoint at the function's entry (set when libc has no longjmp probe)
 * takes the stop there and steps on, so its "stepped into subroutine"
 * check comes one instruction late and puts its step-resume breakpoint at
 * the function's stop address; when that is the entry itself (the
 * function sets up no frame gdb recognises: push %rbp; mov %rsp,%rbp), it
 * is behind the pc and never reached, and the program runs on (to a
 * breakpoint, a signal, the exit, or under record full the end of the
 * history).  A function with such a frame stops as usual.  @next is the
 * callee's entry.
 */
static int longjmp_lost(const struct ptd_stepper *st, uint64_t next)
{
	const struct ptd_stepper_env *env = st->env;
	struct ptd_line_info li;

	if (st->m != PTD_MOTION_STEP || !env || !env->base.is_longjmp || !env->func_bp ||
	    !env->base.is_longjmp(env->base.ctx, next) || line_of(st, next, &li) < 0)
		return 0;
	return env->func_bp(env->base.ctx, next) == next;
}

/* Control just arrived at the entry @next of a callee (call, signal
 * handler, or the end of a trampoline). */
static int enter_callee(struct ptd_stepper *st, uint64_t next)
{
	struct ptd_line_info li;
	uint64_t bp = 0;

	if (longjmp_lost(st, next)) {
		st->free_run = 1;
		return 0;
	}

	if (st->m == PTD_MOTION_STEP && st->env && st->env->func_bp) {
		/* Into a C++ thunk: on to the function it leads to (gdb's
		 * language trampolines), in whatever frame it is reached. */
		uint64_t to = st->env->base.thunk_target
				      ? st->env->base.thunk_target(st->env->base.ctx, next)
				      : 0;

		/* (gdb's skip list: stepped over) */
		if (st->env->base.skipped && st->env->base.skipped(st->env->base.ctx, to ? to : next))
			;
		else if (line_of(st, to ? to : next, &li) == 0)
			bp = st->env->func_bp(st->env->base.ctx, to ? to : next);
		st->into_any = to != 0;
	}
	if (bp) {
		st->into_pc = bp;
		st->into_depth = st->depth;
		if (next == bp) {
			st->new_frame = 1;
			return 1;
		}
		return 0;
	}
	/* next, or no line info: step over it. */
	st->over_depth = st->depth;
	return 0;
}

/*
 * In the real frame being stepped, out of the stepping range: gdb's
 * rules for inline frames, then the line rules (see replay.c's
 * inline_rules and line_rules).  Returns 1 to stop.
 */
static int inline_rules(struct ptd_stepper *st, uint64_t next, const struct ptd_line_info *li)
{
	struct ptd__vis v;
	int same;

	ptd__vis_at(stepper_env(st), next, -1, &v);
	if (v.n > 0)
		st->inl = 1;
	if (v.skip > 0 && v.depth == st->vdepth && v.entry == st->ventry) {
		const struct ptd_iblock *c = &v.b[v.skip - 1];
		int same_line = c->call_line == st->line && same_file(c->call_file, st->file);

		if (st->m == PTD_MOTION_STEP) {
			if (same_line)
				st->stop_skip = v.skip - 1;
			return 1;
		}
		return !same_line;
	}
	if (v.depth > 0 && (v.depth != st->vdepth || v.entry != st->ventry) &&
	    st->vdepth < v.depth &&
	    (st->vdepth == 0 || v.b[v.skip + (v.depth - st->vdepth)].entry == st->ventry))
		return st->m == PTD_MOTION_STEP;
	same = v.depth == st->vdepth && v.entry == st->ventry;
	if (li->lo == next && (li->line != st->line || !same_file(li->file, st->file))) {
		if (li->is_stmt)
			return 1;
		/* the start of a row that is no statement: its range, and
		 * the line only when the frame changed */
		st->lo = li->lo;
		st->hi = li->hi;
		if (!same) {
			st->line = 0;
			st->file = NULL;
			st->vdepth = v.depth;
			st->ventry = v.entry;
		}
		st->have_line = 1;
		return 0;
	}
	/* Mid-row or the same line again: step through this row too. */
	st->lo = li->lo;
	st->hi = li->hi;
	st->line = li->line;
	st->file = li->file;
	st->have_line = 1;
	st->vdepth = v.depth;
	st->ventry = v.entry;
	return 0;
}

/* The step ends at @next: whether gdb prints the frame line, where
 * inline frames are involved (print_stop_event: the frame or the
 * function differs from the one stepped). */
static int stop_here(struct ptd_stepper *st, uint64_t next)
{
	struct ptd__vis v;

	if (!st->inl && !st->fin_inline)
		return 1;
	ptd__vis_at(stepper_env(st), next, st->stop_skip, &v);
	if (st->fin_inline || v.depth != st->vdepth || v.entry != st->ventry ||
	    (st->env->base.func_of && st->env->base.func_of(st->env->base.ctx, next) != st->start_func))
		st->new_frame = 1;
	return 1;
}

int ptd_stepper_feed(struct ptd_stepper *st, uint64_t ip, int iclass, uint64_t next, int signal)
{
	struct ptd_line_info li;

	if (st->free_run)
		return 0;

	st->ninsn++;
	if (signal) {
		st->depth++;
		st->signals++;
	} else if (iclass == PTD_IC_CALL) {
		st->depth++;
		if (st->depth == 1)
			st->over_call_ip = ip;
	} else if (iclass == PTD_IC_RET) {
		st->depth--;
	} else if (iclass == PTD_IC_FAR_CALL && next != ip + 2 && st->signals > 0) {
		/* A syscall (always 2 bytes: syscall, sysenter, int 0x80) that
		 * does not return to the next instruction inside a handler is
		 * its sigreturn: leaving the handler frame. */
		st->signals--;
		st->depth--;
	}

	switch (st->m) {
	case PTD_MOTION_STEPI:
		if (st->depth != 0)
			st->new_frame = 1;
		return 1;
	case PTD_MOTION_NEXTI:
		if (st->depth > 0)
			return 0;
		if (st->depth < 0)
			st->new_frame = 1;
		return 1;
	case PTD_MOTION_FINISH:
		if (st->depth < -st->fin_real) {
			st->new_frame = 1;
			return 1;
		}
		return 0;
	case PTD_MOTION_CONTINUE:
		return 0;
	case PTD_MOTION_STEP:
	case PTD_MOTION_NEXT:
		break;
	}

	if (st->over_depth) {
		if (st->depth >= st->over_depth)
			return 0;
		st->over_depth = 0;
	}
	if (st->into_pc) {
		/* (a C++ thunk's target: wherever it is reached, also after
		 * the thunk returned without going there, as replay.c's
		 * goal_step_fwd) */
		if ((st->depth == st->into_depth || st->into_any) && next == st->into_pc) {
			st->new_frame = 1;
			return 1;
		}
		if (st->into_any)
			return 0;
		if (st->depth < st->into_depth) {
			/* the callee returned before reaching its body */
			st->into_pc = 0;
		} else {
			return 0;
		}
	}
	if (st->tramp_depth) {
		if (st->depth > st->tramp_depth)
			return 0; /* the resolver's own calls */
		if (st->depth < st->tramp_depth) {
			st->tramp_depth = 0; /* came back without reaching a function */
		} else if (st->env->is_trampoline(st->env->base.ctx, next) ||
			   !st->env->base.func_of ||
			   st->env->base.func_of(st->env->base.ctx, next) != next) {
			return 0;
		} else {
			/* Arrived at the real callee's entry. */
			st->tramp_depth = 0;
			return enter_callee(st, next);
		}
	}
	if (signal && st->depth > 0) {
		/* A signal handler was entered.  gdb does not treat it as a
		 * call: the handler's first instruction starts a line of
		 * another frame, so step and next stop right there. */
		if (line_of(st, next, &li) == 0 && li.lo == next && li.is_stmt) {
			st->new_frame = 1;
			return 1;
		}
		st->over_depth = st->depth;
		return 0;
	}
	if (st->depth > 0) {
		if (st->m == PTD_MOTION_STEP && st->env && st->env->is_trampoline &&
		    st->env->is_trampoline(st->env->base.ctx, next)) {
			st->tramp_depth = st->depth;
			return 0;
		}
		return enter_callee(st, next);
	}
	if (st->depth < 0) {
		/* Stepped back out into the caller: go on stepping there from
		 * the caller's row, as gdb does ("main () at f.c:10"). */
		st->depth = 0;
		st->new_frame = 1;
		/* Landing exactly at the start of a line (e.g. the caller's
		 * closing brace right after the call) ends the step there. */
		if (line_of(st, next, &li) == 0 && li.lo == next && li.is_stmt &&
		    (li.line != st->line || !same_file(li.file, st->file)))
			return 1;
		/* Mid-line: gdb steps on in the caller's frame, which becomes
		 * the frame stepped in; the stop shows the location only for
		 * another function than the one the step began in (not
		 * within a recursion). */
		if (st->env && st->env->base.func_of)
			st->new_frame =
				st->env->base.func_of(st->env->base.ctx, next) != st->start_func;
		set_range(st, next);
		if (st->have_line && li.lo == next && !li.is_stmt) {
			/* the start of a row that is no statement, in another
			 * frame: gdb forgets the line (any statement stops) */
			st->line = 0;
			st->file = NULL;
		}
		{
			struct ptd__vis v;

			ptd__vis_at(stepper_env(st), next, -1, &v);
			st->vdepth = v.depth;
			st->ventry = v.entry;
			if (v.n > 0)
				st->inl = 1;
		}
		if (!st->have_line) {
			/* A caller without line info (a static binary's libc
			 * calling main or a qsort callback): gdb stops there,
			 * having no line to step in, as the replay does.  Only
			 * `step` back into code without a name either goes on
			 * out of it (gdb's "stepped into undebuggable
			 * function": on to its caller). */
			if (st->m == PTD_MOTION_NEXT || !st->env || !st->env->base.func_of ||
			    st->env->base.func_of(st->env->base.ctx, next))
				return 1;
			st->over_depth = 0;
		}
		return 0;
	}
	if (next >= st->lo && next < st->hi)
		return 0;
	if (line_of(st, next, &li) < 0) {
		/* No line info at this level (a jump into a stub): keep going
		 * until we are back in code with lines. */
		return 0;
	}
	return inline_rules(st, next, &li) ? stop_here(st, next) : 0;
}

int ptd_stepper_back_at_return(struct ptd_stepper *st, uint64_t next)
{
	struct ptd_line_info li;

	/* (running to a C++ thunk's target, gdb's step-resume breakpoint
	 * there overrides the one at the return address) */
	if (st->depth <= 0 || (st->into_pc && st->into_any))
		return 0;
	st->depth = 0;
	st->signals = 0;
	st->over_depth = 0;
	st->into_pc = 0;
	st->tramp_depth = 0;
	st->over_call_ip = 0;
	switch (st->m) {
	case PTD_MOTION_NEXTI:
		return 1;
	case PTD_MOTION_STEP:
	case PTD_MOTION_NEXT:
		break;
	default:
		return 0;
	}
	/* gdb removes the step-resume breakpoint and goes on stepping in
	 * the range of the line it stepped from */
	if (next >= st->lo && next < st->hi)
		return 0;
	if (line_of(st, next, &li) < 0)
		return 0;
	if (li.lo == next && li.is_stmt && (li.line != st->line || !same_file(li.file, st->file)))
		return 1;
	st->lo = li.lo;
	st->hi = li.hi;
	st->line = li.line;
	st->file = li.file;
	st->have_line = 1;
	return 0;
}
