/*
 * PT -> history items with libipt's block decoder (see pt.h).
 *
 * This file owns the per-segment decode state machine: sync at the
 * segment's PSB, drain events before each block, turn libipt blocks into
 * contiguous ptd_blocks (the decoder is configured to end blocks after
 * direct calls and jumps, so every block is contiguous in memory), keep a
 * one-block lookahead so a block can still be flagged (syscall, interrupted)
 * by the event that follows it, turn errors into gaps, and cut the linear
 * tail at the next segment's start IP.  The lazy trace (segment table, LRU
 * cache, numbering, parallel decode) is at the bottom.
 */
#include "decode/pt.h"

#include <inttypes.h>
#include <intel-pt.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decode/fastpt.h"
#include "disasm/disasm.h"
#include "history/history_int.h"
#include "util/error.h"

static const uint8_t psb_pattern[16] = { 0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82,
					 0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82 };

/* ---- PSB index ---------------------------------------------------------- */

/* What a PSB+ header says, read at the packet level. */
struct psbhdr {
	uint64_t fup_ip;  /* 0: no FUP (tracing disabled at the PSB) */
	uint64_t fup_off; /* offset and size of the FUP packet */
	uint64_t end_off; /* offset right after PSBEND (ok only) */
	uint8_t fup_len;
	/* The execution mode of the first MODE.Exec before PSBEND
	 * (ptem_unknown: none). */
	uint8_t mode;
	uint8_t tsx; /* it has a MODE.TSX */
	/* Only packets libipt takes in a PSB+ header, up to PSBEND: else
	 * libipt's decoder fails there, and one that comes from before
	 * finds that out while it finishes the block before the PSB (the
	 * block is lost with the error), where a decode that ends at the
	 * PSB gives that block. */
	uint8_t ok;
	/* The FUP is directly followed (after PSBEND and timing or mode
	 * packets) by TIP.PGE: tracing was re-enabled right after the sync
	 * point, so a decoder coming from before the PSB may well have had
	 * tracing disabled there. */
	uint8_t then_pge;
	/* A second FUP or MODE.Exec before PSBEND (a damaged trace: real
	 * PSB+ have one of each at most): libipt synchronised there takes
	 * the last, where fup_ip and mode are the first's, and one coming
	 * from before may take neither.  No run starts at such a PSB
	 * (psb_clean). */
	uint8_t twice;
};

/* Whether a run may start at the PSB whose PSB+ is @h (struct segent's
 * clean): a FUP (tracing on) not directly followed by TIP.PGE, a header
 * libipt reads, one FUP and MODE.Exec at most. */
static inline uint8_t psb_clean(const struct psbhdr *h)
{
	return h->fup_ip && !h->then_pge && h->ok && !h->twice;
}

static uint64_t fup_ip_of(const struct pt_packet_ip *ip)
{
	uint64_t v;

	switch (ip->ipc) {
	case pt_ipc_update_16:
	case pt_ipc_update_32:
	case pt_ipc_update_48:
	case pt_ipc_full:
		return ip->ip;
	case pt_ipc_sext_48:
		v = ip->ip & ((1ull << 48) - 1);
		if (v & (1ull << 47))
			v |= ~((1ull << 48) - 1);
		return v;
	default:
		return 0;
	}
}

/* A packet decoder over @buf for read_psb_hdr_at(), or NULL. */
static struct pt_packet_decoder *psb_reader(const uint8_t *buf, size_t size)
{
	struct pt_config cfg;

	pt_config_init(&cfg);
	cfg.begin = (uint8_t *)buf;
	cfg.end = (uint8_t *)buf + size;
	return pt_pkt_alloc_decoder(&cfg);
}

/* What the PSB+ at @off says, read with @pd (see psb_reader). */
static void read_psb_hdr_at(struct pt_packet_decoder *pd, uint64_t off, struct psbhdr *h)
{
	int n, guard = 0, after_end = 0;

	memset(h, 0, sizeof(*h));
	if (pt_pkt_sync_set(pd, off) < 0)
		return;
	/* Walk the PSB+ header; the FUP there is the ip where execution
	 * continues (compressed against a last IP of zero).  After PSBEND,
	 * look at the first packet that is not timing or mode. */
	while (guard++ < 64) {
		struct pt_packet pkt;
		uint64_t at = 0;

		pt_pkt_get_offset(pd, &at);
		n = pt_pkt_next(pd, &pkt, sizeof(pkt));
		if (n < 0)
			break;
		if (after_end) {
			switch (pkt.type) {
			case ppt_pad:
			case ppt_tsc:
			case ppt_mtc:
			case ppt_cyc:
			case ppt_cbr:
			case ppt_tma:
			case ppt_mode:
			case ppt_pip:
			case ppt_vmcs:
				continue;
			default:
				h->then_pge = pkt.type == ppt_tip_pge;
				break;
			}
			break;
		}
		if (pkt.type == ppt_psbend) {
			h->ok = 1;
			h->end_off = at + (uint64_t)n;
			if (!h->fup_ip)
				break;
			after_end = 1;
			continue;
		}
		if (guard > 1 && pkt.type == ppt_psb)
			break;
		if (guard > 1 && pkt.type != ppt_pad && pkt.type != ppt_fup && pkt.type != ppt_mode &&
		    pkt.type != ppt_pip && pkt.type != ppt_tsc && pkt.type != ppt_cbr &&
		    pkt.type != ppt_tma && pkt.type != ppt_mtc && pkt.type != ppt_vmcs &&
		    pkt.type != ppt_mnt)
			break;
		if (pkt.type == ppt_mode && pkt.payload.mode.leaf == pt_mol_exec) {
			if (h->mode)
				h->twice = 1;
			else
				h->mode = (uint8_t)pt_get_exec_mode(&pkt.payload.mode.bits.exec);
		}
		if (pkt.type == ppt_fup && h->fup_ip)
			h->twice = 1;
		if (pkt.type == ppt_mode && pkt.payload.mode.leaf == pt_mol_tsx)
			h->tsx = 1;
		if (pkt.type == ppt_fup && !h->fup_ip) {
			h->fup_ip = fup_ip_of(&pkt.payload.ip);
			h->fup_off = at;
			h->fup_len = (uint8_t)n;
		}
	}
}

static int read_psb_hdr(const uint8_t *buf, size_t size, uint64_t off, struct psbhdr *h)
{
	struct pt_packet_decoder *pd = psb_reader(buf, size);

	memset(h, 0, sizeof(*h));
	if (!pd)
		return -ptde_nomem;
	read_psb_hdr_at(pd, off, h);
	pt_pkt_free_decoder(pd);
	return 0;
}

static int read_psb_ip(const uint8_t *buf, size_t size, uint64_t off, uint64_t *ip)
{
	struct psbhdr h;
	int err = read_psb_hdr(buf, size, off, &h);

	*ip = h.fup_ip;
	return err;
}

/* Where libipt synchronises on the PSB at @off: a longer run of PSB
 * pattern pairs is read as one PSB, its last 16 bytes. */
static uint64_t sync_psb(const uint8_t *buf, uint64_t size, uint64_t off)
{
	uint64_t e = off + sizeof(psb_pattern);

	while (e + 2 <= size && buf[e] == 0x02 && buf[e + 1] == 0x82)
		e += 2;
	return e - sizeof(psb_pattern);
}

int ptd_pt_index(const uint8_t *buf, size_t size, uint64_t **offsets, uint64_t **ips, size_t *n)
{
	uint64_t *off = NULL, *ipv = NULL;
	size_t cnt = 0, cap = 0, pos = 0;

	*offsets = NULL;
	if (ips)
		*ips = NULL;
	*n = 0;
	if (!buf)
		size = 0;
	while (pos + sizeof(psb_pattern) <= size) {
		const uint8_t *hit = memmem(buf + pos, size - pos, psb_pattern, sizeof(psb_pattern));

		if (!hit)
			break;
		if (cnt == cap) {
			size_t nc = cap ? cap * 2 : 64;
			uint64_t *p = realloc(off, nc * sizeof(*p));

			if (!p)
				goto nomem;
			off = p;
			if (ips) {
				p = realloc(ipv, nc * sizeof(*p));
				if (!p)
					goto nomem;
				ipv = p;
			}
			cap = nc;
		}
		off[cnt] = (uint64_t)(hit - buf);
		if (ips && read_psb_ip(buf, size, off[cnt], &ipv[cnt]) < 0)
			goto nomem;
		cnt++;
		pos = (size_t)(hit - buf) + sizeof(psb_pattern);
	}
	if (cnt) {
		/* The first PSB is where libipt synchronises (sync_psb): PSBs
		 * found before it inside the same run go. */
		uint64_t want = sync_psb(buf, size, off[0]);
		size_t k = 0;

		while (k + 1 < cnt && off[k + 1] <= want)
			k++;
		if (k) {
			memmove(off, off + k, (cnt - k) * sizeof(*off));
			if (ips)
				memmove(ipv, ipv + k, (cnt - k) * sizeof(*ipv));
			cnt -= k;
		}
		if (off[0] != want) {
			off[0] = want;
			if (ips && read_psb_ip(buf, size, off[0], &ipv[0]) < 0)
				goto nomem;
		}
	}
	*offsets = off;
	if (ips)
		*ips = ipv;
	*n = cnt;
	return 0;
nomem:
	free(off);
	free(ipv);
	return ptd__err(-ptde_nomem, "out of memory indexing %zu bytes of PT", size);
}

/* ---- one segment -------------------------------------------------------- */

/* end ip -> class of the instruction there, for blocks libipt returns
 * without a class (its block cache does that); saves a read and a
 * disassembly per block.  Direct mapped; key 0 is empty. */
#define ICC_SIZE 4096
struct iccache {
	uint64_t key[ICC_SIZE];
	uint8_t cls[ICC_SIZE];
	/* The fast path's caches for the same thread (fastpt.h), made on
	 * first use. */
	struct ptd_fastpt *fp;
};

static void icc_free(struct iccache *icc)
{
	if (icc)
		ptd_fastpt_free(icc->fp);
	free(icc);
}

#define QN 64

/*
 * The decoder state a run of segments inherits from the decode of the
 * bytes before it, so that decoding from a PSB in the middle gives what one
 * continuous libipt decode of the whole stream gives there.  A decoder
 * synced at a PSB takes tracing as enabled when the PSB+ has a FUP; a
 * continuous decoder that saw tracing disabled before ignores that FUP and
 * waits for TIP.PGE.  Whether tracing comes back where it stopped (libipt's
 * "resumed", gdb's gap rule) and where an asynchronous exit happened need
 * the ip from before the PSB too.
 */
enum carry_kind {
	CARRY_FRESH, /* as libipt syncing at the PSB (the trace start, after an error) */
	CARRY_STATE, /* the fields below */
};

struct carry {
	uint8_t kind;
	uint8_t enabled;   /* tracing enabled at the PSB */
	uint8_t have_item; /* the history has an item before it (gdb's gap rule) */
	uint8_t off_async; /* disabled asynchronously at async_at */
	uint8_t dis_known; /* dis_ip: where the decoder was when tracing stopped */
	/* libipt's execution mode (enum pt_exec_mode; ptem_unknown: none).
	 * A decoder synced at a PSB has none until its PSB+'s MODE.Exec;
	 * the continuous one keeps its own, checks the PSB+'s against it
	 * while tracing is on (-pte_bad_status_update) and keeps it where
	 * the PSB+ has no MODE.Exec. */
	uint8_t mode;
	/* Tracing on at the end, but the linear code after the last packet
	 * did not reach the ip the next PSB+ gives, or the packets end with
	 * a FUP that waits for its TIP (fup_waits): where the continuous
	 * decoder is then, only decoding on tells (start_exact). */
	uint8_t uncut;
	/* libipt's "speculative" (in a transaction, MODE.TSX): kept where
	 * the PSB+ has no MODE.TSX, as the mode. */
	uint8_t spec;
	uint64_t async_at, dis_ip;
	/* Output only: PTD_BLK_* flags the run learnt for the last block
	 * before it (ptd_history_flag_last). */
	uint8_t head_flags;
	/* A MODE.Exec read before the PSB that still waits for the TIP it
	 * binds to (enum pt_exec_mode; ptem_unknown: none): see
	 * trailing_exec.  The continuous decoder holds it across the PSB+
	 * and applies it at the next TIP, TIP.PGE or TIP.PGD. */
	uint8_t pend_exec;
	/* CARRY_FRESH after an error the run could not resynchronise from
	 * before its end: the continuous decoder found that error where it
	 * was, maybe past the PSB (it reads ahead), and synchronises again
	 * from there, maybe past this PSB too; only decoding on tells. */
	uint8_t errend;
};

/*
 * A run whose carried state a decoder synchronised at its PSB cannot take
 * (start_exact) is decoded as the continuation of the runs before it: one
 * libipt decoder from the PSB at @begin (where one synchronised afresh
 * with state @in is the continuous one) to the run's end, its first
 * @drop numbers (instructions and gaps) and @drop_ev events dropped (the
 * runs before have them).
 */
struct ext {
	int set;
	uint64_t begin, drop, drop_ev;
	struct carry in;
};

struct seg {
	const uint8_t *buf;
	struct iccache *icc;
	uint64_t begin, end; /* the PSB and the end of this segment's bytes */
	uint64_t cut_ip;     /* next segment's start ip (0: none) */
	/* The trace goes on at end with a PSB (else the trace ends there):
	 * the continuous decoder reads on into it (see trailing_exec). */
	int end_psb;
	/* end is the end of a whole trace that nothing follows and no stop
	 * pc cuts (a loaded trace without a tail pc): the continuous
	 * decoder ends there too, so an error in the linear code after the
	 * last packet is its error, a gap (see decode_segment). */
	int whole_end;
	struct ptd_image *img;
	struct pt_image *ptimg;
	const struct ptd_pt_sink *sink;
	struct ptd_pt_stats *st;

	/* Blocks not yet passed to the sink, delivered in bulk; the last
	 * one is still pending (later events may flag it). */
	struct ptd_block q[QN];
	size_t nq;
	int depth;

	/* Tracing was disabled: async at async_at, or by a far branch. */
	int off_async, off_far;
	uint64_t async_at;

	/* Tracing enabled elsewhere than where it stopped makes a gap. */
	int disabled_gaps;
	/* Counting only (lazy history): blocks are counted, not queued. */
	struct counter *cnt;

	/* Stuck detection (see STUCK_LIMIT). */
	unsigned nblk;
	uint64_t last_pos;
	int stuck, stuck_err;

	/* Blocks decoded after the trace ran out (pts_eos), held back until
	 * the cut at cut_ip is known. */
	int eos;
	int cut_found; /* finish_tail found cut_ip in the tail */
	struct ptd_block *tail;
	size_t ntail, captail;

	/* Carried state: what this run starts from and ends in. */
	struct carry in, out;
	int enabled;	 /* tracing enabled now */
	int in_disabled; /* started with tracing disabled by the carry */
	int seen_dis;	 /* libipt saw tracing stop in this run */
	int dis_known;
	uint64_t dis_ip;
	/* The block tracing stopped after, when dis_ip is still to be
	 * worked out from it (only a run's end needs it). */
	int dis_from_blk;
	struct ptd_block dis_blk;
	uint64_t obase;	    /* offset of the decoder's buffer in the trace */
	unsigned nev;	    /* events passed to the sink */
	uint8_t head_flags; /* see struct carry */
	/* libipt's execution mode now (see struct carry); the first
	 * PSB+'s MODE.Exec is still to be checked against in.mode. */
	int mode, mode_check, spec;
	/* A part of a run (fast_run): the pending block stays queued for
	 * what follows. */
	int more;
	/* libipt applied a MODE.Exec at a TIP (or resynchronised): the
	 * carried pend_exec is used up. */
	int exec_taken;
};

static int insn_at(struct ptd_image *img, uint64_t ip, unsigned mode, struct ptd_insn_info *in)
{
	uint8_t b[16];
	int n = ptd_image_read(img, ip, b, sizeof(b));

	if (n <= 0)
		return -ptde_nomap;
	return ptd_disasm_decode_mode(b, (size_t)n, ip, mode, in);
}

/* libipt's execution mode -> block flags (unknown: 64-bit). */
static inline uint8_t mode_flags(enum pt_exec_mode m)
{
	return m == ptem_32bit ? PTD_BLK_MODE32 : m == ptem_16bit ? PTD_BLK_MODE16 : 0;
}

/* Counting state of one segment: the items a history would get,
 * including its merging of a block into the one before when that one
 * ends without a control transfer and this one continues it (libipt's
 * block cache splits blocks differently from one decode to the next;
 * merged, the items are the same every time). */
struct counter {
	struct ptd_image *img;
	uint64_t *nitems;
	void *seg; /* struct part: gap details go there */
	int have_last;
	struct ptd_block last;
	/* The call log of the counted items (lazy parts), or NULL. */
	struct ptd_calllog *log;
};

static int continues(struct counter *c, const struct ptd_block *b)
{
	const struct ptd_block *p = &c->last;
	struct ptd_insn_info in;

	if (!c->have_last || p->iclass != PTD_IC_OTHER ||
	    (p->flags & (PTD_BLK_INTERRUPTED | PTD_BLK_SYSCALL)) ||
	    ((p->flags ^ b->flags) & PTD_BLK_UNCERTAIN))
		return 0;
	if (b->ip <= p->end_ip || b->ip > p->end_ip + 15 ||
	    ((p->flags ^ b->flags) & (PTD_BLK_MODE32 | PTD_BLK_MODE16)) ||
	    (uint64_t)p->ninsn + b->ninsn > 0xffffffffull)
		return 0;
	return insn_at(c->img, p->end_ip, ptd_block_mode(p), &in) == 0 &&
	       p->end_ip + in.len == b->ip;
}

/* cnt_block without the call log (the caller logged @b). */
static inline int cnt_block_nolog(struct counter *c, const struct ptd_block *b)
{
	if (c->have_last && c->last.iclass == PTD_IC_OTHER && continues(c, b)) {
		c->last.end_ip = b->end_ip;
		c->last.ninsn += b->ninsn;
		c->last.iclass = b->iclass;
		c->last.flags = b->flags;
		return 0;
	}
	(*c->nitems)++;
	c->last = *b;
	c->have_last = 1;
	return 0;
}

static inline int cnt_block(void *ctx, const struct ptd_block *b)
{
	struct counter *c = ctx;

	if (c->log)
		ptd__calllog_block(c->log, b);
	return cnt_block_nolog(c, b);
}


/* The pending block (the newest not yet delivered), or NULL. */
static inline struct ptd_block *pend_of(struct seg *s)
{
	if (s->cnt)
		return s->cnt->have_last ? &s->cnt->last : NULL;
	return s->nq ? &s->q[s->nq - 1] : NULL;
}

/* Flags the pending block; before this run's first item, the last block
 * of the run before it (struct carry's head_flags). */
static void flag_pend(struct seg *s, uint8_t flags, int far_only)
{
	struct ptd_block *p = pend_of(s);

	if (p) {
		if (!far_only || p->iclass == PTD_IC_FAR_CALL) {
			p->flags |= flags;
			/* the counted block is in the call log already */
			if (s->cnt && s->cnt->log)
				ptd__calllog_flag_last(s->cnt->log, flags);
		}
	} else if (s->in.kind == CARRY_STATE && !s->st->nblocks && !s->st->ngaps && !s->nev &&
		   !s->ntail) {
		s->head_flags |= flags;
	}
}

static inline void account(struct seg *s, const struct ptd_block *b)
{
	s->st->ninsn += b->ninsn;
	s->st->nblocks++;
	if (!s->st->start_ip)
		s->st->start_ip = b->ip;
	if (b->iclass == PTD_IC_CALL)
		s->depth++;
	else if (b->iclass == PTD_IC_RET)
		s->depth--;
	if (s->depth < s->st->depth_min)
		s->st->depth_min = s->depth;
	s->st->depth_delta = s->depth;
}

/* Passes every queued block, the pending one included, to the sink. */
static int flush_pend(struct seg *s)
{
	size_t i, n = s->nq;
	int err = 0;

	s->nq = 0;
	if (!n)
		return 0;
	if (s->sink->blocks)
		err = s->sink->blocks(s->sink->ctx, s->q, n);
	else
		for (i = 0; i < n && err >= 0; i++)
			err = s->sink->block(s->sink->ctx, &s->q[i]);
	return err < 0 ? err : 0;
}

/* Makes @b the pending block; the one before becomes final. */
static int set_pend(struct seg *s, const struct ptd_block *b)
{
	if (s->cnt) {
		account(s, b);
		return cnt_block(s->cnt, b);
	}
	if (s->nq == QN) {
		int err = flush_pend(s);

		if (err < 0)
			return err;
	}
	s->q[s->nq++] = *b;
	account(s, b);
	return 0;
}

