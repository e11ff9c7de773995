/*
 * The gdb stub (see stub.h): dispatch by const tables (this file's and
 * those of stub_regs.c, stub_break.c, stub_xfer.c), stop replies,
 * resuming forward and in reverse, threads, detach and kill, and the
 * extended-remote packets.  Each handler turns a packet into session
 * calls and the answer into a reply payload.
 */
#include "gdb/stub_int.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

/*
 * What the session does with a signal the program receives: it stops and
 * gdb is told, and gdb decides whether the signal is passed (the C and S
 * packets), as with gdbserver; gdb's own defaults (SIGALRM, SIGCHLD...
 * pass silently) come in QPassSignals.  Without that every signal is
 * reported: a user's "handle SIGALRM stop" must stop.  @pass[g]: gdb
 * signal g goes to the program unseen.  glibc's internal signals (32 and
 * 33, thread cancellation and setxid) always do, as gdbserver passes
 * them; SIGTRAP and SIGINT keep the session's handling.
 */
static void signals_from_gdb(struct ptd_stub *st, const unsigned char *pass, int npass)
{
	for (int sig = 1; ptd_session_signal_flags(st->s, sig) >= 0; sig++) {
		int g = ptd_stub_gdb_signal(sig);
		int f = PTD_SIG_STOP | PTD_SIG_PRINT | PTD_SIG_PASS;

		if (sig == SIGTRAP || sig == SIGINT)
			continue;
		if ((sig >= 32 && sig < SIGRTMIN) || (pass && g > 0 && g < npass && pass[g]))
			f = PTD_SIG_PASS;
		ptd_session_set_signal_flags(st->s, sig, f);
	}
}

/* ---- small parsers (the input is untrusted) ------------------------------------------------- */

/* A hex number at *@p (before @end): at least one digit, no overflow. */
int ptd__stub_parse_hex(const char **p, const char *end, uint64_t *out)
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

int ptd__stub_expect(const char **p, const char *end, char c)
{
	if (*p >= end || **p != c)
		return -1;
	(*p)++;
	return 0;
}

/*
 * A thread id: "p<pid>.<tid>", "p<pid>", "<tid>", "-1" (all) or "0"
 * (any).  *@tid gets the tid, -1 or 0.  A process other than the one
 * debugged (or -1, all, or 0, any) is no thread of ours: -1.
 */
