/*
 * Unit tests for perf.data in and out (src/decode/perfdata.c) and the file
 * identities of bundles (src/decode/bundle.c): a bundle written as a
 * perf.data reads back the same (maps, threads, cpu, build-ids); files are
 * found by path or in perf's build-id cache, and a missing or changed file
 * is refused with its name; hand-built files check lost data (a hole
 * between AUXTRACE chunks, AUX flags) becoming an OVF and a resync at the
 * next PSB, per-cpu recordings refused with the option to use, and every
 * malformed header or record; then every byte of a real file is corrupted
 * and every length cut, and each parse must end in success or an error
 * with a message, never a crash (run under ASan/UBSan too).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "decode/bundle.h"
#include "decode/perfdata.h"
#include "ptdbg/ptdbg.h"

static const uint8_t psb[16] = {0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82,
				0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82};

static char tmpdir[64];

static int setup(void **state)
{
	(void)state;
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/ptd-perfdata-XXXXXX");
	return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	return system(cmd) == 0 ? 0 : -1;
}

static void write_bytes(const char *path, const void *d, size_t n)
{
	FILE *f = fopen(path, "wb");

	assert_non_null(f);
	assert_int_equal(fwrite(d, 1, n, f), n);
	assert_int_equal(fclose(f), 0);
}

static uint8_t *read_all(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	uint8_t *p;
	long sz;

	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	sz = ftell(f);
	fseek(f, 0, SEEK_SET);
	p = malloc((size_t)sz + 1);
	assert_non_null(p);
	assert_int_equal(fread(p, 1, (size_t)sz, f), (size_t)sz);
	fclose(f);
	*n = (size_t)sz;
	return p;
}

static void copy_file(const char *from, const char *to)
{
	size_t n;
	uint8_t *p = read_all(from, &n);

	write_bytes(to, p, n);
	free(p);
}

/* A bundle of @ncode bytes of a file and two threads. */
static struct ptd_bundle *sample_bundle(const char *code, uint8_t **pt, size_t *ptn)
{
	static uint8_t a[40], b[21];
	struct ptd_cpu cpu = {6, 142, 9};
	struct ptd_bundle *bd = ptd_bundle_new(&cpu);

	assert_non_null(bd);
	strcpy(bd->cpu_vendor, "GenuineIntel");
	memcpy(a, psb, 16);
	for (size_t i = 16; i < sizeof(a); i++)
		a[i] = (uint8_t)(i * 7);
	memcpy(b, psb, 16);
	memset(b + 16, 0x11, sizeof(b) - 16);
	assert_int_equal(ptd_bundle_add_map(bd, code, 0x1000, 0x2000, 0x401000), 0);
	assert_int_equal(ptd_bundle_add_thread(bd, 4242, a, sizeof(a), 0x401005), 0);
	assert_int_equal(ptd_bundle_add_thread(bd, 4243, b, sizeof(b), 0), 0);
	pt[0] = a;
	ptn[0] = sizeof(a);
	pt[1] = b;
	ptn[1] = sizeof(b);
	return bd;
}

static void test_roundtrip(void **state)
{
	struct ptd_perfdata_proc proc = {4242, "prog"};
	char code[128], pd[128], self[4096];
	uint8_t *pt[2];
	size_t ptn[2];
	struct ptd_bundle *b, *l;
	uint8_t junk[0x3000];
	ssize_t sl;

	(void)state;
	/* a file without a build-id: identified by a checksum, not listed in
	 * HEADER_BUILD_ID */
	snprintf(code, sizeof(code), "%s/code.bin", tmpdir);
	memset(junk, 0x90, sizeof(junk));
	write_bytes(code, junk, sizeof(junk));
	snprintf(pd, sizeof(pd), "%s/rt.data", tmpdir);
	b = sample_bundle(code, pt, ptn);
	/* and an ELF with a build-id: this test program */
	sl = readlink("/proc/self/exe", self, sizeof(self) - 1);
	assert_true(sl > 0);
	self[sl] = 0;
	assert_int_equal(ptd_bundle_add_map(b, self, 0, 0x100, 0x500000), 0);
	assert_int_equal(ptd_bundle_identify(b), 0);
	assert_int_equal(b->maps[0].build_id_size, 0);
	assert_int_equal(b->maps[0].has_checksum, 1);
	assert_int_equal(b->maps[1].build_id_size, 20);
	assert_int_equal(ptd_perfdata_save(b, &proc, pd), 0);
	assert_int_equal(ptd_perfdata_is(pd), 1);
	assert_int_equal(ptd_perfdata_is(code), 0);
	assert_int_equal(ptd_perfdata_is(tmpdir), 0);

	assert_int_equal(ptd_perfdata_load(pd, &l), 0);
	assert_int_equal(l->cpu.family, 6);
	assert_int_equal(l->cpu.model, 142);
	assert_int_equal(l->cpu.stepping, 9);
	assert_string_equal(l->cpu_vendor, "GenuineIntel");
	assert_int_equal(l->nmaps, 2);
	assert_string_equal(l->maps[0].path, code);
	assert_int_equal(l->maps[0].offset, 0x1000);
	assert_int_equal(l->maps[0].size, 0x2000);
	assert_int_equal(l->maps[0].vaddr, 0x401000);
	assert_int_equal(l->maps[0].build_id_size, 0);
	assert_string_equal(l->maps[1].path, self);
	assert_int_equal(l->maps[1].build_id_size, 20);
	assert_memory_equal(l->maps[1].build_id, b->maps[1].build_id, 20);
	assert_int_equal(l->nthreads, 2);
	for (int i = 0; i < 2; i++) {
		assert_int_equal(l->threads[i].tid, 4242 + i);
		/* padded to 8 bytes with PT PADs (zeros) as perf pads */
		assert_int_equal(l->threads[i].size, (ptn[i] + 7) / 8 * 8);
		assert_memory_equal(l->threads[i].pt, pt[i], ptn[i]);
		for (size_t k = ptn[i]; k < l->threads[i].size; k++)
			assert_int_equal(l->threads[i].pt[k], 0);
		assert_int_equal(l->threads[i].tail_pc, 0);
	}
	assert_int_equal(ptd_bundle_check_files(l), 0);
	ptd_bundle_free(l);
	ptd_bundle_free(b);

	assert_int_equal(ptd_perfdata_save(NULL, &proc, pd), -ptde_invalid);
	assert_int_equal(ptd_perfdata_load(NULL, &l), -ptde_invalid);
	assert_int_equal(ptd_perfdata_parse(NULL, 0, "x", 0, &l), -ptde_bad_trace);
}

