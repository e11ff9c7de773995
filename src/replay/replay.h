/*
 * Stepping over the recorded history, written once for every front end:
 * reverse-stepi/nexti/step/next/finish/continue, record goto, and forward
 * motion inside the history up to its end (the tail), where the session
 * stops as gdb's record full does; the next motion runs live.
 *
 * Semantics follow gdb's record targets:
 *  - stepi/nexti move one instruction (nexti steps over calls: the
 *    instructions of the callee, up to the matching return, are skipped).
 *  - step/next move until the PC is at the start (is_stmt row lo) of a
 *    different source line, or in a different frame; next and reverse-next
 *    step over calls; step into a function without line info steps over it.
 *    reverse-step ends at the *first* instruction of the line reached, as
 *    gdb does.
 *  - finish stops right after the current function returns (forward: at
 *    the instruction after the call in the caller; reverse: at the call
 *    instruction in the caller).
 *  - continue stops at a breakpoint address (any instruction whose ip is
 *    a breakpoint, excluding the starting position), a gap, or an end.
 */
#ifndef PTD_REPLAY_H
#define PTD_REPLAY_H

#include <stdint.h>

#include "history/history.h"
#include "symbols/symbols.h"

/* enum ptd_motion is public (include/ptdbg/ptdbg.h). */

enum ptd_replay_stop {
	PTD_REPLAY_DONE = 0,   /* the motion completed */
	PTD_REPLAY_BREAKPOINT, /* stopped at a breakpoint address */
	PTD_REPLAY_BEGIN,      /* hit the oldest item: "No more reverse-execution history." */
	PTD_REPLAY_END,        /* reached the tail going forward: the session stops there */
	PTD_REPLAY_GAP,        /* not returned any more: motions step over gaps, as gdb's */
	PTD_REPLAY_ERROR,      /* instruction could not be decoded */
};

struct ptd_line_info {
	const char *file;
	int line;
	uint64_t lo, hi;
	int is_stmt;
};

/* What replay needs from symbols and breakpoints; any callback may be NULL. */
struct ptd_replay_env {
	void *ctx;
	/* Returns 0 and fills @li for @addr, or <0 when there is no line info. */
	int (*line_of)(void *ctx, uint64_t addr, struct ptd_line_info *li);
	/* Function entry containing @addr, or 0. */
	uint64_t (*func_of)(void *ctx, uint64_t addr);
	/* The start of the range of that function that holds @addr: its
	 * entry, or the start of a part elsewhere (gcc's ".cold" parts),
	 * or 0.  May be NULL: the entry (func_of) is used. */
	uint64_t (*range_start)(void *ctx, uint64_t addr);
	/* When @addr is the entry of a C++ thunk, the entry of the function
	 * it leads to, else 0: `step` into a thunk goes on to that function
	 * (gdb's language trampolines).  May be NULL. */
	uint64_t (*thunk_target)(void *ctx, uint64_t addr);
	/* Nonzero when `step` must not stop in the function holding @addr
	 * (gdb's skip list: skip function, skip file): it steps over it
	 * forward and back.  May be NULL. */
	int (*skipped)(void *ctx, uint64_t addr);
	/* Nonzero when @addr has an enabled breakpoint; may set *id. */
	int (*is_breakpoint)(void *ctx, uint64_t addr, int *id);
	/* Nonzero when @addr is code gdb steps through without stopping and
	 * never steps into: PLT stubs and the dynamic linker's text (gdb's
	 * in_solib_dynsym_resolve_code).  May be NULL. */
	int (*in_trampoline)(void *ctx, uint64_t addr);
	/* Nonzero when @addr is the entry of a function gdb puts its longjmp
	 * breakpoints on (longjmp, _longjmp, siglongjmp, _siglongjmp: gdb's
	 * longjmp master breakpoints of a libc without longjmp probes).
	 * May be NULL. */
	int (*is_longjmp)(void *ctx, uint64_t addr);
	/* The inlined blocks at @addr, innermost first (as
	 * ptd__symbols_inline_chain()); NULL: no inline frames. */
	int (*inline_chain)(void *ctx, uint64_t addr, struct ptd_iblock *out, int max);
	/* When set, a motion stores its position (the instruction number)
	 * here before it asks the callbacks about an address there: the
	 * answers may depend on it (the program that ran there, when an
	 * exec replaced it).  May be NULL. */
	uint64_t *at;
	/* Set by the caller for each motion: the inline frames gdb skips at
	 * the starting position (the frame shown is the one around them),
	 * and, for PTD_MOTION_FINISH, that the frame finished is an inline
	 * one (gdb then steps in its caller until out of it: over calls, an
	 * empty range and no line, stopping as `next` would). */
	int start_skip;
	int finish_inline;
	/* finish_inline > 0: the frame finished is the (finish_inline-1)-th
	 * shown above the innermost one (up, frame N); finish_real > 0: the
	 * frame finished is the real frame that many levels up (forward). */
	int finish_real;
	/* With both: the inlined frame finished is in that outer real
	 * frame, whose pc (a return address, minus one) is @finish_pc. */
	uint64_t finish_pc;
};

