/*
 * Symbols and source lines for a live process or a set of ELF files, via
 * libdwfl.  Addresses are absolute (load biases applied).  Results point
 * into storage owned by the ptd_symbols object and stay valid until the
 * next ptd_symbols_refresh() or ptd_symbols_free().
 */
#ifndef PTD_SYMBOLS_H
#define PTD_SYMBOLS_H

#include <elfutils/libdw.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "ptdbg/ptdbg.h"

/* Lookups (struct ptd_symbol, ptd_line, ptd_symbols_lookup, ...) are
 * public: include/ptdbg/ptdbg.h.  Creating a symbol set is internal. */

struct ptd_symbols;
/* Reports the modules mapped in @pid (from /proc/PID/maps). */
int ptd_symbols_alloc_pid(struct ptd_symbols **out, pid_t pid);
/* Reports a single ELF file at load bias @bias (offline / tests). */
int ptd_symbols_alloc_file(struct ptd_symbols **out, const char *path, uint64_t bias);
/* Adds a module file mapped at @start..@end (offline bundles). */
int ptd_symbols_add_file(struct ptd_symbols *s, const char *path, uint64_t start, uint64_t end);
/* Re-reads /proc/PID/maps (after exec, dlopen).  No-op for file sets. */
int ptd_symbols_refresh(struct ptd_symbols *s);
void ptd_symbols_free(struct ptd_symbols *s);
/* The DWARF register number the call frame information at @pc computes
 * the CFA from (x86-64: 7 rsp, 6 rbp; another one while code such as
 * longjmp or an unwinder switches to another frame's stack), or -1 when
 * there is no CFI for @pc or the CFA is an expression. */
int ptd_symbols_cfa_reg(struct ptd_symbols *s, uint64_t pc);

/*
 * The rule for the canonical frame address at @pc from the call-frame
 * information of its module (.eh_frame, else .debug_frame): CFA = DWARF
 * register *@reg (6 rbp, 7 rsp...) + *@off.  *@rbp_same is set when rbp
 * still holds its value from the function's entry there (the same-value
 * rule).  Returns 0, -ptde_notfound (no CFI, or a rule that is an
 * expression), -ptde_invalid.
 */
int ptd_symbols_cfa_rule(struct ptd_symbols *s, uint64_t pc, int *reg, int64_t *off,
			 int *rbp_same);

/*
 * One inlined-subroutine block (DW_TAG_inlined_subroutine) around a pc, as
 * gdb 13 sees it for its inline frames: @entry is its entry pc (the start
 * of its first range, gdb's BLOCK_ENTRY_PC: inline frames are told apart
 * by it), @starts that the pc is where the block is entered (its entry,
 * or the address before it lies outside the block and outside every
 * block inside it: gdb's block_starting_point_at), so that gdb shows the
 * caller there first ("skipped" inline frames).
 */
#define PTD_ICHAIN_MAX 16
struct ptd_iblock {
	uint64_t entry;
	int starts;
	const char *name;
	const char *call_file; /* NULL when unknown */
	int call_line;
};
/*
 * dwarf_getscopes(@cu, @addr, @scopes) that also finds a function defined
 * in a class local to another function (a lambda's operator()) by its
 * own ranges: libdw passes over the enclosing function, whose ranges do
 * not hold @addr.  Such a function's scopes are its own blocks up to it,
 * then the CU, as gdb's blocks nest by address.  Returns the count, 0 or
 * -1 as dwarf_getscopes; the caller frees *@scopes.
 */
int ptd__dwarf_scopes(Dwarf_Die *cu, Dwarf_Addr addr, Dwarf_Die **scopes);

/*
 * The inlined blocks at @pc, innermost first, up to the real function:
 * at most @max (<= PTD_ICHAIN_MAX) into @out.  @starts is computed from
 * the innermost block outward up to the first block that does not start
 * at @pc; the ones beyond it have @starts 0.  Returns the count (0 for
 * none or no debug information).  Strings are owned by @s.
 */
int ptd__symbols_inline_chain(struct ptd_symbols *s, uint64_t pc, struct ptd_iblock *out, int max);

/*
 * Every out-of-line function `break NAME` gets a location at, as gdb 13:
 * the one ptd_symbols_function finds, and the functions of that name in
 * other compilation units of its module (static ones) when both have
 * debug information.  *@entries and *@bps (malloc'ed, the caller frees
 * both) get their entries and breakpoint addresses, the first the one
 * ptd_symbols_function gives.  Returns the count (0: none), or <0.
 */
int ptd__symbols_functions(struct ptd_symbols *s, const char *name, uint64_t **entries,
			   uint64_t **bps);
/*
 * The entries of the inlined copies (DW_TAG_inlined_subroutine) of
 * function @name in every module, where gdb 13's `break NAME` puts a
 * location for each: the copy's entry pc (its first range), or past the
 * prologue of the real function around it when gdb's prologue skipping
 * applies there.  Sorted, without duplicates.  *@out (malloc'ed, the
 * caller frees it) gets them.  Returns the count (0: none), or <0.
 */
