/*
 * The soft branch recorder: PT-equivalent recording with int3 breakpoints
 * only where PT would write a packet (conditional branches, indirect jumps
 * and calls, returns, syscalls), found lazily by following direct control
 * flow (soft_scan.h).  At a trap the branch is emulated (soft_emul.h) and
 * the thread continues without a single-step; syscalls and anything else
 * the emulator refuses are single-stepped.  Executed instructions go into
 * each thread's history as blocks, optionally into a synthesized PT stream
 * (ptsynth.h), and the registers at every trap are kept as compressed
 * deltas (soft_regs.h).
 *
 * Like the step recorder, it does not own the run loop: the session (or
 * ptd_softrec_wait() below) resumes threads through ptd_softrec_resume()
 * and hands every stop of a recorded thread to ptd_softrec_stop().  The
 * recorder's breakpoints must be enabled in memory (ptd_target_bp_enable)
 * while it records.  Breakpoint bytes never show through ptd_target_read()
 * and are removed by ptd_softrec_free()/ptd_target_detach().
 */
#ifndef PTD_RECORD_SOFT_H
#define PTD_RECORD_SOFT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/user.h>

#include "history/history.h"

struct ptd_target;
struct ptd_stop;
struct ptd_softrec;

struct ptd_softrec_config {
	/* Run ptdbg and the traced threads on one CPU (a ptrace stop costs
	 * about half as much in a VM).  0: on (default), 1: off. */
	int no_pin;
	/* Also synthesize a PT stream per thread (ptd_softrec_pt). */
	int pt;
	/* Stop at a trap when this returns non-zero (the session's own
	 * breakpoint is at @pc); the branch runs on the next resume.  May be
	 * NULL.  Not asked for a branch reached by emulating the one before
	 * it (up to 64 are chained without running the thread). */
	int (*want_stop)(void *ctx, pid_t tid, uint64_t pc);
	/* History for a thread the recorder starts on its own (a clone child);
	 * NULL: the recorder allocates and owns one (ptd_softrec_history). */
	struct ptd_history *(*new_history)(void *ctx, pid_t tid);
	/* Called before a recorded thread's syscall instruction runs, with
	 * its registers (rax: the number) and the ip where the part of the
	 * history not yet written starts: an munmap may take code away.
	 * May be NULL. */
	void (*before_syscall)(void *ctx, pid_t tid, const struct user_regs_struct *regs,
			       uint64_t next_ip);
	void *ctx;
};

/* Returns a recorder for @t, or NULL (-ptde_nomem).  @cfg may be NULL. */
struct ptd_softrec *ptd_softrec_alloc(struct ptd_target *t, const struct ptd_softrec_config *cfg);
/* Removes every breakpoint the recorder placed (when the process lives),
 * restores CPU affinities and frees owned histories.  Accepts NULL. */
void ptd_softrec_free(struct ptd_softrec *r);

/* Starts recording stopped thread @tid into @h (NULL: an owned history)
 * at its current pc @pc: scans and arms the first run. */
int ptd_softrec_add_thread(struct ptd_softrec *r, pid_t tid, struct ptd_history *h, uint64_t pc);
int ptd_softrec_remove_thread(struct ptd_softrec *r, pid_t tid);
int ptd_softrec_has_thread(const struct ptd_softrec *r, pid_t tid);
struct ptd_history *ptd_softrec_history(const struct ptd_softrec *r, pid_t tid);

/*
 * Resumes stopped recorded thread @tid instead of ptd_target_resume():
 * @step 1 single-steps one instruction (its stop is then the caller's),
 * @signo as for ptd_target_resume (-1: the pending signal).  A thread
 * resting on one of the recorder's breakpoints executes that branch
 * through the recorder first; a signal with a handler is delivered with a
 * single-step so the handler entry is known.
 */
int ptd_softrec_resume(struct ptd_softrec *r, pid_t tid, int step, int signo);

/*
 * Records what stop @st of a recorded thread means.  Returns 1 when the
 * stop was the recorder's own (a branch trap, its own single-step): the
 * caller resumes the thread with ptd_softrec_resume(r, tid, 0, 0) without
 * reporting anything.  Returns 0 when the caller must look at the stop
 * (signal, user breakpoint, exit, a caller's single-step...); the history
 * is up to date to the thread's pc.  CLONE stops add the new thread to
 * the recording, EXEC restarts it on the new image.  <0 on errors.
 */
int ptd_softrec_stop(struct ptd_softrec *r, const struct ptd_stop *st);

/* Writes what @tid (0: every thread) executed up to its current pc into
 * its history and sets the history's tail. */
int ptd_softrec_flush(struct ptd_softrec *r, pid_t tid);

/*
 * Convenience run loop: resumes every stopped recorded thread, waits, and
 * returns the first stop the caller must see (ptd_softrec_stop() == 0).
 * Returns 0, or -ptde_not_running when no thread is left.
 */
int ptd_softrec_wait(struct ptd_softrec *r, struct ptd_stop *st);

/* Statistics: breakpoint traps taken, single-steps taken, dynamic
 * instructions recorded (conditional and indirect branches, returns,
 * syscalls: what costs one stop each at most), armed addresses. */
uint64_t ptd_softrec_traps(const struct ptd_softrec *r);
uint64_t ptd_softrec_steps(const struct ptd_softrec *r);
uint64_t ptd_softrec_branches(const struct ptd_softrec *r);
size_t ptd_softrec_armed(const struct ptd_softrec *r);

/*
 * Registers of @tid just before executing instruction @number of its
 * history, known when the recorder trapped there (branches, syscalls).
 * Returns 0, or -ptde_notfound when no trap was taken at @number.
 * ptd_softrec_regs_near() gives the last snapshot at or before @number
 * and its number in *@at (only rip is then exact for @number itself).
 */
int ptd_softrec_regs_at(const struct ptd_softrec *r, pid_t tid, uint64_t number,
			struct user_regs_struct *out);
int ptd_softrec_regs_near(const struct ptd_softrec *r, pid_t tid, uint64_t number,
			  struct user_regs_struct *out, uint64_t *at);

/*
 * The owner of @tid's history removed its oldest @n numbers and put one
 * gap (number 1) in their place: the history's numbers are now the
 * recorder's minus the sum of all @n, and the registers of the removed
 * instructions are dropped (ptd_softrec_regs_* say -ptde_notfound).
 */
int ptd_softrec_dropped(struct ptd_softrec *r, pid_t tid, uint64_t n);
/* Heap bytes the recorder holds for @tid (its register snapshots and
 * buffers; the history it writes to is not counted). */
size_t ptd_softrec_bytes(const struct ptd_softrec *r, pid_t tid);
/*
 * Where the part of @tid's history not yet written starts, when every
 * block before it is in the history (a stop of the recorder's own, or a
 * caller's stop after ptd_softrec_flush): a point where the owner may cut
 * the recording (e.g. turn it into PT).  0 when the thread is in the
 * middle of something (a signal delivery, pending blocks).
 */
uint64_t ptd_softrec_next_ip(const struct ptd_softrec *r, pid_t tid);

/* The synthesized PT of @tid so far (pending TNT flushed), or NULL when
 * PT synthesis is off. */
const uint8_t *ptd_softrec_pt(struct ptd_softrec *r, pid_t tid, size_t *size);

/* The soft recorder behind the one recorder interface (record/recorder.h,
 * soft_ops.c); NULL with the message set.  Caps: STOPS_PER_BRANCH,
 * KNOWS_REGS. */
struct ptd_recorder_env;
struct ptd_recorder *ptd_softrec_recorder(const struct ptd_recorder_env *env);

#endif
