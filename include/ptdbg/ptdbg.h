/*
 * ptdbg public API: everything a front end (the ptdbg shell, ptdbg-server,
 * ptdbg-report, or your own program) may call in libptdbg.
 *
 * Conventions, as libipt's:
 *  - Every function that can fail returns a negative `enum ptd_error`
 *    code (-ptde_x) on failure and zero or a positive count on success.
 *    ptd_errstr() names a code; ptd_last_error() gives the detailed
 *    message of the most recent failure in the calling thread ("cannot
 *    attach to 4242: operation not permitted"), which front ends print
 *    as is.  Clear it with ptd_clear_error() before a call whose message
 *    you want to tell apart from an older one.
 *  - Handle types (struct ptd_session, ptd_history, ptd_calls,
 *    ptd_symbols) are opaque: only pointers cross the API.  The session
 *    owns the history, calls and symbols it hands out; the caller never
 *    frees them.  Value structs (struct ptd_event, ptd_item, ptd_hcursor,
 *    ptd_callseg, ...) are filled by the library into storage the caller
 *    owns; their `const char *` members point into the session and stay
 *    valid as the member's comment says.
 *  - One session is driven from one thread at a time.  Only
 *    ptd_session_interrupt(), ptd_target_quit_signal() and
 *    ptd_target_request_interrupt() may be called from a signal handler
 *    or another thread.
 *  - Addresses are absolute virtual addresses in the traced program.
 *    Instruction numbers count as gdb's `record` does: 1 is the oldest
 *    recorded instruction.
 *
 * docs/api.md has an overview and docs/example.c a complete program.
 * Link with `pkg-config --cflags --libs ptdbg`.
 */
#ifndef PTDBG_PTDBG_H
#define PTDBG_PTDBG_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/user.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Marks a function libptdbg.so exports (the library is built with
 * -fvisibility=hidden).  Declare each as "extern PTD_EXPORT type name(" on
 * one line, with its documentation above it: tests/integration/
 * api-exports.sh compares these declarations with the library's exports.
 */
#define PTD_EXPORT __attribute__((visibility("default")))

/* The version of this header; ptd_version() gives the library's. */
#define PTD_VERSION_MAJOR 0
#define PTD_VERSION_MINOR 1

/* ------------------------------------------------------------------ */
/* Errors and version                                                   */

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

/* Returns a short constant name for @code (positive or negative); an
 * unknown code gives "unknown error".  The string is static. */
extern PTD_EXPORT const char *ptd_errstr(int code);

/*
 * Returns the detailed message of the last error set in this thread, or
 * the ptd_errstr() of @code when none was set since ptd_clear_error().
 * The string is thread-local storage, valid until the next ptdbg call in
 * this thread that fails or clears it.
 */
extern PTD_EXPORT const char *ptd_last_error(int code);
/* Forgets this thread's last error message. */
extern PTD_EXPORT void ptd_clear_error(void);

/*
 * Returns the library's version, "MAJOR.MINOR" (static storage).  A
 * program built against this header works with a library of the same
 * PTD_VERSION_MAJOR and a PTD_VERSION_MINOR at least this header's.
 */
extern PTD_EXPORT const char *ptd_version(void);

/* ------------------------------------------------------------------ */
/* Instructions: classes and disassembly                               */

/* Classes of an instruction that ends a block; numerically like libipt's
 * enum pt_insn_class minus ptic_error. */
enum ptd_iclass {
	PTD_IC_OTHER = 0,
	PTD_IC_CALL,      /* near call, direct or indirect */
	PTD_IC_RET,       /* near ret, ret imm16 */
	PTD_IC_JUMP,      /* near jmp, direct or indirect */
	PTD_IC_COND_JUMP, /* jcc, jrcxz/jecxz, loop/loope/loopne */
	PTD_IC_FAR_CALL,  /* syscall, sysenter, int n, int3, into, far call */
	PTD_IC_FAR_RET,   /* iret, sysret, sysexit, far ret */
	PTD_IC_FAR_JUMP,  /* far jmp */
	PTD_IC_MAX
};

enum ptd_insn_flags {
	PTD_INSN_INDIRECT = 1 << 0,   /* target is not encoded in the insn */
	PTD_INSN_REP_STRING = 1 << 1, /* rep/repe/repne string instruction */
	PTD_INSN_SYSCALL = 1 << 2,    /* syscall / sysenter / int 0x80 */
	PTD_INSN_INT3 = 1 << 3,       /* int3 (0xcc) */
	PTD_INSN_HLT = 1 << 4,        /* hlt/ud2 and other always-faulting */
	PTD_INSN_RET_IMM = 1 << 5,    /* ret imm16 (imm in target field) */
};

struct ptd_insn_info {
	uint64_t ip;
	/* Direct branch/call target (absolute); for RET_IMM, the immediate. */
	uint64_t target;
	uint8_t len;
	uint8_t iclass; /* enum ptd_iclass */
	uint16_t flags; /* enum ptd_insn_flags */
};

/* Execution modes (PT's MODE.Exec): 64-bit, 32-bit and 16-bit code (the
 * latter two as compatibility mode under a 64-bit kernel runs them). */
enum ptd_exec_mode {
	PTD_MODE_64 = 0,
	PTD_MODE_32 = 1,
	PTD_MODE_16 = 2,
};

/*
 * Decodes the instruction at @ip whose bytes are @buf[0..@size) (64-bit
 * code) into @out.  Returns 0; -ptde_bad_insn if the bytes are not a valid
 * instruction or are cut short; -ptde_invalid if @buf or @out is NULL.
 */
extern PTD_EXPORT int ptd_disasm_decode(const uint8_t *buf, size_t size, uint64_t ip,
					struct ptd_insn_info *out);
/* The same in execution mode @mode (enum ptd_exec_mode); returns
 * -ptde_invalid for another mode. */
extern PTD_EXPORT int ptd_disasm_decode_mode(const uint8_t *buf, size_t size, uint64_t ip,
					     unsigned mode, struct ptd_insn_info *out);

/*
 * Resolves @addr to "name+off" for operands and <sym> annotations: writes
 * a NUL-terminated string of at most @n bytes into @out and returns 0, or
 * returns <0 when @addr has no name.
 */
typedef int (*ptd_symbolizer_fn)(void *ctx, uint64_t addr, char *out, size_t n);

/*
 * Formats the instruction at @ip as gdb 13 prints it in AT&T syntax, e.g.
 * "mov    %rsp,%rbp", "call   0x401126 <fib>", into @out (@n bytes, always
 * NUL-terminated).  @sym (may be NULL) names addresses, called with @ctx.
 * Returns the instruction length (>0); -ptde_bad_insn when the bytes do
 * not decode (then @out holds "(bad)"); -ptde_invalid for NULL @buf/@out.
 */
extern PTD_EXPORT int ptd_disasm_format(const uint8_t *buf, size_t size, uint64_t ip, char *out,
					size_t n, ptd_symbolizer_fn sym, void *ctx);
/* The same in execution mode @mode (32-bit code shows %esp, 16-bit %sp);
 * -ptde_invalid for another mode. */
extern PTD_EXPORT int ptd_disasm_format_mode(const uint8_t *buf, size_t size, uint64_t ip,
					     unsigned mode, char *out, size_t n,
					     ptd_symbolizer_fn sym, void *ctx);

/* Writes @buf[0..@len) as gdb's /r shows raw bytes, "48 89 e5", into @out
 * (@n bytes, NUL-terminated, cut short when it does not fit). */
extern PTD_EXPORT void ptd_disasm_hexbytes(const uint8_t *buf, size_t len, char *out, size_t n);

/* ------------------------------------------------------------------ */
/* History: numbered items and cursors                                  */

/*
 * A thread's history is a sequence of items numbered like gdb's
 * instruction numbers (1 = oldest recorded): blocks (straight-line runs of
 * >= 1 instructions), gaps (one number each: trace lost, overflow, decode
 * error, recording off) and events (signal, mapping change: no number;
 * attached to the position of the item that follows).  After the
 * executed items comes the tail: the instruction at the current pc, not
 * yet executed, numbered executed + 1, as gdb's btrace shows it.
 *
 * A struct ptd_history is owned by the session (ptd_session_history()).
 * It stays valid until the session records again, loads a trace, runs a
 * new program or is freed; new items appended while the program runs
 * keep cursors valid.  One history must not be read from two threads at
 * once (moves update caches inside it).
 */
struct ptd_history;

enum ptd_item_kind {
	PTD_ITEM_BLOCK = 0,
	PTD_ITEM_GAP,
	PTD_ITEM_EVENT,
};

enum ptd_gap_reason {
	PTD_GAP_NONE = 0,
	PTD_GAP_OVERFLOW,     /* trace buffer overflow / OVF */
	PTD_GAP_DECODE_ERROR, /* decoder error (libipt message in detail) */
	PTD_GAP_DISABLED,     /* recording was off (record stop/start) */
	PTD_GAP_LOST,         /* data lost (perf AUX truncated, ring wrap) */
	PTD_GAP_NO_MEMORY,    /* code bytes not available to the decoder */
	PTD_GAP_DROPPED,      /* the oldest part was dropped (a bounded history);
			       * arg = instructions dropped so far */
};

enum ptd_event_kind {
	PTD_EV_SIGNAL = 1, /* async: signal delivered; ip = interrupted resume ip, arg = signo */
	PTD_EV_SIGRETURN,  /* sigreturn back to ip */
	PTD_EV_MMAP,       /* image changed; ip = start, arg = length */
	PTD_EV_EXEC,       /* process exec'ed; history before it is another image */
	PTD_EV_ENABLED,    /* tracing (re)enabled at ip */
	PTD_EV_DISABLED,   /* tracing disabled after the preceding item */
	PTD_EV_OVERFLOW,   /* overflow resolved, resumed at ip */
};

enum ptd_block_flags {
	/* The block ended because of an async event (signal, interrupt),
	 * not because its last instruction transferred control. */
	PTD_BLK_INTERRUPTED = 1 << 0,
	/* The block's last instruction was a syscall that returned to the
	 * next instruction; a non-fall-through successor means sigreturn,
	 * exec or a context switch. */
	PTD_BLK_SYSCALL = 1 << 1,
	/* Instructions were executed speculatively or are uncertain. */
	PTD_BLK_UNCERTAIN = 1 << 2,
	/* The block is 32-bit or 16-bit code (PT's MODE.Exec); neither:
	 * 64-bit.  ptd_block_mode() gives the enum ptd_exec_mode. */
	PTD_BLK_MODE32 = 1 << 3,
	PTD_BLK_MODE16 = 1 << 4,
};

#define PTD_BLK_MODE_SHIFT 3
#define PTD_BLK_ALL_FLAGS                                                                          \
	(PTD_BLK_INTERRUPTED | PTD_BLK_SYSCALL | PTD_BLK_UNCERTAIN | PTD_BLK_MODE32 |              \
	 PTD_BLK_MODE16)

/* A block of the history. */
struct ptd_block {
	uint64_t ip;     /* first instruction */
	uint64_t end_ip; /* last instruction */
	uint32_t ninsn;  /* >= 1 */
	uint8_t iclass;  /* enum ptd_iclass of the last instruction */
	uint8_t flags;   /* enum ptd_block_flags */
};

/* enum ptd_exec_mode of @b's code (0: 64-bit, 1: 32-bit, 2: 16-bit). */
static inline unsigned ptd_block_mode(const struct ptd_block *b)
{
	return (b->flags >> PTD_BLK_MODE_SHIFT) & 3;
}

/* One item as ptd_history_item() and ptd_hcursor_events() return it. */
struct ptd_item {
	uint8_t kind;       /* enum ptd_item_kind */
	uint8_t reason;     /* gap: enum ptd_gap_reason; event: enum ptd_event_kind */
	uint64_t number;    /* number of the first instruction (block), of the gap, or of the next item (event) */
	struct ptd_block block; /* kind == BLOCK; for events block.ip is the event ip */
	uint64_t arg;       /* event argument; gap: trace offset or errcode */
	uint32_t detail;    /* index of a detail string (ptd_history_detail) or 0 */
};

/* Number of the last item (the tail when set); 0 when empty or @h NULL. */
extern PTD_EXPORT uint64_t ptd_history_count(const struct ptd_history *h);
/* Executed instructions only (gaps and the tail excluded). */
extern PTD_EXPORT uint64_t ptd_history_ninsn(const struct ptd_history *h);
/* The pc of the tail (the current, not yet executed instruction), or 0
 * when the history has none (the end of an offline trace). */
