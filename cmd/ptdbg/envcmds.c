/*
 * The shell's surroundings, as gdb 13 has them: set/show listsize (how
 * many lines `list` shows), pwd and cd (ptdbg's working directory, which
 * the programs it starts inherit), shell CMD and !CMD, and the
 * environment of the programs started from now on (set/unset/show
 * environment): ptdbg's own at first, then as changed here, handed to the
 * session for every run.
 */
#include <ctype.h>
#include <errno.h>
#include <signal.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ptdbg/ptdbg.h"
#include "shell.h"

extern char **environ;

static const char *ws(const char *p)
{
	while (*p && isspace((unsigned char)*p))
		p++;
	return p;
}

/* ---- listsize ---------------------------------------------------------------------------- */

/* 0: not set (gdb's 10), -1: unlimited */
static int listsize;

int shell_listsize(struct shell *sh)
{
	(void)sh;
	return listsize == 0 ? 10 : listsize < 0 ? INT_MAX / 4 : listsize;
}

int shell_set_listsize(struct shell *sh, const char *args)
{
	char *end;
	long v;

	(void)sh;
	args = ws(args);
	if (!*args)
		return shell_error("Argument required (integer to set it to, or \"unlimited\").");
	if (!strncmp(args, "unlimited", strlen(args)) && strlen(args) >= 1 &&
	    strlen(args) <= strlen("unlimited")) {
		listsize = -1;
		return 0;
	}
	errno = 0;
	v = strtol(args, &end, 0);
	while (isspace((unsigned char)*end))
		end++;
	if (end == args || *end) {
		/* (gdb evaluates an expression there) */
		size_t n = strcspn(args, " \t+-*/");

		return shell_error("No symbol \"%.*s\" in current context.", (int)n, args);
	}
	if (errno || v < -1 || v > INT_MAX)
		return shell_error("integer %s out of range", args);
	listsize = v <= 0 ? -1 : (int)v; /* 0 and -1: unlimited */
	return 0;
}

int shell_show_listsize(struct shell *sh, const char *args)
{
	(void)args;
	if (shell_listsize(sh) >= INT_MAX / 4)
		printf("Number of source lines gdb will list by default is unlimited.\n");
	else
		printf("Number of source lines gdb will list by default is %d.\n", shell_listsize(sh));
	return 0;
}

/* ---- pwd, cd, shell ---------------------------------------------------------------------- */

int shell_cmd_pwd(struct shell *sh, const char *args)
{
	char cwd[PATH_MAX];

	(void)sh;
	args = ws(args);
	if (*args)
		return shell_error("The \"pwd\" command does not take an argument: %s", args);
	if (!getcwd(cwd, sizeof(cwd)))
		return shell_error("Error finding name of working directory: %s", strerror(errno));
	printf("Working directory %s.\n", cwd);
	return 0;
}

int shell_cmd_cd(struct shell *sh, const char *args)
{
	char dir[PATH_MAX];
	const char *home = getenv("HOME");
	size_t n;

	args = ws(args);
	if (!*args)
		args = home ? home : "/";
	if (args[0] == '~' && (args[1] == '/' || !args[1]) && home)
		snprintf(dir, sizeof(dir), "%s%s", home, args + 1);
	else
		snprintf(dir, sizeof(dir), "%s", args);
	for (n = strlen(dir); n > 1 && isspace((unsigned char)dir[n - 1]); n--)
		dir[n - 1] = 0;
	if (chdir(dir) < 0)
		return shell_error("%s: %s.", dir, strerror(errno));
	if (sh->from_tty)
		return shell_cmd_pwd(sh, "");
	return 0;
}

/* shell CMD, !CMD: /bin/sh -c CMD (an interactive shell without CMD), its
 * output straight to the terminal */
static void shell_exit_status(struct shell *sh, int status);

int shell_cmd_shell(struct shell *sh, const char *args)
{
	const char *shell = getenv("SHELL");
	int status;
	pid_t pid;

	args = ws(args);
	if (!shell || !*shell)
		shell = "/bin/sh";
	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid < 0)
		return shell_error("cannot run %s: %s", shell, strerror(errno));
	if (pid == 0) {
		if (*args)
			execl(shell, shell, "-c", args, (char *)NULL);
		else
			execl(shell, shell, (char *)NULL);
		fprintf(stderr, "Cannot execute %s: %s\n", shell, strerror(errno));
		_exit(0177);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return shell_error("cannot wait for %s: %s", shell, strerror(errno));
	shell_exit_status(sh, status);
	return 0;
}

