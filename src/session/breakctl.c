/*
 * What decides whether a stop ends a motion, beyond "a breakpoint is
 * here": breakpoint conditions (evaluated by the front end's expression
 * evaluator through one callback) and ignore counts, gdb's signal table
 * (handle SIG stop/print/pass), and the motions built on the live run
 * loop with an extra place to stop: until/advance LOCATION, until without
 * argument, jump and signal SIG.
 */
#include "session/session_int.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "target/target.h"
#include "unwind/unwind.h"
#include "util/error.h"

/* ---- conditions and ignore counts ------------------------------------------------------ */

void ptd_session_set_cond_eval(struct ptd_session *s, ptd_cond_eval_fn fn, void *ctx)
{
	if (!s)
		return;
	s->cond_fn = fn;
	s->cond_ctx = ctx;
}

static struct sbp *bp_by_id(struct ptd_session *s, int id)
{
	for (int i = 0; i < s->nbp; i++)
		if (s->bp[i].id == id)
			return &s->bp[i];
	return NULL;
}

/* A breakpoint's text (a condition, a dprintf's arguments): a copy of
 * @text, none for NULL or "". */
static int set_text(char **field, const char *text)
{
	char *copy = NULL;

	if (text && *text) {
		copy = strdup(text);
		if (!copy)
			return ptd__err(-ptde_nomem, "out of memory");
	}
	free(*field);
	*field = copy;
	return 0;
}

int ptd_session_bp_condition(struct ptd_session *s, int id, const char *expr)
{
	struct sbp *b;

	if (!s)
		return -ptde_invalid;
	b = bp_by_id(s, id);
	if (!b)
		return ptd__err(-ptde_notfound, "No breakpoint number %d.", id);
	return set_text(&b->cond, expr);
}

void ptd_session_set_dprintf(struct ptd_session *s, ptd_dprintf_fn fn, void *ctx)
{
	if (!s)
		return;
	s->dprintf_fn = fn;
	s->dprintf_ctx = ctx;
}

int ptd_session_bp_dprintf(struct ptd_session *s, int id, const char *args)
{
	struct sbp *b;

	if (!s)
		return -ptde_invalid;
	b = bp_by_id(s, id);
	if (!b)
		return ptd__err(-ptde_notfound, "No breakpoint number %d.", id);
	if (b->wkind || b->catch_kind)
		return ptd__err(-ptde_invalid, "Breakpoint %d is not a breakpoint.", id);
	return set_text(&b->dprintf, args);
}

int ptd_session_bp_ignore(struct ptd_session *s, int id, unsigned count)
{
	struct sbp *b;

	if (!s)
		return -ptde_invalid;
	b = bp_by_id(s, id);
	if (!b)
		return ptd__err(-ptde_notfound, "No breakpoint number %d.", id);
	b->ignore = count;
	return 0;
}

/*
 * gdb's order (bpstat_check_breakpoint_conditions): a false condition is
 * no hit at all; a true one counts the hit, and then an ignore count
 * still to use up lets the program go on.
 */
int ptd__ses_bp_check(struct ptd_session *s, struct sbp *b, pid_t tid)
{
	if (b->cond && s->cond_fn) {
		struct sthread *th = ptd__ses_thread_by_tid(s, tid);
		int saved = s->cur, truth = 1, rc;

		/* The evaluator reads the selected thread: the one that hit. */
		if (th)
			s->cur = (int)(th - s->th);
		/* (an evaluator that fails says why itself: the shell's in
		 * gdb's words) */
		rc = s->cond_fn(s->cond_ctx, b->cond, &truth);
		s->cur = saved;
		if (rc == 0 && !truth)
			return 0;
	}
	b->hits++;
	if (b->ignore) {
		b->ignore--;
		return 0;
	}
	if (b->dprintf) {
		/* gdb's dprintf: it prints, and the program goes on (unless
		 * the printing fails: then it stops there, as gdb's does) */
		struct sthread *th = ptd__ses_thread_by_tid(s, tid);
		int saved = s->cur, rc = 0;

		if (!s->dprintf_fn)
			return 0;
		if (th)
			s->cur = (int)(th - s->th);
		rc = s->dprintf_fn(s->dprintf_ctx, b->dprintf);
		s->cur = saved;
		return rc < 0;
	}
	return 1;
}

