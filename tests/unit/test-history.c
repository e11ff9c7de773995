/*
 * Unit tests for the history storage and cursor (src/history/history.c):
 * gdb-style numbering over blocks, gaps, events and the tail; cursor
 * goto/next/prev against the simulated instruction sequence of real
 * machine code; merging of one-instruction appends; compactness and
 * random access on a history of more than a million instructions.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "histfix.h"
#include "history/history_int.h"
#include "ptdbg/ptdbg.h"

static void test_null(void **state)
{
	struct ptd_hcursor c;
	struct ptd_block b = { 0x401106, 0x401106, 1, PTD_IC_OTHER, 0 };

	(void)state;
	ptd_history_free(NULL);
	ptd_history_clear(NULL);
	assert_int_equal(ptd_history_count(NULL), 0);
	assert_int_equal(ptd_history_append_block(NULL, &b), -ptde_invalid);
	assert_int_equal(ptd_hcursor_goto(&c, NULL, 1), -ptde_invalid);
	assert_int_equal(ptd_hcursor_next(NULL), -ptde_invalid);
	assert_null(ptd_history_detail(NULL, 1));
}

static void test_invalid_blocks(void **state)
{
	struct ptd_history *h = ptd_history_alloc(fx_read, NULL);
	struct ptd_block b = { 0x401106, 0x401106, 0, PTD_IC_OTHER, 0 };
	struct ptd_hcursor c;

	(void)state;
	assert_int_equal(ptd_history_append_block(h, &b), -ptde_invalid);
	b.ninsn = 2;
	b.end_ip = 0x401100;
	assert_int_equal(ptd_history_append_block(h, &b), -ptde_invalid);
	b.ninsn = 1;
	b.end_ip = 0x401107;
	assert_int_equal(ptd_history_append_block(h, &b), -ptde_invalid);
	b.end_ip = 0x401106;
	b.flags = 0x80;
	assert_int_equal(ptd_history_append_block(h, &b), -ptde_invalid);
	b.flags = 0;
	b.iclass = PTD_IC_MAX;
	assert_int_equal(ptd_history_append_block(h, &b), -ptde_invalid);
	assert_int_equal(ptd_history_count(h), 0);
	assert_int_equal(ptd_hcursor_goto(&c, h, 1), -ptde_eos);
	assert_int_equal(ptd_hcursor_goto(&c, h, 0), -ptde_bos);
	ptd_history_free(h);
}

/* Walks the whole program forward and backward and by goto. */
static void test_program_numbering(void **state)
{
	struct fx_sim s;
	struct ptd_hcursor c;
	uint64_t i, count;

	(void)state;
	fx_sim_init(&s);
	fx_program(&s);
	assert_false(s.err);
	count = ptd_history_count(s.h);
	assert_int_equal(count, s.n);
	assert_int_equal(ptd_history_ninsn(s.h), s.n - 1);
	assert_int_equal(ptd_history_tail(s.h), FX_START + 5);

	assert_int_equal(ptd_hcursor_goto(&c, s.h, 1), 0);
	for (i = 1; i <= count; i++) {
		assert_int_equal(c.number, i);
		assert_int_equal(c.ip, s.ips[i - 1]);
		assert_false(c.is_gap);
		assert_true(c.len > 0);
		if (i < count)
			assert_int_equal(ptd_hcursor_next(&c), 0);
	}
	/* The tail: the hlt after main. */
	assert_int_equal(c.len, 1);
	assert_int_equal(ptd_hcursor_next(&c), -ptde_eos);
	assert_int_equal(c.number, count);
	for (i = count; i >= 1; i--) {
		assert_int_equal(c.number, i);
		assert_int_equal(c.ip, s.ips[i - 1]);
		if (i > 1)
			assert_int_equal(ptd_hcursor_prev(&c), 0);
	}
	assert_int_equal(ptd_hcursor_prev(&c), -ptde_bos);
	assert_int_equal(c.number, 1);

	for (i = 1; i <= count; i++) {
		assert_int_equal(ptd_hcursor_goto(&c, s.h, i), 0);
		assert_int_equal(c.ip, s.ips[i - 1]);
	}
	assert_int_equal(ptd_hcursor_goto(&c, s.h, count + 1), -ptde_eos);

	/* Classes: the call in main and the ret of g; lengths from the code. */
	assert_int_equal(ptd_hcursor_goto(&c, s.h, fx_num(&s, 0x401196, 0)), 0);
	assert_int_equal(c.iclass, PTD_IC_CALL);
	assert_int_equal(c.len, 5);
	assert_int_equal(ptd_hcursor_goto(&c, s.h, fx_num(&s, 0x40111c, 0)), 0);
	assert_int_equal(c.iclass, PTD_IC_RET);
	assert_int_equal(ptd_hcursor_goto(&c, s.h, fx_num(&s, 0x40118a, 0)), 0);
	assert_int_equal(c.iclass, PTD_IC_OTHER);
	assert_int_equal(c.len, 7);
	fx_sim_fini(&s);
}

/* One instruction per append (as the step recorder does) merges into the
 * same blocks as block-wise appends. */
