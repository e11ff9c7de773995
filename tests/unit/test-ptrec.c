/*
 * The Intel PT recorder on the simulated kernel (ptd_perf_kernel_sim),
 * against the step recorder: each program is run with ASLR off once
 * single-stepped and once under the pt recorder, driven by a tiny run
 * loop (recdrive.h), and the per-thread instruction sequences must be
 * identical.  Also: a tiny circular buffer gives the newest history after
 * one gap that says what was overwritten; a tiny linear buffer loses
 * nothing; every error path of the kernel (ENOENT, EACCES with paranoid
 * 3, EINVAL, ENOMEM, EOPNOTSUPP) gives its cause and fix; and on this
 * machine's real kernel (no PMU) the probe refuses with a reason.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "record/ptrec.h"
#include "recdrive.h"

struct ptarg {
	struct ptd_ptrec_config cfg;
	/* fault injection before start: op, errno; paranoid level */
	const char *fail_op;
	int fail_err;
	int paranoid;
	struct ptd_perf_kernel *k;
};

static struct ptd_recorder *make_pt(void *arg, const struct ptd_recorder_env *env)
{
	struct ptarg *a = arg;
	struct ptd_perf_kernel *k = ptd_perf_kernel_sim("pt");
	struct ptd_recorder *r;

	if (!k)
		print_error("simulated kernel: %s\n", ptd_last_error(-ptde_invalid));
	assert_non_null(k);
	if (a->paranoid)
		ptd_perf_sim_set_paranoid(k, a->paranoid);
	if (a->fail_op)
		ptd_perf_sim_fail(k, a->fail_op, a->fail_err);
	a->k = k;
	rd_sim = k;
	r = ptd_ptrec_recorder(k, env, &a->cfg);
	if (r) {
		assert_true(r->caps & PTD_REC_WRITES_PT);
		assert_true(r->caps & PTD_REC_SIMULATED);
		assert_string_equal(r->ops->name, "pt");
	}
	return r;
}

static void default_cfg(struct ptd_ptrec_config *c)
{
	memset(c, 0, sizeof(*c));
	c->ret_compression = c->tsc = c->mtc = c->cyc = c->psb_period = -1;
}

/* Records @name under pt; its histories must be identical to the step
 * recorder's: the simulation's own (it runs the step recorder under the
 * program) for the first thread; with @deterministic 2 also those of a
 * run of its own under the step recorder; with 0 (threads that
 * interleave differently each run) that run's for the other threads. */
static void same_as_step_arg(const char *name, const char *arg,
			     const struct ptd_ptrec_config *cfg, int deterministic)
{
	char *argv[] = { (char *)rd_testprog(name), (char *)arg, NULL };
	struct rd_result step, pt;
	struct ptarg a = { 0 };

	memset(&step, 0, sizeof(step));
	memset(&pt, 0, sizeof(pt));
	if (cfg)
		a.cfg = *cfg;
	else
		default_cfg(&a.cfg);
	/* A run of its own under the step recorder: for a deterministic
	 * program (deterministic 2), and for the threads the simulation
	 * does not keep the history of (it keeps the first thread's). */
	if (deterministic == 2 || deterministic == 0)
		rd_run_step(argv, &step);
	assert_int_equal(rd_run_rec(argv, make_pt, &a, &pt), 0);
	if (step.nth) {
		assert_int_equal(pt.exit_code, step.exit_code);
		assert_int_equal(pt.nth, step.nth);
	}
	/* (the signal storm stops the program at every signal) */
	if (rd_sync_every)
		assert_true(pt.syncs >= 25);
	for (int i = 0; i < pt.nth; i++) {
		if (pt.th[i].gaps)
			print_error("thread %d: gap: %s\n", i, pt.th[i].gap_detail[0]);
		assert_int_equal(pt.th[i].gaps, 0);
		assert_true(pt.th[i].n > 0);
		/* The step recorder's history of this very run (the
		 * simulation keeps the main thread's), and of a run of its
		 * own where that is the same: the whole of a deterministic
		 * program, the worker threads of threads (its main thread
		 * waits in pthread_join as long as the workers take). */
		if (pt.truth[i])
			rd_same(&pt.tr[i], &pt.th[i], i);
		if (step.nth && (deterministic == 2 || i > 0))
			rd_same(&step.th[i], &pt.th[i], i);
		assert_true(pt.truth[i] || (step.nth && i > 0));
	}
	assert_string_equal(pt.stats.pmu, "intel_pt (simulated)");
	assert_true(pt.stats.trace_bytes > 0);
	assert_int_equal(pt.stats.lost_bytes, 0);
	assert_true(pt.trace_size > 0);
	/* A linear buffer smaller than the trace: drained (at the
	 * watermark), and nothing was lost. */
	if (cfg && cfg->linear && cfg->buffer_size)
		assert_true(pt.stats.trace_bytes > 2 * cfg->buffer_size);
	rd_free(&step);
	rd_free(&pt);
}

