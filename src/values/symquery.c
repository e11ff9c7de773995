/*
 * Where a symbol lives, in gdb 13's words (info address): a DWARF
 * location described as gdb's dwarf2/loc.c describes it -- the simple
 * forms in words ("a variable in $rdi", "the constant 3", "a variable at
 * frame base reg $rbp offset 16+-20"), anything else disassembled ("a
 * complex DWARF expression:" and one line per operation), location lists
 * entry by entry ("multi-location:" with gdb's "Base address" and
 * "Range" lines, read from the raw .debug_loclists / .debug_loc so the
 * base address entries are shown where the list has them).  And the
 * listings of info functions / variables / types: the symbols with
 * debug information by file, then the ELF symbols without.
 */
#include <ctype.h>
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <gelf.h>
#include <inttypes.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "symbols/symbols.h"
#include "util/error.h"
#include "values/values_int.h"

/* libstdc++'s demangler (the C++ ABI's), linked into libptdbg. */
extern char *__cxa_demangle(const char *mangled, char *buf, size_t *len, int *status);

/* gdb's amd64 register names by DWARF number (amd64_dwarf_regmap), or
 * "bad_register_number" as gdb's locexpr_regname says. */
static const char *reg_name(uint64_t r)
{
	static const char *const seg[] = { "es", "cs", "ss", "ds", "fs", "gs" };
	static char buf[8][16];
	static int k;
	char *b = buf[k++ & 7];

	if (r < NDREGS)
		return ptd__dreg_name[r];
	if (r >= 17 && r <= 32)
		snprintf(b, 16, "xmm%d", (int)(r - 17));
	else if (r >= 33 && r <= 40)
		snprintf(b, 16, "st%d", (int)(r - 33));
	else if (r == 49)
		return "eflags";
	else if (r >= 50 && r <= 55)
		return seg[r - 50];
	else if (r == 64)
		return "mxcsr";
	else if (r == 65)
		return "fctrl";
	else if (r == 66)
		return "fstat";
	else
		return "bad_register_number";
	return b;
}

/* Operand layouts of the DW_OP_* gdb's disassemble_dwarf_expression knows. */
enum opnd {
	O_NONE, O_ADDR, O_U1, O_S1, O_U2, O_S2, O_U4, O_S4, O_U8, O_S8, O_ULEB, O_SLEB,
	O_REG, O_REGX, O_IMPL_VALUE, O_BREG, O_BREGX, O_BYTE, O_SKIP, O_CALL2, O_CALL4,
	O_CALLREF, O_PIECE, O_BITPIECE, O_IMPL_PTR, O_DEREF_TYPE, O_CONST_TYPE,
	O_REGVAL_TYPE, O_CONVERT, O_ENTRY, O_PARAM_REF, O_ADDRX, O_VARVAL,
};

static const struct op_desc {
	uint8_t op;
	const char *name;
	enum opnd kind;
} op_table[] = {
	{ DW_OP_addr, "DW_OP_addr", O_ADDR }, { DW_OP_deref, "DW_OP_deref", O_NONE },
	{ DW_OP_const1u, "DW_OP_const1u", O_U1 }, { DW_OP_const1s, "DW_OP_const1s", O_S1 },
	{ DW_OP_const2u, "DW_OP_const2u", O_U2 }, { DW_OP_const2s, "DW_OP_const2s", O_S2 },
	{ DW_OP_const4u, "DW_OP_const4u", O_U4 }, { DW_OP_const4s, "DW_OP_const4s", O_S4 },
	{ DW_OP_const8u, "DW_OP_const8u", O_U8 }, { DW_OP_const8s, "DW_OP_const8s", O_S8 },
	{ DW_OP_constu, "DW_OP_constu", O_ULEB }, { DW_OP_consts, "DW_OP_consts", O_SLEB },
	{ DW_OP_dup, "DW_OP_dup", O_NONE }, { DW_OP_drop, "DW_OP_drop", O_NONE },
	{ DW_OP_over, "DW_OP_over", O_NONE }, { DW_OP_pick, "DW_OP_pick", O_BYTE },
	{ DW_OP_swap, "DW_OP_swap", O_NONE }, { DW_OP_rot, "DW_OP_rot", O_NONE },
	{ DW_OP_xderef, "DW_OP_xderef", O_NONE }, { DW_OP_abs, "DW_OP_abs", O_NONE },
	{ DW_OP_and, "DW_OP_and", O_NONE }, { DW_OP_div, "DW_OP_div", O_NONE },
	{ DW_OP_minus, "DW_OP_minus", O_NONE }, { DW_OP_mod, "DW_OP_mod", O_NONE },
	{ DW_OP_mul, "DW_OP_mul", O_NONE }, { DW_OP_neg, "DW_OP_neg", O_NONE },
	{ DW_OP_not, "DW_OP_not", O_NONE }, { DW_OP_or, "DW_OP_or", O_NONE },
	{ DW_OP_plus, "DW_OP_plus", O_NONE }, { DW_OP_plus_uconst, "DW_OP_plus_uconst", O_ULEB },
	{ DW_OP_shl, "DW_OP_shl", O_NONE }, { DW_OP_shr, "DW_OP_shr", O_NONE },
	{ DW_OP_shra, "DW_OP_shra", O_NONE }, { DW_OP_xor, "DW_OP_xor", O_NONE },
	{ DW_OP_bra, "DW_OP_bra", O_SKIP }, { DW_OP_eq, "DW_OP_eq", O_NONE },
	{ DW_OP_ge, "DW_OP_ge", O_NONE }, { DW_OP_gt, "DW_OP_gt", O_NONE },
	{ DW_OP_le, "DW_OP_le", O_NONE }, { DW_OP_lt, "DW_OP_lt", O_NONE },
	{ DW_OP_ne, "DW_OP_ne", O_NONE }, { DW_OP_skip, "DW_OP_skip", O_SKIP },
	{ DW_OP_regx, "DW_OP_regx", O_REGX }, { DW_OP_fbreg, "DW_OP_fbreg", O_SLEB },
	{ DW_OP_bregx, "DW_OP_bregx", O_BREGX }, { DW_OP_piece, "DW_OP_piece", O_PIECE },
	{ DW_OP_deref_size, "DW_OP_deref_size", O_BYTE },
	{ DW_OP_xderef_size, "DW_OP_xderef_size", O_BYTE }, { DW_OP_nop, "DW_OP_nop", O_NONE },
	{ DW_OP_push_object_address, "DW_OP_push_object_address", O_NONE },
	{ DW_OP_call2, "DW_OP_call2", O_CALL2 }, { DW_OP_call4, "DW_OP_call4", O_CALL4 },
	{ DW_OP_call_ref, "DW_OP_call_ref", O_CALLREF },
	{ DW_OP_form_tls_address, "DW_OP_form_tls_address", O_NONE },
	{ DW_OP_call_frame_cfa, "DW_OP_call_frame_cfa", O_NONE },
	{ DW_OP_bit_piece, "DW_OP_bit_piece", O_BITPIECE },
	{ DW_OP_implicit_value, "DW_OP_implicit_value", O_IMPL_VALUE },
	{ DW_OP_stack_value, "DW_OP_stack_value", O_NONE },
	{ DW_OP_implicit_pointer, "DW_OP_implicit_pointer", O_IMPL_PTR },
	{ DW_OP_addrx, "DW_OP_addrx", O_ADDRX }, { DW_OP_constx, "DW_OP_constx", O_ADDRX },
	{ DW_OP_entry_value, "DW_OP_entry_value", O_ENTRY },
	{ DW_OP_const_type, "DW_OP_const_type", O_CONST_TYPE },
	{ DW_OP_regval_type, "DW_OP_regval_type", O_REGVAL_TYPE },
	{ DW_OP_deref_type, "DW_OP_deref_type", O_DEREF_TYPE },
	{ DW_OP_xderef_type, "DW_OP_xderef_type", O_DEREF_TYPE },
	{ DW_OP_convert, "DW_OP_convert", O_CONVERT },
	{ DW_OP_reinterpret, "DW_OP_reinterpret", O_CONVERT },
	{ DW_OP_GNU_push_tls_address, "DW_OP_GNU_push_tls_address", O_NONE },
	{ DW_OP_GNU_uninit, "DW_OP_GNU_uninit", O_NONE },
	{ DW_OP_GNU_implicit_pointer, "DW_OP_GNU_implicit_pointer", O_IMPL_PTR },
	{ DW_OP_GNU_entry_value, "DW_OP_GNU_entry_value", O_ENTRY },
	{ DW_OP_GNU_const_type, "DW_OP_GNU_const_type", O_CONST_TYPE },
	{ DW_OP_GNU_regval_type, "DW_OP_GNU_regval_type", O_REGVAL_TYPE },
	{ DW_OP_GNU_deref_type, "DW_OP_GNU_deref_type", O_DEREF_TYPE },
	{ DW_OP_GNU_convert, "DW_OP_GNU_convert", O_CONVERT },
	{ DW_OP_GNU_reinterpret, "DW_OP_GNU_reinterpret", O_CONVERT },
	{ DW_OP_GNU_parameter_ref, "DW_OP_GNU_parameter_ref", O_PARAM_REF },
	{ DW_OP_GNU_addr_index, "DW_OP_GNU_addr_index", O_ADDRX },
	{ DW_OP_GNU_const_index, "DW_OP_GNU_const_index", O_ADDRX },
	{ DW_OP_GNU_variable_value, "DW_OP_GNU_variable_value", O_VARVAL },
};

/* The DWARF unit a location belongs to, for its sizes and typed ops. */
struct dctx {
	struct ptd_values *v;
	Dwarf_Die cu;
	Dwarf *dw;
	int addr_size, off_size, version;
	uint64_t bias, pc;
	Dwarf_Die fn;
	int has_fn;
	struct sbuf *b;
	int bad;
};

/* A LEB128 number; @sign: sign-extended (SLEB128). */
static int rd_leb(const uint8_t **p, const uint8_t *end, int sign, uint64_t *out)
{
	uint64_t r = 0;
	int shift = 0;

	while (*p < end) {
		uint8_t c = *(*p)++;

		if (shift < 64)
			r |= (uint64_t)(c & 0x7f) << shift;
		shift += 7;
		if (!(c & 0x80)) {
			if (sign && shift < 64 && (c & 0x40))
				r |= ~(uint64_t)0 << shift;
			*out = r;
			return 0;
		}
	}
	return -1;
}

static int rd_uleb(const uint8_t **p, const uint8_t *end, uint64_t *out)
{
	return rd_leb(p, end, 0, out);
}

static int rd_sleb(const uint8_t **p, const uint8_t *end, int64_t *out)
{
	uint64_t u;

	if (rd_leb(p, end, 1, &u) < 0)
		return -1;
	*out = (int64_t)u;
	return 0;
}

static int rd_fixed(const uint8_t **p, const uint8_t *end, int n, uint64_t *out)
{
	uint64_t r = 0;

	if (end - *p < n)
		return -1;
	for (int i = n - 1; i >= 0; i--)
		r = (r << 8) | (*p)[i];
	*p += n;
	*out = r;
	return 0;
}