/*
 * Several breakpoints at one address are all checked, in number order, as
 * gdb's bpstat chain: each counts its hit (and uses up its ignore count)
 * by its own condition, even when an earlier one already stops the thread;
 * the stop names the first that stops it.
 */
struct sbp *ptd__ses_bp_hit(struct ptd_session *s, uint64_t addr, pid_t tid)
{
	int first = -1;

	for (int i = 0; i < s->nbp; i++) {
		struct sbp *b = &s->bp[i];

		if (!addr || ptd__ses_bp_loc_at(b, addr) < 0)
			continue;
		b->stopped = ptd__ses_bp_check(s, b, tid);
		if (b->stopped && first < 0)
			first = i;
	}
	return first < 0 ? NULL : &s->bp[first];
}

void ptd__ses_bp_drop_temps(struct ptd_session *s, uint64_t addr)
{
	for (int i = s->nbp - 1; i >= 0; i--) {
		struct sbp *b = &s->bp[i];

		if (ptd__ses_bp_loc_at(b, addr) < 0 || !b->stopped)
			continue;
		if (b->temporary)
			ptd_session_delete(s, b->id);
		else if (b->disp_disable && --b->enable_count <= 0)
			ptd_session_bp_enable(s, b->id, 0, 0);
	}
}

/* Whether signal catchpoint @b is on @signo (gdb's standard signals
 * leave out SIGTRAP and SIGINT, the debugger's). */
static int catches_signal(const struct sbp *b, int signo)
{
	if (b->catch_all)
		return 1;
	if (!b->catch_sigs)
		return signo != SIGTRAP && signo != SIGINT;
	return signo >= 1 && signo <= 64 && (b->catch_sigs >> (signo - 1)) & 1;
}

static int catch_hit(struct ptd_session *s, int kind, int signo, pid_t tid, const char *what,
		     struct ptd_event *ev)
{
	int first = 0;

	for (int i = 0; i < s->nbp; i++) {
		struct sbp *b = &s->bp[i];
		char *w;

		if (b->catch_kind != kind || b->disabled ||
		    (kind == PTD_CATCH_SIGNAL && !catches_signal(b, signo)))
			continue;
		/* (gdb notes what it caught before the condition decides) */
		if (what && (w = strdup(what)) != NULL) {
			free(b->catch_what);
			b->catch_what = w;
		}
		if (ptd__ses_bp_check(s, b, tid) && !first)
			first = b->id;
	}
	if (!first)
		return 0;
	ev->bp_id = first;
	ev->bp_catch = kind;
	ev->bp_loc = 0;
	for (int i = 0; i < s->nbp; i++) {
		struct sbp *b = &s->bp[i];

		if (b->id != first)
			continue;
		if (b->temporary)
			ptd_session_delete(s, b->id);
		else if (b->disp_disable && --b->enable_count <= 0)
			ptd_session_bp_enable(s, b->id, 0, 0);
		break;
	}
	return 1;
}

int ptd__ses_catch_event(struct ptd_session *s, int kind, pid_t tid, const char *what,
			 struct ptd_event *ev)
{
	return catch_hit(s, kind, 0, tid, what, ev);
}

int ptd__ses_catch_signal(struct ptd_session *s, int signo, pid_t tid, struct ptd_event *ev)
{
	return catch_hit(s, PTD_CATCH_SIGNAL, signo, tid, NULL, ev);
}

void ptd__ses_bp_note_stop(struct ptd_session *s, uint64_t addr, struct ptd_event *ev)
{
	free(s->stop_func);
	s->stop_func = NULL;
	s->stop_inner = 0;
	ev->bp_loc = 0;
	ev->bp_catch = 0;
	for (int i = 0; i < s->nbp; i++) {
		struct sbp *b = &s->bp[i];
		int k = ptd__ses_bp_loc_at(b, addr);

		if (k < 0 || (!b->stopped && b->id != ev->bp_id))
			continue;
		if (b->id == ev->bp_id && b->nlocs > 1)
			ev->bp_loc = k + 1;
		if (b->id == ev->bp_id)
			ev->bp_catch = b->catch_kind;
		/* gdb's stopped_by_user_bp_inline_frame: a location has the
		 * function it was set in (an inlined copy's for a function
		 * spec), the innermost one there otherwise */
		if (!b->locs[k].inl)
			s->stop_inner = 1;
		else if (!s->stop_func)
			s->stop_func = strdup(b->locs[k].inl);
	}
}

