/*
 * The report model: a recorded history collapsed so that it reads like a
 * story.  Function-call segments become a call tree (one node per
 * activation, its callees below it, runs of equal subtrees folded into
 * one with a count); the source lines executed last become a list with
 * loops folded ("foo.c:12-14 x1000"); the last conditional branches are
 * listed with their outcome; gaps with their cause.  The text, JSON and
 * picture writers all read this one model, so they agree.
 */
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"

/* Instructions looked at, at most, when walking back for lines and
 * branches: a busy loop's millions of iterations are sampled, not read. */
#define WALK_MAX 400000u

long rep_read_mem(void *ctx, uint64_t addr, void *buf, size_t n)
{
	return ptd_session_read(ctx, addr, buf, n);
}

void rep_locate(struct ptd_symbols *sym, uint64_t pc, struct loc *l)
{
	struct ptd_symbol fs;
	struct ptd_line li;

	memset(l, 0, sizeof(*l));
	if (sym && ptd_symbols_lookup(sym, pc, &fs) == 0 && fs.name) {
		l->func = ptd_print_symname(fs.name);
		l->off = fs.offset;
	}
	if (sym && ptd_symbols_line(sym, pc, &li) == 0 && li.file) {
		l->file = ptd_symbols_display_name(sym, li.file);
		l->path = li.file;
		l->line = li.line;
	}
}

/* ---- the call tree ------------------------------------------------------- */

static int new_node(struct rtree *t)
{
	if (t->count == t->cap) {
		int cap = t->cap ? t->cap * 2 : 256;
		struct rnode *n = realloc(t->n, (size_t)cap * sizeof(*n));
		if (!n)
			return -ptde_nomem;
		t->n = n;
		t->cap = cap;
	}
	memset(&t->n[t->count], 0, sizeof(t->n[0]));
	t->n[t->count].parent = t->n[t->count].first_child = -1;
	t->n[t->count].last_child = t->n[t->count].next = -1;
	t->n[t->count].count = 1;
	return t->count++;
}

static void add_child(struct rtree *t, int parent, int child)
{
	t->n[child].parent = parent;
	t->n[child].next = -1;
	if (parent < 0) {
		if (t->last_root >= 0)
			t->n[t->last_root].next = child;
		else
			t->first_root = child;
		t->last_root = child;
		return;
	}
	if (t->n[parent].last_child >= 0)
		t->n[t->n[parent].last_child].next = child;
	else
		t->n[parent].first_child = child;
	t->n[parent].last_child = child;
}

/*
 * A new root at segment level @lv adopts the roots just before it that
 * are deeper (the calls it made before the recording knew it): returning
 * out of the function where recording started finds its caller so.
 * Never across a gap.
 */
static void adopt(struct rtree *t, int node, int lv)
{
	int i, prev = -1, first = -1;

	for (i = t->first_root; i >= 0 && i != node; i = t->n[i].next) {
		if (t->n[i].is_gap || t->n[i].seg_level <= lv) {
			prev = i;
			first = -1;
		} else if (first < 0) {
			first = i;
		}
	}
	if (first < 0)
		return;
	/* unlink first..node's predecessor from the roots, hang them under node */
	if (prev >= 0)
		t->n[prev].next = node;
	else
		t->first_root = node;
	for (i = first; i != node;) {
		int nx = t->n[i].next;
		add_child(t, node, i);
		i = nx;
	}
}

static void spans(struct rtree *t, int i, int depth)
{
	struct rnode *n = &t->n[i];

	n->level = depth;
	n->start = n->first;
	n->end = n->last;
	for (int c = n->first_child; c >= 0; c = t->n[c].next) {
		spans(t, c, depth + 1);
		n = &t->n[i];
		if (t->n[c].start < n->start)
			n->start = t->n[c].start;
		if (t->n[c].end > n->end)
			n->end = t->n[c].end;
	}
}

