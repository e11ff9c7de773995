/*
 * One debugging session (see session.h): allocation, settings, the
 * threads and their histories, symbols, launch/attach/detach/kill, and the
 * state at the current position (pc, registers, memory, backtrace).
 *
 * The other concerns live beside it, sharing struct ptd_session through
 * session_int.h: breakpoints.c (the user's breakpoints), recording.c
 * (record start/stop, the recorder behind struct ptd_recorder, PT made
 * from blocks, bounded recording), recopts.c (record options), run.c (the
 * live run loop and motions), offline.c (bundles, perf.data, loaded and
 * kept recordings), codekeep.c (code unmapped while recording, snapshots).
 */
#include "session/session_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sched.h>
#include <signal.h>
#include <unistd.h>

#include "decode/pt.h"
#include "replay/live.h"
#include "symbols/symbols.h"
#include "target/target.h"
#include "unwind/unwind.h"
#include "util/error.h"

/* ---- methods ----------------------------------------------------------------- */

static const char *const method_names[] = {
	[PTD_METHOD_AUTO] = "auto", [PTD_METHOD_STEP] = "step", [PTD_METHOD_SOFT] = "soft",
	[PTD_METHOD_PT] = "pt",     [PTD_METHOD_BTS] = "bts",
};

int ptd_method_parse(const char *name)
{
	if (!name)
		return -ptde_invalid;
	if (!strcmp(name, "auto"))
		return PTD_METHOD_AUTO;
	if (!strcmp(name, "step") || !strcmp(name, "full"))
		return PTD_METHOD_STEP;
	if (!strcmp(name, "soft"))
		return PTD_METHOD_SOFT;
	if (!strcmp(name, "pt"))
		return PTD_METHOD_PT;
	if (!strcmp(name, "bts"))
		return PTD_METHOD_BTS;
	return ptd__err(-ptde_invalid,
			"unknown recording method '%s' (valid: auto, pt, bts, soft, step)", name);
}

const char *ptd_method_name(enum ptd_method m)
{
	if ((unsigned)m < sizeof(method_names) / sizeof(method_names[0]))
		return method_names[m];
	return "?";
}

/* ---- plumbing ------------------------------------------------------------------ */

struct sthread *ptd__ses_cur_thread(struct ptd_session *s)
{
	if (s->cur < 0 || s->cur >= s->nth)
		return NULL;
	return &s->th[s->cur];
}

struct sthread *ptd__ses_thread_by_tid(struct ptd_session *s, pid_t tid)
{
	for (int i = 0; i < s->nth; i++)
		if (s->th[i].tid == tid && !s->th[i].gone)
			return &s->th[i];
	return NULL;
}

/* Ends the live recording's recorder (the histories stay). */
void ptd__ses_rec_free(struct ptd_session *s)
{
	if (s->rec && !(s->rec->caps & PTD_REC_STOPS_PER_BRANCH) && ptd_session_alive(s))
		ptd_target_set_exit_stops(s->t, 0);
	ptd_recorder_free(s->rec);
	s->rec = NULL;
	s->recording = 0;
}

/* Does the live recorder record @tid? */
int ptd__ses_rec_has(const struct ptd_session *s, pid_t tid)
{
	return s->rec && s->rec->ops->has_thread(s->rec, tid);
}

/* A recording error met where nobody can return it (a recorder's
 * callback, the end of a motion): the front end hears of it through the
 * notify callback; the history itself has a gap for what was lost. */
void ptd__ses_rec_warn(struct ptd_session *s, int rc, const char *what)
{
	char msg[512];

	if (rc >= 0 || !s->notify)
		return;
	snprintf(msg, sizeof(msg), "warning: %s: %s", what, ptd_last_error(rc));
	s->notify(s->notify_ctx, msg);
}

static int read_live(void *ctx, uint64_t addr, uint8_t *buf, size_t n)
{
	struct ptd_session *s = ctx;
	long r;

	if (!s->t || !ptd_target_alive(s->t))
		return -ptde_not_running;
	r = ptd_target_read(s->t, addr, buf, n);
	if (r < 0 && n > 1) {
		/* The range may cross into an unmapped page: try byte-wise
		 * shorter reads up to the page end. */
		size_t to_page = 4096 - (addr & 4095);
		if (to_page < n)
			r = ptd_target_read(s->t, addr, buf, to_page);
	}
	return (int)r;
}

/* Code bytes for histories and decoders: the live memory, else code
 * unmapped during the recording. */
int ptd__ses_read_code(void *ctx, uint64_t addr, uint8_t *buf, size_t n)
{
	struct ptd_session *s = ctx;
	int r;

	if (s->offline)
		return s->offimg ? ptd_image_read(s->offimg, addr, buf, n) : -ptde_nomap;
	r = read_live(ctx, addr, buf, n);

	if (r <= 0)
		r = ptd__ses_dead_read(s, addr, buf, n);
	if (r <= 0 && s->rec && s->rec->ops->read_code && !s->in_rec_read) {
		/* Code the program unmapped that a free-running recorder
		 * still has (its image falls back on this function: once). */
		s->in_rec_read = 1;
		r = s->rec->ops->read_code(s->rec, addr, buf, n);
		s->in_rec_read = 0;
	}
	return r;
}

struct sthread *ptd__ses_add_sthread(struct ptd_session *s, pid_t tid)
{
	struct sthread *th = ptd__ses_thread_by_tid(s, tid);

	if (th)
		return th;
	if (s->nth == s->cap_th) {
		int cap = s->cap_th ? 2 * s->cap_th : 8;
		struct sthread *n = realloc(s->th, cap * sizeof(*n));
		if (!n)
			return NULL;
		s->th = n;
		s->cap_th = cap;
	}
	th = &s->th[s->nth];
	memset(th, 0, sizeof(*th));
	th->tid = tid;
	th->num = ++s->next_thread_num;
	th->h = ptd_history_alloc(ptd__ses_read_code, s);
	if (!th->h)
		return NULL;
	/* A live thread's history keeps a call log (loaded ones get theirs
	 * in offline.c), so the first call view after a stop does not walk
	 * every item again. */
	if (!s->offline)
		ptd_history_set_func(th->h, ptd__ses_env_func_of, s);
	s->nth++;
	return th;
}

void ptd__ses_drop_calls(struct sthread *th)
{
	ptd_calls_free(th->calls);
	th->calls = NULL;
}

