/*
 * Unit tests for the soft recorder's run scanner (src/record/soft_scan.c)
 * over real machine code assembled into this binary: direct calls are
 * followed into the callee, runs end at the first dynamic instruction,
 * static loops and overlong runs are cut, results are cached, armed
 * addresses are kept once, and invalidation drops what a remap touches.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "disasm/disasm.h"
#include "ptdbg/ptdbg.h"
#include "record/soft_scan.h"

__asm__(".text\n"
	".globl sc_start, sc_after_call, sc_jcc, sc_callee, sc_callee_nop, sc_ret\n"
	".globl sc_loop, sc_loop_jmp, sc_ind_pre, sc_ind_jmp, sc_ind, sc_sys, sc_end\n"
	".globl sc_fall\n"
	"sc_start:\n"
	"	push %rbp\n"
	"	mov %rsp,%rbp\n"
	"	call sc_callee\n"
	"sc_after_call:\n"
	"	test %eax,%eax\n"
	"sc_jcc:\n"
	"	jz sc_loop\n"
	"	jmp sc_ind_pre\n"
	"sc_callee:\n"
	"	mov $1,%eax\n"
	"sc_callee_nop:\n"
	"	nop\n"
	"sc_ret:\n"
	"	ret\n"
	"sc_loop:\n"
	"	nop\n"
	"sc_loop_jmp:\n"
	"	jmp sc_loop\n"
	"sc_ind_pre:\n"
	"	xor %ecx,%ecx\n"
	"sc_ind_jmp:\n"
	"	jmp sc_ind\n"
	"	ud2\n"
	"sc_ind:\n"
	"	jmp *(%rax,%rcx,8)\n"
	"sc_sys:\n"
	"	mov $60,%eax\n"
	"sc_fall:\n"
	"	syscall\n"
	"	hlt\n"
	"sc_end:\n"
	
	
	);

extern const char sc_start[], sc_after_call[], sc_jcc[], sc_callee[], sc_callee_nop[], sc_ret[],
	sc_loop[], sc_loop_jmp[], sc_ind_pre[], sc_ind_jmp[], sc_ind[], sc_sys[], sc_fall[],
	sc_end[];

#define A(x) ((uint64_t)(uintptr_t)(x))

static int reads;

/* Reads our own text, refusing anything outside the assembled snippet
 * (plus the 16-byte decode window past its end). */
static long self_read(void *ctx, uint64_t addr, void *buf, size_t n)
{
	(void)ctx;
	reads++;
	if (addr < A(sc_start) || addr >= A(sc_end))
		return -1;
	memcpy(buf, (const void *)(uintptr_t)addr, n);
	return (long)n;
}

/* A heap buffer of code at a fake address. */
struct fake {
	uint64_t base;
	const uint8_t *bytes;
	size_t size;
};

static long fake_read(void *ctx, uint64_t addr, void *buf, size_t n)
{
	const struct fake *f = ctx;
	if (addr < f->base || addr >= f->base + f->size)
		return -1;
	size_t avail = f->base + f->size - addr;
	if (n > avail)
		n = avail;
	memcpy(buf, f->bytes + (addr - f->base), n);
	return (long)n;
}

