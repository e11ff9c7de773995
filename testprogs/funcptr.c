/*
 * funcptr: indirect calls through a table of function pointers, plus a
 * callback passed as an argument.  Exercises indirect call targets that
 * a recorder cannot know from the code alone.
 */
#include <stdio.h>

typedef int (*op_fn)(int, int);

int add(int a, int b) { return a + b; }
int sub(int a, int b) { return a - b; }
int mul(int a, int b) { return a * b; }
int pick(int a, int b) { return a > b ? a : b; }

static op_fn ops[] = { add, sub, mul, pick };

int apply(op_fn f, int a, int b)
{
	return f(a, b);
}

int run(int seed)
{
	int acc = seed;

	for (int i = 0; i < 8; i++)
		acc = apply(ops[(acc + i) & 3], acc, i + 1) & 0xffff;
	return acc;
}

int main(void)
{
	int r = run(5);

	printf("result=%d\n", r);
	return 0;
}
