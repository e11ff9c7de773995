/*
 * The PT decode fast path: exactly the blocks libipt's block decoder (with
 * end_on_call and end_on_jump, as src/decode/pt.c configures it) gives for
 * one PSB segment, found without libipt's per-block work.
 *
 * Packets are read straight from the bytes (the few kinds a segment of
 * plain branch tracing holds: TNT, TIP, timing and padding, and with
 * ptd_fastpt_segment_edge the TIP.PGD/TIP.PGE pairs of IP filtering); code comes
 * from a cache of straight-line runs (per start address: the instructions
 * up to the next branch, its class and target) and, when turned on, a
 * cache of the paths TNT patterns take through them (per address and up
 * to six TNT bits: the blocks the bits lead through and where they end).  Anything else -- events (FUP,
 * other TIP.PGE/PGD, MODE, OVF, PIP, VMCS...), execution modes other than 64-bit,
 * TSX, far branches, undecodable or unmapped code, compressed returns the
 * return stack cannot serve, a segment end it cannot cut exactly -- makes
 * the segment "not handled": nothing is produced and the caller decodes it
 * with libipt (pt.c does that per segment, see run_segment there).
 *
 * Caches are per thread (one struct ptd_fastpt each) and forget everything
 * when the image gets a new mapping (ptd_image_generation).  Code read
 * through the image's callback (live memory, JIT code, the vdso) may change
 * between decodes, so runs read from it are kept only for one decode call
 * (ptd_fastpt_begin); runs inside file mappings are kept.
 */
#ifndef PTD_DECODE_FASTPT_H
#define PTD_DECODE_FASTPT_H

#include <stddef.h>
#include <stdint.h>

#include "decode/image.h"
#include "history/history.h"

struct ptd_fastpt;

/* A cache set for decoding with @img in one thread; NULL when out of memory. */
struct ptd_fastpt *ptd_fastpt_alloc(struct ptd_image *img);
void ptd_fastpt_free(struct ptd_fastpt *fp);
/* Return addresses on the stack the last segment left (keep_stack). */
unsigned ptd__fastpt_stack_depth(const struct ptd_fastpt *fp);
/* The image @fp was made for. */
struct ptd_image *ptd__fastpt_img(const struct ptd_fastpt *fp);

/* Starts a decode call: code read through the callback is read again. */
void ptd_fastpt_begin(struct ptd_fastpt *fp);

/*
 * Decodes the PSB segment [@begin, @end) of @buf (@begin a PSB, @end the
 * next PSB or the end of the trace) as libipt's block decoder continuing
 * with tracing enabled at @begin does, up to the last packet, then the
 * linear code after it cut at @cut_ip (the next segment's start ip; 0
 * makes the segment not handled).  @keep_stack: the return stack of the
 * segment decoded before (in the same run) carries over.  @pge_start: the
 * segment may also start with tracing disabled (a PSB+ without FUP) and
 * TIP.PGE, as a trace starts (libipt then gives no item for the enable).
 * On success
 * *@blocks (valid until the next call) holds *@n blocks.
 * Returns 1 when handled, 0 when not (libipt must decode it), -ptde_nomem.
 * Refuses TIP.PGD and TIP.PGE inside the segment (see ptd_fastpt_segment_edge).
 */
int ptd_fastpt_segment(struct ptd_fastpt *fp, const uint8_t *buf, uint64_t begin, uint64_t end,
		       uint64_t cut_ip, int keep_stack, int pge_start, const struct ptd_block **blocks,
		       size_t *n);

/*
 * Filtered tracing (IP filtering: a TIP.PGD where execution leaves the
 * traced range, a TIP.PGE where it comes back), as pt.c turns libipt's
 * disabled and enabled events into items.  In: the state the segment
 * starts from; out: the state it ends in (the carry pt.c keeps).
 */
struct ptd_fastpt_edge {
	/* in */
	int disabled;	/* tracing disabled at the PSB (a PSB+ without FUP,
			 * then TIP.PGE) */
	int dis_known;	/* dis_ip: where libipt's decoder stopped when tracing */
	uint64_t dis_ip; /* was disabled (a TIP.PGE there "resumes") */
	int dgaps;	/* gdb's "disabled" gaps (ptd_pt_trace_set_disabled_gaps) */
	int have_item;	/* the history has an item before this segment */
	/* out */
	int end_disabled; /* tracing disabled at the segment's end */
	int end_dis_known; /* ... and where the decoder stopped, if known */
	uint64_t end_dis_ip;
	int end_async;	   /* ... asynchronously (FUP, TIP.PGD), at end_dis_ip */
};

