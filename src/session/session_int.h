/*
 * Inside one debugging session: struct ptd_session and what the files of
 * src/session share (session.c, breakpoints.c, recording.c, recopts.c,
 * run.c, offline.c, codekeep.c).  Not an interface: nothing outside
 * src/session includes it.
 */
#ifndef PTD_SESSION_INT_H
#define PTD_SESSION_INT_H

#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "session/session.h"
#include "decode/bundle.h"
#include "decode/image.h"
#include "record/btsrec.h"
#include "record/ptrec.h"
#include "record/ptsynth.h"
#include "record/recorder.h"
#include "replay/live.h"

/* One location of a breakpoint (gdb's N.M): a function with inlined
 * copies, or a line inlined in several places, has one per copy. */
struct sbp_loc {
	uint64_t addr;
	char *func; /* the function gdb names there, or NULL */
	char *file;
	int line;
	int inserted;  /* in the target's table */
	int disabled;  /* disable N.M */
	char *module;  /* the file its address is in (a library can go), or NULL */
	/* A function spec's function (gdb's location symbol: the frame of it
	 * is what its stop shows, inlined or not), NULL: the innermost. */
	char *inl;
};

/* until/advance: the most places of one location it stops at */
#define PTD_ADV_LOCS 16

struct sbp {
	int id;
	uint64_t addr; /* the first location's (0: pending); a watchpoint's bytes */
	char *spec;
	/* breakpoint: its locations by address (none while pending) */
	struct sbp_loc *locs;
	int nlocs;
	int disabled; /* disable N */
	unsigned hits;
	int temporary;
	/* enable once / enable count N (gdb's disp_disable): each stop
	 * counts @enable_count down, and at 0 the breakpoint disables
	 * itself */
	int disp_disable, enable_count;
	int plt;         /* at the PLT entry until a library defines the function */
	int unloaded;    /* lost its locations to a dlclose: to resolve again */
	/* a catchpoint: enum ptd_catch_kind (its spec "-probe-stap ..." or,
	 * for an event of the program, "-event"), and what an event one
	 * caught last (owned) */
	int catch_kind;
	char *catch_what;
	uint64_t catch_sigs; /* PTD_CATCH_SIGNAL: bit N-1 for signal N (0: standard) */
	int catch_all;       /* PTD_CATCH_SIGNAL: any signal */
	char *cond;      /* condition N EXPR: stop only when true; owned, NULL: none */
	char *dprintf;   /* dprintf: the printf arguments, printed at a hit that then goes on; owned */
	unsigned ignore; /* ignore N COUNT: hits still to pass over */
	/* A watchpoint (watch.c): enum ptd_watch_kind (0: a breakpoint), the
	 * watched bytes [addr, addr+len), the debug-register slots of its
	 * pieces, its value when last seen and the one before. */
	int wkind;
	int len;
	int nslots;
	int slots[PTD_HW_SLOTS];
	uint8_t val[8], old[8];
	int val_ok, old_ok; /* watchpoint: @val, @old could be read */
	int noobj;          /* watchpoint: the expression fails now (unreadable) */
	int triggered; /* it ended the last motion */
	int stopped;   /* breakpoint: it stopped the last thread at its address */
	int changed;   /* and the value changed then */
	int reports;   /* watchpoint: times gdb reports it at this stop (ptd_bpinfo) */
	/* A watchpoint on a frame's local (ptd_session_watch_scope): an
	 * execute slot at the frame's return address ends it once the
	 * thread's rsp reaches the frame's CFA. */
	int scope_on, scope_slot, scope_ended;
	uint64_t scope_pc, scope_cfa;
	/* Values the watched expression reads on the way (ptr of *ptr, i of
	 * a[i], ptd_session_watch_dep), watched as the watchpoint is (write
	 * or access): changed, the expression is evaluated again
	 * (s->watch_chain or s->watch_eval) and the watchpoint moves
	 * (watch.c).  No slots before the program runs. */
	int ndeps;
	struct {
		uint64_t addr;
		int len, nslots;
		int slots[PTD_HW_SLOTS];
		uint8_t val[8];
	} deps[PTD_HW_SLOTS];
};

struct pt_mark {
	size_t off;
	uint64_t number;
};


