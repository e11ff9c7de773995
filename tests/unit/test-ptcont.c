/*
 * The rule for PT: for any stream, ptdbg's history (instruction sequence,
 * gaps and their kinds, numbering) equals what ONE continuous libipt block
 * decode of the whole stream gives, with gaps counted as gdb's record
 * btrace counts them.  This file holds that reference decode (sync forward
 * once, resync after each error, a gap per error, per overflow and, with
 * gdb's rule on, per tracing resumed elsewhere than where it stopped after
 * the first item) and compares it item by item with every way ptdbg builds
 * a history: the whole-buffer decode, the trace history serial, lazy and
 * parallel (with runs as small as one PSB segment, so every seam is
 * crossed), for streams written with libipt's encoder in the patterns real
 * hardware writes: PSB+ with a FUP directly followed by TIP.PGE, filtered
 * tracing with a TIP.PGD/TIP.PGE pair at every call out of range, overflow,
 * and the smallest PSB period.  The call segments built from a lazy
 * history's call log (made by the counting decode) equal those built by
 * walking its items.
 */
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <dirent.h>
#include <intel-pt.h>

#include "decode/pt.h"
#include "history/history_int.h"
#include "util/error.h"
#define PTREF_FAIL(msg) fail_msg("%s", msg)
#include "ptref.h"

static void assert_same_seq(const struct seq *exp, const struct seq *got, const char *what)
{
	if (getenv("PTCONT_DUMP")) /* (both sequences, side by side) */
		for (size_t i = 0; i < exp->n || i < got->n; i++)
			fprintf(stderr, "%5zu %18llx %18llx%s\n", i + 1,
				i < exp->n ? (unsigned long long)exp->v[i] : 0ull,
				i < got->n ? (unsigned long long)got->v[i] : 0ull,
				i < exp->n && i < got->n && exp->v[i] == got->v[i] ? "" : "  <");
	for (size_t i = 0; i < exp->n && i < got->n; i++)
		if (exp->v[i] != got->v[i])
			fail_msg("%s: number %zu: reference 0x%llx, ptdbg 0x%llx", what, i + 1,
				 (unsigned long long)exp->v[i], (unsigned long long)got->v[i]);
	if (exp->n != got->n)
		fail_msg("%s: reference has %zu numbers, ptdbg %zu", what, exp->n, got->n);
}

/* Two histories with the same items (flags and event items included). */
static void assert_same_items(const struct ptd_history *x, const struct ptd_history *y,
			      const char *what)
{
	uint64_t n = ptd_history_nitems(x);

	if (n != ptd_history_nitems(y))
		fail_msg("%s: %llu items, expected %llu", what,
			 (unsigned long long)ptd_history_nitems(y), (unsigned long long)n);
	for (uint64_t i = 0; i < n; i++) {
		struct ptd_item a, b;

		assert_int_equal(ptd_history_item(x, i, &a), 1);
		assert_int_equal(ptd_history_item(y, i, &b), 1);
		if (a.kind != b.kind || a.number != b.number || a.reason != b.reason ||
		    (a.kind == PTD_ITEM_BLOCK &&
		     (a.block.ip != b.block.ip || a.block.end_ip != b.block.end_ip ||
		      a.block.ninsn != b.block.ninsn || a.block.iclass != b.block.iclass ||
		      a.block.flags != b.block.flags)))
			fail_msg("%s: item %llu: kind %d/%d number %llu/%llu ip 0x%llx/0x%llx "
				 "flags %d/%d",
				 what, (unsigned long long)i, a.kind, b.kind,
				 (unsigned long long)a.number, (unsigned long long)b.number,
				 (unsigned long long)a.block.ip, (unsigned long long)b.block.ip,
				 a.block.flags, b.block.flags);
	}
}

/* Every way ptdbg builds a history of @buf with @img (its histories read
 * code through it) against the reference. */
/* A function map for the call segments: 64-byte functions (any fixed map
 * will do to compare two builds made with it). */
static uint64_t func64(void *ctx, uint64_t addr)
{
	(void)ctx;
	return addr >= 0x1000 ? addr & ~0x3full : 0;
}

/* The call segments built from @h's call log, which covers at least its
 * first @cover items, equal those built walking its items, and so do the
 * counts "info record" uses. */
static void assert_same_calls(const struct ptd_history *h, ptd_func_of_fn fn, uint64_t cover,
			      const char *what)
{
	struct ptd_calls *a = ptd_calls_build(h, fn, NULL);
	struct ptd_calls *b = ptd__calls_build_items(h, fn, NULL);
	uint64_t ca = 0, cb = 0, covered = 0, i;

	if (!a || !b)
		fail_msg("%s: cannot build the call segments: %s", what, ptd_last_error(-1));
	if (!ptd__history_calllog(h, &covered) || covered < cover)
		fail_msg("%s: the call log covers %" PRIu64 " of %" PRIu64 " items", what, covered,
			 ptd_history_nitems(h));
	assert_int_equal(ptd_calls_count_only(h, fn, NULL, &ca), 0);
	assert_int_equal(ptd__calls_count_items(h, fn, NULL, &cb), 0);
	if (ca != cb || ca != ptd_calls_count(b) || ptd_calls_count(a) != ptd_calls_count(b))
		fail_msg("%s: call segments: log %" PRIu64 " (counted %" PRIu64 "), items %" PRIu64
			 " (counted %" PRIu64 ")",
			 what, ptd_calls_count(a), ca, ptd_calls_count(b), cb);
	assert_true(ptd_calls_count(b) > 1);
	for (i = 1; i <= ptd_calls_count(b); i++)
		if (memcmp(ptd_calls_get(a, i), ptd_calls_get(b, i), sizeof(struct ptd_callseg)))
			fail_msg("%s: call segment %" PRIu64 " differs", what, i);
	assert_int_equal(ptd_calls_min_level(a), ptd_calls_min_level(b));
	ptd_calls_free(a);
	ptd_calls_free(b);
}

/* The fuzzer's inputs (test_fuzz_inputs): may be as small as one gap. */
static int fuzz_input;

static void check_img(const uint8_t *buf, size_t size, struct ptd_image *img)
{
	struct seq ref = {0}, ref_nogaps = {0};
	static const size_t batches[] = {0, 1, 300};
	int small;

	struct ptd_pt_trace *bt = ptd_pt_trace_alloc(buf, size, img, NULL, NULL, 2);
	struct ptd_history *base = ptd_history_alloc(ptd_image_read, img);

	assert_int_equal(reference(buf, size, REF_GDB_GAPS, &ref), 0);
	/* (ptd_pt_decode takes the stream as a live recording's chunk) */
	assert_int_equal(reference(buf, size, REF_CHUNK_END, &ref_nogaps), 0);
	/* (a stream written here says something; the fuzzer's inputs may be
	 * as small as one gap, without calls to compare) */
	small = ref.n <= 10;
	assert_true(!small || fuzz_input);
	/* one serial decode: every other build has the same items */
	ptd_pt_trace_set_disabled_gaps(bt, 1);
	assert_int_equal(ptd_pt_trace_history(bt, base, 1, NULL), 0);

	{ /* the whole-buffer decode (ptdbg's own recordings: no gdb gaps) */
		struct ptd_history *h = ptd_history_alloc(ptd_image_read, img);
		struct seq got = {0};

		assert_int_equal(ptd_pt_decode_history(buf, size, img, h, NULL), 0);
		from_history(h, &got);
		assert_same_seq(&ref_nogaps, &got, "ptd_pt_decode");
		free(got.v);
		ptd_history_free(h);
	}
	for (size_t bi = 0; bi < sizeof(batches) / sizeof(batches[0]); bi++) {
		for (int lazy = 0; lazy < 3; lazy++) { /* stored, lazy, lazy but small */
			for (int threads = 1; threads <= 3; threads += 2) {
				struct ptd_pt_trace *t =
					ptd_pt_trace_alloc(buf, size, img, NULL, NULL, 2);
				struct ptd_history *h = ptd_history_alloc(ptd_image_read, img);
				struct seq got = {0};
				char what[96];

				snprintf(what, sizeof(what),
					 "trace history, runs of %zu bytes, %s, %d threads",
					 batches[bi],
					 lazy == 1 ? "lazy"
					 : lazy	   ? "lazy (stored)"
						   : "stored",
					 threads);
				ptd__pt_set_batch_bytes(batches[bi]);
				ptd_pt_trace_set_disabled_gaps(t, 1);
				if (lazy)
					ptd_pt_trace_set_lazy_history(t, 2);
				if (lazy == 1)
					ptd__pt_set_store_max(0);
				/* the call log, with and without func_of */
				ptd_history_set_func(h, threads > 1 ? func64 : NULL, NULL);
				if (ptd_pt_trace_history(t, h, threads, NULL) < 0)
					fail_msg("%s: %s", what, ptd_last_error(-1));
				ptd__pt_set_batch_bytes(0);
				ptd__pt_set_store_max(PTD_PT_STORE_MAX);
				from_history(h, &got);
				assert_same_seq(&ref, &got, what);
				/* (a lazy history does not merge a block into the
				 * one before across parts: the same numbers, more
				 * items) */
				if (lazy != 1)
					assert_same_items(base, h, what);
				if (lazy == 1 && !small)
					assert_same_calls(h, threads > 1 ? func64 : NULL,
							  ptd_history_nitems(h) / 2, what);
				free(got.v);
				ptd_history_free(h);
				ptd_pt_trace_free(t);
			}
		}
	}
	/* As `ptdbg --load` builds it: the newest @k segments first, each
	 * decoded alone (its state from the segment before it), then the
	 * history of everything before them put in front. */
	for (size_t k = 1; k <= 3; k++) {
		struct ptd_pt_trace *t = ptd_pt_trace_alloc(buf, size, img, NULL, NULL, 2);
		struct ptd_history *h = ptd_history_alloc(ptd_image_read, img);
		struct ptd_history *newer = ptd_history_alloc(ptd_image_read, img);
		struct seq got = {0};
		uint64_t nolder;
		size_t nseg;
		char what[64];

		ptd_pt_trace_set_disabled_gaps(t, 1);
		for (size_t j = k; j-- > 0;) {
			const struct ptd_history *sh = ptd_pt_trace_newest(t, j);

			if (!sh)
				break; /* fewer segments */
			ptd_history_flag_last(newer, ptd_pt_trace_newest_head(t, j));
			assert_int_equal(ptd_history_append_history(newer, sh), 0);
		}
		nseg = ptd_pt_trace_nsegs(t);
		if (nseg < k) {
			ptd_history_free(newer);
			ptd_history_free(h);
			ptd_pt_trace_free(t);
			break;
		}
		/* lazy however small, with its call log */
		ptd_history_set_func(h, func64, NULL);
		ptd_pt_trace_set_lazy_history(t, 2);
		ptd__pt_set_store_max(0);
		ptd__pt_set_batch_bytes(k == 1 ? 1 : 0);
		assert_int_equal(ptd_pt_trace_history_range(t, h, 0, nseg - k, 1, NULL), 0);
		ptd__pt_set_batch_bytes(0);
		ptd__pt_set_store_max(PTD_PT_STORE_MAX);
		ptd_history_flag_last(h, ptd_pt_trace_newest_head(t, k - 1));
		nolder = ptd_history_nitems(h);
		assert_int_equal(ptd_history_prepend(newer, h), 0);
		from_history(newer, &got);
		snprintf(what, sizeof(what), "newest %zu segments first", k);
		assert_same_seq(&ref, &got, what);
		/* (the newest segments come without a call log, as ptdbg
		 * --load appends them: the log covers the items put in
		 * front, however few; newest-first.bin's are 4 of 10) */
		if (nseg > k + 2)
			assert_same_calls(newer, func64, nolder, what);
		free(got.v);
		ptd_history_free(newer);
		ptd_history_free(h);
		ptd_pt_trace_free(t);
	}
	ptd_history_free(base);
	ptd_pt_trace_free(bt);
	free(ref.v);
	free(ref_nogaps.v);
}