/* A mapped file that is gone is named; a copy in perf's build-id cache
 * (PERF_BUILDID_DIR) is found by its build-id. */
static void test_missing_and_cache(void **state)
{
	struct ptd_perfdata_proc proc = {7, NULL};
	char self[4096], copy[128], pd[128], cache[256], hex[41], cmd[512];
	struct ptd_bundle *b, *l;
	ssize_t sl;
	int rc;

	(void)state;
	sl = readlink("/proc/self/exe", self, sizeof(self) - 1);
	assert_true(sl > 0);
	self[sl] = 0;
	snprintf(copy, sizeof(copy), "%s/prog-copy", tmpdir);
	copy_file(self, copy);
	b = ptd_bundle_new(NULL);
	assert_non_null(b);
	assert_int_equal(ptd_bundle_add_map(b, copy, 0, 0x100, 0x400000), 0);
	assert_int_equal(ptd_bundle_add_thread(b, 7, psb, sizeof(psb), 0), 0);
	assert_int_equal(ptd_bundle_identify(b), 0);
	assert_int_equal(b->maps[0].build_id_size, 20);
	for (int i = 0; i < 20; i++)
		sprintf(hex + 2 * i, "%02x", b->maps[0].build_id[i]);
	snprintf(pd, sizeof(pd), "%s/missing.data", tmpdir);
	assert_int_equal(ptd_perfdata_save(b, &proc, pd), 0);
	ptd_bundle_free(b);
	unlink(copy);

	snprintf(cache, sizeof(cache), "%s/cache", tmpdir);
	setenv("PERF_BUILDID_DIR", cache, 1);
	rc = ptd_perfdata_load(pd, &l);
	assert_int_equal(rc, -ptde_notfound);
	assert_non_null(strstr(ptd_last_error(rc), copy));
	assert_non_null(strstr(ptd_last_error(rc), hex));

	snprintf(cmd, sizeof(cmd), "mkdir -p '%s/.build-id/%.2s/%s'", cache, hex, hex + 2);
	assert_int_equal(system(cmd), 0);
	snprintf(cmd, sizeof(cmd), "%s/.build-id/%.2s/%s/elf", cache, hex, hex + 2);
	copy_file(self, cmd);
	assert_int_equal(ptd_perfdata_load(pd, &l), 0);
	assert_string_equal(l->maps[0].path, cmd);
	ptd_bundle_free(l);

	/* a different file at the path: the cache copy is still preferred */
	write_bytes(copy, "not the program", 15);
	assert_int_equal(ptd_perfdata_load(pd, &l), 0);
	assert_string_equal(l->maps[0].path, cmd);
	ptd_bundle_free(l);
	/* and without the cache copy it is refused as changed */
	unlink(cmd);
	rc = ptd_perfdata_load(pd, &l);
	assert_int_equal(rc, -ptde_notfound);
	assert_non_null(strstr(ptd_last_error(rc), "is not the file that was recorded"));
	unsetenv("PERF_BUILDID_DIR");
}

