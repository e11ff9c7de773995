/*
 * The gdb stub (see stub.h): one handler per packet, chosen by a const
 * table, each turning a packet into session calls and the answer into a
 * reply payload.  Registers follow the amd64 target description served
 * by qXfer:features:read (the layout of gdbserver's amd64-linux without
 * AVX); registers ptdbg does not know (all but rip in most of the past,
 * x87 and SSE in all of it) are sent as 'x' bytes, gdb's "unavailable".
 */
#include "gdb/stub.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/user.h>
#include <unistd.h>

#include "decode/bundle.h"
#include "session/session.h"
#include "target/target.h"
#include "util/error.h"

struct zbp {
	uint64_t addr;
	int id;	  /* session breakpoint id */
	int refs; /* gdb may insert one address more than once */
};

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
	int rec_method; /* record programs vRun starts with this method (-1: no) */
	int btrace;	/* 0 off, 1 bts, 2 pt */
	uint64_t bts_size, pt_size;
	struct ptd_rsp_buf doc;
	/* the thread list being sent (qfThreadInfo, qsThreadInfo) */
	pid_t *thr;
	int nthr, capthr, thr_next;
};

/* ---- signals -------------------------------------------------------------------------- */

/* Linux signal -> gdb's enum gdb_signal, for 1..31 (0: none). */
static const unsigned char gdb_sig_of[32] = {
	[SIGHUP] = 1,	[SIGINT] = 2,	 [SIGQUIT] = 3,	 [SIGILL] = 4,	 [SIGTRAP] = 5,
	[SIGABRT] = 6,	[SIGBUS] = 10,	 [SIGFPE] = 8,	 [SIGKILL] = 9,	 [SIGUSR1] = 30,
	[SIGSEGV] = 11, [SIGUSR2] = 31,	 [SIGPIPE] = 13, [SIGALRM] = 14, [SIGTERM] = 15,
	[SIGCHLD] = 20, [SIGCONT] = 19,	 [SIGSTOP] = 17, [SIGTSTP] = 18, [SIGTTIN] = 21,
	[SIGTTOU] = 22, [SIGURG] = 16,	 [SIGXCPU] = 24, [SIGXFSZ] = 25, [SIGVTALRM] = 26,
	[SIGPROF] = 27, [SIGWINCH] = 28, [SIGIO] = 23,	 [SIGPWR] = 32,	 [SIGSYS] = 12,
};

int ptd_stub_gdb_signal(int sig)
{
	if (sig > 0 && sig < 32)
		return gdb_sig_of[sig];
	/* gdb: REALTIME_33..63 are 45..75, REALTIME_32 is 77, 64 is 78 */
	if (sig == 32)
		return 77;
	if (sig >= 33 && sig <= 63)
		return 45 + sig - 33;
	if (sig == 64)
		return 78;
	return 0;
}

int ptd_stub_linux_signal(int g)
{
	if (g <= 0)
		return 0;
	for (int i = 1; i < 32; i++)
		if (gdb_sig_of[i] == g)
			return i;
	if (g == 77)
		return 32;
	if (g >= 45 && g <= 75)
		return 33 + g - 45;
	if (g == 78)
		return 64;
	return 0;
}

/* ---- registers ------------------------------------------------------------------------ */

#define NOREG (-1)
#define R(f) offsetof(struct user_regs_struct, f)

struct regdesc {
	const char *name;
	int size;   /* bytes in the g packet */
	int offset; /* in struct user_regs_struct, or NOREG (unavailable) */
};

/* In the order (and with the numbers) of the target description below. */
static const struct regdesc regs[] = {
	{"rax", 8, R(rax)},	    {"rbx", 8, R(rbx)},
	{"rcx", 8, R(rcx)},	    {"rdx", 8, R(rdx)},
	{"rsi", 8, R(rsi)},	    {"rdi", 8, R(rdi)},
	{"rbp", 8, R(rbp)},	    {"rsp", 8, R(rsp)},
	{"r8", 8, R(r8)},	    {"r9", 8, R(r9)},
	{"r10", 8, R(r10)},	    {"r11", 8, R(r11)},
	{"r12", 8, R(r12)},	    {"r13", 8, R(r13)},
	{"r14", 8, R(r14)},	    {"r15", 8, R(r15)},
	{"rip", 8, R(rip)},	    {"eflags", 4, R(eflags)},
	{"cs", 4, R(cs)},	    {"ss", 4, R(ss)},
	{"ds", 4, R(ds)},	    {"es", 4, R(es)},
	{"fs", 4, R(fs)},	    {"gs", 4, R(gs)},
	{"st0", 10, NOREG},	    {"st1", 10, NOREG},
	{"st2", 10, NOREG},	    {"st3", 10, NOREG},
	{"st4", 10, NOREG},	    {"st5", 10, NOREG},
	{"st6", 10, NOREG},	    {"st7", 10, NOREG},
	{"fctrl", 4, NOREG},	    {"fstat", 4, NOREG},
	{"ftag", 4, NOREG},	    {"fiseg", 4, NOREG},
	{"fioff", 4, NOREG},	    {"foseg", 4, NOREG},
	{"fooff", 4, NOREG},	    {"fop", 4, NOREG},
	{"xmm0", 16, NOREG},	    {"xmm1", 16, NOREG},
	{"xmm2", 16, NOREG},	    {"xmm3", 16, NOREG},
	{"xmm4", 16, NOREG},	    {"xmm5", 16, NOREG},
	{"xmm6", 16, NOREG},	    {"xmm7", 16, NOREG},
	{"xmm8", 16, NOREG},	    {"xmm9", 16, NOREG},
	{"xmm10", 16, NOREG},	    {"xmm11", 16, NOREG},
	{"xmm12", 16, NOREG},	    {"xmm13", 16, NOREG},
	{"xmm14", 16, NOREG},	    {"xmm15", 16, NOREG},
	{"mxcsr", 4, NOREG},	    {"orig_rax", 8, R(orig_rax)},
	{"fs_base", 8, R(fs_base)}, {"gs_base", 8, R(gs_base)},
};
#define NREGS ((int)(sizeof(regs) / sizeof(regs[0])))
#define RIP_REGNUM 16

/* gdb's features/i386/64bit-{core,sse,linux,segments}.xml in one
 * document: gdb checks the feature names and register names. */