static void test_merge_single_steps(void **state)
{
	struct fx_sim s;
	struct ptd_history *h = ptd_history_alloc(fx_read, NULL);
	struct ptd_hcursor c, d;
	struct ptd_item it;
	uint64_t i, n;

	(void)state;
	fx_sim_init(&s);
	fx_program(&s);
	n = ptd_history_count(s.h);
	for (i = 0; i + 1 < s.n; i++) {
		struct ptd_block b;

		assert_int_equal(ptd_hcursor_goto(&c, s.h, i + 1), 0);
		b.ip = b.end_ip = c.ip;
		b.ninsn = 1;
		b.iclass = c.iclass;
		b.flags = 0;
		assert_int_equal(ptd_history_append_block(h, &b), 0);
	}
	ptd_history_set_tail(h, s.ips[s.n - 1]);
	assert_int_equal(ptd_history_count(h), n);
	assert_int_equal(ptd_history_nitems(h), ptd_history_nitems(s.h));
	for (i = 0; i < ptd_history_nitems(h); i++) {
		struct ptd_item a;

		assert_true(ptd_history_item(h, i, &it));
		assert_true(ptd_history_item(s.h, i, &a));
		assert_int_equal(it.block.ip, a.block.ip);
		assert_int_equal(it.block.end_ip, a.block.end_ip);
		assert_int_equal(it.block.ninsn, a.block.ninsn);
		assert_int_equal(it.number, a.number);
	}
	assert_false(ptd_history_item(h, i, &it));
	assert_int_equal(ptd_hcursor_goto(&c, h, 1), 0);
	assert_int_equal(ptd_hcursor_goto(&d, s.h, 1), 0);
	for (i = 1; i < n; i++) {
		assert_int_equal(ptd_hcursor_next(&c), 0);
		assert_int_equal(ptd_hcursor_next(&d), 0);
		assert_int_equal(c.ip, d.ip);
	}
	/* No merge across an interrupted block or a non-fall-through ip. */
	ptd_history_clear(h);
	{
		struct ptd_block a = { 0x401106, 0x401106, 1, PTD_IC_OTHER, PTD_BLK_INTERRUPTED };
		struct ptd_block b = { 0x401107, 0x401107, 1, PTD_IC_OTHER, 0 };
		struct ptd_block x = { 0x40110d, 0x40110d, 1, PTD_IC_OTHER, 0 };

		assert_int_equal(ptd_history_append_block(h, &a), 0);
		assert_int_equal(ptd_history_append_block(h, &b), 0);
		assert_int_equal(ptd_history_append_block(h, &x), 0);
		assert_int_equal(ptd_history_nitems(h), 3);
		assert_int_equal(ptd_history_count(h), 3);
	}
	ptd_history_free(h);
	fx_sim_fini(&s);
}

/* Gaps take one number, events none; the cursor reports both. */
static void test_gaps_events_tail(void **state)
{
	struct ptd_history *h = ptd_history_alloc(fx_read, NULL);
	struct ptd_block g1 = { 0x401106, 0x40111c, 9, PTD_IC_RET, 0 };
	struct ptd_block f1 = { 0x401132, 0x40113a, 3, PTD_IC_CALL, 0 };
	struct ptd_block hd = { 0x402000, 0x402006, 5, PTD_IC_RET, 0 };
	struct ptd_hcursor c;
	struct ptd_item ev[4], it;

	(void)state;
	assert_int_equal(ptd_history_append_block(h, &g1), 0);                      /* 1..9 */
	assert_int_equal(ptd_history_append_gap(h, PTD_GAP_OVERFLOW, 77, "lost 4 KiB"), 0); /* 10 */
	assert_int_equal(ptd_history_append_block(h, &f1), 0);                      /* 11..13 */
	assert_int_equal(ptd_history_append_event(h, PTD_EV_SIGNAL, 0x401106, 14), 0);
	assert_int_equal(ptd_history_append_block(h, &hd), 0);                      /* 14..18 */
	assert_int_equal(ptd_history_append_gap(h, PTD_GAP_DECODE_ERROR, 0, NULL), 0); /* 19 */
	assert_int_equal(ptd_history_append_event(h, PTD_EV_ENABLED, 0x401106, 0), 0);
	assert_int_equal(ptd_history_count(h), 19);
	ptd_history_set_tail(h, 0x401106);                                           /* 20 */
	assert_int_equal(ptd_history_count(h), 20);
	assert_int_equal(ptd_history_ninsn(h), 17);
	assert_int_equal(ptd_history_nitems(h), 7);

	assert_true(ptd_history_item(h, 1, &it));
	assert_int_equal(it.kind, PTD_ITEM_GAP);
	assert_int_equal(it.number, 10);
	assert_int_equal(it.reason, PTD_GAP_OVERFLOW);
	assert_int_equal(it.arg, 77);
	assert_string_equal(ptd_history_detail(h, it.detail), "lost 4 KiB");
	assert_true(ptd_history_item(h, 3, &it));
	assert_int_equal(it.kind, PTD_ITEM_EVENT);
	assert_int_equal(it.number, 14);
	assert_int_equal(it.block.ip, 0x401106);
	assert_int_equal(it.arg, 14);

	assert_int_equal(ptd_hcursor_goto(&c, h, 9), 0);
	assert_int_equal(c.ip, 0x40111c);
	assert_int_equal(ptd_hcursor_events(&c, ev, 4), 0);
	assert_int_equal(ptd_hcursor_next(&c), 0);
	assert_int_equal(c.number, 10);
	assert_true(c.is_gap);
	assert_int_equal(c.ip, 0);
	assert_int_equal(c.gap_reason, PTD_GAP_OVERFLOW);
	assert_int_equal(ptd_hcursor_next(&c), 0);
	assert_int_equal(c.number, 11);
	assert_int_equal(c.ip, 0x401132);
	assert_int_equal(ptd_hcursor_goto(&c, h, 14), 0);
	assert_int_equal(c.ip, 0x402000);
	assert_int_equal(ptd_hcursor_events(&c, ev, 4), 1);
	assert_int_equal(ev[0].reason, PTD_EV_SIGNAL);
	assert_int_equal(ptd_hcursor_prev(&c), 0);
	assert_int_equal(c.number, 13);
	assert_int_equal(c.ip, 0x40113a);
	assert_int_equal(c.iclass, PTD_IC_CALL);
	assert_int_equal(ptd_hcursor_goto(&c, h, 19), 0);
	assert_true(c.is_gap);
	assert_int_equal(c.gap_reason, PTD_GAP_DECODE_ERROR);
	assert_int_equal(ptd_hcursor_next(&c), 0);
	assert_int_equal(c.number, 20);
	assert_int_equal(c.ip, 0x401106);
	assert_int_equal(ptd_hcursor_events(&c, ev, 4), 1);
	assert_int_equal(ev[0].reason, PTD_EV_ENABLED);
	assert_int_equal(ptd_hcursor_next(&c), -ptde_eos);
	assert_int_equal(ptd_hcursor_prev(&c), 0);
	assert_int_equal(c.number, 19);
	assert_true(c.is_gap);
	assert_int_equal(ptd_hcursor_goto(&c, h, 21), -ptde_eos);

	/* Appending keeps a cursor valid; the tail moves up. */
	assert_int_equal(ptd_hcursor_goto(&c, h, 16), 0);
	assert_int_equal(ptd_history_append_block(h, &g1), 0);
	assert_int_equal(ptd_history_count(h), 29);
	assert_int_equal(ptd_hcursor_next(&c), 0);
	assert_int_equal(c.number, 17);

	ptd_history_clear(h);
	assert_int_equal(ptd_history_count(h), 0);
	assert_int_equal(ptd_history_nitems(h), 0);
	assert_int_equal(ptd_history_tail(h), 0);
	ptd_history_free(h);
}

