/*
 * Compact register snapshots for the soft recorder (see soft_regs.h).
 */
#include "record/soft_regs.h"

#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "util/error.h"

/* Raw bytes per block before it is deflated: big enough for deflate to
 * find a loop's repetitions, small enough that a lookup is quick. */
#define SOFT_REGS_BLOCK 32768
/* One snapshot at most: two varints of a number and a mask, and one
 * varint (up to 10 bytes) per register. */
#define SNAP_MAX (2 * 10 + PTD_SOFT_NREGS * 10)

static uint8_t *put_uv(uint8_t *p, uint64_t v)
{
	while (v >= 0x80) {
		*p++ = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	*p++ = (uint8_t)v;
	return p;
}

/* Reads a varint from [p, end); NULL when the stream ends inside it. */
static const uint8_t *get_uv(const uint8_t *p, const uint8_t *end, uint64_t *out)
{
	uint64_t v = 0;
	int shift = 0;

	while (p < end && shift < 64) {
		uint8_t b = *p++;
		v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80)) {
			*out = v;
			return p;
		}
		shift += 7;
	}
	return NULL;
}

static uint64_t zz(int64_t v)
{
	return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
}

static int64_t unzz(uint64_t v)
{
	return (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
}

void ptd__soft_regs_init(struct ptd__soft_regs *s)
{
	memset(s, 0, sizeof(*s));
}

void ptd__soft_regs_fini(struct ptd__soft_regs *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->nblk; i++)
		free(s->blk[i].z);
	free(s->blk);
	free(s->raw);
	free(s->cache);
	memset(s, 0, sizeof(*s));
}

/* Deflates the open block into a new closed one. */
static int seal(struct ptd__soft_regs *s)
{
	uLongf zlen;
	uint8_t *z;

	if (!s->nraw)
		return 0;
	if (s->nblk == s->capblk) {
		size_t c = s->capblk ? s->capblk * 2 : 16;
		struct ptd__soft_regs_blk *p = realloc(s->blk, c * sizeof(*p));
		if (!p)
			return -ptde_nomem;
		s->blk = p;
		s->capblk = c;
	}
	zlen = compressBound((uLong)s->nraw);
	z = malloc(zlen);
	if (!z)
		return -ptde_nomem;
	if (compress2(z, &zlen, s->raw, (uLong)s->nraw, Z_DEFAULT_COMPRESSION) != Z_OK) {
		free(z);
		return ptd__err(-ptde_internal, "cannot compress register snapshots");
	}
	/* Exact size: closed blocks never change. */
	uint8_t *fit = realloc(z, zlen ? zlen : 1);
	if (fit)
		z = fit;
	s->blk[s->nblk++] = (struct ptd__soft_regs_blk){s->raw_first, s->raw_last, z,
							(uint32_t)zlen, (uint32_t)s->nraw};
	s->zbytes += zlen;
	s->nraw = 0;
	memset(s->last, 0, sizeof(s->last));
	s->last_num = 0;
	return 0;
}

int ptd__soft_regs_push(struct ptd__soft_regs *s, uint64_t number,
			const struct user_regs_struct *regs)
{
	uint64_t v[PTD_SOFT_NREGS];
	uint64_t mask = 0;
	uint8_t *p;
	int rc;

	if (!s || !regs)
		return -ptde_invalid;
	if (number < s->last_num || (s->nraw && number < s->raw_last) ||
	    s->nraw + SNAP_MAX > SOFT_REGS_BLOCK) {
		/* A full block, or numbering that went back (a new history):
		 * start a block, whose lookups stay within it. */
		rc = seal(s);
		if (rc < 0)
			return rc;
	}
	if (s->capraw < s->nraw + SNAP_MAX) {
		size_t c = s->capraw ? s->capraw * 2 : 512;
		while (c < s->nraw + SNAP_MAX)
			c *= 2;
		uint8_t *np = realloc(s->raw, c);
		if (!np)
			return -ptde_nomem;
		s->raw = np;
		s->capraw = c;
	}
	memcpy(v, regs, sizeof(v));
	for (unsigned i = 0; i < PTD_SOFT_NREGS; i++)
		if (v[i] != s->last[i])
			mask |= 1ull << i;
	if (!s->nraw)
		s->raw_first = number;
	p = s->raw + s->nraw;
	p = put_uv(p, number - s->last_num);
	p = put_uv(p, mask);
	for (unsigned i = 0; i < PTD_SOFT_NREGS; i++)
		if (mask & (1ull << i))
			p = put_uv(p, zz((int64_t)(v[i] - s->last[i])));
	s->nraw = (size_t)(p - s->raw);
	s->raw_last = number;
	s->last_num = number;
	memcpy(s->last, v, sizeof(v));
	return 0;
}

