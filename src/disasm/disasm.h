/*
 * Instruction classification and AT&T disassembly (Zydis), in 64-bit mode
 * and, through the _mode variants, 32-bit and 16-bit mode.
 *
 * ptd_disasm_decode() is the hot path of every recorder and of history
 * enumeration: it only classifies (length, class, direct target, flags).
 * ptd_disasm_format() produces gdb-style AT&T text for listings.
 */
#ifndef PTD_DISASM_H
#define PTD_DISASM_H

#include <stddef.h>
#include <stdint.h>

/* Classes of the last instruction of a block; numerically like libipt's
 * enum pt_insn_class minus ptic_error, so conversions are explicit. */
enum ptd_iclass {
	PTD_IC_OTHER = 0,
	PTD_IC_CALL,      /* near call, direct or indirect */
	PTD_IC_RET,       /* near ret, ret imm16 */
	PTD_IC_JUMP,      /* near jmp, direct or indirect */
	PTD_IC_COND_JUMP, /* jcc, jrcxz/jecxz, loop/loope/loopne */
	PTD_IC_FAR_CALL,  /* syscall, sysenter, int n, int3, into, far call */
	PTD_IC_FAR_RET,   /* iret, sysret, sysexit, far ret */
	PTD_IC_FAR_JUMP,  /* far jmp */
	PTD_IC_MAX
};

enum ptd_insn_flags {
	PTD_INSN_INDIRECT = 1 << 0,   /* target is not encoded in the insn */
	PTD_INSN_REP_STRING = 1 << 1, /* rep/repe/repne string instruction */
	PTD_INSN_SYSCALL = 1 << 2,    /* syscall / sysenter / int 0x80 */
	PTD_INSN_INT3 = 1 << 3,       /* int3 (0xcc) */
	PTD_INSN_HLT = 1 << 4,        /* hlt/ud2 and other always-faulting */
	PTD_INSN_RET_IMM = 1 << 5,    /* ret imm16 (imm in target field) */
};

struct ptd_insn_info {
	uint64_t ip;
	/* Direct branch/call target (absolute); for RET_IMM, the immediate. */
	uint64_t target;
	uint8_t len;
	uint8_t iclass; /* enum ptd_iclass */
	uint16_t flags; /* enum ptd_insn_flags */
};

/* Execution modes (PT's MODE.Exec): 64-bit, 32-bit and 16-bit code (the
 * latter two as compatibility mode under a 64-bit kernel runs them). */
enum ptd_exec_mode {
	PTD_MODE_64 = 0,
	PTD_MODE_32 = 1,
	PTD_MODE_16 = 2,
};

/*
 * Decodes the instruction at @ip whose bytes are @buf[0..@size).
 * Returns 0 on success; -ptde_bad_insn if the bytes are not a valid
 * instruction (or are cut short); -ptde_invalid if an argument is NULL.
 */
int ptd_disasm_decode(const uint8_t *buf, size_t size, uint64_t ip, struct ptd_insn_info *out);
/* The same in execution mode @mode (enum ptd_exec_mode; -ptde_invalid for
 * another value); ptd_disasm_decode is PTD_MODE_64. */
int ptd_disasm_decode_mode(const uint8_t *buf, size_t size, uint64_t ip, unsigned mode,
			   struct ptd_insn_info *out);

/*
 * Resolves @addr to "name+off" for operands and <sym> annotations; writes
 * into @out (size @n) and returns 0, or returns <0 when unknown.
 */
typedef int (*ptd_symbolizer_fn)(void *ctx, uint64_t addr, char *out, size_t n);

/*
 * Formats the instruction at @ip as gdb 13 prints it in AT&T syntax, e.g.
 * "mov    %rsp,%rbp", "call   0x401126 <fib>", "jmp    *0x2fe2(%rip)        # 0x404018 <puts@got.plt>".
 * The mnemonic is padded to 6 columns plus a space as objdump/gdb do.
 * @sym may be NULL.  Returns the instruction length (>0) on success,
 * -ptde_bad_insn when the bytes do not decode (then @out holds "(bad)").
 */
int ptd_disasm_format(const uint8_t *buf, size_t size, uint64_t ip, char *out, size_t n,
		      ptd_symbolizer_fn sym, void *ctx);
/* The same in execution mode @mode (32-bit code shows %esp, 16-bit %sp,
 * branch targets wrap at the operand size); ptd_disasm_format is
 * PTD_MODE_64. */
int ptd_disasm_format_mode(const uint8_t *buf, size_t size, uint64_t ip, unsigned mode, char *out,
			   size_t n, ptd_symbolizer_fn sym, void *ctx);

/* Returns the raw bytes as gdb's /r shows them: "55", "48 89 e5". */
void ptd_disasm_hexbytes(const uint8_t *buf, size_t len, char *out, size_t n);

#endif
