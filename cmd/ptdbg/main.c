/*
 * ptdbg: the interactive shell.  This file owns the command line (gdb's
 * options: -ex, -x, -batch, -q, -p, --args, plus --method and the pt
 * recorder's settings; `ptdbg doctor`), the input loop
 * (readline with history on a terminal, plain lines otherwise, an empty
 * line repeating the last repeatable command), Ctrl-C, and the exit
 * status.  Commands are in commands.c, output layouts in print.c.
 */
#include <ctype.h>
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <readline/history.h>
#include <readline/readline.h>

#include "ptdbg/ptdbg.h"
#include "shell.h"
#include "breakcmds.h"
#include "status.h"
#include "complete.h"

static struct ptd_session *volatile g_session;
static volatile sig_atomic_t at_prompt;
static sigjmp_buf prompt_jmp;

/* Ctrl-C: interrupts a running motion (live or replay) through the session;
 * at the prompt it abandons the line as gdb does ("Quit"). */
static void on_sigint(int sig)
{
	(void)sig;
	if (at_prompt)
		siglongjmp(prompt_jmp, 1);
	/* (a while loop of a script stops at its next round) */
	shell_interrupted = 1;
	if (g_session)
		ptd_session_interrupt(g_session);
}

/* SIGTERM, SIGHUP: leave an attached program exactly as it was (the
 * library detaches it at the next safe point, at once when we are idle),
 * kill a launched one as gdb does, then die as asked. */
static void on_fatal(int sig)
{
	ptd_target_quit_signal(sig);
}

/* SIGXFSZ: only so that a write over the file size limit fails (EFBIG). */
static void on_nothing(int sig)
{
	(void)sig;
}

static void on_notify(void *ctx, const char *msg)
{
	(void)ctx;
	fflush(stdout);
	printf("%s\n", msg);
	fflush(stdout);
}

static long read_mem(void *ctx, uint64_t addr, void *buf, size_t n)
{
	return shell_read(ctx, addr, buf, n);
}

static void usage(FILE *f)
{
	fprintf(f,
		"This is ptdbg, a debugger with reverse execution history.  Usage:\n\n"
		"    ptdbg [options] [program [pid]]\n"
		"    ptdbg [options] --args program [arguments...]\n"
		"    ptdbg [options] -p pid\n"
		"    ptdbg doctor\n\n"
		"Options:\n"
		"  --args             Arguments after the program are passed to it.\n"
		"  -p, --pid PID      Attach to the running process PID.\n"
		"  -ex, --eval-command CMD\n"
		"                     Execute a single command (may be repeated; in order\n"
		"                     with -x).\n"
		"  -x, --command FILE Execute commands from FILE.\n"
		"  -batch, --batch    Exit after processing the -ex and -x commands; implies -q.\n"
		"                     Exit status is nonzero if the last command failed.\n"
		"  -q, -quiet, -silent\n"
		"                     Do not print the introductory message.\n"
		"  --method=METHOD    Recording method for \"record\": auto (the first that\n"
		"                     works of pt, bts, soft), pt, bts, soft, step.\n"
		"  --pt-buffer=full|circular\n"
		"                     pt: full, a linear buffer drained at every stop and\n"
		"                     when half full; circular (the default), the newest\n"
		"                     trace survives.\n"
		"  --pt-buffer-size=SIZE\n"
		"                     pt: trace buffer per thread (power-of-two pages; 4M).\n"
		"  --pt-filter=FILTER pt: trace only FUNCTION, FILE or START/SIZE@FILE (may\n"
		"                     be repeated; see \"help record pt\").\n"
		"  --no-pin-cpu       Do not run ptdbg and the program on one CPU (see\n"
		"                     \"help set pin-cpu\").\n"
		"  --load=DIR         Open a trace bundle written by \"record save DIR\"\n"
		"                     (docs/bundle.md) and browse its history offline.\n"
		"  --load=FILE        Open a perf.data with Intel PT or BTS recorded per thread\n"
		"                     (perf record -e intel_pt//u --per-thread -- PROG, or\n"
		"                     -e intel_bts//u).\n"
		"  --trace-format=FMT How recordings are kept: blocks, or pt (the recorded\n"
		"                     branches written as Intel PT and decoded with libipt).\n"
		"  -h, --help         Print this message and exit.\n"
		"  -v, --version      Print version information and exit.\n\n"
		"ptdbg doctor prints what ptdbg can record with on this machine and why\n"
		"(the CPU, Intel PT, BTS, perf and ptrace permissions, the method auto\n"
		"takes, and how to fix each refusal).  PTDBG_SIMULATE_PMU=pt or bts\n"
		"simulates an Intel PT or BTS PMU (for tests and demos; always said).\n\n"
		"See ptdbg(1), and \"help\" inside ptdbg.\n");
}

