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

#include "disasm/disasm.h"

enum ptd_item_kind {
	PTD_ITEM_BLOCK = 0,
	PTD_ITEM_GAP,
	PTD_ITEM_EVENT,
};

enum ptd_gap_reason {
	PTD_GAP_NONE = 0,
	PTD_GAP_OVERFLOW,     /* trace buffer overflow / OVF */
	PTD_GAP_DECODE_ERROR, /* decoder error (libipt message in detail) */
	PTD_GAP_DISABLED,     /* recording was off (record stop/start) */
	PTD_GAP_LOST,         /* data lost (perf AUX truncated, ring wrap) */
	PTD_GAP_NO_MEMORY,    /* code bytes not available to the decoder */
	PTD_GAP_DROPPED,      /* the oldest part was dropped (a bounded history);
			       * arg = instructions dropped so far */
};

enum ptd_event_kind {
	PTD_EV_SIGNAL = 1, /* async: signal delivered; ip = interrupted resume ip, arg = signo */
	PTD_EV_SIGRETURN,  /* sigreturn back to ip */
	PTD_EV_MMAP,       /* image changed; ip = start, arg = length */
	PTD_EV_EXEC,       /* process exec'ed; history before it is another image */
	PTD_EV_ENABLED,    /* tracing (re)enabled at ip */
	PTD_EV_DISABLED,   /* tracing disabled after the preceding item */
	PTD_EV_OVERFLOW,   /* overflow resolved, resumed at ip */
};

enum ptd_block_flags {
	/* The block ended because of an async event (signal, interrupt),
	 * not because its last instruction transferred control. */
	PTD_BLK_INTERRUPTED = 1 << 0,
	/* The block's last instruction was a syscall that returned to the
	 * next instruction; a non-fall-through successor means sigreturn,
	 * exec or a context switch. */
	PTD_BLK_SYSCALL = 1 << 1,
	/* Instructions were executed speculatively or are uncertain. */
	PTD_BLK_UNCERTAIN = 1 << 2,
	/* The block is 32-bit or 16-bit code (PT's MODE.Exec); neither:
	 * 64-bit.  ptd_block_mode() gives the enum ptd_exec_mode. */
	PTD_BLK_MODE32 = 1 << 3,
	PTD_BLK_MODE16 = 1 << 4,
};

#define PTD_BLK_MODE_SHIFT 3
#define PTD_BLK_ALL_FLAGS                                                                          \
	(PTD_BLK_INTERRUPTED | PTD_BLK_SYSCALL | PTD_BLK_UNCERTAIN | PTD_BLK_MODE32 |              \
	 PTD_BLK_MODE16)

/* A block as recorders and decoders append it and iterators return it. */
struct ptd_block {
	uint64_t ip;     /* first instruction */
	uint64_t end_ip; /* last instruction */
	uint32_t ninsn;  /* >= 1 */
	uint8_t iclass;  /* enum ptd_iclass of the last instruction */
	uint8_t flags;   /* enum ptd_block_flags */
};

/* enum ptd_exec_mode of @b's code (0: 64-bit, 1: 32-bit, 2: 16-bit). */
static inline unsigned ptd_block_mode(const struct ptd_block *b)
{
	return (b->flags >> PTD_BLK_MODE_SHIFT) & 3;
}

/* One item as iterators return it. */
struct ptd_item {
	uint8_t kind;       /* enum ptd_item_kind */
	uint8_t reason;     /* gap: enum ptd_gap_reason; event: enum ptd_event_kind */
	uint64_t number;    /* number of the first instruction (block), of the gap, or of the next item (event) */
	struct ptd_block block; /* kind == BLOCK; for events block.ip is the event ip */
	uint64_t arg;       /* event argument; gap: trace offset or errcode */
	uint32_t detail;    /* index of a detail string (ptd_history_detail) or 0 */
};

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
/* Instructions dropped by ptd_history_drop_oldest() so far. */
uint64_t ptd_history_dropped(const struct ptd_history *h);
/* Sets the tail (current PC); 0 means no tail (offline trace end). */
void ptd_history_set_tail(struct ptd_history *h, uint64_t pc);
uint64_t ptd_history_tail(const struct ptd_history *h);

/* Number of the last item (the tail when set); 0 when empty. */
uint64_t ptd_history_count(const struct ptd_history *h);
/* Executed instructions only (gaps and tail excluded). */
uint64_t ptd_history_ninsn(const struct ptd_history *h);
/* Bytes of heap used by the history: stored items, index, detail strings
 * and the bounded caches (for "info record" and benchmarks). */
size_t ptd_history_bytes(const struct ptd_history *h);
const char *ptd_history_detail(const struct ptd_history *h, uint32_t detail);

/*
 * Cursor: one instruction position.  A cursor on a gap has ip 0 and
 * is_gap set.  Cursors stay valid while items are appended.  The history
 * keeps caches (decoded chunks, instruction offsets) that cursor moves
 * update: one history must not be read from two threads at once.
 * Moving inside a block decodes instruction lengths through the reader;
 * the first and last instruction of a block are known without it.
 */
struct ptd_hcursor {
	const struct ptd_history *h;
	uint64_t number;
	uint64_t ip;
	int is_gap;
	uint8_t gap_reason;
	/* Class and length of the instruction at the cursor; class is
	 * PTD_IC_OTHER for non-final instructions of a block. */
	uint8_t iclass;
	uint8_t len;
	uint8_t block_flags; /* flags of the block when at its last insn */
	uint8_t mode;	     /* enum ptd_exec_mode of the instruction */
	/* private */
	uint64_t item_index;
	uint32_t insn_index;
};

