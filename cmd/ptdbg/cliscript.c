/*
 * gdb's command-file scripting in the shell: the bodies read up to a
 * matching `end` (for `if`, `while`, `define`, `document` and the
 * breakpoint lists of bpcommands.c), running them with `if`/`else`,
 * `while`/`loop_break`/`loop_continue`, user-defined commands with their
 * textual $argc/$arg0..$arg9, their documentation, hooks (hook-CMD,
 * hookpost-CMD and hook-stop), `show user`, `alias`, and `set logging`,
 * which copies or redirects the shell's own output (never the
 * program's) to a file.
 *
 * A body is kept as the lines read, trimmed; nested blocks stay inside
 * it as lines and are read again from it when it runs: while a body
 * runs, sh->read_line reads from it, so an `if` or `define` in a body
 * takes its own lines from there, as from a file or the terminal.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "shell.h"

struct user_cmd {
	char *name;
	char **lines;
	int n;
	char **doc;
	int ndoc;
};

volatile sig_atomic_t shell_interrupted;

static struct user_cmd *ucmds;
static int nucmds;

struct alias {
	char *name;
	char *expansion; /* the command and its default arguments */
};

static struct alias *aliases;
static int naliases;

static const char *ws(const char *p)
{
	while (*p && isspace((unsigned char)*p))
		p++;
	return p;
}

/* The first word of @line into @w (a command name ends at a space). */
static const char *word_of(const char *line, char *w, size_t n)
{
	size_t i = 0;

	line = ws(line);
	while (*line && !isspace((unsigned char)*line) && i + 1 < n)
		w[i++] = *line++;
	w[i] = '\0';
	while (*line && !isspace((unsigned char)*line))
		line++;
	return ws(line);
}

static char *trimmed(const char *line)
{
	const char *p = ws(line);
	size_t n = strlen(p);

	while (n && isspace((unsigned char)p[n - 1]))
		n--;
	return strndup(p, n);
}

void shell_free_lines(char **lines, int n)
{
	for (int i = 0; i < n; i++)
		free(lines[i]);
	free(lines);
}

/* Whether @line opens a block that an `end` closes. */
static int opens_block(const char *line)
{
	char w[64];
	const char *full;

	word_of(line, w, sizeof(w));
	if (!strcmp(w, "if") || !strcmp(w, "while") || !strcmp(w, "define") ||
	    !strcmp(w, "document"))
		return 1;
	full = shell_command_full_name(w);
	return full && !strcmp(full, "commands");
}

static int is_end(const char *line)
{
	char w[64];

	word_of(line, w, sizeof(w));
	return !strcmp(w, "end");
}

/* The next line of the input, prompted as gdb does at a terminal or on
 * standard input: one space per open block, then ">". */
static char *next_line(struct shell *sh, int depth)
{
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;

	snprintf(sh->body_prompt, sizeof(sh->body_prompt), "%*s>", depth, "");
	if (sh->read_line)
		return sh->read_line(sh);
	/* (gdb prompts for them on standard input even in batch mode) */
	fputs(sh->body_prompt, stdout);
	fflush(stdout);
	len = getline(&line, &cap, stdin);
	if (len < 0) {
		free(line);
		return NULL;
	}
	if (len && line[len - 1] == '\n')
		line[len - 1] = '\0';
	return line;
}

/* The lines up to the matching end; @text: a document's, text with no
 * blocks in it whose lines keep their indentation. */
static void read_lines(struct shell *sh, int depth, int text, char ***out, int *nout)
{
	char **lines = NULL;
	int n = 0, level = 0;

	for (;;) {
		char *raw = next_line(sh, depth + level), *t, **nl;

		if (!raw)
			break; /* the input ended: the body so far, as gdb */
		t = trimmed(raw);
		if (t && text) {
			int end = !strcmp(t, "end");

			free(t);
			if (end) {
				free(raw);
				break;
			}
			t = strdup(raw);
			for (size_t k = t ? strlen(t) : 0; k && isspace((unsigned char)t[k - 1]); k--)
				t[k - 1] = '\0';
		}
		free(raw);
		if (!t)
			break;
		if (text) {
			/* (no blocks in text) */
		} else if (is_end(t)) {
			if (!level) {
				free(t);
				break;
			}
			level--;
		} else if (opens_block(t)) {
			level++;
		}
		nl = realloc(lines, (size_t)(n + 1) * sizeof(*lines));
		if (!nl) {
			free(t);
			break;
		}
		lines = nl;
		lines[n++] = t;
	}
	*out = lines;
	*nout = n;
}

