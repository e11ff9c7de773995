/*
 * The simulated perf kernel end to end, through its ops only, as a
 * recorder drives it: a test program is launched, an intel_pt event (or a
 * BTS one) is opened for its thread, the rings are mapped, the program
 * runs to its exit by resume/on_stop, and what the rings hold is read with
 * the perf layer's readers and checked against the exact history the
 * simulation's step recorder took of the same run:
 *  - PT, big circular AUX area: decoded with src/decode/pt.h (with the
 *    code of the mappings PERF_RECORD_MMAP2 announced) it gives the
 *    identical instruction sequence (fib, signal: handler entries too);
 *  - PT, one-page circular area: the newest trace survives, the wrap is
 *    seen, and it decodes to the newest part of the history;
 *  - PT, linear area drained when the watermark signal (F_SETOWN,
 *    F_SETSIG, O_ASYNC) arrives: nothing lost; not drained: TRUNCATED;
 *  - BTS: the (from, to) samples give back the same instructions; a
 *    full ring that is not drained gives PERF_RECORD_LOST;
 *  - perf_event_open/mmap/ioctl refusals with the kernel's errno values.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <errno.h>
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
#include "history/history.h"
#include "ptdbg/ptdbg.h"
#include "record/perf.h"
#include "symbols/symbols.h"
#include "target/target.h"

#define PAGE 4096

static char progdir[4096];

struct run {
	struct ptd_perf_kernel *k;
	struct ptd_target *t;
	pid_t pid;
	int fd;
	void *map;
	size_t map_len;
	void *aux;
	size_t aux_len;
	struct ptd_perf_ring ring;
	struct ptd_perf_aux a;
	struct ptd_image *img;
	struct ptd_image *img2; /* after PERF_RECORD_COMM with COMM_EXEC */
	struct ptd_image *cur_img;
	struct ptd_history *truth;
	uint64_t start_pc;
	/* what was read */
	uint8_t *trace;
	size_t trace_size, trace_cap;
	int wraps;
	uint64_t ring_lost;
	int naux, nitrace, nmmap, nlost, ncomm, plugin_seen;
	uint64_t aux_flags_or;
	uint64_t aux_bytes;
	uint64_t lost_records;
	uint64_t *bts;
	size_t nbts, capbts;
	int exit_code;
};

static volatile sig_atomic_t wakeups;

static void on_wakeup(int sig)
{
	wakeups++;
}

/* Record from the first instruction (else from main). */
static int from_start;

static void launch_arg(struct run *r, const char *kind, const char *prog, const char *arg)
{
	char path[4200];
	char *argv[3] = {path, (char *)arg, NULL};
	struct ptd_launch l = {0};

	memset(r, 0, sizeof(*r));
	snprintf(path, sizeof(path), "%s/%s", progdir, prog);
	l.argv = argv;
	l.disable_aslr = 1;
	assert_int_equal(ptd_target_launch(&r->t, &l), 0);
	r->pid = ptd_target_pid(r->t);
	if (!from_start) {
		/* to main first: stepping the dynamic loader costs a lot of
		 * ptrace stops and is covered once (test_pt_fib) */
		struct ptd_symbols *sym;
		struct ptd_stop st;
		uint64_t entry, bp;
		assert_int_equal(ptd_symbols_alloc_pid(&sym, r->pid), 0);
		assert_int_equal(ptd_symbols_function(sym, "main", &entry, &bp), 0);
		ptd_symbols_free(sym);
		assert_int_equal(ptd_target_bp_insert(r->t, entry), 0);
		assert_int_equal(ptd_target_resume(r->t, r->pid, 0, 0), 0);
		assert_int_equal(ptd_target_wait(r->t, &st, 1), 0);
		assert_int_equal(st.kind, PTD_STOP_BREAKPOINT);
		assert_int_equal(st.pc, entry);
		assert_int_equal(ptd_target_bp_remove(r->t, entry), 0);
	}
	r->k = ptd_perf_kernel_sim(kind);
	assert_non_null(r->k);
	ptd_perf_kernel_set_target(r->k, r->t);
	r->img = ptd_image_alloc(NULL, NULL);
	assert_non_null(r->img);
	assert_true(ptd_image_add_maps(r->img, r->pid) > 0);
	r->truth = ptd_history_alloc(ptd_image_read, r->img);
	assert_non_null(r->truth);
	ptd_perf_sim_keep_history(r->k, r->pid, r->truth);
	assert_int_equal(ptd_target_get_pc(r->t, r->pid, &r->start_pc), 0);
	r->fd = -1;
}

static void launch(struct run *r, const char *kind, const char *prog)
{
	launch_arg(r, kind, prog, NULL);
}

static void finish(struct run *r)
{
	if (r->aux)
		assert_int_equal(r->k->ops->munmap(r->k, r->aux, r->aux_len), 0);
	if (r->map)
		assert_int_equal(r->k->ops->munmap(r->k, r->map, r->map_len), 0);
	if (r->fd >= 0)
		assert_int_equal(r->k->ops->close(r->k, r->fd), 0);
	ptd_perf_kernel_free(r->k);
	ptd_target_free(r->t);
	ptd_history_free(r->truth);
	ptd_image_free(r->img);
	free(r->trace);
	free(r->bts);
}

static void pt_attr(struct run *r, struct perf_event_attr *attr, int noretcomp, int psb)
{
	struct ptd_perf_pmu pmu;

	assert_int_equal(ptd_perf_pmu_read(r->k, "intel_pt", &pmu), 0);
	memset(attr, 0, sizeof(*attr));
	attr->size = sizeof(*attr);
	attr->type = pmu.type;
	attr->exclude_kernel = 1;
	attr->exclude_hv = 1;
	attr->mmap = 1;
	attr->mmap2 = 1;
	attr->comm = 1;
	attr->sample_id_all = 1;
	attr->sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_IDENTIFIER;
	assert_int_equal(ptd_perf_pmu_set(&pmu, attr, "pt", 1), 0);
	assert_int_equal(ptd_perf_pmu_set(&pmu, attr, "branch", 1), 0);
	assert_int_equal(ptd_perf_pmu_set(&pmu, attr, "noretcomp", (uint64_t)noretcomp), 0);
	assert_int_equal(ptd_perf_pmu_set(&pmu, attr, "psb_period", (uint64_t)psb), 0);
}