void ptd__ses_drop_pt(struct sthread *th)
{
	ptd_history_free(th->stage);
	th->stage = NULL;
	ptd_ptsynth_free(th->synth);
	th->synth = NULL;
	free(th->pt);
	th->pt = NULL;
	th->pt_size = th->pt_cap = 0;
	free(th->marks);
	th->marks = NULL;
	th->nmarks = th->cap_marks = 0;
}


static void fo_free(struct ses_answers *a);

static void free_threads(struct ptd_session *s)
{
	for (int i = 0; i < s->nth; i++) {
		ptd__ses_drop_calls(&s->th[i]);
		ptd__ses_drop_pt(&s->th[i]);
		ptd_history_free(s->th[i].h);
		ptd__ses_drop_lazy(&s->th[i]);
		free(s->th[i].outer);
	}
	free(s->th);
	s->th = NULL;
	s->nth = s->cap_th = 0;
	s->next_thread_num = 0;
	s->cur = 0;
}

struct ptd_symbols *ptd__ses_symbols(struct ptd_session *s)
{
	if (s->offline) {
		if (!s->sym && !s->offline_sym_tried) {
			s->offline_sym_tried = 1;
			ptd__ses_offline_symbols(s);
		}
		return s->sym;
	}
	if (s->t && ptd_target_alive(s->t)) {
		if (!s->sym) {
			if (ptd_symbols_alloc_pid(&s->sym, ptd_target_pid(s->t)) < 0)
				s->sym = NULL;
			s->sym_dirty = 0;
			s->sym_gen++;
		} else if (s->sym_dirty) {
			ptd_symbols_refresh(s->sym);
			s->sym_dirty = 0;
			s->sym_gen++;
		}
	} else if (!s->sym && s->argv && s->argv[0]) {
		if (ptd_symbols_alloc_file(&s->sym, s->argv[0], 0) < 0)
			s->sym = NULL;
		s->sym_gen++;
	}
	return s->sym;
}

/* Replay/stepper callbacks. */
int ptd__ses_env_line_of(void *ctx, uint64_t addr, struct ptd_line_info *li)
{
	struct ptd_session *s = ctx;
	struct ptd_symbols *sym = ptd__ses_symbols_at(s);
	struct ptd_line l;

	if (!sym || ptd_symbols_line(sym, addr, &l) < 0)
		return -1;
	li->file = l.file;
	li->line = l.line;
	li->lo = l.lo;
	li->hi = l.hi;
	li->is_stmt = l.is_stmt;
	return 0;
}

/* The call logs' func_of: an address tagged with an epoch
 * (ptd_history_mark_image) is looked up in that program's symbols. */
static uint64_t func_lookup(struct ptd_session *s, uint64_t addr)
{
	unsigned k = (unsigned)(addr >> PTD_FUNC_TAG_SHIFT);
	struct ptd_symbols *sym;
	struct ptd_symbol fs;

	if (k && k <= (unsigned)s->nepochs) {
		sym = s->epochs[k - 1]->sym;
		addr &= (1ull << PTD_FUNC_TAG_SHIFT) - 1;
	} else {
		sym = ptd__ses_symbols(s);
	}

	if (!sym || ptd_symbols_lookup(sym, addr, &fs) < 0)
		return 0;
	return fs.start;
}

static size_t fo_slot(const struct ses_answers *a, uint64_t addr)
{
	size_t i = (size_t)((addr * 0x9e3779b97f4a7c15ull) >> 20) & (a->cap - 1);

	while (a->key[i] && a->key[i] != addr + 1)
		i = (i + 1) & (a->cap - 1);
	return i;
}

static int fo_grow(struct ses_answers *a)
{
	size_t cap = a->cap ? a->cap * 2 : 1024, i;
	struct ses_answers b = *a;

	b.key = calloc(cap, sizeof(*b.key));
	b.val = malloc(cap * sizeof(*b.val));
	if (!b.key || !b.val) {
		free(b.key);
		free(b.val);
		return -1;
	}
	b.cap = cap;
	for (i = 0; i < a->cap; i++)
		if (a->key[i]) {
			size_t j = fo_slot(&b, a->key[i] - 1);

			b.key[j] = a->key[i];
			b.val[j] = a->val[i];
		}
	free(a->key);
	free(a->val);
	*a = b;
	return 0;
}

/* Keeps the answer for @addr (the first one: a later different one
 * means the logs may hold the old one). */
static void fo_note(struct ses_answers *a, uint64_t addr, uint64_t r)
{
	size_t i;

	if (a->differ)
		return; /* every log is written again anyway */
	if (a->n * 2 >= a->cap && fo_grow(a) < 0) {
		a->differ = 1; /* cannot keep it: check everything */
		return;
	}
	i = fo_slot(a, addr);
	if (!a->key[i]) {
		a->key[i] = addr + 1;
		a->val[i] = r;
		a->n++;
	} else if (a->val[i] != r) {
		a->differ = 1;
	}
}

static void fo_free(struct ses_answers *a)
{
	free(a->key);
	free(a->val);
	memset(a, 0, sizeof(*a));
}

uint64_t ptd__ses_env_func_of(void *ctx, uint64_t addr)
{
	struct ptd_session *s = ctx;
	uint64_t r = func_lookup(s, addr);

	if (!s->fo.n) { /* the answers kept are those of the symbols now */
		s->fo.gen = s->sym_gen;
		s->fo.sym = s->sym;
	}
	fo_note(&s->fo, addr, r);
	return r;
}

/* The replay motions' func_of: the function of @addr in the program
 * that ran at the motion's position (no call log keeps these answers). */
static uint64_t env_func_at(void *ctx, uint64_t addr)
{
	struct ptd_symbols *sym = ptd__ses_symbols_at(ctx);
	struct ptd_symbol fs;

	if (!sym || ptd_symbols_lookup(sym, addr, &fs) < 0)
		return 0;
	return fs.start;
}

static uint64_t env_thunk_target(void *ctx, uint64_t addr)
{
	struct ptd_session *s = ctx;
	struct ptd_symbols *sym = ptd__ses_symbols_at(s);
	uint64_t t;

	if (!sym || ptd__symbols_thunk_target(sym, addr, &t) < 0) {
		ptd_clear_error();
		return 0;
	}
	return t;
}

static uint64_t env_range_start(void *ctx, uint64_t addr)
{
	struct ptd_session *s = ctx;
	struct ptd_symbols *sym = ptd__ses_symbols_at(s);
	uint64_t lo;

	if (!sym || ptd__symbols_range_start(sym, addr, &lo) < 0) {
		ptd_clear_error();
		return 0;
	}
	return lo;
}