static const char target_xml[] =
	"<?xml version=\"1.0\"?>\n"
	"<!DOCTYPE target SYSTEM \"gdb-target.dtd\">\n"
	"<target version=\"1.0\">\n"
	"<architecture>i386:x86-64</architecture>\n"
	"<osabi>GNU/Linux</osabi>\n"
	"<feature name=\"org.gnu.gdb.i386.core\">\n"
	"<flags id=\"i386_eflags\" size=\"4\">\n"
	"<field name=\"CF\" start=\"0\" end=\"0\"/><field name=\"\" start=\"1\" end=\"1\"/>\n"
	"<field name=\"PF\" start=\"2\" end=\"2\"/><field name=\"AF\" start=\"4\" end=\"4\"/>\n"
	"<field name=\"ZF\" start=\"6\" end=\"6\"/><field name=\"SF\" start=\"7\" end=\"7\"/>\n"
	"<field name=\"TF\" start=\"8\" end=\"8\"/><field name=\"IF\" start=\"9\" end=\"9\"/>\n"
	"<field name=\"DF\" start=\"10\" end=\"10\"/><field name=\"OF\" start=\"11\" end=\"11\"/>\n"
	"<field name=\"NT\" start=\"14\" end=\"14\"/><field name=\"RF\" start=\"16\" end=\"16\"/>\n"
	"<field name=\"VM\" start=\"17\" end=\"17\"/><field name=\"AC\" start=\"18\" end=\"18\"/>\n"
	"<field name=\"VIF\" start=\"19\" end=\"19\"/><field name=\"VIP\" start=\"20\" "
	"end=\"20\"/>\n"
	"<field name=\"ID\" start=\"21\" end=\"21\"/>\n"
	"</flags>\n"
	"<reg name=\"rax\" bitsize=\"64\" type=\"int64\" regnum=\"0\"/>\n"
	"<reg name=\"rbx\" bitsize=\"64\" type=\"int64\"/>\n"
	"<reg name=\"rcx\" bitsize=\"64\" type=\"int64\"/>\n"
	"<reg name=\"rdx\" bitsize=\"64\" type=\"int64\"/>\n"
	"<reg name=\"rsi\" bitsize=\"64\" type=\"int64\"/>\n"
	"<reg name=\"rdi\" bitsize=\"64\" type=\"int64\"/>\n"
	"<reg name=\"rbp\" bitsize=\"64\" type=\"data_ptr\"/>\n"
	"<reg name=\"rsp\" bitsize=\"64\" type=\"data_ptr\"/>\n"
	"<reg name=\"r8\" bitsize=\"64\" type=\"int64\"/>\n"
	"<reg name=\"r9\" bitsize=\"64\" type=\"int64\"/>\n"
	"<reg name=\"r10\" bitsize=\"64\" type=\"int64\"/>\n"
	"<reg name=\"r11\" bitsize=\"64\" type=\"int64\"/>\n"
	"<reg name=\"r12\" bitsize=\"64\" type=\"int64\"/>\n"
	"<reg name=\"r13\" bitsize=\"64\" type=\"int64\"/>\n"
	"<reg name=\"r14\" bitsize=\"64\" type=\"int64\"/>\n"
	"<reg name=\"r15\" bitsize=\"64\" type=\"int64\"/>\n"
	"<reg name=\"rip\" bitsize=\"64\" type=\"code_ptr\"/>\n"
	"<reg name=\"eflags\" bitsize=\"32\" type=\"i386_eflags\"/>\n"
	"<reg name=\"cs\" bitsize=\"32\" type=\"int32\"/>\n"
	"<reg name=\"ss\" bitsize=\"32\" type=\"int32\"/>\n"
	"<reg name=\"ds\" bitsize=\"32\" type=\"int32\"/>\n"
	"<reg name=\"es\" bitsize=\"32\" type=\"int32\"/>\n"
	"<reg name=\"fs\" bitsize=\"32\" type=\"int32\"/>\n"
	"<reg name=\"gs\" bitsize=\"32\" type=\"int32\"/>\n"
	"<reg name=\"st0\" bitsize=\"80\" type=\"i387_ext\"/>\n"
	"<reg name=\"st1\" bitsize=\"80\" type=\"i387_ext\"/>\n"
	"<reg name=\"st2\" bitsize=\"80\" type=\"i387_ext\"/>\n"
	"<reg name=\"st3\" bitsize=\"80\" type=\"i387_ext\"/>\n"
	"<reg name=\"st4\" bitsize=\"80\" type=\"i387_ext\"/>\n"
	"<reg name=\"st5\" bitsize=\"80\" type=\"i387_ext\"/>\n"
	"<reg name=\"st6\" bitsize=\"80\" type=\"i387_ext\"/>\n"
	"<reg name=\"st7\" bitsize=\"80\" type=\"i387_ext\"/>\n"
	"<reg name=\"fctrl\" bitsize=\"32\" type=\"int\" group=\"float\"/>\n"
	"<reg name=\"fstat\" bitsize=\"32\" type=\"int\" group=\"float\"/>\n"
	"<reg name=\"ftag\" bitsize=\"32\" type=\"int\" group=\"float\"/>\n"
	"<reg name=\"fiseg\" bitsize=\"32\" type=\"int\" group=\"float\"/>\n"
	"<reg name=\"fioff\" bitsize=\"32\" type=\"int\" group=\"float\"/>\n"
	"<reg name=\"foseg\" bitsize=\"32\" type=\"int\" group=\"float\"/>\n"
	"<reg name=\"fooff\" bitsize=\"32\" type=\"int\" group=\"float\"/>\n"
	"<reg name=\"fop\" bitsize=\"32\" type=\"int\" group=\"float\"/>\n"
	"</feature>\n"
	"<feature name=\"org.gnu.gdb.i386.sse\">\n"
	"<vector id=\"v4f\" type=\"ieee_single\" count=\"4\"/>\n"
	"<vector id=\"v2d\" type=\"ieee_double\" count=\"2\"/>\n"
	"<vector id=\"v16i8\" type=\"int8\" count=\"16\"/>\n"
	"<vector id=\"v8i16\" type=\"int16\" count=\"8\"/>\n"
	"<vector id=\"v4i32\" type=\"int32\" count=\"4\"/>\n"
	"<vector id=\"v2i64\" type=\"int64\" count=\"2\"/>\n"
	"<union id=\"vec128\">\n"
	"<field name=\"v4_float\" type=\"v4f\"/><field name=\"v2_double\" type=\"v2d\"/>\n"
	"<field name=\"v16_int8\" type=\"v16i8\"/><field name=\"v8_int16\" type=\"v8i16\"/>\n"
	"<field name=\"v4_int32\" type=\"v4i32\"/><field name=\"v2_int64\" type=\"v2i64\"/>\n"
	"<field name=\"uint128\" type=\"uint128\"/>\n"
	"</union>\n"
	"<flags id=\"i386_mxcsr\" size=\"4\">\n"
	"<field name=\"IE\" start=\"0\" end=\"0\"/><field name=\"DE\" start=\"1\" end=\"1\"/>\n"
	"<field name=\"ZE\" start=\"2\" end=\"2\"/><field name=\"OE\" start=\"3\" end=\"3\"/>\n"
	"<field name=\"UE\" start=\"4\" end=\"4\"/><field name=\"PE\" start=\"5\" end=\"5\"/>\n"
	"<field name=\"DAZ\" start=\"6\" end=\"6\"/><field name=\"IM\" start=\"7\" end=\"7\"/>\n"
	"<field name=\"DM\" start=\"8\" end=\"8\"/><field name=\"ZM\" start=\"9\" end=\"9\"/>\n"
	"<field name=\"OM\" start=\"10\" end=\"10\"/><field name=\"UM\" start=\"11\" end=\"11\"/>\n"
	"<field name=\"PM\" start=\"12\" end=\"12\"/><field name=\"FZ\" start=\"15\" end=\"15\"/>\n"
	"</flags>\n"
	"<reg name=\"xmm0\" bitsize=\"128\" type=\"vec128\" regnum=\"40\"/>\n"
	"<reg name=\"xmm1\" bitsize=\"128\" type=\"vec128\"/>\n"
	"<reg name=\"xmm2\" bitsize=\"128\" type=\"vec128\"/>\n"
	"<reg name=\"xmm3\" bitsize=\"128\" type=\"vec128\"/>\n"
	"<reg name=\"xmm4\" bitsize=\"128\" type=\"vec128\"/>\n"
	"<reg name=\"xmm5\" bitsize=\"128\" type=\"vec128\"/>\n"
	"<reg name=\"xmm6\" bitsize=\"128\" type=\"vec128\"/>\n"
	"<reg name=\"xmm7\" bitsize=\"128\" type=\"vec128\"/>\n"
	"<reg name=\"xmm8\" bitsize=\"128\" type=\"vec128\"/>\n"
	"<reg name=\"xmm9\" bitsize=\"128\" type=\"vec128\"/>\n"
	"<reg name=\"xmm10\" bitsize=\"128\" type=\"vec128\"/>\n"
	"<reg name=\"xmm11\" bitsize=\"128\" type=\"vec128\"/>\n"
	"<reg name=\"xmm12\" bitsize=\"128\" type=\"vec128\"/>\n"
	"<reg name=\"xmm13\" bitsize=\"128\" type=\"vec128\"/>\n"
	"<reg name=\"xmm14\" bitsize=\"128\" type=\"vec128\"/>\n"
	"<reg name=\"xmm15\" bitsize=\"128\" type=\"vec128\"/>\n"
	"<reg name=\"mxcsr\" bitsize=\"32\" type=\"i386_mxcsr\" group=\"vector\"/>\n"
	"</feature>\n"
	"<feature name=\"org.gnu.gdb.i386.linux\">\n"
	"<reg name=\"orig_rax\" bitsize=\"64\" type=\"int\" regnum=\"57\"/>\n"
	"</feature>\n"
	"<feature name=\"org.gnu.gdb.i386.segments\">\n"
	"<reg name=\"fs_base\" bitsize=\"64\" type=\"int\"/>\n"
	"<reg name=\"gs_base\" bitsize=\"64\" type=\"int\"/>\n"
	"</feature>\n"
	"</target>\n";

/* ---- small parsers (the input is untrusted) ------------------------------------------------- */

/* A hex number at *@p (before @end): at least one digit, no overflow. */
static int parse_hex(const char **p, const char *end, uint64_t *out)
{
	uint64_t v = 0;
	int n = 0, d;

	while (*p < end && (d = ptd_rsp_hexval((unsigned char)**p)) >= 0) {
		if (v >> 60)
			return -1;
		v = v << 4 | (uint64_t)d;
		(*p)++;
		n++;
	}
	if (!n)
		return -1;
	*out = v;
	return 0;
}

static int expect(const char **p, const char *end, char c)
{
	if (*p >= end || **p != c)
		return -1;
	(*p)++;
	return 0;
}

/*
 * A thread id: "p<pid>.<tid>", "p<pid>", "<tid>", "-1" (all) or "0"
 * (any).  *@tid gets the tid, -1 or 0.
 */
static int parse_tid(const char **p, const char *end, pid_t *tid)
{
	uint64_t v;

	if (*p < end && **p == 'p') {
		(*p)++;
		if (end - *p >= 2 && (*p)[0] == '-' && (*p)[1] == '1')
			*p += 2;
		else if (parse_hex(p, end, &v) < 0)
			return -1;
		if (*p >= end || **p != '.') {
			*tid = -1; /* every thread of the process */
			return 0;
		}
		(*p)++;
	}
	if (end - *p >= 2 && (*p)[0] == '-' && (*p)[1] == '1') {
		*p += 2;
		*tid = -1;
		return 0;
	}
	if (parse_hex(p, end, &v) < 0 || v > INT_MAX)
		return -1;
	*tid = (pid_t)v;
	return 0;
}

static void reply_err(struct ptd_rsp_buf *out, int code)
{
	ptd_rsp_buf_reset(out);
	ptd_rsp_printf(out, "E%02x", code & 0xff);
}

/* ---- threads ------------------------------------------------------------------------------ */

/* The session's threads (malloc'ed, *@n of them), or NULL. */
static struct ptd_thread_info *threads(struct ptd_stub *st, int *n)
{
	struct ptd_thread_info *ti;
	int k = ptd_session_threads(st->s, NULL, 0);

	*n = 0;
	if (k <= 0)
		return NULL;
	ti = calloc((size_t)k, sizeof(*ti));
	if (!ti)
		return NULL;
	*n = ptd_session_threads(st->s, ti, k);
	if (*n > k)
		*n = k;
	return ti;
}

static pid_t current_tid(struct ptd_stub *st)
{
	int n;
	pid_t tid = 0;
	struct ptd_thread_info *ti = threads(st, &n);

	for (int i = 0; i < n; i++)
		if (ti[i].current)
			tid = ti[i].tid;
	free(ti);
	return tid;
}

/* Makes @tid the session's selected thread (0, -1: keep the current).
 * Returns 0, or -1 when there is no such thread. */
static int select_tid(struct ptd_stub *st, pid_t tid)
{
	int n, rc = -1;
	struct ptd_thread_info *ti;

	if (tid <= 0)
		return 0;
	ti = threads(st, &n);
	for (int i = 0; i < n; i++)
		if (ti[i].tid == tid)
			rc = ptd_session_select_thread(st->s, ti[i].num) < 0 ? -1 : 0;
	free(ti);
	return rc;
}

static int live(struct ptd_stub *st)
{
	return !st->gone && ptd_session_alive(st->s);
}

/* ---- stop replies ------------------------------------------------------------------------- */

static void put_thread(struct ptd_stub *st, struct ptd_rsp_buf *out, pid_t tid)
{
	ptd_rsp_printf(out, "thread:p%x.%x;", (unsigned)st->pid, (unsigned)tid);
}

/* A continue through the history that ends at the live pc reports the
 * breakpoint there as a completed motion: gdb is told it hit it. */
static int at_breakpoint(struct ptd_stub *st, uint64_t pc)
{
	for (int i = 0; i < st->nbp; i++)
		if (st->bp[i].addr == pc)
			return 1;
	return 0;
}