static void same_as_step(const char *name, const struct ptd_ptrec_config *cfg, int deterministic)
{
	same_as_step_arg(name, NULL, cfg, deterministic);
}

/* A signal storm with the history read at every stop: the trace is
 * decoded in many pieces, each from where the last one ended, and must
 * give the same history as one decode. */
static void test_sigstorm_sync_every(void **state)
{
	(void)state;
	rd_sync_every = 1;
	same_as_step_arg("sigstorm", "25", NULL, 0);
	rd_sync_every = 0;
}

/* More testprogs, each deterministic: calls through pointers, jump
 * tables, tail calls, longjmp, exec, dlopen, fork (the child is not
 * recorded).  (jit is left to the session's tests: its code is unmapped
 * before the end, and this driver keeps no unmapped code.) */
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
		same_as_step_arg(name, NULL, NULL, 1);
	}
}

static void test_fib(void **state)
{
	(void)state;
	same_as_step("fib", NULL, 2);
}

static void test_threads(void **state)
{
	(void)state;
	same_as_step("threads", NULL, 0);
}

static void test_signal(void **state)
{
	(void)state;
	same_as_step("signal", NULL, 1);
}

/* Without return compression the PT differs, the history does not. */
static void test_noretcomp(void **state)
{
	struct ptd_ptrec_config c;

	(void)state;
	default_cfg(&c);
	c.ret_compression = 0;
	same_as_step("fib", &c, 1);
}

/* A tiny linear buffer, drained at stops and at the watermark: nothing
 * lost, the same history. */
static void test_linear_tiny(void **state)
{
	struct ptd_ptrec_config c;

	(void)state;
	default_cfg(&c);
	c.linear = 1;
	c.ret_compression = 0; /* a TIP per return: about 16 KiB of PT */
	c.buffer_size = 2 * (uint64_t)sysconf(_SC_PAGESIZE);
	/* from the first instruction: enough trace to fill it many times */
	rd_from_main = 0;
	same_as_step_arg("fib", "16", &c, 1);
	rd_from_main = 1;
}

/* A tiny circular buffer: the newest history after one gap that says
 * what was overwritten and what to do. */