/* Whether an answer func_of gave may differ now: asks again for each
 * address remembered when the symbols changed since the last look. */
static int fo_changed(struct ptd_session *s)
{
	struct ses_answers *a = &s->fo;
	int changed = a->differ;
	size_t i;

	ptd__ses_symbols(s); /* a pending refresh first */
	if (!changed && a->gen == s->sym_gen && a->sym == s->sym)
		return 0;
	for (i = 0; i < a->cap; i++) {
		uint64_t r;

		if (!a->key[i])
			continue;
		r = func_lookup(s, a->key[i] - 1);
		if (r != a->val[i]) {
			a->val[i] = r;
			changed = 1;
		}
	}
	a->differ = 0;
	a->gen = s->sym_gen;
	a->sym = s->sym;
	return changed;
}

void ptd__ses_calls_fresh(struct ptd_session *s, struct sthread *th)
{
	if (fo_changed(s)) {
		/* Every thread's log used the old answers: each is written
		 * again now (its view too), else the next appends would
		 * extend a log the builder can no longer trust. */
		for (int i = 0; i < s->nth; i++) {
			int rc = ptd_history_relog(s->th[i].h, 1);

			ptd__ses_drop_calls(&s->th[i]);
			if (rc < 0)
				ptd_clear_error();
			else
				s->relogs += (uint64_t)rc;
		}
		return;
	}
	/* (a loaded trace's log is offline.c's: it stands for what it can,
	 * the builder walks the items after it) */
	if (th && !s->offline) {
		int rc = ptd_history_relog(th->h, 0);

		if (rc < 0)
			ptd_clear_error();
		else
			s->relogs += (uint64_t)rc;
	}
}

static int env_is_bp(void *ctx, uint64_t addr, int *id)
{
	struct ptd_session *s = ctx;

	struct sbp *b = ptd__ses_bp_at(s, addr);

	if (b && id)
		*id = b->id;
	return b != NULL;
}

static uint64_t env_func_bp(void *ctx, uint64_t entry)
{
	struct ptd_session *s = ctx;
	struct ptd_symbols *sym = ptd__ses_symbols_at(s);
	struct ptd_symbol fs;
	uint64_t e, bp;

	if (!sym || ptd_symbols_lookup(sym, entry, &fs) < 0 || fs.start != entry || !fs.name)
		return 0;
	if (ptd_symbols_function(sym, fs.name, &e, &bp) < 0)
		return 0;
	if (e != entry) {
		/* Several functions have the name (a class's deleting,
		 * complete and base destructors): the one at @entry. */
		uint64_t *es = NULL, *bs = NULL;
		int n = ptd__symbols_functions(sym, fs.name, &es, &bs), i;

		for (i = 0, bp = 0; i < n && !bp; i++)
			if (es[i] == entry)
				bp = bs[i];
		free(es);
		free(bs);
	}
	return bp;
}

/* gdb's skip list (the front end's): the function holding @addr, by its
 * name and the file of its entry's line. */
static int env_skipped(void *ctx, uint64_t addr)
{
	struct ptd_session *s = ctx;
	struct ptd_symbols *sym = ptd__ses_symbols(s);
	struct ptd_symbol fs;
	struct ptd_line_info li;
	const char *file = NULL;

	if (!s->skip_fn || !sym || ptd_symbols_lookup(sym, addr, &fs) < 0) {
		ptd_clear_error();
		return 0;
	}
	memset(&li, 0, sizeof(li));
	if (ptd__ses_env_line_of(s, fs.start, &li) == 0)
		file = li.file;
	ptd_clear_error();
	return s->skip_fn(s->skip_ctx, fs.name, file);
}

void ptd_session_set_skip(struct ptd_session *s, ptd_skip_fn fn, void *ctx)
{
	if (!s)
		return;
	s->skip_fn = fn;
	s->skip_ctx = ctx;
}

static int env_is_trampoline(void *ctx, uint64_t pc)
{
	struct ptd_session *s = ctx;
	struct ptd_symbols *sym = ptd__ses_symbols_at(s);
	struct ptd_symbol fs;
	const char *base;
	size_t n;

	if (ptd__symbols_in_plt(sym, pc))
		return 1;
	if (!sym || ptd_symbols_lookup(sym, pc, &fs) < 0)
		return 0;
	n = fs.name ? strlen(fs.name) : 0;
	if (n > 4 && !strcmp(fs.name + n - 4, "@plt"))
		return 1;
	/* The dynamic linker's lazy-binding resolver. */
	base = fs.module ? strrchr(fs.module, '/') : NULL;
	base = base ? base + 1 : fs.module;
	return base && !strncmp(base, "ld-linux", 8);
}

static int env_is_longjmp(void *ctx, uint64_t pc)
{
	static const char *const names[] = { "longjmp", "_longjmp", "siglongjmp", "_siglongjmp" };
	struct ptd_symbols *sym = ptd__ses_symbols_at(ctx);
	uint64_t e;
	size_t i;

	for (i = 0; sym && i < sizeof(names) / sizeof(names[0]); i++)
		if (ptd_symbols_function(sym, names[i], &e, NULL) == 0 && e == pc)
			return 1;
	ptd_clear_error();
	return 0;
}

struct ptd_session *ptd_session_alloc(void)
{
	struct ptd_session *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->disable_aslr = 1;
	s->pin_cpu = 1;
	s->method = PTD_METHOD_AUTO;
	s->buf_soft = s->buf_step = PTD_RECORD_BUFFER_DEFAULT;
	s->ptcfg.ret_compression = s->ptcfg.tsc = s->ptcfg.mtc = s->ptcfg.cyc = -1;
	s->ptcfg.psb_period = -1;
	s->next_bp_id = 1;
	s->fin_sel_real = -1;
	s->senv.base.ctx = s;
	s->senv.base.line_of = ptd__ses_env_line_of;
	s->senv.base.func_of = env_func_at;
	s->senv.base.at = &s->look_num;
	s->senv.base.range_start = env_range_start;
	s->senv.base.thunk_target = env_thunk_target;
	s->senv.base.skipped = env_skipped;
	s->senv.base.is_breakpoint = env_is_bp;
	s->senv.func_bp = env_func_bp;
	s->senv.is_trampoline = env_is_trampoline;
	s->senv.base.in_trampoline = env_is_trampoline;
	s->senv.base.is_longjmp = env_is_longjmp;
	return s;
}