static void stop_reply(struct ptd_stub *st, const struct ptd_event *ev, struct ptd_rsp_buf *out)
{
	pid_t tid = ev->tid > 0 ? ev->tid : current_tid(st);
	int sig = 5;

	ptd_rsp_buf_reset(out);
	switch (ev->kind) {
	case PTD_EVENT_EXITED:
		ptd_rsp_printf(out, "W%02x", ev->exit_code & 0xff);
		if (st->pid)
			ptd_rsp_printf(out, ";process:%x", (unsigned)st->pid);
		st->gone = 1;
		return;
	case PTD_EVENT_KILLED:
		ptd_rsp_printf(out, "X%02x;process:%x", ptd_stub_gdb_signal(ev->signo) & 0xff,
			       (unsigned)st->pid);
		st->gone = 1;
		return;
	case PTD_EVENT_SIGNAL:
		sig = ptd_stub_gdb_signal(ev->signo);
		st->sig_tid = tid;
		break;
	case PTD_EVENT_INTERRUPTED:
		sig = 2;
		break;
	default:
		break;
	}
	ptd_rsp_printf(out, "T%02x", sig & 0xff);
	put_thread(st, out, tid);
	if (ev->kind == PTD_EVENT_BREAKPOINT ||
	    (ev->kind == PTD_EVENT_STEPPED && st->res_motion == PTD_MOTION_CONTINUE &&
	     at_breakpoint(st, ev->pc)))
		ptd_rsp_puts(out, "swbreak:;");
	if (ev->kind == PTD_EVENT_NO_HISTORY)
		ptd_rsp_puts(out, ev->replaying || st->res_reverse ? "replaylog:begin;"
								   : "replaylog:end;");
	/* After a stop gdb takes the event thread as the one its next
	 * register reads are about, as gdbserver does. */
	st->g_tid = st->c_tid = tid;
}

void ptd_stub_last_stop(struct ptd_stub *st, struct ptd_rsp_buf *reply)
{
	ptd_rsp_buf_reset(reply);
	ptd_rsp_put(reply, st->last.p, st->last.len);
}

/* ---- packet handlers ------------------------------------------------------------------------ */

typedef int (*handler_fn)(struct ptd_stub *st, char *p, size_t n, struct ptd_rsp_buf *out);

static int h_supported(struct ptd_stub *st, char *p, size_t n, struct ptd_rsp_buf *out)
{
	ptd_rsp_printf(out,
		       "PacketSize=%x;QStartNoAckMode+;multiprocess+;swbreak+;vContSupported+;"
		       "qXfer:features:read+;qXfer:exec-file:read+;qXfer:auxv:read+;"
		       "qXfer:threads:read+;qXfer:libraries-svr4:read+",
		       PTD_STUB_PACKET_SIZE);
	ptd_rsp_puts(out, ";Qbtrace:off+;Qbtrace:bts+;Qbtrace:pt+;Qbtrace-conf:bts:size+;"
			  "Qbtrace-conf:pt:size+;qXfer:btrace:read+;qXfer:btrace-conf:read+");
	if (ptd_session_recording(st->s))
		ptd_rsp_puts(out, ";ReverseStep+;ReverseContinue+");
	return PTD_STUB_REPLY;
}

static int h_noack(struct ptd_stub *st, char *p, size_t n, struct ptd_rsp_buf *out)
{
	ptd_rsp_puts(out, "OK");
	return PTD_STUB_REPLY | PTD_STUB_NOACK;
}

static int h_query_stop(struct ptd_stub *st, char *p, size_t n, struct ptd_rsp_buf *out)
{
	ptd_stub_last_stop(st, out);
	return PTD_STUB_REPLY;
}

static int regs_now(struct ptd_stub *st, struct user_regs_struct *r, int *pc_only)
{
	if (!live(st) || select_tid(st, st->g_tid) < 0)
		return -1;
	return ptd_session_regs(st->s, r, pc_only) < 0 ? -1 : 0;
}

/*
 * The x87/SSE state, live only (no recorder keeps it): NULL in the past
 * or when it cannot be read.
 */
static const struct user_fpregs_struct *fp_now(struct ptd_stub *st, struct user_fpregs_struct *f)
{
	pid_t tid = st->g_tid > 0 ? st->g_tid : current_tid(st);

	if (ptd_session_replaying(st->s) ||
	    ptd_target_get_fpregs(ptd_session_target(st->s), tid, f) < 0)
		return NULL;
	return f;
}

/* gdb's full x87 tag word from FXSAVE's abridged one (gdb's
 * i387_supply_fxsave does the same): empty (3) where the bit is clear,
 * else valid (0), zero (1) or special (2) from the register's value. */
static unsigned full_tag(const struct user_fpregs_struct *f)
{
	unsigned top = (f->swd >> 11) & 7, tag = 0;

	for (unsigned phys = 0; phys < 8; phys++) {
		unsigned t = 3;
		if (f->ftw & (1u << phys)) {
			/* ST(i) is physical register (top + i) % 8 */
			const uint8_t *v = (const uint8_t *)f->st_space + 16 * ((phys - top) & 7);
			unsigned exp = (v[9] & 0x7f) << 8 | v[8];
			uint64_t mant;
			memcpy(&mant, v, 8);
			if (exp == 0x7fff)
				t = 2;
			else if (exp == 0)
				t = mant ? 2 : 1;
			else
				t = (mant >> 63) ? 0 : 2;
		}
		tag |= t << (2 * phys);
	}
	return tag;
}

/* Register @i's bytes from the x87/SSE state; returns the size, or -1
 * for a register that is not in it. */
static int fp_reg(const struct user_fpregs_struct *f, int i, uint8_t *b)
{
	uint32_t v;

	if (i >= 24 && i < 32) { /* st0-7: 10 bytes of each 16-byte slot */
		memcpy(b, (const uint8_t *)f->st_space + 16 * (i - 24), 10);
		return 10;
	}
	if (i >= 40 && i < 56) {
		memcpy(b, (const uint8_t *)f->xmm_space + 16 * (i - 40), 16);
		return 16;
	}
	switch (i) {
	case 32:
		v = f->cwd;
		break;
	case 33:
		v = f->swd;
		break;
	case 34:
		v = full_tag(f);
		break;
	/* the 64-bit FXSAVE layout: instruction and operand pointers are
	 * 64 bits, which gdb's amd64 splits as offset (low) and "segment"
	 * (high half) */
	case 35:
		v = (uint32_t)(f->rip >> 32);
		break;
	case 36:
		v = (uint32_t)f->rip;
		break;
	case 37:
		v = (uint32_t)(f->rdp >> 32);
		break;
	case 38:
		v = (uint32_t)f->rdp;
		break;
	case 39:
		v = f->fop;
		break;
	case 56:
		v = f->mxcsr;
		break;
	default:
		return -1;
	}
	memcpy(b, &v, 4);
	return 4;
}

static void put_reg(struct ptd_rsp_buf *out, const struct user_regs_struct *r, int pc_only,
		    const struct user_fpregs_struct *f, int i)
{
	uint8_t b[16];

	if (regs[i].offset == NOREG && f && fp_reg(f, i, b) == regs[i].size) {
		ptd_rsp_put_hex(out, b, (size_t)regs[i].size);
		return;
	}
	if (regs[i].offset == NOREG || (pc_only && i != RIP_REGNUM)) {
		for (int k = 0; k < regs[i].size; k++)
			ptd_rsp_puts(out, "xx");
		return;
	}
	/* x86 is little-endian: the low bytes of each 64-bit field */
	ptd_rsp_put_hex(out, (const uint8_t *)r + regs[i].offset, (size_t)regs[i].size);
}

static int h_g(struct ptd_stub *st, char *p, size_t n, struct ptd_rsp_buf *out)
{
	struct user_regs_struct r;
	int pc_only = 0;

	struct user_fpregs_struct fb;
	const struct user_fpregs_struct *f;

	if (n || regs_now(st, &r, &pc_only) < 0) {
		reply_err(out, 1);
		return PTD_STUB_REPLY;
	}
	f = fp_now(st, &fb);
	for (int i = 0; i < NREGS; i++)
		put_reg(out, &r, pc_only, f, i);
	return PTD_STUB_REPLY;
}

static int h_p(struct ptd_stub *st, char *p, size_t n, struct ptd_rsp_buf *out)
{
	const char *q = p, *end = p + n;
	struct user_regs_struct r;
	uint64_t num;
	int pc_only = 0;

	if (parse_hex(&q, end, &num) < 0 || q != end || num >= (uint64_t)NREGS ||
	    regs_now(st, &r, &pc_only) < 0) {
		reply_err(out, 1);
		return PTD_STUB_REPLY;
	}
	{
		struct user_fpregs_struct fb;
		put_reg(out, &r, pc_only, fp_now(st, &fb), (int)num);
	}
	return PTD_STUB_REPLY;
}

/* Writes registers only live: the past cannot be changed. */
static int write_regs(struct ptd_stub *st, const struct user_regs_struct *r)
{
	pid_t tid = st->g_tid > 0 ? st->g_tid : current_tid(st);

	if (ptd_session_replaying(st->s))
		return -1;
	return ptd_target_set_regs(ptd_session_target(st->s), tid, r) < 0 ? -1 : 0;
}

/* Copies register @i from hex @hex (2 * size digits) into @r; 'x' bytes
 * (gdb does not know it either) leave it alone. */
static int take_reg(struct user_regs_struct *r, int i, const char *hex)
{
	uint8_t b[16];

	if (hex[0] == 'x')
		return 0;
	if (ptd_rsp_unhex(hex, 2 * (size_t)regs[i].size, b, sizeof(b)) != regs[i].size)
		return -1;
	if (regs[i].offset == NOREG)
		return -1;
	memcpy((uint8_t *)r + regs[i].offset, b, (size_t)regs[i].size);
	return 0;
}

static int h_P(struct ptd_stub *st, char *p, size_t n, struct ptd_rsp_buf *out)
{
	const char *q = p, *end = p + n;
	struct user_regs_struct r;
	uint64_t num;
	int pc_only = 0;

	if (parse_hex(&q, end, &num) < 0 || expect(&q, end, '=') < 0 || num >= (uint64_t)NREGS ||
	    (size_t)(end - q) != 2 * (size_t)regs[num].size || regs_now(st, &r, &pc_only) < 0 ||
	    pc_only || take_reg(&r, (int)num, q) < 0 || write_regs(st, &r) < 0) {
		reply_err(out, 1);
		return PTD_STUB_REPLY;
	}
	ptd_rsp_puts(out, "OK");
	return PTD_STUB_REPLY;
}

static int h_G(struct ptd_stub *st, char *p, size_t n, struct ptd_rsp_buf *out)
{
	struct user_fpregs_struct fb;
	const struct user_fpregs_struct *f;
	struct user_regs_struct r;
	size_t need = 0, off = 0;
	int pc_only = 0;

	for (int i = 0; i < NREGS; i++)
		need += 2 * (size_t)regs[i].size;
	if (n != need || regs_now(st, &r, &pc_only) < 0 || pc_only) {
		reply_err(out, 1);
		return PTD_STUB_REPLY;
	}
	f = fp_now(st, &fb);
	for (int i = 0; i < NREGS; i++) {
		uint8_t now[16], want[16];
		/* the x87/SSE registers cannot be written: gdb must send back
		 * what it read ('x' where it read that) */
		if (regs[i].offset == NOREG) {
			if (p[off] != 'x' && (!f || fp_reg(f, i, now) != regs[i].size ||
					      ptd_rsp_unhex(p + off, 2 * (size_t)regs[i].size, want,
							    sizeof(want)) != regs[i].size ||
					      memcmp(now, want, (size_t)regs[i].size))) {
				reply_err(out, 1);
				return PTD_STUB_REPLY;
			}
		} else if (take_reg(&r, i, p + off) < 0) {
			reply_err(out, 1);
			return PTD_STUB_REPLY;
		}
		off += 2 * (size_t)regs[i].size;
	}
	if (write_regs(st, &r) < 0) {
		reply_err(out, 1);
		return PTD_STUB_REPLY;
	}
	ptd_rsp_puts(out, "OK");
	return PTD_STUB_REPLY;
}

