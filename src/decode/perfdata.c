/*
 * perf.data reader and writer for per-thread Intel PT (format summary in
 * perfdata.h).  The reader walks the file once with every offset and size
 * checked against the bytes it has, collects each thread's AUX stream, the
 * executable mappings and the cpu, and hands back a struct ptd_bundle, so
 * a perf.data takes the same loading path as a trace bundle.  The writer
 * writes what `perf record -e intel_pt//u --per-thread` would have written
 * for the same execution: perf's own Intel PT decoder (not libipt) reads
 * it, which is how the tests check ptdbg's decoding against an independent
 * implementation.
 */
#include "decode/perfdata.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <intel-pt.h>

#include "disasm/disasm.h"
#include "history/history.h"
#include "record/ptconv.h"
#include "record/ptsynth.h"
#include "util/error.h"

/* perf's own record types (tools/lib/perf/include/perf/event.h). */
enum {
	REC_HEADER_ATTR = 64,
	REC_HEADER_BUILD_ID = 67,
	REC_FINISHED_ROUND = 68,
	REC_ID_INDEX = 69,
	REC_AUXTRACE_INFO = 70,
	REC_AUXTRACE = 71,
	REC_AUXTRACE_ERROR = 72,
	REC_COMPRESSED = 81,
};

/* Feature bits (tools/perf/util/header.h). */
enum {
	FEAT_BUILD_ID = 2,
	FEAT_ARCH = 6,
	FEAT_NRCPUS = 7,
	FEAT_CPUID = 9,
	FEAT_BITS = 256,
};

/* AUXTRACE_INFO types and the Intel PT priv[] slots (tools/perf/util/
 * auxtrace.h, intel-pt.h). */
enum { AUXTRACE_INTEL_PT = 1, AUXTRACE_INTEL_BTS = 2 };
enum {
	PT_PMU_TYPE,
	PT_TIME_SHIFT,
	PT_TIME_MULT,
	PT_TIME_ZERO,
	PT_CAP_USER_TIME_ZERO,
	PT_TSC_BIT,
	PT_NORETCOMP_BIT,
	PT_HAVE_SCHED_SWITCH,
	PT_SNAPSHOT_MODE,
	PT_PER_CPU_MMAPS,
	PT_MTC_BIT,
	PT_MTC_FREQ_BITS,
	PT_TSC_CTC_N,
	PT_TSC_CTC_D,
	PT_CYC_BIT,
	PT_MAX_NONTURBO_RATIO,
	PT_FILTER_STR_LEN,
	PT_PRIV_MAX,
};

#define MAGIC2 0x32454c4946524550ull /* "PERFILE2" read as little-endian u64 */
#define MAGIC2_SWAP 0x50455246494c4532ull
#define MAGIC1 0x454c494652455000ull /* "\0PERFILE" (version 1: not supported) */
#define FILE_HEADER_SIZE 104
#define FILE_HEADER_SIZE_NOFEAT 72
#define ATTR_SIZE 128 /* PERF_ATTR_SIZE_VER7, what perf 6.1 writes */
#define AUXTRACE_REC_SIZE 48
#define NAME_ALIGN 64
#define MAX_ATTRS 256
#define MAX_THREADS 65536
#define MAX_MAPS 65536
#define MAX_STREAM (64ull << 30)
#define MISC_BUILD_ID_SIZE (1u << 15)
#define MISC_MMAP_DATA (1u << 13)
/* intel_bts AUX data: records of {u64 from, u64 to, u64 flags} (Intel SDM
 * vol. 3, "BTS record format", 64-bit). */
#define BTS_RECORD 24

/* PT packets the reader splices in where data was lost: OVF, and the PSB
 * pattern it then resynchronises at. */
static const uint8_t pt_ovf[2] = {0x02, 0xf3};
static const uint8_t pt_psb[16] = {0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82,
				   0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82};

static uint16_t rd16(const uint8_t *p)
{
	uint16_t v;

	memcpy(&v, p, 2);
	return v;
}

static uint32_t rd32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

static uint64_t rd64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

int ptd_perfdata_is(const char *path)
{
	struct stat st;
	uint8_t m[8];
	int fd, ok = 0;

	if (!path || stat(path, &st) < 0 || !S_ISREG(st.st_mode))
		return 0;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	if (read(fd, m, 8) == 8) {
		uint64_t v = rd64(m);

		ok = v == MAGIC2 || v == MAGIC2_SWAP || v == MAGIC1 || !memcmp(m, "PERFFILE", 8);
	}
	close(fd);
	return ok;
}

/* ---- reader ------------------------------------------------------------- */

struct rd_stream {
	int tid;       /* -1 until known */
	uint32_t idx;  /* perf's AUX mmap index: the queue */
	uint8_t *data; /* the concatenated trace */
	size_t size, cap;
	uint64_t next; /* AUX offset the next chunk continues at */
	int have_next;
	uint64_t *lost; /* AUX offsets after which data was lost (AUX flags) */
	size_t nlost, caplost;
	int need_psb; /* data was lost: skip to the next PSB */
	int bts;      /* intel_bts: 24-byte branch records, not PT */
	/* intel_bts: byte offsets in data before which records were lost */
	uint64_t *holes;
	size_t nholes, capholes;
};

struct rd_attr {
	uint32_t type;
	uint64_t config, sample_type;
	int sample_id_all;
	uint64_t *ids;
	size_t nids;
};

struct reader {
	const uint8_t *p;
	size_t size;
	const char *name;
	struct rd_attr *attrs;
	size_t nattrs;
	struct rd_stream *st;
	size_t nst, capst, capmaps, capbids;
	int have_info;
	int bts; /* AUXTRACE_INFO says intel_bts */
	uint64_t pt_type;
	int per_cpu;
	/* build-ids from HEADER_BUILD_ID, by file name */
	struct rd_bid {
		char *name;
		uint8_t id[PTD_BUILD_ID_MAX];
		uint8_t len;
	} * bids;
	size_t nbids;
	/* mappings, in record order (later ones override) */
	struct rd_map {
		char *path;
		uint64_t start, len, pgoff;
		uint8_t id[PTD_BUILD_ID_MAX];
		uint8_t idlen;
	} * maps;
	size_t nmaps;
	struct ptd_cpu cpu;
	char vendor[16];
	int pid; /* the first process seen: maps of others are ignored */
};

/* The command line that records what ptdbg reads, for messages. */
static const char *record_hint(const struct reader *r)
{
	return r->bts ? "'perf record -e intel_bts//u --per-thread -- PROGRAM'"
		      : "'perf record -e intel_pt//u --per-thread -- PROGRAM'";
}

