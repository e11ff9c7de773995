/*
 * Breakpoint and motion commands of the ptdbg shell beyond break/delete
 * and the steps: condition, ignore, until, advance, jump, signal, handle,
 * info signals, info sharedlibrary and starti's stop.  Each parses its
 * arguments, makes one session call and prints what gdb 13 prints; the
 * stop rules themselves live in src/session (breakctl.c).
 *
 * Breakpoint conditions are evaluated through cond_eval() below, the one
 * place that names the expression evaluator: swapping in another (a
 * DWARF-aware one) is a change of that one call.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "breakcmds.h"
#include "ptdbg/ptdbg.h"

static const char *skipws(const char *p)
{
	while (p && isspace((unsigned char)*p))
		p++;
	return p ? p : "";
}

static int sess_error(int rc)
{
	const char *msg = ptd_last_error(rc);

	if (rc == -ptde_not_running || rc == -ptde_exited)
		return shell_error("The program is not being run.");
	return shell_error("%s", msg && msg[0] ? msg : ptd_errstr(rc));
}

/* Breakpoint conditions: the shell's evaluator decides. */
static int cond_eval(void *ctx, const char *expr, int *truth)
{
	struct shell *sh = ctx;
	enum expr_kind k;
	uint64_t v;

	int rc;

	/* gdb 13's words before the evaluator's error (bpstat_check_
	 * breakpoint_conditions) */
	shell_error_prefix = "Error in testing breakpoint condition:";
	rc = shell_eval(sh, expr, &v, &k);
	if (rc == 0 && k == EXPR_UNAVAILABLE)
		rc = shell_error("value is not available");
	shell_error_prefix = NULL;
	if (rc < 0)
		return -1;
	*truth = v != 0;
	return 0;
}

/* The frame whose CFA is @cfa in the thread the session selected (its
 * caller's rsp), bound; the innermost one when none is. */
static int bind_frame_of(struct shell *sh, uint64_t cfa)
{
	struct user_regs_struct r, known;
	uint64_t pcs[256];
	int n = cfa ? ptd_session_backtrace(sh->s, pcs, 256) : 0;

	for (int level = 0; level + 1 < n; level++) {
		if (ptd_session_values_bind(sh->s, sh->vals, level + 1, pcs[level + 1], NULL,
					    NULL) < 0 ||
		    ptd_values_frame_regs(sh->vals, &r, &known) < 0 || !known.rsp)
			break;
		if (r.rsp == cfa)
			return ptd_session_values_bind(sh->s, sh->vals, level,
						       level ? pcs[level] : 0, NULL, NULL);
	}
	ptd_clear_error();
	return ptd_session_values_bind(sh->s, sh->vals, 0, 0, NULL, NULL);
}

/* The places a watch expression names now (after a value it reads
 * changed, or in a new program), in the thread the session selected: in
 * the frame of a watchpoint on a local, else the innermost one; quietly. */
static int watch_chain(void *ctx, const char *expr, uint64_t frame_cfa, struct ptd_watch_loc *locs,
		       int max)
{
	struct shell *sh = ctx;
	int rc;

	if (!sh->vals && ptd_values_alloc(&sh->vals) < 0)
		return -1;
	shell_values_hooks(sh);
	ptd_values_set_pretty(sh->vals, sh->print_pretty);
	ptd_values_set_print_elements(sh->vals, sh->print_elements);
	ptd_values_set_frame_args(sh->vals, sh->frame_args_mode);
	rc = bind_frame_of(sh, frame_cfa);
	if (rc < 0)
		return rc;
	return ptd_values_watch_chain(sh->vals, expr, locs, max);
}

/* A dprintf's hit: its printf, where the program is (the session made
 * the thread that hit the selected one). */
static int dprintf_print(void *ctx, const char *args)
{
	return shell_cmd_printf(ctx, args);
}

void shell_breakcmds_init(struct shell *sh)
{
	ptd_session_set_cond_eval(sh->s, cond_eval, sh);
	ptd_session_set_dprintf(sh->s, dprintf_print, sh);
	ptd_session_set_watch_chain(sh->s, watch_chain, sh);
}

/* A breakpoint number: digits, or -1 after gdb's message. */
static int parse_bpnum(const char *word, const char *missing)
{
	char *end;
	long v;

	if (!*word)
		return shell_error("%s", missing);
	errno = 0;
	v = strtol(word, &end, 10);
	if (errno || end == word || v <= 0 || v > INT32_MAX ||
	    (*end && !isspace((unsigned char)*end)))
		return shell_error("Bad breakpoint argument: '%s'", word);
	return (int)v;
}

static int bp_exists(struct shell *sh, int id, struct ptd_bpinfo *out)
{
	int n = ptd_session_bp_count(sh->s);

	for (int i = 0; i < n; i++)
		if (ptd_session_bp_get(sh->s, i, out) == 0 && out->id == id)
			return 1;
	return 0;
}

int shell_condition_check(const char *p)
{
	/* A malformed expression is refused now, as gdb parses it; its
	 * value is only known where the breakpoint is hit. */
	size_t n = strlen(p);

	if (n >= 512)
		return shell_error("expression too long");
	while (n && isspace((unsigned char)p[n - 1]))
		n--;
	if (n && strchr("+-*/%<>=!&|^~(", p[n - 1]))
		return shell_error("A syntax error in expression, near `'.");
	return 0;
}

int shell_cmd_condition(struct shell *sh, const char *args)
{
	struct ptd_bpinfo bi;
	const char *p = skipws(args);
	int id;

	id = parse_bpnum(p, "Argument required (breakpoint number).");
	if (id < 0)
		return -1;
	while (*p && !isspace((unsigned char)*p))
		p++;
	p = skipws(p);
	if (!bp_exists(sh, id, &bi))
		return shell_error("No breakpoint number %d.", id);
	if (*p && shell_condition_check(p) < 0)
		return -1;
	shell_breakcmds_init(sh);
	ptd_clear_error();
	if (ptd_session_bp_condition(sh->s, id, *p ? p : NULL) < 0)
		return sess_error(-ptde_notfound);
	if (!*p && sh->from_tty)
		printf("Breakpoint %d now unconditional.\n", id);
	return 0;
}

int shell_cmd_ignore(struct shell *sh, const char *args)
{
	struct ptd_bpinfo bi;
	const char *p = skipws(args);
	uint64_t count;
	enum expr_kind k;
	int id;

	id = parse_bpnum(p, "Argument required (a breakpoint number).");
	if (id < 0)
		return -1;
	while (*p && !isspace((unsigned char)*p))
		p++;
	p = skipws(p);
	if (!bp_exists(sh, id, &bi))
		return shell_error("No breakpoint number %d.", id);
	if (!*p)
		return shell_error("Second argument (specified ignore-count) is missing.");
	if (shell_eval(sh, p, &count, &k) < 0)
		return -1;
	if (shell_bp_set_ignore(sh, id, (int64_t)count) < 0)
		return -1;
	if (sh->from_tty)
		printf("\n");
	return 0;
}

