/*
 * Unit tests for PT decoding (src/decode/pt.c, src/decode/image.c):
 * synthesize PT for random executions of a small hand-assembled program
 * (tests/unit/ptwalk.h), decode it back and require the exact instruction
 * sequence -- with and without return compression, TNT-8 and TNT-64,
 * several PSB periods, signals and syscalls; an overflow gives exactly one
 * gap at its position; damaged streams (cut, flipped, shifted, empty, no
 * PSB, zero padding) give gaps or errors and never crash; the lazy
 * segmented trace numbers and stitches segments like the full decode, and
 * parallel decode builds the same history as serial decode.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <intel-pt.h>

#include "decode/bundle.h"
#include "decode/image.h"
#include "decode/pt.h"
#include "history/history.h"
#include "history/history_int.h"
#include "ptdbg/ptdbg.h"
#include "session/session_int.h"
#include "ptwalk.h"

struct got {
	struct pw_result r;
	int bad_block;
	int nsignal_events;
	uint64_t gap_off[64];
	int gap_reason[64];
};

static int got_block(void *ctx, const struct ptd_block *b)
{
	struct got *g = ctx;

	if (b->ninsn == 0 || b->end_ip < b->ip)
		fail_msg("malformed block 0x%llx-0x%llx", (unsigned long long)b->ip,
			 (unsigned long long)b->end_ip);
	if (pw_expand(&g->r, b->ip, b->end_ip, b->ninsn) < 0)
		g->bad_block++;
	return 0;
}

static int got_gap(void *ctx, enum ptd_gap_reason r, uint64_t off, const char *detail)
{
	struct got *g = ctx;

	assert_non_null(detail);
	if (g->r.ngaps < 64) {
		g->gap_off[g->r.ngaps] = off;
		g->gap_reason[g->r.ngaps] = r;
	}
	g->r.ngaps++;
	pw_push(&g->r, PW_GAP);
	return 0;
}

static int got_event(void *ctx, enum ptd_event_kind k, uint64_t ip, uint64_t arg)
{
	struct got *g = ctx;

	(void)ip;
	(void)arg;
	if (k == PTD_EV_SIGNAL)
		g->nsignal_events++;
	return 0;
}

/* Two histories hold the same items, one by one. */
static void assert_same_items(const struct ptd_history *x, const struct ptd_history *y)
{
	uint64_t i;

	assert_int_equal(ptd_history_nitems(x), ptd_history_nitems(y));
	assert_int_equal(ptd_history_count(x), ptd_history_count(y));
	for (i = 0; i < ptd_history_nitems(x); i++) {
		struct ptd_item a, b;

		assert_int_equal(ptd_history_item(x, i, &a), 1);
		assert_int_equal(ptd_history_item(y, i, &b), 1);
		assert_int_equal(a.kind, b.kind);
		assert_int_equal(a.number, b.number);
		assert_int_equal(a.reason, b.reason);
		assert_int_equal(a.block.ip, b.block.ip);
		assert_int_equal(a.block.end_ip, b.block.end_ip);
		assert_int_equal(a.block.ninsn, b.block.ninsn);
		assert_int_equal(a.block.iclass, b.block.iclass);
		assert_int_equal(a.block.flags, b.block.flags);
		assert_int_equal(a.arg, b.arg);
	}
}

static void expand_history(const struct ptd_history *h, struct pw_result *r);

static int decode_got(const uint8_t *buf, size_t n, struct ptd_image *img, struct got *g,
		      struct ptd_pt_stats *st)
{
	struct ptd_pt_sink sink = { got_block, got_gap, got_event, g };

	memset(g, 0, sizeof(*g));
	return ptd_pt_decode(buf, n, img, &sink, st);
}

static void assert_same(const struct pw_result *exp, const struct pw_result *got)
{
	size_t i;

	for (i = 0; i < exp->n && i < got->n; i++) {
		if (exp->ips[i] != got->ips[i])
			fail_msg("instruction %zu: expected 0x%llx, decoded 0x%llx", i,
				 (unsigned long long)exp->ips[i], (unsigned long long)got->ips[i]);
	}
	if (exp->n != got->n)
		fail_msg("expected %zu instructions, decoded %zu", exp->n, got->n);
}

/* Synthesizes one walk; returns the synthesizer (owner of the bytes). */
static struct ptd_ptsynth *synth(const struct ptd_ptsynth_config *cfg, const struct pw_opts *o,
				 struct pw_result *exp)
{
	struct ptd_ptsynth *s = ptd_ptsynth_alloc(cfg);

	assert_non_null(s);
	assert_int_equal(pw_walk(o, s, exp), 0);
	return s;
}

static int setup(void **state)
{
	(void)state;
	pw_init_code();
	return 0;
}

static void test_roundtrip(void **state)
{
	static const struct {
		uint32_t period;
		int retc, tnt64, tsc, sig, sigsys;
	} cfgs[] = {
		{ 4096, 1, 0, 0, 0, 0 },   { 4096, 0, 0, 0, 0, 0 }, { 64, 1, 0, 0, 0, 0 },
		{ 64, 0, 1, 1, 0, 0 },	   { 256, 1, 1, 0, 10, 100 }, { 30, 1, 0, 1, 10, 200 },
		{ 1000, 0, 0, 0, 20, 300 }, { 16384, 1, 1, 1, 5, 50 },
	};
	int via;
	struct ptd_image *img = ptd_image_alloc(pw_read, NULL);
	size_t c;
	unsigned seed;

	(void)state;
	assert_non_null(img);
	/* Outcomes reported one by one, and through ptd_ptsynth_step as a
	 * single-stepping recorder does. */
	for (via = 0; via <= 1; via++)
	for (c = 0; c < sizeof(cfgs) / sizeof(cfgs[0]); c++) {
		for (seed = 1; seed <= 4; seed++) {
			struct ptd_ptsynth_config cfg = { .psb_period = cfgs[c].period,
							  .ret_compression = cfgs[c].retc,
							  .tnt64 = cfgs[c].tnt64,
							  .tsc = cfgs[c].tsc };
			struct pw_opts o = { .seed = seed * 7919 + (unsigned)c, .steps = 4000,
					     .p_signal = cfgs[c].sig, .p_sigsys = cfgs[c].sigsys,
					     .via_step = via };
			struct pw_result exp;
			struct ptd_pt_stats st;
			struct ptd_ptsynth *s = synth(&cfg, &o, &exp);
			const uint8_t *buf;
			struct got g;
			size_t n;

			buf = ptd_ptsynth_data(s, &n);
			assert_int_equal(decode_got(buf, n, img, &g, &st), 0);
			assert_int_equal(g.bad_block, 0);
			assert_int_equal(g.r.ngaps, 0);
			assert_same(&exp, &g.r);
			assert_int_equal(st.ninsn, exp.n);
			assert_int_equal(st.end_ip, exp.end_ip);
			assert_int_equal(st.start_ip, PW_BASE);
			/* Signals that resumed elsewhere are events (not those
			 * hidden in a syscall: user-only PT cannot see them). */
			if (!cfgs[c].sigsys)
				assert_int_equal(g.nsignal_events, exp.nsignals);
			free(exp.ips);
			free(g.r.ips);
			ptd_ptsynth_free(s);
		}
	}
	ptd_image_free(img);
}

