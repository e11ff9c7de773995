/*
 * The decode fast path (src/decode/fastpt.c) gives exactly the items
 * libipt's block decoder gives: every stream here is decoded every way
 * ptdbg builds a history (the whole-buffer decode, the trace history
 * serial, lazy with tiny parts, parallel with runs of one segment, the
 * newest segment alone) once with the fast path and once with it forced
 * off (the plain libipt path, PTDBG_DECODE=libipt), and the two histories
 * are compared item by item: blocks (ip, end ip, instruction count,
 * class, flags), gaps (reason, offset or code, message) and events.
 *
 * Streams: the random walker's program (tests/unit/ptwalk.h) written by
 * ptsynth with PSB periods down to one byte, return compression on and
 * off, TNT-64, TSC packets, signals, syscalls and overflows, 32-bit code,
 * filtered tracing (a TIP.PGD/TIP.PGE pair at every call out of range,
 * PSB+ with a FUP then TIP.PGE), snapshots that end with tracing on,
 * empty segments, an instruction split across two mapping records, and
 * code that changes between two decodes with the same cache.  A test also
 * checks the fast path did the work (it is not all left to libipt).
 */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "decode/fastpt.h"
#include "decode/pt.h"
#include "history/history_int.h"
#include "util/error.h"
#include "ptwalk.h"

static void assert_same_history(const struct ptd_history *a, const struct ptd_history *b,
				const char *what)
{
	uint64_t n = ptd_history_nitems(a), i;

	if (n > ptd_history_nitems(b))
		n = ptd_history_nitems(b);
	for (i = 0; i < n; i++) {
		struct ptd_item x, y;

		assert_int_equal(ptd_history_item(a, i, &x), 1);
		assert_int_equal(ptd_history_item(b, i, &y), 1);
		if (x.kind != y.kind || x.block.ip != y.block.ip || x.block.ninsn != y.block.ninsn)
			break;
	}
	if (ptd_history_nitems(a) != ptd_history_nitems(b))
		print_message("(first difference at item %llu)\n", (unsigned long long)i);
	n = ptd_history_nitems(a);
	if (n != ptd_history_nitems(b))
		fail_msg("%s: %llu items with the fast path, %llu with libipt", what,
			 (unsigned long long)n, (unsigned long long)ptd_history_nitems(b));
	assert_int_equal(ptd_history_count(a), ptd_history_count(b));
	for (i = 0; i < n; i++) {
		struct ptd_item x, y;

		assert_int_equal(ptd_history_item(a, i, &x), 1);
		assert_int_equal(ptd_history_item(b, i, &y), 1);
		/* (an overflow's trace offset is where libipt's reader was
		 * when it told, which differs with where its decoder started
		 * also on the plain path: not compared) */
		int ovf = x.kind == PTD_ITEM_GAP && x.reason == PTD_GAP_OVERFLOW;

		if (x.kind != y.kind || x.reason != y.reason || x.number != y.number ||
		    (!ovf && x.arg != y.arg) || x.block.ip != y.block.ip ||
		    (x.kind == PTD_ITEM_BLOCK &&
		     (x.block.end_ip != y.block.end_ip || x.block.ninsn != y.block.ninsn ||
		      x.block.iclass != y.block.iclass || x.block.flags != y.block.flags)))
			fail_msg("%s: item %llu: fast kind %u reason %u number %llu arg %llx ip 0x%llx end 0x%llx n %u class %u "
				 "flags 0x%x; libipt kind %u reason %u number %llu arg %llx ip 0x%llx end 0x%llx n %u class %u flags 0x%x",
				 what, (unsigned long long)i, x.kind, x.reason,
				 (unsigned long long)x.number, (unsigned long long)x.arg,
				 (unsigned long long)x.block.ip, (unsigned long long)x.block.end_ip,
				 x.block.ninsn, x.block.iclass, x.block.flags, y.kind, y.reason,
				 (unsigned long long)y.number, (unsigned long long)y.arg,
				 (unsigned long long)y.block.ip, (unsigned long long)y.block.end_ip,
				 y.block.ninsn, y.block.iclass, y.block.flags);
		if (x.kind == PTD_ITEM_GAP && !ovf) {
			const char *dx = x.detail ? ptd_history_detail(a, x.detail) : NULL;
			const char *dy = y.detail ? ptd_history_detail(b, y.detail) : NULL;

			if ((dx == NULL) != (dy == NULL) || (dx && strcmp(dx, dy)))
				fail_msg("%s: gap %llu: '%s' vs '%s'", what, (unsigned long long)i,
					 dx ? dx : "(none)", dy ? dy : "(none)");
		}
	}
}

/* One way of building a history of @buf (with @img), fast path @fast. */
enum how { H_DECODE, H_SERIAL, H_LAZY, H_PARALLEL, H_NEWEST, H_MAX };
static const char *const how_name[] = {"whole-buffer decode", "trace history",
				       "lazy history, tiny parts",
				       "parallel history, runs of one segment",
				       "newest segment alone"};

static struct ptd_history *build(const uint8_t *buf, size_t n, struct ptd_image *img,
				 enum how how, int fast, int dgaps)
{
	struct ptd_history *h = ptd_history_alloc(ptd_image_read, img);
	struct ptd_pt_trace *t = NULL;
	int err = 0;

	assert_non_null(h);
	ptd__fastpt_force(fast);
	switch (how) {
	case H_DECODE:
		err = ptd_pt_decode_history(buf, n, img, h, NULL);
		break;
	case H_SERIAL:
	case H_LAZY:
	case H_PARALLEL:
		t = ptd_pt_trace_alloc(buf, n, img, NULL, NULL, 2);
		assert_non_null(t);
		ptd_pt_trace_set_disabled_gaps(t, dgaps);
		if (how == H_LAZY) {
			ptd__pt_set_store_max(0);
			ptd__pt_set_batch_bytes(1);
			ptd_pt_trace_set_lazy_history(t, 2);
		} else if (how == H_PARALLEL) {
			ptd__pt_set_batch_bytes(1);
		}
		err = ptd_pt_trace_history(t, h, how == H_PARALLEL ? 3 : 1, NULL);
		if (!err && how == H_LAZY) {
			/* every part decoded again, through the fast path too */
			struct ptd_hcursor c;
			uint64_t k, cnt = ptd_history_count(h);

			for (k = 1; k <= cnt && !err; k += 97)
				err = ptd_hcursor_goto(&c, h, k);
		}
		ptd__pt_set_store_max(PTD_PT_STORE_MAX);
		ptd__pt_set_batch_bytes(0);
		break;
	case H_NEWEST: {
		const struct ptd_history *sh;

		t = ptd_pt_trace_alloc(buf, n, img, NULL, NULL, 2);
		assert_non_null(t);
		ptd_pt_trace_set_disabled_gaps(t, dgaps);
		sh = ptd_pt_trace_newest(t, 0);
		if (sh)
			err = ptd_history_append_history(h, sh);
		break;
	}
	default:
		break;
	}
	ptd__fastpt_force(-1);
	if (err < 0)
		fail_msg("%s (fast %d): %s", how_name[how], fast, ptd_last_error(-1));
	if (how == H_LAZY) {
		/* A lazy history reads its parts from the trace: compare a copy. */
		struct ptd_history *copy = ptd_history_alloc(ptd_image_read, img);

		assert_non_null(copy);
		assert_int_equal(ptd_history_append_history(copy, h), 0);
		ptd_history_free(h);
		h = copy;
	}
	ptd_pt_trace_free(t);
	return h;
}

