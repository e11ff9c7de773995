/*
 * make bench, PT decoding: throughput of ptdbg's history building against
 * two libipt baselines measured in the same run, time to the first reverse
 * step for growing traces, and history bytes per instruction.
 *
 * The trace is synthesized (src/record/ptsynth) for a random walk over a
 * generated program: 512 functions of straight-line runs (1..8 ordinary
 * instructions of 1..7 bytes) ending in conditional jumps, direct and
 * indirect calls and jumps, and returns; calls only go to higher-numbered
 * functions, so the call depth stays bounded.  The program is written to a
 * file so the file-backed decoders use libipt's image-section cache.
 *
 *   (a) libipt instruction decoder, memory read through pt_image_set_callback
 *       (how gdb decodes)
 *   (b) libipt block decoder over an image-section cache, storing nothing
 *   (c) ptdbg: ptd_pt_trace_history into a ptd_history, serial and 2 threads
 *
 * Usage: bench-decode [MB]   (trace size, default 64; env BENCH_PT_MB too)
 */
#include <inttypes.h>
#include <malloc.h>
#include <intel-pt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ptdbg/ptdbg.h"
#include "decode/bundle.h"
#include "decode/image.h"
#include "decode/fastpt.h"
#include "decode/pt.h"
#include "history/history.h"
#include "history/history_int.h"
#include "record/ptsynth.h"
#include "session/session.h"

#define CODE_BASE 0x500000ull
#define CODE_MAX (1u << 20)
#define NFUNC 512

enum kind { K_N, K_JCC, K_JMP, K_CALL, K_ICALL, K_IJMP, K_RET };

struct insn {
	uint32_t off;
	uint8_t len, kind;
	uint32_t target; /* direct target offset; for K_IJMP the function */
	uint16_t func;
};

static uint8_t code[CODE_MAX];
static struct insn *insns;
static size_t ninsns, capinsns;
static int32_t *at; /* offset -> insn index or -1 */
static uint32_t fentry[NFUNC];
static uint32_t *fblocks[NFUNC];
static int fnblocks[NFUNC];
static uint32_t clen;
static unsigned rs = 12345;

