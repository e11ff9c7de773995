/*
 * The soft branch recorder (see soft.h).
 *
 * Each recorded thread is "somewhere in the run that starts at start":
 * the instructions from start to the run's end are static, so they need
 * no observation; the only thing the thread can do next that we cannot
 * predict is the run's end instruction, and that is where our int3 sits.
 * At its trap we append the run's blocks, emulate the end instruction on
 * the registers (or single-step it), and the outcome names the next run.
 * Stops elsewhere (a signal, an interrupt, the caller's breakpoint) cut
 * the run at the stopped pc, which becomes the new start.
 *
 * Threads are not stopped together: a thread single-stepping a syscall
 * has its int3 lifted, so another thread may pass that syscall unseen.
 * When a trap is not where the current run ends, we assume the lifted
 * syscall ran and fell through, and look for the trap in the following
 * run; only when that fails is a gap recorded.
 *
 * Code written at run time (a JIT, a patched function): executable memory
 * the program can write without a syscall (writable or shared mappings,
 * from /proc/PID/maps, read again after every mapping syscall) is
 * "volatile".  Runs through it keep a copy of their bytes, which is
 * compared with memory each time a thread enters the run (at the trap that
 * chose it) and when it stops inside or at the end of it; the scanner cuts
 * runs where they would enter volatile code without a trap.  So code
 * stored and then reached through any branch, call or fall-through from
 * other code is seen fresh before it runs.  Only a run that rewrites
 * itself ahead of its own execution, with no trap in between, cannot be
 * followed: that is noticed at its next stop and recorded as a gap that
 * says so.  Other memory changes only through syscalls, which are tracked.
 *
 * An int3 that cannot be written (memory no process may write, such as
 * the executable view of a double mapping) is remembered: threads then
 * single-step to that run's end (M_WALK), which is recorded as if it had
 * trapped.  An int3 lost some other way is a gap with the reason.
 */
#include "record/soft.h"

#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "disasm/disasm.h"
#include "record/ptsynth.h"
#include "record/recorder.h"
#include "record/soft_emul.h"
#include "record/soft_regs.h"
#include "record/soft_scan.h"
#include "target/target.h"
#include "util/error.h"

enum smode {
	M_RUN = 0,    /* running (or stopped) inside the run from start */
	M_STEP_INSN,  /* our single-step of the armed instruction at step_ip */
	M_STEP_SIG,   /* our single-step delivering a caught signal */
	M_USER_STEP,  /* the caller's single-step (step_ip set when it is ours) */
	M_WALK,       /* single-stepping to a run's end that has no int3 */
};

struct pblk {
	struct ptd_block b;
	uint8_t len;
};

struct sthread {
	pid_t tid;
	struct ptd_history *h;
	int own_h;
	struct ptd_ptsynth *ps;
	uint64_t start;
	int mode;
	uint64_t step_ip;
	struct ptd_soft_insn step_insn;
	struct user_regs_struct step_regs;
	int step_event; /* a clone/fork stop came inside our step */
	int sig;
	uint64_t sig_from;
	int sig_stop; /* stopped for a signal: pend not committed yet */
	int exiting;  /* reported its PTRACE_EVENT_EXIT stop */
	uint64_t lifted; /* our int3 taken out for this thread's step */
	int pc_known;    /* stopped by us at start, which is not armed: just continue */
	int walked;      /* only single-stepped since start (M_WALK): exact */
	struct pblk *pend;
	int npend, cappend;
	uint64_t num; /* numbers used in h: executed instructions and gaps */
	/* Registers at every trap, by the recorder's numbers (num + 1 when
	 * taken); the history's numbers are these minus @dropped, the
	 * numbers its owner cut from its front (ptd_softrec_dropped). */
	struct ptd__soft_regs regs;
	uint64_t dropped;
	cpu_set_t orig_mask;
	int mask_saved;
	int gone;
};

struct ptd_softrec {
	struct ptd_target *t;
	struct ptd_softrec_config cfg;
	struct ptd_soft_scan *scan;
	struct ptd__soft_map insns; /* armed addr -> struct ptd_soft_insn * */
	struct sthread **th;
	int nth, capth;
	uint64_t traps, steps, branches;
	int pinned, cpu;
	cpu_set_t own_mask;
	int own_mask_saved;
	/* The traced process's mask before we pinned it: new threads inherit
	 * the pinned one, and all get this back. */
	cpu_set_t proc_mask;
	int proc_mask_saved;
	/* Volatile code (see the top): sorted ranges, read again when stale. */
	struct vrange *vol;
	size_t nvol, capvol;
	int vol_stale;
	/* Armed addresses whose int3 could not be put in memory: the branch
	 * there is not seen, and a thread passing it gets a gap saying so. */
	struct ptd__soft_map unarmed; /* addr -> (void *)1 */
	/* First error of a callback that cannot return one, reported by the
	 * next public call. */
	int err;
	uint64_t rescans;
};

struct vrange {
	uint64_t lo, hi;
};

/* ---- memory --------------------------------------------------------------- */

static long code_read(void *ctx, uint64_t addr, void *buf, size_t n)
{
	return ptd_target_read(ctx, addr, buf, n);
}

static int hist_read(void *ctx, uint64_t addr, uint8_t *buf, size_t n)
{
	return (int)ptd_target_read(ctx, addr, buf, n);
}

static long stack_write(void *ctx, uint64_t addr, const void *buf, size_t n)
{
	struct ptd_target *t = ctx;
	/* Stacks never hold our int3s, so a plain cross-process write is
	 * enough; ptd_target_write() would walk the breakpoint table. */
	struct iovec local = { (void *)buf, n }, remote = { (void *)(uintptr_t)addr, n };
	ssize_t w = process_vm_writev(ptd_target_pid(t), &local, 1, &remote, 1, 0);
	if (w == (ssize_t)n)
		return w;
	return ptd_target_write(t, addr, buf, n);
}

/* ---- threads ---------------------------------------------------------------- */

static struct sthread *find(const struct ptd_softrec *r, pid_t tid)
{
	for (int i = 0; i < r->nth; i++)
		if (r->th[i]->tid == tid && !r->th[i]->gone)
			return r->th[i];
	return NULL;
}

static void thread_free(struct sthread *th)
{
	if (!th)
		return;
	if (th->own_h)
		ptd_history_free(th->h);
	ptd_ptsynth_free(th->ps);
	free(th->pend);
	ptd__soft_regs_fini(&th->regs);
	free(th);
}

static int is_volatile(void *ctx, uint64_t addr);

struct ptd_softrec *ptd_softrec_alloc(struct ptd_target *t, const struct ptd_softrec_config *cfg)
{
	struct ptd_softrec *r;

	if (!t)
		return NULL;
	r = calloc(1, sizeof(*r));
	if (!r)
		return NULL;
	r->t = t;
	if (cfg)
		r->cfg = *cfg;
	r->scan = ptd_soft_scan_alloc(code_read, t);
	if (!r->scan) {
		free(r);
		return NULL;
	}
	r->vol_stale = 1;
	ptd_soft_scan_set_volatile(r->scan, is_volatile, r);
	if (!r->cfg.no_pin) {
		int cpu = sched_getcpu();
		cpu_set_t one;
		if (cpu >= 0 && sched_getaffinity(0, sizeof(r->own_mask), &r->own_mask) == 0) {
			r->own_mask_saved = 1;
			CPU_ZERO(&one);
			CPU_SET(cpu, &one);
			if (sched_setaffinity(0, sizeof(one), &one) == 0) {
				r->pinned = 1;
				r->cpu = cpu;
			}
		}
	}
	return r;
}

static void keep_err(struct ptd_softrec *r, int rc)
{
	if (rc < 0 && r->err == 0)
		r->err = rc;
}

