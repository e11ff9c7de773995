/*
 * The step and soft recorders behind struct ptd_recorder (step_ops.c,
 * soft_ops.c): constructors refuse a missing target with a message, the
 * caps and optional ops are what the run loop branches on, threads are
 * added and found, and a few single-steps through the ops give the same
 * history with both.  (The run loop over whole programs is tested through
 * the session: test-session's equivalence tests.)
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "history/history.h"
#include "ptdbg/ptdbg.h"
#include "record/recorder.h"
#include "record/soft.h"
#include "record/step.h"
#include "target/target.h"

static char progdir[4096];

static int read_target(void *ctx, uint64_t addr, uint8_t *buf, size_t n)
{
	return (int)ptd_target_read(ctx, addr, buf, n);
}

static void test_no_target(void **state)
{
	struct ptd_recorder_env env = {0};

	(void)state;
	ptd_clear_error();
	assert_null(ptd_steprec_recorder(NULL));
	assert_null(ptd_steprec_recorder(&env));
	assert_non_null(strstr(ptd_last_error(-ptde_invalid), "without a target"));
	ptd_clear_error();
	assert_null(ptd_softrec_recorder(&env));
	assert_non_null(strstr(ptd_last_error(-ptde_invalid), "without a target"));
	ptd_recorder_free(NULL);
}

/* Single-steps @tid @n times through @r's ops; returns the history's
 * instruction count after sync. */
static uint64_t step_n(struct ptd_target *t, struct ptd_recorder *r, pid_t tid,
		       struct ptd_history *h, int n)
{
	for (int i = 0; i < n; i++) {
		struct ptd_stop st;
		int own;
		assert_int_equal(r->ops->resume(r, tid, 1, 0), 0);
		do {
			assert_int_equal(ptd_target_wait(t, &st, 1), 0);
			own = r->ops->on_stop(r, &st);
			assert_true(own >= 0);
			/* a stop of the recorder's own: it goes on to ours */
			if (own == 1 && ptd_target_thread_state(t, tid) == PTD_THREAD_STOPPED)
				assert_int_equal(r->ops->resume(r, tid, 1, 0), 0);
		} while (own == 1);
		assert_int_equal(st.kind, PTD_STOP_STEP);
	}
	assert_int_equal(r->ops->sync(r, tid), 0);
	return ptd_history_ninsn(h);
}

static void run_one(int soft, uint64_t *ninsn, uint64_t *tail)
{
	char path[4200];
	char *argv[] = {path, NULL};
	struct ptd_launch l = {.argv = argv, .disable_aslr = 1};
	struct ptd_target *t = NULL;
	struct ptd_recorder_env env = {0};
	struct ptd_recorder_stats st;
	struct ptd_recorder *r;
	struct ptd_history *h;
	uint64_t pc;
	pid_t pid;

	snprintf(path, sizeof(path), "%s/fib", progdir);
	assert_int_equal(ptd_target_launch(&t, &l), 0);
	pid = ptd_target_pid(t);
	{
		/* The first step after the launch's exec stop only completes
		 * the execve (the kernel's syscall-exit trap): out of the way. */
		struct ptd_stop st0;
		assert_int_equal(ptd_target_resume(t, pid, 1, 0), 0);
		assert_int_equal(ptd_target_wait(t, &st0, 1), 0);
		assert_int_equal(st0.kind, PTD_STOP_STEP);
	}
	assert_int_equal(ptd_target_get_pc(t, pid, &pc), 0);
	env.t = t;
	env.read_code = read_target;
	env.ctx = t;
	env.pin_cpu = 0;
	r = soft ? ptd_softrec_recorder(&env) : ptd_steprec_recorder(&env);
	assert_non_null(r);
	assert_string_equal(r->ops->name, soft ? "soft" : "step");
	/* what the run loop branches on */
	assert_true(r->caps & PTD_REC_STOPS_PER_BRANCH);
	assert_int_equal(!!(r->caps & PTD_REC_SINGLE_STEPS), !soft);
	assert_int_equal(!!(r->caps & PTD_REC_NO_BP_BYTES), !soft);
	assert_int_equal(!!(r->caps & PTD_REC_KNOWS_REGS), soft);
	assert_false(r->caps & (PTD_REC_WRITES_PT | PTD_REC_SIMULATED));
	assert_int_equal(r->ops->last_class != NULL, !soft);
	assert_int_equal(r->ops->regs_at != NULL, soft);
	assert_null(r->ops->drain);
	assert_null(r->ops->trace);
	ptd_target_bp_enable(t, soft);

	h = ptd_history_alloc(read_target, t);
	assert_non_null(h);
	assert_false(r->ops->has_thread(r, pid));
	assert_int_equal(r->ops->add_thread(r, pid, h, pc), 0);
	assert_true(r->ops->has_thread(r, pid));
	assert_false(r->ops->has_thread(r, pid + 100000));
	assert_int_equal(r->ops->start(r), 0);
	assert_int_equal(r->ops->next_ip(r, pid), pc);
	/* 50 instructions from the first one of the dynamic loader */
	*ninsn = step_n(t, r, pid, h, 50);
	*tail = ptd_history_tail(h);
	r->ops->stats(r, &st);
	assert_true(st.steps >= 1);
	assert_true(st.stops >= st.steps);
	assert_string_equal(st.pmu, "");
	if (!soft)
		assert_true(r->ops->last_class(r, pid) >= -1);
	/* a thread the recorder never had is no error */
	assert_int_equal(r->ops->thread_gone(r, pid + 100000), 0);
	ptd_recorder_free(r);
	ptd_history_free(h);
	ptd_target_kill(t);
	ptd_target_free(t);
}

static void test_step_and_soft_agree(void **state)
{
	uint64_t n_step, n_soft, tail_step, tail_soft;

	(void)state;
	run_one(0, &n_step, &tail_step);
	run_one(1, &n_soft, &tail_soft);
	print_message("50 steps: step %llu insns, soft %llu insns\n", (unsigned long long)n_step,
		      (unsigned long long)n_soft);
	assert_int_equal(n_step, 50);
	assert_int_equal(n_step, n_soft);
	assert_int_equal(tail_step, tail_soft);
}

int main(void)
{
	const char *d = getenv("TESTPROGS");
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_no_target),
		cmocka_unit_test(test_step_and_soft_agree),
	};

	snprintf(progdir, sizeof(progdir), "%s", d ? d : "testprogs/build");
	return cmocka_run_group_tests(tests, NULL, NULL);
}
