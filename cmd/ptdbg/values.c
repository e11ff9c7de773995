/*
 * The shell's value commands over the library's C expressions
 * (include/ptdbg/ptdbg.h ptd_values_*): print/inspect/output, ptype,
 * whatis, set var, info locals/args/frame, display's values and finish's
 * "Value returned is $N = ...".  Each command binds the values context
 * to the selected thread and frame first, so values are the selected
 * frame's (up, down, frame N), live or at the position in the recorded
 * past.  Output is gdb 13's.
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ptdbg/ptdbg.h"
#include "shell.h"

static const char *skip_ws(const char *s)
{
	while (isspace((unsigned char)*s))
		s++;
	return s;
}

static long file_read(void *ctx, uint64_t addr, void *buf, size_t n)
{
	return shell_read(ctx, addr, buf, n);
}

/* The registers of the frame at real level @level (pc @pc), unwound,
 * with the ones known in @known (ptd_values_frame_regs). */
int shell_frame_regs_at(struct shell *sh, int level, uint64_t pc, struct user_regs_struct *r,
			struct user_regs_struct *known)
{
	int rc;

	if (!sh->vals && ptd_values_alloc(&sh->vals) < 0)
		return shell_error("out of memory");
	shell_sync(sh);
	ptd_clear_error();
	rc = ptd_session_values_bind(sh->s, sh->vals, level, pc, file_read, sh);
	if (rc == 0)
		rc = ptd_values_frame_regs(sh->vals, r, known);
	if (rc < 0)
		return shell_error("%s", ptd_last_error(rc));
	return 0;
}

int shell_values_bind(struct shell *sh)
{
	int rc;

	if (!sh->vals && ptd_values_alloc(&sh->vals) < 0)
		return shell_error("out of memory");
	shell_values_hooks(sh);
	ptd_values_set_pretty(sh->vals, sh->print_pretty);
	ptd_values_set_print_elements(sh->vals, sh->print_elements);
	ptd_values_set_frame_args(sh->vals, sh->frame_args_mode);
	shell_sync(sh);
	ptd_clear_error();
	rc = ptd_session_values_bind(sh->s, sh->vals, sh->frame_level,
				     sh->frame_level > 0 ? sh->frame_pc : 0, file_read, sh);
	/* the frame of an inlined call (the ones not entered yet at the
	 * innermost frame's pc are callees of the frames shown) */
	if (rc == 0)
		rc = ptd_values_select_inline(sh->vals, sh->frame_inline +
							(sh->frame_level == 0 ? sh->pc.inline_skip : 0));
	if (rc < 0)
		return shell_error("%s", ptd_last_error(rc));
	return 0;
}

/* In the recorded past: the registers used are exact where the recorder
 * kept them, and memory is read as it is now.  Each is said once per
 * position, on stderr like gdb's warnings. */
static void memory_note_of(struct shell *sh, int regs_too)
{
	uint64_t pos = 0, count = 0;
	int regs = regs_too && ptd_values_used_exact_regs(sh->vals);
	int mem = ptd_values_used_memory(sh->vals);

	if (!regs && !mem)
		return;
	ptd_session_position(sh->s, &pos, &count);
	if (sh->mem_note_pos != pos)
		sh->mem_note_done = 0;
	sh->mem_note_pos = pos;
	fflush(stdout);
	if (regs && !(sh->mem_note_done & 1))
		fprintf(stderr, "note: the registers at this point of the recording are exact (the "
				"recorder kept them here)\n");
	if (mem && !(sh->mem_note_done & 2))
		fprintf(stderr, "warning: memory is shown as it is now, not as it was at this point of "
				"the recording\n");
	sh->mem_note_done |= (regs ? 1 : 0) | (mem ? 2 : 0);
}

static void memory_note(struct shell *sh)
{
	memory_note_of(sh, 1);
}

static void warn(struct shell *sh)
{
	const char *w = ptd_values_warning(sh->vals);

	if (w) {
		fflush(stdout);
		fprintf(stderr, "warning: %s\n", w);
	}
}

static int value_error(int rc)
{
	return shell_error("%s", ptd_last_error(rc));
}