/* The deferred error, once. */
static int take_err(struct ptd_softrec *r)
{
	int rc = r->err;
	r->err = 0;
	return rc;
}

static void drop_insn(void *ctx, uint64_t addr)
{
	struct ptd_softrec *r = ctx;
	free(ptd__soft_map_del(&r->insns, addr));
	if (ptd__soft_map_del(&r->unarmed, addr))
		return; /* never made it into memory */
	if (ptd_target_alive(r->t))
		keep_err(r, ptd_target_bp_remove(r->t, addr));
}

/* Reads the executable mappings the program can write without a syscall. */
static int vol_refresh(struct ptd_softrec *r)
{
	char path[64], line[512];
	FILE *f;

	r->nvol = 0;
	r->vol_stale = 0;
	snprintf(path, sizeof(path), "/proc/%d/maps", (int)ptd_target_pid(r->t));
	f = fopen(path, "re");
	if (!f) {
		/* Gone (exited, killed): no code of it runs any more. */
		if (errno == ENOENT || errno == ESRCH)
			return 0;
		r->vol_stale = 1;
		return ptd__err(ptd__errno_code(errno), "cannot read %s: %s", path,
				strerror(errno));
	}
	while (fgets(line, sizeof(line), f)) {
		unsigned long long lo, hi;
		char perms[8];
		if (sscanf(line, "%llx-%llx %7s", &lo, &hi, perms) != 3 || strlen(perms) < 4)
			continue;
		if (perms[2] != 'x' || (perms[1] != 'w' && perms[3] != 's'))
			continue;
		if (r->nvol == r->capvol) {
			size_t c = r->capvol ? r->capvol * 2 : 16;
			struct vrange *p = realloc(r->vol, c * sizeof(*p));
			if (!p) {
				fclose(f);
				r->vol_stale = 1;
				return -ptde_nomem;
			}
			r->vol = p;
			r->capvol = c;
		}
		r->vol[r->nvol++] = (struct vrange){ lo, hi };
	}
	fclose(f);
	return 0;
}

/* Does [@lo, @hi) meet a volatile range (as last read)? */
static int vol_overlaps(const struct ptd_softrec *r, uint64_t lo, uint64_t hi)
{
	if (r->vol_stale)
		return 1;
	for (size_t i = 0; i < r->nvol; i++)
		if (r->vol[i].lo < hi && lo < r->vol[i].hi)
			return 1;
	return 0;
}

/* Scanner callback: may @addr hold code the program rewrites without a syscall? */
static int is_volatile(void *ctx, uint64_t addr)
{
	struct ptd_softrec *r = ctx;
	size_t lo = 0, hi;

	if (r->vol_stale)
		keep_err(r, vol_refresh(r));
	hi = r->nvol;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (addr < r->vol[mid].lo)
			hi = mid;
		else if (addr >= r->vol[mid].hi)
			lo = mid + 1;
		else
			return 1;
	}
	return 0;
}

static void free_insns(struct ptd_softrec *r)
{
	for (size_t i = 0; i < r->insns.cap; i++)
		if (r->insns.keys[i])
			free(r->insns.vals[i]);
	ptd__soft_map_fini(&r->insns);
}

/* Takes every breakpoint of ours out (the process lives on). */
static void disarm_all(struct ptd_softrec *r)
{
	size_t n = ptd_soft_scan_armed_list(r->scan, NULL, 0);
	uint64_t *list = n ? malloc(n * sizeof(*list)) : NULL;
	if (list) {
		ptd_soft_scan_armed_list(r->scan, list, n);
		for (size_t i = 0; i < n; i++)
			if (ptd_target_alive(r->t))
				ptd_target_bp_remove(r->t, list[i]);
		free(list);
	}
	ptd_soft_scan_clear(r->scan);
	free_insns(r);
	ptd__soft_map_fini(&r->unarmed);
}

void ptd_softrec_free(struct ptd_softrec *r)
{
	if (!r)
		return;
	disarm_all(r);
	for (int i = 0; i < r->nth; i++) {
		struct sthread *th = r->th[i];
		if (th->mask_saved && !th->gone && ptd_target_alive(r->t))
			sched_setaffinity(th->tid, sizeof(th->orig_mask), &th->orig_mask);
		thread_free(th);
	}
	free(r->th);
	if (r->pinned && r->own_mask_saved)
		sched_setaffinity(0, sizeof(r->own_mask), &r->own_mask);
	ptd_soft_scan_free(r->scan);
	free(r->vol);
	free(r);
}

/* ---- register snapshots --------------------------------------------------- */

static void snap_push(struct sthread *th, uint64_t number, const struct user_regs_struct *regs)
{
	/* Out of memory: this trap's registers are not kept, and "info
	 * registers" there says they are not known. */
	ptd__soft_regs_push(&th->regs, number, regs);
}

int ptd_softrec_regs_near(const struct ptd_softrec *r, pid_t tid, uint64_t number,
			  struct user_regs_struct *out, uint64_t *at)
{
	const struct sthread *th = NULL;
	if (!r || !out)
		return -ptde_invalid;
	/* A gone thread's history may still be looked at. */
	for (int i = r->nth - 1; i >= 0; i--)
		if (r->th[i]->tid == tid) {
			th = r->th[i];
			break;
		}
	if (!th)
		return -ptde_notfound;
	uint64_t a = 0;
	/* Number 1 after a drop is the gap that stands for what was dropped. */
	int rc = th->dropped && number <= 1
			 ? -ptde_notfound
			 : ptd__soft_regs_near(&th->regs, number + th->dropped, out, &a);
	if (rc == 0 && th->dropped && a <= th->dropped + 1)
		rc = -ptde_notfound;
	if (rc == -ptde_notfound)
		return ptd__err(-ptde_notfound, "no registers recorded at or before %llu",
				(unsigned long long)number);
	if (rc < 0)
		return rc;
	if (at)
		*at = a - th->dropped;
	return 0;
}

int ptd_softrec_regs_at(const struct ptd_softrec *r, pid_t tid, uint64_t number,
			struct user_regs_struct *out)
{
	uint64_t at;
	int rc = ptd_softrec_regs_near(r, tid, number, out, &at);
	if (rc < 0)
		return rc;
	if (at != number)
		return ptd__err(-ptde_notfound, "no registers recorded at instruction %llu",
				(unsigned long long)number);
	return 0;
}

/* ---- history and PT output ------------------------------------------------ */

static int ps_on(struct sthread *th, uint64_t ip)
{
	if (!th->ps)
		return 0;
	if (!ptd_ptsynth_enabled(th->ps))
		return ptd_ptsynth_begin(th->ps, ip);
	return 0;
}

static int append(struct sthread *th, uint64_t ip, uint64_t end, uint32_t n, uint8_t iclass,
		  uint8_t flags, uint8_t len)
{
	struct ptd_block b = { ip, end, n, iclass, flags };
	int rc = ptd_history_append_block(th->h, &b);
	if (rc < 0)
		return rc;
	th->num += n;
	if (th->ps) {
		ps_on(th, ip);
		if (iclass == PTD_IC_CALL)
			ptd_ptsynth_call(th->ps, end + len);
		else if (iclass == PTD_IC_FAR_CALL)
			ptd_ptsynth_syscall(th->ps, end + len);
	}
	return 0;
}

static int pend_push(struct sthread *th, const struct ptd_soft_blk *b, uint8_t flags)
{
	if (th->npend == th->cappend) {
		int c = th->cappend ? th->cappend * 2 : 16;
		struct pblk *p = realloc(th->pend, c * sizeof(*p));
		if (!p)
			return -ptde_nomem;
		th->pend = p;
		th->cappend = c;
	}
	th->pend[th->npend++] = (struct pblk){ { b->ip, b->end_ip, b->ninsn, b->iclass, flags },
					       b->end_len };
	return 0;
}

