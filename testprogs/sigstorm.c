/*
 * sigstorm: a signal storm.  Main raise()s SIGALRM argv[1] times (default
 * 5,000: each is delivered before raise returns), then a second thread
 * sends SIGWINCH to main argv[1] more times with pthread_kill while main
 * waits in pthread_join, so each lands in the middle of a system call; the
 * handler acknowledges each through a pipe before the next is sent.  Both
 * signals are ones a debugger passes without stopping.  The counts
 * printed are exact.
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static volatile sig_atomic_t alrm_hits, winch_hits;
static volatile long work;
static int ack[2];
static pthread_t main_thread;
static int n;

void on_alrm(int sig)
{
	work += sig;
	alrm_hits++;
}

void on_winch(int sig)
{
	char c = 1;

	work += sig;
	winch_hits++;
	if (write(ack[1], &c, 1) != 1)
		_exit(3);
}

void *sender(void *arg)
{
	char c;

	(void)arg;
	for (int i = 0; i < n; i++) {
		if (pthread_kill(main_thread, SIGWINCH) != 0)
			_exit(4);
		if (read(ack[0], &c, 1) != 1)
			_exit(5);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	struct sigaction sa;
	pthread_t t;

	n = argc > 1 ? atoi(argv[1]) : 5000;
	if (pipe(ack) < 0)
		return 1;
	memset(&sa, 0, sizeof(sa));
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_RESTART;
	sa.sa_handler = on_alrm;
	sigaction(SIGALRM, &sa, NULL);
	sa.sa_handler = on_winch;
	sigaction(SIGWINCH, &sa, NULL);
	for (int i = 0; i < n; i++)
		raise(SIGALRM);
	main_thread = pthread_self();
	if (pthread_create(&t, NULL, sender, NULL) != 0)
		return 1;
	pthread_join(t, NULL);
	printf("signals=%d alrm=%d winch=%d work=%ld\n", (int)(alrm_hits + winch_hits),
	       (int)alrm_hits, (int)winch_hits, work);
	return 0;
}
