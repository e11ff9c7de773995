/*
 * selfkill: computes a little, then a forked child kills it with SIGKILL
 * while a second thread of it is running, and it never gets to print.
 * The child is told when to act through a pipe, so the kill always lands
 * in the middle of the loop in spin() (nothing afterwards is reached).
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

void *spin(void *arg)
{
	(void)arg;
	for (;;)
		counter += compute(10);
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
	if (pthread_create(&t, NULL, spin, NULL) != 0)
		return 1;
	if (write(go[1], &c, 1) != 1)
		return 1;
	spin(NULL);
	printf("not reached\n");
	return 0;
}
