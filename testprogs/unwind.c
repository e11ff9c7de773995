/*
 * unwind: setjmp in catcher(), longjmp from thrower() three calls deeper
 * (through the lazily bound longjmp@plt).  After the jump, catcher's
 * frame continues: the frames of thrower never return, so the call
 * history must treat the longjmp as a return into catcher (reverse-finish,
 * reverse-next and bt there compare with gdb record full).
 */
#include <setjmp.h>
#include <stdio.h>

static jmp_buf env;
static int depth;

__attribute__((noinline)) void thrower(int v)
{
	if (v > 100) /* (never: the longjmp comes first) */
		return;
	depth = v;
	if (v > 3)
		longjmp(env, v);
	thrower(v + 1);
	depth--; /* (not a tail call) */
}

__attribute__((noinline)) int catcher(int v)
{
	int rc;

	rc = setjmp(env);
	if (rc == 0)
		thrower(v);
	depth += 10;
	return rc;
}

int main(void)
{
	int r;

	r = catcher(1);
	printf("rc=%d depth=%d\n", r, depth);
	return 0;
}
