/*
 * What gdb's `info source` tells about the current source file: the
 * compile unit it belongs to (found by the pc when it lies in that unit,
 * else by the unit's line table naming the file), its compilation
 * directory, producer, language, DWARF version and macro information,
 * and the file on disk with its number of lines.
 */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ptdbg/ptdbg.h"
#include "symbols/symbols.h"
#include "util/error.h"

/* Does @cu's line table name @file (a path as ptd_symbols_line gives it)? */
static int cu_has_file(Dwarf_Die *cu, const char *file)
{
	Dwarf_Files *files;
	size_t n;

	if (dwarf_getsrcfiles(cu, &files, &n) != 0)
		return 0;
	for (size_t i = 0; i < n; i++) {
		const char *f = dwarf_filesrc(files, i, NULL, NULL);

		if (f && !strcmp(f, file))
			return 1;
	}
	return 0;
}

struct cu_search {
	const char *file;
	Dwarf_Die cu;
	int found;
};

static int search_mod(Dwfl_Module *m, void **ud, const char *name, Dwarf_Addr a, void *arg)
{
	struct cu_search *cs = arg;
	Dwarf_Addr bias;
	Dwarf *dw = dwfl_module_getdwarf(m, &bias);
	Dwarf_Off off = 0, next;
	size_t hsz;

	(void)ud, (void)name, (void)a;
	if (!dw)
		return DWARF_CB_OK;
	while (dwarf_nextcu(dw, off, &next, &hsz, NULL, NULL, NULL) == 0) {
		Dwarf_Die cu;

		if (dwarf_offdie(dw, off + hsz, &cu) && cu_has_file(&cu, cs->file)) {
			cs->cu = cu;
			cs->found = 1;
			return DWARF_CB_ABORT;
		}
		off = next;
	}
	return DWARF_CB_OK;
}

static const char *lang_name(int lang)
{
	switch (lang) {
	case DW_LANG_C89:
	case DW_LANG_C:
	case DW_LANG_C99:
	case DW_LANG_C11:
		return "c";
	case DW_LANG_C_plus_plus:
	case DW_LANG_C_plus_plus_03:
	case DW_LANG_C_plus_plus_11:
	case DW_LANG_C_plus_plus_14:
		return "c++";
	case DW_LANG_Mips_Assembler:
		return "asm";
	case DW_LANG_Rust:
		return "rust";
	case DW_LANG_Go:
		return "go";
	case DW_LANG_D:
		return "d";
	case DW_LANG_Fortran77:
	case DW_LANG_Fortran90:
	case DW_LANG_Fortran95:
	case DW_LANG_Fortran03:
	case DW_LANG_Fortran08:
		return "fortran";
	default:
		return "minimal";
	}
}

static const char *str_attr(Dwarf_Die *d, int name)
{
	Dwarf_Attribute a;

	return dwarf_attr(d, name, &a) ? dwarf_formstring(&a) : NULL;
}

int ptd_symbols_source_info(struct ptd_symbols *s, const char *file, uint64_t pc,
			    struct ptd_source_info *out)
{
	Dwfl *dwfl;
	Dwarf_Die cu, *cup = NULL;
	Dwarf_Addr bias;
	Dwarf_Half version = 0;
	FILE *f;

	if (!s || !file || !out)
		return -ptde_invalid;
	memset(out, 0, sizeof(*out));
	out->lines = -1;
	dwfl = ptd__symbols_dwfl(s);
	if (!dwfl)
		return ptd__err(-ptde_notfound, "No symbol table is loaded.");
	if (pc && (cup = dwfl_addrdie(dwfl, pc, &bias)) != NULL && cu_has_file(cup, file)) {
		cu = *cup;
	} else {
		struct cu_search cs = { .file = file };

		dwfl_getmodules(dwfl, search_mod, &cs, 0);
		if (!cs.found)
			return ptd__err(-ptde_notfound, "no compile unit names %s", file);
		cu = cs.cu;
	}
	out->name = ptd_symbols_display_name(s, file);
	out->comp_dir = str_attr(&cu, DW_AT_comp_dir);
	if (out->name == file && out->comp_dir && out->comp_dir[0] == '/') {
		/* named relative to the unit's directory, as the compiler was
		 * given it */
		size_t n = strlen(out->comp_dir);

		if (n && !strncmp(file, out->comp_dir, n) && file[n] == '/' && file[n + 1])
			out->name = file + n + 1;
	}
	out->producer = str_attr(&cu, DW_AT_producer);
	out->language = lang_name(dwarf_srclang(&cu));
	if (dwarf_cu_die(cu.cu, &cu, &version, NULL, NULL, NULL, NULL, NULL))
		out->dwarf_version = version;
	out->has_macros = dwarf_hasattr(&cu, DW_AT_macros) || dwarf_hasattr(&cu, DW_AT_GNU_macros) ||
			  dwarf_hasattr(&cu, DW_AT_macro_info);
	/* the file on disk, if it is there (a relative name is the unit's
	 * directory's, not ptdbg's: cd may have moved it) */
	char joined[4096];
	const char *path = file;

	if (file[0] != '/' && out->comp_dir &&
	    snprintf(joined, sizeof(joined), "%s/%s", out->comp_dir, file) < (int)sizeof(joined) &&
	    access(joined, R_OK) == 0)
		path = joined;
	if (realpath(path, out->fullname) && (f = fopen(out->fullname, "r")) != NULL) {
		int c, last = '\n';

		out->lines = 0;
		while ((c = getc(f)) != EOF) {
			if (c == '\n')
				out->lines++;
			last = c;
		}
		if (last != '\n')
			out->lines++;
		fclose(f);
	} else {
		out->fullname[0] = '\0';
	}
	return 0;
}