extern PTD_EXPORT uint64_t ptd_history_tail(const struct ptd_history *h);
/* Bytes of heap the history uses, its call log included (for "info record"). */
extern PTD_EXPORT size_t ptd_history_bytes(const struct ptd_history *h);
/* Instructions dropped from the front of a bounded history so far. */
extern PTD_EXPORT uint64_t ptd_history_dropped(const struct ptd_history *h);
/* Detail string @detail of an item (a gap's libipt error message), or
 * NULL for 0 or an unknown index.  Owned by @h, valid as long as @h. */
extern PTD_EXPORT const char *ptd_history_detail(const struct ptd_history *h, uint32_t detail);
/* Fills @it with item @index (0-based, events included, the tail is not an
 * item); returns 1, or 0 when @index >= ptd_history_nitems() (or on an
 * error decoding that part of the trace again: see ptd_last_error()). */
extern PTD_EXPORT int ptd_history_item(const struct ptd_history *h, uint64_t index,
				       struct ptd_item *it);
/* Number of items (blocks, gaps and events; the tail excluded). */
extern PTD_EXPORT uint64_t ptd_history_nitems(const struct ptd_history *h);

/*
 * Cursor: one instruction position in a history, a value the caller
 * owns (on its stack).  A cursor on a gap has ip 0 and is_gap set.
 * Cursors stay valid while items are appended to the history, not after
 * the history is freed or cleared.  Moving inside a block decodes
 * instruction lengths from the program's code.
 */
struct ptd_hcursor {
	const struct ptd_history *h;
	uint64_t number;
	uint64_t ip;
	int is_gap;
	uint8_t gap_reason; /* enum ptd_gap_reason when is_gap */
	/* Class and length of the instruction at the cursor; class is
	 * PTD_IC_OTHER for non-final instructions of a block. */
	uint8_t iclass;
	uint8_t len;
	uint8_t block_flags; /* flags of the block when at its last insn */
	uint8_t mode;	     /* enum ptd_exec_mode of the instruction */
	/* private: do not touch */
	uint64_t item_index;
	uint32_t insn_index;
};

/* Places @c at instruction @number (1..count) of @h.  Returns 0;
 * -ptde_bos/-ptde_eos when @number is out of range; -ptde_invalid for a
 * NULL argument; -ptde_bad_insn when the code cannot be decoded. */
extern PTD_EXPORT int ptd_hcursor_goto(struct ptd_hcursor *c, const struct ptd_history *h,
				       uint64_t number);
/* Moves one number forward/backward.  Returns 0; -ptde_eos/-ptde_bos at
 * the ends (the cursor does not move); -ptde_bad_insn when an instruction
 * cannot be decoded. */
extern PTD_EXPORT int ptd_hcursor_next(struct ptd_hcursor *c);
extern PTD_EXPORT int ptd_hcursor_prev(struct ptd_hcursor *c);
/*
 * Writes the events recorded between the instruction before the cursor
 * and the cursor (e.g. a signal delivered before the first handler
 * instruction) into @ev, at most @max.  Returns how many were written.
 */
extern PTD_EXPORT int ptd_hcursor_events(const struct ptd_hcursor *c, struct ptd_item *ev, int max);

/* ------------------------------------------------------------------ */
/* Function-call history                                                */

/*
 * Function-call segments, as gdb's record function-call-history shows
 * them: a new segment starts at each call (level + 1), each return (a new
 * segment of the caller's instance), signal entry and sigreturn, gap, tail
 * call and jump into another function.  Levels can go negative; subtract
 * ptd_calls_min_level() to print them from 0.  A struct ptd_calls is owned
 * by the session (ptd_session_calls()) and valid until the program runs
 * again or the position's thread changes; the segments it returns share
 * that lifetime, except that only the 32 chunks (of about 1,000 segments
 * each) read last are kept decoded: a segment pointer stays valid until
 * segments of 32 other chunks have been read.  Copy a segment to keep it
 * longer.
 */
struct ptd_calls;

/* How a function-call segment was entered. */
enum ptd_seg_entry {
	PTD_SEG_START = 0,  /* first segment of the history */
	PTD_SEG_CALL,       /* called (level + 1) */
	PTD_SEG_RETURN,     /* returned to (level - 1; continues the caller) */
	PTD_SEG_TAILCALL,   /* jumped to a function's entry (level + 1, up = the jumper) */
	PTD_SEG_SIGNAL,     /* signal handler entered (level + 1) */
	PTD_SEG_SIGRETURN,  /* back in the interrupted frame after sigreturn */
	PTD_SEG_SIGTRAMP,   /* handler returned into the sigreturn trampoline */
	PTD_SEG_GAP,        /* the gap itself (is_gap) */
	PTD_SEG_AFTER_GAP,  /* first segment after a gap */
	PTD_SEG_SWITCH,     /* jumped into the middle of another function (same level) */
	PTD_SEG_EXEC,       /* first segment of a program an exec started (level 0, no caller) */
};

struct ptd_callseg {
	uint64_t index;  /* 1-based segment number */
	uint64_t first;  /* first instruction number */
	uint64_t last;   /* last instruction number */
	uint64_t ip;     /* first instruction's ip (ptd_symbols_lookup for the name) */
	int level;       /* call depth, may be negative before normalisation */
	int is_gap;
	/* The caller: the segment whose last instruction made the call (or
	 * the jump, with up_is_tail; or was interrupted, for a signal
	 * handler), or the caller's segment created by the return when the
	 * call predates the recording (up_is_ret); 0: unknown. */
	uint64_t up;
	uint64_t prev_same;  /* previous segment of the same function instance */
	uint64_t next_same;  /* next segment of the same function instance */
	/* First segment of this function instance (frame): segments of one
	 * activation share it, a recursive call gets a new one. */
	uint64_t instance;
	uint8_t how;        /* enum ptd_seg_entry */
	uint8_t up_is_ret;  /* @up was created by the return (call before the recording) */
	uint8_t up_is_tail; /* @up jumped here (tail call): the real caller is further up */
	/* PTD_SEG_SWITCH only: the caller segment whose function the jump
	 * landed in (the frame a longjmp unwound to); 0 when none.  Such a
	 * jump is a return: the segment continues that frame's instance at
	 * its level (the frames in between never return). */
	uint64_t unwound_to;
};

/* Number of segments (0 for NULL). */
extern PTD_EXPORT uint64_t ptd_calls_count(const struct ptd_calls *c);
/* Segment @index (1-based), owned by @c; NULL when out of range. */
extern PTD_EXPORT const struct ptd_callseg *ptd_calls_get(const struct ptd_calls *c, uint64_t index);
/* Segment containing instruction @number (1..count, the tail included:
 * it belongs to the last segment), owned by @c; NULL when none. */
extern PTD_EXPORT const struct ptd_callseg *ptd_calls_find(const struct ptd_calls *c,
							   uint64_t number);
/* The lowest level of all segments (0 for NULL or none). */
extern PTD_EXPORT int ptd_calls_min_level(const struct ptd_calls *c);

/* ------------------------------------------------------------------ */
/* Symbols and source lines                                             */

/*
 * Symbols and lines of the program's modules, via libdw; addresses are
 * absolute (load biases applied).  A struct ptd_symbols is owned by the
 * session (ptd_session_symbols()) and may change when the program runs
 * (exec, dlopen).  Every string a lookup returns points into it and stays
 * valid until the program runs again, a new program is run or loaded, or
 * the session is freed: copy what you keep longer.
 */
struct ptd_symbols;

struct ptd_symbol {
	const char *name;   /* as gdb names the code: the DWARF function's
			     * linkage name or name ("__GI_raise"), else the
			     * ELF symbol gdb's minimal symbols pick (no
			     * "@VERSION"); C++ demangled ("thrower(int)") */
	uint64_t start;     /* function entry */
	uint64_t size;
	uint64_t offset;    /* addr - start */
	const char *module; /* path of the ELF module */
	const char *mangled; /* the ELF name when @name was demangled, or NULL
			      * (gdb's disassembly and x labels show it) */
};

struct ptd_line {
	const char *file; /* as in DWARF, full path when known */
	int line;
	/* Address range [lo, hi) of the one line-table row containing the
	 * address, as gdb 13's "info line *addr" prints it. */
	uint64_t lo, hi;
	int is_stmt;
};

/* Fills @out for the symbol containing @addr.  Returns 0; -ptde_notfound
 * when no symbol covers it; -ptde_invalid for NULL arguments. */
extern PTD_EXPORT int ptd_symbols_lookup(struct ptd_symbols *s, uint64_t addr,
					 struct ptd_symbol *out);
/* The ELF symbol containing @addr that gdb's minimal symbols pick (its
 * `info symbol`: among those at one address one with a size, then the
 * last name in strcmp order; no DWARF names), and the name of the ELF
 * section holding @addr into @section (@n bytes; "" when unknown).
 * Returns as ptd_symbols_lookup(). */
extern PTD_EXPORT int ptd_symbols_minimal(struct ptd_symbols *s, uint64_t addr,
					  struct ptd_symbol *out, char *section, size_t n);
/* Entry of the function (or start of the symbol) containing @addr, or 0
 * when unknown.  Cheap enough to call per instruction. */
extern PTD_EXPORT uint64_t ptd_symbols_func_start(struct ptd_symbols *s, uint64_t addr);
/* A ptd_symbolizer_fn over @ctx = struct ptd_symbols *: writes "name" or
 * "name+off" (as gdb prints <fib+23>) and returns 0, or -ptde_notfound. */
extern PTD_EXPORT int ptd_symbols_symbolize(void *ctx, uint64_t addr, char *out, size_t n);
/* Fills @out with the line of @addr.  Returns 0; -ptde_notfound when
 * @addr has no line information. */
extern PTD_EXPORT int ptd_symbols_line(struct ptd_symbols *s, uint64_t addr, struct ptd_line *out);
/* The first line-table row at exactly @addr, in the table's order (gdb's
 * disassemble /s starts a function's listing at its line).  Returns 0,
 * or -ptde_notfound when no row starts at @addr. */
extern PTD_EXPORT int ptd_symbols_first_line_at(struct ptd_symbols *s, uint64_t addr,
						struct ptd_line *out);
/*
 * Finds function @name.  *@entry gets its first instruction; *@bp the
 * address gdb would break at (after the prologue, or the entry without
 * line info).  Returns 0, or -ptde_notfound.
 */
extern PTD_EXPORT int ptd_symbols_function(struct ptd_symbols *s, const char *name,
					   uint64_t *entry, uint64_t *bp);
/*
 * Finds the breakpoint address for @file:@line as gdb does: the lowest
 * is_stmt address of the first line >= @line that has code, in a file
 * whose name ends with @file; *@actual_line gets that line.  Returns 0,
 * or -ptde_notfound.
 */
extern PTD_EXPORT int ptd_symbols_file_line(struct ptd_symbols *s, const char *file, int line,
					    uint64_t *addr, int *actual_line);

enum ptd_type_kind {
	PTD_TYPE_UNKNOWN = 0, /* struct, float, ...: not shown */
	PTD_TYPE_VOID,
	PTD_TYPE_SIGNED,
	PTD_TYPE_UNSIGNED,
	PTD_TYPE_BOOL,
	PTD_TYPE_CHAR,
	PTD_TYPE_POINTER,
};

/* Return type of the function containing @pc, from DWARF: *@kind (enum
 * ptd_type_kind) and *@size in bytes.  Returns 0, or -ptde_notfound when
 * there is no debug information for @pc. */
extern PTD_EXPORT int ptd_symbols_return_type(struct ptd_symbols *s, uint64_t pc, int *kind,
					      int *size);
/* One function inlined at an address (DW_TAG_inlined_subroutine): its
 * name and where it was inlined into the function around it (the call
 * site's file and line).  Strings are owned by the symbol set. */
struct ptd_inline {
	const char *name;
	const char *call_file; /* NULL when unknown */
	int call_line;
};

/* The functions inlined at @pc, innermost first, as gdb shows them as
 * frames of their own: at most @max written to @out.  Returns the count
 * (0 when @pc is in no inlined code or has no debug information), or
 * -ptde_invalid for NULL arguments. */
extern PTD_EXPORT int ptd_symbols_inlined(struct ptd_symbols *s, uint64_t pc,
					  struct ptd_inline *out, int max);
/* The name gdb displays for source file @file (a path ptd_symbols_line
 * returned): relative to its compilation directory when below it, else
 * @file itself.  Owned by @s (or @file itself). */
extern PTD_EXPORT const char *ptd_symbols_display_name(struct ptd_symbols *s, const char *file);
/* Reads source line @line of @file into @out (@n bytes, no newline).
 * Returns 0, or -ptde_notfound when the file or line is not available. */
extern PTD_EXPORT int ptd_symbols_source_line(struct ptd_symbols *s, const char *file, int line,
					      char *out, size_t n);

/* What gdb's `info source` shows about source file @file (a path
 * ptd_symbols_line returned).  Strings are owned by the symbol set. */
