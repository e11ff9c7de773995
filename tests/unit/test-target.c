/*
 * Unit tests for src/target: launch, exec failure, wrong pids, stepping,
 * breakpoints with shadowed bytes, fork children without our int3s,
 * threads, exit codes, detach and kill.  Uses the programs in
 * testprogs/build (built by `make testprogs`).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "target/target.h"
#include "util/error.h"

static char progdir[4096];

static const char *prog(const char *name)
{
	static char path[4200];

	snprintf(path, sizeof(path), "%s/%s", progdir, name);
	return path;
}

/* Address of symbol @sym in @file from nm (the test programs are non-PIE). */
static uint64_t nm_addr(const char *file, const char *sym)
{
	char cmd[4400], line[512];
	uint64_t addr = 0;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "nm %s", file);
	p = popen(cmd, "r");
	assert_non_null(p);
	while (fgets(line, sizeof(line), p)) {
		unsigned long long a;
		char type, name[400];
		if (sscanf(line, "%llx %c %399s", &a, &type, name) == 3 && !strcmp(name, sym))
			addr = a;
	}
	pclose(p);
	assert_int_not_equal(addr, 0);
	return addr;
}

static struct ptd_target *launch(const char *name, char *arg)
{
	char *argv[3] = { (char *)prog(name), arg, NULL };
	struct ptd_launch l = { .argv = argv, .disable_aslr = 1 };
	struct ptd_target *t = NULL;

	assert_int_equal(ptd_target_launch(&t, &l), 0);
	assert_non_null(t);
	return t;
}

static int run_to_end(struct ptd_target *t, struct ptd_stop *st)
{
	for (;;) {
		assert_int_equal(ptd_target_resume_all(t, 0), 0);
		assert_int_equal(ptd_target_wait(t, st, 1), 0);
		if (st->kind == PTD_STOP_EXITED || st->kind == PTD_STOP_KILLED)
			return st->kind;
		if (st->kind == PTD_STOP_SIGNAL)
			continue; /* delivered on the next resume */
	}
}

static void test_null_args(void **state)
{
	struct ptd_launch l = { 0 };
	struct ptd_target *t = NULL;

	assert_int_equal(ptd_target_launch(NULL, &l), -ptde_invalid);
	assert_int_equal(ptd_target_launch(&t, &l), -ptde_invalid);
	assert_int_equal(ptd_target_attach(NULL, 1), -ptde_invalid);
	assert_int_equal(ptd_target_resume(NULL, 1, 0, 0), -ptde_invalid);
	assert_int_equal(ptd_target_wait(NULL, NULL, 1), -ptde_invalid);
	ptd_target_free(NULL);
}

static void test_exec_failure(void **state)
{
	char *argv[] = { "/nonexistent/program", NULL };
	struct ptd_launch l = { .argv = argv };
	struct ptd_target *t = NULL;
	int rc;

	ptd_clear_error();
	rc = ptd_target_launch(&t, &l);
	assert_true(rc < 0);
	assert_null(t);
	assert_non_null(strstr(ptd_last_error(rc), "cannot run '/nonexistent/program'"));
	assert_non_null(strstr(ptd_last_error(rc), "No such file"));
}

static void test_attach_bad_pid(void **state)
{
	struct ptd_target *t = NULL;

	assert_int_equal(ptd_target_attach(&t, 0), -ptde_invalid);
	/* pid_max is at most 4194304: this one cannot exist. */
	assert_int_equal(ptd_target_attach(&t, 99999999), -ptde_nosrch);
	assert_null(t);
}

