/*
 * The one live run loop every forward motion goes through, and the
 * motions.  Threads are resumed through the recorder (single-stepped when
 * it single-steps, continued otherwise; the selected thread stepped for
 * step/next/stepi), every stop is shown to the recorder first, then
 * checked against the motion's stop rule (src/replay/live.c) and the
 * breakpoints.  Reverse motions and forward motions inside the history go
 * to src/replay.
 */
#include "session/session_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <signal.h>
#include <unistd.h>

#include "disasm/disasm.h"
#include "replay/live.h"
#include "target/target.h"
#include "util/error.h"

/* ---- the live run loop ------------------------------------------------------------------------------- */

struct run_ctx {
	struct ptd_session *s;
	struct sthread *sel;
	struct ptd_recorder *rec; /* the live recorder, NULL when not recording */
	int step_all; /* every thread is single-stepped (PTD_REC_SINGLE_STEPS) */
	int nobp;     /* breakpoints stay out of memory (PTD_REC_NO_BP_BYTES) */
	int step_sel;
	int sel_sig; /* the selected thread's pending step enters a signal handler */
	uint64_t fed; /* soft: history position the stepper has seen up to */
	uint64_t fed_ip; /* and the ip that position had then */
	pid_t held; /* a thread held before its exit_group or exit syscall */
	const char *held_name; /* that syscall */
	/* index of @sel in s->th: ptd__ses_add_sthread() may move the array (a clone
	 * seen by the recorder, by stop_all), never an index */
	ptrdiff_t sel_i;
	/* next/step/nexti over a call: the stack pointer the motion started
	 * with, the call stepped over, its return address and the stack
	 * pointer back there (back_at_return) */
	uint64_t sp0, lj_call, lj_ret, lj_sp;
};

static void sel_set(struct run_ctx *rc, struct sthread *th)
{
	rc->sel = th;
	rc->sel_i = th ? th - rc->s->th : -1;
}

/* After anything that may have added a thread. */
static void sel_fix(struct run_ctx *rc)
{
	rc->sel = rc->sel_i >= 0 ? &rc->s->th[rc->sel_i] : NULL;
}

/*
 * Is the stepper fed from what the recorder wrote for @tid?  A recorder
 * that stops per branch without single-stepping (soft) may run more than
 * one instruction for one of our single-steps (a branch it emulates on
 * the way); one that single-steps (step) tells the class of the one
 * instruction each step ran; with a free-running recorder, or none, the
 * loop reads the instruction from memory.
 */
static int rec_feeds(const struct run_ctx *rc, pid_t tid)
{
	return rc->rec && (rc->rec->caps & PTD_REC_STOPS_PER_BRANCH) && !rc->rec->ops->last_class &&
	       rc->rec->ops->has_thread(rc->rec, tid);
}

/* The history the recorder writes the selected thread into. */
static const struct ptd_history *rec_history(struct ptd_session *s, struct sthread *th)
{
	return th->stage ? th->stage : th->h;
}

/*
 * Soft recorder: one of our single-steps may cover more than one
 * instruction (a branch the recorder emulates on the way), so the stepper
 * is fed from what the recorder wrote into the history since last time.
 * Returns 1 when the motion is complete.
 */
static int feed_from_history(struct ptd_session *s, struct run_ctx *rc, struct ptd_stepper *stp)
{
	const struct ptd_history *h;
	struct ptd_hcursor c;
	uint64_t count;
	int done = 0;

	s->rec->ops->sync(s->rec, rc->sel->tid);
	h = rec_history(s, rc->sel);
	count = ptd_history_count(h);
	if (rc->fed == 0 || rc->fed > count)
		rc->fed = 1; /* the history was restarted (PT flush): from its start */
	if (ptd_hcursor_goto(&c, h, rc->fed) < 0)
		return 0;
	if (rc->fed_ip && c.ip != rc->fed_ip) {
		/* The instruction we were at never ran: a signal handler was
		 * entered first. */
		struct ptd_item ev[4];
		int nev = ptd_hcursor_events(&c, ev, 4);
		for (int i = 0; i < nev && !done; i++)
			if (ev[i].kind == PTD_ITEM_EVENT && ev[i].reason == PTD_EV_SIGNAL)
				done = ptd_stepper_feed(stp, rc->fed_ip, PTD_IC_OTHER, c.ip, 1);
	}
	while (!done && c.number < count) {
		uint64_t ip = c.ip;
		int iclass = c.iclass;
		struct ptd_item ev[4];
		int nev, sig = 0;
		if (ptd_hcursor_next(&c) < 0)
			break;
		nev = ptd_hcursor_events(&c, ev, 4);
		for (int i = 0; i < nev; i++)
			if (ev[i].kind == PTD_ITEM_EVENT && ev[i].reason == PTD_EV_SIGNAL)
				sig = 1;
		if (sig) {
			done = ptd_stepper_feed(stp, ip, iclass, ip, 0);
			if (!done)
				done = ptd_stepper_feed(stp, ip, PTD_IC_OTHER, c.ip, 1);
		} else {
			done = ptd_stepper_feed(stp, ip, iclass, c.ip, 0);
		}
	}
	rc->fed = c.number;
	rc->fed_ip = c.ip;
	return done;
}

/*
 * The exit syscalls the program is stopped before, by number: exit_group
 * and exit (64-bit: 231, 60; 32-bit int $0x80: 252, 1).  Returns the
 * name gdb gives it, or NULL.  exit also when the thread is not the last
 * one: gdb 13 record full asks "The next instruction is syscall exit.  It
 * will make the program exit.  Do you want to stop the program?" before
 * every thread's exit and stops in batch mode; ptdbg stops there without
 * asking (continuing lets the thread end, the others go on), unless told
 * not to (ptd_session_set_stop_before_thread_exit).
 */
static const char *exit_syscall_name(struct ptd_session *s, uint64_t nr, int compat)
{
	if (compat ? nr == 252 : nr == 231)
		return "exit_group";
	if ((compat ? nr == 1 : nr == 60) &&
	    (!s->no_thread_exit_stop || ptd_target_threads(s->t, NULL, 0) <= 1))
		return "exit";
	return NULL;
}

/*
 * Is recorded thread @tid about to end the program with an exit_group
 * syscall, or itself with exit (the program, when it is the last thread)?
 * gdb's record full stops there (its batch answer to "Do you want to stop
 * the program?") so that the recording and the program outlive the end.
 * Continuing from the held stop lets it exit.  The shell asks for it
 * (ptd_session_set_stop_before_exit); other front ends may not.
 *
 * A recorder that stops per instruction or branch (step, soft) sees the
 * syscall coming: the thread is held at it, alive.  pt and bts run free:
 * the thread reports its exit instead (PTD_STOP_EXITING, the session
 * turns those stops on for them), stopped in the kernel on its way out
 * with its registers and the process's memory still there, past the
 * syscall.  It is held there as if before the syscall: its pc is put
 * back on the syscall instruction and rax holds the syscall number again
 * (what the kernel keeps in orig_rax); the thread cannot run user code
 * any more, so the registers it had are never used again.  rcx and r11
 * keep what the syscall instruction wrote into them.  The recorders end
 * its history before the syscall (ptd__exit_syscall).
 *
 * Returns the syscall's name when the thread is held, NULL otherwise.
 */
