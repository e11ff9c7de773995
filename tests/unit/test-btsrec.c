/*
 * The BTS recorder on the simulated kernel (ptd_perf_kernel_sim("bts")),
 * against the step recorder: the same program single-stepped and recorded
 * from branch samples must give identical per-thread instruction
 * sequences (a simple program, threads, a signal handler, exec and
 * dlopen, whose code is gone when the records are read).  Also: a tiny
 * buffer that overflows gives a gap saying so; the kernel's error paths
 * give cause and fix; the erratum cpus are refused; and on this machine's
 * real kernel the probe refuses with a reason.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "record/btsrec.h"
#include "recdrive.h"

struct btsarg {
	struct ptd_btsrec_config cfg;
	const char *fail_op;
	int fail_err;
	int paranoid;
};

static struct ptd_recorder *make_bts(void *arg, const struct ptd_recorder_env *env)
{
	struct btsarg *a = arg;
	struct ptd_perf_kernel *k = ptd_perf_kernel_sim("bts");
	struct ptd_recorder *r;

	if (!k)
		print_error("simulated kernel: %s\n", ptd_last_error(-ptde_invalid));
	assert_non_null(k);
	if (a->paranoid)
		ptd_perf_sim_set_paranoid(k, a->paranoid);
	if (a->fail_op)
		ptd_perf_sim_fail(k, a->fail_op, a->fail_err);
	rd_sim = k;
	r = ptd_btsrec_recorder(k, env, &a->cfg);
	if (r) {
		assert_true(r->caps & PTD_REC_SIMULATED);
		assert_false(r->caps & PTD_REC_WRITES_PT);
		assert_string_equal(r->ops->name, "bts");
	}
	return r;
}

static void same_as_step_arg(const char *name, const char *arg, int deterministic)
{
	char *argv[] = { (char *)rd_testprog(name), (char *)arg, NULL };
	struct rd_result step, bts;
	struct btsarg a = { 0 };

	memset(&step, 0, sizeof(step));
	memset(&bts, 0, sizeof(bts));
	/* A run of its own under the step recorder: for a deterministic
	 * program (deterministic 2), and for the threads the simulation
	 * does not keep the history of (it keeps the first thread's). */
	if (deterministic == 2 || deterministic == 0)
		rd_run_step(argv, &step);
	assert_int_equal(rd_run_rec(argv, make_bts, &a, &bts), 0);
	if (step.nth) {
		assert_int_equal(bts.exit_code, step.exit_code);
		assert_int_equal(bts.nth, step.nth);
	}
	/* (the signal storm stops the program at every signal) */
	if (rd_sync_every)
		assert_true(bts.syncs >= 25);
	for (int i = 0; i < bts.nth; i++) {
		if (bts.th[i].gaps)
			print_error("thread %d: gap: %s\n", i, bts.th[i].gap_detail[0]);
		assert_int_equal(bts.th[i].gaps, 0);
		assert_true(bts.th[i].n > 0);
		/* The step recorder's history of this very run (the
		 * simulation keeps the main thread's), and of a run of its
		 * own where that is the same (see test-ptrec.c). */
		if (bts.truth[i])
			rd_same(&bts.tr[i], &bts.th[i], i);
		if (step.nth && (deterministic == 2 || i > 0))
			rd_same(&step.th[i], &bts.th[i], i);
		assert_true(bts.truth[i] || (step.nth && i > 0));
	}
	assert_non_null(strstr(bts.stats.pmu, "(simulated)"));
	assert_true(bts.stats.branches > 0);
	assert_int_equal(bts.stats.lost_bytes, 0);
	rd_free(&step);
	rd_free(&bts);
}

static void same_as_step(const char *name, int deterministic)
{
	same_as_step_arg(name, NULL, deterministic);
}

/* A signal storm with the history read at every stop. */
static void test_sigstorm_sync_every(void **state)
{
	(void)state;
	rd_sync_every = 1;
	same_as_step_arg("sigstorm", "25", 0);
	rd_sync_every = 0;
}

/* More testprogs, each deterministic: calls through pointers, jump
 * tables, tail calls, longjmp, exec, dlopen, fork (the child is not
 * recorded).  exec and dlopen read the records after the code is gone
 * (this driver never calls before_unmap): they are walked in the image
 * the MMAP2 and COMM exec sideband builds.  (jit is left to the
 * session's tests: its anonymous code has no file to read it again
 * from, and this driver keeps no unmapped code.) */
static void test_more_programs(void **state)
{
	static const char *const names[] = { "funcptr", "switch",  "tailcall", "longjmp",
					     "exec",    "dlopen",  "fork",
					     "loops",   "fib-O2",  "vdso" };

	(void)state;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		const char *name = names[i];

		if (getenv("ONLY") && strcmp(getenv("ONLY"), name) != 0)
			continue;
		print_message("%s\n", name);
		/* (the simulation's history of this run is the truth:
		 * vdso's code branches on the time, two runs differ) */
		same_as_step_arg(name, NULL, 1);
	}
}

static void test_fib(void **state)
{
	(void)state;
	same_as_step("fib", 2);
}

static void test_threads(void **state)
{
	(void)state;
	same_as_step("threads", 0);
}

static void test_signal(void **state)
{
	(void)state;
	same_as_step("signal", 1);
}

/* One page of samples between two stops overflows: a gap says so, and
 * what comes after it is the end of the step history. */