static void map_rings(struct run *r, int data_pages, int writable, size_t aux_len, int linear)
{
	volatile struct perf_event_mmap_page *pg;
	int err = 0;

	r->map_len = (size_t)(1 + data_pages) * PAGE;
	r->map = r->k->ops->mmap(r->k, r->fd, r->map_len, PROT_READ | (writable ? PROT_WRITE : 0),
				 0, &err);
	assert_non_null(r->map);
	assert_int_equal(ptd_perf_ring_init(&r->ring, r->map, r->map_len, writable), 0);
	pg = r->map;
	assert_int_equal(pg->data_offset, PAGE);
	assert_int_equal(pg->data_size, (uint64_t)data_pages * PAGE);
	if (!aux_len)
		return;
	/* aux_offset/aux_size go into the user page: it is mapped writable */
	assert_true(writable);
	pg->aux_offset = r->map_len;
	pg->aux_size = aux_len;
	r->aux_len = aux_len;
	r->aux = r->k->ops->mmap(r->k, r->fd, aux_len, PROT_READ | (linear ? PROT_WRITE : 0),
				 (off_t)r->map_len, &err);
	assert_non_null(r->aux);
	assert_int_equal(ptd_perf_aux_init(&r->a, pg, r->aux, aux_len, linear), 0);
}

static int on_record(void *ctx, const struct perf_event_header *h, const void *rec)
{
	struct run *r = ctx;
	const uint8_t *b = rec;
	uint64_t v[3];

	switch (h->type) {
	case PERF_RECORD_AUX:
		memcpy(v, b + 8, 24);
		r->naux++;
		r->aux_flags_or |= v[2];
		r->aux_bytes += v[1];
		break;
	case PERF_RECORD_ITRACE_START: {
		uint32_t pt[2];
		memcpy(pt, b + 8, 8);
		assert_int_equal(pt[0], r->pid);
		assert_int_equal(pt[1], r->pid);
		r->nitrace++;
		break;
	}
	case PERF_RECORD_MMAP2: {
		uint64_t addr, len, pgoff;
		uint32_t prot;
		const char *name = (const char *)b + 8 + 8 + 24 + 8 + 16 + 8;
		memcpy(&addr, b + 16, 8);
		memcpy(&len, b + 24, 8);
		memcpy(&pgoff, b + 32, 8);
		memcpy(&prot, b + 64, 4);
		assert_true(prot & PROT_EXEC);
		r->nmmap++;
		if (strstr(name, "libplugin"))
			r->plugin_seen++;
		if (name[0] == '/')
			assert_int_equal(ptd_image_add_file(r->cur_img ? r->cur_img : r->img, name,
							    pgoff, len, addr),
					 0);
		break;
	}
	case PERF_RECORD_LOST: {
		uint64_t lost;
		memcpy(&lost, b + 16, 8);
		assert_true(lost > 0);
		r->nlost++;
		r->lost_records += lost;
		break;
	}
	case PERF_RECORD_COMM:
		assert_true(h->misc & PERF_RECORD_MISC_COMM_EXEC);
		r->ncomm++;
		if (r->img2)
			r->cur_img = r->img2;
		break;
	case PERF_RECORD_SAMPLE: {
		/* sample_type IP|ADDR: ip (from), addr (to) */
		if (r->nbts + 2 > r->capbts) {
			r->capbts = r->capbts ? 2 * r->capbts : 4096;
			r->bts = realloc(r->bts, r->capbts * sizeof(uint64_t));
			assert_non_null(r->bts);
		}
		assert_int_equal(h->size, 24);
		assert_int_equal(h->misc, PERF_RECORD_MISC_USER);
		memcpy(&r->bts[r->nbts], b + 8, 16);
		r->nbts += 2;
		break;
	}
	default:
		fail_msg("unexpected record type %u", h->type);
	}
	return 0;
}

static void drain(struct run *r)
{
	uint64_t lost = 0;
	int wrapped = 0;

	assert_true(ptd_perf_ring_read(&r->ring, on_record, r, &lost) >= 0);
	r->ring_lost += lost;
	if (r->aux) {
		assert_true(ptd_perf_aux_read(&r->a, &r->trace, &r->trace_size, &r->trace_cap,
					      &wrapped) >= 0);
		r->wraps += wrapped;
	}
}

/* Runs the program to its end; @drain_on_wakeup: read the rings when the
 * watermark signal came. */
static void run_to_exit(struct run *r, int drain_on_wakeup)
{
	struct ptd_stop st;
	pid_t tid = r->pid;
	int signo = 0;

	for (;;) {
		int own;
		assert_int_equal(r->k->ops->resume(r->k, tid, 0, signo), 0);
		signo = 0;
		for (;;) {
			int rc = ptd_target_wait(r->t, &st, 1);
			assert_int_equal(rc, 0);
			own = r->k->ops->on_stop(r->k, &st);
			assert_true(own >= 0);
			if (drain_on_wakeup && wakeups) {
				wakeups = 0;
				drain(r);
			}
			if (!own)
				break;
		}
		if (st.kind == PTD_STOP_EXITED) {
			r->exit_code = st.status;
			break;
		}
		assert_int_not_equal(st.kind, PTD_STOP_KILLED);
		if (st.kind == PTD_STOP_SIGNAL)
			signo = st.signo;
		tid = st.tid;
	}
	drain(r);
}

/* Runs the program to its end without reading anything. */
static void run_to_exit_quiet(struct run *r)
{
	struct ptd_stop st;
	pid_t tid = r->pid;
	int signo = 0;

	for (;;) {
		assert_int_equal(r->k->ops->resume(r->k, tid, 0, signo), 0);
		do {
			assert_int_equal(ptd_target_wait(r->t, &st, 1), 0);
		} while (r->k->ops->on_stop(r->k, &st) == 1);
		if (st.kind == PTD_STOP_EXITED) {
			r->exit_code = st.status;
			return;
		}
		assert_int_not_equal(st.kind, PTD_STOP_KILLED);
		signo = st.kind == PTD_STOP_SIGNAL ? st.signo : 0;
		tid = st.tid;
	}
}

/* The instructions of @h's blocks from item @from up to the first exec
 * event after it (or the end), in order (gaps: 0), with code from @img;
 * *@stop gets the index where it stopped. */
