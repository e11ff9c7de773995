/*
 * The gdb stub's packet layer (src/gdb/stub.h), without sockets: payloads
 * go in, reply payloads are checked.  Malformed and unknown packets, a
 * stub with no program, a stub on a launched testprogs/fib (registers,
 * memory, breakpoints, threads, resuming to a breakpoint and to the exit),
 * reverse packets on a recording, and a stream of random packets.
 */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <intel-pt.h>

#include "gdb/stub.h"
#include "ptdbg/ptdbg.h"
#include "session/session.h"

static char progdir[512];

struct fixture {
	struct ptd_session *s;
	struct ptd_stub *st;
	struct ptd_rsp_buf out;
	char reply[PTD_STUB_PACKET_SIZE + 1];
	int act;
};

/* Sends @pkt; the reply (NUL-terminated) is in f->reply, the mask in f->act. */
static const char *send(struct fixture *f, const char *pkt)
{
	size_t n = strlen(pkt);
	uint8_t *copy = malloc(n + 1);

	assert_non_null(copy);
	memcpy(copy, pkt, n + 1);
	f->act = ptd_stub_packet(f->st, copy, n, &f->out);
	free(copy);
	if (f->act & PTD_STUB_RESUME)
		f->act = ptd_stub_resume(f->st, &f->out);
	assert_false(f->out.oom);
	assert_true(f->out.len <= PTD_STUB_PACKET_SIZE);
	memcpy(f->reply, f->out.p ? f->out.p : "", f->out.len);
	f->reply[f->out.len] = 0;
	return f->reply;
}

static int is_error(const char *r)
{
	return r[0] == 'E' && strlen(r) == 3;
}

static void setup_none(struct fixture *f)
{
	memset(f, 0, sizeof(*f));
	f->s = ptd_session_alloc();
	assert_non_null(f->s);
	f->st = ptd_stub_alloc(f->s, 0);
	assert_non_null(f->st);
}

static void setup_fib(struct fixture *f, int record)
{
	char path[600];
	char *argv[] = {path, NULL};

	memset(f, 0, sizeof(*f));
	snprintf(path, sizeof(path), "%s/fib", progdir);
	f->s = ptd_session_alloc();
	assert_non_null(f->s);
	ptd_session_set_pin_cpu(f->s, 0);
	assert_int_equal(ptd_session_set_program(f->s, argv), 0);
	assert_int_equal(ptd_session_launch(f->s), 0);
	if (record)
		assert_int_equal(ptd_session_record_start(f->s, PTD_METHOD_STEP), 0);
	f->st = ptd_stub_alloc(f->s, 0);
	assert_non_null(f->st);
}

static void teardown(struct fixture *f)
{
	ptd_stub_free(f->st);
	ptd_session_free(f->s);
	ptd_rsp_buf_free(&f->out);
}

/* fib's address from the symbol table. */
static uint64_t fib_addr(struct fixture *f)
{
	int id = ptd_session_break(f->s, "fib", 0);
	struct ptd_bpinfo bi;
	uint64_t a;

	assert_true(id > 0);
	assert_int_equal(ptd_session_bp_get(f->s, 0, &bi), 0);
	a = bi.addr;
	assert_int_equal(ptd_session_delete(f->s, id), 0);
	return a;
}

static size_t g_len(void)
{
	/* 16 GPRs + rip (8), eflags + 6 segments (4), st0-7 (10), 8 x87
	 * control (4), 16 xmm (16), mxcsr (4), orig_rax, fs_base, gs_base (8) */
	return 2 * (17 * 8 + 7 * 4 + 8 * 10 + 8 * 4 + 16 * 16 + 4 + 3 * 8);
}

static void test_signals(void **state)
{
	(void)state;
	assert_int_equal(ptd_stub_gdb_signal(11), 11);
	assert_int_equal(ptd_stub_gdb_signal(10), 30); /* SIGUSR1 */
	assert_int_equal(ptd_stub_gdb_signal(7), 10);  /* SIGBUS */
	assert_int_equal(ptd_stub_gdb_signal(17), 20); /* SIGCHLD */
	assert_int_equal(ptd_stub_gdb_signal(34), 46);
	assert_int_equal(ptd_stub_gdb_signal(0), 0);
	assert_int_equal(ptd_stub_gdb_signal(-3), 0);
	assert_int_equal(ptd_stub_gdb_signal(200), 0);
	/* every Linux signal with a counterpart maps back to itself */
	for (int sig = 1; sig <= 64; sig++) {
		int g = ptd_stub_gdb_signal(sig);
		if (g)
			assert_int_equal(ptd_stub_linux_signal(g), sig);
	}
	assert_int_equal(ptd_stub_linux_signal(0), 0);
	assert_int_equal(ptd_stub_linux_signal(1000), 0);
}

