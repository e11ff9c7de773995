/*
 * Unit tests for replay motions (src/replay/replay.c) over a simulated
 * run of a real -O0 program (tests/unit/histfix.h).  The expected stops of
 * step/next/finish/continue, forward and reverse, are the ones gdb 13's
 * `record full` gives on the same program (run with `gdb -batch` on this
 * machine: break main, run, record, then the commands below), including
 * gdb 13's per-row stepping ranges (line 10 and 26 have two rows).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "histfix.h"
#include "ptdbg/ptdbg.h"

struct bpset {
	uint64_t addr[8];
	int n;
};

static int bp_hit(void *ctx, uint64_t addr, int *id)
{
	struct bpset *b = ctx;
	int i;

	for (i = 0; i < b->n; i++) {
		if (b->addr[i] == addr) {
			*id = i + 1;
			return 1;
		}
	}
	return 0;
}

struct fixture {
	struct fx_sim s;
	struct ptd_calls *c;
	struct bpset bps;
	struct ptd_replay_env env;
};

static struct fixture *fix_new(void (*prog)(struct fx_sim *))
{
	struct fixture *f = calloc(1, sizeof(*f));

	fx_sim_init(&f->s);
	prog(&f->s);
	assert_false(f->s.err);
	f->c = ptd_calls_build(f->s.h, fx_func_of, NULL);
	assert_non_null(f->c);
	f->env.ctx = &f->bps;
	f->env.line_of = fx_line_of;
	f->env.func_of = fx_func_of;
	f->env.is_breakpoint = bp_hit;
	return f;
}

static void fix_free(struct fixture *f)
{
	ptd_calls_free(f->c);
	fx_sim_fini(&f->s);
	free(f);
}

/* Moves and checks the stop, the ip and that the ip is the one executed at
 * that number.  Returns the new position. */
static uint64_t mv(struct fixture *f, uint64_t from, enum ptd_motion m, int reverse,
		   enum ptd_replay_stop stop, uint64_t ip)
{
	struct ptd_replay_result r;

	assert_int_equal(ptd_replay_move(f->s.h, f->c, from, m, reverse, &f->env, &r), 0);
	if (r.stop != stop || r.ip != ip)
		print_error("motion %d%s from %lu: stop %d at %lu ip %#lx, expected stop %d ip %#lx\n",
			    (int)m, reverse ? " (reverse)" : "", (unsigned long)from, r.stop,
			    (unsigned long)r.number, (unsigned long)r.ip, stop, (unsigned long)ip);
	assert_int_equal(r.stop, stop);
	assert_int_equal(r.ip, ip);
	assert_true(r.number >= 1 && r.number <= ptd_history_count(f->s.h));
	if (ip)
		assert_int_equal(f->s.ips[r.number - 1], ip);
	return r.number;
}

#define STEP(from, ip) mv(f, from, PTD_MOTION_STEP, 0, PTD_REPLAY_DONE, ip)
#define NEXT(from, ip) mv(f, from, PTD_MOTION_NEXT, 0, PTD_REPLAY_DONE, ip)
#define RSTEP(from, ip) mv(f, from, PTD_MOTION_STEP, 1, PTD_REPLAY_DONE, ip)
#define RNEXT(from, ip) mv(f, from, PTD_MOTION_NEXT, 1, PTD_REPLAY_DONE, ip)

static const struct ptd_callseg *seg_at(struct fixture *f, uint64_t n)
{
	const struct ptd_callseg *s = ptd_calls_find(f->c, n);

	assert_non_null(s);
	return s;
}

/* f's code from 0x401135 (its second row of line 10) on, as if it were a
 * part of f elsewhere (gcc -O2's "f.cold"): gdb's stop_func_start there. */
static uint64_t split_range_start(void *ctx, uint64_t addr)
{
	(void)ctx;
	if (addr >= 0x401135 && addr < FX_FIB)
		return 0x401135;
	return fx_func_of(NULL, addr);
}

/* reverse-step from the entry of g, called from the second part of f:
 * back at the start of the row of the call, which is also the start of
 * that part, gdb 13 does not stop (it is stop_func_start) but steps on
 * back, as from a jump into a ".cold" part (hotcold-O2's sum_range.cold):
 * into the row before it (line 9), mid-row, and from there back into the
 * first call of g, which has lines: at the start of g's last row. */
static void test_reverse_step_split_function(void **state)
{
	struct fixture *f = fix_new(fx_program);
	uint64_t g2 = fx_num(&f->s, FX_G, fx_num(&f->s, FX_G, 0));

	(void)state;
	RSTEP(g2, 0x401135);
	f->env.range_start = split_range_start;
	RSTEP(g2, 0x40111b);
	fix_free(f);
}

/* reverse-finish from f's second part, back from its second call of g:
 * gdb 13 runs back to the start of the range holding the pc (its
 * find_pc_partial_function: a ".cold" part's own start), then one step
 * more, onto the instruction that ran before it in the first part; with
 * f in one range, to f's entry and onto the call in main. */
static void test_reverse_finish_split_function(void **state)
{
	struct fixture *f = fix_new(fx_program);
	uint64_t pos = fx_num(&f->s, 0x40113f, 0);

	(void)state;
	mv(f, pos, PTD_MOTION_FINISH, 1, PTD_REPLAY_DONE, 0x401196);
	f->env.range_start = split_range_start;
	mv(f, pos, PTD_MOTION_FINISH, 1, PTD_REPLAY_DONE, 0x401132);
	fix_free(f);
}

/* t.c's rows, but f's second call of g and its return in one row of line
 * 10 (as a destructor's call of operator delete and its epilogue), and
 * g's ret in a row of its own that is no statement (as free's in libc). */
static int merged_line_of(void *ctx, uint64_t addr, struct ptd_line_info *li)
{
	if (addr >= 0x401135 && addr < FX_FIB) {
		memset(li, 0, sizeof(*li));
		li->file = "t.c";
		li->line = 10;
		li->lo = 0x401135;
		li->hi = FX_FIB;
		li->is_stmt = 1;
		return 0;
	}
	if (fx_line_of(ctx, addr, li) < 0)
		return -1;
	if (li->lo == 0x40111b) {
		if (addr == 0x40111c) {
			li->lo = 0x40111c;
			li->is_stmt = 0;
		} else {
			li->hi = 0x40111c;
		}
	}
	return 0;
}

/* The same, g without line info (a libstdc++ destructor). */
static int merged_noline_g(void *ctx, uint64_t addr, struct ptd_line_info *li)
{
	if (addr >= FX_G && addr < FX_F)
		return -1;
	return merged_line_of(ctx, addr, li);
}

