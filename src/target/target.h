/*
 * Process control with ptrace: launch, attach, detach, kill; threads,
 * stops, registers, memory, software breakpoints.
 *
 * All tasks are traced with PTRACE_SEIZE (so PTRACE_INTERRUPT stops a
 * running thread without a signal), with clone/fork/vfork/exec/exit
 * events on.  The model is all-stop, like gdb's: the caller resumes
 * threads, waits for one event, and stops the others when it wants to
 * look at the process.  Forked children are detached at once with none of
 * our breakpoint bytes in them.
 *
 * Memory reads through ptd_target_read() never show our int3 bytes; writes
 * through ptd_target_write() keep the breakpoint shadows up to date.
 */
#ifndef PTD_TARGET_H
#define PTD_TARGET_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/user.h>

#include "ptdbg/ptdbg.h"

struct ptd_target;

struct ptd_launch {
	char *const *argv;  /* argv[0] is the program, looked up in PATH if it has no '/' */
	char *const *envp;  /* NULL: inherit ours */
	const char *cwd;    /* NULL: ours */
	int disable_aslr;   /* personality(ADDR_NO_RANDOMIZE), like gdb's default */
	/* its standard descriptors' redirections, in order (run < in > out) */
	const struct ptd_redirect *redir;
	int nredir;
	/* set inferior-tty: opened read-write as descriptors 0, 1 and 2 and
	 * made the controlling terminal of a new session, before the
	 * redirections; NULL: ours */
	const char *tty;
};

enum ptd_stop_kind {
	PTD_STOP_NONE = 0,
	PTD_STOP_STEP,        /* a single-step completed */
	PTD_STOP_BREAKPOINT,  /* hit one of our breakpoints; pc is rewound to it */
	PTD_STOP_SIGNAL,      /* a signal is about to be delivered (si, signo) */
	PTD_STOP_INTERRUPT,   /* stopped by ptd_target_interrupt()/stop_all */
	PTD_STOP_EXITED,      /* the whole process exited (status = exit code) */
	PTD_STOP_KILLED,      /* the whole process was killed (signo) */
	PTD_STOP_THREAD_EXIT, /* one thread (not the last) is gone */
	PTD_STOP_CLONE,       /* a new thread (new_tid) was created; both stopped */
	PTD_STOP_FORK,        /* a child (new_tid) was forked and has been detached;
			       * signo SIGKILL: our breakpoint bytes could not be
			       * taken out of its copy of the code, so it was killed */
	PTD_STOP_EXEC,        /* the process exec'ed; breakpoints are gone */
	PTD_STOP_HWBREAK,     /* a debug-register slot triggered (hw_hits); no
			       * signal is pending for the program */
	PTD_STOP_EXITING,     /* the thread is exiting (ptd_target_set_exit_stops):
			       * stopped in the kernel on its way out, registers
			       * and memory still readable, pc after the syscall
			       * that ended it, if one did; status = its wait
			       * status to be.  Resuming it lets it exit. */
};

struct ptd_stop {
	enum ptd_stop_kind kind;
	pid_t tid;
	int signo;
	int status;
	pid_t new_tid;
	int vfork; /* PTD_STOP_FORK: the child was made by vfork */
	uint64_t pc;
	siginfo_t si;
	int bp_addr_valid;
	uint64_t bp_addr;
	/* Debug-register slots (bit i: slot i) that triggered, from DR6, at
	 * any SIGTRAP stop while a slot is set (a single-step that also
	 * wrote a watched address reports PTD_STOP_STEP with these bits). */
	unsigned hw_hits;
};

enum ptd_thread_state { PTD_THREAD_STOPPED, PTD_THREAD_RUNNING, PTD_THREAD_GONE };

/* Launches @l stopped at its first user instruction.  Exec failure is
 * reported with the child's errno ("cannot run 'x': no such file or
 * directory").  Returns 0 and sets *@out, or <0. */
int ptd_target_launch(struct ptd_target **out, const struct ptd_launch *l);
/* Attaches to every thread of @pid and stops them all. */
int ptd_target_attach(struct ptd_target **out, pid_t pid);
/* Removes every breakpoint and detaches all threads, leaving them running
 * (pending signals are delivered).  The target stays allocated but dead. */
int ptd_target_detach(struct ptd_target *t);
/* Kills the process and reaps it. */
int ptd_target_kill(struct ptd_target *t);
/* Frees @t; a still-live launched process is killed, an attached one detached. */
void ptd_target_free(struct ptd_target *t);

pid_t ptd_target_pid(const struct ptd_target *t);
/* A child the program forked, kept stopped (its copy of the breakpoints
 * taken out) until a thread of the program is resumed next: its pid, or 0. */
pid_t ptd_target_held_child(const struct ptd_target *t);
/* Lets that child go now (detached; it runs on). */
void ptd_target_release_held_child(struct ptd_target *t);
int ptd_target_alive(const struct ptd_target *t);
int ptd_target_launched(const struct ptd_target *t);
/* Fills @tids with up to @max live threads in creation order; returns the
 * count of all of them (@tids may be NULL to count). */
