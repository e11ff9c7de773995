/*
 * The lazily materialised call-segment view (src/history/calls.c): a view
 * that keeps only a checkpoint per chunk of segments and the later writes
 * to them gives, segment by segment, what the eager build that keeps every
 * segment gives.  The histories are lazy PT histories (PSB segments decoded
 * again on demand, with their call log) of random walks over a small
 * program with signals, sigreturns, overflows, IP filtering and PSB periods
 * down to the smallest, so chunks start anywhere (inside a part, at a seam,
 * at a gap); the chunks are made as small as one segment; the segments are
 * read forward, backward, in random ranges and by instruction number; and
 * histories that start deep inside a recursion (orphans, negative levels,
 * callers made by the returns) and histories whose call log covers only
 * their first half are checked the same way.  A view of a
 * history changed since it was built fails with a message.
 */
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "decode/image.h"
#include "decode/pt.h"
#include "history/history_int.h"
#include "util/error.h"
#include "ptwalk.h"

/* The walker's program by function: main (with its labels), f, g, h. */
static uint64_t func_prog(void *ctx, uint64_t addr)
{
	(void)ctx;
	if (addr < PW_BASE || addr >= PW_BASE + PW_SIZE)
		return 0;
	if (addr < PW_BASE + 0x60)
		return PW_BASE;
	if (addr < PW_BASE + 0x80)
		return PW_BASE + 0x60;
	if (addr < PW_BASE + 0xa0)
		return PW_BASE + 0x80;
	return PW_BASE + 0xa0;
}

/* 64-byte functions: L2 (0x40) is one of its own, so main's jumps to it
 * and back switch functions. */
static uint64_t func64(void *ctx, uint64_t addr)
{
	(void)ctx;
	return addr >= 0x1000 ? addr & ~0x3full : 0;
}

static unsigned rs = 4242;

static unsigned rnd(void)
{
	rs = rs * 1103515245u + 12345u;
	return (rs >> 8) & 0xffffff;
}

static void same_seg(const struct ptd_callseg *a, const struct ptd_callseg *b, const char *what,
		     uint64_t i)
{
	if (!a || !b)
		fail_msg("%s: segment %" PRIu64 " missing (%s): %s", what, i, a ? "lazy" : "eager",
			 ptd_last_error(-1));
	if (memcmp(a, b, sizeof(*a)))
		fail_msg("%s: segment %" PRIu64 " differs: index %" PRIu64 "/%" PRIu64
			 " first %" PRIu64 "/%" PRIu64 " last %" PRIu64 "/%" PRIu64
			 " level %d/%d up %" PRIu64 "/%" PRIu64 " next_same %" PRIu64 "/%" PRIu64,
			 what, i, a->index, b->index, a->first, b->first, a->last, b->last, a->level,
			 b->level, a->up, b->up, a->next_same, b->next_same);
}

