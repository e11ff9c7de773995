/*
 * hotcold: input checking with rare error paths, written the way
 * applications mark them (__attribute__((cold)), __builtin_expect), and
 * a recursive quicksort.  At -O2 gcc moves the unlikely paths of check
 * and sum_range out of line into check.cold and sum_range.cold, parts
 * of the function elsewhere in .text reached by a jump and jumping back,
 * and the recursion runs without a frame pointer.  Some items are bad so
 * that the cold parts run.
 * Exercises functions whose code is in two places, and stepping between
 * a function's hot part and its cold part in both directions.
 */
#include <stdio.h>
#include <stdlib.h>

struct item {
	int key;
	int weight;
};

static int errors;
static char last_error[64];

__attribute__((cold, noinline)) static void report(const char *what, int v)
{
	errors++;
	snprintf(last_error, sizeof last_error, "bad %s: %d", what, v);
}

__attribute__((noinline)) static int check(const struct item *it)
{
	if (__builtin_expect(it->key < 0, 0)) {
		report("key", it->key);
		return -1;
	}
	if (__builtin_expect(it->weight > 100, 0)) {
		report("weight", it->weight);
		return 100;
	}
	return it->weight;
}

__attribute__((noinline)) static void sort(int *v, int lo, int hi)
{
	int pivot, i, j, t;

	if (lo >= hi)
		return;
	pivot = v[(lo + hi) / 2];
	i = lo;
	j = hi;
	while (i <= j) {
		while (v[i] < pivot)
			i++;
		while (v[j] > pivot)
			j--;
		if (i <= j) {
			t = v[i];
			v[i] = v[j];
			v[j] = t;
			i++;
			j--;
		}
	}
	sort(v, lo, j);
	sort(v, i, hi);
}

__attribute__((noinline)) static long sum_range(const int *v, int n, int lo, int hi)
{
	long s = 0;
	int i;

	if (__builtin_expect(lo > hi, 0)) {
		report("range", lo - hi);
		abort();
	}
	for (i = 0; i < n; i++) {
		if (v[i] < lo || v[i] > hi) {
			if (__builtin_expect(v[i] < 0, 0))
				report("value", v[i]);
			continue;
		}
		s += v[i];
	}
	return s;
}

int main(void)
{
	struct item items[] = { { 3, 40 }, { -1, 5 }, { 7, 250 }, { 2, 60 }, { 9, 8 },
				{ 4, 101 }, { 1, 33 }, { -5, 0 }, { 6, 77 }, { 8, 12 } };
	int n = sizeof items / sizeof items[0];
	int w[sizeof items / sizeof items[0]];
	int i, good = 0;
	long s;

	for (i = 0; i < n; i++) {
		w[i] = check(&items[i]);
		if (w[i] >= 0)
			good++;
	}
	sort(w, 0, n - 1);
	s = sum_range(w, n, 0, 90);
	printf("good=%d errors=%d sum=%ld last=%s\n", good, errors, s, last_error);
	return 0;
}
