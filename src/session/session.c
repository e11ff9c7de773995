/*
 * One debugging session (see session.h).
 *
 * The session owns the target, the symbols, the user's breakpoints, the
 * per-thread histories and the recorder, and runs the one live run loop
 * every forward motion goes through: threads are resumed (single-stepped
 * while recording, continued otherwise), each event is recorded and then
 * checked against the motion's stop rule (src/replay/live.c) and the
 * breakpoints.  Reverse motions and forward motions inside the history go
 * to src/replay.
 */
#include "session/session.h"

#include <errno.h>
#include <sched.h>
#include <linux/perf_event.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decode/bundle.h"
#include "decode/perfdata.h"
#include "decode/image.h"
#include "decode/pt.h"
#include "record/ptconv.h"
#include "record/ptsynth.h"
#include "record/soft.h"
#include "record/step.h"
#include "replay/live.h"
#include "target/target.h"
#include "unwind/unwind.h"
#include "util/error.h"

struct sbp {
	int id;
	uint64_t addr;
	char *spec;
	char *func;
	char *file;
	int line;
	unsigned hits;
	int temporary;
	int inserted; /* in the target's table */
};

struct pt_mark {
	size_t off;
	uint64_t number;
};

struct sthread {
	pid_t tid;
	int num;
	int gone;
	struct ptd_history *h;
	struct ptd_calls *calls; /* built on demand, dropped when h changes */
	uint64_t calls_count;    /* history count the calls were built for */
	uint64_t pos;            /* replay position; 0 = live */
	/* Trace format "pt": the recorder writes blocks into @stage, which
	 * are turned into PT (@synth) at every stop; @h is decoded from the
	 * accumulated PT bytes. */
	struct ptd_history *stage;
	struct ptd_ptsynth *synth;
	uint8_t *pt;
	size_t pt_size, pt_cap;
	/* Where each flushed stretch of @pt starts (a PSB) and the number its
	 * first instruction has in @h: a bounded history drops whole
	 * stretches from the front of @pt. */
	struct pt_mark *marks;
	size_t nmarks, cap_marks;
	/* A loaded trace, decoded lazily: @h holds its newest @lazy_m PSB
	 * segments; older ones are put in front when a reverse motion runs
	 * into the start, or all of them when a command needs instruction
	 * numbers.  NULL once @h holds the whole trace. */
	struct ptd_pt_trace *lazy;
	size_t lazy_m;
	/* Once all segments are in @h, it decodes them again from this trace
	 * on demand (a lazy history, src/decode/pt.h); owned. */
	struct ptd_pt_trace *lazy_done;
	int exec_flush; /* the next flush decodes with the session's exec_img */
	int pt_lost;    /* stretches whose PT could not be decoded and kept */
};

struct ptd_session {
	struct ptd_target *t;
	struct ptd_symbols *sym;
	int sym_dirty;
	char **argv;
	int disable_aslr;
	int pin_cpu;
	int own_aff_saved; /* own_aff: ptdbg's CPU mask before it pinned itself */
	cpu_set_t own_aff;
	enum ptd_method method;
	enum ptd_method rec_method;
	int want_pt;   /* trace format for the next recording */
	/* Trace format pt: the image as it was when an execve started, to
	 * decode the stretch that ends with that syscall once it returned
	 * into the new program. */
	struct ptd_image *exec_img;
	struct dead_code *dead; /* code unmapped while recording */
	int ndead;
	/* The recorded program's code as last seen at a stop (its mappings
	 * and a copy of its anonymous executable memory), so that its history
	 * can still be read after it was killed (keep_killed_recording). */
	char *snap_maps;
	struct ptd_image *snap_img;
	struct dead_code *snap_anon;
	int nsnap_anon;
	/* A trace bundle loaded with --load: no process, the histories
	 * come from its PT, code bytes from its image. */
	int offline;
	int kept; /* offline: the recording of a program that was killed */
	struct ptd_bundle *bundle;
	struct ptd_image *offimg;
	char *offline_exe; /* the bundle's main executable (its first ELF map) */
	/* offline_symbols() ran: a bundle without ELF files has no symbols,
	 * and looking again at every address costs a file open each. */
	int offline_sym_tried;
	char method_note[600];
	int rec_pt;    /* the current recording keeps PT */
	/* Bytes a recorded thread may hold (history, PT, registers) per
	 * method (soft, step); 0: unlimited.  Beyond it the oldest part is
	 * dropped. */
	uint64_t buf_soft, buf_step;
	unsigned maint_tick; /* recorder stops since the last bound check */
	int recording;
	struct ptd_steprec *steprec;
	struct ptd_softrec *softrec;
	struct sthread *th;
	int nth, cap_th;
	int next_thread_num;
	int cur; /* index of the selected thread */
	struct sbp *bp;
	int nbp, cap_bp;
	int next_bp_id;
	volatile sig_atomic_t interrupted;
	struct ptd_stepper_env senv;
	void (*notify)(void *ctx, const char *msg);
	void *notify_ctx;
	char fnbuf[512];
};

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

static struct sthread *cur_thread(struct ptd_session *s)
{
	if (s->cur < 0 || s->cur >= s->nth)
		return NULL;
	return &s->th[s->cur];
}

static struct sthread *thread_by_tid(struct ptd_session *s, pid_t tid)
{
	for (int i = 0; i < s->nth; i++)
		if (s->th[i].tid == tid && !s->th[i].gone)
			return &s->th[i];
	return NULL;
}

/* A recording error met where nobody can return it (a recorder's
 * callback, the end of a motion): the front end hears of it through the
 * notify callback; the history itself has a gap for what was lost. */
static void rec_warn(struct ptd_session *s, int rc, const char *what)
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

/*
 * Code that was unmapped while recording (a dlclose'd library): its bytes
 * are copied just before the munmap, so the history can still enumerate
 * and show the instructions that ran there.
 */
struct dead_code {
	uint64_t start;
	size_t size;
	uint8_t *bytes;
};

/* Copies what @d holds from @addr on (at most @n bytes); -1 when @addr is
 * not in it. */
static int dead_copy(const struct dead_code *d, uint64_t addr, uint8_t *buf, size_t n)
{
	size_t k;

	if (addr < d->start || addr - d->start >= d->size)
		return -1;
	k = d->size - (addr - d->start);
	if (k > n)
		k = n;
	memcpy(buf, d->bytes + (addr - d->start), k);
	return (int)k;
}

static int dead_read(struct ptd_session *s, uint64_t addr, uint8_t *buf, size_t n)
{
	/* newest first: a later unmapping of the same range wins */
	for (int i = s->ndead; i-- > 0;) {
		int k = dead_copy(&s->dead[i], addr, buf, n);
		if (k >= 0)
			return k;
	}
	return -ptde_nomap;
}

static void snap_anon_free(struct dead_code *v, int n)
{
	for (int i = 0; i < n; i++)
		free(v[i].bytes);
	free(v);
}

static void snap_free(struct ptd_session *s)
{
	free(s->snap_maps);
	s->snap_maps = NULL;
	ptd_image_free(s->snap_img);
	s->snap_img = NULL;
	snap_anon_free(s->snap_anon, s->nsnap_anon);
	s->snap_anon = NULL;
	s->nsnap_anon = 0;
}

static void dead_free(struct ptd_session *s)
{
	for (int i = 0; i < s->ndead; i++)
		free(s->dead[i].bytes);
	free(s->dead);
	s->dead = NULL;
	s->ndead = 0;
}

/* Before munmap(@addr, @len): keep the executable bytes it will take away. */
static void dead_save(struct ptd_session *s, uint64_t addr, uint64_t len)
{
	char path[64], line[512];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)ptd_target_pid(s->t));
	f = fopen(path, "re");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long lo, hi;
		char perms[8];
		if (sscanf(line, "%llx-%llx %7s", &lo, &hi, perms) != 3 || perms[2] != 'x')
			continue;
		if (hi <= addr || lo >= addr + len)
			continue;
		if (lo < addr)
			lo = addr;
		if (hi > addr + len)
			hi = addr + len;
		struct dead_code *n = realloc(s->dead, (s->ndead + 1) * sizeof(*n));
		if (!n)
			break;
		s->dead = n;
		n = &s->dead[s->ndead];
		n->start = lo;
		n->size = hi - lo;
		n->bytes = malloc(n->size);
		if (!n->bytes)
			break;
		if (ptd_target_read(s->t, lo, n->bytes, n->size) != (long)n->size) {
			free(n->bytes);
			continue;
		}
		s->ndead++;
	}
	fclose(f);
}

/* Code for the snapshot image where no file backs it: anonymous
 * executable memory copied at the snapshot, else code unmapped earlier. */
static int snap_read(void *ctx, uint64_t addr, uint8_t *buf, size_t n)
{
	struct ptd_session *s = ctx;

	for (int i = 0; i < s->nsnap_anon; i++) {
		int k = dead_copy(&s->snap_anon[i], addr, buf, n);
		if (k >= 0)
			return k;
	}
	return dead_read(s, addr, buf, n);
}

/* The text of /proc/PID/maps (NUL-terminated; free it), or NULL. */
static char *read_maps(pid_t pid)
{
	char path[64], chunk[4096], *text = NULL;
	size_t len = 0, k;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return NULL;
	while ((k = fread(chunk, 1, sizeof(chunk), f)) > 0) {
		char *m = realloc(text, len + k + 1);
		if (!m) {
			free(text);
			fclose(f);
			return NULL;
		}
		text = m;
		memcpy(text + len, chunk, k);
		len += k;
		text[len] = 0;
	}
	fclose(f);
	return text;
}

struct snap_ctx {
	struct ptd_session *s;
	struct dead_code *v;
	int n;
	size_t total;
};

static int snap_anon_cb(void *ctx, uint64_t start, uint64_t end, const char *name)
{
	struct snap_ctx *c = ctx;
	struct dead_code *nv, *d;
	size_t n = (size_t)(end - start);

	(void)name;
	/* vdso and small JIT areas; a huge one is left out, not half copied */
	if (c->total + n > (16u << 20))
		return 0;
	nv = realloc(c->v, (size_t)(c->n + 1) * sizeof(*nv));
	if (!nv)
		return -ptde_nomem;
	c->v = nv;
	d = &c->v[c->n];
	d->start = start;
	d->size = n;
	d->bytes = malloc(n);
	if (!d->bytes)
		return -ptde_nomem;
	if (ptd_target_read(c->s->t, start, d->bytes, n) != (long)n) {
		free(d->bytes);
		return 0;
	}
	c->n++;
	c->total += n;
	return 0;
}

/* At a stop while recording: takes a new snapshot of the program's code
 * when its mappings changed since the last one. */
static void snap_refresh(struct ptd_session *s)
{
	struct snap_ctx c = { s, NULL, 0, 0 };
	struct ptd_image *img;
	char *maps;

	if (!s->t || !ptd_target_alive(s->t))
		return;
	maps = read_maps(ptd_target_pid(s->t));
	if (!maps)
		return;
	if (s->snap_maps && !strcmp(maps, s->snap_maps)) {
		free(maps);
		return;
	}
	img = ptd_image_alloc(snap_read, s);
	if (!img || ptd_image_add_maps_text(img, maps) < 0 ||
	    ptd_image_foreach_anon(maps, snap_anon_cb, &c) < 0) {
		ptd_image_free(img);
		snap_anon_free(c.v, c.n);
		free(maps);
		return;
	}
	snap_free(s);
	s->snap_maps = maps;
	s->snap_img = img;
	s->snap_anon = c.v;
	s->nsnap_anon = c.n;
}

/* Code bytes for histories and decoders: the live memory, else code
 * unmapped during the recording. */
static int read_code(void *ctx, uint64_t addr, uint8_t *buf, size_t n)
{
	struct ptd_session *s = ctx;
	int r;

	if (s->offline)
		return s->offimg ? ptd_image_read(s->offimg, addr, buf, n) : -ptde_nomap;
	r = read_live(ctx, addr, buf, n);

	if (r <= 0)
		r = dead_read(s, addr, buf, n);
	return r;
}

