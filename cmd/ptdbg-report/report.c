/*
 * ptdbg-report: batch "how did we get here" reports.
 *
 * Runs a program (or attaches to one) under ptdbg, records from a start
 * function (main by default) until the program crashes, exits, or hits
 * --until, and writes what led there: the stop, a backtrace, the last
 * function calls with their source lines, the last source lines and the
 * last instructions — as text (gdb's layouts) or JSON.  All stepping and
 * history work goes through src/session; this file only chooses and prints.
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../ptdbg/print.h"
#include "ptdbg/ptdbg.h"

struct opts {
	const char *method;
	const char *trace_format;
	const char *from;
	const char *until;
	const char *format;
	const char *output;
	int ncalls;
	int ninsns;
	int nlines;
	pid_t pid;
	int quiet;
	int no_pin;
	const char *load; /* --load: a trace bundle or perf.data, no program */
};

static struct ptd_session *the_session;

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: ptdbg-report [OPTIONS] [--] PROGRAM [ARGS...]\n"
		"       ptdbg-report [OPTIONS] -p PID\n"
		"       ptdbg-report [OPTIONS] --load=PATH\n"
		"Record PROGRAM from a start function until it crashes or exits, and report\n"
		"how execution got there: the stop, a backtrace, the last function calls,\n"
		"source lines and instructions.\n"
		"\n"
		"  -p, --pid=PID           attach to a running process (recording starts at once)\n"
		"      --load=PATH         report on a recorded trace instead: a bundle directory\n"
		"                          (record save) or a perf.data (perf record -e\n"
		"                          intel_pt//u --per-thread), up to its end\n"
		"      --method=METHOD     recorder: auto, pt, bts, soft, step (default auto:\n"
		"                          the first that works, soft on machines without PT/BTS;\n"
		"                          ptdbg doctor says why)\n"
		"      --no-pin-cpu        do not run ptdbg and the program on one CPU\n"
		"      --trace-format=FMT  blocks or pt (record the step outcomes as Intel PT)\n"
		"      --from=FUNC         start recording at FUNC's first hit (default main)\n"
		"      --until=LOCATION    stop at this breakpoint location instead of the end\n"
		"      --calls=N           function calls to show (default 20)\n"
		"      --lines=N           source lines to show (default 10)\n"
		"      --insns=N           instructions to show (default 20)\n"
		"      --format=FMT        text (default) or json\n"
		"  -o, --output=FILE       write the report to FILE\n"
		"  -q, --quiet             no progress messages on stderr\n"
		"  -h, --help              show this help\n"
		"      --version           show the version\n"
		"\n"
		"Exit status: 0 when a report was written, 1 on errors, 2 on bad usage.\n");
}

static void on_fatal(int sig)
{
	/* Leave an attached process exactly as it was (the library detaches
	 * it at its next safe point), then die as asked. */
	ptd_target_quit_signal(sig);
}

static void on_int(int sig)
{
	(void)sig;
	ptd_session_interrupt(the_session);
}

static long read_mem(void *ctx, uint64_t addr, void *buf, size_t n)
{
	return ptd_session_read(ctx, addr, buf, n);
}

/* ---- JSON helpers ------------------------------------------------------------------ */

static void json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; s && *s; s++) {
		unsigned char ch = (unsigned char)*s;
		if (ch == '"' || ch == '\\')
			fprintf(f, "\\%c", ch);
		else if (ch == '\n')
			fputs("\\n", f);
		else if (ch == '\t')
			fputs("\\t", f);
		else if (ch < 0x20)
			fprintf(f, "\\u%04x", ch);
		else
			fputc(ch, f);
	}
	fputc('"', f);
}

struct loc {
	const char *func;
	uint64_t off;
	const char *file;
	int line;
};

static void locate(struct ptd_symbols *sym, uint64_t pc, struct loc *l)
{
	struct ptd_symbol fs;
	struct ptd_line li;

	memset(l, 0, sizeof(*l));
	if (sym && ptd_symbols_lookup(sym, pc, &fs) == 0) {
		l->func = fs.name;
		l->off = fs.offset;
	}
	if (sym && ptd_symbols_line(sym, pc, &li) == 0) {
		l->file = li.file;
		l->line = li.line;
	}
}

