/*
 * ptdbg-report: batch "how did we get here" reports.
 *
 * Runs a program (or attaches to one) under ptdbg, records from a start
 * function (main by default) until a trigger fires -- a crash, --until,
 * --at LOCATION[:N], the exit (--on-exit), a signal to ptdbg-report
 * (--on-signal, a flight recorder), --timeout -- and writes what led
 * there (report.h lists the pieces).  This file owns the command line, the
 * triggers and the exit status; all stepping and history work goes
 * through src/session.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <time.h>
#include <unistd.h>

#include "report.h"

/* Exit statuses (documented in --help and ptdbg-report(1)). */
enum {
	EXIT_REPORT = 0, /* a trigger fired and the report was written */
	EXIT_ERROR = 1,	 /* something failed: no report */
	EXIT_USAGE = 2,	 /* bad command line */
	EXIT_ENDED = 3,	 /* the program ended before any trigger fired (its end reported) */
};

static struct ptd_session *the_session;
static volatile sig_atomic_t got_signal, timed_out;

/*
 * A snapshot request must not be lost: the session forgets an interrupt
 * that arrives before a motion has started (it begins each one afresh),
 * and the program may never stop on its own.  So the signal handlers wake
 * this thread, which asks again until the main loop has seen the request.
 */
static int wake_pipe[2] = {-1, -1};
static volatile sig_atomic_t snapshot_seen, snapshot_quit;

static void *interrupter(void *arg)
{
	char ch;

	(void)arg;
	while (read(wake_pipe[0], &ch, 1) < 0 && errno == EINTR)
		;
	while (!snapshot_seen && !snapshot_quit) {
		struct timespec ts = {0, 20 * 1000 * 1000};
		ptd_session_interrupt(the_session);
		nanosleep(&ts, NULL);
	}
	return NULL;
}

static void wake_interrupter(void)
{
	int e = errno;
	char ch = 1;

	if (wake_pipe[1] >= 0 && write(wake_pipe[1], &ch, 1) < 0) {
		/* nothing to do in a signal handler: the session was asked once */
	}
	errno = e;
}

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: ptdbg-report [OPTIONS] [--] PROGRAM [ARGS...]\n"
		"       ptdbg-report [OPTIONS] -p PID\n"
		"       ptdbg-report [OPTIONS] --load=PATH\n"
		"Record PROGRAM from a start function until a trigger fires, and report how\n"
		"execution got there: why it stopped, registers, a backtrace, the calls as a\n"
		"tree, the source lines with loops folded, the last branch decisions, gaps,\n"
		"and the last instructions.  The program's own output is left alone.\n"
		"\n"
		"Triggers (a crash always is one; without any option the exit is one too):\n"
		"      --until=LOCATION    the first hit of a breakpoint location\n"
		"      --at=LOCATION[:N]   the Nth hit (default 1) of FUNC, FILE:LINE or *ADDR\n"
		"      --on-exit           the program is about to exit\n"
		"      --on-signal=SIG     ptdbg-report receives SIG (USR1, 10, ...): a snapshot\n"
		"                          of the running program (a flight recorder)\n"
		"      --timeout=S         S seconds after recording started: a snapshot\n"
		"\n"
		"  -p, --pid=PID           attach to a running process (recording starts at once;\n"
		"                          it is detached after the report and runs on)\n"
		"      --load=PATH         report on a recorded trace instead: a bundle directory\n"
		"                          (record save) or a perf.data (perf record -e\n"
		"                          intel_pt//u --per-thread), up to its end\n"
		"      --method=METHOD     recorder: auto, pt, bts, soft, step (default auto:\n"
		"                          the first that works, soft on machines without PT/BTS;\n"
		"                          ptdbg doctor says why)\n"
		"      --no-pin-cpu        do not run ptdbg and the program on one CPU\n"
		"      --buffer-size=SIZE  what a recorded thread may hold (K, M, G; soft and "
		"step:\n"
		"                          beyond it the oldest history is dropped, a flight\n"
		"                          recorder; pt, bts: the trace buffer)\n"
		"      --trace-format=FMT  blocks or pt (record the step outcomes as Intel PT)\n"
		"      --from=FUNC         start recording at FUNC's first hit (default main;\n"
		"                          a program without main: its entry point)\n"
		"      --threads=WHICH     all: the path of every thread; current (default): the\n"
		"                          thread that stopped\n"
		"      --calls=N           function segments in the call tree (default 20)\n"
		"      --lines=N           source line entries to show (default 10)\n"
		"      --branches=N        conditional branch decisions to show (default 10)\n"
		"      --insns=N           instructions to show (default 20)\n"
		"      --format=FMT        text (default), json, perfetto (Chrome trace JSON),\n"
		"                          folded (flame graph stacks) or svg (flame chart)\n"
		"      --color=WHEN        colour the text report: auto (default, on a\n"
		"                          terminal), always, never\n"
		"  -o, --output=FILE       write the report to FILE (default standard output,\n"
		"                          after anything the program wrote there)\n"
		"  -q, --quiet             no progress messages on stderr\n"
		"  -h, --help              show this help\n"
		"      --version           show the version\n"
		"\n"
		"Exit status: 0 a trigger fired and the report was written; 3 the program\n"
		"ended before any trigger fired (its end is reported when its history is\n"
		"left); 1 an error (no report); 2 bad usage.\n");
}