/* Parses "/FMT" of print: one letter, no count or size. */
static int parse_print_fmt(const char **args, int *fmt)
{
	const char *a = skip_ws(*args);

	*fmt = 0;
	if (*a != '/') {
		*args = a;
		return 0;
	}
	a++;
	if (isdigit((unsigned char)*a))
		return shell_error("Item count other than 1 is meaningless in \"print\" command.");
	while (*a && !isspace((unsigned char)*a)) {
		if (strchr("bhwg", *a))
			return shell_error("Size letters are meaningless in \"print\" command.");
		if (!strchr("xduotcsazifr", *a))
			return shell_error("Undefined output format \"%c\".", *a);
		/* r: raw, without the pretty printers of the C++ library */
		if (*a == 'r')
			*fmt |= PTD_FMT_RAW;
		else
			*fmt = (*fmt & PTD_FMT_RAW) | (*a == 'i' ? 0 : *a);
		if (*a == 'i')
			return shell_error("Format letter \"i\" is meaningless in \"print\" command.");
		a++;
	}
	*args = skip_ws(a);
	return 0;
}

/* Evaluates and formats @expr; *@out is malloc'ed.  @val gets the value
 * (may be NULL).  Returns 0 or -1 after an error message. */
static int eval_format(struct shell *sh, const char *expr, int fmt, int top, char **out,
		       struct ptd_value **valp)
{
	struct ptd_value *val = NULL;
	int rc;

	if (shell_values_bind(sh) < 0)
		return -1;
	rc = ptd_values_eval(sh->vals, expr, &val);
	warn(sh);
	if (rc < 0)
		return value_error(rc);
	rc = ptd_value_format(sh->vals, val, fmt, top, out);
	memory_note(sh);
	if (rc < 0) {
		ptd_value_free(val);
		return value_error(rc);
	}
	if (valp)
		*valp = val;
	else
		ptd_value_free(val);
	return 0;
}

static int do_print(struct shell *sh, const char *args, int record)
{
	struct ptd_value *val = NULL;
	char *s = NULL;
	int fmt, n;

	if (parse_print_fmt(&args, &fmt) < 0)
		return -1;
	if (!*args)
		args = "$";
	if (eval_format(sh, args, fmt, 1, &s, &val) < 0)
		return -1;
	if (record) {
		n = ptd_values_record(sh->vals, val);
		if (n < 0) {
			free(s);
			ptd_value_free(val);
			return value_error(n);
		}
		sh->value_num = n;
		printf("$%d = %s\n", n, s);
	} else {
		printf("%s", s);
	}
	free(s);
	ptd_value_free(val);
	return 0;
}

int shell_cmd_print(struct shell *sh, const char *args)
{
	return do_print(sh, args, 1);
}

int shell_cmd_output(struct shell *sh, const char *args)
{
	return do_print(sh, args, 0);
}

/* printf "FORMAT", EXPR...: nothing prints unless every argument could
 * be evaluated and formatted, as in gdb. */
int shell_cmd_printf(struct shell *sh, const char *args)
{
	char *s = NULL;
	int rc;

	if (shell_values_bind(sh) < 0)
		return -1;
	rc = ptd_values_printf(sh->vals, args, &s);
	warn(sh);
	if (rc < 0)
		return value_error(rc);
	fputs(s, stdout);
	fflush(stdout);
	free(s);
	return 0;
}

/* `call` does what print does for what ptdbg evaluates (no calls into
 * the program), except that void results are not shown. */
int shell_cmd_call(struct shell *sh, const char *args)
{
	return do_print(sh, args, 1);
}

/* (ptype/o's text has "type = " in it) */
static void print_type(const char *s)
{
	if (!strncmp(s, "/* offset", 9) || !strncmp(s, "type = ", 7))
		printf("%s\n", s);
	else
		printf("type = %s\n", s);
}

static int do_type(struct shell *sh, const char *args, int expand)
{
	struct ptd_value *val = NULL;
	char *s = NULL;
	int rc;

	args = skip_ws(args);
	if (*args == '/') { /* ptype/o: offsets; the other flags are accepted, not used */
		const char *f = args + 1;

		while (*args && !isspace((unsigned char)*args))
			args++;
		if (expand && memchr(f, 'o', (size_t)(args - f)))
			expand = 2;
	}
	args = skip_ws(args);
	if (!*args)
		args = "$";
	if (shell_values_bind(sh) < 0)
		return -1;
	rc = ptd_values_type_name(sh->vals, args, expand, &s);
	if (rc == 0) {
		print_type(s);
		free(s);
		return 0;
	}
	if (rc != -ptde_notfound)
		return value_error(rc);
	/* for the type only, as gdb's: nothing is read or written
	 * (whatis x = 1 leaves x, whatis $xmm0 works before run) */
	rc = ptd_values_eval_type(sh->vals, args, &val);
	if (rc < 0)
		return value_error(rc);
	rc = ptd_value_type_name(val, expand, &s);
	ptd_value_free(val);
	if (rc < 0)
		return value_error(rc);
	print_type(s);
	free(s);
	return 0;
}

