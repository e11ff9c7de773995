/*
 * Unit tests for the function-call segments (src/history/calls.c) over
 * simulated executions of real machine code: the segment sequence and
 * levels of a whole program, fib(n) making 2*F(n+1)-1 calls, recording
 * that starts inside a nested function (negative levels, up links to the
 * return), signal handler entry and sigreturn, gaps, tail calls through a
 * PLT-like stub, O(log n) lookup by number, and backtraces in the past.
 */
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "histfix.h"
#include "history/history_int.h"
#include "ptdbg/ptdbg.h"

static void same_calls(const struct ptd_calls *a, const struct ptd_calls *b)
{
	uint64_t i;

	assert_int_equal(ptd_calls_count(a), ptd_calls_count(b));
	assert_int_equal(ptd_calls_min_level(a), ptd_calls_min_level(b));
	for (i = 1; i <= ptd_calls_count(a); i++)
		assert_memory_equal(ptd_calls_get(a, i), ptd_calls_get(b, i),
				    sizeof(struct ptd_callseg));
}

/* Appends items [from, to) of @src to @dst. */
static void copy_items(struct ptd_history *dst, const struct ptd_history *src, uint64_t from,
		       uint64_t to)
{
	struct ptd_item it;

	for (; from < to; from++) {
		assert_int_equal(ptd_history_item(src, from, &it), 1);
		if (it.kind == PTD_ITEM_BLOCK)
			assert_int_equal(ptd_history_append_block(dst, &it.block), 0);
		else if (it.kind == PTD_ITEM_GAP)
			assert_int_equal(ptd_history_append_gap(dst, it.reason, it.arg, NULL), 0);
		else
			assert_int_equal(ptd_history_append_event(dst, it.reason, it.block.ip, it.arg),
					 0);
	}
}

/*
 * The call log: @h's items appended to a history that keeps one, whole,
 * in two pieces spliced (both logged), and with a logged older piece put
 * in front of an unlogged newer one (the log then covers a prefix); in
 * every case the segments built from the log equal those built from the
 * items, and @ref (built from @h).
 */
static void check_log(const struct ptd_history *h, ptd_func_of_fn f, void *ctx,
		      const struct ptd_calls *ref)
{
	uint64_t n = ptd_history_nitems(h), k, cnt, covered;
	int way;

	for (k = 0; k <= n; k += n > 12 ? n / 7 : 1) {
		for (way = 0; way < 3; way++) {
			struct ptd_history *a = ptd_history_alloc(fx_read, NULL);
			struct ptd_history *b = ptd_history_alloc(fx_read, NULL);
			struct ptd_calls *x, *y;

			ptd_history_set_func(a, f, ctx);
			if (way == 0) {
				copy_items(a, h, 0, n);
			} else {
				if (way == 1)
					ptd__history_use_funcs(b, ptd__history_funcs(a));
				copy_items(a, h, 0, k);
				copy_items(b, h, k, n);
				if (way == 1) {
					assert_int_equal(ptd_history_splice(a, b), 0);
				} else {
					assert_int_equal(ptd_history_prepend(b, a), 0);
					struct ptd_history *t = a;
					a = b;
					b = t;
				}
			}
			ptd_history_set_tail(a, ptd_history_tail(h));
			assert_non_null(ptd__history_calllog(a, &covered));
			if (way < 2)
				assert_int_equal(covered, ptd_history_nitems(a));
			x = ptd_calls_build(a, f, ctx);
			y = ptd__calls_build_items(a, f, ctx);
			assert_non_null(x);
			assert_non_null(y);
			same_calls(x, y);
			same_calls(x, ref);
			assert_int_equal(ptd_calls_count_only(a, f, ctx, &cnt), 0);
			assert_int_equal(cnt, ptd_calls_count(ref));
			ptd_calls_free(x);
			ptd_calls_free(y);
			ptd_history_free(b); /* (b may use a's func_of) */
			ptd_history_free(a);
			if (!way && k)
				break;
		}
	}
}

/*
 * Every build in these tests also checks ptd_calls_count_only(): the
 * count "info record" prints must be the number of segments built; and
 * the call log (check_log).
 */
static struct ptd_calls *build_checked(const struct ptd_history *h, ptd_func_of_fn f, void *ctx)
{
	struct ptd_calls *c = ptd_calls_build(h, f, ctx);
	uint64_t n = 12345;

	if (!h) {
		assert_int_equal(ptd_calls_count_only(h, f, ctx, &n), -ptde_invalid);
		assert_int_equal(n, 0);
		return c;
	}
	assert_non_null(c);
	assert_int_equal(ptd_calls_count_only(h, f, ctx, &n), 0);
	assert_int_equal(n, ptd_calls_count(c));
	check_log(h, f, ctx, c);
	{ /* the lazy view however small its chunks equals the eager build */
		struct ptd_calls *e = ptd__calls_build_chunked(h, f, ctx, 1, 0);
		int k, back;

		assert_non_null(e);
		same_calls(c, e);
		for (k = 1; k <= 3; k++) {
			for (back = 0; back < 2; back++) {
				struct ptd_calls *l = ptd__calls_build_chunked(h, f, ctx, back, k);
				uint64_t i, n = ptd_calls_count(e);

				assert_non_null(l);
				assert_int_equal(ptd_calls_count(l), n);
				for (i = 1; i <= n; i++) {
					uint64_t j = back ? n + 1 - i : i;

					assert_memory_equal(ptd_calls_get(l, j), ptd_calls_get(e, j),
							    sizeof(struct ptd_callseg));
				}
				ptd_calls_free(l);
			}
		}
		ptd_calls_free(e);
	}
	return c;
}
#define ptd_calls_build build_checked

struct expect {
	uint64_t func;
	int level;
	int how;
};

