/*
 * Output formatting for the ptdbg front ends, in gdb 13's layouts.
 *
 * Everything a gdb user reads after a command lives here: the frame line
 * ("fib (n=5) at fib.c:4" minus argument values, which need DWARF location
 * evaluation we do not have), the source line with its mid-statement
 * address prefix, stop messages, disassembly lines as gdb's
 * gdb_pretty_print_insn lays them out for `disassemble`, `x/i` and
 * `record instruction-history`, function-call-history lines, registers.
 * The layouts were checked against gdb 13.1's own output; the code is ours.
 * Nothing here moves the target: memory comes through ptd_print_ctx.read,
 * names and lines through ptd_symbols.
 */
#include "print.h"

#include <inttypes.h>
#include <signal.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ptdbg/ptdbg.h"

/*
 * gdb shows a source file by the name the compiler was given ("t.c" when
 * built with "cc t.c"), i.e. relative to the CU's DW_AT_comp_dir, while
 * ptd_line.file is the full path.  src/symbols is the place that knows the
 * compilation directory; this weak reference picks up
 * ptd_symbols_display_name() once it exists there and shows the full path
 * until then.
 */

const char *ptd_print_filename(const char *path)
{
	return path ? path : "??";
}

const char *ptd_print_file(const struct ptd_print_ctx *c, const char *path)
{
	const char *d;

	if (!path)
		return "??";
	if (c && c->sym &&
	    (d = ptd_symbols_display_name(c->sym, path)) && d[0])
		return d;
	return path;
}

void ptd_print_addr16(char *out, size_t n, uint64_t addr)
{
	snprintf(out, n, "0x%016" PRIx64, addr);
}

const char *ptd_print_symname(const char *name)
{
	static __thread char bufs[4][256];
	static __thread unsigned next;
	const char *at;
	char *b;

	/* gdb shows a default-versioned ELF symbol "memcpy@@GLIBC_2.14" by its
	 * plain name; "foo@plt" and non-default "foo@VER" stay as they are. */
	if (!name || !(at = strstr(name, "@@")))
		return name;
	b = bufs[next++ % 4];
	snprintf(b, sizeof(bufs[0]), "%.*s", (int)(at - name), name);
	return b;
}

/*
 * A frame line names a C++ function with debug information without its
 * parameter list, as gdb does (cp_remove_params: "catcher" for
 * "catcher(int)", "S::get() const" as "S::get"); names without debug
 * information keep them.  Returns @name or @buf.
 */
static const char *frame_funcname(const char *name, int full_symbol, char *buf, size_t n)
{
	size_t len;
	int depth = 0;

	name = ptd_print_symname(name);
	if (!full_symbol || !name || strchr(name, '@'))
		return name;
	len = strlen(name);
	if (len > 6 && !strcmp(name + len - 6, " const"))
		len -= 6;
	if (!len || name[len - 1] != ')')
		return name;
	for (size_t i = len; i-- > 0;) {
		if (name[i] == ')')
			depth++;
		else if (name[i] == '(' && --depth == 0) {
			/* ("operator()" of DW_AT_name, a lambda's, has no
			 * parameter list to remove) */
			if (!i || (i >= 8 && !strncmp(name + i - 8, "operator", 8)))
				return name;
			snprintf(buf, n, "%.*s", (int)i, name);
			return buf;
		}
	}
	return name;
}

/* gdb's print_address shows C++ symbols mangled (asm-demangle off): in
 * disassembly, x and info line; values (print, info registers' rip)
 * show them demangled. */
static const char *asm_name(const struct ptd_symbol *s)
{
	return ptd_print_symname(s->mangled ? s->mangled : s->name);
}

static int symbolize(struct ptd_print_ctx *c, uint64_t addr, char *out, size_t n, int demangle)
{
	struct ptd_symbol s, m;
	const char *name;

	if (!c || !c->sym || ptd_symbols_lookup(c->sym, addr, &s) < 0 || !s.name)
		return -1;
	if (!demangle && s.offset && ptd_symbols_minimal(c->sym, addr, &m, NULL, 0) == 0 &&
	    m.start == addr && m.name) {
		/* Where an ELF symbol starts that is not the function's
		 * entry (a .cold part), gdb's print_address takes that
		 * minimal symbol: "check.cold". */
		snprintf(out, n, "%s", asm_name(&m));
		return 0;
	}
	name = demangle ? ptd_print_symname(s.name) : asm_name(&s);
	/* (signed, as gdb's: a .cold part before the function's entry
	 * is at "check-676") */
	if (s.offset)
		snprintf(out, n, "%s%+" PRId64, name, (int64_t)s.offset);
	else
		snprintf(out, n, "%s", name);
	return 0;
}

