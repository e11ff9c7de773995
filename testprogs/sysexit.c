/*
 * sysexit: ends threads with the raw exit syscall (SYS_exit, 60), not
 * exit_group, as gdb record full's "The next instruction is syscall
 * exit" stop sees it.
 *
 * Without arguments the only thread calls syscall(SYS_exit, 3): the
 * process ends with code 3.  With "thread" a worker counts, then ends
 * itself with syscall(SYS_exit, 0) while main waits for it in
 * pthread_join (the kernel clears the worker's tid and wakes the join);
 * main then returns 4 (exit_group).  With "group" the worker ends the
 * whole program with exit(5) (exit_group from a thread other than
 * main) while main waits in pthread_join.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

static volatile long total;

static long count(int n)
{
	long s = 0;

	for (int i = 0; i < n; i++)
		s += i & 3 ? i : -i;
	return s;
}

static void *worker(void *arg)
{
	total = count(50);
	if (arg)
		exit(5); /* worker exit_group */
	syscall(SYS_exit, 0); /* worker exit */
	return arg;
}

int main(int argc, char **argv)
{
	pthread_t t;

	if (argc > 1 && (argv[1][0] == 't' || argv[1][0] == 'g')) {
		if (pthread_create(&t, NULL, worker, argv[1][0] == 'g' ? &t : NULL) != 0)
			return 1;
		pthread_join(t, NULL);
		return total == count(50) ? 4 : 1; /* main exit */
	}
	total = count(20);
	syscall(SYS_exit, 3); /* main exit */
	return 0;
}
