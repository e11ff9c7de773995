/*
 * The soft recorder against the step recorder, for real: each program is
 * run twice with ASLR off, once single-stepped (src/record/step.c, the
 * ground truth) and once under the soft recorder, and the per-thread
 * instruction sequences of the two histories must be identical.  Also
 * checks that no int3 is left in or shows through the program's memory,
 * that traps are far fewer than instructions, and that registers at
 * traps come back from the snapshots.
 *
 * Programs: a small one compiled at test time into $TMPDIR (loops,
 * recursion, function pointers, a switch jump table, a signal handler),
 * and the programs of testprogs/build when they were built.
 */
/* Two binaries share this file, each runs part of the tests (see main()). */
#pragma GCC diagnostic ignored "-Wunused-function"
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "decode/image.h"
#include "decode/pt.h"
#include "history/history.h"
#include "ptdbg/ptdbg.h"
#include "record/soft.h"
#include "record/step.h"
#include "target/target.h"
#include "run-to-main.h"

#define MAXTH 8

struct seq {
	uint64_t *ip;
	size_t n, cap;
	int partial;     /* code was gone (exec, dlclose): only counts compare */
	uint64_t ninsn;  /* executed instructions per the history */
	uint64_t gaps;
	uint64_t tail;   /* the history's tail (0: none) */
};

struct result {
	int nth;
	struct seq th[MAXTH];
	int exit_code;
	uint64_t traps, steps, insns;
	uint8_t *pt; /* the main thread's synthesized PT (soft) */
	size_t pt_size;
	uint64_t regs_checked;
	uint64_t tail;
};

static void seq_push(struct seq *s, uint64_t ip)
{
	if (s->n == s->cap) {
		s->cap = s->cap ? s->cap * 2 : 4096;
		s->ip = realloc(s->ip, s->cap * sizeof(*s->ip));
		assert_non_null(s->ip);
	}
	s->ip[s->n++] = ip;
}

static void result_free(struct result *r)
{
	for (int i = 0; i < MAXTH; i++)
		free(r->th[i].ip);
	free(r->pt);
	memset(r, 0, sizeof(*r));
}

/* Executed instructions of @h in order (gaps as 0), without the tail. */
static void collect(const struct ptd_history *h, struct seq *s)
{
	uint64_t count = ptd_history_count(h);
	uint64_t last = ptd_history_tail(h) ? count - 1 : count;
	struct ptd_hcursor c;
	struct ptd_item it;
	s->ninsn = ptd_history_ninsn(h);
	s->tail = ptd_history_tail(h);
	for (uint64_t i = 0; ptd_history_item(h, i, &it); i++)
		s->gaps += it.kind == PTD_ITEM_GAP;
	if (last == 0)
		return;
	assert_int_equal(ptd_hcursor_goto(&c, h, 1), 0);
	for (uint64_t i = 1; i <= last; i++) {
		seq_push(s, c.is_gap ? 0 : c.ip);
		if (i < last && ptd_hcursor_next(&c) < 0) {
			s->partial = 1;
			return;
		}
	}
}

/*
 * Histories decode instructions from memory when enumerated, and we
 * enumerate after the program is gone: at each thread's exit stop
 * (PTRACE_O_TRACEEXIT) we copy the executable mappings and read from the
 * copy once the process has exited.
 */
struct region {
	uint64_t lo, hi;
	uint8_t *bytes;
};
static struct region regions[64];
static int nregions;
static struct ptd_target *cur_target;

static void snapshot_code(struct ptd_target *t, pid_t tid)
{
	char path[64], line[512];
	struct region fresh[64];
	int nfresh = 0;
	/* The exiting thread's view: a leader that exited first (its
	 * thread exits before the others in an exit_group) lists no
	 * mappings any more. */
	snprintf(path, sizeof(path), "/proc/%d/task/%d/maps", (int)ptd_target_pid(t), (int)tid);
	FILE *f = fopen(path, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f) && nfresh < 64) {
		unsigned long lo, hi;
		char perms[8];
		if (sscanf(line, "%lx-%lx %7s", &lo, &hi, perms) != 3 || perms[2] != 'x')
			continue;
		struct region *g = &fresh[nfresh];
		g->lo = lo;
		g->hi = hi;
		g->bytes = calloc(1, hi - lo);
		if (ptd_target_read(t, lo, g->bytes, hi - lo) > 0)
			nfresh++;
		else
			free(g->bytes);
	}
	fclose(f);
	if (nfresh == 0)
		return; /* the previous thread's copy stays */
	for (int i = 0; i < nregions; i++)
		free(regions[i].bytes);
	memcpy(regions, fresh, nfresh * sizeof(fresh[0]));
	nregions = nfresh;
}