/* Every way of reading @lazy gives what @eager holds. */
static void compare(const struct ptd_calls *lazy, const struct ptd_calls *eager, uint64_t count,
		    const char *what)
{
	uint64_t n = ptd_calls_count(eager), i, k, last;

	if (ptd_calls_count(lazy) != n)
		fail_msg("%s: %" PRIu64 " segments, not %" PRIu64, what, ptd_calls_count(lazy), n);
	assert_int_equal(ptd_calls_min_level(lazy), ptd_calls_min_level(eager));
	assert_null(ptd_calls_get(lazy, 0));
	assert_null(ptd_calls_get(lazy, n + 1));
	if (!n)
		return;
	for (i = 1; i <= n; i++) /* forward */
		same_seg(ptd_calls_get(lazy, i), ptd_calls_get(eager, i), what, i);
	for (i = n; i >= 1; i--) /* backward */
		same_seg(ptd_calls_get(lazy, i), ptd_calls_get(eager, i), what, i);
	for (k = 0; k < 24; k++) { /* random ranges, either way */
		uint64_t a = 1 + rnd() % n, len = 1 + rnd() % (n < 3000 ? n : 3000), j;
		int back = rnd() & 1;

		for (j = 0; j < len && a + j <= n; j++) {
			i = back ? n + 1 - (a + j) : a + j;
			same_seg(ptd_calls_get(lazy, i), ptd_calls_get(eager, i), what, i);
		}
	}
	/* by instruction number: every number at the ends of the segments
	 * and random ones, the tail's and one past it */
	last = ptd_calls_get(eager, n)->last;
	for (k = 0; k < 400; k++) {
		uint64_t num = k < 200 ? ptd_calls_get(eager, 1 + rnd() % n)->first + (k & 1) : rnd() % (last + 2);
		const struct ptd_callseg *a = ptd_calls_find(lazy, num), *b = ptd_calls_find(eager, num);

		if (!a != !b)
			fail_msg("%s: number %" PRIu64 ": found %s", what, num, a ? "lazy only" : "eager only");
		if (a)
			same_seg(a, b, what, a->index);
	}
	for (i = 0; i <= count + 1; i += 1 + count / 97) {
		const struct ptd_callseg *a = ptd_calls_find(lazy, i), *b = ptd_calls_find(eager, i);

		if (!a != !b)
			fail_msg("%s: number %" PRIu64 ": found %s", what, i, a ? "lazy only" : "eager only");
		if (a)
			same_seg(a, b, what, a->index);
	}
}

/*
 * The views of @h: eager from the log and from the items (the same), and
 * lazy with chunks of 1, 3 and 1024 segments (the public build),
 * from the log and from the items; returns the number of segments.
 */
static uint64_t check_history(const struct ptd_history *h, ptd_func_of_fn fn, const char *what)
{
	static const int chunks[] = {1, 3, 1024};
	struct ptd_calls *eager = ptd__calls_build_chunked(h, fn, NULL, 1, 0);
	struct ptd_calls *eager_items = ptd__calls_build_chunked(h, fn, NULL, 0, 0);
	uint64_t count = ptd_history_count(h), n, cnt;
	char w[160];

	if (!eager || !eager_items)
		fail_msg("%s: cannot build: %s", what, ptd_last_error(-1));
	n = ptd_calls_count(eager);
	snprintf(w, sizeof(w), "%s, eager from the items", what);
	compare(eager_items, eager, count, w);
	if (ptd_calls_count_only(h, fn, NULL, &cnt) < 0)
		fail_msg("%s: cannot count: %s", what, ptd_last_error(-1));
	assert_int_equal(cnt, n);
	for (size_t c = 0; c < sizeof(chunks) / sizeof(chunks[0]); c++) {
		for (int use_log = 0; use_log < 2; use_log++) {
			struct ptd_calls *lazy = ptd__calls_build_chunked(h, fn, NULL, use_log, chunks[c]);

			snprintf(w, sizeof(w), "%s, chunks of %d, %s", what, chunks[c],
				 use_log ? "log" : "items");
			if (!lazy)
				fail_msg("%s: cannot build: %s", w, ptd_last_error(-1));
			compare(lazy, eager, count, w);
			ptd_calls_free(lazy);
		}
	}
	{
		struct ptd_calls *pub = ptd_calls_build(h, fn, NULL);

		assert_non_null(pub);
		compare(pub, eager, count, what);
		ptd_calls_free(pub);
	}
	ptd_calls_free(eager_items);
	ptd_calls_free(eager);
	return n;
}

/*
 * The view ptd_calls_build gives for a lazy history: walked from a late
 * part on, the builder's state there found by chaining the parts' call
 * summaries (irregular parts walked).  The newest segments are read
 * first, by index and by number, and the whole view must not be built
 * for them; then every way of reading it, older segments included (from
 * the whole view behind it), equals the eager view.  Returns how many
 * of the views started after the first part (-1 for none at all).
 */
