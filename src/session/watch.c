/*
 * Watchpoints (watch, rwatch, awatch) on the x86 debug registers: each is
 * an entry of the breakpoint list (numbered with the breakpoints, as in
 * gdb) holding the debug-register slots of its aligned pieces and the
 * value it last saw.  The run loop hands every debug-register stop to
 * ptd__ses_watch_filter(), which applies gdb's rules: a write watchpoint
 * reports only a change of the value, a read watchpoint only an access
 * that left it as it was (x86 has no read-only trap), an access
 * watchpoint every access.
 */
#include "session/session_int.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "target/target.h"
#include "util/error.h"

/* The watched bytes now into @out; 0 when they cannot be read (gdb's
 * "<unreadable>", e.g. *ptr while ptr is NULL). */
static int read_value(struct ptd_session *s, const struct sbp *b, uint8_t *out)
{
	memset(out, 0, 8);
	if (b->noobj)
		return 0;
	if (ptd_session_read(s, b->addr, out, (size_t)b->len) != b->len) {
		memset(out, 0, 8);
		ptd_clear_error();
		return 0;
	}
	return 1;
}

int ptd_session_watch_readable(struct ptd_session *s, int id, int *now_ok, int *old_ok)
{
	if (!s || !now_ok || !old_ok)
		return -ptde_invalid;
	for (int i = 0; i < s->nbp; i++)
		if (s->bp[i].id == id && s->bp[i].wkind) {
			*now_ok = s->bp[i].val_ok;
			*old_ok = s->bp[i].old_ok;
			return 0;
		}
	return ptd__err(-ptde_notfound, "No watchpoint number %d.", id);
}

/* Debug-register slots for [@addr, @addr+@len), one per aligned piece,
 * into @slots (*@nslots); all or none.  Returns 0 or <0 (gdb's message
 * when the registers run out). */
static int take_slots(struct ptd_session *s, uint64_t addr, int len, int hwkind, int *slots,
		      int *nslots)
{
	uint64_t pa[PTD_HW_SLOTS];
	int pl[PTD_HW_SLOTS], n, rc;

	*nslots = 0;
	n = ptd_hw_pieces(addr, (uint64_t)len, pa, pl, PTD_HW_SLOTS);
	if (n < 0)
		return n;
	if (n > PTD_HW_SLOTS)
		return ptd__err(-ptde_busy, "Hardware watchpoints used exceeds limit of %d debug "
					    "registers.", PTD_HW_SLOTS);
	for (int i = 0; i < n; i++) {
		int slot = ptd_session_hw_free_slot(s);

		rc = slot < 0 ? slot : ptd_session_hw_set(s, slot, pa[i], pl[i], hwkind);
		if (rc < 0) {
			for (int j = 0; j < *nslots; j++)
				ptd_session_hw_clear(s, slots[j]);
			*nslots = 0;
			if (rc == -ptde_busy)
				return ptd__err(-ptde_busy,
						"Hardware watchpoints used exceeds limit of %d debug "
						"registers.", PTD_HW_SLOTS);
			return rc;
		}
		slots[(*nslots)++] = slot;
	}
	return 0;
}

/* The debug-register kind of @b's places: gdb gives every location of a
 * watchpoint its type, and x86 has no read-only one. */
static int hw_kind(const struct sbp *b)
{
	return b->wkind == PTD_WATCH_WRITE ? PTD_HW_WRITE : PTD_HW_ACCESS;
}

static struct sbp *watch_by_id(struct ptd_session *s, int id)
{
	for (int i = 0; i < s->nbp; i++)
		if (s->bp[i].id == id && s->bp[i].wkind)
			return &s->bp[i];
	return NULL;
}

void ptd_session_set_watch_eval(struct ptd_session *s, ptd_watch_eval_fn fn, void *ctx)
{
	if (!s)
		return;
	s->watch_eval = fn;
	s->watch_eval_ctx = ctx;
}

void ptd_session_set_watch_chain(struct ptd_session *s, ptd_watch_chain_fn fn, void *ctx)
{
	if (!s)
		return;
	s->watch_chain = fn;
	s->watch_chain_ctx = ctx;
}

