/*
 * Process control with ptrace (see target.h for the model).
 *
 * This file owns the tracee's threads and their ptrace states, the
 * breakpoint table with the original bytes under each int3, and the
 * translation of raw wait statuses into ptd_stop events.  Every task is
 * seized (PTRACE_SEIZE), so stopping a running thread is a
 * PTRACE_INTERRUPT whose trap is told apart from real signals; an
 * interrupt that loses the race against another event stays pending in
 * the kernel and is swallowed when it shows up after the next resume.
 */
#include "target/target.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/personality.h>
#include <sys/ptrace.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>
#include <stddef.h>
#include <dirent.h>
#include <sys/syscall.h>

#include "util/error.h"

#define PTD_OPTS                                                                            \
	(PTRACE_O_TRACECLONE | PTRACE_O_TRACEFORK | PTRACE_O_TRACEVFORK |                      \
	 PTRACE_O_TRACEVFORKDONE | PTRACE_O_TRACEEXEC)

struct tthread {
	pid_t tid;
	enum ptd_thread_state state;
	int pending_sig;
	int last_step;       /* mode of the last resume, for internal re-resumes */
	int interrupt_sent;  /* PTRACE_INTERRUPT sent, its trap not seen yet */
	int interrupt_stale; /* the thread stopped for another reason first */
	int bp_rewound;      /* hit a breakpoint nobody was told of: hit it again */
	int queued;          /* stopped, with an event in the queue not yet handed out */
	uint64_t stop_pc;    /* pc at the last stop handed to the caller */
	int initial_stop;    /* a new clone whose first stop has not been seen */
	int stepping_over;   /* breakpoint address being stepped over + 1, or 0 */
	uint64_t over_addr;
	int aff_saved;       /* aff holds the thread's CPU affinity before we pinned it */
	cpu_set_t aff;
	unsigned hw_gen;     /* the debug-register state this thread has (hw_gen of the target) */
};

struct tbp {
	uint64_t addr;
	int refs;
	uint8_t orig;
	uint8_t inserted;
};

struct early_stop {
	pid_t tid;
	int status;
};

struct ptd_target {
	pid_t pid;
	int stopping_all; /* inside ptd_target_stop_all */
	int launched;
	int alive;
	int memfd;
	struct tthread *th;
	int nth, cap_th;
	struct tbp *bp;
	int nbp, cap_bp;
	int bp_enabled; /* int3s are in memory (1) or suspended (0) */
	/* stops of tids not (yet) known, e.g. a clone child reporting before
	 * its parent's clone event; grown as needed: a lost one would leave
	 * us waiting for a stop already taken */
	struct early_stop *early;
	int nearly, cap_early;
	/* events produced internally and handed out by the next wait */
	struct ptd_stop *queue;
	int nqueue, cap_queue;
	/* an error met while translating a stop, returned by the next wait */
	int pending_err;
	/* th[] is compacted (gone threads dropped) when it reaches this */
	int compact_at;
	int vfork_bps_suspended;
	/* A forked child (its copy of our int3s taken out, its CPU mask
	 * given back) kept stopped until a thread of the program is resumed
	 * next, as gdb keeps it until it detaches it (a catch fork stop
	 * comes before the child runs); its parent thread in held_parent. */
	pid_t held_child, held_parent;
	/* Addresses of breakpoints removed since the image was loaded:
	 * another thread may have executed the int3 just before it went, and
	 * its trap arrives after (gdb's "moribund locations").  Every one is
	 * kept: with a thousand threads, a trap waits while any number of
	 * others are taken out and put back, and a trap of ours taken for
	 * the program's would resume it inside an instruction. */
	struct gone_set {
		uint64_t *slot; /* open addressing, 0 = empty */
		size_t cap, n;
	} gone;
	/* CPU pinning (ptd_target_pin): the CPU every thread runs on, or -1;
	 * the threads' own masks are kept in their tthread. */
	int pin_cpu;
	/* PTRACE_O_TRACEEXIT is on (ptd_target_set_exit_stops) */
	int exit_stops;
	/* next in the list of live targets (emergency teardown) */
	struct ptd_target *live_next;
	int live;
	/* Debug registers every thread should have (ptd_target_hw_set):
	 * a thread whose hw_gen differs gets them before it resumes. */
	uint64_t hw_addr[PTD_HW_SLOTS];
	uint8_t hw_len[PTD_HW_SLOTS], hw_kind[PTD_HW_SLOTS];
	unsigned hw_on; /* bit i: slot i set */
	unsigned hw_gen;
};

/*
 * Live targets, for the teardown when ptdbg itself is killed (see
 * ptd_target_quit_signal).  A list, so there is no limit on how many; only
 * the tracer thread changes it, and the signal handler reads it only while
 * that thread is at a safe point (so never half-linked).
 */
static struct ptd_target *volatile live_head;

static void live_register(struct ptd_target *t)
{
	if (t->live)
		return;
	t->live_next = live_head;
	t->live = 1;
	live_head = t;
}

static void live_unregister(struct ptd_target *t)
{
	if (!t->live)
		return;
	for (struct ptd_target *volatile *p = &live_head; *p; p = &(*p)->live_next)
		if (*p == t) {
			*p = t->live_next;
			break;
		}
	t->live = 0;
}

/* ---- small helpers ---------------------------------------------------- */

/* Offset of debug register @i in struct user (PTRACE_PEEKUSER/POKEUSER). */
#define DR_OFF(i) ((void *)(offsetof(struct user, u_debugreg) + (i) * sizeof(long)))

static unsigned hw_take_hits(struct ptd_target *t, pid_t tid);

static struct tthread *find_thread(const struct ptd_target *t, pid_t tid)
{
	for (int i = 0; i < t->nth; i++)
		if (t->th[i].tid == tid && t->th[i].state != PTD_THREAD_GONE)
			return &t->th[i];
	return NULL;
}

static struct tthread *add_thread(struct ptd_target *t, pid_t tid, enum ptd_thread_state st)
{
	struct tthread *th = find_thread(t, tid);

	if (th)
		return th;
	if (t->nth == t->cap_th) {
		int cap = t->cap_th ? t->cap_th * 2 : 8;
		struct tthread *n = realloc(t->th, cap * sizeof(*n));
		if (!n)
			return NULL;
		t->th = n;
		t->cap_th = cap;
	}
	th = &t->th[t->nth++];
	memset(th, 0, sizeof(*th));
	th->tid = tid;
	th->state = st;
	return th;
}

static int open_mem(struct ptd_target *t)
{
	char path[64];

	if (t->memfd >= 0)
		close(t->memfd);
	snprintf(path, sizeof(path), "/proc/%d/mem", (int)t->pid);
	t->memfd = open(path, O_RDWR | O_CLOEXEC);
	return t->memfd >= 0 ? 0 : -1;
}

static volatile pid_t tracer_tid;
static pid_t gettid_raw(void);

static struct ptd_target *target_new(pid_t pid)
{
	struct ptd_target *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->pid = pid;
	t->memfd = -1;
	t->alive = 1;
	t->bp_enabled = 1;
	t->pin_cpu = -1;
	tracer_tid = gettid_raw();
	return t;
}

/* Grows the array *@v of @size-byte elements to hold one more than *@n. */
static int grow(void **v, int *cap, int n, size_t size)
{
	void *nv;
	int c;

	if (n < *cap)
		return 0;
	c = *cap ? *cap * 2 : 16;
	nv = realloc(*v, (size_t)c * size);
	if (!nv)
		return -ptde_nomem;
	*v = nv;
	*cap = c;
	return 0;
}

static int queue_push(struct ptd_target *t, const struct ptd_stop *st)
{
	if (grow((void **)&t->queue, &t->cap_queue, t->nqueue, sizeof(*t->queue)) < 0)
		return ptd__err(-ptde_nomem, "cannot keep the stop of thread %d: out of memory",
				(int)st->tid);
	t->queue[t->nqueue++] = *st;
	return 0;
}

static int translate(struct ptd_target *t, struct tthread *th, int status, struct ptd_stop *st);
static void compact_threads(struct ptd_target *t);
static int wait_tid_stop(pid_t tid, int *status);
static pid_t waitpid_safe(pid_t pid, int *status, int flags);

/* ---- raw memory --------------------------------------------------------- */

long ptd_target_read_raw(struct ptd_target *t, uint64_t addr, void *buf, size_t n)
{
	struct iovec local = { buf, n }, remote = { (void *)(uintptr_t)addr, n };
	ssize_t r;

	if (!t || !buf)
		return -ptde_invalid;
	if (!t->alive)
		return ptd__err(-ptde_not_running, "the program is not being run");
	if (n == 0)
		return 0;
	r = process_vm_readv(t->pid, &local, 1, &remote, 1, 0);
	if (r > 0)
		return r;
	/* /proc/PID/mem reads pages the process cannot read itself (e.g. execute-only). */
	if (t->memfd >= 0) {
		do
			r = pread(t->memfd, buf, n, (off_t)addr);
		while (r < 0 && errno == EINTR);
		if (r > 0)
			return r;
	}
	return ptd__err(-ptde_nomap, "cannot access memory at address 0x%llx",
			(unsigned long long)addr);
}

static long write_raw(struct ptd_target *t, uint64_t addr, const void *buf, size_t n)
{
	ssize_t r = -1;

	if (t->memfd >= 0) {
		do
			r = pwrite(t->memfd, buf, n, (off_t)addr);
		while (r < 0 && errno == EINTR);
		if (r == (ssize_t)n)
			return r;
	}
	/* Fall back to word-sized pokes (older kernels, restricted /proc). */
	const uint8_t *p = buf;
	size_t done = 0;
	pid_t tid = t->pid;

	for (int i = 0; i < t->nth; i++)
		if (t->th[i].state == PTD_THREAD_STOPPED) {
			tid = t->th[i].tid;
			break;
		}
	while (done < n) {
		uint64_t a = (addr + done) & ~7ull;
		size_t off = (addr + done) - a;
		long word;
		errno = 0;
		word = ptrace(PTRACE_PEEKDATA, tid, (void *)(uintptr_t)a, 0);
		if (errno)
			break;
		size_t k = 8 - off;
		if (k > n - done)
			k = n - done;
		memcpy((uint8_t *)&word + off, p + done, k);
		if (ptrace(PTRACE_POKEDATA, tid, (void *)(uintptr_t)a, (void *)word) < 0)
			break;
		done += k;
	}
	if (done)
		return (long)done;
	return ptd__err(-ptde_nomap, "cannot write memory at address 0x%llx",
			(unsigned long long)addr);
}

/* ---- breakpoints -------------------------------------------------------- */

static struct tbp *find_bp(const struct ptd_target *t, uint64_t addr)
{
	/* Sorted array, binary search: the soft recorder keeps thousands. */
	int lo = 0, hi = t->nbp - 1;

	while (lo <= hi) {
		int mid = (lo + hi) / 2;
		if (t->bp[mid].addr == addr)
			return &t->bp[mid];
		if (t->bp[mid].addr < addr)
			lo = mid + 1;
		else
			hi = mid - 1;
	}
	return NULL;
}

/*
 * Nonzero when the program wrote over our inserted int3 at @b (its code
 * is written at run time): the byte there is no longer 0xcc, and that
 * byte, not the saved one, is the program's.  A program that writes 0xcc
 * itself over our int3 cannot be told apart.
 */
