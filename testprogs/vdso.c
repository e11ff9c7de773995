/*
 * vdso: clock_gettime, gettimeofday and time, which glibc serves from
 * the vdso (code the kernel maps, with no file behind it) without a
 * system call.  Prints only time-independent facts, and nothing outside
 * the vdso branches on the time read.
 */
#include <stdio.h>
#include <sys/time.h>
#include <time.h>

int main(void)
{
	struct timespec a, b;
	struct timeval tv;
	time_t t;
	int ok;

	clock_gettime(CLOCK_MONOTONIC, &a);
	gettimeofday(&tv, NULL);
	t = time(NULL);
	clock_gettime(CLOCK_MONOTONIC, &b);
	/* No branch may depend on the time read, or the instruction
	 * sequence would change from run to run: & and comparisons only. */
	ok = (b.tv_sec * 1000000000LL + b.tv_nsec >= a.tv_sec * 1000000000LL + a.tv_nsec) &
	     (tv.tv_sec > 0) & (t > 0);
	printf("vdso %s\n", ok ? "ok" : "bad");
	return 0;
}