static void check_segs(const struct ptd_calls *c, const struct expect *e, size_t n)
{
	size_t i;

	assert_int_equal(ptd_calls_count(c), n);
	for (i = 0; i < n; i++) {
		const struct ptd_callseg *s = ptd_calls_get(c, i + 1);

		assert_non_null(s);
		if (fx_func_of(NULL, s->ip) != e[i].func || s->level != e[i].level ||
		    s->how != e[i].how)
			print_error("segment %zu: ip %#lx level %d how %d\n", i + 1,
				    (unsigned long)s->ip, s->level, s->how);
		assert_int_equal(fx_func_of(NULL, s->ip), e[i].func);
		assert_int_equal(s->level, e[i].level);
		assert_int_equal(s->how, e[i].how);
		assert_int_equal(s->index, i + 1);
	}
	assert_null(ptd_calls_get(c, 0));
	assert_null(ptd_calls_get(c, n + 1));
}

/* Segments cover 1..count contiguously and find() agrees with them. */
static void check_cover(const struct ptd_history *h, const struct ptd_calls *c)
{
	uint64_t n, count = ptd_history_count(h), k;

	for (k = 1; k <= ptd_calls_count(c); k++) {
		const struct ptd_callseg *s = ptd_calls_get(c, k);

		if (k == 1)
			assert_int_equal(s->first, 1);
		else
			assert_int_equal(s->first, ptd_calls_get(c, k - 1)->last + 1);
	}
	assert_int_equal(ptd_calls_get(c, ptd_calls_count(c))->last, count);
	for (n = 1; n <= count; n++) {
		const struct ptd_callseg *s = ptd_calls_find(c, n);

		assert_non_null(s);
		assert_true(s->first <= n && n <= s->last);
	}
	assert_null(ptd_calls_find(c, 0));
	assert_null(ptd_calls_find(c, count + 1));
}

#define C(fn, lv, how) { fn, lv, PTD_SEG_##how }

static void test_program(void **state)
{
	static const struct expect fibs[] = {
		/* fib(4): fib(3) [fib(2) [fib(1) fib(0)] fib(1)] fib(2) [fib(1) fib(0)] */
		C(FX_FIB, 2, CALL),   C(FX_FIB, 3, CALL),   C(FX_FIB, 4, CALL),
		C(FX_FIB, 5, CALL),   C(FX_FIB, 4, RETURN), C(FX_FIB, 5, CALL),
		C(FX_FIB, 4, RETURN), C(FX_FIB, 3, RETURN), C(FX_FIB, 4, CALL),
		C(FX_FIB, 3, RETURN), C(FX_FIB, 2, RETURN), C(FX_FIB, 3, CALL),
		C(FX_FIB, 4, CALL),   C(FX_FIB, 3, RETURN), C(FX_FIB, 4, CALL),
		C(FX_FIB, 3, RETURN), C(FX_FIB, 2, RETURN),
	};
	struct expect e[64];
	size_t n = 0, i;
	struct fx_sim s;
	struct ptd_calls *c;
	const struct ptd_callseg *sg;

	(void)state;
	e[n++] = (struct expect)C(FX_START, 0, START);
	e[n++] = (struct expect)C(FX_MAIN, 1, CALL);
	e[n++] = (struct expect)C(FX_F, 2, CALL);
	e[n++] = (struct expect)C(FX_G, 3, CALL);
	e[n++] = (struct expect)C(FX_F, 2, RETURN);
	e[n++] = (struct expect)C(FX_G, 3, CALL);
	e[n++] = (struct expect)C(FX_F, 2, RETURN);
	e[n++] = (struct expect)C(FX_MAIN, 1, RETURN);
	e[n++] = (struct expect)C(FX_H, 2, CALL);
	e[n++] = (struct expect)C(FX_MAIN, 1, RETURN);
	for (i = 0; i < sizeof(fibs) / sizeof(fibs[0]); i++)
		e[n++] = fibs[i];
	e[n++] = (struct expect)C(FX_MAIN, 1, RETURN);
	e[n++] = (struct expect)C(FX_F, 2, CALL);
	e[n++] = (struct expect)C(FX_G, 3, CALL);
	e[n++] = (struct expect)C(FX_F, 2, RETURN);
	e[n++] = (struct expect)C(FX_G, 3, CALL);
	e[n++] = (struct expect)C(FX_F, 2, RETURN);
	e[n++] = (struct expect)C(FX_MAIN, 1, RETURN);
	e[n++] = (struct expect)C(FX_START, 0, RETURN);

	fx_sim_init(&s);
	fx_program(&s);
	c = ptd_calls_build(s.h, fx_func_of, NULL);
	assert_non_null(c);
	check_segs(c, e, n);
	check_cover(s.h, c);
	assert_int_equal(ptd_calls_min_level(c), 0);

	/* links: f's three segments are one instance */
	sg = ptd_calls_get(c, 3);
	assert_int_equal(sg->up, 2);
	assert_int_equal(sg->next_same, 5);
	assert_int_equal(sg->prev_same, 0);
	assert_int_equal(sg->instance, 3);
	sg = ptd_calls_get(c, 5);
	assert_int_equal(sg->instance, 3);
	assert_int_equal(sg->prev_same, 3);
	assert_int_equal(sg->next_same, 7);
	assert_int_equal(sg->up, 2);
	assert_int_equal(sg->first, fx_num(&s, 0x401132, 0));
	assert_int_equal(ptd_calls_get(c, 4)->up, 3);
	assert_int_equal(ptd_calls_get(c, 6)->up, 5);
	assert_int_equal(ptd_calls_get(c, 8)->instance, 2);
	/* the last segment (start after main returned) holds the tail */
	sg = ptd_calls_get(c, n);
	assert_int_equal(sg->instance, 1);
	assert_int_equal(sg->prev_same, 1);
	assert_int_equal(sg->first, ptd_history_count(s.h));
	ptd_calls_free(c);

	/* Without func_of: the same (no jumps leave a function here). */
	c = ptd_calls_build(s.h, NULL, NULL);
	assert_non_null(c);
	check_segs(c, e, n);
	ptd_calls_free(c);
	ptd_calls_free(NULL);
	assert_null(ptd_calls_build(NULL, NULL, NULL));
	fx_sim_fini(&s);
}