void ptd__ses_drop_process(struct ptd_session *s)
{
	ptd__ses_rec_free(s);
	ptd_target_free(s->t);
	s->t = NULL;
	ptd_symbols_free(s->sym);
	s->sym = NULL;
	free_threads(s);
	fo_free(&s->fo); /* no log holds its answers any more */
	ptd__ses_dead_free(s);
	ptd__ses_snap_free(s);
	ptd_image_free(s->offimg);
	s->offimg = NULL;
	ptd_image_free(s->exec_img);
	s->exec_img = NULL;
	ptd__ses_epochs_free(s); /* (after the histories that read through them) */
	ptd_bundle_free(s->bundle);
	s->bundle = NULL;
	s->offline = 0;
	s->offline_sym_tried = 0;
	s->kept = 0;
	free(s->offline_exe);
	s->offline_exe = NULL;
	ptd__ses_bp_forget_inserted(s);
	ptd__ses_watch_drop_locals(s);
}

static void free_strv(char **v)
{
	for (char **a = v; a && *a; a++)
		free(*a);
	free(v);
}

void ptd_session_free(struct ptd_session *s)
{
	if (!s)
		return;
	ptd__ses_drop_process(s);
	for (int i = 0; i < s->nbp; i++) {
		free(s->bp[i].spec);
		free(s->bp[i].cond);
		free(s->bp[i].dprintf);
		free(s->bp[i].catch_what);
		ptd__ses_bp_free_locs(&s->bp[i]);
	}
	free(s->stop_func);
	free(s->bp);
	ptd__ses_bp_forget_mods(s);
	for (int i = 0; i < s->ptcfg.nfilters; i++)
		free(s->ptcfg.filters[i]);
	if (s->argv) {
		for (char **a = s->argv; *a; a++)
			free(*a);
		free(s->argv);
	}
	free_strv(s->envp);
	ptd_session_set_redirects(s, NULL, 0);
	free(s->tty);
	free(s);
}

int ptd_session_set_redirects(struct ptd_session *s, const struct ptd_redirect *r, int n)
{
	struct ptd_redirect *copy = NULL;
	int i;

	if (!s || n < 0 || (n && !r))
		return -ptde_invalid;
	for (i = 0; i < n; i++)
		if (r[i].fd < 0 || r[i].fd > 2 || (!r[i].path && (r[i].dup_from < 0 || r[i].dup_from > 2)))
			return ptd__err(-ptde_invalid, "only descriptors 0, 1 and 2 can be redirected");
	if (n) {
		copy = calloc((size_t)n, sizeof(*copy));
		if (!copy)
			return -ptde_nomem;
		for (i = 0; i < n; i++) {
			copy[i] = r[i];
			if (r[i].path && !(copy[i].path = strdup(r[i].path))) {
				while (i--)
					free((char *)copy[i].path);
				free(copy);
				return -ptde_nomem;
			}
		}
	}
	for (i = 0; i < s->nredir; i++)
		free((char *)s->redir[i].path);
	free(s->redir);
	s->redir = copy;
	s->nredir = n;
	return 0;
}

int ptd_session_set_tty(struct ptd_session *s, const char *path)
{
	char *copy = NULL;

	if (!s)
		return -ptde_invalid;
	if (path && *path && !(copy = strdup(path)))
		return -ptde_nomem;
	free(s->tty);
	s->tty = copy;
	return 0;
}

const char *ptd_session_tty(const struct ptd_session *s)
{
	return s && s->tty ? s->tty : "";
}

void ptd_session_set_disable_aslr(struct ptd_session *s, int on)
{
	if (s)
		s->disable_aslr = !!on;
}

int ptd_session_get_disable_aslr(const struct ptd_session *s)
{
	return s ? s->disable_aslr : 0;
}

int ptd_session_set_environment(struct ptd_session *s, char *const *envp)
{
	char **copy = NULL;
	int n = 0;

	if (!s)
		return -ptde_invalid;
	if (envp) {
		while (envp[n])
			n++;
		copy = calloc((size_t)n + 1, sizeof(*copy));
		if (!copy)
			return -ptde_nomem;
		for (int i = 0; i < n; i++)
			if (!(copy[i] = strdup(envp[i]))) {
				free_strv(copy);
				return -ptde_nomem;
			}
	}
	free_strv(s->envp);
	s->envp = copy;
	return 0;
}

int ptd_session_set_program(struct ptd_session *s, char *const *argv)
{
	int n = 0;
	char **copy;

	if (!s || !argv || !argv[0])
		return ptd__err(-ptde_invalid, "no program given");
	while (argv[n])
		n++;
	copy = calloc(n + 1, sizeof(*copy));
	if (!copy)
		return -ptde_nomem;
	for (int i = 0; i < n; i++)
		if (!(copy[i] = strdup(argv[i]))) {
			for (int j = 0; j < i; j++)
				free(copy[j]);
			free(copy);
			return -ptde_nomem;
		}
	if (s->argv) {
		for (char **a = s->argv; *a; a++)
			free(*a);
		free(s->argv);
	}
	s->argv = copy;
	if (!s->t) {
		ptd_symbols_free(s->sym);
		s->sym = NULL;
	}
	return 0;
}

const char *ptd_session_program(const struct ptd_session *s)
{
	return s && s->argv ? s->argv[0] : NULL;
}

void ptd_session_set_method(struct ptd_session *s, enum ptd_method m)
{
	if (s)
		s->method = m;
}

int ptd_session_alive(const struct ptd_session *s)
{
	return s && s->t && ptd_target_alive(s->t);
}

pid_t ptd_session_pid(const struct ptd_session *s)
{
	return ptd_session_alive(s) ? ptd_target_pid(s->t) : 0;
}

struct ptd_symbols *ptd_session_symbols(struct ptd_session *s)
{
	return s ? ptd__ses_symbols_at(s) : NULL;
}

struct ptd_target *ptd_session_target(struct ptd_session *s)
{
	return s ? s->t : NULL;
}

void ptd_session_interrupt(struct ptd_session *s)
{
	if (!s)
		return;
	s->interrupted = 1;
	/* a program that runs without stopping must be stopped for it */
	ptd_target_request_interrupt(SIGINT);
}

/* ---- process lifecycle ------------------------------------------------------------------ */

