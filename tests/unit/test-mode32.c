/*
 * 32-bit code in the history and in replay: the same bytes are different
 * instructions in 32-bit and in 64-bit code, so the history's tail (the
 * instruction the thread stands at, after the last block) must be decoded
 * in the newest block's mode, and a backtrace's caller found before a
 * return address (the call was before the recording) in the mode of the
 * code returned to, and `step` into a function stops after its frame
 * setup (push %ebp; mov %esp,%ebp in 32-bit code).  Each case runs over the same bytes as 32-bit
 * and as 64-bit blocks, and the results must differ as the two decodings do.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "disasm/disasm.h"
#include "history/history.h"
#include "ptdbg/ptdbg.h"
#include "replay/replay.h"

#define BASE 0x8049000ull

/*
 * f at BASE:        nop; ret
 * g at BASE + 0x10: nop; nop; 67 ff 16 34 12 (32-bit: call *0x1234 with
 *                   16-bit addressing, 5 bytes; 64-bit: call *(%esi), 3
 *                   bytes, then 34 12); R = BASE + 0x17: nop;
 *                   48 89 c3 (32-bit: dec %eax, then mov %eax,%ebx;
 *                   64-bit: mov %rax,%rbx); nop
 */
static const uint8_t code[] = {
	0x90, 0xc3, 0xcc, 0xcc, 0xcc, 0xcc, 0xcc, 0xcc, 0xcc, 0xcc, 0xcc, 0xcc, 0xcc, 0xcc,
	0xcc, 0xcc, 0x90, 0x90, 0x67, 0xff, 0x16, 0x34, 0x12, 0x90, 0x48, 0x89, 0xc3, 0x90,
};
#define R (BASE + 0x17)
#define CALL32 (BASE + 0x12)
#define TAIL (BASE + 0x18)

static int rd(void *ctx, uint64_t addr, uint8_t *buf, size_t n)
{
	(void)ctx;
	if (addr < BASE || addr >= BASE + sizeof(code))
		return -ptde_nomap;
	if (n > BASE + sizeof(code) - addr)
		n = (size_t)(BASE + sizeof(code) - addr);
	memcpy(buf, code + (addr - BASE), n);
	return (int)n;
}

/* Recording starts in f, which returns to g (called before the
 * recording), runs one instruction there and stops at TAIL. */
static struct ptd_history *history(uint8_t mode_flag)
{
	struct ptd_history *h = ptd_history_alloc(rd, NULL);
	struct ptd_block f = {BASE, BASE + 1, 2, PTD_IC_RET, mode_flag};
	struct ptd_block g = {R, R, 1, PTD_IC_OTHER, mode_flag};

	assert_non_null(h);
	assert_int_equal(ptd_history_append_block(h, &f), 0);
	assert_int_equal(ptd_history_append_block(h, &g), 0);
	ptd_history_set_tail(h, TAIL);
	return h;
}

static void test_tail(void **state)
{
	struct ptd_history *h32 = history(PTD_BLK_MODE32), *h64 = history(0);
	struct ptd_hcursor c;

	(void)state;
	assert_int_equal(ptd_history_count(h32), 4);
	assert_int_equal(ptd_hcursor_goto(&c, h32, 4), 0);
	assert_int_equal(c.ip, TAIL);
	assert_int_equal(c.mode, PTD_MODE_32);
	assert_int_equal(c.len, 1); /* dec %eax */
	/* and back from it into the block before, forward again */
	assert_int_equal(ptd_hcursor_prev(&c), 0);
	assert_int_equal(c.ip, R);
	assert_int_equal(ptd_hcursor_next(&c), 0);
	assert_int_equal(c.len, 1);

	assert_int_equal(ptd_hcursor_goto(&c, h64, 4), 0);
	assert_int_equal(c.mode, PTD_MODE_64);
	assert_int_equal(c.len, 3); /* mov %rax,%rbx */
	ptd_history_free(h32);
	ptd_history_free(h64);
}

/* A tail after a gap: nothing tells the mode, 64-bit. */
static void test_tail_after_gap(void **state)
{
	struct ptd_history *h = history(PTD_BLK_MODE32);
	struct ptd_hcursor c;

	(void)state;
	assert_int_equal(ptd_history_append_gap(h, PTD_GAP_OVERFLOW, 0, NULL), 0);
	assert_int_equal(ptd_hcursor_goto(&c, h, ptd_history_count(h)), 0);
	assert_int_equal(c.ip, TAIL);
	assert_int_equal(c.mode, PTD_MODE_64);
	assert_int_equal(c.len, 3);
	ptd_history_free(h);
}