/* Appends the pending blocks, @last_flags on the last one. */
static int commit(struct sthread *th, uint8_t last_flags)
{
	int rc = 0;
	for (int i = 0; i < th->npend && rc == 0; i++) {
		struct pblk *p = &th->pend[i];
		uint8_t fl = p->b.flags | (i == th->npend - 1 ? last_flags : 0);
		rc = append(th, p->b.ip, p->b.end_ip, p->b.ninsn, p->b.iclass, fl, p->len);
	}
	th->npend = 0;
	th->sig_stop = 0;
	return rc;
}

/* ---- arming ------------------------------------------------------------------- */

static void rearm_threads(struct ptd_softrec *r);
static int is_volatile(void *ctx, uint64_t addr);
static const struct ptd_soft_insn *armed_insn(const struct ptd_softrec *r, uint64_t addr);
static int insn_current(struct ptd_softrec *r, uint64_t addr);

/*
 * The program wrote code in [@lo, @hi): breakpoints there take its bytes
 * as their originals, and runs through the range are scanned again.
 */
static int code_changed(struct ptd_softrec *r, uint64_t lo, uint64_t hi)
{
	int rc = ptd_target_bp_refresh(r->t, lo, hi);
	if (rc < 0)
		return rc;
	r->rescans++;
	if (getenv("PTD_SOFT_DEBUG"))
		fprintf(stderr, "soft: code changed at 0x%llx..0x%llx\n", (unsigned long long)lo,
			(unsigned long long)hi);
	rc = ptd_soft_scan_invalidate(r->scan, lo, hi, drop_insn, r);
	if (rc < 0)
		return rc;
	rearm_threads(r);
	return take_err(r);
}

/*
 * The run from @ip, as the code is now: a cached run through volatile
 * code is compared with memory first and scanned again when it changed.
 */
static int get_run(struct ptd_softrec *r, uint64_t ip, const struct ptd_soft_run **out)
{
	for (int tries = 0;; tries++) {
		uint64_t lo, hi;
		int rc = ptd_soft_scan_run(r->scan, ip, out);
		if (rc < 0)
			return rc;
		if (!(*out)->vol || tries == 4)
			return take_err(r);
		rc = ptd_soft_scan_verify(r->scan, *out, &lo, &hi);
		if (rc < 0)
			return rc;
		if (rc == 0) {
			/* Unchanged; its end may still be armed for older code. */
			if ((*out)->bad || (rc = insn_current(r, (*out)->end)) == 1)
				return take_err(r);
			if (rc < 0)
				return rc;
			continue;
		}
		rc = code_changed(r, lo, hi);
		if (rc < 0)
			return rc;
	}
}

/* The int3 at @addr is not in memory: the branch there cannot be seen. */
static int note_unarmed(struct ptd_softrec *r, uint64_t addr)
{
	if (getenv("PTD_SOFT_DEBUG"))
		fprintf(stderr, "soft: cannot arm 0x%llx\n", (unsigned long long)addr);
	return ptd__soft_map_put(&r->unarmed, addr, (void *)1);
}

/* Scans the run from @ip and arms its end.  A run whose end cannot be
 * read (unmapped) is not armed: executing there faults and the signal
 * tells.  An end that cannot be written is remembered (note_unarmed). */
static int arm_run(struct ptd_softrec *r, uint64_t ip)
{
	const struct ptd_soft_run *run;
	int rc = get_run(r, ip, &run);
	if (rc < 0)
		return rc;
	if (run->bad)
		return 0;
	rc = ptd_soft_scan_arm(r->scan, run->end);
	if (rc < 0)
		return rc;
	if (rc == 0) {
		/* Armed before; try again if its int3 did not go in then. */
		if (ptd__soft_map_get(&r->unarmed, run->end) &&
		    ptd_target_bp_insert(r->t, run->end) == 0)
			ptd__soft_map_del(&r->unarmed, run->end);
		return 0;
	}
	struct ptd_soft_insn *in = malloc(sizeof(*in));
	if (!in)
		return -ptde_nomem;
	*in = run->insn;
	if (ptd__soft_map_put(&r->insns, run->end, in) < 0) {
		free(in);
		return -ptde_nomem;
	}
	if (ptd_target_bp_insert(r->t, run->end) < 0)
		return note_unarmed(r, run->end);
	return 0;
}

static const struct ptd_soft_insn *armed_insn(const struct ptd_softrec *r, uint64_t addr)
{
	return ptd__soft_map_get(&r->insns, addr);
}

static int same_insn(const struct ptd_soft_insn *a, const struct ptd_soft_insn *b)
{
	return a->ip == b->ip && a->len == b->len && a->op == b->op && a->cond == b->cond &&
	       a->target == b->target && a->addr32 == b->addr32 &&
	       !memcmp(&a->loc, &b->loc, sizeof(a->loc));
}

/*
 * Is the armed instruction at @addr still what memory holds, with our int3
 * on it?  In volatile code an address armed for an older version of the
 * code may be overwritten without its run being entered since.  Returns
 * 1 when current (or not volatile), 0 when not (the address is then
 * treated as changed code and disarmed), <0 on errors.
 */
static int insn_current(struct ptd_softrec *r, uint64_t addr)
{
	const struct ptd_soft_insn *in = armed_insn(r, addr);
	struct ptd_soft_insn now;
	uint8_t buf[16], raw;
	long n;
	int rc;

	if (!in || !is_volatile(r, addr))
		return 1;
	n = ptd_target_read(r->t, addr, buf, sizeof(buf));
	if (n > 0 && ptd_soft_decode(buf, (size_t)n, addr, &now) == 0 && same_insn(in, &now) &&
	    (ptd__soft_map_get(&r->unarmed, addr) ||
	     (ptd_target_read_raw(r->t, addr, &raw, 1) == 1 && raw == 0xcc)))
		return 1;
	rc = code_changed(r, addr, addr + (in->len ? in->len : 1));
	return rc < 0 ? rc : 0;
}

/* The armed instruction at @addr if it is current, else NULL (*@err set
 * on errors). */
static const struct ptd_soft_insn *current_insn(struct ptd_softrec *r, uint64_t addr, int *err)
{
	int rc = insn_current(r, addr);
	if (rc < 0)
		*err = rc;
	return rc == 1 ? armed_insn(r, addr) : NULL;
}

/* ---- following a thread -------------------------------------------------------- */

static int unseen_syscall(struct ptd_softrec *r, struct sthread *th);

/*
 * The thread stopped at @z: queue the blocks it executed since start
 * (in th->pend, not yet appended) and make @z the new start.  Returns 0,
 * or 1 when @z is not reachable from start statically (a gap is recorded).
 */
