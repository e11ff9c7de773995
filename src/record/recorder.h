/*
 * One interface for every recorder (step, soft, pt, bts): an ops table
 * plus capability flags.  The session and its run loop call only these
 * ops; nothing outside src/record knows which recorder runs.
 *
 * Life cycle: a recorder is made by its constructor (ptd_steprec_recorder,
 * ptd_softrec_recorder, ptd_ptrec_recorder, ptd_btsrec_recorder) after its
 * probe accepted; start() begins recording the threads added with
 * add_thread(); at every stop the run loop sees, sync() moves what was
 * recorded into the thread's history; free() ends everything (the target
 * must be left exactly as it was: no breakpoint bytes, perf events closed,
 * CPU affinity restored).
 *
 * Threads are resumed through resume() and every stop the target reports
 * is first shown to on_stop(): a recorder that stops the program per
 * branch (soft) or a simulated PMU that runs under the program owns some
 * of the stops and resumes the thread itself.
 */
#ifndef PTD_RECORD_RECORDER_H
#define PTD_RECORD_RECORDER_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/user.h>

#include "history/history.h"

struct ptd_target;
struct ptd_stop;
struct ptd_recorder;

/*
 * At a thread's exit stop (PTD_STOP_EXITING): the address of the syscall
 * instruction the thread was in (exit, exit_group, or the syscall a
 * thread killed by another's exit_group was blocked in), or 0 when it
 * was not in one.  The hardware traced that instruction as executed, but
 * it never completes: like the step recorder, whose step over it never
 * ends, every recorder ends the thread's history before it, and the
 * instruction is the tail (gdb record full stops before it).
 */
uint64_t ptd__exit_syscall(struct ptd_target *t, const struct ptd_stop *st);

/* Capability flags (struct ptd_recorder.caps). */
enum {
	/* The program stops under the recorder per instruction or per branch
	 * (step, soft); without it the recorder runs free (pt, bts) and is
	 * read at stops. */
	PTD_REC_STOPS_PER_BRANCH = 1 << 0,
	/* The run loop must single-step every recorded thread (step). */
	PTD_REC_SINGLE_STEPS = 1 << 1,
	/* regs_at() knows all registers at some past positions (soft). */
	PTD_REC_KNOWS_REGS = 1 << 2,
	/* The recorder produces Intel PT itself (pt): trace() gives it, and
	 * the history is decoded from it. */
	PTD_REC_WRITES_PT = 1 << 3,
	/* The PMU behind it is simulated (PTDBG_SIMULATE_PMU): every front
	 * end must say so. */
	PTD_REC_SIMULATED = 1 << 4,
	/* The session's breakpoints must stay out of memory while recording:
	 * the run loop compares pcs itself (step). */
	PTD_REC_NO_BP_BYTES = 1 << 5,
};

/* What the session lends a recorder (copied by the constructor). */
struct ptd_recorder_env {
	struct ptd_target *t;
	/* Reads code bytes as the program has them now (no breakpoint bytes),
	 * falling back to code that was unmapped while recording. */
	ptd_read_fn read_code;
	/* Stop at @pc (a session breakpoint) when the recorder would otherwise
	 * run on past it without the run loop seeing it (soft).  May be NULL. */
	int (*want_stop)(void *ctx, pid_t tid, uint64_t pc);
	/* The history for a thread the recorder meets on its own (a clone
	 * child it saw before the run loop did).  May be NULL. */
	struct ptd_history *(*new_history)(void *ctx, pid_t tid);
	/* A recorded thread is about to run a syscall (rax = its number) that
	 * may change the address space; @next_ip: where the part of its
	 * history not yet written starts.  May be NULL. */
	void (*before_syscall)(void *ctx, pid_t tid, const struct user_regs_struct *regs,
			       uint64_t next_ip);
	/* Informational messages ("warning: ..."); may be NULL. */
	void (*notify)(void *ctx, const char *msg);
	void *ctx;
	int pin_cpu;         /* run the program and ptdbg on one CPU */
	uint64_t buffer_size; /* bytes per thread (0: the recorder's default) */
};

/* Counters for `info record` (zero when a recorder has no such thing). */
struct ptd_recorder_stats {
	uint64_t stops;      /* ptrace stops the recorder took */
	uint64_t steps;      /* single-steps */
	uint64_t traps;      /* soft: breakpoint traps */
	uint64_t branches;   /* branches recorded */
	uint64_t trace_bytes; /* pt/bts: trace bytes read from the buffers */
	uint64_t lost_bytes;  /* pt/bts: bytes the hardware/kernel dropped */
	uint64_t wraps;       /* pt/bts: times a circular buffer wrapped */
	uint64_t buffer_size; /* pt/bts: bytes per thread actually used */
	char pmu[64];         /* "intel_pt", "intel_pt (simulated)", ... */
};