/* "ADDR,LEN" */
static int addr_len(const char **q, const char *end, uint64_t *addr, uint64_t *len)
{
	if (parse_hex(q, end, addr) < 0 || expect(q, end, ',') < 0 || parse_hex(q, end, len) < 0)
		return -1;
	return 0;
}

static int h_m(struct ptd_stub *st, char *p, size_t n, struct ptd_rsp_buf *out)
{
	const char *q = p, *end = p + n;
	uint64_t addr, len;
	uint8_t *buf;
	long got;

	if (addr_len(&q, end, &addr, &len) < 0 || q != end || !live(st)) {
		reply_err(out, 1);
		return PTD_STUB_REPLY;
	}
	if (len > (PTD_STUB_PACKET_SIZE - 4) / 2)
		len = (PTD_STUB_PACKET_SIZE - 4) / 2;
	if (!len)
		return PTD_STUB_REPLY;
	buf = malloc(len);
	if (!buf) {
		reply_err(out, 12);
		return PTD_STUB_REPLY;
	}
	if (select_tid(st, st->g_tid) < 0) {
		free(buf);
		reply_err(out, 1);
		return PTD_STUB_REPLY;
	}
	got = ptd_session_read(st->s, addr, buf, len);
	if (got <= 0)
		reply_err(out, 14); /* EFAULT */
	else
		ptd_rsp_put_hex(out, buf, (size_t)got);
	free(buf);
	return PTD_STUB_REPLY;
}

static int write_mem(struct ptd_stub *st, uint64_t addr, const uint8_t *b, size_t len,
		     struct ptd_rsp_buf *out)
{
	if (!live(st) || ptd_session_replaying(st->s)) {
		reply_err(out, 1);
		return PTD_STUB_REPLY;
	}
	if (len && ptd_target_write(ptd_session_target(st->s), addr, b, len) != (long)len) {
		reply_err(out, 14);
		return PTD_STUB_REPLY;
	}
	ptd_rsp_puts(out, "OK");
	return PTD_STUB_REPLY;
}

static int h_M(struct ptd_stub *st, char *p, size_t n, struct ptd_rsp_buf *out)
{
	const char *q = p, *end = p + n;
	uint64_t addr, len;
	uint8_t *buf;
	int rc;

	if (addr_len(&q, end, &addr, &len) < 0 || expect(&q, end, ':') < 0 ||
	    (uint64_t)(end - q) != 2 * len) {
		reply_err(out, 1);
		return PTD_STUB_REPLY;
	}
	buf = malloc(len ? len : 1);
	if (!buf) {
		reply_err(out, 12);
		return PTD_STUB_REPLY;
	}
	if (ptd_rsp_unhex(q, (size_t)(end - q), buf, len) != (long)len) {
		free(buf);
		reply_err(out, 1);
		return PTD_STUB_REPLY;
	}
	rc = write_mem(st, addr, buf, len, out);
	free(buf);
	return rc;
}

static int h_X(struct ptd_stub *st, char *p, size_t n, struct ptd_rsp_buf *out)
{
	const char *q = p, *end = p + n;
	uint64_t addr, len;
	long got;

	if (addr_len(&q, end, &addr, &len) < 0 || expect(&q, end, ':') < 0) {
		reply_err(out, 1);
		return PTD_STUB_REPLY;
	}
	got = ptd_rsp_unescape((uint8_t *)q, (size_t)(end - q));
	if (got < 0 || (uint64_t)got != len) {
		reply_err(out, 1);
		return PTD_STUB_REPLY;
	}
	return write_mem(st, addr, (const uint8_t *)q, (size_t)len, out);
}

/* "TYPE,ADDR,KIND[;cond...]": only software breakpoints (type 0). */
static int z_parse(char *p, size_t n, uint64_t *addr)
{
	const char *q = p, *end = p + n;
	uint64_t type, kind;

	if (parse_hex(&q, end, &type) < 0 || expect(&q, end, ',') < 0 ||
	    parse_hex(&q, end, addr) < 0 || expect(&q, end, ',') < 0 ||
	    parse_hex(&q, end, &kind) < 0 || (q != end && *q != ';'))
		return -1;
	return (int)(type > 4 ? 5 : type);
}

static int h_Z(struct ptd_stub *st, char *p, size_t n, struct ptd_rsp_buf *out)
{
	uint64_t addr;
	char spec[32];
	int type = z_parse(p, n, &addr), id;

	if (type < 0 || !live(st)) {
		reply_err(out, 1);
		return PTD_STUB_REPLY;
	}
	if (type != 0)
		return PTD_STUB_REPLY; /* not supported: gdb uses another way */
	for (int i = 0; i < st->nbp; i++)
		if (st->bp[i].addr == addr) {
			st->bp[i].refs++;
			ptd_rsp_puts(out, "OK");
			return PTD_STUB_REPLY;
		}
	if (st->nbp == st->capbp) {
		int cap = st->capbp ? 2 * st->capbp : 16;
		struct zbp *b = realloc(st->bp, (size_t)cap * sizeof(*b));
		if (!b) {
			reply_err(out, 12);
			return PTD_STUB_REPLY;
		}
		st->bp = b;
		st->capbp = cap;
	}
	snprintf(spec, sizeof(spec), "*0x%llx", (unsigned long long)addr);
	id = ptd_session_break(st->s, spec, 0);
	if (id < 0) {
		reply_err(out, 14);
		return PTD_STUB_REPLY;
	}
	st->bp[st->nbp++] = (struct zbp){addr, id, 1};
	ptd_rsp_puts(out, "OK");
	return PTD_STUB_REPLY;
}

static int h_z(struct ptd_stub *st, char *p, size_t n, struct ptd_rsp_buf *out)
{
	uint64_t addr;
	int type = z_parse(p, n, &addr);

	if (type < 0) {
		reply_err(out, 1);
		return PTD_STUB_REPLY;
	}
	if (type != 0)
		return PTD_STUB_REPLY;
	for (int i = 0; i < st->nbp; i++) {
		if (st->bp[i].addr != addr)
			continue;
		if (--st->bp[i].refs == 0) {
			if (live(st))
				ptd_session_delete(st->s, st->bp[i].id);
			st->bp[i] = st->bp[--st->nbp];
		}
		break;
	}
	/* A breakpoint gdb thinks is inserted but we lost with the process
	 * is gone all the same. */
	ptd_rsp_puts(out, "OK");
	return PTD_STUB_REPLY;
}

/* Delivers gdb signal @gsig (0: none) on @tid's next resume: gdb decides
 * whether the signal it was told about is passed. */
static int set_signal(struct ptd_stub *st, pid_t tid, int gsig, int given)
{
	struct ptd_target *t = ptd_session_target(st->s);
	int sig = 0;

	if (!t)
		return 0;
	if (given) {
		sig = ptd_stub_linux_signal(gsig);
		if (gsig && !sig)
			return -1;
	}
	if (tid <= 0)
		tid = current_tid(st);
	/* Only the signal gdb knows about is replaced; others kept pending
	 * (stopped with the other threads) are delivered as they were. */
	if (given || tid == st->sig_tid) {
		ptd_target_set_pending_signal(t, tid, sig);
		if (tid == st->sig_tid)
			st->sig_tid = 0;
	}
	return 0;
}

static int want_resume(struct ptd_stub *st, enum ptd_motion m, int reverse, pid_t tid,
		       struct ptd_rsp_buf *out)
{
	if (st->gone || !ptd_session_alive(st->s)) {
		reply_err(out, 1);
		return PTD_STUB_REPLY;
	}
	st->res_pending = 1;
	st->res_motion = m;
	st->res_reverse = reverse;
	st->res_tid = tid;
	st->res_only_stop = 0;
	st->res_lock = 0;
	return PTD_STUB_RESUME;
}

/* c [addr], s [addr], C sig[;addr], S sig[;addr] */
static int resume_simple(struct ptd_stub *st, char *p, size_t n, struct ptd_rsp_buf *out,
			 enum ptd_motion m, int with_sig)
{
	const char *q = p, *end = p + n;
	uint64_t sig = 0, addr = 0;
	pid_t tid = st->c_tid;
	int have_addr = 0;

	if (with_sig &&
	    (parse_hex(&q, end, &sig) < 0 || sig > 255 || (q < end && expect(&q, end, ';') < 0))) {
		reply_err(out, 1);
		return PTD_STUB_REPLY;
	}
	if (q < end) {
		if (parse_hex(&q, end, &addr) < 0 || q != end) {
			reply_err(out, 1);
			return PTD_STUB_REPLY;
		}
		have_addr = 1;
	}
	if (!live(st) || select_tid(st, tid) < 0) {
		reply_err(out, 1);
		return PTD_STUB_REPLY;
	}
	/* resume at ADDR: only live, the past cannot be changed */
	if (have_addr &&
	    (ptd_session_replaying(st->s) ||
	     ptd_target_set_pc(ptd_session_target(st->s), current_tid(st), addr) < 0)) {
		reply_err(out, 1);
		return PTD_STUB_REPLY;
	}
	if (set_signal(st, tid, (int)sig, with_sig) < 0) {
		reply_err(out, 1);
		return PTD_STUB_REPLY;
	}
	return want_resume(st, m, 0, tid, out);
}

static int h_c(struct ptd_stub *st, char *p, size_t n, struct ptd_rsp_buf *out)
{
	return resume_simple(st, p, n, out, PTD_MOTION_CONTINUE, 0);
}

static int h_C(struct ptd_stub *st, char *p, size_t n, struct ptd_rsp_buf *out)
{
	return resume_simple(st, p, n, out, PTD_MOTION_CONTINUE, 1);
}

static int h_s(struct ptd_stub *st, char *p, size_t n, struct ptd_rsp_buf *out)
{
	return resume_simple(st, p, n, out, PTD_MOTION_STEPI, 0);
}