static struct sthread *add_sthread(struct ptd_session *s, pid_t tid)
{
	struct sthread *th = thread_by_tid(s, tid);

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
	th->h = ptd_history_alloc(read_code, s);
	if (!th->h)
		return NULL;
	s->nth++;
	return th;
}

static void drop_calls(struct sthread *th)
{
	ptd_calls_free(th->calls);
	th->calls = NULL;
}

/* The loaded trace behind @th's history: only once the history is gone
 * or cleared (a lazy history decodes from it). */
static void drop_lazy(struct sthread *th)
{
	ptd_pt_trace_free(th->lazy);
	th->lazy = NULL;
	ptd_pt_trace_free(th->lazy_done);
	th->lazy_done = NULL;
}

static void drop_pt(struct sthread *th)
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

/* ---- lazily decoded loaded traces ---- */

/* Puts @older in front of @th's history; positions move with it. */
static int lazy_prepend(struct sthread *th, struct ptd_history *older)
{
	uint64_t before = ptd_history_count(th->h);
	int rc = ptd_history_prepend(th->h, older);

	if (rc < 0)
		return rc;
	if (th->pos)
		th->pos += ptd_history_count(th->h) - before;
	drop_calls(th);
	return 0;
}

/* Decodes every segment of @th's trace not in its history yet. */
static int lazy_all(struct ptd_session *s, struct sthread *th)
{
	struct ptd_history *older;
	size_t nseg;
	int rc;

	if (!th->lazy)
		return 0;
	nseg = ptd_pt_trace_nsegs(th->lazy);
	older = ptd_history_alloc(read_code, s);
	if (!older)
		return -ptde_nomem;
	/* Counted in two threads, each segment decoded again when an
	 * instruction in it is needed (a few kept at a time). */
	ptd_pt_trace_set_lazy_history(th->lazy, 0);
	rc = ptd_pt_trace_history_range(th->lazy, older, 0,
					nseg > th->lazy_m ? nseg - th->lazy_m : 0, 2, NULL);
	/* what the oldest decoded segment learnt about the block before it */
	if (rc == 0 && th->lazy_m)
		ptd_history_flag_last(older, ptd_pt_trace_newest_head(th->lazy, th->lazy_m - 1));
	if (rc == 0)
		rc = lazy_prepend(th, older);
	ptd_history_free(older);
	if (rc == 0) {
		th->lazy_done = th->lazy;
		th->lazy = NULL;
	}
	return rc;
}

/*
 * Puts up to @more older segments in front of @th's history, found from
 * the end of the trace without indexing all of it.  Returns 1 when the
 * history grew, 0 when it already held everything, or an error.
 */
static int lazy_more(struct ptd_session *s, struct sthread *th, size_t more)
{
	struct ptd_history *older;
	size_t j, want;
	int rc = 0, grew = 0;

	if (!th->lazy)
		return 0;
	want = th->lazy_m + more;
	/* How far back segments exist (the index grows backwards). */
	if (!ptd_pt_trace_has_newest(th->lazy, want - 1)) {
		/* The start of the trace is near: the rest at once, with the
		 * lost-data gap if any. */
		rc = lazy_all(s, th);
		return rc < 0 ? rc : 1;
	}
	older = ptd_history_alloc(read_code, s);
	if (!older)
		return -ptde_nomem;
	for (j = want; j-- > th->lazy_m && rc == 0;) {
		const struct ptd_history *seg = ptd_pt_trace_newest(th->lazy, j);

		if (!seg) {
			rc = -ptde_nomem;
		} else {
			/* flags a segment learnt about the block before it */
			ptd_history_flag_last(older, ptd_pt_trace_newest_head(th->lazy, j));
			rc = ptd_history_append_history(older, seg);
		}
		grew = 1;
	}
	if (rc == 0 && th->lazy_m)
		ptd_history_flag_last(older, ptd_pt_trace_newest_head(th->lazy, th->lazy_m - 1));
	if (rc == 0)
		rc = lazy_prepend(th, older);
	ptd_history_free(older);
	if (rc < 0)
		return rc;
	th->lazy_m = want;
	return grew;
}


static void free_threads(struct ptd_session *s)
{
	for (int i = 0; i < s->nth; i++) {
		drop_calls(&s->th[i]);
		drop_pt(&s->th[i]);
		ptd_history_free(s->th[i].h);
		drop_lazy(&s->th[i]);
	}
	free(s->th);
	s->th = NULL;
	s->nth = s->cap_th = 0;
	s->next_thread_num = 0;
	s->cur = 0;
}

static void offline_symbols(struct ptd_session *s);

static struct ptd_symbols *symbols(struct ptd_session *s)
{
	if (s->offline) {
		if (!s->sym && !s->offline_sym_tried) {
			s->offline_sym_tried = 1;
			offline_symbols(s);
		}
		return s->sym;
	}
	if (s->t && ptd_target_alive(s->t)) {
		if (!s->sym) {
			if (ptd_symbols_alloc_pid(&s->sym, ptd_target_pid(s->t)) < 0)
				s->sym = NULL;
			s->sym_dirty = 0;
		} else if (s->sym_dirty) {
			ptd_symbols_refresh(s->sym);
			s->sym_dirty = 0;
		}
	} else if (!s->sym && s->argv && s->argv[0]) {
		if (ptd_symbols_alloc_file(&s->sym, s->argv[0], 0) < 0)
			s->sym = NULL;
	}
	return s->sym;
}

