/*
 * The forward stepping rules, as a predicate fed one executed instruction
 * at a time.  The session feeds it live single-steps; replay can feed it
 * history instructions.  Rules are gdb's (checked against gdb 13):
 *  - stepi: after one instruction; nexti: after one, or after the called
 *    function returns when it was a call.
 *  - step/next: leave the current line-table row; stop at the start of a
 *    row (is_stmt) whose line differs from the line being stepped; a
 *    mid-row arrival refreshes the range to that row and keeps going.
 *    Calls are stepped over (next, or step into code without line info);
 *    step into a function with line info stops at its post-prologue
 *    address.  Returning out of the frame continues in the caller with
 *    the caller's row as the range (gdb then stops at the caller's next
 *    line start, printing the frame).
 *  - finish: after the return out of the current frame.
 */
#ifndef PTD_REPLAY_LIVE_H
#define PTD_REPLAY_LIVE_H

#include <stdint.h>

#include "replay/replay.h"

struct ptd_stepper_env {
	struct ptd_replay_env base;
	/* gdb's breakpoint address of the function whose entry is @entry
	 * (after its prologue), or 0 when it has no line info. */
	uint64_t (*func_bp)(void *ctx, uint64_t entry);
	/* Nonzero when @pc is in a PLT stub or the dynamic linker's lazy
	 * resolver: `step` goes through them to the real callee, as gdb
	 * steps through solib trampolines.  May be NULL. */
	int (*is_trampoline)(void *ctx, uint64_t pc);
};

struct ptd_stepper {
	enum ptd_motion m;
	const struct ptd_stepper_env *env;
	int depth;          /* calls minus returns since the start */
	int ninsn;
	int signals;        /* handler frames entered and not yet left */
	uint64_t lo, hi;    /* current stepping range (row) */
	int line;
	const char *file;
	int have_line;
	int over_depth;     /* >0: stepping over a call until depth is back to this - 1 */
	uint64_t into_pc;   /* step: stop when pc reaches this at into_depth */
	int into_depth;
	int into_any;       /* into_pc at any depth, also after returns (a C++ thunk's target) */
	int tramp_depth;    /* >0: walking through a trampoline entered at this depth */
	int new_frame;      /* the stop is in another frame than the start */
	uint64_t start_func;
	/* gdb's inline frames (see replay.c): the frame being stepped is the
	 * inline frame @vdepth levels inside the real one, entered at
	 * @ventry; @stop_skip the inline frames to present as skipped at the
	 * stop (-1: those entered at the stop pc); @inl: inline frames were
	 * met (then @new_frame follows gdb's print_stop_event) */
	int vdepth;
	uint64_t ventry;
	int stop_skip;
	int inl;
	int fin_inline;
	int fin_real; /* finish: the real frame that many levels up */
	/* The call that took the depth from 0 to 1 (next, step over, nexti),
	 * or 0: the caller watches for the thread coming back to its return
	 * address in the frame being stepped (ptd_stepper_back_at_return). */
	uint64_t over_call_ip;
	/* step entered longjmp, where gdb loses the step (see live.c): the
	 * motion runs on as a continue (the caller may resume the thread
	 * freely) */
	int free_run;
};

void ptd_stepper_init(struct ptd_stepper *st, enum ptd_motion m, uint64_t pc,
		      const struct ptd_stepper_env *env);
/*
 * The instruction at @ip (class @iclass) executed; control is at @next.
 * @signal: a signal handler was entered at @next instead (no instruction
 * executed).  Returns 1 when the motion is complete at @next.
 */
int ptd_stepper_feed(struct ptd_stepper *st, uint64_t ip, int iclass, uint64_t next, int signal);
/*
 * gdb steps over a call with a breakpoint at its return address that
 * checks the frame (its step-resume breakpoint): the thread is at @next,
 * that return address, in the frame being stepped, while the count of
 * calls and returns says it is still inside the call -- a longjmp or a
 * C++ catch in the frame jumped back there (or to code that led there).
 * The step over ends as if the call had returned, and the motion goes
 * on from there by its rules.  Returns 1 when the motion is complete at
 * @next.
 */
int ptd_stepper_back_at_return(struct ptd_stepper *st, uint64_t next);

#endif
