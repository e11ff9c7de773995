/*
 * The ring readers of the perf layer on synthetic rings laid out as the
 * kernel lays them out (perf_event_mmap_page, then 2^n data pages; an AUX
 * area of 2^n pages): records before the ring end, exactly at it, split
 * across it (header and body), a read-only ring overwritten far past the
 * reader, many wraps, corrupt sizes, PERF_RECORD_AUX with every flag and
 * PERF_RECORD_LOST passed through; the AUX area linear and circular with
 * head before, at and far past the wrap, and the time conversion.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ptdbg/ptdbg.h"
#include "record/perf.h"

#define PAGE 4096

struct fake {
	uint8_t *map;
	size_t len;
	volatile struct perf_event_mmap_page *pg;
	uint64_t size;
};

static void fake_init(struct fake *f, int data_pages)
{
	f->len = (size_t)(1 + data_pages) * PAGE;
	assert_int_equal(posix_memalign((void **)&f->map, PAGE, f->len), 0);
	memset(f->map, 0, f->len);
	f->pg = (volatile struct perf_event_mmap_page *)f->map;
	f->pg->data_offset = PAGE;
	f->pg->data_size = (uint64_t)data_pages * PAGE;
	f->size = f->pg->data_size;
}

/* Writes a record of @size bytes (type, then a byte pattern from @seed)
 * at data_head, wrapping, and publishes it. */
static void put(struct fake *f, uint32_t type, uint16_t size, uint8_t seed)
{
	uint8_t rec[65536];
	struct perf_event_header h = {type, 0, size};
	uint64_t head = f->pg->data_head;

	memcpy(rec, &h, sizeof(h));
	for (int i = 8; i < size; i++)
		rec[i] = (uint8_t)(seed + i);
	for (int i = 0; i < size; i++)
		f->map[PAGE + ((head + (uint64_t)i) & (f->size - 1))] = rec[i];
	f->pg->data_head = head + size;
}

struct got {
	int n;
	uint32_t type[4096];
	uint16_t size[4096];
	int ok[4096];
	uint64_t aux_flags[4096];
	uint64_t lost[4096];
	int fail_at;
};

static int collect(void *ctx, const struct perf_event_header *h, const void *rec)
{
	struct got *g = ctx;
	const uint8_t *b = rec;
	int ok = 1;

	if (g->fail_at && g->n == g->fail_at)
		return -ptde_invalid;
	assert_true(g->n < 4096);
	assert_ptr_equal((const void *)h, rec);
	/* the body pattern must be intact (joined when split) */
	if (h->type >= 100)
		for (int i = 8; i < h->size; i++)
			ok &= b[i] == (uint8_t)(h->type - 100 + i);
	if (h->type == PERF_RECORD_AUX)
		memcpy(&g->aux_flags[g->n], b + 24, 8);
	if (h->type == PERF_RECORD_LOST)
		memcpy(&g->lost[g->n], b + 16, 8);
	g->type[g->n] = h->type;
	g->size[g->n] = h->size;
	g->ok[g->n] = ok;
	g->n++;
	return 0;
}

static void test_before_wrap(void **state)
{
	struct fake f;
	struct ptd_perf_ring r;
	struct got g = {0};
	uint64_t lost = 99;

	fake_init(&f, 1);
	assert_int_equal(ptd_perf_ring_init(&r, f.map, f.len, 1), 0);
	put(&f, 101, 16, 1);
	put(&f, 102, 40, 2);
	put(&f, 103, 8, 3);
	assert_int_equal(ptd_perf_ring_read(&r, collect, &g, &lost), 3);
	assert_int_equal(lost, 0);
	assert_int_equal(g.type[0], 101);
	assert_int_equal(g.size[1], 40);
	assert_true(g.ok[0] && g.ok[1] && g.ok[2]);
	/* data_tail follows what was consumed */
	assert_int_equal(f.pg->data_tail, 64);
	/* nothing new: nothing given */
	assert_int_equal(ptd_perf_ring_read(&r, collect, &g, &lost), 0);
	assert_int_equal(g.n, 3);
	free(f.map);
}