/* gdb's $_shell_exitcode (or $_shell_exitsignal) after shell and pipe */
static void shell_exit_status(struct shell *sh, int status)
{
	if (WIFEXITED(status))
		shell_set_convenience(sh, "_shell_exitcode", WEXITSTATUS(status));
	else if (WIFSIGNALED(status))
		shell_set_convenience(sh, "_shell_exitsignal", WTERMSIG(status));
}

static void pipe_nothing(int sig)
{
	(void)sig;
}

/*
 * pipe [COMMAND] | SHELL_COMMAND (also "| ..."), pipe -d DELIM COMMAND
 * DELIM SHELL_COMMAND: COMMAND's output goes to SHELL_COMMAND's input;
 * without COMMAND the line typed before runs again.  Errors stay on
 * stderr, as gdb's.
 */
int shell_cmd_pipe(struct shell *sh, const char *args)
{
	const char *shell = getenv("SHELL"), *p = ws(args), *delim = "|", *d, *sc;
	char dbuf[64], *cmd;
	struct sigaction sa, old;
	int fds[2], saved, status, rc;
	size_t n;
	pid_t pid;

	if (!strncmp(p, "-d", 2) && (!p[2] || isspace((unsigned char)p[2]))) {
		p = ws(p + 2);
		n = strcspn(p, " \t");
		if (!n)
			return shell_error("-d requires an argument");
		snprintf(dbuf, sizeof(dbuf), "%.*s", (int)n, p);
		delim = dbuf;
		p = ws(p + n);
	}
	d = strstr(p, delim);
	if (!d) {
		if (!*p)
			return shell_error("Missing COMMAND");
		return shell_error("Missing delimiter before SHELL_COMMAND");
	}
	sc = ws(d + strlen(delim));
	if (!*sc)
		return shell_error("Missing SHELL_COMMAND");
	n = (size_t)(d - p);
	while (n && isspace((unsigned char)p[n - 1]))
		n--;
	if (!n && !sh->prev_line)
		return shell_error("No previous command to relaunch");
	cmd = n ? strndup(p, n) : strdup(sh->prev_line);
	if (!cmd)
		return shell_error("out of memory");
	if (!n)
		sh->relaunched = 1;
	if (!shell || !*shell)
		shell = "/bin/sh";
	fflush(stdout);
	fflush(stderr);
	if (pipe2(fds, O_CLOEXEC) < 0) {
		free(cmd);
		return shell_error("cannot make a pipe: %s", strerror(errno));
	}
	pid = fork();
	if (pid < 0) {
		close(fds[0]);
		close(fds[1]);
		free(cmd);
		return shell_error("cannot run %s: %s", shell, strerror(errno));
	}
	if (pid == 0) {
		dup2(fds[0], 0);
		execl(shell, shell, "-c", sc, (char *)NULL);
		fprintf(stderr, "Cannot execute %s: %s\n", shell, strerror(errno));
		_exit(0177);
	}
	close(fds[0]);
	/* (a SHELL_COMMAND that stops reading, as head does: writes fail,
	 * ptdbg goes on; a handler, not SIG_IGN, which programs launched
	 * meanwhile would inherit) */
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = pipe_nothing;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGPIPE, &sa, &old);
	saved = fcntl(1, F_DUPFD_CLOEXEC, 3);
	dup2(fds[1], 1);
	close(fds[1]);
	{
		/* (the command run has no line before it: a pipe in it
		 * cannot run this one again) */
		const char *prev = sh->prev_line;

		sh->prev_line = NULL;
		rc = shell_execute(sh, cmd, NULL);
		sh->prev_line = prev;
	}
	fflush(stdout);
	if (ferror(stdout)) /* (SHELL_COMMAND stopped reading: gdb's words) */
		fprintf(stderr, "shell command \"%s\" failed: %s\n", sc, strerror(EPIPE));
	clearerr(stdout);
	if (saved >= 0) {
		dup2(saved, 1);
		close(saved);
	} else {
		close(1);
	}
	sigaction(SIGPIPE, &old, NULL);
	free(cmd);
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return shell_error("cannot wait for %s: %s", shell, strerror(errno));
	shell_exit_status(sh, status);
	return rc;
}

/* ---- environment ------------------------------------------------------------------------- */

/* The programs' environment once changed here (NULL: ptdbg's own). */
static char **env;
static int nenv;

static int env_init(void)
{
	int n = 0;

	if (env)
		return 0;
	while (environ && environ[n])
		n++;
	env = calloc((size_t)n + 1, sizeof(*env));
	if (!env)
		return -1;
	for (int i = 0; i < n; i++)
		if (!(env[i] = strdup(environ[i])))
			return -1;
	nenv = n;
	return 0;
}

