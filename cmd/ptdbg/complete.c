/*
 * Tab completion for the shell's readline: command names at the start of
 * a line, subcommands after info/set/show/record and help, the values of
 * settings (set record ..., set breakpoint pending, on/off; with SETTING
 * as set), symbols after the commands that take a location or expression
 * (break, until, advance, jump, list, print, watch, info scope...), signal
 * names after handle/signal/info signals, and file names after file,
 * source, tty and the like.
 *
 * shell_complete() gathers the candidates for the word being typed (a
 * sorted list without duplicates); shell_rl_complete() hands them to
 * readline.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include <readline/readline.h>

#include "breakcmds.h"
#include "complete.h"
#include "ptdbg/ptdbg.h"

struct cands {
	char **v;
	size_t n, cap;
	const char *prefix;
	size_t plen;
};

static void add(void *ctx, const char *name)
{
	struct cands *c = ctx;
	char *d;

	if (strncmp(name, c->prefix, c->plen))
		return;
	if (c->n == c->cap) {
		size_t cap = c->cap ? 2 * c->cap : 64;
		char **v = realloc(c->v, cap * sizeof(*v));
		if (!v)
			return;
		c->v = v;
		c->cap = cap;
	}
	d = strdup(name);
	if (d)
		c->v[c->n++] = d;
}

static int cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void add_list(struct cands *c, const char *const *list)
{
	for (; *list; list++)
		add(c, *list);
}

static const char *const on_off[] = { "on", "off", NULL };
static const char *const record_settings[] = {
	"instruction-history-size", "function-call-history-size", "soft", "step", "pt", "bts", NULL,
};
static const char *const method_settings[] = {
	"buffer-size", "buffer", "kernel", "ret-compression", "tsc", "mtc", "cyc", "psb-period",
	"filter", NULL,
};
static const char *const frame_args_words[] = { "all", "scalars", "none", "presence", NULL };
static const char *const handle_words[] = {
	"stop", "nostop", "print", "noprint", "pass", "nopass", "all", NULL,
};

/* Commands whose argument is a location or an expression: symbols. */
static int takes_symbol(const char *cmd)
{
	static const char *const v[] = {
		"break", "tbreak", "until", "advance", "jump", "list", "disassemble", "print",
		"display", "x", "watch", "rwatch", "awatch", "condition", NULL,
	};

	for (int i = 0; v[i]; i++)
		if (!strcmp(cmd, v[i]))
			return 1;
	return 0;
}

static int takes_file(const char *cmd)
{
	return !strcmp(cmd, "file") || !strcmp(cmd, "source") || !strcmp(cmd, "run") ||
	       !strcmp(cmd, "start") || !strcmp(cmd, "starti") || !strcmp(cmd, "tty");
}

static void add_signals(struct cands *c)
{
	static const char *const names[] = {
		"SIGHUP", "SIGINT", "SIGQUIT", "SIGILL", "SIGTRAP", "SIGABRT", "SIGBUS", "SIGFPE",
		"SIGKILL", "SIGUSR1", "SIGSEGV", "SIGUSR2", "SIGPIPE", "SIGALRM", "SIGTERM",
		"SIGSTKFLT", "SIGCHLD", "SIGCONT", "SIGSTOP", "SIGTSTP", "SIGTTIN", "SIGTTOU",
		"SIGURG", "SIGXCPU", "SIGXFSZ", "SIGVTALRM", "SIGPROF", "SIGWINCH", "SIGIO",
		"SIGPWR", "SIGSYS", NULL,
	};

	add_list(c, names);
}