static int missing_arg(const char *opt)
{
	fprintf(stderr, "ptdbg: option '%s' requires an argument\n"
		"Use `ptdbg --help' for a complete list of options.\n", opt);
	return 1;
}

struct startup_cmd {
	int is_file;
	const char *text;
};

/* Matches "-name", "--name" and (for @takes_arg) "--name=value". */
static int opt_is(const char *arg, const char *name, const char **value)
{
	const char *a = arg;
	size_t n = strlen(name);

	if (a[0] != '-')
		return 0;
	a++;
	if (a[0] == '-')
		a++;
	if (strncmp(a, name, n))
		return 0;
	if (a[n] == '\0') {
		if (value)
			*value = NULL;
		return 1;
	}
	if (a[n] == '=' && value) {
		*value = a + n + 1;
		return 1;
	}
	return 0;
}

static int run_line(struct shell *sh, const char *line, int *repeatable)
{
	int rc;

	rc = shell_execute(sh, line, repeatable);
	fflush(stdout);
	return rc;
}

/* A line of a command's body (`commands`) at the terminal, prompted ">". */
static char *tty_read_line(struct shell *sh)
{
	return readline(sh->body_prompt[0] ? sh->body_prompt : ">");
}

static void interactive_loop(struct shell *sh)
{
	int tty = isatty(0), rc;
	int repeatable = 0;
	char *volatile last = NULL;
	char *line = NULL;
	size_t cap = 0;

	/* gdb treats commands from stdin as typed by a user (from_tty) even
	 * when stdin is a pipe, and prompts for them. */
	sh->from_tty = 1;
	sh->read_line = tty ? tty_read_line : NULL;
	if (tty) {
		rl_readline_name = "ptdbg";
		shell_complete_init(sh);
		using_history();
	}
	while (!sh->quit) {
		char *input;

		if (tty) {
			if (sigsetjmp(prompt_jmp, 1)) {
				at_prompt = 0;
				ptd_target_safe_point(0);
				rl_free_line_state();
				rl_cleanup_after_signal();
				printf("Quit\n");
				continue;
			}
			/* idle: a SIGTERM here tears down at once */
			ptd_target_safe_point(1);
			at_prompt = 1;
			input = readline(PTDBG_PROMPT);
			at_prompt = 0;
			ptd_target_safe_point(0);
			if (!input) {
				printf("quit\n");
				break;
			}
		} else {
			ssize_t len;

			fputs(PTDBG_PROMPT, stdout);
			fflush(stdout);
			ptd_target_safe_point(1);
			len = getline(&line, &cap, stdin);
			ptd_target_safe_point(0);

			if (len < 0)
				break;
			if (len && line[len - 1] == '\n')
				line[len - 1] = '\0';
			input = strdup(line);
			if (!input)
				break;
		}
		{
			const char *p = input;

			while (isspace((unsigned char)*p))
				p++;
			if (!*p) {
				/* An empty line repeats the last repeatable command. */
				if (last && repeatable)
					rc = run_line(sh, last, &repeatable);
				free(input);
				continue;
			}
		}
		if (tty)
			add_history(input);
		sh->repeat_as[0] = '\0';
		shell_interrupted = 0;
		sh->prev_line = last;
		sh->relaunched = 0;
		rc = run_line(sh, input, &repeatable);
		sh->prev_line = NULL;
		(void)rc;
		if (sh->relaunched && last) {
			/* (a pipe ran the line before again: that one stays
			 * the line before, as gdb's) */
			free(input);
			continue;
		}
		free(last);
		last = input;
		if (sh->repeat_as[0]) {
			free(input);
			last = strdup(sh->repeat_as);
		}
	}
	free(last);
	free(line);
}