int rtree_build(struct rtree *t, struct ptd_session *s, const struct ptd_calls *calls,
		uint64_t from, uint64_t to)
{
	const struct ptd_history *h = ptd_session_history(s);
	struct ptd_symbols *sym = ptd_session_symbols(s);
	uint64_t tail = h ? ptd_history_count(h) : 0;
	int minl = calls ? ptd_calls_min_level(calls) : 0, maxl = 0;
	int *stack = NULL;

	memset(t, 0, sizeof(*t));
	t->first_root = t->last_root = -1;
	if (!calls || from < 1 || to < from)
		return 0;
	/* The last number is the tail (where the thread stands, not executed)
	 * unless the numbers are all instructions and gaps. */
	if (tail <= rep_ninsn(s) + (uint64_t)rep_gaps(s, NULL, 0))
		tail = 0;
	for (uint64_t i = from; i <= to; i++) {
		const struct ptd_callseg *g = ptd_calls_get(calls, i);
		if (g && g->level - minl > maxl)
			maxl = g->level - minl;
	}
	stack = malloc(((size_t)maxl + 2) * sizeof(*stack));
	if (!stack)
		return -ptde_nomem;
	for (int k = 0; k <= maxl + 1; k++)
		stack[k] = -1;
	for (uint64_t i = from; i <= to; i++) {
		const struct ptd_callseg *g = ptd_calls_get(calls, i);
		int lv, ni;
		uint64_t own;

		if (!g)
			continue;
		t->nsegs++;
		if (g->is_gap) {
			struct ptd_hcursor c;
			struct ptd_item it;

			ni = new_node(t);
			if (ni < 0)
				goto nomem;
			t->n[ni].is_gap = 1;
			t->n[ni].name = "[gap]";
			t->n[ni].first = g->first;
			t->n[ni].last = g->first;
			t->n[ni].nsegs = 1;
			if (ptd_hcursor_goto(&c, h, g->first) == 0 && c.is_gap &&
			    ptd_history_item(h, c.item_index, &it) && it.kind == PTD_ITEM_GAP) {
				t->n[ni].gap_reason = it.reason;
				t->n[ni].gap_arg = it.arg;
				t->n[ni].gap_detail = ptd_history_detail(h, it.detail);
			}
			add_child(t, -1, ni);
			for (int k = 0; k <= maxl + 1; k++)
				stack[k] = -1;
			continue;
		}
		lv = g->level - minl;
		own = g->last - g->first + 1;
		if (g->last == tail && own > 0)
			own--; /* the tail is where the thread stands, not executed */
		ni = stack[lv];
		if (ni >= 0 && t->n[ni].instance == g->instance) {
			t->n[ni].last = g->last;
			t->n[ni].self += own;
			t->n[ni].nsegs++;
		} else {
			struct ptd_symbol fs;

			ni = new_node(t);
			if (ni < 0)
				goto nomem;
			t->n[ni].ip = g->ip;
			t->n[ni].instance = g->instance;
			t->n[ni].first = g->first;
			t->n[ni].last = g->last;
			t->n[ni].self = own;
			t->n[ni].nsegs = 1;
			t->n[ni].seg_level = lv;
			t->n[ni].name = "??";
			if (sym && ptd_symbols_lookup(sym, g->ip, &fs) == 0 && fs.name)
				t->n[ni].name = ptd_print_symname(fs.name);
			if (lv > 0 && stack[lv - 1] >= 0) {
				add_child(t, stack[lv - 1], ni);
			} else {
				add_child(t, -1, ni);
				adopt(t, ni, lv);
			}
			stack[lv] = ni;
		}
		for (int k = lv + 1; k <= maxl + 1; k++)
			stack[k] = -1;
	}
	free(stack);
	for (int r = t->first_root; r >= 0; r = t->n[r].next)
		spans(t, r, 0);
	return 0;
nomem:
	free(stack);
	rtree_free(t);
	return -ptde_nomem;
}