int shell_read_body(struct shell *sh, int depth, char ***out, int *nout)
{
	read_lines(sh, depth, 0, out, nout);
	return 0;
}

/* Reading from a body as it runs. */
struct body_cursor {
	char **lines;
	int n, i;
};

static char *body_read_line(struct shell *sh)
{
	struct body_cursor *c = sh->read_line_ctx;

	if (c->i >= c->n)
		return NULL;
	return strdup(c->lines[c->i++]);
}

int shell_run_body(struct shell *sh, char **lines, int n)
{
	struct body_cursor cur = {lines, n, 0};
	char *(*outer)(struct shell *) = sh->read_line;
	void *outer_ctx = sh->read_line_ctx;
	int rc = 0;

	sh->read_line = body_read_line;
	sh->read_line_ctx = &cur;
	while (cur.i < cur.n && !sh->quit && !sh->loop_ctl) {
		const char *line = cur.lines[cur.i++];

		rc = shell_execute(sh, line, NULL);
		if (rc < 0)
			break;
	}
	sh->read_line = outer;
	sh->read_line_ctx = outer_ctx;
	return rc;
}

/* The @lines of an if body up to its `else` (at its own level), and
 * after it. */
static int else_at(char **lines, int n)
{
	int level = 0;

	for (int i = 0; i < n; i++) {
		char w[64];

		word_of(lines[i], w, sizeof(w));
		if (!level && !strcmp(w, "else"))
			return i;
		if (is_end(lines[i]))
			level--;
		else if (opens_block(lines[i]))
			level++;
	}
	return n;
}

/* gdb's truth of a condition: void is false, floating point values are
 * compared with 0 as such, the rest as integers. */
static int truth(struct shell *sh, const char *expr, int *t)
{
	struct ptd_value *v = NULL;
	char *tn = NULL, *txt = NULL;
	uint64_t n;
	int rc;

	if (shell_values_bind(sh) < 0)
		return -1;
	rc = ptd_values_eval(sh->vals, expr, &v);
	if (rc < 0)
		return shell_error("%s", ptd_last_error(rc));
	if (ptd_value_type_name(v, 0, &tn) == 0 &&
	    (!strcmp(tn, "void") || !strcmp(tn, "double") || !strcmp(tn, "float") ||
	     !strcmp(tn, "long double"))) {
		*t = 0;
		if (strcmp(tn, "void") && ptd_value_format(sh->vals, v, 0, 1, &txt) == 0)
			*t = strtod(txt, NULL) != 0;
		free(txt);
		free(tn);
		ptd_value_free(v);
		return 0;
	}
	free(tn);
	rc = ptd_value_as_address(sh->vals, v, &n);
	ptd_value_free(v);
	if (rc < 0)
		return shell_error("%s", ptd_last_error(rc));
	*t = n != 0;
	return 0;
}

int shell_cmd_if(struct shell *sh, const char *args)
{
	char **lines;
	int n, e, t, rc;

	args = ws(args);
	if (!*args)
		return shell_error("if command requires an argument.");
	shell_read_body(sh, 1, &lines, &n);
	e = else_at(lines, n);
	rc = truth(sh, args, &t);
	if (rc == 0) {
		if (t)
			rc = shell_run_body(sh, lines, e);
		else if (e < n)
			rc = shell_run_body(sh, lines + e + 1, n - e - 1);
	}
	shell_free_lines(lines, n);
	return rc;
}

int shell_cmd_while(struct shell *sh, const char *args)
{
	char **lines;
	int n, t, rc, rounds = 0;

	args = ws(args);
	if (!*args)
		return shell_error("while command requires an argument.");
	shell_read_body(sh, 1, &lines, &n);
	sh->loop_depth++;
	for (;;) {
		if (shell_interrupted || (sh->loop_limit && rounds++ >= sh->loop_limit)) {
			shell_interrupted = 0;
			rc = shell_error("Quit");
			break;
		}
		rc = truth(sh, args, &t);
		if (rc < 0 || !t)
			break;
		rc = shell_run_body(sh, lines, n);
		if (sh->loop_ctl == 1) {
			sh->loop_ctl = 0;
			break;
		}
		sh->loop_ctl = 0;
		if (rc < 0 || sh->quit)
			break;
	}
	sh->loop_depth--;
	shell_free_lines(lines, n);
	return rc;
}