/* Places @c at @number (1..count).  Returns 0, -ptde_bos/-ptde_eos when out of range. */
int ptd_hcursor_goto(struct ptd_hcursor *c, const struct ptd_history *h, uint64_t number);
/* Moves one number forward/backward.  Returns 0, -ptde_eos/-ptde_bos at the ends
 * (the cursor does not move), or -ptde_bad_insn when an instruction cannot be decoded. */
int ptd_hcursor_next(struct ptd_hcursor *c);
int ptd_hcursor_prev(struct ptd_hcursor *c);
/*
 * Returns the events recorded between the instruction before the cursor
 * and the cursor (e.g. a signal delivered before the first handler
 * instruction), writing at most @max into @ev.  Returns the count.
 */
int ptd_hcursor_events(const struct ptd_hcursor *c, struct ptd_item *ev, int max);

/* Fills @it with item @index (0-based, events included, the tail is not an
 * item); returns 1, or 0 when @index >= ptd_history_nitems(). */
int ptd_history_item(const struct ptd_history *h, uint64_t index, struct ptd_item *it);
uint64_t ptd_history_nitems(const struct ptd_history *h);

/*
 * Function-call segments, as gdb's record function-call-history shows
 * them (gdb's btrace rules): a new segment starts at each call (level + 1;
 * a call to the next instruction, the PIC idiom, is not a call), each
 * return (a new segment of the caller's instance, found through the up
 * links and, with func_of, the return target's function), signal entry
 * (level + 1) and sigreturn, gap, a jump to a function's entry (tail call:
 * level + 1, up = the jumping segment, up_is_tail) and a jump into the
 * middle of another function (switch: same level).  Returning out of the
 * function where the recording started makes the caller level - 1.
 * Levels can go negative; the minimum is normalised to 0 when printed.
 */
struct ptd_callseg {
	uint64_t index;  /* 1-based segment number */
	uint64_t first;  /* first instruction number */
	uint64_t last;   /* last instruction number */
	uint64_t ip;     /* first instruction's ip (symbolize for the name) */
	int level;       /* call depth, may be negative before normalisation */
	int is_gap;
	/* The caller: the segment whose last instruction made the call (or
	 * the jump, with up_is_tail; or was interrupted, for a signal
	 * handler), or the caller's segment created by the return when the
	 * call predates the recording (up_is_ret); 0: unknown.  The caller
	 * continues after the return in that segment's next_same. */
	uint64_t up;
	uint64_t prev_same;  /* previous segment of the same function instance */
	uint64_t next_same;  /* next segment of the same function instance */
	/* First segment of this function instance (frame): segments of one
	 * activation share it, a recursive call gets a new one. */
	uint64_t instance;
	uint8_t how;        /* enum ptd_seg_entry: how the segment was entered */
	/* @up is the caller's segment created by the return (the call was
	 * before the recording started), not the one that made the call. */
	uint8_t up_is_ret;
	/* @up is the function that jumped here (tail call), as in gdb's
	 * btrace: the real caller is further up. */
	uint8_t up_is_tail;
	/* PTD_SEG_SWITCH only: the caller segment (up the chain of the
	 * jumping frame) whose function the jump landed in, i.e. the frame
	 * a longjmp unwound to; 0 when none.  Levels stay gdb's (the switch
	 * keeps the jumper's level); replay uses this to stop stepping where
	 * gdb's longjmp handling stops. */
	uint64_t unwound_to;
};

/* How a function-call segment was entered. */
enum ptd_seg_entry {
	PTD_SEG_START = 0,  /* first segment of the history */
	PTD_SEG_CALL,       /* called (level + 1) */
	PTD_SEG_RETURN,     /* returned to (level - 1; continues the caller) */
	PTD_SEG_TAILCALL,   /* jumped to a function's entry (level + 1, up = the jumper) */
	PTD_SEG_SIGNAL,     /* signal handler entered (level + 1) */
	PTD_SEG_SIGRETURN,  /* back in the interrupted frame after sigreturn */
	PTD_SEG_SIGTRAMP,   /* handler returned into the sigreturn trampoline */
	PTD_SEG_GAP,        /* the gap itself (is_gap) */
	PTD_SEG_AFTER_GAP,  /* first segment after a gap */
	PTD_SEG_SWITCH,     /* jumped into the middle of another function (same level) */
};

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

struct ptd_calls;
/* Builds the segments of @h.  @func_of may be NULL (then only calls,
 * returns, signals and gaps start segments).  Returns NULL on error. */
struct ptd_calls *ptd_calls_build(const struct ptd_history *h, ptd_func_of_fn func_of, void *ctx);
/*
 * The number of segments ptd_calls_build() would give for the same
 * arguments (what "info record" prints), found without storing them:
 * one pass over the items that keeps only the pending transition and the
 * signal frames.  Returns 0 or -ptde_invalid / -ptde_nomem, or the error
 * of decoding a lazy part again.
 */
int ptd_calls_count_only(const struct ptd_history *h, ptd_func_of_fn func_of, void *ctx,
			 uint64_t *count);
void ptd_calls_free(struct ptd_calls *c);
uint64_t ptd_calls_count(const struct ptd_calls *c);
/* 1-based; returns NULL when out of range. */
const struct ptd_callseg *ptd_calls_get(const struct ptd_calls *c, uint64_t index);
/* Segment containing instruction @number (1..count, the tail included:
 * it belongs to the last segment), or NULL.  O(log n). */
const struct ptd_callseg *ptd_calls_find(const struct ptd_calls *c, uint64_t number);
int ptd_calls_min_level(const struct ptd_calls *c);

#endif