struct ptd_source_info {
	const char *name;     /* as gdb names it (ptd_symbols_display_name) */
	const char *comp_dir; /* DW_AT_comp_dir, or NULL */
	const char *producer; /* DW_AT_producer, or NULL */
	const char *language; /* gdb's name: "c", "c++", "asm", ... */
	int dwarf_version;    /* of the compile unit, 0 when unknown */
	int has_macros;       /* the unit carries preprocessor macro info */
	char fullname[4096];  /* the file on disk, "" when it is not there */
	int lines;            /* lines in that file, -1 when not read */
};

/* Fills @out for @file's compile unit: the one containing @pc when it
 * names @file (pc 0: none), else the first whose line table names it.
 * Returns 0, or -ptde_notfound. */
extern PTD_EXPORT int ptd_symbols_source_info(struct ptd_symbols *s, const char *file, uint64_t pc,
					      struct ptd_source_info *out);

/* ------------------------------------------------------------------ */
/* Sessions                                                             */

/*
 * One debugging session: a program (launched or attached, or a trace
 * loaded offline), its threads' recorders and histories, symbols,
 * breakpoints and the replay position.  Created with ptd_session_alloc(),
 * freed with ptd_session_free().  Motions, backtraces in the past and gap
 * reasons are computed here, once for every front end.
 */
struct ptd_session;

enum ptd_method {
	PTD_METHOD_AUTO = 0,
	PTD_METHOD_STEP,
	PTD_METHOD_SOFT,
	PTD_METHOD_PT,
	PTD_METHOD_BTS,
};
/* Parses "auto", "step", "soft", "pt", "bts"; returns the method, or
 * -ptde_invalid (the message lists the valid names). */
extern PTD_EXPORT int ptd_method_parse(const char *name);
/* The name of @m ("pt"); static storage; "?" for an unknown value. */
extern PTD_EXPORT const char *ptd_method_name(enum ptd_method m);

/* Motions, forward or reverse, as gdb's commands of those names. */
enum ptd_motion {
	PTD_MOTION_STEPI,
	PTD_MOTION_NEXTI,
	PTD_MOTION_STEP,
	PTD_MOTION_NEXT,
	PTD_MOTION_FINISH,
	PTD_MOTION_CONTINUE,
};

enum ptd_session_event_kind {
	PTD_EVENT_NONE = 0,
	PTD_EVENT_STEPPED,      /* a motion completed (stepi, step, finish...) */
	PTD_EVENT_BREAKPOINT,   /* stopped at breakpoint bp_id */
	PTD_EVENT_SIGNAL,       /* the program received signo */
	PTD_EVENT_EXITED,       /* exited with exit_code */
	PTD_EVENT_KILLED,       /* terminated by signo */
	PTD_EVENT_NO_HISTORY,   /* "No more reverse-execution history." */
	PTD_EVENT_GAP,          /* stopped at a gap in the history */
	PTD_EVENT_INTERRUPTED,  /* the user interrupted (Ctrl-C) */
	PTD_EVENT_EXEC,         /* the program exec'ed a new image */
	PTD_EVENT_HWBREAK,      /* debug-register slots hw_hits triggered
				 * (hardware breakpoints and watchpoints; live only) */
	/* Recording: the program stopped before its exit_group syscall (or
	 * a thread before its exit), as gdb's record full does ("Process
	 * record: inferior program stopped."); continuing from here lets it
	 * (or the thread) exit. */
	PTD_EVENT_BEFORE_EXIT,
};

/* Why a run or motion stopped; filled by the session into caller storage. */
struct ptd_event {
	enum ptd_session_event_kind kind;
	uint64_t pc;
	int bp_id;
	int signo;
	int exit_code;
	pid_t tid;
	int thread_num;     /* gdb-style thread number, 1-based */
	int replaying;      /* the stop is in the recorded past */
	uint64_t number;    /* history position when replaying */
	/* The stop is at the start of a source line (gdb prints the line
	 * without the pc) versus mid-line (gdb prints "0x... <tab>line"). */
	int at_line_start;
	/* The frame changed (gdb prints "fn (args) at file:line" first). */
	int new_frame;
	int finish_caller; /* finish: "Run till exit from ..." context */
	uint64_t finish_from_pc;
	/* Replay stepped over gaps in the trace (as gdb does): how many, and
	 * the first one's number and enum ptd_gap_reason. */
	uint64_t gaps_crossed;
	uint64_t first_gap;
	int first_gap_reason;
	unsigned hw_hits; /* PTD_EVENT_HWBREAK: bit i, debug-register slot i */
	/* PTD_EVENT_BREAKPOINT: the location of bp_id that stopped it, 1-based
	 * (gdb's "Breakpoint N.M, "), when the breakpoint has several; else 0. */
	int bp_loc;
	/* PTD_EVENT_BREAKPOINT, PTD_EVENT_EXEC: bp_id is a catchpoint (enum
	 * ptd_catch_kind), 0 else; for fork and vfork the child's pid */
	int bp_catch;
	pid_t forked;
};

/* A breakpoint as ptd_session_bp_get() describes it.  The strings are
 * owned by the session, valid until the breakpoint is deleted. */
struct ptd_bpinfo {
	int id;
	uint64_t addr;
	const char *spec; /* as the user typed it */
	const char *func; /* may be NULL */
	const char *file; /* may be NULL */
	int line;
	unsigned hits;
	int temporary;
	const char *cond; /* condition (condition N EXPR), or NULL */
	unsigned ignore;  /* hits still ignored (ignore N COUNT) */
	/* Watchpoints (ptd_session_watch): enum ptd_watch_kind, 0 for a
	 * breakpoint; @addr/@len the watched bytes, @spec the expression. */
	int watch;
	int len;
	int triggered;        /* it ended the last motion */
	int changed;          /* and its value changed then */
	uint8_t value[8];     /* the value now (when last seen) */
	uint8_t old_value[8]; /* before the change that triggered it */
	/* It triggered because the frame its expression lives in returned
	 * (ptd_session_watch_scope); the front end deletes it. */
	int scope_ended;
	/* A breakpoint's locations (0 while pending; several for a function
	 * with inlined copies or a line inlined in several places: gdb's
	 * <MULTIPLE>, ptd_session_bp_loc() describes each; @addr, @func,
	 * @file and @line are the first one's), and disable N. */
	int nlocs;
	int enabled;
	/* How many times gdb reports it at this stop: once for a write
	 * watchpoint; a read or access one once per place it watches
	 * (gdb's locations, ptd_session_watch_dep), less the first for a
	 * read watchpoint whose value changed (x86 has no read-only trap,
	 * so gdb takes that one for a write); the first report of an access
	 * watchpoint with @changed shows the old value.  With @scope_ended:
	 * how many times gdb says the watchpoint was deleted. */
	int reports;
	/* enable once / enable count N (ptd_session_bp_disposition): gdb's
	 * "dis" disposition, and the stops left before it disables itself */
	int disp_disable;
	int enable_count;
	/* A catchpoint (ptd_session_catch): enum ptd_catch_kind, 0 else */
	int catch_kind;
	const char *catch_what; /* exec, fork, vfork: what it caught last, or NULL */
	uint64_t catch_signals; /* signal: bit N-1 for signal N; 0: the standard ones */
	int catch_all;          /* signal: any signal */
	/* A dprintf (ptd_session_bp_dprintf): its printf arguments, or NULL */
	const char *dprintf;
};

/* One location of a breakpoint (gdb's N.M), as ptd_session_bp_loc()
 * describes it.  Strings owned by the session, as ptd_bpinfo's. */
struct ptd_bploc {
	uint64_t addr;
	const char *func; /* the function gdb names there (maybe inlined), or NULL */
	const char *file; /* may be NULL */
	int line;
	int enabled; /* disable N.M */
};

struct ptd_thread_info {
	int num;       /* gdb-style thread number, 1-based */
	pid_t tid;
	uint64_t pc;
	int current;   /* the selected thread */
	int recording;
};

/* What "info record" shows, filled into caller storage.  @format points
 * to static storage. */
struct ptd_record_info {
	enum ptd_method method;
	const char *format; /* "blocks" or "pt" */
	uint64_t ninsn;     /* executed instructions recorded (selected thread) */
	uint64_t count;     /* numbered items incl. gaps and the tail */
	uint64_t ncalls;    /* function-call segments */
	size_t bytes;       /* history bytes */
	int replaying;
	uint64_t position;  /* replay position when replaying */
	uint64_t stops;     /* ptrace stops taken while recording */
	uint64_t ngaps;     /* gaps among the numbered items */
	uint64_t buffer_size; /* the method's bound per thread, bytes (0: none) */
	uint64_t dropped;   /* oldest instructions dropped to stay within it */
	size_t mem_bytes;   /* what the recording holds for the thread now */
	/* pt, bts: what the recorder read from its buffers (all threads) */
	uint64_t trace_bytes; /* trace bytes read */
	uint64_t lost_bytes;  /* bytes the hardware or kernel dropped */
	uint64_t wraps;       /* times a circular buffer wrapped */
	char pmu[64];         /* "intel_pt", "intel_pt (simulated)", "" */
	int simulated;        /* the PMU is simulated (PTDBG_SIMULATE_PMU) */
};

/* Default and least buffer-size (bytes a recorded thread may hold). */
#define PTD_RECORD_BUFFER_DEFAULT (64ull << 20)
#define PTD_RECORD_BUFFER_MIN 65536u

/* Returns a new session with no program, or NULL when out of memory. */
extern PTD_EXPORT struct ptd_session *ptd_session_alloc(void);
/* Frees @s (NULL is fine) and everything it handed out: a launched program
 * is killed, an attached one detached (no breakpoint bytes left). */
extern PTD_EXPORT void ptd_session_free(struct ptd_session *s);

/* Why --method=auto chose what it chose; owned by @s, valid until the next
 * recording starts (NULL when no choice was made). */
extern PTD_EXPORT const char *ptd_session_method_note(const struct ptd_session *s);

/* Run the program with address-space randomisation off (default on, as
 * gdb's disable-randomization). */
extern PTD_EXPORT void ptd_session_set_disable_aslr(struct ptd_session *s, int on);
extern PTD_EXPORT int ptd_session_get_disable_aslr(const struct ptd_session *s);
/* Run ptdbg and the traced threads on one CPU (default on): ptrace stops
 * cost about half as much without cross-CPU wake-ups. */
extern PTD_EXPORT void ptd_session_set_pin_cpu(struct ptd_session *s, int on);
extern PTD_EXPORT int ptd_session_get_pin_cpu(const struct ptd_session *s);
/* Keep the recording when the recorded program exits (default off), as
 * when it is killed: the session goes on offline on the recorded history,
 * so reverse motions, bt and record save work from its end (the shell's
 * counterpart of gdb record full, which stops before exit_group). */
extern PTD_EXPORT void ptd_session_set_keep_exited(struct ptd_session *s, int on);
/* Stop a recorded program before its exit_group syscall, or a thread
 * before its exit syscall (default off), as gdb record full does: the motion
 * ends with PTD_EVENT_BEFORE_EXIT, the thread's pc at the syscall; the
 * next motion from there lets it exit.  step and soft hold the thread
 * before the syscall; pt and bts, which run free, hold it in the
 * kernel's exit path (PTRACE_O_TRACEEXIT) with its registers and memory
 * still there, shown as before the syscall (pc on it, rax its number;
 * rcx and r11 as the syscall instruction left them), where it can run
 * nothing else. */
extern PTD_EXPORT void ptd_session_set_stop_before_exit(struct ptd_session *s, int on);
/* With ptd_session_set_stop_before_exit on: whether a thread that is not
 * the last one is stopped before its exit syscall too (default on, as gdb
 * record full, which asks there); off, only the program's end stops. */
extern PTD_EXPORT void ptd_session_set_stop_before_thread_exit(struct ptd_session *s, int on);
/*
 * Bounded recording, like gdb's "record full insn-number-max": each
 * thread recorded with method @m (soft or step) holds at most @bytes
 * (0: unlimited); beyond it the oldest part is dropped and the history
 * starts with a gap that says so.  Applies to recordings running now too.
 * Returns 0, or -ptde_invalid for another method or less than
 * PTD_RECORD_BUFFER_MIN.
 */
extern PTD_EXPORT int ptd_session_set_buffer_size(struct ptd_session *s, enum ptd_method m,
						  uint64_t bytes);
/* The bound set for @m (0: unlimited). */
extern PTD_EXPORT uint64_t ptd_session_buffer_size(const struct ptd_session *s, enum ptd_method m);
/*
 * Options of a recording method for the next recording:
 *   pt:  buffer-size N, buffer circular|full, kernel on|off,
 *        ret-compression, tsc, mtc, cyc (on|off|default),
 *        psb-period 0..15|default, filter SPEC (START/SIZE@FILE or
 *        FUNC@FILE, at most 4; "none" clears them);
 *   bts: buffer-size N;
 *   soft, step: buffer-size N|unlimited (ptd_session_set_buffer_size).
 * Sizes take K, M or G.  Returns 0, or -ptde_invalid with a message that
 * names the valid names or values.
 */
