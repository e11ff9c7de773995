/*
 * Function-call segments of a history, as gdb's record
 * function-call-history shows them, built in one pass over the items from
 * the classes of the block ends (call, return, jump, syscall) and the
 * signal/gap items.  Segments of one function activation are linked
 * (prev_same/next_same) and point to their caller (up), which is what
 * finish, step/next frame checks and backtraces in the past need.  The
 * func_of callback is only asked about jump sources/targets and return
 * targets, memoized in a direct-mapped table.
 *
 * ptd_calls_build keeps the segments as a lazily decoded view (about 1-3
 * bytes per segment instead of 88): the pass over the history takes a
 * checkpoint of the builder every chunk of segments and keeps only what
 * a walk from that checkpoint cannot find again, the writes made to the
 * chunk's segments after such a walk ends (next_same of a caller, the
 * up of an orphan); ptd_calls_get/find walk again from the checkpoint
 * of the chunk asked for.  The same code builds, counts and materialises,
 * so the three cannot disagree.
 *
 * A call log also carries a summary of each of its parts (the frames the
 * part opens, its returns to the frames it found open), written by the
 * decoding thread as the log is; a part is a lazy history's PSB run, an
 * appended log, or 16 KiB of records (the log closes one by itself, so
 * stored and item-by-item histories have parts too); ptd_calls_build chains
 * the summaries from the start to find the builder's state at a late
 * part (irregular parts are walked by the builder itself) and walks only
 * from there, so the first call history after a load costs about the
 * same at any trace size.
 */
#include <inttypes.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "history/history.h"
#include "history/history_int.h"
#include "util/error.h"

#define MEMO_SLOTS (1u << 16)
#define MAX_CALLER_WALK 64

/*
 * A view keeps either every segment (eager: small builds and the tests'
 * reference) or, per chunk of about CHUNK_SEGS segments, a checkpoint of
 * the builder (where the walk was in the log or the items, the pending
 * transition, the signal frames and the few older segments the builder
 * can still reach) and the later writes to the chunk's segments (a
 * caller's next_same, an orphan's up).  A chunk is materialised by
 * walking again from its checkpoint, and kept in a small cache.
 */
#define CHUNK_SEGS 1024
#define CACHE_SLOTS 32
#define VIEW_MEMO_SLOTS (1u << 12)
/* ptd_calls_build walks from the latest part that leaves at least this
 * many segments after it (the newest ones are read first). */
#define SUFFIX_SEGS 4096
/* Segments the builder walks before the chain takes its state over again
 * at most, before the view starts there instead. */
#define STUCK_SEGS (1u << 16)

struct checkpoint;

struct cache_slot {
	uint64_t chunk; /* + 1; 0 = empty */
	uint64_t used;
	struct ptd_callseg *segs;
	uint64_t n, cap;
};

struct ptd_calls {
	uint64_t n;
	int min_level;
	struct ptd_callseg *segs; /* eager: all of them */
	/* lazy */
	const struct ptd_history *h;
	ptd_func_of_fn func_of;
	void *ctx;
	int use_log;
	/* what the build walked: a view of a history changed since fails */
	uint64_t nitems, tail, logn, logheld;
	struct checkpoint *cps;
	uint64_t ncp, cpcap;
	struct adoption *adopt; /* in order */
	size_t nadopt, adoptcap;
	struct cache_slot slot[CACHE_SLOTS];
	uint64_t tick;
	struct memo_ent *memo;
	/* A view built from a late part on (calls_suffix): segments up to
	 * floor are not in it but in full, the whole view, built when one
	 * of them is first asked for. */
	uint64_t floor;
	struct ptd_calls *full;
	int full_tried;
	uint64_t walked_parts; /* (ptd__calls_suffix_walked) */
};

enum trans {
	T_NONE = 0,
	T_CALL,
	T_RET,
	T_JUMP,
	T_SYSCALL,
	T_AFTER_GAP,
	T_EXEC, /* an exec replaced the program: its frames are gone */
};

struct sigframe {
	uint64_t ip;  /* interrupted (resume) ip */
	uint64_t seg; /* segment that was interrupted */
};

struct memo_ent {
	uint64_t key; /* addr + 1; 0 = empty */
	uint64_t entry;
};

/* A return out of the function where the recording started: @seg (at
 * level - 1) became the caller of every orphan of @level (a segment with
 * no caller, gaps aside) made before it. */
struct adoption {
	uint64_t seg;
	int level;
};

/* Where a walk is: in the call log, at its held block, in the items
 * after it, at the tail, or done. */
enum phase { PH_LOG, PH_LOGEND, PH_ITEMS, PH_TAIL, PH_DONE };

struct walkpos {
	uint8_t phase;
	size_t off;	   /* PH_LOG: byte offset in the log */
	uint64_t num;	   /* PH_LOG: number of the next item */
	uint64_t base;	   /* PH_LOG: ip base of the next block */
	uint64_t item;	   /* PH_ITEMS: index of the next item */
};

struct checkpoint {
	uint64_t nseg;	/* segments before it */
	uint64_t first; /* first number of segment nseg + 1 */
	struct walkpos pos;
	uint64_t cur, from_ip, before_gap;
	uint8_t pending, from_mode;
	uint32_t nsig, nsnap;
	struct sigframe *sig; /* nsig */
	uint8_t *snap;	      /* nsnap segments by index, packed (snap_pack) */
	uint32_t snaplen;
	uint8_t *fix;	      /* later writes: uv seg offset, field, uv value */
	uint32_t nfix, fixcap;
};

enum field { F_UP, F_UP_IS_RET, F_UP_IS_TAIL, F_NEXT_SAME };

/* from_mode after a short call or return record (C_MARK): no from_ip,
 * the transition after it decided when logged. */
#define FROM_DECIDED 0xff

struct builder {
	const struct ptd_history *h;
	ptd_func_of_fn func_of;
	void *ctx;
	struct ptd_calls *c;
	uint64_t cur;
	enum trans pending;
	uint64_t from_ip; /* last instruction of the previous block */
	unsigned from_mode; /* its execution mode (enum ptd_exec_mode) */
	uint64_t before_gap;
	struct sigframe *sig;
	size_t nsig, sigcap;
	struct memo_ent *memo;
	int memo_owned;
	int err;
	/* ptd_calls_count_only: segments are counted, not stored (n is
	 * the count). */
	int count_only;
	/* Replay the history's call log where it has one (the tests turn
	 * it off to compare). */
	int use_log;
	/* Segments made so far; the newest is cur. */
	uint64_t n;
	int min_level;
	/* The store: segments win_base + 1 .. n in win, and the older ones
	 * the builder can still reach in snap (by index). */
	struct ptd_callseg *win;
	uint64_t win_base, wincap;
	struct ptd_callseg *snap;
	size_t nsnap;
	/* Building a lazy view (lazy: segments per chunk): checkpoints
	 * are taken, and writes to segments up to sealed (whose chunk a
	 * walk from its checkpoint no longer reaches) are kept as the
	 * chunk's fixups. */
	int lazy;
	uint64_t sealed;
	/* Segments up to floor are not in the view (a walk from a late
	 * part): their later writes are not kept. */
	uint64_t floor;
	/* Materialising: a walk from a checkpoint (adoptions are not
	 * recorded again). */
	int replaying;
	/* The walk; a step of the log stops early when there are stop_n
	 * segments (a checkpoint or the sealing of a chunk is due). */
	uint64_t stop_n;
	size_t stop_off; /* and at this offset of the log (a part's end) */
	const struct ptd_calllog *log;
	uint64_t covered, nitems;
	struct walkpos pos;
	const struct ptd_item *ib;
	uint64_t ib_start;
	uint32_t ib_n;
	struct ptd_callseg dummy;
	/* pics_hold's answers: key pic_key() + 1, entry mode << 1 | is PIC */
	struct memo_ent *pic_memo;
	/* The func_of tag of the program of the transition being resolved
	 * (ptd__history_func_tag): ORed into the addresses func_of gets. */
	uint64_t tag;
};

/* A segment older than the window: in snap, by index. */
static __attribute__((noinline)) struct ptd_callseg *seg_older(struct builder *b, uint64_t index)
{
	size_t lo, hi;

	lo = 0;
	hi = b->nsnap;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (b->snap[mid].index < index)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < b->nsnap && b->snap[lo].index == index)
		return &b->snap[lo];
	/* Not reachable by the builder's rules: a broken invariant. */
	b->err = -ptde_internal;
	memset(&b->dummy, 0, sizeof(b->dummy));
	return &b->dummy;
}

/* Segment @index from the store (NULL for 0 or when counting). */
static inline struct ptd_callseg *seg(struct builder *b, uint64_t index)
{
	if (!index || b->count_only)
		return NULL;
	if (index > b->win_base && index <= b->n)
		return &b->win[index - b->win_base - 1];
	return seg_older(b, index);
}

static struct ptd_callseg *seg_if_stored(struct builder *b, uint64_t index)
{
	int err = b->err;
	struct ptd_callseg *s = seg(b, index);

	if (s == &b->dummy) {
		b->err = err;
		return NULL;
	}
	return s;
}

static uint64_t func(struct builder *b, uint64_t addr)
{
	struct memo_ent *e;
	uint64_t k;

	if (!b->func_of)
		return 0;
	addr |= b->tag;
	k = addr * 0x9e3779b97f4a7c15ull;
	if (!b->memo)
		return b->func_of(b->ctx, addr);
	e = &b->memo[(k >> 40) & (b->memo_owned ? MEMO_SLOTS - 1 : VIEW_MEMO_SLOTS - 1)];
	if (e->key != addr + 1) {
		e->key = addr + 1;
		e->entry = b->func_of(b->ctx, addr);
	}
	return e->entry;
}

static void fix_append(struct builder *b, uint64_t index, enum field f, uint64_t v);

/* Writes @f of segment @index, which may be older than the builder's
 * window (then the chunk keeps the write too). */
/* Writes field @f of @s; 0, or -1 for an unknown field (a corrupt fixup). */
static int put_field(struct ptd_callseg *s, enum field f, uint64_t v)
{
	switch (f) {
	case F_UP:
		s->up = v;
		return 0;
	case F_UP_IS_RET:
		s->up_is_ret = (uint8_t)v;
		return 0;
	case F_UP_IS_TAIL:
		s->up_is_tail = (uint8_t)v;
		return 0;
	case F_NEXT_SAME:
		s->next_same = v;
		return 0;
	}
	return -1;
}

static void set_field(struct builder *b, uint64_t index, enum field f, uint64_t v)
{
	struct ptd_callseg *s = seg_if_stored(b, index);

	if (s)
		put_field(s, f, v);
	if (b->lazy && index <= b->sealed && index > b->floor)
		fix_append(b, index, f, v);
}

static uint64_t new_seg(struct builder *b, uint8_t how, uint64_t first, uint64_t ip, int level,
			uint64_t up, uint8_t up_is_ret, uint8_t up_is_tail)
{
	struct ptd_callseg *s;

	if (b->count_only)
		return b->cur = ++b->n;
	if (b->n - b->win_base == b->wincap) {
		uint64_t cap = b->wincap ? b->wincap * 2 : 64;
		struct ptd_callseg *n = realloc(b->win, cap * sizeof(*n));

		if (!n) {
			b->err = -ptde_nomem;
			return 0;
		}
		b->win = n;
		b->wincap = cap;
	}
	s = &b->win[b->n - b->win_base];
	b->n++;
	memset(s, 0, sizeof(*s));
	s->index = b->n;
	s->first = first;
	s->last = first - 1;
	s->ip = ip;
	s->level = level;
	s->up = up;
	s->up_is_ret = up_is_ret;
	s->up_is_tail = up_is_tail;
	s->instance = s->index;
	s->how = how;
	if (b->n == 1 || level < b->min_level)
		b->min_level = level;
	if (b->lazy && b->c->ncp && b->c->cps[b->c->ncp - 1].nseg + 1 == s->index)
		b->c->cps[b->c->ncp - 1].first = first;
	b->cur = s->index;
	return s->index;
}

/* Continues function instance whose latest segment is @prev in a new segment. */
static void continue_instance(struct builder *b, uint8_t how, uint64_t first, uint64_t ip,
			      uint64_t prev)
{
	struct ptd_callseg *p = seg(b, prev);
	int level;
	uint64_t up, inst, s;
	uint8_t uir, uit;

	if (b->count_only) {
		new_seg(b, how, first, ip, 0, 0, 0, 0);
		return;
	}
	level = p->level;
	up = p->up;
	inst = p->instance;
	uir = p->up_is_ret;
	uit = p->up_is_tail;
	s = new_seg(b, how, first, ip, level, up, uir, uit);
	if (!s)
		return;
	seg(b, s)->instance = inst;
	seg(b, s)->prev_same = prev;
	set_field(b, prev, F_NEXT_SAME, s);
}

/* The segment whose up is the real caller: tail-call links skipped. */
static struct ptd_callseg *frame_root(struct builder *b, struct ptd_callseg *s)
{
	int i;

	for (i = 0; s->up_is_tail && s->up && i < 1 << 20; i++)
		s = seg(b, s->up);
	return s;
}

static inline int is_orphan(const struct ptd_callseg *o, int level)
{
	return !o->up && o->how != PTD_SEG_GAP && o->level == level;
}

static void adopt(struct builder *b, struct ptd_callseg *o, int level)
{
	if (o->index != b->cur && is_orphan(o, level)) {
		o->up = b->cur;
		o->up_is_ret = 1;
	}
}

static void add_adoption(struct builder *b, int level)
{
	struct ptd_calls *c = b->c;

	if (c->nadopt == c->adoptcap) {
		size_t cap = c->adoptcap ? c->adoptcap * 2 : 8;
		struct adoption *n = realloc(c->adopt, cap * sizeof(*n));

		if (!n) {
			b->err = -ptde_nomem;
			return;
		}
		c->adopt = n;
		c->adoptcap = cap;
	}
	c->adopt[c->nadopt].seg = b->cur;
	c->adopt[c->nadopt].level = level;
	c->nadopt++;
}

static void do_return(struct builder *b, uint64_t target, uint64_t number)
{
	struct ptd_callseg *cur = seg(b, b->cur);
	struct ptd_callseg *inst = seg(b, cur->instance);
	struct ptd_callseg *root = frame_root(b, cur);
	uint64_t up = root->up, cand;
	uint64_t ft;
	int i, level;
	uint64_t k;

	if (inst->how == PTD_SEG_SIGNAL) {
		/* A handler returns into the sigreturn trampoline, not into
		 * the interrupted function: same depth until sigreturn. */
		new_seg(b, PTD_SEG_SIGTRAMP, number, target, cur->level, cur->up, cur->up_is_ret,
			cur->up_is_tail);
		return;
	}
	if (up && !root->up_is_ret) {
		/* Prefer the caller whose function is the return target's
		 * (longjmp-like unwinding returns past several frames). */
		ft = func(b, target);
		cand = up;
		for (i = 0; ft && cand && i < MAX_CALLER_WALK; i++) {
			struct ptd_callseg *cs = seg(b, cand);

			if (func(b, seg(b, cs->instance)->ip) == ft)
				break;
			if (cs->up_is_ret) {
				cand = 0;
				break;
			}
			cand = cs->up;
		}
		if (ft && (!cand || i == MAX_CALLER_WALK)) {
			/* Returned to none of the callers (setcontext, a stack
			 * switch): as gdb, a new caller one level up for this
			 * segment only; the other frames stay as they are. */
			uint64_t ci = b->cur;

			level = cur->level;
			if (!new_seg(b, PTD_SEG_RETURN, number, target, level - 1, 0, 0, 0))
				return;
			set_field(b, ci, F_UP, b->cur);
			set_field(b, ci, F_UP_IS_RET, 1);
			set_field(b, ci, F_UP_IS_TAIL, 0);
			return;
		}
		continue_instance(b, PTD_SEG_RETURN, number, target, ft ? cand : up);
		return;
	}
	if (up) {
		/* Not for the newest segment of an orphan chain (the
		 * return-created caller is after it); be safe. */
		continue_instance(b, PTD_SEG_RETURN, number, target, up);
		return;
	}
	/* Returning out of the function where the recording started. */
	level = root->level;
	if (!new_seg(b, PTD_SEG_RETURN, number, target, level - 1, 0, 0, 0))
		return;
	/* The orphans of the level returned from (segments with no caller,
	 * gaps aside: made so, and no return has given them one since) get
	 * the new one as their caller.  Those the builder keeps are changed
	 * here; the view keeps the adoption for the others (materialise). */
	for (k = 0; k < b->nsnap; k++)
		adopt(b, &b->snap[k], level);
	for (k = 0; k + b->win_base < b->n; k++)
		adopt(b, &b->win[k], level);
	if (b->lazy && !b->replaying)
		add_adoption(b, level);
}

/* Whether @target may follow a call at @ip as its next instruction (a
 * call takes 2 to 15 bytes): only then is its length asked. */
static inline int pic_distance(uint64_t ip, uint64_t target)
{
	return target - ip - 2 <= 13;
}

/* A call to the next instruction is no call, as gdb's
 * ftrace_update_function() has it (PIC: call 1f; 1: pop): any call
 * whose next instruction executed is the one after it, indirect ones
 * too (IP filtering: an indirect call out of the traced range, tracing
 * resumed at its return address with no gap, as libipt reports it). */
