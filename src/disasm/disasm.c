/*
 * Instruction classification and gdb-style AT&T text, on top of Zydis 4.
 *
 * This file owns two things.  ptd_disasm_decode() is the hot path of the
 * step and soft recorders and of history enumeration: it runs Zydis'
 * instruction decoder without operand decoding and classifies the result
 * from the mnemonic, the branch type and the raw immediate, so it never
 * touches a formatter.  ptd_disasm_format() is for listings: it decodes the
 * operands and writes text that matches what gdb 13 (and objdump, both
 * libopcodes) prints, so a user can compare our listings with gdb's
 * line by line and golden tests can use gdb as an oracle.
 *
 * Why we do not print with ZydisFormatterFormatInstruction: Zydis' AT&T
 * style differs from libopcodes in nearly every token (", " separators,
 * "movzxb", padded displacements, size suffixes on register forms, the
 * implicit 1 of shifts, string-instruction operands).  Hooking each
 * formatter callback to undo that costs more code than printing the
 * decoded operands directly, so we use Zydis for decoding and register and
 * mnemonic names, and print the operands here.
 *
 * Known differences from gdb (rare in compiler output, not worth the code):
 * "fwait; fnstsw" pairs are two instructions here (as the CPU executes
 * them) where libopcodes prints one "fstsw"; AVX-512 embedded broadcast
 * and rounding decorators ({1to16}, {rn-sae}) are not printed; unused
 * REX bits are named only in the cases compilers and linkers produce.
 * Measured against objdump -d (binutils 2.40, the libopcodes of gdb 13),
 * ignoring <symbol> annotations: libc.so.6 0 of 336865 instructions
 * differ, libstdc++.so.6 0 of 263546, libz 0 of 18587, libm 13 of 106332
 * (the fstsw pairs); and gdb 13's own "disassemble /r" output of .plt and
 * .text of gcc and clang test programs (-O0..-O3, -Os, with and without
 * -fcf-protection) is reproduced exactly, symbols included, with
 * ptd_symbols_symbolize() as the symbolizer.
 */
#include "disasm/disasm.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <Zydis/Zydis.h>

#include "util/error.h"

/*
 * Two decoders: the full one for formatting, and one in Zydis' minimal
 * mode for classification, which skips the semantic analysis we do not
 * need (about 20% faster).  Minimal mode does not set the REP attributes,
 * so classification reads the raw prefixes instead; on every byte offset
 * of libc's text both decoders agree on every field classification uses.
 */
static ZydisDecoder decoder[3], fast_decoder[3]; /* by enum ptd_exec_mode */
static pthread_once_t decoder_once = PTHREAD_ONCE_INIT;

static void decoder_init(void)
{
	/* A user process runs 32-bit and 16-bit code in compatibility mode
	 * (a 64-bit kernel); the decode is the same as in legacy mode for
	 * what user code can execute. */
	static const ZydisMachineMode mm[3] = {ZYDIS_MACHINE_MODE_LONG_64,
					       ZYDIS_MACHINE_MODE_LONG_COMPAT_32,
					       ZYDIS_MACHINE_MODE_LONG_COMPAT_16};
	static const ZydisStackWidth sw[3] = {ZYDIS_STACK_WIDTH_64, ZYDIS_STACK_WIDTH_32,
					      ZYDIS_STACK_WIDTH_16};

	for (int i = 0; i < 3; i++) {
		ZydisDecoderInit(&decoder[i], mm[i], sw[i]);
		ZydisDecoderInit(&fast_decoder[i], mm[i], sw[i]);
		ZydisDecoderEnableMode(&fast_decoder[i], ZYDIS_DECODER_MODE_MINIMAL, ZYAN_TRUE);
	}
}

static inline const ZydisDecoder *get_decoder(unsigned mode)
{
	pthread_once(&decoder_once, decoder_init);
	return &decoder[mode < 3 ? mode : 0];
}

static inline const ZydisDecoder *get_fast_decoder(unsigned mode)
{
	pthread_once(&decoder_once, decoder_init);
	return &fast_decoder[mode < 3 ? mode : 0];
}

/*
 * A per-thread direct-mapped memo of classifications, keyed by address and
 * checked against the instruction bytes: recorders and history enumeration
 * decode the same loop bodies over and over, and a hit costs a hash and a
 * short compare instead of a Zydis decode.  Because the bytes are
 * compared, self-modifying code or a breakpoint byte can never return a
 * stale entry.
 */
#define MEMO_SIZE 512
struct memo_entry {
	uint64_t ip;
	uint8_t bytes[15];
	uint8_t valid;
	uint8_t mode;
	struct ptd_insn_info info;
};
static __thread struct memo_entry memo[MEMO_SIZE];

static inline struct memo_entry *memo_slot(uint64_t ip)
{
	return &memo[(ip ^ (ip >> 9)) & (MEMO_SIZE - 1)];
}

static int is_string_op(ZydisMnemonic m)
{
	switch (m) {
	case ZYDIS_MNEMONIC_MOVSB: case ZYDIS_MNEMONIC_MOVSW:
	case ZYDIS_MNEMONIC_MOVSQ:
	case ZYDIS_MNEMONIC_STOSB: case ZYDIS_MNEMONIC_STOSW:
	case ZYDIS_MNEMONIC_STOSD: case ZYDIS_MNEMONIC_STOSQ:
	case ZYDIS_MNEMONIC_LODSB: case ZYDIS_MNEMONIC_LODSW:
	case ZYDIS_MNEMONIC_LODSD: case ZYDIS_MNEMONIC_LODSQ:
	case ZYDIS_MNEMONIC_CMPSB: case ZYDIS_MNEMONIC_CMPSW:
	case ZYDIS_MNEMONIC_CMPSQ:
	case ZYDIS_MNEMONIC_SCASB: case ZYDIS_MNEMONIC_SCASW:
	case ZYDIS_MNEMONIC_SCASD: case ZYDIS_MNEMONIC_SCASQ:
	case ZYDIS_MNEMONIC_INSB: case ZYDIS_MNEMONIC_INSW: case ZYDIS_MNEMONIC_INSD:
	case ZYDIS_MNEMONIC_OUTSB: case ZYDIS_MNEMONIC_OUTSW: case ZYDIS_MNEMONIC_OUTSD:
		return 1;
	default:
		/* MOVSD and CMPSD are also SSE2 mnemonics; the category tells. */
		return 0;
	}
}

