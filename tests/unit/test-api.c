/*
 * The public API as a front end sees it: this test includes only
 * include/ptdbg/ptdbg.h.  It covers what moved out of the shell into the
 * library (backtraces in the past give return addresses; the gap beside a
 * position and its reason), the live-program setters the gdb stub uses,
 * ptd_version(), and the NULL cases of those functions.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ptdbg/ptdbg.h"

static char progdir[4096];

static struct ptd_session *start_fib(const char *arg)
{
	static char path[4200];
	char *argv[3];
	struct ptd_session *s = ptd_session_alloc();
	struct ptd_event ev;

	assert_non_null(s);
	snprintf(path, sizeof(path), "%s/fib", progdir);
	argv[0] = path;
	argv[1] = (char *)arg;
	argv[2] = NULL;
	assert_int_equal(ptd_session_set_program(s, argv), 0);
	assert_int_equal(ptd_session_run(s, 1, &ev), 0); /* at main */
	assert_int_equal(ev.kind, PTD_EVENT_BREAKPOINT);
	return s;
}

static void test_version(void **state)
{
	char want[32];

	snprintf(want, sizeof(want), "%d.%d", PTD_VERSION_MAJOR, PTD_VERSION_MINOR);
	assert_string_equal(ptd_version(), want);
}

static void test_null(void **state)
{
	struct user_regs_struct r;
	struct user_fpregs_struct f;
	struct ptd_cpu_info cpu;
	uint64_t n;
	int reason;

	memset(&r, 0, sizeof(r));
	assert_true(ptd_session_gap_near(NULL, &n, &reason) < 0);
	assert_true(ptd_session_write(NULL, 0x1000, "x", 1) < 0);
	assert_true(ptd_session_set_regs(NULL, 0, &r) < 0);
	assert_true(ptd_session_set_pc(NULL, 0, 0x1000) < 0);
	assert_true(ptd_session_set_signal(NULL, 0, SIGINT) < 0);
	assert_true(ptd_session_fpregs(NULL, 0, &f) < 0);
	assert_true(ptd_session_backtrace(NULL, &n, 1) < 0);
	assert_true(ptd_session_catch(NULL, PTD_CATCH_THROW, 0) == -ptde_invalid);
	assert_true(ptd_session_catch_signal(NULL, NULL, 0, 1, 0) == -ptde_invalid);
	ptd_host_cpu(NULL);
	ptd_host_cpu(&cpu);
	assert_int_equal(strlen(cpu.vendor), 12);

	/* no program: the setters say so */
	struct ptd_session *s = ptd_session_alloc();
	assert_non_null(s);
	assert_int_equal(ptd_session_write(s, 0x1000, "x", 1), -ptde_not_running);
	assert_int_equal(ptd_session_set_pc(s, 0, 0x1000), -ptde_not_running);
	assert_true(ptd_session_gap_near(s, &n, &reason) < 0);
	/* a catchpoint waits for libstdc++ (pending); a bad kind is refused */
	assert_int_equal(ptd_session_catch(s, PTD_CATCH_NONE, 0), -ptde_invalid);
	assert_int_equal(ptd_session_catch(s, PTD_CATCH_SIGNAL + 1, 0), -ptde_invalid);
	int id = ptd_session_catch(s, PTD_CATCH_CATCH, 1);
	struct ptd_bpinfo bi;

	assert_true(id > 0);
	assert_int_equal(ptd_session_bp_get(s, 0, &bi), 0);
	assert_int_equal(bi.catch_kind, PTD_CATCH_CATCH);
	assert_int_equal(bi.nlocs, 0);
	assert_int_equal(bi.temporary, 1);
	int sigs[2] = { SIGUSR1, 65 };

	assert_int_equal(ptd_session_catch_signal(s, sigs, 2, 0, 0), -ptde_invalid);
	assert_true(ptd_session_catch_signal(s, sigs, 1, 0, 0) > id);
	assert_int_equal(ptd_session_bp_get(s, 1, &bi), 0);
	assert_int_equal(bi.catch_kind, PTD_CATCH_SIGNAL);
	assert_true(bi.catch_signals == 1ull << (SIGUSR1 - 1));
	ptd_session_free(s);
}

