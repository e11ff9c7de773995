/*
 * The BTS recorder (see btsrec.h).
 *
 * Each branch record (from, to) says that execution went from the branch
 * at `from` to `to`; the instructions between the previous record's `to`
 * and this `from` ran straight through.  They are walked with the
 * disassembler to make the blocks the step recorder makes: a block ends
 * at every branch, also at a conditional jump that was not taken (BTS
 * records taken branches only) and at a syscall (user-only records leave
 * the kernel out, so a syscall falls through to the next instruction).
 * When the walk cannot reach `from` the records and the code disagree
 * (lost records, code changed): a gap says so and the walk goes on from
 * `to`.
 *
 * Signal delivery leaves no user-mode record, and neither does the
 * handler's entry: a thread resumed with a signal it handles is resumed
 * with a single-step, which traps at the handler's first instruction
 * (our own stop), so the history gets the signal event and the handler's
 * start.  The return through sigreturn is found when the walk after a
 * syscall only fits from the interrupted position.
 *
 * Events come from the data ring (PERF_RECORD_SAMPLE with IP and ADDR,
 * gdb's settings) or, when sysfs has the intel_bts PMU, from its AUX area
 * (raw 24-byte BTS records).  Both are mapped read-only like gdb's: the
 * kernel overwrites the oldest records when a thread runs too long
 * between two reads, and that is a gap saying how much was lost.
 *
 * The code is walked in an image of the process, not in the live
 * process: records are read at stops, long after the branches, and by
 * then an exec, a dlclose or a munmap may have taken the code away.  The
 * event asks for sideband like the pt recorder's (MMAP2 for executable
 * mappings, COMM for exec) and the records are walked in ring order
 * against an image that follows it: it starts as /proc/PID/maps at
 * start, a file mapping from MMAP2 goes into it at once, read from the
 * file as perf does (a later mapping at the same addresses replaces it),
 * and code that no file backs (anonymous, JIT, the vdso) is read from the
 * process.  After a COMM exec record the mappings build the new
 * program's image, which replaces the old one at the exec stop: up to
 * there every branch record is the old program's (the thread has not
 * been back in user mode), whereas the kernel writes the sideband at the
 * execve, before the samples still in the CPU's BTS buffer.
 */
#include "record/ptrec_int.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <stddef.h>
#include <sys/mman.h>
#include <sys/ucontext.h>
#include <sys/user.h>
#include <sys/ptrace.h>
#include <unistd.h>

#include "decode/image.h"
#include "disasm/disasm.h"
#include "target/target.h"
#include "util/error.h"

#define DEFAULT_BTS (1ull << 20)
#define WALK_LIMIT (1u << 22) /* instructions between two records */
#define ICACHE 4096
#define SIGSTACK 16

struct bicache {
	uint64_t ip; /* 0: empty */
	uint8_t len, iclass;
	uint16_t flags;
};

struct btsthread {
	pid_t tid;
	struct ptd_history *h;
	int fd;
	void *base;
	size_t base_len;
	void *aux;
	size_t aux_len;
	struct ptd_perf_ring ring;
	struct ptd_perf_aux auxr;
	uint8_t *raw; /* AUX bytes not yet whole records */
	uint64_t *newest; /* scratch: the newest samples of an overwritten ring */
	size_t raw_size, raw_cap;
	int gone;

	uint64_t next;	 /* where the next block starts */
	int known;	 /* next is known (else: after a gap, until a record) */
	uint8_t last_class; /* class of the last appended block's end */
	int sig_step;	 /* resumed with a signal by a single-step */
	/* Stopped in its exit (PTD_STOP_EXITING) inside the syscall at
	 * this address (ptd__exit_syscall), or 0. */
	uint64_t exit_sys;
	int in_gap;	 /* the newest item is a decode gap: records that do not fit
			  * the code either join it */
	int sig_no;
	uint64_t sig_stack[SIGSTACK]; /* interrupted positions, for sigreturn */
	int nsig;
	uint64_t records, lost_bytes, wraps, trace_bytes;
	uint64_t last_tail;
};

struct btsrec {
	struct ptd_recorder rec;
	struct ptd_perf_kernel *k;
	struct ptd_btsrec_config cfg;
	struct ptd__cpuinfo cpu;
	struct btsthread *th;
	int nth, cap;
	int aux_pmu;	/* the intel_bts PMU */
	uint32_t aux_type;
	uint64_t size;
	int started, stopped;
	char pmu_name[64];
	/* The code the records are walked in (see the top): img now, and
	 * after a COMM exec record the new program's, used from the exec
	 * stop on.  img_stale: sideband was lost, read /proc again. */
	struct ptd_image *img, *next_img;
	int img_stale;
	struct bicache cache[ICACHE];
};

static struct btsrec *BR(const struct ptd_recorder *r)
{
	return r->priv;
}

