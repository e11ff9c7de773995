/*
 * The stub's insides, shared by its files: stub.c (dispatch, stop
 * replies, resuming, threads, extended-remote), stub_regs.c (registers
 * and memory), stub_break.c (Z/z: software and hardware breakpoints,
 * watchpoints) and stub_xfer.c (qXfer documents, gdb's branch trace).
 * Only the public API (ptdbg/ptdbg.h) and the framing (gdb/rsp.h) are
 * used: the stub is a front end of the library like the shell.
 */
#ifndef PTD_GDB_STUB_INT_H
#define PTD_GDB_STUB_INT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "gdb/rsp.h"
#include "gdb/stub.h"
#include "ptdbg/ptdbg.h"

/*
 * A hardware breakpoint or watchpoint gdb inserted (Z1-Z4): @type is the
 * Z packet's, the region is split into aligned pieces, one debug-register
 * slot each (@slots).  For Z3 (read) the slots watch accesses and @val
 * keeps the bytes last seen: an access that changed them was a write.
 */
struct zhw {
	int type;
	uint64_t addr, len;
	int refs;
	unsigned slots;
	uint8_t val[32];
};

/* A software breakpoint gdb inserted (Z0), kept as a session breakpoint. */
struct zbp {
	uint64_t addr;
	int id;	  /* session breakpoint id */
	int refs; /* gdb may insert one address more than once */
};

/* files gdb may hold open at once through vFile:open */
#define PTD__STUB_FILES 32

struct ptd_stub {
	struct ptd_session *s;
	int attached;
	pid_t pid;
	pid_t g_tid; /* Hg: registers and memory (0: the session's thread) */
	pid_t c_tid; /* Hc: resumes (0, -1: the session's thread) */
	struct zbp *bp;
	int nbp, capbp;
	/* the resume ptd_stub_packet() accepted */
	int res_pending;
	enum ptd_motion res_motion;
	int res_reverse;
	pid_t res_tid;	   /* thread to move (0: the current one) */
	int res_only_stop; /* vCont;t: nothing runs */
	int res_lock;	   /* only res_tid runs (vCont with no default action) */
	/* the last stop */
	struct ptd_rsp_buf last;
	pid_t sig_tid; /* the thread whose signal gdb was last told about */
	int gone;      /* the process exited, was killed or detached */
	/* gdb's branch trace (Qbtrace): the format it asked for, and the
	 * document qXfer:btrace:read serves in pieces (made at offset 0) */
	int extended;	/* '!': the connection outlives the process (vRun, vAttach) */
	int exec_events; /* gdb's qSupported asked for exec-events */
	int rec_method; /* record programs vRun starts with this method (-1: no) */
	int btrace;	/* 0 off, 1 bts, 2 pt */
	int btrace_rec; /* Qbtrace started the recording (Qbtrace:off stops it) */
	uint64_t bts_size, pt_size;
	struct ptd_rsp_buf doc;
	/* the thread list being sent (qfThreadInfo, qsThreadInfo) */
	pid_t *thr;
	int nthr, capthr, thr_next;
	/* hardware breakpoints and watchpoints gdb inserted (Z1-Z4) */
	struct zhw hw[PTD_HW_SLOTS];
	int nhw;
	/* host I/O (vFile): the files gdb has open (-1: free), and the
	 * process whose file system names are seen in (0: the stub's) */
	int files[PTD__STUB_FILES];
	pid_t fs_pid;
};

typedef int (*ptd__stub_handler)(struct ptd_stub *st, char *p, size_t n, struct ptd_rsp_buf *out);

enum { PTD__STUB_EXACT, PTD__STUB_PREFIX, PTD__STUB_ARGS /* name then ':' or ';' or the end */ };

/* One row of a packet table; a table ends with a NULL name.  Longer
 * names first where one is a prefix of another (vCont? / vCont;). */
struct ptd__stub_packet {
	const char *name;
	int match;
	ptd__stub_handler fn;
};

extern const struct ptd__stub_packet ptd__stub_regs_packets[];  /* g G p P m M X */
extern const struct ptd__stub_packet ptd__stub_break_packets[]; /* Z z */
extern const struct ptd__stub_packet ptd__stub_xfer_packets[];  /* qXfer, Qbtrace, host */
extern const struct ptd__stub_packet ptd__stub_file_packets[];  /* vFile (host I/O) */

/* stub_file.c: no files open; close those gdb left open. */
void ptd__stub_files_init(struct ptd_stub *st);
void ptd__stub_files_close(struct ptd_stub *st);

/* Small parsers (the input is untrusted): 0 or -1. */
int ptd__stub_parse_hex(const char **p, const char *end, uint64_t *out);
int ptd__stub_expect(const char **p, const char *end, char c);
int ptd__stub_parse_tid(const struct ptd_stub *st, const char **p, const char *end, pid_t *tid);
/* "ADDR,LEN" */
int ptd__stub_addr_len(const char **q, const char *end, uint64_t *addr, uint64_t *len);
/* Replaces @out with "E NN". */
void ptd__stub_reply_err(struct ptd_rsp_buf *out, int code);

/* The program is there (not exited, killed or detached). */
int ptd__stub_live(struct ptd_stub *st);
/* The session's threads (malloc'ed, *@n of them), or NULL. */
struct ptd_thread_info *ptd__stub_threads(struct ptd_stub *st, int *n);
pid_t ptd__stub_current_tid(struct ptd_stub *st);
/* Makes @tid the selected thread (0, -1: keep); 0 or -1 (no such thread). */
int ptd__stub_select_tid(struct ptd_stub *st, pid_t tid);

/* stub_break.c: the stop reply's reason for a debug-register stop
 * ("watch:ADDR;", "hwbreak:;"...) appended to @out; forgetting every
 * breakpoint when the process is gone. */
void ptd__stub_hw_reason(struct ptd_stub *st, const struct ptd_event *ev, struct ptd_rsp_buf *out);
/* At a debug-register stop: nonzero when every slot that triggered
 * belongs to a read watchpoint (Z3) whose bytes changed: that access was
 * a write, the motion goes on (gdb's rwatch does not stop at writes). */
int ptd__stub_hw_only_writes(struct ptd_stub *st, const struct ptd_event *ev);
/* Takes the bytes Z3 compares anew (before the program runs: gdb may have
 * written them). */
void ptd__stub_hw_refresh(struct ptd_stub *st);
void ptd__stub_break_forget(struct ptd_stub *st);
/* After an exec: takes every breakpoint and watchpoint out of the session
 * (gdb takes them as gone with the old program and inserts them again). */
void ptd__stub_break_exec(struct ptd_stub *st);

#endif
