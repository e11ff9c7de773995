/*
 * Run scanning for the soft recorder (see soft_scan.h): follows direct
 * control flow with ptd_soft_decode() to the next instruction whose
 * outcome only the CPU knows, caches the result per start address, and
 * keeps the set of addresses already armed.  Also holds the small
 * open-addressing map (u64 -> pointer) the soft recorder files share.
 */
#include <stdlib.h>
#include <string.h>

#include "disasm/disasm.h"
#include "record/soft_scan.h"
#include "util/error.h"

/* ---- map: linear probing, key 0 is "empty", backward-shift deletion ---- */

static size_t hash64(uint64_t k)
{
	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdull;
	k ^= k >> 33;
	return (size_t)k;
}

void *ptd__soft_map_get(const struct ptd__soft_map *m, uint64_t key)
{
	if (!m->cap || !key)
		return NULL;
	for (size_t i = hash64(key) & (m->cap - 1);; i = (i + 1) & (m->cap - 1)) {
		if (m->keys[i] == key)
			return m->vals[i];
		if (!m->keys[i])
			return NULL;
	}
}

static int map_grow(struct ptd__soft_map *m)
{
	size_t cap = m->cap ? m->cap * 2 : 64;
	uint64_t *keys = calloc(cap, sizeof(*keys));
	void **vals = calloc(cap, sizeof(*vals));
	if (!keys || !vals) {
		free(keys);
		free(vals);
		return -ptde_nomem;
	}
	for (size_t j = 0; j < m->cap; j++) {
		if (!m->keys[j])
			continue;
		size_t i = hash64(m->keys[j]) & (cap - 1);
		while (keys[i])
			i = (i + 1) & (cap - 1);
		keys[i] = m->keys[j];
		vals[i] = m->vals[j];
	}
	free(m->keys);
	free(m->vals);
	m->keys = keys;
	m->vals = vals;
	m->cap = cap;
	return 0;
}

int ptd__soft_map_put(struct ptd__soft_map *m, uint64_t key, void *val)
{
	if (!key)
		return -ptde_invalid;
	if ((m->n + 1) * 4 > m->cap * 3) {
		int err = map_grow(m);
		if (err < 0)
			return err;
	}
	size_t i = hash64(key) & (m->cap - 1);
	while (m->keys[i] && m->keys[i] != key)
		i = (i + 1) & (m->cap - 1);
	if (!m->keys[i])
		m->n++;
	m->keys[i] = key;
	m->vals[i] = val;
	return 0;
}

void *ptd__soft_map_del(struct ptd__soft_map *m, uint64_t key)
{
	if (!m->cap || !key)
		return NULL;
	size_t mask = m->cap - 1, i = hash64(key) & mask;
	while (m->keys[i] != key) {
		if (!m->keys[i])
			return NULL;
		i = (i + 1) & mask;
	}
	void *val = m->vals[i];
	m->n--;
	/* Shift later members of the probe chain back so lookups still find them. */
	size_t j = i;
	for (;;) {
		j = (j + 1) & mask;
		if (!m->keys[j])
			break;
		size_t h = hash64(m->keys[j]) & mask;
		/* Move j to i unless its home lies cyclically in (i, j]. */
		if ((j > i && (h <= i || h > j)) || (j < i && (h <= i && h > j))) {
			m->keys[i] = m->keys[j];
			m->vals[i] = m->vals[j];
			i = j;
		}
	}
	m->keys[i] = 0;
	m->vals[i] = NULL;
	return val;
}

void ptd__soft_map_fini(struct ptd__soft_map *m)
{
	free(m->keys);
	free(m->vals);
	memset(m, 0, sizeof(*m));
}

/* ---- scanner ---- */

struct ptd_soft_scan {
	ptd_soft_read_fn read;
	void *ctx;
	struct ptd__soft_map runs;  /* start -> struct ptd_soft_run * */
	struct ptd__soft_map armed; /* addr -> (void *)1 */
	ptd_soft_volatile_fn vol;
	void *vol_ctx;
	/* The run at address 0 (a call through a null function pointer),
	 * kept apart: 0 is the maps' empty key. */
	struct ptd_soft_run *zero;
};