/* The walker's program as functions (L1 and L2 too, so that jumps
 * between them start segments). */
static uint64_t pw_func_of(void *ctx, uint64_t addr)
{
	static const uint8_t entry[] = {0x00, 0x30, 0x40, 0x60, 0x80, 0xa0};
	uint64_t f = 0;

	(void)ctx;
	if (addr < PW_BASE || addr >= PW_BASE + PW_SIZE)
		return 0;
	for (size_t i = 0; i < sizeof(entry); i++)
		if (addr - PW_BASE >= entry[i])
			f = PW_BASE + entry[i];
	return f;
}

/*
 * The call log a lazy history's counting decode writes, with the fast
 * path's verdicts on its edges (ptd_fastpt_set_log), gives the segments
 * that walking the same history's items gives, and as many as the plain
 * libipt path's; and the counting decode's sums (instructions, the call
 * depth's change and lowest point) are the plain libipt path's.
 */
static void check_log(const uint8_t *buf, size_t n, struct ptd_image *img, int dgaps,
		      const char *what)
{
	uint64_t count[2];
	struct ptd_pt_stats st[2];

	for (int fast = 0; fast < 2; fast++) {
		struct ptd_pt_trace *t = ptd_pt_trace_alloc(buf, n, img, NULL, NULL, 2);
		struct ptd_history *h = ptd_history_alloc(ptd_image_read, img);
		struct ptd_calls *log, *items;
		uint64_t k;

		assert_non_null(t);
		assert_non_null(h);
		ptd_pt_trace_set_disabled_gaps(t, dgaps);
		ptd_pt_trace_set_lazy_history(t, 2);
		ptd__pt_set_store_max(0);
		ptd__pt_set_batch_bytes(1);
		ptd_history_set_func(h, pw_func_of, NULL);
		ptd__fastpt_force(fast);
		if (ptd_pt_trace_history(t, h, 1, &st[fast]) < 0)
			fail_msg("%s, call log: %s", what, ptd_last_error(-1));
		ptd__fastpt_force(-1);
		ptd__pt_set_store_max(PTD_PT_STORE_MAX);
		ptd__pt_set_batch_bytes(0);
		log = ptd__calls_build_chunked(h, pw_func_of, NULL, 1, 0);
		items = ptd__calls_build_chunked(h, pw_func_of, NULL, 0, 0);
		assert_non_null(log);
		assert_non_null(items);
		count[fast] = ptd_calls_count(items);
		if (ptd_calls_count(log) != count[fast])
			fail_msg("%s, call log (fast %d): %llu segments from the log, %llu from the items",
				 what, fast, (unsigned long long)ptd_calls_count(log),
				 (unsigned long long)count[fast]);
		for (k = 1; k <= count[fast]; k++) {
			const struct ptd_callseg *x = ptd_calls_get(log, k), *y = ptd_calls_get(items, k);

			assert_non_null(x);
			assert_non_null(y);
			if (x->first != y->first || x->last != y->last || x->ip != y->ip ||
			    x->level != y->level || x->is_gap != y->is_gap || x->up != y->up ||
			    x->prev_same != y->prev_same || x->next_same != y->next_same ||
			    x->instance != y->instance || x->how != y->how)
				fail_msg("%s, call log (fast %d): segment %llu differs", what, fast,
					 (unsigned long long)k);
		}
		ptd_calls_free(log);
		ptd_calls_free(items);
		ptd_history_free(h);
		ptd_pt_trace_free(t);
	}
	assert_int_equal(count[0], count[1]);
	if (st[0].ninsn != st[1].ninsn || st[0].depth_delta != st[1].depth_delta ||
	    st[0].depth_min != st[1].depth_min)
		fail_msg("%s, counting: %llu instructions, depth %+d (lowest %d) without the fast "
			 "path, %llu, %+d (%d) with it", what, (unsigned long long)st[0].ninsn,
			 st[0].depth_delta, st[0].depth_min, (unsigned long long)st[1].ninsn,
			 st[1].depth_delta, st[1].depth_min);
}

/* Fast path (with and without its TNT path cache) against libipt, every
 * way, both gap rules; and the call log. */
static void check_img(const uint8_t *buf, size_t n, struct ptd_image *img, const char *what)
{
	for (int paths = 0; paths < 2; paths++) {
		ptd__fastpt_paths(paths);
		check_log(buf, n, img, paths, what); /* (gdb's gaps or not) */
		ptd__fastpt_paths(-1);
	}

	for (int paths = 0; paths < 2; paths++)
	for (int how = 0; how < H_MAX; how++) {
		for (int dgaps = 0; dgaps < 2; dgaps++) {
			struct ptd_history *a, *b;
			char msg[160];

			if (how == H_DECODE && dgaps)
				continue; /* (the whole-buffer decode has no gdb gaps) */
			ptd__fastpt_paths(paths);
			a = build(buf, n, img, (enum how)how, 1, dgaps);
			ptd__fastpt_paths(-1);
			b = build(buf, n, img, (enum how)how, 0, dgaps);
			snprintf(msg, sizeof(msg), "%s, %s%s%s", what, how_name[how],
				 dgaps ? ", gdb's gaps" : "", paths ? ", TNT paths" : "");
			assert_same_history(a, b, msg);
			ptd_history_free(a);
			ptd_history_free(b);
		}
	}
}

static struct ptd_image *pw_image(void)
{
	struct ptd_image *img = ptd_image_alloc(pw_read, NULL);

	assert_non_null(img);
	return img;
}

static void check(const uint8_t *buf, size_t n, const char *what)
{
	struct ptd_image *img = pw_image();

	check_img(buf, n, img, what);
	ptd_image_free(img);
}

/* A walk with @cfg and @o, checked. */
static void walk_check(const struct ptd_ptsynth_config *cfg, const struct pw_opts *o,
		       const char *what)
{
	struct ptd_ptsynth *s = ptd_ptsynth_alloc(cfg);
	struct pw_result exp = {0};
	const uint8_t *buf;
	size_t n;

	assert_non_null(s);
	assert_int_equal(pw_walk(o, s, &exp), 0);
	buf = ptd_ptsynth_data(s, &n);
	check(buf, n, what);
	free(exp.ips);
	ptd_ptsynth_free(s);
}

/*
 * Plain branch tracing (no syscalls: the walker's main has one per loop):
 * f's recursion (60 push; 61 jnz 68; 63 call f; 68 pop; 69 ret); once the
 * jnz is taken every frame returns (compressed while the return stack
 * holds them), the outermost to a new f at 60 (a TIP).  Then the same with
 * the walk's returns out of step with the code (every "return" a single
 * ret): bad compressed returns, errors and resynchronisation, where libipt
 * carries its return stack across PSBs and resyncs past the PSB its
 * reading ran into.  The fast path must do most of the work on the first.
 */
