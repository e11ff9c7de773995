/*
 * Branch decoding and emulation for the soft recorder (see soft_emul.h).
 *
 * ptd_soft_decode() reduces Zydis' full decode to what the recorder needs
 * to know about control flow, so the per-trap work is a table lookup and a
 * few loads, and the descriptor can be cached per breakpoint address.
 * ptd_soft_emulate() applies it to a register file.  Anything whose
 * architectural effect we do not model exactly is reported as not
 * emulable so the recorder single-steps it and sees the real result.
 */
#include <stddef.h>
#include <string.h>

#include <Zydis/Zydis.h>

#include "disasm/disasm.h"
#include "record/soft_emul.h"
#include "util/error.h"

/* General-purpose registers in user_regs_struct, indexed by PTD_SOFT_REG_*. */
static const size_t reg_off[16] = {
	offsetof(struct user_regs_struct, rax), offsetof(struct user_regs_struct, rcx),
	offsetof(struct user_regs_struct, rdx), offsetof(struct user_regs_struct, rbx),
	offsetof(struct user_regs_struct, rsp), offsetof(struct user_regs_struct, rbp),
	offsetof(struct user_regs_struct, rsi), offsetof(struct user_regs_struct, rdi),
	offsetof(struct user_regs_struct, r8),  offsetof(struct user_regs_struct, r9),
	offsetof(struct user_regs_struct, r10), offsetof(struct user_regs_struct, r11),
	offsetof(struct user_regs_struct, r12), offsetof(struct user_regs_struct, r13),
	offsetof(struct user_regs_struct, r14), offsetof(struct user_regs_struct, r15),
};

#define REG_RIP 16

/* Maps a Zydis GPR of any width to our index; 0xfe for RIP, NONE for none,
 * 0xfd for anything else (segment, vector...). */
static uint8_t map_reg(ZydisRegister r)
{
	if (r == ZYDIS_REGISTER_NONE)
		return PTD_SOFT_REG_NONE;
	if (r == ZYDIS_REGISTER_RIP || r == ZYDIS_REGISTER_EIP)
		return REG_RIP;
	ZydisRegister big = ZydisRegisterGetLargestEnclosing(ZYDIS_MACHINE_MODE_LONG_64, r);
	if (big >= ZYDIS_REGISTER_RAX && big <= ZYDIS_REGISTER_R15)
		return (uint8_t)(big - ZYDIS_REGISTER_RAX);
	return 0xfd;
}

static uint64_t get_reg(const struct user_regs_struct *r, uint8_t i)
{
	uint64_t v;
	memcpy(&v, (const char *)r + reg_off[i], 8);
	return v;
}

static const ZydisDecoder *decoder(void)
{
	/* Initialisation is deterministic and idempotent, so racing threads
	 * writing the same bytes is harmless; the flag only saves work. */
	static ZydisDecoder d;
	static int ready;
	if (!__atomic_load_n(&ready, __ATOMIC_ACQUIRE)) {
		ZydisDecoderInit(&d, ZYDIS_MACHINE_MODE_LONG_64, ZYDIS_STACK_WIDTH_64);
		__atomic_store_n(&ready, 1, __ATOMIC_RELEASE);
	}
	return &d;
}

static int jcc_cond(ZydisMnemonic m)
{
	switch (m) {
	case ZYDIS_MNEMONIC_JO: return 0x0;
	case ZYDIS_MNEMONIC_JNO: return 0x1;
	case ZYDIS_MNEMONIC_JB: return 0x2;
	case ZYDIS_MNEMONIC_JNB: return 0x3;
	case ZYDIS_MNEMONIC_JZ: return 0x4;
	case ZYDIS_MNEMONIC_JNZ: return 0x5;
	case ZYDIS_MNEMONIC_JBE: return 0x6;
	case ZYDIS_MNEMONIC_JNBE: return 0x7;
	case ZYDIS_MNEMONIC_JS: return 0x8;
	case ZYDIS_MNEMONIC_JNS: return 0x9;
	case ZYDIS_MNEMONIC_JP: return 0xa;
	case ZYDIS_MNEMONIC_JNP: return 0xb;
	case ZYDIS_MNEMONIC_JL: return 0xc;
	case ZYDIS_MNEMONIC_JNL: return 0xd;
	case ZYDIS_MNEMONIC_JLE: return 0xe;
	case ZYDIS_MNEMONIC_JNLE: return 0xf;
	default: return -1;
	}
}