/* ptd_ptsynth_step makes exactly the calls a recorder would make by hand. */
static void test_step_same_bytes(void **state)
{
	struct ptd_ptsynth_config cfg = { .psb_period = 128, .ret_compression = 1 };
	struct pw_opts o = { .seed = 31, .steps = 5000, .p_signal = 10, .p_sigsys = 100 };
	struct pw_result e1, e2;
	struct ptd_ptsynth *a, *b;
	const uint8_t *da, *db;
	size_t na, nb;

	(void)state;
	a = synth(&cfg, &o, &e1);
	o.via_step = 1;
	b = synth(&cfg, &o, &e2);
	da = ptd_ptsynth_data(a, &na);
	db = ptd_ptsynth_data(b, &nb);
	assert_int_equal(na, nb);
	assert_memory_equal(da, db, na);
	free(e1.ips);
	free(e2.ips);
	ptd_ptsynth_free(a);
	ptd_ptsynth_free(b);
}

/* With psb_on_begin, the bytes of each begin..end stretch decode on their
 * own and the pieces add up to the whole run. */
static void test_chunks(void **state)
{
	struct ptd_ptsynth_config cfg = { .psb_period = 512, .ret_compression = 1,
					  .psb_on_begin = 1 };
	struct ptd_image *img = ptd_image_alloc(pw_read, NULL);
	struct ptd_ptsynth *s = ptd_ptsynth_alloc(&cfg);
	struct pw_result exp;
	unsigned k;

	(void)state;
	for (k = 0; k < 5; k++) {
		struct pw_opts o = { .seed = 40 + k, .steps = 700, .p_sigsys = 100 };
		uint8_t *bytes;
		struct got g;
		size_t n;

		/* pw_walk begins at the program start and ends at its last ip,
		 * like a recorder between two stops. */
		assert_int_equal(pw_walk(&o, s, &exp), 0);
		bytes = ptd_ptsynth_take(s, &n);
		assert_non_null(bytes);
		assert_memory_equal(bytes, "\x02\x82\x02\x82", 4);
		assert_int_equal(decode_got(bytes, n, img, &g, NULL), 0);
		assert_same(&exp, &g.r);
		free(g.r.ips);
		free(exp.ips);
		free(bytes);
	}
	ptd_ptsynth_free(s);
	ptd_image_free(img);
}

/* A trace that simply stops (no FUP/TIP.PGD at the end, as a ring snapshot)
 * is cut at the tail pc instead of running on through linear code. */
static void test_tail_cut(void **state)
{
	struct ptd_image *img = ptd_image_alloc(pw_read, NULL);
	unsigned seed;
	int cut_needed = 0;

	(void)state;
	for (seed = 1; seed <= 40; seed++) {
		struct ptd_ptsynth_config cfg = { .psb_period = 256, .ret_compression = 1 };
		struct pw_opts o = { .seed = seed, .steps = 500 + seed * 13, .no_end = 1 };
		struct ptd_history *h = ptd_history_alloc(pw_read, NULL);
		struct pw_result exp, got;
		struct ptd_ptsynth *s = synth(&cfg, &o, &exp);
		struct ptd_pt_trace *t;
		const uint8_t *buf;
		size_t n;

		buf = ptd_ptsynth_data(s, &n);
		t = ptd_pt_trace_alloc(buf, n, img, pw_read, NULL, 0);
		/* Without the tail the decoder may run past the stop. */
		assert_non_null(ptd_pt_trace_newest(t, 0));
		ptd_pt_trace_set_tail(t, exp.end_ip);
		assert_int_equal(ptd_pt_trace_history(t, h, 1, NULL), 0);
		memset(&got, 0, sizeof(got));
		expand_history(h, &got);
		assert_same(&exp, &got);
		{
			struct got g;

			assert_int_equal(decode_got(buf, n, img, &g, NULL), 0);
			cut_needed += g.r.n > exp.n;
			free(g.r.ips);
		}
		free(got.ips);
		free(exp.ips);
		ptd_history_free(h);
		ptd_pt_trace_free(t);
		ptd_ptsynth_free(s);
	}
	assert_true(cut_needed > 0); /* the case arose and was handled */
	ptd_image_free(img);
}

static void test_overflow_one_gap(void **state)
{
	struct ptd_image *img = ptd_image_alloc(pw_read, NULL);
	int period;

	(void)state;
	for (period = 64; period <= 4096; period *= 8) {
		struct ptd_ptsynth_config cfg = { .psb_period = (uint32_t)period, .ret_compression = 1 };
		struct pw_opts o = { .seed = 99, .steps = 3000, .ovf_after = 1500 };
		struct pw_result exp;
		struct ptd_ptsynth *s = synth(&cfg, &o, &exp);
		const uint8_t *buf;
		size_t n, i, gi = 0;
		struct got g;

		assert_int_equal(exp.ngaps, 1);
		buf = ptd_ptsynth_data(s, &n);
		assert_int_equal(decode_got(buf, n, img, &g, NULL), 0);
		assert_int_equal(g.r.ngaps, 1);
		assert_int_equal(g.gap_reason[0], PTD_GAP_OVERFLOW);
		assert_true(g.gap_off[0] > 0 && g.gap_off[0] < n);
		/* The offset is where the decoder stood: just past the OVF
		 * packet (02 f3) and its FUP. */
		assert_non_null(memmem(buf + (g.gap_off[0] > 16 ? g.gap_off[0] - 16 : 0),
				       g.gap_off[0] > 16 ? 16 : g.gap_off[0], "\x02\xf3", 2));
		for (i = 0; i < exp.n; i++)
			if (exp.ips[i] == PW_GAP)
				gi = i;
		assert_true(gi >= 1500);
		assert_int_equal(g.r.ips[gi], PW_GAP);
		assert_same(&exp, &g.r);
		free(exp.ips);
		free(g.r.ips);
		ptd_ptsynth_free(s);
	}
	ptd_image_free(img);
}