void rtree_free(struct rtree *t)
{
	if (!t)
		return;
	free(t->n);
	memset(t, 0, sizeof(*t));
	t->first_root = t->last_root = -1;
}

uint64_t rtree_last_ip(struct rtree *t, int i, const struct ptd_history *h)
{
	struct rnode *n = &t->n[i];
	struct ptd_hcursor c;

	if (!n->last_ip && !n->is_gap && ptd_hcursor_goto(&c, h, n->last) == 0 && !c.is_gap)
		n->last_ip = c.ip;
	return n->last_ip ? n->last_ip : n->ip;
}

static uint64_t mix(uint64_t h, uint64_t v)
{
	h ^= v;
	h *= 0x100000001b3ull;
	return h ^ (h >> 29);
}

static uint64_t str_hash(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (; s && *s; s++)
		h = mix(h, (unsigned char)*s);
	return h;
}

static int same_tree(struct rtree *t, int a, int b);

/* Folds the children of @i (recursively first), then computes its signature. */
static void fold_node(struct rtree *t, int i)
{
	uint64_t sig;
	int c, run;

	for (c = t->n[i].first_child; c >= 0; c = t->n[c].next)
		fold_node(t, c);
	/* runs of equal siblings */
	for (run = t->n[i].first_child; run >= 0;) {
		int nx = t->n[run].next;
		while (nx >= 0 && !t->n[nx].is_gap && same_tree(t, run, nx)) {
			t->n[run].count++;
			t->n[nx].folded = 1;
			nx = t->n[nx].next;
		}
		run = nx;
	}
	sig = mix(str_hash(t->n[i].name), (uint64_t)t->n[i].is_gap);
	for (c = t->n[i].first_child; c >= 0; c = t->n[c].next)
		if (!t->n[c].folded)
			sig = mix(mix(sig, t->n[c].sig), t->n[c].count);
	t->n[i].sig = sig;
}

/* Equal subtrees: same names, same shape and counts (signatures first). */
static int same_tree(struct rtree *t, int a, int b)
{
	int ca, cb;

	if (t->n[a].sig != t->n[b].sig || t->n[a].is_gap || t->n[b].is_gap ||
	    strcmp(t->n[a].name, t->n[b].name))
		return 0;
	ca = t->n[a].first_child;
	cb = t->n[b].first_child;
	for (;;) {
		while (ca >= 0 && t->n[ca].folded)
			ca = t->n[ca].next;
		while (cb >= 0 && t->n[cb].folded)
			cb = t->n[cb].next;
		if (ca < 0 || cb < 0)
			return ca == cb;
		if (t->n[ca].count != t->n[cb].count || !same_tree(t, ca, cb))
			return 0;
		ca = t->n[ca].next;
		cb = t->n[cb].next;
	}
}

void rtree_fold(struct rtree *t)
{
	int r, nx;

	for (r = t->first_root; r >= 0; r = t->n[r].next)
		fold_node(t, r);
	for (r = t->first_root; r >= 0;) {
		nx = t->n[r].next;
		while (nx >= 0 && !t->n[nx].is_gap && same_tree(t, r, nx)) {
			t->n[r].count++;
			t->n[nx].folded = 1;
			nx = t->n[nx].next;
		}
		r = nx;
	}
}

/* ---- source lines, loops folded ---------------------------------------- */

struct lrun {
	const char *file;
	int line;
	uint64_t pc;
};

/* The runs of source lines that end at the current position, oldest
 * first, up to @max (lines without source on this machine, as libc's
 * assembly, are left out: they would only be noise). */
