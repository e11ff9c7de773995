/*
 * Intel PT decoding into branch history, with libipt's block decoder.
 *
 * The rule: the items equal what ONE continuous libipt decode of the
 * whole stream gives.  The trace is split at its PSBs into *segments* (the
 * bytes from one PSB up to the next); a run of consecutive segments is
 * decoded with one libipt decoder, starting from the decoder state the run
 * before it ended in (tracing enabled at the PSB, where it stopped, an
 * asynchronous exit: see struct carry in pt.c).  Items are
 * blocks (contiguous runs ending at a branch or event), gaps (overflow,
 * decode error with libipt's message and the trace offset, lost data) and
 * events (signal delivery).  Where a segment's decoder runs past the point
 * where the next PSB was written (libipt must finish the linear code after
 * the last branch), the output is cut at the next segment's start IP, so
 * concatenating segments gives exactly the full decode.
 *
 * Lazy history (struct ptd_pt_trace): at a stop the caller asks for the
 * newest segment (decoded from the state its PSB+ shows when that is
 * unambiguous, else as the part of one run from the nearest older clean
 * PSB that lies after the older segments); the PSB index is built backwards from the end only as
 * far as needed (a search for the PSB pattern plus a PSB+ header read per hit, no decoding), so the
 * first reverse step costs the same for any trace size.  Older segments are decoded on demand; each
 * decoded segment is a ptd_history of its own kept in a bounded LRU cache.  Numbering follows gdb
 * (1 = oldest): the segment table remembers each segment's item count (instructions + gaps) and
 * call-depth change once it was decoded; the first number of segment i is 1 + the counts of
 * segments 0..i-1, so asking for it decodes (and counts, without caching) older segments that were
 * never decoded.  Call depth at the start of segment i is the sum of the
 * depth changes before it, so function-call levels stitch across segments.
 * ptd_pt_trace_history() builds one history of the whole trace, decoding
 * runs in parallel when asked; the result is identical to serial decoding:
 * a run decoded ahead from the state its PSB+ suggests is decoded again
 * when the run before it ended in another state.
 *
 * Trace bytes are untrusted: any content yields items, gaps or a clear
 * error, never a crash.  The decoder never calls ptrace; code bytes come
 * from a struct ptd_image.
 */
#ifndef PTD_DECODE_PT_H
#define PTD_DECODE_PT_H

#include <stddef.h>
#include <stdint.h>

#include "decode/image.h"
#include "history/history.h"

struct ptd_calllog;

/* Receives decoded items in trace order; a negative return stops decoding
 * and is returned by the decode function. */
struct ptd_pt_sink {
	int (*block)(void *ctx, const struct ptd_block *b);
	int (*gap)(void *ctx, enum ptd_gap_reason r, uint64_t offset, const char *detail);
	int (*event)(void *ctx, enum ptd_event_kind k, uint64_t ip, uint64_t arg);
	void *ctx;
	/* Optional: many blocks at once, in order (used instead of block). */
	int (*blocks)(void *ctx, const struct ptd_block *b, size_t n);
	/* Optional, with blocks: a call log the fast path gives its verdicts
	 * for (ptd_fastpt_set_log), and blocks with the verdicts on the edges
	 * between them (@edge[i] for @b[i] to @b[i + 1], as
	 * ptd__calllog_blocks takes them). */
	struct ptd_calllog *log;
	int (*blocks_edge)(void *ctx, const struct ptd_block *b, size_t n, const uint8_t *edge);
};

struct ptd_pt_stats {
	uint64_t ninsn;   /* instructions in blocks */
	uint64_t nblocks; /* blocks passed to the sink */
	uint64_t ngaps;
	/* IP where tracing was disabled asynchronously last and not
	 * re-enabled (the thread's pc when the trace ends), or 0. */
	uint64_t end_ip;
	/* IP where the first block starts, or 0. */
	uint64_t start_ip;
	int depth_delta; /* near calls minus near returns */
	int depth_min;   /* lowest running depth, relative to 0 at the start */
	uint64_t nevents; /* events passed to the sink */
	/* decode errors for a compressed return that found libipt's return
	 * stack empty (-pte_retstack_empty) */
	uint64_t nretstack;
};

/* PSB offsets of @buf: fills a malloc'ed array (free it) of @n offsets in
 * increasing order and, if @ips is not NULL, a parallel array with each
 * PSB+'s FUP ip (0 when tracing is disabled there).  Returns 0 or -ptde_nomem. */
int ptd_pt_index(const uint8_t *buf, size_t size, uint64_t **offsets, uint64_t **ips, size_t *n);