int shell_bp_exists(struct shell *sh, int id)
{
	struct ptd_bpinfo bi;

	return bp_exists(sh, id, &bi);
}

int shell_bp_set_ignore(struct shell *sh, int id, int64_t count)
{
	if (count < 0)
		count = 0;
	if (count > UINT32_MAX)
		count = UINT32_MAX;
	if (ptd_session_bp_ignore(sh->s, id, (unsigned)count) < 0)
		return sess_error(-ptde_notfound);
	if (!sh->from_tty)
		return 0;
	/* (no newline after it: continue N goes on with "  Continuing.") */
	if (count == 0)
		printf("Will stop next time breakpoint %d is reached.", id);
	else if (count == 1)
		printf("Will ignore next crossing of breakpoint %d.", id);
	else
		printf("Will ignore next %" PRId64 " crossings of breakpoint %d.", count, id);
	return 0;
}

void shell_print_bp_extra(const struct ptd_bpinfo *bi)
{
	if (bi->cond)
		printf("\tstop only if %s\n", bi->cond);
}

void shell_print_bp_ignore(const struct ptd_bpinfo *bi)
{
	if (bi->ignore)
		printf("\tignore next %u hits\n", bi->ignore);
}

/* ---- pending breakpoints ------------------------------------------------------------- */

/* gdb's nquery(): default no; asked only at a terminal. */
static int nquery(struct shell *sh, const char *question)
{
	char line[64];

	if (!sh->confirm)
		return 0;
	if (sh->batch || !isatty(0)) {
		printf("%s(y or [n]) [answered N; input not from terminal]\n", question);
		return 0;
	}
	for (;;) {
		printf("%s(y or [n]) ", question);
		fflush(stdout);
		if (!fgets(line, sizeof(line), stdin)) {
			printf("EOF [answered N; input not from terminal]\n");
			return 0;
		}
		if (line[0] == 'y' || line[0] == 'Y')
			return 1;
		if (line[0] == 'n' || line[0] == 'N' || line[0] == '\n')
			return 0;
		printf("Please answer y or [n].\n");
	}
}

int shell_break_pending(struct shell *sh, const char *spec, int temporary, int dprintf)
{
	int rc;

	const char *colon = strrchr(spec, ':');
	char what[600];

	/* gdb's words for a line it did not find: in the current file, in a
	 * file the program has, or in a file no loaded program has */
	if (strspn(spec, "0123456789") == strlen(spec)) {
		snprintf(what, sizeof(what), "No line %s in the current file.", spec);
	} else if (colon && colon != spec && colon[1] &&
		   strspn(colon + 1, "0123456789") == strlen(colon + 1)) {
		char first[600];
		uint64_t a;

		snprintf(first, sizeof(first), "%.*s:1", (int)(colon - spec), spec);
		if (ptd_session_resolve(sh->s, first, &a) == 0)
			snprintf(what, sizeof(what), "No line %s in file \"%.*s\".", colon + 1,
				 (int)(colon - spec), spec);
		else
			snprintf(what, sizeof(what), "No source file named %.*s.",
				 (int)(colon - spec), spec);
		ptd_clear_error();
	} else
		snprintf(what, sizeof(what), "Function \"%s\" not defined.", spec);
	fflush(stdout);
	if (sh->bp_pending == 2)
		return shell_error("%s", what);
	printf("%s\n", what);
	if (sh->bp_pending == 0 &&
	    !nquery(sh, dprintf ? "Make dprintf pending on future shared library load? "
			       : "Make breakpoint pending on future shared library load? "))
		return 0;
	ptd_clear_error();
	rc = ptd_session_break_pending(sh->s, spec, temporary);
	if (rc < 0)
		return sess_error(rc);
	return rc;
}

int shell_set_breakpoint(struct shell *sh, const char *args)
{
	char word[32];
	const char *p = skipws(args);
	size_t n = 0;

	while (*p && !isspace((unsigned char)*p) && n + 1 < sizeof(word))
		word[n++] = *p++;
	word[n] = 0;
	if (strcmp(word, "pending"))
		return shell_error("Undefined set breakpoint command: \"%s\".  Try \"help set "
				   "breakpoint\".", word);
	p = skipws(p);
	/* (an auto-boolean: no value is no answer, unlike on/off settings) */
	if (!strcmp(p, "on") || !strcmp(p, "1") || !strcmp(p, "yes") || !strcmp(p, "enable"))
		sh->bp_pending = 1;
	else if (!strcmp(p, "off") || !strcmp(p, "0") || !strcmp(p, "no") || !strcmp(p, "disable"))
		sh->bp_pending = 2;
	else if (!strcmp(p, "auto") || !strcmp(p, "-1"))
		sh->bp_pending = 0;
	else
		return shell_error("\"on\", \"off\" or \"auto\" expected.");
	return 0;
}

int shell_show_breakpoint(struct shell *sh, const char *args)
{
	static const char *const v[] = { "auto", "on", "off" };

	if (strcmp(skipws(args), "pending"))
		return shell_error("Undefined show breakpoint command: \"%s\".  Try \"help show "
				   "breakpoint\".", skipws(args));
	printf("Debugger's behavior regarding pending breakpoints is %s.\n", v[sh->bp_pending]);
	return 0;
}

/* set exec-direction forward|reverse: the motion commands (step, next,
 * stepi, nexti, continue, finish, until, advance) go backward, as gdb's;
 * only with a recording to go back in. */
int shell_set_exec_direction(struct shell *sh, const char *args)
{
	const char *p = skipws(args);
	size_t n = strlen(p);

	while (n && isspace((unsigned char)p[n - 1]))
		n--;
	if (!n)
		return shell_error("Requires an argument. Valid arguments are forward, reverse.");
	if (!strncmp(p, "forward", n)) {
		sh->exec_reverse = 0;
		return 0;
	}
	if (strncmp(p, "reverse", n))
		return shell_error("Undefined item: \"%.*s\".", (int)n, p);
	if (!ptd_session_recording(sh->s) && !ptd_session_offline(sh->s))
		return shell_error("Target does not support this operation.");
	sh->exec_reverse = 1;
	return 0;
}

int shell_show_exec_direction(struct shell *sh, const char *args)
{
	printf("%s\n", sh->exec_reverse ? "Reverse." : "Forward.");
	return 0;
}

/* ---- motions with a place ------------------------------------------------------------- */

/* The temporary breakpoints now, so a stop can say "Temporary breakpoint". */
struct temps {
	int ids[64];
	int n;
};

static void temps_take(struct shell *sh, struct temps *t)
{
	struct ptd_bpinfo bi;
	int n = ptd_session_bp_count(sh->s);

	t->n = 0;
	for (int i = 0; i < n && t->n < 64; i++)
		if (ptd_session_bp_get(sh->s, i, &bi) == 0 && bi.temporary)
			t->ids[t->n++] = bi.id;
}

static int temps_has(const struct temps *t, int id)
{
	for (int i = 0; i < t->n; i++)
		if (t->ids[i] == id)
			return 1;
	return 0;
}