static void test_exactly_at_wrap(void **state)
{
	struct fake f;
	struct ptd_perf_ring r;
	struct got g = {0};

	fake_init(&f, 1);
	assert_int_equal(ptd_perf_ring_init(&r, f.map, f.len, 1), 0);
	/* 4096 bytes: the last record ends exactly at the ring end */
	for (int i = 0; i < 16; i++)
		put(&f, 100 + (uint32_t)(i % 50), 256, (uint8_t)(i % 50));
	assert_int_equal(f.pg->data_head, 4096);
	assert_int_equal(ptd_perf_ring_read(&r, collect, &g, NULL), 16);
	put(&f, 120, 24, 20); /* at offset 0 again */
	assert_int_equal(ptd_perf_ring_read(&r, collect, &g, NULL), 1);
	assert_int_equal(g.n, 17);
	for (int i = 0; i < g.n; i++)
		assert_true(g.ok[i]);
	assert_int_equal(f.pg->data_tail, 4096 + 24);
	free(f.map);
}

static void test_split_records(void **state)
{
	struct fake f;
	struct ptd_perf_ring r;
	struct got g = {0};

	fake_init(&f, 1);
	assert_int_equal(ptd_perf_ring_init(&r, f.map, f.len, 1), 0);
	/* body split: a record starting 8 bytes before the end */
	put(&f, 101, 4088, 1);
	assert_int_equal(ptd_perf_ring_read(&r, collect, &g, NULL), 1);
	put(&f, 102, 200, 2);
	assert_int_equal(ptd_perf_ring_read(&r, collect, &g, NULL), 1);
	assert_true(g.ok[1]);
	assert_int_equal(g.size[1], 200);
	/* header split: a record starting 4 bytes before the end */
	put(&f, 103, 4096 - 200 - 4088 + 4096 - 4, 3); /* fills up to end - 4 */
	assert_int_equal(ptd_perf_ring_read(&r, collect, &g, NULL), 1);
	assert_int_equal(f.pg->data_head % 4096, 4092);
	put(&f, 104, 64, 4);
	assert_int_equal(ptd_perf_ring_read(&r, collect, &g, NULL), 1);
	assert_int_equal(g.type[3], 104);
	assert_int_equal(g.size[3], 64);
	assert_true(g.ok[2] && g.ok[3]);
	free(f.map);
}

static void test_far_past_wrap(void **state)
{
	struct fake f;
	struct ptd_perf_ring r;
	struct got g = {0};
	uint64_t lost = 0;

	fake_init(&f, 2);
	/* read-only (overwrite) ring: the kernel wrote 3.5 rings' worth */
	assert_int_equal(ptd_perf_ring_init(&r, f.map, f.len, 0), 0);
	for (int i = 0; i < 7 * 8192 / 2 / 64; i++)
		put(&f, 110, 64, 10);
	assert_int_equal(ptd_perf_ring_read(&r, collect, &g, &lost), 0);
	assert_int_equal(lost, 7 * 8192 / 2);
	assert_int_equal(g.n, 0);
	/* reading goes on from head */
	put(&f, 111, 32, 11);
	assert_int_equal(ptd_perf_ring_read(&r, collect, &g, &lost), 1);
	assert_int_equal(lost, 0);
	assert_int_equal(g.type[0], 111);
	assert_true(g.ok[0]);
	/* a read-only ring never writes data_tail */
	assert_int_equal(f.pg->data_tail, 0);
	free(f.map);
}