static int advance(struct ptd_softrec *r, struct sthread *th, uint64_t z)
{
	uint64_t s = th->start;
	const char *why = "soft recorder: the thread left its statically known path";
	char msg[160];
	int unseen = 0;
	th->npend = 0;
	if (z == s)
		return 0;
	for (int tries = 0; tries < 8; tries++) {
		const struct ptd_soft_run *run;
		uint64_t lo, hi;
		int rc = ptd_soft_scan_run(r->scan, s, &run);
		if (rc < 0)
			return rc;
		if (run->vol && (rc = ptd_soft_scan_verify(r->scan, run, &lo, &hi)) != 0) {
			/* Checked when the thread entered it: the run rewrote
			 * itself (or another thread did) with no trap between
			 * the store and the code, so what ran is not known. */
			if (rc < 0)
				return rc;
			snprintf(msg, sizeof(msg),
				 "soft recorder: code at 0x%llx changed while the thread ran it",
				 (unsigned long long)lo);
			why = msg;
			if ((rc = code_changed(r, lo, hi)) < 0)
				return rc;
			break;
		}
		if (!th->walked && ptd__soft_map_get(&r->unarmed, run->end) && !run->bad) {
			/* Whether it passed the branch there is not known. */
			snprintf(msg, sizeof(msg),
				 "soft recorder: no breakpoint could be put at 0x%llx, the thread "
				 "may have passed it unseen",
				 (unsigned long long)run->end);
			why = msg;
			break;
		}
		struct ptd_soft_blk tmp[8], *buf = tmp;
		int max = (int)run->nblk;
		if (max > 8) {
			buf = malloc(max * sizeof(*buf));
			if (!buf)
				return -ptde_nomem;
		}
		int n = ptd_soft_run_prefix(run, z, buf, max);
		if (n >= 0) {
			for (int i = 0; i < n; i++)
				pend_push(th, &buf[i], 0);
		}
		if (buf != tmp)
			free(buf);
		if (n >= 0) {
			th->start = z;
			return unseen ? unseen_syscall(r, th) : 0;
		}
		/* Not in this run: the run's end must have executed without
		 * its trap, which only a lifted syscall breakpoint allows. */
		if (run->bad || run->insn.op != PTD_SOP_SYSCALL)
			break;
		for (uint32_t i = 0; i < run->nblk; i++)
			pend_push(th, &run->blk[i], i == run->nblk - 1 ? PTD_BLK_SYSCALL : 0);
		s = run->end + run->insn.len;
		unseen = 1;
		if (s == z) {
			th->start = z;
			return unseen_syscall(r, th);
		}
	}
	th->npend = 0;
	if (getenv("PTD_SOFT_DEBUG"))
		fprintf(stderr, "soft: %d lost: start 0x%llx stop 0x%llx mode %d\n", (int)th->tid,
			(unsigned long long)th->start, (unsigned long long)z, th->mode);
	int grc = ptd_history_append_gap(th->h, PTD_GAP_LOST, z, why);
	if (grc < 0)
		return grc;
	th->num++;
	if (th->ps && ptd_ptsynth_enabled(th->ps))
		ptd_ptsynth_overflow(th->ps, z);
	th->start = z;
	return 1;
}

/*
 * @th passed a syscall unseen (its int3 was lifted for another thread's
 * step) and is now stopped after it: orig_rax still says which.  One that
 * may have changed the code or the mappings makes every scanned run
 * suspect; this is rare (two threads in one wrapper at once).
 */
static int unseen_syscall(struct ptd_softrec *r, struct sthread *th)
{
	struct user_regs_struct regs;
	int rc = ptd_target_get_regs(r->t, th->tid, &regs);
	if (rc < 0)
		return rc;
	switch ((long)regs.orig_rax) {
	case SYS_mmap:
	case SYS_munmap:
	case SYS_mprotect:
	case SYS_mremap:
	case SYS_pkey_mprotect:
	case SYS_shmat:
	case SYS_shmdt:
	case SYS_remap_file_pages:
		r->vol_stale = 1;
		rc = ptd_soft_scan_invalidate(r->scan, 1, UINT64_MAX, drop_insn, r);
		if (rc < 0)
			return rc;
		rearm_threads(r);
		return take_err(r);
	default:
		return 0;
	}
}

/* Records the PT outcome of branch @in whose successor is @q. */
static void ps_outcome(struct sthread *th, const struct ptd_soft_insn *in, uint64_t q, int taken)
{
	if (!th->ps)
		return;
	ps_on(th, in->ip);
	switch (in->op) {
	case PTD_SOP_JCC:
	case PTD_SOP_JRCXZ:
	case PTD_SOP_LOOP:
		ptd_ptsynth_cond(th->ps, taken, q);
		break;
	case PTD_SOP_JMP_IND:
		ptd_ptsynth_indirect(th->ps, q);
		break;
	case PTD_SOP_CALL_IND:
		ptd_ptsynth_icall(th->ps, in->ip + in->len, q);
		break;
	case PTD_SOP_RET:
		ptd_ptsynth_ret(th->ps, q);
		break;
	case PTD_SOP_CALL:
		ptd_ptsynth_call(th->ps, in->ip + in->len);
		break;
	case PTD_SOP_JMP:
	case PTD_SOP_NONE:
		break;
	default:
		ptd_ptsynth_syscall(th->ps, q);
		break;
	}
}

/* Appends the armed instruction @in as executed, leading to @q. */
static int record_branch(struct ptd_softrec *r, struct sthread *th, const struct ptd_soft_insn *in,
			 uint64_t q, int taken)
{
	uint8_t flags = in->op == PTD_SOP_SYSCALL ? PTD_BLK_SYSCALL : 0;
	struct ptd_block b = { in->ip, in->ip, 1, in->iclass, flags };
	int rc = ptd_history_append_block(th->h, &b);
	if (rc < 0)
		return rc;
	th->num++;
	if (ptd_soft_op_dynamic(in->op))
		r->branches++;
	ps_outcome(th, in, q, taken);
	return 0;
}

static void rearm_threads(struct ptd_softrec *r)
{
	for (int i = 0; i < r->nth; i++)
		if (!r->th[i]->gone && r->th[i]->mode == M_RUN)
			keep_err(r, arm_run(r, r->th[i]->start));
}

/*
 * After a write or pwrite64 that succeeded: when its file is this
 * process's /proc/PID/mem, the bytes written are [*@lo, *@lo + *@len).
 */
static int self_mem_write(struct ptd_softrec *r, struct sthread *th, uint64_t *lo, uint64_t *len)
{
	const struct user_regs_struct *a = &th->step_regs;
	struct user_regs_struct now;
	char path[64], link[64], want[64];
	ssize_t n;

	if ((long)a->rdi < 3 || ptd_target_get_regs(r->t, th->tid, &now) < 0 ||
	    (long)now.rax <= 0)
		return 0;
	snprintf(path, sizeof(path), "/proc/%d/fd/%d", (int)th->tid, (int)a->rdi);
	n = readlink(path, link, sizeof(link) - 1);
	if (n <= 0)
		return 0;
	link[n] = 0;
	snprintf(want, sizeof(want), "/proc/%d/mem", (int)ptd_target_pid(r->t));
	if (strcmp(link, want) != 0) {
		snprintf(want, sizeof(want), "/proc/%d/mem", (int)th->tid);
		if (strcmp(link, want) != 0)
			return 0;
	}
	*len = now.rax;
	if ((long)a->rax == SYS_pwrite64) {
		*lo = a->r10;
		return 1;
	}
	/* write: the file position has moved past what was written. */
	char info[64], line[128];
	unsigned long long pos = 0;
	int found = 0;
	snprintf(info, sizeof(info), "/proc/%d/fdinfo/%d", (int)th->tid, (int)a->rdi);
	FILE *f = fopen(info, "re");
	if (!f)
		return 0;
	while (!found && fgets(line, sizeof(line), f))
		found = sscanf(line, "pos: %llu", &pos) == 1;
	fclose(f);
	if (!found || pos < *len)
		return 0;
	*lo = pos - *len;
	return 1;
}

