/*
 * The live stepping predicate (src/replay/live.c) fed made-up
 * instructions, for a step over a call that does not return normally:
 * ptd_stepper_back_at_return() ends the step over at the call's return
 * address as gdb's step-resume breakpoint does (the caller checks the
 * frame), after which the line rules go on: a new line stops, the same
 * row goes on; the call/return count alone never ends it when the callee
 * longjmps away.  Lines: [0x100, 0x110) line 10, [0x110, 0x120) line 11,
 * [0x120, 0x130) line 12 (a catch block), the callee at 0x400 without
 * lines.  And `step` into longjmp, which gdb 13 loses: 0x500 is a
 * frameless longjmp (line 30, its stop address its entry), 0x600 one
 * with a frame (line 40, stop address 0x604).  And returns into code
 * without lines, with a name (0x400) or without (0x300).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "replay/live.h"

static int line_of(void *ctx, uint64_t addr, struct ptd_line_info *li)
{
	(void)ctx;
	if ((addr >= 0x500 && addr < 0x510) || (addr >= 0x600 && addr < 0x610)) {
		memset(li, 0, sizeof(*li));
		li->file = "longjmp.c";
		li->line = addr < 0x600 ? 30 : 40;
		li->lo = addr & ~0xfull;
		li->hi = li->lo + 0x10;
		li->is_stmt = 1;
		return 0;
	}
	if (addr < 0x100 || addr >= 0x130)
		return -1;
	memset(li, 0, sizeof(*li));
	li->file = "f.c";
	li->line = 10 + (int)((addr - 0x100) / 0x10);
	li->lo = addr & ~0xfull;
	li->hi = li->lo + 0x10;
	li->is_stmt = 1;
	return 0;
}

static uint64_t func_of(void *ctx, uint64_t addr)
{
	(void)ctx;
	if (addr >= 0x500 && addr < 0x700)
		return addr & ~0xffull;
	return addr >= 0x100 && addr < 0x130 ? 0x100 : addr >= 0x400 ? 0x400 : 0;
}

static const struct ptd_stepper_env env = {
	.base = { .line_of = line_of, .func_of = func_of },
};

static uint64_t func_bp(void *ctx, uint64_t entry)
{
	(void)ctx;
	return entry == 0x600 ? 0x604 : entry == 0x500 ? 0x500 : 0;
}

static int is_longjmp(void *ctx, uint64_t addr)
{
	(void)ctx;
	return addr == 0x500 || addr == 0x600;
}

static const struct ptd_stepper_env env_lj = {
	.base = { .line_of = line_of, .func_of = func_of, .is_longjmp = is_longjmp },
	.func_bp = func_bp,
};
static const struct ptd_stepper_env env_no_lj = {
	.base = { .line_of = line_of, .func_of = func_of },
	.func_bp = func_bp,
};

/* step into a frameless longjmp: gdb loses the step, the motion runs on
 * (free_run: no stop at the entry, nor at a new line later); next over
 * it is not concerned; without the longjmp callback, or into a longjmp
 * with a frame, step stops in it as in any function. */
static void test_step_into_longjmp(void **state)
{
	struct ptd_stepper st;

	(void)state;
	ptd_stepper_init(&st, PTD_MOTION_STEP, 0x104, &env_lj);
	assert_int_equal(ptd_stepper_feed(&st, 0x108, PTD_IC_CALL, 0x500, 0), 0);
	assert_true(st.free_run);
	assert_int_equal(ptd_stepper_feed(&st, 0x500, PTD_IC_JUMP, 0x110, 0), 0);
	assert_int_equal(ptd_stepper_feed(&st, 0x110, PTD_IC_OTHER, 0x120, 0), 0);

	ptd_stepper_init(&st, PTD_MOTION_NEXT, 0x104, &env_lj);
	assert_int_equal(ptd_stepper_feed(&st, 0x108, PTD_IC_CALL, 0x500, 0), 0);
	assert_false(st.free_run);

	ptd_stepper_init(&st, PTD_MOTION_STEP, 0x104, &env_no_lj);
	assert_int_equal(ptd_stepper_feed(&st, 0x108, PTD_IC_CALL, 0x500, 0), 1);

	ptd_stepper_init(&st, PTD_MOTION_STEP, 0x104, &env_lj);
	assert_int_equal(ptd_stepper_feed(&st, 0x108, PTD_IC_CALL, 0x600, 0), 0);
	assert_false(st.free_run);
	assert_int_equal(ptd_stepper_feed(&st, 0x600, PTD_IC_OTHER, 0x604, 0), 1);
}

