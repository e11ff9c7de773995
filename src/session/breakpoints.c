/*
 * The user's breakpoints: specs ("func", "file:line", "line", "*addr")
 * resolved with the symbols, inserted into the target while it lives,
 * resolved again after exec.  The run loop (run.c) and replay ask bp_at().
 */
#include "session/session_int.h"

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

static int resolve_spec(struct ptd_session *s, const char *spec, uint64_t *addr, char **func,
			char **file, int *line)
{
	struct ptd_symbols *sym = ptd__ses_symbols(s);
	const char *colon;
	char *end;
	uint64_t entry;
	int by_name = 0, func_spec = 0;

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
		if (ptd_symbols_function(sym, spec, &entry, addr) < 0) {
			/* A function of a library the program calls: its PLT
			 * entry until the library is loaded (gdb's printf@plt
			 * before run); the breakpoint moves then. */
			if (plt_lookup(s, spec, addr) == 0) {
				size_t n = strlen(spec) + 5;

				*func = malloc(n);
				if (*func)
					snprintf(*func, n, "%s@plt", spec);
				ptd_clear_error();
				return 0;
			}
			return ptd__err(-ptde_notfound, "Function \"%s\" not defined.", spec);
		}
		func_spec = 1;
		/* (a breakpoint past a prologue: gdb's skip_prologue_sal,
		 * which ends at an inlined call's site; at the entry of
		 * optimised gcc code it takes the entry's own line) */
		by_name = *addr != entry;
	}
	if (sym) {
		struct ptd_symbol fs;
		struct ptd_line li;
		struct ptd_inline in, inl[16];

		/* the function gdb names: the one named, or the innermost
		 * one at the address, inlined or not */
		if (!func_spec && ptd_symbols_inlined(sym, *addr, &in, 1) == 1 && in.name)
			*func = strdup(in.name);
		else if (ptd_symbols_lookup(sym, *addr, &fs) == 0 && fs.name)
			*func = strdup(fs.name);
		int ninl = by_name ? ptd_symbols_inlined(sym, *addr, inl, 16) : 0;

		if (ninl > 0 && inl[ninl - 1].call_file && inl[ninl - 1].call_line > 0) {
			/* past the prologue inside inlined code: gdb gives the
			 * outermost inlined call's site */
			*file = strdup(inl[ninl - 1].call_file);
			*line = inl[ninl - 1].call_line;
		} else if (ptd_symbols_line(sym, *addr, &li) == 0) {
			*file = strdup(li.file);
			/* FILE:LINE keeps its line where the address starts
			 * another one too (an inlined call's site) */
			if (!*line)
				*line = li.line;
		}
	}
	return 0;
}

static int is_plt(const char *func)
{
	size_t n = func ? strlen(func) : 0;

	return n > 4 && !strcmp(func + n - 4, "@plt");
}

/* Whether @b has an address to insert: "*ADDR" always (also *0), a
 * symbolic spec once resolved (unresolved ones are pending, address 0). */
static int bp_has_addr(const struct sbp *b)
{
	return !b->wkind && (b->addr || b->spec[0] == '*');
}

/* Remembers the file @b's address is in, to tell when it is unloaded. */
static void bp_note_module(struct ptd_session *s, struct sbp *b)
{
	struct ptd_symbols *sym = ptd__ses_symbols(s);
	struct ptd_symbol fs;

	free(b->module);
	b->module = NULL;
	if (sym && b->addr && ptd_symbols_lookup(sym, b->addr, &fs) == 0 && fs.module)
		b->module = strdup(fs.module);
}

static int bp_arm(struct ptd_session *s, struct sbp *b)
{
	if (b->inserted || !ptd_session_alive(s) || !bp_has_addr(b))
		return 0;
	if (ptd_target_bp_insert(s->t, b->addr) < 0)
		return ptd__err(-ptde_nomap,
				"Cannot insert breakpoint %d.\nCannot access memory at address 0x%llx",
				b->id, (unsigned long long)b->addr);
	b->inserted = 1;
	bp_note_module(s, b);
	return 0;
}