static int64_t sext(uint64_t x, int bytes)
{
	int sh = 64 - 8 * bytes;

	return sh > 0 ? (int64_t)(x << sh) >> sh : (int64_t)x;
}

/* gdb's "<int [0x2d]>" for the type at CU offset @off. */
static void type_ref(struct dctx *c, uint64_t off)
{
	Dwarf_Die td;
	Dwarf_Off cu_off = dwarf_dieoffset(&c->cu) - dwarf_cuoffset(&c->cu);
	struct vtype *t = NULL;
	char *nm = NULL;

	if (dwarf_offdie(c->dw, cu_off + off, &td))
		t = ptd__vt_from_die(c->v, &td);
	if (t)
		nm = ptd__vt_name(t, "");
	ptd__sb_add(c->b, "<%s [0x%" PRIx64 "]>", nm ? nm : "?", off);
	free(nm);
}

/*
 * gdb's disassemble_dwarf_expression: one line per operation of
 * [@p, @end), numbered by its offset from @start, indented by @indent;
 * stops at a piece operation (which the caller describes).  Returns
 * where it stopped; sets c->bad on a malformed expression.
 */
static const uint8_t *disasm(struct dctx *c, const uint8_t *start, const uint8_t *p,
			     const uint8_t *end, int indent)
{
	while (p < end && *p != DW_OP_piece && *p != DW_OP_bit_piece && !c->bad) {
		uint8_t op = *p++;
		const char *name = NULL;
		enum opnd kind = O_NONE;
		char tmp[32];
		uint64_t u = 0, u2 = 0;
		int64_t s = 0;
		int ok = 0;

		if (op >= DW_OP_lit0 && op <= DW_OP_lit31) {
			snprintf(tmp, sizeof(tmp), "DW_OP_lit%d", op - DW_OP_lit0);
			name = tmp;
		} else if (op >= DW_OP_reg0 && op <= DW_OP_reg31) {
			snprintf(tmp, sizeof(tmp), "DW_OP_reg%d", op - DW_OP_reg0);
			name = tmp;
			kind = O_REG;
		} else if (op >= DW_OP_breg0 && op <= DW_OP_breg31) {
			snprintf(tmp, sizeof(tmp), "DW_OP_breg%d", op - DW_OP_breg0);
			name = tmp;
			kind = O_BREG;
		} else {
			for (size_t i = 0; i < sizeof(op_table) / sizeof(op_table[0]); i++)
				if (op_table[i].op == op) {
					name = op_table[i].name;
					kind = op_table[i].kind;
					break;
				}
		}
		if (!name) {
			ptd__sb_add(c->b, "Unrecognized DWARF opcode 0x%02x at %ld\n", op,
				    (long)(p - 1 - start));
			c->bad = 1;
			break;
		}
		ptd__sb_add(c->b, "  %*ld: %s", indent + 4, (long)(p - 1 - start), name);
		switch (kind) {
		case O_NONE:
			ok = 1;
			break;
		case O_ADDR:
			if ((ok = rd_fixed(&p, end, c->addr_size, &u) == 0))
				ptd__sb_add(c->b, " 0x%" PRIx64, u);
			break;
		case O_U1: case O_U2: case O_U4: case O_U8: {
			int n = kind == O_U1 ? 1 : kind == O_U2 ? 2 : kind == O_U4 ? 4 : 8;

			if ((ok = rd_fixed(&p, end, n, &u) == 0))
				ptd__sb_add(c->b, " %" PRIu64, u);
			break;
		}
		case O_S1: case O_S2: case O_S4: case O_S8: {
			int n = kind == O_S1 ? 1 : kind == O_S2 ? 2 : kind == O_S4 ? 4 : 8;

			if ((ok = rd_fixed(&p, end, n, &u) == 0))
				ptd__sb_add(c->b, " %" PRId64, sext(u, n));
			break;
		}
		case O_ULEB:
			if ((ok = rd_uleb(&p, end, &u) == 0))
				ptd__sb_add(c->b, " %" PRIu64, u);
			break;
		case O_SLEB:
			if ((ok = rd_sleb(&p, end, &s) == 0))
				ptd__sb_add(c->b, " %" PRId64, s);
			break;
		case O_REG:
			ptd__sb_add(c->b, " [$%s]", reg_name(op - DW_OP_reg0));
			ok = 1;
			break;
		case O_REGX:
			if ((ok = rd_uleb(&p, end, &u) == 0))
				ptd__sb_add(c->b, " %" PRIu64 " [$%s]", u, reg_name(u));
			break;
		case O_IMPL_VALUE:
			if ((ok = rd_uleb(&p, end, &u) == 0 && u <= (uint64_t)(end - p))) {
				p += u;
				ptd__sb_add(c->b, " %" PRIu64, u);
			}
			break;
		case O_BREG:
			if ((ok = rd_sleb(&p, end, &s) == 0))
				ptd__sb_add(c->b, " %" PRId64 " [$%s]", s, reg_name(op - DW_OP_breg0));
			break;
		case O_BREGX:
			if ((ok = rd_uleb(&p, end, &u) == 0 && rd_sleb(&p, end, &s) == 0))
				ptd__sb_add(c->b, " register %" PRIu64 " [$%s] offset %" PRId64, u,
					    reg_name(u), s);
			break;
		case O_BYTE:
			if ((ok = p < end))
				ptd__sb_add(c->b, " %d", *p++);
			break;
		case O_SKIP:
			if ((ok = rd_fixed(&p, end, 2, &u) == 0))
				ptd__sb_add(c->b, " to %ld", (long)(p - start) + (long)sext(u, 2));
			break;
		case O_CALL2:
		case O_CALL4:
			if ((ok = rd_fixed(&p, end, kind == O_CALL2 ? 2 : 4, &u) == 0))
				ptd__sb_add(c->b, " offset %" PRIx64, u);
			break;
		case O_CALLREF:
		case O_VARVAL:
			if ((ok = rd_fixed(&p, end, c->off_size, &u) == 0))
				ptd__sb_add(c->b, " offset %" PRIx64, u);
			break;
		case O_PARAM_REF:
			if ((ok = rd_fixed(&p, end, 4, &u) == 0))
				ptd__sb_add(c->b, " offset %" PRIx64, u);
			break;
		case O_PIECE:
			if ((ok = rd_uleb(&p, end, &u) == 0))
				ptd__sb_add(c->b, " %" PRIu64 " (bytes)", u);
			break;
		case O_BITPIECE:
			if ((ok = rd_uleb(&p, end, &u) == 0 && rd_uleb(&p, end, &u2) == 0))
				ptd__sb_add(c->b, " size %" PRIu64 " offset %" PRIu64 " (bits)", u, u2);
			break;
		case O_IMPL_PTR:
			if ((ok = rd_fixed(&p, end, c->off_size, &u) == 0 && rd_sleb(&p, end, &s) == 0))
				ptd__sb_add(c->b, " DIE %" PRIx64 " offset %" PRId64, u, s);
			break;
		case O_DEREF_TYPE: {
			int n;

			if (!(ok = p < end))
				break;
			n = *p++;
			if ((ok = rd_uleb(&p, end, &u) == 0)) {
				type_ref(c, u);
				ptd__sb_add(c->b, " %d", n);
			}
			break;
		}
		case O_CONST_TYPE:
			if (!(ok = rd_uleb(&p, end, &u) == 0 && p < end && *p <= end - p - 1))
				break;
			type_ref(c, u);
			u2 = *p++;
			ptd__sb_add(c->b, " %d byte block:", (int)u2);
			for (uint64_t i = 0; i < u2; i++)
				ptd__sb_add(c->b, " %02x", p[i]);
			p += u2;
			break;
		case O_REGVAL_TYPE:
			if ((ok = rd_uleb(&p, end, &u2) == 0 && rd_uleb(&p, end, &u) == 0)) {
				type_ref(c, u);
				ptd__sb_add(c->b, " [$%s]", reg_name(u2));
			}
			break;
		case O_CONVERT:
			if ((ok = rd_uleb(&p, end, &u) == 0)) {
				if (!u)
					ptd__sb_add(c->b, "<0>");
				else
					type_ref(c, u);
			}
			break;
		case O_ADDRX:
			/* (the index into .debug_addr, which ptdbg does not resolve) */
			if ((ok = rd_uleb(&p, end, &u) == 0))
				ptd__sb_add(c->b, " index %" PRIu64, u);
			break;
		case O_ENTRY:
			if (!(ok = rd_uleb(&p, end, &u) == 0 && u <= (uint64_t)(end - p)))
				break;
			ptd__sb_add(c->b, "\n");
			disasm(c, start, p, p + u, indent + 2);
			p += u;
			continue;
		}
		if (!ok) {
			c->bad = 1;
			break;
		}
		ptd__sb_add(c->b, "\n");
	}
	return p;
}

static int piece_end(const uint8_t *p, const uint8_t *end)
{
	return p == end || *p == DW_OP_piece || *p == DW_OP_bit_piece;
}

/* The frame base expression of the function around the symbol, when it
 * is a single location (gdb's func_get_frame_base_block_data; a list
 * picks the entry at @pc). */
static int frame_base_expr(struct dctx *c, Dwarf_Op **ops, size_t *n)
{
	Dwarf_Attribute a;
	Dwarf_Addr base, s, e;

	if (!c->has_fn || !dwarf_attr_integrate(&c->fn, DW_AT_frame_base, &a))
		return -1;
	if (dwarf_getlocation(&a, ops, n) == 0)
		return 0;
	for (ptrdiff_t off = 0; (off = dwarf_getlocations(&a, off, &base, &s, &e, ops, n)) > 0;)
		if (c->pc - c->bias >= s && c->pc - c->bias < e)
			return 0;
	return -1;
}

/* The file gdb names an object by (its objfile_name): the separate debug
 * file holding @dw's DWARF when there is one, else the module's file. */
struct dw_file {
	Dwarf *dw;
	const char *path;
};

static int dw_file_of(Dwfl_Module *m, void **ud, const char *n, Dwarf_Addr a, void *arg)
{
	struct dw_file *df = arg;
	Dwarf_Addr bias;
	const char *mainf = NULL, *debugf = NULL;

	(void)ud, (void)n, (void)a;
	if (dwfl_module_getdwarf(m, &bias) != df->dw)
		return DWARF_CB_OK;
	dwfl_module_info(m, NULL, NULL, NULL, NULL, NULL, &mainf, &debugf);
	df->path = debugf ? debugf : mainf;
	return DWARF_CB_ABORT;
}

/*
 * gdb's locexpr_describe_location_piece: the forms it puts in words.
 * Returns past what it described, or @p when it did not describe it.
 */