static void test_circular_tiny(void **state)
{
	char *argv[] = { (char *)rd_testprog("fib"), (char *)"16", NULL };
	struct rd_result step, pt;
	struct ptarg a = { 0 };
	const struct rd_seq *s, *p;

	(void)state;
	memset(&step, 0, sizeof(step));
	memset(&pt, 0, sizeof(pt));
	default_cfg(&a.cfg);
	a.cfg.ret_compression = 0; /* a TIP per return: about 16 KiB of PT */
	a.cfg.buffer_size = 2 * (uint64_t)sysconf(_SC_PAGESIZE);
	rd_run_step(argv, &step);
	assert_int_equal(rd_run_rec(argv, make_pt, &a, &pt), 0);
	assert_int_equal(pt.nth, 1);
	s = &step.th[0];
	p = &pt.th[0];
	print_message("circular %llu bytes: %llu bytes of trace, %llu wraps, %llu lost, %llu gaps\n",
		      (unsigned long long)a.cfg.buffer_size,
		      (unsigned long long)pt.stats.trace_bytes, (unsigned long long)pt.stats.wraps,
		      (unsigned long long)pt.stats.lost_bytes, (unsigned long long)p->gaps);
	assert_int_equal(p->gaps, 1);
	assert_int_equal(p->gap_at[0], 1);
	assert_non_null(strstr(p->gap_detail[0], "wrapped"));
	assert_non_null(strstr(p->gap_detail[0], "overwritten"));
	assert_non_null(strstr(p->gap_detail[0], "--pt-buffer=full"));
	/* The rest is the end of the step history. */
	assert_true(p->n > 100);
	assert_true(p->n - 1 < s->n);
	assert_int_equal(p->ip[0], 0);
	assert_memory_equal(p->ip + 1, s->ip + (s->n - (p->n - 1)), (p->n - 1) * sizeof(uint64_t));
	assert_true(pt.stats.wraps >= 1);
	assert_true(pt.stats.lost_bytes > 0);
	rd_free(&step);
	rd_free(&pt);
}

/* ---- error paths ------------------------------------------------------------------------------ */

/* Recording @name with @op failing with @err must fail with a message
 * holding @want1 and @want2. */
static void fails_with(const char *op, int err, int paranoid, const char *want1, const char *want2)
{
	char *argv[] = { (char *)rd_testprog("fib"), NULL };
	struct rd_result pt;
	struct ptarg a = { 0 };
	const char *msg;
	int rc;

	memset(&pt, 0, sizeof(pt));
	default_cfg(&a.cfg);
	a.fail_op = op;
	a.fail_err = err;
	a.paranoid = paranoid;
	rc = rd_run_rec(argv, make_pt, &a, &pt);
	assert_true(rc < 0);
	msg = ptd_last_error(rc);
	print_message("%s -> %s\n", op ? op : "paranoid", msg);
	assert_non_null(strstr(msg, want1));
	if (want2)
		assert_non_null(strstr(msg, want2));
	assert_non_null(strstr(msg, "(simulated)"));
	rd_free(&pt);
}

static void test_err_enoent(void **state)
{
	(void)state;
	fails_with("open", ENOENT, 0, "no such PMU", "ptdbg doctor");
}

static void test_err_eacces_paranoid(void **state)
{
	(void)state;
	fails_with(NULL, 0, 3, "perf_event_paranoid is 3",
		   "sysctl kernel.perf_event_paranoid=1");
}

static void test_err_einval(void **state)
{
	(void)state;
	fails_with("open", EINVAL, 0, "invalid argument", "refuses this configuration");
}

static void test_err_eopnotsupp(void **state)
{
	(void)state;
	fails_with("open", EOPNOTSUPP, 0, "operation not supported", "virtual machine");
}

static void test_err_ioctl(void **state)
{
	(void)state;
	fails_with("ioctl", EINVAL, 0, "enable the intel_pt event", "invalid argument");
}

/* The data ring cannot be mapped: out of memory, said so. */
static void test_err_mmap_enomem(void **state)
{
	(void)state;
	fails_with("mmap", ENOMEM, 0, "map the perf data ring", "out of memory");
}

/* ENOMEM on the AUX mapping (a buffer larger than the kernel can give:
 * the simulation refuses more than 256 MiB as a machine short of memory
 * would): the buffer is halved, the user told, and the recording is
 * complete. */
static void test_err_enomem_halved(void **state)
{
	char *argv[] = { (char *)rd_testprog("fib"), NULL };
	struct rd_result step, pt;
	struct ptarg a = { 0 };
	int found = 0;

	(void)state;
	memset(&step, 0, sizeof(step));
	memset(&pt, 0, sizeof(pt));
	default_cfg(&a.cfg);
	a.cfg.buffer_size = 512ull << 20;
	rd_run_step(argv, &step);
	assert_int_equal(rd_run_rec(argv, make_pt, &a, &pt), 0);
	for (int i = 0; i < pt.nnotes; i++)
		if (strstr(pt.notes[i], "cannot map a 524288 KiB Intel PT buffer") &&
		    strstr(pt.notes[i], "using 262144 KiB"))
			found = 1;
	if (!found)
		print_error("no note about the halved buffer (%d notes)\n", pt.nnotes);
	assert_true(found);
	assert_int_equal(pt.stats.buffer_size, 256ull << 20);
	rd_same(&step.th[0], &pt.th[0], 0);
	rd_free(&step);
	rd_free(&pt);
}

