/*
 * info files (and its other name info target): the targets the program's
 * memory comes from, as gdb 13 describes them on Linux -- the symbol
 * file, the running process, the executable with its entry point, and
 * the allocated sections of the executable, of each shared library and
 * of the vDSO, with the addresses they are at in the running program.
 * The section tables are read from the ELF files themselves (the vDSO's
 * from the program's memory).
 */
#include <elf.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "shell.h"

/* Reads @n bytes at offset @off of an ELF image: 0 or -1. */
typedef int (*img_read_fn)(void *ctx, uint64_t off, void *buf, size_t n);

static int file_read(void *ctx, uint64_t off, void *buf, size_t n)
{
	int fd = *(int *)ctx;

	return pread(fd, buf, n, (off_t)off) == (ssize_t)n ? 0 : -1;
}

struct mem_img {
	struct shell *sh;
	uint64_t base;
};

static int mem_read(void *ctx, uint64_t off, void *buf, size_t n)
{
	struct mem_img *m = ctx;
	long got = ptd_session_read(m->sh->s, m->base + off, buf, n);

	ptd_clear_error();
	return got == (long)n ? 0 : -1;
}

static int read_ehdr(img_read_fn rd, void *ctx, Elf64_Ehdr *eh)
{
	if (rd(ctx, 0, eh, sizeof(*eh)) < 0 || memcmp(eh->e_ident, ELFMAG, SELFMAG) ||
	    eh->e_ident[EI_CLASS] != ELFCLASS64 || eh->e_shentsize != sizeof(Elf64_Shdr))
		return -1;
	return 0;
}

/* One line per allocated section of the image, its addresses moved by
 * @bias, "in WHERE" after it unless @where is NULL (the executable). */
static void print_sections(img_read_fn rd, void *ctx, uint64_t bias, const char *where)
{
	Elf64_Ehdr eh;
	Elf64_Shdr sh, strsh;
	unsigned shnum;

	if (read_ehdr(rd, ctx, &eh) < 0 || !eh.e_shoff)
		return;
	shnum = eh.e_shnum;
	if (shnum > 4096 || eh.e_shstrndx >= shnum ||
	    rd(ctx, eh.e_shoff + (uint64_t)eh.e_shstrndx * sizeof(sh), &strsh, sizeof(strsh)) < 0)
		return;
	for (unsigned i = 1; i < shnum; i++) {
		char name[128];
		size_t k;

		if (rd(ctx, eh.e_shoff + (uint64_t)i * sizeof(sh), &sh, sizeof(sh)) < 0)
			return;
		if (!(sh.sh_flags & SHF_ALLOC) || !sh.sh_size)
			continue;
		memset(name, 0, sizeof(name));
		if (sh.sh_name >= strsh.sh_size)
			continue;
		for (k = 0; k < sizeof(name) - 1; k++)
			if (rd(ctx, strsh.sh_offset + sh.sh_name + k, &name[k], 1) < 0 || !name[k])
				break;
		name[k] = 0;
		printf("\t0x%016" PRIx64 " - 0x%016" PRIx64 " is %s", sh.sh_addr + bias,
		       sh.sh_addr + bias + sh.sh_size, name);
		if (where)
			printf(" in %s", where);
		printf("\n");
	}
}

/* AT_ENTRY and AT_SYSINFO_EHDR of the running program (0 when not known) */
static void auxv_entries(struct shell *sh, uint64_t *entry, uint64_t *vdso)
{
	char path[64];
	uint64_t e[2];
	FILE *f;

	*entry = *vdso = 0;
	snprintf(path, sizeof(path), "/proc/%d/auxv", (int)ptd_session_pid(sh->s));
	f = fopen(path, "re");
	if (!f)
		return;
	while (fread(e, sizeof(e), 1, f) == 1 && e[0]) {
		if (e[0] == AT_ENTRY)
			*entry = e[1];
		else if (e[0] == AT_SYSINFO_EHDR)
			*vdso = e[1];
	}
	fclose(f);
}

struct libs {
	char **path;
	uint64_t *bias;
	int n;
};

static void collect_lib(void *ctx, const struct ptd_shlib *l)
{
	struct libs *c = ctx;
	char **np = realloc(c->path, (size_t)(c->n + 1) * sizeof(*np));
	uint64_t *nb;

	if (!np)
		return;
	c->path = np;
	nb = realloc(c->bias, (size_t)(c->n + 1) * sizeof(*nb));
	if (!nb)
		return;
	c->bias = nb;
	if ((c->path[c->n] = strdup(l->path)) != NULL)
		c->bias[c->n++] = l->bias;
}

static void lib_sections(const char *path, uint64_t bias)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return;
	print_sections(file_read, &fd, bias, path);
	close(fd);
}

/* The running process's part: its name, and the shared objects' sections
 * after the executable's (the dynamic linker's and the vDSO's first, in
 * the order gdb learns of them, then the libraries). */
static void process_head(struct shell *sh)
{
	struct ptd_thread_info th[256];
	int n = ptd_session_threads(sh->s, th, 256), i;
	char who[48];

	snprintf(who, sizeof(who), "process %d", (int)ptd_session_pid(sh->s));
	for (i = 0; n > 1 && i < n && i < 256; i++)
		if (th[i].current)
			snprintf(who, sizeof(who), "LWP %d", (int)th[i].tid);
	printf("Native process:\n\tUsing the running image of child %s.\n", who);
	printf("\tWhile running this, GDB does not access memory from...\n");
}

static void shared_sections(struct shell *sh, uint64_t vdso)
{
	struct libs c = { 0 };
	int i;

	ptd_clear_error();
	if (ptd_session_shlibs(sh->s, collect_lib, &c) < 0)
		ptd_clear_error();
	if (c.n)
		lib_sections(c.path[0], c.bias[0]);
	if (vdso) {
		struct mem_img m = { sh, vdso };
		char where[64];

		snprintf(where, sizeof(where), "system-supplied DSO at 0x%" PRIx64, vdso);
		print_sections(mem_read, &m, vdso, where);
	}
	for (i = 1; i < c.n; i++)
		lib_sections(c.path[i], c.bias[i]);
	for (i = 0; i < c.n; i++)
		free(c.path[i]);
	free(c.path);
	free(c.bias);
}

int shell_info_files(struct shell *sh, const char *args)
{
	const char *prog = ptd_session_offline(sh->s) ? ptd_session_offline_exe(sh->s)
						      : ptd_session_program(sh->s);
	int live = ptd_session_alive(sh->s) && !ptd_session_offline(sh->s);
	char *abs;
	uint64_t entry = 0, vdso = 0, bias = 0;
	Elf64_Ehdr eh;
	int fd;

	(void)args;
	if (!prog)
		return 0;
	abs = realpath(prog, NULL);
	if (abs)
		prog = abs;
	fd = open(prog, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || read_ehdr(file_read, &fd, &eh) < 0) {
		if (fd >= 0)
			close(fd);
		free(abs);
		return 0;
	}
	printf("Symbols from \"%s\".\n", prog);
	if (live) {
		process_head(sh);
		auxv_entries(sh, &entry, &vdso);
		/* a position-independent program is where the kernel put
		 * its entry point */
		if (eh.e_type == ET_DYN && entry)
			bias = entry - eh.e_entry;
	}
	printf("Local exec file:\n\t`%s', file type elf64-x86-64.\n", prog);
	printf("\tEntry point: 0x%" PRIx64 "\n", eh.e_entry + bias);
	print_sections(file_read, &fd, bias, NULL);
	close(fd);
	if (live)
		shared_sections(sh, vdso);
	free(abs);
	return 0;
}