extern PTD_EXPORT int ptd_session_set_record_option(struct ptd_session *s, enum ptd_method m,
						    const char *name, const char *value);
/* The option's value as text ("4194304", "circular", "default", the
 * filters one a line or "none") into @buf (@n bytes).  Returns 0 or
 * -ptde_invalid (unknown option). */
extern PTD_EXPORT int ptd_session_get_record_option(struct ptd_session *s, enum ptd_method m,
						    const char *name, char *buf, size_t n);
/* Program and arguments for ptd_session_run()/launch(): @argv is a
 * NULL-terminated array, copied.  Returns 0, -ptde_invalid (empty), or
 * -ptde_nomem. */
extern PTD_EXPORT int ptd_session_set_program(struct ptd_session *s, char *const *argv);
/* The environment of the programs launched from now on ("NAME=value"
 * strings, NULL-terminated, copied; NULL: ptdbg's own, the default).
 * Returns 0, -ptde_nomem, -ptde_invalid. */
extern PTD_EXPORT int ptd_session_set_environment(struct ptd_session *s, char *const *envp);
/* A redirection of a launched program's file descriptor @fd: to @path
 * (opened for reading when @fd is 0, else for writing, created, truncated
 * unless @append), or, with @path NULL, to a copy of descriptor @dup_from
 * as it is at that point (2>&1).  Applied in order, as a shell does. */
struct ptd_redirect {
	int fd;
	const char *path;
	int append;
	int dup_from;
};
/* The redirections of the programs launched from now on (@n of them,
 * copied; 0: none, the default: ptdbg's own descriptors).  Returns 0,
 * -ptde_invalid (a descriptor outside 0-2), or -ptde_nomem. */
extern PTD_EXPORT int ptd_session_set_redirects(struct ptd_session *s,
						const struct ptd_redirect *r, int n);
/* The terminal (or file) the programs launched from now on get as
 * standard input, output and error, in a session of their own with it as
 * controlling terminal, as gdb's "set inferior-tty"; the redirections of
 * ptd_session_set_redirects() apply after it.  @path is copied; NULL or
 * "": ptdbg's own descriptors (the default).  Returns 0, -ptde_invalid, or
 * -ptde_nomem. */
extern PTD_EXPORT int ptd_session_set_tty(struct ptd_session *s, const char *path);
/* The terminal set by ptd_session_set_tty() (owned by @s), or "". */
extern PTD_EXPORT const char *ptd_session_tty(const struct ptd_session *s);
/* The program's path (owned by @s, valid until set again), or NULL. */
extern PTD_EXPORT const char *ptd_session_program(const struct ptd_session *s);
/* Recording method used by a recording session (--method) and by
 * ptd_session_record_start() with PTD_METHOD_AUTO's default choice. */
extern PTD_EXPORT void ptd_session_set_method(struct ptd_session *s, enum ptd_method m);

/*
 * Launches the program set with ptd_session_set_program().  @start: stop
 * at main (a temporary breakpoint) like gdb's `start`; otherwise run
 * until an event.  A program still running from an earlier run, or a
 * loaded trace, is dropped first.  Fills @ev with the stop.  Returns 0, or
 * <0: -ptde_invalid (no program), -ptde_sys/-ptde_perm/-ptde_notfound when
 * it cannot be run (the message says why: "cannot run 'x': no such file
 * or directory").
 */
extern PTD_EXPORT int ptd_session_run(struct ptd_session *s, int start, struct ptd_event *ev);
/* Launches the program stopped at its first instruction (nothing runs).
 * Returns 0 or the errors of ptd_session_run(). */
extern PTD_EXPORT int ptd_session_launch(struct ptd_session *s);
/* Attaches to every thread of process @pid and stops them.  Returns 0;
 * -ptde_perm (the message names the fix: ptrace_scope, root),
 * -ptde_nosrch (no such process), -ptde_busy (already debugging one),
 * -ptde_invalid (NULL @s). */
extern PTD_EXPORT int ptd_session_attach(struct ptd_session *s, pid_t pid);
/* Detaches, leaving the program running with none of our breakpoint
 * bytes.  Returns 0 or -ptde_not_running. */
extern PTD_EXPORT int ptd_session_detach(struct ptd_session *s);
/* Kills the program and reaps it.  Returns 0 or -ptde_not_running. */
extern PTD_EXPORT int ptd_session_kill(struct ptd_session *s);
/* Nonzero while a program is being debugged (not for an offline trace). */
extern PTD_EXPORT int ptd_session_alive(const struct ptd_session *s);
/* The program's process id, or 0. */
extern PTD_EXPORT pid_t ptd_session_pid(const struct ptd_session *s);

/*
 * Breakpoints: @spec is "func", "file:line", "line" or "*addr"; a
 * @temporary one is deleted when hit.  Returns the new id (>0), or
 * -ptde_notfound (no such function or line: the message says so in gdb's
 * words), -ptde_invalid, -ptde_nomap (cannot insert).
 */
extern PTD_EXPORT int ptd_session_break(struct ptd_session *s, const char *spec, int temporary);
/* Deletes breakpoint @id (0: all).  Returns 0 or -ptde_notfound. */
extern PTD_EXPORT int ptd_session_delete(struct ptd_session *s, int id);
/* Number of breakpoints; ptd_session_bp_get() describes the @index-th
 * (0-based) in @out.  Returns 0 or -ptde_invalid (no such index). */
extern PTD_EXPORT int ptd_session_bp_count(const struct ptd_session *s);
extern PTD_EXPORT int ptd_session_bp_get(const struct ptd_session *s, int index,
					 struct ptd_bpinfo *out);

/*
 * Starts recording every thread with method @m (PTD_METHOD_AUTO walks
 * pt, bts, soft, step and notes why: ptd_session_method_note()).
 * Returns 0; -ptde_not_running; -ptde_busy (already recording);
 * -ptde_unsupported/-ptde_perm (the method cannot record here: the
 * message gives the reason and the fix).
 */
extern PTD_EXPORT int ptd_session_record_start(struct ptd_session *s, enum ptd_method m);
/* Stops recording and forgets the histories.  Returns 0 or
 * -ptde_not_running (not recording: "No record target is currently
 * active."). */
extern PTD_EXPORT int ptd_session_record_stop(struct ptd_session *s);
/* Trace format of the next recording: "blocks" (the recorder's blocks are
 * the history) or "pt" (the recording is written as Intel PT and the
 * history decoded from it).  Returns 0 or -ptde_invalid. */
extern PTD_EXPORT int ptd_session_set_trace_format(struct ptd_session *s, const char *fmt);
/* "blocks" or "pt" (static storage). */
extern PTD_EXPORT const char *ptd_session_trace_format(const struct ptd_session *s);
/* PT bytes kept for the selected thread (format pt; 0 otherwise). */
extern PTD_EXPORT size_t ptd_session_pt_bytes(struct ptd_session *s);
/* The PT kept for the selected thread (format pt): a pointer owned by @s,
 * valid until the program runs again, and its size in *@size; NULL when
 * there is none. */
extern PTD_EXPORT const uint8_t *ptd_session_pt_data(struct ptd_session *s, size_t *size);
/* Nonzero while recording. */
extern PTD_EXPORT int ptd_session_recording(const struct ptd_session *s);
/* Fills @out for the selected thread.  Returns 0, -ptde_not_running when
 * nothing is recorded or loaded, -ptde_invalid for NULL arguments. */
extern PTD_EXPORT int ptd_session_record_info(struct ptd_session *s, struct ptd_record_info *out);

/*
 * Trace bundles (docs/bundle.md).  ptd_session_save() writes the current
 * recording (as PT) with the mappings and code it needs into directory
 * @dir; ptd_session_load() opens a bundle, or a perf.data from `perf
 * record -e intel_pt//u --per-thread`, offline: no process, but the
 * history, record goto and stepping inside the history work.  Return 0,
 * or -ptde_invalid (nothing recorded), -ptde_sys (the message names the
 * path), -ptde_bad_trace (malformed: "DIR/manifest:LINE: ..."),
 * -ptde_notfound (a mapped file is not the one recorded).
 */
extern PTD_EXPORT int ptd_session_save(struct ptd_session *s, const char *dir);
extern PTD_EXPORT int ptd_session_load(struct ptd_session *s, const char *dir);
/* Writes the recording as a perf.data file that perf's Intel PT decoder
 * reads.  Returns 0 or the errors of ptd_session_save(). */
extern PTD_EXPORT int ptd_session_save_perf_data(struct ptd_session *s, const char *file);
/* Nonzero when @s holds a trace loaded with ptd_session_load(). */
extern PTD_EXPORT int ptd_session_offline(const struct ptd_session *s);
/* Returns 0, or -ptde_bad_trace when a loaded bundle's PT file was
 * truncated by another process while loaded. */
extern PTD_EXPORT int ptd_session_check_trace(const struct ptd_session *s);
/* A loaded trace's main executable (its first ELF mapping), owned by @s
 * until the next load; NULL when there is none. */
extern PTD_EXPORT const char *ptd_session_offline_exe(struct ptd_session *s);

/*
 * Executes motion @m forward, or backward through the recorded history
 * with @reverse (which needs a recording or a loaded trace).  Forward
 * motions in the past move through the history and stop at its end
 * (PTD_EVENT_NO_HISTORY, as gdb's record full); the next one runs live.
 * Fills @ev with the stop (reaching an end of the history is a stop,
 * PTD_EVENT_NO_HISTORY).  Returns 0; -ptde_not_running; -ptde_unsupported
 * (reverse without a recording); -ptde_eos (forward at the end of a loaded
 * trace); -ptde_bad_insn (the code at a position cannot be decoded); the
 * errors of resuming the program.
 */
extern PTD_EXPORT int ptd_session_motion(struct ptd_session *s, enum ptd_motion m, int reverse,
					 struct ptd_event *ev);
/* record goto: "begin", "start", "end", or an instruction number.
 * Fills @ev.  Returns 0, -ptde_invalid, -ptde_bos/-ptde_eos (out of
 * range: the message says so as gdb does). */
extern PTD_EXPORT int ptd_session_goto(struct ptd_session *s, const char *where,
				       struct ptd_event *ev);
/* Informational messages while a motion runs (gdb's "process N is
 * executing new program: PATH"): @fn is called with @ctx and a message
 * valid during the call.  @fn may be NULL. */
extern PTD_EXPORT void ptd_session_set_notify(struct ptd_session *s,
					      void (*fn)(void *ctx, const char *msg), void *ctx);
/* Requests the running motion to stop (PTD_EVENT_INTERRUPTED).
 * Async-signal-safe, any thread. */
extern PTD_EXPORT void ptd_session_interrupt(struct ptd_session *s);

/* Nonzero while the position is in the recorded past. */
extern PTD_EXPORT int ptd_session_replaying(const struct ptd_session *s);
/* Current position and item count of the selected thread's history
 * (the position is the count when not replaying).  Returns 0, or
 * -ptde_not_running when there is no thread. */
extern PTD_EXPORT int ptd_session_position(struct ptd_session *s, uint64_t *pos, uint64_t *count);
/* The selected thread's history, owned by @s (see struct ptd_history for
 * how long it stays valid); NULL when there is none. */
extern PTD_EXPORT const struct ptd_history *ptd_session_history(struct ptd_session *s);
/* Function-call segments of the selected thread (built on demand), owned
 * by @s, valid until the program runs again; NULL when there is no history
 * or on an error (ptd_last_error()). */
extern PTD_EXPORT const struct ptd_calls *ptd_session_calls(struct ptd_session *s);
/*
 * When the last stop was PTD_EVENT_GAP (or the position is next to a gap):
 * the gap at the position or beside it, its number in *@number and its
 * enum ptd_gap_reason in *@reason (either may be NULL).  Returns 1 when
 * found, 0 when there is no gap there, -ptde_not_running/-ptde_invalid
 * without a history.
 */
extern PTD_EXPORT int ptd_session_gap_near(struct ptd_session *s, uint64_t *number, int *reason);

/* The pc at the current position (live or replayed).  Returns 0,
 * -ptde_not_running, or -ptde_nomap when the position is a gap. */
extern PTD_EXPORT int ptd_session_pc(struct ptd_session *s, uint64_t *pc);
/* All registers when live, and while replaying a soft recording at an
 * instruction where it trapped; elsewhere in the past only rip is valid
 * (*@pc_only = 1).  Returns 0 or -ptde_not_running. */
