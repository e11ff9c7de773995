/*
 * One debugging session: a target process, its threads' recorders and
 * histories, symbols, breakpoints, and the replay position.  Front ends
 * (cmd/ptdbg, later the server and reports) drive everything through
 * this interface and format the results; stepping logic lives in
 * src/replay and here, never in a front end.
 */
#ifndef PTD_SESSION_H
#define PTD_SESSION_H

#include <stdint.h>
#include <sys/types.h>
#include <sys/user.h>

#include "history/history.h"
#include "replay/replay.h"
#include "symbols/symbols.h"

struct ptd_session;
struct ptd_target;

enum ptd_method {
	PTD_METHOD_AUTO = 0,
	PTD_METHOD_STEP,
	PTD_METHOD_SOFT,
	PTD_METHOD_PT,
	PTD_METHOD_BTS,
};
/* Parses "auto", "step", ...; returns the method or -ptde_invalid (the
 * message lists the valid names). */
int ptd_method_parse(const char *name);
const char *ptd_method_name(enum ptd_method m);
/* Why --method=auto chose what it chose (NULL when no choice was made). */
const char *ptd_session_method_note(const struct ptd_session *s);

enum ptd_session_event_kind {
	PTD_EVENT_NONE = 0,
	PTD_EVENT_STEPPED,      /* a motion completed (stepi, step, finish...) */
	PTD_EVENT_BREAKPOINT,   /* stopped at breakpoint bp_id */
	PTD_EVENT_SIGNAL,       /* the program received signo */
	PTD_EVENT_EXITED,       /* exited with exit_code */
	PTD_EVENT_KILLED,       /* terminated by signo */
	PTD_EVENT_NO_HISTORY,   /* "No more reverse-execution history." */
	PTD_EVENT_GAP,          /* stopped at a gap in the history */
	PTD_EVENT_INTERRUPTED,  /* the user interrupted (Ctrl-C) */
	PTD_EVENT_EXEC,         /* the program exec'ed a new image */
};

struct ptd_event {
	enum ptd_session_event_kind kind;
	uint64_t pc;
	int bp_id;
	int signo;
	int exit_code;
	pid_t tid;
	int thread_num;     /* gdb-style thread number, 1-based */
	int replaying;      /* the stop is in the recorded past */
	uint64_t number;    /* history position when replaying */
	/* The stop is at the start of a source line (gdb prints the line
	 * without the pc) versus mid-line (gdb prints "0x... <tab>line"). */
	int at_line_start;
	/* The frame changed (gdb prints "fn (args) at file:line" first). */
	int new_frame;
	int finish_caller; /* finish: "Run till exit from ..." context */
	uint64_t finish_from_pc;
	/* Replay stepped over gaps in the trace (as gdb does): how many, and
	 * the first one's number and enum ptd_gap_reason. */
	uint64_t gaps_crossed;
	uint64_t first_gap;
	int first_gap_reason;
};

struct ptd_bpinfo {
	int id;
	uint64_t addr;
	const char *spec; /* as the user typed it */
	const char *func; /* may be NULL */
	const char *file; /* may be NULL */
	int line;
	unsigned hits;
	int temporary;
};

struct ptd_thread_info {
	int num;
	pid_t tid;
	uint64_t pc;
	int current;
	int recording;
};

struct ptd_record_info {
	enum ptd_method method;
	const char *format; /* "blocks" or "pt" */
	uint64_t ninsn;     /* executed instructions recorded (selected thread) */
	uint64_t count;     /* numbered items incl. gaps and the tail */
	uint64_t ncalls;    /* function-call segments */
	size_t bytes;       /* history bytes */
	int replaying;
	uint64_t position;  /* replay position when replaying */
	uint64_t stops;     /* ptrace stops taken while recording */
	uint64_t ngaps;     /* gaps among the numbered items */
	uint64_t buffer_size; /* the method's bound per thread, bytes (0: none) */
	uint64_t dropped;   /* oldest instructions dropped to stay within it */
	size_t mem_bytes;   /* what the recording holds for the thread now */
	/* pt, bts: what the recorder read from its buffers (all threads) */
	uint64_t trace_bytes; /* trace bytes read */
	uint64_t lost_bytes;  /* bytes the hardware or kernel dropped */
	uint64_t wraps;       /* times a circular buffer wrapped */
	char pmu[64];         /* "intel_pt", "intel_pt (simulated)", "" */
	int simulated;        /* the PMU is simulated (PTDBG_SIMULATE_PMU) */
};