static unsigned rnd(void)
{
	rs = rs * 1103515245u + 12345u;
	return (rs >> 8) & 0xffffff;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(getenv("BENCH_CPU") ? CLOCK_PROCESS_CPUTIME_ID : CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void add(uint32_t len, enum kind k, uint32_t target, int f, const uint8_t *bytes)
{
	if (ninsns == capinsns) {
		capinsns = capinsns ? capinsns * 2 : 4096;
		insns = realloc(insns, capinsns * sizeof(*insns));
	}
	insns[ninsns].off = clen;
	insns[ninsns].len = (uint8_t)len;
	insns[ninsns].kind = (uint8_t)k;
	insns[ninsns].target = target;
	insns[ninsns].func = (uint16_t)f;
	ninsns++;
	memcpy(code + clen, bytes, len);
	clen += len;
}

static void put_rel32(uint32_t insn_end, uint32_t target)
{
	int32_t rel = (int32_t)target - (int32_t)insn_end;

	memcpy(code + insn_end - 4, &rel, 4);
}

/* Generates the program; branch displacements are patched afterwards. */
static void generate(void)
{
	static const uint8_t fill[][8] = {
		{ 1, 0x90 },
		{ 2, 0x89, 0xc8 },
		{ 3, 0x48, 0x89, 0xc3 },
		{ 4, 0x48, 0x83, 0xc0, 0x01 },
		{ 5, 0x0f, 0x1f, 0x44, 0x00, 0x00 },
		{ 5, 0x48, 0x8d, 0x44, 0x24, 0x08 },
		{ 7, 0x48, 0xc7, 0xc0, 0x01, 0x00, 0x00 },
	};
	static const uint8_t jcc[6] = { 0x0f, 0x85 }, jmp[5] = { 0xe9 }, call[5] = { 0xe8 };
	static const uint8_t icall[2] = { 0xff, 0xd0 }, ijmp[2] = { 0xff, 0xe0 }, ret[1] = { 0xc3 };
	size_t i;
	int f, b;

	memset(code, 0xcc, sizeof(code));
	/* Stub: call f0; jmp stub. */
	add(5, K_CALL, 0, -1 & 0xffff, call);
	add(5, K_JMP, 0, -1 & 0xffff, jmp);
	for (f = 0; f < NFUNC; f++) {
		int nb = 4 + (int)(rnd() % 9);

		fentry[f] = clen;
		fnblocks[f] = nb;
		fblocks[f] = calloc((size_t)nb, sizeof(uint32_t));
		for (b = 0; b < nb; b++) {
			int nf = 1 + (int)(rnd() % 8), k;

			fblocks[f][b] = clen;
			for (k = 0; k < nf; k++) {
				const uint8_t *fi = fill[rnd() % 7];

				if (fi[0] == 7) {
					uint8_t m[7] = { 0x48, 0xc7, 0xc0, 0x01, 0, 0, 0 };

					add(7, K_N, 0, f, m);
				} else {
					add(fi[0], K_N, 0, f, fi + 1);
				}
			}
			if (b == nb - 1) {
				add(1, K_RET, 0, f, ret);
				continue;
			}
			switch (rnd() % 8) {
			case 0: case 1: case 2:
				add(6, K_JCC, (uint32_t)(rnd() % (unsigned)nb), f, jcc); /* block index */
				break;
			case 3:
				add(5, K_JMP, (uint32_t)(b + 1 + (int)(rnd() % (unsigned)(nb - b - 1))), f, jmp);
				break;
			case 4: case 5:
				if (f + 1 < NFUNC)
					add(5, K_CALL, (uint32_t)(f + 1 + (int)(rnd() % (unsigned)(NFUNC - f - 1 < 16 ? NFUNC - f - 1 : 16))), f, call);
				break;
			case 6:
				if (f + 1 < NFUNC)
					add(2, K_ICALL, 0, f, icall);
				break;
			default:
				add(2, K_IJMP, (uint32_t)b, f, ijmp); /* forward within f */
				break;
			}
		}
	}
	/* Resolve targets to offsets and patch displacements. */
	at = malloc(sizeof(int32_t) * clen);
	for (i = 0; i < clen; i++)
		at[i] = -1;
	for (i = 0; i < ninsns; i++) {
		struct insn *in = &insns[i];
		uint32_t end = in->off + in->len;

		at[in->off] = (int32_t)i;
		if (i == 0) {
			in->target = fentry[0];
		} else if (i == 1) {
			in->target = 0;
		} else if (in->kind == K_JCC) {
			in->target = fblocks[in->func][in->target];
		} else if (in->kind == K_JMP) {
			in->target = fblocks[in->func][in->target];
		} else if (in->kind == K_CALL) {
			in->target = fentry[in->target];
		} else {
			continue;
		}
		put_rel32(end, in->target);
	}
}

/* Walks until @bytes of PT are written; returns instructions executed. */
static uint64_t walk(struct ptd_ptsynth *s, size_t bytes)
{
	static uint64_t stack[NFUNC + 8];
	int sp = 0;
	uint64_t n = 0;
	uint32_t off = 0;

	ptd_ptsynth_begin(s, CODE_BASE);
	for (;;) {
		const struct insn *in = &insns[at[off]];
		uint32_t next = in->off + in->len, t;

		n++;
		switch (in->kind) {
		case K_N:
			off = next;
			break;
		case K_JCC:
			t = (rnd() & 1) ? in->target : next;
			ptd_ptsynth_cond(s, t != next, CODE_BASE + t);
			off = t;
			break;
		case K_JMP:
			off = in->target;
			break;
		case K_CALL:
			stack[sp++] = next;
			ptd_ptsynth_call(s, CODE_BASE + next);
			off = in->target;
			break;
		case K_ICALL: {
			int f = in->func + 1 + (int)(rnd() % (unsigned)(NFUNC - in->func - 1 < 16 ? NFUNC - in->func - 1 : 16));

			stack[sp++] = next;
			t = fentry[f];
			ptd_ptsynth_icall(s, CODE_BASE + next, CODE_BASE + t);
			off = t;
			break;
		}
		case K_IJMP: {
			int nb = fnblocks[in->func], b = (int)in->target;

			t = fblocks[in->func][b + 1 + (int)(rnd() % (unsigned)(nb - b - 1))];
			ptd_ptsynth_indirect(s, CODE_BASE + t);
			off = t;
			break;
		}
		case K_RET:
			t = (uint32_t)stack[--sp];
			ptd_ptsynth_ret(s, CODE_BASE + t);
			off = t;
			break;
		}
		if ((n & 0xfff) == 0) {
			size_t sz;

			ptd_ptsynth_data(s, &sz);
			if (sz >= bytes && in->kind == K_N)
				break;
		}
	}
	ptd_ptsynth_end(s, CODE_BASE + off);
	return n;
}

/*
 * A real-style trace: IP filtering with only the first FRANGE functions
 * (and the stub) in the traced range, so every call out of it is a
 * TIP.PGD with the target and the return a TIP.PGE (the callee runs
 * untraced), and the smallest PSB period, so PSB segments are ~160 bytes.
 */
#define FRANGE 96

static uint64_t walk_filtered(struct ptd_ptsynth *s, size_t bytes)
{
	static uint64_t stack[NFUNC + 8];
	int sp = 0;
	uint64_t n = 0;
	uint32_t off = 0, limit = fentry[FRANGE];

	ptd_ptsynth_begin(s, CODE_BASE);
	for (;;) {
		const struct insn *in = &insns[at[off]];
		uint32_t next = in->off + in->len, t;

		n++;
		switch (in->kind) {
		case K_N:
			off = next;
			break;
		case K_JCC:
			t = (rnd() & 1) ? in->target : next;
			ptd_ptsynth_cond(s, t != next, CODE_BASE + t);
			off = t;
			break;
		case K_JMP:
			off = in->target;
			break;
		case K_CALL:
		case K_ICALL:
			if (in->kind == K_CALL) {
				t = in->target;
			} else {
				int f = in->func + 1 +
					(int)(rnd() % (unsigned)(NFUNC - in->func - 1 < 16
									 ? NFUNC - in->func - 1
									 : 16));
				t = fentry[f];
			}
			if (t >= limit) { /* out of range: runs untraced, returns */
				ptd_ptsynth_leave(s, CODE_BASE + t);
				ptd_ptsynth_enter(s, CODE_BASE + next);
				off = next;
				break;
			}
			stack[sp++] = next;
			if (in->kind == K_CALL)
				ptd_ptsynth_call(s, CODE_BASE + next);
			else
				ptd_ptsynth_icall(s, CODE_BASE + next, CODE_BASE + t);
			off = t;
			break;
		case K_IJMP: {
			int nb = fnblocks[in->func], b = (int)in->target;

			t = fblocks[in->func][b + 1 + (int)(rnd() % (unsigned)(nb - b - 1))];
			ptd_ptsynth_indirect(s, CODE_BASE + t);
			off = t;
			break;
		}
		case K_RET:
			t = (uint32_t)stack[--sp];
			ptd_ptsynth_ret(s, CODE_BASE + t);
			off = t;
			break;
		}
		if ((n & 0xfff) == 0) {
			size_t sz;

			ptd_ptsynth_data(s, &sz);
			if (sz >= bytes && in->kind == K_N)
				break;
		}
	}
	ptd_ptsynth_end(s, CODE_BASE + off);
	return n;
}

static int cb_read(uint8_t *buf, size_t size, const struct pt_asid *asid, uint64_t ip, void *ctx)
{
	(void)asid;
	(void)ctx;
	if (ip < CODE_BASE || ip >= CODE_BASE + clen)
		return -pte_nomap;
	if (size > CODE_BASE + clen - ip)
		size = (size_t)(CODE_BASE + clen - ip);
	memcpy(buf, code + (ip - CODE_BASE), size);
	return (int)size;
}

static void cfg_init(struct pt_config *c, const uint8_t *buf, size_t n)
{
	pt_config_init(c);
	c->begin = (uint8_t *)buf;
	c->end = (uint8_t *)buf + n;
}

/* (a) instruction decoder, callback image. */
static uint64_t run_insn(const uint8_t *buf, size_t n)
{
	struct pt_config c;
	struct pt_insn_decoder *d;
	struct pt_image *img = pt_image_alloc("cb");
	uint64_t cnt = 0;
	int st;

	cfg_init(&c, buf, n);
	pt_image_set_callback(img, cb_read, NULL);
	d = pt_insn_alloc_decoder(&c);
	pt_insn_set_image(d, img);
	for (;;) {
		st = pt_insn_sync_forward(d);
		if (st < 0)
			break;
		for (;;) {
			struct pt_insn insn;

			while (st & pts_event_pending) {
				struct pt_event ev;

				st = pt_insn_event(d, &ev, sizeof(ev));
				if (st < 0)
					break;
			}
			if (st < 0)
				break;
			st = pt_insn_next(d, &insn, sizeof(insn));
			if (st < 0)
				break;
			cnt++;
		}
		if (st == -pte_eos)
			break;
	}
	pt_insn_free_decoder(d);
	pt_image_free(img);
	return cnt;
}

/* (b) block decoder over the section cache, storing nothing. */
static uint64_t run_blk(const uint8_t *buf, size_t n, const char *path, int end_on)
{
	struct pt_config c;
	struct pt_block_decoder *d;
	struct pt_image_section_cache *isc = pt_iscache_alloc("b");
	struct pt_image *img = pt_image_alloc("b");
	uint64_t cnt = 0;
	int st, isid;

	isid = pt_iscache_add_file(isc, path, 0, clen, CODE_BASE);
	pt_image_add_cached(img, isc, isid, NULL);
	cfg_init(&c, buf, n);
	if (end_on) {
		c.flags.variant.block.end_on_call = 1;
		c.flags.variant.block.end_on_jump = 1;
	}
	d = pt_blk_alloc_decoder(&c);
	pt_blk_set_image(d, img);
	for (;;) {
		st = pt_blk_sync_forward(d);
		if (st < 0)
			break;
		for (;;) {
			struct pt_block blk;

			while (st & pts_event_pending) {
				struct pt_event ev;

				st = pt_blk_event(d, &ev, sizeof(ev));
				if (st < 0)
					break;
			}
			if (st < 0)
				break;
			st = pt_blk_next(d, &blk, sizeof(blk));
			cnt += blk.ninsn;
			if (st < 0)
				break;
		}
		if (st == -pte_eos)
			break;
	}
	pt_blk_free_decoder(d);
	pt_image_free(img);
	pt_iscache_free(isc);
	return cnt;
}

/* The generated program's functions, for the call segments. */
/* --calls-rs-nosym: the code has no symbols (func_of knows nothing). */
static int no_symbols;

static uint64_t bench_func_of(void *ctx, uint64_t addr)
{
	int lo = 0, hi = NFUNC;

	(void)ctx;
	if (no_symbols || addr < CODE_BASE + fentry[0] || addr >= CODE_BASE + clen)
		return 0;
	while (hi - lo > 1) {
		int mid = (lo + hi) / 2;

		if (CODE_BASE + fentry[mid] <= addr)
			lo = mid;
		else
			hi = mid;
	}
	return CODE_BASE + fentry[lo];
}

/* (c) ptdbg history; with @calls, a lazy history keeps its call log
 * (as ptdbg --load builds it) and *@calls gets the time to count the call
 * segments then (what info record adds). */
static uint64_t run_ptdbg_calls(const uint8_t *buf, size_t n, struct ptd_image *img, int threads,
				size_t *hbytes, int lazy, double *calls, uint64_t *ncalls)
{
	struct ptd_pt_trace *t = ptd_pt_trace_alloc(buf, n, img, NULL, NULL, 0);
	struct ptd_history *h = ptd_history_alloc(ptd_image_read, img);
	struct ptd_pt_stats st;

	if (t && lazy)
		ptd_pt_trace_set_lazy_history(t, 0);
	if (h && calls)
		ptd_history_set_func(h, bench_func_of, NULL);
	if (!t || !h || ptd_pt_trace_history(t, h, threads, &st) < 0) {
		fprintf(stderr, "bench-decode: ptdbg decode failed\n");
		exit(1);
	}
	if (calls) {
		double t0 = now();

		if (ptd_calls_count_only(h, bench_func_of, NULL, ncalls) < 0) {
			fprintf(stderr, "bench-decode: counting the call segments failed\n");
			exit(1);
		}
		*calls = now() - t0;
	}
	*hbytes = ptd_history_bytes(h);
	ptd_history_free(h);
	ptd_pt_trace_free(t);
	return st.ninsn;
}

static uint64_t run_ptdbg(const uint8_t *buf, size_t n, struct ptd_image *img, int threads,
			  size_t *hbytes, int lazy)
{
	return run_ptdbg_calls(buf, n, img, threads, hbytes, lazy, NULL, NULL);
}

static double first_step_ms(const uint8_t *buf, size_t n, struct ptd_image *img)
{
	double best = 1e9;
	int rep;

	for (rep = 0; rep < 9; rep++) {
		double t0 = now(), dt;
		struct ptd_pt_trace *t = ptd_pt_trace_alloc(buf, n, img, NULL, NULL, 0);
		const struct ptd_history *h = ptd_pt_trace_newest(t, 0);
		struct ptd_hcursor c;

		if (!h || ptd_hcursor_goto(&c, h, ptd_history_count(h)) < 0 || ptd_hcursor_prev(&c) < 0) {
			fprintf(stderr, "bench-decode: no newest segment\n");
			exit(1);
		}
		dt = (now() - t0) * 1e3;
		ptd_pt_trace_free(t);
		if (dt < best)
			best = dt;
	}
	return best;
}

/*
 * End to end through the session, as `ptdbg --load DIR` runs it: the trace
 * saved as a bundle, then the time from loading to the first reverse-stepi
 * done, and the time `info record` then takes (it needs every segment).
 */
static void load_figures(const uint8_t *buf, size_t n, const char *code, double *first,
			 double *all, double *info)
{
	char dir[] = "/tmp/ptd-bench-bundle-XXXXXX", cmd[128];
	struct ptd_cpu cpu = { 0 };
	struct ptd_bundle *b;
	struct ptd_session *s;
	struct ptd_event ev;
	struct ptd_record_info ri;
	double t0;

	if (!mkdtemp(dir) || !(b = ptd_bundle_new(&cpu)) ||
	    ptd_bundle_add_map(b, code, 0, clen, CODE_BASE) < 0 ||
	    ptd_bundle_add_thread(b, 1, buf, n, 0) < 0 || ptd_bundle_save(b, dir) < 0) {
		fprintf(stderr, "bench-decode: cannot write a bundle\n");
		exit(1);
	}
	ptd_bundle_free(b);
	t0 = now();
	s = ptd_session_alloc();
	if (!s || ptd_session_load(s, dir) < 0 || ptd_session_motion(s, PTD_MOTION_STEPI, 1, &ev) < 0) {
		fprintf(stderr, "bench-decode: load or reverse-stepi failed: %s\n", ptd_last_error(0));
		exit(1);
	}
	*first = (now() - t0) * 1e3;
	t0 = now();
	if (!ptd_session_history(s)) {
		fprintf(stderr, "bench-decode: decoding the whole trace failed\n");
		exit(1);
	}
	*all = (now() - t0) * 1e3;
	t0 = now();
	if (ptd_session_record_info(s, &ri) < 0 || ri.ninsn == 0) {
		fprintf(stderr, "bench-decode: info record failed\n");
		exit(1);
	}
	*info = (now() - t0) * 1e3;
	ptd_session_free(s);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "bench-decode: could not remove %s\n", dir);
}

/* A trace of at least @mb MB: copies of @base back to back (each copy
 * starts with a PSB+ and ends with tracing disabled, so this is valid PT). */
static uint8_t *repeat(const uint8_t *base, size_t bn, size_t mb, size_t *out)
{
	size_t want = mb << 20, k = (want + bn - 1) / bn, i;
	uint8_t *b = malloc(k * bn);

	for (i = 0; i < k; i++)
		memcpy(b + i * bn, base, bn);
	*out = k * bn;
	return b;
}

/*
 * --realstyle DIR MB: writes DIR/code.bin and a bundle in DIR of a
 * real-style trace of about MB MB (see walk_filtered) for run.sh, which
 * times `ptdbg --load DIR -ex 'info record'` against --blk as whole
 * processes.
 */
static int realstyle(const char *dir, size_t mb)
{
	struct ptd_ptsynth_config cfg = {.psb_period = 128, .ret_compression = 1};
	struct ptd_ptsynth *s = ptd_ptsynth_alloc(&cfg);
	struct ptd_cpu cpu = {0};
	struct ptd_bundle *b;
	char path[4096];
	uint64_t walked, npsb = 0;
	uint8_t *pt;
	size_t n, i;
	FILE *f;

	generate();
	snprintf(path, sizeof(path), "%s/code.bin", dir);
	f = fopen(path, "w");
	if (!f || fwrite(code, 1, clen, f) != clen || fclose(f) != 0) {
		fprintf(stderr, "bench-decode: cannot write %s\n", path);
		return 1;
	}
	walked = walk_filtered(s, (mb ? mb : 2) << 20);
	pt = ptd_ptsynth_take(s, &n);
	for (i = 0; i + 16 <= n; i++)
		if (pt[i] == 0x02 && pt[i + 1] == 0x82 && !memcmp(pt + i, pt + i + 2, 14))
			npsb++, i += 15;
	if (!(b = ptd_bundle_new(&cpu)) || ptd_bundle_add_map(b, path, 0, clen, CODE_BASE) < 0 ||
	    ptd_bundle_add_thread(b, 1, pt, n, 0) < 0 || ptd_bundle_save(b, dir) < 0) {
		fprintf(stderr, "bench-decode: cannot write a bundle in %s: %s\n", dir,
			ptd_last_error(0));
		return 1;
	}
	printf("real-style trace: %.2f MB, %" PRIu64 " PSBs (%.0f bytes per segment), %" PRIu64
	       " instructions, filtered to %d of %d functions\n",
	       n / 1048576.0, npsb, npsb ? (double)n / (double)npsb : 0.0, walked, FRANGE, NFUNC);
	ptd_bundle_free(b);
	free(pt);
	ptd_ptsynth_free(s);
	return 0;
}

/* --blk PT CODE: libipt's bare block decoder over the file PT with CODE
 * at CODE_BASE, as a process of its own (the baseline for --realstyle). */
static int bare_blk(const char *ptpath, const char *codepath)
{
	FILE *f = fopen(ptpath, "rb");
	uint8_t *buf;
	long sz;
	uint64_t cnt;

	if (!f || fseek(f, 0, SEEK_END) || (sz = ftell(f)) <= 0 || fseek(f, 0, SEEK_SET)) {
		fprintf(stderr, "bench-decode: cannot read %s\n", ptpath);
		return 1;
	}
	buf = malloc((size_t)sz);
	if (!buf || fread(buf, 1, (size_t)sz, f) != (size_t)sz) {
		fprintf(stderr, "bench-decode: cannot read %s\n", ptpath);
		return 1;
	}
	fclose(f);
	f = fopen(codepath, "rb");
	if (!f || fseek(f, 0, SEEK_END) || ftell(f) <= 0) {
		fprintf(stderr, "bench-decode: cannot read %s\n", codepath);
		return 1;
	}
	clen = (uint32_t)ftell(f);
	fclose(f);
	cnt = run_blk(buf, (size_t)sz, codepath, 0);
	printf("blk insns=%" PRIu64 "\n", cnt);
	free(buf);
	return 0;
}

/* --phases DIR: where `ptdbg --load DIR -ex 'info record'` spends its
 * time: load to the first reverse-stepi, the whole history, info record;
 * then what `record function-call-history` adds: the call view and its
 * newest 1,000 segments read. */
static int phases(const char *dir)
{
	struct ptd_session *s = ptd_session_alloc();
	struct ptd_event ev;
	struct ptd_record_info ri;
	const struct ptd_calls *c;
	double t0 = now(), t1, t2, t3, t4;
	uint64_t n, i;

	if (!s || ptd_session_load(s, dir) < 0 ||
	    ptd_session_motion(s, PTD_MOTION_STEPI, 1, &ev) < 0) {
		fprintf(stderr, "bench-decode: load or reverse-stepi failed: %s\n",
			ptd_last_error(0));
		return 1;
	}
	t1 = now();
	if (!ptd_session_history(s))
		return 1;
	t2 = now();
	if (ptd_session_record_info(s, &ri) < 0)
		return 1;
	t3 = now();
	c = ptd_session_calls(s);
	n = ptd_calls_count(c);
	for (i = n > 1000 ? n - 999 : 1; c && i <= n; i++)
		if (!ptd_calls_get(c, i))
			break;
	t4 = now();
	if (!c || n != ri.ncalls || i <= n) {
		fprintf(stderr, "bench-decode: the call view failed or differs from info record: %s\n",
			ptd_last_error(0));
		return 1;
	}
	printf("load+reverse-stepi %.1f ms, whole history %.1f ms, info record %.1f ms "
	       "(%" PRIu64 " insns, %" PRIu64 " functions), function-call-history (the view, "
	       "the newest 1,000 read) %.1f ms\n",
	       (t1 - t0) * 1e3, (t2 - t1) * 1e3, (t3 - t2) * 1e3, ri.ninsn, ri.ncalls,
	       (t4 - t3) * 1e3);
	ptd_session_free(s);
	return 0;
}

/*
 * The decode fast path (src/decode/fastpt.c) against (b), libipt's bare
 * block decoder, over the same bytes in the same run: ptdbg's counting
 * pass (what a lazy history costs) and a full decode into a history, with
 * the fast path and with PTDBG_DECODE=libipt's plain path, on 1 and 2
 * threads; the counts must agree.  Best of BENCH_REPS (default 3), in
 * both the process's CPU time (steady on a loaded machine; the goal is
 * read there; on 2 threads both threads' time adds up) and wall time
 * (what shows scaling with threads), measured in the same runs.
 */
struct clk {
	double cpu, wall;
};

static void clk_now(struct clk *c)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	c->cpu = (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	c->wall = (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Keeps in @best the least of each clock since @t0. */
static void clk_best(struct clk *best, const struct clk *t0)
{
	struct clk t1;

	clk_now(&t1);
	if (t1.cpu - t0->cpu < best->cpu)
		best->cpu = t1.cpu - t0->cpu;
	if (t1.wall - t0->wall < best->wall)
		best->wall = t1.wall - t0->wall;
}

/* The last history time_count made: its items and bytes. */
static uint64_t last_nitems;
static size_t last_bytes;

static struct clk time_count(const uint8_t *buf, size_t n, struct ptd_image *img, int threads,
			     int fast, int lazy, uint64_t *ninsn, uint64_t *count)
{
	struct clk best = {1e30, 1e30};
	const char *r = getenv("BENCH_REPS");
	int reps = r ? atoi(r) : 3, k;

	ptd__fastpt_force(fast);
	for (k = 0; k < (reps < 1 ? 1 : reps); k++) {
		struct ptd_pt_trace *t = ptd_pt_trace_alloc(buf, n, img, NULL, NULL, 0);
		struct ptd_history *h = ptd_history_alloc(ptd_image_read, img);
		struct ptd_pt_stats st;
		struct clk t0;

		clk_now(&t0);
		if (lazy)
			ptd_pt_trace_set_lazy_history(t, 0);
		if (!t || !h || ptd_pt_trace_history(t, h, threads, &st) < 0) {
			fprintf(stderr, "bench-decode: ptdbg decode failed: %s\n", ptd_last_error(0));
			exit(1);
		}
		clk_best(&best, &t0);
		*ninsn = st.ninsn;
		*count = ptd_history_count(h);
		last_nitems = ptd_history_nitems(h);
		last_bytes = ptd_history_bytes(h);
		ptd_history_free(h);
		ptd_pt_trace_free(t);
	}
	ptd__fastpt_force(-1);
	return best;
}

static struct clk time_blk(const uint8_t *buf, size_t n, const char *path, uint64_t *ninsn)
{
	struct clk best = {1e30, 1e30};
	const char *r = getenv("BENCH_REPS");
	int reps = r ? atoi(r) : 3, k;

	for (k = 0; k < (reps < 1 ? 1 : reps); k++) {
		struct clk t0;

		clk_now(&t0);
		*ninsn = run_blk(buf, n, path, 0);
		clk_best(&best, &t0);
	}
	return best;
}

/* One row: MB/s and the ratio to (b), CPU time then wall time. */
static void row(const char *what, double mb, struct clk b, struct clk t, const char *note)
{
	printf("  %-42s cpu %7.1f MB/s %5.2fx (b)   wall %7.1f MB/s %5.2fx (b)%s\n", what,
	       mb / t.cpu, b.cpu / t.cpu, mb / t.wall, b.wall / t.wall, note);
}

static void fast_figures(const char *name, const uint8_t *buf, size_t n, const char *path,
			 struct ptd_image *img)
{
	double mb = n / 1048576.0;
	struct clk tb, c1, c2, p1, f1, f2, g1, g2;
	uint64_t nb, i1, i2, i3, i4, i5, i6, i7, n1, n2, n3, n4, n5, n6, n7;
	struct ptd_fastpt_stats fs;

	/* BENCH_FULL_ONLY=1: (b) and the 1-thread full decodes only (tuning
	 * the history's appending); =fast: the fast path's full decode alone,
	 * =count: its counting alone (profiling them, not even (b)). */
	if (getenv("BENCH_FULL_ONLY")) {
		if (!strcmp(getenv("BENCH_FULL_ONLY"), "count")) {
			ptd__pt_set_store_max(0);
			c1 = time_count(buf, n, img, 1, 1, 1, &i2, &n2);
			ptd__pt_set_store_max(PTD_PT_STORE_MAX);
			printf("%s: %.1f MB, counting, fast path, 1 thread: cpu %.1f MB/s\n", name,
			       mb, mb / c1.cpu);
			return;
		}
		if (!strcmp(getenv("BENCH_FULL_ONLY"), "fast")) {
			f1 = time_count(buf, n, img, 1, 1, 0, &i4, &n4);
			printf("%s: %.1f MB, %" PRIu64 " instructions, %" PRIu64 " items, %.3f "
			       "bytes per instruction; full history, fast path, 1 thread: cpu %.1f "
			       "MB/s\n", name, mb, i4, last_nitems, (double)last_bytes / (double)i4,
			       mb / f1.cpu);
			return;
		}
		tb = time_blk(buf, n, path, &nb);
		f1 = time_count(buf, n, img, 1, 1, 0, &i4, &n4);
		printf("%s: %.1f MB, %" PRIu64 " instructions (b: %" PRIu64 "), %" PRIu64
		       " items\n", name, mb, i4, nb, n4);
		row("(b) libipt bare block decoder, 1 thread:", mb, tb, tb, "");
		row("full history, fast path, 1 thread:", mb, tb, f1, "");
		return;
	}
	/* Counting: the lazy history of the whole trace (store nothing). */
	ptd__pt_set_store_max(0);
	tb = time_blk(buf, n, path, &nb);
	p1 = time_count(buf, n, img, 1, 0, 1, &i1, &n1);
	ptd__fastpt_totals(&fs, 1);
	c1 = time_count(buf, n, img, 1, 1, 1, &i2, &n2);
	ptd__fastpt_totals(&fs, 1);
	c2 = time_count(buf, n, img, 2, 1, 1, &i3, &n3);
	g2 = time_count(buf, n, img, 2, 0, 1, &i6, &n6);
	ptd__pt_set_store_max(PTD_PT_STORE_MAX);
	/* Full decodes into a history. */
	f1 = time_count(buf, n, img, 1, 1, 0, &i4, &n4);
	g1 = time_count(buf, n, img, 1, 0, 0, &i5, &n5);
	f2 = time_count(buf, n, img, 2, 1, 0, &i7, &n7);
	printf("%s: %.1f MB, %" PRIu64 " instructions (b: %" PRIu64 ")\n", name, mb, i2, nb);
	row("(b) libipt bare block decoder, 1 thread:", mb, tb, tb, "");
	row("counting, plain libipt path, 1 thread:", mb, tb, p1, "");
	row("counting, plain libipt path, 2 threads:", mb, tb, g2, "");
	row("counting, fast path, 1 thread:", mb, tb, c1, "   (goal >= 3, cpu)");
	row("counting, fast path, 2 threads:", mb, tb, c2, "");
	row("full history, plain libipt path, 1 thread:", mb, tb, g1, "");
	row("full history, fast path, 1 thread:", mb, tb, f1, "");
	row("full history, fast path, 2 threads:", mb, tb, f2, "");
	printf("  fast path: %" PRIu64 " segments handled, %" PRIu64 " left to libipt, went on after "
	       "libipt %" PRIu64 " times, %" PRIu64 " runs again from an earlier PSB; %" PRIu64
	       " straight-line runs decoded, %" PRIu64 " found cached; %" PRIu64 " TNT paths built, %"
	       PRIu64 " found cached (1 thread, counting, %d reps)\n",
	       fs.segs_fast, fs.segs_refused, fs.resumes, fs.redos, fs.lines, fs.line_hits, fs.paths,
	       fs.path_hits, getenv("BENCH_REPS") ? atoi(getenv("BENCH_REPS")) : 3);
	if (i1 != i2 || i2 != i3 || i3 != i4 || i4 != i5 || i5 != i6 || i6 != i7 || n1 != n2 ||
	    n2 != n3 || n3 != n6 || n4 != n5 || n5 != n7) {
		fprintf(stderr, "bench-decode: FAIL: the fast path counts differ from libipt's\n");
		exit(1);
	}
}

/* The generated program written to @path (a mkstemp template) and
 * mapped in a new image at CODE_BASE, in *@img: 0, or 1 on failure. */
static int code_image(char *path, struct ptd_image **img)
{
	FILE *f;
	int fd;

	generate();
	fd = mkstemp(path);
	f = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (!f || fwrite(code, 1, clen, f) != clen || fclose(f) != 0)
		return 1;
	*img = ptd_image_alloc(NULL, NULL);
	return !*img || ptd_image_add_file(*img, path, 0, clen, CODE_BASE) < 0;
}

/* --fast [MB]: fast_figures on the synthesized trace (default 64 MB) and
 * on a real-style one (BENCH_RS_MB, default 2). */
static int fast_main(size_t mb)
{
	struct ptd_ptsynth_config cfg = { .psb_period = 4096, .ret_compression = 1 };
	struct ptd_ptsynth_config rcfg = { .psb_period = 128, .ret_compression = 1 };
	char path[] = "/tmp/ptd-bench-code-XXXXXX";
	const char *rse = getenv("BENCH_RS_MB");
	struct ptd_ptsynth *s;
	struct ptd_image *img;
	uint8_t *base, *big;
	size_t bn, n;

	if (code_image(path, &img))
		return 1;
	s = ptd_ptsynth_alloc(&cfg);
	walk(s, (mb < 16 ? mb : 16) << 20);
	base = ptd_ptsynth_take(s, &bn);
	big = repeat(base, bn, mb, &n);
	fast_figures("synthesized trace", big, n, path, img);
	free(big);
	free(base);
	ptd_ptsynth_free(s);
	s = ptd_ptsynth_alloc(&rcfg);
	walk_filtered(s, (rse ? (size_t)atoi(rse) : 2) << 20);
	base = ptd_ptsynth_take(s, &bn);
	fast_figures("real-style trace (PSB period 128, filtered)", base, bn, path, img);
	free(base);
	ptd_ptsynth_free(s);
	ptd_image_free(img);
	unlink(path);
	return 0;
}

/* Gives freed memory back, so resident growth is what is kept. */
static void malloc_trim_hint(void)
{
	malloc_trim(0);
}

/* Resident bytes of this process (/proc/self/statm). */
static size_t resident(void)
{
	unsigned long size = 0, res = 0;
	FILE *f = fopen("/proc/self/statm", "r");

	if (f) {
		if (fscanf(f, "%lu %lu", &size, &res) != 2)
			res = 0;
		fclose(f);
	}
	return (size_t)res * (size_t)sysconf(_SC_PAGESIZE);
}

/* Builds the call segments of @h (lazy view, or eager with @chunk 0) and
 * reads the newest 1,000 as `record function-call-history` shows them;
 * prints the figures. */
static void calls_view_figures(const struct ptd_history *h, const char *name, int chunk,
			       double *last1000)
{
	size_t r0, r1, r2;
	double t0, t1, t2;
	struct ptd_calls *c;
	uint64_t n, i, sum = 0;
	double best = 1e30;
	int k;

	malloc_trim_hint();
	r0 = resident();
	t0 = now();
	c = ptd__calls_build_chunked(h, bench_func_of, NULL, 1, chunk ? 1024 : 0);
	t1 = now();
	malloc_trim_hint();
	if (!c) {
		fprintf(stderr, "bench-decode: building the call segments failed: %s\n",
			ptd_last_error(0));
		exit(1);
	}
	r1 = resident();
	n = ptd_calls_count(c);
	/* the best of 5 reads from cold (nothing decoded): this VM is shared */
	for (k = 0; k < 5; k++) {
		double ta;

		ptd__calls_drop_cache(c);
		ta = now();
		for (i = n > 1000 ? n - 999 : 1; i <= n; i++) {
			const struct ptd_callseg *g = ptd_calls_get(c, i);

			if (!g) {
				fprintf(stderr, "bench-decode: call segment %" PRIu64 " missing\n", i);
				exit(1);
			}
			sum += g->first + (uint64_t)g->level;
		}
		if (now() - ta < best)
			best = now() - ta;
	}
	t2 = t1 + best;
	r2 = resident();
	{
		size_t sn = 0, fx = 0, all = ptd__calls_bytes(c, &sn, &fx);

		printf("  %-6s kept: %.2f bytes per segment (checkpoints' segments %.2f, later writes "
		       "%.2f)\n", name, (double)all / (double)(n ? n : 1),
		       (double)sn / (double)(n ? n : 1), (double)fx / (double)(n ? n : 1));
	}
	printf("  %-6s %" PRIu64 " segments: build %.0f ms, resident %.2f bytes per segment "
	       "(%.2f with the newest 1,000 read); newest 1,000 read in %.2f ms from cold, best of 5 (%s)\n",
	       name, n, (t1 - t0) * 1e3, (double)(r1 > r0 ? r1 - r0 : 0) / (double)(n ? n : 1),
	       (double)(r2 > r0 ? r2 - r0 : 0) / (double)(n ? n : 1), (t2 - t1) * 1e3,
	       sum ? "ok" : "empty");
	*last1000 = (t2 - t1) * 1e3;
	ptd_calls_free(c);
}

/*
 * The first `record function-call-history` after a load: ptd_calls_build
 * (from a late part on, the part summaries chained) and the newest 1,000
 * segments read, against the whole view built as before; the two must
 * give the same segments.  Prints the figures; returns the first
 * request's milliseconds, or -1 when the two differ.
 */
static double first_request(const struct ptd_history *h, uint64_t ncalls, double *whole_ms)
{
	struct ptd_calls *c, *w;
	uint64_t n, i, floor = 0;
	double t0, t1, t2;
	int full;

	t0 = now();
	c = ptd_calls_build(h, bench_func_of, NULL);
	n = c ? ptd_calls_count(c) : 0;
	for (i = n > 1000 ? n - 999 : 1; c && i <= n; i++)
		if (!ptd_calls_get(c, i))
			break;
	t1 = now();
	full = ptd__calls_suffix_info(c, &floor);
	w = ptd__calls_build_chunked(h, bench_func_of, NULL, 1, 1024);
	t2 = now();
	if (!c || !w) {
		fprintf(stderr, "bench-decode: building the call segments failed: %s\n",
			ptd_last_error(0));
		exit(1);
	}
	*whole_ms = (t2 - t1) * 1e3;
	if (ptd_calls_count(w) != n || ptd_calls_min_level(w) != ptd_calls_min_level(c) ||
	    ncalls != n)
		return -1;
	for (i = n > 5000 ? n - 4999 : 1; i <= n; i++) {
		const struct ptd_callseg *a = ptd_calls_get(c, i), *b = ptd_calls_get(w, i);

		if (!a || !b || memcmp(a, b, sizeof(*a)))
			return -1;
	}
	printf("  first request after load (ptd_calls_build + the newest 1,000 read): %.2f ms, "
	       "%" PRIu64 " of %" PRIu64 " segments walked, whole view %s; the whole view's build "
	       "(as before) %.0f ms; the newest 5,000 segments, count (info record's too) and lowest "
	       "level identical\n",
	       (t1 - t0) * 1e3, n - floor, n, full ? "built too" : "not built", *whole_ms);
	ptd_calls_free(w);
	ptd_calls_free(c);
	return (t1 - t0) * 1e3;
}

/*
 * --calls MB: the function-call segments of the history of an MB MB
 * synthesized trace as ptdbg --load keeps it, with its call log (stored up
 * to 16 MB, with what info record and the first call history cost without
 * the log; lazy above):
 * counting (the decode that builds the log), counting the segments from
 * the log (what `info record` adds), and the segment view, eager (every
 * 88-byte segment kept, as before) and lazy (a checkpoint per chunk,
 * chunks materialised when read): resident bytes per segment and the
 * newest 1,000 segments (`record function-call-history`).
 * --calls-rs MB: the same on a real-style trace (walk_filtered, PSB
 * period 128; up to 16 MB walked, repeated above); --calls-rs-gaps MB:
 * with a gap item at each TIP.PGD/TIP.PGE pair (ptd_pt_trace_set_disabled_gaps);
 * --calls-rs-nosym MB: that too with no symbols (func_of answers 0), as
 * `ptdbg --load` of a bundle of code with no symbols has it.
 */
static int calls_main(size_t mb, int rs)
{
	struct ptd_ptsynth_config cfg = { .psb_period = rs ? 128 : 4096, .ret_compression = 1 };
	char path[] = "/tmp/ptd-bench-code-XXXXXX";
	struct ptd_ptsynth *s;
	struct ptd_image *img;
	struct ptd_pt_trace *t;
	struct ptd_history *h;
	uint8_t *base, *big;
	size_t bn, n;
	double t0, tcount, tinfo, lazy1000, eager1000, first_ms, whole_ms, titems, witems;
	uint64_t ncalls = 0;
	int stored;

	if (code_image(path, &img))
		return 1;
	s = ptd_ptsynth_alloc(&cfg);
	if (rs)
		walk_filtered(s, (mb < 16 ? mb : 16) << 20);
	else
		walk(s, (mb < 16 ? mb : 16) << 20);
	base = ptd_ptsynth_take(s, &bn);
	big = repeat(base, bn, mb, &n);
	free(base);
	ptd_ptsynth_free(s);

	t = ptd_pt_trace_alloc(big, n, img, NULL, NULL, 0);
	h = ptd_history_alloc(ptd_image_read, img);
	if (!t || !h)
		return 1;
	ptd_pt_trace_set_lazy_history(t, 0);
	if (rs > 1) /* every TIP.PGD/TIP.PGE pair a gap item */
		ptd_pt_trace_set_disabled_gaps(t, 1);
	ptd_history_set_func(h, bench_func_of, NULL);
	/* up to 16 MB stored, as a loaded trace of PTD_PT_STORE_MAX (the
	 * repeated walk is a few bytes more) */
	if (mb <= 16)
		ptd__pt_set_store_max(n);
	t0 = now();
	if (ptd_pt_trace_history(t, h, 1, NULL) < 0) {
		fprintf(stderr, "bench-decode: ptdbg decode failed\n");
		return 1;
	}
	tcount = now() - t0;
	ptd__pt_set_store_max(PTD_PT_STORE_MAX);
	t0 = now();
	if (ptd_calls_count_only(h, bench_func_of, NULL, &ncalls) < 0) {
		fprintf(stderr, "bench-decode: counting the call segments failed\n");
		return 1;
	}
	tinfo = now() - t0;
	stored = mb <= 16;
	{
		/* what info record and the first call history cost without a
		 * call log (a stored history before its batches logged: every
		 * item walked) */
		uint64_t k = 0;
		struct ptd_calls *w;

		t0 = now();
		if (ptd__calls_count_items(h, bench_func_of, NULL, &k) < 0 || k != ncalls) {
			fprintf(stderr, "bench-decode: counting from the items differs\n");
			return 1;
		}
		titems = now() - t0;
		t0 = now();
		w = ptd__calls_build_chunked(h, bench_func_of, NULL, 0, 1024);
		for (uint64_t i = k > 1000 ? k - 999 : 1; w && i <= k; i++)
			ptd_calls_get(w, i);
		witems = now() - t0;
		ptd_calls_free(w);
	}
	printf("== call segments, %.1f MB %s trace, %" PRIu64 " instructions, %s "
	       "history, call log of %u parts\n",
	       n / 1048576.0,
	       rs > 2 ? "real-style (gaps, no symbols)" : rs > 1 ? "real-style (gaps)" : rs ? "real-style" : "synthesized",
	       ptd_history_ninsn(h),
	       stored ? "stored" : "lazy",
	       ptd__calllog_nparts(ptd__history_calllog(h, &(uint64_t){0})));
	printf("  %s (+ call log) %.0f ms; info record (segments counted: the part summaries "
	       "chained, the last part walked) %.0f ms; info record / %s = %.2f (goal <= 1.3); "
	       "without the log (every item walked) %.0f ms, first call history %.0f ms\n",
	       stored ? "decode" : "counting", tcount * 1e3, tinfo * 1e3,
	       stored ? "decode" : "counting", (tcount + tinfo) / tcount, titems * 1e3,
	       witems * 1e3);
	first_ms = first_request(h, ncalls, &whole_ms);
	if (first_ms < 0) {
		fprintf(stderr, "bench-decode: the call view from a late part differs from the "
				"whole view\n");
		return 1;
	}
	calls_view_figures(h, "lazy", 1, &lazy1000);
	calls_view_figures(h, "eager", 0, &eager1000);
	printf("  %zu MB: resident bytes per call segment above (goal <= 16); newest 1,000 "
	       "calls %.2f ms lazy, %.2f ms eager once the whole view is built; the first request "
	       "after a load or stop %.2f ms (goal < 50 ms; the whole view first: %.0f ms, %.0fx "
	       "longer)\n", mb, lazy1000, eager1000, first_ms, whole_ms,
	       whole_ms / (first_ms > 0.001 ? first_ms : 0.001));
	ptd_history_free(h);
	ptd_pt_trace_free(t);
	free(big);
	ptd_image_free(img);
	unlink(path);
	return 0;
}

int main(int argc, char **argv)
{
	struct ptd_ptsynth_config cfg = { .psb_period = 4096, .ret_compression = 1 };
	size_t mb = 64, bn, n, n1, hbytes = 0, lbytes = 0;
	const char *env = getenv("BENCH_PT_MB");
	char path[] = "/tmp/ptd-bench-code-XXXXXX";
	struct ptd_ptsynth *s, *s1;
	struct ptd_image *img;
	uint8_t *base, *big, *one;
	double t0, ta, tb, tb2, tc, tp, te, te2, f1, f16, f256, pt_per_insn, tl = 1e30, ti = 1e30;
	uint64_t ncalls = 0;
	size_t cbytes = 0;
	uint64_t na, nb, nb2, nc, np, ne, ne2, walked;
	FILE *f;
	int fd;

	if (argc == 4 && !strcmp(argv[1], "--realstyle"))
		return realstyle(argv[2], (size_t)atoi(argv[3]));
	if (argc == 4 && !strcmp(argv[1], "--blk"))
		return bare_blk(argv[2], argv[3]);
	if (argc >= 2 && !strcmp(argv[1], "--fast"))
		return fast_main(argc > 2 ? (size_t)atoi(argv[2]) : 64);
	if (argc == 3 && !strcmp(argv[1], "--calls"))
		return calls_main((size_t)atoi(argv[2]), 0);
	if (argc == 3 && !strcmp(argv[1], "--calls-rs"))
		return calls_main((size_t)atoi(argv[2]), 1);
	if (argc == 3 && !strcmp(argv[1], "--calls-rs-gaps"))
		return calls_main((size_t)atoi(argv[2]), 2);
	if (argc == 3 && !strcmp(argv[1], "--calls-rs-nosym")) {
		no_symbols = 1;
		return calls_main((size_t)atoi(argv[2]), 3);
	}
	if (argc == 3 && !strcmp(argv[1], "--phases"))
		return phases(argv[2]);
	if (argc > 1)
		mb = (size_t)atoi(argv[1]);
	else if (env)
		mb = (size_t)atoi(env);
	if (mb < 1)
		mb = 1;
	generate();
	fd = mkstemp(path);
	f = fdopen(fd, "w");
	fwrite(code, 1, clen, f);
	fclose(f);

	/* A 16 MB base trace (repeated for larger sizes) and a 1 MB one. */
	s = ptd_ptsynth_alloc(&cfg);
	walked = walk(s, (mb < 16 ? mb : 16) << 20);
	base = ptd_ptsynth_take(s, &bn);
	s1 = ptd_ptsynth_alloc(&cfg);
	walk(s1, (1u << 20) - 4096);
	one = ptd_ptsynth_take(s1, &n1);
	big = repeat(base, bn, mb, &n);
	printf("== PT decode: generated program %u bytes, %zu instructions; trace %.1f MB "
	       "(%.3f bytes/insn)\n", clen, ninsns, n / 1048576.0, (double)bn / (double)walked);

	img = ptd_image_alloc(NULL, NULL);
	if (ptd_image_add_file(img, path, 0, clen, CODE_BASE) < 0)
		return 1;

	if (getenv("BENCH_ONLY_BLK")) { /* for profiling */
		t0 = now();
		nb = run_blk(big, n, path, getenv("BENCH_BLK_END_ON") != NULL);
		printf("blk %.3f s %" PRIu64 " insns\n", now() - t0, nb);
		return 0;
	}
	if (getenv("BENCH_ONLY_LOAD")) { /* for profiling */
		double l, a, i;

		load_figures(big, n, path, &l, &a, &i);
		printf("load %.1f ms, history %.0f ms, info record %.0f ms\n", l, a, i);
		return 0;
	}
	if (getenv("BENCH_ONLY_PTDBG")) { /* for profiling */
		t0 = now();
		nc = run_ptdbg(big, n, img, 1, &hbytes, getenv("BENCH_LAZY") != NULL);
		printf("ptdbg %.3f s %" PRIu64 " insns\n", now() - t0, nc);
		return 0;
	}
	if (getenv("BENCH_ONLY_LOG")) { /* for profiling: the counting pass with the call log */
		double ci;

		t0 = now();
		nc = run_ptdbg_calls(big, n, img, 1, &cbytes, 1, &ci, &ncalls);
		printf("with the call log %.0f ms (%" PRIu64 " insns, %.3f history bytes per "
		       "instruction), counting the %" PRIu64 " call segments %.0f ms\n",
		       (now() - t0 - ci) * 1e3, nc, (double)cbytes / (double)nc, ncalls, ci * 1e3);
		return 0;
	}
	if (getenv("BENCH_ONLY_INFO")) { /* for profiling: the info record figure alone */
		const char *r = getenv("BENCH_REPS");
		int reps = r ? atoi(r) : 3, k;

		tc = 1e30;
		for (k = 0; k < (reps < 1 ? 1 : reps); k++) {
			double t, ci;

			t0 = now();
			nc = run_ptdbg(big, n, img, 1, &lbytes, 1);
			if ((t = now() - t0) < tc)
				tc = t;
			t0 = now();
			run_ptdbg_calls(big, n, img, 1, &cbytes, 1, &ci, &ncalls);
			if ((t = now() - t0 - ci) < tl)
				tl = t;
			if (ci < ti)
				ti = ci;
		}
		printf("counting %.0f ms, with the call log %.0f ms, counting the %" PRIu64
		       " call segments from the log %.0f ms; info record / counting = %.2f\n",
		       tc * 1e3, tl * 1e3, ncalls, ti * 1e3, (tl + ti) / tc);
		return 0;
	}
	/* Each figure is the best of BENCH_REPS runs (default 3): this is a
	 * shared VM, and the minimum is the least disturbed run. */
	{
		const char *r = getenv("BENCH_REPS");
		int reps = r ? atoi(r) : 3, k;

		if (reps < 1)
			reps = 1;
		ta = tb = tb2 = tc = tp = te = te2 = 1e30;
		for (k = 0; k < reps; k++) {
			double t;

			t0 = now();
			na = run_insn(big, n);
			if ((t = now() - t0) < ta)
				ta = t;
			t0 = now();
			nb = run_blk(big, n, path, 0);
			if ((t = now() - t0) < tb)
				tb = t;
			t0 = now();
			nb2 = run_blk(big, n, path, 1);
			if ((t = now() - t0) < tb2)
				tb2 = t;
			t0 = now();
			nc = run_ptdbg(big, n, img, 1, &lbytes, 1);
			if ((t = now() - t0) < tc)
				tc = t;
			t0 = now();
			np = run_ptdbg(big, n, img, 2, &lbytes, 1);
			if ((t = now() - t0) < tp)
				tp = t;
			{
				double ci;

				t0 = now();
				run_ptdbg_calls(big, n, img, 1, &cbytes, 1, &ci, &ncalls);
				if ((t = now() - t0 - ci) < tl)
					tl = t;
				if (ci < ti)
					ti = ci;
			}
			t0 = now();
			ne = run_ptdbg(big, n, img, 1, &hbytes, 0);
			if ((t = now() - t0) < te)
				te = t;
			t0 = now();
			ne2 = run_ptdbg(big, n, img, 2, &hbytes, 0);
			if ((t = now() - t0) < te2)
				te2 = t;
		}
	}
	if (na != nb || nb != nc || nc != np || nb2 != nb || ne != nc || ne2 != nc)
		printf("WARNING: instruction counts differ: insn %" PRIu64 " blk %" PRIu64 " ptdbg %" PRIu64
		       " parallel %" PRIu64 "\n", na, nb, nc, np);

	pt_per_insn = (double)n / (double)nc;
#define RATE(t) (n / 1048576.0 / (t)), (nc / 1e6 / (t))
	printf("(a) libipt insn decoder + callback:  %8.1f MB/s %8.1f Minsn/s\n", RATE(ta));
	printf("(b) libipt block decoder, iscache:   %8.1f MB/s %8.1f Minsn/s\n", RATE(tb));
	printf("(b') the same, ending blocks at direct calls and jumps (as ptdbg needs):\n"
	       "                                     %8.1f MB/s %8.1f Minsn/s\n", RATE(tb2));
	printf("(c) ptdbg history, serial:           %8.1f MB/s %8.1f Minsn/s\n", RATE(tc));
	printf("(c) ptdbg history, 2 threads:        %8.1f MB/s %8.1f Minsn/s\n", RATE(tp));
	printf("    (the lazy history ptdbg --load builds: every PSB segment counted, decoded\n"
	       "    again when an instruction in it is needed, 16 kept decoded)\n");
	printf("(c') every block stored, serial:     %8.1f MB/s %8.1f Minsn/s\n", RATE(te));
	printf("(c') every block stored, 2 threads:  %8.1f MB/s %8.1f Minsn/s\n", RATE(te2));
	printf("ratio ptdbg/(a) = %.2f (goal >= 5), ptdbg/(b) = %.2f (goal >= 0.8), "
	       "parallel/(b) = %.2f (goal > 1); stored/(b) = %.2f, stored parallel/(b) = %.2f\n",
	       ta / tc, tb / tc, tb / tp, tb / te, tb / te2);

	/* The call log (what info record, the call history and bt use
	 * instead of decoding every part again): built by the counting
	 * decode, then replayed to count the call segments. */
	printf("(c) with the call log, serial:       %8.1f MB/s (the log costs %.0f%%, %.3f bytes "
	       "per instruction)\n", n / 1048576.0 / tl, (tl / tc - 1) * 100,
	       (double)(cbytes > lbytes ? cbytes - lbytes : 0) / (double)nc);
	printf("counting the %" PRIu64 " call segments from the log: %.0f ms; info record / counting "
	       "= (counting with the log + that) / counting = %.2f (goal <= 1.3)\n",
	       ncalls, ti * 1e3, (tl + ti) / tc);

	/* 1, 16 and 256 MB made of the same 1 MB trace, so the newest
	 * segment is the same and only the trace size differs. */
	free(big);
	big = repeat(one, n1, 1, &n);
	f1 = first_step_ms(big, n, img);
	free(big);
	big = repeat(one, n1, 16, &n);
	f16 = first_step_ms(big, n, img);
	free(big);
	big = repeat(one, n1, 256, &n);
	f256 = first_step_ms(big, n, img);
	printf("time to first reverse step: 1 MB %.3f ms, 16 MB %.3f ms, 256 MB %.3f ms; "
	       "ratio 256/1 = %.2f (goal <= 2, each <= 10 ms)\n", f1, f16, f256, f256 / f1);
	printf("history bytes per instruction: %.3f lazy (plus the PT, %.3f, and 16 decoded "
	       "segments when in use), %.3f every block stored (goal <= 2)\n",
	       (double)lbytes / (double)nc, pt_per_insn, (double)hbytes / (double)nc);
	{
		double l1, a1, i1, l64, a64, i64;

		free(big);
		big = repeat(one, n1, 1, &n);
		load_figures(big, n, path, &l1, &a1, &i1);
		free(big);
		big = repeat(one, n1, mb, &n);
		load_figures(big, n, path, &l64, &a64, &i64);
		printf("ptdbg --load, to the first reverse-stepi: 1 MB %.1f ms, %zu MB %.1f ms "
		       "(ratio %.2f)\n", l1, mb, l64, l64 / l1);
		printf("  then the whole history: %.0f ms, %.0f ms; then info record (call history): "
		       "%.0f ms, %.0f ms\n", a1, a64, i1, i64);
		/* The whole history of a lazy trace is its counting decode
		 * (which also builds the call log); info record then only
		 * replays the log. */
		printf("ratio (whole history + info record) / whole history (counting), %zu MB: "
		       "%.2f (goal <= 1.3)\n", mb, (a64 + i64) / a64);
	}

	free(big);
	free(base);
	free(one);
	ptd_image_free(img);
	ptd_ptsynth_free(s);
	ptd_ptsynth_free(s1);
	unlink(path);
	return 0;
}
