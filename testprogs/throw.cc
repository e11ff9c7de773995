// throw: a C++ exception thrown three calls deep and caught in catcher().
// The unwinder (libgcc's _Unwind_RaiseException) returns into catcher's
// landing pad past the frames of thrower: the call history must treat
// that as a return into catcher (bt, reverse-finish, reverse-step there
// compare with gdb record full).
#include <cstdio>

static int depth;

__attribute__((noinline)) void thrower(int v)
{
	depth = v;
	if (v > 3)
		throw v;
	thrower(v + 1);
}

__attribute__((noinline)) int catcher(int v)
{
	int rc = 0;

	try {
		thrower(v);
	} catch (int e) {
		rc = e;
	}
	depth += 10;
	return rc;
}

int main()
{
	int r = catcher(1);

	std::printf("rc=%d depth=%d\n", r, depth);
	return 0;
}