/* @caller: a return address (outer frames), whose function and line are
 * those of the call before it, as in the text backtrace and gdb's. */
static void json_loc_frame(FILE *f, struct ptd_symbols *sym, uint64_t pc, int caller)
{
	uint64_t look = caller && pc ? pc - 1 : pc;
	struct loc l;

	locate(sym, look, &l);
	if (l.func)
		l.off += pc - look;
	fprintf(f, "\"pc\": \"0x%llx\", \"function\": ", (unsigned long long)pc);
	if (l.func)
		json_str(f, l.func);
	else
		fputs("null", f);
	fprintf(f, ", \"offset\": %llu, \"file\": ", (unsigned long long)l.off);
	if (l.file)
		json_str(f, ptd_symbols_display_name(sym, l.file));
	else
		fputs("null", f);
	fprintf(f, ", \"line\": %d", l.line);
}

static void json_loc(FILE *f, struct ptd_symbols *sym, uint64_t pc)
{
	json_loc_frame(f, sym, pc, 0);
}

/* ---- report sections ----------------------------------------------------------------- */

static const char *stop_text(const struct ptd_event *ev, char *buf, size_t n)
{
	switch (ev->kind) {
	case PTD_EVENT_SIGNAL:
		snprintf(buf, n, "Program received signal %s, %s.", ptd_print_signame(ev->signo),
			 ptd_print_sigdesc(ev->signo));
		break;
	case PTD_EVENT_BREAKPOINT:
		snprintf(buf, n, "Stopped at the --until location (breakpoint %d).", ev->bp_id);
		break;
	case PTD_EVENT_EXITED:
		snprintf(buf, n, "The program is about to exit with code %d.", ev->exit_code);
		break;
	case PTD_EVENT_INTERRUPTED:
		snprintf(buf, n, "Interrupted.");
		break;
	case PTD_EVENT_NO_HISTORY: /* --load */
		snprintf(buf, n, "The end of the recorded trace.");
		break;
	default:
		snprintf(buf, n, "Stopped.");
		break;
	}
	return buf;
}

struct range {
	uint64_t first, last; /* instruction numbers, inclusive; first > last: none */
};

static struct range tail_range(uint64_t count, int n)
{
	struct range r;

	r.last = count;
	r.first = count > (uint64_t)n ? count - (uint64_t)n + 1 : 1;
	if (count == 0 || n <= 0)
		r.first = r.last + 1;
	return r;
}

/* ptd_print_insn flags for code in execution mode @mode (32-bit and 16-bit
 * code is listed as gdb lists i386 code). */
static unsigned mode_flags(unsigned mode)
{
	return mode == PTD_MODE_32 ? PTD_DIS_MODE32 : mode == PTD_MODE_16 ? PTD_DIS_MODE16 : 0;
}

/* The last @n distinct source lines executed, oldest first, up to the
 * current position. */
static int last_lines(struct ptd_session *s, const struct ptd_history *h, uint64_t count, int n,
		      uint64_t *pcs, int max)
{
	struct ptd_symbols *sym = ptd_session_symbols(s);
	struct ptd_hcursor c;
	const char *last_file = NULL;
	int last_line = -1, k = 0;

	if (!sym || count == 0 || ptd_hcursor_goto(&c, h, count) < 0)
		return 0;
	/* Walk back, keeping the first instruction of each new line run. */
	uint64_t steps = 0;
	do {
		struct ptd_line li;
		if (c.is_gap)
			break;
		char text[8];
		/* Only lines whose source we can show: libc's assembly
		 * files are not on this machine and would only be noise. */
		if (ptd_symbols_line(sym, c.ip, &li) == 0 &&
		    ptd_symbols_source_line(sym, li.file, li.line, text, sizeof(text)) == 0) {
			if (li.line != last_line || !last_file || strcmp(li.file, last_file)) {
				if (k == n || k == max)
					break;
				pcs[k++] = c.ip;
				last_line = li.line;
				last_file = li.file;
			} else {
				pcs[k - 1] = c.ip;
			}
		}
	} while (++steps < 1000000 && ptd_hcursor_prev(&c) == 0);
	/* oldest first */
	for (int i = 0; i < k / 2; i++) {
		uint64_t t = pcs[i];
		pcs[i] = pcs[k - 1 - i];
		pcs[k - 1 - i] = t;
	}
	return k;
}

