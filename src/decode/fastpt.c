/*
 * The PT decode fast path (see fastpt.h): a packet walker over one PSB
 * segment, a cache of straight-line code runs, and a cache of the paths
 * short TNT packets take through them.  Everything it does not know how
 * libipt handles makes the segment "not handled" (returns 0) before any
 * block leaves, so the caller's libipt decode of that segment is the
 * answer there: the result is libipt's either way.
 *
 * What libipt's block decoder does that this file mirrors:
 *  - a block ends after every branch (conditional, taken or not; direct
 *    and indirect jumps and calls, with end_on_jump/end_on_call; returns);
 *  - a conditional branch or a compressed return takes the next TNT bit,
 *    an indirect branch or an uncompressed return the next TIP; anything
 *    else in that place is a decode error (left to libipt);
 *  - near calls push the return address on a 64-entry circular stack
 *    that a compressed return (TNT bit 1) pops;
 *  - IP filtering (ptd_fastpt_segment_edge): libipt proceeds to a TIP.PGD's
 *    ip up to the next branch that needs trace.  Reached by a direct call
 *    or jump (its target the ip), tracing stops there and the decoder is
 *    at that ip; at an indirect call (any ip), the call ends its block,
 *    pushes its return address and the decoder stays after it (libipt's
 *    "disable resume ip").  TIP.PGE at the decoder's ip "resumes"; pt.c
 *    gives a "disabled" gap for any other (gdb's rule, when asked for
 *    and the history has an item), also for a segment that starts with
 *    tracing disabled, from where the carry says it stopped.  A TIP.PGD
 *    without ip binds to a system call (user-only tracing): its block
 *    ends with it, flagged PTD_BLK_SYSCALL, and the decoder is after it.
 *    A segment that stays disabled through (PSB+ without FUP, no
 *    TIP.PGE) gives nothing.  A FUP and TIP.PGD without ip (an
 *    asynchronous disable) that end the trace: libipt proceeds to the
 *    FUP's ip in the run it is in.  Every other binding (a conditional
 *    branch, a return, an ip inside a run, no ip elsewhere) is left to
 *    libipt;
 *  - at the end of the segment's bytes the decoder runs on through linear
 *    code (direct jumps and calls need no trace) until it needs trace;
 *    pt.c cuts that tail at the next segment's start ip, so it is cut
 *    here the same way (the last occurrence of the ip in the tail).
 */
#include "decode/fastpt.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "disasm/disasm.h"
#include "history/history_int.h"
#include "util/error.h"

/* Kinds of the branch that ends a straight-line run. */
enum lkind {
	LK_COND,  /* jcc: a TNT bit */
	LK_JMP,	  /* direct jmp: no trace */
	LK_CALL,  /* direct call: no trace, pushes */
	LK_ICALL, /* indirect call: TIP, pushes */
	LK_IJMP,  /* indirect jmp: TIP */
	LK_RET,	  /* near ret: TNT bit 1 (pops) or TIP */
	LK_SYS,	  /* syscall, sysenter, int 0x80: TIP.PGD without ip (user-only tracing) */
	LK_BAIL,  /* anything libipt is left to handle */
};

/* One straight-line run: [ip, end_ip] with ninsn instructions, the last
 * one a branch of kind @kind and length @len. */
struct line {
	/* ip (the key; 0: empty slot), end_ip, ninsn and cls as the block
	 * of the whole run (blk, flags 0), which the walk copies whole. */
	union {
		struct ptd_block blk;
		struct {
			uint64_t ip, end_ip;
			uint32_t ninsn;
			uint8_t cls, blk_flags;
		};
	};
	uint64_t target; /* direct branch target */
	/* The block of the whole run as the history encodes it
	 * (ptd__history_block_code), 0 if not known. */
	uint64_t code;
	/* Its instructions' offsets from ip: ioffs[offs - 1 ...], ninsn of
	 * them (0: not read yet; see run_offsets). */
	uint32_t offs;
	uint32_t epoch; /* 0: inside file mappings (kept); else the decode call it was read in */
	/* The runs that follow it (slot + 1 in the table, 0: not known yet):
	 * [0] after the branch, [1] at its target; saves the hash lookup of
	 * the next run on the way (the table's growth forgets them). */
	uint32_t succ[2];
	uint8_t len, kind;
	/* The call log's verdict on the same two edges (ptd__calllog_boring:
	 * 0 not known yet, 1 starts something, 2 starts nothing), for the log
	 * whose func_of is fp->log_id. */
	uint8_t lb[2];
} __attribute__((aligned(64)));
_Static_assert(sizeof(struct line) == 64, "a run is one cache line");

/*
 * A TNT path: from @ip, the next @m TNT bits (value @v, the first one the
 * highest) lead through conditional branches and direct jumps only (no
 * stack, no TIP) to @end_ip after using @k of them (k < m: a run that
 * needs something else came first); the blocks on the way are
 * pool[first, first + count).
 */
struct path {
	uint64_t ip; /* key with m and v; 0: empty slot */
	uint64_t end_ip;
	uint32_t first, epoch; /* epoch: as struct line, the newest of its runs */
	uint8_t m, v, k, count;
};

/* Bits a path covers at most (a TNT-8 packet's worth) and its blocks. */
#define PATH_BITS 6
#define PATH_BLOCKS 32

/* Longest straight-line run taken (libipt's pt_block counts in 16 bits). */
#define LINE_MAX_INSN 30000
/* Blocks without consuming trace before the segment is left to libipt
 * (its stuck detection, an endless loop of direct jumps). */
#define NOTRACE_MAX 4096

#define RSTACK 64

struct ptd_fastpt {
	struct ptd_image *img;
	uint64_t gen;
	uint32_t epoch;
	/* file mappings [lo, hi) of the image at gen */
	uint64_t (*maps)[2];
	size_t nmaps;

	struct line *lines;
	size_t lmask, nlines;

	/* TNT paths: a table of struct path and the blocks they give. */
	struct path *paths;
	size_t pmask, npaths;
	struct ptd_block *pool;
	size_t npool, cappool;

	/* Instruction offsets of runs (struct line's offs), read when a
	 * trace's tail is cut inside them. */
	uint32_t *ioffs;
	size_t nioffs, capioffs;

	/* Output of the last segment; oedge[i]: the call log's verdict on
	 * going from out[i] to out[i + 1] (struct line's lb), 0 if not known;
	 * ocode[i]: out[i]'s ptd__history_block_code or 0.  oedge[ohw...]
	 * are 0, and so are oedge[nout...] while a segment is decoded: a
	 * block is pushed without a byte store (which the compiler must take
	 * as one that may change any field of fp, to be loaded again). */
	struct ptd_block *out;
	uint8_t *oedge;
	uint64_t *ocode;
	size_t nout, capout, ohw;
	/* The call log the blocks go to (ptd_fastpt_set_log), or NULL. */
	struct ptd_calllog *log;
	uint64_t log_id;

	/* Return stack, kept across the segments of a run; rsl[i]: the run
	 * returned to (its slot in lines + 1, with RSL_RUN) when the call's
	 * run had its link [0] already, else the run of the call that pushed
	 * rs[i] (its slot + 1), whose link [0] leads there; 0: not known.
	 * Saves a hash lookup per return, and the first saves the load of the
	 * call's run too; cleared when the slots move. */
	uint64_t rs[RSTACK];
	uint32_t rsl[RSTACK];
	unsigned rtop, rn;

	struct ptd_fastpt_stats st;
};

static int forced = -1, env_on = -1;
/* TNT paths: off unless PTDBG_FASTPT_PATHS=1 or a test turns them on.
 * On the bench traces they cost more than they save: calls and returns,
 * which end a path, come every few blocks, so most paths are one or two
 * blocks long and the extra lookup does not pay, the less so since the
 * runs link the runs that follow them (struct line's succ).  Counting,
 * CPU time, best of 3: 16 MB synthesized 0.224 s without, 0.289 s with;
 * 4 MB real-style 0.048 s without, 0.053 s with. */
