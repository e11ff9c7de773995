/*
 * ptd_history_relog: a live history's call log written again from its
 * items, after a bounded drop took the log away and when the func_of's
 * answers changed (new symbols), and the appends after it feeding the
 * new log.  Each time the view ptd_calls_build serves (from the log) must
 * be the one the items give (ptd__calls_build_items), the log must stand
 * for every item, and with the answers changed but no relog the two
 * views must differ (else this test could not see a stale log).
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
static uint64_t func_prog(uint64_t addr)
{
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

/* Other symbols for the same code: 64-byte functions (L2 at 0x40 is one
 * of its own, so main's jumps to it and back switch functions). */
static int other_symbols;

static uint64_t func_of(void *ctx, uint64_t addr)
{
	(void)ctx;
	if (other_symbols)
		return addr >= 0x1000 ? addr & ~0x3full : 0;
	return func_prog(addr);
}

static int pw_img_read(void *ctx, uint64_t addr, uint8_t *buf, size_t n)
{
	return pw_read(ctx, addr, buf, n);
}

/* 0 when the served view and the items' one are the same, segment by
 * segment; 1 when they differ. */
static int views_differ(const struct ptd_history *h)
{
	struct ptd_calls *a = ptd_calls_build(h, func_of, NULL);
	struct ptd_calls *b = ptd__calls_build_items(h, func_of, NULL);
	uint64_t n, i, ca = 0, cb = 0;
	int differ = 0;

	assert_non_null(a);
	assert_non_null(b);
	n = ptd_calls_count(a);
	assert_true(n > 20);
	if (n != ptd_calls_count(b))
		differ = 1;
	for (i = 1; i <= n && !differ; i++) {
		struct ptd_callseg x = *ptd_calls_get(a, i);
		const struct ptd_callseg *y = ptd_calls_get(b, i);

		assert_non_null(y);
		differ = memcmp(&x, y, sizeof(x)) != 0;
	}
	assert_int_equal(ptd_calls_count_only(h, func_of, NULL, &ca), 0);
	assert_int_equal(ptd__calls_count_items(h, func_of, NULL, &cb), 0);
	if (ca != cb)
		differ = 1;
	ptd_calls_free(a);
	ptd_calls_free(b);
	return differ;
}

/* Whether @h's log stands for all of its items. */
static int whole_log(const struct ptd_history *h)
{
	uint64_t covered = 0;

	return ptd__history_calllog(h, &covered) && covered == ptd_history_nitems(h);
}

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

static void test_relog(void **state)
{
	struct ptd_ptsynth_config cfg = {.psb_period = 512};
	struct pw_opts o = {.seed = 77, .steps = 6000, .p_signal = 20};
	struct ptd_ptsynth *syn = ptd_ptsynth_alloc(&cfg);
	struct ptd_image *img = ptd_image_alloc(pw_img_read, NULL);
	struct ptd_history *h = ptd_history_alloc(ptd_image_read, img);
	struct ptd_history *s = ptd_history_alloc(ptd_image_read, img);
	struct pw_result exp = {0};
	const uint8_t *buf;
	uint64_t n, shift = 0;
	size_t len;

	(void)state;
	assert_non_null(syn);
	assert_non_null(img);
	assert_int_equal(pw_walk(&o, syn, &exp), 0);
	buf = ptd_ptsynth_data(syn, &len);
	if (ptd_pt_decode_history(buf, len, img, h, NULL) < 0)
		fail_msg("cannot decode the walk: %s", ptd_last_error(-1));
	n = ptd_history_nitems(h);
	assert_true(n > 3000);

	/* a live history: the log from the appends */
	other_symbols = 0;
	ptd_history_set_func(s, func_of, NULL);
	copy_items(s, h, 0, n / 2);
	assert_true(whole_log(s));
	assert_int_equal(ptd_history_relog(s, 0), 0); /* nothing to do */
	assert_false(views_differ(s));

	/* a bounded drop takes the log; it is written again from the items
	 * kept, and the appends after it feed it */
	assert_int_equal(ptd_history_drop_oldest(s, ptd_history_count(s) / 2, "bounded", &shift), 0);
	assert_true(shift > 0);
	assert_false(whole_log(s));
	assert_false(views_differ(s)); /* (walking the items) */
	assert_int_equal(ptd_history_relog(s, 0), 1);
	assert_true(whole_log(s));
	assert_false(views_differ(s));
	copy_items(s, h, n / 2, 3 * n / 4);
	assert_true(whole_log(s));
	assert_false(views_differ(s));

	/* other symbols: the log's answers are stale, which the views show,
	 * until it is written again */
	other_symbols = 1;
	assert_true(views_differ(s));
	assert_int_equal(ptd_history_relog(s, 1), 1);
	assert_true(whole_log(s));
	assert_false(views_differ(s));
	/* the answers remembered for the log went with the old symbols:
	 * the appends now ask again */
	copy_items(s, h, 3 * n / 4, n);
	assert_true(whole_log(s));
	assert_false(views_differ(s));

	/* a history without func_of has nothing to write */
	assert_int_equal(ptd_history_relog(h, 1), 0);
	assert_int_equal(ptd_history_relog(NULL, 0), 0);

	ptd_history_free(s);
	ptd_history_free(h);
	free(exp.ips);
	ptd_image_free(img);
	ptd_ptsynth_free(syn);
}

/* A stretch decoded apart with the func_of shared goes after the log in
 * a splice; one without stops it (then relog writes it whole again). */
static void test_share(void **state)
{
	struct ptd_ptsynth_config cfg = {.psb_period = 256};
	struct pw_opts o = {.seed = 5, .steps = 3000};
	struct ptd_ptsynth *syn = ptd_ptsynth_alloc(&cfg);
	struct ptd_image *img = ptd_image_alloc(pw_img_read, NULL);
	struct ptd_history *h = ptd_history_alloc(ptd_image_read, img);
	struct ptd_history *s = ptd_history_alloc(ptd_image_read, img);
	struct ptd_history *part;
	struct pw_result exp = {0};
	const uint8_t *buf;
	uint64_t n;
	size_t len;

	(void)state;
	other_symbols = 0;
	assert_int_equal(pw_walk(&o, syn, &exp), 0);
	buf = ptd_ptsynth_data(syn, &len);
	assert_int_equal(ptd_pt_decode_history(buf, len, img, h, NULL), 0);
	n = ptd_history_nitems(h);
	ptd_history_set_func(s, func_of, NULL);
	copy_items(s, h, 0, n / 3);

	part = ptd_history_alloc(ptd_image_read, img);
	ptd_history_share_func(part, s);
	copy_items(part, h, n / 3, 2 * n / 3);
	assert_true(whole_log(part));
	assert_int_equal(ptd_history_splice(s, part), 0);
	ptd_history_free(part);
	assert_true(whole_log(s));
	assert_false(views_differ(s));

	part = ptd_history_alloc(ptd_image_read, img); /* no func_of */
	copy_items(part, h, 2 * n / 3, n);
	assert_int_equal(ptd_history_splice(s, part), 0);
	ptd_history_free(part);
	assert_false(whole_log(s));
	assert_false(views_differ(s));
	assert_int_equal(ptd_history_relog(s, 0), 1);
	assert_true(whole_log(s));
	assert_false(views_differ(s));

	ptd_history_free(s);
	ptd_history_free(h);
	free(exp.ips);
	ptd_image_free(img);
	ptd_ptsynth_free(syn);
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
		cmocka_unit_test(test_relog),
		cmocka_unit_test(test_share),
	};

	return cmocka_run_group_tests(tests, setup, NULL);
}