extern PTD_EXPORT int ptd_session_regs(struct ptd_session *s, struct user_regs_struct *r,
				       int *pc_only);
/* Reads @n bytes at @addr into @buf: the live memory (also while
 * replaying: say so), or a loaded trace's code.  While replaying where
 * the program an exec replaced ran, its code (executable files as they
 * were mapped) comes from that program; other memory is the live one.
 * Returns the number of bytes read (short at an unmapped page), or
 * -ptde_nomap/-ptde_not_running. */
extern PTD_EXPORT long ptd_session_read(struct ptd_session *s, uint64_t addr, void *buf, size_t n);
/* The same as ptd_session_read() at instruction @number of the selected
 * thread's history instead of its position (for listings of the past,
 * which can span an exec). */
extern PTD_EXPORT long ptd_session_read_at(struct ptd_session *s, uint64_t number, uint64_t addr,
					   void *buf, size_t n);
/*
 * Changing the live program (the recorded past cannot be changed).  @tid
 * names a thread of the program, 0 the selected one.  Each returns 0 (or
 * the bytes written), -ptde_not_running, -ptde_notfound (no such thread),
 * -ptde_invalid (while replaying: the message says so), or the error of
 * the system call (-ptde_nomap for memory).
 *
 * ptd_session_write() writes @n bytes at @addr, also into read-only code;
 * the session's breakpoints stay in place.
 */
extern PTD_EXPORT long ptd_session_write(struct ptd_session *s, uint64_t addr, const void *buf,
					 size_t n);
extern PTD_EXPORT int ptd_session_set_regs(struct ptd_session *s, pid_t tid,
					   const struct user_regs_struct *r);
extern PTD_EXPORT int ptd_session_set_pc(struct ptd_session *s, pid_t tid, uint64_t pc);
/* The XSAVE state of live thread @tid (PTRACE_GETREGSET NT_X86_XSTATE:
 * the FXSAVE area, the XSAVE header with XSTATE_BV at byte 512, then the
 * AVX, opmask and ZMM components at the standard offsets of CPUID leaf
 * 0xD) into @buf, *@size bytes long; *@size gets the length written.
 * Returns 0, -ptde_unsupported while replaying, or the errors above. */
extern PTD_EXPORT int ptd_session_xstate(struct ptd_session *s, pid_t tid, void *buf, size_t *size);
/* The signal thread @tid gets when it next resumes (0: none), replacing
 * the one it stopped with.  -ptde_invalid for a bad @signo. */
extern PTD_EXPORT int ptd_session_set_signal(struct ptd_session *s, pid_t tid, int signo);
/* The x87/SSE registers (FXSAVE layout) of live thread @tid.  Returns 0,
 * -ptde_unsupported while replaying (no recorder keeps them), or the
 * errors above. */
extern PTD_EXPORT int ptd_session_fpregs(struct ptd_session *s, pid_t tid,
					 struct user_fpregs_struct *f);

/*
 * The frames at the current position into @pcs (at most @max): @pcs[0] is
 * the pc, @pcs[i] for i > 0 the return address in the i-th caller, as
 * gdb's unwinders give them (look its line up at pc - 1).  Live via
 * libunwind; in the past from the call history.  Returns the frame count
 * (>= 1), -ptde_invalid, -ptde_not_running ("No stack.").
 */
extern PTD_EXPORT int ptd_session_backtrace(struct ptd_session *s, uint64_t *pcs, int max);

/* What a frame of ptd_session_frames() is. */
enum ptd_frame_kind {
	PTD_FRAME_NORMAL = 0,  /* frame 0 at its pc, a caller at its return address */
	PTD_FRAME_SIGTRAMP,    /* the signal trampoline a handler returns to (gdb's
				* "<signal handler called>"); pc 0 in the past */
	PTD_FRAME_INTERRUPTED, /* a frame a signal interrupted: pc is where it
				* resumes (look its line up at pc, not pc - 1) */
	PTD_FRAME_TAILCALL,    /* gdb's tail call frame: a function that jumped to
				* the frame below it (DWARF DW_AT_call_tail_call
				* call sites); pc is the jump's return pc, looked up
				* as a caller's.  None of ptd_session_backtrace(). */
};

struct ptd_frame_info {
	uint64_t pc;
	int kind; /* enum ptd_frame_kind */
};

/* The frames of ptd_session_backtrace() with their kinds, the signal
 * trampoline between a handler's frames and the frame it interrupted
 * included, and gdb's tail call frames between a frame and its caller
 * (live and in the past).  Returns the count (>= 1) or the errors of
 * ptd_session_backtrace(). */
extern PTD_EXPORT int ptd_session_frames(struct ptd_session *s, struct ptd_frame_info *out,
					 int max);

/* The program's symbols, owned by @s (see struct ptd_symbols); NULL when
 * there is no program.  While replaying, those of the program that ran at
 * the selected thread's position: an exec during the recording replaced
 * the program, and the history before it is the old one's (NULL when
 * that had none). */
extern PTD_EXPORT struct ptd_symbols *ptd_session_symbols(struct ptd_session *s);
/* The symbols of the program that ran at instruction @number of the
 * selected thread's history (listings of the past, which can span an
 * exec); the current program's past the history. */
extern PTD_EXPORT struct ptd_symbols *ptd_session_symbols_at(struct ptd_session *s,
							     uint64_t number);

/* Fills @out with up to @max threads in gdb's order; returns the count of
 * all threads (@out may be NULL to count), or -ptde_invalid. */
extern PTD_EXPORT int ptd_session_threads(struct ptd_session *s, struct ptd_thread_info *out,
					  int max);
/* Selects thread @num (gdb's number).  Returns 0 or -ptde_notfound. */
extern PTD_EXPORT int ptd_session_select_thread(struct ptd_session *s, int num);
/* gdb's scheduler-locking: while on, live motions resume only the selected
 * thread, the others stay stopped. */
extern PTD_EXPORT void ptd_session_set_scheduler_locking(struct ptd_session *s, int on);
/* gdb's catch exec (and a gdb stub's exec events): while on, a live motion
 * that meets an exec stops right after it, at the new program's first
 * instruction, with PTD_EVENT_EXEC; off (the default), the motion goes on
 * in the new program with the breakpoints resolved again in it. */
extern PTD_EXPORT void ptd_session_set_stop_at_exec(struct ptd_session *s, int on);

/* The cpu ptdbg runs on, as a PT decoder needs it for errata (gdb's
 * btrace-conf <cpu>): display family and model as /proc/cpuinfo shows
 * them, and the 12-character cpuid vendor. */
struct ptd_cpu_info {
	char vendor[16]; /* "GenuineIntel", NUL-terminated */
	unsigned family, model, stepping;
};
/* Fills @out (NULL is ignored); all zero but the vendor when cpuid says
 * nothing. */
extern PTD_EXPORT void ptd_host_cpu(struct ptd_cpu_info *out);

/* ------------------------------------------------------------------ */
/* Process-wide: quitting and interrupting safely                       */

/*
 * ptdbg asked to die.  Front ends call ptd_target_quit_signal(sig) from
 * their SIGTERM/SIGHUP handler (async-signal-safe, any thread).  Every
 * live program is then torn down (an attached one detached exactly as it
 * was, a launched one killed) and the process dies of @sig: at once when
 * the tracer thread is at a safe point, else when it next reaches one.
 * Every blocking wait inside the library is one; a front end marks its
 * own idle moments (the prompt) with ptd_target_safe_point(1) ...
 * ptd_target_safe_point(0), where it calls no other ptdbg function.
 * SIGPIPE and SIGXFSZ kill by default too, with no teardown: catch them
 * (this function, or a handler that does nothing so the write fails), not
 * with SIG_IGN, which the programs a session launches would inherit.
 */
extern PTD_EXPORT void ptd_target_quit_signal(int sig);
extern PTD_EXPORT void ptd_target_safe_point(int on);
/* The signal of a pending quit, or 0. */
extern PTD_EXPORT int ptd_target_quit_pending(void);
/*
 * Interrupts the program as gdb's Ctrl-C does: the current or next wait
 * returns an interrupt stop.  Async-signal-safe, any thread (@sig is sent
 * on to the tracer thread from another one, so the handler for it must
 * call this again).  ptd_target_clear_interrupt() drops a request not yet
 * acted on.
 */
extern PTD_EXPORT void ptd_target_request_interrupt(int sig);
extern PTD_EXPORT void ptd_target_clear_interrupt(void);

/* ------------------------------------------------------------------ */
/* Doctor: what can record here                                         */

/* The methods in the order of --method=auto's ladder. */
enum ptd_doctor_method {
	PTD_DOCTOR_PT = 0,
	PTD_DOCTOR_BTS,
	PTD_DOCTOR_SOFT,
	PTD_DOCTOR_STEP,
	PTD_DOCTOR_NMETHODS
};

/*
 * `ptdbg doctor`: writes what ptdbg can record with on this machine and
 * why, one line per call of @line (the text has no newline and is valid
 * during the call).  *@auto_choice (may be NULL) gets the method
 * --method=auto takes (enum ptd_doctor_method) or -1.  Returns 0, or
 * -ptde_invalid (PTDBG_SIMULATE_PMU names no PMU ptdbg simulates),
 * -ptde_nomem.
 */
extern PTD_EXPORT int ptd_doctor_report(void (*line)(void *ctx, const char *text), void *ctx,
					int *auto_choice);
/* The name of ladder method @m ("pt"), static; "none" when out of range. */
extern PTD_EXPORT const char *ptd_doctor_method_name(int m);

/* ------------------------------------------------------------------ */
/* The stop's signal (ptdbg-report)                                     */

/* What the kernel's siginfo says about the signal a live stop is for. */
struct ptd_stop_siginfo {
	int signo;
	int code;	   /* si_code: SEGV_MAPERR, SI_USER, ... */
	uint64_t addr;	   /* si_addr: the faulting address (faults only) */
	pid_t sender_pid;  /* si_pid: the sender (code <= 0: kill, tgkill) */
};
/*
 * The siginfo of the signal the selected thread stopped for.  Returns 0,
 * -ptde_invalid (a NULL argument, or a replay position: the past has no
 * siginfo), -ptde_not_running (no live thread, or a loaded trace),
 * -ptde_notfound (the stop is not for a signal), -ptde_nosrch.
 */
extern PTD_EXPORT int ptd_session_siginfo(struct ptd_session *s, struct ptd_stop_siginfo *out);
/* The same siginfo as the kernel's bytes (siginfo_t, 128 on x86-64), as
 * gdbserver sends them for gdb's $_siginfo: at most @n into @buf.
 * Returns the number of bytes, or the errors of ptd_session_siginfo. */
extern PTD_EXPORT long ptd_session_siginfo_raw(struct ptd_session *s, void *buf, size_t n);

/* ------------------------------------------------------------------ */
/* Hardware breakpoints and watchpoints; registers in the past          */

/*
 * Hardware breakpoints and watchpoints: the x86 debug registers, four
 * slots, set in every thread of the live program (also threads created
 * later; exec clears them, detach takes them away).  A motion that meets
 * one stops with PTD_EVENT_HWBREAK and the triggered slots in hw_hits.
 * x86 has no read-only watchpoint: PTD_HW_ACCESS triggers on reads and
 * writes, and a caller wanting gdb's rwatch compares the value itself.
 * Data watchpoints stop after the access, execute ones before the
 * instruction (resuming runs it).
 */
enum ptd_hw_kind {
	PTD_HW_EXEC = 0,   /* instruction fetch at addr (len 1) */
	PTD_HW_WRITE = 1,  /* data writes to [addr, addr+len) */
	PTD_HW_ACCESS = 3, /* data reads or writes */
};
#define PTD_HW_SLOTS 4
/* Sets slot @slot (0..3) to watch [@addr, @addr+@len): @len 1, 2, 4 or 8
 * with @addr aligned to it (1 for PTD_HW_EXEC).  Returns 0,
 * -ptde_invalid (slot, length, alignment, kind), -ptde_not_running, or
 * the kernel's refusal (an address outside user space); the slot is then
 * left unset. */
extern PTD_EXPORT int ptd_session_hw_set(struct ptd_session *s, int slot, uint64_t addr, int len,
					 enum ptd_hw_kind kind);
/* Clears slot @slot.  Returns 0, -ptde_invalid. */
extern PTD_EXPORT int ptd_session_hw_clear(struct ptd_session *s, int slot);
/* A free slot, -ptde_busy when all are set, -ptde_not_running. */
extern PTD_EXPORT int ptd_session_hw_free_slot(struct ptd_session *s);
/* What slot @slot holds: 1 (fills what is not NULL), 0 free, -ptde_invalid. */
extern PTD_EXPORT int ptd_session_hw_get(struct ptd_session *s, int slot, uint64_t *addr,
					 int *len, enum ptd_hw_kind *kind);
