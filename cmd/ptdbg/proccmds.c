/*
 * info proc [mappings|cmdline|cwd|exe|stat|status|all] [PID] and info
 * inferiors, in gdb 13's words: what /proc says of the program (or of
 * any process by its pid).
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "shell.h"
#include "status.h"

static const char *skip_ws(const char *p)
{
	while (*p && isspace((unsigned char)*p))
		p++;
	return p;
}

/* The whole of /proc/PID/NAME (NUL-terminated, *@len bytes), or NULL
 * with gdb's warning. */
static char *read_proc(long pid, const char *name, size_t *len)
{
	char path[64], *buf = NULL;
	size_t n = 0, cap = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%ld/%s", pid, name);
	f = fopen(path, "re");
	if (!f) {
		fprintf(stderr, "warning: unable to open /proc file '%s'\n", path);
		return NULL;
	}
	for (;;) {
		size_t got;

		if (n + 4096 + 1 > cap) {
			char *nb = realloc(buf, cap = (n + 4096 + 1) * 2);

			if (!nb) {
				free(buf);
				fclose(f);
				return NULL;
			}
			buf = nb;
		}
		got = fread(buf + n, 1, 4096, f);
		n += got;
		if (got < 4096)
			break;
	}
	fclose(f);
	buf[n] = '\0';
	if (len)
		*len = n;
	return buf;
}

static void show_link(long pid, const char *name)
{
	char path[64], target[PATH_MAX];
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%ld/%s", pid, name);
	n = readlink(path, target, sizeof(target) - 1);
	if (n < 0) {
		fprintf(stderr, "warning: unable to read link '%s'\n", path);
		return;
	}
	target[n] = '\0';
	printf("%s = '%s'\n", name, target);
}

static void show_cmdline(long pid)
{
	size_t n, i;
	char *b = read_proc(pid, "cmdline", &n);

	if (!b)
		return;
	/* the arguments, NUL-separated, one space between them */
	while (n && b[n - 1] == '\0')
		n--;
	for (i = 0; i < n; i++)
		if (b[i] == '\0')
			b[i] = ' ';
	b[n] = '\0';
	printf("cmdline = '%s'\n", b);
	free(b);
}

