/*
 * selfkill: computes a little, then a forked child kills it with SIGKILL
 * while both its threads spin, and it never gets to print.  The child is
 * told to act through a pipe once the second thread went round spin()'s
 * loop, so the kill always lands in the middle of the loops (nothing after
 * is reached).
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <unistd.h>

static volatile long counter;

long compute(int x)
{
	long r = 0;

	for (int i = 0; i < x; i++)
		r += i % 3 ? i : -i;
	return r;
}

static volatile int spinning;

void spin(void)
{
	for (;;) {
		counter += compute(10);
		spinning = 1;
	}
}

void *spinner(void *arg)
{
	(void)arg;
	spin();
	return NULL;
}

int main(void)
{
	int go[2];
	pthread_t t;
	pid_t pid;
	char c = 1;

	if (pipe(go) < 0)
		return 1;
	pid = fork();
	if (pid == 0) {
		if (read(go[0], &c, 1) != 1)
			_exit(1);
		kill(getppid(), SIGKILL);
		_exit(0);
	}
	counter = compute(100);
	if (pthread_create(&t, NULL, spinner, NULL) != 0)
		return 1;
	while (!spinning)
		;
	if (write(go[1], &c, 1) != 1)
		return 1;
	spin();
	printf("not reached\n");
	return 0;
}
