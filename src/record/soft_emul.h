/*
 * Branch emulation for the soft recorder: decode one instruction into a
 * compact branch descriptor, and compute what a control transfer does to
 * the registers (and, for call, the stack) without executing it.
 *
 * The recorder traps only on instructions whose outcome is not static
 * (conditional branches, indirect jumps and calls, returns, syscalls);
 * emulating them saves the single-step a ptrace recorder would otherwise
 * need.  Everything here is pure: registers come in a user_regs_struct,
 * memory through callbacks, so the unit tests drive it with tables.
 */
#ifndef PTD_RECORD_SOFT_EMUL_H
#define PTD_RECORD_SOFT_EMUL_H

#include <stddef.h>
#include <stdint.h>
#include <sys/user.h>

/* What an instruction does to control flow, as the scanner and emulator see it. */
enum ptd_soft_op {
	PTD_SOP_NONE = 0,   /* not a control transfer: falls through */
	PTD_SOP_JMP,        /* direct near jmp (static) */
	PTD_SOP_CALL,       /* direct near call (static target, pushes) */
	PTD_SOP_JCC,        /* jcc: cond = low nibble of the 0x7x opcode */
	PTD_SOP_JRCXZ,      /* jrcxz / jecxz (addr32) */
	PTD_SOP_LOOP,       /* loop / loope / loopne: cond 0, 1 (e), 2 (ne) */
	PTD_SOP_JMP_IND,    /* jmp through register or memory */
	PTD_SOP_CALL_IND,   /* call through register or memory */
	PTD_SOP_RET,        /* near ret, ret imm16 (target = imm) */
	PTD_SOP_SYSCALL,    /* syscall, sysenter, int 0x80: single-step */
	PTD_SOP_NOEMUL,     /* other non-static: far transfers, int n, hlt, ud2... */
};

/* Operand location for indirect branches. */
struct ptd_soft_loc {
	uint8_t is_mem;
	uint8_t reg;   /* register operand: PTD_SOFT_REG_* index, or base for mem */
	uint8_t index; /* PTD_SOFT_REG_NONE when absent */
	uint8_t scale;
	uint8_t seg;   /* 0 none (base 0), 1 fs, 2 gs */
	uint8_t rip_rel;
	int64_t disp;
};

#define PTD_SOFT_REG_NONE 0xff

/* One decoded instruction, compact enough to cache per breakpoint. */
struct ptd_soft_insn {
	uint64_t ip;
	uint64_t target; /* JMP/CALL/JCC/JRCXZ/LOOP: absolute target; RET: imm16 */
	struct ptd_soft_loc loc; /* JMP_IND/CALL_IND */
	uint8_t len;
	uint8_t op;     /* enum ptd_soft_op */
	uint8_t cond;
	uint8_t addr32; /* 32-bit address size (0x67 prefix) */
	uint8_t iclass; /* enum ptd_iclass of the instruction */
};

/*
 * Decodes the instruction at @ip from @buf[0..@n).  Returns 0, or
 * -ptde_bad_insn when the bytes do not decode, -ptde_invalid on NULL.
 */
int ptd_soft_decode(const uint8_t *buf, size_t n, uint64_t ip, struct ptd_soft_insn *out);

/* Memory access for the emulator; both return bytes transferred (< n or
 * < 0 on failure). */
struct ptd_soft_mem {
	long (*read)(void *ctx, uint64_t addr, void *buf, size_t n);
	long (*write)(void *ctx, uint64_t addr, const void *buf, size_t n);
	void *ctx;
};

/* Result of one emulated branch. */
struct ptd_soft_outcome {
	uint64_t ip;     /* the branch */
	uint64_t target; /* new rip */
	uint8_t iclass;  /* enum ptd_iclass */
	uint8_t op;      /* enum ptd_soft_op */
	uint8_t taken;   /* conditional: 1 when taken; others: 1 */
	uint8_t pushed;  /* call: the return address was written at the new rsp */
};

/* ptd_soft_emulate() result when the instruction must be single-stepped. */
#define PTD_SOFT_NOEMUL 1

/*
 * Emulates @in on @regs (rip must equal in->ip).  On success returns 0,
 * updates @regs (rip, and rsp/rcx as the instruction does), performs the
 * call's push through @mem->write and fills @out.  Returns
 * PTD_SOFT_NOEMUL, leaving @regs and memory untouched, when the
 * instruction is not emulable (syscall, far transfer, 16-bit operand size,
 * unreadable operand or unwritable stack: single-stepping it gives the
 * real behaviour, including the fault).  -ptde_invalid on NULL arguments.
 */
int ptd_soft_emulate(const struct ptd_soft_insn *in, struct user_regs_struct *regs,
		     const struct ptd_soft_mem *mem, struct ptd_soft_outcome *out);

/* Decodes and emulates in one call (tests, one-off use). */
int ptd_soft_emulate_bytes(const uint8_t *buf, size_t n, struct user_regs_struct *regs,
			   const struct ptd_soft_mem *mem, struct ptd_soft_outcome *out);

/* Whether @op ends a static run (the scanner arms a breakpoint on it). */
static inline int ptd_soft_op_dynamic(int op)
{
	return op >= PTD_SOP_JCC;
}

#endif
