/*
 * Per-thread branch history storage and the instruction cursor.
 *
 * Items are varint-packed into chunks of CHUNK_ITEMS items; each chunk
 * remembers the item index and instruction number of its first item and the
 * end ip of the block before it (the base of the first ip delta), so random
 * access by number is a binary search over chunks, one chunk decode (cached)
 * and a binary search inside it.  The newest item stays unencoded ("pending")
 * so that a block continuing it without a control transfer can be merged in
 * place; the step recorder appends one instruction at a time and relies on
 * that.  Instructions inside a block are found by decoding lengths through
 * the reader callback; the offsets are cached per block start address.
 * The caches are mutated through const pointers: a history is not safe for
 * concurrent readers.
 */
#include <stdlib.h>
#include <string.h>

#include "history/history.h"
#include "history/history_int.h"
#include "util/error.h"

#define CHUNK_ITEMS 256
#define DCACHE_SLOTS 4
#define ICACHE_SLOTS 16384 /* power of two */
#define ICACHE_MAX_ENTRIES 12288
#define MAX_INSN_LEN 15

enum {
	TAG_BLOCK = 0,
	TAG_GAP = 1,
	TAG_EVENT = 2,
	TAG_BLOCK_MODE = 3, /* a block in 32-bit or 16-bit code: a mode byte follows */
};

struct chunk {
	uint64_t first_item;
	uint64_t first_number;
	uint64_t prev_end; /* delta base for the first item */
	uint32_t detail_base; /* added to encoded detail indices (splice) */
	uint8_t *bytes;
	uint32_t nbytes, cap;
	uint32_t nitems;
	/* Part this chunk belongs to (index + 1; 0: none).  A virtual chunk
	 * stands for a whole part not decoded now: no bytes, nitems may
	 * exceed CHUNK_ITEMS (see ptd_history_append_part). */
	uint32_t part;
	uint8_t virt;
};

struct hpart {
	uint64_t first_item, first_number;
	uint64_t nitems, numbers;
	uint32_t detail_base;
	uint64_t lru;
	int real;
};

struct dcache_slot {
	uint64_t chunk; /* chunk index + 1; 0 = empty */
	uint32_t nitems; /* items decoded (the open chunk grows) */
	uint64_t stamp;
	struct ptd_item *items;
};

/* Instruction offsets of the straight-line run starting at ip:
 * offs[i] is the offset of instruction i, offs[n] the end of the last. */
struct icache_ent {
	uint64_t ip;
	uint32_t n;
	uint32_t img; /* the image its code came from (image_of) */
	uint32_t *offs;
};

/* Items numbered below @below ran in an earlier program (before an
 * exec): ptd_history_mark_image. */
struct old_image {
	uint64_t below;
	ptd_read_fn read;
	void *ctx;
	uint8_t tag;
};

struct ptd_history {
	ptd_read_fn read;
	void *ctx;
	/* The earlier programs' code, oldest first (@below ascending). */
	struct old_image *olds;
	uint32_t nolds;

	struct chunk *chunks;
	uint64_t nchunks, chunks_cap;
	uint64_t nencoded;     /* items in chunks */
	uint64_t enc_end_ip;   /* end ip of the last encoded block (delta base) */
	uint64_t enc_next_num; /* number after the last encoded item */

	int has_pend;
	struct ptd_item pend;

	uint64_t ninsn;
	uint64_t tail;

	char **details;
	uint32_t ndetails, details_cap;
	size_t details_bytes;

	struct dcache_slot dcache[DCACHE_SLOTS];
	uint64_t dstamp;

	/* One-entry memos for cursor walks: the last item fetched by index
	 * and the last offsets found (hot when stepping through a block). */
	uint64_t memo_index; /* item index + 1; 0 = none */
	uint64_t memo_chunk; /* chunk of the last lookup by index (a guess) */
	struct ptd_item memo_item;
	const struct icache_ent *memo_ent;

	struct icache_ent *icache; /* ICACHE_SLOTS entries, lazily allocated */
	uint32_t icache_n;
	size_t icache_bytes;

	/* ptd_history_drop_oldest: instructions dropped, and the detail
	 * index of the gap at number 1 standing for them (0: none). */
	uint64_t dropped;
	uint32_t drop_detail;

	/* Parts decoded on demand by @fill (ptd_history_append_part). */
	ptd_history_fill_fn fill;
	void *fill_ctx;
	struct hpart *parts;
	uint32_t nparts, parts_cap, nreal, max_real;
	uint64_t part_clock;

	/* The call log (history_int.h): fed by every append while
	 * log_active; once stopped (items came that it did not see) it
	 * stands for items [0, log_covered). */
	struct ptd_funcs *own_funcs;
	const struct ptd_funcs *funcs;
	int has_funcs;
	struct ptd_calllog *log;
	int log_active;
	uint64_t log_covered;

	/* Bytes of the last chunk closed full: a new chunk starts with about
	 * that much room (the next one is alike), so it is seldom grown by
	 * realloc, nor left with room it never uses (see open_chunk). */
	uint32_t chunk_guess;
};

/* ---- varints ---- */

