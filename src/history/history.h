/*
 * Per-thread branch history: a sequence of items numbered like gdb's
 * instruction numbers (1 = oldest recorded).
 *
 * Items are blocks (straight-line runs of >= 1 instructions ending at a
 * control transfer or an event), gaps (one number each, as gdb counts
 * them: trace lost, overflow, decode error, recording off) and events
 * (signal delivery, syscall, mapping change: no number, attached to the
 * position of the item that follows).  After the executed items comes the
 * *tail*: the instruction at the current PC, not yet executed, numbered
 * N = executed + 1; gdb's btrace shows it the same way.
 *
 * Storage is compact (varint-packed blocks in chunks, a sparse index for
 * random access by number); instructions inside a block are enumerated
 * on demand by decoding lengths through the reader callback, with a cache
 * keyed by block start address.  The history never calls ptrace.
 */
#ifndef PTD_HISTORY_H
#define PTD_HISTORY_H

#include <stddef.h>
#include <stdint.h>

#include "ptdbg/ptdbg.h"

/* The item and call-segment types, cursors and the read-only queries
 * are public (include/ptdbg/ptdbg.h); building a history is internal. */

/* Reads code bytes at @addr for instruction decoding; returns bytes read
 * (may be short at the end of a mapping) or <0. */
typedef int (*ptd_read_fn)(void *ctx, uint64_t addr, uint8_t *buf, size_t n);

struct ptd_history;

/* Returns a new empty history using @read to decode instructions, or NULL. */
struct ptd_history *ptd_history_alloc(ptd_read_fn read, void *ctx);
void ptd_history_free(struct ptd_history *h);
/* Forgets all items and the tail (record stop, re-record). */
void ptd_history_clear(struct ptd_history *h);

/*
 * Appends a block.  A block whose first ip follows the previous block's
 * last instruction without a control transfer (previous iclass OTHER and
 * not interrupted) is merged into it (the reader decodes that last
 * instruction's length), so appending one instruction at a time costs no
 * more memory than appending whole blocks.  Returns 0 or -ptde_invalid
 * (ninsn == 0, end_ip < ip, ninsn == 1 with end_ip != ip, unknown iclass
 * or flags) / -ptde_nomem.
 */
int ptd_history_append_block(struct ptd_history *h, const struct ptd_block *b);
/* Appends @n blocks, as many ptd_history_append_block calls would, faster
 * (decoders use it).  Returns 0 or the first error. */
int ptd_history_append_blocks(struct ptd_history *h, const struct ptd_block *b, size_t n);
/* Appends a gap (takes one number).  @detail may be NULL. */
int ptd_history_append_gap(struct ptd_history *h, enum ptd_gap_reason r, uint64_t arg, const char *detail);
/* Appends an event (takes no number). */
int ptd_history_append_event(struct ptd_history *h, enum ptd_event_kind k, uint64_t ip, uint64_t arg);
/* Appends copies of all of @src's items to @dst, as one-by-one appends
 * would (a first block continuing @dst's last one merges).  Returns 0 or
 * the first error. */
int ptd_history_append_history(struct ptd_history *dst, const struct ptd_history *src);
/*
 * Moves every item of @src to the end of @dst: the result is the same as
 * appending @src's items to @dst one by one (a first block continuing
 * @dst's last one merges into it), but whole chunks move, so the cost does
 * not grow with @src's size.  @src is left empty; tails are not touched.
 * Both must share a reader.  Returns 0 or -ptde_nomem / -ptde_invalid;
 * on failure some items of @src may already be in @dst.
 */
int ptd_history_splice(struct ptd_history *dst, struct ptd_history *src);
/*
 * Puts the items of @older before those of @h (numbers of @h's items grow
 * by @older's count); @older is left empty.  Same cost and result as
 * splicing @h onto @older.  @h keeps its tail.
 */
int ptd_history_prepend(struct ptd_history *h, struct ptd_history *older);
/*
 * Parts decoded on demand (a PT trace's PSB segments).  A part is a run of
 * @nitems items taking @numbers numbers (@ninsn instructions plus gaps)
 * whose items are not stored: when something needs them, @fill is called
 * to append exactly those items to an empty history, and they are kept
 * until more than
 * @max_parts parts are decoded (least recently used first).  @details are
 * the detail strings of the part's gaps, in order (copied).  Parts are
 * appended in order with @part = 0, 1, 2, ...; items may be appended after
 * them.  The history must not be spliced from.
 */
typedef int (*ptd_history_fill_fn)(void *ctx, uint32_t part, struct ptd_history *out);
void ptd_history_set_fill(struct ptd_history *h, ptd_history_fill_fn fill, void *ctx,
			  uint32_t max_parts);
int ptd_history_append_part(struct ptd_history *h, uint32_t part, uint64_t nitems,
			    uint64_t numbers, uint64_t ninsn, char *const *details, uint32_t ndetails);
/*
 * ORs @flags (PTD_BLK_INTERRUPTED, PTD_BLK_SYSCALL) into the newest item
 * when it is a block not yet encoded: what a decoder learns about the last
 * block of a run only from the run after it.  PTD_BLK_SYSCALL only goes on
 * a block ending in a far call.  Returns 1 when applied, 0 otherwise.
 */