/* next at line 10 over the call at 0x108 (returns to 0x10d, still line
 * 10): the callee jumps to a catch block (line 12, same frame), which
 * jumps back to the return address: the step goes on in line 10's row
 * and stops at line 11. */
static void test_catch_back_at_return(void **state)
{
	struct ptd_stepper st;

	(void)state;
	ptd_stepper_init(&st, PTD_MOTION_NEXT, 0x104, &env);
	assert_int_equal(ptd_stepper_feed(&st, 0x104, PTD_IC_OTHER, 0x108, 0), 0);
	assert_int_equal(ptd_stepper_feed(&st, 0x108, PTD_IC_CALL, 0x400, 0), 0);
	assert_int_equal(st.over_call_ip, 0x108);
	assert_int_equal(ptd_stepper_feed(&st, 0x400, PTD_IC_CALL, 0x410, 0), 0);
	/* the unwinder's jump into the catch block: no return counted */
	assert_int_equal(ptd_stepper_feed(&st, 0x410, PTD_IC_JUMP, 0x120, 0), 0);
	assert_int_equal(ptd_stepper_feed(&st, 0x120, PTD_IC_JUMP, 0x10d, 0), 0);
	assert_true(st.depth > 0); /* the count alone is lost */
	assert_int_equal(ptd_stepper_back_at_return(&st, 0x10d), 0); /* line 10's row */
	assert_int_equal(st.depth, 0);
	assert_int_equal(ptd_stepper_feed(&st, 0x10d, PTD_IC_OTHER, 0x110, 0), 1);
}

/* The return address starts another line: the step ends right there;
 * nexti ends there too; a motion that is not inside a call is left
 * alone. */
static void test_back_at_new_line(void **state)
{
	struct ptd_stepper st;

	(void)state;
	ptd_stepper_init(&st, PTD_MOTION_NEXT, 0x104, &env);
	assert_int_equal(ptd_stepper_feed(&st, 0x10b, PTD_IC_CALL, 0x400, 0), 0);
	assert_int_equal(ptd_stepper_back_at_return(&st, 0x110), 1);

	ptd_stepper_init(&st, PTD_MOTION_NEXTI, 0x10b, &env);
	assert_int_equal(ptd_stepper_feed(&st, 0x10b, PTD_IC_CALL, 0x400, 0), 0);
	assert_int_equal(ptd_stepper_back_at_return(&st, 0x110), 1);

	ptd_stepper_init(&st, PTD_MOTION_NEXT, 0x104, &env);
	assert_int_equal(ptd_stepper_back_at_return(&st, 0x110), 0);
	assert_int_equal(st.depth, 0);
	/* finish is not a step over a call: it keeps counting */
	ptd_stepper_init(&st, PTD_MOTION_FINISH, 0x104, &env);
	assert_int_equal(ptd_stepper_feed(&st, 0x10b, PTD_IC_CALL, 0x400, 0), 0);
	assert_int_equal(ptd_stepper_back_at_return(&st, 0x110), 0);
}

/* Returning from line 12 into a caller without lines: gdb stops there
 * when the caller has a name (0x400: a static binary's libc, as when
 * main returns into __libc_start_call_main or a qsort callback into
 * msort), for step and next; only step into code without a name either
 * (0x300) goes on out of it. */
static void test_return_into_no_lines(void **state)
{
	struct ptd_stepper st;

	(void)state;
	ptd_stepper_init(&st, PTD_MOTION_NEXT, 0x124, &env);
	assert_int_equal(ptd_stepper_feed(&st, 0x12c, PTD_IC_RET, 0x410, 0), 1);
	assert_true(st.new_frame);
	ptd_stepper_init(&st, PTD_MOTION_STEP, 0x124, &env);
	assert_int_equal(ptd_stepper_feed(&st, 0x12c, PTD_IC_RET, 0x410, 0), 1);
	ptd_stepper_init(&st, PTD_MOTION_NEXT, 0x124, &env);
	assert_int_equal(ptd_stepper_feed(&st, 0x12c, PTD_IC_RET, 0x300, 0), 1);
	ptd_stepper_init(&st, PTD_MOTION_STEP, 0x124, &env);
	assert_int_equal(ptd_stepper_feed(&st, 0x12c, PTD_IC_RET, 0x300, 0), 0);
	assert_int_equal(ptd_stepper_feed(&st, 0x300, PTD_IC_JUMP, 0x110, 0), 1);
}