static void test_no_program(void **state)
{
	struct fixture f;
	const char *r;

	(void)state;
	setup_none(&f);
	r = send(&f, "qSupported:multiprocess+;swbreak+;xmlRegisters=i386");
	assert_non_null(strstr(r, "PacketSize=4000"));
	assert_non_null(strstr(r, "QStartNoAckMode+"));
	assert_non_null(strstr(r, "swbreak+"));
	assert_non_null(strstr(r, "qXfer:features:read+"));
	assert_null(strstr(r, "ReverseStep+")); /* not recording */
	assert_string_equal(send(&f, "QStartNoAckMode"), "OK");
	assert_true(f.act & PTD_STUB_NOACK);
	/* every signal stops and gdb decides, but those gdb lets pass
	 * (QPassSignals, gdb's numbers: 0xe SIGALRM, 0x14 SIGCHLD); glibc's
	 * internal 32 and 33 always pass unseen */
	assert_non_null(strstr(send(&f, "qSupported"), ";QPassSignals+"));
	assert_true(ptd_session_signal_flags(f.s, SIGALRM) & PTD_SIG_STOP);
	assert_int_equal(ptd_session_signal_flags(f.s, 32), PTD_SIG_PASS);
	assert_string_equal(send(&f, "QPassSignals:e;14;"), "OK"); /* gdb ends with ';' */
	assert_int_equal(ptd_session_signal_flags(f.s, SIGALRM), PTD_SIG_PASS);
	assert_int_equal(ptd_session_signal_flags(f.s, SIGCHLD), PTD_SIG_PASS);
	assert_true(ptd_session_signal_flags(f.s, SIGUSR1) & PTD_SIG_STOP);
	assert_string_equal(send(&f, "QPassSignals:"), "OK");
	assert_true(ptd_session_signal_flags(f.s, SIGALRM) & PTD_SIG_STOP);
	assert_true(ptd_session_signal_flags(f.s, SIGCHLD) & PTD_SIG_STOP);
	assert_true(is_error(send(&f, "QPassSignals:zz")));
	assert_true(is_error(send(&f, "QPassSignals:e;;")));
	assert_true(is_error(send(&f, "QPassSignals:1000")));
	assert_true(is_error(send(&f, "QPassSignals")));
	assert_string_equal(send(&f, "vCont?"), "vCont;c;C;s;S;t");
	assert_string_equal(send(&f, "qAttached"), "0");
	assert_string_equal(send(&f, "qSymbol::"), "OK");
	/* unknown packets: the empty reply */
	assert_string_equal(send(&f, "qTStatus"), "");
	assert_string_equal(send(&f, "vMustReplyEmpty"), "");
	assert_string_equal(send(&f, "?"), "W00"); /* no process yet */
	assert_string_equal(send(&f, "qXfer:memory-map:read::0,100"), "");
	assert_string_equal(send(&f, "qCRC:0,4"), "");
	assert_string_equal(send(&f, "vContX"), "");
	/* no program: errors, never a crash */
	assert_true(is_error(send(&f, "g")));
	assert_true(is_error(send(&f, "p10")));
	assert_true(is_error(send(&f, "m401000,4")));
	assert_true(is_error(send(&f, "M401000,1:90")));
	assert_true(is_error(send(&f, "c")));
	assert_true(is_error(send(&f, "s")));
	assert_true(is_error(send(&f, "bc")));
	assert_true(is_error(send(&f, "vCont;c")));
	assert_true(is_error(send(&f, "Z0,401000,1")));
	assert_true(is_error(send(&f, "D")));
	assert_true(is_error(send(&f, "qC")));
	assert_string_equal(send(&f, "qfThreadInfo"), "l");
	assert_string_equal(send(&f, "qsThreadInfo"), "l");
	teardown(&f);
}

static void test_malformed(void **state)
{
	struct fixture f;
	static const char *bad[] = {
		"m",
		"m401000",
		"m401000,",
		"m,4",
		"mzz,4",
		"m401000,4x",
		"m11111111111111111,4",
		"M401000,2:9",
		"M401000,1:zz",
		"M401000,1",
		"X401000,2:a",
		"X401000,1:}",
		"p",
		"pzz",
		"p1000",
		"p10x",
		"P10",
		"P10=zz",
		"Pzz=00",
		"G00",
		"gx",
		"Z",
		"Z0",
		"Z0,",
		"Z0,401000",
		"Z0,401000,",
		"Z0,401000,1x",
		"z0,zz,1",
		"Hg",
		"Hx1",
		"Hgp",
		"Hgzz",
		"Hc-",
		"T",
		"Tzz",
		"T-1",
		"vCont;",
		"vCont;x",
		"vCont;C",
		"vCont;Czz",
		"vCont;c:",
		"vCont;c:zz",
		"vCont;cc",
		"vKill",
		"vKill;",
		"vKill;zz",
		"D;",
		"D;zz",
		"C",
		"Czz",
		"C05;zz",
		"S",
		"cxyz",
		"bsx",
		"qXfer:features:read:target.xml",
		"qXfer:features:read:target.xml:0",
		"qXfer:features:read:target.xml:zz,10",
		"qXfer:features:read:other.xml:0,10",
		"qXfer:exec-file:read:zz:0,10",
		"qXfer:auxv:read:x:0,10",
	};

	(void)state;
	setup_none(&f);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		const char *r = send(&f, bad[i]);
		if (!is_error(r))
			fail_msg("'%s' got '%s', not an error", bad[i], r);
		assert_false(f.act & (PTD_STUB_RESUME | PTD_STUB_CLOSE));
	}
	/* an empty payload and a NULL one */
	assert_int_equal(ptd_stub_packet(f.st, NULL, 0, &f.out), PTD_STUB_REPLY);
	assert_int_equal(f.out.len, 0);
	/* a resume nobody asked for */
	assert_int_equal(ptd_stub_resume(f.st, &f.out), PTD_STUB_REPLY);
	assert_true(f.out.len == 3 && f.out.p[0] == 'E');
	/* binary bytes, NULs included */
	{
		uint8_t pkt[] = {'m', 0, 0xff, ',', '4', 0};
		ptd_stub_packet(f.st, pkt, sizeof(pkt), &f.out);
		assert_true(f.out.len == 3 && f.out.p[0] == 'E');
	}
	ptd_stub_free(NULL);
	assert_null(ptd_stub_alloc(NULL, 0));
	teardown(&f);
}

static void test_target_xml(void **state)
{
	struct fixture f;
	char *xml = NULL;
	size_t len = 0;
	uint64_t off = 0;

	(void)state;
	setup_none(&f);
	/* read in small pieces, as gdb may */
	for (;;) {
		char pkt[96];
		const char *r;
		snprintf(pkt, sizeof(pkt), "qXfer:features:read:target.xml:%llx,100",
			 (unsigned long long)off);
		r = send(&f, pkt);
		assert_true(r[0] == 'm' || r[0] == 'l');
		size_t n = f.out.len - 1;
		xml = realloc(xml, len + n + 1);
		assert_non_null(xml);
		memcpy(xml + len, f.out.p + 1, n);
		len += n;
		xml[len] = 0;
		off += n;
		if (r[0] == 'l')
			break;
		assert_int_equal(n, 0x100);
	}
	assert_non_null(strstr(xml, "<architecture>i386:x86-64</architecture>"));
	assert_non_null(strstr(xml, "org.gnu.gdb.i386.core"));
	assert_non_null(strstr(xml, "org.gnu.gdb.i386.sse"));
	assert_non_null(strstr(xml, "org.gnu.gdb.i386.linux"));
	assert_non_null(strstr(xml, "\"orig_rax\""));
	assert_non_null(strstr(xml, "\"fs_base\""));
	assert_non_null(strstr(xml, "\"gs_base\""));
	assert_non_null(strstr(xml, "\"st7\""));
	assert_non_null(strstr(xml, "\"mxcsr\""));
	assert_non_null(strstr(xml, "</target>"));
	/* past the end: an empty last piece */
	assert_string_equal(send(&f, "qXfer:features:read:target.xml:100000,10"), "l");
	free(xml);
	teardown(&f);
}

