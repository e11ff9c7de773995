/*
 * Function-call segments of a history, as gdb's record
 * function-call-history shows them, built in one pass over the items from
 * the classes of the block ends (call, return, jump, syscall) and the
 * signal/gap items.  Segments of one function activation are linked
 * (prev_same/next_same) and point to their caller (up), which is what
 * finish, step/next frame checks and backtraces in the past need.  The
 * func_of callback is only asked about jump sources/targets and return
 * targets, memoized in a direct-mapped table.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "history/history.h"
#include "history/history_int.h"
#include "util/error.h"

#define MEMO_SLOTS (1u << 16)
#define MAX_CALLER_WALK 64

struct ptd_calls {
	struct ptd_callseg *segs;
	uint64_t n, cap;
	int min_level;
};

enum trans {
	T_NONE = 0,
	T_CALL,
	T_RET,
	T_JUMP,
	T_SYSCALL,
	T_AFTER_GAP,
};

struct sigframe {
	uint64_t ip;  /* interrupted (resume) ip */
	uint64_t seg; /* segment that was interrupted */
};

struct memo_ent {
	uint64_t key; /* addr + 1; 0 = empty */
	uint64_t entry;
};

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
	uint64_t *orph;
	size_t norph, orphcap;
	struct memo_ent *memo;
	int err;
	/* ptd_calls_count_only: segments are counted, not stored (segs is
	 * empty; cur is the count). */
	int count_only;
	/* Replay the history's call log where it has one (the tests turn
	 * it off to compare). */
	int use_log;
};

static struct ptd_callseg *seg(struct builder *b, uint64_t index)
{
	return index && !b->count_only ? &b->c->segs[index - 1] : NULL;
}

static uint64_t func(struct builder *b, uint64_t addr)
{
	struct memo_ent *e;
	uint64_t k = addr * 0x9e3779b97f4a7c15ull;

	if (!b->func_of)
		return 0;
	if (!b->memo)
		return b->func_of(b->ctx, addr);
	e = &b->memo[(k >> 40) & (MEMO_SLOTS - 1)];
	if (e->key != addr + 1) {
		e->key = addr + 1;
		e->entry = b->func_of(b->ctx, addr);
	}
	return e->entry;
}

static int push_orphan(struct builder *b, uint64_t s)
{
	if (b->norph == b->orphcap) {
		size_t cap = b->orphcap ? b->orphcap * 2 : 16;
		uint64_t *n = realloc(b->orph, cap * sizeof(*n));

		if (!n)
			return b->err = -ptde_nomem;
		b->orph = n;
		b->orphcap = cap;
	}
	b->orph[b->norph++] = s;
	return 0;
}

static uint64_t new_seg(struct builder *b, uint8_t how, uint64_t first, uint64_t ip, int level,
			uint64_t up, uint8_t up_is_ret, uint8_t up_is_tail)
{
	struct ptd_calls *c = b->c;
	struct ptd_callseg *s;

	if (b->count_only)
		return b->cur = ++c->n;
	if (c->n == c->cap) {
		uint64_t cap = c->cap ? c->cap * 2 : 64;
		struct ptd_callseg *n = realloc(c->segs, cap * sizeof(*n));

		if (!n) {
			b->err = -ptde_nomem;
			return 0;
		}
		c->segs = n;
		c->cap = cap;
	}
	s = &c->segs[c->n++];
	memset(s, 0, sizeof(*s));
	s->index = c->n;
	s->first = first;
	s->last = first - 1;
	s->ip = ip;
	s->level = level;
	s->up = up;
	s->up_is_ret = up_is_ret;
	s->up_is_tail = up_is_tail;
	s->instance = s->index;
	s->how = how;
	if (!up && how != PTD_SEG_GAP)
		push_orphan(b, s->index);
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
	seg(b, prev)->next_same = s;
}