static int is_string_insn(const ZydisDecodedInstruction *in)
{
	if (in->meta.category == ZYDIS_CATEGORY_STRINGOP ||
	    in->meta.category == ZYDIS_CATEGORY_IOSTRINGOP)
		return 1;
	return is_string_op(in->mnemonic);
}

/* The ip after a relative branch wraps at the operand size outside
 * 64-bit mode (eip, ip). */
static uint64_t wrap_ip(uint64_t t, unsigned mode, unsigned operand_width)
{
	if (mode == PTD_MODE_64)
		return t;
	return operand_width == 16 ? t & 0xffff : t & 0xffffffffull;
}

static uint64_t rel_target(const ZydisDecodedInstruction *in, uint64_t ip, unsigned mode)
{
	return wrap_ip(ip + in->length + (uint64_t)in->raw.imm[0].value.s, mode, in->operand_width);
}

int ptd_disasm_decode(const uint8_t *buf, size_t size, uint64_t ip, struct ptd_insn_info *out)
{
	return ptd_disasm_decode_mode(buf, size, ip, PTD_MODE_64, out);
}

int ptd_disasm_decode_mode(const uint8_t *buf, size_t size, uint64_t ip, unsigned mode,
			   struct ptd_insn_info *out)
{
	ZydisDecoderContext ctx;
	ZydisDecodedInstruction in;
	unsigned cls = PTD_IC_OTHER, flags = 0;
	uint64_t target = 0;

	struct memo_entry *e;
	unsigned i;

	if (!buf || !out || mode > PTD_MODE_16)
		return ptd__err(-ptde_invalid, "disasm: NULL argument or bad mode");
	e = memo_slot(ip);
	if (e->valid && e->ip == ip && e->mode == mode && e->info.len <= size &&
	    !memcmp(e->bytes, buf, e->info.len)) {
		*out = e->info;
		return 0;
	}
	if (ZYAN_FAILED(
		    ZydisDecoderDecodeInstruction(get_fast_decoder(mode), &ctx, buf, size, &in)))
		return -ptde_bad_insn;

	switch (in.mnemonic) {
	case ZYDIS_MNEMONIC_CALL:
	case ZYDIS_MNEMONIC_JMP:
		if (in.meta.branch_type == ZYDIS_BRANCH_TYPE_FAR) {
			cls = in.mnemonic == ZYDIS_MNEMONIC_CALL ? PTD_IC_FAR_CALL : PTD_IC_FAR_JUMP;
			flags |= PTD_INSN_INDIRECT;
			break;
		}
		cls = in.mnemonic == ZYDIS_MNEMONIC_CALL ? PTD_IC_CALL : PTD_IC_JUMP;
		if (in.raw.imm[0].is_relative)
			target = rel_target(&in, ip, mode);
		else
			flags |= PTD_INSN_INDIRECT;
		break;
	case ZYDIS_MNEMONIC_RET:
		cls = in.meta.branch_type == ZYDIS_BRANCH_TYPE_FAR ? PTD_IC_FAR_RET : PTD_IC_RET;
		flags |= PTD_INSN_INDIRECT;
		if (in.opcode == 0xc2 || in.opcode == 0xca) {
			flags |= PTD_INSN_RET_IMM;
			target = in.raw.imm[0].value.u & 0xffff;
		}
		break;
	case ZYDIS_MNEMONIC_IRET: case ZYDIS_MNEMONIC_IRETD: case ZYDIS_MNEMONIC_IRETQ:
	case ZYDIS_MNEMONIC_SYSRET: case ZYDIS_MNEMONIC_SYSEXIT:
		cls = PTD_IC_FAR_RET;
		flags |= PTD_INSN_INDIRECT;
		break;
	case ZYDIS_MNEMONIC_JB: case ZYDIS_MNEMONIC_JBE: case ZYDIS_MNEMONIC_JL:
	case ZYDIS_MNEMONIC_JLE: case ZYDIS_MNEMONIC_JNB: case ZYDIS_MNEMONIC_JNBE:
	case ZYDIS_MNEMONIC_JNL: case ZYDIS_MNEMONIC_JNLE: case ZYDIS_MNEMONIC_JNO:
	case ZYDIS_MNEMONIC_JNP: case ZYDIS_MNEMONIC_JNS: case ZYDIS_MNEMONIC_JNZ:
	case ZYDIS_MNEMONIC_JO: case ZYDIS_MNEMONIC_JP: case ZYDIS_MNEMONIC_JS:
	case ZYDIS_MNEMONIC_JZ: case ZYDIS_MNEMONIC_JCXZ: case ZYDIS_MNEMONIC_JECXZ:
	case ZYDIS_MNEMONIC_JRCXZ: case ZYDIS_MNEMONIC_LOOP: case ZYDIS_MNEMONIC_LOOPE:
	case ZYDIS_MNEMONIC_LOOPNE:
		cls = PTD_IC_COND_JUMP;
		target = rel_target(&in, ip, mode);
		break;
	case ZYDIS_MNEMONIC_SYSCALL:
	case ZYDIS_MNEMONIC_SYSENTER:
		cls = PTD_IC_FAR_CALL;
		flags |= PTD_INSN_SYSCALL | PTD_INSN_INDIRECT;
		break;
	case ZYDIS_MNEMONIC_INT:
		cls = PTD_IC_FAR_CALL;
		flags |= PTD_INSN_INDIRECT;
		if ((in.raw.imm[0].value.u & 0xff) == 0x80)
			flags |= PTD_INSN_SYSCALL;
		break;
	case ZYDIS_MNEMONIC_INT3:
		cls = PTD_IC_FAR_CALL;
		flags |= PTD_INSN_INT3 | PTD_INSN_INDIRECT;
		break;
	case ZYDIS_MNEMONIC_INT1:
	case ZYDIS_MNEMONIC_INTO:
		cls = PTD_IC_FAR_CALL;
		flags |= PTD_INSN_INDIRECT;
		break;
	case ZYDIS_MNEMONIC_HLT:
	case ZYDIS_MNEMONIC_UD0:
	case ZYDIS_MNEMONIC_UD1:
	case ZYDIS_MNEMONIC_UD2:
		flags |= PTD_INSN_HLT;
		break;
	default:
		if (in.meta.category == ZYDIS_CATEGORY_STRINGOP ||
		    in.meta.category == ZYDIS_CATEGORY_IOSTRINGOP)
			for (i = 0; i < in.raw.prefix_count; i++)
				if (in.raw.prefixes[i].value == 0xf3 || in.raw.prefixes[i].value == 0xf2)
					flags |= PTD_INSN_REP_STRING;
		break;
	}