int ptd__stub_parse_tid(const struct ptd_stub *st, const char **p, const char *end, pid_t *tid)
{
	uint64_t v;

	if (*p < end && **p == 'p') {
		(*p)++;
		if (end - *p >= 2 && (*p)[0] == '-' && (*p)[1] == '1')
			*p += 2;
		else if (ptd__stub_parse_hex(p, end, &v) < 0 || (v && v != (uint64_t)st->pid))
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
	if (ptd__stub_parse_hex(p, end, &v) < 0 || v > INT_MAX)
		return -1;
	*tid = (pid_t)v;
	return 0;
}

int ptd__stub_addr_len(const char **q, const char *end, uint64_t *addr, uint64_t *len)
{
	if (ptd__stub_parse_hex(q, end, addr) < 0 || ptd__stub_expect(q, end, ',') < 0 || ptd__stub_parse_hex(q, end, len) < 0)
		return -1;
	return 0;
}

void ptd__stub_reply_err(struct ptd_rsp_buf *out, int code)
{
	ptd_rsp_buf_reset(out);
	ptd_rsp_printf(out, "E%02x", code & 0xff);
}

/* ---- threads ------------------------------------------------------------------------------ */

/* The session's threads (malloc'ed, *@n of them), or NULL. */
struct ptd_thread_info *ptd__stub_threads(struct ptd_stub *st, int *n)
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

pid_t ptd__stub_current_tid(struct ptd_stub *st)
{
	int n;
	pid_t tid = 0;
	struct ptd_thread_info *ti = ptd__stub_threads(st, &n);

	for (int i = 0; i < n; i++)
		if (ti[i].current)
			tid = ti[i].tid;
	free(ti);
	return tid;
}

/* Makes @tid the session's selected thread (0, -1: keep the current).
 * Returns 0, or -1 when there is no such thread. */
int ptd__stub_select_tid(struct ptd_stub *st, pid_t tid)
{
	int n, rc = -1;
	struct ptd_thread_info *ti;

	if (tid <= 0)
		return 0;
	ti = ptd__stub_threads(st, &n);
	for (int i = 0; i < n; i++)
		if (ti[i].tid == tid)
			rc = ptd_session_select_thread(st->s, ti[i].num) < 0 ? -1 : 0;
	free(ti);
	return rc;
}

int ptd__stub_live(struct ptd_stub *st)
{
	return !st->gone && ptd_session_alive(st->s);
}

/* ---- stop replies ------------------------------------------------------------------------- */

static void put_thread(struct ptd_stub *st, struct ptd_rsp_buf *out, pid_t tid)
{
	ptd_rsp_printf(out, "thread:p%x.%x;", (unsigned)st->pid, (unsigned)tid);
}

/* gdbserver's "exec:PATH;" (PATH in hex): gdb loads the new program. */
static void put_exec(struct ptd_stub *st, struct ptd_rsp_buf *out)
{
	char exe[64], path[4096];
	ssize_t n;

	snprintf(exe, sizeof(exe), "/proc/%d/exe", (int)st->pid);
	n = readlink(exe, path, sizeof(path));
	if (n <= 0 || n == (ssize_t)sizeof(path))
		return; /* gdb is told of a SIGTRAP, as without exec events */
	ptd_rsp_puts(out, "exec:");
	ptd_rsp_put_hex(out, path, (size_t)n);
	ptd_rsp_puts(out, ";");
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
	pid_t tid = ev->tid > 0 ? ev->tid : ptd__stub_current_tid(st);
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
	case PTD_EVENT_BEFORE_EXIT:
		/* gdb record full's "Process record: inferior program
		 * stopped.": no signal, gdb says "Program stopped." */
		sig = 0;
		break;
	default:
		break;
	}
	ptd_rsp_printf(out, "T%02x", sig & 0xff);
	if (ev->kind == PTD_EVENT_EXEC && st->exec_events)
		put_exec(st, out);
	put_thread(st, out, tid);
	/* lldb asks for no exec events but knows lldb-server's reason for
	 * this stop, and loads the new program; gdb skips the key */
	if (ev->kind == PTD_EVENT_EXEC && !st->exec_events)
		ptd_rsp_puts(out, "reason:exec;");
	if (ev->kind == PTD_EVENT_BREAKPOINT ||
	    (ev->kind == PTD_EVENT_STEPPED && st->res_motion == PTD_MOTION_CONTINUE &&
	     at_breakpoint(st, ev->pc)))
		ptd_rsp_puts(out, "swbreak:;");
	if (ev->kind == PTD_EVENT_HWBREAK)
		ptd__stub_hw_reason(st, ev, out);
	if (ev->kind == PTD_EVENT_NO_HISTORY)
		ptd_rsp_puts(out, ev->replaying || st->res_reverse ? "replaylog:begin;"
								   : "replaylog:end;");
	/* After a stop gdb takes the event thread as the one its next
	 * register reads are about, as gdbserver does.  Not the thread to
	 * resume: gdb keeps its last Hc and sends none while it is the same
	 * (a bs after "thread 1" with Hc "any" moved the thread of the stop,
	 * not the one gdb selected with Hg). */
	st->g_tid = tid;
}

void ptd_stub_last_stop(struct ptd_stub *st, struct ptd_rsp_buf *reply)
{
	ptd_rsp_buf_reset(reply);
	ptd_rsp_put(reply, st->last.p, st->last.len);
}

/* ---- packet handlers ------------------------------------------------------------------------ */

/* Whether gdb's qSupported:FEATURE;... lists @feature. */
static int gdb_supports(const char *p, size_t n, const char *feature)
{
	size_t k = strlen(feature);

	for (size_t i = 0; i < n;) {
		size_t j = i;
		while (j < n && p[j] != ';')
			j++;
		if (j - i == k && !memcmp(p + i, feature, k))
			return 1;
		i = j + 1;
	}
	return 0;
}