/* Fills @loc from an indirect branch's operand; returns 0 or -1 when the
 * operand is something we do not model. */
static int decode_loc(const ZydisDecodedInstruction *zi, const ZydisDecodedOperand *op,
		      struct ptd_soft_loc *loc)
{
	memset(loc, 0, sizeof(*loc));
	loc->index = PTD_SOFT_REG_NONE;
	if (op->type == ZYDIS_OPERAND_TYPE_REGISTER) {
		uint8_t r = map_reg(op->reg.value);
		if (r >= 16 || op->size != 64)
			return -1;
		loc->reg = r;
		return 0;
	}
	if (op->type != ZYDIS_OPERAND_TYPE_MEMORY || op->mem.type != ZYDIS_MEMOP_TYPE_MEM)
		return -1;
	loc->is_mem = 1;
	switch (op->mem.segment) {
	case ZYDIS_REGISTER_NONE:
	case ZYDIS_REGISTER_DS:
	case ZYDIS_REGISTER_SS:
	case ZYDIS_REGISTER_ES:
	case ZYDIS_REGISTER_CS:
		/* In 64-bit mode these segments have base 0. */
		loc->seg = 0;
		break;
	case ZYDIS_REGISTER_FS:
		loc->seg = 1;
		break;
	case ZYDIS_REGISTER_GS:
		loc->seg = 2;
		break;
	default:
		return -1;
	}
	loc->reg = map_reg(op->mem.base);
	loc->index = map_reg(op->mem.index);
	if (loc->reg == 0xfd || loc->index == 0xfd || loc->index == REG_RIP)
		return -1;
	if (loc->reg == REG_RIP) {
		loc->rip_rel = 1;
		loc->reg = PTD_SOFT_REG_NONE;
	}
	loc->scale = op->mem.scale ? op->mem.scale : 1;
	loc->disp = op->mem.disp.has_displacement ? op->mem.disp.value : 0;
	(void)zi;
	return 0;
}