/* loop_break, loop_continue: 1, 2 (only inside a while's body) */
int shell_loop_control(struct shell *sh, const char *word)
{
	if (!sh->loop_depth)
		return 0;
	if (!strcmp(word, "loop_break"))
		sh->loop_ctl = 1;
	else if (!strcmp(word, "loop_continue"))
		sh->loop_ctl = 2;
	else
		return 0;
	return 1;
}

/* ------------------------------------------------------------------ */
/* User-defined commands                                                */

static struct user_cmd *find_user(const char *name)
{
	for (int i = 0; i < nucmds; i++)
		if (!strcmp(ucmds[i].name, name))
			return &ucmds[i];
	return NULL;
}

/* A user command named @word exactly, or by a unique prefix when
 * @prefix; NULL otherwise. */
const char *shell_user_command(const char *word, int prefix)
{
	struct user_cmd *u = find_user(word), *found = NULL;
	size_t len = strlen(word);

	if (u)
		return u->name;
	if (!prefix || !len)
		return NULL;
	for (int i = 0; i < nucmds; i++)
		if (!strncmp(ucmds[i].name, word, len)) {
			if (found)
				return NULL;
			found = &ucmds[i];
		}
	return found ? found->name : NULL;
}

const char *shell_user_name(int i)
{
	if (i < 0)
		return NULL;
	if (i < nucmds)
		return ucmds[i].name;
	i -= nucmds;
	return i < naliases ? aliases[i].name : NULL;
}

static int valid_name(const char *name)
{
	for (const char *p = name; *p; p++)
		if (!isalnum((unsigned char)*p) && !strchr("-_.", *p))
			return 0;
	return 1;
}

int shell_cmd_define(struct shell *sh, const char *args)
{
	char name[128], q[256], **lines;
	struct user_cmd *u;
	int n;

	word_of(args, name, sizeof(name));
	if (!name[0])
		return shell_error("Argument required (name of command to define).");
	if (!valid_name(name)) {
		const char *j = name;

		while (isalnum((unsigned char)*j) || strchr("-_.", *j))
			j++;
		return shell_error("Junk in argument list: \"%s\"", j);
	}
	u = find_user(name);
	if (u) {
		snprintf(q, sizeof(q), "Redefine command \"%s\"? ", name);
		if (!shell_query(sh, q))
			return shell_error("Command \"%s\" not redefined.", name);
	} else if (shell_command_full_name(name) && !strcmp(shell_command_full_name(name), name)) {
		snprintf(q, sizeof(q), "Really redefine built-in command \"%s\"? ", name);
		if (!shell_query(sh, q))
			return shell_error("Command \"%s\" not redefined.", name);
	}
	if (!u && (!strncmp(name, "hook-", 5) || !strncmp(name, "hookpost-", 9))) {
		const char *hooked = name + (name[4] == '-' ? 5 : 9);
		const char *full = shell_command_full_name(hooked);

		/* "stop" is no command but hook-stop is gdb's stop hook */
		if ((!full || strcmp(full, hooked)) && !find_user(hooked) &&
		    strcmp(hooked, "stop")) {
			printf("warning: Your new `%s' command does not hook any existing "
			       "command.\n",
			       name);
			if (!shell_query(sh, "Proceed? "))
				return shell_error("Not confirmed.");
		}
	}
	if (sh->from_tty && isatty(STDIN_FILENO))
		printf("Type commands for definition of \"%s\".\n"
		       "End with a line saying just \"end\".\n",
		       name);
	shell_read_body(sh, 0, &lines, &n);
	if (!u) {
		struct user_cmd *nu = realloc(ucmds, (size_t)(nucmds + 1) * sizeof(*nu));

		if (!nu) {
			shell_free_lines(lines, n);
			return shell_error("out of memory");
		}
		ucmds = nu;
		u = &ucmds[nucmds++];
		memset(u, 0, sizeof(*u));
		u->name = strdup(name);
		/* gdb keeps commands sorted: show user lists them so */
		for (int i = nucmds - 1; i > 0 && strcmp(ucmds[i - 1].name, ucmds[i].name) > 0;
		     i--) {
			struct user_cmd t = ucmds[i];

			ucmds[i] = ucmds[i - 1];
			ucmds[i - 1] = t;
		}
		u = find_user(name);
	} else {
		shell_free_lines(u->lines, u->n);
	}
	u->lines = lines;
	u->n = n;
	return 0;
}