/* qXfer:threads:read (gdb's threads.dtd) read whole and in pieces that
 * join up; qXfer:libraries-svr4:read empty before the dynamic linker has
 * run and listing libc at fib; lldb's qHostInfo/qProcessInfo with the
 * hex-encoded triple. */
static void test_threads_hostinfo(void **state)
{
	struct fixture f;
	char expect[256], doc[1024] = "", shlib[64];
	const char *r;
	pid_t pid;
	int off = 0;

	(void)state;
	setup_none(&f);
	assert_non_null(strstr(send(&f, "qSupported"), ";qXfer:threads:read+"));
	assert_string_equal(send(&f, "qXfer:threads:read::0,fff"),
			    "l<?xml version=\"1.0\"?>\n<threads>\n</threads>\n");
	assert_true(is_error(send(&f, "qProcessInfo")));
	assert_true(is_error(send(&f, "qXfer:libraries-svr4:read::0,fff")));
	assert_true(is_error(send(&f, "qShlibInfoAddr")));
	assert_non_null(strstr(send(&f, "qSupported"), ";qXfer:siginfo:read+"));
	assert_true(is_error(send(&f, "qXfer:siginfo:read::0,80")));
	teardown(&f);

	setup_fib(&f, 0);
	pid = ptd_session_pid(f.s);
	snprintf(expect, sizeof(expect),
		 "<?xml version=\"1.0\"?>\n<threads>\n<thread id=\"p%x.%x\" name=\"fib\"/>\n"
		 "</threads>\n",
		 pid, pid);
	r = send(&f, "qXfer:threads:read::0,fff");
	assert_int_equal(r[0], 'l');
	assert_string_equal(r + 1, expect);
	/* 16 bytes at a time: 'm' pieces, then the rest with 'l' */
	for (;;) {
		char pkt[64];
		snprintf(pkt, sizeof(pkt), "qXfer:threads:read::%x,10", off);
		r = send(&f, pkt);
		assert_true(r[0] == 'm' || r[0] == 'l');
		assert_true(strlen(r + 1) <= 16);
		strcat(doc, r + 1);
		off += (int)strlen(r + 1);
		if (r[0] == 'l')
			break;
	}
	assert_string_equal(doc, expect);
	assert_true(is_error(send(&f, "qXfer:threads:read:x:0,fff")));
	assert_true(is_error(send(&f, "qXfer:threads:read::zz")));
	assert_string_equal(send(&f, "qXfer:threads:write::0:00"), "");

	/* "x86_64-pc-linux-gnu" in hex */
	r = send(&f, "qHostInfo");
	assert_string_equal(r, "triple:7838365f36342d70632d6c696e75782d676e75;ostype:linux;"
			       "vendor:pc;endian:little;ptrsize:8;");
	snprintf(expect, sizeof(expect), "pid:%x;%s", pid, r);
	strcpy(doc, expect);
	assert_string_equal(send(&f, "qProcessInfo"), doc);

	/* stopped at ld.so's entry: r_debug is not set up yet */
	assert_non_null(strstr(send(&f, "qSupported"), ";qXfer:libraries-svr4:read+"));
	assert_string_equal(send(&f, "qXfer:libraries-svr4:read::0,fff"),
			    "l<library-list-svr4 version=\"1.0\"/>");
	assert_true(is_error(send(&f, "qXfer:libraries-svr4:read:start=0:0,fff")));
	/* lldb's qShlibInfoAddr: where ld.so will put r_debug's address
	 * (DT_DEBUG's value, in fib's dynamic section: 0 for now) */
	r = send(&f, "qShlibInfoAddr");
	assert_true(strlen(r) > 0 && strlen(r) < sizeof(shlib) - 8 && !is_error(r));
	snprintf(shlib, sizeof(shlib), "m%s,8", r);
	assert_string_equal(send(&f, shlib), "0000000000000000");
	{
		char pkt[64];
		uint64_t fib = fib_addr(&f);
		snprintf(pkt, sizeof(pkt), "Z0,%llx,1", (unsigned long long)fib);
		assert_string_equal(send(&f, pkt), "OK");
		send(&f, "vCont;c");
		assert_non_null(strstr(f.reply, "swbreak"));
	}
	/* $_siginfo at the breakpoint: the kernel's, SIGTRAP (si_signo,
	 * si_errno, si_code are ints; none of these bytes needs escaping) */
	r = send(&f, "qXfer:siginfo:read::0,200");
	assert_int_equal(r[0], 'l');
	assert_memory_equal(r + 1, "\x05\x00\x00\x00\x00\x00\x00\x00", 8);
	assert_true(is_error(send(&f, "qXfer:siginfo:read:x:0,200")));
	r = send(&f, "qXfer:siginfo:read::4,4");
	assert_int_equal(r[0], 'm');
	r = send(&f, "qXfer:libraries-svr4:read::0,fff");
	assert_int_equal(r[0], 'l');
	assert_non_null(strstr(r, "<library-list-svr4 version=\"1.0\" main-lm=\"0x"));
	assert_non_null(strstr(r, "/libc.so.6\" lm=\"0x"));
	assert_non_null(strstr(r, "/ld-linux-x86-64.so.2\" lm=\"0x"));
	assert_non_null(strstr(r, "</library-list-svr4>"));
	/* there now: r_debug, whose r_map (at 8) is the main-lm */
	{
		uint64_t rd = 0, map = 0;
		char pkt[64], want[64];
		snprintf(want, sizeof(want), "main-lm=\"0x");
		strncat(want, strstr(r, "main-lm=\"0x") + 11, 16);
		*strchr(want + 11, '"') = 0;
		r = send(&f, shlib);
		assert_int_equal(strlen(r), 16);
		for (int i = 7; i >= 0; i--)
			rd = rd << 8 |
			     (uint64_t)strtoul((char[3]){r[2 * i], r[2 * i + 1], 0}, NULL, 16);
		assert_true(rd != 0);
		snprintf(pkt, sizeof(pkt), "m%llx,8", (unsigned long long)(rd + 8));
		r = send(&f, pkt);
		assert_int_equal(strlen(r), 16);
		for (int i = 7; i >= 0; i--)
			map = map << 8 |
			      (uint64_t)strtoul((char[3]){r[2 * i], r[2 * i + 1], 0}, NULL, 16);
		snprintf(pkt, sizeof(pkt), "main-lm=\"0x%llx", (unsigned long long)map);
		assert_string_equal(pkt, want);
	}
	teardown(&f);
}

