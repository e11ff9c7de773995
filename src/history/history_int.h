/*
 * Internals shared by the history files (storage, call segments) and
 * src/replay: instruction lengths through the history's reader.
 */
#ifndef PTD_HISTORY_INT_H
#define PTD_HISTORY_INT_H

#include "history/history.h"

/* Decodes the instruction at @ip through @h's reader; returns its length
 * (>0) and fills @out (may be NULL), or <0 (-ptde_nomap, -ptde_bad_insn). */
int ptd__history_insn_len(const struct ptd_history *h, uint64_t ip, struct ptd_insn_info *out);
/* The same in execution mode @mode (enum ptd_exec_mode). */
int ptd__history_insn_len_mode(const struct ptd_history *h, uint64_t ip, unsigned mode,
			       struct ptd_insn_info *out);
/* The same for the instruction at @ip of item number @number (its
 * program's code: ptd_history_mark_image). */
int ptd__history_insn_len_at(const struct ptd_history *h, uint64_t number, uint64_t ip,
			     unsigned mode, struct ptd_insn_info *out);
/* The tag (ptd_history_mark_image, already shifted) of the program item
 * number @number ran in, 0 for the history's newest one. */
uint64_t ptd__history_func_tag(const struct ptd_history *h, uint64_t number);
struct ptd_calllog;
/* The tag ORed into the addresses the log gives func_of from now on. */
void ptd__calllog_set_tag(struct ptd_calllog *l, uint64_t tag);
/* Reads up to @n code bytes at @addr through @h's reader (retrying short
 * reads); returns the count read (0 when nothing is readable). */
int ptd__history_read(const struct ptd_history *h, uint64_t addr, uint8_t *buf, size_t n);
/* Number of the last executed position (gaps included, tail excluded). */
uint64_t ptd__history_executed_count(const struct ptd_history *h);

/*
 * Sequential reading without a lookup per item: points @items at the
 * decoded items from index @index to the end of its chunk (*@n of them,
 * >= 1), valid until the next item, cursor or ptd__history_items_at call on @h
 * (instruction lengths may be read meanwhile).  Returns 1, 0 when
 * @index is past the end, or a negative error (a lazy part that could not
 * be decoded again; the message is set).
 */
int ptd__history_items_at(const struct ptd_history *h, uint64_t index, const struct ptd_item **items,
			  uint32_t *n);

/*
 * A block's encoding in the history less its second field (the distance
 * from the block before, known only when it is appended), packed for
 * ptd__history_append_coded: the bytes in bits 0-55, their count (3 to 7)
 * in bits 56-63.  0 for a block that is not encoded that way (a class
 * OTHER block, which the next one may continue; one with a mode; one too
 * long).  Computed once for a block that recurs (the fast path's cached
 * runs), it spares the history encoding the block each time.
 */
uint64_t ptd__history_block_code(const struct ptd_block *b);

/*
 * ptd_history_append_blocks with @code[i] either 0 or
 * ptd__history_block_code(&@b[i]) (the caller vouches for it): the same
 * items, the same bytes.
 */
int ptd__history_append_coded(struct ptd_history *h, const struct ptd_block *b,
			      const uint64_t *code, size_t n);

/*
 * The call log: a compact record of what the function-call segments need
 * from a history's items, built while the items are appended (in the
 * decoding threads), so that "info record", the call history and
 * backtraces never decode a lazy part again only to find calls.  Blocks
 * that can start no segment (their incoming and outgoing transitions
 * start none: no call, return, far transfer, or jump into another
 * function or to a function's entry) are kept only as an instruction
 * count; every other block, the gaps and the signal events are kept in
 * full (a few bytes each).  Replaying the log through the segment builder
 * gives exactly what walking the items gives (calls.c).
 */
struct ptd_funcs; /* a thread-safe func_of: the callback under a lock */
struct ptd_calllog;

/* Returns a new func_of wrapper (NULL: no memory); free with ptd__funcs_free. */
struct ptd_funcs *ptd__funcs_alloc(ptd_func_of_fn fn, void *ctx);
void ptd__funcs_free(struct ptd_funcs *f);
/* The code's reader for the logs using @f (called under its lock, from
 * the decoding threads too): with one, a log decides whether a call goes
 * to its next instruction (no segment) as the builder would. */
void ptd__funcs_set_reader(struct ptd_funcs *f, ptd_read_fn read, void *ctx);
/* @f's answers may have changed: the memos of them (each thread's, the
 * fast decoder's verdicts) no longer hold. */
void ptd__funcs_renew(struct ptd_funcs *f);
/* A log classifying jumps with @f (not owned; NULL: jumps start nothing,
 * as ptd_calls_build without func_of).  NULL when out of memory. */
struct ptd_calllog *ptd__calllog_alloc(const struct ptd_funcs *f);
void ptd__calllog_free(struct ptd_calllog *l);
/* Items in order (merged or not: a block continuing a class-OTHER block
 * is equivalent either way).  Return 0 or -ptde_nomem (the log is then
 * unusable: ptd__calllog_ok() says 0). */
int ptd__calllog_block(struct ptd_calllog *l, const struct ptd_block *b);
/* ptd__calllog_block for each of @b[0..@n), in one call; @edge (may be
 * NULL) says for the transition from @b[i] to @b[i + 1]: 0 not known, 1
 * it starts something, 2 it starts nothing (ptd__calllog_boring's answer,
 * kept by the caller). */
int ptd__calllog_blocks(struct ptd_calllog *l, const struct ptd_block *b, size_t n,
			const uint8_t *edge);