static int h_S(struct ptd_stub *st, char *p, size_t n, struct ptd_rsp_buf *out)
{
	return resume_simple(st, p, n, out, PTD_MOTION_STEPI, 1);
}

static int reverse(struct ptd_stub *st, enum ptd_motion m, char *p, size_t n,
		   struct ptd_rsp_buf *out)
{
	if (n || !live(st) || !ptd_session_recording(st->s) || select_tid(st, st->c_tid) < 0) {
		reply_err(out, 1);
		return PTD_STUB_REPLY;
	}
	return want_resume(st, m, 1, st->c_tid, out);
}

static int h_bs(struct ptd_stub *st, char *p, size_t n, struct ptd_rsp_buf *out)
{
	return reverse(st, PTD_MOTION_STEPI, p, n, out);
}

static int h_bc(struct ptd_stub *st, char *p, size_t n, struct ptd_rsp_buf *out)
{
	return reverse(st, PTD_MOTION_CONTINUE, p, n, out);
}

static int h_vcont_query(struct ptd_stub *st, char *p, size_t n, struct ptd_rsp_buf *out)
{
	ptd_rsp_puts(out, "vCont;c;C;s;S;t");
	return PTD_STUB_REPLY;
}

/*
 * vCont;ACTION[:TID];...: the first action that names a thread applies
 * to it, the first without one to the others (gdb's rule).  ptdbg's
 * all-stop session moves one thread: the one asked to step if any, and
 * otherwise continues everything.
 */
static int h_vcont(struct ptd_stub *st, char *p, size_t n, struct ptd_rsp_buf *out)
{
	const char *q = p, *end = p + n;
	pid_t step_tid = 0, run_tid = 0, tid;
	int stepping = 0, only_stop = 1, nact = 0, others_run = 0, rc;

	if (!live(st)) {
		reply_err(out, 1);
		return PTD_STUB_REPLY;
	}
	while (q < end) {
		char a;
		uint64_t sig = 0;
		int with_sig = 0;

		if (expect(&q, end, ';') < 0 || q >= end) {
			reply_err(out, 1);
			return PTD_STUB_REPLY;
		}
		a = *q++;
		if (a != 'c' && a != 'C' && a != 's' && a != 'S' && a != 't') {
			reply_err(out, 1);
			return PTD_STUB_REPLY;
		}
		if (a == 'C' || a == 'S') {
			if (parse_hex(&q, end, &sig) < 0 || sig > 255) {
				reply_err(out, 1);
				return PTD_STUB_REPLY;
			}
			with_sig = 1;
		}
		tid = -1;
		if (q < end && *q == ':') {
			q++;
			if (parse_tid(&q, end, &tid) < 0) {
				reply_err(out, 1);
				return PTD_STUB_REPLY;
			}
		}
		if (q < end && *q != ';') {
			reply_err(out, 1);
			return PTD_STUB_REPLY;
		}
		nact++;
		if (a != 't')
			only_stop = 0;
		if ((a == 's' || a == 'S') && !stepping) {
			stepping = 1;
			step_tid = tid;
		}
		/* an action with no thread applies to the threads no other
		 * action named: without one, they stay stopped */
		if (a != 't' && tid <= 0)
			others_run = 1;
		if (a != 't' && tid > 0 && !run_tid)
			run_tid = tid;
		if (a != 't' && set_signal(st, tid > 0 ? tid : 0, (int)sig, with_sig) < 0) {
			reply_err(out, 1);
			return PTD_STUB_REPLY;
		}
	}
	if (!nact) {
		reply_err(out, 1);
		return PTD_STUB_REPLY;
	}
	if (only_stop) {
		/* all-stop: everything is stopped already */
		st->res_pending = 1;
		st->res_only_stop = 1;
		return PTD_STUB_RESUME;
	}
	if (stepping && step_tid > 0 && select_tid(st, step_tid) < 0) {
		reply_err(out, 1);
		return PTD_STUB_REPLY;
	}
	if (!stepping && !others_run && run_tid > 0 && select_tid(st, run_tid) < 0) {
		reply_err(out, 1);
		return PTD_STUB_REPLY;
	}
	rc = want_resume(st, stepping ? PTD_MOTION_STEPI : PTD_MOTION_CONTINUE, 0,
			 stepping ? step_tid : run_tid, out);
	st->res_lock = !others_run;
	return rc;
}

static int h_H(struct ptd_stub *st, char *p, size_t n, struct ptd_rsp_buf *out)
{
	const char *q = p + 1, *end = p + n;
	pid_t tid;

	if (n < 2 || (p[0] != 'g' && p[0] != 'c') || parse_tid(&q, end, &tid) < 0 || q != end) {
		reply_err(out, 1);
		return PTD_STUB_REPLY;
	}
	if (tid > 0 && (!live(st) || select_tid(st, tid) < 0)) {
		reply_err(out, 1);
		return PTD_STUB_REPLY;
	}
	if (p[0] == 'g')
		st->g_tid = tid > 0 ? tid : 0;
	else
		st->c_tid = tid > 0 ? tid : 0;
	ptd_rsp_puts(out, "OK");
	return PTD_STUB_REPLY;
}

static int h_T(struct ptd_stub *st, char *p, size_t n, struct ptd_rsp_buf *out)
{
	const char *q = p, *end = p + n;
	pid_t tid;
	int k, found = 0;
	struct ptd_thread_info *ti;

	if (parse_tid(&q, end, &tid) < 0 || q != end || tid <= 0 || !live(st)) {
		reply_err(out, 1);
		return PTD_STUB_REPLY;
	}
	ti = threads(st, &k);
	for (int i = 0; i < k; i++)
		found |= ti[i].tid == tid;
	free(ti);
	if (found)
		ptd_rsp_puts(out, "OK");
	else
		reply_err(out, 1);
	return PTD_STUB_REPLY;
}

/*
 * The thread list in pieces that fit a reply: qfThreadInfo takes a
 * snapshot and sends its first piece, each qsThreadInfo the next, "l"
 * after the last (a program with thousands of threads is listed whole).
 */
static int thread_piece(struct ptd_stub *st, struct ptd_rsp_buf *out)
{
	int first = 1;

	if (st->thr_next >= st->nthr) {
		ptd_rsp_puts(out, "l");
		return PTD_STUB_REPLY;
	}
	ptd_rsp_puts(out, "m");
	while (st->thr_next < st->nthr && out->len < PTD_STUB_PACKET_SIZE - 40) {
		ptd_rsp_printf(out, "%sp%x.%x", first ? "" : ",", (unsigned)st->pid,
			       (unsigned)st->thr[st->thr_next++]);
		first = 0;
	}
	return PTD_STUB_REPLY;
}

static int h_fthreads(struct ptd_stub *st, char *p, size_t n, struct ptd_rsp_buf *out)
{
	int k;
	struct ptd_thread_info *ti;

	st->nthr = st->thr_next = 0;
	if (!live(st))
		return thread_piece(st, out);
	ti = threads(st, &k);
	if (k > st->capthr) {
		pid_t *t = realloc(st->thr, (size_t)k * sizeof(*t));
		if (!t) {
			free(ti);
			reply_err(out, 12);
			return PTD_STUB_REPLY;
		}
		st->thr = t;
		st->capthr = k;
	}
	for (int i = 0; i < k; i++)
		st->thr[i] = ti[i].tid;
	st->nthr = k;
	free(ti);
	return thread_piece(st, out);
}

static int h_sthreads(struct ptd_stub *st, char *p, size_t n, struct ptd_rsp_buf *out)
{
	return thread_piece(st, out);
}

static int h_qC(struct ptd_stub *st, char *p, size_t n, struct ptd_rsp_buf *out)
{
	pid_t tid = live(st) ? current_tid(st) : 0;

	if (!tid) {
		reply_err(out, 1);
		return PTD_STUB_REPLY;
	}
	ptd_rsp_printf(out, "QCp%x.%x", (unsigned)st->pid, (unsigned)tid);
	return PTD_STUB_REPLY;
}

static int h_attached(struct ptd_stub *st, char *p, size_t n, struct ptd_rsp_buf *out)
{
	ptd_rsp_puts(out, st->attached ? "1" : "0");
	return PTD_STUB_REPLY;
}

static int h_symbol(struct ptd_stub *st, char *p, size_t n, struct ptd_rsp_buf *out)
{
	ptd_rsp_puts(out, "OK"); /* no symbols wanted */
	return PTD_STUB_REPLY;
}

static int h_k(struct ptd_stub *st, char *p, size_t n, struct ptd_rsp_buf *out)
{
	if (live(st))
		ptd_session_kill(st->s);
	st->gone = 1;
	/* gdb expects no reply to k; it closes the connection unless extended */
	return st->extended ? 0 : PTD_STUB_CLOSE;
}

static int h_vkill(struct ptd_stub *st, char *p, size_t n, struct ptd_rsp_buf *out)
{
	const char *q = p, *end = p + n;
	uint64_t pid;

	if (expect(&q, end, ';') < 0 || parse_hex(&q, end, &pid) < 0 || q != end ||
	    pid != (uint64_t)st->pid || !live(st)) {
		reply_err(out, 1);
		return PTD_STUB_REPLY;
	}
	if (ptd_session_kill(st->s) < 0) {
		reply_err(out, 1);
		return PTD_STUB_REPLY;
	}
	st->gone = 1;
	ptd_rsp_buf_reset(&st->last);
	ptd_rsp_printf(&st->last, "X09;process:%x", (unsigned)st->pid);
	ptd_rsp_puts(out, "OK");
	return PTD_STUB_REPLY;
}

static int h_D(struct ptd_stub *st, char *p, size_t n, struct ptd_rsp_buf *out)
{
	const char *q = p, *end = p + n;
	uint64_t pid;

	if (n && (expect(&q, end, ';') < 0 || parse_hex(&q, end, &pid) < 0 || q != end ||
		  pid != (uint64_t)st->pid)) {
		reply_err(out, 1);
		return PTD_STUB_REPLY;
	}
	if (!live(st) || ptd_session_detach(st->s) < 0) {
		reply_err(out, 1);
		return PTD_STUB_REPLY;
	}
	st->gone = 1;
	st->nbp = 0; /* detach took every breakpoint out */
	ptd_session_delete(st->s, 0);
	ptd_rsp_puts(out, "OK");
	return PTD_STUB_REPLY | (st->extended ? 0 : PTD_STUB_CLOSE);
}

/* ---- gdb's branch trace (record btrace) ----------------------------------------------------- */

/*
 * Qbtrace:bts and Qbtrace:pt start ptdbg's recording (whatever method the
 * session uses: on machines without a PMU soft or step) for the whole
 * process; gdb asks once per thread, later threads find it running.  bts
 * is served as blocks from the history, pt as the recording's own PT
 * (trace format pt, written by ptsynth or the pt recorder), which gdb
 * decodes with its libipt.
 */
