/*
 * The shared objects of the live program, for `info sharedlibrary`: the
 * dynamic linker's list of them, with the relocated bounds of its .text as gdb shows them, and whether it has
 * a symbol table and debugging information (in it, or under
 * /usr/lib/debug/.build-id as gdb finds it).
 */
#include "session/session_int.h"

#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <elf.h>
#include <link.h>
#include <unistd.h>

#include "target/target.h"
#include "util/error.h"

struct objinfo {
	uint64_t text_lo, text_hi; /* unrelocated */
	uint64_t first_vaddr;      /* the lowest PT_LOAD's page */
	int is_dyn, has_symbols, has_debuginfo;
	unsigned char build_id[64];
	size_t build_id_len;
};

static int debug_file_exists(const struct objinfo *o)
{
	char path[256];
	size_t n;

	if (o->build_id_len < 2)
		return 0;
	n = (size_t)snprintf(path, sizeof(path), "/usr/lib/debug/.build-id/%02x/", o->build_id[0]);
	for (size_t i = 1; i < o->build_id_len && n + 3 < sizeof(path); i++)
		n += (size_t)snprintf(path + n, sizeof(path) - n, "%02x", o->build_id[i]);
	snprintf(path + n, sizeof(path) - n, ".debug");
	return access(path, R_OK) == 0;
}

static int read_obj(const char *path, struct objinfo *o)
{
	Elf *e;
	Elf_Scn *scn = NULL;
	GElf_Ehdr eh;
	size_t shstrndx, nph;
	int fd, rc = -1;

	memset(o, 0, sizeof(*o));
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	elf_version(EV_CURRENT);
	e = elf_begin(fd, ELF_C_READ, NULL);
	if (!e || elf_kind(e) != ELF_K_ELF || !gelf_getehdr(e, &eh) ||
	    elf_getshdrstrndx(e, &shstrndx) < 0 || elf_getphdrnum(e, &nph) < 0)
		goto out;
	o->is_dyn = eh.e_type == ET_DYN;
	o->first_vaddr = UINT64_MAX;
	for (size_t i = 0; i < nph; i++) {
		GElf_Phdr ph;

		if (gelf_getphdr(e, (int)i, &ph) && ph.p_type == PT_LOAD &&
		    (ph.p_vaddr & ~(uint64_t)0xfff) < o->first_vaddr)
			o->first_vaddr = ph.p_vaddr & ~(uint64_t)0xfff;
	}
	if (o->first_vaddr == UINT64_MAX)
		o->first_vaddr = 0;
	while ((scn = elf_nextscn(e, scn)) != NULL) {
		GElf_Shdr sh;
		const char *name;

		if (!gelf_getshdr(scn, &sh))
			continue;
		name = elf_strptr(e, shstrndx, sh.sh_name);
		if (!name)
			continue;
		if (!strcmp(name, ".text")) {
			o->text_lo = sh.sh_addr;
			o->text_hi = sh.sh_addr + sh.sh_size;
		} else if (sh.sh_type == SHT_SYMTAB || sh.sh_type == SHT_DYNSYM) {
			o->has_symbols = 1;
		} else if (!strcmp(name, ".debug_info")) {
			o->has_debuginfo = 1;
		} else if (sh.sh_type == SHT_NOTE && !strcmp(name, ".note.gnu.build-id")) {
			Elf_Data *d = elf_getdata(scn, NULL);
			GElf_Nhdr nh;
			size_t off = 0, noff, doff;

			while (d && (off = gelf_getnote(d, off, &nh, &noff, &doff)) > 0)
				if (nh.n_type == NT_GNU_BUILD_ID && nh.n_descsz <= sizeof(o->build_id) &&
				    doff + nh.n_descsz <= d->d_size) {
					memcpy(o->build_id, (const char *)d->d_buf + doff, nh.n_descsz);
					o->build_id_len = nh.n_descsz;
				}
		}
	}
	if (!o->has_debuginfo)
		o->has_debuginfo = debug_file_exists(o);
	rc = 0;
out:
	if (e)
		elf_end(e);
	close(fd);
	return rc;
}