static void text_report(FILE *f, struct ptd_session *s, const struct opts *o,
			const struct ptd_event *ev, double secs)
{
	struct ptd_print_ctx pc = { f, ptd_session_symbols(s), read_mem, s, NULL };
	const struct ptd_history *h = ptd_session_history(s);
	const struct ptd_calls *calls = ptd_session_calls(s);
	struct ptd_record_info ri;
	uint64_t pcs[64], count = 0, pos = 0, cur_pc = 0;
	char buf[256];
	int n;

	ptd_session_record_info(s, &ri);
	ptd_session_position(s, &pos, &count);
	ptd_session_pc(s, &cur_pc);
	fprintf(f, "%s\n", stop_text(ev, buf, sizeof(buf)));
	ptd_print_frame(&pc, cur_pc, -1, 0, -1, PTD_PRINT_SRC_AND_LOC);

	fprintf(f, "\nBacktrace:\n");
	n = ptd_session_backtrace(s, pcs, 64);
	for (int i = 0; i < n; i++)
		ptd_print_frame(&pc, pcs[i], i, i > 0, -1, PTD_PRINT_LOCATION);

	if (calls && ptd_calls_count(calls) > 0) {
		uint64_t nc = ptd_calls_count(calls);
		uint64_t first = nc > (uint64_t)o->ncalls ? nc - (uint64_t)o->ncalls + 1 : 1;
		int minl = 0;
		/* indent relative to the shown window, as a reader expects */
		for (uint64_t i = first; i <= nc; i++) {
			const struct ptd_callseg *seg = ptd_calls_get(calls, i);
			if (seg && (i == first || seg->level < minl))
				minl = seg->level;
		}
		fprintf(f, "\nHow execution got here (the last %llu of %llu function segments):\n",
			(unsigned long long)(nc - first + 1), (unsigned long long)nc);
		for (uint64_t i = first; i <= nc && o->ncalls > 0; i++) {
			const struct ptd_callseg *seg = ptd_calls_get(calls, i);
			if (seg)
				ptd_print_callseg(&pc, h, seg, minl,
						  PTD_CALL_INDENT | PTD_CALL_SRC_LINE | PTD_CALL_INSN_RANGE);
		}
	}

	n = last_lines(s, h, count, o->nlines, pcs, 64);
	if (n > 0) {
		fprintf(f, "\nThe last %d source lines executed:\n", n);
		for (int i = 0; i < n; i++) {
			struct loc l;
			locate(pc.sym, pcs[i], &l);
			if (l.file && l.func)
				fprintf(f, "%s:%d (%s)\t", ptd_print_file(&pc, l.file), l.line, l.func);
			ptd_print_source_line(&pc, l.file, l.line, 0);
		}
	}

	struct range r = tail_range(count, o->ninsns);
	if (r.first <= r.last) {
		struct ptd_hcursor c;
		fprintf(f, "\nThe last %llu instructions (of %llu recorded):\n",
			(unsigned long long)(r.last - r.first + 1), (unsigned long long)count);
		if (ptd_hcursor_goto(&c, h, r.first) == 0) {
			do {
				if (c.is_gap)
					ptd_print_gap_at(&pc, h, &c);
				else
					ptd_print_insn(&pc, c.number, c.ip, c.number == count ? cur_pc : 0,
						       PTD_DIS_NUMBER | mode_flags(c.mode));
			} while (c.number < r.last && ptd_hcursor_next(&c) == 0);
		}
	}
	/* a simulated PMU (PTDBG_SIMULATE_PMU) is always said */
	fprintf(f, "\nRecorded %llu instructions in %llu function segments (method %s, %sformat %s, "
		   "%.2f bytes/instruction, %.2f s, %llu ptrace stops).\n",
		(unsigned long long)ri.ninsn, (unsigned long long)ri.ncalls,
		ptd_method_name(ri.method), ri.simulated ? "simulated PMU, " : "",
		ri.format ? ri.format : "blocks",
		ri.ninsn ? (double)ri.bytes / (double)ri.ninsn : 0.0, secs,
		(unsigned long long)ri.stops);
}