/* Options the caps do not allow are refused at once, with the reason. */
static void test_caps_refused(void **state)
{
	char *argv[] = { (char *)rd_testprog("fib"), NULL };
	struct rd_result pt;
	struct ptarg a = { 0 };

	(void)state;
	memset(&pt, 0, sizeof(pt));
	default_cfg(&a.cfg);
	a.cfg.psb_period = 63; /* no cpu allows it */
	assert_true(rd_run_rec(argv, make_pt, &a, &pt) < 0);
	assert_non_null(strstr(ptd_last_error(-ptde_unsupported), "PSB period 63"));
	rd_free(&pt);
	memset(&pt, 0, sizeof(pt));
	default_cfg(&a.cfg);
	a.cfg.nfilters = 4;
	a.cfg.filters[0] = a.cfg.filters[1] = a.cfg.filters[2] = a.cfg.filters[3] =
		(char *)"filter 0x1000/0x100@/bin/true";
	assert_true(rd_run_rec(argv, make_pt, &a, &pt) < 0);
	assert_non_null(strstr(ptd_last_error(-ptde_unsupported), "num_address_ranges"));
	rd_free(&pt);
}

/* ---- the real kernel of this machine ---------------------------------------------------------- */

static void test_probe_real(void **state)
{
	struct ptd_perf_kernel *k = ptd_perf_kernel_linux();
	struct ptd_recorder_env env;
	char why[512];
	char dummy[8];
	int rc;

	(void)state;
	assert_non_null(k);
	assert_int_equal(k->simulated, 0);
	/* This test knows the machines it runs on have no PMU to trace
	 * with; on one that has intel_pt it would have nothing to check. */
	if (k->ops->read_sysfs(k, "intel_pt/type", dummy, sizeof(dummy)) >= 0) {
		print_error("this machine has an intel_pt PMU: the refusal cannot be tested\n");
		fail();
	}
	rc = ptd_ptrec_probe(k, why, sizeof(why));
	print_message("pt probe: %s\n", why);
	assert_true(rc < 0);
	assert_non_null(strstr(why, "no Intel PT"));
	assert_true(strstr(why, "bare metal") || strstr(why, "--method=") ||
		    strstr(why, "CONFIG_PERF_EVENTS_INTEL_PT"));
	/* The constructor refuses with the same reason. */
	memset(&env, 0, sizeof(env));
	env.t = (struct ptd_target *)&env; /* never used: refused first */
	env.read_code = rd_read;
	assert_null(ptd_ptrec_recorder(k, &env, NULL));
	assert_non_null(strstr(ptd_last_error(-ptde_unsupported), why));
}

int main(void)
{
	if (getenv("T"))
		cmocka_set_test_filter(getenv("T"));
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_probe_real),
		cmocka_unit_test(test_fib),
		cmocka_unit_test(test_noretcomp),
		cmocka_unit_test(test_threads),
		cmocka_unit_test(test_signal),
		cmocka_unit_test(test_more_programs),
		cmocka_unit_test(test_sigstorm_sync_every),
		cmocka_unit_test(test_linear_tiny),
		cmocka_unit_test(test_circular_tiny),
		cmocka_unit_test(test_err_enoent),
		cmocka_unit_test(test_err_eacces_paranoid),
		cmocka_unit_test(test_err_einval),
		cmocka_unit_test(test_err_eopnotsupp),
		cmocka_unit_test(test_err_ioctl),
		cmocka_unit_test(test_err_mmap_enomem),
		cmocka_unit_test(test_err_enomem_halved),
		cmocka_unit_test(test_caps_refused),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