static int check_late(const struct ptd_history *h, ptd_func_of_fn fn, const char *what)
{
	static const uint64_t after[] = {1, 7, 60, 500};
	struct ptd_calls *eager = ptd__calls_build_chunked(h, fn, NULL, 1, 0);
	uint64_t n = ptd_calls_count(eager), count = ptd_history_count(h);
	int late = 0;
	char w[160];

	assert_non_null(eager);
	{ /* info record's count: the summaries chained too */
		uint64_t cnt;

		assert_int_equal(ptd_calls_count_only(h, fn, NULL, &cnt), 0);
		if (cnt != n)
			fail_msg("%s: counted %" PRIu64 " segments, not %" PRIu64, what, cnt, n);
	}
	for (size_t a = 0; a < sizeof(after) / sizeof(after[0]); a++) {
		struct ptd_calls *c = ptd__calls_build_suffix(h, fn, NULL, after[a]);
		uint64_t floor = 0, i, num, last;

		snprintf(w, sizeof(w), "%s, from a late part (%" PRIu64 " after it)", what, after[a]);
		if (!c) {
			late = late ? late : -1;
			continue;
		}
		assert_int_equal(ptd_calls_count(c), n);
		assert_int_equal(ptd_calls_min_level(c), ptd_calls_min_level(eager));
		assert_int_equal(ptd__calls_suffix_info(c, &floor), 0);
		assert_true(floor > 0 && floor < n);
		for (i = n; i > floor; i--) /* the newest first */
			same_seg(ptd_calls_get(c, i), ptd_calls_get(eager, i), w, i);
		last = ptd_calls_get(eager, n)->last;
		for (num = ptd_calls_get(eager, floor + 1)->first; num <= last + 1;
		     num += 1 + (last - num) / 300) {
			const struct ptd_callseg *x = ptd_calls_find(c, num), *y = ptd_calls_find(eager, num);

			if (!x != !y)
				fail_msg("%s: number %" PRIu64 ": found %s", w, num, x ? "late only" : "eager only");
			if (x)
				same_seg(x, y, w, x->index);
		}
		/* only the parts from the late one on were walked */
		assert_int_equal(ptd__calls_suffix_info(c, NULL), 0);
		compare(c, eager, count, w);
		assert_int_equal(ptd__calls_suffix_info(c, NULL), 1);
		late = (late < 0 ? 0 : late) + 1;
		ptd_calls_free(c);
	}
	ptd_calls_free(eager);
	return late;
}

/* A lazy history of @buf, every PSB segment a part decoded again on
 * demand, with its call log. */
static struct ptd_history *lazy_history(const uint8_t *buf, size_t size, struct ptd_image *img,
					ptd_func_of_fn fn, struct ptd_pt_trace **tp)
{
	struct ptd_pt_trace *t = ptd_pt_trace_alloc(buf, size, img, NULL, NULL, 2);
	struct ptd_history *h = ptd_history_alloc(ptd_image_read, img);

	assert_non_null(t);
	assert_non_null(h);
	ptd_pt_trace_set_disabled_gaps(t, 1);
	ptd_pt_trace_set_lazy_history(t, 2);
	ptd__pt_set_store_max(0);
	/* parts of a few PSB segments (at least 64 KB each otherwise) */
	ptd__pt_set_batch_bytes(600);
	ptd_history_set_func(h, fn, NULL);
	if (ptd_pt_trace_history(t, h, 1, NULL) < 0)
		fail_msg("cannot decode: %s", ptd_last_error(-1));
	ptd__pt_set_batch_bytes(0);
	ptd__pt_set_store_max(PTD_PT_STORE_MAX);
	*tp = t;
	return h;
}

/* Appends @h's items [@from, @to) to @s. */
static void copy_items(struct ptd_history *s, const struct ptd_history *h, uint64_t from,
		       uint64_t to)
{
	struct ptd_item it;

	for (; from < to; from++) {
		assert_int_equal(ptd_history_item(h, from, &it), 1);
		if (it.kind == PTD_ITEM_BLOCK)
			assert_int_equal(ptd_history_append_block(s, &it.block), 0);
		else if (it.kind == PTD_ITEM_GAP)
			assert_int_equal(ptd_history_append_gap(s, it.reason, it.arg, NULL), 0);
		else
			assert_int_equal(ptd_history_append_event(s, it.reason, it.block.ip, it.arg), 0);
	}
}

