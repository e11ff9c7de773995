/*
 * intel_bts perf.data in (src/decode/perfdata.c): a test program is
 * recorded with the step recorder (the ground truth) from main to _exit;
 * its taken branches are written as the 24-byte BTS records `perf record
 * -e intel_bts//u --per-thread` would have put in the AUX area (a record
 * with from = 0 where tracing starts, the kernel's side of every syscall
 * as records with kernel addresses), with the MMAP2 records of the
 * program's code, into a perf.data; `ptdbg --load` of that file must give
 * the step recorder's instructions exactly, up to the target of the last
 * taken branch (where a branch trace's knowledge ends), which is the tail.
 * Lost records (an AUX record flagged truncated) give one gap and the
 * history goes on at the next record's target; records that cannot be
 * followed through the code, only kernel records, a per-cpu recording and
 * a cut record give a gap or a clear error; every byte corrupted and every
 * length cut gives a bundle or an error, never a crash.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "decode/bundle.h"
#include "decode/perfdata.h"
#include "history/history.h"
#include "ptdbg/ptdbg.h"
#include "session/session.h"

#define KERNEL_ENTRY 0xffffffff81a00000ull
#define KERNEL_EXIT 0xffffffff81a00150ull

static char progdir[4096];
static char tmpdir[64];

/* What the step recorder recorded: the ip of each number, the number of
 * the tail; the process's code mappings. */
struct steprec {
	uint64_t *ips;
	uint64_t n; /* numbers 1..n, n the tail */
	int pid;
	struct {
		char path[512];
		uint64_t start, len, pgoff;
	} maps[64];
	int nmaps;
	/* the BTS records, and for each its `to`'s number */
	uint64_t (*recs)[3];
	uint64_t *to_num;
	size_t nrecs;
	int nsys; /* syscalls (kernel record pairs) among them */
};

static void rec_add(struct steprec *r, uint64_t from, uint64_t to, uint64_t to_num)
{
	r->recs = realloc(r->recs, (r->nrecs + 1) * sizeof(*r->recs));
	r->to_num = realloc(r->to_num, (r->nrecs + 1) * sizeof(*r->to_num));
	assert_non_null(r->recs);
	assert_non_null(r->to_num);
	r->recs[r->nrecs][0] = from;
	r->recs[r->nrecs][1] = to;
	r->recs[r->nrecs][2] = 0x10; /* "predicted": ignored by the reader */
	r->to_num[r->nrecs] = to_num;
	r->nrecs++;
}