static int btrace_on(struct ptd_stub *st, int kind, struct ptd_rsp_buf *out)
{
	int rc;

	if (!live(st)) {
		reply_err(out, 1);
		return PTD_STUB_REPLY;
	}
	if (st->btrace && st->btrace != kind) {
		/* one format per recording */
		reply_err(out, 1);
		return PTD_STUB_REPLY;
	}
	if (!ptd_session_recording(st->s)) {
		if (kind == 2 && ptd_session_set_trace_format(st->s, "pt") < 0) {
			reply_err(out, 1);
			return PTD_STUB_REPLY;
		}
		rc = ptd_session_record_start(
			st->s, st->rec_method >= 0 ? (enum ptd_method)st->rec_method : PTD_METHOD_AUTO);
		if (rc < 0) {
			ptd_rsp_puts(out, "E.");
			ptd_rsp_puts(out, ptd_last_error(rc));
			return PTD_STUB_REPLY;
		}
	} else if (kind == 2 && strcmp(ptd_session_trace_format(st->s), "pt")) {
		ptd_rsp_puts(out, "E.the recording running keeps blocks, not pt");
		return PTD_STUB_REPLY;
	}
	st->btrace = kind;
	ptd_rsp_puts(out, "OK");
	return PTD_STUB_REPLY;
}

static int h_btrace_bts(struct ptd_stub *st, char *p, size_t n, struct ptd_rsp_buf *out)
{
	if (n) {
		reply_err(out, 1);
		return PTD_STUB_REPLY;
	}
	return btrace_on(st, 1, out);
}

static int h_btrace_pt(struct ptd_stub *st, char *p, size_t n, struct ptd_rsp_buf *out)
{
	if (n) {
		reply_err(out, 1);
		return PTD_STUB_REPLY;
	}
	return btrace_on(st, 2, out);
}

static int h_btrace_off(struct ptd_stub *st, char *p, size_t n, struct ptd_rsp_buf *out)
{
	if (n) {
		reply_err(out, 1);
		return PTD_STUB_REPLY;
	}
	if (st->btrace && live(st) && ptd_session_recording(st->s))
		ptd_session_record_stop(st->s);
	st->btrace = 0;
	ptd_rsp_puts(out, "OK");
	return PTD_STUB_REPLY;
}

/* Qbtrace-conf:bts:size=N, Qbtrace-conf:pt:size=N: kept and reported
 * (ptdbg's recorders size their buffers themselves). */
static int h_btrace_conf(struct ptd_stub *st, char *p, size_t n, struct ptd_rsp_buf *out)
{
	const char *q, *end = p + n;
	uint64_t v, *dst;

	if (n > 9 && !memcmp(p, "bts:size=", 9)) {
		dst = &st->bts_size;
		q = p + 9;
	} else if (n > 8 && !memcmp(p, "pt:size=", 8)) {
		dst = &st->pt_size;
		q = p + 8;
	} else {
		return PTD_STUB_REPLY; /* not supported */
	}
	if (end - q > 2 && q[0] == '0' && q[1] == 'x') /* gdb writes 0x%x */
		q += 2;
	if (parse_hex(&q, end, &v) < 0 || q != end) {
		reply_err(out, 1);
		return PTD_STUB_REPLY;
	}
	*dst = v;
	ptd_rsp_puts(out, "OK");
	return PTD_STUB_REPLY;
}

static void btrace_conf_doc(struct ptd_stub *st, struct ptd_rsp_buf *d)
{
	ptd_rsp_puts(d, "<!DOCTYPE btrace-conf SYSTEM \"btrace-conf.dtd\">\n"
			"<btrace-conf version=\"1.0\">\n");
	if (st->btrace == 1)
		ptd_rsp_printf(d, "<bts size=\"0x%llx\"/>\n", (unsigned long long)st->bts_size);
	else if (st->btrace == 2)
		ptd_rsp_printf(d, "<pt size=\"0x%llx\"/>\n", (unsigned long long)st->pt_size);
	ptd_rsp_puts(d, "</btrace-conf>\n");
}

/*
 * The trace of the selected thread in gdb's btrace.dtd.  bts: blocks
 * newest first, each [first instruction, last instruction], the newest
 * ending at the current pc (which gdb takes as not yet executed), as
 * gdb's linux-btrace builds them from branch records.  Gaps cannot be
 * written in this format: the blocks around them follow one another.
 * Returns 0, or -1 (no trace).
 */
static int btrace_doc(struct ptd_stub *st, struct ptd_rsp_buf *d)
{
	const struct ptd_history *h;
	uint64_t pc = 0;

	if (!live(st) || !st->btrace || select_tid(st, st->g_tid) < 0 ||
	    ptd_session_replaying(st->s) || ptd_session_pc(st->s, &pc) < 0)
		return -1;
	ptd_rsp_puts(d, "<!DOCTYPE btrace SYSTEM \"btrace.dtd\">\n<btrace version=\"1.0\">\n");
	if (st->btrace == 2) {
		struct ptd_cpu cpu;
		char vendor[16];
		size_t size = 0;
		const uint8_t *pt = ptd_session_pt_data(st->s, &size);

		ptd_bundle_host_cpu(&cpu, vendor);
		ptd_rsp_printf(d,
			       "<pt>\n<pt-config>\n<cpu vendor=\"%s\" family=\"%u\" model=\"%u\" "
			       "stepping=\"%u\"/>\n</pt-config>\n<raw>",
			       vendor[0] ? vendor : "GenuineIntel", cpu.family, cpu.model,
			       cpu.stepping);
		if (pt && size)
			ptd_rsp_put_hex(d, pt, size);
		ptd_rsp_puts(d, "</raw>\n</pt>\n");
	} else {
		h = ptd_session_history(st->s);
		if (!h)
			return -1;
		ptd_rsp_printf(d, "<block begin=\"0x%llx\" end=\"0x%llx\"/>\n",
			       (unsigned long long)pc, (unsigned long long)pc);
		for (uint64_t i = ptd_history_nitems(h); i-- > 0 && !d->oom;) {
			struct ptd_item it;
			if (ptd_history_item(h, i, &it) != 1)
				return -1;
			if (it.kind != PTD_ITEM_BLOCK)
				continue;
			ptd_rsp_printf(d, "<block begin=\"0x%llx\" end=\"0x%llx\"/>\n",
				       (unsigned long long)it.block.ip,
				       (unsigned long long)it.block.end_ip);
		}
	}
	ptd_rsp_puts(d, "</btrace>\n");
	return d->oom ? -1 : 0;
}

/* ---- qXfer ---------------------------------------------------------------------------------- */

/* Serves [@off, @off + @len) of @data (@size bytes) as an 'm'/'l' reply. */
static void xfer_reply(struct ptd_rsp_buf *out, const void *data, size_t size, uint64_t off,
		       uint64_t len)
{
	size_t n;

	/* escaping may double the data: keep the reply within PacketSize */
	if (len > (PTD_STUB_PACKET_SIZE - 8) / 2)
		len = (PTD_STUB_PACKET_SIZE - 8) / 2;
	if (off >= size) {
		ptd_rsp_puts(out, "l");
		return;
	}
	n = size - (size_t)off;
	if (n > len) {
		ptd_rsp_puts(out, "m");
		n = (size_t)len;
	} else {
		ptd_rsp_puts(out, "l");
	}
	ptd_rsp_put_binary(out, (const uint8_t *)data + off, n);
}

/* Reads a whole (small) file, e.g. /proc/PID/auxv.  Returns the length
 * or -1. */
static long read_file(const char *path, uint8_t **out)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	size_t len = 0, cap = 4096;
	uint8_t *b;

	*out = NULL;
	if (fd < 0)
		return -1;
	b = malloc(cap);
	while (b) {
		ssize_t r = read(fd, b + len, cap - len);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			if (r < 0) {
				free(b);
				b = NULL;
			}
			break;
		}
		len += (size_t)r;
		if (len == cap) {
			uint8_t *nb = cap < (1u << 20) ? realloc(b, cap * 2) : NULL;
			if (!nb) {
				free(b);
				b = NULL;
				break;
			}
			b = nb;
			cap *= 2;
		}
	}
	close(fd);
	if (!b)
		return -1;
	*out = b;
	return (long)len;
}

/* @s with XML's special characters and control characters escaped. */
static void xml_escaped(struct ptd_rsp_buf *doc, const char *s)
{
	for (const char *c = s; *c; c++) {
		switch (*c) {
		case '<': ptd_rsp_puts(doc, "&lt;"); break;
		case '>': ptd_rsp_puts(doc, "&gt;"); break;
		case '&': ptd_rsp_puts(doc, "&amp;"); break;
		case '"': ptd_rsp_puts(doc, "&quot;"); break;
		case '\'': ptd_rsp_puts(doc, "&apos;"); break;
		default:
			if ((unsigned char)*c < 0x20)
				ptd_rsp_printf(doc, "&#%d;", *c);
			else
				ptd_rsp_printf(doc, "%c", *c);
		}
	}
}

/* gdb's threads.dtd: one <thread id="pPID.TID" name="COMM"/> per live
 * thread; the name (the kernel's comm) is escaped for XML. */
static void threads_doc(struct ptd_stub *st, struct ptd_rsp_buf *doc)
{
	struct ptd_thread_info *ti = NULL;
	int k = 0;

	ptd_rsp_puts(doc, "<?xml version=\"1.0\"?>\n<threads>\n");
	if (live(st))
		ti = threads(st, &k);
	for (int i = 0; i < k; i++) {
		char path[64], comm[64];
		FILE *fp;

		ptd_rsp_printf(doc, "<thread id=\"p%x.%x\"", (unsigned)st->pid, (unsigned)ti[i].tid);
		snprintf(path, sizeof(path), "/proc/%d/task/%d/comm", (int)st->pid, (int)ti[i].tid);
		fp = fopen(path, "r");
		if (fp && fgets(comm, sizeof(comm), fp)) {
			comm[strcspn(comm, "\n")] = 0;
			ptd_rsp_puts(doc, " name=\"");
			xml_escaped(doc, comm);
			ptd_rsp_puts(doc, "\"");
		}
		if (fp)
			fclose(fp);
		ptd_rsp_puts(doc, "/>\n");
	}
	free(ti);
	ptd_rsp_puts(doc, "</threads>\n");
}

static int read_u64(struct ptd_stub *st, uint64_t addr, uint64_t *v)
{
	return ptd_session_read(st->s, addr, v, 8) == 8 ? 0 : -1;
}