static int line_runs(struct ptd_session *s, struct lrun *runs, int max, uint64_t *scanned)
{
	struct ptd_symbols *sym = ptd_session_symbols(s);
	const struct ptd_history *h = ptd_session_history(s);
	uint64_t count = 0, pos = 0, steps = 0;
	struct ptd_hcursor c;
	int k = 0;

	*scanned = 0;
	if (!sym || !h || ptd_session_position(s, &pos, &count) < 0 || count == 0 ||
	    ptd_hcursor_goto(&c, h, count) < 0)
		return 0;
	/* a cache of the last function's answer saves most symbol lookups */
	do {
		struct ptd_line li;
		char text[8];

		if (c.is_gap)
			break;
		if (ptd_symbols_line(sym, c.ip, &li) == 0 && li.file) {
			if (k > 0 && runs[k - 1].line == li.line &&
			    !strcmp(runs[k - 1].file, li.file)) {
				runs[k - 1].pc = c.ip;
			} else if (ptd_symbols_source_line(sym, li.file, li.line, text,
							   sizeof(text)) == 0) {
				if (k == max)
					break;
				runs[k].file = li.file;
				runs[k].line = li.line;
				runs[k].pc = c.ip;
				k++;
			}
		}
	} while (++steps < WALK_MAX && ptd_hcursor_prev(&c) == 0);
	*scanned = steps;
	for (int i = 0; i < k / 2; i++) {
		struct lrun tmp = runs[i];
		runs[i] = runs[k - 1 - i];
		runs[k - 1 - i] = tmp;
	}
	return k;
}

static int run_eq(const struct lrun *a, const struct lrun *b)
{
	return a->line == b->line && !strcmp(a->file, b->file);
}

int rep_plain_lines(struct ptd_session *s, uint64_t *pcs, int max)
{
	struct lrun runs[64];
	uint64_t scanned;
	int n;

	if (max > 64)
		max = 64;
	n = line_runs(s, runs, max, &scanned);
	for (int i = 0; i < n; i++)
		pcs[i] = runs[i].pc;
	return n;
}

int rep_lines(struct ptd_session *s, struct rline *out, int max, uint64_t *scanned)
{
	enum { NRUNS = 8192, PMAX = 16 };
	struct lrun *runs = malloc(NRUNS * sizeof(*runs));
	struct rline *all;
	int n, i, k = 0;

	if (!runs)
		return -ptde_nomem;
	n = line_runs(s, runs, NRUNS, scanned);
	all = calloc((size_t)n + 1, sizeof(*all));
	if (!all) {
		free(runs);
		return -ptde_nomem;
	}
	/* Greedy from the oldest: at each place the period whose repetition
	 * covers the most lines (the shortest on a tie) becomes one entry. */
	for (i = 0; i < n;) {
		int best_p = 1;
		unsigned long best_r = 1;
		for (int p = 1; p <= PMAX && i + 2 * p <= n; p++) {
			unsigned long r = 1;
			while (i + (long)(r + 1) * p <= n) {
				int eq = 1;
				for (int j = 0; j < p && eq; j++)
					eq = run_eq(&runs[i + j], &runs[i + r * p + j]);
				if (!eq)
					break;
				r++;
			}
			if (r >= 2 && (unsigned long)p * r > (unsigned long)best_p * best_r) {
				best_p = p;
				best_r = r;
			}
		}
		all[k].period = best_p;
		all[k].count = best_r;
		/* the pcs of the last repetition: the instructions nearest now */
		for (int j = 0; j < best_p; j++)
			all[k].pcs[j] = runs[i + (best_r - 1) * best_p + j].pc;
		k++;
		i += best_p * (int)best_r;
	}
	free(runs);
	if (k > max) {
		memmove(all, all + (k - max), (size_t)max * sizeof(*all));
		k = max;
	}
	memcpy(out, all, (size_t)k * sizeof(*all));
	free(all);
	return k;
}

/* ---- branch decisions -------------------------------------------------- */