static void on_fatal(int sig)
{
	/* Leave an attached process exactly as it was (the library detaches
	 * it at its next safe point), then die as asked. */
	ptd_target_quit_signal(sig);
}

/* SIGPIPE, SIGXFSZ: only so that the write fails (EPIPE, EFBIG). */
static void on_nothing(int sig)
{
	(void)sig;
}

static void on_snapshot(int sig)
{
	/* the first one counts (the interrupter's own requests arrive as SIGINT) */
	if (!got_signal && !timed_out)
		got_signal = sig;
	ptd_session_interrupt(the_session);
	wake_interrupter();
}

static void on_alarm(int sig)
{
	(void)sig;
	if (!got_signal)
		timed_out = 1;
	ptd_session_interrupt(the_session);
	wake_interrupter();
}

static int fail(const char *what, int rc)
{
	fprintf(stderr, "ptdbg-report: %s%s%s\n", what ? what : "", what ? ": " : "",
		ptd_last_error(rc));
	return EXIT_ERROR;
}

/* The address the kernel entered process @pid's executable at (AT_ENTRY:
 * its entry point, with a PIE's load bias); 0 when not known. */
static uint64_t entry_of(pid_t pid)
{
	char path[64];
	uint64_t av[2], entry = 0;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/auxv", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	while (read(fd, av, sizeof(av)) == (ssize_t)sizeof(av) && av[0] != AT_NULL)
		if (av[0] == AT_ENTRY)
			entry = av[1];
	close(fd);
	return entry;
}

/*
 * A program without main (stripped, or not C): launched and run to its
 * entry point, where recording then starts (*@where names it).  0 with
 * *@ev the stop there; <0 (said on stderr) when it cannot be run there.
 */
static int run_to_entry(struct ptd_session *s, const char *prog, struct ptd_event *ev,
			char *where, size_t n)
{
	uint64_t entry;
	char spec[32];
	int rc = ptd_session_launch(s);

	if (rc < 0)
		return fail(prog, rc), rc;
	entry = entry_of(ptd_session_pid(s));
	if (!entry) {
		fprintf(stderr, "ptdbg-report: %s: its entry point is not known\n", prog);
		return -1;
	}
	snprintf(spec, sizeof(spec), "*0x%" PRIx64, entry);
	snprintf(where, n, "its entry point (0x%" PRIx64 ")", entry);
	rc = ptd_session_break(s, spec, 1);
	if (rc >= 0)
		rc = ptd_session_continue_signal(s, 0, ev);
	if (rc < 0)
		fail(prog, rc);
	return rc < 0 ? rc : 0;
}

/* Failed after the report file was opened: leave no empty report behind. */
static int give_up(struct ptd_session *s, FILE *out, const char *path, int status)
{
	ptd_session_free(s);
	if (out && out != stdout)
		fclose(out);
	if (path)
		unlink(path);
	return status;
}