static uint64_t *ips_range(struct ptd_image *img, const struct ptd_history *h, uint64_t from,
			   uint64_t *stop, size_t *n)
{
	size_t cap = 65536, k = 0;
	uint64_t *ips = malloc(cap * sizeof(*ips));
	struct ptd_item it;
	uint64_t i;

	assert_non_null(ips);
	for (i = from; ptd_history_item(h, i, &it); i++) {
		uint64_t ip = it.block.ip;
		if (it.kind == PTD_ITEM_EVENT && it.reason == PTD_EV_EXEC && stop)
			break;
		if (it.kind == PTD_ITEM_EVENT)
			continue;
		if (it.kind == PTD_ITEM_GAP) {
			if (k == cap)
				ips = realloc(ips, (cap *= 2) * sizeof(*ips));
			ips[k++] = 0;
			continue;
		}
		for (uint32_t j = 0; j < it.block.ninsn; j++) {
			uint8_t buf[16];
			struct ptd_insn_info info;
			int got = ptd_image_read(img, ip, buf, sizeof(buf));
			assert_true(got > 0);
			assert_int_equal(ptd_disasm_decode(buf, (size_t)got, ip, &info), 0);
			if (k == cap)
				ips = realloc(ips, (cap *= 2) * sizeof(*ips));
			assert_non_null(ips);
			ips[k++] = ip;
			ip += info.len;
		}
	}
	if (stop)
		*stop = i;
	*n = k;
	return ips;
}

static uint64_t *ips_of(struct run *r, const struct ptd_history *h, size_t *n)
{
	return ips_range(r->img, h, 0, NULL, n);
}

static void same_ips(const uint64_t *t, size_t nt, const uint64_t *g, size_t ng)
{
	for (size_t i = 0; i < nt && i < ng; i++)
		if (t[i] != g[i])
			fail_msg("instruction %zu: 0x%llx decoded, 0x%llx executed", i,
				 (unsigned long long)g[i], (unsigned long long)t[i]);
	assert_int_equal(ng, nt);
}

/* exec: the trace up to the exec stop decodes with the old program's
 * code, the rest with the new one's, announced by PERF_RECORD_COMM
 * (COMM_EXEC) and MMAP2 of its mappings; together the exact history. */
static void test_pt_exec(void **state)
{
	struct run r;
	struct perf_event_attr attr;
	struct ptd_stop st;
	uint8_t *before = NULL;
	size_t nbefore = 0, nt, ng;
	uint64_t stop_at = 0, *t, *g, dummy;
	int own, execs = 0;
	struct ptd_history *h;

	launch(&r, "pt", "exec");
	r.img2 = ptd_image_alloc(NULL, NULL);
	assert_non_null(r.img2);
	pt_attr(&r, &attr, 0, 0);
	r.fd = r.k->ops->open(r.k, &attr, r.pid, -1, -1, 0);
	assert_true(r.fd >= 0);
	map_rings(&r, 64, 1, 1 << 20, 0);
	assert_int_equal(r.k->ops->resume(r.k, r.pid, 0, 0), 0);
	for (;;) {
		assert_int_equal(ptd_target_wait(r.t, &st, 1), 0);
		own = r.k->ops->on_stop(r.k, &st);
		assert_true(own >= 0);
		if (own)
			continue;
		if (st.kind == PTD_STOP_EXITED)
			break;
		if (st.kind == PTD_STOP_EXEC) {
			execs++;
			drain(&r);
			before = r.trace;
			nbefore = r.trace_size;
			r.trace = NULL;
			r.trace_size = r.trace_cap = 0;
		}
		assert_int_equal(
			r.k->ops->resume(r.k, st.tid, 0, st.kind == PTD_STOP_SIGNAL ? st.signo : 0),
			0);
	}
	drain(&r);
	assert_int_equal(st.status, 0);
	assert_int_equal(execs, 1);
	assert_int_equal(r.ncomm, 1);
	assert_true(nbefore > 0 && r.trace_size > 0);
	/* before the exec */
	h = ptd_history_alloc(ptd_image_read, r.img);
	assert_int_equal(ptd_pt_decode_history(before, nbefore, r.img, h, NULL), 0);
	t = ips_range(r.img, r.truth, 0, &stop_at, &nt);
	g = ips_range(r.img, h, 0, NULL, &ng);
	assert_true(nt > 1000);
	same_ips(t, nt, g, ng);
	free(t);
	free(g);
	ptd_history_free(h);
	/* after it */
	h = ptd_history_alloc(ptd_image_read, r.img2);
	assert_int_equal(ptd_pt_decode_history(r.trace, r.trace_size, r.img2, h, NULL), 0);
	t = ips_range(r.img2, r.truth, stop_at + 1, &dummy, &nt);
	g = ips_range(r.img2, h, 0, NULL, &ng);
	assert_true(nt > 1000);
	same_ips(t, nt, g, ng);
	free(t);
	free(g);
	ptd_history_free(h);
	free(before);
	ptd_image_free(r.img2);
	finish(&r);
}

static struct ptd_history *decode(struct run *r, struct ptd_pt_stats *st)
{
	struct ptd_history *h = ptd_history_alloc(ptd_image_read, r->img);

	assert_non_null(h);
	assert_int_equal(ptd_pt_decode_history(r->trace, r->trace_size, r->img, h, st), 0);
	return h;
}

static void check_same(struct run *r, const struct ptd_history *got)
{
	size_t nt, ng;
	uint64_t *t = ips_of(r, r->truth, &nt), *g = ips_of(r, got, &ng);

	assert_true(nt > 1000);
	for (size_t i = 0; i < nt && i < ng; i++)
		if (t[i] != g[i])
			fail_msg("instruction %zu: 0x%llx decoded, 0x%llx executed", i,
				 (unsigned long long)g[i], (unsigned long long)t[i]);
	assert_int_equal(ng, nt);
	free(t);
	free(g);
}

static void pt_full(const char *prog, int noretcomp)
{
	struct run r;
	struct perf_event_attr attr;
	struct ptd_history *h;
	struct ptd_pt_stats st;
	struct ptd_perf_sim_stats ss;

	launch(&r, "pt", prog);
	pt_attr(&r, &attr, noretcomp, 0);
	r.fd = r.k->ops->open(r.k, &attr, r.pid, -1, -1, 0);
	assert_true(r.fd >= 0);
	map_rings(&r, 64, 1, 4 << 20, 0);
	run_to_exit(&r, 0);
	assert_int_equal(r.exit_code, 0);
	assert_int_equal(r.nitrace, 1);
	assert_true(r.naux >= 1);
	if (from_start)
		assert_true(r.nmmap >= 1); /* libc's text */
	assert_int_equal(r.nlost, 0);
	assert_int_equal(r.wraps, 0);
	assert_int_equal(r.aux_flags_or, PERF_AUX_FLAG_OVERWRITE);
	assert_int_equal(r.aux_bytes, r.trace_size);
	ptd_perf_sim_stats(r.k, &ss);
	assert_int_equal(ss.aux_bytes, r.trace_size);
	assert_true(ss.own_stops > 1000);
	h = decode(&r, &st);
	assert_int_equal(st.ngaps, 0);
	check_same(&r, h);
	ptd_history_free(h);
	if (strcmp(prog, "dlopen") == 0)
		assert_int_equal(r.plugin_seen, 1);
	finish(&r);
}