/* Bundles: a changed file is refused at load with both identities. */
static void test_bundle_identity(void **state)
{
	char dir[128], code[128];
	uint8_t bytes[64];
	struct ptd_bundle *b, *l;
	int rc;

	(void)state;
	snprintf(dir, sizeof(dir), "%s/bund", tmpdir);
	snprintf(code, sizeof(code), "%s/raw.bin", tmpdir);
	memset(bytes, 0xc3, sizeof(bytes));
	write_bytes(code, bytes, sizeof(bytes));
	b = ptd_bundle_new(NULL);
	assert_non_null(b);
	ptd_bundle_host_cpu(&b->cpu, b->cpu_vendor);
	assert_true(b->cpu.family != 0);
	assert_true(b->cpu_vendor[0] != 0);
	assert_int_equal(ptd_bundle_add_map(b, code, 0, sizeof(bytes), 0x1000), 0);
	assert_int_equal(ptd_bundle_add_thread(b, 1, psb, sizeof(psb), 0), 0);
	assert_int_equal(ptd_bundle_identify(b), 0);
	assert_int_equal(ptd_bundle_save(b, dir), 0);
	assert_int_equal(ptd_bundle_load(dir, &l), 0);
	assert_int_equal(l->cpu.family, b->cpu.family);
	assert_string_equal(l->cpu_vendor, b->cpu_vendor);
	assert_int_equal(l->maps[0].has_checksum, 1);
	assert_true(l->maps[0].checksum == b->maps[0].checksum);
	assert_int_equal(ptd_bundle_check_files(l), 0);
	bytes[10] = 0x90;
	write_bytes(code, bytes, sizeof(bytes));
	rc = ptd_bundle_check_files(l);
	assert_int_equal(rc, -ptde_notfound);
	assert_non_null(strstr(ptd_last_error(rc), "is not the file that was recorded"));
	assert_null(ptd_bundle_image(l, NULL, NULL));
	ptd_bundle_free(l);
	ptd_bundle_free(b);

	/* manifest records: a build-id for a path no map names, bad digits */
	{
		static const char t1[] = "ptdbg-bundle 1\ncpu 6 142 9 GenuineIntel\n"
					 "build-id 0011 /x\nthread 1 pt 0x0\n";
		static const char t2[] = "ptdbg-bundle 1\ncpu 6 142 9\nmap 0x0 0x10 0x0 /x\n"
					 "build-id 0g11 /x\nthread 1 pt 0x0\n";
		static const char t3[] =
			"ptdbg-bundle 1\ncpu 6 142 9\nmap 0x0 0x10 0x0 /x\n"
			"checksum 0x12 /x\nbuild-id 00112233 /x\nthread 1 pt 0x0\n";

		assert_int_equal(ptd_bundle_parse(t1, sizeof(t1) - 1, "/b", &l), -ptde_bad_trace);
		assert_non_null(strstr(ptd_last_error(-ptde_bad_trace), "no earlier map line"));
		assert_int_equal(ptd_bundle_parse(t2, sizeof(t2) - 1, "/b", &l), -ptde_bad_trace);
		assert_non_null(strstr(ptd_last_error(-ptde_bad_trace), "manifest:4:"));
		assert_int_equal(ptd_bundle_parse(t3, sizeof(t3) - 1, "/b", &l), 0);
		assert_int_equal(l->maps[0].build_id_size, 4);
		assert_int_equal(l->maps[0].has_checksum, 0);
		ptd_bundle_free(l);
	}
}

/* ---- hand-built files --------------------------------------------------- */

struct pd {
	uint8_t b[8192];
	size_t n;
	size_t data_off;
	uint64_t sample_type;
};

static void pd_put(struct pd *p, const void *d, size_t n)
{
	assert_true(p->n + n <= sizeof(p->b));
	memcpy(p->b + p->n, d, n);
	p->n += n;
}

static void pd_u32(struct pd *p, uint32_t v)
{
	pd_put(p, &v, 4);
}

static void pd_u64(struct pd *p, uint64_t v)
{
	pd_put(p, &v, 8);
}

static void pd_hdr(struct pd *p, uint32_t type, uint16_t misc, uint16_t size)
{
	pd_u32(p, type);
	pd_put(p, &misc, 2);
	pd_put(p, &size, 2);
}

/* Header and one attr (type 8, sample_type TID, sample_id_all); records
 * follow, pd_end() fills in the data section. */
static void pd_begin(struct pd *p)
{
	uint8_t attr[128];
	uint64_t flags = 1ull << 18;
	uint32_t t = 8, sz = 128;

	memset(p, 0, sizeof(*p));
	p->sample_type = 1u << 1; /* PERF_SAMPLE_TID */
	p->n = 104;
	memset(attr, 0, sizeof(attr));
	memcpy(attr, &t, 4);
	memcpy(attr + 4, &sz, 4);
	memcpy(attr + 24, &p->sample_type, 8);
	memcpy(attr + 40, &flags, 8);
	pd_put(p, attr, sizeof(attr));
	pd_u64(p, 0);
	pd_u64(p, 0);
	p->data_off = p->n;
}

static void pd_end(struct pd *p)
{
	uint64_t v;

	memcpy(p->b, "PERFILE2", 8);
	v = 104;
	memcpy(p->b + 8, &v, 8);
	v = 144;
	memcpy(p->b + 16, &v, 8);
	v = 104;
	memcpy(p->b + 24, &v, 8);
	v = 144;
	memcpy(p->b + 32, &v, 8);
	v = p->data_off;
	memcpy(p->b + 40, &v, 8);
	v = p->n - p->data_off;
	memcpy(p->b + 48, &v, 8);
}

static void pd_info(struct pd *p, uint32_t type, int per_cpu)
{
	pd_hdr(p, 70, 0, 16 + 17 * 8);
	pd_u32(p, type);
	pd_u32(p, 0);
	for (int i = 0; i < 17; i++)
		pd_u64(p, i == 0 ? 8 : i == 9 ? (uint64_t)per_cpu : 0);
}

static void pd_auxtrace(struct pd *p, uint64_t off, uint32_t tid, uint32_t cpu, const void *d,
			size_t n)
{
	pd_hdr(p, 71, 0, 48);
	pd_u64(p, n);
	pd_u64(p, off);
	pd_u64(p, 0);
	pd_u32(p, 0);
	pd_u32(p, tid);
	pd_u32(p, cpu);
	pd_u32(p, 0);
	pd_put(p, d, n);
}

static void pd_aux(struct pd *p, uint64_t off, uint64_t size, uint64_t flags, uint32_t tid)
{
	pd_hdr(p, 11, 0, 32 + 8);
	pd_u64(p, off);
	pd_u64(p, size);
	pd_u64(p, flags);
	pd_u32(p, 1);
	pd_u32(p, tid);
}