/* After our syscall step: keep the code caches in line with the mappings. */
static void track_syscall(struct ptd_softrec *r, struct sthread *th, uint64_t q)
{
	const struct user_regs_struct *a = &th->step_regs;
	long nr = (long)a->rax;
	uint64_t lo = 0, len = 0;
	int exec = 0;

	switch (nr) {
	case SYS_munmap:
	case SYS_mremap:
		lo = a->rdi;
		len = a->rsi;
		break;
	case SYS_mprotect:
	case SYS_pkey_mprotect:
		lo = a->rdi;
		len = a->rsi;
		exec = (a->rdx & PROT_EXEC) != 0;
		break;
	case SYS_shmat:
	case SYS_shmdt:
	case SYS_remap_file_pages:
		/* Rare: forget every run rather than work out the range. */
		lo = 1;
		len = UINT64_MAX - 1;
		r->vol_stale = 1;
		break;
	case SYS_write:
	case SYS_pwrite64:
		/* Code written through /proc/self/mem (no store, no fault). */
		if (!self_mem_write(r, th, &lo, &len))
			return;
		break;
	case SYS_mmap: {
		struct user_regs_struct now;
		if (ptd_target_get_regs(r->t, th->tid, &now) < 0 || now.rax > (uint64_t)-4096)
			return;
		lo = now.rax;
		len = a->rsi;
		exec = (a->rdx & PROT_EXEC) != 0;
		break;
	}
	case SYS_rt_sigreturn:
		keep_err(r, ptd_history_append_event(th->h, PTD_EV_SIGRETURN, q, 0));
		return;
	default:
		return;
	}
	if (!len)
		return;
	if (lo + len < lo)
		len = UINT64_MAX - lo;
	/* The volatile set changes only with executable mappings or where
	 * it already is (read again lazily, at the next scan or check). */
	if (exec || vol_overlaps(r, lo, lo + len))
		r->vol_stale = 1;
	keep_err(r, ptd_target_bp_refresh(r->t, lo, lo + len));
	int dropped = ptd_soft_scan_invalidate(r->scan, lo, lo + len, drop_insn, r);
	if (exec || dropped > 0)
		keep_err(r, ptd_history_append_event(th->h, PTD_EV_MMAP, lo, len));
	if (dropped > 0)
		rearm_threads(r);
}

/*
 * Single-steps the thread over the instruction at its pc.  Our int3 there
 * is taken out for the step without the target's synchronous step-over,
 * which would wait for the step to finish: a blocking syscall (a futex
 * wait for another thread) would hang us.  Other threads may pass the
 * lifted syscall meanwhile; advance() copes with that.
 */
static int issue_step(struct ptd_softrec *r, struct sthread *th, int signo)
{
	uint64_t pc;
	int rc;
	if (!th->lifted && ptd_target_get_pc(r->t, th->tid, &pc) == 0 &&
	    ptd_soft_scan_armed(r->scan, pc) && ptd_target_bp_at(r->t, pc) &&
	    !ptd__soft_map_get(&r->unarmed, pc)) {
		const struct ptd_soft_insn *in = armed_insn(r, pc);

		/* While the int3 is out another thread can pass here unseen
		 * (a syscall step may block in the kernel for long: all the
		 * threads of a barrier pass its futex call).  advance() takes
		 * such a thread over the syscall; the run after it must be
		 * armed already, or the thread runs on unseen to whatever int3
		 * comes next and its path there is lost. */
		if (in && in->op == PTD_SOP_SYSCALL && (rc = arm_run(r, pc + in->len)) < 0)
			return rc;
		/* A failed removal leaves the int3 in: the step would trap
		 * on it instead of running the instruction. */
		rc = ptd_target_bp_remove(r->t, pc);
		if (rc < 0)
			return rc;
		if (!ptd_target_bp_at(r->t, pc)) {
			th->lifted = pc;
		} else {
			/* The caller's too: let the target step over it. */
			rc = ptd_target_bp_insert(r->t, pc);
			if (rc < 0)
				return rc;
		}
	}
	return ptd_target_resume(r->t, th->tid, 1, signo);
}

/* Puts back the int3 lifted for @th's step; one that cannot go back is
 * noted, so a thread that passes there unseen gets a gap saying why. */
static int unlift(struct ptd_softrec *r, struct sthread *th)
{
	uint64_t a = th->lifted;
	int rc = 0;
	if (!a)
		return 0;
	th->lifted = 0;
	if (ptd_target_alive(r->t) && ptd_soft_scan_armed(r->scan, a) &&
	    ptd_target_bp_insert(r->t, a) < 0)
		rc = note_unarmed(r, a);
	return rc;
}

/* Longest chain of branches emulated without letting the thread run. */
#define CHAIN_MAX 64

/*
 * Emulates the armed instruction at the thread's pc (== start) and,
 * while the outcome lands on another armed instruction, that one too:
 * resuming on an int3 would make the target step over it unrecorded.
 * Registers are written once at the end.  Returns 0 when the thread can
 * continue, 1 when the instruction at its pc must be single-stepped
 * (mode set), <0 on errors.
 */
static int execute_branch(struct ptd_softrec *r, struct sthread *th,
			  const struct ptd_soft_insn *in, struct user_regs_struct *regs)
{
	struct ptd_soft_mem mem = { code_read, stack_write, r->t };
	struct ptd_soft_outcome out;
	int rc, moved = 0;

	for (int i = 0;; i++) {
		struct user_regs_struct before = *regs;
		snap_push(th, th->num + 1, regs);
		rc = i < CHAIN_MAX ? ptd_soft_emulate(in, regs, &mem, &out) : PTD_SOFT_NOEMUL;
		if (rc < 0)
			return rc;
		if (rc == PTD_SOFT_NOEMUL) {
			/* Tell the owner before a syscall runs: it may unmap code
			 * that was recorded (the history from th->start on is
			 * not yet written). */
			if (in->op == PTD_SOP_SYSCALL && r->cfg.before_syscall)
				r->cfg.before_syscall(r->cfg.ctx, th->tid, &before, th->start);
			/* The snapshot stays: stepped() appends this instruction. */
			if (moved && (rc = ptd_target_set_regs(r->t, th->tid, regs)) < 0)
				return rc;
			th->mode = M_STEP_INSN;
			th->step_ip = in->ip;
			th->step_insn = *in;
			th->step_regs = before;
			th->step_event = 0;
			return 1;
		}
		moved = 1;
		rc = record_branch(r, th, in, out.target, out.taken);
		if (rc < 0)
			return rc;
		th->start = out.target;
		th->mode = M_RUN;
		rc = arm_run(r, th->start);
		if (rc < 0)
			return rc;
		in = current_insn(r, th->start, &rc);
		if (rc < 0)
			return rc;
		if (!in)
			break;
	}
	return ptd_target_set_regs(r->t, th->tid, regs);
}

/* The instruction at step_ip was single-stepped and the thread is at @q. */
static int stepped(struct ptd_softrec *r, struct sthread *th, uint64_t q)
{
	const struct ptd_soft_insn *in = &th->step_insn;
	int taken = q == in->target && q != in->ip + in->len;
	int rc;

	r->steps++;
	if ((rc = unlift(r, th)) < 0)
		return rc;
	if ((rc = record_branch(r, th, in, q, taken)) < 0)
		return rc;
	if (in->op == PTD_SOP_SYSCALL)
		track_syscall(r, th, q);
	if (th->step_event) {
		/* Events inside the step may have left the int3 out; put it back. */
		uint8_t b;
		if (ptd_soft_scan_armed(r->scan, th->step_ip) &&
		    !ptd__soft_map_get(&r->unarmed, th->step_ip) &&
		    ptd_target_read_raw(r->t, th->step_ip, &b, 1) == 1 && b != 0xcc) {
			if ((rc = ptd_target_bp_remove(r->t, th->step_ip)) < 0)
				return rc;
			if (ptd_target_bp_insert(r->t, th->step_ip) < 0 &&
			    (rc = note_unarmed(r, th->step_ip)) < 0)
				return rc;
		}
	}
	if ((rc = take_err(r)) < 0)
		return rc;
	th->mode = M_RUN;
	th->step_ip = 0;
	th->start = q;
	return arm_run(r, q);
}

/*
 * Lets @th run on from its start: freely up to the int3 at the end of its
 * run, or, where that int3 could not be put in (note_unarmed: code in
 * memory nobody can write, such as the executable view of a JIT's
 * double mapping), one single-step at a time, so the end is seen before
 * it runs and recorded as if it had trapped.
 */