static int use_paths = -1;

void ptd__fastpt_paths(int on)
{
	use_paths = on;
}

void ptd__fastpt_force(int on)
{
	forced = on;
}

int ptd__fastpt_enabled(void)
{
	if (forced >= 0)
		return forced;
	if (env_on < 0) {
		const char *e = getenv("PTDBG_DECODE");

		env_on = !(e && !strcmp(e, "libipt"));
	}
	return env_on;
}

static struct ptd_fastpt_stats totals;

/* PTDBG_FASTPT_STATS=1: the totals on stderr at exit (tests, tuning). */
static void print_totals(void)
{
	fprintf(stderr,
		"fastpt: %llu segments handled, %llu left to libipt; %llu straight-line runs "
		"decoded, %llu found cached; went on after libipt %llu times, %llu runs decoded "
		"again from an earlier PSB\n",
		(unsigned long long)totals.segs_fast, (unsigned long long)totals.segs_refused,
		(unsigned long long)totals.lines, (unsigned long long)totals.line_hits,
		(unsigned long long)totals.resumes, (unsigned long long)totals.redos);
}

struct ptd_fastpt *ptd_fastpt_alloc(struct ptd_image *img)
{
	static int atexit_done;
	struct ptd_fastpt *fp = calloc(1, sizeof(*fp));

	if (!__atomic_exchange_n(&atexit_done, 1, __ATOMIC_RELAXED) && getenv("PTDBG_FASTPT_STATS"))
		atexit(print_totals);

	if (!fp)
		return NULL;
	fp->img = img;
	fp->gen = UINT64_MAX; /* nothing known yet */
	fp->epoch = 1;
	return fp;
}

void ptd__fastpt_totals(struct ptd_fastpt_stats *st, int reset)
{
	uint64_t *d = (uint64_t *)st, *s = (uint64_t *)&totals;
	size_t i;

	for (i = 0; i < sizeof(totals) / sizeof(uint64_t); i++)
		d[i] = reset ? __atomic_exchange_n(&s[i], 0, __ATOMIC_RELAXED)
			     : __atomic_load_n(&s[i], __ATOMIC_RELAXED);
}

void ptd_fastpt_free(struct ptd_fastpt *fp)
{
	uint64_t *s, *d = (uint64_t *)&totals;
	size_t i;

	if (!fp)
		return;
	s = (uint64_t *)&fp->st;
	for (i = 0; i < sizeof(totals) / sizeof(uint64_t); i++)
		__atomic_fetch_add(&d[i], s[i], __ATOMIC_RELAXED);
	free(fp->maps);
	free(fp->lines);
	free(fp->paths);
	free(fp->pool);
	free(fp->ioffs);
	free(fp->out);
	free(fp->oedge);
	free(fp->ocode);
	free(fp);
}

unsigned ptd__fastpt_stack_depth(const struct ptd_fastpt *fp)
{
	return fp ? fp->rn : 0;
}

struct ptd_image *ptd__fastpt_img(const struct ptd_fastpt *fp)
{
	return fp ? fp->img : NULL;
}

void ptd_fastpt_stats(const struct ptd_fastpt *fp, struct ptd_fastpt_stats *st)
{
	if (fp && st)
		*st = fp->st;
	else if (st)
		memset(st, 0, sizeof(*st));
}

/* Forgets every cached run (a mapping was added). */
static void reset_caches(struct ptd_fastpt *fp)
{
	size_t i, n = ptd_image_nmaps(fp->img);

	if (fp->lines)
		memset(fp->lines, 0, (fp->lmask + 1) * sizeof(*fp->lines));
	fp->nlines = 0;
	memset(fp->rsl, 0, sizeof(fp->rsl));
	if (fp->paths)
		memset(fp->paths, 0, (fp->pmask + 1) * sizeof(*fp->paths));
	fp->npaths = 0;
	fp->npool = 0;
	fp->nioffs = 0;
	free(fp->maps);
	fp->maps = n ? calloc(n, sizeof(*fp->maps)) : NULL;
	fp->nmaps = fp->maps ? n : 0;
	for (i = 0; i < fp->nmaps; i++) {
		const struct ptd_image_map *m = ptd_image_map(fp->img, i);

		fp->maps[i][0] = m->vaddr;
		fp->maps[i][1] = m->vaddr + m->size;
	}
	fp->gen = ptd_image_generation(fp->img);
}

void ptd_fastpt_begin(struct ptd_fastpt *fp)
{
	if (!fp)
		return;
	if (fp->gen != ptd_image_generation(fp->img))
		reset_caches(fp);
	/* Runs read through the callback are read again. */
	if (++fp->epoch == 0)
		fp->epoch = 1;
}

/* Is [lo, hi) inside one file mapping? */
static int in_file(const struct ptd_fastpt *fp, uint64_t lo, uint64_t hi)
{
	size_t i;

	for (i = 0; i < fp->nmaps; i++)
		if (lo >= fp->maps[i][0] && hi <= fp->maps[i][1])
			return 1;
	return 0;
}

static inline size_t lhash(uint64_t ip)
{
	return (size_t)((ip * 0x9e3779b97f4a7c15ull) >> 40);
}

static int grow_lines(struct ptd_fastpt *fp)
{
	size_t n = fp->lines ? (fp->lmask + 1) * 2 : 4096, i;
	/* (each run in one cache line, not two: the decode goes from run to
	 * run, and the table does not fit in the first-level cache) */
	struct line *nl = aligned_alloc(64, n * sizeof(*nl)), *old = fp->lines;

	if (!nl)
		return -ptde_nomem;
	memset(nl, 0, n * sizeof(*nl));
	for (i = 0; old && i <= fp->lmask; i++) {
		size_t h;

		if (!old[i].ip)
			continue;
		for (h = lhash(old[i].ip) & (n - 1); nl[h].ip; h = (h + 1) & (n - 1))
			;
		nl[h] = old[i];
		nl[h].succ[0] = nl[h].succ[1] = 0; /* (slots moved) */
	}
	free(old);
	fp->lines = nl;
	fp->lmask = n - 1;
	memset(fp->rsl, 0, sizeof(fp->rsl));
	return 0;
}

/* Decodes the straight-line run at @ip into @l. */
static void build_line(struct ptd_fastpt *fp, uint64_t ip, struct line *l)
{
	uint64_t at = ip;
	uint32_t n = 0;

	memset(&l->blk, 0, sizeof(l->blk));
	l->ip = ip;
	l->offs = 0;
	l->succ[0] = l->succ[1] = 0;
	l->lb[0] = l->lb[1] = 0;
	l->kind = LK_BAIL;
	l->cls = PTD_IC_OTHER;
	l->target = 0;
	l->len = 0;
	for (;;) {
		uint8_t b[16];
		struct ptd_insn_info in;
		int r = ptd_image_read(fp->img, at, b, sizeof(b));

		if (r <= 0 || ptd_disasm_decode_mode(b, (size_t)r, at, 0, &in) < 0)
			break; /* unmapped or undecodable: libipt's error to report */
		n++;
		l->end_ip = at;
		l->len = in.len;
		l->cls = in.iclass;
		if (in.iclass == PTD_IC_OTHER) {
			if (n >= LINE_MAX_INSN || at + in.len < at)
				break;
			at += in.len;
			continue;
		}
		switch (in.iclass) {
		case PTD_IC_COND_JUMP:
			l->kind = LK_COND;
			l->target = in.target;
			break;
		case PTD_IC_JUMP:
			l->kind = (in.flags & PTD_INSN_INDIRECT) ? LK_IJMP : LK_JMP;
			l->target = in.target;
			break;
		case PTD_IC_CALL:
			l->kind = (in.flags & PTD_INSN_INDIRECT) ? LK_ICALL : LK_CALL;
			l->target = in.target;
			/* A call to the next instruction (getting the pc) is
			 * not pushed by libipt: leave it to libipt. */
			if (l->kind == LK_CALL && in.target == at + in.len)
				l->kind = LK_BAIL;
			break;
		case PTD_IC_RET:
			l->kind = LK_RET;
			break;
		case PTD_IC_FAR_CALL:
			/* (a system call: with user-only tracing it disables
			 * tracing; other far transfers are left to libipt) */
			if (in.flags & PTD_INSN_SYSCALL)
				l->kind = LK_SYS;
			break;
		default:
			break; /* far transfers: events */
		}
		break;
	}
	if (l->kind == LK_BAIL)
		n = 0;
	l->ninsn = n;
	l->epoch = n && in_file(fp, ip, l->end_ip + l->len) ? 0 : fp->epoch;
	l->code = 0;
	if (n) {
		struct ptd_block x = {0};

		x.ip = ip;
		x.end_ip = l->end_ip;
		x.ninsn = n;
		x.iclass = l->cls;
		l->code = ptd__history_block_code(&x);
	}
	fp->st.lines++;
}