/* ---- signals ----------------------------------------------------------------------------- */

static void sig_defaults(struct ptd_session *s)
{
	if (s->sig_ready)
		return;
	for (int i = 1; i < (int)sizeof(s->sigflags); i++) {
		int f = PTD_SIG_STOP | PTD_SIG_PRINT | PTD_SIG_PASS;

		switch (i) {
		case SIGALRM:
		case SIGURG:
		case SIGCHLD:
		case SIGWINCH:
		case SIGIO:
		case SIGVTALRM:
		case SIGPROF:
			f = PTD_SIG_PASS;
			break;
		case SIGINT:
		case SIGTRAP:
			f = PTD_SIG_STOP | PTD_SIG_PRINT;
			break;
		default:
			/* glibc's internal signals below SIGRTMIN (thread
			 * cancellation, setxid) go through unseen, as gdb's
			 * libthread_db has them. */
			if (i >= 32 && i < SIGRTMIN)
				f = PTD_SIG_PASS;
			break;
		}
		s->sigflags[i] = (unsigned char)f;
	}
	s->sig_ready = 1;
}

int ptd__ses_sig_flags(struct ptd_session *s, int signo)
{
	if (signo <= 0 || signo >= (int)sizeof(s->sigflags))
		return PTD_SIG_STOP | PTD_SIG_PRINT | PTD_SIG_PASS;
	sig_defaults(s);
	return s->sigflags[signo];
}

int ptd_session_signal_flags(struct ptd_session *s, int signo)
{
	if (!s || signo <= 0 || signo >= (int)sizeof(s->sigflags))
		return ptd__err(-ptde_invalid, "Only signals 1-%d are valid.",
				(int)sizeof(s->sigflags) - 1);
	return ptd__ses_sig_flags(s, signo);
}

int ptd_session_set_signal_flags(struct ptd_session *s, int signo, int flags)
{
	if (!s || signo <= 0 || signo >= (int)sizeof(s->sigflags) ||
	    (flags & ~(PTD_SIG_STOP | PTD_SIG_PRINT | PTD_SIG_PASS)))
		return ptd__err(-ptde_invalid, "Only signals 1-%d are valid.",
				(int)sizeof(s->sigflags) - 1);
	sig_defaults(s);
	s->sigflags[signo] = (unsigned char)flags;
	return 0;
}

/* ---- until, advance, jump, signal ----------------------------------------------------- */

static int live_thread(struct ptd_session *s, struct sthread **out)
{
	struct sthread *th;

	if (s->offline || !ptd_session_alive(s))
		return ptd__err(-ptde_not_running, "The program is not being run.");
	th = ptd__ses_cur_thread(s);
	if (!th)
		return ptd__err(-ptde_not_running, "The program is not being run.");
	if (th->pos)
		return ptd__err(-ptde_unsupported,
				"cannot do this in the recorded past: go to the end of the "
				"history first (record goto end)");
	*out = th;
	return 0;
}

/* The current frame of @tid: its CFA (0 when unknown), its depth, and the
 * return address into its caller (0 when there is none). */
static void frame_of(pid_t tid, uint64_t *cfa, int *depth, uint64_t *ret)
{
	struct ptd_frame *fr = NULL;
	int n = ptd_unwind_backtrace_all(tid, &fr);

	*cfa = n > 0 ? fr[0].cfa : 0;
	*depth = n > 0 ? n : 0;
	if (ret)
		*ret = n > 1 ? fr[1].pc : 0;
	free(fr);
}

/* Is the frame of @tid now the starting frame or an outer one (@outer:
 * strictly outer)?  The CFA says it when both are known; else the depth. */
static int frame_outer(struct ptd_session *s, pid_t tid, int outer)
{
	uint64_t cfa;
	int depth;

	frame_of(tid, &cfa, &depth, NULL);
	if (cfa && s->adv_cfa)
		return outer ? cfa > s->adv_cfa : cfa >= s->adv_cfa;
	return outer ? depth < s->adv_depth : depth <= s->adv_depth;
}

