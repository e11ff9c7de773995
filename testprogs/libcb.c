/*
 * libcb: the program's own code called back from inside libc.  qsort
 * sorts an array of records with by_key() as its comparator and bsearch
 * finds keys with the same comparator, so every call of by_key comes
 * from libc's code, not from the program's; sum_all() is variadic
 * (va_list walked with va_arg), and scale() keeps a variable length
 * array and an alloca'd buffer on its stack.  Exercises calls into the
 * program from a library, a stack frame whose size is known only at run
 * time, and the register-save area of a variadic function.
 */
#include <alloca.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

struct rec {
	int key;
	int val;
};

static struct rec recs[] = {
	{ 42, 1 }, { 7, 2 }, { 19, 3 }, { 3, 4 }, { 88, 5 }, { 61, 6 }, { 25, 7 }, { 50, 8 },
};
#define NRECS ((int)(sizeof(recs) / sizeof(recs[0])))

static int compares;

int by_key(const void *a, const void *b)
{
	const struct rec *x = a, *y = b;

	compares++;
	if (x->key < y->key)
		return -1;
	return x->key > y->key;
}

int sum_all(int n, ...)
{
	va_list ap;
	int s = 0;

	va_start(ap, n);
	for (int i = 0; i < n; i++)
		s += va_arg(ap, int);
	va_end(ap);
	return s;
}

int scale(int n, int k)
{
	int vla[n];
	int *buf = alloca(n * sizeof(int));
	int s = 0;

	for (int i = 0; i < n; i++) {
		vla[i] = recs[i].key * k;
		buf[i] = vla[i] - i;
	}
	for (int i = 0; i < n; i++)
		s += buf[i] + vla[n - 1 - i];
	return s;
}

int lookup(int key)
{
	struct rec probe = { key, 0 };
	struct rec *r = bsearch(&probe, recs, NRECS, sizeof(recs[0]), by_key);

	return r ? r->val : -1;
}

int main(void)
{
	int found, total, sc;

	qsort(recs, NRECS, sizeof(recs[0]), by_key);
	found = lookup(61) + lookup(3) + lookup(4);
	total = sum_all(5, recs[0].key, recs[1].key, recs[2].key, recs[3].key, found);
	sc = scale(NRECS, 3);
	printf("found=%d total=%d scale=%d compares=%d\n", found, total, sc, compares);
	return 0;
}