static int pic_call(struct builder *b, uint64_t target)
{
	int len;

	/* (after a short call record: the log decided it is no PIC call) */
	if (b->from_mode == FROM_DECIDED || !pic_distance(b->from_ip, target))
		return 0;
	len = ptd__history_insn_len_mode(b->h, b->from_ip, b->from_mode, NULL);
	ptd_clear_error();
	return len > 0 && b->from_ip + (uint64_t)len == target;
}

/* A syscall that came back to the next instruction starts nothing. */
static int syscall_returned(struct builder *b, uint64_t target)
{
	int len = ptd__history_insn_len_mode(b->h, b->from_ip, b->from_mode, NULL);

	ptd_clear_error();
	return len > 0 && b->from_ip + (uint64_t)len == target;
}

/* The innermost signal frame interrupted at @ip, popping it and those
 * above it; the stack index + 1 of the frame, or 0 when none. */
static size_t pop_sigframe(struct builder *b, uint64_t ip)
{
	size_t i;

	for (i = b->nsig; i > 0; i--) {
		if (b->sig[i - 1].ip == ip) {
			b->nsig = i - 1;
			return i;
		}
	}
	return 0;
}

/* Count-only resolve: whether the transition starts a segment, by the
 * same rules as resolve() below (which always starts exactly one when it
 * starts any). */
static void count_resolve(struct builder *b, enum trans t, uint64_t target)
{
	uint64_t fa, fb;

	switch (t) {
	case T_NONE:
		return;
	case T_CALL:
		if (!pic_call(b, target))
			new_seg(b, 0, 0, 0, 0, 0, 0, 0);
		return;
	case T_JUMP:
		fa = func(b, b->from_ip);
		fb = func(b, target);
		if ((fb && fb == target) || fa != fb)
			new_seg(b, 0, 0, 0, 0, 0, 0, 0);
		return;
	case T_SYSCALL:
		if (!syscall_returned(b, target) && pop_sigframe(b, target))
			new_seg(b, 0, 0, 0, 0, 0, 0, 0);
		return;
	case T_RET:
	case T_AFTER_GAP:
	case T_EXEC:
		new_seg(b, 0, 0, 0, 0, 0, 0, 0);
		return;
	}
}

static void resolve(struct builder *b, uint64_t target, uint64_t number)
{
	struct ptd_callseg *cur;
	enum trans t = b->pending;
	size_t i;

	b->pending = T_NONE;
	b->tag = ptd__history_func_tag(b->h, number);
	if (b->count_only) {
		count_resolve(b, t, target);
		return;
	}
	cur = seg(b, b->cur);
	switch (t) {
	case T_NONE:
		break;
	case T_CALL:
		if (pic_call(b, target))
			break;
		new_seg(b, PTD_SEG_CALL, number, target, cur->level + 1, b->cur, 0, 0);
		break;
	case T_RET:
		do_return(b, target, number);
		break;
	case T_JUMP: {
		uint64_t fa = func(b, b->from_ip), fb = func(b, target);

		/* As gdb: a jump to a function's entry is a tail call (even
		 * to itself); into an unknown function, a tail call too; into
		 * the middle of another function, a switch. */
		if ((fb && fb == target) || (!fb && fa))
			new_seg(b, PTD_SEG_TAILCALL, number, target, cur->level + 1, b->cur, 0, 1);
		else if (fa != fb) {
			uint64_t anc = 0, cand = cur->up;
			int i;

			/* A longjmp lands in the middle of a caller's function. */
			for (i = 0; fb && cand && i < MAX_CALLER_WALK; i++) {
				struct ptd_callseg *cs = seg(b, cand);

				if (func(b, seg(b, cs->instance)->ip) == fb) {
					anc = cand;
					break;
				}
				if (cs->up_is_ret)
					break;
				cand = cs->up;
			}
			if (anc) {
				/* longjmp (and unwinders that jump): a return to
				 * the frame it lands in; the frames between never
				 * return.  The landing keeps the mark replay needs
				 * to stop where gdb stops. */
				continue_instance(b, PTD_SEG_SWITCH, number, target, anc);
				if (!b->err)
					seg(b, b->cur)->unwound_to = anc;
				break;
			}
			new_seg(b, PTD_SEG_SWITCH, number, target, cur->level, cur->up,
				cur->up_is_ret, cur->up_is_tail);
		}
		break;
	}
	case T_SYSCALL:
		if (syscall_returned(b, target))
			break;
		i = pop_sigframe(b, target);
		if (i)
			continue_instance(b, PTD_SEG_SIGRETURN, number, target, b->sig[i - 1].seg);
		break;
	case T_AFTER_GAP: {
		struct ptd_callseg *g = cur;
		uint64_t bg = b->before_gap;
		uint64_t fb = func(b, target);

		int k;

		/* Bridge the gap: continue the innermost frame known before
		 * it whose function is the one we resume in.  An unknown
		 * function (0: no symbols there) is one too, as gdb's
		 * ftrace_function_switched() has it (neither side has a
		 * symbol: no switch): without that, each gap after a call
		 * in code with no symbols (IP filtering: a call out of the
		 * range, tracing resumed at its return address) left the
		 * caller one level deeper, a frame never closed, and the
		 * levels grew by one per gap. */
		for (k = 0; bg && k < MAX_CALLER_WALK; k++) {
			struct ptd_callseg *cs = seg(b, bg);

			if (func(b, seg(b, cs->instance)->ip) == fb)
				break;
			if (cs->up_is_ret) {
				bg = 0;
				break;
			}
			bg = cs->up;
		}
		if (k == MAX_CALLER_WALK)
			bg = 0;
		if (bg) {
			continue_instance(b, PTD_SEG_AFTER_GAP, number, target, bg);
		} else {
			new_seg(b, PTD_SEG_AFTER_GAP, number, target, g->level, g->up,
				g->up_is_ret, g->up_is_tail);
		}
		b->before_gap = 0;
		break;
	}
	case T_EXEC:
		/* The new program starts with no caller (the old program's
		 * frames went with it), at the level of the frame that made
		 * the syscall: motions back over it see no return. */
		new_seg(b, PTD_SEG_EXEC, number, target, cur->level, 0, 0, 0);
		break;
	}
}

static void start_if_none(struct builder *b, uint64_t number, uint64_t ip)
{
	if (!b->cur)
		new_seg(b, PTD_SEG_START, number, ip, 0, 0, 0, 0);
}

static inline void block_end(struct builder *b, const struct ptd_block *blk);

static void on_block(struct builder *b, const struct ptd_item *it)
{
	const struct ptd_block *blk = &it->block;

	if (!b->cur)
		start_if_none(b, it->number, blk->ip);
	else
		resolve(b, blk->ip, it->number);
	if (b->err)
		return;
	if (!b->count_only)
		seg(b, b->cur)->last = it->number + blk->ninsn - 1;
	block_end(b, blk);
}

/* What a block leaves pending for the item after it. */
static inline void block_end(struct builder *b, const struct ptd_block *blk)
{
	b->from_ip = blk->end_ip;
	b->from_mode = ptd_block_mode(blk);
	b->pending = T_NONE;
	if (blk->flags & PTD_BLK_INTERRUPTED)
		return;
	switch (blk->iclass) {
	case PTD_IC_CALL:
		b->pending = T_CALL;
		break;
	case PTD_IC_RET:
		b->pending = T_RET;
		break;
	case PTD_IC_JUMP:
	case PTD_IC_COND_JUMP:
		if (b->func_of)
			b->pending = T_JUMP;
		break;
	case PTD_IC_FAR_CALL:
	case PTD_IC_FAR_RET:
		b->pending = T_SYSCALL;
		break;
	default:
		break;
	}
}

static void on_gap(struct builder *b, const struct ptd_item *it)
{
	struct ptd_callseg *cur = seg(b, b->cur);
	int level = 0;
	uint64_t up = 0, s;
	uint8_t uir = 0, uit = 0;

	if (b->count_only) {
		new_seg(b, PTD_SEG_GAP, 0, 0, 0, 0, 0, 0);
		b->pending = T_AFTER_GAP;
		return;
	}
	/* After the gap, the frame is searched from here upward (a pending
	 * call's callee is unknown: its caller is the starting point). */
	if (cur && !cur->is_gap)
		b->before_gap = b->cur;
	if (cur) {
		if (b->pending == T_CALL) {
			level = cur->level + 1;
			up = b->cur;
		} else {
			level = cur->level;
			up = cur->up;
			uir = cur->up_is_ret;
			uit = cur->up_is_tail;
		}
	}
	s = new_seg(b, PTD_SEG_GAP, it->number, 0, level, up, uir, uit);
	if (!s)
		return;
	seg(b, s)->is_gap = 1;
	seg(b, s)->last = it->number;
	b->pending = T_AFTER_GAP;
}

static void on_event(struct builder *b, const struct ptd_item *it)
{
	uint64_t ip = it->block.ip;
	size_t i;

	switch (it->reason) {
	case PTD_EV_SIGNAL:
		if (!b->cur)
			start_if_none(b, it->number, ip);
		else
			resolve(b, ip, it->number);
		if (b->err)
			return;
		if (b->nsig == b->sigcap) {
			size_t cap = b->sigcap ? b->sigcap * 2 : 8;
			struct sigframe *n = realloc(b->sig, cap * sizeof(*n));

			if (!n) {
				b->err = -ptde_nomem;
				return;
			}
			b->sig = n;
			b->sigcap = cap;
		}
		b->sig[b->nsig].ip = ip;
		b->sig[b->nsig].seg = b->cur;
		b->nsig++;
		new_seg(b, PTD_SEG_SIGNAL, it->number, 0,
			b->count_only ? 0 : seg(b, b->cur)->level + 1, b->cur, 0, 0);
		/* The handler's ip is the first block's; fixed up there. */
		b->pending = T_NONE;
		break;
	case PTD_EV_SIGRETURN:
		if (!b->cur)
			return;
		i = pop_sigframe(b, ip);
		if (i) {
			continue_instance(b, PTD_SEG_SIGRETURN, it->number, ip, b->sig[i - 1].seg);
			b->pending = T_NONE;
		}
		break;
	case PTD_EV_EXEC:
		/* The next block is the new program's first (a syscall
		 * pending from execve's block is taken over). */
		b->nsig = 0;
		if (b->cur)
			b->pending = T_EXEC;
		break;
	default:
		break;
	}
}

static inline __attribute__((always_inline)) void walk_item(struct builder *b,
							    const struct ptd_item *it)
{
	switch (it->kind) {
	case PTD_ITEM_BLOCK:
		on_block(b, it);
		/* Segments opened by an event have no ip until now. */
		if (!b->err && !b->count_only && !seg(b, b->cur)->ip)
			seg(b, b->cur)->ip = it->block.ip;
		break;
	case PTD_ITEM_GAP:
		on_gap(b, it);
		break;
	default:
		on_event(b, it);
		break;
	}
}

/* ---- the call log (history_int.h) ---- */


/*
 * Records: a tag byte (low two bits: the kind), then
 *   R_SKIP   n: instructions of blocks that start nothing, in tag bits
 *            2-7 when below 64, else uv n (log_skip)
 *   R_BLOCK  tag bits 2-4 the iclass, B_FLAGS: a flags byte follows;
 *            uv zigzag(ip - the previous block's end_ip in this stream),
 *            end_ip - ip and ninsn (log_len_ninsn: one byte for most
 *            short blocks)
 *   R_GAP    (tag bits 2-7 zero)
 *   R_EVENT  reason, uv ip (signal delivery and sigreturn only); reason 0:
 *            the next block's ip is relative to 0 (logs appended)
 * R_BLOCK tag bits V_*: whether the transition into the block starts a
 * segment was decided while logging (it does not depend on the builder's
 * state: not a far transfer, not a possible PIC call), and its answer;
 * counting then needs no resolve.
 *
 * A call or return block that continues its segment (the transition into
 * it starts nothing) and whose transition out of it is decided (the
 * record after it is the next block's, which says the answer) needs
 * neither its ip nor its length: only its instructions and its kind.  It
 * is written as R_GAP | C_MARK (log_write_short), C_RET for a return, the
 * count in tag bits 4-7 when below 16, else uv count after the tag; the
 * ip base stays (the next block's ip is relative to the block before).
 * About a third of the records on code that calls often, a byte each
 * instead of four.
 */
#define V_DECIDED 0x20
#define V_ONE 0x40
#define B_FLAGS 0x80
#define C_MARK 0x04
#define C_RET 0x08

enum {
	R_SKIP = 0,
	R_BLOCK = 1,
	R_GAP = 2,
	R_EVENT = 3,
};

struct ptd_funcs {
	ptd_func_of_fn fn;
	void *ctx;
	pthread_mutex_t lock;
	uint64_t id; /* tells the thread memos apart (see log_func) */
	/* The code's reader (the history's, called under the lock too): a
	 * call followed by an instruction 2 to 15 bytes on is then decided
	 * when logged (log_call_verdict), not left to the builder. */
	ptd_read_fn read;
	void *read_ctx;
};

/* Each thread's memo of one ptd_funcs' answers (the decoding threads
 * look up the same few thousand addresses again and again). */
struct tl_memo {
	uint64_t id;
	struct memo_ent *ent;
};

static __thread struct tl_memo tl __attribute__((tls_model("initial-exec")));
static pthread_key_t tl_key;
static pthread_once_t tl_once = PTHREAD_ONCE_INIT;
static uint64_t funcs_ids;

static void tl_free(void *p)
{
	free(p);
}

static void tl_init(void)
{
	pthread_key_create(&tl_key, tl_free);
}

/*
 * Per-part call summaries.  While a log is written (in the decoding
 * thread of its PSB segment or batch), the segments its records make are also
 * followed on a small stack of the frames the part opened, with the
 * builder's rules for calls, tail calls and returns (resolve, do_return),
 * and what the part does to the frames it found open (the returns into
 * and out of them, with the function the return target is in) is noted,
 * not resolved: the part does not know them.  Appended to a history's
 * log, the summaries let ptd_calls_build find the builder's exact state
 * at the start of a late part by chaining the parts' effects on the stack
 * of open frames from the start (a few operations per part, not one per
 * call) and walk only from there (calls_suffix).  A part whose records
 * leave the regular case (a gap, a signal, a jump into the middle of
 * another function, a call that may be PIC, a return the rules send
 * elsewhere than to its caller) is irregular: the chain stops before it.
 */
enum { SEV_INTO = 1, SEV_FROM = 2 };

/* The function of an INTO's walk when it looks for a frame whose
 * function is unknown (a bridge after a gap into code func_of knows
 * nothing of); ft 0 is "the newest frame" (a return's walk). */
#define FT_UNKNOWN UINT64_MAX

struct psum;
static void psum_fini(struct psum *ps);

/* A return that reached a frame open when the part started: INTO the
 * newest such frame (from one the part opened), or FROM it (up to its
 * caller). */
struct sev {
	uint8_t kind;
	uint8_t budget; /* INTO: frames the walk up may still look at (MAX_CALLER_WALK) */
	uint8_t how;	/* INTO: the segment's (a return, or after a gap) */
	uint64_t ft;  /* function of the return target (0: none) */
	uint64_t idx; /* the segment it makes, counted in the part from 1 */
	uint64_t ip;  /* the return target */
};

/* A frame the part opened, still open at its end. */
struct sframe {
	uint64_t s, i;	   /* its newest segment and its instance (part's count) */
	uint64_t sip, iip; /* their ips */
	uint8_t shw, ihw;  /* their how */
	uint8_t tail;	   /* opened by a tail call */
	/* ifn: the function of iip when ifk (looked up once: a frame is
	 * returned into again and again, once per call it makes) */
	uint8_t ifk;
	uint64_t ifn;
};

struct psum {
	size_t off;	  /* where the part's records start in the history's log */
	uint64_t numbers; /* instruction numbers its items take */
	uint64_t nseg;	  /* segments its records make after its first block */
	uint64_t first_ip;
	uint64_t base;	  /* the ip base of its first record (no marker before it) */
	struct ptd_block last; /* its last block (set when the next part comes) */
	uint8_t has_last, irregular;
	/* The targets of its far transfers (a sigreturn when one is the ip
	 * of an open signal frame), the first FAR_MAX of them. */
	uint32_t nfar;
	uint64_t *far;
	/* The calls to the next instruction it took for PIC ones (no
	 * segment: pic_call), the first PIC_MAX of them, in mode pic_mode,
	 * each as pic_key(): the part stands for its records when each call
	 * is as long as the distance to the instruction after it. */
	uint32_t npic;
	uint8_t pic_mode;
	uint64_t *pic;
	struct sev *ev;
	uint32_t nev, evcap;
	struct sframe *fr;
	uint32_t nfr, frcap;
	/* The segments counting makes for its items (count_resolve's rules),
	 * the seam into its first block aside: exact unless cnt_bad (a
	 * signal, a possible PIC call, a dropped block), when no signal frame
	 * is open at its start whose ip a far transfer of the part (far) ends at.
	 * first_gap: its first item is a gap (the
	 * seam resolves nothing); pend_gap: a gap came after its newest
	 * block (it ends with the transition after a gap pending). */
	uint64_t cnt;
	uint8_t cnt_bad, first_gap, pend_gap;
	/* The gaps since its newest block came after a call (on_gap). */
	uint8_t gap_pcall;
};