static void test_live(void **state)
{
	struct fixture f;
	char pkt[128], expect[64];
	const char *r;
	uint64_t pc, fib;
	pid_t pid;

	(void)state;
	setup_fib(&f, 0);
	pid = ptd_session_pid(f.s);
	assert_true(ptd_session_pc(f.s, &pc) == 0);
	snprintf(expect, sizeof(expect), "T05thread:p%x.%x;", pid, pid);
	assert_string_equal(send(&f, "?"), expect);
	snprintf(expect, sizeof(expect), "QCp%x.%x", pid, pid);
	assert_string_equal(send(&f, "qC"), expect);
	snprintf(expect, sizeof(expect), "mp%x.%x", pid, pid);
	assert_string_equal(send(&f, "qfThreadInfo"), expect);
	snprintf(pkt, sizeof(pkt), "Tp%x.%x", pid, pid);
	assert_string_equal(send(&f, pkt), "OK");
	assert_true(is_error(send(&f, "T7fffffff")));
	snprintf(pkt, sizeof(pkt), "Hgp%x.%x", pid, pid);
	assert_string_equal(send(&f, pkt), "OK");
	assert_string_equal(send(&f, "Hc-1"), "OK");
	assert_string_equal(send(&f, "Hg0"), "OK");
	assert_true(is_error(send(&f, "Hg7fffffff")));
	/* another process's threads are none of ours: nothing runs */
	snprintf(pkt, sizeof(pkt), "Hgp%x.%x", pid + 1, pid);
	assert_true(is_error(send(&f, pkt)));
	snprintf(pkt, sizeof(pkt), "Tp%x.%x", pid + 1, pid);
	assert_true(is_error(send(&f, pkt)));
	snprintf(pkt, sizeof(pkt), "vCont;c:p%x.-1", pid + 1);
	assert_true(is_error(send(&f, pkt)));
	snprintf(pkt, sizeof(pkt), "vCont;s:p%x.%x", pid + 1, pid);
	assert_true(is_error(send(&f, pkt)));
	{
		uint64_t pc2 = 0;
		assert_true(ptd_session_alive(f.s));
		assert_true(ptd_session_pc(f.s, &pc2) == 0 && pc2 == pc);
	}

	/* registers: the g layout of the target description; rip is the pc;
	 * x87 and SSE registers are unavailable ('x') */
	r = send(&f, "g");
	assert_int_equal(strlen(r), g_len());
	{
		uint8_t b[8];
		uint64_t rip = 0;
		assert_int_equal(ptd_rsp_unhex(r + 16 * 16, 16, b, 8), 8);
		for (int i = 7; i >= 0; i--)
			rip = rip << 8 | b[i];
		assert_true(rip == pc);
		assert_null(strchr(r, 'x')); /* live, everything is known */
	}
	r = send(&f, "p10"); /* rip */
	assert_int_equal(strlen(r), 16);
	/* the x87/SSE state a new process starts with */
	assert_string_equal(send(&f, "p18"), "00000000000000000000"); /* st0: 10 bytes */
	assert_string_equal(send(&f, "p20"), "7f030000");	      /* fctrl */
	assert_string_equal(send(&f, "p22"), "ffff0000");	      /* ftag: all empty */
	assert_string_equal(send(&f, "p38"), "801f0000");	      /* mxcsr */
	assert_int_equal(strlen(send(&f, "p28")), 32);		      /* xmm0 */
	assert_true(is_error(send(&f, "p3c")));
	/* write rbx and read it back */
	assert_string_equal(send(&f, "P1=1122334455667788"), "OK");
	assert_string_equal(send(&f, "p1"), "1122334455667788");
	assert_true(is_error(send(&f, "P18=00000000000000000000"))); /* st0: not writable */
	/* G: what g read comes back with one register changed; the x87/SSE
	 * part must be what it was */
	{
		char *g = strdup(send(&f, "g")), *gp;
		assert_non_null(g);
		gp = malloc(strlen(g) + 2);
		assert_non_null(gp);
		memcpy(g + 16, "8877665544332211", 16); /* rbx */
		snprintf(gp, strlen(g) + 2, "G%s", g);
		assert_string_equal(send(&f, gp), "OK");
		assert_string_equal(send(&f, "p1"), "8877665544332211");
		gp[1 + 2 * (17 * 8 + 7 * 4)] ^= 1; /* st0 changed */
		assert_true(is_error(send(&f, gp)));
		free(gp);
		free(g);
	}

	/* memory: read the code at fib, write it back unchanged, X probe */
	fib = fib_addr(&f);
	snprintf(pkt, sizeof(pkt), "m%llx,4", (unsigned long long)fib);
	r = send(&f, pkt);
	assert_int_equal(strlen(r), 8);
	{
		char orig[9];
		strcpy(orig, r);
		snprintf(pkt, sizeof(pkt), "M%llx,4:%s", (unsigned long long)fib, orig);
		assert_string_equal(send(&f, pkt), "OK");
		snprintf(pkt, sizeof(pkt), "X%llx,0:", (unsigned long long)fib);
		assert_string_equal(send(&f, pkt), "OK");
		snprintf(pkt, sizeof(pkt), "m%llx,4", (unsigned long long)fib);
		assert_string_equal(send(&f, pkt), orig);
	}
	assert_true(is_error(send(&f, "m0,4"))); /* unmapped */
	/* huge lengths are cut to what fits a reply */
	r = send(&f, "m400000,ffffffff");
	assert_true(strlen(r) <= PTD_STUB_PACKET_SIZE && strlen(r) > 0);

	/* auxv and the exec file */
	r = send(&f, "qXfer:auxv:read::0,1000");
	assert_true(r[0] == 'l' && f.out.len > 16);
	r = send(&f, "qXfer:exec-file:read::0,1000");
	assert_true(r[0] == 'l');
	assert_non_null(strstr(r, "/fib"));

	/* a breakpoint at fib: continue stops there with swbreak */
	snprintf(pkt, sizeof(pkt), "Z0,%llx,1", (unsigned long long)fib);
	assert_string_equal(send(&f, pkt), "OK");
	assert_string_equal(send(&f, pkt), "OK");	  /* inserted twice */
	/* a hardware breakpoint takes a debug register and gives it back */
	assert_string_equal(send(&f, "Z1,401000,1"), "OK");
	assert_string_equal(send(&f, "z1,401000,1"), "OK");
	snprintf(expect, sizeof(expect), "T05thread:p%x.%x;swbreak:;", pid, pid);
	assert_string_equal(send(&f, "vCont;c"), expect);
	assert_true(ptd_session_pc(f.s, &pc) == 0 && pc == fib);
	/* a step moves one instruction */
	snprintf(pkt, sizeof(pkt), "vCont;s:p%x.%x;c", pid, pid);
	snprintf(expect, sizeof(expect), "T05thread:p%x.%x;", pid, pid);
	assert_string_equal(send(&f, pkt), expect);
	assert_true(ptd_session_pc(f.s, &pc) == 0 && pc != fib);
	assert_string_equal(send(&f, "s"), expect);
	/* vCont;t: nothing runs */
	snprintf(expect, sizeof(expect), "T00thread:p%x.%x;", pid, pid);
	assert_string_equal(send(&f, "vCont;t"), expect);
	/* removing it twice takes it out; the program runs to its end */
	snprintf(pkt, sizeof(pkt), "z0,%llx,1", (unsigned long long)fib);
	assert_string_equal(send(&f, pkt), "OK");
	assert_string_equal(send(&f, pkt), "OK");
	assert_true(is_error(send(&f, "bc"))); /* not recording */
	snprintf(expect, sizeof(expect), "W00;process:%x", pid);
	assert_string_equal(send(&f, "c"), expect);
	assert_string_equal(send(&f, "?"), expect);
	assert_true(is_error(send(&f, "g")));
	assert_true(is_error(send(&f, "c")));
	assert_string_equal(send(&f, "qfThreadInfo"), "l");
	teardown(&f);
}