static int env_find(const char *var)
{
	size_t n = strlen(var);

	for (int i = 0; i < nenv; i++)
		if (!strncmp(env[i], var, n) && env[i][n] == '=')
			return i;
	return -1;
}

static int env_apply(struct shell *sh)
{
	int rc = ptd_session_set_environment(sh->s, env);

	return rc < 0 ? shell_error("%s", ptd_last_error(rc)) : 0;
}

static int env_set(struct shell *sh, const char *var, size_t vlen, const char *val)
{
	char name[256], *e;
	int i;

	if (env_init() < 0)
		return shell_error("out of memory");
	snprintf(name, sizeof(name), "%.*s", (int)vlen, var);
	e = malloc(strlen(name) + strlen(val) + 2);
	if (!e)
		return shell_error("out of memory");
	sprintf(e, "%s=%s", name, val);
	i = env_find(name);
	if (i >= 0) {
		free(env[i]);
		env[i] = e;
	} else {
		char **nv = realloc(env, sizeof(*env) * ((size_t)nenv + 2));

		if (!nv) {
			free(e);
			return shell_error("out of memory");
		}
		env = nv;
		env[nenv++] = e;
		env[nenv] = NULL;
	}
	return env_apply(sh);
}

/* set environment VAR [=] VALUE, as gdb's set_environment_command splits it */
int shell_set_environment(struct shell *sh, const char *arg)
{
	const char *p, *val;
	int nullset = 0;

	arg = ws(arg);
	if (!*arg)
		return shell_error("Argument required (environment variable and value).");
	p = strchr(arg, '=');
	val = strchr(arg, ' ');
	if (p && val) {
		/* a blank before the '=': past the blanks, to the '=' or the
		 * value's start */
		if (p > val)
			while (*val == ' ')
				val++;
		if (p > val)
			p = val - 1;
	} else if (val && !p) {
		p = val;
	}
	if (p == arg)
		return shell_error("Argument required (environment variable to set).");
	if (!p || !p[1]) {
		nullset = 1;
		if (!p)
			p = arg + strlen(arg);
		val = "";
	} else {
		val = p + 1;
		while (*val == ' ' || *val == '\t')
			val++;
	}
	while (p != arg && (p[-1] == ' ' || p[-1] == '\t'))
		p--;
	if (nullset)
		printf("Setting environment variable \"%.*s\" to null value.\n", (int)(p - arg), arg);
	return env_set(sh, arg, (size_t)(p - arg), val);
}

int shell_unset_environment(struct shell *sh, const char *args)
{
	char name[256];
	size_t n;
	int i;

	args = ws(args);
	if (env_init() < 0)
		return shell_error("out of memory");
	if (!*args) {
		/* (gdb asks first at a terminal) */
		if (sh->from_tty && !shell_query(sh, "Delete all environment variables? "))
			return 0;
		for (i = 0; i < nenv; i++)
			free(env[i]);
		nenv = 0;
		env[0] = NULL;
		return env_apply(sh);
	}
	snprintf(name, sizeof(name), "%s", args);
	for (n = strlen(name); n && isspace((unsigned char)name[n - 1]); n--)
		name[n - 1] = 0;
	i = env_find(name);
	if (i >= 0) {
		free(env[i]);
		memmove(&env[i], &env[i + 1], sizeof(*env) * (size_t)(nenv - i));
		nenv--;
	}
	return env_apply(sh);
}

int shell_show_environment(struct shell *sh, const char *args)
{
	char name[256];
	size_t n;
	int i;

	(void)sh;
	args = ws(args);
	if (env_init() < 0)
		return shell_error("out of memory");
	if (!*args) {
		for (i = 0; i < nenv; i++)
			printf("%s\n", env[i]);
		return 0;
	}
	snprintf(name, sizeof(name), "%s", args);
	for (n = strlen(name); n && isspace((unsigned char)name[n - 1]); n--)
		name[n - 1] = 0;
	i = env_find(name);
	if (i < 0)
		printf("Environment variable \"%s\" not defined.\n", name);
	else
		printf("%s = %s\n", name, env[i] + strlen(name) + 1);
	return 0;
}

/* unset environment [VAR] (gdb's only unset command) */
int shell_cmd_unset(struct shell *sh, const char *args)
{
	size_t wl;

	args = ws(args);
	wl = strcspn(args, " \t");
	if (!wl)
		return shell_error("\"unset\" must be followed by the name of an unset subcommand.");
	if (wl > strlen("environment") || strncmp(args, "environment", wl))
		return shell_error("Undefined unset command: \"%.*s\".  Try \"help unset\".", (int)wl,
				   args);
	return shell_unset_environment(sh, args + wl);
}