static void check_all(const uint8_t *buf, size_t size)
{
	struct ptd_image *img = ptd_image_alloc(code_read, NULL);

	assert_non_null(img);
	check_img(buf, size, img);
	ptd_image_free(img);
}

/* Gaps in one continuous libipt decode of @buf (without gdb's gaps). */
static size_t ref_gaps(const uint8_t *buf, size_t n)
{
	struct seq ref = {0};
	size_t gaps = 0;

	assert_int_equal(reference(buf, n, 0, &ref), 0);
	for (size_t i = 0; i < ref.n; i++)
		gaps += (ref.v[i] & GAPBIT) != 0;
	free(ref.v);
	return gaps;
}

/* ---- streams written with libipt's encoder ---- */

struct enc {
	uint8_t buf[1 << 16];
	struct pt_encoder *e;
};

static void enc_init(struct enc *x)
{
	struct pt_config cfg;

	pt_config_init(&cfg);
	cfg.begin = x->buf;
	cfg.end = x->buf + sizeof(x->buf);
	x->e = pt_alloc_encoder(&cfg);
	assert_non_null(x->e);
}

static size_t enc_done(struct enc *x)
{
	uint64_t off = 0;

	pt_enc_get_offset(x->e, &off);
	pt_free_encoder(x->e);
	return (size_t)off;
}

static void pkt(struct enc *x, enum pt_packet_type type)
{
	struct pt_packet p;

	memset(&p, 0, sizeof(p));
	p.type = type;
	assert_true(pt_enc_next(x->e, &p) > 0);
}

static void ippkt(struct enc *x, enum pt_packet_type type, uint64_t off)
{
	struct pt_packet p;

	memset(&p, 0, sizeof(p));
	p.type = type;
	p.payload.ip.ipc = off == UINT64_MAX ? pt_ipc_suppressed : pt_ipc_sext_48;
	p.payload.ip.ip = off == UINT64_MAX ? 0 : PW_BASE + off;
	assert_true(pt_enc_next(x->e, &p) > 0);
}

static void mode_exec(struct enc *x, enum pt_exec_mode m)
{
	struct pt_packet p;

	memset(&p, 0, sizeof(p));
	p.type = ppt_mode;
	p.payload.mode.leaf = pt_mol_exec;
	p.payload.mode.bits.exec = pt_set_exec_mode(m);
	assert_true(pt_enc_next(x->e, &p) > 0);
}

static void mode64(struct enc *x)
{
	mode_exec(x, ptem_64bit);
}

/* ip packets with a full address (for code below PW_BASE) */
static void ippkt_abs(struct enc *x, enum pt_packet_type type, uint64_t ip)
{
	struct pt_packet p;

	memset(&p, 0, sizeof(p));
	p.type = type;
	p.payload.ip.ipc = pt_ipc_sext_48;
	p.payload.ip.ip = ip;
	assert_true(pt_enc_next(x->e, &p) > 0);
}

static void tnt(struct enc *x, int nbits, uint64_t bits)
{
	struct pt_packet p;

	memset(&p, 0, sizeof(p));
	p.type = ppt_tnt_8;
	p.payload.tnt.bit_size = (uint8_t)nbits;
	p.payload.tnt.payload = bits;
	assert_true(pt_enc_next(x->e, &p) > 0);
}

/* PSB+ with a FUP at @fup (UINT64_MAX: none, tracing disabled). */
static void psb(struct enc *x, uint64_t fup)
{
	pkt(x, ppt_psb);
	mode64(x);
	if (fup != UINT64_MAX)
		ippkt(x, ppt_fup, fup);
	pkt(x, ppt_psbend);
}

/*
 * Tracing re-enabled right after a PSB: each round runs main from 00 into
 * f and back, then the syscall at 0a stops tracing (TIP.PGD without ip);
 * a PSB+ whose FUP is where execution continues comes next, directly
 * followed by TIP.PGE there (0c: resumed, no gap) or elsewhere (00: a
 * "disabled" gap as gdb counts it).
 */
static void test_fup_then_pge(void **state)
{
	static struct enc x;
	size_t n;

	(void)state;
	enc_init(&x);
	psb(&x, UINT64_MAX);
	mode64(&x);
	ippkt(&x, ppt_tip_pge, 0x00);
	for (int round = 0; round < 40; round++) {
		/* 00 nop; 01 jnz not taken; 03 call f: 60 push; 61 jnz taken;
		 * 68 pop; 69 ret (compressed) -> 08 call *rax -> a0: a0 nop;
		 * a1 call g: 80 nop; 81 jz taken; 85 ret (compressed) -> a6
		 * syscall (0a is not reached: a6 is the syscall). */
		tnt(&x, 3, 0x3); /* 01 not taken, 61 taken, 69 ret */
		ippkt(&x, ppt_tip, 0xa0);
		tnt(&x, 2, 0x3); /* 81 taken, 85 ret */
		ippkt(&x, ppt_tip_pgd, UINT64_MAX);
		/* resume after the syscall (a8 is hlt: resume at 00 or 0c via
		 * a PSB+ that has the FUP of the resume ip) */
		psb(&x, round % 3 ? 0x00 : 0x0c);
		mode64(&x);
		ippkt(&x, ppt_tip_pge, round % 3 ? 0x00 : 0x0c);
		if (!(round % 3)) {
			/* 0c jz taken -> 00 */
			tnt(&x, 1, 0x1);
		}
	}
	tnt(&x, 3, 0x3);
	ippkt(&x, ppt_tip, 0xa0);
	tnt(&x, 2, 0x3);
	ippkt(&x, ppt_tip_pgd, UINT64_MAX);
	n = enc_done(&x);
	check_all(x.buf, n);
}

/*
 * Filtered tracing (only main, 00..3f, in range): every call out of range
 * stops tracing with TIP.PGD carrying the target, the return comes back
 * with TIP.PGE; PSBs fall both inside (with FUP) and outside the range
 * (without), so runs start in either state.
 */