int shell_cmd_ptype(struct shell *sh, const char *args)
{
	return do_type(sh, args, 1);
}

int shell_cmd_whatis(struct shell *sh, const char *args)
{
	return do_type(sh, args, 0);
}

/* set var EXPR (and `set EXPR` when it is an assignment) */
int shell_cmd_set_var(struct shell *sh, const char *args)
{
	struct ptd_value *val = NULL;
	int rc;

	args = skip_ws(args);
	if (!*args)
		return shell_error("Argument required (expression to compute).");
	if (shell_values_bind(sh) < 0)
		return -1;
	rc = ptd_values_eval(sh->vals, args, &val);
	warn(sh);
	if (rc < 0)
		return value_error(rc);
	ptd_value_free(val);
	return 0;
}

static int need_frame(struct shell *sh)
{
	if (!ptd_session_alive(sh->s) && !ptd_session_offline(sh->s))
		return shell_error("No frame selected.");
	return 0;
}

static int print_text(struct shell *sh, int rc, char *s)
{
	if (rc < 0)
		return value_error(rc);
	memory_note(sh);
	fputs(s, stdout);
	free(s);
	return 0;
}

int shell_info_locals(struct shell *sh, const char *args)
{
	char *s = NULL;
	int rc;

	if (need_frame(sh) < 0 || shell_values_bind(sh) < 0)
		return -1;
	rc = ptd_values_locals(sh->vals, 0, &s);
	return print_text(sh, rc, s);
}

int shell_bt_locals(struct shell *sh, FILE *out)
{
	char *s = NULL, *p, *nl;
	int rc;

	if (shell_values_bind(sh) < 0)
		return -1;
	rc = ptd_values_locals(sh->vals, 0, &s);
	if (rc < 0) {
		/* (gdb's "No symbol table info available." and the like go
		 * where the locals would, and the backtrace goes on) */
		fprintf(out, "%s\n", ptd_last_error(rc));
		ptd_clear_error();
		return 0;
	}
	memory_note(sh);
	for (p = s; *p; p = nl) {
		nl = strchr(p, '\n');
		nl = nl ? nl + 1 : p + strlen(p);
		/* gdb's print_variable_and_value: every line 8 columns in
		 * (a pretty value's inner ones too), "No locals." not */
		if (strncmp(p, "No locals.", 10))
			fputs("        ", out);
		fwrite(p, 1, (size_t)(nl - p), out);
	}
	free(s);
	return 0;
}

int shell_info_args(struct shell *sh, const char *args)
{
	char *s = NULL;
	int rc;

	if (need_frame(sh) < 0 || shell_values_bind(sh) < 0)
		return -1;
	rc = ptd_values_locals(sh->vals, 1, &s);
	return print_text(sh, rc, s);
}

int shell_info_frame(struct shell *sh, const char *args)
{
	char *s = NULL;
	int rc;

	if (!ptd_session_alive(sh->s) && !ptd_session_offline(sh->s))
		return shell_error(*skip_ws(args) ? "No registers." : "No stack.");
	if (*skip_ws(args) && !sh->info_frame_named)
		return shell_info_frame_of(sh, args);
	if (shell_values_bind(sh) < 0)
		return -1;
	rc = ptd_values_frame_info_at(sh->vals, sh->frame_vlevel, &s);
	if (rc == 0 && sh->info_frame_named && !strncmp(s, "Stack level ", 12)) {
		/* a frame named: gdb says "Stack frame at" */
		char *at = strstr(s, ", frame at ");

		if (at) {
			size_t skip = (size_t)(at + 11 - s);

			memmove(s + 15, s + skip, strlen(s + skip) + 1);
			memcpy(s, "Stack frame at ", 15);
		}
	}
	return print_text(sh, rc, s);
}

