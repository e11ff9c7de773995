/*
 * inline: always_inline functions inside a real call, built -O2 too (as
 * inline-O2), where gdb shows the inlined calls as frames of their own
 * (DW_TAG_inlined_subroutine): bt, step, finish and their reverse forms.
 */
#include <stdio.h>

static volatile int sink;

static inline __attribute__((always_inline)) int square(int x)
{
	int r = x * x;

	sink = r;
	return r;
}

static inline __attribute__((always_inline)) int sum_squares(int a, int b)
{
	int s = square(a);

	s += square(b);
	return s;
}

__attribute__((noinline)) int compute(int n)
{
	int t = 0;

	for (int i = 0; i < n; i++)
		t += sum_squares(i, i + 1);
	return t;
}

int main(void)
{
	int r = compute(3);

	printf("r=%d\n", r);
	return 0;
}