struct ptd_calllog {
	const struct ptd_funcs *funcs;
	/* log_call_verdict's answers: key call ip + 1, entry its length << 2 | mode */
	struct memo_ent len_memo[64];
	uint8_t *bytes;
	size_t n, cap;
	/* The newest block, not written yet: whether it starts anything
	 * depends on the item after it. */
	int held;
	struct ptd_block hb;
	/* hb may go into a skip: the transition into it starts nothing. */
	int held_skippable;
	uint8_t held_verdict; /* V_* of the transition into hb */
	uint64_t skip;
	/* No item (not even an ignored event) came after hb. */
	int tail_block;
	size_t last_blk_off; /* of the newest written R_BLOCK, when it is the newest record */
	uint64_t base;	     /* end_ip of the newest written block (ip deltas) */
	uint64_t last_blk_base; /* base before it */
	int last_is_blk;
	int last_short; /* that record is a short one (C_MARK) */
	int err;
	/* The summary of the records written here (sim; any: an item
	 * came), and those of the logs appended to this one, in order
	 * (parts_bad: they no longer stand for the log). */
	struct psum sim;
	int any;
	/* sim's pic, hashed (most calls taken for PIC ones are the same
	 * few): addr + 1, 0 = empty. */
	uint64_t pic_seen[64];
	struct psum *parts;
	uint32_t nparts, partcap;
	int parts_bad;
	/* ORed into the addresses func_of gets (ptd__calllog_set_tag). */
	uint64_t tag;
};

/*
 * The log closes its open part by itself (log_cut) once the part's
 * records take part_bytes: every history with a log, not only a lazy
 * one, then has parts whose summaries chain.  Bytes, not segments: the
 * check is one compare per written record, it holds in irregular parts
 * too (their summaries stop counting segments), and the builder's walk
 * of a part costs about its bytes.  16 KiB is about 3,000-5,000 call
 * segments: the chain makes a few operations per part, and the view
 * from a late part walks at most one part more than it needs.
 */
#define PART_BYTES_DEFAULT 16384
static size_t part_bytes = PART_BYTES_DEFAULT;

void ptd__calllog_set_part_bytes(size_t n)
{
	part_bytes = n ? n : PART_BYTES_DEFAULT;
}

uint32_t ptd__calllog_nparts(const struct ptd_calllog *l)
{
	return l && !l->parts_bad ? l->nparts + (l->any ? 1 : 0) : 0;
}

struct ptd_funcs *ptd__funcs_alloc(ptd_func_of_fn fn, void *ctx)
{
	struct ptd_funcs *f = calloc(1, sizeof(*f));

	if (!f)
		return NULL;
	f->fn = fn;
	f->ctx = ctx;
	pthread_mutex_init(&f->lock, NULL);
	f->id = __atomic_add_fetch(&funcs_ids, 1, __ATOMIC_RELAXED);
	return f;
}

void ptd__funcs_set_reader(struct ptd_funcs *f, ptd_read_fn read, void *ctx)
{
	if (f) {
		f->read = read;
		f->read_ctx = ctx;
	}
}

void ptd__funcs_renew(struct ptd_funcs *f)
{
	if (f)
		f->id = __atomic_add_fetch(&funcs_ids, 1, __ATOMIC_RELAXED);
}

void ptd__funcs_free(struct ptd_funcs *f)
{
	if (!f)
		return;
	pthread_mutex_destroy(&f->lock);
	free(f);
}

struct ptd_calllog *ptd__calllog_alloc(const struct ptd_funcs *f)
{
	struct ptd_calllog *l = calloc(1, sizeof(*l));

	if (!l)
		return NULL;
	l->funcs = f && f->fn ? f : NULL;
	return l;
}

void ptd__calllog_free(struct ptd_calllog *l)
{
	uint32_t i;

	if (!l)
		return;
	for (i = 0; i < l->nparts; i++)
		psum_fini(&l->parts[i]);
	free(l->parts);
	psum_fini(&l->sim);
	free(l->bytes);
	free(l);
}

int ptd__calllog_ok(const struct ptd_calllog *l)
{
	return l && !l->err;
}

size_t ptd__calllog_bytes(const struct ptd_calllog *l)
{
	return l ? l->cap : 0;
}

/* func_of from any thread: the thread's memo, the callback under the
 * shared lock on a miss (few distinct addresses: the code's). */
static __attribute__((noinline)) uint64_t log_func_miss(const struct ptd_funcs *cf, uint64_t addr)
{
	struct ptd_funcs *f = (struct ptd_funcs *)cf;
	uint64_t r;

	if (tl.id != f->id) {
		pthread_once(&tl_once, tl_init);
		if (!tl.ent) {
			tl.ent = malloc(MEMO_SLOTS * sizeof(*tl.ent));
			if (tl.ent)
				pthread_setspecific(tl_key, tl.ent);
		}
		if (tl.ent) {
			memset(tl.ent, 0, MEMO_SLOTS * sizeof(*tl.ent));
			tl.id = f->id;
		}
	}
	pthread_mutex_lock(&f->lock);
	r = f->fn(f->ctx, addr);
	pthread_mutex_unlock(&f->lock);
	if (tl.id == f->id) {
		struct memo_ent *e = &tl.ent[((addr * 0x9e3779b97f4a7c15ull) >> 40) & (MEMO_SLOTS - 1)];

		e->key = addr + 1;
		e->entry = r;
	}
	return r;
}

static inline uint64_t log_func(struct ptd_calllog *l, uint64_t addr)
{
	const struct memo_ent *e;

	addr |= l->tag;
	if (tl.id == l->funcs->id) {
		e = &tl.ent[((addr * 0x9e3779b97f4a7c15ull) >> 40) & (MEMO_SLOTS - 1)];
		if (e->key == addr + 1)
			return e->entry;
	}
	return log_func_miss(l->funcs, addr);
}

static __attribute__((noinline)) int log_grow(struct ptd_calllog *l, size_t more)
{
	{
		size_t cap = l->cap ? l->cap * 2 : 256;
		uint8_t *p;

		while (cap < l->n + more)
			cap *= 2;
		p = realloc(l->bytes, cap);
		if (!p)
			return l->err = -ptde_nomem;
		l->bytes = p;
		l->cap = cap;
	}
	return 0;
}

static inline int log_reserve(struct ptd_calllog *l, size_t more)
{
	return l->n + more > l->cap ? log_grow(l, more) : 0;
}

