/*
 * Unit tests for the soft recorder's branch emulator (src/record/soft_emul.c):
 * conditional branches checked against the host CPU executing the same
 * condition, and a table of indirect jumps, calls, returns and loops with
 * their expected registers and stack writes, plus the instructions that
 * must be left to single-stepping.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>

#include <cmocka.h>

#include "disasm/disasm.h"
#include "ptdbg/ptdbg.h"
#include "record/soft_emul.h"

/* Fake memory: one writable window at MEM_BASE; everything else unmapped. */
#define MEM_BASE 0x10000ull
#define MEM_SIZE 0x2000
static uint8_t mem[MEM_SIZE];
static int nwrites;
static uint64_t last_write_addr, last_write_val;

static long mem_read(void *ctx, uint64_t addr, void *buf, size_t n)
{
	(void)ctx;
	if (addr < MEM_BASE || addr + n > MEM_BASE + MEM_SIZE)
		return -1;
	memcpy(buf, mem + (addr - MEM_BASE), n);
	return (long)n;
}

static long mem_write(void *ctx, uint64_t addr, const void *buf, size_t n)
{
	(void)ctx;
	if (addr < MEM_BASE || addr + n > MEM_BASE + MEM_SIZE)
		return -1;
	memcpy(mem + (addr - MEM_BASE), buf, n);
	nwrites++;
	last_write_addr = addr;
	memcpy(&last_write_val, buf, 8);
	return (long)n;
}

static const struct ptd_soft_mem fake = { mem_read, mem_write, NULL };

static void put64(uint64_t addr, uint64_t v)
{
	memcpy(mem + (addr - MEM_BASE), &v, 8);
}

static void reset(void)
{
	memset(mem, 0, sizeof(mem));
	nwrites = 0;
	last_write_addr = last_write_val = 0;
}

/* Runs jcc with @flags on the host CPU: returns 1 when it branches. */
typedef int (*jfn)(uint64_t flags);
static int native_jcc(uint8_t *page, int near, int cond, uint64_t flags)
{
	uint8_t *p = page;
	*p++ = 0x57; /* push %rdi */
	*p++ = 0x9d; /* popfq */
	if (near) {
		*p++ = 0x0f;
		*p++ = (uint8_t)(0x80 | cond);
		uint32_t rel = 6;
		memcpy(p, &rel, 4);
		p += 4;
	} else {
		*p++ = (uint8_t)(0x70 | cond);
		*p++ = 6;
	}
	static const uint8_t tail[] = { 0xb8, 0, 0, 0, 0, 0xc3, 0xb8, 1, 0, 0, 0, 0xc3 };
	memcpy(p, tail, sizeof(tail));
	__builtin___clear_cache((char *)page, (char *)p + sizeof(tail));
	return ((jfn)(void *)page)(flags);
}

static void test_jcc_all_conditions_vs_cpu(void **state)
{
	(void)state;
	uint8_t *page = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC,
			     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	assert_true(page != MAP_FAILED);
	static const uint64_t bits[5] = { 0x1, 0x4, 0x40, 0x80, 0x800 }; /* CF PF ZF SF OF */
	int taken_seen = 0, not_seen = 0;
	for (int near = 0; near < 2; near++) {
		for (int cond = 0; cond < 16; cond++) {
			for (int m = 0; m < 32; m++) {
				uint64_t fl = 0x202; /* reserved bit 1, IF */
				for (int b = 0; b < 5; b++)
					if (m & (1 << b))
						fl |= bits[b];
				int want = native_jcc(page, near, cond, fl);
				uint8_t code[6];
				size_t n;
				if (near) {
					code[0] = 0x0f;
					code[1] = (uint8_t)(0x80 | cond);
					int32_t rel = 0x100;
					memcpy(code + 2, &rel, 4);
					n = 6;
				} else {
					code[0] = (uint8_t)(0x70 | cond);
					code[1] = 0xf0; /* -16 */
					n = 2;
				}
				struct user_regs_struct r = { 0 };
				r.rip = 0x401000;
				r.eflags = fl;
				r.rsp = 0x7ff0;
				struct ptd_soft_outcome o;
				assert_int_equal(ptd_soft_emulate_bytes(code, n, &r, &fake, &o), 0);
				uint64_t tgt = near ? 0x401000 + 6 + 0x100 : 0x401000 + 2 - 16;
				assert_int_equal(o.taken, want);
				assert_int_equal(r.rip, want ? tgt : 0x401000 + n);
				assert_int_equal(o.target, r.rip);
				assert_int_equal(o.iclass, PTD_IC_COND_JUMP);
				assert_int_equal(r.rsp, 0x7ff0);
				want ? taken_seen++ : not_seen++;
			}
		}
	}
	assert_true(taken_seen > 100 && not_seen > 100);
	munmap(page, 4096);
}