int shell_cmd_document(struct shell *sh, const char *args)
{
	char name[128], **lines;
	struct user_cmd *u;
	int n;

	word_of(args, name, sizeof(name));
	if (!name[0])
		return shell_error("Argument required (name of command to define).");
	u = find_user(name);
	if (!u) {
		if (shell_command_full_name(name))
			return shell_error("Command \"%s\" is built-in.", name);
		return shell_error("Undefined command: \"%s\".", name);
	}
	if (sh->from_tty && isatty(STDIN_FILENO))
		printf("Type documentation for \"%s\".\n"
		       "End with a line saying just \"end\".\n",
		       name);
	read_lines(sh, 0, 1, &lines, &n);
	shell_free_lines(u->doc, u->ndoc);
	u->doc = lines;
	u->ndoc = n;
	return 0;
}

int shell_user_help(const char *name)
{
	struct user_cmd *u = find_user(name);

	if (!u)
		return 0;
	if (!u->ndoc)
		printf("User-defined.\n");
	for (int i = 0; i < u->ndoc; i++)
		printf("%s\n", u->doc[i]);
	return 1;
}

void shell_print_lines(FILE *f, char **lines, int n, int indent)
{
	int level = 0;

	for (int i = 0; i < n; i++) {
		const char *t = ws(lines[i]);
		char w[64];
		int here;

		word_of(t, w, sizeof(w));
		if (is_end(t))
			level--;
		here = level - (!strcmp(w, "else") ? 1 : 0);
		fprintf(f, "%*s%s\n", indent + 2 * (here > 0 ? here : 0), "", t);
		if (opens_block(t))
			level++;
	}
}

void shell_help_user_defined(void)
{
	printf("User-defined commands.\n"
	       "The commands in this class are those defined by the user.\n"
	       "Use the \"define\" command to define a command.\n\n"
	       "List of commands:\n\n");
	for (int i = 0; i < nucmds; i++)
		printf("%s -- %s\n", ucmds[i].name,
		       ucmds[i].ndoc ? ucmds[i].doc[0] : "User-defined.");
	printf("\nType \"help\" followed by command name for full documentation.\n"
	       "Type \"apropos word\" to search for commands related to \"word\".\n"
	       "Type \"apropos -v word\" for full documentation of commands related to "
	       "\"word\".\n"
	       "Command name abbreviations are allowed if unambiguous.\n");
}

static void show_one(struct user_cmd *u)
{
	printf("User command \"%s\":\n", u->name);
	shell_print_lines(stdout, u->lines, u->n, 2);
	if (u->n)
		printf("\n");
}

int shell_show_user(struct shell *sh, const char *args)
{
	char name[128];

	(void)sh;
	word_of(args, name, sizeof(name));
	if (name[0]) {
		struct user_cmd *u = find_user(name);

		if (!u) {
			if (shell_command_full_name(name))
				return shell_error("Not a user command.");
			return shell_error("Undefined command: \"%s\".  Try \"help\".", name);
		}
		show_one(u);
		return 0;
	}
	for (int i = 0; i < nucmds; i++)
		show_one(&ucmds[i]);
	return 0;
}

int shell_cmd_dont_repeat(struct shell *sh, const char *args)
{
	(void)args;
	sh->dont_repeat = 1;
	return 0;
}

/* The arguments of the user commands running, innermost last. */
#define MAX_USER_DEPTH 1024
#define MAX_USER_ARGS 256
struct user_args {
	char *args[MAX_USER_ARGS];
	int argc;
};

static struct user_args *arg_stack[MAX_USER_DEPTH];
static int arg_depth;

/* Splits @args as gdb: at blanks outside quotes; a backslash keeps the
 * next character. */
static void split_args(const char *args, struct user_args *ua)
{
	const char *p = ws(args);

	while (*p && ua->argc < MAX_USER_ARGS) {
		const char *s = p;
		int sq = 0, dq = 0, bs = 0;

		while (*p) {
			if (bs)
				bs = 0;
			else if (*p == '\\')
				bs = 1;
			else if (*p == '\'' && !dq)
				sq = !sq;
			else if (*p == '"' && !sq)
				dq = !dq;
			else if (isspace((unsigned char)*p) && !sq && !dq)
				break;
			p++;
		}
		ua->args[ua->argc++] = strndup(s, (size_t)(p - s));
		p = ws(p);
	}
}