/* What line_at gives when the cache cannot grow (thread-local: the
 * fast path runs in several threads). */
static __thread struct line bail_line;

/* The straight-line run at @ip (cached). */
static inline const struct line *line_at(struct ptd_fastpt *fp, uint64_t ip)
{
	size_t h;
	struct line *l;

	if (fp->lines) {
		for (h = lhash(ip) & fp->lmask; fp->lines[h].ip; h = (h + 1) & fp->lmask) {
			l = &fp->lines[h];
			if (l->ip != ip)
				continue;
			if (l->epoch && l->epoch != fp->epoch)
				build_line(fp, ip, l);
			else
				fp->st.line_hits++;
			return l;
		}
	}
	if ((fp->nlines + 1) * 2 > (fp->lines ? fp->lmask + 1 : 0)) {
		if (grow_lines(fp) < 0) {
			/* no memory for the cache: not handled */
			memset(&bail_line, 0, sizeof(bail_line));
			bail_line.kind = LK_BAIL;
			return &bail_line;
		}
	}
	for (h = lhash(ip) & fp->lmask; fp->lines[h].ip; h = (h + 1) & fp->lmask)
		;
	l = &fp->lines[h];
	build_line(fp, ip, l);
	fp->nlines++;
	return l;
}

/*
 * The run at @ip that follows run @l on its edge @e (see struct line's
 * succ), through the link when it is known.
 */
static __attribute__((noinline)) const struct line *link_line(struct ptd_fastpt *fp,
								const struct line *l, unsigned e,
								uint64_t ip)
{
	const struct line *n;
	size_t at;
	struct line *tab;

	if (l->succ[e])
		return line_at(fp, ip); /* (read through the callback: again) */
	at = (size_t)(l - fp->lines);
	tab = fp->lines;
	n = line_at(fp, ip);
	/* (not when the table grew: l moved; nor for the out-of-memory run) */
	if (fp->lines == tab && n != &bail_line)
		fp->lines[at].succ[e] = (uint32_t)(n - fp->lines) + 1;
	return n;
}

/* (the link's way inline, the rest in link_line; the hits counted in
 * *@hits, a local of the caller's, added to the stats at the end: not a
 * store into fp per block) */
static inline __attribute__((always_inline)) const struct line *
next_line(struct ptd_fastpt *fp, const struct line *l, unsigned e, uint64_t ip, uint64_t *hits)
{
	uint32_t x = l->succ[e];

	if (__builtin_expect(x != 0, 1)) {
		const struct line *n = &fp->lines[x - 1];

		if (__builtin_expect(!n->epoch || n->epoch == fp->epoch, 1)) {
			++*hits;
			return n;
		}
	}
	return link_line(fp, l, e, ip);
}

static inline size_t phash(uint64_t ip, unsigned m, unsigned v)
{
	return lhash(ip ^ ((uint64_t)(m << 8 | v) << 52));
}

static int grow_paths(struct ptd_fastpt *fp)
{
	size_t n = fp->paths ? (fp->pmask + 1) * 2 : 4096, i;
	struct path *np = calloc(n, sizeof(*np)), *old = fp->paths;

	if (!np)
		return -ptde_nomem;
	for (i = 0; old && i <= fp->pmask; i++) {
		size_t h;

		if (!old[i].ip)
			continue;
		for (h = phash(old[i].ip, old[i].m, old[i].v) & (n - 1); np[h].ip; h = (h + 1) & (n - 1))
			;
		np[h] = old[i];
	}
	free(old);
	fp->paths = np;
	fp->pmask = n - 1;
	return 0;
}

/* Follows the @m bits @v from @ip through the cached runs into @pa. */
static void build_path(struct ptd_fastpt *fp, uint64_t ip, unsigned m, unsigned v, struct path *pa)
{
	uint64_t cur = ip;
	unsigned left = m, count = 0;
	uint32_t epoch = 0;

	pa->ip = ip;
	pa->m = (uint8_t)m;
	pa->v = (uint8_t)v;
	pa->k = 0;
	pa->first = (uint32_t)fp->npool;
	while (left && cur && count < PATH_BLOCKS) {
		const struct line *l = line_at(fp, cur);
		struct ptd_block *b;

		if (l->kind != LK_COND && l->kind != LK_JMP)
			break;
		if (fp->npool == fp->cappool) {
			size_t nc = fp->cappool ? fp->cappool * 2 : 4096;
			struct ptd_block *p = nc < UINT32_MAX ? realloc(fp->pool, nc * sizeof(*p)) : NULL;

			if (!p)
				break;
			fp->pool = p;
			fp->cappool = nc;
		}
		b = &fp->pool[fp->npool++];
		b->ip = cur;
		b->end_ip = l->end_ip;
		b->ninsn = l->ninsn;
		b->iclass = l->cls;
		b->flags = 0;
		count++;
		if (l->epoch)
			epoch = l->epoch;
		if (l->kind == LK_JMP) {
			cur = l->target;
			continue;
		}
		left--;
		cur = (v >> left) & 1 ? l->target : l->end_ip + l->len;
		/* (a path ends where its last bit was used) */
		pa->k = (uint8_t)(m - left);
		pa->count = (uint8_t)count;
		pa->end_ip = cur;
	}
	/* Code read through the callback may change by the next decode:
	 * such a path is not kept (the runs are, for this decode). */
	if (!pa->k || epoch) {
		pa->k = 0;
		pa->count = 0;
	}
	/* blocks after the last bit are not part of it */
	fp->npool = pa->first + pa->count;
	pa->epoch = epoch;
	fp->st.paths++;
}

/* The path from @ip for the bits @v (@m of them), or NULL. */
static const struct path *path_at(struct ptd_fastpt *fp, uint64_t ip, unsigned m, unsigned v)
{
	size_t h;
	struct path *pa;

	if (fp->paths) {
		for (h = phash(ip, m, v) & fp->pmask; fp->paths[h].ip; h = (h + 1) & fp->pmask) {
			pa = &fp->paths[h];
			if (pa->ip != ip || pa->m != m || pa->v != v)
				continue;
			if (pa->epoch && pa->epoch != fp->epoch) {
				/* (code read through the callback: see build_path) */
				build_path(fp, ip, m, v, pa);
			} else {
				fp->st.path_hits++;
			}
			return pa;
		}
	}
	if ((fp->npaths + 1) * 2 > (fp->paths ? fp->pmask + 1 : 0) && grow_paths(fp) < 0)
		return NULL;
	for (h = phash(ip, m, v) & fp->pmask; fp->paths[h].ip; h = (h + 1) & fp->pmask)
		;
	pa = &fp->paths[h];
	fp->npaths++;
	build_path(fp, ip, m, v, pa);
	return pa;
}