static void json_report(FILE *f, struct ptd_session *s, const struct opts *o,
			const struct ptd_event *ev, double secs, const char *program)
{
	struct ptd_symbols *sym = ptd_session_symbols(s);
	const struct ptd_history *h = ptd_session_history(s);
	const struct ptd_calls *calls = ptd_session_calls(s);
	struct ptd_record_info ri;
	uint64_t pcs[64], count = 0, pos = 0, cur_pc = 0;
	char buf[256];
	int n;

	ptd_session_record_info(s, &ri);
	ptd_session_position(s, &pos, &count);
	ptd_session_pc(s, &cur_pc);
	fputs("{\n  \"program\": ", f);
	json_str(f, program);
	fputs(",\n  \"stop\": {\"kind\": ", f);
	json_str(f, ev->kind == PTD_EVENT_SIGNAL	 ? "signal"
		    : ev->kind == PTD_EVENT_EXITED	 ? "exit"
		    : ev->kind == PTD_EVENT_BREAKPOINT ? "until"
		    : ev->kind == PTD_EVENT_NO_HISTORY ? "trace_end"
						       : "stopped");
	if (ev->kind == PTD_EVENT_SIGNAL) {
		fputs(", \"signal\": ", f);
		json_str(f, ptd_print_signame(ev->signo));
		fprintf(f, ", \"signo\": %d", ev->signo);
	}
	if (ev->kind == PTD_EVENT_EXITED)
		fprintf(f, ", \"exit_code\": %d", ev->exit_code);
	fputs(", \"message\": ", f);
	json_str(f, stop_text(ev, buf, sizeof(buf)));
	fputs(", ", f);
	json_loc(f, sym, cur_pc);
	fputs("},\n  \"backtrace\": [", f);
	n = ptd_session_backtrace(s, pcs, 64);
	for (int i = 0; i < n; i++) {
		fprintf(f, "%s\n    {\"level\": %d, ", i ? "," : "", i);
		json_loc_frame(f, sym, pcs[i], i > 0);
		fputs("}", f);
	}
	fputs("\n  ],\n  \"calls\": [", f);
	if (calls) {
		uint64_t nc = ptd_calls_count(calls);
		uint64_t first = nc > (uint64_t)o->ncalls ? nc - (uint64_t)o->ncalls + 1 : 1;
		int minl = ptd_calls_min_level(calls);
		for (uint64_t i = first; i <= nc && o->ncalls > 0; i++) {
			const struct ptd_callseg *seg = ptd_calls_get(calls, i);
			if (!seg)
				continue;
			fprintf(f, "%s\n    {\"index\": %llu, \"level\": %d, \"first\": %llu, \"last\": %llu, ",
				i > first ? "," : "", (unsigned long long)seg->index,
				seg->level - minl, (unsigned long long)seg->first,
				(unsigned long long)seg->last);
			if (seg->is_gap)
				fputs("\"gap\": true", f);
			else
				json_loc(f, sym, seg->ip);
			fputs("}", f);
		}
	}
	fputs("\n  ],\n  \"lines\": [", f);
	n = last_lines(s, h, count, o->nlines, pcs, 64);
	for (int i = 0; i < n; i++) {
		fprintf(f, "%s\n    {", i ? "," : "");
		json_loc(f, sym, pcs[i]);
		fputs("}", f);
	}
	fputs("\n  ],\n  \"instructions\": [", f);
	struct range r = tail_range(count, o->ninsns);
	if (r.first <= r.last) {
		struct ptd_hcursor c;
		int first = 1;
		if (ptd_hcursor_goto(&c, h, r.first) == 0) {
			do {
				fprintf(f, "%s\n    {\"number\": %llu, ", first ? "" : ",",
					(unsigned long long)c.number);
				first = 0;
				if (c.is_gap) {
					fputs("\"gap\": true}", f);
					continue;
				}
				json_loc(f, sym, c.ip);
				uint8_t code[16];
				char text[160];
				long got = ptd_session_read(s, c.ip, code, sizeof(code));
				if (got > 0 && ptd_disasm_format_mode(code, (size_t)got, c.ip, c.mode,
								      text, sizeof(text), NULL,
								      NULL) > 0) {
					fputs(", \"text\": ", f);
					json_str(f, text);
				}
				fputs("}", f);
			} while (c.number < r.last && ptd_hcursor_next(&c) == 0);
		}
	}
	fprintf(f, "\n  ],\n  \"record\": {\"method\": \"%s\", \"simulated_pmu\": %s, \"format\": \"%s\", "
		   "\"instructions\": %llu, \"function_segments\": %llu, \"bytes\": %zu, \"seconds\": %.3f, "
		   "\"ptrace_stops\": %llu}\n}\n",
		ptd_method_name(ri.method), ri.simulated ? "true" : "false",
		ri.format ? ri.format : "blocks",
		(unsigned long long)ri.ninsn, (unsigned long long)ri.ncalls, ri.bytes, secs,
		(unsigned long long)ri.stops);
}