/* reverse-step from line 23 back into f through its return (f is then
 * the callee stepped into backward; for gdb the frame being stepped is
 * still main's) and on back into g through g's return: g is no callee of
 * main's frame, so the line rules decide there (gdb's "stepped to a
 * different frame"): its ret's row is no statement and only moves the
 * range; the step stops at the start of the statement before it, not at
 * the ret (inherit's reverse-step back through a deleting destructor
 * into free).  Without line info in g, the step stops at g's ret (gdb's
 * "no line number info"; stlheavy: back through ~Rec into the string
 * destructor of libstdc++). */
static void test_reverse_step_callee_of_callee(void **state)
{
	struct fixture *f = fix_new(fx_program);
	uint64_t pos = fx_num(&f->s, 0x40119e, 0);

	(void)state;
	f->env.line_of = merged_line_of;
	RSTEP(pos, 0x40111b);
	f->env.line_of = merged_noline_g;
	RSTEP(pos, 0x40111c);
	fix_free(f);
}

/* As if f were a C++ thunk leading to g (a thunk that calls what it
 * leads to, as a covariant return thunk does). */
static uint64_t f_thunk_target(void *ctx, uint64_t addr)
{
	(void)ctx;
	return addr == FX_F ? FX_G : 0;
}

/* step from line 22 (a = f(a)): into f's body, or, f being a thunk to g,
 * on into g past its prologue, one call deeper (gdb's step into a thunk:
 * a step-resume breakpoint at g's, whatever the frame). */
static void test_step_into_thunk(void **state)
{
	struct fixture *f = fix_new(fx_program);
	uint64_t pos = fx_num(&f->s, 0x401191, 0);

	(void)state;
	STEP(pos, 0x401128);
	f->env.thunk_target = f_thunk_target;
	STEP(pos, 0x40110d);
	fix_free(f);
}

/* As if f were a thunk leading to fib, with fib's code inlined into it
 * (gcc -O2): the step into it is on its way to fib, which f never
 * reaches. */
static uint64_t f_thunk_to_fib(void *ctx, uint64_t addr)
{
	(void)ctx;
	return addr == FX_F ? FX_FIB : 0;
}

/* step from line 22 into f, a thunk to fib that returns without going
 * there: gdb's step-resume breakpoint at fib (after its prologue, moved
 * to the end of the row) has no frame and stays, so the step runs on
 * through lines 23 and 24 until main calls fib at line 25. */
static void test_step_into_thunk_target_not_reached(void **state)
{
	struct fixture *f = fix_new(fx_program);
	uint64_t pos = fx_num(&f->s, 0x401191, 0);

	(void)state;
	f->env.thunk_target = f_thunk_to_fib;
	pos = STEP(pos, 0x401153);
	assert_int_equal(pos, fx_num(&f->s, 0x401153, 0));
	fix_free(f);
}

/* gdb: break 25 ... reverse-next, then reverse-step repeatedly. */
static void test_reverse_step_sequence(void **state)
{
	static const uint64_t rs[] = {
		0x40119e, 0x401145, 0x401142, 0x40113f, 0x40111b, 0x401115, 0x40110d,
		0x401135, 0x40111b, 0x401115, 0x40110d, 0x401128, 0x401191, 0x40118a,
	};
	struct fixture *f = fix_new(fx_program);
	uint64_t pos = fx_num(&f->s, 0x4011af, 0), prev;
	size_t i;

	(void)state;
	pos = RNEXT(pos, 0x4011a2);
	for (i = 0; i < sizeof(rs) / sizeof(rs[0]); i++) {
		prev = pos;
		pos = RSTEP(pos, rs[i]);
		assert_true(pos < prev);
	}
	/* line 21 -> back through main's entry into start: the beginning */
	pos = mv(f, pos, PTD_MOTION_STEP, 1, PTD_REPLAY_BEGIN, FX_START);
	assert_int_equal(pos, 1);
	mv(f, 1, PTD_MOTION_STEP, 1, PTD_REPLAY_BEGIN, FX_START);
	fix_free(f);
}

/* gdb: break f, record, step repeatedly (h has no line info). */
static void test_forward_step_sequence(void **state)
{
	static const uint64_t st[] = {
		0x40110d, 0x401115, 0x40111b, 0x401135, 0x40110d, 0x401115, 0x40111b,
		0x40113f, 0x401142, 0x401145, 0x40119e, 0x4011a2, 0x4011af, 0x401153,
	};
	struct fixture *f = fix_new(fx_program);
	uint64_t pos = fx_num(&f->s, 0x401128, 0);
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(st) / sizeof(st[0]); i++)
		pos = STEP(pos, st[i]);
	assert_int_equal(seg_at(f, pos)->level, 2);
	/* next steps over f, h and fib from main */
	pos = NEXT(fx_num(&f->s, 0x40118a, 0), 0x401191);
	pos = NEXT(pos, 0x40119e);
	pos = NEXT(pos, 0x4011a2);
	pos = NEXT(pos, 0x4011af);
	pos = NEXT(pos, 0x4011bc);
	pos = NEXT(pos, 0x4011c9); /* back from f at line 26's second row: same line */
	pos = NEXT(pos, 0x4011cf);
	/* out of main into start (no line info): stop there, at the tail */
	{
		struct ptd_replay_result r;

		assert_int_equal(ptd_replay_move(f->s.h, f->c, pos, PTD_MOTION_NEXT, 0, &f->env,
						 &r), 0);
		assert_int_equal(r.stop, PTD_REPLAY_END);
		assert_int_equal(r.number, ptd_history_count(f->s.h));
		assert_false(r.incomplete);
	}
	fix_free(f);
}