static int pd_parse(struct pd *p, struct ptd_bundle **out)
{
	pd_end(p);
	return ptd_perfdata_parse(p->b, p->n, "hand.data", 0, out);
}

static void expect_error(struct pd *p, const char *what)
{
	struct ptd_bundle *b = (struct ptd_bundle *)1;
	int rc = pd_parse(p, &b);

	assert_true(rc < 0);
	assert_null(b);
	if (!strstr(ptd_last_error(rc), what))
		fail_msg("error '%s' does not mention '%s'", ptd_last_error(rc), what);
}

static void test_lost_data(void **state)
{
	struct pd p;
	struct ptd_bundle *b;
	uint8_t c1[24], c2[40];

	(void)state;
	memcpy(c1, psb, 16);
	memset(c1 + 16, 0x11, 8);
	memset(c2, 0x22, sizeof(c2));
	memcpy(c2 + 8, psb, 16);
	/* a hole between two chunks: OVF, then from the next PSB */
	pd_begin(&p);
	pd_info(&p, 1, 0);
	pd_auxtrace(&p, 0, 9, UINT32_MAX, c1, sizeof(c1));
	pd_auxtrace(&p, 100, 9, UINT32_MAX, c2, sizeof(c2));
	assert_int_equal(pd_parse(&p, &b), 0);
	assert_int_equal(b->nthreads, 1);
	assert_int_equal(b->threads[0].tid, 9);
	assert_int_equal(b->threads[0].size, 24 + 2 + 32);
	assert_memory_equal(b->threads[0].pt, c1, 24);
	assert_int_equal(b->threads[0].pt[24], 0x02);
	assert_int_equal(b->threads[0].pt[25], 0xf3);
	assert_memory_equal(b->threads[0].pt + 26, c2 + 8, 32);
	ptd_bundle_free(b);

	/* contiguous chunks: concatenated as they are */
	pd_begin(&p);
	pd_info(&p, 1, 0);
	pd_auxtrace(&p, 0, 9, UINT32_MAX, c1, sizeof(c1));
	pd_auxtrace(&p, 24, 9, UINT32_MAX, c2, sizeof(c2));
	assert_int_equal(pd_parse(&p, &b), 0);
	assert_int_equal(b->threads[0].size, 64);
	assert_memory_equal(b->threads[0].pt + 24, c2, 40);
	ptd_bundle_free(b);

	/* PERF_RECORD_AUX with TRUNCATED after the first 24 bytes: the
	 * hardware stopped there, so the contiguous rest follows an OVF */
	pd_begin(&p);
	pd_info(&p, 1, 0);
	pd_aux(&p, 0, 24, 1, 9);
	pd_auxtrace(&p, 0, 9, UINT32_MAX, c1, sizeof(c1));
	pd_auxtrace(&p, 24, 9, UINT32_MAX, c2, sizeof(c2));
	assert_int_equal(pd_parse(&p, &b), 0);
	assert_int_equal(b->threads[0].size, 24 + 2 + 32);
	assert_int_equal(b->threads[0].pt[25], 0xf3);
	ptd_bundle_free(b);

	/* ... and inside one chunk */
	{
		uint8_t one[64];

		memcpy(one, c1, 24);
		memcpy(one + 24, c2, 40);
		pd_begin(&p);
		pd_info(&p, 1, 0);
		pd_aux(&p, 0, 24, 1, 9);
		pd_auxtrace(&p, 0, 9, UINT32_MAX, one, sizeof(one));
		assert_int_equal(pd_parse(&p, &b), 0);
		assert_int_equal(b->threads[0].size, 24 + 2 + 32);
		assert_int_equal(b->threads[0].pt[24], 0x02);
		assert_int_equal(b->threads[0].pt[25], 0xf3);
		assert_memory_equal(b->threads[0].pt + 26, psb, 16);
		ptd_bundle_free(b);
	}

	/* two threads, one stream each */
	pd_begin(&p);
	pd_info(&p, 1, 0);
	pd_auxtrace(&p, 0, 9, UINT32_MAX, c1, sizeof(c1));
	p.b[p.n - 24 - 16] = 1; /* idx of the record just written */
	pd_auxtrace(&p, 0, 10, UINT32_MAX, c2, sizeof(c2));
	assert_int_equal(pd_parse(&p, &b), 0);
	assert_int_equal(b->nthreads, 2);
	ptd_bundle_free(b);
}