static void test_many_wraps(void **state)
{
	struct fake f;
	struct ptd_perf_ring r;
	struct got *g = calloc(1, sizeof(*g));
	int want = 0;

	assert_non_null(g);
	fake_init(&f, 1);
	assert_int_equal(ptd_perf_ring_init(&r, f.map, f.len, 1), 0);
	/* 200 rounds of records of odd sizes (multiples of 8): the ring
	 * wraps about 24 times, records straddle the end at many offsets */
	for (int round = 0; round < 200; round++) {
		int n = 1 + round % 5;
		for (int i = 0; i < n; i++) {
			uint16_t size = (uint16_t)(8 * (1 + (round * 7 + i * 13) % 40));
			put(&f, 100 + (uint32_t)(round % 20), size, (uint8_t)(round % 20));
			want++;
		}
		g->n = 0;
		assert_int_equal(ptd_perf_ring_read(&r, collect, g, NULL), n);
		for (int i = 0; i < n; i++) {
			assert_true(g->ok[i]);
			assert_int_equal(g->type[i], 100 + (uint32_t)(round % 20));
		}
		assert_int_equal(f.pg->data_tail, f.pg->data_head);
	}
	assert_true(f.pg->data_head > 20 * 4096);
	free(g);
	free(f.map);
}

static void put_raw(struct fake *f, const void *rec, size_t size)
{
	uint64_t head = f->pg->data_head;

	for (size_t i = 0; i < size; i++)
		f->map[PAGE + ((head + i) & (f->size - 1))] = ((const uint8_t *)rec)[i];
	f->pg->data_head = head + size;
}

static void test_aux_and_lost_records(void **state)
{
	struct fake f;
	struct ptd_perf_ring r;
	struct got g = {0};
	static const uint64_t flags[] = {0,
					 PERF_AUX_FLAG_TRUNCATED,
					 PERF_AUX_FLAG_OVERWRITE,
					 PERF_AUX_FLAG_PARTIAL,
					 PERF_AUX_FLAG_COLLISION,
					 PERF_AUX_FLAG_TRUNCATED | PERF_AUX_FLAG_PARTIAL};

	fake_init(&f, 1);
	assert_int_equal(ptd_perf_ring_init(&r, f.map, f.len, 1), 0);
	for (size_t i = 0; i < sizeof(flags) / sizeof(flags[0]); i++) {
		struct {
			struct perf_event_header h;
			uint64_t off, size, flags;
		} a = {{PERF_RECORD_AUX, 0, 32}, 4096 * i, 4096, flags[i]};
		put_raw(&f, &a, sizeof(a));
	}
	{
		struct {
			struct perf_event_header h;
			uint64_t id, lost;
		} l = {{PERF_RECORD_LOST, 0, 24}, 7, 12345};
		put_raw(&f, &l, sizeof(l));
	}
	assert_int_equal(ptd_perf_ring_read(&r, collect, &g, NULL), 7);
	for (size_t i = 0; i < sizeof(flags) / sizeof(flags[0]); i++) {
		assert_int_equal(g.type[i], PERF_RECORD_AUX);
		assert_int_equal(g.aux_flags[i], flags[i]);
	}
	assert_int_equal(g.type[6], PERF_RECORD_LOST);
	assert_int_equal(g.lost[6], 12345);
	free(f.map);
}