static void test_damaged_streams(void **state)
{
	struct ptd_ptsynth_config cfg = { .psb_period = 128, .ret_compression = 1 };
	struct pw_opts o = { .seed = 5, .steps = 6000, .p_signal = 5, .p_sigsys = 100, .p_ovf = 3 };
	struct ptd_image *img = ptd_image_alloc(pw_read, NULL);
	struct pw_result exp;
	struct ptd_ptsynth *s;
	const uint8_t *buf;
	uint8_t *copy;
	unsigned rs = 12345;
	struct got g;
	size_t n;
	int it;

	(void)state;
	s = synth(&cfg, &o, &exp);
	buf = ptd_ptsynth_data(s, &n);
	copy = malloc(n + 4096);
	assert_non_null(copy);
	for (it = 0; it < 240; it++) {
		size_t len = n;
		int k;

		memcpy(copy, buf, n);
		switch (it % 4) {
		case 0: /* cut at a random byte */
			len = pw_rand(&rs) % n;
			break;
		case 1: /* random bytes flipped */
			for (k = 1 + (int)(pw_rand(&rs) % 8); k > 0; k--)
				copy[pw_rand(&rs) % n] ^= (uint8_t)(1 + pw_rand(&rs) % 255);
			break;
		case 2: /* starts mid-stream, as after a ring wrap */
			k = (int)(pw_rand(&rs) % n);
			memmove(copy, copy + k, n - (size_t)k);
			len = n - (size_t)k;
			break;
		case 3: /* random garbage over a stretch */
			k = (int)(pw_rand(&rs) % n);
			for (size_t j = (size_t)k; j < n && j < (size_t)k + 64; j++)
				copy[j] = (uint8_t)pw_rand(&rs);
			break;
		}
		/* Damaged trace may send the decoder anywhere in the code
		 * buffer; blocks must still be well formed. */
		assert_int_equal(decode_got(copy, len, img, &g, NULL), 0);
		assert_true(g.r.n <= 2 * exp.n + 64);
		free(g.r.ips);
		/* Backward (lazy) and forward PSB indexes agree on any bytes. */
		{
			struct ptd_pt_trace *t = ptd_pt_trace_alloc(copy, len, img, NULL, NULL, 2);
			uint64_t *offs;
			size_t no, ns;

			assert_non_null(t);
			ptd_pt_trace_newest(t, 0);
			ns = ptd_pt_trace_nsegs(t);
			assert_int_equal(ptd_pt_index(copy, len, &offs, NULL, &no), 0);
			assert_int_equal(ns, no);
			for (size_t j = 0; j < no; j++) {
				struct ptd_pt_seginfo si;

				assert_int_equal(ptd_pt_trace_seginfo(t, j, &si), 0);
				assert_int_equal(si.offset, offs[j]);
			}
			free(offs);
			ptd_pt_trace_free(t);
		}
	}

	/* Empty: nothing, no error. */
	assert_int_equal(decode_got(copy, 0, img, &g, NULL), 0);
	assert_int_equal(g.r.n, 0);
	/* No PSB: one explicit gap saying so. */
	memset(copy, 0x55, 1000);
	assert_int_equal(decode_got(copy, 1000, img, &g, NULL), 0);
	assert_int_equal(g.r.n, 1);
	assert_int_equal(g.gap_reason[0], PTD_GAP_LOST);
	free(g.r.ips);
	/* Leading zero bytes are skipped silently. */
	memset(copy, 0, 4096);
	memcpy(copy + 4096, buf, n);
	assert_int_equal(decode_got(copy, n + 4096, img, &g, NULL), 0);
	assert_same(&exp, &g.r);
	free(g.r.ips);

	/* Runs of 02 82 pairs of every length and alignment: the lazy index
	 * finds the PSBs the forward scan finds. */
	for (it = 0; it < 200; it++) {
		struct ptd_pt_trace *t;
		uint64_t *offs;
		size_t no, len = 64 + pw_rand(&rs) % 200, j;

		memset(copy, 0x11, len);
		for (int runs = 0; runs < 3; runs++) {
			size_t at = pw_rand(&rs) % len, pairs = pw_rand(&rs) % 40;

			for (j = 0; j < pairs && at + 2 * j + 1 < len; j++) {
				copy[at + 2 * j] = 0x02;
				copy[at + 2 * j + 1] = 0x82;
			}
		}
		t = ptd_pt_trace_alloc(copy, len, img, NULL, NULL, 2);
		assert_int_equal(ptd_pt_index(copy, len, &offs, NULL, &no), 0);
		assert_int_equal(ptd_pt_trace_nsegs(t), no);
		for (j = 0; j < no; j++) {
			struct ptd_pt_seginfo si;

			assert_int_equal(ptd_pt_trace_seginfo(t, j, &si), 0);
			assert_int_equal(si.offset, offs[j]);
		}
		free(offs);
		ptd_pt_trace_free(t);
	}

	/* Mid-stream start: a LOST gap, then exactly the tail of the run. */
	memcpy(copy, buf + 7, n - 7);
	assert_int_equal(decode_got(copy, n - 7, img, &g, NULL), 0);
	assert_true(g.r.n > 2);
	assert_int_equal(g.r.ips[0], PW_GAP);
	assert_int_equal(g.gap_reason[0], PTD_GAP_LOST);
	assert_true(g.r.n - 1 < exp.n);
	assert_memory_equal(g.r.ips + 1, exp.ips + (exp.n - (g.r.n - 1)), (g.r.n - 1) * sizeof(uint64_t));
	free(g.r.ips);

	free(copy);
	free(exp.ips);
	ptd_ptsynth_free(s);
	ptd_image_free(img);
}

static void test_unmapped_code(void **state)
{
	struct ptd_ptsynth_config cfg = { .psb_period = 256, .ret_compression = 1 };
	struct pw_opts o = { .seed = 3, .steps = 2000 };
	struct ptd_image *img = ptd_image_alloc(NULL, NULL); /* no code at all */
	struct pw_result exp;
	struct ptd_ptsynth *s = synth(&cfg, &o, &exp);
	const uint8_t *buf;
	struct got g;
	size_t n;

	(void)state;
	buf = ptd_ptsynth_data(s, &n);
	assert_int_equal(decode_got(buf, n, img, &g, NULL), 0);
	assert_true(g.r.ngaps >= 1);
	assert_int_equal(g.gap_reason[0], PTD_GAP_NO_MEMORY);
	free(g.r.ips);
	free(exp.ips);
	ptd_ptsynth_free(s);
	ptd_image_free(img);
}

static int anon_cb(void *ctx, uint64_t start, uint64_t end, const char *name)
{
	char *seen = ctx;

	assert_true(end > start);
	strcat(seen, name[0] ? name : "(anon)");
	strcat(seen, ";");
	return 0;
}