int ptd__ses_adv_at(const struct ptd_session *s, uint64_t pc)
{
	if (pc == s->adv_addr)
		return 1;
	for (int i = 0; i < s->nadv_more; i++)
		if (pc == s->adv_more[i])
			return 1;
	return 0;
}

int ptd__ses_adv_hit(struct ptd_session *s, pid_t tid, uint64_t pc)
{
	if (!s->adv_active || tid != s->adv_tid)
		return 0;
	if (ptd__ses_adv_at(s, pc) && (s->adv_anywhere || frame_outer(s, tid, 0)))
		return 1;
	if (s->adv_ret && pc == s->adv_ret && frame_outer(s, tid, 1))
		return 1;
	return 0;
}

/* The replay's breakpoint callback while until/advance runs in the past:
 * the session's breakpoints, and the two places of the motion (id 0). */
static int adv_is_bp(void *ctx, uint64_t addr, int *id)
{
	struct ptd_session *s = ctx;

	if (s->adv_is_bp(ctx, addr, id))
		return 1;
	if (ptd__ses_adv_at(s, addr) || (s->adv_ret && addr == s->adv_ret)) {
		if (id)
			*id = 0;
		return 1;
	}
	return 0;
}

/* The call depth of @th at its position in the past (the end of the
 * history when it is at the tail), in *@level. */
static int past_level(struct ptd_session *s, struct sthread *th, int *level)
{
	const struct ptd_calls *calls = ptd__ses_thread_calls(s, th);
	uint64_t n = th->pos ? th->pos : ptd_history_count(th->h);
	const struct ptd_callseg *seg = calls ? ptd_calls_find(calls, n) : NULL;

	if (!seg)
		return ptd__err(-ptde_internal, "cannot find the call at instruction %llu",
				(unsigned long long)n);
	*level = seg->level;
	return 0;
}

/*
 * The thread until/advance moves through its recording: replaying (or
 * going back from the end, @reverse), in a recording kept after the
 * program ended, or in a loaded one.
 */
static int history_thread(struct ptd_session *s, int reverse, struct sthread **out)
{
	struct sthread *th = ptd__ses_cur_thread(s);

	if (!s->offline && !ptd_session_alive(s))
		return ptd__err(-ptde_not_running, "The program is not being run.");
	if (!th)
		return ptd__err(-ptde_not_running, "The program is not being run.");
	if (reverse && !s->offline && !s->recording)
		return ptd__err(-ptde_unsupported, "Target native does not support this command.");
	if (!ptd_history_count(th->h))
		return ptd__err(-ptde_eos, "No more reverse-execution history.");
	if (s->offline && !reverse && !th->pos)
		return ptd__err(-ptde_eos, "No more reverse-execution history.");
	*out = th;
	return 0;
}

/*
 * until/advance LOCATION in the recording, as gdb's record full replays
 * it: a replay continue that also stops at @addr and, once the frame has
 * returned, at the return address in the caller.  Forward, "in the
 * frame" for until is the starting frame or an outer one, by call depth
 * (going forward the frame cannot be left but by returning there).
 * Backward (set exec-direction reverse) gdb's frame checks of its two
 * momentary breakpoints are exact: @addr in the starting frame's depth
 * and function (a sibling call of a recursion has the same frame id in
 * gdb: the same CFA), the return address in the caller's depth.
 * Reaching the end of the history ends it there ("No more
 * reverse-execution history."), as in gdb, rather than going on live;
 * so does reaching its start going backward.
 */