static void recursion(int valid, uint32_t period, int tnt64, struct ptd_fastpt_stats *fs)
{
	struct ptd_ptsynth_config cfg = {.psb_period = period, .ret_compression = 1,
					 .tnt64 = tnt64};
	struct ptd_ptsynth *s = ptd_ptsynth_alloc(&cfg);
	const uint64_t B = PW_BASE;
	unsigned rs = 17 + period;
	int depth = 0;
	const uint8_t *buf;
	size_t n;
	char what[96];

	assert_non_null(s);
	assert_int_equal(ptd_ptsynth_begin(s, B + 0x60), 0);
	/* (out of step at a period of 16, every segment is an error and a
	 * resync, each warmed up from up to 64 segments back by pt.c, and
	 * check decodes it some twenty ways: 700 steps, about 1,700
	 * segments, already take the 64-segment window past its end many
	 * times over; 6,000 took 40 of the test's 50 seconds) */
	for (int step = 0; step < (valid ? 6000 : 700); step++) {
		if (depth < 70 && (depth == 0 || pw_rand(&rs) % 4)) {
			assert_int_equal(ptd_ptsynth_cond(s, 0, B + 0x63), 0);
			assert_int_equal(ptd_ptsynth_call(s, B + 0x68), 0);
			depth++;
			continue;
		}
		assert_int_equal(ptd_ptsynth_cond(s, 1, B + 0x68), 0);
		if (!valid) {
			assert_int_equal(ptd_ptsynth_ret(s, B + 0x68), 0);
			depth--;
			continue;
		}
		for (; depth > 0; depth--)
			assert_int_equal(ptd_ptsynth_ret(s, B + 0x68), 0);
		assert_int_equal(ptd_ptsynth_ret(s, B + 0x60), 0);
	}
	assert_int_equal(ptd_ptsynth_end(s, B + 0x60), 0);
	buf = ptd_ptsynth_data(s, &n);
	snprintf(what, sizeof(what), "recursion%s, period %u, tnt64 %d",
		 valid ? "" : " out of step", period, tnt64);
	ptd__fastpt_totals(fs, 1);
	check(buf, n, what);
	ptd__fastpt_totals(fs, 1);
	ptd_ptsynth_free(s);
}

static void test_plain_is_fast(void **state)
{
	static const uint32_t periods[] = {16, 256, 4096};
	struct ptd_fastpt_stats fs, sum = {0};

	(void)state;
	for (size_t pi = 0; pi < sizeof(periods) / sizeof(periods[0]); pi++) {
		for (int tnt64 = 0; tnt64 < 2; tnt64++) {
			recursion(1, periods[pi], tnt64, &fs);
			sum.segs_fast += fs.segs_fast;
			sum.segs_refused += fs.segs_refused;
			sum.lines += fs.lines;
			sum.line_hits += fs.line_hits;
			sum.path_hits += fs.path_hits;
			recursion(0, periods[pi], tnt64, &fs);
		}
	}
	print_message("fast path: %llu segments handled, %llu left to libipt\n",
		      (unsigned long long)sum.segs_fast, (unsigned long long)sum.segs_refused);
	assert_true(sum.segs_fast > 100);
	assert_true(sum.segs_fast > 4 * sum.segs_refused);
	assert_true(sum.line_hits > sum.lines);
	assert_true(sum.path_hits > 0); /* (check_img turns the TNT paths on once) */
}

/*
 * Packets the fast path reads itself, at and past the lengths libipt
 * accepts: a CYC packet with 7, 8 and 9 extension bytes (libipt refuses
 * the last: "unknown packet"); a PSB+ with 70 timing packets before its
 * FUP (pt.c's PSB+ reader gives up after 64 packets and takes tracing as
 * off there, and the items follow from that).  Both found by the decode
 * fuzz target.
 */
static void test_packet_limits(void **state)
{
	(void)state;
	for (int ext = 7; ext <= 12; ext++) {
		/* ext 10, 11: 1-byte CYCs in the first PSB+, 10 and 70 of
		 * them; 12: 70 in the second (the fast path took the first
		 * segment, libipt decodes the rest of the run) */
		int ncyc = ext == 10 ? 10 : ext >= 11 ? 70 : 0;
		uint8_t b[512];
		size_t n = 0;
		char what[64];

		for (int round = 0; round < 3; round++) {
			static const uint8_t psb[16] = {2, 0x82, 2, 0x82, 2, 0x82, 2, 0x82,
							2, 0x82, 2, 0x82, 2, 0x82, 2, 0x82};

			memcpy(b + n, psb, 16), n += 16;
			for (int k = 0; k < (round == (ext == 12) ? ncyc : 0); k++)
				b[n++] = 0xfb; /* CYC, no extension (one PSB+ only) */
			b[n++] = 0x99, b[n++] = 0x01;		      /* MODE.Exec 64-bit */
			b[n++] = 0x5d, b[n++] = 0x60, b[n++] = 0x10; /* FUP 0x401060 */
			b[n++] = 0x40, b[n++] = 0x00;
			b[n++] = 0x02, b[n++] = 0x23; /* PSBEND */
			b[n++] = 0x06;		      /* TNT 1: 61 jnz taken -> 68 pop; 69 ret */
			if (!ncyc) {
				b[n++] = 0x6f; /* CYC with ext extension bytes */
				for (int k = 1; k <= ext; k++)
					b[n++] = k < ext ? 0x6f : 0x42;
			}
			b[n++] = 0x2d, b[n++] = 0x60, b[n++] = 0x10; /* TIP 0x401060 (the ret) */
			b[n++] = 0x04;				      /* TNT 0: 61 not taken */
		}
		if (ncyc)
			snprintf(what, sizeof(what), "%d CYC packets in the %s PSB+", ncyc,
				 ext == 12 ? "second" : "first");
		else
			snprintf(what, sizeof(what), "CYC with %d extension bytes", ext);
		check(b, n, what);
	}
}

/* The walker with every option, many PSB periods. */
static void test_walks(void **state)
{
	static const uint32_t periods[] = {1, 16, 64, 200, 4096};
	struct ptd_fastpt_stats fs;

	(void)state;
	ptd__fastpt_totals(&fs, 1);
	for (size_t i = 0; i < sizeof(periods) / sizeof(periods[0]); i++) {
		for (int v = 0; v < 6; v++) {
			struct ptd_ptsynth_config cfg = {.psb_period = periods[i],
							 .ret_compression = v != 1,
							 .tnt64 = v == 2,
							 .tsc = v == 3,
							 .exec_mode = (uint8_t)(v == 4)};
			struct pw_opts o = {.seed = 11 + (unsigned)(i * 7 + v),
					    .steps = 4000,
					    .p_signal = v == 5 ? 10 : 2,
					    .p_sigsys = v == 5 ? 80 : 10,
					    .p_ovf = v == 5 ? 5 : 1,
					    .no_end = v == 3};
			char what[96];

			if (v == 4)
				continue; /* 32-bit: the walker's program is 64-bit (see test_mode32) */
			snprintf(what, sizeof(what), "walk, period %u, variant %d", periods[i], v);
			walk_check(&cfg, &o, what);
		}
	}
	/* the fast path did decode segments here (not all left to libipt) */
	ptd__fastpt_totals(&fs, 1);
	print_message("fast path: %llu segments handled, %llu left to libipt\n",
		      (unsigned long long)fs.segs_fast, (unsigned long long)fs.segs_refused);
	assert_true(fs.segs_fast > 50);
}

