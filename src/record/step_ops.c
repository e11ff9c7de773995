/*
 * The step recorder behind struct ptd_recorder (recorder.h): a thin
 * adapter over ptd_steprec_*.  The run loop single-steps every recorded
 * thread (PTD_REC_SINGLE_STEPS) with the session's breakpoints out of
 * memory (PTD_REC_NO_BP_BYTES); each completed step is shown to on_stop(),
 * and before a step that runs a syscall which may change the address
 * space the session hears of it through env->before_syscall.
 */
#include "record/step.h"

#include <stdlib.h>
#include <string.h>
#include <sys/user.h>

#include "record/recorder.h"
#include "target/target.h"
#include "util/error.h"

static struct ptd_steprec *sr(const struct ptd_recorder *r)
{
	return r->priv;
}

static int step_start(struct ptd_recorder *r)
{
	(void)r; /* every thread records from add_thread() on */
	return 0;
}

static int step_add_thread(struct ptd_recorder *r, pid_t tid, struct ptd_history *h, uint64_t pc)
{
	return ptd_steprec_add_thread(sr(r), tid, h, pc);
}

static int step_thread_gone(struct ptd_recorder *r, pid_t tid)
{
	int rc = ptd_steprec_remove_thread(sr(r), tid);

	/* a thread the recording never had (one that was gone before) */
	return rc == -ptde_notfound ? 0 : rc;
}

static int step_has_thread(const struct ptd_recorder *r, pid_t tid)
{
	return ptd_steprec_has_thread(sr(r), tid);
}

static int step_resume(struct ptd_recorder *r, pid_t tid, int step, int signo)
{
	if (ptd_steprec_has_thread(sr(r), tid) && ptd_steprec_before_step(sr(r), tid, signo) == 1 &&
	    r->env.before_syscall) {
		/* The address space may change: the session decodes PT while
		 * the code is still mapped and keeps code an munmap takes. */
		struct user_regs_struct regs;

		if (ptd_target_get_regs(r->env.t, tid, &regs) == 0)
			r->env.before_syscall(r->env.ctx, tid, &regs,
					      ptd_steprec_next_ip(sr(r), tid));
	}
	return ptd_target_resume(r->env.t, tid, step, signo);
}

static int step_on_stop(struct ptd_recorder *r, const struct ptd_stop *st)
{
	/* A completed step is recorded; the stop itself stays the run
	 * loop's (it checks breakpoints and the motion on every step). */
	if (st->kind == PTD_STOP_STEP && ptd_steprec_has_thread(sr(r), st->tid))
		return ptd_steprec_stepped(sr(r), st->tid, st->pc);
	return 0;
}

static int step_sync(struct ptd_recorder *r, pid_t tid)
{
	return ptd_steprec_flush(sr(r), tid);
}

static int step_exec(struct ptd_recorder *r, pid_t tid, uint64_t pc)
{
	return ptd_steprec_exec(sr(r), tid, pc);
}

static size_t step_bytes(const struct ptd_recorder *r, pid_t tid)
{
	(void)r;
	(void)tid; /* the open block only: its history holds the rest */
	return 0;
}

static uint64_t step_next_ip(const struct ptd_recorder *r, pid_t tid)
{
	return ptd_steprec_next_ip(sr(r), tid);
}

static void step_stats(const struct ptd_recorder *r, struct ptd_recorder_stats *st)
{
	memset(st, 0, sizeof(*st));
	st->steps = ptd_steprec_steps(sr(r));
	st->stops = st->steps;
}

static int step_last_class(const struct ptd_recorder *r, pid_t tid)
{
	return ptd_steprec_last_class(sr(r), tid);
}

static void step_free(struct ptd_recorder *r)
{
	ptd_steprec_free(sr(r));
	free(r);
}

static const struct ptd_recorder_ops step_ops = {
	.name = "step",
	.start = step_start,
	.add_thread = step_add_thread,
	.thread_gone = step_thread_gone,
	.has_thread = step_has_thread,
	.resume = step_resume,
	.on_stop = step_on_stop,
	.sync = step_sync,
	.exec = step_exec,
	.bytes = step_bytes,
	.next_ip = step_next_ip,
	.stats = step_stats,
	.last_class = step_last_class,
	.free = step_free,
};

struct ptd_recorder *ptd_steprec_recorder(const struct ptd_recorder_env *env)
{
	struct ptd_recorder *r;

	if (!env || !env->t) {
		ptd__err(-ptde_invalid, "cannot make a step recorder without a target");
		return NULL;
	}
	r = calloc(1, sizeof(*r));
	if (!r)
		return NULL;
	r->priv = ptd_steprec_alloc(env->t);
	if (!r->priv) {
		free(r);
		ptd__err(-ptde_nomem, "cannot make a step recorder: out of memory");
		return NULL;
	}
	r->ops = &step_ops;
	r->caps = PTD_REC_STOPS_PER_BRANCH | PTD_REC_SINGLE_STEPS | PTD_REC_NO_BP_BYTES;
	r->env = *env;
	return r;
}