static void drop_snapshot(void)
{
	for (int i = 0; i < nregions; i++)
		free(regions[i].bytes);
	nregions = 0;
}

static int read_target(void *ctx, uint64_t addr, uint8_t *buf, size_t n)
{
	(void)ctx;
	if (cur_target && ptd_target_alive(cur_target))
		return (int)ptd_target_read(cur_target, addr, buf, n);
	for (int i = 0; i < nregions; i++) {
		struct region *g = &regions[i];
		if (addr >= g->lo && addr < g->hi) {
			size_t k = g->hi - addr < n ? g->hi - addr : n;
			memcpy(buf, g->bytes + (addr - g->lo), k);
			return (int)k;
		}
	}
	return -1;
}

static uint64_t vdso_lo, vdso_hi;

static void find_vdso(pid_t pid)
{
	char path[64], line[512];
	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	FILE *f = fopen(path, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		unsigned long lo, hi;
		if (strstr(line, "[vdso]") && sscanf(line, "%lx-%lx", &lo, &hi) == 2) {
			vdso_lo = lo;
			vdso_hi = hi;
		}
	}
	fclose(f);
}

static int is_exit_stop(const struct ptd_stop *st)
{
	return st->kind == PTD_STOP_EXITING; /* PTRACE_O_TRACEEXIT */
}

/*
 * Recordings of the test programs start at main: the dynamic loader's
 * hundred thousand instructions before it are the same in every program
 * and, single-stepped for the ground truth, cost most of the run time.
 * test_own_program and test_fib keep them (from_main = 0).
 */
static int from_main = 1;

/* The program's stdout goes to @out (NULL: ours). */
static struct ptd_target *launch_to(char **argv, const char *out)
{
	struct ptd_target *t = NULL;
	struct ptd_launch l = { .argv = argv, .disable_aslr = 1 };
	int saved = -1;
	if (out) {
		fflush(stdout);
		saved = dup(1);
		int fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		assert_true(fd >= 0);
		dup2(fd, 1);
		close(fd);
	}
	int rc = ptd_target_launch(&t, &l);
	if (saved >= 0) {
		dup2(saved, 1);
		close(saved);
	}
	if (rc < 0)
		print_error("launch %s: %s\n", argv[0], ptd_last_error(rc));
	assert_int_equal(rc, 0);
	/* The target's options plus exit stops (inherited by new threads). */
	assert_int_equal(ptrace(PTRACE_SETOPTIONS, ptd_target_pid(t), 0,
				(void *)(long)(PTRACE_O_TRACECLONE | PTRACE_O_TRACEFORK |
					       PTRACE_O_TRACEVFORK | PTRACE_O_TRACEVFORKDONE |
					       PTRACE_O_TRACEEXEC | PTRACE_O_TRACEEXIT)),
			 0);
	cur_target = t;
	drop_snapshot();
	find_vdso(ptd_target_pid(t));
	if (from_main)
		run_to_main(t, argv[0]);
	return t;
}

static struct ptd_target *launch(char **argv)
{
	return launch_to(argv, NULL);
}

/* ---- ground truth: the step recorder, driven here ---- */

struct stepth {
	pid_t tid;
	struct ptd_history *h;
};

