/*
 * switch: a dense switch over 0..15 that gcc compiles to a jump table
 * (an indirect `jmp *` through a table in .rodata) at -O0 and -O2;
 * every case computes something different so -O2 cannot turn the
 * switch into a lookup table of constants.
 * Exercises indirect jumps whose targets come from data.
 */
#include <stdio.h>

int classify(int c, int x)
{
	switch (c) {
	case 0: return x + 11;
	case 1: return x * 3;
	case 2: return x ^ 5;
	case 3: return x - 47;
	case 4: return x << 2;
	case 5: return x + 91;
	case 6: return x * 13;
	case 7: return x >> 1;
	case 8: return x | 64;
	case 9: return x - 3;
	case 10: return x * 7 + 1;
	case 11: return x & 19;
	case 12: return x + 31;
	case 13: return x * x;
	case 14: return x - 55;
	case 15: return ~x;
	default: return -1;
	}
}

int main(void)
{
	int sum = 0;

	for (int i = 0; i < 20; i++)
		sum += classify((i * 7) % 17, i);
	printf("sum=%d\n", sum);
	return 0;
}