int ptd__symbols_inlined_entries(struct ptd_symbols *s, const char *name, uint64_t **out);
/*
 * Whether some loaded file exports a function called @name (a global or
 * weak ELF function symbol, not a PLT entry): where a call through the
 * program's PLT entry of @name can go.  gdb's linespec drops the PLT
 * location then; a file-local function of that name (ld.so's own
 * opendir) does not count.  Returns 1 or 0.
 */
int ptd__symbols_exported_function(struct ptd_symbols *s, const char *name);
/*
 * The files loaded now, each as "PATH@START": *@out (a malloc'ed array of
 * malloc'ed strings) gets them.  Returns their count, or -ptde_nomem.
 */
int ptd__symbols_module_keys(struct ptd_symbols *s, char ***out);
/*
 * Whether a file loaded now but not among @keys (what
 * ptd__symbols_module_keys said before) has a function symbol or an
 * inlined copy called @name: only then can `break NAME` have gained a
 * location.  Returns 1 or 0 (1 when it cannot tell).
 */
int ptd__symbols_added_have(struct ptd_symbols *s, char *const *keys, int nkeys, const char *name);
/*
 * Every address `break FILE:LINE` gets, as gdb 13: the statement rows of
 * @line (or of the first line after it that has code) in files ending
 * with @file, one per block (a line inlined in several places gets one
 * per copy; one scattered over a function's ranges one), past the
 * prologue where the line starts a function.  Sorted; *@out malloc'ed;
 * *@actual_line the line as ptd_symbols_file_line gives it.  Returns the
 * count (> 0), or -ptde_notfound, <0.
 */
int ptd__symbols_line_addrs(struct ptd_symbols *s, const char *file, int line, uint64_t **out,
			    int *actual_line);
/*
 * gdb's tail-call frames (DW_TAG_call_site with DW_AT_call_tail_call)
 * between a frame and its caller: the caller's call at return address
 * @ret reached the function holding @pc (the frame's pc as looked up:
 * pc - 1 for a caller frame) through jumps at tail call sites.  Writes
 * the pcs of the frames gdb shows for those jumps (each call site's
 * return pc, the innermost first; at most @max) as gdb's
 * call_site_find_chain does: the chains that DWARF allows are followed
 * from the caller's call site, and only the callers and callees common to
 * all of them are shown.  Returns their count, 0 when there are none or
 * the chain cannot be told (no call site there, an indirect jump).
 */
int ptd__symbols_tailcalls(struct ptd_symbols *s, uint64_t ret, uint64_t pc, uint64_t *out,
			   int max);

/*
 * The Dwfl behind @s, for the value module (src/values), which walks DWARF
 * itself; it stays valid until the next ptd_symbols_refresh() or
 * ptd_symbols_free().  NULL for NULL.
 */
struct Dwfl;
struct Dwfl *ptd__symbols_dwfl(struct ptd_symbols *s);

/*
 * The synthetic "name@plt" symbols of module @m (a Dwfl_Module of
 * ptd__symbols_dwfl(@s)): @fn gets each one's name and address, for the
 * non-debugging symbols of info functions.  Returns their count or <0.
 */
struct Dwfl_Module;
int ptd__symbols_plt_each(struct ptd_symbols *s, struct Dwfl_Module *m,
			  void (*fn)(void *ctx, const char *name, uint64_t addr), void *ctx);

/*
 * When @addr is the entry of a C++ thunk (a function whose name, as
 * demangled, is "virtual thunk to F", "non-virtual thunk to F" or
 * "covariant return thunk to F"), the entry of F into *@target: where
 * gdb's `step` goes (gnu-v3's skip_trampoline).  F is looked up as gdb
 * does, among the symbols of the thunk's module, and of several functions
 * named F (a class's destructors) the last by address is taken.  Returns
 * -ptde_invalid for NULL, -ptde_notfound when @addr is no thunk or F is
 * not found.
 */
int ptd__symbols_thunk_target(struct ptd_symbols *s, uint64_t addr, uint64_t *target);

/*
 * The start of the address range that holds @addr of the function that
 * holds it, into *@lo: the function's entry, or for a function in several
 * ranges the start of the one @addr is in (a ".cold" part's first
 * instruction; gdb's find_pc_partial_function).  Returns -ptde_invalid
 * for NULL, -ptde_notfound when no function holds @addr.
 */
int ptd__symbols_range_start(struct ptd_symbols *s, uint64_t addr, uint64_t *lo);

/*
 * Whether @addr is in a .plt or .plt.sec section of a module (gdb's
 * in_plt_section: the lazy-binding entry PLT0 and entries without a name
 * too), which stepping goes through as through any PLT stub.  0 for NULL.
 */
int ptd__symbols_in_plt(struct ptd_symbols *s, uint64_t addr);

/*
 * The addresses of SystemTap probe @provider:@name (gdb's -probe-stap, as
 * libstdc++'s libstdcxx:throw) in every loaded module, into *@out (caller
 * frees; NULL when none).  Returns their count.
 */
int ptd__symbols_stap_probes(struct ptd_symbols *s, const char *provider, const char *name,
			     uint64_t **out);

#endif