static int go(struct ptd_softrec *r, struct sthread *th, int signo)
{
	const struct ptd_soft_run *run;
	int rc = ptd_soft_scan_run(r->scan, th->start, &run);

	if (rc < 0)
		return rc;
	if (!run->bad && ptd__soft_map_get(&r->unarmed, run->end) &&
	    ptd_target_bp_insert(r->t, run->end) == 0)
		ptd__soft_map_del(&r->unarmed, run->end); /* it goes in now */
	if (run->bad || !ptd__soft_map_get(&r->unarmed, run->end)) {
		th->mode = M_RUN;
		th->walked = 0;
		return ptd_target_resume(r->t, th->tid, 0, signo);
	}
	if (run->end == th->start) {
		/* At the end already (a chain of emulated branches stopped
		 * here): step it as an instruction the emulator refused. */
		struct user_regs_struct regs;
		if ((rc = ptd_target_get_regs(r->t, th->tid, &regs)) < 0)
			return rc;
		if (run->insn.op == PTD_SOP_SYSCALL && r->cfg.before_syscall)
			r->cfg.before_syscall(r->cfg.ctx, th->tid, &regs, th->start);
		snap_push(th, th->num + 1, &regs);
		th->mode = M_STEP_INSN;
		th->step_ip = run->end;
		th->step_insn = run->insn;
		th->step_regs = regs;
		th->step_event = 0;
		return issue_step(r, th, signo);
	}
	th->mode = M_WALK;
	th->walked = 1;
	return ptd_target_resume(r->t, th->tid, 1, signo);
}

/* ---- public: threads -------------------------------------------------------- */

int ptd_softrec_add_thread(struct ptd_softrec *r, pid_t tid, struct ptd_history *h, uint64_t pc)
{
	struct sthread *th;

	if (!r || !pc)
		return -ptde_invalid;
	th = find(r, tid);
	if (th)
		return 0;
	th = calloc(1, sizeof(*th));
	if (!th)
		return -ptde_nomem;
	th->tid = tid;
	if (!h && r->cfg.new_history)
		h = r->cfg.new_history(r->cfg.ctx, tid);
	if (!h) {
		h = ptd_history_alloc(hist_read, r->t);
		th->own_h = 1;
	}
	if (!h) {
		free(th);
		return -ptde_nomem;
	}
	th->h = h;
	if (r->cfg.pt) {
		th->ps = ptd_ptsynth_alloc(NULL);
		if (!th->ps) {
			thread_free(th);
			return -ptde_nomem;
		}
		ptd_ptsynth_begin(th->ps, pc);
	}
	th->num = ptd_history_count(h);
	if (ptd_history_tail(h) && th->num)
		th->num--;
	th->start = pc;
	{
		/* The registers where the recording of the thread starts are
		 * known exactly (it is stopped there): kept like a trap's, so
		 * that the first recorded instruction has its values too. */
		struct user_regs_struct regs;

		if (ptd_target_thread_state(r->t, tid) == PTD_THREAD_STOPPED &&
		    ptd_target_get_regs(r->t, tid, &regs) == 0 && regs.rip == pc)
			snap_push(th, th->num + 1, &regs);
	}
	if (r->nth == r->capth) {
		int c = r->capth ? r->capth * 2 : 8;
		struct sthread **p = realloc(r->th, c * sizeof(*p));
		if (!p) {
			thread_free(th);
			return -ptde_nomem;
		}
		r->th = p;
		r->capth = c;
	}
	r->th[r->nth++] = th;
	if (r->pinned) {
		cpu_set_t one;
		if (!r->proc_mask_saved &&
		    sched_getaffinity(tid, sizeof(r->proc_mask), &r->proc_mask) == 0)
			r->proc_mask_saved = 1;
		if (r->proc_mask_saved) {
			th->orig_mask = r->proc_mask;
			th->mask_saved = 1;
		}
		CPU_ZERO(&one);
		CPU_SET(r->cpu, &one);
		sched_setaffinity(tid, sizeof(one), &one);
	}
	ptd_history_set_tail(h, pc);
	return arm_run(r, pc);
}

int ptd_softrec_remove_thread(struct ptd_softrec *r, pid_t tid)
{
	struct sthread *th = r ? find(r, tid) : NULL;
	if (!th)
		return -ptde_notfound;
	if (ptd_target_thread_state(r->t, tid) == PTD_THREAD_STOPPED)
		ptd_softrec_flush(r, tid);
	th->gone = 1;
	return 0;
}

int ptd_softrec_has_thread(const struct ptd_softrec *r, pid_t tid)
{
	return r && find(r, tid) != NULL;
}

struct ptd_history *ptd_softrec_history(const struct ptd_softrec *r, pid_t tid)
{
	if (!r)
		return NULL;
	for (int i = r->nth - 1; i >= 0; i--)
		if (r->th[i]->tid == tid)
			return r->th[i]->h;
	return NULL;
}

uint64_t ptd_softrec_traps(const struct ptd_softrec *r)
{
	return r ? r->traps : 0;
}

uint64_t ptd_softrec_steps(const struct ptd_softrec *r)
{
	return r ? r->steps : 0;
}

uint64_t ptd_softrec_branches(const struct ptd_softrec *r)
{
	return r ? r->branches : 0;
}

size_t ptd_softrec_armed(const struct ptd_softrec *r)
{
	return r ? ptd_soft_scan_armed_list(r->scan, NULL, 0) : 0;
}

static struct sthread *find_any(const struct ptd_softrec *r, pid_t tid)
{
	/* A gone thread's history may still be looked at. */
	for (int i = r->nth - 1; i >= 0; i--)
		if (r->th[i]->tid == tid)
			return r->th[i];
	return NULL;
}

int ptd_softrec_dropped(struct ptd_softrec *r, pid_t tid, uint64_t n)
{
	struct sthread *th = r ? find_any(r, tid) : NULL;

	if (!th)
		return -ptde_notfound;
	th->dropped += n;
	/* The first kept instruction is number 2, the recorder's
	 * dropped + 2: snapshots wholly before it go. */
	ptd__soft_regs_drop_before(&th->regs, th->dropped + 2);
	return 0;
}

size_t ptd_softrec_bytes(const struct ptd_softrec *r, pid_t tid)
{
	const struct sthread *th = r ? find_any(r, tid) : NULL;

	if (!th)
		return 0;
	return sizeof(*th) + (size_t)th->cappend * sizeof(*th->pend) +
	       ptd__soft_regs_bytes(&th->regs);
}

uint64_t ptd_softrec_next_ip(const struct ptd_softrec *r, pid_t tid)
{
	const struct sthread *th = r ? find(r, tid) : NULL;

	if (!th || th->npend || th->sig_stop || th->exiting ||
	    (th->mode != M_RUN && th->mode != M_STEP_INSN))
		return 0;
	return th->start;
}

const uint8_t *ptd_softrec_pt(struct ptd_softrec *r, pid_t tid, size_t *size)
{
	struct sthread *th = NULL;
	if (!r || !size)
		return NULL;
	for (int i = r->nth - 1; i >= 0 && !th; i--)
		if (r->th[i]->tid == tid)
			th = r->th[i];
	if (!th || !th->ps)
		return NULL;
	ptd_ptsynth_flush(th->ps);
	return ptd_ptsynth_data(th->ps, size);
}

/* ---- public: resume, stops ----------------------------------------------------- */