static uint64_t fibonacci(int n)
{
	uint64_t a = 0, b = 1;

	while (n-- > 0) {
		uint64_t t = a + b;

		a = b;
		b = t;
	}
	return a;
}

static void test_fib_counts(void **state)
{
	int n;

	(void)state;
	for (n = 1; n <= 15; n += 7) {
		struct fx_sim s;
		struct ptd_calls *c;
		uint64_t k, calls = 0, segs = 0;

		fx_sim_init(&s);
		fx_run(&s, 0x4011af, 0x4011b4, PTD_IC_CALL, 0);
		fx_fib(&s, n);
		fx_run(&s, 0x4011b9, 0x4011c1, PTD_IC_CALL, 0);
		ptd_history_set_tail(s.h, FX_F);
		assert_false(s.err);
		c = ptd_calls_build(s.h, fx_func_of, NULL);
		assert_non_null(c);
		for (k = 1; k <= ptd_calls_count(c); k++) {
			const struct ptd_callseg *sg = ptd_calls_get(c, k);

			if (fx_func_of(NULL, sg->ip) != FX_FIB)
				continue;
			segs++;
			if (sg->how == PTD_SEG_CALL)
				calls++;
			assert_true(sg->level >= 1);
		}
		assert_int_equal(calls, 2 * fibonacci(n + 1) - 1);
		/* each call with n >= 2 adds two return segments */
		assert_int_equal(segs, calls + 2 * (fibonacci(n + 1) - 1));
		/* main -> fib ... -> main -> f */
		assert_int_equal(ptd_calls_get(c, ptd_calls_count(c))->level, 1);
		assert_int_equal(ptd_calls_get(c, ptd_calls_count(c) - 1)->instance, 1);
		check_cover(s.h, c);
		ptd_calls_free(c);
		fx_sim_fini(&s);
	}
}

/* Recording started inside g, called from f, called from main. */
static void test_start_inside(void **state)
{
	static const struct expect e[] = {
		C(FX_G, 0, START),     C(FX_F, -1, RETURN), C(FX_G, 0, CALL),
		C(FX_F, -1, RETURN),   C(FX_MAIN, -2, RETURN), C(FX_H, -1, CALL),
		C(FX_MAIN, -2, RETURN), C(FX_FIB, -1, CALL),
	};
	struct fx_sim s;
	struct ptd_calls *c;
	uint64_t pcs[8];
	int n;

	(void)state;
	fx_sim_init(&s);
	fx_run(&s, 0x401115, 0x40111c, PTD_IC_RET, 0);
	fx_run(&s, 0x401132, 0x40113a, PTD_IC_CALL, 0);
	fx_g(&s);
	fx_run(&s, 0x40113f, 0x401146, PTD_IC_RET, 0);
	fx_run(&s, 0x40119b, 0x4011a7, PTD_IC_CALL, 0);
	fx_h(&s);
	fx_run(&s, 0x4011ac, 0x4011b4, PTD_IC_CALL, 0);
	ptd_history_set_tail(s.h, FX_FIB);
	c = ptd_calls_build(s.h, fx_func_of, NULL);
	assert_non_null(c);
	check_segs(c, e, sizeof(e) / sizeof(e[0]));
	check_cover(s.h, c);
	assert_int_equal(ptd_calls_min_level(c), -2);
	/* g's first segment returns to f's segment 2 (after the return) */
	assert_int_equal(ptd_calls_get(c, 1)->up, 2);
	assert_true(ptd_calls_get(c, 1)->up_is_ret);
	assert_int_equal(ptd_calls_get(c, 2)->up, 5);
	assert_true(ptd_calls_get(c, 2)->up_is_ret);
	assert_int_equal(ptd_calls_get(c, 4)->up, 5);
	assert_int_equal(ptd_calls_get(c, 4)->instance, 2);
	assert_int_equal(ptd_calls_get(c, 3)->up, 2);
	assert_false(ptd_calls_get(c, 3)->up_is_ret);
	assert_int_equal(ptd_calls_get(c, 7)->instance, 5);

	/* backtrace in the second g: g <- f (call at 0x40113a) <- main
	 * (call before the return address 0x40119b: 0x401196) */
	n = ptd_replay_backtrace(s.h, c, fx_num(&s, 0x401115, 5), pcs, 8);
	assert_int_equal(n, 3);
	assert_int_equal(pcs[0], 0x401115);
	assert_int_equal(pcs[1], 0x40113a);
	assert_int_equal(pcs[2], 0x401196);
	/* in the first g, before any call was recorded */
	n = ptd_replay_backtrace(s.h, c, 1, pcs, 8);
	assert_int_equal(n, 3);
	assert_int_equal(pcs[1], 0x40112d);
	assert_int_equal(pcs[2], 0x401196);
	n = ptd_replay_backtrace(s.h, c, 1, pcs, 2);
	assert_int_equal(n, 2);
	ptd_calls_free(c);
	fx_sim_fini(&s);
}

/* A signal interrupts f after 0x401128; the handler returns into the
 * restorer, whose rt_sigreturn resumes f at 0x40112b. */
