/*
 * Unit tests for the teardown of src/target when ptdbg is asked to die
 * (ptd_target_quit_signal): an attached program must be left exactly as
 * it was, whether the signal lands while the tracer is blocked in a wait
 * (the handler tears down at once) or while it is busy (the next wait
 * does), and whether a thread is stopped just past one of our int3s.
 *
 * The program, P, is a forked copy of this test: two threads that call
 * spin_step() in a loop and check their own arithmetic against a copy that
 * is never breakpointed, in memory shared with the test.  The tracer, T,
 * is another forked copy that attaches to P, pins it, arms breakpoints and
 * is then killed; the test checks that T died of the signal, that P is
 * untraced, has its original code bytes and CPU masks, and, told to stop,
 * exits with its arithmetic intact.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "target/target.h"
#include "util/error.h"

struct shared {
	volatile unsigned iter[2];
	volatile int stop;
	volatile int bad;
};

static struct shared *sh;
/* the program of the running case, killed by the teardown if it fails */
static pid_t live_p;

/* Waits until P's threads have made progress; a P that died or hangs
 * fails the test instead of hanging it. */
static void wait_progress(unsigned from0, unsigned min1)
{
	for (long n = 0; sh->iter[0] == from0 || sh->iter[1] < min1; n++) {
		int st;
		if (live_p && waitpid(live_p, &st, WNOHANG) == live_p) {
			fprintf(stderr, "the program died (status 0x%x)\n", st);
			live_p = 0;
			fail();
		}
		if (n > 200000000L) {
			fprintf(stderr, "the program makes no progress\n");
			fail();
		}
		sched_yield();
	}
}

unsigned spin_step(unsigned s, unsigned i);
__attribute__((noinline)) unsigned spin_step(unsigned s, unsigned i)
{
	s = s * 31 + i;
	if (s & 1)
		s ^= 0x5bd1e995u;
	return s;
}

unsigned never_called(unsigned s);
__attribute__((noinline)) unsigned never_called(unsigned s)
{
	return s * 7 + 1;
}

/* The same arithmetic, never breakpointed: P's check of itself. */
static unsigned ref_step(unsigned s, unsigned i)
{
	volatile unsigned v = s * 31 + i;
	return (v & 1) ? v ^ 0x5bd1e995u : v;
}

static void *spin(void *arg)
{
	int k = (int)(long)arg;
	unsigned s = 1 + k, r = 1 + k;

	for (unsigned i = 0; !sh->stop; i++) {
		s = spin_step(s, i);
		r = ref_step(r, i);
		if (s != r)
			sh->bad = 1;
		sh->iter[k] = i;
	}
	return NULL;
}

static pid_t start_program(void)
{
	pid_t p = fork();

	assert_true(p >= 0);
	if (p == 0) {
		pthread_t th;
		if (pthread_create(&th, NULL, spin, (void *)1L))
			_exit(3);
		spin((void *)0L);
		pthread_join(th, NULL);
		_exit(sh->bad ? 1 : 0);
	}
	live_p = p;
	/* Both threads running before anyone attaches. */
	wait_progress(0, 1000);
	return p;
}

static void set_all_cpus(pid_t pid)
{
	cpu_set_t all;
	char path[64];
	FILE *f;
	int tid;

	CPU_ZERO(&all);
	for (int c = 0; c < (int)sysconf(_SC_NPROCESSORS_ONLN) && c < CPU_SETSIZE; c++)
		CPU_SET(c, &all);
	snprintf(path, sizeof(path), "ls /proc/%d/task", (int)pid);
	f = popen(path, "r");
	assert_non_null(f);
	while (fscanf(f, "%d", &tid) == 1)
		assert_int_equal(sched_setaffinity(tid, sizeof(all), &all), 0);
	pclose(f);
}

