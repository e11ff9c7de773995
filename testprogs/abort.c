/*
 * abort: an assertion-like check fails two calls deep and calls
 * abort(), which raises SIGABRT from inside libc.  Exercises a death by
 * signal that the program asked for.
 */
#include <stdio.h>
#include <stdlib.h>

static int balance = 10;

void check(int cond, const char *what)
{
	if (!cond) {
		fprintf(stderr, "check failed: %s\n", what);
		abort();
	}
}

void withdraw(int amount)
{
	balance -= amount;
	check(balance >= 0, "balance >= 0");
}

int main(void)
{
	withdraw(4);
	withdraw(5);
	withdraw(3);
	printf("balance=%d\n", balance);
	return 0;
}