static void test_step_and_exit(void **state)
{
	struct ptd_target *t = launch("fib", "5");
	struct ptd_stop st;
	uint64_t pc0, pc;
	int steps = 0;

	assert_int_equal(ptd_target_get_pc(t, ptd_target_pid(t), &pc0), 0);
	for (int i = 0; i < 200; i++) {
		assert_int_equal(ptd_target_resume(t, ptd_target_pid(t), 1, 0), 0);
		assert_int_equal(ptd_target_wait(t, &st, 1), 0);
		assert_int_equal(st.kind, PTD_STOP_STEP);
		assert_int_equal(ptd_target_get_pc(t, st.tid, &pc), 0);
		assert_int_equal(pc, st.pc);
		steps++;
	}
	assert_int_equal(steps, 200);
	assert_int_equal(run_to_end(t, &st), PTD_STOP_EXITED);
	assert_int_equal(st.status, 0);
	assert_false(ptd_target_alive(t));
	ptd_target_free(t);
}

static void test_breakpoint_shadow(void **state)
{
	struct ptd_target *t = launch("fib", "6");
	uint64_t fib = nm_addr(prog("fib"), "fib");
	uint8_t raw, masked, orig;
	struct ptd_stop st;
	int hits = 0;

	assert_int_equal(ptd_target_bp_insert(t, fib), 0);
	assert_true(ptd_target_bp_at(t, fib));
	assert_int_equal(ptd_target_read_raw(t, fib, &raw, 1), 1);
	assert_int_equal(ptd_target_read(t, fib, &masked, 1), 1);
	assert_int_equal(raw, 0xcc);
	assert_int_not_equal(masked, 0xcc);
	assert_int_equal(ptd_target_bp_orig(t, fib, &orig), 0);
	assert_int_equal(orig, masked);
	/* fib(6) makes 2*F(7)-1 = 25 calls. */
	for (;;) {
		assert_int_equal(ptd_target_resume_all(t, 0), 0);
		assert_int_equal(ptd_target_wait(t, &st, 1), 0);
		if (st.kind == PTD_STOP_EXITED)
			break;
		assert_int_equal(st.kind, PTD_STOP_BREAKPOINT);
		assert_int_equal(st.pc, fib);
		hits++;
	}
	assert_int_equal(hits, 25);
	assert_int_equal(st.status, 0);
	ptd_target_free(t);
}

/*
 * A thread that executed our int3 just before it was taken out (another
 * thread stepping over it) reports its trap later, after any number of
 * other breakpoints came and went: still ours, so the pc is rewound and
 * the program runs the original instruction (once a ring of the last 64
 * removals forgot it, and the trap reached the program with its pc
 * inside the instruction).
 */
static void test_bp_trap_after_removals(void **state)
{
	struct ptd_target *t = launch("fib", "6");
	uint64_t fib = nm_addr(prog("fib"), "fib");
	struct ptd_stop st;
	siginfo_t si;

	(void)state;
	assert_int_equal(ptd_target_bp_insert(t, fib), 0);
	assert_int_equal(ptd_target_resume_all(t, 0), 0);
	/* Trapped in the kernel's view; not yet seen by the target. */
	memset(&si, 0, sizeof(si));
	assert_int_equal(waitid(P_PID, (id_t)ptd_target_pid(t), &si, WSTOPPED | WNOWAIT), 0);
	assert_int_equal(si.si_status, SIGTRAP);
	assert_int_equal(ptd_target_bp_remove(t, fib), 0);
	for (uint64_t a = fib + 1; a < fib + 200; a++) {
		assert_int_equal(ptd_target_bp_insert(t, a), 0);
		assert_int_equal(ptd_target_bp_remove(t, a), 0);
	}
	assert_int_equal(ptd_target_wait(t, &st, 1), 0);
	assert_int_equal(st.kind, PTD_STOP_BREAKPOINT);
	assert_int_equal(st.pc, fib);
	/* ...and the program runs on as it would have. */
	assert_int_equal(run_to_end(t, &st), PTD_STOP_EXITED);
	assert_int_equal(st.status, 0);
	ptd_target_free(t);
}

static void test_bp_unmapped(void **state)
{
	struct ptd_target *t = launch("fib", "3");

	assert_true(ptd_target_bp_insert(t, 0x10) < 0);
	assert_int_equal(ptd_target_bp_remove(t, 0x10), -ptde_notfound);
	ptd_target_free(t);
}