static void test_malformed(void **state)
{
	struct pd p;
	uint8_t c1[16];

	(void)state;
	memcpy(c1, psb, 16);

	pd_begin(&p);
	pd_info(&p, 1, 0);
	pd_auxtrace(&p, 0, 9, 3, c1, sizeof(c1));
	expect_error(&p, "--per-thread");

	pd_begin(&p);
	pd_info(&p, 1, 1);
	pd_auxtrace(&p, 0, 9, UINT32_MAX, c1, sizeof(c1));
	expect_error(&p, "'perf record -e intel_pt//u --per-thread -- PROGRAM' instead");

	pd_begin(&p);
	pd_hdr(&p, 3, 2, 16 + 8 + 8); /* COMM only */
	pd_u32(&p, 1);
	pd_u32(&p, 1);
	pd_u64(&p, 0x67);
	pd_u64(&p, 1);
	expect_error(&p, "no PERF_RECORD_AUXTRACE_INFO");

	pd_begin(&p);
	pd_auxtrace(&p, 0, 9, UINT32_MAX, c1, sizeof(c1));
	expect_error(&p, "before any PERF_RECORD_AUXTRACE_INFO");

	pd_begin(&p);
	pd_info(&p, 2, 0); /* intel_bts (test-btsdata has the rest) without records */
	expect_error(&p, "no intel_bts branch records");

	pd_begin(&p);
	pd_info(&p, 4, 0);
	expect_error(&p, "neither Intel PT (type 1) nor intel_bts");

	pd_begin(&p);
	pd_info(&p, 1, 0);
	expect_error(&p, "no Intel PT data");

	pd_begin(&p);
	pd_info(&p, 1, 0);
	pd_hdr(&p, 81, 0, 16);
	pd_u64(&p, 0);
	expect_error(&p, "perf record -z");

	pd_begin(&p);
	pd_info(&p, 1, 0);
	pd_hdr(&p, 1, 0, 4); /* a record smaller than its header */
	expect_error(&p, "bad size 4");

	pd_begin(&p);
	pd_info(&p, 1, 0);
	pd_auxtrace(&p, 0, 9, UINT32_MAX, c1, sizeof(c1));
	p.n -= 8; /* the trace runs past the data */
	expect_error(&p, "past the end of the data");

	pd_begin(&p);
	pd_info(&p, 1, 0);
	pd_aux(&p, 0, 24, 1, 9);
	p.n -= 8;
	p.b[p.n - 32 + 6] = 32; /* AUX record too short for its sample id */
	expect_error(&p, "too short for its");

	pd_begin(&p);
	pd_info(&p, 1, 0);
	pd_hdr(&p, 10, 2, 80); /* MMAP2 whose name has no NUL */
	pd_u32(&p, 1);	       /* pid */
	pd_u32(&p, 1);	       /* tid */
	pd_u64(&p, 0x1000);    /* start */
	pd_u64(&p, 0x1000);    /* len */
	pd_u64(&p, 0);	       /* pgoff */
	pd_u64(&p, 0);	       /* maj, min */
	pd_u64(&p, 0);	       /* ino */
	pd_u64(&p, 0);	       /* ino generation */
	pd_u32(&p, 5);	       /* prot */
	pd_u32(&p, 2);	       /* flags */
	pd_u64(&p, 0x4141414141414141ull);
	expect_error(&p, "not terminated");

	/* header problems */
	pd_begin(&p);
	pd_info(&p, 1, 0);
	pd_auxtrace(&p, 0, 9, UINT32_MAX, c1, sizeof(c1));
	pd_end(&p);
	{
		struct ptd_bundle *b;
		uint8_t save[104];
		struct {
			size_t off;
			uint64_t val;
			const char *what;
		} bad[] = {
			{0, 0x1122334455667788ull, "no PERFILE2 magic"},
			{0, 0x32454c4946524550ull ^ 0 /* ok */, NULL},
			{0, 0x50455246494c4532ull, "other byte order"},
			{8, 200, "file header size"},
			{16, 10, "bad attr size"},
			{32, 100, "not a multiple"},
			{24, 1u << 30, "outside the file"},
			{40, 1u << 30, "outside the file"},
			{48, 1u << 30, "outside the file"},
			{40, 0, "outside the file"},
		};

		memcpy(save, p.b, sizeof(save));
		for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
			int rc;

			memcpy(p.b + bad[i].off, &bad[i].val, 8);
			if (bad[i].off == 40 && bad[i].val == 0)
				memset(p.b + 48, 0, 8); /* both zero: a pipe */
			rc = ptd_perfdata_parse(p.b, p.n, "hdr.data", 0, &b);
			if (!bad[i].what) {
				assert_int_equal(rc, 0);
				ptd_bundle_free(b);
			} else {
				assert_true(rc < 0);
				if (bad[i].off == 40 && bad[i].val == 0)
					assert_non_null(
						strstr(ptd_last_error(rc), "no data section"));
				else if (!strstr(ptd_last_error(rc), bad[i].what))
					fail_msg("case %zu: '%s'", i, ptd_last_error(rc));
			}
			memcpy(p.b, save, sizeof(save));
		}
		assert_true(ptd_perfdata_parse(p.b, 7, "short", 0, &b) < 0);
		{
			uint64_t sixteen = 16;

			memcpy(p.b + 8, &sixteen, 8);
			assert_true(ptd_perfdata_parse(p.b, p.n, "pipe", 0, &b) < 0);
			assert_non_null(strstr(ptd_last_error(-ptde_bad_trace), "pipe"));
			memcpy(p.b, save, sizeof(save));
		}
		assert_true(ptd_perfdata_parse(p.b, 80, "short", 0, &b) < 0);
		memcpy(p.b, "PERFFILE", 8);
		assert_true(ptd_perfdata_parse(p.b, p.n, "v1", 0, &b) < 0);
		assert_non_null(strstr(ptd_last_error(-ptde_bad_trace), "version 1"));
	}
}

/* What perf record writes for intel_pt per thread, as far as the reader
 * cares: two attrs (intel_pt and a dummy) with IP|TID|TIME|CPU|IDENTIFIER
 * sample ids, MMAP2 with the build-id inline, samples in between, an AUX
 * record whose TRUNCATED flag names its thread only through its sample id,
 * two threads' streams, and HEADER_CPUID. */