static int fail(const char *what, int rc)
{
	fprintf(stderr, "ptdbg-report: %s%s%s\n", what ? what : "", what ? ": " : "",
		ptd_last_error(rc));
	return 1;
}

/* Failed after the report file was opened: leave no empty report behind. */
static int give_up(struct ptd_session *s, FILE *out, const char *path)
{
	ptd_session_free(s);
	if (out && out != stdout)
		fclose(out);
	if (path)
		unlink(path);
	return 1;
}

/* --load: the report of a recorded trace, positioned at its end. */
static int report_loaded(const struct opts *o)
{
	struct ptd_session *s = ptd_session_alloc();
	struct ptd_event ev;
	FILE *out = stdout;
	int rc;

	if (!s)
		return fail(NULL, -ptde_nomem);
	if (o->output) {
		out = fopen(o->output, "w");
		if (!out) {
			fprintf(stderr, "ptdbg-report: cannot write '%s': %s\n", o->output,
				strerror(errno));
			ptd_session_free(s);
			return 1;
		}
	}
	rc = ptd_session_load(s, o->load);
	if (rc < 0) {
		fail(o->load, rc);
		return give_up(s, out, o->output);
	}
	memset(&ev, 0, sizeof(ev));
	ev.kind = PTD_EVENT_NO_HISTORY;
	if (!strcmp(o->format, "json"))
		json_report(out, s, o, &ev, 0.0, o->load);
	else
		text_report(out, s, o, &ev, 0.0);
	if (out != stdout && fclose(out) != 0) {
		fprintf(stderr, "ptdbg-report: cannot write '%s': %s\n", o->output, strerror(errno));
		ptd_session_free(s);
		return 1;
	}
	ptd_session_free(s);
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "pid", required_argument, NULL, 'p' },
		{ "method", required_argument, NULL, 'm' },
		{ "trace-format", required_argument, NULL, 't' },
		{ "from", required_argument, NULL, 'f' },
		{ "until", required_argument, NULL, 'u' },
		{ "calls", required_argument, NULL, 'c' },
		{ "lines", required_argument, NULL, 'l' },
		{ "insns", required_argument, NULL, 'i' },
		{ "format", required_argument, NULL, 'F' },
		{ "output", required_argument, NULL, 'o' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "no-pin-cpu", no_argument, NULL, 'P' },
		{ "load", required_argument, NULL, 'L' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	struct opts o = { "auto", "blocks", "main", NULL, "text", NULL, 20, 20, 10, 0, 0, 0 };
	struct ptd_session *s;
	struct ptd_event ev;
	struct timespec t0, t1;
	FILE *out = stdout;
	int c, rc, m;
	char *end;

	while ((c = getopt_long(argc, argv, "+p:o:qh", longopts, NULL)) != -1) {
		switch (c) {
		case 'p':
			errno = 0;
			o.pid = (pid_t)strtol(optarg, &end, 10);
			if (errno || *end || o.pid <= 0) {
				fprintf(stderr, "ptdbg-report: invalid process id '%s'\n", optarg);
				return 2;
			}
			break;
		case 'm':
			o.method = optarg;
			break;
		case 't':
			o.trace_format = optarg;
			break;
		case 'f':
			o.from = optarg;
			break;
		case 'u':
			o.until = optarg;
			break;
		case 'c':
		case 'l':
		case 'i': {
			long v = strtol(optarg, &end, 10);
			if (*end || v < 0 || v > 1000000) {
				fprintf(stderr, "ptdbg-report: invalid number '%s'\n", optarg);
				return 2;
			}
			if (c == 'c')
				o.ncalls = (int)v;
			else if (c == 'l')
				o.nlines = (int)v;
			else
				o.ninsns = (int)v;
			break;
		}
		case 'F':
			if (strcmp(optarg, "text") && strcmp(optarg, "json")) {
				fprintf(stderr, "ptdbg-report: unknown format '%s' (valid: text, json)\n",
					optarg);
				return 2;
			}
			o.format = optarg;
			break;
		case 'o':
			o.output = optarg;
			break;
		case 'q':
			o.quiet = 1;
			break;
		case 'P':
			o.no_pin = 1;
			break;
		case 'L':
			o.load = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		case 'V':
			printf("ptdbg-report %d.%d\n", PTD_VERSION_MAJOR, PTD_VERSION_MINOR);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (o.load && (o.pid || optind < argc)) {
		fprintf(stderr, "ptdbg-report: --load reports on a recorded trace: no program or "
				"process goes with it\n");
		usage(stderr);
		return 2;
	}
	if (o.load)
		return report_loaded(&o);
	if (!o.pid && optind >= argc) {
		fprintf(stderr, "ptdbg-report: no program given\n");
		usage(stderr);
		return 2;
	}
	m = ptd_method_parse(o.method);
	if (m < 0) {
		fprintf(stderr, "ptdbg-report: %s\n", ptd_last_error(m));
		return 2;
	}
	s = the_session = ptd_session_alloc();
	if (!s)
		return fail(NULL, -ptde_nomem);
	ptd_session_set_method(s, (enum ptd_method)m);
	if (o.no_pin)
		ptd_session_set_pin_cpu(s, 0);
	rc = ptd_session_set_trace_format(s, o.trace_format);
	if (rc < 0) {
		fprintf(stderr, "ptdbg-report: %s\n", ptd_last_error(rc));
		ptd_session_free(s);
		return 2;
	}
	{
		struct sigaction sa;
		memset(&sa, 0, sizeof(sa));
		sigemptyset(&sa.sa_mask);
		sa.sa_flags = SA_RESTART;
		sa.sa_handler = on_fatal;
		sigaction(SIGTERM, &sa, NULL);
		sigaction(SIGHUP, &sa, NULL);
		sa.sa_handler = on_int;
		sigaction(SIGINT, &sa, NULL);
	}

	/* Open the report file before the program runs: a bad path should
	 * not cost a whole recording. */
	if (o.output) {
		out = fopen(o.output, "w");
		if (!out) {
			fprintf(stderr, "ptdbg-report: cannot write '%s': %s\n", o.output,
				strerror(errno));
			ptd_session_free(s);
			return 1;
		}
	} else if (!strcmp(o.format, "json") && !o.pid) {
		/* JSON on standard output must be only JSON: the launched
		 * program inherits standard error as its standard output. */
		int fd = dup(STDOUT_FILENO);

		out = fd < 0 ? NULL : fdopen(fd, "w");
		if (!out || dup2(STDERR_FILENO, STDOUT_FILENO) < 0) {
			fprintf(stderr, "ptdbg-report: cannot set up the output: %s\n", strerror(errno));
			ptd_session_free(s);
			return 1;
		}
	}
	if (!o.pid && strchr(argv[optind], '/') && access(argv[optind], X_OK) < 0) {
		fprintf(stderr, "ptdbg-report: cannot run '%s': %s\n", argv[optind], strerror(errno));
		return give_up(s, out, o.output);
	}

	if (o.pid) {
		rc = ptd_session_attach(s, o.pid);
		if (rc < 0) {
			fail(NULL, rc);
			return give_up(s, out, o.output);
		}
	} else {
		rc = ptd_session_set_program(s, argv + optind);
		if (rc == 0)
			rc = ptd_session_break(s, o.from, 1);
		if (rc < 0) {
			fail(argv[optind], rc);
			return give_up(s, out, o.output);
		}
		rc = ptd_session_run(s, 0, &ev);
		if (rc < 0) {
			fail(NULL, rc);
			return give_up(s, out, o.output);
		}
		if (ev.kind != PTD_EVENT_BREAKPOINT) {
			fprintf(stderr, "ptdbg-report: %s: the program ended before reaching %s\n",
				argv[optind], o.from);
			return give_up(s, out, o.output);
		}
	}
	/* Stop before the program's last breath too, so its history is
	 * still there to report on when it exits normally. */
	ptd_session_break(s, "_exit", 0);
	if (o.until && (rc = ptd_session_break(s, o.until, 0)) < 0) {
		fail(o.until, rc);
		return give_up(s, out, o.output);
	}
	rc = ptd_session_record_start(s, PTD_METHOD_AUTO);
	if (rc < 0) {
		fail("cannot record", rc);
		return give_up(s, out, o.output);
	}
	struct ptd_record_info ri0;
	if (!o.quiet)
		fprintf(stderr, "ptdbg-report: recording %s from %s (method %s)\n",
			o.pid ? "the process" : argv[optind], o.pid ? "now" : o.from,
			ptd_method_name(ptd_session_record_info(s, &ri0) == 0 ? ri0.method : PTD_METHOD_AUTO));
	clock_gettime(CLOCK_MONOTONIC, &t0);
	rc = ptd_session_motion(s, PTD_MOTION_CONTINUE, 0, &ev);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (rc < 0) {
		fail(NULL, rc);
		return give_up(s, out, o.output);
	}
	if (ev.kind == PTD_EVENT_EXITED || ev.kind == PTD_EVENT_KILLED) {
		/* Ended without passing _exit (e.g. exit_group directly). */
		fprintf(stderr, "ptdbg-report: the program %s %d before a report point\n",
			ev.kind == PTD_EVENT_EXITED ? "exited with code" : "was killed by signal",
			ev.kind == PTD_EVENT_EXITED ? ev.exit_code : ev.signo);
		return give_up(s, out, o.output);
	}
	if (ev.kind == PTD_EVENT_BREAKPOINT && !o.until) {
		/* the _exit breakpoint: report it as the exit it is */
		struct ptd_symbols *sym = ptd_session_symbols(s);
		struct ptd_symbol fs;
		uint64_t pc;
		if (ptd_session_pc(s, &pc) == 0 && sym && ptd_symbols_lookup(sym, pc, &fs) == 0 &&
		    fs.name && !strcmp(fs.name, "_exit")) {
			struct user_regs_struct r;
			int pc_only;
			ev.kind = PTD_EVENT_EXITED;
			if (ptd_session_regs(s, &r, &pc_only) == 0)
				ev.exit_code = (int)(r.rdi & 0xff);
		}
	}
	fflush(stdout);
	double secs = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	if (!strcmp(o.format, "json"))
		json_report(out, s, &o, &ev, secs, o.pid ? "(attached)" : argv[optind]);
	else
		text_report(out, s, &o, &ev, secs);
	if (out != stdout)
		fclose(out);
	/* A launched program is killed (its crash was the point); an
	 * attached one is detached and goes on. */
	ptd_session_free(s);
	return 0;
}