	out->ip = ip;
	out->target = target;
	out->len = in.length;
	out->iclass = (uint8_t)cls;
	out->flags = (uint16_t)flags;
	e->ip = ip;
	e->mode = (uint8_t)mode;
	memcpy(e->bytes, buf, in.length);
	e->info = *out;
	e->valid = 1;
	return 0;
}

/*
 * Formatting.  A bounded string builder: output is truncated, never
 * overflowed, and always NUL-terminated.
 */
struct sbuf {
	char *p;
	size_t n, len;
};

static void sb_putn(struct sbuf *b, const char *s, size_t k)
{
	size_t room;

	if (b->n == 0)
		return;
	room = b->n - 1 - (b->len < b->n - 1 ? b->len : b->n - 1);
	if (k > room)
		k = room;
	memcpy(b->p + b->len, s, k);
	b->len += k;
	b->p[b->len] = '\0';
}

static void sb_puts(struct sbuf *b, const char *s)
{
	sb_putn(b, s, strlen(s));
}

__attribute__((format(printf, 2, 3))) static void sb_printf(struct sbuf *b, const char *fmt, ...)
{
	char tmp[256];
	va_list ap;
	int k;

	va_start(ap, fmt);
	k = vsnprintf(tmp, sizeof(tmp), fmt, ap);
	va_end(ap);
	if (k < 0)
		return;
	sb_putn(b, tmp, (size_t)k < sizeof(tmp) ? (size_t)k : sizeof(tmp) - 1);
}

static void lower_copy(char *dst, size_t n, const char *src)
{
	size_t i;

	for (i = 0; src && src[i] && i + 1 < n; i++)
		dst[i] = (src[i] >= 'A' && src[i] <= 'Z') ? src[i] - 'A' + 'a' : src[i];
	dst[i] = '\0';
}

static char size_letter(unsigned bits)
{
	switch (bits) {
	case 8: return 'b';
	case 16: return 'w';
	case 32: return 'l';
	case 64: return 'q';
	default: return 0;
	}
}

static int is_accumulator(ZydisRegister r)
{
	return r == ZYDIS_REGISTER_AL || r == ZYDIS_REGISTER_AX || r == ZYDIS_REGISTER_EAX ||
	       r == ZYDIS_REGISTER_RAX;
}

static int is_gpr(ZydisRegister r)
{
	switch (ZydisRegisterGetClass(r)) {
	case ZYDIS_REGCLASS_GPR8: case ZYDIS_REGCLASS_GPR16:
	case ZYDIS_REGCLASS_GPR32: case ZYDIS_REGCLASS_GPR64:
		return 1;
	default:
		return 0;
	}
}

/* Zydis names conditions after Intel's first spelling (jz, jnbe, setnl);
 * libopcodes uses e/ne/a/ae/g/ge. */
static const char *cond_name(const char *c)
{
	static const struct { const char *z, *o; } map[] = {
		{ "z", "e" }, { "nz", "ne" }, { "nb", "ae" }, { "nbe", "a" },
		{ "nl", "ge" }, { "nle", "g" },
	};
	size_t i;

	for (i = 0; i < sizeof(map) / sizeof(map[0]); i++)
		if (!strcmp(c, map[i].z))
			return map[i].o;
	return c;
}

static void rename_cond(char *mn, size_t n, size_t stem)
{
	char cond[8];

	if (strlen(mn + stem) >= sizeof(cond))
		return;
	strcpy(cond, mn + stem);
	snprintf(mn + stem, n - stem, "%s", cond_name(cond));
}

/* First explicit memory operand, or NULL. */
static const ZydisDecodedOperand *mem_operand(const ZydisDecodedOperand *ops, unsigned nops)
{
	unsigned i;

	for (i = 0; i < nops; i++)
		if (ops[i].type == ZYDIS_OPERAND_TYPE_MEMORY &&
		    ops[i].mem.type != ZYDIS_MEMOP_TYPE_AGEN)
			return &ops[i];
	return NULL;
}

static int is_x87(const ZydisDecodedInstruction *in)
{
	return in->meta.isa_ext == ZYDIS_ISA_EXT_X87 || in->mnemonic == ZYDIS_MNEMONIC_FISTTP;
}

static int is_shift(const ZydisDecodedInstruction *in)
{
	switch (in->mnemonic) {
	case ZYDIS_MNEMONIC_SHL: case ZYDIS_MNEMONIC_SHR: case ZYDIS_MNEMONIC_SAR:
	case ZYDIS_MNEMONIC_ROL: case ZYDIS_MNEMONIC_ROR: case ZYDIS_MNEMONIC_RCL:
	case ZYDIS_MNEMONIC_RCR:
		return 1;
	default:
		return 0;
	}
}

/*
 * Builds the libopcodes mnemonic: renamed conversions and conditions, and
 * the size suffix that AT&T needs when no register operand gives the size.
 */