/* display: "N: EXPR = VALUE" or "N: /FMT EXPR = VALUE" */
void shell_show_display_value(struct shell *sh, int num, const char *fmt, const char *expr)
{
	char *s = NULL, shown[16];
	size_t n = 0;
	int f = 0;

	for (const char *c = fmt; *c; c++)
		if (strchr("xduotcsaz", *c))
			f = *c;
	/* display/r: raw, without the C++ library's printers (and gdb does
	 * not show the r) */
	if (strchr(fmt, 'r'))
		f |= PTD_FMT_RAW;
	for (const char *c = fmt; *c && n + 1 < sizeof(shown); c++)
		if (*c != 'r')
			shown[n++] = *c;
	shown[n] = 0;
	if (eval_format(sh, expr, f, 1, &s, NULL) < 0)
		return;
	if (shown[0])
		printf("%d: /%s %s = %s\n", num, shown, expr, s);
	else
		printf("%d: %s = %s\n", num, expr, s);
	free(s);
}

void shell_print_return_value(struct shell *sh, uint64_t from_pc)
{
	struct ptd_value *val = NULL;
	char *s = NULL;
	int n;

	if (shell_values_bind(sh) < 0)
		return;
	ptd_clear_error();
	if (ptd_session_return_value(sh->s, sh->vals, from_pc, &val) < 0)
		return; /* void, no debug info, or registers not known: nothing */
	if (ptd_value_format(sh->vals, val, 0, 1, &s) < 0) {
		ptd_value_free(val);
		return;
	}
	n = ptd_values_record(sh->vals, val);
	if (n > 0) {
		sh->value_num = n;
		printf("Value returned is $%d = %s\n", n, s);
	}
	free(s);
	ptd_value_free(val);
}

void shell_set_convenience(struct shell *sh, const char *name, long value)
{
	struct ptd_value *val = NULL;
	char expr[96];

	if (!sh->vals && ptd_values_alloc(&sh->vals) < 0)
		return;
	snprintf(expr, sizeof(expr), "$%s = %ld", name, value);
	if (ptd_values_eval(sh->vals, expr, &val) == 0)
		ptd_value_free(val);
	ptd_clear_error();
}

void shell_values_release(struct shell *sh)
{
	ptd_values_free(sh->vals);
	sh->vals = NULL;
}

int shell_frame_regs(struct shell *sh, struct user_regs_struct *r, struct user_regs_struct *known)
{
	int rc;

	if (shell_values_bind(sh) < 0)
		return -1;
	rc = ptd_values_frame_regs(sh->vals, r, known);
	if (rc < 0)
		return value_error(rc);
	return 0;
}

/* ------------------------------------------------------------------ */
/* Arguments in frame lines (gdb's "set print frame-arguments")         */

static const char *const frame_args_modes[] = { "all", "scalars", "none", "presence", NULL };

static int frame_args_cb(void *ctx, int level, uint64_t pc, char *out, size_t n)
{
	struct shell *sh = ctx;
	char *s = NULL;
	int rc;

	if (!sh->vals && ptd_values_alloc(&sh->vals) < 0)
		return -1;
	ptd_values_set_pretty(sh->vals, sh->print_pretty);
	ptd_values_set_print_elements(sh->vals, sh->print_elements);
	ptd_values_set_frame_args(sh->vals, sh->frame_args_mode);
	if (level < 0)
		level = 0;
	ptd_clear_error();
	/* (bt: one unwind step from the last frame's binding, not a walk
	 * from frame 0 for each frame of a deep stack) */
	if (sh->pc.args_walk && level > 0 && level == sh->pc.args_walk_level + 1)
		rc = ptd_values_bind_caller(sh->vals, pc);
	else
		rc = ptd_session_values_bind(sh->s, sh->vals, level, level ? pc : 0, file_read, sh);
	if (sh->pc.args_walk)
		sh->pc.args_walk_level = rc == 0 ? level : -1;
	if (rc < 0 ||
	    ptd_values_select_inline(sh->vals, sh->pc.args_callees < 0 ? 1 << 20
								     : sh->pc.args_callees) < 0 ||
	    ptd_values_frame_args(sh->vals, sh->frame_args_mode, &s) < 0) {
		ptd_clear_error();
		return -1;
	}
	snprintf(out, n, "%s", s);
	free(s);
	/* in the past, values read from the present memory are marked as
	 * print marks them (that the registers are exact is left to print:
	 * a frame line shows no registers) */
	memory_note_of(sh, 0);
	return 0;
}

