/*
 * Unit tests for the soft recorder's compact register snapshots
 * (src/record/soft_regs.c): every snapshot comes back exactly, by number
 * and as "the last at or before", across deflated blocks; dropping the
 * oldest blocks forgets only them; the store stays a few bytes a
 * snapshot for registers that change like a program's.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "record/soft_regs.h"
#include "util/error.h"

static uint64_t seed = 88172645463325252ull;

static uint64_t xr(void)
{
	seed ^= seed << 13;
	seed ^= seed >> 7;
	seed ^= seed << 17;
	return seed;
}

/* Registers of a loop: rip among a few branch sites, rsp/rbp within a
 * stack, flags, a counter, sometimes a wild value. */
static void next_regs(struct user_regs_struct *r, uint64_t i)
{
	static const uint64_t sites[] = {0x401136, 0x40114e, 0x401162, 0x401189, 0x4011a0};

	r->rip = sites[xr() % 5];
	r->rsp = 0x7ffffffde000ull + (xr() % 64) * 8;
	r->rbp = r->rsp + 0x20;
	r->eflags = 0x202 | (xr() % 2 ? 0x40 : 0) | (xr() % 2 ? 0x80 : 0);
	r->rax = i;
	if (xr() % 10 == 0)
		r->rdx = xr();
	r->cs = 0x33;
	r->ss = 0x2b;
	r->fs_base = 0x7ffff7d8a740ull;
}

static void test_null(void **state)
{
	struct ptd__soft_regs s;
	struct user_regs_struct r;
	uint64_t at;

	(void)state;
	ptd__soft_regs_init(&s);
	memset(&r, 0, sizeof(r));
	assert_int_equal(ptd__soft_regs_push(NULL, 1, &r), -ptde_invalid);
	assert_int_equal(ptd__soft_regs_push(&s, 1, NULL), -ptde_invalid);
	assert_int_equal(ptd__soft_regs_near(NULL, 1, &r, &at), -ptde_invalid);
	assert_int_equal(ptd__soft_regs_near(&s, 1, &r, &at), -ptde_notfound);
	ptd__soft_regs_drop_before(NULL, 5);
	assert_int_equal(ptd__soft_regs_bytes(NULL), 0);
	ptd__soft_regs_fini(&s);
	ptd__soft_regs_fini(NULL);
}

static void test_roundtrip_drop(void **state)
{
	enum { N = 60000 };
	struct user_regs_struct *ref = calloc(N, sizeof(*ref));
	uint64_t *num = calloc(N, sizeof(*num));
	struct ptd__soft_regs s;
	struct user_regs_struct r, cur;
	uint64_t at = 0, n = 10;
	size_t i;

	(void)state;
	assert_non_null(ref);
	assert_non_null(num);
	ptd__soft_regs_init(&s);
	memset(&cur, 0, sizeof(cur));
	for (i = 0; i < N; i++) {
		/* Numbers grow by a block's length; sometimes one repeats
		 * (a snapshot taken again at the same instruction). */
		n += i % 50 == 0 ? 0 : 1 + xr() % 12;
		next_regs(&cur, i);
		ref[i] = cur;
		num[i] = n;
		assert_int_equal(ptd__soft_regs_push(&s, n, &cur), 0);
	}
	assert_true(s.nblk > 2); /* several deflated blocks */
	/* A few bytes a snapshot, not the 216 of the registers. */
	assert_true(ptd__soft_regs_bytes(&s) < (size_t)N * 16);

	/* Exact at every number, newest of equal numbers; "near" between. */
	for (i = 0; i < N; i++) {
		if (i + 1 < N && num[i + 1] == num[i])
			continue;
		assert_int_equal(ptd__soft_regs_near(&s, num[i], &r, &at), 0);
		assert_int_equal(at, num[i]);
		assert_memory_equal(&r, &ref[i], sizeof(r));
		if (i + 1 < N && num[i + 1] > num[i] + 1) {
			assert_int_equal(ptd__soft_regs_near(&s, num[i] + 1, &r, &at), 0);
			assert_int_equal(at, num[i]);
			assert_memory_equal(&r, &ref[i], sizeof(r));
		}
	}
	assert_int_equal(ptd__soft_regs_near(&s, num[0] - 1, &r, &at), -ptde_notfound);
	assert_int_equal(ptd__soft_regs_near(&s, num[N - 1] + 1000, &r, &at), 0);
	assert_int_equal(at, num[N - 1]);

	/* Dropping before the middle forgets whole blocks before it, keeps
	 * everything from it on exactly. */
	size_t before = ptd__soft_regs_bytes(&s), mid = N / 2;
	ptd__soft_regs_drop_before(&s, num[mid]);
	assert_true(ptd__soft_regs_bytes(&s) < before);
	assert_int_equal(ptd__soft_regs_near(&s, num[0], &r, &at), -ptde_notfound);
	for (i = mid; i < N; i += 7) {
		if (i + 1 < N && num[i + 1] == num[i])
			continue;
		assert_int_equal(ptd__soft_regs_near(&s, num[i], &r, &at), 0);
		assert_int_equal(at, num[i]);
		assert_memory_equal(&r, &ref[i], sizeof(r));
	}
	/* Pushing goes on after a drop. */
	next_regs(&cur, N);
	assert_int_equal(ptd__soft_regs_push(&s, n + 5, &cur), 0);
	assert_int_equal(ptd__soft_regs_near(&s, n + 9, &r, &at), 0);
	assert_int_equal(at, n + 5);
	assert_memory_equal(&r, &cur, sizeof(r));
	/* Everything dropped: nothing found, nothing held but buffers. */
	ptd__soft_regs_drop_before(&s, n + 100);
	assert_int_equal(s.nblk, 0);
	ptd__soft_regs_fini(&s);
	free(ref);
	free(num);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_null),
		cmocka_unit_test(test_roundtrip_drop),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