int ptd_print_symbolize(void *ctx, uint64_t addr, char *out, size_t n)
{
	return symbolize(ctx, addr, out, n, 0);
}

static const char *lib_name(struct ptd_print_ctx *c, uint64_t pc, const char *module)
{
	const char *n = c->module_name ? c->module_name(c->module_name_ctx, pc, module) : NULL;

	return n ? n : module;
}

static int module_is_main(const struct ptd_print_ctx *c, const char *module)
{
	char *rp;
	int same;

	if (!module || !module[0])
		return 1;
	if (!c->main_module)
		return 0;
	if (!strcmp(module, c->main_module))
		return 1;
	rp = realpath(module, NULL);
	same = rp && !strcmp(rp, c->main_module);
	free(rp);
	return same;
}

void ptd_print_source_line(struct ptd_print_ctx *c, const char *file, int line, uint64_t pc)
{
	char text[4096];
	char a[24];

	if (pc) {
		ptd_print_addr16(a, sizeof(a), pc);
		fprintf(c->out, "%s\t", a);
	}
	if (c->sym && ptd_symbols_source_line(c->sym, file, line, text, sizeof(text)) >= 0) {
		fprintf(c->out, "%d\t%s\n", line, text);
		c->last_file_missing = 0;
	} else if (!c->gdb_errors) {
		fprintf(c->out, "%d\t%s: No such file or directory.\n", line, ptd_print_file(c, file));
	} else if (c->last_file_missing && file && !strcmp(file, c->last_file)) {
		fprintf(c->out, "%d\tin %s\n", line, ptd_print_file(c, file));
	} else {
		fflush(c->out);
		fprintf(stderr, "%d\t%s: No such file or directory.\n", line,
			ptd_print_file(c, file));
		fflush(stderr);
		c->last_file_missing = 1;
	}
	snprintf(c->last_file, sizeof(c->last_file), "%s", file ? file : "");
}

void ptd_print_frame(struct ptd_print_ctx *c, uint64_t pc, int level, int caller, int mid_line,
		     enum ptd_print_what what)
{
	uint64_t look = caller && pc ? pc - 1 : pc;
	int narrow = c->addr32 && pc <= 0xffffffffu;
	struct ptd_symbol s;
	struct ptd_line li;
	int have_sym = 0, have_line = 0, show_addr, inlined = 0;
	char a[24];

	int skipped = 0;

	if (c->sym) {
		struct ptd_inline in[16];
		int n;

		have_sym = ptd_symbols_lookup(c->sym, look, &s) >= 0 && s.name;
		have_line = ptd_symbols_line(c->sym, look, &li) >= 0 && li.file && li.line > 0;
		/* in inlined code gdb names the innermost inlined function, or
		 * the one around the inlined calls not entered yet, at the
		 * call site's line without an address */
		n = have_sym ? ptd_symbols_inlined(c->sym, look, in, 16) : 0;
		if (n < 0)
			n = 0;
		skipped = !caller && c->inline_skip > 0 && n > 0 ? c->inline_skip : 0;
		if (skipped > n)
			skipped = n;
		if (skipped < n) {
			s.name = in[skipped].name;
			inlined = 1;
		}
		if (skipped) {
			have_line = in[skipped - 1].call_file && in[skipped - 1].call_line > 0;
			li.file = in[skipped - 1].call_file;
			li.line = in[skipped - 1].call_line;
		}
	}
	if (skipped)
		show_addr = 0;
	else if (caller)
		show_addr = 1;
	else if (!have_line)
		show_addr = 1;
	else if (mid_line >= 0)
		show_addr = mid_line;
	else
		show_addr = pc != li.lo || !li.is_stmt; /* (gdb's frame_show_address) */

	if (what != PTD_PRINT_SRC_LINE || !have_line) {
		char args[1024] = "", fb[256];

		/* The arguments first: what reads them may have a note to
		 * give (on stderr), which must not split the line.  (An
		 * inlined function's are its inlined call's.) */
		c->args_callees = inlined ? skipped : -1;
		if (!have_sym || !c->frame_args ||
		    c->frame_args(c->frame_args_ctx, c->args_frame ? c->args_frame - 1 : level, pc,
				  args, sizeof(args)) < 0)
			args[0] = '\0';
		if (level >= 0)
			fprintf(c->out, "#%-2d ", level);
		if (show_addr) {
			if (narrow)
				snprintf(a, sizeof(a), "0x%08" PRIx64, pc);
			else
				ptd_print_addr16(a, sizeof(a), pc);
			fprintf(c->out, "%s in ", a);
		}
		fprintf(c->out, "%s (%s)",
			have_sym ? frame_funcname(s.name, have_line, fb, sizeof(fb)) : "??", args);
		if (have_line)
			fprintf(c->out, " at %s:%d", ptd_print_file(c, li.file), li.line);
		else if (have_sym && !module_is_main(c, s.module))
			fprintf(c->out, " from %s", lib_name(c, pc, s.module));
		fputc('\n', c->out);
	}
	if (what != PTD_PRINT_LOCATION && have_line)
		ptd_print_source_line(c, li.file, li.line,
				      what == PTD_PRINT_SRC_LINE && show_addr ? pc : 0);
}

