/*
 * generate-core-file [FILE] (gcore): the live program as an ELF core file
 * gdb (and ptdbg's readers of cores, if any) can load: the notes gdb's
 * linux_make_corefile_notes writes (NT_PRPSINFO; per thread, the
 * selected one first, NT_PRSTATUS, NT_FPREGSET and NT_X86_XSTATE; NT_AUXV;
 * NT_FILE) and a PT_LOAD per mapping with its contents (ptdbg's
 * breakpoint bytes never in them), as ptrace reads them.
 */
#include <elf.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/procfs.h>
#include <sys/user.h>
#include <unistd.h>

#include "shell.h"

#ifndef NT_X86_XSTATE
#define NT_X86_XSTATE 0x202
#endif
#ifndef NT_FILE
#define NT_FILE 0x46494c45
#endif

struct buf {
	uint8_t *p;
	size_t n, cap;
	int oom;
};

static void put(struct buf *b, const void *d, size_t n)
{
	if (b->oom)
		return;
	if (b->n + n > b->cap) {
		size_t cap = b->cap ? b->cap * 2 : 4096;
		uint8_t *np;

		while (cap < b->n + n)
			cap *= 2;
		np = realloc(b->p, cap);
		if (!np) {
			b->oom = 1;
			return;
		}
		b->p = np;
		b->cap = cap;
	}
	memcpy(b->p + b->n, d, n);
	b->n += n;
}

static void pad4(struct buf *b)
{
	static const uint8_t z[4];

	put(b, z, (4 - b->n % 4) % 4);
}

/* One ELF note: "CORE" (or "LINUX" for the kernel's own types) */
static void note(struct buf *b, const char *name, uint32_t type, const void *desc, size_t len)
{
	Elf64_Nhdr h = { (Elf64_Word)strlen(name) + 1, (Elf64_Word)len, type };

	put(b, &h, sizeof(h));
	put(b, name, strlen(name) + 1);
	pad4(b);
	put(b, desc, len);
	pad4(b);
}

struct map {
	uint64_t lo, hi, off;
	char perms[8];
	char path[512];
};

static struct map *read_maps(long pid, int *n)
{
	char path[64], line[1024];
	struct map *m = NULL;
	int cap = 0;
	FILE *f;

	*n = 0;
	snprintf(path, sizeof(path), "/proc/%ld/maps", pid);
	f = fopen(path, "re");
	if (!f)
		return NULL;
	while (fgets(line, sizeof(line), f)) {
		struct map x;
		int used = 0;
		unsigned long long lo, hi, off;

		memset(&x, 0, sizeof(x));
		if (sscanf(line, "%llx-%llx %7s %llx %*s %*s%n", &lo, &hi, x.perms, &off, &used) < 4)
			continue;
		x.lo = lo;
		x.hi = hi;
		x.off = off;
		{
			const char *p = line + used;
			size_t l;

			while (*p == ' ' || *p == '\t')
				p++;
			snprintf(x.path, sizeof(x.path), "%s", p);
			l = strlen(x.path);
			if (l && x.path[l - 1] == '\n')
				x.path[l - 1] = '\0';
		}
		if (*n == cap) {
			struct map *nm = realloc(m, sizeof(*m) * (size_t)(cap = cap ? cap * 2 : 64));

			if (!nm)
				break;
			m = nm;
		}
		m[(*n)++] = x;
	}
	fclose(f);
	return m;
}

/* The kernel's pseudo mappings a core leaves out (gdb does too) */
static int skip_map(const struct map *m)
{
	return !strcmp(m->path, "[vvar]") || !strcmp(m->path, "[vvar_vclock]") ||
	       !strcmp(m->path, "[vsyscall]") || m->perms[0] != 'r';
}

static void prstatus_of(struct shell *sh, pid_t tid, const struct user_regs_struct *r,
			struct elf_prstatus *ps)
{
	memset(ps, 0, sizeof(*ps));
	ps->pr_pid = tid;
	ps->pr_pgrp = getpgid(ptd_session_pid(sh->s));
	ps->pr_sid = getsid(ptd_session_pid(sh->s));
	memcpy(&ps->pr_reg, r, sizeof(*r) < sizeof(ps->pr_reg) ? sizeof(*r) : sizeof(ps->pr_reg));
	ps->pr_fpvalid = 1;
}