struct ecase {
	const char *name;
	uint8_t code[16];
	size_t len;
	/* inputs */
	uint64_t rax, rbx, rcx, rsp, eflags, fs_base, gs_base;
	uint64_t mem_addr, mem_val; /* one qword put into memory first (0: none) */
	/* expected */
	int ret;
	uint64_t rip, new_rsp, new_rcx;
	int taken, iclass, op;
	uint64_t write_addr, write_val; /* 0: no write expected */
};

#define IP 0x401000ull
#define SP (MEM_BASE + 0x1000)

static const struct ecase cases[] = {
	/* jrcxz / jecxz */
	{ "jrcxz taken", { 0xe3, 0x10 }, 2, .rcx = 0, .rsp = SP, .rip = IP + 0x12,
	  .new_rsp = SP, .new_rcx = 0, .taken = 1, .iclass = PTD_IC_COND_JUMP, .op = PTD_SOP_JRCXZ },
	{ "jrcxz not taken (upper bits)", { 0xe3, 0x10 }, 2, .rcx = 0x100000000ull, .rsp = SP,
	  .rip = IP + 2, .new_rsp = SP, .new_rcx = 0x100000000ull, .taken = 0,
	  .iclass = PTD_IC_COND_JUMP, .op = PTD_SOP_JRCXZ },
	{ "jecxz taken on ecx", { 0x67, 0xe3, 0x10 }, 3, .rcx = 0x100000000ull, .rsp = SP,
	  .rip = IP + 0x13, .new_rsp = SP, .new_rcx = 0x100000000ull, .taken = 1,
	  .iclass = PTD_IC_COND_JUMP, .op = PTD_SOP_JRCXZ },
	/* loop family */
	{ "loop taken", { 0xe2, 0xfe }, 2, .rcx = 2, .rsp = SP, .rip = IP, .new_rsp = SP,
	  .new_rcx = 1, .taken = 1, .iclass = PTD_IC_COND_JUMP, .op = PTD_SOP_LOOP },
	{ "loop ends", { 0xe2, 0xfe }, 2, .rcx = 1, .rsp = SP, .rip = IP + 2, .new_rsp = SP,
	  .new_rcx = 0, .taken = 0, .iclass = PTD_IC_COND_JUMP, .op = PTD_SOP_LOOP },
	{ "loop wraps", { 0xe2, 0xfe }, 2, .rcx = 0, .rsp = SP, .rip = IP, .new_rsp = SP,
	  .new_rcx = ~0ull, .taken = 1, .iclass = PTD_IC_COND_JUMP, .op = PTD_SOP_LOOP },
	{ "addr32 loop ends on ecx, zero-extends", { 0x67, 0xe2, 0xfd }, 3,
	  .rcx = 0x1234567800000001ull, .rsp = SP, .rip = IP + 3, .new_rsp = SP, .new_rcx = 0,
	  .taken = 0, .iclass = PTD_IC_COND_JUMP, .op = PTD_SOP_LOOP },
	{ "addr32 loop from 0", { 0x67, 0xe2, 0xfd }, 3, .rcx = 0x1234567800000000ull,
	  .rsp = SP, .rip = IP, .new_rsp = SP, .new_rcx = 0xffffffffull, .taken = 1,
	  .iclass = PTD_IC_COND_JUMP, .op = PTD_SOP_LOOP },
	{ "loope zf=1", { 0xe1, 0x20 }, 2, .rcx = 5, .eflags = 0x246, .rsp = SP, .rip = IP + 0x22,
	  .new_rsp = SP, .new_rcx = 4, .taken = 1, .iclass = PTD_IC_COND_JUMP, .op = PTD_SOP_LOOP },
	{ "loope zf=0", { 0xe1, 0x20 }, 2, .rcx = 5, .eflags = 0x202, .rsp = SP, .rip = IP + 2,
	  .new_rsp = SP, .new_rcx = 4, .taken = 0, .iclass = PTD_IC_COND_JUMP, .op = PTD_SOP_LOOP },
	{ "loopne zf=0", { 0xe0, 0x20 }, 2, .rcx = 5, .eflags = 0x202, .rsp = SP, .rip = IP + 0x22,
	  .new_rsp = SP, .new_rcx = 4, .taken = 1, .iclass = PTD_IC_COND_JUMP, .op = PTD_SOP_LOOP },
	{ "loopne zf=1", { 0xe0, 0x20 }, 2, .rcx = 5, .eflags = 0x246, .rsp = SP, .rip = IP + 2,
	  .new_rsp = SP, .new_rcx = 4, .taken = 0, .iclass = PTD_IC_COND_JUMP, .op = PTD_SOP_LOOP },
	{ "loopne count ends", { 0xe0, 0x20 }, 2, .rcx = 1, .eflags = 0x202, .rsp = SP,
	  .rip = IP + 2, .new_rsp = SP, .new_rcx = 0, .taken = 0, .iclass = PTD_IC_COND_JUMP,
	  .op = PTD_SOP_LOOP },
	/* indirect jumps */
	{ "jmp *%rax", { 0xff, 0xe0 }, 2, .rax = 0x405060, .rsp = SP, .rip = 0x405060,
	  .new_rsp = SP, .taken = 1, .iclass = PTD_IC_JUMP, .op = PTD_SOP_JMP_IND },
	{ "notrack jmp *%rax", { 0x3e, 0xff, 0xe0 }, 3, .rax = 0x405061, .rsp = SP,
	  .rip = 0x405061, .new_rsp = SP, .taken = 1, .iclass = PTD_IC_JUMP,
	  .op = PTD_SOP_JMP_IND },
	{ "bnd jmp *%rbx", { 0xf2, 0xff, 0xe3 }, 3, .rbx = 0x405062, .rsp = SP, .rip = 0x405062,
	  .new_rsp = SP, .taken = 1, .iclass = PTD_IC_JUMP, .op = PTD_SOP_JMP_IND },
	{ "jmp *0x10(%rip)", { 0xff, 0x25, 0x10, 0x00, 0x00, 0x00 }, 6,
	  /* ip is patched per case below for rip-relative: see run_case */
	  .rsp = SP, .mem_addr = MEM_BASE + 0x100 + 6 + 0x10, .mem_val = 0x402222,
	  .rip = 0x402222, .new_rsp = SP, .taken = 1, .iclass = PTD_IC_JUMP,
	  .op = PTD_SOP_JMP_IND },
	{ "jmp *0x8(%rax,%rbx,8)", { 0xff, 0x64, 0xd8, 0x08 }, 4, .rax = MEM_BASE + 0x200,
	  .rbx = 3, .rsp = SP, .mem_addr = MEM_BASE + 0x200 + 24 + 8, .mem_val = 0x403333,
	  .rip = 0x403333, .new_rsp = SP, .taken = 1, .iclass = PTD_IC_JUMP,
	  .op = PTD_SOP_JMP_IND },
	{ "jmp *-0x8(,%rbx,4)", { 0xff, 0x24, 0x9d, 0xf8, 0xff, 0xff, 0xff }, 7,
	  .rbx = (MEM_BASE + 0x308) / 4, .rsp = SP, .mem_addr = MEM_BASE + 0x300,
	  .mem_val = 0x403344, .rip = 0x403344, .new_rsp = SP, .taken = 1, .iclass = PTD_IC_JUMP,
	  .op = PTD_SOP_JMP_IND },
	{ "jmp *%fs:0x28", { 0x64, 0xff, 0x24, 0x25, 0x28, 0x00, 0x00, 0x00 }, 8,
	  .fs_base = MEM_BASE + 0x400, .rsp = SP, .mem_addr = MEM_BASE + 0x428,
	  .mem_val = 0x404444, .rip = 0x404444, .new_rsp = SP, .taken = 1, .iclass = PTD_IC_JUMP,
	  .op = PTD_SOP_JMP_IND },
	{ "jmp *%gs:(%rax)", { 0x65, 0xff, 0x20 }, 3, .gs_base = MEM_BASE + 0x500, .rax = 0x10,
	  .rsp = SP, .mem_addr = MEM_BASE + 0x510, .mem_val = 0x405555, .rip = 0x405555,
	  .new_rsp = SP, .taken = 1, .iclass = PTD_IC_JUMP, .op = PTD_SOP_JMP_IND },
	{ "jmp *%ds:(%rax) (base 0)", { 0x3e, 0xff, 0x20 }, 3, .rax = MEM_BASE + 0x520,
	  .rsp = SP, .mem_addr = MEM_BASE + 0x520, .mem_val = 0x405556, .rip = 0x405556,
	  .new_rsp = SP, .taken = 1, .iclass = PTD_IC_JUMP, .op = PTD_SOP_JMP_IND },
	{ "addr32 jmp *(%eax) truncates", { 0x67, 0xff, 0x20 }, 3,
	  .rax = 0xffffffff00000000ull + MEM_BASE + 0x600, .rsp = SP, .mem_addr = MEM_BASE + 0x600,
	  .mem_val = 0x406666, .rip = 0x406666, .new_rsp = SP, .taken = 1, .iclass = PTD_IC_JUMP,
	  .op = PTD_SOP_JMP_IND },
	{ "jmp direct is emulable", { 0xe9, 0x00, 0x01, 0x00, 0x00 }, 5, .rsp = SP,
	  .rip = IP + 5 + 0x100, .new_rsp = SP, .taken = 1, .iclass = PTD_IC_JUMP,
	  .op = PTD_SOP_JMP },
	/* calls */
	{ "call rel32", { 0xe8, 0xfb, 0x0f, 0x00, 0x00 }, 5, .rsp = SP, .rip = IP + 0x1000,
	  .new_rsp = SP - 8, .taken = 1, .iclass = PTD_IC_CALL, .op = PTD_SOP_CALL,
	  .write_addr = SP - 8, .write_val = IP + 5 },
	{ "call *%rax", { 0xff, 0xd0 }, 2, .rax = 0x407777, .rsp = SP, .rip = 0x407777,
	  .new_rsp = SP - 8, .taken = 1, .iclass = PTD_IC_CALL, .op = PTD_SOP_CALL_IND,
	  .write_addr = SP - 8, .write_val = IP + 2 },
	{ "call *0x8(%rsp) reads before push", { 0xff, 0x54, 0x24, 0x08 }, 4, .rsp = SP,
	  .mem_addr = SP + 8, .mem_val = 0x408888, .rip = 0x408888, .new_rsp = SP - 8,
	  .taken = 1, .iclass = PTD_IC_CALL, .op = PTD_SOP_CALL_IND, .write_addr = SP - 8,
	  .write_val = IP + 4 },
	{ "notrack call *(%rax,%rbx,8)", { 0x3e, 0xff, 0x14, 0xd8 }, 4, .rax = MEM_BASE + 0x700,
	  .rbx = 2, .rsp = SP, .mem_addr = MEM_BASE + 0x710, .mem_val = 0x409999,
	  .rip = 0x409999, .new_rsp = SP - 8, .taken = 1, .iclass = PTD_IC_CALL,
	  .op = PTD_SOP_CALL_IND, .write_addr = SP - 8, .write_val = IP + 4 },
	{ "call *%fs:0x10", { 0x64, 0xff, 0x14, 0x25, 0x10, 0x00, 0x00, 0x00 }, 8,
	  .fs_base = MEM_BASE + 0x800, .rsp = SP, .mem_addr = MEM_BASE + 0x810,
	  .mem_val = 0x40aaaa, .rip = 0x40aaaa, .new_rsp = SP - 8, .taken = 1,
	  .iclass = PTD_IC_CALL, .op = PTD_SOP_CALL_IND, .write_addr = SP - 8,
	  .write_val = IP + 8 },
	/* returns */
	{ "ret", { 0xc3 }, 1, .rsp = SP, .mem_addr = SP, .mem_val = 0x40bbbb, .rip = 0x40bbbb,
	  .new_rsp = SP + 8, .taken = 1, .iclass = PTD_IC_RET, .op = PTD_SOP_RET },
	{ "bnd ret", { 0xf2, 0xc3 }, 2, .rsp = SP, .mem_addr = SP, .mem_val = 0x40bbbc,
	  .rip = 0x40bbbc, .new_rsp = SP + 8, .taken = 1, .iclass = PTD_IC_RET, .op = PTD_SOP_RET },
	{ "ret $0x10", { 0xc2, 0x10, 0x00 }, 3, .rsp = SP, .mem_addr = SP, .mem_val = 0x40cccc,
	  .rip = 0x40cccc, .new_rsp = SP + 0x18, .taken = 1, .iclass = PTD_IC_RET,
	  .op = PTD_SOP_RET },
	/* not a branch: falls through */
	{ "mov %rsp,%rbp", { 0x48, 0x89, 0xe5 }, 3, .rsp = SP, .rip = IP + 3, .new_rsp = SP,
	  .taken = 0, .iclass = PTD_IC_OTHER, .op = PTD_SOP_NONE },
	/* left to single-stepping */
	{ "syscall", { 0x0f, 0x05 }, 2, .rsp = SP, .ret = PTD_SOFT_NOEMUL,
	  .iclass = PTD_IC_FAR_CALL, .op = PTD_SOP_SYSCALL },
	{ "sysenter", { 0x0f, 0x34 }, 2, .rsp = SP, .ret = PTD_SOFT_NOEMUL,
	  .iclass = PTD_IC_FAR_CALL, .op = PTD_SOP_SYSCALL },
	{ "int $0x80", { 0xcd, 0x80 }, 2, .rsp = SP, .ret = PTD_SOFT_NOEMUL,
	  .iclass = PTD_IC_FAR_CALL, .op = PTD_SOP_SYSCALL },
	{ "int3", { 0xcc }, 1, .rsp = SP, .ret = PTD_SOFT_NOEMUL, .iclass = PTD_IC_FAR_CALL,
	  .op = PTD_SOP_NOEMUL },
	{ "ljmp *(%rax)", { 0xff, 0x28 }, 2, .rsp = SP, .rax = MEM_BASE, .ret = PTD_SOFT_NOEMUL,
	  .iclass = PTD_IC_FAR_JUMP, .op = PTD_SOP_NOEMUL },
	{ "lcall *(%rax)", { 0xff, 0x18 }, 2, .rsp = SP, .rax = MEM_BASE, .ret = PTD_SOFT_NOEMUL,
	  .iclass = PTD_IC_FAR_CALL, .op = PTD_SOP_NOEMUL },
	{ "lret", { 0xcb }, 1, .rsp = SP, .ret = PTD_SOFT_NOEMUL, .iclass = PTD_IC_FAR_RET,
	  .op = PTD_SOP_NOEMUL },
	{ "iretq", { 0x48, 0xcf }, 2, .rsp = SP, .ret = PTD_SOFT_NOEMUL, .iclass = PTD_IC_FAR_RET,
	  .op = PTD_SOP_NOEMUL },
	{ "hlt", { 0xf4 }, 1, .rsp = SP, .ret = PTD_SOFT_NOEMUL, .iclass = PTD_IC_OTHER,
	  .op = PTD_SOP_NOEMUL },
	{ "ud2", { 0x0f, 0x0b }, 2, .rsp = SP, .ret = PTD_SOFT_NOEMUL, .iclass = PTD_IC_OTHER,
	  .op = PTD_SOP_NOEMUL },
	{ "jmp through unreadable memory", { 0xff, 0x20 }, 2, .rax = 0x1000, .rsp = SP,
	  .ret = PTD_SOFT_NOEMUL, .iclass = PTD_IC_JUMP, .op = PTD_SOP_JMP_IND },
	{ "call with unwritable stack", { 0xff, 0xd0 }, 2, .rax = 0x401234, .rsp = 0x2000,
	  .ret = PTD_SOFT_NOEMUL, .iclass = PTD_IC_CALL, .op = PTD_SOP_CALL_IND },
	{ "ret with unreadable stack", { 0xc3 }, 1, .rsp = 0x2000, .ret = PTD_SOFT_NOEMUL,
	  .iclass = PTD_IC_RET, .op = PTD_SOP_RET },
};

