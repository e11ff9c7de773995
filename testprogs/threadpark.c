/*
 * threadpark: main starts two workers that wait at a barrier main has not
 * reached yet, then stops at parked(): all three threads exist there, in
 * a known order (1 main, 2 and 3 the workers), whatever the scheduling.
 * Used by `thread apply` tests.
 */
#include <pthread.h>
#include <stdio.h>

static pthread_barrier_t gate;
static int done[2];

void *worker(void *arg)
{
	int id = (int)(long)arg;

	pthread_barrier_wait(&gate);
	done[id] = id + 1;
	return NULL;
}

void parked(int nthreads)
{
	printf("%d threads\n", nthreads);
}

int main(void)
{
	pthread_t t[2];

	pthread_barrier_init(&gate, NULL, 3);
	for (long i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, worker, (void *)i);
	parked(3);
	pthread_barrier_wait(&gate);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	printf("%d %d\n", done[0], done[1]);
	return 0;
}