static void test_overflow(void **state)
{
	char *argv[] = { (char *)rd_testprog("loops"), NULL };
	struct rd_result step, bts;
	struct btsarg a = { 0 };
	const struct rd_seq *s, *b;
	uint64_t after;

	(void)state;
	memset(&step, 0, sizeof(step));
	memset(&bts, 0, sizeof(bts));
	a.cfg.buffer_size = (uint64_t)sysconf(_SC_PAGESIZE);
	rd_run_step(argv, &step);
	assert_int_equal(rd_run_rec(argv, make_bts, &a, &bts), 0);
	s = &step.th[0];
	b = &bts.th[0];
	assert_true(b->gaps >= 1);
	assert_non_null(strstr(b->gap_detail[0], "overflowed"));
	assert_non_null(strstr(b->gap_detail[0], "bigger buffer"));
	assert_true(bts.stats.lost_bytes > 0);
	/* After the last gap: the newest instructions, exactly. */
	after = 0;
	for (size_t i = 0; i < b->n; i++)
		if (b->ip[i] == 0)
			after = i + 1;
	assert_true(b->n - after > 10);
	assert_memory_equal(b->ip + after, s->ip + (s->n - (b->n - after)),
			    (b->n - after) * sizeof(uint64_t));
	rd_free(&step);
	rd_free(&bts);
}

static void fails_with(const char *op, int err, int paranoid, const char *want1, const char *want2)
{
	char *argv[] = { (char *)rd_testprog("fib"), NULL };
	struct rd_result bts;
	struct btsarg a = { 0 };
	const char *msg;
	int rc;

	memset(&bts, 0, sizeof(bts));
	a.fail_op = op;
	a.fail_err = err;
	a.paranoid = paranoid;
	rc = rd_run_rec(argv, make_bts, &a, &bts);
	assert_true(rc < 0);
	msg = ptd_last_error(rc);
	print_message("%s -> %s\n", op ? op : "paranoid", msg);
	assert_non_null(strstr(msg, want1));
	if (want2)
		assert_non_null(strstr(msg, want2));
	rd_free(&bts);
}

static void test_err_enoent(void **state)
{
	(void)state;
	fails_with("open", ENOENT, 0, "no such PMU", "ptdbg doctor");
}

static void test_err_eacces(void **state)
{
	(void)state;
	fails_with(NULL, 0, 3, "perf_event_paranoid is 3", "CAP_PERFMON");
}

static void test_err_eopnotsupp(void **state)
{
	(void)state;
	fails_with("open", EOPNOTSUPP, 0, "operation not supported", "virtual machine");
}

static void test_err_mmap(void **state)
{
	(void)state;
	fails_with("mmap", EINVAL, 0, "map the BTS buffer", "invalid argument");
}

/* A cpu with the erratum, as a fake cpuid shows it, is refused. */
static unsigned fake_model;
static void fake_cpuid(struct ptd_perf_kernel *k, unsigned leaf, unsigned sub, unsigned r[4])
{
	(void)k;
	(void)sub;
	memset(r, 0, 4 * sizeof(unsigned));
	if (leaf == 0) {
		r[0] = 0x14;
		memcpy(&r[1], "Genu", 4);
		memcpy(&r[3], "ineI", 4);
		memcpy(&r[2], "ntel", 4);
	} else if (leaf == 1) {
		/* family 6, model split into its two nibbles, stepping 5 */
		r[0] = (6u << 8) | ((fake_model & 0xf) << 4) | ((fake_model >> 4) << 16) | 5;
		r[3] = 1u << 21; /* DS */
	}
}

static void test_erratum(void **state)
{
	static const unsigned bad[] = { 0x1a, 0x1e, 0x1f, 0x2e, 0x25, 0x2c, 0x2f, 0x2a, 0x2d, 0x3a };
	struct ptd_perf_kernel *k = ptd_perf_kernel_sim("bts");
	struct ptd_perf_kernel_ops ops;
	const struct ptd_perf_kernel_ops *orig;
	char why[512];

	(void)state;
	assert_non_null(k);
	orig = k->ops;
	ops = *orig;
	ops.cpuid = fake_cpuid;
	k->ops = &ops;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		fake_model = bad[i];
		assert_true(ptd_btsrec_probe(k, why, sizeof(why)) < 0);
		assert_non_null(strstr(why, "erratum"));
	}
	fake_model = 0x9e; /* Kaby Lake: fine */
	assert_int_equal(ptd_btsrec_probe(k, why, sizeof(why)), 0);
	k->ops = orig;
	ptd_perf_kernel_free(k);
}

static void test_probe_real(void **state)
{
	struct ptd_perf_kernel *k = ptd_perf_kernel_linux();
	char why[512];

	(void)state;
	assert_non_null(k);
	assert_true(ptd_btsrec_probe(k, why, sizeof(why)) < 0);
	print_message("bts probe: %s\n", why);
	assert_non_null(strstr(why, "no BTS"));
	assert_true(strstr(why, "bare metal") || strstr(why, "--method="));
	ptd_perf_kernel_free(k);
}

int main(void)
{
	if (getenv("T"))
		cmocka_set_test_filter(getenv("T"));
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_probe_real),
		cmocka_unit_test(test_erratum),
		cmocka_unit_test(test_fib),
		cmocka_unit_test(test_threads),
		cmocka_unit_test(test_signal),
		cmocka_unit_test(test_more_programs),
		cmocka_unit_test(test_sigstorm_sync_every),
		cmocka_unit_test(test_overflow),
		cmocka_unit_test(test_err_enoent),
		cmocka_unit_test(test_err_eacces),
		cmocka_unit_test(test_err_eopnotsupp),
		cmocka_unit_test(test_err_mmap),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