static const uint8_t *describe_piece(struct dctx *c, const uint8_t *p, const uint8_t *end)
{
	const uint8_t *q = p + 1;
	uint64_t u = 0;
	int64_t off;

	if (*p >= DW_OP_reg0 && *p <= DW_OP_reg31) {
		ptd__sb_add(c->b, "a variable in $%s", reg_name(*p - DW_OP_reg0));
		return p + 1;
	}
	if (*p == DW_OP_regx) {
		if (rd_uleb(&q, end, &u) < 0)
			return p;
		ptd__sb_add(c->b, "a variable in $%s", reg_name(u));
		return q;
	}
	if (*p == DW_OP_fbreg) {
		Dwarf_Op *ops;
		size_t n;
		int64_t boff = 0;
		int reg;

		if (rd_sleb(&q, end, &off) < 0 || !piece_end(q, end))
			return p;
		if (frame_base_expr(c, &ops, &n) < 0 || n < 1)
			return p;
		if (ops[0].atom >= DW_OP_breg0 && ops[0].atom <= DW_OP_breg31 && n == 1) {
			reg = ops[0].atom - DW_OP_breg0;
			boff = (int64_t)ops[0].number;
		} else if (ops[0].atom >= DW_OP_reg0 && ops[0].atom <= DW_OP_reg31 && n == 1) {
			reg = ops[0].atom - DW_OP_reg0;
		} else {
			return p;
		}
		ptd__sb_add(c->b, "a variable at frame base reg $%s offset %" PRId64 "+%" PRId64,
			    reg_name((uint64_t)reg), boff, off);
		return q;
	}
	/* a thread-local variable: DW_OP_addr/const8u OFF; DW_OP_form_tls_address */
	if (end - p > 1 + c->addr_size &&
	    (p[1 + c->addr_size] == DW_OP_GNU_push_tls_address ||
	     p[1 + c->addr_size] == DW_OP_form_tls_address) &&
	    piece_end(p + 2 + c->addr_size, end)) {
		struct dw_file df = { c->dw, NULL };
		Dwfl *dwfl = ptd__symbols_dwfl(c->v->sym);

		q = p + 1;
		rd_fixed(&q, end, c->addr_size, &u);
		if (dwfl)
			dwfl_getmodules(dwfl, dw_file_of, &df, 0);
		ptd__sb_add(c->b,
			    "a thread-local variable at offset 0x%" PRIx64
			    " in the thread-local storage for `%s'",
			    u, df.path ? df.path : "?");
		return p + 2 + c->addr_size;
	}
	if (*p >= DW_OP_lit0 && *p <= DW_OP_lit31 && end - p > 1 && p[1] == DW_OP_stack_value) {
		ptd__sb_add(c->b, "the constant %d", *p - DW_OP_lit0);
		return p + 2;
	}
	return p;
}

/* gdb's locexpr_describe_location_1: pieces joined by ", and ". */
static void describe_expr(struct dctx *c, const uint8_t *data, const uint8_t *end)
{
	int first = 1;

	while (data < end && !c->bad) {
		const uint8_t *here = data;
		int dis = 1;

		if (!first)
			ptd__sb_add(c->b, ", and ");
		first = 0;
		data = describe_piece(c, data, end);
		if (data != here || *data == DW_OP_piece || *data == DW_OP_bit_piece)
			dis = 0;
		if (dis) {
			ptd__sb_add(c->b, "a complex DWARF expression:\n");
			data = disasm(c, data, data, end, 0);
		}
		if (data < end && !c->bad) {
			uint64_t u, u2;
			int empty = data == here;

			if (dis)
				ptd__sb_add(c->b, "   ");
			if (*data == DW_OP_piece) {
				data++;
				if (rd_uleb(&data, end, &u) < 0) {
					c->bad = 1;
					break;
				}
				if (empty)
					ptd__sb_add(c->b, "an empty %" PRIu64 "-byte piece", u);
				else
					ptd__sb_add(c->b, " [%" PRIu64 "-byte piece]", u);
			} else if (*data == DW_OP_bit_piece) {
				data++;
				if (rd_uleb(&data, end, &u) < 0 || rd_uleb(&data, end, &u2) < 0) {
					c->bad = 1;
					break;
				}
				if (empty)
					ptd__sb_add(c->b,
						    "an empty %" PRIu64 "-bit piece", u);
				else
					ptd__sb_add(c->b,
						    " [%" PRIu64 "-bit piece, offset %" PRIu64 " bits]",
						    u, u2);
			} else {
				c->bad = 1;
			}
		}
	}
}

/* The raw bytes of section @name of the DWARF file behind @dw. */
static int section_data(Dwarf *dw, const char *name, const uint8_t **data, size_t *size)
{
	Elf *elf = dwarf_getelf(dw);
	Elf_Scn *scn = NULL;
	size_t shstrndx;

	if (!elf || elf_getshdrstrndx(elf, &shstrndx) != 0)
		return -1;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *nm;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || !(nm = elf_strptr(elf, shstrndx, sh.sh_name)) ||
		    strcmp(nm, name))
			continue;
		if (sh.sh_flags & SHF_COMPRESSED)
			return -1; /* (libdw decompresses the ones it reads) */
		d = elf_getdata(scn, NULL);
		if (!d || !d->d_buf)
			return -1;
		*data = d->d_buf;
		*size = d->d_size;
		return 0;
	}
	return -1;
}

/* gdb's loclist_describe_location: "multi-location:" then one line per
 * entry of the list at @off. */
static int describe_list(struct dctx *c, uint64_t off)
{
	const uint8_t *sec, *p, *end;
	size_t size;
	Dwarf_Addr base = 0;
	int v5 = c->version >= 5;

	if (section_data(c->dw, v5 ? ".debug_loclists" : ".debug_loc", &sec, &size) < 0 ||
	    off >= size)
		return -1;
	dwarf_lowpc(&c->cu, &base);
	p = sec + off;
	end = sec + size;
	ptd__sb_add(c->b, "multi-location:\n");
	while (p < end && !c->bad) {
		uint64_t lo = 0, hi = 0, len = 0;
		int pair = 0;

		if (v5) {
			uint8_t k = *p++;

			if (k == DW_LLE_end_of_list)
				return 0;
			switch (k) {
			case DW_LLE_base_address:
				if (rd_fixed(&p, end, c->addr_size, &base) < 0)
					return -1;
				ptd__sb_add(c->b, "  Base address 0x%" PRIx64, base + c->bias);
				continue;
			case DW_LLE_offset_pair:
				if (rd_uleb(&p, end, &lo) < 0 || rd_uleb(&p, end, &hi) < 0)
					return -1;
				pair = 1;
				break;
			case DW_LLE_start_end:
				if (rd_fixed(&p, end, c->addr_size, &lo) < 0 ||
				    rd_fixed(&p, end, c->addr_size, &hi) < 0)
					return -1;
				break;
			case DW_LLE_start_length:
				if (rd_fixed(&p, end, c->addr_size, &lo) < 0 ||
				    rd_uleb(&p, end, &hi) < 0)
					return -1;
				hi += lo;
				break;
			default:
				/* indexes into .debug_addr (split DWARF), default
				 * locations: not described */
				return -1;
			}
			if (rd_uleb(&p, end, &len) < 0)
				return -1;
		} else {
			if (rd_fixed(&p, end, c->addr_size, &lo) < 0 ||
			    rd_fixed(&p, end, c->addr_size, &hi) < 0)
				return -1;
			if (!lo && !hi)
				return 0;
			if (lo == (c->addr_size == 8 ? ~(uint64_t)0 : 0xffffffffu)) {
				base = hi;
				ptd__sb_add(c->b, "  Base address 0x%" PRIx64, base + c->bias);
				continue;
			}
			pair = 1;
			if (rd_fixed(&p, end, 2, &len) < 0)
				return -1;
		}
		if (len > (uint64_t)(end - p))
			return -1;
		if (pair) {
			lo += base;
			hi += base;
		}
		lo += c->bias;
		hi += c->bias;
		ptd__sb_add(c->b, "  Range 0x%" PRIx64 "-0x%" PRIx64 ": ", lo, hi);
		c->pc = lo;
		describe_expr(c, p, p + len);
		ptd__sb_add(c->b, "\n");
		p += len;
	}
	return c->bad ? -1 : 0;
}

/* A type name (typedef or base type) at the top of some CU, which gdb's
 * lookup finds as a typedef. */
struct tsearch {
	const char *name;
	int found;
};

static int type_in_cu(Dwarf_Die *cu, Dwarf_Addr bias, void *arg)
{
	struct tsearch *ts = arg;
	Dwarf_Die c;

	(void)bias;
	if (dwarf_child(cu, &c) != 0)
		return 0;
	do {
		int tag = dwarf_tag(&c);
		const char *nm;

		if (tag != DW_TAG_typedef && tag != DW_TAG_base_type)
			continue;
		nm = dwarf_diename(&c);
		if (nm && !strcmp(nm, ts->name)) {
			ts->found = 1;
			return 1;
		}
	} while (dwarf_siblingof(&c, &c) == 0);
	return 0;
}

static int type_in_mod(Dwfl_Module *m, void **ud, const char *n, Dwarf_Addr a, void *arg)
{
	(void)ud, (void)n, (void)a;
	return ptd__dw_each_cu(m, type_in_cu, arg) ? DWARF_CB_ABORT : DWARF_CB_OK;
}

static int minimal_entry(struct ptd_values *v, const char *name, uint64_t *entry);

/* A variable's location in words (the text after "is "). */
static int describe_var(struct dctx *c, Dwarf_Die *die, const char *name)
{
	Dwarf_Attribute a;
	Dwarf_Block blk;

	if (dwarf_tag(die) == DW_TAG_enumerator || dwarf_hasattr(die, DW_AT_const_value)) {
		ptd__sb_add(c->b, "constant");
		return 0;
	}
	if (!dwarf_attr(die, DW_AT_location, &a)) {
		uint64_t entry;

		/* an extern declaration: gdb's LOC_UNRESOLVED, found by its
		 * minimal symbol */
		if (dwarf_hasattr_integrate(die, DW_AT_external)) {
			if (minimal_entry(c->v, name, &entry) == 0)
				ptd__sb_add(c->b, "static storage at address 0x%" PRIx64, entry);
			else
				ptd__sb_add(c->b, "unresolved");
			return 0;
		}
		ptd__sb_add(c->b, "optimized out");
		return 0;
	}
	if (dwarf_formblock(&a, &blk) == 0) {
		const uint8_t *p = blk.data;
		uint64_t addr;

		/* the one degenerate form gdb makes LOC_STATIC */
		if (blk.length == 1 + (size_t)c->addr_size && p[0] == DW_OP_addr) {
			p++;
			rd_fixed(&p, p + c->addr_size, c->addr_size, &addr);
			ptd__sb_add(c->b, "static storage at address 0x%" PRIx64, addr + c->bias);
			return 0;
		}
		if (!blk.length) {
			ptd__sb_add(c->b, "optimized out");
			return 0;
		}
		describe_expr(c, blk.data, blk.data + blk.length);
		return c->bad ? -1 : 0;
	} else {
		Dwarf_Word off;

		if (dwarf_formudata(&a, &off) != 0)
			return -1;
		return describe_list(c, off);
	}
}

/* The ELF symbol @name (gdb's minimal symbol): a function's entry, or
 * before the library that defines it is loaded its PLT stub, which gdb
 * falls back on (a trampoline symbol).  Returns 0 or <0. */
struct msearch {
	const char *name;
	uint64_t addr, start;
	int rank; /* 2 global or weak, 1 local, 0 none found */
};

