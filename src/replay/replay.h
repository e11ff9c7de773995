/*
 * Stepping over the recorded history, written once for every front end:
 * reverse-stepi/nexti/step/next/finish/continue, record goto, and forward
 * motion inside the history up to its end (the tail), after which the
 * session resumes live execution.
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

enum ptd_motion {
	PTD_MOTION_STEPI,
	PTD_MOTION_NEXTI,
	PTD_MOTION_STEP,
	PTD_MOTION_NEXT,
	PTD_MOTION_FINISH,
	PTD_MOTION_CONTINUE,
};

enum ptd_replay_stop {
	PTD_REPLAY_DONE = 0,   /* the motion completed */
	PTD_REPLAY_BREAKPOINT, /* stopped at a breakpoint address */
	PTD_REPLAY_BEGIN,      /* hit the oldest item: "No more reverse-execution history." */
	PTD_REPLAY_END,        /* reached the tail going forward: resume live */
	PTD_REPLAY_GAP,        /* stopped at a gap */
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
	/* Nonzero when @addr has an enabled breakpoint; may set *id. */
	int (*is_breakpoint)(void *ctx, uint64_t addr, int *id);
};

struct ptd_replay_result {
	enum ptd_replay_stop stop;
	uint64_t number; /* position after the motion */
	uint64_t ip;
	int bp_id;       /* with PTD_REPLAY_BREAKPOINT */
	/* forward motions that reached the tail: the motion is not finished and
	 * the session must complete it live (e.g. `next` still in the line). */
	int incomplete;
};

/*
 * Moves from position @from (1..count) in @h.  Uses @calls (built by the
 * caller with ptd_calls_build for the same history) for frame questions.
 * Returns 0 and fills @res; <0 on bad arguments.
 */
int ptd_replay_move(const struct ptd_history *h, const struct ptd_calls *calls, uint64_t from,
		    enum ptd_motion m, int reverse, const struct ptd_replay_env *env,
		    struct ptd_replay_result *res);

/*
 * Backtrace at a past position from the call history: @pcs[0] is the ip at
 * @number, @pcs[i] the call instruction in the i-th caller.  Returns the
 * frame count.
 */
int ptd_replay_backtrace(const struct ptd_history *h, const struct ptd_calls *calls,
			 uint64_t number, uint64_t *pcs, int max);

#endif