static void notify(struct btsrec *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void notify(struct btsrec *b, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	if (!b->rec.env.notify)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	b->rec.env.notify(b->rec.env.ctx, msg);
}

static struct btsthread *find(const struct btsrec *b, pid_t tid)
{
	for (int i = 0; i < b->nth; i++)
		if (b->th[i].tid == tid && !b->th[i].gone)
			return &b->th[i];
	return NULL;
}

/* ---- the image ---------------------------------------------------------------------------------- */

/* A new image: the process's mappings now when @maps, else empty (the
 * sideband fills it); code no file backs is read from the process. */
static struct ptd_image *new_image(struct btsrec *b, int maps)
{
	struct ptd_image *img = ptd_image_alloc(b->rec.env.read_code, b->rec.env.ctx);

	if (img && maps && b->rec.env.t && ptd_target_alive(b->rec.env.t))
		ptd_image_add_maps(img, ptd_target_pid(b->rec.env.t));
	return img;
}

static struct ptd_image *image(struct btsrec *b)
{
	if (b->img && !b->img_stale)
		return b->img;
	ptd_image_free(b->img);
	b->img = new_image(b, 1);
	b->img_stale = 0;
	memset(b->cache, 0, sizeof(b->cache));
	return b->img;
}

/* At the exec stop: from here on the new program's code. */
static void exec_image(struct btsrec *b)
{
	ptd_image_free(b->img);
	b->img = b->next_img;
	b->next_img = NULL;
	/* Without a COMM exec record (a kernel before 3.16) the new
	 * program is read from /proc: it has not run yet. */
	b->img_stale = b->img == NULL;
	memset(b->cache, 0, sizeof(b->cache));
}

/*
 * PERF_RECORD_MMAP2 (or MMAP): an executable file mapping goes into the
 * image now, or into the new program's after a COMM exec record.  Other
 * code (anonymous, [vdso]) is read from the process.
 */
static void new_mapping(struct btsrec *b, const struct perf_event_header *h, const uint8_t *p)
{
	size_t fn = h->type == PERF_RECORD_MMAP2 ? 72 : 40, end = h->size, i;
	uint32_t prot = PROT_EXEC;
	uint64_t addr, len, pgoff;
	struct ptd_image *img = b->next_img ? b->next_img : b->img;
	char path[4096];

	if (h->size < fn + 1 || !img || (!b->next_img && b->img_stale))
		return;
	memcpy(&addr, p + 16, 8);
	memcpy(&len, p + 24, 8);
	memcpy(&pgoff, p + 32, 8);
	if (h->type == PERF_RECORD_MMAP2)
		memcpy(&prot, p + 64, 4);
	if (!(prot & PROT_EXEC))
		return;
	for (i = 0; fn + i < end && i + 1 < sizeof(path) && p[fn + i]; i++)
		path[i] = (char)p[fn + i];
	path[i] = 0;
	if (path[0] != '/')
		return;
	/* A file that cannot be read is left to the process's memory. */
	if (ptd_image_add_file(img, path, pgoff, len, addr) < 0)
		ptd_clear_error();
	if (img == b->img)
		memset(b->cache, 0, sizeof(b->cache));
}

/* ---- walking the code --------------------------------------------------------------------------- */

static const struct bicache *classify(struct btsrec *b, uint64_t ip)
{
	struct bicache *e = &b->cache[(ip ^ (ip >> 12)) & (ICACHE - 1)];
	struct ptd_insn_info in;
	struct ptd_image *img;
	uint8_t buf[16];
	int n;

	if (e->ip == ip && !b->img_stale)
		return e;
	img = image(b);
	if (img)
		n = ptd_image_read(img, ip, buf, sizeof(buf));
	else
		n = b->rec.env.read_code(b->rec.env.ctx, ip, buf, sizeof(buf));
	if (n <= 0 || ptd_disasm_decode(buf, (size_t)n, ip, &in) < 0)
		return NULL;
	e->ip = ip;
	e->len = in.len;
	e->iclass = in.iclass;
	e->flags = in.flags;
	return e;
}

struct walk {
	struct ptd_block *blk; /* since the last syscall: appended on success */
	size_t n, cap;
	int nomem;
	struct ptd_block cur;
	int open;
	int after_syscall; /* index in blk after the last syscall block, -1 */
};

static void w_close(struct walk *w)
{
	if (w->open && w->n == w->cap) {
		size_t cap = w->cap ? 2 * w->cap : 64;
		struct ptd_block *p = realloc(w->blk, cap * sizeof(*p));
		if (!p)
			w->nomem = 1;
		else {
			w->blk = p;
			w->cap = cap;
		}
	}
	if (w->open && w->n < w->cap)
		w->blk[w->n++] = w->cur;
	w->open = 0;
}

static int w_flush(struct btsthread *th, struct walk *w)
{
	int rc = w->nomem ? -ptde_nomem : 0;

	for (size_t i = 0; i < w->n && rc == 0; i++) {
		th->in_gap = 0;
		rc = ptd_history_append_block(th->h, &w->blk[i]);
		th->last_class = w->blk[i].iclass;
		if (w->blk[i].flags & PTD_BLK_INTERRUPTED)
			th->last_class = 0xff;
	}
	w->n = 0;
	return rc;
}

enum { W_RECORD, W_TAIL, W_SYSCALL };

/*
 * Walks from @ip: W_RECORD up to and including the branch at @stop,
 * W_TAIL up to (not including) @stop, W_SYSCALL up to and including the
 * next syscall.  Blocks go to th's history as they fill.  Returns 0, or
 * 1 when @stop cannot be reached (the blocks after the first syscall
 * passed, or all, are not appended; *@sys gets where it went on after
 * that syscall, 0 when none).
 */
static int walk(struct btsrec *b, struct btsthread *th, uint64_t ip, uint64_t stop, int mode,
		uint64_t *sys)
{
	struct walk w;
	uint64_t last_sys = 0;

	int rc = 1;

	memset(&w, 0, sizeof(w));
	if (sys)
		*sys = 0;
	for (uint32_t i = 0; i < WALK_LIMIT; i++) {
		const struct bicache *e;

		if (mode == W_TAIL && ip == stop) {
			w_close(&w);
			rc = w_flush(th, &w) < 0 ? -1 : 0;
			goto out;
		}
		e = classify(b, ip);
		if (!e)
			break;
		if (!w.open) {
			w.cur.ip = ip;
			w.cur.ninsn = 0;
			w.cur.flags = 0;
			w.open = 1;
		}
		w.cur.end_ip = ip;
		w.cur.ninsn++;
		w.cur.iclass = e->iclass;
		if (mode == W_RECORD && ip == stop) {
			w_close(&w);
			rc = w_flush(th, &w) < 0 ? -1 : 0;
			goto out;
		}
		if (e->iclass == PTD_IC_COND_JUMP) {
			w_close(&w); /* not taken: BTS records taken branches only */
		} else if (e->flags & PTD_INSN_SYSCALL) {
			w.cur.flags |= PTD_BLK_SYSCALL;
			w_close(&w);
			/* Up to the first syscall the walk is certain; after it
			 * execution may have gone elsewhere (rt_sigreturn):
			 * then the fallback starts here. */
			if (!last_sys) {
				last_sys = ip + e->len;
				if (w_flush(th, &w) < 0) {
					rc = -1;
					goto out;
				}
			}
			if (mode == W_SYSCALL) {
				rc = 0;
				goto out;
			}
		} else if (e->iclass != PTD_IC_OTHER) {
			break; /* a branch that should have left a record */
		} else if (w.cur.ninsn >= 0xffff) {
			w_close(&w);
		}
		ip += e->len;
	}
	/* The blocks since the first syscall (or all) are not ours: drop. */
	if (sys)
		*sys = last_sys;
out:
	free(w.blk);
	return rc;
}

static void gap(struct btsthread *th, enum ptd_gap_reason r, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void gap(struct btsthread *th, enum ptd_gap_reason r, const char *fmt, ...)
{
	char msg[300];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (th->in_gap && r == PTD_GAP_DECODE_ERROR)
		return;
	ptd_history_append_gap(th->h, r, 0, msg);
	th->last_class = 0xff;
	th->in_gap = r == PTD_GAP_DECODE_ERROR;
}

/* Walks to @stop (W_RECORD or W_TAIL), trying the interrupted position
 * of a signal handler after a sigreturn syscall. */
static void walk_to(struct btsrec *b, struct btsthread *th, uint64_t stop, int mode)
{
	uint64_t sys;
	int rc;

	if (!th->known)
		return;
	rc = walk(b, th, th->next, stop, mode, &sys);
	if (rc == 1 && sys && th->nsig) {
		/* The syscall was rt_sigreturn: on from where the signal came. */
		uint64_t at = th->sig_stack[th->nsig - 1];
		rc = walk(b, th, at, stop, mode, NULL);
		if (rc == 0)
			th->nsig--;
	}
	if (rc == 1)
		gap(th, PTD_GAP_DECODE_ERROR,
		    "bts: the branch records of thread %d do not fit the code: 0x%llx cannot be "
		    "reached from 0x%llx without a branch (records lost, or the code changed)",
		    (int)th->tid, (unsigned long long)stop, (unsigned long long)th->next);
}

static void record(struct btsrec *b, struct btsthread *th, uint64_t from, uint64_t to)
{
	/* User-only tracing: a branch into or out of the kernel says
	 * nothing about user code (the kernel drops them too). */
	if (ptd__kernel_addr(from) || ptd__kernel_addr(to))
		return;
	th->records++;
	if (th->known)
		walk_to(b, th, from, W_RECORD);
	th->next = to;
	th->known = 1;
}

/* ---- rings ------------------------------------------------------------------------------------- */

struct rctx {
	struct btsrec *b;
	struct btsthread *th;
};

/*
 * A COMM exec record: the mappings that follow are the new program's.
 * The samples around it are the old program's until the exec stop (the
 * kernel drains the CPU's BTS buffer after the sideband of the execve),
 * so they go on in the old image; bts_exec switches.
 */
static void exec_seen(struct btsrec *b)
{
	if (!b->next_img)
		b->next_img = new_image(b, 0);
}

static int on_record(void *ctx, const struct perf_event_header *h, const void *rec)
{
	struct rctx *c = ctx;
	const uint8_t *p = rec;

	if (h->type == PERF_RECORD_SAMPLE && h->size >= sizeof(*h) + 16) {
		uint64_t ip, addr;

		memcpy(&ip, p + 8, 8);
		memcpy(&addr, p + 16, 8);
		if (!c->b->aux_pmu)
			c->th->trace_bytes += h->size;
		record(c->b, c->th, ip, addr);
	} else if (h->type == PERF_RECORD_MMAP2 || h->type == PERF_RECORD_MMAP) {
		new_mapping(c->b, h, p);
	} else if (h->type == PERF_RECORD_COMM && (h->misc & PERF_RECORD_MISC_COMM_EXEC)) {
		exec_seen(c->b);
	} else if (h->type == PERF_RECORD_LOST) {
		uint64_t lost = 0;

		if (h->size >= sizeof(*h) + 16)
			memcpy(&lost, p + 16, 8);
		c->th->lost_bytes += lost * 24;
		/* Mapping records may be among them: read /proc again. */
		if (!c->b->next_img)
			c->b->img_stale = 1;
		gap(c->th, PTD_GAP_LOST,
		    "bts: the kernel lost %llu branch records of thread %d (its buffer was "
		    "full); use a bigger buffer",
		    (unsigned long long)lost, (int)c->th->tid);
		c->th->known = 0;
	} else if (h->type == PERF_RECORD_AUX && h->size >= sizeof(*h) + 24) {
		uint64_t off, size, flags;

		memcpy(&off, p + 8, 8);
		memcpy(&size, p + 16, 8);
		memcpy(&flags, p + 24, 8);
		if (flags & (PERF_AUX_FLAG_TRUNCATED | PERF_AUX_FLAG_PARTIAL |
			     PERF_AUX_FLAG_COLLISION)) {
			/* Raw records before the loss are read first. */
			c->th->known = 0;
			gap(c->th, PTD_GAP_LOST,
			    "bts: branch records of thread %d lost at offset %llu (the intel_bts "
			    "buffer was %s); use a bigger buffer",
			    (int)c->th->tid, (unsigned long long)(off + size),
			    flags & PERF_AUX_FLAG_TRUNCATED ? "full" : "damaged");
		}
	}
	return 0;
}

/*
 * The kernel overwrote records of a read-only ring since the last read:
 * their boundaries are gone, but with gdb's settings every record is a
 * 24-byte PERF_RECORD_SAMPLE, so the newest ones are found walking back
 * from data_head (the ring reader has moved its tail there), as gdb
 * reads them.  Fills th->newest with (from, to) pairs, oldest first, and
 * returns their number.
 */
static uint64_t newest_samples(struct btsthread *th, uint64_t lost)
{
	const struct ptd_perf_ring *r = &th->ring;
	uint64_t head = r->tail, pos = head, n = 0, max = r->size / 24;

	th->newest = malloc((size_t)max * 16 + 16);
	if (!th->newest)
		return 0;
	while (n < max && pos >= 24 && head - (pos - 24) <= r->size && head - (pos - 24) <= lost) {
		struct {
			struct perf_event_header h;
			uint64_t ip, addr;
		} s;
		uint64_t off = (pos - 24) & (r->size - 1);
		size_t first = r->size - off < 24 ? (size_t)(r->size - off) : 24;

		memcpy(&s, r->data + off, first);
		if (first < 24)
			memcpy((uint8_t *)&s + first, r->data, 24 - first);
		if (s.h.type != PERF_RECORD_SAMPLE || s.h.size != 24)
			break;
		pos -= 24;
		n++;
	}
	for (uint64_t i = 0; i < n; i++) {
		uint64_t off = (pos + 24 * i + 8) & (r->size - 1), v[2];
		for (int k = 0; k < 2; k++, off = (off + 8) & (r->size - 1))
			memcpy(&v[k], r->data + off, 8);
		th->newest[2 * i] = v[0];
		th->newest[2 * i + 1] = v[1];
	}
	return n;
}

static int read_thread(struct btsrec *b, struct btsthread *th)
{
	struct rctx c = { b, th };
	uint64_t lost = 0;
	int rc;

	if (th->fd < 0 || !th->base)
		return 0;
	/* A simulated kernel writes what it staged for the thread now. */
	if (b->k->ops->sync) {
		rc = b->k->ops->sync(b->k, th->tid);
		if (rc < 0)
			return rc;
	}
	if (b->aux_pmu) {
		/* Raw records first: a loss in the sideband comes after them. */
		uint64_t before = th->auxr.tail;
		uint64_t head = __atomic_load_n(&th->auxr.pg->aux_head, __ATOMIC_ACQUIRE);
		int wrapped = 0;
		long got = ptd_perf_aux_read(&th->auxr, &th->raw, &th->raw_size, &th->raw_cap,
					     &wrapped);
		size_t i = 0;

		if (got < 0)
			return (int)got;
		th->trace_bytes += (uint64_t)got;
		if (wrapped) {
			uint64_t over = head - before - th->auxr.size;
			uint64_t skip = (24 - (head - th->auxr.size) % 24) % 24;

			th->wraps++;
			th->lost_bytes += over;
			gap(th, PTD_GAP_LOST,
			    "bts: the buffer of thread %d (%llu KiB) wrapped and %llu bytes of "
			    "older branch records were overwritten; use a bigger buffer",
			    (int)th->tid, (unsigned long long)(th->auxr.size / 1024),
			    (unsigned long long)over);
			th->known = 0;
			/* The copy starts mid-record: skip to a record start. */
			i = (size_t)skip + (th->raw_size - (size_t)got);
			memmove(th->raw, th->raw + i, th->raw_size - i);
			th->raw_size -= i;
			i = 0;
		}
		for (; i + 24 <= th->raw_size; i += 24) {
			uint64_t from, to;
			memcpy(&from, th->raw + i, 8);
			memcpy(&to, th->raw + i + 8, 8);
			record(b, th, from, to);
		}
		memmove(th->raw, th->raw + i, th->raw_size - i);
		th->raw_size -= i;
	}
	rc = ptd_perf_ring_read(&th->ring, on_record, &c, &lost);
	if (rc < 0)
		return rc;
	if (!b->aux_pmu) {
		if (lost) {
			uint64_t n = newest_samples(th, lost);
			th->wraps++;
			th->lost_bytes += lost;
			gap(th, PTD_GAP_OVERFLOW,
			    "bts: the buffer of thread %d (%llu KiB) overflowed and about %llu "
			    "older branch records were overwritten; use a bigger buffer "
			    "(set record bts buffer-size)",
			    (int)th->tid, (unsigned long long)(th->ring.size / 1024),
			    (unsigned long long)((lost - n * 24) / 24));
			th->known = 0;
			/* Mapping records may be among the lost ones. */
			if (!b->next_img)
				b->img_stale = 1;
			/* The newest records survive (gdb reads them so too). */
			for (uint64_t i = 0; i < n; i++)
				record(b, th, th->newest[2 * i], th->newest[2 * i + 1]);
			free(th->newest);
			th->newest = NULL;
			th->trace_bytes += n * 24;
		}
	}
	return 0;
}

/* At a stop: the instructions since the last branch up to the pc ran. */
static int close_to_pc(struct btsrec *b, struct btsthread *th)
{
	uint64_t pc = 0;

	if (th->gone || (!th->exit_sys && ptd_target_get_pc(b->rec.env.t, th->tid, &pc) < 0))
		return 0;
	if (th->exit_sys) {
		/* At the exit stop the pc is past the syscall the thread
		 * exits in, which never returns: like the step recorder
		 * (whose step over it never completes), the history ends
		 * before it, the syscall the tail.  (The session may have
		 * put the pc there already.)  A thread that was in it
		 * since before the recording started ran nothing. */
		pc = th->exit_sys;
		if (th->known && th->next == pc + 2)
			pc = th->next;
	}
	if (!th->known) {
		/* After a loss the pc is a known position again. */
		th->next = pc;
		th->known = 1;
	} else if (th->next != pc) {
		walk_to(b, th, pc, W_TAIL);
		th->next = pc;
		th->known = 1;
	}
	ptd_history_set_tail(th->h, pc);
	th->last_tail = pc;
	return 0;
}

/* ---- the event --------------------------------------------------------------------------------- */

static void close_event(struct btsrec *b, struct btsthread *th)
{
	if (th->aux)
		b->k->ops->munmap(b->k, th->aux, th->aux_len);
	if (th->base)
		b->k->ops->munmap(b->k, th->base, th->base_len);
	if (th->fd >= 0)
		b->k->ops->close(b->k, th->fd);
	th->aux = th->base = NULL;
	th->fd = -1;
}

static int open_event(struct btsrec *b, struct btsthread *th)
{
	long page = sysconf(_SC_PAGESIZE);
	struct perf_event_attr a;
	const char *pmu = b->aux_pmu ? "intel_bts" : "cpu (branch-instructions)";
	int err = 0, fd, rc;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	if (b->aux_pmu) {
		a.type = b->aux_type;
	} else {
		/* gdb's settings: every taken branch, its ip and target. */
		a.type = PERF_TYPE_HARDWARE;
		a.config = PERF_COUNT_HW_BRANCH_INSTRUCTIONS;
		a.sample_period = 1;
		a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_ADDR;
	}
	/* Sideband for the image (see the top): executable mappings and
	 * exec, in the data ring between the samples.  No sample_id_all:
	 * the records' fixed fields are all that is read. */
	a.mmap2 = 1;
	a.comm = 1;
	a.comm_exec = 1;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	a.exclude_idle = 1;
	a.disabled = 1;
	fd = b->k->ops->open(b->k, &a, th->tid, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return ptd__perf_errmsg(b->k, -fd, "open the BTS event", th->tid, pmu);
	th->fd = fd;
	for (;;) {
		uint64_t data = b->aux_pmu ? (uint64_t)page * 4 : b->size;

		th->base_len = (size_t)page + (size_t)data;
		th->base = b->k->ops->mmap(b->k, fd, th->base_len,
					   b->aux_pmu ? PROT_READ | PROT_WRITE : PROT_READ, 0, &err);
		if (th->base && b->aux_pmu) {
			volatile struct perf_event_mmap_page *pg = th->base;
			pg->aux_offset = th->base_len;
			pg->aux_size = b->size;
			th->aux_len = b->size;
			th->aux = b->k->ops->mmap(b->k, fd, th->aux_len, PROT_READ,
						  (off_t)th->base_len, &err);
			if (!th->aux) {
				b->k->ops->munmap(b->k, th->base, th->base_len);
				th->base = NULL;
			}
		}
		if (th->base)
			break;
		if ((err == -ENOMEM || err == -EPERM) && b->size / 2 >= (uint64_t)page) {
			b->size /= 2;
			notify(b,
			       "warning: cannot map a %llu KiB BTS buffer for thread %d (%s); using "
			       "%llu KiB",
			       (unsigned long long)(b->size * 2 / 1024), (int)th->tid,
			       err == -ENOMEM ? "out of memory" : "over the locked-memory limit",
			       (unsigned long long)(b->size / 1024));
			continue;
		}
		rc = ptd__perf_errmsg(b->k, -err, "map the BTS buffer", th->tid, pmu);
		close_event(b, th);
		return rc;
	}
	rc = ptd_perf_ring_init(&th->ring, th->base, th->base_len, b->aux_pmu);
	if (rc == 0 && b->aux_pmu)
		rc = ptd_perf_aux_init(&th->auxr, th->base, th->aux, b->size, 0);
	if (rc == 0 && !b->stopped) {
		rc = b->k->ops->ioctl(b->k, fd, PERF_EVENT_IOC_ENABLE, 0);
		if (rc < 0)
			rc = ptd__perf_errmsg(b->k, -rc, "enable the BTS event", th->tid, pmu);
	}
	if (rc < 0)
		close_event(b, th);
	return rc;
}

/* ---- ops --------------------------------------------------------------------------------------- */

static int bts_start(struct ptd_recorder *r)
{
	struct btsrec *b = BR(r);
	int rc = 0;

	b->started = 1;
	b->stopped = 0;
	/* The code as it is when recording starts. */
	if (!image(b))
		return ptd__err(-ptde_nomem, "out of memory for the process image");
	for (int i = 0; i < b->nth && rc == 0; i++) {
		struct btsthread *th = &b->th[i];
		if (th->gone)
			continue;
		if (th->fd < 0)
			rc = open_event(b, th);
		else if ((rc = b->k->ops->ioctl(b->k, th->fd, PERF_EVENT_IOC_ENABLE, 0)) < 0)
			rc = ptd__perf_errmsg(b->k, -rc, "enable the BTS event", th->tid, "bts");
	}
	return rc;
}

static int bts_stop(struct ptd_recorder *r)
{
	struct btsrec *b = BR(r);

	for (int i = 0; i < b->nth; i++)
		if (b->th[i].fd >= 0)
			b->k->ops->ioctl(b->k, b->th[i].fd, PERF_EVENT_IOC_DISABLE, 0);
	b->stopped = 1;
	return 0;
}

static int bts_add_thread(struct ptd_recorder *r, pid_t tid, struct ptd_history *h, uint64_t pc)
{
	struct btsrec *b = BR(r);
	struct btsthread *th;

	if (!h)
		return -ptde_invalid;
	if (find(b, tid))
		return ptd__err(-ptde_busy, "thread %d is recorded already", (int)tid);
	if (b->nth == b->cap) {
		int cap = b->cap ? 2 * b->cap : 8;
		struct btsthread *n = realloc(b->th, (size_t)cap * sizeof(*n));
		if (!n)
			return -ptde_nomem;
		b->th = n;
		b->cap = cap;
	}
	th = &b->th[b->nth];
	memset(th, 0, sizeof(*th));
	th->tid = tid;
	th->h = h;
	th->fd = -1;
	th->next = pc;
	th->known = 1;
	th->last_class = 0xff;
	if (b->started) {
		int rc = open_event(b, th);
		if (rc < 0)
			return rc;
	}
	b->nth++;
	ptd_history_set_tail(h, pc);
	th->last_tail = pc;
	return 0;
}

static int bts_thread_gone(struct ptd_recorder *r, pid_t tid)
{
	struct btsrec *b = BR(r);
	struct btsthread *th = find(b, tid);
	int rc;

	if (!th)
		return -ptde_notfound;
	rc = read_thread(b, th);
	/* A thread that ended in a syscall (exit) ran up to it: the
	 * history ends before it, as the step recorder's does. */
	if (th->exit_sys)
		close_to_pc(b, th);
	th->gone = 1;
	close_event(b, th);
	ptd_history_set_tail(th->h, th->exit_sys ? th->last_tail : 0);
	return rc;
}

static int bts_has_thread(const struct ptd_recorder *r, pid_t tid)
{
	return find(BR(r), tid) != NULL;
}

static int bts_resume(struct ptd_recorder *r, pid_t tid, int step, int signo)
{
	struct btsrec *b = BR(r);
	struct btsthread *th = find(b, tid);
	int sig = signo;

	if (signo == -1)
		sig = ptd_target_pending_signal(b->rec.env.t, tid);
	if (th && !step && sig > 0 && ptd_target_signal_caught(b->rec.env.t, tid, sig)) {
		/* The handler's entry leaves no record: step into it. */
		read_thread(b, th);
		close_to_pc(b, th);
		th->sig_step = 1;
		th->sig_no = sig;
		return b->k->ops->resume(b->k, tid, 1, signo);
	}
	return b->k->ops->resume(b->k, tid, step, signo);
}

/*
 * Where rt_sigreturn will go back to: the rip saved in the signal frame
 * the kernel just built (the thread is at the handler's first
 * instruction, the frame at its stack pointer: the restorer's address,
 * then the ucontext).  It differs from the pc at the signal stop when an
 * interrupted syscall is restarted (rip moved back onto the syscall).
 */
static uint64_t frame_rip(struct btsrec *b, struct btsthread *th)
{
	struct user_regs_struct regs;
	uint64_t rip = 0;

	if (ptd_target_get_regs(b->rec.env.t, th->tid, &regs) == 0 &&
	    ptd_target_read(b->rec.env.t,
			    regs.rsp + 8 + offsetof(ucontext_t, uc_mcontext.gregs[REG_RIP]), &rip,
			    sizeof(rip)) == (long)sizeof(rip) && rip && !ptd__kernel_addr(rip))
		return rip;
	return th->next;
}

static int bts_on_stop(struct ptd_recorder *r, const struct ptd_stop *st)
{
	struct btsrec *b = BR(r);
	struct btsthread *th = find(b, st->tid);
	int rc = b->k->ops->on_stop(b->k, st);

	if (rc == 0 && th && st->kind == PTD_STOP_EXITING)
		th->exit_sys = ptd__exit_syscall(b->rec.env.t, st);
	if (rc != 0 || !th || !th->sig_step)
		return rc;
	th->sig_step = 0;
	if (st->kind != PTD_STOP_STEP)
		return 0;
	/* At the handler's first instruction; the records before the
	 * signal were read at the resume. */
	read_thread(b, th);
	if (th->last_class == PTD_IC_OTHER)
		ptd_history_flag_last(th->h, PTD_BLK_INTERRUPTED);
	ptd_history_append_event(th->h, PTD_EV_SIGNAL, th->next, (uint64_t)th->sig_no);
	if (th->nsig < SIGSTACK)
		th->sig_stack[th->nsig++] = frame_rip(b, th);
	th->next = st->pc;
	th->known = 1;
	th->last_class = 0xff;
	ptd_history_set_tail(th->h, st->pc);
	rc = b->k->ops->resume(b->k, st->tid, 0, 0);
	return rc < 0 ? rc : 1;
}

static int bts_sync(struct ptd_recorder *r, pid_t tid)
{
	struct btsrec *b = BR(r);
	int rc = 0;

	for (int i = 0; i < b->nth; i++) {
		struct btsthread *th = &b->th[i];
		int e;

		if (th->gone || (tid && th->tid != tid))
			continue;
		e = read_thread(b, th);
		if (e < 0 && rc == 0)
			rc = e;
		close_to_pc(b, th);
	}
	return rc;
}

static int bts_drain(struct ptd_recorder *r, pid_t tid)
{
	struct btsrec *b = BR(r);
	struct btsthread *th = find(b, tid);

	return th ? read_thread(b, th) : 0;
}

static int bts_before_unmap(struct ptd_recorder *r, pid_t tid)
{
	struct btsrec *b = BR(r);
	int rc = bts_sync(r, 0);

	memset(b->cache, 0, sizeof(b->cache));
	return rc;
}

static int bts_exec(struct ptd_recorder *r, pid_t tid, uint64_t pc)
{
	struct btsrec *b = BR(r);
	struct btsthread *th = find(b, tid);

	if (!th)
		return 0;
	/* What ran before the execve, in the old program's image (it
	 * stays until here, see exec_seen). */
	read_thread(b, th);
	if (th->known && walk(b, th, th->next, 0, W_SYSCALL, NULL) != 0)
		gap(th, PTD_GAP_DECODE_ERROR,
		    "bts: the code before the exec of thread %d is gone; its last branch "
		    "records could not be placed",
		    (int)th->tid);
	exec_image(b);
	ptd_history_append_event(th->h, PTD_EV_EXEC, pc, 0);
	th->next = pc;
	th->known = 1;
	th->nsig = 0;
	th->last_class = 0xff;
	ptd_history_set_tail(th->h, pc);
	th->last_tail = pc;
	return 0;
}

static size_t bts_bytes(const struct ptd_recorder *r, pid_t tid)
{
	const struct btsthread *th = find(BR(r), tid);

	return th ? th->raw_cap : 0;
}

static uint64_t bts_next_ip(const struct ptd_recorder *r, pid_t tid)
{
	const struct btsthread *th = find(BR(r), tid);

	return th ? th->next : 0;
}

static void bts_stats(const struct ptd_recorder *r, struct ptd_recorder_stats *st)
{
	const struct btsrec *b = BR(r);

	memset(st, 0, sizeof(*st));
	snprintf(st->pmu, sizeof(st->pmu), "%s", b->pmu_name);
	st->buffer_size = b->size;
	for (int i = 0; i < b->nth; i++) {
		st->branches += b->th[i].records;
		st->trace_bytes += b->th[i].trace_bytes;
		st->lost_bytes += b->th[i].lost_bytes;
		st->wraps += b->th[i].wraps;
	}
}

static int bts_read_code(struct ptd_recorder *r, uint64_t addr, uint8_t *buf, size_t n)
{
	struct btsrec *b = BR(r);

	return b->img ? ptd_image_read(b->img, addr, buf, n) : -ptde_nomap;
}

static void bts_free(struct ptd_recorder *r)
{
	struct btsrec *b;

	if (!r)
		return;
	b = BR(r);
	for (int i = 0; i < b->nth; i++) {
		close_event(b, &b->th[i]);
		free(b->th[i].raw);
	}
	free(b->th);
	ptd_image_free(b->img);
	ptd_image_free(b->next_img);
	ptd_perf_kernel_free(b->k);
	free(b);
}

static const struct ptd_recorder_ops bts_ops = {
	.name = "bts",
	.start = bts_start,
	.stop = bts_stop,
	.add_thread = bts_add_thread,
	.thread_gone = bts_thread_gone,
	.has_thread = bts_has_thread,
	.resume = bts_resume,
	.on_stop = bts_on_stop,
	.sync = bts_sync,
	.drain = bts_drain,
	.before_unmap = bts_before_unmap,
	.exec = bts_exec,
	.bytes = bts_bytes,
	.next_ip = bts_next_ip,
	.stats = bts_stats,
	.read_code = bts_read_code,
	.free = bts_free,
};

struct ptd_recorder *ptd_btsrec_recorder(struct ptd_perf_kernel *k,
					 const struct ptd_recorder_env *env,
					 const struct ptd_btsrec_config *cfg)
{
	struct btsrec *b;
	long page = sysconf(_SC_PAGESIZE);
	char why[512], buf[32];
	uint64_t sz, pages;
	int rc;

	if (!k || !env || !env->t || !env->read_code) {
		ptd__err(-ptde_invalid, "bts recorder: missing kernel, target or code reader");
		ptd_perf_kernel_free(k);
		return NULL;
	}
	rc = ptd_btsrec_probe(k, why, sizeof(why));
	if (rc < 0) {
		ptd__err(rc, "cannot record with BTS: %s", why);
		ptd_perf_kernel_free(k);
		return NULL;
	}
	b = calloc(1, sizeof(*b));
	if (!b) {
		ptd_perf_kernel_free(k);
		ptd__err(-ptde_nomem, "out of memory");
		return NULL;
	}
	b->k = k;
	b->rec.ops = &bts_ops;
	b->rec.caps = k->simulated ? PTD_REC_SIMULATED : 0;
	b->rec.env = *env;
	b->rec.priv = b;
	if (cfg)
		b->cfg = *cfg;
	sz = b->cfg.buffer_size ? b->cfg.buffer_size
				: env->buffer_size ? env->buffer_size : DEFAULT_BTS;
	pages = sz / (uint64_t)page;
	if (!pages || (pages & (pages - 1)) || sz % (uint64_t)page) {
		ptd__err(-ptde_invalid,
			 "cannot use a BTS buffer of %llu bytes: it must be a power of two pages "
			 "(%ld bytes each)",
			 (unsigned long long)sz, page);
		bts_free(&b->rec);
		return NULL;
	}
	b->size = sz;
	if (k->ops->read_sysfs(k, "intel_bts/type", buf, sizeof(buf)) > 0) {
		b->aux_pmu = 1;
		b->aux_type = (uint32_t)strtoul(buf, NULL, 10);
	}
	ptd__perf_cpu(k, &b->cpu);
	snprintf(b->pmu_name, sizeof(b->pmu_name), "%s%s",
		 b->aux_pmu ? "intel_bts" : "bts (branch-instructions)",
		 k->simulated ? " (simulated)" : "");
	ptd_perf_kernel_set_target(k, env->t);
	return &b->rec;
}
