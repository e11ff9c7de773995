/*
 * Test driver shared by test-ptrec.c and test-btsrec.c: runs a program
 * once single-stepped under the step recorder (the ground truth) and once
 * under a struct ptd_recorder through a tiny run loop of its own (resume
 * through ops->resume, ptd_target_wait, ops->on_stop, ops->drain at each
 * stop it resumes, ops->sync at exit stops), and gives both per-thread
 * instruction sequences for comparison.
 *
 * Histories are enumerated after the program is gone: at each thread's
 * exit stop (PTRACE_O_TRACEEXIT) the executable mappings are copied and
 * code is read from the copy once the process has exited.
 */
#ifndef TESTS_UNIT_RECDRIVE_H
#define TESTS_UNIT_RECDRIVE_H

#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <unistd.h>

#include "history/history.h"
#include "ptdbg/ptdbg.h"
#include "record/perf.h"
#include "record/recorder.h"
#include "record/step.h"
#include "target/target.h"
#include "run-to-main.h"

#define RD_MAXTH 8

struct rd_seq {
	uint64_t *ip; /* gaps as 0 */
	size_t n, cap;
	uint64_t gaps;
	char gap_detail[4][300];
	uint64_t gap_at[4]; /* 1-based position of the first gaps */
	uint64_t events;
	int partial;	 /* the code of some instructions was gone: ip[] is a prefix */
	uint64_t ninsn;	 /* executed instructions per the history */
};

struct rd_result {
	int nth;
	pid_t tid[RD_MAXTH];
	struct ptd_history *h[RD_MAXTH];
	struct rd_seq th[RD_MAXTH];
	/* With the simulated kernel: what its step recorder recorded of the
	 * same run (ptd_perf_sim_keep_history), the exact ground truth even
	 * where two runs of a program differ (threads). */
	struct ptd_history *truth[RD_MAXTH];
	struct rd_seq tr[RD_MAXTH];
	int exit_code;
	char notes[8][512];
	int nnotes;
	struct ptd_recorder_stats stats;
	size_t trace_size; /* the main thread's kept trace (ops->trace) */
	int syncs;	   /* syncs at stops other than exit stops */
};

/* ---- code snapshots -------------------------------------------------------------------------- */

struct rd_region {
	uint64_t lo, hi;
	uint8_t *bytes;
};
static struct rd_region rd_regions[64];
static int rd_nregions;
static struct ptd_target *rd_target;

static void rd_drop_snapshot(void)
{
	for (int i = 0; i < rd_nregions; i++)
		free(rd_regions[i].bytes);
	rd_nregions = 0;
}

static void rd_snapshot(struct ptd_target *t)
{
	char path[64], line[512];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)ptd_target_pid(t));
	f = fopen(path, "r");
	if (!f)
		return;
	rd_drop_snapshot();
	while (fgets(line, sizeof(line), f) && rd_nregions < 64) {
		unsigned long lo, hi;
		char perms[8];
		struct rd_region *g = &rd_regions[rd_nregions];

		if (sscanf(line, "%lx-%lx %7s", &lo, &hi, perms) != 3 || perms[2] != 'x')
			continue;
		g->lo = lo;
		g->hi = hi;
		g->bytes = calloc(1, hi - lo);
		if (g->bytes && ptd_target_read(t, lo, g->bytes, hi - lo) > 0)
			rd_nregions++;
		else
			free(g->bytes);
	}
	fclose(f);
}

static int rd_read(void *ctx, uint64_t addr, uint8_t *buf, size_t n)
{
	(void)ctx;
	if (rd_target && ptd_target_alive(rd_target))
		return (int)ptd_target_read(rd_target, addr, buf, n);
	for (int i = 0; i < rd_nregions; i++) {
		struct rd_region *g = &rd_regions[i];
		if (addr >= g->lo && addr < g->hi) {
			size_t k = g->hi - addr < n ? g->hi - addr : n;
			memcpy(buf, g->bytes + (addr - g->lo), k);
			return (int)k;
		}
	}
	return -1;
}