static int push_block(struct seg *s, const struct ptd_block *b)
{
	if (s->eos && s->cut_ip) {
		if (s->ntail == s->captail) {
			size_t nc = s->captail ? s->captail * 2 : 16;
			struct ptd_block *p = realloc(s->tail, nc * sizeof(*p));

			if (!p)
				return ptd__err(-ptde_nomem, "out of memory decoding PT");
			s->tail = p;
			s->captail = nc;
		}
		s->tail[s->ntail++] = *b;
		return 0;
	}
	return set_pend(s, b);
}

static int emit_gap(struct seg *s, enum ptd_gap_reason r, uint64_t off, const char *detail)
{
	int err = flush_pend(s);

	if (err < 0)
		return err;
	s->st->ngaps++;
	if (r == PTD_GAP_DECODE_ERROR && off == (uint64_t)(int64_t)-pte_retstack_empty)
		s->st->nretstack++;
	err = s->sink->gap(s->sink->ctx, r, off, detail);
	return err < 0 ? err : 0;
}

static int emit_event(struct seg *s, enum ptd_event_kind k, uint64_t ip, uint64_t arg)
{
	int err = flush_pend(s);

	if (err < 0)
		return err;
	s->nev++;
	s->st->nevents++;
	err = s->sink->event ? s->sink->event(s->sink->ctx, k, ip, arg) : 0;
	return err < 0 ? err : 0;
}

/* libipt instruction class -> ptd_iclass (ptic_error: look it up). */
static const uint8_t conv_iclass[] = {
	[ptic_other] = PTD_IC_OTHER,
	[ptic_call] = PTD_IC_CALL,
	[ptic_return] = PTD_IC_RET,
	[ptic_jump] = PTD_IC_JUMP,
	[ptic_cond_jump] = PTD_IC_COND_JUMP,
	[ptic_far_call] = PTD_IC_FAR_CALL,
	[ptic_far_return] = PTD_IC_FAR_RET,
	[ptic_far_jump] = PTD_IC_FAR_JUMP,
	[ptic_ptwrite] = PTD_IC_OTHER,
};

/* Class of the instruction at @ip, for blocks libipt returns without one
 * (its block cache does that). */
static uint8_t class_at(struct seg *s, uint64_t ip, unsigned mode)
{
	size_t slot = (size_t)((ip ^ (ip >> 12)) & (ICC_SIZE - 1));
	struct ptd_insn_info in;
	uint8_t cls;

	if (s->icc && s->icc->key[slot] == ip && !mode)
		return s->icc->cls[slot];
	cls = insn_at(s->img, ip, mode, &in) == 0 ? in.iclass : PTD_IC_OTHER;
	if (s->icc && !mode) { /* (64-bit code only: the key has no mode) */
		s->icc->key[slot] = ip;
		s->icc->cls[slot] = cls;
	}
	return cls;
}

/* Takes libipt's block: the hot path, one call per block. */
static inline int take_block(struct seg *s, const struct pt_block *pb)
{
	struct ptd_block *b, local;
	unsigned c = (unsigned)pb->iclass;

	if (!pb->ninsn || pb->end_ip < pb->ip)
		return 0; /* the latter cannot happen with end_on_jump/call; never trust it */
	if ((s->eos && s->cut_ip) || s->cnt) {
		b = &local;
	} else {
		if (s->nq == QN) {
			int err = flush_pend(s);

			if (err < 0)
				return err;
		}
		b = &s->q[s->nq];
	}
	b->ip = pb->ip;
	b->end_ip = pb->end_ip;
	b->ninsn = pb->ninsn;
	b->flags = (uint8_t)((pb->speculative ? PTD_BLK_UNCERTAIN : 0) | mode_flags(pb->mode));
	b->iclass = c < sizeof(conv_iclass) && c != ptic_error
			    ? conv_iclass[c]
			    : class_at(s, pb->end_ip, ptd_block_mode(b));
	if (b == &local)
		return push_block(s, b);
	s->nq++;
	account(s, b);
	return 0;
}

static int on_enabled(struct seg *s, uint64_t ip)
{
	int err = 0;

	if (s->off_async && ip != s->async_at) {
		/* Resumed elsewhere after an asynchronous exit: a signal
		 * handler (user-only tracing cannot tell which signal). */
		flag_pend(s, PTD_BLK_INTERRUPTED, 0);
		err = emit_event(s, PTD_EV_SIGNAL, s->async_at, 0);
	}
	s->off_async = 0;
	s->off_far = 0;
	s->st->end_ip = 0;
	return err;
}

static inline int have_item(const struct seg *s)
{
	return s->in.have_item || s->st->nblocks || s->st->ngaps;
}

/*
 * Where libipt's decoder is when tracing stops after block @p, which
 * decides whether a later TIP.PGE "resumes": past a direct branch at its
 * target (libipt follows it), past anything else at the next instruction.
 */
static void disabled_at(struct seg *s, const struct ptd_block *p)
{
	struct ptd_insn_info in;

	s->dis_known = 0;
	if (insn_at(s->img, p->end_ip, ptd_block_mode(p), &in) == 0) {
		s->dis_known = 1;
		if ((in.iclass == PTD_IC_CALL || in.iclass == PTD_IC_JUMP) &&
		    !(in.flags & PTD_INSN_INDIRECT))
			s->dis_ip = in.target;
		else
			s->dis_ip = p->end_ip + in.len;
	}
}

static int handle_event(struct seg *s, struct pt_block_decoder *dec, const struct pt_event *ev)
{
	uint64_t off = 0;
	char msg[128];

	switch (ev->type) {
	case ptev_enabled: {
		int resumed = ev->variant.enabled.resumed;
		int err;

		/* libipt synced at a PSB with tracing disabled does not know
		 * where it stopped; the carry does. */
		if (s->in_disabled && !s->seen_dis)
			resumed = s->in.dis_known && s->in.dis_ip == ev->variant.enabled.ip;
		err = on_enabled(s, ev->variant.enabled.ip);
		s->enabled = 1;
		s->seen_dis = 1;
		/* As gdb's btrace: tracing that comes back somewhere else
		 * than where it stopped (a signal handler, sigreturn, exec
		 * with user-only tracing) leaves a "disabled" gap, except
		 * before the first item of the whole history and for PSB+
		 * status updates. */
		if (!err && s->disabled_gaps && !ev->status_update && !resumed && have_item(s))
			err = emit_gap(s, PTD_GAP_DISABLED, 0, NULL);
		return err;
	}
	case ptev_disabled:
		/* A far branch (syscall) left user mode. */
		flag_pend(s, PTD_BLK_SYSCALL, 1);
		s->off_far = 1;
		s->enabled = 0;
		s->seen_dis = 1;
		/* Worked out at the end of the run if still needed. */
		s->dis_known = 0;
		s->dis_from_blk = pend_of(s) != NULL;
		if (s->dis_from_blk)
			s->dis_blk = *pend_of(s);
		return 0;
	case ptev_async_disabled:
		s->off_async = 1;
		s->async_at = ev->variant.async_disabled.at;
		s->st->end_ip = s->async_at;
		s->enabled = 0;
		s->seen_dis = 1;
		s->dis_ip = s->async_at;
		s->dis_known = 1;
		s->dis_from_blk = 0;
		return 0;
	case ptev_overflow:
		pt_blk_get_offset(dec, &off);
		off += s->obase;
		snprintf(msg, sizeof(msg), "trace overflow at offset 0x%" PRIx64, off);
		s->off_async = 0;
		s->enabled = !ev->ip_suppressed;
		s->seen_dis = 1;
		s->dis_known = 0;
		s->dis_from_blk = 0;
		return emit_gap(s, PTD_GAP_OVERFLOW, off, msg);
	case ptev_async_branch:
		flag_pend(s, PTD_BLK_INTERRUPTED, 0);
		return 0;
	case ptev_tsx:
		return 0;
	default:
		/* exec mode, paging, vmcs, stop, timing: nothing in the history */
		return 0;
	}
}

/* Cuts the held-back tail at the last occurrence of cut_ip and delivers the
 * part before it: that is where the next segment's PSB+ says execution
 * continued. */
static int finish_tail(struct seg *s)
{
	size_t i, keep = s->ntail;
	uint32_t keep_insn = 0;
	int found = 0, err;

	for (i = s->ntail; i-- > 0 && !found;) {
		const struct ptd_block *b = &s->tail[i];
		uint64_t ip = b->ip;
		uint32_t k, last = UINT32_MAX;

		for (k = 0; k < b->ninsn; k++) {
			struct ptd_insn_info in;

			if (ip == s->cut_ip)
				last = k;
			if (k + 1 == b->ninsn)
				break;
			if (insn_at(s->img, ip, ptd_block_mode(b), &in) < 0)
				break;
			ip += in.len;
		}
		if (last != UINT32_MAX) {
			keep = i;
			keep_insn = last;
			found = 1;
		}
	}
	s->cut_found = found;
	if (!found)
		keep = s->ntail;
	for (i = 0; i < keep; i++) {
		err = set_pend(s, &s->tail[i]);
		if (err < 0)
			return err;
	}
	if (found && keep_insn > 0) {
		struct ptd_block b = s->tail[keep];
		uint64_t ip = b.ip;
		uint32_t k;

		for (k = 0; k + 1 < keep_insn; k++) {
			struct ptd_insn_info in;

			if (insn_at(s->img, ip, ptd_block_mode(&b), &in) < 0)
				return 0;
			ip += in.len;
		}
		{
			struct ptd_insn_info in;

			if (insn_at(s->img, ip, ptd_block_mode(&b), &in) < 0)
				return 0;
			b.end_ip = ip;
			b.ninsn = keep_insn;
			b.iclass = in.iclass;
			b.flags &= PTD_BLK_MODE32 | PTD_BLK_MODE16;
		}
		err = set_pend(s, &b);
		if (err < 0)
			return err;
	}
	s->ntail = 0;
	return 0;
}

#define STUCK_LIMIT (1 << 20)
#define STUCK_EVERY 64

/* Damaged trace can send the decoder into an endless direct-branch loop
 * that consumes no trace; libipt would follow it forever.  Checked every
 * STUCK_EVERY blocks: the offset query is not free.  Returns the status,
 * -pte_internal when stuck. */
static inline int check_stuck(struct seg *s, struct pt_block_decoder *dec, int status)
{
	uint64_t pos = 0;

	if (++s->nblk % STUCK_EVERY)
		return status;
	pt_blk_get_offset(dec, &pos);
	if (pos != s->last_pos) {
		s->last_pos = pos;
		s->stuck = 0;
	} else if ((s->stuck += STUCK_EVERY) > STUCK_LIMIT) {
		s->stuck_err = 1;
		return -pte_internal;
	}
	return status;
}

/*
 * The hot loop: blocks while no event is pending and the trace has not run
 * out, straight into the queue, with the counters in locals.  Does what the
 * general loop in decode_segment does for such blocks; returns libipt's
 * status after the last block, or a sink error.
 */
static int fast_blocks(struct seg *s, struct pt_block_decoder *dec, int *pstatus)
{
	struct ptd_pt_stats *st = s->st;
	uint64_t ninsn = 0, nblocks = 0, first_ip = 0;
	int depth = s->depth, dmin = st->depth_min, status = *pstatus, err = 0;

	for (;;) {
		struct pt_block pb;

		if (s->nq == QN) {
			err = flush_pend(s);
			if (err < 0)
				break;
		}
		pb.ninsn = 0; /* libipt fills the rest */
		status = pt_blk_next(dec, &pb, sizeof(pb));
		if (pb.ninsn && pb.end_ip >= pb.ip && s->cnt) {
			struct ptd_block cb;
			unsigned c = (unsigned)pb.iclass;

			cb.ip = pb.ip;
			cb.end_ip = pb.end_ip;
			cb.ninsn = pb.ninsn;
			cb.flags = (uint8_t)((pb.speculative ? PTD_BLK_UNCERTAIN : 0) |
					     mode_flags(pb.mode));
			cb.iclass = c < sizeof(conv_iclass) && c != ptic_error
					    ? conv_iclass[c]
					    : class_at(s, pb.end_ip, ptd_block_mode(&cb));
			cnt_block(s->cnt, &cb);
			if (!first_ip)
				first_ip = pb.ip;
			ninsn += pb.ninsn;
			nblocks++;
			depth += (cb.iclass == PTD_IC_CALL) - (cb.iclass == PTD_IC_RET);
			if (depth < dmin)
				dmin = depth;
		} else if (pb.ninsn && pb.end_ip >= pb.ip) {
			struct ptd_block *b = &s->q[s->nq++];
			unsigned c = (unsigned)pb.iclass;
			uint8_t mf = mode_flags(pb.mode);
			uint8_t cls = c < sizeof(conv_iclass) && c != ptic_error
					      ? conv_iclass[c]
					      : class_at(s, pb.end_ip, mf >> PTD_BLK_MODE_SHIFT);

			b->ip = pb.ip;
			b->end_ip = pb.end_ip;
			b->ninsn = pb.ninsn;
			b->iclass = cls;
			b->flags = (uint8_t)((pb.speculative ? PTD_BLK_UNCERTAIN : 0) | mf);
			if (!first_ip)
				first_ip = pb.ip;
			ninsn += pb.ninsn;
			nblocks++;
			depth += (cls == PTD_IC_CALL) - (cls == PTD_IC_RET);
			if (depth < dmin)
				dmin = depth;
		}
		status = check_stuck(s, dec, status);
		if (status < 0 || (status & (pts_event_pending | pts_eos)))
			break;
	}
	st->ninsn += ninsn;
	st->nblocks += nblocks;
	if (!st->start_ip)
		st->start_ip = first_ip;
	s->depth = depth;
	st->depth_min = dmin;
	st->depth_delta = depth;
	if (err < 0)
		return err;
	if (status >= 0 && (status & pts_eos))
		s->eos = 1;
	*pstatus = status;
	return 0;
}

/*
 * MODE.Exec packets that end a decode's buffer.  libipt takes a MODE.Exec
 * in as it reads ahead and holds it for the TIP it binds to; when its
 * buffer ends right there (only PAD, timing, PIP or VMCS packets after
 * it), its decoder fails with the end of the trace and loses the event or
 * the block it was about to give (a system call's or an asynchronous
 * disable, the last block with tracing on).  A continuous decoder reads
 * on into the next PSB+ and gives them, then applies the MODE.Exec at the
 * next TIP after the PSB+.  So a run that ends at a PSB decodes a copy
 * with such packets turned into PADs, and carries their mode (struct
 * carry's pend_exec) to the run after it, which puts one MODE.Exec of
 * that mode right after its PSB+ (where it binds to the same TIP).
 *
 * Walks the packets of the last PSB segment of [@begin, @end) of @buf;
 * fills @off with the offsets of those MODE.Exec packets (at most @max;
 * more: none are taken) and returns how many, with the last one's mode in
 * *@mode.  0 when there are none or the packets do not end exactly at
 * @end (damaged trace: left as it is).  With @since, *@since gets where
 * the packets that end the buffer and give libipt nothing to report
 * (MODE.Exec, PAD, timing, PIP, VMCS) start (@end when unknown).  With
 * @fup, *@fup gets what may_trail_exec found of a FUP in that segment
 * when it walked it, else -2 (the walk is fup_waits's too).
 */
static int64_t find_psb_back(const uint8_t *buf, uint64_t limit);

/*
 * Length of the packet at @p (@left bytes readable) as the SDM gives it,
 * for the packets a trace commonly holds; 0 for any other (or cut short).
 */
static size_t pkt_len(const uint8_t *p, size_t left)
{
	static const uint8_t ipn[8] = { 0, 2, 4, 6, 6, 0xff, 8, 0xff };
	uint8_t b = p[0];
	size_t k;

	if (!b)
		return 1; /* PAD */
	switch (b & 0x1f) {
	case 0x01: /* TIP.PGD */
	case 0x0d: /* TIP */
	case 0x11: /* TIP.PGE */
	case 0x1d: /* FUP */
		k = ipn[b >> 5];
		return k != 0xff && left >= k + 1 ? k + 1 : 0;
	}
	if ((b & 3) == 3) { /* CYC */
		if (!(b & 4))
			return 1;
		for (k = 1; k < left && (p[k] & 1); k++)
			;
		return k < left ? k + 1 : 0;
	}
	if (b == 0x19)
		return left >= 8 ? 8 : 0; /* TSC */
	if (b == 0x59 || b == 0x99)
		return left >= 2 ? 2 : 0; /* MTC, MODE */
	if (b != 0x02)
		return (b & 1) ? 0 : 1; /* TNT-8 */
	if (left < 2)
		return 0;
	switch (p[1]) {
	case 0x23: /* PSBEND */
	case 0xf3: /* OVF */
		return 2;
	case 0x03: /* CBR */
		k = 4;
		break;
	case 0x73: /* TMA */
	case 0xc8: /* VMCS */
		k = 7;
		break;
	case 0xa3: /* TNT-64 */
	case 0x43: /* PIP */
		k = 8;
		break;
	case 0x82: /* PSB */
		k = 16;
		break;
	default:
		return 0;
	}
	return left >= k ? k : 0;
}

/* Whether libipt's decoder for @img's cpu reads ahead after an OVF for
 * whether and where tracing resumed (its workarounds for SKD010, APL11
 * and APL12): see may_trail_exec's @ovf_scan. */
static int ovf_scans(const struct ptd_image *img)
{
	struct pt_errata e;

	ptd_image_errata(img, &e);
	return e.skd010 || e.apl11 || e.apl12;
}

/*
 * 0 when the packets from the PSB at @from end exactly at @end and no
 * MODE.Exec is among the last ones that give libipt nothing to report (as
 * trailing_exec reads them); 1 when there may be (or a packet pkt_len
 * does not know).  With @fup, *@fup gets what fup_waits asks of these
 * packets: 1 when a FUP that binds to a TIP (no OVF or MODE.TSX before it
 * takes it) is among them outside PSB+ headers and no TIP, TIP.PGE,
 * TIP.PGD or OVF comes after it (libipt queues its asynchronous branch
 * until the next TIP; TNT, MODE and the rest leave it queued, and so does
 * a PSB+), 0 when one of those comes after the last such FUP or there is
 * no FUP but one of those, -1 when there is none of them, -3 when a
 * packet pkt_len does not know (or one cut by @end) comes first.  With
 * @ovf_scan (libipt's workarounds for SKD010, APL11 or APL12
 * are on: after an OVF it reads ahead for whether and where tracing
 * resumed) an OVF, or an OVF and its FUP, among those last packets is 1
 * too: that decoder reads on past @end.
 */
static int may_trail_exec(const uint8_t *buf, uint64_t from, uint64_t end, int *fup,
			  int ovf_scan)
{
	const uint8_t *p = buf + from, *e = buf + end;
	int in_hdr = 0, n = 0, st = -1, binds = 0, ovf_open = 0;

	while (p < e) {
		size_t k = pkt_len(p, (size_t)(e - p));

		if (!k) {
			if (fup)
				*fup = -3;
			return 1;
		}
		if (p[0] == 0x02 && p[1] == 0x82) {
			in_hdr = 1;
			n = 0;
		} else if (p[0] == 0x02 && p[1] == 0x23) {
			in_hdr = 0;
			n = 0;
		} else if (!in_hdr) {
			if (p[0] == 0x99 && (p[1] >> 5) == 0) {
				n++; /* MODE.Exec */
			} else if (p[0] && (p[0] & 3) != 3 && p[0] != 0x19 && p[0] != 0x59 &&
				   !(p[0] == 0x02 && (p[1] == 0x03 || p[1] == 0x43 || p[1] == 0x73 ||
						      p[1] == 0xc8))) {
				/* (not PAD, timing, CBR, TMA, PIP, VMCS) */
				int ovf = p[0] == 0x02 && p[1] == 0xf3;
				int tip = (p[0] & 0x1f) == 0x0d || (p[0] & 0x1f) == 0x11 ||
					  (p[0] & 0x1f) == 0x01;

				n = 0;
				if ((p[0] & 0x1f) == 0x1d) { /* FUP */
					if (!binds)
						st = 1;
					/* (an overflow's FUP: APL12's libipt reads
					 * on past it) */
					ovf_open = ovf_open && binds;
					binds = 0;
				} else {
					/* (a TIP, TIP.PGE or TIP.PGD takes a
					 * waiting FUP's branch, or fails on it; an
					 * OVF drops it; a TNT or MODE.TSX leaves
					 * it waiting) */
					if (ovf || tip)
						st = 0;
					/* OVF, MODE.TSX: the next FUP is theirs */
					binds = ovf || p[0] == 0x99;
					ovf_open = ovf_scan && ovf;
				}
			}
		}
		p += k;
	}
	if (fup)
		*fup = ovf_open ? 1 : st;
	return n != 0; /* (still in a PSB+: none, as trailing_exec) */
}