static void test_pt_fib(void **state)
{
	/* from the first instruction: the loader's steps, the first step
	 * from the launch's exec stop, libc's MMAP2 */
	from_start = 1;
	pt_full("fib", 0);
	from_start = 0;
}

static void test_pt_fib_noretcomp(void **state)
{
	pt_full("fib-O2", 1);
}

static void test_pt_signal(void **state)
{
	pt_full("signal", 0);
}

/* dlopen maps the plugin (PERF_RECORD_MMAP2 gives the decoder its code),
 * dlclose unmaps it: the trace of its code was written while mapped. */
static void test_pt_dlopen(void **state)
{
	pt_full("dlopen", 0);
}

/* ---- several threads: an event per thread, opened at the clone stop
 * before the new thread runs; at every stop of the program the others
 * are stopped (their steps arrive in ptd_target_stop_all's callback,
 * their interrupts do not reach on_stop) and sync() writes what they ran */

struct tev {
	pid_t tid;
	int fd;
	void *map, *aux;
	struct ptd_perf_ring ring;
	struct ptd_perf_aux a;
	uint8_t *trace;
	size_t size, cap;
	int nitrace, ngaps_rec;
};

static struct run *cur_run;

static void stop_cb(void *ctx, const struct ptd_stop *st)
{
	struct run *r = ctx;

	assert_true(r->k->ops->on_stop(r->k, st) >= 0);
	if (st->kind == PTD_STOP_EXITED)
		r->exit_code = 1000 + st->status; /* the process ended meanwhile */
}

static int tev_record(void *ctx, const struct perf_event_header *h, const void *rec)
{
	struct tev *e = ctx;

	if (h->type == PERF_RECORD_ITRACE_START)
		e->nitrace++;
	if (h->type == PERF_RECORD_MMAP2) {
		const uint8_t *b = rec;
		uint64_t addr, len, pgoff;
		const char *name = (const char *)b + 72;
		memcpy(&addr, b + 16, 8);
		memcpy(&len, b + 24, 8);
		memcpy(&pgoff, b + 32, 8);
		if (name[0] == '/')
			assert_int_equal(ptd_image_add_file(cur_run->img, name, pgoff, len, addr),
					 0);
	}
	if (h->type == PERF_RECORD_LOST)
		fail_msg("lost records");
	return 0;
}

static void tev_open(struct run *r, struct tev *e, pid_t tid)
{
	struct perf_event_attr attr;
	volatile struct perf_event_mmap_page *pg;
	int err = 0;

	memset(e, 0, sizeof(*e));
	e->tid = tid;
	pt_attr(r, &attr, 0, 0);
	e->fd = r->k->ops->open(r->k, &attr, tid, -1, -1, 0);
	assert_true(e->fd >= 0);
	e->map = r->k->ops->mmap(r->k, e->fd, 17 * PAGE, PROT_READ | PROT_WRITE, 0, &err);
	assert_non_null(e->map);
	assert_int_equal(ptd_perf_ring_init(&e->ring, e->map, 17 * PAGE, 1), 0);
	pg = e->map;
	pg->aux_offset = 17 * PAGE;
	pg->aux_size = 256 * PAGE;
	e->aux = r->k->ops->mmap(r->k, e->fd, 256 * PAGE, PROT_READ, 17 * PAGE, &err);
	assert_non_null(e->aux);
	assert_int_equal(ptd_perf_aux_init(&e->a, pg, e->aux, 256 * PAGE, 0), 0);
}

static void tev_drain(struct tev *e)
{
	int wrapped = 0;

	assert_true(ptd_perf_ring_read(&e->ring, tev_record, e, NULL) >= 0);
	assert_true(ptd_perf_aux_read(&e->a, &e->trace, &e->size, &e->cap, &wrapped) >= 0);
	assert_int_equal(wrapped, 0);
}

static void test_pt_threads(void **state)
{
	struct run r;
	struct tev ev[8];
	int nev = 0, signo = 0;
	struct ptd_stop st;
	pid_t tids[16];

	launch(&r, "pt", "threads");
	cur_run = &r;
	tev_open(&r, &ev[nev++], r.pid);
	tids[0] = r.pid;
	assert_int_equal(r.k->ops->resume(r.k, r.pid, 0, 0), 0);
	r.exit_code = -1;
	for (;;) {
		int own, n, rc;
		if (r.exit_code >= 1000) {
			st.status = r.exit_code - 1000; /* seen by stop_all */
			break;
		}
		rc = ptd_target_wait(r.t, &st, 1);
		assert_int_equal(rc, 0);
		own = r.k->ops->on_stop(r.k, &st);
		assert_true(own >= 0);
		if (own)
			continue;
		if (st.kind == PTD_STOP_EXITED)
			break;
		assert_int_not_equal(st.kind, PTD_STOP_KILLED);
		signo = st.kind == PTD_STOP_SIGNAL ? st.signo : 0;
		/* all-stop, then read every thread's rings */
		assert_int_equal(ptd_target_stop_all(r.t, stop_cb, &r), 0);
		assert_int_equal(r.k->ops->sync(r.k, 0), 0);
		for (int i = 0; i < nev; i++)
			tev_drain(&ev[i]);
		if (st.kind == PTD_STOP_CLONE) {
			assert_true(nev < 8);
			tev_open(&r, &ev[nev++], st.new_tid);
		}
		n = ptd_target_threads(r.t, tids, 16);
		for (int i = 0; i < n && i < 16; i++)
			if (ptd_target_thread_state(r.t, tids[i]) == PTD_THREAD_STOPPED)
				assert_int_equal(r.k->ops->resume(r.k, tids[i], 0,
								  tids[i] == st.tid ? signo : -1),
						 0);
	}
	for (int i = 0; i < nev; i++)
		tev_drain(&ev[i]);
	assert_int_equal(st.status, 0);
	assert_int_equal(nev, 3);
	for (int i = 0; i < nev; i++) {
		struct ptd_history *h = ptd_history_alloc(ptd_image_read, r.img);
		struct ptd_pt_stats ps;
		assert_int_equal(ev[i].nitrace, 1);
		assert_true(ev[i].size > 0);
		assert_int_equal(ptd_pt_decode_history(ev[i].trace, ev[i].size, r.img, h, &ps), 0);
		assert_int_equal(ps.ngaps, 0);
		assert_true(ps.ninsn > 100);
		if (i == 0)
			check_same(&r, h); /* the main thread: its exact history */
		ptd_history_free(h);
		assert_int_equal(r.k->ops->munmap(r.k, ev[i].aux, 256 * PAGE), 0);
		assert_int_equal(r.k->ops->munmap(r.k, ev[i].map, 17 * PAGE), 0);
		assert_int_equal(r.k->ops->close(r.k, ev[i].fd), 0);
		free(ev[i].trace);
	}
	finish(&r);
}