int ptd_print_inline_frame(struct ptd_print_ctx *c, uint64_t pc, int caller, int k, int level)
{
	struct ptd_inline in[16];
	struct ptd_symbol s;
	uint64_t look = caller && pc ? pc - 1 : pc;
	char fb[256], args[1024] = "";
	const char *name;
	int n;

	if (!c->sym || k < 1)
		return -1;
	n = ptd_symbols_inlined(c->sym, look, in, 16);
	if (!caller && c->inline_skip > 0)
		k += c->inline_skip; /* (frames not entered yet are not shown) */
	if (k > n)
		return -1;
	name = k < n ? in[k].name
	       : ptd_symbols_lookup(c->sym, look, &s) >= 0 && s.name
		       ? frame_funcname(s.name, 1, fb, sizeof(fb))
		       : "??";
	/* each frame gets its arguments (an inlined one its call's) */
	c->args_callees = k < n ? k : -1;
	if (c->frame_args &&
	    c->frame_args(c->frame_args_ctx, c->args_frame ? c->args_frame - 1 : level, pc, args,
			  sizeof(args)) < 0)
		args[0] = '\0';
	fprintf(c->out, "#%-2d %s (%s)", level, name, args);
	if (in[k - 1].call_file && in[k - 1].call_line > 0)
		fprintf(c->out, " at %s:%d", ptd_print_file(c, in[k - 1].call_file),
			in[k - 1].call_line);
	fputc('\n', c->out);
	if (in[k - 1].call_file && in[k - 1].call_line > 0 && !c->no_source)
		ptd_print_source_line(c, in[k - 1].call_file, in[k - 1].call_line, 0);
	return 0;
}

const char *ptd_print_frame_name(struct ptd_print_ctx *c, uint64_t pc, int caller, int k,
				 char *buf, size_t n)
{
	struct ptd_inline in[16];
	struct ptd_symbol s;
	struct ptd_line li;
	uint64_t look = caller && pc ? pc - 1 : pc;
	int ni;

	if (!c->sym || k < 0)
		return NULL;
	ni = ptd_symbols_inlined(c->sym, look, in, 16);
	if (!caller && c->inline_skip > 0)
		k += c->inline_skip; /* (as ptd_print_inline_frame) */
	if (ni > 0 && k < ni)
		return in[k].name;
	if (ptd_symbols_lookup(c->sym, look, &s) < 0 || !s.name)
		return NULL;
	return frame_funcname(s.name, ptd_symbols_line(c->sym, look, &li) >= 0 && li.file, buf,
			      n);
}

int ptd_print_inline_callers(struct ptd_print_ctx *c, uint64_t pc, int caller, int level,
			     int max_level)
{
	struct ptd_inline in[16];
	struct ptd_symbol s;
	uint64_t look = caller && pc ? pc - 1 : pc;
	int n, i;

	int skip = !caller && c->inline_skip > 0 ? c->inline_skip : 0;

	if (!c->sym)
		return 0;
	n = ptd_symbols_inlined(c->sym, look, in, 16);
	if (skip >= n)
		return 0;
	/* (the frames of inlined calls not entered yet are not shown) */
	level -= skip;
	for (i = skip; i < n && (max_level < 0 || level + i < max_level); i++) {
		char fb[256];
		const char *name = i + 1 < n ? in[i + 1].name
				   : ptd_symbols_lookup(c->sym, look, &s) >= 0 && s.name
					   ? frame_funcname(s.name, 1, fb, sizeof(fb))
					   : "??";

		char args[1024] = "";

		/* each frame gets its arguments (an inlined one its call's) */
		c->args_callees = i + 1 < n ? i + 1 : -1;
		if (c->frame_args &&
		    c->frame_args(c->frame_args_ctx, c->args_frame ? c->args_frame - 1 : level + i,
				  pc, args, sizeof(args)) < 0)
			args[0] = '\0';
		fprintf(c->out, "#%-2d %s (%s)", level + i, name, args);
		if (in[i].call_file && in[i].call_line > 0)
			fprintf(c->out, " at %s:%d", ptd_print_file(c, in[i].call_file),
				in[i].call_line);
		fputc('\n', c->out);
	}
	return n > 0 ? i - skip : 0;
}