static int h_supported(struct ptd_stub *st, char *p, size_t n, struct ptd_rsp_buf *out)
{
	/* (p is ":FEATURE;FEATURE...", or empty) */
	st->exec_events = n > 1 && gdb_supports(p + 1, n - 1, "exec-events+");
	ptd_rsp_printf(
		out,
		"PacketSize=%x;QStartNoAckMode+;multiprocess+;swbreak+;hwbreak+;vContSupported+;"
		"qXfer:features:read+;qXfer:exec-file:read+;qXfer:auxv:read+;"
		"qXfer:threads:read+;qXfer:libraries-svr4:read+;qXfer:siginfo:read+;"
		"QPassSignals+",
		PTD_STUB_PACKET_SIZE);
	ptd_rsp_puts(out, ";Qbtrace:off+;Qbtrace:bts+;Qbtrace:pt+;Qbtrace-conf:bts:size+;"
			  "Qbtrace-conf:pt:size+;qXfer:btrace:read+;qXfer:btrace-conf:read+");
	/* gdb asks once per connection: with extended-remote that is before
	 * the programs --record or --method will record are started */
	if (ptd_session_recording(st->s) || st->rec_method >= 0)
		ptd_rsp_puts(out, ";ReverseStep+;ReverseContinue+");
	if (st->exec_events)
		ptd_rsp_puts(out, ";exec-events+");
	return PTD_STUB_REPLY;
}

static int h_noack(struct ptd_stub *st, char *p, size_t n, struct ptd_rsp_buf *out)
{
	ptd_rsp_puts(out, "OK");
	return PTD_STUB_REPLY | PTD_STUB_NOACK;
}

/* QPassSignals:SIG;SIG;... (gdb's signal numbers in hex, each followed by
 * ';'): the whole set of signals passed to the program without a stop. */
static int h_pass_signals(struct ptd_stub *st, char *p, size_t n, struct ptd_rsp_buf *out)
{
	unsigned char pass[256] = {0};
	const char *q = p, *end = p + n;

	if (ptd__stub_expect(&q, end, ':') < 0) {
		ptd__stub_reply_err(out, 1);
		return PTD_STUB_REPLY;
	}
	while (q < end) {
		uint64_t g;
		if (ptd__stub_parse_hex(&q, end, &g) < 0 || g >= sizeof(pass) ||
		    (q < end && ptd__stub_expect(&q, end, ';') < 0)) {
			ptd__stub_reply_err(out, 1);
			return PTD_STUB_REPLY;
		}
		pass[g] = 1;
	}
	signals_from_gdb(st, pass, (int)sizeof(pass));
	ptd_rsp_puts(out, "OK");
	return PTD_STUB_REPLY;
}

static int h_query_stop(struct ptd_stub *st, char *p, size_t n, struct ptd_rsp_buf *out)
{
	ptd_stub_last_stop(st, out);
	return PTD_STUB_REPLY;
}

/* Delivers gdb signal @gsig (0: none) on @tid's next resume: gdb decides
 * whether the signal it was told about is passed. */
static int set_signal(struct ptd_stub *st, pid_t tid, int gsig, int given)
{
	int sig = 0;

	if (!ptd_session_alive(st->s))
		return 0;
	if (given) {
		sig = ptd_stub_linux_signal(gsig);
		if (gsig && !sig)
			return -1;
	}
	if (tid <= 0)
		tid = ptd__stub_current_tid(st);
	/* Only the signal gdb knows about is replaced; others kept pending
	 * (stopped with the other threads) are delivered as they were. */
	if (given || tid == st->sig_tid) {
		ptd_session_set_signal(st->s, tid, sig);
		if (tid == st->sig_tid)
			st->sig_tid = 0;
	}
	return 0;
}