/* An address filter on fib(): only fib's instructions are traced, each
 * entry after a call a TIP.PGE, each return out of it a TIP.PGD. */
static void test_pt_filter(void **state)
{
	struct run r;
	struct perf_event_attr attr;
	struct ptd_symbols *sym;
	struct ptd_symbol fs;
	struct ptd_history *h;
	struct ptd_pt_stats ps;
	uint64_t entry, bp, off = 0, *t, *g;
	size_t nt, ng, k = 0;
	char filter[4400], exe[4096], maps[64], line[4400];
	FILE *f;
	ssize_t len;

	launch_arg(&r, "pt", "fib", "12");
	assert_int_equal(ptd_symbols_alloc_pid(&sym, r.pid), 0);
	assert_int_equal(ptd_symbols_function(sym, "fib", &entry, &bp), 0);
	assert_int_equal(ptd_symbols_lookup(sym, entry, &fs), 0);
	assert_true(fs.size > 10);
	ptd_symbols_free(sym);
	snprintf(maps, sizeof(maps), "/proc/%d/exe", (int)r.pid);
	len = readlink(maps, exe, sizeof(exe) - 1);
	assert_true(len > 0);
	exe[len] = 0;
	snprintf(maps, sizeof(maps), "/proc/%d/maps", (int)r.pid);
	f = fopen(maps, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		unsigned long long a, b, pgoff;
		if (sscanf(line, "%llx-%llx %*s %llx", &a, &b, &pgoff) == 3 && entry >= a &&
		    entry < b)
			off = entry - a + pgoff;
	}
	fclose(f);
	assert_true(off > 0);
	pt_attr(&r, &attr, 0, 0);
	r.fd = r.k->ops->open(r.k, &attr, r.pid, -1, -1, 0);
	assert_true(r.fd >= 0);
	snprintf(filter, sizeof(filter), "filter 0x%llx/0x%llx@%s", (unsigned long long)off,
		 (unsigned long long)fs.size, exe);
	assert_int_equal(
		r.k->ops->ioctl(r.k, r.fd, PERF_EVENT_IOC_SET_FILTER, (unsigned long)filter), 0);
	map_rings(&r, 64, 1, 1 << 20, 0);
	run_to_exit(&r, 0);
	assert_int_equal(r.exit_code, 0);
	h = ptd_history_alloc(ptd_image_read, r.img);
	assert_non_null(h);
	assert_int_equal(ptd_pt_decode_history(r.trace, r.trace_size, r.img, h, &ps), 0);
	assert_int_equal(ps.ngaps, 0);
	t = ips_of(&r, r.truth, &nt);
	g = ips_of(&r, h, &ng);
	for (size_t i = 0; i < nt; i++) {
		if (t[i] < entry || t[i] >= entry + fs.size)
			continue;
		assert_true(k < ng);
		if (g[k] != t[i])
			fail_msg("traced instruction %zu: 0x%llx, executed 0x%llx", k,
				 (unsigned long long)g[k], (unsigned long long)t[i]);
		k++;
	}
	assert_int_equal(k, ng);
	assert_true(ng > 1000); /* 465 calls of fib */
	free(t);
	free(g);
	ptd_history_free(h);
	finish(&r);
}

static void test_pt_tiny_circular(void **state)
{
	struct run r;
	struct perf_event_attr attr;
	struct ptd_history *h;
	struct ptd_pt_stats st;
	size_t nt, ng, skip;
	uint64_t *t, *g;

	launch_arg(&r, "pt", "fib", "16");
	pt_attr(&r, &attr, 1, 0); /* every ret a TIP; a PSB every 2 KiB */
	r.fd = r.k->ops->open(r.k, &attr, r.pid, -1, -1, 0);
	assert_true(r.fd >= 0);
	map_rings(&r, 64, 1, PAGE, 0);
	run_to_exit(&r, 0);
	assert_int_equal(r.exit_code, 0);
	assert_int_equal(r.trace_size, PAGE);
	assert_int_equal(r.wraps, 1);
	assert_true(r.aux_bytes > 2 * PAGE);
	h = decode(&r, &st);
	/* the bytes before the first PSB in the window are a lost-data gap;
	 * after it, the newest instructions of the run */
	t = ips_of(&r, r.truth, &nt);
	g = ips_of(&r, h, &ng);
	assert_true(ng > 100);
	assert_int_equal(g[0], 0);
	skip = 1;
	assert_true(ng - skip < nt);
	for (size_t i = 0; i < ng - skip; i++)
		if (g[skip + i] != t[nt - (ng - skip) + i])
			fail_msg("newest instruction %zu differs", i);
	free(t);
	free(g);
	ptd_history_free(h);
	finish(&r);
}