static int bp_add(struct ptd_session *s, const char *spec, int temporary, int pending)
{
	uint64_t addr = 0;
	char *func, *file;
	int line, rc;
	struct sbp *b;

	if (!s || !spec || !*spec)
		return ptd__err(-ptde_invalid, "no breakpoint location given");
	rc = resolve_spec(s, spec, &addr, &func, &file, &line);
	if (rc == -ptde_notfound && pending && spec[0] != '*') {
		/* resolved when a library that has it is loaded */
		ptd_clear_error();
		addr = 0;
		func = file = NULL;
		line = 0;
		rc = 0;
	}
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
	b->plt = is_plt(func);
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

int ptd_session_break(struct ptd_session *s, const char *spec, int temporary)
{
	return bp_add(s, spec, temporary, 0);
}

int ptd_session_break_pending(struct ptd_session *s, const char *spec, int temporary)
{
	return bp_add(s, spec, temporary, 1);
}

/* Whether the dynamic linker's reports matter: a symbolic breakpoint
 * waits for its library, or one may be in a library that can go. */
static int any_pending(const struct ptd_session *s)
{
	for (int i = 0; i < s->nbp; i++)
		if (!s->bp[i].wkind && s->bp[i].spec[0] != '*')
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
 * int3 leaves our table, so nothing of ours is written into whatever is
 * mapped there next.  gdb's warning, once per library.
 */
static void unloaded(struct ptd_session *s)
{
	struct ptd_symbols *sym = ptd__ses_symbols(s);
	const char *warned = NULL;

	for (int i = 0; i < s->nbp; i++) {
		struct sbp *b = &s->bp[i];
		struct ptd_symbol fs;

		if (b->wkind || b->plt || !b->module || b->spec[0] == '*' || !b->addr)
			continue;
		if (sym && ptd_symbols_lookup(sym, b->addr, &fs) == 0 && fs.module &&
		    !strcmp(fs.module, b->module))
			continue;
		if (s->notify && (!warned || strcmp(warned, b->module))) {
			char msg[4200];

			snprintf(msg, sizeof(msg),
				 "warning: Temporarily disabling breakpoints for unloaded shared "
				 "library \"%s\"", b->module);
			s->notify(s->notify_ctx, msg);
			warned = b->module;
		}
		if (b->inserted && s->t)
			ptd_target_bp_remove(s->t, b->addr);
		ptd_clear_error();
		b->inserted = 0;
		b->addr = 0;
	}
	solib_arm(s);
}

int ptd__ses_solib_event(struct ptd_session *s, uint64_t pc)
{
	if (!s->solib_addr || pc != s->solib_addr || s->solib_pid != ptd_session_pid(s) ||
	    s->solib_gen != s->exec_gen)
		return 0;
	s->sym_dirty = 1;
	ptd__ses_symbols(s);
	unloaded(s);
	for (int i = 0; i < s->nbp; i++) {
		struct sbp *b = &s->bp[i];
		uint64_t addr;
		char *func, *file;
		int line;

		if (b->wkind || (bp_has_addr(b) && !b->plt))
			continue;
		if (resolve_spec(s, b->spec, &addr, &func, &file, &line) < 0) {
			ptd_clear_error();
			continue;
		}
		if (b->plt && (is_plt(func) || addr == b->addr)) {
			/* the library that defines it is not there yet */
			free(func);
			free(file);
			continue;
		}
		if (b->inserted && s->t) {
			ptd_target_bp_remove(s->t, b->addr);
			b->inserted = 0;
		}
		b->plt = is_plt(func);
		b->addr = addr;
		free(b->func);
		free(b->file);
		b->func = func;
		b->file = file;
		b->line = line;
		if (bp_arm(s, b) < 0)
			ptd_clear_error(); /* said when the program resumes next */
	}
	return 1;
}

static void bp_free_at(struct ptd_session *s, int i)
{
	struct sbp *b = &s->bp[i];

	if (b->inserted && s->t)
		ptd_target_bp_remove(s->t, b->addr);
	if (b->wkind)
		ptd__ses_watch_release(s, b);
	free(b->spec);
	free(b->func);
	free(b->file);
	free(b->cond);
	free(b->module);
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
	out->cond = b->cond;
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

/* After exec or at launch: resolve every breakpoint again in the new image. */
void ptd__ses_bp_rearm_all(struct ptd_session *s)
{
	ptd__ses_watch_drop_locals(s);
	for (int i = 0; i < s->nbp; i++) {
		struct sbp *b = &s->bp[i];
		uint64_t addr;
		char *func, *file;
		int line;
		b->inserted = 0;
		if (b->wkind) {
			if (ptd_session_alive(s))
				ptd__ses_watch_rearm(s, b);
			continue;
		}
		if (b->spec[0] != '*' && resolve_spec(s, b->spec, &addr, &func, &file, &line) == 0) {
			b->addr = addr;
			free(b->func);
			free(b->file);
			b->func = func;
			b->file = file;
			b->line = line;
			b->plt = is_plt(func);
		}
		/* a failure is reported when the program resumes (arm_all) */
		if (bp_has_addr(b))
			bp_arm(s, b);
	}
	solib_arm(s);
}

int ptd__ses_bp_arm_all(struct ptd_session *s, int aborted)
{
	solib_arm(s);
	for (int i = 0; i < s->nbp; i++) {
		struct sbp *b = &s->bp[i];

		if (b->inserted || !bp_has_addr(b) || !ptd_session_alive(s))
			continue;
		if (ptd_target_bp_insert(s->t, b->addr) < 0)
			return ptd__err(-ptde_nomap,
					"Warning:\nCannot insert breakpoint %d.\n"
					"Cannot access memory at address 0x%llx\n%s",
					b->id, (unsigned long long)b->addr,
					aborted ? "\nCommand aborted." : "");
		b->inserted = 1;
	}
	return 0;
}

struct sbp *ptd__ses_bp_at(struct ptd_session *s, uint64_t addr)
{
	for (int i = 0; i < s->nbp; i++)
		if (s->bp[i].addr == addr && !s->bp[i].wkind)
			return &s->bp[i];
	return NULL;
}

int ptd_session_resolve(struct ptd_session *s, const char *spec, uint64_t *addr)
{
	char *func, *file;
	int line, rc;

	if (!s || !spec || !*spec || !addr)
		return ptd__err(-ptde_invalid, "no location given");
	rc = resolve_spec(s, spec, addr, &func, &file, &line);
	if (rc < 0)
		return rc;
	free(func);
	free(file);
	return 0;
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