int ptd_print_insn(struct ptd_print_ctx *c, uint64_t number, uint64_t pc, uint64_t cur_pc,
		   unsigned flags)
{
	uint8_t buf[16];
	char text[256], raw[64];
	struct ptd_symbol s;
	long got = -1;
	int len;

	if (flags & PTD_DIS_NUMBER)
		fprintf(c->out, "%" PRIu64 "\t", number);
	if (flags & PTD_DIS_OMIT_PC)
		fputs("   ", c->out);
	else
		fputs(cur_pc && pc == cur_pc ? "=> " : "   ", c->out);
	if (flags & PTD_DIS_SHORT_ADDR)
		fprintf(c->out, "0x%" PRIx64, pc);
	else if (flags & (PTD_DIS_MODE32 | PTD_DIS_MODE16))
		fprintf(c->out, "0x%08" PRIx64, pc);
	else
		fprintf(c->out, "0x%016" PRIx64, pc);

	if (c->sym && ptd_symbols_lookup(c->sym, pc, &s) >= 0 && s.name) {
		char nm[512];

		if (flags & PTD_DIS_SHORT_ADDR) {
			/* x/i labels like print_address: no "+0" */
			if (symbolize(c, pc, nm, sizeof(nm), 0) == 0)
				fprintf(c->out, " <%s>:\t", nm);
			else
				fputs(":\t", c->out);
		} else if (flags & PTD_DIS_OMIT_FNAME) {
			fprintf(c->out, " <%+" PRId64 ">:\t", (int64_t)s.offset);
		} else {
			fprintf(c->out, " <%s%+" PRId64 ">:\t", asm_name(&s), (int64_t)s.offset);
		}
	} else {
		fputs(":\t", c->out);
	}

	if (c->read)
		got = c->read(c->read_ctx, pc, buf, sizeof(buf));
	if (got <= 0) {
		fprintf(c->out, "Cannot access memory at address 0x%" PRIx64 "\n", pc);
		return -1;
	}
	len = ptd_disasm_format_mode(buf, (size_t)got, pc,
				     flags & PTD_DIS_MODE32   ? PTD_MODE_32
				     : flags & PTD_DIS_MODE16 ? PTD_MODE_16
							      : PTD_MODE_64,
				     text, sizeof(text), ptd_print_symbolize, c);
	if (flags & PTD_DIS_RAW) {
		int n = len > 0 ? len : 1;

		ptd_disasm_hexbytes(buf, (size_t)n, raw, sizeof(raw));
		/* gdb pads the bytes column for 7 bytes per line on x86. */
		fprintf(c->out, "%-19s\t", raw);
	}
	fprintf(c->out, "%s\n", len > 0 ? text : "(bad)");
	return len > 0 ? len : -1;
}

const char *ptd_print_gap_reason(int reason)
{
	switch (reason) {
	case PTD_GAP_OVERFLOW:
		return "overflow";
	case PTD_GAP_DECODE_ERROR:
		return "decode error";
	case PTD_GAP_DISABLED:
		return "disabled";
	case PTD_GAP_LOST:
		return "trace data lost";
	case PTD_GAP_NO_MEMORY:
		return "no memory image";
	case PTD_GAP_DROPPED:
		return "older history dropped";
	default:
		return "gap";
	}
}

/* The bracketed text of a gap, in gdb's btrace wording: "[decode error
 * (CODE): libipt's message]", "[overflow]", "[disabled]". */
static void gap_text(struct ptd_print_ctx *c, int reason, const char *detail, uint64_t arg)
{
	if ((reason == PTD_GAP_DECODE_ERROR || reason == PTD_GAP_NO_MEMORY) && detail && detail[0])
		fprintf(c->out, "[decode error (%" PRId64 "): %s]\n", (int64_t)arg, detail);
	else if (reason == PTD_GAP_DECODE_ERROR)
		fprintf(c->out, "[decode error]\n");
	else if (reason == PTD_GAP_DROPPED)
		fprintf(c->out, "[%" PRIu64 " older instructions dropped: %s]\n", arg,
			detail && detail[0] ? detail : "the history is bounded");
	else if (reason == PTD_GAP_OVERFLOW || reason == PTD_GAP_DISABLED)
		fprintf(c->out, "[%s]\n", ptd_print_gap_reason(reason));
	else if (detail && detail[0])
		fprintf(c->out, "[%s: %s]\n", ptd_print_gap_reason(reason), detail);
	else
		fprintf(c->out, "[%s]\n", ptd_print_gap_reason(reason));
}