static void test_filtered(void **state)
{
	static struct enc x;
	size_t n;

	(void)state;
	enc_init(&x);
	psb(&x, UINT64_MAX);
	mode64(&x);
	ippkt(&x, ppt_tip_pge, 0x00);
	for (int round = 0; round < 60; round++) {
		/* 00 nop; 01 jnz taken -> 30 mov; 33 jmp 03; 03 call f: out */
		tnt(&x, 1, 0x1);
		ippkt(&x, ppt_tip_pgd, 0x60);
		if (round % 2)
			psb(&x, UINT64_MAX); /* outside the range */
		mode64(&x);
		ippkt(&x, ppt_tip_pge, 0x08); /* back after the call */
		/* 08 call *rax -> out of range again */
		ippkt(&x, ppt_tip_pgd, 0xa0);
		mode64(&x);
		ippkt(&x, ppt_tip_pge, 0x0a); /* back */
		if (!(round % 2))
			psb(&x, 0x0a); /* inside, FUP where it continues */
		/* 0a syscall: tracing stops, comes back at 0c */
		ippkt(&x, ppt_tip_pgd, UINT64_MAX);
		if (round % 5 == 4)
			psb(&x, 0x0c); /* the FUP directly followed by PGE */
		mode64(&x);
		ippkt(&x, ppt_tip_pge, 0x0c);
		tnt(&x, 1, 0x1); /* 0c jz taken -> 00 */
	}
	ippkt(&x, ppt_fup, 0x00);
	ippkt(&x, ppt_tip_pgd, UINT64_MAX);
	n = enc_done(&x);
	check_all(x.buf, n);
}

/* Overflows with the smallest PSB period, from the random walker. */
/*
 * Random walks of the program in four PSB periods (seeds from @seed),
 * each checked every way; with the image's hole (ptref_hole_lo) set, at
 * least @min_gaps gaps in one continuous decode where PSBs come often
 * (it loses the rest of a segment at each error; with few PSBs, the rest
 * of the trace: one gap).
 */
static void walks(unsigned seed, size_t min_gaps)
{
	static const uint32_t periods[] = {1, 64, 200, 4096};

	for (size_t i = 0; i < sizeof(periods) / sizeof(periods[0]); i++) {
		struct ptd_ptsynth_config cfg = {.psb_period = periods[i], .ret_compression = 1};
		struct pw_opts o = {.seed = seed + (unsigned)i,
				    .steps = 3000,
				    .p_signal = 8,
				    .p_sigsys = 60,
				    .p_ovf = 3};
		struct pw_result exp = {0};
		struct ptd_ptsynth *s = ptd_ptsynth_alloc(&cfg);
		const uint8_t *buf;
		size_t n, g;

		assert_non_null(s);
		assert_int_equal(pw_walk(&o, s, &exp), 0);
		buf = ptd_ptsynth_data(s, &n);
		g = min_gaps ? ref_gaps(buf, n) : 0;
		if (g < (periods[i] <= 200 ? min_gaps : !!min_gaps))
			fail_msg("period %u: %zu gaps", periods[i], g);
		check_all(buf, n);
		free(exp.ips);
		ptd_ptsynth_free(s);
	}
}

static void test_walks(void **state)
{
	(void)state;
	walks(77, 0);
}

/*
 * The walks with code missing from the image, as a capture whose image
 * lacks a library: g (80-85) is not there, so every call into it is an
 * error (no memory), and libipt goes on at the next PSB.  The errors come
 * before the newest segment too, in every PSB period.
 */
static void test_walks_hole(void **state)
{
	(void)state;
	ptref_hole_lo = PW_BASE + 0x80;
	ptref_hole_hi = PW_BASE + 0x86;
	walks(177, 10);
}

/* (the hole goes also when test_walks_hole fails: the tests after it
 * share the reader) */
static int no_hole(void **state)
{
	(void)state;
	ptref_hole_lo = ptref_hole_hi = 0;
	return 0;
}

/*
 * An instruction whose bytes are in two mapping records: the program in
 * two files, split inside the 5-byte call at 03 (and, in a second image,
 * inside the 2-byte jnz at 01), with no read callback: every reader (the
 * decoder, the counting pass, the re-decode, the history's walk) sees the
 * same instruction.
 */
static void test_straddle(void **state)
{
	struct ptd_ptsynth_config cfg = {.psb_period = 64, .ret_compression = 1};
	struct pw_opts o = {.seed = 5, .steps = 3000, .p_signal = 5, .p_sigsys = 40};
	struct pw_result exp = {0};
	struct ptd_ptsynth *s = ptd_ptsynth_alloc(&cfg);
	static const unsigned splits[] = {0x05, 0x02};
	const uint8_t *buf;
	size_t n;

	(void)state;
	assert_non_null(s);
	assert_int_equal(pw_walk(&o, s, &exp), 0);
	buf = ptd_ptsynth_data(s, &n);
	for (size_t k = 0; k < 2; k++) {
		char a[] = "/tmp/ptd-straddle-a-XXXXXX", b[] = "/tmp/ptd-straddle-b-XXXXXX";
		int fa = mkstemp(a), fb = mkstemp(b);
		struct ptd_image *img = ptd_image_alloc(NULL, NULL);
		uint8_t x[16];
		unsigned cut = splits[k];

		assert_true(fa >= 0 && fb >= 0);
		assert_non_null(img);
		assert_int_equal(write(fa, pw_code, cut), (ssize_t)cut);
		assert_int_equal(write(fb, pw_code + cut, PW_SIZE - cut), (ssize_t)(PW_SIZE - cut));
		close(fa);
		close(fb);
		assert_int_equal(ptd_image_add_file(img, a, 0, cut, PW_BASE), 0);
		assert_int_equal(ptd_image_add_file(img, b, 0, PW_SIZE - cut, PW_BASE + cut), 0);
		/* the image reads across the seam */
		assert_int_equal(ptd_image_read(img, PW_BASE + cut - 1, x, 5), 5);
		assert_memory_equal(x, pw_code + cut - 1, 5);
		check_img(buf, n, img);
		ptd_image_free(img);
		unlink(a);
		unlink(b);
	}
	free(exp.ips);
	ptd_ptsynth_free(s);
}

/*
 * MODE.Exec: the walker's program run as 32-bit code (where 48 89 c3 at
 * 30 is "dec %eax; mov %eax,%ebx", not one instruction), alternating with
 * 64-bit rounds, and a 16-bit loop with a rel16 call at 2000; PSBs inside
 * each, so runs start in every mode.  ptdbg's items (and their lengths)
 * follow the mode libipt decoded each block in.
 */
static void test_modes(void **state)
{
	static struct enc x;
	size_t n;

	(void)state;
	enc_init(&x);
	psb(&x, UINT64_MAX);
	for (int round = 0; round < 30; round++) {
		enum pt_exec_mode m = round % 3 == 1 ? ptem_64bit : ptem_32bit;

		if (round % 3 == 2) {
			/* 16-bit: nop; inc; jnz taken x2, not taken; call 2009;
			 * dec; ret -> 2007 nop; hlt is not reached: tracing stops
			 * before it */
			mode_exec(&x, ptem_16bit);
			ippkt_abs(&x, ppt_tip_pge, LOW16);
			tnt(&x, 3, 0x6);
			if (round % 2) {
				/* at the ret, with the mode in the PSB+ */
				pkt(&x, ppt_psb);
				mode_exec(&x, ptem_16bit);
				ippkt_abs(&x, ppt_fup, LOW16 + 0xa);
				pkt(&x, ppt_psbend);
			}
			ippkt_abs(&x, ppt_tip, LOW16 + 7);
			ippkt_abs(&x, ppt_fup, LOW16 + 8);
			ippkt(&x, ppt_tip_pgd, UINT64_MAX);
			continue;
		}
		mode_exec(&x, m);
		ippkt(&x, ppt_tip_pge, 0x00);
		/* 00 nop; 01 jnz taken -> 30 (dec/mov or mov); 33 jmp 03; 03
		 * call f: 60 push; 61 jnz taken; 68 pop; 69 ret -> 08 (TNT);
		 * 08 call *rax -> a0 nop; a1 call g: 80 nop; 81 jz taken; 85
		 * ret -> not a6 but 0c (TIP); 0c jz taken -> 00 */
		tnt(&x, 3, 0x7);
		ippkt(&x, ppt_tip, 0xa0);
		if (round % 2) {
			pkt(&x, ppt_psb);
			mode_exec(&x, m);
			ippkt(&x, ppt_fup, 0xa0);
			pkt(&x, ppt_psbend);
		}
		tnt(&x, 1, 0x1);
		ippkt(&x, ppt_tip, 0x0c);
		tnt(&x, 1, 0x1);
		ippkt(&x, ppt_fup, 0x00);
		ippkt(&x, ppt_tip_pgd, UINT64_MAX);
	}
	n = enc_done(&x);
	{ /* the stream is what it means to be: every mode, no error */
		struct seq ref = {0};
		size_t m[3] = {0}, gaps = 0, dec_eax = 0;

		assert_int_equal(reference(x.buf, n, 0, &ref), 0);
		for (size_t i = 0; i < ref.n; i++) {
			if (ref.v[i] & GAPBIT)
				gaps++;
			else
				m[(ref.v[i] >> 60) & 3]++;
			if (ref.v[i] == ((PW_BASE + 0x31) | MODEBIT(PTD_MODE_32)))
				dec_eax++; /* the mov after "dec %eax" */
		}
		assert_int_equal(gaps, 0);
		assert_true(m[0] > 0 && m[1] > 0 && m[2] > 0);
		assert_int_equal(dec_eax, 10); /* one per 32-bit round */
		free(ref.v);
	}
	check_all(x.buf, n);
}