static int bp_overwritten(struct ptd_target *t, struct tbp *b)
{
	uint8_t cur;

	if (!b->inserted || ptd_target_read_raw(t, b->addr, &cur, 1) != 1 || cur == 0xcc)
		return 0;
	b->orig = cur;
	return 1;
}

/* An int3 is marked inserted before it is written and unmarked only after
 * the original byte is back, so whatever moment the teardown looks at the
 * table, every int3 in memory is listed (it restores a listed byte only
 * where memory still holds 0xcc). */
static int bp_poke(struct ptd_target *t, struct tbp *b, int insert)
{
	uint8_t v = insert ? 0xcc : b->orig;

	if (!insert && bp_overwritten(t, b)) {
		/* Putting the saved byte back would undo the program's write;
		 * its byte is the original now. */
		b->inserted = 0;
		return 0;
	}
	if (insert) {
		/* Out of memory, the byte is the program's, and it may have
		 * written a new one meanwhile (while the breakpoints were out
		 * for single-stepping, or for a motion that does not want
		 * them): the saved one would undo that write when the int3
		 * comes out again. */
		uint8_t cur;
		if (ptd_target_read_raw(t, b->addr, &cur, 1) != 1)
			return -ptde_nomap;
		b->orig = cur;
		b->inserted = 1;
	}
	if (write_raw(t, b->addr, &v, 1) != 1) {
		if (insert)
			b->inserted = 0;
		return -ptde_nomap;
	}
	b->inserted = insert;
	return 0;
}

int ptd_target_bp_insert(struct ptd_target *t, uint64_t addr)
{
	struct tbp *b;
	uint8_t orig;
	int i;

	if (!t)
		return -ptde_invalid;
	if (!t->alive)
		return ptd__err(-ptde_not_running, "the program is not being run");
	b = find_bp(t, addr);
	if (b) {
		b->refs++;
		return 0;
	}
	if (ptd_target_read_raw(t, addr, &orig, 1) != 1)
		return ptd__err(-ptde_nomap, "cannot insert breakpoint at 0x%llx: cannot access memory",
				(unsigned long long)addr);
	if (t->nbp == t->cap_bp) {
		int cap = t->cap_bp ? t->cap_bp * 2 : 64;
		struct tbp *n = realloc(t->bp, cap * sizeof(*n));
		if (!n)
			return -ptde_nomem;
		t->bp = n;
		t->cap_bp = cap;
	}
	for (i = t->nbp; i > 0 && t->bp[i - 1].addr > addr; i--)
		t->bp[i] = t->bp[i - 1];
	b = &t->bp[i];
	t->nbp++;
	b->addr = addr;
	b->refs = 1;
	b->orig = orig;
	b->inserted = 0;
	if (t->bp_enabled && !t->vfork_bps_suspended) {
		if (bp_poke(t, b, 1) < 0) {
			memmove(b, b + 1, (t->nbp - i - 1) * sizeof(*b));
			t->nbp--;
			return ptd__err(-ptde_nomap, "cannot insert breakpoint at 0x%llx",
					(unsigned long long)addr);
		}
	}
	return 0;
}

static size_t gone_hash(uint64_t a, size_t cap)
{
	return (size_t)((a * 0x9e3779b97f4a7c15ull) >> 17) & (cap - 1);
}

static int gone_has(const struct ptd_target *t, uint64_t addr)
{
	const struct gone_set *g = &t->gone;
	if (!g->cap || !addr)
		return 0;
	for (size_t i = gone_hash(addr, g->cap);; i = (i + 1) & (g->cap - 1)) {
		if (g->slot[i] == addr)
			return 1;
		if (!g->slot[i])
			return 0;
	}
}

/* Out of memory, the address is not remembered: a trap from it arriving
 * later is then taken for the program's, as before there was a set. */
static void gone_add(struct ptd_target *t, uint64_t addr)
{
	struct gone_set *g = &t->gone;
	if (!addr || gone_has(t, addr))
		return;
	if ((g->n + 1) * 2 > g->cap) {
		size_t cap = g->cap ? g->cap * 2 : 256;
		uint64_t *slot = calloc(cap, sizeof(*slot));
		if (!slot)
			return;
		for (size_t j = 0; j < g->cap; j++) {
			if (!g->slot[j])
				continue;
			size_t i = gone_hash(g->slot[j], cap);
			while (slot[i])
				i = (i + 1) & (cap - 1);
			slot[i] = g->slot[j];
		}
		free(g->slot);
		g->slot = slot;
		g->cap = cap;
	}
	size_t i = gone_hash(addr, g->cap);
	while (g->slot[i])
		i = (i + 1) & (g->cap - 1);
	g->slot[i] = addr;
	g->n++;
}

static void gone_clear(struct ptd_target *t)
{
	free(t->gone.slot);
	memset(&t->gone, 0, sizeof(t->gone));
}

int ptd_target_bp_remove(struct ptd_target *t, uint64_t addr)
{
	struct tbp *b;
	int i;

	if (!t)
		return -ptde_invalid;
	b = find_bp(t, addr);
	if (!b)
		return -ptde_notfound;
	if (--b->refs > 0)
		return 0;
	if (b->inserted && t->alive && bp_poke(t, b, 0) < 0 &&
	    ptd_target_read_raw(t, addr, &(uint8_t){ 0 }, 1) == 1) {
		/* Still mapped with our int3 in it: keep the entry so the
		 * trap stays ours and a later removal can retry. */
		b->refs++;
		return ptd__err(-ptde_nomap, "cannot remove breakpoint at 0x%llx: cannot write memory",
				(unsigned long long)addr);
	}
	gone_add(t, addr);
	i = (int)(b - t->bp);
	memmove(b, b + 1, (t->nbp - i - 1) * sizeof(*b));
	t->nbp--;
	return 0;
}

int ptd_target_bp_at(const struct ptd_target *t, uint64_t addr)
{
	return t && find_bp(t, addr) != NULL;
}

int ptd_target_bp_orig(const struct ptd_target *t, uint64_t addr, uint8_t *out)
{
	const struct tbp *b = t ? find_bp(t, addr) : NULL;

	if (!b)
		return -ptde_notfound;
	*out = b->orig;
	return 0;
}

int ptd_target_bp_refresh(struct ptd_target *t, uint64_t lo, uint64_t hi)
{
	int n = 0;

	if (!t || lo > hi)
		return -ptde_invalid;
	if (!t->alive)
		return ptd__err(-ptde_not_running, "the program is not being run");
	for (int i = 0; i < t->nbp; i++) {
		struct tbp *b = &t->bp[i];
		uint8_t cur;
		if (b->addr < lo || b->addr >= hi || !b->inserted ||
		    ptd_target_read_raw(t, b->addr, &cur, 1) != 1 || cur == 0xcc)
			continue;
		/* The new byte is the original from now on; the int3 goes
		 * back on top of it for whoever still wants the breakpoint. */
		b->orig = cur;
		b->inserted = 0;
		if (bp_poke(t, b, 1) < 0)
			return ptd__err(-ptde_nomap, "cannot insert breakpoint at 0x%llx",
					(unsigned long long)b->addr);
		n++;
	}
	return n;
}

static void bp_set_all(struct ptd_target *t, int insert)
{
	for (int i = 0; i < t->nbp; i++)
		if (t->bp[i].inserted != insert)
			bp_poke(t, &t->bp[i], insert);
}

int ptd_target_bp_remove_all(struct ptd_target *t)
{
	if (!t)
		return -ptde_invalid;
	if (t->alive)
		bp_set_all(t, 0);
	for (int i = 0; i < t->nbp; i++)
		gone_add(t, t->bp[i].addr);
	t->nbp = 0;
	return 0;
}

int ptd_target_bp_enable(struct ptd_target *t, int on)
{
	if (!t)
		return -ptde_invalid;
	t->bp_enabled = !!on;
	if (t->alive && !t->vfork_bps_suspended)
		bp_set_all(t, t->bp_enabled);
	return 0;
}

int ptd_target_bp_clean_child(struct ptd_target *t, pid_t pid)
{
	char path[64];
	int fd, bad = 0;

	if (!t)
		return -ptde_invalid;
	snprintf(path, sizeof(path), "/proc/%d/mem", (int)pid);
	fd = open(path, O_RDWR | O_CLOEXEC);
	for (int i = 0; i < t->nbp; i++) {
		const struct tbp *b = &t->bp[i];
		uint64_t a = b->addr & ~7ull;
		long word;

		if (!b->inserted)
			continue;
		if (fd >= 0 && pwrite(fd, &b->orig, 1, (off_t)b->addr) == 1)
			continue;
		/* The child is our stopped tracee until we detach it: poke
		 * the word instead (a /proc that refuses writes). */
		errno = 0;
		word = ptrace(PTRACE_PEEKDATA, pid, (void *)(uintptr_t)a, 0);
		if (errno == 0) {
			((uint8_t *)&word)[b->addr - a] = b->orig;
			if (ptrace(PTRACE_POKEDATA, pid, (void *)(uintptr_t)a, (void *)word) == 0)
				continue;
		}
		bad++;
	}
	if (fd >= 0)
		close(fd);
	return bad ? ptd__err(-ptde_nomap, "cannot restore %d breakpoint bytes in child %d", bad,
			      (int)pid)
		   : 0;
}

/* ---- masked memory -------------------------------------------------------- */

