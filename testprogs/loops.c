/*
 * loops: nested counted loops with a data-dependent branch in the inner
 * body and a call per outer iteration.  Exercises conditional branches
 * (taken and not taken), loop back-edges and short call/return pairs.
 * Prints the counts, which do not depend on anything but the code.
 */
#include <stdio.h>

static int grid[6][7];

int weigh(int v)
{
	if (v % 3 == 0)
		return 2;
	return 1;
}

int fill(int rows, int cols)
{
	int odd = 0;

	for (int i = 0; i < rows; i++) {
		for (int j = 0; j < cols; j++) {
			grid[i][j] = i * j;
			if ((i * j) & 1)
				odd++;
		}
		odd += weigh(i);
	}
	return odd;
}

int main(void)
{
	int odd = fill(6, 7);
	int sum = 0;

	for (int i = 0; i < 6; i++)
		for (int j = 0; j < 7; j++)
			sum += grid[i][j];
	printf("odd=%d sum=%d\n", odd, sum);
	return 0;
}