int ptd_soft_decode(const uint8_t *buf, size_t n, uint64_t ip, struct ptd_soft_insn *out)
{
	ZydisDecodedInstruction zi;
	ZydisDecodedOperand ops[ZYDIS_MAX_OPERAND_COUNT];

	if (!buf || !out)
		return -ptde_invalid;
	memset(out, 0, sizeof(*out));
	out->ip = ip;
	out->loc.index = PTD_SOFT_REG_NONE;
	if (!ZYAN_SUCCESS(ZydisDecoderDecodeFull(decoder(), buf, n, &zi, ops)))
		return -ptde_bad_insn;
	out->len = zi.length;
	out->addr32 = zi.address_width == 32;

	/* Near branches with an operand-size prefix are 16-bit on AMD and
	 * 64-bit on Intel; let the CPU decide by stepping them. */
	int near64 = !(zi.attributes & ZYDIS_ATTRIB_HAS_OPERANDSIZE) &&
		     (zi.operand_width == 64 || zi.meta.branch_type == ZYDIS_BRANCH_TYPE_SHORT);
	int far = zi.meta.branch_type == ZYDIS_BRANCH_TYPE_FAR;

	switch (zi.meta.category) {
	case ZYDIS_CATEGORY_COND_BR: {
		out->iclass = PTD_IC_COND_JUMP;
		const ZydisDecodedOperand *o = &ops[0];
		uint64_t t = 0;
		if (o->type != ZYDIS_OPERAND_TYPE_IMMEDIATE ||
		    !ZYAN_SUCCESS(ZydisCalcAbsoluteAddress(&zi, o, ip, &t)) || !near64) {
			out->op = PTD_SOP_NOEMUL;
			return 0;
		}
		out->target = t;
		int c = jcc_cond(zi.mnemonic);
		if (c >= 0) {
			out->op = PTD_SOP_JCC;
			out->cond = (uint8_t)c;
		} else if (zi.mnemonic == ZYDIS_MNEMONIC_JRCXZ || zi.mnemonic == ZYDIS_MNEMONIC_JECXZ) {
			out->op = PTD_SOP_JRCXZ;
			out->addr32 = zi.mnemonic == ZYDIS_MNEMONIC_JECXZ;
		} else if (zi.mnemonic == ZYDIS_MNEMONIC_LOOP) {
			out->op = PTD_SOP_LOOP;
		} else if (zi.mnemonic == ZYDIS_MNEMONIC_LOOPE) {
			out->op = PTD_SOP_LOOP;
			out->cond = 1;
		} else if (zi.mnemonic == ZYDIS_MNEMONIC_LOOPNE) {
			out->op = PTD_SOP_LOOP;
			out->cond = 2;
		} else {
			out->op = PTD_SOP_NOEMUL;
		}
		return 0;
	}
	case ZYDIS_CATEGORY_UNCOND_BR:
	case ZYDIS_CATEGORY_CALL: {
		int call = zi.meta.category == ZYDIS_CATEGORY_CALL;
		if (far) {
			out->iclass = call ? PTD_IC_FAR_CALL : PTD_IC_FAR_JUMP;
			out->op = PTD_SOP_NOEMUL;
			return 0;
		}
		out->iclass = call ? PTD_IC_CALL : PTD_IC_JUMP;
		const ZydisDecodedOperand *o = &ops[0];
		if (!near64) {
			out->op = PTD_SOP_NOEMUL;
			return 0;
		}
		if (o->type == ZYDIS_OPERAND_TYPE_IMMEDIATE) {
			uint64_t t;
			if (!ZYAN_SUCCESS(ZydisCalcAbsoluteAddress(&zi, o, ip, &t))) {
				out->op = PTD_SOP_NOEMUL;
				return 0;
			}
			out->target = t;
			out->op = call ? PTD_SOP_CALL : PTD_SOP_JMP;
			return 0;
		}
		if (decode_loc(&zi, o, &out->loc) < 0) {
			out->op = PTD_SOP_NOEMUL;
			return 0;
		}
		out->op = call ? PTD_SOP_CALL_IND : PTD_SOP_JMP_IND;
		return 0;
	}
	case ZYDIS_CATEGORY_RET:
		if (far || zi.mnemonic != ZYDIS_MNEMONIC_RET) {
			out->iclass = PTD_IC_FAR_RET;
			out->op = PTD_SOP_NOEMUL;
			return 0;
		}
		out->iclass = PTD_IC_RET;
		out->op = near64 ? PTD_SOP_RET : PTD_SOP_NOEMUL;
		for (int i = 0; i < zi.operand_count_visible; i++)
			if (ops[i].type == ZYDIS_OPERAND_TYPE_IMMEDIATE)
				out->target = ops[i].imm.value.u & 0xffff;
		return 0;
	case ZYDIS_CATEGORY_SYSCALL:
		out->iclass = PTD_IC_FAR_CALL;
		out->op = PTD_SOP_SYSCALL;
		return 0;
	case ZYDIS_CATEGORY_SYSRET:
		out->iclass = PTD_IC_FAR_RET;
		out->op = PTD_SOP_NOEMUL;
		return 0;
	case ZYDIS_CATEGORY_INTERRUPT:
		if (zi.mnemonic == ZYDIS_MNEMONIC_IRET || zi.mnemonic == ZYDIS_MNEMONIC_IRETD ||
		    zi.mnemonic == ZYDIS_MNEMONIC_IRETQ) {
			out->iclass = PTD_IC_FAR_RET;
			out->op = PTD_SOP_NOEMUL;
			return 0;
		}
		out->iclass = PTD_IC_FAR_CALL;
		out->op = (zi.mnemonic == ZYDIS_MNEMONIC_INT && ops[0].imm.value.u == 0x80)
				  ? PTD_SOP_SYSCALL
				  : PTD_SOP_NOEMUL;
		return 0;
	default:
		break;
	}
	switch (zi.mnemonic) {
	case ZYDIS_MNEMONIC_HLT:
	case ZYDIS_MNEMONIC_UD0:
	case ZYDIS_MNEMONIC_UD1:
	case ZYDIS_MNEMONIC_UD2:
	case ZYDIS_MNEMONIC_XBEGIN:
	case ZYDIS_MNEMONIC_XABORT:
	case ZYDIS_MNEMONIC_XEND:
		/* Always fault, or may resume elsewhere (transaction abort). */
		out->op = PTD_SOP_NOEMUL;
		break;
	default:
		out->op = PTD_SOP_NONE;
		break;
	}
	out->iclass = PTD_IC_OTHER;
	return 0;
}

static int cond_true(uint8_t cond, uint64_t fl)
{
	int cf = !!(fl & 0x1), pf = !!(fl & 0x4), zf = !!(fl & 0x40), sf = !!(fl & 0x80),
	    of = !!(fl & 0x800);
	int v;
	switch (cond >> 1) {
	case 0: v = of; break;
	case 1: v = cf; break;
	case 2: v = zf; break;
	case 3: v = cf || zf; break;
	case 4: v = sf; break;
	case 5: v = pf; break;
	case 6: v = sf != of; break;
	default: v = zf || sf != of; break;
	}
	return (cond & 1) ? !v : v;
}