static size_t trailing_exec(const uint8_t *buf, uint64_t begin, uint64_t end, uint64_t *off,
			    size_t max, uint8_t *mode, uint64_t *since, int *fup, int ovf_scan)
{
	struct pt_packet_decoder *pd;
	struct pt_config cfg;
	int64_t from = find_psb_back(buf, end);
	uint64_t at, start;
	size_t n = 0;
	int in_hdr = 0, ok = 0;

	*mode = ptem_unknown;
	if (since)
		*since = end;
	if (fup)
		*fup = -2; /* (not walked) */
	if (from < 0 || (uint64_t)from < begin)
		from = (int64_t)begin;
	/* (cheap test first: a MODE packet is 0x99 and its payload; then a
	 * walk over the packet lengths, without libipt's decoder, that
	 * says there is none at the end; libipt's walk judges the rest) */
	if (!since && (!memchr(buf + from, 0x99, end - (uint64_t)from) ||
		       !may_trail_exec(buf, (uint64_t)from, end, fup, ovf_scan)))
		return 0;
	pt_config_init(&cfg);
	cfg.begin = (uint8_t *)buf;
	cfg.end = (uint8_t *)buf + end;
	pd = pt_pkt_alloc_decoder(&cfg);
	if (!pd || pt_pkt_sync_set(pd, (uint64_t)from) < 0) {
		pt_pkt_free_decoder(pd);
		return 0;
	}
	for (at = (uint64_t)from, start = at; at < end;) {
		struct pt_packet pkt;

		if (pt_pkt_next(pd, &pkt, sizeof(pkt)) < 0 || pt_pkt_get_offset(pd, &at) < 0)
			break;
		if (pkt.type == ppt_psb) {
			in_hdr = 1;
			n = 0;
			start = at;
			continue;
		}
		if (pkt.type == ppt_psbend) {
			in_hdr = 0;
			n = 0;
			start = at;
			continue;
		}
		if (in_hdr) {
			start = at;
			continue;
		}
		switch (pkt.type) {
		case ppt_mode:
			if (pkt.payload.mode.leaf != pt_mol_exec) {
				n = 0; /* (MODE.TSX: not taken) */
				start = at;
				break;
			}
			if (n < max)
				off[n] = at - 2; /* (a MODE packet is 2 bytes) */
			n++;
			*mode = (uint8_t)pt_get_exec_mode(&pkt.payload.mode.bits.exec);
			break;
		case ppt_pad:
		case ppt_tsc:
		case ppt_mtc:
		case ppt_cyc:
		case ppt_cbr:
		case ppt_tma:
		case ppt_pip:
		case ppt_vmcs:
			break;
		default:
			n = 0;
			start = at;
			break;
		}
		ok = at == end;
	}
	pt_pkt_free_decoder(pd);
	if (!ok || in_hdr)
		return 0;
	if (since)
		*since = start;
	return n > max ? 0 : n;
}

/* How far back (trace bytes) fup_waits looks for a FUP still waiting for
 * its TIP, through segments of TNT and other packets that leave it
 * waiting (a loop of conditional branches): farther, it answers 0. */
#define FUP_WAIT_BACK (1u << 20)

/*
 * Does a FUP that binds to a TIP (an asynchronous branch or disable: no
 * OVF or MODE.TSX before it takes it) still wait at @end (a PSB) for that
 * TIP: no TIP, TIP.PGE, TIP.PGD or OVF after it?  libipt queues the FUP's
 * branch until the next TIP, across TNT packets and PSB+ (only a damaged
 * trace has more than timing and mode packets between them).  The
 * continuous decoder then reads on past that PSB, through its PSB+ and
 * any after it, up to that TIP before it gives what comes before the PSB
 * (and takes those PSB+'s status updates from where it was), and binds
 * the TIP to the FUP: a run that ends at the PSB runs out of bytes there,
 * one that starts there, without the FUP, takes the TIP for a branch of
 * its own.  Only decoding on tells.  Walks the packets from the last PSB
 * before @end (@last: what trailing_exec's walk found there, -2: not
 * walked), and from the one before that while a segment has none of
 * those packets, back to @begin (at most FUP_WAIT_BACK); 0 when unsure (a
 * packet pkt_len does not know).
 */
static int fup_waits(const uint8_t *buf, uint64_t begin, uint64_t end, int last, int ovf_scan)
{
	if (end > FUP_WAIT_BACK && begin < end - FUP_WAIT_BACK)
		begin = end - FUP_WAIT_BACK;
	while (end > begin) {
		int64_t q = find_psb_back(buf, end);
		int st = last;

		if (q < 0 || (uint64_t)q < begin)
			q = (int64_t)begin;
		if (st == -2)
			may_trail_exec(buf, (uint64_t)q, end, &st, ovf_scan);
		if (st >= 0 || st == -3)
			return st == 1;
		last = -2;
		end = (uint64_t)q;
	}
	return 0;
}

/*
 * Is tracing on, as libipt's decoder sees it, after the packets before
 * @end (a PSB)?  The last TIP.PGE, PSB+ with a FUP, or OVF and its FUP
 * says on; the last TIP.PGD, or OVF without a FUP, off; a PSB+ without a
 * FUP leaves it as it was (libipt disables nothing there).  Walks back
 * segment by segment while one says nothing (at most FUP_WAIT_BACK); 0
 * when unsure (a packet pkt_len does not know, nothing said).
 */
static int trace_on_at(const uint8_t *buf, uint64_t end)
{
	uint64_t begin = end > FUP_WAIT_BACK ? end - FUP_WAIT_BACK : 0;

	while (end > begin) {
		int64_t q = find_psb_back(buf, end);
		const uint8_t *p, *e = buf + end;
		int in_hdr = 0, st = -1, ovf = 0;

		if (q < 0 || (uint64_t)q < begin)
			q = (int64_t)begin;
		for (p = buf + q; p < e;) {
			size_t k = pkt_len(p, (size_t)(e - p));

			if (!k)
				return 0;
			if (p[0] == 0x02 && p[1] == 0x82) {
				in_hdr = 1;
			} else if (p[0] == 0x02 && p[1] == 0x23) {
				in_hdr = 0;
			} else if ((p[0] & 0x1f) == 0x1d) { /* FUP */
				if (in_hdr || ovf)
					st = 1;
				ovf = 0;
			} else if ((p[0] & 0x1f) == 0x11) { /* TIP.PGE */
				st = 1;
				ovf = 0;
			} else if ((p[0] & 0x1f) == 0x01) { /* TIP.PGD */
				st = 0;
				ovf = 0;
			} else if (p[0] == 0x02 && p[1] == 0xf3) { /* OVF */
				st = 0;
				ovf = 1;
			} else if (!in_hdr && p[0] && (p[0] & 3) != 3 && p[0] != 0x19 &&
				   p[0] != 0x59 &&
				   !(p[0] == 0x02 && (p[1] == 0x03 || p[1] == 0x73))) {
				ovf = 0; /* (an OVF binds only the FUP after timing) */
			}
			p += k;
		}
		if (st >= 0)
			return st;
		end = (uint64_t)q;
	}
	return 0;
}

/* A MODE.Exec packet's payload byte for @mode (enum pt_exec_mode). */
static uint8_t mode_payload(uint8_t mode)
{
	struct pt_packet_mode_exec me = pt_set_exec_mode((enum pt_exec_mode)mode);

	return (uint8_t)((me.csl ? 1 : 0) | (me.csd ? 2 : 0));
}

#define TRAIL_MAX 8

static int decode_segment(struct seg *s)
{
	struct pt_block_decoder *dec;
	struct pt_config cfg;
	struct pt_errata errata;
	struct psbhdr hdr;
	uint8_t *copy = NULL;
	uint64_t sync_at = s->begin;
	int status, err = 0, fresh_end = 0;
	int pad_fup = 0, add_mode = 0, add_tsx = 0, ins_exec = 0, keep_exec = 0;
	uint64_t trail[TRAIL_MAX], since = UINT64_MAX;
	uint8_t trail_mode = ptem_unknown;
	size_t ntrail = 0;
	int fup_last = -2;

	s->last_pos = UINT64_MAX;
	pt_config_init(&cfg);
	cfg.begin = (uint8_t *)s->buf;
	cfg.end = (uint8_t *)s->buf + s->end;
	if (read_psb_hdr(s->buf, s->end, s->begin, &hdr) < 0)
		return ptd__err(-ptde_nomem, "out of memory reading a PSB+");
	s->enabled = hdr.fup_ip != 0;
	s->mode = ptem_unknown;
	if (s->end_psb || (s->in.kind == CARRY_STATE && s->in.pend_exec != ptem_unknown))
		ntrail = trailing_exec(s->buf, s->begin, s->end, trail, TRAIL_MAX, &trail_mode,
				       s->in.pend_exec != ptem_unknown ? &since : NULL, &fup_last,
				       ovf_scans(s->img));
	if (!s->end_psb)
		ntrail = 0; /* (the trace ends there: so does the continuous decode) */
	if (s->in.kind == CARRY_STATE) {
		pad_fup = !s->in.enabled && hdr.fup_ip;
		/* The continuous decoder keeps its mode where the PSB+ has no
		 * MODE.Exec: given to libipt's decoder in the copy. */
		add_mode = s->in.mode != ptem_unknown && !hdr.mode;
		add_tsx = s->in.spec && !hdr.tsx;
		/* (a PSB+ libipt cannot read: the continuous decoder fails
		 * there too, and forgets what it held) */
		ins_exec = s->in.pend_exec != ptem_unknown && hdr.ok && hdr.end_off > s->begin &&
			   hdr.end_off <= s->end;
		/* (nothing after the PSB+ but what gives libipt nothing to
		 * report: the MODE.Exec would end the buffer, it goes on) */
		keep_exec = ins_exec && since <= hdr.end_off;
		if (keep_exec)
			ins_exec = 0;

		s->mode = s->in.mode;
		s->spec = s->in.spec;
		s->mode_check = s->in.enabled && s->in.mode != ptem_unknown && hdr.mode &&
				hdr.mode != s->in.mode;
		s->off_async = s->in.off_async;
		s->async_at = s->in.async_at;
		s->dis_known = s->in.dis_known;
		s->dis_ip = s->in.dis_ip;
		s->in_disabled = !s->in.enabled;
		/* (enabled but no FUP: libipt has no ip to go on) */
		s->enabled = s->in.enabled && hdr.fup_ip;
	}
	if (pad_fup || add_mode || add_tsx || ins_exec || ntrail) {
		/* Tracing was disabled before this PSB: a continuous decoder
		 * ignores the FUP in its PSB+ and waits for TIP.PGE; libipt
		 * synced here would take tracing as enabled and fail at the
		 * PGE.  Decode a copy with the FUP turned into PADs (same
		 * offsets).  A MODE.Exec of the carried mode goes right after
		 * the PSB (the offsets after it move by its size); one that
		 * waits for its TIP (pend_exec) right after the PSBEND; and
		 * the MODE.Exec packets at the end become PADs
		 * (trailing_exec). */
		size_t add = (add_mode ? 2 : 0) + (add_tsx ? 2 : 0), n = s->end - s->begin;
		size_t ins = ins_exec ? 2 : 0, hlen = ins ? (size_t)(hdr.end_off - s->begin) : n;
		uint8_t *q;

		copy = malloc(n + add + ins);
		if (!copy)
			return ptd__err(-ptde_nomem, "out of memory decoding PT");
		memcpy(copy, s->buf + s->begin, sizeof(psb_pattern));
		q = copy + sizeof(psb_pattern);
		if (add_mode) {
			*q++ = 0x99;
			*q++ = mode_payload(s->in.mode);
		}
		if (add_tsx) { /* MODE.TSX: in a transaction */
			*q++ = 0x99;
			*q++ = 0x21;
		}
		memcpy(q, s->buf + s->begin + sizeof(psb_pattern), hlen - sizeof(psb_pattern));
		q += hlen - sizeof(psb_pattern);
		if (ins) {
			*q++ = 0x99;
			*q++ = mode_payload(s->in.pend_exec);
			memcpy(q, s->buf + hdr.end_off, n - hlen);
		}
		if (pad_fup)
			memset(copy + (hdr.fup_off - s->begin) + add, 0, hdr.fup_len);
		for (size_t k = 0; k < ntrail; k++) {
			uint64_t o = trail[k] - s->begin + add + (ins && trail[k] >= hdr.end_off ? ins : 0);

			memset(copy + o, 0, 2);
		}
		cfg.begin = copy;
		cfg.end = copy + n + add + ins;
		s->obase = s->begin - add - ins;
		sync_at = 0;
	}
	ptd_image_errata(s->img, &errata);
	cfg.errata = errata;
	{
		struct ptd_cpu cpu;

		ptd_image_get_cpu(s->img, &cpu);
		if (cpu.family) {
			cfg.cpu.vendor = pcv_intel;
			cfg.cpu.family = cpu.family;
			cfg.cpu.model = cpu.model;
			cfg.cpu.stepping = cpu.stepping;
		}
	}
	cfg.flags.variant.block.end_on_call = 1;
	cfg.flags.variant.block.end_on_jump = 1;
	dec = pt_blk_alloc_decoder(&cfg);
	if (!dec) {
		free(copy);
		return ptd__err(-ptde_nomem, "cannot allocate a libipt block decoder");
	}
	pt_blk_set_image(dec, s->ptimg);

	status = pt_blk_sync_set(dec, sync_at);
	for (;;) {
		struct pt_block pb;
		int blk;

		while (status >= 0 && (status & pts_event_pending)) {
			struct pt_event ev;

			status = pt_blk_event(dec, &ev, sizeof(ev));
			if (status < 0)
				break;
			if (ev.type == ptev_exec_mode) {
				/* The continuous decoder's check of the first
				 * PSB+'s mode against its own (libipt's
				 * pt_blk_process_exec_mode): an error there.
				 * (Where it synchronises again after it may
				 * differ: a history's runs do not start at such
				 * a PSB, see start_exact.) */
				if (s->mode_check && ev.status_update &&
				    ev.variant.exec_mode.mode != (enum pt_exec_mode)s->in.mode) {
					s->mode_check = 0;
					status = -pte_bad_status_update;
					break;
				}
				s->mode_check = 0;
				s->mode = ev.variant.exec_mode.mode;
				if (!ev.status_update)
					s->exec_taken = 1;
			}
			if (ev.type == ptev_tsx)
				s->spec = ev.variant.tsx.speculative;
			/* (after an overflow libipt takes the code as not in a
			 * transaction: pt_blk_process_overflow) */
			if (ev.type == ptev_overflow)
				s->spec = 0;
			/* Past the end of the trace, while finishing the linear
			 * code up to the next segment's start, there is nothing
			 * left to report; elsewhere every event counts. */
			if (!s->eos || !s->cut_ip) {
				err = handle_event(s, dec, &ev);
				if (err < 0)
					goto out;
			}
		}
		if (status >= 0 && (status & pts_eos))
			s->eos = 1;
		if (status >= 0 && !s->eos) {
			err = fast_blocks(s, dec, &status);
			if (err < 0)
				goto out;
			if (status >= 0)
				continue;
		} else if (status >= 0) {
			pb.ninsn = 0; /* libipt fills the rest */
			blk = pt_blk_next(dec, &pb, sizeof(pb));
			err = take_block(s, &pb);
			if (err < 0)
				goto out;
			status = blk;
			if (status >= 0 && (status & pts_eos))
				s->eos = 1;
			status = check_stuck(s, dec, status);
			if (status >= 0)
				continue;
		}
		if (status == -pte_eos)
			break;
		{
			uint64_t off = 0;
			char msg[160];
			enum ptd_gap_reason r = PTD_GAP_DECODE_ERROR;

			/* After the trace ran out, libipt's error is most often
			 * the linear tail needing more trace: at a run's end
			 * the next run goes on from there (and a live
			 * recording's last run is cut at the thread's pc).  At
			 * the end of a whole trace that is not cut, one
			 * continuous decode reports it as it reports any
			 * error (also a packet it could not read ahead: its
			 * pts_eos only said that no packet comes). */
			if (s->eos && !s->whole_end)
				break;
			pt_blk_get_offset(dec, &off);
			off += s->obase;
			if (status == -pte_nomap)
				r = PTD_GAP_NO_MEMORY;
			/* As gdb shows it: libipt's code and message. */
			if (s->stuck_err)
				snprintf(msg, sizeof(msg),
					 "no trace consumed in %d blocks at offset 0x%" PRIx64
					 " (endless loop of direct branches?)", STUCK_LIMIT, off);
			else
				snprintf(msg, sizeof(msg), "%s", pt_errstr(pt_errcode(status)));
			s->stuck_err = 0;
			s->stuck = 0;
			err = emit_gap(s, r, (uint64_t)(int64_t)status, msg);
			if (err < 0)
				goto out;
			/* Resync at the next PSB, as a continuous decoder does:
			 * from there on libipt's own view of the PSB+ holds. */
			s->off_async = 0;
			s->in_disabled = 0;
			s->dis_known = 0;
			s->dis_from_blk = 0;
			s->mode = ptem_unknown; /* (libipt's reset) */
			s->mode_check = 0;
			s->exec_taken = 1;
			s->spec = 0;
			{
				uint64_t before = UINT64_MAX, after = UINT64_MAX;

				pt_blk_get_sync_offset(dec, &before);
				status = pt_blk_sync_forward(dec);
				/* A PSB+ libipt cannot read there: an error (a
				 * gap) of its own, and on to the next PSB, as a
				 * continuous decoder synchronising again does
				 * (libipt moves past the PSB that failed). */
				if (status < 0 && status != -pte_eos &&
				    pt_blk_get_sync_offset(dec, &after) == 0 && after != before)
					continue;
			}
			if (status < 0) {
				fresh_end = 1;
				break;
			}
			{
				uint64_t so = 0;
				struct psbhdr rh;

				pt_blk_get_sync_offset(dec, &so);
				if (read_psb_hdr(cfg.begin, (size_t)(cfg.end - cfg.begin), so,
						 &rh) < 0) {
					err = ptd__err(-ptde_nomem, "out of memory reading a PSB+");
					goto out;
				}
				s->enabled = rh.fup_ip != 0;
			}
		}
	}
	if (s->ntail)
		err = finish_tail(s);
	if (!err && !s->more)
		err = flush_pend(s);
	/* What the next run starts from. */
	memset(&s->out, 0, sizeof(s->out));
	s->out.have_item = (uint8_t)have_item(s);
	s->out.head_flags = s->head_flags;
	if (fresh_end) {
		s->out.kind = CARRY_FRESH;
		s->out.errend = s->end_psb;
	} else {
		if (!s->enabled && s->dis_from_blk)
			disabled_at(s, &s->dis_blk);
		s->out.kind = CARRY_STATE;
		s->out.enabled = (uint8_t)s->enabled;
		s->out.off_async = (uint8_t)s->off_async;
		s->out.async_at = s->async_at;
		s->out.dis_known = (uint8_t)s->dis_known;
		s->out.dis_ip = s->dis_ip;
		s->out.mode = (uint8_t)s->mode;
		s->out.uncut = (uint8_t)((s->enabled && s->cut_ip && !s->cut_found) ||
					 (s->end_psb && fup_waits(s->buf, s->begin, s->end, fup_last,
								 ovf_scans(s->img))));
		s->out.spec = (uint8_t)s->spec;
		/* (the carried one when nothing in this run took it: no
		 * TIP since, no resynchronisation) */
		s->out.pend_exec = ntrail		     ? trail_mode
				   : keep_exec || (ins_exec && !s->exec_taken) ? s->in.pend_exec
									       : 0;
	}
out:
	pt_blk_free_decoder(dec);
	free(copy);
	return err;
}

/*
 * Decodes the trace bytes [@begin, @end) (@begin a PSB, @end the next run's
 * PSB or the end) with one libipt decoder, starting from the carried state
 * @in (NULL: as libipt syncing at @begin, with nothing before); @out (may
 * be NULL) gets the state the next run starts from.
 */
/* Start of the next PSB in [@from, @end), or @end. */
static uint64_t next_psb(const uint8_t *buf, uint64_t from, uint64_t end)
{
	const uint8_t *hit;

	if (from >= end || end - from < sizeof(psb_pattern))
		return end;
	hit = memmem(buf + from, end - from, psb_pattern, sizeof(psb_pattern));
	return hit ? (uint64_t)(hit - buf) : end;
}

/*
 * The libipt decode that takes over from the fast path (fast_run): its
 * items go on to the run's own seg @s, less the first @drop numbers
 * (instructions and gaps) and @drop_ev events, which @s has already.
 */
/* An item a handover holds back (struct handover's hold). */
struct ho_item {
	uint8_t kind; /* PTD_ITEM_BLOCK, _GAP or _EVENT */
	uint8_t reason;
	uint64_t off, ip, arg;
	char *detail;
	struct ptd_block b;
};