int ptd_history_flag_last(struct ptd_history *h, uint8_t flags);
/*
 * Bounded histories: drops the oldest items, whole chunks of them (a few
 * hundred items each), as far as item numbers before @number go, and puts
 * one gap (PTD_GAP_DROPPED, arg = all instructions dropped so far,
 * @detail) in their place as number 1; a dropped-gap already at the start
 * is replaced.  Every item keeps its order; numbers go down by *@shift
 * (0 when nothing could be dropped: the newest chunk always stays).
 * Cursors into the history must be placed again.  A history with parts
 * decoded on demand cannot drop (-ptde_invalid).  Returns 0 or
 * -ptde_nomem (then nothing changed).
 */
int ptd_history_drop_oldest(struct ptd_history *h, uint64_t number, const char *detail,
			    uint64_t *shift);
/*
 * The items so far ran in another program than those appended from now
 * on (an exec replaced it): their instructions are read through @read
 * and @ctx from now on, the later ones through the history's own reader,
 * and the addresses the call log and ptd_calls_build give func_of about
 * them carry @tag (1-255) in their bits PTD_FUNC_TAG_SHIFT and up, so that
 * func_of answers with that program's functions.  Marks move with their
 * items (drops, prepends) and go with a clear.  Nothing when no item was
 * appended since the last mark.  Returns 0 or -ptde_invalid / -ptde_nomem.
 */
#define PTD_FUNC_TAG_SHIFT 56
int ptd_history_mark_image(struct ptd_history *h, ptd_read_fn read, void *ctx, uint8_t tag);
/* The @ctx of the mark item @number is under (the earliest mark above
 * it), or NULL when it ran in the program of the history's own reader. */
void *ptd_history_image_ctx(const struct ptd_history *h, uint64_t number);
/* Sets the tail (current PC); 0 means no tail (offline trace end). */
void ptd_history_set_tail(struct ptd_history *h, uint64_t pc);

/* Returns the function entry of @addr (symbol start) or 0 when unknown. */
typedef uint64_t (*ptd_func_of_fn)(void *ctx, uint64_t addr);

/*
 * From now on @h keeps a compact call log as items are appended to it
 * (also by the decoding threads of ptd_pt_trace_history), so that
 * ptd_calls_build and ptd_calls_count_only with the same @func_of and
 * @ctx never decode a lazy part again only to find calls.  @func_of is
 * called under a lock of the history's, from any thread, while items are
 * appended; it must answer the same later.  Only for an empty history;
 * NULL @func_of: a log for builds without func_of.
 */
void ptd_history_set_func(struct ptd_history *h, ptd_func_of_fn func_of, void *ctx);
/* Gives the empty @dst the func_of of @src (which must outlive it), so
 * that @dst keeps a call log too and a splice of @dst into @src keeps
 * @src's log going.  Nothing when @src has none. */
void ptd_history_share_func(struct ptd_history *dst, const struct ptd_history *src);
/*
 * Writes @h's call log again from its items (one pass, no segments
 * stored) when @h has a func_of but no log standing for all of its items
 * (ptd_history_drop_oldest drops it; a splice of items without a log
 * stops it), or when @changed: the func_of's answers for logged
 * addresses changed (new symbols), and the answers it remembers go too.
 * Appends feed the log again afterwards.  A history with parts decoded
 * on demand is left alone.  Returns 1 when the log was written, 0 when
 * nothing was to be done, or -ptde_nomem (the history then has no log:
 * builds walk the items).
 */
int ptd_history_relog(struct ptd_history *h, int changed);

struct ptd_calls;
/*
 * Builds the segments of @h.  @func_of may be NULL (then only calls,
 * returns, signals and gaps start segments).  Returns NULL on error.
 * A pass over the call log (or the items) keeps, per chunk of about
 * 1,000 segments, a checkpoint of the builder and the later writes to the
 * chunk's segments (1-2 bytes per segment in all); ptd_calls_get/find
 * materialise a chunk by walking again from its checkpoint (a cache keeps
 * 32), so @h and @func_of's answers must stay as they are while the view
 * is used.  When @h has a call log (ptd_history_set_func), whose parts
 * are a lazy history's parts, the logs of spliced batches and every 16
 * KiB of log besides, the pass starts at a late part (a few thousand
 * segments before the end): the builder's state there comes from
 * chaining the parts' call summaries (calls.c), so the first call history
 * after a load or a stop costs about the same at any trace size; the
 * segments before that part come from a whole view built, as above, when
 * one is first read.
 */
struct ptd_calls *ptd_calls_build(const struct ptd_history *h, ptd_func_of_fn func_of, void *ctx);
/*
 * The number of segments ptd_calls_build() would give for the same
 * arguments (what "info record" prints), found without storing them:
 * one pass over the items that keeps only the pending transition and the
 * signal frames; with a call log, the part summaries chained to the last
 * part (as ptd_calls_build), then only that part counted.  Returns 0 or
 * -ptde_invalid / -ptde_nomem, or the error of decoding a lazy part again.
 */
int ptd_calls_count_only(const struct ptd_history *h, ptd_func_of_fn func_of, void *ctx,
			 uint64_t *count);
void ptd_calls_free(struct ptd_calls *c);

#endif