static __attribute__((noinline, cold)) int grow_out(struct ptd_fastpt *fp, size_t want)
{
	size_t nc = fp->capout ? fp->capout : 1024;
	struct ptd_block *p;
	uint8_t *e;
	uint64_t *c;

	while (nc < want)
		nc *= 2;
	p = realloc(fp->out, nc * sizeof(*p));
	if (!p)
		return -ptde_nomem;
	fp->out = p;
	e = realloc(fp->oedge, nc);
	if (!e)
		return -ptde_nomem;
	memset(e + fp->capout, 0, nc - fp->capout); /* (see ohw) */
	fp->oedge = e;
	c = realloc(fp->ocode, nc * sizeof(*c));
	if (!c)
		return -ptde_nomem;
	fp->ocode = c;
	fp->capout = nc;
	return 0;
}

static inline __attribute__((always_inline)) int push_code(struct ptd_fastpt *fp, uint64_t ip,
							     uint64_t end_ip, uint32_t ninsn,
							     uint8_t cls, uint64_t code)
{
	const size_t n = fp->nout;
	struct ptd_block *b;

	if (__builtin_expect(n == fp->capout, 0) && grow_out(fp, n + 1) < 0)
		return -ptde_nomem;
	/* (oedge[n] is 0 already; nout stored last, after the byte stores) */
	fp->ocode[n] = code;
	b = &fp->out[n];
	b->ip = ip;
	b->end_ip = end_ip;
	b->ninsn = ninsn;
	b->iclass = cls;
	b->flags = 0;
	fp->nout = n + 1;
	return 0;
}

/*
 * Pushes the block of the whole run @l, for the walk of
 * ptd_fastpt_segment_edge, with the output's count and arrays in the
 * walk's locals (@on, @ob, @oc, @ocap): the blocks' stores cannot change
 * them, so they stay in registers and the count is not stored and loaded
 * again for each block.  fp->nout is @on only where the walk says so
 * (OUT_SYNC).
 */
static inline __attribute__((always_inline)) int push_run_l(struct ptd_fastpt *fp,
							      const struct line *l, size_t *on,
							      struct ptd_block **ob, uint64_t **oc,
							      size_t *ocap)
{
	const size_t n = *on;
	struct ptd_block *b;

	if (__builtin_expect(n == *ocap, 0)) {
		if (grow_out(fp, n + 1) < 0)
			return -ptde_nomem;
		*ob = fp->out;
		*oc = fp->ocode;
		*ocap = fp->capout;
	}
	(*oc)[n] = l->code;
	b = *ob + n;
	*b = l->blk; /* (flags 0) */
	*on = n + 1;
	return 0;
}

/* A block that is not a whole cached run (its code is not known). */
static inline __attribute__((always_inline)) int push_out(struct ptd_fastpt *fp, uint64_t ip,
							    uint64_t end_ip, uint32_t ninsn, uint8_t cls)
{
	return push_code(fp, ip, end_ip, ninsn, cls, 0);
}

/*
 * The newest block (from run @l) goes on at @next_ip along @l's edge @e
 * (0 after its branch, 1 at its target): the call log's verdict on that,
 * kept in the run, for the log (see ptd__calllog_blocks).  Before anything
 * can move the run table.
 */
static inline void out_edge(struct ptd_fastpt *fp, const struct line *l, unsigned e,
			    uint64_t next_ip, size_t nout, int logging)
{
	struct line *w = (struct line *)l; /* (a slot of fp->lines) */

	/* (@logging: fp->log, in the caller's register, not loaded again
	 * after every block's stores) */
	if (!logging)
		return;
	if (!w->lb[e]) {
		struct ptd_block x = {0};

		x.end_ip = l->end_ip;
		x.iclass = l->cls;
		w->lb[e] = (uint8_t)(1 + (ptd__calllog_boring(fp->log, &x, next_ip) != 0));
	}
	fp->oedge[nout - 1] = w->lb[e];
	if (nout > fp->ohw)
		fp->ohw = nout;
}

/* ---- packets ------------------------------------------------------------ */

/* Packet reader state over [p, e). */
struct rd {
	const uint8_t *p, *e;
	uint64_t last_ip;
	/* TNT bits not yet used: the next one is bit (ntnt - 1) of tnt. */
	uint64_t tnt;
	unsigned ntnt;
	int tip; /* a TIP is waiting (its ip in tip_ip) */
	uint64_t tip_ip;
	int skipped; /* non-branch packets since the last TNT or TIP */
	int filt;    /* TIP.PGD is taken (R_PGD), not refused */
	int pgd;     /* a TIP.PGD was read, not yet bound (its ip in pgd_ip) */
	uint64_t pgd_ip;
	int pgd_noip; /* the last TIP.PGD read had no ip (a far branch's) */
	int mode_seen; /* pge_after read a MODE.Exec */
};

enum { R_FUP = 3, R_PGD = 2, R_ITEM = 1, R_END = 0, R_BAIL = -1 };

static inline uint64_t le(const uint8_t *p, unsigned n)
{
	uint64_t v = 0;

	while (n--)
		v = (v << 8) | p[n];
	return v;
}

/* IP compression (SDM: IPBytes) against the last ip; 0: not handled. */
static inline int ip_of(struct rd *r, unsigned ipb, const uint8_t *pl, uint64_t *ip)
{
	uint64_t v;

	switch (ipb) {
	case 1:
		v = (r->last_ip & ~0xffffull) | le(pl, 2);
		break;
	case 2:
		v = (r->last_ip & ~0xffffffffull) | le(pl, 4);
		break;
	case 3:
		v = le(pl, 6);
		if (v & (1ull << 47))
			v |= ~((1ull << 48) - 1);
		break;
	case 4:
		v = (r->last_ip & ~((1ull << 48) - 1)) | le(pl, 6);
		break;
	case 6:
		v = le(pl, 8);
		break;
	default:
		return 0;
	}
	r->last_ip = v;
	*ip = v;
	return 1;
}

/* Extension bytes of a CYC packet taken here (libipt's limit is about 8). */
#define CYC_MAX_EXT 7

static const uint8_t ip_len[8] = { 0, 2, 4, 6, 6, 0, 8, 0 };

/* Size of a timing or padding packet at r->p (kinds that never end or
 * change a block), 0 for anything else. */
static inline size_t skip_len(const struct rd *r)
{
	const uint8_t *p = r->p;
	size_t left = (size_t)(r->e - p);

	if (p[0] == 0x00)
		return 1; /* PAD */
	if ((p[0] & 3) == 3) { /* CYC: more bytes while bit 0 says so */
		size_t k = 1;

		if (!(p[0] & 4))
			return 1;
		while (k < left && (p[k] & 1))
			k++;
		/* libipt refuses a count wider than 64 bits (5 + 7 per
		 * byte); longer ones are left to it */
		return k < left && k <= CYC_MAX_EXT ? k + 1 : 0;
	}
	if (p[0] == 0x59)
		return left >= 2 ? 2 : 0; /* MTC */
	if (p[0] == 0x19)
		return left >= 8 ? 8 : 0; /* TSC */
	if (p[0] == 0x02 && left >= 2) {
		if (p[1] == 0x03)
			return left >= 4 ? 4 : 0; /* CBR */
		if (p[1] == 0x73) /* TMA, with the reserved bits libipt checks clear */
			return left >= 7 && !p[4] && !(p[6] & 0xfe) ? 7 : 0;
	}
	return 0;
}

/* Reads packets up to the next TNT or TIP; R_ITEM, R_END (no more bytes),
 * R_PGD (with r->filt: a TIP.PGD, its ip in r->tip_ip), R_FUP (with
 * r->filt: a FUP at r->p, not read) or R_BAIL (a packet that is not branch
 * tracing, or cut short). */