void shell_values_init(struct shell *sh)
{
	/* gdb's default: scalars printed, aggregates as "..." */
	sh->frame_args_mode = 1;
	sh->print_elements = 200;
	sh->pc.frame_args = frame_args_cb;
	sh->pc.frame_args_ctx = sh;
}

int shell_set_print(struct shell *sh, const char *args)
{
	char word[64], mode[64];
	int i;

	int n, found = -1;

	args = skip_ws(args);
	n = sscanf(args, "%63s %63s", word, mode);
	if (n >= 1 && !strcmp(word, "pretty")) {
		/* gdb's boolean setting: on by default when given alone */
		static const char *const on[] = { "on", "1", "yes", "enable" };
		static const char *const off[] = { "off", "0", "no", "disable" };
		int val = -1;

		if (n < 2)
			val = 1;
		for (i = 0; val < 0 && i < 4; i++)
			if (!strcmp(mode, on[i]))
				val = 1;
			else if (!strcmp(mode, off[i]))
				val = 0;
		if (val < 0)
			return shell_error("\"on\" or \"off\" expected.");
		sh->print_pretty = val;
		if (sh->vals)
			ptd_values_set_pretty(sh->vals, val);
		return 0;
	}
	if (n >= 1 && !strcmp(word, "elements")) {
		/* a count, 0 or "unlimited" (gdb's uinteger setting; its
		 * expression is a number here) */
		const char *v = skip_ws(args + strlen("elements"));
		char *end;
		long long x;

		if (!*v)
			return shell_error("Argument required (integer to set it to, or "
					   "\"unlimited\").");
		if (!strncmp("unlimited", v, strlen(v))) {
			sh->print_elements = 0;
		} else {
			errno = 0;
			x = strtoll(v, &end, 0);
			end = (char *)skip_ws(end);
			if (end == v || *end)
				return shell_error("No symbol \"%.*s\" in current context.",
						   (int)strcspn(v, " \t+-*/"), v);
			if (errno || x < 0 || x > UINT_MAX)
				return shell_error("integer %s out of range", v);
			sh->print_elements = (unsigned)x;
		}
		if (sh->vals)
			ptd_values_set_print_elements(sh->vals, sh->print_elements);
		return 0;
	}
	if (n < 1 || strcmp(word, "frame-arguments"))
		return shell_error("ptdbg sets only \"print frame-arguments all|scalars|none|presence\", "
				   "\"print pretty on|off\" and \"print elements N|unlimited\".");
	if (n < 2)
		return shell_error("Requires an argument. Valid arguments are all, scalars, none, "
				   "presence.");
	/* a prefix names the mode, as in gdb's enum settings (the four
	 * modes start with different letters) */
	for (i = 0; frame_args_modes[i] && found < 0; i++)
		if (!strncmp(frame_args_modes[i], mode, strlen(mode)))
			found = i;
	if (found < 0)
		return shell_error("Undefined item: \"%s\".", mode);
	sh->frame_args_mode = found;
	return 0;
}

int shell_show_print(struct shell *sh, const char *args)
{
	args = skip_ws(args);
	if (!strncmp(args, "pretty", 6)) {
		printf("Pretty formatting of structures is %s.\n", sh->print_pretty ? "on" : "off");
		return 0;
	}
	if (!strncmp(args, "elements", 8)) {
		if (sh->print_elements)
			printf("Limit on string chars or array elements to print is %u.\n",
			       sh->print_elements);
		else
			printf("Limit on string chars or array elements to print is unlimited.\n");
		return 0;
	}
	if (strncmp(args, "frame-arguments", 15))
		return shell_error("ptdbg shows only \"print frame-arguments\", \"print pretty\" and "
				   "\"print elements\".");
	printf("Printing of non-scalar frame arguments is \"%s\".\n",
	       frame_args_modes[sh->frame_args_mode]);
	return 0;
}

/* The value of print setting @name ("pretty", "frame-arguments") as set
 * takes it, for `with` to put back. */
void shell_print_setting(struct shell *sh, const char *name, char *buf, size_t n)
{
	if (!strcmp(name, "pretty"))
		snprintf(buf, n, "%s", sh->print_pretty ? "on" : "off");
	else if (!strcmp(name, "elements"))
		snprintf(buf, n, "%u", sh->print_elements);
	else
		snprintf(buf, n, "%s", frame_args_modes[sh->frame_args_mode]);
}