static void test_signal(void **state)
{
	static const struct expect e[] = {
		C(FX_F, 0, START),          C(FX_HANDLER, 1, SIGNAL), C(FX_RESTORER, 1, SIGTRAMP),
		C(FX_F, 0, SIGRETURN),      C(FX_G, 1, CALL),         C(FX_F, 0, RETURN),
		C(FX_G, 1, CALL),           C(FX_F, 0, RETURN),       C(FX_MAIN, -1, RETURN),
	};
	struct fx_sim s;
	struct ptd_calls *c;
	uint64_t pcs[8], hnum;

	(void)state;
	fx_sim_init(&s);
	fx_run(&s, 0x40111d, 0x401128, PTD_IC_OTHER, PTD_BLK_INTERRUPTED);
	assert_int_equal(ptd_history_append_event(s.h, PTD_EV_SIGNAL, 0x40112b, 14), 0);
	fx_run(&s, FX_HANDLER, FX_HANDLER + 6, PTD_IC_RET, 0);
	fx_run(&s, FX_RESTORER, FX_RESTORER + 7, PTD_IC_FAR_CALL, PTD_BLK_SYSCALL);
	fx_run(&s, 0x40112b, 0x40112d, PTD_IC_CALL, 0);
	fx_g(&s);
	fx_run(&s, 0x401132, 0x40113a, PTD_IC_CALL, 0);
	fx_g(&s);
	fx_run(&s, 0x40113f, 0x401146, PTD_IC_RET, 0);
	ptd_history_set_tail(s.h, 0x40119b);
	assert_false(s.err);
	c = ptd_calls_build(s.h, fx_func_of, NULL);
	assert_non_null(c);
	check_segs(c, e, sizeof(e) / sizeof(e[0]));
	check_cover(s.h, c);
	assert_int_equal(ptd_calls_get(c, 2)->up, 1);
	assert_int_equal(ptd_calls_get(c, 4)->instance, 1);
	assert_int_equal(ptd_calls_get(c, 4)->prev_same, 1);
	assert_int_equal(ptd_calls_get(c, 1)->next_same, 4);
	/* backtrace in the handler: the interrupted frame resumes at 0x40112b */
	hnum = fx_num(&s, FX_HANDLER + 4, 0);
	assert_int_equal(ptd_replay_backtrace(s.h, c, hnum, pcs, 8), 3);
	assert_int_equal(pcs[0], FX_HANDLER + 4);
	assert_int_equal(pcs[1], 0x40112b);
	/* f's caller is known from f's return: the call before 0x40119b */
	assert_int_equal(pcs[2], 0x401196);
	ptd_calls_free(c);

	/* The same with an explicit sigreturn event instead of the syscall. */
	fx_sim_fini(&s);
	fx_sim_init(&s);
	fx_run(&s, 0x40111d, 0x401128, PTD_IC_OTHER, PTD_BLK_INTERRUPTED);
	ptd_history_append_event(s.h, PTD_EV_SIGNAL, 0x40112b, 14);
	fx_run(&s, FX_HANDLER, FX_HANDLER + 6, PTD_IC_RET, 0);
	fx_run(&s, FX_RESTORER, FX_RESTORER, PTD_IC_OTHER, PTD_BLK_INTERRUPTED);
	ptd_history_append_event(s.h, PTD_EV_SIGRETURN, 0x40112b, 0);
	fx_run(&s, 0x40112b, 0x40112d, PTD_IC_CALL, 0);
	ptd_history_set_tail(s.h, FX_G);
	c = ptd_calls_build(s.h, fx_func_of, NULL);
	assert_non_null(c);
	assert_int_equal(ptd_calls_count(c), 5);
	assert_int_equal(ptd_calls_get(c, 4)->how, PTD_SEG_SIGRETURN);
	assert_int_equal(ptd_calls_get(c, 4)->instance, 1);
	assert_int_equal(ptd_calls_get(c, 5)->level, 1);
	ptd_calls_free(c);
	fx_sim_fini(&s);
}

/* A gap is its own segment; after it, the frame of the same function
 * continues (here: g returned into f during the gap). */
static void test_gap(void **state)
{
	struct fx_sim s;
	struct ptd_calls *c;
	const struct ptd_callseg *sg;

	(void)state;
	fx_sim_init(&s);
	fx_run(&s, 0x40111d, 0x40112d, PTD_IC_CALL, 0);
	fx_run(&s, 0x401106, 0x401112, PTD_IC_OTHER, 0);
	ptd_history_append_gap(s.h, PTD_GAP_OVERFLOW, 0, NULL);
	fx_run(&s, 0x40113f, 0x401146, PTD_IC_RET, 0);
	ptd_history_set_tail(s.h, 0x40119b);
	c = ptd_calls_build(s.h, fx_func_of, NULL);
	assert_non_null(c);
	assert_int_equal(ptd_calls_count(c), 5);
	sg = ptd_calls_get(c, 3);
	assert_true(sg->is_gap);
	assert_int_equal(sg->how, PTD_SEG_GAP);
	assert_int_equal(sg->first, 14);
	assert_int_equal(sg->last, 14);
	sg = ptd_calls_get(c, 4);
	assert_int_equal(sg->how, PTD_SEG_AFTER_GAP);
	assert_int_equal(sg->level, 0);
	assert_int_equal(sg->instance, 1);
	assert_int_equal(sg->prev_same, 1);
	assert_int_equal(ptd_calls_get(c, 5)->level, -1);
	assert_int_equal(ptd_calls_find(c, 14)->index, 3);
	check_cover(s.h, c);
	ptd_calls_free(c);
	fx_sim_fini(&s);
}

/* tcc calls h through a PLT-like indirect jump: as in gdb's btrace, the
 * jump to h's entry is a tail call one level down, linked up to the stub;
 * h's return goes back to tcc. */