static void test_backtrace_call_before(void **state)
{
	struct ptd_history *h32 = history(PTD_BLK_MODE32), *h64 = history(0);
	struct ptd_calls *c32 = ptd_calls_build(h32, NULL, NULL);
	struct ptd_calls *c64 = ptd_calls_build(h64, NULL, NULL);
	const struct ptd_callseg *s;
	uint64_t pcs[8];

	(void)state;
	assert_non_null(c32);
	assert_non_null(c64);
	/* f's segment, whose caller is the segment its return created */
	s = ptd_calls_find(c32, 1);
	assert_non_null(s);
	assert_true(s->up_is_ret);
	assert_int_equal(ptd_replay_backtrace(h32, c32, 2, pcs, 8), 2);
	assert_int_equal(pcs[0], BASE + 1);
	assert_int_equal(pcs[1], CALL32); /* the 5-byte call before R */
	/* In 64-bit code those bytes hold no call ending at R: the return
	 * address itself stands for the caller. */
	assert_int_equal(ptd_replay_backtrace(h64, c64, 2, pcs, 8), 2);
	assert_int_equal(pcs[1], R);
	ptd_calls_free(c32);
	ptd_calls_free(c64);
	ptd_history_free(h32);
	ptd_history_free(h64);
}

/*
 * `step` into a 32-bit function: main at M calls F, whose frame setup
 * push %ebp; mov %esp,%ebp (55 89 e5) is line 20 and whose body starts at
 * F + 3 (line 21); gdb stops there.  The same bytes are no 64-bit frame
 * setup (that is 55 48 89 e5): as 64-bit code, step stops at F itself.
 */
#define M 0x8050000ull
#define F 0x8050010ull
static const uint8_t code2[] = {
	0xe8, 0x0b, 0x00, 0x00, 0x00, /* M: call F */
	0x90, 0x90, 0xcc, 0xcc, 0xcc, 0xcc, 0xcc, 0xcc, 0xcc,
	0xcc, 0xcc, 0x55, 0x89, 0xe5, 0x90, 0x90, 0xc3, /* F */
};

static int rd2(void *ctx, uint64_t addr, uint8_t *buf, size_t n)
{
	(void)ctx;
	if (addr < M || addr >= M + sizeof(code2))
		return -ptde_nomap;
	if (n > M + sizeof(code2) - addr)
		n = (size_t)(M + sizeof(code2) - addr);
	memcpy(buf, code2 + (addr - M), n);
	return (int)n;
}

static int line_of(void *ctx, uint64_t a, struct ptd_line_info *li)
{
	static const struct {
		uint64_t lo, hi;
		int line;
	} rows[] = {
		{M, M + 5, 10},	    {M + 5, M + 7, 11}, {F, F + 3, 20},
		{F + 3, F + 5, 21}, {F + 5, F + 6, 22},
	};

	(void)ctx;
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
		if (a >= rows[i].lo && a < rows[i].hi) {
			li->file = "m.c";
			li->line = rows[i].line;
			li->lo = rows[i].lo;
			li->hi = rows[i].hi;
			li->is_stmt = 1;
			return 0;
		}
	return -1;
}

static uint64_t func_of(void *ctx, uint64_t a)
{
	(void)ctx;
	return a >= F ? F : a >= M ? M : 0;
}

static void step_into(uint8_t mode_flag, uint64_t want_ip, uint64_t want_number)
{
	struct ptd_history *h = ptd_history_alloc(rd2, NULL);
	struct ptd_block b1 = {M, M, 1, PTD_IC_CALL, mode_flag};
	struct ptd_block b2 = {F, F + 5, 5, PTD_IC_RET, mode_flag};
	struct ptd_block b3 = {M + 5, M + 5, 1, PTD_IC_OTHER, mode_flag};
	struct ptd_replay_env env = {NULL, line_of, func_of, NULL, NULL};
	struct ptd_replay_result res;
	struct ptd_calls *c;

	assert_non_null(h);
	assert_int_equal(ptd_history_append_block(h, &b1), 0);
	assert_int_equal(ptd_history_append_block(h, &b2), 0);
	assert_int_equal(ptd_history_append_block(h, &b3), 0);
	ptd_history_set_tail(h, M + 6);
	c = ptd_calls_build(h, func_of, NULL);
	assert_non_null(c);
	memset(&res, 0, sizeof(res));
	assert_int_equal(ptd_replay_move(h, c, 1, PTD_MOTION_STEP, 0, &env, &res), 0);
	assert_int_equal(res.stop, PTD_REPLAY_DONE);
	assert_int_equal(res.ip, want_ip);
	assert_int_equal(res.number, want_number);
	ptd_calls_free(c);
	ptd_history_free(h);
}

static void test_step_into(void **state)
{
	(void)state;
	step_into(PTD_BLK_MODE32, F + 3, 4); /* after push %ebp; mov %esp,%ebp */
	step_into(0, F, 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tail),
		cmocka_unit_test(test_tail_after_gap),
		cmocka_unit_test(test_backtrace_call_before),
		cmocka_unit_test(test_step_into),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