/*
 * IP filtering over the walker's program: calls (direct and indirect)
 * that leave the traced range, so TIP.PGD/TIP.PGE pairs come in nearly
 * every segment, at segment starts and ends (ptsynth puts a PSB+ right
 * before a TIP.PGE), tiny PSB periods, with and without the PSB+ whose
 * FUP is followed by TIP.PGE, tracing resumed where it stopped and
 * elsewhere (gdb's "disabled" gaps), with signals and overflows between.
 * The fast path must take most segments without FUP+PGE.
 */
static void test_filtered_walks(void **state)
{
	static const uint32_t periods[] = {1, 24, 128, 4096};
	struct ptd_fastpt_stats fs;
	uint64_t fast = 0, refused = 0;

	(void)state;
	for (size_t i = 0; i < sizeof(periods) / sizeof(periods[0]); i++) {
		for (int v = 0; v < 4; v++) {
			struct ptd_ptsynth_config cfg = {.psb_period = periods[i],
							 .ret_compression = 1,
							 .tnt64 = v == 2,
							 .fup_pge = v == 3};
			struct pw_opts o = {.seed = 5 + (unsigned)(i * 5 + v),
					    .steps = 3000,
					    .p_filter = v == 1 ? 900 : 300,
					    .p_signal = v == 2 ? 3 : 0,
					    .p_sigsys = v == 2 ? 20 : 0,
					    .p_ovf = v == 2 ? 2 : 0};
			char what[96];

			ptd__fastpt_totals(&fs, 1);
			snprintf(what, sizeof(what), "filtered walk, period %u, variant %d",
				 periods[i], v);
			walk_check(&cfg, &o, what);
			ptd__fastpt_totals(&fs, 1);
			if (v != 3) {
				fast += fs.segs_fast;
				refused += fs.segs_refused;
			}
		}
	}
	print_message("filtered: %llu segments handled, %llu left to libipt\n",
		      (unsigned long long)fast, (unsigned long long)refused);
	assert_true(fast > 1000);
	assert_true(fast > 2 * refused);
}

/*
 * A program where both kinds of call the fast path binds a TIP.PGD to are
 * followed by code it takes: an indirect call (libipt's decoder stays
 * after it, so TIP.PGE at the return address "resumes", no gap) and a
 * direct call (the decoder follows it to the target: a gap):
 *   00 call *%rax; 02 call 40; 07 je 00; 09 jmp 00
 *   40 call *%rax; 42 ret;     50 ret (outside the traced range)
 */
#define FB 0x600000ull
static const uint8_t fcode[0x51] = {
	[0x00] = 0xff, 0xd0, 0xe8, 0x39, 0x00, 0x00, 0x00, 0x74, 0xf7, 0xeb, 0xf5,
	[0x40] = 0xff, 0xd0, 0xc3,
	[0x50] = 0xc3,
};

static int fcode_read(void *ctx, uint64_t addr, uint8_t *buf, size_t n)
{
	(void)ctx;
	if (addr < FB || addr >= FB + sizeof(fcode))
		return -1;
	if (n > FB + sizeof(fcode) - addr)
		n = (size_t)(FB + sizeof(fcode) - addr);
	memcpy(buf, fcode + (addr - FB), n);
	return (int)n;
}

static void fcode_walk(struct ptd_ptsynth *s, unsigned seed, int rounds, int p_out)
{
	unsigned rs = seed;

	assert_int_equal(ptd_ptsynth_begin(s, FB), 0);
	for (int i = 0; i < rounds; i++) {
		/* 00: call *%rax to 50 */
		if ((int)(pw_rand(&rs) % 100) < p_out) {
			assert_int_equal(ptd_ptsynth_leave(s, FB + 0x50), 0);
			if (pw_rand(&rs) % 8 == 0) { /* back elsewhere: at 09 */
				assert_int_equal(ptd_ptsynth_enter(s, FB + 0x09), 0);
				continue;
			}
			assert_int_equal(ptd_ptsynth_enter(s, FB + 0x02), 0);
		} else {
			assert_int_equal(ptd_ptsynth_icall(s, FB + 0x02, FB + 0x50), 0);
			assert_int_equal(ptd_ptsynth_ret(s, FB + 0x02), 0);
		}
		/* 02: call 40 */
		if ((int)(pw_rand(&rs) % 100) < p_out) {
			assert_int_equal(ptd_ptsynth_leave(s, FB + 0x40), 0);
			assert_int_equal(ptd_ptsynth_enter(s, FB + 0x07), 0);
		} else {
			assert_int_equal(ptd_ptsynth_call(s, FB + 0x07), 0);
			if ((int)(pw_rand(&rs) % 100) < p_out) { /* 40: call *%rax */
				assert_int_equal(ptd_ptsynth_leave(s, FB + 0x50), 0);
				assert_int_equal(ptd_ptsynth_enter(s, FB + 0x42), 0);
			} else {
				assert_int_equal(ptd_ptsynth_icall(s, FB + 0x42, FB + 0x50), 0);
				assert_int_equal(ptd_ptsynth_ret(s, FB + 0x42), 0);
			}
			assert_int_equal(ptd_ptsynth_ret(s, FB + 0x07), 0); /* 42: ret */
		}
		/* 07: je 00 (not taken: 09 jmp 00) */
		if (pw_rand(&rs) & 1)
			assert_int_equal(ptd_ptsynth_cond(s, 1, FB), 0);
		else
			assert_int_equal(ptd_ptsynth_cond(s, 0, FB + 0x09), 0);
	}
	assert_int_equal(ptd_ptsynth_end(s, FB), 0);
}

/* Whether an indirect call that tracing was disabled at pushes its return
 * address (as libipt does) shows at the next compressed return: PSB+ at
 * 40, the call *%rax leaves (TIP.PGD 50), TIP.PGE at 42, its ret
 * compressed (a TNT bit), then the next ret by TIP to 07, je taken, a
 * PSB+ at 00.  The fast path must take the first segment. */
static void test_filtered_icall_stack(void **state)
{
	uint8_t b[96];
	size_t n = 0;
	struct ptd_image *img = ptd_image_alloc(fcode_read, NULL);

	(void)state;
	assert_non_null(img);
	for (int i = 0; i < 8; i++) { /* PSB */
		b[n++] = 0x02;
		b[n++] = 0x82;
	}
#define IP8(op, ip)                                  \
	do {                                         \
		b[n++] = (op);                       \
		for (int k = 0; k < 8; k++)          \
			b[n++] = (uint8_t)((ip) >> (8 * k)); \
	} while (0)
	b[n++] = 0x99; /* MODE.Exec 64-bit */
	b[n++] = 0x01;
	IP8(0xdd, FB + 0x40); /* FUP */
	b[n++] = 0x02; /* PSBEND */
	b[n++] = 0x23;
	IP8(0xc1, FB + 0x50); /* TIP.PGD */
	IP8(0xd1, FB + 0x42); /* TIP.PGE */
	b[n++] = 0x06;	      /* TNT: 1 */
	IP8(0xcd, FB + 0x07); /* TIP */
	b[n++] = 0x06;	      /* TNT: je 00 taken */
	for (int i = 0; i < 8; i++) { /* PSB+ at 00: the fast path cuts there */
		b[n++] = 0x02;
		b[n++] = 0x82;
	}
	b[n++] = 0x99;
	b[n++] = 0x01;
	IP8(0xdd, FB);
	b[n++] = 0x02;
	b[n++] = 0x23;
#undef IP8
	{
		struct ptd_fastpt_stats fs;

		ptd__fastpt_totals(&fs, 1);
		check_img(b, n, img, "compressed return after a filtered indirect call");
		ptd__fastpt_totals(&fs, 1);
		assert_true(fs.segs_fast > 0);
	}
	ptd_image_free(img);
}