static inline uint8_t *log_uv(uint8_t *p, uint64_t v)
{
	while (v >= 0x80) {
		*p++ = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	*p++ = (uint8_t)v;
	return p;
}

static inline const uint8_t *log_get_uv(const uint8_t *p, const uint8_t *end, uint64_t *out)
{
	uint64_t v = 0;
	int shift = 0;

	while (p < end && (*p & 0x80) && shift < 64) {
		v |= (uint64_t)(*p++ & 0x7f) << shift;
		shift += 7;
	}
	if (p < end)
		v |= (uint64_t)*p++ << shift;
	*out = v;
	return p;
}

/*
 * A block's end_ip - ip (len) and instruction count (ninsn) in one
 * number: ninsn is about 1 + len / 3.5 (x86 instructions average 3-4
 * bytes), so uv(len << 3 | ninsn - 1 - LEN_INSNS(len) + 3) when that
 * difference is within -3..3: one byte for the blocks shorter than 16
 * bytes, where the two numbers took two; else uv(len << 3 | 7), uv(ninsn);
 * a len of 2^56 or more (or 0 with another count: bad input kept exact)
 * as uv(7), uv(len), uv(ninsn).
 */
#define LEN_INSNS(len) (((len) * 9) >> 5)
#define LEN_BIG (1ull << 56)

static inline uint8_t *log_len_ninsn(uint8_t *p, uint64_t len, uint32_t ninsn)
{
	if (len < LEN_BIG) {
		int64_t e = (int64_t)ninsn - 1 - (int64_t)LEN_INSNS(len);

		if (e >= -3 && e <= 3)
			return log_uv(p, len << 3 | (uint64_t)(e + 3));
		if (len)
			return log_uv(log_uv(p, len << 3 | 7), ninsn);
	}
	*p++ = 7;
	return log_uv(log_uv(p, len), ninsn);
}

static inline const uint8_t *log_get_len_ninsn(const uint8_t *p, const uint8_t *end,
					       uint64_t *len, uint32_t *ninsn)
{
	uint64_t u, v;

	p = log_get_uv(p, end, &u);
	if ((u & 7) != 7) {
		*len = u >> 3;
		*ninsn = (uint32_t)(LEN_INSNS(*len) + (u & 7) - 3 + 1);
		return p;
	}
	if (u >> 3) {
		*len = u >> 3;
	} else {
		p = log_get_uv(p, end, &v);
		*len = v;
	}
	p = log_get_uv(p, end, &v);
	*ninsn = (uint32_t)v;
	return p;
}

/* An R_SKIP of @n instructions: n in the tag's upper six bits when it
 * fits (most skips are a few short blocks), else uv n after a tag of 0. */
static inline uint8_t *log_skip(uint8_t *p, uint64_t n)
{
	if (n < 64) {
		*p++ = (uint8_t)(R_SKIP | n << 2);
		return p;
	}
	*p++ = R_SKIP;
	return log_uv(p, n);
}

/* log_skip when @n is not 0, else nothing: the end.  (Without a branch
 * on whether there is a skip before a record, which on code that calls
 * often is as random as the code: the byte is stored in any case.) */
static inline __attribute__((always_inline)) uint8_t *log_skip_any(uint8_t *p, uint64_t n)
{
	if (__builtin_expect(n >= 64, 0))
		return log_skip(p, n);
	*p = (uint8_t)(R_SKIP | n << 2);
	return p + (n != 0);
}

static inline int log_flush_skip(struct ptd_calllog *l)
{
	uint8_t *p;

	if (!l->skip)
		return 0;
	if (log_reserve(l, 11))
		return l->err;
	p = log_skip(l->bytes + l->n, l->skip);
	l->n = (size_t)(p - l->bytes);
	l->skip = 0;
	l->last_is_blk = 0;
	return 0;
}

/* Room for the skip and a block record of at most @more bytes after it
 * (one reservation), the skip written: where the block's record goes, as
 * the newest (@is_short: a short one), or NULL (l->err says why). */
static inline __attribute__((always_inline)) uint8_t *log_blk_at(struct ptd_calllog *l,
								  size_t more, int is_short)
{
	uint8_t *p;

	if (log_reserve(l, 11 + more))
		return NULL;
	if (l->skip) {
		p = log_skip(l->bytes + l->n, l->skip);
		l->n = (size_t)(p - l->bytes);
		l->skip = 0;
	}
	l->last_blk_off = l->n;
	l->last_blk_base = l->base;
	l->last_is_blk = 1;
	l->last_short = is_short;
	return l->bytes + l->n;
}

/* Writes block @x in full with the verdict @verdict of the transition
 * into it. */
static inline __attribute__((always_inline)) int log_write_blk(struct ptd_calllog *l,
								const struct ptd_block *x,
								uint8_t verdict)
{
	uint8_t *p = log_blk_at(l, 3 + 3 * 10, 0);

	if (!p)
		return l->err;
	*p++ = (uint8_t)(R_BLOCK | (x->iclass & 7) << 2 | verdict | (x->flags ? B_FLAGS : 0));
	if (x->flags)
		*p++ = x->flags;
	p = log_uv(p, ((x->ip - l->base) << 1) ^ (uint64_t)((int64_t)(x->ip - l->base) >> 63));
	p = log_len_ninsn(p, x->end_ip - x->ip, x->ninsn);
	l->base = x->end_ip;
	l->n = (size_t)(p - l->bytes);
	return 0;
}

/* Whether block @x, the transition into it skippable (@hs: it starts
 * nothing) and the one out of it not, with verdict @v, goes into a short
 * record (C_MARK): only where that transition starts a segment (a call
 * taken for a PIC one keeps its full record), so the builder, which has
 * no from_ip after a short record, may take any call after one for a
 * real call (pic_call) also where it walks the next block as an item. */
static inline int log_short_ok(const struct ptd_block *x, int hs, uint8_t v)
{
	return hs && (v & (V_DECIDED | V_ONE)) == (V_DECIDED | V_ONE) && !x->flags &&
	       (x->iclass == PTD_IC_CALL || x->iclass == PTD_IC_RET);
}

/* Writes block @x as a short record (log_short_ok), after the skip. */
static inline __attribute__((always_inline)) int log_write_short(struct ptd_calllog *l,
								  const struct ptd_block *x)
{
	uint8_t *p = log_blk_at(l, 1 + 10, 1),
		tag = (uint8_t)(R_GAP | C_MARK | (x->iclass == PTD_IC_RET ? C_RET : 0));

	if (!p)
		return l->err;
	if (x->ninsn && x->ninsn < 16) {
		*p++ = (uint8_t)(tag | x->ninsn << 4);
	} else {
		*p++ = tag;
		p = log_uv(p, x->ninsn);
	}
	l->n = (size_t)(p - l->bytes);
	return 0;
}

/* Writes the held block in full. */
static inline __attribute__((always_inline)) int log_write_held(struct ptd_calllog *l)
{
	if (!l->held)
		return 0;
	if (log_write_blk(l, &l->hb, l->held_verdict))
		return l->err;
	l->held = 0;
	return 0;
}

/* Whether going from block @x to @next_ip starts no segment and leaves
 * nothing pending, by the rules of on_block() and resolve(). */
static inline __attribute__((always_inline)) int log_boring(struct ptd_calllog *l,
							   const struct ptd_block *x,
							   uint64_t next_ip)
{
	uint64_t fa, fb;

	if (x->flags & PTD_BLK_INTERRUPTED)
		return 1;
	switch (x->iclass) {
	case PTD_IC_CALL:
	case PTD_IC_RET:
	case PTD_IC_FAR_CALL:
	case PTD_IC_FAR_RET:
		return 0;
	case PTD_IC_JUMP:
	case PTD_IC_COND_JUMP:
		if (!l->funcs)
			return 1;
		fa = log_func(l, x->end_ip);
		fb = log_func(l, next_ip);
		return !((fb && fb == next_ip) || fa != fb);
	default:
		return 1;
	}
}

/*
 * The length of the call at @x->end_ip as ptd__history_insn_len_mode()
 * finds it (up to 15 bytes read, then decoded), from @l's reader; 0 when
 * unknown.  Memoized per log (a log is written by one thread).
 */
static __attribute__((noinline)) int log_call_len(struct ptd_calllog *l,
						   const struct ptd_block *x)
{
	struct ptd_funcs *f = (struct ptd_funcs *)l->funcs;
	uint64_t ip = x->end_ip;
	unsigned mode = ptd_block_mode(x);
	struct memo_ent *e = &l->len_memo[((ip * 0x9e3779b97f4a7c15ull) >> 58) & 63];
	uint8_t buf[15];
	struct ptd_insn_info in;
	size_t got = 0;
	int len = 0;

	if (e->key == ip + 1 && (e->entry & 3) == mode)
		return (int)(e->entry >> 2);
	pthread_mutex_lock(&f->lock);
	while (got < sizeof(buf)) {
		int r = f->read(f->read_ctx, ip + got, buf + got, sizeof(buf) - got);

		if (r <= 0)
			break;
		got += (size_t)r;
	}
	pthread_mutex_unlock(&f->lock);
	if (got && ptd_disasm_decode_mode(buf, got, ip, mode, &in) == 0 && in.len > 0)
		len = in.len;
	e->key = ip + 1;
	e->entry = (uint64_t)len << 2 | mode;
	return len;
}

/* V_* of a call from @x to @next_ip: a call to its next instruction
 * starts nothing (pic_call), any other one a segment.  Decided with the
 * reader when the log has one; else undecided when it may be PIC. */
static inline uint8_t log_call_verdict(struct ptd_calllog *l, const struct ptd_block *x,
				       uint64_t next_ip)
{
	int len;

	if (!pic_distance(x->end_ip, next_ip))
		return V_DECIDED | V_ONE;
	if (!l->funcs || !l->funcs->read)
		return 0;
	len = log_call_len(l, x);
	return len > 0 && x->end_ip + (uint64_t)len == next_ip ? V_DECIDED : V_DECIDED | V_ONE;
}

/* V_* for going from @x to @next_ip (@boring: log_boring's answer). */
static inline uint8_t log_verdict(struct ptd_calllog *l, const struct ptd_block *x,
				  uint64_t next_ip, int boring)
{
	if (boring)
		return V_DECIDED;
	switch (x->iclass) {
	case PTD_IC_CALL: /* a call to the next instruction may be PIC */
		return log_call_verdict(l, x, next_ip);
	case PTD_IC_RET:
	case PTD_IC_JUMP:
	case PTD_IC_COND_JUMP:
		return V_DECIDED | V_ONE;
	default: /* far transfers: sigreturn depends on the signal frames */
		return 0;
	}
}

static void psum_fini(struct psum *ps)
{
	free(ps->far);
	free(ps->pic);
	free(ps->ev);
	free(ps->fr);
	memset(ps, 0, sizeof(*ps));
}

static __attribute__((noinline)) int sim_grow(struct psum *ps)
{
	uint32_t cap = ps->frcap ? ps->frcap * 2 : 16;
	struct sframe *n = realloc(ps->fr, cap * sizeof(*n));

	if (!n)
		return -1;
	ps->fr = n;
	ps->frcap = cap;
	return 0;
}

/* Pushes a frame the part opens: segment and instance @idx at @t, by
 * @how; a part without room for it is irregular. */
static inline void sim_push(struct psum *ps, uint64_t idx, uint64_t t, uint8_t how, uint8_t tail)
{
	struct sframe *f;

	if (ps->nfr == ps->frcap && sim_grow(ps)) {
		ps->irregular = 1;
		return;
	}
	f = &ps->fr[ps->nfr++];
	f->s = f->i = idx;
	f->sip = f->iip = t;
	f->shw = f->ihw = how;
	f->tail = tail;
	f->ifk = 0;
}

/* The function of frame @f's instance (@l has a func_of). */
static inline uint64_t fr_func(struct ptd_calllog *l, struct sframe *f)
{
	if (!f->ifk) {
		f->ifn = log_func(l, f->iip);
		f->ifk = 1;
	}
	return f->ifn;
}

static int sim_event(struct psum *ps, uint8_t kind, uint64_t ft, uint64_t idx, uint64_t ip)
{
	if (ps->nev == ps->evcap) {
		uint32_t cap = ps->evcap ? ps->evcap * 2 : 4;
		struct sev *n = realloc(ps->ev, cap * sizeof(*n));

		if (!n)
			return -1;
		ps->ev = n;
		ps->evcap = cap;
	}
	ps->ev[ps->nev].kind = kind;
	ps->ev[ps->nev].how = PTD_SEG_RETURN;
	ps->ev[ps->nev].ft = ft;
	ps->ev[ps->nev].idx = idx;
	ps->ev[ps->nev].ip = ip;
	ps->nev++;
	return 0;
}

#define FAR_MAX 64

static void sim_far(struct psum *ps, uint64_t t)
{
	uint32_t i;

	for (i = 0; i < ps->nfar && i < FAR_MAX; i++)
		if (ps->far[i] == t)
			return;
	if (ps->nfar < FAR_MAX && !ps->far) {
		ps->far = malloc(FAR_MAX * sizeof(*ps->far));
		if (!ps->far) {
			ps->nfar = FAR_MAX + 1; /* (as too many) */
			return;
		}
	}
	if (ps->nfar < FAR_MAX)
		ps->far[ps->nfar] = t;
	ps->nfar++;
}

#define PIC_MAX 256

/* A call at @ip followed by @next (pic_distance: 2 to 15 bytes on) as
 * one key: ip << 4 | distance.  One to one for canonical addresses (bits
 * 63 to 47 the same), ip is the key shifted back arithmetically. */
static inline uint64_t pic_key(uint64_t ip, uint64_t next)
{
	return ip << 4 | ((next - ip) & 15);
}

/* A call to the next instruction, taken for a PIC one (no segment) by
 * the part's summary: noted for the chain to check (pics_hold). */
static void sim_pic(struct ptd_calllog *l, const struct ptd_block *x, uint64_t t)
{
	struct psum *ps = &l->sim;
	uint64_t a = pic_key(x->end_ip, t), *e = &l->pic_seen[((a * 0x9e3779b97f4a7c15ull) >> 58) & 63];
	uint32_t i;

	if (*e == a + 1 && ps->npic)
		return;
	if (!ps->npic)
		ps->pic_mode = (uint8_t)ptd_block_mode(x);
	else if (ps->pic_mode != ptd_block_mode(x))
		goto bad;
	for (i = 0; i < ps->npic; i++)
		if (ps->pic[i] == a) {
			*e = a + 1;
			return;
		}
	if (ps->npic == PIC_MAX)
		goto bad;
	if (!ps->pic) {
		ps->pic = malloc(PIC_MAX * sizeof(*ps->pic));
		if (!ps->pic)
			goto bad;
	}
	ps->pic[ps->npic++] = a;
	*e = a + 1;
	return;
bad:
	ps->irregular = 1;
	ps->cnt_bad = 1;
}

/* A walk up the callers (do_return's, or the bridge after a gap) that
 * went past the frames the part opened: it goes on in the frames open at
 * its start, with @budget frames to look at for one in function @ft (0:
 * the newest), and the frame found gets segment @idx (@how).  Walks with
 * no return out of those frames between are one: the newest stands for
 * them all when it finds the frame the one before it found. */
static void sim_into(struct psum *ps, uint64_t ft, uint64_t idx, uint64_t t, int budget,
		     uint8_t how)
{
	struct sev *e = ps->nev ? &ps->ev[ps->nev - 1] : NULL;

	if (e && e->kind == SEV_INTO && (!e->ft || !ft || ft == e->ft)) {
		if (!e->ft) {
			e->ft = ft;
			e->budget = (uint8_t)budget;
		}
		e->idx = idx;
		e->ip = t;
		e->how = how;
		return;
	}
	if (sim_event(ps, SEV_INTO, ft, idx, t)) {
		ps->irregular = 1;
		return;
	}
	ps->ev[ps->nev - 1].budget = (uint8_t)budget;
	ps->ev[ps->nev - 1].how = how;
}

/*
 * The block at @t after the part's gaps, by the rules of on_gap() and
 * resolve()'s T_AFTER_GAP: the bridge continues the newest frame open
 * before the gaps whose function is @t's (on into the frames open at
 * the part's start: sim_into), else a new frame (the gaps came after a
 * call) or a new instance of the newest.
 */
static void sim_after_gap(struct ptd_calllog *l, uint64_t t)
{
	struct psum *ps = &l->sim;
	uint64_t fb = l->funcs ? log_func(l, t) : 0, idx = ++ps->nseg;
	int64_t j = -1;
	int budget = MAX_CALLER_WALK;

	/* (an unknown function is one too: resolve()) */
	for (j = (int64_t)ps->nfr - 1; j >= 0; j--) {
		if ((l->funcs ? fr_func(l, &ps->fr[j]) : 0) == fb)
			break;
		if (--budget == 0)
			break;
	}
	if (j >= 0 && budget) {
		struct sframe *c = &ps->fr[j];

		c->s = idx;
		c->sip = t;
		c->shw = PTD_SEG_AFTER_GAP;
		ps->nfr = (uint32_t)j + 1;
		return;
	}
	if (budget) { /* (taken for found there; chain_part checks) */
		ps->nfr = 0;
		sim_into(ps, fb ? fb : FT_UNKNOWN, idx, t, budget, PTD_SEG_AFTER_GAP);
		return;
	}
	if (ps->gap_pcall) {
		sim_push(ps, idx, t, PTD_SEG_AFTER_GAP, 0);
	} else if (ps->nfr) {
		struct sframe *c = &ps->fr[ps->nfr - 1];

		c->s = c->i = idx;
		c->sip = c->iip = t;
		c->shw = c->ihw = PTD_SEG_AFTER_GAP;
		c->ifn = fb;
		c->ifk = 1;
	} else {
		ps->irregular = 1; /* a new instance of a frame open at the start */
	}
}

/* The segment-starting transition from block @x to @t (@verdict: its
 * V_*) on the part's stack, by the rules of resolve() and do_return(). */
static __attribute__((noinline)) void sim_step(struct ptd_calllog *l, const struct ptd_block *x,
					       uint64_t t, uint8_t verdict)
{
	struct psum *ps = &l->sim;
	uint64_t idx, ft, fa, fb;
	int64_t r;
	int budget;

	if (verdict & V_DECIDED)
		ps->cnt += (verdict & V_ONE) ? 1 : 0;
	else if (x->iclass == PTD_IC_FAR_CALL || x->iclass == PTD_IC_FAR_RET)
		sim_far(ps, t); /* (counts only at a signal frame's ip) */
	else if (x->iclass == PTD_IC_CALL && !ps->cnt_bad)
		sim_pic(l, x, t); /* (counts nothing when it is PIC) */
	else
		ps->cnt_bad = 1;
	if (ps->irregular) {
		/* (nseg only tells calls_suffix how far back to start) */
		if ((verdict & V_ONE) || !(verdict & V_DECIDED))
			ps->nseg++;
		return;
	}
	if (!(verdict & V_DECIDED)) {
		/* A far transfer starts nothing without signal frames (and
		 * a part with a signal is irregular); a possible PIC call is
		 * taken for one, which pics_hold checks (sim_pic). */
		if (x->iclass != PTD_IC_FAR_CALL && x->iclass != PTD_IC_FAR_RET &&
		    x->iclass != PTD_IC_CALL)
			ps->irregular = 1;
		return;
	}
	if (!(verdict & V_ONE))
		return;
	idx = ++ps->nseg;
	switch (x->iclass) {
	case PTD_IC_CALL:
		sim_push(ps, idx, t, PTD_SEG_CALL, 0);
		return;
	case PTD_IC_JUMP:
	case PTD_IC_COND_JUMP:
		fa = log_func(l, x->end_ip);
		fb = log_func(l, t);
		if ((fb && fb == t) || (!fb && fa))
			sim_push(ps, idx, t, PTD_SEG_TAILCALL, 1);
		else
			ps->irregular = 1; /* a switch may be a longjmp */
		return;
	case PTD_IC_RET:
		ft = l->funcs ? log_func(l, t) : 0;
		/* frame_root(): tail-call frames return with their caller */
		for (r = (int64_t)ps->nfr - 1; r >= 0 && ps->fr[r].tail; r--)
			;
		budget = MAX_CALLER_WALK;
		if (r > 0) {
			/* do_return's walk up the callers for the one in the
			 * target's function, over the frames the part opened */
			int64_t j;

			for (j = r - 1; j >= 0; j--) {
				if (!ft || fr_func(l, &ps->fr[j]) == ft)
					break;
				if (--budget == 0) {
					ps->irregular = 1; /* a new caller (setcontext) */
					return;
				}
			}
			if (j >= 0) {
				struct sframe *c = &ps->fr[j];

				c->s = idx;
				c->sip = t;
				c->shw = PTD_SEG_RETURN;
				ps->nfr = (uint32_t)j + 1;
				return;
			}
			r = 0; /* on into the frames open at the start */
		}
		ps->nfr = 0;
		if (r == 0)
			sim_into(ps, ft, idx, t, budget, PTD_SEG_RETURN);
		else if (sim_event(ps, SEV_FROM, ft, idx, t))
			ps->irregular = 1;
		return;
	default:
		ps->irregular = 1;
		return;
	}
}

/*
 * sim_step with its two common cases inline (about half the blocks of
 * code that calls often start a segment): a call that opens a frame, and
 * a return to the caller of the newest frame (not one a tail call
 * opened) whose function is the return target's; the same steps.
 */
static inline __attribute__((always_inline)) void sim_step_fast(struct ptd_calllog *l,
								 const struct ptd_block *x,
								 uint64_t t, uint8_t verdict)
{
	struct psum *ps = &l->sim;

	if (verdict == (V_DECIDED | V_ONE) && !ps->irregular) {
		if (x->iclass == PTD_IC_CALL) {
			ps->cnt++;
			sim_push(ps, ++ps->nseg, t, PTD_SEG_CALL, 0);
			return;
		}
		if (x->iclass == PTD_IC_RET && ps->nfr >= 2 && !ps->fr[ps->nfr - 1].tail) {
			struct sframe *c = &ps->fr[ps->nfr - 2];
			uint64_t ft = l->funcs ? log_func(l, t) : 0;

			if (!ft || fr_func(l, c) == ft) {
				ps->cnt++;
				c->s = ++ps->nseg;
				c->sip = t;
				c->shw = PTD_SEG_RETURN;
				ps->nfr--;
				return;
			}
		}
	}
	sim_step(l, x, t, verdict);
}

/* Room for one more closed part; 0, or -1 (the parts are then bad). */
static int parts_room(struct ptd_calllog *l)
{
	if (l->nparts == l->partcap) {
		uint32_t cap = l->partcap ? l->partcap * 2 : 64;
		struct psum *n = realloc(l->parts, cap * sizeof(*n));

		if (!n) {
			l->parts_bad = 1;
			return -1;
		}
		l->parts = n;
		l->partcap = cap;
	}
	return 0;
}

/*
 * Closes the open part before the next block, as an append would at a
 * seam: the held block is written in full (with the verdict of the
 * transition into it) and is the part's last; the transition from it
 * into the next block is resolved at the seam, by the builder or by the
 * chain (chain_seam), and the next block starts the new part as a log's
 * first block does (written in full, undecided).  The new part's records
 * continue from the same ip base.
 */
static int log_cut(struct ptd_calllog *l)
{
	if (parts_room(l))
		return 0;
	if (l->held) {
		l->sim.last = l->hb;
		l->sim.has_last = 1;
	}
	if (log_write_held(l) || log_flush_skip(l))
		return l->err;
	l->parts[l->nparts++] = l->sim;
	memset(&l->sim, 0, sizeof(l->sim));
	memset(l->pic_seen, 0, sizeof(l->pic_seen));
	l->sim.off = l->n;
	l->sim.base = l->base;
	l->any = 0;
	return 0;
}

int ptd__calllog_block(struct ptd_calllog *l, const struct ptd_block *b)
{
	int skippable = 0;
	uint8_t verdict = 0;

	if (l->err)
		return l->err;
	/* (not after a gap: a part that ends in one does not chain) */
	if (l->any && l->n - l->sim.off >= part_bytes && !l->parts_bad && !l->sim.pend_gap &&
	    log_cut(l))
		return l->err;
	l->sim.numbers += b->ninsn;
	if (!l->any)
		l->sim.first_ip = b->ip;
	if (l->sim.pend_gap) { /* the transition after a gap: one segment */
		l->sim.cnt++;
		l->sim.pend_gap = 0;
		if (l->sim.irregular)
			l->sim.nseg++;
		else
			sim_after_gap(l, b->ip);
	}
	l->any = 1;
	if (l->held) {
		skippable = log_boring(l, &l->hb, b->ip);
		verdict = log_verdict(l, &l->hb, b->ip, skippable);
		if (!skippable)
			sim_step(l, &l->hb, b->ip, verdict);
		if (skippable && l->held_skippable) {
			l->skip += l->hb.ninsn;
		} else if (!skippable && log_short_ok(&l->hb, l->held_skippable, verdict)) {
			if (log_write_short(l, &l->hb))
				return l->err;
		} else if (log_write_held(l)) {
			return l->err;
		}
		l->held = 0;
	}
	l->hb = *b;
	l->held = 1;
	l->held_skippable = skippable;
	l->held_verdict = verdict;
	l->tail_block = 1;
	return 0;
}

int ptd__calllog_boring(struct ptd_calllog *l, const struct ptd_block *x, uint64_t next_ip)
{
	return log_boring(l, x, next_ip);
}

uint64_t ptd__calllog_funcs_id(const struct ptd_calllog *l)
{
	return l && l->funcs ? l->funcs->id : 0;
}

/* Writes block @x in full at @p with the verdict @verdict of the
 * transition into it and ip base @base: the end of the record. */
static inline __attribute__((always_inline)) uint8_t *log_put_blk(uint8_t *p,
								   const struct ptd_block *x,
								   uint64_t base, uint8_t verdict)
{
	int64_t d = (int64_t)(x->ip - base);

	*p++ = (uint8_t)(R_BLOCK | (x->iclass & 7) << 2 | verdict | (x->flags ? B_FLAGS : 0));
	if (x->flags)
		*p++ = x->flags;
	p = log_uv(p, (uint64_t)d << 1 ^ (uint64_t)(d >> 63));
	return log_len_ninsn(p, x->end_ip - x->ip, x->ninsn);
}

/*
 * ptd__calllog_block's steps for b[1..n) (b[0] went through it), with
 * the writer's state in locals: the records go through a byte pointer,
 * which may point at anything as far as the compiler knows, so the
 * log's fields would be loaded again after every byte stored.  The same
 * records, the same reservations (log_blk_at's), the same summaries.
 */
int ptd__calllog_blocks(struct ptd_calllog *restrict l, const struct ptd_block *restrict b,
			size_t n, const uint8_t *restrict edge)
{
	const struct ptd_block *x;
	uint64_t skip, base, numbers = 0, wbase = 0;
	uint8_t *buf, hv;
	size_t pos, cap, limit, wpos = 0, i;
	int hs, wrote = 0, wshort = 0;

	if (!n)
		return l->err;
	if (ptd__calllog_block(l, &b[0]) < 0)
		return l->err;
	i = 1;
again:
	x = &l->hb;
	hs = l->held_skippable;
	hv = l->held_verdict;
	skip = l->skip;
	base = l->base;
	buf = l->bytes;
	pos = l->n;
	cap = l->cap;
	/* (l->n - l->sim.off >= part_bytes: the open part is full) */
	limit = l->parts_bad ? SIZE_MAX : l->sim.off + part_bytes;
	for (; i < n; i++) {
		const struct ptd_block *nb = &b[i];
		int sk;
		uint8_t v;

		if (__builtin_expect(pos >= limit, 0))
			break; /* closed before b[i], in ptd__calllog_block */
		sk = edge && edge[i - 1] ? edge[i - 1] - 1 : log_boring(l, x, nb->ip);
		numbers += nb->ninsn;
		if (sk) {
			v = V_DECIDED;
			if (hs) {
				skip += x->ninsn;
				x = nb;
				hs = sk;
				hv = v;
				continue;
			}
		} else {
			v = log_verdict(l, x, nb->ip, 0);
			sim_step_fast(l, x, nb->ip, v);
		}
		/* the record of x, after the skip (log_blk_at) */
		if (!sk && log_short_ok(x, hs, v)) {
			uint8_t tag = (uint8_t)(R_GAP | C_MARK |
						(x->iclass == PTD_IC_RET ? C_RET : 0));
			uint8_t *p;

			if (pos + 11 + 1 + 10 > cap)
				goto grow;
			p = log_skip_any(buf + pos, skip);
			skip = 0;
			wpos = (size_t)(p - buf);
			wbase = base;
			wshort = 1;
			if (x->ninsn && x->ninsn < 16) {
				*p++ = (uint8_t)(tag | x->ninsn << 4);
			} else {
				*p++ = tag;
				p = log_uv(p, x->ninsn);
			}
			pos = (size_t)(p - buf);
		} else {
			uint8_t *p;

			if (pos + 11 + 3 + 3 * 10 > cap)
				goto grow;
			p = log_skip_any(buf + pos, skip);
			skip = 0;
			wpos = (size_t)(p - buf);
			wbase = base;
			wshort = 0;
			p = log_put_blk(p, x, base, hv);
			base = x->end_ip;
			pos = (size_t)(p - buf);
		}
		wrote = 1;
		x = nb;
		hs = sk;
		hv = v;
		continue;
grow:
		/* b[i]'s summary is done: x is written after the growth with
		 * the log's own writers */
		l->n = pos;
		l->base = base;
		l->skip = skip;
		if (!sk && log_short_ok(x, hs, v) ? log_write_short(l, x) : log_write_blk(l, x, hv)) {
			l->held = 0;
			l->sim.numbers += numbers;
			return l->err;
		}
		wrote = 0;
		buf = l->bytes;
		pos = l->n;
		cap = l->cap;
		base = l->base;
		skip = 0;
		x = nb;
		hs = sk;
		hv = v;
	}
	l->sim.numbers += numbers;
	numbers = 0;
	l->n = pos;
	l->base = base;
	if (wrote) {
		l->last_blk_off = wpos;
		l->last_blk_base = wbase;
		l->last_is_blk = 1;
		l->last_short = wshort;
		wrote = 0;
	}
	l->hb = *x;
	l->held_skippable = hs;
	l->held_verdict = hv;
	l->skip = skip;
	if (i < n) {
		/* the open part is full: closed before b[i] */
		if (ptd__calllog_block(l, &b[i]) < 0)
			return l->err;
		i++;
		goto again;
	}
	return 0;
}

int ptd__calllog_gap(struct ptd_calllog *l)
{
	int was_held = l->held && l->any;

	if (l->err || log_write_held(l) || log_flush_skip(l) || log_reserve(l, 1))
		return l->err;
	l->bytes[l->n++] = R_GAP;
	l->sim.numbers++;
	l->sim.nseg++; /* the gap's segment */
	if (!l->sim.pend_gap) {
		/* The first of the gaps: after the part's newest block (or
		 * the part starts with it, or an event came before it). */
		if (was_held && !l->sim.irregular)
			l->sim.gap_pcall = l->hb.iclass == PTD_IC_CALL &&
					   !(l->hb.flags & PTD_BLK_INTERRUPTED);
		else
			l->sim.irregular = 1;
	}
	if (!l->any)
		l->sim.first_gap = 1;
	l->sim.cnt++;
	l->sim.pend_gap = 1;
	l->any = 1;
	l->tail_block = 0;
	l->last_is_blk = 0;
	return 0;
}

void ptd__calllog_set_tag(struct ptd_calllog *l, uint64_t tag)
{
	if (l)
		l->tag = tag;
}

int ptd__calllog_event(struct ptd_calllog *l, unsigned kind, uint64_t ip)
{
	uint8_t *p;

	if (l->err)
		return l->err;
	l->tail_block = 0;
	/* The builder ignores other events: so does the log. */
	if (kind != PTD_EV_SIGNAL && kind != PTD_EV_SIGRETURN && kind != PTD_EV_EXEC)
		return 0;
	/* Across an exec func_of's answers are another program's (tagged
	 * per item number when the log is written again): the part
	 * summaries do not chain over it. */
	if (kind == PTD_EV_EXEC)
		l->parts_bad = 1;
	if (log_write_held(l) || log_flush_skip(l) || log_reserve(l, 12))
		return l->err;
	l->sim.irregular = 1;
	l->sim.cnt_bad = 1;
	l->any = 1;
	p = l->bytes + l->n;
	*p++ = R_EVENT;
	*p++ = (uint8_t)kind;
	p = log_uv(p, ip);
	l->n = (size_t)(p - l->bytes);
	l->last_is_blk = 0;
	return 0;
}

void ptd__calllog_flag_last(struct ptd_calllog *l, uint8_t flags)
{
	if (!l || !l->tail_block)
		return;
	if (l->held) {
		l->hb.flags |= flags;
		return;
	}
	if (!l->last_is_blk || !flags)
		return;
	l->parts_bad = 1; /* the block a part's summary ends with changed */
	l->sim.irregular = 1;
	if (!l->last_short && (l->bytes[l->last_blk_off] & B_FLAGS))
		l->bytes[l->last_blk_off + 1] |= flags;
	else /* written without a flags byte: the log cannot say it */
		l->err = -ptde_internal;
}

int ptd__calllog_ends_in_block(const struct ptd_calllog *l)
{
	return l && l->tail_block && (l->held || l->last_is_blk);
}

/*
 * The pages of [@p, @p + @n) that may not have been written yet, made
 * present in one system call where the system has MADV_POPULATE_WRITE:
 * a history's log grows by the part logs appended to it, tens of MB
 * for a long trace, and a page fault for each of its pages on the first
 * write was about a tenth of the log's time.  (Where it is not there,
 * or fails, the copy faults the pages in as before.)
 */
static void log_prefault(uint8_t *p, size_t n)
{
#ifdef MADV_POPULATE_WRITE
	static long page;
	uintptr_t a, e;

	if (n < 65536)
		return;
	if (!page)
		page = sysconf(_SC_PAGESIZE) > 0 ? sysconf(_SC_PAGESIZE) : 4096;
	a = ((uintptr_t)p + (uintptr_t)page - 1) & ~((uintptr_t)page - 1);
	e = ((uintptr_t)p + n) & ~((uintptr_t)page - 1);
	if (e > a)
		madvise((void *)a, e - a, MADV_POPULATE_WRITE);
#else
	(void)p;
	(void)n;
#endif
}

/*
 * src's records go after dst's, behind a marker that resets the ip base
 * (src's deltas start from 0).  The parts follow: dst's open part is
 * closed at the seam (its newest block written in full: replaying
 * resolves its transition against src's first item as the builder
 * would), src's closed parts come with their offsets moved, and src's
 * open part is dst's open part now (items logged into dst later go on
 * in it).
 */
int ptd__calllog_append(struct ptd_calllog *dst, struct ptd_calllog *src)
{
	size_t mark;
	uint32_t k;

	if (dst->err || src->err)
		return dst->err = dst->err ? dst->err : src->err;
	/* The part before src ends with dst's newest block. */
	if (dst->held) {
		dst->sim.last = dst->hb;
		dst->sim.has_last = 1;
	}
	if (log_write_held(dst) || log_flush_skip(dst) || log_flush_skip(src))
		return dst->err = dst->err ? dst->err : src->err;
	if (src->parts_bad)
		dst->parts_bad = 1;
	if (!dst->parts_bad && dst->any && !parts_room(dst)) {
		dst->parts[dst->nparts++] = dst->sim;
		memset(&dst->sim, 0, sizeof(dst->sim));
		dst->any = 0;
	}
	mark = dst->n;
	for (k = 0; k < src->nparts && !dst->parts_bad; k++) {
		struct psum *ps;

		if (parts_room(dst))
			break;
		ps = &dst->parts[dst->nparts++];
		*ps = src->parts[k];
		memset(&src->parts[k], 0, sizeof(src->parts[k]));
		ps->off = ps->off ? mark + 2 + ps->off : mark;
	}
	psum_fini(&dst->sim);
	memset(dst->pic_seen, 0, sizeof(dst->pic_seen));
	dst->any = 0;
	if (!dst->parts_bad) {
		dst->sim = src->sim;
		memset(&src->sim, 0, sizeof(src->sim));
		memcpy(dst->pic_seen, src->pic_seen, sizeof(dst->pic_seen));
		dst->any = src->any;
		if (!src->n) {
			/* (the held block is written later, without a marker) */
			dst->sim.off = mark;
			dst->sim.base = dst->base;
			dst->sim.irregular = 1;
			dst->sim.cnt_bad = 1;
		} else {
			dst->sim.off = dst->sim.off ? mark + 2 + dst->sim.off : mark;
		}
	}
	if (src->n) {
		if (log_reserve(dst, src->n + 2))
			return dst->err;
		log_prefault(dst->bytes + dst->n, src->n + 2);
		/* src's ips are relative to its own stream's start */
		dst->bytes[dst->n++] = R_EVENT;
		dst->bytes[dst->n++] = 0;
		memcpy(dst->bytes + dst->n, src->bytes, src->n);
		if (src->last_is_blk) {
			dst->last_blk_off = dst->n + src->last_blk_off;
			dst->last_blk_base = src->last_blk_base;
			dst->last_short = src->last_short;
		}
		dst->last_is_blk = src->last_is_blk;
		dst->n += src->n;
		dst->base = src->base;
	}
	dst->held = src->held;
	dst->hb = src->hb;
	/* The first block of src was written in full; its successor's
	 * skippability was decided within src. */
	dst->held_skippable = src->held_skippable;
	dst->held_verdict = src->held_verdict;
	dst->skip = 0;
	dst->tail_block = src->n || src->held ? src->tail_block : dst->tail_block;
	src->n = 0;
	src->held = 0;
	src->tail_block = 0;
	src->last_is_blk = 0;
	return 0;
}

void ptd__calllog_drop_last_block(struct ptd_calllog *l)
{
	if (!l || !l->tail_block)
		return;
	/* The open part's summary counted the block (walked now, not
	 * chained); a block a closed part ends with takes the parts. */
	if (!l->held && !(l->last_is_blk && l->any && l->last_blk_off >= l->sim.off))
		l->parts_bad = 1;
	l->sim.irregular = 1;
	l->sim.cnt_bad = 1;
	if (l->held) {
		l->held = 0;
		log_flush_skip(l);
	} else if (l->last_is_blk) {
		l->n = l->last_blk_off;
		l->base = l->last_blk_base;
		l->last_is_blk = 0;
	}
	l->tail_block = 0;
}

/* Records of the call log from b->pos, one at least, until the log ends
 * or there are b->stop_n segments: the same calls of the item handlers as
 * walking the items they stand for. */
static void step_log(struct builder *b)
{
	const struct ptd_calllog *l = b->log;
	const uint8_t *p = l->bytes + b->pos.off, *end = l->bytes + l->n;
	uint64_t num = b->pos.num, v, base = b->pos.base;
	struct ptd_item it;

	memset(&it, 0, sizeof(it));
	do {
		uint8_t tag = *p++;

		switch (tag & 3) {
		case R_SKIP:
			if (tag >> 2)
				v = tag >> 2;
			else
				p = log_get_uv(p, end, &v);
			if (!b->count_only && b->cur)
				seg(b, b->cur)->last = num + v - 1;
			b->pending = T_NONE;
			num += v;
			break;
		case R_BLOCK:
			it.kind = PTD_ITEM_BLOCK;
			it.number = num;
			it.block.iclass = (tag >> 2) & 7;
			it.block.flags = 0;
			if (tag & B_FLAGS) {
				if (p >= end) {
					b->err = -ptde_internal;
					break;
				}
				it.block.flags = *p++;
			}
			p = log_get_uv(p, end, &v);
			it.block.ip = base + (uint64_t)((int64_t)(v >> 1) ^ -(int64_t)(v & 1));
			p = log_get_len_ninsn(p, end, &v, &it.block.ninsn);
			it.block.end_ip = it.block.ip + v;
			base = it.block.end_ip;
			if ((tag & V_DECIDED) && b->cur && (b->count_only || !(tag & V_ONE))) {
				/* The transition was decided when logged: counting
				 * needs no resolve, nor does a transition that
				 * starts nothing (a jump within a function). */
				if (tag & V_ONE)
					b->cur = ++b->n;
				b->pending = T_NONE;
				if (!b->count_only) {
					struct ptd_callseg *g = seg(b, b->cur);

					g->last = num + it.block.ninsn - 1;
					if (!g->ip)
						g->ip = it.block.ip;
				}
				block_end(b, &it.block);
			} else {
				walk_item(b, &it);
			}
			num += it.block.ninsn;
			break;
		case R_GAP:
			if (tag >> 2) { /* a short call or return record */
				if (!(tag & C_MARK) || !b->cur) {
					b->err = -ptde_internal;
					break;
				}
				v = tag >> 4;
				if (!v)
					p = log_get_uv(p, end, &v);
				if (!b->count_only)
					seg(b, b->cur)->last = num + v - 1;
				b->pending = (tag & C_RET) ? T_RET : T_CALL;
				b->from_ip = 0;
				b->from_mode = FROM_DECIDED;
				num += v;
				break;
			}
			it.kind = PTD_ITEM_GAP;
			it.number = num;
			walk_item(b, &it);
			num++;
			break;
		case R_EVENT:
			if (end - p < 1) {
				b->err = -ptde_internal;
				break;
			}
			it.kind = PTD_ITEM_EVENT;
			it.number = num;
			it.reason = *p++;
			if (!it.reason) { /* an appended log starts */
				base = 0;
				break;
			}
			p = log_get_uv(p, end, &it.block.ip);
			walk_item(b, &it);
			break;
		}
	} while (p < end && !b->err && b->n < b->stop_n && (size_t)(p - l->bytes) < b->stop_off);
	b->pos.off = (size_t)(p - l->bytes);
	b->pos.num = num;
	b->pos.base = base;
}

/* The log's end: the skip and the block it holds, not written yet. */
static void step_log_end(struct builder *b)
{
	const struct ptd_calllog *l = b->log;
	struct ptd_item it;

	if (l->skip) {
		if (!b->count_only && b->cur)
			seg(b, b->cur)->last = b->pos.num + l->skip - 1;
		b->pending = T_NONE;
		b->pos.num += l->skip;
	}
	if (l->held && !b->err) {
		memset(&it, 0, sizeof(it));
		it.kind = PTD_ITEM_BLOCK;
		it.number = b->pos.num;
		it.block = l->hb;
		walk_item(b, &it); /* (rare: no need for the verdict) */
		b->pos.num += l->hb.ninsn;
	}
	b->pos.phase = PH_ITEMS;
	b->pos.item = b->covered;
}

/* One item after the log (all of them without one). */
static void step_item(struct builder *b)
{
	uint64_t i = b->pos.item;

	if (i >= b->nitems) {
		b->pos.phase = PH_TAIL;
		return;
	}
	if (!b->ib || i < b->ib_start || i - b->ib_start >= b->ib_n) {
		/* A chunk of decoded items at a time: no lookup per item. */
		int rc = ptd__history_items_at(b->h, i, &b->ib, &b->ib_n);

		if (rc <= 0) {
			b->err = rc < 0 ? rc : -ptde_internal;
			b->ib = NULL;
			return;
		}
		b->ib_start = i;
	}
	walk_item(b, &b->ib[i - b->ib_start]);
	b->pos.item = i + 1;
}

static void step_tail(struct builder *b)
{
	const struct ptd_history *h = b->h;

	b->pos.phase = PH_DONE;
	if (ptd_history_tail(h)) {
		uint64_t num = ptd_history_count(h), tip = ptd_history_tail(h);

		if (!b->cur)
			start_if_none(b, num, tip);
		else
			resolve(b, tip, num);
		if (!b->err && !b->count_only) {
			if (!seg(b, b->cur)->ip)
				seg(b, b->cur)->ip = tip;
			seg(b, b->cur)->last = num;
		}
	}
}

/* Runs @b over one record: of the call log where the history has one,
 * then the items after it, then the tail.  Checkpoints are taken between
 * two steps. */
static inline void step(struct builder *b)
{
	switch (b->pos.phase) {
	case PH_LOG:
		if (b->pos.off < b->log->n)
			step_log(b);
		else
			b->pos.phase = PH_LOGEND;
		break;
	case PH_LOGEND:
		step_log_end(b);
		break;
	case PH_ITEMS:
		step_item(b);
		break;
	case PH_TAIL:
		step_tail(b);
		break;
	default:
		break;
	}
}

/* Where a walk over @b's history starts. */
static void walk_start(struct builder *b)
{
	const struct ptd_history *h = b->h;
	const struct ptd_calllog *l = b->use_log ? ptd__history_calllog(h, &b->covered) : NULL;

	/* The log's jumps were classified with its own func_of: only the
	 * same one gives the same segments. */
	if (l && (l->funcs ? l->funcs->fn != b->func_of || l->funcs->ctx != b->ctx : !!b->func_of))
		l = NULL;
	if (!l)
		b->covered = 0;
	b->log = l;
	b->nitems = ptd_history_nitems(h);
	b->stop_off = SIZE_MAX;
	memset(&b->pos, 0, sizeof(b->pos));
	b->pos.phase = l ? PH_LOG : PH_ITEMS;
	b->pos.num = 1;
	b->pos.item = b->covered;
	b->ib = NULL;
}

static void builder_init(struct builder *b, const struct ptd_history *h, ptd_func_of_fn func_of,
			 void *ctx, struct ptd_calls *c)
{
	memset(b, 0, sizeof(*b));
	b->h = h;
	b->func_of = func_of;
	b->ctx = ctx;
	b->c = c;
	b->use_log = 1;
	if (func_of) { /* optional: NULL only costs speed */
		b->memo = calloc(MEMO_SLOTS, sizeof(*b->memo));
		b->memo_owned = 1;
	}
}

static void builder_fini(struct builder *b)
{
	free(b->sig);
	if (b->memo_owned)
		free(b->memo);
	free(b->win);
	free(b->snap);
	free(b->pic_memo);
}

/* ---- the lazy view ---- */

static void cp_fini(struct checkpoint *cp)
{
	free(cp->sig);
	free(cp->snap);
	free(cp->fix);
}

/* The chunk holding segment @index (1..n). */
static uint64_t chunk_of(const struct ptd_calls *c, uint64_t index)
{
	uint64_t lo = 0, hi = c->ncp;

	/* the last checkpoint with fewer segments before it than @index */
	while (hi - lo > 1) {
		uint64_t mid = lo + (hi - lo) / 2;

		if (c->cps[mid].nseg < index)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

static void fix_append(struct builder *b, uint64_t index, enum field f, uint64_t v)
{
	struct ptd_calls *c = b->c;
	struct checkpoint *cp = &c->cps[chunk_of(c, index)];
	uint64_t d = f == F_UP || f == F_NEXT_SAME ? (v - index) << 1 ^ (uint64_t)((int64_t)(v - index) >> 63) : v;
	uint8_t *p;

	if (cp->nfix + 21 > cp->fixcap) {
		uint32_t cap = cp->fixcap ? cp->fixcap * 2 : 64;
		uint8_t *n = realloc(cp->fix, cap);

		if (!n) {
			b->err = -ptde_nomem;
			return;
		}
		cp->fix = n;
		cp->fixcap = cap;
	}
	p = cp->fix + cp->nfix;
	p = log_uv(p, index - cp->nseg - 1);
	*p++ = (uint8_t)f;
	p = log_uv(p, d);
	cp->nfix = (uint32_t)(p - cp->fix);
}

/* A set of segment indices (open addressing; 0 is never one). */
struct idset {
	uint64_t *k;
	size_t cap, n;
};

static int idset_add(struct idset *s, uint64_t x)
{
	size_t i;

	if ((s->n + 1) * 2 > s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 64, j;
		uint64_t *k = calloc(cap, sizeof(*k));

		if (!k)
			return -ptde_nomem;
		for (j = 0; j < s->cap; j++) {
			if (!s->k[j])
				continue;
			for (i = (s->k[j] * 0x9e3779b97f4a7c15ull) >> 20 & (cap - 1); k[i]; i = (i + 1) & (cap - 1))
				;
			k[i] = s->k[j];
		}
		free(s->k);
		s->k = k;
		s->cap = cap;
	}
	for (i = (x * 0x9e3779b97f4a7c15ull) >> 20 & (s->cap - 1); s->k[i]; i = (i + 1) & (s->cap - 1))
		if (s->k[i] == x)
			return 0;
	s->k[i] = x;
	s->n++;
	return 1;
}

static int cmp_seg(const void *a, const void *b)
{
	uint64_t x = ((const struct ptd_callseg *)a)->index, y = ((const struct ptd_callseg *)b)->index;

	return x < y ? -1 : x > y;
}


static inline uint64_t zz(int64_t v)
{
	return (uint64_t)v << 1 ^ (uint64_t)(v >> 63);
}

static inline int64_t unzz(uint64_t v)
{
	return (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
}

/* A checkpoint's segments, packed: each field as a varint difference
 * from the segment before it or from its own index (a few bytes each
 * instead of 88; deep call stacks make long checkpoints). */
static uint8_t *snap_pack(const struct ptd_callseg *s, size_t n, uint32_t *len)
{
	uint8_t *buf = malloc(n * 110 + 1), *p = buf, *r; /* 10 varints, 2 bytes */
	const struct ptd_callseg z = { 0 }, *prev = &z;
	size_t i;
	int k;

	if (!buf)
		return NULL;
	for (i = 0; i < n; prev = &s[i], i++) {
		const struct ptd_callseg *g = &s[i];
		const uint64_t refs[5] = { g->up, g->prev_same, g->next_same,
					   g->instance == g->index ? 0 : g->instance, g->unwound_to };
		uint8_t mask = 0;

		p = log_uv(p, g->index - prev->index);
		p = log_uv(p, zz((int64_t)(g->first - prev->first)));
		p = log_uv(p, zz((int64_t)(g->last - g->first)));
		p = log_uv(p, zz((int64_t)(g->ip - prev->ip)));
		p = log_uv(p, zz((int64_t)g->level - prev->level));
		*p++ = (uint8_t)((g->how & 15) | !!g->is_gap << 4 | !!g->up_is_ret << 5 |
				 !!g->up_is_tail << 6);
		for (k = 0; k < 5; k++)
			mask |= (uint8_t)(!!refs[k] << k);
		*p++ = mask;
		for (k = 0; k < 5; k++)
			if (refs[k])
				p = log_uv(p, zz((int64_t)(g->index - refs[k])));
	}
	*len = (uint32_t)(p - buf);
	r = realloc(buf, *len ? *len : 1);
	return r ? r : buf;
}

static void snap_unpack(const uint8_t *p, uint32_t len, struct ptd_callseg *out, size_t n)
{
	const uint8_t *end = p + len;
	const struct ptd_callseg z = { 0 }, *prev = &z;
	uint64_t v, refs[5];
	size_t i;
	int k;

	for (i = 0; i < n; prev = &out[i], i++) {
		struct ptd_callseg *g = &out[i];
		uint8_t fl, mask;

		memset(g, 0, sizeof(*g));
		p = log_get_uv(p, end, &v);
		g->index = prev->index + v;
		p = log_get_uv(p, end, &v);
		g->first = prev->first + (uint64_t)unzz(v);
		p = log_get_uv(p, end, &v);
		g->last = g->first + (uint64_t)unzz(v);
		p = log_get_uv(p, end, &v);
		g->ip = prev->ip + (uint64_t)unzz(v);
		p = log_get_uv(p, end, &v);
		g->level = (int)(prev->level + unzz(v));
		fl = p < end ? *p++ : 0;
		mask = p < end ? *p++ : 0;
		g->how = fl & 15;
		g->is_gap = fl >> 4 & 1;
		g->up_is_ret = fl >> 5 & 1;
		g->up_is_tail = fl >> 6 & 1;
		for (k = 0; k < 5; k++) {
			refs[k] = 0;
			if (mask & 1 << k) {
				p = log_get_uv(p, end, &v);
				refs[k] = g->index - (uint64_t)unzz(v);
			}
		}
		g->up = refs[0];
		g->prev_same = refs[1];
		g->next_same = refs[2];
		g->instance = refs[3] ? refs[3] : g->index;
		g->unwound_to = refs[4];
	}
}

/*
 * Takes a checkpoint between two steps of a lazy build: the builder's
 * state and the segments it can still read (from cur, the segment before
 * a gap and the signal frames, following up and instance: every segment
 * the rules read is found so).  The window is emptied: the others are
 * never read again while building.
 */
static void take_checkpoint(struct builder *b)
{
	struct ptd_calls *c = b->c;
	struct checkpoint *cp;
	struct idset set = { 0 };
	uint64_t *work = NULL;
	size_t nw = 0, wcap = 0, i;
	struct ptd_callseg *snap = NULL;
	uint8_t *packed = NULL;
	uint32_t plen = 0;
	int rc = 0;

	if (c->ncp == c->cpcap) {
		uint64_t cap = c->cpcap ? c->cpcap * 2 : 16;
		struct checkpoint *n = realloc(c->cps, cap * sizeof(*n));

		if (!n) {
			b->err = -ptde_nomem;
			return;
		}
		c->cps = n;
		c->cpcap = cap;
	}
#define PUSH(x)                                                                              \
	do {                                                                                 \
		uint64_t x_ = (x);                                                          \
		if (x_ && rc >= 0 && (rc = idset_add(&set, x_)) > 0) {                       \
			if (nw == wcap) {                                                    \
				uint64_t *n_ = realloc(work, (wcap = wcap ? wcap * 2 : 64) * sizeof(*n_)); \
				if (!n_) {                                                   \
					rc = -ptde_nomem;                                    \
					break;                                               \
				}                                                            \
				work = n_;                                                   \
			}                                                                    \
			work[nw++] = x_;                                                     \
		}                                                                            \
	} while (0)
	PUSH(b->cur);
	PUSH(b->before_gap);
	for (i = 0; i < b->nsig; i++)
		PUSH(b->sig[i].seg);
	for (i = 0; i < nw && rc >= 0; i++) {
		const struct ptd_callseg *s = seg(b, work[i]);

		PUSH(s->up);
		PUSH(s->instance);
	}
#undef PUSH
	if (rc >= 0 && nw) {
		snap = malloc(nw * sizeof(*snap));
		if (!snap)
			rc = -ptde_nomem;
	}
	if (rc < 0 || b->err) {
		b->err = b->err ? b->err : rc;
		goto out;
	}
	for (i = 0; i < nw; i++)
		snap[i] = *seg(b, work[i]);
	if (nw) {
		qsort(snap, nw, sizeof(*snap), cmp_seg);
		packed = snap_pack(snap, nw, &plen);
		if (!packed) {
			b->err = -ptde_nomem;
			goto out;
		}
	}
	cp = &c->cps[c->ncp];
	memset(cp, 0, sizeof(*cp));
	if (b->nsig) {
		cp->sig = malloc(b->nsig * sizeof(*cp->sig));
		if (!cp->sig) {
			b->err = -ptde_nomem;
			goto out;
		}
		memcpy(cp->sig, b->sig, b->nsig * sizeof(*cp->sig));
	}
	cp->nseg = b->n;
	cp->pos = b->pos;
	cp->cur = b->cur;
	cp->from_ip = b->from_ip;
	cp->before_gap = b->before_gap;
	cp->pending = (uint8_t)b->pending;
	cp->from_mode = (uint8_t)b->from_mode;
	cp->nsig = (uint32_t)b->nsig;
	cp->nsnap = (uint32_t)nw;
	cp->snap = packed;
	cp->snaplen = plen;
	packed = NULL;
	c->ncp++;
	free(b->snap);
	b->snap = snap;
	b->nsnap = nw;
	snap = NULL;
	b->win_base = b->n;
out:
	free(snap);
	free(packed);
	free(work);
	free(set.k);
}

static void walk_on(struct builder *b);

/* The whole walk of a build or a count. */
static void walk_all(struct builder *b)
{
	walk_start(b);
	b->stop_n = UINT64_MAX;
	if (b->lazy)
		take_checkpoint(b);
	walk_on(b);
}

/* The walk from where @b is to the end, checkpoints taken as it goes. */
static void walk_on(struct builder *b)
{
	struct ptd_calls *c = b->c;

	while (b->pos.phase != PH_DONE && !b->err) {
		if (b->lazy) {
			const struct checkpoint *cp = &c->cps[c->ncp - 1];

			if (b->n >= cp->nseg + (uint64_t)b->lazy) {
				take_checkpoint(b);
				cp = &c->cps[c->ncp - 1];
			}
			b->stop_n = b->n > cp->nseg ? cp->nseg + (uint64_t)b->lazy : cp->nseg + 1;
		}
		step(b);
		if (b->lazy && b->n > c->cps[c->ncp - 1].nseg)
			b->sealed = c->cps[c->ncp - 1].nseg;
	}
}

void ptd_calls_free(struct ptd_calls *c)
{
	uint64_t i;

	if (!c)
		return;
	free(c->segs);
	for (i = 0; i < c->ncp; i++)
		cp_fini(&c->cps[i]);
	free(c->cps);
	free(c->adopt);
	for (i = 0; i < CACHE_SLOTS; i++)
		free(c->slot[i].segs);
	free(c->memo);
	ptd_calls_free(c->full);
	free(c);
}

/* @lazy: segments per chunk, 0 for an eager build. */
static struct ptd_calls *calls_build(const struct ptd_history *h, ptd_func_of_fn func_of,
				     void *ctx, int use_log, int lazy)
{
	struct builder b;
	struct ptd_calls *c;
	uint64_t i;

	if (!h) {
		ptd__err(-ptde_invalid, "no history");
		return NULL;
	}
	c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	builder_init(&b, h, func_of, ctx, c);
	b.use_log = use_log;
	b.lazy = lazy;
	walk_all(&b);
	if (b.err) {
		ptd__err(b.err, "cannot build the function-call segments");
		builder_fini(&b);
		ptd_calls_free(c);
		return NULL;
	}
	c->n = b.n;
	c->min_level = b.n ? b.min_level : 0;
	c->nitems = b.nitems;
	c->tail = ptd_history_tail(h);
	c->logn = b.log ? b.log->n : 0;
	c->logheld = b.log ? b.log->skip + (uint64_t)b.log->held : 0;
	if (!lazy) {
		c->segs = b.win;
		b.win = NULL;
		builder_fini(&b);
		return c;
	}
	builder_fini(&b);
	/* Checkpoints after the last segment have no chunk. */
	while (c->ncp && c->cps[c->ncp - 1].nseg >= c->n)
		cp_fini(&c->cps[--c->ncp]);
	for (i = 0; i < c->ncp; i++) { /* only what is kept stays resident */
		struct checkpoint *cp = &c->cps[i];

		if (cp->nfix < cp->fixcap) {
			uint8_t *n = realloc(cp->fix, cp->nfix ? cp->nfix : 1);

			if (n) {
				cp->fix = n;
				cp->fixcap = cp->nfix;
			}
		}
	}
	if (c->ncp && c->ncp < c->cpcap) {
		struct checkpoint *n = realloc(c->cps, c->ncp * sizeof(*n));

		if (n) {
			c->cps = n;
			c->cpcap = c->ncp;
		}
	}
	c->h = h;
	c->func_of = func_of;
	c->ctx = ctx;
	c->use_log = use_log;
	return c;
}

/*
 * Materialises chunk @j into @sl: a walk from its checkpoint up to the
 * end of the step that makes the segment after the chunk (every write
 * the builder made to the chunk's segments until then happens again),
 * then the chunk's fixups (the writes after that), in order.
 */
static int materialise(struct ptd_calls *c, uint64_t j, struct cache_slot *sl)
{
	const struct checkpoint *cp = &c->cps[j];
	uint64_t end = j + 1 < c->ncp ? c->cps[j + 1].nseg : c->n, cnt = end - cp->nseg;
	struct builder b;
	const uint8_t *p, *pe;
	uint64_t walked, i;
	size_t k;
	int err;

	if (c->func_of && !c->memo) {
		c->memo = calloc(VIEW_MEMO_SLOTS, sizeof(*c->memo));
		if (!c->memo)
			return ptd__err(-ptde_nomem, "cannot materialise the function-call segments");
	}
	memset(&b, 0, sizeof(b));
	b.h = c->h;
	b.func_of = c->func_of;
	b.ctx = c->ctx;
	b.c = c;
	b.use_log = c->use_log;
	b.memo = c->memo;
	b.replaying = 1;
	walk_start(&b);
	if (b.nitems != c->nitems || ptd_history_tail(c->h) != c->tail ||
	    (b.log ? b.log->n : 0) != c->logn ||
	    (b.log ? b.log->skip + (uint64_t)b.log->held : 0) != c->logheld) {
		builder_fini(&b);
		return ptd__err(-ptde_invalid, "the history changed since its function-call "
					       "segments were built");
	}
	b.pos = cp->pos;
	b.cur = cp->cur;
	b.from_ip = cp->from_ip;
	b.from_mode = cp->from_mode;
	b.before_gap = cp->before_gap;
	b.pending = (enum trans)cp->pending;
	b.n = b.win_base = cp->nseg;
	b.sig = cp->nsig ? malloc(cp->nsig * sizeof(*b.sig)) : NULL;
	b.snap = cp->nsnap ? malloc(cp->nsnap * sizeof(*b.snap)) : NULL;
	if ((cp->nsig && !b.sig) || (cp->nsnap && !b.snap)) {
		builder_fini(&b);
		return ptd__err(-ptde_nomem, "cannot materialise the function-call segments");
	}
	if (cp->nsig)
		memcpy(b.sig, cp->sig, cp->nsig * sizeof(*b.sig));
	b.nsig = b.sigcap = cp->nsig;
	if (cp->nsnap)
		snap_unpack(cp->snap, cp->snaplen, b.snap, cp->nsnap);
	b.nsnap = cp->nsnap;
	b.stop_n = end + 1;
	while (b.pos.phase != PH_DONE && !b.err && b.n <= end)
		step(&b);
	if (!b.err && b.n < end)
		b.err = -ptde_internal; /* the history changed under the view */
	err = b.err;
	if (err) {
		builder_fini(&b);
		return ptd__err(err, "cannot materialise the function-call segments");
	}
	if (sl->cap < cnt) {
		/* Room for a usual chunk at once: a slot moves rarely (a
		 * pointer into it lives as long as it stays cached). */
		uint64_t cap = cnt < (uint64_t)CHUNK_SEGS + 64 ? CHUNK_SEGS + 64 : cnt;
		struct ptd_callseg *n = realloc(sl->segs, cap * sizeof(*n));

		if (!n) {
			builder_fini(&b);
			return ptd__err(-ptde_nomem, "cannot materialise the function-call segments");
		}
		sl->segs = n;
		sl->cap = cap;
	}
	if (cnt)
		memcpy(sl->segs, b.win, cnt * sizeof(*b.win));
	walked = b.n;
	builder_fini(&b);
	sl->n = cnt;
	p = cp->fix;
	pe = p ? p + cp->nfix : p; /* no fixups: no array */
	while (p < pe) {
		uint64_t off, v;
		uint8_t f;
		struct ptd_callseg *s;

		p = log_get_uv(p, pe, &off);
		if (p >= pe || off >= cnt)
			return ptd__err(-ptde_internal, "bad fixup in the function-call segments");
		f = *p++;
		p = log_get_uv(p, pe, &v);
		s = &sl->segs[off];
		if (f == F_UP || f == F_NEXT_SAME)
			v = s->index + (uint64_t)((int64_t)(v >> 1) ^ -(int64_t)(v & 1));
		if (put_field(s, (enum field)f, v) < 0)
			return ptd__err(-ptde_internal, "bad fixup in the function-call segments");
	}
	/* The adoptions after the walk: each orphan left gets the caller
	 * the first one of its level made (orphans are rare: the segments
	 * of the function where the recording started). */
	for (i = 0; i < cnt && c->nadopt; i++) {
		struct ptd_callseg *o = &sl->segs[i];

		if (o->up || o->how == PTD_SEG_GAP)
			continue;
		for (k = 0; k < c->nadopt; k++) {
			if (c->adopt[k].seg > walked && c->adopt[k].level == o->level) {
				o->up = c->adopt[k].seg;
				o->up_is_ret = 1;
				break;
			}
		}
	}
	return 0;
}

/* The materialised segments of chunk @j (cached), or NULL. */
static const struct cache_slot *chunk_get(const struct ptd_calls *cc, uint64_t j)
{
	struct ptd_calls *c = (struct ptd_calls *)cc; /* the cache only */
	struct cache_slot *sl = NULL;
	int i;

	for (i = 0; i < CACHE_SLOTS; i++) {
		if (c->slot[i].chunk == j + 1) {
			c->slot[i].used = ++c->tick;
			return &c->slot[i];
		}
		if (!sl || c->slot[i].used < sl->used)
			sl = &c->slot[i];
	}
	sl->chunk = 0;
	if (materialise(c, j, sl) < 0)
		return NULL;
	sl->chunk = j + 1;
	sl->used = ++c->tick;
	return sl;
}

/* ---- the view from a late part on (the part summaries chained) ---- */

/* A frame open between two parts, as the chain finds it: its newest
 * segment s and its instance i (the same when it has one segment); the
 * segment below it in the chain is its up. */
struct cframe {
	uint64_t s, i, sip, iip;
	int level;
	uint8_t shw, ihw, tail, uir;
};

struct chain {
	struct builder *b; /* for func(), instruction lengths and the
			    * transition pending at a part's start */
	struct cframe *f;
	size_t nf, cap;
	uint64_t n;   /* segments so far */
	uint64_t num; /* number of the next item */
	int min_level;
	/* Open signal frames, and the segments they reach besides the
	 * frames (copies of the builder's). */
	struct sigframe *sig;
	size_t nsig;
	struct ptd_callseg *x;
	size_t nx;
};

static int chain_push(struct chain *ch, uint64_t idx, uint64_t ip, uint8_t how, uint8_t tail)
{
	struct cframe *f;

	if (ch->nf == ch->cap) {
		size_t cap = ch->cap ? ch->cap * 2 : 64;
		struct cframe *n = realloc(ch->f, cap * sizeof(*n));

		if (!n)
			return -1;
		ch->f = n;
		ch->cap = cap;
	}
	f = &ch->f[ch->nf];
	memset(f, 0, sizeof(*f));
	f->s = f->i = idx;
	f->sip = f->iip = ip;
	f->shw = f->ihw = how;
	f->tail = tail;
	f->level = ch->nf ? ch->f[ch->nf - 1].level + 1 : 0;
	if (idx == 1 || f->level < ch->min_level)
		ch->min_level = f->level;
	ch->nf++;
	return 0;
}

/* do_return() from the newest frame: to its caller (frame_root's up),
 * which must be in the target's function, or out of the bottom frame;
 * -1 when the rules would look elsewhere. */
static int chain_ret(struct chain *ch, uint64_t ft, uint64_t idx, uint64_t ip)
{
	size_t r;

	if (!ch->nf || ch->f[ch->nf - 1].ihw == PTD_SEG_SIGNAL)
		return -1;
	for (r = ch->nf - 1; r > 0 && ch->f[r].tail; r--)
		;
	if (r > 0) {
		struct cframe *c;
		size_t j = r;
		int i;

		/* do_return's walk up the callers for the one in the
		 * target's function (none: a new caller, not chained) */
		if (!ch->f[r].uir && ft)
			for (i = 0; j > 0 && func(ch->b, ch->f[j - 1].iip) != ft; i++, j--)
				if (ch->f[j - 1].uir || i + 1 >= MAX_CALLER_WALK)
					return -1;
		if (!j)
			return -1;
		r = j;
		c = &ch->f[r - 1];
		ch->nf = r;
		c->s = idx;
		c->sip = ip;
		c->shw = PTD_SEG_RETURN;
		return 0;
	}
	/* out of the function where the recording started: a caller one
	 * level up; the orphans it adopts are off the stack now, but a
	 * signal frame may still reach them */
	for (r = 0; r < ch->nx; r++) {
		struct ptd_callseg *o = &ch->x[r];

		if (!o->up && o->how != PTD_SEG_GAP && o->level == ch->f[0].level) {
			o->up = idx;
			o->up_is_ret = 1;
		}
	}
	ch->f[0].level--;
	ch->f[0].s = ch->f[0].i = idx;
	ch->f[0].sip = ch->f[0].iip = ip;
	ch->f[0].shw = ch->f[0].ihw = PTD_SEG_RETURN;
	ch->f[0].tail = ch->f[0].uir = 0;
	ch->nf = 1;
	if (ch->f[0].level < ch->min_level)
		ch->min_level = ch->f[0].level;
	return 0;
}

/* The transition pending in the builder resolved against @t, the first
 * ip of a part, by the rules of resolve(). */
static int chain_seam(struct chain *ch, uint64_t t)
{
	struct builder *b = ch->b;
	uint64_t fa, fb;

	switch (b->pending) {
	case T_NONE:
		return 0;
	case T_SYSCALL: { /* starts nothing unless it ends at a signal frame's ip */
		size_t j;

		for (j = 0; j < ch->nsig; j++)
			if (ch->sig[j].ip == t)
				return -1;
		return 0;
	}
	case T_CALL:
		if (pic_call(b, t))
			return 0;
		return chain_push(ch, ++ch->n, t, PTD_SEG_CALL, 0);
	case T_RET:
		return chain_ret(ch, func(b, t), ++ch->n, t);
	case T_JUMP:
		fa = func(b, b->from_ip);
		fb = func(b, t);
		if ((fb && fb == t) || (!fb && fa))
			return chain_push(ch, ++ch->n, t, PTD_SEG_TAILCALL, 1);
		return fa != fb ? -1 : 0;
	default:
		return -1;
	}
}

/* Part @ps after the seam into it: its returns to the frames it found,
 * then the frames it left open. */
static int chain_part(struct chain *ch, const struct psum *ps)
{
	uint64_t base = ch->n;
	uint32_t k;

	for (k = 0; k < ps->nev; k++) {
		const struct sev *e = &ps->ev[k];

		if (e->kind == SEV_FROM) {
			if (chain_ret(ch, e->ft, base + e->idx, e->ip))
				return -1;
		} else {
			/* do_return's walk for the caller in the target's
			 * function, on from the frames the part opened */
			uint64_t want = e->ft == FT_UNKNOWN ? 0 : e->ft;
			size_t j = ch->nf;
			struct cframe *top;
			int i;

			if (e->ft)
				for (i = 0; j > 0 && func(ch->b, ch->f[j - 1].iip) != want; i++, j--)
					if (ch->f[j - 1].uir || i + 1 >= e->budget)
						return -1;
			if (!j)
				return -1;
			ch->nf = j;
			top = &ch->f[j - 1];
			top->s = base + e->idx;
			top->sip = e->ip;
			top->shw = e->how;
		}
	}
	for (k = 0; k < ps->nfr; k++) {
		const struct sframe *f = &ps->fr[k];

		if (!ch->nf || chain_push(ch, base + f->i, f->iip, f->ihw, f->tail))
			return -1;
		ch->f[ch->nf - 1].s = base + f->s;
		ch->f[ch->nf - 1].sip = f->sip;
		ch->f[ch->nf - 1].shw = f->shw;
	}
	ch->n = base + ps->nseg;
	ch->num += ps->numbers;
	return 0;
}

/* Whether a far transfer of @ps may end at the ip of an open signal
 * frame (a sigreturn: the builder must walk the part). */
static int far_may_sigreturn(const struct chain *ch, const struct psum *ps)
{
	uint32_t i;
	size_t j;

	if (!ch->nsig || !ps->nfar)
		return 0;
	if (ps->nfar > FAR_MAX)
		return 1;
	for (i = 0; i < ps->nfar; i++)
		for (j = 0; j < ch->nsig; j++)
			if (ps->far[i] == ch->sig[j].ip)
				return 1;
	return 0;
}

/* Puts the chain's frames into the builder as the segments it can
 * still read (a checkpoint's): cur, and each frame's newest segment and
 * instance, linked by up. */
static int chain_to_builder(struct chain *ch, struct builder *b)
{
	size_t i, k;

	free(b->snap);
	b->nsnap = 0;
	b->snap = malloc((2 * ch->nf + ch->nx + 1) * sizeof(*b->snap));
	if (!b->snap)
		return -ptde_nomem;
	if (ch->nsig > b->sigcap) {
		struct sigframe *n = realloc(b->sig, ch->nsig * sizeof(*n));

		if (!n)
			return -ptde_nomem;
		b->sig = n;
		b->sigcap = ch->nsig;
	}
	if (ch->nsig)
		memcpy(b->sig, ch->sig, ch->nsig * sizeof(*b->sig));
	b->nsig = ch->nsig;
	/* the copies first: of a segment in both, they are kept */
	if (ch->nx)
		memcpy(b->snap, ch->x, ch->nx * sizeof(*b->snap));
	b->nsnap = ch->nx;
	for (i = 0; i < ch->nf; i++) {
		const struct cframe *f = &ch->f[i];
		struct ptd_callseg *g = &b->snap[b->nsnap++];

		memset(g, 0, sizeof(*g));
		g->index = f->i;
		g->ip = f->iip;
		g->how = f->ihw;
		g->level = f->level;
		g->up = i ? ch->f[i - 1].s : 0;
		g->up_is_tail = f->tail;
		g->up_is_ret = f->uir;
		g->instance = f->i;
		if (f->s != f->i) {
			b->snap[b->nsnap] = *g;
			g = &b->snap[b->nsnap++];
			g->index = f->s;
			g->ip = f->sip;
			g->how = f->shw;
		}
	}
	/* (a frame's segment among the copies is not added again) */
	for (i = ch->nx, k = ch->nx; i < b->nsnap; i++) {
		size_t j;

		for (j = 0; j < ch->nx && ch->x[j].index != b->snap[i].index; j++)
			;
		if (j == ch->nx)
			b->snap[k++] = b->snap[i];
	}
	b->nsnap = k;
	qsort(b->snap, b->nsnap, sizeof(*b->snap), cmp_seg);
	b->n = b->win_base = ch->n;
	b->min_level = ch->min_level;
	b->cur = ch->nf ? ch->f[ch->nf - 1].s : 0;
	b->pos.num = ch->num;
	return 0;
}

/* Copies the builder's signal frames into the chain, and the segments
 * they reach (following up and instance, as take_checkpoint). */
static int chain_keep_sig(struct builder *b, struct chain *ch)
{
	size_t i, cap = 0;

	free(ch->sig);
	free(ch->x);
	ch->sig = NULL;
	ch->x = NULL;
	ch->nsig = ch->nx = 0;
	if (!b->nsig)
		return 0;
	ch->sig = malloc(b->nsig * sizeof(*ch->sig));
	if (!ch->sig)
		return -1;
	memcpy(ch->sig, b->sig, b->nsig * sizeof(*ch->sig));
	ch->nsig = b->nsig;
	for (i = 0; i < b->nsig + ch->nx; i++) {
		uint64_t want[2], w;
		size_t j, k;

		if (i < b->nsig) {
			want[0] = b->sig[i].seg;
			want[1] = 0;
		} else {
			want[0] = ch->x[i - b->nsig].up;
			want[1] = ch->x[i - b->nsig].instance;
		}
		for (k = 0; k < 2; k++) {
			w = want[k];
			if (!w)
				continue;
			for (j = 0; j < ch->nx && ch->x[j].index != w; j++)
				;
			if (j < ch->nx)
				continue;
			if (ch->nx == cap) {
				struct ptd_callseg *n;

				cap = cap ? cap * 2 : 16;
				n = realloc(ch->x, cap * sizeof(*n));
				if (!n || ch->nx > 4096)
					return -1; /* (free with the chain) */
				ch->x = n;
			}
			{
				/* Not stored: the state came from the chain, whose
				 * frames keep only each frame's newest segment and
				 * instance; the builder goes on walking. */
				const struct ptd_callseg *g = seg_if_stored(b, w);

				if (!g)
					return -1;
				ch->x[ch->nx++] = *g;
			}
		}
	}
	return 0;
}

/* The frames of the builder's state back into the chain, when nothing
 * but them is pending (no signal frame, no gap to bridge); 1 when done,
 * 0 when the builder must go on. */
static int builder_to_chain(struct builder *b, struct chain *ch)
{
	uint64_t x;
	size_t k;

	if (b->pending == T_AFTER_GAP || b->before_gap || !b->cur || b->pos.phase != PH_LOG ||
	    chain_keep_sig(b, ch) < 0)
		return 0;
	ch->nf = 0;
	for (x = b->cur; x && ch->nf < (1u << 20); x = seg(b, x)->up) {
		const struct ptd_callseg *s = seg(b, x), *i = seg(b, s->instance);
		struct cframe *f;

		if (b->err || ch->nf == ch->cap) {
			size_t cap = ch->cap ? ch->cap * 2 : 64;
			struct cframe *n = b->err ? NULL : realloc(ch->f, cap * sizeof(*n));

			if (!n)
				return 0;
			ch->f = n;
			ch->cap = cap;
		}
		f = &ch->f[ch->nf++];
		f->s = s->index;
		f->i = i->index;
		f->sip = s->ip;
		f->iip = i->ip;
		f->shw = s->how;
		f->ihw = i->how;
		f->level = s->level;
		f->tail = s->up_is_tail;
		f->uir = s->up_is_ret;
	}
	if (x || b->err)
		return 0;
	for (k = 0; k < ch->nf / 2; k++) {
		struct cframe t = ch->f[k];

		ch->f[k] = ch->f[ch->nf - 1 - k];
		ch->f[ch->nf - 1 - k] = t;
	}
	ch->n = b->n;
	ch->num = b->pos.num;
	ch->min_level = b->min_level;
	return 1;
}

/* The log's parts: the closed ones, then the open one when it has items. */
static inline uint32_t log_nparts(const struct ptd_calllog *l)
{
	return l->nparts + (l->any ? 1 : 0);
}

static inline const struct psum *log_part(const struct ptd_calllog *l, uint32_t k)
{
	return k < l->nparts ? &l->parts[k] : &l->sim;
}

/* Whether the calls part @ps took for PIC ones (sim_pic) are: as long
 * as the distance to the instruction after them, as pic_call() asks. */
#define PIC_MEMO_SLOTS 4096
static int pics_hold(struct builder *b, const struct psum *ps)
{
	uint32_t i;

	if (!ps->npic)
		return 1;
	if (!b->pic_memo && !(b->pic_memo = calloc(PIC_MEMO_SLOTS, sizeof(*b->pic_memo))))
		return 0;
	for (i = 0; i < ps->npic; i++) {
		uint64_t a = ps->pic[i], ip = (uint64_t)((int64_t)a >> 4);
		struct memo_ent *e =
			&b->pic_memo[((a * 0x9e3779b97f4a7c15ull) >> 40) & (PIC_MEMO_SLOTS - 1)];

		if (e->key != a + 1 || (e->entry >> 1) != ps->pic_mode) {
			int len = ptd__history_insn_len_mode(b->h, ip, ps->pic_mode, NULL);

			ptd_clear_error();
			e->key = a + 1;
			e->entry = (uint64_t)ps->pic_mode << 1 | (len > 0 && (uint64_t)len == (a & 15));
		}
		if (!(e->entry & 1))
			return 0;
	}
	return 1;
}

/* Whether the chain may take part @ps (the signal frames aside). */
static inline int chainable(const struct psum *ps)
{
	return !ps->irregular && ps->has_last;
}

/*
 * Whether chaining the summaries of @l's parts before part @q pays: the
 * builder walks the irregular ones storing segments (for the chain to
 * take its state over), which costs more than counting them; when most
 * parts are irregular (gaps everywhere, as in a filtered trace), the
 * plain walk is the faster one.
 */
static int chain_always;

void ptd__calls_set_chain_always(int on)
{
	chain_always = on;
}

static int chain_pays(const struct ptd_calllog *l, uint32_t q)
{
	uint32_t k, ok = 0;

	if (chain_always)
		return 1;
	for (k = 0; k < q; k++)
		ok += chainable(log_part(l, k));
	return ok * 2 >= q;
}

/*
 * Brings @b (a walk started over a history whose log is @l) to the start
 * of part @q, or of an earlier part when the builder cannot hand its
 * state back to the chain for long: the part summaries chained from the
 * start, the irregular parts walked by @b from the state the chain gives.
 * @ch (zeroed) is left for the caller to free.  Returns 0 or an error.
 */
static int chain_run(struct builder *b, struct chain *ch, const struct ptd_calllog *l, uint32_t q)
{
	struct cframe *save = NULL;
	uint32_t k;
	int err = 0, in_builder = 1;

	ch->b = b;
	ch->num = 1;
	for (k = 0; k < q && !err; k++) {
		const struct psum *ps = log_part(l, k);

		if (chainable(ps) && !far_may_sigreturn(ch, ps) && pics_hold(b, ps) &&
		    (k ? !in_builder && ch->nf : in_builder)) {
			struct chain was = *ch;
			struct cframe *n = realloc(save, (ch->nf ? ch->nf : 1) * sizeof(*save));

			if (!n) {
				err = -ptde_nomem;
				break;
			}
			save = n;
			if (ch->nf)
				memcpy(save, ch->f, ch->nf * sizeof(*save));
			if (!(k ? chain_seam(ch, ps->first_ip)
				: chain_push(ch, ++ch->n, ps->first_ip, PTD_SEG_START, 0)) &&
			    !chain_part(ch, ps)) {
				in_builder = 0;
				block_end(b, &ps->last);
				continue;
			}
			if (was.nf)
				memcpy(ch->f, save, was.nf * sizeof(*save));
			ch->nf = was.nf;
			ch->n = was.n;
			ch->num = was.num;
			ch->min_level = was.min_level;
		}
		/* The builder walks the part from the chain's state. */
		b->c->walked_parts++;
		if (!in_builder) {
			err = chain_to_builder(ch, b);
			in_builder = 1;
		}
		b->pos.phase = PH_LOG;
		b->pos.off = ps->off;
		b->pos.base = ps->base;
		b->stop_off = log_part(l, k + 1)->off;
		b->stop_n = UINT64_MAX;
		while (!err && !b->err && b->pos.phase == PH_LOG && b->pos.off < b->stop_off)
			step(b);
		err = err ? err : b->err;
		/* The chain takes the state over for a part it can chain
		 * (handing it over costs about the depth of the stack: not
		 * after every part of a run the builder walks anyway, as in
		 * a trace with gaps everywhere), or to keep the builder's
		 * window small. */
		if (!err && (chainable(log_part(l, k + 1)) || b->n - b->win_base > STUCK_SEGS) &&
		    builder_to_chain(b, ch))
			in_builder = 0;
		else if (b->n - b->win_base > STUCK_SEGS) {
			/* The chain cannot take the state over (signal frames
			 * stay pending): the view starts here. */
			k++;
			break;
		}
	}
	free(save);
	if (err)
		return err;
	/* The builder as it is at the start of part k (its walk ended
	 * there, or the chain's state is put into it). */
	if (!in_builder) {
		if ((err = chain_to_builder(ch, b)) < 0)
			return err;
		b->pos.phase = PH_LOG;
		b->pos.off = log_part(l, k)->off;
		b->pos.base = log_part(l, k)->base;
	}
	return 0;
}

/*
 * The view of @h from a late part on: the builder's exact state at the
 * start of the latest part that leaves at least @min_after segments
 * after it, found by chaining the part summaries of @h's log from the
 * start (an irregular part is walked by the builder, from the state the
 * chain gives, and the chain goes on from the state it ends in); only
 * the parts from there are walked.  The segments before it are in a
 * whole view built when one of them is first asked for.  NULL (no error
 * set) when the summaries cannot serve.
 */
static struct ptd_calls *calls_suffix(const struct ptd_history *h, ptd_func_of_fn func_of,
				      void *ctx, uint64_t min_after)
{
	struct builder b;
	struct chain ch;
	struct ptd_calls *c;
	const struct ptd_calllog *l;
	uint64_t acc = 0, i;
	uint32_t q;
	int err = 0;

	if (!h)
		return NULL;
	c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	memset(&ch, 0, sizeof(ch));
	builder_init(&b, h, func_of, ctx, c);
	walk_start(&b);
	l = b.log;
	if (!l || l->parts_bad || log_nparts(l) < 2 || log_part(l, 0)->off)
		goto no;
	for (q = log_nparts(l) - 1; q > 0; q--) {
		acc += log_part(l, q)->nseg + 1;
		if (acc >= min_after)
			break;
	}
	if (!q || !chain_pays(l, q))
		goto no;
	err = chain_run(&b, &ch, l, q);
	if (err)
		goto no;
	b.stop_off = SIZE_MAX;
	b.stop_n = UINT64_MAX;
	b.floor = b.n;
	b.lazy = CHUNK_SEGS;
	take_checkpoint(&b);
	walk_on(&b);
	if (!b.err && b.n == b.floor)
		goto no; /* nothing after the chain: the whole view */
	if (b.err) {
		err = b.err;
		goto no;
	}
	c->n = b.n;
	c->min_level = b.min_level;
	c->nitems = b.nitems;
	c->tail = ptd_history_tail(h);
	c->logn = l->n;
	c->logheld = l->skip + (uint64_t)l->held;
	c->floor = b.floor;
	builder_fini(&b);
	free(ch.f);
	free(ch.sig);
	free(ch.x);
	while (c->ncp && c->cps[c->ncp - 1].nseg >= c->n)
		cp_fini(&c->cps[--c->ncp]);
	for (i = 0; i < c->ncp; i++) {
		struct checkpoint *cp = &c->cps[i];

		if (cp->nfix < cp->fixcap) {
			uint8_t *n = realloc(cp->fix, cp->nfix ? cp->nfix : 1);

			if (n) {
				cp->fix = n;
				cp->fixcap = cp->nfix;
			}
		}
	}
	c->h = h;
	c->func_of = func_of;
	c->ctx = ctx;
	c->use_log = 1;
	return c;
no:
	free(ch.f);
	free(ch.sig);
	free(ch.x);
	builder_fini(&b);
	ptd_calls_free(c);
	if (err)
		ptd__err(err, "cannot build the function-call segments");
	return NULL;
}

/* The whole view behind a view from a late part, built on first use. */
static const struct ptd_calls *full_view(const struct ptd_calls *cc)
{
	struct ptd_calls *c = (struct ptd_calls *)cc; /* built once, as the cache */

	if (!c->full && !c->full_tried) {
		c->full_tried = 1;
		/* (its error, when it fails, is the message) */
		c->full = calls_build(c->h, c->func_of, c->ctx, 1, CHUNK_SEGS);
		return c->full;
	}
	if (!c->full)
		ptd__err(-ptde_invalid, "cannot build the function-call segments before segment "
					"%" PRIu64 " (it failed before)", c->floor + 1);
	return c->full;
}

struct ptd_calls *ptd_calls_build(const struct ptd_history *h, ptd_func_of_fn func_of, void *ctx)
{
	struct ptd_calls *c = calls_suffix(h, func_of, ctx, SUFFIX_SEGS);

	return c ? c : calls_build(h, func_of, ctx, 1, CHUNK_SEGS);
}

struct ptd_calls *ptd__calls_build_suffix(const struct ptd_history *h, ptd_func_of_fn func_of,
					  void *ctx, uint64_t min_after)
{
	return calls_suffix(h, func_of, ctx, min_after);
}

int ptd__calls_suffix_info(const struct ptd_calls *c, uint64_t *floor)
{
	if (floor)
		*floor = c ? c->floor : 0;
	return c && c->full ? 1 : 0;
}

uint64_t ptd__calls_suffix_walked(const struct ptd_calls *c)
{
	return c ? c->walked_parts : 0;
}

struct ptd_calls *ptd__calls_build_items(const struct ptd_history *h, ptd_func_of_fn func_of,
					 void *ctx)
{
	return calls_build(h, func_of, ctx, 0, CHUNK_SEGS);
}

struct ptd_calls *ptd__calls_build_chunked(const struct ptd_history *h, ptd_func_of_fn func_of,
					   void *ctx, int use_log, int chunk)
{
	return calls_build(h, func_of, ctx, use_log, chunk < 0 ? 0 : chunk);
}

/* Whether a far transfer of @ps may end at the ip of one of @b's open
 * signal frames (a sigreturn: the part is counted by walking it). */
static int far_at_sig(const struct builder *b, const struct psum *ps)
{
	uint32_t i;
	size_t j;

	if (!b->nsig || !ps->nfar)
		return 0;
	if (ps->nfar > FAR_MAX)
		return 1;
	for (i = 0; i < ps->nfar; i++)
		for (j = 0; j < b->nsig; j++)
			if (ps->far[i] == b->sig[j].ip)
				return 1;
	return 0;
}

/*
 * The count from the part summaries: each part's count added to the
 * builder's (counting only) where it stands for the part (none of its far
 * transfers ends at an open signal frame's ip, the seam into it resolved
 * by the builder as walking would), the
 * others walked, then the last part walked.  Gaps cost nothing here: a
 * gap's segments do not depend on the frames open.  Returns 1 with
 * *@count, 0 when the summaries cannot serve, or an error.
 */
static int count_chained(const struct ptd_history *h, ptd_func_of_fn func_of, void *ctx,
			 uint64_t *count)
{
	struct builder b;
	const struct ptd_calllog *l;
	uint32_t k, q;
	int err;

	builder_init(&b, h, func_of, ctx, NULL);
	b.count_only = 1;
	walk_start(&b);
	l = b.log;
	if (!l || l->parts_bad || log_nparts(l) < 2 || log_part(l, 0)->off) {
		builder_fini(&b);
		return 0;
	}
	q = log_nparts(l) - 1;
	for (k = 0; k < q && !b.err; k++) {
		const struct psum *ps = log_part(l, k), *nx = log_part(l, k + 1);

		if (k && b.cur && !ps->cnt_bad && (ps->has_last || ps->pend_gap) &&
		    !far_at_sig(&b, ps) && pics_hold(&b, ps)) {
			if (!ps->first_gap)
				resolve(&b, ps->first_ip, b.pos.num);
			b.n += ps->cnt;
			b.cur = b.n;
			b.pos.num += ps->numbers;
			if (ps->pend_gap)
				b.pending = T_AFTER_GAP;
			else
				block_end(&b, &ps->last);
		} else {
			b.pos.phase = PH_LOG;
			b.pos.off = ps->off;
			b.pos.base = ps->base;
			b.stop_off = nx->off;
			b.stop_n = UINT64_MAX;
			while (!b.err && b.pos.phase == PH_LOG && b.pos.off < b.stop_off)
				step(&b);
		}
		b.pos.off = nx->off;
		b.pos.base = nx->base;
	}
	if (!b.err) {
		b.pos.phase = PH_LOG;
		b.stop_off = SIZE_MAX;
		b.stop_n = UINT64_MAX;
		walk_on(&b);
	}
	err = b.err;
	builder_fini(&b);
	if (err)
		return ptd__err(err, "cannot count the function-call segments");
	*count = b.n;
	return 1;
}

static int count_only(const struct ptd_history *h, ptd_func_of_fn func_of, void *ctx,
		      uint64_t *count, int use_log)
{
	struct builder b;
	int rc;

	if (count)
		*count = 0;
	if (!h || !count)
		return ptd__err(-ptde_invalid, "no history");
	if (use_log && (rc = count_chained(h, func_of, ctx, count)) != 0)
		return rc < 0 ? rc : 0;
	builder_init(&b, h, func_of, ctx, NULL);
	b.count_only = 1;
	b.use_log = use_log;
	walk_all(&b);
	builder_fini(&b);
	if (b.err)
		return ptd__err(b.err, "cannot count the function-call segments");
	*count = b.n;
	return 0;
}

int ptd_calls_count_only(const struct ptd_history *h, ptd_func_of_fn func_of, void *ctx,
			 uint64_t *count)
{
	return count_only(h, func_of, ctx, count, 1);
}

int ptd__calls_count_items(const struct ptd_history *h, ptd_func_of_fn func_of, void *ctx,
			   uint64_t *count)
{
	return count_only(h, func_of, ctx, count, 0);
}

uint64_t ptd_calls_count(const struct ptd_calls *c)
{
	return c ? c->n : 0;
}

const struct ptd_callseg *ptd_calls_get(const struct ptd_calls *c, uint64_t index)
{
	const struct cache_slot *sl;
	uint64_t j;

	if (!c || index < 1 || index > c->n)
		return NULL;
	if (c->segs)
		return &c->segs[index - 1];
	if (index <= c->floor)
		return (c = full_view(c)) ? ptd_calls_get(c, index) : NULL;
	j = chunk_of(c, index);
	sl = chunk_get(c, j);
	return sl ? &sl->segs[index - c->cps[j].nseg - 1] : NULL;
}

/* The last of @n segments with first <= @number (they are in order). */
static uint64_t last_starting(const struct ptd_callseg *s, uint64_t n, uint64_t number)
{
	uint64_t lo = 0, hi = n;

	while (hi - lo > 1) {
		uint64_t mid = lo + (hi - lo) / 2;

		if (s[mid].first <= number)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

const struct ptd_callseg *ptd_calls_find(const struct ptd_calls *c, uint64_t number)
{
	const struct ptd_callseg *s;
	const struct cache_slot *sl;
	uint64_t lo, hi, k;

	if (!c || !c->n)
		return NULL;
	if (c->segs) {
		if (number < c->segs[0].first)
			return NULL;
		s = &c->segs[last_starting(c->segs, c->n, number)];
		return number > s->last ? NULL : s;
	}
	if (c->floor && number < c->cps[0].first)
		return (c = full_view(c)) ? ptd_calls_find(c, number) : NULL;
	if (number < c->cps[0].first)
		return NULL;
	/* the last chunk whose first segment starts at or before @number */
	lo = 0;
	hi = c->ncp;
	while (hi - lo > 1) {
		uint64_t mid = lo + (hi - lo) / 2;

		if (c->cps[mid].first <= number)
			lo = mid;
		else
			hi = mid;
	}
	sl = chunk_get(c, lo);
	if (!sl)
		return NULL;
	k = last_starting(sl->segs, sl->n, number);
	s = &sl->segs[k];
	return number > s->last ? NULL : s;
}

int ptd_calls_min_level(const struct ptd_calls *c)
{
	return c ? c->min_level : 0;
}

size_t ptd__calls_bytes(const struct ptd_calls *c, size_t *snap, size_t *fix)
{
	size_t n, s = 0, f = 0;
	uint64_t i;

	if (!c)
		return 0;
	n = sizeof(*c) + (size_t)c->cpcap * sizeof(*c->cps) + c->adoptcap * sizeof(*c->adopt);
	if (c->segs)
		n += (size_t)c->n * sizeof(*c->segs);
	for (i = 0; i < c->ncp; i++) {
		s += c->cps[i].nsig * sizeof(struct sigframe) + c->cps[i].snaplen;
		f += c->cps[i].fixcap;
	}
	for (i = 0; i < CACHE_SLOTS; i++)
		n += (size_t)c->slot[i].cap * sizeof(struct ptd_callseg);
	if (c->memo)
		n += VIEW_MEMO_SLOTS * sizeof(*c->memo);
	if (c->full) {
		size_t fs = 0, ff = 0;

		n += ptd__calls_bytes(c->full, &fs, &ff) - fs - ff;
		s += fs;
		f += ff;
	}
	if (snap)
		*snap = s;
	if (fix)
		*fix = f;
	return n + s + f;
}

void ptd__calls_drop_cache(const struct ptd_calls *cc)
{
	struct ptd_calls *c = (struct ptd_calls *)cc; /* the cache only */
	int i;

	if (!c)
		return;
	for (i = 0; i < CACHE_SLOTS; i++) {
		free(c->slot[i].segs);
		memset(&c->slot[i], 0, sizeof(c->slot[i]));
	}
	free(c->memo);
	c->memo = NULL;
	ptd__calls_drop_cache(c->full);
}