/* gdb: break 28, then reverse-step/next through fib(4) and forward again. */
static void test_recursion(void **state)
{
	struct fixture *f = fix_new(fx_program);
	uint64_t pos = fx_num(&f->s, 0x4011cf, 0), back, p2;
	uint64_t after_fib = fx_num(&f->s, 0x4011b9, 0);
	const struct ptd_callseg *s;

	(void)state;
	pos = RSTEP(pos, 0x4011c9);
	pos = RNEXT(pos, 0x4011c6);
	pos = RNEXT(pos, 0x4011bc);
	pos = RSTEP(pos, 0x40117c); /* fib (n=4) at t.c:18 */
	assert_int_equal(pos, after_fib - 3);
	s = seg_at(f, pos);
	assert_int_equal(s->level, 2);
	back = pos;
	pos = RSTEP(pos, 0x40117a);
	assert_int_equal(pos, back - 1);
	p2 = RSTEP(pos, 0x40117c); /* fib (n=2) at t.c:18: fib(4)'s second call */
	assert_int_equal(p2, pos - 3);
	assert_int_equal(seg_at(f, p2)->level, 3);
	pos = RNEXT(p2, 0x40117a);
	assert_int_equal(seg_at(f, pos)->instance, seg_at(f, p2)->instance);
	/* reverse-finish as gdb 13 does it: back to the most recent entry of
	 * fib, whichever call that was -- here fib(2)'s own last call, not
	 * fib(4)'s call of fib(2) -- then onto that call (one level deeper
	 * than the frame's own caller; gdb's record full lands there too) */
	back = mv(f, pos, PTD_MOTION_FINISH, 1, PTD_REPLAY_DONE, 0x401175);
	assert_int_equal(seg_at(f, back)->level, 3);
	assert_int_equal(seg_at(f, back + 1)->how, PTD_SEG_CALL);
	assert_int_equal(seg_at(f, back)->instance, seg_at(f, pos)->instance);
	/* once more from that call (fib(2)'s fib(n - 2)): fib(1)'s entry is
	 * the most recent, so onto fib(2)'s first call, fib(n - 1); and from
	 * there fib(2)'s own entry: onto fib(4)'s call of fib(2) */
	p2 = mv(f, back, PTD_MOTION_FINISH, 1, PTD_REPLAY_DONE, 0x401166);
	assert_int_equal(seg_at(f, p2)->level, 3);
	assert_int_equal(seg_at(f, p2)->instance, seg_at(f, pos)->instance);
	p2 = mv(f, p2, PTD_MOTION_FINISH, 1, PTD_REPLAY_DONE, 0x401175);
	assert_int_equal(seg_at(f, p2)->level, 2);
	assert_int_equal(seg_at(f, p2 + 1)->how, PTD_SEG_CALL);
	assert_int_equal(seg_at(f, p2 + 1)->instance, seg_at(f, pos)->instance);
	back = p2;
	/* finish from inside fib(2): right after that call */
	mv(f, pos, PTD_MOTION_FINISH, 0, PTD_REPLAY_DONE, 0x40117a);
	/* fib(2): line 17 -> 15 -> back into fib(4) at the row of the call */
	pos = RNEXT(fx_num(&f->s, 0x401166, back), 0x40115e);
	assert_int_equal(seg_at(f, pos)->level, 3);
	pos = RNEXT(pos, 0x401153);
	pos = RNEXT(pos, 0x40116d);
	assert_int_equal(seg_at(f, pos)->level, 2);
	/* reverse-step into fib(3) at its last line, then line 17 */
	pos = RSTEP(pos, 0x40117c);
	assert_int_equal(seg_at(f, pos)->level, 3);
	pos = RSTEP(pos, 0x40117a);
	/* forward: next to line 18 in fib(3), then out into fib(4)'s line 18 */
	pos = NEXT(pos, 0x40117c);
	assert_int_equal(seg_at(f, pos)->level, 3);
	pos = NEXT(pos, 0x40117c);
	assert_int_equal(seg_at(f, pos)->level, 2);
	/* finish fib(4): main after the call */
	pos = mv(f, pos, PTD_MOTION_FINISH, 0, PTD_REPLAY_DONE, 0x4011b9);
	assert_int_equal(pos, after_fib);

	/* break 17; reverse-continue twice: fib(2) (second), fib(2) (first) */
	f->bps.addr[0] = 0x40115e;
	f->bps.n = 1;
	p2 = mv(f, pos, PTD_MOTION_CONTINUE, 1, PTD_REPLAY_BREAKPOINT, 0x40115e);
	assert_int_equal(seg_at(f, p2)->level, 3);
	pos = mv(f, p2, PTD_MOTION_CONTINUE, 1, PTD_REPLAY_BREAKPOINT, 0x40115e);
	assert_int_equal(seg_at(f, pos)->level, 4);
	f->bps.n = 0;
	/* next skips the recursive calls: same frame, line 18 */
	back = NEXT(pos, 0x40117c);
	assert_int_equal(seg_at(f, back)->instance, seg_at(f, pos)->instance);
	back = NEXT(back, 0x40117c);
	assert_int_equal(seg_at(f, back)->level, 3);
	fix_free(f);
}

static void test_stepi_nexti(void **state)
{
	struct fixture *f = fix_new(fx_program);
	uint64_t call = fx_num(&f->s, 0x401196, 0), pos;
	uint64_t count = ptd_history_count(f->s.h);

	(void)state;
	assert_int_equal(mv(f, call, PTD_MOTION_STEPI, 0, PTD_REPLAY_DONE, FX_F), call + 1);
	pos = mv(f, call, PTD_MOTION_NEXTI, 0, PTD_REPLAY_DONE, 0x40119b);
	assert_int_equal(mv(f, pos, PTD_MOTION_NEXTI, 1, PTD_REPLAY_DONE, 0x401196), call);
	assert_int_equal(mv(f, pos, PTD_MOTION_STEPI, 1, PTD_REPLAY_DONE, 0x401146), pos - 1);
	/* nexti on a non-call is stepi; reverse-nexti after a ret-less insn too */
	assert_int_equal(mv(f, call - 1, PTD_MOTION_NEXTI, 0, PTD_REPLAY_DONE, 0x401196), call);
	/* the ends: gdb's record full says "No more reverse-execution history."
	 * when a reverse motion reaches the first instruction */
	mv(f, 2, PTD_MOTION_STEPI, 1, PTD_REPLAY_BEGIN, FX_START);
	mv(f, 1, PTD_MOTION_STEPI, 1, PTD_REPLAY_BEGIN, FX_START);
	{
		struct ptd_replay_result r;

		assert_int_equal(ptd_replay_move(f->s.h, f->c, count - 1, PTD_MOTION_STEPI, 0,
						 &f->env, &r), 0);
		assert_int_equal(r.stop, PTD_REPLAY_END);
		assert_int_equal(r.number, count);
		assert_false(r.incomplete);
		assert_int_equal(ptd_replay_move(f->s.h, f->c, count, PTD_MOTION_STEPI, 0,
						 &f->env, &r), 0);
		assert_int_equal(r.stop, PTD_REPLAY_END);
		assert_int_equal(r.number, count);
		assert_true(r.incomplete);
		/* bad arguments */
		assert_int_equal(ptd_replay_move(f->s.h, f->c, 0, PTD_MOTION_STEPI, 0, &f->env,
						 &r), -ptde_invalid);
		assert_int_equal(ptd_replay_move(f->s.h, f->c, count + 1, PTD_MOTION_STEPI, 0,
						 &f->env, &r), -ptde_invalid);
		assert_int_equal(ptd_replay_move(f->s.h, NULL, 1, PTD_MOTION_NEXT, 0, &f->env,
						 &r), -ptde_invalid);
		assert_int_equal(ptd_replay_move(NULL, f->c, 1, PTD_MOTION_NEXT, 0, &f->env, &r),
				 -ptde_invalid);
		/* stepi works without segments and without an env */
		assert_int_equal(ptd_replay_move(f->s.h, NULL, 1, PTD_MOTION_STEPI, 0, NULL, &r), 0);
		assert_int_equal(r.number, 2);
	}
	fix_free(f);
}