static void test_call_followed_into_callee(void **state)
{
	(void)state;
	struct ptd_soft_scan *s = ptd_soft_scan_alloc(self_read, NULL);
	assert_non_null(s);
	const struct ptd_soft_run *r;
	assert_int_equal(ptd_soft_scan_run(s, A(sc_start), &r), 0);
	assert_int_equal(r->start, A(sc_start));
	assert_int_equal(r->end, A(sc_ret));
	assert_int_equal(r->insn.op, PTD_SOP_RET);
	assert_false(r->bad);
	assert_int_equal(r->nblk, 2);
	/* push, mov, call | mov, nop, ret */
	assert_int_equal(r->blk[0].ip, A(sc_start));
	assert_int_equal(r->blk[0].end_ip, A(sc_after_call) - 5);
	assert_int_equal(r->blk[0].ninsn, 3);
	assert_int_equal(r->blk[0].iclass, PTD_IC_CALL);
	assert_int_equal(r->blk[1].ip, A(sc_callee));
	assert_int_equal(r->blk[1].end_ip, A(sc_ret));
	assert_int_equal(r->blk[1].ninsn, 3);
	assert_int_equal(r->blk[1].iclass, PTD_IC_RET);
	assert_int_equal(r->ninsn, 6);
	assert_int_equal(r->ips[3], A(sc_callee));
	assert_int_equal(r->ips[4], A(sc_callee_nop));

	/* The return site is a run of its own, ending at the jcc. */
	assert_int_equal(ptd_soft_scan_run(s, A(sc_after_call), &r), 0);
	assert_int_equal(r->end, A(sc_jcc));
	assert_int_equal(r->insn.op, PTD_SOP_JCC);
	assert_int_equal(r->insn.target, A(sc_loop));
	assert_int_equal(r->nblk, 1);
	assert_int_equal(r->blk[0].ninsn, 2);
	assert_int_equal(r->blk[0].iclass, PTD_IC_COND_JUMP);
	ptd_soft_scan_free(s);
}

static void test_direct_jumps_to_indirect(void **state)
{
	(void)state;
	struct ptd_soft_scan *s = ptd_soft_scan_alloc(self_read, NULL);
	const struct ptd_soft_run *r;
	/* jcc fall-through: jmp sc_ind_pre; xor; jmp sc_ind; jmp *(%rax,%rcx,8) */
	uint64_t ft = A(sc_jcc) + 2;
	assert_int_equal(ptd_soft_scan_run(s, ft, &r), 0);
	assert_int_equal(r->end, A(sc_ind));
	assert_int_equal(r->insn.op, PTD_SOP_JMP_IND);
	assert_int_equal(r->nblk, 3);
	assert_int_equal(r->blk[0].ip, ft);
	assert_int_equal(r->blk[0].end_ip, ft);
	assert_int_equal(r->blk[0].iclass, PTD_IC_JUMP);
	assert_int_equal(r->blk[1].ip, A(sc_ind_pre));
	assert_int_equal(r->blk[1].end_ip, A(sc_ind_jmp));
	assert_int_equal(r->blk[1].ninsn, 2);
	assert_int_equal(r->blk[2].ip, A(sc_ind));
	assert_int_equal(r->blk[2].ninsn, 1);
	assert_int_equal(r->blk[2].iclass, PTD_IC_JUMP);
	assert_int_equal(r->ninsn, 4);

	/* The jump table's target runs to the syscall. */
	assert_int_equal(ptd_soft_scan_run(s, A(sc_sys), &r), 0);
	assert_int_equal(r->end, A(sc_fall));
	assert_int_equal(r->insn.op, PTD_SOP_SYSCALL);
	assert_int_equal(r->blk[0].ninsn, 2);
	assert_int_equal(r->blk[0].iclass, PTD_IC_FAR_CALL);
	ptd_soft_scan_free(s);
}

static void test_static_loop_is_cut(void **state)
{
	(void)state;
	struct ptd_soft_scan *s = ptd_soft_scan_alloc(self_read, NULL);
	const struct ptd_soft_run *r;
	assert_int_equal(ptd_soft_scan_run(s, A(sc_loop), &r), 0);
	assert_int_equal(r->end, A(sc_loop_jmp));
	assert_int_equal(r->insn.op, PTD_SOP_JMP);
	assert_int_equal(r->nblk, 1);
	assert_int_equal(r->blk[0].ninsn, 2);
	assert_int_equal(r->blk[0].iclass, PTD_IC_JUMP);
	ptd_soft_scan_free(s);
}

