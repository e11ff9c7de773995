/*
 * patchbp: a program that rewrites the first bytes of its own function f()
 * (after mprotect) between two calls, then calls it a thousand times.  A
 * debugger with a breakpoint on f's first byte must keep the program's
 * new bytes: putting its saved byte back when the int3 comes out turns
 * "lea eax,[rdi+2]" into "push rbp" followed by garbage.  Prints what f
 * gave before and after the rewrite and the sum of the later calls:
 * "a=2 b=3" and "c=501500".
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

__attribute__((noipa, aligned(64))) int f(int x)
{
	return x + 1;
}

__attribute__((noipa)) void patch(void)
{
	/* lea eax,[rdi+2]; ret */
	static const unsigned char code[] = {0x8d, 0x47, 0x02, 0xc3};
	uintptr_t pg = (uintptr_t)f & ~(uintptr_t)4095;

	if (mprotect((void *)pg, 8192, PROT_READ | PROT_WRITE | PROT_EXEC) != 0) {
		perror("mprotect");
		return;
	}
	memcpy((void *)(uintptr_t)f, code, sizeof(code));
}

int main(void)
{
	int a = f(1), b, c = 0;

	patch();
	b = f(1);
	printf("a=%d b=%d\n", a, b);
	for (int i = 0; i < 1000; i++)
		c += f(i);
	printf("c=%d\n", c);
	return 0;
}
