/*
 * busy: a multi-threaded program for the tests that kill or detach ptdbg
 * while it records the program running.
 *
 * It starts thread A (which waits), hands its pid to the test over the fifo
 * DIR/ctl and blocks reading DIR/go.  Then it creates threads B and C (so
 * they are born while a debugger is attached), writes "started", and A, B
 * and C each run a branchy checksum loop of ITER iterations (B calls
 * halfway() after 1,000 of them, a place for a breakpoint).  Main combines
 * the three sums and writes "sum N" to DIR/ctl; every thread then stays
 * alive until a second line arrives on DIR/go, so the test can look at all
 * of them (affinity, tracer, code bytes) before the program exits.
 *
 * A leftover int3 kills it with SIGTRAP; a thread resumed one byte past an
 * int3, or with a wrong register, derails it or changes its sum.
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define ITER 3000000u

static pthread_barrier_t begin, done, leave;
static unsigned sums[3];

void halfway(void)
{
	/* a breakpoint target; the asm keeps the call */
	__asm__ volatile("" ::: "memory");
}

static unsigned work(unsigned seed, int stop_halfway)
{
	unsigned s = seed;

	for (unsigned i = 0; i < ITER; i++) {
		s = s * 31 + i;
		if (s & 1)
			s ^= 0x5bd1e995u;
		else if ((s & 6) == 2)
			s += i >> 3;
		if (stop_halfway && i == 1000)
			halfway();
	}
	return s;
}

static void *worker(void *arg)
{
	int k = (int)(long)arg;

	pthread_barrier_wait(&begin);
	sums[k] = work(0x1234u * (unsigned)(k + 1), k == 1);
	pthread_barrier_wait(&done);
	pthread_barrier_wait(&leave);
	return NULL;
}

static int readline_fd(int fd, char *buf, size_t n)
{
	size_t i = 0;

	while (i + 1 < n) {
		ssize_t r = read(fd, buf + i, 1);
		if (r <= 0)
			return -1;
		if (buf[i] == '\n')
			break;
		i++;
	}
	buf[i] = '\0';
	return 0;
}

static int say(int fd, const char *s)
{
	return write(fd, s, strlen(s)) == (ssize_t)strlen(s) ? 0 : -1;
}

int main(int argc, char **argv)
{
	const char *dir = argc > 1 ? argv[1] : ".";
	char path[4096], buf[64];
	pthread_t th[3];
	int ctl, go;

	pthread_barrier_init(&begin, NULL, 4);
	pthread_barrier_init(&done, NULL, 4);
	pthread_barrier_init(&leave, NULL, 4);
	if (pthread_create(&th[0], NULL, worker, (void *)0L))
		return 4;
	snprintf(path, sizeof(path), "%s/ctl", dir);
	ctl = open(path, O_WRONLY);
	snprintf(path, sizeof(path), "%s/go", dir);
	go = open(path, O_RDONLY);
	if (ctl < 0 || go < 0)
		return 2;
	snprintf(buf, sizeof(buf), "%d\n", (int)getpid());
	if (say(ctl, buf) < 0 || readline_fd(go, buf, sizeof(buf)) < 0)
		return 3;
	for (long k = 1; k < 3; k++)
		if (pthread_create(&th[k], NULL, worker, (void *)k))
			return 4;
	if (say(ctl, "started\n") < 0)
		return 2;
	pthread_barrier_wait(&begin);
	pthread_barrier_wait(&done);
	snprintf(buf, sizeof(buf), "sum %u\n", sums[0] ^ (sums[1] * 3u) ^ (sums[2] * 7u));
	printf("busy %s", buf);
	fflush(stdout);
	if (say(ctl, buf) < 0 || readline_fd(go, buf, sizeof(buf)) < 0)
		return 3;
	pthread_barrier_wait(&leave);
	for (int k = 0; k < 3; k++)
		pthread_join(th[k], NULL);
	return 0;
}