void ptd_soft_scan_set_volatile(struct ptd_soft_scan *s, ptd_soft_volatile_fn vol, void *ctx)
{
	if (!s)
		return;
	s->vol = vol;
	s->vol_ctx = ctx;
}

struct ptd_soft_scan *ptd_soft_scan_alloc(ptd_soft_read_fn read, void *ctx)
{
	if (!read)
		return NULL;
	struct ptd_soft_scan *s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	s->read = read;
	s->ctx = ctx;
	return s;
}

static void run_free(struct ptd_soft_run *r)
{
	if (!r)
		return;
	free(r->blk);
	free(r->ips);
	free(r->code);
	free(r->ncode);
	free(r);
}

void ptd_soft_scan_clear(struct ptd_soft_scan *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->runs.cap; i++)
		if (s->runs.keys[i])
			run_free(s->runs.vals[i]);
	ptd__soft_map_fini(&s->runs);
	ptd__soft_map_fini(&s->armed);
	if (s->zero)
		run_free(s->zero);
	s->zero = NULL;
}

void ptd_soft_scan_free(struct ptd_soft_scan *s)
{
	if (!s)
		return;
	ptd_soft_scan_clear(s);
	free(s);
}

static int push_ip(struct ptd_soft_run *r, uint32_t *cap, uint64_t ip)
{
	if (r->ninsn == *cap) {
		uint32_t nc = *cap ? *cap * 2 : 16;
		uint64_t *p = realloc(r->ips, nc * sizeof(*p));
		if (!p)
			return -ptde_nomem;
		r->ips = p;
		*cap = nc;
	}
	r->ips[r->ninsn++] = ip;
	return 0;
}

static int push_blk(struct ptd_soft_run *r, uint32_t *cap, uint64_t ip, uint64_t end,
		    uint32_t n, uint8_t iclass, uint8_t len)
{
	if (r->nblk == *cap) {
		uint32_t nc = *cap ? *cap * 2 : 4;
		struct ptd_soft_blk *p = realloc(r->blk, nc * sizeof(*p));
		if (!p)
			return -ptde_nomem;
		r->blk = p;
		*cap = nc;
	}
	r->blk[r->nblk++] = (struct ptd_soft_blk){ ip, end, n, iclass, len };
	return 0;
}

static int visited(const struct ptd_soft_run *r, uint64_t ip)
{
	for (uint32_t i = 0; i < r->ninsn; i++)
		if (r->ips[i] == ip)
			return 1;
	return 0;
}

static int scan(struct ptd_soft_scan *s, uint64_t start, struct ptd_soft_run *r)
{
	uint32_t icap = 0, bcap = 0;
	uint64_t ip = start, bstart = start;
	uint32_t bn = 0;
	int err;

	r->start = start;
	for (;;) {
		uint8_t buf[16];
		long got = s->read(s->ctx, ip, buf, sizeof(buf));
		struct ptd_soft_insn in;
		if ((err = push_ip(r, &icap, ip)) < 0)
			return err;
		bn++;
		if (got <= 0 || ptd_soft_decode(buf, (size_t)got, ip, &in) < 0) {
			/* Executing this faults (or the code appears later): trap
			 * nothing, the signal or a rescan will tell. */
			memset(&in, 0, sizeof(in));
			in.ip = ip;
			in.op = PTD_SOP_NOEMUL;
			r->bad = 1;
			r->end = ip;
			r->insn = in;
			return push_blk(r, &bcap, bstart, ip, bn, PTD_IC_OTHER, 0);
		}
		int cut = r->ninsn >= PTD_SOFT_RUN_MAX;
		int direct = in.op == PTD_SOP_JMP || in.op == PTD_SOP_CALL;
		if (!cut && direct && visited(r, in.target))
			cut = 1; /* a static loop: trap its jump so time still moves */
		if (s->vol && s->vol(s->vol_ctx, ip))
			r->vol = 1;
		if (!cut && s->vol && !ptd_soft_op_dynamic(in.op) &&
		    s->vol(s->vol_ctx, direct ? in.target : ip + in.len) &&
		    (direct || !s->vol(s->vol_ctx, ip)))
			cut = 1; /* entering code that may have been written since */
		if (cut || ptd_soft_op_dynamic(in.op)) {
			r->end = ip;
			r->insn = in;
			return push_blk(r, &bcap, bstart, ip, bn, in.iclass, in.len);
		}
		if (in.op == PTD_SOP_JMP || in.op == PTD_SOP_CALL) {
			if ((err = push_blk(r, &bcap, bstart, ip, bn, in.iclass, in.len)) < 0)
				return err;
			ip = bstart = in.target;
			bn = 0;
			continue;
		}
		ip += in.len;
	}
}