/* A history of @h's items from @from on (with a call log): the recording
 * starts wherever the walk was, maybe deep in f's recursion. */
static struct ptd_history *suffix(const struct ptd_history *h, uint64_t from, struct ptd_image *img,
				  ptd_func_of_fn fn)
{
	struct ptd_history *s = ptd_history_alloc(ptd_image_read, img);

	assert_non_null(s);
	ptd_history_set_func(s, fn, NULL);
	copy_items(s, h, from, ptd_history_nitems(h));
	ptd_history_set_tail(s, ptd_history_tail(h));
	return s;
}

/* @h's items with a call log for those before @k only (a logged history
 * put in front of one without): the walk goes from the log to the items. */
static struct ptd_history *half_logged(const struct ptd_history *h, uint64_t k,
				       struct ptd_image *img, ptd_func_of_fn fn,
				       struct ptd_history **owner)
{
	struct ptd_history *a = ptd_history_alloc(ptd_image_read, img);
	struct ptd_history *b = ptd_history_alloc(ptd_image_read, img);
	uint64_t covered = 0;

	assert_non_null(a);
	assert_non_null(b);
	ptd_history_set_func(a, fn, NULL);
	copy_items(a, h, 0, k);
	copy_items(b, h, k, ptd_history_nitems(h));
	assert_int_equal(ptd_history_prepend(b, a), 0);
	*owner = a; /* (empty now, but b's log uses its func_of) */
	ptd_history_set_tail(b, ptd_history_tail(h));
	assert_non_null(ptd__history_calllog(b, &covered));
	assert_true(covered > 0 && covered < ptd_history_nitems(b));
	return b;
}

static int pw_img_read(void *ctx, uint64_t addr, uint8_t *buf, size_t n)
{
	return pw_read(ctx, addr, buf, n);
}