static int parse_signal(const char *name)
{
	static const struct {
		const char *name;
		int signo;
	} sigs[] = {{"HUP", SIGHUP},   {"INT", SIGINT},	  {"QUIT", SIGQUIT},
		    {"USR1", SIGUSR1}, {"USR2", SIGUSR2}, {"TERM", SIGTERM},
		    {"ALRM", SIGALRM}, {"PWR", SIGPWR},	  {"WINCH", SIGWINCH}};
	char *end;
	long v;

	if (!strncasecmp(name, "SIG", 3))
		name += 3;
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		if (!strcasecmp(name, sigs[i].name))
			return sigs[i].signo;
	errno = 0;
	v = strtol(name, &end, 10);
	if (!errno && !*end && v > 0 && v < NSIG && v != SIGKILL && v != SIGSTOP && v != SIGSEGV &&
	    v != SIGBUS && v != SIGILL && v != SIGFPE && v != SIGCHLD)
		return (int)v;
	return -1;
}

/* "LOCATION[:N]": a trailing ":N" is a hit count unless LOCATION is then
 * a file name (FILE:LINE has one colon and a file with a dot or slash). */
static int parse_at(const char *arg, struct opts *o)
{
	const char *colon = strrchr(arg, ':');
	static char loc[512];

	o->at_n = 1;
	if (strlen(arg) >= sizeof(loc) || !*arg)
		return -1;
	snprintf(loc, sizeof(loc), "%s", arg);
	o->at = loc;
	if (colon && colon[1] && strspn(colon + 1, "0123456789") == strlen(colon + 1)) {
		size_t plen = (size_t)(colon - arg);
		char prefix[512];
		int is_file_line;

		memcpy(prefix, arg, plen);
		prefix[plen] = '\0';
		is_file_line = !memchr(prefix, ':', plen) && prefix[0] != '*' &&
			       strspn(prefix, "0123456789") != plen &&
			       (strchr(prefix, '.') || strchr(prefix, '/'));
		if (!is_file_line) {
			long n = strtol(colon + 1, NULL, 10);
			if (n < 1 || n > 100000000)
				return -1;
			o->at_n = (unsigned)n;
			loc[plen] = '\0';
		}
	}
	return loc[0] ? 0 : -1;
}

static int parse_format(const char *s, enum rep_format *f)
{
	static const char *const names[] = {"text", "json", "perfetto", "folded", "svg"};

	for (int i = 0; i < 5; i++)
		if (!strcmp(s, names[i])) {
			*f = (enum rep_format)i;
			return 0;
		}
	return -1;
}

/* Closes the report file (or flushes standard output) and says so when
 * the report did not reach it whole: a full disk, a pipe nobody reads.
 * Returns 0, or -1 with the message printed. */
static int close_report(FILE *out, const char *path)
{
	int bad;

	if (out != stdout) {
		if (fclose(out) == 0)
			return 0;
		fprintf(stderr, "ptdbg-report: cannot write '%s': %s\n", path, strerror(errno));
		return -1;
	}
	bad = fflush(stdout) != 0;
	if (!bad && !ferror(stdout))
		return 0;
	fprintf(stderr, "ptdbg-report: cannot write the report to standard output%s%s\n",
		bad ? ": " : "", bad ? strerror(errno) : "");
	return -1;
}

static void write_report(struct rep *r)
{
	switch (r->o->format) {
	case RF_JSON:
		rep_json(r);
		break;
	case RF_PERFETTO:
		rep_perfetto(r);
		break;
	case RF_FOLDED:
		rep_folded(r);
		break;
	case RF_SVG:
		rep_svg(r);
		break;
	default:
		rep_text(r);
	}
}

/* The threads to report: all (--threads all) or the one that stopped. */
static void pick_threads(struct rep *r)
{
	struct ptd_thread_info ti[256];
	int n = ptd_session_threads(r->s, ti, 256);

	r->nthreads = 0;
	r->cur_thread = 1;
	r->all_threads = n > 0 ? n : 1;
	for (int i = 0; i < n && i < 256; i++)
		if (ti[i].current)
			r->cur_thread = ti[i].num;
	for (int i = 0; i < n && i < 256; i++) {
		if (!r->o->threads_all && !ti[i].current)
			continue;
		r->thread_nums[r->nthreads] = ti[i].num;
		r->thread_tids[r->nthreads++] = ti[i].tid;
	}
	if (r->nthreads == 0) { /* a loaded trace or a program gone: one history */
		r->thread_nums[0] = r->cur_thread;
		r->thread_tids[0] = 0;
		r->nthreads = 1;
	}
}

