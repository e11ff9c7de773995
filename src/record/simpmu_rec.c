/*
 * The simulated perf kernel: the records it writes into an event's data
 * ring and the trace into its AUX area, laid out as the kernel lays them
 * out (perf_output_begin's space check against data_tail and the
 * PERF_RECORD_LOST it owes, sample_id_all trailers, PERF_RECORD_AUX with
 * its flags, ITRACE_START, MMAP/MMAP2 from /proc/PID/maps), and the
 * wake-ups (wakeup_events/wakeup_watermark, aux_watermark) that signal
 * the owner set with F_SETOWN/F_SETSIG/O_ASYNC.  See simpmu.h.
 */
#include "record/simpmu.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "target/target.h"

/* ---- records --------------------------------------------------------------------------------- */

/* The sample_id trailer of sample_id_all (__perf_event_header__init_id). */
static size_t sample_id(const struct sim_event *e, uint64_t *out)
{
	uint64_t t = e->attr.sample_type;
	size_t n = 0;

	if (!e->attr.sample_id_all)
		return 0;
	if (t & PERF_SAMPLE_TID)
		out[n++] = (uint64_t)(uint32_t)e->tid << 32 | (uint32_t)e->pid;
	if (t & PERF_SAMPLE_TIME)
		out[n++] = 0;
	if (t & PERF_SAMPLE_ID)
		out[n++] = e->id;
	if (t & PERF_SAMPLE_STREAM_ID)
		out[n++] = e->id;
	if (t & PERF_SAMPLE_CPU)
		out[n++] = 0;
	if (t & PERF_SAMPLE_IDENTIFIER)
		out[n++] = e->id;
	return n * 8;
}

size_t ptd__sim_sample_id(const struct sim_event *e, uint64_t *out)
{
	return sample_id(e, out);
}

static void signal_owner(struct sim *s, struct sim_event *e)
{
	int sig = e->sig ? e->sig : SIGIO;

	if (!e->async || !e->owner)
		return;
	s->st.signals++;
	if (e->sig) {
		/* F_SETSIG: a queued signal with si_fd, as the kernel sends it. */
		siginfo_t si;
		memset(&si, 0, sizeof(si));
		si.si_signo = sig;
		si.si_code = POLL_IN;
		si.si_fd = e->fd;
		si.si_band = (POLLIN | POLLRDNORM);
		if (syscall(SYS_rt_sigqueueinfo, e->owner, sig, &si) == 0)
			return;
	}
	kill(e->owner, sig);
}

void ptd__sim_wakeup_check(struct sim *s, struct sim_event *e)
{
	volatile struct perf_event_mmap_page *pg = ptd__sim_upage(e);
	uint64_t wm, head;
	int wake = 0;

	if (!pg)
		return;
	head = pg->data_head;
	wm = e->attr.watermark && e->attr.wakeup_watermark ? e->attr.wakeup_watermark
							   : e->data_size / 2;
	if (e->attr.watermark || !e->attr.wakeup_events) {
		if (e->data_size && head - e->wake_data >= wm)
			wake = 1;
	} else if (e->wake_samples >= e->attr.wakeup_events) {
		wake = 1;
	}
	if (e->sim_aux) {
		uint64_t awm = e->attr.aux_watermark ? e->attr.aux_watermark : e->aux_len / 2;
		if (pg->aux_head - e->wake_aux >= awm) {
			wake = 1;
			e->wake_aux = pg->aux_head;
		}
	}
	if (wake) {
		e->wake_data = head;
		e->wake_samples = 0;
		signal_owner(s, e);
	}
}

static void ring_put(struct sim_event *e, uint64_t head, const void *rec, size_t size)
{
	uint8_t *data = (uint8_t *)e->sim_map + ptd__sim_upage(e)->data_offset;
	uint64_t off = head & (e->data_size - 1);
	size_t first = e->data_size - off < size ? (size_t)(e->data_size - off) : size;

	memcpy(data + off, rec, first);
	if (first < size)
		memcpy(data, (const uint8_t *)rec + first, size - first);
}