static void run_walk(const struct ptd_ptsynth_config *cfg, const struct pw_opts *o, const char *name)
{
	struct ptd_ptsynth *s = ptd_ptsynth_alloc(cfg);
	struct ptd_image *img = ptd_image_alloc(pw_img_read, NULL);
	static const ptd_func_of_fn fns[] = {func_prog, func64, NULL};
	struct pw_result exp = {0};
	const uint8_t *buf;
	size_t n;
	char what[128];
	int late, nlate = 0;

	assert_non_null(s);
	assert_non_null(img);
	assert_int_equal(pw_walk(o, s, &exp), 0);
	buf = ptd_ptsynth_data(s, &n);
	for (size_t f = 0; f < sizeof(fns) / sizeof(fns[0]); f++) {
		struct ptd_pt_trace *t;
		struct ptd_history *h = lazy_history(buf, n, img, fns[f], &t);
		uint64_t segs, nitems = ptd_history_nitems(h);

		snprintf(what, sizeof(what), "%s, func_of %zu", name, f);
		segs = check_history(h, fns[f], what);
		assert_true(segs > 50);
		late = check_late(h, fns[f], what);
		if (late > 0)
			nlate += late;
		if (fns[f]) {
			/* items without a log after the parts (ptdbg --load puts
			 * the newest segments, decoded first, after them) */
			struct ptd_history *p = ptd_history_alloc(ptd_image_read, img);

			assert_non_null(p);
			copy_items(p, h, nitems / 3, nitems / 2);
			ptd_history_set_tail(p, ptd_history_tail(h));
			assert_int_equal(ptd_history_prepend(p, h), 0);
			snprintf(what, sizeof(what), "%s, func_of %zu, items after the parts", name, f);
			/* (walking these items and walking their log gave different
			 * views: the items appended after a lazy part went into
			 * the part's last decoded chunk, and were lost or
			 * misnumbered when the part was evicted) */
			check_history(p, fns[f], what);
			late = check_late(p, fns[f], what);
			if (late > 0)
				nlate += late;
			/* (h is empty now: its items are p's) */
			ptd_history_free(h);
			h = p;
			nitems = ptd_history_nitems(h);
		}
		if (fns[f] == func_prog) {
			/* traces cut at a PSB past the middle, and a few bytes
			 * before it (a gap: the trace starts mid-stream): the
			 * recording starts inside the walk, in its parts */
			static const uint8_t psb[16] = {2, 0x82, 2, 0x82, 2, 0x82, 2, 0x82,
							2, 0x82, 2, 0x82, 2, 0x82, 2, 0x82};
			size_t off;

			for (off = n / 2; off + 16 <= n && memcmp(buf + off, psb, 16); off++)
				;
			for (int lost = 0; lost < 2 && off + 16 <= n; lost++) {
				struct ptd_pt_trace *ct;
				size_t from = off - (lost && off >= 3 ? 3 : 0);
				struct ptd_history *ch = lazy_history(buf + from, n - from, img,
								      fns[f], &ct);

				snprintf(what, sizeof(what), "%s, func_of %zu, trace from byte %zu", name,
					 f, from);
				check_history(ch, fns[f], what);
				late = check_late(ch, fns[f], what);
				if (late > 0)
					nlate += late;
				ptd_history_free(ch);
				ptd_pt_trace_free(ct);
			}
		}
		if (fns[f]) {
			/* recordings that start inside the walk */
			for (int k = 1; k <= 3; k++) {
				struct ptd_history *sh = suffix(h, nitems * (uint64_t)k / 4, img, fns[f]);

				snprintf(what, sizeof(what), "%s, func_of %zu, from item %" PRIu64, name,
					 f, nitems * (uint64_t)k / 4);
				check_history(sh, fns[f], what);
				/* its log's parts closed by themselves */
				late = check_late(sh, fns[f], what);
				if (late > 0)
					nlate += late;
				ptd_history_free(sh);
			}
			{ /* the log, then the items */
				struct ptd_history *owner;
				struct ptd_history *hl = half_logged(h, nitems / 2, img, fns[f], &owner);

				snprintf(what, sizeof(what), "%s, func_of %zu, half logged", name, f);
				check_history(hl, fns[f], what);
				late = check_late(hl, fns[f], what);
				if (late > 0)
					nlate += late;
				ptd_history_free(hl);
				ptd_history_free(owner);
			}
		}
		ptd_history_free(h);
		ptd_pt_trace_free(t);
	}
	/* the late views were built (a trace of one part has none) */
	if (!nlate && cfg->psb_period < 4096)
		fail_msg("%s: no view started from a late part", name);
	free(exp.ips);
	ptd_image_free(img);
	ptd_ptsynth_free(s);
}

/* A stored history of @buf (decoded once, its items kept) with its call
 * log: serially, or (@nthreads 2) in batches of a few PSB segments decoded
 * in two threads and spliced in order, their logs appended. */
static struct ptd_history *stored_history(const uint8_t *buf, size_t size, struct ptd_image *img,
					  ptd_func_of_fn fn, int nthreads)
{
	struct ptd_pt_trace *t = ptd_pt_trace_alloc(buf, size, img, NULL, NULL, 2);
	struct ptd_history *h = ptd_history_alloc(ptd_image_read, img);

	assert_non_null(t);
	assert_non_null(h);
	ptd_pt_trace_set_disabled_gaps(t, 1);
	ptd__pt_set_batch_bytes(nthreads > 1 ? 600 : 0);
	ptd_history_set_func(h, fn, NULL);
	if (ptd_pt_trace_history(t, h, nthreads, NULL) < 0)
		fail_msg("cannot decode: %s", ptd_last_error(-1));
	ptd__pt_set_batch_bytes(0);
	ptd_pt_trace_free(t);
	return h;
}

/*
 * Stored histories (a loaded trace up to PTD_PT_STORE_MAX) keep their call
 * log, and the log closes parts by itself: after every block (parts of 1
 * byte: every seam, at a held block, in a skip, after a gap, a signal, a
 * syscall, a tail call, an orphan return), or every few.  Serial and
 * parallel decodes (batch seams at PSBs); then the view from a late part
 * and the count from the chained summaries equal the whole view.  The
 * history ptdbg --load makes (the older segments with a log, the newest
 * without) too.
 */