/* A location as break takes it (*EXPR evaluated here), to an address. */
static int location(struct shell *sh, const char *spec, uint64_t *addr)
{
	enum expr_kind k;

	spec = skipws(spec);
	if (*spec == '*') {
		if (shell_eval(sh, spec + 1, addr, &k) < 0)
			return -1;
		if (k == EXPR_UNAVAILABLE)
			return shell_error("value is not available");
		return 0;
	}
	ptd_clear_error();
	if (ptd_session_resolve(sh->s, spec, addr) < 0)
		return sess_error(-ptde_notfound);
	return 0;
}

/*
 * gdb's relative linespecs: +N and -N lines from the default line, the
 * line of the selected frame when the program is stopped (or a recording
 * browsed), else the one after the last listed.  @spec converted into
 * FILE:LINE in @out: 1; 0 when @spec is no such offset; -1 with a message.
 */
int shell_linespec_offset(struct shell *sh, const char *spec, char *out, size_t n)
{
	const char *p = skipws(spec), *file = NULL;
	struct ptd_line li;
	char *end;
	long off, base = 0;
	uint64_t pc;

	if ((*p != '+' && *p != '-') || !isdigit((unsigned char)p[1]))
		return 0;
	off = strtol(p, &end, 10);
	if (*skipws(end))
		return 0;
	if ((ptd_session_alive(sh->s) || ptd_session_offline(sh->s)) && sh->pc.sym &&
	    (sh->frame_level > 0 ? (pc = sh->frame_pc - 1, 1) : ptd_session_pc(sh->s, &pc) == 0) &&
	    ptd_symbols_line(sh->pc.sym, pc, &li) == 0 && li.file) {
		file = li.file;
		base = li.line;
	} else if (sh->list_file[0] && (sh->list_next > 0 || sh->list_line > 0)) {
		file = sh->list_file;
		base = sh->list_next > 0 ? sh->list_next : sh->list_line;
	}
	ptd_clear_error();
	if (!file)
		return shell_error("No default source line now: a relative line (%s) needs a stop "
				   "or a listing.", p);
	base += off;
	snprintf(out, n, "%s:%ld", file, base < 1 ? 1 : base);
	return 1;
}

static int live_check(struct shell *sh)
{
	if (!ptd_session_alive(sh->s))
		return shell_error("The program is not being run.");
	return 0;
}

/* until/advance also move through a recording kept after the program
 * ended, or loaded. */
static int history_check(struct shell *sh)
{
	if (!ptd_session_alive(sh->s) && !ptd_session_offline(sh->s))
		return shell_error("The program is not being run.");
	if (sh->exec_reverse && !ptd_session_recording(sh->s) && !ptd_session_offline(sh->s))
		return shell_error("Target native does not support this command.");
	return 0;
}

static int report(struct shell *sh, int rc, const struct ptd_event *ev, const struct temps *t)
{
	if (rc < 0)
		return sess_error(rc);
	shell_report_stop(sh, ev,
			  (ev->kind == PTD_EVENT_BREAKPOINT || ev->bp_catch) && temps_has(t, ev->bp_id),
			  0);
	return 0;
}

static int until_or_advance(struct shell *sh, const char *args, int anywhere)
{
	struct ptd_event ev;
	struct temps t;
	uint64_t addr;
	int rc;

	args = skipws(args);
	if (anywhere && !*args)
		return shell_error("Argument required (a location).");
	if (history_check(sh) < 0)
		return -1;
	temps_take(sh, &t);
	ptd_clear_error();
	if (!*args) {
		rc = ptd_session_until_next_dir(sh->s, sh->exec_reverse, &ev);
	} else if (*skipws(args) == '*') {
		if (location(sh, args, &addr) < 0)
			return -1;
		ptd_clear_error();
		rc = ptd_session_advance_dir(sh->s, addr, anywhere, sh->exec_reverse, &ev);
	} else {
		/* every place of the location: the first reached stops it */
		uint64_t addrs[17];
		char rel[PATH_MAX + 32];
		int n;

		n = shell_linespec_offset(sh, args, rel, sizeof(rel));
		if (n < 0)
			return -1;
		if (n)
			args = rel;
		ptd_clear_error();
		n = ptd_session_resolve_all(sh->s, skipws(args), addrs, 17);
		if (n <= 0)
			return sess_error(n < 0 ? n : -ptde_notfound);
		ptd_clear_error();
		rc = ptd_session_advance_locs(sh->s, addrs, n, anywhere, sh->exec_reverse, &ev);
	}
	return report(sh, rc, &ev, &t);
}

int shell_cmd_until(struct shell *sh, const char *args)
{
	return until_or_advance(sh, args, 0);
}

int shell_cmd_advance(struct shell *sh, const char *args)
{
	return until_or_advance(sh, args, 1);
}

int shell_cmd_jump(struct shell *sh, const char *args)
{
	struct ptd_event ev;
	struct temps t;
	uint64_t addr;
	int rc;

	args = skipws(args);
	if (!*args)
		return shell_error("Argument required (starting address).");
	if (live_check(sh) < 0)
		return -1;
	if (location(sh, args, &addr) < 0)
		return -1;
	if (sh->from_tty) {
		printf("Continuing at 0x%" PRIx64 ".\n", addr);
		fflush(stdout);
	}
	temps_take(sh, &t);
	ptd_clear_error();
	rc = ptd_session_jump(sh->s, addr, &ev);
	return report(sh, rc, &ev, &t);
}

/* ---- signals ------------------------------------------------------------------------------ */

/* gdb's name of @sig: print.c's, and "SIG32" for the ones below SIGRTMIN
 * glibc keeps for itself. */
static const char *sig_name(int sig)
{
	static char buf[16];
	const char *n = ptd_print_signame(sig);

	if (n && strcmp(n, "?"))
		return n;
	snprintf(buf, sizeof(buf), "SIG%d", sig);
	return buf;
}

/* gdb takes SIGxxx names, and numbers 1-15 (its own numbering, which
 * is Linux's there). */
static int parse_signal(const char *word)
{
	char *end;
	long v;

	if (isdigit((unsigned char)word[0])) {
		errno = 0;
		v = strtol(word, &end, 10);
		if (errno || *end)
			return -1;
		return (int)v;
	}
	if (strncmp(word, "SIG", 3))
		return -1;
	for (int i = 1; i < 65; i++) {
		if (!strcmp(sig_name(i), word))
			return i;
	}
	return -1;
}