/* 0x700 is a C++ thunk leading to the function at 0x600 (its breakpoint
 * 0x604), which it calls (a covariant return thunk): step into the
 * thunk stops at 0x604 one call deeper; without the thunk callback the
 * thunk, without lines, is stepped over. */
static uint64_t thunk_target(void *ctx, uint64_t addr)
{
	(void)ctx;
	return addr == 0x700 ? 0x600 : 0;
}

static const struct ptd_stepper_env env_thunk = {
	.base = { .line_of = line_of, .func_of = func_of, .thunk_target = thunk_target },
	.func_bp = func_bp,
};

static void test_step_into_thunk(void **state)
{
	struct ptd_stepper st;

	(void)state;
	ptd_stepper_init(&st, PTD_MOTION_STEP, 0x104, &env_thunk);
	assert_int_equal(ptd_stepper_feed(&st, 0x108, PTD_IC_CALL, 0x700, 0), 0);
	assert_int_equal(st.into_pc, 0x604);
	assert_int_equal(ptd_stepper_feed(&st, 0x700, PTD_IC_CALL, 0x600, 0), 0);
	assert_int_equal(ptd_stepper_feed(&st, 0x600, PTD_IC_OTHER, 0x604, 0), 1);
	assert_true(st.new_frame);

	ptd_stepper_init(&st, PTD_MOTION_STEP, 0x104, &env_no_lj);
	assert_int_equal(ptd_stepper_feed(&st, 0x108, PTD_IC_CALL, 0x700, 0), 0);
	assert_int_equal(ptd_stepper_feed(&st, 0x700, PTD_IC_CALL, 0x600, 0), 0);
	assert_int_equal(ptd_stepper_feed(&st, 0x600, PTD_IC_OTHER, 0x604, 0), 0);
}

/* A thunk that returns without going to its target (gcc -O2 inlines the
 * target's code into it): gdb's step-resume breakpoint at the target has
 * no frame and stays, and overrides the one at the return address, so
 * the step runs on past the return and the next line, out of the frame,
 * until the target is reached in a later call (or the exit). */
static void test_thunk_target_not_reached(void **state)
{
	struct ptd_stepper st;

	(void)state;
	ptd_stepper_init(&st, PTD_MOTION_STEP, 0x104, &env_thunk);
	assert_int_equal(ptd_stepper_feed(&st, 0x108, PTD_IC_CALL, 0x700, 0), 0);
	assert_int_equal(st.into_pc, 0x604);
	assert_int_equal(ptd_stepper_feed(&st, 0x700, PTD_IC_CALL, 0x400, 0), 0);
	assert_int_equal(ptd_stepper_back_at_return(&st, 0x10d), 0);
	assert_int_equal(ptd_stepper_feed(&st, 0x400, PTD_IC_RET, 0x704, 0), 0);
	assert_int_equal(ptd_stepper_feed(&st, 0x704, PTD_IC_RET, 0x10d, 0), 0);
	assert_int_equal(ptd_stepper_feed(&st, 0x10d, PTD_IC_OTHER, 0x110, 0), 0);
	assert_int_equal(ptd_stepper_feed(&st, 0x110, PTD_IC_RET, 0x130, 0), 0);
	assert_int_equal(ptd_stepper_feed(&st, 0x130, PTD_IC_CALL, 0x600, 0), 0);
	assert_int_equal(ptd_stepper_feed(&st, 0x600, PTD_IC_OTHER, 0x604, 0), 1);
	assert_true(st.new_frame);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_catch_back_at_return),
		cmocka_unit_test(test_back_at_new_line),
		cmocka_unit_test(test_step_into_longjmp),
		cmocka_unit_test(test_return_into_no_lines),
		cmocka_unit_test(test_step_into_thunk),
		cmocka_unit_test(test_thunk_target_not_reached),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