static void xml_escaped(struct ptd_rsp_buf *doc, const char *s);

/* The address of the dynamic linker's r_debug: DT_DEBUG in the program's
 * dynamic section, found through the program headers the auxv points at
 * (AT_PHDR, AT_PHNUM; the load bias from PT_PHDR).  0 when there is none
 * (a static program, or ld.so has not filled it in yet). */
static uint64_t r_debug_addr(struct ptd_stub *st)
{
	char path[64];
	uint8_t *aux;
	long size = -1;
	uint64_t phdr = 0, phnum = 0, bias = 0, dyn = 0, dynsz = 0, rd = 0;

	snprintf(path, sizeof(path), "/proc/%d/auxv", (int)st->pid);
	size = read_file(path, &aux);
	if (size < 0)
		return 0;
	for (long i = 0; i + 16 <= size; i += 16) {
		uint64_t a[2];
		memcpy(a, aux + i, 16);
		if (a[0] == AT_PHDR)
			phdr = a[1];
		else if (a[0] == AT_PHNUM)
			phnum = a[1];
	}
	free(aux);
	if (!phdr || phnum > 256)
		return 0;
	for (int pass = 0; pass < 2; pass++) {
		for (uint64_t i = 0; i < phnum; i++) {
			Elf64_Phdr ph;
			if (ptd_session_read(st->s, phdr + i * sizeof(ph), &ph, sizeof(ph)) !=
			    (long)sizeof(ph))
				return 0;
			if (pass == 0 && ph.p_type == PT_PHDR)
				bias = phdr - ph.p_vaddr;
			if (pass == 1 && ph.p_type == PT_DYNAMIC) {
				dyn = bias + ph.p_vaddr;
				dynsz = ph.p_memsz;
			}
		}
	}
	for (uint64_t o = 0; dyn && o + sizeof(Elf64_Dyn) <= dynsz; o += sizeof(Elf64_Dyn)) {
		Elf64_Dyn d;
		if (ptd_session_read(st->s, dyn + o, &d, sizeof(d)) != (long)sizeof(d) ||
		    d.d_tag == DT_NULL)
			break;
		if (d.d_tag == DT_DEBUG) {
			rd = d.d_un.d_ptr;
			break;
		}
	}
	return rd;
}

/* gdb's library-list-svr4.dtd from the dynamic linker's list (struct
 * r_debug: r_map at 8; struct link_map: l_addr, l_name, l_ld, l_next at
 * 0, 8, 16, 24), as gdbserver builds it: the first entry (the program)
 * is main-lm, the others are libraries.  A list not yet set up is empty. */
static void svr4_doc(struct ptd_stub *st, struct ptd_rsp_buf *doc)
{
	uint64_t rd = r_debug_addr(st), lm = 0, main_lm = 0;

	ptd_rsp_puts(doc, "<library-list-svr4 version=\"1.0\"");
	if (rd && read_u64(st, rd + 8, &lm) == 0 && lm) {
		main_lm = lm;
		ptd_rsp_printf(doc, " main-lm=\"0x%llx\">", (unsigned long long)main_lm);
		if (read_u64(st, lm + 24, &lm) < 0)
			lm = 0;
		/* a bound on the walk: a corrupt list may loop */
		for (int k = 0; lm && k < 100000; k++) {
			uint64_t l_addr, l_name, l_ld, next;
			char name[PATH_MAX];
			size_t nl = 0;

			if (read_u64(st, lm, &l_addr) < 0 || read_u64(st, lm + 8, &l_name) < 0 ||
			    read_u64(st, lm + 16, &l_ld) < 0 || read_u64(st, lm + 24, &next) < 0)
				break;
			while (l_name && nl < sizeof(name) - 1 &&
			       ptd_session_read(st->s, l_name + nl, name + nl, 1) == 1 && name[nl])
				nl++;
			name[nl] = 0;
			/* entries without a name (the vdso) are skipped, as gdbserver does */
			if (nl) {
				ptd_rsp_puts(doc, "<library name=\"");
				xml_escaped(doc, name);
				ptd_rsp_printf(doc, "\" lm=\"0x%llx\" l_addr=\"0x%llx\" l_ld=\"0x%llx\"/>",
					       (unsigned long long)lm, (unsigned long long)l_addr,
					       (unsigned long long)l_ld);
			}
			lm = next;
		}
		ptd_rsp_puts(doc, "</library-list-svr4>");
	} else {
		ptd_rsp_puts(doc, "/>");
	}
}

/* lldb's qHostInfo/qProcessInfo: the triple is hex-encoded, the rest
 * KEY:VALUE; pairs (lldb-gdb-remote.txt).  ptdbg debugs x86-64 Linux. */
static const char host_triple[] = "x86_64-pc-linux-gnu";

static void put_triple(struct ptd_rsp_buf *out)
{
	ptd_rsp_puts(out, "triple:");
	for (const char *c = host_triple; *c; c++)
		ptd_rsp_printf(out, "%02x", (unsigned char)*c);
	ptd_rsp_puts(out, ";ostype:linux;vendor:pc;endian:little;ptrsize:8;");
}

static int h_hostinfo(struct ptd_stub *st, char *p, size_t n, struct ptd_rsp_buf *out)
{
	put_triple(out);
	return PTD_STUB_REPLY;
}

static int h_processinfo(struct ptd_stub *st, char *p, size_t n, struct ptd_rsp_buf *out)
{
	if (!live(st)) {
		reply_err(out, 1);
		return PTD_STUB_REPLY;
	}
	ptd_rsp_printf(out, "pid:%x;", (unsigned)st->pid);
	put_triple(out);
	return PTD_STUB_REPLY;
}

/* qXfer:OBJECT:read:ANNEX:OFFSET,LENGTH */
static int h_xfer(struct ptd_stub *st, char *p, size_t n, struct ptd_rsp_buf *out)
{
	char *end = p + n, *obj = p, *colon, *annex, *args;
	const char *q;
	uint64_t off, len;

	colon = memchr(p, ':', n);
	if (!colon)
		return PTD_STUB_REPLY;
	*colon = 0;
	if (strcmp(obj, "features") && strcmp(obj, "exec-file") && strcmp(obj, "auxv") &&
	    strcmp(obj, "btrace") && strcmp(obj, "btrace-conf") && strcmp(obj, "threads") &&
	    strcmp(obj, "libraries-svr4"))
		return PTD_STUB_REPLY; /* an object we do not serve */
	if ((size_t)(end - colon - 1) < 5 || memcmp(colon + 1, "read:", 5)) {
		return PTD_STUB_REPLY; /* writes are not supported */
	}
	annex = colon + 6;
	args = memchr(annex, ':', (size_t)(end - annex));
	if (!args) {
		reply_err(out, 0);
		return PTD_STUB_REPLY;
	}
	*args++ = 0;
	q = args;
	if (addr_len(&q, end, &off, &len) < 0 || q != end) {
		reply_err(out, 0);
		return PTD_STUB_REPLY;
	}
	if (!strcmp(obj, "btrace") || !strcmp(obj, "btrace-conf")) {
		int conf = !strcmp(obj, "btrace-conf");
		/* delta reads are not offered: gdb then reads it all again */
		if (conf ? *annex != 0 : strcmp(annex, "all") && strcmp(annex, "new")) {
			reply_err(out, 1);
			return PTD_STUB_REPLY;
		}
		if (off == 0) {
			ptd_rsp_buf_reset(&st->doc);
			if (conf)
				btrace_conf_doc(st, &st->doc);
			else if (btrace_doc(st, &st->doc) < 0) {
				ptd_rsp_buf_reset(&st->doc);
				reply_err(out, 1);
				return PTD_STUB_REPLY;
			}
		}
		xfer_reply(out, st->doc.p, st->doc.len, off, len);
		return PTD_STUB_REPLY;
	}
	if (!strcmp(obj, "threads") || !strcmp(obj, "libraries-svr4")) {
		int libs = !strcmp(obj, "libraries-svr4");
		/* an annex (start=, prev=) is only sent to stubs announcing
		 * augmented-libraries-svr4-read, which this one does not */
		if (*annex || (libs && !live(st))) {
			reply_err(out, 0);
			return PTD_STUB_REPLY;
		}
		/* the document is built at offset 0 and read in pieces from it,
		 * so the pieces agree even if threads come and go meanwhile */
		if (off == 0) {
			ptd_rsp_buf_reset(&st->doc);
			if (libs)
				svr4_doc(st, &st->doc);
			else
				threads_doc(st, &st->doc);
		}
		if (st->doc.oom) {
			ptd_rsp_buf_reset(&st->doc);
			reply_err(out, 12);
			return PTD_STUB_REPLY;
		}
		xfer_reply(out, st->doc.p, st->doc.len, off, len);
		return PTD_STUB_REPLY;
	}
	if (!strcmp(obj, "features")) {
		if (strcmp(annex, "target.xml")) {
			reply_err(out, 0);
			return PTD_STUB_REPLY;
		}
		xfer_reply(out, target_xml, sizeof(target_xml) - 1, off, len);
		return PTD_STUB_REPLY;
	}
	if (!strcmp(obj, "exec-file")) {
		char path[64], exe[PATH_MAX];
		const char *name = NULL;
		ssize_t r = -1;

		if (*annex) {
			uint64_t pid;
			const char *a = annex;
			if (parse_hex(&a, annex + strlen(annex), &pid) < 0 || *a ||
			    pid != (uint64_t)st->pid) {
				reply_err(out, 1);
				return PTD_STUB_REPLY;
			}
		}
		if (st->pid > 0) {
			snprintf(path, sizeof(path), "/proc/%d/exe", (int)st->pid);
			r = readlink(path, exe, sizeof(exe) - 1);
		}
		if (r > 0) {
			exe[r] = 0;
			name = exe;
		} else {
			name = ptd_session_program(st->s);
		}
		if (!name) {
			reply_err(out, 1);
			return PTD_STUB_REPLY;
		}
		xfer_reply(out, name, strlen(name), off, len);
		return PTD_STUB_REPLY;
	}
	/* auxv */
	{
		char path[64];
		uint8_t *data;
		long size;

		if (*annex || !live(st)) {
			reply_err(out, 1);
			return PTD_STUB_REPLY;
		}
		snprintf(path, sizeof(path), "/proc/%d/auxv", (int)st->pid);
		size = read_file(path, &data);
		if (size < 0) {
			reply_err(out, 1);
			return PTD_STUB_REPLY;
		}
		xfer_reply(out, data, (size_t)size, off, len);
		free(data);
		return PTD_STUB_REPLY;
	}
}

/* ---- extended-remote: !, vRun, vAttach ------------------------------------------------------ */