/* Splits [@addr, @addr+@len) into the aligned pieces that one slot each
 * watches (gdbserver's way): up to @max into @pa/@pl (either may be
 * NULL); returns how many are needed, or -ptde_invalid for @len 0. */
extern PTD_EXPORT int ptd_hw_pieces(uint64_t addr, uint64_t len, uint64_t *pa, int *pl, int max);

/*
 * Like ptd_session_regs(), saying which registers are known: bit i of
 * *@known stands for the i-th 8-byte field of struct user_regs_struct
 * (all bits live and at a soft recorder's traps).  In the rest of the
 * past: rip, and rsp or rbp where they follow exactly from the call-frame
 * information and registers the recorder knows elsewhere in the same
 * function activation.  Returns 0, -ptde_invalid, -ptde_not_running.
 */
extern PTD_EXPORT int ptd_session_regs_known(struct ptd_session *s, struct user_regs_struct *r,
					     uint64_t *known);

/* ------------------------------------------------------------------ */
/* Breakpoint conditions, ignore counts, signals, until/advance,          */
/* pending breakpoints, shared libraries                                  */

/* Evaluates @expr at the selected thread's current position; sets *@truth
 * (nonzero: the condition holds).  Returns 0, or <0 when it cannot be
 * evaluated (the breakpoint then stops, as gdb's does; the evaluator says
 * why, the session adds nothing). */
typedef int (*ptd_cond_eval_fn)(void *ctx, const char *expr, int *truth);
/* The evaluator of breakpoint conditions (one call swaps it; NULL: every
 * condition holds). */
extern PTD_EXPORT void ptd_session_set_cond_eval(struct ptd_session *s, ptd_cond_eval_fn fn,
						 void *ctx);
/* condition N EXPR: breakpoint @id stops only where @expr holds (a false
 * condition is no hit); NULL or "" removes the condition.  Returns 0,
 * -ptde_notfound ("No breakpoint number N."), -ptde_nomem. */
extern PTD_EXPORT int ptd_session_bp_condition(struct ptd_session *s, int id, const char *expr);
/* gdb's skip list: nonzero when `step` (forward or reverse) must step
 * over the function named @func (gdb's print name, may be NULL), whose
 * entry's line is in @file (may be NULL), instead of stopping in it. */
typedef int (*ptd_skip_fn)(void *ctx, const char *func, const char *file);
/* The skip list's judge (NULL: no function is skipped). */
extern PTD_EXPORT void ptd_session_set_skip(struct ptd_session *s, ptd_skip_fn fn, void *ctx);
/* Prints a dprintf's arguments (@args: "FORMAT",EXPR...) at the selected
 * thread's position; returns 0, or <0 when it cannot (the breakpoint then
 * stops; the printer says why). */
typedef int (*ptd_dprintf_fn)(void *ctx, const char *args);
/* The printer of dprintf breakpoints (NULL: they print nothing). */
extern PTD_EXPORT void ptd_session_set_dprintf(struct ptd_session *s, ptd_dprintf_fn fn, void *ctx);
/* dprintf: breakpoint @id no longer stops but, at each hit that counts
 * (its condition true, no ignore count left), has @args printed (gdb's
 * dprintf LOCATION,"FORMAT",EXPR...); NULL or "" makes it a breakpoint
 * again.  Returns 0, -ptde_notfound, -ptde_invalid (a watchpoint or
 * catchpoint), -ptde_nomem. */
extern PTD_EXPORT int ptd_session_bp_dprintf(struct ptd_session *s, int id, const char *args);
/* ignore N COUNT: the next @count hits of @id are counted but do not stop.
 * Returns 0 or -ptde_notfound. */
extern PTD_EXPORT int ptd_session_bp_ignore(struct ptd_session *s, int id, unsigned count);
/* Location @loc (1-based, gdb's N.M) of the @index-th breakpoint (as
 * ptd_session_bp_get).  Returns 0, -ptde_invalid for a bad index or
 * location. */
extern PTD_EXPORT int ptd_session_bp_loc(const struct ptd_session *s, int index, int loc,
					 struct ptd_bploc *out);
/* enable/disable breakpoint @id (@loc 0), or only its location @loc
 * (1-based; gdb's N.M): a disabled one neither stops nor counts hits.
 * Watchpoints cannot be disabled here (-ptde_unsupported).  Returns 0,
 * -ptde_notfound ("No breakpoint number N."), -ptde_invalid (a location
 * it does not have: gdb's "Bad breakpoint location number 'M'"). */
extern PTD_EXPORT int ptd_session_bp_enable(struct ptd_session *s, int id, int loc, int enabled);
/* Like ptd_session_break, but a function or line no loaded file has yet
 * makes a pending breakpoint (address 0) instead of -ptde_notfound: it is
 * resolved when the dynamic linker loads a library (dlopen), at the next
 * run, or after an exec.  Returns the id or <0 as ptd_session_break. */
extern PTD_EXPORT int ptd_session_break_pending(struct ptd_session *s, const char *spec,
						int temporary);
/* The address a breakpoint at @spec would get (no breakpoint is made).
 * Returns 0, -ptde_invalid, -ptde_notfound (the message says why). */
extern PTD_EXPORT int ptd_session_resolve(struct ptd_session *s, const char *spec, uint64_t *addr);

/* handle SIG: what a signal the program receives does.  gdb's defaults:
 * everything stops, prints and is passed, except SIGALRM, SIGURG, SIGCHLD,
 * SIGWINCH, SIGIO, SIGVTALRM, SIGPROF and glibc's internal 32 and 33 (no
 * stop, no print) and SIGINT, SIGTRAP (not passed). */
enum {
	PTD_SIG_STOP = 1,
	PTD_SIG_PRINT = 2,
	PTD_SIG_PASS = 4,
};
/* Returns the flags of @signo (1..64), or -ptde_invalid. */
extern PTD_EXPORT int ptd_session_signal_flags(struct ptd_session *s, int signo);
/* Sets them.  Returns 0 or -ptde_invalid. */
extern PTD_EXPORT int ptd_session_set_signal_flags(struct ptd_session *s, int signo, int flags);

/* until/advance LOCATION: runs until the selected thread reaches @addr
 * (until: in the current frame or an outer one; advance, @anywhere: in any
 * frame) or the current frame returns; a breakpoint met first stops it.
 * In the recorded past it replays forward so (gdb's record full), ending
 * at the end of the history with PTD_EVENT_NO_HISTORY; so it does in a
 * recording kept after the program ended, or loaded.  Returns 0 (@ev
 * says where), -ptde_not_running, -ptde_eos (at the end of an offline
 * recording), -ptde_nomap (no code at @addr). */
extern PTD_EXPORT int ptd_session_advance(struct ptd_session *s, uint64_t addr, int anywhere,
					  struct ptd_event *ev);
/* until with no argument: next, but a jump back in the function (a loop)
 * does not stop it; as gdb's, it steps while the pc is in the function's
 * code up to the end of the current line, in any frame (a recursive call
 * is stepped into), over calls of other functions.  Returns as
 * ptd_session_motion. */
extern PTD_EXPORT int ptd_session_until_next(struct ptd_session *s, struct ptd_event *ev);
/* until/advance in either direction, and in any recording: with
 * @reverse, backward through the recording (gdb's set exec-direction
 * reverse: the stop at @addr is in the starting frame for until, in any
 * for advance, or at the return address in the caller; a breakpoint met
 * first stops it; the start of the history ends it with
 * PTD_EVENT_NO_HISTORY); forward in a recording kept after the program
 * ended or loaded, as in the recorded past.  Returns as
 * ptd_session_advance, -ptde_unsupported (@reverse without a recording),
 * -ptde_eos (no history in that direction). */
extern PTD_EXPORT int ptd_session_advance_dir(struct ptd_session *s, uint64_t addr, int anywhere,
					      int reverse, struct ptd_event *ev);
/* until with no argument, in either direction (@reverse: reverse-next
 * until the thread leaves the function or its lines before the current
 * one's end, as gdb's until_next_command backward).  Returns as
 * ptd_session_motion. */
extern PTD_EXPORT int ptd_session_until_next_dir(struct ptd_session *s, int reverse,
						 struct ptd_event *ev);
/* jump: resumes the selected thread at @addr; a breakpoint at @addr stops
 * it at once, as in gdb.  Live only.  Returns 0 (@ev says where),
 * -ptde_not_running, -ptde_unsupported (replaying: go to the end of the
 * history first), -ptde_nomap (no code at @addr). */
extern PTD_EXPORT int ptd_session_jump(struct ptd_session *s, uint64_t addr, struct ptd_event *ev);
/* signal SIG: continues, delivering @signo (0: none) to the selected
 * thread.  Returns as ptd_session_advance, or -ptde_invalid. */
extern PTD_EXPORT int ptd_session_continue_signal(struct ptd_session *s, int signo,
						  struct ptd_event *ev);

/*
 * watch/rwatch/awatch: a watchpoint on [@addr, @addr+@len) (@len 1..8)
 * with the debug registers (ptd_session_hw_*; one slot per aligned
 * piece), numbered with the breakpoints; @expr names it.  gdb's rules: a
 * write watchpoint ends a motion when the value changed, a read one when
 * it was read (x86 cannot tell a read from a write: an access that
 * leaves the value unchanged), an access one at every access; the event
 * is PTD_EVENT_HWBREAK and the watchpoints that triggered have
 * ptd_bpinfo.triggered set.  Live only: a continue in the recorded past
 * refuses while watchpoints are set (the recorders keep control flow,
 * not memory).  Returns the id, -ptde_not_running, -ptde_invalid,
 * -ptde_busy (not enough free debug registers).
 */
enum ptd_watch_kind {
	PTD_WATCH_WRITE = 1,
	PTD_WATCH_READ = 2,
	PTD_WATCH_ACCESS = 3,
};
extern PTD_EXPORT int ptd_session_watch(struct ptd_session *s, const char *expr, uint64_t addr,
					int len, enum ptd_watch_kind kind);
/* Ends watchpoint @id when the frame whose CFA is @cfa returns to
 * @ret_pc (a watchpoint on a local): an execute debug register at
 * @ret_pc stops there once the thread's rsp is at or above @cfa
 * (recursive calls returning there earlier pass); the watchpoint then
 * triggers with ptd_bpinfo.scope_ended set.  Live only.  Returns 0,
 * -ptde_invalid (no such watchpoint), -ptde_not_running, -ptde_busy (no
 * free debug register). */
extern PTD_EXPORT int ptd_session_watch_scope(struct ptd_session *s, int id, uint64_t ret_pc,
					      uint64_t cfa);
/*
 * The watched expression of watchpoint @id also reads [@addr, @addr+@len)
 * (@len 1..8): the pointer of `*ptr`, i of `a[i]`, as gdb watches every
 * value the expression reads (see ptd_values_watch_chain()).  A change
 * there evaluates the expression again (the callback of
 * ptd_session_set_watch_chain(), else ptd_session_set_watch_eval();
 * without one it stays) and moves the watchpoint's places; a write
 * watchpoint then triggers when the expression's value changed.  The
 * place is watched as the watchpoint is (writes for watch, accesses for
 * rwatch and awatch, which then trigger at any access to it: see
 * ptd_bpinfo.reports).  Takes debug registers as ptd_session_watch, when
 * the program starts if it is not running yet.  Returns 0, -ptde_invalid
 * (no such watchpoint, bad @len, too many), -ptde_not_running (no
 * program), -ptde_busy (not enough free debug registers).
 */
extern PTD_EXPORT int ptd_session_watch_dep(struct ptd_session *s, int id, uint64_t addr, int len);
/*
 * The places watchpoint expression @expr watches now (ptd_values_watch_chain():
 * @locs[0] the object, @len 0 when it cannot be evaluated now, then the
 * values read on the way), at most @max; returns the count or <0.
 * Called with the thread that triggered selected when a value read on
 * the way changed, and when a new program starts (watchpoints set before
 * `run`).  @frame_cfa: the CFA of the frame the expression lives in (a
 * watchpoint on a local, ptd_session_watch_scope()), to evaluate it
 * there as gdb does; 0: the innermost frame.  Set with
 * ptd_session_set_watch_chain(); it takes precedence over the older
 * ptd_watch_eval_fn, which gives the object's address only.
 */
struct ptd_watch_loc {
	uint64_t addr;
	int len;
};
typedef int (*ptd_watch_chain_fn)(void *ctx, const char *expr, uint64_t frame_cfa,
				  struct ptd_watch_loc *locs, int max);
extern PTD_EXPORT void ptd_session_set_watch_chain(struct ptd_session *s, ptd_watch_chain_fn fn,
						   void *ctx);