/* A store of the program into its own code, as a JIT does it: straight
 * into memory, past the target's breakpoint table. */
static void program_store(struct ptd_target *t, uint64_t addr, uint8_t b)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/mem", (int)ptd_target_pid(t));
	int fd = open(path, O_RDWR);
	assert_true(fd >= 0);
	assert_int_equal(pwrite(fd, &b, 1, (off_t)addr), 1);
	close(fd);
}

static void test_bp_overwritten_by_program(void **state)
{
	struct ptd_target *t = launch("fib", "3");
	uint64_t a = nm_addr(prog("fib"), "fib"), b = nm_addr(prog("fib"), "main");
	uint8_t v;

	(void)state;
	assert_int_equal(ptd_target_bp_insert(t, a), 0);
	assert_int_equal(ptd_target_bp_insert(t, b), 0);
	program_store(t, a, 0x90);
	program_store(t, b, 0x91);
	/* Masked reads show what the program wrote, not the old byte. */
	assert_int_equal(ptd_target_read(t, a, &v, 1), 1);
	assert_int_equal(v, 0x90);
	/* Refreshing takes it as the original and puts the int3 back. */
	assert_int_equal(ptd_target_bp_refresh(t, a, a + 1), 1);
	assert_int_equal(ptd_target_bp_refresh(t, a, a + 1), 0);
	assert_int_equal(ptd_target_read_raw(t, a, &v, 1), 1);
	assert_int_equal(v, 0xcc);
	assert_int_equal(ptd_target_bp_orig(t, a, &v), 0);
	assert_int_equal(v, 0x90);
	assert_int_equal(ptd_target_read(t, a, &v, 1), 1);
	assert_int_equal(v, 0x90);
	assert_int_equal(ptd_target_bp_remove(t, a), 0);
	assert_int_equal(ptd_target_read_raw(t, a, &v, 1), 1);
	assert_int_equal(v, 0x90);
	/* Removing one the program overwrote keeps the program's byte. */
	assert_int_equal(ptd_target_bp_remove(t, b), 0);
	assert_int_equal(ptd_target_read_raw(t, b, &v, 1), 1);
	assert_int_equal(v, 0x91);
	assert_int_equal(ptd_target_bp_refresh(NULL, 0, 1), -ptde_invalid);
	ptd_target_free(t);
}

static void test_bp_enable_and_write(void **state)
{
	struct ptd_target *t = launch("fib", "3");
	uint64_t fib = nm_addr(prog("fib"), "fib");
	uint8_t b, orig, newb[2];

	assert_int_equal(ptd_target_bp_insert(t, fib), 0);
	assert_int_equal(ptd_target_read(t, fib, &orig, 1), 1);
	assert_int_equal(ptd_target_bp_enable(t, 0), 0);
	assert_int_equal(ptd_target_read_raw(t, fib, &b, 1), 1);
	assert_int_equal(b, orig);
	assert_int_equal(ptd_target_bp_enable(t, 1), 0);
	assert_int_equal(ptd_target_read_raw(t, fib, &b, 1), 1);
	assert_int_equal(b, 0xcc);
	/* A write through us over a breakpoint keeps the int3 and the new
	 * original byte. */
	newb[0] = 0x90;
	newb[1] = 0x90;
	assert_int_equal(ptd_target_write(t, fib, newb, 2), 2);
	assert_int_equal(ptd_target_read_raw(t, fib, &b, 1), 1);
	assert_int_equal(b, 0xcc);
	assert_int_equal(ptd_target_read(t, fib, &b, 1), 1);
	assert_int_equal(b, 0x90);
	ptd_target_kill(t);
	assert_false(ptd_target_alive(t));
	ptd_target_free(t);
}