static void test_cache_and_arm_once(void **state)
{
	(void)state;
	struct ptd_soft_scan *s = ptd_soft_scan_alloc(self_read, NULL);
	const struct ptd_soft_run *r1, *r2;
	assert_int_equal(ptd_soft_scan_run(s, A(sc_start), &r1), 0);
	int n = reads;
	assert_int_equal(ptd_soft_scan_run(s, A(sc_start), &r2), 0);
	assert_ptr_equal(r1, r2);
	assert_int_equal(reads, n); /* no rescan */

	assert_int_equal(ptd_soft_scan_arm(s, r1->end), 1);
	assert_int_equal(ptd_soft_scan_arm(s, r1->end), 0);
	assert_true(ptd_soft_scan_armed(s, r1->end));
	assert_false(ptd_soft_scan_armed(s, A(sc_jcc)));
	assert_int_equal(ptd_soft_scan_arm(s, A(sc_jcc)), 1);
	uint64_t list[4];
	assert_int_equal(ptd_soft_scan_armed_list(s, list, 4), 2);
	ptd_soft_scan_free(s);
}

static uint64_t dropped[8];
static int ndropped;
static void on_drop(void *ctx, uint64_t addr)
{
	(void)ctx;
	dropped[ndropped++] = addr;
}

static void test_invalidate(void **state)
{
	(void)state;
	struct ptd_soft_scan *s = ptd_soft_scan_alloc(self_read, NULL);
	const struct ptd_soft_run *r;
	assert_int_equal(ptd_soft_scan_run(s, A(sc_start), &r), 0);
	assert_int_equal(ptd_soft_scan_arm(s, A(sc_ret)), 1);
	assert_int_equal(ptd_soft_scan_run(s, A(sc_loop), &r), 0);
	assert_int_equal(ptd_soft_scan_arm(s, A(sc_loop_jmp)), 1);
	assert_int_equal(ptd_soft_scan_run(s, A(sc_sys), &r), 0);
	assert_int_equal(ptd_soft_scan_arm(s, A(sc_fall)), 1);

	/* Remap the callee only: the run through it and its ret go. */
	ndropped = 0;
	assert_int_equal(ptd_soft_scan_invalidate(s, A(sc_callee), A(sc_loop), on_drop, NULL), 1);
	assert_int_equal(ndropped, 1);
	assert_int_equal(dropped[0], A(sc_ret));
	assert_false(ptd_soft_scan_armed(s, A(sc_ret)));
	assert_true(ptd_soft_scan_armed(s, A(sc_loop_jmp)));
	assert_true(ptd_soft_scan_armed(s, A(sc_fall)));
	/* The run through the callee is rescanned (reads happen again). */
	int n = reads;
	assert_int_equal(ptd_soft_scan_run(s, A(sc_start), &r), 0);
	assert_true(reads > n);
	n = reads;
	assert_int_equal(ptd_soft_scan_run(s, A(sc_sys), &r), 0);
	assert_int_equal(reads, n); /* untouched run still cached */

	ptd_soft_scan_clear(s);
	assert_false(ptd_soft_scan_armed(s, A(sc_fall)));
	assert_int_equal(ptd_soft_scan_armed_list(s, NULL, 0), 0);
	ptd_soft_scan_free(s);
}

static void test_prefix(void **state)
{
	(void)state;
	struct ptd_soft_scan *s = ptd_soft_scan_alloc(self_read, NULL);
	const struct ptd_soft_run *r;
	struct ptd_soft_blk b[4];
	assert_int_equal(ptd_soft_scan_run(s, A(sc_start), &r), 0);
	assert_int_equal(ptd_soft_run_prefix(r, A(sc_start), b, 4), 0);
	assert_int_equal(ptd_soft_run_prefix(r, A(sc_callee_nop), b, 4), 2);
	assert_int_equal(b[0].ip, A(sc_start));
	assert_int_equal(b[0].ninsn, 3);
	assert_int_equal(b[0].iclass, PTD_IC_CALL);
	assert_int_equal(b[1].ip, A(sc_callee));
	assert_int_equal(b[1].end_ip, A(sc_callee));
	assert_int_equal(b[1].ninsn, 1);
	assert_int_equal(ptd_soft_run_prefix(r, A(sc_callee), b, 4), 1);
	assert_int_equal(ptd_soft_run_prefix(r, A(sc_ret), b, 4), 2);
	assert_int_equal(b[1].ninsn, 2);
	assert_int_equal(ptd_soft_run_prefix(r, A(sc_jcc), b, 4), -ptde_notfound);
	ptd_soft_scan_free(s);
}