/* Effective (linear) address of a memory operand. */
static uint64_t eff_addr(const struct ptd_soft_insn *in, const struct user_regs_struct *r)
{
	const struct ptd_soft_loc *l = &in->loc;
	uint64_t ea = (uint64_t)l->disp;
	if (l->rip_rel)
		ea += in->ip + in->len;
	else if (l->reg != PTD_SOFT_REG_NONE)
		ea += get_reg(r, l->reg);
	if (l->index != PTD_SOFT_REG_NONE)
		ea += get_reg(r, l->index) * l->scale;
	if (in->addr32)
		ea = (uint32_t)ea;
	if (l->seg == 1)
		ea += r->fs_base;
	else if (l->seg == 2)
		ea += r->gs_base;
	return ea;
}

static int read_u64(const struct ptd_soft_mem *mem, uint64_t addr, uint64_t *v)
{
	uint8_t b[8];
	if (!mem || !mem->read || mem->read(mem->ctx, addr, b, 8) != 8)
		return -1;
	memcpy(v, b, 8);
	return 0;
}

int ptd_soft_emulate(const struct ptd_soft_insn *in, struct user_regs_struct *regs,
		     const struct ptd_soft_mem *mem, struct ptd_soft_outcome *out)
{
	if (!in || !regs || !out)
		return -ptde_invalid;
	memset(out, 0, sizeof(*out));
	out->ip = in->ip;
	out->iclass = in->iclass;
	out->op = in->op;
	out->taken = 1;

	uint64_t next = in->ip + in->len;
	uint64_t target = next, rsp = regs->rsp, rcx = regs->rcx;

	switch (in->op) {
	case PTD_SOP_NONE:
		out->taken = 0;
		break;
	case PTD_SOP_JMP:
		target = in->target;
		break;
	case PTD_SOP_JCC:
		out->taken = (uint8_t)cond_true(in->cond, regs->eflags);
		target = out->taken ? in->target : next;
		break;
	case PTD_SOP_JRCXZ:
		out->taken = (in->addr32 ? (uint32_t)rcx : rcx) == 0;
		target = out->taken ? in->target : next;
		break;
	case PTD_SOP_LOOP: {
		uint64_t count;
		/* A 32-bit count is written as ECX, which zero-extends into RCX. */
		if (in->addr32)
			count = rcx = (uint32_t)(rcx - 1);
		else
			count = rcx = rcx - 1;
		int zf = !!(regs->eflags & 0x40);
		out->taken = count != 0 && (in->cond == 0 || (in->cond == 1 ? zf : !zf));
		target = out->taken ? in->target : next;
		break;
	}
	case PTD_SOP_JMP_IND:
	case PTD_SOP_CALL_IND:
		if (in->loc.is_mem) {
			if (read_u64(mem, eff_addr(in, regs), &target) < 0)
				return PTD_SOFT_NOEMUL;
		} else {
			target = get_reg(regs, in->loc.reg);
		}
		break;
	case PTD_SOP_CALL:
		target = in->target;
		break;
	case PTD_SOP_RET:
		if (read_u64(mem, rsp, &target) < 0)
			return PTD_SOFT_NOEMUL;
		rsp += 8 + in->target;
		break;
	default:
		return PTD_SOFT_NOEMUL;
	}

	if (in->op == PTD_SOP_CALL || in->op == PTD_SOP_CALL_IND) {
		uint8_t b[8];
		rsp -= 8;
		memcpy(b, &next, 8);
		if (!mem || !mem->write || mem->write(mem->ctx, rsp, b, 8) != 8)
			return PTD_SOFT_NOEMUL;
		out->pushed = 1;
	}
	regs->rip = target;
	regs->rsp = rsp;
	regs->rcx = rcx;
	out->target = target;
	return 0;
}

int ptd_soft_emulate_bytes(const uint8_t *buf, size_t n, struct user_regs_struct *regs,
			   const struct ptd_soft_mem *mem, struct ptd_soft_outcome *out)
{
	struct ptd_soft_insn in;
	if (!regs)
		return -ptde_invalid;
	int err = ptd_soft_decode(buf, n, regs->rip, &in);
	if (err < 0)
		return err;
	return ptd_soft_emulate(&in, regs, mem, out);
}