/*
 * A damaged trace whose PSB+ says the code is 16-bit (or 32-bit) while the
 * decoder runs 64-bit code with tracing on: one continuous libipt decode
 * finds that status update inconsistent (-pte_bad_status_update) and
 * resynchronises at a later PSB, where a decoder synchronised at that PSB
 * takes the PSB+'s mode and goes on.  A run of ptdbg's that starts at that
 * PSB must start in the mode the run before ended in.  Also a PSB+ with no
 * MODE.Exec at all, where the continuous decoder keeps its mode and one
 * synchronised there has none.
 */
static void test_mode_at_psb(void **state)
{
	static struct enc x;
	size_t n;

	(void)state;
	enc_init(&x);
	psb(&x, UINT64_MAX);
	for (int round = 0; round < 24; round++) {
		mode64(&x);
		ippkt(&x, ppt_tip_pge, 0x00);
		/* 00 nop; 01 jnz taken -> 30; 33 jmp 03; 03 call f: 60; 61
		 * jnz taken; 68; 69 ret -> 08 (TNT); 08 call *rax -> a0 */
		tnt(&x, 3, 0x7);
		ippkt(&x, ppt_tip, 0xa0);
		pkt(&x, ppt_psb);
		if (round % 4 == 0)
			mode_exec(&x, ptem_16bit); /* inconsistent */
		else if (round % 4 == 1)
			mode_exec(&x, ptem_32bit); /* inconsistent */
		else if (round % 4 == 2)
			mode64(&x);
		/* (round % 4 == 3: no MODE.Exec in the PSB+) */
		ippkt(&x, ppt_fup, 0xa0);
		pkt(&x, ppt_psbend);
		/* a0 nop; a1 call g: 80 nop; 81 jz taken; 85 ret -> 0c (TIP);
		 * 0c jz taken -> 00 */
		tnt(&x, 1, 0x1);
		ippkt(&x, ppt_tip, 0x0c);
		tnt(&x, 1, 0x1);
		ippkt(&x, ppt_fup, 0x00);
		ippkt(&x, ppt_tip_pgd, UINT64_MAX);
		if (round % 2)
			psb(&x, UINT64_MAX);
	}
	n = enc_done(&x);
	/* the continuous decoder does find the inconsistency */
	assert_true(ref_gaps(x.buf, n) >= 6);
	check_all(x.buf, n);
}

/*
 * A MODE.Exec between a disable and the PSB+ that follows it (it belongs
 * to the TIP.PGE after the PSB+, which the PSB came before), in well-formed
 * streams: libipt reads it ahead and, when its buffer ends right after it
 * (a decode that ends at that PSB), fails with the end of the trace and
 * loses what it was about to give: the asynchronous disable (the --load
 * layout then started the newest segment with tracing on, where its PSB+'s
 * 32-bit mode made a decode error; found by fuzz-ptcont,
 * ptcont-valid-newest-first.bin), a system call's disable, or the last
 * block with tracing on.  No PSB+ has a FUP, so decoding the newest
 * segment alone goes back segment by segment.
 */
/* Timing packets as perf's default intel_pt config has them: TSC with
 * its TMA (in a PSB+, at a TIP.PGE), MTC, CBR; @k picks which. */
static void timing(struct enc *x, int k)
{
	struct pt_packet p;

	memset(&p, 0, sizeof(p));
	switch (k % 3) {
	case 0:
		p.type = ppt_tsc;
		p.payload.tsc.tsc = 0x1234567800ull + (uint64_t)k;
		assert_true(pt_enc_next(x->e, &p) > 0);
		memset(&p, 0, sizeof(p));
		p.type = ppt_tma;
		p.payload.tma.ctc = (uint16_t)k;
		p.payload.tma.fc = 3;
		break;
	case 1:
		p.type = ppt_mtc;
		p.payload.mtc.ctc = (uint8_t)k;
		break;
	default:
		p.type = ppt_cbr;
		p.payload.cbr.ratio = 20;
		break;
	}
	assert_true(pt_enc_next(x->e, &p) > 0);
}

/* (@with_timing: timing packets between the MODE.Exec and the PSB, and
 * in the PSB+, as real captures have them: TMA too is a packet that gives
 * libipt nothing to report, found by fuzz-ptcont with PTCONT_TIMING) */
static void mode_before_psb(int with_timing)
{
	static struct enc x;
	size_t n;

	enc_init(&x);
	psb(&x, UINT64_MAX);
	for (int round = 0; round < 90; round++) {
		enum pt_exec_mode m = round % 3 == 2 ? ptem_32bit : ptem_64bit;

		mode_exec(&x, m);
		if (with_timing)
			timing(&x, round);
		pkt(&x, ppt_psb); /* tracing off, the MODE.Exec waits */
		if (with_timing)
			timing(&x, 0);
		mode_exec(&x, m);
		pkt(&x, ppt_psbend);
		ippkt(&x, ppt_tip_pge, 0x00);
		/* 00; 01 jnz taken; 30 (32-bit: 30 dec, 31 mov); 33 jmp; 03
		 * call f; 60; 61 jnz taken; 68; 69 ret; 08 call *rax -> a0;
		 * a1 call g; 80; 81 jz taken; 85 ret -> 0c; 0c jz taken */
		tnt(&x, 3, 0x7);
		ippkt(&x, ppt_tip, 0xa0);
		tnt(&x, 1, 0x1);
		ippkt(&x, ppt_tip, 0x0c);
		tnt(&x, 1, 0x1);
		if (round % 2) {
			/* an asynchronous disable at 00 */
			ippkt(&x, ppt_fup, 0x00);
			ippkt(&x, ppt_tip_pgd, UINT64_MAX);
		} else {
			/* 00; 01 jnz not taken; 03 call f: 60; 61 taken; 68;
			 * 69 ret; 08 call *rax -> 80; 81 taken; 85 ret -> 0a
			 * syscall: a system call's disable */
			tnt(&x, 3, 0x3);
			ippkt(&x, ppt_tip, 0x80);
			tnt(&x, 2, 0x3);
			ippkt(&x, ppt_tip_pgd, UINT64_MAX);
		}
	}
	/* the newest segment: 32-bit code; before it, a round whose last
	 * block is still going when the PSB comes (tracing on) */
	mode_exec(&x, ptem_32bit);
	if (with_timing)
		timing(&x, 0);
	pkt(&x, ppt_psb);
	mode_exec(&x, ptem_32bit);
	pkt(&x, ppt_psbend);
	ippkt(&x, ppt_tip_pge, 0x00);
	tnt(&x, 3, 0x7);
	ippkt(&x, ppt_tip, 0xa0);
	tnt(&x, 1, 0x1);
	ippkt(&x, ppt_tip, 0x0c);
	tnt(&x, 1, 0x1);
	ippkt(&x, ppt_fup, 0x00);
	ippkt(&x, ppt_tip_pgd, UINT64_MAX);
	n = enc_done(&x);
	/* well-formed: the continuous decoder finds no error */
	assert_int_equal(ref_gaps(x.buf, n), 0);
	check_all(x.buf, n);
}

static void test_mode_before_psb(void **state)
{
	(void)state;
	mode_before_psb(0);
	mode_before_psb(1);
}

/*
 * Overflows right before a PSB on a cpu whose errata make libipt read
 * ahead after an OVF (APL12: a FUP out of the filtered range after it;
 * SKD010: no FUP; APL11: a TIP.PGD right after it): one continuous decode
 * with those workarounds reads on past the PSB for whether and where
 * tracing resumed, so the PSB is no place to split it (the --load layout
 * took the FUP for a resume at 401068 where libipt drops it and gives the
 * overflow's gap; fuzz-ptcont PTCONT_CPU=6/0x5c).  Filtered rounds: main
 * calls f out of the traced range (TIP.PGD at 60), then the overflow and
 * a PSB+ without FUP, then tracing comes back at 08.  Checked every way
 * with an Apollo Lake's errata on both sides, and without errata (where
 * only an OVF with nothing after it is well-formed there).
 */