/*
 * Sets every place watchpoint @id watches at once, as
 * ptd_values_watch_chain() gives them: @locs[0] the object (@len the
 * watchpoint's, or 0 when the expression cannot be evaluated now: its
 * value is unreadable until a place read on the way changes), then the
 * @n - 1 values read on the way (@len 1..8).  The old places are freed
 * first; the new ones take debug registers all or none (while the
 * program runs; else when it starts).  Returns 0, -ptde_invalid,
 * -ptde_busy (the watchpoint then watches nothing: delete it).
 */
extern PTD_EXPORT int ptd_session_watch_places(struct ptd_session *s, int id,
					       const struct ptd_watch_loc *locs, int n);
/* The address of the object watchpoint expression @expr names now, in
 * *@addr; returns 0 or <0.  Called with the thread that triggered
 * selected. */
/* Whether watchpoint @id's value now and before its last change could be
 * read (ptd_bpinfo.value/old_value; gdb's "<unreadable>" otherwise, e.g.
 * *ptr while ptr is NULL).  Returns 0, -ptde_notfound, -ptde_invalid. */
extern PTD_EXPORT int ptd_session_watch_readable(struct ptd_session *s, int id, int *now_ok,
						 int *old_ok);
typedef int (*ptd_watch_eval_fn)(void *ctx, const char *expr, uint64_t *addr);
extern PTD_EXPORT void ptd_session_set_watch_eval(struct ptd_session *s, ptd_watch_eval_fn fn,
						  void *ctx);
/* The address and size of global data symbol @name (the program's and its
 * libraries' symbol tables), for watch.  Returns 0, -ptde_notfound,
 * -ptde_not_running. */
extern PTD_EXPORT int ptd_session_data_symbol(struct ptd_session *s, const char *name,
					      uint64_t *addr, uint64_t *size);

/* While a live motion records: what the recording holds (all threads). */
enum ptd_progress_phase {
	PTD_PROGRESS_START = 0, /* the motion starts */
	PTD_PROGRESS_UPDATE,    /* every few thousand stops while it runs */
	PTD_PROGRESS_END,       /* it stopped (before the stop is reported) */
};
struct ptd_progress {
	int phase;      /* enum ptd_progress_phase */
	uint64_t insns; /* instructions recorded */
	uint64_t bytes; /* bytes the recording holds */
};
/* Calls @fn while live motions record (the shell's status line); NULL
 * turns it off.  @fn must not call the session. */
extern PTD_EXPORT void ptd_session_set_progress(struct ptd_session *s,
						void (*fn)(void *ctx, const struct ptd_progress *p),
						void *ctx);

/* Calls @fn with the name of every function and data object starting with
 * @prefix in the program's and its libraries' symbol tables (the program
 * file before run), duplicates included, for completion.  Returns 0 or
 * -ptde_invalid. */
extern PTD_EXPORT int ptd_session_symbol_names(struct ptd_session *s, const char *prefix,
					       void (*fn)(void *ctx, const char *name), void *ctx);

/* One shared object of the live program (info sharedlibrary). */
struct ptd_shlib {
	const char *path;          /* as the dynamic linker names it */
	uint64_t text_lo, text_hi; /* its .text, relocated; 0, 0 when unknown */
	int has_symbols;           /* it has a symbol table */
	int has_debuginfo;         /* DWARF in it or in /usr/lib/debug */
	uint64_t bias;             /* its load bias (l_addr) */
};
/* Calls @fn for each shared object of the program (the dynamic linker's
 * list; the interpreter first, as gdb lists them); @l is valid during the
 * call.  Returns the count, -ptde_not_running, -ptde_sys. */
extern PTD_EXPORT int ptd_session_shlibs(struct ptd_session *s,
					 void (*fn)(void *ctx, const struct ptd_shlib *l),
					 void *ctx);
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
	/* (@dwarf_regno 0-16, 49-55 eflags and the segment registers, 58
	 * fs_base, 59 gs_base, and 1000 for orig_rax, which has none) */
	int (*set_reg)(void *ctx, int dwarf_regno, uint64_t val);
	/* The thread's XSAVE state (as ptd_session_xstate) into @buf of
	 * *@size bytes, *@size its length: 0 or <0 where there is none (the
	 * past); and writing it back, NULL where it cannot be.  For $xmm0,
	 * $st0, $mxcsr...; NULL: those are <unavailable>. */
	int (*xstate)(void *ctx, void *buf, size_t *size);
	int (*set_xstate)(void *ctx, const void *buf, size_t size);
	void *ctx;
	/* When nonzero, the @ctx_size bytes at @ctx are copied into the
	 * binding (at most 64), and the callbacks get the copy: the caller's
	 * context need not outlive the call. */
	size_t ctx_size;
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
/* Binds @v to the caller of the frame it is bound to, as
 * ptd_values_bind() with the next level and @level_pc would, without
 * unwinding the inner frames again: a backtrace's frames, innermost
 * first, cost one unwind step each.  The target must not have run or
 * been written since the bind.  Returns 0 or -ptde_invalid. */
extern PTD_EXPORT int ptd_values_bind_caller(struct ptd_values *v, uint64_t level_pc);
/* The bound frame's registers: unwound ones for outer frames (the
 * innermost frame's eflags and segment registers).  Each field of
 * @known is 1 where that register is known, 0 where it is unavailable.
 * Returns 0, or -ptde_not_running when there is no thread. */
extern PTD_EXPORT int ptd_values_frame_regs(const struct ptd_values *v,
					    struct user_regs_struct *regs,
					    struct user_regs_struct *known);
/* Nonzero when the evaluations since the bind used registers (other than
 * rip) while bound to the past, where the recorder knew them exactly (a
 * soft recording at one of its traps). */
extern PTD_EXPORT int ptd_values_used_exact_regs(const struct ptd_values *v);
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
/* Evaluates @expr for its type only, as gdb's whatis, ptype and sizeof
 * do: memory is not read (the contents are zeros) and nothing is written,
 * so p->next->val has its type while p is NULL.  Returns as
 * ptd_values_eval(). */
extern PTD_EXPORT int ptd_values_eval_type(struct ptd_values *v, const char *expr,
					   struct ptd_value **out);
/* gdb's warning from the last ptd_values_eval() ("Value does not fit in 3
 * bits."), valid until the next evaluation, or NULL. */
extern PTD_EXPORT const char *ptd_values_warning(const struct ptd_values *v);
/* Appends a copy of @val to the history.  Returns its number N ($N). */
extern PTD_EXPORT int ptd_values_record(struct ptd_values *v, const struct ptd_value *val);
/*
 * The places a watchpoint on lvalue @expr watches, as gdb's: @locs[0] the
 * object (its size may exceed 8), then every scalar value the evaluation
 * read from memory on the way (i of a[i]; p and p->next of p->next->val),
 * each once, at most @max in all.  When the evaluation fails after
 * reading such values (p->next->val while p is NULL), @locs[0] has @len
 * 0 (the object is not known now) and the values read before the error
 * follow, as gdb keeps watching them.  Returns the count (>= 1), or <0:
 * ptd_values_eval()'s errors when nothing was read, -ptde_invalid when
 * the value is not in memory.
 */
extern PTD_EXPORT int ptd_values_watch_chain(struct ptd_values *v, const char *expr,
					     struct ptd_watch_loc *locs, int max);
extern PTD_EXPORT void ptd_value_free(struct ptd_value *val);

/*
 * Formats @val as gdb's print does, without "$N = ": @fmt 0 (natural) or
 * one of x d u o t c s a z f, or'ed with PTD_FMT_RAW for print/r (the
 * classes of the C++ library as their members, without gdb's libstdc++
 * pretty printers); @top: the top-level form (pointers with their type
 * in parentheses).  *@out gets a malloc'ed string.  Returns 0 or <0
 * (memory that cannot be read: "Cannot access memory at address 0x...").
 */
#define PTD_FMT_RAW 0x100
extern PTD_EXPORT int ptd_value_format(struct ptd_values *v, struct ptd_value *val, int fmt,
				       int top, char **out);
/* whatis: the type's name ("struct point", "int (*)[4]"); ptype: the type
 * with one level of struct/union/enum expanded; @expand 2, ptype/o: a
 * struct or union with gdb's offset, size, hole and padding comments (its
 * struct and union members expanded too), from "/\* offset" on, "type = "
 * included.  *@out is malloc'ed. */
extern PTD_EXPORT int ptd_value_type_name(const struct ptd_value *val, int expand, char **out);
/* Same for a type named in C ("struct point", "unsigned long"); returns
 * -ptde_notfound when @name is not a type. */
extern PTD_EXPORT int ptd_values_type_name(struct ptd_values *v, const char *name, int expand,
					   char **out);
/* The value as an integer or address (pointers, arrays' addresses,
 * functions' entries), for x and break *EXPR.  Returns 0 or <0. */
extern PTD_EXPORT int ptd_value_as_address(struct ptd_values *v, struct ptd_value *val,
					   uint64_t *addr);
/*
 * gdb's printf: @args is "FORMAT", EXPR, ... (the command's arguments);
 * *@out gets the text, malloc'ed.  Conversions d i u o x X c with l, ll
 * or z, f e g (L), s, p and %%; every argument is evaluated first.
 * Returns 0, or <0 with gdb's message ("Wrong number of arguments for
 * specified format-string", "Bad format string, missing '\"'.", an
 * argument's error).
 */
extern PTD_EXPORT int ptd_values_printf(struct ptd_values *v, const char *args, char **out);
/* gdb's "set print pretty": with @on, structs, unions and classes print
 * a member per line, indented two spaces per level ("members of Class:"
 * after a class's bases).  Returns 0, or -ptde_invalid for a NULL @v. */
extern PTD_EXPORT int ptd_values_set_pretty(struct ptd_values *v, int on);
/* gdb's "set print elements": at most @n characters of a string and
 * elements of an array (or children of a library container) are printed,
 * "..." after; 0 is unlimited; 200 by default.  Returns 0, or
 * -ptde_invalid for a NULL @v. */
extern PTD_EXPORT int ptd_values_set_print_elements(struct ptd_values *v, unsigned n);
/* The print frame-arguments mode (ptd_values_frame_args()'s @mode) info
 * frame's argument list uses, as gdb's; 1 (scalars) by default.  Returns
 * 0, or -ptde_invalid (NULL @v, another mode). */
extern PTD_EXPORT int ptd_values_set_frame_args(struct ptd_values *v, int mode);

/* What a setting is, for gdb's $_gdb_setting (its value's type there). */
enum ptd_setting_kind {
	PTD_SETTING_NONE = 0, /* no such setting */
	PTD_SETTING_INT,      /* an int ("unlimited": 0) */
	PTD_SETTING_UINT,     /* an unsigned int ("unlimited": 0) */
	PTD_SETTING_BOOL,     /* "on" 1, "off" 0 (an int) */
	PTD_SETTING_AUTOBOOL, /* "on" 1, "off" 0, "auto" -1 (an int) */
	PTD_SETTING_STRING,   /* a string or an enumeration: characters */
};

/*
 * What the front end knows and the expressions of gdb's convenience
 * variables and functions ask for: the threads, the stop's signal, the
 * frames above the selected one, the settings.  A callback may be NULL
 * (the variable is then void, the function says there is no frame).
 */
struct ptd_values_hooks {
	void *ctx;
	/* $_thread, $_gthread, $_inferior: 1 and *@val; 0 for another name. */
	int (*conv_int)(void *ctx, const char *name, long *val);
	/* The siginfo of the selected thread's stop (128 bytes into @buf):
	 * 1; 0 when there is no program ($_siginfo is void); <0 when it
	 * cannot be read (the recorded past, a stop for no signal). */
	int (*siginfo)(void *ctx, void *buf, size_t n);
	/* The function of the frame @up levels above the selected one (0:
	 * that frame): 1 and its name in @buf; 2 when the frame has no
	 * function name; 0 when there is no such frame; <0 when no frame is
	 * selected. */
	int (*frame_function)(void *ctx, int up, char *buf, size_t n);
	/* Setting @name ("listsize", "print pretty", unique beginnings as
	 * show takes them): its kind and the value as show words it
	 * ("unlimited", "on", "auto") in @buf; PTD_SETTING_NONE when none. */
	enum ptd_setting_kind (*setting)(void *ctx, const char *name, char *buf, size_t n);
};
/* Installs @h (copied) for the evaluations to come; NULL removes them. */
extern PTD_EXPORT void ptd_values_set_hooks(struct ptd_values *v, const struct ptd_values_hooks *h);
/* After x: gdb's $_, the last address examined, typed a pointer to the
 * @size-byte integer (int8_t ... int64_t), and $__, what is there (void
 * without @contents: strings, instructions).  Returns 0, -ptde_invalid
 * (NULL @v, another size) or -ptde_nomem. */
