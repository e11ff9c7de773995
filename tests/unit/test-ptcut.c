/*
 * Unit tests for ptd__pt_exit_cut (src/decode/ptcut.c): where a thread's
 * PT ends in the synchronous TIP.PGD of its exit syscall, which record
 * save leaves out so that the loaded history ends before that syscall.
 * Table-driven: raw packet bytes and the expected cut.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "decode/ptcut.h"

/* PSB (16 bytes), PSBEND */
#define PSB 0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82
#define PSBEND 0x02, 0x23
/* FUP with a 16-bit ip (ipc 1), TIP.PGD with its ip suppressed, TIP.PGE
 * with a 16-bit ip, a short TNT of one bit, PAD */
#define FUP16 0x3d, 0x00, 0x10
#define PGD 0x01
#define PGE16 0x31, 0x00, 0x10
#define TNT1 0x06
#define PAD 0x00

struct row {
	const char *what;
	uint8_t bytes[64];
	size_t n;
	size_t cut; /* expected; n: none */
};

static const struct row rows[] = {
	{ "syscall at the end", { PSB, PSBEND, PGE16, TNT1, PGD }, 23, 22 },
	{ "padding after it", { PSB, PSBEND, PGE16, TNT1, PGD, PAD, PAD }, 25, 22 },
	{ "asynchronous disable (FUP first)", { PSB, PSBEND, PGE16, FUP16, PGD }, 25, 25 },
	{ "a packet after it", { PSB, PSBEND, PGE16, PGD, TNT1 }, 23, 23 },
	{ "tracing on at the end", { PSB, PSBEND, PGE16, TNT1 }, 22, 22 },
	{ "a PGD with an ip", { PSB, PSBEND, PGE16, 0x21, 0x00, 0x10 }, 24, 24 },
	{ "no PSB", { PGE16, TNT1, PGD }, 5, 5 },
	{ "garbage", { 0xff, 0xff, 0xff, 0xff }, 4, 4 },
	{ NULL },
};

static void test_rows(void **state)
{
	(void)state;
	for (const struct row *r = rows; r->what; r++) {
		size_t got = ptd__pt_exit_cut(r->bytes, r->n);

		if (got != r->cut)
			fail_msg("%s: cut at %zu, expected %zu", r->what, got, r->cut);
	}
}

static void test_null(void **state)
{
	(void)state;
	assert_int_equal(ptd__pt_exit_cut(NULL, 0), 0);
	assert_int_equal(ptd__pt_exit_cut(NULL, 5), 5);
	assert_int_equal(ptd__pt_exit_cut((const uint8_t *)"", 0), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rows),
		cmocka_unit_test(test_null),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
