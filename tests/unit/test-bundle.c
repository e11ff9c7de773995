/*
 * Unit tests for the bundle reader's guard against PT files truncated
 * while they are mapped (src/decode/bundle.c, docs/bundle.md): the lost
 * pages read as zeros instead of raising SIGBUS, ptd_bundle_check() names
 * the file, the SIGBUS handler is there only while guarded mappings exist,
 * and a SIGBUS that is not about a bundle still kills.
 */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "decode/bundle.h"
#include "ptdbg/ptdbg.h"

#define PAGES 5

static long page;

static void rm_rf(const char *dir)
{
	char cmd[600];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
}

/* Writes a bundle of one thread whose "PT" is PAGES pages of 0xab into
 * @dir; the path of the PT file goes to @pt. */
static void make_bundle(const char *dir, char *pt, size_t n)
{
	struct ptd_cpu cpu = { 0, 0, 0 };
	struct ptd_bundle *b = ptd_bundle_new(&cpu);
	size_t size = (size_t)page * PAGES;
	uint8_t *bytes = malloc(size);

	assert_non_null(b);
	assert_non_null(bytes);
	memset(bytes, 0xab, size);
	assert_int_equal(ptd_bundle_add_thread(b, 7, bytes, size, 0), 0);
	assert_int_equal(ptd_bundle_save(b, dir), 0);
	ptd_bundle_free(b);
	free(bytes);
	snprintf(pt, n, "%s/pt-7.bin", dir);
}

static void *bus_handler(void)
{
	struct sigaction sa;

	assert_int_equal(sigaction(SIGBUS, NULL, &sa), 0);
	return (sa.sa_flags & SA_SIGINFO) ? (void *)sa.sa_sigaction : (void *)sa.sa_handler;
}

static void test_truncated_reads_zeros(void **state)
{
	char dir[] = "/tmp/ptd-bundle-XXXXXX", pt[600];
	struct ptd_bundle *b, *b2;
	void *before = bus_handler();
	volatile const uint8_t *p;

	(void)state;
	assert_non_null(mkdtemp(dir));
	make_bundle(dir, pt, sizeof(pt));
	assert_int_equal(ptd_bundle_load(dir, &b), 0);
	assert_int_equal(b->nthreads, 1);
	assert_true(b->threads[0].mapped);
	assert_int_equal(b->threads[0].size, (size_t)page * PAGES);
	assert_ptr_not_equal(bus_handler(), before);
	p = b->threads[0].pt;
	assert_int_equal(p[0], 0xab);
	assert_int_equal(p[3 * page], 0xab);
	assert_int_equal(ptd_bundle_check(b), 0);

	/* Another process cuts the file in the middle of its second page. */
	assert_int_equal(truncate(pt, page + 100), 0);
	assert_int_equal(p[99], 0xab);
	assert_int_equal(p[page + 99], 0xab);
	assert_int_equal(p[page + 100], 0);      /* past the end, same page */
	assert_int_equal(p[3 * page + 5], 0);    /* a lost page: SIGBUS before */
	assert_int_equal(p[PAGES * page - 1], 0);
	assert_int_equal(p[99], 0xab);           /* what is left stays */
	assert_int_equal(ptd_bundle_check(b), -ptde_bad_trace);
	assert_non_null(strstr(ptd_last_error(-ptde_bad_trace), pt));
	assert_non_null(strstr(ptd_last_error(-ptde_bad_trace), "truncated while loaded"));

	/* A second bundle while the first is loaded: its own guard. */
	assert_int_equal(truncate(pt, (off_t)page * PAGES), 0);
	assert_int_equal(ptd_bundle_load(dir, &b2), 0);
	assert_int_equal(ptd_bundle_check(b2), 0);
	ptd_bundle_free(b);
	assert_ptr_not_equal(bus_handler(), before);
	assert_int_equal(truncate(pt, 0), 0);
	p = b2->threads[0].pt;
	assert_int_equal(p[2 * page], 0);
	assert_int_equal(ptd_bundle_check(b2), -ptde_bad_trace);
	ptd_bundle_free(b2);
	/* No guarded mapping left: the handler that was there is back. */
	assert_ptr_equal(bus_handler(), before);
	rm_rf(dir);
}

static void on_bus_42(int sig)
{
	(void)sig;
	_exit(42);
}

/* In a child: maps @path (two pages), truncates it, touches the lost
 * page.  Returns the child's wait status. */
static int child_touch(const char *path)
{
	int status;
	pid_t pid;

	fflush(NULL);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		FILE *f = fopen(path, "w+");
		volatile uint8_t *q;

		if (!f || ftruncate(fileno(f), page * 2) < 0)
			_exit(3);
		q = mmap(NULL, (size_t)page * 2, PROT_READ, MAP_SHARED, fileno(f), 0);
		if (q == MAP_FAILED || ftruncate(fileno(f), 0) < 0)
			_exit(3);
		(void)q[page];
		_exit(0); /* survived: the handler swallowed someone else's SIGBUS */
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	return status;
}

/* A SIGBUS that is no bundle's (another mapping of a truncated file) goes
 * where it went without ptdbg's handler: the default action kills, a
 * program's own handler runs. */
static void test_other_sigbus(void **state)
{
	char dir[] = "/tmp/ptd-bundle-XXXXXX", pt[600], other[700];
	struct sigaction saved;
	struct ptd_bundle *b;
	int st;

	(void)state;
	assert_non_null(mkdtemp(dir));
	make_bundle(dir, pt, sizeof(pt));
	snprintf(other, sizeof(other), "%s/other", dir);
	assert_int_equal(sigaction(SIGBUS, NULL, &saved), 0); /* cmocka's */

	signal(SIGBUS, SIG_DFL);
	assert_int_equal(ptd_bundle_load(dir, &b), 0);
	st = child_touch(other);
	assert_true(WIFSIGNALED(st));
	assert_int_equal(WTERMSIG(st), SIGBUS);
	assert_int_equal(ptd_bundle_check(b), 0);
	ptd_bundle_free(b);
	assert_ptr_equal(bus_handler(), (void *)SIG_DFL);

	signal(SIGBUS, on_bus_42);
	assert_int_equal(ptd_bundle_load(dir, &b), 0);
	st = child_touch(other);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 42);
	ptd_bundle_free(b);
	assert_ptr_equal(bus_handler(), (void *)on_bus_42);

	assert_int_equal(sigaction(SIGBUS, &saved, NULL), 0);
	rm_rf(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_truncated_reads_zeros),
		cmocka_unit_test(test_other_sigbus),
	};

	page = sysconf(_SC_PAGESIZE);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
