/*
 * ptdbg public API: error codes and the library version.
 *
 * Every ptdbg function that can fail returns a negative `enum ptd_error`
 * code (-ptde_x) on failure and zero or a positive count on success, as
 * libipt does.  ptd_errstr() names a code; ptd_last_error() gives the
 * detailed message of the most recent failure in the calling thread
 * ("cannot attach to 4242: operation not permitted"), which front ends
 * print as is.
 */
#ifndef PTDBG_PTDBG_H
#define PTDBG_PTDBG_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define PTD_EXPORT __attribute__((visibility("default")))

#define PTD_VERSION_MAJOR 0
#define PTD_VERSION_MINOR 1

enum ptd_error {
	ptde_ok = 0,
	ptde_internal,    /* a broken invariant inside ptdbg */
	ptde_invalid,     /* a caller mistake: bad argument */
	ptde_nomem,       /* out of memory */
	ptde_sys,         /* a system call failed; the message keeps errno */
	ptde_nosrch,      /* no such process or thread */
	ptde_perm,        /* permission denied */
	ptde_exited,      /* the process has exited */
	ptde_not_running, /* there is no process */
	ptde_eos,         /* end of history reached */
	ptde_bos,         /* beginning of history reached */
	ptde_nomap,       /* no memory mapped at that address */
	ptde_bad_trace,   /* a trace or file is malformed */
	ptde_unsupported, /* not supported here (hardware, kernel) */
	ptde_notfound,    /* no such symbol, line, breakpoint, thread */
	ptde_busy,        /* already in that state */
	ptde_bad_insn,    /* an instruction could not be decoded */
	ptde_max
};

/* Returns a short constant name for @code (positive or negative). */
extern PTD_EXPORT const char *ptd_errstr(int code);

/*
 * Returns the detailed message of the last error set in this thread, or
 * the ptd_errstr() of @code when none was set since ptd_clear_error().
 */
extern PTD_EXPORT const char *ptd_last_error(int code);
extern PTD_EXPORT void ptd_clear_error(void);


/*
 * Values: C expressions over DWARF (the shell's print, ptype, info locals,
 * finish's "Value returned").  A struct ptd_values keeps the $N value
 * history and the types it has seen; ptd_values_bind() points it at a
 * thread's registers and a frame before each use.  Output is gdb 13's text.
 * Errors are negative ptd_error codes; ptd_last_error() then has gdb's
 * message ("No symbol \"n\" in current context.", "Cannot access memory
 * at address 0x0").
 */
struct ptd_values;
struct ptd_value;
struct ptd_symbols;
struct user_regs_struct;

/* What ptd_values_bind() evaluates in.  Copied; pointers must stay valid
 * until the next bind or ptd_values_free(). */
struct ptd_values_target {
	struct ptd_symbols *symbols; /* NULL: no symbol table */
	/* Reads target memory: bytes read, or <0. */
	long (*read)(void *ctx, uint64_t addr, void *buf, size_t n);
	/* Writes memory / a register (DWARF number) for `set var`; NULL where
	 * the program cannot be changed (the past, offline). */
	long (*write)(void *ctx, uint64_t addr, const void *buf, size_t n);
	int (*set_reg)(void *ctx, int dwarf_regno, uint64_t val);
	void *ctx;
	/* The innermost frame's registers; NULL when there is no thread.
	 * pc_only: only rip is known (the recorded past without registers). */
	const struct user_regs_struct *regs;
	int pc_only;
	/* Memory read is the present memory, not the memory of this point in
	 * the past (see ptd_values_used_memory()). */
	int past;
	/* The frame to evaluate in (0 = innermost) and its pc as the front end
	 * shows it (a return address for outer frames).  Registers of outer
	 * frames are unwound with the DWARF CFI; when that does not reach
	 * @level_pc, only the pc is known there. */
	int level;
	uint64_t level_pc;
};

/* Returns 0 and a new context in *@out, or -ptde_nomem. */
extern PTD_EXPORT int ptd_values_alloc(struct ptd_values **out);
/* Frees @v, its history and types.  Accepts NULL. */
extern PTD_EXPORT void ptd_values_free(struct ptd_values *v);
/* Returns 0, or -ptde_invalid for NULL arguments. */
extern PTD_EXPORT int ptd_values_bind(struct ptd_values *v, const struct ptd_values_target *t);
/* Nonzero when the last evaluations since the bind read memory while
 * bound to the past: the front end says once that it is present memory. */
extern PTD_EXPORT int ptd_values_used_memory(const struct ptd_values *v);

