/*
 * The exact single-step recorder (see step.h).
 *
 * For each recorded thread we keep the pc of the instruction about to run
 * and the block being built.  When a step completes, the instruction at
 * the old pc has executed (unless a signal handler was entered instead,
 * or a rep string instruction is still iterating), and a control
 * transfer closes the block.  Instruction classes come from a small
 * decode cache keyed by address, dropped when the address space changes.
 */
#include "record/step.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/user.h>

#include "disasm/disasm.h"
#include "target/target.h"
#include "util/error.h"

#define CACHE_BITS 16
#define CACHE_SIZE (1u << CACHE_BITS)

struct icache_ent {
	uint64_t ip; /* 0: empty */
	uint8_t len;
	uint8_t iclass;
	uint16_t flags;
};

struct srthread {
	pid_t tid;
	struct ptd_history *h;
	uint64_t pc;      /* next instruction to execute */
	struct ptd_block cur;
	int open;
	int signo;        /* signal delivered by the pending step */
	int in_rep;       /* a rep string instruction at pc has started */
	int last_class;   /* class of the instruction the last step ran, -1: none */
	uint64_t fall;    /* the address after the open block's last instruction */
	int after_exec;   /* the first step after exec only finishes execve */
	/* The last step ended a syscall at restart_pc that the kernel
	 * restarts (-ERESTART... in rax): resumed without a signal handler
	 * to run, the thread is moved back onto it and runs it again. */
	int restart;
	uint64_t restart_pc;
	int gone;
};

struct ptd_steprec {
	struct ptd_target *t;
	struct srthread *th;
	int nth, cap;
	struct icache_ent *cache;
	uint64_t steps;
};

struct ptd_steprec *ptd_steprec_alloc(struct ptd_target *t)
{
	struct ptd_steprec *r = calloc(1, sizeof(*r));

	if (!r)
		return NULL;
	r->t = t;
	r->cache = calloc(CACHE_SIZE, sizeof(*r->cache));
	if (!r->cache) {
		free(r);
		return NULL;
	}
	return r;
}

void ptd_steprec_free(struct ptd_steprec *r)
{
	if (!r)
		return;
	free(r->th);
	free(r->cache);
	free(r);
}

static struct srthread *find(const struct ptd_steprec *r, pid_t tid)
{
	for (int i = 0; i < r->nth; i++)
		if (r->th[i].tid == tid && !r->th[i].gone)
			return &r->th[i];
	return NULL;
}

int ptd_steprec_add_thread(struct ptd_steprec *r, pid_t tid, struct ptd_history *h, uint64_t pc)
{
	struct srthread *th;

	if (!r || !h)
		return -ptde_invalid;
	th = find(r, tid);
	if (!th) {
		if (r->nth == r->cap) {
			int cap = r->cap ? 2 * r->cap : 8;
			struct srthread *n = realloc(r->th, cap * sizeof(*n));
			if (!n)
				return -ptde_nomem;
			r->th = n;
			r->cap = cap;
		}
		th = &r->th[r->nth++];
	}
	memset(th, 0, sizeof(*th));
	th->tid = tid;
	th->h = h;
	th->pc = pc;
	ptd_history_set_tail(h, pc);
	return 0;
}

int ptd_steprec_remove_thread(struct ptd_steprec *r, pid_t tid)
{
	struct srthread *th = r ? find(r, tid) : NULL;

	if (!th)
		return -ptde_notfound;
	ptd_steprec_flush(r, tid);
	th->gone = 1;
	return 0;
}

int ptd_steprec_has_thread(const struct ptd_steprec *r, pid_t tid)
{
	return r && find(r, tid) != NULL;
}

int ptd_steprec_last_class(const struct ptd_steprec *r, pid_t tid)
{
	const struct srthread *th = r ? find(r, tid) : NULL;

	return th ? th->last_class : -1;
}

uint64_t ptd_steprec_steps(const struct ptd_steprec *r)
{
	return r ? r->steps : 0;
}