/* ------------------------------------------------------------------ */
/* watch EXPR over the evaluator                                        */

int shell_watch_lvalue(struct shell *sh, const char *expr, uint64_t *addr, int *len, int *key)
{
	struct ptd_value *val = NULL, *ref = NULL;
	char *amp;
	uint64_t size;
	int rc;

	*key = 0;
	if (shell_values_bind(sh) < 0)
		return -1;
	rc = ptd_values_eval(sh->vals, expr, &val);
	if (rc < 0)
		return value_error(rc);
	amp = malloc(strlen(expr) + 4);
	if (!amp) {
		ptd_value_free(val);
		return shell_error("out of memory");
	}
	sprintf(amp, "&(%s)", expr);
	rc = ptd_values_eval(sh->vals, amp, &ref);
	free(amp);
	if (rc < 0) {
		const char *p;

		ptd_value_free(val);
		ptd_clear_error();
		/* gdb: a constant gets this message; other expressions that are
		 * not in memory become software watchpoints, which ptdbg has not */
		for (p = expr; *p; p++)
			if (isalpha((unsigned char)*p) || *p == '_' || *p == '$')
				break;
		if (!*p)
			return shell_error("Cannot watch constant value `%s'.", expr);
		return shell_error("cannot watch \"%s\": not an object in memory (ptdbg has only "
				   "hardware watchpoints)", expr);
	}
	rc = ptd_value_as_address(sh->vals, ref, addr);
	ptd_value_free(ref);
	if (rc < 0) {
		ptd_value_free(val);
		return value_error(rc);
	}
	size = ptd_value_size(val);
	if (size < 1 || size > 8) {
		ptd_value_free(val);
		return shell_error("cannot watch \"%s\": %llu bytes (at most 8, one debug register)",
				   expr, (unsigned long long)size);
	}
	*len = (int)size;
	rc = ptd_values_keep(sh->vals, val);
	ptd_value_free(val);
	if (rc > 0)
		*key = rc;
	ptd_clear_error();
	return 0;
}

int shell_watch_format(struct shell *sh, int key, const uint8_t *bytes, int len, char *out,
		       size_t n)
{
	char *s = NULL;

	if (!key || !sh->vals || shell_values_bind(sh) < 0)
		return -1;
	if (ptd_values_format_kept(sh->vals, key, bytes, (size_t)len, 0, 1, &s) < 0) {
		ptd_clear_error();
		return -1;
	}
	snprintf(out, n, "%s", s);
	free(s);
	/* in the past, values read from the present memory are marked as
	 * print marks them (that the registers are exact is left to print:
	 * a frame line shows no registers) */
	memory_note_of(sh, 0);
	return 0;
}

/*
 * A watched address inside the selected frame (between its rsp, less the
 * red zone, and its CFA) is a local's: gdb ends such a watchpoint when the
 * frame returns.  *@ret_pc gets the caller's resume address and *@cfa the
 * frame's CFA (the caller's rsp once it returns).  Returns 1 for a local,
 * 0 otherwise.
 */
int shell_watch_frame(struct shell *sh, uint64_t addr, uint64_t *ret_pc, uint64_t *cfa)
{
	struct user_regs_struct r, known;
	uint64_t *pcs, sp, ret = 0;
	int n, level = sh->frame_level, rc;

	if (!ptd_session_alive(sh->s))
		return 0;
	/* (the frames up to the selected one's caller, however deep) */
	pcs = malloc((size_t)(level + 2) * sizeof(*pcs));
	n = pcs ? ptd_session_backtrace(sh->s, pcs, level + 2) : -1;
	if (n > level + 1)
		ret = pcs[level + 1];
	free(pcs);
	if (n <= level + 1) {
		ptd_clear_error();
		return 0;
	}
	if (shell_values_bind(sh) < 0 || ptd_values_frame_regs(sh->vals, &r, &known) < 0 ||
	    !known.rsp) {
		ptd_clear_error();
		return 0;
	}
	sp = r.rsp;
	rc = ptd_session_values_bind(sh->s, sh->vals, level + 1, ret, file_read, sh);
	if (rc < 0 || ptd_values_frame_regs(sh->vals, &r, &known) < 0 || !known.rsp) {
		ptd_clear_error();
		return 0;
	}
	if (addr + 128 < sp || addr >= r.rsp)
		return 0;
	*ret_pc = ret;
	*cfa = r.rsp;
	return 1;
}
