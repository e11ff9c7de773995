/*
 * threads: two pthreads each sum a small range and store the result;
 * main joins both and prints.  The output does not depend on the
 * interleaving.  Exercises clone, a second and third thread to record,
 * and thread exit.
 */
#include <pthread.h>
#include <stdio.h>

struct job {
	int from, to;
	long result;
};

long sum_range(int from, int to)
{
	long s = 0;

	for (int i = from; i < to; i++)
		s += (long)i * i;
	return s;
}

void *worker(void *arg)
{
	struct job *j = arg;

	j->result = sum_range(j->from, j->to);
	return NULL;
}

int main(void)
{
	struct job jobs[2] = { { 1, 50, 0 }, { 50, 100, 0 } };
	pthread_t t[2];

	for (int i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, worker, &jobs[i]);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	printf("a=%ld b=%ld\n", jobs[0].result, jobs[1].result);
	return 0;
}