int shell_cmd_signal(struct shell *sh, const char *args)
{
	struct ptd_event ev;
	struct temps t;
	char word[64];
	int sig, rc;

	args = skipws(args);
	if (live_check(sh) < 0)
		return -1;
	if (!*args)
		return shell_error("Argument required (signal number).");
	snprintf(word, sizeof(word), "%s", args);
	for (char *p = word; *p; p++)
		if (isspace((unsigned char)*p))
			*p = 0;
	sig = parse_signal(word);
	if (sig < 0 && !isdigit((unsigned char)word[0]))
		return shell_error("No symbol \"%s\" in current context.", word);
	if (sig < 0 || sig > 64 || (isdigit((unsigned char)word[0]) && sig > 15))
		return shell_error("Only signals 1-15 are valid as numeric signals.\n"
				   "Use \"info signals\" for a list of symbolic signals.");
	if (sh->from_tty) {
		if (sig)
			printf("Continuing with signal %s.\n", sig_name(sig));
		else
			printf("Continuing with no signal.\n");
		fflush(stdout);
	}
	temps_take(sh, &t);
	ptd_clear_error();
	rc = ptd_session_continue_signal(sh->s, sig, &ev);
	return report(sh, rc, &ev, &t);
}

static void signal_header(void)
{
	printf("Signal        Stop\tPrint\tPass to program\tDescription\n");
}

static void signal_row(struct shell *sh, int sig)
{
	int f = ptd_session_signal_flags(sh->s, sig);
	const char *name = sig_name(sig);

	if (f < 0)
		return;
	printf("%-13s %s\t%s\t%s\t\t%s\n", name, f & PTD_SIG_STOP ? "Yes" : "No",
	       f & PTD_SIG_PRINT ? "Yes" : "No", f & PTD_SIG_PASS ? "Yes" : "No",
	       ptd_print_sigdesc(sig));
}

int shell_cmd_handle(struct shell *sh, const char *args)
{
	int sigs[65], nsig = 0, set = 0, clr = 0;
	const char *p = skipws(args);
	char word[64];

	if (!*p)
		return shell_error("Argument required (signal to handle).");
	while (*p) {
		size_t n = 0;
		int sig;

		while (*p && !isspace((unsigned char)*p) && n + 1 < sizeof(word))
			word[n++] = *p++;
		word[n] = 0;
		while (*p && !isspace((unsigned char)*p))
			p++;
		p = skipws(p);
		/* gdb: stop implies print, noprint implies nostop */
		if (!strcmp(word, "stop")) {
			set |= PTD_SIG_STOP | PTD_SIG_PRINT;
			clr &= ~(PTD_SIG_STOP | PTD_SIG_PRINT);
		} else if (!strcmp(word, "nostop")) {
			clr |= PTD_SIG_STOP;
			set &= ~PTD_SIG_STOP;
		} else if (!strcmp(word, "print")) {
			set |= PTD_SIG_PRINT;
			clr &= ~PTD_SIG_PRINT;
		} else if (!strcmp(word, "noprint")) {
			clr |= PTD_SIG_PRINT | PTD_SIG_STOP;
			set &= ~(PTD_SIG_PRINT | PTD_SIG_STOP);
		} else if (!strcmp(word, "pass") || !strcmp(word, "noignore")) {
			set |= PTD_SIG_PASS;
			clr &= ~PTD_SIG_PASS;
		} else if (!strcmp(word, "nopass") || !strcmp(word, "ignore")) {
			clr |= PTD_SIG_PASS;
			set &= ~PTD_SIG_PASS;
		} else if (!strcmp(word, "all")) {
			for (int i = 1; i < 65 && nsig < 65; i++)
				if (i != SIGTRAP && i != SIGINT)
					sigs[nsig++] = i;
		} else if ((sig = parse_signal(word)) > 0 && sig < 65 &&
			   (!isdigit((unsigned char)word[0]) || sig <= 15)) {
			if (nsig < 65)
				sigs[nsig++] = sig;
		} else if (isdigit((unsigned char)word[0])) {
			return shell_error("Only signals 1-15 are valid as numeric signals.\n"
					   "Use \"info signals\" for a list of symbolic signals.");
		} else {
			return shell_error("Unrecognized or ambiguous flag word: \"%s\".", word);
		}
	}
	for (int i = 0; i < nsig; i++) {
		int f = ptd_session_signal_flags(sh->s, sigs[i]);

		if (f < 0)
			continue;
		ptd_session_set_signal_flags(sh->s, sigs[i], (f | set) & ~clr);
	}
	if (sh->from_tty && nsig) {
		signal_header();
		for (int i = 0; i < nsig; i++)
			signal_row(sh, sigs[i]);
	}
	return 0;
}

int shell_info_signals(struct shell *sh, const char *args)
{
	char word[64];
	int sig;

	args = skipws(args);
	if (*args) {
		snprintf(word, sizeof(word), "%s", args);
		for (char *p = word; *p; p++)
			if (isspace((unsigned char)*p))
				*p = 0;
		sig = parse_signal(word);
		/* gdb prints the header before it looks at the argument */
		signal_header();
		if (sig < 0 && !isdigit((unsigned char)word[0]))
			return shell_error("No symbol \"%s\" in current context.", word);
		if (sig <= 0 || sig > 64 || (isdigit((unsigned char)word[0]) && sig > 15))
			return shell_error("Only signals 1-15 are valid as numeric signals.\n"
					   "Use \"info signals\" for a list of symbolic signals.");
		signal_row(sh, sig);
		return 0;
	}
	signal_header();
	printf("\n");
	for (sig = 1; sig < 65; sig++)
		signal_row(sh, sig);
	printf("\nUse the \"handle\" command to change these tables.\n");
	return 0;
}

/* ---- shared libraries ------------------------------------------------------------------ */

struct shl_ctx {
	int n;
	int nodebug;
};

static void shl_row(void *ctx, const struct ptd_shlib *l)
{
	struct shl_ctx *c = ctx;
	char lo[24], hi[24];

	if (!c->n++)
		printf("From                To                  Syms Read   Shared Object Library\n");
	if (l->text_lo || l->text_hi) {
		ptd_print_addr16(lo, sizeof(lo), l->text_lo);
		ptd_print_addr16(hi, sizeof(hi), l->text_hi);
	} else {
		lo[0] = hi[0] = 0;
	}
	if (!l->has_debuginfo)
		c->nodebug = 1;
	printf("%-19s %-19s %-11s %s\n", lo, hi,
	       !l->has_symbols ? "No" : l->has_debuginfo ? "Yes" : "Yes (*)", l->path);
}

int shell_info_sharedlibrary(struct shell *sh, const char *args)
{
	struct shl_ctx c = { 0, 0 };
	int rc;

	(void)args;
	if (!ptd_session_alive(sh->s)) {
		printf("No shared libraries loaded at this time.\n");
		return 0;
	}
	ptd_clear_error();
	rc = ptd_session_shlibs(sh->s, shl_row, &c);
	if (rc < 0)
		return sess_error(rc);
	if (!c.n)
		printf("No shared libraries loaded at this time.\n");
	else if (c.nodebug)
		printf("(*): Shared library is missing debugging information.\n");
	return 0;
}

/* ---- starti -------------------------------------------------------------------------------- */

int shell_starti_launch(struct shell *sh, struct ptd_event *ev)
{
	int rc;
	uint64_t pc = 0;

	memset(ev, 0, sizeof(*ev));
	ptd_clear_error();
	rc = ptd_session_launch(sh->s);
	if (rc < 0)
		return rc;
	ptd_session_pc(sh->s, &pc);
	ev->kind = PTD_EVENT_STEPPED;
	ev->pc = pc;
	ev->tid = ptd_session_pid(sh->s);
	ev->thread_num = 1;
	ev->new_frame = 1;
	printf("\nProgram stopped.\n");
	return 0;
}

