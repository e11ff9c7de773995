/*
 * Unit tests for the pt and bts settings by name (src/record/recopts.c)
 * and the session's copy of them (src/session/record_options.c): every
 * option set and shown back in canonical form, every bad value refused
 * with a message that says what is valid, filters added up to the limit
 * and removed, and filters resolved the way the kernel wants them
 * (START/SIZE@FILE with START an offset in FILE) -- a function's offset
 * is checked against the file's bytes, which must be the function's code.
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
#include "record/recopts.h"
#include "session/record_options.h"
#include "session/session.h"
#include "symbols/symbols.h"

static const char *get(const struct ptd_ptrec_config *c, const char *name)
{
	static char buf[1024];

	assert_true(ptd_recopts_pt_get(c, name, buf, sizeof(buf)) >= 0);
	return buf;
}

static void test_pt_defaults(void **state)
{
	struct ptd_ptrec_config c;

	ptd_recopts_pt_init(&c);
	assert_string_equal(get(&c, "buffer-size"), "4194304");
	assert_string_equal(get(&c, "buffer"), "circular");
	assert_string_equal(get(&c, "kernel"), "off");
	assert_string_equal(get(&c, "ret-compression"), "auto");
	assert_string_equal(get(&c, "tsc"), "auto");
	assert_string_equal(get(&c, "mtc"), "auto");
	assert_string_equal(get(&c, "cyc"), "auto");
	assert_string_equal(get(&c, "psb-period"), "auto");
	assert_string_equal(get(&c, "filter"), "none");
	assert_int_equal(c.buffer_size, 0);
	assert_int_equal(c.ret_compression, -1);
	assert_int_equal(c.psb_period, -1);
	/* every listed name can be shown */
	for (int i = 0; ptd_recopts_pt_names[i]; i++)
		get(&c, ptd_recopts_pt_names[i]);
	ptd_recopts_pt_fini(&c);
}

/* Table: name, value, 0 or the error, the value shown afterwards. */
static const struct {
	const char *name, *value;
	int rc;
	const char *shown;
} pt_rows[] = {
	{ "buffer-size", "8M", 0, "8388608" },
	{ "buffer-size", "16k", 0, "16384" },
	{ "buffer-size", "8K", 0, "8192" },
	{ "buffer-size", "4K", -ptde_invalid, NULL },     /* pt wants 2 pages */
	{ "buffer-size", " 65536 ", 0, "65536" },
	{ "buffer-size", "0x2000", 0, "8192" },
	{ "buffer-size", "4G", 0, "4294967296" },
	{ "buffer-size", "default", 0, "4194304" },
	{ "buffer-size", "0", 0, "4194304" },
	{ "buffer-size", "5000", -ptde_invalid, NULL },   /* not whole pages */
	{ "buffer-size", "12K", -ptde_invalid, NULL },    /* 3 pages */
	{ "buffer-size", "8G", -ptde_invalid, NULL },     /* too large */
	{ "buffer-size", "lots", -ptde_invalid, NULL },
	{ "buffer-size", "4Q", -ptde_invalid, NULL },
	{ "buffer-size", "99999999999999999999", -ptde_invalid, NULL },
	{ "buffer-size", "", -ptde_invalid, NULL },
	{ "buffer", "full", 0, "full" },
	{ "buffer", "linear", 0, "full" },
	{ "buffer", "circular", 0, "circular" },
	{ "buffer", "round", -ptde_invalid, NULL },
	{ "kernel", "on", 0, "on" },
	{ "kernel", "off", 0, "off" },
	{ "kernel", "auto", -ptde_invalid, NULL },
	{ "ret-compression", "off", 0, "off" },
	{ "ret-compression", "auto", 0, "auto" },
	{ "ret-compression", "on", 0, "on" },
	{ "tsc", "off", 0, "off" },
	{ "mtc", "on", 0, "on" },
	{ "cyc", "on", 0, "on" },
	{ "cyc", "maybe", -ptde_invalid, NULL },
	{ "psb-period", "0", 0, "0" },
	{ "psb-period", "15", 0, "15" },
	{ "psb-period", "16", -ptde_invalid, NULL },
	{ "psb-period", "-1", -ptde_invalid, NULL },
	{ "psb-period", "3x", -ptde_invalid, NULL },
	{ "psb-period", "auto", 0, "auto" },
	{ "filter", "main", 0, "main" },
	{ "filter", "0x1000/0x200@/bin/sh", 0, "main, 0x1000/0x200@/bin/sh" },
	{ "filter", "main", 0, "main, 0x1000/0x200@/bin/sh" }, /* already there */
	{ "filter", "0x1000/0@/bin/sh", -ptde_invalid, NULL },  /* size 0 */
	{ "filter", "0x1000/0x10@", -ptde_invalid, NULL },      /* no file */
	{ "filter", "12/zz@/bin/sh", -ptde_invalid, NULL },
	{ "filter", "a b", -ptde_invalid, NULL },
	{ "filter", "/usr/lib/x.so", 0, "main, 0x1000/0x200@/bin/sh, /usr/lib/x.so" },
	{ "filter", "fib@prog", 0, "main, 0x1000/0x200@/bin/sh, /usr/lib/x.so, fib@prog" },
	{ "filter", "one_too_many", -ptde_invalid, NULL },
	{ "filter", "none", 0, "none" },
	{ "filter", "", -ptde_invalid, NULL },
	{ "colour", "on", -ptde_notfound, NULL },
	{ NULL, NULL, 0, NULL },
};

