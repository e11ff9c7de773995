/*
 * tailcall: a chain top -> middle -> leaf where each call is in tail
 * position.  At -O2 gcc turns them into `jmp leaf` / `jmp middle`, so
 * the call stack and the function-call history must cope with a
 * function that is entered by a jump and returns straight to its
 * caller's caller.  The volatile input keeps gcc from folding the chain.
 */
#include <stdio.h>

static volatile int input = 7;

__attribute__((noinline)) int leaf(int x)
{
	__asm__ volatile("" ::: "memory");
	return x * 3 + 1;
}

__attribute__((noinline)) int middle(int x)
{
	__asm__ volatile("" ::: "memory");
	if (x > 1000)
		return x;
	return leaf(x + 1);
}

__attribute__((noinline)) int top(int x)
{
	__asm__ volatile("" ::: "memory");
	return middle(x * 2);
}

int main(void)
{
	int sum = 0;

	for (int i = 0; i < 3; i++)
		sum += top(input + i);
	printf("sum=%d\n", sum);
	return 0;
}