struct ptd_replay_result {
	enum ptd_replay_stop stop;
	uint64_t number; /* position after the motion */
	uint64_t ip;
	int bp_id;       /* with PTD_REPLAY_BREAKPOINT */
	/* forward motions that reached the tail: the motion is not finished and
	 * the session must complete it live (e.g. `next` still in the line). */
	int incomplete;
	/* With incomplete set, where the motion stands at the tail, so the
	 * session can finish it live: @returns is how many returns are still
	 * needed to be back in the frame being stepped (next, step, nexti; for
	 * finish: to be out of the finished frame); @range is the stepping
	 * range of step/next at that point (line 0: none, e.g. stepping until
	 * exit from a function without line info); @into_pc is the address a
	 * `step` into a function still has to reach (0: none), @returns then
	 * counting returns back to that function's frame. */
	int returns;
	struct ptd_line_info range;
	uint64_t into_pc;
	/* Gaps the motion stepped over, and the first of them (number,
	 * enum ptd_gap_reason), so a front end can say so. */
	uint64_t gaps_crossed;
	uint64_t first_gap;
	int first_gap_reason;
	/* step/next/finish of an inline frame: the inline frames to present
	 * as skipped at the stop (-1: those entered right at the stop pc, as
	 * at any stop), and whether gdb prints the frame line (the frame or
	 * function differs from the one stepped; -1: not known here). */
	int stop_skip;
	int new_frame;
};

/*
 * Moves from position @from (1..count) in @h.  Uses @calls (built by the
 * caller with ptd_calls_build for the same history) for frame questions;
 * @calls may be NULL for stepi and continue only.  @env may be NULL.
 * Returns 0 and fills @res; -ptde_invalid on bad arguments.
 *
 * Stops, checked at every instruction the motion reaches (never at @from):
 *  - gaps are stepped over, as gdb's record btrace does: a motion never
 *    ends on one; when only gaps lie between the position and an end of
 *    the history, the motion ends at the last instruction before them;
 *  - forward, the tail (the live pc): PTD_REPLAY_END; @incomplete is 0
 *    when the motion's goal is met exactly there (or a breakpoint is at
 *    the tail, bp_id set), 1 when the session must go on live; without a
 *    tail, moving past the last instruction is PTD_REPLAY_END, incomplete;
 *  - a breakpoint address: PTD_REPLAY_BREAKPOINT (every motion, as gdb's
 *    record targets check breakpoints while replaying);
 *  - reverse, the first instruction (1, or the first after leading gaps):
 *    PTD_REPLAY_BEGIN even when the goal is met
 *    there, as gdb's record full reports "No more reverse-execution
 *    history." on reaching the start of its log;
 *  - the goal: PTD_REPLAY_DONE.
 * Frames are segments' (level, instance): next/nexti/finish skip deeper
 * levels, so recursion is stepped over; stepping ranges are the [lo, hi)
 * that env->line_of returns (gdb 13 uses line-table rows).  Step into a
 * function stops where gdb does: after push %rbp; mov %rsp,%rbp (and
 * endbr64), moved to the end of that row when mid-row, or at the entry
 * of a frameless function; a function without line info is stepped over.
 */
int ptd_replay_move(const struct ptd_history *h, const struct ptd_calls *calls, uint64_t from,
		    enum ptd_motion m, int reverse, const struct ptd_replay_env *env,
		    struct ptd_replay_result *res);

/* Number of the first instruction that is not a gap, or 0 (no such). */
uint64_t ptd_replay_first_insn(const struct ptd_history *h);

/*
 * Backtrace at a past position from the call history: @pcs[0] is the ip at
 * @number, @pcs[i] the call instruction in the i-th caller (when the call
 * predates the recording, the call found by decoding before the return
 * address; for a frame interrupted by a signal, the ip it resumes at).
 * Returns the frame count (>= 1), or -ptde_invalid.
 */
int ptd_replay_backtrace(const struct ptd_history *h, const struct ptd_calls *calls,
			 uint64_t number, uint64_t *pcs, int max);
/*
 * The same, joined with the stack as it was when the recording started:
 * @outer[0..@nouter) are the return addresses of the callers of the frame
 * the history starts in (innermost first).  Where the call history ends
 * at a frame whose call predates the recording, the frames go on with the
 * entries of @outer beyond the returns recorded out of the starting
 * frame (given, as the other callers, as the call instruction before the
 * return address).  Not joined when the history no longer starts where
 * the recording did (oldest part dropped, trace lost at the start).
 * @outer may be NULL.  With @interrupted (@max entries, may be NULL),
 * @interrupted[i] is set to 1 for a frame a signal interrupted (its pc is
 * where it resumes, with the handler's frames below it), else 0.
 * Returns the frame count (>= 1), or -ptde_invalid.
 */
int ptd_replay_backtrace_outer(const struct ptd_history *h, const struct ptd_calls *calls,
			       uint64_t number, const uint64_t *outer, int nouter, uint64_t *pcs,
			       uint8_t *interrupted, int max);

/* gdb's frame at an instruction among inline frames: the inlined blocks
 * there (@env's inline_chain), how many are skipped (entered right there:
 * gdb shows their caller first; @skip < 0: those, else @skip), the shown
 * frame's inline depth inside the real frame (0: the real frame) and its
 * block entry (0 for the real frame).  Used by replay.c and live.c. */
struct ptd__vis {
	int n, skip, depth;
	uint64_t entry;
	struct ptd_iblock b[PTD_ICHAIN_MAX];
};
void ptd__vis_at(const struct ptd_replay_env *env, uint64_t pc, int skip, struct ptd__vis *v);

#endif