static void run_case(const struct ecase *c)
{
	reset();
	struct user_regs_struct r;
	memset(&r, 0, sizeof(r));
	/* rip-relative cases address memory relative to an ip inside the window */
	uint64_t ip = (c->code[0] == 0xff && c->code[1] == 0x25) ? MEM_BASE + 0x100 : IP;
	r.rip = ip;
	r.rax = c->rax;
	r.rbx = c->rbx;
	r.rcx = c->rcx;
	r.rdx = 0x1111;
	r.rsp = c->rsp;
	r.eflags = c->eflags ? c->eflags : 0x202;
	r.fs_base = c->fs_base;
	r.gs_base = c->gs_base;
	if (c->mem_addr)
		put64(c->mem_addr, c->mem_val);
	struct user_regs_struct before = r;

	struct ptd_soft_insn in;
	assert_int_equal(ptd_soft_decode(c->code, c->len, ip, &in), 0);
	assert_int_equal(in.len, c->len);
	assert_int_equal(in.op, c->op);
	assert_int_equal(in.iclass, c->iclass);

	struct ptd_soft_outcome o;
	int ret = ptd_soft_emulate(&in, &r, &fake, &o);
	assert_int_equal(ret, c->ret);
	if (ret != 0) {
		/* Nothing may change when the instruction is left to the CPU. */
		assert_memory_equal(&r, &before, sizeof(r));
		assert_int_equal(nwrites, 0);
		return;
	}
	assert_int_equal(r.rip, c->rip);
	assert_int_equal(o.target, c->rip);
	assert_int_equal(o.ip, ip);
	assert_int_equal(o.taken, c->taken);
	assert_int_equal(o.iclass, c->iclass);
	assert_int_equal(r.rsp, c->new_rsp);
	assert_int_equal(r.rcx, c->op == PTD_SOP_LOOP ? c->new_rcx : c->rcx);
	assert_int_equal(r.rax, c->rax);
	assert_int_equal(r.rdx, 0x1111);
	assert_int_equal(r.eflags, before.eflags);
	if (c->write_addr) {
		assert_int_equal(nwrites, 1);
		assert_int_equal(o.pushed, 1);
		assert_int_equal(last_write_addr, c->write_addr);
		assert_int_equal(last_write_val, c->write_val);
	} else {
		assert_int_equal(nwrites, 0);
		assert_int_equal(o.pushed, 0);
	}
}

