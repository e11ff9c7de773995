/*
 * inlstep: inlined functions (always_inline) with bodies of several lines
 * and a real call inside, called from a real function, built -O2 too (as
 * inlstep-O2): step, next and finish into, over and out of the inlined
 * calls and their reverse forms, and the arguments and locals of the
 * inlined frames, as gdb 13 shows them.
 */
#include <stdio.h>

volatile int sink;

__attribute__((noinline)) int leaf(int v)
{
	sink = v;
	return v + 1;
}

static inline __attribute__((always_inline)) int scale(int x, int k)
{
	int y = x * k;

	sink = y;
	y += leaf(y);
	return y;
}

static inline __attribute__((always_inline)) int twice(int a)
{
	int b = scale(a, 2);

	b += scale(a, 3);
	return b;
}

__attribute__((noinline)) int work(int n)
{
	int t = 0;

	for (int i = 0; i < n; i++) {
		t += twice(i + 1);
		sink = t;
	}
	return t;
}

int main(void)
{
	int r = work(4);

	printf("r=%d\n", r);
	return 0;
}