static int next_item(struct rd *r)
{
	while (r->p < r->e) {
		uint8_t b = r->p[0];
		size_t k;

		if ((b & 1) == 0 && b > 0x02) { /* TNT-8 */
			unsigned n = 31 - (unsigned)__builtin_clz(b); /* stop bit */

			r->tnt = (b >> 1) & ((1u << (n - 1)) - 1);
			r->ntnt = n - 1;
			r->p++;
			r->skipped = 0;
			if (r->ntnt)
				return R_ITEM;
			continue;
		}
		if ((b & 0x1f) == 0x0d) { /* TIP */
			unsigned ipb = b >> 5, n = ip_len[ipb];

			if (!n || (size_t)(r->e - r->p) < 1 + n)
				return R_BAIL;
			if (!ip_of(r, ipb, r->p + 1, &r->tip_ip))
				return R_BAIL;
			r->p += 1 + n;
			r->tip = 1;
			r->skipped = 0;
			return R_ITEM;
		}
		if ((b & 0x1f) == 0x01 && r->filt) { /* TIP.PGD */
			unsigned ipb = b >> 5, n = ip_len[ipb];

			if (!ipb) {
				/* no ip: a far branch (a system call) disabled
				 * tracing; libipt binds it to that */
				r->p++;
				r->tip_ip = 0;
				r->pgd_noip = 1;
				r->skipped = 0;
				return R_PGD;
			}
			if (!n || (size_t)(r->e - r->p) < 1 + n)
				return R_BAIL;
			if (!ip_of(r, ipb, r->p + 1, &r->tip_ip))
				return R_BAIL;
			r->p += 1 + n;
			r->pgd_noip = 0;
			r->skipped = 0;
			return R_PGD;
		}
		if ((b & 0x1f) == 0x1d && r->filt)
			return R_FUP; /* (not read: see async_stop) */
		if (b == 0x02 && r->e - r->p >= 8 && r->p[1] == 0xa3) { /* TNT-64 */
			uint64_t v = le(r->p + 2, 6);
			unsigned n;

			if (!v)
				return R_BAIL;
			n = 63 - (unsigned)__builtin_clzll(v);
			r->tnt = v & ((1ull << n) - 1);
			r->ntnt = n;
			r->p += 8;
			r->skipped = 0;
			if (n)
				return R_ITEM;
			continue;
		}
		k = skip_len(r);
		if (!k)
			return R_BAIL;
		r->p += k;
		r->skipped = 1;
	}
	return R_END;
}

/*
 * The PSB+ at the start: PSB, then up to PSBEND only packets that tell
 * the state (a FUP, MODE.Exec for 64-bit code, MODE.TSX outside a
 * transaction, PIP, timing).  Sets r->p after PSBEND and *ip; returns 1
 * (tracing enabled at *ip), 2 (no FUP: tracing disabled) or 0.
 */
static int psb_plus(struct rd *r, uint64_t *ip)
{
	int have_fup = 0, have_mode = 0;

	if (r->e - r->p < 16)
		return 0;
	r->p += 16;
	while (r->p < r->e) {
		const uint8_t *p = r->p;
		size_t left = (size_t)(r->e - p), k;

		if ((p[0] & 0x1f) == 0x1d) { /* FUP */
			unsigned ipb = p[0] >> 5, n = ip_len[ipb];

			if (have_fup || !n || left < 1 + n || !ip_of(r, ipb, p + 1, ip))
				return 0;
			have_fup = 1;
			r->p += 1 + n;
			continue;
		}
		if (p[0] == 0x99) { /* MODE */
			if (left < 2)
				return 0;
			if ((p[1] >> 5) == 0) { /* .Exec: CS.L set, CS.D clear */
				if ((p[1] & 3) != 1)
					return 0;
				have_mode = 1;
			} else if ((p[1] >> 5) != 1 || (p[1] & 3)) {
				return 0; /* TSX in or aborting a transaction, or unknown */
			}
			r->p += 2;
			continue;
		}
		if (p[0] == 0x02 && left >= 2) {
			if (p[1] == 0x23) { /* PSBEND */
				r->p += 2;
				if (!have_mode)
					return 0;
				return have_fup ? *ip != 0 : 2;
			}
			if (p[1] == 0x43 && left >= 8) { /* PIP: paging, no block effect */
				r->p += 8;
				continue;
			}
		}
		k = skip_len(r);
		if (!k)
			return 0;
		r->p += k;
	}
	return 0;
}

int ptd_fastpt_psb_kind(const uint8_t *buf, uint64_t off, uint64_t end, uint64_t *ip)
{
	struct rd r;

	*ip = 0;
	if (!buf || off >= end)
		return 0;
	memset(&r, 0, sizeof(r));
	r.p = buf + off;
	r.e = buf + end;
	return psb_plus(&r, ip);
}

int ptd_fastpt_psb_plus(const uint8_t *buf, uint64_t off, uint64_t end, uint64_t *ip)
{
	int k = ptd_fastpt_psb_kind(buf, off, end, ip);

	if (k != 1)
		*ip = 0;
	return k == 1;
}

/* After a PSB+ without FUP or a TIP.PGD: MODE.Exec (64-bit) and timing,
 * then the TIP.PGE that enables tracing at *ip.  1, 2 when the bytes end
 * first (tracing stays disabled), or 0 for anything else. */
static int pge_after(struct rd *r, uint64_t *ip)
{
	while (r->p < r->e) {
		const uint8_t *p = r->p;
		size_t left = (size_t)(r->e - p), k;

		if ((p[0] & 0x1f) == 0x11) { /* TIP.PGE */
			unsigned ipb = p[0] >> 5, n = ip_len[ipb];

			if (!n || left < 1 + n || !ip_of(r, ipb, p + 1, ip))
				return 0;
			r->p += 1 + n;
			return *ip != 0;
		}
		if (p[0] == 0x99) {
			if (left < 2 || p[1] != 0x01) /* MODE.Exec, 64-bit only */
				return 0;
			r->p += 2;
			r->mode_seen = 1;
			continue;
		}
		k = skip_len(r);
		if (!k)
			return 0;
		r->p += k;
	}
	return 2;
}

int ptd_fastpt_psb_then_pge(const uint8_t *buf, uint64_t off, uint64_t end)
{
	struct rd r;
	uint64_t ip = 0;

	if (!buf || off >= end)
		return 0;
	memset(&r, 0, sizeof(r));
	r.p = buf + off;
	r.e = buf + end;
	if (!psb_plus(&r, &ip))
		return 0;
	return pge_after(&r, &ip) == 1;
}

/* ---- the tail: linear code after the last packet, cut at cut_ip ---- */

/*
 * The offsets of the instructions of the cached run at @ip, when it has
 * @ninsn instructions or more (read once per run: segments' tails end in
 * the same runs again and again), or NULL.
 */
static const uint32_t *run_offsets(struct ptd_fastpt *fp, uint64_t ip, uint32_t ninsn)
{
	struct line *l = NULL;
	uint64_t at = ip;
	uint32_t i, *o;
	size_t h;

	if (!fp->lines)
		return NULL;
	for (h = lhash(ip) & fp->lmask; fp->lines[h].ip; h = (h + 1) & fp->lmask) {
		if (fp->lines[h].ip == ip) {
			l = &fp->lines[h];
			break;
		}
	}
	if (!l || l->kind == LK_BAIL || ninsn > l->ninsn || (l->epoch && l->epoch != fp->epoch))
		return NULL;
	if (l->offs)
		return fp->ioffs + l->offs - 1;
	if (fp->nioffs + l->ninsn > fp->capioffs) {
		size_t nc = fp->capioffs ? fp->capioffs : 4096;

		while (nc < fp->nioffs + l->ninsn)
			nc *= 2;
		if (nc >= UINT32_MAX)
			return NULL;
		o = realloc(fp->ioffs, nc * sizeof(*o));
		if (!o)
			return NULL;
		fp->ioffs = o;
		fp->capioffs = nc;
	}
	o = fp->ioffs + fp->nioffs;
	for (i = 0; i < l->ninsn; i++) {
		uint8_t b[16];
		struct ptd_insn_info in;
		int r;

		o[i] = (uint32_t)(at - ip);
		if (i + 1 == l->ninsn)
			break;
		r = ptd_image_read(fp->img, at, b, sizeof(b));
		if (r <= 0 || ptd_disasm_decode_mode(b, (size_t)r, at, 0, &in) < 0)
			return NULL; /* (build_line read them: not expected) */
		at += in.len;
	}
	l->offs = (uint32_t)fp->nioffs + 1;
	fp->nioffs += l->ninsn;
	return o;
}