static int rd_is_exit_stop(const struct ptd_stop *st)
{
	return st->kind == PTD_STOP_EXITING; /* PTRACE_O_TRACEEXIT */
}

/*
 * Recordings start at main unless a test clears this: every instruction
 * the simulated PMU traces is a single-step, and the dynamic loader's
 * hundred thousand instructions before main, the same in every program,
 * cost most of the run time (a test or two keeps them: rd_from_main = 0).
 */
static int rd_from_main = 1;

static struct ptd_target *rd_launch(char **argv)
{
	struct ptd_target *t = NULL;
	struct ptd_launch l = { .argv = argv, .disable_aslr = 1 };
	int saved, fd, rc;

	/* The program's output goes to /dev/null. */
	fflush(stdout);
	saved = dup(1);
	fd = open("/dev/null", O_WRONLY);
	dup2(fd, 1);
	close(fd);
	rc = ptd_target_launch(&t, &l);
	dup2(saved, 1);
	close(saved);
	if (rc < 0)
		print_error("launch %s: %s\n", argv[0], ptd_last_error(rc));
	assert_int_equal(rc, 0);
	assert_int_equal(ptrace(PTRACE_SETOPTIONS, ptd_target_pid(t), 0,
				(void *)(long)(PTRACE_O_TRACECLONE | PTRACE_O_TRACEFORK |
					       PTRACE_O_TRACEVFORK | PTRACE_O_TRACEVFORKDONE |
					       PTRACE_O_TRACEEXEC | PTRACE_O_TRACEEXIT)),
			 0);
	rd_target = t;
	rd_drop_snapshot();
	if (rd_from_main)
		run_to_main(t, argv[0]);
	return t;
}

/* Kills a program that was not run to its end: without the exit stops
 * first (a SIGKILLed tracee would wait in its PTRACE_EVENT_EXIT stop and
 * ptd_target_kill's reaping with it). */
static void rd_kill(struct ptd_target *t)
{
	ptrace(PTRACE_SETOPTIONS, ptd_target_pid(t), 0,
	       (void *)(long)(PTRACE_O_TRACECLONE | PTRACE_O_TRACEFORK | PTRACE_O_TRACEVFORK |
			      PTRACE_O_TRACEVFORKDONE | PTRACE_O_TRACEEXEC));
	ptd_target_free(t);
	rd_target = NULL;
}

/* Instructions of @h in order (gaps as 0), without the tail. */
static void rd_collect(const struct ptd_history *h, struct rd_seq *s)
{
	uint64_t count = ptd_history_count(h);
	uint64_t last = ptd_history_tail(h) ? count - 1 : count;
	struct ptd_hcursor c;
	struct ptd_item it;

	s->ninsn = ptd_history_ninsn(h);
	if (getenv("RD_EVENTS"))
		for (uint64_t i = 0; ptd_history_item(h, i, &it); i++)
			if (it.kind == PTD_ITEM_EVENT)
				print_error("  event %u at %llu ip 0x%llx\n", it.reason,
					    (unsigned long long)it.number, (unsigned long long)it.block.ip);
	for (uint64_t i = 0; ptd_history_item(h, i, &it); i++) {
		if (it.kind == PTD_ITEM_EVENT)
			s->events++;
		if (it.kind != PTD_ITEM_GAP)
			continue;
		if (s->gaps < 4) {
			const char *d = ptd_history_detail(h, it.detail);
			snprintf(s->gap_detail[s->gaps], sizeof(s->gap_detail[0]), "%s", d ? d : "");
			s->gap_at[s->gaps] = it.number;
		}
		s->gaps++;
	}
	if (last == 0)
		return;
	assert_int_equal(ptd_hcursor_goto(&c, h, 1), 0);
	for (uint64_t i = 1; i <= last; i++) {
		if (s->n == s->cap) {
			s->cap = s->cap ? s->cap * 2 : 4096;
			s->ip = realloc(s->ip, s->cap * sizeof(*s->ip));
			assert_non_null(s->ip);
		}
		s->ip[s->n++] = c.is_gap ? 0 : c.ip;
		if (i < last && ptd_hcursor_next(&c) < 0) {
			/* Code that is gone (the image before an exec): the
			 * instructions of both histories are compared up to
			 * here, their counts in full. */
			s->partial = 1;
			break;
		}
	}
}

