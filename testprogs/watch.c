/*
 * watch: a global written twice by main, then once by a thread created
 * later, and another global only read.  For hardware watchpoints (x86
 * debug registers): write, access and execute breakpoints on the main
 * thread and on threads created after they were set.
 */
#include <pthread.h>
#include <stdio.h>

long counter;
long probe = 7;

void *worker(void *arg)
{
	counter += (long)arg;
	return NULL;
}

int main(void)
{
	pthread_t t;
	long r = 0;

	counter = 1;
	counter = 2;
	r += probe;
	pthread_create(&t, NULL, worker, (void *)10L);
	pthread_join(t, NULL);
	printf("counter=%ld r=%ld\n", counter, r);
	return 0;
}