static void test_image_files(void **state)
{
	char path[] = "/tmp/ptd-test-code-XXXXXX", maps[512];
	struct ptd_ptsynth_config cfg = { .psb_period = 512, .ret_compression = 1 };
	struct pw_opts o = { .seed = 11, .steps = 3000, .p_sigsys = 100 };
	struct ptd_image *img;
	struct pw_result exp;
	struct ptd_ptsynth *s;
	struct pt_errata errata;
	struct ptd_cpu cpu = { 6, 0x3d, 4 }; /* Broadwell: BDM70 applies */
	const uint8_t *buf;
	uint8_t b[4];
	struct got g;
	size_t n;
	int fd;

	(void)state;
	fd = mkstemp(path);
	assert_true(fd >= 0);
	/* The code at file offset 0x200, like a text section. */
	assert_int_equal(pwrite(fd, pw_code, PW_SIZE, 0x200), PW_SIZE);
	close(fd);

	img = ptd_image_alloc(NULL, NULL);
	assert_int_equal(ptd_image_add_file(img, path, 0x200, PW_SIZE, PW_BASE), 0);
	assert_int_equal(ptd_image_add_file(img, "/nonexistent/x", 0, 16, 0x1000), -ptde_sys);
	assert_int_equal(ptd_image_add_file(img, path, 0, 0, 0x1000), -ptde_invalid);
	assert_int_equal(ptd_image_nmaps(img), 1);
	assert_int_equal(ptd_image_read(img, PW_BASE + 3, b, 1), 1);
	assert_int_equal(b[0], 0xe8);
	assert_int_equal(ptd_image_read(img, 0x10, b, 1), -ptde_nomap);
	assert_int_equal(ptd_image_set_cpu(img, &cpu), 0);
	ptd_image_errata(img, &errata);
	assert_int_equal(errata.bdm70, 1);

	s = synth(&cfg, &o, &exp);
	buf = ptd_ptsynth_data(s, &n);
	assert_int_equal(decode_got(buf, n, img, &g, NULL), 0);
	assert_same(&exp, &g.r);
	free(g.r.ips);
	ptd_image_free(img);

	/* The same through a /proc/PID/maps text. */
	img = ptd_image_alloc(NULL, NULL);
	snprintf(maps, sizeof(maps),
		 "00400000-00401000 r--p 00000000 08:01 1234 %s\n"
		 "%08llx-%08llx r-xp 00000200 08:01 1234 %s\n"
		 "7ffd1000-7ffd3000 r-xp 00000000 00:00 0 [vdso]\n"
		 "7ffd5000-7ffd6000 rw-p 00000000 00:00 0\n",
		 path, (unsigned long long)PW_BASE, (unsigned long long)PW_BASE + PW_SIZE, path);
	assert_int_equal(ptd_image_add_maps_text(img, maps), 1);
	assert_int_equal(decode_got(buf, n, img, &g, NULL), 0);
	assert_same(&exp, &g.r);
	free(g.r.ips);
	{
		char seen[256] = "";

		assert_int_equal(ptd_image_foreach_anon(maps, anon_cb, seen), 1);
		assert_string_equal(seen, "[vdso];");
	}
	assert_int_equal(ptd_image_add_maps_text(img, "not a maps line\n"), -ptde_bad_trace);
	assert_int_equal(ptd_image_add_maps_text(img, "5000-4000 r-xp 0 08:01 1 /x\n"), -ptde_bad_trace);
	assert_true(ptd_image_add_maps(img, getpid()) >= 1); /* at least this test binary */
	ptd_image_free(img);
	ptd_image_free(NULL);

	free(exp.ips);
	ptd_ptsynth_free(s);
	unlink(path);
}

static void test_index(void **state)
{
	struct ptd_ptsynth_config cfg = { .psb_period = 100, .ret_compression = 1, .tsc = 1 };
	struct pw_opts o = { .seed = 2, .steps = 2000 };
	struct pw_result exp;
	struct ptd_ptsynth *s = synth(&cfg, &o, &exp);
	uint64_t *off, *ips;
	const uint8_t *buf;
	size_t n, np, i;

	(void)state;
	buf = ptd_ptsynth_data(s, &n);
	assert_int_equal(ptd_pt_index(buf, n, &off, &ips, &np), 0);
	assert_true(np > 5);
	assert_int_equal(off[0], 0);
	assert_int_equal(ips[0], 0); /* tracing not yet enabled at the first PSB */
	for (i = 1; i < np; i++) {
		assert_true(off[i] > off[i - 1]);
		assert_memory_equal(buf + off[i], "\x02\x82\x02\x82", 4);
		/* Each PSB+ FUP is an instruction (0: written while disabled). */
		assert_true(ips[i] == 0 || pw_find(ips[i]) != NULL);
	}
	free(off);
	free(ips);
	assert_int_equal(ptd_pt_index(buf, 10, &off, NULL, &np), 0);
	assert_int_equal(np, 0);
	free(off);
	free(exp.ips);
	ptd_ptsynth_free(s);
}

/* Expands every block item of @h (gaps as PW_GAP). */
static void expand_history(const struct ptd_history *h, struct pw_result *r)
{
	uint64_t i, n = ptd_history_nitems(h);

	for (i = 0; i < n; i++) {
		struct ptd_item it;

		assert_int_equal(ptd_history_item(h, i, &it), 1);
		if (it.kind == PTD_ITEM_BLOCK)
			assert_int_equal(pw_expand(r, it.block.ip, it.block.end_ip, it.block.ninsn), 0);
		else if (it.kind == PTD_ITEM_GAP)
			pw_push(r, PW_GAP);
	}
}