long ptd_target_read(struct ptd_target *t, uint64_t addr, void *buf, size_t n)
{
	long r = ptd_target_read_raw(t, addr, buf, n);
	int lo, hi;

	if (r <= 0 || t->nbp == 0)
		return r;
	/* First breakpoint >= addr, then walk while inside the range. */
	lo = 0;
	hi = t->nbp;
	while (lo < hi) {
		int mid = (lo + hi) / 2;
		if (t->bp[mid].addr < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (int i = lo; i < t->nbp && t->bp[i].addr < addr + (uint64_t)r; i++) {
		uint8_t *p = (uint8_t *)buf + (t->bp[i].addr - addr);
		/* Not 0xcc: the program wrote its own byte over our int3. */
		if (t->bp[i].inserted && *p == 0xcc)
			*p = t->bp[i].orig;
	}
	return r;
}

long ptd_target_write(struct ptd_target *t, uint64_t addr, const void *buf, size_t n)
{
	uint8_t *copy;
	long r;

	if (!t || !buf)
		return -ptde_invalid;
	if (!t->alive)
		return ptd__err(-ptde_not_running, "the program is not being run");
	copy = malloc(n ? n : 1);
	if (!copy)
		return -ptde_nomem;
	memcpy(copy, buf, n);
	/* Keep our int3s in place and remember the new original bytes. */
	for (int i = 0; i < t->nbp; i++) {
		struct tbp *b = &t->bp[i];
		if (b->addr >= addr && b->addr < addr + n) {
			b->orig = copy[b->addr - addr];
			if (b->inserted)
				copy[b->addr - addr] = 0xcc;
		}
	}
	r = write_raw(t, addr, copy, n);
	free(copy);
	return r;
}

/* ---- registers ------------------------------------------------------------- */

int ptd_target_get_regs(struct ptd_target *t, pid_t tid, struct user_regs_struct *r)
{
	if (!t || !r)
		return -ptde_invalid;
	if (ptrace(PTRACE_GETREGS, tid, 0, r) < 0)
		return ptd__err(ptd__errno_code(errno), "cannot read registers of thread %d: %s",
				(int)tid, strerror(errno));
	return 0;
}

int ptd_target_set_regs(struct ptd_target *t, pid_t tid, const struct user_regs_struct *r)
{
	if (!t || !r)
		return -ptde_invalid;
	if (ptrace(PTRACE_SETREGS, tid, 0, r) < 0)
		return ptd__err(ptd__errno_code(errno), "cannot write registers of thread %d: %s",
				(int)tid, strerror(errno));
	return 0;
}

int ptd_target_get_pc(struct ptd_target *t, pid_t tid, uint64_t *pc)
{
	long v;

	if (!t || !pc)
		return -ptde_invalid;
	errno = 0;
	v = ptrace(PTRACE_PEEKUSER, tid, offsetof(struct user_regs_struct, rip), 0);
	if (errno)
		return ptd__err(ptd__errno_code(errno), "cannot read pc of thread %d: %s", (int)tid,
				strerror(errno));
	*pc = (uint64_t)v;
	return 0;
}

int ptd_target_set_pc(struct ptd_target *t, pid_t tid, uint64_t pc)
{
	if (!t)
		return -ptde_invalid;
	if (ptrace(PTRACE_POKEUSER, tid, offsetof(struct user_regs_struct, rip), (void *)pc) < 0)
		return ptd__err(ptd__errno_code(errno), "cannot write pc of thread %d: %s", (int)tid,
				strerror(errno));
	return 0;
}

/* ---- launch / attach ------------------------------------------------------- */

/* Waits until @pid reports PTRACE_EVENT_EXEC, resuming it through the
 * job-control stops PTRACE_SEIZE of a self-stopped child produces. */
static int launch_wait_exec(struct ptd_target *t, int errpipe, const char *prog)
{
	int st, child_errno = 0;

	for (;;) {
		pid_t w;
		do
			w = waitpid(t->pid, &st, __WALL);
		while (w < 0 && errno == EINTR);
		if (w < 0)
			return ptd__err(-ptde_sys, "waitpid: %s", strerror(errno));
		if (WIFEXITED(st) || WIFSIGNALED(st)) {
			t->alive = 0;
			if (read(errpipe, &child_errno, sizeof(child_errno)) == sizeof(child_errno))
				return ptd__err(ptd__errno_code(child_errno), "cannot run '%s': %s",
						prog, strerror(child_errno));
			return ptd__err(-ptde_exited, "'%s' exited before it started", prog);
		}
		if ((st >> 16) == PTRACE_EVENT_EXEC) {
			/* Still inside execve (its event stop): a single-step
			 * from here stops at the syscall's exit, before the
			 * first instruction ran, so the first stepi after
			 * starti would not move.  Go to that exit now (a
			 * syscall-exit stop runs no instruction of the
			 * program). */
			if (ptrace(PTRACE_SYSCALL, t->pid, 0, 0) < 0)
				return 0;
			do
				w = waitpid(t->pid, &st, __WALL);
			while (w < 0 && errno == EINTR);
			if (w == t->pid && (WIFEXITED(st) || WIFSIGNALED(st))) {
				t->alive = 0;
				return ptd__err(-ptde_exited, "'%s' exited before it started",
						prog);
			}
			return 0;
		}
		/* group-stop, the SIGCONT trap, SIGCONT itself: keep going */
		ptrace(PTRACE_CONT, t->pid, 0, 0);
	}
}

/*
 * In the child before exec: @path as its standard descriptors, in a
 * session of its own whose controlling terminal it is, as gdb does for
 * "set inferior-tty" (so the program gets the terminal's signals and job
 * control).  A path that is no terminal (a file) is used all the same,
 * with the warning gdb writes there too.  Returns -1 with errno when it
 * cannot be opened.
 */
static int child_tty(const char *path)
{
	int fd;

	setsid();
	fd = open(path, O_RDWR | O_NOCTTY);
	if (fd < 0)
		return -1;
	for (int i = 0; i < 3; i++)
		if (fd != i && dup2(fd, i) < 0)
			return -1;
	if (ioctl(fd, TIOCSCTTY, 0) < 0)
		dprintf(2, "warning: ptdbg: Failed to set controlling terminal: %s\n",
			strerror(errno));
	if (fd > 2)
		close(fd);
	return 0;
}

int ptd_target_launch(struct ptd_target **out, const struct ptd_launch *l)
{
	int pfd[2], st, rc;
	pid_t pid;
	struct ptd_target *t;
	struct tthread *th;

	if (!out || !l || !l->argv || !l->argv[0])
		return ptd__err(-ptde_invalid, "no program to run");
	if (pipe2(pfd, O_CLOEXEC) < 0)
		return ptd__err(-ptde_sys, "pipe: %s", strerror(errno));
	pid = fork();
	if (pid < 0) {
		close(pfd[0]);
		close(pfd[1]);
		return ptd__err(-ptde_sys, "fork: %s", strerror(errno));
	}
	if (pid == 0) {
		int e;
		close(pfd[0]);
		if (l->disable_aslr)
			personality(personality(0xffffffff) | ADDR_NO_RANDOMIZE);
		if (l->cwd && chdir(l->cwd) < 0) {
			e = errno;
			if (write(pfd[1], &e, sizeof(e)) < 0)
				_exit(126);
			_exit(127);
		}
		if (l->tty && child_tty(l->tty) < 0) {
			int w[2] = { errno, -2 };

			if (write(pfd[1], w, sizeof(w)) < 0)
				_exit(126);
			_exit(127);
		}
		for (int i = 0; i < l->nredir; i++) {
			const struct ptd_redirect *r = &l->redir[i];
			int fd;

			if (r->path) {
				fd = open(r->path,
					  r->fd == 0 ? O_RDONLY
						     : O_WRONLY | O_CREAT |
							       (r->append ? O_APPEND : O_TRUNC),
					  0666);
			} else {
				fd = r->dup_from;
			}
			if (fd < 0 || (fd != r->fd && dup2(fd, r->fd) < 0)) {
				/* (errno, then which redirection) */
				int w[2] = { errno, i };
				if (write(pfd[1], w, sizeof(w)) < 0)
					_exit(126);
				_exit(127);
			}
			if (r->path && fd != r->fd)
				close(fd);
		}
		raise(SIGSTOP);
		if (l->envp)
			execvpe(l->argv[0], l->argv, l->envp);
		else
			execvp(l->argv[0], l->argv);
		e = errno;
		if (write(pfd[1], &e, sizeof(e)) < 0)
			_exit(126);
		_exit(127);
	}
	close(pfd[1]);
	do
		rc = waitpid(pid, &st, WUNTRACED);
	while (rc < 0 && errno == EINTR);
	t = target_new(pid);
	if (!t) {
		kill(pid, SIGKILL);
		waitpid(pid, &st, 0);
		close(pfd[0]);
		return -ptde_nomem;
	}
	t->launched = 1;
	if (!WIFSTOPPED(st)) {
		int e = 0, which = -1;
		t->alive = 0;
		if (read(pfd[0], &e, sizeof(e)) == sizeof(e) &&
		    read(pfd[0], &which, sizeof(which)) == sizeof(which) && which == -2)
			/* (gdb's child says the first line, gdb the second) */
			rc = ptd__err(ptd__errno_code(e),
				      "%s: %s.\nDuring startup program exited with code 1.", l->tty,
				      strerror(e));
		else if (which >= 0 && which < l->nredir)
			rc = ptd__err(ptd__errno_code(e), "cannot run '%s': %s%s%s", l->argv[0],
				      l->redir[which].path ? l->redir[which].path : "",
				      l->redir[which].path ? ": " : "", strerror(e));
		else if (e)
			rc = ptd__err(ptd__errno_code(e), "cannot run '%s': %s", l->argv[0],
				      strerror(e));
		else
			rc = ptd__err(-ptde_exited, "'%s' exited before it started", l->argv[0]);
		close(pfd[0]);
		ptd_target_free(t);
		return rc;
	}
	if (ptrace(PTRACE_SEIZE, pid, 0, PTRACE_O_EXITKILL | PTD_OPTS) < 0) {
		rc = ptd__err(ptd__errno_code(errno), "cannot trace '%s': %s", l->argv[0],
			      strerror(errno));
		kill(pid, SIGKILL);
		waitpid(pid, &st, 0);
		t->alive = 0;
		close(pfd[0]);
		ptd_target_free(t);
		return rc;
	}
	/* The child stopped itself with SIGSTOP: end that job-control stop
	 * for real (a PTRACE_CONT alone would leave the process marked
	 * stopped, and every later PTRACE_INTERRUPT would then report
	 * SIGSTOP instead of a plain trap). */
	kill(pid, SIGCONT);
	ptrace(PTRACE_CONT, pid, 0, 0);
	rc = launch_wait_exec(t, pfd[0], l->argv[0]);
	close(pfd[0]);
	if (rc < 0) {
		ptd_target_free(t);
		return rc;
	}
	th = add_thread(t, pid, PTD_THREAD_STOPPED);
	if (!th) {
		ptd_target_free(t); /* kills it: nothing of ours is in it yet */
		return ptd__err(-ptde_nomem, "cannot run '%s': out of memory", l->argv[0]);
	}
	ptd_target_get_pc(t, pid, &th->stop_pc);
	open_mem(t);
	live_register(t);
	*out = t;
	return 0;
}

/* Every thread id of @pid, in *@tids (grown as needed; the caller frees
 * it).  Returns the count, -1 when the process is gone, or -ptde_nomem. */
static int list_tids(pid_t pid, pid_t **tids, int *cap)
{
	char path[64];
	struct dirent *de;
	DIR *d;
	int n = 0;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	d = opendir(path);
	if (!d)
		return -1;
	while ((de = readdir(d))) {
		if (de->d_name[0] < '0' || de->d_name[0] > '9')
			continue;
		if (grow((void **)tids, cap, n, sizeof(**tids)) < 0) {
			closedir(d);
			return -ptde_nomem;
		}
		(*tids)[n++] = (pid_t)atoi(de->d_name);
	}
	closedir(d);
	return n;
}

static int wait_tid_stop(pid_t tid, int *status)
{
	pid_t w;

	do
		w = waitpid_safe(tid, status, __WALL);
	while (w < 0 && errno == EINTR);
	return w < 0 ? -1 : 0;
}

/* The kernel's EPERM for PTRACE_SEIZE of @pid, explained: the reasons
 * that /proc tells (ptdbg itself, a zombie, a kernel thread, another
 * tracer) named, the others guessed at. */
static int attach_refused(pid_t pid)
{
	char path[64], line[256], comm[64] = "", state = 0;
	unsigned long flags = 0;
	long tracer = 0;
	FILE *f;

	if (pid == getpid())
		return ptd__err(-ptde_perm, "cannot attach to %d: it is %s itself", (int)pid,
				program_invocation_short_name);
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "re");
	if (f) {
		/* pid (comm) state ppid pgrp session tty tpgid flags: comm may
		 * hold blanks and parentheses, so fields start after the last ')' */
		if (fgets(line, sizeof(line), f)) {
			char *rp = strrchr(line, ')');
			if (rp && sscanf(rp + 1, " %c %*d %*d %*d %*d %*d %lu", &state, &flags) != 2)
				state = 0;
		}
		fclose(f);
	}
	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	f = fopen(path, "re");
	if (f) {
		while (fgets(line, sizeof(line), f))
			if (sscanf(line, "TracerPid: %ld", &tracer) == 1)
				break;
		fclose(f);
	}
	if (state == 'Z' || state == 'X')
		return ptd__err(-ptde_perm,
				"cannot attach to %d: it is a zombie (it has exited and its "
				"parent has not yet waited for it)",
				(int)pid);
	if (flags & 0x00200000) /* PF_KTHREAD */
		return ptd__err(-ptde_perm, "cannot attach to %d: it is a kernel thread",
				(int)pid);
	if (tracer > 0) {
		snprintf(path, sizeof(path), "/proc/%ld/comm", tracer);
		f = fopen(path, "re");
		if (f) {
			if (fgets(comm, sizeof(comm), f))
				comm[strcspn(comm, "\n")] = '\0';
			fclose(f);
		}
		return ptd__err(-ptde_perm,
				"cannot attach to %d: it is already traced by process %ld%s%s%s",
				(int)pid, tracer, comm[0] ? " (" : "", comm, comm[0] ? ")" : "");
	}
	return ptd__err(-ptde_perm,
			"cannot attach to %d: operation not permitted "
			"(is ptrace_scope 1 or more, or is it another user's? try as root)",
			(int)pid);
}

int ptd_target_attach(struct ptd_target **out, pid_t pid)
{
	struct ptd_target *t;
	pid_t *tids = NULL;
	int changed, cap = 0, oom = 0;

	if (!out || pid <= 0)
		return ptd__err(-ptde_invalid, "invalid process id %d", (int)pid);
	if (kill(pid, 0) < 0 && errno == ESRCH)
		return ptd__err(-ptde_nosrch, "cannot attach to %d: no such process", (int)pid);
	t = target_new(pid);
	if (!t)
		return -ptde_nomem;
	/* Seize every thread; repeat until the set is stable, since threads
	 * may be created while we attach (clones of seized threads are
	 * auto-attached, so one more pass suffices). */
	do {
		int n = list_tids(pid, &tids, &cap);
		changed = 0;
		if (n == -ptde_nomem) {
			oom = 1;
			break;
		}
		if (n <= 0 && t->nth == 0) {
			free(tids);
			free(t);
			return ptd__err(-ptde_nosrch, "cannot attach to %d: no such process",
					(int)pid);
		}
		for (int i = 0; i < n; i++) {
			if (find_thread(t, tids[i]))
				continue;
			if (ptrace(PTRACE_SEIZE, tids[i], 0,
				   PTD_OPTS | (t->exit_stops ? PTRACE_O_TRACEEXIT : 0)) < 0) {
				int e = errno;
				if (e == ESRCH)
					continue;
				if (t->nth == 0) {
					free(tids);
					free(t->th);
					free(t);
					if (e == EPERM)
						return attach_refused(pid);
					return ptd__err(ptd__errno_code(e), "cannot attach to %d: %s",
							(int)pid, strerror(e));
				}
				continue;
			}
			ptrace(PTRACE_INTERRUPT, tids[i], 0, 0);
			struct tthread *th = add_thread(t, tids[i], PTD_THREAD_RUNNING);
			if (!th) {
				/* Not tracked, so let it go again at once; then
				 * give up the whole attach below. */
				int st;
				if (wait_tid_stop(tids[i], &st) == 0 && WIFSTOPPED(st))
					ptrace(PTRACE_DETACH, tids[i], 0,
					       (void *)(long)((st >> 16) ? 0 : WSTOPSIG(st)));
				oom = 1;
				break;
			}
			th->interrupt_sent = 1;
			changed = 1;
		}
	} while (changed && !oom);
	free(tids);
	/* Collect every thread's interrupt stop. */
	for (int i = 0; i < t->nth; i++) {
		struct tthread *th = &t->th[i];
		int st;
		while (th->state == PTD_THREAD_RUNNING) {
			if (wait_tid_stop(th->tid, &st) < 0) {
				th->state = PTD_THREAD_GONE;
				break;
			}
			if (WIFEXITED(st) || WIFSIGNALED(st)) {
				th->state = PTD_THREAD_GONE;
				break;
			}
			if ((st >> 16) == PTRACE_EVENT_STOP) {
				int sig = WSTOPSIG(st);
				th->state = PTD_THREAD_STOPPED;
				ptd_target_get_pc(t, th->tid, &th->stop_pc);
				th->interrupt_sent = 0;
				if (sig != SIGTRAP) {
					/* group-stopped process: stays stopped for us */
				}
				break;
			}
			if (WSTOPSIG(st) != SIGTRAP || (st >> 16) == 0) {
				/* a signal arrived first: keep it for the next resume */
				th->pending_sig = WSTOPSIG(st);
				th->state = PTD_THREAD_STOPPED;
				/* the interrupt trap is still due */
				break;
			}
			ptrace(PTRACE_CONT, th->tid, 0, 0);
		}
	}
	if (oom) {
		/* Every thread we seized is stopped: leave them as they were. */
		t->alive = 1;
		ptd_target_detach(t);
		ptd_target_free(t);
		return ptd__err(-ptde_nomem, "cannot attach to %d: out of memory", (int)pid);
	}
	open_mem(t);
	live_register(t);
	*out = t;
	return 0;
}

/* ---- resume / wait --------------------------------------------------------- */

static void finish_step_over(struct ptd_target *t, struct tthread *th);

static int hw_apply(struct ptd_target *t, struct tthread *th);

pid_t ptd_target_held_child(const struct ptd_target *t)
{
	return t ? t->held_child : 0;
}

void ptd_target_release_held_child(struct ptd_target *t)
{
	if (!t || !t->held_child)
		return;
	ptrace(PTRACE_DETACH, t->held_child, 0, 0);
	t->held_child = 0;
	t->held_parent = 0;
}

static int do_resume(struct ptd_target *t, struct tthread *th, int step, int sig)
{
	long r;

	/* the program goes on: so does a child it forked */
	if (t->held_child)
		ptd_target_release_held_child(t);

	/* A thread created, or running, since the debug registers changed
	 * gets them now (one that is dying refuses; its exit comes through
	 * wait). */
	if (th->hw_gen != t->hw_gen)
		hw_apply(t, th);
	r = ptrace(step ? PTRACE_SINGLESTEP : PTRACE_CONT, th->tid, 0, (void *)(long)sig);

	if (r < 0) {
		if (errno == ESRCH) {
			/* it died under us; its exit status will come through wait */
			th->state = PTD_THREAD_RUNNING;
			return 0;
		}
		return ptd__err(ptd__errno_code(errno), "cannot resume thread %d: %s", (int)th->tid,
				strerror(errno));
	}
	th->state = PTD_THREAD_RUNNING;
	th->last_step = step;
	return 0;
}

int ptd_target_resume(struct ptd_target *t, pid_t tid, int step, int signo)
{
	struct tthread *th;
	int sig;

	if (!t)
		return -ptde_invalid;
	if (!t->alive)
		return ptd__err(-ptde_not_running, "the program is not being run");
	th = find_thread(t, tid);
	if (!th)
		return ptd__err(-ptde_nosrch, "no thread %d", (int)tid);
	if (th->state != PTD_THREAD_STOPPED || th->queued)
		return 0;
	sig = signo < 0 ? th->pending_sig : signo;
	th->pending_sig = 0;
	if (th->bp_rewound) {
		th->bp_rewound = 0;
	} else if (t->bp_enabled && !t->vfork_bps_suspended) {
		uint64_t pc;
		struct tbp *b;
		if (ptd_target_get_pc(t, tid, &pc) == 0 && pc == th->stop_pc &&
		    (b = find_bp(t, pc)) && b->inserted) {
			/* A breakpoint where the thread stopped is not hit again
			 * (gdb's rule); one the pc was moved onto (a recorder
			 * emulating a branch, set_pc) is hit when resumed.
			 * Step off the breakpoint synchronously, with the original
			 * byte in place only for this one step: the caller resumes
			 * the other threads after this returns (resume threads
			 * resting on breakpoints first), so none runs past it. */
			struct ptd_stop st;
			int status;
			bp_poke(t, b, 0);
			th->stepping_over = 1 + !step;
			th->over_addr = pc;
			if (do_resume(t, th, 1, sig) < 0 || wait_tid_stop(tid, &status) < 0) {
				finish_step_over(t, th);
				return ptd__err(-ptde_sys, "cannot step thread %d over a breakpoint",
						(int)tid);
			}
			th = find_thread(t, tid);
			if (th && translate(t, th, status, &st)) {
				/* Until wait() hands the event out, the thread counts
				 * as running: nobody may resume it twice. */
				int rc = queue_push(t, &st);
				if (rc < 0)
					return rc;
				th = find_thread(t, tid);
				if (th)
					th->queued = 1;
			}
			return 0;
		}
	}
	return do_resume(t, th, step, sig);
}

int ptd_target_resume_all(struct ptd_target *t, int step)
{
	if (!t)
		return -ptde_invalid;
	/* Threads resting on a breakpoint first: their step-over needs the
	 * others stopped. */
	for (int pass = 0; pass < 2; pass++)
		for (int i = 0; i < t->nth; i++) {
			uint64_t pc;
			if (t->th[i].state != PTD_THREAD_STOPPED)
				continue;
			if (ptd_target_get_pc(t, t->th[i].tid, &pc) < 0)
				continue;
			if ((pass == 0) != (ptd_target_bp_at(t, pc) != 0))
				continue;
			int rc = ptd_target_resume(t, t->th[i].tid, step, -1);
			if (rc < 0)
				return rc;
		}
	return 0;
}

static int live_threads(const struct ptd_target *t)
{
	int n = 0;

	for (int i = 0; i < t->nth; i++)
		n += t->th[i].state != PTD_THREAD_GONE;
	return n;
}

/*
 * Is a SIGTRAP queued for thread @tid (stopped)?  A thread that has just
 * executed an int3, or finished a single-step, has its SIGTRAP queued; if
 * a PTRACE_INTERRUPT lands before the signal is dequeued, the kernel
 * reports the interrupt first (job-control traps come before signals) and
 * the trap only on the next resume.  Taken for a plain interrupt, the
 * thread would sit one byte past our int3, or with our step's trap still
 * due: detached so, the program dies of SIGTRAP or runs from the middle of
 * an instruction.
 */
static int trap_pending(pid_t tid)
{
	siginfo_t si[16];
	struct __ptrace_peeksiginfo_args a = { .off = 0, .flags = 0, .nr = 16 };
	long n = ptrace(PTRACE_PEEKSIGINFO, tid, &a, si);

	for (long i = 0; i < n; i++)
		if (si[i].si_signo == SIGTRAP)
			return 1;
	return 0;
}

static void finish_step_over(struct ptd_target *t, struct tthread *th)
{
	struct tbp *b = find_bp(t, th->over_addr);

	if (b && !b->inserted && t->bp_enabled && !t->vfork_bps_suspended)
		bp_poke(t, b, 1);
	th->stepping_over = 0;
}

/* A thread whose stop was reported by wait but which is no longer in it:
 * SIGKILL (its process killed) woke it between the two.  The stop is
 * stale -- its siginfo and registers are gone -- and the thread's exit
 * comes through wait next; reporting it would show a made-up signal at
 * pc 0 and end the recording as if the program had stopped. */
static int vanished(struct tthread *th)
{
	th->state = PTD_THREAD_RUNNING;
	return 0;
}

/* Turns one wait status of a known thread into an event.  Returns 1 when
 * @st holds an event for the caller, 0 when it was handled internally. */
static int translate(struct ptd_target *t, struct tthread *th, int status, struct ptd_stop *st)
{
	int sig, ev;

	memset(st, 0, sizeof(*st));
	st->tid = th->tid;
	if (WIFEXITED(status) || WIFSIGNALED(status)) {
		th->state = PTD_THREAD_GONE;
		if (th->tid == t->pid || live_threads(t) == 0) {
			t->alive = 0;
			ptd_target_release_held_child(t);
			for (int i = 0; i < t->nth; i++)
				t->th[i].state = PTD_THREAD_GONE;
			if (WIFEXITED(status)) {
				st->kind = PTD_STOP_EXITED;
				st->status = WEXITSTATUS(status);
			} else {
				st->kind = PTD_STOP_KILLED;
				st->signo = WTERMSIG(status);
			}
			return 1;
		}
		st->kind = PTD_STOP_THREAD_EXIT;
		return 1;
	}
	if (!WIFSTOPPED(status))
		return 0;
	th->state = PTD_THREAD_STOPPED;
	sig = WSTOPSIG(status);
	ev = status >> 16;
	ptd_target_get_pc(t, th->tid, &st->pc);
	th->stop_pc = st->pc;

	if (ev == PTRACE_EVENT_STOP) {
		if (th->initial_stop) {
			th->initial_stop = 0;
			return 0; /* caller learns of it through the CLONE event */
		}
		if (th->interrupt_sent) {
			th->interrupt_sent = 0;
			if (trap_pending(th->tid) && ptrace(PTRACE_CONT, th->tid, 0, 0) == 0) {
				/* Its trap was first: resumed, the thread stops for
				 * it before executing anything, and that stop is
				 * the one to report (last_step stays as it was, to
				 * recognise a step's trap). */
				th->state = PTD_THREAD_RUNNING;
				return 0;
			}
			st->kind = PTD_STOP_INTERRUPT;
			return 1;
		}
		if (th->interrupt_stale) {
			/* a stale interrupt trap from an earlier stop_all: carry on */
			th->interrupt_stale = 0;
			do_resume(t, th, th->last_step, 0);
			return 0;
		}
		if (sig == SIGTRAP) {
			/* An interrupt stop nobody waits for (a group-stopped
			 * thread seized at attach stops for the group-stop first
			 * and for the interrupt when resumed): no signal of the
			 * program's, carry on. */
			do_resume(t, th, th->last_step, 0);
			return 0;
		}
		/* group-stop (someone sent SIGSTOP/SIGTSTP): report it as a signal */
		st->kind = PTD_STOP_SIGNAL;
		st->signo = sig;
		return 1;
	}
	if (ev == PTRACE_EVENT_CLONE || ev == PTRACE_EVENT_FORK || ev == PTRACE_EVENT_VFORK) {
		unsigned long msg = 0;
		pid_t child;
		int cst, early = 0;

		if (ptrace(PTRACE_GETEVENTMSG, th->tid, 0, &msg) < 0 || msg == 0) {
			/* Killed (SIGKILL) while stopped at the event: its exit
			 * and the child's come through wait; never wait for
			 * "pid 0", which is any child of ours. */
			th->state = PTD_THREAD_RUNNING;
			return 0;
		}
		child = (pid_t)msg;
		st->new_tid = child;
		for (int i = 0; i < t->nearly; i++)
			if (t->early[i].tid == child) {
				t->early[i] = t->early[--t->nearly];
				early = 1;
				break;
			}
		if (!early && (wait_tid_stop(child, &cst) < 0 || !WIFSTOPPED(cst)))
			early = -1; /* gone already (killed with its process) */
		if (ev == PTRACE_EVENT_CLONE) {
			struct tthread *n = add_thread(t, child, PTD_THREAD_STOPPED);
			if (!n) {
				/* The new thread stays stopped: resumed untracked it
				 * could run into our int3s. */
				t->pending_err = ptd__err(-ptde_nomem,
					"cannot track new thread %d: out of memory (it is kept stopped)",
					(int)child);
				return 0;
			}
			th = find_thread(t, st->tid); /* add_thread may move the array */
			/* The kernel gave the new thread its creator's mask, our
			 * pin: what it must get back is the creator's own. */
			if (th && th->aff_saved && !n->aff_saved) {
				n->aff = th->aff;
				n->aff_saved = 1;
			}
			if (early < 0)
				n->state = PTD_THREAD_GONE;
			st->kind = PTD_STOP_CLONE;
			return 1;
		}
		if (ev == PTRACE_EVENT_VFORK) {
			/* The child shares our memory until it execs or exits:
			 * take the int3s out until VFORK_DONE. */
			bp_set_all(t, 0);
			t->vfork_bps_suspended = 1;
		} else if (early >= 0 && ptd_target_bp_clean_child(t, child) < 0) {
			/* A copy of our int3s would stay in its code, where
			 * nobody handles the traps (it dies of SIGTRAP at the
			 * first, or worse, a handler of its own runs on): end it
			 * now and say so rather than let it go like that. */
			kill(child, SIGKILL);
			st->signo = SIGKILL;
		}
		if (early >= 0) {
			/* A forked child inherited the pin: it goes with its
			 * parent thread's own mask. */
			if (t->pin_cpu >= 0 && th->aff_saved)
				sched_setaffinity(child, sizeof(th->aff), &th->aff);
			if (ev == PTRACE_EVENT_FORK && st->signo != SIGKILL) {
				/* (another thread's child, held still: it goes now) */
				ptd_target_release_held_child(t);
				t->held_child = child;
				t->held_parent = th->tid;
			} else {
				ptrace(PTRACE_DETACH, child, 0, 0);
			}
		}
		st->kind = PTD_STOP_FORK;
		st->vfork = ev == PTRACE_EVENT_VFORK;
		return 1;
	}
	if (ev == PTRACE_EVENT_VFORK_DONE) {
		t->vfork_bps_suspended = 0;
		if (t->bp_enabled)
			bp_set_all(t, 1);
		do_resume(t, th, th->last_step, 0);
		return 0;
	}
	if (ev == PTRACE_EVENT_EXEC) {
		unsigned long old = 0;
		int aff_saved = 0;
		cpu_set_t aff;
		if (ptrace(PTRACE_GETEVENTMSG, th->tid, 0, &old) < 0)
			old = 0; /* then no mask to carry over */
		/* The exec'ing thread (its mask goes with it) now has the
		 * leader's tid; every other thread is gone, and so are our
		 * breakpoints. */
		for (int i = 0; i < t->nth; i++)
			if (old && t->th[i].tid == (pid_t)old && t->th[i].aff_saved) {
				aff = t->th[i].aff;
				aff_saved = 1;
			}
		for (int i = 0; i < t->nth; i++)
			if (t->th[i].tid != t->pid)
				t->th[i].state = PTD_THREAD_GONE;
		th = add_thread(t, t->pid, PTD_THREAD_STOPPED);
		if (!th) {
			t->pending_err = ptd__err(-ptde_nomem,
				"cannot track thread %d after exec: out of memory (it is kept stopped)",
				(int)t->pid);
			return 0;
		}
		if (aff_saved) {
			th->aff = aff;
			th->aff_saved = 1;
		}
		th->state = PTD_THREAD_STOPPED;
		t->nbp = 0;
		gone_clear(t); /* the old image's int3s went with it */
		t->vfork_bps_suspended = 0;
		/* The kernel cleared the debug registers with the old image. */
		t->hw_on = 0;
		t->hw_gen++;
		th->hw_gen = t->hw_gen;
		open_mem(t);
		st->tid = t->pid;
		st->kind = PTD_STOP_EXEC;
		ptd_target_get_pc(t, t->pid, &st->pc);
		return 1;
	}
	if (ev == PTRACE_EVENT_EXIT) {
		/* PTRACE_O_TRACEEXIT: the thread is in do_exit, its registers
		 * and the process's memory still there; resuming it lets it
		 * exit.  The message is its wait status to be. */
		unsigned long msg = 0;

		if (ptrace(PTRACE_GETEVENTMSG, th->tid, 0, &msg) < 0 && errno == ESRCH)
			return vanished(th);
		if (th->stepping_over)
			finish_step_over(t, th);
		th->pending_sig = 0;
		st->kind = PTD_STOP_EXITING;
		st->status = (int)msg;
		return 1;
	}
	if (sig == SIGTRAP && ev == 0) {
		siginfo_t si;
		memset(&si, 0, sizeof(si));
		if (ptrace(PTRACE_GETSIGINFO, th->tid, 0, &si) < 0 && errno == ESRCH)
			return vanished(th);
		st->si = si;
		if (t->hw_on)
			st->hw_hits = hw_take_hits(t, th->tid);
		if (th->stepping_over && (si.si_code == TRAP_TRACE || si.si_code == TRAP_BRKPT ||
					  si.si_code == SIGTRAP)) {
			int cont = th->stepping_over == 2;
			finish_step_over(t, th);
			if (cont) {
				/* landed on another breakpoint? then report that */
				struct tbp *b = find_bp(t, st->pc);
				if (b && b->inserted) {
					st->kind = PTD_STOP_BREAKPOINT;
					st->bp_addr_valid = 1;
					st->bp_addr = st->pc;
					return 1;
				}
				if (st->hw_hits) {
					/* the stepped instruction triggered a
					 * debug-register slot (a watched write):
					 * the session decides */
					st->kind = PTD_STOP_HWBREAK;
					return 1;
				}
				do_resume(t, th, 0, 0);
				return 0;
			}
			st->kind = PTD_STOP_STEP;
			return 1;
		}
		if (si.si_code == SI_KERNEL) {
			struct tbp *b = find_bp(t, st->pc - 1);
			int moribund = 0;
			if (!b) {
				uint8_t byte = 0;
				moribund = gone_has(t, st->pc - 1);
				/* ours if the int3 is gone from memory again */
				if (moribund && (ptd_target_read_raw(t, st->pc - 1, &byte, 1) != 1 ||
						 byte == 0xcc))
					moribund = 0;
			}
			/* Listed but out of memory: taken out for another
			 * thread's step-over (or while the step recorder runs
			 * on clean code) after this thread had executed it. */
			if ((b && (b->inserted || b->orig != 0xcc)) || moribund) {
				st->pc -= 1;
				ptd_target_set_pc(t, th->tid, st->pc);
				th->stop_pc = st->pc;
				st->kind = PTD_STOP_BREAKPOINT;
				st->bp_addr_valid = 1;
				st->bp_addr = st->pc;
				return 1;
			}
		}
		/* A single-step ends with TRAP_TRACE, or TRAP_BRKPT after a
		 * syscall; a step that delivered a signal into its handler
		 * stops at the handler's first instruction through
		 * ptrace_notify(), whose si_code is SIGTRAP itself. */
		if (th->last_step && (si.si_code == TRAP_TRACE || si.si_code == TRAP_BRKPT ||
				      si.si_code == SIGTRAP)) {
			st->kind = PTD_STOP_STEP;
			return 1;
		}
	}
	if (sig == SIGTRAP && ev == 0 && st->si.si_code == TRAP_HWBKPT && st->hw_hits) {
		/* One of our debug-register slots: nothing for the program. */
		st->kind = PTD_STOP_HWBREAK;
		return 1;
	}
	/* A signal for the program. */
	if (th->stepping_over) {
		/* the step over the breakpoint did not complete; put it back */
		finish_step_over(t, th);
	}
	if (ptrace(PTRACE_GETSIGINFO, th->tid, 0, &st->si) < 0 && errno == ESRCH)
		return vanished(th);
	th->pending_sig = sig;
	st->kind = PTD_STOP_SIGNAL;
	st->signo = sig;
	return 1;
}

int ptd_target_wait(struct ptd_target *t, struct ptd_stop *st, int block)
{
	if (!t || !st)
		return -ptde_invalid;
	for (;;) {
		int status;
		pid_t w;
		struct tthread *th;

		if (t->pending_err) {
			int rc = t->pending_err;
			t->pending_err = 0;
			return rc;
		}
		if (t->nqueue) {
			*st = t->queue[0];
			memmove(t->queue, t->queue + 1, (--t->nqueue) * sizeof(t->queue[0]));
			th = find_thread(t, st->tid);
			if (th) {
				th->queued = 0;
				th->stop_pc = st->pc;
			}
			return 0;
		}
		if (!t->alive)
			return ptd__err(-ptde_not_running, "the program is not being run");
		compact_threads(t);
		do
			w = waitpid_safe(-1, &status, __WALL | (block ? 0 : WNOHANG));
		while (w < 0 && errno == EINTR);
		if (w == 0)
			return -ptde_busy;
		if (w < 0) {
			if (errno == ECHILD) {
				t->alive = 0;
				return ptd__err(-ptde_not_running, "the program is no longer running");
			}
			return ptd__err(-ptde_sys, "waitpid: %s", strerror(errno));
		}
		th = find_thread(t, w);
		if (!th) {
			/* A clone or fork child ahead of its parent's event. */
			if (WIFSTOPPED(status)) {
				if (grow((void **)&t->early, &t->cap_early, t->nearly,
					 sizeof(*t->early)) < 0)
					return ptd__err(-ptde_nomem,
						"cannot keep the stop of new thread %d: out of memory",
						(int)w);
				t->early[t->nearly].tid = w;
				t->early[t->nearly].status = status;
				t->nearly++;
			}
			continue;
		}
		if (translate(t, th, status, st)) {
			th = find_thread(t, st->tid);
			if (th)
				th->stop_pc = st->pc;
			return 0;
		}
	}
}

/*
 * Drops the entries of threads that are gone, keeping creation order, once
 * th[] has doubled since the last time: a program that creates threads
 * all its life must not make every lookup slower.  Only between events,
 * when no tthread pointer is held.
 */
static void compact_threads(struct ptd_target *t)
{
	int j = 0;

	if (t->nth < t->compact_at || t->nth < 64)
		return;
	for (int i = 0; i < t->nth; i++)
		if (t->th[i].state != PTD_THREAD_GONE)
			t->th[j++] = t->th[i];
	t->nth = j;
	t->compact_at = 2 * j > 64 ? 2 * j : 64;
}

int ptd_target_interrupt(struct ptd_target *t, pid_t tid)
{
	struct tthread *th;

	if (!t)
		return -ptde_invalid;
	th = find_thread(t, tid);
	if (!th || th->state != PTD_THREAD_RUNNING)
		return 0;
	if (th->interrupt_sent)
		return 0;
	if (ptrace(PTRACE_INTERRUPT, tid, 0, 0) < 0)
		return ptd__err(ptd__errno_code(errno), "cannot interrupt thread %d: %s", (int)tid,
				strerror(errno));
	th->interrupt_sent = 1;
	return 0;
}

static int stop_all(struct ptd_target *t, void (*cb)(void *ctx, const struct ptd_stop *st),
		    void *ctx);

int ptd_target_stop_all(struct ptd_target *t, void (*cb)(void *ctx, const struct ptd_stop *st),
			void *ctx)
{
	int rc;

	if (!t)
		return -ptde_invalid;
	t->stopping_all++;
	rc = stop_all(t, cb, ctx);
	t->stopping_all--;
	return rc;
}

int ptd_target_stopping_all(const struct ptd_target *t)
{
	return t && t->stopping_all > 0;
}

int ptd_target_set_exit_stops(struct ptd_target *t, int on)
{
	long opts = PTD_OPTS | (on ? PTRACE_O_TRACEEXIT : 0);
	int rc = 0;

	if (!t)
		return -ptde_invalid;
	if (!t->alive)
		return ptd__err(-ptde_not_running, "the program is not being run");
	if (t->launched)
		opts |= PTRACE_O_EXITKILL;
	/* Options go per thread (threads created later inherit them);
	 * ptrace takes them only from a stopped thread. */
	for (int i = 0; i < t->nth; i++) {
		struct tthread *th = &t->th[i];

		if (th->state != PTD_THREAD_STOPPED)
			continue;
		if (ptrace(PTRACE_SETOPTIONS, th->tid, 0, (void *)opts) < 0 && errno != ESRCH && !rc)
			rc = ptd__err(ptd__errno_code(errno), "cannot set the ptrace options of thread %d: %s",
				      (int)th->tid, strerror(errno));
	}
	if (rc == 0)
		t->exit_stops = !!on;
	return rc;
}

static int stop_all(struct ptd_target *t, void (*cb)(void *ctx, const struct ptd_stop *st),
		    void *ctx)
{
	for (int i = 0; i < t->nth; i++)
		if (t->th[i].state == PTD_THREAD_RUNNING)
			ptd_target_interrupt(t, t->th[i].tid);
	for (;;) {
		int running = 0;
		for (int i = 0; i < t->nth; i++)
			running += t->th[i].state == PTD_THREAD_RUNNING;
		if (!running || !t->alive) {
			for (int i = 0; i < t->nth; i++)
				if (t->th[i].interrupt_sent) {
					t->th[i].interrupt_sent = 0;
					t->th[i].interrupt_stale = 1;
				}
			return 0;
		}
		struct ptd_stop st;
		int rc = ptd_target_wait(t, &st, 1);
		if (rc < 0)
			return rc == -ptde_not_running ? 0 : rc;
		switch (st.kind) {
		case PTD_STOP_INTERRUPT:
			break;
		case PTD_STOP_BREAKPOINT: {
			/* Undo the hit: the pc is already rewound, the thread will
			 * execute the int3 again when resumed. */
			struct tthread *th = find_thread(t, st.tid);
			if (th)
				th->bp_rewound = 1;
			break;
		}
		case PTD_STOP_CLONE:
			/* the new thread is stopped; it was never told to run */
			if (cb)
				cb(ctx, &st);
			break;
		default:
			if (cb)
				cb(ctx, &st);
			break;
		}
	}
}

int ptd_target_pending_signal(const struct ptd_target *t, pid_t tid)
{
	struct tthread *th = t ? find_thread(t, tid) : NULL;

	return th ? th->pending_sig : 0;
}

void ptd_target_set_pending_signal(struct ptd_target *t, pid_t tid, int signo)
{
	struct tthread *th = t ? find_thread(t, tid) : NULL;

	if (th)
		th->pending_sig = signo;
}

int ptd_target_step_over(struct ptd_target *t, pid_t tid, struct ptd_stop *st)
{
	struct tthread *th;
	int rc;

	if (!t || !st)
		return -ptde_invalid;
	th = find_thread(t, tid);
	if (!th)
		return ptd__err(-ptde_nosrch, "no thread %d", (int)tid);
	rc = ptd_target_resume(t, tid, 1, -1);
	if (rc < 0)
		return rc;
	/* Wait for this thread only; others are stopped. */
	for (;;) {
		int status;
		if (wait_tid_stop(tid, &status) < 0)
			return ptd__err(-ptde_sys, "waitpid: %s", strerror(errno));
		th = find_thread(t, tid);
		if (!th)
			return -ptde_nosrch;
		if (translate(t, th, status, st))
			return 0;
	}
}

/* ---- CPU affinity ------------------------------------------------------------- */

static int is_pin_mask(const cpu_set_t *m, int cpu)
{
	return CPU_COUNT(m) == 1 && CPU_ISSET(cpu, m);
}

/* Gives thread @tid back the mask it had before we pinned it: its own
 * (@th), or for a thread we never saw its process's first known thread's.
 * A thread whose mask is no longer our pin changed it itself: left alone.
 * Async-signal-safe. */
static void restore_affinity(struct ptd_target *t, pid_t tid, const struct tthread *th)
{
	cpu_set_t cur;
	const cpu_set_t *want = NULL;

	if (t->pin_cpu < 0)
		return;
	if (th && th->aff_saved)
		want = &th->aff;
	for (int i = 0; !want && i < t->nth; i++)
		if (t->th[i].aff_saved)
			want = &t->th[i].aff;
	if (!want)
		return;
	if (sched_getaffinity(tid, sizeof(cur), &cur) < 0 || !is_pin_mask(&cur, t->pin_cpu))
		return;
	sched_setaffinity(tid, sizeof(*want), want);
}

int ptd_target_pin(struct ptd_target *t, int cpu)
{
	cpu_set_t one;

	if (!t || cpu >= CPU_SETSIZE)
		return -ptde_invalid;
	if (cpu < 0) {
		for (int i = 0; i < t->nth; i++)
			if (t->th[i].state != PTD_THREAD_GONE)
				restore_affinity(t, t->th[i].tid, &t->th[i]);
		t->pin_cpu = -1;
		return 0;
	}
	if (!t->alive)
		return ptd__err(-ptde_not_running, "the program is not being run");
	if (t->pin_cpu >= 0 && t->pin_cpu != cpu)
		ptd_target_pin(t, -1);
	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	t->pin_cpu = cpu;
	for (int i = 0; i < t->nth; i++) {
		struct tthread *th = &t->th[i];
		if (th->state == PTD_THREAD_GONE)
			continue;
		if (!th->aff_saved) {
			if (sched_getaffinity(th->tid, sizeof(th->aff), &th->aff) < 0)
				continue; /* gone, or more CPUs than a cpu_set_t: not pinned */
			th->aff_saved = 1;
		}
		sched_setaffinity(th->tid, sizeof(one), &one);
	}
	return 0;
}

/* ---- detach / kill / free ----------------------------------------------------- */

int ptd_target_detach(struct ptd_target *t)
{
	if (!t)
		return -ptde_invalid;
	if (!t->alive)
		return ptd__err(-ptde_not_running, "the program is not being run");
	ptd_target_stop_all(t, NULL, NULL);
	ptd_target_release_held_child(t);
	bp_set_all(t, 0);
	t->nbp = 0;
	for (int i = 0; i < t->nth; i++) {
		struct tthread *th = &t->th[i];
		if (th->state == PTD_THREAD_GONE)
			continue;
		if (th->stepping_over)
			finish_step_over(t, th);
		restore_affinity(t, th->tid, th);
		if (t->hw_on)
			ptrace(PTRACE_POKEUSER, th->tid, DR_OFF(7), 0);
		ptrace(PTRACE_DETACH, th->tid, 0, (void *)(long)th->pending_sig);
		th->state = PTD_THREAD_GONE;
	}
	t->alive = 0;
	t->pin_cpu = -1;
	live_unregister(t);
	return 0;
}

int ptd_target_kill(struct ptd_target *t)
{
	int st;

	if (!t)
		return -ptde_invalid;
	if (!t->alive)
		return ptd__err(-ptde_not_running, "the program is not being run");
	ptd_target_release_held_child(t);
	kill(t->pid, SIGKILL);
	live_unregister(t);
	/* A thread in its exit stop (PTRACE_O_TRACEEXIT) is past the
	 * point where SIGKILL wakes it: it goes on only when resumed. */
	for (int i = 0; i < t->nth; i++)
		if (t->th[i].state == PTD_THREAD_STOPPED)
			ptrace(PTRACE_CONT, t->th[i].tid, 0, 0);
	/* Reap every thread so none is left a zombie. */
	for (;;) {
		pid_t w = waitpid(-1, &st, __WALL);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			break;
		if (WIFSTOPPED(st)) {
			/* its exit event (PTRACE_O_TRACEEXIT): let it go on */
			ptrace(PTRACE_CONT, w, 0, 0);
			continue;
		}
		if (w == t->pid && (WIFEXITED(st) || WIFSIGNALED(st)))
			break;
	}
	for (int i = 0; i < t->nth; i++)
		t->th[i].state = PTD_THREAD_GONE;
	t->alive = 0;
	return 0;
}

void ptd_target_free(struct ptd_target *t)
{
	if (!t)
		return;
	ptd_target_release_held_child(t);
	if (t->alive) {
		if (t->launched)
			ptd_target_kill(t);
		else
			ptd_target_detach(t);
	}
	live_unregister(t);
	if (t->memfd >= 0)
		close(t->memfd);
	free(t->th);
	free(t->early);
	free(t->queue);
	free(t->bp);
	gone_clear(t);
	free(t);
}

pid_t ptd_target_pid(const struct ptd_target *t)
{
	return t ? t->pid : -1;
}

int ptd_target_alive(const struct ptd_target *t)
{
	return t && t->alive;
}

int ptd_target_launched(const struct ptd_target *t)
{
	return t && t->launched;
}

int ptd_target_threads(const struct ptd_target *t, pid_t *tids, int max)
{
	int n = 0;

	if (!t)
		return -ptde_invalid;
	for (int i = 0; i < t->nth; i++)
		if (t->th[i].state != PTD_THREAD_GONE) {
			if (n < max && tids)
				tids[n] = t->th[i].tid;
			n++;
		}
	return n;
}

enum ptd_thread_state ptd_target_thread_state(const struct ptd_target *t, pid_t tid)
{
	struct tthread *th = t ? find_thread(t, tid) : NULL;

	/* A thread whose event is still queued is, for the caller, running:
	 * the event will come from wait(). */
	if (th && th->queued)
		return PTD_THREAD_RUNNING;
	return th ? th->state : PTD_THREAD_GONE;
}

int ptd_target_signal_caught(const struct ptd_target *t, pid_t tid, int signo)
{
	char path[64], line[256];
	unsigned long long mask = 0;
	FILE *f;

	if (!t || signo < 1 || signo > 64)
		return 0;
	snprintf(path, sizeof(path), "/proc/%d/status", (int)tid);
	f = fopen(path, "re");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "SigCgt: %llx", &mask) == 1)
			break;
	fclose(f);
	return (mask >> (signo - 1)) & 1;
}

