/*
 * Record options (ptd_session_set_record_option / _get_): every pt and bts
 * option round-trips, bad names and values are refused with a message that
 * says what is valid, filters append up to the PMU's limit and "none"
 * clears them, and soft/step buffer-size is the session's bound.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "ptdbg/ptdbg.h"
#include "record/ptrec.h"
#include "session/session.h"

static void expect_opt(struct ptd_session *s, enum ptd_method m, const char *name, const char *want)
{
	char buf[256];

	assert_int_equal(ptd_session_get_record_option(s, m, name, buf, sizeof(buf)), 0);
	assert_string_equal(buf, want);
}

static void expect_bad(struct ptd_session *s, enum ptd_method m, const char *name,
		       const char *value, const char *msg)
{
	ptd_clear_error();
	assert_int_equal(ptd_session_set_record_option(s, m, name, value), -ptde_invalid);
	if (!strstr(ptd_last_error(-ptde_invalid), msg))
		fail_msg("'%s %s': message '%s' lacks '%s'", name, value,
			 ptd_last_error(-ptde_invalid), msg);
}

static void test_pt_defaults(void **state)
{
	struct ptd_session *s = ptd_session_alloc();

	(void)state;
	expect_opt(s, PTD_METHOD_PT, "buffer-size", "4194304");
	expect_opt(s, PTD_METHOD_PT, "buffer", "circular");
	expect_opt(s, PTD_METHOD_PT, "kernel", "off");
	expect_opt(s, PTD_METHOD_PT, "ret-compression", "default");
	expect_opt(s, PTD_METHOD_PT, "tsc", "default");
	expect_opt(s, PTD_METHOD_PT, "mtc", "default");
	expect_opt(s, PTD_METHOD_PT, "cyc", "default");
	expect_opt(s, PTD_METHOD_PT, "psb-period", "default");
	expect_opt(s, PTD_METHOD_PT, "filter", "none");
	expect_opt(s, PTD_METHOD_BTS, "buffer-size", "1048576");
	ptd_session_free(s);
}

static void test_pt_set(void **state)
{
	struct ptd_session *s = ptd_session_alloc();

	(void)state;
	assert_int_equal(ptd_session_set_record_option(s, PTD_METHOD_PT, "buffer-size", "8M"), 0);
	expect_opt(s, PTD_METHOD_PT, "buffer-size", "8388608");
	assert_int_equal(ptd_session_set_record_option(s, PTD_METHOD_PT, "buffer-size", "4k"), 0);
	expect_opt(s, PTD_METHOD_PT, "buffer-size", "4096");
	assert_int_equal(ptd_session_set_record_option(s, PTD_METHOD_PT, "buffer", "full"), 0);
	expect_opt(s, PTD_METHOD_PT, "buffer", "full");
	assert_int_equal(ptd_session_set_record_option(s, PTD_METHOD_PT, "buffer", "circular"), 0);
	expect_opt(s, PTD_METHOD_PT, "buffer", "circular");
	assert_int_equal(ptd_session_set_record_option(s, PTD_METHOD_PT, "kernel", "on"), 0);
	expect_opt(s, PTD_METHOD_PT, "kernel", "on");
	assert_int_equal(ptd_session_set_record_option(s, PTD_METHOD_PT, "ret-compression", "off"),
			 0);
	expect_opt(s, PTD_METHOD_PT, "ret-compression", "off");
	assert_int_equal(ptd_session_set_record_option(s, PTD_METHOD_PT, "tsc", "on"), 0);
	expect_opt(s, PTD_METHOD_PT, "tsc", "on");
	assert_int_equal(ptd_session_set_record_option(s, PTD_METHOD_PT, "mtc", "off"), 0);
	expect_opt(s, PTD_METHOD_PT, "mtc", "off");
	assert_int_equal(ptd_session_set_record_option(s, PTD_METHOD_PT, "cyc", "1"), 0);
	expect_opt(s, PTD_METHOD_PT, "cyc", "on");
	assert_int_equal(ptd_session_set_record_option(s, PTD_METHOD_PT, "cyc", "default"), 0);
	expect_opt(s, PTD_METHOD_PT, "cyc", "default");
	assert_int_equal(ptd_session_set_record_option(s, PTD_METHOD_PT, "psb-period", "3"), 0);
	expect_opt(s, PTD_METHOD_PT, "psb-period", "3");
	assert_int_equal(ptd_session_set_record_option(s, PTD_METHOD_BTS, "buffer-size", "64K"), 0);
	expect_opt(s, PTD_METHOD_BTS, "buffer-size", "65536");
	ptd_session_free(s);
}

static void test_pt_filters(void **state)
{
	struct ptd_session *s = ptd_session_alloc();
	char spec[64];

	(void)state;
	for (int i = 0; i < PTD_PT_FILTERS_MAX; i++) {
		snprintf(spec, sizeof(spec), "0x%x/0x100@/bin/true", 0x1000 * (i + 1));
		assert_int_equal(ptd_session_set_record_option(s, PTD_METHOD_PT, "filter", spec),
				 0);
	}
	expect_opt(s, PTD_METHOD_PT, "filter",
		   "0x1000/0x100@/bin/true\n0x2000/0x100@/bin/true\n"
		   "0x3000/0x100@/bin/true\n0x4000/0x100@/bin/true");
	expect_bad(s, PTD_METHOD_PT, "filter", "main@/bin/true", "too many pt filters (at most 4");
	assert_int_equal(ptd_session_set_record_option(s, PTD_METHOD_PT, "filter", "none"), 0);
	expect_opt(s, PTD_METHOD_PT, "filter", "none");
	assert_int_equal(
		ptd_session_set_record_option(s, PTD_METHOD_PT, "filter", "main@/bin/true"), 0);
	expect_opt(s, PTD_METHOD_PT, "filter", "main@/bin/true");
	expect_bad(s, PTD_METHOD_PT, "filter", "", "invalid pt filter");
	ptd_session_free(s); /* frees the filter left */
}

