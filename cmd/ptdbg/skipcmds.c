/*
 * gdb's skip list: skip [function|file] [NAME], skip -fi|-gfi|-fu|-rfu
 * ..., skip delete|enable|disable [N...], info skip [N...].  `step`
 * (forward and reverse, live and in the history) steps over a function
 * an enabled entry matches instead of stopping in it; the session asks
 * skip_judge() for each function it would step into.
 */
#include <ctype.h>
#include <fnmatch.h>
#include <inttypes.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shell.h"

struct skip_entry {
	int num;
	int enabled;
	char *file; /* NULL: any */
	int file_glob;
	char *func; /* NULL: any */
	int func_re;
	regex_t re;
};

static struct skip_entry *skips;
static int nskips, next_num = 1;

static const char *sk_ws(const char *p)
{
	while (*p && isspace((unsigned char)*p))
		p++;
	return p;
}

/* gdb's strcmp_iw: equal but for white space, and NAME may stop where
 * FUNC's parameter list starts ("f" is "f(int)"). */
static int name_is(const char *func, const char *name)
{
	for (;;) {
		while (isspace((unsigned char)*func))
			func++;
		while (isspace((unsigned char)*name))
			name++;
		if (!*name)
			return !*func || *func == '(';
		if (*func != *name)
			return 0;
		func++;
		name++;
	}
}

static const char *base_of(const char *path)
{
	const char *b = strrchr(path, '/');

	return b ? b + 1 : path;
}

/* gdb's compare_filenames_for_search: FILE is the path or a whole
 * trailing part of it ("b.c" and "a/b.c" are /x/a/b.c). */
static int file_is(const char *path, const char *file)
{
	size_t lp = strlen(path), lf = strlen(file);

	if (lf > lp || strcmp(path + lp - lf, file))
		return 0;
	return lf == lp || file[0] == '/' || path[lp - lf - 1] == '/';
}

static int entry_matches(const struct skip_entry *e, const char *func, const char *file)
{
	if (!e->enabled)
		return 0;
	if (e->file) {
		if (!file)
			return 0;
		if (e->file_glob ? fnmatch(e->file, file, FNM_FILE_NAME | FNM_NOESCAPE) != 0 &&
					   fnmatch(e->file, base_of(file), FNM_FILE_NAME | FNM_NOESCAPE) != 0
				 : !file_is(file, e->file))
			return 0;
	}
	if (e->func) {
		if (!func)
			return 0;
		if (e->func_re ? regexec(&e->re, func, 0, NULL, 0) != 0 : !name_is(func, e->func))
			return 0;
	}
	return 1;
}

static int skip_judge(void *ctx, const char *func, const char *file)
{
	(void)ctx;
	for (int i = 0; i < nskips; i++)
		if (entry_matches(&skips[i], func, file))
			return 1;
	return 0;
}

static void entry_free(struct skip_entry *e)
{
	free(e->file);
	free(e->func);
	if (e->func_re)
		regfree(&e->re);
}

void shell_skip_release(void)
{
	for (int i = 0; i < nskips; i++)
		entry_free(&skips[i]);
	free(skips);
	skips = NULL;
	nskips = 0;
	next_num = 1;
}

static int add_entry(struct shell *sh, const char *file, int glob, const char *func, int re)
{
	struct skip_entry e = { .enabled = 1, .file_glob = glob, .func_re = re }, *n;

	if (re) {
		int rc = regcomp(&e.re, func, REG_NOSUB);

		if (rc) {
			char msg[256];

			regerror(rc, &e.re, msg, sizeof(msg));
			return shell_error("Invalid regexp: %s", msg);
		}
	}
	e.file = file ? strdup(file) : NULL;
	e.func = func ? strdup(func) : NULL;
	n = realloc(skips, sizeof(*skips) * (size_t)(nskips + 1));
	if ((file && !e.file) || (func && !e.func) || !n) {
		if (n)
			skips = n;
		entry_free(&e);
		return shell_error("out of memory");
	}
	skips = n;
	e.num = next_num++;
	skips[nskips++] = e;
	ptd_session_set_skip(sh->s, skip_judge, NULL);
	/* gdb's words, "(s)" for a pattern */
	if (!file)
		printf("Function%s %s will be skipped when stepping.\n", re ? "(s)" : "", func);
	else if (!func)
		printf("File%s %s will be skipped when stepping.\n", glob ? "(s)" : "", file);
	else
		printf("Function%s %s in file%s %s will be skipped when stepping.\n", re ? "(s)" : "",
		       func, glob ? "(s)" : "", file);
	return 0;
}