struct handover {
	struct seg *s, *w;
	uint64_t drop, drop_ev;
	int told;    /* w's head flags went to s */
	int watch;   /* stop at a compressed return without call (see takeover) */
	int stopped; /* ... and it came */
	int errors;  /* decode errors (libipt resynchronised) */
	int cut_found; /* the tail was cut at the cut ip (struct seg's) */
	/* Items held back instead of passed to s, until ho_release (or
	 * ho_discard: s gets them from a decode of more bytes instead, whose
	 * items need not start with them, see fast_run). */
	int hold;
	uint8_t w_head; /* w's head flags, once w is gone (ho_release) */
	struct ho_item *held;
	size_t nheld, capheld;
};

static int ho_hold(struct handover *ho, const struct ho_item *it)
{
	if (ho->nheld == ho->capheld) {
		size_t nc = ho->capheld ? ho->capheld * 2 : 64;
		struct ho_item *p = realloc(ho->held, nc * sizeof(*p));

		if (!p)
			return ptd__err(-ptde_nomem, "out of memory decoding PT");
		ho->held = p;
		ho->capheld = nc;
	}
	ho->held[ho->nheld++] = *it;
	return 0;
}

static void ho_discard(struct handover *ho)
{
	for (size_t i = 0; i < ho->nheld; i++)
		free(ho->held[i].detail);
	free(ho->held);
	ho->held = NULL;
	ho->nheld = ho->capheld = 0;
	ho->hold = 0;
}

/* What w learnt about the block before its start belongs to the block
 * before in s (told before anything of w's comes). */
static void ho_tell(struct handover *ho)
{
	uint8_t head = ho->w ? ho->w->head_flags : ho->w_head;

	if (!ho->told && head && !ho->drop)
		flag_pend(ho->s, head, 0);
	ho->told = 1;
}

static int ho_block(void *ctx, const struct ptd_block *b)
{
	struct handover *ho = ctx;
	struct ptd_block nb;
	uint64_t ip;

	if (ho->hold) {
		struct ho_item it = {.kind = PTD_ITEM_BLOCK, .b = *b};

		return ho_hold(ho, &it);
	}
	ho_tell(ho);
	if (!ho->drop)
		return set_pend(ho->s, b);
	if (b->ninsn <= ho->drop) {
		ho->drop -= b->ninsn;
		/* what events taught about the last block s has (none:
		 * the run before's, see struct carry's head_flags) */
		if (!ho->drop && (b->flags & (PTD_BLK_INTERRUPTED | PTD_BLK_SYSCALL)))
			flag_pend(ho->s, b->flags & (PTD_BLK_INTERRUPTED | PTD_BLK_SYSCALL), 0);
		return 0;
	}
	/* The block goes on past the point: its rest is new. */
	nb = *b;
	ip = b->ip;
	while (ho->drop) {
		struct ptd_insn_info in;

		if (insn_at(ho->s->img, ip, ptd_block_mode(b), &in) < 0)
			return ptd__err(-ptde_internal, "cannot decode 0x%" PRIx64 " again", ip);
		ip += in.len;
		nb.ninsn--;
		ho->drop--;
	}
	nb.ip = ip;
	return set_pend(ho->s, &nb);
}

static int ho_blocks(void *ctx, const struct ptd_block *b, size_t n)
{
	size_t i;
	int err = 0;

	for (i = 0; i < n && err >= 0; i++)
		err = ho_block(ctx, &b[i]);
	return err;
}

static int ho_gap(void *ctx, enum ptd_gap_reason r, uint64_t off, const char *detail)
{
	struct handover *ho = ctx;

	if (ho->watch && r == PTD_GAP_DECODE_ERROR && off == (uint64_t)(int64_t)-pte_retstack_empty) {
		ho->stopped = 1;
		return -ptde_internal; /* (stops decode_segment; fast_run goes on) */
	}
	if (r == PTD_GAP_DECODE_ERROR || r == PTD_GAP_NO_MEMORY)
		ho->errors++;
	if (ho->hold) {
		struct ho_item it = {.kind = PTD_ITEM_GAP, .reason = (uint8_t)r, .off = off};

		if (detail && !(it.detail = strdup(detail)))
			return ptd__err(-ptde_nomem, "out of memory decoding PT");
		if (ho_hold(ho, &it) < 0) {
			free(it.detail);
			return -ptde_nomem;
		}
		return 0;
	}
	ho_tell(ho);
	if (ho->drop) {
		ho->drop--;
		return 0;
	}
	return emit_gap(ho->s, r, off, detail);
}

static int ho_event(void *ctx, enum ptd_event_kind k, uint64_t ip, uint64_t arg)
{
	struct handover *ho = ctx;

	if (ho->hold) {
		struct ho_item it = {.kind = PTD_ITEM_EVENT, .reason = (uint8_t)k, .ip = ip,
				     .arg = arg};

		return ho_hold(ho, &it);
	}
	ho_tell(ho);
	if (ho->drop_ev) {
		ho->drop_ev--;
		return 0;
	}
	return emit_event(ho->s, k, ip, arg);
}

/* libipt from the PSB at @from to @to (the run's end, or a PSB where the
 * fast path takes over again: its PSB+'s FUP is @cut), from the state @in,
 * into @s through @ho; s->out gets the state at @to.  Returns 1 when @ho's
 * watch stopped it. */
static int handover_to(struct seg *s, uint64_t from, uint64_t to, uint64_t cut,
		       const struct carry *in, struct handover *ho)
{
	struct ptd_pt_sink sink = {ho_block, ho_gap, ho_event, ho, ho_blocks};
	struct ptd_pt_stats wst;
	struct seg w;
	int err;

	memset(&w, 0, sizeof(w));
	memset(&wst, 0, sizeof(wst));
	w.buf = s->buf;
	w.icc = s->icc;
	w.begin = from;
	w.end = to;
	w.end_psb = to < s->end || s->end_psb;
	w.cut_ip = to < s->end ? cut : s->cut_ip;
	w.whole_end = to >= s->end && s->whole_end;
	w.img = s->img;
	w.ptimg = s->ptimg;
	w.sink = &sink;
	w.st = &wst;
	w.disabled_gaps = s->disabled_gaps;
	w.in = *in;
	ho->s = s;
	ho->w = &w;
	err = decode_segment(&w);
	free(w.tail);
	ho->cut_found = w.cut_found;
	ho->w_head = w.head_flags;
	ho->w = NULL; /* (gone) */
	if (ho->stopped)
		return 1;
	if (!ho->hold)
		ho_tell(ho);
	if (!err && to >= s->end)
		err = flush_pend(s);
	if (err)
		return err;
	if (wst.end_ip)
		s->st->end_ip = wst.end_ip;
	s->out = w.out;
	s->out.have_item = (uint8_t)have_item(s);
	s->out.head_flags = s->head_flags;
	return 0;
}

static int handover_run(struct seg *s, uint64_t from, const struct carry *in,
			struct handover *ho)
{
	return handover_to(s, from, s->end, 0, in, ho);
}

/* Passes the items @ho held back to s, as they would have gone (see
 * struct handover's hold); s->out as handover_to leaves it. */
static int ho_release(struct handover *ho)
{
	struct seg *s = ho->s;
	int err = 0;

	ho->hold = 0;
	for (size_t i = 0; i < ho->nheld && err >= 0; i++) {
		const struct ho_item *it = &ho->held[i];

		if (it->kind == PTD_ITEM_BLOCK) {
			err = ho_block(ho, &it->b);
		} else if (it->kind == PTD_ITEM_GAP) {
			ho_tell(ho);
			err = emit_gap(s, (enum ptd_gap_reason)it->reason, it->off, it->detail);
		} else {
			err = ho_event(ho, (enum ptd_event_kind)it->reason, it->ip, it->arg);
		}
	}
	ho_discard(ho);
	if (err < 0)
		return err;
	ho_tell(ho);
	s->out.have_item = (uint8_t)have_item(s);
	s->out.head_flags = s->head_flags;
	return 0;
}

/*
 * Counting the fast path's blocks (a block without instructions is a
 * "disabled" gap): set_pend's work for each, with the sums in locals.  A
 * block that may continue the one before (that one ends without a branch:
 * a segment's cut tail) takes cnt_block's own way.  The call log is left
 * to the caller (count_fast).
 */
static int count_fast_nolog(struct seg *s, const struct ptd_block *bl, size_t nb)
{
	struct counter *c = s->cnt;
	struct ptd_pt_stats *st = s->st;
	uint64_t ninsn = 0, nblocks = 0; /* (each block counted so is one item) */
	int depth = s->depth, dmin = st->depth_min, err = 0;
	const struct ptd_block *last = NULL;
	size_t i;

	/* (the depth's step per class from a table, as account_run; the
	 * class of the block before in a register, not loaded through last) */
	static const int8_t step[16] = { [PTD_IC_CALL] = 1, [PTD_IC_RET] = -1 };
	/* the block before ends without a branch (PTD_IC_OTHER: a cut tail)
	 * or there is none in this sink: 1 when it ends with one */
	int prev_br = !c->have_last || c->last.iclass != PTD_IC_OTHER;

	if (nb && bl[0].ninsn && !st->start_ip)
		st->start_ip = bl[0].ip;
	for (i = 0; i < nb; i++) {
		const struct ptd_block *b = &bl[i];
		const uint32_t k = b->ninsn;
		const uint8_t cls = b->iclass;

		if (k && prev_br) {
			ninsn += k;
			nblocks++;
			depth += step[cls & 15];
			dmin = depth < dmin ? depth : dmin;
			prev_br = cls != PTD_IC_OTHER;
			last = b;
			continue;
		}
		/* the slow way: the sums so far go back first */
		st->ninsn += ninsn;
		st->nblocks += nblocks;
		*c->nitems += nblocks;
		ninsn = nblocks = 0;
		s->depth = depth;
		st->depth_min = dmin;
		st->depth_delta = depth;
		if (last) {
			c->last = *last;
			c->have_last = 1;
			last = NULL;
		}
		if (!b->ninsn) {
			err = emit_gap(s, PTD_GAP_DISABLED, 0, NULL);
			if (err < 0)
				return err;
		} else {
			account(s, b);
			cnt_block_nolog(c, b);
		}
		depth = s->depth;
		dmin = st->depth_min;
		prev_br = !c->have_last || c->last.iclass != PTD_IC_OTHER;
	}
	st->ninsn += ninsn;
	st->nblocks += nblocks;
	*c->nitems += nblocks;
	s->depth = depth;
	st->depth_min = dmin;
	st->depth_delta = depth;
	if (last) {
		c->last = *last;
		c->have_last = 1;
	}
	return 0;
}

static int count_fast(struct seg *s, const struct ptd_block *bl, size_t nb, const uint8_t *edge)
{
	size_t i = 0, from;
	int err = 0;

	if (!s->cnt->log)
		return count_fast_nolog(s, bl, nb);
	/* The call log takes the blocks up to the next gap in one call
	 * (before the gap goes to it), with the fast path's verdicts on the
	 * edges between them (@edge, fastpt.h). */
	while (i < nb && err >= 0) {
		if (!bl[i].ninsn) {
			err = emit_gap(s, PTD_GAP_DISABLED, 0, NULL);
			i++;
			continue;
		}
		for (from = i; i < nb && bl[i].ninsn; i++)
			;
		ptd__calllog_blocks(s->cnt->log, bl + from, i - from, edge ? edge + from : NULL);
		err = count_fast_nolog(s, bl + from, i - from);
	}
	return err < 0 ? err : 0;
}

/* account() for the blocks from @bl[@i] up to the first without
 * instructions (a "disabled" gap) or @n, with the sums in locals, in the
 * same pass that finds where they end; returns that index. */
static size_t account_run(struct seg *s, const struct ptd_block *bl, size_t i, size_t n)
{
	struct ptd_pt_stats *st = s->st;
	uint64_t ninsn = 0;
	int depth = s->depth, dmin = st->depth_min;
	size_t from = i;

	if (i < n && bl[i].ninsn && !st->start_ip)
		st->start_ip = bl[i].ip;
	/* (the depth's step per class from a table: one load, not two
	 * compares; classes below 16, see ptd_block) */
	static const int8_t step[16] = { [PTD_IC_CALL] = 1, [PTD_IC_RET] = -1 };
	_Static_assert(PTD_IC_MAX <= 16, "a block's class indexes step[]");

	for (; i < n; i++) {
		const uint32_t k = bl[i].ninsn;

		if (!k)
			break;
		ninsn += k;
		depth += step[bl[i].iclass & 15];
		if (depth < dmin)
			dmin = depth;
	}
	st->ninsn += ninsn;
	st->nblocks += i - from;
	s->depth = depth;
	st->depth_min = dmin;
	st->depth_delta = depth;
	return i;
}

/*
 * The fast path's blocks into the sink (a block without instructions is a
 * "disabled" gap): set_pend's work in bulk.  All but the last block of a
 * row go to the sink straight from @bl; the last one stays pending in the
 * queue (later events may flag it).
 */
static int hist_blocks(void *ctx, const struct ptd_block *b, size_t n);

/* (@edge: the fast path's verdicts, for a sink with a call log; @code:
 * ptd__fastpt_codes for @bl, for a history sink without one) */
static int deliver_fast(struct seg *s, const struct ptd_block *bl, size_t nb, const uint8_t *edge,
			const uint64_t *code)
{
	size_t i = 0, from;
	int err = 0;

	while (i < nb && err >= 0) {
		if (!bl[i].ninsn) {
			err = emit_gap(s, PTD_GAP_DISABLED, 0, NULL);
			i++;
			continue;
		}
		from = i;
		i = account_run(s, bl, i, nb);
		if (i - from > 1) {
			/* the pending block has a successor now: it goes first */
			err = flush_pend(s);
			if (err >= 0 && edge && s->sink->blocks_edge) {
				err = s->sink->blocks_edge(s->sink->ctx, bl + from, i - from - 1,
							   edge + from);
			} else if (err >= 0 && s->sink->blocks == hist_blocks && code) {
				err = ptd__history_append_coded(s->sink->ctx, bl + from, code + from,
								i - from - 1);
			} else if (err >= 0 && s->sink->blocks) {
				err = s->sink->blocks(s->sink->ctx, bl + from, i - from - 1);
			} else {
				for (; err >= 0 && from + 1 < i; from++)
					err = s->sink->block(s->sink->ctx, &bl[from]);
			}
			if (err < 0)
				break;
		}
		if (s->nq == QN && (err = flush_pend(s)) < 0)
			break;
		s->q[s->nq++] = bl[i - 1];
	}
	return err < 0 ? err : 0;
}

/* Whether [@from, @to) is whole packets ending exactly at @to, none of
 * which @what forbids: PK_ONE_PSB a PSB after the first packet, PK_NO_TSX
 * a MODE.TSX, PK_MODE64 a MODE.Exec for other than 64-bit code. */
enum { PK_ONE_PSB = 1, PK_NO_TSX = 2, PK_MODE64 = 4 };
static int packets_ok(struct pt_packet_decoder *pd, uint64_t from, uint64_t to, int what)
{
	uint64_t at = from;
	int first = 1;

	if (pt_pkt_sync_set(pd, from) < 0)
		return 0;
	while (at < to) {
		struct pt_packet pkt;

		if (pt_pkt_next(pd, &pkt, sizeof(pkt)) < 0)
			return 0;
		if ((what & PK_ONE_PSB) && pkt.type == ppt_psb && !first)
			return 0;
		if ((what & PK_NO_TSX) && pkt.type == ppt_mode && pkt.payload.mode.leaf == pt_mol_tsx)
			return 0;
		if ((what & PK_MODE64) && pkt.type == ppt_mode &&
		    pkt.payload.mode.leaf == pt_mol_exec &&
		    !(pkt.payload.mode.bits.exec.csl && !pkt.payload.mode.bits.exec.csd))
			return 0;
		first = 0;
		if (pt_pkt_get_offset(pd, &at) < 0)
			return 0;
	}
	return at == to;
}

/*
 * Do the bytes [@from, @to) (@from a PSB) hold a well-formed PSB+ and then
 * whole packets up to @to?  Then libipt decoding up to @to reads what a
 * decoder that goes on past it reads (not a PSB+ that another PSB cuts
 * short, nor a packet @to cuts, where it would find an error).
 */
static int whole_packets(struct seg *s, struct pt_packet_decoder *pd, uint64_t from, uint64_t to)
{
	struct psbhdr h;
	uint64_t fup = 0;

	read_psb_hdr_at(pd, from, &h);
	if (!ptd_fastpt_psb_kind(s->buf, from, to, &fup) || fup != h.fup_ip)
		return 0;
	return packets_ok(pd, from, to, PK_ONE_PSB);
}

/*
 * Is libipt, after decoding [@from, @to), in no transaction and in 64-bit
 * code, as the fast path is?  No MODE.TSX packet there (a PSB+ need not
 * repeat it, and a continuous decoder keeps its state), no MODE.Exec for
 * other code (a continuous decoder in 32-bit code finds a PSB+ that says
 * 64-bit an error; one synchronised there does not: found by the fuzz
 * target), and every packet whole.
 */
static int fast_state(struct pt_packet_decoder *pd, uint64_t from, uint64_t to)
{
	return packets_ok(pd, from, to, PK_NO_TSX | PK_MODE64);
}

/*
 * Where the fast path can take over again after libipt took segment @k:
 * the first PSB after it whose PSB+ the fast path takes (with a FUP, its
 * ip in *@cut: there libipt decoding up to that PSB and cutting its
 * linear tail at the FUP's ip gives what a continuous decoder gives, as
 * at the boundary of two runs; and libipt's part has no transaction), or
 * the run's end.
 */
static uint64_t resume_point(struct seg *s, struct pt_packet_decoder *pd, uint64_t k,
			     uint64_t *cut)
{
	uint64_t at = k, prev;
	unsigned n = 0;

	*cut = 0;
	/* (bounded: past that many, libipt decodes on to the run's end) */
	while (n++ < 64) {
		struct psbhdr h;
		uint64_t fup = 0;

		prev = at;
		at = next_psb(s->buf, at + sizeof(psb_pattern), s->end);
		if (at >= s->end)
			break;
		read_psb_hdr_at(pd, at, &h);
		if (ptd_fastpt_psb_kind(s->buf, at, s->end, &fup) == 1 && fup == h.fup_ip &&
		    !h.then_pge && whole_packets(s, pd, prev, at) && fast_state(pd, k, at)) {
			*cut = fup;
			return at;
		}
	}
	return s->end;
}

/*
 * Is a libipt decoder synchronised at the PSB at @pos (PSB+ kind @kind,
 * ptd_fastpt_psb_kind's) the continuous one there, but for its return
 * stack, when the run is in state @c?  With tracing on at a PSB+ with a
 * FUP, yes (the fast path checked that the segment before reached that
 * ip).  With tracing off, the continuous decoder still is where tracing
 * stopped, one synchronised there has no ip: packets that use the ip (in a
 * damaged trace, a TIP or TNT while tracing is off; found by the fuzz
 * target) give different items.  They agree again only where a TIP.PGE
 * gives the ip to both, and nothing comes before it.
 */
static int sync_exact(struct seg *s, uint64_t pos, const struct carry *c, int kind)
{
	if (c->kind == CARRY_FRESH)
		return 1;
	/* (a decoder synced there takes the PSB+'s mode, the continuous
	 * one checks it against its own) */
	if (c->enabled && c->mode != ptem_unknown && c->mode != ptem_64bit)
		return 0;
	if (c->spec)
		return 0;
	/* (a MODE.Exec from before the PSB waits for its TIP) */
	if (c->pend_exec != ptem_unknown)
		return 0;
	if (c->enabled && !c->off_async)
		return kind == 1;
	return ptd_fastpt_psb_then_pge(s->buf, pos, s->end);
}

/*
 * libipt from the PSB at @j (the latest where a decoder synchronised
 * afresh is the continuous one, its state @in) to the run's end, less what
 * s has since (@num_j numbers and @ev_j events were given before @j).
 */
static int from_j(struct seg *s, struct ptd_fastpt *fp, uint64_t j, const struct carry *in,
		  uint64_t num_j, unsigned ev_j)
{
	struct handover ho;

	ptd__fastpt_count(fp, 0);
	s->more = 0;
	memset(&ho, 0, sizeof(ho));
	ho.drop = s->st->ninsn + s->st->ngaps - num_j;
	ho.drop_ev = s->nev - ev_j;
	return handover_run(s, j, in, &ho);
}

/*
 * The run [s->begin, s->end) with the fast path (fastpt.h).  Segment by
 * segment from the run's start, each one the fast path handles (from a
 * clean PSB with tracing enabled, up to a well-formed next PSB+) is taken
 * from it.  A segment it does not handle (k) libipt decodes, from k up to
 * the next PSB the fast path takes again (resume_point), where the fast
 * path goes on.
 *
 * libipt carries its return stack across PSBs.  A decoder (libipt's or
 * the fast path) started at a PSB with an empty stack gives what the
 * continuous one gives up to a compressed return that finds its stack
 * empty (where the continuous one pops what came before).  libipt's stack
 * cannot be read, so after libipt had a part the fast path goes on with
 * an empty stack whose bottom is not known ("complete" is 0), and it
 * leaves such a return to libipt; libipt there meets it too (its stack,
 * started later, is no fuller), which shows as a decode error for a
 * compressed return without call.  Then a decoder from the last PSB where
 * the whole stack was known to be empty (j: there a decoder synchronised
 * afresh is where the continuous one is) decodes the rest of the run,
 * its items up to what was given already dropped.  The same where the
 * fast path stops at a PSB that a decoder synchronised afresh does not
 * read as the continuous one does (sync_exact: tracing off there, in a
 * damaged trace): j is only ever such a PSB where it does.  The items are
 * those of the plain path's libipt run.
 */
