/*
 * The exact recorder: every thread is single-stepped, one ptrace stop per
 * instruction, and the executed instructions become history blocks.
 * Slow (one stop per instruction) and always right: the ground truth the
 * other recorders are tested against.
 *
 * The recorder does not resume or wait itself: the session's run loop
 * steps threads and hands each completed step here, so all recorders share
 * one loop and one stop-condition check.  A `rep`-prefixed string
 * instruction counts once however many iterations it makes (as PT does);
 * a signal delivered into a handler is an event at its position.
 */
#ifndef PTD_RECORD_STEP_H
#define PTD_RECORD_STEP_H

#include <stdint.h>
#include <sys/types.h>

#include "history/history.h"

struct ptd_target;
struct ptd_steprec;

struct ptd_steprec *ptd_steprec_alloc(struct ptd_target *t);
void ptd_steprec_free(struct ptd_steprec *r);

/* Starts recording thread @tid into @h; @pc is its current pc. */
int ptd_steprec_add_thread(struct ptd_steprec *r, pid_t tid, struct ptd_history *h, uint64_t pc);
int ptd_steprec_remove_thread(struct ptd_steprec *r, pid_t tid);
int ptd_steprec_has_thread(const struct ptd_steprec *r, pid_t tid);

/* Called before resuming @tid with a single-step: notes what the next
 * instruction is.  @signo is the signal that resume delivers (0: none).
 * Returns 1 when that instruction is a syscall that may change the
 * address space (mmap, munmap, mprotect, mremap, execve): code recorded
 * so far may be unmapped by it, so PT conversion must happen now. */
int ptd_steprec_before_step(struct ptd_steprec *r, pid_t tid, int signo);
/* Where the instruction after the last recorded block begins: the open
 * block's first ip, or the thread's pc. */
uint64_t ptd_steprec_next_ip(const struct ptd_steprec *r, pid_t tid);
/* A single-step of @tid completed at @new_pc: records what ran. */
int ptd_steprec_stepped(struct ptd_steprec *r, pid_t tid, uint64_t new_pc);
/* Writes the open block of @tid (or of all threads when @tid is 0) into
 * its history and sets the history's tail to the thread's pc. */
int ptd_steprec_flush(struct ptd_steprec *r, pid_t tid);
/* The process exec'ed: the code cache is dropped and the thread's block
 * ends with an exec event. */
int ptd_steprec_exec(struct ptd_steprec *r, pid_t tid, uint64_t new_pc);
/* Class (enum ptd_iclass) of the instruction the last completed step of
 * @tid executed, or -1 when that step entered a signal handler or ran
 * nothing. */
int ptd_steprec_last_class(const struct ptd_steprec *r, pid_t tid);
/* Number of single-steps taken so far. */
uint64_t ptd_steprec_steps(const struct ptd_steprec *r);

/* The step recorder behind the one recorder interface (record/recorder.h,
 * step_ops.c); NULL with the message set.  Caps: STOPS_PER_BRANCH,
 * SINGLE_STEPS, NO_BP_BYTES. */
struct ptd_recorder_env;
struct ptd_recorder *ptd_steprec_recorder(const struct ptd_recorder_env *env);

#endif
