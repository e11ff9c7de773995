/*
 * Symbols and source lines (libdwfl) for a live process or a set of ELF
 * files at given addresses.
 *
 * This file owns the Dwfl session and three caches built lazily from it,
 * because the replay and listing code ask per instruction and libdwfl's
 * own lookups (a linear symbol scan, a per-CU search) are too slow for
 * that: a sorted symbol table over all modules (functions and objects,
 * plus synthetic "name@plt" and "name@got.plt" entries as gdb shows
 * them), a sorted line-table row array per module, and the text of source
 * files.  All of them are dropped by ptd_symbols_refresh(), which is also
 * when the strings handed out become invalid.
 *
 * Answers follow what gdb 13 does on x86-64, checked against gdb itself
 * ("break fn", "break file:line", "info line *addr", "disassemble") on
 * gcc and clang programs at -O0..-O3, -Os, -Og, with and without frame
 * pointers and CET:
 *  - the line table keeps the rows gdb keeps (line-0 rows dropped, a row
 *    repeating its line dropped when that line has discriminators, rows
 *    at a sequence end's address or where another file's rows start
 *    dropped), so a pc's line and [lo, hi) are gdb's;
 *  - a function's breakpoint address: in a gcc CU compiled with
 *    optimization (it has location lists) the entry; otherwise after
 *    "[endbr64] push %rbp; mov %rsp,%rbp", moved to the next row when that
 *    ends inside a row; in a clang CU the second statement row;
 *  - symbol names: the best-bound symbol at an address, sizeless data
 *    labels never, versions stripped, PLT and GOT slots synthesized.
 */
#include "symbols/symbols.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/error.h"

struct sym_ent {
	uint64_t start, size;
	const char *name;    /* demangled for C++ ("thrower(int)"), as gdb shows it */
	const char *mangled; /* the ELF name when it was demangled, or NULL */
	Dwfl_Module *mod;
	int rank;       /* binding and type, for lookups by name */
	unsigned shndx; /* ELF section, to bound sizeless symbols */
	int compat;     /* a non-default version ("step@GLIBC_2.2.5") */
	/* The DWARF function at @start (gdb names code by it before the ELF
	 * symbols): dw_state 0 not looked up yet, 1 found, 2 none; its entry,
	 * the range [dw_lo, dw_hi) of it that holds @start, its name. */
	int dw_state;
	uint64_t dw_entry, dw_lo, dw_hi;
	const char *dw_name, *dw_mangled;
};

struct row {
	uint64_t addr;
	const char *file;
	int line;
	uint8_t is_stmt, end_seq;
	uint32_t seq; /* original order, keeps equal addresses stable */
};

struct modlines {
	Dwfl_Module *mod;
	uint64_t lo, hi; /* module address range */
	struct row *rows;
	size_t n;
};

struct srcfile {
	char *path;
	char *text;	/* whole file, newlines replaced by NULs */
	char **lines;	/* lines[i] = line i + 1 */
	int nlines;
	int missing;
};

struct ptd_symbols {
	Dwfl *dwfl;
	Dwfl_Callbacks cb;
	char *debuginfo_path;
	pid_t pid;
	char *main_path; /* the executable (preferred for names) */

	struct sym_ent *syms; /* by address, the one naming each address */
	size_t nsyms;
	struct sym_ent *all; /* every symbol, for lookups by name (any alias) */
	size_t nall;
	int syms_built;
	char **plt_names; /* owned strings of synthetic symbols */
	size_t nplt_names, cplt_names;
	/* [lo, hi) of every .plt and .plt.sec (gdb's in_plt_section) */
	uint64_t (*plt_secs)[2];
	size_t nplt_secs, cplt_secs;

	struct modlines *ml;
	size_t nml, cml;
	struct modlines *last_ml;

	struct srcfile *src;
	size_t nsrc, csrc;

	/* DW_AT_comp_dir of the CUs seen, for gdb's file name display */
	char **compdirs;
	size_t ncompdirs;
	int compdirs_scanned; /* every CU's comp_dir was noted */

	/* ptd__symbols_inline_chain() per pc: steps ask for every
	 * instruction, mostly the same few pcs of a loop. */
	struct icache_ent *icache;
};

#define ICACHE_N 1024
struct icache_ent {
	uint64_t pc;
	int valid;
	int n;
	struct ptd_iblock b[PTD_ICHAIN_MAX];
};

static void note_compdir(struct ptd_symbols *s, Dwarf_Die *cu)
{
	Dwarf_Attribute attr;
	const char *cd = dwarf_formstring(dwarf_attr(cu, DW_AT_comp_dir, &attr));
	char **n;

	if (!cd || !*cd)
		return;
	for (size_t i = 0; i < s->ncompdirs; i++)
		if (!strcmp(s->compdirs[i], cd))
			return;
	n = realloc(s->compdirs, (s->ncompdirs + 1) * sizeof(*n));
	if (!n)
		return;
	s->compdirs = n;
	if ((n[s->ncompdirs] = strdup(cd)) != NULL)
		s->ncompdirs++;
}

/* dwfl_getmodules callback: one module at a time. */
static int first_mod(Dwfl_Module *m, void **ud, const char *name, Dwarf_Addr start, void *arg)
{
	(void)ud;
	(void)name;
	(void)start;
	*(Dwfl_Module **)arg = m;
	return DWARF_CB_ABORT;
}

const char *ptd_symbols_display_name(struct ptd_symbols *s, const char *file)
{
	size_t best = 0;

	if (!s || !file)
		return file;
	if (!s->compdirs_scanned) {
		/* (a name asked for before any line lookup noted the CU's
		 * directory: after the program exited, say) */
		Dwfl_Module *m = NULL;
		ptrdiff_t off = 0;

		s->compdirs_scanned = 1;
		while ((off = dwfl_getmodules(s->dwfl, first_mod, &m, off)) > 0 || m) {
			Dwarf_Die *cu = NULL;
			Dwarf_Addr bias;

			while (m && (cu = dwfl_module_nextcu(m, cu, &bias)))
				note_compdir(s, cu);
			m = NULL;
			if (off <= 0)
				break;
		}
	}
	/* gdb shows a file by the name the compiler was given: relative to
	 * the compilation directory when it lies below it.  A relative
	 * directory (glibc's "./nptl") stays in the name, as gdb joins it
	 * with the line table's ("./nptl/pthread_kill.c"). */
	for (size_t i = 0; i < s->ncompdirs; i++) {
		size_t n = strlen(s->compdirs[i]);
		if (s->compdirs[i][0] != '/')
			continue;
		if (n > best && !strncmp(file, s->compdirs[i], n) && file[n] == '/' && file[n + 1])
			best = n;
	}
	return best ? file + best + 1 : file;
}

static char *xstrdup(const char *s)
{
	return s ? strdup(s) : NULL;
}

static void drop_caches(struct ptd_symbols *s)
{
	size_t i;

	free(s->syms);
	s->syms = NULL;
	s->nsyms = 0;
	free(s->all);
	s->all = NULL;
	s->nall = 0;
	s->syms_built = 0;
	for (i = 0; i < s->nplt_names; i++)
		free(s->plt_names[i]);
	free(s->plt_names);
	s->plt_names = NULL;
	s->nplt_names = s->cplt_names = 0;
	free(s->plt_secs);
	s->plt_secs = NULL;
	s->nplt_secs = s->cplt_secs = 0;
	for (i = 0; i < s->nml; i++)
		free(s->ml[i].rows);
	free(s->ml);
	s->ml = NULL;
	s->nml = s->cml = 0;
	s->last_ml = NULL;
	free(s->icache);
	s->icache = NULL;
}

static void drop_sources(struct ptd_symbols *s)
{
	size_t i;

	for (i = 0; i < s->nsrc; i++) {
		free(s->src[i].path);
		free(s->src[i].text);
		free(s->src[i].lines);
	}
	free(s->src);
	s->src = NULL;
	s->nsrc = s->csrc = 0;
}

void ptd_symbols_free(struct ptd_symbols *s)
{
	if (!s)
		return;
	drop_caches(s);
	drop_sources(s);
	if (s->dwfl)
		dwfl_end(s->dwfl);
	free(s->debuginfo_path);
	free(s->main_path);
	for (size_t i = 0; i < s->ncompdirs; i++)
		free(s->compdirs[i]);
	free(s->compdirs);
	free(s);
}

static struct ptd_symbols *sym_new(int live)
{
	struct ptd_symbols *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	/* The callbacks must outlive the Dwfl, so they live in the object. */
	s->cb.find_debuginfo = dwfl_standard_find_debuginfo;
	s->cb.debuginfo_path = &s->debuginfo_path;
	if (live) {
		s->cb.find_elf = dwfl_linux_proc_find_elf;
	} else {
		s->cb.find_elf = dwfl_build_id_find_elf;
		s->cb.section_address = dwfl_offline_section_address;
	}
	s->dwfl = dwfl_begin(&s->cb);
	if (!s->dwfl) {
		free(s);
		return NULL;
	}
	return s;
}

static int report_pid(struct ptd_symbols *s)
{
	int r;

	dwfl_report_begin(s->dwfl);
	r = dwfl_linux_proc_report(s->dwfl, s->pid);
	if (dwfl_report_end(s->dwfl, NULL, NULL) != 0)
		return ptd__err(-ptde_internal, "cannot report modules of %d: %s", (int)s->pid,
				dwfl_errmsg(-1));
	if (r < 0)
		return ptd__err(-ptde_internal, "cannot read modules of %d: %s", (int)s->pid,
				dwfl_errmsg(-1));
	if (r > 0) {
		if (r == ENOENT || r == ESRCH)
			return ptd__err(-ptde_nosrch, "cannot read /proc/%d/maps: %s", (int)s->pid,
					strerror(r));
		if (r == EACCES || r == EPERM)
			return ptd__err(-ptde_perm, "cannot read /proc/%d/maps: %s", (int)s->pid,
					strerror(r));
		return ptd__err(-ptde_sys, "cannot read /proc/%d/maps: %s", (int)s->pid,
				strerror(r));
	}
	return 0;
}

int ptd_symbols_alloc_pid(struct ptd_symbols **out, pid_t pid)
{
	struct ptd_symbols *s;
	char link[64], exe[PATH_MAX];
	ssize_t k;
	int r;

	if (!out || pid <= 0)
		return ptd__err(-ptde_invalid, "symbols: bad argument");
	*out = NULL;
	s = sym_new(1);
	if (!s)
		return ptd__err(-ptde_nomem, "symbols: out of memory");
	s->pid = pid;
	snprintf(link, sizeof(link), "/proc/%d/exe", (int)pid);
	k = readlink(link, exe, sizeof(exe) - 1);
	if (k > 0) {
		exe[k] = '\0';
		s->main_path = xstrdup(exe);
	}
	r = report_pid(s);
	if (r < 0) {
		ptd_symbols_free(s);
		return r;
	}
	*out = s;
	return 0;
}

/* Load bias that places @path's first PT_LOAD at @start (0 for ET_EXEC). */
static int elf_bias_for(const char *path, uint64_t start, uint64_t *bias, int *is_dyn)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	Elf *elf;
	GElf_Ehdr eh;
	size_t i, nph;
	uint64_t lo = UINT64_MAX;
	int r = 0;

	if (fd < 0)
		return ptd__err(-ptde_notfound, "cannot open %s: %s", path, strerror(errno));
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (!elf || !gelf_getehdr(elf, &eh) || elf_getphdrnum(elf, &nph) != 0) {
		r = ptd__err(-ptde_bad_trace, "%s: not an ELF file", path);
		goto out;
	}
	for (i = 0; i < nph; i++) {
		GElf_Phdr ph;

		if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_LOAD && ph.p_vaddr < lo)
			lo = ph.p_vaddr & ~(uint64_t)0xfff;
	}
	*is_dyn = eh.e_type == ET_DYN;
	*bias = (eh.e_type == ET_DYN && lo != UINT64_MAX) ? start - lo : 0;
out:
	if (elf)
		elf_end(elf);
	close(fd);
	return r;
}

static int report_file(struct ptd_symbols *s, const char *path, uint64_t bias)
{
	Dwfl_Module *m;

	dwfl_report_begin_add(s->dwfl);
	m = dwfl_report_elf(s->dwfl, path, path, -1, bias, false);
	dwfl_report_end(s->dwfl, NULL, NULL);
	if (!m)
		return ptd__err(-ptde_notfound, "cannot load %s: %s", path, dwfl_errmsg(-1));
	drop_caches(s);
	return 0;
}

int ptd_symbols_alloc_file(struct ptd_symbols **out, const char *path, uint64_t bias)
{
	struct ptd_symbols *s;
	int r;

	if (!out || !path)
		return ptd__err(-ptde_invalid, "symbols: bad argument");
	*out = NULL;
	s = sym_new(0);
	if (!s)
		return ptd__err(-ptde_nomem, "symbols: out of memory");
	s->main_path = xstrdup(path);
	r = report_file(s, path, bias);
	if (r < 0) {
		ptd_symbols_free(s);
		return r;
	}
	*out = s;
	return 0;
}

int ptd_symbols_add_file(struct ptd_symbols *s, const char *path, uint64_t start, uint64_t end)
{
	uint64_t bias = 0;
	int dyn = 0, r;

	if (!s || !path || (end && end < start))
		return ptd__err(-ptde_invalid, "symbols: bad argument");
	r = elf_bias_for(path, start, &bias, &dyn);
	if (r < 0)
		return r;
	if (!s->main_path)
		s->main_path = xstrdup(path);
	return report_file(s, path, bias);
}

int ptd_symbols_refresh(struct ptd_symbols *s)
{
	char link[64], exe[PATH_MAX];
	ssize_t k;

	if (!s)
		return ptd__err(-ptde_invalid, "symbols: NULL");
	if (!s->pid)
		return 0;
	drop_caches(s);
	drop_sources(s);
	s->compdirs_scanned = 0;
	snprintf(link, sizeof(link), "/proc/%d/exe", (int)s->pid);
	k = readlink(link, exe, sizeof(exe) - 1);
	if (k > 0) {
		exe[k] = '\0';
		free(s->main_path);
		s->main_path = xstrdup(exe);
	}
	return report_pid(s);
}