static void test_filtered_calls(void **state)
{
	static const uint32_t periods[] = {1, 16, 100, 4096};
	struct ptd_fastpt_stats fs;
	uint64_t fast = 0, refused = 0;
	struct ptd_image *img = ptd_image_alloc(fcode_read, NULL);

	(void)state;
	assert_non_null(img);
	for (size_t i = 0; i < sizeof(periods) / sizeof(periods[0]); i++) {
		for (int v = 0; v < 3; v++) {
			struct ptd_ptsynth_config cfg = {.psb_period = periods[i],
							 .ret_compression = v != 1,
							 .fup_pge = v == 2};
			struct ptd_ptsynth *s = ptd_ptsynth_alloc(&cfg);
			const uint8_t *buf;
			size_t n;
			char what[96];

			assert_non_null(s);
			fcode_walk(s, 3 + (unsigned)(i * 3 + v), 400, v == 1 ? 80 : 40);
			buf = ptd_ptsynth_data(s, &n);
			snprintf(what, sizeof(what), "filtered calls, period %u, variant %d",
				 periods[i], v);
			ptd__fastpt_totals(&fs, 1);
			check_img(buf, n, img, what);
			ptd__fastpt_totals(&fs, 1);
			if (v != 2) {
				fast += fs.segs_fast;
				refused += fs.segs_refused;
			}
			ptd_ptsynth_free(s);
		}
	}
	ptd_image_free(img);
	print_message("filtered calls: %llu segments handled, %llu left to libipt\n",
		      (unsigned long long)fast, (unsigned long long)refused);
	assert_true(fast > 1000);
	assert_true(fast > 2 * refused);
}

/*
 * Filtered tracing as ptsynth writes it (main in range, a TIP.PGD/TIP.PGE
 * pair at every call out), with and without the PSB+ whose FUP is
 * directly followed by TIP.PGE, in 64-bit and 32-bit mode.
 */
static void test_filtered(void **state)
{
	static const uint32_t periods[] = {1, 40, 300, 100000};
	const uint64_t B = PW_BASE;

	(void)state;
	for (int mode32 = 0; mode32 < 2; mode32++)
		for (int fup_pge = 0; fup_pge < 2; fup_pge++)
			for (size_t pi = 0; pi < sizeof(periods) / sizeof(periods[0]); pi++) {
				struct ptd_ptsynth_config cfg = {.psb_period = periods[pi],
								 .ret_compression = 1,
								 .exec_mode = (uint8_t)mode32,
								 .fup_pge = fup_pge};
				struct ptd_ptsynth *s = ptd_ptsynth_alloc(&cfg);
				const uint8_t *buf;
				size_t n;
				char what[96];

				assert_non_null(s);
				assert_int_equal(ptd_ptsynth_begin(s, B), 0);
				for (int round = 0; round < 60; round++) {
					assert_int_equal(ptd_ptsynth_cond(s, 1, B + 0x30), 0);
					if (round % 5 == 4) {
						assert_int_equal(ptd_ptsynth_async(s, B + 0x33, B), 0);
						continue;
					}
					assert_int_equal(ptd_ptsynth_leave(s, B + 0x60), 0);
					assert_int_equal(ptd_ptsynth_enter(s, B + 0x08), 0);
					assert_int_equal(ptd_ptsynth_leave(s, B + 0xa0), 0);
					assert_int_equal(ptd_ptsynth_enter(s, B + 0x0a), 0);
					assert_int_equal(ptd_ptsynth_syscall(s, B + 0x0c), 0);
					assert_int_equal(ptd_ptsynth_cond(s, 1, B), 0);
					if (round % 7 == 6)
						assert_int_equal(ptd_ptsynth_overflow(s, B), 0);
				}
				assert_int_equal(ptd_ptsynth_end(s, B), 0);
				buf = ptd_ptsynth_data(s, &n);
				snprintf(what, sizeof(what), "filtered, %s, fup_pge %d, period %u",
					 mode32 ? "32-bit" : "64-bit", fup_pge, periods[pi]);
				check(buf, n, what);
				ptd_ptsynth_free(s);
			}
}

/* 32-bit code: MODE.Exec says so in every PSB+ (the fast path leaves it
 * to libipt; the items must still be the same). */
static void test_mode32(void **state)
{
	struct ptd_ptsynth_config cfg = {.psb_period = 64, .ret_compression = 1, .exec_mode = 1};
	struct ptd_ptsynth *s = ptd_ptsynth_alloc(&cfg);
	const uint64_t B = PW_BASE;
	const uint8_t *buf;
	size_t n;

	(void)state;
	assert_non_null(s);
	assert_int_equal(ptd_ptsynth_begin(s, B + 0x60), 0);
	for (int round = 0; round < 200; round++) {
		/* f: 60 push; 61 jnz taken -> 68 pop; 69 ret -> a6 (TIP) */
		assert_int_equal(ptd_ptsynth_cond(s, 1, B + 0x68), 0);
		assert_int_equal(ptd_ptsynth_ret(s, B + 0x60), 0);
	}
	assert_int_equal(ptd_ptsynth_end(s, B + 0x60), 0);
	buf = ptd_ptsynth_data(s, &n);
	check(buf, n, "32-bit code");
	ptd_ptsynth_free(s);
}

/*
 * Empty segments (a PSB+ right before tracing stops, PSB+ back to back
 * with psb_on_begin) and snapshots that end with tracing enabled, cut at
 * the thread's pc.
 */
