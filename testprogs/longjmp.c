/*
 * longjmp: setjmp in main, longjmp from three calls deep.  Exercises a
 * non-local exit: the returns of inner, middle and outer never happen,
 * and setjmp "returns" a second time.
 */
#include <setjmp.h>
#include <stdio.h>

static jmp_buf env;
static int depth_reached;

void inner(int v)
{
	depth_reached = 3;
	if (v > 2)
		longjmp(env, v);
}

void middle(int v)
{
	depth_reached = 2;
	inner(v + 1);
}

void outer(int v)
{
	depth_reached = 1;
	middle(v + 1);
}

int main(void)
{
	volatile int rounds = 0;
	int rc;

	rc = setjmp(env);
	rounds++;
	if (rc == 0)
		outer(1);
	printf("rc=%d rounds=%d depth=%d\n", rc, rounds, depth_reached);
	return 0;
}