/* ---- ptdbg killed: the teardown ------------------------------------------------- */

/*
 * When ptdbg is asked to die (SIGTERM, SIGHUP; the front ends decide), an
 * attached program must be left exactly as it was: no int3 of ours in its
 * code, no thread stopped just past one of them or with a single-step trap
 * of ours pending (either kills it or derails it once we are gone), its
 * own signals still delivered, its CPU affinity its own, forked children
 * that we never got to clean cleaned.  A program we launched is killed, as
 * gdb kills it when it quits.
 *
 * The teardown reads the target tables, so it must not run while the
 * tracer thread is changing them.  The tracer therefore marks the moments
 * where they are consistent, the "safe points" (blocked in waitpid, idle at
 * the prompt).  A signal that arrives at a safe point tears down at once,
 * from the handler; one that arrives elsewhere is noted, and the tracer
 * tears down when it next reaches a safe point.  A signal delivered to
 * another thread of ours is sent on to the tracer thread, the only one
 * allowed to use ptrace.  Everything below uses only system calls.
 */
static volatile sig_atomic_t quit_sig;
static volatile sig_atomic_t at_safe_point;

static pid_t gettid_raw(void)
{
	return (pid_t)syscall(SYS_gettid);
}

/* Puts thread @tid into a ptrace-stop if it is not in one.  Returns 1 when
 * it is stopped (and ours), 0 when it is gone or not traced by us. */