static void test_empty_and_snapshots(void **state)
{
	struct ptd_ptsynth_config cfg = {.psb_period = 1, .ret_compression = 1, .psb_on_begin = 1};
	struct ptd_ptsynth *s = ptd_ptsynth_alloc(&cfg);
	const uint64_t B = PW_BASE;
	const uint8_t *buf;
	size_t n;

	(void)state;
	assert_non_null(s);
	for (int round = 0; round < 30; round++) {
		assert_int_equal(ptd_ptsynth_begin(s, B), 0);
		if (round % 3)
			assert_int_equal(ptd_ptsynth_cond(s, round & 1, round & 1 ? B + 0x30 : B + 3), 0);
		assert_int_equal(ptd_ptsynth_end(s, round & 1 ? B + 0x30 : B + 3), 0);
	}
	buf = ptd_ptsynth_data(s, &n);
	check(buf, n, "empty segments");
	ptd_ptsynth_free(s);
	/* snapshots: tracing left on, with and without the tail pc */
	for (int k = 0; k < 4; k++) {
		struct ptd_ptsynth_config c2 = {.psb_period = k ? 32u << k : 1, .ret_compression = 1};
		struct pw_opts o = {.seed = 40 + (unsigned)k, .steps = 3000, .no_end = 1};
		struct pw_result exp = {0};
		struct ptd_image *img = pw_image();

		s = ptd_ptsynth_alloc(&c2);
		assert_non_null(s);
		assert_int_equal(pw_walk(&o, s, &exp), 0);
		assert_int_equal(ptd_ptsynth_flush(s), 0);
		buf = ptd_ptsynth_data(s, &n);
		check_img(buf, n, img, "snapshot");
		for (int fast = 0; fast < 2; fast++) {
			/* the newest segment cut at the pc where the thread stopped */
			struct ptd_history *h[2];

			for (int f = 0; f < 2; f++) {
				struct ptd_pt_trace *t = ptd_pt_trace_alloc(buf, n, img, NULL, NULL, 2);
				const struct ptd_history *sh;

				ptd__fastpt_force(f);
				ptd_pt_trace_set_tail(t, exp.n ? exp.ips[exp.n - 1] : 0);
				h[f] = ptd_history_alloc(ptd_image_read, img);
				assert_int_equal(ptd_pt_trace_history(t, h[f], 1, NULL), 0);
				sh = ptd_pt_trace_newest(t, 0);
				assert_non_null(sh);
				ptd__fastpt_force(-1);
				ptd_pt_trace_free(t);
			}
			assert_same_history(h[1], h[0], "snapshot cut at the tail pc");
			ptd_history_free(h[0]);
			ptd_history_free(h[1]);
		}
		ptd_image_free(img);
		free(exp.ips);
		ptd_ptsynth_free(s);
	}
}

/* An instruction whose bytes are in two mapping records (split inside
 * the call at 03, then inside the jnz at 01), no read callback. */
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
		char a[] = "/tmp/ptd-fpstraddle-a-XXXXXX", b[] = "/tmp/ptd-fpstraddle-b-XXXXXX";
		int fa = mkstemp(a), fb = mkstemp(b);
		struct ptd_image *img = ptd_image_alloc(NULL, NULL);
		unsigned cut = splits[k];

		assert_true(fa >= 0 && fb >= 0);
		assert_non_null(img);
		assert_int_equal(write(fa, pw_code, cut), (ssize_t)cut);
		assert_int_equal(write(fb, pw_code + cut, PW_SIZE - cut), (ssize_t)(PW_SIZE - cut));
		close(fa);
		close(fb);
		assert_int_equal(ptd_image_add_file(img, a, 0, cut, PW_BASE), 0);
		assert_int_equal(ptd_image_add_file(img, b, 0, PW_SIZE - cut, PW_BASE + cut), 0);
		check_img(buf, n, img, "instruction across two mappings");
		ptd_image_free(img);
		unlink(a);
		unlink(b);
	}
	free(exp.ips);
	ptd_ptsynth_free(s);
}

/* Code read through the callback changes between two decodes of one
 * trace object (self-modifying or JIT code): the fast path reads it
 * again, as libipt does. */
static uint8_t smc_code[PW_SIZE];

static int smc_read(void *ctx, uint64_t addr, uint8_t *buf, size_t n)
{
	(void)ctx;
	if (addr < PW_BASE || addr >= PW_BASE + PW_SIZE)
		return -1;
	if (n > PW_BASE + PW_SIZE - addr)
		n = (size_t)(PW_BASE + PW_SIZE - addr);
	memcpy(buf, smc_code + (addr - PW_BASE), n);
	return (int)n;
}

static void test_code_changes(void **state)
{
	struct ptd_ptsynth_config cfg = {.psb_period = 64, .ret_compression = 1};
	struct pw_opts o = {.seed = 9, .steps = 3000};
	struct pw_result exp = {0};
	struct ptd_ptsynth *s = ptd_ptsynth_alloc(&cfg);
	struct ptd_image *img = ptd_image_alloc(smc_read, NULL);
	const uint8_t *buf;
	size_t n;

	(void)state;
	assert_non_null(s);
	assert_non_null(img);
	assert_int_equal(pw_walk(&o, s, &exp), 0);
	buf = ptd_ptsynth_data(s, &n);
	for (int round = 0; round < 2; round++) {
		struct ptd_pt_trace *t[2];
		struct ptd_history *h[2];

		memcpy(smc_code, pw_code, PW_SIZE);
		if (round)
			smc_code[0x30] = 0x90, smc_code[0x31] = 0x90, smc_code[0x32] = 0x90;
		for (int f = 0; f < 2; f++) {
			ptd__fastpt_force(f);
			t[f] = ptd_pt_trace_alloc(buf, n, img, NULL, NULL, 2);
			h[f] = ptd_history_alloc(ptd_image_read, img);
			assert_int_equal(ptd_pt_trace_history(t[f], h[f], 1, NULL), 0);
			ptd__fastpt_force(-1);
		}
		assert_same_history(h[1], h[0], round ? "code changed" : "code before the change");
		for (int f = 0; f < 2; f++) {
			ptd_history_free(h[f]);
			ptd_pt_trace_free(t[f]);
		}
	}
	/* the same trace object decoding again after the change */
	{
		struct ptd_pt_trace *t = ptd_pt_trace_alloc(buf, n, img, NULL, NULL, 2);
		struct ptd_history *a = ptd_history_alloc(ptd_image_read, img);
		struct ptd_history *b = ptd_history_alloc(ptd_image_read, img);
		struct ptd_history *c = ptd_history_alloc(ptd_image_read, img);

		memcpy(smc_code, pw_code, PW_SIZE);
		ptd__fastpt_force(1);
		assert_int_equal(ptd_pt_trace_history_range(t, a, 0, SIZE_MAX, 1, NULL), 0);
		smc_code[0x30] = 0x90, smc_code[0x31] = 0x90, smc_code[0x32] = 0x90;
		assert_int_equal(ptd_pt_decode_history(buf, n, img, b, NULL), 0);
		ptd__fastpt_force(0);
		assert_int_equal(ptd_pt_decode_history(buf, n, img, c, NULL), 0);
		ptd__fastpt_force(-1);
		assert_same_history(b, c, "the same trace after the code changed");
		ptd_history_free(a);
		ptd_history_free(b);
		ptd_history_free(c);
		ptd_pt_trace_free(t);
	}
	free(exp.ips);
	ptd_image_free(img);
	ptd_ptsynth_free(s);
}

/* The segment API on its own: NULL and refusals. */
static void test_api(void **state)
{
	struct ptd_image *img = pw_image();
	struct ptd_fastpt *fp = ptd_fastpt_alloc(img);
	const struct ptd_block *b;
	size_t n = 7;
	static const uint8_t junk[32] = {0x02, 0x82};

	(void)state;
	assert_non_null(fp);
	assert_int_equal(ptd_fastpt_segment(NULL, junk, 0, 32, 1, 0, 0, &b, &n), 0);
	assert_int_equal(n, 0);
	ptd_fastpt_begin(fp);
	/* not a PSB+: refused, nothing produced */
	assert_int_equal(ptd_fastpt_segment(fp, junk, 0, 32, PW_BASE, 0, 1, &b, &n), 0);
	assert_int_equal(n, 0);
	/* no cut ip: refused */
	assert_int_equal(ptd_fastpt_segment(fp, junk, 0, 32, 0, 0, 0, &b, &n), 0);
	ptd_fastpt_free(fp);
	ptd_fastpt_free(NULL);
	ptd_image_free(img);
}