/* ---- module helpers ---- */

static const char *mod_path(Dwfl_Module *m)
{
	const char *mainfile = NULL, *name;

	name = dwfl_module_info(m, NULL, NULL, NULL, NULL, NULL, &mainfile, NULL);
	return mainfile ? mainfile : name;
}

struct mod_list {
	Dwfl_Module **v;
	size_t n, c;
};

static int collect_mod(Dwfl_Module *m, void **ud, const char *name, Dwarf_Addr start, void *arg)
{
	struct mod_list *l = arg;

	if (l->n == l->c) {
		size_t c = l->c ? l->c * 2 : 16;
		Dwfl_Module **v = realloc(l->v, c * sizeof(*v));

		if (!v)
			return DWARF_CB_ABORT;
		l->v = v;
		l->c = c;
	}
	l->v[l->n++] = m;
	return DWARF_CB_OK;
}

static int is_main_mod(struct ptd_symbols *s, Dwfl_Module *m)
{
	const char *p = mod_path(m);

	return s->main_path && p && !strcmp(p, s->main_path);
}

/* ---- symbol table ---- */

static int sym_push(struct ptd_symbols *s, size_t *cap, const struct sym_ent *e)
{
	if (s->nsyms == *cap) {
		size_t c = *cap ? *cap * 2 : 1024;
		struct sym_ent *v = realloc(s->syms, c * sizeof(*v));

		if (!v)
			return -1;
		s->syms = v;
		*cap = c;
	}
	s->syms[s->nsyms++] = *e;
	return 0;
}

static const char *own_name(struct ptd_symbols *s, const char *a, const char *b)
{
	char *n;

	if (s->nplt_names == s->cplt_names) {
		size_t c = s->cplt_names ? s->cplt_names * 2 : 64;
		char **v = realloc(s->plt_names, c * sizeof(*v));

		if (!v)
			return NULL;
		s->plt_names = v;
		s->cplt_names = c;
	}
	if (asprintf(&n, "%s%s", a, b) < 0)
		return NULL;
	s->plt_names[s->nplt_names++] = n;
	return n;
}

/* libstdc++'s demangler (the C++ ABI's), linked into libptdbg. */
extern char *__cxa_demangle(const char *mangled, char *buf, size_t *len, int *status);

/*
 * gdb shows C++ symbols demangled ("thrower(int)", "std::ostream::
 * operator<<(int)@plt"): the demangled @nm followed by @suffix, owned by
 * @s, or NULL when @nm is not a mangled name (or out of memory).
 */
static const char *demangled_name(struct ptd_symbols *s, const char *nm, const char *suffix)
{
	const char *r;
	char *d;
	int status = 0;

	if (nm[0] != '_' || nm[1] != 'Z')
		return NULL;
	d = __cxa_demangle(nm, NULL, NULL, &status);
	if (!d || status != 0) {
		free(d);
		return NULL;
	}
	r = own_name(s, d, suffix);
	free(d);
	return r;
}

static Elf_Scn *find_scn(Elf *elf, const char *want, GElf_Shdr *sh)
{
	size_t shstrndx;
	Elf_Scn *scn = NULL;

	if (elf_getshdrstrndx(elf, &shstrndx) != 0)
		return NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		const char *nm;

		if (!gelf_getshdr(scn, sh))
			continue;
		nm = elf_strptr(elf, shstrndx, sh->sh_name);
		if (nm && !strcmp(nm, want))
			return scn;
	}
	return NULL;
}

/* The GOT slot the `jmp *disp32(%rip)` of the PLT entry @p (at @addr, @n
 * bytes) jumps through, after an endbr64 and a bnd prefix; 0 when the
 * entry is something else. */
static uint64_t pltgot_slot(const unsigned char *p, size_t n, uint64_t addr)
{
	static const unsigned char endbr64[] = { 0xf3, 0x0f, 0x1e, 0xfa };
	size_t k = 0;
	int32_t disp;

	if (n >= sizeof(endbr64) && !memcmp(p, endbr64, sizeof(endbr64)))
		k = sizeof(endbr64);
	if (k < n && p[k] == 0xf2)
		k++;
	if (k + 6 > n || p[k] != 0xff || p[k + 1] != 0x25)
		return 0;
	memcpy(&disp, p + k + 2, sizeof(disp));
	return addr + k + 6 + (uint64_t)(int64_t)disp;
}

/* A relocation of .rela.plt by the GOT slot it fills. */
struct plt_rel {
	uint64_t slot;
	size_t i;
};

static int plt_rel_cmp(const void *a, const void *b)
{
	const struct plt_rel *x = a, *y = b;

	return x->slot < y->slot ? -1 : x->slot > y->slot;
}

/*
 * Synthesizes "name@plt" for the 16-byte PLT entries (in .plt.sec when
 * present, else in .plt after the header entry) and "name@got.plt" for
 * the GOT slot each JUMP_SLOT relocation names, which is how gdb and
 * objdump name them.  As BFD does, an entry is named by the relocation of
 * the GOT slot its `jmp *slot(%rip)` goes through: the entries need not be
 * in the relocations' order (libc's ifunc entries, R_X86_64_IRELATIVE,
 * named "*ABS*+0xRESOLVER@plt" after the resolver, are not).
 */
static void add_plt_syms(struct ptd_symbols *s, size_t *cap, Dwfl_Module *m)
{
	GElf_Addr bias = 0;
	Elf *elf = dwfl_module_getelf(m, &bias);
	GElf_Shdr rsh, psh, dsh;
	Elf_Scn *rscn, *pscn, *dscn;
	Elf_Data *rdata, *dsymdata, *pdata;
	struct plt_rel *rels = NULL;
	size_t i, nrel, nr = 0;
	uint64_t off;
	int sec;
	char absname[48];

	if (!elf)
		return;
	rscn = find_scn(elf, ".rela.plt", &rsh);
	if (!rscn || rsh.sh_type != SHT_RELA || !rsh.sh_entsize)
		return;
	pscn = find_scn(elf, ".plt.sec", &psh);
	sec = pscn != NULL;
	if (!pscn)
		pscn = find_scn(elf, ".plt", &psh);
	if (!pscn)
		return;
	dscn = elf_getscn(elf, rsh.sh_link);
	if (!dscn || !gelf_getshdr(dscn, &dsh))
		return;
	rdata = elf_getdata(rscn, NULL);
	dsymdata = elf_getdata(dscn, NULL);
	pdata = elf_getdata(pscn, NULL);
	if (!rdata || !dsymdata)
		return;
	nrel = rsh.sh_size / rsh.sh_entsize;
	rels = calloc(nrel ? nrel : 1, sizeof(*rels));
	if (!rels)
		return;
	for (i = 0; i < nrel; i++) {
		GElf_Rela rela;
		GElf_Sym sym;
		const char *nm;
		struct sym_ent e;

		if (!gelf_getrela(rdata, (int)i, &rela))
			break;
		if (GELF_R_TYPE(rela.r_info) != R_X86_64_JUMP_SLOT &&
		    GELF_R_TYPE(rela.r_info) != R_X86_64_IRELATIVE)
			continue;
		rels[nr].slot = rela.r_offset;
		rels[nr++].i = i;
		if (GELF_R_TYPE(rela.r_info) != R_X86_64_JUMP_SLOT ||
		    !gelf_getsym(dsymdata, (int)GELF_R_SYM(rela.r_info), &sym))
			continue;
		nm = elf_strptr(elf, dsh.sh_link, sym.st_name);
		if (!nm || !*nm)
			continue;
		memset(&e, 0, sizeof(e));
		e.mod = m;
		e.dw_state = 2; /* (no DWARF function names PLT stubs) */
		e.start = rela.r_offset + bias;
		e.size = 8;
		e.name = demangled_name(s, nm, "@got.plt");
		if (!e.name)
			e.name = own_name(s, nm, "@got.plt");
		if (e.name)
			sym_push(s, cap, &e);
	}
	qsort(rels, nr, sizeof(*rels), plt_rel_cmp);
	for (off = sec ? 0 : 16; pdata && pdata->d_buf && off + 16 <= pdata->d_size; off += 16) {
		struct plt_rel key = { pltgot_slot((const unsigned char *)pdata->d_buf + off, 16,
						   psh.sh_addr + off),
				       0 };
		const struct plt_rel *r = key.slot ? bsearch(&key, rels, nr, sizeof(*rels), plt_rel_cmp)
						   : NULL;
		GElf_Rela rela;
		GElf_Sym sym;
		const char *nm;
		struct sym_ent e;

		if (!r || !gelf_getrela(rdata, (int)r->i, &rela))
			continue;
		if (GELF_R_TYPE(rela.r_info) == R_X86_64_IRELATIVE) {
			snprintf(absname, sizeof(absname), "*ABS*+0x%" PRIx64, (uint64_t)rela.r_addend);
			nm = absname;
		} else if (gelf_getsym(dsymdata, (int)GELF_R_SYM(rela.r_info), &sym)) {
			nm = elf_strptr(elf, dsh.sh_link, sym.st_name);
		} else {
			continue;
		}
		if (!nm || !*nm)
			continue;
		memset(&e, 0, sizeof(e));
		e.mod = m;
		e.dw_state = 2;
		e.start = psh.sh_addr + off + bias;
		e.size = 16;
		e.name = demangled_name(s, nm, "@plt");
		if (!e.name)
			e.name = own_name(s, nm, "@plt");
		if (e.name)
			sym_push(s, cap, &e);
	}
	free(rels);
}

/*
 * Synthesizes "name@plt" for the entries of .plt.got: the PLT entries the
 * linker makes for functions whose GOT slot is filled at load time (a
 * GLOB_DAT relocation, in .rela.dyn: functions whose address is also
 * taken, such as free and malloc in libc), each a `jmp *slot(%rip)`, 8
 * bytes or 16 with IBT.  BFD names them so (objdump, and gdb, which
 * also takes them for trampolines: "step" and "reverse-step" go through
 * them as through the other PLT stubs).
 */
static void add_pltgot_syms(struct ptd_symbols *s, size_t *cap, Dwfl_Module *m)
{
	GElf_Addr bias = 0;
	Elf *elf = dwfl_module_getelf(m, &bias);
	GElf_Shdr gsh, rsh, dsh;
	Elf_Scn *gscn, *rscn, *dscn;
	Elf_Data *gdata, *rdata, *dsymdata;
	size_t i, j, nrel, esz;

	if (!elf)
		return;
	gscn = find_scn(elf, ".plt.got", &gsh);
	rscn = find_scn(elf, ".rela.dyn", &rsh);
	if (!gscn || !rscn || gsh.sh_type != SHT_PROGBITS || rsh.sh_type != SHT_RELA ||
	    !rsh.sh_entsize)
		return;
	esz = gsh.sh_entsize == 8 || gsh.sh_entsize == 16 ? gsh.sh_entsize : 8;
	dscn = elf_getscn(elf, rsh.sh_link);
	if (!dscn || !gelf_getshdr(dscn, &dsh))
		return;
	gdata = elf_getdata(gscn, NULL);
	rdata = elf_getdata(rscn, NULL);
	dsymdata = elf_getdata(dscn, NULL);
	if (!gdata || !gdata->d_buf || !rdata || !dsymdata)
		return;
	nrel = rsh.sh_size / rsh.sh_entsize;
	for (i = 0; i + esz <= gdata->d_size; i += esz) {
		uint64_t slot = pltgot_slot((const unsigned char *)gdata->d_buf + i, esz,
					    gsh.sh_addr + i);

		for (j = 0; slot && j < nrel; j++) {
			GElf_Rela rela;
			GElf_Sym sym;
			const char *nm;
			struct sym_ent e;

			if (!gelf_getrela(rdata, (int)j, &rela))
				break;
			if (rela.r_offset != slot || (GELF_R_TYPE(rela.r_info) != R_X86_64_GLOB_DAT &&
						      GELF_R_TYPE(rela.r_info) != R_X86_64_64))
				continue;
			if (!gelf_getsym(dsymdata, (int)GELF_R_SYM(rela.r_info), &sym))
				break;
			nm = elf_strptr(elf, dsh.sh_link, sym.st_name);
			if (!nm || !*nm)
				break;
			memset(&e, 0, sizeof(e));
			e.mod = m;
			e.dw_state = 2; /* (no DWARF function names PLT stubs) */
			e.start = gsh.sh_addr + i + bias;
			e.size = esz;
			e.name = demangled_name(s, nm, "@plt");
			if (!e.name)
				e.name = own_name(s, nm, "@plt");
			if (e.name)
				sym_push(s, cap, &e);
			break;
		}
	}
}

/* Notes [lo, hi) of the module's .plt and .plt.sec (ptd__symbols_in_plt). */
static void add_plt_secs(struct ptd_symbols *s, Dwfl_Module *m)
{
	static const char *const names[] = { ".plt", ".plt.sec" };
	GElf_Addr bias = 0;
	Elf *elf = dwfl_module_getelf(m, &bias);
	GElf_Shdr sh;
	size_t i;

	for (i = 0; elf && i < sizeof(names) / sizeof(names[0]); i++) {
		if (!find_scn(elf, names[i], &sh) || !sh.sh_size)
			continue;
		if (s->nplt_secs == s->cplt_secs) {
			size_t c = s->cplt_secs ? s->cplt_secs * 2 : 16;
			uint64_t(*v)[2] = realloc(s->plt_secs, c * sizeof(*v));

			if (!v)
				return;
			s->plt_secs = v;
			s->cplt_secs = c;
		}
		s->plt_secs[s->nplt_secs][0] = sh.sh_addr + bias;
		s->plt_secs[s->nplt_secs][1] = sh.sh_addr + bias + sh.sh_size;
		s->nplt_secs++;
	}
}

