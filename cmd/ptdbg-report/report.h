/*
 * ptdbg-report's pieces: the options and triggers (main.c), the report
 * model that collapses a history into a story (collapse.c: the call tree
 * with repeated subtrees folded, source lines with loops folded, branch
 * decisions, gaps), and the writers (text.c, json.c, pictures.c for
 * Perfetto, folded stacks and SVG).  Everything reads the session through
 * its interface; nothing here steps or walks a history on its own beyond
 * cursors over what the library recorded.
 */
#ifndef PTDBG_REPORT_H
#define PTDBG_REPORT_H

#include <signal.h>
#include <stdint.h>
#include <stdio.h>

#include "../ptdbg/print.h"
#include "ptdbg/ptdbg.h"

enum rep_format { RF_TEXT, RF_JSON, RF_PERFETTO, RF_FOLDED, RF_SVG };

struct opts {
	const char *method;
	const char *trace_format;
	const char *from;
	const char *until;
	const char *at;	  /* --at LOCATION (without :N) */
	unsigned at_n;	  /* the Nth hit of --at (1: the first) */
	int on_exit;	  /* --on-exit */
	int on_signal;	  /* --on-signal SIG: 0 when not given */
	unsigned timeout; /* --timeout S, 0: none */
	int threads_all;  /* --threads all */
	int colour;	  /* --color: -1 auto (a tty), 0 never, 1 always */
	enum rep_format format;
	const char *output;
	int ncalls;
	int ninsns;
	int nlines;
	int nbranches;
	pid_t pid;
	int quiet;
	int no_pin;
	const char *load;	 /* --load: a trace bundle or perf.data, no program */
	const char *buffer_size; /* --buffer-size: the recorder's bound per thread */
};

/* What made the report. */
enum rep_trigger {
	TRIG_CRASH,	/* a signal stopped the program (the default trigger) */
	TRIG_UNTIL,	/* --until */
	TRIG_AT,	/* --at LOCATION[:N] */
	TRIG_EXIT,	/* the program is about to exit (--on-exit, or no trigger given) */
	TRIG_SIGNAL,	/* ptdbg-report got --on-signal's signal (or SIGINT) */
	TRIG_TIMEOUT,	/* --timeout */
	TRIG_NONE,	/* no trigger fired: the program ended first */
	TRIG_TRACE_END, /* --load: the end of the recorded trace */
};

/* The program's state when the report was taken. */
enum rep_prog_state {
	PROG_CRASHED, /* stopped by a signal that ends it */
	PROG_EXITING, /* about to exit with code */
	PROG_EXITED,  /* gone: exited with code (history kept) */
	PROG_KILLED,  /* gone: killed by signo */
	PROG_RUNNING, /* still running (snapshot): killed after the report if
		       * launched, detached and left running if attached */
	PROG_NONE,    /* --load: no program */
};

struct rep {
	FILE *out;
	struct ptd_session *s;
	struct ptd_symbols *sym;
	const struct opts *o;
	struct ptd_event ev;
	enum rep_trigger trig;
	int trig_signo; /* TRIG_SIGNAL: the signal ptdbg-report got */
	int have_si;	/* si: the stop's siginfo */
	struct ptd_stop_siginfo si;
	const char *program;
	int attached;
	enum rep_prog_state prog;
	int prog_code; /* exit code, or signal number (PROG_CRASHED, PROG_KILLED) */
	double secs;
	int colour;
	int cur_thread;		/* the stopped thread's number */
	int all_threads;	/* threads the program has */
	char main_module[4096]; /* realpath of the program (frames in it get no "from") */
	int nthreads;		/* threads reported, numbers in thread_nums */
	int thread_nums[256];
	pid_t thread_tids[256];
};

/* ---- collapse.c: the report model ---------------------------------------- */

struct loc {
	const char *func; /* symbol name (no @@VERSION), or NULL */
	uint64_t off;
	const char *file; /* display name, or NULL */
	const char *path; /* the file as the debug info names it (to read it) */
	int line;
};
void rep_locate(struct ptd_symbols *sym, uint64_t pc, struct loc *l);