static void test_pt_linear_watermark(void **state)
{
	struct run r;
	struct perf_event_attr attr;
	struct ptd_history *h;
	struct ptd_pt_stats st;
	struct ptd_perf_sim_stats ss;
	struct sigaction sa, old;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_wakeup;
	assert_int_equal(sigaction(SIGUSR2, &sa, &old), 0);
	wakeups = 0;
	launch_arg(&r, "pt", "fib", "16");
	pt_attr(&r, &attr, 1, 0);
	attr.aux_watermark = PAGE / 2;
	r.fd = r.k->ops->open(r.k, &attr, r.pid, -1, -1, 0);
	assert_true(r.fd >= 0);
	map_rings(&r, 64, 1, PAGE, 1);
	assert_int_equal(r.k->ops->fcntl(r.k, r.fd, F_SETOWN, getpid()), 0);
	assert_int_equal(r.k->ops->fcntl(r.k, r.fd, F_SETSIG, SIGUSR2), 0);
	assert_int_equal(r.k->ops->fcntl(r.k, r.fd, F_SETFL, O_ASYNC), 0);
	assert_int_equal(r.k->ops->fcntl(r.k, r.fd, F_GETSIG, 0), SIGUSR2);
	run_to_exit(&r, 1);
	sigaction(SIGUSR2, &old, NULL);
	assert_int_equal(r.exit_code, 0);
	ptd_perf_sim_stats(r.k, &ss);
	assert_true(ss.signals > 2);
	/* drained at each wakeup: nothing truncated, all of it read */
	assert_int_equal(r.aux_flags_or & PERF_AUX_FLAG_TRUNCATED, 0);
	/* more than the area holds, and none of it lost */
	assert_true(r.trace_size > 2 * PAGE);
	assert_int_equal(r.trace_size, ss.aux_bytes);
	h = decode(&r, &st);
	assert_int_equal(st.ngaps, 0);
	check_same(&r, h);
	ptd_history_free(h);
	finish(&r);
}

static void test_pt_linear_truncated(void **state)
{
	struct run r;
	struct perf_event_attr attr;
	struct ptd_history *h;
	struct ptd_pt_stats st;
	size_t nt, ng;
	uint64_t *t, *g;

	launch_arg(&r, "pt", "fib", "16");
	pt_attr(&r, &attr, 1, 0);
	r.fd = r.k->ops->open(r.k, &attr, r.pid, -1, -1, 0);
	assert_true(r.fd >= 0);
	map_rings(&r, 64, 1, PAGE, 1);
	run_to_exit(&r, 0);
	assert_int_equal(r.exit_code, 0);
	/* the area filled up: TRUNCATED, and the event stopped */
	assert_true(r.aux_flags_or & PERF_AUX_FLAG_TRUNCATED);
	assert_int_equal(r.trace_size, PAGE);
	/* what is there is the oldest trace, a prefix of the run */
	h = decode(&r, &st);
	t = ips_of(&r, r.truth, &nt);
	g = ips_of(&r, h, &ng);
	assert_true(ng > 50);
	assert_true(ng <= nt);
	for (size_t i = 0; i < ng; i++)
		if (g[i] != t[i] && g[i] != 0)
			fail_msg("instruction %zu differs", i);
	free(t);
	free(g);
	ptd_history_free(h);
	finish(&r);
}

static void bts_attr(struct perf_event_attr *attr)
{
	memset(attr, 0, sizeof(*attr));
	attr->size = sizeof(*attr);
	attr->type = PERF_TYPE_HARDWARE;
	attr->config = PERF_COUNT_HW_BRANCH_INSTRUCTIONS;
	attr->sample_period = 1;
	attr->sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_ADDR;
	attr->exclude_kernel = 1;
	attr->exclude_hv = 1;
	attr->exclude_idle = 1;
	attr->mmap = 1; /* the test's image needs libc's mapping */
	attr->mmap2 = 1;
}

static void test_bts_fib(void **state)
{
	struct run r;
	struct perf_event_attr attr;
	size_t nt, k = 0;
	uint64_t *t, ip;

	launch(&r, "bts", "fib");
	bts_attr(&attr);
	r.fd = r.k->ops->open(r.k, &attr, r.pid, -1, -1, 0);
	assert_true(r.fd >= 0);
	map_rings(&r, 256, 1, 0, 0);
	run_to_exit(&r, 0);
	assert_int_equal(r.exit_code, 0);
	assert_int_equal(r.nlost, 0);
	assert_true(r.nbts > 1000);
	/* gdb's blocks: [start, from0], [to0, from1], ... then the run from
	 * the last to up to where the history ends */
	t = ips_of(&r, r.truth, &nt);
	ip = r.start_pc;
	for (size_t i = 0; i < r.nbts; i += 2) {
		uint64_t from = r.bts[i], to = r.bts[i + 1];
		for (;;) {
			uint8_t buf[16];
			struct ptd_insn_info info;
			int got;
			assert_true(k < nt);
			if (t[k] != ip)
				fail_msg("instruction %zu: 0x%llx from BTS, 0x%llx executed", k,
					 (unsigned long long)ip, (unsigned long long)t[k]);
			k++;
			if (ip == from)
				break;
			got = ptd_image_read(r.img, ip, buf, sizeof(buf));
			assert_true(got > 0);
			assert_int_equal(ptd_disasm_decode(buf, (size_t)got, ip, &info), 0);
			ip += info.len;
		}
		ip = to;
	}
	/* the rest is one straight run */
	for (; k < nt; k++) {
		uint8_t buf[16];
		struct ptd_insn_info info;
		int got;
		assert_int_equal(t[k], ip);
		got = ptd_image_read(r.img, ip, buf, sizeof(buf));
		assert_true(got > 0);
		assert_int_equal(ptd_disasm_decode(buf, (size_t)got, ip, &info), 0);
		ip += info.len;
	}
	free(t);
	finish(&r);
}

static void test_bts_lost(void **state)
{
	struct run r;
	struct perf_event_attr attr;
	struct ptd_perf_sim_stats ss;

	launch(&r, "bts", "fib");
	bts_attr(&attr);
	r.fd = r.k->ops->open(r.k, &attr, r.pid, -1, -1, 0);
	assert_true(r.fd >= 0);
	/* two pages, writable, never drained while running */
	map_rings(&r, 2, 1, 0, 0);
	run_to_exit(&r, 0);
	assert_int_equal(r.exit_code, 0);
	ptd_perf_sim_stats(r.k, &ss);
	assert_true(ss.lost > 0);
	assert_true(r.nbts > 0);
	/* what was read is what fitted: fewer samples than branches */
	assert_true(r.nbts / 2 <= ss.samples);
	assert_true(r.nbts / 2 < r.nbts / 2 + ss.lost);
	finish(&r);
}