static void test_pt_table(void **state)
{
	struct ptd_ptrec_config c;

	ptd_recopts_pt_init(&c);
	for (int i = 0; pt_rows[i].name; i++) {
		int rc;

		ptd_clear_error();
		rc = ptd_recopts_pt_set(&c, pt_rows[i].name, pt_rows[i].value);
		if (rc != pt_rows[i].rc)
			fail_msg("row %d: set %s \"%s\" gave %d, wanted %d (%s)", i, pt_rows[i].name,
				 pt_rows[i].value, rc, pt_rows[i].rc, ptd_last_error(rc));
		if (rc < 0) {
			/* the message names the value */
			assert_true(ptd_last_error(rc)[0] != '\0');
			continue;
		}
		if (strcmp(get(&c, pt_rows[i].name), pt_rows[i].shown))
			fail_msg("row %d: %s shows \"%s\", wanted \"%s\"", i, pt_rows[i].name,
				 get(&c, pt_rows[i].name), pt_rows[i].shown);
	}
	ptd_recopts_pt_fini(&c);
}

static void test_pt_config_fields(void **state)
{
	struct ptd_ptrec_config c, d;

	ptd_recopts_pt_init(&c);
	assert_int_equal(ptd_recopts_pt_set(&c, "buffer", "full"), 0);
	assert_int_equal(ptd_recopts_pt_set(&c, "buffer-size", "64K"), 0);
	assert_int_equal(ptd_recopts_pt_set(&c, "kernel", "on"), 0);
	assert_int_equal(ptd_recopts_pt_set(&c, "ret-compression", "off"), 0);
	assert_int_equal(ptd_recopts_pt_set(&c, "tsc", "off"), 0);
	assert_int_equal(ptd_recopts_pt_set(&c, "mtc", "on"), 0);
	assert_int_equal(ptd_recopts_pt_set(&c, "cyc", "auto"), 0);
	assert_int_equal(ptd_recopts_pt_set(&c, "psb-period", "5"), 0);
	assert_int_equal(ptd_recopts_pt_set(&c, "filter", "main"), 0);
	assert_int_equal(c.linear, 1);
	assert_int_equal(c.buffer_size, 65536);
	assert_int_equal(c.kernel, 1);
	assert_int_equal(c.ret_compression, 0);
	assert_int_equal(c.tsc, 0);
	assert_int_equal(c.mtc, 1);
	assert_int_equal(c.cyc, -1);
	assert_int_equal(c.psb_period, 5);
	assert_int_equal(c.nfilters, 1);
	assert_string_equal(c.filters[0], "main");
	/* a deep copy outlives the original */
	assert_int_equal(ptd_recopts_pt_copy(&d, &c), 0);
	assert_ptr_not_equal(d.filters[0], c.filters[0]);
	ptd_recopts_pt_fini(&c);
	assert_int_equal(c.nfilters, 0);
	assert_string_equal(d.filters[0], "main");
	assert_int_equal(d.psb_period, 5);
	ptd_recopts_pt_fini(&d);
	ptd_recopts_pt_fini(NULL);
}