static void rd_free(struct rd_result *r)
{
	for (int i = 0; i < RD_MAXTH; i++) {
		free(r->th[i].ip);
		free(r->tr[i].ip);
		ptd_history_free(r->h[i]);
		ptd_history_free(r->truth[i]);
	}
	memset(r, 0, sizeof(*r));
}

static void rd_finish(struct rd_result *r)
{
	for (int i = 0; i < r->nth; i++) {
		rd_collect(r->h[i], &r->th[i]);
		if (r->truth[i]) {
			struct rd_seq *t = &r->tr[i];

			rd_collect(r->truth[i], t);
			/* The simulation's step recorder takes the launch's
			 * first single-step, which traps at the entry without
			 * running it, for an executed instruction (rd_run_step
			 * skips it); its PT cannot say so and does not. */
			if (t->n >= 2 && t->ip[0] == t->ip[1]) {
				memmove(t->ip, t->ip + 1, (t->n - 1) * sizeof(*t->ip));
				t->n--;
			}
		}
	}
}

static struct ptd_history *rd_new(struct rd_result *r, pid_t tid)
{
	assert_true(r->nth < RD_MAXTH);
	r->tid[r->nth] = tid;
	r->h[r->nth] = ptd_history_alloc(rd_read, NULL);
	assert_non_null(r->h[r->nth]);
	return r->h[r->nth++];
}

/* The simulated kernel of the recorder under test (set by the test's
 * make function), for the ground truth of the same run. */
static struct ptd_perf_kernel *rd_sim;

static struct ptd_history *rd_new_rec(struct rd_result *r, pid_t tid)
{
	struct ptd_history *h = rd_new(r, tid);

	/* The simulation keeps the history of one thread: the first. */
	if (rd_sim && r->nth == 1) {
		r->truth[r->nth - 1] = ptd_history_alloc(rd_read, NULL);
		assert_non_null(r->truth[r->nth - 1]);
		ptd_perf_sim_keep_history(rd_sim, tid, r->truth[r->nth - 1]);
	}
	return h;
}

/* ---- ground truth ---------------------------------------------------------------------------- */

static void rd_run_step(char **argv, struct rd_result *res)
{
	struct ptd_target *t = rd_launch(argv);
	struct ptd_steprec *sr = ptd_steprec_alloc(t);
	pid_t pid = ptd_target_pid(t);
	uint64_t pc, entry;
	int first = 1;

	assert_non_null(sr);
	assert_int_equal(ptd_target_get_pc(t, pid, &pc), 0);
	entry = pc;
	assert_int_equal(ptd_steprec_add_thread(sr, pid, rd_new(res, pid), pc), 0);
	ptd_steprec_before_step(sr, pid, 0);
	assert_int_equal(ptd_target_resume(t, pid, 1, 0), 0);
	for (;;) {
		struct ptd_stop st;
		int rc = ptd_target_wait(t, &st, 1), sig = 0;

		if (rc == -ptde_not_running)
			break;
		assert_int_equal(rc, 0);
		/* The first step after exec traps at the entry without
		 * running it; the step into a handler comes as a SIGTRAP. */
		if (first && st.kind == PTD_STOP_STEP && st.pc == entry) {
			first = 0;
			ptd_target_resume(t, st.tid, 1, 0);
			continue;
		}
		first = 0;
		if (st.kind == PTD_STOP_SIGNAL && st.signo == SIGTRAP && st.si.si_code == SIGTRAP) {
			st.kind = PTD_STOP_STEP;
			ptd_target_set_pending_signal(t, st.tid, 0);
		}
		switch (st.kind) {
		case PTD_STOP_STEP:
			ptd_steprec_stepped(sr, st.tid, st.pc);
			break;
		case PTD_STOP_EXITING:
		case PTD_STOP_SIGNAL:
			if (rd_is_exit_stop(&st)) {
				rd_snapshot(t);
				ptd_target_resume(t, st.tid, 0, 0);
				continue;
			}
			sig = st.signo;
			break;
		case PTD_STOP_CLONE:
			assert_int_equal(ptd_target_get_pc(t, st.new_tid, &pc), 0);
			ptd_steprec_add_thread(sr, st.new_tid, rd_new(res, st.new_tid), pc);
			ptd_steprec_before_step(sr, st.new_tid, 0);
			ptd_target_resume(t, st.new_tid, 1, 0);
			break;
		case PTD_STOP_THREAD_EXIT:
			ptd_steprec_remove_thread(sr, st.tid);
			continue;
		case PTD_STOP_EXEC:
			ptd_steprec_exec(sr, st.tid, st.pc);
			first = 1;
			entry = st.pc;
			break;
		case PTD_STOP_EXITED:
		case PTD_STOP_KILLED:
			res->exit_code = st.kind == PTD_STOP_EXITED ? st.status : 128 + st.signo;
			ptd_steprec_flush(sr, 0);
			goto done;
		default:
			break;
		}
		ptd_steprec_before_step(sr, st.tid, sig);
		ptd_target_resume(t, st.tid, 1, sig);
	}
done:
	ptd_steprec_free(sr);
	ptd_target_free(t);
	rd_target = NULL;
	rd_finish(res);
}

