#define _REGEX_RE_COMP
/*
 * The commands of the ptdbg shell: a const table {name, min-abbrev,
 * handler, flags, help} per command level (top, info, record, set, show),
 * resolved with gdb's rules (exact name or alias, then an abbreviation of
 * at least min-abbrev characters, then a unique prefix), and the handlers.
 *
 * Handlers parse arguments, call src/session and print through print.c.
 * Stepping, reverse execution and `record goto` are single session calls:
 * no motion logic lives here.  Messages copy gdb 13's wording where a gdb
 * user or script would look for it.
 */
#include <ctype.h>
#include <errno.h>
#include <regex.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "ptdbg/ptdbg.h"
#include "shell.h"
#include "breakcmds.h"

#define NO_SYMTAB "No symbol table is loaded.  Use the \"file\" command."

typedef int (*cmd_fn)(struct shell *sh, const char *args);

enum cmd_flags {
	CMD_REPEAT = 1 << 0, /* an empty line repeats it */
	CMD_ALIAS = 1 << 1,  /* not listed by help and ambiguity messages */
};

struct cmd {
	const char *name;
	int min;          /* abbreviations of at least this many chars always match */
	cmd_fn fn;
	unsigned flags;
	const char *help; /* for aliases: the command they stand for */
};

/* The lines of the sourced files (-x, source, nested) being run: gdb
 * names each, outermost first, before the error that ends them. */
#define SRC_NEST 16
static struct {
	const char *file;
	int line, told;
} src_stack[SRC_NEST];
static int src_depth;
static int src_verbose; /* the next shell_source echoes its commands (source -v) */

const char *shell_error_prefix;

int shell_error(const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	for (int i = 0; i < src_depth && i < SRC_NEST; i++)
		if (!src_stack[i].told) {
			fprintf(stderr, "%s:%d: Error in sourced command file:\n", src_stack[i].file,
				src_stack[i].line);
			src_stack[i].told = 1;
		}
	if (shell_error_prefix) {
		char *msg = NULL;
		const char *rest;
		int len;

		va_start(ap, fmt);
		len = vasprintf(&msg, fmt, ap);
		va_end(ap);
		/* a Python function's exception line comes before the prefix
		 * in gdb (Python printed it as it happened) */
		rest = len >= 0 && !strncmp(msg, "Python Exception <", 18) ? strchr(msg, '\n') : NULL;
		if (rest)
			fprintf(stderr, "%.*s\n", (int)(rest - msg), msg);
		fprintf(stderr, "%s\n", shell_error_prefix);
		shell_error_prefix = NULL;
		if (len >= 0) {
			fprintf(stderr, "%s\n", rest ? rest + 1 : msg);
			fflush(stderr);
			free(msg);
			return -1;
		}
	}
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	fflush(stderr);
	return -1;
}

static const char *skipws(const char *p)
{
	while (p && isspace((unsigned char)*p))
		p++;
	return p ? p : "";
}