static int advance_past(struct ptd_session *s, struct sthread *th, uint64_t addr, int anywhere,
			int reverse, struct ptd_event *ev)
{
	uint64_t pcs[2], pc0 = 0, f0;
	int level0, level, rc;

	if (s->offline) {
		rc = ptd__ses_lazy_all(s, th);
		if (rc < 0)
			return rc;
	}
	rc = past_level(s, th, &level0);
	if (rc < 0)
		return rc;
	ptd_session_pc(s, &pc0);
	f0 = ptd__ses_env_func_of(s, pc0);
	s->adv_addr = addr;
	s->adv_ret = ptd_session_backtrace(s, pcs, 2) > 1 ? pcs[1] : 0;
	s->adv_is_bp = s->senv.base.is_breakpoint;
	s->senv.base.is_breakpoint = adv_is_bp;
	for (;;) {
		rc = ptd__ses_replay_move(s, th, PTD_MOTION_CONTINUE, reverse, ev);
		if (rc < 0)
			break;
		if (!reverse && (rc > 0 || !th->pos)) {
			th->pos = 0;
			ev->kind = PTD_EVENT_NO_HISTORY;
			ev->replaying = 0;
			rc = 0;
			break;
		}
		rc = 0;
		/* a breakpoint of the session's, a gap, the start... */
		if (ev->kind != PTD_EVENT_BREAKPOINT || ev->bp_id)
			break;
		rc = past_level(s, th, &level);
		if (rc < 0)
			break;
		if (!reverse && ((ptd__ses_adv_at(s, ev->pc) && (anywhere || level <= level0)) ||
				 (ev->pc == s->adv_ret && level < level0)))
			break;
		if (reverse &&
		    ((ptd__ses_adv_at(s, ev->pc) &&
		      (anywhere || (level == level0 && ptd__ses_env_func_of(s, ev->pc) == f0))) ||
		     (ev->pc == s->adv_ret && level == level0 - 1)))
			break;
		/* there in another frame (until), or a recursion's return */
	}
	if (rc == 0 && ev->kind == PTD_EVENT_BREAKPOINT && !ev->bp_id) {
		ev->kind = PTD_EVENT_STEPPED;
		ev->new_frame = 1;
	}
	s->senv.base.is_breakpoint = s->adv_is_bp;
	return rc;
}

int ptd_session_advance_dir(struct ptd_session *s, uint64_t addr, int anywhere, int reverse,
			    struct ptd_event *ev)
{
	struct sthread *th;
	int rc, ins_addr, ins_ret = 0;

	if (!s || !ev)
		return -ptde_invalid;
	memset(ev, 0, sizeof(*ev));
	th = ptd__ses_cur_thread(s);
	if (reverse || s->offline || (th && th->pos && ptd_session_alive(s))) {
		rc = history_thread(s, reverse, &th);
		if (rc < 0)
			return rc;
		return advance_past(s, th, addr, anywhere, reverse, ev);
	}
	rc = live_thread(s, &th);
	if (rc < 0)
		return rc;
	frame_of(th->tid, &s->adv_cfa, &s->adv_depth, &s->adv_ret);
	s->adv_addr = addr;
	s->adv_anywhere = anywhere;
	s->adv_tid = th->tid;
	if (ptd_target_bp_insert(s->t, addr) < 0)
		return ptd__err(-ptde_nomap, "Cannot insert breakpoint 0.\n"
				"Cannot access memory at address 0x%llx", (unsigned long long)addr);
	ins_addr = 1;
	for (int i = 0; i < s->nadv_more; i++)
		if (ptd_target_bp_insert(s->t, s->adv_more[i]) < 0) {
			/* (the places inserted so far come out again) */
			while (i-- > 0)
				ptd_target_bp_remove(s->t, s->adv_more[i]);
			ptd_target_bp_remove(s->t, addr);
			return ptd__err(-ptde_nomap, "Cannot insert breakpoint 0.\n"
					"Cannot access memory at address 0x%llx",
					(unsigned long long)s->adv_more[i < 0 ? 0 : i]);
		}
	if (s->adv_ret && ptd_target_bp_insert(s->t, s->adv_ret) == 0)
		ins_ret = 1;
	else
		s->adv_ret = 0;
	s->adv_active = 1;
	rc = ptd__ses_live_run(s, PTD_MOTION_CONTINUE, ev);
	s->adv_active = 0;
	if (ptd_session_alive(s)) {
		if (ins_addr)
			ptd_target_bp_remove(s->t, addr);
		for (int i = 0; i < s->nadv_more; i++)
			ptd_target_bp_remove(s->t, s->adv_more[i]);
		if (ins_ret)
			ptd_target_bp_remove(s->t, s->adv_ret);
	}
	/* gdb prints the frame with the line: the stop is not a step's
	 * (print_stop_event's SRC_AND_LOC). */
	if (rc == 0 && ev->kind == PTD_EVENT_STEPPED)
		ev->new_frame = 1;
	return rc;
}