/*
 * Evaluates C expression @expr: variables in scope, globals, functions,
 * literals, $registers, $N/$/$$/$$N history, casts to named types,
 * sizeof, unary & * - ! ~, [] . ->, arithmetic, comparisons, && || ?:,
 * and = (assignment, which writes to the program: live only).  Returns 0
 * and a new value in *@out (free it with ptd_value_free()), or <0.
 */
extern PTD_EXPORT int ptd_values_eval(struct ptd_values *v, const char *expr,
				      struct ptd_value **out);
/* gdb's warning from the last ptd_values_eval() ("Value does not fit in 3
 * bits."), valid until the next evaluation, or NULL. */
extern PTD_EXPORT const char *ptd_values_warning(const struct ptd_values *v);
/* Appends a copy of @val to the history.  Returns its number N ($N). */
extern PTD_EXPORT int ptd_values_record(struct ptd_values *v, const struct ptd_value *val);
extern PTD_EXPORT void ptd_value_free(struct ptd_value *val);

/*
 * Formats @val as gdb's print does, without "$N = ": @fmt 0 (natural) or
 * one of x d u o t c s a z; @top: the top-level form (pointers with their
 * type in parentheses).  *@out gets a malloc'ed string.  Returns 0 or <0
 * (memory that cannot be read: "Cannot access memory at address 0x...").
 */
extern PTD_EXPORT int ptd_value_format(struct ptd_values *v, struct ptd_value *val, int fmt,
				       int top, char **out);
/* whatis: the type's name ("struct point", "int (*)[4]"); ptype: the type
 * with one level of struct/union/enum expanded.  *@out is malloc'ed. */
extern PTD_EXPORT int ptd_value_type_name(const struct ptd_value *val, int expand, char **out);
/* Same for a type named in C ("struct point", "unsigned long"); returns
 * -ptde_notfound when @name is not a type. */
extern PTD_EXPORT int ptd_values_type_name(struct ptd_values *v, const char *name, int expand,
					   char **out);
/* The value as an integer or address (pointers, arrays' addresses,
 * functions' entries), for x and break *EXPR.  Returns 0 or <0. */
extern PTD_EXPORT int ptd_value_as_address(struct ptd_values *v, struct ptd_value *val,
					   uint64_t *addr);
/* The size in bytes of @val's type (x's default unit). */
extern PTD_EXPORT uint64_t ptd_value_size(const struct ptd_value *val);

/* info locals (@args 0) / info args (@args 1): "name = value\n" lines or
 * "No locals.\n"; *@out is malloc'ed. */
extern PTD_EXPORT int ptd_values_locals(struct ptd_values *v, int args, char **out);
/* "argc=1, argv=0x7ffe..." of the bound frame, for frame lines. */
extern PTD_EXPORT int ptd_values_frame_args(struct ptd_values *v, char **out);
/* info frame's text for the bound frame. */
extern PTD_EXPORT int ptd_values_frame_info(struct ptd_values *v, char **out);

/*
 * The value function @func_pc (any pc inside it) returned, read from the
 * registers of the bound innermost frame right after the return, by the
 * SysV x86-64 ABI: integers, pointers, enums in rax; float/double in
 * xmm0; small structs in rax:rdx / xmm0:xmm1 by their classes; larger ones
 * at the address in rax.  @xmm holds xmm0 and xmm1 when @have_xmm.
 * Returns 0, -ptde_notfound (void or no debug information), or
 * -ptde_unsupported (registers not known there).
 */
extern PTD_EXPORT int ptd_values_return_value(struct ptd_values *v, uint64_t func_pc,
					      const uint8_t xmm[2][16], int have_xmm,
					      struct ptd_value **out);


struct ptd_session;
/*
 * Binds @v to the session's selected thread at its position: live, its
 * registers and memory (writable); in the recorded past, the registers
 * the recorder knows there and the present memory; before `run`,
 * @fallback_read (may be NULL) reads the program file.  @level/@level_pc
 * as in struct ptd_values_target.  Returns 0 or <0.
 */
extern PTD_EXPORT int ptd_session_values_bind(struct ptd_session *s, struct ptd_values *v,
					      int level, uint64_t level_pc,
					      long (*fallback_read)(void *ctx, uint64_t addr,
								    void *buf, size_t n),
					      void *fallback_ctx);
/* finish's return value of the function at @func_pc, with the session's
 * SSE registers (live) for float results; see ptd_values_return_value(). */
extern PTD_EXPORT int ptd_session_return_value(struct ptd_session *s, struct ptd_values *v,
					       uint64_t func_pc, struct ptd_value **out);

#ifdef __cplusplus
}
#endif
#endif