static void gdb_mnemonic(const ZydisDecodedInstruction *in, const ZydisDecodedOperand *ops,
			 unsigned nops, char *mn, size_t n)
{
	const ZydisDecodedOperand *mem = mem_operand(ops, nops);
	size_t len;
	unsigned i;
	int has_gpr = 0, has_other_reg = 0;
	char sfx;

	lower_copy(mn, n, ZydisMnemonicGetString(in->mnemonic));

	switch (in->mnemonic) {
	case ZYDIS_MNEMONIC_CDQE: snprintf(mn, n, "cltq"); return;
	case ZYDIS_MNEMONIC_CWDE: snprintf(mn, n, "cwtl"); return;
	case ZYDIS_MNEMONIC_CBW: snprintf(mn, n, "cbtw"); return;
	case ZYDIS_MNEMONIC_CDQ: snprintf(mn, n, "cltd"); return;
	case ZYDIS_MNEMONIC_CQO: snprintf(mn, n, "cqto"); return;
	case ZYDIS_MNEMONIC_CWD: snprintf(mn, n, "cwtd"); return;
	case ZYDIS_MNEMONIC_PUSHFQ: snprintf(mn, n, "pushf"); return;
	case ZYDIS_MNEMONIC_POPFQ: snprintf(mn, n, "popf"); return;
	case ZYDIS_MNEMONIC_MOVSXD:
		if (ops[0].size == 64)
			snprintf(mn, n, "movs%cq", size_letter(ops[1].size));
		else
			snprintf(mn, n, "movsxd");
		return;
	case ZYDIS_MNEMONIC_MOVZX:
	case ZYDIS_MNEMONIC_MOVSX:
		snprintf(mn, n, "mov%c%c%c", in->mnemonic == ZYDIS_MNEMONIC_MOVZX ? 'z' : 's',
			 size_letter(ops[1].size), size_letter(ops[0].size));
		return;
	case ZYDIS_MNEMONIC_RET:
		if (in->meta.branch_type == ZYDIS_BRANCH_TYPE_FAR)
			snprintf(mn, n, "lret");
		return;
	case ZYDIS_MNEMONIC_CALL:
	case ZYDIS_MNEMONIC_JMP:
		if (in->meta.branch_type == ZYDIS_BRANCH_TYPE_FAR)
			snprintf(mn, n, "%s", in->mnemonic == ZYDIS_MNEMONIC_CALL ? "lcall" : "ljmp");
		return;
	case ZYDIS_MNEMONIC_IRETD: snprintf(mn, n, "iret"); return;
	case ZYDIS_MNEMONIC_SYSRET:
	case ZYDIS_MNEMONIC_SYSEXIT:
		/* libopcodes names the operand size: sysretq, sysexitl. */
		snprintf(mn, n, "%s%c", in->mnemonic == ZYDIS_MNEMONIC_SYSRET ? "sysret" : "sysexit",
			 in->operand_width == 64 ? 'q' : 'l');
		return;
	case ZYDIS_MNEMONIC_MOV:
		/* 64-bit immediates and absolute moffs forms are "movabs". */
		if ((in->opcode >= 0xa0 && in->opcode <= 0xa3 &&
		     in->opcode_map == ZYDIS_OPCODE_MAP_DEFAULT) ||
		    in->raw.imm[0].size == 64)
			snprintf(mn, n, "movabs");
		break;
	default:
		break;
	}

	/* AT&T swaps fsub/fsubr and fdiv/fdivr in the register forms whose
	 * destination is %st(i) (the historical UnixWare assembler mnemonics,
	 * documented in the gas manual); libopcodes prints them that way. */
	if (in->opcode_map == ZYDIS_OPCODE_MAP_DEFAULT && (in->opcode == 0xdc || in->opcode == 0xde) &&
	    in->raw.modrm.mod == 3 && (!strncmp(mn, "fsub", 4) || !strncmp(mn, "fdiv", 4))) {
		if (mn[4] == 'r') {
			memmove(mn + 4, mn + 5, strlen(mn + 5) + 1);
		} else if (strlen(mn) + 2 <= n) {
			memmove(mn + 5, mn + 4, strlen(mn + 4) + 1);
			mn[4] = 'r';
		}
		return;
	}

	len = strlen(mn);
	if (mn[0] == 'j' && in->meta.category == ZYDIS_CATEGORY_COND_BR && len > 1 &&
	    strncmp(mn, "jrcxz", 5) && strncmp(mn, "jecxz", 5) && strncmp(mn, "jcxz", 4))
		rename_cond(mn, n, 1);
	else if (!strncmp(mn, "set", 3) && in->meta.category == ZYDIS_CATEGORY_SETCC)
		rename_cond(mn, n, 3);
	else if (!strncmp(mn, "cmov", 4) && in->meta.category == ZYDIS_CATEGORY_CMOV)
		rename_cond(mn, n, 4);

	if (is_string_insn(in)) {
		/* libopcodes drops the size letter when a register operand
		 * (stos/lods/scas) gives it and keeps it otherwise. */
		for (i = 0; i < nops; i++)
			if (ops[i].type == ZYDIS_OPERAND_TYPE_REGISTER && is_accumulator(ops[i].reg.value))
				has_gpr = 1;
		if (has_gpr && len > 1)
			mn[len - 1] = '\0';
		else if (len > 1 && mn[len - 1] == 'd')
			mn[len - 1] = 'l';
		return;
	}

	if (!mem)
		return;

	if (is_x87(in)) {
		const char *s = "";

		if (mn[1] == 'i') { /* fild, fistp, fiadd: integer memory */
			s = mem->size == 16 ? "s" : mem->size == 32 ? "l" : mem->size == 64 ? "ll" : "";
		} else if (!strcmp(mn, "fld") || !strcmp(mn, "fst") || !strcmp(mn, "fstp") ||
			   !strcmp(mn, "fadd") || !strcmp(mn, "fsub") || !strcmp(mn, "fsubr") ||
			   !strcmp(mn, "fmul") || !strcmp(mn, "fdiv") || !strcmp(mn, "fdivr") ||
			   !strcmp(mn, "fcom") || !strcmp(mn, "fcomp")) {
			s = mem->size == 32 ? "s" : mem->size == 64 ? "l" : mem->size == 80 ? "t" : "";
		}
		len = strlen(mn);
		snprintf(mn + len, n - len, "%s", s);
		return;
	}

	switch (in->meta.category) {
	case ZYDIS_CATEGORY_CALL:
	case ZYDIS_CATEGORY_UNCOND_BR:
	case ZYDIS_CATEGORY_SETCC:
	case ZYDIS_CATEGORY_PUSH:
	case ZYDIS_CATEGORY_POP:
		return;
	default:
		break;
	}
	if (in->mnemonic == ZYDIS_MNEMONIC_LEA)
		return;

	for (i = 0; i < nops; i++) {
		if (ops[i].type != ZYDIS_OPERAND_TYPE_REGISTER || in->mnemonic == ZYDIS_MNEMONIC_NOP)
			continue;
		if (is_gpr(ops[i].reg.value)) {
			/* A count register (shl %cl) does not give the size. */
			if (ops[i].reg.value == ZYDIS_REGISTER_CL && is_shift(in))
				continue;
			if (ops[i].size == mem->size)
				has_gpr = 1;
		} else {
			has_other_reg = 1;
		}
	}
	if (has_gpr)
		return;
	if (has_other_reg) {
		/* SSE forms with an integer memory source are ambiguous. */
		if (in->mnemonic == ZYDIS_MNEMONIC_CVTSI2SD || in->mnemonic == ZYDIS_MNEMONIC_CVTSI2SS ||
		    in->mnemonic == ZYDIS_MNEMONIC_VCVTSI2SD || in->mnemonic == ZYDIS_MNEMONIC_VCVTSI2SS) {
			len = strlen(mn);
			snprintf(mn + len, n - len, "%c", size_letter(mem->size));
		}
		return;
	}
	/* Only general-purpose integer instructions take a size letter;
	 * prefetch, fxsave, stmxcsr and the like have a fixed size. */
	if (in->encoding != ZYDIS_INSTRUCTION_ENCODING_LEGACY ||
	    (in->meta.isa_ext != ZYDIS_ISA_EXT_BASE && in->meta.isa_ext != ZYDIS_ISA_EXT_LONGMODE))
		return;
	sfx = size_letter(mem->size);
	if (sfx) {
		len = strlen(mn);
		snprintf(mn + len, n - len, "%c", sfx);
	}
}