/* Default and least buffer-size (bytes a recorded thread may hold). */
#define PTD_RECORD_BUFFER_DEFAULT (64ull << 20)
#define PTD_RECORD_BUFFER_MIN 65536u

struct ptd_session *ptd_session_alloc(void);
void ptd_session_free(struct ptd_session *s); /* kills a launched program, detaches an attached one */

void ptd_session_set_disable_aslr(struct ptd_session *s, int on);
int ptd_session_get_disable_aslr(const struct ptd_session *s);
/* Run ptdbg and the traced threads on one CPU (default on): ptrace stops
 * cost about half as much without cross-CPU wake-ups. */
void ptd_session_set_pin_cpu(struct ptd_session *s, int on);
int ptd_session_get_pin_cpu(const struct ptd_session *s);
/* Keep the recording when the recorded program exits (default off), as
 * when it is killed: the session goes on offline on the recorded history,
 * so reverse motions, bt and record save work from its end (the shell's
 * counterpart of gdb record full, which stops before exit_group). */
void ptd_session_set_keep_exited(struct ptd_session *s, int on);
/*
 * Bounded recording, like gdb's "record full insn-number-max": each
 * thread recorded with method @m (soft or step) holds at most @bytes
 * (history, PT, registers; 0: unlimited); beyond it the oldest part is
 * dropped and the history starts with a gap that says so (numbers start
 * at 1 again).  Applies to recordings running now too.  Returns 0, or
 * -ptde_invalid for another method or less than PTD_RECORD_BUFFER_MIN.
 */
int ptd_session_set_buffer_size(struct ptd_session *s, enum ptd_method m, uint64_t bytes);
uint64_t ptd_session_buffer_size(const struct ptd_session *s, enum ptd_method m);
/*
 * Options of a recording method for the next recording:
 *   pt:  buffer-size N (AUX bytes per thread, a power of two of pages),
 *        buffer circular|full, kernel on|off, ret-compression, tsc, mtc,
 *        cyc (on|off|default), psb-period 0..15|default, filter SPEC
 *        (appended, at most 4: START/SIZE@FILE or FUNC@FILE; "none"
 *        clears them);
 *   bts: buffer-size N (data ring bytes per thread, power of two pages);
 *   soft, step: buffer-size N|unlimited (ptd_session_set_buffer_size).
 * Sizes take K, M or G.  Returns 0, or -ptde_invalid with a message that
 * names the valid names or values.
 */
int ptd_session_set_record_option(struct ptd_session *s, enum ptd_method m, const char *name,
				  const char *value);
/* The option's value as text ("4194304", "circular", "default", the
 * filters one a line or "none") into @buf.  Returns 0 or -ptde_invalid. */
int ptd_session_get_record_option(struct ptd_session *s, enum ptd_method m, const char *name,
				  char *buf, size_t n);
/* Program and arguments for run/start (argv copied).  NULL-terminated. */
int ptd_session_set_program(struct ptd_session *s, char *const *argv);
const char *ptd_session_program(const struct ptd_session *s);
/* Recording method used by `record` with no argument and by recording
 * sessions (--method). */
void ptd_session_set_method(struct ptd_session *s, enum ptd_method m);

/* Launches the program; @start: stop at main (temporary breakpoint) like
 * gdb's `start`; otherwise run until an event.  With @record_from_start the
 * recorder starts at the first instruction (ptdbg-report). */
int ptd_session_run(struct ptd_session *s, int start, struct ptd_event *ev);
/* Launches the program stopped at its first instruction (nothing runs). */
int ptd_session_launch(struct ptd_session *s);
int ptd_session_attach(struct ptd_session *s, pid_t pid);
int ptd_session_detach(struct ptd_session *s);
int ptd_session_kill(struct ptd_session *s);
int ptd_session_alive(const struct ptd_session *s);
pid_t ptd_session_pid(const struct ptd_session *s);

/* Breakpoints: @spec is "func", "file:line", "line", or "*addr".  Returns
 * the new id (>0) or <0 (the message says why). */
int ptd_session_break(struct ptd_session *s, const char *spec, int temporary);
int ptd_session_delete(struct ptd_session *s, int id); /* id 0: all */
int ptd_session_bp_count(const struct ptd_session *s);
int ptd_session_bp_get(const struct ptd_session *s, int index, struct ptd_bpinfo *out);