/* ---- the recorder under test ----------------------------------------------------------------- */

static struct rd_result *rd_cur;
/* Sync at every stop the run loop sees (incremental decoding), not only
 * at exit stops. */
static int rd_sync_every;

static void rd_notify(void *ctx, const char *msg)
{
	(void)ctx;
	if (rd_cur && rd_cur->nnotes < 8)
		snprintf(rd_cur->notes[rd_cur->nnotes++], sizeof(rd_cur->notes[0]), "%s", msg);
}

typedef struct ptd_recorder *(*rd_make_fn)(void *arg, const struct ptd_recorder_env *env);

/* Runs @argv under the recorder @make gives; 0, or the first error of
 * start() (the program is killed then). */
static int rd_run_rec(char **argv, rd_make_fn make, void *arg, struct rd_result *res)
{
	struct ptd_target *t = rd_launch(argv);
	struct ptd_recorder_env env;
	struct ptd_recorder *r;
	pid_t pid = ptd_target_pid(t);
	uint64_t pc;
	int rc;

	memset(&env, 0, sizeof(env));
	rd_sim = NULL;
	env.t = t;
	env.read_code = rd_read;
	env.notify = rd_notify;
	rd_cur = res;
	r = make(arg, &env);
	if (!r) {
		print_message("recorder: %s\n", ptd_last_error(-ptde_invalid));
		rd_kill(t);
		return -1;
	}
	assert_int_equal(ptd_target_get_pc(t, pid, &pc), 0);
	rc = r->ops->add_thread(r, pid, rd_new_rec(res, pid), pc);
	if (rc == 0)
		rc = r->ops->start(r);
	if (rc < 0) {
		r->ops->free(r);
		rd_kill(t);
		return rc;
	}
	assert_int_equal(r->ops->resume(r, pid, 0, 0), 0);
	for (;;) {
		struct ptd_stop st;
		int sig = 0;

		rc = ptd_target_wait(t, &st, 1);
		if (rc == -ptde_not_running)
			break;
		assert_int_equal(rc, 0);
		rc = r->ops->on_stop(r, &st);
		if (rc < 0)
			print_error("on_stop: %s\n", ptd_last_error(rc));
		assert_true(rc >= 0);
		if (rc == 1)
			continue;
		switch (st.kind) {
		case PTD_STOP_EXITING:
		case PTD_STOP_SIGNAL:
			if (rd_is_exit_stop(&st)) {
				/* Everything this thread ran is in its rings now. */
				rc = r->ops->sync(r, st.tid);
				if (rc < 0)
					print_error("sync: %s\n", ptd_last_error(rc));
				assert_int_equal(rc, 0);
				rd_snapshot(t);
				if (st.tid == pid) {
					size_t n = 0;
					if (r->ops->trace && r->ops->trace(r, pid, &n))
						res->trace_size = n;
				}
				break;
			}
			sig = st.signo;
			break;
		case PTD_STOP_CLONE:
			assert_int_equal(ptd_target_get_pc(t, st.new_tid, &pc), 0);
			assert_int_equal(
				r->ops->add_thread(r, st.new_tid, rd_new_rec(res, st.new_tid), pc), 0);
			assert_int_equal(r->ops->resume(r, st.new_tid, 0, 0), 0);
			break;
		case PTD_STOP_THREAD_EXIT:
			assert_int_equal(r->ops->thread_gone(r, st.tid), 0);
			continue;
		case PTD_STOP_EXEC:
			assert_int_equal(r->ops->exec(r, st.tid, st.pc), 0);
			break;
		case PTD_STOP_EXITED:
		case PTD_STOP_KILLED:
			res->exit_code = st.kind == PTD_STOP_EXITED ? st.status : 128 + st.signo;
			if (r->ops->has_thread(r, pid))
				assert_int_equal(r->ops->thread_gone(r, pid), 0);
			goto done;
		default:
			break;
		}
		/* As at a stop shown to the user: the history so far. */
		if (rd_sync_every && st.kind != PTD_STOP_THREAD_EXIT) {
			rc = r->ops->sync(r, st.tid);
			if (rc < 0)
				print_error("sync: %s\n", ptd_last_error(rc));
			assert_int_equal(rc, 0);
			res->syncs++;
		}
		if (r->ops->drain)
			assert_int_equal(r->ops->drain(r, st.tid), 0);
		rc = r->ops->resume(r, st.tid, 0, sig);
		if (rc == -ptde_nosrch)
			continue;
		assert_int_equal(rc, 0);
	}
done:
	r->ops->stats(r, &res->stats);
	r->ops->free(r);
	ptd_target_free(t);
	rd_target = NULL;
	rd_cur = NULL;
	rd_sim = NULL;
	rd_finish(res);
	return 0;
}