static void stored_walk(const struct ptd_ptsynth_config *cfg, const struct pw_opts *o,
			const char *name)
{
	static const size_t part_bytes[] = {1, 40};
	static const ptd_func_of_fn fns[] = {func_prog, func64};
	struct ptd_ptsynth *s = ptd_ptsynth_alloc(cfg);
	struct ptd_image *img = ptd_image_alloc(pw_img_read, NULL);
	struct pw_result exp = {0};
	const uint8_t *buf;
	size_t n;
	char what[160];

	assert_non_null(s);
	assert_non_null(img);
	assert_int_equal(pw_walk(o, s, &exp), 0);
	buf = ptd_ptsynth_data(s, &n);
	for (size_t p = 0; p < sizeof(part_bytes) / sizeof(part_bytes[0]); p++) {
		ptd__calllog_set_part_bytes(part_bytes[p]);
		for (size_t f = 0; f < sizeof(fns) / sizeof(fns[0]); f++) {
			for (int nt = 1; nt <= 2; nt++) {
				struct ptd_history *h = stored_history(buf, n, img, fns[f], nt);
				const struct ptd_calllog *l;
				uint64_t covered = 0, nitems = ptd_history_nitems(h);
				struct ptd_history *owner, *hl;
				uint32_t np;

				snprintf(what, sizeof(what), "%s, stored, %d thread(s), func_of %zu, "
					 "parts of %zu bytes", name, nt, f, part_bytes[p]);
				l = ptd__history_calllog(h, &covered);
				assert_non_null(l);
				assert_int_equal(covered, nitems);
				np = ptd__calllog_nparts(l);
				if (np < 4)
					fail_msg("%s: %u parts", what, np);
				if (p == 0 && nt == 1)
					check_history(h, fns[f], what);
				if (check_late(h, fns[f], what) <= 0)
					fail_msg("%s: no view from a late part", what);
				/* ptdbg --load: the newest segments without a log after */
				hl = half_logged(h, nitems * 2 / 3, img, fns[f], &owner);
				snprintf(what, sizeof(what), "%s, stored, %d thread(s), func_of %zu, "
					 "parts of %zu bytes, newest items without a log", name, nt, f,
					 part_bytes[p]);
				if (check_late(hl, fns[f], what) <= 0)
					fail_msg("%s: no view from a late part", what);
				ptd_history_free(hl);
				ptd_history_free(owner);
				ptd_history_free(h);
			}
		}
	}
	ptd__calllog_set_part_bytes(0);
	free(exp.ips);
	ptd_image_free(img);
	ptd_ptsynth_free(s);
}

static void test_stored(void **state)
{
	struct ptd_ptsynth_config cfg = {.psb_period = 64, .ret_compression = 1};
	struct pw_opts o = {.seed = 77, .steps = 3000, .p_signal = 8, .p_sigsys = 60, .p_ovf = 3};
	struct ptd_ptsynth_config fcfg = {.psb_period = 200, .ret_compression = 1};
	struct pw_opts fo = {.seed = 5, .steps = 3000, .p_signal = 4, .p_filter = 300};

	(void)state;
	stored_walk(&cfg, &o, "walk");
	stored_walk(&fcfg, &fo, "filtered");
}

/* Signals, signals in syscalls, overflows; PSB periods down to one. */
static void test_walks(void **state)
{
	static const uint32_t periods[] = {1, 64, 4096};
	/* the logs close parts by themselves: after every block, or a few */
	static const size_t part_bytes[] = {60, 1, 7};

	(void)state;
	for (size_t i = 0; i < sizeof(periods) / sizeof(periods[0]); i++) {
		struct ptd_ptsynth_config cfg = {.psb_period = periods[i], .ret_compression = 1};
		struct pw_opts o = {.seed = 31 + (unsigned)i,
				    .steps = 3000,
				    .p_signal = 8,
				    .p_sigsys = 60,
				    .p_ovf = 3};
		char name[64];

		snprintf(name, sizeof(name), "walk, PSB period %u, parts of %zu bytes", periods[i],
			 part_bytes[i]);
		ptd__calllog_set_part_bytes(part_bytes[i]);
		run_walk(&cfg, &o, name);
		ptd__calllog_set_part_bytes(0);
	}
}

