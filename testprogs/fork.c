/*
 * fork: the parent forks; the child prints a line and exits with a known
 * status; the parent waits for it and prints what it saw.  Exercises a
 * new process appearing under a recorder (breakpoints are inherited by
 * the child's copy of the text).
 */
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

int child_work(int x)
{
	return x * 2 + 1;
}

int main(void)
{
	pid_t pid;
	int status = 0;

	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return 1;
	if (pid == 0) {
		printf("child %d\n", child_work(20));
		fflush(stdout);
		_exit(7);
	}
	if (waitpid(pid, &status, 0) != pid)
		return 1;
	printf("parent: child exited %d\n", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
	return 0;
}