/*
 * Orders by address and, among the symbols at one address, puts first the
 * one gdb names that address by (its minimal symbols, minsyms.c): one
 * with a size before a sizeless one; an exported one (global or weak:
 * gdb looks at a stripped library's dynamic symbols before its debug
 * file's) before a local one; then the name last in strcmp order (gdb
 * sorts them by name and takes the last: "raise" over "gsignal", "puts"
 * over "_IO_puts", "__libc_start_main" over "__libc_start_main_impl",
 * "__memmove_avx_unaligned_erms" over "__memcpy_...").  Names are
 * compared as ELF has them (mangled for C++).
 */
static int sym_cmp(const void *a, const void *b)
{
	const struct sym_ent *x = a, *y = b;
	int c;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	if (!x->size != !y->size)
		return x->size ? -1 : 1;
	if ((x->rank >= 4) != (y->rank >= 4))
		return x->rank >= 4 ? -1 : 1;
	c = strcmp(x->mangled ? x->mangled : x->name, y->mangled ? y->mangled : y->name);
	return c > 0 ? -1 : c < 0 ? 1 : 0;
}

static void build_syms(struct ptd_symbols *s)
{
	struct mod_list ml = { 0 };
	size_t cap = 0, i, o;

	s->syms_built = 1;
	dwfl_getmodules(s->dwfl, collect_mod, &ml, 0);
	for (i = 0; i < ml.n; i++) {
		Dwfl_Module *m = ml.v[i];
		int n = dwfl_module_getsymtab(m), k;

		for (k = 1; k < n; k++) {
			GElf_Sym sym;
			GElf_Addr addr;
			GElf_Word shndx;
			const char *nm = dwfl_module_getsym_info(m, k, &sym, &addr, &shndx, NULL, NULL);
			int type = GELF_ST_TYPE(sym.st_info), bind = GELF_ST_BIND(sym.st_info);
			struct sym_ent e;

			if (!nm || !*nm || shndx == SHN_UNDEF || addr == 0)
				continue;
			/* Data symbols without a size (_GLOBAL_OFFSET_TABLE_,
			 * __TMC_END__) are labels, and gdb never names an
			 * address after them. */
			if (type != STT_FUNC && type != STT_GNU_IFUNC && !sym.st_size)
				continue;
			if (type != STT_FUNC && type != STT_GNU_IFUNC && type != STT_OBJECT &&
			    type != STT_NOTYPE)
				continue;
			/* Versioned names ("memcpy@@GLIBC_2.14") print without
			 * the version, as gdb does. */
			int compat = strchr(nm, '@') && !strstr(nm, "@@");

			if (strchr(nm, '@')) {
				char base[256];

				snprintf(base, sizeof(base), "%.*s", (int)strcspn(nm, "@"), nm);
				nm = own_name(s, base, "");
				if (!nm)
					continue;
			}
			e.start = addr;
			e.size = sym.st_size;
			e.compat = compat;
			e.name = demangled_name(s, nm, "");
			e.mangled = e.name ? nm : NULL;
			if (!e.name)
				e.name = nm;
			e.mod = m;
			e.shndx = shndx;
			e.dw_state = 0;
			/* by name, global names and functions come first */
			e.rank = (bind == STB_GLOBAL ? 8 : bind == STB_WEAK ? 4 : 2) +
				 (type == STT_FUNC || type == STT_GNU_IFUNC ? 1 : 0);
			if (sym_push(s, &cap, &e) < 0)
				break;
		}
		add_plt_syms(s, &cap, m);
		add_pltgot_syms(s, &cap, m);
		add_plt_secs(s, m);
	}
	free(ml.v);
	if (!s->nsyms)
		return;
	qsort(s->syms, s->nsyms, sizeof(s->syms[0]), sym_cmp);
	/* every alias stays for lookups by name ("break gsignal") */
	s->all = malloc(s->nsyms * sizeof(s->syms[0]));
	if (s->all) {
		memcpy(s->all, s->syms, s->nsyms * sizeof(s->syms[0]));
		s->nall = s->nsyms;
	}
	/* Keep the symbol gdb names each address by. */
	for (i = 1, o = 1; i < s->nsyms; i++)
		if (s->syms[i].start != s->syms[o - 1].start)
			s->syms[o++] = s->syms[i];
	s->nsyms = o;
}