static int sync_threads(struct ptd_session *s)
{
	int n = ptd_target_threads(s->t, NULL, 0), rc = 0;
	pid_t *tids;

	if (n < 0)
		return n;
	tids = calloc((size_t)n + 1, sizeof(*tids));
	if (!tids)
		return ptd__err(-ptde_nomem, "cannot list %d threads: out of memory", n);
	n = ptd_target_threads(s->t, tids, n);
	for (int i = 0; i < n && rc == 0; i++)
		if (!ptd__ses_add_sthread(s, tids[i]))
			rc = ptd__err(-ptde_nomem, "cannot add thread %d: out of memory",
				      (int)tids[i]);
	free(tids);
	return rc;
}

/*
 * A ptrace stop costs about half as much when the tracer and the traced
 * thread share a CPU (no cross-CPU wake-up, which is expensive in a VM),
 * so like rr we run everything on one CPU: ptdbg pins itself, and the
 * target pins the program's threads, keeping their own masks to give back
 * at detach (and when ptdbg is killed).  A launched program is started
 * with ptdbg's own mask, the one it would have had without ptdbg.
 */
static int pin_cpu_self(struct ptd_session *s)
{
	cpu_set_t set;
	int cpu = sched_getcpu();

	if (cpu < 0)
		cpu = 0;
	if (!s->own_aff_saved && sched_getaffinity(0, sizeof(s->own_aff), &s->own_aff) == 0)
		s->own_aff_saved = 1;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	sched_setaffinity(0, sizeof(set), &set);
	return cpu;
}

static void unpin_self(struct ptd_session *s)
{
	if (s->own_aff_saved)
		sched_setaffinity(0, sizeof(s->own_aff), &s->own_aff);
}

static void pin_program(struct ptd_session *s)
{
	if (s->pin_cpu && ptd_session_alive(s))
		ptd_target_pin(s->t, pin_cpu_self(s));
}

void ptd_session_set_keep_exited(struct ptd_session *s, int on)
{
	if (s)
		s->keep_exited = !!on;
}

void ptd_session_set_pin_cpu(struct ptd_session *s, int on)
{
	if (!s)
		return;
	s->pin_cpu = !!on;
	if (on) {
		pin_program(s);
		return;
	}
	if (s->t)
		ptd_target_pin(s->t, -1);
	unpin_self(s);
}

int ptd_session_get_pin_cpu(const struct ptd_session *s)
{
	return s ? s->pin_cpu : 0;
}

static int after_start(struct ptd_session *s)
{
	int rc;

	ptd_symbols_free(s->sym);
	s->sym = NULL;
	rc = sync_threads(s);
	if (rc < 0)
		return rc;
	s->cur = 0;
	ptd__ses_symbols(s);
	ptd__ses_bp_rearm_all(s);
	return 0;
}

int ptd_session_run(struct ptd_session *s, int start, struct ptd_event *ev)
{
	struct ptd_launch l = { 0 };
	int rc, tmp = 0;

	if (!s || !ev)
		return -ptde_invalid;
	memset(ev, 0, sizeof(*ev));
	if (!s->argv)
		return ptd__err(-ptde_invalid,
				"No executable file specified.\nUse the \"file\" or \"exec-file\" command.");
	ptd__ses_bp_clear_hits(s); /* gdb's run starts the counts again */
	/* also a kept (killed) recording or a loaded bundle: all goes */
	if (s->t || s->offline)
		ptd__ses_drop_process(s);
	l.argv = s->argv;
	l.disable_aslr = s->disable_aslr;
	l.envp = s->envp;
	l.redir = s->redir;
	l.nredir = s->nredir;
	l.tty = s->tty;
	unpin_self(s);
	rc = ptd_target_launch(&s->t, &l);
	if (rc < 0) {
		s->t = NULL;
		return rc;
	}
	pin_program(s);
	rc = after_start(s);
	if (rc < 0)
		return rc;
	if (start) {
		tmp = ptd_session_break(s, "main", 1);
		if (tmp < 0)
			return tmp;
	}
	/* a breakpoint that cannot be inserted: the program stays at its
	 * first instruction, with gdb's warning */
	rc = ptd__ses_bp_arm_all(s, 0);
	if (rc < 0)
		return rc;
	return ptd__ses_live_run(s, PTD_MOTION_CONTINUE, ev);
}

/* Launches the program and leaves it stopped at its first instruction (the
 * gdb stub: gdb expects the program stopped there, as gdbserver leaves it). */
int ptd_session_launch(struct ptd_session *s)
{
	struct ptd_launch l = { 0 };
	int rc;

	if (!s)
		return -ptde_invalid;
	if (!s->argv)
		return ptd__err(-ptde_invalid, "no program given");
	ptd__ses_bp_clear_hits(s);
	if (s->t || s->offline)
		ptd__ses_drop_process(s);
	l.argv = s->argv;
	l.disable_aslr = s->disable_aslr;
	l.envp = s->envp;
	unpin_self(s);
	rc = ptd_target_launch(&s->t, &l);
	if (rc < 0) {
		s->t = NULL;
		return rc;
	}
	pin_program(s);
	return after_start(s);
}

int ptd_session_attach(struct ptd_session *s, pid_t pid)
{
	int rc;

	if (!s)
		return -ptde_invalid;
	if (ptd_session_alive(s))
		return ptd__err(-ptde_busy, "A program is being debugged already.");
	ptd__ses_drop_process(s);
	rc = ptd_target_attach(&s->t, pid);
	if (rc < 0) {
		s->t = NULL;
		return rc;
	}
	rc = after_start(s);
	if (rc == 0)
		pin_program(s);
	return rc;
}

int ptd_session_detach(struct ptd_session *s)
{
	int rc;

	if (!ptd_session_alive(s))
		return ptd__err(-ptde_not_running, "The program is not being run.");
	ptd__ses_rec_free(s);
	rc = ptd_target_detach(s->t);
	ptd__ses_drop_process(s);
	return rc;
}

int ptd_session_kill(struct ptd_session *s)
{
	if (!ptd_session_alive(s))
		return ptd__err(-ptde_not_running, "The program is not being run.");
	ptd_target_kill(s->t);
	ptd__ses_drop_process(s);
	return 0;
}

const struct ptd_history *ptd_session_history(struct ptd_session *s)
{
	struct sthread *th = s ? ptd__ses_cur_thread(s) : NULL;

	if (th && ptd__ses_lazy_all(s, th) < 0)
		return NULL;
	return th ? th->h : NULL;
}

