/*
 * jit: code written at run time.  A recorder that scans code ahead of
 * time (soft) must notice when that code changes under it.
 *
 * Part 1 writes a function into a read-write-execute mapping, calls it,
 * regenerates it in place with different code (other branches, other
 * instruction boundaries at the same addresses), calls it again, and
 * switches back and forth; a trampoline in the same mapping reaches the
 * function with a direct call.  Part 2 patches bytes inside a function of
 * the program's own text that has already run (a conditional jump's
 * opcode, a two-byte nop that becomes a jump, an immediate) after
 * mprotect() made its page writable, and calls it before and after the
 * page is made read-only again; then patches it once more through
 * /proc/self/mem, which needs no mprotect and no store.  The checksum printed at the end depends
 * on every version having run as written.  With an argument "rwx" or
 * "text" only that part runs (the other's checksum is then printed as
 * 0); "shared" runs part 3 alone: the function written through a second,
 * writable, mapping of the memory it runs from.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* long sum(long x): x + (x-1) + ... + 1, a loop with one back edge. */
static const uint8_t code_sum[] = {
	0x31, 0xc0,             /*  0: xor  %eax,%eax */
	0x48, 0x85, 0xff,       /*  2: test %rdi,%rdi */
	0x7e, 0x08,             /*  5: jle  15 */
	0x48, 0x01, 0xf8,       /*  7: add  %rdi,%rax */
	0x48, 0xff, 0xcf,       /* 10: dec  %rdi */
	0x75, 0xf8,             /* 13: jne  7 */
	0xc3,                   /* 15: ret */
};

/* long collatz(long x): steps of the 3x+1 walk from x down to 1. */
static const uint8_t code_collatz[] = {
	0x31, 0xc0,                   /*  0: xor  %eax,%eax */
	0x48, 0x83, 0xff, 0x01,       /*  2: cmp  $1,%rdi */
	0x76, 0x19,                   /*  6: jbe  33 */
	0x48, 0xff, 0xc0,             /*  8: inc  %rax */
	0x40, 0xf6, 0xc7, 0x01,       /* 11: test $1,%dil */
	0x74, 0x07,                   /* 15: je   24 */
	0x48, 0x8d, 0x7c, 0x7f, 0x01, /* 17: lea  1(%rdi,%rdi,2),%rdi */
	0xeb, 0x03,                   /* 22: jmp  27 */
	0x48, 0xd1, 0xef,             /* 24: shr  %rdi */
	0x48, 0x83, 0xff, 0x01,       /* 27: cmp  $1,%rdi */
	0x77, 0xe7,                   /* 31: ja   8 */
	0xc3,                         /* 33: ret */
};

/* At TRAMP: long tramp(long x) { return f(x + 2) + 1; } with a direct call. */
#define TRAMP 256
static const uint8_t code_tramp[] = {
	0x48, 0x83, 0xc7, 0x02,       /* add  $2,%rdi */
	0xe8, 0, 0, 0, 0,             /* call f (rel32 filled in) */
	0x48, 0x83, 0xc0, 0x01,       /* add  $1,%rax */
	0xc3,                         /* ret */
};

typedef long (*fn)(long);

/* Written as assembly so the patched bytes are at known labels whatever
 * the compiler does: patchme(x) = x (+3 when x >= 10) + 5, and after the
 * patches x (+3 when x < 10) + 9, or x + 3 only with the jump. */
__asm__(".text\n"
	".globl patchme\n"
	".type patchme, @function\n"
	".p2align 4\n"
	"patchme:\n"
	"	mov %edi, %eax\n"
	"	cmp $10, %edi\n"
	".globl patchme_jcc\n"
	"patchme_jcc:\n"
	"	jl 1f\n"
	"	add $3, %eax\n"
	"1:\n"
	".globl patchme_nop\n"
	"patchme_nop:\n"
	"	xchg %ax, %ax\n"
	".globl patchme_add\n"
	"patchme_add:\n"
	"	add $5, %eax\n"
	"	ret\n"
	".size patchme, .-patchme\n");
long patchme(long x);
extern uint8_t patchme_jcc[], patchme_nop[], patchme_add[];

/* Not inlined: the tests stop here before each rewrite. */
__attribute__((noinline)) void put(uint8_t *page, const uint8_t *code, size_t n)
{
	memcpy(page, code, n);
	/* The x86 keeps instruction fetch coherent with stores; the
	 * builtin documents the intent and is free here. */
	__builtin___clear_cache((char *)page, (char *)page + n);
}

static unsigned long mix(unsigned long h, long v)
{
	return (h ^ (unsigned long)v) * 1099511628211ul;
}

