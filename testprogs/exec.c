/*
 * exec: replaces itself with another program: argv[1..] if given,
 * otherwise the fib test program next to this executable with n=5
 * (prints "fib(5) = 5").  Exercises an exec during a recording: the old
 * image's history ends and a new image starts.
 */
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	char path[PATH_MAX];
	ssize_t n;
	char *slash;

	printf("exec: before\n");
	fflush(stdout);
	if (argc > 1) {
		execv(argv[1], argv + 1);
		perror("execv");
		return 127;
	}
	n = readlink("/proc/self/exe", path, sizeof(path) - 8);
	if (n < 0)
		return 2;
	path[n] = '\0';
	slash = strrchr(path, '/');
	strcpy(slash ? slash + 1 : path, "fib");
	execl(path, path, "5", (char *)NULL);
	perror("execl");
	return 127;
}
