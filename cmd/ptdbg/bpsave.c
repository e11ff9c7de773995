/*
 * save breakpoints FILE and rbreak REGEX, as gdb 13: save writes the
 * commands that make the breakpoints and watchpoints again (loadable
 * with `source`: "break SPEC", "  condition $bpnum EXPR", "  ignore
 * $bpnum N", the command lists, "disable $bpnum"), rbreak sets a
 * breakpoint on every function info functions REGEX lists and prints
 * its declaration.  $bpnum, gdb's number of the last breakpoint set, is
 * put in the command lines here (shell_subst_bpnum).
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "breakcmds.h"
#include "ptdbg/ptdbg.h"
#include "shell.h"

static const char *ws(const char *p)
{
	while (*p && isspace((unsigned char)*p))
		p++;
	return p;
}

/* The number of the last breakpoint set: the highest there is. */
static int last_bpnum(struct shell *sh)
{
	struct ptd_bpinfo bi;
	int n = ptd_session_bp_count(sh->s), last = 0;

	for (int i = 0; i < n; i++)
		if (ptd_session_bp_get(sh->s, i, &bi) == 0 && bi.id > last)
			last = bi.id;
	return last;
}

char *shell_subst_bpnum(struct shell *sh, const char *line)
{
	const char *p = strstr(line, "$bpnum");
	char num[16], *out;
	size_t n;

	if (!p || isalnum((unsigned char)p[6]) || p[6] == '_')
		return NULL;
	snprintf(num, sizeof(num), "%d", last_bpnum(sh));
	n = strlen(line) - 6 + strlen(num) + 1;
	out = malloc(n);
	if (out)
		snprintf(out, n, "%.*s%s%s", (int)(p - line), line, num, p + 6);
	return out;
}

static const char *watch_word(int kind)
{
	return kind == PTD_WATCH_READ ? "rwatch" : kind == PTD_WATCH_ACCESS ? "awatch" : "watch";
}

/* save breakpoints FILE */
int shell_cmd_save(struct shell *sh, const char *args)
{
	struct ptd_bpinfo bi;
	char path[4096];
	const char *home;
	int n = ptd_session_bp_count(sh->s), any = 0;
	FILE *f;

	size_t wl;

	args = ws(args);
	wl = strcspn(args, " \t");
	/* (save breakpoints, or an abbreviation of it: save b FILE) */
	if (!wl) {
		printf("List of save subcommands:\n\n"
		       "save breakpoints -- Save current breakpoint definitions as a script.\n\n"
		       "Type \"help save\" followed by save subcommand name for full "
		       "documentation.\n");
		return 0;
	}
	if (wl > strlen("breakpoints") || strncmp(args, "breakpoints", wl))
		return shell_error("Undefined save command: \"%.*s\".  Try \"help save\".",
				   (int)wl, args);
	args = ws(args + wl);
	if (!*args)
		return shell_error("Argument required (file name in which to save)");
	for (int i = 0; i < n; i++)
		any |= ptd_session_bp_get(sh->s, i, &bi) == 0;
	if (!any)
		return shell_error("Nothing to save.");
	if (args[0] == '~' && (args[1] == '/' || !args[1]) && (home = getenv("HOME")))
		snprintf(path, sizeof(path), "%s%s", home, args + 1);
	else
		snprintf(path, sizeof(path), "%s", args);
	f = fopen(path, "w");
	if (!f)
		return shell_error("Unable to open file '%s' for saving (%s)", path, strerror(errno));
	for (int i = 0; i < n; i++) {
		if (ptd_session_bp_get(sh->s, i, &bi) < 0)
			continue;
		if (bi.watch) {
			fprintf(f, "%s %s\n", watch_word(bi.watch), bi.spec);
			continue;
		}
		/* (gdb writes "catch" for a temporary exec, fork, vfork or
		 * signal catchpoint too) */
		if (bi.catch_kind == PTD_CATCH_SIGNAL) {
			char sigs[512];

			shell_catch_signals(&bi, sigs, sizeof(sigs));
			fprintf(f, "catch signal%s%s\n", sigs[0] ? " " : "", sigs);
		} else if (bi.catch_kind)
			fprintf(f, "%s %s\n",
				bi.temporary && bi.catch_kind <= PTD_CATCH_RETHROW ? "tcatch" : "catch",
				shell_catch_word(bi.catch_kind));
		else if (bi.dprintf)
			fprintf(f, "dprintf %s,%s\n", shell_bp_canonical(sh, bi.spec ? bi.spec : "", bi.file),
				bi.dprintf);
		else
			fprintf(f, "%s %s\n", bi.temporary ? "tbreak" : "break",
				shell_bp_canonical(sh, bi.spec ? bi.spec : "", bi.file));
		if (bi.cond)
			fprintf(f, "  condition $bpnum %s\n", bi.cond);
		if (bi.ignore)
			fprintf(f, "  ignore $bpnum %u\n", bi.ignore);
		shell_save_bp_commands(f, bi.id);
		if (!bi.enabled)
			fprintf(f, "disable $bpnum\n");
		for (int k = 1; bi.nlocs > 1 && k <= bi.nlocs; k++) {
			struct ptd_bploc lo;

			if (ptd_session_bp_loc(sh->s, i, k, &lo) == 0 && !lo.enabled)
				fprintf(f, "disable $bpnum.%d\n", k);
		}
	}
	if (fclose(f) != 0)
		return shell_error("cannot write '%s': %s", path, strerror(errno));
	if (sh->from_tty)
		printf("Saved to file '%s'.\n", path);
	return 0;
}

/* rbreak REGEX: "break FILE:'NAME'" for each function, then its
 * declaration (or "<function, no debug info> NAME;") */
int shell_cmd_rbreak(struct shell *sh, const char *args)
{
	struct ptd_func_match *m = NULL;
	char re[1024];
	size_t len;
	int n = 0, rc;

	snprintf(re, sizeof(re), "%s", ws(args));
	for (len = strlen(re); len && isspace((unsigned char)re[len - 1]); len--)
		re[len - 1] = 0;
	if (shell_values_bind(sh) < 0)
		return -1;
	rc = ptd_values_functions_matching(sh->vals, re, &m, &n);
	if (rc < 0)
		return shell_error("%s", ptd_last_error(rc));
	for (int i = 0; i < n; i++) {
		char cmd[4200];

		/* (break prints "Breakpoint N at ..." as for a typed one) */
		if (m[i].file)
			snprintf(cmd, sizeof(cmd), "break %s:%s", m[i].file, m[i].name);
		else
			snprintf(cmd, sizeof(cmd), "break %s", m[i].name);
		if (shell_execute(sh, cmd, NULL) < 0)
			continue;
		if (m[i].file)
			printf("%s\n", m[i].decl ? m[i].decl : m[i].name);
		else
			printf("<function, no debug info> %s;\n", m[i].name);
	}
	ptd_values_matches_free(m, n);
	return 0;
}