int ptd_session_watch_dep(struct ptd_session *s, int id, uint64_t addr, int len)
{
	struct sbp *b;
	int rc, k;

	if (!s || len < 1 || len > 8)
		return ptd__err(-ptde_invalid, "cannot watch %d bytes", len);
	b = watch_by_id(s, id);
	if (!b || b->ndeps >= PTD_HW_SLOTS)
		return ptd__err(-ptde_invalid, "no watchpoint %d to add a value to", id);
	if (s->offline || (!ptd_session_alive(s) && !ptd_session_program(s)))
		return ptd__err(-ptde_not_running, "The program is not being run.");
	k = b->ndeps;
	b->deps[k].nslots = 0;
	/* before run: the slots are taken when the program starts */
	if (ptd_session_alive(s)) {
		rc = take_slots(s, addr, len, hw_kind(b), b->deps[k].slots, &b->deps[k].nslots);
		if (rc < 0)
			return rc;
	}
	b->deps[k].addr = addr;
	b->deps[k].len = len;
	memset(b->deps[k].val, 0, 8);
	if (ptd_session_read(s, addr, b->deps[k].val, (size_t)len) != len)
		memset(b->deps[k].val, 0, 8);
	b->ndeps++;
	return 0;
}

/* Frees the slots of @b's places (its object and the values read on the
 * way), keeping the places. */
static void release_places(struct ptd_session *s, struct sbp *b)
{
	for (int i = 0; i < b->nslots; i++)
		ptd_session_hw_clear(s, b->slots[i]);
	b->nslots = 0;
	for (int k = 0; k < b->ndeps; k++) {
		for (int i = 0; i < b->deps[k].nslots; i++)
			ptd_session_hw_clear(s, b->deps[k].slots[i]);
		b->deps[k].nslots = 0;
	}
}

static void read_dep(struct ptd_session *s, struct sbp *b, int k)
{
	memset(b->deps[k].val, 0, 8);
	if (ptd_session_read(s, b->deps[k].addr, b->deps[k].val, (size_t)b->deps[k].len) !=
	    b->deps[k].len) {
		memset(b->deps[k].val, 0, 8);
		ptd_clear_error();
	}
}

/* Takes the slots of every place of @b (all or none); 0 or <0. */
static int take_places(struct ptd_session *s, struct sbp *b)
{
	int rc = b->noobj ? 0 : take_slots(s, b->addr, b->len, hw_kind(b), b->slots, &b->nslots);

	for (int k = 0; rc == 0 && k < b->ndeps; k++)
		rc = take_slots(s, b->deps[k].addr, b->deps[k].len, hw_kind(b), b->deps[k].slots,
				&b->deps[k].nslots);
	if (rc < 0)
		release_places(s, b);
	for (int k = 0; k < b->ndeps; k++)
		read_dep(s, b, k);
	return rc;
}

static void warn_places(struct ptd_session *s, const struct sbp *b)
{
	char msg[200];

	if (!s->notify)
		return;
	snprintf(msg, sizeof(msg), "warning: cannot watch %s at 0x%llx: %s", b->spec,
		 (unsigned long long)b->addr, ptd_last_error(-ptde_busy));
	s->notify(s->notify_ctx, msg);
}

/*
 * Evaluates @b's expression again in thread @tid (the selected one when
 * 0) with the front end's chain callback: the places it names now.
 * Returns 1 when they changed (moved in @b, slots not taken), 0 when they
 * are the same or cannot be known (the expression fails there: the
 * watchpoint stays where it is).
 */
static int places_now(struct ptd_session *s, struct sbp *b, pid_t tid)
{
	struct ptd_watch_loc locs[PTD_HW_SLOTS + 1];
	struct sthread *th = tid ? ptd__ses_thread_by_tid(s, tid) : NULL;
	int saved = s->cur, n, same;

	if (th)
		s->cur = (int)(th - s->th);
	n = s->watch_chain(s->watch_chain_ctx, b->spec, b->scope_on ? b->scope_cfa : 0, locs,
			   PTD_HW_SLOTS + 1);
	s->cur = saved;
	if (n < 1 || (locs[0].len && locs[0].len != b->len)) {
		ptd_clear_error();
		return 0;
	}
	ptd_clear_error();
	same = (!locs[0].len) == b->noobj && (!locs[0].len || locs[0].addr == b->addr) &&
	       n - 1 == b->ndeps;
	for (int k = 0; same && k < b->ndeps; k++)
		same = locs[k + 1].addr == b->deps[k].addr && locs[k + 1].len == b->deps[k].len;
	if (same)
		return 0;
	b->noobj = !locs[0].len;
	if (locs[0].len)
		b->addr = locs[0].addr;
	b->ndeps = 0;
	for (int k = 1; k < n && b->ndeps < PTD_HW_SLOTS; k++) {
		b->deps[b->ndeps].addr = locs[k].addr;
		b->deps[b->ndeps].len = locs[k].len;
		b->deps[b->ndeps++].nslots = 0;
	}
	return 1;
}