struct sthread {
	pid_t tid;
	int num;
	int gone;
	struct ptd_history *h;
	struct ptd_calls *calls; /* built on demand, dropped when h changes */
	uint64_t calls_count;    /* history count the calls were built for */
	uint64_t pos;            /* replay position; 0 = live */
	/* Trace format "pt": the recorder writes blocks into @stage, which
	 * are turned into PT (@synth) at every stop; @h is decoded from the
	 * accumulated PT bytes. */
	struct ptd_history *stage;
	struct ptd_ptsynth *synth;
	uint8_t *pt;
	size_t pt_size, pt_cap;
	/* Where each flushed stretch of @pt starts (a PSB) and the number its
	 * first instruction has in @h: a bounded history drops whole
	 * stretches from the front of @pt. */
	struct pt_mark *marks;
	size_t nmarks, cap_marks;
	/* A loaded trace, decoded lazily: @h holds its newest @lazy_m PSB
	 * segments; older ones are put in front when a reverse motion runs
	 * into the start, or all of them when a command needs instruction
	 * numbers.  NULL once @h holds the whole trace. */
	struct ptd_pt_trace *lazy;
	size_t lazy_m;
	/* Once all segments are in @h, it decodes them again from this trace
	 * on demand (a lazy history, src/decode/pt.h); owned. */
	struct ptd_pt_trace *lazy_done;
	int exec_flush; /* the next flush decodes with the session's exec_img */
	int pt_lost;    /* stretches whose PT could not be decoded and kept */
	/* The return addresses of the callers of the frame the recording
	 * started in (the live stack then, innermost first), so backtraces
	 * in the past reach main when the recording started deeper (as deep
	 * as the stack is: malloc'ed, freed with the thread). */
	uint64_t *outer;
	int nouter;
	/* gdb's inline frames skipped at the stop (inline.c): the frames of
	 * functions inlined right at @inl_pc are shown as their call sites
	 * first; `step` goes into them without moving. */
	int inl_skip;
	uint64_t inl_pc;
	/* Stopped on its way out (PTD_STOP_EXITING), not yet looked at by
	 * the stop before exit (run.c exit_next). */
	int at_exit;
};

/*
 * The answers ptd__ses_env_func_of gave, by address: the live threads'
 * call logs classified jumps with them while they were written, and a
 * view built later asks again with the symbols of then.  When the
 * symbols changed (exec, dlopen/dlclose, the process gone) the
 * remembered answers are asked again; if one differs, every log is
 * written again from its items (ptd__ses_calls_fresh).
 */
struct ses_answers {
	uint64_t *key; /* address + 1; 0 = empty slot */
	uint64_t *val;
	size_t n, cap;
	uint64_t gen;		     /* sym_gen when last checked */
	const struct ptd_symbols *sym; /* sym when last checked */
	int differ;		     /* an answer came that differs from the one kept */
};

/*
 * A program an exec replaced while it was recorded (codekeep.c): the
 * items of the histories from before the exec ran in it (each history
 * marks them, ptd_history_mark_image, with this as the reader's ctx), so
 * their code is read from @img (its executable files as mapped before
 * the exec) and their functions and lines come from @sym (owned).
 */
struct ses_epoch {
	struct ptd_session *s;
	struct ptd_image *img;
	struct ptd_symbols *sym;
};