/* The symbol containing @addr, or NULL. */
static const struct sym_ent *find_sym(struct ptd_symbols *s, uint64_t addr)
{
	size_t lo = 0, hi;
	const struct sym_ent *e;

	if (!s->syms_built)
		build_syms(s);
	hi = s->nsyms;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (s->syms[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return NULL;
	e = &s->syms[lo - 1];
	if (e->size) {
		if (addr - e->start < e->size)
			return e;
		return NULL;
	}
	/* A sizeless symbol (assembly, _init) covers up to the next symbol
	 * but not beyond its own section: gdb does not name PLT code after
	 * _init. */
	if (addr == e->start)
		return e;
	if (e->shndx && dwfl_addrmodule(s->dwfl, addr) == e->mod) {
		Dwarf_Addr a = addr, bias = 0;
		Elf_Scn *scn = dwfl_module_address_section(e->mod, &a, &bias);

		if (scn && elf_ndxscn(scn) == e->shndx)
			return e;
	}
	return NULL;
}

static Dwarf_Die *cu_for_addr(Dwfl_Module *m, uint64_t addr);
static int concrete_scopes(Dwarf_Die *cu, uint64_t addr, Dwarf_Die **out);

/* The DWARF name gdb gives function @fn: its linkage name where it has
 * one (glibc's "__GI_raise" for raise, an asm label), demangled for C++
 * ("thrower(int)"), else its name.  *@mangled gets the linkage name when
 * it was demangled. */
static const char *dwarf_func_name(struct ptd_symbols *s, Dwarf_Die *fn, const char **mangled)
{
	Dwarf_Attribute attr;
	const char *ln = NULL, *dn;

	*mangled = NULL;
	if (dwarf_attr_integrate(fn, DW_AT_linkage_name, &attr) ||
	    dwarf_attr_integrate(fn, DW_AT_MIPS_linkage_name, &attr))
		ln = dwarf_formstring(&attr);
	if (ln && *ln) {
		dn = demangled_name(s, ln, "");
		if (dn)
			*mangled = ln;
		return dn ? dn : ln;
	}
	if (dwarf_attr_integrate(fn, DW_AT_name, &attr))
		return dwarf_formstring(&attr);
	return NULL;
}

/* The lowest address of @die's code (gdb's block start). */
static Dwarf_Addr low_addr(Dwarf_Die *die)
{
	Dwarf_Addr base, start, end, lo = (Dwarf_Addr)-1;
	ptrdiff_t off = 0;

	while ((off = dwarf_ranges(die, off, &base, &start, &end)) > 0)
		if (start < lo)
			lo = start;
	return lo;
}

/*
 * The function of DWARF (the innermost DW_TAG_subprogram, not an inlined
 * call) whose code holds @addr in module @m: its entry (its first
 * range's start), the range [*@lo, *@hi) holding @addr
 * and its name.  Returns 1, or 0 when there is none.
 */
static int dwarf_func_at(struct ptd_symbols *s, Dwfl_Module *m, uint64_t addr, uint64_t *entry,
			 uint64_t *lo, uint64_t *hi, const char **name, const char **mangled)
{
	Dwarf_Addr bias = 0, base, start, end, e;
	Dwarf_Die *cu, *scopes = NULL, fn;
	ptrdiff_t off;
	int n, i, found = 0;

	/* (the CUs of assembly files are often missing from .debug_aranges) */
	if (!dwfl_module_getdwarf(m, &bias) || !(cu = cu_for_addr(m, addr)))
		return 0;
	n = concrete_scopes(cu, addr - bias, &scopes);
	for (i = 0; i < n; i++)
		if (dwarf_tag(&scopes[i]) == DW_TAG_subprogram)
			break;
	if (i >= n) {
		free(scopes);
		return 0;
	}
	fn = scopes[i];
	if (i + 1 < n && dwarf_tag(&scopes[i + 1]) == DW_TAG_compile_unit) {
		/* Of several functions at one address (an assembly file's
		 * aliases, each its own DW_TAG_subprogram), gdb's block
		 * lookup finds the last one that starts closest before @addr
		 * in the CU's order. */
		Dwarf_Die sib = fn;
		Dwarf_Addr lo0 = low_addr(&fn), lo1;

		while (dwarf_siblingof(&sib, &sib) == 0)
			if (dwarf_tag(&sib) == DW_TAG_subprogram && dwarf_haspc(&sib, addr - bias) > 0 &&
			    (lo1 = low_addr(&sib)) >= lo0) {
				fn = sib;
				lo0 = lo1;
			}
	}
	free(scopes);
	*name = dwarf_func_name(s, &fn, mangled);
	if (!*name)
		return 0;
	*lo = *hi = 0;
	e = (Dwarf_Addr)-1;
	for (off = 0, i = 0; (off = dwarf_ranges(&fn, off, &base, &start, &end)) > 0; i++) {
		if (i == 0)
			e = start;
		if (start <= addr - bias && addr - bias < end) {
			*lo = start + bias;
			*hi = end + bias;
			found = 1;
		}
	}
	/* (gdb's entry of a function in several ranges is its first one's
	 * start, whatever DW_AT_entry_pc says) */
	if (!found || e == (Dwarf_Addr)-1)
		return 0;
	*entry = e + bias;
	return 1;
}

/* What names @addr, as gdb's: the DWARF function holding it, unless an
 * ELF symbol starts later inside it (a function's ".cold" part), else the
 * ELF symbol. */
struct named {
	const char *name, *mangled;
	uint64_t start, size;
	uint64_t lo; /* start of the range of the function holding addr */
	Dwfl_Module *mod;
};

static int resolve(struct ptd_symbols *s, uint64_t addr, struct named *r)
{
	struct sym_ent *e = (struct sym_ent *)find_sym(s, addr);
	uint64_t entry = 0, lo = 0, hi = 0;
	const char *name = NULL, *mangled = NULL;
	Dwfl_Module *m;
	int have;

	if (e && e->dw_state == 0) {
		/* (looked up once per symbol, for the range at its start) */
		e->dw_state = dwarf_func_at(s, e->mod, e->start, &e->dw_entry, &e->dw_lo, &e->dw_hi,
					    &e->dw_name, &e->dw_mangled)
				      ? 1
				      : 2;
		ptd_clear_error();
	}
	if (e && e->dw_state == 1 && e->dw_lo <= addr && addr < e->dw_hi) {
		entry = e->dw_entry;
		lo = e->dw_lo;
		name = e->dw_name;
		mangled = e->dw_mangled;
		have = 1;
		m = e->mod;
	} else if (e && e->dw_state == 2 && e->size) {
		have = 0;
		m = e->mod;
	} else {
		/* a sizeless symbol, an address past the range at its start,
		 * or no symbol: DWARF may still name it */
		m = dwfl_addrmodule(s->dwfl, addr);
		have = m && dwarf_func_at(s, m, addr, &entry, &lo, &hi, &name, &mangled);
		ptd_clear_error();
	}
	if (have && (!e || e->start <= entry || e->mod != m)) {
		r->name = name;
		r->mangled = mangled;
		r->start = entry;
		r->size = e && e->start == entry ? e->size : hi > entry ? hi - entry : 0;
		r->lo = lo ? lo : entry;
		r->mod = m;
		return 0;
	}
	if (!e)
		return -ptde_notfound;
	r->name = e->name;
	r->mangled = e->mangled;
	r->start = e->start;
	r->size = e->size;
	r->lo = e->start;
	r->mod = e->mod;
	return 0;
}

int ptd_symbols_lookup(struct ptd_symbols *s, uint64_t addr, struct ptd_symbol *out)
{
	struct named r;

	if (!s || !out)
		return ptd__err(-ptde_invalid, "symbols: NULL argument");
	if (resolve(s, addr, &r) < 0)
		return -ptde_notfound;
	out->name = r.name;
	out->start = r.start;
	out->size = r.size;
	out->offset = addr - r.start;
	out->module = mod_path(r.mod);
	out->mangled = r.mangled;
	return 0;
}

static int sym_named(const struct sym_ent *e, const char *name);

/*
 * The function a thunk's name leads to, as gdb's gnu-v3 trampoline
 * skipping finds it: by that name among the minimal symbols of the
 * thunk's object (lookup_minimal_symbol), an exported one before a local
 * one, and of several with the name the first in gdb's hash chain, which
 * is the last by address (the chains are built in address order, each
 * symbol put in front).  Several functions have one name where a class's
 * destructors do: the deleting, complete and base destructors all
 * demangle to "C::~C()", and gdb's step into the deleting destructor's
 * thunk goes to whichever of them lies last.
 */
static const struct sym_ent *thunk_fn(struct ptd_symbols *s, const struct sym_ent *thunk,
				      const char *name)
{
	const struct sym_ent *best = NULL;
	size_t i;

	for (i = 0; i < s->nall; i++) {
		const struct sym_ent *e = &s->all[i];

		if (!(e->rank & 1) || e->mod != thunk->mod || !sym_named(e, name))
			continue;
		/* (s->all is in address order) */
		if (!best || (e->rank >= 4) >= (best->rank >= 4))
			best = e;
	}
	return best;
}

int ptd__symbols_thunk_target(struct ptd_symbols *s, uint64_t addr, uint64_t *target)
{
	const struct sym_ent *th, *fn;
	struct ptd_symbol sym;
	const char *to;

	if (!s || !target)
		return -ptde_invalid;
	if (ptd_symbols_lookup(s, addr, &sym) < 0 || sym.start != addr || !sym.name ||
	    !(to = strstr(sym.name, " thunk to ")) || !(th = find_sym(s, addr)))
		return -ptde_notfound;
	fn = thunk_fn(s, th, to + strlen(" thunk to "));
	if (!fn)
		return -ptde_notfound;
	*target = fn->start;
	return 0;
}

int ptd__symbols_range_start(struct ptd_symbols *s, uint64_t addr, uint64_t *lo)
{
	struct named r;

	if (!s || !lo)
		return -ptde_invalid;
	if (resolve(s, addr, &r) < 0)
		return -ptde_notfound;
	*lo = r.lo;
	return 0;
}

int ptd_symbols_minimal(struct ptd_symbols *s, uint64_t addr, struct ptd_symbol *out,
			char *section, size_t n)
{
	const struct sym_ent *e;
	Dwarf_Addr a = addr, bias = 0;
	Elf_Scn *scn;
	GElf_Shdr sh;
	size_t shstr;
	Elf *elf;
	const char *nm;

	if (!s || !out || (!section && n))
		return ptd__err(-ptde_invalid, "symbols: NULL argument");
	if (n)
		section[0] = '\0';
	e = find_sym(s, addr);
	if (!e)
		return -ptde_notfound;
	out->name = e->name;
	out->start = e->start;
	out->size = e->size;
	out->offset = addr - e->start;
	out->module = mod_path(e->mod);
	out->mangled = e->mangled;
	if (!n)
		return 0;
	scn = dwfl_module_address_section(e->mod, &a, &bias);
	elf = dwfl_module_getelf(e->mod, &bias);
	if (scn && elf && gelf_getshdr(scn, &sh) && elf_getshdrstrndx(elf, &shstr) == 0 &&
	    (nm = elf_strptr(elf, shstr, sh.sh_name)))
		snprintf(section, n, "%s", nm);
	return 0;
}

int ptd_symbols_symbolize(void *ctx, uint64_t addr, char *out, size_t n)
{
	struct ptd_symbols *s = ctx;
	struct named r;

	if (!s || !out || n == 0)
		return -ptde_invalid;
	if (resolve(s, addr, &r) < 0)
		return -ptde_notfound;
	/* (an address in a part of the function placed before its entry,
	 * a .cold part, is shown as gdb does: "check-676") */
	if (addr == r.start)
		snprintf(out, n, "%s", r.name);
	else if (addr > r.start)
		snprintf(out, n, "%s+%llu", r.name, (unsigned long long)(addr - r.start));
	else
		snprintf(out, n, "%s-%llu", r.name, (unsigned long long)(r.start - addr));
	return 0;
}

uint64_t ptd_symbols_func_start(struct ptd_symbols *s, uint64_t addr)
{
	const struct sym_ent *e;

	if (!s)
		return 0;
	e = find_sym(s, addr);
	return e ? e->start : 0;
}

/* ---- line tables ---- */

static int row_cmp(const void *a, const void *b)
{
	const struct row *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	/* A sequence end sorts before a row starting at the same address, so
	 * "the last row at or below pc" is never an end marker by accident. */
	if (x->end_seq != y->end_seq)
		return x->end_seq ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static struct modlines *build_lines(struct ptd_symbols *s, Dwfl_Module *m)
{
	struct modlines *ml;
	Dwarf_Die *cu = NULL;
	Dwarf_Addr bias = 0;
	Dwarf_Addr start = 0, end = 0;
	size_t cap = 0;
	uint32_t seq = 0, seq_base = 0;

	if (s->nml == s->cml) {
		size_t c = s->cml ? s->cml * 2 : 8;
		struct modlines *v = realloc(s->ml, c * sizeof(*v));

		if (!v)
			return NULL;
		s->ml = v;
		s->cml = c;
		s->last_ml = NULL; /* pointers into the array moved */
	}
	dwfl_module_info(m, NULL, &start, &end, NULL, NULL, NULL, NULL);
	ml = &s->ml[s->nml++];
	memset(ml, 0, sizeof(*ml));
	ml->mod = m;
	ml->lo = start;
	ml->hi = end;
	while ((cu = dwfl_module_nextcu(m, cu, &bias))) {
		Dwarf_Lines *lines;
		size_t n, i;
		/* gdb's line-table reader state, reset at each sequence end. */
		int sm_line = 0, last_line = 0, nz_disc = 0, stmt_at = 0;
		const char *last_file = NULL;
		uint64_t last_addr = UINT64_MAX;

		if (dwarf_getsrclines(cu, &lines, &n) != 0)
			continue;
		note_compdir(s, cu);
		for (i = 0; i < n; i++) {
			Dwarf_Line *l = dwarf_onesrcline(lines, i);
			Dwarf_Addr a;
			bool stmt = false, es = false;
			unsigned disc = 0;
			const char *file;
			int ln = 0, file_changed, ignore;
			struct row *r;

			if (!l || dwarf_lineaddr(l, &a) != 0)
				continue;
			dwarf_lineno(l, &ln);
			dwarf_linebeginstatement(l, &stmt);
			dwarf_lineendsequence(l, &es);
			dwarf_linediscriminator(l, &disc);
			file = dwarf_linesrc(l, NULL, NULL);
			a += bias;

			/*
			 * Which rows become entries, the way gdb builds its line
			 * table (so lines, ranges and breakpoint addresses agree
			 * with gdb's): line-0 rows are dropped; a row repeating
			 * the previous line of the same file is dropped when that
			 * line has had a non-zero discriminator; a file switch at
			 * the same address by a non-statement row is dropped when
			 * a row of that address was a statement, otherwise it
			 * removes the previous file's entries at its address; and
			 * a sequence end removes the entries at its own address.
			 */
			if (ln != sm_line)
				nz_disc = disc != 0;
			else
				nz_disc |= disc != 0;
			sm_line = ln;
			file_changed = file != last_file;
			ignore = (!es && ln == 0) || (file_changed && !es && a == last_addr && !stmt &&
						      stmt_at && last_file);
			/* (gdb's m_last_address and m_stmt_at_address: any
			 * row of the address a statement) */
			if (a != last_addr) {
				stmt_at = 0;
				last_addr = a;
			}
			stmt_at |= stmt;
			if (es) {
				while (ml->n > 0 && !ml->rows[ml->n - 1].end_seq &&
				       ml->rows[ml->n - 1].addr == a && ml->rows[ml->n - 1].seq >= seq_base)
					ml->n--;
			} else if (ignore ||
				   (!file_changed && ln == last_line && nz_disc)) {
				if (!ignore)
					last_line = ln;
				continue;
			} else if (file_changed && last_file) {
				/* gdb ends the previous file's table where the
				 * new file starts (dwarf_finish_line), which
				 * removes that file's entries at this address */
				while (ml->n > 0 && !ml->rows[ml->n - 1].end_seq &&
				       ml->rows[ml->n - 1].addr == a &&
				       ml->rows[ml->n - 1].file == last_file &&
				       ml->rows[ml->n - 1].seq >= seq_base)
					ml->n--;
			}
			if (ml->n == cap) {
				size_t c = cap ? cap * 2 : 1024;
				struct row *v = realloc(ml->rows, c * sizeof(*v));

				if (!v)
					goto done;
				ml->rows = v;
				cap = c;
			}
			r = &ml->rows[ml->n++];
			r->addr = a;
			r->file = file;
			r->line = es ? 0 : ln;
			r->is_stmt = stmt;
			r->end_seq = es;
			r->seq = seq++;
			if (es) {
				sm_line = last_line = 0;
				nz_disc = stmt_at = 0;
				last_file = NULL;
				last_addr = UINT64_MAX;
				seq_base = seq;
			} else {
				last_line = ln;
				last_file = file;
			}
		}
	}
done:
	if (ml->n)
		qsort(ml->rows, ml->n, sizeof(ml->rows[0]), row_cmp);
	return ml;
}

static struct modlines *lines_for_mod(struct ptd_symbols *s, Dwfl_Module *m)
{
	size_t i;

	for (i = 0; i < s->nml; i++)
		if (s->ml[i].mod == m)
			return &s->ml[i];
	return build_lines(s, m);
}

static struct modlines *lines_for_addr(struct ptd_symbols *s, uint64_t addr)
{
	Dwfl_Module *m;
	struct modlines *ml;

	if (s->last_ml && addr >= s->last_ml->lo && addr < s->last_ml->hi)
		return s->last_ml;
	m = dwfl_addrmodule(s->dwfl, addr);
	if (!m)
		return NULL;
	ml = lines_for_mod(s, m);
	if (ml)
		s->last_ml = ml;
	return ml;
}

/* Index of the last row with addr <= @addr, or -1. */
static ssize_t row_at(const struct modlines *ml, uint64_t addr)
{
	size_t lo = 0, hi = ml->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (ml->rows[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return (ssize_t)lo - 1;
}

/* Where the entry @i ends: the next entry at a higher address. */
static uint64_t row_end(const struct modlines *ml, size_t i)
{
	size_t j;

	for (j = i + 1; j < ml->n; j++)
		if (ml->rows[j].addr > ml->rows[i].addr)
			return ml->rows[j].addr;
	return ml->hi > ml->rows[i].addr ? ml->hi : ml->rows[i].addr + 1;
}

int ptd_symbols_line(struct ptd_symbols *s, uint64_t addr, struct ptd_line *out)
{
	struct modlines *ml;
	const struct row *r;
	ssize_t i;

	if (!s || !out)
		return ptd__err(-ptde_invalid, "symbols: NULL argument");
	ml = lines_for_addr(s, addr);
	if (!ml || !ml->n)
		return -ptde_notfound;
	i = row_at(ml, addr);
	if (i < 0 || ml->rows[i].end_seq)
		return -ptde_notfound;
	/* Like gdb, prefer a statement row among rows at the same address. */
	if (!ml->rows[i].is_stmt) {
		ssize_t j = i;

		while (j > 0 && ml->rows[j - 1].addr == ml->rows[i].addr && !ml->rows[j - 1].end_seq) {
			j--;
			if (ml->rows[j].is_stmt) {
				i = j;
				break;
			}
		}
	}
	r = &ml->rows[i];
	out->file = r->file;
	out->line = r->line;
	out->lo = r->addr;
	out->hi = row_end(ml, (size_t)i);
	out->is_stmt = r->is_stmt;
	return 0;
}

int ptd_symbols_first_line_at(struct ptd_symbols *s, uint64_t addr, struct ptd_line *out)
{
	struct modlines *ml;
	ssize_t i;

	if (!s || !out)
		return ptd__err(-ptde_invalid, "symbols: NULL argument");
	ml = lines_for_addr(s, addr);
	if (!ml || !ml->n)
		return -ptde_notfound;
	i = row_at(ml, addr);
	if (i < 0 || ml->rows[i].end_seq || ml->rows[i].addr != addr)
		return -ptde_notfound;
	while (i > 0 && ml->rows[i - 1].addr == addr && !ml->rows[i - 1].end_seq)
		i--;
	out->file = ml->rows[i].file;
	out->line = ml->rows[i].line;
	out->lo = addr;
	out->hi = row_end(ml, (size_t)i);
	out->is_stmt = ml->rows[i].is_stmt;
	return 0;
}

/* ---- functions and breakpoint addresses ---- */

/* Reads @n bytes of code at @addr from the module's ELF file. */
static int read_code(Dwfl_Module *m, uint64_t addr, uint8_t *buf, size_t n)
{
	Dwarf_Addr a = addr, bias = 0;
	Elf_Scn *scn = dwfl_module_address_section(m, &a, &bias);
	Elf_Data *d;

	if (!scn)
		return -1;
	d = elf_getdata(scn, NULL);
	if (!d || !d->d_buf || a >= d->d_size)
		return -1;
	if (n > d->d_size - a)
		n = d->d_size - a;
	memcpy(buf, (const uint8_t *)d->d_buf + a, n);
	return (int)n;
}

/* Whether a DIE subtree uses a location list (gcc's sign of optimized code). */
static int has_loclist(Dwarf_Die *die, int depth)
{
	Dwarf_Die child;
	Dwarf_Attribute at;

	if (dwarf_attr(die, DW_AT_location, &at)) {
		unsigned form = dwarf_whatform(&at);

		if (form == DW_FORM_sec_offset || form == DW_FORM_loclistx ||
		    form == DW_FORM_data4 || form == DW_FORM_data8)
			return 1;
	}
	if (depth > 64 || dwarf_child(die, &child) != 0)
		return 0;
	do {
		if (has_loclist(&child, depth + 1))
			return 1;
	} while (dwarf_siblingof(&child, &child) == 0);
	return 0;
}

enum producer { PROD_UNKNOWN, PROD_GCC, PROD_CLANG };

static enum producer cu_producer(Dwarf_Die *cu)
{
	Dwarf_Attribute at;
	const char *p;

	if (!dwarf_attr(cu, DW_AT_producer, &at) || !(p = dwarf_formstring(&at)))
		return PROD_UNKNOWN;
	if (strstr(p, "clang") || strstr(p, "LLVM") || strstr(p, "flang"))
		return PROD_CLANG;
	if (!strncmp(p, "GNU ", 4))
		return PROD_GCC;
	return PROD_UNKNOWN;
}

/* Length of "[endbr64] push %rbp; mov %rsp,%rbp" at @c, or 0. */
static size_t frame_setup_len(const uint8_t *c, size_t n)
{
	size_t p = 0;

	if (n >= 4 && c[0] == 0xf3 && c[1] == 0x0f && c[2] == 0x1e && c[3] == 0xfa)
		p = 4;
	if (p >= n || c[p] != 0x55)
		return 0;
	p++;
	if (p + 3 <= n && c[p] == 0x48 && ((c[p + 1] == 0x89 && c[p + 2] == 0xe5) ||
					   (c[p + 1] == 0x8b && c[p + 2] == 0xec)))
		return p + 3;
	return 0;
}

/*
 * The CU DIE covering @addr.  dwfl_module_addrdie() relies on
 * .debug_aranges, which clang does not emit, so fall back to asking each
 * CU for its ranges.
 */
static Dwarf_Die *cu_for_addr(Dwfl_Module *m, uint64_t addr)
{
	Dwarf_Addr bias = 0;
	Dwarf_Die *cu = dwfl_module_addrdie(m, addr, &bias);

	if (cu)
		return cu;
	while ((cu = dwfl_module_nextcu(m, cu, &bias)))
		if (dwarf_haspc(cu, addr - bias) > 0)
			return cu;
	return NULL;
}

static uint64_t breakpoint_addr(struct ptd_symbols *s, const struct sym_ent *e)
{
	struct modlines *ml = lines_for_mod(s, e->mod);
	Dwarf_Die *cu = cu_for_addr(e->mod, e->start);
	uint64_t end = e->size ? e->start + e->size : e->start + 1;
	uint8_t code[16];
	uint64_t pc;
	ssize_t i;
	size_t k;
	int n;

	if (!ml || !ml->n || !cu)
		return e->start;
	i = row_at(ml, e->start);
	if (i < 0 || ml->rows[i].end_seq)
		return e->start;

	switch (cu_producer(cu)) {
	case PROD_CLANG:
		/* clang starts a new statement row where the prologue ends
		 * (at the entry itself when there is no prologue), so the
		 * second statement row of the function is the address. */
		while (i > 0 && ml->rows[i - 1].addr == e->start && !ml->rows[i - 1].end_seq)
			i--;
		for (k = (size_t)i + 1; k < ml->n && ml->rows[k].addr < end; k++) {
			if (ml->rows[k].end_seq)
				break;
			if (ml->rows[k].is_stmt)
				return ml->rows[k].addr;
		}
		return e->start;
	default:
		break;
	}
	if (has_loclist(cu, 0))
		return e->start;

	n = read_code(e->mod, e->start, code, sizeof(code));
	if (n <= 0)
		return e->start;
	k = frame_setup_len(code, (size_t)n);
	if (!k)
		return e->start;
	pc = e->start + k;
	i = row_at(ml, pc);
	if (i < 0 || ml->rows[i].end_seq || ml->rows[i].addr == pc)
		return pc;
	/* In the middle of a row: go to where the next row starts, if that
	 * is still inside the function. */
	for (k = (size_t)i + 1; k < ml->n; k++) {
		if (ml->rows[k].addr > ml->rows[i].addr) {
			if (ml->rows[k].addr < end && !ml->rows[k].end_seq)
				return ml->rows[k].addr;
			break;
		}
	}
	return pc;
}

/*
 * Where the parameter list of demangled C++ name @full starts: the
 * parenthesised group that ends it, after its qualifiers (" const", " &").
 * Returns its index, or 0 when @full does not end with one.
 */
static size_t params_at(const char *full)
{
	static const char *const quals[] = { " const", " volatile", " &&", " &" };
	size_t len = strlen(full), q, k;
	int depth = 0;

	for (q = 0; q < sizeof(quals) / sizeof(quals[0]); q++) {
		k = strlen(quals[q]);
		if (len > k && !strncmp(full + len - k, quals[q], k)) {
			len -= k;
			q = (size_t)-1;
		}
	}
	if (!len || full[len - 1] != ')')
		return 0;
	while (len-- > 0) {
		if (full[len] == ')')
			depth++;
		else if (full[len] == '(' && --depth == 0)
			return len;
	}
	return 0;
}

/*
 * Whether @e is what the user calls @name: its name, its mangled name, or
 * for C++ its qualified name without the parameter list ("catcher" for
 * "catcher(int)", as gdb's linespecs take it).  The list must be the one
 * that ends the name: "checked" is not the lambda
 * "checked(std::vector<...> const&, int)::{lambda(int)#1}::operator()(int) const"
 * declared inside checked, nor a template instance whose return type it is.
 */
static int sym_named(const struct sym_ent *e, const char *name)
{
	size_t n;

	if (!strcmp(e->name, name) || (e->mangled && !strcmp(e->mangled, name)))
		return 1;
	n = strlen(name);
	return e->mangled && !strncmp(e->name, name, n) && e->name[n] == '(' &&
	       params_at(e->name) == n;
}

/* @q (@n bytes) is @name or ends with "::" and @name. */
static int scope_ends_with(const char *q, size_t n, const char *name)
{
	size_t k = strlen(name);

	if (n == k)
		return !strncmp(q, name, k);
	return n > k + 2 && !strncmp(q + n - k, name, k) && q[n - k - 1] == ':' &&
	       q[n - k - 2] == ':';
}

/*
 * Whether C++ function @e is @name in some namespace or class, as gdb's
 * linespecs match a name without scope ("area" for "Rect::area() const",
 * "fold" for the template instance "int fold<Shape, ...>(...)"): its
 * qualified name, without the parameter list, the return type of a
 * template instance and (when @name has none) the template arguments of
 * its last part, is @name or ends with "::" and @name.
 */
static int sym_named_in_scope(const struct sym_ent *e, const char *name)
{
	const char *f = e->name;
	size_t end, start, i;
	int depth = 0;

	if (!e->mangled || !strstr(f, name) || !(end = params_at(f)))
		return 0;
	/* the name starts after the return type: a space outside brackets
	 * (not the one of "operator new") */
	for (i = end, start = 0; i-- > 0;) {
		char c = f[i];

		if (c == ')' || c == '>' || c == ']' || c == '}')
			depth++;
		else if (c == '(' || c == '<' || c == '[' || c == '{')
			depth--;
		else if (c == ' ' && !depth && !(i >= 8 && !strncmp(f + i - 8, "operator", 8))) {
			start = i + 1;
			break;
		}
		if (depth < 0)
			return 0;
	}
	if (scope_ends_with(f + start, end - start, name))
		return 1;
	if (strchr(name, '<') || end <= start || f[end - 1] != '>' || strstr(f + start, "operator"))
		return 0;
	/* without the template arguments */
	for (i = end, depth = 0; i-- > start;) {
		if (f[i] == '>')
			depth++;
		else if (f[i] == '<' && --depth == 0)
			return i > start && scope_ends_with(f + start, i - start, name);
	}
	return 0;
}

/* (@in_scope: also in some scope, as linespecs take a name; a minimal
 * symbol's lookup takes it as it is) */
static const struct sym_ent *find_function(struct ptd_symbols *s, const char *name, int in_scope)
{
	const struct sym_ent *best = NULL;
	int best_score = -1;
	size_t i;

	if (!s->syms_built)
		build_syms(s);
	for (i = 0; i < s->nall; i++) {
		const struct sym_ent *e = &s->all[i];
		int score;

		if (!(e->rank & 1))
			continue;
		/* (the name itself first, then in some scope) */
		if (sym_named(e, name))
			score = 32;
		else if (in_scope && sym_named_in_scope(e, name))
			score = 0;
		else
			continue;
		score += e->rank + (is_main_mod(s, e->mod) ? 16 : 0);
		if (score > best_score) {
			best = e;
			best_score = score;
		}
	}
	return best;
}

int ptd__symbols_in_plt(struct ptd_symbols *s, uint64_t addr)
{
	size_t i;

	if (!s)
		return 0;
	if (!s->syms_built)
		build_syms(s);
	for (i = 0; i < s->nplt_secs; i++)
		if (addr >= s->plt_secs[i][0] && addr < s->plt_secs[i][1])
			return 1;
	return 0;
}

int ptd__symbols_plt_each(struct ptd_symbols *s, struct Dwfl_Module *m,
			  void (*fn)(void *ctx, const char *name, uint64_t addr), void *ctx)
{
	size_t i, n;
	int k = 0;

	if (!s || !fn)
		return -ptde_invalid;
	if (!s->syms_built)
		build_syms(s);
	for (i = 0; i < s->nall; i++) {
		const struct sym_ent *e = &s->all[i];

		if (e->mod != (Dwfl_Module *)m || (n = strlen(e->name)) < 4 ||
		    strcmp(e->name + n - 4, "@plt"))
			continue;
		fn(ctx, e->name, e->start);
		k++;
	}
	return k;
}

int ptd_symbols_function(struct ptd_symbols *s, const char *name, uint64_t *entry, uint64_t *bp)
{
	const struct sym_ent *e;

	if (!s || !name)
		return ptd__err(-ptde_invalid, "symbols: NULL argument");
	e = find_function(s, name, 0);
	if (!e)
		return ptd__err(-ptde_notfound, "function \"%s\" not defined", name);
	if (entry)
		*entry = e->start;
	if (bp)
		*bp = breakpoint_addr(s, e);
	return 0;
}

int ptd__symbols_exported_function(struct ptd_symbols *s, const char *name)
{
	if (!s || !name)
		return 0;
	if (!s->syms_built)
		build_syms(s);
	for (size_t i = 0; i < s->nall; i++) {
		const struct sym_ent *e = &s->all[i];
		const char *elf = e->mangled ? e->mangled : e->name;

		if ((e->rank & 1) && e->rank >= 4 && !e->compat && elf && !strcmp(elf, name))
			return 1;
	}
	return 0;
}

int ptd__symbols_functions(struct ptd_symbols *s, const char *name, uint64_t **entries,
			   uint64_t **bps)
{
	const struct sym_ent *best;
	uint64_t *e, *b;
	size_t n = 0, cap = 4;

	*entries = *bps = NULL;
	if (!s || !name)
		return -ptde_invalid;
	best = find_function(s, name, 1);
	if (!best)
		return 0;
	e = malloc(cap * sizeof(*e));
	b = malloc(cap * sizeof(*b));
	if (!e || !b) {
		free(e);
		free(b);
		return -ptde_nomem;
	}
	e[n] = best->start;
	b[n++] = breakpoint_addr(s, best);
	/* gdb's linespec finds every function of that name with debug
	 * information: static ones of other compilation units too */
	for (size_t i = 0; i < s->nsyms; i++) {
		const struct sym_ent *x = &s->syms[i];
		size_t j;

		if (!(x->rank & 1) || !(sym_named(x, name) || sym_named_in_scope(x, name)))
			continue;
		for (j = 0; j < n && e[j] != x->start; j++)
			;
		/* (and those of the other files loaded: ld.so's own opendir
		 * besides libc's, where it has debug information) */
		if (j < n || !cu_for_addr(x->mod, x->start) ||
		    (x->mod == best->mod && !cu_for_addr(best->mod, best->start)))
			continue;
		/* (not a compat symbol of another file: glibc's
		 * step@GLIBC_2.2.5 is no "step" for gdb) */
		if (x->mod != best->mod && x->compat)
			continue;
		if (n == cap) {
			uint64_t *e2 = realloc(e, 2 * cap * sizeof(*e)), *b2;

			if (e2)
				e = e2;
			b2 = e2 ? realloc(b, 2 * cap * sizeof(*b)) : NULL;
			if (!b2) {
				free(e);
				free(b);
				return -ptde_nomem;
			}
			b = b2;
			cap *= 2;
		}
		e[n] = x->start;
		b[n++] = breakpoint_addr(s, x);
	}
	*entries = e;
	*bps = b;
	return (int)n;
}

/* @path ends with @want at a '/' boundary (or equals it). */
static int path_matches(const char *path, const char *want)
{
	size_t lp, lw;

	if (!path || !want)
		return 0;
	lp = strlen(path);
	lw = strlen(want);
	if (lw > lp)
		return 0;
	if (strcmp(path + lp - lw, want))
		return 0;
	return lp == lw || path[lp - lw - 1] == '/' || want[0] == '/';
}

int ptd_symbols_file_line(struct ptd_symbols *s, const char *file, int line, uint64_t *addr,
			  int *actual_line)
{
	struct mod_list mods = { 0 };
	int best_line = INT_MAX;
	uint64_t best_addr = UINT64_MAX;
	size_t mi, i;

	if (!s || !file || line <= 0)
		return ptd__err(-ptde_invalid, "symbols: bad argument");
	dwfl_getmodules(s->dwfl, collect_mod, &mods, 0);
	for (mi = 0; mi < mods.n; mi++) {
		struct modlines *ml = lines_for_mod(s, mods.v[mi]);
		const char *last_file = NULL;
		int last_match = 0;

		if (!ml)
			continue;
		for (i = 0; i < ml->n; i++) {
			const struct row *r = &ml->rows[i];

			if (r->end_seq || !r->is_stmt || r->line < line)
				continue;
			if (r->file != last_file) {
				last_file = r->file;
				last_match = path_matches(r->file, file);
			}
			if (!last_match)
				continue;
			if (r->line < best_line || (r->line == best_line && r->addr < best_addr)) {
				best_line = r->line;
				best_addr = r->addr;
			}
		}
	}
	free(mods.v);
	if (best_line == INT_MAX)
		return ptd__err(-ptde_notfound, "no line %d in file \"%s\"", line, file);
	/* A line that starts a function gets the function's breakpoint
	 * address, as gdb skips the prologue there too. */
	{
		const struct sym_ent *e = find_sym(s, best_addr);

		if (e && e->start == best_addr && (e->rank & 1)) {
			struct ptd_line l;

			uint64_t bp = breakpoint_addr(s, e);

			if (bp != best_addr && ptd_symbols_line(s, bp, &l) == 0)
				best_line = l.line;
			best_addr = bp;
		}
	}
	if (addr)
		*addr = best_addr;
	if (actual_line)
		*actual_line = best_line;
	return 0;
}

/* ---- breakpoints with several locations ---- */

static int block_entry(Dwarf_Die *d, uint64_t bias, uint64_t *entry);
static int concrete_scopes(Dwarf_Die *cu, uint64_t addr, Dwarf_Die **out);

/* A growing array of addresses, without duplicates (gdb's
 * maybe_add_address: one location per address). */
struct addr_list {
	uint64_t *v;
	size_t n, c;
};

static int addr_push(struct addr_list *l, uint64_t a)
{
	for (size_t i = 0; i < l->n; i++)
		if (l->v[i] == a)
			return 0;
	if (l->n == l->c) {
		size_t c = l->c ? l->c * 2 : 8;
		uint64_t *v = realloc(l->v, c * sizeof(*v));

		if (!v)
			return -ptde_nomem;
		l->v = v;
		l->c = c;
	}
	l->v[l->n++] = a;
	return 0;
}

/* Whether DIE @d is named @name (DW_AT_name or the linkage name). */
/* Whether function @d is @name, a name with a scope ("Rect::area"): its
 * name qualified by the classes and namespaces around its declaration
 * ends with it. */
static int die_named_in_scope(Dwarf_Die *d, const char *name)
{
	Dwarf_Attribute at;
	Dwarf_Die decl = *d, *scopes = NULL;
	char q[1024];
	size_t len = 0;
	int n, i, ok = 1;

	if (dwarf_attr(d, DW_AT_specification, &at) && !dwarf_formref_die(&at, &decl))
		return 0;
	n = dwarf_getscopes_die(&decl, &scopes);
	for (i = n - 1; i >= 0 && ok; i--) {
		int tag = dwarf_tag(&scopes[i]);
		const char *nm = dwarf_diename(&scopes[i]);
		int w;

		if (i && tag != DW_TAG_namespace && tag != DW_TAG_structure_type &&
		    tag != DW_TAG_class_type && tag != DW_TAG_union_type)
			continue;
		if (!nm) {
			ok = i > 0 && tag == DW_TAG_namespace;
			nm = "(anonymous namespace)";
		}
		w = snprintf(q + len, sizeof(q) - len, "%s%s", len ? "::" : "", nm);
		if (w < 0 || (size_t)w >= sizeof(q) - len)
			ok = 0;
		else
			len += (size_t)w;
	}
	free(scopes);
	return ok && n > 0 && scope_ends_with(q, len, name);
}

static int die_named(Dwarf_Die *d, const char *name)
{
	Dwarf_Attribute at;
	const char *n = dwarf_diename(d), *ln = NULL;

	/* A C function with an asm label is named by it in gdb (glibc's
	 * copies of stdlib.h's inline atoi are "__GI_atoi"), not by the
	 * name it was written with; a mangled C++ name is matched below. */
	if (dwarf_attr_integrate(d, DW_AT_linkage_name, &at))
		ln = dwarf_formstring(&at);
	if (ln && *ln && strncmp(ln, "_Z", 2) && n && strcmp(ln, n))
		return !strcmp(ln, name);
	if (n && !strcmp(n, name))
		return 1;
	/* a template instance by its name without the arguments ("fold" for
	 * "fold<Shape, main()::<lambda(int, Shape*)> >") */
	if (n && !strchr(name, '<') && !strstr(name, "operator")) {
		size_t k = strlen(name), len = strlen(n);

		if (len > k + 1 && !strncmp(n, name, k) && n[k] == '<' && n[len - 1] == '>')
			return 1;
	}
	if ((dwarf_attr_integrate(d, DW_AT_linkage_name, &at) ||
	     dwarf_attr_integrate(d, DW_AT_MIPS_linkage_name, &at)) &&
	    (n = dwarf_formstring(&at)) && !strcmp(n, name))
		return 1;
	return strstr(name, "::") && die_named_in_scope(d, name);
}

/*
 * Where gdb puts the location of an inlined copy entered at @entry:
 * there, where the compilation unit's variable locations are valid (gcc
 * with location lists: find_function_start_sal_1); else past the prologue
 * of the real function around it when the copy starts inside that
 * prologue (skip_prologue_sal leaves an address already past it alone).
 */
static uint64_t inlined_bp_addr(struct ptd_symbols *s, int valid, uint64_t entry)
{
	const struct sym_ent *e;
	uint64_t bp;

	if (valid)
		return entry;
	e = find_sym(s, entry);
	if (!e || !(e->rank & 1))
		return entry;
	bp = breakpoint_addr(s, e);
	return entry < bp ? bp : entry;
}

/* The inlined copies of @name under DIE @d (depth-first, in DIE order). */
static int walk_inlined(struct ptd_symbols *s, int valid, Dwarf_Die *d,
			const char *name, uint64_t bias, struct addr_list *out, int depth)
{
	Dwarf_Die child;
	int rc = 0;

	if (depth > 256 || dwarf_child(d, &child) != 0)
		return 0;
	do {
		int tag = dwarf_tag(&child);

		if (tag == DW_TAG_inlined_subroutine || tag == DW_TAG_subprogram) {
			Dwarf_Attribute at;
			Dwarf_Die origin;
			uint64_t entry;

			/* an inlined copy, or an out-of-line one gcc made of
			 * the function under another ELF name (NAME.isra.0,
			 * NAME.constprop.0: a concrete subprogram whose
			 * abstract origin is NAME), which gdb finds by name */
			if (dwarf_attr(&child, DW_AT_abstract_origin, &at) &&
			    dwarf_formref_die(&at, &origin) && die_named(&origin, name) &&
			    block_entry(&child, bias, &entry) == 0) {
				const struct sym_ent *e = find_sym(s, entry);

				if (tag == DW_TAG_inlined_subroutine)
					rc = addr_push(out, inlined_bp_addr(s, valid, entry));
				else if (e && e->start == entry && (e->rank & 1))
					rc = addr_push(out, breakpoint_addr(s, e));
				else
					rc = addr_push(out, entry);
			}
		}
		if (rc == 0 && (tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine ||
				tag == DW_TAG_lexical_block || tag == DW_TAG_namespace ||
				tag == DW_TAG_class_type || tag == DW_TAG_structure_type))
			rc = walk_inlined(s, valid, &child, name, bias, out, depth + 1);
	} while (rc == 0 && dwarf_siblingof(&child, &child) == 0);
	return rc;
}

static int addr_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* A loaded file as "PATH@START": the same file loaded again elsewhere is
 * another one. */
static char *mod_key(Dwfl_Module *m)
{
	Dwarf_Addr start = 0;
	const char *path;
	char *k;
	size_t n;

	dwfl_module_info(m, NULL, &start, NULL, NULL, NULL, NULL, NULL);
	path = mod_path(m);
	n = strlen(path ? path : "") + 24;
	k = malloc(n);
	if (k)
		snprintf(k, n, "%s@%llx", path ? path : "", (unsigned long long)start);
	return k;
}

int ptd__symbols_module_keys(struct ptd_symbols *s, char ***out)
{
	struct mod_list mods = { 0 };
	char **v;
	size_t n = 0;

	*out = NULL;
	if (!s)
		return -ptde_invalid;
	dwfl_getmodules(s->dwfl, collect_mod, &mods, 0);
	v = calloc(mods.n + 1, sizeof(*v));
	for (size_t i = 0; v && i < mods.n; i++)
		if ((v[n] = mod_key(mods.v[i])) != NULL)
			n++;
	free(mods.v);
	if (!v)
		return -ptde_nomem;
	*out = v;
	return (int)n;
}

int ptd__symbols_added_have(struct ptd_symbols *s, char *const *keys, int nkeys, const char *name)
{
	struct mod_list mods = { 0 };
	int found = 0;

	if (!s || !name)
		return 1;
	if (!s->syms_built)
		build_syms(s);
	dwfl_getmodules(s->dwfl, collect_mod, &mods, 0);
	for (size_t mi = 0; mi < mods.n && !found; mi++) {
		char *k = mod_key(mods.v[mi]);
		int known = 0;

		for (int j = 0; k && j < nkeys && !known; j++)
			known = !strcmp(keys[j], k);
		free(k);
		if (known)
			continue;
		for (size_t i = 0; i < s->nall && !found; i++) {
			const struct sym_ent *e = &s->all[i];

			found = e->mod == mods.v[mi] && (e->rank & 1) &&
				(sym_named(e, name) || sym_named_in_scope(e, name));
		}
		Dwarf_Die *cu = NULL;
		Dwarf_Addr bias = 0;
		struct addr_list l = { 0 };

		while (!found && (cu = dwfl_module_nextcu(mods.v[mi], cu, &bias))) {
			walk_inlined(s, 0, cu, name, bias, &l, 0);
			found = l.n > 0;
		}
		free(l.v);
	}
	free(mods.v);
	ptd_clear_error();
	return found;
}

int ptd__symbols_inlined_entries(struct ptd_symbols *s, const char *name, uint64_t **out)
{
	struct mod_list mods = { 0 };
	struct addr_list l = { 0 };
	int rc = 0;

	*out = NULL;
	if (!s || !name)
		return -ptde_invalid;
	dwfl_getmodules(s->dwfl, collect_mod, &mods, 0);
	for (size_t mi = 0; mi < mods.n && rc == 0; mi++) {
		Dwarf_Die *cu = NULL;
		Dwarf_Addr bias = 0;

		while (rc == 0 && (cu = dwfl_module_nextcu(mods.v[mi], cu, &bias))) {
			int valid = cu_producer(cu) == PROD_GCC && has_loclist(cu, 0);

			rc = walk_inlined(s, valid, cu, name, bias, &l, 0);
		}
	}
	free(mods.v);
	if (rc < 0) {
		free(l.v);
		return rc;
	}
	if (l.n > 1)
		qsort(l.v, l.n, sizeof(*l.v), addr_cmp);
	*out = l.v;
	return (int)l.n;
}

/* The DIE offset of the innermost block (lexical block, inlined call or
 * function) around @pc, gdb's block_for_pc, or 0. */
static Dwarf_Off block_at(struct ptd_symbols *s, uint64_t pc)
{
	Dwfl_Module *m = dwfl_addrmodule(s->dwfl, pc);
	Dwarf_Die *cu, *chain = NULL;
	Dwarf_Addr bias = 0;
	Dwarf_Off off = 0;
	int n;

	if (!m || !(cu = cu_for_addr(m, pc)))
		return 0;
	dwfl_module_getdwarf(m, &bias);
	n = concrete_scopes(cu, pc - bias, &chain);
	if (n > 0)
		off = dwarf_dieoffset(&chain[0]);
	free(chain);
	return off;
}

int ptd__symbols_line_addrs(struct ptd_symbols *s, const char *file, int line, uint64_t **out,
			    int *actual_line)
{
	struct mod_list mods = { 0 };
	struct addr_list l = { 0 };
	Dwarf_Off *blocks = NULL;
	uint64_t first;
	int best, rc = 0;
	size_t mi, i, k;

	*out = NULL;
	if (!s || !file || line <= 0)
		return ptd__err(-ptde_invalid, "symbols: bad argument");
	/* the line gdb takes: @line, else the first one after it with code */
	rc = ptd_symbols_file_line(s, file, line, &first, &best);
	if (rc < 0)
		return rc;
	/* (ptd_symbols_file_line gives the line past a function's prologue
	 * when the line starts a function: look for the line it found) */
	{
		int b2 = INT_MAX;

		dwfl_getmodules(s->dwfl, collect_mod, &mods, 0);
		for (mi = 0; mi < mods.n; mi++) {
			struct modlines *ml = lines_for_mod(s, mods.v[mi]);

			for (i = 0; ml && i < ml->n; i++) {
				const struct row *r = &ml->rows[i];

				if (!r->end_seq && r->is_stmt && r->line >= line && r->line < b2 &&
				    path_matches(r->file, file))
					b2 = r->line;
			}
		}
		if (b2 == INT_MAX) {
			free(mods.v);
			return ptd__err(-ptde_notfound, "no line %d in file \"%s\"", line, file);
		}
		line = b2;
	}
	/* every statement row of that line, in line-table order */
	for (mi = 0; mi < mods.n && rc == 0; mi++) {
		struct modlines *ml = lines_for_mod(s, mods.v[mi]);

		for (i = 0; ml && i < ml->n && rc == 0; i++) {
			const struct row *r = &ml->rows[i];

			if (!r->end_seq && r->is_stmt && r->line == line && path_matches(r->file, file))
				rc = addr_push(&l, r->addr);
		}
	}
	free(mods.v);
	if (rc < 0 || !l.n) {
		free(l.v);
		return rc < 0 ? rc : ptd__err(-ptde_notfound, "no line %d in file \"%s\"", line, file);
	}
	/* gdb keeps one address per block: a line scattered over several
	 * ranges of one function gets one location, a line inlined in
	 * several places one per copy (create_sals_line_offset) */
	blocks = calloc(l.n, sizeof(*blocks));
	if (!blocks) {
		free(l.v);
		return -ptde_nomem;
	}
	for (i = 0; i < l.n; i++)
		blocks[i] = block_at(s, l.v[i]);
	for (i = 0, k = 0; i < l.n; i++) {
		size_t j;

		for (j = 0; j < i && (!blocks[i] || blocks[j] != blocks[i]); j++)
			;
		if (j < i)
			continue;
		l.v[k++] = l.v[i];
	}
	l.n = k;
	free(blocks);
	/* A line that starts a function gets the function's breakpoint
	 * address, as gdb skips the prologue there too. */
	for (i = 0; i < l.n; i++) {
		const struct sym_ent *e = find_sym(s, l.v[i]);

		if (e && e->start == l.v[i] && (e->rank & 1))
			l.v[i] = breakpoint_addr(s, e);
	}
	for (i = 0, k = 0; i < l.n; i++) {
		size_t j;

		for (j = 0; j < k && l.v[j] != l.v[i]; j++)
			;
		if (j == k)
			l.v[k++] = l.v[i];
	}
	l.n = k;
	if (l.n > 1)
		qsort(l.v, l.n, sizeof(*l.v), addr_cmp);
	*actual_line = best;
	*out = l.v;
	return (int)l.n;
}

/* ---- source text ---- */

static struct srcfile *load_source(struct ptd_symbols *s, const char *path)
{
	struct srcfile *f;
	FILE *fp;
	size_t i, len = 0, cap = 0;
	char *text = NULL;
	int nl, k;

	for (i = 0; i < s->nsrc; i++)
		if (!strcmp(s->src[i].path, path))
			return &s->src[i];
	if (s->nsrc == s->csrc) {
		size_t c = s->csrc ? s->csrc * 2 : 8;
		struct srcfile *v = realloc(s->src, c * sizeof(*v));

		if (!v)
			return NULL;
		s->src = v;
		s->csrc = c;
	}
	f = &s->src[s->nsrc];
	memset(f, 0, sizeof(*f));
	f->path = strdup(path);
	if (!f->path)
		return NULL;
	s->nsrc++;
	fp = fopen(path, "re");
	if (!fp) {
		f->missing = 1;
		return f;
	}
	for (;;) {
		size_t got;

		if (cap - len < 4096) {
			char *t = realloc(text, cap ? cap * 2 : 8192);

			if (!t)
				break;
			text = t;
			cap = cap ? cap * 2 : 8192;
		}
		got = fread(text + len, 1, cap - len - 1, fp);
		if (got == 0)
			break;
		len += got;
	}
	fclose(fp);
	if (!text) {
		f->missing = 1;
		return f;
	}
	text[len] = '\0';
	for (i = 0, nl = 0; i < len; i++)
		nl += text[i] == '\n';
	f->lines = calloc((size_t)nl + 2, sizeof(char *));
	if (!f->lines) {
		free(text);
		f->missing = 1;
		return f;
	}
	f->text = text;
	f->lines[0] = text;
	for (i = 0, k = 1; i < len; i++) {
		if (text[i] == '\n') {
			text[i] = '\0';
			if (i > 0 && text[i - 1] == '\r')
				text[i - 1] = '\0';
			f->lines[k++] = text + i + 1;
		}
	}
	/* A final line without a newline counts; the empty tail after a
	 * final newline does not. */
	f->nlines = (len > 0 && text[len - 1] != '\0') ? k : k - 1;
	return f;
}

int ptd_symbols_source_line(struct ptd_symbols *s, const char *file, int line, char *out, size_t n)
{
	struct srcfile *f;

	if (!s || !file || !out || n == 0)
		return ptd__err(-ptde_invalid, "symbols: NULL argument");
	out[0] = '\0';
	f = load_source(s, file);
	if (!f)
		return ptd__err(-ptde_nomem, "symbols: out of memory");
	if (f->missing)
		return ptd__err(-ptde_notfound, "cannot read source file %s", file);
	if (line <= 0 || line > f->nlines)
		return ptd__err(-ptde_notfound, "line %d is out of range for \"%s\" (%d lines)", line,
				file, f->nlines);
	snprintf(out, n, "%s", f->lines[line - 1]);
	return 0;
}

int ptd_symbols_return_type(struct ptd_symbols *s, uint64_t pc, int *kind, int *size)
{
	Dwfl_Module *m;
	Dwarf_Die *cu, *scopes = NULL, type;
	Dwarf_Attribute attr;
	Dwarf_Addr bias = 0;
	Dwarf_Word enc = 0;
	int n, rc = -ptde_notfound;

	if (!s || !kind || !size)
		return -ptde_invalid;
	*kind = PTD_TYPE_UNKNOWN;
	*size = 0;
	m = dwfl_addrmodule(s->dwfl, pc);
	if (!m || !(cu = dwfl_module_addrdie(m, pc, &bias)))
		return -ptde_notfound;
	n = ptd__dwarf_scopes(cu, pc - bias, &scopes);
	for (int i = 0; i < n; i++) {
		if (dwarf_tag(&scopes[i]) != DW_TAG_subprogram)
			continue;
		if (!dwarf_attr_integrate(&scopes[i], DW_AT_type, &attr)) {
			*kind = PTD_TYPE_VOID;
			rc = 0;
			break;
		}
		if (!dwarf_formref_die(&attr, &type) || dwarf_peel_type(&type, &type) != 0)
			break;
		rc = 0;
		switch (dwarf_tag(&type)) {
		case DW_TAG_base_type:
			*size = dwarf_bytesize(&type);
			if (dwarf_attr(&type, DW_AT_encoding, &attr) && dwarf_formudata(&attr, &enc) == 0) {
				if (enc == DW_ATE_signed)
					*kind = PTD_TYPE_SIGNED;
				else if (enc == DW_ATE_unsigned)
					*kind = PTD_TYPE_UNSIGNED;
				else if (enc == DW_ATE_boolean)
					*kind = PTD_TYPE_BOOL;
				else if (enc == DW_ATE_signed_char || enc == DW_ATE_unsigned_char)
					*kind = PTD_TYPE_CHAR;
			}
			break;
		case DW_TAG_pointer_type:
			*kind = PTD_TYPE_POINTER;
			*size = 8;
			break;
		default:
			break;
		}
		break;
	}
	free(scopes);
	return rc;
}

/* The name of an inlined subroutine: its abstract origin's (followed
 * through DW_AT_specification and DW_AT_abstract_origin). */
static const char *inline_name(Dwarf_Die *die)
{
	Dwarf_Attribute attr;
	Dwarf_Die origin;
	const char *name;

	if (dwarf_attr_integrate(die, DW_AT_name, &attr) && (name = dwarf_formstring(&attr)))
		return name;
	if (dwarf_attr(die, DW_AT_abstract_origin, &attr) && dwarf_formref_die(&attr, &origin))
		return dwarf_diename(&origin);
	return NULL;
}

int ptd_symbols_inlined(struct ptd_symbols *s, uint64_t pc, struct ptd_inline *out, int max)
{
	Dwfl_Module *m;
	Dwarf_Die *cu, *scopes = NULL;
	Dwarf_Files *files = NULL;
	Dwarf_Addr bias = 0;
	size_t nfiles = 0;
	int n, k = 0;

	if (!s || (!out && max > 0))
		return -ptde_invalid;
	m = dwfl_addrmodule(s->dwfl, pc);
	if (!m || !(cu = cu_for_addr(m, pc)))
		return 0;
	dwfl_module_getdwarf(m, &bias);
	n = ptd__dwarf_scopes(cu, pc - bias, &scopes);
	int inl = 0;

	for (int i = 0; i < n && !inl; i++)
		inl = dwarf_tag(&scopes[i]) == DW_TAG_inlined_subroutine;
	if (inl) {
		/* dwarf_getscopes goes on into the inlined function's abstract
		 * definition; the innermost DIE's own parents are the concrete
		 * chain: the inlined calls around it, then the real function. */
		Dwarf_Die inner = scopes[0], *chain = NULL;

		free(scopes);
		scopes = NULL;
		n = dwarf_getscopes_die(&inner, &chain);
		scopes = chain;
	}
	if (dwarf_getsrcfiles(cu, &files, &nfiles) != 0)
		files = NULL;
	/* innermost first, up to the subprogram they are inlined into */
	for (int i = 0; i < n && k < max; i++) {
		Dwarf_Attribute attr;
		Dwarf_Word w;
		int tag = dwarf_tag(&scopes[i]);

		if (tag == DW_TAG_subprogram)
			break;
		if (tag != DW_TAG_inlined_subroutine)
			continue;
		out[k].name = inline_name(&scopes[i]);
		out[k].call_file = NULL;
		out[k].call_line = 0;
		if (dwarf_attr(&scopes[i], DW_AT_call_line, &attr) && dwarf_formudata(&attr, &w) == 0)
			out[k].call_line = (int)w;
		if (files && dwarf_attr(&scopes[i], DW_AT_call_file, &attr) &&
		    dwarf_formudata(&attr, &w) == 0 && w < nfiles)
			out[k].call_file = dwarf_filesrc(files, w, NULL, NULL);
		if (!out[k].name)
			out[k].name = "??";
		k++;
	}
	free(scopes);
	return k;
}

/* The entry pc of block @d as gdb takes it: the start of its first
 * range that is not empty (DW_AT_ranges in their order, or DW_AT_low_pc;
 * gdb drops empty ranges). */
static int block_entry(Dwarf_Die *d, uint64_t bias, uint64_t *entry)
{
	Dwarf_Addr base, start, end;
	ptrdiff_t off = 0;

	while ((off = dwarf_ranges(d, off, &base, &start, &end)) > 0) {
		if (start == end)
			continue;
		*entry = start + bias;
		return 0;
	}
	return -1;
}

/* The function defined under @parent (in a local class, a block, a
 * namespace) whose ranges hold @addr, into *@out; the ranges of the
 * functions passed through need not.  Returns 1, or 0 when none does. */
static int nested_fn(Dwarf_Die *parent, Dwarf_Addr addr, Dwarf_Die *out, int depth)
{
	Dwarf_Die c;

	if (depth > 32 || dwarf_child(parent, &c) != 0)
		return 0;
	do {
		switch (dwarf_tag(&c)) {
		case DW_TAG_subprogram:
			if (!dwarf_hasattr(&c, DW_AT_declaration) && dwarf_haspc(&c, addr) > 0) {
				*out = c;
				return 1;
			}
			/* fallthrough */
		case DW_TAG_lexical_block:
		case DW_TAG_structure_type:
		case DW_TAG_class_type:
		case DW_TAG_union_type:
		case DW_TAG_namespace:
			if (nested_fn(&c, addr, out, depth + 1))
				return 1;
			break;
		default:
			break;
		}
	} while (dwarf_siblingof(&c, &c) == 0);
	return 0;
}

int ptd__dwarf_scopes(Dwarf_Die *cu, Dwarf_Addr addr, Dwarf_Die **scopes)
{
	Dwarf_Die fn, inner, c, *chain = NULL;
	int n = dwarf_getscopes(cu, addr, scopes), i, k, deeper;

	for (i = 0; i < n; i++)
		if (dwarf_tag(&(*scopes)[i]) == DW_TAG_subprogram)
			return n;
	if (n < 0 || !nested_fn(cu, addr, &fn, 0))
		return n;
	/* the innermost block of @fn holding @addr */
	inner = fn;
	do {
		deeper = 0;
		if (dwarf_child(&inner, &c) != 0)
			break;
		do {
			int tag = dwarf_tag(&c);

			if ((tag == DW_TAG_lexical_block || tag == DW_TAG_inlined_subroutine ||
			     tag == DW_TAG_try_block || tag == DW_TAG_catch_block) &&
			    dwarf_haspc(&c, addr) > 0) {
				inner = c;
				deeper = 1;
				break;
			}
		} while (dwarf_siblingof(&c, &c) == 0);
	} while (deeper);
	n = dwarf_getscopes_die(&inner, &chain);
	if (n <= 0) {
		free(chain);
		return n;
	}
	for (i = 0; i < n; i++)
		if (dwarf_tag(&chain[i]) == DW_TAG_subprogram)
			break;
	k = i + 1;
	if (k < n && dwarf_tag(&chain[n - 1]) == DW_TAG_compile_unit)
		chain[k++] = chain[n - 1];
	free(*scopes);
	*scopes = chain;
	return k;
}

/* The concrete scopes around @pc (innermost first, the CU last), or
 * -1: libdw's dwarf_getscopes goes on from an inlined subroutine into
 * its abstract definition, the parents of the innermost DIE do not. */
static int concrete_scopes(Dwarf_Die *cu, uint64_t addr, Dwarf_Die **out)
{
	Dwarf_Die *scopes = NULL, inner;
	int n = ptd__dwarf_scopes(cu, addr, &scopes);

	*out = NULL;
	if (n <= 0) {
		free(scopes);
		return -1;
	}
	inner = scopes[0];
	free(scopes);
	n = dwarf_getscopes_die(&inner, out);
	if (n <= 0) {
		free(*out);
		*out = NULL;
		return -1;
	}
	return n;
}

/* Whether the block at DIE offset @off is entered at @pc: the innermost
 * block covering pc-1 (@prev, @nprev concrete scopes; none: -1) is
 * neither it nor inside it (gdb's block_starting_point_at; a real
 * function ends the walk, as in gdb's contained_in). */
static int starting_point(Dwarf_Off off, const Dwarf_Die *prev, int nprev)
{
	for (int i = 0; i < nprev; i++) {
		if (dwarf_dieoffset((Dwarf_Die *)&prev[i]) == off)
			return 0;
		if (dwarf_tag((Dwarf_Die *)&prev[i]) == DW_TAG_subprogram)
			break;
	}
	return 1;
}

static int inline_chain(struct ptd_symbols *s, uint64_t pc, struct ptd_iblock *out, int max)
{
	Dwfl_Module *m = dwfl_addrmodule(s->dwfl, pc);
	Dwarf_Die *cu, *chain = NULL, *prev = NULL;
	Dwarf_Files *files = NULL;
	Dwarf_Addr bias = 0;
	size_t nfiles = 0;
	int n, k = 0, nprev = -2, starting = 1;

	if (!m || !(cu = cu_for_addr(m, pc)))
		return 0;
	dwfl_module_getdwarf(m, &bias);
	n = concrete_scopes(cu, pc - bias, &chain);
	if (n <= 0)
		return 0;
	if (dwarf_getsrcfiles(cu, &files, &nfiles) != 0)
		files = NULL;
	for (int i = 0; i < n && k < max; i++) {
		Dwarf_Attribute attr;
		Dwarf_Word w;
		int tag = dwarf_tag(&chain[i]);
		struct ptd_iblock *b = &out[k];

		if (tag == DW_TAG_subprogram)
			break;
		if (tag != DW_TAG_inlined_subroutine)
			continue;
		memset(b, 0, sizeof(*b));
		b->name = inline_name(&chain[i]);
		if (!b->name)
			b->name = "??";
		if (block_entry(&chain[i], bias, &b->entry) < 0)
			b->entry = pc;
		if (dwarf_attr(&chain[i], DW_AT_call_line, &attr) && dwarf_formudata(&attr, &w) == 0)
			b->call_line = (int)w;
		if (files && dwarf_attr(&chain[i], DW_AT_call_file, &attr) &&
		    dwarf_formudata(&attr, &w) == 0 && w < nfiles)
			b->call_file = dwarf_filesrc(files, w, NULL, NULL);
		if (starting && b->entry != pc) {
			if (nprev == -2)
				nprev = pc > bias ? concrete_scopes(cu, pc - 1 - bias, &prev) : -1;
			starting = starting_point(dwarf_dieoffset(&chain[i]), prev, nprev);
		}
		b->starts = starting;
		k++;
	}
	free(prev);
	free(chain);
	return k;
}

int ptd__symbols_inline_chain(struct ptd_symbols *s, uint64_t pc, struct ptd_iblock *out, int max)
{
	struct icache_ent *e;

	if (!s || !out || max <= 0)
		return 0;
	if (max > PTD_ICHAIN_MAX)
		max = PTD_ICHAIN_MAX;
	if (!s->icache)
		s->icache = calloc(ICACHE_N, sizeof(*s->icache));
	e = s->icache ? &s->icache[(pc ^ (pc >> 10)) % ICACHE_N] : NULL;
	if (!e || !e->valid || e->pc != pc) {
		struct icache_ent tmp;

		tmp.pc = pc;
		tmp.valid = 1;
		tmp.n = inline_chain(s, pc, tmp.b, PTD_ICHAIN_MAX);
		ptd_clear_error();
		if (!e)
			e = &tmp;
		else
			*e = tmp;
		if (e == &tmp) {
			memcpy(out, tmp.b, sizeof(*out) * (size_t)(tmp.n < max ? tmp.n : max));
			return tmp.n < max ? tmp.n : max;
		}
	}
	memcpy(out, e->b, sizeof(*out) * (size_t)(e->n < max ? e->n : max));
	return e->n < max ? e->n : max;
}

int ptd_symbols_cfa_reg(struct ptd_symbols *s, uint64_t pc)
{
	int reg = -1;
	int64_t off = 0;

	return ptd_symbols_cfa_rule(s, pc, &reg, &off, NULL) == 0 ? reg : -1;
}

int ptd_symbols_cfa_rule(struct ptd_symbols *s, uint64_t pc, int *reg, int64_t *off,
			 int *rbp_same)
{
	Dwfl_Module *m;
	Dwarf_Frame *fr = NULL;
	Dwarf_Op *ops, mem[3];
	size_t nops;
	int rc = -ptde_notfound;

	if (!s || !reg || !off)
		return -ptde_invalid;
	m = dwfl_addrmodule(s->dwfl, pc);
	if (!m)
		return -ptde_notfound;
	for (int pass = 0; pass < 2 && !fr; pass++) {
		Dwarf_Addr bias = 0;
		Dwarf_CFI *cfi = pass ? dwfl_module_dwarf_cfi(m, &bias) : dwfl_module_eh_cfi(m, &bias);
		if (!cfi || dwarf_cfi_addrframe(cfi, pc - bias, &fr) != 0)
			fr = NULL;
	}
	if (!fr)
		return -ptde_notfound;
	if (dwarf_frame_cfa(fr, &ops, &nops) == 0 && nops == 1) {
		if (ops[0].atom == DW_OP_bregx) {
			*reg = (int)ops[0].number;
			*off = (int64_t)ops[0].number2;
			rc = 0;
		} else if (ops[0].atom >= DW_OP_breg0 && ops[0].atom <= DW_OP_breg31) {
			*reg = ops[0].atom - DW_OP_breg0;
			*off = (int64_t)ops[0].number;
			rc = 0;
		}
	}
	if (rbp_same)
		*rbp_same = dwarf_frame_register(fr, 6, mem, &ops, &nops) == 0 && nops == 0 &&
			    ops != NULL;
	free(fr);
	return rc;
}

struct Dwfl *ptd__symbols_dwfl(struct ptd_symbols *s)
{
	return s ? s->dwfl : NULL;
}

/* ---- tail calls (gdb's dwarf2/frame-tailcall.c and call_site_find_chain) ---- */

/* A call site: its return pc (the address after the call or jump), the
 * address of the function it calls (0: not known), tail call or not. */
struct csite {
	uint64_t pc, target;
	int tail;
};

struct csites {
	struct csite *v;
	int n, cap;
};

/* (bounds on the search, which follows every tail call reachable) */
#define TC_DEPTH 32
#define TC_STEPS 4096

/* The address @site calls: its origin's entry (a declaration by its
 * name, in any module), or a constant target; 0 when not known. */
static uint64_t csite_target(struct ptd_symbols *s, Dwarf_Die *site, Dwarf_Addr bias)
{
	Dwarf_Attribute a;
	Dwarf_Die o;
	Dwarf_Op *ops;
	size_t nops;
	Dwarf_Addr lo;
	uint64_t entry;
	const char *name = NULL;

	if ((dwarf_attr(site, DW_AT_call_origin, &a) || dwarf_attr(site, DW_AT_abstract_origin, &a)) &&
	    dwarf_formref_die(&a, &o)) {
		if (!dwarf_hasattr(&o, DW_AT_declaration) && dwarf_lowpc(&o, &lo) == 0)
			return lo + bias;
		if (dwarf_attr_integrate(&o, DW_AT_linkage_name, &a) ||
		    dwarf_attr_integrate(&o, DW_AT_MIPS_linkage_name, &a) ||
		    dwarf_attr_integrate(&o, DW_AT_name, &a))
			name = dwarf_formstring(&a);
		if (name && ptd_symbols_function(s, name, &entry, NULL) == 0)
			return entry;
		ptd_clear_error();
		return 0;
	}
	if ((dwarf_attr(site, DW_AT_call_target, &a) ||
	     dwarf_attr(site, DW_AT_GNU_call_site_target, &a)) &&
	    dwarf_getlocation(&a, &ops, &nops) == 0 && nops == 1 && ops[0].atom == DW_OP_addr)
		return ops[0].number + bias;
	return 0;
}

static void csites_walk(struct ptd_symbols *s, Dwarf_Die *die, Dwarf_Addr bias, struct csites *cs,
			int depth)
{
	Dwarf_Die c;

	if (depth > 64 || dwarf_child(die, &c) != 0)
		return;
	do {
		int tag = dwarf_tag(&c);

		if (tag == DW_TAG_call_site || tag == DW_TAG_GNU_call_site) {
			Dwarf_Attribute a;
			Dwarf_Addr pc;
			struct csite e;

			if (dwarf_attr(&c, DW_AT_call_return_pc, &a) ? dwarf_formaddr(&a, &pc) != 0
								      : dwarf_lowpc(&c, &pc) != 0)
				continue;
			e.pc = pc + bias;
			e.tail = dwarf_hasattr(&c, DW_AT_call_tail_call) ||
				 dwarf_hasattr(&c, DW_AT_GNU_tail_call);
			e.target = csite_target(s, &c, bias);
			if (cs->n == cs->cap) {
				int nc = cs->cap ? 2 * cs->cap : 16;
				struct csite *nv = realloc(cs->v, (size_t)nc * sizeof(*nv));

				if (!nv)
					return;
				cs->v = nv;
				cs->cap = nc;
			}
			cs->v[cs->n++] = e;
		} else if (tag == DW_TAG_lexical_block || tag == DW_TAG_inlined_subroutine) {
			/* (call sites of inlined code are the function's) */
			csites_walk(s, &c, bias, cs, depth + 1);
		}
	} while (dwarf_siblingof(&c, &c) == 0);
}

/* The call sites of the function whose code holds @addr; *@entry gets
 * its entry.  Returns 0, or -1 when DWARF has no function there. */
static int func_csites(struct ptd_symbols *s, uint64_t addr, uint64_t *entry, struct csites *cs)
{
	Dwfl_Module *m = dwfl_addrmodule(s->dwfl, addr);
	Dwarf_Addr bias = 0;
	Dwarf_Die *cu, *scopes = NULL;
	int n, i;

	cs->n = 0;
	if (!m || !dwfl_module_getdwarf(m, &bias) || !(cu = cu_for_addr(m, addr)))
		return -1;
	n = concrete_scopes(cu, addr - bias, &scopes);
	for (i = 0; i < n; i++)
		if (dwarf_tag(&scopes[i]) == DW_TAG_subprogram)
			break;
	if (i >= n) {
		free(scopes);
		return -1;
	}
	*entry = low_addr(&scopes[i]) + bias;
	csites_walk(s, &scopes[i], bias, cs, 0);
	free(scopes);
	return 0;
}

/* One step of the search: the chains of tail call sites (their pcs in
 * @path, @depth long) from the function at @func to the one at @callee. */
struct tcsearch {
	struct ptd_symbols *s;
	uint64_t callee;
	uint64_t path[TC_DEPTH];
	uint64_t *res; /* the first chain, then the intersection */
	int len, callers, callees, have, failed, steps;
};

static void tc_candidate(struct tcsearch *t, int depth)
{
	int k;

	if (!t->have) {
		memcpy(t->res, t->path, (size_t)depth * sizeof(*t->res));
		t->len = t->callers = t->callees = depth;
		t->have = 1;
		return;
	}
	k = t->callers < depth ? t->callers : depth;
	for (int i = 0; i < k; i++)
		if (t->res[i] != t->path[i]) {
			t->callers = i;
			break;
		}
	k = t->callees < depth ? t->callees : depth;
	for (int i = 0; i < k; i++)
		if (t->res[t->len - 1 - i] != t->path[depth - 1 - i]) {
			t->callees = i;
			break;
		}
	if (t->callers == 0 && t->callees == 0)
		t->failed = 1; /* nothing in common: ambiguous */
}

static void tc_search(struct tcsearch *t, uint64_t func, int depth)
{
	struct csites cs = { 0 };
	uint64_t entry;

	if (t->failed || ++t->steps > TC_STEPS) {
		t->failed = 1;
		return;
	}
	if (func == t->callee) {
		tc_candidate(t, depth);
		return;
	}
	/* (gdb gives up when a target has no function) */
	if (depth >= TC_DEPTH || func_csites(t->s, func, &entry, &cs) < 0) {
		t->failed = 1;
		free(cs.v);
		return;
	}
	for (int i = 0; i < cs.n && !t->failed; i++) {
		int seen = 0;

		if (!cs.v[i].tail)
			continue;
		if (!cs.v[i].target) {
			t->failed = 1; /* an indirect jump: the chain cannot be told */
			break;
		}
		for (int j = 0; j < depth; j++)
			seen |= t->path[j] == cs.v[i].pc;
		if (seen)
			continue;
		t->path[depth] = cs.v[i].pc;
		tc_search(t, cs.v[i].target, depth + 1);
	}
	free(cs.v);
}

int ptd__symbols_tailcalls(struct ptd_symbols *s, uint64_t ret, uint64_t pc, uint64_t *out,
			   int max)
{
	struct csites cs = { 0 };
	struct tcsearch t;
	uint64_t res[TC_DEPTH], entry, callee, target = 0;
	int i, n = 0, found = 0;

	if (!s || !out || max <= 0 || !ret)
		return 0;
	/* the function of the frame, and the caller's call site at @ret */
	if (func_csites(s, pc, &callee, &cs) < 0) {
		free(cs.v);
		ptd_clear_error();
		return 0;
	}
	if (func_csites(s, ret - 1, &entry, &cs) == 0)
		for (i = 0; i < cs.n; i++)
			if (cs.v[i].pc == ret) {
				found = 1;
				target = cs.v[i].target;
				break;
			}
	free(cs.v);
	if (!found || !target || target == callee) {
		ptd_clear_error();
		return 0;
	}
	memset(&t, 0, sizeof(t));
	t.s = s;
	t.callee = callee;
	t.res = res;
	tc_search(&t, target, 0);
	ptd_clear_error();
	if (t.failed || !t.have || t.len == 0)
		return 0;
	/* gdb's pretend_pc: the callees (innermost first), then the callers
	 * not among them */
	for (i = 0; i < t.callees && n < max; i++)
		out[n++] = res[t.len - 1 - i];
	if (t.callees != t.len)
		for (i = t.callers - 1; i >= 0 && n < max; i--)
			out[n++] = res[i];
	return n;
}

/* One module's SystemTap probe notes (.note.stapsdt): each note is the
 * probe's address, the .stapsdt.base address it was linked against and
 * its semaphore, then "provider\0name\0arguments\0".  A module moved from
 * where it was linked (prelink) is told by where .stapsdt.base is now. */
struct probe_find {
	const char *provider, *name;
	uint64_t *v;
	int n, cap;
};

static void module_probes(Dwfl_Module *m, struct probe_find *pf)
{
	GElf_Addr bias = 0, base_now = 0;
	Elf *elf = dwfl_module_getelf(m, &bias);
	Elf_Scn *scn = NULL, *notes = NULL;
	size_t shstrndx;

	if (!elf || elf_getshdrstrndx(elf, &shstrndx) < 0)
		return;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *nm;

		if (!gelf_getshdr(scn, &sh) || !(nm = elf_strptr(elf, shstrndx, sh.sh_name)))
			continue;
		if (sh.sh_type == SHT_NOTE && !strcmp(nm, ".note.stapsdt"))
			notes = scn;
		else if (!strcmp(nm, ".stapsdt.base"))
			base_now = sh.sh_addr;
	}
	Elf_Data *d = notes ? elf_getdata(notes, NULL) : NULL;
	size_t off = 0, noff, doff;
	GElf_Nhdr nh;

	while (d && (off = gelf_getnote(d, off, &nh, &noff, &doff)) > 0) {
		const char *desc = (const char *)d->d_buf + doff, *prov, *pname;
		uint64_t pc, base;

		if (nh.n_type != 3 || nh.n_namesz != 8 ||
		    memcmp((const char *)d->d_buf + noff, "stapsdt", 8) || nh.n_descsz < 26)
			continue;
		memcpy(&pc, desc, 8);
		memcpy(&base, desc + 8, 8);
		prov = desc + 24;
		if (!memchr(prov, 0, nh.n_descsz - 24))
			continue;
		pname = prov + strlen(prov) + 1;
		if (pname >= desc + nh.n_descsz || !memchr(pname, 0, (size_t)(desc + nh.n_descsz - pname)))
			continue;
		if (strcmp(prov, pf->provider) || strcmp(pname, pf->name))
			continue;
		if (base_now)
			pc += base_now - base;
		if (pf->n == pf->cap) {
			int cap = pf->cap ? 2 * pf->cap : 4;
			uint64_t *nv = realloc(pf->v, (size_t)cap * sizeof(*nv));

			if (!nv)
				return;
			pf->v = nv;
			pf->cap = cap;
		}
		pf->v[pf->n++] = pc + bias;
	}
}

static int probe_mod(Dwfl_Module *m, void **ud, const char *name, Dwarf_Addr start, void *arg)
{
	(void)ud;
	(void)name;
	(void)start;
	module_probes(m, arg);
	return DWARF_CB_OK;
}

int ptd__symbols_stap_probes(struct ptd_symbols *s, const char *provider, const char *name,
			     uint64_t **out)
{
	struct probe_find pf = { provider, name, NULL, 0, 0 };

	*out = NULL;
	if (!s || !s->dwfl)
		return 0;
	dwfl_getmodules(s->dwfl, probe_mod, &pf, 0);
	*out = pf.v;
	return pf.n;
}