void ptd_print_gap(struct ptd_print_ctx *c, uint64_t number, int reason, const char *detail,
		   uint64_t arg)
{
	fprintf(c->out, "%" PRIu64 "\t", number);
	gap_text(c, reason, detail, arg);
}

void ptd_print_gap_at(struct ptd_print_ctx *c, const struct ptd_history *h,
		      const struct ptd_hcursor *cur)
{
	struct ptd_item it;

	if (h && ptd_history_item(h, cur->item_index, &it) && it.kind == PTD_ITEM_GAP)
		ptd_print_gap(c, cur->number, it.reason, ptd_history_detail(h, it.detail), it.arg);
	else
		ptd_print_gap(c, cur->number, cur->gap_reason, NULL, 0);
}

/* Lowest and highest line of the segment's instructions that lie in the
 * file of its first instruction with line info, like gdb's
 * btrace_compute_src_line_range.  Returns the file or NULL. */
static const char *seg_lines(struct ptd_print_ctx *c, const struct ptd_history *h,
			     const struct ptd_callseg *seg, int *lo, int *hi)
{
	static char file[4096];
	struct ptd_hcursor cur;
	struct ptd_line li;
	uint64_t n;
	int have = 0;

	*lo = 0;
	*hi = 0;
	if (!c->sym || !h || ptd_hcursor_goto(&cur, h, seg->first) < 0)
		return NULL;
	for (n = seg->first; n <= seg->last; n++) {
		if (!cur.is_gap && ptd_symbols_line(c->sym, cur.ip, &li) >= 0 && li.file &&
		    li.line > 0) {
			if (!have) {
				snprintf(file, sizeof(file), "%s", li.file);
				*lo = *hi = li.line;
				have = 1;
			} else if (!strcmp(file, li.file)) {
				if (li.line < *lo)
					*lo = li.line;
				if (li.line > *hi)
					*hi = li.line;
			}
		}
		if (n == seg->last || ptd_hcursor_next(&cur) < 0)
			break;
	}
	return have ? file : NULL;
}

void ptd_print_callseg(struct ptd_print_ctx *c, const struct ptd_history *h,
		       const struct ptd_callseg *seg, int min_level, unsigned flags)
{
	struct ptd_symbol s;
	const char *file;
	int lo, hi, i;

	fprintf(c->out, "%" PRIu64 "\t", seg->index);
	if (seg->is_gap) {
		struct ptd_hcursor cur;

		struct ptd_item it;

		if (h && ptd_hcursor_goto(&cur, h, seg->first) >= 0 && cur.is_gap &&
		    ptd_history_item(h, cur.item_index, &it) && it.kind == PTD_ITEM_GAP)
			gap_text(c, it.reason, ptd_history_detail(h, it.detail), it.arg);
		else
			fprintf(c->out, "[gap]\n");
		return;
	}
	if (flags & PTD_CALL_INDENT)
		for (i = 0; i < seg->level - min_level; i++)
			fputs("  ", c->out);
	if (c->sym && ptd_symbols_lookup(c->sym, seg->ip, &s) >= 0 && s.name)
		fputs(ptd_print_symname(s.name), c->out);
	else
		fputs("??", c->out);
	if (flags & PTD_CALL_INSN_RANGE)
		fprintf(c->out, "\tinst %" PRIu64 ",%" PRIu64, seg->first, seg->last);
	if (flags & PTD_CALL_SRC_LINE) {
		/* Nothing at all without line information, not a bare "at ". */
		file = seg_lines(c, h, seg, &lo, &hi);
		if (file) {
			fprintf(c->out, "\tat %s:%d", ptd_print_file(c, file), lo);
			if (hi != lo)
				fprintf(c->out, ",%d", hi);
		}
	}
	fputc('\n', c->out);
}

struct signame {
	int signo;
	const char *name, *desc;
};