struct ptd_recorder_ops {
	const char *name; /* "step", "soft", "pt", "bts" */
	/* Starts recording the threads added so far (and later ones). */
	int (*start)(struct ptd_recorder *r);
	/* Stops recording (the program keeps running untraced); the
	 * histories keep what was recorded.  May be NULL. */
	int (*stop)(struct ptd_recorder *r);
	/* Starts recording thread @tid (stopped, at @pc) into @h.  For a new
	 * thread (PTRACE_EVENT_CLONE) this is called before it first runs. */
	int (*add_thread)(struct ptd_recorder *r, pid_t tid, struct ptd_history *h, uint64_t pc);
	/* @tid exited: what it recorded is kept (sync() writes it). */
	int (*thread_gone)(struct ptd_recorder *r, pid_t tid);
	int (*has_thread)(const struct ptd_recorder *r, pid_t tid);
	/* Resumes stopped thread @tid: single-step when @step, deliver
	 * @signo (0: none).  Returns 0 or <0 (-ptde_nosrch: it vanished). */
	int (*resume)(struct ptd_recorder *r, pid_t tid, int step, int signo);
	/* Every stop the target reports.  Returns 1 when the stop was the
	 * recorder's own (it dealt with it and resumed the thread: the run
	 * loop waits again), 0 when it is the run loop's, <0 on error
	 * (-ptde_nosrch: the thread vanished, its exit comes through the
	 * wait).  A recorder that stops per branch (soft) may leave its own
	 * stop stopped: the run loop first looks at what was recorded (a
	 * motion of the selected thread may be complete), then resumes the
	 * thread with resume(tid, 0, 0) when it is still stopped. */
	int (*on_stop)(struct ptd_recorder *r, const struct ptd_stop *st);
	/* At a stop the run loop shows the user (tid 0: every thread), and
	 * for a free-running recorder also at each stop of @tid the run loop
	 * resumes (drain(), below): moves what was recorded into each thread's
	 * history and sets its tail to the thread's pc. */
	int (*sync)(struct ptd_recorder *r, pid_t tid);
	/* A free-running recorder may move data out of its buffers while the
	 * program is stopped anyway (linear buffers, the watermark); called
	 * at each stop of @tid the run loop resumes.  May be NULL. */
	int (*drain)(struct ptd_recorder *r, pid_t tid);
	/* @tid is about to run a syscall that unmaps code or execs: decode
	 * what needs the old code now.  May be NULL. */
	int (*before_unmap)(struct ptd_recorder *r, pid_t tid);
	/* @tid exec'ed; it now runs at @pc. */
	int (*exec)(struct ptd_recorder *r, pid_t tid, uint64_t pc);
	/* Registers of @tid at history number @number when known: 0, or
	 * -ptde_notfound.  May be NULL (never known). */
	int (*regs_at)(const struct ptd_recorder *r, pid_t tid, uint64_t number,
		       struct user_regs_struct *regs);
	/* The last registers known at or before @number, and where, in *@at:
	 * 0, or -ptde_notfound.  May be NULL. */
	int (*regs_near)(const struct ptd_recorder *r, pid_t tid, uint64_t number,
			 struct user_regs_struct *regs, uint64_t *at);
	/* The history of @tid lost its @n oldest numbers (bounded). May be NULL. */
	int (*dropped)(struct ptd_recorder *r, pid_t tid, uint64_t n);
	/* Heap bytes the recorder holds for @tid (buffers, registers). */
	size_t (*bytes)(const struct ptd_recorder *r, pid_t tid);
	/* Where the part of @tid's history not yet written starts. May be NULL. */
	uint64_t (*next_ip)(const struct ptd_recorder *r, pid_t tid);
	/* PT bytes kept for @tid (PTD_REC_WRITES_PT), NULL otherwise. */
	const uint8_t *(*trace)(struct ptd_recorder *r, pid_t tid, size_t *size);
	void (*stats)(const struct ptd_recorder *r, struct ptd_recorder_stats *st);
	/* Optional ops (NULL: not supported; pt and bts leave them NULL). */
	/* Class (enum ptd_iclass) of the instruction the last completed
	 * single-step of @tid executed, or -1 when that step entered a signal
	 * handler or ran nothing (step: the run loop's stepper needs it). */
	int (*last_class)(const struct ptd_recorder *r, pid_t tid);
	/* Code bytes at @addr from what the recorder itself keeps of the
	 * program's code (pt and bts: the file mappings sideband named, read
	 * as perf reads them), for code the program no longer maps (a
	 * dlclose'd library): the history is listed with it.  Bytes read, or
	 * -ptde_nomap.  May be NULL. */
	int (*read_code)(struct ptd_recorder *r, uint64_t addr, uint8_t *buf, size_t n);
	/* Ends recording and frees; the target is left as it was. */
	void (*free)(struct ptd_recorder *r);
};

struct ptd_recorder {
	const struct ptd_recorder_ops *ops;
	unsigned caps;
	struct ptd_recorder_env env;
	void *priv; /* the implementation's state */
};

/* Convenience: NULL-safe free. */
static inline void ptd_recorder_free(struct ptd_recorder *r)
{
	if (r)
		r->ops->free(r);
}

#endif