int ptd_softrec_resume(struct ptd_softrec *r, pid_t tid, int step, int signo)
{
	struct sthread *th = r ? find(r, tid) : NULL;
	uint64_t pc;
	int rc;

	if (!th)
		return -ptde_notfound;
	if (th->exiting)
		return ptd_target_resume(r->t, tid, 0, 0);
	if (signo < 0)
		signo = ptd_target_pending_signal(r->t, tid);
	if (th->pc_known) {
		/* The common case after a trap: no need to look again. */
		th->pc_known = 0;
		if (!step && signo == 0 && th->mode == M_RUN)
			return go(r, th, 0);
	}
	if (th->mode == M_WALK) {
		if (!step && signo == 0)
			return ptd_target_resume(r->t, tid, 1, 0);
		th->mode = M_RUN; /* the caller's step or a signal: from here as usual */
	}
	if (th->mode == M_STEP_INSN)
		return issue_step(r, th, signo < 0 ? 0 : signo);
	if (th->mode == M_STEP_SIG)
		return ptd_target_resume(r->t, tid, 1, signo < 0 ? 0 : signo);
	rc = ptd_target_get_pc(r->t, tid, &pc);
	if (rc < 0)
		return rc;
	if (pc != th->start && th->npend == 0 && !th->sig_stop) {
		/* Moved since the last stop we saw (the caller set the pc). */
		rc = advance(r, th, pc);
		if (rc < 0)
			return rc;
	}
	if (signo > 0 && ptd_target_signal_caught(r->t, tid, signo)) {
		/* The step traps at the handler's first instruction, before it
		 * runs; nothing at pc executes. */
		rc = commit(th, PTD_BLK_INTERRUPTED);
		if (rc < 0 ||
		    (rc = ptd_history_append_event(th->h, PTD_EV_SIGNAL, th->start, (uint64_t)signo)) < 0)
			return rc;
		th->mode = M_STEP_SIG;
		th->sig = signo;
		th->sig_from = th->start;
		return ptd_target_resume(r->t, tid, 1, signo);
	}
	rc = commit(th, 0);
	if (rc < 0)
		return rc;
	if (th->start == pc && !armed_insn(r, pc)) {
		/* Arm first: the run from pc may end at pc itself, and the
		 * target steps over an int3 the thread rests on unseen. */
		rc = arm_run(r, pc);
		if (rc < 0)
			return rc;
	}
	const struct ptd_soft_insn *in = current_insn(r, pc, &rc);
	if (rc < 0)
		return rc;
	if (!in && th->start == pc && !armed_insn(r, pc)) {
		/* Dropped as stale just now: arm for the code as it is. */
		rc = arm_run(r, pc);
		if (rc < 0)
			return rc;
		in = armed_insn(r, pc);
	}
	if (in && th->start == pc) {
		struct user_regs_struct regs;
		rc = ptd_target_get_regs(r->t, tid, &regs);
		if (rc < 0)
			return rc;
		if (step || signo > 0) {
			/* Let the CPU run it (with the signal, which is ignored
			 * or fatal); the outcome is read off the new pc. */
			snap_push(th, th->num + 1, &regs);
			th->mode = step ? M_USER_STEP : M_STEP_INSN;
			th->step_ip = pc;
			th->step_insn = *in;
			th->step_regs = regs;
			th->step_event = 0;
			return issue_step(r, th, signo);
		}
		rc = execute_branch(r, th, in, &regs);
		if (rc < 0)
			return rc;
		return rc == 1 ? issue_step(r, th, 0) : go(r, th, 0);
	}
	if (step) {
		th->mode = M_USER_STEP;
		th->step_ip = 0;
		return ptd_target_resume(r->t, tid, 1, signo);
	}
	th->mode = M_RUN;
	rc = arm_run(r, th->start);
	if (rc < 0)
		return rc;
	return go(r, th, signo);
}

static void thread_end(struct ptd_softrec *r, struct sthread *th)
{
	/* A syscall that never returned (exit) is not counted as executed,
	 * as under single-stepping: the thread's last position is it. */
	uint64_t at = th->mode == M_STEP_INSN ? th->step_ip : th->start;
	keep_err(r, unlift(r, th));
	if (th->exiting) {
		th->gone = 1;
		return;
	}
	commit(th, 0);
	ptd_history_set_tail(th->h, at);
	if (th->ps && ptd_ptsynth_enabled(th->ps)) {
		/* In PT the exit syscall executed (FUP at it, then PGD): the
		 * decoded trace has it as its last instruction. */
		if (th->mode == M_STEP_INSN && th->step_insn.op == PTD_SOP_SYSCALL)
			ptd_ptsynth_syscall(th->ps, 0);
		else
			ptd_ptsynth_end(th->ps, at);
	}
	th->gone = 1;
}

static int on_exec(struct ptd_softrec *r, const struct ptd_stop *st)
{
	struct sthread *ex = NULL;

	for (int i = 0; i < r->nth; i++) {
		struct sthread *th = r->th[i];
		if (th->gone)
			continue;
		if (th->mode == M_STEP_INSN && th->step_insn.op == PTD_SOP_SYSCALL &&
		    (th->step_regs.rax == SYS_execve || th->step_regs.rax == SYS_execveat))
			ex = th;
	}
	if (!ex)
		ex = find(r, st->tid);
	/* The old image's breakpoints went with it. */
	ptd_soft_scan_clear(r->scan);
	free_insns(r);
	ptd__soft_map_fini(&r->unarmed);
	r->vol_stale = 1;
	for (int i = 0; i < r->nth; i++) {
		struct sthread *th = r->th[i];
		if (!th->gone && th != ex)
			thread_end(r, th);
	}
	if (!ex)
		return 0;
	int rc = commit(ex, 0);
	if (rc == 0 && ex->mode == M_STEP_INSN) {
		struct ptd_block b = { ex->step_ip, ex->step_ip, 1, PTD_IC_FAR_CALL, PTD_BLK_SYSCALL };
		rc = ptd_history_append_block(ex->h, &b);
		ex->num++;
	}
	if (rc == 0)
		rc = ptd_history_append_event(ex->h, PTD_EV_EXEC, st->pc, 0);
	if (rc < 0)
		return rc;
	if (ex->ps) {
		ps_on(ex, ex->step_ip ? ex->step_ip : ex->start);
		ptd_ptsynth_syscall(ex->ps, st->pc);
	}
	ex->tid = st->tid;
	ex->mode = M_RUN;
	ex->step_ip = 0;
	ex->lifted = 0;
	ex->start = st->pc;
	ptd_history_set_tail(ex->h, st->pc);
	return arm_run(r, st->pc);
}