static void test_kill_detach(void **state)
{
	struct fixture f;
	char pkt[64];
	pid_t pid;

	(void)state;
	setup_fib(&f, 0);
	pid = ptd_session_pid(f.s);
	assert_true(is_error(send(&f, "vKill;1")));
	snprintf(pkt, sizeof(pkt), "vKill;%x", pid);
	assert_string_equal(send(&f, pkt), "OK");
	assert_false(ptd_session_alive(f.s));
	assert_true(is_error(send(&f, "c")));
	teardown(&f);

	setup_fib(&f, 0);
	assert_true(is_error(send(&f, "D;1")));
	pid = ptd_session_pid(f.s);
	/* the process's end, which lldb waits for (gdb reads no reply) */
	snprintf(pkt, sizeof(pkt), "X09;process:%x", pid);
	assert_string_equal(send(&f, "k"), pkt);
	assert_true(f.act & PTD_STUB_REPLY);
	assert_true(f.act & PTD_STUB_CLOSE);
	assert_false(ptd_session_alive(f.s));
	teardown(&f);
}

static void test_reverse(void **state)
{
	struct fixture f;
	char pkt[64], expect[96];
	const char *r;
	uint64_t pc0, pc1, pc2, fib;
	pid_t pid;

	(void)state;
	setup_fib(&f, 1);
	pid = ptd_session_pid(f.s);
	r = send(&f, "qSupported");
	assert_non_null(strstr(r, "ReverseStep+;ReverseContinue+"));
	fib = fib_addr(&f);
	assert_true(ptd_session_pc(f.s, &pc0) == 0);
	snprintf(pkt, sizeof(pkt), "Z0,%llx,1", (unsigned long long)fib);
	assert_string_equal(send(&f, pkt), "OK");
	send(&f, "c");
	snprintf(pkt, sizeof(pkt), "z0,%llx,1", (unsigned long long)fib);
	assert_string_equal(send(&f, pkt), "OK");
	assert_true(ptd_session_pc(f.s, &pc1) == 0 && pc1 == fib);
	snprintf(expect, sizeof(expect), "T05thread:p%x.%x;", pid, pid);
	assert_string_equal(send(&f, "bs"), expect);
	assert_true(ptd_session_replaying(f.s));
	assert_true(ptd_session_pc(f.s, &pc2) == 0 && pc2 != pc1);
	/* in the past only rip is known (step recorder) */
	r = send(&f, "p0");
	assert_string_equal(r, "xxxxxxxxxxxxxxxx");
	assert_string_equal(send(&f, "p38"), "xxxxxxxx"); /* mxcsr: not recorded */
	assert_int_equal(strlen(send(&f, "p10")), 16);
	assert_true(is_error(send(&f, "P10=0000000000000000")));
	assert_true(is_error(send(&f, "M401000,1:90")));
	/* back to the start of the history */
	snprintf(expect, sizeof(expect), "T05thread:p%x.%x;replaylog:begin;", pid, pid);
	assert_string_equal(send(&f, "bc"), expect);
	assert_true(ptd_session_pc(f.s, &pc2) == 0 && pc2 == pc0);
	/* forward again to the breakpoint, where the history ends: as gdb
	 * record full, the end of the history, not the breakpoint */
	snprintf(pkt, sizeof(pkt), "Z0,%llx,1", (unsigned long long)fib);
	assert_string_equal(send(&f, pkt), "OK");
	snprintf(expect, sizeof(expect), "T05thread:p%x.%x;replaylog:end;", pid, pid);
	assert_string_equal(send(&f, "c"), expect);
	assert_true(ptd_session_pc(f.s, &pc2) == 0 && pc2 == fib);
	teardown(&f);
}

