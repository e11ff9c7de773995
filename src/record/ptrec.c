/*
 * The Intel PT recorder (see ptrec.h): one perf event per thread on the
 * intel_pt PMU, its rings read at stops, the PT kept per thread and
 * decoded into the thread's history as it grows.
 *
 * Per thread the PT read so far is kept in one buffer (trace() gives it
 * for `record save`).  It is cut into *streams* where data was lost (a
 * circular AUX area wrapped, the kernel truncated a linear one, the
 * hardware overflowed): each loss is a gap in the history saying what was
 * lost and how to avoid it, and the next stream is decoded from its first
 * PSB on.  Inside a stream decoding is incremental and exact: the bytes
 * from the newest PSB decoded so far are decoded again at the next read
 * from the decoder state the bytes before that PSB ended in
 * (ptd_pt_decode_run), and the items already in the history are skipped,
 * so the history is what one continuous libipt decode of the stream gives
 * and nothing is appended twice.  At a stop the thread is in the kernel,
 * so user-only PT ends with tracing disabled there and the items decoded
 * so far never change when more trace follows.
 */
#include "record/ptrec_priv.h"

#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "decode/image.h"
#include "decode/pt.h"
#include "disasm/disasm.h"
#include "target/target.h"
#include "util/error.h"

#define DEFAULT_AUX (4ull << 20)
#define DATA_PAGES 16 /* sideband ring: 64 KiB */
#define MIN_AUX_PAGES 2



static struct ptrec *PR(const struct ptd_recorder *r)
{
	return r->priv;
}