int ptd_softrec_stop(struct ptd_softrec *r, const struct ptd_stop *st)
{
	struct sthread *th;
	int rc = 0;

	if (!r || !st)
		return -ptde_invalid;
	if (st->kind == PTD_STOP_EXEC)
		return on_exec(r, st);
	th = find(r, st->tid);
	if (!th)
		return 0;
	switch (st->kind) {
	case PTD_STOP_BREAKPOINT: {
		uint64_t z = st->pc;
		const struct ptd_soft_insn *in;
		if (th->mode != M_RUN) {
			/* A trap while stepping (the step landed on an int3 the
			 * target reports as a hit): the step completed. */
			if (th->mode == M_STEP_INSN) {
				rc = stepped(r, th, z);
				return rc < 0 ? rc : 1;
			}
			th->mode = M_RUN;
		}
		r->traps++;
		rc = advance(r, th, z);
		if (rc < 0)
			return rc;
		rc = commit(th, 0);
		if (rc < 0)
			return rc;
		/* Looked up now: code found changed on the way drops it. */
		in = current_insn(r, z, &rc);
		if (rc < 0)
			return rc;
		if (!in) {
			if (ptd_target_bp_at(r->t, z))
				return 0; /* the caller's breakpoint */
			/* Ours, taken out since (the code there changed): the
			 * resume scans the code at z as it is now. */
			return 1;
		}
		if (r->cfg.want_stop && r->cfg.want_stop(r->cfg.ctx, th->tid, z))
			return 0;
		struct user_regs_struct regs;
		rc = ptd_target_get_regs(r->t, th->tid, &regs);
		if (rc < 0)
			return rc;
		rc = execute_branch(r, th, in, &regs);
		th->pc_known = rc == 0;
		return rc < 0 ? rc : 1;
	}
	case PTD_STOP_STEP:
		switch (th->mode) {
		case M_STEP_INSN:
			rc = stepped(r, th, st->pc);
			return rc < 0 ? rc : 1;
		case M_STEP_SIG:
			r->steps++;
			if ((rc = unlift(r, th)) < 0)
				return rc;
			if (th->ps) {
				ps_on(th, th->sig_from);
				ptd_ptsynth_async(th->ps, th->sig_from, st->pc);
			}
			th->mode = M_RUN;
			th->start = st->pc;
			rc = arm_run(r, st->pc);
			return rc < 0 ? rc : 1;
		case M_WALK: {
			const struct ptd_soft_run *run;
			r->steps++;
			if ((rc = ptd_soft_scan_run(r->scan, th->start, &run)) < 0)
				return rc;
			if (run->bad || st->pc != run->end)
				return 1; /* on its static path: the resume steps on */
			/* At the end, not yet run: as if its int3 had trapped. */
			struct ptd_stop at = *st;
			at.kind = PTD_STOP_BREAKPOINT;
			th->mode = M_RUN;
			return ptd_softrec_stop(r, &at);
		}
		case M_USER_STEP:
			r->steps++;
			if ((rc = unlift(r, th)) < 0)
				return rc;
			if (th->step_ip) {
				rc = stepped(r, th, st->pc);
				r->steps--; /* counted as the caller's */
			}
			th->mode = M_RUN;
			return rc < 0 ? rc : 0;
		default:
			return 0;
		}
	case PTD_STOP_EXITING:
	case PTD_STOP_SIGNAL:
		if (th->mode != M_RUN && st->signo == SIGTRAP && st->si.si_code == SIGTRAP) {
			/* The kernel reports the step that entered a signal
			 * handler with ptrace_notify() (si_code SIGTRAP, not
			 * TRAP_TRACE): it is our step, not a signal. */
			struct ptd_stop step = *st;
			step.kind = PTD_STOP_STEP;
			step.signo = 0;
			ptd_target_set_pending_signal(r->t, th->tid, 0);
			return ptd_softrec_stop(r, &step);
		}
		if (st->kind == PTD_STOP_EXITING) {
			/* PTRACE_O_TRACEEXIT: the thread is exiting (its exit
			 * syscall does not count as executed, as when stepping). */
			if (th->mode == M_RUN || th->mode == M_WALK) {
				/* Running, yet in a syscall: it passed that
				 * syscall's int3 while another thread had it
				 * lifted (threads of a barrier exit together).
				 * Stopped at it, not after it, as a thread that
				 * steps its exit is. */
				uint64_t sys = ptd__exit_syscall(r->t, st);
				if (st->pc == th->start)
					sys = 0; /* it completed it (a signal came after) */
				rc = advance(r, th, sys ? sys : st->pc);
				if (rc >= 0)
					rc = commit(th, 0);
			}
			th->exiting = 1;
			ptd_history_set_tail(th->h, th->mode == M_STEP_INSN ? th->step_ip : th->start);
			return rc < 0 ? rc : 0;
		}
		if ((th->mode == M_STEP_INSN || th->mode == M_USER_STEP) && th->step_ip) {
			if (st->pc != th->step_ip) {
				/* It ran (a syscall that raised a signal, like
				 * raise()): the signal comes after it. */
				rc = stepped(r, th, st->pc);
				if (rc < 0)
					return rc;
			}
			/* Otherwise it did not complete (a signal came first,
			 * or it faulted): the thread is still before it. */
			if ((rc = unlift(r, th)) < 0)
				return rc;
			th->mode = M_RUN;
			th->step_ip = 0;
			th->sig_stop = 1;
			return 0;
		}
		if (th->mode == M_STEP_SIG || th->mode == M_WALK)
			th->mode = M_RUN;
		/* Keep the executed blocks pending: if the signal is delivered
		 * to a handler the last one ends interrupted. */
		rc = advance(r, th, st->pc);
		th->sig_stop = 1;
		return rc < 0 ? rc : 0;
	case PTD_STOP_INTERRUPT:
	case PTD_STOP_HWBREAK: /* a debug register stopped it mid-block */
		if (th->mode != M_RUN && th->mode != M_WALK)
			return 0; /* our step did not start; resume repeats it */
		rc = advance(r, th, st->pc);
		if (rc >= 0)
			rc = commit(th, 0);
		return rc < 0 ? rc : 0;
	case PTD_STOP_CLONE: {
		uint64_t cpc = 0;
		if (th->mode == M_STEP_INSN)
			th->step_event = 1;
		if (st->new_tid > 0 &&
		    ptd_target_thread_state(r->t, st->new_tid) == PTD_THREAD_STOPPED &&
		    ptd_target_get_pc(r->t, st->new_tid, &cpc) == 0 && cpc) {
			rc = ptd_softrec_add_thread(r, st->new_tid, NULL, cpc);
			if (rc < 0)
				return rc;
		}
		return 0;
	}
	case PTD_STOP_FORK:
		if (th->mode == M_STEP_INSN)
			th->step_event = 1;
		return 0;
	case PTD_STOP_THREAD_EXIT:
		thread_end(r, th);
		return 0;
	case PTD_STOP_EXITED:
	case PTD_STOP_KILLED:
		for (int i = 0; i < r->nth; i++)
			if (!r->th[i]->gone)
				thread_end(r, r->th[i]);
		return 0;
	default:
		return 0;
	}
}

int ptd_softrec_flush(struct ptd_softrec *r, pid_t tid)
{
	if (!r)
		return -ptde_invalid;
	for (int i = 0; i < r->nth; i++) {
		struct sthread *th = r->th[i];
		uint64_t pc;
		if (th->gone || (tid && th->tid != tid))
			continue;
		if (ptd_target_thread_state(r->t, th->tid) != PTD_THREAD_STOPPED)
			continue;
		th->pc_known = 0; /* the caller may move the pc before resuming */
		if (th->mode == M_STEP_INSN || th->mode == M_STEP_SIG) {
			ptd_history_set_tail(th->h, th->mode == M_STEP_INSN ? th->step_ip : th->start);
			continue;
		}
		if (ptd_target_get_pc(r->t, th->tid, &pc) < 0)
			continue;
		if (!th->sig_stop && th->npend == 0)
			advance(r, th, pc);
		/* Pending blocks go in now so the past is complete at this stop;
		 * a handler entered later still gets its signal event. */
		commit(th, 0);
		ptd_history_set_tail(th->h, th->start);
	}
	return 0;
}

int ptd_softrec_wait(struct ptd_softrec *r, struct ptd_stop *st)
{
	int rc;

	if (!r || !st)
		return -ptde_invalid;
	for (int i = 0; i < r->nth; i++) {
		struct sthread *th = r->th[i];
		if (th->gone || ptd_target_thread_state(r->t, th->tid) != PTD_THREAD_STOPPED)
			continue;
		rc = ptd_softrec_resume(r, th->tid, 0, -1);
		if (rc < 0)
			return rc;
	}
	for (;;) {
		rc = ptd_target_wait(r->t, st, 1);
		if (rc < 0)
			return rc;
		rc = ptd_softrec_stop(r, st);
		if (rc < 0)
			return rc;
		if (rc == 0)
			return 0;
		rc = ptd_softrec_resume(r, st->tid, 0, 0);
		if (rc < 0)
			return rc;
	}
}