static void test_tailcall(void **state)
{
	static const struct expect e[] = {
		C(FX_TCC, 0, START), C(FX_PLT, 1, CALL), C(FX_H, 2, TAILCALL),
		C(FX_TCC, 0, RETURN), C(FX_MAIN, -1, RETURN),
	};
	struct fx_sim s;
	struct ptd_calls *c;
	uint64_t pcs[8];

	(void)state;
	fx_sim_init(&s);
	fx_run(&s, FX_TCC, FX_TCC, PTD_IC_CALL, 0);
	fx_run(&s, FX_PLT, FX_PLT, PTD_IC_JUMP, 0);
	fx_h(&s);
	fx_run(&s, FX_TCC + 5, FX_TCC + 6, PTD_IC_RET, 0);
	ptd_history_set_tail(s.h, 0x4011ac);
	assert_false(s.err);
	c = ptd_calls_build(s.h, fx_func_of, NULL);
	assert_non_null(c);
	check_segs(c, e, sizeof(e) / sizeof(e[0]));
	check_cover(s.h, c);
	assert_int_equal(ptd_calls_get(c, 3)->up, 2);
	assert_true(ptd_calls_get(c, 3)->up_is_tail);
	assert_false(ptd_calls_get(c, 2)->up_is_tail);
	assert_int_equal(ptd_calls_get(c, 4)->instance, 1);
	/* h <- tcc's call <- main's call before 0x4011ac: the stub's jump
	 * replaced the stub's frame with h's, as a stack unwinder sees it */
	assert_int_equal(ptd_replay_backtrace(s.h, c, fx_num(&s, FX_H + 4, 0), pcs, 8), 3);
	assert_int_equal(pcs[1], FX_TCC);
	assert_int_equal(pcs[2], 0x4011a7);
	{
		/* Joined with the stack at the start of the recording (tcc's
		 * callers: main, returning to 0x4011ac, and main's caller):
		 * tcc's frame goes on with all of them; main's frame, which the
		 * recorded return out of tcc entered, with main's caller only. */
		static const uint64_t outer[] = { 0x4011ac, 0x7f0000001234 };
		uint64_t last = ptd_history_count(s.h);

		assert_int_equal(ptd_replay_backtrace_outer(s.h, c, fx_num(&s, FX_H + 4, 0), outer,
							    2, pcs, NULL, 8), 4);
		assert_int_equal(pcs[1], FX_TCC);
		assert_int_equal(pcs[2], 0x4011a7);
		assert_int_equal(pcs[3], 0x7f0000001234); /* no call before it: as is */
		assert_int_equal(ptd_replay_backtrace_outer(s.h, c, last, outer, 2, pcs, NULL, 8), 2);
		assert_int_equal(pcs[0], 0x4011ac);
		assert_int_equal(pcs[1], 0x7f0000001234);
		/* without the stack, or with max reached */
		assert_int_equal(ptd_replay_backtrace_outer(s.h, c, last, NULL, 0, pcs, NULL, 8), 1);
		assert_int_equal(ptd_replay_backtrace_outer(s.h, c, fx_num(&s, FX_H + 4, 0), outer,
							    2, pcs, NULL, 2), 2);
	}
	ptd_calls_free(c);

	/* without func_of the jump is not seen as a call */
	c = ptd_calls_build(s.h, NULL, NULL);
	assert_int_equal(ptd_calls_count(c), 4);
	assert_int_equal(ptd_calls_get(c, 2)->level, 1);
	assert_int_equal(ptd_calls_get(c, 3)->level, 0);
	ptd_calls_free(c);
	fx_sim_fini(&s);
}

/* Recording starts in the stub, which tail-calls h: h's return has no
 * caller; the topmost function (the stub) gets the new caller one level
 * up, as gdb does. */
static void test_tailcall_orphan(void **state)
{
	static const struct expect e[] = {
		C(FX_PLT, 0, START), C(FX_H, 1, TAILCALL), C(FX_TCC, -1, RETURN),
	};
	struct fx_sim s;
	struct ptd_calls *c;

	(void)state;
	fx_sim_init(&s);
	fx_run(&s, FX_PLT, FX_PLT, PTD_IC_JUMP, 0);
	fx_h(&s);
	ptd_history_set_tail(s.h, FX_TCC + 5);
	c = ptd_calls_build(s.h, fx_func_of, NULL);
	assert_non_null(c);
	check_segs(c, e, sizeof(e) / sizeof(e[0]));
	assert_int_equal(ptd_calls_get(c, 1)->up, 3);
	assert_true(ptd_calls_get(c, 1)->up_is_ret);
	assert_int_equal(ptd_calls_get(c, 2)->up, 1);
	ptd_calls_free(c);
	fx_sim_fini(&s);
}

/* A jump into the middle of another function is a switch (same level);
 * a call to the next instruction is no call. */
static void test_switch_and_pic(void **state)
{
	static const struct expect e[] = {
		C(FX_FIB, 0, START), C(FX_F, 0, SWITCH), C(FX_G, 1, CALL), C(FX_F, 0, RETURN),
	};
	struct fx_sim s;
	struct ptd_calls *c;

	(void)state;
	fx_sim_init(&s);
	fx_run(&s, 0x401159, 0x40115c, PTD_IC_JUMP, 0);
	fx_run(&s, 0x401132, 0x40113a, PTD_IC_CALL, 0);
	fx_run(&s, FX_G, FX_G, PTD_IC_OTHER, PTD_BLK_INTERRUPTED);
	fx_run(&s, FX_PIC, FX_PIC, PTD_IC_CALL, 0);
	fx_run(&s, FX_PIC + 5, FX_PIC + 6, PTD_IC_RET, 0);
	ptd_history_set_tail(s.h, 0x40113f);
	assert_false(s.err);
	c = ptd_calls_build(s.h, fx_func_of, NULL);
	assert_non_null(c);
	/* g's segment holds the PIC code (no call), its ret returns to f */
	check_segs(c, e, sizeof(e) / sizeof(e[0]));
	assert_int_equal(ptd_calls_get(c, 4)->instance, 2);
	assert_int_equal(ptd_calls_get(c, 4)->first, ptd_history_count(s.h));
	ptd_calls_free(c);
	fx_sim_fini(&s);
}

/* g "returns" into h, which called nobody (setcontext-like): as gdb, a
 * new caller one level up for g only; f keeps its caller. */