static void test_unreadable_and_long_runs(void **state)
{
	(void)state;
	/* 3 nops then the end of readable memory. */
	static const uint8_t nops[3] = { 0x90, 0x90, 0x90 };
	struct fake f = { 0x500000, nops, sizeof(nops) };
	struct ptd_soft_scan *s = ptd_soft_scan_alloc(fake_read, &f);
	const struct ptd_soft_run *r;
	assert_int_equal(ptd_soft_scan_run(s, 0x500000, &r), 0);
	assert_true(r->bad);
	assert_int_equal(r->end, 0x500003);
	assert_int_equal(r->insn.op, PTD_SOP_NOEMUL);
	/* Address 0 (a call through a null function pointer) is unreadable
	 * code like any other, kept apart from the maps (0 is their empty
	 * key) and found again. */
	const struct ptd_soft_run *z, *z2;
	assert_int_equal(ptd_soft_scan_run(s, 0, &z), 0);
	assert_true(z->bad);
	assert_int_equal(z->end, 0);
	assert_int_equal(z->insn.op, PTD_SOP_NOEMUL);
	assert_int_equal(ptd_soft_scan_run(s, 0, &z2), 0);
	assert_ptr_equal(z, z2);
	ptd_soft_scan_clear(s);
	assert_int_equal(ptd_soft_scan_run(s, 0, &z), 0);
	assert_true(z->bad);
	ptd_soft_scan_free(s);

	/* A straight line longer than the limit is cut at the limit. */
	size_t n = PTD_SOFT_RUN_MAX + 100;
	uint8_t *many = malloc(n + 1);
	memset(many, 0x90, n);
	many[n] = 0xc3;
	struct fake g = { 0x600000, many, n + 1 };
	s = ptd_soft_scan_alloc(fake_read, &g);
	assert_int_equal(ptd_soft_scan_run(s, 0x600000, &r), 0);
	assert_false(r->bad);
	assert_int_equal(r->ninsn, PTD_SOFT_RUN_MAX);
	assert_int_equal(r->end, 0x600000 + PTD_SOFT_RUN_MAX - 1);
	assert_int_equal(r->insn.op, PTD_SOP_NONE);
	/* ...and the rest is the next run, ending at the ret. */
	assert_int_equal(ptd_soft_scan_run(s, 0x600000 + PTD_SOFT_RUN_MAX, &r), 0);
	assert_int_equal(r->end, 0x600000 + n);
	assert_int_equal(r->insn.op, PTD_SOP_RET);
	ptd_soft_scan_free(s);
	free(many);
}

static void test_map_churn(void **state)
{
	(void)state;
	/* Insert and delete enough keys to force growth and chain shifts. */
	struct ptd__soft_map m = { 0 };
	for (uint64_t k = 1; k <= 5000; k++)
		assert_int_equal(ptd__soft_map_put(&m, k * 64, (void *)(uintptr_t)k), 0);
	for (uint64_t k = 1; k <= 5000; k += 2)
		assert_ptr_equal(ptd__soft_map_del(&m, k * 64), (void *)(uintptr_t)k);
	for (uint64_t k = 1; k <= 5000; k++) {
		void *v = ptd__soft_map_get(&m, k * 64);
		if (k & 1)
			assert_null(v);
		else
			assert_ptr_equal(v, (void *)(uintptr_t)k);
	}
	assert_int_equal(m.n, 2500);
	assert_null(ptd__soft_map_del(&m, 12345));
	ptd__soft_map_fini(&m);
}

/* Code at 0x10000: a call into 0x10020, where "volatile" memory (code
 * the program may rewrite) starts; nops before it fall through into it. */
static uint8_t vcode[0x30];
static int vol_from_0x20(void *ctx, uint64_t addr)
{
	(void)ctx;
	return addr >= 0x10020 && addr < 0x10030;
}