/* The instruction just before @ret is a call that returns to @ret. */
static void assert_return_address(struct ptd_session *s, uint64_t ret)
{
	uint8_t buf[16];
	struct ptd_insn_info ii;
	int found = 0;

	/* near calls are 2 (call *%rax) to 7 bytes long */
	for (int len = 2; len <= 7 && !found; len++) {
		if (ptd_session_read(s, ret - len, buf, sizeof(buf)) < len)
			continue;
		if (ptd_disasm_decode(buf, sizeof(buf), ret - len, &ii) == 0 &&
		    ii.iclass == PTD_IC_CALL && ii.len == len)
			found = 1;
	}
	assert_true(found);
}

/*
 * The backtrace in the recorded past equals the live one (return
 * addresses, as libunwind gives them), the shell's old fix-up now done by
 * the session for every front end.
 */
static void test_backtrace_past(void **state)
{
	struct ptd_session *s = start_fib("5");
	struct ptd_event ev;
	uint64_t live[16], past[16];
	int nlive, npast;

	assert_int_equal(ptd_session_record_start(s, PTD_METHOD_STEP), 0);
	assert_true(ptd_session_break(s, "fib", 0) > 0);
	for (int i = 0; i < 3; i++) {
		assert_int_equal(ptd_session_motion(s, PTD_MOTION_CONTINUE, 0, &ev), 0);
		assert_int_equal(ev.kind, PTD_EVENT_BREAKPOINT);
	}
	nlive = ptd_session_backtrace(s, live, 16);
	assert_true(nlive >= 4); /* fib fib fib main (and libc's callers) */
	/* a step back stays in the same frame (fib's prologue) */
	assert_int_equal(ptd_session_motion(s, PTD_MOTION_STEPI, 1, &ev), 0);
	assert_true(ptd_session_replaying(s));
	npast = ptd_session_backtrace(s, past, 16);
	/* the past knows the callers since the recording began, joined
	 * with the stack as it was then: main's callers too */
	assert_int_equal(npast, nlive);
	assert_int_equal(past[0], ev.pc);
	for (int i = 1; i < npast; i++) {
		assert_int_equal(past[i], live[i]);
		assert_return_address(s, past[i]);
	}
	ptd_session_free(s);
}

/* A bounded recording starts with a gap: standing next to it, the session
 * names it (what a PTD_EVENT_GAP stop prints). */
static void test_gap_near(void **state)
{
	struct ptd_session *s = start_fib("18");
	struct ptd_event ev;
	uint64_t n = 0, pos, count;
	int reason = -1;

	assert_int_equal(ptd_session_set_buffer_size(s, PTD_METHOD_STEP, PTD_RECORD_BUFFER_MIN), 0);
	assert_int_equal(ptd_session_record_start(s, PTD_METHOD_STEP), 0);
	assert_true(ptd_session_break(s, "printf", 0) > 0);
	assert_int_equal(ptd_session_motion(s, PTD_MOTION_CONTINUE, 0, &ev), 0);
	assert_int_equal(ev.kind, PTD_EVENT_BREAKPOINT);
	/* at the end of the history: no gap beside it */
	assert_int_equal(ptd_session_gap_near(s, &n, &reason), 0);
	assert_int_equal(ptd_session_goto(s, "begin", &ev), 0);
	assert_int_equal(ptd_session_position(s, &pos, &count), 0);
	assert_int_equal(pos, 2); /* the first instruction after the gap */
	assert_int_equal(ptd_session_gap_near(s, &n, &reason), 1);
	assert_int_equal(n, 1);
	assert_int_equal(reason, PTD_GAP_DROPPED);
	assert_int_equal(ptd_session_gap_near(s, NULL, NULL), 1);
	/* the past cannot be changed */
	assert_int_equal(ptd_session_write(s, ev.pc, "\x90", 1), -ptde_invalid);
	assert_int_equal(ptd_session_set_pc(s, 0, ev.pc), -ptde_invalid);
	ptd_session_free(s);
}

