/*
 * The user's breakpoints: specs ("func", "file:line", "line", "*addr")
 * resolved with the symbols, inserted into the target while it lives,
 * resolved again after exec.  The run loop (run.c) and replay ask bp_at().
 */
#include "session/session_int.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "target/target.h"
#include "util/error.h"

/* ---- breakpoints --------------------------------------------------------------------- */

/* The PLT entry of @name in the main program (relocated when it runs). */
static int plt_lookup(struct ptd_session *s, const char *name, uint64_t *addr)
{
	char path[64], exe[4096];
	const char *prog = NULL;
	uint64_t a;

	if (ptd_session_alive(s)) {
		ssize_t n;

		snprintf(path, sizeof(path), "/proc/%d/exe", (int)ptd_session_pid(s));
		n = readlink(path, exe, sizeof(exe) - 1);
		if (n <= 0)
			return -1;
		exe[n] = 0;
		prog = exe;
	} else if (s->argv && s->argv[0]) {
		prog = s->argv[0];
	}
	if (!prog || ptd__ses_plt_entry(prog, name, &a) < 0)
		return -1;
	*addr = a + (ptd_session_alive(s) ? ptd__ses_exe_bias(s, prog) : 0);
	return 0;
}

/* A resolved spec: its locations, by address. */
struct locset {
	struct sbp_loc *v;
	int n;
};

static void locs_free(struct sbp_loc *v, int n)
{
	for (int i = 0; i < n; i++) {
		free(v[i].func);
		free(v[i].file);
		free(v[i].module);
		free(v[i].inl);
	}
	free(v);
}

static struct sbp_loc *locs_add(struct locset *ls)
{
	struct sbp_loc *v = realloc(ls->v, (size_t)(ls->n + 1) * sizeof(*v));

	if (!v)
		return NULL;
	ls->v = v;
	memset(&v[ls->n], 0, sizeof(*v));
	return &v[ls->n++];
}

/*
 * What gdb shows for a location at @addr: the function (@func_name for a
 * function spec, else the innermost one there, inlined or not), the file
 * and line (@line > 0: FILE:LINE's own line; @by_name: the location is
 * past a prologue, where gdb gives the outermost inlined call's site).
 */
static int loc_describe(struct ptd_symbols *sym, struct sbp_loc *l, const char *func_name,
			int by_name, int line)
{
	struct ptd_symbol fs;
	struct ptd_line li;
	struct ptd_inline in, inl[16];

	if (!sym)
		return 0;
	if (func_name)
		l->func = strdup(func_name);
	else if (ptd_symbols_inlined(sym, l->addr, &in, 1) == 1 && in.name)
		l->func = strdup(in.name);
	else if (ptd_symbols_lookup(sym, l->addr, &fs) == 0 && fs.name)
		l->func = strdup(fs.name);
	int ninl = by_name ? ptd_symbols_inlined(sym, l->addr, inl, 16) : 0;

	l->line = line;
	if (ninl > 0 && inl[ninl - 1].call_file && inl[ninl - 1].call_line > 0) {
		l->file = strdup(inl[ninl - 1].call_file);
		l->line = inl[ninl - 1].call_line;
	} else if (ptd_symbols_line(sym, l->addr, &li) == 0) {
		l->file = strdup(li.file);
		/* FILE:LINE keeps its line where the address starts
		 * another one too (an inlined call's site) */
		if (!l->line)
			l->line = li.line;
	}
	ptd_clear_error();
	return 0;
}