static void test_fork_child_clean(void **state)
{
	/* child_work runs only in the child: with our int3 left in the
	 * child it would die of SIGTRAP and exit status would not be 7. */
	struct ptd_target *t = launch("fork", NULL);
	uint64_t cw = nm_addr(prog("fork"), "child_work");
	struct ptd_stop st;
	int forks = 0;

	assert_int_equal(ptd_target_bp_insert(t, cw), 0);
	for (;;) {
		assert_int_equal(ptd_target_resume_all(t, 0), 0);
		assert_int_equal(ptd_target_wait(t, &st, 1), 0);
		if (st.kind == PTD_STOP_EXITED)
			break;
		if (st.kind == PTD_STOP_FORK)
			forks++;
		assert_int_not_equal(st.kind, PTD_STOP_BREAKPOINT);
	}
	assert_int_equal(forks, 1);
	assert_int_equal(st.status, 0); /* the parent saw "child exited 7" */
	ptd_target_free(t);
}

static void test_threads(void **state)
{
	struct ptd_target *t = launch("threads", NULL);
	struct ptd_stop st;
	int clones = 0, exits = 0;

	for (;;) {
		assert_int_equal(ptd_target_resume_all(t, 0), 0);
		assert_int_equal(ptd_target_wait(t, &st, 1), 0);
		if (st.kind == PTD_STOP_EXITED)
			break;
		if (st.kind == PTD_STOP_CLONE) {
			clones++;
			assert_true(st.new_tid > 0);
			assert_int_equal(ptd_target_thread_state(t, st.new_tid), PTD_THREAD_STOPPED);
		}
		if (st.kind == PTD_STOP_THREAD_EXIT)
			exits++;
	}
	assert_int_equal(clones, 2);
	assert_int_equal(exits, 2);
	assert_int_equal(st.status, 0);
	ptd_target_free(t);
}

/* 800 threads in waves of 100 (testprogs/manythreads): every clone and
 * exit is seen, and the live count is right all along, also after the
 * table of threads was compacted. */
static void test_many_threads(void **state)
{
	char *argv[] = { (char *)prog("manythreads"), "8", "100", NULL };
	struct ptd_launch l = { .argv = argv, .disable_aslr = 1 };
	struct ptd_target *t = NULL;
	struct ptd_stop st;
	int clones = 0, exits = 0, most = 0;
	pid_t tids[128];

	assert_int_equal(ptd_target_launch(&t, &l), 0);
	for (;;) {
		int n;

		assert_int_equal(ptd_target_resume_all(t, 0), 0);
		assert_int_equal(ptd_target_wait(t, &st, 1), 0);
		if (st.kind == PTD_STOP_EXITED)
			break;
		clones += st.kind == PTD_STOP_CLONE;
		exits += st.kind == PTD_STOP_THREAD_EXIT;
		n = ptd_target_threads(t, NULL, 0);
		assert_int_equal(n, 1 + clones - exits);
		assert_int_equal(ptd_target_threads(t, tids, 128), n);
		if (n > most)
			most = n;
	}
	assert_int_equal(clones, 800);
	assert_int_equal(exits, 800);
	/* a whole wave is alive at once (a barrier); main's join returns
	 * when a thread's tid is cleared, which is before its exit reaches
	 * the tracer, so the next wave's first clones may be seen before the
	 * last exits of the one before */
	assert_true(most >= 101 && most <= 201);
	assert_int_equal(st.status, 0);
	ptd_target_free(t);
}

static void test_stop_all_and_step_threads(void **state)
{
	/* Single-step every thread of a threaded program to its end: the
	 * all-stop machinery must not lose or invent events. */
	struct ptd_target *t = launch("threads", NULL);
	uint64_t worker = nm_addr(prog("threads"), "worker");
	struct ptd_stop st;
	int bps = 0;

	assert_int_equal(ptd_target_bp_insert(t, worker), 0);
	for (;;) {
		assert_int_equal(ptd_target_resume_all(t, 0), 0);
		assert_int_equal(ptd_target_wait(t, &st, 1), 0);
		if (st.kind == PTD_STOP_EXITED)
			break;
		if (st.kind == PTD_STOP_BREAKPOINT) {
			bps++;
			assert_int_equal(st.pc, worker);
			assert_int_equal(ptd_target_stop_all(t, NULL, NULL), 0);
			pid_t tids[16];
			int n = ptd_target_threads(t, tids, 16);
			for (int i = 0; i < n; i++)
				assert_int_equal(ptd_target_thread_state(t, tids[i]),
						 PTD_THREAD_STOPPED);
		}
	}
	assert_int_equal(bps, 2);
	assert_int_equal(st.status, 0);
	ptd_target_free(t);
}