static int td_stop(pid_t tid)
{
	siginfo_t si;
	int st;

	if (ptrace(PTRACE_GETSIGINFO, tid, 0, &si) == 0 || errno == EINVAL)
		return 1;
	if (ptrace(PTRACE_INTERRUPT, tid, 0, 0) < 0)
		return 0;
	for (int tries = 0;; ) {
		pid_t w = waitpid(tid, &st, __WALL);
		if (w < 0 && errno == EINTR)
			continue;
		if (w != tid || !WIFSTOPPED(st))
			return 0;
		/* a trap queued behind the interrupt: take its stop instead
		 * (see trap_pending) */
		if ((st >> 16) == PTRACE_EVENT_STOP && tries++ < 4 && trap_pending(tid) &&
		    ptrace(PTRACE_CONT, tid, 0, 0) == 0)
			continue;
		return 1;
	}
}

/* Calls fn(t, tid) for every task of @t's process, read with getdents64
 * (opendir allocates).  Returns how many calls returned nonzero. */
static int td_each_task(struct ptd_target *t, int (*fn)(struct ptd_target *, pid_t))
{
	char path[64], buf[4096];
	int fd, n = 0, len = snprintf(path, sizeof(path), "/proc/%d/task", (int)t->pid);
	long got;

	if (len <= 0)
		return 0;
	fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	while ((got = syscall(SYS_getdents64, fd, buf, sizeof(buf))) > 0) {
		for (long off = 0; off < got;) {
			struct {
				uint64_t ino;
				int64_t off;
				unsigned short reclen;
				unsigned char type;
				char name[];
			} *de = (void *)(buf + off);
			pid_t tid = 0;
			const char *c = de->name;
			off += de->reclen;
			if (*c < '0' || *c > '9')
				continue;
			for (; *c >= '0' && *c <= '9'; c++)
				tid = tid * 10 + (*c - '0');
			n += fn(t, tid) != 0;
		}
	}
	close(fd);
	return n;
}