/* ---- watchpoints ------------------------------------------------------------------------ */

/*
 * The value text of watchpoint @id: in the watched expression's type with
 * the value printer (kept by shell_watch_lvalue()), as gdb prints Old
 * value/New value; a signed integer of the watched size when the type is
 * not known.
 */
static void watch_value_text(struct shell *sh, int id, const uint8_t *v, int len, char *out,
			     size_t n)
{
	int64_t x = 0;

	for (int i = 0; i < sh->nwatch_types; i++)
		if (sh->watch_types[i].id == id &&
		    shell_watch_format(sh, sh->watch_types[i].key, v, len, out, n) == 0)
			return;
	memcpy(&x, v, (size_t)len);
	if (len < 8) {
		int sh = 64 - 8 * len;
		x = (int64_t)((uint64_t)x << sh) >> sh;
	}
	snprintf(out, n, "%" PRId64, x);
}

static const char *watch_title(int kind)
{
	switch (kind) {
	case PTD_WATCH_READ:
		return "Hardware read watchpoint";
	case PTD_WATCH_ACCESS:
		return "Hardware access (read/write) watchpoint";
	default:
		return "Hardware watchpoint";
	}
}

const char *shell_bp_type(const struct ptd_bpinfo *bi)
{
	if (bi->catch_kind)
		return "catchpoint";
	if (bi->dprintf)
		return "dprintf";
	switch (bi->watch) {
	case PTD_WATCH_WRITE:
		return "hw watchpoint";
	case PTD_WATCH_READ:
		return "read watchpoint";
	case PTD_WATCH_ACCESS:
		return "acc watchpoint";
	default:
		return "breakpoint";
	}
}

/* gdb watches every value a watched expression reads on the way (the
 * pointer of *ptr, i of a[i], p and p->next of p->next->val): each one
 * becomes a place of watchpoint @id, evaluated in the frame the
 * expression was (shell_watch_lvalue() bound it); their places into
 * @locs (*@n, at most PTD_HW_SLOTS + 1, the object first).  Returns 0 or
 * <0 (the debug registers ran out). */
static int watch_deps(struct shell *sh, const char *expr, int id, struct ptd_watch_loc *locs,
		      int *n)
{
	int rc;

	*n = ptd_values_watch_chain(sh->vals, expr, locs, PTD_HW_SLOTS + 1);
	if (*n < 0) {
		*n = 0;
		ptd_clear_error();
		return 0;
	}
	for (int k = 1; k < *n; k++) {
		rc = ptd_session_watch_dep(sh->s, id, locs[k].addr, locs[k].len);
		if (rc < 0)
			return rc;
	}
	return 0;
}

/*
 * An expression that cannot be evaluated now (p->next->val while p is
 * NULL): gdb sets the watchpoint anyway on the values read before the
 * error (@locs[1..@n-1]; @locs[0] has no place), with the value
 * <unreadable>, and its change may make the expression readable.  The
 * type comes from an evaluation that reads nothing.  Returns the id, or
 * <0 after the message.
 */
static int watch_unreadable(struct shell *sh, const char *expr, enum ptd_watch_kind kind,
			    const struct ptd_watch_loc *locs, int n, int *key)
{
	struct ptd_value *val = NULL;
	uint64_t size;
	int id, rc;

	rc = ptd_values_eval_type(sh->vals, expr, &val);
	if (rc < 0)
		return sess_error(rc);
	size = ptd_value_size(val);
	if (size < 1 || size > 8) {
		ptd_value_free(val);
		return shell_error("cannot watch \"%s\": %llu bytes (at most 8, one debug "
				   "register)", expr, (unsigned long long)size);
	}
	rc = ptd_values_keep(sh->vals, val);
	ptd_value_free(val);
	*key = rc > 0 ? rc : 0;
	ptd_clear_error();
	/* created at the first place read, then given its real places */
	id = ptd_session_watch(sh->s, expr, locs[1].addr, (int)size, kind);
	if (id < 0)
		return sess_error(id);
	rc = ptd_session_watch_places(sh->s, id, locs, n);
	if (rc < 0) {
		ptd_session_delete(sh->s, id);
		return sess_error(rc);
	}
	return id;
}

/* gdb's `watch -l EXPR` / `-location`: the address EXPR names now, not
 * the expression; its option is consumed from *@args. */
static int watch_location_opt(const char **args)
{
	const char *p = skipws(*args);

	if (!strncmp(p, "-location", 9) && (!p[9] || isspace((unsigned char)p[9])))
		p += 9;
	else if (!strncmp(p, "-l", 2) && (!p[2] || isspace((unsigned char)p[2])))
		p += 2;
	else
		return 0;
	*args = p;
	return 1;
}

/* gdb's `watch EXPR if COND`: cuts @expr at a top-level "if" word and
 * returns COND (in @expr's storage), or NULL. */
static char *watch_cond(char *expr)
{
	int depth = 0;
	char quote = 0;

	for (char *p = expr; *p; p++) {
		if (quote) {
			if (*p == '\\' && p[1])
				p++;
			else if (*p == quote)
				quote = 0;
			continue;
		}
		if (*p == '"' || *p == '\'')
			quote = *p;
		else if (*p == '(' || *p == '[')
			depth++;
		else if ((*p == ')' || *p == ']') && depth > 0)
			depth--;
		else if (!depth && p > expr && isspace((unsigned char)p[-1]) && p[0] == 'i' &&
			 p[1] == 'f' && (!p[2] || isspace((unsigned char)p[2]))) {
			char *e = p;

			while (e > expr && isspace((unsigned char)e[-1]))
				e--;
			*e = 0;
			return (char *)skipws(p + 2);
		}
	}
	return NULL;
}