static void test_corrupt(void **state)
{
	struct fake f;
	struct ptd_perf_ring r;
	struct got g = {0};

	/* a size below the header */
	fake_init(&f, 1);
	assert_int_equal(ptd_perf_ring_init(&r, f.map, f.len, 1), 0);
	put(&f, 101, 16, 1);
	{
		struct perf_event_header h = {102, 0, 4};
		put_raw(&f, &h, 8);
	}
	assert_int_equal(ptd_perf_ring_read(&r, collect, &g, NULL), -ptde_bad_trace);
	assert_int_equal(g.n, 1); /* the good record before it was given */
	assert_int_equal(f.pg->data_tail, 16);
	free(f.map);

	/* a size running past head */
	fake_init(&f, 1);
	assert_int_equal(ptd_perf_ring_init(&r, f.map, f.len, 1), 0);
	{
		struct perf_event_header h = {102, 0, 64};
		put_raw(&f, &h, 8);
	}
	g.n = 0;
	assert_int_equal(ptd_perf_ring_read(&r, collect, &g, NULL), -ptde_bad_trace);
	assert_int_equal(g.n, 0);
	free(f.map);

	/* head behind what was read; a writable ring overrun */
	fake_init(&f, 1);
	assert_int_equal(ptd_perf_ring_init(&r, f.map, f.len, 1), 0);
	put(&f, 101, 16, 1);
	assert_int_equal(ptd_perf_ring_read(&r, collect, &g, NULL), 1);
	f.pg->data_head = 8;
	assert_int_equal(ptd_perf_ring_read(&r, collect, &g, NULL), -ptde_bad_trace);
	f.pg->data_head = 16 + 8192;
	assert_int_equal(ptd_perf_ring_read(&r, collect, &g, NULL), -ptde_bad_trace);
	/* stray bytes shorter than a header */
	f.pg->data_head = 20;
	assert_int_equal(ptd_perf_ring_read(&r, collect, &g, NULL), -ptde_bad_trace);
	free(f.map);

	/* bad mappings */
	fake_init(&f, 1);
	f.pg->data_size = 3000;
	assert_int_equal(ptd_perf_ring_init(&r, f.map, f.len, 1), -ptde_bad_trace);
	f.pg->data_size = 8192;
	assert_int_equal(ptd_perf_ring_init(&r, f.map, f.len, 1), -ptde_bad_trace);
	assert_int_equal(ptd_perf_ring_init(&r, NULL, f.len, 1), -ptde_invalid);
	assert_int_equal(ptd_perf_ring_init(NULL, f.map, f.len, 1), -ptde_invalid);
	assert_int_equal(ptd_perf_ring_read(NULL, collect, &g, NULL), -ptde_invalid);
	free(f.map);
}

static void test_callback_error(void **state)
{
	struct fake f;
	struct ptd_perf_ring r;
	struct got g = {0};

	fake_init(&f, 1);
	assert_int_equal(ptd_perf_ring_init(&r, f.map, f.len, 1), 0);
	put(&f, 101, 16, 1);
	put(&f, 102, 16, 2);
	put(&f, 103, 16, 3);
	g.fail_at = 1;
	assert_int_equal(ptd_perf_ring_read(&r, collect, &g, NULL), -ptde_invalid);
	/* the failing record is not consumed: it comes again */
	assert_int_equal(f.pg->data_tail, 16);
	g.fail_at = 0;
	assert_int_equal(ptd_perf_ring_read(&r, collect, &g, NULL), 2);
	assert_int_equal(g.type[1], 102);
	free(f.map);
}

/* Fixed-size records in an overwritten read-only ring (BTS, gdb's way):
 * the newest whole records survive. */
static void test_fixed_newest(void **state)
{
	struct fake f;
	struct ptd_perf_ring r;
	struct got *g = calloc(1, sizeof(*g));
	uint64_t lost = 0;

	assert_non_null(g);
	fake_init(&f, 1);
	assert_int_equal(ptd_perf_ring_init(&r, f.map, f.len, 0), 0);
	/* 24-byte samples: 4096 / 24 = 170 whole ones fit */
	for (int i = 0; i < 5; i++)
		put(&f, 100 + (uint32_t)i, 24, (uint8_t)i);
	assert_int_equal(ptd_perf_ring_read_fixed(&r, 24, collect, g, &lost), 5);
	assert_int_equal(lost, 0);
	for (int i = 0; i < 1000; i++)
		put(&f, 100 + (uint32_t)(i % 50), 24, (uint8_t)(i % 50));
	g->n = 0;
	assert_int_equal(ptd_perf_ring_read_fixed(&r, 24, collect, g, &lost), 170);
	assert_int_equal(lost, (1000 - 170) * 24);
	for (int i = 0; i < 170; i++) {
		assert_true(g->ok[i]); /* joined across the end where split */
		assert_int_equal(g->type[i], 100 + (uint32_t)((1000 - 170 + i) % 50));
	}
	/* not overwritten: all of it */
	for (int i = 0; i < 3; i++)
		put(&f, 101, 24, 1);
	g->n = 0;
	assert_int_equal(ptd_perf_ring_read_fixed(&r, 24, collect, g, &lost), 3);
	assert_int_equal(lost, 0);
	/* another size is corruption */
	put(&f, 101, 32, 1);
	assert_int_equal(ptd_perf_ring_read_fixed(&r, 24, collect, g, &lost), -ptde_bad_trace);
	assert_int_equal(ptd_perf_ring_read_fixed(&r, 4, collect, g, &lost), -ptde_invalid);
	free(g);
	free(f.map);
}