static void step_record(const char *prog, struct steprec *out)
{
	char path[4200], maps[64], line[1024];
	char *argv[2];
	struct ptd_session *s = ptd_session_alloc();
	struct ptd_event ev;
	struct ptd_hcursor c;
	const struct ptd_history *h;
	uint64_t k = 0;
	FILE *f;

	memset(out, 0, sizeof(*out));
	snprintf(path, sizeof(path), "%s/%s", progdir, prog);
	argv[0] = path;
	argv[1] = NULL;
	assert_non_null(s);
	assert_int_equal(ptd_session_set_program(s, argv), 0);
	assert_int_equal(ptd_session_set_trace_format(s, "blocks"), 0);
	assert_true(ptd_session_break(s, "main", 1) > 0);
	assert_int_equal(ptd_session_run(s, 0, &ev), 0);
	assert_int_equal(ev.kind, PTD_EVENT_BREAKPOINT);
	assert_true(ptd_session_break(s, "_exit", 0) > 0);
	assert_int_equal(ptd_session_record_start(s, PTD_METHOD_STEP), 0);
	assert_int_equal(ptd_session_motion(s, PTD_MOTION_CONTINUE, 0, &ev), 0);
	assert_int_equal(ev.kind, PTD_EVENT_BREAKPOINT);
	h = ptd_session_history(s);
	assert_non_null(h);
	out->n = ptd_history_count(h);
	assert_true(out->n > 100);
	out->ips = calloc(out->n + 1, sizeof(uint64_t));
	assert_non_null(out->ips);
	/* The branch records: every taken branch; a syscall that comes back
	 * to the next instruction as the kernel's two records. */
	assert_int_equal(ptd_hcursor_goto(&c, h, 1), 0);
	rec_add(out, 0, c.ip, 1); /* tracing starts at main */
	do {
		uint64_t ip = c.ip, fall = c.ip + c.len;
		uint8_t cls = c.iclass;

		assert_false(c.is_gap);
		out->ips[++k] = c.ip;
		if (k == out->n)
			break;
		assert_int_equal(ptd_hcursor_next(&c), 0);
		assert_false(c.is_gap);
		/* (a jump to the next instruction is a taken branch too: a
		 * PLT slot's first jump before the symbol is bound) */
		if (c.ip != fall || cls == PTD_IC_JUMP || cls == PTD_IC_CALL || cls == PTD_IC_RET)
			rec_add(out, ip, c.ip, k + 1);
		else if (cls == PTD_IC_FAR_CALL) {
			out->nsys++;
			rec_add(out, ip, KERNEL_ENTRY, 0);
			rec_add(out, KERNEL_EXIT, c.ip, 0);
		}
	} while (1);
	assert_int_equal(k, out->n);
	out->pid = (int)ptd_session_pid(s);
	snprintf(maps, sizeof(maps), "/proc/%d/maps", out->pid);
	f = fopen(maps, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		unsigned long long lo, hi, off;
		char perms[8], file[512];

		if (sscanf(line, "%llx-%llx %7s %llx %*s %*s %511s", &lo, &hi, perms, &off, file) !=
			    5 ||
		    perms[2] != 'x' || file[0] != '/')
			continue;
		assert_true(out->nmaps < 64);
		snprintf(out->maps[out->nmaps].path, sizeof(out->maps[0].path), "%s", file);
		out->maps[out->nmaps].start = lo;
		out->maps[out->nmaps].len = hi - lo;
		out->maps[out->nmaps].pgoff = off;
		out->nmaps++;
	}
	fclose(f);
	assert_true(out->nmaps >= 2); /* the program and libc at least */
	ptd_session_free(s);
}

static void steprec_free(struct steprec *r)
{
	free(r->ips);
	free(r->recs);
	free(r->to_num);
}

/* ---- a perf.data as perf record -e intel_bts//u --per-thread writes it -- */

struct pdw {
	uint8_t *b;
	size_t n, cap, data_off;
};

static void put(struct pdw *p, const void *d, size_t n)
{
	if (p->n + n > p->cap) {
		p->cap = (p->n + n) * 2 + 4096;
		p->b = realloc(p->b, p->cap);
		assert_non_null(p->b);
	}
	memcpy(p->b + p->n, d, n);
	p->n += n;
}

static void u16(struct pdw *p, uint16_t v)
{
	put(p, &v, 2);
}

static void u32(struct pdw *p, uint32_t v)
{
	put(p, &v, 4);
}

static void u64(struct pdw *p, uint64_t v)
{
	put(p, &v, 8);
}

static void hdr(struct pdw *p, uint32_t type, uint16_t misc, uint16_t size)
{
	u32(p, type);
	u16(p, misc);
	u16(p, size);
}

/* sample_id trailer: PERF_SAMPLE_TID */
static void trailer(struct pdw *p, int pid)
{
	u32(p, (uint32_t)pid);
	u32(p, (uint32_t)pid);
}

/* Header, one attr (intel_bts, sample_type TID, sample_id_all),
 * AUXTRACE_INFO of type 2, COMM and the MMAP2s of @r. */