static void ovf_before_psb(const struct ptd_cpu *cpu)
{
	static struct enc x;
	struct ptd_image *img = ptd_image_alloc(code_read, NULL);
	size_t n;

	assert_non_null(img);
	memset(&ptref_errata, 0, sizeof(ptref_errata));
	if (cpu) {
		assert_int_equal(ptd_image_set_cpu(img, cpu), 0);
		assert_int_equal(ptd_cpu_errata(cpu, &ptref_errata), 0);
		assert_true(ptref_errata.apl12 && ptref_errata.apl11);
	}
	enc_init(&x);
	psb(&x, UINT64_MAX);
	for (int round = 0; round < 30; round++) {
		mode64(&x);
		ippkt(&x, ppt_tip_pge, 0x00);
		tnt(&x, 1, 0x1); /* 01 taken; 30; 33; 03 call f: out */
		ippkt(&x, ppt_tip_pgd, 0x60);
		pkt(&x, ppt_ovf);
		/* (out of the range, nothing after the OVF: any cpu; the
		 * others only with those errata) */
		if (cpu && round % 3 == 0)
			ippkt(&x, ppt_fup, 0x68); /* (APL12) */
		else if (cpu && round % 3 == 1)
			ippkt(&x, ppt_tip_pgd, UINT64_MAX); /* (APL11) */
		psb(&x, UINT64_MAX);
		mode64(&x);
		ippkt(&x, ppt_tip_pge, 0x08);
		ippkt(&x, ppt_tip_pgd, 0xa0); /* 08 call *rax: out */
		mode64(&x);
		ippkt(&x, ppt_tip_pge, 0x0c);
		tnt(&x, 1, 0x1); /* 0c jz taken */
		ippkt(&x, ppt_fup, 0x00);
		ippkt(&x, ppt_tip_pgd, UINT64_MAX);
	}
	n = enc_done(&x);
	check_img(x.buf, n, img);
	memset(&ptref_errata, 0, sizeof(ptref_errata));
	ptd_image_free(img);
}

static void test_ovf_errata_before_psb(void **state)
{
	const struct ptd_cpu apl = {.family = 6, .model = 0x5c};

	(void)state;
	ovf_before_psb(NULL);
	ovf_before_psb(&apl);
}

/*
 * A damaged trace whose compressed returns after a PSB pop calls from
 * before it: one continuous libipt decoder keeps its return stack across
 * the PSB and pops them (hardware clears its own stack at a PSB, and
 * ptsynth does too), a decoder started at the PSB finds its stack empty
 * (-pte_retstack_empty).  libipt's stack cannot be set: such a run is
 * decoded again as the continuation of the decode since the stack was
 * last empty (found by fuzz-ptcont, ptcont-retstack-across-psb.bin).
 */
static void test_retstack_across_psb(void **state)
{
	static struct enc x;
	size_t n;

	(void)state;
	enc_init(&x);
	psb(&x, UINT64_MAX);
	for (int round = 0; round < 12; round++) {
		mode64(&x);
		ippkt(&x, ppt_tip_pge, 0x00);
		/* 00; 01 jnz not taken; 03 call f (08 pushed): 60; 61 jnz
		 * not taken; 63 call f (68 pushed): 60; 61 taken; 68 pop */
		tnt(&x, 3, 0x1);
		/* the PSB+ at 69 (ret), tracing on */
		psb(&x, 0x69);
		/* 69 ret (compressed: 68); 68; 69 ret (compressed: 08); 08
		 * call *rax -> a0; a1 call g: 80; 81 jz taken; 85 ret
		 * (compressed: a6); a6 syscall */
		tnt(&x, 2, 0x3);
		ippkt(&x, ppt_tip, 0xa0);
		tnt(&x, 2, 0x3);
		ippkt(&x, ppt_tip_pgd, UINT64_MAX);
		if (round % 3 == 2)
			psb(&x, UINT64_MAX);
	}
	n = enc_done(&x);
	{ /* the continuous decoder pops them all: no error */
		struct seq ref = {0};
		size_t rets = 0;

		assert_int_equal(reference(x.buf, n, 0, &ref), 0);
		for (size_t i = 0; i < ref.n; i++) {
			assert_false(ref.v[i] & GAPBIT);
			rets += ref.v[i] == PW_BASE + 0xa6;
		}
		assert_int_equal(rets, 12);
		free(ref.v);
	}
	check_all(x.buf, n);
}

/*
 * Tracing enabled at main (00): 01 jnz taken -> 30; 33 jmp 03; 03 call f:
 * 60; 61 jnz taken; 68; 69 ret -> 08 (TNT); 08 call *rax -> a0 (a PSB+
 * there); a1 call g: 80; 81 jz taken; 85 ret -> a6 syscall: disabled.
 */
static void main_round(struct enc *x)
{
	ippkt(x, ppt_tip_pge, 0x00);
	tnt(x, 3, 0x7);
	ippkt(x, ppt_tip, 0xa0);
	psb(x, 0xa0);
	tnt(x, 2, 0x3);
	ippkt(x, ppt_tip_pgd, UINT64_MAX);
}

/*
 * A damaged trace where the continuous decoder finds its error only while
 * reading ahead into the next PSB+ (the linear code after a PSB+'s FUP
 * cannot reach the ip the next PSB+ gives): it synchronises again from
 * where it was, past that PSB, and skips the segment there, where a run
 * that ends at that PSB with the error (it cannot synchronise again
 * before its end) left the next run to start afresh (found by
 * fuzz-ptcont, ptcont-ops-error-past-psb.bin).
 */
static void test_error_past_psb(void **state)
{
	static struct enc x;
	size_t n;

	(void)state;
	enc_init(&x);
	for (int round = 0; round < 12; round++) {
		psb(&x, UINT64_MAX);
		if (round % 3 == 0) {
			psb(&x, 0x61);
			psb(&x, 0x0c);
			ippkt(&x, ppt_tip, 0x03);
			tnt(&x, 6, 0x0f);
			continue;
		}
		mode64(&x);
		main_round(&x);
	}
	n = enc_done(&x);
	/* the continuous decoder does fail there */
	assert_true(ref_gaps(x.buf, n) >= 3);
	check_all(x.buf, n);
}

/* Counts what a sink is given (ptd_pt_decode_run's). */
struct tally {
	uint64_t ninsn, ngaps;
	int last_gap; /* the last item is a gap */
};

static int tally_block(void *ctx, const struct ptd_block *b)
{
	struct tally *t = ctx;

	t->ninsn += b->ninsn;
	t->last_gap = 0;
	return 0;
}

static int tally_gap(void *ctx, enum ptd_gap_reason r, uint64_t off, const char *detail)
{
	struct tally *t = ctx;

	(void)r;
	(void)off;
	(void)detail;
	t->ngaps++;
	t->last_gap = 1;
	return 0;
}

/*
 * An error in the linear code after the last packet of a whole trace (a
 * loaded one, without a stop pc to cut its tail at): one continuous libipt
 * decode reports it as a gap, as any error; runs that end there took it
 * for the tail needing more trace and gave nothing.  Rounds of
 * well-formed code, then the trace ends:
 *  - with TIP.PGE into unmapped code;
 *  - with TIP.PGE into unmapped code and a FUP (as the input fuzz-ptcont
 *    found, tests/fuzz/seeds-ptcont/error-at-trace-end.bin);
 *  - with a TIP into the hlt padding after h, from where the linear code
 *    runs off the end of the program's code.
 * Each must end with a no-memory gap in every way a whole trace is
 * decoded (check_all: serial, parallel, lazy, the newest segments
 * alone), and without one where the stream is a live recording's chunk
 * (ptd_pt_decode, ptd_pt_decode_run: the next chunk goes on from there).
 */
static void test_error_at_trace_end(void **state)
{
	static struct enc x;
	struct ptd_image *img = ptd_image_alloc(code_read, NULL);

	(void)state;
	assert_non_null(img);
	for (int ending = 0; ending < 3; ending++) {
		struct ptd_pt_trace *t;
		struct ptd_history *h;
		struct ptd_pt_state in, out;
		struct ptd_pt_sink sink = {tally_block, tally_gap, NULL, NULL, NULL, NULL, NULL};
		struct tally run = {0};
		struct ptd_item it;
		struct seq ref = {0};
		size_t n;
		int err;

		enc_init(&x);
		for (int round = 0; round < 6; round++) {
			psb(&x, UINT64_MAX);
			mode64(&x);
			main_round(&x);
		}
		psb(&x, UINT64_MAX);
		mode64(&x);
		if (ending < 2) {
			ippkt(&x, ppt_tip_pge, 0x1000);
			if (ending == 1)
				ippkt(&x, ppt_fup, 0x1010);
		} else {
			ippkt(&x, ppt_tip_pge, 0x00);
			tnt(&x, 1, 0x0); /* 01 jnz not taken; 03 call f */
			tnt(&x, 1, 0x1); /* 61 jnz taken; 68; 69 ret (compressed) */
			ippkt(&x, ppt_tip, 0xb0);
		}
		n = enc_done(&x);
		/* the continuous decoder's last item is that gap */
		assert_int_equal(reference(x.buf, n, 0, &ref), 0);
		assert_true(ref.n > 10);
		assert_int_equal(ref.v[ref.n - 1], GAPBIT | PTD_GAP_NO_MEMORY);
		assert_int_equal(ref_gaps(x.buf, n), 1);
		free(ref.v);
		check_img(x.buf, n, img);

		/* a whole trace's history ends with it ... */
		t = ptd_pt_trace_alloc(x.buf, n, img, NULL, NULL, 2);
		h = ptd_history_alloc(ptd_image_read, img);
		assert_int_equal(ptd_pt_trace_history(t, h, 1, NULL), 0);
		assert_int_equal(ptd_history_item(h, ptd_history_nitems(h) - 1, &it), 1);
		assert_int_equal(it.kind, PTD_ITEM_GAP);
		assert_int_equal(it.reason, PTD_GAP_NO_MEMORY);
		ptd_history_free(h);
		/* ... not with a stop pc that cuts its tail (a bundle's) */
		ptd_pt_trace_set_tail(t, PW_BASE + 0xb0);
		h = ptd_history_alloc(ptd_image_read, img);
		assert_int_equal(ptd_pt_trace_history(t, h, 1, NULL), 0);
		assert_int_equal(ptd_history_item(h, ptd_history_nitems(h) - 1, &it), 1);
		assert_int_not_equal(it.kind, PTD_ITEM_GAP);
		ptd_history_free(h);
		ptd_pt_trace_free(t);

		/* a live recording's chunk does not (ptd_pt_decode: in
		 * check_img; the pt recorder's runs here) */
		sink.ctx = &run;
		ptd_pt_state_init(&in);
		err = ptd_pt_decode_run(x.buf, n, 0, n, 0, img, &sink, &in, &out, NULL);
		assert_int_equal(err, 0);
		assert_true(run.ninsn > 10);
		assert_int_equal(run.ngaps, 0);
		assert_false(run.last_gap);
	}
	ptd_image_free(img);
}