/* gdb's record btrace: Qbtrace starts the recording, the trace comes as
 * btrace.dtd XML (blocks for bts, newest first, the newest ending at the
 * pc; raw PT for pt); delta reads are refused so gdb reads it all. */
static void read_doc(struct fixture *f, const char *what, char **doc)
{
	size_t len = 0;
	uint64_t off = 0;

	*doc = NULL;
	for (;;) {
		char pkt[96];
		const char *r;
		snprintf(pkt, sizeof(pkt), "qXfer:%s:%llx,1000", what, (unsigned long long)off);
		r = send(f, pkt);
		if (r[0] != 'm' && r[0] != 'l')
			fail_msg("%s: '%s'", pkt, r);
		size_t n = f->out.len - 1;
		*doc = realloc(*doc, len + n + 1);
		assert_non_null(*doc);
		memcpy(*doc + len, f->out.p + 1, n);
		len += n;
		(*doc)[len] = 0;
		off += n;
		if (r[0] == 'l')
			break;
	}
}

static void test_btrace(void **state)
{
	struct fixture f;
	char pkt[64], *doc, want[96];
	uint64_t fib, pc;

	(void)state;
	for (int pt = 0; pt < 2; pt++) {
		setup_fib(&f, 0);
		assert_non_null(strstr(send(&f, "qSupported"), "Qbtrace:bts+;Qbtrace:pt+"));
		assert_string_equal(send(&f, "Qbtrace-conf:bts:size=0x10000"), "OK");
		assert_string_equal(send(&f, "Qbtrace-conf:pt:size=4000"), "OK");
		assert_true(is_error(send(&f, "Qbtrace-conf:bts:size=0x")));
		assert_true(is_error(send(&f, "Qbtrace-conf:pt:size=zz")));
		assert_string_equal(send(&f, "Qbtrace-conf:other=1"), "");
		assert_true(is_error(send(&f, "qXfer:btrace:read:all:0,100"))); /* not on */
		assert_string_equal(send(&f, pt ? "Qbtrace:pt" : "Qbtrace:bts"), "OK");
		assert_true(ptd_session_recording(f.s));
		assert_true(is_error(send(&f, pt ? "Qbtrace:bts" : "Qbtrace:pt"))); /* one format */
		assert_true(is_error(send(&f, "Qbtrace:btsx")));
		fib = fib_addr(&f);
		snprintf(pkt, sizeof(pkt), "Z0,%llx,1", (unsigned long long)fib);
		assert_string_equal(send(&f, pkt), "OK");
		assert_true(strstr(send(&f, "c"), "swbreak") != NULL);
		assert_true(ptd_session_pc(f.s, &pc) == 0 && pc == fib);
		read_doc(&f, "btrace-conf:read:", &doc);
		assert_non_null(
			strstr(doc, pt ? "<pt size=\"0x4000\"/>" : "<bts size=\"0x10000\"/>"));
		free(doc);
		assert_true(is_error(send(&f, "qXfer:btrace:read:delta:0,100")));
		assert_true(is_error(send(&f, "qXfer:btrace:read:bogus:0,100")));
		read_doc(&f, "btrace:read:all", &doc);
		assert_non_null(strstr(doc, "<btrace version=\"1.0\">"));
		assert_non_null(strstr(doc, "</btrace>"));
		if (pt) {
			/* the cpu only when libipt knows it (gdb refuses to
			 * decode with one it does not know) */
			struct ptd_cpu_info cpu;
			struct pt_errata errata;
			struct pt_cpu pc = { pcv_intel, 0, 0, 0 };

			ptd_host_cpu(&cpu);
			pc.family = (uint16_t)cpu.family;
			pc.model = (uint8_t)cpu.model;
			pc.stepping = (uint8_t)cpu.stepping;
			if (!strcmp(cpu.vendor, "GenuineIntel") && cpu.family &&
			    pt_cpu_errata(&errata, &pc) == 0)
				assert_non_null(strstr(doc, "<pt-config>\n<cpu vendor=\"GenuineIntel\""));
			else
				assert_non_null(strstr(doc, "<pt-config>\n</pt-config>\n<raw>"));
			char *raw = strstr(doc, "<raw>");
			assert_non_null(raw);
			/* PT starts with a PSB: 02 82 repeated */
			assert_true(strncmp(raw + 5, "02820282", 8) == 0);
		} else {
			snprintf(want, sizeof(want), "<block begin=\"0x%llx\" end=\"0x%llx\"/>",
				 (unsigned long long)pc, (unsigned long long)pc);
			assert_non_null(strstr(doc, want));
			assert_true(strstr(doc, "<block") == strstr(doc, want));
			assert_non_null(strstr(strstr(doc, want) + 1, "<block begin=\"0x"));
		}
		free(doc);
		/* "new" is all of it again */
		read_doc(&f, "btrace:read:new", &doc);
		assert_non_null(strstr(doc, "</btrace>"));
		free(doc);
		assert_string_equal(send(&f, "Qbtrace:off"), "OK");
		assert_false(ptd_session_recording(f.s));
		assert_string_equal(send(&f, "Qbtrace:off"), "OK");
		teardown(&f);
	}
}

/* extended-remote: vRun and vAttach only after '!', malformed ones refused;
 * D and k leave the connection open. */