/*
 * One function call (all segments of one activation) in the call tree.
 * first/last: its own first and last instruction numbers; start/end: the
 * span including everything it called (what nests in a timeline).
 */
struct rnode {
	uint64_t ip;	  /* entry: the first segment's first instruction */
	uint64_t last_ip; /* ip of its last own instruction (0: not looked up) */
	uint64_t first, last;
	uint64_t start, end;
	uint64_t self;	   /* instructions executed in its own segments */
	uint64_t instance; /* ptd_callseg.instance */
	uint64_t nsegs;
	int level;     /* depth in the tree (0: a root) */
	int seg_level; /* normalised segment level */
	int is_gap;
	int gap_reason;
	uint64_t gap_arg;
	const char *gap_detail;
	int parent, first_child, last_child, next; /* indices, -1: none */
	/* folding (rtree_fold): this node stands for @count equal siblings
	 * (itself and the @count - 1 after it, marked @folded) */
	unsigned count;
	int folded;
	uint64_t sig;
	const char *name; /* "??" when unknown */
};

struct rtree {
	struct rnode *n;
	int count, cap;
	int first_root, last_root;
	uint64_t nsegs; /* segments read */
};

/* Builds the tree of segments @from..@to (1-based, inclusive) of @calls. */
int rtree_build(struct rtree *t, struct ptd_session *s, const struct ptd_calls *calls,
		uint64_t from, uint64_t to);
void rtree_free(struct rtree *t);
/* Folds runs of equal sibling subtrees into one with a count. */
void rtree_fold(struct rtree *t);
/* The ip of @n's last own instruction (looked up once). */
uint64_t rtree_last_ip(struct rtree *t, int i, const struct ptd_history *h);

/* One entry of the collapsed source lines: a line, or a loop of @period
 * lines repeated @count times. */
struct rline {
	uint64_t pcs[16];    /* one pc per line of the entry, oldest first */
	int period;	     /* lines in the entry */
	unsigned long count; /* times in a row (1: not a loop) */
};
/* The last @max collapsed entries of the selected thread, oldest first;
 * returns how many, or <0.  *@scanned: instructions looked at. */
int rep_lines(struct ptd_session *s, struct rline *out, int max, uint64_t *scanned);
/* The last plain source lines (the first instruction of each run). */
int rep_plain_lines(struct ptd_session *s, uint64_t *pcs, int max);

struct rbranch {
	uint64_t number;
	uint64_t pc;
	int taken;
};
int rep_branches(struct ptd_session *s, struct rbranch *out, int max);

struct rgap {
	uint64_t number;
	int reason;
	uint64_t arg;
	const char *detail;
};
/* Gaps of the selected thread, up to @max; returns the total count. */
int rep_gaps(struct ptd_session *s, struct rgap *out, int max);

/* Instructions of the selected thread: numbered items minus the gaps and
 * the tail. */
uint64_t rep_ninsn(struct ptd_session *s);

const char *rep_trigger_name(enum rep_trigger t);
const char *rep_prog_state_name(enum rep_prog_state p);
/* Names of si_code for the signal (SEGV_MAPERR ...), and its meaning. */
const char *rep_si_code_name(int signo, int code, const char **desc);
int rep_si_has_addr(int signo);
/* "Program received signal ..." and the like. */
const char *rep_stop_text(const struct rep *r, char *buf, size_t n);

/* Selects thread @num for the per-thread sections; restores with the
 * current thread's number. */
int rep_select(struct rep *r, int num);

/* ---- writers --------------------------------------------------------------- */
void rep_text(struct rep *r);
void rep_json(struct rep *r);
void rep_perfetto(struct rep *r);
void rep_folded(struct rep *r);
void rep_svg(struct rep *r);

/* JSON string and small helpers shared by the JSON-speaking writers. */
void rep_json_str(FILE *f, const char *s);
long rep_read_mem(void *ctx, uint64_t addr, void *buf, size_t n);

#endif