struct ptd_session {
	struct ptd_target *t;
	struct ptd_symbols *sym;
	int sym_dirty;
	uint64_t sym_gen; /* bumped when sym is (re)loaded or refreshed */
	struct ses_answers fo;
	uint64_t relogs; /* call logs written again from the items (maint check calls) */
	char **argv;
	char **envp; /* the program's environment (set environment); NULL: ptdbg's */
	struct ptd_redirect *redir; /* run's redirections (paths owned) */
	int nredir;
	char *tty; /* set inferior-tty: the program's terminal (owned), or NULL */
	int disable_aslr;
	int pin_cpu;
	int own_aff_saved; /* own_aff: ptdbg's CPU mask before it pinned itself */
	cpu_set_t own_aff;
	enum ptd_method method;
	enum ptd_method rec_method;
	int want_pt;   /* trace format for the next recording */
	/* Trace format pt: the image as it was when an execve started, to
	 * decode the stretch that ends with that syscall once it returned
	 * into the new program. */
	struct ptd_image *exec_img;
	/* The mappings (text of /proc/PID/maps) as an execve started, for the
	 * program it replaces (NULL: a free-running recorder, the snapshot's
	 * are taken), and the programs execs replaced while recording,
	 * oldest first. */
	char *exec_maps;
	struct ses_epoch **epochs;
	int nepochs;
	/* A replay motion's position (ptd_replay_env.at) in thread @look_th
	 * (an index) while @look_on: what symbols are looked up for. */
	int look_on, look_th;
	uint64_t look_num;
	struct dead_code *dead; /* code unmapped while recording */
	int ndead;
	/* The recorded program's code as last seen at a stop (its mappings
	 * and a copy of its anonymous executable memory), so that its history
	 * can still be read after it was killed (ptd__ses_keep_killed_recording). */
	char *snap_maps;
	struct ptd_image *snap_img;
	struct dead_code *snap_anon;
	int nsnap_anon;
	/* A trace bundle loaded with --load: no process, the histories
	 * come from its PT, code bytes from its image. */
	int offline;
	int kept; /* offline: the recording of a program that was killed (or exited) */
	int keep_exited; /* keep the recording of a program that exits, too */
	/* The thread held before its exit_group syscall (PTD_EVENT_BEFORE_EXIT)
	 * and where: the next resume there lets it exit. */
	int stop_before_exit; /* ptd_session_set_stop_before_exit */
	int no_thread_exit_stop; /* ptd_session_set_stop_before_thread_exit off */
	pid_t exit_held_tid;
	uint64_t exit_held_pc;
	struct ptd_bundle *bundle;
	struct ptd_image *offimg;
	char *offline_exe; /* the bundle's main executable (its first ELF map) */
	/* ptd__ses_offline_symbols() ran: a bundle without ELF files has no
	 * symbols, and looking again at every address costs a file open each. */
	int offline_sym_tried;
	char method_note[600];
	int rec_pt;    /* the current recording keeps PT */
	/* The session turns the recorder's blocks into PT itself (trace
	 * format pt with a recorder that does not write PT): th->stage and
	 * th->synth. */
	int rec_synth;
	/* The recording's bound per thread (the method's buffer-size when
	 * the recorder stops per branch; 0: none, the recorder's own rings
	 * bound a free-running one). */
	uint64_t rec_limit;
	/* Bytes a recorded thread may hold (history, PT, registers) per
	 * method (soft, step); 0: unlimited.  Beyond it the oldest part is
	 * dropped. */
	uint64_t buf_soft, buf_step;
	unsigned maint_tick; /* recorder stops since the last bound check */
	int recording;
	struct ptd_recorder *rec; /* the live recording's recorder, or NULL */
	/* Options of the pt and bts recorders for the next recording. */
	struct ptd_ptrec_config ptcfg;
	struct ptd_btsrec_config btscfg;
	struct sthread *th;
	int nth, cap_th;
	int next_thread_num;
	int cur; /* index of the selected thread */
	int sched_lock; /* live motions resume only the selected thread */
	int stop_exec;	/* live motions stop after an exec (PTD_EVENT_EXEC) */
	struct sbp *bp;
	int nbp, cap_bp;
	int next_bp_id;
	volatile sig_atomic_t interrupted;
	struct ptd_stepper_env senv;
	/* The motion running and the inline frames its stop presents as
	 * skipped (-1: those entered at the stop pc), for inline.c. */
	int inl_motion;
	int inl_override;
	/* The breakpoints of the last breakpoint stop (ptd__ses_bp_note_stop):
	 * one set by address or line shows the innermost frame there
	 * (@stop_inner), one on a function the frame of that function
	 * (@stop_func, owned). */
	int stop_inner;
	char *stop_func;
	/* The frame the next finish finishes (ptd_session_finish_frame):
	 * real frame @fin_sel_real, the @fin_sel_k-th frame shown for it;
	 * -1: the innermost. */
	int fin_sel_real;
	int fin_sel_k;
	void (*notify)(void *ctx, const char *msg);
	void *notify_ctx;
	char fnbuf[512];
	/* Breakpoint conditions are evaluated by the front end's expression
	 * evaluator (ptd_session_set_cond_eval). */
	ptd_cond_eval_fn cond_fn;
	void *cond_ctx;
	ptd_dprintf_fn dprintf_fn;
	ptd_skip_fn skip_fn;
	void *skip_ctx;
	void *dprintf_ctx;
	ptd_watch_eval_fn watch_eval;
	void *watch_eval_ctx;
	ptd_watch_chain_fn watch_chain;
	void *watch_chain_ctx;
	/* handle SIG: gdb's stop/print/pass per signal (breakctl.c). */
	unsigned char sigflags[65];
	int sig_ready;
	/* until/advance LOCATION: the motion also ends at @adv_addr (in a
	 * frame no deeper than @adv_depth unless @adv_anywhere) or back in the
	 * caller at @adv_ret (advance.c). */
	int adv_active, adv_anywhere, adv_depth;
	uint64_t adv_addr, adv_ret, adv_cfa;
	/* the location's other places (a function's inlined copies): the
	 * first of them reached stops it too (ptd__ses_adv_at) */
	uint64_t adv_more[PTD_ADV_LOCS];
	int nadv_more;
	/* while until/advance LOCATION runs: a stop at one of its places
	 * shows the innermost inlined function there, as gdb's bp_until
	 * (stopped_by_user_bp_inline_frame) */
	int adv_places_on;
	pid_t adv_tid;
	/* ... and in the recorded past, where the replay stops at both
	 * places through this wrapper of the breakpoint callback */
	int (*adv_is_bp)(void *ctx, uint64_t addr, int *id);
	/* Pending breakpoints: our breakpoint at _dl_debug_state, in process
	 * @solib_pid's image number @solib_gen (exec_gen counts execs). */
	uint64_t solib_addr;
	pid_t solib_pid;
	unsigned solib_gen, exec_gen;
	/* The files loaded when the breakpoints were last resolved again
	 * (ptd__symbols_module_keys; @bp_mods_ok 0: not known, resolve all):
	 * a library event resolves a function again only when a file new
	 * since has that name. */
	char **bp_mods;
	int bp_nmods, bp_mods_ok;
	/* ptd_session_set_progress (run.c) */
	void (*progress_fn)(void *ctx, const struct ptd_progress *p);
	void *progress_ctx;
	int progress_on; /* the start was told, the end not yet */
	int in_rec_read; /* ptd__ses_read_code is asking the recorder */
};