static void test_finish(void **state)
{
	struct fixture *f = fix_new(fx_program);
	uint64_t in_g = fx_num(&f->s, 0x401115, 0), pos;

	(void)state;
	/* gdb: reverse-finish from g stops at the call in f (0x40112d);
	 * finish stops at the instruction after it */
	pos = mv(f, in_g, PTD_MOTION_FINISH, 1, PTD_REPLAY_DONE, 0x40112d);
	assert_int_equal(seg_at(f, pos)->level, 2);
	pos = mv(f, in_g, PTD_MOTION_FINISH, 0, PTD_REPLAY_DONE, 0x401132);
	/* finish from f: main after the call; from main: start after the call,
	 * which is the tail (done, not incomplete) */
	pos = mv(f, pos, PTD_MOTION_FINISH, 0, PTD_REPLAY_DONE, 0x40119b);
	{
		struct ptd_replay_result r;

		assert_int_equal(ptd_replay_move(f->s.h, f->c, pos, PTD_MOTION_FINISH, 0, &f->env,
						 &r), 0);
		assert_int_equal(r.stop, PTD_REPLAY_END);
		assert_int_equal(r.ip, FX_START + 5);
		assert_false(r.incomplete);
	}
	/* reverse-finish from main: the call in start is position 1 */
	mv(f, pos, PTD_MOTION_FINISH, 1, PTD_REPLAY_BEGIN, FX_START);
	/* a breakpoint inside the callee stops finish */
	f->bps.addr[0] = 0x40110d;
	f->bps.n = 1;
	pos = mv(f, fx_num(&f->s, 0x401128, 0), PTD_MOTION_FINISH, 0, PTD_REPLAY_BREAKPOINT,
		 0x40110d);
	/* and next over a call that hits one */
	mv(f, fx_num(&f->s, 0x401191, 0), PTD_MOTION_NEXT, 0, PTD_REPLAY_BREAKPOINT, 0x40110d);
	mv(f, fx_num(&f->s, 0x40119e, 0), PTD_MOTION_NEXT, 1, PTD_REPLAY_BREAKPOINT, 0x40110d);
	fix_free(f);
}

static void test_continue(void **state)
{
	struct fixture *f = fix_new(fx_program);
	uint64_t count = ptd_history_count(f->s.h), g1, g2, pos;
	struct ptd_replay_result r;
	int hits = 0;

	(void)state;
	f->bps.addr[0] = 0x500000; /* never executed */
	f->bps.addr[1] = FX_G;
	f->bps.n = 2;
	g1 = mv(f, 1, PTD_MOTION_CONTINUE, 0, PTD_REPLAY_BREAKPOINT, FX_G);
	assert_int_equal(g1, fx_num(&f->s, FX_G, 0));
	/* not at the start position: the next hit */
	g2 = mv(f, g1, PTD_MOTION_CONTINUE, 0, PTD_REPLAY_BREAKPOINT, FX_G);
	assert_int_equal(g2, fx_num(&f->s, FX_G, g1));
	assert_int_equal(mv(f, g2, PTD_MOTION_CONTINUE, 1, PTD_REPLAY_BREAKPOINT, FX_G), g1);
	assert_int_equal(ptd_replay_move(f->s.h, f->c, g2, PTD_MOTION_CONTINUE, 1, &f->env, &r),
			 0);
	assert_int_equal(r.bp_id, 2);
	/* g is called 4 times */
	pos = 1;
	for (;;) {
		assert_int_equal(ptd_replay_move(f->s.h, f->c, pos, PTD_MOTION_CONTINUE, 0, &f->env,
						 &r), 0);
		if (r.stop != PTD_REPLAY_BREAKPOINT)
			break;
		hits++;
		pos = r.number;
	}
	assert_int_equal(hits, 4);
	assert_int_equal(r.stop, PTD_REPLAY_END);
	assert_true(r.incomplete);
	assert_int_equal(r.number, count);
	/* without breakpoints: the ends */
	f->bps.n = 0;
	mv(f, g1, PTD_MOTION_CONTINUE, 1, PTD_REPLAY_BEGIN, FX_START);
	assert_int_equal(ptd_replay_move(f->s.h, f->c, g1, PTD_MOTION_CONTINUE, 0, &f->env, &r), 0);
	assert_int_equal(r.stop, PTD_REPLAY_END);
	assert_int_equal(r.number, count);
	fix_free(f);
}

/* Recording that ends in the middle of g's line 4 (the tail at 0x401112). */
static void prog_partial(struct fx_sim *s)
{
	fx_run(s, 0x401182, 0x401196, PTD_IC_CALL, 0);
	fx_run(s, 0x40111d, 0x40112d, PTD_IC_CALL, 0);
	fx_run(s, 0x401106, 0x401110, PTD_IC_OTHER, PTD_BLK_INTERRUPTED);
	ptd_history_set_tail(s->h, 0x401112);
	fx_push_ip(s, 0x401112);
}

static void test_end_incomplete(void **state)
{
	struct fixture *f = fix_new(prog_partial);
	struct ptd_replay_result r;
	uint64_t count = ptd_history_count(f->s.h);
	uint64_t l4 = fx_num(&f->s, 0x40110d, 0);

	(void)state;
	/* next from line 4 cannot finish the line inside the history */
	assert_int_equal(ptd_replay_move(f->s.h, f->c, l4, PTD_MOTION_NEXT, 0, &f->env, &r), 0);
	assert_int_equal(r.stop, PTD_REPLAY_END);
	assert_int_equal(r.number, count);
	assert_int_equal(r.ip, 0x401112);
	assert_true(r.incomplete);
	assert_int_equal(r.returns, 0);
	assert_int_equal(r.range.line, 4);
	assert_int_equal(r.range.lo, 0x40110d);
	assert_int_equal(r.into_pc, 0);
	/* finish from g: the return is not recorded */
	assert_int_equal(ptd_replay_move(f->s.h, f->c, l4, PTD_MOTION_FINISH, 0, &f->env, &r), 0);
	assert_int_equal(r.stop, PTD_REPLAY_END);
	assert_true(r.incomplete);
	assert_int_equal(r.returns, 1);
	/* finish from f (at its call of g): two returns to go */
	assert_int_equal(ptd_replay_move(f->s.h, f->c, fx_num(&f->s, 0x40112d, 0),
					 PTD_MOTION_FINISH, 0, &f->env, &r), 0);
	assert_int_equal(r.stop, PTD_REPLAY_END);
	assert_int_equal(r.returns, 2);
	/* next from main's line 22 ends inside f -> g: two returns, line 22 */
	assert_int_equal(ptd_replay_move(f->s.h, f->c, fx_num(&f->s, 0x401191, 0),
					 PTD_MOTION_NEXT, 0, &f->env, &r), 0);
	assert_int_equal(r.stop, PTD_REPLAY_END);
	assert_true(r.incomplete);
	assert_int_equal(r.returns, 2);
	assert_int_equal(r.range.line, 22);
	/* step from main's line 22 enters f and stops after its prologue */
	assert_int_equal(ptd_replay_move(f->s.h, f->c, fx_num(&f->s, 0x401191, 0),
					 PTD_MOTION_STEP, 0, &f->env, &r), 0);
	assert_int_equal(r.stop, PTD_REPLAY_DONE);
	assert_int_equal(r.ip, 0x401128);
	/* step from f's line 9 into g stops at line 4 before the end */
	STEP(fx_num(&f->s, 0x401128, 0), 0x40110d);
	/* stepping into g from its entry: entry is line 3 */
	assert_int_equal(ptd_replay_move(f->s.h, f->c, count - 2, PTD_MOTION_STEPI, 0, &f->env,
					 &r), 0);
	assert_int_equal(r.stop, PTD_REPLAY_DONE);
	fix_free(f);
}