/* The call history of @th as far as its history goes now. */
const struct ptd_calls *ptd__ses_thread_calls(struct ptd_session *s, struct sthread *th)
{
	if (!th)
		return NULL;
	if (th->calls && th->calls_count == ptd_history_count(th->h))
		return th->calls;
	ptd__ses_drop_calls(th);
	ptd__ses_calls_fresh(s, th);
	th->calls = ptd_calls_build(th->h, ptd__ses_env_func_of, s);
	th->calls_count = ptd_history_count(th->h);
	return th->calls;
}

const struct ptd_calls *ptd_session_calls(struct ptd_session *s)
{
	struct sthread *th = s ? ptd__ses_cur_thread(s) : NULL;

	if (!th || ptd__ses_lazy_all(s, th) < 0)
		return NULL;
	return ptd__ses_thread_calls(s, th);
}

/* ---- positions and state ------------------------------------------------------------------------- */

int ptd_session_replaying(const struct ptd_session *s)
{
	if (!s || s->cur >= s->nth)
		return 0;
	return s->th[s->cur].pos != 0;
}

int ptd_session_position(struct ptd_session *s, uint64_t *pos, uint64_t *count)
{
	struct sthread *th = s ? ptd__ses_cur_thread(s) : NULL;

	if (!th)
		return ptd__err(-ptde_not_running, "The program is not being run.");
	int rc = ptd__ses_lazy_all(s, th);
	if (rc < 0)
		return rc;
	*count = ptd_history_count(th->h);
	*pos = th->pos ? th->pos : *count;
	return 0;
}

/*
 * A stop at a gap (PTD_EVENT_GAP) leaves the position on the instruction
 * beside the gap, before or after it depending on the direction, or on
 * the gap itself: look at both neighbours so every front end names the
 * same gap.
 */
int ptd_session_gap_near(struct ptd_session *s, uint64_t *number, int *reason)
{
	const struct ptd_history *h;
	struct ptd_hcursor cur;
	uint64_t pos = 0, count = 0;
	int rc = ptd_session_position(s, &pos, &count);

	if (rc < 0)
		return rc;
	h = ptd_session_history(s);
	if (!h || !pos)
		return ptd__err(-ptde_invalid, "there is no recorded history");
	for (uint64_t n = pos > 1 ? pos - 1 : 1; n <= pos + 1 && n <= count; n++) {
		if (ptd_hcursor_goto(&cur, h, n) < 0 || !cur.is_gap)
			continue;
		if (number)
			*number = n;
		if (reason)
			*reason = cur.gap_reason;
		return 1;
	}
	return 0;
}

static int pos_ip(struct sthread *th, uint64_t pos, uint64_t *ip)
{
	struct ptd_hcursor c;
	int rc = ptd_hcursor_goto(&c, th->h, pos);

	if (rc < 0)
		return rc;
	if (c.is_gap)
		return ptd__err(-ptde_nomap, "the position %llu is a gap in the history",
				(unsigned long long)pos);
	*ip = c.ip;
	return 0;
}

int ptd_session_pc(struct ptd_session *s, uint64_t *pc)
{
	struct sthread *th = s ? ptd__ses_cur_thread(s) : NULL;

	if (!s || !pc)
		return -ptde_invalid;
	if (th && th->pos)
		return pos_ip(th, th->pos, pc);
	if (th && s->offline) {
		*pc = ptd_history_tail(th->h);
		return *pc ? 0 : pos_ip(th, ptd_history_count(th->h), pc);
	}
	if (!ptd_session_alive(s) || !th)
		return ptd__err(-ptde_not_running, "The program has no registers now.");
	return ptd_target_get_pc(s->t, th->tid, pc);
}

int ptd_session_regs(struct ptd_session *s, struct user_regs_struct *r, int *pc_only)
{
	struct sthread *th = s ? ptd__ses_cur_thread(s) : NULL;
	uint64_t pc = 0;
	int rc;

	if (!s || !r)
		return -ptde_invalid;
	if (s->offline && th) {
		memset(r, 0, sizeof(*r));
		if (pc_only)
			*pc_only = 1;
		rc = ptd_session_pc(s, &pc);
		r->rip = pc;
		return rc;
	}
	if (!ptd_session_alive(s) || !th)
		return ptd__err(-ptde_not_running, "The program has no registers now.");
	if (th->pos) {
		rc = pos_ip(th, th->pos, &pc);
		if (rc < 0)
			return rc;
		/* A recorder that knows registers (soft) has them where it trapped. */
		if (s->rec && s->rec->ops->regs_at &&
		    s->rec->ops->regs_at(s->rec, th->tid, th->pos, r) == 0 && r->rip == pc) {
			if (pc_only)
				*pc_only = 0;
			return 0;
		}
		memset(r, 0, sizeof(*r));
		r->rip = pc;
		if (pc_only)
			*pc_only = 1;
		return 0;
	}
	if (pc_only)
		*pc_only = 0;
	return ptd_target_get_regs(s->t, th->tid, r);
}

/* The selected thread's position for the lookups in the past (0: live). */
static uint64_t cur_number(struct ptd_session *s)
{
	struct sthread *th = ptd__ses_cur_thread(s);

	if (!th)
		return 0;
	return th->pos ? th->pos : th->gone ? ptd_history_count(th->h) : 0;
}

long ptd_session_read(struct ptd_session *s, uint64_t addr, void *buf, size_t n)
{
	return ptd_session_read_at(s, s ? cur_number(s) : 0, addr, buf, n);
}

struct ptd_symbols *ptd_session_symbols_at(struct ptd_session *s, uint64_t number)
{
	struct ses_epoch *ep;

	if (!s)
		return NULL;
	ep = ptd__ses_epoch_at(s, ptd__ses_cur_thread(s), number);
	return ep ? ep->sym : ptd__ses_symbols(s);
}

long ptd_session_read_at(struct ptd_session *s, uint64_t number, uint64_t addr, void *buf,
			 size_t n)
{
	struct ses_epoch *ep = s ? ptd__ses_epoch_at(s, ptd__ses_cur_thread(s), number) : NULL;

	if (ep) {
		/* Before an exec: the code of the program that ran there;
		 * anything else is read live (as any memory in the past). */
		int r = ptd_image_read(ep->img, addr, buf, n);

		return r > 0 ? r : ptd__err(-ptde_nomap, "cannot access memory at address 0x%llx",
					    (unsigned long long)addr);
	}
	if (s && s->offline)
		return ptd__ses_read_code(s, addr, buf, n); /* only code is in a bundle */
	if (!ptd_session_alive(s))
		return ptd__err(-ptde_not_running, "The program is not being run.");
	return ptd_target_read(s->t, addr, buf, n);
}

