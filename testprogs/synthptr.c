/*
 * synthptr: at -O2 the pointer `c` that sum() and first() get is
 * optimised away (the struct lives in registers), so the debug
 * information describes it with DW_OP_implicit_pointer: gdb shows
 * <synthetic pointer>.  The -O0 build is plain.
 */
#include <stdio.h>
#include <stdlib.h>

struct cfg {
	int *vals;
	int n;
};

static inline int first(struct cfg *c)
{
	return c->vals[0];
}

static inline int sum(struct cfg *c)
{
	int s = first(c);

	for (int i = 1; i < c->n; i++)
		s += c->vals[i];
	return s;
}

int main(int argc, char **argv)
{
	struct cfg c = { malloc(4 * sizeof(int)), argc + 3 };

	for (int i = 0; i < 4; i++)
		c.vals[i] = argc + i;
	printf("%d\n", sum(&c));
	free(c.vals);
	return 0;
}