/* Recording that ends inside f's prologue (the tail at 0x401121). */
static void prog_prologue(struct fx_sim *s)
{
	fx_run(s, 0x401182, 0x401196, PTD_IC_CALL, 0);
	fx_run(s, 0x40111d, 0x40111e, PTD_IC_OTHER, PTD_BLK_INTERRUPTED);
	ptd_history_set_tail(s->h, 0x401121);
	fx_push_ip(s, 0x401121);
}

static void test_end_in_step_into(void **state)
{
	struct fixture *f = fix_new(prog_prologue);
	struct ptd_replay_result r;

	(void)state;
	assert_int_equal(ptd_replay_move(f->s.h, f->c, fx_num(&f->s, 0x401191, 0),
					 PTD_MOTION_STEP, 0, &f->env, &r), 0);
	assert_int_equal(r.stop, PTD_REPLAY_END);
	assert_true(r.incomplete);
	assert_int_equal(r.into_pc, 0x401128);
	assert_int_equal(r.returns, 0);
	/* next steps over f: one return to go, still line 22 */
	assert_int_equal(ptd_replay_move(f->s.h, f->c, fx_num(&f->s, 0x401191, 0),
					 PTD_MOTION_NEXT, 0, &f->env, &r), 0);
	assert_int_equal(r.stop, PTD_REPLAY_END);
	assert_int_equal(r.into_pc, 0);
	assert_int_equal(r.returns, 1);
	assert_int_equal(r.range.line, 22);
	fix_free(f);
}

/* Motions step over gaps, as gdb's record btrace does: none ends on one. */
static void prog_gap(struct fx_sim *s)
{
	fx_run(s, 0x401182, 0x401196, PTD_IC_CALL, 0);
	fx_run(s, 0x40111d, 0x40112d, PTD_IC_CALL, 0);
	ptd_history_append_gap(s->h, PTD_GAP_OVERFLOW, 0, "overflow");
	fx_push_ip(s, 0);
	fx_run(s, 0x40113f, 0x401146, PTD_IC_RET, 0);
	fx_run(s, 0x40119b, 0x4011a7, PTD_IC_CALL, 0);
	ptd_history_set_tail(s->h, FX_H);
	fx_push_ip(s, FX_H);
}

/* The history of prog_gap behind a lost-data gap, and followed by one,
 * without a tail (a loaded trace). */
static void prog_gap_ends(struct fx_sim *s)
{
	ptd_history_append_gap(s->h, PTD_GAP_LOST, 0, "lost");
	fx_push_ip(s, 0);
	fx_run(s, 0x401182, 0x401196, PTD_IC_CALL, 0);
	fx_run(s, 0x40111d, 0x40112d, PTD_IC_CALL, 0);
	ptd_history_append_gap(s->h, PTD_GAP_OVERFLOW, 0, "overflow");
	fx_push_ip(s, 0);
}

static void test_gap(void **state)
{
	struct fixture *f = fix_new(prog_gap);
	uint64_t gap = 15, count = ptd_history_count(f->s.h), first, last;
	struct ptd_replay_result r;
	int m, rev;

	(void)state;
	assert_int_equal(f->s.ips[gap - 1], 0);
	/* continue runs through the gap to the end, and back to the start */
	assert_int_equal(mv(f, 1, PTD_MOTION_CONTINUE, 0, PTD_REPLAY_END, FX_H), count);
	assert_int_equal(mv(f, count, PTD_MOTION_CONTINUE, 1, PTD_REPLAY_BEGIN, 0x401182), 1);
	/* stepi crosses it both ways */
	assert_int_equal(mv(f, gap - 1, PTD_MOTION_STEPI, 0, PTD_REPLAY_DONE, 0x40113f), gap + 1);
	assert_int_equal(mv(f, gap + 1, PTD_MOTION_STEPI, 1, PTD_REPLAY_DONE, 0x40112d), gap - 1);
	/* and says which gap it stepped over */
	assert_int_equal(ptd_replay_move(f->s.h, f->c, gap - 1, PTD_MOTION_STEPI, 0, &f->env, &r), 0);
	assert_int_equal(r.gaps_crossed, 1);
	assert_int_equal(r.first_gap, gap);
	assert_int_equal(r.first_gap_reason, PTD_GAP_OVERFLOW);
	assert_int_equal(ptd_replay_move(f->s.h, f->c, gap - 2, PTD_MOTION_STEPI, 0, &f->env, &r), 0);
	assert_int_equal(r.gaps_crossed, 0);
	/* no motion from either side ends on it */
	for (m = PTD_MOTION_STEPI; m <= PTD_MOTION_CONTINUE; m++)
		for (rev = 0; rev < 2; rev++) {
			uint64_t from = rev ? gap + 1 : gap - 1;

			assert_int_equal(ptd_replay_move(f->s.h, f->c, from, (enum ptd_motion)m, rev,
							 &f->env, &r), 0);
			assert_true(r.number != gap);
			assert_true(r.ip != 0);
			assert_true(r.stop != PTD_REPLAY_GAP && r.stop != PTD_REPLAY_ERROR);
		}
	/* after the gap, f continues: finish from it reaches main */
	mv(f, gap + 2, PTD_MOTION_FINISH, 0, PTD_REPLAY_DONE, 0x40119b);
	fix_free(f);

	/* Gaps at both ends: the motions end at the first and the last
	 * instruction, never on a gap. */
	f = fix_new(prog_gap_ends);
	count = ptd_history_count(f->s.h);
	first = 2;
	last = count - 1;
	assert_int_equal(ptd_replay_first_insn(f->s.h), first);
	assert_int_equal(f->s.ips[count - 1], 0);
	assert_int_equal(mv(f, first + 3, PTD_MOTION_CONTINUE, 1, PTD_REPLAY_BEGIN, 0x401182), first);
	assert_int_equal(mv(f, first, PTD_MOTION_STEPI, 1, PTD_REPLAY_BEGIN, 0x401182), first);
	assert_int_equal(mv(f, first + 1, PTD_MOTION_STEPI, 1, PTD_REPLAY_BEGIN, 0x401182), first);
	assert_int_equal(mv(f, first, PTD_MOTION_CONTINUE, 0, PTD_REPLAY_END, 0x40112d), last);
	assert_int_equal(mv(f, last, PTD_MOTION_STEPI, 0, PTD_REPLAY_END, 0x40112d), last);
	fix_free(f);
}