static int td_stop_fn(struct ptd_target *t, pid_t tid)
{
	(void)t;
	return td_stop(tid);
}

/* Is there an int3 of ours (or one removed lately) at @addr?  A listed
 * breakpoint taken out of memory for a moment (another thread steps over
 * it, or the step recorder runs on clean code) still trapped a thread that
 * executed it just before: ours too, unless the program's own byte there
 * is an int3. */
static int td_ours(const struct ptd_target *t, uint64_t addr)
{
	const struct tbp *b = find_bp(t, addr);

	if (b && b->orig != 0xcc)
		return 1;
	return gone_has(t, addr);
}

/* Writes the original bytes back where memory still holds our int3, into
 * @fd (/proc/PID/mem of the process or of a forked copy of it). */
static void td_restore_bytes(const struct ptd_target *t, int fd)
{
	for (int j = 0; j < t->nbp; j++) {
		uint8_t now;
		if (!t->bp[j].inserted)
			continue;
		if (pread(fd, &now, 1, (off_t)t->bp[j].addr) == 1 && now == 0xcc)
			(void)!pwrite(fd, &t->bp[j].orig, 1, (off_t)t->bp[j].addr);
	}
}

/* A forked child whose event we never handled: a copy of the process with
 * our int3s in it, stopped and traced by us.  Clean it and let it go. */