int shell_complete(struct shell *sh, const char *line, int start, const char *text,
		   char ***out, size_t *n)
{
	struct cands c = { NULL, 0, 0, text, strlen(text) };
	char words[3][64];
	int nw = 0, files = 0;
	const char *p = line, *cmd;

	/* the words before the one being completed */
	while (p < line + start && nw < 3) {
		size_t k = 0;

		while (p < line + start && isspace((unsigned char)*p))
			p++;
		if (p >= line + start)
			break;
		while (p < line + start && !isspace((unsigned char)*p) && k + 1 < sizeof(words[0]))
			words[nw][k++] = *p++;
		while (p < line + start && !isspace((unsigned char)*p))
			p++;
		words[nw][k] = 0;
		nw++;
	}
	if (nw == 0) {
		const char *name;

		for (int i = 0; (name = shell_command_name(i)); i++)
			add(&c, name);
		goto done;
	}
	cmd = shell_command_full_name(words[0]);
	if (!cmd)
		goto done;
	/* with SETTING [VALUE] -- COMMAND: a setting as set takes it, then
	 * after "--" a command line */
	if (!strcmp(cmd, "with")) {
		int dashes = -1;

		for (int i = 1; i < nw; i++)
			if (!strcmp(words[i], "--"))
				dashes = i;
		if (dashes > 0 || nw > 3)
			goto done;
		if (nw == 1) {
			const char *name;

			for (int i = 0; (name = shell_subcommand_name("set", i)); i++)
				if (strcmp(name, "variable") && strcmp(name, "environment"))
					add(&c, name);
			goto done;
		}
		cmd = "set";
	}
	if (!strcmp(cmd, "help") && nw == 1) {
		const char *name;

		for (int i = 0; (name = shell_command_name(i)); i++)
			add(&c, name);
	} else if ((!strcmp(cmd, "info") || !strcmp(cmd, "set") || !strcmp(cmd, "show") ||
		    !strcmp(cmd, "record")) && nw == 1) {
		const char *name;

		for (int i = 0; (name = shell_subcommand_name(words[0], i)); i++)
			add(&c, name);
	} else if (!strcmp(cmd, "info") && nw == 2 &&
		   (!strcmp(words[1], "signals") || !strcmp(words[1], "handle"))) {
		add_signals(&c);
	} else if (!strcmp(cmd, "info") && nw == 2 &&
		   (!strcmp(words[1], "line") || !strcmp(words[1], "scope"))) {
		ptd_session_symbol_names(sh->s, text, add, &c);
	} else if ((!strcmp(cmd, "set") || !strcmp(cmd, "show")) && nw >= 2) {
		if (!strcmp(words[1], "record") && nw == 2) {
			add_list(&c, record_settings);
			add(&c, "stop-at-thread-exit");
		}
		else if (!strcmp(words[1], "record") && nw == 3 &&
			 (!strcmp(words[2], "pt") || !strcmp(words[2], "bts") ||
			  !strcmp(words[2], "soft") || !strcmp(words[2], "step")))
			add_list(&c, method_settings);
		else if (!strcmp(words[1], "breakpoint") && nw == 2)
			add(&c, "pending");
		else if (!strcmp(words[1], "print") && nw == 2) {
			add(&c, "frame-arguments");
			add(&c, "pretty");
			add(&c, "elements");
		} else if (!strcmp(words[1], "print") && nw == 3 && !strcmp(cmd, "set") &&
			   !strcmp(words[2], "pretty"))
			add_list(&c, on_off);
		else if (!strcmp(words[1], "print") && nw == 3 && !strcmp(cmd, "set") &&
			 !strcmp(words[2], "frame-arguments"))
			add_list(&c, frame_args_words);
		else if (!strcmp(words[1], "breakpoint") && nw == 3 && !strcmp(cmd, "set")) {
			add_list(&c, on_off);
			add(&c, "auto");
		} else if (nw == 2 && !strcmp(cmd, "set") &&
			   (!strcmp(words[1], "confirm") || !strcmp(words[1], "pin-cpu") ||
			    !strcmp(words[1], "disable-randomization") ||
			    !strcmp(words[1], "pagination")))
			add_list(&c, on_off);
		else if (nw == 2 && (!strcmp(words[1], "args") || !strcmp(words[1], "inferior-tty")))
			files = 1;
	} else if (!strcmp(cmd, "handle")) {
		add_signals(&c);
		if (nw >= 2)
			add_list(&c, handle_words);
	} else if (!strcmp(cmd, "signal") && nw == 1) {
		add_signals(&c);
	} else if (takes_symbol(cmd)) {
		ptd_session_symbol_names(sh->s, text, add, &c);
	} else if (takes_file(cmd)) {
		files = 1;
	}
done:
	if (c.n)
		qsort(c.v, c.n, sizeof(*c.v), cmp);
	/* unique */
	if (c.n) {
		size_t k = 1;

		for (size_t i = 1; i < c.n; i++) {
			if (strcmp(c.v[i], c.v[k - 1]))
				c.v[k++] = c.v[i];
			else
				free(c.v[i]);
		}
		c.n = k;
	}
	*out = c.v;
	*n = c.n;
	return files;
}

void shell_complete_free(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

/* ---- readline ------------------------------------------------------------------------- */

static struct shell *rl_sh;
static char **rl_v;
static size_t rl_n, rl_i;

static char *gen(const char *text, int state)
{
	(void)text;
	if (!state)
		rl_i = 0;
	return rl_i < rl_n ? strdup(rl_v[rl_i++]) : NULL;
}

static char **shell_rl_complete(const char *text, int start, int end)
{
	char **m;
	int files;

	(void)end;
	rl_attempted_completion_over = 1;
	if (!rl_sh)
		return NULL;
	shell_complete_free(rl_v, rl_n);
	rl_v = NULL;
	rl_n = 0;
	files = shell_complete(rl_sh, rl_line_buffer, start, text, &rl_v, &rl_n);
	if (files && !rl_n) {
		/* readline's own file name completion */
		rl_attempted_completion_over = 0;
		return NULL;
	}
	m = rl_completion_matches(text, gen);
	return m;
}

void shell_complete_init(struct shell *sh)
{
	rl_sh = sh;
	rl_attempted_completion_function = shell_rl_complete;
	/* "file:line" and "*addr" are one word */
	rl_completer_word_break_characters = (char *)" \t\n\"'`@$><=;|&{(,";
}