/*
 * Decodes the whole trace in @buf with code from @img into @sink.  Leading
 * bytes before the first PSB are skipped (a gap PTD_GAP_LOST when they are
 * not all zero); a trace without any PSB gives one such gap.  @buf is
 * taken as a chunk of a live recording: an error libipt finds in the
 * linear code after the last packet (the tail needs the trace that comes
 * next, and the thread's pc ends it) ends the decode without a gap, where
 * ptd_pt_trace_history gives one.  Returns 0 (also for an empty trace), a
 * sink's negative return, -ptde_invalid, -ptde_nomem.  @st may be NULL.
 */
int ptd_pt_decode(const uint8_t *buf, size_t size, struct ptd_image *img,
		  const struct ptd_pt_sink *sink, struct ptd_pt_stats *st);

/* The same, appending to @h (blocks, gaps with their message, events). */
int ptd_pt_decode_history(const uint8_t *buf, size_t size, struct ptd_image *img,
			  struct ptd_history *h, struct ptd_pt_stats *st);

/* Lazy, segmented view of one thread's trace. */
struct ptd_pt_trace;

struct ptd_pt_seginfo {
	uint64_t offset;  /* PSB offset in the trace */
	uint64_t size;    /* bytes up to the next PSB or the end */
	uint64_t start_ip; /* PSB+ FUP ip, 0 when tracing was disabled there */
	int decoded;      /* counts below are known */
	int cached;       /* its history is in the cache now */
	uint64_t count;   /* instructions + gaps (gdb numbers it takes) */
	uint64_t ninsn;
	int depth_delta, depth_min;
};

/*
 * A lazy view of @buf (not copied: it must outlive the trace) for decoding
 * with @img (not owned); nothing is scanned yet.  Histories of segments
 * read code bytes with @read/@ctx (NULL: through @img).  @cache_max bounds
 * the number of decoded segments kept (0: 64).  Returns NULL with the
 * message set.
 */
struct ptd_pt_trace *ptd_pt_trace_alloc(const uint8_t *buf, size_t size, struct ptd_image *img,
					ptd_read_fn read, void *ctx, size_t cache_max);
void ptd_pt_trace_free(struct ptd_pt_trace *t);
/* Number of segments; completes the index (scans the whole trace once). */
size_t ptd_pt_trace_nsegs(struct ptd_pt_trace *t);
/* Returns 0 or -ptde_invalid for a bad index. */
int ptd_pt_trace_seginfo(struct ptd_pt_trace *t, size_t i, struct ptd_pt_seginfo *si);
/*
 * The history of segment @i, decoding it when it is not cached.  The
 * pointer stays valid until the next call that may evict (segment,
 * history, number) or ptd_pt_trace_free.  Returns NULL with the message
 * set on failure (no memory; bad index).  In a damaged trace, at a PSB
 * where one continuous decode has no split (a PSB+ libipt cannot read,
 * packets that run into it, a FUP that waits past it), the segment that
 * ends there has no items and the one that starts there has those of both.
 */
const struct ptd_history *ptd_pt_trace_segment(struct ptd_pt_trace *t, size_t i);
/*
 * The history of the @k-th segment counted from the end (0: the newest),
 * indexing only as far back as needed: what a stop needs first, at a cost
 * independent of the trace size.  Same lifetime rules as above.  NULL with
 * -ptde_bos in the message when the trace has fewer segments.
 */
const struct ptd_history *ptd_pt_trace_newest(struct ptd_pt_trace *t, size_t k);
/*
 * With @on, tracing enabled again elsewhere than where it was disabled
 * (libipt's "resumed" is not set: a signal handler, sigreturn or exec under
 * user-only tracing) puts a PTD_GAP_DISABLED gap into the history, as gdb's
 * record btrace does, so instruction numbers match gdb's on hardware
 * traces.  Off (the default) for ptdbg's own exact recordings, whose
 * signals are events, not gaps.  Set it before decoding anything.
 */
void ptd_pt_trace_set_disabled_gaps(struct ptd_pt_trace *t, int on);
/* Lazy histories of at most this many bytes of PT are stored instead. */
#define PTD_PT_STORE_MAX (16ull << 20)
/*
 * Lazy history: for more than PTD_PT_STORE_MAX bytes of PT (a smaller
 * trace is decoded once and stored: decoding again whatever is used costs
 * more than the memory), ptd_pt_trace_history(_range) then only counts each
 * segment
 * (a decode that stores nothing) and appends it to the history as a part
 * (ptd_history_append_part) that the history decodes again from this trace
 * when an instruction in it is needed, keeping at most @max_parts decoded
 * (0: 16).  The trace must outlive the history.  Building such a history
 * costs about a bare decode; it holds about the PT's size.  Only one
 * history per trace.
 */