/* The bytes block @b of a run covers: up to its last instruction's end. */
static uint64_t blk_bytes(const struct ptd_soft_blk *b)
{
	return b->end_ip - b->ip + (b->end_len ? b->end_len : 1);
}

/* Reads [@addr, @addr + @n) into @buf; returns the bytes read (a short
 * count where memory ends). */
static uint64_t read_span(struct ptd_soft_scan *s, uint64_t addr, uint8_t *buf, uint64_t n)
{
	uint64_t got = 0;
	while (got < n) {
		long k = s->read(s->ctx, addr + got, buf + got, n - got);
		if (k <= 0)
			break;
		got += (uint64_t)k;
	}
	return got;
}

/* Keeps the code of a run in volatile memory for ptd_soft_scan_verify(). */
static int keep_code(struct ptd_soft_scan *s, struct ptd_soft_run *r)
{
	uint64_t total = 0, off = 0;
	for (uint32_t i = 0; i < r->nblk; i++)
		total += blk_bytes(&r->blk[i]);
	r->code = malloc(total ? total : 1);
	r->ncode = calloc(r->nblk ? r->nblk : 1, sizeof(*r->ncode));
	if (!r->code || !r->ncode)
		return -ptde_nomem;
	for (uint32_t i = 0; i < r->nblk; i++) {
		uint64_t n = blk_bytes(&r->blk[i]);
		r->ncode[i] = (uint32_t)read_span(s, r->blk[i].ip, r->code + off, n);
		off += n;
	}
	return 0;
}

int ptd_soft_scan_verify(struct ptd_soft_scan *s, const struct ptd_soft_run *r, uint64_t *lo,
			 uint64_t *hi)
{
	uint8_t sbuf[256], *buf;
	uint64_t off = 0, clo = UINT64_MAX, chi = 0;

	if (!s || !r || !lo || !hi)
		return -ptde_invalid;
	if (!r->code)
		return 0;
	for (uint32_t i = 0; i < r->nblk; i++) {
		const struct ptd_soft_blk *b = &r->blk[i];
		uint64_t n = blk_bytes(b), got;
		buf = n <= sizeof(sbuf) ? sbuf : malloc(n);
		if (!buf)
			return -ptde_nomem;
		got = read_span(s, b->ip, buf, n);
		if (got != r->ncode[i]) {
			/* Mapped or unmapped since: all of the block changed. */
			if (b->ip < clo)
				clo = b->ip;
			if (b->ip + n > chi)
				chi = b->ip + n;
		} else {
			for (uint64_t k = 0; k < got; k++)
				if (buf[k] != r->code[off + k]) {
					if (b->ip + k < clo)
						clo = b->ip + k;
					if (b->ip + k + 1 > chi)
						chi = b->ip + k + 1;
				}
		}
		if (buf != sbuf)
			free(buf);
		off += n;
	}
	if (clo >= chi)
		return 0;
	*lo = clo;
	*hi = chi;
	return 1;
}

int ptd_soft_scan_run(struct ptd_soft_scan *s, uint64_t ip, const struct ptd_soft_run **out)
{
	if (!s || !out)
		return -ptde_invalid;
	struct ptd_soft_run *r = ip ? ptd__soft_map_get(&s->runs, ip) : s->zero;
	if (r) {
		*out = r;
		return 0;
	}
	r = calloc(1, sizeof(*r));
	if (!r)
		return -ptde_nomem;
	int err = scan(s, ip, r);
	if (err >= 0 && r->vol)
		err = keep_code(s, r);
	if (err >= 0 && ip)
		err = ptd__soft_map_put(&s->runs, ip, r);
	else if (err >= 0)
		s->zero = r;
	if (err < 0) {
		run_free(r);
		return err;
	}
	*out = r;
	return 0;
}