static void show_mappings(long pid)
{
	char *b = read_proc(pid, "maps", NULL), *line, *save = NULL;

	if (!b)
		return;
	printf("Mapped address spaces:\n\n");
	printf("  %18s %18s %10s %10s  %-5s  %s\n", "Start Addr", "End Addr", "Size", "Offset",
	       "Perms", "objfile");
	for (line = strtok_r(b, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		unsigned long long lo, hi, off;
		char perms[8], file[PATH_MAX + 64] = "";
		char a[32], e[32], s[32], o[32];
		int used = 0;

		if (sscanf(line, "%llx-%llx %7s %llx %*s %*s%n", &lo, &hi, perms, &off, &used) < 4)
			continue;
		snprintf(file, sizeof(file), "%s", skip_ws(line + used));
		snprintf(a, sizeof(a), "0x%llx", lo);
		snprintf(e, sizeof(e), "0x%llx", hi);
		snprintf(s, sizeof(s), "0x%llx", hi - lo);
		snprintf(o, sizeof(o), "0x%llx", off);
		printf("  %18s %18s %10s %10s  %-5s  %s\n", a, e, s, o, perms, file);
	}
	free(b);
}

/* gdb prints every number of /proc/PID/stat read as unsigned (so -1 is
 * 18446744073709551615); flags and addresses in hex. */
static void show_stat(long pid)
{
	static const struct {
		const char *label;
		int hex;
	} f[] = {
		{ "State: %s\n", 0 }, /* (3: its letter) */
		{ "Parent process: %s\n", 0 },
		{ "Process group: %s\n", 0 },
		{ "Session id: %s\n", 0 },
		{ "TTY: %s\n", 0 },
		{ "TTY owner process group: %s\n", 0 },
		{ "Flags: %s\n", 1 },
		{ "Minor faults (no memory page): %s\n", 0 },
		{ "Minor faults, children: %s\n", 0 },
		{ "Major faults (memory page faults): %s\n", 0 },
		{ "Major faults, children: %s\n", 0 },
		{ "utime: %s\n", 0 },
		{ "stime: %s\n", 0 },
		{ "utime, children: %s\n", 0 },
		{ "stime, children: %s\n", 0 },
		{ "jiffies remaining in current time slice: %s\n", 0 },
		{ "'nice' value: %s\n", 0 },
		{ "jiffies until next timeout: %s\n", 0 },
		{ "jiffies until next SIGALRM: %s\n", 0 },
		{ "start time (jiffies since system boot): %s\n", 0 },
		{ "Virtual memory size: %s\n", 0 },
		{ "Resident set size: %s\n", 0 },
		{ "rlim: %s\n", 0 },
		{ "Start of text: %s\n", 1 },
		{ "End of text: %s\n", 1 },
		{ "Start of stack: %s\n", 1 },
	};
	char *b = read_proc(pid, "stat", NULL), *open, *close, *p, *end;
	size_t i;

	if (!b)
		return;
	open = strchr(b, '(');
	close = strrchr(b, ')');
	if (!open || !close || close < open) {
		free(b);
		return;
	}
	*open = '\0';
	*close = '\0';
	printf("Process: %llu\n", strtoull(b, NULL, 10));
	printf("Exec file: %s\n", open + 1);
	p = (char *)skip_ws(close + 1);
	for (i = 0; i < sizeof(f) / sizeof(f[0]) && *p; i++) {
		char v[40];

		if (i == 0) {
			snprintf(v, sizeof(v), "%c", *p);
			p++;
		} else {
			unsigned long long x;

			errno = 0;
			x = strtoull(p, &end, 10);
			if (end == p)
				break;
			p = end;
			snprintf(v, sizeof(v), f[i].hex ? "0x%llx" : "%llu", x);
		}
		printf(f[i].label, v);
		p = (char *)skip_ws(p);
	}
	free(b);
}

static void show_status(long pid)
{
	char *b = read_proc(pid, "status", NULL);

	if (!b)
		return;
	fputs(b, stdout);
	free(b);
}

int shell_info_proc(struct shell *sh, const char *args)
{
	enum { CMDLINE = 1, CWD = 2, EXE = 4, MAPS = 8, STAT = 16, STATUS = 32 };
	static const struct {
		const char *name;
		int what;
	} sub[] = {
		{ "mappings", MAPS },
		{ "cmdline", CMDLINE },
		{ "cwd", CWD },
		{ "exe", EXE },
		{ "stat", STAT },
		{ "status", STATUS },
		{ "all", CMDLINE | CWD | EXE | MAPS | STATUS | STAT },
	};
	const char *p = skip_ws(args);
	int what = CMDLINE | CWD | EXE;
	long pid = 0;
	size_t i, n;

	/* a subcommand (any unambiguous prefix), then a pid */
	n = strcspn(p, " \t");
	if (n && !isdigit((unsigned char)*p)) {
		int found = -1, count = 0;

		for (i = 0; i < sizeof(sub) / sizeof(sub[0]); i++)
			if (!strncmp(p, sub[i].name, n)) {
				if (strlen(sub[i].name) == n) {
					found = (int)i;
					count = 1;
					break;
				}
				found = (int)i;
				count++;
			}
		if (count == 1) {
			what = sub[found].what;
			p = skip_ws(p + n);
		} else if (count > 1) {
			return shell_error("Ambiguous info proc command \"%.*s\".", (int)n, p);
		}
	}
	if (*p) {
		char *end;

		errno = 0;
		pid = strtol(p, &end, 10);
		if (!isdigit((unsigned char)*p) || errno || pid <= 0)
			return shell_error("Too many parameters: %s", p);
		if (*skip_ws(end)) /* (gdb names what follows the pid) */
			return shell_error("Too many parameters: %s", skip_ws(end));
	} else {
		if (!ptd_session_alive(sh->s))
			return shell_error("No current process: you must name one.");
		pid = (long)ptd_session_pid(sh->s);
	}
	printf("process %ld\n", pid);
	if (what & CMDLINE)
		show_cmdline(pid);
	if (what & CWD)
		show_link(pid, "cwd");
	if (what & EXE)
		show_link(pid, "exe");
	if (what & MAPS)
		show_mappings(pid);
	if (what & STATUS)
		show_status(pid);
	if (what & STAT)
		show_stat(pid);
	return 0;
}

int shell_info_inferiors(struct shell *sh, const char *args)
{
	const char *prog = ptd_session_program(sh->s);
	char desc[40] = "<null>", *abs = prog ? realpath(prog, NULL) : NULL;

	(void)args;
	if (ptd_session_alive(sh->s))
		snprintf(desc, sizeof(desc), "process %d", (int)ptd_session_pid(sh->s));
	printf("  %-3s  %-17s %-20s %-17s \n", "Num", "Description", "Connection", "Executable");
	printf("* %-3d  %-17s %-20s %-17s \n", 1, desc, ptd_session_alive(sh->s) ? "1 (native)" : "",
	       abs ? abs : prog ? prog : "");
	free(abs);
	return 0;
}