/* The setters change the live program: a register, memory, the pc. */
static void test_setters(void **state)
{
	struct ptd_session *s = start_fib("5");
	struct user_regs_struct r, r2;
	struct user_fpregs_struct f;
	struct ptd_thread_info th;
	uint64_t pc, sp, v = 0x1122334455667788ull, back = 0;
	int pc_only;

	assert_int_equal(ptd_session_regs(s, &r, &pc_only), 0);
	assert_int_equal(pc_only, 0);
	sp = r.rsp - 256; /* below the red zone: unused stack */
	assert_int_equal(ptd_session_write(s, sp, &v, sizeof(v)), (long)sizeof(v));
	assert_int_equal(ptd_session_read(s, sp, &back, sizeof(back)), (long)sizeof(back));
	assert_int_equal(back, v);
	r.rax = 0x4242;
	assert_int_equal(ptd_session_set_regs(s, 0, &r), 0);
	assert_int_equal(ptd_session_regs(s, &r2, &pc_only), 0);
	assert_int_equal(r2.rax, 0x4242);
	/* by tid too, and an unknown tid is refused */
	assert_int_equal(ptd_session_threads(s, &th, 1), 1);
	pc = r.rip;
	assert_int_equal(ptd_session_set_pc(s, th.tid, pc), 0);
	assert_int_equal(ptd_session_set_pc(s, th.tid + 100000, pc), -ptde_notfound);
	assert_int_equal(ptd_session_fpregs(s, 0, &f), 0);
	assert_int_equal(ptd_session_set_signal(s, 0, 0), 0);
	assert_int_equal(ptd_session_set_signal(s, 0, -3), -ptde_invalid);
	ptd_session_free(s);
}

/* A launched program's redirections (what the shell's run < in > out
 * uses): the output in the file, in order; bad descriptors refused. */
static void test_redirects(void **state)
{
	char path[64] = "/tmp/ptdbg-api-redir-XXXXXX", buf[256] = "", *argv[3];
	static char prog[4200];
	struct ptd_redirect r[2] = { { .fd = 1 }, { .fd = 2, .dup_from = 1 } };
	struct ptd_redirect bad = { .fd = 3, .path = "x" }, bad2 = { .fd = 2, .dup_from = 7 };
	struct ptd_session *s = ptd_session_alloc();
	struct ptd_event ev;
	int fd = mkstemp(path);
	ssize_t n;

	(void)state;
	assert_non_null(s);
	assert_true(fd >= 0);
	snprintf(prog, sizeof(prog), "%s/fib", progdir);
	argv[0] = prog;
	argv[1] = "5";
	argv[2] = NULL;
	assert_int_equal(ptd_session_set_program(s, argv), 0);
	assert_int_equal(ptd_session_set_redirects(s, &bad, 1), -ptde_invalid);
	assert_int_equal(ptd_session_set_redirects(s, &bad2, 1), -ptde_invalid);
	/* set inferior-tty: a tty that cannot be opened stops the run */
	assert_int_equal(ptd_session_set_tty(NULL, "x"), -ptde_invalid);
	assert_string_equal(ptd_session_tty(NULL), "");
	assert_string_equal(ptd_session_tty(s), "");
	assert_int_equal(ptd_session_set_tty(s, "/nonexistent/tty"), 0);
	assert_string_equal(ptd_session_tty(s), "/nonexistent/tty");
	assert_true(ptd_session_run(s, 0, &ev) < 0);
	assert_string_equal(ptd_last_error(0), "/nonexistent/tty: No such file or directory.\n"
					       "During startup program exited with code 1.");
	assert_false(ptd_session_alive(s));
	assert_int_equal(ptd_session_set_tty(s, ""), 0);
	assert_string_equal(ptd_session_tty(s), "");
	r[0].path = path;
	assert_int_equal(ptd_session_set_redirects(s, r, 2), 0);
	assert_int_equal(ptd_session_run(s, 0, &ev), 0);
	assert_int_equal(ev.kind, PTD_EVENT_EXITED);
	n = read(fd, buf, sizeof(buf) - 1);
	assert_true(n > 0);
	buf[n] = 0;
	assert_non_null(strstr(buf, "fib(5) = 5"));
	/* a file that cannot be opened: an error, nothing started */
	r[0].path = "/nonexistent/dir/f";
	assert_int_equal(ptd_session_set_redirects(s, r, 2), 0);
	assert_true(ptd_session_run(s, 0, &ev) < 0);
	assert_non_null(strstr(ptd_last_error(0), "/nonexistent/dir/f: No such file or directory"));
	assert_false(ptd_session_alive(s));
	close(fd);
	unlink(path);
	ptd_session_free(s);
}

int main(void)
{
	const char *d = getenv("TESTPROGS");
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_version),
		cmocka_unit_test(test_null),
		cmocka_unit_test(test_backtrace_past),
		cmocka_unit_test(test_gap_near),
		cmocka_unit_test(test_setters),
		cmocka_unit_test(test_redirects),
	};

	snprintf(progdir, sizeof(progdir), "%s", d ? d : "testprogs/build");
	return cmocka_run_group_tests(tests, NULL, NULL);
}