static void test_signal_exit(void **state)
{
	struct ptd_target *t = launch("segfault", NULL);
	struct ptd_stop st;

	assert_int_equal(ptd_target_resume_all(t, 0), 0);
	assert_int_equal(ptd_target_wait(t, &st, 1), 0);
	assert_int_equal(st.kind, PTD_STOP_SIGNAL);
	assert_int_equal(st.signo, SIGSEGV);
	assert_int_equal(st.si.si_signo, SIGSEGV);
	/* deliver it: the process dies */
	assert_int_equal(ptd_target_resume(t, st.tid, 0, -1), 0);
	assert_int_equal(ptd_target_wait(t, &st, 1), 0);
	assert_int_equal(st.kind, PTD_STOP_KILLED);
	assert_int_equal(st.signo, SIGSEGV);
	ptd_target_free(t);
}

int after_detach(int x);
__attribute__((noinline)) int after_detach(int x)
{
	return x + 1;
}

static void test_attach_detach(void **state)
{
	/* A child blocked on a pipe: attach, put an int3 on the function it
	 * calls next, detach; the child must then run that function and
	 * exit normally (an int3 left behind would kill it with SIGTRAP). */
	int pfd[2];
	pid_t pid;
	struct ptd_target *t = NULL;
	uint64_t fn = (uint64_t)(uintptr_t)after_detach;
	uint8_t raw;
	int status;

	assert_int_equal(pipe(pfd), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		char c;
		close(pfd[1]);
		if (read(pfd[0], &c, 1) != 1)
			_exit(5);
		_exit(after_detach(c) == 'x' + 1 ? 0 : 6);
	}
	close(pfd[0]);
	assert_int_equal(ptd_target_attach(&t, pid), 0);
	assert_int_equal(ptd_target_thread_state(t, pid), PTD_THREAD_STOPPED);
	assert_int_equal(ptd_target_bp_insert(t, fn), 0);
	assert_int_equal(ptd_target_read_raw(t, fn, &raw, 1), 1);
	assert_int_equal(raw, 0xcc);
	assert_int_equal(ptd_target_detach(t), 0);
	assert_false(ptd_target_alive(t));
	ptd_target_free(t);
	assert_int_equal(write(pfd[1], "x", 1), 1);
	close(pfd[1]);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
}