/*
 * A value the expression of @b reads changed: evaluate it again and move
 * the watchpoint's places there, as gdb's update_watchpoint does before
 * each resume (a[i] follows i; p->next->val follows p and p->next).  The
 * value is compared by the caller.
 */
static void watch_move(struct ptd_session *s, struct sbp *b, pid_t tid)
{
	struct sthread *th = ptd__ses_thread_by_tid(s, tid);
	int saved = s->cur, rc;
	uint64_t addr = 0;

	if (s->watch_chain) {
		release_places(s, b);
		places_now(s, b, tid);
		if (take_places(s, b) < 0) {
			warn_places(s, b);
			ptd_clear_error();
		}
		return;
	}
	if (!s->watch_eval)
		return;
	if (th)
		s->cur = (int)(th - s->th);
	rc = s->watch_eval(s->watch_eval_ctx, b->spec, &addr);
	s->cur = saved;
	if (rc < 0 || addr == b->addr) {
		ptd_clear_error();
		return;
	}
	for (int i = 0; i < b->nslots; i++)
		ptd_session_hw_clear(s, b->slots[i]);
	b->nslots = 0;
	b->addr = addr;
	if (take_slots(s, addr, b->len, hw_kind(b), b->slots, &b->nslots) < 0) {
		warn_places(s, b);
		ptd_clear_error();
	}
}

int ptd_session_watch_places(struct ptd_session *s, int id, const struct ptd_watch_loc *locs,
			     int n)
{
	struct sbp *b;
	int rc = 0;

	if (!s || !locs || n < 1 || n > PTD_HW_SLOTS + 1 || (locs[0].len && locs[0].len > 8))
		return ptd__err(-ptde_invalid, "cannot watch %d places", n);
	b = watch_by_id(s, id);
	if (!b || (locs[0].len && locs[0].len != b->len))
		return ptd__err(-ptde_invalid, "no watchpoint %d of that size", id);
	for (int k = 1; k < n; k++)
		if (locs[k].len < 1 || locs[k].len > 8)
			return ptd__err(-ptde_invalid, "cannot watch %d bytes", locs[k].len);
	release_places(s, b);
	b->noobj = !locs[0].len;
	if (locs[0].len)
		b->addr = locs[0].addr;
	b->ndeps = n - 1;
	for (int k = 1; k < n; k++) {
		b->deps[k - 1].addr = locs[k].addr;
		b->deps[k - 1].len = locs[k].len;
		b->deps[k - 1].nslots = 0;
	}
	if (ptd_session_alive(s))
		rc = take_places(s, b);
	b->val_ok = b->old_ok = read_value(s, b, b->val);
	memcpy(b->old, b->val, sizeof(b->old));
	return rc;
}

int ptd_session_watch(struct ptd_session *s, const char *expr, uint64_t addr, int len,
		      enum ptd_watch_kind kind)
{
	uint64_t pa[PTD_HW_SLOTS];
	int pl[PTD_HW_SLOTS], n, slots[PTD_HW_SLOTS], nslots = 0, rc;
	struct sbp *b;