static const char *exit_next(struct run_ctx *rc, pid_t tid)
{
	struct ptd_session *s = rc->s;
	struct sthread *th = ptd__ses_thread_by_tid(s, tid);
	struct user_regs_struct regs;
	const char *name;
	uint8_t b[2];
	int compat, at_exit = th && th->at_exit;

	if (th)
		th->at_exit = 0; /* looked at once: resuming it again lets it exit */
	if (!s->stop_before_exit || !rc->rec || !ptd__ses_rec_has(s, tid))
		return NULL;
	if (!(rc->rec->caps & PTD_REC_STOPS_PER_BRANCH) && !at_exit)
		return NULL;
	if (ptd_target_get_regs(s->t, tid, &regs) < 0)
		return NULL;
	/* 0x23: the user code segment of a 32-bit process (int $0x80);
	 * 64-bit code uses syscall. */
	compat = regs.cs == 0x23;
	if (!(rc->rec->caps & PTD_REC_STOPS_PER_BRANCH)) {
		/* In the kernel, past the syscall: orig_rax is its number
		 * (-1 when the thread was killed outside a syscall). */
		name = exit_syscall_name(s, compat ? (uint32_t)regs.orig_rax : regs.orig_rax, compat);
		if (!name || regs.rip < 2 || ptd_target_read(s->t, regs.rip - 2, b, 2) != 2 ||
		    !(compat ? b[0] == 0xcd && b[1] == 0x80 : b[0] == 0x0f && b[1] == 0x05))
			return NULL;
		regs.rip -= 2;
		regs.rax = regs.orig_rax;
		if (ptd_target_set_regs(s->t, tid, &regs) < 0)
			return NULL;
		return name;
	}
	if (ptd_target_read(s->t, regs.rip, b, sizeof(b)) != (long)sizeof(b))
		return NULL;
	if (tid == s->exit_held_tid && regs.rip == s->exit_held_pc) {
		s->exit_held_tid = 0; /* held once already: let it exit */
		return NULL;
	}
	name = exit_syscall_name(s, compat ? (uint32_t)regs.rax : regs.rax, compat);
	if (!name || !(compat ? b[0] == 0xcd && b[1] == 0x80 : b[0] == 0x0f && b[1] == 0x05))
		return NULL;
	return name;
}

/*
 * A recorded thread in its exit stop because another thread's exit_group
 * killed it (pt, bts)?  That thread's own exit stop may come after this
 * one; resumed, this one would be gone by then (a main thread left a
 * zombie the program's end waits for), while gdb shows every thread at
 * the stop before exit_group.  So it stays there until then.  Told by
 * its wait status to be: exit_group's code (exit status, no signal),
 * its own syscall not an exit, and no thread in execve (whose exec kills
 * the other threads with status 0 too, and waits for them to be gone).
 */
static int zapped_by_exit_group(struct run_ctx *rc, const struct ptd_stop *st)
{
	struct ptd_session *s = rc->s;
	struct user_regs_struct regs;
	int compat;

	if (!s->stop_before_exit || !rc->rec || (rc->rec->caps & PTD_REC_STOPS_PER_BRANCH) ||
	    !ptd__ses_rec_has(s, st->tid) || (st->status & 0x7f) ||
	    ptd_target_get_regs(s->t, st->tid, &regs) < 0)
		return 0;
	compat = regs.cs == 0x23;
	if (compat ? (uint32_t)regs.orig_rax == 252 || (uint32_t)regs.orig_rax == 1
		   : regs.orig_rax == 231 || regs.orig_rax == 60)
		return 0; /* its own exit */
	if (st->status == 0) {
		for (int i = 0; i < s->nth; i++) {
			char path[64], buf[32] = "";
			long nr = -1;
			FILE *f;

			if (s->th[i].gone || s->th[i].tid == st->tid)
				continue;
			snprintf(path, sizeof(path), "/proc/%d/task/%d/syscall",
				 (int)ptd_target_pid(s->t), (int)s->th[i].tid);
			f = fopen(path, "re");
			if (!f)
				continue;
			if (fgets(buf, sizeof(buf), f))
				nr = strtol(buf, NULL, 10);
			fclose(f);
			if (nr == 59 || nr == 322 || (compat && nr == 11))
				return 0; /* an exec */
		}
	}
	return 1;
}

void ptd_session_set_stop_before_exit(struct ptd_session *s, int on)
{
	if (s)
		s->stop_before_exit = !!on;
}

void ptd_session_set_stop_before_thread_exit(struct ptd_session *s, int on)
{
	if (s)
		s->no_thread_exit_stop = !on;
}

static int resume_thread(struct run_ctx *rc, pid_t tid, int signo)
{
	struct ptd_session *s = rc->s;
	int step = rc->step_all || (rc->step_sel && rc->sel && tid == rc->sel->tid);
	int err;

	/* A recorder may have resumed the thread on its own already (the
	 * soft recorder's own steps, a simulated PMU's): its next event
	 * will come. */
	if (ptd_target_thread_state(s->t, tid) != PTD_THREAD_STOPPED)
		return 0;
	if (signo < 0)
		signo = ptd_target_pending_signal(s->t, tid);
	if (!rc->held && signo <= 0 && (rc->held_name = exit_next(rc, tid)) != NULL) {
		/* stays stopped; the run loop reports it before waiting */
		rc->held = tid;
		return 0;
	}
	if (rc->sel && tid == rc->sel->tid && step)
		rc->sel_sig = signo > 0 && ptd_target_signal_caught(s->t, tid, signo);
	if (!rc->rec) {
		err = ptd_target_resume(s->t, tid, step, signo);
	} else {
		/* A free-running recorder may move what its buffers hold while
		 * the thread is stopped anyway. */
		if (rc->rec->ops->drain)
			ptd__ses_rec_warn(s, rc->rec->ops->drain(rc->rec, tid),
					  "cannot read the recorded trace");
		err = rc->rec->ops->resume(rc->rec, tid, step, signo);
	}
	if (err == -ptde_nosrch) {
		/* Killed while we resumed the others: a thread resumed before
		 * it ran exit_group, or a SIGKILL.  Not an error of the motion;
		 * its exit comes through wait like any other. */
		ptd_clear_error();
		return 0;
	}
	return err;
}