static void test_hw_args(void **state)
{
	struct ptd_target *t = launch("watch", NULL);
	uint64_t pa[8];
	int pl[8];

	assert_int_equal(ptd_target_hw_set(NULL, 0, 0x1000, 1, PTD_HW_WRITE), -ptde_invalid);
	assert_int_equal(ptd_target_hw_set(t, 4, 0x1000, 1, PTD_HW_WRITE), -ptde_invalid);
	assert_int_equal(ptd_target_hw_set(t, -1, 0x1000, 1, PTD_HW_WRITE), -ptde_invalid);
	assert_int_equal(ptd_target_hw_set(t, 0, 0x1000, 3, PTD_HW_WRITE), -ptde_invalid);
	assert_int_equal(ptd_target_hw_set(t, 0, 0x1002, 4, PTD_HW_WRITE), -ptde_invalid);
	assert_int_equal(ptd_target_hw_set(t, 0, 0x1000, 8, PTD_HW_EXEC), -ptde_invalid);
	assert_int_equal(ptd_target_hw_set(t, 0, 0x1000, 1, (enum ptd_hw_kind)2), -ptde_invalid);
	/* the kernel refuses a kernel address; the slot stays free */
	assert_true(ptd_target_hw_set(t, 0, 0xffffffff81000000ull, 8, PTD_HW_WRITE) < 0);
	assert_int_equal(ptd_target_hw_get(t, 0, NULL, NULL, NULL), 0);
	assert_int_equal(ptd_target_hw_free_slot(t), 0);
	for (int i = 0; i < PTD_HW_SLOTS; i++)
		assert_int_equal(ptd_target_hw_set(t, i, 0x601000 + 8 * i, 8, PTD_HW_ACCESS), 0);
	assert_int_equal(ptd_target_hw_free_slot(t), -ptde_busy);
	assert_int_equal(ptd_target_hw_clear(t, 2), 0);
	assert_int_equal(ptd_target_hw_free_slot(t), 2);
	assert_int_equal(ptd_target_hw_clear(t, 9), -ptde_invalid);
	assert_int_equal(ptd_target_hw_free_slot(NULL), -ptde_invalid);
	/* 7 bytes at ...1: 1 + 2 + 4, each aligned to its size */
	assert_int_equal(ptd_target_hw_pieces(0x1001, 7, pa, pl, 8), 3);
	assert_int_equal(pa[0], 0x1001);
	assert_int_equal(pl[0], 1);
	assert_int_equal(pa[1], 0x1002);
	assert_int_equal(pl[1], 2);
	assert_int_equal(pa[2], 0x1004);
	assert_int_equal(pl[2], 4);
	assert_int_equal(ptd_target_hw_pieces(0x1000, 16, pa, pl, 8), 2);
	assert_int_equal(ptd_target_hw_pieces(0x1000, 0, pa, pl, 8), -ptde_invalid);
	ptd_target_free(t);
}

static long read_long(struct ptd_target *t, uint64_t addr)
{
	long v = 0;

	assert_int_equal(ptd_target_read(t, addr, &v, sizeof(v)), sizeof(v));
	return v;
}

/* Resumes everything until a stop that is not a new thread's. */
static void next_stop(struct ptd_target *t, struct ptd_stop *st)
{
	do {
		assert_int_equal(ptd_target_resume_all(t, 0), 0);
		assert_int_equal(ptd_target_wait(t, st, 1), 0);
	} while (st->kind == PTD_STOP_CLONE || st->kind == PTD_STOP_THREAD_EXIT);
}