int rep_branches(struct ptd_session *s, struct rbranch *out, int max)
{
	const struct ptd_history *h = ptd_session_history(s);
	uint64_t count = 0, pos = 0, next_ip = 0, steps = 0;
	struct ptd_hcursor c;
	int k = 0, have_next = 0;

	if (!h || max <= 0 || ptd_session_position(s, &pos, &count) < 0 || count == 0 ||
	    ptd_hcursor_goto(&c, h, count) < 0)
		return 0;
	do {
		if (c.is_gap) {
			have_next = 0;
			continue;
		}
		if (have_next && c.iclass == PTD_IC_COND_JUMP && c.len) {
			out[k].number = c.number;
			out[k].pc = c.ip;
			out[k].taken = next_ip != c.ip + c.len;
			if (++k == max)
				break;
		}
		next_ip = c.ip;
		have_next = 1;
	} while (++steps < WALK_MAX && ptd_hcursor_prev(&c) == 0);
	for (int i = 0; i < k / 2; i++) {
		struct rbranch t = out[i];
		out[i] = out[k - 1 - i];
		out[k - 1 - i] = t;
	}
	return k;
}

/* ---- gaps ------------------------------------------------------------------ */

int rep_gaps(struct ptd_session *s, struct rgap *out, int max)
{
	const struct ptd_history *h = ptd_session_history(s);
	uint64_t n = h ? ptd_history_nitems(h) : 0;
	int k = 0;

	for (uint64_t i = 0; i < n; i++) {
		struct ptd_item it;

		if (!ptd_history_item(h, i, &it) || it.kind != PTD_ITEM_GAP)
			continue;
		if (out && k < max) {
			out[k].number = it.number;
			out[k].reason = it.reason;
			out[k].arg = it.arg;
			out[k].detail = ptd_history_detail(h, it.detail);
		}
		k++;
	}
	return k;
}

uint64_t rep_ninsn(struct ptd_session *s)
{
	const struct ptd_history *h = ptd_session_history(s);

	return h ? ptd_history_ninsn(h) : 0;
}

/* ---- names ------------------------------------------------------------------- */

const char *rep_trigger_name(enum rep_trigger t)
{
	static const char *const names[] = {"crash",  "until",	 "at",	 "exit",
					    "signal", "timeout", "none", "trace_end"};
	return (unsigned)t < sizeof(names) / sizeof(names[0]) ? names[t] : "none";
}

const char *rep_prog_state_name(enum rep_prog_state p)
{
	static const char *const names[] = {"crashed", "exiting", "exited",
					    "killed",  "running", "none"};
	return (unsigned)p < sizeof(names) / sizeof(names[0]) ? names[p] : "none";
}

struct code_name {
	int signo, code;
	const char *name, *desc;
};

/* si_code values of the kernel's siginfo (asm-generic/siginfo.h). */
static const struct code_name codes[] = {
	{SIGSEGV, SEGV_MAPERR, "SEGV_MAPERR", "address not mapped to object"},
	{SIGSEGV, SEGV_ACCERR, "SEGV_ACCERR", "invalid permissions for mapped object"},
	{SIGSEGV, 3, "SEGV_BNDERR", "failed address bound checks"},
	{SIGSEGV, 4, "SEGV_PKUERR", "failed protection key checks"},
	{SIGBUS, BUS_ADRALN, "BUS_ADRALN", "invalid address alignment"},
	{SIGBUS, BUS_ADRERR, "BUS_ADRERR", "nonexistent physical address"},
	{SIGBUS, BUS_OBJERR, "BUS_OBJERR", "object specific hardware error"},
	{SIGILL, ILL_ILLOPC, "ILL_ILLOPC", "illegal opcode"},
	{SIGILL, ILL_ILLOPN, "ILL_ILLOPN", "illegal operand"},
	{SIGILL, ILL_ILLADR, "ILL_ILLADR", "illegal addressing mode"},
	{SIGILL, ILL_ILLTRP, "ILL_ILLTRP", "illegal trap"},
	{SIGILL, ILL_PRVOPC, "ILL_PRVOPC", "privileged opcode"},
	{SIGFPE, FPE_INTDIV, "FPE_INTDIV", "integer divide by zero"},
	{SIGFPE, FPE_INTOVF, "FPE_INTOVF", "integer overflow"},
	{SIGFPE, FPE_FLTDIV, "FPE_FLTDIV", "floating-point divide by zero"},
	{SIGFPE, FPE_FLTINV, "FPE_FLTINV", "floating-point invalid operation"},
	{SIGTRAP, TRAP_BRKPT, "TRAP_BRKPT", "process breakpoint"},
	{SIGTRAP, TRAP_TRACE, "TRAP_TRACE", "process trace trap"},
	{0, SI_USER, "SI_USER", "sent by kill or raise"},
	{0, SI_KERNEL, "SI_KERNEL", "sent by the kernel"},
	{0, SI_QUEUE, "SI_QUEUE", "sent by sigqueue"},
	{0, SI_TIMER, "SI_TIMER", "a POSIX timer expired"},
	{0, SI_TKILL, "SI_TKILL", "sent by tkill or tgkill (raise, abort)"},
	{0, SI_MESGQ, "SI_MESGQ", "a message arrived"},
	{0, SI_ASYNCIO, "SI_ASYNCIO", "asynchronous I/O completed"},
};

