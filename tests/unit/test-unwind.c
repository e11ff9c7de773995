/*
 * Unit tests for src/unwind: a forked child calls a -> b -> c, stops
 * itself with SIGSTOP under PTRACE_TRACEME, and the parent unwinds it.
 * The frames, named with src/symbols on the child's own maps, must read
 * c, b, a, main in that order, frame 0 must be the child's current pc
 * (as PTRACE_GETREGS reports it), and stack pointers must grow outward.
 */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "ptdbg/ptdbg.h"
#include "symbols/symbols.h"
#include "unwind/unwind.h"

/* volatile work after each call keeps the calls from becoming tail jumps. */
static volatile int sink;

/* Global so their names are in the symbol table as written. */
int ptd_unwtest_a(int x);
int ptd_unwtest_b(int x);
int ptd_unwtest_c(int x);

__attribute__((noinline, used)) int ptd_unwtest_c(int x)
{
	raise(SIGSTOP);
	sink += x;
	return sink;
}

__attribute__((noinline, used)) int ptd_unwtest_b(int x)
{
	int r = ptd_unwtest_c(x + 1);

	sink += r;
	return r + 1;
}

__attribute__((noinline, used)) int ptd_unwtest_a(int x)
{
	int r = ptd_unwtest_b(x + 1);

	sink += r;
	return r + 1;
}

static pid_t child = -1;

static void kill_child(void)
{
	int st;

	if (child > 0) {
		kill(child, SIGKILL);
		waitpid(child, &st, 0);
		child = -1;
	}
}

/*
 * Starts this test binary again as "--child" under PTRACE_TRACEME, so its
 * stack is main -> a -> b -> c -> raise, and returns its pid stopped at
 * the SIGSTOP (after letting the exec stop pass).
 */
static pid_t start_child(void)
{
	pid_t pid = fork();
	int st;

	if (pid == 0) {
		ptrace(PTRACE_TRACEME, 0, NULL, NULL);
		execl("/proc/self/exe", "test-unwind", "--child", (char *)NULL);
		_exit(127);
	}
	if (pid < 0)
		return -1;
	for (;;) {
		if (waitpid(pid, &st, 0) != pid || !WIFSTOPPED(st))
			return -1;
		if (WSTOPSIG(st) == SIGSTOP)
			return pid;
		/* The exec stop (SIGTRAP): let the child run on to its SIGSTOP. */
		if (ptrace(PTRACE_CONT, pid, NULL, NULL) < 0)
			break;
	}
	kill(pid, SIGKILL);
	waitpid(pid, &st, 0);
	return -1;
}

static const char *frame_name(struct ptd_symbols *s, const struct ptd_frame *f, int i)
{
	struct ptd_symbol sym;
	/* Outer frames hold return addresses: look up the call itself. */
	uint64_t pc = i == 0 ? f->pc : f->pc - 1;

	if (ptd_symbols_lookup(s, pc, &sym) < 0)
		return "?";
	return sym.name;
}