static void test_lazy_segments(void **state)
{
	struct ptd_ptsynth_config cfg = { .psb_period = 200, .ret_compression = 1 };
	struct pw_opts o = { .seed = 21, .steps = 8000, .p_signal = 5, .p_sigsys = 50,
			     .ovf_after = 5000 };
	struct ptd_image *img = ptd_image_alloc(pw_read, NULL);
	struct ptd_pt_trace *t;
	struct ptd_history *hs, *hp;
	struct ptd_pt_stats st, stp;
	struct pw_result exp, cat, full;
	struct ptd_ptsynth *s = synth(&cfg, &o, &exp);
	const uint8_t *buf;
	const struct ptd_history *newest;
	size_t n, nseg, i, ncached = 0, noffs;
	uint64_t num, expect_num = 1, *offs;
	int depth, expect_depth = 0;

	(void)state;
	buf = ptd_ptsynth_data(s, &n);
	t = ptd_pt_trace_alloc(buf, n, img, pw_read, NULL, 3);
	assert_non_null(t);
	/* Newest first, as at a stop, before anything else is indexed. */
	newest = ptd_pt_trace_newest(t, 0);
	assert_non_null(newest);
	assert_non_null(ptd_pt_trace_newest(t, 1));
	assert_true(ptd_pt_trace_has_newest(t, 5));
	nseg = ptd_pt_trace_nsegs(t);
	assert_true(ptd_pt_trace_has_newest(t, nseg - 1));
	assert_false(ptd_pt_trace_has_newest(t, nseg));
	assert_false(ptd_pt_trace_has_newest(NULL, 0));
	assert_true(nseg > 10);
	assert_int_equal(ptd_pt_trace_lost(t), 0);
	assert_ptr_equal(ptd_pt_trace_newest(t, 0), ptd_pt_trace_segment(t, nseg - 1));
	assert_null(ptd_pt_trace_newest(t, nseg));
	/* The backward index agrees with the forward scan. */
	assert_int_equal(ptd_pt_index(buf, n, &offs, NULL, &noffs), 0);
	assert_int_equal(noffs, nseg);
	for (i = 0; i < nseg; i++) {
		struct ptd_pt_seginfo si;

		assert_int_equal(ptd_pt_trace_seginfo(t, i, &si), 0);
		assert_int_equal(si.offset, offs[i]);
	}
	free(offs);

	/* Nothing older was decoded for that. */
	for (i = 0; i + 2 < nseg; i++) {
		struct ptd_pt_seginfo si;

		assert_int_equal(ptd_pt_trace_seginfo(t, i, &si), 0);
		assert_int_equal(si.decoded, 0);
	}

	/* Segments concatenated in order are exactly the run. */
	memset(&cat, 0, sizeof(cat));
	for (i = 0; i < nseg; i++) {
		const struct ptd_history *h = ptd_pt_trace_segment(t, i);
		struct ptd_pt_seginfo si;

		assert_non_null(h);
		expand_history(h, &cat);
		assert_int_equal(ptd_pt_trace_seginfo(t, i, &si), 0);
		assert_int_equal(si.decoded, 1);
		assert_int_equal(si.count, ptd_history_count(h));
		assert_int_equal(ptd_pt_trace_position(t, i, &num, &depth), 0);
		assert_int_equal(num, expect_num);
		assert_int_equal(depth, expect_depth);
		expect_num += si.count;
		expect_depth += si.depth_delta;
	}
	assert_same(&exp, &cat);
	for (i = 0; i < nseg; i++) {
		struct ptd_pt_seginfo si;

		ptd_pt_trace_seginfo(t, i, &si);
		ncached += si.cached;
	}
	assert_true(ncached <= 3);
	assert_null(ptd_pt_trace_segment(t, nseg));

	/* Whole history, serial and parallel: identical item by item. */
	hs = ptd_history_alloc(pw_read, NULL);
	hp = ptd_history_alloc(pw_read, NULL);
	assert_int_equal(ptd_pt_trace_history(t, hs, 1, &st), 0);
	ptd_pt_trace_free(t);
	t = ptd_pt_trace_alloc(buf, n, img, pw_read, NULL, 0);
	assert_int_equal(ptd_pt_trace_history(t, hp, 2, &stp), 0);
	assert_same_items(hs, hp);
	/* Every segment a batch of its own: many splices, and workers held
	 * back by the look-ahead bound; three threads. */
	{
		struct ptd_history *h3 = ptd_history_alloc(pw_read, NULL);
		struct ptd_pt_trace *t3 = ptd_pt_trace_alloc(buf, n, img, pw_read, NULL, 0);
		struct ptd_pt_stats st3;

		ptd__pt_set_batch_bytes(1);
		assert_int_equal(ptd_pt_trace_history(t3, h3, 3, &st3), 0);
		ptd__pt_set_batch_bytes(0);
		assert_int_equal(st3.ninsn, st.ninsn);
		assert_int_equal(st3.depth_delta, st.depth_delta);
		assert_same_items(hs, h3);
		ptd_history_free(h3);
		ptd_pt_trace_free(t3);
	}
	assert_int_equal(st.ninsn, stp.ninsn);
	assert_int_equal(st.ninsn + 1, exp.n); /* one overflow gap */
	assert_int_equal(ptd_history_ninsn(hs), st.ninsn);
	memset(&full, 0, sizeof(full));
	expand_history(hp, &full);
	assert_same(&exp, &full);
	assert_int_equal(st.end_ip, exp.end_ip);

	ptd_history_free(hs);
	ptd_history_free(hp);
	ptd_pt_trace_free(t);
	free(cat.ips);
	free(full.ips);
	free(exp.ips);
	ptd_ptsynth_free(s);
	ptd_image_free(img);
}

static void test_decode_history(void **state)
{
	struct ptd_ptsynth_config cfg = { .psb_period = 4096, .ret_compression = 0 };
	struct pw_opts o = { .seed = 8, .steps = 1000 };
	struct ptd_image *img = ptd_image_alloc(pw_read, NULL);
	struct ptd_history *h = ptd_history_alloc(ptd_image_read, img);
	struct pw_result exp, got;
	struct ptd_ptsynth *s = synth(&cfg, &o, &exp);
	struct ptd_hcursor c;
	const uint8_t *buf;
	size_t n, i;

	(void)state;
	buf = ptd_ptsynth_data(s, &n);
	assert_int_equal(ptd_pt_decode_history(buf, n, img, h, NULL), 0);
	memset(&got, 0, sizeof(got));
	expand_history(h, &got);
	assert_same(&exp, &got);
	/* The history enumerates the same instructions through the image. */
	assert_int_equal(ptd_history_ninsn(h), exp.n);
	assert_int_equal(ptd_hcursor_goto(&c, h, 1), 0);
	for (i = 0; i < exp.n; i++) {
		assert_int_equal(c.ip, exp.ips[i]);
		if (i + 1 < exp.n)
			assert_int_equal(ptd_hcursor_next(&c), 0);
	}
	assert_int_equal(ptd_pt_decode_history(buf, n, img, NULL, NULL), -ptde_invalid);
	free(got.ips);
	free(exp.ips);
	ptd_history_free(h);
	ptd_ptsynth_free(s);
	ptd_image_free(img);
}

static int loop_read(void *ctx, uint64_t addr, uint8_t *buf, size_t n)
{
	(void)ctx;
	if (addr < 0x500000 || addr >= 0x500010)
		return -1;
	for (size_t i = 0; i < n; i++)
		buf[i] = ((addr + i) & 1) ? 0xfe : 0xeb; /* jmp . everywhere */
	return (int)(n < 0x500010 - addr ? n : 0x500010 - addr);
}

/* A trace that leads into "jmp ." never consumes trace again; the decoder
 * must give up with a gap instead of looping forever. */
/* gdb numbering for hardware traces: with disabled gaps on, every place
 * where tracing came back elsewhere than where it stopped (signal handler
 * entry, sigreturn) is a "disabled" gap; otherwise the same instructions.
 * Off (ptdbg's own recordings), there are none. */
static void test_disabled_gaps(void **state)
{
	struct ptd_image *img = ptd_image_alloc(pw_read, NULL);
	struct ptd_ptsynth_config cfg = { .psb_period = 256, .ret_compression = 1 };
	struct pw_opts o = { .seed = 77, .steps = 6000, .p_signal = 8, .p_sigsys = 150 };
	struct pw_result exp;
	struct ptd_ptsynth *s = synth(&cfg, &o, &exp);
	struct ptd_history *off = ptd_history_alloc(pw_read, NULL), *on = ptd_history_alloc(pw_read, NULL);
	struct ptd_pt_trace *t;
	struct ptd_hcursor a, b;
	const uint8_t *buf;
	size_t n;
	uint64_t ngaps = 0;
	int mode;

	(void)state;
	assert_true(exp.nsignals >= 3);
	buf = ptd_ptsynth_data(s, &n);
	for (mode = 0; mode < 2; mode++) {
		t = ptd_pt_trace_alloc(buf, n, img, pw_read, NULL, 0);
		ptd_pt_trace_set_disabled_gaps(t, mode);
		assert_int_equal(ptd_pt_trace_history(t, mode ? on : off, mode + 1, NULL), 0);
		ptd_pt_trace_free(t);
	}
	/* Walk both: the same instructions; the gaps only in "on", each right
	 * before a handler entry (0xa0) or a sigreturn's resumption. */
	assert_int_equal(ptd_hcursor_goto(&a, off, 1), 0);
	assert_int_equal(ptd_hcursor_goto(&b, on, 1), 0);
	for (;;) {
		assert_false(a.is_gap);
		if (b.is_gap) {
			assert_int_equal(b.gap_reason, PTD_GAP_DISABLED);
			ngaps++;
			assert_int_equal(ptd_hcursor_next(&b), 0);
			assert_false(b.is_gap);
		}
		assert_int_equal(a.ip, b.ip);
		if (ptd_hcursor_next(&a) < 0)
			break;
		assert_int_equal(ptd_hcursor_next(&b), 0);
	}
	assert_int_equal(ptd_history_count(on), ptd_history_count(off) + ngaps);
	/* every signal entry is one; sigreturns add at most as many */
	assert_true(ngaps >= (uint64_t)exp.nsignals);
	assert_true(ngaps <= 2 * (uint64_t)exp.nsignals);
	ptd_history_free(off);
	ptd_history_free(on);
	free(exp.ips);
	ptd_ptsynth_free(s);
	ptd_image_free(img);
}