/*
 * The --load layout (the newest segment decoded alone, its state from the
 * segment before it) at a clean PSB after packets that end with tracing on
 * in the PSB+'s mode: the guess from the PSB+ was taken there, where the
 * continuous decoder may still be elsewhere.  Damaged endings after rounds
 * of well-formed code, each found by fuzz-ptcont:
 *  - a PSB+ without FUP, then two with a FUP that tracing being off makes
 *    the continuous decoder ignore, then a TIP: its error, found reading
 *    ahead, goes past the newest segment's PSB, which adds nothing
 *    (ptcont-ops-error-past-psb.bin, a decode-error gap too many);
 *  - an overflow, then a FUP inside an instruction, then a PSB+ whose FUP
 *    the linear code from there does not reach
 *    (ptcont-ovf-tail-newest-first.bin, two blocks too many).
 */
static void test_newest_after_damage(void **state)
{
	static struct enc x;

	(void)state;
	for (int ending = 0; ending < 2; ending++) {
		size_t n;

		enc_init(&x);
		for (int round = 0; round < 6; round++) {
			psb(&x, UINT64_MAX);
			main_round(&x);
		}
		if (ending == 0) {
			psb(&x, UINT64_MAX);
			psb(&x, 0x61);
			psb(&x, 0x0c);
			ippkt(&x, ppt_tip, 0x03);
			tnt(&x, 6, 0x0f);
		} else {
			psb(&x, UINT64_MAX);
			pkt(&x, ppt_ovf);
			ippkt(&x, ppt_fup, 0x31);
			psb(&x, 0x00);
		}
		n = enc_done(&x);
		ptref_lenient = 1;
		check_all(x.buf, n);
		ptref_lenient = 0;
	}
}

/*
 * A damaged trace with tracing on in 32-bit code at a PSB+ (B) whose
 * MODE.Exec says 64-bit: one continuous libipt decode fails there
 * (-pte_bad_status_update) when it takes B's events, having read ahead
 * only to the TIP after B's PSB+, and synchronises again at the next PSB
 * (C).  A decoder synchronised at B reads on through an asynchronous
 * branch and a FUP into C's PSB+ before it gives B's events: a run that
 * started at B from the state the runs before ended in, failing there as
 * the continuous decoder does, synchronised again past C and lost C's
 * segment (runs of one byte on several threads; found by fuzz-ptcont,
 * threads-1-byte-runs.bin).  Such a run is decoded as the continuation of
 * the runs before it.
 */
static void test_mode_error_resync(void **state)
{
	static struct enc x;
	size_t n;

	(void)state;
	enc_init(&x);
	psb(&x, UINT64_MAX);
	for (int round = 0; round < 8; round++) {
		mode64(&x);
		main_round(&x);
		/* A: tracing on in 32-bit code at 00 (nop), the PSB+ at 01
		 * (jnz) says so */
		mode_exec(&x, ptem_32bit);
		ippkt(&x, ppt_tip_pge, 0x00);
		pkt(&x, ppt_psb);
		mode_exec(&x, ptem_32bit);
		ippkt(&x, ppt_fup, 0x01);
		pkt(&x, ppt_psbend);
		/* B: 64-bit at 01 (inconsistent); an asynchronous branch 00
		 * -> 61, then a FUP at 03 with no TIP after it */
		psb(&x, 0x01);
		ippkt(&x, ppt_fup, 0x00);
		ippkt(&x, ppt_tip, 0x61);
		ippkt(&x, ppt_fup, 0x03);
		/* C: 00; 01 jnz taken -> 30; 33 jmp 03; 03 call f: 60; 61
		 * jnz taken; 68; 69 ret -> 08; 08 call *rax -> a0; a PSB+;
		 * a1 call g: 80; 81 jz taken; 85 ret -> a6 syscall */
		psb(&x, 0x00);
		tnt(&x, 3, 0x7);
		ippkt(&x, ppt_tip, 0xa0);
		psb(&x, 0xa0);
		tnt(&x, 2, 0x3);
		ippkt(&x, ppt_tip_pgd, UINT64_MAX);
		if (round % 2)
			psb(&x, UINT64_MAX);
	}
	n = enc_done(&x);
	/* the continuous decoder fails at each B */
	assert_true(ref_gaps(x.buf, n) >= 8);
	check_all(x.buf, n);
}

/*
 * A damaged trace with a PSB+ that the next PSB cuts (no PSBEND between
 * them), while tracing is on: one continuous libipt decode reads that next
 * PSB as a packet of the first one's header and fails there (a decode
 * error gap), then synchronises at it.  A run that ended at the next PSB
 * (runs of one byte on several threads) ran out of bytes in the header
 * instead and gave no gap (found by fuzz-ptcont,
 * threads-psb-cut-by-run-end.bin).  Such a PSB is no run boundary.
 */
static void test_psb_cut_by_psb(void **state)
{
	static struct enc x;
	size_t n;

	(void)state;
	enc_init(&x);
	psb(&x, UINT64_MAX);
	for (int round = 0; round < 8; round++) {
		mode64(&x);
		ippkt(&x, ppt_tip_pge, 0x00);
		tnt(&x, 3, 0x7);
		ippkt(&x, ppt_tip, 0xa0);
		/* a PSB+ cut short by the next PSB: nothing after its PSB
		 * (as the fuzzer's), or its MODE.Exec */
		pkt(&x, ppt_psb);
		if (round % 2)
			mode64(&x);
		psb(&x, 0xa0);
		tnt(&x, 2, 0x3);
		ippkt(&x, ppt_tip_pgd, UINT64_MAX);
		psb(&x, UINT64_MAX);
	}
	n = enc_done(&x);
	/* the continuous decoder fails at each */
	assert_true(ref_gaps(x.buf, n) >= 8);
	check_all(x.buf, n);
}

/*
 * A damaged trace with a FUP that no TIP follows before the next PSB+
 * (B), while tracing is on in 32-bit code: one continuous libipt decode,
 * looking for the TIP that FUP binds to, reads on through B's PSB+ and
 * the one after it (C, whose MODE.Exec says 64-bit) before it gives what
 * comes before B, and fails at C's (-pte_bad_status_update) without
 * decoding an instruction.  A run that ended at B ran out of bytes there
 * and decoded the linear code up to B's ip instead, and the run from B
 * went on from it (runs of one byte on several threads; found by
 * fuzz-ptcont, threads-readahead-past-psb.bin).  Such a run is decoded
 * on into the next as one.
 */
static void test_fup_waits_past_psb(void **state)
{
	static struct enc x;
	size_t n;

	(void)state;
	enc_init(&x);
	psb(&x, UINT64_MAX);
	for (int round = 0; round < 8; round++) {
		mode64(&x);
		main_round(&x);
		/* A: tracing on in 32-bit code at 00, a PSB+ there */
		mode_exec(&x, ptem_32bit);
		ippkt(&x, ppt_tip_pge, 0x00);
		pkt(&x, ppt_psb);
		mode_exec(&x, ptem_32bit);
		ippkt(&x, ppt_fup, 0x00);
		pkt(&x, ppt_psbend);
		/* an asynchronous branch at 03 whose TIP does not come */
		ippkt(&x, ppt_fup, 0x03);
		if (round % 2)
			pkt(&x, ppt_pad);
		/* B: no MODE.Exec, at 01 */
		pkt(&x, ppt_psb);
		ippkt(&x, ppt_fup, 0x01);
		pkt(&x, ppt_psbend);
		/* C: 64-bit at 00 */
		psb(&x, 0x00);
		ippkt(&x, ppt_tip, 0x61);
		tnt(&x, 1, 0x1);
		ippkt(&x, ppt_tip_pgd, UINT64_MAX);
		psb(&x, UINT64_MAX);
	}
	n = enc_done(&x);
	/* the continuous decoder fails at each C */
	assert_true(ref_gaps(x.buf, n) >= 8);
	ptref_lenient = 1;
	check_all(x.buf, n);
	ptref_lenient = 0;
}