/* Only a tail: one position, both ends at once. */
static void test_tail_only(void **state)
{
	struct ptd_history *h = ptd_history_alloc(fx_read, NULL);
	struct ptd_hcursor c;

	(void)state;
	ptd_history_set_tail(h, FX_MAIN);
	assert_int_equal(ptd_history_count(h), 1);
	assert_int_equal(ptd_history_ninsn(h), 0);
	assert_int_equal(ptd_hcursor_goto(&c, h, 1), 0);
	assert_int_equal(c.ip, FX_MAIN);
	assert_int_equal(c.len, 1);
	assert_int_equal(ptd_hcursor_next(&c), -ptde_eos);
	assert_int_equal(ptd_hcursor_prev(&c), -ptde_bos);
	assert_int_equal(c.number, 1);
	ptd_history_free(h);
}

/* A block that does not match the code in memory is an error, not a crash. */
static void test_bad_code(void **state)
{
	struct ptd_history *h = ptd_history_alloc(fx_read, NULL);
	struct ptd_block b = { 0x401106, 0x40111c, 5, PTD_IC_RET, 0 }; /* really 9 */
	struct ptd_block u = { 0x500000, 0x500010, 3, PTD_IC_RET, 0 }; /* unmapped */
	struct ptd_hcursor c;

	(void)state;
	assert_int_equal(ptd_history_append_block(h, &b), 0);
	assert_int_equal(ptd_history_append_block(h, &u), 0);
	assert_int_equal(ptd_hcursor_goto(&c, h, 1), 0);
	assert_int_equal(c.ip, 0x401106);
	assert_int_equal(ptd_hcursor_next(&c), -ptde_bad_insn);
	/* first and last instructions are known without decoding */
	assert_int_equal(ptd_hcursor_goto(&c, h, 5), 0);
	assert_int_equal(c.ip, 0x40111c);
	assert_int_equal(ptd_hcursor_goto(&c, h, 6), 0);
	assert_int_equal(c.ip, 0x500000);
	assert_int_equal(ptd_hcursor_goto(&c, h, 7), -ptde_bad_insn);
	ptd_history_free(h);
}

/*
 * A large synthetic history over a 1 MiB code image of real instructions
 * (lengths 1..7), blocks of 2..8 instructions (about 5 on average, like
 * -O0 code) at random places: bytes per instruction and random access.
 */
#define BIG_CODE 0x600000ull
#define BIG_SIZE (1u << 20)

static uint8_t *big_mem;

static int big_read(void *ctx, uint64_t addr, uint8_t *buf, size_t n)
{
	(void)ctx;
	if (addr < BIG_CODE || addr >= BIG_CODE + BIG_SIZE)
		return -1;
	if (n > BIG_CODE + BIG_SIZE - addr)
		n = (size_t)(BIG_CODE + BIG_SIZE - addr);
	memcpy(buf, big_mem + (addr - BIG_CODE), n);
	return (int)n;
}

static uint64_t rng = 88172645463325252ull;