/*
 * Code that was unmapped while recording (a dlclose'd library): its bytes
 * are copied just before the munmap, so the history can still enumerate
 * and show the instructions that ran there.
 */
struct dead_code {
	uint64_t start;
	size_t size;
	uint8_t *bytes;
};

/* session.c */
struct sthread *ptd__ses_cur_thread(struct ptd_session *s);
struct sthread *ptd__ses_thread_by_tid(struct ptd_session *s, pid_t tid);
void ptd__ses_rec_free(struct ptd_session *s);
int ptd__ses_rec_has(const struct ptd_session *s, pid_t tid);
void ptd__ses_rec_warn(struct ptd_session *s, int rc, const char *what);
int ptd__ses_read_code(void *ctx, uint64_t addr, uint8_t *buf, size_t n);
struct sthread *ptd__ses_add_sthread(struct ptd_session *s, pid_t tid);
void ptd__ses_drop_calls(struct sthread *th);
void ptd__ses_drop_pt(struct sthread *th);
struct ptd_symbols *ptd__ses_symbols(struct ptd_session *s);
/* The symbols of the program that ran at the position lookups are
 * about: a replay motion's position while one runs, else the selected
 * thread's; an earlier program's (NULL when it had none) when an exec
 * replaced it since, else ptd__ses_symbols(). */
struct ptd_symbols *ptd__ses_symbols_at(struct ptd_session *s);
/* The program that ran at instruction @number of @th when an exec
 * replaced it since, else NULL (the live one). */
struct ses_epoch *ptd__ses_epoch_at(struct ptd_session *s, struct sthread *th, uint64_t number);
/* The entry of the function @addr is in, in the program that ran at
 * instruction @number of @th (0 when unknown). */
uint64_t ptd__ses_func_at(struct ptd_session *s, struct sthread *th, uint64_t number, uint64_t addr);
/* inline.c: gdb's inline frames at stops and motions */
int ptd__ses_env_inline_chain(void *ctx, uint64_t addr, struct ptd_iblock *out, int max);
void ptd__ses_inline_stop(struct ptd_session *s, const struct ptd_event *ev);
int ptd__ses_inline_prepare(struct ptd_session *s, struct sthread *th, enum ptd_motion m,
			    int reverse, struct ptd_event *ev);
int ptd__ses_env_line_of(void *ctx, uint64_t addr, struct ptd_line_info *li);
uint64_t ptd__ses_env_func_of(void *ctx, uint64_t addr);
/* Before a call view of @th is built or counted: the logs are written
 * again when func_of's answers changed or @th's log is gone (bounded
 * drops).  Errors leave the log off (the items are walked). */