/* ---- AUX ---- */

struct fake_aux {
	struct perf_event_mmap_page pg;
	uint8_t *buf;
	uint64_t size;
};

/* The "hardware" writes @n bytes (value = stream position & 0xff). */
static void aux_put(struct fake_aux *a, uint64_t n)
{
	for (uint64_t i = 0; i < n; i++) {
		uint64_t pos = a->pg.aux_head + i;
		a->buf[pos & (a->size - 1)] = (uint8_t)(pos * 7 + (pos >> 8));
	}
	a->pg.aux_head += n;
}

static void check_stream(const uint8_t *b, uint64_t from, uint64_t n)
{
	for (uint64_t i = 0; i < n; i++) {
		uint64_t pos = from + i;
		if (b[i] != (uint8_t)(pos * 7 + (pos >> 8)))
			fail_msg("byte %llu of the copy (stream %llu) is wrong",
				 (unsigned long long)i, (unsigned long long)pos);
	}
}

static void test_aux_linear(void **state)
{
	struct fake_aux fa = {0};
	struct ptd_perf_aux a;
	uint8_t *out = NULL;
	size_t size = 0, cap = 0;
	int wrapped = -1;

	fa.size = 8192;
	fa.buf = calloc(1, fa.size);
	assert_int_equal(ptd_perf_aux_init(&a, &fa.pg, fa.buf, fa.size, 1), 0);
	aux_put(&fa, 5000); /* before the wrap */
	assert_int_equal(ptd_perf_aux_read(&a, &out, &size, &cap, &wrapped), 5000);
	assert_int_equal(wrapped, 0);
	assert_int_equal(fa.pg.aux_tail, 5000);
	aux_put(&fa, 3192); /* exactly at the wrap */
	assert_int_equal(ptd_perf_aux_read(&a, &out, &size, &cap, &wrapped), 3192);
	assert_int_equal(fa.pg.aux_head % fa.size, 0);
	aux_put(&fa, 8192); /* a whole buffer, from offset 0 */
	assert_int_equal(ptd_perf_aux_read(&a, &out, &size, &cap, &wrapped), 8192);
	aux_put(&fa, 6000);
	assert_int_equal(ptd_perf_aux_read(&a, &out, &size, &cap, &wrapped), 6000);
	aux_put(&fa, 7000); /* across the end */
	assert_int_equal(ptd_perf_aux_read(&a, &out, &size, &cap, &wrapped), 7000);
	assert_int_equal(wrapped, 0);
	assert_int_equal(size, 5000 + 3192 + 8192 + 6000 + 7000);
	check_stream(out, 0, size);
	assert_int_equal(fa.pg.aux_tail, fa.pg.aux_head);
	assert_int_equal(ptd_perf_aux_read(&a, &out, &size, &cap, &wrapped), 0);
	/* a linear area overrun is corruption (the kernel stops at aux_tail) */
	fa.pg.aux_head += 9000;
	assert_int_equal(ptd_perf_aux_read(&a, &out, &size, &cap, &wrapped), -ptde_bad_trace);
	free(out);
	free(fa.buf);
}