static void test_bts_lost_record(void **state)
{
	struct run r;
	struct perf_event_attr attr;
	struct sigaction sa, old;

	/* drained at every other wakeup: some batches are dropped, and the
	 * next one that fits is preceded by PERF_RECORD_LOST */
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_wakeup;
	assert_int_equal(sigaction(SIGIO, &sa, &old), 0);
	wakeups = 0;
	launch(&r, "bts", "fib");
	bts_attr(&attr);
	attr.watermark = 1;
	attr.wakeup_watermark = 3 * PAGE;
	r.fd = r.k->ops->open(r.k, &attr, r.pid, -1, -1, 0);
	assert_true(r.fd >= 0);
	map_rings(&r, 4, 1, 0, 0);
	assert_int_equal(r.k->ops->fcntl(r.k, r.fd, F_SETOWN, getpid()), 0);
	assert_int_equal(r.k->ops->fcntl(r.k, r.fd, F_SETFL, O_ASYNC), 0);
	{
		struct ptd_stop st;
		int n = 0;
		pid_t tid = r.pid;
		int signo = 0;
		for (;;) {
			int own;
			assert_int_equal(r.k->ops->resume(r.k, tid, 0, signo), 0);
			signo = 0;
			do {
				assert_int_equal(ptd_target_wait(r.t, &st, 1), 0);
				own = r.k->ops->on_stop(r.k, &st);
				assert_true(own >= 0);
				if (wakeups) {
					wakeups = 0;
					if (n++ % 3 == 2)
						drain(&r);
				}
			} while (own);
			if (st.kind == PTD_STOP_EXITED)
				break;
			if (st.kind == PTD_STOP_SIGNAL)
				signo = st.signo;
			tid = st.tid;
		}
		drain(&r);
	}
	sigaction(SIGIO, &old, NULL);
	assert_true(r.nlost > 0);
	assert_true(r.lost_records > 0);
	finish(&r);
}

static int on_sample(void *ctx, const struct perf_event_header *h, const void *rec)
{
	return on_record(ctx, h, rec);
}

/* gdb's BTS setup: the data ring read-only (overwrite mode); the newest
 * samples survive a long run and are the newest branches taken. */
static void test_bts_overwrite(void **state)
{
	struct run r;
	struct perf_event_attr attr;
	size_t nt, nb = 0, keep;
	uint64_t *t, *br, lost = 0;
	int err = 0;

	launch(&r, "bts", "fib");
	bts_attr(&attr);
	attr.mmap = attr.mmap2 = 0; /* samples only: one record size */
	r.fd = r.k->ops->open(r.k, &attr, r.pid, -1, -1, 0);
	assert_true(r.fd >= 0);
	r.map_len = 2 * PAGE;
	r.map = r.k->ops->mmap(r.k, r.fd, r.map_len, PROT_READ, 0, &err);
	assert_non_null(r.map);
	assert_int_equal(ptd_perf_ring_init(&r.ring, r.map, r.map_len, 0), 0);
	run_to_exit_quiet(&r);
	assert_int_equal(r.exit_code, 0);
	assert_int_equal(ptd_perf_ring_read_fixed(&r.ring, 24, on_sample, &r, &lost), PAGE / 24);
	assert_true(lost > 0);
	keep = r.nbts / 2;
	assert_int_equal(keep, PAGE / 24);
	/* the taken branches of the exact history */
	t = ips_of(&r, r.truth, &nt);
	br = malloc(2 * nt * sizeof(*br));
	assert_non_null(br);
	for (size_t i = 0; i + 1 < nt; i++) {
		uint8_t buf[16];
		struct ptd_insn_info info;
		int got = ptd_image_read(r.img, t[i], buf, sizeof(buf));
		assert_true(got > 0);
		assert_int_equal(ptd_disasm_decode(buf, (size_t)got, t[i], &info), 0);
		if (t[i + 1] != t[i] + info.len) {
			br[nb++] = t[i];
			br[nb++] = t[i + 1];
		}
	}
	assert_true(nb / 2 > keep);
	for (size_t i = 0; i < keep; i++) {
		size_t j = nb / 2 - keep + i;
		if (r.bts[2 * i] != br[2 * j] || r.bts[2 * i + 1] != br[2 * j + 1])
			fail_msg("sample %zu: 0x%llx -> 0x%llx, branch 0x%llx -> 0x%llx", i,
				 (unsigned long long)r.bts[2 * i],
				 (unsigned long long)r.bts[2 * i + 1],
				 (unsigned long long)br[2 * j], (unsigned long long)br[2 * j + 1]);
	}
	free(br);
	free(t);
	finish(&r);
}

