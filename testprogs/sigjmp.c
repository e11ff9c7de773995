/*
 * sigjmp: a signal handler that does not return.  guarded() sets up a
 * sigsetjmp point and calls work(), which raise()s SIGUSR1 two calls
 * deep; the handler siglongjmps back into guarded(), restoring the
 * signal mask, so neither the handler nor raise nor work ever returns
 * and no rt_sigreturn runs.  Done twice, the second time from a
 * different depth.  Exercises a control transfer out of a signal frame
 * that is neither a return nor rt_sigreturn.
 */
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

static sigjmp_buf point;
static volatile int trips;

void on_usr1(int sig)
{
	trips++;
	siglongjmp(point, sig + trips);
}

__attribute__((noinline)) void deeper(int n)
{
	if (n > 0)
		deeper(n - 1);
	else
		raise(SIGUSR1);
}

__attribute__((noinline)) int work(int n)
{
	deeper(n);
	return -1;
}

int guarded(int n)
{
	int rc = sigsetjmp(point, 1);

	if (rc == 0)
		return work(n);
	return rc;
}

int main(void)
{
	struct sigaction sa;
	int a, b;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_usr1;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGUSR1, &sa, NULL);
	a = guarded(1);
	b = guarded(3);
	printf("a=%d b=%d trips=%d\n", a, b, trips);
	return 0;
}
