/*
 * multiloc: functions with several copies of their code, for breakpoints
 * with several locations (issue 14), built -O2 (as multiloc-O2):
 *  - clamp exists only inlined (always_inline, never called through a
 *    pointer): `break clamp` sets a location at each of its copies;
 *  - scale is inlined into its callers and also has an out-of-line copy,
 *    since its address is taken: `break scale` gets all of them;
 *  - the lines of both are inlined in several places: `break FILE:LINE`
 *    on one of them gets every copy.
 */
#include <stdio.h>

volatile int sink;

static inline __attribute__((always_inline)) int clamp(int v)
{
	if (v > 100)
		v = 100; /* clamp: limit */
	sink = v;    /* clamp: store */
	return v;
}

static inline __attribute__((always_inline)) int scale(int v, int k)
{
	int r = v * k; /* scale: multiply */

	sink = r;
	return r;
}

int (*volatile scale_ptr)(int, int) = scale;

__attribute__((noinline)) int first(int n)
{
	int t = clamp(n); /* first: clamp */

	t += scale(t, 3); /* first: scale */
	return t;
}

__attribute__((noinline)) int second(int n)
{
	int t = scale(n, 5); /* second: scale */

	t = clamp(t + 1); /* second: clamp */
	return t;
}

int main(void)
{
	int r = 0;

	for (int i = 0; i < 3; i++) {
		r += first(i * 40);
		r += second(i);
	}
	r += scale_ptr(r, 2); /* main: through the pointer */
	printf("r=%d\n", r);
	return 0;
}