const char *rep_si_code_name(int signo, int code, const char **desc)
{
	for (size_t i = 0; i < sizeof(codes) / sizeof(codes[0]); i++) {
		/* codes <= 0 (and SI_KERNEL) mean the same for every signal */
		if ((codes[i].signo == signo && code > 0 && code != SI_KERNEL) ||
		    (codes[i].signo == 0 && (code <= 0 || code == SI_KERNEL))) {
			if (codes[i].code != code)
				continue;
			if (desc)
				*desc = codes[i].desc;
			return codes[i].name;
		}
	}
	if (desc)
		*desc = NULL;
	return NULL;
}

int rep_si_has_addr(int signo)
{
	return signo == SIGSEGV || signo == SIGBUS || signo == SIGILL || signo == SIGFPE;
}

const char *rep_stop_text(const struct rep *r, char *buf, size_t n)
{
	const struct ptd_event *ev = &r->ev;

	switch (r->trig) {
	case TRIG_CRASH:
		/* gdb names the thread when there are several */
		if (r->all_threads > 1)
			snprintf(buf, n, "Thread %d received signal %s, %s.", r->cur_thread,
				 ptd_print_signame(ev->signo), ptd_print_sigdesc(ev->signo));
		else
			snprintf(buf, n, "Program received signal %s, %s.",
				 ptd_print_signame(ev->signo), ptd_print_sigdesc(ev->signo));
		break;
	case TRIG_UNTIL:
		snprintf(buf, n, "Stopped at the --until location (breakpoint %d).", ev->bp_id);
		break;
	case TRIG_AT:
		snprintf(buf, n, "Stopped at the --at location %s, hit %u.", r->o->at, r->o->at_n);
		break;
	case TRIG_EXIT:
		snprintf(buf, n, "The program is about to exit with code %d.", r->prog_code);
		break;
	case TRIG_SIGNAL:
		snprintf(buf, n, "Snapshot: ptdbg-report received %s; the program was running.",
			 ptd_print_signame(r->trig_signo));
		break;
	case TRIG_TIMEOUT:
		snprintf(buf, n,
			 "Snapshot: the --timeout of %u s expired; the program was running.",
			 r->o->timeout);
		break;
	case TRIG_TRACE_END:
		snprintf(buf, n, "The end of the recorded trace.");
		break;
	case TRIG_NONE:
	default:
		if (r->prog == PROG_EXITING || r->prog == PROG_EXITED)
			snprintf(
				buf, n,
				"No trigger fired: the program ran to its end and %s with code %d.",
				r->prog == PROG_EXITING ? "is about to exit" : "exited",
				r->prog_code);
		else if (r->prog == PROG_KILLED)
			snprintf(buf, n, "No trigger fired: the program was killed by %s.",
				 ptd_print_signame(r->prog_code));
		else
			snprintf(buf, n, "No trigger fired.");
		break;
	}
	return buf;
}

int rep_select(struct rep *r, int num)
{
	return ptd_session_select_thread(r->s, num);
}
