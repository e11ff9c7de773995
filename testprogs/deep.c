/*
 * deep: a recursion thousands of frames deep (argv[1], 2000 by default)
 * whose bottom calls leaf(), so a backtrace there is longer than any
 * fixed frame array: bt, bt N and bt -N are compared with gdb's, live
 * and in the recorded past.
 */
#include <stdio.h>
#include <stdlib.h>

static volatile int sink;

__attribute__((noinline)) int leaf(int n)
{
	sink = n;
	return n + 1;
}

__attribute__((noinline)) int down(int n)
{
	if (n == 0)
		return leaf(n);
	return down(n - 1) + 1;
}

int main(int argc, char **argv)
{
	int depth = argc > 1 ? atoi(argv[1]) : 2000;
	int r = down(depth);

	printf("r=%d\n", r);
	return 0;
}