static void test_perf_record_layout(void **state)
{
	struct pd p;
	struct ptd_bundle *b;
	uint8_t attr[128], c1[24], c2[40], id[20];
	uint64_t st = 1 | 2 | 4 | 0x80 | 0x10000, flags = 1ull << 18, v;
	char self[4096];
	uint8_t idn;
	uint64_t sum;
	size_t ids_at, feat_at, name_len, rec;
	ssize_t sl;

	(void)state;
	sl = readlink("/proc/self/exe", self, sizeof(self) - 1);
	assert_true(sl > 0);
	self[sl] = 0;
	assert_int_equal(ptd_bundle_file_id(self, id, &idn, &sum), 0);
	assert_int_equal(idn, 20);
	memcpy(c1, psb, 16);
	memset(c1 + 16, 0x11, 8);
	memcpy(c2, psb, 16);
	memset(c2 + 16, 0x22, 24);

	memset(&p, 0, sizeof(p));
	p.n = 104;
	for (int a = 0; a < 2; a++) {
		uint32_t t = a ? 1 : 8, sz = 128;

		memset(attr, 0, sizeof(attr));
		memcpy(attr, &t, 4);
		memcpy(attr + 4, &sz, 4);
		memcpy(attr + 24, &st, 8);
		memcpy(attr + 40, &flags, 8);
		pd_put(&p, attr, sizeof(attr));
		pd_u64(&p, 0); /* ids: patched below */
		pd_u64(&p, a ? 8 : 16);
	}
	ids_at = p.n;
	pd_u64(&p, 11);
	pd_u64(&p, 12);
	pd_u64(&p, 21);
	v = ids_at;
	memcpy(p.b + 104 + 128, &v, 8);
	v = ids_at + 16;
	memcpy(p.b + 104 + 144 + 128, &v, 8);
	p.data_off = p.n;
#define TRAILER(pid, tid, idv)                                                                     \
	do {                                                                                       \
		pd_u32(&p, pid);                                                                   \
		pd_u32(&p, tid);                                                                   \
		pd_u64(&p, 123456);                                                                \
		pd_u64(&p, 0);                                                                     \
		pd_u64(&p, idv);                                                                   \
	} while (0)
	pd_info(&p, 1, 0);
	pd_hdr(&p, 3, 2 | (1u << 13), 8 + 8 + 8 + 32); /* COMM (exec) */
	pd_u32(&p, 50);
	pd_u32(&p, 50);
	pd_u64(&p, 0x676f7270); /* "prog" */
	TRAILER(50, 50, 21);
	name_len = (strlen(self) + 1 + 7) / 8 * 8;
	pd_hdr(&p, 10, 2 | (1u << 14), (uint16_t)(72 + name_len + 32));
	pd_u32(&p, 50);
	pd_u32(&p, 50);
	pd_u64(&p, 0x400000);
	pd_u64(&p, 0x1000);
	pd_u64(&p, 0);
	{
		uint8_t bid[24];

		memset(bid, 0, sizeof(bid));
		bid[0] = 20;
		memcpy(bid + 4, id, 20);
		pd_put(&p, bid, sizeof(bid));
	}
	pd_u32(&p, 5);
	pd_u32(&p, 2);
	rec = p.n;
	pd_put(&p, self, strlen(self));
	while (p.n < rec + name_len)
		pd_put(&p, "", 1);
	TRAILER(50, 50, 21);
	/* a data mapping and another process's code: both ignored */
	pd_hdr(&p, 10, 2, 72 + 8 + 32);
	pd_u32(&p, 50);
	pd_u32(&p, 50);
	for (int i = 0; i < 6; i++)
		pd_u64(&p, i < 2 ? 0x600000 : 0);
	pd_u32(&p, 3); /* PROT_READ | PROT_WRITE */
	pd_u32(&p, 2);
	pd_put(&p, "/data\0\0\0", 8);
	TRAILER(50, 50, 21);
	pd_hdr(&p, 10, 2, 72 + 8 + 32);
	pd_u32(&p, 99);
	pd_u32(&p, 99);
	for (int i = 0; i < 6; i++)
		pd_u64(&p, i < 2 ? 0x700000 : 0);
	pd_u32(&p, 5);
	pd_u32(&p, 2);
	pd_put(&p, "/other\0\0", 8);
	TRAILER(99, 99, 21);
	pd_hdr(&p, 12, 0, 16 + 32); /* ITRACE_START */
	pd_u32(&p, 50);
	pd_u32(&p, 51);
	TRAILER(50, 51, 12);
	pd_hdr(&p, 9, 2, 8 + 8 + 32); /* a sample: skipped */
	pd_u64(&p, 0x400000);
	TRAILER(50, 51, 12);
	pd_hdr(&p, 11, 0, 32 + 32); /* AUX, TRUNCATED, thread 51 by its id */
	pd_u64(&p, 0);
	pd_u64(&p, 24);
	pd_u64(&p, 1);
	TRAILER(50, 51, 12);
	pd_auxtrace(&p, 0, 50, UINT32_MAX, c1, sizeof(c1));
	pd_auxtrace(&p, 0, 51, UINT32_MAX, c1, sizeof(c1));
	p.b[p.n - 24 - 16] = 1;
	pd_auxtrace(&p, 24, 51, UINT32_MAX, c2, sizeof(c2));
	p.b[p.n - 40 - 16] = 1;
	pd_hdr(&p, 68, 0, 8); /* FINISHED_ROUND */
#undef TRAILER
	pd_end(&p);
	/* HEADER_CPUID */
	p.b[72 + 9 / 8] |= 1u << (9 % 8);
	feat_at = p.n;
	pd_u64(&p, feat_at + 16);
	pd_u64(&p, 4 + 64);
	pd_u32(&p, 64);
	{
		char s[64];

		memset(s, 0, sizeof(s));
		strcpy(s, "GenuineIntel,6,85,4");
		pd_put(&p, s, sizeof(s));
	}
	assert_int_equal(ptd_perfdata_parse(p.b, p.n, "layout.data", 1, &b), 0);
	assert_int_equal(b->cpu.family, 6);
	assert_int_equal(b->cpu.model, 85);
	assert_int_equal(b->cpu.stepping, 4);
	assert_string_equal(b->cpu_vendor, "GenuineIntel");
	assert_int_equal(b->nmaps, 1);
	assert_string_equal(b->maps[0].path, self);
	assert_int_equal(b->maps[0].build_id_size, 20);
	assert_memory_equal(b->maps[0].build_id, id, 20);
	assert_int_equal(b->nthreads, 2);
	assert_int_equal(b->threads[0].tid, 50);
	assert_int_equal(b->threads[0].size, 24);
	assert_int_equal(b->threads[1].tid, 51);
	assert_int_equal(b->threads[1].size, 24 + 2 + 40);
	assert_int_equal(b->threads[1].pt[25], 0xf3);
	assert_memory_equal(b->threads[1].pt + 26, c2, 40);
	ptd_bundle_free(b);

	/* the inline build-id no longer matches the file: refused */
	{
		uint8_t *q = memmem(p.b, p.n, id, 20);
		int rc;

		assert_non_null(q);
		q[0] ^= 0xff;
		rc = ptd_perfdata_parse(p.b, p.n, "layout.data", 1, &b);
		assert_int_equal(rc, -ptde_notfound);
		assert_non_null(strstr(ptd_last_error(rc), self));
	}
}