static void pdw_begin(struct pdw *p, const struct steprec *r)
{
	uint8_t attr[128];
	uint64_t st = 1u << 1, flags = 1ull << 18;
	uint32_t t = 9, sz = 128;
	int i;

	memset(p, 0, sizeof(*p));
	memset(attr, 0, sizeof(attr));
	put(p, attr, 104); /* the file header, filled in by pdw_end */
	memcpy(attr, &t, 4);
	memcpy(attr + 4, &sz, 4);
	memcpy(attr + 24, &st, 8);
	memcpy(attr + 40, &flags, 8);
	put(p, attr, sizeof(attr));
	u64(p, 0);
	u64(p, 0);
	p->data_off = p->n;
	/* AUXTRACE_INFO: type 2 (intel_bts), priv: pmu type, time shift,
	 * mult, zero, cap_user_time_zero, snapshot mode */
	hdr(p, 70, 0, 16 + 6 * 8);
	u32(p, 2);
	u32(p, 0);
	u64(p, 9);
	for (i = 1; i < 6; i++)
		u64(p, 0);
	hdr(p, 3, 0, 8 + 8 + 16 + 8); /* COMM */
	u32(p, (uint32_t)r->pid);
	u32(p, (uint32_t)r->pid);
	put(p, "prog\0\0\0\0\0\0\0\0\0\0\0\0", 16);
	trailer(p, r->pid);
	for (i = 0; i < r->nmaps; i++) {
		size_t nl = (strlen(r->maps[i].path) + 1 + 7) / 8 * 8;
		uint8_t name[520];

		memset(name, 0, sizeof(name));
		memcpy(name, r->maps[i].path, strlen(r->maps[i].path));
		hdr(p, 10, 2 /* USER */, (uint16_t)(72 + nl + 8));
		u32(p, (uint32_t)r->pid);
		u32(p, (uint32_t)r->pid);
		u64(p, r->maps[i].start);
		u64(p, r->maps[i].len);
		u64(p, r->maps[i].pgoff);
		u32(p, 0); /* maj, min, ino, ino_generation */
		u32(p, 0);
		u64(p, 0);
		u64(p, 0);
		u32(p, 5); /* PROT_READ | PROT_EXEC */
		u32(p, 2); /* MAP_PRIVATE */
		put(p, name, nl);
		trailer(p, r->pid);
	}
}

static void pdw_auxtrace(struct pdw *p, uint64_t off, int tid, uint32_t cpu, const void *d,
			 size_t n)
{
	hdr(p, 71, 0, 48);
	u64(p, n);
	u64(p, off);
	u64(p, 0);
	u32(p, 0);
	u32(p, (uint32_t)tid);
	u32(p, cpu);
	u32(p, 0);
	put(p, d, n);
}

static void pdw_aux(struct pdw *p, uint64_t off, uint64_t size, uint64_t flags, int pid)
{
	hdr(p, 11, 0, 32 + 8);
	u64(p, off);
	u64(p, size);
	u64(p, flags);
	trailer(p, pid);
}

static void pdw_end(struct pdw *p, const char *path)
{
	uint64_t v[6] = {104, 128 + 16, 104, 144, p->data_off, p->n - p->data_off};
	FILE *f;

	memcpy(p->b, "PERFILE2", 8);
	memcpy(p->b + 8, v, sizeof(v));
	f = fopen(path, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(p->b, 1, p->n, f), p->n);
	assert_int_equal(fclose(f), 0);
	free(p->b);
}

/* The loaded history: ip of each number (0 for a gap), the tail. */
static uint64_t *load_history(const char *path, uint64_t *n, uint64_t *tail)
{
	struct ptd_session *s = ptd_session_alloc();
	const struct ptd_history *h;
	struct ptd_hcursor c;
	uint64_t *ips, k = 0;

	assert_non_null(s);
	if (ptd_session_load(s, path) < 0)
		fail_msg("loading %s: %s", path, ptd_last_error(0));
	h = ptd_session_history(s);
	assert_non_null(h);
	*n = ptd_history_count(h);
	*tail = ptd_history_tail(h);
	ips = calloc(*n + 1, sizeof(*ips));
	assert_non_null(ips);
	assert_int_equal(ptd_hcursor_goto(&c, h, 1), 0);
	do
		ips[++k] = c.is_gap ? 0 : c.ip;
	while (ptd_hcursor_next(&c) == 0);
	assert_int_equal(k, *n);
	ptd_session_free(s);
	return ips;
}