/* The lazy history: counted segments decoded again on demand, at most a
 * few at a time, give the same instructions, gaps (with their messages)
 * and numbers as the history built eagerly, serially or in parallel, read
 * in any order. */
static void test_lazy_history(void **state)
{
	char path[] = "/tmp/ptd-test-lazy-XXXXXX";
	int fd = mkstemp(path);
	struct ptd_image *img = ptd_image_alloc(NULL, NULL);
	struct ptd_ptsynth_config cfg = { .psb_period = 300, .ret_compression = 1 };
	struct pw_opts o = { .seed = 4242, .steps = 20000, .p_signal = 4, .p_sigsys = 80,
			     .ovf_after = 9000 };
	struct pw_result exp, ea, la;
	struct ptd_ptsynth *s = synth(&cfg, &o, &exp);
	struct ptd_history *eager = ptd_history_alloc(pw_read, NULL);
	struct ptd_pt_trace *te, *tl;
	struct ptd_pt_stats st;
	const uint8_t *buf;
	size_t n;
	int mode;

	(void)state;
	/* Code from a file, so libipt's block cache is used: it splits blocks
	 * differently from one decode to the next, and a part decoded again
	 * must still have the items it was counted with. */
	assert_true(fd >= 0);
	assert_int_equal(pwrite(fd, pw_code, PW_SIZE, 0), PW_SIZE);
	close(fd);
	assert_int_equal(ptd_image_add_file(img, path, 0, PW_SIZE, PW_BASE), 0);
	buf = ptd_ptsynth_data(s, &n);
	te = ptd_pt_trace_alloc(buf, n, img, pw_read, NULL, 0);
	ptd_pt_trace_set_disabled_gaps(te, 1);
	assert_int_equal(ptd_pt_trace_history(te, eager, 1, NULL), 0);
	memset(&ea, 0, sizeof(ea));
	expand_history(eager, &ea);
	for (mode = 0; mode < 2; mode++) {
		struct ptd_history *lazy = ptd_history_alloc(pw_read, NULL);
		struct ptd_hcursor a, b;
		uint64_t num, count, k, seed = 9;

		tl = ptd_pt_trace_alloc(buf, n, img, pw_read, NULL, 0);
		ptd_pt_trace_set_disabled_gaps(tl, 1);
		ptd_pt_trace_set_lazy_history(tl, 2);
		ptd__pt_set_store_max(0); /* lazy however small */
		if (mode)
			ptd__pt_set_batch_bytes(1);
		assert_int_equal(ptd_pt_trace_history(tl, lazy, mode ? 2 : 1, &st), 0);
		ptd__pt_set_batch_bytes(0);
		ptd__pt_set_store_max(PTD_PT_STORE_MAX);
		assert_true(ptd_pt_trace_nsegs(tl) > 20);
		count = ptd_history_count(lazy);
		assert_int_equal(count, ptd_history_count(eager));
		assert_int_equal(ptd_history_ninsn(lazy), ptd_history_ninsn(eager));
		assert_int_equal(st.ninsn, ptd_history_ninsn(eager));
		/* nothing decoded yet: about the PT's size, far below eager */
		assert_true(ptd_history_bytes(lazy) < ptd_history_bytes(eager));
		/* random access, with only two segments kept decoded */
		for (k = 0; k < 400; k++) {
			seed = seed * 6364136223846793005ull + 1442695040888963407ull;
			num = 1 + (seed >> 33) % count;
			assert_int_equal(ptd_hcursor_goto(&a, eager, num), 0);
			assert_int_equal(ptd_hcursor_goto(&b, lazy, num), 0);
			assert_int_equal(a.is_gap, b.is_gap);
			assert_int_equal(a.ip, b.ip);
			if (a.is_gap) {
				struct ptd_item x, y;

				assert_int_equal(a.gap_reason, b.gap_reason);
				assert_int_equal(ptd_history_item(eager, a.item_index, &x), 1);
				assert_int_equal(ptd_history_item(lazy, b.item_index, &y), 1);
				assert_int_equal(x.arg, y.arg);
				assert_true((ptd_history_detail(eager, x.detail) == NULL) ==
					    (ptd_history_detail(lazy, y.detail) == NULL));
				if (x.detail)
					assert_string_equal(ptd_history_detail(eager, x.detail),
							    ptd_history_detail(lazy, y.detail));
			}
			if (num > 1) {
				assert_int_equal(ptd_hcursor_prev(&a), 0);
				assert_int_equal(ptd_hcursor_prev(&b), 0);
				assert_int_equal(a.ip, b.ip);
			}
		}
		/* and the whole of it in order */
		memset(&la, 0, sizeof(la));
		expand_history(lazy, &la);
		assert_int_equal(la.ngaps, ea.ngaps);
		assert_same(&ea, &la);
		free(la.ips);
		ptd_history_free(lazy);
		ptd_pt_trace_free(tl);
	}
	assert_true(st.ngaps >= 2); /* the overflow and the signals' gaps */
	free(ea.ips);
	free(exp.ips);
	ptd_history_free(eager);
	ptd_pt_trace_free(te);
	ptd_ptsynth_free(s);
	ptd_image_free(img);
	unlink(path);
}

/*
 * `ptdbg --load` of a trace whose history is lazy (counted in two threads,
 * parts of one PSB segment): the call segments built from the call log
 * that counting wrote, and the count info record prints, equal those
 * built by walking the decoded items.
 */