/* @implicit: x87 names the implied top of stack "%st" and a register
 * taken from the ModRM byte "%st(N)", even N = 0. */
/*
 * AVX-512 integer compares with a predicate immediate print under their
 * alias names (vpcmpb $0 -> vpcmpeqb, vpcmpub $1 -> vpcmpltub) as
 * libopcodes does.  Returns 1 when @mn was renamed and the immediate must
 * not be printed.
 */
static int cmp_alias(const ZydisDecodedInstruction *in, const ZydisDecodedOperand *ops, char *mn,
		     size_t n)
{
	static const char *const pred[8] = { "eq", "lt", "le", NULL, "neq", "nlt", "nle", NULL };
	const ZydisDecodedOperand *imm;
	const char *tail;
	uint64_t p;

	static const char *const fpred[32] = {
		"eq", "lt", "le", "unord", "neq", "nlt", "nle", "ord",
		"eq_uq", "nge", "ngt", "false", "neq_oq", "ge", "gt", "true",
		"eq_os", "lt_oq", "le_oq", "unord_s", "neq_us", "nlt_uq", "nle_uq", "ord_s",
		"eq_us", "nge_uq", "ngt_uq", "false_os", "neq_os", "ge_oq", "gt_oq", "true_us",
	};
	int fp = 0, clmul = 0;

	switch (in->mnemonic) {
	case ZYDIS_MNEMONIC_VPCMPB: case ZYDIS_MNEMONIC_VPCMPUB:
	case ZYDIS_MNEMONIC_VPCMPW: case ZYDIS_MNEMONIC_VPCMPUW:
	case ZYDIS_MNEMONIC_VPCMPD: case ZYDIS_MNEMONIC_VPCMPUD:
	case ZYDIS_MNEMONIC_VPCMPQ: case ZYDIS_MNEMONIC_VPCMPUQ:
		break;
	case ZYDIS_MNEMONIC_CMPPS: case ZYDIS_MNEMONIC_CMPPD:
	case ZYDIS_MNEMONIC_CMPSS: case ZYDIS_MNEMONIC_CMPSD:
		fp = 8; /* legacy SSE: eight predicates */
		break;
	case ZYDIS_MNEMONIC_VCMPPS: case ZYDIS_MNEMONIC_VCMPPD:
	case ZYDIS_MNEMONIC_VCMPSS: case ZYDIS_MNEMONIC_VCMPSD:
		fp = 32;
		break;
	case ZYDIS_MNEMONIC_PCLMULQDQ: case ZYDIS_MNEMONIC_VPCLMULQDQ:
		clmul = 1;
		break;
	default:
		return 0;
	}
	if (in->operand_count_visible == 0)
		return 0;
	imm = &ops[in->operand_count_visible - 1];
	if (imm->type != ZYDIS_OPERAND_TYPE_IMMEDIATE)
		return 0;
	p = imm->imm.value.u & 0xff;
	if (clmul) {
		/* Which quadwords are multiplied: bit 0 selects in one
		 * source, bit 4 in the other: "pclmul" + bit 0 + bit 4 + "dq". */
		if (p & ~0x11ull)
			return 0;
		snprintf(mn, n, "%spclmul%sq%sqdq", in->mnemonic == ZYDIS_MNEMONIC_VPCLMULQDQ ? "v" : "",
			 (p & 0x01) ? "h" : "l", (p & 0x10) ? "h" : "l");
		return 1;
	}
	if (fp) {
		const char *base = in->mnemonic == ZYDIS_MNEMONIC_CMPPS || in->mnemonic == ZYDIS_MNEMONIC_VCMPPS ? "ps"
				   : in->mnemonic == ZYDIS_MNEMONIC_CMPPD || in->mnemonic == ZYDIS_MNEMONIC_VCMPPD ? "pd"
				   : in->mnemonic == ZYDIS_MNEMONIC_CMPSS || in->mnemonic == ZYDIS_MNEMONIC_VCMPSS ? "ss"
				   : "sd";

		if (p >= (uint64_t)fp)
			return 0;
		snprintf(mn, n, "%scmp%s%s", fp == 32 ? "v" : "", fpred[p], base);
		return 1;
	}
	if (p >= 8 || !pred[p] || strlen(mn) < 6)
		return 0;
	tail = mn + 5; /* "b", "ub", "w", ... after "vpcmp" */
	{
		char t[16];

		snprintf(t, sizeof(t), "%s", tail);
		snprintf(mn, n, "vpcmp%s%s", pred[p], t);
	}
	return 1;
}

static void put_reg(struct sbuf *b, ZydisRegister r, int implicit)
{
	char name[24];

	if (r >= ZYDIS_REGISTER_ST0 && r <= ZYDIS_REGISTER_ST7) {
		if (r == ZYDIS_REGISTER_ST0 && implicit)
			sb_puts(b, "%st");
		else
			sb_printf(b, "%%st(%d)", (int)(r - ZYDIS_REGISTER_ST0));
		return;
	}
	lower_copy(name, sizeof(name), ZydisRegisterGetString(r));
	sb_printf(b, "%%%s", name);
}

static void put_signed_hex(struct sbuf *b, int64_t v)
{
	if (v < 0)
		sb_printf(b, "-0x%llx", (unsigned long long)(-(uint64_t)v));
	else
		sb_printf(b, "0x%llx", (unsigned long long)v);
}

static void put_sym(struct sbuf *b, uint64_t addr, ptd_symbolizer_fn sym, void *ctx)
{
	char name[256];

	if (sym && sym(ctx, addr, name, sizeof(name)) >= 0 && name[0])
		sb_printf(b, " <%s>", name);
}