/*
 * The last of the first @ninsn instructions from @ip that is at @cut:
 * 1 with its index in *@k and the address of the one before it in *@prev,
 * 0 when none is, -1 when the code cannot be decoded.  One pass, or a
 * search in the run's offsets when @ip starts a cached run.
 */
static int last_at(struct ptd_fastpt *fp, uint64_t ip, uint32_t ninsn, uint64_t cut, uint32_t *k,
		   uint64_t *prev)
{
	const uint32_t *o = run_offsets(fp, ip, ninsn);
	uint64_t before = 0;
	uint32_t i, lo, hi;
	int found = 0;

	if (o && ninsn) {
		/* (increasing offsets: at most one instruction is at cut) */
		if (cut < ip || cut - ip > o[ninsn - 1])
			return 0;
		lo = 0;
		hi = ninsn;
		while (lo < hi) {
			uint32_t mid = lo + (hi - lo) / 2;

			if (o[mid] < cut - ip)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo == ninsn || o[lo] != cut - ip)
			return 0;
		*k = lo;
		*prev = lo ? ip + o[lo - 1] : 0;
		return 1;
	}

	for (i = 0; i < ninsn; i++) {
		uint8_t b[16];
		struct ptd_insn_info in;
		int r;

		if (ip == cut) {
			*k = i;
			*prev = before;
			found = 1;
		}
		if (i + 1 == ninsn)
			break;
		r = ptd_image_read(fp->img, ip, b, sizeof(b));
		if (r <= 0 || ptd_disasm_decode_mode(b, (size_t)r, ip, 0, &in) < 0)
			return -1;
		before = ip;
		ip += in.len;
	}
	return found;
}

/*
 * The blocks from fp->out[@first] on and the run @fin (the one that needed
 * trace that was not there) were decoded after the last packet; keeps what
 * lies before the last occurrence of @cut_ip in them, as pt.c's
 * finish_tail does.  Returns 1, or 0 when @cut_ip is not there.
 */
static int cut_tail(struct ptd_fastpt *fp, size_t first, const struct line *fin, uint64_t cut_ip)
{
	size_t i;
	uint32_t k = 0;
	uint64_t prev = 0;
	int r;

	/* In the final run first (it comes last). */
	r = last_at(fp, fin->ip, fin->ninsn, cut_ip, &k, &prev);
	if (r < 0)
		return 0;
	if (r) {
		if (k && push_out(fp, fin->ip, prev, k, PTD_IC_OTHER) < 0)
			return 0;
		return 1;
	}
	for (i = fp->nout; i-- > first;) {
		const struct ptd_block b = fp->out[i];

		r = last_at(fp, b.ip, b.ninsn, cut_ip, &k, &prev);
		if (r < 0)
			return 0;
		if (!r)
			continue;
		/* (the dropped blocks' verdicts: see ohw) */
		memset(fp->oedge + i, 0, fp->nout - i);
		fp->nout = i;
		/* (instruction k-1 is not the block's last: its class is other) */
		if (k && push_out(fp, b.ip, prev, k, PTD_IC_OTHER) < 0)
			return 0;
		return 1;
	}
	return 0;
}

/* ---- one segment -------------------------------------------------------- */

/* (see struct ptd_fastpt's rsl) */
#define RSL_RUN 0x80000000u

/* Pushes the return address of the call that ends run @l. */
static inline void rpush(struct ptd_fastpt *fp, const struct line *l)
{
	const uint32_t after = l->succ[0];

	fp->rtop = (fp->rtop + 1) % RSTACK;
	fp->rs[fp->rtop] = l->end_ip + l->len;
	/* (never bail_line: its kind is LK_BAIL) */
	fp->rsl[fp->rtop] = after && after < RSL_RUN ? after | RSL_RUN : (uint32_t)(l - fp->lines) + 1;
	if (fp->rn < RSTACK)
		fp->rn++;
}

/*
 * Tracing comes back at @ip after it stopped where libipt's decoder was at
 * @dis_ip (0: unknown): pt.c's rule for a "disabled" gap (gdb's), the gap
 * a block without instructions here.  Returns 0 or -ptde_nomem.
 */
static int enabled_at(struct ptd_fastpt *fp, const struct ptd_fastpt_edge *edge, int have_item,
		      uint64_t ip, uint64_t dis_ip)
{
	if (!edge->dgaps || !have_item || (dis_ip && dis_ip == ip))
		return 0;
	return push_out(fp, ip, ip, 0, 0);
}

/*
 * An asynchronous disable that ends the segment's trace (a trace that
 * ends, or tracing that stops until a PSB): at r->p a FUP, then TIP.PGD
 * without ip, then only timing and MODE.Exec (64-bit) up to the end.
 * libipt proceeds to the FUP's ip (the instruction there does not run) in
 * run @l, where the decoder is at its start with nothing pending; the
 * instructions before it are a block.  Returns 1 with the FUP's ip in
 * *@at, 0 when it is not that (or the ip is not in @l), -ptde_nomem.
 */
static int async_stop(struct ptd_fastpt *fp, struct rd *r, const struct line *l, uint64_t *at)
{
	const uint8_t *p = r->p;
	unsigned ipb = p[0] >> 5, n = ip_len[ipb];
	uint64_t a, prev = 0;
	uint32_t k = 0;
	int f;

	if (!n || (size_t)(r->e - p) < 2 + n || !ip_of(r, ipb, p + 1, &a) || p[1 + n] != 0x01)
		return 0;
	r->p += 2 + n;
	while (r->p < r->e) {
		size_t sk;

		if (r->p[0] == 0x99 && r->e - r->p >= 2 && r->p[1] == 0x01) {
			r->p += 2;
			continue;
		}
		sk = skip_len(r);
		if (!sk)
			return 0;
		r->p += sk;
	}
	if (l->kind == LK_BAIL || !l->ninsn)
		return 0;
	*at = a;
	if (a == l->ip)
		return 1;
	/* (the run's branch itself may be where it stopped: k = ninsn - 1) */
	f = last_at(fp, l->ip, l->ninsn, a, &k, &prev);
	if (f != 1 || !k)
		return 0;
	return push_out(fp, l->ip, prev, k, PTD_IC_OTHER) < 0 ? -ptde_nomem : 1;
}

int ptd_fastpt_segment(struct ptd_fastpt *fp, const uint8_t *buf, uint64_t begin, uint64_t end,
		       uint64_t cut_ip, int keep_stack, int pge_start, const struct ptd_block **blocks,
		       size_t *n)
{
	return ptd_fastpt_segment_edge(fp, buf, begin, end, cut_ip, keep_stack, pge_start, NULL,
				       blocks, n);
}