static void test_extended(void **state)
{
	struct fixture f;
	char path[600], pkt[1400], hex[1300];
	const char *r;

	(void)state;
	setup_none(&f);
	/* programs started later are recorded (--multi --record): gdb, which
	 * asks once, is told of reverse execution before any is there */
	assert_null(strstr(send(&f, "qSupported"), "ReverseStep+"));
	ptd_stub_set_record(f.st, PTD_METHOD_STEP);
	assert_non_null(strstr(send(&f, "qSupported"), ";ReverseStep+;ReverseContinue+"));
	ptd_stub_set_record(f.st, -1);
	snprintf(path, sizeof(path), "%s/fib", progdir);
	for (size_t i = 0; path[i]; i++)
		snprintf(hex + 2 * i, 3, "%02x", (unsigned char)path[i]);
	snprintf(pkt, sizeof(pkt), "vRun;%s", hex);
	assert_true(is_error(send(&f, pkt))); /* not extended */
	assert_true(is_error(send(&f, "vAttach;1")));
	assert_string_equal(send(&f, "!"), "OK");
	assert_true(is_error(send(&f, "vRun")));
	assert_true(is_error(send(&f, "vRun;zz")));
	assert_true(is_error(send(&f, "vRun;616")));
	assert_true(is_error(send(&f, "vRun;;")));  /* no program known yet */
	assert_true(is_error(send(&f, "vRun;00"))); /* a NUL in a name */
	assert_true(is_error(send(&f, "vAttach;0")));
	assert_true(is_error(send(&f, "vAttach;zz")));
	snprintf(pkt, sizeof(pkt), "vRun;%s;33", hex);
	r = send(&f, pkt);
	assert_true(strncmp(r, "T05thread:p", 11) == 0);
	assert_true(ptd_session_alive(f.s));
	assert_true(is_error(send(&f, "vAttach;1"))); /* a process is there */
	send(&f, "D");
	assert_string_equal(f.reply, "OK");
	assert_false(f.act & PTD_STUB_CLOSE);
	assert_false(ptd_session_alive(f.s));
	/* the detached fib runs to its end on its own; run it again */
	r = send(&f, "vRun;;34");
	assert_true(strncmp(r, "T05thread:p", 11) == 0);
	send(&f, "k");
	assert_false(f.act & (PTD_STUB_CLOSE | PTD_STUB_REPLY));
	assert_false(ptd_session_alive(f.s));
	teardown(&f);
}

/* Random packets (fixed seed) against a stub with no program and one on
 * a recorded program stopped at its start: any reply, never a crash.  No
 * k, D or vKill get through, so the program stays. */
/* Address of @sym in testprogs/@prog (non-PIE), from nm. */
static unsigned long long nm_sym(const char *prog, const char *sym)
{
	char cmd[700], line[512];
	unsigned long long addr = 0;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "nm %s/%s", progdir, prog);
	p = popen(cmd, "r");
	assert_non_null(p);
	while (fgets(line, sizeof(line), p)) {
		unsigned long long a;
		char type, name[400];
		if (sscanf(line, "%llx %c %399s", &a, &type, name) == 3 && !strcmp(name, sym))
			addr = a;
	}
	pclose(p);
	assert_true(addr != 0);
	return addr;
}