static int setup(void **state)
{
	(void)state;
	pw_init_code();
	return 0;
}

/* g's loop (80 nop; 81 jz 85; 83 jmp *rax back to 80), @n times: trace
 * without calls or returns. */
static void g_loop(struct ptd_ptsynth *s, int n, int ovf_at)
{
	for (int k = 0; k < n; k++) {
		assert_int_equal(ptd_ptsynth_cond(s, 0, PW_BASE + 0x83), 0);
		assert_int_equal(ptd_ptsynth_indirect(s, PW_BASE + 0x80), 0);
		if (k == ovf_at)
			assert_int_equal(ptd_ptsynth_overflow(s, PW_BASE + 0x80), 0);
	}
}

/*
 * The fast path going on after a segment libipt decodes (pt.c's
 * fast_run): main calls f (a compressed return) and g through its
 * indirect call (the return stack holds 0a), g loops; mid-run an event
 * the fast path leaves to libipt (@ev: 0 an asynchronous branch, FUP and
 * TIP.PGD/TIP.PGE, as a signal into g; 1 an overflow; 2 a packet libipt
 * takes as timing and the fast path does not; 3 a transaction begins:
 * libipt's blocks are speculative from there, the fast path must not go
 * on), then g loops on
 * (the fast path goes on after libipt's part), and with @across returns to
 * main with a compressed return of the call from before the event and
 * several PSBs (hardware and ptsynth do not compress across a PSB; libipt
 * takes it, its stack held the call; the fast path's, started empty after
 * libipt's part, does not: the run is decoded again from its start), then
 * main's syscall.  @ovf_after: an overflow right after the fast path went
 * on.
 */
static void resume_stream(int ev, int across, int ovf_after, uint32_t period,
			  struct ptd_fastpt_stats *sum)
{
	struct ptd_ptsynth_config cfg = {.psb_period = period, .ret_compression = 1};
	struct ptd_ptsynth *s = ptd_ptsynth_alloc(&cfg);
	struct ptd_fastpt_stats fs;
	const uint8_t *buf;
	uint8_t *ed = NULL;
	size_t n;
	char what[128];

	assert_non_null(s);
	assert_int_equal(ptd_ptsynth_begin(s, PW_BASE), 0);
	assert_int_equal(ptd_ptsynth_cond(s, 0, PW_BASE + 0x03), 0);
	assert_int_equal(ptd_ptsynth_call(s, PW_BASE + 0x08), 0);
	assert_int_equal(ptd_ptsynth_cond(s, 1, PW_BASE + 0x68), 0);
	assert_int_equal(ptd_ptsynth_ret(s, PW_BASE + 0x08), 0);
	assert_int_equal(ptd_ptsynth_icall(s, PW_BASE + 0x0a, PW_BASE + 0x80), 0);
	g_loop(s, 3 * (int)period / 4 + 40, -1);
	if (ev == 0)
		assert_int_equal(ptd_ptsynth_async(s, PW_BASE + 0x83, PW_BASE + 0x80), 0);
	else if (ev == 1)
		assert_int_equal(ptd_ptsynth_overflow(s, PW_BASE + 0x80), 0);
	/* (the overflow a few packets after the next PSB+) */
	g_loop(s, (int)period / 2 + 60, ovf_after ? (int)period / 4 + 6 : -1);
	if (across) {
		assert_int_equal(ptd_ptsynth_cond(s, 1, PW_BASE + 0x85), 0);
		assert_int_equal(ptd_ptsynth_ret(s, PW_BASE + 0x0a), 0);
		assert_int_equal(ptd_ptsynth_syscall(s, PW_BASE + 0x0c), 0);
		assert_int_equal(ptd_ptsynth_end(s, PW_BASE + 0x0c), 0);
	} else {
		assert_int_equal(ptd_ptsynth_end(s, PW_BASE + 0x80), 0);
	}
	buf = ptd_ptsynth_data(s, &n);
	if (ev >= 2) {
		/* Right after the PSBEND of the third PSB+: a CYC packet with
		 * 8 extension bytes (libipt takes it, the fast path leaves it
		 * to libipt; nothing disables tracing, the return stack
		 * stays), or (3) a transaction that begins there (MODE.TSX,
		 * then the PSB+'s FUP again); the PSB+s after it do not repeat
		 * the MODE.TSX, so libipt's blocks stay speculative. */
		static const uint8_t cyc[9] = {0x6f, 0x6f, 0x6f, 0x6f, 0x6f, 0x6f, 0x6f, 0x6f, 0x42};
		uint8_t ins[16];
		size_t at = 0, fup = 0, nins, k;
		int psbs = 0;

		for (k = 0; k + 1 < n && !at; k++) {
			if (buf[k] == 0x02 && buf[k + 1] == 0x82 && k + 16 <= n &&
			    !memcmp(buf + k, buf + k + 2, 14)) {
				psbs++;
				k += 15;
			} else if (psbs == 3 && (buf[k] & 0x1f) == 0x1d && !fup) {
				fup = k; /* (the timing packets before it hold no 0x?d byte) */
			} else if (psbs == 3 && buf[k] == 0x02 && buf[k + 1] == 0x23) {
				at = k + 2;
			}
		}
		assert_true(at > 0);
		if (ev == 2) {
			memcpy(ins, cyc, sizeof(cyc));
			nins = sizeof(cyc);
		} else {
			assert_true(fup > 0 && at - 2 - fup <= 9);
			ins[0] = 0x99, ins[1] = 0x21; /* MODE.TSX: in a transaction */
			memcpy(ins + 2, buf + fup, at - 2 - fup);
			nins = 2 + (at - 2 - fup);
		}
		ed = malloc(n + nins);
		assert_non_null(ed);
		memcpy(ed, buf, at);
		memcpy(ed + at, ins, nins);
		memcpy(ed + at + nins, buf + at, n - at);
		buf = ed;
		n += nins;
	}
	if (across) {
		/* ptsynth, as the hardware, clears its return stack at every
		 * PSB: the return to 0a is a TIP.  Make it a compressed one
		 * (libipt's stack still has 0a): "06 2d 0a 10" (TNT 1, TIP
		 * 0a) becomes "0e 00 00 00" (TNT 1 1, PADs). */
		static const uint8_t was[4] = {0x06, 0x2d, 0x0a, 0x10}, now[4] = {0x0e, 0, 0, 0};
		size_t k, last = 0;

		if (!ed) {
			ed = malloc(n);
			assert_non_null(ed);
			memcpy(ed, buf, n);
			buf = ed;
		}
		for (k = 0; k + 4 <= n; k++)
			if (!memcmp(ed + k, was, 4))
				last = k + 1;
		assert_true(last > 0);
		memcpy(ed + last - 1, now, 4);
	}
	snprintf(what, sizeof(what), "resume after %s%s%s, period %u",
		 ev == 0 ? "a signal" : ev == 1 ? "an overflow" :
		 ev == 2 ? "a long CYC packet" : "a transaction's start",
		 across ? ", returns across it" : "", ovf_after ? ", then an overflow" : "",
		 period);
	ptd__fastpt_totals(&fs, 1);
	check(buf, n, what);
	ptd__fastpt_totals(&fs, 1);
	free(ed);
	sum->resumes += fs.resumes;
	sum->redos += fs.redos;
	sum->segs_fast += fs.segs_fast;
	ptd_ptsynth_free(s);
}