static int colour_for(const struct opts *o, FILE *out)
{
	if (o->format != RF_TEXT)
		return 0;
	if (o->colour >= 0)
		return o->colour;
	return isatty(fileno(out)) && getenv("TERM") && strcmp(getenv("TERM"), "dumb") &&
	       !getenv("NO_COLOR");
}

/* --load: the report of a recorded trace, positioned at its end. */
static int report_loaded(const struct opts *o)
{
	struct ptd_session *s = ptd_session_alloc();
	struct rep r;
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
			return EXIT_ERROR;
		}
	}
	rc = ptd_session_load(s, o->load);
	if (rc < 0) {
		fail(o->load, rc);
		return give_up(s, out, o->output, EXIT_ERROR);
	}
	memset(&r, 0, sizeof(r));
	r.out = out;
	r.s = s;
	r.sym = ptd_session_symbols(s);
	r.o = o;
	r.ev.kind = PTD_EVENT_NO_HISTORY;
	r.trig = TRIG_TRACE_END;
	r.prog = PROG_NONE;
	r.program = o->load;
	r.colour = colour_for(o, out);
	pick_threads(&r);
	write_report(&r);
	if (close_report(out, o->output) < 0) {
		ptd_session_free(s);
		return EXIT_ERROR;
	}
	ptd_session_free(s);
	return EXIT_REPORT;
}

/*
 * A signal the program handles itself (a handler in /proc/PID/status's
 * SigCgt) is part of its normal life, not a crash: it is passed on and the
 * recording goes on.  Faults and abort are crashes even when caught, as
 * gdb stops on them.  So are the others, unless they cannot end the
 * program: those whose default action stops it or does nothing (SIGSTOP
 * or Ctrl-Z on a program being recorded, a child's SIGCHLD), and those
 * it ignores (SigIgn).
 */
static int signal_is_crash(pid_t pid, int signo)
{
	char path[64], line[256];
	unsigned long long caught = 0, ignored = 0;
	int found = 0;
	FILE *f;

	switch (signo) {
	case SIGSEGV:
	case SIGBUS:
	case SIGILL:
	case SIGFPE:
	case SIGABRT:
	case SIGTRAP:
	case SIGSYS:
		return 1;
	case SIGSTOP:
	case SIGTSTP:
	case SIGTTIN:
	case SIGTTOU:
	case SIGCONT:
	case SIGCHLD:
	case SIGURG:
	case SIGWINCH:
		return 0;
	}
	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return 1;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "SigIgn: %llx", &ignored) == 1)
			continue;
		if (sscanf(line, "SigCgt: %llx", &caught) == 1) {
			found = 1;
			break;
		}
	}
	fclose(f);
	return !found || signo < 1 || signo > 64 || !((caught | ignored) >> (signo - 1) & 1);
}

