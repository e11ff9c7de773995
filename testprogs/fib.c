/*
 * fib: plain recursion.  fib(n) makes exactly 2*F(n+1)-1 calls to fib()
 * (F the Fibonacci numbers, F(1) = F(2) = 1), which the oracle tests
 * count in the function-call history.  n comes from argv[1] (default 10,
 * 177 calls, a few thousand instructions).
 */
#include <stdio.h>
#include <stdlib.h>

int fib(int n)
{
	if (n < 2)
		return n;
	return fib(n - 1) + fib(n - 2);
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 10;
	int r;

	r = fib(n);
	printf("fib(%d) = %d\n", n, r);
	return 0;
}