/* Recording. */
int ptd_session_record_start(struct ptd_session *s, enum ptd_method m);
int ptd_session_record_stop(struct ptd_session *s);
/* Trace format of the next recording: "blocks" (the recorder's blocks are
 * the history) or "pt" (the step recorder's outcomes are written as Intel
 * PT with ptsynth and the history is decoded from that PT). */
int ptd_session_set_trace_format(struct ptd_session *s, const char *fmt);
const char *ptd_session_trace_format(const struct ptd_session *s);
/* PT bytes kept for the selected thread (format pt). */
size_t ptd_session_pt_bytes(struct ptd_session *s);
/* The PT kept for the selected thread (format pt): a pointer valid until
 * the program runs again, and its size in *@size; NULL when there is none. */
const uint8_t *ptd_session_pt_data(struct ptd_session *s, size_t *size);
int ptd_session_recording(const struct ptd_session *s);
int ptd_session_record_info(struct ptd_session *s, struct ptd_record_info *out);

/*
 * Trace bundles (docs/bundle.md).  ptd_session_save() writes the current
 * recording (trace format pt) with the mappings and code it needs;
 * ptd_session_load() opens one offline: no process, the history commands,
 * record goto and reverse/forward stepping inside the history work.
 */
int ptd_session_save(struct ptd_session *s, const char *dir);
int ptd_session_load(struct ptd_session *s, const char *dir);
/* Writes the recording as a perf.data that perf's Intel PT decoder reads
 * (src/decode/perfdata.h); ptd_session_load() opens one too. */
int ptd_session_save_perf_data(struct ptd_session *s, const char *file);
int ptd_session_offline(const struct ptd_session *s);
/* Returns 0, or -ptde_bad_trace when a loaded bundle's PT file was
 * truncated by another process while loaded (ptd_bundle_check()). */
int ptd_session_check_trace(const struct ptd_session *s);
/* A loaded bundle's main executable (its first ELF mapping, resolved), or
 * NULL (no bundle, no ELF file). */
const char *ptd_session_offline_exe(struct ptd_session *s);

/* Execution, forward or reverse (reverse needs a recording). */
int ptd_session_motion(struct ptd_session *s, enum ptd_motion m, int reverse, struct ptd_event *ev);
/* record goto: "begin", "start", "end", or an instruction number. */
int ptd_session_goto(struct ptd_session *s, const char *where, struct ptd_event *ev);
/* Informational messages while a motion runs (gdb's "process N is
 * executing new program: PATH"); @fn may be NULL. */
void ptd_session_set_notify(struct ptd_session *s, void (*fn)(void *ctx, const char *msg), void *ctx);
/* Requests the running motion to stop (async-signal-safe). */
void ptd_session_interrupt(struct ptd_session *s);

int ptd_session_replaying(const struct ptd_session *s);
/* Current position and item count of the selected thread's history. */
int ptd_session_position(struct ptd_session *s, uint64_t *pos, uint64_t *count);
const struct ptd_history *ptd_session_history(struct ptd_session *s);
/* Function-call segments of the selected thread (built on demand). */
const struct ptd_calls *ptd_session_calls(struct ptd_session *s);

/* State at the current position (live or replayed). */
int ptd_session_pc(struct ptd_session *s, uint64_t *pc);
/* All registers when live, and while replaying a soft recording at an
 * instruction where it trapped; elsewhere in the past only rip is valid
 * (*pc_only = 1). */
int ptd_session_regs(struct ptd_session *s, struct user_regs_struct *r, int *pc_only);
/* Memory is always the live memory (say so when replaying). */
long ptd_session_read(struct ptd_session *s, uint64_t addr, void *buf, size_t n);
/* Backtrace: live via libunwind, replaying from the call history. */
int ptd_session_backtrace(struct ptd_session *s, uint64_t *pcs, int max);

struct ptd_symbols *ptd_session_symbols(struct ptd_session *s);
struct ptd_target *ptd_session_target(struct ptd_session *s);

int ptd_session_threads(struct ptd_session *s, struct ptd_thread_info *out, int max);
int ptd_session_select_thread(struct ptd_session *s, int num);
/* gdb's scheduler-locking: while on, live motions resume only the selected
 * thread, the others stay stopped (gdb's remote vCont;s:TID steps one
 * thread so). */
void ptd_session_set_scheduler_locking(struct ptd_session *s, int on);

#endif