static int want_resume(struct ptd_stub *st, enum ptd_motion m, int reverse, pid_t tid,
		       struct ptd_rsp_buf *out)
{
	if (st->gone || !ptd_session_alive(st->s)) {
		ptd__stub_reply_err(out, 1);
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
	    (ptd__stub_parse_hex(&q, end, &sig) < 0 || sig > 255 || (q < end && ptd__stub_expect(&q, end, ';') < 0))) {
		ptd__stub_reply_err(out, 1);
		return PTD_STUB_REPLY;
	}
	if (q < end) {
		if (ptd__stub_parse_hex(&q, end, &addr) < 0 || q != end) {
			ptd__stub_reply_err(out, 1);
			return PTD_STUB_REPLY;
		}
		have_addr = 1;
	}
	if (!ptd__stub_live(st) || ptd__stub_select_tid(st, tid) < 0) {
		ptd__stub_reply_err(out, 1);
		return PTD_STUB_REPLY;
	}
	/* resume at ADDR: only live, the past cannot be changed */
	if (have_addr &&
	    (ptd_session_replaying(st->s) ||
	     ptd_session_set_pc(st->s, ptd__stub_current_tid(st), addr) < 0)) {
		ptd__stub_reply_err(out, 1);
		return PTD_STUB_REPLY;
	}
	if (set_signal(st, tid, (int)sig, with_sig) < 0) {
		ptd__stub_reply_err(out, 1);
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
	if (n || !ptd__stub_live(st) || !ptd_session_recording(st->s) || ptd__stub_select_tid(st, st->c_tid) < 0) {
		ptd__stub_reply_err(out, 1);
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

	if (!ptd__stub_live(st)) {
		ptd__stub_reply_err(out, 1);
		return PTD_STUB_REPLY;
	}
	while (q < end) {
		char a;
		uint64_t sig = 0;
		int with_sig = 0;

		if (ptd__stub_expect(&q, end, ';') < 0 || q >= end) {
			ptd__stub_reply_err(out, 1);
			return PTD_STUB_REPLY;
		}
		a = *q++;
		if (a != 'c' && a != 'C' && a != 's' && a != 'S' && a != 't') {
			ptd__stub_reply_err(out, 1);
			return PTD_STUB_REPLY;
		}
		if (a == 'C' || a == 'S') {
			if (ptd__stub_parse_hex(&q, end, &sig) < 0 || sig > 255) {
				ptd__stub_reply_err(out, 1);
				return PTD_STUB_REPLY;
			}
			with_sig = 1;
		}
		tid = -1;
		if (q < end && *q == ':') {
			q++;
			if (ptd__stub_parse_tid(st, &q, end, &tid) < 0) {
				ptd__stub_reply_err(out, 1);
				return PTD_STUB_REPLY;
			}
		}
		if (q < end && *q != ';') {
			ptd__stub_reply_err(out, 1);
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
			ptd__stub_reply_err(out, 1);
			return PTD_STUB_REPLY;
		}
	}
	if (!nact) {
		ptd__stub_reply_err(out, 1);
		return PTD_STUB_REPLY;
	}
	if (only_stop) {
		/* all-stop: everything is stopped already */
		st->res_pending = 1;
		st->res_only_stop = 1;
		return PTD_STUB_RESUME;
	}
	if (stepping && step_tid > 0 && ptd__stub_select_tid(st, step_tid) < 0) {
		ptd__stub_reply_err(out, 1);
		return PTD_STUB_REPLY;
	}
	if (!stepping && !others_run && run_tid > 0 && ptd__stub_select_tid(st, run_tid) < 0) {
		ptd__stub_reply_err(out, 1);
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

	if (n < 2 || (p[0] != 'g' && p[0] != 'c') || ptd__stub_parse_tid(st, &q, end, &tid) < 0 ||
	    q != end) {
		ptd__stub_reply_err(out, 1);
		return PTD_STUB_REPLY;
	}
	if (tid > 0 && (!ptd__stub_live(st) || ptd__stub_select_tid(st, tid) < 0)) {
		ptd__stub_reply_err(out, 1);
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

	if (ptd__stub_parse_tid(st, &q, end, &tid) < 0 || q != end || tid <= 0 ||
	    !ptd__stub_live(st)) {
		ptd__stub_reply_err(out, 1);
		return PTD_STUB_REPLY;
	}
	ti = ptd__stub_threads(st, &k);
	for (int i = 0; i < k; i++)
		found |= ti[i].tid == tid;
	free(ti);
	if (found)
		ptd_rsp_puts(out, "OK");
	else
		ptd__stub_reply_err(out, 1);
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
	if (!ptd__stub_live(st))
		return thread_piece(st, out);
	ti = ptd__stub_threads(st, &k);
	if (k > st->capthr) {
		pid_t *t = realloc(st->thr, (size_t)k * sizeof(*t));
		if (!t) {
			free(ti);
			ptd__stub_reply_err(out, 12);
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
	pid_t tid = ptd__stub_live(st) ? ptd__stub_current_tid(st) : 0;

	if (!tid) {
		ptd__stub_reply_err(out, 1);
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
	if (ptd__stub_live(st))
		ptd_session_kill(st->s);
	st->gone = 1;
	/* gdb reads no reply to k: with extended-remote the connection goes
	 * on and a reply would be taken for the next packet's.  Otherwise it
	 * closes the connection, and lldb, which waits for the process's end
	 * (as lldb-server sends it), gets it. */
	if (st->extended)
		return 0;
	ptd_rsp_printf(out, "X09;process:%x", (unsigned)st->pid);
	return PTD_STUB_REPLY | PTD_STUB_CLOSE;
}

static int h_vkill(struct ptd_stub *st, char *p, size_t n, struct ptd_rsp_buf *out)
{
	const char *q = p, *end = p + n;
	uint64_t pid;

	if (ptd__stub_expect(&q, end, ';') < 0 || ptd__stub_parse_hex(&q, end, &pid) < 0 || q != end ||
	    pid != (uint64_t)st->pid || !ptd__stub_live(st)) {
		ptd__stub_reply_err(out, 1);
		return PTD_STUB_REPLY;
	}
	if (ptd_session_kill(st->s) < 0) {
		ptd__stub_reply_err(out, 1);
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

	if (n && (ptd__stub_expect(&q, end, ';') < 0 || ptd__stub_parse_hex(&q, end, &pid) < 0 || q != end ||
		  pid != (uint64_t)st->pid)) {
		ptd__stub_reply_err(out, 1);
		return PTD_STUB_REPLY;
	}
	if (!ptd__stub_live(st) || ptd_session_detach(st->s) < 0) {
		ptd__stub_reply_err(out, 1);
		return PTD_STUB_REPLY;
	}
	st->gone = 1;
	ptd__stub_break_forget(st); /* detach took every breakpoint out */
	ptd_session_delete(st->s, 0);
	ptd_rsp_puts(out, "OK");
	return PTD_STUB_REPLY | (st->extended ? 0 : PTD_STUB_CLOSE);
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
	st->btrace_rec = 0;
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
	ptd__stub_break_forget(st);
}

/* vRun;PROGRAM[;ARG]... in hex; an empty PROGRAM runs the last one again. */
static int h_vrun(struct ptd_stub *st, char *p, size_t n, struct ptd_rsp_buf *out)
{
	char *end = p + n, *q = p;
	char **argv = NULL;
	int argc = 0, rc = -1;

	if (!st->extended || n < 1 || *q != ';') {
		ptd__stub_reply_err(out, 1);
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
		ptd__stub_reply_err(out, 1);
		return PTD_STUB_REPLY;
	}
	new_process(st, 0, out);
	return PTD_STUB_REPLY;
}

static int h_vattach(struct ptd_stub *st, char *p, size_t n, struct ptd_rsp_buf *out)
{
	const char *q = p, *end = p + n;
	uint64_t pid;

	if (!st->extended || ptd__stub_expect(&q, end, ';') < 0 || ptd__stub_parse_hex(&q, end, &pid) < 0 || q != end ||
	    pid == 0 || pid > INT_MAX || ptd__stub_live(st)) {
		ptd__stub_reply_err(out, 1);
		return PTD_STUB_REPLY;
	}
	forget_process(st);
	if (ptd_session_attach(st->s, (pid_t)pid) < 0 ||
	    (st->rec_method >= 0 &&
	     ptd_session_record_start(st->s, (enum ptd_method)st->rec_method) < 0)) {
		ptd__stub_reply_err(out, 1);
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
	if (!st)
		return;
	st->rec_method = method;
	/* As gdb's record full: the recorded program stops before its
	 * exit_group, alive, so that its history can be gone back through;
	 * continuing from there lets it exit.  (Not before each thread's
	 * exit: gdb's own threads go on as they would without a recording.) */
	ptd_session_set_stop_before_exit(st->s, method >= 0);
	ptd_session_set_stop_before_thread_exit(st->s, 0);
}

/* ---- dispatch ----------------------------------------------------------------------------- */

static const struct ptd__stub_packet core_packets[] = {
	{"qSupported", PTD__STUB_ARGS, h_supported},
	{"QStartNoAckMode", PTD__STUB_EXACT, h_noack},
	{"qfThreadInfo", PTD__STUB_EXACT, h_fthreads},
	{"qsThreadInfo", PTD__STUB_EXACT, h_sthreads},
	{"qC", PTD__STUB_EXACT, h_qC},
	{"qAttached", PTD__STUB_ARGS, h_attached},
	{"qSymbol:", PTD__STUB_PREFIX, h_symbol},
	{"QPassSignals", PTD__STUB_PREFIX, h_pass_signals},
	{"vCont?", PTD__STUB_EXACT, h_vcont_query},
	{"vCont", PTD__STUB_ARGS, h_vcont},
	{"vKill", PTD__STUB_ARGS, h_vkill},
	{"vRun", PTD__STUB_ARGS, h_vrun},
	{"vAttach", PTD__STUB_ARGS, h_vattach},
	{"!", PTD__STUB_EXACT, h_extended},
	{"bs", PTD__STUB_PREFIX, h_bs},
	{"bc", PTD__STUB_PREFIX, h_bc},
	{"?", PTD__STUB_EXACT, h_query_stop},
	{"c", PTD__STUB_PREFIX, h_c},
	{"C", PTD__STUB_PREFIX, h_C},
	{"s", PTD__STUB_PREFIX, h_s},
	{"S", PTD__STUB_PREFIX, h_S},
	{"H", PTD__STUB_PREFIX, h_H},
	{"T", PTD__STUB_PREFIX, h_T},
	{"k", PTD__STUB_EXACT, h_k},
	{"D", PTD__STUB_PREFIX, h_D},
	{NULL, 0, NULL},
};

/* The documents first (their names are longest), the single letters last. */
static const struct ptd__stub_packet *const tables[] = {
	ptd__stub_xfer_packets, ptd__stub_file_packets, core_packets, ptd__stub_regs_packets,
	ptd__stub_break_packets,
};

int ptd_stub_packet(struct ptd_stub *st, uint8_t *pkt, size_t len, struct ptd_rsp_buf *reply)
{
	char *p = (char *)pkt;

	if (!st || !reply)
		return 0;
	ptd_rsp_buf_reset(reply);
	if (!pkt || !len)
		return PTD_STUB_REPLY; /* empty: not supported */
	for (size_t t = 0; t < sizeof(tables) / sizeof(tables[0]); t++)
		for (const struct ptd__stub_packet *e = tables[t]; e->name; e++) {
			size_t k = strlen(e->name);
			if (len < k || memcmp(p, e->name, k))
				continue;
			if (e->match == PTD__STUB_EXACT && len != k)
				continue;
			if (e->match == PTD__STUB_ARGS && len > k && p[k] != ':' && p[k] != ';')
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
		ptd__stub_reply_err(reply, 1);
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
	if (st->res_tid > 0 && ptd__stub_select_tid(st, st->res_tid) < 0) {
		ptd__stub_reply_err(reply, 1);
		return PTD_STUB_REPLY;
	}
	ptd_session_set_scheduler_locking(st->s, st->res_lock);
	for (;;) {
		ptd__stub_hw_refresh(st);
		rc = ptd_session_motion(st->s, st->res_motion, st->res_reverse, &ev);
		if (rc < 0 || !ptd__stub_hw_only_writes(st, &ev))
			break;
		/* Only read watchpoints (Z3) saw writes: no stop for gdb.  A
		 * stepi is done all the same; a continue goes on. */
		if (st->res_motion != PTD_MOTION_CONTINUE) {
			ev.kind = PTD_EVENT_STEPPED;
			break;
		}
	}
	ptd_session_set_scheduler_locking(st->s, 0);
	if (rc < 0) {
		ptd__stub_reply_err(reply, 1);
		return PTD_STUB_REPLY;
	}
	if (ev.kind == PTD_EVENT_EXEC)
		ptd__stub_break_exec(st);
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
	/* An exec ends the motion: gdb must load the new program and put
	 * its breakpoints into it (gdbserver stops there too: with exec
	 * events, else with the kernel's SIGTRAP after an exec). */
	ptd_session_set_stop_at_exec(s, 1);
	signals_from_gdb(st, NULL, 0);
	ptd__stub_files_init(st);
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
	ptd__stub_files_close(st);
	free(st->bp);
	ptd_rsp_buf_free(&st->last);
	ptd_rsp_buf_free(&st->doc);
	free(st->thr);
	free(st);
}