static void test_table(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		print_message("case: %s\n", cases[i].name);
		run_case(&cases[i]);
	}
}

static void test_operand_size_prefix_is_stepped(void **state)
{
	(void)state;
	/* 66 e8: 16-bit operand size on AMD, ignored on Intel: left to the CPU. */
	static const uint8_t call16[] = { 0x66, 0xe8, 0x10, 0x00, 0x00, 0x00 };
	struct ptd_soft_insn in;
	if (ptd_soft_decode(call16, sizeof(call16), IP, &in) == 0)
		assert_int_equal(in.op, PTD_SOP_NOEMUL);
	static const uint8_t jz16[] = { 0x66, 0x74, 0x10 };
	assert_int_equal(ptd_soft_decode(jz16, sizeof(jz16), IP, &in), 0);
	assert_int_equal(in.op, PTD_SOP_NOEMUL);
	static const uint8_t ret16[] = { 0x66, 0xc3 };
	assert_int_equal(ptd_soft_decode(ret16, sizeof(ret16), IP, &in), 0);
	assert_int_equal(in.op, PTD_SOP_NOEMUL);
}

static void test_errors(void **state)
{
	(void)state;
	struct ptd_soft_insn in;
	struct ptd_soft_outcome o;
	struct user_regs_struct r = { 0 };
	static const uint8_t bad[] = { 0x0f, 0xff };
	static const uint8_t cut[] = { 0xe8, 0x00 };
	assert_int_equal(ptd_soft_decode(bad, sizeof(bad), IP, &in), -ptde_bad_insn);
	assert_int_equal(ptd_soft_decode(cut, sizeof(cut), IP, &in), -ptde_bad_insn);
	assert_int_equal(ptd_soft_decode(NULL, 1, IP, &in), -ptde_invalid);
	assert_int_equal(ptd_soft_decode(cut, 2, IP, NULL), -ptde_invalid);
	assert_int_equal(ptd_soft_emulate(NULL, &r, &fake, &o), -ptde_invalid);
	assert_int_equal(ptd_soft_emulate_bytes(cut, 2, NULL, &fake, &o), -ptde_invalid);
	/* A call with no memory callbacks at all cannot push. */
	static const uint8_t call[] = { 0xff, 0xd0 };
	assert_int_equal(ptd_soft_decode(call, 2, IP, &in), 0);
	r.rip = IP;
	assert_int_equal(ptd_soft_emulate(&in, &r, NULL, &o), PTD_SOFT_NOEMUL);
	assert_int_equal(r.rip, IP);
}

static void test_dynamic_classes(void **state)
{
	(void)state;
	assert_false(ptd_soft_op_dynamic(PTD_SOP_NONE));
	assert_false(ptd_soft_op_dynamic(PTD_SOP_JMP));
	assert_false(ptd_soft_op_dynamic(PTD_SOP_CALL));
	assert_true(ptd_soft_op_dynamic(PTD_SOP_JCC));
	assert_true(ptd_soft_op_dynamic(PTD_SOP_RET));
	assert_true(ptd_soft_op_dynamic(PTD_SOP_SYSCALL));
	assert_true(ptd_soft_op_dynamic(PTD_SOP_NOEMUL));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_jcc_all_conditions_vs_cpu),
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_operand_size_prefix_is_stepped),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_dynamic_classes),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
