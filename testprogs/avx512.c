/*
 * avx512: puts known values in registers beyond the general ones (the
 * x87 stack, zmm0/zmm1/zmm17/zmm31 and the opmask registers k1/k7, which
 * only AVX-512 has) and stops at the global label regs_loaded, so a
 * debugger's info all-registers can be compared value by value.  Needs a
 * CPU with AVX-512F (the instructions fault without it).
 */
#include <stdint.h>
#include <stdio.h>

static uint8_t pattern[64] __attribute__((aligned(64)));

int main(void)
{
	for (int i = 0; i < 64; i++)
		pattern[i] = (uint8_t)(i * 7 + 1);
	__asm__ volatile("vmovdqu64 %0, %%zmm1\n\t"
			 "vpbroadcastd %1, %%zmm17\n\t"
			 "vpxord %%zmm0, %%zmm0, %%zmm0\n\t"
			 "vmovdqu64 %0, %%zmm31\n\t"
			 "movq $0x5a5a, %%rax\n\t"
			 "kmovq %%rax, %%k1\n\t"
			 "movq $-1, %%rax\n\t"
			 "kmovq %%rax, %%k7\n\t"
			 "fld1\n\t"
			 "fldz\n\t"
			 ".globl regs_loaded\n"
			 "regs_loaded:\n\t"
			 "nop\n\t"
			 "fstp %%st(0)\n\t"
			 "fstp %%st(0)\n\t"
			 :
			 : "m"(pattern), "r"(0x01020304)
			 /* (zmm16-31 and k0-7 are not the compiler's without -mavx512f) */
			 : "rax", "xmm0", "xmm1", "memory");
	printf("done\n");
	return 0;
}
