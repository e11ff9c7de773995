/*
 * Code the recorded program no longer has: bytes an munmap is about to
 * take away while recording (a dlclose'd library), a snapshot of the
 * program's code at each stop, so that its history can still be read
 * after it was killed (offline.c, keep_killed_recording), and the
 * programs an exec replaced (their code and symbols, for the history
 * before the exec).
 */
#include "session/session_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decode/image.h"
#include "symbols/symbols.h"
#include "target/target.h"
#include "util/error.h"

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

int ptd__ses_dead_read(struct ptd_session *s, uint64_t addr, uint8_t *buf, size_t n)
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

void ptd__ses_snap_free(struct ptd_session *s)
{
	free(s->snap_maps);
	s->snap_maps = NULL;
	ptd_image_free(s->snap_img);
	s->snap_img = NULL;
	snap_anon_free(s->snap_anon, s->nsnap_anon);
	s->snap_anon = NULL;
	s->nsnap_anon = 0;
}

void ptd__ses_dead_free(struct ptd_session *s)
{
	for (int i = 0; i < s->ndead; i++)
		free(s->dead[i].bytes);
	free(s->dead);
	s->dead = NULL;
	s->ndead = 0;
}

/* Before munmap(@addr, @len): keep the executable bytes it will take away. */
void ptd__ses_dead_save(struct ptd_session *s, uint64_t addr, uint64_t len)
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
	return ptd__ses_dead_read(s, addr, buf, n);
}

/* The text of /proc/PID/maps (NUL-terminated; free it), or NULL. */
char *ptd__ses_read_maps(pid_t pid)
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
void ptd__ses_snap_refresh(struct ptd_session *s)
{
	struct snap_ctx c = { s, NULL, 0, 0 };
	struct ptd_image *img;
	char *maps;

	if (!s->t || !ptd_target_alive(s->t))
		return;
	maps = ptd__ses_read_maps(ptd_target_pid(s->t));
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
	ptd__ses_snap_free(s);
	s->snap_maps = maps;
	s->snap_img = img;
	s->snap_anon = c.v;
	s->nsnap_anon = c.n;
}

/* ---- programs an exec replaced ------------------------------------------- */

/* Code of an earlier program where no file backs it (the vdso, anonymous
 * code): what was unmapped while recording, else the live memory, which
 * the exec left at the same place when it is the vdso of a program run
 * without address space randomisation. */
static int epoch_fallback(void *ctx, uint64_t addr, uint8_t *buf, size_t n)
{
	struct ses_epoch *ep = ctx;
	int r = ptd__ses_dead_read(ep->s, addr, buf, n);

	return r > 0 ? r : ptd__ses_read_code(ep->s, addr, buf, n);
}

/* The history reader of an earlier program's items (ctx: its epoch). */
static int epoch_read(void *ctx, uint64_t addr, uint8_t *buf, size_t n)
{
	struct ses_epoch *ep = ctx;

	return ptd_image_read(ep->img, addr, buf, n);
}

/* Whether @h's newest item is an exec event. */
static int ends_in_exec(const struct ptd_history *h)
{
	uint64_t n = ptd_history_nitems(h);
	struct ptd_item it;

	return n && ptd_history_item(h, n - 1, &it) && it.kind == PTD_ITEM_EVENT &&
	       it.reason == PTD_EV_EXEC;
}

void ptd__ses_epoch_exec(struct ptd_session *s, pid_t tid, uint64_t pc)
{
	struct sthread *eth = ptd__ses_thread_by_tid(s, tid);

	const char *maps = s->exec_maps ? s->exec_maps : s->snap_maps;
	struct ses_epoch *ep, **v;
	int any = 0;

	for (int i = 0; i < s->nth; i++)
		if (s->th[i].h && ptd_history_count(s->th[i].h) > 1)
			any = 1;
	/* (an epoch's number tags the addresses of its items for the call
	 * logs' func_of: up to 254, 255 is a kernel address's top byte) */
	if (!any || !maps || s->nepochs >= 254)
		goto out; /* nothing recorded ran in the old program */
	ep = calloc(1, sizeof(*ep));
	v = realloc(s->epochs, (size_t)(s->nepochs + 1) * sizeof(*v));
	if (!ep || !v) {
		free(ep);
		goto out;
	}
	s->epochs = v;
	ep->s = s;
	ep->img = ptd_image_alloc(epoch_fallback, ep);
	if (!ep->img || ptd_image_add_maps_text(ep->img, maps) < 0) {
		ptd_image_free(ep->img);
		free(ep);
		ptd_clear_error();
		goto out;
	}
	ep->sym = s->sym; /* (the caller loads the new program's) */
	s->sym = NULL;
	s->epochs[s->nepochs++] = ep;
	for (int i = 0; i < s->nth; i++) {
		if (s->th[i].h &&
		    ptd_history_mark_image(s->th[i].h, epoch_read, ep, (uint8_t)s->nepochs) < 0)
			ptd__ses_rec_warn(s, -ptde_nomem, "cannot tell the programs before and after the exec apart");
		ptd__ses_drop_calls(&s->th[i]);
	}
	/* (trace format pt: the PT decoded has no exec in it) */
	if (eth && eth->h && ptd_history_nitems(eth->h) && !ends_in_exec(eth->h))
		ptd__ses_rec_warn(s, ptd_history_append_event(eth->h, PTD_EV_EXEC, pc, 0),
				  "cannot note the exec in the history");
out:
	free(s->exec_maps);
	s->exec_maps = NULL;
}

void ptd__ses_epochs_free(struct ptd_session *s)
{
	for (int i = 0; i < s->nepochs; i++) {
		ptd_image_free(s->epochs[i]->img);
		ptd_symbols_free(s->epochs[i]->sym);
		free(s->epochs[i]);
	}
	free(s->epochs);
	s->epochs = NULL;
	s->nepochs = 0;
	free(s->exec_maps);
	s->exec_maps = NULL;
}

struct ses_epoch *ptd__ses_epoch_at(struct ptd_session *s, struct sthread *th, uint64_t number)
{
	if (!s->nepochs || !th || !th->h || !number)
		return NULL;
	return ptd_history_image_ctx(th->h, number);
}

struct ptd_symbols *ptd__ses_symbols_at(struct ptd_session *s)
{
	struct ses_epoch *ep = NULL;

	if (s->nepochs) {
		struct sthread *th;
		uint64_t n;

		if (s->look_on && s->look_th >= 0 && s->look_th < s->nth) {
			th = &s->th[s->look_th];
			n = s->look_num;
		} else {
			th = ptd__ses_cur_thread(s);
			n = th ? th->pos : 0;
			if (th && !n && th->gone)
				n = ptd_history_count(th->h); /* it ended there */
		}
		ep = ptd__ses_epoch_at(s, th, n);
	}
	return ep ? ep->sym : ptd__ses_symbols(s);
}

uint64_t ptd__ses_func_at(struct ptd_session *s, struct sthread *th, uint64_t number, uint64_t addr)
{
	struct ses_epoch *ep = ptd__ses_epoch_at(s, th, number);
	struct ptd_symbols *sym = ep ? ep->sym : ptd__ses_symbols(s);
	struct ptd_symbol fs;

	if (!sym || ptd_symbols_lookup(sym, addr, &fs) < 0)
		return 0;
	return fs.start;
}