static void test_session_call_log(void **state)
{
	char path[] = "/tmp/ptd-test-calllog-XXXXXX", dir[] = "/tmp/ptd-test-calllogb-XXXXXX";
	char cmd[128];
	int fd = mkstemp(path);
	struct ptd_ptsynth_config cfg = {.psb_period = 300, .ret_compression = 1};
	struct pw_opts o = {.seed = 77, .steps = 20000, .p_signal = 4, .p_sigsys = 80,
			    .ovf_after = 9000};
	struct pw_result exp;
	struct ptd_ptsynth *s = synth(&cfg, &o, &exp);
	struct ptd_cpu cpu = {0};
	struct ptd_bundle *b = ptd_bundle_new(&cpu);
	struct ptd_session *ses = ptd_session_alloc();
	struct ptd_record_info ri;
	const struct ptd_history *h;
	const struct ptd_calls *c;
	struct ptd_calls *ref;
	uint64_t i, covered = 0;
	const uint8_t *buf;
	size_t n;

	(void)state;
	assert_true(fd >= 0);
	assert_int_equal(pwrite(fd, pw_code, PW_SIZE, 0), PW_SIZE);
	close(fd);
	buf = ptd_ptsynth_data(s, &n);
	assert_non_null(b);
	assert_non_null(ses);
	assert_non_null(mkdtemp(dir));
	assert_int_equal(ptd_bundle_add_map(b, path, 0, PW_SIZE, PW_BASE), 0);
	assert_int_equal(ptd_bundle_add_thread(b, 1, buf, n, 0), 0);
	assert_int_equal(ptd_bundle_save(b, dir), 0);
	ptd__pt_set_store_max(0); /* lazy however small */
	ptd__pt_set_batch_bytes(1);
	assert_int_equal(ptd_session_load(ses, dir), 0);
	assert_int_equal(ptd_session_record_info(ses, &ri), 0);
	ptd__pt_set_batch_bytes(0);
	ptd__pt_set_store_max(PTD_PT_STORE_MAX);
	h = ptd_session_history(ses);
	assert_non_null(h);
	assert_non_null(ptd__history_calllog(h, &covered));
	assert_true(covered > ptd_history_nitems(h) / 2);
	ref = ptd__calls_build_items(h, ptd__ses_env_func_of, ses);
	assert_non_null(ref);
	assert_true(ptd_calls_count(ref) > 100);
	assert_int_equal(ri.ncalls, ptd_calls_count(ref));
	c = ptd_session_calls(ses);
	assert_non_null(c);
	assert_int_equal(ptd_calls_count(c), ptd_calls_count(ref));
	for (i = 1; i <= ptd_calls_count(ref); i++)
		assert_memory_equal(ptd_calls_get(c, i), ptd_calls_get(ref, i),
				    sizeof(struct ptd_callseg));
	ptd_calls_free(ref);
	ptd_session_free(ses);
	ptd_bundle_free(b);
	ptd_ptsynth_free(s);
	free(exp.ips);
	unlink(path);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
}

static void test_endless_loop(void **state)
{
	struct ptd_ptsynth *s = ptd_ptsynth_alloc(NULL);
	struct ptd_image *img = ptd_image_alloc(loop_read, NULL);
	const uint8_t *buf;
	struct got g;
	size_t n;

	(void)state;
	assert_int_equal(ptd_ptsynth_begin(s, 0x500000), 0);
	assert_int_equal(ptd_ptsynth_end(s, 0x500002), 0); /* never reached */
	buf = ptd_ptsynth_data(s, &n);
	assert_int_equal(decode_got(buf, n, img, &g, NULL), 0);
	assert_true(g.r.ngaps >= 1);
	assert_int_equal(g.gap_reason[0], PTD_GAP_DECODE_ERROR);
	free(g.r.ips);
	ptd_image_free(img);
	ptd_ptsynth_free(s);
}

static void rm_rf(const char *dir)
{
	char cmd[600];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
}

static void test_bundle_roundtrip(void **state)
{
	char dir[] = "/tmp/ptd-bundle-XXXXXX", code[600], man[600];
	struct ptd_ptsynth_config cfg = { .psb_period = 300, .ret_compression = 1 };
	struct pw_opts o = { .seed = 17, .steps = 3000, .p_sigsys = 50 };
	struct ptd_cpu cpu = { 6, 0x8e, 9 };
	struct ptd_bundle *b, *l;
	struct ptd_image *img;
	struct pw_result exp;
	struct ptd_ptsynth *s = synth(&cfg, &o, &exp);
	const uint8_t *buf;
	struct got g;
	size_t n;
	FILE *f;

	(void)state;
	assert_non_null(mkdtemp(dir));
	buf = ptd_ptsynth_data(s, &n);
	/* The code as an "ELF" file outside the bundle (absolute path) and
	 * a second copy as a memory dump inside it. */
	snprintf(code, sizeof(code), "%s.code", dir);
	f = fopen(code, "w");
	assert_non_null(f);
	assert_int_equal(fwrite(pw_code, 1, PW_SIZE, f), PW_SIZE);
	fclose(f);

	b = ptd_bundle_new(&cpu);
	assert_non_null(b);
	assert_int_equal(ptd_bundle_add_map(b, code, 0x80, PW_SIZE - 0x80, PW_BASE + 0x80), 0);
	assert_int_equal(ptd_bundle_add_memory(b, PW_BASE, pw_code, 0x80), 0);
	assert_int_equal(ptd_bundle_add_thread(b, 4242, buf, n, exp.end_ip), 0);
	assert_int_equal(ptd_bundle_add_thread(b, 4243, NULL, 0, 0), 0);
	assert_int_equal(ptd_bundle_add_thread(b, 4242, buf, n, 0), -ptde_invalid);
	assert_int_equal(ptd_bundle_add_thread(b, 0, buf, n, 0), -ptde_invalid);
	assert_int_equal(ptd_bundle_add_map(b, "a\nb", 0, 1, 0), -ptde_invalid);
	assert_int_equal(ptd_bundle_add_map(b, code, 0, 0, 0), -ptde_invalid);
	assert_int_equal(ptd_bundle_save(b, dir), 0);
	ptd_bundle_free(b);

	assert_int_equal(ptd_bundle_load(dir, &l), 0);
	assert_int_equal(l->cpu.family, 6);
	assert_int_equal(l->cpu.model, 0x8e);
	assert_int_equal(l->cpu.stepping, 9);
	assert_int_equal(l->nmaps, 2);
	assert_string_equal(l->maps[0].path, code);
	assert_int_equal(l->maps[0].offset, 0x80);
	assert_int_equal(l->maps[1].vaddr, PW_BASE);
	assert_int_equal(l->nthreads, 2);
	assert_int_equal(l->threads[0].tid, 4242);
	assert_int_equal(l->threads[0].tail_pc, exp.end_ip);
	assert_int_equal(l->threads[0].size, n);
	assert_memory_equal(l->threads[0].pt, buf, n);
	assert_int_equal(l->threads[1].size, 0);

	img = ptd_bundle_image(l, NULL, NULL);
	assert_non_null(img);
	assert_int_equal(decode_got(l->threads[0].pt, l->threads[0].size, img, &g, NULL), 0);
	assert_same(&exp, &g.r);
	free(g.r.ips);
	ptd_image_free(img);
	ptd_bundle_free(l);

	/* A missing PT file and a missing code file are clear errors. */
	snprintf(man, sizeof(man), "%s/pt-4243.bin", dir);
	assert_int_equal(unlink(man), 0);
	assert_int_equal(ptd_bundle_load(dir, &l), -ptde_sys);
	assert_null(l);
	assert_non_null(strstr(ptd_last_error(-ptde_sys), "pt-4243.bin"));
	assert_int_equal(ptd_bundle_load("/nonexistent-dir", &l), -ptde_sys);
	unlink(code);
	{
		static const char m[] = "ptdbg-bundle 1\ncpu 0 0 0\nthread 1 x 0x0\n"
					"map 0x0 0x10 0x1000 /nonexistent/file\n";

		assert_int_equal(ptd_bundle_parse(m, sizeof(m) - 1, dir, &l), 0);
	}
	assert_null(ptd_bundle_image(l, NULL, NULL));
	ptd_bundle_free(l);

	rm_rf(dir);
	free(exp.ips);
	ptd_ptsynth_free(s);
}