static uint64_t mask_bits(uint64_t v, unsigned bits)
{
	return bits >= 64 || bits == 0 ? v : v & ((1ull << bits) - 1);
}

static void put_mem(struct sbuf *b, const ZydisDecodedInstruction *in, const ZydisDecodedOperand *op,
		    int string_op, int *riprel)
{
	const ZydisDecodedOperandMem *m = &op->mem;
	int has_base = m->base != ZYDIS_REGISTER_NONE;
	int has_index = m->index != ZYDIS_REGISTER_NONE;
	int seg_shown = 0, riz;

	if (string_op || m->segment == ZYDIS_REGISTER_FS || m->segment == ZYDIS_REGISTER_GS ||
	    (!has_base && !has_index && !m->disp.has_displacement)) {
		if (m->segment != ZYDIS_REGISTER_NONE) {
			put_reg(b, m->segment, 0);
			sb_puts(b, ":");
			seg_shown = 1;
		}
	}
	(void)seg_shown;
	if (m->base == ZYDIS_REGISTER_RIP || m->base == ZYDIS_REGISTER_EIP) {
		put_signed_hex(b, m->disp.value);
		sb_puts(b, m->base == ZYDIS_REGISTER_RIP ? "(%rip)" : "(%eip)");
		*riprel = 1;
		return;
	}
	if (m->disp.has_displacement) {
		if (has_base || has_index)
			put_signed_hex(b, m->disp.value);
		else
			sb_printf(b, "0x%llx",
				  (unsigned long long)mask_bits((uint64_t)m->disp.value,
								in->address_width));
	}
	/* A SIB byte that says "no index" where no SIB was needed (a base
	 * other than %rsp/%r12, or a scale) shows the pseudo index %riz
	 * (%eiz), as libopcodes does: (%rbp,%riz,1), 0x0(,%riz,2). */
	riz = !has_index && (in->attributes & ZYDIS_ATTRIB_HAS_SIB) && in->raw.sib.index == 4 &&
	      !((in->attributes & ZYDIS_ATTRIB_HAS_REX) && in->raw.rex.X) &&
	      op->mem.type == ZYDIS_MEMOP_TYPE_MEM &&
	      (in->raw.sib.scale != 0 || (has_base && in->raw.sib.base != 4));
	if (!has_base && !has_index && !riz)
		return;
	sb_puts(b, "(");
	if (has_base)
		put_reg(b, m->base, 0);
	if (has_index) {
		sb_puts(b, ",");
		put_reg(b, m->index, 0);
		sb_printf(b, ",%u", m->scale ? m->scale : 1);
	} else if (riz) {
		sb_printf(b, ",%s,%u", in->address_width == 32 ? "%eiz" : "%riz",
			  1u << in->raw.sib.scale);
	}
	sb_puts(b, ")");
}

static void put_mask(struct sbuf *b, const ZydisDecodedInstruction *in)
{
	sb_puts(b, "{");
	put_reg(b, in->avx.mask.reg, 0);
	sb_puts(b, "}");
	if (in->encoding == ZYDIS_INSTRUCTION_ENCODING_EVEX && in->raw.evex.z)
		sb_puts(b, "{z}");
}

/* Whether a 66 prefix selects the 16-bit size of some operand. */
static int opsize_prefix_used(const ZydisDecodedInstruction *in, const ZydisDecodedOperand *ops)
{
	unsigned i;

	if (in->mnemonic == ZYDIS_MNEMONIC_NOP && in->opcode == 0x90 &&
	    in->opcode_map == ZYDIS_OPCODE_MAP_DEFAULT)
		return 1; /* 66 90 is "xchg %ax,%ax" */
	if (in->operand_width != 16 || (in->attributes & ZYDIS_ATTRIB_HAS_REX && in->raw.rex.W))
		return 0;
	for (i = 0; i < in->operand_count; i++)
		if (ops[i].size == 16 && ops[i].visibility != ZYDIS_OPERAND_VISIBILITY_HIDDEN)
			return 1;
	/* String and stack instructions size hidden operands. */
	return is_string_insn(in) || in->meta.category == ZYDIS_CATEGORY_PUSH ||
	       in->meta.category == ZYDIS_CATEGORY_POP;
}

/*
 * libopcodes names a REX prefix ("rex.W", "rex.RX") when one of its bits
 * does nothing.  We recognise the cases compilers and linkers produce: W
 * on instructions whose size is fixed at 64 bits or 8 bits (the TLS call
 * "data16 data16 rex.W call"), R without a ModRM register operand, X
 * without an index, B without a ModRM r/m, SIB base or opcode register.
 */
static void put_unused_rex(struct sbuf *b, const ZydisDecodedInstruction *in,
			   const ZydisDecodedOperand *ops)
{
	int used_r = 0, used_x = 0, used_b = 0, unused = 0;
	unsigned i;
	char name[16];

	if (!(in->attributes & ZYDIS_ATTRIB_HAS_REX) || in->encoding != ZYDIS_INSTRUCTION_ENCODING_LEGACY)
		return;
	for (i = 0; i < in->operand_count; i++) {
		const ZydisDecodedOperand *o = &ops[i];

		if (o->encoding == ZYDIS_OPERAND_ENCODING_MODRM_REG)
			used_r = 1;
		if (o->encoding == ZYDIS_OPERAND_ENCODING_MODRM_RM ||
		    o->encoding == ZYDIS_OPERAND_ENCODING_OPCODE)
			used_b = 1;
		if (o->type == ZYDIS_OPERAND_TYPE_MEMORY && o->visibility != ZYDIS_OPERAND_VISIBILITY_HIDDEN) {
			if (o->mem.index != ZYDIS_REGISTER_NONE)
				used_x = 1;
			if (o->mem.base != ZYDIS_REGISTER_NONE)
				used_b = 1;
		}
	}
	if (in->raw.rex.W) {
		switch (in->meta.category) {
		case ZYDIS_CATEGORY_CALL: case ZYDIS_CATEGORY_UNCOND_BR: case ZYDIS_CATEGORY_COND_BR:
		case ZYDIS_CATEGORY_RET: case ZYDIS_CATEGORY_PUSH: case ZYDIS_CATEGORY_POP:
			unused = 1;
			break;
		default:
			if (in->operand_width == 8 && in->meta.isa_ext == ZYDIS_ISA_EXT_BASE)
				unused = 1;
			break;
		}
	}
	if ((in->raw.rex.R && !used_r) || (in->raw.rex.X && !used_x) || (in->raw.rex.B && !used_b))
		unused = 1;
	if (!unused)
		return;
	snprintf(name, sizeof(name), "rex%s%s%s%s%s ",
		 (in->raw.rex.W | in->raw.rex.R | in->raw.rex.X | in->raw.rex.B) ? "." : "",
		 in->raw.rex.W ? "W" : "", in->raw.rex.R ? "R" : "", in->raw.rex.X ? "X" : "",
		 in->raw.rex.B ? "B" : "");
	sb_puts(b, name);
}

