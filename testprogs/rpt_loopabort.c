/*
 * rpt_loopabort: for ptdbg-report's golden test.  A loop of 50 rounds
 * (the report folds its lines into one entry with a count), then a check
 * that fails and calls abort(): SIGABRT raised by the program itself
 * (si_code SI_TKILL).
 */
#include <stdlib.h>

static int total;

int weight(int i)
{
	if (i % 3 == 0)
		return 2;
	return 1;
}

int main(void)
{
	for (int i = 0; i < 50; i++)
		total += weight(i);
	if (total != 0)
		abort();
	return 0;
}
