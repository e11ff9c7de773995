/*
 * Unit tests for naming code as gdb does (src/symbols/symbols.c): the
 * DWARF function's linkage name (an asm label, as glibc's __GI_ names),
 * gdb's minimal-symbol pick among ELF aliases at one address for
 * ptd_symbols_minimal (info symbol), and every alias found by name.  A
 * fixture program is compiled at setup; each function has a NULL case.
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

#include "ptdbg/ptdbg.h"
#include "symbols/symbols.h"

static char dir[64], exe[96];

static const char src[] = "int impl_fn(int x) { return x + 1; }\n"
			  "extern int zz_alias(int) __attribute__((alias(\"impl_fn\")));\n"
			  "int asm_named(int x) __asm__(\"asm_label_fn\");\n"
			  "int asm_named(int x) { return x * 2; }\n"
			  "int main(void) { return impl_fn(1) + asm_named(2); }\n";

static int setup(void **state)
{
	char cmd[300];
	FILE *f;

	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/ptd-namestest-XXXXXX");
	if (!mkdtemp(dir))
		return -1;
	snprintf(cmd, sizeof(cmd), "%s/t.c", dir);
	f = fopen(cmd, "w");
	if (!f)
		return -1;
	fputs(src, f);
	fclose(f);
	snprintf(exe, sizeof(exe), "%s/t", dir);
	snprintf(cmd, sizeof(cmd), "cd %s && cc -g -O0 -no-pie -o t t.c", dir);
	return system(cmd) == 0 ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	return system(cmd) == 0 ? 0 : -1;
}

static void test_names(void **state)
{
	struct ptd_symbols *s;
	struct ptd_symbol sym;
	uint64_t impl, alias, asmfn;
	char sect[32];

	(void)state;
	assert_int_equal(ptd_symbols_alloc_file(&s, exe, 0), 0);
	/* every alias by name, at one address */
	assert_int_equal(ptd_symbols_function(s, "impl_fn", &impl, NULL), 0);
	assert_int_equal(ptd_symbols_function(s, "zz_alias", &alias, NULL), 0);
	assert_int_equal(impl, alias);
	assert_int_equal(ptd_symbols_function(s, "asm_label_fn", &asmfn, NULL), 0);
	/* the DWARF name: the function's, and an asm label's linkage name */
	assert_int_equal(ptd_symbols_lookup(s, impl + 1, &sym), 0);
	assert_string_equal(sym.name, "impl_fn");
	assert_int_equal(sym.start, impl);
	assert_int_equal(sym.offset, 1);
	assert_int_equal(ptd_symbols_lookup(s, asmfn, &sym), 0);
	assert_string_equal(sym.name, "asm_label_fn");
	/* gdb's minimal symbol: of the global aliases the last by name */
	assert_int_equal(ptd_symbols_minimal(s, impl + 1, &sym, sect, sizeof(sect)), 0);
	assert_string_equal(sym.name, "zz_alias");
	assert_int_equal(sym.offset, 1);
	assert_string_equal(sect, ".text");
	assert_int_equal(ptd_symbols_minimal(s, 0, &sym, sect, sizeof(sect)), -ptde_notfound);
	ptd_symbols_free(s);
}

static void test_null(void **state)
{
	struct ptd_symbol sym;
	char sect[8];

	(void)state;
	assert_int_equal(ptd_symbols_minimal(NULL, 0, &sym, sect, sizeof(sect)), -ptde_invalid);
	assert_int_equal(ptd_values_bind_caller(NULL, 0), -ptde_invalid);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_null),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