/* The selected frame's function and the file of its line. */
static int current(struct shell *sh, const char **func, const char **file)
{
	struct ptd_symbols *sym = ptd_session_symbols(sh->s);
	struct ptd_symbol fs;
	struct ptd_line li;
	uint64_t pc;

	*func = *file = NULL;
	if ((!ptd_session_alive(sh->s) && !ptd_session_offline(sh->s)) || !sym)
		return -1;
	if (sh->frame_level > 0)
		pc = sh->frame_pc;
	else if (ptd_session_pc(sh->s, &pc) < 0)
		return -1;
	if (ptd_symbols_lookup(sym, pc, &fs) == 0)
		*func = fs.name;
	if (ptd_symbols_line(sym, pc, &li) == 0)
		*file = li.file;
	ptd_clear_error();
	return 0;
}

/* One word of @*pp (moved past it) into @w (@n bytes). */
static int word(const char **pp, char *w, size_t n)
{
	const char *p = sk_ws(*pp);
	size_t k = 0;

	while (*p && !isspace((unsigned char)*p)) {
		if (k + 1 < n)
			w[k++] = *p;
		p++;
	}
	w[k] = '\0';
	*pp = p;
	return k > 0;
}

/* Numbers and ranges ("1 3-5"; none: all) of @args, each given to @fn;
 * gdb's message for numbers no entry has. */
static int for_numbers(const char *args, void (*fn)(struct skip_entry *e, int *gone), int *gone)
{
	const char *p = sk_ws(args);
	int any = 0;

	if (!*p) {
		for (int i = 0; i < nskips; i++)
			fn(&skips[i], gone);
		return 0;
	}
	while (*p) {
		char *end;
		long lo = strtol(p, &end, 10), hi = lo;

		if (end == p || lo <= 0)
			return shell_error("Arguments must be skip numbers.");
		p = end;
		if (*p == '-') {
			hi = strtol(p + 1, &end, 10);
			if (end == p + 1 || hi < lo)
				return shell_error("Arguments must be skip numbers.");
			p = end;
		}
		any = 0;
		for (int i = 0; i < nskips; i++)
			if (skips[i].num >= lo && skips[i].num <= hi) {
				fn(&skips[i], gone);
				any = 1;
			}
		if (!any) {
			if (lo == hi)
				return shell_error("No skiplist entries found with number %ld.", lo);
			return shell_error("No skiplist entries found with number %ld-%ld.", lo, hi);
		}
		p = sk_ws(p);
	}
	return 0;
}

static void do_enable(struct skip_entry *e, int *gone)
{
	(void)gone;
	e->enabled = 1;
}

static void do_disable(struct skip_entry *e, int *gone)
{
	(void)gone;
	e->enabled = 0;
}

static void do_delete(struct skip_entry *e, int *gone)
{
	(void)gone;
	e->enabled = -1; /* (removed after the walk) */
}