int ptd__sim_output(struct sim *s, struct sim_event *e, const void *rec, size_t size)
{
	volatile struct perf_event_mmap_page *pg = ptd__sim_upage(e);
	struct {
		struct perf_event_header h;
		uint64_t id, lost;
		uint64_t sid[6];
	} lr;
	size_t lsize = 0;
	uint64_t head, tail;

	if (!pg || e->data_size == 0)
		return -1; /* no ring: the kernel has nowhere to write */
	if (e->lost) {
		memset(&lr, 0, sizeof(lr));
		lr.h.type = PERF_RECORD_LOST;
		lr.id = e->id;
		lr.lost = e->lost;
		lsize = 24 + sample_id(e, lr.sid);
		lr.h.size = (uint16_t)lsize;
	}
	head = pg->data_head;
	if (e->ring_writable) {
		/* perf_output_begin: the space up to data_tail, read once. */
		tail = __atomic_load_n(&pg->data_tail, __ATOMIC_ACQUIRE);
		if (head - tail + lsize + size > e->data_size) {
			e->lost++;
			s->st.lost++;
			return -1;
		}
	}
	if (lsize) {
		ring_put(e, head, &lr, lsize);
		head += lsize;
		e->lost = 0;
	}
	ring_put(e, head, rec, size);
	head += size;
	__atomic_store_n(&pg->data_head, head, __ATOMIC_RELEASE);
	ptd__sim_wakeup_check(s, e);
	return 0;
}

void ptd__sim_itrace_start(struct sim *s, struct sim_event *e)
{
	struct {
		struct perf_event_header h;
		uint32_t pid, tid;
		uint64_t sid[6];
	} r;
	size_t n;

	if (e->itrace_started || !e->user_map)
		return;
	memset(&r, 0, sizeof(r));
	r.h.type = PERF_RECORD_ITRACE_START;
	r.h.misc = PERF_RECORD_MISC_USER;
	r.pid = (uint32_t)ptd_target_pid(s->k.t);
	r.tid = (uint32_t)e->tid;
	n = 16 + sample_id(e, r.sid);
	r.h.size = (uint16_t)n;
	e->itrace_started = 1;
	ptd__sim_output(s, e, &r, n);
}

int ptd__sim_sample_size(const struct sim_event *e)
{
	return 8 + 8 * __builtin_popcountll(e->attr.sample_type);
}

/* PERF_RECORD_AUX after trace was written to the AUX area. */
static void aux_record(struct sim *s, struct sim_event *e, uint64_t off, uint64_t size,
		       uint64_t flags)
{
	struct {
		struct perf_event_header h;
		uint64_t aux_offset, aux_size, flags;
		uint64_t sid[6];
	} r;
	size_t n;

	memset(&r, 0, sizeof(r));
	r.h.type = PERF_RECORD_AUX;
	r.aux_offset = off;
	r.aux_size = size;
	r.flags = flags;
	n = 32 + sample_id(e, r.sid);
	r.h.size = (uint16_t)n;
	s->st.aux_records++;
	ptd__sim_output(s, e, &r, n);
}

void ptd__sim_aux_output(struct sim *s, struct sim_event *e, const uint8_t *buf, size_t n)
{
	volatile struct perf_event_mmap_page *pg = ptd__sim_upage(e);
	uint64_t head, size, flags = 0, room = n;
	uint8_t *aux = e->sim_aux;

	if (!pg || !aux || n == 0)
		return; /* no AUX area: the driver cannot start tracing */
	s->st.aux_bytes += n;
	size = e->aux_len;
	head = pg->aux_head;
	if (e->aux_linear) {
		uint64_t tail = __atomic_load_n(&pg->aux_tail, __ATOMIC_ACQUIRE);
		uint64_t space = size - (head - tail < size ? head - tail : size);
		if (n > space) {
			/* The ToPA STOP bit: output ends where the reader is;
			 * the rest of the trace is gone and the event stops. */
			room = space;
			flags |= PERF_AUX_FLAG_TRUNCATED;
			if (room)
				flags |= PERF_AUX_FLAG_PARTIAL;
		}
	} else {
		flags |= PERF_AUX_FLAG_OVERWRITE;
	}
	{
		/* Circular: only the newest @size bytes can survive. */
		const uint8_t *src = buf;
		uint64_t len = room, pos = head;
		if (len > size) {
			src += len - size;
			pos += len - size;
			len = size;
		}
		uint64_t off = pos & (size - 1);
		uint64_t first = size - off < len ? size - off : len;
		memcpy(aux + off, src, first);
		if (first < len)
			memcpy(aux, src + first, len - first);
	}
	__atomic_store_n(&pg->aux_head, head + room, __ATOMIC_RELEASE);
	aux_record(s, e, head, room, flags);
	if ((flags & PERF_AUX_FLAG_TRUNCATED) && e->recording) {
		/* perf_aux_output_end with TRUNCATED disables the event until
		 * the reader makes room and enables it again. */
		e->enabled = 0;
	}
	ptd__sim_wakeup_check(s, e);
}