	if (!s || !expr || len < 1 || len > 8 ||
	    (kind != PTD_WATCH_WRITE && kind != PTD_WATCH_READ && kind != PTD_WATCH_ACCESS))
		return ptd__err(-ptde_invalid, "cannot watch %d bytes", len);
	if (s->offline || (!ptd_session_alive(s) && !ptd_session_program(s)))
		return ptd__err(-ptde_not_running, "The program is not being run.");
	n = ptd_hw_pieces(addr, (uint64_t)len, pa, pl, PTD_HW_SLOTS);
	if (n < 0)
		return n;
	if (n > PTD_HW_SLOTS)
		return ptd__err(-ptde_busy, "Expression cannot be implemented with read/access "
					    "watchpoint.");
	/* before run: set in the debug registers when the program starts */
	for (int i = 0; i < n && ptd_session_alive(s); i++) {
		int slot = ptd_session_hw_free_slot(s);

		if (slot >= 0)
			rc = ptd_session_hw_set(s, slot, pa[i], pl[i],
						kind == PTD_WATCH_WRITE ? PTD_HW_WRITE : PTD_HW_ACCESS);
		else
			rc = slot;
		if (rc < 0) {
			for (int j = 0; j < nslots; j++)
				ptd_session_hw_clear(s, slots[j]);
			if (rc == -ptde_busy)
				return ptd__err(-ptde_busy,
						"Hardware watchpoints used exceeds limit of %d debug "
						"registers.", PTD_HW_SLOTS);
			return rc;
		}
		slots[nslots++] = slot;
	}
	b = ptd__ses_bp_new(s, expr);
	if (!b) {
		for (int j = 0; j < nslots; j++)
			ptd_session_hw_clear(s, slots[j]);
		return ptd__err(-ptde_nomem, "out of memory");
	}
	b->wkind = kind;
	b->addr = addr;
	b->len = len;
	b->nslots = nslots;
	memcpy(b->slots, slots, sizeof(slots));
	b->val_ok = b->old_ok = read_value(s, b, b->val);
	memcpy(b->old, b->val, sizeof(b->old));
	return b->id;
}

int ptd_session_watch_scope(struct ptd_session *s, int id, uint64_t ret_pc, uint64_t cfa)
{
	struct sbp *b = NULL;
	int slot, rc;

	if (!s)
		return -ptde_invalid;
	for (int i = 0; i < s->nbp; i++)
		if (s->bp[i].id == id && s->bp[i].wkind)
			b = &s->bp[i];
	if (!b || b->scope_on)
		return ptd__err(-ptde_invalid, "no watchpoint %d to scope", id);
	if (!ptd_session_alive(s))
		return ptd__err(-ptde_not_running, "The program is not being run.");
	/* watchpoints on the same frame share its end's register */
	for (int i = 0; i < s->nbp; i++)
		if (s->bp[i].wkind && s->bp[i].scope_on && s->bp[i].scope_pc == ret_pc &&
		    s->bp[i].scope_cfa == cfa) {
			b->scope_on = 1;
			b->scope_slot = s->bp[i].scope_slot;
			b->scope_pc = ret_pc;
			b->scope_cfa = cfa;
			return 0;
		}
	slot = ptd_session_hw_free_slot(s);
	if (slot < 0)
		return ptd__err(-ptde_busy, "Hardware watchpoints used exceeds limit of %d debug "
					    "registers.", PTD_HW_SLOTS);
	rc = ptd_session_hw_set(s, slot, ret_pc, 1, PTD_HW_EXEC);
	if (rc < 0)
		return rc;
	b->scope_on = 1;
	b->scope_slot = slot;
	b->scope_pc = ret_pc;
	b->scope_cfa = cfa;
	return 0;
}

void ptd__ses_watch_release(struct ptd_session *s, struct sbp *b)
{
	int shared = 0;

	release_places(s, b);
	for (int i = 0; b->scope_on && i < s->nbp; i++)
		shared |= &s->bp[i] != b && s->bp[i].wkind && s->bp[i].scope_on &&
			  s->bp[i].scope_slot == b->scope_slot;
	if (b->scope_on && !shared && ptd_session_alive(s))
		ptd_session_hw_clear(s, b->scope_slot);
	b->scope_on = 0;
}

/*
 * The execute slot of a scoped watchpoint fired in @tid: the frame is
 * gone when rsp is at or above its CFA.  Otherwise a deeper call of the
 * same function returned there: the thread resumes with RF set, which
 * lets it past the instruction breakpoint once (the fault-like trap would
 * fire again at the same instruction).  Returns 1 when the scope ended.
 */
