/*
 * rpt_recurse: for ptdbg-report's golden test.  main walks a small list
 * three times (a repeated subtree: walk -> visit x3, which the report
 * folds into "walk x3"), then descends a recursion four deep whose
 * bottom calls through a function pointer that was never set: a jump to
 * address 0, SIGSEGV with SEGV_MAPERR at fault address 0.
 */
#include <stdio.h>

typedef int (*handler_fn)(int);

static int sum;
static handler_fn handlers[4];

int visit(int v)
{
	sum += v;
	return sum;
}

void walk(int n)
{
	for (int i = 0; i < 3; i++)
		visit(n + i);
}

int descend(int n)
{
	if (n == 0)
		return handlers[3](n); /* never set: calls address 0 */
	return descend(n - 1) + 1;
}

int main(void)
{
	handlers[0] = visit;
	for (int k = 0; k < 3; k++)
		walk(k);
	return descend(4);
}