int ptd_session_advance_locs(struct ptd_session *s, const uint64_t *addrs, int n, int anywhere,
			     int reverse, struct ptd_event *ev)
{
	int rc;

	if (!s || !addrs || n < 1 || n > PTD_ADV_LOCS + 1 || !ev)
		return -ptde_invalid;
	memcpy(s->adv_more, addrs + 1, sizeof(*addrs) * (size_t)(n - 1));
	s->nadv_more = n - 1;
	s->adv_places_on = 1;
	rc = ptd_session_advance_dir(s, addrs[0], anywhere, reverse, ev);
	s->adv_places_on = 0;
	s->nadv_more = 0;
	return rc;
}

int ptd_session_advance(struct ptd_session *s, uint64_t addr, int anywhere, struct ptd_event *ev)
{
	return ptd_session_advance_dir(s, addr, anywhere, 0, ev);
}

/* How many frames the selected thread has (live or in the past). */
static int depth_now(struct ptd_session *s)
{
	uint64_t *pcs = NULL;
	int n = -ptde_nomem;

	/* (all of them, however deep the stack is) */
	for (int cap = 256; cap <= 1 << 22; cap *= 2) {
		uint64_t *np = realloc(pcs, (size_t)cap * sizeof(*pcs));

		if (!np)
			break;
		pcs = np;
		n = ptd_session_backtrace(s, pcs, cap);
		if (n < cap)
			break;
	}
	free(pcs);
	ptd_clear_error();
	return n;
}

/*
 * until without argument, forward, as gdb's: it steps while the pc is in
 * [@f0, @end) -- the function's code up to the end of the current line --
 * whatever the frame, so a loop runs to its end and a recursive call of
 * the function is stepped into (gdb then stops at the first line past the
 * range in any frame); calls of other functions are stepped over (here:
 * stepped into and finished, which stops at their breakpoints as gdb's
 * step over does).  The frame is printed when the stop is in another one.
 */
static int until_forward(struct ptd_session *s, uint64_t f0, uint64_t end, struct ptd_event *ev)
{
	int depth0 = depth_now(s), depth = depth0, rc;
	uint64_t f;

	for (;;) {
		int before = depth;

		rc = ptd_session_motion(s, PTD_MOTION_STEP, 0, ev);
		if (rc < 0 || ev->kind != PTD_EVENT_STEPPED)
			return rc;
		f = ptd__ses_env_func_of(s, ev->pc);
		depth = depth_now(s);
		if (f0 && f != f0 && depth > before) {
			/* stepped into another function: back out of it */
			rc = ptd_session_motion(s, PTD_MOTION_FINISH, 0, ev);
			if (rc < 0 || ev->kind != PTD_EVENT_STEPPED)
				return rc;
			f = ptd__ses_env_func_of(s, ev->pc);
			depth = depth_now(s);
		}
		if (!f0 || f != f0 || ev->pc < f0 || ev->pc >= end)
			break;
	}
	ev->new_frame = depth != depth0 || f != f0;
	return 0;
}

/*
 * Whether the recorded instructions between positions @lo and @hi
 * (both excluded) of @th leave [@f0, @end) in the frame at @level (its
 * callees are stepped over): gdb's until steps back while the pc is in
 * that range of addresses, so a part of the function placed before its
 * entry (a .cold part) is out of it, and from there the line rules go
 * on as reverse-next's, which stopped where until stops.
 */
static int left_range(struct ptd_session *s, struct sthread *th, uint64_t lo, uint64_t hi,
		      uint64_t f0, uint64_t end, int level)
{
	const struct ptd_calls *calls = ptd__ses_thread_calls(s, th);
	struct ptd_hcursor c;

	if (!calls || lo + 1 >= hi || ptd_hcursor_goto(&c, th->h, lo + 1) < 0) {
		ptd_clear_error();
		return 0;
	}
	for (;;) {
		const struct ptd_callseg *seg;

		if (!c.is_gap && (c.ip < f0 || c.ip >= end) &&
		    (seg = ptd_calls_find(calls, c.number)) && seg->level == level)
			return 1;
		if (c.number + 1 >= hi || ptd_hcursor_next(&c) < 0)
			break;
	}
	ptd_clear_error();
	return 0;
}

