/*
 * rpt_thread: for ptdbg-report's golden test.  main starts a worker
 * thread and waits for it; the worker fills a small table and then
 * writes through a null pointer: SIGSEGV in the second thread, while the
 * first waits in pthread_join.
 */
#include <pthread.h>
#include <stddef.h>

static int table[8];

int fill(int i)
{
	table[i] = i * i;
	return table[i];
}

void *worker(void *arg)
{
	int *out = arg;
	int s = 0;

	for (int i = 0; i < 8; i++)
		s += fill(i);
	*out = s; /* arg is NULL */
	return NULL;
}

int main(void)
{
	pthread_t t;

	pthread_create(&t, NULL, worker, NULL);
	pthread_join(t, NULL);
	return 0;
}