static void test_unknown_return(void **state)
{
	static const struct expect e[] = {
		C(FX_MAIN, 0, START), C(FX_F, 1, CALL), C(FX_G, 2, CALL), C(FX_H, 1, RETURN),
	};
	struct fx_sim s;
	struct ptd_calls *c;

	(void)state;
	fx_sim_init(&s);
	fx_run(&s, 0x401191, 0x401196, PTD_IC_CALL, 0);
	fx_run(&s, 0x40111d, 0x40112d, PTD_IC_CALL, 0);
	fx_g(&s);
	ptd_history_set_tail(s.h, FX_H + 4);
	c = ptd_calls_build(s.h, fx_func_of, NULL);
	assert_non_null(c);
	check_segs(c, e, sizeof(e) / sizeof(e[0]));
	assert_int_equal(ptd_calls_get(c, 3)->up, 4);
	assert_true(ptd_calls_get(c, 3)->up_is_ret);
	assert_int_equal(ptd_calls_get(c, 2)->up, 1);
	assert_int_equal(ptd_calls_get(c, 4)->instance, 4);
	ptd_calls_free(c);
	/* without func_of the return goes to f */
	c = ptd_calls_build(s.h, NULL, NULL);
	assert_int_equal(ptd_calls_get(c, 4)->instance, 2);
	ptd_calls_free(c);
	fx_sim_fini(&s);
}

/*
 * The call log's block and skip records in each of their forms (length
 * and instruction count in one byte, the count apart, a length of 2^57;
 * skips in the tag byte and after it; short call and return records with
 * the count in the tag and after it): the view and the count from the
 * log equal those from the items (build_checked).
 */
static void test_log_forms(void **state)
{
	static const struct ptd_block blk[] = {
		{ FX_MAIN, FX_MAIN + 0x14, 7, PTD_IC_CALL, 0 },
		{ FX_F, FX_F + 0x40, 2, PTD_IC_JUMP, 0 },
		{ FX_F + 0x50, FX_F + 0x5f, 16, PTD_IC_OTHER, 0 },
		{ FX_G, FX_G + 0x10, 10, PTD_IC_OTHER, 0 },
		{ FX_G, FX_G + 0x10, 10, PTD_IC_OTHER, 0 },
		{ FX_G, FX_G + 0x10, 10, PTD_IC_OTHER, 0 },
		{ FX_G, FX_G + 0x10, 10, PTD_IC_OTHER, 0 },
		{ FX_G, FX_G + 0x10, 10, PTD_IC_OTHER, 0 },
		{ FX_G, FX_G + 0x10, 10, PTD_IC_OTHER, 0 },
		{ FX_G, FX_G + 0x10, 10, PTD_IC_OTHER, 0 },
		{ FX_G, FX_G + 0x10, 10, PTD_IC_CALL, 0 },
		{ FX_H, FX_H + 4, 2, PTD_IC_OTHER, 0 },
		{ FX_H, FX_H + 4, 2, PTD_IC_OTHER, 0 },
		{ FX_H, FX_H + 4, 2, PTD_IC_RET, 0 },
		{ FX_G + 0x15, FX_G + 0x20, 3, PTD_IC_OTHER, 0 },
		{ FX_G + 0x25, FX_G + 0x80, 40, PTD_IC_CALL, 0 },
		{ FX_H, FX_H + 4, 2, PTD_IC_OTHER, 0 },
		{ FX_H + 8, FX_H + 0x40, 16, PTD_IC_RET, 0 },
		{ 0x10000, 0x10000 + (1ull << 57), 3, PTD_IC_RET, 0 },
		{ FX_MAIN + 0x19, FX_MAIN + 0x25, 4, PTD_IC_CALL, 0 },
		{ FX_H, FX_H + 0xe, 5, PTD_IC_RET, 0 },
		{ FX_MAIN + 0x2a, FX_MAIN + 0x2a, 1, PTD_IC_OTHER, 0 },
	};
	struct ptd_history *h = ptd_history_alloc(fx_read, NULL);
	struct ptd_calls *c;
	size_t i;

	(void)state;
	ptd_history_set_func(h, fx_func_of, NULL);
	for (i = 0; i < sizeof(blk) / sizeof(blk[0]); i++)
		assert_int_equal(ptd_history_append_block(h, &blk[i]), 0);
	ptd_history_set_tail(h, FX_MAIN + 0x2f);
	c = ptd_calls_build(h, fx_func_of, NULL);
	assert_non_null(c);
	assert_true(ptd_calls_count(c) >= 5);
	ptd_calls_free(c);
	ptd_history_free(h);
}

/*
 * The view from a late part (the part summaries chained) and the count
 * from them equal the view built from the items, in histories whose logs
 * close a part every few bytes: calls to the next instruction that are
 * PIC code (5 bytes: no call) and one that is not (2 bytes), returns past
 * several frames (in the part and into the frames open at its start),
 * returns out of the function the history starts in, and gaps anywhere,
 * at part boundaries too (after a call, before a return, in a row).
 */
struct fx_blk {
	uint64_t ip, end;
	int iclass;
};

static const struct fx_blk fx_pieces[][8] = {
	/* main calls f, f calls g twice, f returns */
	{ { 0x401182, 0x401196, PTD_IC_CALL }, { 0x40111d, 0x40112d, PTD_IC_CALL },
	  { 0x401106, 0x40111c, PTD_IC_RET }, { 0x401132, 0x40113a, PTD_IC_CALL },
	  { 0x401106, 0x40111c, PTD_IC_RET }, { 0x40113f, 0x401146, PTD_IC_RET } },
	/* PIC code: call 1f; 1: pop; ret */
	{ { 0x40111d, 0x40112d, PTD_IC_CALL }, { FX_PIC, FX_PIC, PTD_IC_CALL },
	  { FX_PIC + 5, FX_PIC + 6, PTD_IC_RET } },
	/* a 2-byte instruction taken for a call, the next block 5 bytes on */
	{ { 0x401106, 0x401110, PTD_IC_CALL }, { 0x401115, 0x40111c, PTD_IC_RET } },
	/* fib recursing twice, the innermost returning to main */
	{ { 0x40115e, 0x401166, PTD_IC_CALL }, { 0x401147, 0x401157, PTD_IC_COND_JUMP },
	  { 0x40115e, 0x401166, PTD_IC_CALL }, { 0x401147, 0x401157, PTD_IC_COND_JUMP },
	  { 0x401159, 0x40115c, PTD_IC_JUMP }, { 0x40117c, 0x401181, PTD_IC_RET },
	  { 0x40119b, 0x4011a7, PTD_IC_CALL }, { 0x4011d1, 0x4011df, PTD_IC_RET } },
	/* fib returning one level, then again */
	{ { 0x40116b, 0x401175, PTD_IC_CALL }, { 0x401147, 0x401157, PTD_IC_COND_JUMP },
	  { 0x401159, 0x40115c, PTD_IC_JUMP }, { 0x40117c, 0x401181, PTD_IC_RET },
	  { 0x40117a, 0x401181, PTD_IC_RET } },
};