/*
 * A damaged trace with a FUP (an asynchronous branch at 03 whose TIP does
 * not come) followed by a TNT before the next PSB+ (B, at 68), and after
 * B the TIP of the return at 69: libipt queues the FUP's branch across
 * the TNT and B's PSB+, so one continuous decode takes that TIP for the
 * branch and fails at the return (-pte_bad_query), where a run that
 * started at B took it for the return and went on at 08 (runs of one
 * byte on two threads; found by fuzz-ptcont, threads-fup-tnt-past-psb.bin).
 * A FUP still waits for its TIP until a TIP, TIP.PGE, TIP.PGD or OVF
 * (fup_waits), whatever TNT comes before: such a run is decoded on into
 * the next as one.
 */
static void test_fup_waits_past_tnt(void **state)
{
	static struct enc x;
	size_t n;

	(void)state;
	enc_init(&x);
	psb(&x, UINT64_MAX);
	for (int round = 0; round < 8; round++) {
		mode64(&x);
		main_round(&x);
		/* in f at 60, a PSB+ there */
		mode64(&x);
		ippkt(&x, ppt_tip_pge, 0x60);
		psb(&x, 0x60);
		ippkt(&x, ppt_fup, 0x03);
		tnt(&x, 1, 0x1); /* 61 jnz taken */
		if (round % 2)
			pkt(&x, ppt_pad);
		/* B at 68 */
		psb(&x, 0x68);
		/* 69 ret to 08, 08 call *rax out of the traced range */
		ippkt(&x, ppt_tip, 0x08);
		ippkt(&x, ppt_tip_pgd, 0x80);
		psb(&x, UINT64_MAX);
	}
	n = enc_done(&x);
	/* the continuous decoder fails at each return */
	assert_true(ref_gaps(x.buf, n) >= 8);
	ptref_lenient = 1;
	check_all(x.buf, n);
	ptref_lenient = 0;
}

/*
 * The --load layout (the newest segments decoded alone, the rest as a range
 * history in front) on a damaged trace whose newest PSB+ libipt cannot
 * read (a TNT in its header): one continuous decode, finishing the block
 * before that PSB (a system call at 0a after a TIP.PGE there, the PSB+
 * before it with that FUP while tracing was off), reads ahead
 * into it and fails, losing the block; a decode that ends at that PSB gave
 * it, so the range history that ended there did (found by fuzz-ptcont,
 * newest-first.bin).  No split of the continuous decode exists at such a
 * PSB: the range ends at the PSB before it, and the newest segment's
 * history starts there.  The same after the PSB+ of a round (a1 call g),
 * and with the unreadable PSB+ second or third newest.
 */
static void test_newest_unreadable_psb(void **state)
{
	static struct enc x;

	(void)state;
	for (int later = 0; later < 3; later++) {
		size_t n;

		enc_init(&x);
		psb(&x, UINT64_MAX);
		for (int round = 0; round < 6; round++) {
			mode64(&x);
			main_round(&x);
		}
		/* 08 call *rax out of the traced range (to a0), back at 0a
		 * (a PSB+ with that FUP first), the syscall there */
		mode64(&x);
		ippkt(&x, ppt_tip_pge, 0x08);
		ippkt(&x, ppt_tip_pgd, 0xa0);
		psb(&x, 0x0a);
		mode64(&x);
		ippkt(&x, ppt_tip_pge, 0x0a);
		ippkt(&x, ppt_tip_pgd, UINT64_MAX);
		/* a PSB+ libipt cannot read */
		pkt(&x, ppt_psb);
		mode64(&x);
		tnt(&x, 1, 0x1);
		pkt(&x, ppt_psbend);
		for (int round = 0; round < later; round++) {
			mode64(&x);
			main_round(&x);
		}
		n = enc_done(&x);
		assert_true(ref_gaps(x.buf, n) >= 1);
		ptref_lenient = 1;
		check_all(x.buf, n);
		ptref_lenient = 0;
	}
}

/*
 * The --load layout on a damaged trace with a PSB+ without a FUP while
 * tracing is on: after 69's compressed return to 08, the call there waits
 * for its TIP; one continuous decode reads on through that PSB+ (libipt
 * disables nothing there) to the TIP.PGE after it, fails (tracing is on)
 * and loses the block at 08.  A range history that ended at that PSB gave
 * the block as the linear code after its last packet (found by
 * fuzz-ptcont, newest-psb-without-fup.bin).  No split of the continuous
 * decode exists at such a PSB (split_ok, trace_on_at).  Also with the PSB
 * second or third newest.
 */
static void test_newest_psb_without_fup(void **state)
{
	static struct enc x;

	(void)state;
	for (int later = 0; later < 3; later++) {
		size_t n;

		enc_init(&x);
		psb(&x, UINT64_MAX);
		for (int round = 0; round < 6; round++) {
			mode64(&x);
			main_round(&x);
		}
		/* 00; 01 not taken; 03 call f; 60; 61 taken; 68; 69 ret
		 * (compressed) to 08 */
		mode64(&x);
		ippkt(&x, ppt_tip_pge, 0x00);
		tnt(&x, 3, 0x3);
		/* a PSB+ without a FUP, then tracing "enabled" at 0a */
		psb(&x, UINT64_MAX);
		mode64(&x);
		ippkt(&x, ppt_tip_pge, 0x0a);
		ippkt(&x, ppt_tip_pgd, UINT64_MAX);
		psb(&x, UINT64_MAX);
		for (int round = 0; round < later; round++) {
			mode64(&x);
			main_round(&x);
		}
		n = enc_done(&x);
		assert_true(ref_gaps(x.buf, n) >= 1);
		ptref_lenient = 1;
		check_all(x.buf, n);
		ptref_lenient = 0;
	}
}

/*
 * The --load layout on a damaged trace whose PSB+ (A) gives another ip
 * (09) than where the continuous decoder is (08, after 69's return there):
 * the call at 08 finds a TIP.PGD where it waits for its TIP, and the
 * continuous decoder fails (-pte_bad_query), synchronises again at the
 * next PSB+ (B, followed by TIP.PGE: not clean) and fails there too.  The
 * newest segment at B or after it was decoded from A with the state A's
 * PSB+ suggests, where nothing decoded said whether the continuous
 * decoder could be there: from 09 on (found by fuzz-ptcont,
 * newest-psb-ip-off.bin).  decode_warm now decodes the segment before
 * such a PSB first (carry_for, where that one's PSB is clean too) and
 * starts further back where it does not end in a state a decoder
 * synchronised at A can take.  Also with B's segment second or third
 * newest.
 */
static void test_newest_psb_ip_off(void **state)
{
	static struct enc x;

	(void)state;
	for (int later = 0; later < 3; later++) {
		size_t n;

		enc_init(&x);
		psb(&x, UINT64_MAX);
		for (int round = 0; round < 6; round++) {
			mode64(&x);
			main_round(&x);
		}
		/* 03 call f; 60; 61 taken; 68; 69 ret to 08 */
		mode64(&x);
		ippkt(&x, ppt_tip_pge, 0x03);
		tnt(&x, 1, 0x1);
		ippkt(&x, ppt_tip, 0x08);
		/* A at 09; 08 call *rax out of the traced range */
		psb(&x, 0x09);
		ippkt(&x, ppt_tip_pgd, 0x80);
		/* B at 0a, TIP.PGE there */
		psb(&x, 0x0a);
		mode64(&x);
		ippkt(&x, ppt_tip_pge, 0x0a);
		ippkt(&x, ppt_tip_pgd, UINT64_MAX);
		psb(&x, UINT64_MAX);
		for (int round = 0; round < later; round++) {
			mode64(&x);
			main_round(&x);
		}
		n = enc_done(&x);
		assert_true(ref_gaps(x.buf, n) >= 2);
		ptref_lenient = 1;
		check_all(x.buf, n);
		ptref_lenient = 0;
	}
}

/*
 * A damaged stream (mutated by fuzz-ptcont) whose runs of one byte, decoded
 * on several threads, made a batch the continuation of the runs before it
 * (their last one ended in an error it could not synchronise from) where
 * decoding those runs again as one gave fewer items than they had: the
 * whole history failed with "the runs before gave more than decoding them
 * again".  The batch is now decoded from its own PSB: the history is there,
 * and since runs end only where the continuous decode splits (run_end),
 * its items are one continuous decode's, lazy and stored.
 */
