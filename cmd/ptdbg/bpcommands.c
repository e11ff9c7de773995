/*
 * Breakpoint command lists, as gdb's `commands`: lines read after
 * `commands [N...]` up to `end` (from the file being sourced, the
 * terminal, or standard input), run when the program stops at that
 * breakpoint.  `silent` first keeps the stop from being printed.  A
 * command that resumes the program ends the list; the commands of the
 * breakpoint it stops at next run then, in a loop rather than nested, as
 * gdb's bpstat_do_actions does.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "shell.h"

struct bp_cmds {
	int id;
	char **lines;
	int n;
};

static struct bp_cmds *lists;
static int nlists;

static const char *ws(const char *p)
{
	while (*p && isspace((unsigned char)*p))
		p++;
	return p;
}

static struct bp_cmds *find(int id)
{
	for (int i = 0; i < nlists; i++)
		if (lists[i].id == id)
			return &lists[i];
	return NULL;
}

static void clear(struct bp_cmds *c)
{
	for (int i = 0; i < c->n; i++)
		free(c->lines[i]);
	free(c->lines);
	c->lines = NULL;
	c->n = 0;
}

/* "1 3-4" into ids (at most @max); returns the count or -1. */
static int parse_ids(const char *args, int *ids, int max)
{
	const char *p = ws(args);
	int n = 0;

	while (*p) {
		char *q;
		long lo = strtol(p, &q, 10), hi = lo;

		if (q == p || lo <= 0)
			return shell_error("Invalid breakpoint number: %s", p) < 0 ? -1 : -1;
		if (*q == '-') {
			p = q + 1;
			hi = strtol(p, &q, 10);
			if (q == p || hi < lo)
				return shell_error("inverted range") < 0 ? -1 : -1;
		}
		for (long k = lo; k <= hi && n < max; k++)
			ids[n++] = (int)k;
		p = ws(q);
	}
	return n;
}

int shell_cmd_commands(struct shell *sh, const char *args)
{
	int ids[64], nids, nb = ptd_session_bp_count(sh->s), last = 0;
	char **body = NULL;
	int nbody = 0;

	for (int i = 0; i < nb; i++) {
		struct ptd_bpinfo bi;

		if (ptd_session_bp_get(sh->s, i, &bi) == 0 && bi.id > last)
			last = bi.id;
	}
	args = ws(args);
	if (!*args) {
		/* the last breakpoint set, gdb's $bpnum */
		if (!last)
			return shell_error("Argument required (one or more breakpoint numbers).");
		ids[0] = last;
		nids = 1;
	} else {
		nids = parse_ids(args, ids, 64);
		if (nids < 0)
			return -1;
	}
	for (int k = 0; k < nids; k++) {
		int found = 0;

		for (int i = 0; i < nb && !found; i++) {
			struct ptd_bpinfo bi;

			found = ptd_session_bp_get(sh->s, i, &bi) == 0 && bi.id == ids[k];
		}
		if (!found)
			return shell_error("No breakpoint number %d.", ids[k]);
	}
	if (sh->from_tty && isatty(STDIN_FILENO)) {
		/* (gdb says it to a terminal only) */
		printf("Type commands for breakpoint(s) ");
		for (int k = 0; k < nids; k++)
			printf("%s%d", k ? " " : "", ids[k]);
		printf(", one per line.\nEnd with a line saying just \"end\".\n");
	}
	/* the lines up to the matching end (an if or while in them has its
	 * own), as define and while read theirs */
	shell_read_body(sh, 0, &body, &nbody);
	for (int k = 0; k < nids; k++) {
		struct bp_cmds *c = find(ids[k]);

		if (!c) {
			struct bp_cmds *nl = realloc(lists, (size_t)(nlists + 1) * sizeof(*nl));

			if (!nl)
				break;
			lists = nl;
			c = &lists[nlists++];
			memset(c, 0, sizeof(*c));
			c->id = ids[k];
		}
		clear(c);
		if (!nbody)
			continue;
		c->lines = calloc((size_t)nbody, sizeof(*c->lines));
		for (int i = 0; c->lines && i < nbody; i++)
			if ((c->lines[i] = strdup(body[i])) != NULL)
				c->n = i + 1;
	}
	shell_free_lines(body, nbody);
	return 0;
}