/* Events that arrive while stopping the other threads. */
static void stop_all_cb(void *ctx, const struct ptd_stop *st)
{
	struct run_ctx *rc = ctx;
	struct ptd_session *s = rc->s;

	/* The recorder keeps its own state per thread: it sees every stop
	 * (a completed step, a clone it starts recording...). */
	if (rc->rec)
		rc->rec->ops->on_stop(rc->rec, st);
	switch (st->kind) {
	case PTD_STOP_CLONE: {
		struct sthread *n = ptd__ses_add_sthread(s, st->new_tid);
		/* recorded from its first instruction on (a recorder that saw
		 * the clone in on_stop has it already) */
		if (n && rc->rec && !ptd__ses_rec_has(s, st->new_tid))
			ptd__ses_rec_warn(s, ptd__ses_record_start_thread(s, n), "cannot record a new thread");
		break;
	}
	case PTD_STOP_THREAD_EXIT: {
		struct sthread *th = ptd__ses_thread_by_tid(s, st->tid);
		if (rc->rec)
			rc->rec->ops->thread_gone(rc->rec, st->tid);
		if (th)
			th->gone = 1;
		break;
	}
	case PTD_STOP_EXITING: {
		/* it stays there; the next resume looks at it (exit_next) */
		struct sthread *th = ptd__ses_thread_by_tid(s, st->tid);
		if (th)
			th->at_exit = 1;
		break;
	}
	default:
		break;
	}
}

static void fill_event_location(struct ptd_session *s, struct ptd_event *ev)
{
	struct ptd_line_info li;

	/* (gdb shows the pc of a row that is no statement, too) */
	ev->at_line_start = ptd__ses_env_line_of(s, ev->pc, &li) == 0 && li.lo == ev->pc &&
			    li.is_stmt;
	ptd__ses_inline_stop(s, ev);
}

static void finish_stop(struct run_ctx *rc, struct ptd_event *ev)
{
	struct ptd_session *s = rc->s;

	if (ptd_session_alive(s))
		ptd_target_stop_all(s->t, stop_all_cb, rc);
	if (s->recording && s->rec) {
		ptd__ses_rec_warn(s, s->rec->ops->sync(s->rec, 0),
			 "cannot write the recorded instructions into the history");
		if (s->rec_synth)
			ptd__ses_rec_warn(s, ptd__ses_pt_sync(s), "cannot decode the recorded trace");
		ptd__ses_rec_warn(s, ptd__ses_rec_maintain(s, 1, NULL, NULL), "cannot keep the recording within its bound");
	}
	if (s->recording)
		ptd__ses_snap_refresh(s);
	for (int i = 0; i < s->nth; i++)
		if (s->th[i].calls && s->th[i].calls_count != ptd_history_count(s->th[i].h))
			ptd__ses_drop_calls(&s->th[i]);
	s->sym_dirty = 1;
	if (ptd_session_alive(s))
		ptd_target_bp_enable(s->t, 1);
	if (ev->tid) {
		struct sthread *th = ptd__ses_thread_by_tid(s, ev->tid);
		if (th) {
			s->cur = (int)(th - s->th);
			ev->thread_num = th->num;
		}
	}
	fill_event_location(s, ev);
}

/* Whether an exec catchpoint stops the motion at the exec @tid made. */
static int exec_caught(struct ptd_session *s, pid_t tid, struct ptd_event *ev)
{
	char exe[64], path[4096];
	ssize_t n;

	snprintf(exe, sizeof(exe), "/proc/%d/exe", (int)ptd_target_pid(s->t));
	n = readlink(exe, path, sizeof(path) - 1);
	path[n > 0 ? n : 0] = 0;
	return ptd__ses_catch_event(s, PTD_CATCH_EXEC, tid, path, ev);
}

/* The motion ends at breakpoint @b: count the hit, stop everything. */
static int report_bp(struct run_ctx *rc, struct sbp *b, uint64_t addr, struct ptd_event *ev)
{
	int id = b->id;

	/* (the hits were counted by ptd__ses_bp_hit) */
	ev->kind = PTD_EVENT_BREAKPOINT;
	ev->bp_id = id;
	ev->new_frame = 1;
	ptd__ses_bp_note_stop(rc->s, addr, ev);
	finish_stop(rc, ev);
	ptd__ses_bp_drop_temps(rc->s, addr);
	return 0;
}

/* A debug-register slot triggered in a thread that is stopped (not one a
 * recorder resumed on its own): the motion ends there, as at a
 * breakpoint.  Returns 1 when it reported. */
static int report_hw(struct run_ctx *rc, const struct ptd_stop *st, struct ptd_event *ev)
{
	unsigned hits;

	if (!st->hw_hits || ptd_target_thread_state(rc->s->t, st->tid) != PTD_THREAD_STOPPED)
		return 0;
	/* watchpoints decide by the value (watch.c) */
	hits = ptd__ses_watch_filter(rc->s, st->tid, st->hw_hits);
	if (!hits)
		return 0;
	ev->kind = PTD_EVENT_HWBREAK;
	ev->hw_hits = hits;
	ev->new_frame = 1;
	finish_stop(rc, ev);
	return 1;
}

/*
 * gdb's step over a call ends at the call's return address in the frame
 * being stepped (its step-resume breakpoint checks the frame), whatever
 * ran in between: a longjmp or a C++ catch that jumps back there ends it
 * although the call never returned; one that lands elsewhere runs on, as
 * in gdb.  The return address and the stack pointer there come from the
 * stack right after the call, else from the call instruction and the
 * stack pointer the motion started with.  Returns @done, or 1 when the
 * motion is complete here.
 */
static int back_at_return(struct run_ctx *rc, struct ptd_stepper *stp, pid_t tid, uint64_t pc,
			  int done)
{
	struct ptd_session *s = rc->s;
	struct user_regs_struct r;

	if (done || stp->depth <= 0 || !stp->over_call_ip)
		return done;
	if (stp->over_call_ip != rc->lj_call) {
		struct ptd_insn_info info;
		uint8_t buf[16];
		uint64_t top = 0;
		long n;

		rc->lj_call = stp->over_call_ip;
		rc->lj_ret = 0;
		n = ptd_target_read(s->t, rc->lj_call, buf, sizeof(buf));
		if (n <= 0 || ptd_disasm_decode(buf, (size_t)n, rc->lj_call, &info) != 0 ||
		    info.iclass != PTD_IC_CALL)
			return done;
		rc->lj_ret = rc->lj_call + info.len;
		rc->lj_sp = rc->sp0;
		if (stp->depth == 1 && ptd_target_get_regs(s->t, tid, &r) == 0 &&
		    ptd_target_read(s->t, r.rsp, &top, sizeof(top)) == (long)sizeof(top) &&
		    top == rc->lj_ret)
			rc->lj_sp = r.rsp + 8;
	}
	if (!rc->lj_ret || pc != rc->lj_ret || !rc->lj_sp)
		return done;
	if (ptd_target_get_regs(s->t, tid, &r) < 0 || r.rsp != rc->lj_sp)
		return done;
	return ptd_stepper_back_at_return(stp, pc);
}