int ptd_session_until_next_dir(struct ptd_session *s, int reverse, struct ptd_event *ev)
{
	struct ptd_line_info li;
	struct sthread *th;
	uint64_t pc0, f0, end;
	int rc, level0 = 0, level;

	if (!s || !ev)
		return -ptde_invalid;
	memset(ev, 0, sizeof(*ev));
	rc = ptd_session_pc(s, &pc0);
	if (rc < 0)
		return ptd__err(-ptde_not_running, "The program is not being run.");
	th = ptd__ses_cur_thread(s);
	if (reverse) {
		rc = history_thread(s, 1, &th);
		if (rc == 0 && s->offline)
			rc = ptd__ses_lazy_all(s, th);
		if (rc == 0)
			rc = past_level(s, th, &level0);
		if (rc < 0)
			return rc;
	}
	f0 = ptd__ses_env_func_of(s, pc0);
	/* gdb's until_next_command: the step range runs from the function's
	 * start to the end of the current line, so a jump back into the loop
	 * is stepped through (forward); backward, the whole function before
	 * the line is in the range: it stops back in the caller. */
	end = ptd__ses_env_line_of(s, pc0, &li) == 0 && li.hi > pc0 ? li.hi : pc0 + 1;
	if (!reverse)
		return until_forward(s, f0, end, ev);
	for (;;) {
		uint64_t from = th->pos ? th->pos : ptd_history_count(th->h);

		rc = ptd_session_motion(s, PTD_MOTION_NEXT, reverse, ev);
		if (rc < 0 || ev->kind != PTD_EVENT_STEPPED)
			return rc;
		if (!f0 || ptd__ses_env_func_of(s, ev->pc) != f0 || ev->pc < f0 || ev->pc >= end)
			return 0;
		if (!reverse && ev->new_frame)
			return 0;
		/* (a reverse step into a recursion's caller is not a new
		 * frame to print, but leaves the range) */
		if (reverse && (past_level(s, th, &level) < 0 || level != level0))
			return 0;
		if (reverse && left_range(s, th, th->pos, from, f0, end, level0))
			return 0;
	}
}

int ptd_session_until_next(struct ptd_session *s, struct ptd_event *ev)
{
	return ptd_session_until_next_dir(s, 0, ev);
}

int ptd_session_jump(struct ptd_session *s, uint64_t addr, struct ptd_event *ev)
{
	struct sthread *th;
	struct sbp *b;
	int rc;

	if (!s || !ev)
		return -ptde_invalid;
	memset(ev, 0, sizeof(*ev));
	rc = live_thread(s, &th);
	if (rc < 0)
		return rc;
	rc = ptd_target_set_pc(s->t, th->tid, addr);
	if (rc < 0)
		return rc;
	/* A breakpoint at the new pc is hit at once (gdb resumes without
	 * stepping over it): "tbreak L; jump L" stops at L. */
	b = ptd__ses_bp_hit(s, addr, th->tid);
	if (b) {
		struct ptd_line_info li;
		int id = b->id;

		ev->at_line_start = ptd__ses_env_line_of(s, addr, &li) == 0 && li.lo == addr;
		ev->kind = PTD_EVENT_BREAKPOINT;
		ev->bp_id = id;
		ev->pc = addr;
		ev->tid = th->tid;
		ev->thread_num = th->num;
		ev->new_frame = 1;
		ptd__ses_bp_note_stop(s, addr, ev);
		ptd__ses_bp_drop_temps(s, addr);
		return 0;
	}
	return ptd__ses_live_run(s, PTD_MOTION_CONTINUE, ev);
}

int ptd_session_continue_signal(struct ptd_session *s, int signo, struct ptd_event *ev)
{
	struct sthread *th;
	int rc;

	if (!s || !ev || signo < 0 || signo >= (int)sizeof(s->sigflags))
		return ptd__err(-ptde_invalid, "Only signals 1-%d are valid.",
				(int)sizeof(s->sigflags) - 1);
	memset(ev, 0, sizeof(*ev));
	rc = live_thread(s, &th);
	if (rc < 0)
		return rc;
	ptd_target_set_pending_signal(s->t, th->tid, signo);
	return ptd__ses_live_run(s, PTD_MOTION_CONTINUE, ev);
}

void ptd_session_set_progress(struct ptd_session *s,
			      void (*fn)(void *ctx, const struct ptd_progress *p), void *ctx)
{
	if (!s)
		return;
	s->progress_fn = fn;
	s->progress_ctx = ctx;
}