/* Splits the first word of @line into @word; returns the rest, trimmed. */
static const char *first_word(const char *line, char *word, size_t n)
{
	size_t i = 0;

	line = skipws(line);
	while (*line && !isspace((unsigned char)*line) && i + 1 < n)
		word[i++] = *line++;
	word[i] = '\0';
	while (*line && !isspace((unsigned char)*line))
		line++;
	return skipws(line);
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/*
 * Finds @word in @tab.  Returns the entry, or NULL after printing gdb's
 * "Undefined"/"Ambiguous" message built from @what ("" for the top level,
 * "info " for info subcommands) and @help_hint.
 */
static const struct cmd *lookup(const struct cmd *tab, const char *word, const char *what,
				const char *help_hint, int quiet)
{
	const struct cmd *c, *found = NULL;
	const char *names[64];
	size_t len = strlen(word), nmatch = 0, i;
	char list[1024];
	size_t used = 0;

	for (c = tab; c->name; c++)
		if (!strcmp(c->name, word))
			return c;
	for (c = tab; c->name; c++)
		if (c->min && len >= (size_t)c->min && !strncmp(c->name, word, len))
			return c;
	for (c = tab; c->name; c++) {
		if (strncmp(c->name, word, len))
			continue;
		if (!found || (c->fn != found->fn)) {
			if (nmatch < sizeof(names) / sizeof(names[0]))
				names[nmatch] = c->name;
			nmatch++;
		}
		if (!found)
			found = c;
	}
	if (nmatch == 1 && len)
		return found;
	if (quiet)
		return NULL;
	if (nmatch > 1 && len) {
		qsort(names, nmatch, sizeof(names[0]), name_cmp);
		list[0] = '\0';
		for (i = 0; i < nmatch && used < sizeof(list); i++)
			used += (size_t)snprintf(list + used, sizeof(list) - used, "%s%s",
						 i ? ", " : "", names[i]);
		shell_error("Ambiguous %scommand \"%s\": %s.", what, word, list);
		return NULL;
	}
	shell_error("Undefined %scommand: \"%s\".  Try \"help%s%.*s\".", what, word,
		    help_hint[0] ? " " : "", (int)strlen(help_hint), help_hint);
	return NULL;
}

/* ------------------------------------------------------------------ */
/* Helpers                                                              */

/*
 * Asks a yes/no question as gdb's query() does: with "set confirm off" the
 * answer is yes; when commands do not come from a terminal gdb prints the
 * question with "[answered Y; input not from terminal]" and goes on, and
 * so do we, so batch output matches gdb's.  Returns 1 for yes.
 */
static int query(struct shell *sh, const char *question)
{
	char line[64];

	if (!sh->confirm)
		return 1;
	if (sh->batch || !isatty(0)) {
		printf("%s(y or n) [answered Y; input not from terminal]\n", question);
		return 1;
	}
	for (;;) {
		printf("%s(y or n) ", question);
		fflush(stdout);
		if (!fgets(line, sizeof(line), stdin)) {
			printf("EOF [answered Y; input not from terminal]\n");
			return 1;
		}
		if (line[0] == 'y' || line[0] == 'Y')
			return 1;
		if (line[0] == 'n' || line[0] == 'N')
			return 0;
		printf("Please answer y or n.\n");
	}
}

int shell_query(struct shell *sh, const char *question)
{
	return query(sh, question);
}

static int require_process(struct shell *sh)
{
	if (!ptd_session_alive(sh->s))
		return shell_error("The program is not being run.");
	return 0;
}

static int require_recording(struct shell *sh)
{
	if (ptd_session_offline(sh->s))
		return 0; /* a loaded trace bundle */
	if (!ptd_session_alive(sh->s) || !ptd_session_recording(sh->s))
		return shell_error("No recording is currently active.\n"
				   "Use the \"record\" or \"record step\" command first.");
	return 0;
}

static int is_main(struct shell *sh, uint64_t pc)
{
	struct ptd_symbol sym;

	return sh->pc.sym && ptd_symbols_lookup(sh->pc.sym, pc, &sym) >= 0 && sym.name &&
	       !strcmp(sym.name, "main");
}

static int session_error(int rc, const char *fallback)
{
	const char *msg = ptd_last_error(rc);

	if (rc == -ptde_not_running || rc == -ptde_exited)
		return shell_error("The program is not being run.");
	if (fallback)
		return shell_error("%s", fallback);
	return shell_error("%s", msg && msg[0] ? msg : ptd_errstr(rc));
}

/* Every thread of the session in a new array (the caller frees it), their
 * count in *@n; NULL with *@n < 0 on an error, which is printed.  No
 * fixed table: a program may have thousands of threads. */
static struct ptd_thread_info *session_threads(struct shell *sh, int *n)
{
	struct ptd_thread_info *v;
	int k = ptd_session_threads(sh->s, NULL, 0);

	if (k < 0) {
		*n = session_error(k, NULL);
		return NULL;
	}
	v = calloc((size_t)k + 1, sizeof(*v));
	if (!v) {
		*n = shell_error("out of memory");
		return NULL;
	}
	*n = ptd_session_threads(sh->s, v, k);
	if (*n > k)
		*n = k;
	if (*n < 0) {
		free(v);
		*n = session_error(*n, NULL);
		return NULL;
	}
	return v;
}

/* Parses an optional count argument (default 1). */
static int parse_count(struct shell *sh, const char *args, uint64_t *count)
{
	enum expr_kind k;

	*count = 1;
	args = skipws(args);
	if (!*args)
		return 0;
	if (shell_eval(sh, args, count, &k) < 0)
		return -1;
	if (k == EXPR_UNAVAILABLE)
		return shell_error("value is not available");
	return 0;
}

/* Parses a non-negative decimal integer; returns 0 or -1 (no message). */
static int parse_uint(const char *s, uint64_t *out)
{
	char *end;

	s = skipws(s);
	if (!isdigit((unsigned char)*s))
		return -1;
	errno = 0;
	*out = strtoull(s, &end, 10);
	if (errno)
		return -1;
	if (*skipws(end))
		return -1;
	return 0;
}

static int find_bp(struct shell *sh, int id, struct ptd_bpinfo *out)
{
	int i, n = ptd_session_bp_count(sh->s);

	for (i = 0; i < n; i++)
		if (ptd_session_bp_get(sh->s, i, out) >= 0 && out->id == id)
			return 0;
	return -1;
}

/* Temporary breakpoints are deleted when hit, so remember them before a
 * resume to print "Temporary breakpoint N, ". */
#define MAX_TEMP 64
struct temp_snapshot {
	int ids[MAX_TEMP];
	int n;
};

static void snapshot_temps(struct shell *sh, struct temp_snapshot *t)
{
	struct ptd_bpinfo bi;
	int i, n = ptd_session_bp_count(sh->s);

	t->n = 0;
	for (i = 0; i < n && t->n < MAX_TEMP; i++)
		if (ptd_session_bp_get(sh->s, i, &bi) >= 0 && bi.temporary)
			t->ids[t->n++] = bi.id;
}

static int was_temp(const struct temp_snapshot *t, int id)
{
	int i;

	for (i = 0; i < t->n; i++)
		if (t->ids[i] == id)
			return 1;
	return 0;
}

/* The pc of the selected frame: gdb marks it "=> " in listings. */
static int selected_pc(struct shell *sh, uint64_t *pc)
{
	if (sh->frame_level > 0) {
		*pc = sh->frame_pc;
		return 0;
	}
	return ptd_session_pc(sh->s, pc);
}

static void clear_listing_state(struct shell *sh)
{
	sh->ih_valid = 0;
	sh->ch_valid = 0;
	/* any motion selects the innermost frame again */
	sh->frame_level = 0;
	sh->frame_vlevel = 0;
	sh->frame_inline = 0;
	sh->frame_tail = 0;
}

long shell_read(struct shell *sh, uint64_t addr, void *buf, size_t n)
{
	if (sh->read_at && (ptd_session_alive(sh->s) || ptd_session_offline(sh->s)))
		return ptd_session_read_at(sh->s, sh->read_at, addr, buf, n);
	if (ptd_session_alive(sh->s) || ptd_session_offline(sh->s))
		return ptd_session_read(sh->s, addr, buf, n);
	return shell_read_file_mem(ptd_session_program(sh->s), addr, buf, n);
}

static const char *shell_lib_name(void *ctx, uint64_t pc, const char *module);

void shell_sync(struct shell *sh)
{
	char link[64];
	ssize_t n;

	sh->pc.sym = ptd_session_symbols(sh->s);
	sh->pc.inline_skip = ptd_session_inline_skipped(sh->s);
	if (ptd_session_alive(sh->s))
		sh->last_pid = ptd_session_pid(sh->s);
	if (ptd_session_alive(sh->s) && !sh->main_module[0]) {
		snprintf(link, sizeof(link), "/proc/%d/exe", (int)ptd_session_pid(sh->s));
		n = readlink(link, sh->main_module, sizeof(sh->main_module) - 1);
		if (n > 0)
			sh->main_module[n] = '\0';
		else
			sh->main_module[0] = '\0';
	}
	if (ptd_session_offline(sh->s) && !sh->main_module[0] && ptd_session_offline_exe(sh->s))
		snprintf(sh->main_module, sizeof(sh->main_module), "%s", ptd_session_offline_exe(sh->s));
	sh->pc.main_module = sh->main_module[0] ? sh->main_module : NULL;
	sh->pc.module_name = shell_lib_name;
	sh->pc.module_name_ctx = sh;
}

/* gdb names a library in "from LIB" as the dynamic linker does (its
 * link_map name), where the symbols have the file's real path. */
struct libname_find {
	uint64_t pc;
	const char *module;
	char *out;
	size_t n;
};

static void libname_one(void *ctx, const struct ptd_shlib *l)
{
	struct libname_find *f = ctx;
	char *rp;

	if (f->out[0] || !l->text_hi || f->pc < l->text_lo || f->pc >= l->text_hi)
		return;
	rp = realpath(l->path, NULL);
	if (rp && !strcmp(rp, f->module))
		snprintf(f->out, f->n, "%s", l->path);
	free(rp);
}

static const char *shell_lib_name(void *ctx, uint64_t pc, const char *module)
{
	struct shell *sh = ctx;
	struct libname_find f = { pc, module, sh->lib_name, sizeof(sh->lib_name) };

	sh->lib_name[0] = '\0';
	if (!module || !ptd_session_alive(sh->s) ||
	    ptd_session_shlibs(sh->s, libname_one, &f) < 0 || !sh->lib_name[0]) {
		ptd_clear_error();
		return NULL;
	}
	return sh->lib_name;
}

static void thread_comm(struct shell *sh, pid_t tid, char *comm, size_t n)
{
	char path[64];
	FILE *f;

	comm[0] = '\0';
	snprintf(path, sizeof(path), "/proc/%d/task/%d/comm", (int)ptd_session_pid(sh->s), (int)tid);
	f = fopen(path, "r");
	if (!f)
		return;
	if (fgets(comm, (int)n, f))
		comm[strcspn(comm, "\n")] = '\0';
	fclose(f);
}

/* The execution mode of the code at the position in the history (its
 * end when not replaying), or 64-bit when there is none. */
static unsigned position_mode(struct shell *sh)
{
	const struct ptd_history *h = ptd_session_history(sh->s);
	struct ptd_hcursor cur;
	uint64_t pos = 0, count = 0;

	if (!h || ptd_session_position(sh->s, &pos, &count) < 0 || !count)
		return PTD_MODE_64;
	if (!pos)
		pos = count;
	/* the tail has no mode of its own: its last instruction's */
	while (pos > 0 && ptd_hcursor_goto(&cur, h, pos) == 0) {
		if (!cur.is_gap && (pos < count || !ptd_history_tail(h)))
			return cur.mode;
		pos--;
	}
	ptd_clear_error();
	return PTD_MODE_64;
}

void shell_report_stop(struct shell *sh, const struct ptd_event *ev, int temporary, int finish)
{
	struct ptd_event e = *ev;
	struct ptd_line li;
	char thread[128];
	const char *gap = NULL;

	if (e.kind == PTD_EVENT_EXEC)
		sh->main_module[0] = '\0'; /* a new main executable */
	shell_bp_stopped(sh, e.kind == PTD_EVENT_BREAKPOINT || e.bp_catch ? e.bp_id : 0);
	sh->stop_bp = e.kind == PTD_EVENT_BREAKPOINT ? e.bp_id : 0;
	shell_sync(sh);
	sh->pc.addr32 = position_mode(sh) != PTD_MODE_64;
	if (finish && e.kind == PTD_EVENT_STEPPED)
		e.new_frame = 1;
	thread[0] = '\0';
	if (ptd_session_alive(sh->s) && e.kind != PTD_EVENT_EXITED && e.kind != PTD_EVENT_KILLED) {
		int n, i;
		struct ptd_thread_info *th = session_threads(sh, &n);

		/* gdb names the thread once the program has had a second
		 * one, even when the first is the one that stopped */
		for (i = 0; th && i < n; i++)
			if (th[i].num > sh->max_thread)
				sh->max_thread = th[i].num;
		for (i = 0; th && i < n; i++) {
			if (!th[i].current)
				continue;
			if (sh->cur_thread && th[i].num != sh->cur_thread)
				printf("[Switching to LWP %d]\n", (int)th[i].tid);
			sh->cur_thread = th[i].num;
			if (sh->max_thread > 1) {
				char comm[64];

				thread_comm(sh, th[i].tid, comm, sizeof(comm));
				snprintf(thread, sizeof(thread), "Thread %d%s%s%s", th[i].num,
					 comm[0] ? " \"" : "", comm, comm[0] ? "\"" : "");
			}
		}
		free(th);
	}
	if (e.kind == PTD_EVENT_GAP) {
		int reason;

		if (ptd_session_gap_near(sh->s, NULL, &reason) > 0)
			gap = ptd_print_gap_reason(reason);
	}
	/* gdb's stop hook runs before the stop is shown, in its frame */
	if (e.kind != PTD_EVENT_EXITED && e.kind != PTD_EVENT_KILLED &&
	    shell_user_command("hook-stop", 0)) {
		sh->frame_level = 0;
		sh->frame_vlevel = 0;
		sh->frame_inline = 0;
		sh->frame_tail = 0;
		fflush(stdout);
		shell_run_hook(sh, "hook", "stop");
	}
	if (e.kind == PTD_EVENT_HWBREAK)
		shell_print_watch_stop(sh, thread[0] ? thread : NULL);
	/* the process is gone after an exit: use the pid seen before; a
	 * breakpoint whose commands start with `silent` says nothing */
	if (e.kind != PTD_EVENT_BREAKPOINT || !shell_bp_silent(e.bp_id)) {
		ptd_print_stop(&sh->pc, &e, temporary,
			       ptd_session_alive(sh->s) ? ptd_session_pid(sh->s)
			       : e.tid			 ? e.tid
							 : sh->last_pid,
			       thread[0] ? thread : NULL, gap);
		/* in the frame of the stop, not one selected before it
		 * (finish from frame 1) */
		sh->frame_level = 0;
		sh->frame_vlevel = 0;
		sh->frame_inline = 0;
		sh->frame_tail = 0;
		shell_do_displays(sh);
	}
	/* gdb's $_exitcode and $_exitsignal */
	if (e.kind == PTD_EVENT_EXITED)
		shell_set_convenience(sh, "_exitcode", e.exit_code);
	else if (e.kind == PTD_EVENT_KILLED)
		shell_set_convenience(sh, "_exitsignal", e.signo);
	if (ptd_session_alive(sh->s))
		sh->last_pid = ptd_session_pid(sh->s);
	clear_listing_state(sh);
	sh->x_valid = 0;
	if ((e.kind == PTD_EVENT_KILLED || e.kind == PTD_EVENT_EXITED) && ptd_session_offline(sh->s))
		printf("The recorded history is kept: browse it with record instruction-history,\n"
		       "reverse-stepi, info threads and the like until the next run.\n");
	if (e.kind == PTD_EVENT_EXITED || e.kind == PTD_EVENT_KILLED) {
		if (!ptd_session_offline(sh->s)) /* (a kept recording shows the same program) */
			sh->main_module[0] = '\0';
		sh->cur_thread = 0;
		sh->max_thread = 0;
		return;
	}
	if (sh->pc.sym && ptd_symbols_line(sh->pc.sym, e.pc, &li) >= 0 && li.file) {
		struct ptd_inline in[16];
		int n = sh->pc.inline_skip > 0 ? ptd_symbols_inlined(sh->pc.sym, e.pc, in, 16) : 0;

		/* (at inlined calls not entered yet: around their call site) */
		if (n >= sh->pc.inline_skip && n > 0 && in[sh->pc.inline_skip - 1].call_file) {
			li.file = in[sh->pc.inline_skip - 1].call_file;
			li.line = in[sh->pc.inline_skip - 1].call_line;
		}
		snprintf(sh->list_file, sizeof(sh->list_file), "%s", li.file);
		sh->list_line = li.line;
		sh->list_next = 0;
		sh->search_base = 0; /* (gdb 13's searches start over after a stop or frame) */
	}
}

static void print_current_frame(struct shell *sh, int level, enum ptd_print_what what)
{
	uint64_t pc;

	if (ptd_session_pc(sh->s, &pc) < 0)
		return;
	sh->pc.addr32 = position_mode(sh) != PTD_MODE_64;
	ptd_print_frame(&sh->pc, pc, level, 0, -1, what);
}

/* ------------------------------------------------------------------ */
/* Running                                                              */

static void free_args(char **v);

/* One word of @*pp as a shell reads it (quotes, backslashes) into @w
 * (room for strlen(*pp) + 1); *pp moves past it. */
static void read_word(const char **pp, char *w)
{
	const char *p = *pp;
	size_t len = 0;
	char q = 0;

	while (*p && (q || !isspace((unsigned char)*p))) {
		if (q && *p == q) {
			q = 0;
			p++;
		} else if (!q && (*p == '"' || *p == '\'')) {
			q = *p++;
		} else if (*p == '\\' && p[1] && q != '\'') {
			w[len++] = p[1];
			p += 2;
		} else {
			w[len++] = *p++;
		}
	}
	w[len] = '\0';
	*pp = p;
}

/*
 * A redirection at @p (unquoted, at a word's start), as the shell gdb
 * starts the program with reads it: [N]< FILE, [N]> FILE, [N]>> FILE,
 * N>&M, &> FILE and >& FILE (both 1 and 2).  Returns the length of the
 * operator (the file name follows, in the same word or the next) and
 * fills @r (its path still NULL; *@both for &> and >&, *@dup for N>&M,
 * which also takes M), or 0 when @p is no redirection.
 */
static size_t redir_op(const char *p, struct ptd_redirect *r, int *both, int *dup)
{
	const char *q = p;
	int fd = -1;

	*both = *dup = 0;
	memset(r, 0, sizeof(*r));
	if (q[0] == '&' && q[1] == '>') {
		*both = 1;
		r->fd = 1;
		if (q[2] == '>') {
			r->append = 1;
			return 3;
		}
		return 2;
	}
	if (isdigit((unsigned char)q[0]) && (q[1] == '<' || q[1] == '>'))
		fd = *q++ - '0';
	if (*q == '<') {
		r->fd = fd < 0 ? 0 : fd;
		return (size_t)(q - p) + 1;
	}
	if (*q != '>')
		return 0;
	r->fd = fd < 0 ? 1 : fd;
	if (q[1] == '>') {
		r->append = 1;
		return (size_t)(q - p) + 2;
	}
	if (q[1] == '&') {
		if (isdigit((unsigned char)q[2]) && (!q[3] || isspace((unsigned char)q[3]))) {
			*dup = 1;
			r->dup_from = q[2] - '0';
			return (size_t)(q - p) + 3;
		}
		if (fd < 0) { /* >& FILE */
			*both = 1;
			return (size_t)(q - p) + 2;
		}
	}
	return (size_t)(q - p) + 1;
}

/* Splits @args into words as a shell would (quotes, backslashes), and,
 * with @rd, takes the redirections out of them (*@rd, *@nrd of them,
 * paths owned).  Returns the count of words, -1 when out of memory, or
 * -2 with a message set (a redirection without a file). */
static int split_args_redir(const char *args, char ***out, struct ptd_redirect **rd, int *nrd)
{
	char **v = NULL, **nv, *w;
	int n = 0;
	const char *p = skipws(args);

	if (rd) {
		*rd = NULL;
		*nrd = 0;
	}
	while (*p) {
		size_t cap = strlen(p) + 1, op;
		struct ptd_redirect r;
		int both, dup;

		w = malloc(cap);
		if (!w)
			goto nomem;
		if (rd && (op = redir_op(p, &r, &both, &dup)) != 0) {
			struct ptd_redirect *nr = realloc(*rd, sizeof(**rd) * (size_t)(*nrd + 2));
			const char *opstart = p;

			if (!nr) {
				free(w);
				goto nomem;
			}
			*rd = nr;
			p += op;
			if (!dup) {
				p = skipws(p);
				if (!*p || strchr("<>&", *p)) {
					free(w);
					free_args(v);
					*out = NULL;
					shell_error("Missing file name after '%.*s' in the arguments.",
						    (int)op, opstart);
					return -2;
				}
				read_word(&p, w);
				r.path = w;
			} else {
				free(w);
			}
			nr[(*nrd)++] = r;
			if (both) { /* and 2 a copy of 1 */
				struct ptd_redirect d = { .fd = 2, .dup_from = 1 };

				nr[(*nrd)++] = d;
			}
			p = skipws(p);
			continue;
		}
		read_word(&p, w);
		nv = realloc(v, sizeof(*v) * (size_t)(n + 2));
		if (!nv) {
			free(w);
			goto nomem;
		}
		v = nv;
		v[n++] = w;
		v[n] = NULL;
		p = skipws(p);
	}
	*out = v;
	return n;
nomem:
	free_args(v);
	*out = NULL;
	return -1;
}

static void free_redirs(struct ptd_redirect *r, int n)
{
	for (int i = 0; i < n; i++)
		free((char *)r[i].path);
	free(r);
}

static void free_args(char **v)
{
	int i;

	for (i = 0; v && v[i]; i++)
		free(v[i]);
	free(v);
}

static int set_program_and_args(struct shell *sh, const char *prog);

/* The program's arguments as one line, for "Starting program:". */
static const char *prog_args(struct shell *sh)
{
	return sh->run_args ? sh->run_args : "";
}

int shell_set_run_args(struct shell *sh, const char *args)
{
	char *copy = strdup(args ? args : "");

	if (!copy)
		return -1;
	free(sh->run_args);
	sh->run_args = copy;
	return 0;
}

void shell_release(struct shell *sh)
{
	shell_cliscript_release(sh);
	free(sh->run_args);
	sh->run_args = NULL;
	for (int i = 0; i < sh->ndisplays; i++)
		free(sh->displays[i].expr);
	sh->ndisplays = 0;
	shell_values_release(sh);
	shell_skip_release();
}

static int do_run(struct shell *sh, const char *args, int start)
{
	const char *prog = ptd_session_program(sh->s);
	struct temp_snapshot temps;
	struct ptd_event ev;
	int rc;

	if (!prog && start == 1) /* start needs main's symbol first */
		return shell_error("No symbol table loaded.  Use the \"file\" command.");
	if (!prog)
		return shell_error("No executable file specified.\n"
				   "Use the \"file\" or \"exec-file\" command.");
	if (*skipws(args)) {
		if (shell_set_run_args(sh, skipws(args)) < 0)
			return shell_error("out of memory");
		if (set_program_and_args(sh, prog) < 0)
			return -1;
		prog = ptd_session_program(sh->s);
	}
	if (ptd_session_alive(sh->s)) {
		if (sh->from_tty && !query(sh, "The program being debugged has been started already.\n"
					       "Start it from the beginning? "))
			return shell_error("Program not restarted.");
		ptd_session_kill(sh->s);
	}
	sh->main_module[0] = '\0';
	clear_listing_state(sh);

	if (start == 1) {
		struct ptd_bpinfo bi;

		ptd_clear_error();
		rc = ptd_session_break(sh->s, "main", 1);
		if (rc < 0)
			return shell_error("No symbol table loaded.  Use the \"file\" command.");
		if (find_bp(sh, rc, &bi) == 0 && bi.file)
			printf("Temporary breakpoint %d at 0x%" PRIx64 ": file %s, line %d.\n", bi.id,
			       bi.addr, ptd_print_file(&sh->pc, bi.file), bi.line);
		else if (find_bp(sh, rc, &bi) == 0)
			printf("Temporary breakpoint %d at 0x%" PRIx64 "\n", bi.id, bi.addr);
	}
	if (sh->from_tty) {
		char *abs = realpath(prog, NULL);

		/* gdb prints the absolute path, a space, and the arguments */
		printf("Starting program: %s %s\n", abs ? abs : prog, prog_args(sh));
		free(abs);
	}
	fflush(stdout);
	snapshot_temps(sh, &temps);
	sh->attached = 0;
	sh->cur_thread = 1;
	sh->max_thread = 1;
	ptd_clear_error();
	rc = start == 2 ? shell_starti_launch(sh, &ev) : ptd_session_run(sh->s, 0, &ev);
	if (rc < 0)
		return session_error(rc, NULL);
	shell_report_stop(sh, &ev,
			  (ev.kind == PTD_EVENT_BREAKPOINT || ev.bp_catch) && was_temp(&temps, ev.bp_id),
			  0);
	return 0;
}

static int cmd_run(struct shell *sh, const char *args)
{
	return do_run(sh, args, 0);
}

static int cmd_start(struct shell *sh, const char *args)
{
	return do_run(sh, args, 1);
}

static int cmd_starti(struct shell *sh, const char *args)
{
	return do_run(sh, args, 2);
}

static int cmd_attach(struct shell *sh, const char *args)
{
	uint64_t pid;
	int rc;

	args = skipws(args);
	if (!*args)
		return shell_error("Argument required (process-id to attach).");
	if (parse_uint(args, &pid) < 0 || pid == 0 || pid > INT32_MAX)
		return shell_error("Illegal process-id: %s.", args);
	if (ptd_session_alive(sh->s))
		return shell_error("A program is being debugged already.  Kill or detach it first.");
	if ((pid_t)pid == getpid())
		return shell_error("I refuse to debug myself!");
	ptd_clear_error();
	rc = ptd_session_attach(sh->s, (pid_t)pid);
	if (rc == -ptde_nosrch)
		return shell_error("ptrace: No such process.");
	if (rc == -ptde_perm) {
		/* gdb's words, after what the library found out about it */
		const char *why = strstr(ptd_last_error(rc), ": it is ");
		if (why && strstr(why, "zombie"))
			fprintf(stderr,
				"warning: process %d is a zombie - the process has already "
				"terminated\n",
				(int)pid);
		else if (why)
			fprintf(stderr, "warning: process %d is %s\n", (int)pid, why + 8);
		return shell_error("ptrace: Operation not permitted.");
	}
	if (rc < 0)
		return session_error(rc, NULL);
	sh->main_module[0] = '\0';
	sh->cur_thread = 1;
	sh->max_thread = 1;
	sh->attached = 1;
	shell_sync(sh);
	clear_listing_state(sh);
	if (sh->from_tty)
		printf("Attaching to process %d\n", (int)pid);
	print_current_frame(sh, -1, PTD_PRINT_SRC_AND_LOC);
	return 0;
}

static int cmd_detach(struct shell *sh, const char *args)
{
	pid_t pid = ptd_session_pid(sh->s);
	int rc;

	if (require_process(sh) < 0)
		return -1;
	ptd_clear_error();
	rc = ptd_session_detach(sh->s);
	if (rc < 0)
		return session_error(rc, NULL);
	printf("[Inferior 1 (process %d) detached]\n", (int)pid);
	sh->main_module[0] = '\0';
	clear_listing_state(sh);
	return 0;
}

static int cmd_kill(struct shell *sh, const char *args)
{
	pid_t pid = ptd_session_pid(sh->s);
	int rc;

	if (require_process(sh) < 0)
		return -1;
	if (!query(sh, "Kill the program being debugged? "))
		return shell_error("Not confirmed.");
	ptd_clear_error();
	rc = ptd_session_kill(sh->s);
	if (rc < 0)
		return session_error(rc, NULL);
	printf("[Inferior 1 (process %d) killed]\n", (int)pid);
	sh->main_module[0] = '\0';
	clear_listing_state(sh);
	return 0;
}

static int cmd_quit(struct shell *sh, const char *args)
{
	uint64_t code = 0;
	enum expr_kind k;

	if (*skipws(args) && shell_eval(sh, args, &code, &k) < 0)
		return -1;
	if (sh->from_tty && ptd_session_alive(sh->s)) {
		char q[160];

		snprintf(q, sizeof(q), "A debugging session is active.\n\n\tInferior 1 [process %d] "
			 "will be %s.\n\nQuit anyway? ", (int)ptd_session_pid(sh->s),
			 sh->attached ? "detached" : "killed");
		if (!query(sh, q))
			return shell_error("Not confirmed.");
	}
	sh->quit = 1;
	sh->quit_code = (int)code;
	return 0;
}

/* ------------------------------------------------------------------ */
/* Motions                                                              */

/* After `finish` out of the function at @from_pc: gdb's "Value returned
 * is $N = V" (values.c, from the library's ABI knowledge). */
static void print_return_value(struct shell *sh, uint64_t from_pc)
{
	shell_print_return_value(sh, from_pc);
}

static int collect_frames(struct shell *sh, uint64_t **pcs);

static int do_motion(struct shell *sh, const char *args, enum ptd_motion m, int reverse)
{
	static const char *const names[] = {
		[PTD_MOTION_STEPI] = "stepi", [PTD_MOTION_NEXTI] = "nexti", [PTD_MOTION_STEP] = "step",
		[PTD_MOTION_NEXT] = "next", [PTD_MOTION_FINISH] = "finish",
		[PTD_MOTION_CONTINUE] = "continue",
	};
	struct temp_snapshot temps;
	struct ptd_event ev;
	uint64_t count, i, finish_from = 0, fin_pc = 0;
	int rc, inline_frame = 0, sel_level = 0, fin_caller = 0, fin_k = 0, rev_real0 = -1;
	int from_tail = 0;

	/* set exec-direction reverse: the plain commands go backward and
	 * the reverse ones are refused, as gdb's exec_reverse_once */
	if (sh->exec_reverse && reverse)
		return shell_error("Already in reverse mode.  Use '%s' or 'set exec-dir forward'.",
				   (unsigned)m < sizeof(names) / sizeof(names[0]) && names[m] ?
					   names[m] : "?");
	reverse |= sh->exec_reverse;

	/* gdb checks for a process before it evaluates the count */
	if (!ptd_session_alive(sh->s) && !ptd_session_offline(sh->s)) {
		if (reverse)
			return shell_error("Target %s does not support this command.",
					   ptd_session_program(sh->s) ? "exec" : "None");
		return shell_error("The program is not being run.");
	}
	if (m == PTD_MOTION_FINISH || m == PTD_MOTION_CONTINUE) {
		/* finish takes no argument */
		if (m == PTD_MOTION_FINISH && *skipws(args))
			return shell_error("The \"finish\" command does not take any arguments.");
		count = 1;
	} else if (parse_count(sh, args, &count) < 0) {
		return -1;
	}
	if (reverse && !ptd_session_recording(sh->s))
		return shell_error("Target native does not support this command.");
	if (m == PTD_MOTION_FINISH) {
		uint64_t pc;
		int have_pc = ptd_session_pc(sh->s, &pc) >= 0;

		/* an inlined function's frame (DWARF; those not entered yet
		 * are not shown): gdb steps out of it and shows no value */
		shell_sync(sh);
		sel_level = sh->frame_vlevel;
		if (sel_level > 0 && reverse && have_pc && sh->pc.sym) {
			/* reverse-finish: gdb's finish_backward runs back to the
			 * entry of frame 0's (real) function whichever real
			 * frame is selected, but steps back out of a selected
			 * inlined one */
			uint64_t *pcs = NULL;
			struct ptd_inline in[16];
			int nf = collect_frames(sh, &pcs), n = 0, n0;

			n0 = ptd_symbols_inlined(sh->pc.sym, pc, in, 16) - sh->pc.inline_skip;
			n = n0;
			if (nf > sh->frame_level && sh->frame_level > 0)
				n = ptd_symbols_inlined(sh->pc.sym, pcs[sh->frame_level] - 1, in, 16);
			ptd_clear_error();
			/* (gdb's outermost-frame check is the selected frame's) */
			if (sh->frame_inline >= n && nf > sh->frame_level &&
			    is_main(sh, sh->frame_level > 0 ? pcs[sh->frame_level] - 1 : pc)) {
				free(pcs);
				return shell_error(
					"\"finish\" not meaningful in the outermost frame.");
			}
			free(pcs);
			if (sh->frame_inline >= n)
				rev_real0 = n0 > 0 ? n0 : 0;
		}
		if (sel_level > 0 && sh->frame_tail && sh->frame_level > 0 && !reverse) {
			/* a tail call frame returns when the real frame below
			 * it does: finish that one, whole */
			uint64_t *pcs = NULL;
			struct ptd_inline in[16];
			int nf = collect_frames(sh, &pcs), below = sh->frame_level - 1, nin;

			if (nf <= below) {
				free(pcs);
				return -1;
			}
			nin = sh->pc.sym ? ptd_symbols_inlined(sh->pc.sym,
							       below ? pcs[below] - 1 : pcs[below], in, 16)
					 : 0;
			ptd_clear_error();
			if (!below)
				nin -= nin < sh->pc.inline_skip ? nin : sh->pc.inline_skip;
			free(pcs);
			fin_pc = sh->frame_pc;
			fin_caller = 1;
			fin_k = 0;
			from_tail = 1;
			ptd_session_finish_frame(sh->s, below, nin > 0 ? nin : 0);
		} else if (sel_level > 0 && (!reverse || sh->pc.sym)) {
			/* gdb finishes the selected frame (up, frame N) */
			uint64_t *pcs = NULL;
			int nf = collect_frames(sh, &pcs);

			if (nf <= sh->frame_level) {
				free(pcs);
				return -1;
			}
			fin_pc = pcs[sh->frame_level];
			free(pcs);
			fin_caller = sh->frame_level > 0;
			fin_k = sh->frame_inline;
			if (rev_real0 >= 0)
				ptd_session_finish_frame(sh->s, 0, rev_real0);
			else
				ptd_session_finish_frame(sh->s, sh->frame_level, sh->frame_inline);
		} else {
			sel_level = 0;
			fin_pc = have_pc ? pc : 0;
			fin_k = 0;
		}
		if (have_pc && sh->pc.sym) {
			struct ptd_inline in[16];
			int n = ptd_symbols_inlined(sh->pc.sym, fin_caller ? fin_pc - 1 : fin_pc, in, 16);

			inline_frame = n - (fin_caller ? 0 : sh->pc.inline_skip) > fin_k;
			ptd_clear_error();
		}
		/* main is the outermost frame for gdb (backtrace past-main off) */
		if (have_pc && !inline_frame && is_main(sh, fin_caller ? fin_pc - 1 : fin_pc))
			return shell_error("\"finish\" not meaningful in the outermost frame.");
		/* gdb runs back to the function's start, which needs a symbol */
		if (reverse && sh->pc.sym && ptd_symbols_func_start(sh->pc.sym, pc) == 0)
			return shell_error("Cannot find bounds of current function");
		finish_from = fin_caller ? fin_pc - 1 : fin_pc;
	}
	if (m == PTD_MOTION_CONTINUE && *skipws(args)) {
		/* continue N: gdb ignores the breakpoint the program stopped
		 * at N-1 more times (its count is evaluated only then) */
		if (sh->stop_bp && shell_bp_exists(sh, sh->stop_bp)) {
			uint64_t n;

			if (parse_count(sh, args, &n) < 0)
				return -1;
			if (shell_bp_set_ignore(sh, sh->stop_bp, (int64_t)n - 1) < 0)
				return -1;
			if (sh->from_tty)
				printf("  ");
		} else if (sh->from_tty) {
			printf("Not stopped at any breakpoint; argument ignored.\n");
		}
	}
	if (sh->from_tty) {
		if (m == PTD_MOTION_CONTINUE) {
			printf("Continuing.\n");
		} else if (m == PTD_MOTION_FINISH) {
			printf("%s", reverse && !inline_frame ? "Run back to call of "
							       : "Run till exit from ");
			if (sel_level == 0) {
				print_current_frame(sh, 0, PTD_PRINT_LOCATION);
			} else if (fin_k > 0) {
				sh->pc.no_source = 1;
				ptd_print_inline_frame(&sh->pc, fin_pc, fin_caller, fin_k, sel_level);
				sh->pc.no_source = 0;
			} else {
				ptd_print_frame(&sh->pc, fin_pc, sel_level, fin_caller, -1,
						PTD_PRINT_LOCATION);
			}
		}
	}
	fflush(stdout);
	memset(&ev, 0, sizeof(ev));
	snapshot_temps(sh, &temps);
	for (i = 0; i < count; i++) {
		ptd_clear_error();
		rc = ptd_session_motion(sh->s, m, reverse, &ev);
		if (rc < 0) {
			clear_listing_state(sh);
			return session_error(rc, NULL);
		}
		if (ev.kind != PTD_EVENT_STEPPED)
			break;
	}
	if (count == 0)
		return 0;
	shell_report_stop(sh, &ev,
			  (ev.kind == PTD_EVENT_BREAKPOINT || ev.bp_catch) && was_temp(&temps, ev.bp_id),
			  m == PTD_MOTION_FINISH);
	/* (gdb has no value to show for a tail call frame's finish) */
	if (m == PTD_MOTION_FINISH && !reverse && finish_from && ev.kind == PTD_EVENT_STEPPED &&
	    !inline_frame && !from_tail)
		print_return_value(sh, finish_from);
	return 0;
}

#define MOTION(fn, m, rev) \
	static int fn(struct shell *sh, const char *args) { return do_motion(sh, args, m, rev); }
MOTION(cmd_continue, PTD_MOTION_CONTINUE, 0)
MOTION(cmd_step, PTD_MOTION_STEP, 0)
MOTION(cmd_next, PTD_MOTION_NEXT, 0)
MOTION(cmd_stepi, PTD_MOTION_STEPI, 0)
MOTION(cmd_nexti, PTD_MOTION_NEXTI, 0)
MOTION(cmd_finish, PTD_MOTION_FINISH, 0)
MOTION(cmd_rcontinue, PTD_MOTION_CONTINUE, 1)
MOTION(cmd_rstep, PTD_MOTION_STEP, 1)
MOTION(cmd_rnext, PTD_MOTION_NEXT, 1)
MOTION(cmd_rstepi, PTD_MOTION_STEPI, 1)
MOTION(cmd_rnexti, PTD_MOTION_NEXTI, 1)
MOTION(cmd_rfinish, PTD_MOTION_FINISH, 1)

/* ------------------------------------------------------------------ */
/* Breakpoints                                                          */

static int all_digits(const char *s)
{
	if (!*s)
		return 0;
	for (; *s; s++)
		if (!isdigit((unsigned char)*s))
			return 0;
	return 1;
}

static int do_break_as(struct shell *sh, const char *args, int temporary, const char *dprintf);

static int do_break(struct shell *sh, const char *args, int temporary)
{
	return do_break_as(sh, args, temporary, NULL);
}

/* dprintf LOCATION,"FORMAT",EXPR...: a breakpoint that prints and goes on */
static int cmd_dprintf(struct shell *sh, const char *args)
{
	char loc[512];
	const char *comma, *fmt;

	args = skipws(args);
	comma = strchr(args, ',');
	if (!comma)
		return shell_error("Format string required");
	fmt = skipws(comma + 1);
	if (!*fmt)
		return shell_error("Format string required");
	if (*fmt != '"')
		return shell_error("Bad format string, missing '\"'.");
	snprintf(loc, sizeof(loc), "%.*s", (int)(comma - args), args);
	if (!*skipws(loc))
		return shell_error("Format string required");
	return do_break_as(sh, loc, 0, fmt);
}

static int do_break_as(struct shell *sh, const char *args, int temporary, const char *dprintf)
{
	const char *kind = dprintf ? "Dprintf" : temporary ? "Temporary breakpoint" : "Breakpoint";
	char spec[512], cond[512] = "";
	struct ptd_bpinfo bi;
	int rc;

	args = skipws(args);
	snprintf(spec, sizeof(spec), "%s", args);
	/* "LOCATION if COND" (or "if COND": here): the condition as
	 * `condition N COND` sets it */
	for (char *p = spec; *p; p++)
		if ((p == spec || isspace((unsigned char)p[-1])) && !strncmp(p, "if", 2) &&
		    (isspace((unsigned char)p[2]) || p[2] == '(')) {
			const char *c = skipws(p + 2);

			if (!*c)
				break;
			snprintf(cond, sizeof(cond), "%s", c);
			*p = '\0';
			break;
		}
	if (cond[0] && shell_condition_check(cond) < 0)
		return -1;
	/* trailing blanks are not part of the location */
	for (rc = (int)strlen(spec); rc > 0 && isspace((unsigned char)spec[rc - 1]); rc--)
		spec[rc - 1] = '\0';
	{
		char rel[sizeof(spec)];

		rc = shell_linespec_offset(sh, spec, rel, sizeof(rel));
		if (rc < 0)
			return -1;
		if (rc)
			snprintf(spec, sizeof(spec), "%s", rel);
	}
	if (!spec[0]) {
		uint64_t pc;

		if (!ptd_session_alive(sh->s) || ptd_session_pc(sh->s, &pc) < 0)
			return shell_error("No default breakpoint address now.");
		snprintf(spec, sizeof(spec), "*0x%" PRIx64, pc);
	} else if (spec[0] == '*') {
		/* Evaluate *EXPR here so "*$pc + 4" and "*main+4" work. */
		uint64_t addr;
		enum expr_kind k;

		if (shell_eval(sh, spec + 1, &addr, &k) < 0)
			return -1;
		if (k == EXPR_UNAVAILABLE)
			return shell_error("value is not available");
		snprintf(spec, sizeof(spec), "*0x%" PRIx64, addr);
	}
	ptd_clear_error();
	rc = ptd_session_break(sh->s, spec, temporary);
	if (rc < 0) {
		if (rc != -ptde_notfound)
			return session_error(rc, NULL);
		if (spec[0] == '*')
			return shell_error("Cannot access memory at address %s", spec + 1);
		if (!ptd_session_symbols(sh->s) && !ptd_session_program(sh->s))
			return shell_error(NO_SYMTAB);
		/* a function, file or line a library not loaded yet may have
		 * (gdb asks about each; shell_break_pending words it) */
		rc = shell_break_pending(sh, spec, temporary, dprintf != NULL);
		if (rc <= 0)
			return rc;
	}
	if (cond[0]) {
		char ca[600];
		int id = rc;

		/* a condition that does not parse leaves no breakpoint */
		snprintf(ca, sizeof(ca), "%d %s", id, cond);
		if (shell_cmd_condition(sh, ca) < 0) {
			ptd_session_delete(sh->s, id);
			return -1;
		}
	}
	if (dprintf && ptd_session_bp_dprintf(sh->s, rc, dprintf) < 0) {
		ptd_session_delete(sh->s, rc);
		return shell_error("out of memory");
	}
	if (find_bp(sh, rc, &bi) < 0) {
		printf("%s %d at %s\n", kind, rc, spec);
		return 0;
	}
	if (!bi.nlocs && spec[0] != '*')
		/* (gdb names a dprintf by all its arguments) */
		printf("%s %d (%s%s%s) pending.\n", kind, bi.id, spec, dprintf ? "," : "",
		       dprintf ? dprintf : "");
	else if (bi.nlocs > 1 && !bi.file)
		/* (gdb names the spec only when the first location has a
		 * source file: not a PLT entry nor an ifunc resolver) */
		printf("%s %d at 0x%" PRIx64 " (%d locations)\n", kind, bi.id, bi.addr, bi.nlocs);
	else if (bi.nlocs > 1)
		printf("%s %d at 0x%" PRIx64 ": %s. (%d locations)\n", kind, bi.id, bi.addr,
		       shell_bp_canonical(sh, spec, bi.file), bi.nlocs);
	else if (bi.file && bi.line > 0)
		printf("%s %d at 0x%" PRIx64 ": file %s, line %d.\n", kind, bi.id, bi.addr,
		       ptd_print_file(&sh->pc, bi.file), bi.line);
	else
		printf("%s %d at 0x%" PRIx64 "\n", kind, bi.id, bi.addr);
	return 0;
}

static int cmd_break(struct shell *sh, const char *args)
{
	return do_break(sh, args, 0);
}

static int cmd_tbreak(struct shell *sh, const char *args)
{
	return do_break(sh, args, 1);
}

static int cmd_undisplay(struct shell *sh, const char *args);

static int cmd_delete(struct shell *sh, const char *args)
{
	char word[64];
	uint64_t id;
	int failed = 0;

	args = skipws(args);
	/* delete display N: undisplay */
	if (!strncmp(args, "display", 7) && (!args[7] || isspace((unsigned char)args[7])))
		return cmd_undisplay(sh, args + 7);
	if (!strncmp(args, "breakpoints", 11) && (!args[11] || isspace((unsigned char)args[11])))
		args = skipws(args + 11);
	if (!*args) {
		if (sh->from_tty && ptd_session_bp_count(sh->s) > 0 &&
		    !query(sh, "Delete all breakpoints? "))
			return 0;
		ptd_session_delete(sh->s, 0);
		return 0;
	}
	while (*args) {
		args = first_word(args, word, sizeof(word));
		if (parse_uint(word, &id) < 0 || id == 0 || id > INT32_MAX) {
			shell_error("Convenience variable must have integer value.\n"
				    "Args must be numbers or '$' variables.");
			return -1;
		}
		if (ptd_session_delete(sh->s, (int)id) < 0) {
			shell_error("No breakpoint number %" PRIu64 ".", id);
			failed = 1;
		}
	}
	return failed ? -1 : 0;
}

/* The What column of a location: "in FUNC at FILE:LINE", or <SYM+OFF>. */
static void print_bp_what(struct shell *sh, uint64_t addr, const char *func, const char *file,
			  int line)
{
	if (func && file && line > 0)
		printf("in %s at %s:%d\n", ptd_print_symname(func), ptd_print_file(&sh->pc, file),
		       line);
	else if (func) {
		struct ptd_symbol s;

		if (sh->pc.sym && ptd_symbols_lookup(sh->pc.sym, addr, &s) >= 0 && s.offset)
			printf("<%s%+" PRId64 ">\n", ptd_print_symname(s.name), (int64_t)s.offset);
		else
			printf("<%s>\n", ptd_print_symname(func));
	} else
		printf("\n");
}

/* Whether gdb has a location for exception catchpoint @bi: its probe in
 * libstdc++, or before that is loaded, the function (gdb's fallback, the
 * program's PLT entry of __cxa_throw for one). */
static int exception_catch_placed(struct shell *sh, const struct ptd_bpinfo *bi)
{
	static const char *const fn[] = { "", "__cxa_throw", "__cxa_begin_catch",
					  "__cxa_rethrow" };
	uint64_t a;

	if (!bi->catch_kind || bi->catch_kind > PTD_CATCH_RETHROW)
		return 0;
	if (bi->nlocs)
		return 1;
	if (ptd_session_resolve(sh->s, fn[bi->catch_kind], &a) == 0)
		return 1;
	ptd_clear_error();
	return 0;
}

static int info_breakpoints(struct shell *sh, const char *args)
{
	struct ptd_bpinfo bi;
	int i, n = ptd_session_bp_count(sh->s), shown = 0, aw = 10, tw = 14;
	char addr[24];

	/* gdb's address column is narrow while every breakpoint is pending,
	 * its type column as wide as "read watchpoint" when one is listed */
	for (i = 0; i < n; i++)
		if (ptd_session_bp_get(sh->s, i, &bi) == 0) {
			/* (and wide with a catchpoint, as gdb 13) */
			if ((!bi.watch && bi.nlocs) || exception_catch_placed(sh, &bi))
				aw = 18;
			/* a watchpoint has its location once the program runs */
			if (bi.watch && ptd_session_alive(sh->s))
				aw = 18;
			if ((int)strlen(shell_bp_type(&bi)) > tw)
				tw = (int)strlen(shell_bp_type(&bi));
		}
	for (i = 0; i < n; i++) {
		if (ptd_session_bp_get(sh->s, i, &bi) < 0)
			continue;
		if (!shown++)
			printf("Num     %-*s Disp Enb %-*s What\n", tw, "Type", aw, "Address");
		/* "*ADDR" has its address, even 0 (gdb shows 0x0...0) */
		int pending = !bi.watch && !bi.nlocs;

		if (bi.watch || bi.catch_kind)
			addr[0] = '\0';
		else if (bi.nlocs > 1)
			snprintf(addr, sizeof(addr), "<MULTIPLE>");
		else if (!pending)
			ptd_print_addr16(addr, sizeof(addr), bi.addr);
		else
			snprintf(addr, sizeof(addr), "<PENDING>");
		printf("%-7d %-*s %-4s %-3s %-*s ", bi.id, tw, shell_bp_type(&bi),
		       bi.temporary ? "del" : bi.disp_disable ? "dis" : "keep",
		       bi.enabled || bi.watch ? "y" : "n", aw, addr);
		if (bi.watch)
			printf("%s\n", bi.spec);
		else if (bi.catch_kind == PTD_CATCH_EXEC && bi.catch_what)
			printf("exec, program \"%s\" \n", bi.catch_what);
		else if (bi.catch_kind >= PTD_CATCH_FORK && bi.catch_what)
			printf("%s, process %s \n", shell_catch_word(bi.catch_kind), bi.catch_what);
		else if (bi.catch_kind == PTD_CATCH_SIGNAL) {
			char sigs[512];

			shell_catch_signals(&bi, sigs, sizeof(sigs));
			if (bi.catch_all)
				printf("signal \"<any signal>\" \n");
			else if (!sigs[0])
				printf("signal \"<standard signals>\" \n");
			else
				printf("signal%s \"%s\" \n", strchr(sigs, ' ') ? "s" : "", sigs);
		} else if (bi.catch_kind >= PTD_CATCH_EXEC)
			printf("%s\n", shell_catch_word(bi.catch_kind));
		else if (bi.catch_kind)
			printf("exception %s\n", shell_catch_word(bi.catch_kind));
		else if (pending && bi.dprintf)
			/* (gdb shows what was typed: its printf line comes
			 * with a location) */
			printf("%s,%s\n", bi.spec ? bi.spec : "", bi.dprintf);
		else if (pending)
			printf("%s\n", bi.spec ? bi.spec : "");
		else if (bi.nlocs > 1)
			printf("\n");
		else
			print_bp_what(sh, bi.addr, bi.func, bi.file, bi.line);
		shell_print_bp_extra(&bi);
		if (bi.hits)
			printf("\t%s already hit %u time%s\n",
			       bi.catch_kind ? "catchpoint" : "breakpoint", bi.hits,
			       bi.hits == 1 ? "" : "s");
		shell_print_bp_ignore(&bi);
		/* (a count of 1, enable once, shows as the disposition only) */
		if (bi.enable_count > 1)
			printf("\tdisable after %s %d hits\n", bi.ignore ? "additional" : "next",
			       bi.enable_count);
		if (bi.dprintf && !pending)
			printf("        printf %s\n", bi.dprintf);
		shell_print_bp_commands(bi.id);
		/* gdb's rows N.1, N.2 ... of a breakpoint with several locations */
		for (int k = 1; bi.nlocs > 1 && !bi.catch_kind && k <= bi.nlocs; k++) {
			struct ptd_bploc lo;
			char num[32];

			if (ptd_session_bp_loc(sh->s, i, k, &lo) < 0)
				continue;
			snprintf(num, sizeof(num), "%d.%d", bi.id, k);
			ptd_print_addr16(addr, sizeof(addr), lo.addr);
			/* (gdb 13: "y-", enabled but its breakpoint is not) */
			printf("%-7s %-*s %-4s %-3s %-*s ", num, tw, "", "",
			       !lo.enabled ? "n" : bi.enabled ? "y" : "y-", aw, addr);
			print_bp_what(sh, lo.addr, lo.func, lo.file, lo.line);
		}
	}
	if (!shown)
		printf("No breakpoints or watchpoints.\n");
	return 0;
}

/* ------------------------------------------------------------------ */
/* Recording and history                                               */

/*
 * Starts recording with @method; @fmt is the optional trace format
 * argument ("pt", "blocks") of `record step pt` and friends, else the
 * --trace-format default.
 */
static int record_start_fmt(struct shell *sh, int method, const char *fmt)
{
	int rc;

	if (!ptd_session_alive(sh->s))
		return shell_error("Process record: the program is not being run.");
	fmt = fmt ? skipws(fmt) : "";
	ptd_clear_error();
	rc = ptd_session_set_trace_format(sh->s, *fmt ? fmt : sh->trace_format);
	if (rc < 0)
		return session_error(rc, NULL);
	if (ptd_session_recording(sh->s))
		return shell_error("The process is already being recorded.  Use \"record stop\" to "
				   "stop recording first.");
	ptd_clear_error();
	rc = ptd_session_record_start(sh->s, (enum ptd_method)method);
	if (rc < 0)
		return session_error(rc, NULL);
	/* Say what --method=auto chose, and why the others were refused,
	 * to a person; scripts get gdb's silence. */
	if (sh->from_tty && ptd_session_method_note(sh->s))
		printf("%s.\n", ptd_session_method_note(sh->s));
	clear_listing_state(sh);
	return 0;
}

static int record_start(struct shell *sh, int method)
{
	return record_start_fmt(sh, method, NULL);
}

static int cmd_record_stop(struct shell *sh, const char *args)
{
	int rc;

	if (require_recording(sh) < 0)
		return -1;
	ptd_clear_error();
	rc = ptd_session_record_stop(sh->s);
	if (rc < 0)
		return session_error(rc, NULL);
	clear_listing_state(sh);
	printf("Process record is stopped and all execution logs are deleted.\n");
	return 0;
}

static int cmd_record_step(struct shell *sh, const char *args)
{
	return record_start_fmt(sh, PTD_METHOD_STEP, args);
}

static int cmd_record_method(struct shell *sh, const char *name, const char *args)
{
	int m;

	ptd_clear_error();
	m = ptd_method_parse(name);
	if (m < 0)
		return shell_error("%s", ptd_last_error(m));
	return record_start_fmt(sh, m, args);
}

static int cmd_record_soft(struct shell *sh, const char *args)
{
	return cmd_record_method(sh, "soft", args);
}

static int show_record_hw(struct shell *sh, enum ptd_method m, const char *name);

/* record pt filter FUNC|FILE|START/SIZE@FILE|none: the pt recorder's
 * address filters for the next recording (without an argument: shows
 * them); otherwise record pt [FORMAT] starts recording. */
static int cmd_record_pt(struct shell *sh, const char *args)
{
	char word[16];
	const char *rest = first_word(args, word, sizeof(word));
	int rc;

	if (strcmp(word, "filter"))
		return cmd_record_method(sh, "pt", args);
	if (!*rest)
		return show_record_hw(sh, PTD_METHOD_PT, "filter");
	ptd_clear_error();
	rc = ptd_session_set_record_option(sh->s, PTD_METHOD_PT, "filter", rest);
	if (rc < 0)
		return session_error(rc, NULL);
	return 0;
}

static int cmd_record_bts(struct shell *sh, const char *args)
{
	return cmd_record_method(sh, "bts", args);
}

static int cmd_record_auto(struct shell *sh, const char *args)
{
	return cmd_record_method(sh, "auto", args);
}

/* gdb's spelling: record btrace [pt|bts] takes that method (and a trace
 * format after it, as record pt does); alone, auto. */
static int cmd_record_btrace(struct shell *sh, const char *args)
{
	char word[16];
	const char *rest = first_word(args, word, sizeof(word));

	if (!strcmp(word, "pt") || !strcmp(word, "bts"))
		return cmd_record_method(sh, word, rest);
	return cmd_record_auto(sh, args);
}

static int cmd_record_save(struct shell *sh, const char *args)
{
	int rc;

	int perf = 0;

	args = skipws(args);
	if (!strncmp(args, "--perf-data", 11) && (!args[11] || args[11] == ' ' || args[11] == '\t')) {
		perf = 1;
		args = skipws(args + 11);
		if (!*args)
			return shell_error("Argument required (perf.data file to write).");
	}
	if (!*args)
		return shell_error("Argument required (directory to save the trace bundle in).");
	if (require_recording(sh) < 0)
		return -1;
	ptd_clear_error();
	rc = perf ? ptd_session_save_perf_data(sh->s, args) : ptd_session_save(sh->s, args);
	if (rc < 0)
		return session_error(rc, NULL);
	printf("Saved the recording to %s.\n", args);
	return 0;
}

static int cmd_record_goto(struct shell *sh, const char *args)
{
	struct ptd_event ev;
	uint64_t n;
	int rc;

	args = skipws(args);
	if (!*args)
		return shell_error("Command requires an argument (insn number to go to).");
	if (require_recording(sh) < 0)
		return -1;
	if (strcmp(args, "begin") && strcmp(args, "start") && strcmp(args, "end") &&
	    parse_uint(args, &n) < 0) {
		/* gdb evaluates the argument as an expression */
		if (isalpha((unsigned char)args[0]) || args[0] == '_')
			return shell_error("No symbol \"%s\" in current context.", args);
		return shell_error("Expected positive number, got: %s.", args);
	}
	ptd_clear_error();
	memset(&ev, 0, sizeof(ev));
	rc = ptd_session_goto(sh->s, args, &ev);
	if (rc == -ptde_eos || rc == -ptde_bos || rc == -ptde_notfound || rc == -ptde_invalid)
		return shell_error("No such instruction.");
	if (rc < 0)
		return session_error(rc, NULL);
	clear_listing_state(sh);
	shell_sync(sh);
	/* gdb's btrace prints the frame with its level after a goto. */
	print_current_frame(sh, 0, PTD_PRINT_SRC_AND_LOC);
	{
		struct ptd_line li;
		uint64_t pc;

		if (ptd_session_pc(sh->s, &pc) >= 0 && sh->pc.sym &&
		    ptd_symbols_line(sh->pc.sym, pc, &li) >= 0 && li.file) {
			snprintf(sh->list_file, sizeof(sh->list_file), "%s", li.file);
			sh->list_line = li.line;
			sh->list_next = 0;
			sh->search_base = 0; /* (gdb 13's searches start over after a stop or frame) */
		}
	}
	return 0;
}

/* Modifiers "/mrfp" of instruction-history, "/lic" of function-call-history. */
static int parse_modifiers(const char **args, const char *allowed, unsigned *mods)
{
	const char *p = skipws(*args);

	*mods = 0;
	while (*p == '/') {
		p++;
		if (!*p || isspace((unsigned char)*p))
			return shell_error("Missing modifier.");
		for (; *p && !isspace((unsigned char)*p); p++) {
			const char *f;

			if (*p == '/')
				continue;
			f = strchr(allowed, *p);
			if (!f)
				return shell_error("Invalid modifier: %c.", *p);
			*mods |= 1u << (f - allowed);
		}
		p = skipws(p);
	}
	*args = p;
	return 0;
}

/* Range arguments: "" | + | - | N | N,M | N,+M | N,-M.  *@mode: 0 = context
 * (size in *@a: +size/-size), 1 = range [*a, *b] inclusive. */
static int parse_history_range(const char *args, int size, int *mode, int64_t *ctx, uint64_t *a,
			       uint64_t *b, int *explicit_args)
{
	char *end;
	uint64_t begin, n;

	*explicit_args = 0;
	args = skipws(args);
	if (!*args || !strcmp(args, "+")) {
		*mode = 0;
		*ctx = size;
		return 0;
	}
	if (!strcmp(args, "-")) {
		*mode = 0;
		*ctx = -size;
		return 0;
	}
	*explicit_args = 1;
	if (!isdigit((unsigned char)*args))
		return shell_error("Expected positive number, got: %s.", args);
	begin = strtoull(args, &end, 10);
	args = skipws(end);
	if (*args == ',') {
		args = skipws(args + 1);
		if (*args == '+' || *args == '-') {
			int neg = *args == '-';

			args = skipws(args + 1);
			if (!isdigit((unsigned char)*args))
				return shell_error("Expected positive number, got: %s.", args);
			n = strtoull(args, &end, 10);
			if (*skipws(end))
				return shell_error("Junk after argument: %s.", skipws(end));
			if (!n)
				return shell_error("Bad record instruction-history-size.");
			/* gdb's *_history_from */
			if (neg) {
				*b = begin;
				*a = begin < n ? 0 : begin - n + 1;
			} else {
				*a = begin;
				*b = begin + n - 1 < begin ? UINT64_MAX : begin + n - 1;
			}
			*mode = 1;
			return 0;
		}
		if (!isdigit((unsigned char)*args))
			return shell_error("Expected positive number, got: %s.", args);
		n = strtoull(args, &end, 10);
		if (*skipws(end))
			return shell_error("Junk after argument: %s.", skipws(end));
		*a = begin;
		*b = n;
		*mode = 1;
		return 0;
	}
	if (*args)
		return shell_error("Junk after argument: %s.", args);
	*a = begin;
	*b = begin + (uint64_t)size - 1 < begin ? UINT64_MAX : begin + (uint64_t)size - 1;
	*mode = 1;
	return 0;
}

/*
 * Computes the next listing window over numbers [lo, hi) like gdb's
 * btrace insn_history/call_history: the first listing starts at @start
 * (the replay position, or hi when live) and extends in the requested
 * direction, then fills up the other way; repeats continue from the last
 * window.  Returns the number of items covered.
 */
static uint64_t history_window(int *valid, uint64_t *wb, uint64_t *we, uint64_t lo, uint64_t hi,
			       uint64_t start, int64_t size)
{
	uint64_t context = (uint64_t)(size < 0 ? -size : size), b, e, covered;

	if (!*valid) {
		b = e = start;
		if (size < 0) {
			covered = e < hi ? 1 : 0;
			e += covered;
			{
				uint64_t back = context - covered;

				b = b - lo >= back ? b - back : lo;
			}
			covered = e - b;
			e = hi - e >= context - covered ? e + (context - covered) : hi;
		} else {
			e = hi - b >= context ? b + context : hi;
			covered = e - b;
			b = b - lo >= context - covered ? b - (context - covered) : lo;
		}
	} else if (size < 0) {
		e = *wb;
		b = e - lo >= context ? e - context : lo;
	} else {
		b = *we;
		e = hi - b >= context ? b + context : hi;
	}
	*wb = b;
	*we = e;
	*valid = 1;
	return e - b;
}

static int cmd_record_insn_history(struct shell *sh, const char *args)
{
	const struct ptd_history *h;
	struct ptd_hcursor cur;
	unsigned mods, flags = PTD_DIS_NUMBER;
	int mode, explicit_args;
	int64_t ctx = 0;
	uint64_t a = 0, b = 0;
	uint64_t pos = 0, count = 0, hi, cur_pc = 0, n;
	struct ptd_line li;
	struct ptd_symbols *keep;
	char last_file[4096] = "";
	int last_line = 0;

	if (require_recording(sh) < 0)
		return -1;
	/* m and s both interleave source, as in gdb */
	if (parse_modifiers(&args, "msrfp", &mods) < 0)
		return -1;
	if (mods & 4)
		flags |= PTD_DIS_RAW;
	if (mods & 8)
		flags |= PTD_DIS_OMIT_FNAME;
	if (mods & 16)
		flags |= PTD_DIS_OMIT_PC;
	if (parse_history_range(args, sh->insn_history_size, &mode, &ctx, &a, &b, &explicit_args) < 0)
		return -1;
	h = ptd_session_history(sh->s);
	if (!h || ptd_session_position(sh->s, &pos, &count) < 0 || !count)
		return shell_error("No trace.");
	/* The tail (current instruction, not yet executed) is not listed. */
	hi = ptd_history_tail(h) ? count : count + 1;
	if (hi <= 1)
		return shell_error("No trace.");
	selected_pc(sh, &cur_pc);
	shell_sync(sh);

	if (mode == 0) {
		uint64_t start = ptd_session_replaying(sh->s) ? pos : hi;

		if (!history_window(&sh->ih_valid, &sh->ih_begin, &sh->ih_end, 1, hi, start, ctx)) {
			printf(ctx < 0 ? "At the start of the branch trace record.\n"
				     : "At the end of the branch trace record.\n");
			return 0;
		}
	} else {
		if (b < a)
			return shell_error("Bad range.");
		if (a < 1 || a > count)
			return shell_error("Range out of bounds.");
		sh->ih_begin = a;
		sh->ih_end = b < hi - 1 ? b + 1 : hi;
		if (sh->ih_end < sh->ih_begin)
			sh->ih_end = sh->ih_begin;
		sh->ih_valid = 1;
	}

	if (sh->ih_end <= sh->ih_begin || ptd_hcursor_goto(&cur, h, sh->ih_begin) < 0)
		return 0;
	keep = sh->pc.sym;
	for (n = sh->ih_begin; n < sh->ih_end; n++) {
		if (cur.is_gap) {
			ptd_print_gap_at(&sh->pc, h, &cur);
		} else {
			/* the program that ran there (an exec may lie between) */
			sh->pc.sym = ptd_session_symbols_at(sh->s, n);
			sh->read_at = n;
			if ((mods & 3) && sh->pc.sym &&
			    ptd_symbols_line(sh->pc.sym, cur.ip, &li) >= 0 && li.file &&
			    li.lo == cur.ip && li.is_stmt &&
			    (li.line != last_line || strcmp(li.file, last_file))) {
				char text[4096];

				snprintf(last_file, sizeof(last_file), "%s", li.file);
				last_line = li.line;
				if (ptd_symbols_source_line(sh->pc.sym, li.file, li.line, text,
							    sizeof(text)) >= 0)
					printf("%s:%d\t%s\n", ptd_print_file(&sh->pc, li.file),
					       li.line, text);
				else
					printf("%d\tin %s\n", li.line,
					       ptd_print_file(&sh->pc, li.file));
			}
			ptd_print_insn(&sh->pc, n, cur.ip, cur_pc,
				       flags | (cur.mode == PTD_MODE_32	  ? PTD_DIS_MODE32
						: cur.mode == PTD_MODE_16 ? PTD_DIS_MODE16
									  : 0));
			sh->read_at = 0;
			sh->pc.sym = keep;
		}
		if (n + 1 < sh->ih_end && ptd_hcursor_next(&cur) < 0) {
			/* The code the history names cannot be read or decoded
			 * (e.g. it was replaced by an exec): say so instead of
			 * ending the listing early without a word. */
			sh->ih_end = n + 1;
			return shell_error("Cannot list instruction %llu: the recorded code is not "
					   "available (%s).", (unsigned long long)(n + 1),
					   ptd_last_error(-ptde_bad_insn));
		}
	}
	return 0;
}

static int cmd_record_call_history(struct shell *sh, const char *args)
{
	const struct ptd_calls *calls;
	const struct ptd_callseg *seg;
	const struct ptd_history *h;
	unsigned mods, flags = 0;
	int mode, explicit_args, min_level;
	int64_t ctx = 0;
	uint64_t a = 0, b = 0;
	uint64_t pos = 0, count = 0, ncalls, i;

	if (require_recording(sh) < 0)
		return -1;
	if (parse_modifiers(&args, "lic", &mods) < 0)
		return -1;
	if (mods & 1)
		flags |= PTD_CALL_SRC_LINE;
	if (mods & 2)
		flags |= PTD_CALL_INSN_RANGE;
	if (mods & 4)
		flags |= PTD_CALL_INDENT;
	if (parse_history_range(args, sh->call_history_size, &mode, &ctx, &a, &b, &explicit_args) < 0)
		return -1;
	h = ptd_session_history(sh->s);
	calls = ptd_session_calls(sh->s);
	if (!h || !calls || ptd_session_position(sh->s, &pos, &count) < 0 ||
	    !(ncalls = ptd_calls_count(calls)) || !ptd_history_ninsn(h))
		return shell_error("No trace.");
	shell_sync(sh);
	min_level = ptd_calls_min_level(calls);

	if (mode == 0) {
		uint64_t start = ncalls + 1;

		if (ptd_session_replaying(sh->s)) {
			seg = ptd_calls_find(calls, pos);
			if (seg)
				start = seg->index;
		}
		if (!history_window(&sh->ch_valid, &sh->ch_begin, &sh->ch_end, 1, ncalls + 1, start,
				    ctx)) {
			printf(ctx < 0 ? "At the start of the branch trace record.\n"
				     : "At the end of the branch trace record.\n");
			return 0;
		}
	} else {
		if (b < a)
			return shell_error("Bad range.");
		if (a < 1 || a > ncalls)
			return shell_error("Range out of bounds.");
		sh->ch_begin = a;
		sh->ch_end = b < ncalls ? b + 1 : ncalls + 1;
		sh->ch_valid = 1;
	}
	for (i = sh->ch_begin; i < sh->ch_end; i++) {
		seg = ptd_calls_get(calls, i);
		if (!seg)
			break;
		/* named in the program that ran it (an exec may lie between) */
		sh->pc.sym = ptd_session_symbols_at(sh->s, seg->first);
		ptd_print_callseg(&sh->pc, h, seg, min_level, flags);
	}
	shell_sync(sh);
	return 0;
}

static const char *method_format(int m)
{
	switch (m) {
	case PTD_METHOD_STEP:
		return "Single-step recording";
	case PTD_METHOD_SOFT:
		return "Software branch recording (Intel Processor Trace packets)";
	case PTD_METHOD_PT:
		return "Intel Processor Trace";
	case PTD_METHOD_BTS:
		return "Branch Trace Store";
	default:
		return "unknown";
	}
}

static void print_bytes(uint64_t v);

static int info_record(struct shell *sh, const char *args)
{
	struct ptd_record_info ri;
	struct ptd_thread_info *th;
	uint64_t gaps;
	int rc, n, i, num = 1;
	pid_t tid = ptd_session_pid(sh->s);

	if (!ptd_session_offline(sh->s) &&
	    (!ptd_session_alive(sh->s) || !ptd_session_recording(sh->s))) {
		printf("No recording is currently active.\n");
		return 0;
	}
	memset(&ri, 0, sizeof(ri));
	ptd_clear_error();
	rc = ptd_session_record_info(sh->s, &ri);
	if (rc < 0)
		return session_error(rc, NULL);
	printf("Active record target: ptdbg-%s\n", ptd_method_name(ri.method));
	if (ri.format && !strcmp(ri.format, "pt") && ri.method != PTD_METHOD_PT)
		printf("Recording format: %s, written as Intel Processor Trace (%zu bytes).\n",
		       method_format(ri.method), ri.bytes);
	else
		printf("Recording format: %s.\n", method_format(ri.method));
	if (ri.simulated)
		printf("PMU: %s%s, PTDBG_SIMULATE_PMU: not this machine's hardware.\n",
		       ri.pmu[0] ? ri.pmu : ptd_method_name(ri.method),
		       strstr(ri.pmu, "simulated") ? "" : " (simulated)");
	else if (ri.pmu[0])
		printf("PMU: %s.\n", ri.pmu);
	if (ri.method == PTD_METHOD_SOFT || ri.method == PTD_METHOD_STEP ||
	    (ri.buffer_size && (ri.method == PTD_METHOD_PT || ri.method == PTD_METHOD_BTS))) {
		/* gdb's "info record" shows btrace's buffer size so */
		printf("Buffer size: ");
		print_bytes(ri.buffer_size);
		printf(".\n");
	}
	/* (a pt or bts recorder's own counters: not for a loaded trace) */
	if ((ri.method == PTD_METHOD_PT || ri.method == PTD_METHOD_BTS) && ri.pmu[0])
		printf("Trace read: %" PRIu64 " bytes, %" PRIu64 " bytes lost, %" PRIu64
		       " buffer wraps.\n",
		       ri.trace_bytes, ri.lost_bytes, ri.wraps);
	if (ri.dropped)
		printf("The oldest %" PRIu64 " instructions were dropped to stay within it; the history "
		       "starts with a gap.\n", ri.dropped);
	th = session_threads(sh, &n);
	if (!th)
		return -1;
	for (i = 0; i < n; i++)
		if (th[i].current) {
			num = th[i].num;
			tid = th[i].tid;
		}
	free(th);
	gaps = ri.ngaps;
	if (num == 1 && tid == ptd_session_pid(sh->s))
		printf("Recorded %" PRIu64 " instructions in %" PRIu64 " functions (%" PRIu64
		       " gaps) for thread %d (process %d).\n",
		       ri.ninsn, ri.ncalls, gaps, num, (int)tid);
	else
		printf("Recorded %" PRIu64 " instructions in %" PRIu64 " functions (%" PRIu64
		       " gaps) for thread %d (LWP %d).\n",
		       ri.ninsn, ri.ncalls, gaps, num, (int)tid);
	if (ri.replaying)
		printf("Replay in progress.  At instruction %" PRIu64 ".\n", ri.position);
	return 0;
}

/* ------------------------------------------------------------------ */
/* Examining                                                            */

/*
 * The frames as gdb shows them: caller frames by their return addresses
 * (the session gives them live and in the recorded past), ending at
 * main (gdb's default "backtrace past-main off").  Returns the count or <0
 * after printing an error.
 */
static int collect_frames(struct shell *sh, uint64_t **pcs)
{
	int n, i;

	*pcs = NULL;
	if (!ptd_session_alive(sh->s) && !ptd_session_offline(sh->s))
		return shell_error("No stack.");
	shell_sync(sh);
	ptd_clear_error();
	n = shell_backtrace_all(sh->s, pcs);
	if (n < 0)
		return session_error(n, NULL);
	sh->pc.addr32 = position_mode(sh) != PTD_MODE_64;
	for (i = 0; i < n; i++)
		if (is_main(sh, i > 0 ? (*pcs)[i] - 1 : (*pcs)[i]))
			return i + 1;
	return n;
}

/* Prints the frames of bt (all of them when @limit is 0, else the
 * innermost @limit) to sh->pc.out.  Returns 0 or -1 after the message. */
static int print_backtrace(struct shell *sh, uint64_t limit)
{
	struct ptd_frame_info *fr;
	int n, i, level, tramps = 0;

	ptd_clear_error();
	n = shell_frames_all(sh->s, &fr);
	if (n == -ptde_not_running)
		return shell_error("No stack.");
	if (n < 0)
		return session_error(n, NULL);
	sh->pc.addr32 = position_mode(sh) != PTD_MODE_64;
	sh->pc.args_walk = 1;
	sh->pc.args_walk_level = -1;
	for (i = 0, level = 0; i < n; i++) {
		/* a frame a signal interrupted is at its pc, not after a call */
		int caller = i > 0 && (fr[i].kind == PTD_FRAME_NORMAL ||
				       fr[i].kind == PTD_FRAME_TAILCALL);

		/* the session's own frame index (a trampoline in the past,
		 * pc 0, and a tail call frame are none of its frames) for the
		 * arguments: a tail call frame's are looked up at its pc alone */
		if (i > 0 && ((fr[i - 1].kind == PTD_FRAME_SIGTRAMP && !fr[i - 1].pc) ||
			      fr[i - 1].kind == PTD_FRAME_TAILCALL))
			tramps++;
		sh->pc.args_frame = 1 + i - tramps;
		if (limit && (uint64_t)level >= limit) {
			/* (gdb says so only to a user at the prompt) */
			if (sh->from_tty)
				fprintf(sh->pc.out, "(More stack frames follow...)\n");
			break;
		}
		if (fr[i].kind == PTD_FRAME_SIGTRAMP) {
			fprintf(sh->pc.out, "#%-2d <signal handler called>\n", level++);
			continue;
		}
		ptd_print_frame(&sh->pc, fr[i].pc, level, caller, -1, PTD_PRINT_LOCATION);
		/* the frames of inlined functions' callers (DWARF; gdb shows
		 * none above a tail call frame, named by its innermost one) */
		level += 1 + (fr[i].kind == PTD_FRAME_TAILCALL
				      ? 0
				      : ptd_print_inline_callers(&sh->pc, fr[i].pc, caller, level + 1,
								 limit ? (int)limit : -1));
		/* main is the outermost frame (gdb's backtrace past-main off) */
		if (is_main(sh, caller ? fr[i].pc - 1 : fr[i].pc))
			break;
	}
	sh->pc.args_frame = 0;
	sh->pc.args_walk = 0;
	free(fr);
	return 0;
}

/* bt -N: gdb's outermost N frames.  The whole backtrace is printed to
 * memory and its last N frames (each a line that starts with '#' and the
 * lines after it) are shown. */
static int print_outermost(struct shell *sh, uint64_t count)
{
	FILE *out = sh->pc.out, *mem;
	char *text = NULL, *p, **starts = NULL;
	size_t len = 0, nstarts = 0, cap = 0;
	int rc;

	mem = open_memstream(&text, &len);
	if (!mem)
		return shell_error("cannot print the backtrace: %s", strerror(errno));
	sh->pc.out = mem;
	rc = print_backtrace(sh, 0);
	sh->pc.out = out;
	fclose(mem);
	for (p = text; rc == 0 && p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
		if (*p != '#')
			continue;
		if (nstarts == cap) {
			char **ns = realloc(starts, (cap = cap ? 2 * cap : 64) * sizeof(*ns));

			if (!ns) {
				rc = shell_error("cannot print the backtrace: out of memory");
				break;
			}
			starts = ns;
		}
		starts[nstarts++] = p;
	}
	if (rc == 0 && nstarts)
		fputs(starts[nstarts > count ? nstarts - count : 0], out);
	free(starts);
	free(text);
	return rc;
}

static int print_full(struct shell *sh, uint64_t limit, int outermost);

static int cmd_backtrace(struct shell *sh, const char *args)
{
	uint64_t limit = 0;
	int outermost = 0, full = 0;

	args = skipws(args);
	if ((!strncmp(args, "full", 4) && (!args[4] || isspace((unsigned char)args[4]))) ||
	    (!strncmp(args, "-full", 5) && (!args[5] || isspace((unsigned char)args[5])))) {
		args = skipws(args + (args[0] == '-' ? 5 : 4));
		full = 1;
	}
	if (*args == '-' && isdigit((unsigned char)args[1])) {
		outermost = 1;
		args++;
	}
	if (*args && parse_uint(args, &limit) < 0)
		return shell_error("No symbol \"%s\" in current context.", args);
	if (!ptd_session_alive(sh->s) && !ptd_session_offline(sh->s))
		return shell_error("No stack.");
	shell_sync(sh);
	/* (bt 0 and bt -0 show no frame, as gdb's) */
	if (*args && !limit)
		return 0;
	if (full)
		return print_full(sh, limit, outermost);
	if (outermost)
		return print_outermost(sh, limit);
	return print_backtrace(sh, limit);
}

/*
 * frame/up/down select a frame for display: its location and source line,
 * `list` and `disassemble` around it.  Registers, print and x stay those
 * of the innermost frame (the session unwinds no registers).
 */
/*
 * The frames as bt numbers them (ptd_session_frames()): each real frame
 * is followed by the frames of the functions inlined at its pc (DWARF),
 * the innermost first; a tail call frame (gdb's, a function that jumped
 * to the frame below) and a signal trampoline are one level each.  Up to
 * main, as bt.
 */
struct flevels {
	struct ptd_frame_info *fr;
	int n;     /* entries of fr used */
	int total; /* levels */
};

static int ninlined(struct shell *sh, const struct ptd_frame_info *f, int i)
{
	struct ptd_inline in[16];
	int n;

	if (f->kind == PTD_FRAME_TAILCALL || f->kind == PTD_FRAME_SIGTRAMP || !sh->pc.sym)
		return 0;
	n = ptd_symbols_inlined(sh->pc.sym, i && f->kind == PTD_FRAME_NORMAL ? f->pc - 1 : f->pc,
				in, 16);
	ptd_clear_error();
	if (i == 0 && n > 0)
		n -= n < sh->pc.inline_skip ? n : sh->pc.inline_skip;
	return n < 0 ? 0 : n;
}

static int levels_get(struct shell *sh, struct flevels *lv)
{
	int n;

	memset(lv, 0, sizeof(*lv));
	if (!ptd_session_alive(sh->s) && !ptd_session_offline(sh->s))
		return shell_error("No stack.");
	shell_sync(sh);
	ptd_clear_error();
	n = shell_frames_all(sh->s, &lv->fr);
	if (n < 0)
		return session_error(n, NULL);
	sh->pc.addr32 = position_mode(sh) != PTD_MODE_64;
	for (int i = 0; i < n; i++) {
		int caller = i > 0 && lv->fr[i].kind != PTD_FRAME_INTERRUPTED;

		lv->total += 1 + ninlined(sh, &lv->fr[i], i);
		lv->n = i + 1;
		if (lv->fr[i].kind != PTD_FRAME_SIGTRAMP &&
		    is_main(sh, caller ? lv->fr[i].pc - 1 : lv->fr[i].pc))
			break;
	}
	return 0;
}

/* Level @vlevel's entry of lv->fr (*@entry), its inlined caller (*@k, 0:
 * the frame's own line) and the session's frame index for its values
 * (*@real: a tail call frame takes its registers from the real frame
 * above it).  Returns 0, or -1 when there is no such level. */
static int level_find(const struct flevels *lv, struct shell *sh, int vlevel, int *entry, int *k,
		      int *real)
{
	int v = 0, r = 0;

	for (int i = 0; i < lv->n; i++) {
		int ninl = ninlined(sh, &lv->fr[i], i);

		if (vlevel >= v && vlevel <= v + ninl) {
			*entry = i;
			*k = vlevel - v;
			*real = r;
			return 0;
		}
		v += 1 + ninl;
		/* (the past's trampoline, pc 0, and a tail call frame are
		 * none of the session's frames) */
		if (lv->fr[i].kind != PTD_FRAME_TAILCALL &&
		    !(lv->fr[i].kind == PTD_FRAME_SIGTRAMP && !lv->fr[i].pc))
			r++;
	}
	return -1;
}

/*
 * bt full: the backtrace, each frame line followed by the locals of that
 * frame (as `frame N` then `info locals` would show them, 8 columns in);
 * the frame selected stays the one it was.
 */
/* The frame selection, for commands that visit other frames and put it
 * back as it was (bt full, info frame N, frame apply, thread apply). */
struct frame_sel {
	int level, vlevel, inl, tail, args_frame;
	uint64_t pc;
};

static struct frame_sel sel_save(const struct shell *sh)
{
	return (struct frame_sel){ sh->frame_level, sh->frame_vlevel, sh->frame_inline,
				   sh->frame_tail, sh->pc.args_frame, sh->frame_pc };
}

static void sel_restore(struct shell *sh, const struct frame_sel *f)
{
	sh->frame_level = f->level;
	sh->frame_vlevel = f->vlevel;
	sh->frame_inline = f->inl;
	sh->frame_tail = f->tail;
	sh->pc.args_frame = f->args_frame;
	sh->frame_pc = f->pc;
}

static int print_full(struct shell *sh, uint64_t limit, int outermost)
{
	FILE *out = sh->pc.out, *mem;
	char *text = NULL, *p, *nl;
	size_t len = 0;
	int rc;
	struct frame_sel saved = sel_save(sh);
	struct flevels lv;

	mem = open_memstream(&text, &len);
	if (!mem)
		return shell_error("cannot print the backtrace: %s", strerror(errno));
	sh->pc.out = mem;
	rc = outermost ? print_outermost(sh, limit) : print_backtrace(sh, limit);
	sh->pc.out = out;
	fclose(mem);
	if (rc < 0 || levels_get(sh, &lv) < 0) {
		free(text);
		return -1;
	}
	for (p = text; p && *p && !sh->quit; p = nl) {
		int entry, k, real, level;

		nl = strchr(p, '\n');
		nl = nl ? nl + 1 : p + strlen(p);
		fwrite(p, 1, (size_t)(nl - p), out);
		if (*p != '#' || !isdigit((unsigned char)p[1]))
			continue;
		level = atoi(p + 1);
		if (level_find(&lv, sh, level, &entry, &k, &real) < 0)
			continue;
		sh->frame_level = real;
		sh->frame_vlevel = level;
		sh->frame_inline = k;
		sh->frame_pc = lv.fr[entry].pc;
		sh->frame_tail = lv.fr[entry].kind == PTD_FRAME_TAILCALL;
		fflush(out);
		shell_bt_locals(sh, out);
		fflush(out);
	}
	sel_restore(sh, &saved);
	free(lv.fr);
	free(text);
	return 0;
}

static int select_frame_q(struct shell *sh, int level, int quiet);

static int select_frame(struct shell *sh, int level)
{
	return select_frame_q(sh, level, 0);
}

/* info frame [level] N, info frame function NAME: that frame's info, the
 * selection as it was after (gdb: "Stack frame at" for a frame named) */
int shell_info_frame_of(struct shell *sh, const char *args)
{
	struct frame_sel saved = sel_save(sh);
	int rc = -1, want = -1;
	uint64_t v;

	args = skipws(args);
	if (!strncmp(args, "level", 5) && (!args[5] || isspace((unsigned char)args[5])))
		args = skipws(args + 5);
	if (!strncmp(args, "function", 8) && (!args[8] || isspace((unsigned char)args[8]))) {
		struct flevels lv;
		char name[256];
		size_t n;

		snprintf(name, sizeof(name), "%s", skipws(args + 8));
		for (n = strlen(name); n && isspace((unsigned char)name[n - 1]); n--)
			name[n - 1] = '\0';
		if (!name[0])
			return shell_error("Missing function name argument");
		if (levels_get(sh, &lv) < 0)
			return -1;
		for (int vl = 0; vl < lv.total && want < 0; vl++) {
			int entry, k, real;
			const char *fn;
			char buf[256];

			if (level_find(&lv, sh, vl, &entry, &k, &real) < 0)
				break;
			if (lv.fr[entry].kind == PTD_FRAME_SIGTRAMP)
				continue;
			fn = ptd_print_frame_name(&sh->pc, lv.fr[entry].pc,
						  entry > 0 && lv.fr[entry].kind != PTD_FRAME_INTERRUPTED, k,
						  buf, sizeof(buf));
			if (fn && !strcmp(fn, name))
				want = vl;
		}
		free(lv.fr);
		if (want < 0) {
			uint64_t e, bp;

			if (!sh->pc.sym || ptd_symbols_function(sh->pc.sym, name, &e, &bp) < 0) {
				ptd_clear_error();
				return shell_error("Function \"%s\" not defined.", name);
			}
			return shell_error("No frame for function \"%s\".", name);
		}
	} else if (parse_uint(args, &v) == 0) {
		if (v > INT32_MAX)
			return shell_error("No frame at level %s.", args);
		want = (int)v;
	} else {
		/* (gdb evaluates the level) */
		enum expr_kind k;

		if (shell_eval(sh, args, &v, &k) < 0)
			return -1;
		if (k == EXPR_UNAVAILABLE)
			return shell_error("value is not available");
		if (v > INT32_MAX)
			return shell_error("No frame at level %s.", args);
		want = (int)v;
	}
	if (select_frame_q(sh, want, 1) == 0) {
		sh->info_frame_named = 1;
		rc = shell_info_frame(sh, "");
		sh->info_frame_named = 0;
	}
	sel_restore(sh, &saved);
	return rc;
}

/* One frame of frame apply: its location line (not with -q), then CMD;
 * with -s, both only when CMD succeeds (its output held until then). */
static int apply_one(struct shell *sh, int level, const char *cmd, int quiet, int silent)
{
	FILE *tmp = NULL;
	int out = -1, err = -1, rc;

	if (silent) {
		fflush(stdout);
		fflush(stderr);
		tmp = tmpfile();
		if (!tmp)
			return shell_error("cannot hold the output: %s", strerror(errno));
		out = dup(1);
		err = dup(2);
		dup2(fileno(tmp), 1);
		dup2(fileno(tmp), 2);
	}
	rc = select_frame_q(sh, level, quiet ? 1 : 2);
	if (rc == 0)
		rc = shell_execute(sh, cmd, NULL);
	if (silent) {
		char buf[4096];
		size_t n;

		fflush(stdout);
		fflush(stderr);
		dup2(out, 1);
		dup2(err, 2);
		close(out);
		close(err);
		if (rc == 0) {
			rewind(tmp);
			while ((n = fread(buf, 1, sizeof(buf), tmp)) > 0)
				fwrite(buf, 1, n, stdout);
		}
		fclose(tmp);
		return 0;
	}
	return rc;
}

/*
 * frame apply all|COUNT|-COUNT|level LEVEL... [-q] [-c] [-s] COMMAND (and
 * faas COMMAND: frame apply all -s): COMMAND in each of those frames,
 * innermost first, the selection as it was after.
 */
static int frame_apply(struct shell *sh, const char *args, int faas)
{
	struct frame_sel saved = sel_save(sh);
	int total, rc = 0, quiet = 0, cont = 0, silent = faas, nsel = 0, *sel = NULL;
	struct flevels lv;
	const char *p = skipws(args);

	if (!ptd_session_alive(sh->s) && !ptd_session_offline(sh->s))
		return shell_error("No stack.");
	if (levels_get(sh, &lv) < 0)
		return -1;
	total = lv.total;
	free(lv.fr);
	sel = calloc((size_t)total + 1, sizeof(*sel));
	if (!sel)
		return shell_error("out of memory");
	if (faas) {
		for (int i = 0; i < total; i++)
			sel[nsel++] = i;
	} else if (!*p) {
		free(sel);
		return shell_error("Missing COUNT argument.");
	} else if (!strncmp(p, "all", 3) && (!p[3] || isspace((unsigned char)p[3]))) {
		for (int i = 0; i < total; i++)
			sel[nsel++] = i;
		p = skipws(p + 3);
	} else if (!strncmp(p, "level", 5) && (!p[5] || isspace((unsigned char)p[5]))) {
		p = skipws(p + 5);
		if (!isdigit((unsigned char)*p)) {
			free(sel);
			return shell_error("Missing or invalid LEVEL... argument");
		}
		while (isdigit((unsigned char)*p)) {
			char *end;
			long lo = strtol(p, &end, 10), hi = lo;

			if (*end == '-' && isdigit((unsigned char)end[1]))
				hi = strtol(end + 1, &end, 10);
			if (*end && !isspace((unsigned char)*end))
				break;
			for (long l = lo; l <= hi; l++) {
				if (l >= total) {
					free(sel);
					return shell_error("No frame at level %ld.", l);
				}
				if (nsel < total)
					sel[nsel++] = (int)l;
			}
			p = skipws(end);
		}
	} else {
		char *end;
		long count = strtol(p, &end, 10);

		if (end == p || count == 0 || (*end && !isspace((unsigned char)*end))) {
			free(sel);
			return shell_error("Invalid COUNT argument.");
		}
		if (count > 0)
			for (int i = 0; i < total && i < count; i++)
				sel[nsel++] = i;
		else
			for (int i = total + (int)count < 0 ? 0 : total + (int)count; i < total; i++)
				sel[nsel++] = i;
		p = skipws(end);
	}
	/* flags, then the command */
	for (;;) {
		if (p[0] == '-' && strchr("qcs", p[1]) && p[1] && (!p[2] || isspace((unsigned char)p[2]))) {
			quiet |= p[1] == 'q';
			cont |= p[1] == 'c';
			silent |= p[1] == 's';
			p = skipws(p + 2);
			continue;
		}
		break;
	}
	if (!*p) {
		free(sel);
		return shell_error(faas ? "Please specify a command to apply on all frames"
					: "Please specify a command to apply on the selected frames");
	}
	if (cont && silent) {
		free(sel);
		return shell_error("frame apply all: -c and -s are mutually exclusive");
	}
	for (int i = 0; i < nsel; i++) {
		rc = apply_one(sh, sel[i], p, quiet, silent);
		if (rc < 0 && !cont)
			break;
		rc = 0;
	}
	free(sel);
	sel_restore(sh, &saved);
	return rc;
}

static int cmd_faas(struct shell *sh, const char *args)
{
	return frame_apply(sh, args, 1);
}

static int select_frame_q(struct shell *sh, int level, int quiet)
{
	struct flevels lv;
	struct ptd_line li;
	const struct ptd_frame_info *f;
	int entry = 0, k = 0, real = 0, caller;

	if (levels_get(sh, &lv) < 0)
		return -1;
	if (level < 0 || level_find(&lv, sh, level, &entry, &k, &real) < 0) {
		free(lv.fr);
		return shell_error("No frame at level %d.", level);
	}
	f = &lv.fr[entry];
	caller = entry > 0 && f->kind != PTD_FRAME_INTERRUPTED;
	sh->frame_level = real;
	sh->frame_vlevel = level;
	sh->frame_inline = k;
	sh->frame_pc = f->pc;
	sh->frame_tail = f->kind == PTD_FRAME_TAILCALL;
	sh->pc.args_frame = real + 1;
	if (quiet == 2) {
		/* frame apply's line: the location, no source */
		if (f->kind == PTD_FRAME_SIGTRAMP)
			printf("#%-2d <signal handler called>\n", level);
		else if (k == 0 || ptd_print_inline_frame(&sh->pc, f->pc, caller, k, level) != 0)
			ptd_print_frame(&sh->pc, f->pc, level, caller, -1, PTD_PRINT_LOCATION);
		sh->pc.args_frame = 0;
		free(lv.fr);
		return 0;
	}
	if (quiet) {
		free(lv.fr);
		return 0;
	}
	if (f->kind == PTD_FRAME_SIGTRAMP) {
		printf("#%-2d <signal handler called>\n", level);
		sh->pc.args_frame = 0;
		free(lv.fr);
		return 0;
	}
	if (k > 0 && ptd_print_inline_frame(&sh->pc, f->pc, caller, k, level) == 0) {
		struct ptd_inline in[16];

		/* list around the inlined call's site */
		int kk = k + (entry ? 0 : sh->pc.inline_skip);

		if (ptd_symbols_inlined(sh->pc.sym, caller ? f->pc - 1 : f->pc, in, 16) >= kk &&
		    in[kk - 1].call_file) {
			snprintf(sh->list_file, sizeof(sh->list_file), "%s", in[kk - 1].call_file);
			sh->list_line = in[kk - 1].call_line;
			sh->list_next = 0;
			sh->search_base = 0;
		}
		sh->pc.args_frame = 0;
		free(lv.fr);
		return 0;
	}
	ptd_print_frame(&sh->pc, f->pc, level, caller, -1, PTD_PRINT_SRC_AND_LOC);
	sh->pc.args_frame = 0;
	if (sh->pc.sym && ptd_symbols_line(sh->pc.sym, caller ? f->pc - 1 : f->pc, &li) >= 0 &&
	    li.file) {
		snprintf(sh->list_file, sizeof(sh->list_file), "%s", li.file);
		sh->list_line = li.line;
		sh->list_next = 0;
		sh->search_base = 0; /* (gdb 13's searches start over after a stop or frame) */
	}
	free(lv.fr);
	return 0;
}

/* frame function NAME (gdb 13): the innermost frame of function NAME. */
static int frame_function(struct shell *sh, const char *name)
{
	struct flevels lv;
	uint64_t addr, bp;

	if (!*name)
		return shell_error("Missing function name argument");
	if (levels_get(sh, &lv) < 0)
		return -1;
	for (int v = 0; v < lv.total; v++) {
		int entry, k, real;
		const struct ptd_frame_info *f;
		const char *fn;
		char buf[256];

		if (level_find(&lv, sh, v, &entry, &k, &real) < 0)
			break;
		f = &lv.fr[entry];
		if (f->kind == PTD_FRAME_SIGTRAMP)
			continue;
		fn = ptd_print_frame_name(&sh->pc, f->pc, entry > 0 && f->kind != PTD_FRAME_INTERRUPTED,
					  k, buf, sizeof(buf));
		if (fn && !strcmp(fn, name)) {
			free(lv.fr);
			return select_frame(sh, v);
		}
	}
	free(lv.fr);
	if (!sh->pc.sym || ptd_symbols_function(sh->pc.sym, name, &addr, &bp) < 0)
		return shell_error("Function \"%s\" not defined.", name);
	return shell_error("No frame for function \"%s\".", name);
}

/*
 * return [EXPR]: the selected frame's function returns now (EXPR, cast to
 * its integer, boolean, character or pointer return type, in rax): every
 * register the unwinder knows for its caller is put back, as gdb's
 * frame_pop does.  Live only.
 */
static int cmd_return(struct shell *sh, const char *args)
{
	struct user_regs_struct cur, cr, known;
	uint64_t pcs[4096], pc, val = 0;
	struct ptd_symbol fs;
	char q[512];
	int level = sh->frame_level, n, pc_only = 0, kind = 0, size = 0, have_val;

	args = skipws(args);
	have_val = *args != '\0';
	if (!ptd_session_alive(sh->s))
		return shell_error("No selected frame.");
	if (ptd_session_replaying(sh->s))
		return shell_error("Cannot force a return in the recorded history: the program's "
				   "registers are the present's (\"record goto end\" goes back there).");
	if (sh->frame_inline > 0 || (level == 0 && sh->pc.inline_skip > 0))
		return shell_error("Can not force return from an inlined function.");
	if (level + 2 > (int)(sizeof(pcs) / sizeof(pcs[0])))
		return shell_error("No frame at level %d.", level);
	ptd_clear_error();
	n = ptd_session_backtrace(sh->s, pcs, level + 2);
	if (n < 0)
		return session_error(n, NULL);
	if (n < level + 2)
		return shell_error("Can not force return from the outermost frame.");
	pc = level > 0 ? pcs[level] - 1 : pcs[0];
	if (have_val) {
		enum expr_kind k;

		if (shell_eval(sh, args, &val, &k) < 0)
			return -1;
		if (k == EXPR_UNAVAILABLE)
			return shell_error("value is not available");
		if (!sh->pc.sym || ptd_symbols_return_type(sh->pc.sym, pc, &kind, &size) < 0) {
			ptd_clear_error();
			return shell_error("Can not force return with a value: the function's return "
					   "type is not known (no debugging information).");
		}
		if (kind == PTD_TYPE_UNKNOWN)
			return shell_error("ptdbg forces only integer, boolean, character and pointer "
					   "return values (in rax).");
		/* as the return type: truncated, sign-extended when signed */
		if (size > 0 && size < 8) {
			val &= (1ull << (8 * size)) - 1;
			if (kind == PTD_TYPE_SIGNED && (val >> (8 * size - 1)) & 1)
				val |= ~0ull << (8 * size);
		}
		if (kind == PTD_TYPE_BOOL)
			val = val != 0;
	}
	if (sh->from_tty) {
		if (sh->pc.sym && ptd_symbols_lookup(sh->pc.sym, pc, &fs) == 0 && fs.name)
			snprintf(q, sizeof(q), "Make %s return now? ", fs.name);
		else
			snprintf(q, sizeof(q), "Make selected stack frame return now? ");
		ptd_clear_error();
		if (!query(sh, q))
			return shell_error("Not confirmed");
	}
	if (ptd_session_regs(sh->s, &cur, &pc_only) < 0 || pc_only)
		return shell_error("The program has no registers now.");
	if (shell_frame_regs_at(sh, level + 1, pcs[level + 1], &cr, &known) < 0)
		return -1;
	if (!known.rip || !known.rsp || cr.rip != pcs[level + 1])
		return shell_error("Cannot find the caller's registers: the frame cannot be popped.");
	/* what the unwinder knows of the caller; the rest stays */
	for (size_t i = 0; i < sizeof(cur) / sizeof(uint64_t); i++) {
		uint64_t k, v;

		memcpy(&k, (char *)&known + 8 * i, 8);
		memcpy(&v, (char *)&cr + 8 * i, 8);
		if (k)
			memcpy((char *)&cur + 8 * i, &v, 8);
	}
	if (have_val && kind != PTD_TYPE_VOID)
		cur.rax = val;
	ptd_clear_error();
	if ((n = ptd_session_set_regs(sh->s, 0, &cur)) < 0)
		return session_error(n, NULL);
	clear_listing_state(sh);
	if (sh->from_tty)
		return select_frame(sh, 0);
	return 0;
}

static int cmd_frame(struct shell *sh, const char *args)
{
	uint64_t level = (uint64_t)sh->frame_vlevel;

	args = skipws(args);
	if (!strncmp(args, "apply", 5) && (!args[5] || isspace((unsigned char)args[5])))
		return frame_apply(sh, args + 5, 0);
	if (!strncmp(args, "function", 8) && (!args[8] || isspace((unsigned char)args[8]))) {
		char name[256];
		size_t n;

		snprintf(name, sizeof(name), "%s", skipws(args + 8));
		for (n = strlen(name); n && isspace((unsigned char)name[n - 1]); n--)
			name[n - 1] = '\0';
		return frame_function(sh, name);
	}
	if (!strncmp(args, "level", 5) && (!args[5] || isspace((unsigned char)args[5])))
		args = skipws(args + 5);
	if (*args && (parse_uint(args, &level) < 0 || level > INT32_MAX))
		return shell_error("Invalid frame level: %s", args);
	return select_frame(sh, (int)level);
}

static int cmd_up(struct shell *sh, const char *args)
{
	struct flevels lv;
	uint64_t count;
	int n;

	if (parse_count(sh, args, &count) < 0)
		return -1;
	if (levels_get(sh, &lv) < 0)
		return -1;
	n = lv.total;
	free(lv.fr);
	if (sh->frame_vlevel + 1 >= n)
		return shell_error("Initial frame selected; you cannot go up.");
	return select_frame(sh, sh->frame_vlevel + (int)count >= n ? n - 1
								    : sh->frame_vlevel + (int)count);
}

static int cmd_down(struct shell *sh, const char *args)
{
	uint64_t count;

	if (parse_count(sh, args, &count) < 0)
		return -1;
	if (!ptd_session_alive(sh->s))
		return shell_error("No stack.");
	if (sh->frame_vlevel == 0)
		return shell_error("Bottom (innermost) frame selected; you cannot go down.");
	return select_frame(sh, (uint64_t)sh->frame_vlevel <= count ? 0
								      : sh->frame_vlevel - (int)count);
}

static int registers(struct shell *sh, const char *args, int all);

static int info_registers(struct shell *sh, const char *args)
{
	return registers(sh, args, 0);
}

static int info_all_registers(struct shell *sh, const char *args)
{
	return registers(sh, args, 1);
}

/* info registers (gdb's general group: rax..gs, then k0-7 on a CPU with
 * AVX-512; fs_base and gs_base only by name) and info all-registers
 * (regs.c adds the x87, SSE and AVX-512 ones). */
static int registers(struct shell *sh, const char *args, int all)
{
	struct user_regs_struct r, known;
	int pc_only = 0, rc, i;
	char word[64];
	uint64_t v;
	const char *canon;

	if (!ptd_session_alive(sh->s))
		return shell_error("The program has no registers now.");
	ptd_clear_error();
	rc = ptd_session_regs(sh->s, &r, &pc_only);
	if (rc < 0)
		return session_error(rc, NULL);
	/* the selected frame's registers: unwound for outer frames (values.c) */
	if (shell_frame_regs(sh, &r, &known) < 0)
		return -1;
	shell_sync(sh);
	args = skipws(args);
	if (!*args) {
		for (i = 0; ptd_print_reg_names[i]; i++) {
			uint64_t k = 0;

			if (!strcmp(ptd_print_reg_names[i], "fs_base") ||
			    !strcmp(ptd_print_reg_names[i], "gs_base"))
				continue;
			ptd_print_reg_lookup(ptd_print_reg_names[i], &r, &v, NULL);
			ptd_print_reg_lookup(ptd_print_reg_names[i], &known, &k, NULL);
			ptd_print_reg_line(&sh->pc, ptd_print_reg_names[i], v, (int)k);
		}
		/* (no flush between the parts: piped into a reader that stops
		 * early, head -1, the lines go in one write, as gdb's) */
		if (all)
			shell_print_extra_regs(sh);
		else
			shell_print_kregs(sh);
		return 0;
	}
	while (*args) {
		const char *w = word;

		args = first_word(args, word, sizeof(word));
		if (*w == '$')
			w++;
		rc = shell_info_extra_reg(sh, w);
		if (rc < 0)
			return -1;
		if (rc > 0)
			continue;
		if (ptd_print_reg_lookup(w, &r, &v, &canon) < 0)
			return shell_error("Invalid register `%s'", w);
		/* "info registers pc" shows it under the name asked for */
		{
			uint64_t k = 0;

			ptd_print_reg_lookup(canon, &known, &k, NULL);
			ptd_print_reg_line(&sh->pc, w, v, (int)k);
		}
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* display                                                              */

static int do_x(struct shell *sh, const char *args);

/* Shows display @d as gdb does after a stop: "1: x/i $pc" and the
 * examined memory, or "2: /x $rax = 0x5". */
static void show_display(struct shell *sh, const struct shell_display *d)
{
	char *xargs;

	if (d->fmt[0] && (strchr(d->fmt, 'i') || strchr(d->fmt, 's'))) {
		printf("%d: x/%s %s\n", d->num, d->fmt, d->expr);
		if (asprintf(&xargs, "/%s %s", d->fmt, d->expr) < 0) {
			shell_error("out of memory");
			return;
		}
		do_x(sh, xargs);
		free(xargs);
		return;
	}
	shell_show_display_value(sh, d->num, d->fmt, d->expr);
}

void shell_do_displays(struct shell *sh)
{
	int i;

	if (!ptd_session_alive(sh->s))
		return;
	for (i = 0; i < sh->ndisplays; i++) {
		struct shell_display *d = &sh->displays[i];

		if (!d->num || d->disabled)
			continue;
		/* one using a function's locals shows only in that block */
		if (d->has_block &&
		    (shell_values_bind(sh) < 0 || !ptd_values_in_block(sh->vals, d->blk_lo, d->blk_hi))) {
			ptd_clear_error();
			continue;
		}
		show_display(sh, d);
	}
}

static int cmd_display(struct shell *sh, const char *args)
{
	struct shell_display *d;
	const char *fmt = "";
	size_t flen = 0;

	args = skipws(args);
	if (!*args) {
		shell_do_displays(sh);
		return 0;
	}
	if (*args == '/') {
		fmt = ++args;
		while (*args && !isspace((unsigned char)*args))
			args++;
		flen = (size_t)(args - fmt);
		args = skipws(args);
		if (!flen)
			return shell_error("Missing format.");
		if (flen >= sizeof(d->fmt))
			return shell_error("Invalid display format '%.*s': too long.", (int)flen, fmt);
	}
	if (!*args)
		return shell_error("Argument required (expression to compute).");
	if (sh->ndisplays == (int)(sizeof(sh->displays) / sizeof(sh->displays[0])))
		return shell_error("Too many displays (at most %d).",
				   (int)(sizeof(sh->displays) / sizeof(sh->displays[0])));
	d = &sh->displays[sh->ndisplays];
	d->expr = strdup(args);
	if (!d->expr)
		return shell_error("out of memory");
	sh->ndisplays++;
	d->num = ++sh->display_num;
	snprintf(d->fmt, sizeof(d->fmt), "%.*s", (int)flen, fmt);
	/* the block it depends on, as gdb notes it when parsing; an
	 * expression that does not parse here makes no display */
	d->has_block = 0;
	if (ptd_session_alive(sh->s) && shell_values_bind(sh) == 0) {
		struct ptd_value *val = NULL;
		int rc = ptd_values_eval_type(sh->vals, d->expr, &val);

		if (rc < 0 && rc != -ptde_nomap) {
			shell_error("%s", ptd_last_error(rc));
			free(d->expr);
			sh->ndisplays--;
			sh->display_num--;
			return -1;
		}
		if (rc == 0)
			d->has_block = ptd_values_expr_block(sh->vals, &d->blk_lo, &d->blk_hi) == 1;
		ptd_value_free(val);
	}
	ptd_clear_error();
	/* gdb shows a new display at once only to a user at the prompt */
	if (sh->from_tty && ptd_session_alive(sh->s))
		show_display(sh, d);
	return 0;
}

static int cmd_undisplay(struct shell *sh, const char *args)
{
	char word[64];
	uint64_t n;
	int i, found, failed = 0;

	args = skipws(args);
	if (!*args) {
		if (query(sh, "Delete all auto-display expressions? ")) {
			for (i = 0; i < sh->ndisplays; i++)
				free(sh->displays[i].expr);
			sh->ndisplays = 0;
		}
		return 0;
	}
	while (*args) {
		args = first_word(args, word, sizeof(word));
		if (parse_uint(word, &n) < 0)
			return shell_error("Arguments must be display numbers.");
		found = 0;
		for (i = 0; i < sh->ndisplays; i++) {
			if ((uint64_t)sh->displays[i].num != n)
				continue;
			free(sh->displays[i].expr);
			memmove(&sh->displays[i], &sh->displays[i + 1],
				sizeof(sh->displays[0]) * (size_t)(sh->ndisplays - i - 1));
			sh->ndisplays--;
			found = 1;
			break;
		}
		if (!found) {
			printf("No display number %" PRIu64 ".\n", n);
			failed = 1;
		}
	}
	return failed ? -1 : 0;
}

int shell_display_enable(struct shell *sh, const char *args, int on)
{
	char word[64];
	uint64_t n;
	int i, found, failed = 0;

	args = skipws(args);
	if (!*args) {
		for (i = 0; i < sh->ndisplays; i++)
			sh->displays[i].disabled = !on;
		return 0;
	}
	while (*args) {
		char *dash;
		uint64_t hi;

		args = first_word(args, word, sizeof(word));
		/* N or a range N-M, as gdb's number_or_range_parser */
		dash = strchr(word, '-');
		if (dash && dash != word)
			*dash++ = '\0';
		else
			dash = NULL;
		/* (gdb passes over what is not a number without a word) */
		if (parse_uint(word, &n) < 0 || (dash && (parse_uint(dash, &hi) < 0 || hi < n)))
			continue;
		if (!dash)
			hi = n;
		for (; n <= hi; n++) {
			found = 0;
			for (i = 0; i < sh->ndisplays; i++)
				if ((uint64_t)sh->displays[i].num == n) {
					sh->displays[i].disabled = !on;
					found = 1;
				}
			if (!found) {
				printf("No display number %" PRIu64 ".\n", n);
				failed = 1;
			}
		}
	}
	return failed ? -1 : 0;
}

static int info_display(struct shell *sh, const char *args)
{
	int i;

	if (!sh->ndisplays) {
		printf("There are no auto-display expressions now.\n");
		return 0;
	}
	printf("Auto-display expressions now in effect:\nNum Enb Expression\n");
	for (i = 0; i < sh->ndisplays; i++) {
		const struct shell_display *d = &sh->displays[i];

		if (d->fmt[0] && (strchr(d->fmt, 'i') || strchr(d->fmt, 's'))) {
			/* gdb lists memory formats in full: count, size, letter */
			char *end;
			unsigned long cnt = strtoul(d->fmt, &end, 10);
			char size = strpbrk(d->fmt, "bhwg") ? *strpbrk(d->fmt, "bhwg") : 'b';

			printf("%d:   %c  /%lu%c%c %s", d->num, d->disabled ? 'n' : 'y', cnt ? cnt : 1, size,
			       strchr(d->fmt, 'i') ? 'i' : 's', d->expr);
		} else if (d->fmt[0])
			printf("%d:   %c  /%s %s", d->num, d->disabled ? 'n' : 'y', d->fmt, d->expr);
		else
			printf("%d:   %c  %s", d->num, d->disabled ? 'n' : 'y', d->expr);
		/* gdb's note for a display of another block's locals */
		if (d->has_block && (shell_values_bind(sh) < 0 ||
				     !ptd_values_in_block(sh->vals, d->blk_lo, d->blk_hi)))
			printf(" (cannot be evaluated in the current context)");
		ptd_clear_error();
		putchar('\n');
	}
	return 0;
}

static int cmd_echo(struct shell *sh, const char *args)
{
	const char *p;

	/* gdb keeps the text after "echo " as is, with C escapes */
	for (p = args; *p; p++) {
		if (*p != '\\') {
			putchar(*p);
			continue;
		}
		switch (*++p) {
		case 'n': putchar('\n'); break;
		case 't': putchar('\t'); break;
		case 'a': putchar('\a'); break;
		case 'e': putchar('\033'); break;
		case '\\': putchar('\\'); break;
		case '"': putchar('"'); break;
		case '\'': putchar('\''); break;
		case '\0': p--; break;
		default: putchar(*p); break;
		}
	}
	fflush(stdout);
	return 0;
}

static int x_size_bytes(char size)
{
	switch (size) {
	case 'b': return 1;
	case 'h': return 2;
	case 'g': return 8;
	default: return 4;
	}
}

static void x_label(struct shell *sh, uint64_t addr)
{
	char sym[256];

	if (ptd_print_symbolize(&sh->pc, addr, sym, sizeof(sym)) >= 0)
		printf("0x%" PRIx64 " <%s>:", addr, sym);
	else
		printf("0x%" PRIx64 ":", addr);
}

static void put_c_char(int c, int quote)
{
	switch (c) {
	case '\n': printf("\\n"); return;
	case '\t': printf("\\t"); return;
	case '\r': printf("\\r"); return;
	case '\a': printf("\\a"); return;
	case '\b': printf("\\b"); return;
	case '\f': printf("\\f"); return;
	case '\v': printf("\\v"); return;
	case '\033': printf("\\033"); return;
	case '\\': printf("\\\\"); return;
	}
	if (c == quote)
		printf("\\%c", c);
	else if (isprint(c))
		putchar(c);
	else
		printf("\\%03o", c & 0xff);
}

/* gdb's $_ and $__ after x: the last unit examined and its contents */
static void x_set_last(struct shell *sh, uint64_t addr, int size, int contents)
{
	if (shell_values_bind(sh) == 0)
		ptd_values_set_last_examined(sh->vals, addr, size, contents);
	ptd_clear_error();
}

static int do_x(struct shell *sh, const char *args)
{
	uint64_t count = 1, addr, i, last = 0;
	char fmt = sh->x_fmt ? sh->x_fmt : 'x', size = sh->x_size ? sh->x_size : 'w';
	int size_given = 0, per_line, sz;
	enum expr_kind k;

	args = skipws(args);
	/* no expression and no format: the last count again, as gdb */
	if (!*args && sh->x_count > 0)
		count = sh->x_count;
	if (*args == '/') {
		char *end;

		args++;
		if (isdigit((unsigned char)*args)) {
			count = strtoull(args, &end, 10);
			args = end;
		}
		while (*args && !isspace((unsigned char)*args)) {
			char c = *args++;

			if (strchr("bhwg", c)) {
				size = c;
				size_given = 1;
			} else if (strchr("xduotacfsiz", c)) {
				fmt = c;
			} else {
				return shell_error("Invalid number \"%c\".", c);
			}
		}
	}
	args = skipws(args);
	shell_sync(sh);
	sh->x_count = count;
	if (*args) {
		if (shell_eval(sh, args, &addr, &k) < 0)
			return -1;
		if (k == EXPR_UNAVAILABLE)
			return shell_error("value is not available");
	} else if (sh->x_valid) {
		addr = sh->x_next;
	} else {
		return shell_error("Argument required (starting display address).");
	}
	if (ptd_session_replaying(sh->s) && fmt != 'i') {
		/* a warning, on stderr like gdb's warning(); code does not
		 * change, so x/i (and display/i $pc) needs none */
		fflush(stdout);
		fprintf(stderr, "warning: replaying: memory is shown as it is now, not as it was "
			"at this point of the history\n");
	}
	if (fmt == 'a' && !size_given)
		size = 'g';
	if (fmt == 'c' && !size_given)
		size = 'b';
	/* a float is a word or a giant: after b or h, gdb takes a giant */
	if (fmt == 'f' && !size_given && size != 'w' && size != 'g')
		size = 'g';
	sh->x_fmt = fmt;
	/* after strings and instructions the unit is a byte, as gdb's */
	sh->x_size = fmt != 'i' && fmt != 's' ? size : 'b';

	if (fmt == 'i') {
		uint64_t cur_pc = 0;

		selected_pc(sh, &cur_pc);
		for (i = 0; i < count; i++) {
			int len = ptd_print_insn(&sh->pc, 0, addr, cur_pc, PTD_DIS_SHORT_ADDR);

			if (len <= 0) {
				addr += 1;
				break;
			}
			last = addr;
			addr += (uint64_t)len;
		}
		sh->x_next = addr;
		sh->x_valid = 1;
		x_set_last(sh, last, 1, 0);
		return 0;
	}
	if (fmt == 's') {
		for (i = 0; i < count; i++) {
			unsigned char c;
			int n = 0;

			x_label(sh, addr);
			putchar('\t');
			if (shell_read(sh, addr, &c, 1) != 1) {
				printf("<error: Cannot access memory at address 0x%" PRIx64 ">\n",
				       addr);
				return -1;
			}
			putchar('"');
			while (shell_read(sh, addr, &c, 1) == 1 && c && n < 200) {
				put_c_char(c, '"');
				addr++;
				n++;
			}
			putchar('"');
			if (n == 200)
				printf("...");
			putchar('\n');
			last = addr - (uint64_t)n;
			addr++;
		}
		sh->x_next = addr;
		sh->x_valid = 1;
		x_set_last(sh, last, 1, 0);
		return 0;
	}

	if (!count)
		return 0;
	sz = x_size_bytes(size);
	per_line = sz == 1 ? 8 : sz == 2 ? 8 : sz == 4 ? 4 : 2;
	if (fmt == 'c')
		per_line = 8;
	for (i = 0; i < count; i++) {
		uint64_t v = 0;
		unsigned char buf[8];

		if (i % (uint64_t)per_line == 0) {
			if (i)
				putchar('\n');
			x_label(sh, addr);
		}
		putchar('\t');
		if (shell_read(sh, addr, buf, (size_t)sz) != sz) {
			fflush(stdout);
			printf("Cannot access memory at address 0x%" PRIx64 "\n", addr);
			sh->x_next = addr;
			sh->x_valid = 1;
			return -1;
		}
		memcpy(&v, buf, (size_t)sz);
		switch (fmt) {
		case 'x':
		case 'z':
			printf("0x%0*" PRIx64, sz * 2, v);
			break;
		case 'd': {
			int64_t sv = sz == 1 ? (int8_t)v : sz == 2 ? (int16_t)v : sz == 4 ? (int32_t)v
											 : (int64_t)v;
			printf("%" PRId64, sv);
			break;
		}
		case 'u':
			printf("%" PRIu64, v);
			break;
		case 'o':
			printf(v ? "0%" PRIo64 : "%" PRIo64, v);
			break;
		case 't': {
			int b;

			for (b = sz * 8 - 1; b >= 0; b--)
				putchar((v >> b) & 1 ? '1' : '0');
			break;
		}
		case 'c':
			printf("%d '", (int)(int8_t)v);
			put_c_char((int)(v & 0xff), '\'');
			putchar('\'');
			break;
		case 'f':
			/* as print shows a float (a word) or a double (a giant) */
			if (sz == 4 || sz == 8) {
				double d;
				float f;
				int neg = (int)(v >> (sz * 8 - 1)) & 1;

				if (sz == 4)
					memcpy(&f, buf, 4), d = f;
				else
					memcpy(&d, buf, 8);
				if (isnan(d))
					printf("%snan(0x%" PRIx64 ")", neg ? "-" : "",
					       sz == 4 ? v & 0x7fffff : v & UINT64_C(0xfffffffffffff));
				else if (isinf(d))
					printf(d < 0 ? "-inf" : "inf");
				else
					printf("%.*g", sz == 4 ? 9 : 17, d);
			} else {
				printf("%" PRId64, sz == 1 ? (int64_t)(int8_t)v : (int64_t)(int16_t)v);
			}
			break;
		case 'a': {
			char sym[256];

			if (ptd_print_symbolize(&sh->pc, v, sym, sizeof(sym)) >= 0)
				printf("0x%" PRIx64 " <%s>", v, sym);
			else
				printf("0x%" PRIx64, v);
			break;
		}
		default:
			printf("0x%0*" PRIx64, sz * 2, v);
			break;
		}
		addr += (uint64_t)sz;
	}
	putchar('\n');
	sh->x_next = addr;
	sh->x_valid = 1;
	x_set_last(sh, addr - (uint64_t)sz, sz, 1);
	return 0;
}

static int cmd_x(struct shell *sh, const char *args)
{
	/* repeating continues after the last address shown, same format */
	int rc = do_x(sh, args);

	if (sh->x_fmt == 'i' || sh->x_fmt == 's')
		snprintf(sh->repeat_as, sizeof(sh->repeat_as), "x/%" PRIu64 "%c", sh->x_count,
			 sh->x_fmt);
	else
		snprintf(sh->repeat_as, sizeof(sh->repeat_as), "x/%" PRIu64 "%c%c", sh->x_count,
			 sh->x_fmt, sh->x_size ? sh->x_size : 'w');
	return rc;
}

/* One source line of disassemble /s and /m: its text, or gdb's "in FILE". */
static void dis_source_line(struct shell *sh, const char *file, int line)
{
	char text[4096];

	if (ptd_symbols_source_line(sh->pc.sym, file, line, text, sizeof(text)) >= 0)
		printf("%d\t%s\n", line, text);
	else
		printf("%d\tin %s\n", line, ptd_print_file(&sh->pc, file));
	ptd_clear_error();
}

struct dis_row {
	uint64_t addr;
	int len;
	int line; /* 0: none */
	const char *file;
};

/* Whether an instruction of @r maps to @line of @file (gdb's
 * line_has_code_p over the range disassembled). */
static int dis_line_has_code(const struct dis_row *r, int n, const char *file, int line)
{
	for (int i = 0; i < n; i++)
		if (r[i].line == line && r[i].file && !strcmp(r[i].file, file))
			return 1;
	return 0;
}

/* gdb's disassemble /s: in address order, each change of line shows the
 * line first (going forward, with the lines before it that have no code
 * in the range), the file when it changes; /m (deprecated): in source
 * line order, each line's instructions together, the lines without code
 * between them shown with the next. */
static void dis_with_source(struct shell *sh, struct dis_row *r, int n, uint64_t cur_pc,
			    unsigned flags, int by_line)
{
	const char *last_file = NULL;
	int last_line = 0, first = 1, first_le = 0;
	struct ptd_line fl;

	/* (gdb's first_le: the first row at the start; its line and those
	 * up to the first instruction's show first) */
	if (n && ptd_symbols_first_line_at(sh->pc.sym, r[0].addr, &fl) == 0 && fl.file && r[0].file &&
	    !strcmp(fl.file, r[0].file))
		first_le = fl.line;
	ptd_clear_error();

	if (by_line) {
		int next_line = 0;

		/* each line with code, in order; its instructions by address */
		for (;;) {
			int line = 0;
			const char *file = NULL;

			for (int i = 0; i < n; i++)
				if (r[i].line > next_line && (!line || r[i].line < line)) {
					line = r[i].line;
					file = r[i].file;
				}
			if (!line)
				break;
			if (next_line && line > next_line + 1)
				for (int l = next_line + 1; l < line; l++)
					dis_source_line(sh, file, l);
			dis_source_line(sh, file, line);
			for (int i = 0; i < n; i++)
				if (r[i].line == line)
					ptd_print_insn(&sh->pc, 0, r[i].addr, cur_pc, flags);
			printf("\n");
			next_line = line;
		}
		/* (instructions without a line, after) */
		for (int i = 0; i < n; i++)
			if (!r[i].line)
				ptd_print_insn(&sh->pc, 0, r[i].addr, cur_pc, flags);
		return;
	}
	for (int i = 0; i < n; i++) {
		if (r[i].line && (!last_file || strcmp(r[i].file, last_file) || r[i].line != last_line)) {
			int start = r[i].line;

			if (!last_file || strcmp(r[i].file, last_file)) {
				if (!first)
					printf("\n");
				printf("%s:\n", ptd_print_file(&sh->pc, r[i].file));
				if (first && first_le && first_le < r[i].line)
					start = first_le;
			} else {
				printf("\n");
				if (r[i].line > last_line + 1) {
					int l;

					for (l = r[i].line - 1; l > last_line; --l)
						if (dis_line_has_code(r, n, r[i].file, l))
							break;
					if (l < r[i].line - 1)
						start = l + 1;
				}
			}
			for (int l = start; l <= r[i].line; l++)
				dis_source_line(sh, r[i].file, l);
			last_file = r[i].file;
			last_line = r[i].line;
			first = 0;
		}
		ptd_print_insn(&sh->pc, 0, r[i].addr, cur_pc, flags);
	}
}

/*
 * disassemble [/r|/m|/s] [FUNCTION|ADDRESS|START,END|START,+LENGTH]: a
 * function (the selected frame's, or the one holding ADDRESS), or a range
 * ("Dump of assembler code from A to B:", each instruction named
 * <func+off>).
 */
static int cmd_disassemble(struct shell *sh, const char *args)
{
	unsigned mods = 0, flags = PTD_DIS_OMIT_FNAME;
	uint64_t addr, cur_pc = 0, a, lo, hi;
	struct ptd_symbol s;
	enum expr_kind k;
	const char *comma;
	int range = 0;

	if (parse_modifiers(&args, "rmsb", &mods) < 0)
		return -1;
	if ((mods & 2) && (mods & 4))
		return shell_error("Cannot specify both /m and /s.");
	if (mods & (1 | 8))
		flags |= PTD_DIS_RAW;
	shell_sync(sh);
	if (ptd_session_alive(sh->s))
		selected_pc(sh, &cur_pc);
	args = skipws(args);
	comma = strchr(args, ',');
	if (!*args) {
		if (!ptd_session_alive(sh->s))
			return shell_error("No frame selected.");
		/* a caller's pc is a return address: its function is at pc - 1 */
		addr = sh->frame_level > 0 ? cur_pc - 1 : cur_pc;
		if (!sh->pc.sym || ptd_symbols_lookup(sh->pc.sym, addr, &s) < 0 || !s.size)
			return shell_error("No function contains program counter for selected frame.");
		lo = s.start;
		hi = s.start + s.size;
	} else if (comma) {
		char first[512];
		const char *second = skipws(comma + 1);
		uint64_t end;

		snprintf(first, sizeof(first), "%.*s", (int)(comma - args), args);
		if (shell_eval(sh, first, &lo, &k) < 0)
			return -1;
		if (*second == '+') {
			if (shell_eval(sh, second + 1, &end, &k) < 0)
				return -1;
			hi = lo + end;
		} else {
			if (shell_eval(sh, second, &hi, &k) < 0)
				return -1;
		}
		range = 1;
		flags &= ~(unsigned)PTD_DIS_OMIT_FNAME;
	} else {
		if (shell_eval(sh, args, &addr, &k) < 0)
			return -1;
		if (!sh->pc.sym || ptd_symbols_lookup(sh->pc.sym, addr, &s) < 0 || !s.size)
			return shell_error("No function contains specified address.");
		lo = s.start;
		hi = s.start + s.size;
	}
	if (range)
		printf("Dump of assembler code from 0x%" PRIx64 " to 0x%" PRIx64 ":\n", lo, hi);
	else
		printf("Dump of assembler code for function %s:\n", ptd_print_symname(s.name));
	if ((mods & (2 | 4)) && sh->pc.sym) {
		struct dis_row *r = NULL;
		int n = 0, cap = 0;

		/* the instructions first (their lines decide what shows) */
		for (a = lo; a < hi;) {
			struct ptd_insn_info in;
			uint8_t b[16];
			long got = sh->pc.read ? sh->pc.read(sh->pc.read_ctx, a, b, sizeof(b)) : -1;
			struct ptd_line li;

			if (got <= 0 || ptd_disasm_decode(b, (size_t)got, a, &in) < 0 || in.len <= 0)
				break;
			if (n == cap) {
				struct dis_row *nr = realloc(r, sizeof(*r) * (size_t)(cap = cap ? cap * 2 : 64));

				if (!nr) {
					free(r);
					return shell_error("out of memory");
				}
				r = nr;
			}
			r[n].addr = a;
			r[n].len = in.len;
			r[n].line = 0;
			r[n].file = NULL;
			if (ptd_symbols_line(sh->pc.sym, a, &li) == 0 && li.file && li.line > 0) {
				r[n].line = li.line;
				r[n].file = li.file;
			}
			ptd_clear_error();
			n++;
			a += (uint64_t)in.len;
		}
		dis_with_source(sh, r, n, cur_pc, flags, (mods & 2) != 0);
		free(r);
		printf("End of assembler dump.\n");
		return 0;
	}
	for (a = lo; a < hi;) {
		int len = ptd_print_insn(&sh->pc, 0, a, cur_pc, flags);

		if (len <= 0)
			break;
		a += (uint64_t)len;
	}
	printf("End of assembler dump.\n");
	return 0;
}

static void thread_target_id(struct shell *sh, const struct ptd_thread_info *t, int nthreads,
			     char *out, size_t n)
{
	char comm[64];

	thread_comm(sh, t->tid, comm, sizeof(comm));
	if (nthreads == 1 && t->tid == ptd_session_pid(sh->s))
		snprintf(out, n, "process %d", (int)t->tid);
	else
		snprintf(out, n, "LWP %d", (int)t->tid);
	if (comm[0]) {
		size_t used = strlen(out);

		snprintf(out + used, n - used, " \"%s\"", comm);
	}
}

static int info_threads(struct shell *sh, const char *args)
{
	struct ptd_thread_info *th;
	char (*ids)[96];
	int n, i, w = 9;

	if (!ptd_session_alive(sh->s) && !ptd_session_offline(sh->s)) {
		printf("No threads.\n");
		return 0;
	}
	shell_sync(sh);
	th = session_threads(sh, &n);
	if (!th)
		return -1;
	ids = calloc((size_t)n + 1, sizeof(*ids));
	if (!ids) {
		free(th);
		return shell_error("out of memory");
	}
	for (i = 0; i < n; i++) {
		thread_target_id(sh, &th[i], n, ids[i], sizeof(ids[i]));
		if ((int)strlen(ids[i]) > w)
			w = (int)strlen(ids[i]);
	}
	printf("  Id   %-*s Frame \n", w, "Target Id");
	for (i = 0; i < n; i++) {
		printf("%c %-4d %-*s ", th[i].current ? '*' : ' ', th[i].num, w, ids[i]);
		/* each thread's frame arguments are read in that thread, as
		 * gdb switches to it for the line */
		ptd_session_select_thread(sh->s, th[i].num);
		ptd_print_frame(&sh->pc, th[i].pc, -1, 0, -1, PTD_PRINT_LOCATION);
	}
	for (i = 0; i < n; i++)
		if (th[i].current)
			ptd_session_select_thread(sh->s, th[i].num);
	free(ids);
	free(th);
	return 0;
}

static int thread_apply(struct shell *sh, const char *args);

static int cmd_thread(struct shell *sh, const char *args)
{
	struct ptd_thread_info *th, t;
	uint64_t num;
	int n, i, rc;

	args = skipws(args);
	if (!strncmp(args, "apply", 5) && (!args[5] || isspace((unsigned char)args[5])))
		return thread_apply(sh, args + 5);

	if (!ptd_session_alive(sh->s) && !ptd_session_offline(sh->s))
		return shell_error("No thread selected");
	th = session_threads(sh, &n);
	if (!th)
		return -1;
	args = skipws(args);
	if (!*args) {
		for (i = 0; i < n; i++)
			if (th[i].current) {
				printf("[Current thread is %d (%s %d)]\n", th[i].num,
				       n == 1 ? "process" : "LWP", (int)th[i].tid);
			}
		free(th);
		return 0;
	}
	if (parse_uint(args, &num) < 0) {
		free(th);
		return shell_error("Invalid thread ID: %s", args);
	}
	for (i = 0; i < n; i++)
		if ((uint64_t)th[i].num == num)
			break;
	t = i < n ? th[i] : (struct ptd_thread_info){ 0 };
	free(th);
	if (i == n)
		return shell_error("Unknown thread %" PRIu64 ".", num);
	ptd_clear_error();
	rc = ptd_session_select_thread(sh->s, (int)num);
	if (rc < 0)
		return session_error(rc, NULL);
	clear_listing_state(sh);
	shell_sync(sh);
	sh->cur_thread = t.num;
	printf("[Switching to thread %d (%s %d)]\n", t.num, n == 1 ? "process" : "LWP",
	       (int)t.tid);
	print_current_frame(sh, 0, PTD_PRINT_SRC_AND_LOC);
	return 0;
}

/* The thread ID list at the start of @args ("1 3-4"): its length, or -1
 * with gdb's message for a malformed one.  The command follows it. */
static int parse_thread_list(const char *args, size_t *len)
{
	const char *p = args;
	int any = 0;

	for (;;) {
		const char *w = p;
		char *q;
		unsigned long lo, hi;

		if (!isdigit((unsigned char)*p))
			break;
		lo = hi = strtoul(p, &q, 10);
		if (*q == '-') {
			if (!isdigit((unsigned char)q[1]))
				return shell_error("negative value: %s", w);
			hi = strtoul(q + 1, &q, 10);
			if (hi < lo)
				return shell_error("inverted range");
		}
		if (*q && !isspace((unsigned char)*q))
			return shell_error("Invalid thread ID: %s", w);
		if (!lo)
			return shell_error("Invalid thread ID: %s", w);
		any = 1;
		p = skipws(q);
	}
	if (!any)
		return shell_error("Invalid thread ID: %s", args);
	*len = (size_t)(p - args);
	return 0;
}

/* One thread of `thread apply`: selects it, prints gdb's header and runs
 * @cmd.  With @silent, the header and the output appear only when the
 * command succeeded and printed something, and errors are not shown. */
static int apply_in_thread(struct shell *sh, const struct ptd_thread_info *t, int n,
			   const char *cmd, int quiet, int cont, int silent)
{
	char tid[96];
	FILE *cap = NULL;
	int saved = -1, saved_err = -1, r;

	if (ptd_session_select_thread(sh->s, t->num) < 0)
		return 0; /* gone since the list was read */
	clear_listing_state(sh);
	shell_sync(sh);
	thread_target_id(sh, t, n, tid, sizeof(tid));
	fflush(stdout);
	fflush(stderr);
	if (silent && (cap = tmpfile()) != NULL) {
		saved = dup(STDOUT_FILENO);
		saved_err = dup(STDERR_FILENO);
		if (saved < 0 || saved_err < 0 || dup2(fileno(cap), STDOUT_FILENO) < 0 ||
		    dup2(fileno(cap), STDERR_FILENO) < 0) {
			if (saved >= 0) {
				dup2(saved, STDOUT_FILENO);
				close(saved);
			}
			if (saved_err >= 0) {
				dup2(saved_err, STDERR_FILENO);
				close(saved_err);
			}
			fclose(cap);
			cap = NULL;
		}
	}
	if (!quiet && !cap)
		printf("\nThread %d (%s):\n", t->num, tid);
	r = shell_execute(sh, cmd, NULL);
	fflush(stdout);
	fflush(stderr);
	if (cap) {
		char buf[4096];
		size_t got;
		long len = ftell(cap);

		/* stdout and stderr back where they were */
		dup2(saved, STDOUT_FILENO);
		dup2(saved_err, STDERR_FILENO);
		close(saved);
		close(saved_err);
		if (r >= 0 && len > 0) {
			if (!quiet)
				printf("\nThread %d (%s):\n", t->num, tid);
			rewind(cap);
			while ((got = fread(buf, 1, sizeof(buf), cap)) > 0)
				fwrite(buf, 1, got, stdout);
			fflush(stdout);
		}
		fclose(cap);
		return 0;
	}
	return r < 0 && !cont && !silent ? r : 0;
}

/* thread apply all|LIST [-ascending] [-q] [-c] [-s] COMMAND: COMMAND in each
 * thread, newest first for "all" as gdb does, then the thread and frame
 * that were selected are selected again. */
static int thread_apply(struct shell *sh, const char *args)
{
	struct ptd_thread_info *th;
	int n, i, all = 0, ascending = 0, quiet = 0, cont = 0, silent = 0, rc = 0;
	int cur = 0;
	struct frame_sel saved = sel_save(sh);
	size_t listlen = 0;
	const char *list = NULL, *cmd;

	args = skipws(args);
	if (!strncmp(args, "all", 3) && (!args[3] || isspace((unsigned char)args[3]))) {
		all = 1;
		args = skipws(args + 3);
	} else if (!*args) {
		return shell_error("Please specify a thread ID list");
	} else {
		if (parse_thread_list(args, &listlen) < 0)
			return -1;
		list = args;
		args = skipws(args + listlen);
	}
	/* flags before the command, as gdb's -ascending, -q, -c and -s */
	while (*args == '-') {
		const char *w = args + 1;
		size_t wl = strcspn(w, " \t");

		if (wl && !strncmp(w, "ascending", wl) && all)
			ascending = 1;
		else if (wl == 1 && *w == 'q')
			quiet = 1;
		else if (wl == 1 && *w == 'c')
			cont = 1;
		else if (wl == 1 && *w == 's')
			silent = 1;
		else if (wl == 1 && *w == '-') {
			args = skipws(w + wl); /* "--" ends the flags */
			break;
		} else
			break;
		args = skipws(w + wl);
	}
	cmd = args;
	if (cont && silent)
		return shell_error("thread apply%s: -c and -s are mutually exclusive", all ? " all" : "");
	if (!*cmd)
		return shell_error(all ? "Please specify a command at the end of 'thread apply all'"
				       : "Please specify a command following the thread ID list");
	if (!ptd_session_alive(sh->s) && !ptd_session_offline(sh->s))
		return shell_error("No threads.");
	shell_sync(sh);
	th = session_threads(sh, &n);
	if (!th)
		return -1;
	for (i = 0; i < n; i++)
		if (th[i].current)
			cur = th[i].num;
	if (all) {
		for (int j = 0; j < n && !sh->quit && rc == 0; j++)
			rc = apply_in_thread(sh, &th[ascending ? j : n - 1 - j], n, cmd, quiet, cont,
					     silent);
	} else {
		/* the IDs in the order given; gdb warns about those that
		 * match no thread where it meets them */
		const char *p = list, *end = list + listlen;

		while (p < end && !sh->quit && rc == 0) {
			char *q;
			unsigned long lo = strtoul(p, &q, 10), hi = lo, k;

			if (*q == '-')
				hi = strtoul(q + 1, &q, 10);
			for (k = lo; k <= hi && rc == 0 && !sh->quit; k++) {
				for (i = 0; i < n; i++)
					if ((unsigned long)th[i].num == k)
						break;
				if (i == n) {
					printf("warning: Unknown thread %lu\n", k);
					if (hi - k > (unsigned long)n + 1000)
						break; /* "1-4000000000" */
					continue;
				}
				rc = apply_in_thread(sh, &th[i], n, cmd, quiet, cont, silent);
			}
			p = skipws(q);
		}
	}
	free(th);
	/* the selection as it was, without a word, as gdb restores it */
	if (cur && ptd_session_select_thread(sh->s, cur) == 0) {
		shell_sync(sh);
		sel_restore(sh, &saved);
	}
	ptd_clear_error();
	return rc;
}

static int info_line(struct shell *sh, const char *args)
{
	struct ptd_line li;
	uint64_t addr = 0;
	char s1[300], s2[300];
	int line = 0;
	const char *file = NULL;

	shell_sync(sh);
	if (!sh->pc.sym)
		return shell_error("No line number information available.");
	args = skipws(args);
	if (!*args) {
		struct ptd_line cur;
		int actual;

		/* gdb describes the current line (its first code), not the row
		 * containing the pc */
		if (ptd_session_pc(sh->s, &addr) < 0)
			return shell_error("No line number information available.");
		if (ptd_symbols_line(sh->pc.sym, addr, &cur) >= 0 && cur.file) {
			uint64_t first;

			if (ptd_symbols_file_line(sh->pc.sym, cur.file, cur.line, &first, &actual) >=
				    0 &&
			    actual == cur.line)
				addr = first;
		}
	} else if (*args == '*') {
		enum expr_kind k;

		if (shell_eval(sh, args + 1, &addr, &k) < 0)
			return -1;
	} else {
		const char *colon = strrchr(args, ':');
		char fbuf[PATH_MAX];
		uint64_t bp;

		if (all_digits(args) || (colon && all_digits(colon + 1))) {
			int actual;

			if (colon) {
				snprintf(fbuf, sizeof(fbuf), "%.*s", (int)(colon - args), args);
				line = atoi(colon + 1);
			} else {
				snprintf(fbuf, sizeof(fbuf), "%s", sh->list_file);
				line = atoi(args);
			}
			if (!fbuf[0] ||
			    ptd_symbols_file_line(sh->pc.sym, fbuf, line, &addr, &actual) < 0)
				return shell_error("Line %d is out of range for \"%s\".", line, fbuf);
			if (actual != line) {
				if (ptd_print_symbolize(&sh->pc, addr, s1, sizeof(s1)) < 0)
					s1[0] = '\0';
				printf("Line %d of \"%s\" is at address 0x%" PRIx64 " <%s> but contains "
				       "no code.\n", line, ptd_print_file(&sh->pc, fbuf), addr, s1);
				return 0;
			}
		} else if (ptd_symbols_function(sh->pc.sym, args, &addr, &bp) < 0) {
			return shell_error("Function \"%s\" not defined.", args);
		}
	}
	if (ptd_symbols_line(sh->pc.sym, addr, &li) < 0 || !li.file) {
		if (ptd_print_symbolize(&sh->pc, addr, s1, sizeof(s1)) >= 0)
			printf("No line number information available for address 0x%" PRIx64
			       " <%s>\n", addr, s1);
		else
			printf("No line number information available for address 0x%" PRIx64 "\n",
			       addr);
		return 0;
	}
	file = li.file;
	line = li.line;
	if (ptd_print_symbolize(&sh->pc, li.lo, s1, sizeof(s1)) < 0)
		s1[0] = '\0';
	if (ptd_print_symbolize(&sh->pc, li.hi, s2, sizeof(s2)) < 0)
		s2[0] = '\0';
	printf("Line %d of \"%s\" starts at address 0x%" PRIx64 " <%s> and ends at 0x%" PRIx64
	       " <%s>.\n", line, ptd_print_file(&sh->pc, file), li.lo, s1, li.hi, s2);
	snprintf(sh->list_file, sizeof(sh->list_file), "%s", file);
	sh->x_next = li.lo;
	sh->x_valid = 1;
	sh->x_fmt = 'i';
	return 0;
}

static int do_list(struct shell *sh, const char *args);

static int cmd_list(struct shell *sh, const char *args)
{
	snprintf(sh->repeat_as, sizeof(sh->repeat_as), "list");
	return do_list(sh, args);
}

/* Nothing listed yet: gdb's default source file is main's, at the lines
 * before main's body. */
static int list_default_file(struct shell *sh)
{
	struct ptd_line li;
	uint64_t addr, bp;

	if (!sh->pc.sym || ptd_symbols_function(sh->pc.sym, "main", &addr, &bp) < 0)
		return shell_error(NO_SYMTAB);
	if (ptd_symbols_line(sh->pc.sym, bp, &li) < 0 || !li.file)
		return shell_error("No line number known for main.");
	snprintf(sh->list_file, sizeof(sh->list_file), "%s", li.file);
	sh->list_line = li.line > shell_listsize(sh) - 1 ? li.line - (shell_listsize(sh) - 1) : 1;
	sh->list_next = 0;
	return 0;
}

static int do_list(struct shell *sh, const char *args)
{
	char text[4096], fbuf[PATH_MAX];
	int first = 1, last, l, center = 0, size = shell_listsize(sh);
	uint64_t addr, bp;

	shell_sync(sh);
	args = skipws(args);
	if (!strcmp(args, "-") && sh->list_next) {
		/* the ten lines before the ones last printed; with nothing
		 * listed since the last stop, gdb 13 lists around it, as
		 * `list` does */
		last = sh->list_first - 1;
		if (last < 1)
			return shell_error("Already at the start of %s.",
					   ptd_print_file(&sh->pc, sh->list_file));
		first = last > size - 1 ? last - (size - 1) : 1;
		goto show;
	}
	if (!strcmp(args, "+") || !strcmp(args, "-"))
		args = "";
	if (!*args) {
		if (!sh->list_file[0] && list_default_file(sh) < 0)
			return -1;
		if (sh->list_next)
			first = sh->list_next;
		else
			center = sh->list_line;
	} else {
		const char *colon = strrchr(args, ':');
		const char *comma = strchr(args, ',');

		/* "list N" and "list N,M" with no file listed yet: main's file */
		if (!sh->list_file[0] && (all_digits(args) || comma) &&
		    list_default_file(sh) < 0)
			return -1;
		if (comma) {
			/* "N,M", "N," (ten lines from N), ",M" (ten lines ending at M) */
			const char *m = skipws(comma + 1);

			if (comma == args) {
				last = atoi(m);
				first = last > size - 1 ? last - (size - 1) : 1;
			} else {
				first = atoi(args);
				last = *m ? atoi(m) : first + (size - 1);
			}
			if (first < 1 || last < first)
				return shell_error("Invalid line range.");
			goto show;
		}
		if (colon && all_digits(colon + 1)) {
			struct ptd_line fl;
			uint64_t fa;
			int al;

			snprintf(fbuf, sizeof(fbuf), "%.*s", (int)(colon - args), args);
			/* the file the line table names so (its full name),
			 * wherever ptdbg runs */
			if (sh->pc.sym && ptd_symbols_file_line(sh->pc.sym, fbuf, 1, &fa, &al) == 0 &&
			    ptd_symbols_line(sh->pc.sym, fa, &fl) == 0 && fl.file && fl.file[0] == '/')
				snprintf(fbuf, sizeof(fbuf), "%s", fl.file);
			ptd_clear_error();
			snprintf(sh->list_file, sizeof(sh->list_file), "%s", fbuf);
			center = atoi(colon + 1);
		} else if (all_digits(args)) {
			center = atoi(args);
		} else {
			struct ptd_line li;

			if (!sh->pc.sym)
				return shell_error(NO_SYMTAB);
			if (ptd_symbols_function(sh->pc.sym, args, &addr, &bp) < 0)
				return shell_error("Function \"%s\" not defined.", args);
			if (ptd_symbols_line(sh->pc.sym, addr, &li) < 0 || !li.file)
				return shell_error("No line number known for %s.", args);
			snprintf(sh->list_file, sizeof(sh->list_file), "%s", li.file);
			center = li.line;
		}
		if (!sh->list_file[0])
			return shell_error(NO_SYMTAB);
	}
	if (center) {
		first = center - size / 2;
		if (first < 1)
			first = 1;
	}
	last = first + (size - 1);
show:
	if (!sh->pc.sym)
		return shell_error(NO_SYMTAB);
	for (l = first; l <= last; l++) {
		if (ptd_symbols_source_line(sh->pc.sym, sh->list_file, l, text, sizeof(text)) < 0) {
			if (l == first) {
				struct ptd_source_info si;
				int n = 0;

				sh->list_next = l;
				if (ptd_symbols_source_info(sh->pc.sym, sh->list_file, 0, &si) == 0) {
					if (si.lines < 0) {
						/* a file not on this disk: gdb names the
						 * line and the file only */
						ptd_clear_error();
						printf("%d\tin %s\n", l,
						       ptd_print_file(&sh->pc, sh->list_file));
						sh->list_first = first;
						sh->list_next = l + 1;
						sh->search_base = first;
						return 0;
					}
					n = si.lines;
				}
				ptd_clear_error();
				return shell_error("Line number %d out of range; %s has %d lines.", l,
						   ptd_print_file(&sh->pc, sh->list_file), n);
			}
			break;
		}
		printf("%d\t%s\n", l, text);
	}
	sh->list_first = first;
	sh->list_next = l;
	sh->search_base = first;
	return 0;
}

/*
 * forward-search REGEX (search, fo) and reverse-search REGEX (rev): the
 * next line of the current source file after (before) the last one
 * listed that matches, as gdb's (its regular expressions: re_comp's,
 * the last one again without REGEX); `list` then lists around it.
 */
static int do_search(struct shell *sh, const char *args, int forward)
{
	char text[4096];
	const char *err;
	int l;

	args = skipws(args);
	err = re_comp(*args ? args : NULL);
	if (err) /* (gdb's regex says it the older way) */
		return shell_error("%s", !strcmp(err, "Unmatched [, [^, [:, [., or [=") ? "Unmatched [ or [^"
										       : err);
	if (!sh->list_file[0] && list_default_file(sh) < 0)
		return -1;
	if (!sh->pc.sym)
		return shell_error(NO_SYMTAB);
	for (l = forward ? sh->search_base + 1 : sh->search_base - 1; l >= 1; l += forward ? 1 : -1) {
		if (ptd_symbols_source_line(sh->pc.sym, sh->list_file, l, text, sizeof(text)) < 0)
			break;
		if (re_exec(text) == 1) {
			printf("%d\t%s\n", l, text);
			sh->search_base = l;
			sh->list_line = l;
			sh->list_next = 0;
			return 0;
		}
	}
	ptd_clear_error();
	printf("Expression not found\n");
	return 0;
}

static int cmd_forward_search(struct shell *sh, const char *args)
{
	return do_search(sh, args, 1);
}

static int cmd_reverse_search(struct shell *sh, const char *args)
{
	return do_search(sh, args, 0);
}

/* The next line of the file being sourced (`commands` reads its body so). */
static char *source_read_line(struct shell *sh)
{
	char *line = NULL;
	size_t cap = 0;
	ssize_t len = getline(&line, &cap, (FILE *)sh->read_line_ctx);

	if (len < 0) {
		free(line);
		return NULL;
	}
	if (len && line[len - 1] == '\n')
		line[len - 1] = '\0';
	if (src_depth > 0)
		src_stack[src_depth - 1].line++;
	return line;
}

int shell_source(struct shell *sh, const char *path)
{
	FILE *f = fopen(path, "r");
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	int rc = 0, saved = sh->from_tty;

	struct stat st;

	/* a file that cannot be read is gdb's warning, not an error: the
	 * commands around go on */
	if (f && fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode)) {
		fclose(f);
		f = NULL;
		errno = EISDIR;
	}
	if (!f) {
		int e = errno;

		fflush(stdout);
		fprintf(stderr, "warning: %s: %s\n", path, strerror(e));
		fflush(stderr);
		return 0;
	}
	int level = src_depth, verbose = src_verbose;

	if (level >= SRC_NEST) {
		fclose(f);
		return shell_error("%s: sourced files nested too deeply.", path);
	}
	char *(*outer_read)(struct shell *) = sh->read_line;
	void *outer_ctx = sh->read_line_ctx;

	src_verbose = 0;
	src_depth++;
	src_stack[level].file = path;
	src_stack[level].line = 0;
	sh->read_line = source_read_line;
	sh->read_line_ctx = f;
	sh->from_tty = 0;
	while (!sh->quit && (len = getline(&line, &cap, f)) >= 0) {
		if (len && line[len - 1] == '\n')
			line[len - 1] = '\0';
		src_stack[level].line++;
		src_stack[level].told = 0;
		if (verbose && *skipws(line) && *skipws(line) != '#')
			printf("+%s\n", skipws(line));
		rc = shell_execute(sh, line, NULL);
		fflush(stdout);
		if (rc < 0)
			break;
	}
	src_depth = level;
	sh->read_line = outer_read;
	sh->read_line_ctx = outer_ctx;
	sh->from_tty = saved;
	free(line);
	fclose(f);
	return rc;
}

static int cmd_source(struct shell *sh, const char *args)
{
	int verbose = 0;

	args = skipws(args);
	/* -v echoes the commands, -s (search the path) is as without */
	while (*args == '-' && (args[1] == 'v' || args[1] == 's') &&
	       (!args[2] || isspace((unsigned char)args[2]))) {
		verbose |= args[1] == 'v';
		args = skipws(args + 2);
	}
	if (!*args)
		return shell_error("source command requires file name of file to source.");
	src_verbose = verbose;
	return shell_source(sh, args);
}

/* Sets the program and its arguments (the words of sh->run_args). */
static int set_program_and_args(struct shell *sh, const char *prog)
{
	char **words = NULL, **argv;
	struct ptd_redirect *rd = NULL;
	int nrd = 0, n = split_args_redir(prog_args(sh), &words, &rd, &nrd), i, rc;

	if (n == -2)
		return -1;
	if (n < 0) {
		free_redirs(rd, nrd);
		return shell_error("out of memory");
	}
	argv = calloc((size_t)n + 2, sizeof(*argv));
	if (!argv) {
		free_args(words);
		free_redirs(rd, nrd);
		return shell_error("out of memory");
	}
	argv[0] = (char *)prog;
	for (i = 0; i < n; i++)
		argv[i + 1] = words[i];
	ptd_clear_error();
	rc = ptd_session_set_program(sh->s, argv);
	if (rc == 0)
		rc = ptd_session_set_redirects(sh->s, rd, nrd);
	free(argv);
	free_args(words);
	free_redirs(rd, nrd);
	if (rc < 0)
		return session_error(rc, NULL);
	/* A new program drops the old one's symbols: the print context
	 * must not keep pointing at them (`start ARGS` printed through it). */
	sh->pc.sym = ptd_session_symbols(sh->s);
	return 0;
}

static int cmd_file(struct shell *sh, const char *args)
{
	char path[PATH_MAX];

	args = skipws(args);
	if (!*args)
		return shell_error("No executable file now.");
	snprintf(path, sizeof(path), "%s", args);
	if (access(path, F_OK) < 0)
		return shell_error("%s: %s.", path, strerror(errno));
	if (ptd_session_alive(sh->s))
		return shell_error("A program is being debugged already.  Kill it first.");
	if (set_program_and_args(sh, path) < 0)
		return -1;
	sh->list_file[0] = '\0';
	sh->list_next = 0;
	printf("Reading symbols from %s...\n", path);
	return 0;
}

static int set_args(struct shell *sh, const char *args)
{
	const char *prog = ptd_session_program(sh->s);
	char *saved = sh->run_args;

	sh->run_args = NULL;
	if (shell_set_run_args(sh, skipws(args)) < 0) {
		sh->run_args = saved;
		return shell_error("out of memory");
	}
	if (prog && set_program_and_args(sh, prog) < 0) {
		free(sh->run_args);
		sh->run_args = saved;
		return -1;
	}
	free(saved);
	return 0; /* without a program: kept for the next "file" */
}

static int show_args(struct shell *sh, const char *args)
{
	printf("Argument list to give program being debugged when it is started is \"%s\".\n",
	       prog_args(sh));
	return 0;
}

/* ------------------------------------------------------------------ */
/* Settings, help                                                       */

static int parse_on_off(const char *args, int *on)
{
	args = skipws(args);
	if (!*args || !strcmp(args, "on") || !strcmp(args, "1") || !strcmp(args, "yes") ||
	    !strcmp(args, "enable")) {
		*on = 1;
		return 0;
	}
	if (!strcmp(args, "off") || !strcmp(args, "0") || !strcmp(args, "no") ||
	    !strcmp(args, "disable")) {
		*on = 0;
		return 0;
	}
	return shell_error("\"on\" or \"off\" expected.");
}

static int set_disable_randomization(struct shell *sh, const char *args)
{
	int on = 0;

	if (parse_on_off(args, &on) < 0)
		return -1;
	ptd_session_set_disable_aslr(sh->s, on);
	return 0;
}

static int set_pin_cpu(struct shell *sh, const char *args)
{
	int on = 0;

	if (parse_on_off(args, &on) < 0)
		return -1;
	ptd_session_set_pin_cpu(sh->s, on);
	return 0;
}

static int show_pin_cpu(struct shell *sh, const char *args)
{
	printf("Running ptdbg and the recorded threads on one CPU is %s.\n",
	       ptd_session_get_pin_cpu(sh->s) ? "on" : "off");
	return 0;
}

static int set_confirm(struct shell *sh, const char *args)
{
	return parse_on_off(args, &sh->confirm);
}

/* set inferior-tty [TTY] (and tty [TTY]): the terminal of the next run;
 * none without an argument, as gdb's optional filename (~ is $HOME). */
static int set_inferior_tty(struct shell *sh, const char *args)
{
	const char *home = getenv("HOME");
	char path[PATH_MAX];
	int rc;

	args = skipws(args);
	if (args[0] == '~' && (!args[1] || args[1] == '/') && home)
		snprintf(path, sizeof(path), "%s%s", home, args + 1);
	else
		snprintf(path, sizeof(path), "%s", args);
	ptd_clear_error();
	rc = ptd_session_set_tty(sh->s, path);
	if (rc < 0)
		return session_error(rc, NULL);
	return 0;
}

static int show_inferior_tty(struct shell *sh, const char *args)
{
	(void)args;
	printf("Terminal for future runs of program being debugged is \"%s\".\n",
	       ptd_session_tty(sh->s));
	return 0;
}

static int show_confirm(struct shell *sh, const char *args)
{
	(void)args;
	printf("Whether to confirm potentially dangerous operations is %s.\n",
	       sh->confirm ? "on" : "off");
	return 0;
}

static int set_ignored(struct shell *sh, const char *args)
{
	return 0;
}

static int set_size(const char *args, int *size)
{
	uint64_t v;

	args = skipws(args);
	if (!strcmp(args, "unlimited")) {
		*size = INT32_MAX;
		return 0;
	}
	if (parse_uint(args, &v) < 0)
		return shell_error("integer %s out of range", args);
	/* 0 means unlimited, as in gdb */
	*size = v == 0 || v > INT32_MAX ? INT32_MAX : (int)v;
	return 0;
}

/* "64M", "65536", "1G", "unlimited" (0): bytes. */
static int parse_bytes(const char *args, uint64_t *out)
{
	char *end;
	uint64_t v, mul = 1;

	args = skipws(args);
	if (!strcmp(args, "unlimited")) {
		*out = 0;
		return 0;
	}
	if (!isdigit((unsigned char)*args))
		return -1;
	errno = 0;
	v = strtoull(args, &end, 10);
	if (errno)
		return -1;
	switch (*end) {
	case 'k': case 'K': mul = 1ull << 10; end++; break;
	case 'm': case 'M': mul = 1ull << 20; end++; break;
	case 'g': case 'G': mul = 1ull << 30; end++; break;
	default: break;
	}
	if (*skipws(end) || (v && mul > UINT64_MAX / v))
		return -1;
	*out = v * mul;
	return 0;
}

/* A byte count as gdb's "info record" shows a buffer size: 64MB, 512kB. */
static void print_bytes(uint64_t v)
{
	if (!v)
		printf("unlimited");
	else if (v % (1ull << 30) == 0)
		printf("%" PRIu64 "GB", v >> 30);
	else if (v % (1ull << 20) == 0)
		printf("%" PRIu64 "MB", v >> 20);
	else if (v % (1ull << 10) == 0)
		printf("%" PRIu64 "kB", v >> 10);
	else
		printf("%" PRIu64 " bytes", v);
}

/* set record soft|step buffer-size SIZE */
static int set_record_buffer(struct shell *sh, enum ptd_method m, const char *args)
{
	char word[64];
	uint64_t v;
	int rc;

	args = first_word(args, word, sizeof(word));
	if (strcmp(word, "buffer-size"))
		return shell_error("Undefined set record %s command: \"%s\".  Try \"help set record\".",
				   ptd_method_name(m), word);
	if (parse_bytes(args, &v) < 0)
		return shell_error("invalid buffer-size \"%s\" (bytes, with K, M or G, or unlimited)",
				   skipws(args));
	ptd_clear_error();
	rc = ptd_session_set_buffer_size(sh->s, m, v);
	if (rc < 0)
		return session_error(rc, NULL);
	return 0;
}

/* set record pt NAME VALUE, set record bts buffer-size SIZE */
static int set_record_hw(struct shell *sh, enum ptd_method m, const char *args)
{
	char word[64];
	int rc;

	args = first_word(args, word, sizeof(word));
	if (!word[0])
		return shell_error("\"set record %s\" must be followed by a setting.  Try \"help set "
				   "record\".", ptd_method_name(m));
	ptd_clear_error();
	rc = ptd_session_set_record_option(sh->s, m, word, args);
	if (rc < 0)
		return session_error(rc, NULL);
	return 0;
}

/* set record stop-at-thread-exit, for show (the session's default: on) */
static int stop_at_thread_exit = 1;

static int set_record(struct shell *sh, const char *args)
{
	char word[64];

	args = first_word(args, word, sizeof(word));
	/* gdb's spelling: set record btrace pt|bts buffer-size N */
	if (!strcmp(word, "btrace"))
		args = first_word(args, word, sizeof(word));
	if (!strcmp(word, "pt"))
		return set_record_hw(sh, PTD_METHOD_PT, args);
	if (!strcmp(word, "bts"))
		return set_record_hw(sh, PTD_METHOD_BTS, args);
	if (!strcmp(word, "soft"))
		return set_record_buffer(sh, PTD_METHOD_SOFT, args);
	if (!strcmp(word, "step") || !strcmp(word, "full"))
		return set_record_buffer(sh, PTD_METHOD_STEP, args);
	if (!strcmp(word, "stop-at-thread-exit")) {
		/* ptdbg's answer to gdb's question before a thread's exit */
		int on;

		if (parse_on_off(args, &on) < 0)
			return -1;
		ptd_session_set_stop_before_thread_exit(sh->s, on);
		stop_at_thread_exit = on;
		return 0;
	}
	if (!strcmp(word, "instruction-history-size"))
		return set_size(args, &sh->insn_history_size);
	if (!strcmp(word, "function-call-history-size"))
		return set_size(args, &sh->call_history_size);
	return shell_error("Undefined set record command: \"%s\".  Try \"help set record\".", word);
}

static int show_disable_randomization(struct shell *sh, const char *args)
{
	printf("Disabling randomization of debuggee's virtual address space is %s.\n",
	       ptd_session_get_disable_aslr(sh->s) ? "on" : "off");
	return 0;
}

static int show_version(struct shell *sh, const char *args)
{
	printf("ptdbg %d.%d\n", PTD_VERSION_MAJOR, PTD_VERSION_MINOR);
	printf("Reverse execution history for Linux x86-64 programs (ptrace, Intel PT, BTS,\n"
	       "software branch recording, single stepping).\n");
	return 0;
}

/* The settings `show record pt` and `show record bts` list. */
static const char *const pt_settings[] = {
	"buffer-size", "buffer", "kernel", "ret-compression", "tsc", "mtc", "cyc", "psb-period",
	"filter", NULL,
};
static const char *const bts_settings[] = { "buffer-size", NULL };

/* One pt or bts setting as "show record pt NAME" prints it. */
static int show_record_hw(struct shell *sh, enum ptd_method m, const char *name)
{
	char buf[4096];
	int rc;

	ptd_clear_error();
	rc = ptd_session_get_record_option(sh->s, m, name, buf, sizeof(buf));
	if (rc < 0)
		return session_error(rc, NULL);
	if (!strcmp(name, "buffer-size")) {
		printf("The record %s buffer size is ", ptd_method_name(m));
		print_bytes(strtoull(buf, NULL, 10));
		printf(" per thread.\n");
	} else if (!strcmp(name, "filter")) {
		/* the session gives one filter a line */
		int several = strchr(buf, '\n') != NULL;

		for (char *p = buf; (p = strchr(p, '\n')) != NULL;)
			*p = ',';
		printf("The record %s filter%s ", ptd_method_name(m), several ? "s are" : " is");
		for (const char *p = buf; *p; p++) {
			putchar(*p);
			if (*p == ',')
				putchar(' ');
		}
		printf(".\n");
	} else {
		printf("The record %s %s is %s.\n", ptd_method_name(m), name, buf);
	}
	return 0;
}

/* show record pt [NAME], show record bts [buffer-size] */
static int show_record_hw_cmd(struct shell *sh, enum ptd_method m, const char *args)
{
	const char *const *names = m == PTD_METHOD_PT ? pt_settings : bts_settings;
	char word[64];

	first_word(args, word, sizeof(word));
	if (word[0])
		return show_record_hw(sh, m, word);
	for (int i = 0; names[i]; i++)
		if (show_record_hw(sh, m, names[i]) < 0)
			return -1;
	return 0;
}

static int show_record(struct shell *sh, const char *args)
{
	char word[64];

	args = first_word(args, word, sizeof(word));
	if (!strcmp(word, "btrace"))
		args = first_word(args, word, sizeof(word));
	if (!strcmp(word, "pt"))
		return show_record_hw_cmd(sh, PTD_METHOD_PT, args);
	if (!strcmp(word, "bts"))
		return show_record_hw_cmd(sh, PTD_METHOD_BTS, args);
	if (!strcmp(word, "soft") || !strcmp(word, "step") || !strcmp(word, "full")) {
		enum ptd_method m = strcmp(word, "soft") ? PTD_METHOD_STEP : PTD_METHOD_SOFT;
		first_word(args, word, sizeof(word));
		if (strcmp(word, "buffer-size"))
			return shell_error("Undefined show record %s command: \"%s\".  Try \"help show "
					   "record\".", ptd_method_name(m), word);
		printf("The record %s buffer size is ", ptd_method_name(m));
		print_bytes(ptd_session_buffer_size(sh->s, m));
		printf(" per thread.\n");
	} else if (!strcmp(word, "stop-at-thread-exit"))
		printf("Stopping before a thread's exit while recording is %s.\n",
		       stop_at_thread_exit ? "on" : "off");
	else if (!strcmp(word, "instruction-history-size"))
		printf("Number of instructions to print in \"record instruction-history\" is %d.\n",
		       sh->insn_history_size);
	else if (!strcmp(word, "function-call-history-size"))
		printf("Number of functions to print in \"record function-call-history\" is %d.\n",
		       sh->call_history_size);
	else
		return shell_error("Undefined show record command: \"%s\".  Try \"help show record\".",
				   word);
	return 0;
}

static void doctor_line(void *ctx, const char *text)
{
	(void)ctx;
	printf("%s\n", text);
}

/* doctor: what ptdbg can record with here, and why (record/doctor.h). */
static int cmd_doctor(struct shell *sh, const char *args)
{
	int rc;

	(void)sh;
	if (*skipws(args))
		return shell_error("\"doctor\" takes no arguments.");
	ptd_clear_error();
	rc = ptd_doctor_report(doctor_line, NULL, NULL);
	if (rc < 0)
		return session_error(rc, NULL);
	return 0;
}

static int cmd_help(struct shell *sh, const char *args);
static int cmd_info(struct shell *sh, const char *args);
static int cmd_maint(struct shell *sh, const char *args);
static int cmd_record(struct shell *sh, const char *args);
static int cmd_set(struct shell *sh, const char *args);
static int cmd_show(struct shell *sh, const char *args);
static int cmd_with(struct shell *sh, const char *args);

/* info source: the current source file (the one `list` and the last stop
 * chose), as gdb 13 describes it. */
static int info_source(struct shell *sh, const char *args)
{
	struct ptd_source_info si;
	uint64_t pc = 0;

	(void)args;
	if (!sh->list_file[0] || !sh->pc.sym) {
		printf("No current source file.\n");
		return 0;
	}
	if (ptd_session_alive(sh->s) || ptd_session_offline(sh->s))
		selected_pc(sh, &pc);
	ptd_clear_error();
	if (ptd_symbols_source_info(sh->pc.sym, sh->list_file, pc, &si) < 0) {
		ptd_clear_error();
		printf("No current source file.\n");
		return 0;
	}
	printf("Current source file is %s\n", si.name);
	if (si.comp_dir)
		printf("Compilation directory is %s\n", si.comp_dir);
	if (si.fullname[0])
		printf("Located in %s\n", si.fullname);
	if (si.lines >= 0)
		printf("Contains %d lines.\n", si.lines);
	printf("Source language is %s.\n", si.language);
	if (si.producer)
		printf("Producer is %s.\n", si.producer);
	if (si.dwarf_version)
		printf("Compiled with DWARF %d debugging format.\n", si.dwarf_version);
	printf("%s preprocessor macro info.\n", si.has_macros ? "Includes" : "Does not include");
	return 0;
}

static const struct cmd info_cmds[] = {
	{ "address", 2, shell_info_address, CMD_REPEAT, "Describe where symbol SYM is stored." },
	{ "all-registers", 2, info_all_registers, CMD_REPEAT,
	  "All registers: general, x87, SSE, AVX-512 mask and vector registers." },
	{ "args", 0, shell_info_args, CMD_REPEAT, "Argument variables of the selected frame." },
	{ "auxv", 2, shell_info_auxv, CMD_REPEAT,
	  "Display the inferior's auxiliary vector (the information the operating system\n"
	  "gives the program at startup)." },
	{ "breakpoints", 1, info_breakpoints, CMD_REPEAT, "Status of breakpoints." },
	{ "display", 0, info_display, CMD_REPEAT, "Expressions to display when the program stops." },
	{ "files", 3, shell_info_files, CMD_REPEAT,
	  "Names of targets and files being debugged: the executable's and the shared\n"
	  "libraries' sections and the addresses they are at." },
	{ "frame", 1, shell_info_frame, CMD_REPEAT, "All about the selected stack frame." },
	{ "functions", 2, shell_info_functions, CMD_REPEAT,
	  "All function names, or those matching REGEXP: info functions [-q] [-n] [REGEXP]." },
	{ "inferiors", 3, shell_info_inferiors, CMD_REPEAT, "Print a list of inferiors being managed." },
	{ "line", 0, info_line, CMD_REPEAT, "Core addresses of the code for a source line." },
	{ "locals", 2, shell_info_locals, CMD_REPEAT, "Local variables of the selected frame." },
	{ "proc", 2, shell_info_proc, CMD_REPEAT,
	  "Show additional information about a process (from /proc): info proc\n"
	  "[mappings|cmdline|cwd|exe|stat|status|all] [PID]." },
	{ "record", 3, info_record, CMD_REPEAT, "Info record options: method, counts, position." },
	{ "registers", 1, info_registers, CMD_REPEAT, "List of registers and their contents." },
	{ "scope", 2, shell_info_scope, CMD_REPEAT,
	  "List the variables local to a scope: info scope LINESPEC (their locations)." },
	{ "sharedlibrary", 2, shell_info_sharedlibrary, CMD_REPEAT,
	  "Status of loaded shared object libraries." },
	{ "skip", 2, shell_info_skip, CMD_REPEAT,
	  "Display the status of skips: info skip [N...] (all without arguments)." },
	{ "source", 2, info_source, CMD_REPEAT, "Information about the current source file." },
	{ "signals", 3, shell_info_signals, CMD_REPEAT,
	  "What debugger does when program gets various signals: info signals [SIG]." },
	{ "handle", 0, shell_info_signals, CMD_REPEAT | CMD_ALIAS, "signals" },
	{ "symbol", 2, shell_info_symbol, CMD_REPEAT, "Describe what symbol is at location ADDR." },
	{ "target", 3, shell_info_files, CMD_REPEAT | CMD_ALIAS, "files" },
	{ "threads", 0, info_threads, CMD_REPEAT, "Display currently known threads." },
	{ "types", 2, shell_info_types, CMD_REPEAT,
	  "All type names, or those matching REGEXP: info types [-q] [REGEXP]." },
	{ "variables", 1, shell_info_variables, CMD_REPEAT,
	  "All global and static variable names, or those matching REGEXP." },
	{ "watchpoints", 0, shell_info_watchpoints, CMD_REPEAT, "Status of watchpoints." },
	{ NULL },
};

static const struct cmd record_cmds[] = {
	{ "stop", 1, cmd_record_stop, 0, "Stop the record/replay target." },
	{ "step", 0, cmd_record_step, 0, "Start recording with the single-step recorder." },
	{ "full", 0, cmd_record_step, 0,
	  "Start recording (gdb name; uses the single-step recorder)." },
	{ "soft", 0, cmd_record_soft, 0, "Start recording with the software branch recorder." },
	{ "pt", 0, cmd_record_pt, 0,
	  "Start recording with Intel Processor Trace.\n"
	  "record pt filter FUNCTION|FILE|START/SIZE@FILE adds an address filter for the next\n"
	  "pt recording (up to 4 and the CPU's num_address_ranges); record pt filter none\n"
	  "removes them; record pt filter shows them." },
	{ "bts", 0, cmd_record_bts, 0, "Start recording with Branch Trace Store." },
	{ "btrace", 0, cmd_record_btrace, 0,
	  "Start branch recording: record btrace pt or record btrace bts takes that method,\n"
	  "record btrace alone the first that works of pt, bts and soft." },
	{ "auto", 0, cmd_record_auto, 0, "Start recording with the first method that works." },
	{ "goto", 0, cmd_record_goto, 0, "Go to a position: begin, start, end, or a number." },
	{ "save", 0, cmd_record_save, 0,
	  "Save the recording as a trace bundle (PT): record save DIRECTORY.\n"
	  "record save --perf-data FILE writes it as a perf.data that perf's Intel PT\n"
	  "decoder reads (perf script --itrace=i0ns)." },
	{ "instruction-history", 0, cmd_record_insn_history, CMD_REPEAT,
	  "Print recorded instructions: [/m /s /r /f /p] [N | N,M | N,+M | N,-M | + | -]." },
	{ "function-call-history", 0, cmd_record_call_history, CMD_REPEAT,
	  "Print recorded function calls: [/l /i /c] [N | N,M | N,+M | N,-M | + | -]." },
	{ NULL },
};

static const struct cmd set_cmds[] = {
	{ "variable", 3, shell_cmd_set_var, 0,
	  "Evaluate an assignment and change the program: set var X = VALUE (live only)." },
	{ "args", 0, set_args, 0,
	  "Arguments for the program at the next run: set args [ARGS...]." },
	{ "disable-randomization", 0, set_disable_randomization, 0,
	  "Disable address space randomization of the program (default on)." },
	{ "pin-cpu", 0, set_pin_cpu, 0,
	  "Run ptdbg and the program on one CPU, which halves the cost of a ptrace stop in a VM "
	  "(default on; takes effect at the next run, attach or record)." },
	{ "record", 0, set_record, 0,
	  "instruction-history-size N, function-call-history-size N, soft|step buffer-size SIZE,\n"
	  "pt buffer-size|buffer|kernel|ret-compression|tsc|mtc|cyc|psb-period VALUE,\n"
	  "bts buffer-size SIZE, stop-at-thread-exit on|off (\"help set record\")." },
	{ "confirm", 0, set_confirm, 0, "Whether to ask before killing the program etc. (default on)." },
	{ "environment", 3, shell_set_environment, 0,
	  "Set an environment variable of the programs started: set environment VAR VALUE." },
	{ "listsize", 0, shell_set_listsize, 0, "How many source lines list shows (default 10)." },
	{ "inferior-tty", 0, set_inferior_tty, 0,
	  "The terminal (or file) of the program at the next run: set inferior-tty [TTY]\n"
	  "(none without TTY: ptdbg's); run's redirections apply after it." },
	{ "breakpoint", 0, shell_set_breakpoint, 0,
	  "set breakpoint pending on|off|auto: make a breakpoint on a function no loaded\n"
	  "file has yet pending (resolved at dlopen) -- auto asks, and takes no for an answer\n"
	  "when not asked at a terminal, as gdb does." },
	{ "exec-direction", 0, shell_set_exec_direction, 0,
	  "set exec-direction forward|reverse: which way step, next, continue, finish, until,\n"
	  "advance... go (reverse: back through the recording)." },
	{ "pagination", 0, set_ignored, 0, "Accepted for gdb scripts; ptdbg never pages." },
	{ "print", 0, shell_set_print, 0,
	  "set print frame-arguments all|scalars|none|presence: arguments in frame lines;\n"
	  "set print pretty [on|off]; set print elements N|unlimited (default 200)." },
	{ "height", 0, set_ignored, 0, "Accepted for gdb scripts; ptdbg never pages." },
	{ "width", 0, set_ignored, 0, "Accepted for gdb scripts." },
	{ "logging", 0, shell_set_logging, 0,
	  "set logging enabled on|off, file FILE (gdb.txt), overwrite on|off, redirect on|off:\n"
	  "copy (redirect: send) ptdbg's output to a file (not the program's)." },
	{ NULL },
};

static const struct cmd show_cmds[] = {
	{ "args", 0, show_args, 0, "The arguments the program gets at the next run." },
	{ "environment", 3, shell_show_environment, 0,
	  "The environment of the programs started, or one variable of it." },
	{ "listsize", 0, shell_show_listsize, 0, "How many source lines list shows." },
	{ "print", 0, shell_show_print, 0,
	  "show print frame-arguments, show print pretty, show print elements." },
	{ "disable-randomization", 0, show_disable_randomization, 0,
	  "Whether address space randomization is disabled." },
	{ "pin-cpu", 0, show_pin_cpu, 0, "Whether ptdbg and the program run on one CPU." },
	{ "record", 0, show_record, 0,
	  "instruction-history-size, function-call-history-size, soft|step buffer-size,\n"
	  "pt [SETTING], bts [buffer-size]." },
	{ "version", 0, show_version, 0, "What version of ptdbg this is." },
	{ "inferior-tty", 0, show_inferior_tty, 0, "The terminal of the program at the next run." },
	{ "confirm", 0, show_confirm, 0, "Whether to ask before killing the program etc." },
	{ "logging", 0, shell_show_logging, 0, "show logging [enabled|file|overwrite|redirect]." },
	{ "user", 0, shell_show_user, 0, "Show definitions of user defined commands: show user [NAME]." },
	{ "breakpoint", 0, shell_show_breakpoint, 0, "show breakpoint pending." },
	{ "exec-direction", 0, shell_show_exec_direction, 0, "Forward. or Reverse." },
	{ NULL },
};

static const struct cmd top_cmds[] = {
	{ "advance", 0, shell_cmd_advance, 0,
	  "Continue to a location, or until the current function returns: advance LOCATION." },
	{ "attach", 0, cmd_attach, 0, "Attach to a running process: attach PID." },
	{ "backtrace", 0, cmd_backtrace, CMD_REPEAT,
	  "Print the backtrace of all stack frames: backtrace [full] [N]." },
	{ "bt", 0, cmd_backtrace, CMD_REPEAT | CMD_ALIAS, "backtrace" },
	{ "where", 0, cmd_backtrace, CMD_REPEAT | CMD_ALIAS, "backtrace" },
	{ "cd", 0, shell_cmd_cd, 0, "Set ptdbg's working directory (the programs'): cd [DIR]." },
	{ "catch", 0, shell_cmd_catch, 0,
	  "Set catchpoints to catch events.\n\n"
	  "List of catch subcommands:\n\n"
	  "catch catch -- Catch an exception, when caught.\n"
	  "catch exec -- Catch calls to exec.\n"
	  "catch fork -- Catch calls to fork.\n"
	  "catch rethrow -- Catch an exception, when rethrown.\n"
	  "catch signal -- Catch signals by their names and/or numbers.\n"
	  "catch throw -- Catch an exception, when thrown.\n"
	  "catch vfork -- Catch calls to vfork.\n\n"
	  "The exception catchpoints stop at libstdc++'s probes, in the running\n"
	  "program and in a recording (forward and reverse); exec, fork, vfork and\n"
	  "signal stop the running program at the event." },
	{ "break", 1, cmd_break, 0,
	  "Set a breakpoint: break FUNCTION | FILE:LINE | LINE | *ADDRESS." },
	{ "commands", 0, shell_cmd_commands, 0,
	  "Commands to run when breakpoint N is hit: commands [N...], then the lines, then end.\n"
	  "A first line `silent` keeps the stop from being printed." },
	{ "end", 0, shell_cmd_end, 0,
	  "Ends a list of commands (commands, if, while, define, document ... end)." },
	{ "if", 0, shell_cmd_if, 0,
	  "Execute nested commands once IF the conditional expression is non zero: if EXPR,\n"
	  "the commands, optionally else and more commands, then end." },
	{ "while", 0, shell_cmd_while, 0,
	  "Execute nested commands WHILE the conditional expression is non zero: while EXPR,\n"
	  "the commands, then end.  loop_break leaves the loop, loop_continue goes on with\n"
	  "the next round." },
	{ "define", 0, shell_cmd_define, 0,
	  "Define a new command name: define NAME, the commands, then end.  $argc and\n"
	  "$arg0...$arg9 in them are replaced by the number and the text of the arguments.\n"
	  "hook-CMD runs before CMD, hookpost-CMD after it, hook-stop at every stop." },
	{ "document", 0, shell_cmd_document, 0,
	  "Document a user-defined command: document NAME, the text, then end (help NAME)." },
	{ "dont-repeat", 0, shell_cmd_dont_repeat, 0,
	  "Don't repeat this command (in a user-defined command: an empty line does not\n"
	  "repeat it)." },
	{ "alias", 0, shell_cmd_alias, 0,
	  "Define a new command that is an alias of an existing command:\n"
	  "alias [-a] [--] ALIAS = COMMAND [DEFAULT-ARGS...]." },
	{ "condition", 0, shell_cmd_condition, 0,
	  "Stop at breakpoint N only if EXPR is true: condition N [EXPR] (none: unconditional)." },
	{ "continue", 1, cmd_continue, CMD_REPEAT, "Continue the program being debugged." },
	{ "fg", 0, cmd_continue, CMD_REPEAT | CMD_ALIAS, "continue" },
	{ "delete", 1, cmd_delete, 0,
	  "Delete breakpoints: delete [N...] (all without arguments)." },
	{ "detach", 0, cmd_detach, 0, "Detach from the program; it continues running." },
	{ "disable", 3, shell_cmd_disable, 0,
	  "Disable breakpoints, or locations of one: disable [N|N.M...] (all without arguments)." },
	{ "disassemble", 0, cmd_disassemble, 0,
	  "Disassemble a function: disassemble [/r] [FUNCTION|ADDRESS]." },
	{ "display", 0, cmd_display, 0,
	  "Print an expression (or x/FMT memory) each time the program stops: display[/FMT] EXPR." },
	{ "dprintf", 2, cmd_dprintf, 0,
	  "A breakpoint that prints and goes on: dprintf LOCATION,\"FORMAT\",EXPR..." },
	{ "echo", 0, cmd_echo, 0, "Print text; C escapes like \\n are understood." },
	{ "down", 0, cmd_down, CMD_REPEAT, "Select and print the frame called by this one: down [N]." },
	{ "doctor", 0, cmd_doctor, 0,
	  "What ptdbg can record with on this machine and why: the CPU, Intel PT, BTS,\n"
	  "perf_event_paranoid, ptrace permissions, the method --method=auto takes, and the\n"
	  "fix for each refused method." },
	{ "enable", 2, shell_cmd_enable, 0,
	  "Enable breakpoints, or locations of one: enable [N|N.M...] (all without arguments)." },
	{ "file", 0, cmd_file, 0, "Use FILE as the program to debug: file FILE." },
	{ "finish", 0, cmd_finish, CMD_REPEAT, "Run until the selected function returns." },
	{ "frame", 1, cmd_frame, 0,
	  "Select and print a stack frame: frame [N], frame level N, frame function NAME." },
	{ "fin", 0, cmd_finish, CMD_REPEAT | CMD_ALIAS, "finish" },
	{ "handle", 0, shell_cmd_handle, 0,
	  "What to do with a signal: handle SIG... [no]stop [no]print [no]pass." },
	{ "help", 1, cmd_help, 0, "Print the list of commands, or help on one: help [COMMAND]." },
	{ "ignore", 0, shell_cmd_ignore, 0,
	  "Do not stop at breakpoint N the next COUNT times: ignore N COUNT." },
	{ "info", 0, cmd_info, CMD_REPEAT,
	  "Generic command for showing things about the program." },
	{ "i", 0, cmd_info, CMD_REPEAT | CMD_ALIAS, "info" },
	{ "inspect", 0, shell_cmd_print, CMD_ALIAS, "print" },
	{ "call", 0, shell_cmd_call, 0, "Evaluate an expression (ptdbg calls no functions): call EXPR." },
	{ "output", 0, shell_cmd_output, 0, "Print a value without $N = and newline: output EXPR." },
	{ "ptype", 0, shell_cmd_ptype, 0, "Print the definition of an expression's or a type's type." },
	{ "whatis", 0, shell_cmd_whatis, 0, "Print the type of an expression or a type name." },
	{ "jump", 1, shell_cmd_jump, 0, "Continue the program at another place: jump LOCATION." },
	{ "kill", 1, cmd_kill, 0, "Kill the program being debugged." },
	{ "maintenance", 0, cmd_maint, 0,
	  "Commands for checking ptdbg itself: maintenance check calls." },
	{ "maint", 0, cmd_maint, CMD_ALIAS, "maintenance" },
	{ "mt", 0, cmd_maint, CMD_ALIAS, "maintenance" },
	{ "list", 1, cmd_list, CMD_REPEAT,
	  "List source lines: list [LINE | FUNCTION | FILE:LINE | A,B]." },
	{ "next", 1, cmd_next, CMD_REPEAT,
	  "Step program, proceeding through subroutine calls: next [N]." },
	{ "nexti", 0, cmd_nexti, CMD_REPEAT, "Step one instruction, over calls: nexti [N]." },
	{ "ni", 0, cmd_nexti, CMD_REPEAT | CMD_ALIAS, "nexti" },
	{ "pwd", 0, shell_cmd_pwd, 0, "Print ptdbg's working directory." },
	{ "print", 1, shell_cmd_print, 0,
	  "Print the value of a C expression: print[/FMT] EXPR (variables, members, arrays,\n"
	  "pointers, casts, $REG ($xmm0.v4_float[1], $st0, $mxcsr too), $N history, $VAR\n"
	  "and gdb's $_siginfo, $_thread..., gdb's functions $_streq, $_strlen, $_memeq,\n"
	  "$_regex, $_as_string, $_isvoid, $_caller_is, $_caller_matches, $_any_caller_is,\n"
	  "$_any_caller_matches, $_gdb_setting[_str];\n"
	  "FMT: x d u o t c a z s)." },
	{ "printf", 0, shell_cmd_printf, 0,
	  "Print values as C's printf does: printf \"FORMAT\", EXPR, ..." },
	{ "quit", 1, cmd_quit, 0, "Exit ptdbg: quit [EXIT-CODE]." },
	{ "exit", 0, cmd_quit, CMD_ALIAS, "quit" },
	{ "record", 3, cmd_record, 0,
	  "Start recording: record [step|full|soft|pt|bts|auto]; record stop; "
	  "record goto; record instruction-history; record function-call-history." },
	{ "rec", 0, cmd_record, CMD_ALIAS, "record" },
	{ "rbreak", 0, shell_cmd_rbreak, 0,
	  "Set a breakpoint on every function matching REGEXP: rbreak REGEXP." },
	{ "reverse-continue", 0, cmd_rcontinue, CMD_REPEAT,
	  "Continue backward to a breakpoint or the start of the history." },
	{ "rc", 0, cmd_rcontinue, CMD_REPEAT | CMD_ALIAS, "reverse-continue" },
	{ "reverse-finish", 0, cmd_rfinish, CMD_REPEAT,
	  "Run backward to the call of the current function." },
	{ "reverse-next", 0, cmd_rnext, CMD_REPEAT,
	  "Step backward, over calls: reverse-next [N]." },
	{ "rn", 0, cmd_rnext, CMD_REPEAT | CMD_ALIAS, "reverse-next" },
	{ "reverse-nexti", 0, cmd_rnexti, CMD_REPEAT,
	  "Step backward one instruction, over calls: reverse-nexti [N]." },
	{ "rni", 0, cmd_rnexti, CMD_REPEAT | CMD_ALIAS, "reverse-nexti" },
	{ "reverse-step", 0, cmd_rstep, CMD_REPEAT,
	  "Step backward to the previous source line: reverse-step [N]." },
	{ "rs", 0, cmd_rstep, CMD_REPEAT | CMD_ALIAS, "reverse-step" },
	{ "reverse-stepi", 0, cmd_rstepi, CMD_REPEAT,
	  "Step backward one instruction: reverse-stepi [N]." },
	{ "rsi", 0, cmd_rstepi, CMD_REPEAT | CMD_ALIAS, "reverse-stepi" },
	{ "run", 1, cmd_run, 0, "Start the program: run [ARGS...]." },
	{ "save", 0, shell_cmd_save, 0,
	  "Save breakpoints as commands to recreate them: save breakpoints FILE." },
	{ "set", 0, cmd_set, 0,
	  "Change a setting: set disable-randomization on|off, set record ..." },
	{ "show", 0, cmd_show, 0, "Show a setting: show version, show disable-randomization." },
	{ "shell", 0, shell_cmd_shell, 0, "Run a command of the shell: shell CMD, or !CMD." },
	{ "signal", 0, shell_cmd_signal, 0,
	  "Continue the program giving it a signal: signal SIG (0: none)." },
	{ "faas", 0, cmd_faas, 0,
	  "Apply a command to all frames, ignoring errors and empty output: faas COMMAND." },
	{ "forward-search", 0, cmd_forward_search, CMD_REPEAT,
	  "Search for regular expression (see regex(3)) from last line listed: forward-search REGEX." },
	{ "fo", 0, cmd_forward_search, CMD_REPEAT | CMD_ALIAS, "forward-search" },
	{ "search", 0, cmd_forward_search, CMD_REPEAT | CMD_ALIAS, "forward-search" },
	{ "reverse-search", 0, cmd_reverse_search, CMD_REPEAT,
	  "Search backward for regular expression (see regex(3)) from last line listed." },
	{ "rev", 0, cmd_reverse_search, CMD_REPEAT | CMD_ALIAS, "reverse-search" },
	{ "generate-core-file", 0, shell_cmd_gcore, 0,
	  "Save a core file of the program as it is now: generate-core-file [FILE] (core.PID)." },
	{ "gcore", 0, shell_cmd_gcore, CMD_ALIAS, "generate-core-file" },
	{ "pipe", 0, shell_cmd_pipe, 0,
	  "Send a command's output to a shell command: pipe [COMMAND] | SHELL_COMMAND,\n"
	  "| [COMMAND] | SHELL_COMMAND, pipe -d DELIM COMMAND DELIM SHELL_COMMAND." },
	{ "|", 0, shell_cmd_pipe, CMD_ALIAS, "pipe" },
	{ "return", 0, cmd_return, 0,
	  "Make the selected stack frame return to its caller: return [EXPR] (its value)." },
	{ "skip", 0, shell_cmd_skip, 0,
	  "Functions and files step does not stop in: skip [function|file] [NAME], skip\n"
	  "-fi|-gfi FILE|GLOB -fu|-rfu NAME|REGEX, skip delete|enable|disable [N...]." },
	{ "source", 0, cmd_source, 0, "Read commands from a file: source FILE." },
	{ "start", 0, cmd_start, 0, "Start the program and stop at the beginning of main." },
	{ "starti", 0, cmd_starti, 0, "Start the program and stop at its first instruction." },
	{ "step", 1, cmd_step, CMD_REPEAT,
	  "Step program until it reaches a different source line: step [N]." },
	{ "stepi", 0, cmd_stepi, CMD_REPEAT, "Step one instruction exactly: stepi [N]." },
	{ "si", 0, cmd_stepi, CMD_REPEAT | CMD_ALIAS, "stepi" },
	{ "tbreak", 0, cmd_tbreak, 0, "Set a temporary breakpoint (deleted when hit)." },
	{ "tcatch", 0, shell_cmd_tcatch, 0,
	  "Set temporary catchpoints to catch events.\n\n"
	  "List of tcatch subcommands:\n\n"
	  "tcatch catch -- Catch an exception, when caught.\n"
	  "tcatch exec -- Catch calls to exec.\n"
	  "tcatch fork -- Catch calls to fork.\n"
	  "tcatch rethrow -- Catch an exception, when rethrown.\n"
	  "tcatch signal -- Catch signals by their names and/or numbers.\n"
	  "tcatch throw -- Catch an exception, when thrown.\n"
	  "tcatch vfork -- Catch calls to vfork.\n\n"
	  "A temporary catchpoint is deleted when it stops the program." },
	{ "thread", 1, cmd_thread, 0, "Switch to thread N, show the current thread, or apply a command to threads (thread apply all|LIST CMD)." },
	{ "tty", 0, set_inferior_tty, 0,
	  "The terminal (or file) of the program at the next run: tty [TTY] (set inferior-tty)." },
	{ "unset", 0, shell_cmd_unset, 0,
	  "Remove an environment variable of the programs started: unset environment [VAR]." },
	{ "undisplay", 0, cmd_undisplay, 0, "Cancel auto-display expressions: undisplay [N...]." },
	{ "until", 1, shell_cmd_until, CMD_REPEAT,
	  "Run until a line past the current one, or LOCATION, in this frame: until [LOCATION]." },
	{ "u", 0, shell_cmd_until, CMD_REPEAT | CMD_ALIAS, "until" },
	{ "up", 0, cmd_up, CMD_REPEAT, "Select and print the frame that called this one: up [N]." },
	{ "watch", 0, shell_cmd_watch, 0,
	  "Stop when EXPR changes: watch [-l] EXPR [if COND] (x86 debug registers)." },
	{ "rwatch", 0, shell_cmd_rwatch, 0, "Stop when EXPR is read: rwatch [-l] EXPR [if COND]." },
	{ "awatch", 0, shell_cmd_awatch, 0,
	  "Stop when EXPR is read or written: awatch [-l] EXPR [if COND]." },
	{ "with", 0, cmd_with, CMD_REPEAT,
	  "Temporarily change a setting and run a command: with SETTING [VALUE] [-- COMMAND]\n"
	  "(without COMMAND, the command before runs again); the setting is put back after."},
	{ "w", 0, cmd_with, CMD_REPEAT | CMD_ALIAS, "with" },
	{ "x", 1, cmd_x, CMD_REPEAT,
	  "Examine memory: x/FMT ADDRESS (FMT: count, x d u o t c a s i, b h w g)." },
	{ NULL },
};

static int run_sub(struct shell *sh, const struct cmd *tab, const char *args, const char *what,
		   const char *hint, int *repeatable)
{
	char word[128];
	const struct cmd *c;

	args = first_word(args, word, sizeof(word));
	c = lookup(tab, word, what, hint, 0);
	if (!c)
		return -1;
	if (repeatable)
		*repeatable = !!(c->flags & CMD_REPEAT);
	return c->fn(sh, args);
}

static int cmd_info(struct shell *sh, const char *args)
{
	args = skipws(args);
	if (!*args) {
		printf("List of info subcommands:\n\n");
		for (const struct cmd *c = info_cmds; c->name; c++)
			if (!(c->flags & CMD_ALIAS))
				printf("info %s -- %s\n", c->name, c->help);
		return 0;
	}
	return run_sub(sh, info_cmds, args, "info ", "info", NULL);
}

/*
 * maint check calls: compares the call view ptdbg serves (from the call
 * log) with the one the items give, for the selected thread; a difference
 * is an error (scripts and tests stop on it).
 */
static int maint_check(struct shell *sh, const char *args)
{
	struct ptd_calls_check c;
	char word[64];
	int rc;

	args = first_word(args, word, sizeof(word));
	if (strcmp(word, "calls") || *skipws(args))
		return shell_error("maint check: one of: calls");
	rc = ptd_session_check_calls(sh->s, &c);
	if (rc < 0)
		return session_error(rc, NULL);
	if (rc > 0)
		return shell_error("calls: %" PRIu64 " segments, differ: %s", c.nsegs, c.diff);
	printf("calls: %" PRIu64 " segments, identical", c.nsegs);
	if (c.has_log)
		printf(" (call log: %" PRIu64 " of %" PRIu64 " items, rebuilt %" PRIu64 " times)\n",
		       c.logged, c.nitems, c.rebuilt);
	else
		printf(" (no call log, %" PRIu64 " items)\n", c.nitems);
	return 0;
}

static const struct cmd maint_cmds[] = {
	{ "check", 0, maint_check, 0,
	  "maint check calls: compare the function-call view served from the call log with\n"
	  "the one built from the recorded items alone, for the selected thread." },
	{ NULL },
};

static int cmd_maint(struct shell *sh, const char *args)
{
	args = skipws(args);
	if (!*args) {
		printf("List of maintenance subcommands:\n\n");
		for (const struct cmd *c = maint_cmds; c->name; c++)
			printf("maintenance %s -- %s\n", c->name, c->help);
		return 0;
	}
	return run_sub(sh, maint_cmds, args, "maintenance ", "maintenance", NULL);
}

static int record_repeat;

static int cmd_record(struct shell *sh, const char *args)
{
	args = skipws(args);
	record_repeat = 0;
	if (!*args) {
		int m = PTD_METHOD_AUTO;

		/* record with no argument: the --method default */
		return record_start(sh, m);
	}
	/* "record instruction-history" with explicit numbers is not repeated */
	return run_sub(sh, record_cmds, args, "record ", "record", &record_repeat);
}

static int cmd_set(struct shell *sh, const char *args)
{
	args = skipws(args);
	if (!*args)
		return shell_error("Argument required (expression to compute).");
	/* set $x = 5: a convenience variable or a register, as set var */
	if (*args == '$')
		return shell_cmd_set_var(sh, args);
	return run_sub(sh, set_cmds, args, "set ", "set", NULL);
}

static int cmd_show(struct shell *sh, const char *args)
{
	args = skipws(args);
	if (!*args)
		return show_version(sh, args);
	return run_sub(sh, show_cmds, args, "show ", "show", NULL);
}

/* ------------------------------------------------------------------ */
/* with SETTING [VALUE] [-- COMMAND]                                    */

static void with_get_args(struct shell *sh, char *buf, size_t n)
{
	snprintf(buf, n, "%s", sh->run_args ? sh->run_args : "");
}

static void with_get_aslr(struct shell *sh, char *buf, size_t n)
{
	snprintf(buf, n, "%s", ptd_session_get_disable_aslr(sh->s) ? "on" : "off");
}

static void with_get_pin_cpu(struct shell *sh, char *buf, size_t n)
{
	snprintf(buf, n, "%s", ptd_session_get_pin_cpu(sh->s) ? "on" : "off");
}

static void with_get_confirm(struct shell *sh, char *buf, size_t n)
{
	snprintf(buf, n, "%s", sh->confirm ? "on" : "off");
}

static void with_get_listsize(struct shell *sh, char *buf, size_t n)
{
	int v = shell_listsize(sh);

	if (v >= INT_MAX / 4)
		snprintf(buf, n, "unlimited");
	else
		snprintf(buf, n, "%d", v);
}

static void with_get_direction(struct shell *sh, char *buf, size_t n)
{
	snprintf(buf, n, "%s", sh->exec_reverse ? "reverse" : "forward");
}

static void with_get_nothing(struct shell *sh, char *buf, size_t n)
{
	(void)sh;
	snprintf(buf, n, "%s", "");
}

static void with_get_tty(struct shell *sh, char *buf, size_t n)
{
	snprintf(buf, n, "%s", ptd_session_tty(sh->s));
}

static void with_get_pretty(struct shell *sh, char *buf, size_t n)
{
	shell_print_setting(sh, "pretty", buf, n);
}

static void with_get_elements(struct shell *sh, char *buf, size_t n)
{
	shell_print_setting(sh, "elements", buf, n);
}

static void with_get_frame_args(struct shell *sh, char *buf, size_t n)
{
	shell_print_setting(sh, "frame-arguments", buf, n);
}

static void with_get_insn_size(struct shell *sh, char *buf, size_t n)
{
	if (sh->insn_history_size == INT32_MAX)
		snprintf(buf, n, "unlimited");
	else
		snprintf(buf, n, "%d", sh->insn_history_size);
}

static void with_get_call_size(struct shell *sh, char *buf, size_t n)
{
	if (sh->call_history_size == INT32_MAX)
		snprintf(buf, n, "unlimited");
	else
		snprintf(buf, n, "%d", sh->call_history_size);
}

static void with_get_thread_exit(struct shell *sh, char *buf, size_t n)
{
	(void)sh;
	snprintf(buf, n, "%s", stop_at_thread_exit ? "on" : "off");
}

static void with_get_pending(struct shell *sh, char *buf, size_t n)
{
	static const char *const v[] = { "auto", "on", "off" };

	snprintf(buf, n, "%s", v[sh->bp_pending]);
}

/*
 * The settings `with` can change for a while: each is changed and put
 * back by `set` itself (so its parsing and errors are set's), from the
 * value its getter gives as set takes it.  @prefix is the set prefix
 * command it is under ("print"), NULL at the top level; the entries of
 * set_cmds absent here are commands, not settings (set variable, set
 * environment), which gdb's with refuses too.
 */
static const struct with_setting {
	const char *prefix, *name;
	void (*get)(struct shell *sh, char *buf, size_t n);
} with_settings[] = {
	{ NULL, "args", with_get_args },
	{ NULL, "disable-randomization", with_get_aslr },
	{ NULL, "pin-cpu", with_get_pin_cpu },
	{ NULL, "confirm", with_get_confirm },
	{ NULL, "listsize", with_get_listsize },
	{ NULL, "inferior-tty", with_get_tty },
	{ NULL, "exec-direction", with_get_direction },
	{ NULL, "pagination", with_get_nothing },
	{ NULL, "height", with_get_nothing },
	{ NULL, "width", with_get_nothing },
	{ "print", "pretty", with_get_pretty },
	{ "print", "frame-arguments", with_get_frame_args },
	{ "print", "elements", with_get_elements },
	{ "record", "instruction-history-size", with_get_insn_size },
	{ "record", "function-call-history-size", with_get_call_size },
	{ "record", "stop-at-thread-exit", with_get_thread_exit },
	{ "breakpoint", "pending", with_get_pending },
	{ NULL, NULL, NULL },
};

/* The entry of with_settings for @word under @prefix (exact, or a unique
 * beginning), or NULL. */
static const struct with_setting *with_find(const char *prefix, const char *word)
{
	const struct with_setting *w, *found = NULL;
	size_t len = strlen(word);
	int n = 0;

	for (w = with_settings; w->name; w++) {
		if ((prefix == NULL) != (w->prefix == NULL) || (prefix && strcmp(prefix, w->prefix)))
			continue;
		if (!strcmp(w->name, word))
			return w;
		if (len && !strncmp(w->name, word, len)) {
			found = w;
			n++;
		}
	}
	return n == 1 ? found : NULL;
}

/* ------------------------------------------------------------------ */
/* What gdb's convenience variables and functions ask the shell          */

/* $_thread and $_gthread (the selected thread's number, 0 without a
 * program), $_inferior (always 1: ptdbg debugs one program). */
static int hook_conv_int(void *ctx, const char *name, long *val)
{
	struct shell *sh = ctx;
	struct ptd_thread_info *th;
	int n;

	*val = !strcmp(name, "_inferior");
	if (*val || (!ptd_session_alive(sh->s) && !ptd_session_offline(sh->s)))
		return 1;
	n = ptd_session_threads(sh->s, NULL, 0);
	th = n > 0 ? calloc((size_t)n, sizeof(*th)) : NULL;
	if (th)
		n = ptd_session_threads(sh->s, th, n);
	for (int i = 0; th && i < n; i++)
		if (th[i].current)
			*val = th[i].num;
	free(th);
	ptd_clear_error();
	return 1;
}

/* $_siginfo: the kernel's siginfo of the live stop; none in the recorded
 * past (gdb's "Unable to read siginfo" when it cannot read one). */
static int hook_siginfo(void *ctx, void *buf, size_t n)
{
	struct shell *sh = ctx;
	long rc;

	if (!ptd_session_alive(sh->s) && !ptd_session_offline(sh->s))
		return 0;
	shell_sync(sh);
	rc = ptd_session_replaying(sh->s) ? -1 : ptd_session_siginfo_raw(sh->s, buf, n);
	ptd_clear_error();
	return rc < 0 ? -1 : 1;
}

/* The function of the frame @up levels above the selected one, as
 * Python's Frame.name() gives it to $_caller_is: frames as bt numbers
 * them (inlined calls are frames), up to main. */
static int hook_frame_function(void *ctx, int up, char *buf, size_t n)
{
	struct shell *sh = ctx;
	struct flevels lv;
	struct ptd_inline in[16];
	struct ptd_symbol sym;
	int entry, k, real, ninl, skip = 0, rc = 0;
	const struct ptd_frame_info *f;
	uint64_t look;

	if (!ptd_session_alive(sh->s) && !ptd_session_offline(sh->s))
		return -1;
	if (levels_get(sh, &lv) < 0)
		return -1;
	if (level_find(&lv, sh, sh->frame_vlevel + up, &entry, &k, &real) < 0)
		goto out;
	f = &lv.fr[entry];
	rc = 2;
	if (f->kind == PTD_FRAME_SIGTRAMP || !sh->pc.sym)
		goto out;
	look = entry && f->kind != PTD_FRAME_INTERRUPTED ? f->pc - 1 : f->pc;
	ninl = ptd_symbols_inlined(sh->pc.sym, look, in, 16);
	if (ninl < 0)
		ninl = 0;
	if (entry == 0)
		skip = ninl < sh->pc.inline_skip ? ninl : sh->pc.inline_skip;
	if (skip + k < ninl) {
		snprintf(buf, n, "%s", in[skip + k].name);
		rc = 1;
	} else if (ptd_symbols_lookup(sh->pc.sym, look, &sym) >= 0 && sym.name) {
		snprintf(buf, n, "%s", sym.name);
		rc = 1;
	}
out:
	ptd_clear_error();
	free(lv.fr);
	return rc;
}

/* $_gdb_setting's types of the settings `with` knows (by its entries). */
static const struct {
	const char *prefix, *name;
	enum ptd_setting_kind kind;
} setting_kinds[] = {
	{ NULL, "args", PTD_SETTING_STRING },
	{ NULL, "disable-randomization", PTD_SETTING_BOOL },
	{ NULL, "pin-cpu", PTD_SETTING_BOOL },
	{ NULL, "confirm", PTD_SETTING_BOOL },
	{ NULL, "listsize", PTD_SETTING_INT },
	{ NULL, "inferior-tty", PTD_SETTING_STRING },
	{ NULL, "exec-direction", PTD_SETTING_STRING },
	{ "print", "pretty", PTD_SETTING_BOOL },
	{ "print", "frame-arguments", PTD_SETTING_STRING },
	{ "print", "elements", PTD_SETTING_UINT },
	{ "record", "instruction-history-size", PTD_SETTING_UINT },
	{ "record", "function-call-history-size", PTD_SETTING_UINT },
	{ "record", "stop-at-thread-exit", PTD_SETTING_BOOL },
	{ "breakpoint", "pending", PTD_SETTING_AUTOBOOL },
};

static enum ptd_setting_kind hook_setting(void *ctx, const char *name, char *buf, size_t n)
{
	struct shell *sh = ctx;
	const struct with_setting *w;
	char first[64], second[128];
	const char *prefix = NULL, *word = first;

	second[0] = 0;
	if (sscanf(name, " %63s %127s", first, second) < 1)
		return PTD_SETTING_NONE;
	if (second[0]) {
		prefix = first;
		word = second;
	}
	w = with_find(prefix, word);
	if (!w)
		return PTD_SETTING_NONE;
	/* ptdbg never pages: gdb's batch mode values */
	if (!w->prefix && (!strcmp(w->name, "pagination") || !strcmp(w->name, "height") ||
			   !strcmp(w->name, "width"))) {
		snprintf(buf, n, "%s", w->name[0] == 'p' ? "off" : "unlimited");
		return w->name[0] == 'p' ? PTD_SETTING_BOOL : PTD_SETTING_UINT;
	}
	for (size_t i = 0; i < sizeof(setting_kinds) / sizeof(setting_kinds[0]); i++)
		if ((!w->prefix) == (!setting_kinds[i].prefix) &&
		    (!w->prefix || !strcmp(w->prefix, setting_kinds[i].prefix)) &&
		    !strcmp(w->name, setting_kinds[i].name)) {
			w->get(sh, buf, n);
			return setting_kinds[i].kind;
		}
	return PTD_SETTING_NONE;
}

void shell_values_hooks(struct shell *sh)
{
	const struct ptd_values_hooks h = {
		.ctx = sh,
		.conv_int = hook_conv_int,
		.siginfo = hook_siginfo,
		.frame_function = hook_frame_function,
		.setting = hook_setting,
	};

	ptd_values_set_hooks(sh->vals, &h);
}

static int with_is_prefix(const char *name)
{
	const struct with_setting *w;

	for (w = with_settings; w->name; w++)
		if (w->prefix && !strcmp(w->prefix, name))
			return 1;
	return 0;
}

/*
 * with SETTING [VALUE] [-- COMMAND], as gdb 13's: the first "--" ends the
 * setting (without one, or with nothing after it, the line typed before
 * runs again); the setting is set, COMMAND runs, and the old value is put
 * back whether COMMAND failed or not.  Nested withs nest.
 */
static int cmd_with(struct shell *sh, const char *args)
{
	char word[128], path[160], orig[PATH_MAX], *line = NULL;
	const char *delim, *nested, *rest, *val;
	const struct with_setting *w;
	const struct cmd *c;
	size_t vlen;
	int rc, repeat = 0;

	args = skipws(args);
	if (!*args)
		return shell_error("Missing arguments.");
	delim = strstr(args, "--");
	if (delim == args)
		return shell_error("Missing setting before '--' delimiter");
	if (!delim || !*skipws(delim + 2)) {
		if (!sh->prev_line)
			return shell_error("No previous command to relaunch");
		nested = sh->prev_line;
		sh->relaunched = 1;
	} else {
		nested = skipws(delim + 2);
	}
	rest = first_word(args, word, sizeof(word));
	c = lookup(set_cmds, word, "set ", "set", 0);
	if (!c)
		return -1;
	if (with_is_prefix(c->name)) {
		const char *sub = rest;

		rest = first_word(sub, word, sizeof(word));
		w = with_find(c->name, word);
		if (!w)
			return shell_error("Undefined set %s command: \"%s\".  Try \"help set %s\".",
					   c->name, sub, c->name);
		snprintf(path, sizeof(path), "%s %s", c->name, w->name);
	} else {
		w = with_find(NULL, c->name);
		if (!w)
			return shell_error("Cannot use this setting with the \"with\" command");
		snprintf(path, sizeof(path), "%s", w->name);
	}
	/* the value: what is left before the delimiter */
	val = rest;
	/* (up to the delimiter; for args spaces and all: "with args a b --
	 * show args" gives the program "a b ", as gdb's) */
	vlen = delim && delim >= val ? (size_t)(delim - val) : strlen(val);
	while (w->get != with_get_args && vlen && isspace((unsigned char)val[vlen - 1]))
		vlen--;
	w->get(sh, orig, sizeof(orig));
	if (asprintf(&line, "%s %.*s", path, (int)vlen, val) < 0)
		return shell_error("out of memory");
	rc = cmd_set(sh, line);
	free(line);
	if (rc < 0)
		return rc;
	if (nested == sh->prev_line) {
		/* (the line run again has no line before it: a with in it
		 * without a command cannot run itself for ever) */
		char *again = strdup(nested);

		if (!again) {
			rc = shell_error("out of memory");
		} else {
			sh->prev_line = NULL;
			rc = shell_execute(sh, again, &repeat);
			sh->prev_line = nested;
			free(again);
		}
	} else {
		rc = shell_execute(sh, nested, &repeat);
	}
	if (asprintf(&line, "%s %s", path, orig) < 0)
		return shell_error("out of memory");
	if (cmd_set(sh, line) < 0)
		fprintf(stderr, "warning: Couldn't restore setting %s\n", path);
	free(line);
	return rc;
}

static void help_table(const struct cmd *tab, const char *prefix)
{
	const struct cmd *c;

	for (c = tab; c->name; c++)
		if (!(c->flags & CMD_ALIAS))
			printf("%s%s -- %s\n", prefix, c->name, c->help);
}

static void help_set_record(int set)
{
	const char *v = set ? "set" : "show";

	printf("\n%s record instruction-history-size%s -- instructions \"record "
	       "instruction-history\" prints (default 10).\n", v, set ? " N" : "");
	printf("%s record function-call-history-size%s -- functions \"record "
	       "function-call-history\" prints (default 10).\n", v, set ? " N" : "");
	printf("%s record soft buffer-size%s -- bytes each thread recorded with soft may hold.\n", v,
	       set ? " SIZE" : "");
	printf("%s record step buffer-size%s -- the same for step (also \"record full\").\n", v,
	       set ? " SIZE" : "");
	if (set)
		printf("set record stop-at-thread-exit on|off -- while recording, stop before the\n"
		       "    exit syscall of a thread that is not the last one (default on, as gdb\n"
		       "    record full asks there); off: only before the program's end.\n");
	printf("\nSIZE is a number of bytes with an optional K, M or G suffix, or \"unlimited\"\n"
	       "(or 0); the default is 64M per thread, the least 64K.  It counts the history,\n"
	       "the PT kept with --trace-format=pt and soft's registers at every trap.  When a\n"
	       "thread's recording reaches it, the oldest part (a quarter of it and more) is\n"
	       "dropped, as gdb's \"record full insn-number-max\" drops the oldest\n"
	       "instructions: the history then starts with a gap that says how many\n"
	       "instructions were dropped, numbered 1, and \"info record\" says so too.\n"
	       "Registers in the past are not known before the first kept trap.\n\n");
	printf("%s record pt buffer-size%s -- the AUX buffer of each thread recorded with pt\n"
	       "    (a power-of-two number of 4K pages, at least 8K; default 4M; halved when\n"
	       "    the kernel cannot map that much, and ptdbg says so).\n", v, set ? " SIZE" : "");
	printf("%s record pt buffer%s -- circular (the default, as gdb: the newest\n"
	       "    trace survives, older trace is overwritten and becomes a gap) or full (a\n"
	       "    linear buffer drained at every stop and when it fills: nothing is lost).\n", v,
	       set ? " circular|full" : "");
	printf("%s record pt kernel%s -- also trace the kernel (needs perf_event_paranoid\n"
	       "    <= 1 or CAP_PERFMON; default off).\n", v, set ? " on|off" : "");
	printf("%s record pt ret-compression%s -- return compression (default:\n"
	       "    the PMU's, on).\n", v, set ? " on|off|default" : "");
	printf("%s record pt tsc|mtc|cyc%s -- timing packets (default: not asked\n"
	       "    for, so off; on is refused when the PMU's caps lack them).\n", v,
	       set ? " on|off|default" : "");
	printf("%s record pt psb-period%s -- a PSB every 2^(N+11) bytes of trace, as\n"
	       "    caps/psb_periods allows (default: the hardware's).\n", v,
	       set ? " N|default" : "");
	printf("%s record bts buffer-size%s -- the BTS ring of each thread (a power-of-two\n"
	       "    number of 4K pages; default 1M).\n", v, set ? " SIZE" : "");
	if (!set)
		printf("show record pt filter -- the address filters \"record pt filter\" set.\n");
	printf("\nThe pt and bts settings apply from the next \"record\"; \"set record btrace pt\n"
	       "...\" (gdb's spelling) is the same.  Address filters: \"record pt filter\n"
	       "FUNCTION|FILE|START/SIZE@FILE\" (START an offset in FILE, perf's syntax), \"record\n"
	       "pt filter none\".\n");
}

static int cmd_help(struct shell *sh, const char *args)
{
	char word[128];
	const struct cmd *c;

	args = first_word(args, word, sizeof(word));
	if (!word[0]) {
		printf("List of commands:\n\n");
		help_table(top_cmds, "");
		printf("\nAliases: b break, c continue, s step, n next, si stepi, ni nexti,\n"
		       "fin finish, bt/where backtrace, i info, p print, q quit, d delete,\n"
		       "r run, rsi reverse-stepi, rni reverse-nexti, rs reverse-step,\n"
		       "rn reverse-next, rc reverse-continue, w with.  Unique prefixes also work.\n"
		       "An empty line repeats stepping and listing commands.\n"
		       "\"help user-defined\" lists the commands define made.\n");
		return 0;
	}
	if (shell_user_command(word, 0)) {
		shell_user_help(word);
		return 0;
	}
	if (!strcmp(word, "user-defined")) {
		shell_help_user_defined();
		return 0;
	}
	if (shell_alias_expansion(word)) {
		printf("%s is an alias of %s.\n", word, shell_alias_expansion(word));
		first_word(shell_alias_expansion(word), word, sizeof(word));
	}
	c = lookup(top_cmds, word, "", "", 0);
	if (!c)
		return -1;
	if (c->flags & CMD_ALIAS) {
		const struct cmd *t = lookup(top_cmds, c->help, "", "", 1);

		printf("%s is an alias of %s.\n", c->name, c->help);
		if (t)
			c = t;
	}
	printf("%s -- %s\n", c->name, c->help);
	if (c->fn == cmd_info) {
		printf("\n");
		help_table(info_cmds, "info ");
	} else if (c->fn == cmd_record) {
		printf("\n");
		help_table(record_cmds, "record ");
	} else if ((c->fn == cmd_set || c->fn == cmd_show) &&
		   (first_word(args, word, sizeof(word)), !strcmp(word, "record"))) {
		help_set_record(c->fn == cmd_set);
	} else if (c->fn == cmd_set) {
		printf("\n");
		help_table(set_cmds, "set ");
	} else if (c->fn == cmd_show) {
		printf("\n");
		help_table(show_cmds, "show ");
	}
	(void)args;
	return 0;
}

const char *shell_command_name(int i)
{
	int n = 0;
	const struct cmd *c;

	for (c = top_cmds; c->name; c++)
		if (!(c->flags & CMD_ALIAS) && n++ == i)
			return c->name;
	/* then the user commands and aliases defined */
	return shell_user_name(i - n);
}

const char *shell_subcommand_name(const char *top, int i)
{
	const struct cmd *tab, *c;
	int n = 0;

	c = lookup(top_cmds, top, "", "", 1);
	if (!c)
		return NULL;
	if (c->fn == cmd_info)
		tab = info_cmds;
	else if (c->fn == cmd_set)
		tab = set_cmds;
	else if (c->fn == cmd_show)
		tab = show_cmds;
	else if (c->fn == cmd_record)
		tab = record_cmds;
	else
		return NULL;
	for (c = tab; c->name; c++)
		if (!(c->flags & CMD_ALIAS) && n++ == i)
			return c->name;
	return NULL;
}

const char *shell_command_full_name(const char *word)
{
	const struct cmd *c = lookup(top_cmds, word, "", "", 1);

	if (c && (c->flags & CMD_ALIAS)) {
		const struct cmd *t = lookup(top_cmds, c->help, "", "", 1);
		if (t)
			c = t;
	}
	return c ? c->name : NULL;
}

int shell_command_is_alias(const char *word)
{
	size_t len = strlen(word);

	for (const struct cmd *c = top_cmds; c->name; c++) {
		if (!strcmp(c->name, word))
			return !!(c->flags & CMD_ALIAS);
		/* gdb's b, c, n, s, p...: the short names ptdbg takes as
		 * abbreviations of at least min characters */
		if (c->min && len >= (size_t)c->min && !strncmp(c->name, word, len))
			return 1;
	}
	return 0;
}

static int execute_line(struct shell *sh, const char *line, int *repeatable);

/* gdb clears trailing whitespace off a command line before it runs it (a
 * completed word ends in a space) except for echo's text. */
int shell_execute(struct shell *sh, const char *line, int *repeatable)
{
	char *copy = strdup(line ? line : "");
	size_t n;
	int rc;

	if (!copy)
		return shell_error("out of memory");
	n = strlen(copy);
	if (strncmp(skipws(copy), "echo", 4))
		while (n && isspace((unsigned char)copy[n - 1]))
			copy[--n] = '\0';
	static int depth;

	/* !CMD is shell CMD */
	if (*skipws(copy) == '!') {
		rc = shell_cmd_shell(sh, skipws(copy) + 1);
		free(copy);
		return rc;
	}
	/* a user command's $argc and $argN, as text */
	char *sub = shell_subst_args(copy);

	if (sub == (char *)-1) {
		free(copy);
		return -1;
	}
	if (sub) {
		free(copy);
		copy = sub;
	}
	/* gdb's $bpnum (save breakpoints' files use it) */
	sub = shell_subst_bpnum(sh, copy);

	if (sub) {
		free(copy);
		copy = sub;
	}
	depth++;
	rc = execute_line(sh, copy, repeatable);
	depth--;
	free(copy);
	/* the commands of the breakpoints the program stopped at, once the
	 * command that moved it is done */
	if (!depth && sh->pending_bp)
		shell_bp_run_pending(sh);
	return rc;
}

static int execute_line(struct shell *sh, const char *line, int *repeatable)
{
	char word[128];
	const struct cmd *c;
	const char *args;
	int rc;

	if (repeatable)
		*repeatable = 0;
	line = skipws(line);
	if (!*line || *line == '#')
		return 0;
	/* gdb lets "x/4x" and "p/x" glue the format to the command name */
	{
		size_t i = 0;

		while (line[i] && !isspace((unsigned char)line[i]) && line[i] != '/' &&
		       i + 1 < sizeof(word)) {
			word[i] = line[i];
			i++;
		}
		word[i] = '\0';
		args = skipws(line + i);
		if (line[i] == '/')
			args = line + i;
	}
	/* inside a while's body (not at the top level, where gdb does not
	 * know them) */
	if (shell_loop_control(sh, word))
		return 0;
	if (shell_alias_expansion(word)) {
		static int alias_depth;
		char *exp;

		if (alias_depth > 32)
			return shell_error("Max user call depth exceeded -- command aborted.");
		if (asprintf(&exp, "%s%s%s", shell_alias_expansion(word), *args ? " " : "",
			     args) < 0)
			return shell_error("out of memory");
		alias_depth++;
		rc = execute_line(sh, exp, repeatable);
		alias_depth--;
		free(exp);
		return rc;
	}
	c = shell_user_command(word, 0) ? NULL : lookup(top_cmds, word, "", "", 1);
	if (!c && shell_user_command(word, !0)) {
		const char *name = shell_user_command(word, 1);

		shell_sync(sh);
		sh->dont_repeat = 0;
		shell_run_hook(sh, "hook", name);
		rc = shell_run_user(sh, name, args);
		if (rc >= 0)
			shell_run_hook(sh, "hookpost", name);
		if (repeatable)
			*repeatable = !sh->dont_repeat;
		fflush(stdout);
		return rc;
	}
	if (!c)
		c = lookup(top_cmds, word, "", "", 0);
	if (!c)
		return -1;
	shell_sync(sh);
	if (c->flags & CMD_ALIAS) {
		const struct cmd *t = lookup(top_cmds, c->help, "", "", 1);

		shell_run_hook(sh, "hook", t ? t->name : c->name);
	} else {
		shell_run_hook(sh, "hook", c->name);
	}
	rc = c->fn(sh, c->fn == cmd_echo ? (line[strlen(word)] ? line + strlen(word) + 1 : "")
					 : args);
	/* A loaded trace file cut short by another process reads as zeros
	 * from then on: the command that ran into it fails, and says why. */
	if (!sh->trace_cut && ptd_session_check_trace(sh->s) < 0) {
		sh->trace_cut = 1;
		rc = shell_error("%s", ptd_last_error(-ptde_bad_trace));
	}
	{
		const struct cmd *t = c->flags & CMD_ALIAS ? lookup(top_cmds, c->help, "", "", 1) : c;

		if (rc >= 0)
			shell_run_hook(sh, "hookpost", t ? t->name : c->name);
	}
	if (repeatable) {
		*repeatable = !!(c->flags & CMD_REPEAT);
		if (c->fn == cmd_record) {
			/* only the history listings repeat, and only without numbers */
			const char *p = skipws(args);

			*repeatable = record_repeat;
			while (*p && !isspace((unsigned char)*p))
				p++;
			p = skipws(p);
			while (*p == '/') {
				while (*p && !isspace((unsigned char)*p))
					p++;
				p = skipws(p);
			}
			if (*p && strcmp(p, "+") && strcmp(p, "-"))
				*repeatable = 0;
		}
	}
	fflush(stdout);
	return rc;
}