static void test_aux_circular(void **state)
{
	struct fake_aux fa = {0};
	struct ptd_perf_aux a;
	uint8_t *out = NULL;
	size_t size = 0, cap = 0;
	int wrapped = -1;

	fa.size = 4096;
	fa.buf = calloc(1, fa.size);
	assert_int_equal(ptd_perf_aux_init(&a, &fa.pg, fa.buf, fa.size, 0), 0);
	aux_put(&fa, 1000);
	assert_int_equal(ptd_perf_aux_read(&a, &out, &size, &cap, &wrapped), 1000);
	assert_int_equal(wrapped, 0);
	check_stream(out, 0, 1000);
	aux_put(&fa, 3096); /* exactly at the wrap: all of it is new */
	size = 0;
	assert_int_equal(ptd_perf_aux_read(&a, &out, &size, &cap, &wrapped), 3096);
	assert_int_equal(wrapped, 0);
	check_stream(out, 1000, 3096);
	aux_put(&fa, 4096); /* exactly one buffer: nothing lost */
	size = 0;
	assert_int_equal(ptd_perf_aux_read(&a, &out, &size, &cap, &wrapped), 4096);
	assert_int_equal(wrapped, 0);
	check_stream(out, 8192 - 4096, 4096);
	aux_put(&fa, 4097); /* one byte too many: wrapped */
	size = 0;
	assert_int_equal(ptd_perf_aux_read(&a, &out, &size, &cap, &wrapped), 4096);
	assert_int_equal(wrapped, 1);
	check_stream(out, 8192 + 1, 4096);
	aux_put(&fa, 100 * 4096 + 1234); /* far past, many wraps */
	size = 0;
	assert_int_equal(ptd_perf_aux_read(&a, &out, &size, &cap, &wrapped), 4096);
	assert_int_equal(wrapped, 1);
	check_stream(out, fa.pg.aux_head - 4096, 4096);
	/* a circular area is never written to aux_tail */
	assert_int_equal(fa.pg.aux_tail, 0);
	/* a head that went back (a position inside the buffer, as Intel PT
	 * snapshot mode reports it): the whole buffer, oldest byte at head */
	fa.pg.aux_head = 100;
	size = 0;
	assert_int_equal(ptd_perf_aux_read(&a, &out, &size, &cap, &wrapped), 4096);
	assert_int_equal(wrapped, 1);
	assert_int_equal(out[0], fa.buf[100]);
	assert_int_equal(out[4095], fa.buf[99]);
	assert_int_equal(ptd_perf_aux_init(&a, &fa.pg, fa.buf, 3000, 0), -ptde_invalid);
	assert_int_equal(ptd_perf_aux_read(NULL, &out, &size, &cap, &wrapped), -ptde_invalid);
	free(out);
	free(fa.buf);
}

static void test_tsc_to_time(void **state)
{
	struct perf_event_mmap_page pg;

	memset(&pg, 0, sizeof(pg));
	assert_int_equal(ptd_perf_tsc_to_time(&pg, 1000), 0); /* no cap_user_time_zero */
	pg.cap_user_time_zero = 1;
	pg.time_zero = 500;
	pg.time_shift = 31;
	pg.time_mult = 1u << 30; /* 2 GHz: ns = cyc / 2 */
	assert_int_equal(ptd_perf_tsc_to_time(&pg, 1000), 500 + 500);
	assert_int_equal(ptd_perf_tsc_to_time(&pg, 3), 500 + 1);
	/* a large value does not overflow the split multiplication */
	assert_int_equal(ptd_perf_tsc_to_time(&pg, 1ull << 50), 500 + (1ull << 49));
	/* time_cycles/time_mask (cap_user_time_short) */
	pg.cap_user_time_short = 1;
	pg.time_cycles = 1ull << 40;
	pg.time_mask = (1ull << 32) - 1;
	assert_int_equal(ptd_perf_tsc_to_time(&pg, (1ull << 40) + 2000),
			 500 + ((1ull << 40) + 2000) / 2);
	assert_int_equal(ptd_perf_tsc_to_time(NULL, 5), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_before_wrap),   cmocka_unit_test(test_exactly_at_wrap),
		cmocka_unit_test(test_split_records), cmocka_unit_test(test_far_past_wrap),
		cmocka_unit_test(test_many_wraps),    cmocka_unit_test(test_aux_and_lost_records),
		cmocka_unit_test(test_corrupt),	      cmocka_unit_test(test_callback_error),
		cmocka_unit_test(test_fixed_newest),  cmocka_unit_test(test_aux_linear),
		cmocka_unit_test(test_aux_circular),  cmocka_unit_test(test_tsc_to_time),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