/* An if, while, define... (whose body follows it up to its end). */
static int block_opener(const char *line)
{
	char w[32];
	size_t i = 0;

	line = ws(line);
	while (line[i] && !isspace((unsigned char)line[i]) && i + 1 < sizeof(w)) {
		w[i] = line[i];
		i++;
	}
	w[i] = '\0';
	return !strcmp(w, "if") || !strcmp(w, "while") || !strcmp(w, "define") ||
	       !strcmp(w, "document") || !strcmp(w, "commands");
}

/* The index past the end that closes the block opened at @lines[@i]. */
static int block_end(char **lines, int n, int i)
{
	int level = 0;

	for (; i < n; i++) {
		const char *t = ws(lines[i]);

		if (block_opener(t))
			level++;
		else if ((!strncmp(t, "end", 3) && (!t[3] || isspace((unsigned char)t[3]))) &&
			 --level == 0)
			return i + 1;
	}
	return n;
}

int shell_bp_silent(int id)
{
	struct bp_cmds *c = find(id);

	return c && c->n > 0 && !strcmp(ws(c->lines[0]), "silent");
}

void shell_bp_stopped(struct shell *sh, int id)
{
	sh->stops++;
	sh->pending_bp = id && find(id) && find(id)->n > 0 ? id : 0;
}

void shell_bp_run_pending(struct shell *sh)
{
	static int running;
	int rounds = 0;

	if (running)
		return; /* the loop below runs what the commands' stops ask */
	running = 1;
	while (sh->pending_bp && !sh->quit && rounds++ < 1000000) {
		struct bp_cmds *c = find(sh->pending_bp);
		char **copy;
		int n, stops = sh->stops;

		sh->pending_bp = 0;
		if (!c || !c->n)
			continue;
		/* a copy: the commands may redefine the list */
		n = c->n;
		copy = calloc((size_t)n, sizeof(*copy));
		for (int i = 0; copy && i < n; i++)
			copy[i] = strdup(c->lines[i]);
		for (int i = 0; copy && i < n; i++) {
			if (!copy[i] || (i == 0 && !strcmp(ws(copy[i]), "silent")))
				continue;
			/* one line at a time, an if or while with the lines of
			 * its body after it */
			int end = i + 1;

			if (block_opener(copy[i]))
				end = block_end(copy, n, i);
			if (shell_run_body(sh, copy + i, end - i) < 0)
				break;
			i = end - 1;
			/* the program moved: the rest of the list is dropped */
			if (sh->stops != stops)
				break;
		}
		for (int i = 0; copy && i < n; i++)
			free(copy[i]);
		free(copy);
		if (!ptd_session_alive(sh->s) && !ptd_session_offline(sh->s))
			sh->pending_bp = 0;
	}
	running = 0;
}

void shell_print_bp_commands(int id)
{
	struct bp_cmds *c = find(id);

	/* as gdb lists them under the breakpoint, indented */
	if (c)
		shell_print_lines(stdout, c->lines, c->n, 8);
}

void shell_save_bp_commands(FILE *f, int id)
{
	struct bp_cmds *c = find(id);

	/* save breakpoints' form: indented under the breakpoint */
	if (!c || !c->n)
		return;
	fprintf(f, "  commands\n");
	shell_print_lines(f, c->lines, c->n, 4);
	fprintf(f, "  end\n");
}

/* `end` outside a command list */
int shell_cmd_end(struct shell *sh, const char *args)
{
	(void)sh, (void)args;
	return shell_error("This command cannot be used at the top level.");
}