static void notify(struct ptrec *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void notify(struct ptrec *p, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	if (!p->rec.env.notify)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	p->rec.env.notify(p->rec.env.ctx, msg);
}

static struct ptthread *find(const struct ptrec *p, pid_t tid)
{
	for (int i = 0; i < p->nth; i++)
		if (p->th[i].tid == tid && !p->th[i].gone)
			return &p->th[i];
	return NULL;
}

/* Any thread with @tid, also a gone one (trace()). */
static struct ptthread *find_any(const struct ptrec *p, pid_t tid)
{
	struct ptthread *th = find(p, tid);

	for (int i = p->nth; !th && i-- > 0;)
		if (p->th[i].tid == tid)
			th = &p->th[i];
	return th;
}

/* ---- the event --------------------------------------------------------------------------------- */

/* Sets an optional term; a refused one is an error with the reason. */
static int set_term(struct ptrec *p, struct perf_event_attr *a, const char *term, uint64_t v,
		    const char *option)
{
	int rc = ptd_perf_pmu_set(&p->pmu, a, term, v);

	if (rc == -ptde_unsupported)
		return ptd__err(-ptde_unsupported,
				"cannot use %s: the %s PMU has no '%s' format term", option,
				p->pmu.name, term);
	if (rc < 0)
		return ptd__err(rc, "cannot use %s: value %llu does not fit the '%s' term", option,
				(unsigned long long)v, term);
	return 0;
}

static int need_cap(struct ptrec *p, const char *cap, const char *option)
{
	if (ptd_perf_pmu_cap(&p->pmu, cap, 0))
		return 0;
	return ptd__err(-ptde_unsupported,
			"cannot use %s: this cpu's Intel PT does not support it (%s/caps/%s is 0 "
			"or missing)",
			option, p->pmu.name, cap);
}

static int build_attr(struct ptrec *p, struct perf_event_attr *a)
{
	const struct ptd_ptrec_config *c = &p->cfg;
	int rc;

	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->type = p->pmu.type;
	a->disabled = 1;
	a->exclude_kernel = !c->kernel;
	a->exclude_hv = 1;
	/* Sideband: executable mappings (MMAP2) and exec (COMM), with the
	 * time of each record. */
	a->mmap = 1;
	a->mmap2 = 1;
	a->comm = 1;
	a->comm_exec = 1;
	a->sample_id_all = 1;
	a->sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME;
	/* The terms perf's intel_pt//u sets too (pt, branch), when the PMU
	 * has them: older kernels have no "pt"/"branch" terms. */
	if (ptd_perf_pmu_set(&p->pmu, a, "pt", 1) == -ptde_invalid ||
	    ptd_perf_pmu_set(&p->pmu, a, "branch", 1) == -ptde_invalid)
		return ptd__err(-ptde_internal, "the intel_pt format terms are malformed");
	if (c->ret_compression == 0) {
		rc = set_term(p, a, "noretcomp", 1, "return compression off");
		if (rc < 0)
			return rc;
	}
	if (c->tsc > 0) {
		rc = set_term(p, a, "tsc", 1, "TSC packets");
		if (rc < 0)
			return rc;
	}
	if (c->mtc > 0) {
		rc = need_cap(p, "mtc", "MTC packets");
		if (rc == 0)
			rc = set_term(p, a, "mtc", 1, "MTC packets");
		if (rc < 0)
			return rc;
	}
	if (c->cyc > 0) {
		rc = need_cap(p, "psb_cyc", "CYC packets");
		if (rc == 0)
			rc = set_term(p, a, "cyc", 1, "CYC packets");
		if (rc < 0)
			return rc;
	}
	if (c->psb_period >= 0) {
		uint64_t periods = ptd_perf_pmu_cap(&p->pmu, "psb_periods", 0);

		rc = need_cap(p, "psb_cyc", "a PSB period");
		if (rc == 0 && c->psb_period < 64 && periods && !(periods >> c->psb_period & 1))
			rc = ptd__err(-ptde_unsupported,
				      "cannot use PSB period %d: this cpu allows the values in "
				      "the bit mask 0x%llx (%s/caps/psb_periods)",
				      c->psb_period, (unsigned long long)periods, p->pmu.name);
		if (rc == 0)
			rc = set_term(p, a, "psb_period", (uint64_t)c->psb_period, "a PSB period");
		if (rc < 0)
			return rc;
	}
	if (c->linear)
		a->aux_watermark = (uint32_t)(p->aux_size / 2);
	return 0;
}

static void close_event(struct ptrec *p, struct ptthread *th)
{
	if (th->aux)
		p->k->ops->munmap(p->k, th->aux, th->aux_len);
	if (th->base)
		p->k->ops->munmap(p->k, th->base, th->base_len);
	if (th->fd >= 0)
		p->k->ops->close(p->k, th->fd);
	th->aux = th->base = NULL;
	th->fd = -1;
}

/* Maps the rings of @th's event; on ENOMEM halves the AUX size (for this
 * and later threads) and says so. */
static int map_rings(struct ptrec *p, struct ptthread *th)
{
	long page = sysconf(_SC_PAGESIZE);
	volatile struct perf_event_mmap_page *pg;
	int err = 0;

	th->base_len = (size_t)page * (1 + DATA_PAGES);
	th->base = p->k->ops->mmap(p->k, th->fd, th->base_len, PROT_READ | PROT_WRITE, 0, &err);
	if (!th->base)
		return ptd__perf_errmsg(p->k, -err, "map the perf data ring", th->tid, "intel_pt");
	pg = th->base;
	for (;;) {
		int prot = p->cfg.linear ? PROT_READ | PROT_WRITE : PROT_READ;

		pg->aux_offset = th->base_len;
		pg->aux_size = p->aux_size;
		th->aux_len = p->aux_size;
		th->aux = p->k->ops->mmap(p->k, th->fd, th->aux_len, prot, (off_t)th->base_len, &err);
		if (th->aux)
			break;
		if ((err == -ENOMEM || err == -EPERM) &&
		    p->aux_size / 2 >= (uint64_t)page * MIN_AUX_PAGES) {
			p->aux_size /= 2;
			notify(p,
			       "warning: cannot map a %llu KiB Intel PT buffer for thread %d (%s); "
			       "using %llu KiB (raise kernel.perf_event_mlock_kb, or set a smaller "
			       "buffer size)",
			       (unsigned long long)(p->aux_size * 2 / 1024), (int)th->tid,
			       err == -ENOMEM ? "out of memory" : "over the locked-memory limit",
			       (unsigned long long)(p->aux_size / 1024));
			continue;
		}
		return ptd__perf_errmsg(p->k, -err, "map the Intel PT buffer", th->tid, "intel_pt");
	}
	if (ptd_perf_ring_init(&th->ring, th->base, th->base_len, 1) < 0 ||
	    ptd_perf_aux_init(&th->auxr, pg, th->aux, p->aux_size, p->cfg.linear) < 0)
		return ptd__err(-ptde_internal, "cannot read the rings of thread %d", (int)th->tid);
	return 0;
}

/* Address filters: perf's syntax, one ioctl with all of them. */
static int set_filters(struct ptrec *p, struct ptthread *th)
{
	char buf[1024];
	size_t len = 0;
	uint64_t ranges;
	int rc;

	if (!p->cfg.nfilters)
		return 0;
	ranges = ptd_perf_pmu_cap(&p->pmu, "num_address_ranges", 0);
	if ((uint64_t)p->cfg.nfilters > ranges)
		return ptd__err(-ptde_unsupported,
				"cannot set %d address filters: this cpu's Intel PT has %llu address "
				"ranges (%s/caps/num_address_ranges)",
				p->cfg.nfilters, (unsigned long long)ranges, p->pmu.name);
	for (int i = 0; i < p->cfg.nfilters; i++) {
		const char *f = p->cfg.filters[i];
		int n;

		if (!f || !*f)
			return ptd__err(-ptde_invalid, "empty address filter");
		n = snprintf(buf + len, sizeof(buf) - len, "%s%s", len ? " " : "", f);
		if (n < 0 || (size_t)n >= sizeof(buf) - len)
			return ptd__err(-ptde_invalid, "the address filters are too long");
		len += (size_t)n;
	}
	rc = p->k->ops->ioctl(p->k, th->fd, PERF_EVENT_IOC_SET_FILTER, (unsigned long)buf);
	if (rc < 0) {
		if (rc == -EINVAL)
			return ptd__err(-ptde_invalid,
					"cannot set the address filter '%s' for thread %d: invalid "
					"argument (perf's syntax is 'filter START/SIZE@FILE'; FILE "
					"must be mapped executable)",
					buf, (int)th->tid);
		return ptd__perf_errmsg(p->k, -rc, "set the address filters", th->tid, "intel_pt");
	}
	return 0;
}

static int open_event(struct ptrec *p, struct ptthread *th)
{
	struct perf_event_attr a;
	int rc, fd;

	rc = build_attr(p, &a);
	if (rc < 0)
		return rc;
	fd = p->k->ops->open(p->k, &a, th->tid, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return ptd__perf_errmsg(p->k, -fd, "open the intel_pt event", th->tid, "intel_pt");
	th->fd = fd;
	rc = map_rings(p, th);
	if (rc == 0)
		rc = set_filters(p, th);
	if (rc == 0 && p->cfg.linear) {
		/* Watermark wake-ups: the kernel sends SIGIO to the thread
		 * when the AUX area is half full; on_stop drains it and keeps
		 * the signal from the program.  Without them (an old kernel)
		 * the area is drained at stops only. */
		struct f_owner_ex own = { F_OWNER_TID, th->tid };
		int e = p->k->ops->fcntl(p->k, fd, F_SETOWN_EX, (long)&own);
		/* Without F_SETOWN_EX the signal goes to the process; si_fd
		 * still says whose event it is. */
		if (e == -EINVAL)
			e = p->k->ops->fcntl(p->k, fd, F_SETOWN, th->tid);
		if (e >= 0)
			e = p->k->ops->fcntl(p->k, fd, F_SETSIG, SIGIO);
		if (e >= 0)
			e = p->k->ops->fcntl(p->k, fd, F_SETFL, O_ASYNC);
		if (e < 0)
			notify(p,
			       "warning: no watermark wake-ups for thread %d (%s): the Intel PT "
			       "buffer is drained at stops only",
			       (int)th->tid, strerror(-e));
	}
	if (rc == 0 && !p->stopped) {
		rc = p->k->ops->ioctl(p->k, fd, PERF_EVENT_IOC_ENABLE, 0);
		if (rc < 0)
			rc = ptd__perf_errmsg(p->k, -rc, "enable the intel_pt event", th->tid,
					      "intel_pt");
	}
	if (rc < 0)
		close_event(p, th);
	return rc;
}

/* ---- the image --------------------------------------------------------------------------------- */

struct ptd_image *ptd__ptrec_image(struct ptrec *p)
{
	if (p->img && !p->img_stale)
		return p->img;
	ptd_image_free(p->img);
	p->img = ptd_image_alloc(p->rec.env.read_code, p->rec.env.ctx);
	p->img_stale = 0;
	if (!p->img)
		return NULL;
	if (p->rec.env.t && ptd_target_alive(p->rec.env.t))
		ptd_image_add_maps(p->img, ptd_target_pid(p->rec.env.t));
	if (ptd__cpu_is_intel(&p->cpu) && p->cpu.family) {
		struct ptd_cpu c = { (uint16_t)p->cpu.family, (uint8_t)p->cpu.model,
				     (uint8_t)p->cpu.stepping };
		ptd_image_set_cpu(p->img, &c); /* unknown to libipt: no errata, fine */
	}
	return p->img;
}

/* Does [@addr, @addr+@len) meet a mapping of @img? */
static int overlaps(struct ptd_image *img, uint64_t addr, uint64_t len)
{
	for (size_t i = 0; i < ptd_image_nmaps(img); i++) {
		const struct ptd_image_map *m = ptd_image_map(img, i);
		if (addr < m->vaddr + m->size && m->vaddr < addr + len)
			return !(m->vaddr == addr && m->size == len); /* the same one again: fine */
	}
	return 0;
}

/* ---- reading the rings ------------------------------------------------------------------------- */

struct sbctx {
	struct ptrec *p;
	struct ptthread *th;
};

static void add_loss(struct ptthread *th, uint64_t pos, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void add_loss(struct ptthread *th, uint64_t pos, const char *fmt, ...)
{
	va_list ap;
	struct loss *l;

	if (th->nloss == (int)(sizeof(th->loss) / sizeof(th->loss[0]))) {
		l = &th->loss[th->nloss - 1]; /* merge into the newest */
	} else {
		l = &th->loss[th->nloss++];
	}
	l->pos = pos;
	va_start(ap, fmt);
	vsnprintf(l->msg, sizeof(l->msg), fmt, ap);
	va_end(ap);
}

/*
 * A new executable mapping (PERF_RECORD_MMAP2, or MMAP on old kernels).
 * A file mapping goes into the image at once, read from the file as perf
 * does: the trace before it never ran there (unless it replaced other
 * code at the same addresses, which then needs the old image: the rebuild
 * waits until the trace before it is decoded), and the code stays
 * readable after an exec or munmap took it out of the process.  Other
 * code (anonymous, the vdso) is read through env.read_code.
 */
static void new_mapping(struct ptrec *p, const struct perf_event_header *h, const uint8_t *b)
{
	uint64_t addr, len, pgoff;
	uint32_t prot = PROT_EXEC;
	size_t fn = h->type == PERF_RECORD_MMAP2 ? 72 : 40, end = h->size;
	char path[4096];
	size_t i;

	if (h->size < fn + 1)
		return;
	memcpy(&addr, b + 16, 8);
	memcpy(&len, b + 24, 8);
	memcpy(&pgoff, b + 32, 8);
	if (h->type == PERF_RECORD_MMAP2)
		memcpy(&prot, b + 64, 4);
	if (!(prot & PROT_EXEC) || p->exec_seen)
		return;
	for (i = 0; fn + i < end && i + 1 < sizeof(path) && b[fn + i]; i++)
		path[i] = (char)b[fn + i];
	path[i] = 0;
	if (path[0] != '/' || !p->img || p->img_stale) {
		if (path[0] == '/')
			p->img_pending = 1;
		return;
	}
	if (overlaps(p->img, addr, len) || ptd_image_add_file(p->img, path, pgoff, len, addr) < 0)
		p->img_pending = 1;
}

static int sideband(void *ctx, const struct perf_event_header *h, const void *rec)
{
	struct sbctx *c = ctx;
	struct ptthread *th = c->th;
	const uint8_t *b = rec;

	switch (h->type) {
	case PERF_RECORD_AUX: {
		uint64_t off, size, flags;

		if (h->size < sizeof(*h) + 24)
			return 0;
		memcpy(&off, b + 8, 8);
		memcpy(&size, b + 16, 8);
		memcpy(&flags, b + 24, 8);
		if (flags & PERF_AUX_FLAG_TRUNCATED)
			th->truncated = 1;
		if (flags & PERF_AUX_FLAG_TRUNCATED)
			add_loss(th, off + size,
				 "trace lost: the Intel PT buffer of thread %d was full at offset %llu "
				 "and the kernel stopped tracing until it was read; use a bigger "
				 "buffer (set record pt buffer-size) or drain more often",
				 (int)th->tid, (unsigned long long)(off + size));
		if (flags & PERF_AUX_FLAG_PARTIAL)
			add_loss(th, off + size,
				 "trace lost: the hardware wrote a partial record of %llu bytes at "
				 "offset %llu for thread %d (its output stopped mid-buffer); use a "
				 "bigger buffer",
				 (unsigned long long)size, (unsigned long long)off, (int)th->tid);
		if (flags & PERF_AUX_FLAG_COLLISION)
			add_loss(th, off + size,
				 "trace lost: the Intel PT data of thread %d at offset %llu collided "
				 "with other data in the buffer; use a bigger buffer",
				 (int)th->tid, (unsigned long long)off);
		/* OVERWRITE alone is what a circular area does: the wrap is
		 * found when it is read. */
		break;
	}
	case PERF_RECORD_LOST: {
		uint64_t lost = 0;

		if (h->size >= sizeof(*h) + 16)
			memcpy(&lost, b + 16, 8);
		/* Sideband records (mappings) were lost: the image may miss
		 * code, so build it again from the process's maps. */
		c->p->img_pending = 1;
		notify(c->p,
		       "warning: %llu perf sideband records of thread %d were lost; the "
		       "process image is read again from /proc",
		       (unsigned long long)lost, (int)th->tid);
		break;
	}
	case PERF_RECORD_MMAP2:
	case PERF_RECORD_MMAP:
		new_mapping(c->p, h, b);
		break;
	case PERF_RECORD_COMM:
		if (h->misc & PERF_RECORD_MISC_COMM_EXEC) {
			/* Mappings after it are the new program's: the image
			 * is read again once the trace before it is decoded. */
			c->p->exec_seen = 1;
			c->p->img_pending = 1;
		}
		break;
	case PERF_RECORD_ITRACE_START:
	default:
		break;
	}
	return 0;
}

/* Appends @n new bytes (already at the end of th->pt) to the current
 * stream, cutting it at the losses that fall inside. */
static int take_bytes(struct ptrec *p, struct ptthread *th, uint64_t first_pos, size_t n)
{
	int rc = 0;

	/* Losses are sorted by position as the kernel reported them. */
	for (int i = 0; i < th->nloss; i++) {
		struct loss *l = &th->loss[i];
		size_t cut;

		if (l->pos > first_pos + n) {
			/* Later data: keep it for the next read. */
			memmove(th->loss, l, (size_t)(th->nloss - i) * sizeof(*l));
			th->nloss -= i;
			return rc;
		}
		cut = l->pos > first_pos ? (size_t)(l->pos - first_pos) : 0;
		/* Bytes after the cut belong to the next stream. */
		{
			size_t keep = th->pt_size;
			th->pt_size -= n - cut;
			int e = ptd__ptrec_end_stream(p, th, l->msg);
			if (e < 0 && rc == 0)
				rc = e;
			th->pt_size = keep;
			th->s_start = keep - (n - cut);
		}
	}
	th->nloss = 0;
	return rc;
}

/* Reads what the rings of @th hold now; decodes when @decode. */
static int read_thread(struct ptrec *p, struct ptthread *th, int decode)
{
	struct sbctx c = { p, th };
	uint64_t lost = 0, head, before;
	size_t old = th->pt_size;
	int wrapped = 0, rc = 0;
	long got;

	if (th->fd < 0 || !th->base)
		return decode ? ptd__ptrec_decode_stream(p, th, 0) : 0;
	/* A simulated kernel writes what it staged for the thread now. */
	if (p->k->ops->sync) {
		rc = p->k->ops->sync(p->k, th->tid);
		if (rc < 0)
			return rc;
	}
	rc = ptd_perf_ring_read(&th->ring, sideband, &c, &lost);
	if (rc < 0)
		notify(p, "warning: cannot read the perf sideband of thread %d: %s", (int)th->tid,
		       ptd_last_error(rc));
	rc = 0;
	if (lost)
		p->img_pending = 1;
	before = th->auxr.tail;
	head = __atomic_load_n(&th->auxr.pg->aux_head, __ATOMIC_ACQUIRE);
	got = ptd_perf_aux_read(&th->auxr, &th->pt, &th->pt_size, &th->pt_cap, &wrapped);
	if (got < 0)
		return (int)got;
	th->trace_bytes += (uint64_t)got;
	if (th->truncated && !p->stopped && !th->gone) {
		/* A full linear area stopped the event; now there is room.
		 * (Enabling an enabled event does nothing.) */
		int e = p->k->ops->ioctl(p->k, th->fd, PERF_EVENT_IOC_ENABLE, 0);
		if (e < 0)
			notify(p, "warning: cannot enable the intel_pt event of thread %d again: %s",
			       (int)th->tid, strerror(-e));
	}
	th->truncated = 0;
	if (wrapped) {
		/* The oldest data was overwritten: what is left starts
		 * mid-packet and decodes from its first PSB. */
		uint64_t over = head > before + th->auxr.size ? head - before - th->auxr.size : 0;
		char msg[300];

		th->wraps++;
		th->lost_bytes += over;
		snprintf(msg, sizeof(msg),
			 "trace lost: the circular Intel PT buffer of thread %d (%llu KiB) "
			 "wrapped and %llu bytes of older trace were overwritten; use a bigger "
			 "buffer (set record pt buffer-size) or --pt-buffer=full",
			 (int)th->tid, (unsigned long long)(th->auxr.size / 1024),
			 (unsigned long long)over);
		/* The stream before ends where the old bytes end. */
		{
			size_t keep = th->pt_size;
			th->pt_size = old;
			rc = ptd__ptrec_end_stream(p, th, msg);
			th->pt_size = keep;
			th->s_start = old;
		}
		th->nloss = 0; /* what they said is inside the overwritten part */
	} else if (got > 0 || th->nloss) {
		int e = take_bytes(p, th, th->aux_pos, (size_t)got);
		if (e < 0 && rc == 0)
			rc = e;
	}
	th->aux_pos = head;
	if (decode) {
		int e = ptd__ptrec_decode_stream(p, th, 0);
		if (e < 0 && rc == 0)
			rc = e;
		if (p->img_pending) {
			p->img_stale = 1;
			p->img_pending = 0;
		}
		p->exec_seen = 0;
	}
	return rc;
}

static void set_tail(struct ptrec *p, struct ptthread *th)
{
	uint64_t pc = 0;

	if (!th->gone && ptd_target_get_pc(p->rec.env.t, th->tid, &pc) < 0)
		pc = 0;
	if (th->exit_trimmed)
		pc = th->exit_sys; /* the pc is past it, which never returns */
	ptd_history_set_tail(th->h, pc);
	th->last_tail = pc;
}

/* ---- ops --------------------------------------------------------------------------------------- */

static int pt_start(struct ptd_recorder *r)
{
	struct ptrec *p = PR(r);
	int rc = 0;

	p->started = 1;
	p->stopped = 0;
	/* The image of the code as it is when tracing starts. */
	if (!ptd__ptrec_image(p))
		return ptd__err(-ptde_nomem, "out of memory for the process image");
	for (int i = 0; i < p->nth && rc == 0; i++) {
		struct ptthread *th = &p->th[i];
		if (th->gone)
			continue;
		if (th->fd < 0)
			rc = open_event(p, th);
		else if ((rc = p->k->ops->ioctl(p->k, th->fd, PERF_EVENT_IOC_ENABLE, 0)) < 0)
			rc = ptd__perf_errmsg(p->k, -rc, "enable the intel_pt event", th->tid,
					      "intel_pt");
	}
	return rc;
}

static int pt_stop(struct ptd_recorder *r)
{
	struct ptrec *p = PR(r);

	for (int i = 0; i < p->nth; i++) {
		struct ptthread *th = &p->th[i];
		if (th->fd >= 0)
			p->k->ops->ioctl(p->k, th->fd, PERF_EVENT_IOC_DISABLE, 0);
	}
	p->stopped = 1;
	return 0;
}

static int pt_add_thread(struct ptd_recorder *r, pid_t tid, struct ptd_history *h, uint64_t pc)
{
	struct ptrec *p = PR(r);
	struct ptthread *th;
	int rc = 0;

	if (!h)
		return -ptde_invalid;
	if (find(p, tid))
		return ptd__err(-ptde_busy, "thread %d is recorded already", (int)tid);
	if (p->nth == p->cap) {
		int cap = p->cap ? 2 * p->cap : 8;
		struct ptthread *n = realloc(p->th, (size_t)cap * sizeof(*n));
		if (!n)
			return -ptde_nomem;
		p->th = n;
		p->cap = cap;
	}
	th = &p->th[p->nth];
	memset(th, 0, sizeof(*th));
	th->tid = tid;
	th->h = h;
	th->fd = -1;
	ptd_pt_state_init(&th->s_state);
	if (p->started) {
		rc = open_event(p, th);
		if (rc < 0)
			return rc;
	}
	p->nth++;
	ptd_history_set_tail(h, pc);
	th->last_tail = pc;
	return 0;
}

static int pt_thread_gone(struct ptd_recorder *r, pid_t tid)
{
	struct ptrec *p = PR(r);
	struct ptthread *th = find(p, tid);
	int rc;

	if (!th)
		return -ptde_notfound;
	rc = read_thread(p, th, 1);
	th->gone = 1;
	close_event(p, th);
	/* A thread that ended in a syscall (exit) ends before it, as the
	 * step recorder's does. */
	ptd_history_set_tail(th->h, th->exit_trimmed ? th->exit_sys : 0);
	return rc;
}

static int pt_has_thread(const struct ptd_recorder *r, pid_t tid)
{
	return find(PR(r), tid) != NULL;
}

static int pt_resume(struct ptd_recorder *r, pid_t tid, int step, int signo)
{
	struct ptrec *p = PR(r);

	return p->k->ops->resume(p->k, tid, step, signo);
}

/*
 * A watermark wake-up of one of our events (linear areas): the kernel's
 * SIGIO carries si_fd (F_SETSIG).  A SIGIO sent by ptdbg's own process
 * (a simulated kernel that could not queue the siginfo) is ours too:
 * nothing else here sends the program signals.  Returns the thread whose
 * event it is, or NULL; *@all when it cannot tell which.
 */
static struct ptthread *watermark_of(struct ptrec *p, const struct ptd_stop *st, int *all)
{
	*all = 0;
	if (st->kind != PTD_STOP_SIGNAL || st->signo != SIGIO)
		return NULL;
	if (st->si.si_code > 0) {
		for (int i = 0; i < p->nth; i++)
			if (!p->th[i].gone && p->th[i].fd >= 0 && p->th[i].fd == st->si.si_fd)
				return &p->th[i];
		return NULL;
	}
	if ((st->si.si_code == SI_USER || st->si.si_code == SI_QUEUE) &&
	    st->si.si_pid == getpid()) {
		for (int i = 0; i < p->nth; i++)
			if (!p->th[i].gone && p->th[i].fd >= 0) {
				*all = 1;
				return &p->th[i];
			}
	}
	return NULL;
}

static int pt_on_stop(struct ptd_recorder *r, const struct ptd_stop *st)
{
	struct ptrec *p = PR(r);
	int all = 0;
	struct ptthread *th = p->cfg.linear ? watermark_of(p, st, &all) : NULL;

	if (st->kind == PTD_STOP_EXITING) {
		struct ptthread *x = find(p, st->tid);

		if (x && !x->gone)
			x->exit_sys = ptd__exit_syscall(p->rec.env.t, st);
	}
	if (th) {
		/* Ours: drain, and resume the thread without the signal. */
		for (int i = 0; i < p->nth; i++) {
			struct ptthread *d = &p->th[i];
			int rc;

			if (d->gone || (!all && d != th))
				continue;
			rc = read_thread(p, d, 0);
			if (rc < 0)
				notify(p, "warning: cannot drain the Intel PT of thread %d: %s",
				       (int)d->tid, ptd_last_error(rc));
		}
		int rc = p->k->ops->resume(p->k, st->tid, 0, 0);
		return rc < 0 ? rc : 1;
	}
	return p->k->ops->on_stop(p->k, st);
}

static int pt_sync(struct ptd_recorder *r, pid_t tid)
{
	struct ptrec *p = PR(r);
	int rc = 0;

	for (int i = 0; i < p->nth; i++) {
		struct ptthread *th = &p->th[i];
		int e;

		if (th->gone || (tid && th->tid != tid))
			continue;
		if (ptd_target_thread_state(p->rec.env.t, th->tid) == PTD_THREAD_RUNNING) {
			/* Its trace does not end with the thread in the kernel
			 * yet: read it, decode it when the thread stopped. */
			e = read_thread(p, th, 0);
			if (e < 0 && rc == 0)
				rc = e;
			continue;
		}
		e = read_thread(p, th, 1);
		if (e < 0 && rc == 0)
			rc = e;
		set_tail(p, th);
	}
	return rc;
}

static int pt_drain(struct ptd_recorder *r, pid_t tid)
{
	struct ptrec *p = PR(r);
	struct ptthread *th = find(p, tid);

	/* A circular area is a flight recorder: read at the stops the user
	 * sees.  A linear one must be emptied before it fills. */
	if (!th || !p->cfg.linear)
		return 0;
	return read_thread(p, th, 0);
}

static int pt_before_unmap(struct ptd_recorder *r, pid_t tid)
{
	struct ptrec *p = PR(r);
	int rc = 0;

	/* Decode everything recorded so far while the code is mapped. */
	for (int i = 0; i < p->nth; i++) {
		struct ptthread *th = &p->th[i];
		if (th->gone)
			continue;
		int e = read_thread(p, th, 1);
		if (e < 0 && rc == 0)
			rc = e;
	}
	p->img_stale = 1;
	return rc;
}

static int pt_exec(struct ptd_recorder *r, pid_t tid, uint64_t pc)
{
	struct ptrec *p = PR(r);
	struct ptthread *th = find(p, tid);
	int rc = 0;

	/* Everything up to the exec stop ran in the old image (the thread
	 * has not been back in user mode since execve): decode it with the
	 * image we have, then read the new one. */
	if (th)
		rc = read_thread(p, th, 1);
	if (th && th->pt_size > th->s_start) {
		/* Decoding the trace after the exec from the last PSB before
		 * it would walk the old program's part again with the new
		 * program's code: the new program's trace decodes from its
		 * first PSB on, and what comes before that is a gap. */
		ptd__ptrec_reset_stream(th);
		th->s_lead_why = "cannot decode the trace after the exec up to its first PSB "
				 "(it continues packets of the old program; a smaller PSB period "
				 "makes this shorter)";
	}
	p->img_stale = 1;
	p->img_pending = 0;
	p->exec_seen = 0;
	if (th) {
		ptd_history_append_event(th->h, PTD_EV_EXEC, pc, 0);
		ptd_history_set_tail(th->h, pc);
	}
	return rc;
}

static size_t pt_bytes(const struct ptd_recorder *r, pid_t tid)
{
	const struct ptthread *th = find_any(PR(r), tid);

	return th ? th->pt_cap : 0;
}

static const uint8_t *pt_trace(struct ptd_recorder *r, pid_t tid, size_t *size)
{
	struct ptthread *th = find_any(PR(r), tid);

	if (size)
		*size = th ? th->pt_size : 0;
	return th ? th->pt : NULL;
}

static uint64_t pt_next_ip(const struct ptd_recorder *r, pid_t tid)
{
	const struct ptthread *th = find(PR(r), tid);

	return th ? th->last_tail : 0;
}

static void pt_stats(const struct ptd_recorder *r, struct ptd_recorder_stats *st)
{
	const struct ptrec *p = PR(r);

	memset(st, 0, sizeof(*st));
	snprintf(st->pmu, sizeof(st->pmu), "%s", p->pmu_name);
	st->buffer_size = p->aux_size;
	for (int i = 0; i < p->nth; i++) {
		st->trace_bytes += p->th[i].trace_bytes;
		st->lost_bytes += p->th[i].lost_bytes;
		st->wraps += p->th[i].wraps;
	}
}

static int pt_read_code(struct ptd_recorder *r, uint64_t addr, uint8_t *buf, size_t n)
{
	struct ptrec *p = PR(r);

	/* the image as it is (a rebuild from /proc would lose what is
	 * unmapped now) */
	return p->img ? ptd_image_read(p->img, addr, buf, n) : -ptde_nomap;
}

static void pt_free(struct ptd_recorder *r)
{
	struct ptrec *p;

	if (!r)
		return;
	p = PR(r);
	for (int i = 0; i < p->nth; i++) {
		close_event(p, &p->th[i]);
		free(p->th[i].pt);
	}
	free(p->th);
	for (int i = 0; i < p->cfg.nfilters; i++)
		free(p->cfg.filters[i]);
	ptd_image_free(p->img);
	ptd_perf_kernel_free(p->k);
	free(p);
}

static const struct ptd_recorder_ops pt_ops = {
	.name = "pt",
	.start = pt_start,
	.stop = pt_stop,
	.add_thread = pt_add_thread,
	.thread_gone = pt_thread_gone,
	.has_thread = pt_has_thread,
	.resume = pt_resume,
	.on_stop = pt_on_stop,
	.sync = pt_sync,
	.drain = pt_drain,
	.before_unmap = pt_before_unmap,
	.exec = pt_exec,
	.bytes = pt_bytes,
	.next_ip = pt_next_ip,
	.trace = pt_trace,
	.stats = pt_stats,
	.read_code = pt_read_code,
	.free = pt_free,
};

struct ptd_recorder *ptd_ptrec_recorder(struct ptd_perf_kernel *k, const struct ptd_recorder_env *env,
					const struct ptd_ptrec_config *cfg)
{
	struct ptrec *p;
	char why[512];
	long page = sysconf(_SC_PAGESIZE);
	int rc;

	if (!k || !env || !env->t || !env->read_code) {
		ptd__err(-ptde_invalid, "pt recorder: missing kernel, target or code reader");
		ptd_perf_kernel_free(k);
		return NULL;
	}
	rc = ptd_ptrec_probe(k, why, sizeof(why));
	if (rc < 0) {
		ptd__err(rc, "cannot record with Intel PT: %s", why);
		ptd_perf_kernel_free(k);
		return NULL;
	}
	if (cfg && cfg->kernel && ptd__perf_check_paranoid(k, 1, why, sizeof(why)) < 0) {
		ptd__err(-ptde_perm, "cannot trace the kernel with Intel PT: %s", why);
		ptd_perf_kernel_free(k);
		return NULL;
	}
	p = calloc(1, sizeof(*p));
	if (!p) {
		ptd_perf_kernel_free(k);
		ptd__err(-ptde_nomem, "out of memory");
		return NULL;
	}
	p->k = k;
	p->rec.ops = &pt_ops;
	p->rec.caps = PTD_REC_WRITES_PT | (k->simulated ? PTD_REC_SIMULATED : 0);
	p->rec.env = *env;
	p->rec.priv = p;
	if (cfg) {
		p->cfg = *cfg;
		p->cfg.nfilters = 0;
		for (int i = 0; i < cfg->nfilters && i < PTD_PT_FILTERS_MAX; i++) {
			p->cfg.filters[i] = cfg->filters[i] ? strdup(cfg->filters[i]) : NULL;
			p->cfg.nfilters++;
		}
	} else {
		p->cfg.ret_compression = p->cfg.tsc = p->cfg.mtc = p->cfg.cyc = -1;
		p->cfg.psb_period = -1;
	}
	if (p->cfg.buffer_size == 0)
		p->cfg.buffer_size = env->buffer_size ? env->buffer_size : DEFAULT_AUX;
	{
		uint64_t sz = p->cfg.buffer_size, pages = (sz + (uint64_t)page - 1) / (uint64_t)page;
		if (pages < MIN_AUX_PAGES || (pages & (pages - 1)) || sz % (uint64_t)page) {
			ptd__err(-ptde_invalid,
				 "cannot use an Intel PT buffer of %llu bytes: it must be a power of "
				 "two pages (%ld bytes each), at least %d pages",
				 (unsigned long long)sz, page, MIN_AUX_PAGES);
			pt_free(&p->rec);
			return NULL;
		}
		p->aux_size = sz;
	}
	rc = ptd_perf_pmu_read(k, "intel_pt", &p->pmu);
	if (rc < 0) {
		pt_free(&p->rec);
		return NULL;
	}
	{
		/* Options are checked now, not at the first thread. */
		struct perf_event_attr a;
		rc = build_attr(p, &a);
		if (rc < 0) {
			pt_free(&p->rec);
			return NULL;
		}
		if (p->cfg.nfilters &&
		    (uint64_t)p->cfg.nfilters > ptd_perf_pmu_cap(&p->pmu, "num_address_ranges", 0)) {
			ptd__err(-ptde_unsupported,
				 "cannot set %d address filters: this cpu's Intel PT has %llu address "
				 "ranges (intel_pt/caps/num_address_ranges)",
				 p->cfg.nfilters,
				 (unsigned long long)ptd_perf_pmu_cap(&p->pmu, "num_address_ranges", 0));
			pt_free(&p->rec);
			return NULL;
		}
	}
	ptd__perf_cpu(k, &p->cpu);
	snprintf(p->pmu_name, sizeof(p->pmu_name), "intel_pt%s", k->simulated ? " (simulated)" : "");
	ptd_perf_kernel_set_target(k, env->t);
	return &p->rec;
}