static int fast_run(struct seg *s, struct ptd_fastpt *fp)
{
	const uint64_t begin = s->begin, end = s->end;
	struct pt_packet_decoder *pd = psb_reader(s->buf, end);
	struct carry cur = s->in, cur_j = s->in;
	struct psbhdr nh;
	struct ptd_fastpt_edge edge;
	struct handover ho;
	struct carry cur_p;
	uint64_t pos = begin, j = begin, num_j = 0, num_p;
	unsigned ev_j = 0, ev_p;
	int err = 0, keep_stack = 0, complete = 1, exact = 1;
	/* nh holds the PSB+ at nh_at (kind nh_kind, FUP ip nh_fup) */
	int have_nh = 0, nh_kind = 0;
	uint64_t nh_at = 0, nh_fup = 0;

	if (!pd)
		return ptd__err(-ptde_nomem, "out of memory reading a PSB+");
	ptd_fastpt_begin(fp);
	ptd_fastpt_set_log(fp, s->cnt ? s->cnt->log : s->sink->log);
	s->more = 1;
	while (pos < end && !err) {
		uint64_t next = next_psb(s->buf, pos + sizeof(psb_pattern), end), rp, rcut;
		const struct ptd_block *bl;
		size_t nb = 0;
		uint64_t cut = s->cut_ip;
		/* (a trace's start: tracing enabled by TIP.PGE, nothing before) */
		int pge_start = cur.kind == CARRY_FRESH && !have_item(s);
		uint64_t fup = 0;
		int kind;

		/* decode_segment takes tracing as on at a PSB from what
		 * read_psb_hdr finds there (it reads up to 64 packets): the
		 * fast path must see the PSB+ the same way.  (Read as the
		 * next PSB+ of the segment before, when that was taken.) */
		if (have_nh && nh_at == pos) {
			kind = nh_kind;
			fup = nh_fup;
		} else {
			kind = ptd_fastpt_psb_kind(s->buf, pos, end, &fup);
			read_psb_hdr_at(pd, pos, &nh);
		}
		have_nh = 0;
		exact = pos == begin || sync_exact(s, pos, &cur, kind);
		if (exact && complete && (!keep_stack || !ptd__fastpt_stack_depth(fp))) {
			j = pos;
			cur_j = cur;
			num_j = s->st->ninsn + s->st->ngaps;
			ev_j = s->nev;
		}
		/* (a PSB+ pt.c reads otherwise than libipt: from here on
		 * libipt's decoder only, as the plain path) */
		if (!kind || nh.fup_ip != fup)
			break;
		if (nh.then_pge)
			goto libipt;
		/* The next PSB+ must be one the fast path takes too: libipt
		 * reads into it before it is done with this segment.  Without
		 * FUP (cut 0) it is one where tracing is disabled. */
		memset(&nh, 0, sizeof(nh));
		if (next < end) {
			read_psb_hdr_at(pd, next, &nh);
			nh_kind = ptd_fastpt_psb_kind(s->buf, next, end, &cut);
			if (!nh_kind || cut != nh.fup_ip)
				goto libipt;
			/* (nh, nh_kind and cut stay for the next round) */
			have_nh = 1;
			nh_at = next;
			nh_fup = cut;
		}
		memset(&edge, 0, sizeof(edge));
		edge.disabled = cur.kind == CARRY_STATE && !cur.enabled;
		edge.dis_known = cur.dis_known;
		edge.dis_ip = cur.dis_ip;
		edge.dgaps = s->disabled_gaps;
		edge.have_item = have_item(s);
		/* (the continuous decoder in other code than 64-bit finds
		 * this PSB+'s MODE.Exec an error) */
		if (cur.off_async || (next < end && nh.then_pge) ||
		    (cur.kind == CARRY_STATE && cur.enabled && cur.mode != ptem_unknown &&
		     cur.mode != ptem_64bit) ||
		    (cur.kind == CARRY_STATE && (cur.spec || cur.pend_exec != ptem_unknown)) ||
		    ptd_fastpt_segment_edge(fp, s->buf, pos, next, cut, keep_stack, pge_start, &edge,
					    &bl, &nb) <= 0)
			goto libipt;
		/* (disabled at a PSB+ with FUP: libipt ignores the FUP, pt.c
		 * decodes a copy without it) */
		if (edge.end_disabled && next < end && cut)
			goto libipt;
		/* (a block without instructions: a "disabled" gap) */
		if (s->cnt) {
			err = count_fast(s, bl, nb, ptd__fastpt_edges(fp));
		} else {
			err = deliver_fast(s, bl, nb, s->sink->log ? ptd__fastpt_edges(fp) : NULL,
					   ptd__fastpt_codes(fp));
		}
		cur.kind = CARRY_STATE; /* as decode_segment ends */
		cur.enabled = (uint8_t)!edge.end_disabled;
		cur.off_async = (uint8_t)(edge.end_disabled && edge.end_async);
		cur.async_at = cur.off_async ? edge.end_dis_ip : 0;
		if (cur.off_async)
			s->st->end_ip = edge.end_dis_ip; /* (as ptev_async_disabled) */
		cur.dis_known = (uint8_t)(edge.end_disabled && edge.end_dis_known);
		cur.dis_ip = edge.end_disabled ? edge.end_dis_ip : 0;
		cur.have_item = (uint8_t)have_item(s);
		cur.mode = ptem_64bit; /* (its PSB+ and packets say 64-bit only) */
		cur.uncut = 0;	       /* (the fast path reached the next PSB+'s ip) */
		cur.spec = 0;	       /* (no transaction) */
		cur.pend_exec = ptem_unknown;
		if (edge.end_disabled && next < end) {
			/* (a MODE.Exec after the disable, before the PSB:
			 * the continuous decoder holds it for the TIP.PGE) */
			uint64_t toff[TRAIL_MAX];
			uint8_t tm;

			if (trailing_exec(s->buf, pos, next, toff, TRAIL_MAX, &tm, NULL, NULL, 0))
				cur.pend_exec = tm;
		}
		s->enabled = !edge.end_disabled;
		s->off_async = cur.off_async;
		s->async_at = cur.async_at;
		keep_stack = 1;
		pos = next;
		continue;
libipt:
		have_nh = 0;
		if (!exact)
			break; /* (libipt from j: see below) */
		/* libipt from here up to where the fast path can go on. */
		rp = resume_point(s, pd, pos, &rcut);
		if (pos == begin && rp >= end)
			break; /* the whole run: the plain path */
		memset(&ho, 0, sizeof(ho));
		/* (from j, a decoder synchronised afresh is the continuous one) */
		ho.watch = !(complete && pos == j);
		/* (what it gives is held back while a decode from pos on to
		 * the run's end may replace it, below) */
		ho.hold = rp < end;
		cur_p = cur;
		num_p = s->st->ninsn + s->st->ngaps;
		ev_p = s->nev;
		err = handover_to(s, pos, rp, rcut, &cur, &ho);
		if (err < 0) {
			ho_discard(&ho);
			break;
		}
		if (!err && rp < end &&
		    (ho.errors || !ho.cut_found || s->out.kind != CARRY_STATE || !s->out.enabled ||
		     s->out.off_async || s->out.uncut)) {
			/* libipt resynchronised after an error: a continuous
			 * decoder may do that past rp (past the PSB its reading
			 * ran into); or tracing is not simply on at rp (pt.c's
			 * carry there is what a run that starts there takes, not
			 * always what the continuous decoder is in); or the
			 * linear code after the last packet does not reach the
			 * ip rp's PSB+ gives (a continuous decoder finds an
			 * error there), or a FUP waits past rp for its TIP
			 * (fup_waits).  libipt goes on to the run's end, from
			 * pos again, and s takes all it gives: the continuous
			 * decoder may read past rp before it gives what came
			 * before rp (an error there loses the block it was in),
			 * so what the decode up to rp gave is no prefix of it. */
			ho_discard(&ho);
			memset(&ho, 0, sizeof(ho));
			ho.watch = !(complete && pos == j);
			ho.drop = s->st->ninsn + s->st->ngaps - num_p;
			ho.drop_ev = s->nev - ev_p;
			err = handover_run(s, pos, &cur_p, &ho);
			if (err <= 0) {
				pt_pkt_free_decoder(pd);
				s->more = 0;
				return err;
			}
		} else if (!err && ho.hold) {
			err = ho_release(&ho);
			if (err < 0)
				break;
		}
		ho_discard(&ho);
		if (err > 0) {
			/* A compressed return popped what came before: from j,
			 * less what s has since. */
			pt_pkt_free_decoder(pd);
			return from_j(s, fp, j, &cur_j, num_j, ev_j);
		}
		if (rp >= end) {
			pt_pkt_free_decoder(pd);
			s->more = 0;
			return 0; /* (handover_to flushed and set s->out) */
		}
		ptd__fastpt_count(fp, 1);
		cur = s->out;
		s->enabled = cur.enabled;
		s->off_async = cur.off_async;
		complete = 0;
		keep_stack = 0;
		pos = rp;
	}
	pt_pkt_free_decoder(pd);
	s->more = 0;
	if (err)
		return err;
	if (pos == begin)
		return decode_segment(s); /* nothing from the fast path */
	if (pos < end && !exact)
		return from_j(s, fp, j, &cur_j, num_j, ev_j);
	if (pos < end) {
		/* A PSB+ pt.c reads otherwise than libipt: libipt to the
		 * run's end (from j if a compressed return needs it). */
		memset(&ho, 0, sizeof(ho));
		ho.watch = !(complete && pos == j);
		err = handover_run(s, pos, &cur, &ho);
		if (err <= 0)
			return err;
		return from_j(s, fp, j, &cur_j, num_j, ev_j);
	}
	err = flush_pend(s);
	if (!err) {
		/* What the next run starts from (as decode_segment ends). */
		memset(&s->out, 0, sizeof(s->out));
		s->out = cur;
		s->out.have_item = (uint8_t)have_item(s);
		s->out.head_flags = s->head_flags;
	}
	return err;
}

/*
 * What comes after a run's bytes: the PSB of the next run, or nothing, at
 * the end of a chunk of a live recording (whose decode the next chunk's
 * continues, and whose end the thread's pc cuts) or of a whole trace (see
 * struct seg's whole_end).
 */
enum run_end { END_CHUNK, END_PSB, END_TRACE };

static int run_segment(const uint8_t *buf, uint64_t begin, uint64_t end, enum run_end end_kind,
		       uint64_t cut_ip, struct ptd_image *img, struct pt_image *ptimg,
		       struct iccache *icc, const struct ptd_pt_sink *sink, struct ptd_pt_stats *st,
		       int dgaps, const struct carry *in, struct carry *out, const struct ext *x)
{
	struct seg s;
	int err;

	memset(&s, 0, sizeof(s));
	if (in)
		s.in = *in;
	memset(st, 0, sizeof(*st));
	s.disabled_gaps = dgaps;
	if (sink->block == cnt_block)
		s.cnt = sink->ctx;
	s.icc = icc;
	s.buf = buf;
	s.begin = begin;
	s.end = end;
	s.end_psb = end_kind == END_PSB;
	s.whole_end = end_kind == END_TRACE && !cut_ip;
	s.cut_ip = cut_ip;
	s.img = img;
	s.ptimg = ptimg;
	s.sink = sink;
	s.st = st;
	if (icc && ptd__fastpt_enabled()) {
		if (icc->fp && ptd__fastpt_img(icc->fp) != img) {
			ptd_fastpt_free(icc->fp);
			icc->fp = NULL;
		}
		if (!icc->fp)
			icc->fp = ptd_fastpt_alloc(img);
	}
	if (x && x->set) {
		struct handover ho;

		memset(&ho, 0, sizeof(ho));
		ho.drop = x->drop;
		ho.drop_ev = x->drop_ev;
		err = handover_run(&s, x->begin, &x->in, &ho);
		if (!err && (ho.drop || ho.drop_ev))
			err = ptd__err(-ptde_internal,
				       "pt decode: the runs before gave more than decoding them again");
	} else if (icc && icc->fp && ptd__fastpt_enabled()) {
		err = fast_run(&s, icc->fp);
	} else {
		err = decode_segment(&s);
	}
	free(s.tail);
	if (out && !err)
		*out = s.out;
	return err;
}

static int lost_prefix(const uint8_t *buf, uint64_t first_psb)
{
	uint64_t i;

	for (i = 0; i < first_psb; i++)
		if (buf[i])
			return 1;
	return 0;
}

static void stats_add(struct ptd_pt_stats *acc, const struct ptd_pt_stats *seg, int *depth)
{
	acc->ninsn += seg->ninsn;
	acc->nblocks += seg->nblocks;
	acc->ngaps += seg->ngaps;
	if (!acc->start_ip)
		acc->start_ip = seg->start_ip;
	if (seg->nblocks || seg->end_ip)
		acc->end_ip = seg->end_ip;
	if (*depth + seg->depth_min < acc->depth_min)
		acc->depth_min = *depth + seg->depth_min;
	*depth += seg->depth_delta;
	acc->depth_delta = *depth;
}

int ptd_pt_decode(const uint8_t *buf, size_t size, struct ptd_image *img,
		  const struct ptd_pt_sink *sink, struct ptd_pt_stats *st)
{
	struct ptd_pt_stats local, seg;
	struct iccache *icc = NULL;
	uint64_t *off, *ips;
	size_t n;
	int err, depth = 0;

	if (!st)
		st = &local;
	memset(st, 0, sizeof(*st));
	if (!img || !sink || !sink->block || !sink->gap || (!buf && size))
		return ptd__err(-ptde_invalid, "pt decode: missing image, sink or buffer");
	if (!size)
		return 0;
	err = ptd_pt_index(buf, size, &off, &ips, &n);
	if (err < 0)
		return err;
	if (!n || lost_prefix(buf, off[0])) {
		char msg[128];

		snprintf(msg, sizeof(msg), "%s: %" PRIu64 " bytes of trace before the first PSB skipped",
			 n ? "trace starts mid-stream" : "no PSB in the trace",
			 n ? off[0] : (uint64_t)size);
		st->ngaps++;
		err = sink->gap(sink->ctx, PTD_GAP_LOST, 0, msg);
		if (err < 0)
			goto out;
	}
	icc = calloc(1, sizeof(*icc)); /* optional: NULL only costs speed */
	/* One decoder over the whole stream: what a continuous libipt
	 * decode gives, by construction (its end a live recording's chunk's:
	 * see pt.h). */
	if (n) {
		err = run_segment(buf, off[0], size, END_CHUNK, 0, img, ptd_image_pt(img), icc,
				  sink, &seg, 0, NULL, NULL, NULL);
		if (err < 0)
			goto out;
		stats_add(st, &seg, &depth);
	}
	err = 0;
out:
	icc_free(icc);
	free(off);
	free(ips);
	return err;
}

/* ---- history sink ------------------------------------------------------- */

static int hist_block(void *ctx, const struct ptd_block *b)
{
	return ptd_history_append_block(ctx, b);
}

static int hist_blocks(void *ctx, const struct ptd_block *b, size_t n)
{
	return ptd_history_append_blocks(ctx, b, n);
}

static int hist_blocks_edge(void *ctx, const struct ptd_block *b, size_t n, const uint8_t *edge)
{
	return ptd__history_append_blocks_edge(ctx, b, n, edge);
}

static int hist_gap(void *ctx, enum ptd_gap_reason r, uint64_t offset, const char *detail)
{
	return ptd_history_append_gap(ctx, r, offset, detail);
}

static int hist_event(void *ctx, enum ptd_event_kind k, uint64_t ip, uint64_t arg)
{
	return ptd_history_append_event(ctx, k, ip, arg);
}

int ptd_pt_decode_history(const uint8_t *buf, size_t size, struct ptd_image *img,
			  struct ptd_history *h, struct ptd_pt_stats *st)
{
	struct ptd_pt_sink sink = { hist_block, hist_gap, hist_event, h, hist_blocks };

	if (!h)
		return ptd__err(-ptde_invalid, "pt decode: no history");
	return ptd_pt_decode(buf, size, img, &sink, st);
}

/* ---- lazy segmented trace ----------------------------------------------- */

/*
 * Segments are discovered from the end of the trace backwards, so the
 * newest one is found and decoded after scanning only its own bytes: the
 * cost of the first reverse step does not grow with the trace.  rev[j] is
 * the j-th segment from the end; front index i (gdb order) is n-1-i and is
 * only meaningful once the backward scan reached the start (complete).
 *
 * Whole-trace histories decode *runs* of consecutive segments with one
 * libipt decoder each (so inside a run the decode is continuous by
 * construction); a run starts from the state the run before it ended in
 * (struct carry).  Runs start where possible at a "clean" PSB (its PSB+
 * has a FUP that is not directly followed by TIP.PGE, libipt can read it,
 * and the PSB+ before it ends before it), where the state a
 * decoder synced there assumes is the continuous one, so a run decoded
 * ahead of its predecessor (in parallel) rarely needs decoding again.
 */
struct segent {
	uint64_t offset, end, start_ip;
	uint8_t clean;	 /* see above */
	uint8_t in_set;	 /* in: the exact state at this PSB is known */
	uint8_t head;	 /* decoded alone: flags for the last block before it */
	uint8_t out_set; /* out: the state after this segment's decode */
	uint8_t mode;	 /* its PSB+'s MODE.Exec (struct psbhdr) */
	uint8_t tsx;	 /* its PSB+ has a MODE.TSX */
	uint8_t ok;	 /* libipt reads its PSB+ (struct psbhdr's ok) */
	uint8_t split;	 /* split_ok: 0 not known yet, 1 yes, 2 no */
	int decoded;
	struct ptd_pt_stats st;
	struct ptd_history *h; /* cached history or NULL */
	uint64_t lru;
	struct carry in, out;
};

/* A lazy history part: a run of segments, counted, decoded on demand. */
struct part {
	size_t first, last; /* front segment indices [first, last) */
	struct carry in;
	struct ext x; /* decoded as the continuation of the parts before it */
	uint8_t tail_flags; /* for its last block, from the part after it */
	uint64_t nitems;
	struct ptd_pt_stats st;
	char **details;
	uint32_t ndetails;
	struct ptd_calllog *log; /* its call log, until added to the history */
};

struct ptd_pt_trace {
	const uint8_t *buf;
	size_t size;
	struct ptd_image *img;
	ptd_read_fn read;
	void *rctx;
	size_t cache_max, ncached;
	uint64_t clock;
	struct segent *rev;
	size_t nrev, caprev;
	uint64_t scan_pos; /* bytes [0, scan_pos) not yet searched backwards */
	int complete;
	int first_fixed; /* the first PSB moved where libipt syncs (sync_psb) */
	uint64_t lost;
	int lost_nonzero;
	struct iccache *icc; /* for decodes in the calling thread; may be NULL */
	/* The (empty) history segment_of gave last for a segment the index
	 * lost while decoding it (see there). */
	struct ptd_history *gone;
	/* Reads the PSB+ headers index_back() finds (one decoder for all:
	 * a trace of tiny PSB periods has tens of thousands). */
	struct pt_packet_decoder *psbrd;
	uint64_t tail_ip;    /* where the thread stopped, for the newest segment */
	int disabled_gaps;   /* see ptd_pt_trace_set_disabled_gaps */
	uint32_t lazy_parts; /* see ptd_pt_trace_set_lazy_history; 0: off */
	int lazy_now;	     /* this history is lazy (lazy_parts, and large enough) */
	struct part *parts;  /* lazy history runs */
	uint32_t nparts;
	uint32_t *hmap; /* history part -> run (runs without items have none) */
	uint32_t nh;
	/* The func_of of the history being built, for the call log its
	 * parts and batches keep (see ptd_history_set_func), or NULL. */
	const struct ptd_funcs *funcs;
};

static int64_t find_psb_back(const uint8_t *buf, uint64_t limit)
{
	uint64_t pos = limit;

	while (pos >= sizeof(psb_pattern)) {
		const uint8_t *hit = memrchr(buf, 0x82, pos);
		uint64_t end, r;

		if (!hit)
			return -1;
		end = (uint64_t)(hit - buf) + 1;
		if (end < 2 || buf[end - 2] != 0x02) {
			pos = end - 1;
			continue;
		}
		r = end - 2;
		while (r >= 2 && buf[r - 2] == 0x02 && buf[r - 1] == 0x82)
			r -= 2;
		if (end - r >= sizeof(psb_pattern))
			return (int64_t)(r + ((end - r) / sizeof(psb_pattern) - 1) * sizeof(psb_pattern));
		pos = r;
	}
	return -1;
}