static void test_backtrace_names(void **state)
{
	static const char *const want[] = { "ptd_unwtest_c", "ptd_unwtest_b", "ptd_unwtest_a",
					    "main" };
	struct ptd_frame frames[64];
	struct ptd_symbols *s;
	struct user_regs_struct regs;
	int n, i, first = -1;
	size_t k;

	child = start_child();
	assert_true(child > 0);
	n = ptd_unwind_backtrace(child, frames, 64);
	assert_true(n >= 5);

	assert_int_equal(ptrace(PTRACE_GETREGS, child, NULL, &regs), 0);
	assert_int_equal(frames[0].pc, regs.rip);
	assert_int_equal(frames[0].sp, regs.rsp);

	assert_int_equal(ptd_symbols_alloc_pid(&s, child), 0);
	for (i = 0; i < n; i++) {
		print_message("#%d %#llx sp %#llx cfa %#llx %s\n", i,
			      (unsigned long long)frames[i].pc, (unsigned long long)frames[i].sp,
			      (unsigned long long)frames[i].cfa, frame_name(s, &frames[i], i));
		if (first < 0 && !strcmp(frame_name(s, &frames[i], i), want[0]))
			first = i;
	}
	/* Frames below c are inside raise() in libc; then c, b, a, main. */
	assert_true(first >= 1);
	assert_true(first + 4 <= n);
	for (k = 0; k < 4; k++)
		assert_string_equal(frame_name(s, &frames[first + k], first + k), want[k]);
	/* The stack grows down: each outer frame's sp is higher, and the
	 * CFA of a frame is the sp of its caller. */
	for (i = 1; i < n; i++)
		assert_true(frames[i].sp > frames[i - 1].sp);
	for (k = 0; k < 3; k++)
		assert_int_equal(frames[first + k].cfa, frames[first + k + 1].sp);
	ptd_symbols_free(s);

	/* A second unwind of the same stop gives the same frames (cache reuse). */
	{
		struct ptd_frame again[64];
		int m = ptd_unwind_backtrace(child, again, 64);

		assert_int_equal(m, n);
		for (i = 0; i < n; i++)
			assert_int_equal(again[i].pc, frames[i].pc);
	}
	/* A short buffer gets the innermost frames only. */
	assert_int_equal(ptd_unwind_backtrace(child, frames, 2), 2);
	assert_int_equal(frames[0].pc, regs.rip);
	kill_child();
}

static void test_two_processes_in_turn(void **state)
{
	struct ptd_frame f1[64], f2[64];
	pid_t p1, p2;
	int n1, n2, st;

	/* The shared address space must not leak one process's state into
	 * the other: both stops give complete, equal-length backtraces. */
	p1 = start_child();
	assert_true(p1 > 0);
	p2 = start_child();
	assert_true(p2 > 0);
	n1 = ptd_unwind_backtrace(p1, f1, 64);
	n2 = ptd_unwind_backtrace(p2, f2, 64);
	kill(p1, SIGKILL);
	waitpid(p1, &st, 0);
	kill(p2, SIGKILL);
	waitpid(p2, &st, 0);
	assert_true(n1 >= 5);
	assert_int_equal(n1, n2);
	/* Same binary, no ASLR difference inside the executable's frames
	 * for a non-PIE; for a PIE the offsets within the stack differ, so
	 * compare only the counts and that frame 0 is a valid pc. */
	assert_true(f1[0].pc != 0 && f2[0].pc != 0);
}

static void test_errors(void **state)
{
	struct ptd_frame f[4];
	pid_t pid;
	int st;

	assert_int_equal(ptd_unwind_backtrace(0, f, 4), -ptde_invalid);
	assert_int_equal(ptd_unwind_backtrace(getpid(), NULL, 4), -ptde_invalid);
	assert_int_equal(ptd_unwind_backtrace(getpid(), f, 0), -ptde_invalid);

	/* A process we do not trace cannot be unwound: an error, no crash. */
	pid = fork();
	if (pid == 0) {
		pause();
		_exit(0);
	}
	assert_true(pid > 0);
	assert_true(ptd_unwind_backtrace(pid, f, 4) < 0);
	kill(pid, SIGKILL);
	waitpid(pid, &st, 0);
	/* Nor a pid that does not exist. */
	assert_true(ptd_unwind_backtrace(0x3ffffff0, f, 4) < 0);
}

static int teardown(void **state)
{
	kill_child();
	return 0;
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_backtrace_names, teardown),
		cmocka_unit_test(test_two_processes_in_turn),
		cmocka_unit_test(test_errors),
	};

	if (argc > 1 && !strcmp(argv[1], "--child")) {
		ptd_unwtest_a(1);
		return 0;
	}
	return cmocka_run_group_tests(tests, NULL, NULL);
}