/* gdb's names and descriptions (gdb/signals.def) for Linux signals. */
static const struct signame signames[] = {
	{ SIGHUP, "SIGHUP", "Hangup" },
	{ SIGINT, "SIGINT", "Interrupt" },
	{ SIGQUIT, "SIGQUIT", "Quit" },
	{ SIGILL, "SIGILL", "Illegal instruction" },
	{ SIGTRAP, "SIGTRAP", "Trace/breakpoint trap" },
	{ SIGABRT, "SIGABRT", "Aborted" },
	{ SIGBUS, "SIGBUS", "Bus error" },
	{ SIGFPE, "SIGFPE", "Arithmetic exception" },
	{ SIGKILL, "SIGKILL", "Killed" },
	{ SIGUSR1, "SIGUSR1", "User defined signal 1" },
	{ SIGSEGV, "SIGSEGV", "Segmentation fault" },
	{ SIGUSR2, "SIGUSR2", "User defined signal 2" },
	{ SIGPIPE, "SIGPIPE", "Broken pipe" },
	{ SIGALRM, "SIGALRM", "Alarm clock" },
	{ SIGTERM, "SIGTERM", "Terminated" },
	{ SIGSTKFLT, "SIGSTKFLT", "Stack fault" },
	{ SIGCHLD, "SIGCHLD", "Child status changed" },
	{ SIGCONT, "SIGCONT", "Continued" },
	{ SIGSTOP, "SIGSTOP", "Stopped (signal)" },
	{ SIGTSTP, "SIGTSTP", "Stopped (user)" },
	{ SIGTTIN, "SIGTTIN", "Stopped (tty input)" },
	{ SIGTTOU, "SIGTTOU", "Stopped (tty output)" },
	{ SIGURG, "SIGURG", "Urgent I/O condition" },
	{ SIGXCPU, "SIGXCPU", "CPU time limit exceeded" },
	{ SIGXFSZ, "SIGXFSZ", "File size limit exceeded" },
	{ SIGVTALRM, "SIGVTALRM", "Virtual timer expired" },
	{ SIGPROF, "SIGPROF", "Profiling timer expired" },
	{ SIGWINCH, "SIGWINCH", "Window size changed" },
	{ SIGIO, "SIGIO", "I/O possible" },
	{ SIGPWR, "SIGPWR", "Power fail/restart" },
	{ SIGSYS, "SIGSYS", "Bad system call" },
};

const char *ptd_print_signame(int signo)
{
	static __thread char buf[32];
	size_t i;

	for (i = 0; i < sizeof(signames) / sizeof(signames[0]); i++)
		if (signames[i].signo == signo)
			return signames[i].name;
	if (signo >= SIGRTMIN && signo <= SIGRTMAX) {
		snprintf(buf, sizeof(buf), "SIG%d", signo);
		return buf;
	}
	return "?";
}

const char *ptd_print_sigdesc(int signo)
{
	static __thread char buf[48];
	size_t i;

	for (i = 0; i < sizeof(signames) / sizeof(signames[0]); i++)
		if (signames[i].signo == signo)
			return signames[i].desc;
	snprintf(buf, sizeof(buf), "Real-time event %d", signo);
	return buf;
}

