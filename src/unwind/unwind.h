/*
 * Backtrace of a live, ptrace-stopped thread (libunwind-ptrace).  At past
 * positions ptdbg builds backtraces from the call history instead
 * (src/replay), since only the PC is known there.
 */
#ifndef PTD_UNWIND_H
#define PTD_UNWIND_H

#include <stdint.h>
#include <sys/types.h>

struct ptd_frame {
	uint64_t pc;  /* frame 0: the current pc; outer frames: the return address */
	uint64_t sp;
	uint64_t cfa; /* the caller's sp after this frame returns; 0 when unknown */
};

/*
 * Unwinds thread @tid (stopped under ptrace by the caller) into @frames,
 * at most @max.  Frame 0 is the current PC.  Returns the frame count
 * (>= 1), or a negative ptd_error.
 */
int ptd_unwind_backtrace(pid_t tid, struct ptd_frame *frames, int max);

/*
 * Every frame of @tid, however deep its stack, into a malloc'ed *@frames
 * (free it; NULL on error).  Returns the count or a negative ptd_error.
 */
int ptd_unwind_backtrace_all(pid_t tid, struct ptd_frame **frames);

#endif
