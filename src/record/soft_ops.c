/*
 * The soft recorder behind struct ptd_recorder (recorder.h): a thin
 * adapter over ptd_softrec_*.  It stops the program per branch
 * (PTD_REC_STOPS_PER_BRANCH) with its breakpoints and the session's in
 * memory, and knows every register where it trapped (PTD_REC_KNOWS_REGS).
 * Its own stops are left stopped for the run loop, which looks at what
 * was recorded (a motion of the selected thread may be complete) before
 * resuming them.  Clones, thread exits and exec are handled in on_stop()
 * (ptd_softrec_stop): add_thread() is then not needed for a clone child
 * (has_thread() says so), and thread_gone()/exec() have nothing left to do.
 */
#include "record/soft.h"

#include <stdlib.h>
#include <string.h>

#include "record/recorder.h"
#include "target/target.h"
#include "util/error.h"

static struct ptd_softrec *so(const struct ptd_recorder *r)
{
	return r->priv;
}

static int soft_start(struct ptd_recorder *r)
{
	(void)r; /* every thread is armed by add_thread() */
	return 0;
}

static int soft_add_thread(struct ptd_recorder *r, pid_t tid, struct ptd_history *h, uint64_t pc)
{
	return ptd_softrec_add_thread(so(r), tid, h, pc);
}

static int soft_thread_gone(struct ptd_recorder *r, pid_t tid)
{
	(void)r;
	(void)tid; /* ptd_softrec_stop ended it at its THREAD_EXIT stop */
	return 0;
}

static int soft_has_thread(const struct ptd_recorder *r, pid_t tid)
{
	return ptd_softrec_has_thread(so(r), tid);
}

static int soft_resume(struct ptd_recorder *r, pid_t tid, int step, int signo)
{
	if (!ptd_softrec_has_thread(so(r), tid))
		return ptd_target_resume(r->env.t, tid, step, signo);
	return ptd_softrec_resume(so(r), tid, step, signo);
}

static int soft_on_stop(struct ptd_recorder *r, const struct ptd_stop *st)
{
	return ptd_softrec_stop(so(r), st);
}

static int soft_sync(struct ptd_recorder *r, pid_t tid)
{
	return ptd_softrec_flush(so(r), tid);
}

static int soft_exec(struct ptd_recorder *r, pid_t tid, uint64_t pc)
{
	(void)r;
	(void)tid;
	(void)pc; /* ptd_softrec_stop restarted the thread on the new image */
	return 0;
}

static int soft_regs_at(const struct ptd_recorder *r, pid_t tid, uint64_t number,
			struct user_regs_struct *regs)
{
	return ptd_softrec_regs_at(so(r), tid, number, regs);
}

static int soft_regs_near(const struct ptd_recorder *r, pid_t tid, uint64_t number,
			  struct user_regs_struct *regs, uint64_t *at)
{
	return ptd_softrec_regs_near(so(r), tid, number, regs, at);
}

static int soft_dropped(struct ptd_recorder *r, pid_t tid, uint64_t n)
{
	return ptd_softrec_dropped(so(r), tid, n);
}

static size_t soft_bytes(const struct ptd_recorder *r, pid_t tid)
{
	return ptd_softrec_bytes(so(r), tid);
}

static uint64_t soft_next_ip(const struct ptd_recorder *r, pid_t tid)
{
	return ptd_softrec_next_ip(so(r), tid);
}

static void soft_stats(const struct ptd_recorder *r, struct ptd_recorder_stats *st)
{
	memset(st, 0, sizeof(*st));
	st->traps = ptd_softrec_traps(so(r));
	st->steps = ptd_softrec_steps(so(r));
	st->branches = ptd_softrec_branches(so(r));
	st->stops = st->traps + st->steps;
}

static void soft_free(struct ptd_recorder *r)
{
	ptd_softrec_free(so(r));
	free(r);
}

static const struct ptd_recorder_ops soft_ops = {
	.name = "soft",
	.start = soft_start,
	.add_thread = soft_add_thread,
	.thread_gone = soft_thread_gone,
	.has_thread = soft_has_thread,
	.resume = soft_resume,
	.on_stop = soft_on_stop,
	.sync = soft_sync,
	.exec = soft_exec,
	.regs_at = soft_regs_at,
	.regs_near = soft_regs_near,
	.dropped = soft_dropped,
	.bytes = soft_bytes,
	.next_ip = soft_next_ip,
	.stats = soft_stats,
	.free = soft_free,
};

struct ptd_recorder *ptd_softrec_recorder(const struct ptd_recorder_env *env)
{
	struct ptd_softrec_config cfg = {0};
	struct ptd_recorder *r;

	if (!env || !env->t) {
		ptd__err(-ptde_invalid, "cannot make a soft recorder without a target");
		return NULL;
	}
	r = calloc(1, sizeof(*r));
	if (!r)
		return NULL;
	cfg.no_pin = !env->pin_cpu;
	cfg.want_stop = env->want_stop;
	cfg.new_history = env->new_history;
	cfg.before_syscall = env->before_syscall;
	cfg.ctx = env->ctx;
	r->priv = ptd_softrec_alloc(env->t, &cfg);
	if (!r->priv) {
		free(r);
		ptd__err(-ptde_nomem, "cannot make a soft recorder: out of memory");
		return NULL;
	}
	r->ops = &soft_ops;
	r->caps = PTD_REC_STOPS_PER_BRANCH | PTD_REC_KNOWS_REGS;
	r->env = *env;
	return r;
}