void ptd__ses_calls_fresh(struct ptd_session *s, struct sthread *th);
void ptd__ses_drop_process(struct ptd_session *s);
const struct ptd_calls *ptd__ses_thread_calls(struct ptd_session *s, struct sthread *th);

/* codekeep.c */
int ptd__ses_dead_read(struct ptd_session *s, uint64_t addr, uint8_t *buf, size_t n);
void ptd__ses_snap_free(struct ptd_session *s);
void ptd__ses_dead_free(struct ptd_session *s);
void ptd__ses_dead_save(struct ptd_session *s, uint64_t addr, uint64_t len);
char *ptd__ses_read_maps(pid_t pid);
void ptd__ses_snap_refresh(struct ptd_session *s);
/* Thread @tid exec'ed while recorded and goes on at @pc: the program
 * it replaced becomes an epoch (the code as mapped before the execve, the
 * session's symbols, which it takes), every history's items so far are
 * marked as its, and @tid's history gets its exec event (PTD_EV_EXEC:
 * the call segments start again) unless its recorder gave it one. */
void ptd__ses_epoch_exec(struct ptd_session *s, pid_t tid, uint64_t pc);
void ptd__ses_epochs_free(struct ptd_session *s);

/* breakpoints.c */
void ptd__ses_bp_rearm_all(struct ptd_session *s);
/* Before the program resumes: inserts every breakpoint that has an address
 * and is not inserted yet; -ptde_nomap (gdb's warning as the message, then
 * "Command aborted." when @aborted, as gdb says for a resume but not for a
 * run) when one cannot be, so the program never resumes with it silently
 * missing. */
int ptd__ses_bp_arm_all(struct ptd_session *s, int aborted);
/* The program is at @pc: 1 when that is the dynamic linker's report of a
 * changed library list (pending breakpoints were resolved; the program
 * goes on unless a user breakpoint is there too), else 0. */
int ptd__ses_solib_event(struct ptd_session *s, uint64_t pc);
/* Debug-register slots @hits triggered in thread @tid: the ones that end
 * the motion (a write watchpoint whose value changed, a read watchpoint
 * whose value did not, an access watchpoint; slots no watchpoint owns
 * always), the watchpoints marked as triggered (watch.c). */
unsigned ptd__ses_watch_filter(struct ptd_session *s, pid_t tid, unsigned hits);
/* Forgets the triggered marks (a motion starts). */
void ptd__ses_watch_reset(struct ptd_session *s);
/* Sets watchpoint @b again in a new process image (run, exec). */
void ptd__ses_watch_rearm(struct ptd_session *s, struct sbp *b);
/* Deletes the watchpoints on locals (ptd_session_watch_scope) when the
 * program goes or execs, as gdb does: their frames are gone. */
void ptd__ses_watch_drop_locals(struct ptd_session *s);
/* Frees watchpoint @b's slots. */
void ptd__ses_watch_release(struct ptd_session *s, struct sbp *b);
/* The PLT entry of function @name in ELF file @path, as a file address
 * (shlibs.c).  Returns 0 or -1. */
int ptd__ses_plt_entry(const char *path, const char *name, uint64_t *addr);
/* The main executable's load bias (0 unless PIE) (shlibs.c). */
uint64_t ptd__ses_exe_bias(struct ptd_session *s, const char *exe);
/* Any watchpoint set (motions in the past refuse them). */
int ptd__ses_has_watch(const struct ptd_session *s);
/* The first breakpoint with an enabled location at @addr, or NULL. */
struct sbp *ptd__ses_bp_at(struct ptd_session *s, uint64_t addr);
/* The index of @b's enabled location at @addr, or -1 (also for a disabled
 * breakpoint or a watchpoint). */
int ptd__ses_bp_loc_at(const struct sbp *b, uint64_t addr);
/* Frees @b's locations (the entry stays). */
void ptd__ses_bp_free_locs(struct sbp *b);
/* The program is gone: no location is in a target's table any more. */
void ptd__ses_bp_forget_inserted(struct ptd_session *s);
/* Forgets which files the breakpoints were last resolved with. */
void ptd__ses_bp_forget_mods(struct ptd_session *s);
/* After breakpoint stop at @addr (the hits counted, ev->bp_id set): the
 * location number of ev->bp_id (ev->bp_loc) and what the stop shows of
 * the inlined frames there (the breakpoints that stopped it), before any
 * temporary one is deleted (breakctl.c). */
