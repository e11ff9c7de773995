/*
 * rpt_spin: a busy loop for ptdbg-report's snapshot, timeout, SIGKILL
 * and attach tests.  It says "ready PID" on standard output (flushed),
 * then spins: x = step(x) until SIGUSR2 arrives, saying "spinning" once
 * after 1000 rounds (so a test knows the loop has run).  Then it recomputes x
 * from the start for the same number of rounds and prints "spin ok
 * ROUNDS" when both agree (a wrong register or a lost instruction after
 * a debugger left would make them differ: "spin BAD") and exits 0.
 */
#include <signal.h>
#include <stdio.h>
#include <unistd.h>

static volatile sig_atomic_t stop;

static void on_usr2(int sig)
{
	(void)sig;
	stop = 1;
}

unsigned step(unsigned x)
{
	return x * 2654435761u + 12345u;
}

int main(void)
{
	unsigned long rounds = 0, i;
	unsigned x = 1, y = 1;

	signal(SIGUSR2, on_usr2);
	printf("ready %d\n", (int)getpid());
	fflush(stdout);
	while (!stop) {
		x = step(x);
		if (++rounds == 1000) {
			printf("spinning\n");
			fflush(stdout);
		}
	}
	for (i = 0; i < rounds; i++)
		y = step(y);
	printf("spin %s %lu\n", x == y ? "ok" : "BAD", rounds);
	return x == y ? 0 : 1;
}