/* PERF_RECORD_MMAP2 (or MMAP) for the executable mapping at @addr, or
 * for every executable mapping when @all (after exec). */
void ptd__sim_mmap_records(struct sim *s, struct sim_event *e, uint64_t addr, int all)
{
	char path[64], line[4400];
	FILE *f;

	/* perf_event_mmap_match(): executable mappings for mmap or mmap2 */
	if (!(e->attr.mmap || e->attr.mmap2) || !e->user_map)
		return;
	snprintf(path, sizeof(path), "/proc/%d/maps", (int)e->tid);
	f = fopen(path, "re");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long a, b, pgoff, ino;
		unsigned maj, min;
		char perms[8], name[4096];
		struct {
			struct perf_event_header h;
			uint32_t pid, tid;
			uint64_t addr, len, pgoff;
			uint32_t maj, min;
			uint64_t ino, ino_generation;
			uint32_t prot, flags;
			char rest[4096 + 64];
		} r;
		size_t nl, n, fixed;
		uint64_t sid[6];

		name[0] = 0;
		if (sscanf(line, "%llx-%llx %7s %llx %x:%x %llu %4095[^\n]", &a, &b, perms, &pgoff,
			   &maj, &min, &ino, name) < 7)
			continue;
		if (perms[2] != 'x' || (!all && (addr < a || addr >= b)))
			continue;
		{
			char *p = name;
			while (*p == ' ')
				p++;
			memmove(name, p, strlen(p) + 1);
		}
		if (!name[0])
			snprintf(name, sizeof(name), "//anon");
		memset(&r, 0, sizeof(r));
		r.pid = (uint32_t)ptd_target_pid(s->k.t);
		r.tid = (uint32_t)e->tid;
		r.h.misc = PERF_RECORD_MISC_USER;
		nl = (strlen(name) + 1 + 7) & ~(size_t)7;
		if (e->attr.mmap2) {
			r.h.type = PERF_RECORD_MMAP2;
			r.addr = a;
			r.len = b - a;
			r.pgoff = pgoff;
			r.maj = maj;
			r.min = min;
			r.ino = ino;
			r.prot = (perms[0] == 'r' ? PROT_READ : 0) |
				 (perms[1] == 'w' ? PROT_WRITE : 0) | PROT_EXEC;
			r.flags = perms[3] == 's' ? MAP_SHARED : MAP_PRIVATE;
			fixed = offsetof(__typeof__(r), rest);
			memcpy(r.rest, name, strlen(name) + 1);
		} else {
			/* PERF_RECORD_MMAP: pid, tid, addr, len, pgoff, filename */
			uint64_t v[3] = {a, b - a, pgoff};
			r.h.type = PERF_RECORD_MMAP;
			fixed = 16 + 24;
			memcpy(&r.addr, v, sizeof(v));
			memcpy((char *)&r + fixed, name, strlen(name) + 1);
		}
		n = fixed + nl;
		memcpy((char *)&r + n, sid, sample_id(e, sid));
		n += sample_id(e, sid);
		r.h.size = (uint16_t)n;
		ptd__sim_output(s, e, &r, n);
	}
	fclose(f);
}