int ptd_soft_scan_arm(struct ptd_soft_scan *s, uint64_t addr)
{
	if (ptd__soft_map_get(&s->armed, addr))
		return 0;
	if (ptd__soft_map_put(&s->armed, addr, (void *)1) < 0)
		return -ptde_nomem;
	return 1;
}

int ptd_soft_scan_armed(const struct ptd_soft_scan *s, uint64_t addr)
{
	return ptd__soft_map_get(&s->armed, addr) != NULL;
}

static int run_touches(const struct ptd_soft_run *r, uint64_t lo, uint64_t hi)
{
	/* +15: the last instruction's bytes may reach into the range. */
	for (uint32_t i = 0; i < r->nblk; i++)
		if (r->blk[i].ip < hi && r->blk[i].end_ip + 15 >= lo)
			return 1;
	return 0;
}

int ptd_soft_scan_invalidate(struct ptd_soft_scan *s, uint64_t lo, uint64_t hi,
			     void (*cb)(void *ctx, uint64_t addr), void *ctx)
{
	if (!s)
		return -ptde_invalid;
	/* Collect first: deleting while walking a linear-probing table moves entries. */
	size_t n = 0, cap = 0;
	uint64_t *keys = NULL;
	for (size_t i = 0; i < s->runs.cap; i++) {
		uint64_t k = s->runs.keys[i];
		if (k && run_touches(s->runs.vals[i], lo, hi)) {
			if (n == cap) {
				cap = cap ? cap * 2 : 16;
				uint64_t *p = realloc(keys, cap * sizeof(*p));
				if (!p) {
					free(keys);
					return -ptde_nomem;
				}
				keys = p;
			}
			keys[n++] = k;
		}
	}
	for (size_t i = 0; i < n; i++)
		run_free(ptd__soft_map_del(&s->runs, keys[i]));
	n = 0;
	for (size_t i = 0; i < s->armed.cap; i++) {
		uint64_t k = s->armed.keys[i];
		if (k && k >= lo && k < hi) {
			if (n == cap) {
				cap = cap ? cap * 2 : 16;
				uint64_t *p = realloc(keys, cap * sizeof(*p));
				if (!p) {
					free(keys);
					return -ptde_nomem;
				}
				keys = p;
			}
			keys[n++] = k;
		}
	}
	for (size_t i = 0; i < n; i++) {
		ptd__soft_map_del(&s->armed, keys[i]);
		if (cb)
			cb(ctx, keys[i]);
	}
	free(keys);
	return (int)n;
}

size_t ptd_soft_scan_armed_list(const struct ptd_soft_scan *s, uint64_t *out, size_t max)
{
	size_t n = 0;
	for (size_t i = 0; s && i < s->armed.cap; i++) {
		if (!s->armed.keys[i])
			continue;
		if (n < max)
			out[n] = s->armed.keys[i];
		n++;
	}
	return n;
}

int ptd_soft_run_prefix(const struct ptd_soft_run *r, uint64_t ip, struct ptd_soft_blk *out,
			int max)
{
	uint32_t k = 0;
	int n = 0;
	for (uint32_t b = 0; b < r->nblk; b++) {
		const struct ptd_soft_blk *blk = &r->blk[b];
		for (uint32_t j = 0; j < blk->ninsn; j++, k++) {
			if (r->ips[k] != ip)
				continue;
			if (j > 0 && n < max)
				out[n++] = (struct ptd_soft_blk){
					blk->ip, r->ips[k - 1], j, PTD_IC_OTHER,
					(uint8_t)(r->ips[k] - r->ips[k - 1]) };
			return n;
		}
		if (n < max)
			out[n++] = *blk;
	}
	return -ptde_notfound;
}