static void td_release_child(struct ptd_target *t, pid_t child, pid_t parent)
{
	char path[64];
	int fd;

	if (!td_stop(child))
		return;
	snprintf(path, sizeof(path), "/proc/%d/mem", (int)child);
	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd >= 0) {
		td_restore_bytes(t, fd);
		close(fd);
	}
	restore_affinity(t, child, find_thread(t, parent));
	ptrace(PTRACE_DETACH, child, 0, 0);
}

/* Thread @tid (stopped) goes back to the program as it would have run. */
static int td_release(struct ptd_target *t, pid_t tid)
{
	struct tthread *th = find_thread(t, tid);
	siginfo_t si;
	int sig = 0;

	if (ptrace(PTRACE_GETSIGINFO, tid, 0, &si) == 0) {
		int event = si.si_code >> 8;
		if (th && th->state == PTD_THREAD_STOPPED) {
			/* a stop the tracer handled: what it kept for the program */
			sig = th->pending_sig;
		} else if (event == PTRACE_EVENT_FORK || event == PTRACE_EVENT_VFORK) {
			unsigned long child = 0;
			if (ptrace(PTRACE_GETEVENTMSG, tid, 0, &child) == 0 && child > 0)
				td_release_child(t, (pid_t)child, tid);
		} else if (event) {
			/* other event stops carry no signal */
		} else if (si.si_signo == SIGTRAP && si.si_code == SI_KERNEL) {
			struct user_regs_struct r;
			/* just past an int3: ours is rewound and runs the
			 * original instruction; the program's own is its trap */
			if (ptrace(PTRACE_GETREGS, tid, 0, &r) == 0 && td_ours(t, r.rip - 1)) {
				r.rip -= 1;
				ptrace(PTRACE_SETREGS, tid, 0, &r);
			} else {
				sig = SIGTRAP;
			}
		} else if (si.si_signo == SIGTRAP && th && th->last_step &&
			   (si.si_code == TRAP_TRACE || si.si_code == TRAP_BRKPT ||
			    si.si_code == SIGTRAP)) {
			/* the trap of a single-step of ours */
		} else {
			sig = si.si_signo;
		}
	}
	restore_affinity(t, tid, th);
	/* Our watchpoints would trap it with nobody to handle them. */
	if (t->hw_on)
		ptrace(PTRACE_POKEUSER, tid, DR_OFF(7), 0);
	ptrace(PTRACE_DETACH, tid, 0, (void *)(long)sig);
	return 1;
}