static void check_same(const uint64_t *want, uint64_t wn, const uint64_t *got, uint64_t gn,
		       const char *what)
{
	uint64_t i;

	for (i = 1; i <= wn && i <= gn; i++)
		if (want[i] != got[i])
			fail_msg("%s: number %llu is 0x%llx, the step recorder's 0x%llx", what,
				 (unsigned long long)i, (unsigned long long)got[i],
				 (unsigned long long)want[i]);
	if (wn != gn)
		fail_msg("%s: %llu numbers, the step recorder's %llu", what, (unsigned long long)gn,
			 (unsigned long long)wn);
}

/* The number of the last record's target (the loaded tail). */
static uint64_t last_to_num(const struct steprec *r)
{
	size_t i;

	for (i = r->nrecs; i-- > 0;)
		if (r->to_num[i])
			return r->to_num[i];
	return 0;
}

static void equal_to_step(const char *prog)
{
	struct steprec r;
	struct pdw p;
	char path[128], what[128];
	uint64_t *got, n, tail, last;
	size_t half;

	step_record(prog, &r);
	/* exit() flushes stdout with write(2) before _exit: the kernel's
	 * records are in there */
	assert_true(r.nsys > 0);
	snprintf(path, sizeof(path), "%s/%s.data", tmpdir, prog);
	pdw_begin(&p, &r);
	/* In two AUXTRACE chunks, split inside a record: perf copies AUX
	 * bytes as they are. */
	half = r.nrecs * 24 / 2 + 5;
	pdw_auxtrace(&p, 0, r.pid, UINT32_MAX, r.recs, half);
	pdw_auxtrace(&p, half, r.pid, UINT32_MAX, (uint8_t *)r.recs + half, r.nrecs * 24 - half);
	pdw_end(&p, path);
	got = load_history(path, &n, &tail);
	last = last_to_num(&r);
	assert_true(last > 1);
	/* Up to the last taken branch: its target is the tail. */
	snprintf(what, sizeof(what), "%s via intel_bts", prog);
	check_same(r.ips, last - 1, got, n - 1, what);
	assert_int_equal(tail, r.ips[last]);
	free(got);

	/* Lost records: an AUX record flagged truncated ends the data at
	 * record k; records k.. come in the next chunk.  One gap, then the
	 * history goes on at record k's target. */
	{
		size_t k = r.nrecs / 3, j;
		uint64_t before = 0, after = 0, g, gap_at = 0;

		while (k < r.nrecs && !r.to_num[k])
			k++;
		assert_true(k + 1 < r.nrecs);
		for (j = k; j-- > 0;)
			if (r.to_num[j]) {
				before = r.to_num[j];
				break;
			}
		after = r.to_num[k];
		pdw_begin(&p, &r);
		pdw_aux(&p, 0, k * 24, 1 /* PERF_AUX_FLAG_TRUNCATED */, r.pid);
		pdw_auxtrace(&p, 0, r.pid, UINT32_MAX, r.recs, k * 24);
		/* the data after the loss lands at the next AUX offset */
		pdw_auxtrace(&p, k * 24 + 4096, r.pid, UINT32_MAX, r.recs[k], (r.nrecs - k) * 24);
		pdw_end(&p, path);
		got = load_history(path, &n, &tail);
		for (g = 1; g < n; g++)
			if (!got[g]) {
				assert_int_equal(gap_at, 0); /* one gap */
				gap_at = g;
			}
		assert_true(gap_at > 0);
		/* before the gap: the step recorder's instructions up to the
		 * branch record k - 1 ... (its target is where the loss begins) */
		snprintf(what, sizeof(what), "%s before the lost records", prog);
		assert_true(gap_at <= before);
		check_same(r.ips, gap_at - 1, got, gap_at - 1, what);
		/* ... after it, from record k's target on */
		snprintf(what, sizeof(what), "%s after the lost records", prog);
		check_same(r.ips + after - 1, last - after, got + gap_at, n - gap_at - 1, what);
		assert_int_equal(tail, r.ips[last]);
		free(got);
	}
	steprec_free(&r);
}

static void test_fib(void **state)
{
	(void)state;
	equal_to_step("fib");
}

static void test_loops(void **state)
{
	(void)state;
	equal_to_step("loops");
}