void ptd__ses_bp_note_stop(struct ptd_session *s, uint64_t addr, struct ptd_event *ev);
/* run/starti: every hit count starts at 0 again, as in gdb. */
void ptd__ses_bp_clear_hits(struct ptd_session *s);
/* A new entry with the next number and a copy of @spec, else zero; NULL
 * when out of memory.  (The array may move: pointers into it do not last.) */
struct sbp *ptd__ses_bp_new(struct ptd_session *s, const char *spec);
/* Thread @tid arrived at @b: 1 when the motion stops there (its condition
 * holds and its ignore count is used up; the hit is counted), 0 when the
 * program goes on (breakctl.c). */
int ptd__ses_bp_check(struct ptd_session *s, struct sbp *b, pid_t tid);
/* Thread @tid arrived at @addr: every breakpoint there is checked (each
 * counts its hit), as gdb's bpstat chain; returns the first that stops
 * the thread (the one the stop names), or NULL (breakctl.c). */
struct sbp *ptd__ses_bp_hit(struct ptd_session *s, uint64_t addr, pid_t tid);
/* After a stop at @addr: deletes the temporary breakpoints there that
 * stopped the thread (breakctl.c). */
/* Whether @pc is one of the places until/advance stops at (breakctl.c). */
int ptd__ses_adv_at(const struct ptd_session *s, uint64_t pc);
void ptd__ses_bp_drop_temps(struct ptd_session *s, uint64_t addr);
/* Whether @b is a catchpoint on an event of the program (exec, fork,
 * vfork): no location, never resolved. */
#define PTD__BP_IS_EVENT(b) ((b)->catch_kind >= PTD_CATCH_EXEC)
/* The program met event @kind (PTD_CATCH_EXEC ...) in thread @tid: the
 * enabled catchpoints of that kind check their conditions and count their
 * hits as breakpoints do and note @what; the first that stops sets
 * @ev->bp_id and bp_catch; a temporary one is deleted, enable once/count
 * disables.  Returns 1 when one stops the motion, else 0. */
int ptd__ses_catch_event(struct ptd_session *s, int kind, pid_t tid, const char *what,
			 struct ptd_event *ev);
/* The same for signal @signo (PTD_CATCH_SIGNAL catchpoints on it). */
int ptd__ses_catch_signal(struct ptd_session *s, int signo, pid_t tid, struct ptd_event *ev);
/* gdb's handle flags of @signo (PTD_SIG_STOP | PTD_SIG_PRINT | PTD_SIG_PASS). */
int ptd__ses_sig_flags(struct ptd_session *s, int signo);
/* until/advance: 1 when thread @tid at @pc ends the motion. */
int ptd__ses_adv_hit(struct ptd_session *s, pid_t tid, uint64_t pc);
/* One replay motion of @th from its position (run.c): 0, 1 when it
 * reached the end of the history going forward unfinished, or <0. */
int ptd__ses_replay_move(struct ptd_session *s, struct sthread *th, enum ptd_motion m,
			 int reverse, struct ptd_event *ev);

/* recording.c */
int ptd__ses_record_start_thread(struct ptd_session *s, struct sthread *th);
int ptd__ses_append_pt(struct sthread *th, const uint8_t *buf, size_t n);
int ptd__ses_pt_flush_thread(struct ptd_session *s, struct sthread *th, uint64_t end_ip);
int ptd__ses_pt_sync(struct ptd_session *s);
const uint8_t *ptd__ses_thread_pt(struct ptd_session *s, struct sthread *th, size_t *size);
int ptd__ses_rec_maintain(struct ptd_session *s, int force, struct sthread *sel, uint64_t *fed);

/* run.c */
int ptd__ses_live_run(struct ptd_session *s, enum ptd_motion m, struct ptd_event *ev);

/* offline.c */
void ptd__ses_drop_lazy(struct sthread *th);
int ptd__ses_lazy_all(struct ptd_session *s, struct sthread *th);
int ptd__ses_lazy_more(struct ptd_session *s, struct sthread *th, size_t more);
int ptd__ses_keep_killed_recording(struct ptd_session *s);
void ptd__ses_offline_symbols(struct ptd_session *s);

#endif
