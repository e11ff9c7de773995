/*
 * Output formatting shared by the ptdbg front ends: frame lines, source
 * lines, stop messages, disassembly lines, history listings, registers and
 * memory dumps, each in the exact layout gdb 13 uses so that users (and
 * scripts written for gdb) find what they expect.  Nothing here moves the
 * target; everything reads through the ptd_print_ctx callbacks.
 */
#ifndef PTDBG_CMD_PRINT_H
#define PTDBG_CMD_PRINT_H

#include <stdint.h>
#include <stdio.h>
#include <sys/user.h>

#include "ptdbg/ptdbg.h"

struct ptd_print_ctx {
	FILE *out;
	struct ptd_symbols *sym; /* may be NULL: addresses print without names */
	/* Reads target memory; returns bytes read or <0. */
	long (*read)(void *ctx, uint64_t addr, void *buf, size_t n);
	void *read_ctx;
	/* realpath of the main executable: frames in it get no "from LIB". */
	const char *main_module;
	/* With gdb_errors set, a missing source file is reported as gdb does:
	 * "L\tFILE: No such file or directory." once on stderr, then
	 * "L\tin FILE" for further lines of it.  Otherwise the first form is
	 * always written to @out. */
	int gdb_errors;
	/* Writes the arguments of the frame at @level (<0: the innermost)
	 * whose pc is @pc into @out ("n=10") for frame lines, or returns <0
	 * for "()"; NULL: always "()". */
	int (*frame_args)(void *ctx, int level, uint64_t pc, char *out, size_t n);
	void *frame_args_ctx;
	char last_file[512];
	int last_file_missing;
	/* The code is 32-bit or 16-bit (the history's mode at the position):
	 * frame addresses print with 8 hex digits, as gdb's i386 does. */
	int addr32;
	/* 1 + the index of the real frame whose arguments frame_args gives
	 * for the next frame line, where inlined and signal frames make bt's
	 * numbering differ from the session's; 0: the line's level. */
	int args_frame;
	/* gdb's inline frames skipped at the innermost frame's pc
	 * (ptd_session_inline_skipped()): that frame is shown as the call
	 * site of the outermost skipped one, and their frames are not shown. */
	int inline_skip;
	/* For frame_args: the frame is the one around this many inlined
	 * calls at its pc (ptd_values_select_inline), -1: the real one. */
	int args_callees;
	/* ptd_print_inline_frame() prints the frame line only */
	int no_source;
	/* Set while bt prints its frames, innermost first, with nothing run
	 * in between: frame_args may bind the next level from the last one
	 * (@args_walk_level, -1: none) instead of unwinding from frame 0. */
	int args_walk;
	int args_walk_level;
	/* The name gdb gives shared object @module (a realpath) holding @pc
	 * in "from LIB": the dynamic linker's (/lib/x86_64-linux-gnu/
	 * libstdc++.so.6), or NULL to keep @module.  NULL: keep it. */
	const char *(*module_name)(void *ctx, uint64_t pc, const char *module);
	void *module_name_ctx;
};

/*
 * The frames gdb shows for the functions inlined at a frame's pc (@caller
 * as for ptd_print_frame): after the frame of the innermost inlined
 * function (which ptd_print_frame names), one frame per enclosing inlined
 * function and one for the real function, each at its call site's line,
 * without an address, numbered from @level on, up to level @max_level
 * (excluded; -1: all).  Returns the frames printed.
 */
int ptd_print_inline_callers(struct ptd_print_ctx *c, uint64_t pc, int caller, int level,
			     int max_level);
/* frame/up/down on the @k-th (1-based) caller of the code inlined at
 * @pc, as one line of ptd_print_inline_callers() at @level followed by
 * the source line of its call site.  Returns 0, or -1 when there is no
 * such frame. */
int ptd_print_inline_frame(struct ptd_print_ctx *c, uint64_t pc, int caller, int k, int level);
/* The function name a frame line shows for the frame at @pc (@caller: a
 * caller's, its pc a return address), inlined frame @k (0: the innermost
 * shown), in @buf or static storage; NULL when unknown. */
const char *ptd_print_frame_name(struct ptd_print_ctx *c, uint64_t pc, int caller, int k,
				 char *buf, size_t n);

/* What a frame print shows, as gdb's print_what. */
enum ptd_print_what {
	PTD_PRINT_SRC_LINE,    /* "12\t  text" (with "0x...\t" prefix mid-line) */
	PTD_PRINT_LOCATION,    /* "[0x... in ]fn () at file:line" */
	PTD_PRINT_SRC_AND_LOC, /* both */
};

/* Flags of ptd_print_insn(), after gdb's gdb_disassembly_flags. */
enum ptd_insn_flags_print {
	PTD_DIS_RAW = 1 << 0,        /* /r: raw bytes column */
	PTD_DIS_OMIT_FNAME = 1 << 1, /* /f: "<+4>" instead of "<main+4>" */
	PTD_DIS_OMIT_PC = 1 << 2,    /* /p: no "=> " marker */
	PTD_DIS_SHORT_ADDR = 1 << 3, /* x/i: "0x401136" instead of 16 digits */
	PTD_DIS_NUMBER = 1 << 4,     /* history: "N\t" before the line */
	/* 32-bit or 16-bit code (a history block's mode): disassembled in
	 * that mode, addresses as gdb shows them for i386, 8 hex digits. */
	PTD_DIS_MODE32 = 1 << 5,
	PTD_DIS_MODE16 = 1 << 6,
};