char *shell_subst_args(const char *line)
{
	struct user_args *ua;
	size_t cap, len = 0;
	char *out;
	const char *p;

	if (!arg_depth || !strstr(line, "$arg"))
		return NULL;
	ua = arg_stack[arg_depth - 1];
	cap = strlen(line) + 64;
	out = malloc(cap);
	if (!out)
		return NULL;
	for (p = line; *p;) {
		const char *rep = NULL;
		char num[16];
		size_t skip = 0;

		/* (as gdb: "$arg12x" is argument 12 then "x") */
		if (!strncmp(p, "$argc", 5)) {
			snprintf(num, sizeof(num), "%d", ua->argc);
			rep = num;
			skip = 5;
		} else if (!strncmp(p, "$arg", 4) && isdigit((unsigned char)p[4])) {
			char *e;
			long k = strtol(p + 4, &e, 10);

			skip = (size_t)(e - p);
			if (k >= ua->argc) {
				free(out);
				shell_error("Missing argument %ld in user function.", k);
				return (char *)-1;
			}
			rep = ua->args[k];
		}
		if (rep) {
			size_t r = strlen(rep);
			char *no;

			if (len + r + strlen(p) + 1 > cap) {
				cap = len + r + strlen(p) + 64;
				no = realloc(out, cap);
				if (!no) {
					free(out);
					return NULL;
				}
				out = no;
			}
			memcpy(out + len, rep, r);
			len += r;
			p += skip;
		} else {
			if (len + 2 > cap) {
				cap = cap * 2;
				char *no = realloc(out, cap);

				if (!no) {
					free(out);
					return NULL;
				}
				out = no;
			}
			out[len++] = *p++;
		}
	}
	out[len] = '\0';
	return out;
}

int shell_run_user(struct shell *sh, const char *name, const char *args)
{
	struct user_cmd *u = find_user(name);
	struct user_args *ua;
	char **copy;
	int n, rc, outer_loop;

	if (!u)
		return shell_error("Undefined command: \"%s\".  Try \"help\".", name);
	if (arg_depth >= MAX_USER_DEPTH)
		return shell_error("Max user call depth exceeded -- command aborted.");
	/* (on the heap: 1024 nested calls would take much stack) */
	ua = calloc(1, sizeof(*ua));
	if (!ua)
		return shell_error("out of memory");
	split_args(args, ua);
	/* a copy: the command may redefine itself */
	n = u->n;
	copy = calloc((size_t)n + 1, sizeof(*copy));
	for (int i = 0; copy && i < n; i++)
		copy[i] = strdup(u->lines[i]);
	arg_stack[arg_depth++] = ua;
	outer_loop = sh->loop_depth;
	sh->loop_depth = 0; /* loop_break does not leave the command */
	int saved_tty = sh->from_tty;

	sh->from_tty = 0;
	rc = copy ? shell_run_body(sh, copy, n) : shell_error("out of memory");
	sh->from_tty = saved_tty;
	sh->loop_depth = outer_loop;
	sh->loop_ctl = 0;
	arg_depth--;
	for (int i = 0; i < ua->argc; i++)
		free(ua->args[i]);
	free(ua);
	shell_free_lines(copy, n);
	return rc;
}

void shell_run_hook(struct shell *sh, const char *kind, const char *cmd)
{
	static int in_hook;
	char name[160];

	if (in_hook)
		return;
	snprintf(name, sizeof(name), "%s-%s", kind, cmd);
	if (!find_user(name))
		return;
	in_hook = 1;
	shell_run_user(sh, name, "");
	in_hook = 0;
}

/* ------------------------------------------------------------------ */
/* alias                                                                */

const char *shell_alias_expansion(const char *word)
{
	for (int i = 0; i < naliases; i++)
		if (!strcmp(aliases[i].name, word))
			return aliases[i].expansion;
	return NULL;
}