static inline uint8_t *put_uv(uint8_t *p, uint64_t v)
{
	while (v >= 0x80) {
		*p++ = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	*p++ = (uint8_t)v;
	return p;
}

/*
 * put_uv for a value that is as often one byte long as two or three (a
 * block's distance from the one before): below 2^21 it is stored as one
 * 4-byte word, its length from two compares, without put_uv's loop whose
 * exit the processor cannot foresee.  The same bytes as put_uv; writes up
 * to 4 bytes (the caller's reserve covers them).
 */
static inline uint8_t *put_uv_short(uint8_t *p, uint64_t v)
{
	uint32_t a, b, w;

	if (__builtin_expect(v >= (1u << 21), 0))
		return put_uv(p, v);
	a = v >= 0x80;
	b = v >= 0x4000;
	w = ((uint32_t)v & 0x7f) | a << 7 | ((uint32_t)(v >> 7) & 0x7f) << 8 | b << 15 |
	    (uint32_t)(v >> 14) << 16;
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	memcpy(p, &w, 4);
#else
	p[0] = (uint8_t)w;
	p[1] = (uint8_t)(w >> 8);
	p[2] = (uint8_t)(w >> 16);
	p[3] = 0;
#endif
	return p + 1 + a + b;
}

static inline uint64_t zz(int64_t v)
{
	return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
}

static inline int64_t unzz(uint64_t v)
{
	return (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
}

static inline const uint8_t *get_uv(const uint8_t *p, uint64_t *out)
{
	uint64_t v = 0;
	int shift = 0;

	while (*p & 0x80) {
		v |= (uint64_t)(*p++ & 0x7f) << shift;
		shift += 7;
	}
	v |= (uint64_t)*p++ << shift;
	*out = v;
	return p;
}

static uint64_t item_span(const struct ptd_item *it)
{
	if (it->kind == PTD_ITEM_BLOCK)
		return it->block.ninsn;
	return it->kind == PTD_ITEM_GAP ? 1 : 0;
}

/* ---- the call log ---- */

static void log_off(struct ptd_history *h)
{
	ptd__calllog_free(h->log);
	h->log = NULL;
	h->log_active = 0;
}

static void log_start(struct ptd_history *h)
{
	log_off(h);
	if (!h->has_funcs)
		return;
	h->log = ptd__calllog_alloc(h->funcs);
	h->log_active = h->log != NULL;
}

/* Items come that the log does not see: it keeps standing for the items
 * so far, less a newest block still pending (a merge may grow it; an
 * encoded one, e.g. the end of a lazy part, never grows). */
static void log_stop(struct ptd_history *h)
{
	uint64_t n = ptd_history_nitems(h);

	if (!h->log || !h->log_active)
		return;
	if (!ptd__calllog_ok(h->log)) {
		log_off(h);
		return;
	}
	if (h->has_pend && h->pend.kind == PTD_ITEM_BLOCK && ptd__calllog_ends_in_block(h->log)) {
		ptd__calllog_drop_last_block(h->log);
		n--;
	}
	h->log_active = 0;
	h->log_covered = n;
}

static inline void log_block(struct ptd_history *h, const struct ptd_block *b)
{
	if (h->log_active && ptd__calllog_block(h->log, b) < 0)
		log_off(h);
}

void ptd_history_set_func(struct ptd_history *h, ptd_func_of_fn func_of, void *ctx)
{
	if (!h || ptd_history_nitems(h) || h->own_funcs)
		return;
	h->own_funcs = ptd__funcs_alloc(func_of, ctx);
	if (!h->own_funcs)
		return;
	/* (the log decides whether a call is to its next instruction) */
	ptd__funcs_set_reader(h->own_funcs, h->read, h->ctx);
	h->funcs = h->own_funcs;
	h->has_funcs = 1;
	log_start(h);
}

void ptd__history_use_funcs(struct ptd_history *h, const struct ptd_funcs *f)
{
	if (!h || ptd_history_nitems(h) || h->has_funcs || !f)
		return;
	h->funcs = f;
	h->has_funcs = 1;
	log_start(h);
}

void ptd_history_share_func(struct ptd_history *dst, const struct ptd_history *src)
{
	if (src && src->has_funcs)
		ptd__history_use_funcs(dst, src->funcs);
}

int ptd_history_relog(struct ptd_history *h, int changed)
{
	struct ptd_calllog *l;
	uint64_t i, n;
	int rc = 0;

	if (!h || !h->has_funcs || h->nparts)
		return 0;
	if (changed && h->own_funcs)
		ptd__funcs_renew(h->own_funcs);
	if (!changed && h->log && h->log_active && ptd__calllog_ok(h->log))
		return 0;
	l = ptd__calllog_alloc(h->funcs);
	if (!l)
		goto nomem;
	n = ptd_history_nitems(h);
	for (i = 0; i < n && rc == 0;) {
		const struct ptd_item *items;
		uint32_t k, m;

		rc = ptd__history_items_at(h, i, &items, &m);
		if (rc < 0)
			break;
		if (rc == 0 || m == 0) {
			rc = ptd__err(-ptde_internal, "history: item %llu missing",
				      (unsigned long long)i);
			break;
		}
		rc = 0;
		for (k = 0; k < m && rc == 0; k++) {
			const struct ptd_item *x = &items[k];

			/* the program the item ran in (an event keeps the
			 * one before it) */
			if (h->nolds && x->kind != PTD_ITEM_EVENT)
				ptd__calllog_set_tag(l, ptd__history_func_tag(h, x->number));
			if (x->kind == PTD_ITEM_BLOCK)
				rc = ptd__calllog_block(l, &x->block);
			else if (x->kind == PTD_ITEM_GAP)
				rc = ptd__calllog_gap(l);
			else
				rc = ptd__calllog_event(l, x->reason, x->block.ip);
		}
		i += m;
	}
	ptd__calllog_set_tag(l, 0); /* appends are the newest program's */
	if (rc == 0 && !ptd__calllog_ok(l))
		rc = -ptde_nomem;
	if (rc < 0) {
		ptd__calllog_free(l);
		log_off(h);
		return rc == -ptde_nomem ? ptd__err(rc, "out of memory for the call log") : rc;
	}
	log_off(h);
	h->log = l;
	h->log_active = 1;
	return 1;
nomem:
	log_off(h);
	return ptd__err(-ptde_nomem, "out of memory for the call log");
}

const struct ptd_funcs *ptd__history_funcs(const struct ptd_history *h)
{
	return h && h->has_funcs ? h->funcs : NULL;
}

const struct ptd_calllog *ptd__history_calllog(const struct ptd_history *h, uint64_t *covered)
{
	if (!h || !h->log || !ptd__calllog_ok(h->log))
		return NULL;
	*covered = h->log_active ? ptd_history_nitems(h) : h->log_covered;
	return h->log;
}

struct ptd_calllog *ptd__history_calllog_w(struct ptd_history *h)
{
	return h && h->log_active ? h->log : NULL;
}

/* The log takes the blocks in one call, with the verdicts; the items are
 * appended with the log detached (it saw them already). */
int ptd__history_append_blocks_edge(struct ptd_history *h, const struct ptd_block *b, size_t n,
				    const uint8_t *edge)
{
	int rc;

	if (!h || !h->log_active || !edge || !n)
		return ptd_history_append_blocks(h, b, n);
	if (ptd__calllog_blocks(h->log, b, n, edge) < 0) {
		log_off(h);
		return ptd_history_append_blocks(h, b, n);
	}
	h->log_active = 0;
	rc = ptd_history_append_blocks(h, b, n);
	h->log_active = 1;
	if (rc < 0)
		log_off(h);
	return rc;
}

void ptd__history_flag_last_logged(struct ptd_history *h, uint8_t flags)
{
	if (h && h->log_active)
		ptd__calllog_flag_last(h->log, flags & PTD_BLK_INTERRUPTED);
}

/* ---- lifecycle ---- */

struct ptd_history *ptd_history_alloc(ptd_read_fn read, void *ctx)
{
	struct ptd_history *h = calloc(1, sizeof(*h));

	if (!h)
		return NULL;
	h->read = read;
	h->ctx = ctx;
	h->enc_next_num = 1;
	return h;
}

static void icache_clear(struct ptd_history *h)
{
	uint32_t i;

	h->memo_ent = NULL;
	if (!h->icache)
		return;
	for (i = 0; i < ICACHE_SLOTS; i++) {
		free(h->icache[i].offs);
		h->icache[i].offs = NULL;
		h->icache[i].n = 0;
		h->icache[i].ip = 0;
	}
	h->icache_n = 0;
	h->icache_bytes = 0;
}

void ptd_history_clear(struct ptd_history *h)
{
	uint64_t i;

	if (!h)
		return;
	for (i = 0; i < h->nchunks; i++)
		free(h->chunks[i].bytes);
	free(h->chunks);
	h->chunks = NULL;
	h->nchunks = h->chunks_cap = 0;
	free(h->parts);
	h->parts = NULL;
	h->nparts = h->parts_cap = h->nreal = 0;
	h->memo_chunk = 0;
	h->nencoded = 0;
	h->enc_end_ip = 0;
	h->enc_next_num = 1;
	h->has_pend = 0;
	h->ninsn = 0;
	h->tail = 0;
	h->memo_index = 0;
	for (i = 0; i < h->ndetails; i++)
		free(h->details[i]);
	free(h->details);
	h->details = NULL;
	h->ndetails = h->details_cap = 0;
	h->details_bytes = 0;
	h->dropped = 0;
	h->drop_detail = 0;
	free(h->olds);
	h->olds = NULL;
	h->nolds = 0;
	log_start(h);
	for (i = 0; i < DCACHE_SLOTS; i++) {
		free(h->dcache[i].items);
		memset(&h->dcache[i], 0, sizeof(h->dcache[i]));
	}
	icache_clear(h);
}

void ptd_history_free(struct ptd_history *h)
{
	if (!h)
		return;
	h->has_funcs = 0; /* (clear starts no new log) */
	ptd_history_clear(h);
	log_off(h);
	ptd__funcs_free(h->own_funcs);
	free(h->icache);
	free(h);
}

/* ---- encoding ---- */

static int chunk_reserve(struct chunk *c, uint32_t need)
{
	uint32_t cap;
	uint8_t *nb;

	if (c->nbytes + need <= c->cap)
		return 0;
	cap = c->cap ? c->cap + c->cap / 2 : 256;
	while (cap < c->nbytes + need)
		cap += cap / 2;
	nb = realloc(c->bytes, cap);
	if (!nb)
		return -ptde_nomem;
	c->bytes = nb;
	c->cap = cap;
	return 0;
}

/* Shrinks a full chunk to its exact size: closed chunks never grow again. */
static void chunk_close(struct chunk *c)
{
	uint8_t *nb;

	if (c->cap == c->nbytes || !c->nbytes)
		return;
	nb = realloc(c->bytes, c->nbytes);
	if (nb) {
		c->bytes = nb;
		c->cap = c->nbytes;
	}
}

/* Room for @more chunks / detail strings; 0 or -ptde_nomem. */
static int reserve_chunks(struct ptd_history *h, uint64_t more)
{
	uint64_t cap = h->chunks_cap ? h->chunks_cap : 16;
	struct chunk *nc;

	if (h->nchunks + more <= h->chunks_cap)
		return 0;
	while (cap < h->nchunks + more)
		cap *= 2;
	nc = realloc(h->chunks, cap * sizeof(*nc));
	if (!nc)
		return -ptde_nomem;
	h->chunks = nc;
	h->chunks_cap = cap;
	return 0;
}

static int reserve_details(struct ptd_history *h, uint32_t more)
{
	uint32_t cap = h->ndetails + more;
	char **nd;

	if (cap <= h->details_cap)
		return 0;
	nd = realloc(h->details, cap * sizeof(*nd));
	if (!nd)
		return -ptde_nomem;
	h->details = nd;
	h->details_cap = cap;
	return 0;
}

static struct chunk *open_chunk(struct ptd_history *h)
{
	struct chunk *c;

	/* (never a lazy part's chunk, virtual or decoded: a part's chunks
	 * are replaced whole when it is evicted, items appended after the
	 * part would go with them) */
	if (h->nchunks && h->chunks[h->nchunks - 1].nitems < CHUNK_ITEMS &&
	    !h->chunks[h->nchunks - 1].virt && !h->chunks[h->nchunks - 1].part)
		return &h->chunks[h->nchunks - 1];
	if (h->nchunks) {
		c = &h->chunks[h->nchunks - 1];
		if (!c->virt && c->nitems == CHUNK_ITEMS)
			h->chunk_guess = c->nbytes;
		chunk_close(c);
	}
	if (reserve_chunks(h, 1))
		return NULL;
	c = &h->chunks[h->nchunks++];
	memset(c, 0, sizeof(*c));
	if (h->chunk_guess) {
		/* (room for the guess and some more; chunk_reserve grows it
		 * when that is not enough, chunk_close gives back the rest) */
		uint32_t cap = h->chunk_guess + h->chunk_guess / 8 + 64;

		c->bytes = malloc(cap);
		c->cap = c->bytes ? cap : 0;
	}
	c->first_item = h->nencoded;
	c->first_number = h->enc_next_num;
	c->prev_end = h->enc_end_ip;
	return c;
}

static int encode_item(struct ptd_history *h, const struct ptd_item *it)
{
	struct chunk *c = open_chunk(h);
	uint8_t *p, *start;
	int rc;

	if (!c)
		return -ptde_nomem;
	rc = chunk_reserve(c, 48);
	if (rc)
		return rc;
	start = p = c->bytes + c->nbytes;
	switch (it->kind) {
	case PTD_ITEM_BLOCK:
		*p++ = (uint8_t)((ptd_block_mode(&it->block) ? TAG_BLOCK_MODE : TAG_BLOCK) |
				 (it->block.iclass & 7) << 2 | (it->block.flags & 7) << 5);
		if (ptd_block_mode(&it->block))
			*p++ = (uint8_t)ptd_block_mode(&it->block);
		p = put_uv(p, zz((int64_t)(it->block.ip - h->enc_end_ip)));
		p = put_uv(p, it->block.ninsn - 1);
		p = put_uv(p, it->block.end_ip - it->block.ip);
		h->enc_end_ip = it->block.end_ip;
		break;
	case PTD_ITEM_GAP:
		*p++ = TAG_GAP;
		*p++ = it->reason;
		p = put_uv(p, it->arg);
		p = put_uv(p, it->detail ? it->detail - c->detail_base : 0);
		break;
	default:
		*p++ = TAG_EVENT;
		*p++ = it->reason;
		p = put_uv(p, zz((int64_t)(it->block.ip - h->enc_end_ip)));
		p = put_uv(p, it->arg);
		break;
	}
	c->nbytes += (uint32_t)(p - start);
	c->nitems++;
	h->nencoded++;
	h->enc_next_num += item_span(it);
	return 0;
}

/* Encodes the pending block into the open chunk when it has room (the
 * common case, without the generic path's checks); returns 0 when it
 * could not. */
static inline __attribute__((always_inline)) int flush_block_fast(struct ptd_history *h)
{
	struct chunk *c;
	uint8_t *p, *start;
	const struct ptd_block *b = &h->pend.block;

	if (h->pend.kind != PTD_ITEM_BLOCK || !h->nchunks || ptd_block_mode(b))
		return 0;
	c = &h->chunks[h->nchunks - 1];
	if (c->virt || c->part || c->nitems >= CHUNK_ITEMS || c->nbytes + 48 > c->cap)
		return 0;
	start = p = c->bytes + c->nbytes;
	*p++ = (uint8_t)(TAG_BLOCK | (b->iclass & 7) << 2 | (b->flags & 7) << 5);
	p = put_uv(p, zz((int64_t)(b->ip - h->enc_end_ip)));
	p = put_uv(p, b->ninsn - 1);
	p = put_uv(p, b->end_ip - b->ip);
	h->enc_end_ip = b->end_ip;
	c->nbytes += (uint32_t)(p - start);
	c->nitems++;
	h->nencoded++;
	h->enc_next_num += b->ninsn;
	h->has_pend = 0;
	return 1;
}

static int flush_pend(struct ptd_history *h)
{
	if (!h->has_pend || flush_block_fast(h))
		return 0;
	if (encode_item(h, &h->pend))
		return -ptde_nomem;
	h->has_pend = 0;
	return 0;
}

/* Decodes all items of chunk @ci into @out (CHUNK_ITEMS entries). */
static void decode_chunk(const struct ptd_history *h, uint64_t ci, struct ptd_item *out)
{
	const struct chunk *c = &h->chunks[ci];
	const uint8_t *p = c->bytes;
	uint64_t prev_end = c->prev_end, num = c->first_number, v;
	uint32_t i;

	for (i = 0; i < c->nitems; i++) {
		struct ptd_item *it = &out[i];
		uint8_t tag = *p++;

		memset(it, 0, sizeof(*it));
		it->number = num;
		switch (tag & 3) {
		case TAG_BLOCK_MODE:
		case TAG_BLOCK:
			it->kind = PTD_ITEM_BLOCK;
			it->block.iclass = (tag >> 2) & 7;
			it->block.flags = (tag >> 5) & 7;
			if ((tag & 3) == TAG_BLOCK_MODE)
				it->block.flags |= (uint8_t)((*p++ & 3) << PTD_BLK_MODE_SHIFT);
			p = get_uv(p, &v);
			it->block.ip = prev_end + (uint64_t)unzz(v);
			p = get_uv(p, &v);
			it->block.ninsn = (uint32_t)v + 1;
			p = get_uv(p, &v);
			it->block.end_ip = it->block.ip + v;
			prev_end = it->block.end_ip;
			num += it->block.ninsn;
			break;
		case TAG_GAP:
			it->kind = PTD_ITEM_GAP;
			it->reason = *p++;
			p = get_uv(p, &it->arg);
			p = get_uv(p, &v);
			it->detail = v ? (uint32_t)v + c->detail_base : 0;
			num++;
			break;
		default:
			it->kind = PTD_ITEM_EVENT;
			it->reason = *p++;
			p = get_uv(p, &v);
			it->block.ip = prev_end + (uint64_t)unzz(v);
			p = get_uv(p, &it->arg);
			break;
		}
	}
}

/* Returns the decoded items of chunk @ci from the cache (decoding on a miss). */
static const struct ptd_item *chunk_items(const struct ptd_history *ch, uint64_t ci)
{
	struct ptd_history *h = (struct ptd_history *)ch;
	struct dcache_slot *victim = NULL;
	int i;

	for (i = 0; i < DCACHE_SLOTS; i++) {
		struct dcache_slot *s = &h->dcache[i];

		if (s->chunk == ci + 1 && s->items) {
			if (s->nitems != h->chunks[ci].nitems) {
				decode_chunk(h, ci, s->items);
				s->nitems = h->chunks[ci].nitems;
			}
			s->stamp = ++h->dstamp;
			return s->items;
		}
		if (!victim || s->stamp < victim->stamp)
			victim = s;
	}
	if (!victim->items) {
		victim->items = malloc(CHUNK_ITEMS * sizeof(struct ptd_item));
		if (!victim->items)
			return NULL;
	}
	decode_chunk(h, ci, victim->items);
	victim->chunk = ci + 1;
	victim->nitems = h->chunks[ci].nitems;
	victim->stamp = ++h->dstamp;
	return victim->items;
}

/* ---- instruction lengths ---- */

static uint64_t next_number(const struct ptd_history *h);

/* The image item number @number ran in: 0 the history's reader's, k > 0
 * olds[k - 1]'s. */
static uint32_t image_of(const struct ptd_history *h, uint64_t number)
{
	uint32_t k;

	for (k = 0; k < h->nolds; k++)
		if (number < h->olds[k].below)
			return k + 1;
	return 0;
}

int ptd_history_mark_image(struct ptd_history *h, ptd_read_fn read, void *ctx, uint8_t tag)
{
	struct old_image *n;
	uint64_t below;

	if (!h || !read || !tag)
		return ptd__err(-ptde_invalid, "no history, reader or tag");
	below = next_number(h);
	if (below <= 1 || (h->nolds && h->olds[h->nolds - 1].below >= below))
		return 0; /* nothing ran since the last mark */
	n = realloc(h->olds, (h->nolds + 1) * sizeof(*n));
	if (!n)
		return ptd__err(-ptde_nomem, "out of memory for the history");
	h->olds = n;
	n[h->nolds].below = below;
	n[h->nolds].read = read;
	n[h->nolds].ctx = ctx;
	n[h->nolds].tag = tag;
	h->nolds++;
	/* (the code cache keys its entries by image: nothing to forget) */
	return 0;
}

uint64_t ptd__history_func_tag(const struct ptd_history *h, uint64_t number)
{
	uint32_t k = h && h->nolds ? image_of(h, number) : 0;

	return k ? (uint64_t)h->olds[k - 1].tag << PTD_FUNC_TAG_SHIFT : 0;
}

void *ptd_history_image_ctx(const struct ptd_history *h, uint64_t number)
{
	uint32_t k = h ? image_of(h, number) : 0;

	return k ? h->olds[k - 1].ctx : NULL;
}

/* Every item's number changed by @add (a drop: negative): the marks
 * follow their items; one whose items all went (but for the gap of a
 * drop at 1) is forgotten. */
static void olds_shift(struct ptd_history *h, int64_t add)
{
	uint32_t i, k = 0;

	for (i = 0; i < h->nolds; i++) {
		int64_t b = (int64_t)h->olds[i].below + add;

		if (b <= 2)
			continue; /* nothing of it left but the gap at 1 */
		h->olds[k] = h->olds[i];
		h->olds[k++].below = (uint64_t)b;
	}
	h->nolds = k;
}

static int read_full(const struct ptd_history *h, uint32_t img, uint64_t addr, uint8_t *buf,
		     size_t n)
{
	ptd_read_fn read = img ? h->olds[img - 1].read : h->read;
	void *ctx = img ? h->olds[img - 1].ctx : h->ctx;
	size_t got = 0;

	if (!read)
		return -ptde_nomap;
	while (got < n) {
		int r = read(ctx, addr + got, buf + got, n - got);

		if (r <= 0)
			break;
		got += (size_t)r;
	}
	return (int)got;
}

int ptd__history_read(const struct ptd_history *h, uint64_t addr, uint8_t *buf, size_t n)
{
	int r = h ? read_full(h, 0, addr, buf, n) : 0;

	return r > 0 ? r : 0;
}

static int insn_len_img(const struct ptd_history *h, uint32_t img, uint64_t ip, unsigned mode,
			struct ptd_insn_info *out);

int ptd__history_insn_len(const struct ptd_history *h, uint64_t ip, struct ptd_insn_info *out)
{
	return ptd__history_insn_len_mode(h, ip, PTD_MODE_64, out);
}

int ptd__history_insn_len_mode(const struct ptd_history *h, uint64_t ip, unsigned mode,
			       struct ptd_insn_info *out)
{
	return insn_len_img(h, 0, ip, mode, out);
}

int ptd__history_insn_len_at(const struct ptd_history *h, uint64_t number, uint64_t ip,
			     unsigned mode, struct ptd_insn_info *out)
{
	return insn_len_img(h, h ? image_of(h, number) : 0, ip, mode, out);
}

static int insn_len_img(const struct ptd_history *h, uint32_t img, uint64_t ip, unsigned mode,
			struct ptd_insn_info *out)
{
	uint8_t buf[MAX_INSN_LEN];
	struct ptd_insn_info tmp;
	int n = read_full(h, img, ip, buf, sizeof(buf));

	if (!out)
		out = &tmp;
	if (n <= 0)
		return ptd__err(-ptde_nomap, "cannot read code at 0x%lx", (unsigned long)ip);
	if (ptd_disasm_decode_mode(buf, (size_t)n, ip, mode, out) < 0)
		return ptd__err(-ptde_bad_insn, "cannot decode the instruction at 0x%lx",
				(unsigned long)ip);
	return out->len;
}

static uint32_t icache_hash(uint64_t ip)
{
	ip ^= ip >> 29;
	ip *= 0x9e3779b97f4a7c15ull;
	return (uint32_t)(ip >> 40) & (ICACHE_SLOTS - 1);
}

/*
 * Returns the offsets of the first @ninsn instructions at @b->ip (plus the
 * end of the last), decoding through the reader when not cached.  The
 * result stays valid until the next call.
 */
static const uint32_t *block_offsets(const struct ptd_history *ch, const struct ptd_block *b,
				     uint32_t img)
{
	struct ptd_history *h = (struct ptd_history *)ch;
	struct icache_ent *e;
	uint32_t slot, i, *offs;
	uint64_t span = b->end_ip - b->ip;
	size_t want;
	uint8_t sbuf[512], *buf = sbuf;
	int got;
	uint64_t off = 0;

	if (h->memo_ent && h->memo_ent->ip == b->ip && h->memo_ent->img == img &&
	    h->memo_ent->n >= b->ninsn && h->memo_ent->offs[b->ninsn - 1] == span)
		return h->memo_ent->offs;
	if (!h->icache) {
		h->icache = calloc(ICACHE_SLOTS, sizeof(*h->icache));
		if (!h->icache)
			return NULL;
	}
	slot = icache_hash(b->ip);
	for (i = 0; i < ICACHE_SLOTS; i++) {
		e = &h->icache[(slot + i) & (ICACHE_SLOTS - 1)];
		if (!e->offs || (e->ip == b->ip && e->img == img))
			break;
	}
	if (e->offs && e->ip == b->ip && e->img == img && e->n >= b->ninsn &&
	    e->offs[b->ninsn - 1] == span) {
		h->memo_ent = e;
		return e->offs;
	}
	/* Otherwise the entry (if any) was decoded from other code at this
	 * address (code rewritten at run time): decode again below. */
	if (!e->offs && h->icache_n >= ICACHE_MAX_ENTRIES) {
		icache_clear(h);
		e = &h->icache[slot];
	}

	if (span > 0xffffffffull - MAX_INSN_LEN) {
		ptd__err(-ptde_bad_insn, "block at 0x%lx is too long", (unsigned long)b->ip);
		return NULL;
	}
	want = (size_t)span + MAX_INSN_LEN;
	if (want > sizeof(sbuf)) {
		buf = malloc(want);
		if (!buf)
			return NULL;
	}
	offs = malloc(((size_t)b->ninsn + 1) * sizeof(*offs));
	if (!offs)
		goto fail;
	got = read_full(h, img, b->ip, buf, want);
	if (got <= 0) {
		ptd__err(-ptde_nomap, "cannot read code at 0x%lx", (unsigned long)b->ip);
		goto fail;
	}
	for (i = 0; i < b->ninsn; i++) {
		struct ptd_insn_info in;

		offs[i] = (uint32_t)off;
		if (off >= (uint64_t)got ||
		    ptd_disasm_decode_mode(buf + off, (size_t)got - off, b->ip + off,
					   ptd_block_mode(b), &in) < 0) {
			ptd__err(-ptde_bad_insn, "cannot decode the instruction at 0x%lx",
				 (unsigned long)(b->ip + off));
			goto fail;
		}
		off += in.len;
	}
	offs[b->ninsn] = (uint32_t)off;
	if (offs[b->ninsn - 1] != span) {
		ptd__err(-ptde_bad_insn, "block 0x%lx..0x%lx does not match the code in memory",
			 (unsigned long)b->ip, (unsigned long)b->end_ip);
		goto fail;
	}
	if (buf != sbuf)
		free(buf);
	if (e->offs) {
		h->icache_bytes -= ((size_t)e->n + 1) * sizeof(uint32_t);
		free(e->offs);
	} else {
		h->icache_n++;
	}
	e->ip = b->ip;
	e->n = b->ninsn;
	e->img = img;
	e->offs = offs;
	h->memo_ent = e;
	h->icache_bytes += ((size_t)b->ninsn + 1) * sizeof(uint32_t);
	return offs;
fail:
	if (buf != sbuf)
		free(buf);
	free(offs);
	return NULL;
}

/* ---- appending ---- */

static uint64_t next_number(const struct ptd_history *h)
{
	if (h->has_pend)
		return h->pend.number + item_span(&h->pend);
	return h->enc_next_num;
}

static int set_pend(struct ptd_history *h, const struct ptd_item *it)
{
	int rc = flush_pend(h);

	if (rc)
		return rc;
	h->pend = *it;
	h->pend.number = h->enc_next_num;
	h->has_pend = 1;
	return 0;
}

static int can_merge(const struct ptd_history *h, const struct ptd_block *b)
{
	const struct ptd_block *p = &h->pend.block;
	int len;

	if (!h->has_pend || h->pend.kind != PTD_ITEM_BLOCK)
		return 0;
	if (p->iclass != PTD_IC_OTHER || (p->flags & (PTD_BLK_INTERRUPTED | PTD_BLK_SYSCALL)))
		return 0;
	if ((p->flags ^ b->flags) & (PTD_BLK_UNCERTAIN | PTD_BLK_MODE32 | PTD_BLK_MODE16))
		return 0;
	if (b->ip <= p->end_ip || b->ip > p->end_ip + MAX_INSN_LEN)
		return 0;
	if ((uint64_t)p->ninsn + b->ninsn > 0xffffffffull)
		return 0;
	len = ptd__history_insn_len_at(h, h->pend.number, p->end_ip, ptd_block_mode(p), NULL);
	ptd_clear_error();
	return len > 0 && p->end_ip + (uint64_t)len == b->ip;
}

static int append_block(struct ptd_history *h, const struct ptd_block *b)
{

	if (!h || !b || b->ninsn == 0 || b->end_ip < b->ip || b->iclass >= PTD_IC_MAX ||
	    ptd_block_mode(b) > PTD_MODE_16 || (b->flags & ~PTD_BLK_ALL_FLAGS))
		return ptd__err(-ptde_invalid, "invalid block");
	if (b->ninsn == 1 && b->end_ip != b->ip)
		return ptd__err(-ptde_invalid, "a one-instruction block must end where it starts");
	log_block(h, b);
	if (can_merge(h, b)) {
		h->pend.block.end_ip = b->end_ip;
		h->pend.block.ninsn += b->ninsn;
		h->pend.block.iclass = b->iclass;
		h->pend.block.flags = b->flags;
		h->ninsn += b->ninsn;
		return 0;
	}
	if (flush_pend(h))
		return ptd__err(-ptde_nomem, "out of memory for the history");
	h->pend.kind = PTD_ITEM_BLOCK;
	h->pend.reason = 0;
	h->pend.number = h->enc_next_num;
	h->pend.block = *b;
	h->pend.arg = 0;
	h->pend.detail = 0;
	h->has_pend = 1;
	h->ninsn += b->ninsn;
	return 0;
}

int ptd_history_append_block(struct ptd_history *h, const struct ptd_block *b)
{
	return append_block(h, b);
}

int ptd_history_flag_last(struct ptd_history *h, uint8_t flags)
{
	if (!h || !h->has_pend || h->pend.kind != PTD_ITEM_BLOCK)
		return 0;
	if (h->pend.block.iclass != PTD_IC_FAR_CALL)
		flags &= (uint8_t)~PTD_BLK_SYSCALL;
	flags &= PTD_BLK_INTERRUPTED | PTD_BLK_SYSCALL;
	if (!flags)
		return 0;
	h->pend.block.flags |= flags;
	h->memo_index = 0;
	if (h->log_active)
		ptd__calllog_flag_last(h->log, flags);
	return 1;
}

static inline int block_ok(const struct ptd_block *x)
{
	return x->ninsn && x->end_ip >= x->ip && x->iclass < PTD_IC_MAX &&
	       ptd_block_mode(x) <= PTD_MODE_16 && !(x->flags & ~PTD_BLK_ALL_FLAGS) &&
	       (x->ninsn > 1 || x->end_ip == x->ip);
}

/* Blocks with other flags than these (a mode, or invalid ones), of class
 * OTHER, or not block_ok are not encoded straight away by
 * append_blocks: see there. */
#define DIRECT_FLAGS (PTD_BLK_INTERRUPTED | PTD_BLK_SYSCALL | PTD_BLK_UNCERTAIN)

uint64_t ptd__history_block_code(const struct ptd_block *b)
{
	uint8_t buf[32], *p = buf;
	uint64_t code = 0;
	size_t n, i;

	if (!b || !block_ok(b) || b->iclass == PTD_IC_OTHER || (b->flags & ~DIRECT_FLAGS))
		return 0;
	*p++ = (uint8_t)(TAG_BLOCK | (b->iclass & 7) << 2 | (b->flags & 7) << 5);
	p = put_uv(p, b->ninsn - 1);
	p = put_uv(p, b->end_ip - b->ip);
	n = (size_t)(p - buf);
	if (n > 7)
		return 0;
	for (i = 0; i < n; i++)
		code |= (uint64_t)buf[i] << (8 * i);
	return code | (uint64_t)n << 56;
}

/*
 * Appends @n blocks; with @code (see ptd__history_append_coded) a block
 * whose code is not 0 is encoded from it.  Every block but the last is
 * encoded straight into the open chunk while it can be (class OTHER or a
 * mode ends that; such a block and the last one become the pending block
 * as append_block makes it), which is what appending them one by one
 * gives (the pending block is encoded as soon as another one comes, a
 * block of another class than OTHER never merges with the next).
 */
static inline __attribute__((always_inline)) int append_blocks(struct ptd_history *h,
							       const struct ptd_block *b,
							       const uint64_t *code, size_t n)
{
	size_t i = 0;
	int rc;

	if (!h || (n && !b))
		return ptd__err(-ptde_invalid, "invalid block");
	while (i < n) {
		struct chunk *c;
		uint8_t *p, *lim;
		uint64_t prev, ninsn;
		size_t k, room;
		int logging;

		/* A block that may merge into the pending one, or an invalid
		 * one: the general path. */
		if (!block_ok(&b[i]) || (h->has_pend && h->pend.kind == PTD_ITEM_BLOCK &&
					 h->pend.block.iclass == PTD_IC_OTHER)) {
			rc = append_block(h, &b[i++]);
			if (rc < 0)
				return rc;
			continue;
		}
		if (flush_pend(h))
			return ptd__err(-ptde_nomem, "out of memory for the history");
		/* Encode b[i..] straight into the open chunk; a block that
		 * the next one may continue (class OTHER) and the last one
		 * stay pending instead. */
		room = b[i].iclass == PTD_IC_OTHER ? 0 : n - 1 - i;
		k = 0;
		if (room) {
			c = open_chunk(h);
			if (!c)
				return ptd__err(-ptde_nomem, "out of memory for the history");
			if (room > CHUNK_ITEMS - c->nitems)
				room = CHUNK_ITEMS - c->nitems;
			/* (a block takes at most 1 + 10 + 5 + 10 bytes, a
			 * code is stored as a word: 32 for each) */
			if (c->nbytes + 32 > c->cap && chunk_reserve(c, (uint32_t)room * 8 + 32))
				return ptd__err(-ptde_nomem, "out of memory for the history");
			p = c->bytes + c->nbytes;
			lim = c->bytes + c->cap - 32;
			prev = h->enc_end_ip;
			ninsn = 0;
			logging = h->log_active;
			if (code && !logging) {
				/* The fast path's blocks: a tight loop over those
				 * with a code (the others go below). */
				const struct ptd_block *x = b + i;
				const uint64_t *cp = code + i;

				while (k < room && p <= lim && cp[k]) {
					const uint64_t cd = cp[k], rest = cd >> 8;

					*p++ = (uint8_t)cd;
					p = put_uv_short(p, zz((int64_t)(x[k].ip - prev)));
					memcpy(p, &rest, 8);
					p += ((cd >> 56) & 15) - 1;
					prev = x[k].end_ip;
					ninsn += x[k].ninsn;
					k++;
				}
			}
			for (; k < room && p <= lim; k++) {
				const struct ptd_block *x = &b[i + k];
				const uint64_t ip = x->ip, end = x->end_ip;
				const uint32_t cnt = x->ninsn;
				uint64_t cd = code ? code[i + k] : 0;

				if (cd) {
					if (__builtin_expect(logging, 0)) {
						log_block(h, x);
						logging = h->log_active;
					}
					uint64_t rest = cd >> 8;

					/* (the tag, the distance, the rest) */
					*p++ = (uint8_t)cd;
					p = put_uv_short(p, zz((int64_t)(ip - prev)));
					memcpy(p, &rest, 8);
					p += (cd >> 56) - 1;
				} else {
					const uint8_t cls = x->iclass, fl = x->flags;

					/* (class OTHER, a mode other than 64-bit,
					 * or not block_ok: block_ok(b[i]) holds) */
					if ((cls == PTD_IC_OTHER) | (cls >= PTD_IC_MAX) |
					    ((fl & ~DIRECT_FLAGS) != 0) | (cnt == 0) | (end < ip) |
					    ((cnt == 1) & (end != ip)))
						break;
					if (__builtin_expect(logging, 0)) {
						log_block(h, x);
						logging = h->log_active;
					}
					*p++ = (uint8_t)(TAG_BLOCK | (cls & 7) << 2 | (fl & 7) << 5);
					p = put_uv(p, zz((int64_t)(ip - prev)));
					p = put_uv(p, cnt - 1);
					p = put_uv(p, end - ip);
				}
				prev = end;
				ninsn += cnt;
			}
			c->nbytes = (uint32_t)(p - c->bytes);
			c->nitems += (uint32_t)k;
			h->nencoded += k;
			h->enc_end_ip = prev;
			h->enc_next_num += ninsn;
			h->ninsn += ninsn;
			if (k < room && p > lim) {
				/* The chunk is out of room: more, then on. */
				if (chunk_reserve(c, (uint32_t)(room - k) * 8 + 32))
					return ptd__err(-ptde_nomem, "out of memory for the history");
				i += k;
				continue;
			}
		}
		i += k;
		if (k < room && !block_ok(&b[i]))
			continue; /* the general path reports it */
		/* b[i] becomes the pending block. */
		log_block(h, &b[i]);
		h->pend.kind = PTD_ITEM_BLOCK;
		h->pend.reason = 0;
		h->pend.number = h->enc_next_num;
		h->pend.block = b[i];
		h->pend.arg = 0;
		h->pend.detail = 0;
		h->has_pend = 1;
		h->ninsn += b[i].ninsn;
		i++;
	}
	return 0;
}

int ptd_history_append_blocks(struct ptd_history *h, const struct ptd_block *b, size_t n)
{
	return append_blocks(h, b, NULL, n);
}

int ptd__history_append_coded(struct ptd_history *h, const struct ptd_block *b,
			      const uint64_t *code, size_t n)
{
	return append_blocks(h, b, code, n);
}

int ptd_history_append_gap(struct ptd_history *h, enum ptd_gap_reason r, uint64_t arg,
			   const char *detail)
{
	struct ptd_item it;

	if (!h)
		return ptd__err(-ptde_invalid, "no history");
	memset(&it, 0, sizeof(it));
	it.kind = PTD_ITEM_GAP;
	it.reason = (uint8_t)r;
	it.arg = arg;
	if (detail) {
		char *d;

		if (h->ndetails == h->details_cap) {
			uint32_t cap = h->details_cap ? h->details_cap * 2 : 8;
			char **nd = realloc(h->details, cap * sizeof(*nd));

			if (!nd)
				return ptd__err(-ptde_nomem, "out of memory for the history");
			h->details = nd;
			h->details_cap = cap;
		}
		d = strdup(detail);
		if (!d)
			return ptd__err(-ptde_nomem, "out of memory for the history");
		h->details[h->ndetails++] = d;
		h->details_bytes += strlen(d) + 1;
		it.detail = h->ndetails;
	}
	if (set_pend(h, &it))
		return ptd__err(-ptde_nomem, "out of memory for the history");
	if (h->log_active && ptd__calllog_gap(h->log) < 0)
		log_off(h);
	return 0;
}

int ptd_history_append_event(struct ptd_history *h, enum ptd_event_kind k, uint64_t ip,
			     uint64_t arg)
{
	struct ptd_item it;

	if (!h)
		return ptd__err(-ptde_invalid, "no history");
	memset(&it, 0, sizeof(it));
	it.kind = PTD_ITEM_EVENT;
	it.reason = (uint8_t)k;
	it.block.ip = ip;
	it.arg = arg;
	if (set_pend(h, &it))
		return ptd__err(-ptde_nomem, "out of memory for the history");
	if (h->log_active && ptd__calllog_event(h->log, k, ip) < 0)
		log_off(h);
	return 0;
}

static int append_copy(struct ptd_history *dst, const struct ptd_history *src,
		       const struct ptd_item *it)
{
	switch (it->kind) {
	case PTD_ITEM_BLOCK:
		return ptd_history_append_block(dst, &it->block);
	case PTD_ITEM_GAP:
		return ptd_history_append_gap(dst, it->reason, it->arg,
					      ptd_history_detail(src, it->detail));
	default:
		return ptd_history_append_event(dst, it->reason, it->block.ip, it->arg);
	}
}

int ptd_history_append_history(struct ptd_history *dst, const struct ptd_history *src)
{
	uint64_t i, n;
	int rc = 0;

	if (!dst || !src || dst == src)
		return ptd__err(-ptde_invalid, "history copy: bad arguments");
	n = ptd_history_nitems(src);
	for (i = 0; i < n && rc == 0; i++) {
		struct ptd_item it;

		if (!ptd_history_item(src, i, &it))
			return ptd__err(-ptde_nomem, "out of memory reading the history");
		rc = append_copy(dst, src, &it);
	}
	return rc;
}

static int splice(struct ptd_history *dst, struct ptd_history *src);

/*
 * The logs follow the items: src's log goes after dst's when both saw
 * every item; else dst's stops where dst ends now.  The items move with
 * dst's log detached (the appends must not feed it twice).
 */
int ptd_history_splice(struct ptd_history *dst, struct ptd_history *src)
{
	struct ptd_calllog *dl, *sl;
	int both, rc, active;

	if (!dst || !src || dst == src || src->nparts)
		return ptd__err(-ptde_invalid, "history splice: bad arguments");
	both = dst->log_active && src->log_active && ptd__calllog_ok(src->log);
	if (!both)
		log_stop(dst);
	dl = dst->log;
	active = dst->log_active;
	sl = src->log;
	dst->log = NULL;
	dst->log_active = 0;
	src->log = NULL;
	src->log_active = 0;
	rc = splice(dst, src);
	dst->log = dl;
	dst->log_active = active;
	if (rc < 0 || (both && ptd__calllog_append(dl, sl) < 0))
		log_off(dst);
	ptd__calllog_free(sl);
	return rc;
}

static int splice(struct ptd_history *dst, struct ptd_history *src)
{
	const char *pend_detail;
	const struct ptd_item *items;
	uint64_t k, moved_insn, item_shift, num_shift, nmove;
	uint32_t i, detail_shift;
	int rc;

	if (!dst || !src || dst == src || src->nparts)
		return ptd__err(-ptde_invalid, "history splice: bad arguments");
	/* The first chunk goes item by item: its first block may continue
	 * dst's last one, and then it merges as an append would. */
	moved_insn = src->ninsn;
	if (src->nchunks) {
		items = chunk_items(src, 0);
		if (!items)
			return ptd__err(-ptde_nomem, "out of memory for the history");
		for (i = 0; i < src->chunks[0].nitems; i++) {
			rc = append_copy(dst, src, &items[i]);
			if (rc < 0)
				return rc;
			if (items[i].kind == PTD_ITEM_BLOCK)
				moved_insn -= items[i].block.ninsn;
		}
	}
	if (src->has_pend && src->pend.kind == PTD_ITEM_BLOCK)
		moved_insn -= src->pend.block.ninsn;
	/* The pending item goes in last, by append; its detail string
	 * moves to dst below, so look it up now. */
	pend_detail = src->has_pend ? ptd_history_detail(src, src->pend.detail) : NULL;
	if (src->nchunks > 1) {
		nmove = src->nchunks - 1;
		if (flush_pend(dst))
			return ptd__err(-ptde_nomem, "out of memory for the history");
		if (reserve_chunks(dst, nmove) || reserve_details(dst, src->ndetails))
			return ptd__err(-ptde_nomem, "out of memory for the history");
		/* Nothing can fail from here on. */
		detail_shift = dst->ndetails;
		for (i = 0; i < src->ndetails; i++) {
			dst->details[dst->ndetails++] = src->details[i];
			src->details[i] = NULL;
		}
		dst->details_bytes += src->details_bytes;
		src->ndetails = 0;
		if (dst->nchunks)
			chunk_close(&dst->chunks[dst->nchunks - 1]);
		item_shift = dst->nencoded - src->chunks[1].first_item;
		num_shift = dst->enc_next_num - src->chunks[1].first_number;
		for (k = 1; k < src->nchunks; k++) {
			struct chunk c = src->chunks[k];

			c.first_item += item_shift;
			c.first_number += num_shift;
			c.detail_base += detail_shift;
			dst->chunks[dst->nchunks++] = c;
			src->chunks[k].bytes = NULL;
		}
		dst->nencoded = src->nencoded + item_shift;
		dst->enc_next_num = src->enc_next_num + num_shift;
		dst->enc_end_ip = src->enc_end_ip;
		dst->ninsn += moved_insn;
	}
	if (src->has_pend) {
		if (src->pend.kind == PTD_ITEM_GAP)
			rc = ptd_history_append_gap(dst, src->pend.reason, src->pend.arg, pend_detail);
		else
			rc = append_copy(dst, src, &src->pend);
		if (rc < 0)
			return rc;
	}
	ptd_history_clear(src);
	return 0;
}

int ptd_history_prepend(struct ptd_history *h, struct ptd_history *older)
{
	struct ptd_history tmp;
	uint64_t tail, add;
	int rc;

	if (!h || !older || h == older)
		return ptd__err(-ptde_invalid, "history prepend: bad arguments");
	tail = h->tail;
	add = next_number(older) - 1;
	if (h->nolds && older->nolds)
		return ptd__err(-ptde_invalid, "history prepend: both have earlier programs");
	rc = ptd_history_splice(older, h);
	if (rc < 0)
		return rc;
	/* (the logs go with the items: @older's, continued by @h's) */
	tmp = *h;
	*h = *older;
	*older = tmp;
	h->tail = tail;
	older->tail = 0;
	/* The marks of the programs before an exec follow @h's items. */
	if (older->nolds) {
		h->olds = older->olds;
		h->nolds = older->nolds;
		older->olds = NULL;
		older->nolds = 0;
		olds_shift(h, (int64_t)add);
	}
	/* Remembered positions were @older's, which now starts @h: they
	 * stay right; the memo by index too. */
	return 0;
}

static void drop_caches(struct ptd_history *h);

int ptd_history_drop_oldest(struct ptd_history *h, uint64_t number, const char *detail,
			    uint64_t *shift)
{
	struct ptd_item *items;
	struct chunk gap;
	uint64_t k = 0, i, dins = 0, nitems, sh;
	uint8_t *p;
	char *d = NULL;

	if (shift)
		*shift = 0;
	if (!h || h->nparts)
		return ptd__err(-ptde_invalid, "this history cannot drop its oldest part");
	while (k + 1 < h->nchunks && h->chunks[k + 1].first_number <= number)
		k++;
	/* Only the gap of an earlier drop would go: nothing to gain. */
	if (k == 0 || (k == 1 && h->drop_detail && h->chunks[0].nitems == 1))
		return 0;
	/* Numbers change: the call log would no longer fit.  The func_of
	 * stays: ptd_history_relog writes the log again from the items
	 * kept, when a view is asked for (not at every drop: a bounded
	 * recording drops a quarter of its bound again and again). */
	log_off(h);
	items = malloc(CHUNK_ITEMS * sizeof(*items));
	memset(&gap, 0, sizeof(gap));
	gap.bytes = malloc(24);
	if (detail && !(d = strdup(detail)))
		goto nomem;
	if (!items || !gap.bytes || (!h->drop_detail && reserve_details(h, 1)))
		goto nomem;
	/* The instructions in the dropped chunks (a gap of an earlier drop
	 * takes a number, not an instruction). */
	for (i = 0; i < k; i++) {
		uint32_t j;
		decode_chunk(h, i, items);
		for (j = 0; j < h->chunks[i].nitems; j++) {
			const struct ptd_item *x = &items[j];
			if (x->kind == PTD_ITEM_BLOCK)
				dins += x->block.ninsn;
			/* The detail strings of dropped gaps go too (their
			 * slots stay, so later indices keep their meaning). */
			if (x->kind == PTD_ITEM_GAP && x->detail && x->detail <= h->ndetails &&
			    x->detail != h->drop_detail && h->details[x->detail - 1]) {
				h->details_bytes -= strlen(h->details[x->detail - 1]) + 1;
				free(h->details[x->detail - 1]);
				h->details[x->detail - 1] = NULL;
			}
		}
	}
	free(items);
	/* Nothing can fail from here on. */
	if (!h->drop_detail) {
		h->details[h->ndetails++] = NULL;
		h->drop_detail = h->ndetails;
	}
	if (h->details[h->drop_detail - 1]) {
		h->details_bytes -= strlen(h->details[h->drop_detail - 1]) + 1;
		free(h->details[h->drop_detail - 1]);
	}
	h->details[h->drop_detail - 1] = d;
	h->details_bytes += d ? strlen(d) + 1 : 0;
	h->dropped += dins;
	p = gap.bytes;
	*p++ = TAG_GAP;
	*p++ = PTD_GAP_DROPPED;
	p = put_uv(p, h->dropped);
	p = put_uv(p, d ? h->drop_detail : 0);
	gap.nbytes = gap.cap = (uint32_t)(p - gap.bytes);
	gap.nitems = 1;
	gap.first_number = 1;
	/* Item numbers before chunk k go, but for the gap's one. */
	nitems = h->chunks[k].first_item;
	sh = h->chunks[k].first_number - 2;
	for (i = 0; i < k; i++)
		free(h->chunks[i].bytes);
	memmove(&h->chunks[1], &h->chunks[k], (h->nchunks - k) * sizeof(struct chunk));
	h->chunks[0] = gap;
	h->nchunks -= k - 1;
	for (i = 1; i < h->nchunks; i++) {
		h->chunks[i].first_item -= nitems - 1;
		h->chunks[i].first_number -= sh;
	}
	h->nencoded -= nitems - 1;
	h->enc_next_num -= sh;
	if (h->has_pend)
		h->pend.number -= sh;
	h->ninsn -= dins;
	olds_shift(h, -(int64_t)sh);
	drop_caches(h);
	if (shift)
		*shift = sh;
	return 0;
nomem:
	free(items);
	free(gap.bytes);
	free(d);
	return ptd__err(-ptde_nomem, "out of memory for the history");
}

uint64_t ptd_history_dropped(const struct ptd_history *h)
{
	return h ? h->dropped : 0;
}

void ptd_history_set_tail(struct ptd_history *h, uint64_t pc)
{
	if (h)
		h->tail = pc;
}

uint64_t ptd_history_tail(const struct ptd_history *h)
{
	return h ? h->tail : 0;
}

/* ---- queries ---- */

uint64_t ptd__history_executed_count(const struct ptd_history *h)
{
	return next_number(h) - 1;
}

uint64_t ptd_history_count(const struct ptd_history *h)
{
	if (!h)
		return 0;
	return next_number(h) - 1 + (h->tail ? 1 : 0);
}

uint64_t ptd_history_ninsn(const struct ptd_history *h)
{
	return h ? h->ninsn : 0;
}

uint64_t ptd_history_nitems(const struct ptd_history *h)
{
	return h ? h->nencoded + (uint64_t)h->has_pend : 0;
}

size_t ptd_history_bytes(const struct ptd_history *h)
{
	size_t n;
	uint64_t i;

	if (!h)
		return 0;
	n = sizeof(*h) + h->chunks_cap * sizeof(struct chunk) + h->parts_cap * sizeof(struct hpart);
	for (i = 0; i < h->nchunks; i++)
		n += h->chunks[i].cap;
	n += h->details_cap * sizeof(char *) + h->details_bytes;
	for (i = 0; i < DCACHE_SLOTS; i++)
		if (h->dcache[i].items)
			n += CHUNK_ITEMS * sizeof(struct ptd_item);
	if (h->icache)
		n += ICACHE_SLOTS * sizeof(struct icache_ent) + h->icache_bytes;
	return n + ptd__calllog_bytes(h->log);
}

const char *ptd_history_detail(const struct ptd_history *h, uint32_t detail)
{
	if (!h || detail == 0 || detail > h->ndetails)
		return NULL;
	return h->details[detail - 1];
}

/* Chunk holding encoded item @index: chunks are full except where
 * histories were spliced, so try the uniform guess first. */
static inline int chunk_has(const struct ptd_history *h, uint64_t ci, uint64_t index)
{
	return ci < h->nchunks && h->chunks[ci].first_item <= index &&
	       index - h->chunks[ci].first_item < h->chunks[ci].nitems;
}

static uint64_t chunk_of_index(const struct ptd_history *ch, uint64_t index)
{
	struct ptd_history *h = (struct ptd_history *)ch;
	uint64_t lo = 0, hi = h->nchunks, ci = index / CHUNK_ITEMS;

	/* Walks go item by item: the chunk of the last lookup or the next
	 * one, before the uniform guess and a binary search. */
	if (chunk_has(h, h->memo_chunk, index))
		return h->memo_chunk;
	if (chunk_has(h, h->memo_chunk + 1, index))
		return ++h->memo_chunk;
	if (chunk_has(h, ci, index))
		return h->memo_chunk = ci;
	while (hi - lo > 1) {
		uint64_t mid = lo + (hi - lo) / 2;

		if (h->chunks[mid].first_item <= index)
			lo = mid;
		else
			hi = mid;
	}
	return h->memo_chunk = lo;
}

/* The last chunk whose first number is <= @number. */
static uint64_t chunk_of_number(const struct ptd_history *h, uint64_t number)
{
	uint64_t lo = 0, hi = h->nchunks;

	while (hi - lo > 1) {
		uint64_t mid = lo + (hi - lo) / 2;

		if (h->chunks[mid].first_number <= number)
			lo = mid;
		else
			hi = mid;
	}
	/* Chunks of one number (events only) before a part: take the part. */
	return lo;
}

/* ---- parts decoded on demand ---- */

/* A decoded part was used: the last to be evicted. */
static inline void touch_part(const struct ptd_history *ch, uint64_t ci)
{
	struct ptd_history *h = (struct ptd_history *)ch;
	uint32_t p = h->chunks[ci].part;

	if (p && h->parts[p - 1].lru != h->part_clock)
		h->parts[p - 1].lru = ++h->part_clock;
}

static void drop_caches(struct ptd_history *h)
{
	int i;

	for (i = 0; i < DCACHE_SLOTS; i++)
		h->dcache[i].chunk = 0;
	h->memo_index = 0;
	h->memo_chunk = 0;
}

/* Replaces chunks [ci, ci + n) by the @m chunks in @with. */
static int replace_chunks(struct ptd_history *h, uint64_t ci, uint64_t n, const struct chunk *with,
			  uint64_t m)
{
	if (m > n && reserve_chunks(h, m - n))
		return ptd__err(-ptde_nomem, "out of memory for the history");
	memmove(&h->chunks[ci + m], &h->chunks[ci + n], (h->nchunks - ci - n) * sizeof(struct chunk));
	memcpy(&h->chunks[ci], with, m * sizeof(struct chunk));
	h->nchunks = h->nchunks - n + m;
	drop_caches(h);
	return 0;
}

/* Makes part @p virtual again: its chunks become one, without bytes. */
static void evict_part(struct ptd_history *h, uint32_t p)
{
	struct hpart *hp = &h->parts[p];
	struct chunk v;
	uint64_t ci, n = 0;

	memset(&v, 0, sizeof(v));
	ci = chunk_of_index(h, hp->first_item);
	while (ci + n < h->nchunks && h->chunks[ci + n].part == p + 1)
		free(h->chunks[ci + n].bytes), n++;
	v.first_item = hp->first_item;
	v.first_number = hp->first_number;
	v.nitems = (uint32_t)hp->nitems;
	v.detail_base = hp->detail_base;
	v.part = p + 1;
	v.virt = 1;
	replace_chunks(h, ci, n, &v, 1); /* shrinks: cannot fail */
	hp->real = 0;
	h->nreal--;
}

/* Decodes the part of virtual chunk @ci with the fill callback and puts
 * its chunks in place; evicts the least recently used part beyond the
 * bound.  Returns 0 or a negative error. */
static int materialize(struct ptd_history *h, uint64_t ci)
{
	uint32_t p = h->chunks[ci].part - 1, i;
	struct hpart *hp = &h->parts[p];
	struct ptd_history *t;
	struct chunk *cs;
	uint64_t k;
	int rc;

	if (!h->fill)
		return ptd__err(-ptde_internal, "history part %u has no decoder", p);
	t = ptd_history_alloc(h->read, h->ctx);
	if (!t)
		return ptd__err(-ptde_nomem, "out of memory for the history");
	rc = h->fill(h->fill_ctx, p, t);
	if (rc == 0 && flush_pend(t))
		rc = ptd__err(-ptde_nomem, "out of memory for the history");
	if (rc == 0 && (t->nencoded != hp->nitems || t->enc_next_num - 1 != hp->numbers))
		rc = ptd__err(-ptde_internal,
			      "history part %u decoded into %llu items, %llu numbers (counted %llu, %llu)",
			      p, (unsigned long long)t->nencoded,
			      (unsigned long long)(t->enc_next_num - 1),
			      (unsigned long long)hp->nitems, (unsigned long long)hp->numbers);
	if (rc == 0 && !t->nchunks)
		rc = ptd__err(-ptde_internal, "history part %u decoded empty", p);
	if (rc < 0) {
		ptd_history_free(t);
		return rc;
	}
	cs = t->chunks;
	for (k = 0; k < t->nchunks; k++) {
		chunk_close(&cs[k]);
		cs[k].first_item += hp->first_item;
		cs[k].first_number += hp->first_number - 1;
		cs[k].detail_base = hp->detail_base;
		cs[k].part = p + 1;
		cs[k].virt = 0;
	}
	rc = replace_chunks(h, ci, 1, cs, t->nchunks);
	if (rc < 0) {
		ptd_history_free(t);
		return rc;
	}
	t->nchunks = 0; /* the bytes are h's now */
	ptd_history_free(t);
	hp->real = 1;
	hp->lru = ++h->part_clock;
	h->nreal++;
	while (h->max_real && h->nreal > h->max_real) {
		uint32_t victim = UINT32_MAX;

		for (i = 0; i < h->nparts; i++)
			if (h->parts[i].real && i != p &&
			    (victim == UINT32_MAX || h->parts[i].lru < h->parts[victim].lru))
				victim = i;
		if (victim == UINT32_MAX)
			break;
		evict_part(h, victim);
	}
	return 0;
}

void ptd_history_set_fill(struct ptd_history *h, ptd_history_fill_fn fill, void *ctx,
			  uint32_t max_parts)
{
	if (!h)
		return;
	h->fill = fill;
	h->fill_ctx = ctx;
	h->max_real = max_parts ? max_parts : 16;
}

int ptd_history_append_part(struct ptd_history *h, uint32_t part, uint64_t nitems,
			    uint64_t numbers, uint64_t ninsn, char *const *details, uint32_t ndetails)
{
	return ptd__history_append_part_log(h, part, nitems, numbers, ninsn, details, ndetails,
					    NULL);
}

static int append_part(struct ptd_history *h, uint32_t part, uint64_t nitems, uint64_t numbers,
		       uint64_t ninsn, char *const *details, uint32_t ndetails);

int ptd__history_append_part_log(struct ptd_history *h, uint32_t part, uint64_t nitems,
				 uint64_t numbers, uint64_t ninsn, char *const *details,
				 uint32_t ndetails, struct ptd_calllog *log)
{
	int rc;

	if (h && (!log || !ptd__calllog_ok(log)))
		log_stop(h);
	rc = append_part(h, part, nitems, numbers, ninsn, details, ndetails);
	if (h && log && h->log_active && (rc < 0 || ptd__calllog_append(h->log, log) < 0))
		log_off(h);
	ptd__calllog_free(log);
	return rc;
}

static int append_part(struct ptd_history *h, uint32_t part, uint64_t nitems, uint64_t numbers,
		       uint64_t ninsn, char *const *details, uint32_t ndetails)
{
	struct chunk *c;
	struct hpart *hp;
	uint32_t i;

	if (!h || !nitems || nitems > 0xffffffffull || part != h->nparts || numbers < ninsn ||
	    (ndetails && !details))
		return ptd__err(-ptde_invalid, "history part: bad arguments");
	if (flush_pend(h))
		return ptd__err(-ptde_nomem, "out of memory for the history");
	if (h->nparts == h->parts_cap) {
		uint32_t cap = h->parts_cap ? h->parts_cap * 2 : 64;
		struct hpart *np = realloc(h->parts, cap * sizeof(*np));

		if (!np)
			return ptd__err(-ptde_nomem, "out of memory for the history");
		h->parts = np;
		h->parts_cap = cap;
	}
	if (reserve_details(h, ndetails) || reserve_chunks(h, 1))
		return ptd__err(-ptde_nomem, "out of memory for the history");
	if (h->nchunks)
		chunk_close(&h->chunks[h->nchunks - 1]);
	hp = &h->parts[h->nparts++];
	memset(hp, 0, sizeof(*hp));
	hp->first_item = h->nencoded;
	hp->first_number = h->enc_next_num;
	hp->nitems = nitems;
	hp->numbers = numbers;
	hp->detail_base = h->ndetails;
	for (i = 0; i < ndetails; i++) {
		char *d = strdup(details[i] ? details[i] : "");

		if (!d) /* the string is lost, not the part */
			d = NULL;
		h->details[h->ndetails++] = d;
		h->details_bytes += d ? strlen(d) + 1 : 0;
	}
	c = &h->chunks[h->nchunks++];
	memset(c, 0, sizeof(*c));
	c->first_item = h->nencoded;
	c->first_number = h->enc_next_num;
	c->nitems = (uint32_t)nitems;
	c->detail_base = hp->detail_base;
	c->part = h->nparts;
	c->virt = 1;
	h->nencoded += nitems;
	h->enc_next_num += numbers;
	h->ninsn += ninsn;
	h->enc_end_ip = 0; /* the next real chunk starts from 0 */
	return 0;
}

int ptd_history_item(const struct ptd_history *h, uint64_t index, struct ptd_item *it)
{
	const struct ptd_item *items;
	uint64_t ci;

	if (!h || !it || index >= ptd_history_nitems(h))
		return 0;
	if (index >= h->nencoded) {
		*it = h->pend;
		return 1;
	}
	if (h->memo_index == index + 1) {
		*it = h->memo_item;
		return 1;
	}
	ci = chunk_of_index(h, index);
	if (h->chunks[ci].virt) {
		if (materialize((struct ptd_history *)h, ci) < 0)
			return 0;
		ci = chunk_of_index(h, index);
	}
	touch_part(h, ci);
	items = chunk_items(h, ci);
	if (!items)
		return 0;
	*it = items[index - h->chunks[ci].first_item];
	/* Encoded items never change: safe to remember. */
	((struct ptd_history *)h)->memo_index = index + 1;
	((struct ptd_history *)h)->memo_item = *it;
	return 1;
}

int ptd__history_items_at(const struct ptd_history *h, uint64_t index, const struct ptd_item **items,
			  uint32_t *n)
{
	const struct ptd_item *all;
	uint64_t ci;

	*items = NULL;
	*n = 0;
	if (!h || index >= ptd_history_nitems(h))
		return 0;
	if (index >= h->nencoded) {
		*items = &h->pend;
		*n = 1;
		return 1;
	}
	ci = chunk_of_index(h, index);
	if (h->chunks[ci].virt) {
		int rc = materialize((struct ptd_history *)h, ci);

		if (rc < 0)
			return rc;
		ci = chunk_of_index(h, index);
	}
	touch_part(h, ci);
	all = chunk_items(h, ci);
	if (!all)
		return ptd__err(-ptde_nomem, "out of memory reading the history");
	*items = all + (index - h->chunks[ci].first_item);
	*n = (uint32_t)(h->chunks[ci].nitems - (index - h->chunks[ci].first_item));
	return 1;
}

/*
 * Finds the numbered item (block or gap) containing instruction @number
 * (which must be below the tail).  Returns its item index, or UINT64_MAX.
 */
static uint64_t find_item(const struct ptd_history *h, uint64_t number, struct ptd_item *out)
{
	const struct ptd_item *items;
	uint64_t ci;
	uint32_t a, b;

	if (h->has_pend && h->pend.kind != PTD_ITEM_EVENT && number >= h->pend.number) {
		*out = h->pend;
		return h->nencoded;
	}
	if (!h->nchunks || number < 1 || number >= h->enc_next_num)
		return UINT64_MAX;
	ci = chunk_of_number(h, number);
	if (h->chunks[ci].virt) {
		if (materialize((struct ptd_history *)h, ci) < 0)
			return UINT64_MAX;
		ci = chunk_of_number(h, number);
	}
	touch_part(h, ci);
	items = chunk_items(h, ci);
	if (!items)
		return UINT64_MAX;
	a = 0;
	b = h->chunks[ci].nitems;
	while (b - a > 1) {
		uint32_t mid = a + (b - a) / 2;

		if (items[mid].number <= number)
			a = mid;
		else
			b = mid;
	}
	while (a > 0 && items[a].kind == PTD_ITEM_EVENT)
		a--;
	*out = items[a];
	if (out->kind == PTD_ITEM_EVENT || number >= out->number + item_span(out))
		return UINT64_MAX;
	return h->chunks[ci].first_item + a;
}

/* ---- cursor ---- */

/* Execution mode of the newest block (the code the tail continues), or
 * 64-bit when the newest items are no block: a gap says nothing. */
static unsigned tail_mode(const struct ptd_history *h)
{
	uint64_t i = ptd_history_nitems(h);
	struct ptd_item it;
	int k;

	for (k = 0; k < 4 && i > 0; k++) {
		if (!ptd_history_item(h, --i, &it))
			break;
		if (it.kind == PTD_ITEM_BLOCK)
			return ptd_block_mode(&it.block);
		if (it.kind == PTD_ITEM_GAP)
			break;
	}
	return PTD_MODE_64;
}

static void fill_tail(struct ptd_hcursor *c)
{
	struct ptd_insn_info in;
	const struct ptd_history *h = c->h;
	unsigned mode = h->tail ? tail_mode(h) : PTD_MODE_64;

	c->number = ptd_history_count(h);
	c->ip = h->tail;
	c->is_gap = 0;
	c->gap_reason = 0;
	c->block_flags = 0;
	c->mode = (uint8_t)mode;
	c->item_index = ptd_history_nitems(h);
	c->insn_index = 0;
	c->iclass = PTD_IC_OTHER;
	c->len = 0;
	if (ptd__history_insn_len_mode(h, h->tail, mode, &in) > 0) {
		c->iclass = in.iclass;
		c->len = in.len;
	}
	ptd_clear_error();
}

/* Fills the position fields of @c from item @it at instruction @k. */
static int fill_item(struct ptd_hcursor *c, const struct ptd_item *it, uint64_t index, uint32_t k)
{
	const uint32_t *offs = NULL;
	uint32_t img;

	c->item_index = index;
	c->insn_index = k;
	c->number = it->number + k;
	c->block_flags = 0;
	c->mode = it->kind == PTD_ITEM_BLOCK ? (uint8_t)ptd_block_mode(&it->block) : 0;
	if (it->kind == PTD_ITEM_GAP) {
		c->ip = 0;
		c->is_gap = 1;
		c->gap_reason = it->reason;
		c->iclass = PTD_IC_OTHER;
		c->len = 0;
		return 0;
	}
	c->is_gap = 0;
	c->gap_reason = 0;
	img = image_of(c->h, it->number);
	offs = block_offsets(c->h, &it->block, img);
	if (!offs) {
		if (k != 0 && k != it->block.ninsn - 1)
			return -ptde_bad_insn;
		ptd_clear_error();
	}
	if (k == it->block.ninsn - 1) {
		c->ip = it->block.end_ip;
		c->iclass = it->block.iclass;
		c->block_flags = it->block.flags;
		if (offs) {
			c->len = (uint8_t)(offs[k + 1] - offs[k]);
		} else {
			struct ptd_insn_info in;
			int len = insn_len_img(c->h, img, c->ip, ptd_block_mode(&it->block), &in);

			c->len = len > 0 ? (uint8_t)len : 0;
			ptd_clear_error();
		}
	} else {
		c->ip = it->block.ip + (offs ? offs[k] : 0);
		c->iclass = PTD_IC_OTHER;
		c->len = offs ? (uint8_t)(offs[k + 1] - offs[k]) : 0;
	}
	return 0;
}

int ptd_hcursor_goto(struct ptd_hcursor *c, const struct ptd_history *h, uint64_t number)
{
	struct ptd_item it;
	uint64_t idx, count;

	if (!c || !h)
		return ptd__err(-ptde_invalid, "no cursor or history");
	count = ptd_history_count(h);
	if (number < 1)
		return -ptde_bos;
	if (number > count)
		return -ptde_eos;
	c->h = h;
	if (h->tail && number == count) {
		fill_tail(c);
		return 0;
	}
	idx = find_item(h, number, &it);
	if (idx == UINT64_MAX)
		return ptd__err(-ptde_internal, "instruction %lu not found", (unsigned long)number);
	return fill_item(c, &it, idx, (uint32_t)(number - it.number));
}

int ptd_hcursor_next(struct ptd_hcursor *c)
{
	const struct ptd_history *h;
	struct ptd_item it;
	uint64_t idx, n;

	if (!c || !c->h)
		return ptd__err(-ptde_invalid, "no cursor");
	h = c->h;
	n = ptd_history_nitems(h);
	if (c->item_index >= n)
		return -ptde_eos;
	if (!ptd_history_item(h, c->item_index, &it))
		return -ptde_internal;
	if (it.kind == PTD_ITEM_BLOCK && c->insn_index + 1 < it.block.ninsn)
		return fill_item(c, &it, c->item_index, c->insn_index + 1);
	for (idx = c->item_index + 1; idx < n; idx++) {
		if (!ptd_history_item(h, idx, &it))
			return -ptde_internal;
		if (it.kind != PTD_ITEM_EVENT)
			return fill_item(c, &it, idx, 0);
	}
	if (!h->tail)
		return -ptde_eos;
	fill_tail(c);
	return 0;
}

int ptd_hcursor_prev(struct ptd_hcursor *c)
{
	const struct ptd_history *h;
	struct ptd_item it;
	uint64_t idx;

	if (!c || !c->h)
		return ptd__err(-ptde_invalid, "no cursor");
	h = c->h;
	idx = c->item_index;
	if (idx > ptd_history_nitems(h))
		idx = ptd_history_nitems(h);
	if (idx < ptd_history_nitems(h) && c->insn_index > 0) {
		if (!ptd_history_item(h, idx, &it))
			return -ptde_internal;
		return fill_item(c, &it, idx, c->insn_index - 1);
	}
	while (idx > 0) {
		idx--;
		if (!ptd_history_item(h, idx, &it))
			return -ptde_internal;
		if (it.kind == PTD_ITEM_BLOCK)
			return fill_item(c, &it, idx, it.block.ninsn - 1);
		if (it.kind == PTD_ITEM_GAP)
			return fill_item(c, &it, idx, 0);
	}
	return -ptde_bos;
}

int ptd_hcursor_events(const struct ptd_hcursor *c, struct ptd_item *ev, int max)
{
	struct ptd_item it;
	uint64_t idx, first;
	int n = 0;

	if (!c || !c->h || c->insn_index != 0)
		return 0;
	/* Events sit right before the item they are attached to. */
	idx = c->item_index;
	first = idx;
	while (first > 0) {
		if (!ptd_history_item(c->h, first - 1, &it) || it.kind != PTD_ITEM_EVENT)
			break;
		first--;
	}
	for (; first < idx && n < max; first++) {
		if (!ptd_history_item(c->h, first, &it))
			break;
		if (ev)
			ev[n] = it;
		n++;
	}
	return n;
}