static int do_watch(struct shell *sh, const char *args, enum ptd_watch_kind kind)
{
	char expr[256], spec[280], *cond;
	uint64_t addr = 0;
	uint64_t ret_pc, cfa;
	struct ptd_watch_loc locs[PTD_HW_SLOTS + 1];
	int len = 0, id, key = 0, rc, nlocs = 0, local = 0, location;
	size_t n;

	location = watch_location_opt(&args);
	snprintf(expr, sizeof(expr), "%s", skipws(args));
	cond = watch_cond(expr);
	n = strlen(expr);
	while (n && isspace((unsigned char)expr[n - 1]))
		expr[--n] = 0;
	if (!expr[0])
		return shell_error("Argument required (expression to compute).");
	snprintf(spec, sizeof(spec), "%s%s", location ? "-location " : "", expr);
	if (shell_values_bind(sh) < 0)
		return -1;
	nlocs = location ? 0 : ptd_values_watch_chain(sh->vals, expr, locs, PTD_HW_SLOTS + 1);
	if (location) {
		/* the place only: no value read on the way, no frame to end
		 * with; evaluated again it fails (it is not C), so it stays */
		if (shell_watch_lvalue(sh, expr, &addr, &len, &key) < 0)
			return -1;
		ptd_clear_error();
		id = ptd_session_watch(sh->s, spec, addr, len, kind);
		if (id < 0) {
			ptd_values_unkeep(sh->vals, key);
			return sess_error(id);
		}
	} else if (nlocs > 1 && !locs[0].len) {
		id = watch_unreadable(sh, expr, kind, locs, nlocs, &key);
		if (id < 0) {
			ptd_values_unkeep(sh->vals, key);
			return -1;
		}
	} else {
		ptd_clear_error();
		if (shell_watch_lvalue(sh, expr, &addr, &len, &key) < 0)
			return -1;
		ptd_clear_error();
		id = ptd_session_watch(sh->s, expr, addr, len, kind);
		if (id < 0) {
			ptd_values_unkeep(sh->vals, key);
			return sess_error(id);
		}
		rc = watch_deps(sh, expr, id, locs, &nlocs);
		if (rc < 0) {
			ptd_session_delete(sh->s, id);
			ptd_values_unkeep(sh->vals, key);
			return sess_error(rc);
		}
		local = shell_watch_frame(sh, addr, &ret_pc, &cfa);
	}
	/* an expression that reads a local (the object, or i of a[i]): the
	 * watchpoint ends with its frame, as in gdb */
	for (int k = 1; !local && k < nlocs; k++)
		local = shell_watch_frame(sh, locs[k].addr, &ret_pc, &cfa);
	if (local) {
		ptd_clear_error();
		rc = ptd_session_watch_scope(sh->s, id, ret_pc, cfa);
		if (rc < 0) {
			ptd_session_delete(sh->s, id);
			ptd_values_unkeep(sh->vals, key);
			return sess_error(rc);
		}
	}
	if (cond && *cond && (rc = ptd_session_bp_condition(sh->s, id, cond)) < 0) {
		ptd_session_delete(sh->s, id);
		ptd_values_unkeep(sh->vals, key);
		return sess_error(rc);
	}
	if (key && sh->nwatch_types < (int)(sizeof(sh->watch_types) / sizeof(sh->watch_types[0]))) {
		sh->watch_types[sh->nwatch_types].id = id;
		sh->watch_types[sh->nwatch_types++].key = key;
	}
	printf("%s %d: %s\n", watch_title(kind), id, spec);
	return 0;
}

int shell_cmd_watch(struct shell *sh, const char *args)
{
	return do_watch(sh, args, PTD_WATCH_WRITE);
}

int shell_cmd_rwatch(struct shell *sh, const char *args)
{
	return do_watch(sh, args, PTD_WATCH_READ);
}

int shell_cmd_awatch(struct shell *sh, const char *args)
{
	return do_watch(sh, args, PTD_WATCH_ACCESS);
}

void shell_print_watch_stop(struct shell *sh, const char *thread)
{
	struct ptd_bpinfo bi;
	int n = ptd_session_bp_count(sh->s);
	char a[512], b[512];
	int gone[16], ngone = 0, now_ok, old_ok;

	for (int i = 0; i < n; i++) {
		if (ptd_session_bp_get(sh->s, i, &bi) < 0 || !bi.watch || !bi.triggered)
			continue;
		if (bi.scope_ended) {
			for (int r = 0; r < (bi.reports > 0 ? bi.reports : 1); r++)
				printf("\nWatchpoint %d deleted because the program has left the "
				       "block in\nwhich its expression is valid.\n",
				       bi.id);
			if (ngone < (int)(sizeof(gone) / sizeof(gone[0])))
				gone[ngone++] = bi.id;
			continue;
		}
		if (ptd_session_watch_readable(sh->s, bi.id, &now_ok, &old_ok) < 0)
			now_ok = old_ok = 1;
		if (now_ok)
			watch_value_text(sh, bi.id, bi.value, bi.len, b, sizeof(b));
		else
			snprintf(b, sizeof(b), "<unreadable>");
		/* gdb reports a read or access watchpoint once per place it
		 * watches; only the first report of an access one shows the
		 * change, and only when the old value was readable */
		if (bi.changed && old_ok)
			watch_value_text(sh, bi.id, bi.old_value, bi.len, a, sizeof(a));
		else
			snprintf(a, sizeof(a), "<unreadable>");
		for (int r = 0; r < (bi.reports > 0 ? bi.reports : 1); r++) {
			int old_new = r == 0 && bi.changed &&
				      (bi.watch == PTD_WATCH_WRITE ||
				       (bi.watch == PTD_WATCH_ACCESS && old_ok));
			const char *title = watch_title(bi.watch);

			if (thread)
				printf("\n%s hit %s %d: %s\n\n", thread, title, bi.id, bi.spec);
			else
				printf("\n%s %d: %s\n\n", title, bi.id, bi.spec);
			if (old_new)
				printf("Old value = %s\nNew value = %s\n", a, b);
			else
				printf("Value = %s\n", b);
		}
	}
	for (int i = 0; i < ngone; i++)
		ptd_session_delete(sh->s, gone[i]);
}

int shell_info_watchpoints(struct shell *sh, const char *args)
{
	struct ptd_bpinfo bi;
	int n = ptd_session_bp_count(sh->s), shown = 0, tw = 14, aw = 10;

	(void)args;
	/* gdb sizes the columns over the watchpoints; a watchpoint has its
	 * location (an address) only while the program runs */
	for (int i = 0; i < n; i++) {
		if (ptd_session_bp_get(sh->s, i, &bi) < 0 || !bi.watch)
			continue;
		if ((int)strlen(shell_bp_type(&bi)) > tw)
			tw = (int)strlen(shell_bp_type(&bi));
		if (ptd_session_alive(sh->s))
			aw = 18;
	}
	for (int i = 0; i < n; i++) {
		if (ptd_session_bp_get(sh->s, i, &bi) < 0 || !bi.watch)
			continue;
		if (!shown++)
			printf("Num     %-*s Disp Enb %-*s What\n", tw, "Type", aw, "Address");
		printf("%-7d %-*s %-4s %-3s %-*s %s\n", bi.id, tw, shell_bp_type(&bi),
		       bi.temporary ? "del" : "keep", "y", aw, "", bi.spec);
		shell_print_bp_extra(&bi);
		if (bi.hits)
			printf("\tbreakpoint already hit %u time%s\n", bi.hits, bi.hits == 1 ? "" : "s");
		shell_print_bp_ignore(&bi);
		shell_print_bp_commands(bi.id);
	}
	if (!shown)
		printf("No watchpoints.\n");
	return 0;
}

/* ---- enable, disable ------------------------------------------------------------------- */

/* enable/disable [N | N.M ...]: a breakpoint, or one location of one
 * with several (gdb's N.M); without arguments every breakpoint (not
 * their locations), as gdb 13.  A single-location breakpoint's N.1 is
 * the breakpoint itself. */