static void run_step(char **argv, struct result *res, const char *out)
{
	struct ptd_target *t = launch_to(argv, out);
	struct ptd_steprec *sr = ptd_steprec_alloc(t);
	struct stepth th[MAXTH];
	int nth = 0;
	uint64_t pc;
	pid_t pid = ptd_target_pid(t);

	assert_non_null(sr);
	ptd_target_bp_enable(t, 0);
	assert_int_equal(ptd_target_get_pc(t, pid, &pc), 0);
	th[0].tid = pid;
	th[0].h = ptd_history_alloc(read_target, t);
	nth = 1;
	assert_int_equal(ptd_steprec_add_thread(sr, pid, th[0].h, pc), 0);
	assert_int_equal(ptd_steprec_before_step(sr, pid, 0), 0);
	assert_int_equal(ptd_target_resume(t, pid, 1, 0), 0);
	int first = 1;
	for (;;) {
		struct ptd_stop st;
		int rc = ptd_target_wait(t, &st, 1);
		if (rc == -ptde_not_running)
			break;
		assert_int_equal(rc, 0);
		int sig = 0;
		/* Kernel facts the driver must know (reported to the target's
		 * owner): the first step after the exec stop traps at the
		 * entry without executing it (the execve's syscall-exit
		 * trap), and the step into a signal handler is reported by
		 * ptrace_notify (si_code SIGTRAP), which the target calls a
		 * signal. */
		if (first && st.kind == PTD_STOP_STEP && st.pc == pc) {
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
			if (is_exit_stop(&st)) {
				snapshot_code(t, st.tid);
				ptd_target_resume(t, st.tid, 0, 0);
				continue;
			}
			sig = st.signo;
			break;
		case PTD_STOP_CLONE:
			assert_true(nth < MAXTH);
			assert_int_equal(ptd_target_get_pc(t, st.new_tid, &pc), 0);
			th[nth].tid = st.new_tid;
			th[nth].h = ptd_history_alloc(read_target, t);
			ptd_steprec_add_thread(sr, st.new_tid, th[nth].h, pc);
			nth++;
			ptd_steprec_before_step(sr, st.new_tid, 0);
			ptd_target_resume(t, st.new_tid, 1, 0);
			break;
		case PTD_STOP_THREAD_EXIT:
			ptd_steprec_remove_thread(sr, st.tid);
			continue;
		case PTD_STOP_EXEC:
			ptd_steprec_exec(sr, st.tid, st.pc);
			/* the execve's syscall-exit trap comes first again */
			first = 1;
			pc = st.pc;
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
	res->steps = ptd_steprec_steps(sr);
	res->nth = nth;
	for (int i = 0; i < nth; i++) {
		collect(th[i].h, &res->th[i]);
		ptd_history_free(th[i].h);
	}
	ptd_steprec_free(sr);
	ptd_target_free(t);
	cur_target = NULL;
}

/* ---- the soft recorder ---- */

struct softctx {
	struct ptd_target *t;
	int every; /* want_stop at every Nth trap (0: never) */
	unsigned ntraps, nwanted;
	pid_t tids[MAXTH];
	struct ptd_history *h[MAXTH];
	int nth;
};

static struct ptd_history *new_hist(void *ctx, pid_t tid)
{
	struct softctx *c = ctx;
	assert_true(c->nth < MAXTH);
	c->tids[c->nth] = tid;
	c->h[c->nth] = ptd_history_alloc(read_target, c->t);
	return c->h[c->nth++];
}

/* Checks that memory around every armed address reads clean through the
 * masked reader while the program runs with int3s in it. */
static void check_masked(struct ptd_target *t, uint64_t pc)
{
	uint8_t raw[64], clean[64];
	long n = ptd_target_read_raw(t, pc, raw, sizeof(raw));
	long m = ptd_target_read(t, pc, clean, sizeof(clean));
	assert_true(n > 0 && m == n);
	for (long i = 0; i < n; i++)
		if (raw[i] != clean[i])
			assert_true(ptd_target_bp_at(t, pc + (uint64_t)i));
}

static int want_every(void *ctx, pid_t tid, uint64_t pc)
{
	struct softctx *c = ctx;
	(void)tid;
	(void)pc;
	return c->every && ++c->ntraps % c->every == 0;
}

/*
 * Records @argv with the soft recorder.  With @every, every Nth trap is
 * reported to us (want_stop) and we single-step the thread three times
 * through ptd_softrec_resume() before letting it run, as a user's stepi
 * at a breakpoint would: the history must not change.
 */
static void run_soft_ex(char **argv, struct result *res, int regs_check, const char *out,
			int every)
{
	struct softctx c = { 0 };
	struct ptd_target *t = launch_to(argv, out);
	pid_t pid = ptd_target_pid(t);
	uint64_t pc;
	struct ptd_softrec_config cfg = { .pt = 1, .new_history = new_hist, .ctx = &c,
					  .want_stop = want_every };
	c.every = every;
	c.t = t;
	struct ptd_softrec *r = ptd_softrec_alloc(t, &cfg);
	assert_non_null(r);
	ptd_target_bp_enable(t, 1);
	assert_int_equal(ptd_target_get_pc(t, pid, &pc), 0);
	assert_int_equal(ptd_softrec_add_thread(r, pid, new_hist(&c, pid), pc), 0);
	assert_true(ptd_softrec_armed(r) >= 1);
	int checked = 0;
	for (;;) {
		struct ptd_stop st;
		int rc = ptd_softrec_wait(r, &st);
		if (rc == -ptde_not_running)
			break;
		if (rc != 0)
			print_error("soft wait: %d %s\n", rc, ptd_last_error(rc));
		assert_int_equal(rc, 0);
		if (st.kind == PTD_STOP_EXITED || st.kind == PTD_STOP_KILLED) {
			res->exit_code = st.kind == PTD_STOP_EXITED ? st.status : 128 + st.signo;
			break;
		}
		if (is_exit_stop(&st)) {
			snapshot_code(t, st.tid);
			ptd_target_set_pending_signal(t, st.tid, 0);
		} else if (st.kind == PTD_STOP_BREAKPOINT && every) {
			c.nwanted++;
			assert_true(ptd_target_bp_at(t, st.pc));
			for (int k = 0; k < 3; k++) {
				struct ptd_stop s2;
				assert_int_equal(ptd_softrec_resume(r, st.tid, 1, 0), 0);
				assert_int_equal(ptd_target_wait(t, &s2, 1), 0);
				if (s2.kind != PTD_STOP_STEP)
					break; /* a signal or exit: leave it to the loop */
				assert_int_equal(ptd_softrec_stop(r, &s2), 0);
			}
			assert_int_equal(ptd_softrec_flush(r, st.tid), 0);
		} else if (st.kind == PTD_STOP_SIGNAL) {
			if (!checked++)
				check_masked(t, st.pc);
			/* delivered by the next wait (pending signal) */
		}
	}
	if (every)
		assert_true(c.nwanted > 10);
	res->traps = ptd_softrec_traps(r);
	res->steps = ptd_softrec_steps(r);
	if (regs_check && !c.nth) {
		fail();
	} else if (regs_check) {
		/* The snapshot at the first trap has the pc of that instruction. */
		struct user_regs_struct regs;
		uint64_t at = 0;
		uint64_t last = ptd_history_count(c.h[0]) - 1;
		assert_int_equal(ptd_softrec_regs_near(r, pid, last, &regs, &at), 0);
		assert_true(at > 0);
		struct ptd_hcursor cur;
		assert_int_equal(ptd_hcursor_goto(&cur, c.h[0], at), 0);
		assert_int_equal(regs.rip, cur.ip);
		assert_int_equal(ptd_softrec_regs_at(r, pid, at, &regs), 0);
		assert_int_equal(regs.rip, cur.ip);
		/* PT was synthesized. */
		size_t size = 0;
		const uint8_t *pt = ptd_softrec_pt(r, pid, &size);
		assert_non_null(pt);
		assert_true(size > 16);
		res->pt = malloc(size);
		memcpy(res->pt, pt, size);
		res->pt_size = size;
		/* Registers at every trap come back from the deltas with the pc
		 * of the instruction recorded at that number. */
		uint64_t n = ptd_history_count(c.h[0]) - 1;
		assert_int_equal(ptd_hcursor_goto(&cur, c.h[0], 1), 0);
		for (uint64_t k = 1; k <= n; k++) {
			if (ptd_softrec_regs_at(r, pid, k, &regs) == 0) {
				assert_int_equal(regs.rip, cur.ip);
				assert_true(regs.rsp > 0x7f0000000000ull); /* a stack address */
				res->regs_checked++;
			}
			if (k < n && ptd_hcursor_next(&cur) < 0)
				break;
		}
	}
	res->nth = c.nth;
	res->tail = ptd_history_tail(c.h[0]);
	for (int i = 0; i < c.nth; i++) {
		collect(c.h[i], &res->th[i]);
		res->insns += res->th[i].n;
	}
	ptd_softrec_free(r);
	for (int i = 0; i < c.nth; i++)
		ptd_history_free(c.h[i]);
	ptd_target_free(t);
	cur_target = NULL;
}

enum cmp_mode {
	CMP_EXACT,   /* every thread identical */
	CMP_WORKERS, /* threads other than main identical (main's waits vary) */
	CMP_VDSO,    /* identical until the clock's seqlock retries differently */
};

static int in_vdso(uint64_t ip)
{
	return ip >= vdso_lo && ip < vdso_hi;
}

static void run_soft(char **argv, struct result *res, int regs_check, const char *out)
{
	run_soft_ex(argv, res, regs_check, out, 0);
}

static void compare(const char *name, const struct result *a, const struct result *b,
		    enum cmp_mode mode)
{
	print_message("%s: step %llu insns, soft %llu insns, %llu traps, %llu steps\n", name,
		      (unsigned long long)a->th[0].ninsn, (unsigned long long)b->th[0].ninsn,
		      (unsigned long long)b->traps, (unsigned long long)b->steps);
	if (getenv("PTD_SOFT_DUMP")) {
		for (int i = 0; i < a->nth && i < b->nth; i++) {
			char fn[64];
			FILE *f;
			snprintf(fn, sizeof(fn), "/tmp/seq-step-%d", i);
			f = fopen(fn, "w");
			for (size_t k = 0; k < a->th[i].n; k++)
				fprintf(f, "%llx\n", (unsigned long long)a->th[i].ip[k]);
			fclose(f);
			snprintf(fn, sizeof(fn), "/tmp/seq-soft-%d", i);
			f = fopen(fn, "w");
			for (size_t k = 0; k < b->th[i].n; k++)
				fprintf(f, "%llx\n", (unsigned long long)b->th[i].ip[k]);
			fclose(f);
		}
	}
	assert_int_equal(a->exit_code, b->exit_code);
	assert_int_equal(a->nth, b->nth);
	for (int i = 0; i < a->nth; i++) {
		const struct seq *x = &a->th[i], *y = &b->th[i];
		/* The soft recorder never loses track on these programs. */
		assert_int_equal(y->gaps, 0);
		if (i == 0 && mode == CMP_WORKERS && a->nth > 1)
			continue;
		int seen_vdso = 0;
		size_t n = x->n < y->n ? x->n : y->n;
		for (size_t k = 0; k < n; k++) {
			if (x->ip[k] == y->ip[k]) {
				seen_vdso |= in_vdso(x->ip[k]);
				continue;
			}
			if (mode == CMP_VDSO && seen_vdso)
				goto next; /* a retry of the time read: both are right */
			print_error("%s thread %d: first difference at %zu: step 0x%llx soft 0x%llx\n",
				    name, i, k + 1, (unsigned long long)x->ip[k],
				    (unsigned long long)y->ip[k]);
			for (size_t j = k > 5 ? k - 5 : 0; j < k + 8 && j < n; j++)
				print_error("  %zu: 0x%llx 0x%llx\n", j + 1,
					    (unsigned long long)x->ip[j], (unsigned long long)y->ip[j]);
			fail();
		}
		if (!x->partial && !y->partial)
			assert_int_equal(x->n, y->n);
		assert_int_equal(x->ninsn, y->ninsn);
next:;
	}
	/* One trap per conditional/indirect branch, far fewer than instructions. */
	assert_true(b->traps * 2 < b->insns);
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	static char buf[2][4096];
	static int k;
	char *b = buf[k++ & 1];
	size_t n = 0;
	assert_non_null(f);
	n = fread(b, 1, sizeof(buf[0]) - 1, f);
	b[n] = 0;
	fclose(f);
	return b;
}

static void check_program(char **argv, enum cmp_mode mode, const char *expect_out)
{
	struct result a = { 0 }, b = { 0 };
	char oa[600], ob[600];
	const char *tmp = getenv("TMPDIR");
	if (!tmp || !*tmp)
		tmp = "/tmp";
	snprintf(oa, sizeof(oa), "%s/ptd-soft-out-step-%d", tmp, (int)getpid());
	snprintf(ob, sizeof(ob), "%s/ptd-soft-out-soft-%d", tmp, (int)getpid());
	run_step(argv, &a, oa);
	run_soft(argv, &b, 1, ob);
	compare(argv[0], &a, &b, mode);
	assert_true(b.regs_checked * 4 > b.traps);
	/* The PT stream decodes (libipt) to the same instructions. */
	/* (Not for programs killed by a signal: the decode of the final
	 * FUP+TIP.PGD at a non-branch runs past it; reported to the
	 * decoder's owner.) */
	if (b.nth == 1 && !b.th[0].partial && b.exit_code < 128) {
		struct ptd_image *img = ptd_image_alloc(read_target, NULL);
		struct ptd_history *h = ptd_history_alloc(read_target, NULL);
		struct ptd_pt_stats ps;
		struct seq q = { 0 };
		assert_int_equal(ptd_pt_decode_history(b.pt, b.pt_size, img, h, &ps), 0);
		collect(h, &q);
		if (q.gaps) {
			struct ptd_item it;
			for (uint64_t i = 0; ptd_history_item(h, i, &it); i++)
				if (it.kind == PTD_ITEM_GAP)
					print_error("pt gap at %llu: %s\n", (unsigned long long)it.number,
						    ptd_history_detail(h, it.detail));
		}
		assert_int_equal(q.gaps, 0);
		/* PT counts the exit syscall as executed (it never returned:
		 * FUP at it and PGD, as hardware writes); the block history
		 * leaves it as the tail, like the step recorder. */
		assert_int_equal(q.n, b.th[0].n + 1);
		assert_int_equal(q.ip[q.n - 1], b.tail);
		q.n--;
		assert_memory_equal(q.ip, b.th[0].ip, q.n * sizeof(*q.ip));
		free(q.ip);
		ptd_history_free(h);
		ptd_image_free(img);
	}
	/* The program behaves the same under both (and as expected). */
	const char *sa = slurp(oa), *sb = slurp(ob);
	assert_string_equal(sa, sb);
	if (expect_out)
		assert_non_null(strstr(sb, expect_out));
	unlink(oa);
	unlink(ob);
	result_free(&a);
	result_free(&b);
}

static const char prog_src[] =
	"#include <signal.h>\n"
	"#include <stdio.h>\n"
	"#include <string.h>\n"
	"static volatile int hits;\n"
	"static void handler(int s) { for (int i = 0; i < 3; i++) hits += s; }\n"
	"static int fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }\n"
	"static int add(int a, int b) { return a + b; }\n"
	"static int mul(int a, int b) { return a * b; }\n"
	"static int (*ops[2])(int, int) = { add, mul };\n"
	"static int sw(int x) {\n"
	"	switch (x) { case 0: return 11; case 1: return 22; case 2: return 33;\n"
	"	case 3: return 44; case 4: return 55; case 5: return 66; default: return 0; }\n"
	"}\n"
	"int main(void) {\n"
	"	long acc = 0;\n"
	"	struct sigaction sa; memset(&sa, 0, sizeof(sa)); sa.sa_handler = handler;\n"
	"	sigaction(SIGUSR1, &sa, NULL);\n"
	"	for (int i = 0; i < 40; i++) {\n"
	"		acc += ops[i & 1](i, 3);\n"
	"		acc += sw(i % 8);\n"
	"		if (i == 20) raise(SIGUSR1);\n"
	"	}\n"
	"	acc += fib(12);\n"
	"	printf(\"acc=%ld hits=%d\\n\", acc, hits);\n"
	"	return (int)(acc & 0x7f);\n"
	"}\n";

static char prog_path[512];

static int build_prog(void **state)
{
	(void)state;
	const char *tmp = getenv("TMPDIR");
	char src[512], cmd[1200];
	if (!tmp || !*tmp)
		tmp = "/tmp";
	snprintf(src, sizeof(src), "%s/ptd-soft-test-%d.c", tmp, (int)getpid());
	snprintf(prog_path, sizeof(prog_path), "%s/ptd-soft-test-%d", tmp, (int)getpid());
	FILE *f = fopen(src, "w");
	if (!f)
		return -1;
	fputs(prog_src, f);
	fclose(f);
	snprintf(cmd, sizeof(cmd), "cc -g -O0 -no-pie -o %s %s", prog_path, src);
	int rc = system(cmd);
	unlink(src);
	return rc == 0 ? 0 : -1;
}

static int remove_prog(void **state)
{
	(void)state;
	unlink(prog_path);
	return 0;
}

static void test_own_program(void **state)
{
	(void)state;
	char *argv[] = { prog_path, NULL };
	from_main = 0; /* the loader too, once */
	check_program(argv, CMP_EXACT, "acc=2939 hits=30");
	from_main = 1;
}

static const char *testprog(const char *name)
{
	static char path[1024];
	const char *dir = getenv("TESTPROGS");
	struct stat sb;
	if (!dir)
		dir = "testprogs/build";
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if (stat(path, &sb) != 0)
		return NULL;
	return path;
}

static void run_testprog(const char *name, const char *arg, enum cmp_mode mode,
			 const char *expect_out)
{
	const char *p = testprog(name);
	if (!p) {
		print_message("testprogs/build/%s not built: skipped\n", name);
		skip();
	}
	char *argv[] = { (char *)p, (char *)arg, NULL };
	check_program(argv, mode, expect_out);
}

static void test_fib(void **state)
{
	(void)state;
	from_main = 0; /* the loader too, once more */
	run_testprog("fib", NULL, CMP_EXACT, "fib(10) = 55");
	from_main = 1;
}
static void test_fib_O2(void **state) { (void)state; run_testprog("fib-O2", NULL, CMP_EXACT, "fib(10) = 55"); }
static void test_loops(void **state) { (void)state; run_testprog("loops", NULL, CMP_EXACT, NULL); }
static void test_funcptr(void **state) { (void)state; run_testprog("funcptr", NULL, CMP_EXACT, NULL); }
static void test_switch(void **state) { (void)state; run_testprog("switch", NULL, CMP_EXACT, NULL); }
static void test_switch_O2(void **state) { (void)state; run_testprog("switch-O2", NULL, CMP_EXACT, NULL); }
static void test_tailcall(void **state) { (void)state; run_testprog("tailcall", NULL, CMP_EXACT, NULL); }
static void test_longjmp(void **state) { (void)state; run_testprog("longjmp", NULL, CMP_EXACT, NULL); }
static void test_signal(void **state) { (void)state; run_testprog("signal", NULL, CMP_EXACT, "hits=2"); }
static void test_vdso(void **state) { (void)state; run_testprog("vdso", NULL, CMP_VDSO, "vdso ok"); }
static void test_threads(void **state) { (void)state; run_testprog("threads", NULL, CMP_WORKERS, "a=40425 b=287925"); }
/*
 * Two workers blocked in one syscall instruction when the program ends:
 * the second passed it while the first's step had its int3 out.  Both
 * histories end before the syscall, with it as the tail, as the step
 * recorder's do (the exit stop found the second running, yet in the
 * syscall: it once counted the syscall as executed and ended after it).
 */
static void test_sysrace(void **state)
{
	(void)state;
	const char *p = testprog("sysrace");
	if (!p)
		fail_msg("testprogs/build/sysrace is not built");
	char *argv[] = { (char *)p, NULL };
	struct result a = { 0 }, b = { 0 };
	run_step(argv, &a, "/dev/null");
	run_soft(argv, &b, 0, "/dev/null");
	assert_int_equal(a.nth, 3);
	assert_int_equal(b.nth, 3);
	for (int i = 1; i < 3; i++) {
		const struct seq *x = &a.th[i], *y = &b.th[i];
		print_message("worker %d: step tail 0x%llx after 0x%llx, soft tail 0x%llx after 0x%llx\n",
			      i, (unsigned long long)x->tail,
			      (unsigned long long)(x->n ? x->ip[x->n - 1] : 0),
			      (unsigned long long)y->tail,
			      (unsigned long long)(y->n ? y->ip[y->n - 1] : 0));
		assert_false(x->partial); /* the code copy reads every instruction */
		assert_false(y->partial);
		assert_int_equal(y->gaps, 0);
		assert_true(x->n > 0 && y->n > 0);
		assert_int_not_equal(x->tail, 0);
		assert_int_equal(y->tail, x->tail);
		assert_int_equal(y->ip[y->n - 1], x->ip[x->n - 1]);
	}
	/* One syscall instruction for both. */
	assert_int_equal(a.th[1].tail, a.th[2].tail);
	result_free(&a);
	result_free(&b);
}

static void test_segfault(void **state) { (void)state; run_testprog("segfault", NULL, CMP_EXACT, NULL); }
static void test_abort(void **state) { (void)state; run_testprog("abort", NULL, CMP_EXACT, NULL); }
static void test_dlopen(void **state) { (void)state; run_testprog("dlopen", NULL, CMP_EXACT, NULL); }
/* The forked child runs with clean text: it would die of SIGTRAP otherwise. */
static void test_fork(void **state) { (void)state; run_testprog("fork", NULL, CMP_EXACT, "parent: child exited 7"); }
static void test_exec(void **state)
{
	(void)state;
	from_main = 0; /* the trap ratio is checked over the whole run, exec included */
	run_testprog("exec", NULL, CMP_EXACT, "fib(5) = 5");
	from_main = 1;
}

/* Stops at traps and single-steps in between leave the history exact. */
static void test_stepping_inside(void **state)
{
	(void)state;
	char *argv[] = { prog_path, NULL };
	struct result a = { 0 }, b = { 0 };
	from_main = 0; /* enough traps to stop at every 997th */
	run_step(argv, &a, "/dev/null");
	run_soft_ex(argv, &b, 0, "/dev/null", 997);
	from_main = 1;
	b.insns = b.th[0].n;
	b.traps = 0; /* the trap ratio is not the point here */
	compare("stepping inside", &a, &b, CMP_EXACT);
	result_free(&a);
	result_free(&b);
}

/* After the recorder is freed (its breakpoints removed), the program's
 * text equals the file's bytes as mapped. */
static void test_no_int3_left(void **state)
{
	(void)state;
	char *argv[] = { prog_path, NULL };
	from_main = 0;
	struct ptd_target *t = launch(argv);
	from_main = 1;
	pid_t pid = ptd_target_pid(t);
	uint64_t pc;
	struct ptd_softrec *r = ptd_softrec_alloc(t, NULL);
	ptd_target_bp_enable(t, 1);
	assert_int_equal(ptd_target_get_pc(t, pid, &pc), 0);
	assert_int_equal(ptd_softrec_add_thread(r, pid, NULL, pc), 0);
	/* Record until the signal stop in the middle of the loop. */
	struct ptd_stop st;
	do
		assert_int_equal(ptd_softrec_wait(r, &st), 0);
	while (st.kind != PTD_STOP_SIGNAL);
	assert_true(ptd_softrec_armed(r) > 5);
	assert_int_equal(ptd_softrec_flush(r, pid), 0);
	assert_true(ptd_history_ninsn(ptd_softrec_history(r, pid)) > 100);
	/* Text of main as the program sees it: int3s present now... */
	uint64_t main_lo = 0x401000;
	uint8_t raw[4096], clean[4096];
	long n = ptd_target_read_raw(t, main_lo, raw, sizeof(raw));
	assert_true(n > 0);
	assert_int_equal(ptd_target_read(t, main_lo, clean, (size_t)n), n);
	assert_memory_not_equal(raw, clean, (size_t)n);
	ptd_softrec_free(r);
	/* ...and gone after the recorder is freed. */
	assert_int_equal(ptd_target_read_raw(t, main_lo, raw, (size_t)n), n);
	assert_memory_equal(raw, clean, (size_t)n);
	/* Exit stops would hold up the kill in ptd_target_free(). */
	ptrace(PTRACE_SETOPTIONS, pid, 0,
	       (void *)(long)(PTRACE_O_TRACECLONE | PTRACE_O_TRACEFORK | PTRACE_O_TRACEVFORK |
			      PTRACE_O_TRACEVFORKDONE | PTRACE_O_TRACEEXEC));
	ptd_target_free(t);
	cur_target = NULL;
}

/*
 * Two binaries share this file (tests/unit/test-soft-progs.c includes it
 * with SOFT_PART 2): each program is recorded from its first instruction
 * twice (step and soft), and all of them in one binary came close to the
 * per-binary guard timeout of tests/run-all.sh on a loaded 2-core machine.
 */
#ifndef SOFT_PART
#define SOFT_PART 1
#endif
int main(void)
{
#if SOFT_PART == 1
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_own_program),
		cmocka_unit_test(test_no_int3_left),
		cmocka_unit_test(test_stepping_inside),
		cmocka_unit_test(test_fib),
		cmocka_unit_test(test_fib_O2),
		cmocka_unit_test(test_loops),
		cmocka_unit_test(test_funcptr),
		cmocka_unit_test(test_switch),
		cmocka_unit_test(test_switch_O2),
		cmocka_unit_test(test_tailcall),
	};
#else
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_longjmp),
		cmocka_unit_test(test_signal),
		cmocka_unit_test(test_vdso),
		cmocka_unit_test(test_threads),
		cmocka_unit_test(test_sysrace),
		cmocka_unit_test(test_segfault),
		cmocka_unit_test(test_abort),
		cmocka_unit_test(test_dlopen),
		cmocka_unit_test(test_fork),
		cmocka_unit_test(test_exec),
	};
#endif
	return cmocka_run_group_tests(tests, build_prog, remove_prog);
}