static void test_hw_watch(void **state)
{
	/* testprogs/watch: counter = 1; counter = 2; r += probe; a thread
	 * created then runs worker(), which adds 10 to counter. */
	const char *exe = prog("watch");
	uint64_t counter = nm_addr(exe, "counter"), probe = nm_addr(exe, "probe");
	uint64_t worker = nm_addr(exe, "worker"), main_fn = nm_addr(exe, "main");
	struct ptd_target *t = launch("watch", NULL);
	struct ptd_stop st;
	uint64_t a;
	int len;
	enum ptd_hw_kind k;

	assert_int_equal(ptd_target_hw_set(t, 0, counter, 8, PTD_HW_WRITE), 0);
	assert_int_equal(ptd_target_hw_set(t, 1, probe, 8, PTD_HW_ACCESS), 0);
	assert_int_equal(ptd_target_hw_set(t, 3, worker, 1, PTD_HW_EXEC), 0);
	assert_int_equal(ptd_target_hw_get(t, 1, &a, &len, &k), 1);
	assert_int_equal(a, probe);
	assert_int_equal(len, 8);
	assert_int_equal(k, PTD_HW_ACCESS);

	/* the two writes in main, reported after each store */
	for (long want = 1; want <= 2; want++) {
		next_stop(t, &st);
		assert_int_equal(st.kind, PTD_STOP_HWBREAK);
		assert_int_equal(st.hw_hits, 1u << 0);
		assert_int_equal(st.tid, ptd_target_pid(t));
		assert_true(st.pc > main_fn && st.pc < main_fn + 0x100);
		assert_int_equal(read_long(t, counter), want);
	}
	/* the read of probe */
	next_stop(t, &st);
	assert_int_equal(st.kind, PTD_STOP_HWBREAK);
	assert_int_equal(st.hw_hits, 1u << 1);
	/* the thread created after the slots were set: the execute
	 * breakpoint stops it before worker's first instruction */
	next_stop(t, &st);
	assert_int_equal(st.kind, PTD_STOP_HWBREAK);
	assert_int_equal(st.hw_hits, 1u << 3);
	assert_int_not_equal(st.tid, ptd_target_pid(t));
	assert_int_equal(st.pc, worker);
	/* resuming runs the instruction (no endless trap) up to its write */
	next_stop(t, &st);
	assert_int_equal(st.kind, PTD_STOP_HWBREAK);
	assert_int_equal(st.hw_hits, 1u << 0);
	assert_int_not_equal(st.tid, ptd_target_pid(t));
	assert_int_equal(read_long(t, counter), 12);
	/* cleared: nothing more stops it */
	assert_int_equal(ptd_target_hw_clear(t, 0), 0);
	assert_int_equal(ptd_target_hw_clear(t, 1), 0);
	assert_int_equal(ptd_target_hw_clear(t, 3), 0);
	assert_int_equal(run_to_end(t, &st), PTD_STOP_EXITED);
	assert_int_equal(st.status, 0);
	ptd_target_free(t);
}

static volatile long hw_detach_var;

__attribute__((noinline)) static void hw_detach_write(long v)
{
	hw_detach_var = v;
}

static void test_hw_detach(void **state)
{
	/* A child watched with a write watchpoint is detached before it
	 * writes: the debug registers must go with us, or the write would
	 * kill it with SIGTRAP. */
	int pfd[2], status;
	pid_t pid;
	struct ptd_target *t = NULL;

	assert_int_equal(pipe(pfd), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		char c;
		close(pfd[1]);
		if (read(pfd[0], &c, 1) != 1)
			_exit(5);
		hw_detach_write(c);
		_exit(hw_detach_var == 'x' ? 0 : 6);
	}
	close(pfd[0]);
	assert_int_equal(ptd_target_attach(&t, pid), 0);
	assert_int_equal(ptd_target_hw_set(t, 0, (uint64_t)(uintptr_t)&hw_detach_var, 8,
					   PTD_HW_WRITE), 0);
	assert_int_equal(ptd_target_detach(t), 0);
	assert_int_equal(ptd_target_hw_set(t, 1, (uint64_t)(uintptr_t)&hw_detach_var, 8,
					   PTD_HW_WRITE), -ptde_not_running);
	ptd_target_free(t);
	assert_int_equal(write(pfd[1], "x", 1), 1);
	close(pfd[1]);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
}
/* PTRACE_O_TRACEEXIT (ptd_target_set_exit_stops): each thread reports
 * PTD_STOP_EXITING on its way out, in the kernel past its exit syscall,
 * with its registers and the memory still readable; resuming it lets it
 * exit.  Killing a program held there does not hang. */
static int exiting_stop(struct ptd_target *t, struct ptd_stop *st)
{
	for (;;) {
		assert_int_equal(ptd_target_wait(t, st, 1), 0);
		if (st->kind != PTD_STOP_SIGNAL && st->kind != PTD_STOP_CLONE &&
		    st->kind != PTD_STOP_INTERRUPT)
			return st->kind;
		assert_int_equal(ptd_target_resume_all(t, 0), 0);
	}
}