static void test_bad(void **state)
{
	struct ptd_session *s = ptd_session_alloc();
	char buf[64];

	(void)state;
	expect_bad(s, PTD_METHOD_PT, "buffer-size", "3000", "a power of two of pages");
	expect_bad(s, PTD_METHOD_PT, "buffer-size", "12K", "a power of two of pages");
	expect_bad(s, PTD_METHOD_PT, "buffer-size", "lots", "invalid pt buffer-size \"lots\"");
	expect_bad(s, PTD_METHOD_PT, "buffer-size", "-4096", "invalid pt buffer-size");
	expect_bad(s, PTD_METHOD_PT, "buffer-size", "unlimited", "invalid pt buffer-size");
	expect_bad(s, PTD_METHOD_PT, "buffer", "round", "circular");
	expect_bad(s, PTD_METHOD_PT, "kernel", "maybe", "on or off");
	expect_bad(s, PTD_METHOD_PT, "kernel", "default", "on or off");
	expect_bad(s, PTD_METHOD_PT, "tsc", "sometimes", "on or off, or default");
	expect_bad(s, PTD_METHOD_PT, "psb-period", "16", "0..15");
	expect_bad(s, PTD_METHOD_PT, "psb-period", "x", "0..15");
	expect_bad(s, PTD_METHOD_PT, "speed", "fast",
		   "unknown pt option \"speed\" (buffer-size, buffer, kernel");
	expect_bad(s, PTD_METHOD_BTS, "buffer", "full",
		   "unknown bts option \"buffer\" (buffer-size)");
	expect_bad(s, PTD_METHOD_BTS, "buffer-size", "5000", "a power of two of pages");
	expect_bad(s, PTD_METHOD_SOFT, "filter", "x", "unknown soft option \"filter\"");
	expect_bad(s, PTD_METHOD_AUTO, "buffer-size", "4M", "method 'auto' has no options");
	/* the values stay what they were */
	expect_opt(s, PTD_METHOD_PT, "buffer-size", "4194304");
	expect_opt(s, PTD_METHOD_PT, "buffer", "circular");
	ptd_clear_error();
	assert_int_equal(ptd_session_get_record_option(s, PTD_METHOD_PT, "speed", buf, sizeof(buf)),
			 -ptde_invalid);
	assert_non_null(strstr(ptd_last_error(-ptde_invalid), "unknown pt option \"speed\""));
	assert_int_equal(ptd_session_set_record_option(NULL, PTD_METHOD_PT, "tsc", "on"),
			 -ptde_invalid);
	assert_int_equal(ptd_session_set_record_option(s, PTD_METHOD_PT, NULL, "on"),
			 -ptde_invalid);
	assert_int_equal(ptd_session_get_record_option(s, PTD_METHOD_PT, "tsc", NULL, 0),
			 -ptde_invalid);
	ptd_session_free(s);
}

static void test_soft_step_buffer(void **state)
{
	struct ptd_session *s = ptd_session_alloc();

	(void)state;
	assert_int_equal(ptd_session_set_record_option(s, PTD_METHOD_SOFT, "buffer-size", "1M"), 0);
	assert_int_equal(ptd_session_buffer_size(s, PTD_METHOD_SOFT), 1u << 20);
	expect_opt(s, PTD_METHOD_SOFT, "buffer-size", "1048576");
	assert_int_equal(
		ptd_session_set_record_option(s, PTD_METHOD_STEP, "buffer-size", "unlimited"), 0);
	assert_int_equal(ptd_session_buffer_size(s, PTD_METHOD_STEP), 0);
	expect_opt(s, PTD_METHOD_STEP, "buffer-size", "unlimited");
	/* the session's own minimum */
	expect_bad(s, PTD_METHOD_SOFT, "buffer-size", "1K", "too small");
	expect_opt(s, PTD_METHOD_SOFT, "buffer-size", "1048576");
	ptd_session_free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pt_defaults),	 cmocka_unit_test(test_pt_set),
		cmocka_unit_test(test_pt_filters),	 cmocka_unit_test(test_bad),
		cmocka_unit_test(test_soft_step_buffer),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
