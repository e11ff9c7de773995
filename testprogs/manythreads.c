/*
 * manythreads: creates threads in waves (argv[1] waves of argv[2] threads,
 * default 32 x 32 = 1,024 threads).  Each thread computes a small sum,
 * stores it and waits at a barrier, so all of a wave are alive together
 * when main calls wave_ready(); then they exit and main joins them before
 * the next wave.  all_done() gets the grand total; the output does not
 * depend on the interleaving.  With a third argument "hold", argv[2] more
 * threads are created after the waves and block for good, main prints
 * "ready" and blocks too (for attaching to a program with many threads).
 * Exercises thousands of clones and thread exits under a recorder.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static long *results;
static pthread_barrier_t barrier;
static int hold_pipe[2];

long thread_sum(long id)
{
	long s = 0;

	for (long k = 0; k < 4; k++)
		s += id * k + 1;
	return s;
}

void *worker(void *arg)
{
	long id = (long)arg;

	results[id] = thread_sum(id);
	pthread_barrier_wait(&barrier);
	return NULL;
}

void *holder(void *arg)
{
	char c;

	(void)arg;
	while (read(hold_pipe[0], &c, 1) != 0)
		;
	return NULL;
}

void wave_ready(int wave, int alive)
{
	(void)wave;
	(void)alive;
}

void all_done(int nthreads, long total)
{
	printf("threads=%d total=%ld\n", nthreads, total);
	fflush(stdout);
}

int main(int argc, char **argv)
{
	int waves = argc > 1 ? atoi(argv[1]) : 32;
	int per = argc > 2 ? atoi(argv[2]) : 32;
	int hold = argc > 3 && !strcmp(argv[3], "hold");
	pthread_attr_t attr;
	pthread_t *t;
	long total = 0;
	char c;

	if (waves <= 0 || per <= 0)
		return 2;
	t = calloc((size_t)per, sizeof(*t));
	results = calloc((size_t)waves * (size_t)per, sizeof(*results));
	if (!t || !results || pipe(hold_pipe) < 0)
		return 1;
	/* small stacks: a thousand threads alive at once stay cheap */
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 64 * 1024);
	pthread_barrier_init(&barrier, NULL, (unsigned)per + 1);
	for (int w = 0; w < waves; w++) {
		for (int i = 0; i < per; i++)
			if (pthread_create(&t[i], &attr, worker, (void *)(long)(w * per + i)) != 0)
				return 1;
		pthread_barrier_wait(&barrier);
		wave_ready(w, per + 1);
		for (int i = 0; i < per; i++)
			pthread_join(t[i], NULL);
	}
	for (long i = 0; i < (long)waves * per; i++)
		total += results[i];
	all_done(waves * per, total);
	if (hold) {
		for (int i = 0; i < per; i++)
			if (pthread_create(&t[i], &attr, holder, NULL) != 0)
				return 1;
		printf("ready\n");
		fflush(stdout);
		while (read(hold_pipe[0], &c, 1) != 0)
			;
	}
	free(t);
	free(results);
	return 0;
}