/* Sends the packet printf(@fmt, ...) makes. */
static const char *sendf(struct fixture *f, const char *fmt, ...)
{
	char pkt[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(pkt, sizeof(pkt), fmt, ap);
	va_end(ap);
	return send(f, pkt);
}

/* A continue that stops for debug-register reason @why ("watch:ADDR;"...)
 * in the main thread (@main) or another one. */
static void cont_stops(struct fixture *f, const char *why, int main)
{
	unsigned pid = (unsigned)ptd_session_pid(f->s), tid;
	char tail[64];
	const char *r = send(f, "c");

	assert_true(sscanf(r, "T05thread:p%*x.%x;", &tid) == 1);
	assert_int_equal(tid == pid, main);
	snprintf(tail, sizeof(tail), ";%s", why);
	assert_non_null(strstr(r, tail));
	assert_int_equal(strlen(strstr(r, tail)), strlen(tail)); /* the last field */
}

/* Z1-Z4 on testprogs/watch (counter = 1; counter = 2; r += probe; a new
 * thread runs worker: counter += 10; main prints counter): the stop
 * replies name the watchpoint and its address, a Z3 (read) does not stop
 * at a write, a region too big for the free debug registers is refused. */
/* testprogs/exec runs fib: the motion stops at the exec, "exec:PATH;" for
 * a gdb that offered exec-events (a SIGTRAP for one that did not, with
 * lldb-server's "reason:exec;" for lldb),
 * and gdb's breakpoints, the old program's, are gone from the new one. */
static void exec_run(int events)
{
	struct fixture f;
	char path[600], pkt[1400], hex[1300], want[1300], rep[1400];
	uint64_t main_addr;
	const char *r;
	char *real;

	setup_none(&f);
	snprintf(path, sizeof(path), "%s/exec", progdir);
	for (size_t i = 0; path[i]; i++)
		snprintf(hex + 2 * i, 3, "%02x", (unsigned char)path[i]);
	assert_string_equal(send(&f, "!"), "OK");
	r = send(&f, events ? "qSupported:multiprocess+;exec-events+" : "qSupported:multiprocess+");
	assert_true((strstr(r, ";exec-events+") != NULL) == events);
	snprintf(pkt, sizeof(pkt), "vRun;%s", hex);
	assert_true(strncmp(send(&f, pkt), "T05thread:p", 11) == 0);
	assert_int_equal(ptd_session_resolve(f.s, "main", &main_addr), 0);
	snprintf(pkt, sizeof(pkt), "Z0,%llx,1", (unsigned long long)main_addr);
	assert_string_equal(send(&f, pkt), "OK");
	r = send(&f, "c");
	assert_non_null(strstr(r, "swbreak:"));
	r = send(&f, "c");
	snprintf(path, sizeof(path), "%s/fib", progdir);
	real = realpath(path, NULL);
	assert_non_null(real);
	assert_true(strlen(real) < 600);
	for (size_t i = 0; real[i]; i++)
		snprintf(want + 2 * i, 3, "%02x", (unsigned char)real[i]);
	free(real);
	snprintf(rep, sizeof(rep), "T05exec:%.1200s;thread:p", want);
	if (events) {
		assert_true(strncmp(r, rep, strlen(rep)) == 0);
		assert_null(strstr(r, "reason:"));
	} else {
		/* a SIGTRAP for gdb; lldb reads lldb-server's reason */
		assert_true(strncmp(r, "T05thread:p", 11) == 0);
		assert_non_null(strstr(r, ";reason:exec;"));
	}
	assert_true(ptd_session_alive(f.s));
	/* none of gdb's breakpoints is left in the session */
	assert_int_equal(ptd_session_bp_count(f.s), 0);
	/* gdb removes no breakpoint it takes as gone: the answer is OK all the same */
	snprintf(pkt, sizeof(pkt), "z0,%llx,1", (unsigned long long)main_addr);
	assert_string_equal(send(&f, pkt), "OK");
	r = send(&f, "c");
	assert_true(strncmp(r, "W00", 3) == 0);
	teardown(&f);
}

static void test_exec(void **state)
{
	(void)state;
	exec_run(1);
	exec_run(0);
}

static void test_watch(void **state)
{
	struct fixture f;
	char path[600], why[64];
	char *argv[] = {path, NULL};
	unsigned long long counter = nm_sym("watch", "counter"), probe = nm_sym("watch", "probe");
	unsigned long long worker = nm_sym("watch", "worker");

	(void)state;
	memset(&f, 0, sizeof(f));
	snprintf(path, sizeof(path), "%s/watch", progdir);
	f.s = ptd_session_alloc();
	assert_non_null(f.s);
	assert_int_equal(ptd_session_set_program(f.s, argv), 0);
	assert_int_equal(ptd_session_launch(f.s), 0);
	f.st = ptd_stub_alloc(f.s, 0);
	assert_non_null(f.st);
	assert_non_null(strstr(send(&f, "qSupported:hwbreak+"), ";hwbreak+;"));

	assert_string_equal(sendf(&f, "Z2,%llx,8", counter), "OK");
	assert_string_equal(sendf(&f, "Z2,%llx,8", counter), "OK"); /* twice: counted */
	assert_string_equal(sendf(&f, "Z3,%llx,8", probe), "OK");
	assert_string_equal(sendf(&f, "Z1,%llx,1", worker), "OK");
	/* 7 bytes at an odd address need three registers; one is free */
	assert_true(is_error(sendf(&f, "Z4,%llx,7", counter + 1)));
	assert_true(is_error(sendf(&f, "Z2,%llx,0", counter)));
	assert_true(is_error(send(&f, "Z2,ffffffffff600000,8"))); /* refused by the kernel */
	assert_true(is_error(send(&f, "Z2,1234")));

	snprintf(why, sizeof(why), "watch:%llx;", counter);
	cont_stops(&f, why, 1); /* counter = 1 */
	cont_stops(&f, why, 1); /* counter = 2 */
	assert_string_equal(sendf(&f, "z2,%llx,8", counter), "OK");
	assert_string_equal(sendf(&f, "z2,%llx,8", counter), "OK");
	assert_string_equal(sendf(&f, "Z3,%llx,8", counter), "OK");
	snprintf(why, sizeof(why), "rwatch:%llx;", probe);
	cont_stops(&f, why, 1);
	/* the thread created now has the registers too */
	cont_stops(&f, "hwbreak:;", 0);
	snprintf(why, sizeof(why), "rwatch:%llx;", counter);
	cont_stops(&f, why, 0); /* worker reads counter; its write goes by */
	cont_stops(&f, why, 1); /* main reads it for printf */
	assert_string_equal(sendf(&f, "z3,%llx,8", counter), "OK");
	assert_string_equal(sendf(&f, "z3,%llx,8", probe), "OK");
	assert_string_equal(sendf(&f, "z1,%llx,1", worker), "OK");
	assert_string_equal(sendf(&f, "z4,%llx,8", probe), "OK"); /* never inserted */
	assert_int_equal(strncmp(send(&f, "c"), "W00", 3), 0); /* nothing stops it now */
	teardown(&f);
}

static void test_random(void **state)
{
	static const char *heads[] = {"m",
				      "M",
				      "X",
				      "g",
				      "G",
				      "p",
				      "P",
				      "Z0,",
				      "z0,",
				      "H",
				      "T",
				      "qXfer:features:read:",
				      "qXfer:auxv:read:",
				      "qXfer:exec-file:read:",
				      "vCont;",
				      "q",
				      "Q",
				      "v",
				      "?",
				      "qSupported:",
				      "Hg",
				      "Hc",
				      "qC",
				      "vCont?"};
	uint32_t seed = 12345;
	struct fixture f;

	(void)state;
	for (int round = 0; round < 2; round++) {
		if (round == 0)
			setup_none(&f);
		else
			setup_fib(&f, 0);
		for (int i = 0; i < 3000; i++) {
			uint8_t pkt[64];
			size_t n;
			const char *h;
			seed = seed * 1103515245u + 12345u;
			h = heads[(seed >> 16) % (sizeof(heads) / sizeof(heads[0]))];
			n = strlen(h);
			memcpy(pkt, h, n);
			seed = seed * 1103515245u + 12345u;
			size_t extra = (seed >> 16) % 24;
			for (size_t k = 0; k < extra; k++) {
				static const char alpha[] = "0123456789abcdef,:;.-px}\0\xff=";
				seed = seed * 1103515245u + 12345u;
				pkt[n++] = (uint8_t)alpha[(seed >> 16) % (sizeof(alpha) - 1)];
			}
			/* no writes to the live program's memory or registers */
			if (round == 1 &&
			    (pkt[0] == 'M' || pkt[0] == 'X' || pkt[0] == 'G' || pkt[0] == 'P'))
				continue;
			/* nor motions: they are tested above */
			if (round == 1 && n >= 5 && !memcmp(pkt, "vCont", 5))
				continue;
			int act = ptd_stub_packet(f.st, pkt, n, &f.out);
			assert_false(act & PTD_STUB_CLOSE);
			if (act & PTD_STUB_RESUME)
				fail_msg("random packet %.*s resumed", (int)n, pkt);
		}
		if (round == 1)
			assert_true(ptd_session_alive(f.s));
		teardown(&f);
	}
}

int main(void)
{
	const char *d = getenv("TESTPROGS");
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_signals),	    cmocka_unit_test(test_no_program),
		cmocka_unit_test(test_malformed),   cmocka_unit_test(test_target_xml),
		cmocka_unit_test(test_live),	    cmocka_unit_test(test_threads_hostinfo),
		cmocka_unit_test(test_kill_detach), cmocka_unit_test(test_reverse),
		cmocka_unit_test(test_btrace),	    cmocka_unit_test(test_extended),
		cmocka_unit_test(test_random),	    cmocka_unit_test(test_watch),
		cmocka_unit_test(test_exec),
	};

	snprintf(progdir, sizeof(progdir), "%s", d ? d : "testprogs/build");
	return cmocka_run_group_tests(tests, NULL, NULL);
}