/* Whether going from block @x to @next_ip starts no function-call segment
 * and leaves nothing pending (1) or not (0).  The answer depends only on
 * @x's class, flags and last instruction, @next_ip and the log's func_of:
 * a caller may keep it while ptd__calllog_funcs_id stays the same. */
int ptd__calllog_boring(struct ptd_calllog *l, const struct ptd_block *x, uint64_t next_ip);
/* The identity of @l's func_of (0: none). */
uint64_t ptd__calllog_funcs_id(const struct ptd_calllog *l);
int ptd__calllog_gap(struct ptd_calllog *l);
int ptd__calllog_event(struct ptd_calllog *l, unsigned kind, uint64_t ip);
/* ORs @flags into the newest block when no item came after it (what
 * ptd_history_flag_last does to the history). */
void ptd__calllog_flag_last(struct ptd_calllog *l, uint8_t flags);
/* Nonzero when the newest logged item is a block. */
int ptd__calllog_ends_in_block(const struct ptd_calllog *l);
/* Appends @src's records to @dst (@src is left empty).  Returns 0 or -ptde_nomem. */
int ptd__calllog_append(struct ptd_calllog *dst, struct ptd_calllog *src);
/* Drops the newest block (it may still grow in the history). */
void ptd__calllog_drop_last_block(struct ptd_calllog *l);
int ptd__calllog_ok(const struct ptd_calllog *l);
size_t ptd__calllog_bytes(const struct ptd_calllog *l);
/* A log closes its open part (a summary the view chains) once the part's
 * records take this many bytes; 0: the default (16 KiB).  Process-wide,
 * for the tests: set it before logs are written. */
void ptd__calllog_set_part_bytes(size_t n);
/* The parts of @l whose summaries serve (closed ones and the open one
 * with items); 0 when they no longer stand for the log. */
uint32_t ptd__calllog_nparts(const struct ptd_calllog *l);

/* The shared func_of of @h's log (see ptd_history_set_func), or NULL. */
const struct ptd_funcs *ptd__history_funcs(const struct ptd_history *h);
/* Gives @h a log using @f (owned elsewhere, outliving @h): a history
 * decoded in another thread for splicing into one with a log. */
void ptd__history_use_funcs(struct ptd_history *h, const struct ptd_funcs *f);
/*
 * The log of @h's items [0, *@covered), or NULL when it has none (then
 * the items are walked).  Valid until @h changes.
 */
const struct ptd_calllog *ptd__history_calllog(const struct ptd_history *h, uint64_t *covered);
/* @h's call log while it logs every item, for a decoder's verdicts on
 * the edges between blocks (ptd_fastpt_set_log), else NULL. */
struct ptd_calllog *ptd__history_calllog_w(struct ptd_history *h);
/* ptd_history_append_blocks() with the log's verdicts on the edges
 * between the blocks (see ptd__calllog_blocks; NULL: none known). */
int ptd__history_append_blocks_edge(struct ptd_history *h, const struct ptd_block *b, size_t n,
				    const uint8_t *edge);
/* ptd_history_append_part() with the log of the part's items (taken,
 * freed in any case; NULL: the history's log stops before the part). */
int ptd__history_append_part_log(struct ptd_history *h, uint32_t part, uint64_t nitems,
				 uint64_t numbers, uint64_t ninsn, char *const *details,
				 uint32_t ndetails, struct ptd_calllog *log);
/* ptd_calls_build / ptd_calls_count_only walking the items, never the
 * log (tests compare the two). */
struct ptd_calls *ptd__calls_build_items(const struct ptd_history *h, ptd_func_of_fn func_of,
					 void *ctx);
/* ptd_calls_build with a checkpoint every @chunk segments, or (0) keeping
 * every segment: the view a lazy one must equal, for the tests; @use_log
 * 0 walks the items, never the log. */
struct ptd_calls *ptd__calls_build_chunked(const struct ptd_history *h, ptd_func_of_fn func_of,
					   void *ctx, int use_log, int chunk);
/* The view ptd_calls_build gives when the part summaries of @h's log
 * serve (else NULL, no error): walked from the latest part that leaves
 * at least @min_after segments after it; the segments before it come
 * from a whole view built when first asked for. */
struct ptd_calls *ptd__calls_build_suffix(const struct ptd_history *h, ptd_func_of_fn func_of,
					  void *ctx, uint64_t min_after);
/* Chain the part summaries even when most parts are irregular (the
 * tests: every seam through the chain); 0: only when it pays. */
void ptd__calls_set_chain_always(int on);
/* *@floor: the segments a view does not hold itself (0: it holds all);
 * returns 1 when the whole view behind it has been built. */
int ptd__calls_suffix_info(const struct ptd_calls *c, uint64_t *floor);
/* The parts before its floor a view from a late part had the builder
 * walk (the others chained from their summaries); 0 for other views. */
uint64_t ptd__calls_suffix_walked(const struct ptd_calls *c);
/* Bytes a view keeps (bench); *@snap, *@fix (may be NULL): of them, the
 * checkpoints' segments and signal frames, and the later writes. */
size_t ptd__calls_bytes(const struct ptd_calls *c, size_t *snap, size_t *fix);
/* Forgets the decoded chunks of a view (bench: reading them cold again). */
void ptd__calls_drop_cache(const struct ptd_calls *c);
int ptd__calls_count_items(const struct ptd_history *h, ptd_func_of_fn func_of, void *ctx,
			   uint64_t *count);
/* What ptd_history_flag_last does, for a history whose newest part is
 * not decoded: only the log learns it. */
void ptd__history_flag_last_logged(struct ptd_history *h, uint8_t flags);

#endif
