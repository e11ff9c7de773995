/*
 * vdso: clock_gettime, gettimeofday and time, which glibc serves from
 * the vdso (code the kernel maps, with no file behind it) without a
 * system call.  Prints only time-independent facts.
 */
#include <stdio.h>
#include <sys/time.h>
#include <time.h>

int main(void)
{
	struct timespec a, b;
	struct timeval tv;
	time_t t;
	int ok = 1;

	clock_gettime(CLOCK_MONOTONIC, &a);
	gettimeofday(&tv, NULL);
	t = time(NULL);
	clock_gettime(CLOCK_MONOTONIC, &b);
	if (b.tv_sec < a.tv_sec || (b.tv_sec == a.tv_sec && b.tv_nsec < a.tv_nsec))
		ok = 0;
	if (tv.tv_sec <= 0 || t <= 0)
		ok = 0;
	printf("vdso %s\n", ok ? "ok" : "bad");
	return 0;
}