void ptd_pt_trace_set_lazy_history(struct ptd_pt_trace *t, uint32_t max_parts);
/*
 * PTD_BLK_* flags (interrupted, syscall) that decoding the @k-th segment
 * from the end learnt about the last block before it (an event right after
 * its PSB); the caller puts them on that block (ptd_history_flag_last)
 * when it puts older history in front.  0 when not decoded yet.
 */
uint8_t ptd_pt_trace_newest_head(struct ptd_pt_trace *t, size_t k);
/* Nonzero when the trace has a @k-th segment from the end; indexes only
 * that far back and decodes nothing. */
int ptd_pt_trace_has_newest(struct ptd_pt_trace *t, size_t k);
/* gdb number of segment @i's first item and the call depth at its start
 * (relative to the trace start); decodes older segments not yet counted.
 * Returns 0 or a negative error. */
int ptd_pt_trace_position(struct ptd_pt_trace *t, size_t i, uint64_t *first, int *depth);
/*
 * Appends the whole trace to @h in order: the lost-data gap, then each
 * segment's items.  @nthreads > 1 decodes segments in that many threads
 * (the image's read callback must then be thread safe).  @st (may be NULL)
 * gets the totals.  Returns 0 or a negative error.
 */
int ptd_pt_trace_history(struct ptd_pt_trace *t, struct ptd_history *h, int nthreads,
			 struct ptd_pt_stats *st);
/*
 * The same for segments [@first, @last) only (front indices; @last is
 * clipped to the segment count); the lost-data gap comes with @first 0.
 * A range [0, @last) and the segments' histories from @last on, spliced
 * in order, equal the whole history (where segment @last starts at a PSB
 * with no split, see ptd_pt_trace_segment, the range ends at the nearest
 * PSB before it with one); so do adjacent ranges that meet at a PSB with
 * one.
 */
int ptd_pt_trace_history_range(struct ptd_pt_trace *t, struct ptd_history *h, size_t first,
			       size_t last, int nthreads, struct ptd_pt_stats *st);
/*
 * Sets the pc where the thread stopped (a bundle's tail pc, the pc at a
 * ring-buffer snapshot).  A trace that ends without disabling tracing makes
 * libipt run on through linear code after the last branch; the newest
 * segment is cut at @ip instead.  0: no cut: the trace is a whole one, and
 * an error in that linear code is a gap at its end, as one continuous
 * libipt decode gives it (ptd_pt_decode does not: see there).
 */
void ptd_pt_trace_set_tail(struct ptd_pt_trace *t, uint64_t ip);
/* Tests: parallel decode groups segments into runs of at least @n bytes
 * of trace (0: the default, 256 KiB); lazy parts are runs of at least
 * min(@n, 64 KiB). */
void ptd__pt_set_batch_bytes(size_t n);
/* Tests: the size up to which a lazy history is stored (default
 * PTD_PT_STORE_MAX; 0: always lazy). */
void ptd__pt_set_store_max(uint64_t n);
/* Bytes of trace before the first PSB (0 when it starts with a PSB). */
uint64_t ptd_pt_trace_lost(struct ptd_pt_trace *t);

/*
 * Incremental decoding of a trace that grows while it is recorded (the pt
 * recorder reads new PT at every stop).  A run decodes the bytes
 * [@begin, @end) of @buf (@size bytes readable; @begin a PSB, @end the
 * next PSB or @size) with one libipt decoder, starting
 * from the decoder state @in that the trace before @begin ended in, and
 * gives in @out (may be NULL) the state the bytes from @end on start
 * from; with @cut_ip (the start ip of the PSB at @end) the linear code
 * libipt runs on through after the last packet is cut there.  Runs over
 * adjacent ranges from the states each other give, concatenated, equal
 * one continuous decode of the whole trace.  A fresh state (the start of
 * a trace, or after lost data) comes from ptd_pt_state_init().  A run that
 * ends at @size takes it as ptd_pt_decode does, as the end of a live
 * recording's chunk (no gap for an error in the linear tail).
 */
struct ptd_pt_state {
	uint64_t opaque[4];
};
void ptd_pt_state_init(struct ptd_pt_state *s);
/* PTD_BLK_* flags a run learnt for the last block before it (see
 * ptd_pt_trace_newest_head). */
uint8_t ptd_pt_state_head_flags(const struct ptd_pt_state *s);
int ptd_pt_decode_run(const uint8_t *buf, uint64_t size, uint64_t begin, uint64_t end,
		      uint64_t cut_ip, struct ptd_image *img, const struct ptd_pt_sink *sink,
		      const struct ptd_pt_state *in, struct ptd_pt_state *out,
		      struct ptd_pt_stats *st);

#endif