static const struct icache_ent *classify(struct ptd_steprec *r, uint64_t ip)
{
	struct icache_ent *e = &r->cache[(ip ^ (ip >> CACHE_BITS)) & (CACHE_SIZE - 1)];
	struct ptd_insn_info info;
	uint8_t buf[16];
	long n;

	if (e->ip == ip)
		return e;
	n = ptd_target_read(r->t, ip, buf, sizeof(buf));
	if (n <= 0 || ptd_disasm_decode(buf, (size_t)n, ip, &info) < 0) {
		/* Undecodable: treat as a one-byte ordinary instruction so the
		 * recording goes on; the history will show it as bad code. */
		static struct icache_ent bad;
		bad.ip = ip;
		bad.len = 1;
		bad.iclass = PTD_IC_OTHER;
		bad.flags = 0;
		return &bad;
	}
	e->ip = ip;
	e->len = info.len;
	e->iclass = info.iclass;
	e->flags = info.flags;
	return e;
}

static void drop_cache(struct ptd_steprec *r)
{
	memset(r->cache, 0, CACHE_SIZE * sizeof(*r->cache));
}

static int close_block(struct srthread *th)
{
	int rc = 0;

	if (th->open) {
		rc = ptd_history_append_block(th->h, &th->cur);
		th->open = 0;
	}
	return rc;
}

int ptd_steprec_before_step(struct ptd_steprec *r, pid_t tid, int signo)
{
	struct srthread *th = r ? find(r, tid) : NULL;
	const struct icache_ent *e;

	if (!th)
		return -ptde_notfound;
	th->signo = 0;
	if (signo > 0 && ptd_target_signal_caught(r->t, tid, signo))
		th->signo = signo;
	e = classify(r, th->pc);
	if (e->flags & PTD_INSN_SYSCALL) {
		/* The syscall may change the address space: forget decoded
		 * code (cheap: the cache refills from the live memory). */
		long nr;
		struct user_regs_struct regs;
		if (ptd_target_get_regs(r->t, tid, &regs) == 0) {
			nr = (long)regs.rax;
			if (nr == SYS_mmap || nr == SYS_munmap || nr == SYS_mprotect ||
			    nr == SYS_mremap || nr == SYS_execve || nr == SYS_execveat) {
				drop_cache(r);
				return 1;
			}
		}
	}
	return 0;
}

uint64_t ptd_steprec_next_ip(const struct ptd_steprec *r, pid_t tid)
{
	const struct srthread *th = r ? find(r, tid) : NULL;

	if (!th)
		return 0;
	return th->open ? th->cur.ip : th->pc;
}

/* Is @tid at a syscall's exit with -ERESTARTSYS, -ERESTARTNOINTR,
 * -ERESTARTNOHAND or -ERESTART_RESTARTBLOCK in rax?  The kernel never lets these reach the program: it restarts the
 * syscall when it resumes the thread. */
static int syscall_restarts(struct ptd_steprec *r, pid_t tid)
{
	struct user_regs_struct regs;
	int v;

	if (ptd_target_get_regs(r->t, tid, &regs) < 0)
		return 0;
	if (regs.rax >> 32 != 0xffffffffu) /* the kernel's (long) -ERESTART..., also for int 0x80 */
		return 0;
	v = (int)(uint32_t)regs.rax;
	return v == -512 || v == -513 || v == -514 || v == -516;
}