/* The exe's PT_INTERP and PT_DYNAMIC, its entry point. */
static int exe_info(const char *path, char *interp, size_t n, uint64_t *dyn, uint64_t *entry)
{
	Elf *e;
	GElf_Ehdr eh;
	size_t nph;
	int fd, rc = -1;

	interp[0] = 0;
	*dyn = 0;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	elf_version(EV_CURRENT);
	e = elf_begin(fd, ELF_C_READ, NULL);
	if (!e || !gelf_getehdr(e, &eh) || elf_getphdrnum(e, &nph) < 0)
		goto out;
	*entry = eh.e_entry;
	for (size_t i = 0; i < nph; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(e, (int)i, &ph))
			continue;
		if (ph.p_type == PT_DYNAMIC)
			*dyn = ph.p_vaddr;
		if (ph.p_type == PT_INTERP && ph.p_filesz < n &&
		    pread(fd, interp, ph.p_filesz, (off_t)ph.p_offset) == (ssize_t)ph.p_filesz)
			interp[ph.p_filesz] = 0;
	}
	rc = 0;
out:
	if (e)
		elf_end(e);
	close(fd);
	return rc;
}

static uint64_t auxv_get(pid_t pid, uint64_t type)
{
	char path[64];
	uint64_t v[2], entry = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/auxv", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return 0;
	while (fread(v, sizeof(v), 1, f) == 1 && v[0] != AT_NULL)
		if (v[0] == type)
			entry = v[1];
	fclose(f);
	return entry;
}

static int read_u64(struct ptd_session *s, uint64_t addr, uint64_t *v)
{
	return ptd_session_read(s, addr, v, 8) == 8 ? 0 : -1;
}

static int report_obj(const char *name, uint64_t bias,
		      void (*fn)(void *ctx, const struct ptd_shlib *l), void *ctx)
{
	struct objinfo o;
	struct ptd_shlib l;

	if (name[0] != '/' || read_obj(name, &o) < 0)
		return 0;
	memset(&l, 0, sizeof(l));
	l.path = name;
	if (o.text_hi > o.text_lo) {
		l.text_lo = o.text_lo + bias;
		l.text_hi = o.text_hi + bias;
	}
	l.has_symbols = o.has_symbols;
	l.has_debuginfo = o.has_debuginfo;
	l.bias = bias;
	fn(ctx, &l);
	return 1;
}

/*
 * The dynamic linker's list (r_debug.r_map through the executable's
 * DT_DEBUG), as gdb reads it: names as the linker has them, l_addr the
 * load bias; the interpreter first, as gdb knows it before the others.
 */
int ptd_session_shlibs(struct ptd_session *s, void (*fn)(void *ctx, const struct ptd_shlib *l),
		       void *ctx)
{
	char path[64], exe[4096], interp[512];
	uint64_t dyn, entry, bias, rdebug = 0, lm, interp_bias = 0;
	ssize_t en;
	int count = 0, have_interp = 0;

	if (!s || !fn)
		return -ptde_invalid;
	if (!ptd_session_alive(s))
		return ptd__err(-ptde_not_running, "The program is not being run.");
	snprintf(path, sizeof(path), "/proc/%d/exe", (int)ptd_session_pid(s));
	en = readlink(path, exe, sizeof(exe) - 1);
	if (en <= 0)
		return ptd__err(-ptde_sys, "cannot read %s: %m", path);
	exe[en] = 0;
	if (exe_info(exe, interp, sizeof(interp), &dyn, &entry) < 0)
		return ptd__err(-ptde_bad_trace, "cannot read the ELF headers of '%s'", exe);
	if (!dyn)
		return 0; /* static: no shared objects */
	bias = auxv_get(ptd_session_pid(s), AT_ENTRY) - entry;
	for (uint64_t a = dyn + bias;; a += 16) {
		uint64_t tag, val;

		if (read_u64(s, a, &tag) < 0 || read_u64(s, a + 8, &val) < 0 || tag == DT_NULL)
			break;
		if (tag == DT_DEBUG) {
			rdebug = val;
			break;
		}
	}
	/* r_debug: int r_version; struct link_map *r_map; ... */
	if (!rdebug || read_u64(s, rdebug + 8, &lm) < 0)
		lm = 0;
	/* The interpreter's bias: its own link_map entry, found below. */
	for (int pass = 0; pass < 2; pass++) {
		uint64_t m = lm;

		for (int guard = 0; m && guard < 100000; guard++) {
			uint64_t l_addr, l_name, l_next;
			char name[4096];
			long n;

			/* struct link_map: l_addr, l_name, l_ld, l_next, l_prev */
			if (read_u64(s, m, &l_addr) < 0 || read_u64(s, m + 8, &l_name) < 0 ||
			    read_u64(s, m + 24, &l_next) < 0)
				break;
			n = l_name ? ptd_session_read(s, l_name, name, sizeof(name) - 1) : 0;
			name[n > 0 ? n : 0] = 0;
			name[sizeof(name) - 1] = 0;
			m = l_next;
			if (!name[0])
				continue;
			if (interp[0] && !strcmp(name, interp)) {
				if (pass == 0) {
					interp_bias = l_addr;
					have_interp = 1;
				}
				continue;
			}
			if (pass == 1)
				count += report_obj(name, l_addr, fn, ctx);
		}
		/* Before the linker ran (starti) its list is empty: the
		 * kernel's AT_BASE says where it is. */
		if (pass == 0 && !have_interp && interp[0]) {
			interp_bias = auxv_get(ptd_session_pid(s), AT_BASE);
			have_interp = interp_bias != 0;
		}
		if (pass == 0 && have_interp)
			count += report_obj(interp, interp_bias, fn, ctx);
	}
	return count;
}