/*
 * The call history gives each caller's call instruction; gdb's unwinders
 * (and libunwind, live) give the return address after it, and front ends
 * look a caller's line up at pc - 1.  A frame a signal interrupted keeps
 * the ip it resumes at (no call there).  Returns @n.
 */
static int return_addresses(struct ptd_session *s, int n, uint64_t *pcs, const uint8_t *intr)
{
	/* The callers' code is in the execution mode of the position's (a
	 * 32-bit program's calls decode as 32-bit code). */
	struct sthread *th = ptd__ses_cur_thread(s);
	unsigned mode = PTD_MODE_64;
	struct ptd_hcursor c;

	if (n > 1 && th && ptd_hcursor_goto(&c, th->h, th->pos ? th->pos : ptd_history_count(th->h)) == 0) {
		while (c.is_gap || (!th->pos && c.number == ptd_history_count(th->h) &&
				    ptd_history_tail(th->h))) {
			if (ptd_hcursor_prev(&c) < 0)
				break;
		}
		mode = c.mode;
	}
	ptd_clear_error();
	for (int i = 1; i < n; i++) {
		uint8_t buf[16];
		struct ptd_insn_info ii;
		long got;

		if (intr && intr[i])
			continue; /* where it resumes: no call there */
		got = ptd_session_read(s, pcs[i], buf, sizeof(buf));
		if (got > 0 && ptd_disasm_decode_mode(buf, (size_t)got, pcs[i], mode, &ii) == 0 &&
		    ii.iclass == PTD_IC_CALL)
			pcs[i] += ii.len;
	}
	return n;
}

/*
 * The position of a longjmp-like landing right after the segment of
 * @number when the code up to @number has already switched to the landing
 * frame's stack (its CFA computed from a register other than rsp and rbp,
 * as __longjmp and the C++ unwinder's epilogue do): gdb's unwinder then
 * shows the landing frame as the caller.  0 otherwise.
 */
static uint64_t landing_after(struct ptd_session *s, struct sthread *th,
			      const struct ptd_calls *c, uint64_t number)
{
	const struct ptd_callseg *seg = ptd_calls_find(c, number), *nx;
	struct ptd_symbols *sym;
	struct ptd_hcursor cur;
	int k;

	if (!seg || seg->is_gap)
		return 0;
	nx = ptd_calls_find(c, seg->last + 1);
	if (!nx || nx->how != PTD_SEG_SWITCH || !nx->unwound_to || nx->first != seg->last + 1)
		return 0;
	sym = ptd__ses_symbols_at(s);
	if (!sym || ptd_hcursor_goto(&cur, th->h, number) < 0)
		return 0;
	/* (bounded: the switch is in the last instructions before the jump) */
	for (k = 0; k < 256 && cur.number >= seg->first && !cur.is_gap; k++) {
		int reg = ptd_symbols_cfa_reg(sym, cur.ip);

		if (reg >= 0 && reg != 6 && reg != 7)
			return nx->first;
		if (cur.number == seg->first || ptd_hcursor_prev(&cur) < 0)
			break;
	}
	ptd_clear_error();
	return 0;
}

/* Backtrace at @number in the past (see ptd_session_backtrace); @intr
 * (@max entries) marks the frames a signal interrupted. */
static int past_backtrace(struct ptd_session *s, struct sthread *th, uint64_t number,
			  uint64_t *pcs, uint8_t *intr, int max)
{
	const struct ptd_calls *c = ptd_session_calls(s);
	uint64_t land = c && max > 1 ? landing_after(s, th, c, number) : 0;
	struct ptd_hcursor cur;
	/* the callers where the recording started are the first program's */
	int nouter = ptd__ses_epoch_at(s, th, number) == ptd__ses_epoch_at(s, th, 1) ? th->nouter : 0;
	int n;

	if (land && ptd_hcursor_goto(&cur, th->h, number) == 0) {
		/* the landing frame (at the landing ip, which gdb shows as a
		 * return address) and its callers */
		n = ptd_replay_backtrace_outer(th->h, c, land, th->outer, nouter, pcs + 1,
					       intr + 1, max - 1);
		if (n > 0) {
			pcs[0] = cur.ip;
			intr[0] = 0;
			return return_addresses(s, n, pcs + 1, intr + 1) + 1;
		}
	}
	return return_addresses(s, ptd_replay_backtrace_outer(th->h, c, number, th->outer,
							      nouter, pcs, intr, max), pcs, intr);
}

/* A signal trampoline (the kernel's return path from a handler, as
 * glibc's __restore_rt: mov $15,%rax; syscall). */
static int is_sigtramp(struct ptd_session *s, uint64_t pc)
{
	static const uint8_t rt[] = { 0x48, 0xc7, 0xc0, 0x0f, 0x00, 0x00, 0x00, 0x0f, 0x05 };
	uint8_t buf[sizeof(rt)];

	return ptd_session_read(s, pc, buf, sizeof(buf)) == (long)sizeof(buf) &&
	       !memcmp(buf, rt, sizeof(rt));
}

/*
 * Puts gdb's tail call frames between each frame of @fr (@n of @max) and
 * its caller: the functions the caller's call reached the frame's
 * function through by jumps (DWARF call sites), as gdb's unwinder shows
 * them live and in record full's past.  Returns the new count.
 */
static int add_tailcalls(struct ptd_session *s, struct ptd_frame_info *fr, int n, int max)
{
	struct ptd_symbols *sym = ptd__ses_symbols_at(s);
	uint64_t tc[32];

	if (!sym)
		return n;
	for (int i = 0; i + 1 < n && n < max; i++) {
		int k;

		/* (a caller frame: the frame above it returns to it) */
		if (fr[i].kind == PTD_FRAME_SIGTRAMP || fr[i + 1].kind != PTD_FRAME_NORMAL ||
		    !fr[i + 1].pc)
			continue;
		k = ptd__symbols_tailcalls(sym, fr[i + 1].pc,
					   i > 0 && fr[i].kind != PTD_FRAME_INTERRUPTED ? fr[i].pc - 1
											: fr[i].pc,
					   tc, 32);
		if (k > max - n)
			k = max - n;
		if (k <= 0)
			continue;
		memmove(fr + i + 1 + k, fr + i + 1, (size_t)(n - i - 1) * sizeof(*fr));
		for (int j = 0; j < k; j++) {
			fr[i + 1 + j].pc = tc[j];
			fr[i + 1 + j].kind = PTD_FRAME_TAILCALL;
		}
		n += k;
		i += k;
	}
	return n;
}

