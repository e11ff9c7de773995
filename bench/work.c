/*
 * Benchmark workload: a deterministic mix of direct calls, recursion,
 * conditional branches, an indirect call through a table and a switch,
 * scaled by argv[1] (iterations).  Built -O0 non-PIE like testprogs.
 */
#include <stdio.h>
#include <stdlib.h>

static int add(int a, int b) { return a + b; }
static int sub(int a, int b) { return a - b; }
static int mul(int a, int b) { return (a * b) & 0xffff; }
static int (*const ops[3])(int, int) = { add, sub, mul };

static int fib(int n)
{
	return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

static int classify(int x)
{
	switch (x & 7) {
	case 0: return 3;
	case 1: return x >> 1;
	case 2: return x ^ 5;
	case 3: return x + 7;
	case 4: return 11;
	case 5: return x & 3;
	case 6: return -x;
	default: return 1;
	}
}

int main(int argc, char **argv)
{
	long iters = argc > 1 ? atol(argv[1]) : 1000;
	int acc = 1;

	for (long i = 0; i < iters; i++) {
		acc = ops[i % 3](acc, (int)i);
		acc += classify(acc);
		if (i % 16 == 0)
			acc += fib(6);
	}
	printf("%d\n", acc);
	return 0;
}