uint64_t ptd__ses_exe_bias(struct ptd_session *s, const char *exe)
{
	char interp[8];
	uint64_t dyn = 0, entry = 0;

	if (exe_info(exe, interp, sizeof(interp), &dyn, &entry) < 0)
		return 0;
	return auxv_get(ptd_session_pid(s), AT_ENTRY) - entry;
}

/*
 * The PLT entry of @name in ELF file @path (file addresses): the i-th
 * R_X86_64_JUMP_SLOT relocation of .rela.plt goes with the i-th entry of
 * .plt.sec when there is one (IBT), else with .plt's entry i+1 (entry 0 is
 * the resolver's), 16 bytes each.  Returns 0 or -1.
 */
int ptd__ses_plt_entry(const char *path, const char *name, uint64_t *addr)
{
	uint64_t plt = 0, plt_sec = 0;
	Elf_Scn *scn = NULL, *rela = NULL;
	GElf_Shdr rsh = { 0 };
	size_t shstrndx;
	Elf *e;
	int fd, rc = -1;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	elf_version(EV_CURRENT);
	e = elf_begin(fd, ELF_C_READ, NULL);
	if (!e || elf_getshdrstrndx(e, &shstrndx) < 0)
		goto out;
	while ((scn = elf_nextscn(e, scn)) != NULL) {
		GElf_Shdr sh;
		const char *n;

		if (!gelf_getshdr(scn, &sh) || !(n = elf_strptr(e, shstrndx, sh.sh_name)))
			continue;
		if (!strcmp(n, ".plt"))
			plt = sh.sh_addr;
		else if (!strcmp(n, ".plt.sec"))
			plt_sec = sh.sh_addr;
		else if (!strcmp(n, ".rela.plt") && sh.sh_type == SHT_RELA) {
			rela = scn;
			rsh = sh;
		}
	}
	if (!rela || !rsh.sh_entsize || (!plt && !plt_sec))
		goto out;
	{
		Elf_Data *d = elf_getdata(rela, NULL);
		Elf_Scn *dynsym = elf_getscn(e, rsh.sh_link);
		GElf_Shdr dsh;
		Elf_Data *dd = dynsym ? elf_getdata(dynsym, NULL) : NULL;

		if (!d || !dd || !gelf_getshdr(dynsym, &dsh))
			goto out;
		for (size_t i = 0; i < rsh.sh_size / rsh.sh_entsize; i++) {
			GElf_Rela r;
			GElf_Sym sym;
			const char *n;

			if (!gelf_getrela(d, (int)i, &r) || GELF_R_TYPE(r.r_info) != R_X86_64_JUMP_SLOT ||
			    !gelf_getsym(dd, (int)GELF_R_SYM(r.r_info), &sym))
				continue;
			n = elf_strptr(e, dsh.sh_link, sym.st_name);
			if (n && !strcmp(n, name)) {
				*addr = plt_sec ? plt_sec + 16 * i : plt + 16 * (i + 1);
				rc = 0;
				break;
			}
		}
	}
out:
	if (e)
		elf_end(e);
	close(fd);
	return rc;
}
