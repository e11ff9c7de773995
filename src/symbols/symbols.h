/*
 * Symbols and source lines for a live process or a set of ELF files, via
 * libdwfl.  Addresses are absolute (load biases applied).  Results point
 * into storage owned by the ptd_symbols object and stay valid until the
 * next ptd_symbols_refresh() or ptd_symbols_free().
 */
#ifndef PTD_SYMBOLS_H
#define PTD_SYMBOLS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct ptd_symbols;

struct ptd_symbol {
	const char *name; /* demangled is not needed: C names as in ELF */
	uint64_t start;   /* function entry */
	uint64_t size;
	uint64_t offset;  /* addr - start */
	const char *module; /* path of the ELF module */
};

struct ptd_line {
	const char *file; /* as in DWARF, full path when known */
	int line;
	/* Address range [lo, hi) of the ONE line-table row containing addr:
	 * lo is that row's address, hi the next row's address (rows of the
	 * same line are NOT merged: gdb's sal.pc is the row start, and gdb
	 * prints "0x... in" / stops stepping by row starts).  Rows are the
	 * entries gdb keeps: it drops line-0 rows and repeats of a line that
	 * has discriminators, so [lo, hi) is exactly what gdb 13's
	 * "info line *addr" prints ("starts at ... and ends at ..."). */
	uint64_t lo, hi;
	int is_stmt;
};

/* Reports the modules mapped in @pid (from /proc/PID/maps). */
int ptd_symbols_alloc_pid(struct ptd_symbols **out, pid_t pid);
/* Reports a single ELF file at load bias @bias (offline / tests). */
int ptd_symbols_alloc_file(struct ptd_symbols **out, const char *path, uint64_t bias);
/* Adds a module file mapped at @start..@end (offline bundles). */
int ptd_symbols_add_file(struct ptd_symbols *s, const char *path, uint64_t start, uint64_t end);
/* Re-reads /proc/PID/maps (after exec, dlopen).  No-op for file sets. */
int ptd_symbols_refresh(struct ptd_symbols *s);
void ptd_symbols_free(struct ptd_symbols *s);

/* Returns 0 and fills @out, or -ptde_notfound. */
int ptd_symbols_lookup(struct ptd_symbols *s, uint64_t addr, struct ptd_symbol *out);
/*
 * Returns the entry of the function (or the start of the symbol) containing
 * @addr, or 0 when unknown.  A binary search in a table built once per
 * refresh: cheap enough to call per instruction.
 */
uint64_t ptd_symbols_func_start(struct ptd_symbols *s, uint64_t addr);

/*
 * A ptd_symbolizer_fn (src/disasm) over @ctx = struct ptd_symbols *:
 * writes "name" or "name+off" (decimal, as gdb prints <fib+23>) and
 * returns 0, or returns -ptde_notfound.
 */
int ptd_symbols_symbolize(void *ctx, uint64_t addr, char *out, size_t n);

/* Returns 0 and fills @out, or -ptde_notfound when @addr has no line. */
int ptd_symbols_line(struct ptd_symbols *s, uint64_t addr, struct ptd_line *out);

/*
 * Finds function @name.  *@entry gets its first instruction; *@bp gets the
 * address gdb would break at (after the prologue: the second line-table
 * row's address of the function, or the entry when there is no line info).
 * Returns 0, or -ptde_notfound.
 */
int ptd_symbols_function(struct ptd_symbols *s, const char *name, uint64_t *entry, uint64_t *bp);

/*
 * Finds the breakpoint address for @file:@line as gdb does: the lowest
 * is_stmt address of the first line >= @line that has code, in a file
 * whose name ends with @file.  *@actual_line gets that line.  Returns 0,
 * or -ptde_notfound.
 */
int ptd_symbols_file_line(struct ptd_symbols *s, const char *file, int line, uint64_t *addr,
			  int *actual_line);

enum ptd_type_kind {
	PTD_TYPE_UNKNOWN = 0, /* struct, float, ...: not shown */
	PTD_TYPE_VOID,
	PTD_TYPE_SIGNED,
	PTD_TYPE_UNSIGNED,
	PTD_TYPE_BOOL,
	PTD_TYPE_CHAR,
	PTD_TYPE_POINTER,
};

/*
 * Return type of the function containing @pc, from DWARF: *@kind (enum
 * ptd_type_kind) and *@size in bytes.  Returns 0, or -ptde_notfound when
 * there is no debug information for @pc.
 */
int ptd_symbols_return_type(struct ptd_symbols *s, uint64_t pc, int *kind, int *size);

/*
 * The name gdb displays for source file @file (a path ptd_symbols_line
 * returned): relative to its compilation directory when it lies below
 * it ("fib.c" for /src/fib.c compiled in /src), else @file itself.
 */
const char *ptd_symbols_display_name(struct ptd_symbols *s, const char *file);

/*
 * Reads source line @line of @file into @out (without newline).  Returns
 * 0, or -ptde_notfound when the file or line is not available.
 */
int ptd_symbols_source_line(struct ptd_symbols *s, const char *file, int line, char *out, size_t n);

/*
 * The Dwfl behind @s, for the value module (src/values), which walks DWARF
 * itself; it stays valid until the next ptd_symbols_refresh() or
 * ptd_symbols_free().  NULL for NULL.
 */
struct Dwfl;
struct Dwfl *ptd__symbols_dwfl(struct ptd_symbols *s);

#endif