/* Flags of ptd_print_callseg(), after gdb's record_print_flags. */
enum ptd_call_flags_print {
	PTD_CALL_SRC_LINE = 1 << 0,   /* /l */
	PTD_CALL_INSN_RANGE = 1 << 1, /* /i */
	PTD_CALL_INDENT = 1 << 2,     /* /c */
};

/* The name gdb displays for a source file (symtab_to_filename_for_display):
 * ptd_print_file() asks @c's symbols for the name relative to the
 * compilation directory (see print.c); ptd_print_filename() without a
 * context returns @path as is. */
const char *ptd_print_file(const struct ptd_print_ctx *c, const char *path);
const char *ptd_print_filename(const char *path);

/* @name without a "@@VERSION" suffix, as gdb shows ELF symbols. */
const char *ptd_print_symname(const char *name);

/* Writes "name+off" (or "name" at offset 0) for disassembly operands; the
 * ptd_symbolizer_fn of disasm.h with a ptd_print_ctx as @ctx. */
int ptd_print_symbolize(void *ctx, uint64_t addr, char *out, size_t n);

/* "0x0000000000401126" */
void ptd_print_addr16(char *out, size_t n, uint64_t addr);

/*
 * Prints a frame: @level >= 0 prefixes "#N  ".  @caller says @pc is a
 * return address (frames above 0): the address is always shown and the
 * line is looked up at pc - 1 as gdb does.  @mid_line < 0 computes whether
 * the pc is at the start of its line, otherwise it is taken as given.
 */
void ptd_print_frame(struct ptd_print_ctx *c, uint64_t pc, int level, int caller, int mid_line,
		     enum ptd_print_what what);

/* Prints "L\ttext" for @file:@line (with "0x...\t" first when @pc != 0). */
void ptd_print_source_line(struct ptd_print_ctx *c, const char *file, int line, uint64_t pc);

/*
 * Prints one disassembly line for the instruction at @pc.  @cur_pc gets the
 * "=> " marker (0: none).  @number is printed with PTD_DIS_NUMBER.  Returns
 * the instruction length, or <0 when the bytes could not be read/decoded
 * (a "(bad)" or "Cannot access memory" line was printed).
 */
int ptd_print_insn(struct ptd_print_ctx *c, uint64_t number, uint64_t pc, uint64_t cur_pc,
		   unsigned flags);

/* "N\t[reason]" for a gap in an instruction or call history listing. */
void ptd_print_gap(struct ptd_print_ctx *c, uint64_t number, int reason, const char *detail,
		   uint64_t arg);
/* The gap at @cur in @h, with its detail (libipt's error for decode errors). */
void ptd_print_gap_at(struct ptd_print_ctx *c, const struct ptd_history *h,
		      const struct ptd_hcursor *cur);

/* One line of record function-call-history. */
void ptd_print_callseg(struct ptd_print_ctx *c, const struct ptd_history *h,
		       const struct ptd_callseg *seg, int min_level, unsigned flags);

/*
 * Prints the stop message for @ev like gdb's normal_stop: "Breakpoint N, "
 * / "Program received signal ..." / "[Inferior 1 (process N) exited ...]"
 * and the frame.  @temporary marks a temporary breakpoint, @pid the
 * inferior's process id (for exit messages).
 */
/* @thread: "Thread 2 \"name\"" when the program has (had) several threads
 * (gdb then says "Thread 2 "name" hit Breakpoint 1, "), else NULL.
 * @gap: for PTD_EVENT_GAP, what the gap is ("overflow"), or NULL. */
void ptd_print_stop(struct ptd_print_ctx *c, const struct ptd_event *ev, int temporary, pid_t pid,
		    const char *thread, const char *gap);
/* Names a gap reason: "overflow", "decode error", ... */
const char *ptd_print_gap_reason(int reason);

/* gdb's signal names: "SIGSEGV" and "Segmentation fault". */
const char *ptd_print_signame(int signo);
const char *ptd_print_sigdesc(int signo);

/* Register access by gdb name ("rax", "eflags", "pc", "sp", "fp"). */
int ptd_print_reg_lookup(const char *name, const struct user_regs_struct *r, uint64_t *val,
			 const char **canonical);
/* Prints one "info registers" line; @avail == 0 prints "<unavailable>". */
void ptd_print_reg_line(struct ptd_print_ctx *c, const char *name, uint64_t val, int avail);
/* Names of the registers "info registers" shows, NULL-terminated. */
extern const char *const ptd_print_reg_names[];
/* "[ PF IF ]" */
void ptd_print_eflags(char *out, size_t n, uint64_t v);

/* All of the selected thread's frames (ptd_session_backtrace() and
 * ptd_session_frames() with a buffer grown as needed): *@pcs / *@fr get a
 * malloc'ed array the caller frees.  Returns the count or <0. */
int shell_backtrace_all(struct ptd_session *s, uint64_t **pcs);
int shell_frames_all(struct ptd_session *s, struct ptd_frame_info **fr);

#endif