/* The front end's progress callback while a live motion records. */
static void progress(struct ptd_session *s, int phase)
{
	struct ptd_progress p = { phase, 0, 0 };

	/* the end is told to whoever was told the start (the recording may
	 * be gone with the program) */
	if (!s->progress_fn || (phase == PTD_PROGRESS_START ? !s->recording : !s->progress_on))
		return;
	s->progress_on = phase != PTD_PROGRESS_END;
	for (int i = 0; i < s->nth; i++) {
		const struct ptd_history *h = s->th[i].stage ? s->th[i].stage : s->th[i].h;

		if (!h)
			continue;
		p.insns += ptd_history_ninsn(h);
		p.bytes += ptd_history_bytes(h) + s->th[i].pt_size;
	}
	s->progress_fn(s->progress_ctx, &p);
}

static int live_run(struct ptd_session *s, enum ptd_motion m, struct ptd_event *ev);

/* gdb's line when it lets a forked child go (detach-on-fork): before
 * the child runs, also after a catch fork stop. */
static void release_forked(struct ptd_session *s, int vfork, pid_t child)
{
	if (s->notify && child > 0) {
		char msg[96];

		snprintf(msg, sizeof(msg), "[Detaching after %s from child process %d]",
			 vfork ? "vfork" : "fork", (int)child);
		s->notify(s->notify_ctx, msg);
	}
	if (!vfork)
		ptd_target_release_held_child(s->t);
}

int ptd__ses_live_run(struct ptd_session *s, enum ptd_motion m, struct ptd_event *ev)
{
	int rc;

	if (ptd_target_held_child(s->t))
		release_forked(s, 0, ptd_target_held_child(s->t));

	progress(s, PTD_PROGRESS_START);
	rc = live_run(s, m, ev);
	progress(s, PTD_PROGRESS_END);
	return rc;
}