/* IP filtering: a TIP.PGD/TIP.PGE pair at calls out of the range, some
 * coming back elsewhere (gaps). */
static void test_filtered(void **state)
{
	struct ptd_ptsynth_config cfg = {.psb_period = 200, .ret_compression = 1};
	struct pw_opts o = {.seed = 9, .steps = 3000, .p_signal = 4, .p_filter = 300};

	(void)state;
	run_walk(&cfg, &o, "filtered");
}

/* No compressed returns, no overflows: long runs of calls and returns. */
static void test_plain(void **state)
{
	struct ptd_ptsynth_config cfg = {.psb_period = 512};
	struct pw_opts o = {.seed = 1234, .steps = 4000};

	(void)state;
	run_walk(&cfg, &o, "plain");
}

/* A NULL view, and a view of an empty history. */
static void test_empty(void **state)
{
	struct ptd_history *h = ptd_history_alloc(ptd_image_read, NULL);
	struct ptd_calls *c;

	(void)state;
	assert_int_equal(ptd_calls_count(NULL), 0);
	assert_null(ptd_calls_get(NULL, 1));
	assert_null(ptd_calls_find(NULL, 1));
	assert_int_equal(ptd_calls_min_level(NULL), 0);
	assert_null(ptd__calls_build_chunked(NULL, NULL, NULL, 1, 1));
	c = ptd__calls_build_chunked(h, func_prog, NULL, 1, 1);
	assert_non_null(c);
	assert_int_equal(ptd_calls_count(c), 0);
	assert_null(ptd_calls_get(c, 1));
	assert_null(ptd_calls_find(c, 1));
	ptd_calls_free(c);
	ptd_calls_free(NULL);
	ptd_history_free(h);
}

/* A view of a history that changed since it was built says so when it
 * has to walk again, instead of giving segments of another history. */
static void test_changed(void **state)
{
	struct ptd_ptsynth_config cfg = {.psb_period = 512};
	struct pw_opts o = {.seed = 99, .steps = 2000};
	struct ptd_ptsynth *s = ptd_ptsynth_alloc(&cfg);
	struct ptd_image *img = ptd_image_alloc(pw_img_read, NULL);
	struct pw_result exp = {0};
	struct ptd_pt_trace *t;
	struct ptd_history *h, *sh;
	struct ptd_calls *c;
	const uint8_t *buf;
	uint64_t n;
	size_t len;

	(void)state;
	assert_non_null(s);
	assert_int_equal(pw_walk(&o, s, &exp), 0);
	buf = ptd_ptsynth_data(s, &len);
	h = lazy_history(buf, len, img, func_prog, &t);
	sh = suffix(h, 0, img, func_prog);
	c = ptd__calls_build_chunked(sh, func_prog, NULL, 1, 4);
	assert_non_null(c);
	n = ptd_calls_count(c);
	assert_true(n > 20);
	assert_non_null(ptd_calls_get(c, 1)); /* its chunk stays decoded */
	assert_int_equal(ptd_history_append_gap(sh, PTD_GAP_OVERFLOW, 0, NULL), 0);
	assert_null(ptd_calls_get(c, n));
	assert_non_null(strstr(ptd_last_error(-1), "changed"));
	assert_non_null(ptd_calls_get(c, 1));
	ptd_calls_free(c);
	ptd_history_free(sh);
	ptd_history_free(h);
	ptd_pt_trace_free(t);
	free(exp.ips);
	ptd_image_free(img);
	ptd_ptsynth_free(s);
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
		cmocka_unit_test(test_walks),
		cmocka_unit_test(test_filtered),
		cmocka_unit_test(test_stored),
		cmocka_unit_test(test_plain),
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_changed),
	};

	/* the chain through every part, irregular ones too (however few
	 * are regular): its exactness is what is checked */
	ptd__calls_set_chain_always(1);
	return cmocka_run_group_tests(tests, setup, NULL);
}