/* The segment whose up is the real caller: tail-call links skipped. */
static struct ptd_callseg *frame_root(struct builder *b, struct ptd_callseg *s)
{
	int i;

	for (i = 0; s->up_is_tail && s->up && i < 1 << 20; i++)
		s = seg(b, s->up);
	return s;
}

static void do_return(struct builder *b, uint64_t target, uint64_t number)
{
	struct ptd_callseg *cur = seg(b, b->cur);
	struct ptd_callseg *inst = seg(b, cur->instance);
	struct ptd_callseg *root = frame_root(b, cur);
	uint64_t up = root->up, cand;
	uint64_t ft;
	int i, level;
	size_t k, j;

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
			cur = seg(b, ci); /* the array may have moved */
			cur->up = b->cur;
			cur->up_is_ret = 1;
			cur->up_is_tail = 0;
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
	for (k = 0, j = 0; k < b->norph; k++) {
		struct ptd_callseg *o = seg(b, b->orph[k]);

		if (o->index != b->cur && o->level == level && !o->up) {
			o->up = b->cur;
			o->up_is_ret = 1;
			continue;
		}
		b->orph[j++] = b->orph[k];
	}
	b->norph = j;
}

/* A call to the next instruction (PIC: call 1f; 1: pop) is no call;
 * direct calls are 5 bytes. */
static int pic_call(struct builder *b, uint64_t target)
{
	int len;

	if (target != b->from_ip + 5)
		return 0;
	len = ptd__history_insn_len_mode(b->h, b->from_ip, b->from_mode, NULL);
	ptd_clear_error();
	return len == 5;
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
			uint64_t anc = 0, sw, cand = cur->up;
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
			sw = new_seg(b, PTD_SEG_SWITCH, number, target, cur->level, cur->up,
				     cur->up_is_ret, cur->up_is_tail);
			if (sw)
				seg(b, sw)->unwound_to = anc;
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
		 * it whose function is the one we resume in. */
		for (k = 0; bg && fb && k < MAX_CALLER_WALK; k++) {
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
		if (bg && fb) {
			continue_instance(b, PTD_SEG_AFTER_GAP, number, target, bg);
		} else {
			new_seg(b, PTD_SEG_AFTER_GAP, number, target, g->level, g->up,
				g->up_is_ret, g->up_is_tail);
		}
		b->before_gap = 0;
		break;
	}
	}
}

static void start_if_none(struct builder *b, uint64_t number, uint64_t ip)
{
	if (!b->cur)
		new_seg(b, PTD_SEG_START, number, ip, 0, 0, 0, 0);
}

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


enum {
	R_SKIP = 0,  /* uv n: instructions of blocks that start nothing */
	R_BLOCK = 1, /* iclass, flags, uv ip, uv end_ip - ip, uv ninsn */
	R_GAP = 2,
	R_EVENT = 3, /* reason, uv ip (signal delivery and sigreturn only) */
};