/* f is interrupted after 0x401128 by a signal whose handler has lines;
 * the handler returns through the sigreturn trampoline to 0x40112b. */
static void prog_signal(struct fx_sim *s)
{
	fx_run(s, 0x40111d, 0x401128, PTD_IC_OTHER, PTD_BLK_INTERRUPTED);
	ptd_history_append_event(s->h, PTD_EV_SIGNAL, 0x40112b, 10);
	fx_run(s, FX_HANDLER, FX_HANDLER + 6, PTD_IC_RET, 0);
	fx_run(s, FX_RESTORER, FX_RESTORER + 7, PTD_IC_FAR_CALL, PTD_BLK_SYSCALL);
	fx_run(s, 0x40112b, 0x40112d, PTD_IC_CALL, 0);
	fx_g(s);
	fx_run(s, 0x401132, 0x40113a, PTD_IC_CALL, 0);
	ptd_history_set_tail(s->h, FX_G);
	fx_push_ip(s, FX_G);
}

/* As gdb (checked on a program that signals itself with a raw syscall):
 * reverse-step from after the signal enters the handler at its last line,
 * stepping goes through the trampoline back to the interrupted frame, and
 * next/step over the interrupted line skip the handler. */
static void test_signal_handler(void **state)
{
	struct fixture *f = fix_new(prog_signal);
	uint64_t pos;

	(void)state;
	pos = RSTEP(fx_num(&f->s, 0x40112d, 0), FX_HANDLER + 5);
	assert_int_equal(seg_at(f, pos)->how, PTD_SEG_SIGNAL);
	pos = RSTEP(pos, FX_HANDLER + 4);
	/* from the handler's first line back to the interrupted line */
	pos = RSTEP(pos, 0x401128);
	assert_int_equal(seg_at(f, pos)->level, 0);
	/* reverse-next skips the handler */
	RNEXT(fx_num(&f->s, 0x401135, 0), 0x401128);
	/* forward: out of the handler through the trampoline */
	NEXT(fx_num(&f->s, FX_HANDLER + 5, 0), 0x401135);
	/* step goes on into g, called by the rest of the interrupted line */
	STEP(fx_num(&f->s, FX_HANDLER + 5, 0), 0x40110d);
	/* over the signal from the interrupted line */
	NEXT(fx_num(&f->s, 0x401128, 0), 0x401135);
	STEP(fx_num(&f->s, 0x401128, 0), 0x40110d);
	/* finish from the handler: back in f where it was interrupted */
	mv(f, fx_num(&f->s, FX_HANDLER + 4, 0), PTD_MOTION_FINISH, 0, PTD_REPLAY_DONE, 0x40112b);
	/* reverse-finish: the last instruction before the signal */
	mv(f, fx_num(&f->s, FX_HANDLER + 4, 0), PTD_MOTION_FINISH, 1, PTD_REPLAY_DONE, 0x401128);
	fix_free(f);
}

/* tcc calls g through the PLT-like stub (an indirect jump to g's entry:
 * a tail call one level further down). */
static void prog_plt(struct fx_sim *s)
{
	fx_run(s, FX_TCC, FX_TCC, PTD_IC_CALL, 0);
	fx_run(s, FX_PLT, FX_PLT, PTD_IC_JUMP, 0);
	fx_g(s);
	fx_run(s, FX_TCC + 5, FX_TCC + 6, PTD_IC_RET, 0);
	ptd_history_set_tail(s->h, 0x4011ac);
	fx_push_ip(s, 0x4011ac);
}

static int plt_tramp(void *ctx, uint64_t addr)
{
	(void)ctx;
	return addr >= FX_PLT && addr < FX_PLT + 6;
}

static void test_step_through_stub(void **state)
{
	struct fixture *f = fix_new(prog_plt);
	uint64_t pos;

	(void)state;
	/* step into the stub (no lines) goes on into g, after its prologue */
	pos = STEP(1, 0x40110d);
	assert_int_equal(seg_at(f, pos)->how, PTD_SEG_TAILCALL);
	assert_int_equal(seg_at(f, pos)->level, 2);
	/* reverse-step from after the return enters g at its last line */
	pos = RSTEP(fx_num(&f->s, FX_TCC + 5, 0), 0x40111b);
	/* finish from g: back in tcc after the call (the stub is skipped) */
	mv(f, pos, PTD_MOTION_FINISH, 0, PTD_REPLAY_DONE, FX_TCC + 5);
	/* reverse-finish from g: back to tcc's call, through the stub
	 * (a trampoline: gdb's reverse stepping goes on through those), as
	 * gdb's record full does (checked with testprogs/fib: reverse-finish
	 * from printf stops at main's call, with printf@plt bound at load or
	 * lazily) */
	f->env.in_trampoline = plt_tramp;
	mv(f, pos, PTD_MOTION_FINISH, 1, PTD_REPLAY_BEGIN, FX_TCC); /* (the history's start) */
	/* nexti over the call */
	mv(f, 1, PTD_MOTION_NEXTI, 0, PTD_REPLAY_DONE, FX_TCC + 5);
	fix_free(f);
}

/* g (lines) ends in a jump to h (no lines): a tail call, as -O2 code
 * does; h returns to f. */
static void prog_tailjump(struct fx_sim *s)
{
	fx_run(s, 0x401128, 0x40112d, PTD_IC_CALL, 0);
	fx_run(s, 0x401106, 0x401112, PTD_IC_JUMP, 0);
	fx_h(s);
	fx_run(s, 0x401132, 0x40113a, PTD_IC_CALL, 0);
	ptd_history_set_tail(s->h, FX_G);
	fx_push_ip(s, FX_G);
}

/* As gdb on an -O2 build (checked: g's `return h(y + 1)` as jmp h):
 * step/next from g stop at h's entry (the frame's new function has no
 * lines), and reverse-step from the caller enters g across h. */