static void thread_notes(struct shell *sh, struct buf *notes, int num, pid_t tid)
{
	struct user_regs_struct r;
	struct user_fpregs_struct fp;
	struct elf_prstatus ps;
	int pc_only = 0;
	size_t xs = 4096;
	uint8_t *x = malloc(xs);

	if (ptd_session_select_thread(sh->s, num) == 0 && ptd_session_regs(sh->s, &r, &pc_only) == 0) {
		prstatus_of(sh, tid, &r, &ps);
		note(notes, "CORE", NT_PRSTATUS, &ps, sizeof(ps));
	}
	if (ptd_session_fpregs(sh->s, tid, &fp) == 0)
		note(notes, "CORE", NT_FPREGSET, &fp, sizeof(fp));
	if (x && ptd_session_xstate(sh->s, tid, x, &xs) == 0)
		note(notes, "LINUX", NT_X86_XSTATE, x, xs);
	free(x);
	ptd_clear_error();
}

int shell_cmd_gcore(struct shell *sh, const char *args)
{
	char file[4096], path[64], *argsbuf = NULL;
	struct ptd_thread_info *th = NULL;
	struct buf notes = { 0 }, files = { 0 };
	struct elf_prpsinfo pi;
	struct map *maps;
	int nmaps = 0, nth, cur = 0, nload = 0, rc = -1;
	long pid;
	FILE *f = NULL;
	size_t n;

	while (*args == ' ' || *args == '\t')
		args++;
	if (!ptd_session_alive(sh->s))
		return shell_error("The program is not being run.");
	if (ptd_session_replaying(sh->s))
		return shell_error("Cannot write a core file of the recorded past: the program's "
				   "memory is the present's (\"record goto end\" goes back there).");
	pid = (long)ptd_session_pid(sh->s);
	if (*args)
		snprintf(file, sizeof(file), "%s", args);
	else
		snprintf(file, sizeof(file), "core.%ld", pid);
	n = strlen(file);
	while (n && (file[n - 1] == ' ' || file[n - 1] == '\t'))
		file[--n] = '\0';
	maps = read_maps(pid, &nmaps);
	if (!maps)
		return shell_error("Can't create a corefile: cannot read /proc/%ld/maps", pid);
	nth = ptd_session_threads(sh->s, NULL, 0);
	th = nth > 0 ? calloc((size_t)nth, sizeof(*th)) : NULL;
	if (!th || ptd_session_threads(sh->s, th, nth) < nth) {
		free(maps);
		free(th);
		return shell_error("Can't create a corefile: no threads");
	}
	/* NT_PRPSINFO */
	memset(&pi, 0, sizeof(pi));
	pi.pr_sname = 't';
	pi.pr_state = 3;
	pi.pr_pid = (int)pid;
	pi.pr_ppid = (int)getpid();
	pi.pr_pgrp = (int)getpgid((pid_t)pid);
	pi.pr_sid = (int)getsid((pid_t)pid);
	pi.pr_uid = getuid();
	pi.pr_gid = getgid();
	{
		char comm[64] = "";
		FILE *c;

		snprintf(path, sizeof(path), "/proc/%ld/comm", pid);
		if ((c = fopen(path, "re"))) {
			if (fgets(comm, sizeof(comm), c))
				comm[strcspn(comm, "\n")] = '\0';
			fclose(c);
		}
		snprintf(pi.pr_fname, sizeof(pi.pr_fname), "%s", comm);
		snprintf(path, sizeof(path), "/proc/%ld/cmdline", pid);
		if ((c = fopen(path, "re"))) {
			size_t got = fread(pi.pr_psargs, 1, sizeof(pi.pr_psargs) - 1, c);

			for (size_t i = 0; i + 1 < got; i++)
				if (!pi.pr_psargs[i])
					pi.pr_psargs[i] = ' ';
			fclose(c);
		}
	}
	note(&notes, "CORE", NT_PRPSINFO, &pi, sizeof(pi));
	/* the threads, the selected one first */
	for (int i = 0; i < nth; i++)
		if (th[i].current)
			cur = i;
	thread_notes(sh, &notes, th[cur].num, th[cur].tid);
	for (int i = 0; i < nth; i++)
		if (i != cur)
			thread_notes(sh, &notes, th[i].num, th[i].tid);
	ptd_session_select_thread(sh->s, th[cur].num);
	/* NT_AUXV */
	{
		uint8_t aux[8192];
		FILE *a;

		snprintf(path, sizeof(path), "/proc/%ld/auxv", pid);
		if ((a = fopen(path, "re"))) {
			size_t got = fread(aux, 1, sizeof(aux), a);

			if (got)
				note(&notes, "CORE", NT_AUXV, aux, got);
			fclose(a);
		}
	}
	/* NT_FILE: count, page size, then start/end/offset (in pages) of
	 * each file mapping, then their names */
	{
		uint64_t count = 0, page = 4096;
		struct buf names = { 0 };

		for (int i = 0; i < nmaps; i++)
			if (maps[i].path[0] == '/')
				count++;
		put(&files, &count, 8);
		put(&files, &page, 8);
		for (int i = 0; i < nmaps; i++) {
			uint64_t v[3] = { maps[i].lo, maps[i].hi, maps[i].off / page };

			if (maps[i].path[0] != '/')
				continue;
			put(&files, v, sizeof(v));
			put(&names, maps[i].path, strlen(maps[i].path) + 1);
		}
		if (names.p)
			put(&files, names.p, names.n);
		free(names.p);
		note(&notes, "CORE", NT_FILE, files.p, files.n);
	}
	if (notes.oom || files.oom) {
		shell_error("out of memory");
		goto out;
	}
	for (int i = 0; i < nmaps; i++)
		nload++;
	f = fopen(file, "we");
	if (!f) {
		shell_error("Failed to open '%s' for output.", file);
		goto out;
	}
	{
		Elf64_Ehdr eh;
		Elf64_Phdr ph;
		uint64_t off = sizeof(eh) + sizeof(ph) * (uint64_t)(1 + nload), data;
		uint8_t *chunk = malloc(1 << 20);

		if (!chunk) {
			shell_error("out of memory");
			goto out;
		}
		memset(&eh, 0, sizeof(eh));
		memcpy(eh.e_ident, ELFMAG, SELFMAG);
		eh.e_ident[EI_CLASS] = ELFCLASS64;
		eh.e_ident[EI_DATA] = ELFDATA2LSB;
		eh.e_ident[EI_VERSION] = EV_CURRENT;
		eh.e_ident[EI_OSABI] = ELFOSABI_NONE;
		eh.e_type = ET_CORE;
		eh.e_machine = EM_X86_64;
		eh.e_version = EV_CURRENT;
		eh.e_phoff = sizeof(eh);
		eh.e_ehsize = sizeof(eh);
		eh.e_phentsize = sizeof(ph);
		eh.e_phnum = (Elf64_Half)(1 + nload);
		fwrite(&eh, sizeof(eh), 1, f);
		memset(&ph, 0, sizeof(ph));
		ph.p_type = PT_NOTE;
		ph.p_offset = off;
		ph.p_filesz = notes.n;
		ph.p_align = 4;
		fwrite(&ph, sizeof(ph), 1, f);
		data = (off + notes.n + 4095) & ~4095ull;
		for (int i = 0; i < nmaps; i++) {
			uint64_t size = maps[i].hi - maps[i].lo;

			memset(&ph, 0, sizeof(ph));
			ph.p_type = PT_LOAD;
			ph.p_vaddr = maps[i].lo;
			ph.p_memsz = size;
			ph.p_flags = (maps[i].perms[0] == 'r' ? PF_R : 0) |
				     (maps[i].perms[1] == 'w' ? PF_W : 0) |
				     (maps[i].perms[2] == 'x' ? PF_X : 0);
			ph.p_align = 4096;
			ph.p_offset = data;
			ph.p_filesz = skip_map(&maps[i]) ? 0 : size;
			data += ph.p_filesz;
			fwrite(&ph, sizeof(ph), 1, f);
		}
		fwrite(notes.p, 1, notes.n, f);
		/* the mappings' bytes, page-aligned after the notes */
		for (uint64_t p = off + notes.n; p < ((off + notes.n + 4095) & ~4095ull); p++)
			fputc(0, f);
		for (int i = 0; i < nmaps && !ferror(f); i++) {
			if (skip_map(&maps[i]))
				continue;
			for (uint64_t a = maps[i].lo; a < maps[i].hi;) {
				size_t want = maps[i].hi - a < (1u << 20) ? (size_t)(maps[i].hi - a) : (1u << 20);
				long got = ptd_session_read(sh->s, a, chunk, want);

				if (got < (long)want) /* (unreadable pages: zeros) */
					memset(chunk + (got > 0 ? got : 0), 0, want - (size_t)(got > 0 ? got : 0));
				fwrite(chunk, 1, want, f);
				a += want;
			}
		}
		ptd_clear_error();
		free(chunk);
	}
	if (ferror(f) || fclose(f) != 0) {
		f = NULL;
		shell_error("Failed to write corefile '%s': %s", file, strerror(errno));
		unlink(file);
		goto out;
	}
	f = NULL;
	printf("Saved corefile %s\n", file);
	rc = 0;
out:
	if (f) {
		fclose(f);
		unlink(file);
	}
	free(argsbuf);
	free(notes.p);
	free(files.p);
	free(maps);
	free(th);
	return rc;
}