/*
 * Walks the stream [p, end) for the last snapshot with number <= @number.
 * Returns 1 and fills @out/@at, 0 when the first one is after @number,
 * or -ptde_internal for a stream that does not parse.
 */
static int walk(const uint8_t *p, const uint8_t *end, uint64_t number, uint64_t *out, uint64_t *at)
{
	uint64_t v[PTD_SOFT_NREGS], num = 0, d, mask, x;
	int found = 0;

	memset(v, 0, sizeof(v));
	while (p < end) {
		if (!(p = get_uv(p, end, &d)) || !(p = get_uv(p, end, &mask)))
			return ptd__err(-ptde_internal, "register snapshots do not parse");
		if (num + d > number)
			break;
		num += d;
		for (unsigned i = 0; i < PTD_SOFT_NREGS; i++) {
			if (!(mask & (1ull << i)))
				continue;
			if (!(p = get_uv(p, end, &x)))
				return ptd__err(-ptde_internal, "register snapshots do not parse");
			v[i] += (uint64_t)unzz(x);
		}
		found = 1;
	}
	if (found) {
		memcpy(out, v, sizeof(v));
		*at = num;
	}
	return found;
}

/* Inflates closed block @k into the lookup cache. */
static const uint8_t *inflated(struct ptd__soft_regs *s, size_t k)
{
	const struct ptd__soft_regs_blk *b = &s->blk[k];
	uLongf n = b->rawlen;

	if (s->cached == k + 1)
		return s->cache;
	if (s->cache_cap < b->rawlen) {
		uint8_t *p = realloc(s->cache, b->rawlen);
		if (!p)
			return NULL;
		s->cache = p;
		s->cache_cap = b->rawlen;
	}
	s->cached = 0;
	if (uncompress(s->cache, &n, b->z, b->zlen) != Z_OK || n != b->rawlen) {
		ptd__err(-ptde_internal, "cannot inflate register snapshots");
		return NULL;
	}
	s->cached = k + 1;
	return s->cache;
}

int ptd__soft_regs_near(const struct ptd__soft_regs *cs, uint64_t number,
			struct user_regs_struct *out, uint64_t *at)
{
	/* The lookup cache changes under a const pointer, as the history's
	 * caches do: not for concurrent readers. */
	struct ptd__soft_regs *s = (struct ptd__soft_regs *)cs;
	uint64_t v[PTD_SOFT_NREGS], a = 0;
	int rc;

	if (!s || !out || !at)
		return -ptde_invalid;
	if (s->nraw && s->raw_first <= number) {
		rc = walk(s->raw, s->raw + s->nraw, number, v, &a);
		if (rc < 0)
			return rc;
		if (rc == 1)
			goto found;
	}
	/* The last closed block starting at or before @number. */
	size_t lo = 0, hi = s->nblk;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (s->blk[mid].first <= number)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return -ptde_notfound;
	const uint8_t *raw = inflated(s, lo - 1);
	if (!raw)
		return -ptde_nomem;
	rc = walk(raw, raw + s->blk[lo - 1].rawlen, number, v, &a);
	if (rc < 0)
		return rc;
	if (rc == 0)
		return -ptde_notfound;
found:
	memcpy(out, v, sizeof(v));
	*at = a;
	return 0;
}

void ptd__soft_regs_drop_before(struct ptd__soft_regs *s, uint64_t number)
{
	size_t k = 0;

	if (!s)
		return;
	while (k < s->nblk && s->blk[k].last < number) {
		s->zbytes -= s->blk[k].zlen;
		free(s->blk[k].z);
		k++;
	}
	if (!k)
		return;
	memmove(s->blk, s->blk + k, (s->nblk - k) * sizeof(*s->blk));
	s->nblk -= k;
	s->cached = 0;
}

size_t ptd__soft_regs_bytes(const struct ptd__soft_regs *s)
{
	if (!s)
		return 0;
	return s->zbytes + s->capblk * sizeof(*s->blk) + s->capraw + s->cache_cap;
}