static int is_exit_stop(struct ptd_session *s)
{
	struct ptd_symbols *sym = ptd_session_symbols(s);
	struct ptd_symbol fs;
	uint64_t pc, entry;

	/* (by address: the function is named as gdb names it, "__GI__exit"
	 * with libc's debug information) */
	return ptd_session_pc(s, &pc) == 0 && sym && ptd_symbols_lookup(sym, pc, &fs) == 0 &&
	       ptd_symbols_function(sym, "_exit", &entry, NULL) == 0 && fs.start == entry;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"pid", required_argument, NULL, 'p'},
		{"method", required_argument, NULL, 'm'},
		{"trace-format", required_argument, NULL, 't'},
		{"from", required_argument, NULL, 'f'},
		{"until", required_argument, NULL, 'u'},
		{"at", required_argument, NULL, 'a'},
		{"on-exit", no_argument, NULL, 'E'},
		{"on-signal", required_argument, NULL, 'S'},
		{"timeout", required_argument, NULL, 'T'},
		{"threads", required_argument, NULL, 'H'},
		{"calls", required_argument, NULL, 'c'},
		{"lines", required_argument, NULL, 'l'},
		{"insns", required_argument, NULL, 'i'},
		{"branches", required_argument, NULL, 'b'},
		{"format", required_argument, NULL, 'F'},
		{"color", required_argument, NULL, 'C'},
		{"colour", required_argument, NULL, 'C'},
		{"output", required_argument, NULL, 'o'},
		{"quiet", no_argument, NULL, 'q'},
		{"no-pin-cpu", no_argument, NULL, 'P'},
		{"buffer-size", required_argument, NULL, 'B'},
		{"load", required_argument, NULL, 'L'},
		{"help", no_argument, NULL, 'h'},
		{"version", no_argument, NULL, 'V'},
		{NULL, 0, NULL, 0},
	};
	struct opts o;
	struct ptd_session *s;
	struct ptd_event ev;
	struct timespec t0, t1;
	struct rep r;
	FILE *out = stdout;
	int c, rc, m, at_id = 0, until_id = 0, status = EXIT_REPORT, from_given = 0;
	char from_entry[64];
	unsigned at_hits = 0;
	char *end;

	memset(&o, 0, sizeof(o));
	o.method = "auto";
	o.trace_format = "blocks";
	o.from = "main";
	o.format = RF_TEXT;
	o.colour = -1;
	o.ncalls = 20;
	o.ninsns = 20;
	o.nlines = 10;
	o.nbranches = 10;
	while ((c = getopt_long(argc, argv, "+p:o:qh", longopts, NULL)) != -1) {
		switch (c) {
		case 'p':
			errno = 0;
			o.pid = (pid_t)strtol(optarg, &end, 10);
			if (errno || *end || o.pid <= 0) {
				fprintf(stderr, "ptdbg-report: invalid process id '%s'\n", optarg);
				return EXIT_USAGE;
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
			from_given = 1;
			break;
		case 'u':
			o.until = optarg;
			break;
		case 'a':
			if (parse_at(optarg, &o) < 0) {
				fprintf(stderr,
					"ptdbg-report: invalid --at location '%s' (LOCATION[:N], N "
					">= 1)\n",
					optarg);
				return EXIT_USAGE;
			}
			break;
		case 'E':
			o.on_exit = 1;
			break;
		case 'S':
			o.on_signal = parse_signal(optarg);
			if (o.on_signal < 0) {
				fprintf(stderr,
					"ptdbg-report: invalid signal '%s' for --on-signal (a name "
					"such as USR1 or a number; not KILL, STOP, CHLD or a "
					"fault)\n",
					optarg);
				return EXIT_USAGE;
			}
			break;
		case 'T': {
			long v = strtol(optarg, &end, 10);
			if (*end || end == optarg || v < 1 || v > 86400 * 365) {
				fprintf(stderr,
					"ptdbg-report: invalid timeout '%s' (whole seconds, >= "
					"1)\n",
					optarg);
				return EXIT_USAGE;
			}
			o.timeout = (unsigned)v;
			break;
		}
		case 'H':
			if (strcmp(optarg, "all") && strcmp(optarg, "current")) {
				fprintf(stderr,
					"ptdbg-report: unknown --threads '%s' (valid: all, "
					"current)\n",
					optarg);
				return EXIT_USAGE;
			}
			o.threads_all = !strcmp(optarg, "all");
			break;
		case 'c':
		case 'l':
		case 'i':
		case 'b': {
			long v = strtol(optarg, &end, 10);
			if (*end || end == optarg || v < 0 || v > 1000000) {
				fprintf(stderr, "ptdbg-report: invalid number '%s'\n", optarg);
				return EXIT_USAGE;
			}
			if (c == 'c')
				o.ncalls = (int)v;
			else if (c == 'l')
				o.nlines = (int)v;
			else if (c == 'b')
				o.nbranches = (int)v;
			else
				o.ninsns = (int)v;
			break;
		}
		case 'F':
			if (parse_format(optarg, &o.format) < 0) {
				fprintf(stderr,
					"ptdbg-report: unknown format '%s' (valid: text, json, "
					"perfetto, "
					"folded, svg)\n",
					optarg);
				return EXIT_USAGE;
			}
			break;
		case 'C':
			if (!strcmp(optarg, "auto"))
				o.colour = -1;
			else if (!strcmp(optarg, "always"))
				o.colour = 1;
			else if (!strcmp(optarg, "never"))
				o.colour = 0;
			else {
				fprintf(stderr,
					"ptdbg-report: unknown --color '%s' (valid: auto, always, "
					"never)\n",
					optarg);
				return EXIT_USAGE;
			}
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
		case 'B':
			o.buffer_size = optarg;
			break;
		case 'L':
			o.load = optarg;
			break;
		case 'h':
			usage(stdout);
			return EXIT_REPORT;
		case 'V':
			printf("ptdbg-report %d.%d\n", PTD_VERSION_MAJOR, PTD_VERSION_MINOR);
			return EXIT_REPORT;
		default:
			usage(stderr);
			return EXIT_USAGE;
		}
	}
	if (o.load && (o.pid || optind < argc)) {
		fprintf(stderr, "ptdbg-report: --load reports on a recorded trace: no program or "
				"process goes with it\n");
		usage(stderr);
		return EXIT_USAGE;
	}
	if (o.load && (o.at || o.until || o.on_exit || o.on_signal || o.timeout)) {
		fprintf(stderr, "ptdbg-report: --load reports on a recorded trace up to its end: "
				"triggers need a program\n");
		return EXIT_USAGE;
	}
	if (o.load)
		return report_loaded(&o);
	if (!o.pid && optind >= argc) {
		fprintf(stderr, "ptdbg-report: no program given\n");
		usage(stderr);
		return EXIT_USAGE;
	}
	m = ptd_method_parse(o.method);
	if (m < 0) {
		fprintf(stderr, "ptdbg-report: %s\n", ptd_last_error(m));
		return EXIT_USAGE;
	}
	s = the_session = ptd_session_alloc();
	if (!s)
		return fail(NULL, -ptde_nomem);
	ptd_session_set_method(s, (enum ptd_method)m);
	if (o.no_pin)
		ptd_session_set_pin_cpu(s, 0);
	if (o.buffer_size) {
		/* auto: every method that may be chosen gets the bound */
		static const enum ptd_method all[] = {PTD_METHOD_SOFT, PTD_METHOD_STEP,
						      PTD_METHOD_PT, PTD_METHOD_BTS};
		int ok = 0;
		rc = 0;
		for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++) {
			if (m != PTD_METHOD_AUTO && (int)all[i] != m)
				continue;
			int r1 = ptd_session_set_record_option(s, all[i], "buffer-size",
							       o.buffer_size);
			if (r1 == 0)
				ok = 1;
			else if (!rc)
				rc = r1;
		}
		if (!ok) {
			/* the message of the first method tried (soft for auto) */
			rc = ptd_session_set_record_option(
				s, m == PTD_METHOD_AUTO ? PTD_METHOD_SOFT : (enum ptd_method)m,
				"buffer-size", o.buffer_size);
			fprintf(stderr, "ptdbg-report: --buffer-size: %s\n", ptd_last_error(rc));
			ptd_session_free(s);
			return EXIT_USAGE;
		}
		ptd_clear_error();
	}
	rc = ptd_session_set_trace_format(s, o.trace_format);
	if (rc < 0) {
		fprintf(stderr, "ptdbg-report: %s\n", ptd_last_error(rc));
		ptd_session_free(s);
		return EXIT_USAGE;
	}
	pthread_t intr_thread;
	int have_intr_thread = 0;
	if (pipe2(wake_pipe, O_CLOEXEC) == 0 &&
	    pthread_create(&intr_thread, NULL, interrupter, NULL) == 0)
		have_intr_thread = 1;
	{
		struct sigaction sa, old;
		memset(&sa, 0, sizeof(sa));
		sigemptyset(&sa.sa_mask);
		sa.sa_flags = SA_RESTART;
		sa.sa_handler = on_fatal;
		sigaction(SIGTERM, &sa, NULL);
		sigaction(SIGHUP, &sa, NULL);
		/* A report written to a pipe nobody reads, or over the file
		 * size limit (ulimit -f), is a write error we report; the
		 * default actions killed us with the program attached and
		 * stopped at the trigger, our int3s in it.  Handlers, not
		 * SIG_IGN, which a launched program would inherit. */
		sa.sa_handler = on_nothing;
		if (sigaction(SIGPIPE, NULL, &old) == 0 && old.sa_handler != SIG_IGN)
			sigaction(SIGPIPE, &sa, NULL);
		if (sigaction(SIGXFSZ, NULL, &old) == 0 && old.sa_handler != SIG_IGN)
			sigaction(SIGXFSZ, &sa, NULL);
		/* Ctrl-C is a snapshot too: the report of what ran so far. */
		sa.sa_handler = on_snapshot;
		sigaction(SIGINT, &sa, NULL);
		if (o.on_signal)
			sigaction(o.on_signal, &sa, NULL);
		sa.sa_handler = on_alarm;
		sigaction(SIGALRM, &sa, NULL);
	}

	/* Open the report file before the program runs: a bad path should
	 * not cost a whole recording. */
	if (o.output) {
		out = fopen(o.output, "w");
		if (!out) {
			fprintf(stderr, "ptdbg-report: cannot write '%s': %s\n", o.output,
				strerror(errno));
			ptd_session_free(s);
			return EXIT_ERROR;
		}
	}
	if (!o.pid && strchr(argv[optind], '/') && access(argv[optind], X_OK) < 0) {
		fprintf(stderr, "ptdbg-report: cannot run '%s': %s\n", argv[optind],
			strerror(errno));
		return give_up(s, out, o.output, EXIT_ERROR);
	}

	if (o.pid) {
		rc = ptd_session_attach(s, o.pid);
		if (rc < 0) {
			fail(NULL, rc);
			return give_up(s, out, o.output, EXIT_ERROR);
		}
	} else {
		rc = ptd_session_set_program(s, argv + optind);
		if (rc == 0)
			rc = ptd_session_break(s, o.from, 1);
		if (rc == -ptde_notfound && !from_given) {
			/* no main to start at (a stripped program): its entry */
			if (!o.quiet)
				fprintf(stderr, "ptdbg-report: %s has no function main: recording "
					"from its entry point\n", argv[optind]);
			rc = run_to_entry(s, argv[optind], &ev, from_entry, sizeof(from_entry));
			if (rc < 0)
				return give_up(s, out, o.output, EXIT_ERROR);
			o.from = from_entry;
		} else if (rc < 0) {
			fail(argv[optind], rc);
			return give_up(s, out, o.output, EXIT_ERROR);
		} else {
			rc = ptd_session_run(s, 0, &ev);
		}
		if (rc < 0) {
			fail(NULL, rc);
			return give_up(s, out, o.output, EXIT_ERROR);
		}
		if (ev.kind != PTD_EVENT_BREAKPOINT) {
			fprintf(stderr, "ptdbg-report: %s: the program ended before reaching %s\n",
				argv[optind], o.from);
			return give_up(s, out, o.output, EXIT_ENDED);
		}
	}
	/* Stop before the program's last breath too, so its history is
	 * still there to report on when it exits normally. */
	ptd_session_break(s, "_exit", 0);
	if (o.until && (rc = until_id = ptd_session_break(s, o.until, 0)) < 0) {
		fail(o.until, rc);
		return give_up(s, out, o.output, EXIT_ERROR);
	}
	if (o.at && (rc = at_id = ptd_session_break(s, o.at, 0)) < 0) {
		fail(o.at, rc);
		return give_up(s, out, o.output, EXIT_ERROR);
	}
	rc = ptd_session_record_start(s, PTD_METHOD_AUTO);
	if (rc < 0) {
		fail("cannot record", rc);
		return give_up(s, out, o.output, EXIT_ERROR);
	}
	struct ptd_record_info ri0;
	if (!o.quiet)
		fprintf(stderr, "ptdbg-report: recording %s from %s (method %s)\n",
			o.pid ? "the process" : argv[optind], o.pid ? "now" : o.from,
			ptd_method_name(ptd_session_record_info(s, &ri0) == 0 ? ri0.method
									      : PTD_METHOD_AUTO));
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (o.timeout)
		alarm(o.timeout);

	memset(&r, 0, sizeof(r));
	r.trig = TRIG_NONE;
	r.prog = PROG_RUNNING;
	for (;;) {
		if (got_signal || timed_out) {
			/* asked for while not in a motion (or it ended otherwise) */
			memset(&ev, 0, sizeof(ev));
			ev.kind = PTD_EVENT_INTERRUPTED;
			rc = 0;
		} else {
			rc = ptd_session_motion(s, PTD_MOTION_CONTINUE, 0, &ev);
			if (rc < 0)
				break;
		}
		if (ev.kind == PTD_EVENT_BREAKPOINT && at_id > 0 && ev.bp_id == at_id) {
			if (++at_hits < o.at_n)
				continue;
			r.trig = TRIG_AT;
		} else if (ev.kind == PTD_EVENT_BREAKPOINT && until_id > 0 &&
			   ev.bp_id == until_id) {
			r.trig = TRIG_UNTIL;
		} else if (ev.kind == PTD_EVENT_BREAKPOINT) {
			if (!is_exit_stop(s))
				continue; /* not ours (a leftover): go on */
			struct user_regs_struct regs;
			int pc_only;
			r.prog = PROG_EXITING;
			if (ptd_session_regs(s, &regs, &pc_only) == 0)
				r.prog_code = (int)(regs.rdi & 0xff);
			/* the exit is a trigger with --on-exit, or when none was given */
			r.trig = o.on_exit || !(o.until || o.at || o.on_signal || o.timeout)
					 ? TRIG_EXIT
					 : TRIG_NONE;
		} else if (ev.kind == PTD_EVENT_SIGNAL) {
			if (!signal_is_crash(ptd_session_pid(s), ev.signo))
				continue; /* the next motion delivers it to the handler */
			r.trig = TRIG_CRASH;
			r.prog = PROG_CRASHED;
			r.prog_code = ev.signo;
		} else if (ev.kind == PTD_EVENT_INTERRUPTED) {
			if (timed_out) {
				r.trig = TRIG_TIMEOUT;
			} else {
				r.trig = TRIG_SIGNAL;
				r.trig_signo = got_signal ? got_signal : SIGINT;
			}
		} else if (ev.kind == PTD_EVENT_EXITED || ev.kind == PTD_EVENT_KILLED) {
			/* ended without passing _exit (exit_group directly, or killed) */
			r.prog = ev.kind == PTD_EVENT_EXITED ? PROG_EXITED : PROG_KILLED;
			r.prog_code = ev.kind == PTD_EVENT_EXITED ? ev.exit_code : ev.signo;
			r.trig = TRIG_NONE;
		} else if (ev.kind == PTD_EVENT_EXEC) {
			/* the new program's breakpoints are gone: its exit is found
			 * by the exit event */
			ptd_session_break(s, "_exit", 0);
			continue;
		} else {
			continue;
		}
		break;
	}
	alarm(0);
	snapshot_seen = 1;
	snapshot_quit = 1;
	if (have_intr_thread) {
		wake_interrupter();
		pthread_join(intr_thread, NULL);
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (rc < 0) {
		fail(NULL, rc);
		return give_up(s, out, o.output, EXIT_ERROR);
	}
	if (r.trig == TRIG_NONE) {
		const struct ptd_history *h = ptd_session_history(s);
		status = EXIT_ENDED;
		if (!o.quiet || !h || ptd_history_count(h) == 0) {
			if (r.prog == PROG_KILLED)
				fprintf(stderr,
					"ptdbg-report: the program was killed by %s before a "
					"trigger "
					"fired\n",
					ptd_print_signame(r.prog_code));
			else
				fprintf(stderr,
					"ptdbg-report: the program exited with code %d before a "
					"trigger fired\n",
					r.prog_code);
		}
		if (!h || ptd_history_count(h) == 0) {
			fprintf(stderr, "ptdbg-report: no history is left to report on\n");
			return give_up(s, out, o.output, EXIT_ENDED);
		}
	}
	r.out = out;
	r.s = s;
	r.sym = ptd_session_symbols(s);
	r.o = &o;
	r.ev = ev;
	r.program = o.pid ? "(attached)" : argv[optind];
	r.attached = o.pid != 0;
	r.secs = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	if (r.trig == TRIG_CRASH && ptd_session_siginfo(s, &r.si) == 0)
		r.have_si = 1;
	pick_threads(&r);
	if (!o.pid && !realpath(argv[optind], r.main_module))
		r.main_module[0] = '\0';
	/* The program's output so far comes before the report. */
	fflush(stdout);
	r.colour = colour_for(&o, out);
	write_report(&r);
	if (close_report(out, o.output) < 0) {
		ptd_session_free(s);
		return EXIT_ERROR;
	}
	fflush(stdout);
	/* A launched program is killed (its crash was the point); an
	 * attached one is detached and goes on. */
	ptd_session_free(s);
	return status;
}