static int h_extended(struct ptd_stub *st, char *p, size_t n, struct ptd_rsp_buf *out)
{
	st->extended = 1;
	ptd_rsp_puts(out, "OK");
	return PTD_STUB_REPLY;
}

/* A new process in the session: gdb inserts its breakpoints again. */
static void new_process(struct ptd_stub *st, int attached, struct ptd_rsp_buf *out)
{
	struct ptd_event ev;

	st->attached = attached;
	st->pid = ptd_session_pid(st->s);
	st->gone = 0;
	st->g_tid = st->c_tid = 0;
	st->sig_tid = 0;
	st->btrace = 0;
	memset(&ev, 0, sizeof(ev));
	ev.kind = PTD_EVENT_STEPPED;
	stop_reply(st, &ev, out);
	ptd_rsp_buf_reset(&st->last);
	ptd_rsp_put(&st->last, out->p, out->len);
}

static void forget_process(struct ptd_stub *st)
{
	if (ptd_session_alive(st->s)) {
		if (st->attached)
			ptd_session_detach(st->s);
		else
			ptd_session_kill(st->s);
	}
	ptd_session_delete(st->s, 0);
	st->nbp = 0;
}

/* vRun;PROGRAM[;ARG]... in hex; an empty PROGRAM runs the last one again. */
static int h_vrun(struct ptd_stub *st, char *p, size_t n, struct ptd_rsp_buf *out)
{
	char *end = p + n, *q = p;
	char **argv = NULL;
	int argc = 0, rc = -1;

	if (!st->extended || n < 1 || *q != ';') {
		reply_err(out, 1);
		return PTD_STUB_REPLY;
	}
	while (q < end && *q == ';') {
		char *f = ++q, *arg;
		char **na;
		long len;

		while (q < end && *q != ';')
			q++;
		arg = malloc((size_t)(q - f) / 2 + 1);
		na = realloc(argv, (size_t)(argc + 2) * sizeof(*argv));
		if (!arg || !na) {
			free(arg);
			if (na)
				argv = na;
			goto out;
		}
		argv = na;
		len = ptd_rsp_unhex(f, (size_t)(q - f), (uint8_t *)arg, (size_t)(q - f) / 2);
		if (len < 0 || memchr(arg, 0, (size_t)len)) {
			free(arg);
			goto out;
		}
		arg[len] = 0;
		argv[argc++] = arg;
		argv[argc] = NULL;
	}
	if (q != end || !argc)
		goto out;
	forget_process(st);
	if (argv[0][0]) {
		rc = ptd_session_set_program(st->s, argv);
	} else if (ptd_session_program(st->s)) {
		/* the last program, with the new arguments */
		free(argv[0]);
		argv[0] = strdup(ptd_session_program(st->s));
		rc = argv[0] ? ptd_session_set_program(st->s, argv) : -1;
	}
	if (rc == 0)
		rc = ptd_session_launch(st->s);
	if (rc == 0 && st->rec_method >= 0)
		rc = ptd_session_record_start(st->s, (enum ptd_method)st->rec_method);
out:
	for (int i = 0; i < argc; i++)
		free(argv[i]);
	free(argv);
	if (rc < 0) {
		reply_err(out, 1);
		return PTD_STUB_REPLY;
	}
	new_process(st, 0, out);
	return PTD_STUB_REPLY;
}

static int h_vattach(struct ptd_stub *st, char *p, size_t n, struct ptd_rsp_buf *out)
{
	const char *q = p, *end = p + n;
	uint64_t pid;

	if (!st->extended || expect(&q, end, ';') < 0 || parse_hex(&q, end, &pid) < 0 || q != end ||
	    pid == 0 || pid > INT_MAX || live(st)) {
		reply_err(out, 1);
		return PTD_STUB_REPLY;
	}
	forget_process(st);
	if (ptd_session_attach(st->s, (pid_t)pid) < 0 ||
	    (st->rec_method >= 0 &&
	     ptd_session_record_start(st->s, (enum ptd_method)st->rec_method) < 0)) {
		reply_err(out, 1);
		return PTD_STUB_REPLY;
	}
	new_process(st, 1, out);
	return PTD_STUB_REPLY;
}

int ptd_stub_attached(const struct ptd_stub *st)
{
	return st ? st->attached : 0;
}

void ptd_stub_set_record(struct ptd_stub *st, int method)
{
	if (st)
		st->rec_method = method;
}

/* ---- dispatch ----------------------------------------------------------------------------- */

enum { MATCH_EXACT, MATCH_PREFIX, MATCH_ARGS /* name then ':' or ';' or the end */ };

struct packet {
	const char *name;
	int match;
	handler_fn fn;
};

/* Longer names first where one is a prefix of another (vCont? / vCont;). */
static const struct packet packets[] = {
	{"qSupported", MATCH_ARGS, h_supported},
	{"QStartNoAckMode", MATCH_EXACT, h_noack},
	{"qXfer:", MATCH_PREFIX, h_xfer},
	{"Qbtrace:bts", MATCH_PREFIX, h_btrace_bts},
	{"Qbtrace:pt", MATCH_PREFIX, h_btrace_pt},
	{"Qbtrace:off", MATCH_PREFIX, h_btrace_off},
	{"Qbtrace-conf:", MATCH_PREFIX, h_btrace_conf},
	{"qfThreadInfo", MATCH_EXACT, h_fthreads},
	{"qsThreadInfo", MATCH_EXACT, h_sthreads},
	{"qC", MATCH_EXACT, h_qC},
	{"qHostInfo", MATCH_EXACT, h_hostinfo},
	{"qProcessInfo", MATCH_EXACT, h_processinfo},
	{"qAttached", MATCH_ARGS, h_attached},
	{"qSymbol:", MATCH_PREFIX, h_symbol},
	{"vCont?", MATCH_EXACT, h_vcont_query},
	{"vCont", MATCH_ARGS, h_vcont},
	{"vKill", MATCH_ARGS, h_vkill},
	{"vRun", MATCH_ARGS, h_vrun},
	{"vAttach", MATCH_ARGS, h_vattach},
	{"!", MATCH_EXACT, h_extended},
	{"bs", MATCH_PREFIX, h_bs},
	{"bc", MATCH_PREFIX, h_bc},
	{"?", MATCH_EXACT, h_query_stop},
	{"g", MATCH_PREFIX, h_g},
	{"G", MATCH_PREFIX, h_G},
	{"p", MATCH_PREFIX, h_p},
	{"P", MATCH_PREFIX, h_P},
	{"m", MATCH_PREFIX, h_m},
	{"M", MATCH_PREFIX, h_M},
	{"X", MATCH_PREFIX, h_X},
	{"Z", MATCH_PREFIX, h_Z},
	{"z", MATCH_PREFIX, h_z},
	{"c", MATCH_PREFIX, h_c},
	{"C", MATCH_PREFIX, h_C},
	{"s", MATCH_PREFIX, h_s},
	{"S", MATCH_PREFIX, h_S},
	{"H", MATCH_PREFIX, h_H},
	{"T", MATCH_PREFIX, h_T},
	{"k", MATCH_EXACT, h_k},
	{"D", MATCH_PREFIX, h_D},
};

int ptd_stub_packet(struct ptd_stub *st, uint8_t *pkt, size_t len, struct ptd_rsp_buf *reply)
{
	char *p = (char *)pkt;

	if (!st || !reply)
		return 0;
	ptd_rsp_buf_reset(reply);
	if (!pkt || !len)
		return PTD_STUB_REPLY; /* empty: not supported */
	for (size_t i = 0; i < sizeof(packets) / sizeof(packets[0]); i++) {
		const struct packet *e = &packets[i];
		size_t k = strlen(e->name);
		if (len < k || memcmp(p, e->name, k))
			continue;
		if (e->match == MATCH_EXACT && len != k)
			continue;
		if (e->match == MATCH_ARGS && len > k && p[k] != ':' && p[k] != ';')
			continue;
		return e->fn(st, p + k, len - k, reply);
	}
	return PTD_STUB_REPLY; /* unknown: the empty reply */
}

int ptd_stub_resume(struct ptd_stub *st, struct ptd_rsp_buf *reply)
{
	struct ptd_event ev;
	int rc;

	if (!st || !reply)
		return 0;
	ptd_rsp_buf_reset(reply);
	if (!st->res_pending) {
		reply_err(reply, 1);
		return PTD_STUB_REPLY;
	}
	st->res_pending = 0;
	if (st->res_only_stop) {
		memset(&ev, 0, sizeof(ev));
		ev.kind = PTD_EVENT_STEPPED;
		stop_reply(st, &ev, reply);
		/* vCont;t reports the thread stopped with no signal */
		if (reply->len >= 3 && reply->p[0] == 'T') {
			reply->p[1] = '0';
			reply->p[2] = '0';
		}
		return PTD_STUB_REPLY;
	}
	if (st->res_tid > 0 && select_tid(st, st->res_tid) < 0) {
		reply_err(reply, 1);
		return PTD_STUB_REPLY;
	}
	ptd_session_set_scheduler_locking(st->s, st->res_lock);
	rc = ptd_session_motion(st->s, st->res_motion, st->res_reverse, &ev);
	ptd_session_set_scheduler_locking(st->s, 0);
	if (rc < 0) {
		reply_err(reply, 1);
		return PTD_STUB_REPLY;
	}
	stop_reply(st, &ev, reply);
	ptd_rsp_buf_reset(&st->last);
	ptd_rsp_put(&st->last, reply->p, reply->len);
	return PTD_STUB_REPLY;
}

struct ptd_stub *ptd_stub_alloc(struct ptd_session *s, int attached)
{
	struct ptd_stub *st;
	struct ptd_event ev;

	if (!s)
		return NULL;
	st = calloc(1, sizeof(*st));
	if (!st)
		return NULL;
	st->s = s;
	st->attached = attached;
	st->pid = ptd_session_pid(s);
	st->rec_method = -1;
	/* gdbserver reports the first stop (launch or attach) as SIGTRAP;
	 * with no process (extended-remote, before vRun) as an exit */
	memset(&ev, 0, sizeof(ev));
	ev.kind = st->pid ? PTD_EVENT_STEPPED : PTD_EVENT_EXITED;
	stop_reply(st, &ev, &st->last);
	if (st->last.oom) {
		ptd_stub_free(st);
		return NULL;
	}
	return st;
}

void ptd_stub_free(struct ptd_stub *st)
{
	if (!st)
		return;
	free(st->bp);
	ptd_rsp_buf_free(&st->last);
	ptd_rsp_buf_free(&st->doc);
	free(st->thr);
	free(st);
}