struct ptd_funcs {
	ptd_func_of_fn fn;
	void *ctx;
	pthread_mutex_t lock;
	uint64_t id; /* tells the thread memos apart (see log_func) */
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

struct ptd_calllog {
	const struct ptd_funcs *funcs;
	uint8_t *bytes;
	size_t n, cap;
	/* The newest block, not written yet: whether it starts anything
	 * depends on the item after it. */
	int held;
	struct ptd_block hb;
	/* hb may go into a skip: the transition into it starts nothing. */
	int held_skippable;
	uint64_t skip;
	/* No item (not even an ignored event) came after hb. */
	int tail_block;
	size_t last_blk_off; /* of the newest written R_BLOCK, when it is the newest record */
	int last_is_blk;
	int err;
};

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
	if (!l)
		return;
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
static uint64_t log_func(struct ptd_calllog *l, uint64_t addr)
{
	struct memo_ent *e;
	uint64_t k = addr * 0x9e3779b97f4a7c15ull, r;
	struct ptd_funcs *f = (struct ptd_funcs *)l->funcs;

	if (tl.id != f->id) {
		pthread_once(&tl_once, tl_init);
		if (!tl.ent) {
			tl.ent = malloc(MEMO_SLOTS * sizeof(*tl.ent));
			if (tl.ent)
				pthread_setspecific(tl_key, tl.ent);
		}
		if (!tl.ent) {
			pthread_mutex_lock(&f->lock);
			r = f->fn(f->ctx, addr);
			pthread_mutex_unlock(&f->lock);
			return r;
		}
		memset(tl.ent, 0, MEMO_SLOTS * sizeof(*tl.ent));
		tl.id = f->id;
	}
	e = &tl.ent[(k >> 40) & (MEMO_SLOTS - 1)];
	if (e->key != addr + 1) {
		pthread_mutex_lock(&f->lock);
		r = f->fn(f->ctx, addr);
		pthread_mutex_unlock(&f->lock);
		e->key = addr + 1;
		e->entry = r;
	}
	return e->entry;
}

static int log_reserve(struct ptd_calllog *l, size_t more)
{
	if (l->n + more > l->cap) {
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

static int log_flush_skip(struct ptd_calllog *l)
{
	uint8_t *p;

	if (!l->skip)
		return 0;
	if (log_reserve(l, 11))
		return l->err;
	p = l->bytes + l->n;
	*p++ = R_SKIP;
	p = log_uv(p, l->skip);
	l->n = (size_t)(p - l->bytes);
	l->skip = 0;
	l->last_is_blk = 0;
	return 0;
}

/* Writes the held block in full. */
static int log_write_held(struct ptd_calllog *l)
{
	uint8_t *p;

	if (!l->held)
		return 0;
	if (log_flush_skip(l) || log_reserve(l, 3 + 3 * 10))
		return l->err;
	l->last_blk_off = l->n;
	l->last_is_blk = 1;
	p = l->bytes + l->n;
	*p++ = R_BLOCK;
	*p++ = l->hb.iclass;
	*p++ = l->hb.flags;
	p = log_uv(p, l->hb.ip);
	p = log_uv(p, l->hb.end_ip - l->hb.ip);
	p = log_uv(p, l->hb.ninsn);
	l->n = (size_t)(p - l->bytes);
	l->held = 0;
	return 0;
}

/* Whether going from block @x to @next_ip starts no segment and leaves
 * nothing pending, by the rules of on_block() and resolve(). */
static int log_boring(struct ptd_calllog *l, const struct ptd_block *x, uint64_t next_ip)
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

int ptd__calllog_block(struct ptd_calllog *l, const struct ptd_block *b)
{
	int skippable = 0;

	if (l->err)
		return l->err;
	if (l->held) {
		skippable = log_boring(l, &l->hb, b->ip);
		if (skippable && l->held_skippable)
			l->skip += l->hb.ninsn;
		else if (log_write_held(l))
			return l->err;
		l->held = 0;
	}
	l->hb = *b;
	l->held = 1;
	l->held_skippable = skippable;
	l->tail_block = 1;
	return 0;
}

int ptd__calllog_gap(struct ptd_calllog *l)
{
	if (l->err || log_write_held(l) || log_flush_skip(l) || log_reserve(l, 1))
		return l->err;
	l->bytes[l->n++] = R_GAP;
	l->tail_block = 0;
	l->last_is_blk = 0;
	return 0;
}

int ptd__calllog_event(struct ptd_calllog *l, unsigned kind, uint64_t ip)
{
	uint8_t *p;

	if (l->err)
		return l->err;
	l->tail_block = 0;
	/* The builder ignores other events: so does the log. */
	if (kind != PTD_EV_SIGNAL && kind != PTD_EV_SIGRETURN)
		return 0;
	if (log_write_held(l) || log_flush_skip(l) || log_reserve(l, 12))
		return l->err;
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
	if (l->last_is_blk)
		l->bytes[l->last_blk_off + 2] |= flags;
}

int ptd__calllog_ends_in_block(const struct ptd_calllog *l)
{
	return l && l->tail_block && (l->held || l->last_is_blk);
}

int ptd__calllog_append(struct ptd_calllog *dst, struct ptd_calllog *src)
{
	if (dst->err || src->err)
		return dst->err = dst->err ? dst->err : src->err;
	/* The seam: dst's newest block is written in full, so replaying
	 * resolves its transition against src's first item as the builder
	 * would. */
	if (log_write_held(dst) || log_flush_skip(dst) || log_flush_skip(src))
		return dst->err = dst->err ? dst->err : src->err;
	if (src->n) {
		if (log_reserve(dst, src->n))
			return dst->err;
		memcpy(dst->bytes + dst->n, src->bytes, src->n);
		if (src->last_is_blk)
			dst->last_blk_off = dst->n + src->last_blk_off;
		dst->last_is_blk = src->last_is_blk;
		dst->n += src->n;
	}
	dst->held = src->held;
	dst->hb = src->hb;
	/* The first block of src was written in full; its successor's
	 * skippability was decided within src. */
	dst->held_skippable = src->held_skippable;
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
	if (l->held) {
		l->held = 0;
		log_flush_skip(l);
	} else if (l->last_is_blk) {
		l->n = l->last_blk_off;
		l->last_is_blk = 0;
	}
	l->tail_block = 0;
}

/* Replays @l through @b: the same calls of the item handlers as walking
 * the items it stands for.  Returns the number after the last one. */
static uint64_t replay(struct builder *b, const struct ptd_calllog *l)
{
	const uint8_t *p = l->bytes, *end = l->bytes + l->n;
	uint64_t num = 1, v;
	struct ptd_item it;

	memset(&it, 0, sizeof(it));
	while (p < end && !b->err) {
		uint8_t tag = *p++;

		switch (tag) {
		case R_SKIP:
			p = log_get_uv(p, end, &v);
			if (!b->count_only && b->cur)
				seg(b, b->cur)->last = num + v - 1;
			b->pending = T_NONE;
			num += v;
			break;
		case R_BLOCK:
			if (end - p < 2) {
				b->err = -ptde_internal;
				break;
			}
			it.kind = PTD_ITEM_BLOCK;
			it.number = num;
			it.block.iclass = *p++;
			it.block.flags = *p++;
			p = log_get_uv(p, end, &it.block.ip);
			p = log_get_uv(p, end, &v);
			it.block.end_ip = it.block.ip + v;
			p = log_get_uv(p, end, &v);
			it.block.ninsn = (uint32_t)v;
			walk_item(b, &it);
			num += it.block.ninsn;
			break;
		case R_GAP:
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
			p = log_get_uv(p, end, &it.block.ip);
			walk_item(b, &it);
			break;
		default:
			b->err = -ptde_internal;
			break;
		}
	}
	if (l->skip && !b->err) { /* before the held block, not written yet */
		if (!b->count_only && b->cur)
			seg(b, b->cur)->last = num + l->skip - 1;
		b->pending = T_NONE;
		num += l->skip;
	}
	if (l->held && !b->err) {
		memset(&it, 0, sizeof(it));
		it.kind = PTD_ITEM_BLOCK;
		it.number = num;
		it.block = l->hb;
		walk_item(b, &it);
		num += l->hb.ninsn;
	}
	return num;
}

/* Runs @b over every item of its history and the tail: the call log
 * where the history has one, then the items after it. */
static void walk(struct builder *b)
{
	const struct ptd_history *h = b->h;
	uint64_t i = 0, n = ptd_history_nitems(h);
	const struct ptd_calllog *l = b->use_log ? ptd__history_calllog(h, &i) : NULL;

	/* The log's jumps were classified with its own func_of: only the
	 * same one gives the same segments. */
	if (l && (l->funcs ? l->funcs->fn != b->func_of || l->funcs->ctx != b->ctx : !!b->func_of))
		l = NULL;
	if (l)
		replay(b, l);
	else
		i = 0;

	/* A chunk of decoded items at a time: no lookup per item. */
	while (i < n && !b->err) {
		const struct ptd_item *items;
		uint32_t k, m;
		int rc = ptd__history_items_at(h, i, &items, &m);

		if (rc <= 0) {
			b->err = rc < 0 ? rc : -ptde_internal;
			break;
		}
		for (k = 0; k < m && !b->err; k++)
			walk_item(b, &items[k]);
		i += m;
	}
	if (!b->err && ptd_history_tail(h)) {
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
	free(b->sig);
	free(b->orph);
	free(b->memo);
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
	if (func_of) /* optional: NULL only costs speed */
		b->memo = calloc(MEMO_SLOTS, sizeof(*b->memo));
}

static struct ptd_calls *calls_build(const struct ptd_history *h, ptd_func_of_fn func_of,
				     void *ctx, int use_log)
{
	struct builder b;
	struct ptd_calls *c;
	uint64_t k;

	if (!h) {
		ptd__err(-ptde_invalid, "no history");
		return NULL;
	}
	c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	builder_init(&b, h, func_of, ctx, c);
	b.use_log = use_log;
	walk(&b);
	if (b.err) {
		ptd__err(b.err, "cannot build the function-call segments");
		ptd_calls_free(c);
		return NULL;
	}
	c->min_level = 0;
	for (k = 0; k < c->n; k++)
		if (k == 0 || c->segs[k].level < c->min_level)
			c->min_level = c->segs[k].level;
	return c;
}

struct ptd_calls *ptd_calls_build(const struct ptd_history *h, ptd_func_of_fn func_of, void *ctx)
{
	return calls_build(h, func_of, ctx, 1);
}

struct ptd_calls *ptd__calls_build_items(const struct ptd_history *h, ptd_func_of_fn func_of,
					 void *ctx)
{
	return calls_build(h, func_of, ctx, 0);
}

static int count_only(const struct ptd_history *h, ptd_func_of_fn func_of, void *ctx,
		      uint64_t *count, int use_log)
{
	struct builder b;
	struct ptd_calls c;

	if (count)
		*count = 0;
	if (!h || !count)
		return ptd__err(-ptde_invalid, "no history");
	memset(&c, 0, sizeof(c));
	builder_init(&b, h, func_of, ctx, &c);
	b.count_only = 1;
	b.use_log = use_log;
	walk(&b);
	if (b.err)
		return ptd__err(b.err, "cannot count the function-call segments");
	*count = c.n;
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

void ptd_calls_free(struct ptd_calls *c)
{
	if (!c)
		return;
	free(c->segs);
	free(c);
}

uint64_t ptd_calls_count(const struct ptd_calls *c)
{
	return c ? c->n : 0;
}

const struct ptd_callseg *ptd_calls_get(const struct ptd_calls *c, uint64_t index)
{
	if (!c || index < 1 || index > c->n)
		return NULL;
	return &c->segs[index - 1];
}

const struct ptd_callseg *ptd_calls_find(const struct ptd_calls *c, uint64_t number)
{
	uint64_t lo, hi;

	if (!c || !c->n || number < c->segs[0].first)
		return NULL;
	/* last segment with first <= number */
	lo = 0;
	hi = c->n;
	while (hi - lo > 1) {
		uint64_t mid = lo + (hi - lo) / 2;

		if (c->segs[mid].first <= number)
			lo = mid;
		else
			hi = mid;
	}
	if (number > c->segs[lo].last)
		return NULL;
	return &c->segs[lo];
}

int ptd_calls_min_level(const struct ptd_calls *c)
{
	return c ? c->min_level : 0;
}
