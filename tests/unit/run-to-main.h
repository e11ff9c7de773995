/*
 * Test helper shared by test-soft.c and recdrive.h (test-ptrec, test-btsrec):
 * runs a program launched at its first instruction, untraced, to the
 * entry of its main, so that a recording can start there.  Include after
 * <cmocka.h>.
 */
#ifndef TESTS_UNIT_RUN_TO_MAIN_H
#define TESTS_UNIT_RUN_TO_MAIN_H

#include <stdint.h>

#include "symbols/symbols.h"
#include "target/target.h"

static void run_to_main(struct ptd_target *t, const char *path)
{
	struct ptd_symbols *sym = NULL;
	uint64_t entry = 0, bp = 0;

	assert_int_equal(ptd_symbols_alloc_file(&sym, path, 0), 0);
	assert_int_equal(ptd_symbols_function(sym, "main", &entry, &bp), 0);
	ptd_symbols_free(sym);
	assert_int_equal(ptd_target_bp_insert(t, entry), 0);
	assert_int_equal(ptd_target_bp_enable(t, 1), 0);
	assert_int_equal(ptd_target_resume(t, ptd_target_pid(t), 0, 0), 0);
	for (;;) {
		struct ptd_stop st;

		assert_int_equal(ptd_target_wait(t, &st, 1), 0);
		if (st.kind == PTD_STOP_BREAKPOINT && st.pc == entry)
			break;
		/* nothing else stops a program before main (an exit stop
		 * would mean it never got there) */
		assert_true(st.kind != PTD_STOP_EXITED && st.kind != PTD_STOP_KILLED);
		assert_int_equal(ptd_target_resume(t, st.tid, 0, 0), 0);
	}
	assert_int_equal(ptd_target_bp_remove(t, entry), 0);
}

#endif