static void test_volatile_code(void **state)
{
	(void)state;
	struct fake f = { 0x10000, vcode, sizeof(vcode) };
	const struct ptd_soft_run *r;
	uint64_t lo = 0, hi = 0;

	memset(vcode, 0x90, sizeof(vcode));
	vcode[0x01] = 0xe8; /* call 0x10020 */
	vcode[0x02] = 0x1a;
	vcode[0x03] = vcode[0x04] = vcode[0x05] = 0;
	vcode[0x06] = 0xc3;
	vcode[0x22] = 0xc3;

	/* Without the callback the call is followed into the callee. */
	struct ptd_soft_scan *s = ptd_soft_scan_alloc(fake_read, &f);
	assert_int_equal(ptd_soft_scan_run(s, 0x10000, &r), 0);
	assert_int_equal(r->end, 0x10022);
	assert_false(r->vol);
	assert_null(r->code);
	ptd_soft_scan_free(s);

	s = ptd_soft_scan_alloc(fake_read, &f);
	ptd_soft_scan_set_volatile(s, vol_from_0x20, NULL);
	/* A direct call into volatile code is trapped, so the callee is
	 * checked when the call is taken. */
	assert_int_equal(ptd_soft_scan_run(s, 0x10000, &r), 0);
	assert_int_equal(r->end, 0x10001);
	assert_int_equal(r->insn.op, PTD_SOP_CALL);
	assert_false(r->vol);
	assert_int_equal(ptd_soft_scan_verify(s, r, &lo, &hi), 0);
	/* So is falling through into it: the last nop before it. */
	assert_int_equal(ptd_soft_scan_run(s, 0x1001c, &r), 0);
	assert_int_equal(r->end, 0x1001f);
	assert_int_equal(r->insn.op, PTD_SOP_NONE);
	/* A run in it keeps its bytes, and a change is found. */
	assert_int_equal(ptd_soft_scan_run(s, 0x10020, &r), 0);
	assert_int_equal(r->end, 0x10022);
	assert_true(r->vol);
	assert_non_null(r->code);
	assert_int_equal(ptd_soft_scan_verify(s, r, &lo, &hi), 0);
	vcode[0x21] = 0xc3;
	assert_int_equal(ptd_soft_scan_verify(s, r, &lo, &hi), 1);
	assert_int_equal(lo, 0x10021);
	assert_int_equal(hi, 0x10022);
	/* Rescanned after invalidation: the new ret ends the run. */
	assert_int_equal(ptd_soft_scan_invalidate(s, lo, hi, NULL, NULL), 0);
	assert_int_equal(ptd_soft_scan_run(s, 0x10020, &r), 0);
	assert_int_equal(r->end, 0x10021);
	assert_int_equal(ptd_soft_scan_verify(s, r, &lo, &hi), 0);
	/* Gone from memory: changed as a whole. */
	f.size = 0x20;
	assert_int_equal(ptd_soft_scan_verify(s, r, &lo, &hi), 1);
	assert_int_equal(lo, 0x10020);
	assert_int_equal(hi, 0x10022);
	assert_int_equal(ptd_soft_scan_verify(NULL, r, &lo, &hi), -ptde_invalid);
	ptd_soft_scan_free(s);
}

static void test_null_args(void **state)
{
	(void)state;
	const struct ptd_soft_run *r;
	assert_null(ptd_soft_scan_alloc(NULL, NULL));
	assert_int_equal(ptd_soft_scan_run(NULL, 1, &r), -ptde_invalid);
	ptd_soft_scan_free(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_call_followed_into_callee),
		cmocka_unit_test(test_direct_jumps_to_indirect),
		cmocka_unit_test(test_static_loop_is_cut),
		cmocka_unit_test(test_cache_and_arm_once),
		cmocka_unit_test(test_invalidate),
		cmocka_unit_test(test_prefix),
		cmocka_unit_test(test_unreadable_and_long_runs),
		cmocka_unit_test(test_map_churn),
		cmocka_unit_test(test_volatile_code),
		cmocka_unit_test(test_null_args),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