static void test_funcptr(void **state)
{
	(void)state;
	equal_to_step("funcptr");
}

static void test_switch_O2(void **state)
{
	(void)state;
	equal_to_step("switch-O2");
}

/* Bad input: each ends in a gap or a clear error, never a crash. */
static void test_bad(void **state)
{
	struct steprec r;
	struct pdw p;
	struct ptd_bundle *b = NULL;
	char path[128];
	uint64_t *got, n, tail, g, gaps = 0;
	uint64_t recs[4][3];
	int rc;

	(void)state;
	step_record("fib", &r);
	snprintf(path, sizeof(path), "%s/bad.data", tmpdir);

	/* Only kernel records: nothing in user code. */
	memset(recs, 0, sizeof(recs));
	recs[0][0] = KERNEL_EXIT;
	recs[0][1] = KERNEL_ENTRY;
	recs[1][0] = KERNEL_ENTRY;
	recs[1][1] = KERNEL_EXIT;
	pdw_begin(&p, &r);
	pdw_auxtrace(&p, 0, r.pid, UINT32_MAX, recs, 2 * 24);
	pdw_end(&p, path);
	rc = ptd_perfdata_load(path, &b);
	assert_int_equal(rc, -ptde_bad_trace);
	assert_null(b);
	assert_non_null(strstr(ptd_last_error(rc), "no intel_bts branch records in user code"));

	/* Per cpu: refused with the option to use. */
	pdw_begin(&p, &r);
	pdw_auxtrace(&p, 0, r.pid, 0, r.recs, 24 * 4);
	pdw_end(&p, path);
	rc = ptd_perfdata_load(path, &b);
	assert_int_equal(rc, -ptde_bad_trace);
	assert_non_null(strstr(ptd_last_error(rc), "intel_bts//u --per-thread"));

	/* A record whose branch source cannot be reached from the previous
	 * target (the records swapped), one into unmapped code, and a record
	 * cut short at the end: gaps, the rest decodes. */
	{
		size_t m = r.nrecs < 40 ? r.nrecs : 40;
		uint64_t(*v)[3] =
			calloc(m + 4, sizeof(*v)); /* (the cut record: 11 bytes of one more) */

		assert_non_null(v);
		memcpy(v, r.recs, m * sizeof(*v));
		memcpy(v[m], r.recs[m / 2 + 1], sizeof(v[0]));
		memcpy(v[m + 1], r.recs[m / 2], sizeof(v[0]));
		v[m + 2][0] = r.recs[m / 2][1] + 1;
		v[m + 2][1] = 0x10; /* nothing mapped there */
		pdw_begin(&p, &r);
		pdw_auxtrace(&p, 0, r.pid, UINT32_MAX, v, (m + 3) * 24 + 11);
		pdw_end(&p, path);
		free(v);
	}
	got = load_history(path, &n, &tail);
	for (g = 1; g < n; g++)
		gaps += !got[g];
	assert_true(gaps >= 1);
	assert_int_equal(got[1], r.ips[1]);
	free(got);

	/* Tracing stopped (a record with `to` 0) after branch source i1 and
	 * started again (`from` 0) at record i2's target: the step
	 * recorder's instructions up to i1's source (less the block ending
	 * there, whose outcome the PT written for it cannot give), one gap,
	 * then exactly from i2's target on. */
	{
		size_t i1 = 20, i2, j, k = 0;
		uint64_t(*v)[3] = calloc(r.nrecs + 2, sizeof(*v));
		uint64_t from_num = 0, gap_at = 0;

		assert_non_null(v);
		while (i1 < r.nrecs && !r.to_num[i1])
			i1++;
		i2 = i1 + 5;
		while (i2 < r.nrecs && !r.to_num[i2])
			i2++;
		assert_true(i2 < r.nrecs);
		for (j = 0; j < i1; j++)
			memcpy(v[k++], r.recs[j], sizeof(v[0]));
		v[k][0] = r.recs[i1][0]; /* stop after i1's source */
		v[k++][1] = 0;
		v[k][0] = 0; /* start at i2's target */
		v[k++][1] = r.recs[i2][1];
		for (j = i2 + 1; j < r.nrecs; j++)
			memcpy(v[k++], r.recs[j], sizeof(v[0]));
		/* i1's source is the instruction before its target */
		from_num = r.to_num[i1] - 1;
		pdw_begin(&p, &r);
		pdw_auxtrace(&p, 0, r.pid, UINT32_MAX, v, k * 24);
		pdw_end(&p, path);
		free(v);
		got = load_history(path, &n, &tail);
		gaps = 0;
		for (g = 1; g < n; g++)
			if (!got[g]) {
				gaps++;
				gap_at = g;
			}
		assert_int_equal(gaps, 1);
		assert_true(gap_at > 1 && gap_at <= from_num + 1);
		check_same(r.ips, gap_at - 1, got, gap_at - 1, "fib before tracing stopped");
		check_same(r.ips + r.to_num[i2] - 1, last_to_num(&r) - r.to_num[i2], got + gap_at,
			   n - gap_at - 1, "fib after tracing started again");
		free(got);
	}
	steprec_free(&r);
}