extern PTD_EXPORT int ptd_values_set_last_examined(struct ptd_values *v, uint64_t addr, int size,
						   int contents);
/* gdb's innermost block of the last ptd_values_eval(): when it used a
 * variable of the frame (a local, an argument), *@lo and *@hi get the pc
 * range of the innermost block holding one, and it returns 1; 0 when the
 * expression needs no frame.  -ptde_invalid for NULL arguments. */
extern PTD_EXPORT int ptd_values_expr_block(const struct ptd_values *v, uint64_t *lo,
					    uint64_t *hi);
/* Whether the bound frame's pc is in [@lo, @hi) (a display's block is in
 * scope, as gdb's contained_in): 1 or 0. */
extern PTD_EXPORT int ptd_values_in_block(const struct ptd_values *v, uint64_t lo, uint64_t hi);
/* The size in bytes of @val's type (x's default unit). */
extern PTD_EXPORT uint64_t ptd_value_size(const struct ptd_value *val);

/* info locals (@args 0) / info args (@args 1): "name = value\n" lines or
 * "No locals.\n"; *@out is malloc'ed. */
extern PTD_EXPORT int ptd_values_locals(struct ptd_values *v, int args, char **out);
/* The bound frame's arguments for frame lines, "argc=1, argv=0x7ffe...",
 * in gdb's `print frame-arguments` modes: 0 all, 1 scalars (structs,
 * unions and arrays as "..."), 2 none ("argc=..."), 3 presence ("..."
 * when there are arguments).  *@out is malloc'ed. */
extern PTD_EXPORT int ptd_values_frame_args(struct ptd_values *v, int mode, char **out);
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

/*
 * Keeps a copy of @val whose type survives later binds, to format other
 * contents of that type (a watchpoint's old and new values).  Returns a
 * key > 0, -ptde_invalid or -ptde_nomem.  ptd_values_unkeep() releases
 * it (unknown keys are ignored).
 */
extern PTD_EXPORT int ptd_values_keep(struct ptd_values *v, const struct ptd_value *val);
extern PTD_EXPORT void ptd_values_unkeep(struct ptd_values *v, int key);
/* Formats the @n bytes at @bytes as a value of kept value @key's type, as
 * ptd_value_format() does.  Returns 0, or -ptde_invalid (unknown key, @n
 * not the type's size, a bit-field). */
extern PTD_EXPORT int ptd_values_format_kept(struct ptd_values *v, int key, const void *bytes,
					     size_t n, int fmt, int top, char **out);

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

/*
 * gdb's inline frames at the selected thread's position: how many of the
 * functions inlined right at the pc (ptd_symbols_inlined(), innermost
 * first) are not entered yet, so that their call site is shown as the
 * innermost frame (as gdb does after a step, next, finish or continue
 * arriving where inlined calls start; `step` then enters them one at a
 * time without moving).  The frames to show are the inlined ones beyond
 * that count, then the real function.  Returns the count (0 for none).
 */
extern PTD_EXPORT int ptd_session_inline_skipped(struct ptd_session *s);

/*
 * Selects, after ptd_values_bind() (or ptd_session_values_bind()), the
 * frame of an inlined call at the bound frame's pc: the one around its
 * innermost @callees inlined calls (DW_TAG_inlined_subroutine; 0: the
 * innermost frame there, inlined or not).  Its variables are those of
 * the inlined function (names and types through DW_AT_abstract_origin),
 * its arguments the inlined call's.  Stays until the next bind.
 * Returns 0, or -ptde_invalid.
 */
extern PTD_EXPORT int ptd_values_select_inline(struct ptd_values *v, int callees);

/*
 * The frame the next PTD_MOTION_FINISH finishes, as gdb finishes the
 * selected frame (frame N, up): real frame @real (0: the innermost; as
 * ptd_session_backtrace() counts them) and the @inline_k-th frame shown
 * for it (0: its innermost shown frame, an inlined call's when there are
 * any; the real function's own frame comes after its inlined ones).
 * Reverse finish runs back to the innermost frame's entry, as gdb's.
 * Used by the next motion only.  Returns 0, or -ptde_invalid.  The
 * motion returns -ptde_unsupported for an inlined frame of an outer frame.
 */
extern PTD_EXPORT int ptd_session_finish_frame(struct ptd_session *s, int real, int inline_k);

/* info frame's text for the bound frame (ptd_values_frame_info()) with
 * @level as its number in the backtrace, where frames of inlined calls
 * count; for the frame of an inlined call (ptd_values_select_inline())
 * gdb's form ("inlined into frame N").  Returns 0 or <0. */
extern PTD_EXPORT int ptd_values_frame_info_at(struct ptd_values *v, int level, char **out);

/* maint check calls: the selected thread's function-call view as
 * ptd_session_calls() serves it (from the history's call log when it has
 * one) compared segment by segment, every field, with the view built from
 * the history's items alone, and info record's count both ways. */
struct ptd_calls_check {
	uint64_t nsegs;	 /* segments of the served view */
	uint64_t nitems; /* items of the history */
	int has_log;	 /* the history has a call log */
	uint64_t logged; /* of the items, those the call log stands for */
	/* call logs written again from the items so far in the session
	 * (after bounded drops, or when the symbols changed the answers
	 * the logs were written with); 0 while the recorders keep them */
	uint64_t rebuilt;
	char diff[256];	 /* the first difference, when there is one */
};
/* Returns 0 when the two are identical, 1 when they differ (@out->diff
 * says where first), or <0 (no thread, no memory...). */
extern PTD_EXPORT int ptd_session_check_calls(struct ptd_session *s, struct ptd_calls_check *out);

/*
 * info address NAME as gdb 13 says it: "Symbol \"x\" is static storage at
 * address 0x...", "is a function at address", "is a variable in $rdi",
 * "is multi-location:" with gdb's lines for a location list, "is a complex
 * DWARF expression:" and its operations, "is at 0x... in a file compiled
 * without debugging" for an ELF symbol.  Locals are the bound frame's.
 * *@out (malloc'ed) gets the text, ending in a newline.  Returns 0,
 * -ptde_notfound ("No symbol \"x\" in current context."), -ptde_invalid.
 */
extern PTD_EXPORT int ptd_values_info_address(struct ptd_values *v, const char *name, char **out);
/*
 * info scope SPEC as gdb 13 says it, for the code at @pc (where SPEC
 * resolved): "Scope for SPEC:" then one "Symbol X is ..., length N." per
 * symbol of the innermost block at @pc and the blocks around it up to its
 * function (or inlined call), each described as info address does, or
 * "Scope for SPEC contains no locals or arguments.".  *@out (malloc'ed)
 * gets the text.  Returns 0, -ptde_invalid (a location it cannot read),
 * -ptde_nomem.
 */
extern PTD_EXPORT int ptd_values_info_scope(struct ptd_values *v, uint64_t pc, const char *spec,
					    char **out);

/* What ptd_values_info_symbols() lists, and its flags. */
enum { PTD_INFO_VARIABLES, PTD_INFO_FUNCTIONS, PTD_INFO_TYPES };
#define PTD_INFO_QUIET 1      /* -q: no header lines */
#define PTD_INFO_NO_MINIMAL 2 /* -n: no symbols without debug information */
/*
 * info variables / functions / types [REGEX] as gdb 13 lists them: a
 * header, the symbols with debug information whose names match POSIX
 * basic regular expression @regex (NULL or "": all) grouped by file
 * ("File values.c:", "98:\tstatic int helper(int);"), then for variables
 * and functions the ELF symbols without ("Non-debugging symbols:",
 * "0x0000000000401000  _init").  Every module's, the program first.
 * *@out (malloc'ed) gets the text.  Returns 0, -ptde_invalid (a bad
 * regular expression: "Invalid regexp: ..."), -ptde_nomem.
 */
extern PTD_EXPORT int ptd_values_info_symbols(struct ptd_values *v, int kind, const char *regex,
					      int flags, char **out);

/* A function ptd_values_functions_matching() found. */
struct ptd_func_match {
	const char *file; /* its declaring file's full name; NULL: no debug information */
	const char *name;
	const char *decl; /* the declaration gdb prints ("static int helper(int)"), or NULL */
	int line;
	uint64_t addr;    /* without debug information: the ELF symbol's address */
};
/*
 * rbreak's functions: those info functions @regex lists, in its order
 * (with debug information, then the ELF symbols without).  *@out
 * (release with ptd_values_matches_free()) gets *@n of them.  Returns 0,
 * -ptde_invalid (a bad regular expression), -ptde_nomem.
 */
extern PTD_EXPORT int ptd_values_functions_matching(struct ptd_values *v, const char *regex,
						    struct ptd_func_match **out, int *n);
extern PTD_EXPORT void ptd_values_matches_free(struct ptd_func_match *m, int n);

/* What a catchpoint (gdb's catch) stops at. */
enum ptd_catch_kind {
	PTD_CATCH_NONE,
	PTD_CATCH_THROW,   /* a C++ exception is thrown (libstdcxx:throw) */
	PTD_CATCH_CATCH,   /* a handler catches one (libstdcxx:catch) */
	PTD_CATCH_RETHROW, /* one is rethrown (libstdcxx:rethrow) */
	/* Events of the live program (no location): the motion stops at
	 * the event with PTD_EVENT_EXEC (exec) or PTD_EVENT_BREAKPOINT
	 * (fork, vfork: in the parent, the child already detached), bp_id
	 * the catchpoint and bp_catch its kind. */
	PTD_CATCH_EXEC,
	PTD_CATCH_FORK,
	PTD_CATCH_VFORK,
	/* a signal the program receives (ptd_session_catch_signal): the
	 * motion stops with PTD_EVENT_BREAKPOINT, signo the signal, whatever
	 * handle says; continuing delivers it as handle's pass says */
	PTD_CATCH_SIGNAL
};
/*
 * catch throw|catch|rethrow: a breakpoint at libstdc++'s SystemTap probe
 * for @kind, as gdb 13 sets it; pending until libstdc++ is loaded.  It is
 * numbered, deleted, disabled, conditioned and hit as a breakpoint, in the
 * live program and in the recorded past; ptd_bpinfo.catch_kind and
 * ptd_event.bp_catch tell it apart.  catch exec|fork|vfork: a catchpoint
 * on that event of the live program, numbered, deleted, disabled and
 * conditioned as a breakpoint; ptd_bpinfo.catch_what then says what it
 * caught last (the program exec'd, "process N").  Returns the id, or
 * -ptde_invalid.
 */
extern PTD_EXPORT int ptd_session_catch(struct ptd_session *s, enum ptd_catch_kind kind,
					int temporary);
/*
 * catch signal [SIG...|all]: a PTD_CATCH_SIGNAL catchpoint on the @n
 * signals @sigs (1-64), or with @n 0 on gdb's standard signals (all but
 * SIGTRAP and SIGINT, which the debugger uses), or with @all on any.
 * ptd_bpinfo.catch_signals and catch_all say which.  Returns the id, or
 * -ptde_invalid (a signal out of range).
 */
extern PTD_EXPORT int ptd_session_catch_signal(struct ptd_session *s, const int *sigs, int n,
					       int all, int temporary);

/* What a breakpoint does when it stops the program (gdb's disposition). */
enum ptd_bp_disp {
	PTD_BP_KEEP,   /* stays */
	PTD_BP_DEL,    /* is deleted (tbreak, enable delete) */
	PTD_BP_DISABLE /* disables itself after @count stops (enable once, enable count) */
};
/*
 * enable once|count N|delete: enables breakpoint @id with disposition
 * @disp (@count: the stops before PTD_BP_DISABLE disables it; once is 1).
 * Returns 0, -ptde_notfound ("No breakpoint number N."), -ptde_unsupported
 * (a watchpoint), -ptde_invalid.
 */
extern PTD_EXPORT int ptd_session_bp_disposition(struct ptd_session *s, int id,
						 enum ptd_bp_disp disp, int count);

/*
 * Every place of location @spec (a function's out-of-line code and its
 * inlined copies, as break puts them) into @addrs, at most @max.
 * Returns the count (0 for a pending one), or ptd_session_resolve()'s errors.
 */
extern PTD_EXPORT int ptd_session_resolve_all(struct ptd_session *s, const char *spec,
					      uint64_t *addrs, int max);
/*
 * until/advance to a location with several places (@n of them in @addrs,
 * at most 17): the first reached stops it, as gdb's; otherwise as
 * ptd_session_advance_dir().  Returns as it, or -ptde_invalid.
 */
extern PTD_EXPORT int ptd_session_advance_locs(struct ptd_session *s, const uint64_t *addrs, int n,
					       int anywhere, int reverse, struct ptd_event *ev);

#ifdef __cplusplus
}
#endif
#endif