static int live_run(struct ptd_session *s, enum ptd_motion m, struct ptd_event *ev)
{
	struct run_ctx rc = { s, NULL, NULL, 0, 0, 0 };
	struct ptd_stepper stepper;
	struct ptd_stop st;
	uint64_t start_pc = 0;
	int err;

	memset(ev, 0, sizeof(*ev));
	s->inl_motion = m;
	s->inl_override = -1;
	if (!ptd_session_alive(s))
		return ptd__err(-ptde_not_running, "The program is not being run.");
	/* gdb refuses to resume with a breakpoint it cannot insert */
	err = ptd__ses_bp_arm_all(s, 1);
	if (err < 0)
		return err;
	ptd__ses_watch_reset(s);
	s->interrupted = 0;
	ptd_target_clear_interrupt();
	sel_set(&rc, ptd__ses_cur_thread(s));
	rc.rec = s->recording ? s->rec : NULL;
	rc.step_all = rc.rec && (rc.rec->caps & PTD_REC_SINGLE_STEPS);
	rc.nobp = rc.rec && (rc.rec->caps & PTD_REC_NO_BP_BYTES);
	rc.step_sel = m != PTD_MOTION_CONTINUE;
	if (rc.sel) {
		struct user_regs_struct r;

		ptd_target_get_pc(s->t, rc.sel->tid, &start_pc);
		if (rc.step_sel && ptd_target_get_regs(s->t, rc.sel->tid, &r) == 0)
			rc.sp0 = r.rsp;
	}
	ptd_stepper_init(&stepper, m, start_pc, &s->senv);
	if (rc.sel && rec_feeds(&rc, rc.sel->tid)) {
		rc.rec->ops->sync(rc.rec, rc.sel->tid);
		rc.fed = ptd_history_count(rec_history(s, rc.sel));
		rc.fed_ip = start_pc;
	}
	/* While single-stepping everything we compare pcs with the
	 * breakpoints ourselves, with clean code bytes in memory. */
	ptd_target_bp_enable(s->t, !rc.nobp);
	/* Threads resting on an inserted breakpoint go first: stepping them
	 * off it needs the others stopped. */
	for (int pass = 0; pass < 2; pass++)
		for (int i = 0; i < s->nth; i++) {
			struct sthread *th = &s->th[i];
			uint64_t pc = 0;
			if (th->gone || ptd_target_thread_state(s->t, th->tid) != PTD_THREAD_STOPPED)
				continue;
			if (s->sched_lock && th != rc.sel)
				continue;
			ptd_target_get_pc(s->t, th->tid, &pc);
			if ((pass == 0) != (!rc.nobp && ptd_target_bp_at(s->t, pc)))
				continue;
			err = resume_thread(&rc, th->tid, -1);
			if (err < 0) {
				finish_stop(&rc, ev);
				return err;
			}
		}
	for (unsigned tick = 0;; tick++) {
		if (s->progress_fn && (tick & 4095) == 4095)
			progress(s, PTD_PROGRESS_UPDATE);
		if (rc.held) {
			struct sthread *th = ptd__ses_thread_by_tid(s, rc.held);

			if (s->notify) {
				char msg[200];

				snprintf(msg, sizeof(msg),
					 "The next instruction is syscall %s.  It will make the "
					 "program exit.\nProcess record: inferior program stopped.",
					 rc.held_name);
				s->notify(s->notify_ctx, msg);
			}
			ev->kind = PTD_EVENT_BEFORE_EXIT;
			ev->tid = rc.held;
			ev->new_frame = 1;
			ptd_target_get_pc(s->t, rc.held, &ev->pc);
			s->exit_held_tid = rc.held;
			s->exit_held_pc = ev->pc;
			if (th)
				sel_set(&rc, th);
			finish_stop(&rc, ev);
			return 0;
		}
		err = ptd_target_wait(s->t, &st, 1);
		if (err < 0) {
			if (err == -ptde_not_running) {
				ev->kind = PTD_EVENT_EXITED;
				ptd__ses_drop_process(s);
				return 0;
			}
			finish_stop(&rc, ev);
			return err;
		}
		sel_fix(&rc);
		ev->tid = st.tid;
		ev->pc = st.pc;
		if (rc.rec) {
			/* Every stop goes to the recorder first: a recorder
			 * that stops per branch, or a simulated PMU running
			 * the program underneath, owns some of them. */
			int own = rc.rec->ops->on_stop(rc.rec, &st);
			sel_fix(&rc); /* a clone was added to the session */
			if (own == -ptde_nosrch) {
				/* The thread vanished under the recorder (the
				 * program was killed, SIGKILL wakes it from its
				 * stop): its exit comes through the wait. */
				ptd_clear_error();
				continue;
			}
			if (own < 0) {
				finish_stop(&rc, ev);
				return own;
			}
			if (report_hw(&rc, &st, ev))
				return 0;
			if (own == 1) {
				/* The recorder's own trap or step.  While we step the
				 * selected thread, what it ran still counts for the
				 * motion (e.g. a signal handler entered). */
				if (rc.step_sel && rc.sel && st.tid == rc.sel->tid &&
				    st.kind == PTD_STOP_STEP && rec_feeds(&rc, st.tid) &&
				    back_at_return(&rc, &stepper, st.tid, st.pc,
						   feed_from_history(s, &rc, &stepper))) {
					ev->kind = PTD_EVENT_STEPPED;
					ev->new_frame = stepper.new_frame;
					s->inl_override = stepper.stop_skip;
					start_pc = st.pc;
					finish_stop(&rc, ev);
					return 0;
				}
				if (stepper.free_run)
					rc.step_sel = 0; /* (as below) */
				err = ptd__ses_rec_maintain(s, 0, rc.step_sel ? rc.sel : NULL, &rc.fed);
				if (err == 0 && s->interrupted) {
					/* Ctrl-C: the target drops a PTRACE_INTERRUPT
					 * whose thread had a trap pending (the
					 * recorder's own, reported here instead), so
					 * resuming would lose the interrupt for good. */
					if (ptd_target_thread_state(s->t, st.tid) == PTD_THREAD_STOPPED) {
						uint64_t pc = st.pc;
						if (ptd_target_get_pc(s->t, st.tid, &pc) == 0)
							ev->pc = pc;
						ev->kind = PTD_EVENT_INTERRUPTED;
						ev->new_frame = 1;
						finish_stop(&rc, ev);
						return 0;
					}
					/* resumed by the recorder itself: ask again */
					ptd_target_interrupt(s->t, st.tid);
				}
				/* (a no-op when the recorder resumed it itself) */
				if (err == 0)
					err = resume_thread(&rc, st.tid, 0);
				if (err == -ptde_nosrch) {
					ptd_clear_error(); /* gone: see above */
					continue;
				}
				if (err < 0) {
					finish_stop(&rc, ev);
					return err;
				}
				continue;
			}
		}
		if (report_hw(&rc, &st, ev))
			return 0;
		switch (st.kind) {
		case PTD_STOP_STEP: {
			int done = 0, iclass = PTD_IC_OTHER;
			struct sbp *b;
			if (rc.step_all && ptd__ses_rec_has(s, st.tid)) {
				/* each step is a recorder stop (recorded in on_stop) */
				err = ptd__ses_rec_maintain(s, 0, NULL, NULL);
				if (err < 0) {
					finish_stop(&rc, ev);
					return err;
				}
			}
			if (rc.sel && st.tid == rc.sel->tid && rc.step_sel && rec_feeds(&rc, st.tid)) {
				done = feed_from_history(s, &rc, &stepper);
				start_pc = st.pc;
			} else if (rc.sel && st.tid == rc.sel->tid && rc.step_sel) {
				/* What executed: the instruction at the previous pc. */
				if (rc.rec && rc.rec->ops->last_class && ptd__ses_rec_has(s, st.tid)) {
					iclass = rc.rec->ops->last_class(rc.rec, st.tid);
					if (iclass < 0)
						iclass = PTD_IC_OTHER;
				} else {
					struct ptd_insn_info info;
					uint8_t buf[16];
					long n = ptd_target_read(s->t, start_pc, buf, sizeof(buf));
					if (n > 0 &&
					    ptd_disasm_decode(buf, (size_t)n, start_pc, &info) == 0)
						iclass = info.iclass;
				}
				done = ptd_stepper_feed(&stepper, start_pc, iclass, st.pc, rc.sel_sig);
				rc.sel_sig = 0;
				start_pc = st.pc;
			}
			if (rc.sel && st.tid == rc.sel->tid && rc.step_sel)
				done = back_at_return(&rc, &stepper, st.tid, st.pc, done);
			if (stepper.free_run)
				rc.step_sel = 0; /* gdb lost the step: a continue now */
			/* Arriving at a breakpoint address counts as hitting it,
			 * as in gdb (also for the stepped thread). */
			ptd__ses_solib_event(s, st.pc);
			if ((b = ptd__ses_bp_hit(s, st.pc, st.tid)) != NULL)
				return report_bp(&rc, b, st.pc, ev);
			if (ptd__ses_adv_hit(s, st.tid, st.pc))
				done = 1;
			if (done) {
				ev->kind = PTD_EVENT_STEPPED;
				ev->new_frame = stepper.new_frame;
				s->inl_override = stepper.stop_skip;
				finish_stop(&rc, ev);
				return 0;
			}
			if (s->interrupted) {
				ev->kind = PTD_EVENT_INTERRUPTED;
				ev->new_frame = 1;
				finish_stop(&rc, ev);
				return 0;
			}
			err = resume_thread(&rc, st.tid, 0);
			break;
		}
		case PTD_STOP_BREAKPOINT: {
			struct sbp *b;

			ptd__ses_solib_event(s, st.pc); /* a library came or went */
			b = ptd__ses_bp_at(s, st.pc);
			if (ptd__ses_adv_hit(s, st.tid, st.pc)) {
				if (b)
					b = ptd__ses_bp_hit(s, st.pc, st.tid);
				if (b)
					return report_bp(&rc, b, st.pc, ev);
				/* until/advance reached its place */
				ev->kind = PTD_EVENT_STEPPED;
				ev->new_frame = 1;
				finish_stop(&rc, ev);
				return 0;
			}
			if (!b) {
				/* stale (deleted meanwhile): go on */
				err = resume_thread(&rc, st.tid, 0);
				break;
			}
			if (rc.sel && st.tid == rc.sel->tid && rc.step_sel && st.pc == start_pc) {
				/* we are stepping off it ourselves */
				err = resume_thread(&rc, st.tid, 0);
				break;
			}
			b = ptd__ses_bp_hit(s, st.pc, st.tid);
			if (!b) {
				/* every condition there false, or ignored */
				err = resume_thread(&rc, st.tid, 0);
				break;
			}
			return report_bp(&rc, b, st.pc, ev);
		}
		case PTD_STOP_SIGNAL: {
			int fl = ptd__ses_sig_flags(s, st.signo);

			/* catch signal stops whatever handle says; continuing
			 * delivers the signal as handle's pass says */
			ev->bp_id = 0;
			ev->bp_catch = 0;
			if (ptd__ses_catch_signal(s, st.signo, st.tid, ev)) {
				if (!(fl & PTD_SIG_PASS))
					ptd_target_set_pending_signal(s->t, st.tid, 0);
				ev->kind = PTD_EVENT_BREAKPOINT;
				ev->signo = st.signo;
				ev->new_frame = 1;
				finish_stop(&rc, ev);
				return 0;
			}
			if (!(fl & PTD_SIG_STOP)) {
				if ((fl & PTD_SIG_PRINT) && s->notify) {
					char msg[128];
					const char *ab = sigabbrev_np(st.signo);

					snprintf(msg, sizeof(msg), "\nProgram received signal SIG%s, %s.",
						 ab ? ab : "?", strsignal(st.signo));
					s->notify(s->notify_ctx, msg);
				}
				err = resume_thread(&rc, st.tid, (fl & PTD_SIG_PASS) ? st.signo : 0);
				break;
			}
			/* Stops; continuing delivers it only when it is passed. */
			if (!(fl & PTD_SIG_PASS))
				ptd_target_set_pending_signal(s->t, st.tid, 0);
			ev->kind = PTD_EVENT_SIGNAL;
			ev->signo = st.signo;
			ev->new_frame = 1;
			finish_stop(&rc, ev);
			return 0;
		}
		case PTD_STOP_INTERRUPT:
			if (s->interrupted) {
				ev->kind = PTD_EVENT_INTERRUPTED;
				ev->new_frame = 1;
				finish_stop(&rc, ev);
				return 0;
			}
			err = resume_thread(&rc, st.tid, 0);
			break;
		case PTD_STOP_EXITED:
		case PTD_STOP_KILLED:
			if (rc.rec)
				ptd__ses_rec_warn(s, rc.rec->ops->sync(rc.rec, 0),
					 "cannot write the recorded instructions into the history");
			ev->kind = st.kind == PTD_STOP_EXITED ? PTD_EVENT_EXITED : PTD_EVENT_KILLED;
			ev->exit_code = st.status;
			ev->signo = st.signo;
			ev->pc = 0;
			if ((st.kind == PTD_STOP_KILLED || s->keep_exited) &&
			    ptd__ses_keep_killed_recording(s) == 0)
				return 0;
			ptd__ses_drop_process(s);
			return 0;
		case PTD_STOP_THREAD_EXIT: {
			struct sthread *th = ptd__ses_thread_by_tid(s, st.tid);
			if (rc.rec)
				rc.rec->ops->thread_gone(rc.rec, st.tid);
			if (th)
				th->gone = 1;
			if (rc.sel && rc.sel->tid == st.tid && !rc.step_sel) {
				/* continue: the selected thread ended; carry on with
				 * the main thread selected, as gdb does. */
				struct sthread *lead = ptd__ses_thread_by_tid(s, ptd_target_pid(s->t));
				sel_set(&rc, lead);
				if (lead)
					s->cur = (int)(lead - s->th);
			} else if (rc.sel && rc.sel->tid == st.tid) {
				/* The stepped thread is gone: stop the motion. */
				ev->kind = PTD_EVENT_STEPPED;
				ev->tid = ptd_target_pid(s->t);
				ev->new_frame = 1;
				sel_set(&rc, NULL);
				finish_stop(&rc, ev);
				if (ptd_session_alive(s))
					ptd_target_get_pc(s->t, ev->tid, &ev->pc);
				return 0;
			}
			err = 0;
			break;
		}
		case PTD_STOP_CLONE: {
			struct sthread *n = ptd__ses_add_sthread(s, st.new_tid);
			sel_fix(&rc);
			/* The child is recorded before it first runs (a recorder
			 * that saw the clone in on_stop has it already). */
			if (n && rc.rec && !ptd__ses_rec_has(s, st.new_tid))
				ptd__ses_rec_warn(s, ptd__ses_record_start_thread(s, n), "cannot record a new thread");
			err = resume_thread(&rc, st.tid, 0);
			if (err == 0 && n)
				err = resume_thread(&rc, st.new_tid, 0);
			break;
		}
		case PTD_STOP_EXITING: {
			/* A thread on its way out: held here when it ends the
			 * program or itself with exit_group or exit (exit_next),
			 * let go on otherwise. */
			struct sthread *th = ptd__ses_thread_by_tid(s, st.tid);
			if (th)
				th->at_exit = 1;
			if (!rc.held && zapped_by_exit_group(&rc, &st)) {
				err = 0; /* parked until the exit_group's own stop */
				break;
			}
			err = resume_thread(&rc, st.tid, 0);
			if (err == 0 && !rc.held) {
				/* not held: threads parked for it go on too */
				for (int i = 0; i < s->nth && err == 0; i++)
					if (!s->th[i].gone && s->th[i].at_exit && s->th[i].tid != st.tid &&
					    ptd_target_thread_state(s->t, s->th[i].tid) == PTD_THREAD_STOPPED)
						err = resume_thread(&rc, s->th[i].tid, 0);
			}
			break;
		}
		case PTD_STOP_FORK:
			if (st.signo == SIGKILL && s->notify) {
				char msg[300];
				snprintf(msg, sizeof(msg),
					 "warning: cannot take the breakpoints out of forked child "
					 "process %d (%s): it was killed rather than run into them",
					 (int)st.new_tid, ptd_last_error(-ptde_nomap));
				s->notify(s->notify_ctx, msg);
			}
			/* catch fork|vfork: gdb's "Catchpoint N (forked process
			 * CHILD)" in the parent, at the system call's return */
			if (st.new_tid > 0) {
				char child[32];

				snprintf(child, sizeof(child), "%d", (int)st.new_tid);
				ev->bp_id = 0;
				ev->bp_catch = 0;
				if (ptd__ses_catch_event(s, st.vfork ? PTD_CATCH_VFORK : PTD_CATCH_FORK,
							 st.tid, child, ev)) {
					struct sthread *fth = ptd__ses_thread_by_tid(s, st.tid);

					if (fth)
						sel_set(&rc, fth);
					ev->kind = PTD_EVENT_BREAKPOINT;
					ev->forked = st.new_tid;
					ev->new_frame = 1;
					finish_stop(&rc, ev);
					return 0;
				}
				if (st.signo != SIGKILL)
					release_forked(s, st.vfork, st.new_tid);
			}
			err = resume_thread(&rc, st.tid, 0);
			break;
		case PTD_STOP_EXEC:
			if (s->notify) {
				char exe[64], path[4096], msg[4200];
				ssize_t n;
				snprintf(exe, sizeof(exe), "/proc/%d/exe", (int)ptd_target_pid(s->t));
				n = readlink(exe, path, sizeof(path) - 1);
				path[n > 0 ? n : 0] = 0;
				snprintf(msg, sizeof(msg), "process %d is executing new program: %s",
					 (int)ptd_target_pid(s->t), path);
				s->notify(s->notify_ctx, msg);
			}
			if (rc.rec)
				ptd__ses_rec_warn(s, rc.rec->ops->exec(rc.rec, st.tid, st.pc),
					 "cannot record across the exec");
			if (rc.rec && s->rec_synth && s->exec_img) {
				/* Decode the stretch ending with the execve now, with
				 * the old program's image. */
				struct sthread *eth = ptd__ses_thread_by_tid(s, st.tid);
				if (eth && eth->stage) {
					eth->exec_flush = 1;
					ptd__ses_rec_warn(s, ptd__ses_pt_flush_thread(s, eth, st.pc),
						 "cannot decode the trace up to the exec");
					eth->exec_flush = 0;
				}
			}
			ptd_image_free(s->exec_img);
			s->exec_img = NULL;
			/* The history so far ran in the old program: its code
			 * and symbols stay for it (this takes s->sym). */
			if (rc.rec)
				ptd__ses_epoch_exec(s, st.tid, st.pc);

			for (int i = 0; i < s->nth; i++)
				if (s->th[i].tid != st.tid)
					s->th[i].gone = 1;
			{
				struct sthread *th = ptd__ses_thread_by_tid(s, st.tid);
				if (!th)
					th = ptd__ses_add_sthread(s, st.tid);
				sel_set(&rc, th);
				s->cur = th ? (int)(th - s->th) : 0;
			}
			ptd_symbols_free(s->sym);
			s->sym = NULL;
			s->exec_gen++;
			ptd__ses_symbols(s);
			ptd__ses_bp_rearm_all(s);
			ptd_target_bp_enable(s->t, !rc.nobp);
			/* catch exec: gdb's "Catchpoint N (exec'd PATH)" */
			ev->bp_id = 0;
			ev->bp_catch = 0;
			if (exec_caught(s, st.tid, ev) || s->stop_exec) {
				/* (ev->tid and ev->pc are the exec'ing thread's) */
				ev->kind = PTD_EVENT_EXEC;
				ev->new_frame = 1;
				finish_stop(&rc, ev);
				return 0;
			}
			start_pc = st.pc;
			err = resume_thread(&rc, st.tid, 0);
			break;
		default:
			err = resume_thread(&rc, st.tid, 0);
			break;
		}
		if (err == -ptde_nosrch) {
			/* the thread vanished (killed): its exit comes next */
			ptd_clear_error();
			continue;
		}
		if (err < 0) {
			finish_stop(&rc, ev);
			return err;
		}
	}
}