static void doctor_line(void *ctx, const char *text)
{
	(void)ctx;
	printf("%s\n", text);
}

/* ptdbg doctor: exit status 0 when some method can record, 1 otherwise. */
static int doctor_main(int argc, char **argv)
{
	int rc, choice = -1;

	if (argc > 2) {
		fprintf(stderr, "ptdbg: doctor takes no arguments (%s)\n", argv[2]);
		return 2;
	}
	ptd_clear_error();
	rc = ptd_doctor_report(doctor_line, NULL, &choice);
	fflush(stdout);
	if (rc < 0) {
		fprintf(stderr, "ptdbg: %s\n", ptd_last_error(rc));
		return 2;
	}
	return choice >= 0 ? 0 : 1;
}

/* The pt settings of the command line, applied once the session exists. */
struct pt_opt {
	const char *name;
	const char *value;
};

int main(int argc, char **argv)
{
	struct startup_cmd *cmds;
	int ncmds = 0, batch = 0, quiet = 0, i, last_rc = 0, method = -1;
	const char *trace_format = "blocks";
	const char *load_dir = NULL;
	int no_pin = 0;
	const char *pid_arg = NULL, *v;
	char **prog_argv = NULL;
	int prog_argc = 0, args_mode = 0;
	struct shell sh;
	struct sigaction sa, old;
	struct pt_opt *pt_opts;
	int npt_opts = 0;

	/* "ptdbg doctor": a subcommand (debug a program named doctor as ./doctor) */
	if (argc >= 2 && !strcmp(argv[1], "doctor"))
		return doctor_main(argc, argv);
	cmds = calloc((size_t)argc + 1, sizeof(*cmds));
	pt_opts = calloc((size_t)argc + 1, sizeof(*pt_opts));
	if (!cmds || !pt_opts) {
		free(cmds);
		free(pt_opts);
		return 1;
	}
	for (i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (args_mode || a[0] != '-' || !a[1]) {
			if (args_mode) {
				prog_argv = &argv[i];
				prog_argc = argc - i;
				break;
			}
			if (!prog_argc) {
				prog_argv = &argv[i];
				prog_argc = 1;
			} else if (!pid_arg && prog_argc == 1 && isdigit((unsigned char)a[0])) {
				pid_arg = a;
			} else {
				fprintf(stderr, "Excess command line arguments ignored. (%s)\n", a);
			}
			continue;
		}
		if (!strcmp(a, "--")) {
			args_mode = 1;
			continue;
		}
		if (opt_is(a, "args", NULL)) {
			args_mode = 1;
			continue;
		}
		if (opt_is(a, "ex", &v) || opt_is(a, "eval-command", &v) ||
		    opt_is(a, "x", &v) || opt_is(a, "command", &v)) {
			int is_file = opt_is(a, "x", &v) || opt_is(a, "command", &v);

			if (!v) {
				if (i + 1 >= argc) {
					return free(cmds), free(pt_opts), missing_arg(a);
				}
				v = argv[++i];
			}
			cmds[ncmds].is_file = is_file;
			cmds[ncmds].text = v;
			ncmds++;
			continue;
		}
		if (opt_is(a, "batch", NULL)) {
			batch = 1;
			quiet = 1;
			continue;
		}
		if (opt_is(a, "q", NULL) || opt_is(a, "quiet", NULL) || opt_is(a, "silent", NULL)) {
			quiet = 1;
			continue;
		}
		/* gdb's "no init file" options: ptdbg reads none anyway. */
		if (opt_is(a, "nx", NULL) || opt_is(a, "n", NULL) || opt_is(a, "nh", NULL))
			continue;
		if (opt_is(a, "p", &v) || opt_is(a, "pid", &v)) {
			if (!v) {
				if (i + 1 >= argc) {
					return free(cmds), free(pt_opts), missing_arg(a);
				}
				v = argv[++i];
			}
			pid_arg = v;
			continue;
		}
		if (opt_is(a, "method", &v)) {
			if (!v) {
				if (i + 1 >= argc) {
					return free(cmds), free(pt_opts), missing_arg(a);
				}
				v = argv[++i];
			}
			ptd_clear_error();
			method = ptd_method_parse(v);
			if (method < 0) {
				fprintf(stderr, "ptdbg: %s\n", ptd_last_error(method));
				return free(cmds), free(pt_opts), 1;
			}
			continue;
		}
		if (opt_is(a, "pt-buffer", &v) || opt_is(a, "pt-buffer-size", &v) ||
		    opt_is(a, "pt-filter", &v)) {
			const char *dummy;
			const char *name = opt_is(a, "pt-buffer", &dummy)   ? "buffer"
					   : opt_is(a, "pt-filter", &dummy) ? "filter"
									   : "buffer-size";

			if (!v) {
				if (i + 1 >= argc) {
					return free(cmds), free(pt_opts), missing_arg(a);
				}
				v = argv[++i];
			}
			pt_opts[npt_opts].name = name;
			pt_opts[npt_opts].value = v;
			npt_opts++;
			continue;
		}
		if (opt_is(a, "no-pin-cpu", NULL)) {
			no_pin = 1;
			continue;
		}
		if (opt_is(a, "load", &v)) {
			if (!v) {
				if (i + 1 >= argc) {
					return free(cmds), free(pt_opts), missing_arg(a);
				}
				v = argv[++i];
			}
			load_dir = v;
			continue;
		}
		if (opt_is(a, "trace-format", &v)) {
			if (!v) {
				if (i + 1 >= argc) {
					return free(cmds), free(pt_opts), missing_arg(a);
				}
				v = argv[++i];
			}
			if (strcmp(v, "pt") && strcmp(v, "blocks")) {
				fprintf(stderr, "ptdbg: unknown trace format '%s' (valid: blocks, pt)\n", v);
				return free(cmds), free(pt_opts), 1;
			}
			trace_format = v;
			continue;
		}
		if (opt_is(a, "help", NULL) || opt_is(a, "h", NULL)) {
			usage(stdout);
			return free(cmds), free(pt_opts), 0;
		}
		if (opt_is(a, "version", NULL) || opt_is(a, "v", NULL)) {
			printf("ptdbg %d.%d\n", PTD_VERSION_MAJOR, PTD_VERSION_MINOR);
			return free(cmds), free(pt_opts), 0;
		}
		fprintf(stderr, "ptdbg: unrecognized option '%s'\n"
			"Use `ptdbg --help' for a complete list of options.\n", a);
		return free(cmds), free(pt_opts), 1;
	}

	/* Line-buffered output keeps our lines and the program's in order. */
	setvbuf(stdout, NULL, _IOLBF, 0);

	memset(&sh, 0, sizeof(sh));
	sh.batch = batch;
	sh.trace_format = trace_format;
	sh.confirm = 1;
	sh.insn_history_size = 10;
	sh.call_history_size = 10;
	sh.pc.out = stdout;
	sh.pc.read = read_mem;
	sh.pc.gdb_errors = 1;
	sh.s = ptd_session_alloc();
	if (!sh.s) {
		fprintf(stderr, "ptdbg: cannot create a session: %s\n", ptd_last_error(-ptde_nomem));
		return 1;
	}
	sh.pc.read_ctx = &sh;
	shell_values_init(&sh);
	g_session = sh.s;
	if (method >= 0)
		ptd_session_set_method(sh.s, (enum ptd_method)method);
	if (no_pin)
		ptd_session_set_pin_cpu(sh.s, 0);
	/* reverse commands work from the end of a recorded program */
	ptd_session_set_keep_exited(sh.s, 1);
	ptd_session_set_stop_before_exit(sh.s, 1);
	for (i = 0; i < npt_opts; i++) {
		int orc;

		ptd_clear_error();
		orc = ptd_session_set_record_option(sh.s, PTD_METHOD_PT, pt_opts[i].name,
						    pt_opts[i].value);
		if (orc < 0) {
			fprintf(stderr, "ptdbg: %s\n", ptd_last_error(orc));
			ptd_session_free(sh.s);
			shell_release(&sh);
			free(cmds);
			free(pt_opts);
			return 1;
		}
	}
	free(pt_opts);
	pt_opts = NULL;
	ptd_session_set_notify(sh.s, on_notify, NULL);
	shell_breakcmds_init(&sh);
	shell_status_init(&sh);

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_sigint;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	/* Killed ourselves: leave the program as it was first.  No
	 * SA_RESETHAND: a second signal during the teardown must not cut it
	 * short. */
	sa.sa_handler = on_fatal;
	sa.sa_flags = SA_RESTART;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	/* Output to a pipe nobody reads any more (ptdbg ... | head) ends us
	 * as it ends any program, but the program goes first as with
	 * SIGTERM: killed by the default action, ptdbg left an attached
	 * program with our int3s in it.  (Ignored by whoever started us, it
	 * stays ignored: the programs we launch inherit that as they would.) */
	if (sigaction(SIGPIPE, NULL, &old) == 0 && old.sa_handler != SIG_IGN)
		sigaction(SIGPIPE, &sa, NULL);
	/* A file over the size limit (ulimit -f) while saving a recording:
	 * the write fails with EFBIG and the save says so, where the default
	 * action killed ptdbg, the recording and an attached program with it.
	 * A handler, not SIG_IGN, which launched programs would inherit. */
	sa.sa_handler = on_nothing;
	if (sigaction(SIGXFSZ, NULL, &old) == 0 && old.sa_handler != SIG_IGN)
		sigaction(SIGXFSZ, &sa, NULL);
	if (isatty(0))
		rl_catch_signals = 0;

	if (!quiet)
		printf("ptdbg %d.%d: reverse execution history for Linux x86-64 programs.\n"
		       "Type \"help\" for a list of commands.\n",
		       PTD_VERSION_MAJOR, PTD_VERSION_MINOR);

	if (prog_argc) {
		if (access(prog_argv[0], F_OK) < 0) {
			shell_error("%s: %s.", prog_argv[0], strerror(errno));
		} else {
			char **pa = calloc((size_t)prog_argc + 1, sizeof(*pa));
			size_t len = 1;
			char *line;

			/* The arguments as one line, for "Starting program:". */
			for (i = 1; i < prog_argc; i++)
				len += strlen(prog_argv[i]) + 1;
			line = malloc(len);
			if (line) {
				char *p = line;

				for (i = 1; i < prog_argc; i++) {
					size_t k = strlen(prog_argv[i]);

					if (i > 1)
						*p++ = ' ';
					memcpy(p, prog_argv[i], k);
					p += k;
				}
				*p = '\0';
				sh.run_args = line;
			}
			for (i = 0; pa && i < prog_argc; i++)
				pa[i] = prog_argv[i];
			if (!pa || !line)
				shell_error("out of memory");
			else if (ptd_session_set_program(sh.s, pa) < 0)
				shell_error("%s: %s", prog_argv[0], ptd_last_error(-ptde_invalid));
			else if (!batch)
				printf("Reading symbols from %s...\n", prog_argv[0]);
			free(pa);
		}
	}
	if (load_dir) {
		int lrc;

		ptd_clear_error();
		lrc = ptd_session_load(sh.s, load_dir);
		if (lrc < 0) {
			fprintf(stderr, "ptdbg: cannot load '%s': %s\n", load_dir, ptd_last_error(lrc));
			last_rc = -1;
			if (batch) {
				ptd_session_free(sh.s);
				shell_release(&sh);
				free(cmds);
				return 1;
			}
		} else {
			sh.pc.sym = ptd_session_symbols(sh.s);
			if (!batch)
				printf("Loaded the trace %s.\n", load_dir);
		}
	}
	if (pid_arg) {
		char cmd[64];

		snprintf(cmd, sizeof(cmd), "attach %s", pid_arg);
		sh.from_tty = !batch;
		last_rc = run_line(&sh, cmd, NULL);
	}

	/* -ex and -x in command-line order; gdb runs -ex with from_tty = !batch. */
	for (i = 0; i < ncmds && !sh.quit; i++) {
		sh.from_tty = !batch;
		if (cmds[i].is_file)
			last_rc = shell_source(&sh, cmds[i].text);
		else
			last_rc = run_line(&sh, cmds[i].text, NULL);
	}
	free(cmds);

	if (!batch && !sh.quit)
		interactive_loop(&sh);

	fflush(stdout);
	g_session = NULL;
	/* Kills a program we launched, detaches from one we attached to. */
	ptd_session_free(sh.s);
	shell_release(&sh);
	if (sh.quit)
		return sh.quit_code;
	return batch && last_rc < 0 ? 1 : 0;
}