/* Makes sure at least @want segments from the end are known (or all). */
static int index_back(struct ptd_pt_trace *t, size_t want)
{
	while (!t->complete && t->nrev < want) {
		int64_t off = find_psb_back(t->buf, t->scan_pos);
		struct segent *e;
		struct psbhdr hdr;

		if (off < 0) {
			t->complete = 1;
			break;
		}
		if (t->nrev == t->caprev) {
			size_t nc = t->caprev ? t->caprev * 2 : 64;
			struct segent *p = realloc(t->rev, nc * sizeof(*p));

			if (!p)
				return ptd__err(-ptde_nomem, "out of memory indexing PT");
			t->rev = p;
			t->caprev = nc;
		}
		e = &t->rev[t->nrev];
		memset(e, 0, sizeof(*e));
		e->offset = (uint64_t)off;
		e->end = t->nrev ? t->rev[t->nrev - 1].offset : t->size;
		if (!t->psbrd && !(t->psbrd = psb_reader(t->buf, t->size)))
			return ptd__err(-ptde_nomem, "out of memory indexing PT");
		read_psb_hdr_at(t->psbrd, e->offset, &hdr);
		e->start_ip = hdr.fup_ip;
		e->clean = psb_clean(&hdr);
		e->mode = hdr.mode;
		e->tsx = hdr.tsx;
		e->ok = hdr.ok;
		/* A PSB+ without PSBEND before the next PSB: the continuous
		 * decoder reads that PSB as a packet of the header and fails
		 * there, where a run that ends at it runs out of bytes in the
		 * header (no error): the next PSB is no run boundary. */
		if (!hdr.ok && t->nrev)
			t->rev[t->nrev - 1].clean = 0;
		t->nrev++;
		t->scan_pos = (uint64_t)off;
	}
	if (t->complete && t->nrev && !t->first_fixed) {
		/* The first PSB where libipt synchronises (sync_psb): PSBs
		 * the index found before it inside the same run go. */
		uint64_t want = sync_psb(t->buf, t->size, t->rev[t->nrev - 1].offset);
		struct segent *e;

		t->first_fixed = 1;
		while (t->nrev > 1 && t->rev[t->nrev - 2].offset <= want) {
			e = &t->rev[--t->nrev];
			if (e->h) {
				ptd_history_free(e->h);
				t->ncached--;
			}
		}
		e = &t->rev[t->nrev - 1];
		if (e->offset < want && want < e->end) {
			struct psbhdr hdr;

			read_psb_hdr_at(t->psbrd, want, &hdr);
			if (e->h) {
				ptd_history_free(e->h);
				e->h = NULL;
				t->ncached--;
			}
			e->offset = want;
			e->start_ip = hdr.fup_ip;
			e->clean = psb_clean(&hdr);
			e->mode = hdr.mode;
			e->tsx = hdr.tsx;
			e->ok = hdr.ok;
			e->decoded = 0;
			e->out_set = 0;
			e->in_set = 0;
		}
		if (t->nrev > 1) {
			/* (the segment after the first: clean as its own PSB+
			 * and the first's, now where libipt syncs, say) */
			struct psbhdr first, next;
			uint8_t clean;

			e = &t->rev[t->nrev - 2];
			read_psb_hdr_at(t->psbrd, t->rev[t->nrev - 1].offset, &first);
			read_psb_hdr_at(t->psbrd, e->offset, &next);
			clean = psb_clean(&next) && first.ok;
			e->split = 0;
			if (clean != e->clean) {
				e->clean = clean;
				if (e->h) {
					ptd_history_free(e->h);
					e->h = NULL;
					t->ncached--;
				}
				e->decoded = 0;
				e->out_set = 0;
			}
		}
	}
	if (t->complete) {
		t->lost = t->nrev ? t->rev[t->nrev - 1].offset : t->size;
		t->lost_nonzero = t->size && lost_prefix(t->buf, t->lost);
	}
	return 0;
}

static int index_all(struct ptd_pt_trace *t)
{
	return index_back(t, SIZE_MAX);
}

struct ptd_pt_trace *ptd_pt_trace_alloc(const uint8_t *buf, size_t size, struct ptd_image *img,
					ptd_read_fn read, void *ctx, size_t cache_max)
{
	struct ptd_pt_trace *t;

	if (!img || (!buf && size)) {
		ptd__err(-ptde_invalid, "pt trace: missing image or buffer");
		return NULL;
	}
	t = calloc(1, sizeof(*t));
	if (!t) {
		ptd__err(-ptde_nomem, "out of memory allocating a PT trace");
		return NULL;
	}
	t->buf = buf;
	t->size = size;
	t->img = img;
	t->read = read ? read : ptd_image_read;
	t->rctx = read ? ctx : img;
	t->cache_max = cache_max ? cache_max : 64;
	t->scan_pos = size;
	if (!size)
		t->complete = 1;
	t->icc = calloc(1, sizeof(*t->icc));
	return t;
}

static void free_details(struct part *p)
{
	uint32_t i;

	for (i = 0; i < p->ndetails; i++)
		free(p->details[i]);
	free(p->details);
	p->details = NULL;
	p->ndetails = 0;
}

void ptd_pt_trace_free(struct ptd_pt_trace *t)
{
	size_t i;

	if (!t)
		return;
	for (i = 0; i < t->nrev; i++)
		ptd_history_free(t->rev[i].h);
	ptd_history_free(t->gone);
	for (i = 0; i < t->nparts; i++) {
		free_details(&t->parts[i]);
		ptd__calllog_free(t->parts[i].log);
	}
	free(t->parts);
	free(t->hmap);
	free(t->rev);
	icc_free(t->icc);
	pt_pkt_free_decoder(t->psbrd);
	free(t);
}

size_t ptd_pt_trace_nsegs(struct ptd_pt_trace *t)
{
	if (!t || index_all(t) < 0)
		return 0;
	return t->nrev;
}

uint64_t ptd_pt_trace_lost(struct ptd_pt_trace *t)
{
	if (!t || index_all(t) < 0)
		return 0;
	return t->lost;
}

/* Front index @i -> entry, completing the index. */
static struct segent *seg_front(struct ptd_pt_trace *t, size_t i)
{
	if (!t || index_all(t) < 0)
		return NULL;
	if (i >= t->nrev) {
		ptd__err(-ptde_invalid, "no PT segment %zu", i);
		return NULL;
	}
	return &t->rev[t->nrev - 1 - i];
}

/* Front index @i of a complete index -> entry. */
static inline struct segent *front(struct ptd_pt_trace *t, size_t i)
{
	return &t->rev[t->nrev - 1 - i];
}

static uint64_t cut_of(const struct ptd_pt_trace *t, const struct segent *e)
{
	size_t j = (size_t)(e - t->rev);

	return j ? t->rev[j - 1].start_ip : t->tail_ip;
}

/* A loaded trace is a whole one: after its last segment comes nothing. */
static enum run_end end_of(const struct ptd_pt_trace *t, const struct segent *e)
{
	return e->end < t->size ? END_PSB : END_TRACE;
}

void ptd_pt_trace_set_tail(struct ptd_pt_trace *t, uint64_t ip)
{
	size_t i;

	if (!t || t->tail_ip == ip)
		return;
	t->tail_ip = ip;
	/* The newest segment's cut changes: forget what was decoded of it. */
	for (i = 0; i < t->nrev && i < 1; i++) {
		if (t->rev[i].h) {
			ptd_history_free(t->rev[i].h);
			t->rev[i].h = NULL;
			t->ncached--;
		}
		t->rev[i].decoded = 0;
		t->rev[i].out_set = 0;
	}
}

int ptd_pt_trace_seginfo(struct ptd_pt_trace *t, size_t i, struct ptd_pt_seginfo *si)
{
	const struct segent *e = seg_front(t, i);

	if (!e || !si)
		return ptd__err(-ptde_invalid, "no PT segment %zu", i);
	memset(si, 0, sizeof(*si));
	si->offset = e->offset;
	si->size = e->end - e->offset;
	si->start_ip = e->start_ip;
	si->decoded = e->decoded;
	si->cached = e->h != NULL;
	si->count = e->st.ninsn + e->st.ngaps;
	si->ninsn = e->st.ninsn;
	si->depth_delta = e->st.depth_delta;
	si->depth_min = e->st.depth_min;
	return 0;
}

/* ---- carried state ---- */

static const struct carry carry_start = {.kind = CARRY_FRESH};

/* The state at the first PSB of @t: the gap for the bytes lost before it
 * is an item (gdb's rule for "disabled" gaps). */
static struct carry carry_first(const struct ptd_pt_trace *t)
{
	struct carry c = carry_start;

	c.have_item = (uint8_t)(t->lost_nonzero != 0);
	return c;
}

/* The state at a PSB as far as its PSB+ alone tells. */
static struct carry carry_guess(const struct segent *e)
{
	struct carry c = {.kind = CARRY_STATE, .have_item = 1};

	c.enabled = e->clean;
	c.mode = e->mode;
	return c;
}

static int start_exact(const struct carry *c, const struct segent *e);

/* Do runs started at segment @e from @a and from @b decode the same? */
static int carry_same(const struct carry *a, const struct carry *b, const struct segent *e)
{
	if (a->kind != b->kind || a->have_item != b->have_item)
		return 0;
	if (a->kind == CARRY_FRESH)
		return a->errend == b->errend;
	if (a->enabled != b->enabled)
		return 0;
	/* (the mode is checked against the PSB+'s while tracing is on, and
	 * kept where the PSB+ has none) */
	if ((a->enabled || !e->mode) && a->mode != b->mode)
		return 0;
	if (!e->tsx && a->spec != b->spec)
		return 0;
	if (a->pend_exec != b->pend_exec)
		return 0;
	if (a->enabled)
		return 1;
	return a->off_async == b->off_async && a->dis_known == b->dis_known &&
	       (!a->off_async || a->async_at == b->async_at) &&
	       (!a->dis_known || a->dis_ip == b->dis_ip);
}

static int cnt_block(void *ctx, const struct ptd_block *b);
static int cnt_blocks(void *ctx, const struct ptd_block *b, size_t n);
static int cnt_gap(void *ctx, enum ptd_gap_reason r, uint64_t offset, const char *detail);
static int cnt_event(void *ctx, enum ptd_event_kind k, uint64_t ip, uint64_t arg);

/*
 * Decodes front segments [@first, @last) as one run from @in into @sink
 * (NULL: count only); @out gets the state after it.  @img/@icc: the
 * caller's thread's.
 */
static int run_range(struct ptd_pt_trace *t, size_t first, size_t last, const struct carry *in,
		     struct pt_image *img, struct iccache *icc, const struct ptd_pt_sink *sink,
		     struct ptd_pt_stats *st, struct carry *out, const struct ext *x)
{
	const struct segent *a = front(t, first), *z = front(t, last - 1);
	uint64_t nitems = 0;
	struct part scratch;
	struct counter c;
	struct ptd_pt_sink cs = {cnt_block, cnt_gap, cnt_event, &c, cnt_blocks};
	int err;

	if (!img)
		return ptd__err(-ptde_nomem, "out of memory decoding PT");
	if (!sink) {
		memset(&scratch, 0, sizeof(scratch));
		memset(&c, 0, sizeof(c));
		c.img = t->img;
		c.nitems = &nitems;
		c.seg = &scratch;
		sink = &cs;
	}
	err = run_segment(t->buf, a->offset, z->end, end_of(t, z), cut_of(t, z), t->img, img, icc,
			  sink, st, t->disabled_gaps, in, out, x);
	if (sink == &cs)
		free_details(&scratch);
	return err;
}

/*
 * The exact state at front segment @i's PSB, for whole-trace histories:
 * known when a run ended there, else from one counting run over
 * everything before it.
 */
static int exact_in(struct ptd_pt_trace *t, size_t i, struct carry *in)
{
	struct segent *e = front(t, i);
	struct ptd_pt_stats st;
	int err;

	if (i == 0) {
		*in = carry_first(t);
		return 0;
	}
	if (e->in_set) {
		*in = e->in;
		return 0;
	}
	{
		struct carry c0 = carry_first(t);

		err = run_range(t, 0, i, &c0, ptd_image_pt(t->img), t->icc, NULL, &st, in, NULL);
	}
	if (err < 0)
		return err;
	e->in = *in;
	e->in_set = 1;
	return 0;
}

static int decode_depth(struct ptd_pt_trace *t, struct segent *e, struct pt_image *ptimg,
			struct iccache *icc, struct ptd_history **out, struct ptd_pt_stats *st,
			int depth, int split);
static int run_rev(struct ptd_pt_trace *t, size_t older, size_t newer, const struct carry *in,
		   struct pt_image *img, struct iccache *icc, const struct ptd_pt_sink *sink,
		   struct ptd_pt_stats *st, struct carry *out);

/*
 * The state at segment @e's PSB for decoding that segment alone (the
 * newest-first path): exact when known, else what the segment before it
 * ended in (decoding that one, up to @depth segments back), else the guess
 * from the PSB+.
 */
static struct carry carry_for(struct ptd_pt_trace *t, struct segent *e, int depth)
{
	size_t j = (size_t)(e - t->rev);
	struct segent *older;

	if (e->in_set)
		return e->in;
	if (index_back(t, j + 2) < 0)
		return carry_guess(&t->rev[j]);
	e = &t->rev[j]; /* the index may have moved */
	if (j + 1 >= t->nrev)
		return t->complete ? carry_first(t) : carry_guess(e);
	older = &t->rev[j + 1];
	if (older->out_set)
		return older->out;
	/* (even at a clean PSB after packets that end with tracing on in
	 * its PSB+'s mode, the guess fails where the continuous decoder's
	 * error, found reading ahead, or a linear tail that does not reach
	 * the PSB+'s ip, goes past it: only decoding the segment before
	 * tells; the first reverse step pays up to @depth such segments) */
	if (depth <= 0)
		return carry_guess(e);
	{
		struct ptd_history *h;
		struct ptd_pt_stats st;

		if (decode_depth(t, older, ptd_image_pt(t->img), t->icc, &h, &st, depth - 1, 0) < 0)
			return carry_guess(&t->rev[j]);
		ptd_history_free(h);
		older = &t->rev[j + 1];
		return older->out_set ? older->out : carry_guess(&t->rev[j]);
	}
}

/* Segments of rev indices [@newer, @older] as one run, from @in. */
static int run_rev(struct ptd_pt_trace *t, size_t older, size_t newer, const struct carry *in,
		   struct pt_image *img, struct iccache *icc, const struct ptd_pt_sink *sink,
		   struct ptd_pt_stats *st, struct carry *out)
{
	const struct segent *a = &t->rev[older], *z = &t->rev[newer];
	uint64_t nitems = 0;
	struct part scratch;
	struct counter c;
	struct ptd_pt_sink cs = {cnt_block, cnt_gap, cnt_event, &c, cnt_blocks};
	int err;

	if (!sink) { /* count only */
		memset(&scratch, 0, sizeof(scratch));
		memset(&c, 0, sizeof(c));
		c.img = t->img;
		c.nitems = &nitems;
		c.seg = &scratch;
		sink = &cs;
	}
	err = run_segment(t->buf, a->offset, z->end, end_of(t, z), cut_of(t, z), t->img, img, icc,
			  sink, st, t->disabled_gaps, in, out, NULL);
	if (sink == &cs)
		free_details(&scratch);
	return err;
}

static void count_block(struct ptd_pt_stats *st, int *depth, const struct ptd_block *b)
{
	st->ninsn += b->ninsn;
	st->nblocks++;
	if (!st->start_ip)
		st->start_ip = b->ip;
	*depth += (b->iclass == PTD_IC_CALL) - (b->iclass == PTD_IC_RET);
	if (*depth < st->depth_min)
		st->depth_min = *depth;
	st->depth_delta = *depth;
}

/*
 * Appends to @dst what @src holds after instruction number @n (a block
 * holding number @n contributes the instructions after it), and fills
 * @st with the counts of what was appended.
 */
static int history_after(const struct ptd_history *src, uint64_t n, struct ptd_history *dst,
			 struct ptd_pt_stats *st)
{
	uint64_t i = 0, nitems = ptd_history_nitems(src);
	int depth = 0, err = 0;

	memset(st, 0, sizeof(*st));
	if (n) {
		struct ptd_hcursor c;
		struct ptd_item it;

		if (n >= ptd_history_count(src))
			return 0;
		err = ptd_hcursor_goto(&c, src, n);
		if (err < 0)
			return err;
		i = c.item_index;
		if (!ptd_history_item(src, i, &it))
			return ptd__err(-ptde_internal, "history item %" PRIu64 " missing", i);
		if (it.kind == PTD_ITEM_BLOCK && c.insn_index + 1 < it.block.ninsn) {
			struct ptd_block b = it.block;
			uint64_t ip = c.ip + c.len;

			b.ip = ip;
			b.ninsn -= c.insn_index + 1;
			err = ptd_history_append_block(dst, &b);
			if (err < 0)
				return err;
			count_block(st, &depth, &b);
		}
		i++;
	}
	for (; i < nitems && !err; i++) {
		struct ptd_item it;

		if (!ptd_history_item(src, i, &it))
			return ptd__err(-ptde_internal, "history item %" PRIu64 " missing", i);
		if (it.kind == PTD_ITEM_BLOCK) {
			err = ptd_history_append_block(dst, &it.block);
			count_block(st, &depth, &it.block);
		} else if (it.kind == PTD_ITEM_GAP) {
			err = ptd_history_append_gap(dst, it.reason, it.arg,
						     it.detail ? ptd_history_detail(src, it.detail)
							       : NULL);
			st->ngaps++;
		} else {
			err = ptd_history_append_event(dst, it.reason, it.block.ip, it.arg);
		}
	}
	return err < 0 ? err : 0;
}

/* Warm-up runs start at most this many segments before the one wanted. */
#define WARMUP_SEGS 64

/*
 * One warm-up decode (decode_warm's): from @in at rev[@k] on through
 * rev[@last], all it gives (@whole), how much of that comes before rev[@j]'s
 * PSB (@nb: what the same decode without rev[@j] gives), the flags it
 * learnt for the block there and the state after it.
 */
struct warm {
	struct ptd_history *whole;
	uint64_t nb;
	struct ptd_pt_stats st;
	struct carry in, out;
	uint8_t head;
};

static int warm_run(struct ptd_pt_trace *t, size_t k, size_t j, size_t last, const struct carry *in,
		    struct pt_image *ptimg, struct iccache *icc, struct warm *w)
{
	struct ptd_pt_sink sink = {hist_block, hist_gap, hist_event, NULL, hist_blocks};
	struct ptd_pt_stats sb;
	struct ptd_hcursor c;
	int err;

	memset(w, 0, sizeof(*w));
	w->in = *in;
	w->whole = ptd_history_alloc(t->read, t->rctx);
	if (!w->whole)
		return ptd__err(-ptde_nomem, "out of memory allocating a segment history");
	sink.ctx = w->whole;
	err = run_rev(t, k, last, in, ptimg, icc, &sink, &w->st, &w->out);
	if (!err)
		err = run_rev(t, k, j + 1, in, ptimg, icc, NULL, &sb, NULL);
	if (err) {
		ptd_history_free(w->whole);
		w->whole = NULL;
		return err;
	}
	w->nb = sb.ninsn + sb.ngaps;
	if (w->nb && ptd_hcursor_goto(&c, w->whole, w->nb) == 0 && !c.is_gap)
		w->head = c.block_flags & (PTD_BLK_INTERRUPTED | PTD_BLK_SYSCALL);
	return 0;
}

static int carry_eq(const struct carry *a, const struct carry *b)
{
	return a->kind == b->kind && a->enabled == b->enabled && a->have_item == b->have_item &&
	       a->off_async == b->off_async && a->dis_known == b->dis_known && a->mode == b->mode &&
	       a->uncut == b->uncut && a->spec == b->spec && a->pend_exec == b->pend_exec &&
	       a->errend == b->errend && a->async_at == b->async_at && a->dis_ip == b->dis_ip;
}

/* Do two warm-up decodes give the same from rev[j]'s PSB on?  Returns 1,
 * 0, or an error. */