static unsigned long part_rwx(void)
{
	uint8_t *page = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC,
			     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	unsigned long h = 14695981039346656037ul;
	int32_t rel;
	fn f = NULL, t = NULL;

	if (page == MAP_FAILED) {
		perror("mmap");
		return 0;
	}
	memcpy(page + TRAMP, code_tramp, sizeof(code_tramp));
	rel = (int32_t)(0 - (TRAMP + 9));
	memcpy(page + TRAMP + 5, &rel, 4);
	__asm__ volatile("" : "=r"(f) : "0"(page));
	__asm__ volatile("" : "=r"(t) : "0"(page + TRAMP));
	for (int round = 0; round < 3; round++) {
		put(page, code_sum, sizeof(code_sum));
		for (long x = 0; x < 4; x++)
			h = mix(h, f(x + round));
		h = mix(h, t(round));
		put(page, code_collatz, sizeof(code_collatz));
		for (long x = 5; x < 9; x++)
			h = mix(h, f(x + round));
		h = mix(h, t(round + 4));
	}
	munmap(page, 4096);
	return h;
}

/* The patches, not inlined so that the tests can stop before each. */
__attribute__((noinline)) void patch1(void)
{
	patchme_jcc[0] = 0x7d; /* jl -> jge */
	patchme_add[2] = 9;    /* add $5 -> add $9 */
}

__attribute__((noinline)) void patch2(void)
{
	patchme_nop[0] = 0xeb; /* xchg %ax,%ax -> jmp over the add */
	patchme_nop[1] = 0x03;
}

/* Through /proc/self/mem, which writes read-only text without mprotect:
 * no store to the page, only a syscall. */
__attribute__((noinline)) int patch3(void)
{
	static const uint8_t jl = 0x7c, imm = 7;
	int fd = open("/proc/self/mem", O_RDWR);
	int ok = fd >= 0 &&
		 pwrite(fd, &jl, 1, (off_t)(uintptr_t)patchme_jcc) == 1 && /* jge -> jl */
		 pwrite(fd, &imm, 1, (off_t)(uintptr_t)&patchme_add[2]) == 1; /* $9 -> $7 */
	if (fd >= 0)
		close(fd);
	return ok;
}

static unsigned long part_text(void)
{
	long pagesz = sysconf(_SC_PAGESIZE);
	uintptr_t lo = (uintptr_t)patchme_jcc & ~(uintptr_t)(pagesz - 1);
	uintptr_t hi = ((uintptr_t)patchme_add + 3 + pagesz - 1) & ~(uintptr_t)(pagesz - 1);
	unsigned long h = 14695981039346656037ul;

	h = mix(h, patchme(3));
	h = mix(h, patchme(12));
	if (mprotect((void *)lo, hi - lo, PROT_READ | PROT_WRITE | PROT_EXEC) < 0) {
		perror("mprotect");
		return 0;
	}
	patch1();
	h = mix(h, patchme(3));
	h = mix(h, patchme(12));
	patch2();
	h = mix(h, patchme(4));
	h = mix(h, patchme(14));
	if (mprotect((void *)lo, hi - lo, PROT_READ | PROT_EXEC) < 0) {
		perror("mprotect");
		return 0;
	}
	h = mix(h, patchme(5));
	h = mix(h, patchme(15));
	if (!patch3()) {
		perror("/proc/self/mem");
		return 0;
	}
	h = mix(h, patchme(6));
	h = mix(h, patchme(16));
	return h;
}

/*
 * Code in a shared mapping that is not writable, written through another
 * mapping of the same memory (how some JITs keep W^X): no process can
 * write into the executable view, not even through /proc/PID/mem, so a
 * debugger cannot put an int3 there.
 */
static unsigned long part_shared(void)
{
	unsigned long h = 14695981039346656037ul;
	int fd = memfd_create("jit", 0);
	uint8_t *rw, *rx;
	fn f;

	if (fd < 0 || ftruncate(fd, 4096) < 0) {
		perror("memfd");
		return 0;
	}
	rw = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	rx = mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_SHARED, fd, 0);
	close(fd);
	if (rw == MAP_FAILED || rx == MAP_FAILED) {
		perror("mmap");
		return 0;
	}
	__asm__ volatile("" : "=r"(f) : "0"(rx));
	put(rw, code_sum, sizeof(code_sum));
	for (long x = 0; x < 4; x++)
		h = mix(h, f(x));
	put(rw, code_collatz, sizeof(code_collatz));
	for (long x = 5; x < 9; x++)
		h = mix(h, f(x));
	munmap(rw, 4096);
	munmap(rx, 4096);
	return h;
}

int main(int argc, char **argv)
{
	const char *only = argc > 1 ? argv[1] : "";
	unsigned long a, b;

	if (!strcmp(only, "shared")) {
		printf("jit checksum %016lx\n", part_shared());
		return 0;
	}
	a = strcmp(only, "text") ? part_rwx() : 0;
	b = strcmp(only, "rwx") ? part_text() : 0;

	printf("jit checksum %016lx %016lx\n", a, b);
	return 0;
}