/*
 * ptd_fastpt_segment that also takes the segment's edge state @edge and
 * TIP.PGD/TIP.PGE pairs inside it: a TIP.PGD that binds to a direct call
 * or jump (its ip the branch's target) or to an indirect call, and one
 * without ip that binds to a system call (user-only tracing; its block
 * flagged PTD_BLK_SYSCALL).  A
 * "disabled" gap (tracing enabled elsewhere than where it stopped, as pt.c
 * emits it) comes out as a block with ninsn 0 in *@blocks.  @cut_ip may
 * be 0 when the segment ends with tracing disabled.  A segment that starts
 * with tracing disabled (@edge->disabled, a PSB+ without FUP) and has no
 * TIP.PGE is handled too: no blocks, the edge state as it came in; so is
 * an asynchronous disable (FUP, TIP.PGD without ip) after which the
 * segment has no more trace (the end of a recording).
 */
int ptd_fastpt_segment_edge(struct ptd_fastpt *fp, const uint8_t *buf, uint64_t begin,
			    uint64_t end, uint64_t cut_ip, int keep_stack, int pge_start,
			    struct ptd_fastpt_edge *edge, const struct ptd_block **blocks, size_t *n);

/*
 * Does the PSB+ at @off (within [@off, @end)) hold only what the fast path
 * takes (a FUP, 64-bit MODE.Exec, no transaction, timing)?  1 with its FUP
 * ip in *@ip, else 0.
 */
int ptd_fastpt_psb_plus(const uint8_t *buf, uint64_t off, uint64_t end, uint64_t *ip);
/* The same, also for a PSB+ without FUP (tracing disabled): 1 (FUP ip in
 * *@ip), 2 (no FUP, *@ip 0) or 0 (not one the fast path takes). */
int ptd_fastpt_psb_kind(const uint8_t *buf, uint64_t off, uint64_t end, uint64_t *ip);

/*
 * Is the PSB+ at @off (within [@off, @end)) one the fast path takes,
 * followed by nothing but timing and 64-bit MODE.Exec up to a TIP.PGE
 * with an ip?  1 or 0.  There a decoder synchronised at the PSB and one
 * that comes to it with tracing disabled agree again (the first ip comes
 * from the TIP.PGE for both); see pt.c's fast_run.
 */
int ptd_fastpt_psb_then_pge(const uint8_t *buf, uint64_t off, uint64_t end);

/*
 * The call log (history_int.h) the blocks of the next segments go to, or
 * NULL: the fast path then keeps the log's verdict on each edge it takes
 * with its runs, and ptd__fastpt_edges gives it for the blocks of the last
 * segment (oedge[i]: going from block i to block i + 1; 0 not known, else
 * 1 + ptd__calllog_boring), valid as long as the blocks.
 */
struct ptd_calllog;
void ptd_fastpt_set_log(struct ptd_fastpt *fp, struct ptd_calllog *log);
const uint8_t *ptd__fastpt_edges(const struct ptd_fastpt *fp);

/* For the blocks of the last segment, each one's ptd__history_block_code
 * or 0 (history_int.h), valid as long as the blocks. */
const uint64_t *ptd__fastpt_codes(const struct ptd_fastpt *fp);

/* Counters for tests and make bench. */
struct ptd_fastpt_stats {
	uint64_t segs_fast, segs_refused; /* segments handled / left to libipt */
	uint64_t lines, line_hits;	  /* straight-line runs decoded / found cached */
	uint64_t paths, path_hits;	  /* TNT paths built / found cached */
	/* pt.c's runs: the fast path went on after a part libipt decoded
	 * (resumes); libipt decoded the rest of a run again from an earlier
	 * PSB for a compressed return across such a point (redos) */
	uint64_t resumes, redos;
};
void ptd_fastpt_stats(const struct ptd_fastpt *fp, struct ptd_fastpt_stats *st);
/* pt.c counts its resumes and redos in @fp's figures. */
void ptd__fastpt_count(struct ptd_fastpt *fp, int resumed);
/* The sums over every cache set freed so far (@reset: start again from 0). */
void ptd__fastpt_totals(struct ptd_fastpt_stats *st, int reset);

/*
 * Whether the fast path is used (pt.c asks once per decode): yes unless
 * the environment has PTDBG_DECODE=libipt (the plain libipt path, for
 * comparison).  Tests and make bench force it with ptd__fastpt_force (1
 * on, 0 off, -1 back to the environment's choice).
 */
int ptd__fastpt_enabled(void);
/* The TNT path cache: off by default (PTDBG_FASTPT_PATHS=1 turns it on;
 * see fastpt.c for why); tests turn it on (1) or off (0). */
void ptd__fastpt_paths(int on);
void ptd__fastpt_force(int on);

#endif