int shell_cmd_alias(struct shell *sh, const char *args)
{
	static const char usage[] = "Usage: alias [-a] [--] ALIAS = COMMAND [DEFAULT-ARGS...]";
	char name[128], cmdw[128];
	const char *p = ws(args), *eq, *rest;
	size_t len;

	(void)sh;
	while (*p == '-') {
		if (!strncmp(p, "-a", 2) && (!p[2] || isspace((unsigned char)p[2])))
			p = ws(p + 2);
		else if (!strncmp(p, "--", 2) && (!p[2] || isspace((unsigned char)p[2]))) {
			p = ws(p + 2);
			break;
		} else {
			return shell_error("Unrecognized option at: %s", p);
		}
	}
	eq = strchr(p, '=');
	if (!eq)
		return shell_error("%s", usage);
	len = (size_t)(eq - p);
	while (len && isspace((unsigned char)p[len - 1]))
		len--;
	if (!len || len >= sizeof(name))
		return shell_error("%s", usage);
	memcpy(name, p, len);
	name[len] = '\0';
	rest = ws(eq + 1);
	if (!*rest)
		return shell_error("%s", usage);
	for (char *q = name; *q; q++)
		if (isspace((unsigned char)*q)) {
			/* gdb: the words but the last must be the command's */
			const char *r = rest;
			int nw = 0, nc = 0;

			for (const char *t = name; *t; nw++) {
				while (*t && !isspace((unsigned char)*t))
					t++;
				t = ws(t);
			}
			while (*r) {
				nc++;
				while (*r && !isspace((unsigned char)*r))
					r++;
				r = ws(r);
			}
			if (nw != nc)
				return shell_error(
					"Mismatched command length between ALIAS and COMMAND.");
			return shell_error("ptdbg: an alias of a subcommand is not supported");
		}
	if (!valid_name(name))
		return shell_error("Invalid command name: %s", name);
	word_of(rest, cmdw, sizeof(cmdw));
	if (!shell_command_full_name(cmdw) && !shell_user_command(cmdw, 0) &&
	    !shell_alias_expansion(cmdw))
		return shell_error("Undefined command: \"%s\".  Try \"help\".", cmdw);
	if (shell_alias_expansion(name) || shell_command_is_alias(name))
		return shell_error("Alias already exists: %s", name);
	{
		const char *t = shell_alias_expansion(cmdw), *d = t;

		/* (an alias of an alias: its default arguments are its own) */
		while (d && *d && !isspace((unsigned char)*d))
			d++;
		if (d && *ws(d))
			return shell_error(
				"Cannot define an alias of an alias that has default args");
	}
	{
		const char *full = shell_command_full_name(name);

		if ((full && !strcmp(full, name)) || find_user(name))
			return shell_error("Alias %s is the name of an existing command", name);
	}
	{
		struct alias *na = realloc(aliases, (size_t)(naliases + 1) * sizeof(*na));
		const char *target;
		char *exp;

		if (!na)
			return shell_error("out of memory");
		aliases = na;
		target = shell_alias_expansion(cmdw);
		/* an alias of an alias is one of its command */
		if (target) {
			const char *r = word_of(rest, cmdw, sizeof(cmdw));

			if (asprintf(&exp, "%s%s%s", target, *r ? " " : "", r) < 0)
				exp = NULL;
		} else {
			exp = strdup(rest);
		}
		aliases[naliases].name = strdup(name);
		aliases[naliases].expansion = exp;
		naliases++;
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* set logging                                                          */

static struct {
	char *file; /* NULL: gdb.txt */
	int overwrite, redirect, debugredirect;
	int on;
	FILE *log;
	char *cur;	 /* the file logged to now */
	FILE *out, *err; /* the streams replaced */
	FILE *tee_out, *tee_err;
} lg;

struct tee {
	FILE *screen; /* NULL: redirected */
};

static ssize_t tee_write(void *cookie, const char *buf, size_t n)
{
	struct tee *t = cookie;

	if (t->screen) {
		fwrite(buf, 1, n, t->screen);
		fflush(t->screen);
	}
	if (lg.log) {
		fwrite(buf, 1, n, lg.log);
		fflush(lg.log);
	}
	return (ssize_t)n;
}

static int tee_close(void *cookie)
{
	free(cookie);
	return 0;
}

static FILE *tee_open(FILE *screen)
{
	cookie_io_functions_t io = {NULL, tee_write, NULL, tee_close};
	struct tee *t = calloc(1, sizeof(*t));
	FILE *f;

	if (!t)
		return NULL;
	t->screen = screen;
	f = fopencookie(t, "w", io);
	if (!f) {
		free(t);
		return NULL;
	}
	setvbuf(f, NULL, _IOLBF, 0);
	return f;
}

static const char *log_name(void)
{
	return lg.file ? lg.file : "gdb.txt";
}

static int logging_start(struct shell *sh)
{
	FILE *f;

	if (lg.on) {
		printf("Already logging to %s.\n", lg.cur ? lg.cur : log_name());
		return 0;
	}
	f = fopen(log_name(), lg.overwrite ? "w" : "a");
	if (!f)
		return shell_error("%s: %s.", log_name(), strerror(errno));
	if (sh->from_tty) {
		printf("%s output to %s.\n", lg.redirect ? "Redirecting" : "Copying", log_name());
		printf("%s debug output to %s.\n", lg.debugredirect ? "Redirecting" : "Copying",
		       log_name());
	}
	fflush(stdout);
	fflush(stderr);
	lg.log = f;
	free(lg.cur);
	lg.cur = strdup(log_name());
	lg.out = stdout;
	lg.err = stderr;
	lg.tee_out = tee_open(lg.redirect ? NULL : lg.out);
	lg.tee_err = tee_open(lg.redirect ? NULL : lg.err);
	if (!lg.tee_out || !lg.tee_err) {
		if (lg.tee_out)
			fclose(lg.tee_out);
		if (lg.tee_err)
			fclose(lg.tee_err);
		fclose(f);
		lg.log = NULL;
		return shell_error("out of memory");
	}
	stdout = lg.tee_out;
	stderr = lg.tee_err;
	sh->pc.out = stdout;
	lg.on = 1;
	return 0;
}

static void logging_stop(struct shell *sh)
{
	if (!lg.on)
		return;
	fflush(stdout);
	fflush(stderr);
	stdout = lg.out;
	stderr = lg.err;
	sh->pc.out = stdout;
	fclose(lg.tee_out);
	fclose(lg.tee_err);
	fclose(lg.log);
	lg.log = NULL;
	lg.on = 0;
	if (sh->from_tty)
		printf("Done logging to %s.\n", lg.cur ? lg.cur : log_name());
	free(lg.cur);
	lg.cur = NULL;
}

/* on/off as gdb's boolean settings (no argument: on); -1 after the error */
static int parse_bool(const char *a)
{
	static const char *const yes[] = {"on", "1", "yes", "enable", NULL};
	static const char *const no[] = {"off", "0", "no", "disable", NULL};
	size_t n = strlen(a);

	if (!n)
		return 1;
	for (int i = 0; yes[i]; i++)
		if (!strncmp(yes[i], a, n))
			return 1;
	for (int i = 0; no[i]; i++)
		if (!strncmp(no[i], a, n))
			return 0;
	return shell_error("\"on\" or \"off\" expected.");
}

static void warn_changed(void)
{
	if (lg.on)
		printf("warning: Currently logging to %s.  Turn the logging off and on to make "
		       "the new setting effective.\n",
		       lg.cur ? lg.cur : log_name());
}

static const char *const logging_subs[] = {"debugredirect", "enabled",	"file",
					   "overwrite",	    "redirect", NULL};

static const char *const logging_help[] = {
	"Set the logging debug output mode.",
	"Enable logging.",
	"Set the current logfile.",
	"Set whether logging overwrites or appends to the log file.",
	"Set the logging output mode.",
};

/* The subcommand @w abbreviates, or NULL after gdb's error (@args: the
 * whole argument, which gdb's ambiguity message quotes).  set has gdb
 * 13's deprecated on and off besides. */
static const char *logging_sub(const char *w, const char *args, const char *what)
{
	static const char *const set_names[] = {"debugredirect", "enabled",  "file", "off", "on",
						"overwrite",	 "redirect", NULL};
	const char *const *names = !strcmp(what, "set") ? set_names : logging_subs;
	const char *found = NULL;
	char list[256];
	size_t n = strlen(w), used = 0;
	int nfound = 0;

	list[0] = '\0';
	for (int i = 0; names[i]; i++) {
		if (!strcmp(names[i], w))
			return names[i];
		if (!strncmp(names[i], w, n)) {
			used += (size_t)snprintf(list + used, sizeof(list) - used, "%s%s",
						 nfound ? ", " : "", names[i]);
			if (used >= sizeof(list))
				used = sizeof(list) - 1;
			found = names[i];
			nfound++;
		}
	}
	if (nfound > 1) {
		shell_error("Ambiguous %s logging command \"%s\": %s.", what, args, list);
		return NULL;
	}
	if (!found)
		shell_error("Undefined %s logging command: \"%s\".  Try \"help %s logging\".", what,
			    w, what);
	return found;
}

int shell_set_logging(struct shell *sh, const char *args)
{
	char w[64];
	const char *rest = word_of(args, w, sizeof(w)), *sub;
	int b;

	if (!w[0]) {
		printf("List of set logging subcommands:\n\n");
		for (int i = 0; logging_subs[i]; i++)
			printf("set logging %s -- %s\n", logging_subs[i], logging_help[i]);
		printf("\nType \"help set logging\" followed by set logging subcommand name for "
		       "full documentation.\n"
		       "Type \"apropos word\" to search for commands related to \"word\".\n"
		       "Type \"apropos -v word\" for full documentation of commands related to "
		       "\"word\".\n"
		       "Command name abbreviations are allowed if unambiguous.\n");
		return 0;
	}
	sub = logging_sub(w, ws(args), "set");
	if (!sub)
		return -1;
	if (!strcmp(sub, "on") || !strcmp(sub, "off")) {
		/* gdb 13's deprecated forms of "enabled on" and "enabled
		 * off", taking no argument; each warned of once, as gdb */
		static int warned[2];
		int k = !strcmp(sub, "on");

		if (!warned[k])
			printf("Warning: 'set logging %s', an alias for the command 'set logging "
			       "enabled', is deprecated.\nUse 'set logging enabled %s'.\n\n",
			       sub, sub);
		warned[k] = 1;
		if (*rest)
			return shell_error("\"on\" or \"off\" expected.");
		if (k)
			return logging_start(sh);
		logging_stop(sh);
		return 0;
	}
	if (!strcmp(sub, "file")) {
		if (!*rest)
			return shell_error("Argument required (filename to set it to.).");
		/* (gdb says nothing of a new file while logging) */
		free(lg.file);
		lg.file = strdup(rest);
		return 0;
	}
	b = parse_bool(rest);
	if (b < 0)
		return -1;
	if (!strcmp(sub, "enabled")) {
		if (b)
			return logging_start(sh);
		logging_stop(sh);
		return 0;
	}
	if (!strcmp(sub, "overwrite"))
		lg.overwrite = b;
	else if (!strcmp(sub, "redirect"))
		lg.redirect = b;
	else
		lg.debugredirect = b;
	warn_changed();
	return 0;
}

static void show_logging_one(const char *sub, int prefix)
{
	const char *p = prefix ? "logging " : "";
	const char *sep = prefix ? ":  " : "";

	if (!strcmp(sub, "debugredirect"))
		printf("%s%s%s%s: Debug output will go %s.\n", p, prefix ? sub : "", sep,
		       lg.debugredirect ? "on" : "off",
		       lg.debugredirect ? "only to the log file"
					: "to both the screen and the log file");
	else if (!strcmp(sub, "enabled"))
		printf("%s%s%s%s: Logging is %s.\n", p, prefix ? sub : "", sep,
		       lg.on ? "on" : "off", lg.on ? "enabled" : "disabled");
	else if (!strcmp(sub, "file"))
		printf("%s%s%sThe current logfile is \"%s\".\n", p, prefix ? sub : "", sep,
		       log_name());
	else if (!strcmp(sub, "overwrite"))
		printf("%s%s%s%s: Logging %s the log file.\n", p, prefix ? sub : "", sep,
		       lg.overwrite ? "on" : "off", lg.overwrite ? "overwrites" : "appends to");
	else
		printf("%s%s%s%s: Output will go %s.\n", p, prefix ? sub : "", sep,
		       lg.redirect ? "on" : "off",
		       lg.redirect ? "only to the log file"
				   : "to both the screen and the log file");
}

int shell_show_logging(struct shell *sh, const char *args)
{
	char w[64];
	const char *sub;

	(void)sh;
	word_of(args, w, sizeof(w));
	if (!w[0]) {
		for (int i = 0; logging_subs[i]; i++)
			show_logging_one(logging_subs[i], 1);
		return 0;
	}
	sub = logging_sub(w, ws(args), "show");
	if (!sub)
		return -1;
	show_logging_one(sub, 0);
	return 0;
}

void shell_cliscript_release(struct shell *sh)
{
	logging_stop(sh);
	for (int i = 0; i < nucmds; i++) {
		free(ucmds[i].name);
		shell_free_lines(ucmds[i].lines, ucmds[i].n);
		shell_free_lines(ucmds[i].doc, ucmds[i].ndoc);
	}
	free(ucmds);
	ucmds = NULL;
	nucmds = 0;
	for (int i = 0; i < naliases; i++) {
		free(aliases[i].name);
		free(aliases[i].expansion);
	}
	free(aliases);
	aliases = NULL;
	naliases = 0;
	free(lg.file);
	lg.file = NULL;
}
