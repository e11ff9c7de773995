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

/* gdb's names and descriptions of the auxiliary vector's entries, and
 * how it shows each value: a number, an address, or an address with the
 * string there. */
enum { AUXV_DEC, AUXV_HEX, AUXV_STR };
static const struct auxv_kind {
	unsigned long type;
	const char *name, *desc;
	int fmt;
} auxv_kinds[] = {
	{ 0, "AT_NULL", "End of vector", AUXV_HEX },
	{ 1, "AT_IGNORE", "Entry should be ignored", AUXV_HEX },
	{ 2, "AT_EXECFD", "File descriptor of program", AUXV_DEC },
	{ 3, "AT_PHDR", "Program headers for program", AUXV_HEX },
	{ 4, "AT_PHENT", "Size of program header entry", AUXV_DEC },
	{ 5, "AT_PHNUM", "Number of program headers", AUXV_DEC },
	{ 6, "AT_PAGESZ", "System page size", AUXV_DEC },
	{ 7, "AT_BASE", "Base address of interpreter", AUXV_HEX },
	{ 8, "AT_FLAGS", "Flags", AUXV_HEX },
	{ 9, "AT_ENTRY", "Entry point of program", AUXV_HEX },
	{ 10, "AT_NOTELF", "Program is not ELF", AUXV_DEC },
	{ 11, "AT_UID", "Real user ID", AUXV_DEC },
	{ 12, "AT_EUID", "Effective user ID", AUXV_DEC },
	{ 13, "AT_GID", "Real group ID", AUXV_DEC },
	{ 14, "AT_EGID", "Effective group ID", AUXV_DEC },
	{ 15, "AT_PLATFORM", "String identifying platform", AUXV_STR },
	{ 16, "AT_HWCAP", "Machine-dependent CPU capability hints", AUXV_HEX },
	{ 17, "AT_CLKTCK", "Frequency of times()", AUXV_DEC },
	{ 18, "AT_FPUCW", "Used FPU control word", AUXV_DEC },
	{ 19, "AT_DCACHEBSIZE", "Data cache block size", AUXV_DEC },
	{ 20, "AT_ICACHEBSIZE", "Instruction cache block size", AUXV_DEC },
	{ 21, "AT_UCACHEBSIZE", "Unified cache block size", AUXV_DEC },
	{ 22, "AT_IGNOREPPC", "Entry should be ignored", AUXV_DEC },
	{ 23, "AT_SECURE", "Boolean, was exec setuid-like?", AUXV_DEC },
	{ 24, "AT_BASE_PLATFORM", "String identifying base platform", AUXV_STR },
	{ 25, "AT_RANDOM", "Address of 16 random bytes", AUXV_HEX },
	{ 26, "AT_HWCAP2", "Extension of AT_HWCAP", AUXV_HEX },
	{ 31, "AT_EXECFN", "File name of executable", AUXV_STR },
	{ 32, "AT_SYSINFO", "Special system info/entry points", AUXV_HEX },
	{ 33, "AT_SYSINFO_EHDR", "System-supplied DSO's ELF header", AUXV_HEX },
	{ 34, "AT_L1I_CACHESHAPE", "L1 Instruction cache information", AUXV_HEX },
	{ 35, "AT_L1D_CACHESHAPE", "L1 Data cache information", AUXV_HEX },
	{ 36, "AT_L2_CACHESHAPE", "L2 cache information", AUXV_HEX },
	{ 37, "AT_L3_CACHESHAPE", "L3 cache information", AUXV_HEX },
	{ 40, "AT_L1I_CACHESIZE", "L1 Instruction cache size", AUXV_HEX },
	{ 41, "AT_L1I_CACHEGEOMETRY", "L1 Instruction cache geometry", AUXV_HEX },
	{ 42, "AT_L1D_CACHESIZE", "L1 Data cache size", AUXV_HEX },
	{ 43, "AT_L1D_CACHEGEOMETRY", "L1 Data cache geometry", AUXV_HEX },
	{ 44, "AT_L2_CACHESIZE", "L2 cache size", AUXV_HEX },
	{ 45, "AT_L2_CACHEGEOMETRY", "L2 cache geometry", AUXV_HEX },
	{ 46, "AT_L3_CACHESIZE", "L3 cache size", AUXV_HEX },
	{ 47, "AT_L3_CACHEGEOMETRY", "L3 cache geometry", AUXV_HEX },
	{ 51, "AT_MINSIGSTKSZ", "Minimum stack size for signal delivery", AUXV_HEX },
};

/* The NUL-terminated string at @addr in the program, quoted as gdb's
 * print does (at most 200 characters, "..." after a longer one). */
static void auxv_string(struct shell *sh, uint64_t addr)
{
	unsigned char c;
	int n;

	printf(" \"");
	for (n = 0; n < 200; n++) {
		if (ptd_session_read(sh->s, addr + (uint64_t)n, &c, 1) != 1 || !c)
			break;
		if (c == '"' || c == '\\')
			printf("\\%c", c);
		else if (isprint(c))
			putchar(c);
		else
			printf("\\%03o", c);
	}
	ptd_clear_error();
	printf("\"");
	if (n == 200 && ptd_session_read(sh->s, addr + 200, &c, 1) == 1 && c)
		printf("...");
	ptd_clear_error();
}

/* info auxv: the program's auxiliary vector (/proc/PID/auxv), an entry
 * a line as gdb 13 shows them; arguments are ignored, as gdb does. */
int shell_info_auxv(struct shell *sh, const char *args)
{
	char path[64];
	uint64_t e[2];
	FILE *f;

	(void)args;
	if (!ptd_session_alive(sh->s) || ptd_session_offline(sh->s)) {
		printf("The program has no auxiliary information now.\n");
		return 0;
	}
	snprintf(path, sizeof(path), "/proc/%d/auxv", (int)ptd_session_pid(sh->s));
	f = fopen(path, "re");
	if (!f)
		return shell_error("No auxiliary vector found, or failed reading it.");
	while (fread(e, sizeof(e), 1, f) == 1) {
		const struct auxv_kind *k = NULL;
		char num[24];

		for (size_t i = 0; i < sizeof(auxv_kinds) / sizeof(auxv_kinds[0]); i++)
			if (auxv_kinds[i].type == e[0])
				k = &auxv_kinds[i];
		snprintf(num, sizeof(num), "%" PRIu64, e[0]);
		printf("%-4s %-20s %-30s ", num, k ? k->name : "???", k ? k->desc : "");
		if (k && k->fmt == AUXV_DEC) {
			printf("%" PRIu64, e[1]);
		} else {
			printf("0x%" PRIx64, e[1]);
			if (k && k->fmt == AUXV_STR)
				auxv_string(sh, e[1]);
		}
		printf("\n");
		if (!e[0])
			break;
	}
	fclose(f);
	return 0;
}
