/*
 * sysrace: two workers block in the same syscall instruction, the second
 * only once the first is in it, then main ends the program (exit_group)
 * with both still blocked.  Under the soft recorder the first worker's
 * step over that syscall keeps its int3 out for as long as it blocks, so
 * the second passes the syscall unseen: its exit stop finds it running,
 * yet inside the syscall, which (as for a thread stepping it, and under
 * single-stepping) must not count as executed.  The same happens when
 * the workers of a barrier call exit together.
 *
 * Each waiter polls /proc/self/task/TID/syscall until the thread before
 * it is blocked in read (number 0); the program's output does not depend
 * on the scheduling, only the number of polls does.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static int pipefd[2];
static volatile pid_t tids[2];

/* One syscall instruction for both workers. */
__attribute__((noinline)) long block_read(int fd, void *buf, long n)
{
	long rc;

	__asm__ volatile("syscall"
			 : "=a"(rc)
			 : "0"((long)SYS_read), "D"((long)fd), "S"(buf), "d"(n)
			 : "rcx", "r11", "memory");
	return rc;
}

/* Returns when thread @tid is blocked in read. */
static void wait_in_read(pid_t tid)
{
	char path[64], buf[64];

	snprintf(path, sizeof(path), "/proc/self/task/%d/syscall", (int)tid);
	for (;;) {
		int fd = open(path, O_RDONLY);
		ssize_t n = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);

		if (fd >= 0)
			close(fd);
		if (n > 1 && buf[0] == '0' && buf[1] == ' ')
			return;
		sched_yield();
	}
}

static void *worker(void *arg)
{
	long id = (long)arg;
	char c;

	tids[id] = (pid_t)syscall(SYS_gettid);
	if (id == 1) {
		while (!tids[0])
			sched_yield();
		wait_in_read(tids[0]);
	}
	block_read(pipefd[0], &c, 1);
	return NULL;
}

int main(void)
{
	pthread_t t[2];

	if (pipe(pipefd) < 0)
		return 1;
	for (long i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, worker, (void *)i);
	while (!tids[1])
		sched_yield();
	wait_in_read(tids[1]);
	printf("both in read\n");
	fflush(stdout);
	_exit(0);
}