int ptd_fastpt_segment_edge(struct ptd_fastpt *fp, const uint8_t *buf, uint64_t begin,
			    uint64_t end, uint64_t cut_ip, int keep_stack, int pge_start,
			    struct ptd_fastpt_edge *edge, const struct ptd_block **blocks, size_t *n)
{
	struct rd r;
	uint64_t ip = 0;
	/* the run at ip when known through a link (next_line) */
	const struct line *nl = NULL;
	size_t tail_first = 0;
	unsigned notrace = 0;
	int tail_clean = 1;
	/* ip was reached by a direct branch, no trace read since: a TIP.PGD
	 * with this ip binds to that branch (libipt proceeds to its ip) */
	int direct = 0;
	uint64_t dis_ip = 0;
	/* a TNT, TIP or TIP.PGE came after the PSB+: a segment of only a
	 * PSB+ and a TIP.PGD (with code before it) libipt, decoding it alone
	 * up to its end, does not decode as elsewhere (found by the fuzz
	 * target); those are left to it */
	int traced = 0, k;
	/* tracing was disabled by a system call (see the "disabled" label) */
	int far_dis = 0;
	uint64_t hits = 0; /* (runs found through a link: see next_line) */
	/* r.tnt and r.ntnt as next_item left them, used up here (in
	 * registers, not through r in memory: the next ip depends on them) */
	uint64_t tnt = 0;
	unsigned ntnt = 0;
	int paths_on;
	const int logging = fp && fp->log;
	/* The output's count and arrays in locals (see push_run_l): fp->nout
	 * is set from on before anything else reads or changes it
	 * (OUT_SYNC), and on from it after (OUT_LOAD). */
	size_t on = 0, ocap = 0;
	struct ptd_block *ob = NULL;
	uint64_t *oc = NULL;
#define OUT_SYNC() (fp->nout = on)
#define OUT_LOAD() (on = fp->nout, ob = fp->out, oc = fp->ocode, ocap = fp->capout)