/* ---- motions ---------------------------------------------------------------------------------------- */

/* The replay stopped at a breakpoint: count the hit, and delete a
 * temporary breakpoint there, as gdb does in the replay as in the live
 * program. */
static void replay_bp_hit(struct ptd_session *s, const struct ptd_replay_result *res,
			  struct ptd_event *ev)
{
	struct sbp *b;

	ev->kind = PTD_EVENT_BREAKPOINT;
	ev->bp_id = res->bp_id;
	b = ptd__ses_bp_at(s, res->ip);
	if (!b)
		return;
	/* the first that stopped it (ptd__ses_bp_hit counted the hits) */
	for (int i = (int)(b - s->bp); i < s->nbp; i++)
		if (ptd__ses_bp_loc_at(&s->bp[i], res->ip) >= 0 && s->bp[i].stopped) {
			b = &s->bp[i];
			break;
		}
	ev->bp_id = b->id;
	ptd__ses_bp_note_stop(s, res->ip, ev);
	ptd__ses_bp_drop_temps(s, res->ip);
}

/* A motion in the recorded history.  Going forward, reaching the end of
 * the history ends it there, whatever the motion and even with a
 * breakpoint at the very end: gdb's record full reports "No more
 * reverse-execution history." there (no breakpoint hit counted) and the
 * next forward motion runs live. */