static void test_bts(void **state)
{
	struct ptd_btsrec_config c;
	char buf[64];

	ptd_recopts_bts_init(&c);
	assert_int_equal(ptd_recopts_bts_get(&c, "buffer-size", buf, sizeof(buf)), 7);
	assert_string_equal(buf, "1048576");
	assert_int_equal(ptd_recopts_bts_set(&c, "buffer-size", "64K"), 0);
	assert_int_equal(c.buffer_size, 65536);
	assert_int_equal(ptd_recopts_bts_set(&c, "buffer-size", "3K"), -ptde_invalid);
	assert_int_equal(ptd_recopts_bts_set(&c, "buffer-size", "4K"), 0);
	assert_int_equal(c.buffer_size, 4096);
	assert_int_equal(ptd_recopts_bts_set(&c, "buffer", "full"), -ptde_notfound);
	assert_non_null(strstr(ptd_last_error(-ptde_notfound), "buffer-size"));
	assert_int_equal(ptd_recopts_bts_get(&c, "kernel", buf, sizeof(buf)), -ptde_notfound);
	/* too small a buffer for the value */
	assert_int_equal(ptd_recopts_bts_get(&c, "buffer-size", buf, 3), -ptde_invalid);
	assert_int_equal(ptd_recopts_bts_set(NULL, "buffer-size", "4K"), -ptde_invalid);
	assert_int_equal(ptd_recopts_pt_set(NULL, "buffer", "full"), -ptde_invalid);
	assert_int_equal(ptd_recopts_pt_get(NULL, "buffer", buf, sizeof(buf)), -ptde_invalid);
}

static void test_filter_range(void **state)
{
	unsigned long long start = 0, size = 0;
	const char *file = NULL;

	assert_int_equal(ptd_recopts_filter_range("0x400/0x80@/bin/true", &start, &size, &file), 1);
	assert_int_equal(start, 0x400);
	assert_int_equal(size, 0x80);
	assert_string_equal(file, "/bin/true");
	assert_int_equal(ptd_recopts_filter_range("main", &start, &size, &file), 0);
	assert_int_equal(ptd_recopts_filter_range("/bin/true", &start, &size, &file), 0);
	assert_int_equal(ptd_recopts_filter_range("fib@prog", &start, &size, &file), 0);
	assert_int_equal(ptd_recopts_filter_range("1/2", &start, &size, &file), 0);
	assert_int_equal(ptd_recopts_filter_range("1/2@", &start, &size, &file), -ptde_invalid);
	assert_int_equal(ptd_recopts_filter_range("0xffffffffffffffff/2@/x", &start, &size, &file),
			 -ptde_invalid);
}

/* The session keeps the settings and gives them back; other methods
 * have none. */