int ptd_target_threads(const struct ptd_target *t, pid_t *tids, int max);
enum ptd_thread_state ptd_target_thread_state(const struct ptd_target *t, pid_t tid);

/* Resumes @tid (stopped) with PTRACE_CONT or PTRACE_SINGLESTEP, delivering
 * @signo (0: none; a signal pending from an earlier stop is delivered when
 * @signo is -1).  A thread resting on an inserted breakpoint is stepped
 * over it first when @step is 0. */
int ptd_target_resume(struct ptd_target *t, pid_t tid, int step, int signo);
/* Resumes every stopped thread. */
int ptd_target_resume_all(struct ptd_target *t, int step);
/*
 * Waits for the next event of any thread and returns it in @st.  With
 * @block 0 returns -ptde_busy when nothing is ready.  Internal stops
 * (the SIGSTOP of a new clone, a forked child) are handled here.
 * Returns 0, or -ptde_not_running when no thread is left.
 */
int ptd_target_wait(struct ptd_target *t, struct ptd_stop *st, int block);
/* Asks running thread @tid to stop (PTRACE_INTERRUPT). */
int ptd_target_interrupt(struct ptd_target *t, pid_t tid);
/*
 * Stops every running thread.  Events that arrive instead of the
 * interrupt are handed to @cb (a completed single-step, a signal — which
 * is then kept pending for the next resume —, exits); breakpoint hits are
 * undone (pc rewound, the hit will repeat).  @cb may be NULL.
 */
int ptd_target_stop_all(struct ptd_target *t, void (*cb)(void *ctx, const struct ptd_stop *st),
			void *ctx);
/* Nonzero while ptd_target_stop_all runs (its callback is called): a
 * recorder that steps threads on its own must leave them stopped then. */
int ptd_target_stopping_all(const struct ptd_target *t);
/*
 * Stops every thread on its way out (PTRACE_O_TRACEEXIT; default off):
 * each thread that exits, by a syscall or killed, first reports
 * PTD_STOP_EXITING.  Every thread must be stopped (threads created later
 * inherit it).  Returns 0, -ptde_not_running, or the kernel's refusal.
 */
int ptd_target_set_exit_stops(struct ptd_target *t, int on);
/* Signal that will be delivered on the next resume with signo -1. */
int ptd_target_pending_signal(const struct ptd_target *t, pid_t tid);
void ptd_target_set_pending_signal(struct ptd_target *t, pid_t tid, int signo);

/* Nonzero when @tid's process has a handler for @signo (so delivering it
 * while single-stepping traps at the handler's first instruction). */
int ptd_target_signal_caught(const struct ptd_target *t, pid_t tid, int signo);

int ptd_target_get_regs(struct ptd_target *t, pid_t tid, struct user_regs_struct *r);
/* The siginfo of @tid, stopped for a signal (src/target/siginfo.c).  Returns 0,
 * -ptde_notfound when the stop is not for a signal, -ptde_nosrch. */
int ptd_target_siginfo(struct ptd_target *t, pid_t tid, siginfo_t *si);
int ptd_target_set_regs(struct ptd_target *t, pid_t tid, const struct user_regs_struct *r);
/* The x87/SSE state (FXSAVE layout) of stopped thread @tid (fpregs.c). */
int ptd_target_get_fpregs(struct ptd_target *t, pid_t tid, struct user_fpregs_struct *f);
/* Its XSAVE state (PTRACE_GETREGSET NT_X86_XSTATE, the standard format:
 * AVX, opmask and ZMM parts at the offsets CPUID leaf 0xD gives) into
 * @buf of *@size bytes; *@size gets the length the kernel wrote. */
int ptd_target_get_xstate(struct ptd_target *t, pid_t tid, void *buf, size_t *size);
/* Writes it back (PTRACE_SETREGSET NT_X86_XSTATE), @size bytes. */
int ptd_target_set_xstate(struct ptd_target *t, pid_t tid, const void *buf, size_t size);
int ptd_target_get_pc(struct ptd_target *t, pid_t tid, uint64_t *pc);
int ptd_target_set_pc(struct ptd_target *t, pid_t tid, uint64_t pc);

/* Reads @n bytes at @addr with our breakpoint bytes masked out (a byte
 * the program wrote over one of our int3s shows as written).  Returns
 * the number of bytes read (short at an unmapped page), or <0 when none. */
long ptd_target_read(struct ptd_target *t, uint64_t addr, void *buf, size_t n);
/* Reads without masking (what the program sees). */
long ptd_target_read_raw(struct ptd_target *t, uint64_t addr, void *buf, size_t n);
/* Writes, even to read-only text; breakpoint shadows are updated. */
long ptd_target_write(struct ptd_target *t, uint64_t addr, const void *buf, size_t n);