int shell_cmd_skip(struct shell *sh, const char *args)
{
	const char *p = sk_ws(args), *cf, *cfile;
	char w[64], val[1024];
	const char *file = NULL, *func = NULL;
	char filebuf[1024], funcbuf[1024];
	int glob = 0, re = 0, rc;

	if (!word(&p, w, sizeof(w))) {
		/* skip: the current function */
		if (current(sh, &cf, &cfile) < 0 || !cf)
			return shell_error("No default function now.");
		return add_entry(sh, NULL, 0, cf, 0);
	}
	if (!strcmp(w, "delete") || !strcmp(w, "enable") || !strcmp(w, "disable")) {
		int gone = 0;

		rc = for_numbers(p, w[0] == 'd' && w[1] == 'e' ? do_delete
				    : w[0] == 'e'              ? do_enable
							       : do_disable,
				 &gone);
		for (int i = 0; i < nskips;)
			if (skips[i].enabled < 0) {
				entry_free(&skips[i]);
				memmove(&skips[i], &skips[i + 1], sizeof(*skips) * (size_t)(nskips - i - 1));
				nskips--;
			} else {
				i++;
			}
		return rc;
	}
	if (!strcmp(w, "function")) {
		p = sk_ws(p);
		if (!*p) {
			if (current(sh, &cf, &cfile) < 0 || !cf)
				return shell_error("No default function now.");
			return add_entry(sh, NULL, 0, cf, 0);
		}
		return add_entry(sh, NULL, 0, p, 0);
	}
	if (!strcmp(w, "file")) {
		p = sk_ws(p);
		if (!*p) {
			if (current(sh, &cf, &cfile) < 0 || !cfile)
				return shell_error("No default file now.");
			return add_entry(sh, cfile, 0, NULL, 0);
		}
		return add_entry(sh, p, 0, NULL, 0);
	}
	if (w[0] != '-')
		return add_entry(sh, NULL, 0, sk_ws(args), 0); /* skip NAME */
	/* options: -fi|-file F, -gfi|-gfile G, -fu|-function F, -rfu|-rfunction R */
	p = sk_ws(args);
	while (word(&p, w, sizeof(w))) {
		int is_file = !strcmp(w, "-fi") || !strcmp(w, "-file");
		int is_gfile = !strcmp(w, "-gfi") || !strcmp(w, "-gfile");
		int is_func = !strcmp(w, "-fu") || !strcmp(w, "-function");
		int is_rfunc = !strcmp(w, "-rfu") || !strcmp(w, "-rfunction");

		if (!is_file && !is_gfile && !is_func && !is_rfunc)
			return shell_error("Invalid skip option: %s", w);
		if (!word(&p, val, sizeof(val)))
			return shell_error("Missing value for %s option.", w);
		if (is_file || is_gfile) {
			snprintf(filebuf, sizeof(filebuf), "%s", val);
			file = filebuf;
			glob = is_gfile;
		} else {
			snprintf(funcbuf, sizeof(funcbuf), "%s", val);
			func = funcbuf;
			re = is_rfunc;
		}
	}
	return add_entry(sh, file, glob, func, re);
}

int shell_info_skip(struct shell *sh, const char *args)
{
	const char *p = sk_ws(args);
	int shown = 0;

	(void)sh;
	if (!nskips) {
		if (*p)
			return shell_error("No skiplist entries found with number %s.", p);
		printf("Not skipping any files or functions.\n");
		return 0;
	}
	for (int pass = 0; pass < 2; pass++) {
		const char *q = p;

		/* (a first pass checks the numbers) */
		for (int i = 0; i < nskips; i++) {
			const struct skip_entry *e = &skips[i];
			int want = !*q;

			for (const char *r = q; *r && !want;) {
				char *end;
				long lo = strtol(r, &end, 10), hi = lo;

				if (end == r)
					return shell_error("Arguments must be skip numbers.");
				if (*end == '-')
					hi = strtol(end + 1, &end, 10);
				want = e->num >= lo && e->num <= hi;
				r = sk_ws(end);
			}
			if (!want)
				continue;
			if (pass == 0) {
				shown++;
				continue;
			}
			if (shown++ == 0)
				printf("Num   Enb Glob File                 RE Function\n");
			printf("%-5d %-3s %4s %-20s %2s %s\n", e->num, e->enabled ? "y" : "n",
			       e->file_glob ? "y" : "n", e->file ? e->file : "<none>",
			       e->func_re ? "y" : "n", e->func ? e->func : "<none>");
		}
		if (pass == 0 && !shown)
			return shell_error("No skiplist entries found with number %s.", p);
		shown = 0;
	}
	return 0;
}