static void test_bundle_malformed(void **state)
{
	static const char *const bad[] = {
		"",
		"# only a comment\n",
		"hello\n",
		"ptdbg-bundle 2\ncpu 6 142 9\nthread 1 pt 0x0\n",
		"ptdbg-bundle 1\nthread 1 pt 0x0\n",
		"ptdbg-bundle 1\ncpu 6 142 9\n",
		"ptdbg-bundle 1\ncpu 6 300 1\nthread 1 pt 0x0\n",
		"ptdbg-bundle 1\ncpu x y z\nthread 1 pt 0x0\n",
		"ptdbg-bundle 1\ncpu 6 142\nthread 1 pt 0x0\n",
		"ptdbg-bundle 1\ncpu 6 142 9 1\nthread 1 pt 0x0\n",
		"ptdbg-bundle 1\ncpu 6 142 9\ncpu 6 142 9\nthread 1 pt 0x0\n",
		"ptdbg-bundle 1\ncpu 99999 1 1\nthread 1 pt 0x0\n",
		"ptdbg-bundle 1\ncpu 6 142 9\nmap 0x0 0x10 0x1000\nthread 1 pt 0x0\n",
		"ptdbg-bundle 1\ncpu 6 142 9\nmap 10 0x10 0x1000 a\nthread 1 pt 0x0\n",
		"ptdbg-bundle 1\ncpu 6 142 9\nmap 0x 0x10 0x1000 a\nthread 1 pt 0x0\n",
		"ptdbg-bundle 1\ncpu 6 142 9\nmap 0x0 0x0 0x1000 a\nthread 1 pt 0x0\n",
		"ptdbg-bundle 1\ncpu 6 142 9\nmap 0x0 0x10 0xfffffffffffffff8 a\nthread 1 pt 0x0\n",
		"ptdbg-bundle 1\ncpu 6 142 9\nmap 0x0 0x10 0x10000000000000000 a\nthread 1 pt 0x0\n",
		"ptdbg-bundle 1\ncpu 6 142 9\nmap 0x0 0x10 0x1000 ../etc/passwd\nthread 1 pt 0x0\n",
		"ptdbg-bundle 1\ncpu 6 142 9\nmap 0x0 0x10 0x1000 a/../../b\nthread 1 pt 0x0\n",
		"ptdbg-bundle 1\ncpu 6 142 9\nthread 0 pt 0x0\n",
		"ptdbg-bundle 1\ncpu 6 142 9\nthread -1 pt 0x0\n",
		"ptdbg-bundle 1\ncpu 6 142 9\nthread 99999999999 pt 0x0\n",
		"ptdbg-bundle 1\ncpu 6 142 9\nthread 5 pt\n",
		"ptdbg-bundle 1\ncpu 6 142 9\nthread 5 pt 0x0 extra\n",
		"ptdbg-bundle 1\ncpu 6 142 9\nthread 5 pt 12\n",
		"ptdbg-bundle 1\ncpu 6 142 9\nthread 5 /etc/passwd 0x0\n",
		"ptdbg-bundle 1\ncpu 6 142 9\nthread 5 ../pt 0x0\n",
		"ptdbg-bundle 1\ncpu 6 142 9\nthread 5 a 0x0\nthread 5 b 0x0\n",
		"ptdbg-bundle 1\ncpu 6 142 9\nbogus 1 2\nthread 1 pt 0x0\n",
	};
	struct ptd_bundle *b;
	char *big;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int err = ptd_bundle_parse(bad[i], strlen(bad[i]), "/b", &b);

		if (err != -ptde_bad_trace)
			fail_msg("case %zu accepted (%d): %s", i, err, bad[i]);
		assert_null(b);
		assert_non_null(strstr(ptd_last_error(err), "/b/manifest"));
	}
	/* A NUL byte inside a line. */
	assert_int_equal(ptd_bundle_parse("ptdbg-bundle 1\ncpu 6\0 1 1\n", 25, "/b", &b),
			 -ptde_bad_trace);
	assert_non_null(strstr(ptd_last_error(0), "manifest:2"));
	/* A line too long. */
	big = malloc(20000);
	memset(big, 'x', 20000);
	memcpy(big, "ptdbg-bundle 1\n", 15);
	assert_int_equal(ptd_bundle_parse(big, 20000, "/b", &b), -ptde_bad_trace);
	free(big);
	/* Good: comments, blank lines, CRLF, tabs, spaces in a map path. */
	{
		static const char ok[] = "ptdbg-bundle 1\r\n\n# c\ncpu\t6 142 9\n"
					 "map 0x10 0x20 0x401000 dir/a file\n"
					 "map 0x0 0x1 0x7fff0000 /abs/x\n"
					 "thread 12 pt-12.bin 0x401005\n";

		assert_int_equal(ptd_bundle_parse(ok, sizeof(ok) - 1, "/b", &b), 0);
		assert_int_equal(b->nmaps, 2);
		assert_string_equal(b->maps[0].path, "/b/dir/a file");
		assert_int_equal(b->maps[0].offset, 0x10);
		assert_int_equal(b->maps[0].size, 0x20);
		assert_string_equal(b->maps[1].path, "/abs/x");
		assert_int_equal(b->threads[0].tid, 12);
		assert_int_equal(b->threads[0].tail_pc, 0x401005);
		ptd_bundle_free(b);
	}
	assert_int_equal(ptd_bundle_parse(NULL, 0, "/b", &b), -ptde_invalid);
	assert_int_equal(ptd_bundle_load(NULL, &b), -ptde_invalid);
	ptd_bundle_free(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_roundtrip),
		cmocka_unit_test(test_step_same_bytes),
		cmocka_unit_test(test_chunks),
		cmocka_unit_test(test_tail_cut),
		cmocka_unit_test(test_overflow_one_gap),
		cmocka_unit_test(test_damaged_streams),
		cmocka_unit_test(test_unmapped_code),
		cmocka_unit_test(test_image_files),
		cmocka_unit_test(test_index),
		cmocka_unit_test(test_lazy_segments),
		cmocka_unit_test(test_decode_history),
		cmocka_unit_test(test_endless_loop),
		cmocka_unit_test(test_disabled_gaps),
		cmocka_unit_test(test_lazy_history),
		cmocka_unit_test(test_session_call_log),
		cmocka_unit_test(test_bundle_roundtrip),
		cmocka_unit_test(test_bundle_malformed),
	};

	return cmocka_run_group_tests(tests, setup, NULL);
}