static int warm_same(struct ptd_pt_trace *t, const struct warm *a, const struct warm *b)
{
	struct ptd_history *x = ptd_history_alloc(t->read, t->rctx);
	struct ptd_history *y = ptd_history_alloc(t->read, t->rctx);
	struct ptd_pt_stats s;
	uint64_t i, n;
	int same = 0;

	if (!x || !y) {
		same = ptd__err(-ptde_nomem, "out of memory allocating a segment history");
		goto out;
	}
	if (a->head != b->head || !carry_eq(&a->out, &b->out) || a->st.end_ip != b->st.end_ip)
		goto out;
	same = history_after(a->whole, a->nb, x, &s);
	if (!same)
		same = history_after(b->whole, b->nb, y, &s);
	if (same < 0)
		goto out;
	n = ptd_history_nitems(x);
	same = n == ptd_history_nitems(y);
	for (i = 0; same && i < n; i++) {
		struct ptd_item p, q;

		if (ptd_history_item(x, i, &p) != 1 || ptd_history_item(y, i, &q) != 1) {
			same = 0;
			break;
		}
		same = p.kind == q.kind && p.reason == q.reason && p.arg == q.arg &&
		       p.block.ip == q.block.ip &&
		       (p.kind != PTD_ITEM_BLOCK ||
			(p.block.end_ip == q.block.end_ip && p.block.ninsn == q.block.ninsn &&
			 p.block.iclass == q.block.iclass && p.block.flags == q.block.flags));
	}
out:
	ptd_history_free(x);
	ptd_history_free(y);
	return same;
}

/*
 * Segment @e (rev index @j) at an unclean PSB, decoded exactly: one run
 * from an older clean PSB (or the trace start) through @e (and on through
 * segment @last, newer or @j: see decode_depth), less what the same run
 * without @e gives.  The state at an unclean PSB depends on how libipt
 * read what came before, which only decoding it tells.
 *
 * Where nothing exact is known at that older PSB, the state its PSB+
 * suggests (or the one the segment before it ended in, see carry_for) is
 * a guess, and in a damaged trace the continuous decoder may be elsewhere
 * there: enabled at another ip, or reading through it into an error, each
 * error moving where it synchronises again.  Such a start is taken only
 * when a run from the next such start further back gives the same from
 * @e's PSB on (both decoders forgot where they started: what they give no
 * longer depends on it), unless that farther start is in doubt itself (the
 * segment before it, decoded alone, ends in a state no decoder
 * synchronised there can take): a run from there may come through the
 * nearer start in just the state guessed there and agree without telling
 * anything.  Else the farther one is checked the same way, up to an exact
 * start (the trace start, or a state a whole-trace history left) or
 * WARMUP_SEGS segments back, where the farthest run is taken.  Returns 1
 * when done, 0 when no such start is near.
 */
static int decode_warm(struct ptd_pt_trace *t, size_t j, size_t last, struct pt_image *ptimg,
		       struct iccache *icc, struct ptd_history *h, struct ptd_pt_stats *st,
		       int from_start)
{
	struct warm a, b;
	struct carry in;
	size_t k;
	int err = 0, done = 0;

	memset(&a, 0, sizeof(a));
	for (k = j + 1;; k++) {
		int exact = 0, doubt = 0;

		/* (k + 2: whether rev[k] is clean depends on the PSB+ before) */
		if (index_back(t, k + 2) < 0) {
			err = ptd__err(-ptde_nomem, "out of memory indexing PT");
			goto out;
		}
		if (k >= t->nrev) {
			if (!t->complete)
				break;
			k = t->nrev - 1; /* the trace start: libipt syncs there */
			in = carry_first(t);
			exact = 1;
		} else if (t->rev[k].clean && !from_start) {
			/* (a clean PSB where the exact state is known and no
			 * decoder synchronised there can take it: further
			 * back; the state there is also known when the
			 * segment before it was decoded, see carry_for) */
			const struct carry *known;

			index_back(t, k + 2); /* (may move the index) */
			if (!t->rev[k].in_set && k + 1 < t->nrev && !t->rev[k + 1].out_set &&
			    t->rev[k + 1].clean)
				/* (nothing known there: the segment before it,
				 * decoded from its own PSB+, tells whether the
				 * continuous decoder can be where this PSB+
				 * says, see carry_for; one segment, no deeper) */
				(void)carry_for(t, &t->rev[k], 1);
			known = t->rev[k].in_set ? &t->rev[k].in : NULL;
			exact = known != NULL;
			if (!known && k + 1 < t->nrev && t->rev[k + 1].out_set)
				known = &t->rev[k + 1].out;
			if (!known && k + 1 < t->nrev && !t->rev[k + 1].clean) {
				/* (the PSB before is not clean, so carry_for
				 * does not tell: that segment decoded alone from
				 * the state its PSB+ suggests, where a decoder
				 * synchronised here cannot take the state it
				 * ends in, puts this start in doubt) */
				struct carry g = carry_guess(&t->rev[k + 1]), alone;
				struct ptd_pt_stats gst;

				err = run_rev(t, k + 1, k + 1, &g, ptimg, icc, NULL, &gst, &alone);
				if (err < 0)
					goto out;
				doubt = !start_exact(&alone, &t->rev[k]);
			}
			if (known && !start_exact(known, &t->rev[k]))
				goto next;
			if (t->complete && k + 1 == t->nrev) {
				in = carry_first(t); /* the trace start */
				exact = 1;
			} else {
				in = known ? *known : carry_guess(&t->rev[k]);
			}
		} else {
			goto next;
		}
		if (k == j)
			break;
		err = warm_run(t, k, j, last, &in, ptimg, icc, &b);
		if (err < 0)
			goto out;
		if (!exact && a.whole && !doubt) {
			err = warm_same(t, &a, &b);
			if (err < 0) {
				ptd_history_free(b.whole);
				goto out;
			}
			exact = err;
		}
		ptd_history_free(a.whole);
		a = b;
		if (exact) {
			done = 1;
			break;
		}
		if (k + 1 >= t->nrev)
			break;
next:
		if (k - j >= WARMUP_SEGS)
			break;
	}
	err = 0;
	if (!a.whole)
		goto out;
	done = 1;
	if (a.st.nretstack && a.in.kind == CARRY_STATE) {
		/* A compressed return found the stack of the decoder started
		 * at that PSB empty, where the continuous one may still hold
		 * calls from before it (see decode_depth): from the trace
		 * start instead, when that is near (else the gap stays). */
		err = decode_warm(t, j, last, ptimg, icc, h, st, 1);
		if (err)
			goto out;
	}
	err = history_after(a.whole, a.nb, h, st);
	if (!err) {
		st->end_ip = a.st.end_ip;
		t->rev[last].out = a.out;
		t->rev[last].out_set = 1;
		/* What the run learnt about the block before this segment. */
		t->rev[last].head = a.head;
	}
out:
	ptd_history_free(a.whole);
	return err < 0 ? err : done;
}

/*
 * Is the PSB of segment rev[@j] a place where the continuous decode splits
 * (what a decode that ends there gives, its prefix)?  Not where libipt
 * cannot read its PSB+ (the continuous decoder fails there, while it
 * finishes the block before it) or the PSB+ before it, which it cuts, nor
 * where the packets before it do not end exactly at it (one that goes on
 * into it, or one libipt cannot read: a decoder that ends there runs out
 * of bytes where the continuous one reads on), nor where a FUP before it
 * waits for its TIP (fup_waits): a decoder that ends there gives what the
 * continuous one does not.  The trace's first PSB is.  Needs the index
 * through rev[@j + 1].
 */
static int split_ok(struct ptd_pt_trace *t, size_t j)
{
	struct segent *e = &t->rev[j];
	const struct segent *o;
	int st;

	if (j + 1 >= t->nrev)
		return 1;
	if (e->split)
		return e->split == 1;
	o = &t->rev[j + 1];
	st = 0;
	if (e->ok && o->ok) {
		/* (the walk over the packet lengths first; libipt's where it
		 * does not know a packet) */
		may_trail_exec(t->buf, o->offset, e->offset, &st, ovf_scans(t->img));
		if (st == -3)
			st = packets_ok(t->psbrd, o->offset, e->offset, 0);
		else if (st == -1)
			st = !fup_waits(t->buf, 0, o->offset, -2, ovf_scans(t->img));
		else
			st = !st;
		/* (tracing on where the PSB+ has no FUP: the continuous decoder
		 * reads on from where it is, a decoder that ends there gives
		 * the linear code after the last packet; only a damaged trace
		 * does this) */
		if (st && !e->start_ip && trace_on_at(t->buf, e->offset))
			st = 0;
	}
	e->split = st ? 1 : 2;
	return st;
}

/*
 * Decodes segment @e alone into a new history with image @ptimg.  Where
 * its PSB is no place to split at (split_ok), its history starts at the
 * nearest older PSB that is (the segments in between have none: the one
 * whose end is no such place gives nothing, see ptd_pt_trace_history_range
 * too), so the segments' histories put together are the continuous
 * decode's.  Without @split (decoded only for the state after it, see
 * carry_for) it starts at its own PSB: what a walk over the packets costs
 * is paid only for the segments asked for.
 */
static int decode_depth(struct ptd_pt_trace *t, struct segent *e, struct pt_image *ptimg,
			struct iccache *icc, struct ptd_history **out, struct ptd_pt_stats *st,
			int depth, int split)
{
	size_t j = (size_t)(e - t->rev), last = j, k;
	struct ptd_history *h = ptd_history_alloc(t->read, t->rctx);
	struct ptd_pt_sink sink = { hist_block, hist_gap, hist_event, h, hist_blocks };
	struct carry in, o;
	int err;

	*out = NULL;
	if (!h)
		return ptd__err(-ptde_nomem, "out of memory allocating a segment history");
	/* (whether @e is clean depends on the PSB+ before it too) */
	if (index_back(t, j + 2) < 0) {
		ptd_history_free(h);
		return ptd__err(-ptde_nomem, "out of memory indexing PT");
	}
	/* (the index complete, PSBs before where libipt synchronises first
	 * are gone: so may @e be, see index_back) */
	if (j >= t->nrev || (split && j && !split_ok(t, j - 1))) {
		/* (its items are the next segment's) */
		memset(st, 0, sizeof(*st));
		*out = h;
		return 0;
	}
	for (k = j; split; k++) {
		/* (rev[k + 1] where it stays: the first PSB moves once the
		 * index is complete, see index_back) */
		if (index_back(t, k + 3) < 0) {
			ptd_history_free(h);
			return ptd__err(-ptde_nomem, "out of memory indexing PT");
		}
		if (k + 1 >= t->nrev || split_ok(t, k) || k - j >= WARMUP_SEGS)
			break;
	}
	if (split && k < t->nrev && split_ok(t, k))
		j = k;
	e = &t->rev[j];
	if (!e->clean && !e->in_set) {
		err = decode_warm(t, j, last, ptimg, icc, h, st, 0);
		if (err < 0) {
			ptd_history_free(h);
			return err;
		}
		if (err > 0) {
			*out = h;
			return 0;
		}
		e = &t->rev[j];
	}
	in = carry_for(t, e, depth);
	e = &t->rev[j];
	if (!start_exact(&in, e)) {
		/* (the continuation of the decode before it) */
		err = decode_warm(t, j, last, ptimg, icc, h, st, 0);
		if (err < 0) {
			ptd_history_free(h);
			return err;
		}
		if (err > 0) {
			*out = h;
			return 0;
		}
		e = &t->rev[j];
	}
	err = run_segment(t->buf, e->offset, t->rev[last].end, end_of(t, &t->rev[last]),
			  cut_of(t, &t->rev[last]), t->img, ptimg, icc, &sink, st, t->disabled_gaps,
			  &in, &o, NULL);
	if (err < 0) {
		ptd_history_free(h);
		return err;
	}
	e = &t->rev[last];
	e->out = o;
	e->out_set = 1;
	e->head = o.head_flags;
	if (st->nretstack && in.kind == CARRY_STATE) {
		/* A compressed return found the stack of a decoder started
		 * at this PSB empty, where the continuous one may still
		 * hold calls from before it (see take_done): decoded as the
		 * continuation of the decode from the trace start, when
		 * that is near (else it stays a gap). */
		struct ptd_history *w = ptd_history_alloc(t->read, t->rctx);
		struct ptd_pt_stats wst;

		if (!w) {
			ptd_history_free(h);
			return ptd__err(-ptde_nomem, "out of memory allocating a segment history");
		}
		err = decode_warm(t, j, last, ptimg, icc, w, &wst, 1);
		if (err > 0) {
			ptd_history_free(h);
			h = w;
			*st = wst;
		} else {
			ptd_history_free(w);
		}
		if (err < 0) {
			ptd_history_free(h);
			return err;
		}
	}
	*out = h;
	return 0;
}

static int decode_into(struct ptd_pt_trace *t, struct segent *e, struct pt_image *ptimg,
		       struct iccache *icc, struct ptd_history **out, struct ptd_pt_stats *st)
{
	return decode_depth(t, e, ptimg, icc, out, st, 4, 1);
}

static void evict(struct ptd_pt_trace *t, const struct segent *keep)
{
	while (t->ncached > t->cache_max) {
		size_t i, victim = SIZE_MAX;

		for (i = 0; i < t->nrev; i++) {
			if (!t->rev[i].h || &t->rev[i] == keep)
				continue;
			if (victim == SIZE_MAX || t->rev[i].lru < t->rev[victim].lru)
				victim = i;
		}
		if (victim == SIZE_MAX)
			return;
		ptd_history_free(t->rev[victim].h);
		t->rev[victim].h = NULL;
		t->ncached--;
	}
}

static const struct ptd_history *segment_of(struct ptd_pt_trace *t, struct segent *e)
{
	if (!e->h) {
		struct ptd_pt_stats st;
		size_t j = (size_t)(e - t->rev);
		struct ptd_history *h;

		/* (into a local: decode_into may grow the index, moving it) */
		if (decode_into(t, e, ptd_image_pt(t->img), t->icc, &h, &st) < 0)
			return NULL;
		if (j >= t->nrev) {
			/* The index completed while decoding it, and its PSB
			 * went: one before the first where libipt synchronises
			 * (see index_back).  Its bytes belong to the first
			 * segment, its history has no items. */
			ptd_history_free(t->gone);
			t->gone = h;
			return h;
		}
		e = &t->rev[j];
		e->h = h;
		e->st = st;
		e->decoded = 1;
		t->ncached++;
	}
	e->lru = ++t->clock;
	evict(t, e);
	return e->h;
}

const struct ptd_history *ptd_pt_trace_segment(struct ptd_pt_trace *t, size_t i)
{
	struct segent *e = seg_front(t, i);

	return e ? segment_of(t, e) : NULL;
}

const struct ptd_history *ptd_pt_trace_newest(struct ptd_pt_trace *t, size_t k)
{
	if (!t) {
		ptd__err(-ptde_invalid, "no PT trace");
		return NULL;
	}
	if (k == SIZE_MAX || index_back(t, k + 1) < 0)
		return NULL;
	if (k >= t->nrev) {
		ptd__err(-ptde_bos, "no PT segment %zu from the end (the trace has %zu)", k, t->nrev);
		return NULL;
	}
	return segment_of(t, &t->rev[k]);
}

void ptd_pt_trace_set_disabled_gaps(struct ptd_pt_trace *t, int on)
{
	if (t)
		t->disabled_gaps = on != 0;
}

uint8_t ptd_pt_trace_newest_head(struct ptd_pt_trace *t, size_t k)
{
	if (!t || k == SIZE_MAX || index_back(t, k + 2) < 0 || k >= t->nrev)
		return 0;
	/* (a segment without items of its own, see decode_depth: the last
	 * block before it is the one before the newer segment that has
	 * them) */
	while (k && !t->rev[k].out_set && !split_ok(t, k - 1))
		k--;
	if (!t->rev[k].out_set)
		return 0;
	return t->rev[k].head;
}

int ptd_pt_trace_has_newest(struct ptd_pt_trace *t, size_t k)
{
	if (!t || k == SIZE_MAX || index_back(t, k + 1) < 0)
		return 0;
	return k < t->nrev;
}

/* ---- lazy history: counted runs, decoded when needed ---- */

static int cnt_blocks(void *ctx, const struct ptd_block *b, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		cnt_block(ctx, &b[i]);
	return 0;
}

static int cnt_gap(void *ctx, enum ptd_gap_reason r, uint64_t offset, const char *detail)
{
	struct counter *c = ctx;
	struct part *p = c->seg;
	char **nd;

	(void)r;
	(void)offset;
	c->have_last = 0;
	(*c->nitems)++;
	if (c->log)
		ptd__calllog_gap(c->log);
	if (!detail)
		return 0;
	nd = realloc(p->details, (p->ndetails + 1) * sizeof(*nd));
	if (!nd)
		return ptd__err(-ptde_nomem, "out of memory counting PT");
	p->details = nd;
	nd[p->ndetails] = strdup(detail);
	if (!nd[p->ndetails])
		return ptd__err(-ptde_nomem, "out of memory counting PT");
	p->ndetails++;
	return 0;
}

static int cnt_event(void *ctx, enum ptd_event_kind k, uint64_t ip, uint64_t arg)
{
	struct counter *c = ctx;

	(void)arg;
	c->have_last = 0;
	(*c->nitems)++;
	if (c->log)
		ptd__calllog_event(c->log, k, ip);
	return 0;
}

/* Counts part @p's items (from p->in) without storing them. */
static int count_part(struct ptd_pt_trace *t, struct part *p, struct pt_image *img,
		      struct iccache *icc, struct carry *out)
{
	struct counter c = {t->img, &p->nitems, p, 0, {0}, NULL};
	struct ptd_pt_sink sink = { cnt_block, cnt_gap, cnt_event, &c, cnt_blocks };

	free_details(p);
	p->nitems = 0;
	/* The call log is built in this same pass (no decode only for
	 * calls later); a part decoded again gets a new one. */
	ptd__calllog_free(p->log);
	p->log = t->funcs ? ptd__calllog_alloc(t->funcs) : NULL;
	c.log = p->log;
	return run_range(t, p->first, p->last, &p->in, img, icc, &sink, &p->st, out, &p->x);
}

/* The history's fill callback: decodes the run of part @part. */
static int fill_part(void *ctx, uint32_t part, struct ptd_history *out)
{
	struct ptd_pt_trace *t = ctx;
	struct ptd_pt_sink sink = { hist_block, hist_gap, hist_event, out, hist_blocks };
	struct ptd_pt_stats st;
	struct part *p;
	int err;

	if (part >= t->nh)
		return ptd__err(-ptde_internal, "no PT segment for history part %u", part);
	p = &t->parts[t->hmap[part]];
	err = run_range(t, p->first, p->last, &p->in, ptd_image_pt(t->img), t->icc, &sink, &st,
			NULL, &p->x);
	if (!err && p->tail_flags)
		ptd_history_flag_last(out, p->tail_flags);
	return err;
}

/* Appends counted part @i as the next part of @h (the details move). */
static int add_part(struct ptd_pt_trace *t, struct ptd_history *h, uint32_t i)
{
	struct part *p = &t->parts[i];
	int err;

	if (!p->nitems) {
		free_details(p);
		ptd__calllog_free(p->log);
		p->log = NULL;
		return 0;
	}
	err = ptd__history_append_part_log(h, t->nh, p->nitems, p->st.ninsn + p->st.ngaps,
					   p->st.ninsn, p->details, p->ndetails, p->log);
	p->log = NULL;
	free_details(p);
	if (!err)
		t->hmap[t->nh++] = i;
	return err;
}

void ptd_pt_trace_set_lazy_history(struct ptd_pt_trace *t, uint32_t max_parts)
{
	if (t)
		t->lazy_parts = max_parts ? max_parts : 16;
}

/* Counts segment @e without necessarily caching its history. */
static int count_segment(struct ptd_pt_trace *t, struct segent *e)
{
	struct ptd_history *h;
	struct ptd_pt_stats st;
	size_t j = (size_t)(e - t->rev);
	int err;

	if (e->decoded)
		return 0;
	err = decode_into(t, e, ptd_image_pt(t->img), t->icc, &h, &st);
	if (err < 0)
		return err;
	e = &t->rev[j];
	e->st = st;
	e->decoded = 1;
	if (t->ncached < t->cache_max) {
		e->h = h;
		e->lru = ++t->clock;
		t->ncached++;
	} else {
		ptd_history_free(h);
	}
	return 0;
}

int ptd_pt_trace_position(struct ptd_pt_trace *t, size_t i, uint64_t *first, int *depth)
{
	uint64_t num = 1;
	int d = 0;
	size_t k;

	if (!seg_front(t, i))
		return -ptde_invalid;
	if (t->lost_nonzero)
		num++; /* the lost-data gap */
	for (k = 0; k < i; k++) {
		struct segent *e = front(t, k);
		int err = count_segment(t, e);

		if (err < 0)
			return err;
		e = front(t, k);
		num += e->st.ninsn + e->st.ngaps;
		d += e->st.depth_delta;
	}
	if (first)
		*first = num;
	if (depth)
		*depth = d;
	return 0;
}

/*
 * Runs.  Segments [first, last) are grouped into runs of at least @bytes of
 * trace (a lazy part, a parallel batch), so tiny PSB periods do not make
 * tiny runs.  A run ends only before a clean PSB: in a valid trace a PSB+
 * has a FUP while tracing is disabled only right before TIP.PGE, so at a
 * clean PSB the continuous decoder is where libipt synced there starts,
 * while elsewhere (tracing off, or on again right after the PSB) its state
 * depends on libipt's handling of what came before.
 */