void ptd_print_stop(struct ptd_print_ctx *c, const struct ptd_event *ev, int temporary, pid_t pid,
		    const char *thread, const char *gap)
{
	enum ptd_print_what what = PTD_PRINT_SRC_AND_LOC;
	int mid = ev->at_line_start ? 0 : 1;

	if (ev->gaps_crossed) {
		/* gdb steps over gaps without a word; ptdbg does the same
		 * but says so: the instructions on either side are not
		 * contiguous. */
		if (ev->gaps_crossed == 1)
			fprintf(c->out, "(stepped over a gap in the trace: %s",
				ptd_print_gap_reason(ev->first_gap_reason));
		else
			fprintf(c->out, "(stepped over %" PRIu64 " gaps in the trace, the first: %s",
				ev->gaps_crossed, ptd_print_gap_reason(ev->first_gap_reason));
		if (ev->first_gap)
			fprintf(c->out, ", instruction %" PRIu64, ev->first_gap);
		fprintf(c->out, ")\n");
	}
	switch (ev->kind) {
	case PTD_EVENT_NONE:
		return;
	case PTD_EVENT_EXITED:
		if (ev->exit_code)
			fprintf(c->out, "[Inferior 1 (process %d) exited with code 0%o]\n", (int)pid,
				ev->exit_code);
		else
			fprintf(c->out, "[Inferior 1 (process %d) exited normally]\n", (int)pid);
		return;
	case PTD_EVENT_KILLED:
		fprintf(c->out, "\nProgram terminated with signal %s, %s.\n"
			"The program no longer exists.\n",
			ptd_print_signame(ev->signo), ptd_print_sigdesc(ev->signo));
		return;
	case PTD_EVENT_EXEC: {
		char link[64], exe[4096];
		ssize_t n;

		snprintf(link, sizeof(link), "/proc/%d/exe", (int)pid);
		n = readlink(link, exe, sizeof(exe) - 1);
		exe[n > 0 ? n : 0] = '\0';
		/* (the session's notice said "process N is executing new
		 * program: PATH" as the exec happened) */
		if (ev->bp_catch == PTD_CATCH_EXEC)
			fprintf(c->out, "\n%s%s%s %d (exec'd %s), ", thread ? thread : "",
				thread ? " hit " : "",
				temporary ? "Temporary catchpoint" : "Catchpoint", ev->bp_id, exe);
		break;
	}
	case PTD_EVENT_BREAKPOINT:
		if (ev->bp_catch) {
			static const char *const what[] = { "", "exception thrown",
							    "exception caught",
							    "exception rethrown" };
			char forked[64] = "";

			if (ev->bp_catch == PTD_CATCH_SIGNAL)
				snprintf(forked, sizeof(forked), "signal %s",
					 ptd_print_signame(ev->signo));
			else if (ev->bp_catch == PTD_CATCH_FORK || ev->bp_catch == PTD_CATCH_VFORK)
				snprintf(forked, sizeof(forked), "%s process %d",
					 ev->bp_catch == PTD_CATCH_FORK ? "forked" : "vforked",
					 (int)ev->forked);
			/* (gdb 13 says no "Temporary" for a signal one) */
			fprintf(c->out, "\n%s%s%s %d (%s), ", thread ? thread : "",
				thread ? " hit " : "",
				temporary && ev->bp_catch != PTD_CATCH_SIGNAL ? "Temporary catchpoint"
									      : "Catchpoint",
				ev->bp_id, forked[0] ? forked
				: ev->bp_catch > 0 && ev->bp_catch <= 3 ? what[ev->bp_catch] : "");
			break;
		}
		fprintf(c->out, "\n%s%s%s %d", thread ? thread : "", thread ? " hit " : "",
			temporary ? "Temporary breakpoint" : "Breakpoint",
			ev->bp_id);
		/* gdb 13 names the location of a breakpoint with several */
		if (ev->bp_loc > 0)
			fprintf(c->out, ".%d", ev->bp_loc);
		fputs(", ", c->out);
		break;
	case PTD_EVENT_SIGNAL:
		fprintf(c->out, "\n%s received signal %s, %s.\n", thread ? thread : "Program",
			ptd_print_signame(ev->signo), ptd_print_sigdesc(ev->signo));
		break;
	case PTD_EVENT_INTERRUPTED:
		fprintf(c->out, "\n%s received signal SIGINT, Interrupt.\n",
			thread ? thread : "Program");
		break;
	case PTD_EVENT_HWBREAK:
		/* The shell's watch commands print their own "\nHardware
		 * watchpoint N: expr\n\nOld value = ...\nNew value = ...\n"
		 * before this; gdb's frame line follows at once. */
		break;
	case PTD_EVENT_BEFORE_EXIT:
		/* gdb names the thread once the program has had more than one
		 * (print_signal_received_reason of GDB_SIGNAL_0) */
		fprintf(c->out, "\n%s stopped.\n", thread ? thread : "Program");
		break;
	case PTD_EVENT_NO_HISTORY:
		fprintf(c->out, "\nNo more reverse-execution history.\n");
		break;
	case PTD_EVENT_GAP:
		/* gdb's wording first, so scripts that look for it find it */
		fprintf(c->out, "\nNo more reverse-execution history: a gap in the trace (%s).\n",
			gap ? gap : "gap");
		break;
	case PTD_EVENT_STEPPED:
		if (!ev->new_frame)
			what = PTD_PRINT_SRC_LINE;
		break;
	}
	ptd_print_frame(c, ev->pc, -1, 0, mid, what);
}

static const struct {
	const char *name;
	size_t off;
} regtab[] = {
#define R(n) { #n, offsetof(struct user_regs_struct, n) }
	R(rax), R(rbx), R(rcx), R(rdx), R(rsi), R(rdi), R(rbp), R(rsp),
	R(r8), R(r9), R(r10), R(r11), R(r12), R(r13), R(r14), R(r15),
	R(rip), R(eflags), R(cs), R(ss), R(ds), R(es), R(fs), R(gs),
	R(fs_base), R(gs_base), R(orig_rax),
#undef R
};

const char *const ptd_print_reg_names[] = {
	"rax", "rbx", "rcx", "rdx", "rsi", "rdi", "rbp", "rsp", "r8", "r9", "r10", "r11",
	"r12", "r13", "r14", "r15", "rip", "eflags", "cs", "ss", "ds", "es", "fs", "gs",
	"fs_base", "gs_base", NULL,
};