/* [vdso]: from perf's build-id cache when there, else left out. */
static void test_vdso(void **state)
{
	struct pd p;
	struct ptd_bundle *b;
	uint8_t id[20], bid[24], idn;
	uint64_t sum;
	char self[4096], cache[256], hex[41], cmd[600];
	ssize_t sl;

	(void)state;
	sl = readlink("/proc/self/exe", self, sizeof(self) - 1);
	assert_true(sl > 0);
	self[sl] = 0;
	assert_int_equal(ptd_bundle_file_id(self, id, &idn, &sum), 0);
	for (int i = 0; i < 20; i++)
		sprintf(hex + 2 * i, "%02x", id[i]);
	pd_begin(&p);
	pd_info(&p, 1, 0);
	pd_hdr(&p, 10, 2 | (1u << 14), 72 + 8 + 8);
	pd_u32(&p, 5);
	pd_u32(&p, 5);
	pd_u64(&p, 0x7fff0000);
	pd_u64(&p, 0x2000);
	pd_u64(&p, 0);
	memset(bid, 0, sizeof(bid));
	bid[0] = 20;
	memcpy(bid + 4, id, 20);
	pd_put(&p, bid, sizeof(bid));
	pd_u32(&p, 5);
	pd_u32(&p, 2);
	pd_put(&p, "[vdso]\0\0", 8);
	pd_u32(&p, 5);
	pd_u32(&p, 5);
	pd_auxtrace(&p, 0, 5, UINT32_MAX, psb, sizeof(psb));
	pd_end(&p);

	snprintf(cache, sizeof(cache), "%s/vcache", tmpdir);
	setenv("PERF_BUILDID_DIR", cache, 1);
	assert_int_equal(ptd_perfdata_parse(p.b, p.n, "vdso.data", 1, &b), 0);
	assert_int_equal(b->nmaps, 0);
	ptd_bundle_free(b);
	snprintf(cmd, sizeof(cmd), "mkdir -p '%s/.build-id/%.2s/%s'", cache, hex, hex + 2);
	assert_int_equal(system(cmd), 0);
	snprintf(cmd, sizeof(cmd), "%s/.build-id/%.2s/%s/elf", cache, hex, hex + 2);
	copy_file(self, cmd);
	assert_int_equal(ptd_perfdata_parse(p.b, p.n, "vdso.data", 1, &b), 0);
	assert_int_equal(b->nmaps, 1);
	assert_string_equal(b->maps[0].path, cmd);
	assert_int_equal(b->maps[0].vaddr, 0x7fff0000);
	ptd_bundle_free(b);

	/* the writer: a vdso dump is stored in the cache as perf record
	 * stores it, named [vdso] with its build-id inline, and found again */
	{
		struct ptd_perfdata_proc proc = {5, "v"};
		struct ptd_bundle *w, *l;
		size_t n;
		uint8_t *img = read_all(self, &n);
		char pd[128], want[700];

		snprintf(cache, sizeof(cache), "%s/vcache2", tmpdir);
		setenv("PERF_BUILDID_DIR", cache, 1);
		w = ptd_bundle_new(NULL);
		assert_non_null(w);
		assert_int_equal(ptd_bundle_add_memory_named(w, 0x7fff0000, img, n, "[vdso]"), 0);
		assert_int_equal(ptd_bundle_add_memory_named(w, 0x10000000, img, 64, ""), 0);
		assert_int_equal(ptd_bundle_nmemory(w), 2);
		assert_int_equal(ptd_bundle_add_thread(w, 5, psb, sizeof(psb), 0), 0);
		snprintf(pd, sizeof(pd), "%s/vdso.data", tmpdir);
		assert_int_equal(ptd_perfdata_save(w, &proc, pd), 0);
		ptd_bundle_free(w);
		free(img);
		snprintf(want, sizeof(want), "%s/[vdso]/%s/vdso", cache, hex);
		assert_int_equal(access(want, R_OK), 0);
		assert_int_equal(ptd_perfdata_load(pd, &l), 0);
		assert_int_equal(l->nmaps, 1); /* the anonymous dump has no name */
		snprintf(want, sizeof(want), "%s/.build-id/%.2s/%s/vdso", cache, hex, hex + 2);
		assert_string_equal(l->maps[0].path, want);
		assert_int_equal(l->maps[0].size, n);
		ptd_bundle_free(l);
	}
	unsetenv("PERF_BUILDID_DIR");
}

