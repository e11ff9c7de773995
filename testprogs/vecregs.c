/*
 * vecregs: puts known values in the SSE, AVX and x87 registers (floats
 * in xmm0, doubles in xmm1, a byte pattern in xmm2, a 128-bit number in
 * xmm3, eight ints in ymm4, pi and 1/4 on the x87 stack) and stops at
 * the global label vecregs_loaded, so print $xmm0, p $ymm4.v8_int32 and
 * p $st0 can be compared with gdb value by value.  Needs AVX (vmovdqu
 * of a ymm register).
 */
#include <stdint.h>
#include <stdio.h>

static float floats[4] __attribute__((aligned(16))) = { 1.5f, -2.25f, 3.0f, 0.1f };
static double doubles[2] __attribute__((aligned(16))) = { 3.141592653589793, -1e100 };
static uint8_t bytes[16] __attribute__((aligned(16)));
static uint64_t wide[2] __attribute__((aligned(16))) = { 0xfedcba9876543210ull,
							  0x0123456789abcdefull };
static int32_t ints[8] __attribute__((aligned(32))) = { 1, 2, 3, 4, 5, 6, -7, 0x7fffffff };
static long double quarter = 0.25L;

int main(void)
{
	for (int i = 0; i < 16; i++)
		bytes[i] = (uint8_t)(i * 17);
	__asm__ volatile("movaps %0, %%xmm0\n\t"
			 "movapd %1, %%xmm1\n\t"
			 "movdqa %2, %%xmm2\n\t"
			 "movdqa %3, %%xmm3\n\t"
			 "vmovdqu %4, %%ymm4\n\t"
			 "fldt %5\n\t"
			 "fldpi\n\t"
			 ".globl vecregs_loaded\n"
			 "vecregs_loaded:\n\t"
			 "nop\n\t"
			 "fstp %%st(0)\n\t"
			 "fstp %%st(0)\n\t"
			 "vzeroupper\n\t"
			 :
			 : "m"(floats), "m"(doubles), "m"(bytes), "m"(wide), "m"(ints), "m"(quarter)
			 : "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "memory");
	printf("done\n");
	return 0;
}
