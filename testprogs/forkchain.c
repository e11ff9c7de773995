/*
 * forkchain: at each of argv[1] levels (default 3) the process forks a
 * child that computes and exits with the result, vforks a child that
 * execs this program as a leaf ("leaf N": exits with N + 1), checks both
 * exit statuses, then execs itself one level down.  Exercises fork, vfork
 * and exec following each other while the process is recorded: the
 * children must run clean of any breakpoint, and the recording follows
 * the execs.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

int compute(int x)
{
	int r = 0;

	for (int i = 0; i < x; i++)
		r += (i & 1) ? i : 1;
	return r;
}

static int child_status(pid_t pid)
{
	int st = 0;

	if (pid < 0 || waitpid(pid, &st, 0) != pid)
		return -1;
	if (WIFSIGNALED(st))
		return 1000 + WTERMSIG(st);
	return WEXITSTATUS(st);
}

int main(int argc, char **argv)
{
	int level = argc > 1 ? atoi(argv[1]) : 3;
	char self[4096], arg[16];
	ssize_t len;
	pid_t pid;
	int fs, vs;

	if (argc > 2 && !strcmp(argv[1], "leaf"))
		return atoi(argv[2]) + 1;
	len = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (len < 0)
		return 2;
	self[len] = 0;
	fflush(stdout);
	pid = fork();
	if (pid == 0)
		_exit(compute(level + 5) & 0x7f);
	fs = child_status(pid);
	snprintf(arg, sizeof(arg), "%d", level);
	pid = vfork();
	if (pid == 0) {
		execl(self, self, "leaf", arg, (char *)NULL);
		_exit(127);
	}
	vs = child_status(pid);
	printf("level %d: fork child %d (want %d), vfork child %d\n", level, fs,
	       compute(level + 5) & 0x7f, vs);
	fflush(stdout);
	if (level <= 1)
		return 0;
	snprintf(arg, sizeof(arg), "%d", level - 1);
	execl(self, self, arg, (char *)NULL);
	perror("execl");
	return 127;
}