/* The two sequences of thread @i are the same instruction by instruction;
 * prints the first difference. */
static void rd_same(const struct rd_seq *a, const struct rd_seq *b, int i)
{
	size_t n = a->n < b->n ? a->n : b->n;

	for (size_t k = 0; k < n; k++)
		if (a->ip[k] != b->ip[k]) {
			print_error("thread %d: instruction %zu differs: 0x%llx vs 0x%llx\n", i, k + 1,
				    (unsigned long long)a->ip[k], (unsigned long long)b->ip[k]);
			/* RD_DUMP=N: the N instructions around it */
			for (size_t j = k > (size_t)atoi(getenv("RD_DUMP") ? getenv("RD_DUMP") : "0")
					    ? k - (size_t)atoi(getenv("RD_DUMP") ? getenv("RD_DUMP") : "0")
					    : 0;
			     getenv("RD_DUMP") && j < k + (size_t)atoi(getenv("RD_DUMP")) && j < n; j++)
				print_error("  %zu: 0x%llx 0x%llx\n", j + 1, (unsigned long long)a->ip[j],
					    (unsigned long long)b->ip[j]);
			break;
		}
	if (a->partial || b->partial) {
		assert_int_equal(a->ninsn, b->ninsn);
		assert_memory_equal(a->ip, b->ip, n * sizeof(*a->ip));
		return;
	}
	if (a->n != b->n)
		print_error("thread %d: %zu vs %zu instructions\n", i, a->n, b->n);
	assert_int_equal(a->n, b->n);
	assert_memory_equal(a->ip, b->ip, n * sizeof(*a->ip));
}

static const char *rd_testprog(const char *name)
{
	static char path[1024];
	const char *dir = getenv("TESTPROGS");
	struct stat sb;

	snprintf(path, sizeof(path), "%s/%s", dir ? dir : "testprogs/build", name);
	if (stat(path, &sb) != 0) {
		print_error("%s is not built (make testprogs)\n", path);
		fail();
	}
	return path;
}

#endif