static int msym_in_mod(Dwfl_Module *m, void **ud, const char *n, Dwarf_Addr start, void *arg)
{
	struct msearch *ms = arg;
	GElf_Addr bias = 0;
	int nsym;

	(void)ud, (void)n;
	if (!dwfl_module_getelf(m, &bias) || (nsym = dwfl_module_getsymtab(m)) <= 0)
		return DWARF_CB_OK;
	for (int i = 1; i < nsym; i++) {
		GElf_Sym sym;
		GElf_Word shndx;
		const char *nm = dwfl_module_getsym(m, i, &sym, &shndx);
		int rank, type = GELF_ST_TYPE(sym.st_info);

		if (!nm || strcmp(nm, ms->name) || shndx == SHN_UNDEF || type == STT_SECTION ||
		    type == STT_FILE)
			continue;
		rank = GELF_ST_BIND(sym.st_info) == STB_LOCAL ? 1 : 2;
		/* gdb prefers a global symbol, then the first object
		 * (the program before its libraries) */
		if (rank > ms->rank || (rank == ms->rank && start < ms->start)) {
			ms->rank = rank;
			ms->start = start;
			ms->addr = sym.st_value; /* (libdwfl made it absolute) */
		}
	}
	return DWARF_CB_OK;
}

struct plt_find {
	struct ptd_values *v;
	const char *name;
	uint64_t *entry;
	int *found;
};

static void plt_match(void *ctx, const char *name, uint64_t addr)
{
	struct plt_find *pf = ctx;

	if (!*pf->found && !strcmp(name, pf->name)) {
		*pf->entry = addr;
		*pf->found = 1;
	}
}

static int plt_in_mod(Dwfl_Module *m, void **ud, const char *n, Dwarf_Addr a, void *arg)
{
	struct plt_find *pf = arg;

	(void)ud, (void)n, (void)a;
	ptd__symbols_plt_each(pf->v->sym, m, plt_match, pf);
	return *pf->found ? DWARF_CB_ABORT : DWARF_CB_OK;
}

static int minimal_entry(struct ptd_values *v, const char *name, uint64_t *entry)
{
	struct msearch ms = { name, 0, 0, 0 };
	Dwfl *dwfl = ptd__symbols_dwfl(v->sym);
	char plt[512];
	uint64_t bp;
	int found = 0;

	if (dwfl)
		dwfl_getmodules(dwfl, msym_in_mod, &ms, 0);
	if (ms.rank) {
		*entry = ms.addr;
		return 0;
	}
	if (ptd_symbols_function(v->sym, name, entry, &bp) == 0)
		return 0;
	ptd_clear_error();
	if (snprintf(plt, sizeof(plt), "%s@plt", name) >= (int)sizeof(plt))
		return -ptde_notfound;
	if (dwfl)
		dwfl_getmodules(dwfl, plt_in_mod, &(struct plt_find){ v, plt, entry, &found }, 0);
	return found ? 0 : -ptde_notfound;
}

int ptd_values_info_address(struct ptd_values *v, const char *name, char **out)
{
	struct ptd__symfound f;
	struct sbuf b = { 0 };
	struct dctx c = { .v = v, .b = &b };
	uint64_t entry;
	Dwarf_Addr lo;
	uint8_t asz = 8, osz = 4;
	Dwarf_Half ver = 5;
	Dwarf_Die cu;

	if (!v || !name || !out)
		return -ptde_invalid;
	*out = NULL;
	if (!*name)
		return ptd__err(-ptde_invalid, "Argument required.");
	if (!v->sym)
		return ptd__err(-ptde_notfound, "No symbol table is loaded.  Use the \"file\" command.");
	if (!ptd__find_symbol(v, name, &f)) {
		struct tsearch ts = { name, 0 };
		Dwfl *dwfl = ptd__symbols_dwfl(v->sym);

		if (dwfl)
			dwfl_getmodules(dwfl, type_in_mod, &ts, 0);
		if (ts.found) {
			ptd__sb_add(&b, "Symbol \"%s\" is a typedef.\n", name);
		} else if (minimal_entry(v, name, &entry) == 0) {
			ptd__sb_add(&b, "Symbol \"%s\" is at 0x%" PRIx64
					" in a file compiled without debugging.\n",
				    name, entry);
		} else {
			ptd_clear_error();
			return ptd__err(-ptde_notfound, "No symbol \"%s\" in current context.", name);
		}
		goto done;
	}
	if (!dwarf_diecu(&f.die, &cu, &asz, &osz))
		return ptd__err(-ptde_invalid, "cannot find the compile unit of \"%s\"", name);
	{
		Dwarf_Die cudie;
		Dwarf_Off ao;
		uint64_t sig;
		Dwarf_Off toff;

		if (dwarf_cu_die(f.die.cu, &cudie, &ver, &ao, &asz, &osz, &sig, &toff) == NULL)
			ver = 5;
	}
	c.cu = cu;
	c.dw = dwarf_cu_getdwarf(f.die.cu);
	c.addr_size = asz;
	c.off_size = osz;
	c.version = ver;
	c.bias = f.bias;
	c.pc = f.pc;
	c.fn = f.fn;
	c.has_fn = f.has_fn;
	ptd__sb_add(&b, "Symbol \"%s\" is ", name);
	if (f.func) {
		Dwarf_Attribute ea;
		Dwarf_Addr ep;

		if (dwarf_attr(&f.die, DW_AT_entry_pc, &ea) && dwarf_formaddr(&ea, &ep) == 0)
			lo = ep;
		else if (dwarf_lowpc(&f.die, &lo) != 0)
			lo = 0;
		ptd__sb_add(&b, "a function at address 0x%" PRIx64, lo + f.bias);
	} else if (describe_var(&c, &f.die, name) < 0) {
		free(b.s);
		return ptd__err(-ptde_invalid, "Corrupted DWARF2 expression for symbol \"%s\".",
				name);
	}
	ptd__sb_add(&b, ".\n");
done:
	if (b.oom || !b.s) {
		free(b.s);
		return ptd__err(-ptde_nomem, "out of memory");
	}
	*out = b.s;
	return 0;
}

/* ------------------------------------------------------------------ */
/* info functions / variables / types                                   */

/* One line of the listing: a symbol with debug information (file set)
 * or an ELF symbol without (file NULL). */
struct isym {
	char *file;
	char *full; /* the declaring file's full name (rbreak's location) */
	int block; /* 0: global (external), 1: static, as gdb sorts them */
	char *name;
	int line;
	char *text;
	uint64_t addr;
	int mod; /* the module's rank, for ELF symbols */
};

struct ilist {
	struct isym *v;
	size_t n, cap;
};

struct iscan {
	struct ptd_values *v;
	int kind; /* PTD_INFO_VARIABLES, _FUNCTIONS, _TYPES */
	regex_t re;
	int has_re;
	struct ilist dbg, min;
	/* the module being scanned: its top-level names (gdb's lookup by
	 * linkage name, which hides an ELF symbol that has debug
	 * information), sorted once its CUs are done */
	char **names;
	size_t nnames, capnames;
	/* and the address ranges of its CUs: gdb leaves out an ELF
	 * function inside one (find_pc_compunit_symtab) */
	struct { uint64_t lo, hi; } *spans;
	size_t nspans, capspans;
	int mod;
	int oom;
};

static void add_span(struct iscan *sc, Dwarf_Die *cu, Dwarf_Addr bias)
{
	Dwarf_Addr base, lo, hi;
	ptrdiff_t off = 0;

	while ((off = dwarf_ranges(cu, off, &base, &lo, &hi)) > 0) {
		if (lo >= hi)
			continue;
		if (sc->nspans == sc->capspans) {
			size_t c = sc->capspans ? sc->capspans * 2 : 64;
			void *nv = realloc(sc->spans, c * sizeof(*sc->spans));

			if (!nv) {
				sc->oom = 1;
				return;
			}
			sc->spans = nv;
			sc->capspans = c;
		}
		sc->spans[sc->nspans].lo = lo + bias;
		sc->spans[sc->nspans++].hi = hi + bias;
	}
}

static int in_span(struct iscan *sc, uint64_t addr)
{
	for (size_t i = 0; i < sc->nspans; i++)
		if (addr >= sc->spans[i].lo && addr < sc->spans[i].hi)
			return 1;
	return 0;
}

static int ilist_add(struct iscan *sc, struct ilist *l, struct isym *e)
{
	if (l->n == l->cap) {
		size_t c = l->cap ? l->cap * 2 : 64;
		struct isym *nv = realloc(l->v, c * sizeof(*nv));

		if (!nv) {
			sc->oom = 1;
			return -1;
		}
		l->v = nv;
		l->cap = c;
	}
	l->v[l->n++] = *e;
	return 0;
}

static void isym_free(struct isym *e)
{
	free(e->file);
	free(e->full);
	free(e->name);
	free(e->text);
}

static void names_add(struct iscan *sc, const char *nm)
{
	if (sc->nnames == sc->capnames) {
		size_t c = sc->capnames ? sc->capnames * 2 : 256;
		char **nv = realloc(sc->names, c * sizeof(*nv));

		if (!nv) {
			sc->oom = 1;
			return;
		}
		sc->names = nv;
		sc->capnames = c;
	}
	sc->names[sc->nnames++] = (char *)nm; /* (libdw's string, lives with the Dwarf) */
}

static int strp_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int matches(struct iscan *sc, const char *name)
{
	return !sc->has_re || regexec(&sc->re, name, 0, NULL, 0) == 0;
}

/*
 * The file gdb files a symbol under (its symtab's name): the declaring
 * file from the line table, or the CU's own name for the CU's primary
 * file (gdb's buildsym joins the two) and for symbols without a
 * declaring file; a file in the compilation directory is named relative
 * to it, as the line table names it.
 */
static char *symbol_file(Dwarf_Die *cu, Dwarf_Die *d)
{
	const char *cu_name = dwarf_diename(cu), *decl = dwarf_decl_file(d), *dir = NULL;
	Dwarf_Attribute a;
	size_t n;

	if (!cu_name)
		cu_name = "??";
	if (!decl)
		return strdup(cu_name);
	if (dwarf_attr(cu, DW_AT_comp_dir, &a))
		dir = dwarf_formstring(&a);
	if (!strcmp(decl, cu_name))
		return strdup(cu_name);
	/* (a relative compilation directory, as glibc's "./misc", stays in
	 * the name: "./misc/single_threaded.c") */
	if (dir && dir[0] == '/' && (n = strlen(dir)) && !strncmp(decl, dir, n) && decl[n] == '/') {
		if (!strcmp(decl + n + 1, cu_name))
			return strdup(cu_name);
		return strdup(decl + n + 1);
	}
	return strdup(decl);
}

/* The declaration gdb prints for @d (without "static "). */
static char *decl_text(struct iscan *sc, Dwarf_Die *d, int tag, const char *name)
{
	struct vtype *t;
	Dwarf_Attribute ta;
	Dwarf_Die td;
	char *s, *r;
	size_t n;

	if (tag == DW_TAG_subprogram) {
		t = ptd__vt_from_die(sc->v, d);
		return t ? ptd__vt_name(t, name) : NULL;
	}
	if (tag == DW_TAG_variable) {
		if (dwarf_attr_integrate(d, DW_AT_type, &ta) && dwarf_formref_die(&ta, &td))
			t = ptd__vt_from_die(sc->v, &td);
		else
			t = sc->v->t_int;
		return t ? ptd__vt_name(t, name) : NULL;
	}
	t = ptd__vt_from_die(sc->v, d);
	if (!t)
		return NULL;
	if (tag == DW_TAG_typedef) {
		s = ptd__vt_name(t->target, name);
		if (!s)
			return NULL;
		n = strlen(s) + 10;
		r = malloc(n);
		if (r)
			snprintf(r, n, "typedef %s", s);
		free(s);
		return r;
	}
	return ptd__vt_name(t, "");
}