/* Breakpoint @id, or its location @loc (@has_loc: N.M given). */
static int enable_one(struct shell *sh, long id, long loc, int has_loc, int on)
{
	struct ptd_bpinfo bi;
	int rc, nlocs = -1, n = ptd_session_bp_count(sh->s);

	for (int k = 0; k < n; k++)
		if (ptd_session_bp_get(sh->s, k, &bi) == 0 && bi.id == id)
			nlocs = bi.nlocs;
	if (nlocs < 0)
		return shell_error("No breakpoint number %ld.", id);
	if (has_loc && (loc == 0 || loc > (nlocs > 1 ? nlocs : 1)))
		return shell_error("Bad breakpoint location number '%ld'", loc);
	/* (N.1 of a breakpoint with one location is the breakpoint) */
	rc = ptd_session_bp_enable(sh->s, (int)id, nlocs > 1 ? (int)loc : 0, on);
	return rc < 0 ? sess_error(rc) : 0;
}

/* A number of an N, N-M, N.M or N.M-K argument: 0 and *@end past it, or -1. */
static int bp_number(const char *p, long *v, char **end)
{
	if (!isdigit((unsigned char)*p))
		return -1;
	errno = 0;
	*v = strtol(p, end, 10);
	return errno || *v > INT32_MAX ? -1 : 0;
}

/* enable once|delete LIST, enable count N LIST (@with_count): breakpoints
 * numbered N or N-M, enabled with gdb's disposition. */
static int enable_disp(struct shell *sh, const char *args, enum ptd_bp_disp disp, int with_count)
{
	long count = disp == PTD_BP_DISABLE ? 1 : 0;
	int failed = 0;

	args = skipws(args);
	if (with_count) {
		char *end;

		if (!*args)
			return shell_error("Argument required (hit count).");
		/* (gdb's get_number: a word that is not a number counts 0) */
		count = strtol(args, &end, 10);
		if (end == args || (*end && !isspace((unsigned char)*end)))
			count = 0;
		args = skipws(args + strcspn(args, " \t"));
	}
	if (!*args)
		return shell_error("Argument required (one or more breakpoint numbers).");
	while (*args) {
		char word[64], *end;
		size_t len = strcspn(args, " \t");
		long id, last;

		snprintf(word, sizeof(word), "%.*s", (int)len, args);
		args = skipws(args + len);
		if (bp_number(word, &id, &end) < 0) {
			failed |= shell_error("Bad breakpoint number '%s'", word) < 0;
			continue;
		}
		last = id;
		if (*end && (*end != '-' || bp_number(end + 1, &last, &end) < 0 || *end)) {
			failed |= shell_error("Bad breakpoint number '%s'", word) < 0;
			continue;
		}
		for (long i = id; i <= last; i++) {
			int rc = ptd_session_bp_disposition(sh->s, (int)i, disp, (int)count);

			if (rc < 0)
				failed |= sess_error(rc) < 0;
		}
	}
	return failed ? -1 : 0;
}

static int enable_cmd(struct shell *sh, const char *args, int on)
{
	struct ptd_bpinfo bi;
	int failed = 0, n = ptd_session_bp_count(sh->s);

	args = skipws(args);
	if (on) {
		static const struct {
			const char *word;
			enum ptd_bp_disp disp;
		} forms[] = { { "once", PTD_BP_DISABLE }, { "count", PTD_BP_DISABLE },
			      { "delete", PTD_BP_DEL } };

		for (size_t k = 0; k < sizeof(forms) / sizeof(forms[0]); k++) {
			size_t wl = strlen(forms[k].word);

			if (strncmp(args, forms[k].word, wl) ||
			    (args[wl] && !isspace((unsigned char)args[wl])))
				continue;
			return enable_disp(sh, args + wl, forms[k].disp, k == 1);
		}
	}
	if (!strncmp(args, "breakpoints", 11) && (!args[11] || isspace((unsigned char)args[11])))
		args = skipws(args + 11);
	if (!*args) {
		for (int i = 0; i < n; i++)
			if (ptd_session_bp_get(sh->s, i, &bi) == 0 && !bi.watch)
				ptd_session_bp_enable(sh->s, bi.id, 0, on);
		return 0;
	}
	/* gdb's forms: N, N-M (breakpoints), N.M, N.M-K (locations) */
	while (*args) {
		char word[64], *end;
		size_t len = strcspn(args, " \t");
		long id, lo = 0, hi = 0;
		const char *dot;

		snprintf(word, sizeof(word), "%.*s", (int)len, args);
		args = skipws(args + len);
		dot = strchr(word, '.');
		if (word[0] == '-') {
			failed |= shell_error("Negative breakpoint number '%s'", word) < 0;
			continue;
		}
		if (bp_number(word, &id, &end) < 0 || (dot && (end != dot || !dot[1])) ||
		    (!dot && *end && *end != '-')) {
			if (dot && (dot == word || !dot[1]))
				shell_error("Bad breakpoint number at or near: '%s'", word);
			else
				shell_error("Bad breakpoint number '%s'", word);
			failed = 1;
			continue;
		}
		if (!dot) {
			long last = id;

			if (*end == '-' && (bp_number(end + 1, &last, &end) < 0 || *end || last < id)) {
				failed |= shell_error("Bad breakpoint number '%s'", word) < 0;
				continue;
			}
			for (long i = id; i <= last; i++)
				failed |= enable_one(sh, i, 0, 0, on) < 0;
			continue;
		}
		if (bp_number(dot + 1, &lo, &end) < 0 ||
		    (*end && (*end != '-' || bp_number(end + 1, &hi, &end) < 0 || *end || hi < lo))) {
			failed |= shell_error("Bad breakpoint location number '%s'", dot + 1) < 0;
			continue;
		}
		if (!hi)
			hi = lo;
		for (long m = lo; m <= hi; m++)
			if (enable_one(sh, id, m, 1, on) < 0) {
				failed = 1;
				break;
			}
	}
	return failed ? -1 : 0;
}

/* "display" as the first word: enable/disable display */
static const char *display_args(const char *args)
{
	while (isspace((unsigned char)*args))
		args++;
	if (!strncmp(args, "display", 7) && (!args[7] || isspace((unsigned char)args[7])))
		return args + 7;
	return NULL;
}

int shell_cmd_enable(struct shell *sh, const char *args)
{
	const char *d = display_args(args);

	return d ? shell_display_enable(sh, d, 1) : enable_cmd(sh, args, 1);
}

int shell_cmd_disable(struct shell *sh, const char *args)
{
	const char *d = display_args(args);

	return d ? shell_display_enable(sh, d, 0) : enable_cmd(sh, args, 0);
}

const char *shell_bp_canonical(struct shell *sh, const char *spec, const char *file)
{
	static char buf[4200];
	const char *p = spec;

	(void)sh;
	while (*p >= '0' && *p <= '9')
		p++;
	/* gdb's canonical form of a bare LINE: the file's full name */
	if (p != spec && !*p && file) {
		snprintf(buf, sizeof(buf), "%s:%s", file, spec);
		return buf;
	}
	return spec;
}