static int scope_check(struct ptd_session *s, struct sbp *b, pid_t tid)
{
	struct user_regs_struct r;

	if (ptd_target_get_regs(s->t, tid, &r) < 0) {
		ptd_clear_error();
		return 1;
	}
	if (r.rsp >= b->scope_cfa)
		return 1;
	r.eflags |= 0x10000; /* RF */
	if (ptd_target_set_regs(s->t, tid, &r) < 0)
		ptd_clear_error();
	return 0;
}

void ptd__ses_watch_drop_locals(struct ptd_session *s)
{
	for (int i = s->nbp - 1; i >= 0; i--)
		if (s->bp[i].wkind && s->bp[i].scope_on)
			ptd_session_delete(s, s->bp[i].id);
	ptd_clear_error();
}

void ptd__ses_watch_reset(struct ptd_session *s)
{
	for (int i = 0; i < s->nbp; i++)
		s->bp[i].triggered = s->bp[i].changed = s->bp[i].scope_ended = s->bp[i].reports = 0;
}

int ptd__ses_has_watch(const struct ptd_session *s)
{
	for (int i = 0; i < s->nbp; i++)
		if (s->bp[i].wkind)
			return 1;
	return 0;
}

/*
 * How many times gdb reports watchpoint @b at a stop where it triggered
 * with its value @changed (before its condition and ignore count): gdb
 * makes a stop record per location of a read or access watchpoint (its
 * object and each value read on the way), all of which see the trigger;
 * the first one compares the value, the others find it unchanged.  A read
 * watchpoint drops the record that saw a change (x86 has no read-only
 * trap: gdb takes it for a write).  A write watchpoint has one record.
 * @locations: the places it had when the trap came (gdb moves them after
 * the stop is reported); an object that cannot be evaluated has none
 * (the value whose read failed is among the deps).
 */
static int gdb_records(const struct sbp *b, int locations, int changed)
{
	switch (b->wkind) {
	case PTD_WATCH_WRITE:
		return changed;
	case PTD_WATCH_READ:
		return locations > 0 ? locations - (changed != 0) : 0;
	default:
		return locations;
	}
}

unsigned ptd__ses_watch_filter(struct ptd_session *s, pid_t tid, unsigned hits)
{
	unsigned keep = hits;

	for (int i = 0; i < s->nbp; i++) {
		struct sbp *b = &s->bp[i];
		unsigned mine = 0, dmine = 0, moved = 0;
		uint8_t now[8];
		int changed, records, truth = 1, now_ok, locations;

		if (!b->wkind)
			continue;
		b->reports = 0;
		if (b->scope_on) {
			unsigned bit = 1u << b->scope_slot;

			keep &= ~bit;
			if ((hits & bit) && scope_check(s, b, tid)) {
				b->triggered = 1;
				b->scope_ended = 1;
				b->changed = 0;
				/* gdb says so once per stop record */
				b->reports = b->wkind == PTD_WATCH_WRITE ? 1 : b->ndeps + !b->noobj;
				keep |= bit;
				continue;
			}
		}
		for (int k = 0; k < b->ndeps; k++) {
			unsigned dbits = 0;
			uint8_t dnow[8];

			for (int j = 0; j < b->deps[k].nslots; j++)
				dbits |= 1u << b->deps[k].slots[j];
			dmine |= dbits;
			if (!(hits & dbits))
				continue;
			memset(dnow, 0, 8);
			if (ptd_session_read(s, b->deps[k].addr, dnow, (size_t)b->deps[k].len) !=
			    b->deps[k].len) {
				memset(dnow, 0, 8);
				ptd_clear_error();
			}
			if (memcmp(dnow, b->deps[k].val, 8)) {
				memcpy(b->deps[k].val, dnow, 8);
				moved = 1;
			}
		}
		for (int k = 0; k < b->nslots; k++)
			mine |= 1u << b->slots[k];
		keep &= ~(mine | dmine);
		/* a write watchpoint looks at its value when the object was
		 * written or a value read on the way changed; a read or access
		 * one at any access to any of its places (gdb) */
		if (!(hits & (mine | dmine)))
			continue;
		if (b->wkind == PTD_WATCH_WRITE && !(hits & mine) && !moved)
			continue;
		locations = b->ndeps + !b->noobj;
		if (moved)
			watch_move(s, b, tid);
		now_ok = read_value(s, b, now);
		changed = now_ok != b->val_ok || (now_ok && memcmp(now, b->val, 8) != 0);
		if (changed) {
			memcpy(b->old, b->val, 8);
			memcpy(b->val, now, 8);
			b->old_ok = b->val_ok;
			b->val_ok = now_ok;
		}
		records = gdb_records(b, locations, changed);
		if (!records)
			continue;
		if (b->cond && s->cond_fn) {
			struct sthread *th = ptd__ses_thread_by_tid(s, tid);
			int saved = s->cur;

			if (th)
				s->cur = (int)(th - s->th);
			if (s->cond_fn(s->cond_ctx, b->cond, &truth) < 0)
				truth = 1;
			s->cur = saved;
		}
		if (!truth)
			continue;
		/* gdb counts a hit and spends the ignore count per record */
		for (int r = 0; r < records; r++) {
			b->hits++;
			if (b->ignore)
				b->ignore--;
			else
				b->reports++;
		}
		if (!b->reports)
			continue;
		b->triggered = 1;
		b->changed = changed;
		keep |= hits & (mine | dmine);
	}
	return keep;
}

