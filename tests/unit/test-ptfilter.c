/*
 * Unit tests for the pt recorder's address filters as the session resolves
 * them when a pt recording starts (src/session/ptfilter.c): the forms
 * START/SIZE@FILE, FILE, FUNC and FUNC@FILE become the kernel's "filter
 * START/SIZE@FILE" with START an offset in FILE -- a function's offset is
 * checked against the file's bytes, which must be the function's code --
 * and every form that names nothing is refused with a message naming it.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "ptdbg/ptdbg.h"
#include "session/ptfilter.h"
#include "symbols/symbols.h"

static void test_filter_range(void **state)
{
	unsigned long long start = 0, size = 0;
	const char *file = NULL;

	assert_int_equal(ptd__pt_filter_range("0x400/0x80@/bin/true", &start, &size, &file), 1);
	assert_int_equal(start, 0x400);
	assert_int_equal(size, 0x80);
	assert_string_equal(file, "/bin/true");
	assert_int_equal(ptd__pt_filter_range("main", &start, &size, &file), 0);
	assert_int_equal(ptd__pt_filter_range("/bin/true", &start, &size, &file), 0);
	assert_int_equal(ptd__pt_filter_range("fib@prog", &start, &size, &file), 0);
	assert_int_equal(ptd__pt_filter_range("1/2", &start, &size, &file), 0);
	assert_int_equal(ptd__pt_filter_range("1/2@", &start, &size, &file), -ptde_invalid);
	assert_int_equal(ptd__pt_filter_range("0xffffffffffffffff/2@/x", &start, &size, &file),
			 -ptde_invalid);
}

/* A function of this test binary, for the filter resolution below. */
__attribute__((noinline, used)) int recopts_probe_fn(int x);
__attribute__((noinline, used)) int recopts_probe_fn(int x)
{
	return x * 3 + 1;
}

/* Filters resolved as the kernel takes them: a function's START is its
 * offset in the file, and the file holds its code there. */
static void test_filter_resolve(void **state)
{
	struct ptd_symbols *sym = NULL;
	char out[2 * PATH_MAX], exe[PATH_MAX], path[2 * PATH_MAX];
	unsigned long long off, size;
	unsigned char file_bytes[16];
	struct stat st;
	ssize_t n;
	int fd;

	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	assert_true(n > 0);
	exe[n] = '\0';
	assert_int_equal(stat(exe, &st), 0);

	/* START/SIZE@FILE: the file's real path */
	assert_int_equal(ptd__pt_filter_resolve("0x10/0x20@/proc/self/exe", 0, NULL, out,
						    sizeof(out)),
			 0);
	snprintf(path, sizeof(path), "filter 0x10/0x20@%s", exe);
	assert_string_equal(out, path);
	/* FILE: all of it */
	assert_int_equal(ptd__pt_filter_resolve(exe, 0, NULL, out, sizeof(out)), 0);
	snprintf(path, sizeof(path), "filter 0x0/0x%llx@%s", (unsigned long long)st.st_size, exe);
	assert_string_equal(out, path);
	assert_int_equal(ptd__pt_filter_resolve("/no/such/file", 0, NULL, out, sizeof(out)),
			 -ptde_notfound);
	assert_int_equal(ptd__pt_filter_resolve("1/2@/no/such/file", 0, NULL, out, sizeof(out)),
			 -ptde_notfound);
	/* FUNC needs the running program */
	assert_int_equal(ptd__pt_filter_resolve("recopts_probe_fn", 0, NULL, out, sizeof(out)),
			 -ptde_not_running);

	assert_int_equal(ptd_symbols_alloc_pid(&sym, getpid()), 0);
	ptd_clear_error();
	if (ptd__pt_filter_resolve("recopts_probe_fn", getpid(), sym, out, sizeof(out)) < 0)
		fail_msg("cannot resolve recopts_probe_fn: %s", ptd_last_error(-ptde_notfound));
	assert_int_equal(sscanf(out, "filter 0x%llx/0x%llx@%4095s", &off, &size, path), 3);
	assert_string_equal(path, exe);
	assert_true(size > 0 && size < 4096);
	/* the bytes at that offset of the file are the function's code */
	fd = open(exe, O_RDONLY);
	assert_true(fd >= 0);
	assert_int_equal(pread(fd, file_bytes, sizeof(file_bytes), (off_t)off), sizeof(file_bytes));
	close(fd);
	assert_memory_equal(file_bytes, (const void *)(uintptr_t)&recopts_probe_fn,
			    sizeof(file_bytes));
	/* FUNC@FILE: the file by base name or path; another file is refused */
	{
		const char *base = strrchr(exe, '/') + 1;
		char spec[2 * PATH_MAX];

		snprintf(spec, sizeof(spec), "recopts_probe_fn@%s", base);
		assert_int_equal(ptd__pt_filter_resolve(spec, getpid(), sym, out, sizeof(out)),
				 0);
		snprintf(spec, sizeof(spec), "recopts_probe_fn@%s", exe);
		assert_int_equal(ptd__pt_filter_resolve(spec, getpid(), sym, out, sizeof(out)),
				 0);
		assert_int_equal(ptd__pt_filter_resolve("recopts_probe_fn@libc.so.6", getpid(),
							    sym, out, sizeof(out)),
				 -ptde_notfound);
	}
	assert_int_equal(ptd__pt_filter_resolve("no_such_function_here", getpid(), sym, out,
						    sizeof(out)),
			 -ptde_notfound);
	assert_non_null(strstr(ptd_last_error(-ptde_notfound), "no_such_function_here"));

	/* the whole config: filters resolved, the rest copied */
	{
		struct ptd_ptrec_config in, c;

		memset(&in, 0, sizeof(in));
		in.linear = 1;
		in.psb_period = 3;
		in.filters[0] = "recopts_probe_fn";
		in.filters[1] = exe;
		in.nfilters = 2;
		assert_int_equal(ptd__pt_config_resolve(&in, getpid(), sym, &c), 0);
		assert_int_equal(c.linear, 1);
		assert_int_equal(c.psb_period, 3);
		assert_int_equal(c.nfilters, 2);
		assert_true(!strncmp(c.filters[0], "filter 0x", 9));
		assert_true(!strncmp(c.filters[1], "filter 0x0/", 11));
		/* the user's specs are kept as given */
		assert_string_equal(in.filters[0], "recopts_probe_fn");
		ptd__pt_config_fini(&c);
		assert_int_equal(c.nfilters, 0);
		in.filters[2] = "nothing_by_this_name";
		in.nfilters = 3;
		assert_int_equal(ptd__pt_config_resolve(&in, getpid(), sym, &c), -ptde_notfound);
		assert_int_equal(c.nfilters, 0);
		ptd__pt_config_fini(NULL);
	}
	ptd_symbols_free(sym);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_filter_range),
		cmocka_unit_test(test_filter_resolve),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