static void test_resume(void **state)
{
	struct ptd_fastpt_stats sum = {0};

	(void)state;
	for (int ev = 0; ev < 4; ev++)
		for (int across = 0; across < 2; across++)
			for (int ovf = 0; ovf < 2; ovf++) {
				resume_stream(ev, across, ovf, 64, &sum);
				resume_stream(ev, across, ovf, 200, &sum);
			}
	print_message("fast path: %llu segments, went on after libipt %llu times, %llu runs "
		      "again from an earlier PSB\n", (unsigned long long)sum.segs_fast,
		      (unsigned long long)sum.resumes, (unsigned long long)sum.redos);
	/* both ways were taken */
	assert_true(sum.resumes > 0);
	assert_true(sum.redos > 0);
}

/*
 * Packets while tracing is disabled across a PSB (found by the fuzz
 * target: tests/fuzz/seeds-decode/fastpt-error-gap.bin).  main runs to its
 * syscall (TNT, a TIP into g, compressed returns), the syscall disables
 * tracing (TIP.PGD without ip), then a PSB+ (without FUP, or with one:
 * libipt ignores it while tracing is off) and packets that do not belong
 * there: a TIP with MODE.Exec, a bare TIP, a TNT, a FUP.  libipt's
 * continuous decoder goes on from the ip where tracing stopped (after the
 * syscall); a decoder synchronised at that PSB has no ip.  The fast path
 * takes the first segment and not the second: libipt must go on there as
 * the continuous decoder does, not from a decoder synchronised at the PSB.
 * Then the same with TIP.PGE, where both decoders agree again.
 */
static void test_disabled_psb(void **state)
{
	static const uint8_t head[] = {
		0x99, 0x01,				  /* MODE.Exec 64-bit */
		0x7d, 0x00, 0x10, 0x40, 0x00, 0x00, 0x00, /* FUP 401000 */
		0x02, 0x23,				  /* PSBEND */
		0x16,					  /* TNT 0 1 1: jnz, f's jnz, ret */
		0x2d, 0x80, 0x10,			  /* TIP 401080: call *rax to g */
		0x0e,					  /* TNT 1 1: g's jz, ret */
		0x01,					  /* TIP.PGD: the syscall */
	};
	static const struct {
		const char *what;
		uint8_t n, b[12];
	} after[] = {
		{"MODE.Exec and TIP", 5, {0x99, 0x01, 0x2d, 0x68, 0x10}},
		{"TIP", 3, {0x2d, 0x68, 0x10}},
		{"TNT", 1, {0x0e}},
		{"TNT and TIP", 4, {0x06, 0x2d, 0x60, 0x10}},
		{"FUP and TIP.PGD", 4, {0x3d, 0x83, 0x10, 0x01}},
		{"TIP.PGE and TNT", 5, {0x31, 0x60, 0x10, 0x0c, 0x2d}},
		{"MODE.Exec, TIP.PGE and TNT", 7, {0x99, 0x01, 0x31, 0x60, 0x10, 0x0c, 0x2d}},
	};
	static const uint8_t fup[] = {0x7d, 0x0c, 0x10, 0x40, 0x00, 0x00, 0x00};
	uint8_t buf[128];

	(void)state;
	for (size_t a = 0; a < sizeof(after) / sizeof(after[0]); a++)
		for (int with_fup = 0; with_fup < 2; with_fup++)
			for (int tail = 0; tail < 2; tail++) {
				size_t n = 0;
				char what[128];

				for (int k = 0; k < 8; k++)
					buf[n++] = 0x02, buf[n++] = 0x82;
				memcpy(buf + n, head, sizeof(head));
				n += sizeof(head);
				for (int k = 0; k < 8; k++)
					buf[n++] = 0x02, buf[n++] = 0x82;
				buf[n++] = 0x99, buf[n++] = 0x01;
				if (with_fup) {
					memcpy(buf + n, fup, sizeof(fup));
					n += sizeof(fup);
				}
				buf[n++] = 0x02, buf[n++] = 0x23;
				memcpy(buf + n, after[a].b, after[a].n);
				n += after[a].n;
				if (tail) {
					/* a PSB+ with tracing on: a run may start here */
					for (int k = 0; k < 8; k++)
						buf[n++] = 0x02, buf[n++] = 0x82;
					buf[n++] = 0x99, buf[n++] = 0x01;
					memcpy(buf + n, head + 2, 7); /* FUP 401000 */
					n += 7;
					buf[n++] = 0x02, buf[n++] = 0x23;
					buf[n++] = 0x04; /* TNT 0: jnz */
				}
				assert_true(n <= sizeof(buf));
				snprintf(what, sizeof(what),
					 "disabled across a PSB+%s, then %s%s",
					 with_fup ? " with FUP" : "", after[a].what,
					 tail ? ", then a PSB+ with FUP" : "");
				check(buf, n, what);
			}
}

/*
 * Every input the fuzz target found a difference on (tests/fuzz/seeds-decode,
 * see tests/fuzz/open/README), checked every way here too (deterministic:
 * the fuzz target's own run depends on its mutations).  Run from the top of
 * the tree (as make check does); a missing directory fails.
 *  - fastpt-error-gap.bin: packets that use the ip while tracing is off
 *    across a PSB (test_disabled_psb);
 *  - fastpt-mode32-resume.bin: libipt's part of a run went into 32-bit
 *    code; the fast path took over at a PSB+ that says 64-bit, where the
 *    continuous decoder finds an error;
 *  - fastpt-syscall-mode-end.bin: a system call's TIP.PGD, then MODE.Exec
 *    and the end of the trace: libipt gives no "disabled" event (no
 *    syscall flag on the block), the fast path gave it.
 */
static void test_fuzz_inputs(void **state)
{
	const char *dir = "tests/fuzz/seeds-decode";
	DIR *d = opendir(dir);
	struct dirent *de;
	int nfiles = 0;

	(void)state;
	if (!d)
		fail_msg("cannot open %s (run from the top of the tree)", dir);
	while ((de = readdir(d))) {
		char path[512], what[600];
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
		snprintf(what, sizeof(what), "fuzz input %s", de->d_name);
		check(buf, (size_t)n, what);
		free(buf);
		nfiles++;
	}
	closedir(d);
	assert_true(nfiles >= 3);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_api),
		cmocka_unit_test(test_packet_limits),
		cmocka_unit_test(test_plain_is_fast),
		cmocka_unit_test(test_resume),
		cmocka_unit_test(test_walks),
		cmocka_unit_test(test_filtered),
		cmocka_unit_test(test_filtered_walks),
		cmocka_unit_test(test_filtered_calls),
		cmocka_unit_test(test_filtered_icall_stack),
		cmocka_unit_test(test_mode32),
		cmocka_unit_test(test_empty_and_snapshots),
		cmocka_unit_test(test_straddle),
		cmocka_unit_test(test_code_changes),
		cmocka_unit_test(test_disabled_psb),
		cmocka_unit_test(test_fuzz_inputs),
	};

	return cmocka_run_group_tests(tests, setup, NULL);
}