static void test_chained_parts(void **state)
{
	static const size_t part_bytes[] = { 1, 3, 16, 64 };
	unsigned rs = 7;
	int seed;

	(void)state;
	ptd__calls_set_chain_always(1);
	for (seed = 0; seed < 6; seed++) {
		struct fx_sim s;
		struct ptd_calls *ref;
		uint64_t n, m, cnt;
		size_t p, k;
		int i;

		fx_sim_init(&s);
		for (i = 0; i < 60; i++) {
			const struct fx_blk *pc;

			rs = rs * 1103515245u + 12345u;
			pc = fx_pieces[(rs >> 8) % (sizeof(fx_pieces) / sizeof(fx_pieces[0]))];
			for (k = 0; k < 8 && pc[k].ip; k++) {
				rs = rs * 1103515245u + 12345u;
				if (seed && (rs >> 8) % (unsigned)(12 - seed) == 0)
					ptd_history_append_gap(s.h, PTD_GAP_OVERFLOW, 0, NULL);
				fx_run(&s, pc[k].ip, pc[k].end, pc[k].iclass, 0);
			}
		}
		assert_false(s.err);
		ptd_history_set_tail(s.h, 0x40119b);
		ref = ptd__calls_build_items(s.h, fx_func_of, NULL);
		assert_non_null(ref);
		n = ptd_calls_count(ref);
		for (p = 0; p < sizeof(part_bytes) / sizeof(part_bytes[0]); p++) {
			struct ptd_history *a = ptd_history_alloc(fx_read, NULL);
			uint64_t covered = 0;
			int chained = 0;

			ptd__calllog_set_part_bytes(part_bytes[p]);
			ptd_history_set_func(a, fx_func_of, NULL);
			copy_items(a, s.h, 0, ptd_history_nitems(s.h));
			ptd_history_set_tail(a, ptd_history_tail(s.h));
			assert_non_null(ptd__history_calllog(a, &covered));
			assert_true(ptd__calllog_nparts(ptd__history_calllog(a, &covered)) > 4);
			assert_int_equal(ptd_calls_count_only(a, fx_func_of, NULL, &cnt), 0);
			assert_int_equal(cnt, n);
			for (m = 1; m <= n; m += 1 + m / 4) {
				struct ptd_calls *c = ptd__calls_build_suffix(a, fx_func_of, NULL, m);
				uint64_t floor = 0;

				if (!c)
					continue;
				ptd__calls_suffix_info(c, &floor);
				chained += floor > 0;
				same_calls(c, ref);
				ptd_calls_free(c);
			}
			if (!chained)
				fail_msg("seed %d, parts of %zu bytes: no view from a late part", seed,
					 part_bytes[p]);
			ptd_history_free(a);
		}
		ptd__calllog_set_part_bytes(0);
		ptd_calls_free(ref);
		fx_sim_fini(&s);
	}
	ptd__calls_set_chain_always(0);
}

/*
 * A filtered trace of code with no symbols (IP filtering, as in issue 13's
 * real-style bundles): each round makes an indirect call out of the traced
 * range that comes back with no gap (libipt says "resumed": the next block
 * is the call's next instruction), a direct call out of the range with a
 * gap ("disabled") before its return address, then a call into the range
 * and its return.  As in gdb, a call whose next instruction executed is
 * the one after it is no call (ftrace_update_function) and the gap is
 * bridged into the caller, two unknown functions being the same one
 * (ftrace_function_switched): the levels stay 0 and 1 however many rounds.
 * Before, each round left two frames open (the indirect call's and the
 * one the gap opened), the levels grew by two per round, and the views
 * of a long such trace walked and kept stacks as deep as the trace is
 * long (21.8 s for record function-call-history on 16 MB).  Without a
 * func_of and with one that knows no function; the log, the lazy views,
 * the count (build_checked) and the views from late parts (the summaries
 * chained, the bridge into the frames open at a part's start) agree.
 */
#undef ptd_calls_build /* (build_checked reads the fixture's code) */
#define NS_BASE 0x500000ull
static const uint8_t ns_code[] = {
	0xff, 0xd0,			/* 0x500000: call *%rax (out of the range) */
	0xe8, 0xf9, 0xff, 0x0f, 0x00,	/* 0x500002: call 0x600000 (out of the range) */
	0xe8, 0x04, 0x00, 0x00, 0x00,	/* 0x500007: call 0x500010 */
	0xeb, 0xf2,			/* 0x50000c: jmp 0x500000 */
	0x90, 0x90,
	0x90, 0xc3,			/* 0x500010: nop; ret */
};

static int ns_read(void *ctx, uint64_t addr, uint8_t *buf, size_t n)
{
	size_t k;

	(void)ctx;
	if (addr < NS_BASE || addr >= NS_BASE + sizeof(ns_code))
		return -1;
	k = (size_t)(NS_BASE + sizeof(ns_code) - addr);
	k = k < n ? k : n;
	memcpy(buf, ns_code + (addr - NS_BASE), k);
	return (int)k;
}

static uint64_t ns_none(void *ctx, uint64_t addr)
{
	(void)ctx;
	(void)addr;
	return 0;
}