static void test_exit_stops(void **state)
{
	struct ptd_target *t = launch("sysexit", NULL);
	struct user_regs_struct r;
	struct ptd_stop st;
	uint8_t b[2];
	int seen = 0;

	(void)state;
	assert_int_equal(ptd_target_set_exit_stops(NULL, 1), -ptde_invalid);
	assert_int_equal(ptd_target_set_exit_stops(t, 1), 0);
	assert_int_equal(ptd_target_resume_all(t, 0), 0);
	assert_int_equal(exiting_stop(t, &st), PTD_STOP_EXITING);
	assert_int_equal(st.status, 3 << 8); /* its wait status to be */
	assert_int_equal(ptd_target_get_regs(t, st.tid, &r), 0);
	assert_int_equal(r.orig_rax, 60); /* SYS_exit */
	assert_int_equal(r.rdi, 3);
	assert_int_equal(r.rip, st.pc);
	assert_int_equal(ptd_target_read(t, r.rip - 2, b, 2), 2);
	assert_int_equal(b[0], 0x0f);
	assert_int_equal(b[1], 0x05);
	/* the registers can be written (the session shows the syscall) */
	r.rip -= 2;
	assert_int_equal(ptd_target_set_regs(t, st.tid, &r), 0);
	assert_int_equal(ptd_target_resume(t, st.tid, 0, 0), 0);
	assert_int_equal(ptd_target_wait(t, &st, 1), 0);
	assert_int_equal(st.kind, PTD_STOP_EXITED);
	assert_int_equal(st.status, 3);
	ptd_target_free(t);

	/* exit(5) from a worker: it and main (killed in pthread_join) each
	 * stop on their way out */
	t = launch("sysexit", "group");
	assert_int_equal(ptd_target_set_exit_stops(t, 1), 0);
	assert_int_equal(ptd_target_resume_all(t, 0), 0);
	for (;;) {
		int k = exiting_stop(t, &st);
		if (k == PTD_STOP_EXITED)
			break;
		if (k == PTD_STOP_THREAD_EXIT)
			continue;
		if (k == PTD_STOP_EXITING) {
			assert_int_equal(st.status, 5 << 8);
			assert_int_equal(ptd_target_get_regs(t, st.tid, &r), 0);
			assert_true(r.orig_rax == 231 || st.tid == ptd_target_pid(t));
			seen++;
		}
		assert_int_equal(ptd_target_resume(t, st.tid, 0, 0), 0);
	}
	assert_int_equal(seen, 2);
	assert_int_equal(st.status, 5);
	ptd_target_free(t);

	/* killed while held in the exit stop */
	t = launch("sysexit", NULL);
	assert_int_equal(ptd_target_set_exit_stops(t, 1), 0);
	assert_int_equal(ptd_target_resume_all(t, 0), 0);
	assert_int_equal(exiting_stop(t, &st), PTD_STOP_EXITING);
	assert_int_equal(ptd_target_kill(t), 0);
	assert_false(ptd_target_alive(t));
	ptd_target_free(t);
}

int main(void)
{
	const char *d = getenv("TESTPROGS");
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_null_args),
		cmocka_unit_test(test_bp_overwritten_by_program),
		cmocka_unit_test(test_exec_failure),
		cmocka_unit_test(test_attach_bad_pid),
		cmocka_unit_test(test_step_and_exit),
		cmocka_unit_test(test_exit_stops),
		cmocka_unit_test(test_breakpoint_shadow),
		cmocka_unit_test(test_bp_trap_after_removals),
		cmocka_unit_test(test_bp_unmapped),
		cmocka_unit_test(test_bp_enable_and_write),
		cmocka_unit_test(test_fork_child_clean),
		cmocka_unit_test(test_threads),
		cmocka_unit_test(test_many_threads),
		cmocka_unit_test(test_stop_all_and_step_threads),
		cmocka_unit_test(test_signal_exit),
		cmocka_unit_test(test_attach_detach),
		cmocka_unit_test(test_hw_args),
		cmocka_unit_test(test_hw_watch),
		cmocka_unit_test(test_hw_detach),
	};

	snprintf(progdir, sizeof(progdir), "%s", d ? d : "testprogs/build");
	return cmocka_run_group_tests(tests, NULL, NULL);
}