static void test_tail_jump(void **state)
{
	struct fixture *f = fix_new(prog_tailjump);
	uint64_t l4 = fx_num(&f->s, 0x40110d, 0);

	(void)state;
	assert_int_equal(seg_at(f, fx_num(&f->s, FX_H, 0))->how, PTD_SEG_TAILCALL);
	STEP(l4, FX_H);
	NEXT(l4, FX_H);
	STEP(1, 0x40110d);
	RSTEP(fx_num(&f->s, 0x401132, 0), 0x40110d);
	/* reverse-next steps over g and h back to line 9, which is position 1 */
	mv(f, fx_num(&f->s, 0x401132, 0), PTD_MOTION_NEXT, 1, PTD_REPLAY_BEGIN, 0x401128);
	/* finish from h returns to f, past g */
	mv(f, fx_num(&f->s, FX_H + 4, 0), PTD_MOTION_FINISH, 0, PTD_REPLAY_DONE, 0x401132);
	/* reverse-finish from h: one step back from h's entry, onto g's
	 * jump (gdb's stepi after its breakpoint at the entry; only
	 * trampolines are gone through: testprogs/libcb-O2's msort_with_tmp
	 * ending in a jump to memcpy) */
	mv(f, fx_num(&f->s, FX_H + 4, 0), PTD_MOTION_FINISH, 1, PTD_REPLAY_DONE, 0x401112);
	fix_free(f);
}

/* g jumps to h through the PLT-like stub (-O2 `return h(x)`). */
static void prog_tail_plt(struct fx_sim *s)
{
	fx_run(s, 0x401128, 0x40112d, PTD_IC_CALL, 0);
	fx_run(s, 0x401106, 0x401112, PTD_IC_JUMP, 0);
	fx_run(s, FX_PLT, FX_PLT, PTD_IC_JUMP, 0);
	fx_h(s);
	fx_run(s, 0x401132, 0x40113a, PTD_IC_CALL, 0);
	ptd_history_set_tail(s->h, FX_G);
	fx_push_ip(s, FX_G);
}

/* gdb steps through PLT stubs and the dynamic linker (when the session
 * says which code that is): reverse-step out of a function reached
 * through a stub does not stop in the stub; step through a tail jump to a
 * stub goes on to the function, next stops in the stub. */
static void test_trampolines(void **state)
{
	struct fixture *f = fix_new(prog_plt);
	uint64_t l4 = fx_num(&f->s, 0x40110d, 0);

	(void)state;
	RSTEP(l4, FX_PLT);
	f->env.in_trampoline = plt_tramp;
	mv(f, l4, PTD_MOTION_STEP, 1, PTD_REPLAY_BEGIN, FX_TCC);
	fix_free(f);

	f = fix_new(prog_tail_plt);
	l4 = fx_num(&f->s, 0x40110d, 0);
	STEP(l4, FX_PLT);
	f->env.in_trampoline = plt_tramp;
	STEP(l4, FX_H);
	NEXT(l4, FX_PLT);
	fix_free(f);
}

/* g longjmps (a jump into the middle of main, an ancestor frame). */
static void prog_longjmp(struct fx_sim *s)
{
	fx_run(s, 0x401182, 0x401196, PTD_IC_CALL, 0);
	fx_run(s, 0x40111d, 0x40112d, PTD_IC_CALL, 0);
	fx_run(s, 0x401106, 0x401112, PTD_IC_JUMP, 0);
	fx_run(s, 0x40119b, 0x4011a7, PTD_IC_CALL, 0);
	fx_h(s);
	fx_run(s, 0x4011ac, 0x4011b4, PTD_IC_CALL, 0);
	ptd_history_set_tail(s->h, FX_FIB);
	fx_push_ip(s, FX_FIB);
}

/* The landing is a return into main's frame.  gdb stops next/step/finish
 * of the frame that jumps where the longjmp lands; a step over a call
 * (next, nexti) ends at the call's return address in the stepping frame
 * (gdb's step-resume breakpoint, checked against gdb 13 record full on
 * testprogs/longjmp and throw): main's call of f lands there, f's nexti
 * over the call of g never gets back and runs to the end. */
static void test_longjmp(void **state)
{
	struct fixture *f = fix_new(prog_longjmp);
	uint64_t land = fx_num(&f->s, 0x40119b, 0);
	const struct ptd_callseg *sw = seg_at(f, land);

	(void)state;
	assert_int_equal(sw->how, PTD_SEG_SWITCH);
	assert_int_equal(sw->level, 0);
	assert_int_equal(sw->instance, 1);
	assert_int_equal(sw->unwound_to, 1);
	assert_int_equal(NEXT(fx_num(&f->s, 0x401191, 0), 0x40119b), land);
	NEXT(fx_num(&f->s, 0x40110d, 0), 0x40119b);
	STEP(fx_num(&f->s, 0x40110d, 0), 0x40119b);
	mv(f, fx_num(&f->s, 0x40110d, 0), PTD_MOTION_FINISH, 0, PTD_REPLAY_DONE, 0x40119b);
	mv(f, fx_num(&f->s, 0x40112d, 0), PTD_MOTION_NEXTI, 0, PTD_REPLAY_END, FX_FIB);
	mv(f, fx_num(&f->s, 0x401196, 0), PTD_MOTION_NEXTI, 0, PTD_REPLAY_DONE, 0x40119b);
	/* reverse-step from the landing itself goes back into the jump that
	 * made it, as from the instruction after it (gdb: testprogs/sigjmp-O2,
	 * where the landing is the line's first instruction) */
	RSTEP(land, 0x40110d);
	/* after the landing main goes on in its own frame */
	STEP(land + 1, 0x4011a2);
	NEXT(fx_num(&f->s, 0x4011a2, 0), 0x4011af);
	fix_free(f);
}

/* main calls f, whose first call of g ends in a jump back into f (an
 * exception thrown in g and caught in f); f goes on and returns. */
static void prog_caught_inside(struct fx_sim *s)
{
	fx_run(s, 0x401182, 0x401196, PTD_IC_CALL, 0);
	fx_run(s, 0x40111d, 0x40112d, PTD_IC_CALL, 0);
	fx_run(s, 0x401106, 0x401112, PTD_IC_JUMP, 0);
	fx_run(s, 0x401132, 0x40113a, PTD_IC_CALL, 0);
	fx_g(s);
	fx_run(s, 0x40113f, 0x401146, PTD_IC_RET, 0);
	fx_run(s, 0x40119b, 0x4011a7, PTD_IC_CALL, 0);
	ptd_history_set_tail(s->h, FX_H);
	fx_push_ip(s, FX_H);
}

/* reverse-next and reverse-step over main's call of f go back over the
 * landing inside f as over anything else inside the call (gdb 13 on
 * testprogs/inherit: reverse-next over layered, whose inner catch
 * rethrows to its outer one), to the start of line 22; only a landing in
 * the frame being stepped (test_longjmp) is judged by the line rules. */
