/*
 * The shell's recording status line (cmd/ptdbg/status.c), its decisions
 * driven with made-up clocks: nothing before the delay, a line after it,
 * redrawn at most every 200 ms, erased at the end only when drawn, and
 * nothing at all for a motion that ends before the delay.  (That the line
 * never reaches a pipe is tests/integration/status-line.sh.)
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "../../cmd/ptdbg/status.c"

#define MS 1000000ull
#define SEC 1000000000ull

static void test_before_delay(void **state)
{
	struct shell_status st;
	char out[160];

	(void)state;
	shell_status_start(&st, 5 * SEC, SEC);
	assert_int_equal(shell_status_update(&st, 5 * SEC, 10, 100, out, sizeof(out)), 0);
	assert_int_equal(shell_status_update(&st, 5 * SEC + 999 * MS, 10, 100, out, sizeof(out)), 0);
	/* a clock that went backwards draws nothing */
	assert_int_equal(shell_status_update(&st, 4 * SEC, 10, 100, out, sizeof(out)), 0);
	/* ended before the delay: nothing to erase */
	assert_int_equal(shell_status_end(&st, out, sizeof(out)), 0);
}

static void test_line_and_rate(void **state)
{
	struct shell_status st;
	char out[160];

	(void)state;
	shell_status_start(&st, 0, SEC);
	assert_int_equal(shell_status_update(&st, 2 * SEC, 3000000, 20u << 20, out, sizeof(out)), 1);
	assert_string_equal(out,
			    "\rRecording: 3000000 instructions, 20 MB, 1500000 insn/s\033[K");
	/* in place: starts with \r, erases the rest, no newline */
	assert_null(strchr(out, '\n'));
}

static void test_redraw_throttle(void **state)
{
	struct shell_status st;
	char out[160];

	(void)state;
	shell_status_start(&st, 0, SEC);
	assert_int_equal(shell_status_update(&st, SEC, 1, 1, out, sizeof(out)), 1);
	assert_int_equal(shell_status_update(&st, SEC + 199 * MS, 2, 2, out, sizeof(out)), 0);
	assert_int_equal(shell_status_update(&st, SEC + 200 * MS, 3, 5000, out, sizeof(out)), 1);
	assert_non_null(strstr(out, " 3 instructions, 5000 bytes, "));
	assert_int_equal(shell_status_end(&st, out, sizeof(out)), 1);
	assert_string_equal(out, "\r\033[K");
	/* after the end nothing more is drawn */
	assert_int_equal(shell_status_update(&st, 9 * SEC, 3, 5, out, sizeof(out)), 0);
	assert_int_equal(shell_status_end(&st, out, sizeof(out)), 0);
}

static void test_units(void **state)
{
	struct shell_status st;
	char out[160];

	(void)state;
	shell_status_start(&st, 0, 0);
	assert_int_equal(shell_status_update(&st, SEC, 0, 12u << 10, out, sizeof(out)), 1);
	assert_non_null(strstr(out, " 12 kB, 0 insn/s"));
	shell_status_start(&st, 0, 0);
	assert_int_equal(shell_status_update(&st, SEC, 0, 11ull << 30, out, sizeof(out)), 1);
	assert_non_null(strstr(out, " 11 GB, "));
	/* delay 0, elapsed 0: a line, and no division by zero */
	shell_status_start(&st, 7, 0);
	assert_int_equal(shell_status_update(&st, 7, 5, 5, out, sizeof(out)), 1);
	assert_non_null(strstr(out, " 0 insn/s"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_before_delay),
		cmocka_unit_test(test_line_and_rate),
		cmocka_unit_test(test_redraw_throttle),
		cmocka_unit_test(test_units),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