int ptd_print_reg_lookup(const char *name, const struct user_regs_struct *r, uint64_t *val,
			 const char **canonical)
{
	size_t i;

	if (!strcmp(name, "pc"))
		name = "rip";
	else if (!strcmp(name, "sp"))
		name = "rsp";
	else if (!strcmp(name, "fp"))
		name = "rbp";
	else if (!strcmp(name, "ps"))
		name = "eflags";
	for (i = 0; i < sizeof(regtab) / sizeof(regtab[0]); i++) {
		if (strcmp(regtab[i].name, name))
			continue;
		if (val && r)
			*val = *(const unsigned long long *)((const char *)r + regtab[i].off);
		if (canonical)
			*canonical = regtab[i].name;
		return 0;
	}
	return -1;
}

void ptd_print_eflags(char *out, size_t n, uint64_t v)
{
	static const struct {
		int bit;
		const char *name;
	} fl[] = {
		{ 0, "CF" }, { 2, "PF" }, { 4, "AF" }, { 6, "ZF" }, { 7, "SF" }, { 8, "TF" },
		{ 9, "IF" }, { 10, "DF" }, { 11, "OF" }, { 14, "NT" }, { 16, "RF" }, { 17, "VM" },
		{ 18, "AC" }, { 19, "VIF" }, { 20, "VIP" }, { 21, "ID" },
	};
	size_t i, used;

	used = (size_t)snprintf(out, n, "[ ");
	for (i = 0; i < sizeof(fl) / sizeof(fl[0]) && used < n; i++)
		if (v & (1ull << fl[i].bit))
			used += (size_t)snprintf(out + used, n - used, "%s ", fl[i].name);
	if (used < n)
		snprintf(out + used, n - used, "]");
}

void ptd_print_reg_line(struct ptd_print_ctx *c, const char *name, uint64_t val, int avail)
{
	char raw[32], nat[300], sym[256];

	fprintf(c->out, "%-15s", name);
	if (strlen(name) >= 15)
		fputc(' ', c->out);
	if (!avail) {
		fputs("<unavailable>\n", c->out);
		return;
	}
	snprintf(raw, sizeof(raw), "0x%" PRIx64, val);
	if (!strcmp(name, "rip")) {
		if (symbolize(c, val, sym, sizeof(sym), 1) >= 0)
			snprintf(nat, sizeof(nat), "0x%" PRIx64 " <%s>", val, sym);
		else
			snprintf(nat, sizeof(nat), "0x%" PRIx64, val);
	} else if (!strcmp(name, "rsp") || !strcmp(name, "rbp")) {
		snprintf(nat, sizeof(nat), "0x%" PRIx64, val);
	} else if (!strcmp(name, "eflags")) {
		ptd_print_eflags(nat, sizeof(nat), val);
	} else {
		snprintf(nat, sizeof(nat), "%" PRId64, (int64_t)val);
	}
	/* gdb pads the raw column to 2 + 16 + 2 characters */
	fprintf(c->out, "%-20s", raw);
	if (strlen(raw) >= 20)
		fputc(' ', c->out);
	fprintf(c->out, "%s\n", nat);
}

/* ------------------------------------------------------------------ */
/* All of the selected thread's frames, however deep its stack is: the
 * session's backtrace calls take a buffer of a given size, and a
 * recursion thousands of calls deep must show every frame (gdb has no
 * limit), so these grow the buffer until the frames end before its end. */

/* (a stack of more frames than this is taken as a loop in a corrupt stack) */
#define FRAMES_MAX (1 << 22)

int shell_backtrace_all(struct ptd_session *s, uint64_t **pcs)
{
	uint64_t *buf = NULL;
	int cap, n = -ptde_nomem;

	*pcs = NULL;
	for (cap = 256; cap <= FRAMES_MAX; cap *= 2) {
		uint64_t *nb = realloc(buf, (size_t)cap * sizeof(*buf));

		if (!nb)
			break;
		buf = nb;
		n = ptd_session_backtrace(s, buf, cap);
		if (n < cap)
			break;
	}
	if (n < 0) {
		free(buf);
		return n;
	}
	*pcs = buf;
	return n;
}

int shell_frames_all(struct ptd_session *s, struct ptd_frame_info **fr)
{
	struct ptd_frame_info *buf = NULL;
	int cap, n = -ptde_nomem;

	*fr = NULL;
	for (cap = 256; cap <= FRAMES_MAX; cap *= 2) {
		struct ptd_frame_info *nb = realloc(buf, (size_t)cap * sizeof(*buf));

		if (!nb)
			break;
		buf = nb;
		n = ptd_session_frames(s, buf, cap);
		if (n < cap)
			break;
	}
	if (n < 0) {
		free(buf);
		return n;
	}
	*fr = buf;
	return n;
}