static void test_reverse_over_landing_in_callee(void **state)
{
	struct fixture *f = fix_new(prog_caught_inside);
	uint64_t land = fx_num(&f->s, 0x401132, 0), pos = fx_num(&f->s, 0x40119e, 0);

	(void)state;
	assert_int_equal(seg_at(f, land)->how, PTD_SEG_SWITCH);
	assert_int_equal(seg_at(f, land)->level, 1);
	RNEXT(pos, 0x401191);
	fix_free(f);
}

/* Random programs built from the fixture's functions with gaps and
 * signals; every motion from every few positions must end inside the
 * history, on the right side of its start, and agree with the cursor. */
static uint64_t lcg = 12345;

static unsigned rnd(unsigned n)
{
	lcg = lcg * 6364136223846793005ull + 1442695040888963407ull;
	return (unsigned)(lcg >> 33) % n;
}

static void prog_random(struct fx_sim *s)
{
	int i;

	fx_run(s, FX_START, FX_START, PTD_IC_CALL, 0);
	fx_run(s, 0x401182, 0x401196, PTD_IC_CALL, 0);
	for (i = 0; i < 40; i++) {
		switch (rnd(6)) {
		case 0:
			fx_f(s);
			break;
		case 1:
			fx_fib(s, (int)rnd(5));
			break;
		case 2:
			fx_h(s);
			break;
		case 3:
			ptd_history_append_gap(s->h, PTD_GAP_LOST, 0, NULL);
			fx_push_ip(s, 0);
			break;
		case 4:
			fx_run(s, 0x40111d, 0x401128, PTD_IC_OTHER, PTD_BLK_INTERRUPTED);
			ptd_history_append_event(s->h, PTD_EV_SIGNAL, 0x40112b, 10);
			fx_run(s, FX_HANDLER, FX_HANDLER + 6, PTD_IC_RET, 0);
			fx_run(s, FX_RESTORER, FX_RESTORER + 7, PTD_IC_FAR_CALL, PTD_BLK_SYSCALL);
			fx_run(s, 0x40112b, 0x40112d, PTD_IC_CALL, 0);
			fx_g(s);
			fx_run(s, 0x401132, 0x40113a, PTD_IC_CALL, 0);
			fx_g(s);
			fx_run(s, 0x40113f, 0x401146, PTD_IC_RET, 0);
			break;
		default:
			fx_g(s);
			break;
		}
	}
	ptd_history_set_tail(s->h, 0x40119b);
	fx_push_ip(s, 0x40119b);
}

static void test_random_motions(void **state)
{
	int round;

	(void)state;
	for (round = 0; round < 4; round++) {
		struct fixture *f = fix_new(prog_random);
		uint64_t count = ptd_history_count(f->s.h), from;
		struct ptd_hcursor c;

		assert_int_equal(count, f->s.n);
		assert_true(count > 300);
		f->bps.addr[0] = 0x401115;
		f->bps.n = round & 1;
		for (from = 1; from <= count; from += 1 + rnd(7)) {
			int m, rev;

			for (m = PTD_MOTION_STEPI; m <= PTD_MOTION_CONTINUE; m++) {
				for (rev = 0; rev < 2; rev++) {
					struct ptd_replay_result r;

					assert_int_equal(ptd_replay_move(f->s.h, f->c, from,
									 (enum ptd_motion)m, rev,
									 &f->env, &r), 0);
					assert_true(r.number >= 1 && r.number <= count);
					assert_true(rev ? r.number <= from : r.number >= from);
					assert_int_equal(r.ip, f->s.ips[r.number - 1]);
					assert_true(r.stop != PTD_REPLAY_ERROR);
					assert_true(r.stop != PTD_REPLAY_GAP);
					assert_true(r.ip != 0); /* never on a gap */
					if (r.stop == PTD_REPLAY_BEGIN)
						assert_int_equal(r.number, 1);
					if (r.stop == PTD_REPLAY_BREAKPOINT)
						assert_int_equal(r.ip, 0x401115);
					if (r.stop == PTD_REPLAY_DONE)
						assert_true(r.number != from);
					assert_int_equal(ptd_hcursor_goto(&c, f->s.h, r.number), 0);
					assert_int_equal(c.ip, r.ip);
				}
			}
		}
		fix_free(f);
	}
}

static void test_backtrace(void **state)
{
	struct fixture *f = fix_new(fx_program);
	uint64_t pcs[16], pos;
	int n;

	(void)state;
	/* the first fib(0): fib(4) -> fib(3) -> fib(2) -> fib(0) */
	pos = fx_num(&f->s, 0x401159, 0); /* fib(1) first: n < 2 path */
	pos = fx_num(&f->s, 0x401159, pos); /* then fib(0) */
	n = ptd_replay_backtrace(f->s.h, f->c, pos, pcs, 16);
	assert_int_equal(n, 6);
	assert_int_equal(pcs[0], 0x401159);
	assert_int_equal(pcs[1], 0x401175);
	assert_int_equal(pcs[2], 0x401166);
	assert_int_equal(pcs[3], 0x401166);
	assert_int_equal(pcs[4], 0x4011b4);
	assert_int_equal(pcs[5], FX_START);
	assert_int_equal(ptd_replay_backtrace(f->s.h, f->c, 1, pcs, 16), 1);
	assert_int_equal(ptd_replay_backtrace(f->s.h, f->c, 0, pcs, 16), -ptde_invalid);
	assert_int_equal(ptd_replay_backtrace(f->s.h, NULL, 1, pcs, 16), -ptde_invalid);
	fix_free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_reverse_step_sequence),
		cmocka_unit_test(test_reverse_step_split_function),
		cmocka_unit_test(test_reverse_finish_split_function),
		cmocka_unit_test(test_reverse_step_callee_of_callee),
		cmocka_unit_test(test_step_into_thunk),
		cmocka_unit_test(test_step_into_thunk_target_not_reached),
		cmocka_unit_test(test_forward_step_sequence),
		cmocka_unit_test(test_recursion),
		cmocka_unit_test(test_stepi_nexti),
		cmocka_unit_test(test_finish),
		cmocka_unit_test(test_continue),
		cmocka_unit_test(test_end_incomplete),
		cmocka_unit_test(test_end_in_step_into),
		cmocka_unit_test(test_gap),
		cmocka_unit_test(test_signal_handler),
		cmocka_unit_test(test_backtrace),
		cmocka_unit_test(test_step_through_stub),
		cmocka_unit_test(test_tail_jump),
		cmocka_unit_test(test_trampolines),
		cmocka_unit_test(test_longjmp),
		cmocka_unit_test(test_reverse_over_landing_in_callee),
		cmocka_unit_test(test_random_motions),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