	if (use_paths < 0)
		use_paths = getenv("PTDBG_FASTPT_PATHS") && !strcmp(getenv("PTDBG_FASTPT_PATHS"), "1");
	paths_on = use_paths;
	*blocks = NULL;
	*n = 0;
	if (!fp || !buf || begin >= end || (!cut_ip && !edge))
		goto refuse;
	if (fp->gen != ptd_image_generation(fp->img))
		reset_caches(fp);
	memset(&r, 0, sizeof(r));
	r.p = buf + begin;
	r.e = buf + end;
	r.filt = edge != NULL;
	fp->nout = 0;
	if (fp->ohw) { /* (the verdicts of the segment before) */
		memset(fp->oedge, 0, fp->ohw);
		fp->ohw = 0;
	}
	if (!keep_stack)
		fp->rn = 0;
	switch (psb_plus(&r, &ip)) {
	case 1:
		if (edge && edge->disabled)
			goto refuse; /* libipt ignores that FUP (pt.c's copy) */
		break;
	case 2: /* tracing disabled at the PSB */
		if (pge_start) { /* the start of a trace: no gap */
			if (pge_after(&r, &ip) != 1)
				goto refuse;
			traced = 1;
			break;
		}
		if (!edge || !edge->disabled)
			goto refuse;
		k = pge_after(&r, &ip);
		if (k == 2) {
			/* Tracing stays disabled through the whole segment
			 * (untraced code across a PSB): nothing, the carry as
			 * it was. */
			edge->end_disabled = 1;
			edge->end_dis_known = edge->dis_known;
			edge->end_dis_ip = edge->dis_ip;
			goto done;
		}
		if (k != 1)
			goto refuse;
		/* libipt synced here does not know where tracing stopped;
		 * pt.c decides "resumed" from the carry, as here */
		if (enabled_at(fp, edge, edge->have_item, ip, edge->dis_known ? edge->dis_ip : 0) < 0)
			goto refuse;
		traced = 1;
		break;
	default:
		goto refuse;
	}
	OUT_LOAD();
	for (;;) {
		const struct line *l;
		int st, link = 0;
		uint32_t rslot = 0; /* (a return: rsl of the address popped) */

		if (!ip)
			goto refuse;
		if (direct && r.filt && !r.pgd && !ntnt && !r.tip) {
			/* Is tracing disabled here?  Read the next item now (it
			 * would be read at the next branch anyway). */
			const uint8_t *at = r.p;
			int sk = r.skipped;

			r.ntnt = 0; /* (ntnt is: see tnt) */
			st = next_item(&r);
			tnt = r.tnt;
			ntnt = r.ntnt;
			if (st == R_FUP) {
				/* (with a cut ip pt.c may not take an event after
				 * libipt saw the end of the trace: left to it) */
				if (!traced || cut_ip)
					goto refuse;
				l = line_at(fp, ip);
				OUT_SYNC();
				if (async_stop(fp, &r, l, &dis_ip) != 1)
					goto refuse;
				OUT_LOAD();
				goto async_end;
			}
			if (st == R_PGD) {
				r.pgd = 1;
				r.pgd_ip = r.tip_ip;
			} else if (st == R_ITEM) {
				traced = 1;
			} else if (st == R_END) {
				/* (read again at the branch, as before) */
				r.p = at;
				r.skipped = sk;
			} else if (st == R_BAIL) {
				goto refuse;
			}
		}
		/* libipt proceeds to a TIP.PGD's ip, up to the next branch
		 * that needs trace: it binds to the direct branch that leads
		 * there. */
		if (direct && r.pgd && r.pgd_ip == ip) {
			r.pgd = 0;
			dis_ip = ip;
			goto disabled;
		}
		direct = 0;
		l = nl && nl->ip == ip ? nl : line_at(fp, ip);
		nl = NULL;
		/* (its ip inside this run: libipt stops there; rare, left to it) */
		if (r.pgd && r.pgd_ip > l->ip && r.pgd_ip <= l->end_ip)
			goto refuse;
		/* (use_paths first: it is the same every time, ntnt is not,
		 * and a mispredicted branch costs as much as the rest here) */
		if (paths_on && ntnt && l->kind == LK_COND) {
			/* Several TNT bits at once through a cached path. */
			unsigned m = ntnt < PATH_BITS ? ntnt : PATH_BITS;
			unsigned v = (unsigned)(tnt >> (ntnt - m)) & ((1u << m) - 1);
			const struct path *pa = path_at(fp, ip, m, v);

			if (pa && pa->k) {
				OUT_SYNC();
				if (fp->nout + pa->count > fp->capout &&
				    grow_out(fp, fp->nout + pa->count) < 0)
					goto refuse;
				memcpy(fp->out + fp->nout, fp->pool + pa->first,
				       pa->count * sizeof(*fp->out));
				memset(fp->ocode + fp->nout, 0, pa->count * sizeof(*fp->ocode));
				fp->nout += pa->count;
				OUT_LOAD();
				ntnt -= pa->k;
				ip = pa->end_ip;
				notrace = 0;
				tail_first = fp->nout;
				tail_clean = 1;
				continue;
			}
			l = line_at(fp, ip); /* (the table may have grown) */
		}
		if (l->kind == LK_BAIL)
			goto refuse;
		/* (l is the run at ip; one that is not LK_BAIL has fewer than
		 * LINE_MAX_INSN instructions, see build_line) */
		if (l->kind == LK_JMP || l->kind == LK_CALL) {
			if (push_run_l(fp, l, &on, &ob, &oc, &ocap) < 0)
				goto refuse;
			if (l->kind == LK_CALL)
				rpush(fp, l);
			ip = l->target;
			out_edge(fp, l, 1, ip, on, logging);
			nl = next_line(fp, l, 1, ip, &hits);
			direct = 1;
			if (++notrace > NOTRACE_MAX)
				goto refuse;
			continue;
		}
		/* The branch at the end needs trace. */
		if (!ntnt && !r.tip) {
			const uint8_t b0 = r.p < r.e ? r.p[0] : 1;

			if (r.pgd) {
				st = R_PGD;
			} else if ((b0 & 1) == 0 && b0 > 0x02) {
				/* A TNT-8 packet, the usual next one: read here,
				 * not through next_item (a call, and the reader
				 * state in memory).  (b0 >= 4: at least one bit) */
				const unsigned sb = 31 - (unsigned)__builtin_clz(b0);

				tnt = (b0 >> 1) & ((1u << (sb - 1)) - 1);
				ntnt = sb - 1;
				r.p++;
				r.skipped = 0;
				st = R_ITEM;
			} else if ((b0 & 0x1f) == 0x0d && ip_len[b0 >> 5] &&
				   (size_t)(r.e - r.p) >= 1u + ip_len[b0 >> 5] &&
				   ip_of(&r, b0 >> 5, r.p + 1, &r.tip_ip)) {
				/* A TIP, the other usual one: as next_item reads
				 * it (anything it refuses goes there) */
				r.p += 1 + ip_len[b0 >> 5];
				r.tip = 1;
				r.skipped = 0;
				st = R_ITEM;
			} else {
				r.ntnt = 0; /* (ntnt is: see tnt) */
				st = next_item(&r);
				tnt = r.tnt;
				ntnt = r.ntnt;
			}
			if (st == R_BAIL)
				goto refuse;
			if (st == R_FUP) {
				OUT_SYNC();
				if (!traced || cut_ip || async_stop(fp, &r, l, &dis_ip) != 1)
					goto refuse;
				OUT_LOAD();
				goto async_end;
			}
			if (st == R_ITEM)
				traced = 1;
			if (st == R_PGD) {
				r.pgd = 0;
				/* (right after the PSB+ libipt binds it otherwise:
				 * found by the fuzz target; left to it) */
				if (l->kind == LK_SYS && r.pgd_noip && traced) {
					/* A system call left user mode: its block
					 * ends with it, flagged as pt.c flags it for
					 * libipt's "disabled" event; the decoder is
					 * after it (a TIP.PGE there resumes). */
					OUT_SYNC();
					if (push_out(fp, l->ip, l->end_ip, l->ninsn, l->cls) < 0)
						goto refuse;
					OUT_LOAD();
					ob[on - 1].flags = PTD_BLK_SYSCALL;
					dis_ip = l->end_ip + l->len;
					far_dis = 1;
					goto disabled;
				}
				/* libipt binds it to this branch if it needs trace;
				 * only an indirect call is taken here: it ends its
				 * block and the decoder stays after it */
				if (l->kind != LK_ICALL || r.pgd_noip)
					goto refuse;
				if (push_run_l(fp, l, &on, &ob, &oc, &ocap) < 0)
					goto refuse;
				rpush(fp, l);
				dis_ip = l->end_ip + l->len;
				goto disabled;
			}
			if (st == R_END) {
				/* Trailing non-branch packets: libipt may see the end
				 * of the trace later than here; a tail not clean:
				 * libipt's starts elsewhere.  Leave both to libipt. */
				OUT_SYNC();
				if (r.skipped || !tail_clean || !cut_ip ||
				    !cut_tail(fp, tail_first, l, cut_ip))
					goto refuse;
				OUT_LOAD();
				break;
			}
		}
		notrace = 0;
		switch (l->kind) {
		case LK_COND:
			if (!ntnt)
				goto refuse; /* a TIP where a TNT bit belongs */
			ntnt--;
			/* (taken or not, the conditional branch ends libipt's block) */
			{
				/* (without a branch on the bit, which the
				 * processor cannot foresee: the taken and the
				 * fall-through ip chosen arithmetically) */
				uint64_t bit = (tnt >> ntnt) & 1, fall = l->end_ip + l->len;

				link = 1 + (int)bit;
				ip = fall + ((l->target - fall) & (0 - bit));
			}
			break;
		case LK_RET:
			if (ntnt) {
				ntnt--;
				if (!((tnt >> ntnt) & 1) || !fp->rn)
					goto refuse;
				ip = fp->rs[fp->rtop];
				rslot = fp->rsl[fp->rtop];
				fp->rtop = (fp->rtop + RSTACK - 1) % RSTACK;
				fp->rn--;
			} else {
				ip = r.tip_ip;
				r.tip = 0;
			}
			break;
		case LK_ICALL:
		case LK_IJMP:
			if (ntnt)
				goto refuse; /* a TNT bit where a TIP belongs */
			if (l->kind == LK_ICALL)
				rpush(fp, l);
			ip = r.tip_ip;
			r.tip = 0;
			break;
		default:
			goto refuse;
		}
		if (push_run_l(fp, l, &on, &ob, &oc, &ocap) < 0)
			goto refuse;
		if (link) { /* (after the last use of l: the table may grow) */
			out_edge(fp, l, (unsigned)link - 1, ip, on, logging);
			nl = next_line(fp, l, (unsigned)link - 1, ip, &hits);
		} else if (rslot & RSL_RUN) {
			/* (the run returned to, as the call's link [0] was when
			 * it was pushed; the loop's top checks its ip) */
			const struct line *x = &fp->lines[(rslot & ~RSL_RUN) - 1];

			if (__builtin_expect(!x->epoch || x->epoch == fp->epoch, 1)) {
				hits++;
				nl = x;
			}
		} else if (rslot) {
			/* (the call's run: its link [0], after the call, is
			 * where a return to it goes) */
			nl = next_line(fp, &fp->lines[rslot - 1], 0, ip, &hits);
		}
		tail_first = on;
		tail_clean = 1;
		continue;
disabled:
		/* Tracing is off until TIP.PGE (or the end of the segment);
		 * it may come back elsewhere than the edge went. */
		OUT_SYNC();
		if (fp->nout)
			fp->oedge[fp->nout - 1] = 0;
		r.mode_seen = 0;
		switch (pge_after(&r, &ip)) {
		case 1:
			/* (a block came before: the history has an item) */
			far_dis = 0;
			if (enabled_at(fp, edge, 1, ip, dis_ip) < 0)
				goto refuse;
			OUT_LOAD();
			traced = 1;
			notrace = 0;
			direct = 0;
			tail_first = fp->nout;
			tail_clean = 1;
			continue;
		case 2:
			/* (a system call's disable with no more trace: pt.c's
			 * libipt decoder may see the end of the trace first
			 * and, with a cut ip, not take the event; left to it
			 * unless the trace ends here.  Nor does libipt give
			 * the event when a MODE.Exec comes before the end,
			 * waiting for the TIP.PGE it binds to: found by the
			 * fuzz target) */
			if (!traced || (far_dis && (cut_ip || r.mode_seen)))
				goto refuse;
			edge->end_disabled = 1;
			edge->end_dis_known = 1;
			edge->end_dis_ip = dis_ip;
			goto done;
		default:
			goto refuse;
		}
	}
	OUT_SYNC();
	if (edge)
		edge->end_disabled = 0;
	goto done;
async_end:
	/* (see async_stop; pt.c's carry for libipt's asynchronous disable) */
	edge->end_disabled = 1;
	edge->end_dis_known = 1;
	edge->end_dis_ip = dis_ip;
	edge->end_async = 1;
done:
	fp->st.line_hits += hits;
	fp->st.segs_fast++;
	*blocks = fp->out;
	*n = fp->nout;
	return 1;
refuse:
	if (fp) {
		fp->st.line_hits += hits;
		fp->st.segs_refused++;
		fp->nout = 0;
		fp->rn = 0;
	}
	return 0;
#undef OUT_SYNC
#undef OUT_LOAD
}

void ptd_fastpt_set_log(struct ptd_fastpt *fp, struct ptd_calllog *log)
{
	uint64_t id = ptd__calllog_funcs_id(log);
	size_t i;

	if (!fp)
		return;
	fp->log = log;
	if (log && id != fp->log_id) {
		/* another func_of: the runs' verdicts do not hold */
		for (i = 0; fp->lines && i <= fp->lmask; i++)
			fp->lines[i].lb[0] = fp->lines[i].lb[1] = 0;
		fp->log_id = id;
	}
}

const uint8_t *ptd__fastpt_edges(const struct ptd_fastpt *fp)
{
	return fp ? fp->oedge : NULL;
}

const uint64_t *ptd__fastpt_codes(const struct ptd_fastpt *fp)
{
	return fp ? fp->ocode : NULL;
}

void ptd__fastpt_count(struct ptd_fastpt *fp, int resumed)
{
	if (fp && resumed)
		fp->st.resumes++;
	else if (fp)
		fp->st.redos++;
}