static void test_session_options(void **state)
{
	struct ptd_session *s = ptd_session_alloc();
	char buf[256];

	assert_non_null(s);
	assert_int_equal(ptd_session_set_record_option(s, PTD_METHOD_PT, "buffer", "full"), 0);
	assert_int_equal(ptd_session_set_record_option(s, PTD_METHOD_PT, "filter", "main"), 0);
	assert_int_equal(ptd_session_set_record_option(s, PTD_METHOD_BTS, "buffer-size", "2M"), 0);
	assert_true(ptd_session_get_record_option(s, PTD_METHOD_PT, "buffer", buf, sizeof(buf)) > 0);
	assert_string_equal(buf, "full");
	assert_true(ptd_session_get_record_option(s, PTD_METHOD_PT, "filter", buf, sizeof(buf)) > 0);
	assert_string_equal(buf, "main");
	assert_true(ptd_session_get_record_option(s, PTD_METHOD_BTS, "buffer-size", buf,
						  sizeof(buf)) > 0);
	assert_string_equal(buf, "2097152");
	assert_int_equal(ptd_session_set_record_option(s, PTD_METHOD_SOFT, "buffer", "full"),
			 -ptde_invalid);
	assert_int_equal(ptd_session_get_record_option(s, PTD_METHOD_STEP, "buffer", buf,
						       sizeof(buf)),
			 -ptde_invalid);
	assert_int_equal(ptd_session_set_record_option(s, PTD_METHOD_PT, "buffer", "round"),
			 -ptde_invalid);
	assert_int_equal(ptd_session_set_record_option(NULL, PTD_METHOD_PT, "buffer", "full"),
			 -ptde_invalid);
	/* the session frees the filters it keeps (the sanitized build checks) */
	ptd_session_free(s);
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
	assert_int_equal(ptd__record_filter_resolve("0x10/0x20@/proc/self/exe", 0, NULL, out,
						    sizeof(out)),
			 0);
	snprintf(path, sizeof(path), "filter 0x10/0x20@%s", exe);
	assert_string_equal(out, path);
	/* FILE: all of it */
	assert_int_equal(ptd__record_filter_resolve(exe, 0, NULL, out, sizeof(out)), 0);
	snprintf(path, sizeof(path), "filter 0x0/0x%llx@%s", (unsigned long long)st.st_size, exe);
	assert_string_equal(out, path);
	assert_int_equal(ptd__record_filter_resolve("/no/such/file", 0, NULL, out, sizeof(out)),
			 -ptde_notfound);
	assert_int_equal(ptd__record_filter_resolve("1/2@/no/such/file", 0, NULL, out, sizeof(out)),
			 -ptde_notfound);
	/* FUNC needs the running program */
	assert_int_equal(ptd__record_filter_resolve("recopts_probe_fn", 0, NULL, out, sizeof(out)),
			 -ptde_not_running);

	assert_int_equal(ptd_symbols_alloc_pid(&sym, getpid()), 0);
	ptd_clear_error();
	if (ptd__record_filter_resolve("recopts_probe_fn", getpid(), sym, out, sizeof(out)) < 0)
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
		assert_int_equal(ptd__record_filter_resolve(spec, getpid(), sym, out, sizeof(out)),
				 0);
		snprintf(spec, sizeof(spec), "recopts_probe_fn@%s", exe);
		assert_int_equal(ptd__record_filter_resolve(spec, getpid(), sym, out, sizeof(out)),
				 0);
		assert_int_equal(ptd__record_filter_resolve("recopts_probe_fn@libc.so.6", getpid(),
							    sym, out, sizeof(out)),
				 -ptde_notfound);
	}
	assert_int_equal(ptd__record_filter_resolve("no_such_function_here", getpid(), sym, out,
						    sizeof(out)),
			 -ptde_notfound);
	assert_non_null(strstr(ptd_last_error(-ptde_notfound), "no_such_function_here"));

	/* the whole config: filters resolved, the rest copied */
	{
		struct ptd_record_options o;
		struct ptd_ptrec_config c;

		ptd__record_options_init(&o);
		assert_int_equal(ptd_recopts_pt_set(&o.pt, "buffer", "full"), 0);
		assert_int_equal(ptd_recopts_pt_set(&o.pt, "filter", "recopts_probe_fn"), 0);
		assert_int_equal(ptd_recopts_pt_set(&o.pt, "filter", exe), 0);
		assert_int_equal(ptd__record_options_pt_config(&o, getpid(), sym, &c), 0);
		assert_int_equal(c.linear, 1);
		assert_int_equal(c.nfilters, 2);
		assert_true(!strncmp(c.filters[0], "filter 0x", 9));
		assert_true(!strncmp(c.filters[1], "filter 0x0/", 11));
		/* the user's specs are kept as given */
		assert_string_equal(o.pt.filters[0], "recopts_probe_fn");
		ptd_recopts_pt_fini(&c);
		assert_int_equal(ptd_recopts_pt_set(&o.pt, "filter", "nothing_by_this_name"), 0);
		assert_int_equal(ptd__record_options_pt_config(&o, getpid(), sym, &c), -ptde_notfound);
		assert_int_equal(c.nfilters, 0);
		ptd__record_options_fini(&o);
	}
	ptd_symbols_free(sym);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pt_defaults),
		cmocka_unit_test(test_pt_table),
		cmocka_unit_test(test_pt_config_fields),
		cmocka_unit_test(test_bts),
		cmocka_unit_test(test_filter_range),
		cmocka_unit_test(test_session_options),
		cmocka_unit_test(test_filter_resolve),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