/* P as the test wants it after the tracer is gone. */
static void check_program(pid_t p)
{
	char cmd[256], line[256];
	uint8_t mine[16], theirs[16];
	FILE *f;
	int fd, nthreads = 0, st;
	unsigned before;
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);

	snprintf(cmd, sizeof(cmd),
		 "grep -h -E '^(TracerPid|Cpus_allowed_list):' /proc/%d/task/*/status", (int)p);
	f = popen(cmd, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		int tracer;
		char want[64], got[64];
		if (sscanf(line, "TracerPid: %d", &tracer) == 1) {
			assert_int_equal(tracer, 0);
			nthreads++;
		} else if (sscanf(line, "Cpus_allowed_list: %63s", got) == 1) {
			snprintf(want, sizeof(want), "0-%ld", ncpu - 1);
			if (strcmp(got, want)) {
				fprintf(stderr, "a thread runs on CPUs %s, it had %s\n", got, want);
				fail();
			}
		}
	}
	pclose(f);
	assert_int_equal(nthreads, 2);
	/* Code bytes: P is a fork of us, so its text is ours. */
	snprintf(cmd, sizeof(cmd), "/proc/%d/mem", (int)p);
	fd = open(cmd, O_RDONLY);
	assert_true(fd >= 0);
	memcpy(mine, (void *)spin_step, sizeof(mine));
	assert_int_equal(pread(fd, theirs, sizeof(theirs), (off_t)(uintptr_t)spin_step), sizeof(theirs));
	assert_memory_equal(mine, theirs, sizeof(mine));
	memcpy(mine, (void *)never_called, sizeof(mine));
	assert_int_equal(pread(fd, theirs, sizeof(theirs), (off_t)(uintptr_t)never_called),
			 sizeof(theirs));
	assert_memory_equal(mine, theirs, sizeof(mine));
	close(fd);
	/* It runs on by itself... */
	before = sh->iter[0];
	wait_progress(before, 1000);
	/* ...and its arithmetic never went wrong. */
	sh->stop = 1;
	assert_int_equal(waitpid(p, &st, 0), p);
	live_p = 0;
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
}

static void on_term(int sig)
{
	ptd_target_quit_signal(sig);
}

enum mode {
	DEFERRED,  /* the quit is noted while the tracer is busy */
	IN_WAIT,   /* the signal lands while the tracer is blocked in wait */
	HOT,       /* the signal lands while P keeps hitting our int3 */
	UNREAPED,  /* a thread stopped past our int3, its stop not yet read */
};

/* The tracer: never returns. */
static void tracer(pid_t p, enum mode m, int ready_fd)
{
	struct ptd_target *t = NULL;
	struct ptd_stop st;
	struct sigaction sa;
	int hits = 0;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_term;
	sa.sa_flags = SA_RESTART;
	sigaction(SIGTERM, &sa, NULL);
	if (ptd_target_attach(&t, p) < 0)
		_exit(10);
	if (ptd_target_pin(t, 0) < 0)
		_exit(11);
	if (ptd_target_bp_insert(t, (uint64_t)(uintptr_t)never_called) < 0)
		_exit(12);
	if (m != IN_WAIT && ptd_target_bp_insert(t, (uint64_t)(uintptr_t)spin_step) < 0)
		_exit(13);
	if (m == UNREAPED) {
		siginfo_t si;
		if (ptd_target_resume_all(t, 0) < 0)
			_exit(14);
		/* a thread has trapped on spin_step's int3 (its pc one past
		 * it): look without taking the stop, then quit */
		memset(&si, 0, sizeof(si));
		if (waitid(P_ALL, 0, &si, WSTOPPED | WEXITED | WNOWAIT | __WALL) < 0)
			_exit(17);
		ptd_target_quit_signal(SIGTERM);
		ptd_target_wait(t, &st, 1);
		_exit(18);
	}
	for (;;) {
		if (ptd_target_resume_all(t, 0) < 0)
			_exit(14);
		if (m == IN_WAIT && ready_fd >= 0) {
			(void)!write(ready_fd, "r", 1);
			close(ready_fd);
			ready_fd = -1;
		}
		if (ptd_target_wait(t, &st, 1) < 0)
			_exit(15);
		if (st.kind != PTD_STOP_BREAKPOINT && st.kind != PTD_STOP_INTERRUPT)
			_exit(16);
		if (++hits == 200) {
			if (m == DEFERRED)
				/* as a signal arriving now would: not at a safe
				 * point, so only noted; the next wait acts */
				ptd_target_quit_signal(SIGTERM);
			if (m == HOT && ready_fd >= 0) {
				(void)!write(ready_fd, "r", 1);
				close(ready_fd);
				ready_fd = -1;
			}
		}
	}
}