/* ---- data symbols ---------------------------------------------------------------------- */

#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <unistd.h>

static int find_in_file(const char *path, const char *name, uint64_t *value, uint64_t *size)
{
	Elf *e;
	Elf_Scn *scn = NULL;
	int fd, found = 0;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	elf_version(EV_CURRENT);
	e = elf_begin(fd, ELF_C_READ, NULL);
	while (e && !found && (scn = elf_nextscn(e, scn)) != NULL) {
		GElf_Shdr sh;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || (sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM) ||
		    !sh.sh_entsize)
			continue;
		d = elf_getdata(scn, NULL);
		for (size_t i = 0; d && i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym sym;
			const char *n;

			if (!gelf_getsym(d, (int)i, &sym) || GELF_ST_TYPE(sym.st_info) != STT_OBJECT ||
			    sym.st_shndx == SHN_UNDEF)
				continue;
			n = elf_strptr(e, sh.sh_link, sym.st_name);
			if (n && !strcmp(n, name)) {
				*value = sym.st_value;
				*size = sym.st_size;
				found = 1;
				break;
			}
		}
	}
	if (e)
		elf_end(e);
	close(fd);
	return found;
}

struct sym_search {
	const char *name;
	uint64_t addr, size;
	int found;
};

static void search_lib(void *ctx, const struct ptd_shlib *l)
{
	struct sym_search *ss = ctx;
	uint64_t v, sz;

	if (ss->found || !find_in_file(l->path, ss->name, &v, &sz))
		return;
	ss->addr = v + l->bias;
	ss->size = sz;
	ss->found = 1;
}

int ptd_session_data_symbol(struct ptd_session *s, const char *name, uint64_t *addr,
			    uint64_t *size)
{
	char path[64], exe[4096];
	struct sym_search ss = { name, 0, 0, 0 };
	uint64_t v, sz;
	ssize_t n;

	if (!s || !name || !addr || !size)
		return -ptde_invalid;
	if (!ptd_session_alive(s)) {
		/* before run: the program file's addresses */
		const char *prog = ptd_session_program(s);

		if (prog && find_in_file(prog, name, &v, &sz)) {
			*addr = v;
			*size = sz;
			return 0;
		}
		return ptd__err(prog ? -ptde_notfound : -ptde_not_running,
				prog ? "No symbol \"%s\" in current context." :
				       "No symbol table is loaded.  Use the \"file\" command.", name);
	}
	snprintf(path, sizeof(path), "/proc/%d/exe", (int)ptd_session_pid(s));
	n = readlink(path, exe, sizeof(exe) - 1);
	exe[n > 0 ? n : 0] = 0;
	if (n > 0 && find_in_file(exe, name, &v, &sz)) {
		*addr = v + ptd__ses_exe_bias(s, exe);
		*size = sz;
		return 0;
	}
	ptd_session_shlibs(s, search_lib, &ss);
	if (!ss.found)
		return ptd__err(-ptde_notfound, "No symbol \"%s\" in current context.", name);
	*addr = ss.addr;
	*size = ss.size;
	return 0;
}