/* The tail a perf.data's thread loads with: the FUP ip of a final FUP,
 * TIP.PGD pair (how ptdbg's traces end at a stop), else unknown. */
static void test_tail(void **state)
{
	/* PSB, PSBEND, TIP.PGE full 0x401000, FUP update-16 0x1234, TIP.PGD */
	static const uint8_t end_fup[] = {
		0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02,
		0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x23, 0xd1, 0x00, 0x10, 0x40,
		0x00, 0x00, 0x00, 0x00, 0x00, 0x3d, 0x34, 0x12, 0x01,
	};
	struct ptd_perfdata_proc proc = {3, "t"};
	uint8_t tmp[sizeof(end_fup) + 8];
	struct ptd_bundle *b, *l;
	char pd[128];

	(void)state;
	snprintf(pd, sizeof(pd), "%s/tail.data", tmpdir);
	b = ptd_bundle_new(NULL);
	assert_non_null(b);
	assert_int_equal(ptd_bundle_add_thread(b, 3, end_fup, sizeof(end_fup), 0), 0);
	/* the same without the final TIP.PGD: unknown */
	assert_int_equal(ptd_bundle_add_thread(b, 4, end_fup, sizeof(end_fup) - 1, 0), 0);
	/* and with bytes that are no packets after it: unknown */
	memcpy(tmp, end_fup, sizeof(end_fup));
	memset(tmp + sizeof(end_fup), 0xff, 8);
	assert_int_equal(ptd_bundle_add_thread(b, 5, tmp, sizeof(tmp), 0), 0);
	assert_int_equal(ptd_perfdata_save(b, &proc, pd), 0);
	ptd_bundle_free(b);
	assert_int_equal(ptd_perfdata_load(pd, &l), 0);
	assert_int_equal(l->nthreads, 3);
	assert_int_equal(l->threads[0].tail_pc, 0x401234);
	assert_int_equal(l->threads[1].tail_pc, 0);
	assert_int_equal(l->threads[2].tail_pc, 0);
	ptd_bundle_free(l);
}

/* Every byte corrupted, every length cut: an answer, never a crash. */
static void test_corrupt_every_byte(void **state)
{
	struct ptd_perfdata_proc proc = {4242, "prog"};
	char code[128], pd[128];
	uint8_t *pt[2], *data, *work;
	size_t ptn[2], n, ok = 0, bad = 0;
	struct ptd_bundle *b, *l;
	static const int flips[] = {-1, -2, 0x01, 0x80, 0x7f};

	(void)state;
	snprintf(code, sizeof(code), "%s/code2.bin", tmpdir);
	write_bytes(code, "\x90\x90\x90\xc3", 4);
	snprintf(pd, sizeof(pd), "%s/fuzz.data", tmpdir);
	b = sample_bundle(code, pt, ptn);
	assert_int_equal(ptd_bundle_identify(b), 0);
	assert_int_equal(ptd_perfdata_save(b, &proc, pd), 0);
	ptd_bundle_free(b);
	data = read_all(pd, &n);
	work = malloc(n);
	assert_non_null(work);
	for (size_t i = 0; i < n; i++) {
		for (size_t f = 0; f < sizeof(flips) / sizeof(flips[0]); f++) {
			int rc;

			memcpy(work, data, n);
			work[i] = flips[f] == -1   ? 0
				  : flips[f] == -2 ? 0xff
						   : (uint8_t)(data[i] ^ flips[f]);
			rc = ptd_perfdata_parse(work, n, "fuzz.data", 0, &l);
			if (rc == 0) {
				assert_non_null(l);
				assert_true(l->nthreads >= 1);
				ptd_bundle_free(l);
				ok++;
			} else {
				assert_null(l);
				assert_true(strlen(ptd_last_error(rc)) > 0);
				bad++;
			}
		}
	}
	for (size_t len = 0; len < n; len++) {
		int rc = ptd_perfdata_parse(data, len, "cut.data", 0, &l);

		assert_true(rc < 0);
		assert_null(l);
	}
	/* both outcomes must occur, or the loop tested nothing */
	assert_true(ok > 0);
	assert_true(bad > 0);
	free(work);
	free(data);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_roundtrip),
		cmocka_unit_test(test_missing_and_cache),
		cmocka_unit_test(test_bundle_identity),
		cmocka_unit_test(test_lost_data),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_perf_record_layout),
		cmocka_unit_test(test_vdso),
		cmocka_unit_test(test_tail),
		cmocka_unit_test(test_corrupt_every_byte),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