static void test_damaged_continuation(void **state)
{
	const char *path = "tests/unit/data/ptcont-damaged-continuation.pt";
	struct ptd_image *img = ptd_image_alloc(code_read, NULL);
	static uint8_t buf[1 << 16];
	size_t n;
	FILE *f;

	(void)state;
	assert_non_null(img);
	f = fopen(path, "rb");
	if (!f)
		fail_msg("cannot open %s (run from the top of the tree)", path);
	n = fread(buf, 1, sizeof(buf), f);
	fclose(f);
	assert_true(n > 1000);
	ptref_lenient = 1;
	for (int lazy = 0; lazy < 2; lazy++)
		for (int threads = 2; threads <= 3; threads++) {
			struct ptd_pt_trace *t = ptd_pt_trace_alloc(buf, n, img, NULL, NULL, 2);
			struct ptd_history *h = ptd_history_alloc(ptd_image_read, img);
			struct seq ref = {0}, got = {0};

			ptd__pt_set_batch_bytes(1);
			ptd_pt_trace_set_disabled_gaps(t, 1);
			if (lazy)
				ptd_pt_trace_set_lazy_history(t, 2);
			if (ptd_pt_trace_history(t, h, threads, NULL) < 0)
				fail_msg("%d threads%s: %s", threads, lazy ? ", lazy" : "",
					 ptd_last_error(-1));
			ptd__pt_set_batch_bytes(0);
			assert_int_equal(reference(buf, n, REF_GDB_GAPS, &ref), 0);
			from_history(h, &got);
			/* (one continuous decode's items: a run ended at the
			 * PSB at 0x1fc4, where the packets before it run into
			 * it, and gave 401030 where the continuous decoder
			 * reads on into it and fails; runs end only where the
			 * continuous decode splits, run_end) */
			assert_same_seq(&ref, &got, threads == 2 ? "2 threads" : "3 threads");
			free(ref.v);
			free(got.v);
			ptd_history_free(h);
			ptd_pt_trace_free(t);
		}
	ptref_lenient = 0;
	ptd_image_free(img);
}

/*
 * The same patterns written by ptdbg's synthesizer, which a test can check
 * against an independent expectation too: main (00..3f) is the traced
 * range, f and h are not (a TIP.PGD/TIP.PGE pair at every call out of
 * range, each re-entry a "disabled" gap as gdb counts it), a syscall that
 * resumes where it stopped (no gap), a signal (a gap), an overflow (a
 * gap); in 64-bit and 32-bit code; PSB+ at re-entry with the FUP directly
 * followed by TIP.PGE or without FUP; PSB periods down to one byte.
 */
static void drive(struct ptd_ptsynth *s, int mode32, struct seq *exp)
{
	const uint64_t B = PW_BASE;
	const uint64_t m = MODEBIT(mode32 ? PTD_MODE_32 : PTD_MODE_64);

	assert_int_equal(ptd_ptsynth_begin(s, B), 0);
	for (int round = 0; round < 40; round++) {
		seq_push(exp, (B + 0x00) | m);
		seq_push(exp, (B + 0x01) | m);
		assert_int_equal(ptd_ptsynth_cond(s, 1, B + 0x30), 0);
		seq_push(exp, (B + 0x30) | m);
		if (mode32)
			seq_push(exp, (B + 0x31) | m); /* 48: dec %eax */
		if (round % 5 == 4) {		       /* a signal before 33: the handler is 00 */
			assert_int_equal(ptd_ptsynth_async(s, B + 0x33, B + 0x00), 0);
			seq_push(exp, GAPBIT | PTD_GAP_DISABLED);
			continue;
		}
		seq_push(exp, (B + 0x33) | m);
		seq_push(exp, (B + 0x03) | m);
		assert_int_equal(ptd_ptsynth_leave(s, B + 0x60), 0); /* call f: out */
		assert_int_equal(ptd_ptsynth_enter(s, B + 0x08), 0);
		seq_push(exp, GAPBIT | PTD_GAP_DISABLED);
		seq_push(exp, (B + 0x08) | m);
		assert_int_equal(ptd_ptsynth_leave(s, B + 0xa0), 0); /* call *rax: out */
		/* back right after the indirect call: libipt (and gdb) take
		 * that as resumed where it stopped, no gap */
		assert_int_equal(ptd_ptsynth_enter(s, B + 0x0a), 0);
		seq_push(exp, (B + 0x0a) | m);
		assert_int_equal(ptd_ptsynth_syscall(s, B + 0x0c), 0); /* resumes: no gap */
		seq_push(exp, (B + 0x0c) | m);
		assert_int_equal(ptd_ptsynth_cond(s, 1, B + 0x00), 0);
		if (round % 7 == 6) {
			assert_int_equal(ptd_ptsynth_overflow(s, B + 0x00), 0);
			seq_push(exp, GAPBIT | PTD_GAP_OVERFLOW);
		}
	}
	assert_int_equal(ptd_ptsynth_end(s, B + 0x00), 0);
}

static void test_synth_patterns(void **state)
{
	static const uint32_t periods[] = {1, 40, 300, 100000};

	(void)state;
	for (int mode32 = 0; mode32 < 2; mode32++)
		for (int fup_pge = 0; fup_pge < 2; fup_pge++)
			for (size_t pi = 0; pi < sizeof(periods) / sizeof(periods[0]); pi++) {
				struct ptd_ptsynth_config cfg = {.psb_period = periods[pi],
								 .ret_compression = 1,
								 .exec_mode = (uint8_t)mode32,
								 .fup_pge = fup_pge};
				struct ptd_ptsynth *s = ptd_ptsynth_alloc(&cfg);
				struct seq exp = {0}, ref = {0};
				const uint8_t *buf;
				size_t n;
				char what[64];

				assert_non_null(s);
				drive(s, mode32, &exp);
				buf = ptd_ptsynth_data(s, &n);
				assert_int_equal(reference(buf, n, REF_GDB_GAPS, &ref), 0);
				snprintf(what, sizeof(what),
					 "synthesized, %s, fup_pge %d, period %u",
					 mode32 ? "32-bit" : "64-bit", fup_pge, periods[pi]);
				/* With the FUP in a PSB+ right after a TIP.PGD that
				 * carried an ip, libipt goes on decoding at that ip
				 * (and runs into an error): its reading is the rule,
				 * which check_all holds ptdbg to; the expectation
				 * only holds without such PSBs. */
				if (!fup_pge || periods[pi] > 1000)
					assert_same_seq(&exp, &ref, what);
				check_all(buf, n);
				free(exp.v);
				free(ref.v);
				ptd_ptsynth_free(s);
			}
}

/*
 * The inputs tests/fuzz/fuzz-ptcont.c found (tests/fuzz/seeds-ptcont, the
 * PT streams among them: starting with a PSB's first byte), each one a
 * difference fixed in src/decode/pt.c; see tests/fuzz/open/README.
 */
static void test_fuzz_inputs(void **state)
{
	const char *dir = "tests/fuzz/seeds-ptcont";
	DIR *d = opendir(dir);
	struct dirent *de;
	int nfiles = 0;

	(void)state;
	if (!d)
		fail_msg("cannot open %s (run from the top of the tree)", dir);
	fuzz_input = 1;
	ptref_lenient = 1;
	while ((de = readdir(d))) {
		char path[512];
		uint8_t *buf;
		long n;
		FILE *f;

		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		f = fopen(path, "rb");
		assert_non_null(f);
		assert_int_equal(fseek(f, 0, SEEK_END), 0);
		n = ftell(f);
		assert_true(n > 0);
		rewind(f);
		buf = malloc((size_t)n);
		assert_non_null(buf);
		assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
		fclose(f);
		if (buf[0] == 0x02) {
			check_all(buf, (size_t)n);
			nfiles++;
		}
		free(buf);
	}
	closedir(d);
	fuzz_input = 0;
	ptref_lenient = 0;
	assert_true(nfiles >= 5);
}

static int setup(void **state)
{
	(void)state;
	pw_init_code();
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fup_then_pge), cmocka_unit_test(test_filtered),
		cmocka_unit_test(test_walks), cmocka_unit_test_teardown(test_walks_hole, no_hole),	     cmocka_unit_test(test_straddle),
		cmocka_unit_test(test_modes),	     cmocka_unit_test(test_synth_patterns),
		cmocka_unit_test(test_mode_at_psb),  cmocka_unit_test(test_mode_before_psb),
		cmocka_unit_test(test_retstack_across_psb), cmocka_unit_test(test_error_past_psb),
		cmocka_unit_test(test_newest_after_damage),
		cmocka_unit_test(test_error_at_trace_end),
		cmocka_unit_test(test_damaged_continuation),
		cmocka_unit_test(test_mode_error_resync),
		cmocka_unit_test(test_ovf_errata_before_psb),
		cmocka_unit_test(test_psb_cut_by_psb),
		cmocka_unit_test(test_fup_waits_past_psb),
		cmocka_unit_test(test_fup_waits_past_tnt),
		cmocka_unit_test(test_newest_unreadable_psb),
		cmocka_unit_test(test_newest_psb_without_fup),
		cmocka_unit_test(test_newest_psb_ip_off),
		cmocka_unit_test(test_fuzz_inputs),
	};

	return cmocka_run_group_tests(tests, setup, NULL);
}