static int locs_cmp(const void *a, const void *b)
{
	const struct sbp_loc *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* The locations of FILE:LINE (@fname, @l): every copy of the line. */
static int resolve_line(struct ptd_symbols *sym, const char *fname, long l, struct locset *ls,
			int not_found_here)
{
	uint64_t addr, *v = NULL;
	int line, n;

	if (ptd_symbols_file_line(sym, fname, (int)l, &addr, &line) < 0)
		return not_found_here;
	n = ptd__symbols_line_addrs(sym, fname, (int)l, &v, &line);
	if (n <= 1) {
		/* one location: the address and line as one is resolved */
		struct sbp_loc *lo = locs_add(ls);

		free(v);
		if (!lo)
			return -ptde_nomem;
		ptd_symbols_file_line(sym, fname, (int)l, &addr, &line);
		lo->addr = addr;
		return loc_describe(sym, lo, NULL, 0, line);
	}
	for (int i = 0; i < n; i++) {
		struct sbp_loc *lo = locs_add(ls);

		if (!lo) {
			free(v);
			return -ptde_nomem;
		}
		lo->addr = v[i];
		loc_describe(sym, lo, NULL, 0, line);
	}
	free(v);
	return 0;
}

static int is_plt(const char *func)
{
	size_t n = func ? strlen(func) : 0;

	return n > 4 && !strcmp(func + n - 4, "@plt");
}

/* The locations of function @name: its out-of-line code (when it has
 * some) and each inlined copy, as gdb 13's linespec finds them. */
static int resolve_function(struct ptd_session *s, struct ptd_symbols *sym, const char *name,
			    struct locset *ls)
{
	uint64_t bp, *v = NULL, *entries = NULL, *bps = NULL;
	struct sbp_loc *plo;
	int n, rc = 0;

	n = ptd__symbols_functions(sym, name, &entries, &bps);
	for (int i = 0; i < n; i++) {
		struct sbp_loc *lo = locs_add(ls);
		struct ptd_symbol fs;

		if (!lo) {
			rc = -ptde_nomem;
			break;
		}
		lo->addr = bps[i];
		/* (a breakpoint past a prologue: gdb's skip_prologue_sal,
		 * which ends at an inlined call's site; at the entry of
		 * optimised gcc code it takes the entry's own line) */
		loc_describe(sym, lo, NULL, bps[i] != entries[i], 0);
		lo->inl = strdup(name);
		free(lo->func);
		lo->func = NULL;
		if (ptd_symbols_lookup(sym, bps[i], &fs) == 0 && fs.name)
			lo->func = strdup(fs.name);
		/* A name only the ELF symbols have (glibc's opendir, whose
		 * debug information says __opendir) is gdb's minimal symbol:
		 * the location's symbol is then the innermost function at
		 * the address, an inlined one too (opendir opens with
		 * invalid_name: that is shown, and its frame stops). */
		struct ptd_inline inl[1];
		int minsym = lo->func && strcmp(lo->func, name) && !strchr(lo->func, '(') &&
			     !strstr(lo->func, "::") && !strstr(name, "::");

		if (minsym && ptd_symbols_inlined(sym, bps[i], inl, 1) == 1 && inl[0].name) {
			free(lo->func);
			free(lo->inl);
			lo->func = strdup(inl[0].name);
			lo->inl = strdup(inl[0].name);
		}
	}
	free(entries);
	free(bps);
	ptd_clear_error();
	if (rc < 0)
		return rc;
	n = ptd__symbols_inlined_entries(sym, name, &v);
	for (int i = 0; i < n && rc == 0; i++) {
		struct sbp_loc *lo;
		int dup = 0;

		for (int j = 0; j < ls->n; j++)
			dup |= ls->v[j].addr == v[i];
		if (dup)
			continue;
		lo = locs_add(ls);
		if (!lo) {
			rc = -ptde_nomem;
			break;
		}
		lo->addr = v[i];
		lo->inl = strdup(name);
		loc_describe(sym, lo, name, 0, 0);
	}
	free(v);
	if (rc < 0)
		return rc;
	/* The program's PLT entry stays a location while no loaded file
	 * exports the function, beside copies local to a file (ld.so's own
	 * opendir, at starti), as gdb keeps a trampoline minimal symbol. */
	if (ls->n && !is_plt(name) && !ptd__symbols_exported_function(sym, name) &&
	    plt_lookup(s, name, &bp) == 0) {
		size_t len = strlen(name) + 5;

		plo = locs_add(ls);
		if (!plo)
			return -ptde_nomem;
		plo->addr = bp;
		plo->func = malloc(len);
		if (plo->func)
			snprintf(plo->func, len, "%s@plt", name);
	}
	if (ls->n > 1)
		qsort(ls->v, (size_t)ls->n, sizeof(*ls->v), locs_cmp);
	if (ls->n)
		return 0;
	/* A function of a library the program calls: its PLT entry until the
	 * library is loaded (gdb's printf@plt before run); the breakpoint
	 * moves then. */
	if (is_plt(name)) {
		/* "printf@plt" (rbreak's name for the PLT entry) */
		char base[256];

		snprintf(base, sizeof(base), "%.*s", (int)(strlen(name) - 4), name);
		if (plt_lookup(s, base, &bp) == 0 && (plo = locs_add(ls)) != NULL) {
			plo->addr = bp;
			plo->func = strdup(name);
			return 0;
		}
	}
	if (plt_lookup(s, name, &bp) == 0) {
		struct sbp_loc *lo = locs_add(ls);
		size_t len = strlen(name) + 5;

		if (!lo)
			return -ptde_nomem;
		lo->addr = bp;
		lo->func = malloc(len);
		if (lo->func)
			snprintf(lo->func, len, "%s@plt", name);
		return 0;
	}
	return ptd__err(-ptde_notfound, "Function \"%s\" not defined.", name);
}

/* Whether location file @have is the file @want names: the same, or one
 * a path ending in the other ("values.c", "/src/values.c"). */
static int same_file(const char *have, const char *want)
{
	size_t h = strlen(have), w = strlen(want);

	if (h == w)
		return !strcmp(have, want);
	if (h > w)
		return have[h - w - 1] == '/' && !strcmp(have + h - w, want);
	return want[w - h - 1] == '/' && !strcmp(want + w - h, have);
}

/* FILE:FUNCTION (rbreak's form): the function's locations in that file. */
static int resolve_file_function(struct ptd_session *s, struct ptd_symbols *sym, const char *file,
				 const char *name, struct locset *ls)
{
	int rc, k = 0;

	if (!sym)
		return ptd__err(-ptde_notfound, "No symbol table is loaded.");
	rc = resolve_function(s, sym, name, ls);
	if (rc < 0)
		return rc;
	for (int i = 0; i < ls->n; i++) {
		if (ls->v[i].file && same_file(ls->v[i].file, file)) {
			ls->v[k++] = ls->v[i];
			continue;
		}
		free(ls->v[i].func);
		free(ls->v[i].file);
		free(ls->v[i].module);
		free(ls->v[i].inl);
	}
	ls->n = k;
	if (!k) {
		free(ls->v);
		ls->v = NULL;
		return ptd__err(-ptde_notfound, "Function \"%s\" not defined in \"%s\".", name,
				file);
	}
	return 0;
}

/* "-probe-stap PROVIDER:NAME" (a catchpoint's: libstdcxx:throw): where
 * the loaded modules have that SystemTap probe; none yet is pending. */
static int resolve_probe(struct ptd_symbols *sym, const char *what, struct locset *ls)
{
	const char *colon = strchr(what, ':');
	char prov[64];
	uint64_t *v = NULL;
	int n;

	if (!colon || (size_t)(colon - what) >= sizeof(prov))
		return ptd__err(-ptde_invalid, "invalid probe '%s'", what);
	snprintf(prov, sizeof(prov), "%.*s", (int)(colon - what), what);
	n = sym ? ptd__symbols_stap_probes(sym, prov, colon + 1, &v) : 0;
	for (int i = 0; i < n; i++) {
		struct sbp_loc *lo = locs_add(ls);

		if (!lo) {
			free(v);
			locs_free(ls->v, ls->n);
			ls->v = NULL;
			ls->n = 0;
			return -ptde_nomem;
		}
		lo->addr = v[i];
		loc_describe(sym, lo, NULL, 0, 0);
	}
	free(v);
	ptd_clear_error();
	if (!n)
		return ptd__err(-ptde_notfound, "No probe matching objfile=`', provider=`%s', "
				"name=`%s'", prov, colon + 1);
	return 0;
}

static int resolve_spec(struct ptd_session *s, const char *spec, struct locset *ls)
{
	struct ptd_symbols *sym = ptd__ses_symbols(s);
	const char *colon;
	char *end;
	int rc;

	ls->v = NULL;
	ls->n = 0;
	if (!strncmp(spec, "-probe-stap ", 12))
		return resolve_probe(sym, spec + 12, ls);
	if (!strcmp(spec, "-event"))
		return ptd__err(-ptde_notfound, "an event catchpoint has no location");
	if (spec[0] == '*') {
		const char *p = spec + 1;
		struct sbp_loc *lo;

		while (*p == ' ')
			p++;
		errno = 0;
		uint64_t addr = strtoull(p, &end, 0);
		if (errno || end == p || *end)
			return ptd__err(-ptde_invalid, "invalid address '%s'", spec + 1);
		lo = locs_add(ls);
		if (!lo)
			return -ptde_nomem;
		lo->addr = addr;
		return loc_describe(sym, lo, NULL, 0, 0);
	} else if ((colon = strrchr(spec, ':')) && colon != spec && colon[-1] != ':') {
		/* FILE:LINE (C++'s "ns::func" is a function name) */
		long l;
		char fname[256];
		size_t n = (size_t)(colon - spec);
		if (n >= sizeof(fname))
			return ptd__err(-ptde_invalid, "file name too long");
		memcpy(fname, spec, n);
		fname[n] = 0;
		errno = 0;
		l = strtol(colon + 1, &end, 10);
		if (end == colon + 1 && colon[1] && !isdigit((unsigned char)colon[1]))
			return resolve_file_function(s, sym, fname, colon + 1, ls);
		if (errno || end == colon + 1 || *end || l <= 0)
			return ptd__err(-ptde_invalid, "invalid line number in '%s'", spec);
		if (!sym)
			return ptd__err(-ptde_notfound, "No symbol table is loaded.");
		rc = resolve_line(sym, fname, l, ls, 1);
		if (rc == 1)
			rc = ptd__err(-ptde_notfound, "No line %ld in file \"%s\".", l, fname);
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

		rc = resolve_line(sym, base ? base + 1 : li.file, l, ls, 1);
		if (rc == 1)
			rc = ptd__err(-ptde_notfound, "No line %ld in the current file.", l);
	} else {
		if (!sym)
			return ptd__err(-ptde_notfound, "No symbol table is loaded.");
		rc = resolve_function(s, sym, spec, ls);
	}
	if (rc < 0) {
		locs_free(ls->v, ls->n);
		ls->v = NULL;
		ls->n = 0;
	}
	return rc;
}


/* Whether @b has an address to insert: "*ADDR" always (also *0), a
 * symbolic spec once resolved (unresolved ones are pending, no location). */
static int bp_has_addr(const struct sbp *b)
{
	return !b->wkind && b->nlocs > 0;
}

void ptd__ses_bp_free_locs(struct sbp *b)
{
	locs_free(b->locs, b->nlocs);
	b->locs = NULL;
	b->nlocs = 0;
	if (!b->wkind)
		b->addr = 0;
}

/* Replaces @b's locations with @ls's (taken over). */
static void bp_set_locs(struct sbp *b, struct locset *ls)
{
	ptd__ses_bp_free_locs(b);
	b->locs = ls->v;
	b->nlocs = ls->n;
	b->addr = ls->n ? ls->v[0].addr : 0;
	b->plt = ls->n == 1 && is_plt(ls->v[0].func);
	ls->v = NULL;
	ls->n = 0;
}

int ptd__ses_bp_loc_at(const struct sbp *b, uint64_t addr)
{
	if (b->wkind || b->disabled)
		return -1;
	for (int i = 0; i < b->nlocs; i++)
		if (b->locs[i].addr == addr && !b->locs[i].disabled)
			return i;
	return -1;
}

void ptd__ses_bp_forget_inserted(struct ptd_session *s)
{
	for (int i = 0; i < s->nbp; i++)
		for (int k = 0; k < s->bp[i].nlocs; k++)
			s->bp[i].locs[k].inserted = 0;
}

/* Remembers the file @l's address is in, to tell when it is unloaded. */
static void bp_note_module(struct ptd_session *s, struct sbp_loc *l)
{
	struct ptd_symbols *sym = ptd__ses_symbols(s);
	struct ptd_symbol fs;

	free(l->module);
	l->module = NULL;
	if (sym && l->addr && ptd_symbols_lookup(sym, l->addr, &fs) == 0 && fs.module)
		l->module = strdup(fs.module);
}

/* Whether @l is to be in the target's table (the target counts the
 * references of locations at one address). */
static int loc_wanted(const struct sbp *b, const struct sbp_loc *l)
{
	return !b->disabled && !l->disabled;
}

/* Takes @l's reference to its int3 back. */
static void loc_remove(struct ptd_session *s, struct sbp_loc *l)
{
	if (l->inserted && s->t && ptd_session_alive(s))
		ptd_target_bp_remove(s->t, l->addr);
	l->inserted = 0;
}

static int bp_arm(struct ptd_session *s, struct sbp *b)
{
	if (!ptd_session_alive(s) || !bp_has_addr(b))
		return 0;
	for (int i = 0; i < b->nlocs; i++) {
		struct sbp_loc *l = &b->locs[i];

		if (l->inserted || !loc_wanted(b, l))
			continue;
		if (ptd_target_bp_insert(s->t, l->addr) < 0)
			return ptd__err(-ptde_nomap,
					"Cannot insert breakpoint %d.\nCannot access memory at address 0x%llx",
					b->id, (unsigned long long)l->addr);
		l->inserted = 1;
		bp_note_module(s, l);
	}
	return 0;
}

static void bp_disarm(struct ptd_session *s, struct sbp *b)
{
	for (int i = 0; i < b->nlocs; i++)
		loc_remove(s, &b->locs[i]);
}

static int bp_add(struct ptd_session *s, const char *spec, int temporary, int pending)
{
	struct locset ls = { 0 };
	int rc;
	struct sbp *b;

	if (!s || !spec || !*spec)
		return ptd__err(-ptde_invalid, "no breakpoint location given");
	rc = resolve_spec(s, spec, &ls);
	if (rc == -ptde_notfound && pending && spec[0] != '*') {
		/* resolved when a library that has it is loaded */
		ptd_clear_error();
		rc = 0;
	}
	if (rc < 0)
		return rc;
	if (s->nbp == s->cap_bp) {
		int cap = s->cap_bp ? 2 * s->cap_bp : 8;
		struct sbp *n = realloc(s->bp, cap * sizeof(*n));
		if (!n) {
			locs_free(ls.v, ls.n);
			return -ptde_nomem;
		}
		s->bp = n;
		s->cap_bp = cap;
	}
	b = &s->bp[s->nbp];
	memset(b, 0, sizeof(*b));
	b->id = s->next_bp_id;
	b->spec = strdup(spec);
	b->temporary = temporary;
	bp_set_locs(b, &ls);
	rc = b->spec ? bp_arm(s, b) : -ptde_nomem;
	if (rc < 0) {
		bp_disarm(s, b);
		free(b->spec);
		ptd__ses_bp_free_locs(b);
		return rc;
	}
	s->nbp++;
	s->next_bp_id++;
	return b->id;
}

int ptd_session_break(struct ptd_session *s, const char *spec, int temporary)
{
	return bp_add(s, spec, temporary, 0);
}

int ptd_session_break_pending(struct ptd_session *s, const char *spec, int temporary)
{
	return bp_add(s, spec, temporary, 1);
}

int ptd_session_catch_signal(struct ptd_session *s, const int *sigs, int n, int all,
			     int temporary)
{
	uint64_t set = 0;
	int id;

	if (!s || n < 0 || (n && !sigs))
		return ptd__err(-ptde_invalid, "no signals given");
	for (int i = 0; i < n; i++) {
		if (sigs[i] < 1 || sigs[i] > 64)
			return ptd__err(-ptde_invalid, "no signal %d", sigs[i]);
		set |= 1ull << (sigs[i] - 1);
	}
	id = ptd_session_catch(s, PTD_CATCH_SIGNAL, temporary);
	if (id > 0) {
		s->bp[s->nbp - 1].catch_sigs = set;
		s->bp[s->nbp - 1].catch_all = !!all;
	}
	return id;
}

int ptd_session_catch(struct ptd_session *s, enum ptd_catch_kind kind, int temporary)
{
	static const char *const spec[] = {
		[PTD_CATCH_THROW] = "-probe-stap libstdcxx:throw",
		[PTD_CATCH_CATCH] = "-probe-stap libstdcxx:catch",
		[PTD_CATCH_RETHROW] = "-probe-stap libstdcxx:rethrow",
	};
	int id;

	if (!s || kind <= PTD_CATCH_NONE || kind > PTD_CATCH_SIGNAL)
		return ptd__err(-ptde_invalid, "no such catchpoint kind");
	/* (an event catchpoint's "-event" never resolves: pending for good) */
	id = bp_add(s, kind >= PTD_CATCH_EXEC ? "-event" : spec[kind], temporary, 1);
	if (id > 0)
		s->bp[s->nbp - 1].catch_kind = kind;
	return id;
}

/* Whether the dynamic linker's reports matter: a symbolic breakpoint
 * waits for its library, or one may be in a library that can go. */
static int any_pending(const struct ptd_session *s)
{
	for (int i = 0; i < s->nbp; i++)
		if (!s->bp[i].wkind && !PTD__BP_IS_EVENT(&s->bp[i]) && s->bp[i].spec[0] != '*')
			return 1;
	return 0;
}

/*
 * Pending breakpoints are resolved when the dynamic linker reports a
 * change of its list: it calls _dl_debug_state (r_debug.r_brk) after
 * each dlopen and dlclose, where an internal breakpoint of ours stops it
 * (no user breakpoint: the run loop goes on after ptd__ses_solib_event).
 */
static void solib_arm(struct ptd_session *s)
{
	struct ptd_symbols *sym;
	uint64_t entry, bp;

	if (!any_pending(s) || !ptd_session_alive(s))
		return;
	if (s->solib_addr && s->solib_pid == ptd_session_pid(s) && s->solib_gen == s->exec_gen &&
	    ptd_target_bp_at(s->t, s->solib_addr))
		return;
	sym = ptd__ses_symbols(s);
	if (!sym || ptd_symbols_function(sym, "_dl_debug_state", &entry, &bp) < 0) {
		ptd_clear_error();
		return;
	}
	if (ptd_target_bp_insert(s->t, entry) < 0) {
		ptd_clear_error();
		return;
	}
	s->solib_addr = entry;
	s->solib_pid = ptd_session_pid(s);
	s->solib_gen = s->exec_gen;
}

/*
 * After a dlclose: a breakpoint in a library that is gone becomes pending
 * again (resolved when the library comes back, maybe elsewhere), and its
 * int3s leave our table, so nothing of ours is written into whatever is
 * mapped there next.  gdb's warning, once per library.
 */
static void unloaded(struct ptd_session *s)
{
	struct ptd_symbols *sym = ptd__ses_symbols(s);
	char warned[4096] = "";

	for (int i = 0; i < s->nbp; i++) {
		struct sbp *b = &s->bp[i];
		const char *gone = NULL;

		if (b->wkind || b->plt || b->spec[0] == '*' || !b->nlocs)
			continue;
		for (int k = 0; k < b->nlocs && !gone; k++) {
			struct sbp_loc *l = &b->locs[k];
			struct ptd_symbol fs;

			if (!l->module)
				continue;
			if (sym && ptd_symbols_lookup(sym, l->addr, &fs) == 0 && fs.module &&
			    !strcmp(fs.module, l->module))
				continue;
			gone = l->module;
		}
		if (!gone)
			continue;
		if (s->notify && strcmp(warned, gone)) {
			char msg[4200];

			snprintf(msg, sizeof(msg),
				 "warning: Temporarily disabling breakpoints for unloaded shared "
				 "library \"%s\"", gone);
			s->notify(s->notify_ctx, msg);
		}
		snprintf(warned, sizeof(warned), "%s", gone);
		bp_disarm(s, b);
		ptd_clear_error();
		ptd__ses_bp_free_locs(b);
		b->unloaded = 1;
	}
	solib_arm(s);
}

/* Whether @ls holds @b's locations already (the same addresses). */
static int same_locs(const struct sbp *b, const struct locset *ls)
{
	if (b->nlocs != ls->n)
		return 0;
	for (int i = 0; i < ls->n; i++)
		if (b->locs[i].addr != ls->v[i].addr)
			return 0;
	return 1;
}

/*
 * gdb re-sets every breakpoint at each change of the libraries: a
 * function's locations are those of all the code loaded now (a library
 * loaded later adds its copy: ls's opendir in ld.so, then in libc), and
 * its PLT entry only while no library defines it.  A location that stays
 * keeps its state (disabled, inserted); the breakpoint's own state and
 * hit count are the breakpoint's.  A spec that resolves to nothing now
 * keeps what it has (unloaded() dropped what went with its library).
 */
static void bp_reset(struct ptd_session *s, struct sbp *b)
{
	struct locset ls;

	/* (a bare LINE is of the file it was set in, not of where the
	 * program is now: in the dynamic linker) */
	if (b->wkind || PTD__BP_IS_EVENT(b) || b->spec[0] == '*' ||
	    (isdigit((unsigned char)b->spec[0]) && b->nlocs))
		return;
	if (resolve_spec(s, b->spec, &ls) < 0) {
		ptd_clear_error();
		return;
	}
	if (same_locs(b, &ls)) {
		locs_free(ls.v, ls.n);
		return;
	}
	for (int k = 0; k < ls.n; k++)
		for (int j = 0; j < b->nlocs; j++)
			if (b->locs[j].addr == ls.v[k].addr)
				ls.v[k].disabled = b->locs[j].disabled;
	bp_disarm(s, b);
	bp_set_locs(b, &ls);
	if (bp_arm(s, b) < 0)
		ptd_clear_error(); /* said when the program resumes next */
}

void ptd__ses_bp_forget_mods(struct ptd_session *s)
{
	for (int i = 0; i < s->bp_nmods; i++)
		free(s->bp_mods[i]);
	free(s->bp_mods);
	s->bp_mods = NULL;
	s->bp_nmods = 0;
	s->bp_mods_ok = 0;
}

/* Whether @spec is a function's name (resolve_spec's last case). */
static int func_spec(const char *spec)
{
	const char *colon = strrchr(spec, ':');

	return spec[0] != '*' && spec[0] != '-' && !isdigit((unsigned char)spec[0]) &&
	       !(colon && colon != spec && colon[-1] != ':');
}

int ptd__ses_solib_event(struct ptd_session *s, uint64_t pc)
{
	struct ptd_symbols *sym;
	char **keys = NULL;
	int nkeys;

	if (!s->solib_addr || pc != s->solib_addr || s->solib_pid != ptd_session_pid(s) ||
	    s->solib_gen != s->exec_gen)
		return 0;
	s->sym_dirty = 1;
	sym = ptd__ses_symbols(s);
	unloaded(s);
	for (int i = 0; i < s->nbp; i++) {
		struct sbp *b = &s->bp[i];

		/* (a function only a newly loaded file can add locations
		 * to: what went is gone already, unloaded() said) */
		if (s->bp_mods_ok && sym && !b->unloaded && func_spec(b->spec) &&
		    !ptd__symbols_added_have(sym, s->bp_mods, s->bp_nmods, b->spec))
			continue;
		b->unloaded = 0;
		bp_reset(s, b);
	}
	ptd__ses_bp_forget_mods(s);
	nkeys = sym ? ptd__symbols_module_keys(sym, &keys) : -1;
	if (nkeys >= 0) {
		s->bp_mods = keys;
		s->bp_nmods = nkeys;
		s->bp_mods_ok = 1;
	}
	ptd_clear_error();
	return 1;
}

static void bp_free_at(struct ptd_session *s, int i)
{
	struct sbp *b = &s->bp[i];

	bp_disarm(s, b);
	if (b->wkind)
		ptd__ses_watch_release(s, b);
	free(b->spec);
	free(b->cond);
	free(b->dprintf);
	free(b->catch_what);
	ptd__ses_bp_free_locs(b);
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
	memset(out, 0, sizeof(*out));
	out->id = b->id;
	out->addr = b->addr;
	out->spec = b->spec;
	out->catch_kind = b->catch_kind;
	out->catch_what = b->catch_what;
	out->catch_signals = b->catch_sigs;
	out->catch_all = b->catch_all;
	if (b->nlocs) {
		out->func = b->locs[0].func;
		out->file = b->locs[0].file;
		out->line = b->locs[0].line;
	}
	out->nlocs = b->nlocs;
	out->enabled = !b->disabled;
	out->hits = b->hits;
	out->temporary = b->temporary;
	out->disp_disable = b->disp_disable;
	out->enable_count = b->enable_count;
	out->cond = b->cond;
	out->dprintf = b->dprintf;
	out->ignore = b->ignore;
	out->watch = b->wkind;
	out->len = b->len;
	out->triggered = b->triggered;
	out->changed = b->changed;
	out->scope_ended = b->scope_ended;
	out->reports = b->reports;
	memcpy(out->value, b->val, sizeof(out->value));
	memcpy(out->old_value, b->old, sizeof(out->old_value));
	return 0;
}

int ptd_session_bp_loc(const struct ptd_session *s, int index, int loc, struct ptd_bploc *out)
{
	const struct sbp_loc *l;

	if (!s || !out || index < 0 || index >= s->nbp || loc < 1 || loc > s->bp[index].nlocs)
		return -ptde_invalid;
	l = &s->bp[index].locs[loc - 1];
	out->addr = l->addr;
	out->func = l->func;
	out->file = l->file;
	out->line = l->line;
	out->enabled = !l->disabled;
	return 0;
}

int ptd_session_bp_enable(struct ptd_session *s, int id, int loc, int enabled)
{
	struct sbp *b = NULL;
	int rc;

	if (!s || loc < 0)
		return -ptde_invalid;
	for (int i = 0; i < s->nbp; i++)
		if (s->bp[i].id == id)
			b = &s->bp[i];
	if (!b)
		return ptd__err(-ptde_notfound, "No breakpoint number %d.", id);
	if (b->wkind)
		return ptd__err(-ptde_unsupported, "cannot disable watchpoint %d: delete it instead",
				id);
	if (loc > b->nlocs)
		return ptd__err(-ptde_invalid, "Bad breakpoint location number '%d'", loc);
	if (loc)
		b->locs[loc - 1].disabled = !enabled;
	else
		b->disabled = !enabled;
	/* (gdb's plain enable keeps the disposition, with no count left) */
	if (!loc && enabled)
		b->enable_count = 0;
	/* a disabled location leaves the program's code; an enabled one goes
	 * back in (or when the program resumes: arm_all says why not) */
	for (int i = 0; i < b->nlocs; i++)
		if (!loc_wanted(b, &b->locs[i]))
			loc_remove(s, &b->locs[i]);
	rc = bp_arm(s, b);
	if (rc < 0)
		ptd_clear_error();
	return 0;
}

int ptd_session_bp_disposition(struct ptd_session *s, int id, enum ptd_bp_disp disp, int count)
{
	struct sbp *b = NULL;
	int rc;

	if (!s || disp < PTD_BP_KEEP || disp > PTD_BP_DISABLE)
		return -ptde_invalid;
	for (int i = 0; i < s->nbp; i++)
		if (s->bp[i].id == id)
			b = &s->bp[i];
	if (!b)
		return ptd__err(-ptde_notfound, "No breakpoint number %d.", id);
	if (b->wkind)
		return ptd__err(-ptde_unsupported, "cannot change watchpoint %d: delete it instead",
				id);
	rc = ptd_session_bp_enable(s, id, 0, 1);
	if (rc < 0)
		return rc;
	b->temporary = disp == PTD_BP_DEL;
	b->disp_disable = disp == PTD_BP_DISABLE;
	b->enable_count = b->disp_disable ? count : 0;
	return 0;
}

/* After exec or at launch: resolve every breakpoint again in the new image. */
void ptd__ses_bp_rearm_all(struct ptd_session *s)
{
	ptd__ses_watch_drop_locals(s);
	ptd__ses_bp_forget_mods(s);
	for (int i = 0; i < s->nbp; i++) {
		struct sbp *b = &s->bp[i];
		struct locset ls;

		for (int k = 0; k < b->nlocs; k++)
			b->locs[k].inserted = 0;
		if (b->wkind) {
			if (ptd_session_alive(s))
				ptd__ses_watch_rearm(s, b);
			continue;
		}
		if (b->spec[0] != '*' && !PTD__BP_IS_EVENT(b) && resolve_spec(s, b->spec, &ls) == 0) {
			/* (what the user disabled stays so where it is the same) */
			for (int k = 0; k < ls.n; k++)
				for (int j = 0; j < b->nlocs; j++)
					if (b->locs[j].addr == ls.v[k].addr)
						ls.v[k].disabled = b->locs[j].disabled;
			bp_set_locs(b, &ls);
		} else if (b->spec[0] != '*' && !PTD__BP_IS_EVENT(b)) {
			/* Not in the new image (a library function the program
			 * does not call): pending until a library has it, as
			 * gdb; the old addresses mean nothing now. */
			ptd__ses_bp_free_locs(b);
		}
		ptd_clear_error();
		/* a failure is reported when the program resumes (arm_all) */
		if (bp_has_addr(b))
			bp_arm(s, b);
	}
	ptd_clear_error();
	solib_arm(s);
}

int ptd__ses_bp_arm_all(struct ptd_session *s, int aborted)
{
	solib_arm(s);
	for (int i = 0; i < s->nbp; i++) {
		struct sbp *b = &s->bp[i];

		if (!bp_has_addr(b) || !ptd_session_alive(s))
			continue;
		for (int k = 0; k < b->nlocs; k++) {
			struct sbp_loc *l = &b->locs[k];

			if (l->inserted || !loc_wanted(b, l))
				continue;
			if (ptd_target_bp_insert(s->t, l->addr) < 0)
				return ptd__err(-ptde_nomap,
						"Warning:\nCannot insert breakpoint %d.\n"
						"Cannot access memory at address 0x%llx\n%s",
						b->id, (unsigned long long)l->addr,
						aborted ? "\nCommand aborted." : "");
			l->inserted = 1;
		}
	}
	return 0;
}

struct sbp *ptd__ses_bp_at(struct ptd_session *s, uint64_t addr)
{
	for (int i = 0; i < s->nbp; i++)
		if (ptd__ses_bp_loc_at(&s->bp[i], addr) >= 0)
			return &s->bp[i];
	return NULL;
}

int ptd_session_resolve(struct ptd_session *s, const char *spec, uint64_t *addr)
{
	struct locset ls;
	int rc;

	if (!s || !spec || !*spec || !addr)
		return ptd__err(-ptde_invalid, "no location given");
	rc = resolve_spec(s, spec, &ls);
	if (rc < 0)
		return rc;
	*addr = ls.n ? ls.v[0].addr : 0;
	locs_free(ls.v, ls.n);
	return 0;
}

int ptd_session_resolve_all(struct ptd_session *s, const char *spec, uint64_t *addrs, int max)
{
	struct locset ls;
	int rc, n;

	if (!s || !spec || !*spec || !addrs || max < 1)
		return ptd__err(-ptde_invalid, "no location given");
	rc = resolve_spec(s, spec, &ls);
	if (rc < 0)
		return rc;
	n = ls.n < max ? ls.n : max;
	for (int i = 0; i < n; i++)
		addrs[i] = ls.v[i].addr;
	locs_free(ls.v, ls.n);
	return n;
}

struct sbp *ptd__ses_bp_new(struct ptd_session *s, const char *spec)
{
	struct sbp *b;

	if (s->nbp == s->cap_bp) {
		int cap = s->cap_bp ? 2 * s->cap_bp : 8;
		struct sbp *n = realloc(s->bp, cap * sizeof(*n));
		if (!n)
			return NULL;
		s->bp = n;
		s->cap_bp = cap;
	}
	b = &s->bp[s->nbp];
	memset(b, 0, sizeof(*b));
	b->spec = strdup(spec);
	if (!b->spec)
		return NULL;
	b->id = s->next_bp_id++;
	s->nbp++;
	return b;
}

void ptd__ses_bp_clear_hits(struct ptd_session *s)
{
	for (int i = 0; i < s->nbp; i++)
		s->bp[i].hits = 0;
}