static int list_cu(Dwarf_Die *cu, Dwarf_Addr bias, void *arg)
{
	struct iscan *sc = arg;
	Dwarf_Die c;

	add_span(sc, cu, bias);
	if (dwarf_child(cu, &c) != 0)
		return 0;
	do {
		int tag = dwarf_tag(&c), want = 0, line = 0;
		Dwarf_Attribute a;
		const char *name;
		struct isym e = { 0 };
		char *text;

		if (dwarf_attr_integrate(&c, DW_AT_name, &a))
			name = dwarf_formstring(&a);
		else
			name = NULL;
		if (!name)
			continue;
		if (tag == DW_TAG_base_type)
			name = ptd__base_type_name(name);
		if (tag == DW_TAG_variable || tag == DW_TAG_subprogram || tag == DW_TAG_typedef ||
		    tag == DW_TAG_base_type)
			names_add(sc, name);
		switch (sc->kind) {
		case PTD_INFO_FUNCTIONS:
			want = tag == DW_TAG_subprogram && !dwarf_hasattr(&c, DW_AT_declaration) &&
			       (dwarf_hasattr(&c, DW_AT_low_pc) || dwarf_hasattr(&c, DW_AT_ranges));
			break;
		case PTD_INFO_VARIABLES:
			/* (an external one without a location is gdb's
			 * LOC_UNRESOLVED, which it does not list) */
			want = tag == DW_TAG_variable && !dwarf_hasattr(&c, DW_AT_declaration) &&
			       !dwarf_hasattr(&c, DW_AT_const_value) &&
			       (dwarf_hasattr(&c, DW_AT_location) ||
				!dwarf_hasattr_integrate(&c, DW_AT_external));
			break;
		default:
			want = tag == DW_TAG_base_type || tag == DW_TAG_typedef ||
			       tag == DW_TAG_structure_type || tag == DW_TAG_union_type ||
			       tag == DW_TAG_enumeration_type || tag == DW_TAG_class_type;
			break;
		}
		if (!want || !matches(sc, name))
			continue;
		text = decl_text(sc, &c, tag, name);
		if (!text) {
			sc->oom = 1;
			return 1;
		}
		if (sc->kind != PTD_INFO_TYPES && !dwarf_hasattr_integrate(&c, DW_AT_external)) {
			char *st = malloc(strlen(text) + 8);

			if (!st) {
				free(text);
				sc->oom = 1;
				return 1;
			}
			sprintf(st, "static %s", text);
			free(text);
			text = st;
			e.block = 1;
		} else {
			e.block = sc->kind == PTD_INFO_TYPES;
		}
		if (tag != DW_TAG_base_type) {
			char *semi = malloc(strlen(text) + 2);

			if (!semi) {
				free(text);
				sc->oom = 1;
				return 1;
			}
			sprintf(semi, "%s;", text);
			free(text);
			text = semi;
		}
		dwarf_decl_line(&c, &line);
		e.line = line;
		e.text = text;
		e.name = strdup(name);
		e.file = symbol_file(cu, &c);
		e.full = dwarf_decl_file(&c) ? strdup(dwarf_decl_file(&c)) : strdup(e.file ? e.file : "");
		if (!e.name || !e.file || !e.full || ilist_add(sc, &sc->dbg, &e) < 0) {
			isym_free(&e);
			sc->oom = 1;
			return 1;
		}
	} while (dwarf_siblingof(&c, &c) == 0);
	return 0;
}

static int has_debug_name(struct iscan *sc, const char *name)
{
	char *key = (char *)name;

	return sc->nnames &&
	       bsearch(&key, sc->names, sc->nnames, sizeof(*sc->names), strp_cmp) != NULL;
}

static void add_min(struct iscan *sc, const char *name, uint64_t addr)
{
	struct isym e = { 0 };

	if (!matches(sc, name) || has_debug_name(sc, name))
		return;
	e.name = strdup(name);
	e.addr = addr;
	e.mod = sc->mod;
	if (!e.name || ilist_add(sc, &sc->min, &e) < 0) {
		free(e.name);
		sc->oom = 1;
	}
}

static void plt_sym(void *ctx, const char *name, uint64_t addr)
{
	add_min(ctx, name, addr);
}

/* The dynamic symbols of module @m's file, which gdb reads besides its
 * symbol table (libdwfl gives only one of them: ld.so's _r_debug is in
 * .dynsym alone).  Repeats of .symtab's are dropped when listing. */
static void list_dynsym(struct iscan *sc, Dwfl_Module *m)
{
	GElf_Addr bias = 0;
	Elf *elf = dwfl_module_getelf(m, &bias);
	Elf_Scn *scn = NULL;

	while (elf && (scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;
		size_t n;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNSYM || !sh.sh_entsize ||
		    !(d = elf_getdata(scn, NULL)))
			continue;
		n = sh.sh_size / sh.sh_entsize;
		for (size_t i = 1; i < n; i++) {
			GElf_Sym sym;
			GElf_Shdr ts;
			Elf_Scn *tscn;
			const char *nm;
			int type, code;

			if (!gelf_getsym(d, (int)i, &sym))
				break;
			type = GELF_ST_TYPE(sym.st_info);
			if (sym.st_shndx == SHN_UNDEF || sym.st_shndx >= SHN_LORESERVE ||
			    type == STT_SECTION || type == STT_FILE ||
			    !(nm = elf_strptr(elf, sh.sh_link, sym.st_name)) || !*nm ||
			    !(tscn = elf_getscn(elf, sym.st_shndx)) || !gelf_getshdr(tscn, &ts) ||
			    !(ts.sh_flags & SHF_ALLOC))
				continue;
			code = !!(ts.sh_flags & SHF_EXECINSTR);
			if (code != (sc->kind == PTD_INFO_FUNCTIONS) ||
			    (code && in_span(sc, sym.st_value + bias)))
				continue;
			add_min(sc, nm, sym.st_value + bias);
		}
	}
}

/* gdb's minimal symbols of module @m that no debug information covers:
 * functions (code no CU holds) or variables (data), with gcc's ".N"
 * suffix of a function's static local dropped as gdb drops it. */
static void list_minimal(struct iscan *sc, Dwfl_Module *m)
{
	int nsym = dwfl_module_getsymtab(m);

	for (int i = 1; i < nsym; i++) {
		GElf_Sym sym;
		GElf_Addr addr;
		GElf_Word shndx;
		Elf *elf = NULL;
		Dwarf_Addr bias;
		const char *nm = dwfl_module_getsym_info(m, i, &sym, &addr, &shndx, &elf, &bias);
		int type = GELF_ST_TYPE(sym.st_info), code;
		Elf_Scn *scn;
		GElf_Shdr sh;
		char buf[256];

		if (!nm || !*nm || shndx == SHN_UNDEF || shndx == SHN_ABS || shndx == SHN_COMMON ||
		    type == STT_SECTION || type == STT_FILE || !elf || !strncmp(nm, ".L", 2) ||
		    !(scn = elf_getscn(elf, shndx)) || !gelf_getshdr(scn, &sh) ||
		    !(sh.sh_flags & SHF_ALLOC))
			continue;
		code = !!(sh.sh_flags & SHF_EXECINSTR);
		if (code != (sc->kind == PTD_INFO_FUNCTIONS))
			continue;
		if (code && in_span(sc, addr))
			continue;
		if (!code && GELF_ST_BIND(sym.st_info) == STB_LOCAL) {
			const char *dot = strrchr(nm, '.');
			size_t k;

			if (dot && dot > nm && dot[1] && strspn(dot + 1, "0123456789") == strlen(dot + 1) &&
			    (k = (size_t)(dot - nm)) < sizeof(buf)) {
				memcpy(buf, nm, k);
				buf[k] = 0;
				nm = buf;
			}
		}
		add_min(sc, nm, addr);
	}
	list_dynsym(sc, m);
	if (sc->kind == PTD_INFO_FUNCTIONS)
		ptd__symbols_plt_each(sc->v->sym, m, plt_sym, sc);
}

struct modent {
	Dwfl_Module *m;
	uint64_t start;
};

struct modlist {
	struct modent *v;
	size_t n, cap;
	int oom;
};

static int collect_mod(Dwfl_Module *m, void **ud, const char *n, Dwarf_Addr start, void *arg)
{
	struct modlist *ml = arg;

	(void)ud, (void)n;
	if (ml->n == ml->cap) {
		size_t c = ml->cap ? ml->cap * 2 : 16;
		struct modent *nv = realloc(ml->v, c * sizeof(*nv));

		if (!nv) {
			ml->oom = 1;
			return DWARF_CB_ABORT;
		}
		ml->v = nv;
		ml->cap = c;
	}
	ml->v[ml->n].m = m;
	ml->v[ml->n++].start = start;
	return DWARF_CB_OK;
}