/* Every byte of a small intel_bts perf.data set to 0x00 and to 0xff in
 * turn, and every length cut: each parse ends in a bundle or an error with
 * a message, never a crash (run under ASan/UBSan too). */
static void test_corrupt(void **state)
{
	struct steprec r;
	struct pdw p;
	char path[128];
	uint8_t *orig, *buf;
	size_t n, i, nrec;
	long sz;
	FILE *f;
	int ok = 0, bad = 0;

	(void)state;
	step_record("fib", &r);
	snprintf(path, sizeof(path), "%s/corrupt.data", tmpdir);
	nrec = r.nrecs < 24 ? r.nrecs : 24;
	pdw_begin(&p, &r);
	pdw_aux(&p, 0, 24 * 8, 1, r.pid);
	pdw_auxtrace(&p, 0, r.pid, UINT32_MAX, r.recs, nrec * 24);
	pdw_end(&p, path);
	f = fopen(path, "rb");
	assert_non_null(f);
	assert_int_equal(fseek(f, 0, SEEK_END), 0);
	sz = ftell(f);
	assert_true(sz > 0);
	n = (size_t)sz;
	rewind(f);
	orig = malloc(n);
	buf = malloc(n);
	assert_non_null(orig);
	assert_non_null(buf);
	assert_int_equal(fread(orig, 1, n, f), n);
	fclose(f);
	for (i = 0; i < 2 * n + n; i++) {
		struct ptd_bundle *b = NULL;
		size_t len = n;
		int rc;

		memcpy(buf, orig, n);
		if (i < 2 * n)
			buf[i / 2] = i % 2 ? 0xff : 0x00;
		else
			len = i - 2 * n; /* cut */
		rc = ptd_perfdata_parse(buf, len, "corrupt.data", 0, &b);
		if (rc == 0) {
			assert_non_null(b);
			ptd_bundle_free(b);
			ok++;
		} else {
			assert_null(b);
			assert_true(strlen(ptd_last_error(rc)) > 0);
			bad++;
		}
	}
	if (getenv("PTD_TEST_VERBOSE"))
		printf("%d parsed, %d refused\n", ok, bad);
	assert_true(ok > 0 && bad > 0);
	free(orig);
	free(buf);
	steprec_free(&r);
}

static int setup(void **state)
{
	(void)state;
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/ptd-btsdata-XXXXXX");
	return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	return system(cmd) == 0 ? 0 : -1;
}

int main(void)
{
	const char *d = getenv("TESTPROGS");
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fib),	cmocka_unit_test(test_loops),
		cmocka_unit_test(test_funcptr), cmocka_unit_test(test_switch_O2),
		cmocka_unit_test(test_bad),	cmocka_unit_test(test_corrupt),
	};

	snprintf(progdir, sizeof(progdir), "%s", d ? d : "testprogs/build");
	if (getenv("PTD_TEST_FILTER"))
		cmocka_set_test_filter(getenv("PTD_TEST_FILTER"));
	return cmocka_run_group_tests(tests, setup, teardown);
}