/* Names of prefixes that libopcodes prints as words before the mnemonic. */
static void put_prefixes(struct sbuf *b, const ZydisDecodedInstruction *in, int string_op,
			 const ZydisDecodedOperand *ops)
{
	unsigned i;
	int osz_used = opsize_prefix_used(in, ops);
	int has_mem = 0;

	for (i = 0; i < in->operand_count; i++)
		if (ops[i].type == ZYDIS_OPERAND_TYPE_MEMORY &&
		    ops[i].visibility == ZYDIS_OPERAND_VISIBILITY_EXPLICIT)
			has_mem = 1;

	for (i = 0; i < in->raw.prefix_count; i++) {
		uint8_t v = in->raw.prefixes[i].value;
		int ignored = in->raw.prefixes[i].type == ZYDIS_PREFIX_TYPE_IGNORED;
		int mandatory = in->raw.prefixes[i].type == ZYDIS_PREFIX_TYPE_MANDATORY;

		/* Zydis calls a string instruction's rep "mandatory". */
		if (mandatory && !string_op)
			continue;
		switch (v) {
		case 0xf0:
			sb_puts(b, "lock ");
			break;
		case 0xf3:
			if (string_op && !ignored) {
				int cmp = in->mnemonic >= ZYDIS_MNEMONIC_CMPSB &&
					  in->mnemonic <= ZYDIS_MNEMONIC_CMPSW;
				int scas = in->mnemonic >= ZYDIS_MNEMONIC_SCASB &&
					   in->mnemonic <= ZYDIS_MNEMONIC_SCASW;
				sb_puts(b, cmp || scas ? "repz " : "rep ");
			} else if (ignored || (in->attributes & ZYDIS_ATTRIB_HAS_REP) ||
				   (in->attributes & ZYDIS_ATTRIB_HAS_REPE)) {
				sb_puts(b, "repz ");
			}
			break;
		case 0xf2:
			if (in->attributes & ZYDIS_ATTRIB_HAS_BND)
				sb_puts(b, "bnd ");
			else if (string_op || ignored || (in->attributes & ZYDIS_ATTRIB_HAS_REPNE))
				sb_puts(b, "repnz ");
			break;
		case 0x66:
			/* Every 66 that does not select a 16-bit operand size. */
			if (osz_used)
				osz_used = 0;
			else
				sb_puts(b, "data16 ");
			break;
		case 0x3e:
			if (in->attributes & ZYDIS_ATTRIB_HAS_NOTRACK)
				sb_puts(b, "notrack ");
			else if (!string_op)
				sb_puts(b, "ds ");
			break;
		case 0x2e:
			if (ignored || !string_op)
				sb_puts(b, "cs ");
			break;
		case 0x26:
			if (!string_op)
				sb_puts(b, "es ");
			break;
		case 0x36:
			sb_puts(b, "ss ");
			break;
		case 0x64:
		case 0x65:
			/* Shown on the memory operand when there is one. */
			if (!has_mem)
				sb_puts(b, v == 0x64 ? "fs " : "gs ");
			break;
		case 0x67:
			/* jecxz, loop and string operands show the address size
			 * themselves. */
			if (!has_mem && !string_op && in->meta.category != ZYDIS_CATEGORY_COND_BR)
				sb_puts(b, "addr32 ");
			break;
		default:
			break;
		}
	}
	put_unused_rex(b, in, ops);
}

int ptd_disasm_format(const uint8_t *buf, size_t size, uint64_t ip, char *out, size_t n,
		      ptd_symbolizer_fn sym, void *ctx)
{
	return ptd_disasm_format_mode(buf, size, ip, PTD_MODE_64, out, n, sym, ctx);
}