/* ---- symbol names for completion --------------------------------------------------------- */

static void names_in_file(const char *path, const char *prefix,
			  void (*fn)(void *ctx, const char *name), void *ctx)
{
	size_t plen = strlen(prefix);
	Elf *e;
	Elf_Scn *scn = NULL;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	elf_version(EV_CURRENT);
	e = elf_begin(fd, ELF_C_READ, NULL);
	while (e && (scn = elf_nextscn(e, scn)) != NULL) {
		GElf_Shdr sh;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || (sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM) ||
		    !sh.sh_entsize)
			continue;
		d = elf_getdata(scn, NULL);
		for (size_t i = 0; d && i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym sym;
			const char *n;
			int t;

			if (!gelf_getsym(d, (int)i, &sym) || sym.st_shndx == SHN_UNDEF)
				continue;
			t = GELF_ST_TYPE(sym.st_info);
			if (t != STT_FUNC && t != STT_OBJECT && t != STT_GNU_IFUNC)
				continue;
			n = elf_strptr(e, sh.sh_link, sym.st_name);
			if (n && *n && !strncmp(n, prefix, plen) && !strchr(n, '@'))
				fn(ctx, n);
		}
	}
	if (e)
		elf_end(e);
	close(fd);
}

struct name_walk {
	const char *prefix;
	void (*fn)(void *ctx, const char *name);
	void *ctx;
};

static void names_in_lib(void *ctx, const struct ptd_shlib *l)
{
	struct name_walk *w = ctx;

	names_in_file(l->path, w->prefix, w->fn, w->ctx);
}

int ptd_session_symbol_names(struct ptd_session *s, const char *prefix,
			     void (*fn)(void *ctx, const char *name), void *ctx)
{
	char path[64], exe[4096];
	struct name_walk w = { prefix, fn, ctx };
	ssize_t n;

	if (!s || !prefix || !fn)
		return -ptde_invalid;
	if (!ptd_session_alive(s)) {
		const char *prog = ptd_session_program(s);

		if (prog)
			names_in_file(prog, prefix, fn, ctx);
		return 0;
	}
	snprintf(path, sizeof(path), "/proc/%d/exe", (int)ptd_session_pid(s));
	n = readlink(path, exe, sizeof(exe) - 1);
	exe[n > 0 ? n : 0] = 0;
	if (n > 0)
		names_in_file(exe, prefix, fn, ctx);
	ptd_session_shlibs(s, names_in_lib, &w);
	return 0;
}

/*
 * A new process image (run again, exec; or the first run of a watchpoint
 * set before it): the debug registers are empty.  The places are looked
 * up again in the new program, as gdb re-evaluates the expression there:
 * with the front end's chain callback (a[i], p->next->val: the values
 * read on the way are those of the new program), else a variable by its
 * symbol; an expression that cannot be evaluated keeps its addresses.
 * One that cannot be set again keeps no slots and says so.
 */
void ptd__ses_watch_rearm(struct ptd_session *s, struct sbp *b)
{
	uint64_t addr = b->addr, size;
	const char *p;

	b->nslots = 0;
	for (int k = 0; k < b->ndeps; k++)
		b->deps[k].nslots = 0;
	/* a local's frame is not in the new program */
	b->scope_on = 0;
	if (!s->watch_chain || !places_now(s, b, 0)) {
		for (p = b->spec; *p && (isalnum((unsigned char)*p) || *p == '_'); p++)
			;
		if (!*p && ptd_session_data_symbol(s, b->spec, &addr, &size) == 0 &&
		    size == (uint64_t)b->len)
			b->addr = addr;
	}
	ptd_clear_error();
	if (take_places(s, b) < 0) {
		ptd_clear_error();
		if (s->notify) {
			char msg[160];

			snprintf(msg, sizeof(msg), "warning: cannot set watchpoint %d again in the "
						   "new program", b->id);
			s->notify(s->notify_ctx, msg);
		}
	}
	b->val_ok = b->old_ok = read_value(s, b, b->val);
	memcpy(b->old, b->val, sizeof(b->old));
}