/* ---- catch, tcatch ------------------------------------------------------------------ */

static const char *const catch_words[] = {
	[PTD_CATCH_THROW] = "throw",
	[PTD_CATCH_CATCH] = "catch",
	[PTD_CATCH_RETHROW] = "rethrow",
	[PTD_CATCH_EXEC] = "exec",
	[PTD_CATCH_FORK] = "fork",
	[PTD_CATCH_VFORK] = "vfork",
	[PTD_CATCH_SIGNAL] = "signal",
};

const char *shell_catch_word(int kind)
{
	return kind > PTD_CATCH_NONE && kind <= PTD_CATCH_SIGNAL ? catch_words[kind] : "";
}

/* "SIGUSR1 SIGALRM" for a signal catchpoint's set (@bi), the What of
 * info breakpoints and the arguments of save breakpoints; "" for gdb's
 * standard signals, "all" for any. */
const char *shell_catch_signals(const struct ptd_bpinfo *bi, char *out, size_t n)
{
	size_t k = 0;

	out[0] = '\0';
	if (bi->catch_all) {
		snprintf(out, n, "all");
		return out;
	}
	for (int sig = 1; sig <= 64; sig++)
		if ((bi->catch_signals >> (sig - 1)) & 1 && k < n)
			k += (size_t)snprintf(out + k, n - k, "%s%s", k ? " " : "", sig_name(sig));
	return out;
}

/* catch signal [SIG... | all]: gdb 13's words when set ("Catchpoint 1
 * (signals SIGUSR1 SIGALRM)", "(standard signals)", "(any signal)"), and
 * no "Temporary" for tcatch either. */
static int catch_signal(struct shell *sh, const char *args, int temporary)
{
	/* gdb's numbers 1-15 are its own: 10 is SIGBUS, 12 SIGSYS, 7 SIGEMT
	 * (none on Linux) */
	static const int gdb_num[16] = { 0, SIGHUP, SIGINT, SIGQUIT, SIGILL, SIGTRAP, SIGABRT, -1,
					 SIGFPE, SIGKILL, SIGBUS, SIGSEGV, SIGSYS, SIGPIPE,
					 SIGALRM, SIGTERM };
	int sigs[64] = { 0 }, n = 0, all = 0, id;
	char word[64];

	while (*args) {
		size_t k = 0;
		int sig;

		while (*args && !isspace((unsigned char)*args) && k < sizeof(word) - 1)
			word[k++] = *args++;
		word[k] = '\0';
		while (isspace((unsigned char)*args))
			args++;
		if (!strcmp(word, "all")) {
			all = 1;
			continue;
		}
		sig = parse_signal(word);
		if (isdigit((unsigned char)word[0]) && (sig < 1 || sig > 15))
			return shell_error("Only signals 1-15 are valid as numeric signals.\n"
					   "Use \"info signals\" for a list of symbolic signals.");
		if (isdigit((unsigned char)word[0]) && (sig = gdb_num[sig]) < 0)
			return shell_error("signal %s (SIGEMT) does not exist on this system",
					   word);
		if (sig < 1 || sig > 64)
			return shell_error("Unknown signal name '%s'.", word);
		if (n < 64)
			sigs[n++] = sig;
	}
	if (all && n)
		return shell_error("'all' cannot be caught with other signals");
	id = ptd_session_catch_signal(sh->s, sigs, n, all, temporary);
	if (id < 0)
		return sess_error(id);
	if (all)
		printf("Catchpoint %d (any signal)\n", id);
	else if (!n)
		printf("Catchpoint %d (standard signals)\n", id);
	else {
		printf("Catchpoint %d (signal%s", id, n > 1 ? "s" : "");
		for (int i = 0; i < n; i++)
			printf(" %s", sig_name(sigs[i]));
		printf(")\n");
	}
	return 0;
}

/* gdb sets an exception catchpoint on libstdc++'s probe for the event
 * (pending until libstdc++ is loaded) and says "Catchpoint N (throw)";
 * its tcatch says "Temporary catchpoint  N (throw)", with two spaces. */
static int do_catch(struct shell *sh, const char *args, int temporary)
{
	const char *cmd = temporary ? "tcatch" : "catch";
	char word[64];
	size_t n;
	int kind = 0, id;

	while (isspace((unsigned char)*args))
		args++;
	for (n = 0; args[n] && !isspace((unsigned char)args[n]) && n < sizeof(word) - 1; n++)
		word[n] = args[n];
	word[n] = '\0';
	args += n;
	while (isspace((unsigned char)*args))
		args++;
	if (!word[0]) {
		printf("List of %s subcommands:\n\n", cmd);
		printf("%s catch -- Catch an exception, when caught.\n", cmd);
		printf("%s exec -- Catch calls to exec.\n", cmd);
		printf("%s fork -- Catch calls to fork.\n", cmd);
		printf("%s rethrow -- Catch an exception, when rethrown.\n", cmd);
		printf("%s signal -- Catch signals by their names and/or numbers.\n", cmd);
		printf("%s throw -- Catch an exception, when thrown.\n", cmd);
		printf("%s vfork -- Catch calls to vfork.\n\n", cmd);
		printf("Type \"help %s\" followed by %s subcommand name for full documentation.\n",
		       cmd, cmd);
		return 0;
	}
	for (int k = PTD_CATCH_THROW; k <= PTD_CATCH_SIGNAL; k++)
		if (!strcmp(word, catch_words[k]))
			kind = k;
	/* gdb's other catchpoints: said so, not taken for a typo */
	if (!kind && (!strcmp(word, "syscall") || !strcmp(word, "load") ||
		      !strcmp(word, "unload") || !strcmp(word, "exception") ||
		      !strcmp(word, "handlers") || !strcmp(word, "assert")))
		return shell_error("%s %s is not supported by ptdbg", cmd, word);
	if (!kind)
		return shell_error("Undefined %s command: \"%s\".  Try \"help %s\".", cmd, word,
				   cmd);
	if (kind == PTD_CATCH_SIGNAL)
		return catch_signal(sh, args, temporary);
	if (*args && kind <= PTD_CATCH_RETHROW)
		return shell_error("%s %s with an exception type (REGEXP) is not supported", cmd,
				   word);
	/* (gdb's exec, fork and vfork take no argument but a condition) */
	if (*args)
		return shell_error("Junk at end of arguments.");
	id = ptd_session_catch(sh->s, (enum ptd_catch_kind)kind, temporary);
	if (id < 0)
		return sess_error(id);
	/* (gdb 13 says "Temporary" for exception catchpoints only) */
	printf("%s %d (%s)\n",
	       temporary && kind <= PTD_CATCH_RETHROW ? "Temporary catchpoint " : "Catchpoint", id,
	       word);
	return 0;
}

int shell_cmd_catch(struct shell *sh, const char *args)
{
	return do_catch(sh, args, 0);
}

int shell_cmd_tcatch(struct shell *sh, const char *args)
{
	return do_catch(sh, args, 1);
}