static uint64_t xr(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static void test_big_compact_random_access(void **state)
{
	static const uint8_t insns[][7] = {
		{ 0x90 },                                     /* nop */
		{ 0x89, 0xc7 },                               /* mov %eax,%edi */
		{ 0x8b, 0x45, 0xfc },                         /* mov -0x4(%rbp),%eax */
		{ 0x48, 0x83, 0xec, 0x10 },                   /* sub $0x10,%rsp */
		{ 0xbf, 0x04, 0x00, 0x00, 0x00 },             /* mov $4,%edi */
		{ 0xc7, 0x45, 0xfc, 0x01, 0x00, 0x00, 0x00 }, /* movl $1,-0x4(%rbp) */
	};
	static const uint8_t lens[] = { 1, 2, 3, 4, 5, 7 };
	static const uint8_t classes[] = { PTD_IC_COND_JUMP, PTD_IC_CALL, PTD_IC_RET, PTD_IC_JUMP,
					   PTD_IC_COND_JUMP };
	uint32_t *starts, nstarts = 0, off = 0;
	uint64_t *bnum, *bip;
	uint32_t *bfirst, nb = 0, cap = 1u << 19;
	uint64_t total = 0, i;
	struct ptd_history *h;
	struct ptd_hcursor c;
	double per;

	(void)state;
	big_mem = malloc(BIG_SIZE);
	starts = malloc(BIG_SIZE * sizeof(*starts));
	bnum = malloc(cap * sizeof(*bnum));
	bip = malloc(cap * sizeof(*bip));
	bfirst = malloc(cap * sizeof(*bfirst));
	assert_non_null(big_mem);
	while (off + 7 <= BIG_SIZE) {
		int k = (int)(xr() % 6);

		memcpy(big_mem + off, insns[k], lens[k]);
		starts[nstarts++] = off;
		off += lens[k];
	}
	memset(big_mem + off, 0x90, BIG_SIZE - off);

	h = ptd_history_alloc(big_read, NULL);
	while (total < 1200000) {
		/* code is local: functions of a few KiB */
		uint32_t s = (uint32_t)(xr() % (nstarts / 64)) + (uint32_t)((xr() % 4) * (nstarts / 4));
		uint32_t n = 2 + (uint32_t)(xr() % 7);
		struct ptd_block b;

		b.ip = BIG_CODE + starts[s];
		b.end_ip = BIG_CODE + starts[s + n - 1];
		b.ninsn = n;
		b.iclass = classes[xr() % 5];
		b.flags = 0;
		assert_int_equal(ptd_history_append_block(h, &b), 0);
		bnum[nb] = total + 1;
		bip[nb] = b.ip;
		bfirst[nb] = s;
		nb++;
		total += n;
	}
	ptd_history_set_tail(h, BIG_CODE);
	assert_int_equal(ptd_history_ninsn(h), total);
	assert_int_equal(ptd_history_count(h), total + 1);

	/* random access by number, then a few steps around */
	for (i = 0; i < 20000; i++) {
		uint64_t num = 1 + xr() % total;
		uint32_t lo = 0, hi = nb;
		int k;

		while (hi - lo > 1) {
			uint32_t mid = (lo + hi) / 2;

			if (bnum[mid] <= num)
				lo = mid;
			else
				hi = mid;
		}
		assert_int_equal(ptd_hcursor_goto(&c, h, num), 0);
		assert_int_equal(c.ip, BIG_CODE + starts[bfirst[lo] + (num - bnum[lo])]);
		for (k = 0; k < 3 && c.number < total; k++)
			assert_int_equal(ptd_hcursor_next(&c), 0);
		for (k = 0; k < 6 && c.number > 1; k++)
			assert_int_equal(ptd_hcursor_prev(&c), 0);
		if (num > 3 && num + 3 <= total)
			assert_int_equal(c.number, num - 3);
	}
	/* the first instruction of every 1000th block */
	for (i = 0; i < nb; i += 1000) {
		assert_int_equal(ptd_hcursor_goto(&c, h, bnum[i]), 0);
		assert_int_equal(c.ip, bip[i]);
	}
	per = (double)ptd_history_bytes(h) / (double)total;
	print_message("history: %lu insns, %lu blocks, %zu bytes, %.3f bytes/insn\n",
		      (unsigned long)total, (unsigned long)nb, ptd_history_bytes(h), per);
	assert_true(per < 4.0);
	assert_true(per > 0.1);
	ptd_history_free(h);
	free(big_mem);
	free(starts);
	free(bnum);
	free(bip);
	free(bfirst);
}


/* ---- bulk append and splice: same items as appending one by one ---- */

#define NOP_CODE 0x700000ull
#define NOP_SIZE 65536u

static int nop_read(void *ctx, uint64_t addr, uint8_t *buf, size_t n)
{
	(void)ctx;
	if (addr < NOP_CODE || addr >= NOP_CODE + NOP_SIZE)
		return -1;
	if (n > NOP_CODE + NOP_SIZE - addr)
		n = (size_t)(NOP_CODE + NOP_SIZE - addr);
	memset(buf, 0x90, n); /* every instruction is one byte long */
	return (int)n;
}

struct sitem {
	int kind;
	struct ptd_block b;
	uint8_t reason;
	uint64_t arg;
	char detail[24];
};

static int sappend(struct ptd_history *h, const struct sitem *it)
{
	if (it->kind == PTD_ITEM_BLOCK)
		return ptd_history_append_block(h, &it->b);
	if (it->kind == PTD_ITEM_GAP)
		return ptd_history_append_gap(h, it->reason, it->arg, it->detail[0] ? it->detail : NULL);
	return ptd_history_append_event(h, it->reason, it->b.ip, it->arg);
}

static void assert_same_history(const struct ptd_history *a, const struct ptd_history *b)
{
	uint64_t i, n = ptd_history_nitems(a);

	assert_int_equal(ptd_history_nitems(b), n);
	assert_int_equal(ptd_history_count(b), ptd_history_count(a));
	assert_int_equal(ptd_history_ninsn(b), ptd_history_ninsn(a));
	for (i = 0; i < n; i++) {
		struct ptd_item x, y;

		assert_int_equal(ptd_history_item(a, i, &x), 1);
		assert_int_equal(ptd_history_item(b, i, &y), 1);
		assert_int_equal(x.kind, y.kind);
		assert_int_equal(x.number, y.number);
		assert_int_equal(x.reason, y.reason);
		assert_int_equal(x.arg, y.arg);
		assert_int_equal(x.block.ip, y.block.ip);
		if (x.kind == PTD_ITEM_BLOCK) {
			assert_int_equal(x.block.end_ip, y.block.end_ip);
			assert_int_equal(x.block.ninsn, y.block.ninsn);
			assert_int_equal(x.block.iclass, y.block.iclass);
			assert_int_equal(x.block.flags, y.block.flags);
		}
		if (x.kind == PTD_ITEM_GAP) {
			const char *dx = ptd_history_detail(a, x.detail), *dy = ptd_history_detail(b, y.detail);

			assert_true((dx == NULL) == (dy == NULL));
			if (dx)
				assert_string_equal(dx, dy);
		}
	}
}

static void test_bulk_and_splice(void **state)
{
	static const uint8_t classes[] = { PTD_IC_OTHER, PTD_IC_COND_JUMP, PTD_IC_CALL, PTD_IC_RET,
					   PTD_IC_JUMP };
	size_t n = 20000, i, k;
	struct sitem *items = calloc(n, sizeof(*items));
	struct ptd_history *ref = ptd_history_alloc(nop_read, NULL);
	struct ptd_history *bulk = ptd_history_alloc(nop_read, NULL);
	struct ptd_history *spl = ptd_history_alloc(nop_read, NULL);
	struct ptd_block run[97];
	uint64_t prev_end = 0;
	int prev_other = 0, round;

	(void)state;
	assert_non_null(items);
	for (i = 0; i < n; i++) {
		struct sitem *it = &items[i];
		unsigned r = (unsigned)(xr() % 100);

		if (r < 2) {
			it->kind = PTD_ITEM_GAP;
			it->reason = PTD_GAP_OVERFLOW;
			it->arg = xr() % 100000;
			if (xr() % 2)
				snprintf(it->detail, sizeof(it->detail), "gap %zu", i);
			prev_other = 0;
			continue;
		}
		if (r < 4) {
			it->kind = PTD_ITEM_EVENT;
			it->reason = PTD_EV_SIGNAL;
			it->b.ip = NOP_CODE + xr() % NOP_SIZE;
			it->arg = 10;
			continue;
		}
		it->kind = PTD_ITEM_BLOCK;
		it->b.ninsn = 1 + (uint32_t)(xr() % 20);
		/* After a block ending in an ordinary instruction, often the
		 * next one continues it: those merge. */
		if (prev_other && xr() % 2)
			it->b.ip = prev_end + 1;
		else
			it->b.ip = NOP_CODE + xr() % (NOP_SIZE - 64);
		it->b.end_ip = it->b.ip + it->b.ninsn - 1;
		it->b.iclass = classes[xr() % 5];
		it->b.flags = xr() % 7 == 0 ? PTD_BLK_INTERRUPTED : 0;
		prev_end = it->b.end_ip;
		prev_other = it->b.iclass == PTD_IC_OTHER;
	}
	for (i = 0; i < n; i++)
		assert_int_equal(sappend(ref, &items[i]), 0);
	assert_true(ptd_history_nitems(ref) < n); /* some merged */

	/* Bulk: runs of blocks through ptd_history_append_blocks. */
	for (i = 0; i < n;) {
		if (items[i].kind != PTD_ITEM_BLOCK) {
			assert_int_equal(sappend(bulk, &items[i++]), 0);
			continue;
		}
		for (k = 0; i < n && k < 1 + xr() % 97 && items[i].kind == PTD_ITEM_BLOCK; k++)
			run[k] = items[i++].b;
		assert_int_equal(ptd_history_append_blocks(bulk, run, k), 0);
	}
	assert_same_history(ref, bulk);

	/* Splice: pieces of random length (some shorter than a chunk, some
	 * many chunks long), each built on its own and spliced in order. */
	for (round = 0, i = 0; i < n; round++) {
		struct ptd_history *piece = ptd_history_alloc(nop_read, NULL);
		size_t len = round % 3 == 0 ? 1 + xr() % 100 : 1 + xr() % 3000;

		for (k = 0; k < len && i < n; k++)
			assert_int_equal(sappend(piece, &items[i++]), 0);
		assert_int_equal(ptd_history_splice(spl, piece), 0);
		assert_int_equal(ptd_history_nitems(piece), 0);
		ptd_history_free(piece);
	}
	assert_same_history(ref, spl);
	/* Appending after a splice, and cursor walks over the seams. */
	assert_int_equal(sappend(ref, &items[10]), 0);
	assert_int_equal(sappend(spl, &items[10]), 0);
	assert_same_history(ref, spl);
	{
		struct ptd_hcursor a, b;
		uint64_t num;

		for (num = 1; num < ptd_history_count(ref); num += 1 + xr() % 50) {
			assert_int_equal(ptd_hcursor_goto(&a, ref, num), 0);
			assert_int_equal(ptd_hcursor_goto(&b, spl, num), 0);
			assert_int_equal(a.ip, b.ip);
			assert_int_equal(a.is_gap, b.is_gap);
		}
	}
	/* Prepend: pieces from the newest back, each put before the rest;
	 * the tail stays. */
	{
		struct ptd_history *pre = ptd_history_alloc(nop_read, NULL);
		size_t end = n;

		ptd_history_set_tail(pre, NOP_CODE + 5);
		while (end > 0) {
			struct ptd_history *piece = ptd_history_alloc(nop_read, NULL);
			size_t len = 1 + xr() % 2000, from = end > len ? end - len : 0;

			for (k = from; k < end; k++)
				assert_int_equal(sappend(piece, &items[k]), 0);
			assert_int_equal(ptd_history_prepend(pre, piece), 0);
			assert_int_equal(ptd_history_nitems(piece), 0);
			ptd_history_free(piece);
			end = from;
		}
		assert_int_equal(ptd_history_tail(pre), NOP_CODE + 5);
		ptd_history_set_tail(pre, 0);
		/* ref got one more item above */
		assert_int_equal(sappend(pre, &items[10]), 0);
		assert_same_history(ref, pre);
		ptd_history_free(pre);
	}
	/* A piece of several chunks that ends with a gap with a detail: the
	 * detail survives the move. */
	{
		struct ptd_history *a = ptd_history_alloc(nop_read, NULL);
		struct ptd_history *b = ptd_history_alloc(nop_read, NULL);
		struct ptd_block blk = { NOP_CODE, NOP_CODE + 1, 2, PTD_IC_JUMP, 0 };
		struct ptd_item it;

		assert_int_equal(ptd_history_append_gap(a, PTD_GAP_LOST, 1, "first"), 0);
		for (k = 0; k < 700; k++)
			assert_int_equal(ptd_history_append_block(b, &blk), 0);
		assert_int_equal(ptd_history_append_gap(b, PTD_GAP_DECODE_ERROR, (uint64_t)-21, "last"), 0);
		assert_int_equal(ptd_history_splice(a, b), 0);
		assert_int_equal(ptd_history_nitems(a), 702);
		assert_int_equal(ptd_history_item(a, 701, &it), 1);
		assert_int_equal(it.kind, PTD_ITEM_GAP);
		assert_int_equal((int64_t)it.arg, -21);
		assert_string_equal(ptd_history_detail(a, it.detail), "last");
		assert_int_equal(ptd_history_item(a, 0, &it), 1);
		assert_string_equal(ptd_history_detail(a, it.detail), "first");
		ptd_history_free(a);
		ptd_history_free(b);
	}
	assert_int_equal(ptd_history_splice(spl, spl), -ptde_invalid);
	assert_int_equal(ptd_history_append_blocks(NULL, run, 1), -ptde_invalid);
	run[0].ninsn = 0;
	assert_int_equal(ptd_history_append_blocks(bulk, run, 1), -ptde_invalid);
	ptd_history_free(ref);
	ptd_history_free(bulk);
	ptd_history_free(spl);
	free(items);
}


/*
 * Bounded histories: dropping the oldest part leaves one gap at number 1
 * that counts the dropped instructions, every kept item as it was with
 * its number lowered by the shift, cursors and appends working; a second
 * drop replaces the gap; a history of one chunk has nothing to drop.
 */
/*
 * ptd__history_append_coded (the fast path's way: blocks with their
 * ptd__history_block_code, or 0) gives the items that appending the
 * blocks one by one gives: near and far blocks (distances of one to ten
 * varint bytes), long ones (no code), class OTHER ones that the next one
 * continues, 32-bit code, flags, gaps between the runs, runs longer than
 * what is left of a chunk.
 */
static void test_coded_blocks(void **state)
{
	static const uint8_t classes[] = { PTD_IC_OTHER, PTD_IC_COND_JUMP, PTD_IC_CALL, PTD_IC_RET,
					   PTD_IC_JUMP, PTD_IC_FAR_CALL };
	size_t n = 30000, i, k;
	struct ptd_block *b = calloc(n, sizeof(*b));
	uint64_t *code = calloc(n, sizeof(*code));
	struct ptd_history *ref = ptd_history_alloc(nop_read, NULL);
	struct ptd_history *cod = ptd_history_alloc(nop_read, NULL);
	uint64_t prev_end = NOP_CODE;
	size_t ncoded = 0;

	(void)state;
	assert_non_null(b);
	assert_non_null(code);
	for (i = 0; i < n; i++) {
		unsigned r = (unsigned)(xr() % 100);

		b[i].ninsn = r < 3 ? 20000 + (uint32_t)(xr() % 200000) : 1 + (uint32_t)(xr() % 40);
		if (i && b[i - 1].iclass == PTD_IC_OTHER && xr() % 2)
			b[i].ip = prev_end + 1; /* continues it: merges */
		else if (r < 10)
			b[i].ip = 0x7f0000000000ull + (xr() % (1ull << 40)); /* far */
		else if (r < 20)
			b[i].ip = NOP_CODE + xr() % 64; /* near, often before */
		else
			b[i].ip = NOP_CODE + xr() % (NOP_SIZE - 64);
		b[i].end_ip = b[i].ip + (b[i].ninsn > 1 ? b[i].ninsn - 1 + xr() % 3000 : 0);
		b[i].iclass = classes[xr() % 6];
		b[i].flags = xr() % 9 == 0 ? PTD_BLK_INTERRUPTED : xr() % 50 == 0 ? PTD_BLK_MODE32 : 0;
		prev_end = b[i].end_ip;
		code[i] = xr() % 8 ? ptd__history_block_code(&b[i]) : 0;
		ncoded += code[i] != 0;
		/* (a code packs the bytes of the block but its distance) */
		if (code[i]) {
			assert_true((code[i] >> 56) >= 3 && (code[i] >> 56) <= 7);
			assert_int_equal(code[i] & 3, 0); /* a block's tag, 64-bit code */
		}
	}
	assert_true(ncoded > n / 2);
	for (i = 0; i < n; i += k) {
		size_t j, again = xr() % 10 == 0;

		k = 1 + xr() % 700;
		if (k > n - i)
			k = n - i;
		if (xr() % 10 == 0) {
			assert_int_equal(ptd_history_append_gap(ref, PTD_GAP_OVERFLOW, i, NULL), 0);
			assert_int_equal(ptd_history_append_gap(cod, PTD_GAP_OVERFLOW, i, NULL), 0);
		}
		/* (some runs twice: the same blocks after themselves) */
		do {
			for (j = 0; j < k; j++)
				assert_int_equal(ptd_history_append_block(ref, &b[i + j]), 0);
			assert_int_equal(ptd__history_append_coded(cod, b + i, code + i, k), 0);
		} while (again--);
	}
	assert_same_history(ref, cod);
	ptd_history_free(ref);
	ptd_history_free(cod);
	free(b);
	free(code);
}

static void test_drop_oldest(void **state)
{
	struct ptd_history *ref = ptd_history_alloc(nop_read, NULL);
	struct ptd_history *h = ptd_history_alloc(nop_read, NULL);
	struct ptd_history *small = ptd_history_alloc(nop_read, NULL);
	size_t n = 5000, i;
	uint64_t shift = 0, shift2 = 0, refn, count0, dropped, ninsn0, k;
	struct ptd_item it, x, y;
	struct ptd_hcursor c;
	struct ptd_block b;

	(void)state;
	for (i = 0; i < n; i++) {
		struct sitem si;
		memset(&si, 0, sizeof(si));
		if (i % 97 == 50) {
			si.kind = PTD_ITEM_GAP;
			si.reason = PTD_GAP_OVERFLOW;
			snprintf(si.detail, sizeof(si.detail), "lost %zu", i);
		} else if (i % 101 == 7) {
			si.kind = PTD_ITEM_EVENT;
			si.reason = PTD_EV_SIGNAL;
			si.b.ip = NOP_CODE + 8;
			si.arg = 10;
		} else {
			si.kind = PTD_ITEM_BLOCK;
			si.b.ninsn = 1 + (uint32_t)(i % 13);
			si.b.ip = NOP_CODE + (i * 64) % (NOP_SIZE - 64);
			si.b.end_ip = si.b.ip + si.b.ninsn - 1;
			si.b.iclass = PTD_IC_COND_JUMP;
		}
		assert_int_equal(sappend(ref, &si), 0);
		assert_int_equal(sappend(h, &si), 0);
	}
	ptd_history_set_tail(h, NOP_CODE);
	count0 = ptd_history_count(h);
	ninsn0 = ptd_history_ninsn(h);
	size_t bytes0 = ptd_history_bytes(h);

	assert_int_equal(ptd_history_drop_oldest(NULL, 10, NULL, &shift), -ptde_invalid);
	assert_int_equal(ptd_history_drop_oldest(h, 1, "x", &shift), 0);
	assert_int_equal(shift, 0); /* nothing wholly before number 1 */
	assert_int_equal(ptd_history_count(h), count0);

	assert_int_equal(ptd_history_drop_oldest(h, count0 / 2, "bound reached", &shift), 0);
	assert_true(shift > 0 && shift < count0 / 2);
	assert_int_equal(ptd_history_count(h), count0 - shift);
	assert_true(ptd_history_bytes(h) < bytes0);
	dropped = ptd_history_dropped(h);
	assert_true(dropped > 0);
	assert_int_equal(ptd_history_ninsn(h), ninsn0 - dropped);
	assert_int_equal(ptd_history_item(h, 0, &it), 1);
	assert_int_equal(it.kind, PTD_ITEM_GAP);
	assert_int_equal(it.reason, PTD_GAP_DROPPED);
	assert_int_equal(it.number, 1);
	assert_int_equal(it.arg, dropped);
	assert_string_equal(ptd_history_detail(h, it.detail), "bound reached");
	/* Every kept item is the reference's, numbered shift lower. */
	refn = ptd_history_nitems(ref) - (ptd_history_nitems(h) - 1);
	for (k = 1; k < ptd_history_nitems(h); k++) {
		assert_int_equal(ptd_history_item(h, k, &x), 1);
		assert_int_equal(ptd_history_item(ref, refn + k - 1, &y), 1);
		assert_int_equal(x.kind, y.kind);
		assert_int_equal(x.number + shift, y.number);
		assert_int_equal(x.block.ip, y.block.ip);
		if (x.kind == PTD_ITEM_BLOCK) {
			assert_int_equal(x.block.ninsn, y.block.ninsn);
			assert_int_equal(x.block.end_ip, y.block.end_ip);
		}
		if (x.kind == PTD_ITEM_GAP)
			assert_string_equal(ptd_history_detail(h, x.detail),
					    ptd_history_detail(ref, y.detail));
	}
	/* The detail strings of dropped gaps are freed (h and ref were
	 * built alike, so their detail indices agree). */
	for (k = 0; k < refn; k++) {
		assert_int_equal(ptd_history_item(ref, k, &y), 1);
		if (y.kind == PTD_ITEM_GAP && y.detail)
			assert_null(ptd_history_detail(h, y.detail));
	}
	/* The dropped instructions and the kept ones make the whole. */
	assert_int_equal(ptd_history_ninsn(h) + dropped, ptd_history_ninsn(ref));
	/* Cursors: the gap at 1, then the reference's instruction shift up. */
	assert_int_equal(ptd_hcursor_goto(&c, h, 1), 0);
	assert_true(c.is_gap);
	assert_int_equal(c.gap_reason, PTD_GAP_DROPPED);
	assert_int_equal(ptd_hcursor_prev(&c), -ptde_bos);
	assert_int_equal(ptd_hcursor_next(&c), 0);
	assert_int_equal(c.number, 2);
	struct ptd_hcursor rc;
	assert_int_equal(ptd_hcursor_goto(&rc, ref, 2 + shift), 0);
	assert_int_equal(c.ip, rc.ip);
	assert_int_equal(ptd_hcursor_goto(&c, h, ptd_history_count(h) - 1), 0);
	assert_int_equal(ptd_hcursor_goto(&rc, ref, ptd_history_count(h) - 1 + shift), 0);
	assert_int_equal(c.ip, rc.ip);

	/* Appending goes on with the lowered numbers. */
	b = (struct ptd_block){ NOP_CODE + 200, NOP_CODE + 202, 3, PTD_IC_RET, 0 };
	assert_int_equal(ptd_history_append_block(h, &b), 0);
	assert_int_equal(ptd_history_append_block(ref, &b), 0);
	assert_int_equal(ptd_history_count(h), count0 - shift + 3);

	/* A second drop replaces the gap and counts all dropped. */
	assert_int_equal(ptd_history_drop_oldest(h, ptd_history_count(h) / 2, "again", &shift2), 0);
	assert_true(shift2 > 0);
	assert_int_equal(ptd_history_item(h, 0, &it), 1);
	assert_int_equal(it.reason, PTD_GAP_DROPPED);
	assert_int_equal(it.arg, ptd_history_dropped(h));
	assert_true(ptd_history_dropped(h) > dropped);
	assert_string_equal(ptd_history_detail(h, it.detail), "again");
	assert_int_equal(ptd_history_item(h, 1, &it), 1);
	assert_int_not_equal(it.kind, PTD_ITEM_GAP); /* one gap only */
	assert_int_equal(ptd_history_ninsn(h) + ptd_history_dropped(h), ptd_history_ninsn(ref));
	assert_int_equal(ptd_history_count(h) + shift + shift2, ptd_history_count(ref) + 1);

	/* One chunk: nothing can go (the newest chunk stays). */
	b = (struct ptd_block){ NOP_CODE, NOP_CODE + 4, 5, PTD_IC_JUMP, 0 };
	assert_int_equal(ptd_history_append_block(small, &b), 0);
	assert_int_equal(ptd_history_drop_oldest(small, 100, NULL, &shift), 0);
	assert_int_equal(shift, 0);
	assert_int_equal(ptd_history_count(small), 5);
	assert_int_equal(ptd_history_dropped(small), 0);
	/* clear forgets the drops */
	ptd_history_clear(h);
	assert_int_equal(ptd_history_dropped(h), 0);
	ptd_history_free(ref);
	ptd_history_free(h);
	ptd_history_free(small);
}

/* Two programs at the same addresses (an exec): the old one's code at
 * 0x1000 is nop; nop; ret, the new one's mov $1,%eax; ret. */
static const uint8_t old_code[] = { 0x90, 0x90, 0xc3 };
static const uint8_t new_code[] = { 0xb8, 0x01, 0x00, 0x00, 0x00, 0xc3 };

static int code_read(const uint8_t *code, size_t size, uint64_t addr, uint8_t *buf, size_t n)
{
	if (addr < 0x1000 || addr >= 0x1000 + size)
		return -ptde_nomap;
	if (n > 0x1000 + size - addr)
		n = (size_t)(0x1000 + size - addr);
	memcpy(buf, code + (addr - 0x1000), n);
	return (int)n;
}

static int old_read(void *ctx, uint64_t addr, uint8_t *buf, size_t n)
{
	(*(int *)ctx)++;
	return code_read(old_code, sizeof(old_code), addr, buf, n);
}

static int new_read(void *ctx, uint64_t addr, uint8_t *buf, size_t n)
{
	(void)ctx;
	return code_read(new_code, sizeof(new_code), addr, buf, n);
}

static void test_mark_image(void **state)
{
	static const uint64_t ips[] = { 0x1000, 0x1001, 0x1002, 0x1000, 0x1005 };
	struct ptd_block ob = { 0x1000, 0x1002, 3, PTD_IC_RET, 0 };
	struct ptd_block nb = { 0x1000, 0x1005, 2, PTD_IC_RET, 0 };
	struct ptd_history *h = ptd_history_alloc(new_read, NULL);
	struct ptd_hcursor c;
	int old_ctx = 0, i, round;
	uint64_t shift;

	(void)state;
	assert_int_equal(ptd_history_mark_image(NULL, old_read, &old_ctx, 1), -ptde_invalid);
	assert_int_equal(ptd_history_mark_image(h, old_read, &old_ctx, 0), -ptde_invalid);
	assert_null(ptd_history_image_ctx(NULL, 1));
	/* nothing ran yet: no mark */
	assert_int_equal(ptd_history_mark_image(h, old_read, &old_ctx, 1), 0);
	assert_null(ptd_history_image_ctx(h, 1));
	/* the old program's instructions, then the new one's */
	for (i = 0; i < 3000; i++)
		assert_int_equal(ptd_history_append_block(h, &ob), 0);
	assert_int_equal(ptd_history_mark_image(h, old_read, &old_ctx, 7), 0);
	assert_int_equal(ptd_history_append_block(h, &nb), 0);
	ptd_history_set_tail(h, 0x1000);
	for (round = 0; round < 2; round++) {
		uint64_t first = ptd_history_count(h) - 5 - 1; /* old block before the new one */

		assert_ptr_equal(ptd_history_image_ctx(h, first + 1), &old_ctx);
		assert_ptr_equal(ptd_history_image_ctx(h, first + 3), &old_ctx);
		assert_null(ptd_history_image_ctx(h, first + 4));
		assert_int_equal(ptd__history_func_tag(h, first + 3), 7ull << PTD_FUNC_TAG_SHIFT);
		assert_int_equal(ptd__history_func_tag(h, first + 4), 0);
		/* each read through its own program's code (decoding the old
		 * block with the new bytes fails: they do not match) */
		assert_int_equal(ptd_hcursor_goto(&c, h, first + 1), 0);
		for (i = 0; i < 5; i++) {
			assert_int_equal(c.ip, ips[i]);
			if (i < 4)
				assert_int_equal(ptd_hcursor_next(&c), 0);
		}
		assert_int_equal(c.len, 1);
		assert_int_equal(ptd_hcursor_prev(&c), 0);
		assert_int_equal(c.ip, 0x1000);
		assert_int_equal(c.len, 5);
		assert_int_equal(ptd_hcursor_prev(&c), 0);
		assert_int_equal(c.ip, 0x1002);
		assert_true(old_ctx > 0);
		/* dropping the oldest part: the mark follows its items */
		assert_int_equal(ptd_history_drop_oldest(h, 4000, "dropped", &shift), 0);
		assert_true(round > 0 || shift > 0);
	}
	/* a clear takes the marks with the items */
	ptd_history_clear(h);
	assert_null(ptd_history_image_ctx(h, 1));
	ptd_history_free(h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_null),
		cmocka_unit_test(test_invalid_blocks),
		cmocka_unit_test(test_program_numbering),
		cmocka_unit_test(test_merge_single_steps),
		cmocka_unit_test(test_gaps_events_tail),
		cmocka_unit_test(test_tail_only),
		cmocka_unit_test(test_bad_code),
		cmocka_unit_test(test_big_compact_random_access),
		cmocka_unit_test(test_bulk_and_splice),
		cmocka_unit_test(test_coded_blocks),
		cmocka_unit_test(test_drop_oldest),
		cmocka_unit_test(test_mark_image),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
