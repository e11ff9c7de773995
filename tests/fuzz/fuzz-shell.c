/*
 * libFuzzer target for what a user types into the ptdbg shell: the command
 * line parser (cmd/ptdbg/commands.c, abbreviations, /FMT suffixes,
 * locations, ranges, settings) and the expression evaluator
 * (src/values through cmd/ptdbg/values.c and expr.c).  Built by `make fuzz` with clang
 * -fsanitize=fuzzer,address,undefined; run by tests/integration/fuzz-shell.sh.
 *
 * The first byte of an input picks the session the lines run in:
 *   0  an empty one (no program);
 *   1  FUZZ_SHELL_PROG set as the program, not started (symbols, source
 *      lines and code bytes come from its ELF file);
 *   2  the trace bundle FUZZ_SHELL_BUNDLE loaded, as `ptdbg --load`: the
 *      history commands and reverse motions run with no process.
 * The rest is lines of commands, run in order in a fresh shell each time,
 * so that every input reproduces alone.
 *
 * No process is ever created or touched: fork, ptrace, kill,
 * process_vm_*, sched_setaffinity and waitpid are replaced at link time
 * (-Wl,--wrap) by versions that fail with EPERM, so `run`, `start`,
 * `attach PID`, `shell` and the rest take their error paths.  `source` and
 * `file` are skipped, as they would read any path named in the input (a
 * FIFO or a device can block), and so are `save`, which would write one,
 * and `cd`, which would move the process.  `record save DIR` writes below
 * the working directory only.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <unistd.h>

#include "decode/bundle.h"
#include "shell.h"
#include "util/error.h"

pid_t __wrap_fork(void);
long __wrap_ptrace(int req, ...);
int __wrap_kill(pid_t pid, int sig);
pid_t __wrap_waitpid(pid_t pid, int *status, int options);
int __wrap_sched_setaffinity(pid_t pid, size_t n, const cpu_set_t *set);
ssize_t __wrap_process_vm_readv(pid_t pid, const struct iovec *l, unsigned long nl,
				const struct iovec *r, unsigned long nr, unsigned long flags);
ssize_t __wrap_process_vm_writev(pid_t pid, const struct iovec *l, unsigned long nl,
				 const struct iovec *r, unsigned long nr, unsigned long flags);
int __wrap_ptd_bundle_save(const struct ptd_bundle *b, const char *dir);
int __real_ptd_bundle_save(const struct ptd_bundle *b, const char *dir);

pid_t __wrap_fork(void)
{
	errno = EPERM;
	return -1;
}

long __wrap_ptrace(int req, ...)
{
	(void)req;
	errno = EPERM;
	return -1;
}

int __wrap_kill(pid_t pid, int sig)
{
	(void)pid;
	(void)sig;
	errno = EPERM;
	return -1;
}

pid_t __wrap_waitpid(pid_t pid, int *status, int options)
{
	(void)pid;
	(void)status;
	(void)options;
	errno = ECHILD;
	return -1;
}

int __wrap_sched_setaffinity(pid_t pid, size_t n, const cpu_set_t *set)
{
	(void)pid;
	(void)n;
	(void)set;
	errno = EPERM;
	return -1;
}

ssize_t __wrap_process_vm_readv(pid_t pid, const struct iovec *l, unsigned long nl,
				const struct iovec *r, unsigned long nr, unsigned long flags)
{
	(void)pid, (void)l, (void)nl, (void)r, (void)nr, (void)flags;
	errno = EPERM;
	return -1;
}

ssize_t __wrap_process_vm_writev(pid_t pid, const struct iovec *l, unsigned long nl,
				 const struct iovec *r, unsigned long nr, unsigned long flags)
{
	(void)pid, (void)l, (void)nl, (void)r, (void)nr, (void)flags;
	errno = EPERM;
	return -1;
}

/* Saving is exercised, but only into the fuzzer's working directory. */
int __wrap_ptd_bundle_save(const struct ptd_bundle *b, const char *dir)
{
	if (!dir || dir[0] == '/' || strstr(dir, ".."))
		return -ptde_invalid;
	return __real_ptd_bundle_save(b, dir);
}

static const char *prog, *bundle;

static long read_mem(void *ctx, uint64_t addr, void *buf, size_t n)
{
	return shell_read(ctx, addr, buf, n);
}

static void on_notify(void *ctx, const char *msg)
{
	(void)ctx;
	(void)msg;
}

/* A nonempty prefix of a command name resolves to it (or is ambiguous). */
static int is_prefix(const char *w, size_t n, const char *name)
{
	return n && n <= strlen(name) && !strncmp(w, name, n);
}

static int skipped(const char *line)
{
	size_t n;

	while (*line == ' ' || *line == '\t')
		line++;
	n = strcspn(line, " \t/");
	/* (save breakpoints writes the file named, cd moves the process) */
	return is_prefix(line, n, "source") || is_prefix(line, n, "file") ||
	       is_prefix(line, n, "save") || is_prefix(line, n, "cd");
}

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	prog = getenv("FUZZ_SHELL_PROG");
	bundle = getenv("FUZZ_SHELL_BUNDLE");
	if (!prog || !bundle) {
		fprintf(stderr, "fuzz-shell: set FUZZ_SHELL_PROG and FUZZ_SHELL_BUNDLE\n");
		exit(2);
	}
	/* A stray SIGINT handler is main.c's business; confirm prompts read
	 * stdin, which must not block. */
	if (!freopen("/dev/null", "r", stdin))
		exit(2);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct shell *sh;
	char *text, *line, *next;
	int mode;

	if (!size)
		return 0;
	mode = data[0] % 3;
	text = malloc(size);
	if (!text)
		return 0;
	memcpy(text, data + 1, size - 1);
	text[size - 1] = '\0';

	sh = calloc(1, sizeof(*sh));
	if (!sh) {
		free(text);
		return 0;
	}
	sh->batch = 1;
	sh->confirm = 0;
	/* "while 1" runs forever in gdb too: bounded here */
	sh->loop_limit = 100;
	sh->insn_history_size = 10;
	sh->call_history_size = 10;
	sh->pc.out = stdout;
	sh->pc.read = read_mem;
	sh->pc.read_ctx = sh;
	sh->pc.gdb_errors = 1;
	sh->s = ptd_session_alloc();
	if (!sh->s)
		abort();
	ptd_session_set_notify(sh->s, on_notify, NULL);
	if (mode == 1) {
		char *argv[] = { (char *)prog, NULL };

		if (ptd_session_set_program(sh->s, argv) < 0)
			abort();
	} else if (mode == 2) {
		if (ptd_session_load(sh->s, bundle) < 0) {
			fprintf(stderr, "fuzz-shell: cannot load %s: %s\n", bundle, ptd_last_error(0));
			abort();
		}
		sh->pc.sym = ptd_session_symbols(sh->s);
	}
	/* Lines end at newlines; a NUL ends the text, as a C string would. */
	for (line = text; line && *line && !sh->quit; line = next) {
		int rep;

		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		if (skipped(line))
			continue;
		shell_execute(sh, line, &rep);
	}
	ptd_session_free(sh->s);
	shell_release(sh); /* run arguments and display expressions it owns */
	free(sh);
	free(text);
	return 0;
}