static void test_refusals(void **state)
{
	struct run r;
	struct perf_event_attr attr;
	int err = 0, fd;
	static const int errs[] = {ENOENT, EACCES, EINVAL, ENOMEM, EOPNOTSUPP};
	char filter[4300];

	launch(&r, "pt", "fib");
	pt_attr(&r, &attr, 0, 0);
	/* injected failures */
	for (size_t i = 0; i < sizeof(errs) / sizeof(errs[0]); i++) {
		ptd_perf_sim_fail(r.k, "open", errs[i]);
		assert_int_equal(r.k->ops->open(r.k, &attr, r.pid, -1, -1, 0), -errs[i]);
	}
	/* the kernel's own checks */
	ptd_perf_sim_set_paranoid(r.k, 3);
	assert_int_equal(r.k->ops->open(r.k, &attr, r.pid, -1, -1, 0), -EACCES);
	ptd_perf_sim_set_paranoid(r.k, 2);
	attr.exclude_kernel = 0;
	assert_int_equal(r.k->ops->open(r.k, &attr, r.pid, -1, -1, 0), -EACCES);
	ptd_perf_sim_set_paranoid(r.k, -1);
	assert_int_equal(r.k->ops->open(r.k, &attr, r.pid, -1, -1, 0), -EOPNOTSUPP);
	attr.exclude_kernel = 1;
	assert_int_equal(r.k->ops->open(r.k, &attr, 1, -1, -1, 0), -ESRCH);
	assert_int_equal(r.k->ops->open(r.k, &attr, -1, -1, -1, 0), -EINVAL);
	attr.config |= 1ull << 63;
	assert_int_equal(r.k->ops->open(r.k, &attr, r.pid, -1, -1, 0), -EINVAL);
	attr.config &= ~(1ull << 63);
	attr.config |= 1ull << 1; /* cyc with cyc_thresh 0: valid */
	fd = r.k->ops->open(r.k, &attr, r.pid, -1, -1, 0);
	assert_true(fd >= 0);
	assert_int_equal(r.k->ops->close(r.k, fd), 0);
	attr.config &= ~(1ull << 1);
	attr.config |= 1ull << 12; /* ptw: no ptwrite cap */
	assert_int_equal(r.k->ops->open(r.k, &attr, r.pid, -1, -1, 0), -EINVAL);
	attr.config &= ~(1ull << 12);
	attr.size = 8;
	assert_int_equal(r.k->ops->open(r.k, &attr, r.pid, -1, -1, 0), -E2BIG);
	assert_int_equal(attr.size, sizeof(attr));
	attr.type = 12345;
	assert_int_equal(r.k->ops->open(r.k, &attr, r.pid, -1, -1, 0), -ENOENT);
	pt_attr(&r, &attr, 0, 0);

	r.fd = r.k->ops->open(r.k, &attr, r.pid, -1, -1, 0);
	assert_true(r.fd >= 0);
	assert_int_equal(r.k->ops->close(r.k, r.fd + 1000), -EBADF);
	/* data ring: 1 + 2^n pages */
	assert_null(r.k->ops->mmap(r.k, r.fd, 4 * PAGE, PROT_READ | PROT_WRITE, 0, &err));
	assert_int_equal(err, -EINVAL);
	ptd_perf_sim_fail(r.k, "mmap", ENOMEM);
	assert_null(r.k->ops->mmap(r.k, r.fd, 5 * PAGE, PROT_READ | PROT_WRITE, 0, &err));
	assert_int_equal(err, -ENOMEM);
	/* AUX before the data ring */
	assert_null(r.k->ops->mmap(r.k, r.fd, PAGE, PROT_READ, 5 * PAGE, &err));
	assert_int_equal(err, -EINVAL);
	r.map_len = 5 * PAGE;
	r.map = r.k->ops->mmap(r.k, r.fd, r.map_len, PROT_READ | PROT_WRITE, 0, &err);
	assert_non_null(r.map);
	{
		volatile struct perf_event_mmap_page *pg = r.map;
		pg->aux_offset = 2 * PAGE; /* inside the data ring */
		pg->aux_size = PAGE;
		assert_null(r.k->ops->mmap(r.k, r.fd, PAGE, PROT_READ, 2 * PAGE, &err));
		assert_int_equal(err, -EINVAL);
		pg->aux_offset = 5 * PAGE;
		pg->aux_size = 3 * PAGE; /* not a power of two */
		assert_null(r.k->ops->mmap(r.k, r.fd, 3 * PAGE, PROT_READ, 5 * PAGE, &err));
		assert_int_equal(err, -EINVAL);
		pg->aux_size = 4 * PAGE;
		r.aux_len = 4 * PAGE;
		r.aux = r.k->ops->mmap(r.k, r.fd, r.aux_len, PROT_READ, 5 * PAGE, &err);
		assert_non_null(r.aux);
		/* the caller's read-only view really is read-only */
		assert_int_equal(mprotect(r.aux, r.aux_len, PROT_READ), 0);
	}
	/* ioctls */
	assert_int_equal(r.k->ops->ioctl(r.k, r.fd, PERF_EVENT_IOC_DISABLE, 0), 0);
	assert_int_equal(r.k->ops->ioctl(r.k, r.fd, PERF_EVENT_IOC_ENABLE, 0), 0);
	ptd_perf_sim_fail(r.k, "ioctl", EINVAL);
	assert_int_equal(r.k->ops->ioctl(r.k, r.fd, PERF_EVENT_IOC_ENABLE, 0), -EINVAL);
	assert_int_equal(r.k->ops->ioctl(r.k, r.fd, 0x1234, 0), -ENOTTY);
	assert_int_equal(r.k->ops->ioctl(r.k, r.fd, PERF_EVENT_IOC_SET_FILTER,
					 (unsigned long)"filter nonsense"),
			 -EINVAL);
	assert_int_equal(r.k->ops->ioctl(r.k, r.fd, PERF_EVENT_IOC_SET_FILTER,
					 (unsigned long)"filter 0x0/0x10@/no/such/file"),
			 -ENOENT);
	snprintf(filter, sizeof(filter), "filter 0x0/0x100@%s/fib", progdir);
	if (progdir[0] == '/') {
		assert_int_equal(r.k->ops->ioctl(r.k, r.fd, PERF_EVENT_IOC_SET_FILTER,
						 (unsigned long)filter),
				 0);
	}
	snprintf(filter, sizeof(filter),
		 "filter 0x0/0x10@/bin/sh filter 0x10/0x10@/bin/sh filter 0x20/0x10@/bin/sh");
	assert_int_equal(
		r.k->ops->ioctl(r.k, r.fd, PERF_EVENT_IOC_SET_FILTER, (unsigned long)filter),
		-EOPNOTSUPP);
	assert_int_equal(r.k->ops->ioctl(r.k, r.fd, PERF_EVENT_IOC_SET_FILTER,
					 (unsigned long)"start 0x0/0x10@/bin/sh"),
			 -EOPNOTSUPP);
	{
		uint64_t id = 0;
		assert_int_equal(r.k->ops->ioctl(r.k, r.fd, PERF_EVENT_IOC_ID, (unsigned long)&id),
				 0);
		assert_true(id > 0);
	}
	/* BTS on the pt machine: a period other than one is a counter */
	bts_attr(&attr);
	attr.sample_period = 2;
	assert_int_equal(r.k->ops->open(r.k, &attr, r.pid, -1, -1, 0), -EOPNOTSUPP);
	ptd_target_kill(r.t);
	finish(&r);
}

int main(void)
{
	const char *d = getenv("TESTPROGS");
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_pt_fib),
		cmocka_unit_test(test_pt_fib_noretcomp),
		cmocka_unit_test(test_pt_signal),
		cmocka_unit_test(test_pt_dlopen),
		cmocka_unit_test(test_pt_exec),
		cmocka_unit_test(test_pt_threads),
		cmocka_unit_test(test_pt_filter),
		cmocka_unit_test(test_pt_tiny_circular),
		cmocka_unit_test(test_pt_linear_watermark),
		cmocka_unit_test(test_pt_linear_truncated),
		cmocka_unit_test(test_bts_fib),
		cmocka_unit_test(test_bts_lost),
		cmocka_unit_test(test_bts_lost_record),
		cmocka_unit_test(test_bts_overwrite),
	};
	char cwd[2048];

	if (d)
		snprintf(progdir, sizeof(progdir), "%s", d);
	else if (getcwd(cwd, sizeof(cwd)))
		snprintf(progdir, sizeof(progdir), "%s/testprogs/build", cwd);
	else
		snprintf(progdir, sizeof(progdir), "testprogs/build");
	if (getenv("PTD_TEST_FILTER"))
		cmocka_set_test_filter(getenv("PTD_TEST_FILTER"));
	return cmocka_run_group_tests(tests, NULL, NULL);
}