/* Replay/stepper callbacks. */
static int env_line_of(void *ctx, uint64_t addr, struct ptd_line_info *li)
{
	struct ptd_session *s = ctx;
	struct ptd_symbols *sym = symbols(s);
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

static uint64_t env_func_of(void *ctx, uint64_t addr)
{
	struct ptd_session *s = ctx;
	struct ptd_symbols *sym = symbols(s);
	struct ptd_symbol fs;

	if (!sym || ptd_symbols_lookup(sym, addr, &fs) < 0)
		return 0;
	return fs.start;
}

static int env_is_bp(void *ctx, uint64_t addr, int *id)
{
	struct ptd_session *s = ctx;

	for (int i = 0; i < s->nbp; i++)
		if (s->bp[i].addr == addr) {
			if (id)
				*id = s->bp[i].id;
			return 1;
		}
	return 0;
}

static uint64_t env_func_bp(void *ctx, uint64_t entry)
{
	struct ptd_session *s = ctx;
	struct ptd_symbols *sym = symbols(s);
	struct ptd_symbol fs;
	uint64_t e, bp;

	if (!sym || ptd_symbols_lookup(sym, entry, &fs) < 0 || fs.start != entry || !fs.name)
		return 0;
	if (ptd_symbols_function(sym, fs.name, &e, &bp) < 0 || e != entry)
		return 0;
	return bp;
}

static int env_is_trampoline(void *ctx, uint64_t pc)
{
	struct ptd_session *s = ctx;
	struct ptd_symbols *sym = symbols(s);
	struct ptd_symbol fs;
	const char *base;
	size_t n;

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

struct ptd_session *ptd_session_alloc(void)
{
	struct ptd_session *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->disable_aslr = 1;
	s->pin_cpu = 1;
	s->method = PTD_METHOD_AUTO;
	s->buf_soft = s->buf_step = PTD_RECORD_BUFFER_DEFAULT;
	s->next_bp_id = 1;
	s->senv.base.ctx = s;
	s->senv.base.line_of = env_line_of;
	s->senv.base.func_of = env_func_of;
	s->senv.base.is_breakpoint = env_is_bp;
	s->senv.func_bp = env_func_bp;
	s->senv.is_trampoline = env_is_trampoline;
	s->senv.base.in_trampoline = env_is_trampoline;
	return s;
}

static void drop_process(struct ptd_session *s)
{
	ptd_steprec_free(s->steprec);
	s->steprec = NULL;
	ptd_softrec_free(s->softrec);
	s->softrec = NULL;
	s->recording = 0;
	ptd_target_free(s->t);
	s->t = NULL;
	ptd_symbols_free(s->sym);
	s->sym = NULL;
	free_threads(s);
	dead_free(s);
	snap_free(s);
	ptd_image_free(s->offimg);
	s->offimg = NULL;
	ptd_image_free(s->exec_img);
	s->exec_img = NULL;
	ptd_bundle_free(s->bundle);
	s->bundle = NULL;
	s->offline = 0;
	s->offline_sym_tried = 0;
	s->kept = 0;
	free(s->offline_exe);
	s->offline_exe = NULL;
	for (int i = 0; i < s->nbp; i++)
		s->bp[i].inserted = 0;
}

void ptd_session_free(struct ptd_session *s)
{
	if (!s)
		return;
	drop_process(s);
	for (int i = 0; i < s->nbp; i++) {
		free(s->bp[i].spec);
		free(s->bp[i].func);
		free(s->bp[i].file);
	}
	free(s->bp);
	if (s->argv) {
		for (char **a = s->argv; *a; a++)
			free(*a);
		free(s->argv);
	}
	free(s);
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
	return s ? symbols(s) : NULL;
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

/* ---- breakpoints --------------------------------------------------------------------- */

static int resolve_spec(struct ptd_session *s, const char *spec, uint64_t *addr, char **func,
			char **file, int *line)
{
	struct ptd_symbols *sym = symbols(s);
	const char *colon;
	char *end;
	uint64_t entry;

	*func = *file = NULL;
	*line = 0;
	if (spec[0] == '*') {
		const char *p = spec + 1;
		while (*p == ' ')
			p++;
		errno = 0;
		*addr = strtoull(p, &end, 0);
		if (errno || end == p || *end)
			return ptd__err(-ptde_invalid, "invalid address '%s'", spec + 1);
	} else if ((colon = strrchr(spec, ':')) && colon != spec) {
		long l;
		char fname[256];
		size_t n = (size_t)(colon - spec);
		if (n >= sizeof(fname))
			return ptd__err(-ptde_invalid, "file name too long");
		memcpy(fname, spec, n);
		fname[n] = 0;
		errno = 0;
		l = strtol(colon + 1, &end, 10);
		if (errno || end == colon + 1 || *end || l <= 0)
			return ptd__err(-ptde_invalid, "invalid line number in '%s'", spec);
		if (!sym)
			return ptd__err(-ptde_notfound, "No symbol table is loaded.");
		if (ptd_symbols_file_line(sym, fname, (int)l, addr, line) < 0)
			return ptd__err(-ptde_notfound, "No line %ld in file \"%s\".", l, fname);
	} else if (spec[0] >= '0' && spec[0] <= '9') {
		long l;
		struct ptd_line li;
		uint64_t pc = 0, e2, b2;
		errno = 0;
		l = strtol(spec, &end, 10);
		if (errno || *end || l <= 0)
			return ptd__err(-ptde_invalid, "invalid line number '%s'", spec);
		if (!sym)
			return ptd__err(-ptde_notfound, "No symbol table is loaded.");
		/* The default file is the current location's, else main's. */
		if (ptd_session_alive(s) && ptd_session_pc(s, &pc) == 0 &&
		    ptd_symbols_line(sym, pc, &li) == 0) {
		} else if (ptd_symbols_function(sym, "main", &e2, &b2) == 0 &&
			   ptd_symbols_line(sym, b2, &li) == 0) {
		} else {
			return ptd__err(-ptde_notfound, "No symbol table is loaded.");
		}
		const char *base = strrchr(li.file, '/');
		if (ptd_symbols_file_line(sym, base ? base + 1 : li.file, (int)l, addr, line) < 0)
			return ptd__err(-ptde_notfound, "No line %ld in the current file.", l);
	} else {
		if (!sym)
			return ptd__err(-ptde_notfound, "No symbol table is loaded.");
		if (ptd_symbols_function(sym, spec, &entry, addr) < 0)
			return ptd__err(-ptde_notfound, "Function \"%s\" not defined.", spec);
	}
	if (sym) {
		struct ptd_symbol fs;
		struct ptd_line li;
		if (ptd_symbols_lookup(sym, *addr, &fs) == 0 && fs.name)
			*func = strdup(fs.name);
		if (ptd_symbols_line(sym, *addr, &li) == 0) {
			*file = strdup(li.file);
			*line = li.line;
		}
	}
	return 0;
}

static int bp_arm(struct ptd_session *s, struct sbp *b)
{
	if (b->inserted || !ptd_session_alive(s))
		return 0;
	if (ptd_target_bp_insert(s->t, b->addr) < 0)
		return ptd__err(-ptde_nomap,
				"Cannot insert breakpoint %d.\nCannot access memory at address 0x%llx",
				b->id, (unsigned long long)b->addr);
	b->inserted = 1;
	return 0;
}

int ptd_session_break(struct ptd_session *s, const char *spec, int temporary)
{
	uint64_t addr = 0;
	char *func, *file;
	int line, rc;
	struct sbp *b;

	if (!s || !spec || !*spec)
		return ptd__err(-ptde_invalid, "no breakpoint location given");
	rc = resolve_spec(s, spec, &addr, &func, &file, &line);
	if (rc < 0)
		return rc;
	if (s->nbp == s->cap_bp) {
		int cap = s->cap_bp ? 2 * s->cap_bp : 8;
		struct sbp *n = realloc(s->bp, cap * sizeof(*n));
		if (!n) {
			free(func);
			free(file);
			return -ptde_nomem;
		}
		s->bp = n;
		s->cap_bp = cap;
	}
	b = &s->bp[s->nbp];
	memset(b, 0, sizeof(*b));
	b->id = s->next_bp_id;
	b->addr = addr;
	b->spec = strdup(spec);
	b->func = func;
	b->file = file;
	b->line = line;
	b->temporary = temporary;
	rc = bp_arm(s, b);
	if (rc < 0) {
		free(b->spec);
		free(func);
		free(file);
		return rc;
	}
	s->nbp++;
	s->next_bp_id++;
	return b->id;
}

static void bp_free_at(struct ptd_session *s, int i)
{
	struct sbp *b = &s->bp[i];

	if (b->inserted && s->t)
		ptd_target_bp_remove(s->t, b->addr);
	free(b->spec);
	free(b->func);
	free(b->file);
	memmove(b, b + 1, (s->nbp - i - 1) * sizeof(*b));
	s->nbp--;
}

int ptd_session_delete(struct ptd_session *s, int id)
{
	if (!s)
		return -ptde_invalid;
	if (id == 0) {
		while (s->nbp)
			bp_free_at(s, s->nbp - 1);
		return 0;
	}
	for (int i = 0; i < s->nbp; i++)
		if (s->bp[i].id == id) {
			bp_free_at(s, i);
			return 0;
		}
	return ptd__err(-ptde_notfound, "No breakpoint number %d.", id);
}

int ptd_session_bp_count(const struct ptd_session *s)
{
	return s ? s->nbp : 0;
}

int ptd_session_bp_get(const struct ptd_session *s, int index, struct ptd_bpinfo *out)
{
	const struct sbp *b;

	if (!s || !out || index < 0 || index >= s->nbp)
		return -ptde_invalid;
	b = &s->bp[index];
	out->id = b->id;
	out->addr = b->addr;
	out->spec = b->spec;
	out->func = b->func;
	out->file = b->file;
	out->line = b->line;
	out->hits = b->hits;
	out->temporary = b->temporary;
	return 0;
}

/* After exec or at launch: resolve every breakpoint again in the new image. */
static void bp_rearm_all(struct ptd_session *s)
{
	for (int i = 0; i < s->nbp; i++) {
		struct sbp *b = &s->bp[i];
		uint64_t addr;
		char *func, *file;
		int line;
		b->inserted = 0;
		if (b->spec[0] != '*' && resolve_spec(s, b->spec, &addr, &func, &file, &line) == 0) {
			b->addr = addr;
			free(b->func);
			free(b->file);
			b->func = func;
			b->file = file;
			b->line = line;
		}
		bp_arm(s, b);
	}
}

static struct sbp *bp_at(struct ptd_session *s, uint64_t addr)
{
	for (int i = 0; i < s->nbp; i++)
		if (s->bp[i].addr == addr)
			return &s->bp[i];
	return NULL;
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
		if (!add_sthread(s, tids[i]))
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

int ptd_session_set_buffer_size(struct ptd_session *s, enum ptd_method m, uint64_t bytes)
{
	if (!s)
		return -ptde_invalid;
	if (bytes && bytes < PTD_RECORD_BUFFER_MIN)
		return ptd__err(-ptde_invalid, "buffer-size %llu is too small (at least %u bytes)",
				(unsigned long long)bytes, PTD_RECORD_BUFFER_MIN);
	if (m == PTD_METHOD_SOFT)
		s->buf_soft = bytes;
	else if (m == PTD_METHOD_STEP)
		s->buf_step = bytes;
	else
		return ptd__err(-ptde_invalid, "method '%s' has no buffer-size", ptd_method_name(m));
	return 0;
}

uint64_t ptd_session_buffer_size(const struct ptd_session *s, enum ptd_method m)
{
	if (!s)
		return 0;
	return m == PTD_METHOD_SOFT ? s->buf_soft : m == PTD_METHOD_STEP ? s->buf_step : 0;
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
	symbols(s);
	bp_rearm_all(s);
	return 0;
}

static int record_start_thread(struct ptd_session *s, struct sthread *th);
static int live_run(struct ptd_session *s, enum ptd_motion m, struct ptd_event *ev);

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
	/* also a kept (killed) recording or a loaded bundle: all goes */
	if (s->t || s->offline)
		drop_process(s);
	l.argv = s->argv;
	l.disable_aslr = s->disable_aslr;
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
	return live_run(s, PTD_MOTION_CONTINUE, ev);
}

int ptd_session_attach(struct ptd_session *s, pid_t pid)
{
	int rc;

	if (!s)
		return -ptde_invalid;
	if (ptd_session_alive(s))
		return ptd__err(-ptde_busy, "A program is being debugged already.");
	drop_process(s);
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
	ptd_steprec_free(s->steprec);
	s->steprec = NULL;
	ptd_softrec_free(s->softrec);
	s->softrec = NULL;
	s->recording = 0;
	rc = ptd_target_detach(s->t);
	drop_process(s);
	return rc;
}

int ptd_session_kill(struct ptd_session *s)
{
	if (!ptd_session_alive(s))
		return ptd__err(-ptde_not_running, "The program is not being run.");
	ptd_target_kill(s->t);
	drop_process(s);
	return 0;
}

/* ---- recording ------------------------------------------------------------------------------ */

/* Each recorded stretch starts with a PSB+, so it decodes on its own. */
static struct ptd_ptsynth *new_synth(void)
{
	struct ptd_ptsynth_config cfg = { 0 };

	cfg.ret_compression = 1;
	cfg.psb_on_begin = 1;
	return ptd_ptsynth_alloc(&cfg);
}

static int record_start_thread(struct ptd_session *s, struct sthread *th)
{
	uint64_t pc;
	int rc = ptd_target_get_pc(s->t, th->tid, &pc);

	if (rc < 0)
		return rc;
	if (s->rec_pt) {
		drop_pt(th);
		th->stage = ptd_history_alloc(read_code, s);
		th->synth = new_synth();
		if (!th->stage || !th->synth) {
			drop_pt(th);
			return -ptde_nomem;
		}
		ptd_history_set_tail(th->h, pc);
		if (s->softrec)
			return ptd_softrec_add_thread(s->softrec, th->tid, th->stage, pc);
		return ptd_steprec_add_thread(s->steprec, th->tid, th->stage, pc);
	}
	if (s->softrec)
		return ptd_softrec_add_thread(s->softrec, th->tid, th->h, pc);
	return ptd_steprec_add_thread(s->steprec, th->tid, th->h, pc);
}

/* A stretch of PT starts at the end of @th->pt, with the next number of
 * @th->h. */
static int pt_mark(struct sthread *th)
{
	uint64_t next = ptd_history_count(th->h) - (ptd_history_tail(th->h) ? 1 : 0) + 1;

	if (th->nmarks == th->cap_marks) {
		size_t cap = th->cap_marks ? 2 * th->cap_marks : 16;
		struct pt_mark *m = realloc(th->marks, cap * sizeof(*m));
		if (!m)
			return -ptde_nomem;
		th->marks = m;
		th->cap_marks = cap;
	}
	th->marks[th->nmarks++] = (struct pt_mark){ th->pt_size, next };
	return 0;
}

static int append_pt(struct sthread *th, const uint8_t *buf, size_t n)
{
	if (th->pt_size + n > th->pt_cap) {
		size_t cap = th->pt_cap ? th->pt_cap : 65536;
		while (cap < th->pt_size + n)
			cap *= 2;
		uint8_t *p = realloc(th->pt, cap);
		if (!p)
			return -ptde_nomem;
		th->pt = p;
		th->pt_cap = cap;
	}
	memcpy(th->pt + th->pt_size, buf, n);
	th->pt_size += n;
	return 0;
}

/*
 * Trace format pt: the blocks recorded since the last flush become PT
 * packets for the stretch that ends at @end_ip (the thread's pc at a stop,
 * or where it goes on after an address-space change), and that stretch's
 * PT is decoded right away — with the mappings of the moment, before an
 * munmap or exec can take the code away — and appended to the history.
 * What the user browses went through the real decoder.
 */
static int pt_flush_thread(struct ptd_session *s, struct sthread *th, uint64_t end_ip)
{
	struct ptd_history *chunk_h;
	struct ptd_image *img = NULL;
	uint8_t *bytes;
	size_t n = 0;
	int rc;

	if (!th->stage || !th->synth)
		return 0;
	if (ptd_history_nitems(th->stage) == 0 && !ptd_ptsynth_enabled(th->synth))
		return 0;
	rc = ptd_ptconv_history(th->synth, th->stage, end_ip, read_code, s);
	if (rc < 0)
		return rc;
	ptd_history_clear(th->stage);
	ptd_history_set_tail(th->stage, end_ip);
	bytes = ptd_ptsynth_take(th->synth, &n);
	if (!bytes)
		return 0;
	if (s->exec_img && th->exec_flush) {
		/* The stretch ending with the execve: the old program's code. */
		img = s->exec_img;
		s->exec_img = NULL;
	} else {
		img = ptd_image_alloc(read_code, s);
		if (!img)
			rc = -ptde_nomem;
		else if (ptd_session_alive(s))
			ptd_image_add_maps(img, ptd_target_pid(s->t));
	}
	if (rc == 0) {
		/* Decode into a scratch history; only when that worked do the
		 * PT bytes and the items go in, both or neither, so the kept
		 * PT (record save) and the history stay in step. */
		chunk_h = ptd_history_alloc(read_code, s);
		if (!chunk_h) {
			rc = -ptde_nomem;
		} else {
			rc = ptd_pt_decode_history(bytes, n, img, chunk_h, NULL);
			/* the mark: where this stretch's PT starts, and the
			 * number of its first item (bounded histories) */
			if (rc == 0)
				rc = pt_mark(th);
			if (rc == 0) {
				rc = append_pt(th, bytes, n);
				if (rc < 0)
					th->nmarks--;
			}
			if (rc == 0) {
				rc = ptd_history_splice(th->h, chunk_h);
				if (rc < 0) {
					th->pt_size -= n; /* take the bytes back out */
					th->nmarks--;
				}
			}
			ptd_history_free(chunk_h);
		}
	}
	if (rc < 0) {
		/* The stretch is lost: the history says so with a gap, and
		 * the kept PT is marked so that a saved bundle is not taken
		 * for complete. */
		char why[200];
		snprintf(why, sizeof(why), "cannot decode the trace recorded up to 0x%llx: %s",
			 (unsigned long long)end_ip, ptd_last_error(rc));
		ptd_history_append_gap(th->h, PTD_GAP_LOST, 0, why);
		th->pt_lost++;
	}
	free(bytes);
	ptd_image_free(img);
	drop_calls(th);
	ptd_history_set_tail(th->h, th->gone ? 0 : end_ip);
	return rc;
}

/* An execve is about to run: remember the image it will replace.  The
 * syscall instruction itself is only known as executed once the exec
 * stop came, and then its code must come from the old image (the new
 * program may map other code at the same addresses, or none). */
static void pt_note_exec(struct ptd_session *s)
{
	ptd_image_free(s->exec_img);
	s->exec_img = ptd_image_alloc(read_code, s);
	if (s->exec_img && ptd_image_add_maps(s->exec_img, ptd_target_pid(s->t)) < 0) {
		ptd_image_free(s->exec_img);
		s->exec_img = NULL;
	}
}

/* At a stop: flush every recorded thread up to its pc. */
static int pt_sync(struct ptd_session *s)
{
	int rc = 0;

	/* Every thread, even after one failed: the first error is returned. */
	for (int i = 0; i < s->nth; i++) {
		struct sthread *th = &s->th[i];
		/* A gone thread ends where its recorder left it (an exiting
		 * thread: before its exit syscall), so its PT ends with FUP and
		 * TIP.PGD there instead of trailing off after the last branch,
		 * where libipt and perf's decoder would stop at different
		 * instructions.  A tail of 0 (unknown) only flushes. */
		int r = th->stage ? pt_flush_thread(s, th, ptd_history_tail(th->stage)) : 0;
		if (r < 0 && rc == 0)
			rc = r;
	}
	return rc;
}

/* Before a syscall that may unmap code: flush every thread's stretch. */
static int pt_sync_before_unmap(struct ptd_session *s)
{
	int rc = 0;

	if (!s->steprec)
		return 0;
	for (int i = 0; i < s->nth; i++) {
		struct sthread *th = &s->th[i];
		int r = th->stage && !th->gone
				? pt_flush_thread(s, th, ptd_steprec_next_ip(s->steprec, th->tid))
				: 0;
		if (r < 0 && rc == 0)
			rc = r;
	}
	return rc;
}

/* Is Intel PT usable here?  Returns 0, or <0 with the reason in @why. */
static int probe_pt(char *why, size_t n)
{
	if (access("/sys/bus/event_source/devices/intel_pt/type", R_OK) < 0) {
		snprintf(why, n, "no Intel PT PMU (/sys/bus/event_source/devices/intel_pt: %s)",
			 strerror(errno));
		return -ptde_unsupported;
	}
	snprintf(why, n, "Intel PT is present but this ptdbg has no pt recorder yet");
	return -ptde_unsupported;
}

/* Can this process sample every user-mode branch (BTS through perf)? */
static int probe_bts(char *why, size_t n)
{
	struct perf_event_attr a;
	int fd;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_HARDWARE;
	a.config = PERF_COUNT_HW_BRANCH_INSTRUCTIONS;
	a.sample_period = 1;
	a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_ADDR;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	a.disabled = 1;
	fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0) {
		snprintf(why, n, "no branch trace store (perf_event_open of branch samples: %s)",
			 strerror(errno));
		return -ptde_unsupported;
	}
	close(fd);
	snprintf(why, n, "BTS is present but this ptdbg has no bts recorder yet");
	return -ptde_unsupported;
}

/* The recorder ladder of --method=auto: pt, bts, soft, step. */
static enum ptd_method choose_method(struct ptd_session *s)
{
	char a[200], b[200];

	if (probe_pt(a, sizeof(a)) == 0)
		return PTD_METHOD_PT;
	if (probe_bts(b, sizeof(b)) == 0)
		return PTD_METHOD_BTS;
	snprintf(s->method_note, sizeof(s->method_note),
		 "auto chose soft: pt refused: %s; bts refused: %s", a, b);
	return PTD_METHOD_SOFT;
}

const char *ptd_session_method_note(const struct ptd_session *s)
{
	return s && s->method_note[0] ? s->method_note : NULL;
}

static int want_stop_cb(void *ctx, pid_t tid, uint64_t pc)
{
	(void)tid;
	return bp_at(ctx, pc) != NULL;
}

static int pt_flush_thread(struct ptd_session *s, struct sthread *th, uint64_t end_ip);
static void pt_note_exec(struct ptd_session *s);

/* Soft recorder: a syscall is about to run. */
static void before_syscall_cb(void *ctx, pid_t tid, const struct user_regs_struct *r,
			      uint64_t next_ip)
{
	struct ptd_session *s = ctx;
	struct sthread *th;

	if (r->rax != SYS_munmap && r->rax != SYS_mremap && r->rax != SYS_mmap &&
	    r->rax != SYS_execve && r->rax != SYS_execveat)
		return;
	if (s->rec_pt && (th = thread_by_tid(s, tid)) != NULL)
		rec_warn(s, pt_flush_thread(s, th, next_ip), "cannot decode the trace before a syscall");
	if (s->rec_pt && (r->rax == SYS_execve || r->rax == SYS_execveat))
		pt_note_exec(s);
	if (r->rax == SYS_munmap)
		dead_save(s, r->rdi, r->rsi);
}

static struct ptd_history *new_history_cb(void *ctx, pid_t tid)
{
	struct ptd_session *s = ctx;
	struct sthread *th = add_sthread(s, tid);

	if (!th)
		return NULL;
	if (s->rec_pt) {
		if (!th->stage)
			th->stage = ptd_history_alloc(read_code, s);
		if (!th->synth)
			th->synth = new_synth();
		return th->stage;
	}
	return th->h;
}

int ptd_session_record_start(struct ptd_session *s, enum ptd_method m)
{
	if (!s)
		return -ptde_invalid;
	if (!ptd_session_alive(s))
		return ptd__err(-ptde_not_running, "The program is not being run.");
	if (s->recording)
		return ptd__err(-ptde_busy, "The process is already being recorded.  Use \"record "
					    "stop\" to stop recording first.");
	s->method_note[0] = 0;
	if (m == PTD_METHOD_AUTO)
		m = s->method;
	if (m == PTD_METHOD_AUTO)
		m = choose_method(s);
	if (m == PTD_METHOD_PT || m == PTD_METHOD_BTS) {
		char why[200];
		if (m == PTD_METHOD_PT)
			probe_pt(why, sizeof(why));
		else
			probe_bts(why, sizeof(why));
		return ptd__err(-ptde_unsupported, "cannot record with method '%s': %s",
				ptd_method_name(m), why);
	}
	s->rec_pt = s->want_pt;
	dead_free(s);
	snap_free(s);
	snap_refresh(s);
	if (m == PTD_METHOD_SOFT) {
		struct ptd_softrec_config cfg = { 0 };
		cfg.no_pin = !s->pin_cpu;
		cfg.want_stop = want_stop_cb;
		cfg.new_history = new_history_cb;
		cfg.before_syscall = before_syscall_cb;
		cfg.ctx = s;
		s->softrec = ptd_softrec_alloc(s->t, &cfg);
		if (!s->softrec)
			return -ptde_nomem;
	} else {
		s->steprec = ptd_steprec_alloc(s->t);
		if (!s->steprec)
			return -ptde_nomem;
	}
	for (int i = 0; i < s->nth; i++) {
		struct sthread *th = &s->th[i];
		if (th->gone)
			continue;
		ptd_history_clear(th->h);
		drop_calls(th);
		th->pos = 0;
		int rc = record_start_thread(s, th);
		if (rc < 0) {
			ptd_steprec_free(s->steprec);
			s->steprec = NULL;
			ptd_softrec_free(s->softrec);
			s->softrec = NULL;
			return rc;
		}
	}
	s->rec_method = m;
	s->recording = 1;
	return 0;
}

int ptd_session_record_stop(struct ptd_session *s)
{
	if (!s || !s->recording)
		return ptd__err(-ptde_not_running, "No record target is currently active.");
	ptd_steprec_free(s->steprec);
	s->steprec = NULL;
	ptd_softrec_free(s->softrec);
	s->softrec = NULL;
	s->recording = 0;
	for (int i = 0; i < s->nth; i++) {
		ptd_history_clear(s->th[i].h);
		drop_calls(&s->th[i]);
		drop_pt(&s->th[i]);
		drop_lazy(&s->th[i]);
		s->th[i].pos = 0;
	}
	return 0;
}

int ptd_session_set_trace_format(struct ptd_session *s, const char *fmt)
{
	if (!s || !fmt)
		return -ptde_invalid;
	if (!strcmp(fmt, "pt"))
		s->want_pt = 1;
	else if (!strcmp(fmt, "blocks") || !strcmp(fmt, "insn"))
		s->want_pt = 0;
	else
		return ptd__err(-ptde_invalid, "unknown trace format '%s' (valid: blocks, pt)", fmt);
	return 0;
}

const char *ptd_session_trace_format(const struct ptd_session *s)
{
	if (!s)
		return NULL;
	return (s->recording ? s->rec_pt : s->want_pt) ? "pt" : "blocks";
}

size_t ptd_session_pt_bytes(struct ptd_session *s)
{
	struct sthread *th = s ? cur_thread(s) : NULL;

	return th ? th->pt_size : 0;
}

int ptd_session_recording(const struct ptd_session *s)
{
	return s && s->recording;
}

const struct ptd_history *ptd_session_history(struct ptd_session *s)
{
	struct sthread *th = s ? cur_thread(s) : NULL;

	if (th && lazy_all(s, th) < 0)
		return NULL;
	return th ? th->h : NULL;
}

/* The call history of @th as far as its history goes now. */
static const struct ptd_calls *thread_calls(struct ptd_session *s, struct sthread *th)
{
	if (!th)
		return NULL;
	if (th->calls && th->calls_count == ptd_history_count(th->h))
		return th->calls;
	drop_calls(th);
	th->calls = ptd_calls_build(th->h, env_func_of, s);
	th->calls_count = ptd_history_count(th->h);
	return th->calls;
}

const struct ptd_calls *ptd_session_calls(struct ptd_session *s)
{
	struct sthread *th = s ? cur_thread(s) : NULL;

	if (!th || lazy_all(s, th) < 0)
		return NULL;
	return thread_calls(s, th);
}

static size_t rec_bytes(struct ptd_session *s, struct sthread *th);

int ptd_session_record_info(struct ptd_session *s, struct ptd_record_info *out)
{
	struct sthread *th;
	const struct ptd_calls *c;

	if (!s || !out)
		return -ptde_invalid;
	if (!s->recording)
		return ptd__err(-ptde_not_running, "No record target is currently active.");
	th = cur_thread(s);
	if (th) {
		int rc = lazy_all(s, th);
		if (rc < 0)
			return rc;
	}
	memset(out, 0, sizeof(*out));
	out->method = s->rec_method;
	out->format = s->rec_pt ? "pt" : "blocks";
	if (!th)
		return 0;
	out->ninsn = ptd_history_ninsn(th->h);
	out->count = ptd_history_count(th->h);
	/* the tail takes a number only when there is one (a bundle may have none) */
	{
		uint64_t other = out->ninsn + (ptd_history_tail(th->h) ? 1 : 0);

		out->ngaps = out->count > other ? out->count - other : 0;
	}
	out->bytes = s->rec_pt ? th->pt_size : ptd_history_bytes(th->h);
	/* Only the count: built segments when they exist, else counted
	 * without storing them (88 bytes each). */
	if (th->calls && th->calls_count == ptd_history_count(th->h)) {
		c = th->calls;
		out->ncalls = ptd_calls_count(c);
	} else if (ptd_calls_count_only(th->h, env_func_of, s, &out->ncalls) < 0) {
		out->ncalls = 0;
	}
	out->replaying = th->pos != 0;
	out->position = th->pos;
	out->stops = s->softrec ? ptd_softrec_traps(s->softrec) + ptd_softrec_steps(s->softrec)
			       : ptd_steprec_steps(s->steprec);
	out->buffer_size = ptd_session_buffer_size(s, s->rec_method);
	out->dropped = ptd_history_dropped(th->h);
	out->mem_bytes = rec_bytes(s, th);
	return 0;
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
	struct sthread *th = s ? cur_thread(s) : NULL;

	if (!th)
		return ptd__err(-ptde_not_running, "The program is not being run.");
	int rc = lazy_all(s, th);
	if (rc < 0)
		return rc;
	*count = ptd_history_count(th->h);
	*pos = th->pos ? th->pos : *count;
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
	struct sthread *th = s ? cur_thread(s) : NULL;

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
	struct sthread *th = s ? cur_thread(s) : NULL;
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
		/* The soft recorder knows every register where it trapped. */
		if (s->softrec && ptd_softrec_regs_at(s->softrec, th->tid, th->pos, r) == 0 &&
		    r->rip == pc) {
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

long ptd_session_read(struct ptd_session *s, uint64_t addr, void *buf, size_t n)
{
	if (s && s->offline)
		return read_code(s, addr, buf, n); /* only code is in a bundle */
	if (!ptd_session_alive(s))
		return ptd__err(-ptde_not_running, "The program is not being run.");
	return ptd_target_read(s->t, addr, buf, n);
}

int ptd_session_backtrace(struct ptd_session *s, uint64_t *pcs, int max)
{
	struct sthread *th = s ? cur_thread(s) : NULL;

	if (!s || !pcs || max <= 0)
		return -ptde_invalid;
	if (th && s->offline) {
		int rc = lazy_all(s, th);
		if (rc < 0)
			return rc;
		const struct ptd_calls *c = ptd_session_calls(s);
		return ptd_replay_backtrace(th->h, c, th->pos ? th->pos : ptd_history_count(th->h),
					    pcs, max);
	}
	if (!ptd_session_alive(s) || !th)
		return ptd__err(-ptde_not_running, "No stack.");
	if (th->pos) {
		const struct ptd_calls *c = ptd_session_calls(s);
		return ptd_replay_backtrace(th->h, c, th->pos, pcs, max);
	}
	struct ptd_frame fr[256];
	int n = ptd_unwind_backtrace(th->tid, fr, max < 256 ? max : 256);
	if (n < 0) {
		uint64_t pc;
		if (ptd_target_get_pc(s->t, th->tid, &pc) < 0)
			return n;
		pcs[0] = pc;
		return 1;
	}
	for (int i = 0; i < n; i++)
		pcs[i] = fr[i].pc;
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
			out[n].recording = s->recording &&
					   (s->softrec ? ptd_softrec_has_thread(s->softrec, th->tid)
						       : ptd_steprec_has_thread(s->steprec, th->tid));
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

/* ---- the live run loop ------------------------------------------------------------------------------- */

/* Signals gdb passes without stopping by default. */
static int signal_nostop(int sig)
{
	switch (sig) {
	case SIGALRM:
	case SIGURG:
	case SIGCHLD:
	case SIGWINCH:
	case SIGPROF:
	case SIGIO:
	case SIGVTALRM:
		return 1;
	default:
		return sig >= SIGRTMIN && sig <= SIGRTMIN + 1; /* glibc-internal */
	}
}

struct run_ctx {
	struct ptd_session *s;
	struct sthread *sel;
	int recording;
	int step_sel;
	int sel_sig; /* the selected thread's pending step enters a signal handler */
	uint64_t fed; /* soft: history position the stepper has seen up to */
	uint64_t fed_ip; /* and the ip that position had then */
	/* index of @sel in s->th: add_sthread() may move the array (a clone
	 * seen by the recorder, by stop_all), never an index */
	ptrdiff_t sel_i;
};

static void sel_set(struct run_ctx *rc, struct sthread *th)
{
	rc->sel = th;
	rc->sel_i = th ? th - rc->s->th : -1;
}

/* After anything that may have added a thread. */
static void sel_fix(struct run_ctx *rc)
{
	rc->sel = rc->sel_i >= 0 ? &rc->s->th[rc->sel_i] : NULL;
}

/* The history the recorder writes the selected thread into. */
static const struct ptd_history *rec_history(struct ptd_session *s, struct sthread *th)
{
	return th->stage ? th->stage : th->h;
}

/* ---- bounded recording ---- */

/* Heap bytes @th's recording holds: its history, the blocks not yet
 * turned into PT, the PT kept, the recorder's registers and buffers. */
static size_t rec_bytes(struct ptd_session *s, struct sthread *th)
{
	size_t n = ptd_history_bytes(th->h) + ptd_history_bytes(th->stage) + th->pt_cap +
		   th->cap_marks * sizeof(struct pt_mark);

	if (s->softrec)
		n += ptd_softrec_bytes(s->softrec, th->tid);
	return n;
}

/* @th's history lost its oldest numbers: the PT stretches wholly before
 * what is kept go too (the stretch the history now starts in stays, so
 * the saved PT decodes to at least what the history shows). */
static void pt_drop_front(struct sthread *th, uint64_t shift)
{
	size_t j = 0, cut;

	while (j + 1 < th->nmarks && th->marks[j + 1].number <= shift + 2)
		j++;
	cut = th->nmarks ? th->marks[j].off : 0;
	if (cut) {
		memmove(th->pt, th->pt + cut, th->pt_size - cut);
		th->pt_size -= cut;
	}
	memmove(th->marks, th->marks + j, (th->nmarks - j) * sizeof(*th->marks));
	th->nmarks -= j;
	for (size_t i = 0; i < th->nmarks; i++) {
		th->marks[i].off -= cut;
		th->marks[i].number = th->marks[i].number > shift ? th->marks[i].number - shift : 1;
	}
}

/*
 * Keeps @th's recording within the method's buffer-size: beyond it, the
 * oldest part of the history (a quarter of the bound and what is over)
 * is dropped and a gap at number 1 says so.  @fed is the run loop's
 * position in the history the recorder writes (moved with the numbers).
 */
static int rec_bound(struct ptd_session *s, struct sthread *th, uint64_t *fed)
{
	uint64_t limit = s->softrec ? s->buf_soft : s->buf_step;
	uint64_t count, number, shift = 0, target;
	size_t have;
	char why[200];
	int rc;

	if (!limit || !th->h)
		return 0;
	have = rec_bytes(s, th);
	if (have <= limit)
		return 0;
	target = limit - limit / 4;
	count = ptd_history_count(th->h);
	/* Costs grow with the instructions recorded: drop that share. */
	number = (uint64_t)((double)count * (double)(have - target) / (double)have);
	if (number < 2)
		return 0;
	snprintf(why, sizeof(why),
		 "record %s buffer-size %llu reached",
		 s->softrec ? "soft" : "step", (unsigned long long)limit);
	rc = ptd_history_drop_oldest(th->h, number, why, &shift);
	if (rc < 0 || !shift)
		return rc;
	if (s->softrec)
		ptd_softrec_dropped(s->softrec, th->tid, shift);
	if (th->stage)
		pt_drop_front(th, shift);
	if (th->pos)
		th->pos = th->pos > shift + 1 ? th->pos - shift : 1;
	if (fed && !th->stage && *fed)
		*fed = *fed > shift + 1 ? *fed - shift : 1;
	drop_calls(th);
	return 0;
}

/*
 * Every so many recorder stops while the program runs (and at every stop
 * shown to the user): the trace format pt turns a thread's blocks into PT
 * once they are many (they would pile up until the program stops), and
 * every recording is kept within its buffer-size.  @sel, when stepped by
 * the run loop, keeps its blocks (the loop reads them) until the stop.
 */
static int rec_maintain(struct ptd_session *s, int force, struct sthread *sel, uint64_t *fed)
{
	int rc = 0;

	if (!s->recording || (!force && ++s->maint_tick < 4096))
		return 0;
	s->maint_tick = 0;
	for (int i = 0; i < s->nth && rc == 0; i++) {
		struct sthread *th = &s->th[i];
		if (th->gone && !force)
			continue;
		if (th->stage && th != sel && ptd_history_nitems(th->stage) > 65536) {
			uint64_t ip = s->softrec ? ptd_softrec_next_ip(s->softrec, th->tid)
						 : ptd_steprec_next_ip(s->steprec, th->tid);
			if (ip)
				rc = pt_flush_thread(s, th, ip);
		}
		if (rc == 0)
			rc = rec_bound(s, th, th == sel ? fed : NULL);
	}
	return rc;
}

/*
 * Soft recorder: one of our single-steps may cover more than one
 * instruction (a branch the recorder emulates on the way), so the stepper
 * is fed from what the recorder wrote into the history since last time.
 * Returns 1 when the motion is complete.
 */
static int feed_from_history(struct ptd_session *s, struct run_ctx *rc, struct ptd_stepper *stp)
{
	const struct ptd_history *h;
	struct ptd_hcursor c;
	uint64_t count;
	int done = 0;

	ptd_softrec_flush(s->softrec, rc->sel->tid);
	h = rec_history(s, rc->sel);
	count = ptd_history_count(h);
	if (rc->fed == 0 || rc->fed > count)
		rc->fed = 1; /* the history was restarted (PT flush): from its start */
	if (ptd_hcursor_goto(&c, h, rc->fed) < 0)
		return 0;
	if (rc->fed_ip && c.ip != rc->fed_ip) {
		/* The instruction we were at never ran: a signal handler was
		 * entered first. */
		struct ptd_item ev[4];
		int nev = ptd_hcursor_events(&c, ev, 4);
		for (int i = 0; i < nev && !done; i++)
			if (ev[i].kind == PTD_ITEM_EVENT && ev[i].reason == PTD_EV_SIGNAL)
				done = ptd_stepper_feed(stp, rc->fed_ip, PTD_IC_OTHER, c.ip, 1);
	}
	while (!done && c.number < count) {
		uint64_t ip = c.ip;
		int iclass = c.iclass;
		struct ptd_item ev[4];
		int nev, sig = 0;
		if (ptd_hcursor_next(&c) < 0)
			break;
		nev = ptd_hcursor_events(&c, ev, 4);
		for (int i = 0; i < nev; i++)
			if (ev[i].kind == PTD_ITEM_EVENT && ev[i].reason == PTD_EV_SIGNAL)
				sig = 1;
		if (sig) {
			done = ptd_stepper_feed(stp, ip, iclass, ip, 0);
			if (!done)
				done = ptd_stepper_feed(stp, ip, PTD_IC_OTHER, c.ip, 1);
		} else {
			done = ptd_stepper_feed(stp, ip, iclass, c.ip, 0);
		}
	}
	rc->fed = c.number;
	rc->fed_ip = c.ip;
	return done;
}

static int resume_thread(struct run_ctx *rc, pid_t tid, int signo)
{
	struct ptd_session *s = rc->s;
	int step = rc->recording || (rc->step_sel && rc->sel && tid == rc->sel->tid);

	/* A recorder may have resumed the thread on its own already (the
	 * soft recorder's own steps): its next event will come. */
	if (ptd_target_thread_state(s->t, tid) != PTD_THREAD_STOPPED)
		return 0;
	if (signo < 0)
		signo = ptd_target_pending_signal(s->t, tid);
	if (s->softrec && ptd_softrec_has_thread(s->softrec, tid)) {
		if (rc->sel && tid == rc->sel->tid && step)
			rc->sel_sig = signo > 0 && ptd_target_signal_caught(s->t, tid, signo);
		return ptd_softrec_resume(s->softrec, tid, step, signo);
	}
	if (rc->recording && ptd_steprec_has_thread(s->steprec, tid)) {
		if (ptd_steprec_before_step(s->steprec, tid, signo) == 1) {
			/* The address space may change: decode PT while the
			 * code is still mapped, and keep code an munmap takes. */
			struct user_regs_struct r;
			int got = ptd_target_get_regs(s->t, tid, &r) == 0;
			if (s->rec_pt)
				rec_warn(s, pt_sync_before_unmap(s),
					 "cannot decode the trace before a syscall");
			if (got && r.rax == SYS_munmap)
				dead_save(s, r.rdi, r.rsi);
			if (got && s->rec_pt && (r.rax == SYS_execve || r.rax == SYS_execveat))
				pt_note_exec(s);
		}
	}
	if (rc->sel && tid == rc->sel->tid && step)
		rc->sel_sig = signo > 0 && ptd_target_signal_caught(s->t, tid, signo);
	return ptd_target_resume(s->t, tid, step, signo);
}

/* Events that arrive while stopping the other threads. */
static void stop_all_cb(void *ctx, const struct ptd_stop *st)
{
	struct run_ctx *rc = ctx;
	struct ptd_session *s = rc->s;

	if (s->softrec) {
		/* The recorder keeps its own state machine per thread. */
		ptd_softrec_stop(s->softrec, st);
		if (st->kind == PTD_STOP_CLONE)
			add_sthread(s, st->new_tid);
		if (st->kind == PTD_STOP_THREAD_EXIT) {
			struct sthread *th = thread_by_tid(s, st->tid);
			if (th)
				th->gone = 1;
		}
		return;
	}
	switch (st->kind) {
	case PTD_STOP_STEP:
		if (rc->recording && ptd_steprec_has_thread(s->steprec, st->tid))
			ptd_steprec_stepped(s->steprec, st->tid, st->pc);
		break;
	case PTD_STOP_CLONE: {
		struct sthread *n = add_sthread(s, st->new_tid);
		if (n && rc->recording)
			record_start_thread(s, n);
		break;
	}
	case PTD_STOP_THREAD_EXIT: {
		struct sthread *th = thread_by_tid(s, st->tid);
		if (rc->recording)
			ptd_steprec_remove_thread(s->steprec, st->tid);
		if (th)
			th->gone = 1;
		break;
	}
	default:
		break;
	}
}

static void fill_event_location(struct ptd_session *s, struct ptd_event *ev)
{
	struct ptd_line_info li;

	ev->at_line_start = env_line_of(s, ev->pc, &li) == 0 && li.lo == ev->pc;
}

static void finish_stop(struct run_ctx *rc, struct ptd_event *ev)
{
	struct ptd_session *s = rc->s;

	if (ptd_session_alive(s))
		ptd_target_stop_all(s->t, stop_all_cb, rc);
	if (s->recording && (s->steprec || s->softrec)) {
		int rc;
		if (s->steprec)
			rc = ptd_steprec_flush(s->steprec, 0);
		else
			rc = ptd_softrec_flush(s->softrec, 0);
		rec_warn(s, rc, "cannot write the recorded instructions into the history");
		if (s->rec_pt)
			rec_warn(s, pt_sync(s), "cannot decode the recorded trace");
		rec_warn(s, rec_maintain(s, 1, NULL, NULL), "cannot keep the recording within its bound");
	}
	if (s->recording)
		snap_refresh(s);
	for (int i = 0; i < s->nth; i++)
		if (s->th[i].calls && s->th[i].calls_count != ptd_history_count(s->th[i].h))
			drop_calls(&s->th[i]);
	s->sym_dirty = 1;
	if (ptd_session_alive(s))
		ptd_target_bp_enable(s->t, 1);
	if (ev->tid) {
		struct sthread *th = thread_by_tid(s, ev->tid);
		if (th) {
			s->cur = (int)(th - s->th);
			ev->thread_num = th->num;
		}
	}
	fill_event_location(s, ev);
}

/* The motion ends at breakpoint @b: count the hit, stop everything. */
static int report_bp(struct run_ctx *rc, struct sbp *b, struct ptd_event *ev)
{
	int id = b->id, temporary = b->temporary;

	b->hits++;
	ev->kind = PTD_EVENT_BREAKPOINT;
	ev->bp_id = id;
	ev->new_frame = 1;
	finish_stop(rc, ev);
	if (temporary)
		ptd_session_delete(rc->s, id);
	return 0;
}

/*
 * The program was killed (SIGKILL, or a fatal signal passed on to it)
 * while recording: nothing of it is left to ask, but what was recorded is
 * the user's evidence of how it got there.  The session goes on as if the
 * recording had been loaded from a bundle: the histories stay, code comes
 * from the snapshot of the last stop (and what was unmapped before), until
 * the next run.  Returns 0, or <0 when there is nothing to keep.
 */
static int keep_killed_recording(struct ptd_session *s)
{
	if (!s->recording || !s->snap_img || s->nth == 0)
		return -ptde_notfound;
	ptd_image_free(s->offimg);
	s->offimg = s->snap_img;
	s->snap_img = NULL;
	s->offline = 1;
	s->kept = 1;
	if (s->rec_pt)
		rec_warn(s, pt_sync(s), "cannot decode the recorded trace");
	ptd_steprec_free(s->steprec);
	s->steprec = NULL;
	ptd_softrec_free(s->softrec);
	s->softrec = NULL;
	ptd_target_free(s->t);
	s->t = NULL;
	/* Every thread with a history is shown, as in a loaded bundle: the
	 * kill ended them all, and those that ended before are evidence too. */
	for (int i = 0; i < s->nth; i++) {
		struct sthread *th = &s->th[i];
		drop_calls(th);
		th->pos = 0;
		if (ptd_history_count(th->h) > 1)
			th->gone = 0;
	}
	if (s->cur >= s->nth || s->th[s->cur].gone) {
		/* the thread shown first: the main thread, if it lived on */
		s->cur = 0;
		for (int i = 0; i < s->nth; i++)
			if (!s->th[i].gone) {
				s->cur = i;
				break;
			}
	}
	return 0;
}

static int live_run(struct ptd_session *s, enum ptd_motion m, struct ptd_event *ev)
{
	struct run_ctx rc = { s, NULL, 0, 0, 0 };
	struct ptd_stepper stepper;
	struct ptd_stop st;
	uint64_t start_pc = 0;
	int err;

	memset(ev, 0, sizeof(*ev));
	if (!ptd_session_alive(s))
		return ptd__err(-ptde_not_running, "The program is not being run.");
	s->interrupted = 0;
	ptd_target_clear_interrupt();
	sel_set(&rc, cur_thread(s));
	rc.recording = s->recording && s->steprec;
	rc.step_sel = m != PTD_MOTION_CONTINUE;
	if (rc.sel)
		ptd_target_get_pc(s->t, rc.sel->tid, &start_pc);
	ptd_stepper_init(&stepper, m, start_pc, &s->senv);
	if (s->softrec && rc.sel && ptd_softrec_has_thread(s->softrec, rc.sel->tid)) {
		ptd_softrec_flush(s->softrec, rc.sel->tid);
		rc.fed = ptd_history_count(rec_history(s, rc.sel));
		rc.fed_ip = start_pc;
	}
	/* While single-stepping everything we compare pcs with the
	 * breakpoints ourselves, with clean code bytes in memory. */
	ptd_target_bp_enable(s->t, !rc.recording);
	/* Threads resting on an inserted breakpoint go first: stepping them
	 * off it needs the others stopped. */
	for (int pass = 0; pass < 2; pass++)
		for (int i = 0; i < s->nth; i++) {
			struct sthread *th = &s->th[i];
			uint64_t pc = 0;
			if (th->gone || ptd_target_thread_state(s->t, th->tid) != PTD_THREAD_STOPPED)
				continue;
			ptd_target_get_pc(s->t, th->tid, &pc);
			if ((pass == 0) != (!rc.recording && ptd_target_bp_at(s->t, pc)))
				continue;
			err = resume_thread(&rc, th->tid, -1);
			if (err < 0) {
				finish_stop(&rc, ev);
				return err;
			}
		}
	for (;;) {
		err = ptd_target_wait(s->t, &st, 1);
		if (err < 0) {
			if (err == -ptde_not_running) {
				ev->kind = PTD_EVENT_EXITED;
				drop_process(s);
				return 0;
			}
			finish_stop(&rc, ev);
			return err;
		}
		sel_fix(&rc);
		ev->tid = st.tid;
		ev->pc = st.pc;
		if (s->softrec) {
			int own = ptd_softrec_stop(s->softrec, &st);
			sel_fix(&rc); /* a clone was added to the session */
			if (own == -ptde_nosrch) {
				/* The thread vanished under the recorder (the
				 * program was killed, SIGKILL wakes it from its
				 * stop): its exit comes through the wait. */
				ptd_clear_error();
				continue;
			}
			if (own < 0) {
				finish_stop(&rc, ev);
				return own;
			}
			if (own == 1) {
				/* The recorder's own trap or step.  While we step the
				 * selected thread, what it ran still counts for the
				 * motion (e.g. a signal handler entered). */
				if (rc.step_sel && rc.sel && st.tid == rc.sel->tid &&
				    st.kind == PTD_STOP_STEP && feed_from_history(s, &rc, &stepper)) {
					ev->kind = PTD_EVENT_STEPPED;
					ev->new_frame = stepper.new_frame;
					start_pc = st.pc;
					finish_stop(&rc, ev);
					return 0;
				}
				err = rec_maintain(s, 0, rc.step_sel ? rc.sel : NULL, &rc.fed);
				if (err == 0)
					err = resume_thread(&rc, st.tid, 0);
				if (err == -ptde_nosrch) {
					ptd_clear_error(); /* gone: see above */
					continue;
				}
				if (err < 0) {
					finish_stop(&rc, ev);
					return err;
				}
				continue;
			}
		}
		switch (st.kind) {
		case PTD_STOP_STEP: {
			int done = 0, iclass = PTD_IC_OTHER;
			struct sbp *b;
			if (rc.recording && ptd_steprec_has_thread(s->steprec, st.tid)) {
				ptd_steprec_stepped(s->steprec, st.tid, st.pc);
				err = rec_maintain(s, 0, NULL, NULL);
				if (err < 0) {
					finish_stop(&rc, ev);
					return err;
				}
			}
			if (rc.sel && st.tid == rc.sel->tid && rc.step_sel && s->softrec) {
				done = feed_from_history(s, &rc, &stepper);
				start_pc = st.pc;
			} else if (rc.sel && st.tid == rc.sel->tid && rc.step_sel) {
				/* What executed: the instruction at the previous pc. */
				if (rc.recording && ptd_steprec_has_thread(s->steprec, st.tid)) {
					iclass = ptd_steprec_last_class(s->steprec, st.tid);
					if (iclass < 0)
						iclass = PTD_IC_OTHER;
				} else {
					struct ptd_insn_info info;
					uint8_t buf[16];
					long n = ptd_target_read(s->t, start_pc, buf, sizeof(buf));
					if (n > 0 &&
					    ptd_disasm_decode(buf, (size_t)n, start_pc, &info) == 0)
						iclass = info.iclass;
				}
				done = ptd_stepper_feed(&stepper, start_pc, iclass, st.pc, rc.sel_sig);
				rc.sel_sig = 0;
				start_pc = st.pc;
			}
			/* Arriving at a breakpoint address counts as hitting it,
			 * as in gdb (also for the stepped thread). */
			if ((b = bp_at(s, st.pc)) != NULL)
				return report_bp(&rc, b, ev);
			if (done) {
				ev->kind = PTD_EVENT_STEPPED;
				ev->new_frame = stepper.new_frame;
				finish_stop(&rc, ev);
				return 0;
			}
			if (s->interrupted) {
				ev->kind = PTD_EVENT_INTERRUPTED;
				ev->new_frame = 1;
				finish_stop(&rc, ev);
				return 0;
			}
			err = resume_thread(&rc, st.tid, 0);
			break;
		}
		case PTD_STOP_BREAKPOINT: {
			struct sbp *b = bp_at(s, st.pc);
			if (!b) {
				/* stale (deleted meanwhile): go on */
				err = resume_thread(&rc, st.tid, 0);
				break;
			}
			if (rc.sel && st.tid == rc.sel->tid && rc.step_sel && st.pc == start_pc) {
				/* we are stepping off it ourselves */
				err = resume_thread(&rc, st.tid, 0);
				break;
			}
			return report_bp(&rc, b, ev);
		}
		case PTD_STOP_SIGNAL:
			if (signal_nostop(st.signo)) {
				err = resume_thread(&rc, st.tid, st.signo);
				break;
			}
			ev->kind = PTD_EVENT_SIGNAL;
			ev->signo = st.signo;
			ev->new_frame = 1;
			finish_stop(&rc, ev);
			return 0;
		case PTD_STOP_INTERRUPT:
			if (s->interrupted) {
				ev->kind = PTD_EVENT_INTERRUPTED;
				ev->new_frame = 1;
				finish_stop(&rc, ev);
				return 0;
			}
			err = resume_thread(&rc, st.tid, 0);
			break;
		case PTD_STOP_EXITED:
		case PTD_STOP_KILLED:
			if (s->recording && s->steprec)
				ptd_steprec_flush(s->steprec, 0);
			if (s->softrec)
				ptd_softrec_flush(s->softrec, 0);
			ev->kind = st.kind == PTD_STOP_EXITED ? PTD_EVENT_EXITED : PTD_EVENT_KILLED;
			ev->exit_code = st.status;
			ev->signo = st.signo;
			ev->pc = 0;
			if (st.kind == PTD_STOP_KILLED && keep_killed_recording(s) == 0)
				return 0;
			drop_process(s);
			return 0;
		case PTD_STOP_THREAD_EXIT: {
			struct sthread *th = thread_by_tid(s, st.tid);
			if (rc.recording)
				ptd_steprec_remove_thread(s->steprec, st.tid);
			if (th)
				th->gone = 1;
			if (rc.sel && rc.sel->tid == st.tid && !rc.step_sel) {
				/* continue: the selected thread ended; carry on with
				 * the main thread selected, as gdb does. */
				struct sthread *lead = thread_by_tid(s, ptd_target_pid(s->t));
				sel_set(&rc, lead);
				if (lead)
					s->cur = (int)(lead - s->th);
			} else if (rc.sel && rc.sel->tid == st.tid) {
				/* The stepped thread is gone: stop the motion. */
				ev->kind = PTD_EVENT_STEPPED;
				ev->tid = ptd_target_pid(s->t);
				ev->new_frame = 1;
				sel_set(&rc, NULL);
				finish_stop(&rc, ev);
				if (ptd_session_alive(s))
					ptd_target_get_pc(s->t, ev->tid, &ev->pc);
				return 0;
			}
			err = 0;
			break;
		}
		case PTD_STOP_CLONE: {
			struct sthread *n = add_sthread(s, st.new_tid);
			sel_fix(&rc);
			if (n && rc.recording)
				record_start_thread(s, n);
			/* (the soft recorder added the thread in ptd_softrec_stop) */
			err = resume_thread(&rc, st.tid, 0);
			if (err == 0 && n)
				err = resume_thread(&rc, st.new_tid, 0);
			break;
		}
		case PTD_STOP_FORK:
			if (st.signo == SIGKILL && s->notify) {
				char msg[300];
				snprintf(msg, sizeof(msg),
					 "warning: cannot take the breakpoints out of forked child "
					 "process %d (%s): it was killed rather than run into them",
					 (int)st.new_tid, ptd_last_error(-ptde_nomap));
				s->notify(s->notify_ctx, msg);
			}
			err = resume_thread(&rc, st.tid, 0);
			break;
		case PTD_STOP_EXEC:
			if (s->notify) {
				char exe[64], path[4096], msg[4200];
				ssize_t n;
				snprintf(exe, sizeof(exe), "/proc/%d/exe", (int)ptd_target_pid(s->t));
				n = readlink(exe, path, sizeof(path) - 1);
				path[n > 0 ? n : 0] = 0;
				snprintf(msg, sizeof(msg), "process %d is executing new program: %s",
					 (int)ptd_target_pid(s->t), path);
				s->notify(s->notify_ctx, msg);
			}
			if (rc.recording)
				ptd_steprec_exec(s->steprec, st.tid, st.pc);
			if (s->recording && s->rec_pt && s->exec_img) {
				/* Decode the stretch ending with the execve now, with
				 * the old program's image. */
				struct sthread *eth = thread_by_tid(s, st.tid);
				if (eth && eth->stage) {
					eth->exec_flush = 1;
					rec_warn(s, pt_flush_thread(s, eth, st.pc),
						 "cannot decode the trace up to the exec");
					eth->exec_flush = 0;
				}
			}
			ptd_image_free(s->exec_img);
			s->exec_img = NULL;

			for (int i = 0; i < s->nth; i++)
				if (s->th[i].tid != st.tid)
					s->th[i].gone = 1;
			{
				struct sthread *th = thread_by_tid(s, st.tid);
				if (!th)
					th = add_sthread(s, st.tid);
				sel_set(&rc, th);
				s->cur = th ? (int)(th - s->th) : 0;
			}
			ptd_symbols_free(s->sym);
			s->sym = NULL;
			symbols(s);
			bp_rearm_all(s);
			ptd_target_bp_enable(s->t, !rc.recording);
			start_pc = st.pc;
			err = resume_thread(&rc, st.tid, 0);
			break;
		default:
			err = resume_thread(&rc, st.tid, 0);
			break;
		}
		if (err == -ptde_nosrch) {
			/* the thread vanished (killed): its exit comes next */
			ptd_clear_error();
			continue;
		}
		if (err < 0) {
			finish_stop(&rc, ev);
			return err;
		}
	}
}

/* ---- motions ---------------------------------------------------------------------------------------- */

static int replay_move(struct ptd_session *s, struct sthread *th, enum ptd_motion m, int reverse,
		       struct ptd_event *ev)
{
	struct ptd_replay_result res;
	const struct ptd_calls *calls;
	uint64_t count, from;
	size_t more = 1;
	int rc;

	for (;;) {
		calls = thread_calls(s, th);
		count = ptd_history_count(th->h);
		from = th->pos ? th->pos : count;
		rc = ptd_replay_move(th->h, calls, from, m, reverse, &s->senv.base, &res);
		if (rc < 0)
			return rc;
		/* A loaded trace decoded from its end: running into the
		 * start of what is decoded means the older segments are
		 * needed; the motion runs again from the same place. */
		if (!reverse || !th->lazy ||
		    (res.stop != PTD_REPLAY_BEGIN &&
		     (res.stop != PTD_REPLAY_BREAKPOINT || res.number != ptd_replay_first_insn(th->h))))
			break;
		rc = lazy_more(s, th, more);
		if (rc < 0)
			return rc;
		if (rc == 0)
			break;
		more *= 2;
	}
	memset(ev, 0, sizeof(*ev));
	ev->tid = th->tid;
	ev->thread_num = th->num;
	ev->pc = res.ip;
	ev->number = res.number;
	ev->gaps_crossed = res.gaps_crossed;
	/* Numbers in a partly decoded loaded trace are not final yet. */
	ev->first_gap = th->lazy ? 0 : res.first_gap;
	ev->first_gap_reason = res.first_gap_reason;
	switch (res.stop) {
	case PTD_REPLAY_DONE:
		ev->kind = PTD_EVENT_STEPPED;
		break;
	case PTD_REPLAY_BREAKPOINT: {
		struct sbp *b;
		if (reverse && res.number == ptd_replay_first_insn(th->h)) {
			/* gdb reports the end of the history, not the
			 * breakpoint, at the first recorded instruction. */
			ev->kind = PTD_EVENT_NO_HISTORY;
			break;
		}
		ev->kind = PTD_EVENT_BREAKPOINT;
		ev->bp_id = res.bp_id;
		if ((b = bp_at(s, res.ip)) != NULL) {
			ev->bp_id = b->id;
			b->hits++;
		}
		break;
	}
	case PTD_REPLAY_BEGIN:
		ev->kind = PTD_EVENT_NO_HISTORY;
		break;
	case PTD_REPLAY_END:
		ev->kind = PTD_EVENT_STEPPED;
		break;
	case PTD_REPLAY_GAP:
		ev->kind = PTD_EVENT_GAP;
		break;
	case PTD_REPLAY_ERROR:
		return ptd__err(-ptde_bad_insn, "cannot decode the recorded instruction at %llu",
				(unsigned long long)res.number);
	}
	th->pos = res.number >= count ? 0 : res.number;
	ev->replaying = th->pos != 0;
	/* Whether gdb would print the frame: a call/return was crossed. */
	if (calls) {
		const struct ptd_callseg *a = ptd_calls_find(calls, from);
		const struct ptd_callseg *b = ptd_calls_find(calls, res.number);
		ev->new_frame = !a || !b || a->level != b->level ||
				env_func_of(s, ev->pc) != env_func_of(s, a->ip) || ev->kind != PTD_EVENT_STEPPED;
		if (a && b && a->level == b->level && a->index != b->index) {
			/* same level, other segment: returned and called again */
			if (env_func_of(s, ev->pc) != env_func_of(s, a->ip))
				ev->new_frame = 1;
		}
	}
	fill_event_location(s, ev);
	if (res.stop == PTD_REPLAY_END && res.incomplete && !reverse)
		return 1; /* the caller continues live */
	return 0;
}

int ptd_session_motion(struct ptd_session *s, enum ptd_motion m, int reverse, struct ptd_event *ev)
{
	struct sthread *th;
	int rc;

	if (!s || !ev)
		return -ptde_invalid;
	memset(ev, 0, sizeof(*ev));
	if (s->offline && (th = cur_thread(s)) != NULL) {
		/* A loaded trace: the history is all there is.  Reaching its
		 * end going forward ends there, as in gdb's replay. */
		uint64_t count = ptd_history_count(th->h);
		if (!reverse && !th->pos)
			return ptd__err(-ptde_eos, "No more reverse-execution history.");
		rc = replay_move(s, th, m, reverse, ev);
		if (rc > 0 || (!reverse && ev->number >= count)) {
			th->pos = 0;
			ev->kind = PTD_EVENT_NO_HISTORY;
			ev->replaying = 0;
			rc = 0;
		}
		return rc;
	}
	if (!ptd_session_alive(s))
		return ptd__err(-ptde_not_running, "The program is not being run.");
	th = cur_thread(s);
	if (!th)
		return ptd__err(-ptde_not_running, "The program is not being run.");
	if (reverse) {
		if (!s->recording)
			return ptd__err(-ptde_unsupported, "Target native does not support this command.");
		return replay_move(s, th, m, 1, ev);
	}
	if (th->pos) {
		rc = replay_move(s, th, m, 0, ev);
		if (rc <= 0)
			return rc;
		/* Reached the end of the history with the motion unfinished:
		 * the rest runs live.  (gdb stops at the end of the history; a
		 * live recorder simply goes on.) */
		th->pos = 0;
	}
	return live_run(s, m, ev);
}

int ptd_session_goto(struct ptd_session *s, const char *where, struct ptd_event *ev)
{
	struct sthread *th;
	uint64_t count, n;
	char *end;

	if (!s || !where || !ev)
		return -ptde_invalid;
	memset(ev, 0, sizeof(*ev));
	if (!s->recording)
		return ptd__err(-ptde_not_running, "No record target is currently active.");
	th = cur_thread(s);
	if (!th)
		return ptd__err(-ptde_not_running, "The program is not being run.");
	int rc = lazy_all(s, th);
	if (rc < 0)
		return rc;
	count = ptd_history_count(th->h);
	if (!strcmp(where, "begin") || !strcmp(where, "start")) {
		/* Gaps at the start are skipped, as gdb does. */
		n = ptd_replay_first_insn(th->h);
		if (!n)
			return ptd__err(-ptde_invalid, "No trace.");
	} else if (!strcmp(where, "end")) {
		/* The last instruction: a trace that ends in a gap (a bundle
		 * without a tail) ends at the instruction before it. */
		struct ptd_hcursor c;

		n = count;
		if (n && ptd_hcursor_goto(&c, th->h, n) == 0 && c.is_gap) {
			while (c.is_gap && ptd_hcursor_prev(&c) == 0)
				;
			if (!c.is_gap)
				n = c.number;
		}
	} else {
		errno = 0;
		n = strtoull(where, &end, 0);
		if (errno || end == where || *end)
			return ptd__err(-ptde_invalid, "Invalid number \"%s\".", where);
		if (n < 1 || n > count)
			return ptd__err(-ptde_invalid, "Target insn not found.");
		{
			struct ptd_hcursor c;
			if (ptd_hcursor_goto(&c, th->h, n) == 0 && c.is_gap)
				return ptd__err(-ptde_invalid, "No such instruction.");
		}
	}
	if (count == 0)
		return ptd__err(-ptde_invalid, "No trace.");
	th->pos = n >= count ? 0 : n;
	ev->kind = PTD_EVENT_STEPPED;
	ev->tid = th->tid;
	ev->thread_num = th->num;
	ev->number = n;
	ev->replaying = th->pos != 0;
	ev->new_frame = 1;
	if (ptd_session_pc(s, &ev->pc) < 0)
		return -ptde_nomap;
	fill_event_location(s, ev);
	return 0;
}

/* ---- trace bundles ------------------------------------------------------------------ */

const char *ptd_session_offline_exe(struct ptd_session *s)
{
	if (!s || !s->offline)
		return NULL;
	symbols(s);
	return s->offline_exe;
}

int ptd_session_offline(const struct ptd_session *s)
{
	return s && s->offline;
}

int ptd_session_check_trace(const struct ptd_session *s)
{
	return s && s->offline ? ptd_bundle_check(s->bundle) : 0;
}

/* Symbols of a loaded bundle: one module per ELF file of its maps, loaded
 * at (lowest vaddr - its offset), which is where an ELF's first segment
 * sits; raw dumps (not ELF) are skipped. */
static void offline_symbols(struct ptd_session *s)
{
	const struct ptd_bundle *b = s->bundle;

	if (!b)
		return;
	for (size_t i = 0; i < b->nmaps; i++) {
		const struct ptd_bundle_map *m = &b->maps[i];
		uint64_t lo = m->vaddr - m->offset, hi = m->vaddr + m->size;
		int seen = 0;
		unsigned char magic[4];
		FILE *f;
		for (size_t j = 0; j < i; j++)
			if (!strcmp(b->maps[j].path, m->path))
				seen = 1;
		if (seen)
			continue;
		for (size_t j = i + 1; j < b->nmaps; j++)
			if (!strcmp(b->maps[j].path, m->path)) {
				if (b->maps[j].vaddr - b->maps[j].offset < lo)
					lo = b->maps[j].vaddr - b->maps[j].offset;
				if (b->maps[j].vaddr + b->maps[j].size > hi)
					hi = b->maps[j].vaddr + b->maps[j].size;
			}
		f = fopen(m->path, "rb");
		if (!f)
			continue;
		int elf = fread(magic, 1, 4, f) == 4 && !memcmp(magic, "\177ELF", 4);
		fclose(f);
		if (!elf)
			continue;
		if (!s->sym) {
			if (ptd_symbols_alloc_file(&s->sym, m->path, lo) < 0) {
				s->sym = NULL;
				continue;
			}
			free(s->offline_exe);
			s->offline_exe = realpath(m->path, NULL);
		} else {
			ptd_symbols_add_file(s->sym, m->path, lo, hi);
		}
	}
}

static int save_anon(void *ctx, uint64_t start, uint64_t end, const char *name)
{
	struct ptd_session *s = ctx;
	size_t n = (size_t)(end - start);
	uint8_t *buf;
	long got;
	int rc;

	if (n > (64u << 20))
		return 0;
	buf = malloc(n);
	if (!buf)
		return -ptde_nomem;
	got = ptd_target_read(s->t, start, buf, n); /* our int3s masked */
	rc = got == (long)n ? ptd_bundle_add_memory_named(s->bundle, start, buf, n, name) : 0;
	free(buf);
	return rc;
}

/* The file-backed executable mappings of @maps (/proc/PID/maps text). */
static int save_maps(struct ptd_bundle *b, const char *maps)
{
	const char *p = maps;

	while (*p) {
		size_t n = strcspn(p, "\n");
		char *line = strndup(p, n);
		unsigned long long lo, hi, off;
		char perms[8];
		int pos = 0, rc = 0;

		if (!line)
			return -ptde_nomem;
		p += n + (p[n] == '\n');
		if (sscanf(line, "%llx-%llx %7s %llx %*s %*s %n", &lo, &hi, perms, &off, &pos) >= 4 &&
		    perms[2] == 'x' && pos && line[pos] == '/' && !strstr(line + pos, " (deleted)"))
			rc = ptd_bundle_add_map(b, line + pos, off, hi - lo, lo);
		free(line);
		if (rc < 0)
			return rc;
	}
	return 0;
}

/* The recording as a bundle in memory (maps, code without a file, each
 * thread's PT); *@out is the caller's. */
static int session_bundle(struct ptd_session *s, struct ptd_bundle **out)
{
	struct ptd_cpu cpu;
	char vendor[16];
	struct ptd_bundle *b;
	char *maps = NULL;
	int rc = 0;

	*out = NULL;
	/* a live recording, or one kept after the program was killed */
	if (!s->recording || (!ptd_session_alive(s) && !s->kept))
		return ptd__err(-ptde_not_running, "No recording is currently active.");
	if (!s->rec_pt)
		return ptd__err(-ptde_unsupported,
				"this recording keeps blocks, not PT: record with the trace format pt "
				"(\"record step pt\", --trace-format=pt) to save it");
	/* The cpu that recorded: libipt applies its errata when it is Intel's. */
	ptd_bundle_host_cpu(&cpu, vendor);
	b = ptd_bundle_new(&cpu);
	if (!b)
		return -ptde_nomem;
	memcpy(b->cpu_vendor, vendor, sizeof(b->cpu_vendor));
	s->bundle = b;
	if (s->kept)
		maps = s->snap_maps ? strdup(s->snap_maps) : NULL;
	else
		maps = read_maps(ptd_target_pid(s->t));
	if (!maps)
		rc = ptd__err(-ptde_sys, "cannot read the mappings of process %d",
			      (int)ptd_target_pid(s->t));
	if (rc == 0)
		rc = save_maps(b, maps);
	/* anonymous and vdso code, read now with our breakpoints masked,
	 * or as copied at the last stop before the program was killed */
	if (rc == 0 && s->kept) {
		for (int i = 0; rc == 0 && i < s->nsnap_anon; i++)
			rc = ptd_bundle_add_memory(b, s->snap_anon[i].start, s->snap_anon[i].bytes,
						   s->snap_anon[i].size);
	} else if (rc == 0) {
		rc = ptd_image_foreach_anon(maps, save_anon, s);
		if (rc > 0)
			rc = 0;
	}
	/* code unmapped during the recording (dlclose) */
	for (int i = 0; rc == 0 && i < s->ndead; i++)
		rc = ptd_bundle_add_memory(b, s->dead[i].start, s->dead[i].bytes, s->dead[i].size);
	for (int i = 0; rc == 0 && i < s->nth; i++) {
		struct sthread *th = &s->th[i];
		if (th->pt_lost && s->notify) {
			char msg[160];
			snprintf(msg, sizeof(msg),
				 "warning: thread %d lost %d stretches of its trace while recording "
				 "(its history has a gap for each, the saved trace has none)",
				 (int)th->tid, th->pt_lost);
			s->notify(s->notify_ctx, msg);
		}
		if (!th->pt_size)
			continue;
		rc = ptd_bundle_add_thread(b, (int)th->tid, th->pt, th->pt_size,
					   th->gone ? 0 : ptd_history_tail(th->h));
	}
	/* Each file's build-id or checksum: a changed binary is refused at load. */
	if (rc == 0)
		rc = ptd_bundle_identify(b);
	free(maps);
	s->bundle = NULL;
	if (rc < 0) {
		ptd_bundle_free(b);
		return rc;
	}
	*out = b;
	return 0;
}

int ptd_session_save(struct ptd_session *s, const char *dir)
{
	struct ptd_bundle *b;
	int rc;

	if (!s || !dir || !*dir)
		return ptd__err(-ptde_invalid, "usage: record save DIRECTORY");
	rc = session_bundle(s, &b);
	if (rc < 0)
		return rc;
	rc = ptd_bundle_save(b, dir);
	ptd_bundle_free(b);
	return rc;
}

int ptd_session_save_perf_data(struct ptd_session *s, const char *file)
{
	struct ptd_perfdata_proc proc;
	struct ptd_bundle *b;
	char path[64], comm[32] = "";
	FILE *f;
	int rc;

	if (!s || !file || !*file)
		return ptd__err(-ptde_invalid, "usage: record save --perf-data FILE");
	rc = session_bundle(s, &b);
	if (rc < 0)
		return rc;
	proc.pid = (int)ptd_target_pid(s->t);
	snprintf(path, sizeof(path), "/proc/%d/comm", proc.pid);
	f = fopen(path, "re");
	if (f) {
		if (!fgets(comm, sizeof(comm), f))
			comm[0] = 0;
		fclose(f);
	}
	comm[strcspn(comm, "\n")] = 0;
	proc.comm = comm[0] ? comm : NULL;
	rc = ptd_perfdata_save(b, &proc, file);
	ptd_bundle_free(b);
	return rc;
}

int ptd_session_load(struct ptd_session *s, const char *dir)
{
	struct ptd_bundle *b = NULL;
	int rc;

	if (!s || !dir || !*dir)
		return ptd__err(-ptde_invalid, "no bundle directory given");
	if (ptd_session_alive(s))
		return ptd__err(-ptde_busy, "A program is being debugged already.");
	/* A bundle is a directory; a file is read as a perf.data (whose
	 * reader explains a wrong magic). */
	{
		struct stat st;

		if (stat(dir, &st) == 0 && S_ISREG(st.st_mode))
			rc = ptd_perfdata_load(dir, &b);
		else
			rc = ptd_bundle_load(dir, &b);
	}
	if (rc < 0)
		return rc;
	drop_process(s);
	s->bundle = b;
	s->offline = 1;
	s->offimg = ptd_bundle_image(b, NULL, NULL);
	if (!s->offimg) {
		char msg[1024]; /* the message buffer is reused by ptd__err */

		snprintf(msg, sizeof(msg), "%s", ptd_last_error(-ptde_bad_trace));
		rc = ptd__err(-ptde_bad_trace, "%s: %s", dir, msg);
		drop_process(s);
		return rc;
	}
	for (size_t i = 0; i < b->nthreads; i++) {
		const struct ptd_bundle_thread *bt = &b->threads[i];
		struct sthread *th = add_sthread(s, (pid_t)bt->tid);
		struct ptd_pt_trace *tr;
		if (!th) {
			drop_process(s);
			return -ptde_nomem;
		}
		tr = ptd_pt_trace_alloc(bt->pt, bt->size, s->offimg, read_code, s, 0);
		if (!tr) {
			char msg[1024]; /* the message buffer is reused by ptd__err */

			snprintf(msg, sizeof(msg), "%s", ptd_last_error(-ptde_bad_trace));
			rc = ptd__err(-ptde_bad_trace, "%s: thread %d: %s", dir, bt->tid, msg);
			drop_process(s);
			return rc;
		}
		if (bt->tail_pc)
			ptd_pt_trace_set_tail(tr, bt->tail_pc);
		/* A loaded trace is numbered as gdb numbers it (a gap where
		 * tracing resumed elsewhere: signals, exec). */
		ptd_pt_trace_set_disabled_gaps(tr, 1);
		/* Only the newest segment now: the first reverse step costs
		 * the same for any trace size. */
		th->lazy = tr;
		th->lazy_m = 0;
		/* The newest segments may hold no instruction (tracing was
		 * off): take older ones until there is one to step back to. */
		do
			rc = lazy_more(s, th, 1);
		while (rc == 1 && th->lazy && !ptd_history_count(th->h));
		if (rc < 0) {
			drop_process(s);
			return rc;
		}
		ptd_history_set_tail(th->h, bt->tail_pc);
	}
	s->cur = 0;
	s->recording = 1;
	s->rec_method = PTD_METHOD_PT;
	s->rec_pt = 1;
	return 0;
}

void ptd_session_set_notify(struct ptd_session *s, void (*fn)(void *ctx, const char *msg), void *ctx)
{
	if (s) {
		s->notify = fn;
		s->notify_ctx = ctx;
	}
}