static size_t batch_bytes = 256u << 10;
#define PART_BYTES (64u << 10)
static uint64_t store_max = PTD_PT_STORE_MAX;

void ptd__pt_set_store_max(uint64_t n)
{
	store_max = n;
}

void ptd__pt_set_batch_bytes(size_t n)
{
	batch_bytes = n ? n : 256u << 10;
}

static int split_ok(struct ptd_pt_trace *t, size_t j);

/*
 * Where the run that starts at front segment @i ends: the first clean PSB
 * after @bytes of PT where the continuous decode splits (split_ok: the
 * packets before it end exactly at it, so a run that ends there gives the
 * continuous decoder's prefix; one that runs into the PSB, libipt reads
 * on into it and fails where a run that ends there stops without an
 * error), or @last.
 */
static size_t run_end(struct ptd_pt_trace *t, size_t i, size_t last, uint64_t bytes)
{
	uint64_t acc = 0;

	for (; i < last; i++) {
		const struct segent *e = front(t, i);

		if (acc >= bytes && e->clean && split_ok(t, t->nrev - 1 - i))
			return i;
		acc += e->end - e->offset;
	}
	return last;
}

/*
 * Parallel decode.  Each batch (a run) decodes into a history of its own,
 * in any thread, from the state the PSB+ suggests; the calling thread
 * splices finished batches onto the result in trace order
 * (ptd_history_splice moves whole chunks and merges across the seam
 * exactly as serial appending would), so the serial part costs per chunk,
 * not per block.  When the batch before ended in another state than the
 * one a batch was decoded from, that batch is decoded again from the right
 * one: the result is always the serial one.  The calling thread decodes
 * batches too while it waits.
 */
/* Batches may finish at most this far ahead of the splicing, which bounds
 * the memory held outside the result. */
#define LOOKAHEAD 8

struct batch {
	size_t first, last; /* front segment indices [first, last) */
	struct carry in, out;
	struct ext x; /* see struct ext (set when spliced) */
	struct ptd_history *h;
	struct ptd_pt_stats st;
	int done, err;
};

struct pool {
	struct ptd_pt_trace *t;
	struct batch *b;
	size_t nb, next, appended;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int stop;
};

/* Decodes batch @i with @img and @icc (the caller's own). */
static int decode_batch(struct ptd_pt_trace *t, struct batch *b, uint32_t i, struct pt_image *img,
			struct iccache *icc)
{
	struct ptd_pt_sink sink = {hist_block, hist_gap, hist_event, NULL, hist_blocks};

	if (!img)
		return ptd__err(-ptde_nomem, "out of memory decoding PT in parallel");
	if (t->lazy_now) { /* count only; the main thread adds the parts */
		t->parts[i].in = b->in;
		t->parts[i].x = b->x;
		return count_part(t, &t->parts[i], img, icc, &b->out);
	}
	ptd_history_free(b->h);
	b->h = ptd_history_alloc(t->read, t->rctx);
	if (!b->h)
		return ptd__err(-ptde_nomem, "out of memory decoding PT in parallel");
	/* (no-op for a history without funcs: t->funcs is then NULL) */
	ptd__history_use_funcs(b->h, t->funcs);
	sink.ctx = b->h;
	/* the fast path's verdicts on the edges go into its log */
	sink.log = ptd__history_calllog_w(b->h);
	sink.blocks_edge = sink.log ? hist_blocks_edge : NULL;
	return run_range(t, b->first, b->last, &b->in, img, icc, &sink, &b->st, &b->out, &b->x);
}

/* Takes the next batch to decode, or returns SIZE_MAX; called locked. */
static size_t take_batch(struct pool *p)
{
	if (p->stop || p->next >= p->nb || p->next >= p->appended + LOOKAHEAD)
		return SIZE_MAX;
	return p->next++;
}

static void finish_batch(struct pool *p, size_t i, int err)
{
	pthread_mutex_lock(&p->lock);
	p->b[i].err = err;
	p->b[i].done = 1;
	pthread_cond_broadcast(&p->cond);
	pthread_mutex_unlock(&p->lock);
}

static void *work(void *arg)
{
	struct pool *p = arg;
	struct pt_image *img = ptd_image_pt_copy(p->t->img);
	struct iccache *icc = calloc(1, sizeof(*icc));

	for (;;) {
		size_t i;

		pthread_mutex_lock(&p->lock);
		while ((i = take_batch(p)) == SIZE_MAX && !p->stop && p->next < p->nb)
			pthread_cond_wait(&p->cond, &p->lock);
		pthread_mutex_unlock(&p->lock);
		if (i == SIZE_MAX)
			break;
		finish_batch(p, i, decode_batch(p->t, &p->b[i], (uint32_t)i, img, icc));
	}
	icc_free(icc);
	pt_image_free(img);
	return NULL;
}

/* Fills @p->b with the runs of [first, last); returns 0 or -ptde_nomem. */
static int plan_runs(struct ptd_pt_trace *t, struct pool *p, size_t first, size_t last,
		     uint64_t bytes)
{
	size_t i, n = 0;

	for (i = first; i < last; i = run_end(t, i, last, bytes))
		n++;
	p->b = calloc(n ? n : 1, sizeof(*p->b));
	if (!p->b)
		return ptd__err(-ptde_nomem, "out of memory decoding %zu PT segments",
				last - first);
	for (i = first; i < last; i = p->b[p->nb++].last) {
		p->b[p->nb].first = i;
		p->b[p->nb].last = run_end(t, i, last, bytes);
		p->b[p->nb].in = carry_guess(front(t, i));
	}
	if (t->lazy_now) {
		t->parts = calloc(p->nb ? p->nb : 1, sizeof(*t->parts));
		if (!t->parts)
			return ptd__err(-ptde_nomem, "out of memory for PT parts");
		t->nparts = (uint32_t)p->nb;
		t->hmap = calloc(p->nb ? p->nb : 1, sizeof(*t->hmap));
		if (!t->hmap)
			return ptd__err(-ptde_nomem, "out of memory for PT parts");
		for (i = 0; i < p->nb; i++) {
			t->parts[i].first = p->b[i].first;
			t->parts[i].last = p->b[i].last;
		}
	}
	return 0;
}

/*
 * Can a decoder synchronised at segment @e's PSB take state @c (with
 * decode_segment's help: the FUP hidden, the mode carried)?  Not when
 * tracing is off there and the PSB+ has a FUP that no TIP.PGE follows,
 * nor when the run before did not reach the PSB+'s ip (struct carry's
 * uncut), nor when tracing is on there in another mode than the PSB+'s
 * MODE.Exec, all in damaged trace: the continuous decoder then goes on
 * from where it was, in ways only decoding on tells.  In the last case
 * it fails (-pte_bad_status_update) when it takes the PSB+'s events,
 * wherever its reading ahead has got to by then (that depends on the
 * packets before the PSB), and synchronises again from there.  One
 * synchronised at the PSB reads ahead from the PSB before it gives them,
 * often into the next PSB+: decode_segment's mode_check fails where the
 * continuous decoder does, but synchronises again past that next PSB.
 */
static int start_exact(const struct carry *c, const struct segent *e)
{
	if (c->kind == CARRY_FRESH)
		return !c->errend;
	if (c->enabled && c->mode != ptem_unknown && e->mode && e->mode != c->mode)
		return 0;
	return !((!c->enabled && e->clean) || c->uncut);
}

/*
 * Takes finished batch @i into @h in order, decoding it again first when it
 * started from another state than the batch before ended in (@chain), or
 * as the continuation of the batches before it (@prev: where their decode
 * can start, see struct ext) when no decoder synchronised at its PSB can
 * take that state.  @prev then becomes where this batch's can.
 */
/* A batch that ended with the run not reaching the next PSB+'s ip (struct
 * carry's uncut) is not taken: the next one is decoded from its start,
 * as one run (@set: the next one is, from segment @first). */
/* How far back (trace bytes) a batch whose compressed return found the
 * return stack empty is decoded again from where the stack was last
 * empty (take_done). */
#define RETSTACK_REDO_MAX (64u << 10)

struct held {
	int set;
	size_t first;
	struct carry in;
	struct ext x;
	/* Where the continuous decoder's return stack was last empty (it
	 * synchronised there afresh: the trace start, after lost data or
	 * an error), as the start of a continuation (see struct ext). */
	struct ext root;
};

static int take_done(struct ptd_pt_trace *t, struct batch *b, uint32_t i, int last,
		     struct ptd_history *h, struct ptd_pt_stats *st, int *depth,
		     struct carry *chain, struct ext *prev, struct held *held)
{
	const struct ptd_pt_stats *bst;
	int err = b->err;

	if (!err && held->set) {
		/* (where the linear code after the last packet goes when it
		 * does not reach the next PSB+'s ip, only the continuous
		 * decoder tells: the items of such a tail are its guess) */
		b->first = held->first;
		b->in = held->in;
		b->x = held->x;
		if (t->lazy_now)
			t->parts[i].first = held->first;
		err = decode_batch(t, b, i, ptd_image_pt(t->img), t->icc);
	} else if (!err && i && !start_exact(chain, front(t, b->first))) {
		b->in = *chain;
		b->x = *prev;
		err = decode_batch(t, b, i, ptd_image_pt(t->img), t->icc);
	} else if (!err && !carry_same(&b->in, chain, front(t, b->first))) {
		b->in = *chain;
		err = decode_batch(t, b, i, ptd_image_pt(t->img), t->icc);
	}
	if (err == -ptde_internal && b->x.set) {
		/* The runs before gave more than decoding them again as one
		 * (a damaged trace: they are not its prefix, see
		 * tests/fuzz/open/README): this batch is decoded from its
		 * own PSB instead, so the history goes on. */
		memset(&b->x, 0, sizeof(b->x));
		err = decode_batch(t, b, i, ptd_image_pt(t->img), t->icc);
	}
	if (!err && !(b->in.kind == CARRY_FRESH && !b->x.set) && held->root.set &&
	    !(b->x.set && b->x.begin == held->root.begin) &&
	    front(t, b->first)->offset - held->root.begin <= RETSTACK_REDO_MAX &&
	    (t->lazy_now ? t->parts[i].st.nretstack : b->st.nretstack)) {
		/* A compressed return found the return stack of the decoder
		 * started at this batch's PSB empty: the continuous one
		 * still holds the calls from before the PSB (libipt keeps
		 * its stack across a PSB; its stack cannot be set), and
		 * pops one of them (hardware clears its own at a PSB, so
		 * only a damaged trace does this).  Decoded again as the
		 * continuation of everything since the stack was last
		 * empty, when that is near (RETSTACK_REDO_MAX): a trace
		 * where such returns recur would be decoded again from
		 * its start at each (quadratic); farther, the gap stays. */
		struct ext was = b->x;

		b->x = held->root;
		err = decode_batch(t, b, i, ptd_image_pt(t->img), t->icc);
		if (err == -ptde_internal) {
			/* (the runs before gave more than that decode: they
			 * are not its prefix, see tests/fuzz/open/README;
			 * the batch stays as it was decoded) */
			b->x = was;
			err = decode_batch(t, b, i, ptd_image_pt(t->img), t->icc);
		}
	}
	if (err)
		return err;
	held->set = 0;
	if (b->out.uncut && !last) {
		held->set = 1;
		held->first = b->first;
		held->in = b->in;
		held->x = b->x;
		if (t->lazy_now) { /* (no part in the history) */
			t->parts[i].nitems = 0;
			return add_part(t, h, i);
		}
		return 0;
	}
	if (t->lazy_now) {
		bst = &t->parts[i].st;
		/* (a part before it with no items has no block to flag) */
		for (uint32_t k = i; k-- > 0 && b->out.head_flags;) {
			if (t->parts[k].last != b->first)
				continue; /* (held: no items) */
			if (t->parts[k].nitems) {
				t->parts[k].tail_flags = b->out.head_flags;
				ptd__history_flag_last_logged(h, b->out.head_flags);
			}
			break;
		}
		err = add_part(t, h, i);
	} else {
		bst = &b->st;
		if (b->out.head_flags)
			ptd_history_flag_last(h, b->out.head_flags);
		err = ptd_history_splice(h, b->h);
	}
	if (err)
		return err;
	stats_add(st, bst, depth);
	if (b->in.kind == CARRY_FRESH && !b->x.set) {
		held->root.set = 1;
		held->root.begin = front(t, b->first)->offset;
		held->root.in = b->in;
		held->root.drop = bst->ninsn + bst->ngaps;
		held->root.drop_ev = bst->nevents;
	} else if (held->root.set) {
		held->root.drop += bst->ninsn + bst->ngaps;
		held->root.drop_ev += bst->nevents;
	}
	if (b->x.set && held->root.set && b->x.begin == held->root.begin) {
		/* (decoded from where the return stack was empty: so is
		 * what comes next, as its continuation) */
		*prev = held->root;
	} else if (b->x.set) {
		prev->drop += bst->ninsn + bst->ngaps;
		prev->drop_ev += bst->nevents;
	} else {
		prev->set = 1;
		prev->begin = front(t, b->first)->offset;
		prev->in = b->in;
		prev->drop = bst->ninsn + bst->ngaps;
		prev->drop_ev = bst->nevents;
	}
	*chain = b->out;
	if (b->last < t->nrev) {
		front(t, b->last)->in = b->out;
		front(t, b->last)->in_set = 1;
	}
	return 0;
}

static int history_runs(struct ptd_pt_trace *t, struct ptd_history *h, size_t first, size_t last,
			int nthreads, uint64_t bytes, struct ptd_pt_stats *st, int *depth)
{
	struct pool p;
	pthread_t th[16];
	struct carry chain;
	struct ext prev;
	struct held held;
	size_t i;
	int k, nt = nthreads - 1 > 16 ? 16 : nthreads - 1, err;

	memset(&p, 0, sizeof(p));
	memset(&prev, 0, sizeof(prev));
	memset(&held, 0, sizeof(held));
	p.t = t;
	err = exact_in(t, first, &chain);
	if (!err)
		err = plan_runs(t, &p, first, last, bytes);
	if (err) {
		free(p.b);
		return err;
	}
	p.b[0].in = chain;
	if (p.nb < 2)
		nt = 0;
	pthread_mutex_init(&p.lock, NULL);
	pthread_cond_init(&p.cond, NULL);
	for (k = 0; k < nt; k++)
		if (pthread_create(&th[k], NULL, work, &p) != 0)
			break;
	nt = k;
	while (p.appended < p.nb && !err) {
		struct batch *b = &p.b[p.appended];
		size_t mine;

		pthread_mutex_lock(&p.lock);
		if (b->done) {
			pthread_mutex_unlock(&p.lock);
			err = take_done(t, b, (uint32_t)p.appended, p.appended + 1 == p.nb, h, st,
					depth, &chain, &prev, &held);
			ptd_history_free(b->h);
			b->h = NULL;
			pthread_mutex_lock(&p.lock);
			p.appended++;
			if (err)
				p.stop = 1;
			pthread_cond_broadcast(&p.cond);
			pthread_mutex_unlock(&p.lock);
			continue;
		}
		mine = take_batch(&p);
		if (mine == SIZE_MAX) {
			pthread_cond_wait(&p.cond, &p.lock);
			pthread_mutex_unlock(&p.lock);
			continue;
		}
		pthread_mutex_unlock(&p.lock);
		/* The next batch to splice starts from the exact state. */
		if (mine == p.appended)
			p.b[mine].in = chain;
		finish_batch(
			&p, mine,
			decode_batch(t, &p.b[mine], (uint32_t)mine, ptd_image_pt(t->img), t->icc));
	}
	pthread_mutex_lock(&p.lock);
	p.stop = 1;
	pthread_cond_broadcast(&p.cond);
	pthread_mutex_unlock(&p.lock);
	for (k = 0; k < nt; k++)
		pthread_join(th[k], NULL);
	for (i = 0; i < p.nb; i++)
		ptd_history_free(p.b[i].h);
	free(p.b);
	pthread_mutex_destroy(&p.lock);
	pthread_cond_destroy(&p.cond);
	return err;
}

int ptd_pt_trace_history_range(struct ptd_pt_trace *t, struct ptd_history *h, size_t first,
			       size_t last, int nthreads, struct ptd_pt_stats *st)
{
	struct ptd_pt_stats local;
	uint64_t bytes;
	size_t n;
	int err = 0, depth = 0;

	if (!st)
		st = &local;
	memset(st, 0, sizeof(*st));
	if (!t || !h)
		return ptd__err(-ptde_invalid, "pt trace history: missing trace or history");
	err = index_all(t);
	if (err < 0)
		return err;
	n = t->nrev;
	if (last > n)
		last = n;
	if (first > last)
		return ptd__err(-ptde_invalid, "pt trace history: bad segment range %zu..%zu", first, last);
	/* A range that ends at a PSB where the continuous decode does not
	 * split (split_ok) ends at the nearest one before it that does: the
	 * segments after that have no items of their own (decode_depth). */
	while (last > first && last < n && !split_ok(t, n - 1 - last))
		last--;
	if (first == 0 && t->lost_nonzero) {
		char msg[128];

		snprintf(msg, sizeof(msg), "%s: %" PRIu64 " bytes of trace before the first PSB skipped",
			 n ? "trace starts mid-stream" : "no PSB in the trace", t->lost);
		st->ngaps++;
		err = ptd_history_append_gap(h, PTD_GAP_LOST, 0, msg);
		if (err < 0)
			return err;
	}
	/* A lazy history costs a second decode of every part that is used;
	 * a trace small enough is decoded once and stored. */
	t->lazy_now = 0;
	if (t->lazy_parts && first < last)
		t->lazy_now = front(t, last - 1)->end - front(t, first)->offset > store_max;
	/* The parts of a lazy history keep the call log of their items,
	 * built by the counting decode; a stored history's batches log their
	 * items as they are decoded, with the same func_of, so the splices
	 * append their logs: the call views of any history chain the log's
	 * part summaries instead of walking every item first. */
	t->funcs = ptd__history_funcs(h);
	if (t->lazy_now) {
		if (t->parts)
			return ptd__err(-ptde_invalid, "pt trace history: the lazy history exists already");
		ptd_history_set_fill(h, fill_part, t, t->lazy_parts);
	}
	if (first == last)
		return 0;
	/* Lazy parts hold at least PART_BYTES of trace (or the batch size
	 * when smaller, for tests); a serial full decode is one run. */
	if (t->lazy_now)
		bytes = batch_bytes < PART_BYTES ? batch_bytes : PART_BYTES;
	else if (nthreads > 1)
		bytes = batch_bytes;
	else
		bytes = UINT64_MAX;
	return history_runs(t, h, first, last, nthreads, bytes, st, &depth);
}

int ptd_pt_trace_history(struct ptd_pt_trace *t, struct ptd_history *h, int nthreads,
			 struct ptd_pt_stats *st)
{
	return ptd_pt_trace_history_range(t, h, 0, SIZE_MAX, nthreads, st);
}

/* ---- incremental runs (a trace that grows) ------------------------------ */

_Static_assert(sizeof(struct carry) <= sizeof(struct ptd_pt_state), "ptd_pt_state too small");

void ptd_pt_state_init(struct ptd_pt_state *s)
{
	memset(s, 0, sizeof(*s));
	memcpy(s, &carry_start, sizeof(carry_start));
}

uint8_t ptd_pt_state_head_flags(const struct ptd_pt_state *s)
{
	struct carry c;

	memcpy(&c, s, sizeof(c));
	return c.head_flags;
}

int ptd_pt_decode_run(const uint8_t *buf, uint64_t size, uint64_t begin, uint64_t end,
		      uint64_t cut_ip, struct ptd_image *img, const struct ptd_pt_sink *sink,
		      const struct ptd_pt_state *in, struct ptd_pt_state *out,
		      struct ptd_pt_stats *st)
{
	struct ptd_pt_stats local;
	struct carry cin, cout;
	struct iccache *icc;
	int err, end_psb;

	if (!st)
		st = &local;
	if (!buf || !img || !sink || !sink->block || !sink->gap || !in || begin >= end ||
	    end > size)
		return ptd__err(-ptde_invalid, "pt decode run: bad arguments");
	memcpy(&cin, in, sizeof(cin));
	icc = calloc(1, sizeof(*icc)); /* optional: NULL only costs speed */
	/* (@end is the next run's PSB when the bytes there are one) */
	end_psb = end + sizeof(psb_pattern) <= size &&
		  !memcmp(buf + end, psb_pattern, sizeof(psb_pattern));
	err = run_segment(buf, begin, end, end_psb ? END_PSB : END_CHUNK, cut_ip, img,
			  ptd_image_pt(img), icc, sink, st, 0, &cin, &cout, NULL);
	icc_free(icc);
	if (!err && out) {
		memset(out, 0, sizeof(*out));
		memcpy(out, &cout, sizeof(cout));
	}
	return err;
}