static int replay_move(struct ptd_session *s, struct sthread *th, enum ptd_motion m, int reverse,
		       struct ptd_event *ev)
{
	struct ptd_replay_result res;
	const struct ptd_calls *calls;
	uint64_t count, from, from0 = 0;
	int from_set = 0, at_end;
	size_t more = 1;
	int rc;

	s->inl_motion = m;
	s->inl_override = -1;
again:
	for (;;) {
		calls = ptd__ses_thread_calls(s, th);
		count = ptd_history_count(th->h);
		from = th->pos ? th->pos : count;
		if (!from_set) {
			from0 = from; /* where the motion started, for new_frame */
			from_set = 1;
		}
		/* the callbacks' symbols follow the motion's position */
		s->look_on = 1;
		s->look_th = (int)(th - s->th);
		s->look_num = from;
		rc = ptd_replay_move(th->h, calls, from, m, reverse, &s->senv.base, &res);
		s->look_on = 0;
		if (rc < 0)
			return rc;
		/* A loaded trace decoded from its end: running into the
		 * start of what is decoded means the older segments are
		 * needed; the motion runs again from the same place. */
		if (!reverse || !th->lazy ||
		    (res.stop != PTD_REPLAY_BEGIN &&
		     (res.stop != PTD_REPLAY_BREAKPOINT || res.number != ptd_replay_first_insn(th->h))))
			break;
		rc = ptd__ses_lazy_more(s, th, more);
		if (rc < 0)
			return rc;
		if (rc == 0)
			break;
		more *= 2;
	}
	at_end = !reverse && (res.stop == PTD_REPLAY_END || res.number >= count);
	/* A breakpoint whose condition is false here, or that is ignored,
	 * does not end the motion: it goes on from there.  The condition is
	 * evaluated at that position. */
	if (at_end) {
		/* (no breakpoint is reported at the end: see above) */
	} else if (res.stop == PTD_REPLAY_BREAKPOINT &&
	    !(reverse && res.number == ptd_replay_first_insn(th->h))) {
		struct sbp *b = ptd__ses_bp_at(s, res.ip);
		uint64_t keep = th->pos;

		th->pos = res.number >= count ? 0 : res.number;
		if (b && !ptd__ses_bp_hit(s, res.ip, th->tid) && th->pos)
			goto again;
		th->pos = keep;
	}
	from = from0;
	memset(ev, 0, sizeof(*ev));
	ev->tid = th->tid;
	ev->thread_num = th->num;
	ev->pc = res.ip;
	ev->number = res.number;
	ev->gaps_crossed = res.gaps_crossed;
	/* Numbers in a partly decoded loaded trace are not final yet. */
	ev->first_gap = th->lazy ? 0 : res.first_gap;
	ev->first_gap_reason = res.first_gap_reason;
	switch (res.stop) {
	case PTD_REPLAY_DONE:
		ev->kind = PTD_EVENT_STEPPED;
		break;
	case PTD_REPLAY_BREAKPOINT: {
		if (reverse && res.number == ptd_replay_first_insn(th->h)) {
			/* gdb reports the end of the history, not the
			 * breakpoint, at the first recorded instruction. */
			ev->kind = PTD_EVENT_NO_HISTORY;
			break;
		}
		replay_bp_hit(s, &res, ev);
		break;
	}
	case PTD_REPLAY_BEGIN:
		ev->kind = PTD_EVENT_NO_HISTORY;
		break;
	case PTD_REPLAY_END:
		ev->kind = PTD_EVENT_NO_HISTORY;
		break;
	case PTD_REPLAY_GAP:
		ev->kind = PTD_EVENT_GAP;
		break;
	case PTD_REPLAY_ERROR:
		return ptd__err(-ptde_bad_insn, "cannot decode the recorded instruction at %llu",
				(unsigned long long)res.number);
	}
	if (at_end)
		ev->kind = PTD_EVENT_NO_HISTORY;
	th->pos = res.number >= count ? 0 : res.number;
	if (at_end && !s->offline)
		th->pos = 0; /* (only gaps after it: the next motion is live) */
	ev->replaying = th->pos != 0;
	/* Whether gdb would print the frame: a call/return was crossed. */
	if (calls) {
		const struct ptd_callseg *a = ptd_calls_find(calls, from);
		const struct ptd_callseg *b = ptd_calls_find(calls, res.number);
		/* (each looked up in the program that ran there: an exec
		 * may lie between) */
		uint64_t fnow = ptd__ses_func_at(s, th, res.number, ev->pc);
		uint64_t fthen = a ? ptd__ses_func_at(s, th, a->first, a->ip) : 0;

		ev->new_frame = !a || !b || a->level != b->level || fnow != fthen ||
				ev->kind != PTD_EVENT_STEPPED;
		if (a && b && a->level == b->level && a->index != b->index) {
			/* same level, other segment: returned and called again
			 * (another activation, also of the same function in a
			 * recursion) */
			if (fnow != fthen || (a->instance && b->instance && a->instance != b->instance))
				ev->new_frame = 1;
		}
		/* step/next out of a function into its caller, in the middle
		 * of a line (backward: always; forward: not at the very
		 * instruction the return landed on, where gdb stops at once
		 * in a new frame): gdb takes the caller's frame as the one
		 * stepped in and prints the location only when the function
		 * is another one (not within a recursion) */
		if (a && b && (m == PTD_MOTION_STEP || m == PTD_MOTION_NEXT) &&
		    b->level < a->level && ev->kind == PTD_EVENT_STEPPED &&
		    (reverse || res.number != b->first))
			ev->new_frame = fnow != fthen;
	}
	if (ev->kind == PTD_EVENT_STEPPED && res.new_frame >= 0)
		ev->new_frame = res.new_frame; /* among inline frames, as gdb */
	if (ev->kind == PTD_EVENT_STEPPED)
		s->inl_override = res.stop_skip;
	fill_event_location(s, ev);
	return 0;
}