static void ns_block(struct ptd_history *h, uint64_t ip, uint64_t end, uint32_t n, int iclass)
{
	struct ptd_block b = { ip, end, n, (uint8_t)iclass, 0 };

	assert_int_equal(ptd_history_append_block(h, &b), 0);
}

static void test_filtered_no_symbols(void **state)
{
	static const ptd_func_of_fn fns[] = { NULL, ns_none };
	enum { ROUNDS = 150 };
	size_t f;

	(void)state;
	for (f = 0; f < sizeof(fns) / sizeof(fns[0]); f++) {
		struct ptd_history *h = ptd_history_alloc(ns_read, NULL);
		struct ptd_calls *c, *ref;
		uint64_t i, n, m;
		int r, chained = 0;

		assert_non_null(h);
		ptd_history_set_func(h, fns[f], NULL);
		for (r = 0; r < ROUNDS; r++) {
			ns_block(h, NS_BASE, NS_BASE, 1, PTD_IC_CALL);
			ns_block(h, NS_BASE + 2, NS_BASE + 2, 1, PTD_IC_CALL);
			assert_int_equal(ptd_history_append_gap(h, PTD_GAP_DISABLED, 0, NULL), 0);
			ns_block(h, NS_BASE + 7, NS_BASE + 7, 1, PTD_IC_CALL);
			ns_block(h, NS_BASE + 0x10, NS_BASE + 0x11, 2, PTD_IC_RET);
			ns_block(h, NS_BASE + 0xc, NS_BASE + 0xc, 1, PTD_IC_JUMP);
		}
		ptd_history_set_tail(h, NS_BASE);
		c = ptd_calls_build(h, fns[f], NULL);
		assert_non_null(c);
		/* the start, then per round: the gap, the caller after it, f,
		 * the caller after f's return */
		n = ptd_calls_count(c);
		assert_int_equal(n, 1 + 4 * (uint64_t)ROUNDS);
		assert_int_equal(ptd_calls_min_level(c), 0);
		for (i = 1; i <= n; i++) {
			const struct ptd_callseg *g = ptd_calls_get(c, i);

			assert_non_null(g);
			switch (i < 2 ? 0 : (i - 2) % 4) {
			case 0: /* (the start; then the gap, after the call) */
				assert_int_equal(g->how, i < 2 ? PTD_SEG_START : PTD_SEG_GAP);
				assert_int_equal(g->level, i < 2 ? 0 : 1);
				break;
			case 1: /* the caller again, bridged over the gap */
				assert_int_equal(g->how, PTD_SEG_AFTER_GAP);
				assert_int_equal(g->level, 0);
				assert_int_equal(g->instance, 1);
				assert_int_equal(g->prev_same, i - 2);
				break;
			case 2: /* f */
				assert_int_equal(g->how, PTD_SEG_CALL);
				assert_int_equal(g->level, 1);
				assert_int_equal(g->up, i - 1);
				break;
			case 3: /* back from f */
				assert_int_equal(g->how, PTD_SEG_RETURN);
				assert_int_equal(g->level, 0);
				assert_int_equal(g->instance, 1);
				break;
			}
		}
		ref = ptd__calls_build_items(h, fns[f], NULL);
		assert_non_null(ref);
		same_calls(c, ref);
		ptd_calls_free(c);
		for (r = 0; r < 4; r++) { /* lazy, chunks of 1 and 3, log or items */
			c = ptd__calls_build_chunked(h, fns[f], NULL, r & 1, r < 2 ? 1 : 3);
			assert_non_null(c);
			same_calls(c, ref);
			ptd_calls_free(c);
		}
		/* the views from late parts, parts of a few records */
		ptd__calls_set_chain_always(1);
		ptd__calllog_set_part_bytes(16);
		{
			struct ptd_history *a = ptd_history_alloc(ns_read, NULL);
			uint64_t covered = 0, cnt = 0;

			assert_non_null(a);
			ptd_history_set_func(a, fns[f], NULL);
			copy_items(a, h, 0, ptd_history_nitems(h));
			ptd_history_set_tail(a, ptd_history_tail(h));
			assert_non_null(ptd__history_calllog(a, &covered));
			assert_true(ptd__calllog_nparts(ptd__history_calllog(a, &covered)) > 4);
			assert_int_equal(ptd_calls_count_only(a, fns[f], NULL, &cnt), 0);
			assert_int_equal(cnt, n);
			for (m = 1; m <= n; m += 1 + m / 3) {
				struct ptd_calls *x = ptd__calls_build_suffix(a, fns[f], NULL, m);
				uint64_t floor = 0;

				if (!x)
					continue;
				ptd__calls_suffix_info(x, &floor);
				chained += floor > 0;
				same_calls(x, ref);
				/* With a func_of the log decides with the code reader
				 * whether a call goes to its next instruction: the
				 * summaries stand for every part (before, the call
				 * into the range, 9 bytes on, was taken for a PIC one
				 * and each part walked again). */
				if (fns[f] && ptd__calls_suffix_walked(x))
					fail_msg("func_of %zu, %" PRIu64 " after: %" PRIu64
						 " parts walked, not chained", f, m,
						 ptd__calls_suffix_walked(x));
				ptd_calls_free(x);
			}
			ptd_history_free(a);
		}
		ptd__calllog_set_part_bytes(0);
		ptd__calls_set_chain_always(0);
		if (!chained)
			fail_msg("func_of %zu: no view from a late part", f);
		ptd_calls_free(ref);
		ptd_history_free(h);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_program),
		cmocka_unit_test(test_fib_counts),
		cmocka_unit_test(test_start_inside),
		cmocka_unit_test(test_signal),
		cmocka_unit_test(test_gap),
		cmocka_unit_test(test_tailcall),
		cmocka_unit_test(test_tailcall_orphan),
		cmocka_unit_test(test_switch_and_pic),
		cmocka_unit_test(test_unknown_return),
		cmocka_unit_test(test_chained_parts),
		cmocka_unit_test(test_log_forms),
		cmocka_unit_test(test_filtered_no_symbols),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