static int mod_cmp(const void *a, const void *b)
{
	const struct modent *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/* gdb's order: file, then global before static, then name. */
static int dbg_cmp(const void *a, const void *b)
{
	const struct isym *x = a, *y = b;
	int c = strcmp(x->file, y->file);

	if (c)
		return c;
	if (x->block != y->block)
		return x->block - y->block;
	return strcmp(x->name, y->name);
}

/* ELF symbols: by object (the program first), then address. */
static int min_cmp(const void *a, const void *b)
{
	const struct isym *x = a, *y = b;

	if (x->mod != y->mod)
		return x->mod - y->mod;
	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* The messages of gdb's regex (libiberty's, GNU regex's older wording). */
static const char *regex_error(int e)
{
	switch (e) {
	case REG_ECOLLATE: return "Invalid collation character";
	case REG_ECTYPE: return "Invalid character class name";
	case REG_EESCAPE: return "Trailing backslash";
	case REG_ESUBREG: return "Invalid back reference";
	case REG_EBRACK: return "Unmatched [ or [^";
	case REG_EPAREN: return "Unmatched ( or \\(";
	case REG_EBRACE: return "Unmatched \\{";
	case REG_BADBR: return "Invalid content of \\{\\}";
	case REG_ERANGE: return "Invalid range end";
	case REG_ESPACE: return "Memory exhausted";
	case REG_BADRPT: return "Invalid preceding regular expression";
	case REG_EEND: return "Premature end of regular expression";
	case REG_ESIZE: return "Regular expression too big";
	case REG_ERPAREN: return "Unmatched ) or \\)";
	default: return "Invalid regular expression";
	}
}

static void scan_free(struct iscan *sc)
{
	for (size_t i = 0; i < sc->dbg.n; i++)
		isym_free(&sc->dbg.v[i]);
	for (size_t i = 0; i < sc->min.n; i++)
		isym_free(&sc->min.v[i]);
	free(sc->dbg.v);
	free(sc->min.v);
	free(sc->names);
	free(sc->spans);
	if (sc->has_re)
		regfree(&sc->re);
}

/* The symbols of @kind matching @regex in every module, sorted as gdb
 * lists them, into @sc (scan_free() releases them).  Returns 0 or <0. */
static int scan(struct ptd_values *v, struct iscan *sc, int kind, const char *regex, int flags)
{
	struct modlist ml = { 0 };
	Dwfl *dwfl;

	memset(sc, 0, sizeof(*sc));
	sc->v = v;
	sc->kind = kind;
	if (regex) {
		int e = regcomp(&sc->re, regex, REG_NOSUB);

		if (e) {
			/* glibc's regcomp says less than libiberty's about a
			 * bracket or an interval left open */
			if (e == REG_BADPAT && strchr(regex, '['))
				e = REG_EBRACK;
			else if (e == REG_BADRPT && strstr(regex, "\\{") && !strstr(regex, "\\}"))
				e = REG_EBRACE;
			return ptd__err(-ptde_invalid, "Invalid regexp: %s", regex_error(e));
		}
		sc->has_re = 1;
	}
	dwfl = v->sym ? ptd__symbols_dwfl(v->sym) : NULL;
	if (dwfl)
		dwfl_getmodules(dwfl, collect_mod, &ml, 0);
	if (ml.n)
		qsort(ml.v, ml.n, sizeof(*ml.v), mod_cmp);
	for (size_t i = 0; i < ml.n && !sc->oom && !ml.oom; i++) {
		sc->mod = (int)i;
		sc->nnames = 0;
		sc->nspans = 0;
		ptd__dw_each_cu(ml.v[i].m, list_cu, sc);
		if (sc->kind == PTD_INFO_TYPES || (flags & PTD_INFO_NO_MINIMAL))
			continue;
		if (sc->nnames)
			qsort(sc->names, sc->nnames, sizeof(*sc->names), strp_cmp);
		list_minimal(sc, ml.v[i].m);
	}
	free(ml.v);
	if (sc->oom || ml.oom) {
		scan_free(sc);
		memset(sc, 0, sizeof(*sc));
		return ptd__err(-ptde_nomem, "out of memory");
	}
	if (sc->dbg.n)
		qsort(sc->dbg.v, sc->dbg.n, sizeof(*sc->dbg.v), dbg_cmp);
	if (sc->min.n)
		qsort(sc->min.v, sc->min.n, sizeof(*sc->min.v), min_cmp);
	return 0;
}

int ptd_values_info_symbols(struct ptd_values *v, int kind, const char *regex, int flags,
			    char **out)
{
	static const char *const what[] = { "variable", "function", "type" };
	struct iscan sc;
	struct sbuf b = { 0 };
	const char *last = "";
	int rc = 0, first = 1;

	if (!v || !out || kind < PTD_INFO_VARIABLES || kind > PTD_INFO_TYPES)
		return -ptde_invalid;
	*out = NULL;
	if (regex && !*regex)
		regex = NULL;
	rc = scan(v, &sc, kind, regex, flags);
	if (rc < 0)
		return rc;
	if (!(flags & PTD_INFO_QUIET)) {
		if (regex)
			ptd__sb_add(&b, "All %ss matching regular expression \"%s\":\n", what[kind],
				    regex);
		else
			ptd__sb_add(&b, "All defined %ss:\n", what[kind]);
	}
	for (size_t i = 0; i < sc.dbg.n; i++) {
		struct isym *e = &sc.dbg.v[i];

		if (i > 0 && !dbg_cmp(e, &sc.dbg.v[i - 1]))
			continue; /* (the same symbol in another CU of the file) */
		if (strcmp(last, e->file))
			ptd__sb_add(&b, "\nFile %s:\n", e->file);
		last = e->file;
		if (e->line)
			ptd__sb_add(&b, "%d:\t%s\n", e->line, e->text);
		else
			ptd__sb_add(&b, "\t%s\n", e->text);
	}
	for (size_t i = 0; i < sc.min.n; i++) {
		struct isym *e = &sc.min.v[i];

		if (i > 0 && e->addr == sc.min.v[i - 1].addr && !strcmp(e->name, sc.min.v[i - 1].name))
			continue;
		if (first && !(flags & PTD_INFO_QUIET))
			ptd__sb_add(&b, "\nNon-debugging symbols:\n");
		first = 0;
		ptd__sb_add(&b, "0x%016" PRIx64 "  %s\n", e->addr, e->name);
	}
	if (b.oom) {
		rc = ptd__err(-ptde_nomem, "out of memory");
		goto out;
	}
	*out = b.s ? b.s : strdup("");
	b.s = NULL;
	if (!*out)
		rc = ptd__err(-ptde_nomem, "out of memory");
out:
	free(b.s);
	scan_free(&sc);
	return rc;
}

int ptd_values_functions_matching(struct ptd_values *v, const char *regex,
				  struct ptd_func_match **out, int *n)
{
	struct iscan sc;
	struct ptd_func_match *m;
	size_t k = 0;
	int rc;

	if (!v || !out || !n)
		return -ptde_invalid;
	*out = NULL;
	*n = 0;
	if (regex && !*regex)
		regex = NULL;
	rc = scan(v, &sc, PTD_INFO_FUNCTIONS, regex, 0);
	if (rc < 0)
		return rc;
	m = calloc(sc.dbg.n + sc.min.n + 1, sizeof(*m));
	if (!m) {
		scan_free(&sc);
		return ptd__err(-ptde_nomem, "out of memory");
	}
	/* (the strings move to the caller, ptd_values_matches_free(), once
	 * the repeats are known) */
	for (size_t i = sc.dbg.n; i-- > 1;)
		if (!dbg_cmp(&sc.dbg.v[i], &sc.dbg.v[i - 1]))
			sc.dbg.v[i].line = -1;
	for (size_t i = 0; i < sc.dbg.n; i++) {
		struct isym *e = &sc.dbg.v[i];

		if (e->line < 0)
			continue;
		m[k].file = e->full;
		m[k].name = e->name;
		m[k].decl = e->text;
		m[k++].line = e->line;
		e->full = e->name = e->text = NULL;
	}
	for (size_t i = 0; i < sc.min.n; i++) {
		struct isym *e = &sc.min.v[i];

		if (i > 0 && e->addr == m[k - 1].addr && m[k - 1].name && !m[k - 1].file &&
		    !strcmp(e->name, m[k - 1].name))
			continue;
		m[k].name = e->name;
		m[k++].addr = e->addr;
		e->name = NULL;
	}
	scan_free(&sc);
	*out = m;
	*n = (int)k;
	return 0;
}

void ptd_values_matches_free(struct ptd_func_match *m, int n)
{
	for (int i = 0; m && i < n; i++) {
		free((char *)m[i].file);
		free((char *)m[i].name);
		free((char *)m[i].decl);
	}
	free(m);
}

/* ------------------------------------------------------------------ */
/* info scope                                                           */

/* The symbols of one block in the order gdb adds them. */
struct scope_syms {
	Dwarf_Die *d;
	size_t n, cap;
	int oom;
};

static void ss_add(struct scope_syms *s, Dwarf_Die *d)
{
	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 16;
		Dwarf_Die *nd = realloc(s->d, cap * sizeof(*nd));

		if (!nd) {
			s->oom = 1;
			return;
		}
		s->d = nd;
		s->cap = cap;
	}
	s->d[s->n++] = *d;
}

static const char *die_name(Dwarf_Die *d)
{
	Dwarf_Attribute a;

	return dwarf_attr_integrate(d, DW_AT_name, &a) ? dwarf_formstring(&a) : NULL;
}

static int die_flag(Dwarf_Die *d, int at)
{
	Dwarf_Attribute a;
	bool f = false;

	return dwarf_attr_integrate(d, at, &a) && dwarf_formflag(&a, &f) == 0 && f;
}

static void scope_block(struct scope_syms *s, Dwarf_Die *blk, int inherit);

/* A child DIE of a block as gdb's reader takes it: the symbols it makes
 * there (parameters, variables, labels), and a lexical block without
 * addresses read as if its children were the block's own.  (An inlined
 * call's function is a symbol of the call's own block, not of this one.) */
static void scope_child(struct scope_syms *s, Dwarf_Die *c)
{
	const char *nm = die_name(c);

	switch (dwarf_tag(c)) {
	case DW_TAG_formal_parameter:
	case DW_TAG_label:
	case DW_TAG_typedef:
		if (nm)
			ss_add(s, c);
		break;
	case DW_TAG_variable:
		/* a declaration without a location is only an extern one's
		 * (found by its ELF symbol) */
		if (nm && (dwarf_hasattr_integrate(c, DW_AT_location) ||
			   dwarf_hasattr_integrate(c, DW_AT_const_value) ||
			   (die_flag(c, DW_AT_external) && dwarf_hasattr_integrate(c, DW_AT_type)) ||
			   !die_flag(c, DW_AT_declaration)))
			ss_add(s, c);
		break;
	case DW_TAG_lexical_block:
		if (!dwarf_hasattr(c, DW_AT_low_pc) && !dwarf_hasattr(c, DW_AT_ranges))
			scope_block(s, c, 0);
		break;
	default:
		break;
	}
}

static int off_cmp(const void *a, const void *b)
{
	Dwarf_Off x = *(const Dwarf_Off *)a, y = *(const Dwarf_Off *)b;

	return x < y ? -1 : x > y;
}

/* The symbols of block @blk: its children, then (@inherit) those of its
 * abstract origin that no child stands for (gdb's inherit_abstract_dies:
 * the locals an inlined copy lost keep their names). */
static void scope_block(struct scope_syms *s, Dwarf_Die *blk, int inherit)
{
	Dwarf_Die c, o, oc;
	Dwarf_Attribute a;
	Dwarf_Off *refs = NULL;
	size_t nrefs = 0, cap = 0;

	if (dwarf_child(blk, &c) == 0) {
		do {
			if (inherit && dwarf_attr(&c, DW_AT_abstract_origin, &a) &&
			    dwarf_formref_die(&a, &o)) {
				if (nrefs == cap) {
					Dwarf_Off *n;

					cap = cap ? cap * 2 : 16;
					n = realloc(refs, cap * sizeof(*n));
					if (!n) {
						s->oom = 1;
						free(refs);
						return;
					}
					refs = n;
				}
				refs[nrefs++] = dwarf_dieoffset(&o);
			}
			scope_child(s, &c);
		} while (dwarf_siblingof(&c, &c) == 0);
	}
	if (inherit && dwarf_attr(blk, DW_AT_abstract_origin, &a) && dwarf_formref_die(&a, &o) &&
	    dwarf_child(&o, &oc) == 0) {
		if (nrefs) /* (refs is NULL without any: qsort and bsearch want an array) */
			qsort(refs, nrefs, sizeof(*refs), off_cmp);
		do {
			Dwarf_Off off = dwarf_dieoffset(&oc);

			if (dwarf_tag(&oc) != DW_TAG_subprogram &&
			    (!nrefs || !bsearch(&off, refs, nrefs, sizeof(*refs), off_cmp)))
				scope_child(s, &oc);
		} while (dwarf_siblingof(&oc, &oc) == 0);
	}
	free(refs);
}

/* gdb's symbol hash step (SYMBOL_HASH_NEXT). */
static unsigned hash_next(unsigned h, char ch)
{
	return h * 67 + (unsigned)tolower((unsigned char)ch) - 113;
}

/* gdb's msymbol_hash_iw: blanks skipped, up to a '('. */
static unsigned hash_iw(const char *s)
{
	unsigned h = 0;

	for (; *s && *s != '('; s++)
		if (!isspace((unsigned char)*s))
			h = hash_next(h, *s);
	return h;
}

/* The hash gdb files a C symbol's name under in a block's hash table
 * (default_search_name_hash, which also knows Ada's encodings). */
static unsigned hash_c(const char *s0)
{
	const char *s = s0;
	unsigned h = 0;

	if (*s == '_') {
		if (strncmp(s, "_ada_", 5))
			return hash_iw(s0);
		s += 5;
	}
	for (; *s; s++) {
		if (*s == '$' || *s == '.' || *s == 'X')
			return s == s0 ? hash_iw(s0) : h;
		if (*s == ' ' || *s == '(')
			return hash_iw(s0);
		if (*s == '_' && s[1] == '_' && s != s0) {
			if ((s[2] < 'a' || s[2] > 'z') && s[2] != 'O')
				return h;
			h = 0;
			s++;
			continue;
		}
		if (*s == 'T' && !strcmp(s, "TKB"))
			return h;
		h = hash_next(h, *s);
	}
	return h;
}

/* The same for C++ (cp_search_name_hash): the last component of a
 * qualified name, up to its parameters or an ABI tag. */
static unsigned hash_cplus(const char *s)
{
	const char *last = NULL;
	int depth = 0;
	unsigned h = 0;

	if (!strncmp(s, "::", 2))
		s += 2;
	for (const char *p = s; *p; p++) {
		if (*p == '<' || *p == '(')
			depth++;
		else if ((*p == '>' || *p == ')') && depth > 0)
			depth--;
		else if (!depth && p[0] == ':' && p[1] == ':')
			last = p++;
		if (!depth && *p == '(' && p != s)
			break;
	}
	if (last)
		s = last + 2;
	for (; *s; s++) {
		if (isspace((unsigned char)*s))
			continue;
		if (*s == '(' || (*s == '[' && !strncmp(s + 1, "abi:", 4) && s[5] != ':'))
			break;
		h = hash_next(h, *s);
	}
	return h;
}

/* A C++ type as gdb's canonical names write it ("Rec const&",
 * "Shape*"), appended to @b; its scope's names first. */
static void canon_type(struct sbuf *b, Dwarf_Die *t, int depth)
{
	Dwarf_Attribute a;
	Dwarf_Die in, *sc = NULL;
	const char *nm;
	int tag, has_in, n;

	if (!t) {
		ptd__sb_add(b, "void");
		return;
	}
	tag = dwarf_tag(t);
	has_in = dwarf_attr(t, DW_AT_type, &a) && dwarf_formref_die(&a, &in);
	if (depth > 16) {
		ptd__sb_add(b, "?");
		return;
	}
	switch (tag) {
	case DW_TAG_pointer_type:
	case DW_TAG_reference_type:
	case DW_TAG_rvalue_reference_type:
	case DW_TAG_const_type:
	case DW_TAG_volatile_type:
		canon_type(b, has_in ? &in : NULL, depth + 1);
		ptd__sb_add(b, "%s", tag == DW_TAG_pointer_type ? "*" :
				     tag == DW_TAG_reference_type ? "&" :
				     tag == DW_TAG_rvalue_reference_type ? "&&" :
				     tag == DW_TAG_const_type ? " const" : " volatile");
		return;
	default:
		break;
	}
	/* the namespaces and classes around it */
	n = dwarf_getscopes_die(t, &sc);
	for (int i = n - 1; i >= 1; i--) {
		int st = dwarf_tag(&sc[i]);
		const char *sn = dwarf_diename(&sc[i]);

		if ((st == DW_TAG_namespace || st == DW_TAG_class_type ||
		     st == DW_TAG_structure_type || st == DW_TAG_union_type) && sn)
			ptd__sb_add(b, "%s::", sn);
	}
	free(sc);
	nm = dwarf_diename(t);
	ptd__sb_add(b, "%s", nm ? nm : "?");
}

/* A C++ function's name as gdb builds it when it has no linkage name:
 * NAME(TYPES) with " const" for a const this. */
static char *computed_name(Dwarf_Die *d)
{
	struct sbuf b = { 0 };
	Dwarf_Attribute a;
	Dwarf_Die fn = *d, c, t, ot;
	const char *nm = die_name(d);
	int first = 1, konst = 0;

	/* the parameters are the definition's (or the declaration's) */
	if (dwarf_attr(d, DW_AT_abstract_origin, &a) && dwarf_formref_die(&a, &t))
		fn = t;
	ptd__sb_add(&b, "%s(", nm ? nm : "");
	if (dwarf_child(&fn, &c) == 0) {
		do {
			if (dwarf_tag(&c) != DW_TAG_formal_parameter)
				continue;
			if (!(dwarf_attr_integrate(&c, DW_AT_type, &a) && dwarf_formref_die(&a, &t)))
				continue;
			if (die_flag(&c, DW_AT_artificial)) {
				/* this: T const* for a const member function
				 * (the pointer itself may be const too) */
				while ((dwarf_tag(&t) == DW_TAG_const_type ||
					dwarf_tag(&t) == DW_TAG_volatile_type) &&
				       dwarf_attr(&t, DW_AT_type, &a) && dwarf_formref_die(&a, &ot))
					t = ot;
				if (dwarf_tag(&t) == DW_TAG_pointer_type &&
				    dwarf_attr(&t, DW_AT_type, &a) && dwarf_formref_die(&a, &ot) &&
				    dwarf_tag(&ot) == DW_TAG_const_type)
					konst = 1;
				continue;
			}
			ptd__sb_add(&b, "%s", first ? "" : ", ");
			first = 0;
			canon_type(&b, &t, 0);
		} while (dwarf_siblingof(&c, &c) == 0);
	}
	ptd__sb_add(&b, ")%s", konst ? " const" : "");
	if (b.oom) {
		free(b.s);
		return NULL;
	}
	return b.s;
}

/* Where the name of a demangled function starts: past a template
 * function's return type (the last space outside brackets before its
 * parameters) and past the scopes of a lambda ("f()::{lambda(int)#1}::"),
 * which gdb's names leave out. */
static const char *demangled_tail(const char *dm)
{
	const char *start = dm, *p, *lambda = strstr(dm, "{lambda(");
	int depth = 0;

	for (p = dm; *p; p++) {
		if (*p == '<' || *p == '(' || *p == '{' || *p == '[') {
			if (*p == '(' && !depth && p != dm)
				break;
			depth++;
		} else if ((*p == '>' || *p == ')' || *p == '}' || *p == ']') && depth > 0) {
			depth--;
		} else if (!depth && *p == ' ' && !strncmp(p - (p - dm >= 8 ? 8 : 0), "operator", 8)) {
			continue;
		} else if (!depth && *p == ' ') {
			start = p + 1;
		} else if (!depth && lambda && p[0] == ':' && p[1] == ':') {
			start = p + 2;
		}
	}
	return start;
}

/* The name gdb prints for symbol @d: a C++ function by its demangled
 * linkage name (gdb's physname) or the name gdb computes, else
 * DW_AT_name. */
static char *scope_name(Dwarf_Die *d, int cplus)
{
	Dwarf_Attribute a;
	const char *ln;
	int tag = dwarf_tag(d);

	if (cplus && (tag == DW_TAG_inlined_subroutine || tag == DW_TAG_subprogram)) {
		if ((dwarf_attr_integrate(d, DW_AT_linkage_name, &a) ||
		     dwarf_attr_integrate(d, DW_AT_MIPS_linkage_name, &a)) &&
		    (ln = dwarf_formstring(&a))) {
			int status = 0;
			char *dm = __cxa_demangle(ln, NULL, NULL, &status), *r;

			if (dm && status == 0) {
				r = strdup(demangled_tail(dm));
				free(dm);
				return r;
			}
			free(dm);
		}
		/* (an inlined call keeps the bare name) */
		if (die_name(d) && tag == DW_TAG_subprogram)
			return computed_name(d);
	}
	ln = die_name(d);
	return strdup(ln ? ln : "");
}

/* The lowest address of block @d (gdb's BLOCK_ENTRY_PC: its start, or
 * the start of its first range). */
static int block_entry(Dwarf_Die *d, Dwarf_Addr *pc)
{
	Dwarf_Addr base, s, e;

	if (dwarf_lowpc(d, pc) == 0)
		return 0;
	/* (an empty range is none, as gdb reads them) */
	for (ptrdiff_t off = 0; (off = dwarf_ranges(d, off, &base, &s, &e)) > 0;)
		if (s < e) {
			*pc = s;
			return 0;
		}
	return -1;
}

/* Whether type @t (typedefs and qualifiers aside) is an array whose
 * bounds are computed at run time (a C VLA): gdb's length 0 then. */
static int dynamic_array(Dwarf_Die *t)
{
	Dwarf_Attribute a;
	Dwarf_Die d = *t, c;

	for (int i = 0; i < 16; i++) {
		int tag = dwarf_tag(&d);

		if (tag == DW_TAG_array_type)
			break;
		if ((tag != DW_TAG_typedef && tag != DW_TAG_const_type &&
		     tag != DW_TAG_volatile_type) ||
		    !dwarf_attr(&d, DW_AT_type, &a) || !dwarf_formref_die(&a, &d))
			return 0;
	}
	if (dwarf_tag(&d) != DW_TAG_array_type || dwarf_child(&d, &c) != 0)
		return 0;
	do {
		if (dwarf_tag(&c) != DW_TAG_subrange_type)
			continue;
		if (!dwarf_attr(&c, DW_AT_upper_bound, &a) && !dwarf_attr(&c, DW_AT_count, &a))
			return 1;
		switch (dwarf_whatform(&a)) {
		case DW_FORM_exprloc:
		case DW_FORM_block:
		case DW_FORM_block1:
		case DW_FORM_ref4:
		case DW_FORM_ref8:
		case DW_FORM_ref_udata:
			return 1;
		default:
			break;
		}
	} while (dwarf_siblingof(&c, &c) == 0);
	return 0;
}

/* One "Symbol X is ..." line of info scope (gdb's wording per address
 * class); 0, or -1 after a location it cannot read. */
static int scope_describe(struct dctx *c, Dwarf_Die *d, const char *name)
{
	Dwarf_Attribute a;
	Dwarf_Die td;
	Dwarf_Addr addr;
	struct vtype *t = NULL;
	int tag = dwarf_tag(d), vla = 0;

	ptd__sb_add(c->b, "Symbol %s is ", name);
	if (tag == DW_TAG_inlined_subroutine || tag == DW_TAG_subprogram) {
		if (block_entry(d, &addr) < 0)
			addr = 0;
		ptd__sb_add(c->b, "a function at address 0x%" PRIx64 ", length 1.\n", addr + c->bias);
		return 0;
	}
	if (tag == DW_TAG_typedef) {
		ptd__sb_add(c->b, "a typedef.\n");
		return 0;
	}
	if (tag == DW_TAG_label) {
		if (dwarf_lowpc(d, &addr) != 0)
			addr = 0;
		ptd__sb_add(c->b, "a label at address 0x%" PRIx64 ", length 8.\n", addr + c->bias);
		return 0;
	}
	if (dwarf_attr_integrate(d, DW_AT_type, &a) && dwarf_formref_die(&a, &td)) {
		t = ptd__vt_strip(ptd__vt_from_die(c->v, &td));
		vla = dynamic_array(&td);
	}
	if (dwarf_attr_integrate(d, DW_AT_const_value, &a)) {
		Dwarf_Block blk;
		Dwarf_Sword sv;
		Dwarf_Word uv;

		switch (dwarf_whatform(&a)) {
		case DW_FORM_block:
		case DW_FORM_block1:
		case DW_FORM_block2:
		case DW_FORM_block4:
		case DW_FORM_exprloc:
		case DW_FORM_string:
		case DW_FORM_strp:
		case DW_FORM_line_strp:
			if (dwarf_formblock(&a, &blk) != 0)
				return -1;
			ptd__sb_add(c->b, "constant bytes: ");
			for (uint64_t i = 0; t && i < t->size && i < blk.length; i++)
				ptd__sb_add(c->b, " %02x", blk.data[i]);
			break;
		case DW_FORM_sdata:
		case DW_FORM_implicit_const:
			if (dwarf_formsdata(&a, &sv) != 0)
				return -1;
			ptd__sb_add(c->b, "a constant with value %" PRId64 " (0x%" PRIx64 ")",
				    (int64_t)sv, (uint64_t)sv);
			break;
		default:
			/* (udata, and dataN as gdb reads them: their bits, not
			 * sign-extended) */
			if (dwarf_formudata(&a, &uv) != 0)
				return -1;
			if (dwarf_whatform(&a) == DW_FORM_data1)
				uv &= 0xff;
			else if (dwarf_whatform(&a) == DW_FORM_data2)
				uv &= 0xffff;
			else if (dwarf_whatform(&a) == DW_FORM_data4)
				uv &= 0xffffffffu;
			ptd__sb_add(c->b, "a constant with value %" PRId64 " (0x%" PRIx64 ")",
				    (int64_t)uv, (uint64_t)uv);
			break;
		}
	} else if (!dwarf_attr_integrate(d, DW_AT_location, &a)) {
		uint64_t entry;

		if (!die_flag(d, DW_AT_external)) {
			ptd__sb_add(c->b, "optimized out.\n");
			return 0;
		}
		if (minimal_entry(c->v, name, &entry) == 0)
			ptd__sb_add(c->b, "static storage at address 0x%" PRIx64, entry);
		else
			ptd__sb_add(c->b, "Unresolved Static");
		ptd_clear_error();
	} else {
		Dwarf_Block blk;

		if (dwarf_formblock(&a, &blk) == 0) {
			const uint8_t *p = blk.data;

			if (!blk.length) {
				ptd__sb_add(c->b, "optimized out.\n");
				return 0;
			}
			if (blk.length == 1 + (size_t)c->addr_size && p[0] == DW_OP_addr) {
				p++;
				rd_fixed(&p, p + c->addr_size, c->addr_size, &addr);
				ptd__sb_add(c->b, "in static storage at address 0x%" PRIx64,
					    addr + c->bias);
			} else {
				describe_expr(c, blk.data, blk.data + blk.length);
				if (c->bad)
					return -1;
			}
		} else {
			Dwarf_Word off;

			if (dwarf_formudata(&a, &off) != 0 || describe_list(c, off) < 0)
				return -1;
		}
	}
	ptd__sb_add(c->b, ", length %" PRIu64 ".\n", vla ? 0 : t ? t->size : (uint64_t)1);
	return 0;
}

/* The symbols of block @blk in the order gdb lists them: a function's
 * (or an inlined call's) as read, any other block's by gdb's hash table
 * (buckets in order, each in the order read). */
static int scope_print(struct dctx *c, Dwarf_Die *blk, int hashed, int self, int cplus,
		       int *count)
{
	struct scope_syms s = { 0 };
	size_t *order = NULL, k = 0;
	char **names = NULL;
	int rc = 0;

	if (self && die_name(blk))
		ss_add(&s, blk);
	scope_block(&s, blk, 1);
	if (s.oom)
		goto fail;
	order = calloc(s.n + 1, sizeof(*order));
	names = calloc(s.n + 1, sizeof(*names));
	if (!order || !names)
		goto fail;
	for (size_t i = 0; i < s.n; i++)
		if (!(names[i] = scope_name(&s.d[i], cplus)))
			goto fail;
	if (hashed && s.n) {
		/* (gdb's number of buckets for so many symbols) */
		size_t nb = s.n / 5 + 1;

		for (size_t b = 0; b < nb; b++)
			for (size_t i = 0; i < s.n; i++)
				if ((cplus ? hash_cplus(names[i]) : hash_c(names[i])) % nb == b)
					order[k++] = i;
	} else {
		for (k = 0; k < s.n; k++)
			order[k] = k;
	}
	for (size_t i = 0; i < k && rc == 0; i++) {
		if (!names[order[i]][0])
			continue;
		(*count)++;
		rc = scope_describe(c, &s.d[order[i]], names[order[i]]);
	}
	goto done;
fail:
	rc = -2;
done:
	for (size_t i = 0; names && i < s.n; i++)
		free(names[i]);
	free(names);
	free(order);
	free(s.d);
	return rc;
}

/* The blocks around @pc under @d, innermost last, into @chain (at most
 * @max), with in @nested whether each is a function defined inside
 * another one (@in_fn: @d is or is in a function): functions, lexical
 * blocks and inlined calls, also the functions of a class defined in a
 * function whose code lies outside it (a lambda's operator(), which
 * libdw's dwarf_getscopes does not find).  Returns how many. */
static int scope_chain(Dwarf_Die *d, Dwarf_Addr pc, Dwarf_Die *chain, int *nested, int n, int max,
		       int in_fn)
{
	Dwarf_Die c;

	if (dwarf_child(d, &c) != 0)
		return n;
	do {
		int tag = dwarf_tag(&c), k;

		if (tag == DW_TAG_subprogram || tag == DW_TAG_lexical_block ||
		    tag == DW_TAG_inlined_subroutine) {
			if (dwarf_haspc(&c, pc) == 1) {
				if (n < max) {
					nested[n] = tag == DW_TAG_subprogram && in_fn;
					chain[n++] = c;
				}
				return scope_chain(&c, pc, chain, nested, n, max, 1);
			}
			if (tag == DW_TAG_inlined_subroutine)
				continue;
		} else if (tag != DW_TAG_namespace && tag != DW_TAG_class_type &&
			   tag != DW_TAG_structure_type && tag != DW_TAG_union_type) {
			continue;
		}
		k = scope_chain(&c, pc, chain, nested, n, max,
				in_fn || tag == DW_TAG_subprogram || tag == DW_TAG_lexical_block);
		if (k > n)
			return k;
	} while (dwarf_siblingof(&c, &c) == 0);
	return n;
}

int ptd_values_info_scope(struct ptd_values *v, uint64_t pc, const char *spec, char **out)
{
	struct sbuf b = { 0 };
	struct dctx c = { .v = v, .b = &b };
	Dwarf_Die *cu, *scopes = NULL, cudie;
	Dwarf_Addr bias = 0;
	Dwarf_Half ver = 5;
	uint8_t asz = 8, osz = 4;
	Dwfl *dwfl;
	int n, count = 0, rc = 0, cplus = 0, nested[64];

	if (!v || !spec || !out)
		return -ptde_invalid;
	*out = NULL;
	ptd__sb_add(&b, "Scope for %s:\n", spec);
	/* (without symbols no block has any: no error, as gdb's) */
	dwfl = v->sym ? ptd__symbols_dwfl(v->sym) : NULL;
	cu = dwfl ? dwfl_addrdie(dwfl, pc, &bias) : NULL;
	if (cu) {
		Dwarf_Die chain[64];
		int nest[64];

		n = scope_chain(cu, pc - bias, chain, nest, 0, 64, 0);
		scopes = n ? calloc((size_t)n, sizeof(*scopes)) : NULL;
		if (n && !scopes)
			return ptd__err(-ptde_nomem, "out of memory");
		for (int i = 0; i < n; i++) {
			scopes[i] = chain[n - 1 - i];
			nested[i] = nest[n - 1 - i];
		}
	} else {
		n = 0;
	}
	if (n > 0) {
		Dwarf_Off ao, toff;
		uint64_t sig;
		Dwarf_Word lang = 0;
		Dwarf_Attribute la;

		if (dwarf_cu_die(cu->cu, &cudie, &ver, &ao, &asz, &osz, &sig, &toff) == NULL)
			ver = 5;
		if (dwarf_attr(cu, DW_AT_language, &la))
			dwarf_formudata(&la, &lang);
		cplus = lang == DW_LANG_C_plus_plus || lang == DW_LANG_C_plus_plus_03 ||
			lang == DW_LANG_C_plus_plus_11 || lang == DW_LANG_C_plus_plus_14;
		c.cu = *cu;
		c.dw = dwarf_cu_getdwarf(cu->cu);
		c.addr_size = asz;
		c.off_size = osz;
		c.version = ver;
		c.bias = bias;
		/* the frame base is the real function's around @pc */
		for (int i = 0; i < n; i++)
			if (dwarf_tag(&scopes[i]) == DW_TAG_subprogram) {
				c.fn = scopes[i];
				c.has_fn = 1;
				break;
			}
	}
	for (int i = 0; i < n && rc == 0; i++) {
		int tag = dwarf_tag(&scopes[i]);
		Dwarf_Addr entry;

		if (tag != DW_TAG_lexical_block && tag != DW_TAG_subprogram &&
		    tag != DW_TAG_inlined_subroutine)
			break;
		c.pc = block_entry(&scopes[i], &entry) == 0 ? entry + bias : pc;
		/* a function defined inside another (a lambda's body) is a
		 * symbol of its own block, as an inlined call's is */
		rc = scope_print(&c, &scopes[i], tag == DW_TAG_lexical_block,
				 tag == DW_TAG_inlined_subroutine ||
					 (nested[i] && !die_flag(&scopes[i], DW_AT_external)),
				 cplus, &count);
		if (tag != DW_TAG_lexical_block)
			break;
	}
	free(scopes);
	if (rc == -2 || b.oom) {
		free(b.s);
		return ptd__err(-ptde_nomem, "out of memory");
	}
	if (rc < 0) {
		free(b.s);
		return ptd__err(-ptde_invalid, "Corrupted DWARF2 expression for a symbol of \"%s\".",
				spec);
	}
	if (!count) {
		free(b.s);
		b = (struct sbuf){ 0 };
		ptd__sb_add(&b, "Scope for %s contains no locals or arguments.\n", spec);
		if (b.oom) {
			free(b.s);
			return ptd__err(-ptde_nomem, "out of memory");
		}
	}
	*out = b.s;
	return 0;
}