int ptd__ses_replay_move(struct ptd_session *s, struct sthread *th, enum ptd_motion m,
			 int reverse, struct ptd_event *ev)
{
	return replay_move(s, th, m, reverse, ev);
}

static int motion(struct ptd_session *s, enum ptd_motion m, int reverse, struct ptd_event *ev);

int ptd_session_motion(struct ptd_session *s, enum ptd_motion m, int reverse, struct ptd_event *ev)
{
	struct sthread *th;
	int rc;

	if (!s || !ev)
		return -ptde_invalid;
	memset(ev, 0, sizeof(*ev));
	th = ptd__ses_cur_thread(s);
	rc = 0;
	if (th && (s->offline || ptd_session_alive(s)) && (!reverse || s->recording || s->offline))
		rc = ptd__ses_inline_prepare(s, th, m, reverse, ev);
	if (rc == 0)
		rc = motion(s, m, reverse, ev);
	else if (rc > 0)
		rc = 0; /* stepped into an inlined function (no motion) */
	s->senv.base.start_skip = 0;
	s->senv.base.finish_inline = 0;
	s->senv.base.finish_real = 0;
	s->fin_sel_real = -1;
	s->fin_sel_k = 0;
	return rc;
}

static int motion(struct ptd_session *s, enum ptd_motion m, int reverse, struct ptd_event *ev)
{
	struct sthread *th;

	if (s->offline && (th = ptd__ses_cur_thread(s)) != NULL) {
		/* A loaded trace: the history is all there is.  Reaching its
		 * end going forward ends there, as in gdb's replay. */
		if (!reverse && !th->pos)
			return ptd__err(-ptde_eos, "No more reverse-execution history.");
		return replay_move(s, th, m, reverse, ev);
	}
	if (!ptd_session_alive(s))
		return ptd__err(-ptde_not_running, "The program is not being run.");
	th = ptd__ses_cur_thread(s);
	if (!th)
		return ptd__err(-ptde_not_running, "The program is not being run.");
	if ((reverse || th->pos) && m == PTD_MOTION_CONTINUE && ptd__ses_has_watch(s))
		return ptd__err(-ptde_unsupported,
				"cannot continue in the recorded past with watchpoints set: the "
				"recording keeps the control flow, not the memory (delete the "
				"watchpoints, or record goto end)");
	if (reverse) {
		if (!s->recording)
			return ptd__err(-ptde_unsupported, "Target native does not support this command.");
		return replay_move(s, th, m, 1, ev);
	}
	/* In the recorded past a forward motion stops at the end of the
	 * history at the latest (replay_move); from there, it runs live. */
	if (th->pos)
		return replay_move(s, th, m, 0, ev);
	return ptd__ses_live_run(s, m, ev);
}

int ptd_session_goto(struct ptd_session *s, const char *where, struct ptd_event *ev)
{
	struct sthread *th;
	uint64_t count, n;
	char *end;

	if (!s || !where || !ev)
		return -ptde_invalid;
	memset(ev, 0, sizeof(*ev));
	if (!s->recording)
		return ptd__err(-ptde_not_running, "No record target is currently active.");
	th = ptd__ses_cur_thread(s);
	if (!th)
		return ptd__err(-ptde_not_running, "The program is not being run.");
	int rc = ptd__ses_lazy_all(s, th);
	if (rc < 0)
		return rc;
	count = ptd_history_count(th->h);
	if (!strcmp(where, "begin") || !strcmp(where, "start")) {
		/* Gaps at the start are skipped, as gdb does. */
		n = ptd_replay_first_insn(th->h);
		if (!n)
			return ptd__err(-ptde_invalid, "No trace.");
	} else if (!strcmp(where, "end")) {
		/* The last instruction: a trace that ends in a gap (a bundle
		 * without a tail) ends at the instruction before it. */
		struct ptd_hcursor c;

		n = count;
		if (n && ptd_hcursor_goto(&c, th->h, n) == 0 && c.is_gap) {
			while (c.is_gap && ptd_hcursor_prev(&c) == 0)
				;
			if (!c.is_gap)
				n = c.number;
		}
	} else {
		errno = 0;
		n = strtoull(where, &end, 0);
		if (errno || end == where || *end)
			return ptd__err(-ptde_invalid, "Invalid number \"%s\".", where);
		if (n < 1 || n > count)
			return ptd__err(-ptde_invalid, "Target insn not found.");
		{
			struct ptd_hcursor c;
			if (ptd_hcursor_goto(&c, th->h, n) == 0 && c.is_gap)
				return ptd__err(-ptde_invalid, "No such instruction.");
		}
	}
	if (count == 0)
		return ptd__err(-ptde_invalid, "No trace.");
	th->pos = n >= count ? 0 : n;
	ev->kind = PTD_EVENT_STEPPED;
	ev->tid = th->tid;
	ev->thread_num = th->num;
	ev->number = n;
	ev->replaying = th->pos != 0;
	ev->new_frame = 1;
	if (ptd_session_pc(s, &ev->pc) < 0)
		return -ptde_nomap;
	s->inl_motion = PTD_MOTION_STEPI; /* gdb's record goto skips no inline frames */
	fill_event_location(s, ev);
	return 0;
}