int ptd_session_frames(struct ptd_session *s, struct ptd_frame_info *out, int max)
{
	struct sthread *th = s ? ptd__ses_cur_thread(s) : NULL;
	uint64_t *pcs;
	uint8_t *intr;
	int n, i, k = 0;

	if (!s || !out || max <= 0)
		return ptd__err(-ptde_invalid, "bad frame arguments");
	if (th && s->offline && !ptd_history_count(th->h))
		return ptd__err(-ptde_not_running, "No stack.");
	pcs = malloc((size_t)max * sizeof(*pcs));
	intr = malloc((size_t)max);
	if (!pcs || !intr) {
		free(pcs);
		free(intr);
		return ptd__err(-ptde_nomem, "cannot allocate %d frames", max);
	}
	if (th && (s->offline || (ptd_session_alive(s) && th->pos))) {
		if (s->offline) {
			n = ptd__ses_lazy_all(s, th);
			if (n < 0)
				goto out;
		}
		n = past_backtrace(s, th, th->pos ? th->pos : ptd_history_count(th->h), pcs, intr,
				   max);
		for (i = 0; i < n && k < max; i++) {
			if (i > 0 && intr[i]) {
				/* the handler's frames end in the trampoline */
				out[k].pc = 0;
				out[k++].kind = PTD_FRAME_SIGTRAMP;
				if (k == max)
					break;
			}
			out[k].pc = pcs[i];
			out[k++].kind = i > 0 && intr[i] ? PTD_FRAME_INTERRUPTED : PTD_FRAME_NORMAL;
		}
		if (n >= 0)
			n = k;
		goto out;
	}
	n = ptd_session_backtrace(s, pcs, max);
	for (i = 0; i < n; i++) {
		out[i].pc = pcs[i];
		out[i].kind = PTD_FRAME_NORMAL;
		if (is_sigtramp(s, pcs[i])) {
			out[i].kind = PTD_FRAME_SIGTRAMP;
		} else if (i > 0 && out[i - 1].kind == PTD_FRAME_SIGTRAMP) {
			out[i].kind = PTD_FRAME_INTERRUPTED;
		}
	}
out:
	free(pcs);
	free(intr);
	return n < 0 ? n : add_tailcalls(s, out, n, max);
}

/* The past backtrace at the current thread's position (@intr scratch). */
static int past_backtrace_alloc(struct ptd_session *s, struct sthread *th, uint64_t number,
				uint64_t *pcs, int max)
{
	uint8_t *intr = malloc((size_t)max);
	int n;

	if (!intr)
		return ptd__err(-ptde_nomem, "cannot allocate %d frames", max);
	n = past_backtrace(s, th, number, pcs, intr, max);
	free(intr);
	return n;
}

int ptd_session_backtrace(struct ptd_session *s, uint64_t *pcs, int max)
{
	struct sthread *th = s ? ptd__ses_cur_thread(s) : NULL;
	struct ptd_frame *fr;
	int n;

	if (!s || !pcs || max <= 0)
		return -ptde_invalid;
	if (th && s->offline && !ptd_history_count(th->h))
		return ptd__err(-ptde_not_running, "No stack.");
	if (th && s->offline) {
		int rc = ptd__ses_lazy_all(s, th);
		if (rc < 0)
			return rc;
		return past_backtrace_alloc(s, th, th->pos ? th->pos : ptd_history_count(th->h),
					    pcs, max);
	}
	if (!ptd_session_alive(s) || !th)
		return ptd__err(-ptde_not_running, "No stack.");
	if (th->pos)
		return past_backtrace_alloc(s, th, th->pos, pcs, max);
	fr = malloc((size_t)max * sizeof(*fr));
	if (!fr)
		return ptd__err(-ptde_nomem, "cannot allocate %d frames", max);
	n = ptd_unwind_backtrace(th->tid, fr, max);
	if (n < 0) {
		uint64_t pc;
		if (ptd_target_get_pc(s->t, th->tid, &pc) < 0) {
			free(fr);
			return n;
		}
		pcs[0] = pc;
		n = 1;
	} else {
		for (int i = 0; i < n; i++)
			pcs[i] = fr[i].pc;
	}
	free(fr);
	return n;
}

int ptd_session_threads(struct ptd_session *s, struct ptd_thread_info *out, int max)
{
	int n = 0;

	if (!s)
		return -ptde_invalid;
	for (int i = 0; i < s->nth; i++) {
		struct sthread *th = &s->th[i];
		if (th->gone)
			continue;
		if (n < max && out) {
			out[n].num = th->num;
			out[n].tid = th->tid;
			out[n].current = i == s->cur;
			out[n].recording = s->recording && ptd__ses_rec_has(s, th->tid);
			out[n].pc = 0;
			if (th->pos)
				pos_ip(th, th->pos, &out[n].pc);
			else if (s->offline && ptd_history_tail(th->h))
				out[n].pc = ptd_history_tail(th->h);
			else if (s->offline) /* ended: its last instruction */
				pos_ip(th, ptd_history_count(th->h), &out[n].pc);
			else if (s->t)
				ptd_target_get_pc(s->t, th->tid, &out[n].pc);
		}
		n++;
	}
	return n;
}

void ptd_session_set_scheduler_locking(struct ptd_session *s, int on)
{
	if (s)
		s->sched_lock = !!on;
}

void ptd_session_set_stop_at_exec(struct ptd_session *s, int on)
{
	if (s)
		s->stop_exec = !!on;
}

int ptd_session_select_thread(struct ptd_session *s, int num)
{
	if (!s)
		return -ptde_invalid;
	for (int i = 0; i < s->nth; i++)
		if (s->th[i].num == num && !s->th[i].gone) {
			s->cur = i;
			return 0;
		}
	return ptd__err(-ptde_notfound, "Invalid thread ID: %d", num);
}

void ptd_session_set_notify(struct ptd_session *s, void (*fn)(void *ctx, const char *msg), void *ctx)
{
	if (s) {
		s->notify = fn;
		s->notify_ctx = ctx;
	}
}