int ptd_steprec_stepped(struct ptd_steprec *r, pid_t tid, uint64_t new_pc)
{
	struct srthread *th = r ? find(r, tid) : NULL;
	const struct icache_ent *e;
	uint64_t pc;
	int rc = 0;

	if (!th)
		return -ptde_notfound;
	r->steps++;
	pc = th->pc;
	if (th->restart && !th->signo)
		pc = th->restart_pc; /* the syscall ran again (see restart) */
	th->restart = 0;
	if (th->signo) {
		/* The kernel set up a handler frame and trapped before running
		 * anything: nothing executed, the block is interrupted. */
		if (th->open)
			th->cur.flags |= PTD_BLK_INTERRUPTED;
		rc = close_block(th);
		if (rc == 0)
			rc = ptd_history_append_event(th->h, PTD_EV_SIGNAL, pc, (uint64_t)th->signo);
		th->signo = 0;
		th->in_rep = 0;
		th->last_class = -1;
		th->pc = new_pc;
		ptd_history_set_tail(th->h, new_pc);
		return rc;
	}
	if (th->after_exec) {
		/* The first single-step after an exec stop completes the
		 * execve syscall and traps at the entry without running it. */
		th->after_exec = 0;
		if (new_pc == pc) {
			th->last_class = -1;
			return 0;
		}
	}
	e = classify(r, pc);
	th->last_class = e->iclass;
	if ((e->flags & PTD_INSN_REP_STRING) && new_pc == pc) {
		/* One more iteration; the instruction counts once, when done. */
		th->in_rep = 1;
		return 0;
	}
	th->in_rep = 0;
	if (th->open && th->fall != pc && th->cur.iclass == PTD_IC_OTHER) {
		/* A discontinuity without a branch: something async moved us. */
		th->cur.flags |= PTD_BLK_INTERRUPTED;
		rc = close_block(th);
	}
	if (!th->open) {
		th->cur.ip = pc;
		th->cur.ninsn = 0;
		th->cur.flags = 0;
		th->cur.iclass = PTD_IC_OTHER;
		th->open = 1;
	}
	th->cur.end_ip = pc;
	th->cur.ninsn++;
	th->cur.iclass = e->iclass;
	th->fall = pc + e->len;
	if (e->iclass != PTD_IC_OTHER) {
		if (e->flags & PTD_INSN_SYSCALL) {
			th->cur.flags |= PTD_BLK_SYSCALL;
			if (new_pc == pc + e->len && syscall_restarts(r, tid)) {
				/* Interrupted (ptrace's interrupt, a signal):
				 * it ran once, and runs again on resuming. */
				th->restart = 1;
				th->restart_pc = pc;
			}
		}
		rc = close_block(th);
	} else if (new_pc != pc + e->len) {
		/* An ordinary instruction that did not fall through (a fault
		 * handled in the kernel, or a sigreturn-like jump): close. */
		th->cur.flags |= PTD_BLK_INTERRUPTED;
		rc = close_block(th);
	} else if (th->cur.ninsn >= 0xffff) {
		rc = close_block(th);
	}
	th->pc = new_pc;
	ptd_history_set_tail(th->h, new_pc);
	return rc;
}

int ptd_steprec_flush(struct ptd_steprec *r, pid_t tid)
{
	int rc = 0;

	if (!r)
		return -ptde_invalid;
	for (int i = 0; i < r->nth; i++) {
		struct srthread *th = &r->th[i];
		if (th->gone || (tid && th->tid != tid))
			continue;
		int e = close_block(th);
		if (e < 0)
			rc = e;
		ptd_history_set_tail(th->h, th->pc);
	}
	return rc;
}

int ptd_steprec_exec(struct ptd_steprec *r, pid_t tid, uint64_t new_pc)
{
	struct srthread *th;

	if (!r)
		return -ptde_invalid;
	drop_cache(r);
	/* After exec only the thread group leader remains. */
	for (int i = 0; i < r->nth; i++) {
		th = &r->th[i];
		if (th->gone)
			continue;
		if (th->tid != tid) {
			close_block(th);
			th->gone = 1;
			continue;
		}
		/* The execve syscall instruction ran and led here. */
		if (!th->open) {
			th->cur.ip = th->pc;
			th->cur.ninsn = 0;
			th->cur.flags = 0;
			th->open = 1;
		}
		th->cur.end_ip = th->pc;
		th->cur.ninsn++;
		th->cur.iclass = PTD_IC_FAR_CALL;
		th->cur.flags |= PTD_BLK_SYSCALL;
		close_block(th);
		ptd_history_append_event(th->h, PTD_EV_EXEC, new_pc, 0);
		th->after_exec = 1;
		th->pc = new_pc;
		th->signo = 0;
		ptd_history_set_tail(th->h, new_pc);
	}
	return 0;
}
