/*
 * signal: installs handlers for SIGUSR1 and SIGALRM with sigaction and
 * raise()s each once.  The handler runs on the signal frame the kernel
 * builds, does a little work, and returns through the restorer
 * (rt_sigreturn) into the middle of raise().  Exercises asynchronous
 * control transfers: entries that are not calls and a return that is
 * not a ret.
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>

static volatile sig_atomic_t hits;
static volatile int work;

void handler(int sig)
{
	int w = 0;

	for (int i = 0; i < 4; i++)
		w += sig * i;
	work += w;
	hits++;
}

int main(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = handler;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGUSR1, &sa, NULL);
	sigaction(SIGALRM, &sa, NULL);
	raise(SIGUSR1);
	raise(SIGALRM);
	printf("hits=%d work=%d\n", (int)hits, work);
	return 0;
}