/* Inserts an int3 at @addr (reference counted).  Returns 0 or <0 (unmapped). */
int ptd_target_bp_insert(struct ptd_target *t, uint64_t addr);
/* Drops one reference; the last puts the original byte back (unless the
 * program wrote its own byte over the int3).  Returns 0, -ptde_notfound,
 * or -ptde_nomap when the int3 is still mapped but cannot be written
 * away (the breakpoint then stays). */
int ptd_target_bp_remove(struct ptd_target *t, uint64_t addr);
int ptd_target_bp_at(const struct ptd_target *t, uint64_t addr);
/* Original byte under a breakpoint at @addr; returns 0 and sets *b, or -ptde_notfound. */
int ptd_target_bp_orig(const struct ptd_target *t, uint64_t addr, uint8_t *b);
/*
 * For code the program rewrites at run time: every inserted breakpoint in
 * [@lo, @hi) whose int3 the program overwrote takes the byte it wrote as
 * its original, and gets its int3 back.  (Masked reads already show the
 * program's byte, and removing such a breakpoint keeps it.)  Returns the
 * number of breakpoints refreshed, or <0.
 */
int ptd_target_bp_refresh(struct ptd_target *t, uint64_t lo, uint64_t hi);
/* Takes every int3 out of memory (0) or puts them back (1), keeping the
 * table: the step recorder checks pcs itself and needs clean text. */
int ptd_target_bp_enable(struct ptd_target *t, int on);
/* Removes every breakpoint from memory and forgets them (detach). */
int ptd_target_bp_remove_all(struct ptd_target *t);
/* Writes the original bytes of every breakpoint into process @pid's memory
 * (a forked child that shares nothing with us). */
int ptd_target_bp_clean_child(struct ptd_target *t, pid_t pid);
/* Steps thread @tid over the breakpoint at its pc (removed for the step,
 * re-inserted after), reporting the step's stop in @st. */
int ptd_target_step_over(struct ptd_target *t, pid_t tid, struct ptd_stop *st);

/*
 * Hardware breakpoints and watchpoints: the x86 debug registers DR0-DR3
 * (addresses), DR7 (enable, kind, length) and DR6 (which triggered), set
 * with PTRACE_POKEUSER on every thread, including threads created later
 * (before they first run).  exec clears them (the kernel does), detach
 * takes them out of every thread, forked children never have them.
 *
 * x86 has no read-only watchpoint: PTD_HW_ACCESS triggers on reads and
 * writes; a caller that wants gdb's rwatch compares the value itself.  A
 * data watchpoint triggers after the access (the pc is past the
 * instruction), an execute one before the instruction runs (the kernel
 * sets RF so resuming executes it).
 */
/* (enum ptd_hw_kind and PTD_HW_SLOTS are in the public header.) */
/* Sets debug-register slot @slot (0..3) to watch [@addr, @addr+@len) for
 * @kind in every thread.  @len is 1, 2, 4 or 8 with @addr aligned to it
 * (1 for PTD_HW_EXEC).  A thread that is running gets the slot before it
 * next resumes.  Returns 0, -ptde_invalid for a bad slot, length,
 * alignment or kind, -ptde_not_running, or the kernel's refusal (e.g. an
 * address outside user space), in which case the slot is left unset. */
int ptd_target_hw_set(struct ptd_target *t, int slot, uint64_t addr, int len,
		      enum ptd_hw_kind kind);
/* Clears slot @slot in every thread.  Returns 0 or -ptde_invalid. */
int ptd_target_hw_clear(struct ptd_target *t, int slot);
/* A slot not set, or -ptde_busy when all four are. */
int ptd_target_hw_free_slot(const struct ptd_target *t);
/* What slot @slot holds: returns 1 and fills what is not NULL when set, 0
 * when free, -ptde_invalid. */
int ptd_target_hw_get(const struct ptd_target *t, int slot, uint64_t *addr, int *len,
		      enum ptd_hw_kind *kind);
/* Splits [@addr, @addr+@len) into the aligned pieces one slot each can
 * watch (as gdbserver does): fills up to @max pairs into @pa/@pl and
 * returns how many are needed, or -ptde_invalid for @len 0. */
int ptd_target_hw_pieces(uint64_t addr, uint64_t len, uint64_t *pa, int *pl, int max);

/*
 * CPU pinning.  ptd_target_pin(t, cpu) runs every thread of the program on
 * @cpu (a ptrace stop costs half as much when tracer and tracee share a
 * CPU), keeping each thread's own mask; threads created later get their
 * creator's, forked children get theirs back at once.  cpu < 0 gives every
 * thread its mask back; detach, the teardown and ptd_target_free do too.
 * A thread that set its own mask meanwhile keeps it.
 * Returns -ptde_invalid for a bad @cpu, -ptde_not_running.
 */
int ptd_target_pin(struct ptd_target *t, int cpu);

/* ptd_target_quit_signal(), ptd_target_safe_point(), ptd_target_quit_pending(),
 * ptd_target_request_interrupt() and ptd_target_clear_interrupt() are public
 * (include/ptdbg/ptdbg.h, which says what they do). */

#endif