static void run_case(enum mode m)
{
	int pfd[2], st;
	pid_t p, t;
	char c;

	sh->stop = 0;
	sh->bad = 0;
	sh->iter[0] = sh->iter[1] = 0;
	p = start_program();
	set_all_cpus(p);
	assert_int_equal(pipe(pfd), 0);
	t = fork();
	assert_true(t >= 0);
	if (t == 0) {
		close(pfd[0]);
		tracer(p, m, pfd[1]);
		_exit(20);
	}
	close(pfd[1]);
	if (m == IN_WAIT || m == HOT) {
		assert_int_equal(read(pfd[0], &c, 1), 1);
		kill(t, SIGTERM);
	}
	close(pfd[0]);
	assert_int_equal(waitpid(t, &st, 0), t);
	if (!WIFSIGNALED(st) || WTERMSIG(st) != SIGTERM) {
		fprintf(stderr, "tracer ended with status 0x%x, expected death by SIGTERM\n", st);
		fail();
	}
	check_program(p);
}

static void test_quit_deferred(void **state)
{
	run_case(DEFERRED);
}

static void test_quit_in_wait(void **state)
{
	run_case(IN_WAIT);
}

static void test_quit_while_hitting_int3(void **state)
{
	/* where the signal lands varies; what P must see does not */
	for (int i = 0; i < 5; i++)
		run_case(HOT);
}

/* A launched program dies with the tracer, as under gdb. */
static void test_quit_with_unread_trap(void **state)
{
	for (int i = 0; i < 3; i++)
		run_case(UNREAPED);
}

static void test_quit_kills_launched(void **state)
{
	int pfd[2], st;
	pid_t t;
	char c, pidbuf[32] = "";

	assert_int_equal(pipe(pfd), 0);
	t = fork();
	assert_true(t >= 0);
	if (t == 0) {
		char *argv[] = { "/bin/sleep", "1000", NULL };
		struct ptd_launch l = { .argv = argv };
		struct ptd_target *tg = NULL;
		struct ptd_stop ps;
		struct sigaction sa;
		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = on_term;
		sigaction(SIGTERM, &sa, NULL);
		close(pfd[0]);
		if (ptd_target_launch(&tg, &l) < 0)
			_exit(10);
		snprintf(pidbuf, sizeof(pidbuf), "%d\n", (int)ptd_target_pid(tg));
		if (ptd_target_resume_all(tg, 0) < 0)
			_exit(11);
		(void)!write(pfd[1], pidbuf, strlen(pidbuf));
		ptd_target_wait(tg, &ps, 1);
		_exit(12);
	}
	close(pfd[1]);
	assert_true(read(pfd[0], pidbuf, sizeof(pidbuf) - 1) > 0);
	close(pfd[0]);
	(void)c;
	kill(t, SIGTERM);
	assert_int_equal(waitpid(t, &st, 0), t);
	assert_true(WIFSIGNALED(st) && WTERMSIG(st) == SIGTERM);
	/* the launched sleep went with it (reaped by init: look for it) */
	{
		char path[64];
		pid_t sp = (pid_t)atoi(pidbuf);
		int tries = 0;
		assert_true(sp > 0);
		snprintf(path, sizeof(path), "/proc/%d/stat", (int)sp);
		/* SIGKILL is immediate, but the exit may still be in flight:
		 * its state must be dead or zombie, never sleeping */
		for (;;) {
			FILE *f = fopen(path, "r");
			char state = 'X';
			if (!f)
				break;
			if (fscanf(f, "%*d %*s %c", &state) != 1)
				state = 'X';
			fclose(f);
			if (state == 'Z' || state == 'X')
				break;
			assert_true(++tries < 1000000);
			sched_yield();
		}
	}
}

static int kill_leftover(void **state)
{
	int st;

	if (live_p > 0) {
		kill(live_p, SIGKILL);
		waitpid(live_p, &st, 0);
		live_p = 0;
	}
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_quit_deferred, kill_leftover),
		cmocka_unit_test_teardown(test_quit_in_wait, kill_leftover),
		cmocka_unit_test_teardown(test_quit_while_hitting_int3, kill_leftover),
		cmocka_unit_test_teardown(test_quit_with_unread_trap, kill_leftover),
		cmocka_unit_test(test_quit_kills_launched),
	};

	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED)
		return 1;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