static void td_target(struct ptd_target *t)
{
	if (t->held_child) /* (it runs on as the program's child) */
		ptrace(PTRACE_DETACH, t->held_child, 0, 0);
	t->held_child = 0;
	if (!t->alive)
		return;
	if (t->launched) {
		kill(t->pid, SIGKILL);
		/* a thread held in its exit stop goes on only when resumed */
		for (int i = 0; i < t->nth; i++)
			if (t->th[i].state == PTD_THREAD_STOPPED)
				ptrace(PTRACE_CONT, t->th[i].tid, 0, 0);
		/* Reap it before ptdbg goes, so that whoever started ptdbg
		 * (a script, gdb through the stub) never sees the program
		 * outlive it.  A killed tracee may stop once more (its exit
		 * event): let it go on.  Its threads are reaped on the way;
		 * the loop ends when the leader is gone (or nothing is left
		 * to wait for), bounded in case anything else answers. */
		for (int i = 0; i < 100000; i++) {
			int st;
			pid_t r = waitpid(-1, &st, __WALL);
			if (r < 0) {
				if (errno == EINTR)
					continue;
				break;
			}
			if (WIFSTOPPED(st)) {
				ptrace(PTRACE_CONT, r, 0, 0);
				continue;
			}
			if (r == t->pid)
				break;
		}
		return;
	}
	/* Stop every task; tasks created meanwhile are stopped too by the
	 * kernel (auto-attached), so a few passes settle it. */
	for (int pass = 0; pass < 8; pass++)
		if (td_each_task(t, td_stop_fn) == 0)
			break;
	if (t->memfd >= 0)
		td_restore_bytes(t, t->memfd);
	td_each_task(t, td_release);
	t->alive = 0;
}

static void td_reraise(int sig) __attribute__((noreturn));
static void td_reraise(int sig)
{
	struct sigaction sa;
	sigset_t m;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_DFL;
	sigaction(sig, &sa, NULL);
	sigemptyset(&m);
	sigaddset(&m, sig);
	sigprocmask(SIG_UNBLOCK, &m, NULL);
	raise(sig);
	_exit(128 + sig);
}

static void td_now(void) __attribute__((noreturn));
static void td_now(void)
{
	int sig = quit_sig;

	at_safe_point = 0;
	for (struct ptd_target *t = live_head; t; t = t->live_next)
		td_target(t);
	live_head = NULL;
	td_reraise(sig);
}

void ptd_target_quit_signal(int sig)
{
	int e = errno;
	pid_t tracer = tracer_tid;

	if (!quit_sig)
		quit_sig = sig;
	if (tracer && gettid_raw() != tracer) {
		/* only the tracer thread may use ptrace */
		syscall(SYS_tgkill, getpid(), tracer, sig);
		errno = e;
		return;
	}
	if (at_safe_point || !live_head)
		td_now();
	errno = e;
}

void ptd_target_safe_point(int on)
{
	if (on) {
		if (quit_sig)
			td_now();
		at_safe_point = 1;
		/* a signal between the check and the mark only noted itself */
		if (quit_sig)
			td_now();
	} else {
		at_safe_point = 0;
	}
}

int ptd_target_quit_pending(void)
{
	return quit_sig;
}

/* Ctrl-C while the program runs: every running thread gets a
 * PTRACE_INTERRUPT (at a safe point, so the table is not moving), and the
 * caller's run loop sees the interrupt stops. */
static volatile sig_atomic_t intr_req;

static void td_interrupt_all(void)
{
	intr_req = 0;
	for (struct ptd_target *t = live_head; t; t = t->live_next) {
		if (!t->alive)
			continue;
		for (int i = 0; i < t->nth; i++) {
			struct tthread *th = &t->th[i];
			if (th->state != PTD_THREAD_RUNNING || th->interrupt_sent)
				continue;
			if (ptrace(PTRACE_INTERRUPT, th->tid, 0, 0) == 0)
				th->interrupt_sent = 1;
		}
	}
}

void ptd_target_request_interrupt(int sig)
{
	int e = errno;
	pid_t tracer = tracer_tid;

	intr_req = 1;
	if (tracer && gettid_raw() != tracer) {
		syscall(SYS_tgkill, getpid(), tracer, sig);
	} else if (at_safe_point) {
		td_interrupt_all();
	}
	errno = e;
}

void ptd_target_clear_interrupt(void)
{
	intr_req = 0;
}

/* Every blocking wait of the tracer is a safe point: the tables are
 * consistent, and a stop reaped but not yet translated when a signal
 * lands is recognised by the teardown from the thread's siginfo. */
static pid_t waitpid_safe(pid_t pid, int *status, int flags)
{
	pid_t w;

	ptd_target_safe_point(1);
	if (intr_req && !(flags & WNOHANG))
		td_interrupt_all();
	w = waitpid(pid, status, flags);
	at_safe_point = 0;
	return w;
}

/* ---- hardware breakpoints and watchpoints (debug registers) --------------- */

/* DR7's LEN field for a length: 1 -> 00, 2 -> 01, 8 -> 10, 4 -> 11. */
static unsigned long dr7_len(int len)
{
	return len == 2 ? 1 : len == 8 ? 2 : len == 4 ? 3 : 0;
}

static unsigned long hw_dr7(const struct ptd_target *t)
{
	unsigned long v = 0;

	for (int i = 0; i < PTD_HW_SLOTS; i++)
		if (t->hw_on & (1u << i))
			v |= (1ul << (2 * i)) | ((unsigned long)t->hw_kind[i] << (16 + 4 * i)) |
			     (dr7_len(t->hw_len[i]) << (18 + 4 * i));
	return v;
}

/*
 * Gives stopped thread @th the target's debug registers.  DR7 goes to 0
 * first: the kernel checks each enabled slot's address and length as
 * DR7 is written, so addresses change only while their slots are off.
 */
static int hw_apply(struct ptd_target *t, struct tthread *th)
{
	if (ptrace(PTRACE_POKEUSER, th->tid, DR_OFF(7), 0) < 0)
		return -errno;
	for (int i = 0; i < PTD_HW_SLOTS; i++)
		if ((t->hw_on & (1u << i)) &&
		    ptrace(PTRACE_POKEUSER, th->tid, DR_OFF(i), (void *)t->hw_addr[i]) < 0)
			return -errno;
	if (t->hw_on && ptrace(PTRACE_POKEUSER, th->tid, DR_OFF(7), (void *)hw_dr7(t)) < 0)
		return -errno;
	th->hw_gen = t->hw_gen;
	return 0;
}

/* Gives every stopped thread the debug registers; returns 0 or the first
 * refusal's -errno (a thread that vanished does not count). */
static int hw_apply_all(struct ptd_target *t)
{
	for (int i = 0; i < t->nth; i++) {
		struct tthread *th = &t->th[i];
		int rc;
		if (th->state != PTD_THREAD_STOPPED)
			continue;
		rc = hw_apply(t, th);
		if (rc < 0 && rc != -ESRCH)
			return rc;
	}
	return 0;
}

/* DR6's trigger bits of our slots at @tid's stop; DR6 is sticky, so it
 * is cleared for the next stop. */
static unsigned hw_take_hits(struct ptd_target *t, pid_t tid)
{
	long dr6;

	errno = 0;
	dr6 = ptrace(PTRACE_PEEKUSER, tid, DR_OFF(6), 0);
	if (dr6 == -1 && errno)
		return 0;
	if (dr6 & 0xf)
		ptrace(PTRACE_POKEUSER, tid, DR_OFF(6), 0);
	return (unsigned)dr6 & t->hw_on & 0xf;
}

int ptd_target_hw_set(struct ptd_target *t, int slot, uint64_t addr, int len,
		      enum ptd_hw_kind kind)
{
	uint64_t old_addr;
	uint8_t old_len, old_kind;
	unsigned old_on;
	int rc;

	if (!t || slot < 0 || slot >= PTD_HW_SLOTS)
		return ptd__err(-ptde_invalid, "no debug-register slot %d (there are %d)", slot,
				PTD_HW_SLOTS);
	if (kind != PTD_HW_EXEC && kind != PTD_HW_WRITE && kind != PTD_HW_ACCESS)
		return ptd__err(-ptde_invalid, "unknown hardware watchpoint kind %d", (int)kind);
	if (kind == PTD_HW_EXEC ? len != 1 : (len != 1 && len != 2 && len != 4 && len != 8))
		return ptd__err(-ptde_invalid, "cannot watch %d bytes with one debug register", len);
	if (addr % (uint64_t)len)
		return ptd__err(-ptde_invalid,
				"cannot watch %d bytes at 0x%llx: not aligned to their length", len,
				(unsigned long long)addr);
	if (!t->alive)
		return ptd__err(-ptde_not_running, "the program is not being run");
	old_addr = t->hw_addr[slot];
	old_len = t->hw_len[slot];
	old_kind = t->hw_kind[slot];
	old_on = t->hw_on;
	t->hw_addr[slot] = addr;
	t->hw_len[slot] = (uint8_t)len;
	t->hw_kind[slot] = (uint8_t)kind;
	t->hw_on |= 1u << slot;
	t->hw_gen++;
	rc = hw_apply_all(t);
	if (rc == 0)
		return 0;
	t->hw_addr[slot] = old_addr;
	t->hw_len[slot] = old_len;
	t->hw_kind[slot] = old_kind;
	t->hw_on = old_on;
	t->hw_gen++;
	hw_apply_all(t);
	return ptd__err(ptd__errno_code(-rc), "cannot set a hardware %s at 0x%llx: %s",
			kind == PTD_HW_EXEC ? "breakpoint" : "watchpoint",
			(unsigned long long)addr, strerror(-rc));
}

int ptd_target_hw_clear(struct ptd_target *t, int slot)
{
	if (!t || slot < 0 || slot >= PTD_HW_SLOTS)
		return -ptde_invalid;
	if (!(t->hw_on & (1u << slot)))
		return 0;
	t->hw_on &= ~(1u << slot);
	t->hw_gen++;
	if (t->alive)
		hw_apply_all(t);
	return 0;
}

int ptd_target_hw_free_slot(const struct ptd_target *t)
{
	if (!t)
		return -ptde_invalid;
	for (int i = 0; i < PTD_HW_SLOTS; i++)
		if (!(t->hw_on & (1u << i)))
			return i;
	return ptd__err(-ptde_busy, "all %d debug registers are in use", PTD_HW_SLOTS);
}

int ptd_target_hw_get(const struct ptd_target *t, int slot, uint64_t *addr, int *len,
		      enum ptd_hw_kind *kind)
{
	if (!t || slot < 0 || slot >= PTD_HW_SLOTS)
		return -ptde_invalid;
	if (!(t->hw_on & (1u << slot)))
		return 0;
	if (addr)
		*addr = t->hw_addr[slot];
	if (len)
		*len = t->hw_len[slot];
	if (kind)
		*kind = (enum ptd_hw_kind)t->hw_kind[slot];
	return 1;
}

int ptd_target_hw_pieces(uint64_t addr, uint64_t len, uint64_t *pa, int *pl, int max)
{
	int n = 0;

	if (len == 0)
		return -ptde_invalid;
	while (len) {
		/* the largest naturally aligned piece that starts here and fits */
		int size = 8;
		while (size > 1 && (addr % (uint64_t)size || (uint64_t)size > len))
			size /= 2;
		if (n < max) {
			if (pa)
				pa[n] = addr;
			if (pl)
				pl[n] = size;
		}
		n++;
		addr += (uint64_t)size;
		len -= (uint64_t)size;
		if (n > 1024)
			break; /* far beyond any slot count; the caller refuses */
	}
	return n;
}
