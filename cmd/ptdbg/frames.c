/*
 * info symbol: the ELF symbol gdb's minimal symbols give an address.
 * (All of the frames of a deep stack, shell_backtrace_all() and
 * shell_frames_all(), are in print.c, which ptdbg-report shares.)
 */
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ptdbg/ptdbg.h"
#include "shell.h"

/* The shared object holding @module (realpath'ed), as the dynamic linker
 * names it (gdb's objfile name), for info symbol. */
struct shlib_find {
	const char *want;
	char name[PATH_MAX];
	int n;
};

static void shlib_match(void *ctx, const struct ptd_shlib *l)
{
	struct shlib_find *f = ctx;
	char real[PATH_MAX];

	f->n++;
	if (!f->name[0] && l->path && realpath(l->path, real) && !strcmp(real, f->want))
		snprintf(f->name, sizeof(f->name), "%s", l->path);
}

/*
 * info symbol ADDR: the ELF symbol gdb's minimal symbols name ADDR by
 * (not the DWARF name frames and x show), its section and object:
 * "raise + 4 in section .text of /lib/x86_64-linux-gnu/libc.so.6".
 */
int shell_info_symbol(struct shell *sh, const char *args)
{
	struct ptd_symbol s;
	struct shlib_find f = { 0 };
	char sect[64], off[32] = "", real[PATH_MAX];
	enum expr_kind k;
	uint64_t addr;

	while (*args == ' ' || *args == '\t')
		args++;
	if (!*args)
		return shell_error("Argument required (address).");
	shell_sync(sh);
	if (shell_eval(sh, args, &addr, &k) < 0)
		return -1;
	if (!sh->pc.sym || ptd_symbols_minimal(sh->pc.sym, addr, &s, sect, sizeof(sect)) < 0 ||
	    !sect[0]) {
		ptd_clear_error();
		printf("No symbol matches %s.\n", args);
		return 0;
	}
	if (s.offset)
		snprintf(off, sizeof(off), " + %" PRIu64, s.offset);
	/* (gdb names the object only when there are several) */
	if (s.module && realpath(s.module, real)) {
		f.want = real;
		ptd_session_shlibs(sh->s, shlib_match, &f);
		ptd_clear_error();
	}
	if (f.n > 0)
		printf("%s%s in section %s of %s\n", s.name, off, sect, f.name[0] ? f.name : s.module);
	else
		printf("%s%s in section %s\n", s.name, off, sect);
	return 0;
}