#define BAD(r, off, fmt, ...)                                                                      \
	ptd__err(-ptde_bad_trace, "%s: offset %zu: " fmt, (r)->name, (size_t)(off), ##__VA_ARGS__)

static int grow(void **p, size_t *cap, size_t need, size_t elem)
{
	size_t c = *cap ? *cap : 8;
	void *q;

	if (need <= *cap)
		return 0;
	while (c < need) {
		if (c > SIZE_MAX / 2 / elem)
			return ptd__err(-ptde_nomem, "out of memory reading a perf.data");
		c *= 2;
	}
	q = realloc(*p, c * elem);
	if (!q)
		return ptd__err(-ptde_nomem, "out of memory reading a perf.data");
	*p = q;
	*cap = c;
	return 0;
}

/* Is [off, off+len) inside the file? */
static int inside(const struct reader *r, uint64_t off, uint64_t len)
{
	return off <= r->size && len <= r->size - off;
}

static void reader_fini(struct reader *r)
{
	size_t i;

	for (i = 0; i < r->nattrs; i++)
		free(r->attrs[i].ids);
	free(r->attrs);
	for (i = 0; i < r->nst; i++) {
		free(r->st[i].data);
		free(r->st[i].lost);
		free(r->st[i].holes);
	}
	free(r->st);
	for (i = 0; i < r->nbids; i++)
		free(r->bids[i].name);
	free(r->bids);
	for (i = 0; i < r->nmaps; i++)
		free(r->maps[i].path);
	free(r->maps);
}

/* The byte size of the sample_id trailer sample_id_all adds to every
 * record other than samples. */
static size_t id_trailer_size(uint64_t st)
{
	size_t n = 0;

	if (st & PERF_SAMPLE_TID)
		n += 8;
	if (st & PERF_SAMPLE_TIME)
		n += 8;
	if (st & PERF_SAMPLE_ID)
		n += 8;
	if (st & PERF_SAMPLE_STREAM_ID)
		n += 8;
	if (st & PERF_SAMPLE_CPU)
		n += 8;
	if (st & PERF_SAMPLE_IDENTIFIER)
		n += 8;
	return n;
}

static int read_attrs(struct reader *r, uint64_t attr_size, uint64_t off, uint64_t size)
{
	size_t i, n;

	if (attr_size < PERF_ATTR_SIZE_VER0 + 16 || attr_size > 4096)
		return BAD(r, 16, "bad attr size %" PRIu64, attr_size);
	if (!size || size % attr_size)
		return BAD(r, 24,
			   "attr section of %" PRIu64
			   " bytes is not a multiple of the attr size %" PRIu64,
			   size, attr_size);
	if (!inside(r, off, size))
		return BAD(r, 24,
			   "attr section (%" PRIu64 " bytes at %" PRIu64 ") is outside the file",
			   size, off);
	n = (size_t)(size / attr_size);
	if (n > MAX_ATTRS)
		return BAD(r, 24, "%zu attrs (at most %d)", n, MAX_ATTRS);
	r->attrs = calloc(n, sizeof(*r->attrs));
	if (!r->attrs)
		return ptd__err(-ptde_nomem, "out of memory reading a perf.data");
	r->nattrs = n;
	for (i = 0; i < n; i++) {
		const uint8_t *a = r->p + off + i * attr_size;
		uint32_t asz = rd32(a + 4);
		uint64_t ioff, isz;
		struct rd_attr *at = &r->attrs[i];

		if (!asz)
			asz = PERF_ATTR_SIZE_VER0;
		if (asz + 16 > attr_size)
			return BAD(r, off + i * attr_size + 4,
				   "attr %zu claims %u bytes, more than the %" PRIu64
				   " the header allows",
				   i, asz, attr_size - 16);
		at->type = rd32(a);
		at->config = rd64(a + 8);
		at->sample_type = rd64(a + 24);
		at->sample_id_all = (int)((rd64(a + 40) >> 18) & 1);
		ioff = rd64(a + attr_size - 16);
		isz = rd64(a + attr_size - 8);
		if (isz % 8 || !inside(r, ioff, isz))
			return BAD(r, off + i * attr_size + attr_size - 16,
				   "ids of attr %zu (%" PRIu64 " bytes at %" PRIu64
				   ") are outside the file",
				   i, isz, ioff);
		at->nids = (size_t)(isz / 8);
		if (at->nids) {
			at->ids = malloc(at->nids * 8);
			if (!at->ids)
				return ptd__err(-ptde_nomem, "out of memory reading a perf.data");
			memcpy(at->ids, r->p + ioff, at->nids * 8);
		}
	}
	return 0;
}

/* The sample_type that lays out the trailer of @rec (a record of @size
 * bytes at @off): the attrs' common one, or the one the trailing
 * IDENTIFIER names.  Returns 0 with *st, or an error. */
static int trailer_type(struct reader *r, const uint8_t *rec, size_t size, size_t off, uint64_t *st)
{
	size_t i, j;
	int same = 1;

	for (i = 1; i < r->nattrs; i++)
		if (r->attrs[i].sample_type != r->attrs[0].sample_type ||
		    r->attrs[i].sample_id_all != r->attrs[0].sample_id_all)
			same = 0;
	if (same) {
		*st = r->attrs[0].sample_id_all ? r->attrs[0].sample_type : 0;
		return 0;
	}
	/* perf needs PERF_SAMPLE_IDENTIFIER in all attrs in this case. */
	for (i = 0; i < r->nattrs; i++)
		if (!(r->attrs[i].sample_type & PERF_SAMPLE_IDENTIFIER) ||
		    !r->attrs[i].sample_id_all)
			return BAD(
				r, off,
				"attrs with different sample types and no PERF_SAMPLE_IDENTIFIER");
	if (size < 16)
		return BAD(r, off, "record too short for its sample id");
	{
		uint64_t id = rd64(rec + size - 8);

		for (i = 0; i < r->nattrs; i++)
			for (j = 0; j < r->attrs[i].nids; j++)
				if (r->attrs[i].ids[j] == id) {
					*st = r->attrs[i].sample_type;
					return 0;
				}
	}
	return BAD(r, off, "record with sample id that no attr has");
}

/* The tid in @rec's sample_id trailer, or -1. */
static int trailer_tid(struct reader *r, const uint8_t *rec, size_t size, size_t body, size_t off,
		       int *tid)
{
	uint64_t st = 0;
	size_t n;
	int err;

	*tid = -1;
	if (!r->nattrs)
		return 0;
	err = trailer_type(r, rec, size, off, &st);
	if (err < 0)
		return err;
	n = id_trailer_size(st);
	if (!n)
		return 0;
	if (size < body + n)
		return BAD(r, off, "record of %zu bytes too short for its %zu-byte sample id", size,
			   n);
	if (st & PERF_SAMPLE_TID)
		*tid = (int)rd32(rec + size - n + 4);
	return 0;
}

static struct rd_stream *stream_for(struct reader *r, uint32_t idx, int tid)
{
	size_t i;

	for (i = 0; i < r->nst; i++)
		if (r->st[i].idx == idx)
			return &r->st[i];
	if (r->nst >= MAX_THREADS) {
		ptd__err(-ptde_bad_trace, "%s: more than %d AUX streams", r->name, MAX_THREADS);
		return NULL;
	}
	if (grow((void **)&r->st, &r->capst, r->nst + 1, sizeof(*r->st)) < 0)
		return NULL;
	memset(&r->st[r->nst], 0, sizeof(*r->st));
	r->st[r->nst].idx = idx;
	r->st[r->nst].tid = tid;
	return &r->st[r->nst++];
}

static int stream_put(struct rd_stream *s, const uint8_t *d, size_t n)
{
	int err;

	if (!n)
		return 0;
	if (s->size + n > MAX_STREAM)
		return ptd__err(-ptde_bad_trace, "thread %d: more than %llu bytes of trace", s->tid,
				(unsigned long long)MAX_STREAM);
	err = grow((void **)&s->data, &s->cap, s->size + n, 1);
	if (err < 0)
		return err;
	memcpy(s->data + s->size, d, n);
	s->size += n;
	return 0;
}

/* Appends trace bytes; after lost data only from the next PSB on. */
static int stream_add(struct rd_stream *s, const uint8_t *d, size_t n)
{
	if (s->bts)
		return stream_put(s, d, n);
	if (s->need_psb) {
		size_t i;

		for (i = 0; i + sizeof(pt_psb) <= n; i++)
			if (!memcmp(d + i, pt_psb, sizeof(pt_psb)))
				break;
		if (i + sizeof(pt_psb) > n)
			return 0; /* no PSB in this chunk: it cannot be decoded */
		s->need_psb = 0;
		d += i;
		n -= i;
	}
	return stream_put(s, d, n);
}

/* Data was lost before what comes next: an OVF tells the decoder (an
 * overflow gap), which then resynchronises at the next PSB. */
static int stream_lose(struct rd_stream *s)
{
	int err;

	if (s->bts) {
		/* Branch records: the next one starts a new stretch (a record
		 * cut by the loss is dropped with it). */
		s->size -= s->size % BTS_RECORD;
		if (!s->size || (s->nholes && s->holes[s->nholes - 1] == s->size))
			return 0;
		err = grow((void **)&s->holes, &s->capholes, s->nholes + 1, sizeof(*s->holes));
		if (err < 0)
			return err;
		s->holes[s->nholes++] = s->size;
		return 0;
	}
	if (!s->size || s->need_psb)
		return 0; /* nothing decoded yet: the decoder syncs forward anyway */
	err = stream_put(s, pt_ovf, sizeof(pt_ovf));
	if (err < 0)
		return err;
	s->need_psb = 1;
	return 0;
}

static int stream_lost_at(struct rd_stream *s, uint64_t off)
{
	int err = grow((void **)&s->lost, &s->caplost, s->nlost + 1, sizeof(*s->lost));

	if (err < 0)
		return err;
	s->lost[s->nlost++] = off;
	return 0;
}

static int on_auxtrace(struct reader *r, const uint8_t *rec, size_t off, const uint8_t *data,
		       uint64_t size)
{
	uint64_t aoff = rd64(rec + 16);
	uint32_t idx = rd32(rec + 32), tid = rd32(rec + 36), cpu = rd32(rec + 40);
	struct rd_stream *s;
	size_t i;
	int err;

	if (cpu != UINT32_MAX || r->per_cpu)
		return ptd__err(-ptde_bad_trace,
				"%s was recorded per cpu (perf's default), which ptdbg does not "
				"decode; record with %s instead",
				r->name, record_hint(r));
	/* A stream that AUX records opened before its data came (keyed by
	 * a placeholder index) takes its real index now. */
	for (i = 0; i < r->nst && tid != UINT32_MAX; i++)
		if ((r->st[i].idx & 0x80000000u) && r->st[i].tid == (int)tid)
			r->st[i].idx = idx;
	s = stream_for(r, idx, tid == UINT32_MAX ? -1 : (int)tid);
	if (!s)
		return -ptde_nomem;
	s->bts = r->bts;
	if (tid != UINT32_MAX && s->tid != -1 && s->tid != (int)tid)
		return BAD(r, off, "AUX stream %u holds threads %d and %d", idx, s->tid, (int)tid);
	if (tid != UINT32_MAX)
		s->tid = (int)tid;
	/* Snapshots (perf record -S) may repeat bytes the stream has: drop
	 * what lies before where it ends.  A hole between chunks is lost
	 * data. */
	if (s->have_next && aoff < s->next) {
		if (size <= s->next - aoff)
			return 0;
		data += s->next - aoff;
		size -= s->next - aoff;
		aoff = s->next;
	}
	if (s->have_next && aoff != s->next) {
		err = stream_lose(s);
		if (err < 0)
			return err;
	}
	/* Losses the AUX records reported inside this chunk split it. */
	for (i = 0; i < s->nlost; i++) {
		uint64_t at = s->lost[i];

		if (at > aoff && at < aoff + size) {
			err = stream_add(s, data, (size_t)(at - aoff));
			if (err < 0)
				return err;
			err = stream_lose(s);
			if (err < 0)
				return err;
			data += at - aoff;
			size -= at - aoff;
			aoff = at;
		}
	}
	for (i = 0; i < s->nlost; i++) {
		if (s->lost[i] == aoff && s->have_next && aoff == s->next) {
			err = stream_lose(s);
			if (err < 0)
				return err;
		}
	}
	err = stream_add(s, data, (size_t)size);
	if (err < 0)
		return err;
	s->next = aoff + size;
	s->have_next = 1;
	return 0;
}

static int on_aux(struct reader *r, const uint8_t *rec, size_t size, size_t off)
{
	uint64_t aoff, asz, flags;
	struct rd_stream *s = NULL;
	size_t i;
	int tid, err;

	if (size < 32)
		return BAD(r, off, "PERF_RECORD_AUX of %zu bytes (at least 32)", size);
	aoff = rd64(rec + 8);
	asz = rd64(rec + 16);
	flags = rd64(rec + 24);
	if (!(flags & (PERF_AUX_FLAG_TRUNCATED | PERF_AUX_FLAG_PARTIAL | PERF_AUX_FLAG_COLLISION)))
		return 0;
	err = trailer_tid(r, rec, size, 32, off, &tid);
	if (err < 0)
		return err;
	/* Which stream: the one of the thread the sample id names, else the
	 * only one there is.  AUX records come before their AUXTRACE data. */
	for (i = 0; i < r->nst; i++)
		if (tid != -1 && r->st[i].tid == tid)
			s = &r->st[i];
	if (!s && tid != -1) {
		/* A stream not seen yet: keyed by a fresh index until its
		 * AUXTRACE data names its own. */
		s = stream_for(r, 0x80000000u | (uint32_t)r->nst, tid);
		if (!s)
			return -ptde_nomem;
	}
	if (!s && r->nst == 1)
		s = &r->st[0];
	if (!s)
		return 0; /* no way to tell whose data it was */
	if (asz > UINT64_MAX - aoff)
		return BAD(r, off, "PERF_RECORD_AUX range wraps around");
	return stream_lost_at(s, aoff + asz);
}

static int add_rd_map(struct reader *r, const char *path, uint64_t start, uint64_t len,
		      uint64_t pgoff, const uint8_t *id, uint8_t idlen)
{
	struct rd_map *m;
	int err;

	if (r->nmaps >= MAX_MAPS)
		return ptd__err(-ptde_bad_trace, "%s: more than %d mappings", r->name, MAX_MAPS);
	err = grow((void **)&r->maps, &r->capmaps, r->nmaps + 1, sizeof(*r->maps));
	if (err < 0)
		return err;
	m = &r->maps[r->nmaps];
	memset(m, 0, sizeof(*m));
	m->path = strdup(path);
	if (!m->path)
		return ptd__err(-ptde_nomem, "out of memory reading a perf.data");
	m->start = start;
	m->len = len;
	m->pgoff = pgoff;
	if (idlen) {
		memcpy(m->id, id, idlen);
		m->idlen = idlen;
	}
	r->nmaps++;
	return 0;
}

/* MMAP (1) and MMAP2 (10): user code mappings of the traced process. */
static int on_mmap(struct reader *r, const uint8_t *rec, size_t size, size_t off, int v2)
{
	size_t body = v2 ? 72 : 40;
	uint16_t misc = rd16(rec + 4);
	uint32_t pid = rd32(rec + 8);
	uint64_t start, len, pgoff;
	const uint8_t *id = NULL;
	uint8_t idlen = 0;
	const char *name;
	size_t nlen;

	if (size <= body)
		return BAD(r, off, "PERF_RECORD_MMAP%s of %zu bytes", v2 ? "2" : "", size);
	if ((misc & PERF_RECORD_MISC_CPUMODE_MASK) != PERF_RECORD_MISC_USER)
		return 0; /* kernel and hypervisor maps: user-mode PT never enters them */
	if (!v2 && (misc & MISC_MMAP_DATA))
		return 0;
	start = rd64(rec + 16);
	len = rd64(rec + 24);
	pgoff = rd64(rec + 32);
	if (v2) {
		uint32_t prot = rd32(rec + 64);

		if (!(prot & 4 /* PROT_EXEC */))
			return 0;
		if (misc & PERF_RECORD_MISC_MMAP_BUILD_ID) {
			idlen = rec[40];
			if (idlen > PTD_BUILD_ID_MAX)
				return BAD(r, off, "MMAP2 build-id of %u bytes (at most 20)",
					   idlen);
			id = rec + 44;
		}
	}
	name = (const char *)rec + body;
	nlen = strnlen(name, size - body);
	if (nlen == size - body)
		return BAD(r, off, "PERF_RECORD_MMAP%s file name is not terminated", v2 ? "2" : "");
	if (r->pid <= 0)
		r->pid = (int)pid;
	else if ((int)pid != r->pid)
		return 0; /* another process (perf's own, a child): not traced here */
	if (!len || start + len < start || pgoff + len < pgoff)
		return BAD(r, off, "mapping of '%.200s' with a bad range", name);
	/* //anon, [heap] and the like have no file to read code from; the
	 * vdso may be in perf's build-id cache (perf record puts it there). */
	if (name[0] != '/' && strcmp(name, "[vdso]"))
		return 0;
	return add_rd_map(r, name, start, len, pgoff, id, idlen);
}

static int on_auxtrace_info(struct reader *r, const uint8_t *rec, size_t size, size_t off)
{
	uint32_t type;
	size_t n;

	if (size < 16)
		return BAD(r, off, "PERF_RECORD_AUXTRACE_INFO of %zu bytes", size);
	if (r->have_info)
		return BAD(r, off, "a second PERF_RECORD_AUXTRACE_INFO");
	type = rd32(rec + 8);
	if (type == AUXTRACE_INTEL_BTS) {
		/* priv[]: pmu type, time conversion, snapshot mode (perf's
		 * intel-bts.h); per-cpu recordings show in AUXTRACE's cpu. */
		r->bts = 1;
		r->pt_type = size >= 24 ? rd64(rec + 16) : 0;
		r->have_info = 1;
		return 0;
	}
	if (type != AUXTRACE_INTEL_PT)
		return ptd__err(-ptde_bad_trace,
				"%s holds AUX data of type %u, neither Intel PT (type 1) nor "
				"intel_bts (2); record with "
				"'perf record -e intel_pt//u --per-thread -- PROGRAM'",
				r->name, type);
	n = (size - 16) / 8;
	/* perf itself wants at least the slots up to PER_CPU_MMAPS. */
	if (n < PT_PER_CPU_MMAPS + 1)
		return BAD(r, off, "Intel PT AUXTRACE_INFO with %zu values (at least %d)", n,
			   PT_PER_CPU_MMAPS + 1);
	r->pt_type = rd64(rec + 16 + 8 * PT_PMU_TYPE);
	r->per_cpu = rd64(rec + 16 + 8 * PT_PER_CPU_MMAPS) != 0;
	r->have_info = 1;
	return 0;
}

static int read_records(struct reader *r, uint64_t off, uint64_t size)
{
	uint64_t pos = off, end = off + size;
	int err;

	if (!inside(r, off, size))
		return BAD(r, 40,
			   "data section (%" PRIu64 " bytes at %" PRIu64 ") is outside the file",
			   size, off);
	while (pos < end) {
		const uint8_t *rec = r->p + pos;
		uint32_t type;
		size_t rsz;

		if (end - pos < 8)
			return BAD(r, pos, "record header cut short by the end of the data");
		type = rd32(rec);
		rsz = rd16(rec + 6);
		if (rsz < 8 || rsz > end - pos)
			return BAD(r, pos, "record of type %u with bad size %zu", type, rsz);
		switch (type) {
		case PERF_RECORD_MMAP:
		case PERF_RECORD_MMAP2:
			err = on_mmap(r, rec, rsz, (size_t)pos, type == PERF_RECORD_MMAP2);
			break;
		case PERF_RECORD_AUX:
			err = on_aux(r, rec, rsz, (size_t)pos);
			break;
		case REC_AUXTRACE_INFO:
			err = on_auxtrace_info(r, rec, rsz, (size_t)pos);
			break;
		case REC_AUXTRACE: {
			uint64_t dsz;

			if (rsz < AUXTRACE_REC_SIZE)
				return BAD(r, pos,
					   "PERF_RECORD_AUXTRACE of %zu bytes (at least %d)", rsz,
					   AUXTRACE_REC_SIZE);
			dsz = rd64(rec + 8);
			if (dsz > end - pos - rsz)
				return BAD(r, pos,
					   "PERF_RECORD_AUXTRACE with %" PRIu64
					   " bytes of trace, past the end of the data",
					   dsz);
			if (!r->have_info)
				return BAD(r, pos,
					   "PERF_RECORD_AUXTRACE before any "
					   "PERF_RECORD_AUXTRACE_INFO");
			err = on_auxtrace(r, rec, (size_t)pos, rec + rsz, dsz);
			pos += dsz;
			break;
		}
		case REC_COMPRESSED:
			return ptd__err(-ptde_bad_trace,
					"%s is compressed (perf record -z), which ptdbg does not "
					"read; record without -z",
					r->name);
		case PERF_RECORD_COMM:
		case PERF_RECORD_ITRACE_START:
			/* The process the threads belong to; nothing else is needed. */
			if (rsz < 16)
				return BAD(r, pos, "record of type %u with %zu bytes (at least 16)",
					   type, rsz);
			if (r->pid <= 0)
				r->pid = (int)rd32(rec + 8);
			err = 0;
			break;
		default:
			err = 0; /* samples, FINISHED_ROUND, ... */
			break;
		}
		if (err < 0)
			return err;
		pos += rsz;
	}
	return 0;
}

/* HEADER_BUILD_ID: records of {header, pid, build_id[24], filename}. */
static int read_build_ids(struct reader *r, uint64_t off, uint64_t size)
{
	uint64_t pos = off, end = off + size;

	while (end - pos >= 8) {
		const uint8_t *rec = r->p + pos;
		size_t rsz = rd16(rec + 6), nlen;
		uint16_t misc = rd16(rec + 4);
		struct rd_bid *b;
		int err;

		if (rsz < 8 || rsz > end - pos)
			return BAD(r, pos, "build-id record with bad size %zu", rsz);
		if (rsz <= 36) {
			pos += rsz;
			continue;
		}
		nlen = strnlen((const char *)rec + 36, rsz - 36);
		if (nlen == rsz - 36)
			return BAD(r, pos, "build-id record with an unterminated file name");
		if (r->nbids >= MAX_MAPS)
			return BAD(r, pos, "more than %d build-ids", MAX_MAPS);
		err = grow((void **)&r->bids, &r->capbids, r->nbids + 1, sizeof(*r->bids));
		if (err < 0)
			return err;
		b = &r->bids[r->nbids];
		memset(b, 0, sizeof(*b));
		b->name = strdup((const char *)rec + 36);
		if (!b->name)
			return ptd__err(-ptde_nomem, "out of memory reading a perf.data");
		memcpy(b->id, rec + 12, PTD_BUILD_ID_MAX);
		b->len = PTD_BUILD_ID_MAX;
		if (misc & MISC_BUILD_ID_SIZE) {
			b->len = rec[32];
			if (!b->len || b->len > PTD_BUILD_ID_MAX) {
				free(b->name);
				return BAD(r, pos, "build-id of %u bytes (1 to 20)", rec[32]);
			}
		}
		r->nbids++;
		pos += rsz;
	}
	return 0;
}

/* HEADER_CPUID on x86: "GenuineIntel,6,142,9". */
static void read_cpuid(struct reader *r, uint64_t off, uint64_t size)
{
	char s[128];
	uint32_t len;
	unsigned fam, model, step;
	int n = 0;

	if (size < 4)
		return;
	len = rd32(r->p + off);
	if (len > size - 4)
		return;
	if (len >= sizeof(s))
		len = sizeof(s) - 1;
	memcpy(s, r->p + off + 4, len);
	s[len] = 0;
	if (sscanf(s, "%15[^,],%u,%u,%u%n", r->vendor, &fam, &model, &step, &n) == 4 && n &&
	    fam <= 0xffff && model <= 0xff && step <= 0xff) {
		r->cpu.family = (uint16_t)fam;
		r->cpu.model = (uint8_t)model;
		r->cpu.stepping = (uint8_t)step;
	} else {
		r->vendor[0] = 0;
	}
}

static int read_features(struct reader *r, const uint8_t *bitmap, uint64_t at)
{
	int bit;

	for (bit = 1; bit < FEAT_BITS; bit++) {
		uint64_t off, size;
		int err = 0;

		if (!(bitmap[bit / 8] & (1u << (bit % 8))))
			continue;
		if (!inside(r, at, 16))
			return BAD(r, at, "feature table cut short by the end of the file");
		off = rd64(r->p + at);
		size = rd64(r->p + at + 8);
		at += 16;
		if (!inside(r, off, size))
			return BAD(r, at - 16,
				   "feature %d (%" PRIu64 " bytes at %" PRIu64
				   ") is outside the file",
				   bit, size, off);
		if (bit == FEAT_BUILD_ID)
			err = read_build_ids(r, off, size);
		else if (bit == FEAT_CPUID)
			read_cpuid(r, off, size);
		if (err < 0)
			return err;
	}
	return 0;
}

/* Where the code of @m is on this machine: its path if that file has the
 * recorded build-id (or none was recorded), else perf's build-id cache. */
static int find_file(const struct reader *r, const struct rd_map *m, const uint8_t *id,
		     uint8_t idlen, char *out, size_t outlen)
{
	uint8_t got[PTD_BUILD_ID_MAX], gl;
	uint64_t sum;
	char hex[2 * PTD_BUILD_ID_MAX + 1], dir[PATH_MAX];
	const char *env = getenv("PERF_BUILDID_DIR"), *home = getenv("HOME");
	int at_path;
	struct stat st;

	at_path = m->path[0] == '/' && stat(m->path, &st) == 0 && S_ISREG(st.st_mode);
	if (at_path && (!idlen || (ptd_bundle_file_id(m->path, got, &gl, &sum) == 0 &&
				   gl == idlen && !memcmp(got, id, idlen)))) {
		snprintf(out, outlen, "%s", m->path);
		return 0;
	}
	ptd_clear_error();
	for (size_t i = 0; i < idlen; i++)
		sprintf(hex + 2 * i, "%02x", id[i]);
	hex[2 * idlen] = 0;
	if (env && *env)
		snprintf(dir, sizeof(dir), "%s", env);
	else
		snprintf(dir, sizeof(dir), "%s/.debug", home && *home ? home : "/root");
	if (idlen) {
		/* perf's cache: .build-id/XX/REST/elf (newer) or .build-id/XX/REST */
		static const char *const fmt[] = {"%s/.build-id/%.2s/%s/elf",
						  "%s/.build-id/%.2s/%s/vdso",
						  "%s/.build-id/%.2s/%s"};

		for (int k = 0; k < 3; k++) {
			snprintf(out, outlen, fmt[k], dir, hex, hex + 2);
			if (stat(out, &st) == 0 && S_ISREG(st.st_mode) &&
			    ptd_bundle_file_id(out, got, &gl, &sum) == 0 && gl == idlen &&
			    !memcmp(got, id, idlen))
				return 0;
			ptd_clear_error();
		}
	}
	if (at_path)
		return ptd__err(-ptde_notfound,
				"%s: '%s' is not the file that was recorded (build-id %s) and "
				"%s/.build-id has "
				"no copy of it",
				r->name, m->path, hex, dir);
	if (idlen)
		return ptd__err(-ptde_notfound,
				"%s: the trace runs code from '%s' (build-id %s), which is neither "
				"at that path nor "
				"in %s/.build-id",
				r->name, m->path, hex, dir);
	return ptd__err(-ptde_notfound,
			"%s: the trace runs code from '%s', which is missing (and perf recorded no "
			"build-id "
			"to find a copy by)",
			r->name, m->path);
}

/*
 * Where the thread stood when its trace ended, for the history's tail (the
 * current, not yet executed instruction): a trace that ends with FUP and
 * TIP.PGD stopped asynchronously before the FUP's ip, as ptdbg's own
 * traces end at a stop and hardware's end at an interrupt.  Any other
 * ending (a syscall's TIP.PGD, data cut off) leaves it unknown: 0.  Only
 * the last PSB segment is read (IP compression restarts at a PSB), so this
 * costs no more than decoding the newest segment.
 */
static uint64_t trace_tail(const uint8_t *pt, size_t n)
{
	struct pt_packet_decoder *d;
	struct pt_config cfg;
	struct pt_packet pkt;
	uint64_t last = 0, fup = 0;
	size_t at;
	int have_last = 0, state = 0, err; /* state 1: FUP seen, 2: then TIP.PGD */

	if (n < sizeof(pt_psb))
		return 0;
	for (at = n - sizeof(pt_psb) + 1; at-- > 0;)
		if (!memcmp(pt + at, pt_psb, sizeof(pt_psb)))
			break;
	if (at == (size_t)-1)
		return 0;
	memset(&cfg, 0, sizeof(cfg));
	cfg.size = sizeof(cfg);
	cfg.begin = (uint8_t *)pt + at;
	cfg.end = (uint8_t *)pt + n;
	d = pt_pkt_alloc_decoder(&cfg);
	if (!d)
		return 0;
	if (pt_pkt_sync_set(d, 0) < 0) {
		pt_pkt_free_decoder(d);
		return 0;
	}
	while ((err = pt_pkt_next(d, &pkt, sizeof(pkt))) >= 0) {
		uint64_t ip = 0;
		int has_ip = 0;

		switch (pkt.type) {
		case ppt_pad:
			continue;
		case ppt_psb:
			have_last = 0;
			last = 0;
			break;
		case ppt_ovf:
			have_last = 0;
			break;
		case ppt_fup:
		case ppt_tip:
		case ppt_tip_pge:
		case ppt_tip_pgd:
			switch (pkt.payload.ip.ipc) {
			case pt_ipc_suppressed:
				break;
			case pt_ipc_update_16:
				ip = (last & ~0xffffull) | (pkt.payload.ip.ip & 0xffff);
				has_ip = have_last;
				break;
			case pt_ipc_update_32:
				ip = (last & ~0xffffffffull) | (pkt.payload.ip.ip & 0xffffffff);
				has_ip = have_last;
				break;
			case pt_ipc_update_48:
				ip = (last & ~0xffffffffffffull) |
				     (pkt.payload.ip.ip & 0xffffffffffffull);
				has_ip = have_last;
				break;
			case pt_ipc_sext_48:
				ip = pkt.payload.ip.ip & 0xffffffffffffull;
				if (ip & (1ull << 47))
					ip |= ~0xffffffffffffull;
				has_ip = 1;
				break;
			case pt_ipc_full:
				ip = pkt.payload.ip.ip;
				has_ip = 1;
				break;
			}
			if (pkt.payload.ip.ipc != pt_ipc_suppressed) {
				last = ip;
				have_last = has_ip;
			}
			break;
		default:
			break;
		}
		if (pkt.type == ppt_fup && has_ip) {
			fup = ip;
			state = 1;
		} else if (pkt.type == ppt_tip_pgd && state == 1) {
			state = 2;
		} else {
			state = 0;
		}
	}
	pt_pkt_free_decoder(d);
	/* bytes that are not packets after it: not where the trace ends */
	return state == 2 && err == -pte_eos ? fup : 0;
}

/* ---- intel_bts ---------------------------------------------------------- */

/*
 * intel_bts records every taken branch of the thread as {from, to, flags}.
 * The code between one record's `to` and the next one's `from` ran
 * straight through: no taken branch, so every branch in it is a
 * conditional jump that was not taken or a syscall that came back to the
 * next instruction (user-only BTS drops or the reader drops the kernel's
 * side of it).  The reader walks that code instruction by instruction to
 * split it into blocks as every recorder does, builds the thread's block
 * history and writes it as PT (src/record/ptconv), so a BTS recording
 * takes the same path as a PT one from here on.  Records with a kernel
 * address are dropped; a walk that cannot reach the next `from` (a branch
 * on the way, code that is not mapped, lost records) is lost trace: an
 * overflow gap, and the history goes on at that record's `to`.  (The PT
 * written for a gap drops the block before it: ptconv cannot give the
 * outcome of its last branch.)
 */

/* Walk limit: no straight-line run of user code is longer. */
#define BTS_MAX_RUN (1u << 24)

struct bts_conv {
	struct ptd_image *img;
	struct ptd_history *h;
	struct ptd_block *run; /* blocks of the current walk, kept until it succeeds */
	size_t nrun, caprun;
	uint64_t cur; /* where execution went on (the last `to`); 0: unknown */
	int gap_last; /* the newest item is a gap */
};

static int bts_kernel(uint64_t a)
{
	return (int64_t)a < 0; /* the upper half of the canonical address space */
}

static int bts_run_add(struct bts_conv *c, uint64_t ip, uint64_t end_ip, uint32_t n, uint8_t cls)
{
	int err = grow((void **)&c->run, &c->caprun, c->nrun + 1, sizeof(*c->run));

	if (err < 0)
		return err;
	c->run[c->nrun].ip = ip;
	c->run[c->nrun].end_ip = end_ip;
	c->run[c->nrun].ninsn = n;
	c->run[c->nrun].iclass = cls;
	c->run[c->nrun].flags = 0;
	c->nrun++;
	return 0;
}

/* Splits the straight-line code [c->cur, @from] into blocks in c->run.
 * Returns 1 when it reached @from, 0 when it cannot have run straight
 * (see above), or -ptde_nomem. */
static int bts_walk(struct bts_conv *c, uint64_t from)
{
	uint64_t ip = c->cur, start = c->cur;
	uint32_t n = 0, k;
	int err;

	c->nrun = 0;
	for (k = 0; k < BTS_MAX_RUN && ip <= from; k++) {
		struct ptd_insn_info in;
		uint8_t buf[16];
		int got = ptd_image_read(c->img, ip, buf, sizeof(buf));

		if (got <= 0 || ptd_disasm_decode(buf, (size_t)got, ip, &in) < 0)
			return 0;
		n++;
		if (ip == from)
			return bts_run_add(c, start, ip, n, in.iclass) < 0 ? -ptde_nomem : 1;
		if (in.iclass != PTD_IC_OTHER) {
			if (in.iclass != PTD_IC_COND_JUMP && in.iclass != PTD_IC_FAR_CALL)
				return 0; /* a taken branch that left no record */
			err = bts_run_add(c, start, ip, n, in.iclass);
			if (err < 0)
				return err;
			start = ip + in.len;
			n = 0;
		}
		ip += in.len;
	}
	return 0;
}

/* Lost trace: one gap, unless nothing came before it or a gap just did. */
static int bts_lose(struct bts_conv *c)
{
	c->cur = 0;
	if (!ptd_history_nitems(c->h) || c->gap_last)
		return 0;
	c->gap_last = 1;
	return ptd_history_append_gap(c->h, PTD_GAP_LOST, 0, "intel_bts records lost");
}

/* One record. */
static int bts_record(struct bts_conv *c, uint64_t from, uint64_t to)
{
	size_t i;
	int err;

	if (!from && !to)
		return 0; /* an empty slot */
	if (bts_kernel(from) || bts_kernel(to))
		return 0; /* the kernel's side of a syscall or interrupt */
	if (!from) { /* tracing (re)starts at @to */
		if (c->cur && c->cur != to) {
			err = bts_lose(c);
			if (err < 0)
				return err;
		}
		c->cur = to;
		return 0;
	}
	if (!to) {
		/* Tracing stops after @from: the run up to it, then a gap
		 * (where it starts again is not where it stopped). */
		err = c->cur ? bts_record(c, from, from) : 0;
		return err < 0 ? err : bts_lose(c);
	}
	if (c->cur) {
		err = bts_walk(c, from);
		if (err < 0)
			return err;
		if (err == 0) {
			err = bts_lose(c);
			if (err < 0)
				return err;
		}
		for (i = 0; err > 0 && i < c->nrun; i++) {
			/* The last block ends at the recorded branch: its class
			 * is what was decoded there. */
			err = ptd_history_append_block(c->h, &c->run[i]);
			if (err == 0)
				err = 1;
			c->gap_last = 0;
		}
		if (err < 0)
			return err;
	}
	c->cur = to;
	return 0;
}

/*
 * The PT for intel_bts stream @s with code from @img: *@pt (malloc'ed, may
 * be NULL with *@n 0 when no record gives an instruction) and the tail
 * (the last branch target).  Returns 0 or a negative error.
 */
static int bts_to_pt(const struct rd_stream *s, struct ptd_image *img, uint8_t **pt, size_t *n,
		     uint64_t *tail)
{
	struct ptd_ptsynth_config cfg = {.psb_period = 4096, .ret_compression = 1};
	struct bts_conv c;
	struct ptd_ptsynth *syn = NULL;
	uint64_t off;
	size_t hole = 0;
	int err = 0;

	*pt = NULL;
	*n = 0;
	*tail = 0;
	memset(&c, 0, sizeof(c));
	c.img = img;
	c.h = ptd_history_alloc(ptd_image_read, img);
	if (!c.h)
		return ptd__err(-ptde_nomem, "out of memory converting intel_bts records");
	for (off = 0; off + BTS_RECORD <= s->size && err == 0; off += BTS_RECORD) {
		const uint8_t *rec = s->data + off;

		while (hole < s->nholes && s->holes[hole] <= off) {
			if (s->holes[hole++] == off)
				err = bts_lose(&c);
		}
		if (err == 0)
			err = bts_record(&c, rd64(rec), rd64(rec + 8));
	}
	if (err == 0 && off < s->size)
		err = bts_lose(&c); /* a record cut short at the end */
	/* The trace ends where the last branch went: that instruction is
	 * the newest known position (the tail). */
	if (err == 0 && ptd_history_nitems(c.h)) {
		uint8_t byte;

		/* (a target in code nobody mapped is no position to show) */
		if (c.cur && ptd_image_read(img, c.cur, &byte, 1) != 1)
			c.cur = 0;
		ptd_history_set_tail(c.h, c.cur);
		syn = ptd_ptsynth_alloc(&cfg);
		if (!syn)
			err = ptd__err(-ptde_nomem, "out of memory converting intel_bts records");
		if (err == 0)
			err = ptd_ptconv_history(syn, c.h, c.cur, ptd_image_read, img);
		if (err == 0) {
			*pt = ptd_ptsynth_take(syn, n);
			*tail = c.cur;
			if (!*pt && *n)
				err = ptd__err(-ptde_nomem, "out of memory converting intel_bts records");
		}
	}
	ptd_ptsynth_free(syn);
	ptd_history_free(c.h);
	free(c.run);
	return err;
}

static int by_idx(const void *a, const void *b)
{
	const struct rd_stream *x = a, *y = b;

	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

static int make_bundle(struct reader *r, int check_files, struct ptd_bundle **out)
{
	struct ptd_image *img = NULL; /* intel_bts: the code, for splitting blocks */
	struct ptd_bundle *b;
	char path[PATH_MAX];
	size_t i, j;
	int err = 0;

	if (!r->have_info)
		return ptd__err(-ptde_bad_trace,
				"%s has no PERF_RECORD_AUXTRACE_INFO: not an Intel PT recording; "
				"record with "
				"'perf record -e intel_pt//u --per-thread -- PROGRAM'",
				r->name);
	if (r->per_cpu)
		return ptd__err(
			-ptde_bad_trace,
			"%s was recorded per cpu (perf's default), which ptdbg does not decode; "
			"record with 'perf record -e intel_pt//u --per-thread -- PROGRAM' instead",
			r->name);
	b = ptd_bundle_new(&r->cpu);
	if (!b)
		return -ptde_nomem;
	memcpy(b->cpu_vendor, r->vendor, sizeof(b->cpu_vendor));
	for (i = 0; i < r->nmaps && err == 0; i++) {
		const struct rd_map *m = &r->maps[i];
		const uint8_t *id = m->id;
		uint8_t idlen = m->idlen;

		if (!idlen) {
			for (j = 0; j < r->nbids; j++)
				if (!strcmp(r->bids[j].name, m->path)) {
					id = r->bids[j].id;
					idlen = r->bids[j].len;
				}
		}
		if (m->path[0] != '/') {
			/* [vdso]: only by build-id; without it the trace may
			 * still never run there, so it is no error */
			if (!idlen || !check_files ||
			    find_file(r, m, id, idlen, path, sizeof(path)) < 0) {
				ptd_clear_error();
				continue;
			}
		} else if (check_files) {
			err = find_file(r, m, id, idlen, path, sizeof(path));
			if (err < 0)
				break;
		} else {
			snprintf(path, sizeof(path), "%s", m->path);
		}
		err = ptd_bundle_add_map(b, path, m->pgoff, m->len, m->start);
		if (err == 0 && idlen) {
			struct ptd_bundle_map *bm = &b->maps[b->nmaps - 1];

			memcpy(bm->build_id, id, idlen);
			bm->build_id_size = idlen;
		}
	}
	/* threads in perf's queue order */
	if (r->nst > 1)
		qsort(r->st, r->nst, sizeof(*r->st), by_idx);
	for (i = 0; i < r->nst && err == 0; i++) {
		struct rd_stream *s = &r->st[i];
		int tid = s->tid;

		if (!s->size)
			continue;
		if (tid <= 0)
			tid = r->pid > 0 ? r->pid : 1;
		/* Threads are one per stream; the same tid twice (a reused
		 * stream) keeps the first. */
		for (j = 0; j < b->nthreads; j++)
			if (b->threads[j].tid == tid)
				break;
		if (j < b->nthreads)
			continue;
		if (r->bts) {
			uint8_t *pt;
			size_t n;
			uint64_t tail;

			if (!img)
				img = ptd_bundle_image(b, NULL, NULL);
			if (!img) {
				snprintf(path, sizeof(path), "%s", ptd_last_error(0));
				err = ptd__err(-ptde_notfound,
					       "%s: cannot read the code the intel_bts records run "
					       "through: %s",
					       r->name, path);
				break;
			}
			err = bts_to_pt(s, img, &pt, &n, &tail);
			if (err == 0 && n)
				err = ptd_bundle_add_thread(b, tid, pt, n, tail);
			free(pt);
			if (err < 0) {
				snprintf(path, sizeof(path), "%s", ptd_last_error(err));
				err = ptd__err(err, "%s: thread %d: %s", r->name, tid, path);
			}
			continue;
		}
		err = ptd_bundle_add_thread(b, tid, s->data, s->size, trace_tail(s->data, s->size));
	}
	ptd_image_free(img);
	if (err == 0 && !b->nthreads)
		err = ptd__err(-ptde_bad_trace,
			       r->bts ? "%s holds no intel_bts branch records in user code"
				      : "%s holds no Intel PT data (no PERF_RECORD_AUXTRACE)",
			       r->name);
	if (err < 0) {
		ptd_bundle_free(b);
		return err;
	}
	*out = b;
	return 0;
}

int ptd_perfdata_parse(const uint8_t *data, size_t size, const char *name, int check_files,
		       struct ptd_bundle **out)
{
	struct reader r;
	uint64_t magic, hsize, asize, aoff, alen, doff, dlen;
	int err;

	if (!out)
		return ptd__err(-ptde_invalid, "perf.data parse: no output");
	*out = NULL;
	if (!data && size)
		return ptd__err(-ptde_invalid, "perf.data parse: no data");
	memset(&r, 0, sizeof(r));
	r.p = data;
	r.size = size;
	r.name = name ? name : "perf.data";
	if (size < 8)
		return ptd__err(-ptde_bad_trace, "%s: too short for a perf.data (%zu bytes)",
				r.name, size);
	magic = rd64(data);
	if (magic == MAGIC2_SWAP)
		return ptd__err(-ptde_bad_trace, "%s: written on a machine of the other byte order",
				r.name);
	if (magic == MAGIC1 || !memcmp(data, "PERFFILE", 8))
		return ptd__err(-ptde_bad_trace, "%s: perf.data version 1 is not supported",
				r.name);
	if (magic != MAGIC2)
		return ptd__err(-ptde_bad_trace, "%s: not a perf.data (no PERFILE2 magic)", r.name);
	/* perf record -o - writes a 16-byte header and everything as records */
	if (size >= 16 && rd64(data + 8) == 16)
		return ptd__err(-ptde_bad_trace,
				"%s was written to a pipe (perf record -o -), which ptdbg does not "
				"read; record to a file",
				r.name);
	if (size < FILE_HEADER_SIZE_NOFEAT)
		return BAD(&r, 8, "file header cut short (%zu bytes)", size);
	hsize = rd64(data + 8);
	if (hsize != FILE_HEADER_SIZE && hsize != FILE_HEADER_SIZE_NOFEAT)
		return BAD(&r, 8, "file header size %" PRIu64 " (expected %d)", hsize,
			   FILE_HEADER_SIZE);
	if (size < hsize)
		return BAD(&r, 8, "file header cut short (%zu bytes)", size);
	asize = rd64(data + 16);
	aoff = rd64(data + 24);
	alen = rd64(data + 32);
	doff = rd64(data + 40);
	dlen = rd64(data + 48);
	if (!doff && !dlen)
		return ptd__err(-ptde_bad_trace, "%s: no data section", r.name);
	err = read_attrs(&r, asize, aoff, alen);
	if (err == 0)
		err = read_records(&r, doff, dlen);
	if (err == 0 && hsize == FILE_HEADER_SIZE)
		err = read_features(&r, data + 72, doff + dlen);
	if (err == 0)
		err = make_bundle(&r, check_files, out);
	reader_fini(&r);
	return err;
}

int ptd_perfdata_load(const char *path, struct ptd_bundle **out)
{
	struct stat st;
	void *p;
	int fd, err;

	if (!out)
		return ptd__err(-ptde_invalid, "perf.data load: no output");
	*out = NULL;
	if (!path || !*path)
		return ptd__err(-ptde_invalid, "perf.data load: no file");
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return ptd__err(-ptde_sys, "cannot open '%s': %s", path, strerror(errno));
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return ptd__err(-ptde_sys, "'%s' is not a regular file", path);
	}
	if (st.st_size == 0) {
		close(fd);
		return ptd__err(-ptde_bad_trace, "%s: empty file", path);
	}
	p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (p == MAP_FAILED)
		return ptd__err(-ptde_sys, "cannot map '%s': %s", path, strerror(errno));
	err = ptd_perfdata_parse(p, (size_t)st.st_size, path, 1, out);
	munmap(p, (size_t)st.st_size);
	return err;
}

/* ---- writer ------------------------------------------------------------- */

struct wr {
	FILE *f;
	const char *path;
	int err;
};

static void put(struct wr *w, const void *d, size_t n)
{
	if (!w->err && n && fwrite(d, 1, n, w->f) != n)
		w->err = ptd__err(-ptde_sys, "cannot write '%s': %s", w->path, strerror(errno));
}

static void put16(struct wr *w, uint16_t v)
{
	put(w, &v, 2);
}

static void put32(struct wr *w, uint32_t v)
{
	put(w, &v, 4);
}

static void put64(struct wr *w, uint64_t v)
{
	put(w, &v, 8);
}

static void putzero(struct wr *w, size_t n)
{
	static const uint8_t z[64];

	while (n) {
		size_t k = n < sizeof(z) ? n : sizeof(z);

		put(w, z, k);
		n -= k;
	}
}

static uint64_t where(struct wr *w)
{
	long o = ftell(w->f);

	if (o < 0 && !w->err)
		w->err = ptd__err(-ptde_sys, "cannot write '%s': %s", w->path, strerror(errno));
	return o < 0 ? 0 : (uint64_t)o;
}

static void rec_header(struct wr *w, uint32_t type, uint16_t misc, size_t size)
{
	put32(w, type);
	put16(w, misc);
	put16(w, (uint16_t)size);
}

/* The sample_id trailer of our attr: TID then IDENTIFIER. */
#define TRAILER 16
static void trailer(struct wr *w, int pid, int tid, uint64_t id)
{
	put32(w, (uint32_t)pid);
	put32(w, (uint32_t)tid);
	put64(w, id);
}

static uint64_t pt_pmu_type(void)
{
	FILE *f = fopen("/sys/bus/event_source/devices/intel_pt/type", "re");
	unsigned long v = 0;

	if (f) {
		if (fscanf(f, "%lu", &v) != 1)
			v = 0;
		fclose(f);
	}
	return v ? v : PTD_PERFDATA_FALLBACK_PT_TYPE;
}

/* A perf_header_string: u32 length (padded to 64), then the string. */
static void put_string(struct wr *w, const char *s)
{
	size_t n = strlen(s) + 1, len = (n + NAME_ALIGN - 1) / NAME_ALIGN * NAME_ALIGN;

	put32(w, (uint32_t)len);
	put(w, s, n);
	putzero(w, len - n);
}

static int mkdirs(char *path)
{
	for (char *p = path + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = 0;
		if (mkdir(path, 0755) < 0 && errno != EEXIST) {
			*p = '/';
			return -1;
		}
		*p = '/';
	}
	return mkdir(path, 0755) < 0 && errno != EEXIST ? -1 : 0;
}

/*
 * Stores the vdso image as perf record does, so the perf.data can be
 * decoded where the vdso is not this kernel's: DIR/[vdso]/ID/vdso and the
 * link DIR/.build-id/XX/REST -> ../../[vdso]/ID, with DIR
 * $PERF_BUILDID_DIR or ~/.debug.
 */
static int cache_vdso(const uint8_t *bytes, size_t size, const char *hex)
{
	const char *env = getenv("PERF_BUILDID_DIR"), *home = getenv("HOME");
	char dir[PATH_MAX], path[PATH_MAX + 64], link[PATH_MAX + 64], target[128],
		tmp[PATH_MAX + 80];
	struct stat st;
	FILE *f;

	if (env && *env)
		snprintf(dir, sizeof(dir), "%s", env);
	else
		snprintf(dir, sizeof(dir), "%s/.debug", home && *home ? home : "/root");
	snprintf(path, sizeof(path), "%s/[vdso]/%s", dir, hex);
	snprintf(link, sizeof(link), "%s/.build-id/%.2s/%s", dir, hex, hex + 2);
	if (stat(link, &st) == 0)
		return 0; /* already there */
	if (mkdirs(path) < 0)
		return ptd__err(-ptde_sys,
				"cannot create '%s' (perf's build-id cache for the vdso): %s", path,
				strerror(errno));
	snprintf(tmp, sizeof(tmp), "%s/vdso", path);
	f = fopen(tmp, "wbe");
	if (!f)
		return ptd__err(-ptde_sys, "cannot write '%s': %s", tmp, strerror(errno));
	if (fwrite(bytes, 1, size, f) != size) {
		int e = errno;

		fclose(f);
		return ptd__err(-ptde_sys, "cannot write '%s': %s", tmp, strerror(e));
	}
	if (fclose(f) != 0) /* (closed even when it fails: not again) */
		return ptd__err(-ptde_sys, "cannot write '%s': %s", tmp, strerror(errno));
	snprintf(tmp, sizeof(tmp), "%s/.build-id/%.2s", dir, hex);
	if (mkdirs(tmp) < 0)
		return ptd__err(-ptde_sys, "cannot create '%s': %s", tmp, strerror(errno));
	snprintf(target, sizeof(target), "../../[vdso]/%s", hex);
	if (symlink(target, link) < 0 && errno != EEXIST)
		return ptd__err(-ptde_sys, "cannot link '%s': %s", link, strerror(errno));
	return 0;
}

static uint64_t thread_id(size_t i)
{
	/* Sample ids are arbitrary but unique; perf per-thread has one per
	 * thread's event. */
	return 1000 + i;
}

int ptd_perfdata_save(const struct ptd_bundle *b, const struct ptd_perfdata_proc *proc,
		      const char *path)
{
	struct perf_event_attr attr;
	struct wr w;
	char tmp[PATH_MAX], cpuid[96];
	const char *comm;
	uint64_t attr_off, ids_off, data_off, data_end, feat_off, feat_sec[2 * 4];
	uint64_t pmu = pt_pmu_type();
	size_t i, k, nfeat = 0;
	int pid, feats[4] = {FEAT_BUILD_ID, FEAT_ARCH, FEAT_NRCPUS, FEAT_CPUID};
	uint8_t bitmap[FEAT_BITS / 8];
	uint8_t vdso_id[PTD_BUILD_ID_MAX], vdso_idn = 0;
	long ncpu;

	if (!b || !proc || !path || !*path || proc->pid <= 0)
		return ptd__err(-ptde_invalid, "perf.data save: no bundle, process or file");
	pid = proc->pid;
	comm = proc->comm && *proc->comm ? proc->comm : "ptdbg-trace";
	if (snprintf(tmp, sizeof(tmp), "%s.tmp", path) >= (int)sizeof(tmp))
		return ptd__err(-ptde_invalid, "perf.data save: path too long");
	w.path = path;
	w.err = 0;
	w.f = fopen(tmp, "wbe");
	if (!w.f)
		return ptd__err(-ptde_sys, "cannot create '%s': %s", tmp, strerror(errno));

	/* the header is written last, when the sections are known */
	putzero(&w, FILE_HEADER_SIZE);

	/* One attr: intel_pt, user only, the config perf record would use
	 * for "intel_pt//u" without TSC (no timestamps in our trace, so perf
	 * decodes each thread's queue on its own). */
	memset(&attr, 0, sizeof(attr));
	attr.type = (uint32_t)pmu;
	attr.size = ATTR_SIZE;
	attr.config = 1u | (1u << 13); /* pt (PASS_THROUGH), BranchEn */
	attr.sample_period = 1;
	attr.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_IDENTIFIER;
	attr.exclude_kernel = 1;
	attr.exclude_hv = 1;
	attr.mmap = 1;
	attr.comm = 1;
	attr.sample_id_all = 1;
	attr.mmap2 = 1;
	attr.comm_exec = 1;
	attr_off = where(&w);
	put(&w, &attr, ATTR_SIZE < sizeof(attr) ? ATTR_SIZE : sizeof(attr));
	if (sizeof(attr) < ATTR_SIZE)
		putzero(&w, ATTR_SIZE - sizeof(attr));
	ids_off = attr_off + ATTR_SIZE + 16;
	put64(&w, ids_off);
	put64(&w, 8 * b->nthreads);
	for (i = 0; i < b->nthreads; i++)
		put64(&w, thread_id(i));

	data_off = where(&w);
	/* AUXTRACE_INFO: Intel PT, per-thread mmaps, no TSC/MTC/CYC, return
	 * compression allowed (ptdbg's synthesizer uses it as hardware does). */
	{
		uint64_t priv[PT_PRIV_MAX];

		memset(priv, 0, sizeof(priv));
		priv[PT_PMU_TYPE] = pmu;
		priv[PT_TIME_MULT] = 1;
		priv[PT_TSC_BIT] = 1u << 10;
		priv[PT_NORETCOMP_BIT] = 1u << 11;
		priv[PT_MTC_BIT] = 1u << 9;
		priv[PT_MTC_FREQ_BITS] = 0xfu << 14;
		priv[PT_TSC_CTC_N] = 1;
		priv[PT_TSC_CTC_D] = 1;
		priv[PT_CYC_BIT] = 1u << 1;
		rec_header(&w, REC_AUXTRACE_INFO, 0, 16 + sizeof(priv));
		put32(&w, AUXTRACE_INTEL_PT);
		put32(&w, 0);
		put(&w, priv, sizeof(priv));
	}
	/* COMM for each thread: perf learns the thread's process from it. */
	for (i = 0; i < b->nthreads; i++) {
		size_t n = strlen(comm) < 15 ? strlen(comm) : 15, padded = (n + 1 + 7) / 8 * 8;

		rec_header(&w, PERF_RECORD_COMM, PERF_RECORD_MISC_USER, 16 + padded + TRAILER);
		put32(&w, (uint32_t)pid);
		put32(&w, (uint32_t)b->threads[i].tid);
		put(&w, comm, n);
		putzero(&w, padded - n);
		trailer(&w, pid, b->threads[i].tid, thread_id(i));
	}
	/* MMAP2 for each file-backed mapping (memory dumps have no file perf
	 * could read). */
	for (i = 0; i < b->nmaps; i++) {
		const struct ptd_bundle_map *m = &b->maps[i];
		size_t n = strlen(m->path), padded = (n + 1 + 7) / 8 * 8;
		struct stat st;

		if (m->path[0] != '/' || n >= PATH_MAX)
			continue;
		if (stat(m->path, &st) < 0)
			memset(&st, 0, sizeof(st));
		rec_header(&w, PERF_RECORD_MMAP2, PERF_RECORD_MISC_USER, 72 + padded + TRAILER);
		put32(&w, (uint32_t)pid);
		put32(&w, (uint32_t)pid);
		put64(&w, m->vaddr);
		put64(&w, m->size);
		put64(&w, m->offset);
		put32(&w, (uint32_t)major(st.st_dev));
		put32(&w, (uint32_t)minor(st.st_dev));
		put64(&w, (uint64_t)st.st_ino);
		put64(&w, 0);
		put32(&w, 5); /* PROT_READ | PROT_EXEC */
		put32(&w, 2); /* MAP_PRIVATE */
		put(&w, m->path, n);
		putzero(&w, padded - n);
		trailer(&w, pid, pid, thread_id(0));
	}
	/* The vdso: perf reads its own (the same kernel's) or the one in
	 * its build-id cache, which is filled here as perf record does. */
	for (i = 0; i < ptd_bundle_nmemory(b) && !w.err; i++) {
		const uint8_t *bytes;
		uint64_t vaddr;
		size_t size;
		int vdso;
		char hex[2 * PTD_BUILD_ID_MAX + 1];

		if (ptd_bundle_memory(b, i, &vaddr, &bytes, &size, &vdso) < 0 || !vdso)
			continue;
		vdso_idn = (uint8_t)ptd_bundle_mem_build_id(bytes, size, vdso_id);
		if (vdso_idn) {
			for (k = 0; k < vdso_idn; k++)
				sprintf(hex + 2 * k, "%02x", vdso_id[k]);
			if (cache_vdso(bytes, size, hex) < 0) {
				w.err = -ptde_sys;
				break;
			}
		}
		/* the build-id inline (perf 5.12+), not in HEADER_BUILD_ID:
		 * a "[vdso]" there makes perf 6.1 look for the vdso as a
		 * file and fail */
		rec_header(&w, PERF_RECORD_MMAP2,
			   PERF_RECORD_MISC_USER | (vdso_idn ? PERF_RECORD_MISC_MMAP_BUILD_ID : 0),
			   72 + 8 + TRAILER);
		put32(&w, (uint32_t)pid);
		put32(&w, (uint32_t)pid);
		put64(&w, vaddr);
		put64(&w, size);
		put64(&w, 0);
		{
			uint8_t idbuf[24];

			memset(idbuf, 0, sizeof(idbuf));
			idbuf[0] = vdso_idn;
			memcpy(idbuf + 4, vdso_id, vdso_idn);
			put(&w, idbuf, sizeof(idbuf));
		}
		put32(&w, 5);
		put32(&w, 2);
		put(&w, "[vdso]\0\0", 8);
		trailer(&w, pid, pid, thread_id(0));
	}
	/* Per thread: tracing started, the AUX data it wrote, and the data. */
	for (i = 0; i < b->nthreads; i++) {
		const struct ptd_bundle_thread *t = &b->threads[i];
		uint64_t padded = (t->size + 7) / 8 * 8;

		rec_header(&w, PERF_RECORD_ITRACE_START, PERF_RECORD_MISC_USER, 16 + TRAILER);
		put32(&w, (uint32_t)pid);
		put32(&w, (uint32_t)t->tid);
		trailer(&w, pid, t->tid, thread_id(i));
		rec_header(&w, PERF_RECORD_AUX, 0, 32 + TRAILER);
		put64(&w, 0);
		put64(&w, padded);
		put64(&w, 0);
		trailer(&w, pid, t->tid, thread_id(i));
		/* The trace is padded to 8 bytes with zeros (PT PAD packets),
		 * as perf record pads it. */
		rec_header(&w, REC_AUXTRACE, 0, AUXTRACE_REC_SIZE);
		put64(&w, padded);
		put64(&w, 0);		     /* offset in the AUX area */
		put64(&w, 0);		     /* reference */
		put32(&w, (uint32_t)i);	     /* idx: the queue */
		put32(&w, (uint32_t)t->tid); /* tid */
		put32(&w, UINT32_MAX);	     /* cpu: -1, per thread */
		put32(&w, 0);
		put(&w, t->pt, t->size);
		putzero(&w, (size_t)(padded - t->size));
	}
	data_end = where(&w);

	/* Features: the section table, then each section. */
	feat_off = data_end;
	putzero(&w, 16 * 4);
	for (k = 0; k < 4; k++) {
		uint64_t start = where(&w);

		switch (feats[k]) {
		case FEAT_BUILD_ID:
			for (i = 0; i < b->nmaps; i++) {
				const struct ptd_bundle_map *m = &b->maps[i];
				size_t j, n = strlen(m->path) + 1,
					  padded = (n + NAME_ALIGN - 1) / NAME_ALIGN * NAME_ALIGN;
				uint8_t id[24];

				if (!m->build_id_size || m->path[0] != '/' || n > PATH_MAX)
					continue;
				for (j = 0; j < i; j++)
					if (!strcmp(b->maps[j].path, m->path))
						break;
				if (j < i)
					continue;
				memset(id, 0, sizeof(id));
				memcpy(id, m->build_id, m->build_id_size);
				id[20] = m->build_id_size;
				rec_header(&w, 0, PERF_RECORD_MISC_USER | MISC_BUILD_ID_SIZE,
					   36 + padded);
				put32(&w, UINT32_MAX); /* pid: the host machine */
				put(&w, id, sizeof(id));
				put(&w, m->path, n);
				putzero(&w, padded - n);
			}
			break;
		case FEAT_ARCH:
			put_string(&w, "x86_64");
			break;
		case FEAT_NRCPUS:
			ncpu = sysconf(_SC_NPROCESSORS_ONLN);
			put32(&w, (uint32_t)(ncpu > 0 ? ncpu : 1));
			put32(&w, (uint32_t)(ncpu > 0 ? ncpu : 1));
			break;
		case FEAT_CPUID:
			snprintf(cpuid, sizeof(cpuid), "%s,%u,%u,%u",
				 b->cpu_vendor[0] ? b->cpu_vendor : "GenuineIntel", b->cpu.family,
				 b->cpu.model, b->cpu.stepping);
			put_string(&w, cpuid);
			break;
		}
		feat_sec[2 * nfeat] = start;
		feat_sec[2 * nfeat + 1] = where(&w) - start;
		nfeat++;
	}
	if (!w.err && fseek(w.f, (long)feat_off, SEEK_SET) < 0)
		w.err = ptd__err(-ptde_sys, "cannot write '%s': %s", path, strerror(errno));
	for (k = 0; k < nfeat; k++) {
		put64(&w, feat_sec[2 * k]);
		put64(&w, feat_sec[2 * k + 1]);
	}

	/* The file header. */
	memset(bitmap, 0, sizeof(bitmap));
	for (k = 0; k < 4; k++)
		bitmap[feats[k] / 8] |= (uint8_t)(1u << (feats[k] % 8));
	if (!w.err && fseek(w.f, 0, SEEK_SET) < 0)
		w.err = ptd__err(-ptde_sys, "cannot write '%s': %s", path, strerror(errno));
	put64(&w, MAGIC2);
	put64(&w, FILE_HEADER_SIZE);
	put64(&w, ATTR_SIZE + 16);
	put64(&w, attr_off);
	put64(&w, ATTR_SIZE + 16);
	put64(&w, data_off);
	put64(&w, data_end - data_off);
	put64(&w, 0);
	put64(&w, 0);
	put(&w, bitmap, sizeof(bitmap));
	if (fclose(w.f) != 0 && !w.err)
		w.err = ptd__err(-ptde_sys, "cannot write '%s': %s", tmp, strerror(errno));
	if (!w.err && rename(tmp, path) < 0)
		w.err = ptd__err(-ptde_sys, "cannot rename '%s' to '%s': %s", tmp, path,
				 strerror(errno));
	if (w.err)
		unlink(tmp);
	return w.err;
}