int ptd_disasm_format_mode(const uint8_t *buf, size_t size, uint64_t ip, unsigned mode, char *out,
			   size_t n, ptd_symbolizer_fn sym, void *ctx)
{
	ZydisDecodedInstruction in;
	ZydisDecodedOperand ops[ZYDIS_MAX_OPERAND_COUNT];
	struct sbuf b = { out, n, 0 };
	char mn[32];
	ZydisDecodedOperand show[ZYDIS_MAX_OPERAND_COUNT];
	int string_op, riprel = 0, first = 1, i, nshow, skip_imm;
	uint64_t rip_target = 0;

	if (!buf || !out || n == 0 || mode > PTD_MODE_16)
		return ptd__err(-ptde_invalid, "disasm: NULL argument or bad mode");
	out[0] = '\0';
	if (ZYAN_FAILED(ZydisDecoderDecodeFull(get_decoder(mode), buf, size, &in, ops))) {
		sb_puts(&b, "(bad)");
		return -ptde_bad_insn;
	}
	string_op = is_string_insn(&in);

	put_prefixes(&b, &in, string_op, ops);
	/* 66 90 is a two-byte nop that libopcodes names by its encoding. */
	if (in.mnemonic == ZYDIS_MNEMONIC_NOP && in.opcode == 0x90 &&
	    in.opcode_map == ZYDIS_OPCODE_MAP_DEFAULT &&
	    (in.attributes & ZYDIS_ATTRIB_HAS_OPERANDSIZE) && !(in.attributes & ZYDIS_ATTRIB_HAS_REX)) {
		sb_puts(&b, b.len ? "xchg %ax,%ax" : "xchg   %ax,%ax");
		return in.length;
	}
	gdb_mnemonic(&in, ops, string_op ? in.operand_count : in.operand_count_visible, mn, sizeof(mn));
	skip_imm = cmp_alias(&in, ops, mn, sizeof(mn));
	if (in.mnemonic == ZYDIS_MNEMONIC_XLAT) {
		/* Its implicit table operand is printed. */
		sb_puts(&b, mode == PTD_MODE_64	  ? "xlat   %ds:(%rbx)"
			    : mode == PTD_MODE_32 ? "xlat   %ds:(%ebx)"
						  : "xlat   %ds:(%bx)");
		return in.length;
	}
	sb_puts(&b, mn);

	nshow = in.operand_count_visible;
	if (string_op) {
		/* Zydis hides string operands; libopcodes shows the memory
		 * operands with their segments and the accumulator. */
		nshow = 0;
		for (i = 0; i < in.operand_count; i++) {
			const ZydisDecodedOperand *op = &ops[i];
			ZydisRegister r = op->reg.value;

			if (op->type == ZYDIS_OPERAND_TYPE_MEMORY ||
			    (op->type == ZYDIS_OPERAND_TYPE_REGISTER &&
			     (is_accumulator(r) || r == ZYDIS_REGISTER_DX)))
				show[nshow++] = *op;
		}
	} else {
		memcpy(show, ops, sizeof(ops[0]) * nshow);
		/* libopcodes shows sha256rnds2's implicit %xmm0 (and that of
		 * the non-VEX blendv forms) as the first AT&T operand. */
		if ((in.mnemonic == ZYDIS_MNEMONIC_SHA256RNDS2 || in.mnemonic == ZYDIS_MNEMONIC_BLENDVPS ||
		     in.mnemonic == ZYDIS_MNEMONIC_BLENDVPD || in.mnemonic == ZYDIS_MNEMONIC_PBLENDVB) &&
		    in.operand_count > nshow && nshow < ZYDIS_MAX_OPERAND_COUNT &&
		    ops[nshow].type == ZYDIS_OPERAND_TYPE_REGISTER &&
		    ops[nshow].reg.value == ZYDIS_REGISTER_XMM0) {
			show[nshow] = ops[nshow];
			nshow++;
		}
	}
	/* "enter" keeps the Intel operand order in AT&T. */
	if (in.mnemonic == ZYDIS_MNEMONIC_ENTER && nshow == 2) {
		ZydisDecodedOperand t = show[0];

		show[0] = show[1];
		show[1] = t;
	}
	for (i = nshow - 1; i >= 0; i--) {
		const ZydisDecodedOperand *op = &show[i];

		if (skip_imm && op->type == ZYDIS_OPERAND_TYPE_IMMEDIATE)
			continue;
		/* The EVEX mask is printed as a decoration of the destination. */
		if (op->type == ZYDIS_OPERAND_TYPE_REGISTER &&
		    op->encoding == ZYDIS_OPERAND_ENCODING_MASK)
			continue;
		/* Multi-byte nops name a register operand that is not printed. */
		if (in.mnemonic == ZYDIS_MNEMONIC_NOP && op->type == ZYDIS_OPERAND_TYPE_REGISTER)
			continue;
		/* The implicit count of the D0/D1 shift group is not printed. */
		if (op->type == ZYDIS_OPERAND_TYPE_IMMEDIATE && in.opcode_map == ZYDIS_OPCODE_MAP_DEFAULT &&
		    (in.opcode == 0xd0 || in.opcode == 0xd1))
			continue;
		if (first) {
			/* Pad the prefixes plus mnemonic to 6 columns, then a space. */
			sb_putn(&b, "       ", b.len < 6 ? 7 - b.len : 1);
			first = 0;
		} else {
			sb_puts(&b, ",");
		}
		switch (op->type) {
		case ZYDIS_OPERAND_TYPE_REGISTER:
			if ((in.meta.category == ZYDIS_CATEGORY_CALL ||
			     in.meta.category == ZYDIS_CATEGORY_UNCOND_BR))
				sb_puts(&b, "*");
			if (op->reg.value == ZYDIS_REGISTER_DX &&
			    (in.mnemonic == ZYDIS_MNEMONIC_IN || in.mnemonic == ZYDIS_MNEMONIC_OUT ||
			     string_op)) {
				sb_puts(&b, "(%dx)");
				break;
			}
			put_reg(&b, op->reg.value, op->visibility == ZYDIS_OPERAND_VISIBILITY_IMPLICIT);
			if (i == 0 && in.avx.mask.reg != ZYDIS_REGISTER_NONE &&
			    in.avx.mask.reg != ZYDIS_REGISTER_K0)
				put_mask(&b, &in);
			break;
		case ZYDIS_OPERAND_TYPE_MEMORY:
			if (op->mem.type != ZYDIS_MEMOP_TYPE_AGEN &&
			    (in.meta.category == ZYDIS_CATEGORY_CALL ||
			     in.meta.category == ZYDIS_CATEGORY_UNCOND_BR))
				sb_puts(&b, "*");
			put_mem(&b, &in, op, string_op, &riprel);
			if (i == 0 && in.avx.mask.reg != ZYDIS_REGISTER_NONE &&
			    in.avx.mask.reg != ZYDIS_REGISTER_K0)
				put_mask(&b, &in);
			if (riprel && !rip_target)
				rip_target = ip + in.length + (uint64_t)op->mem.disp.value;
			break;
		case ZYDIS_OPERAND_TYPE_IMMEDIATE:
			if (op->imm.is_relative) {
				uint64_t t = wrap_ip(ip + in.length + (uint64_t)op->imm.value.s,
						     mode, in.operand_width);

				sb_printf(&b, "0x%llx", (unsigned long long)t);
				put_sym(&b, t, sym, ctx);
			} else {
				/* Sign-extended immediates print at the operation size. */
				unsigned bits = op->imm.is_signed ? in.operand_width : op->size;

				sb_printf(&b, "$0x%llx",
					  (unsigned long long)mask_bits(op->imm.value.u, bits));
			}
			break;
		case ZYDIS_OPERAND_TYPE_POINTER:
			sb_printf(&b, "$0x%x,$0x%x", op->ptr.segment, op->ptr.offset);
			break;
		default:
			break;
		}
	}
	if (riprel) {
		sb_printf(&b, "        # 0x%llx", (unsigned long long)rip_target);
		put_sym(&b, rip_target, sym, ctx);
	}
	return in.length;
}

void ptd_disasm_hexbytes(const uint8_t *buf, size_t len, char *out, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	size_t i, o = 0;

	if (!out || n == 0)
		return;
	for (i = 0; buf && i < len && o + 3 <= n; i++) {
		if (i) {
			if (o + 4 > n)
				break;
			out[o++] = ' ';
		}
		out[o++] = hex[buf[i] >> 4];
		out[o++] = hex[buf[i] & 15];
	}
	out[o] = '\0';
}
