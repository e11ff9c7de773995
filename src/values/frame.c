/*
 * Where values come from: the selected frame (its registers, unwound from
 * the innermost frame with the DWARF CFI, and its CFA), variables found
 * by name in the DWARF scopes at the frame's pc and then among all
 * globals, their DWARF location expressions evaluated here (libdw parses
 * them and picks the location-list entry; the stack machine is ours),
 * registers by name, and finish's return value by the SysV ABI.
 *
 * In the recorded past only the registers the recorder knew at that
 * position are known: anything computed from another is <unavailable>,
 * never guessed.  Memory there is the present memory; used_memory tells
 * the front end to say so.
 */
#include <dwarf.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "symbols/symbols.h"
#include "util/error.h"
#include "values/values_int.h"

/* DWARF register number -> offset in struct user_regs_struct */
static const size_t dreg_off[NDREGS] = {
	offsetof(struct user_regs_struct, rax), offsetof(struct user_regs_struct, rdx),
	offsetof(struct user_regs_struct, rcx), offsetof(struct user_regs_struct, rbx),
	offsetof(struct user_regs_struct, rsi), offsetof(struct user_regs_struct, rdi),
	offsetof(struct user_regs_struct, rbp), offsetof(struct user_regs_struct, rsp),
	offsetof(struct user_regs_struct, r8),	offsetof(struct user_regs_struct, r9),
	offsetof(struct user_regs_struct, r10), offsetof(struct user_regs_struct, r11),
	offsetof(struct user_regs_struct, r12), offsetof(struct user_regs_struct, r13),
	offsetof(struct user_regs_struct, r14), offsetof(struct user_regs_struct, r15),
	offsetof(struct user_regs_struct, rip),
};

const char *const ptd__dreg_name[NDREGS] = {
	"rax", "rdx", "rcx", "rbx", "rsi", "rdi", "rbp", "rsp", "r8",
	"r9",  "r10", "r11", "r12", "r13", "r14", "r15", "rip",
};

/* What a synthetic pointer needs to be followed: the variable's DIE and
 * the function context its location is evaluated in. */
struct synth {
	Dwarf_Die die;
	Dwarf_Die fn;
	int has_fn;
	uint64_t bias;
	int64_t off;
};

struct ptd_value *ptd__val_new(struct vtype *t)
{
	struct ptd_value *val = calloc(1, sizeof(*val));
	uint64_t sz = ptd__vt_size(t);

	if (!val)
		return NULL;
	val->type = t;
	val->buf = calloc(1, sz ? sz : 1);
	if (!val->buf) {
		free(val);
		return NULL;
	}
	return val;
}

struct ptd_value *ptd__val_copy(const struct ptd_value *val)
{
	struct ptd_value *c = malloc(sizeof(*c));
	uint64_t sz = ptd__vt_size(val->type);

	if (!c)
		return NULL;
	*c = *val;
	c->whatis_type = NULL;
	c->buf = malloc(sz ? sz : 1);
	if (!c->buf) {
		free(c);
		return NULL;
	}
	memcpy(c->buf, val->buf, sz ? sz : 1);
	if (val->synth) {
		c->synth = malloc(sizeof(*c->synth));
		if (!c->synth) {
			free(c->buf);
			free(c);
			return NULL;
		}
		*c->synth = *val->synth;
	}
	if (val->mask) {
		c->mask = malloc(sz ? sz : 1);
		if (!c->mask) {
			free(c->synth);
			free(c->buf);
			free(c);
			return NULL;
		}
		memcpy(c->mask, val->mask, sz ? sz : 1);
	}
	return c;
}

int ptd__val_bytes_state(const struct ptd_value *val, uint64_t off, uint64_t len)
{
	uint64_t sz = ptd__vt_size(val->type);

	if (!val->mask)
		return VAL_BYTE_OK;
	for (uint64_t i = off; i < off + len && i < sz; i++)
		if (val->mask[i] != VAL_BYTE_OK)
			return val->mask[i];
	return VAL_BYTE_OK;
}

void ptd_value_free(struct ptd_value *val)
{
	if (!val)
		return;
	free(val->buf);
	free(val->mask);
	free(val->synth);
	free(val);
}

int ptd__mem_read(struct ptd_values *v, uint64_t addr, void *buf, size_t n)
{
	long got = -1;

	if (v->read)
		got = v->read(v->ctx, addr, buf, n);
	v->used_memory = 1;
	if (got < 0 || (size_t)got < n)
		return ptd__err(-ptde_nomap, "Cannot access memory at address 0x%llx",
				(unsigned long long)(addr + (got > 0 ? (uint64_t)got : 0)));
	return 0;
}

/* A value fetched from memory while ptd_values_watch_chain() evaluates:
 * one of the places a watchpoint watches (gdb's value chain). */
static void chain_note(struct ptd_values *v, const struct ptd_value *val, uint64_t size, int ok)
{
	struct vtype *t = ptd__vt_strip(val->type);
	struct ptd__chain_val *c;

	if (!v->chain_on || val->lval != LV_MEM)
		return;
	if (ok && v->nchain >= (int)(sizeof(v->chain) / sizeof(v->chain[0])))
		return;
	c = ok ? &v->chain[v->nchain++] : &v->chain_failed;
	c->addr = val->addr;
	c->size = size;
	c->scalar = t && t->kind != VT_STRUCT && t->kind != VT_ARRAY;
}

int ptd__val_fetch(struct ptd_values *v, struct ptd_value *val)
{
	uint64_t sz = ptd__vt_size(val->type);

	if (!val->lazy)
		return 0;
	if (sz > VAL_MAX_SIZE)
		return ptd__err(-ptde_invalid,
				"value requires %llu bytes, which is more than max-value-size",
				(unsigned long long)sz);
	if (v->type_only) {
		memset(val->buf, 0, sz);
		val->lazy = 0;
		return 0;
	}
	if (val->bit_size) {
		uint8_t raw[16] = { 0 };
		size_t nb = (size_t)(val->bit_off + val->bit_size + 7) / 8;
		uint64_t x = 0;
		int rc;

		if (nb > 8)
			nb = 8;
		rc = ptd__mem_read(v, val->addr, raw, nb);
		if (rc < 0) {
			chain_note(v, val, nb, 0);
			return rc;
		}
		memcpy(&x, raw, 8);
		x >>= val->bit_off;
		if (val->bit_size < 64)
			x &= (1ull << val->bit_size) - 1;
		memcpy(val->buf, &x, sz < 8 ? sz : 8);
		val->lazy = 0;
		chain_note(v, val, nb, 1);
		return 0;
	}
	if (sz) {
		int rc = ptd__mem_read(v, val->addr, val->buf, sz);

		if (rc < 0) {
			chain_note(v, val, sz, 0);
			return rc;
		}
	}
	val->lazy = 0;
	chain_note(v, val, sz, 1);
	return 0;
}

/* ------------------------------------------------------------------ */
/* DWARF expressions                                                    */

enum loc_kind { LOC_MEM, LOC_REG, LOC_VALUE, LOC_UNAVAIL, LOC_OPTOUT, LOC_SYNTH };

struct loc {
	enum loc_kind kind;
	uint64_t v;  /* address, register number or value; LOC_SYNTH: the DIE */
	int64_t off; /* LOC_SYNTH: the byte offset into that variable */
};


struct eval_env {
	struct vframe *f;
	uint64_t bias;
	Dwarf_Attribute *fb_attr; /* the function's DW_AT_frame_base */
	int fb_depth;
	int depth; /* entry values resolved through callers so far */
};

static Dwfl_Module *module_at(struct ptd_values *v, uint64_t pc);
static uint64_t lookup_pc(struct ptd_values *v);

static int eval_ops(struct ptd_values *v, struct eval_env *env, const Dwarf_Op *ops, size_t n,
		    struct loc *out);
static int reg_at_entry(struct ptd_values *v, const struct vframe *f0, uint64_t reg, uint64_t *x,
			int depth);

static int get_reg(struct vframe *f, unsigned r, uint64_t *val)
{
	if (r >= NDREGS || !(f->known & (1u << r)))
		return -1;
	*val = f->regs[r];
	return 0;
}

static int frame_base(struct ptd_values *v, struct eval_env *env, uint64_t *fb)
{
	Dwarf_Op *ops;
	size_t n;
	struct loc l;
	uint64_t pc = env->f->level > 0 ? env->f->pc - 1 : env->f->pc;

	if (!env->fb_attr || env->fb_depth > 0)
		return -1;
	if (dwarf_getlocation_addr(env->fb_attr, pc - env->bias, &ops, &n, 1) != 1)
		return -1;
	env->fb_depth++;
	if (eval_ops(v, env, ops, n, &l) < 0) {
		env->fb_depth--;
		return -1;
	}
	env->fb_depth--;
	if (l.kind == LOC_MEM || l.kind == LOC_VALUE) {
		*fb = l.v;
		return 0;
	}
	if (l.kind == LOC_REG)
		return get_reg(env->f, (unsigned)l.v, fb);
	return -1;
}

#define STACK_MAX 64

/* Returns 0 with *out set (LOC_UNAVAIL when it needs what is unknown),
 * or <0 for an expression it does not understand. */
static int eval_ops(struct ptd_values *v, struct eval_env *env, const Dwarf_Op *ops, size_t n,
		    struct loc *out)
{
	uint64_t st[STACK_MAX], a, b;
	int sp = 0;
	size_t i;

	out->kind = LOC_MEM;
	out->v = 0;
#define PUSH(x)                                                      \
	do {                                                         \
		if (sp == STACK_MAX)                                 \
			return -1;                                   \
		st[sp++] = (x);                                      \
	} while (0)
#define POP(x)                                                       \
	do {                                                         \
		if (!sp)                                             \
			return -1;                                   \
		(x) = st[--sp];                                      \
	} while (0)
#define UNAVAIL()                                                    \
	do {                                                         \
		out->kind = LOC_UNAVAIL;                             \
		return 0;                                            \
	} while (0)
	for (i = 0; i < n; i++) {
		uint8_t op = ops[i].atom;

		if (op >= DW_OP_lit0 && op <= DW_OP_lit31) {
			PUSH((uint64_t)(op - DW_OP_lit0));
		} else if (op >= DW_OP_reg0 && op <= DW_OP_reg31) {
			out->kind = LOC_REG;
			out->v = (uint64_t)(op - DW_OP_reg0);
			return 0;
		} else if (op >= DW_OP_breg0 && op <= DW_OP_breg31) {
			if (get_reg(env->f, op - DW_OP_breg0, &a) < 0)
				UNAVAIL();
			PUSH(a + (uint64_t)(int64_t)ops[i].number);
		} else {
			switch (op) {
			case DW_OP_addr:
				PUSH(ops[i].number + env->bias);
				break;
			case DW_OP_const1u: case DW_OP_const2u: case DW_OP_const4u:
			case DW_OP_const8u: case DW_OP_constu: case DW_OP_const1s:
			case DW_OP_const2s: case DW_OP_const4s: case DW_OP_const8s:
			case DW_OP_consts:
				PUSH(ops[i].number);
				break;
			case DW_OP_regx:
				out->kind = LOC_REG;
				out->v = ops[i].number;
				return 0;
			case DW_OP_bregx:
				if (get_reg(env->f, (unsigned)ops[i].number, &a) < 0)
					UNAVAIL();
				PUSH(a + ops[i].number2);
				break;
			case DW_OP_fbreg:
				if (frame_base(v, env, &a) < 0)
					UNAVAIL();
				PUSH(a + (uint64_t)(int64_t)ops[i].number);
				break;
			case DW_OP_call_frame_cfa:
				if (!env->f->cfa_known)
					UNAVAIL();
				PUSH(env->f->cfa);
				break;
			case DW_OP_dup:
				POP(a);
				PUSH(a);
				PUSH(a);
				break;
			case DW_OP_drop:
				POP(a);
				break;
			case DW_OP_over:
				if (sp < 2)
					return -1;
				a = st[sp - 2];
				PUSH(a);
				break;
			case DW_OP_swap:
				POP(a);
				POP(b);
				PUSH(a);
				PUSH(b);
				break;
			case DW_OP_deref:
			case DW_OP_deref_size: {
				uint64_t x = 0;
				size_t sz = op == DW_OP_deref ? 8 : (size_t)ops[i].number;

				POP(a);
				if (sz > 8 || ptd__mem_read(v, a, &x, sz) < 0)
					UNAVAIL();
				PUSH(x);
				break;
			}
			case DW_OP_plus_uconst:
				POP(a);
				PUSH(a + ops[i].number);
				break;
			case DW_OP_plus: POP(b); POP(a); PUSH(a + b); break;
			case DW_OP_minus: POP(b); POP(a); PUSH(a - b); break;
			case DW_OP_mul: POP(b); POP(a); PUSH(a * b); break;
			case DW_OP_and: POP(b); POP(a); PUSH(a & b); break;
			case DW_OP_or: POP(b); POP(a); PUSH(a | b); break;
			case DW_OP_xor: POP(b); POP(a); PUSH(a ^ b); break;
			case DW_OP_shl: POP(b); POP(a); PUSH(b < 64 ? a << b : 0); break;
			case DW_OP_shr: POP(b); POP(a); PUSH(b < 64 ? a >> b : 0); break;
			case DW_OP_neg: POP(a); PUSH(-a); break;
			case DW_OP_not: POP(a); PUSH(~a); break;
			case DW_OP_stack_value:
				POP(a);
				out->kind = LOC_VALUE;
				out->v = a;
				return 0;
			case DW_OP_implicit_value:
				out->kind = LOC_OPTOUT; /* rare at -O0; shown as optimized out */
				return 0;
			case DW_OP_implicit_pointer:
			case DW_OP_GNU_implicit_pointer:
				/* a pointer optimised away, to another variable */
				out->kind = LOC_SYNTH;
				out->v = ops[i].number;
				out->off = (int64_t)ops[i].number2;
				return 0;
			case DW_OP_GNU_entry_value:
			case DW_OP_entry_value: {
				/* the value a register had when the function was
				 * entered, from the caller's call site (gdb
				 * resolves the register forms only, as here) */
				const uint8_t *blk = (const uint8_t *)(uintptr_t)ops[i].number2;
				uint64_t r = NDREGS;

				/* libdw points number2 just after the opcode, at
				 * the block's ULEB128 length (one byte here) */
				if (blk && ops[i].number < 0x80 && blk[-1] == op &&
				    blk[0] == ops[i].number)
					blk += 1;
				if (blk && ops[i].number == 1 && blk[0] >= DW_OP_reg0 &&
				    blk[0] <= DW_OP_reg31)
					r = blk[0] - DW_OP_reg0;
				int mem = v->used_memory;

				if (r >= NDREGS || reg_at_entry(v, env->f, r, &a, env->depth) < 0) {
					/* (what a failed search read shows in no
					 * value) */
					v->used_memory = mem;
					out->kind = LOC_OPTOUT;
					return 0;
				}
				PUSH(a);
				break;
			}
			case DW_OP_piece:
			case DW_OP_bit_piece:
				out->kind = LOC_OPTOUT;
				return 0;
			case DW_OP_nop:
				break;
			case DW_OP_form_tls_address:
			case DW_OP_GNU_push_tls_address:
				/* errno, __thread: the TLS block's place needs
				 * libthread_db's view of the thread */
				v->bad_op = op;
				return -2;
			default:
				v->bad_op = op;
				return -1;
			}
		}
	}
	if (!sp)
		out->kind = LOC_OPTOUT; /* an empty expression: optimized out */
	else
		out->v = st[sp - 1];
	return 0;
#undef PUSH
#undef POP
#undef UNAVAIL
}

/* A composite location (DW_OP_piece): each piece's own location
 * description, evaluated alone, and its size in bytes.  Bit pieces that
 * are not whole bytes, and pieces past @size, leave their bytes not known. */
#define MAX_PIECES 32

static int has_pieces(const Dwarf_Op *ops, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (ops[i].atom == DW_OP_piece || ops[i].atom == DW_OP_bit_piece)
			return 1;
	return 0;
}

/* Fills @val (of @size bytes) from the pieces of @ops: the bytes of
 * registers, memory and computed values, with the mask saying which are
 * optimized out or unavailable.  Returns 0, or <0 for an expression
 * eval_ops does not understand. */
static int eval_pieces(struct ptd_values *v, struct eval_env *env, const Dwarf_Op *ops, size_t n,
		       struct ptd_value *val, uint64_t size)
{
	uint64_t off = 0;
	size_t start = 0;
	int npieces = 0, known = 0;

	val->mask = malloc(size ? size : 1);
	if (!val->mask)
		return ptd__err(-ptde_nomem, "out of memory");
	memset(val->mask, VAL_BYTE_OPTOUT, size ? size : 1);
	for (size_t i = 0; i < n && npieces < MAX_PIECES; i++) {
		struct loc l = { LOC_OPTOUT, 0 };
		uint64_t len, x;
		int state = VAL_BYTE_OK, rc;

		if (ops[i].atom != DW_OP_piece && ops[i].atom != DW_OP_bit_piece)
			continue;
		npieces++;
		if (ops[i].atom == DW_OP_piece) {
			len = ops[i].number;
		} else if (ops[i].number % 8 == 0 && ops[i].number2 == 0) {
			len = ops[i].number / 8;
		} else {
			/* a piece of bits: its bytes stay optimized out */
			off += (ops[i].number + 7) / 8;
			start = i + 1;
			continue;
		}
		if (i > start) {
			rc = eval_ops(v, env, ops + start, i - start, &l);
			if (rc < 0)
				return rc;
		}
		start = i + 1;
		if (off >= size)
			break;
		if (len > size - off)
			len = size - off;
		switch (l.kind) {
		case LOC_MEM:
			if (ptd__mem_read(v, l.v, val->buf + off, (size_t)len) < 0)
				state = VAL_BYTE_UNAVAIL;
			break;
		case LOC_REG:
			/* a register's low bytes, as on x86-64 */
			if (l.v >= NDREGS || !(env->f->known & (1u << l.v)) || len > 8)
				state = VAL_BYTE_UNAVAIL;
			else
				memcpy(val->buf + off, &env->f->regs[l.v], (size_t)len);
			break;
		case LOC_VALUE:
			x = l.v;
			memcpy(val->buf + off, &x, (size_t)(len < 8 ? len : 8));
			break;
		case LOC_UNAVAIL:
			state = VAL_BYTE_UNAVAIL;
			break;
		case LOC_OPTOUT:
		case LOC_SYNTH:
			state = VAL_BYTE_OPTOUT;
			break;
		}
		memset(val->mask + off, state, (size_t)len);
		known |= state == VAL_BYTE_OK;
		off += len;
	}
	if (!known) {
		/* nothing known: the whole value is */
		val->optimized_out = 1;
		for (uint64_t k = 0; k < size; k++)
			if (val->mask[k] == VAL_BYTE_UNAVAIL) {
				val->optimized_out = 0;
				val->unavailable = 1;
				break;
			}
	}
	for (uint64_t k = 0; k < size; k++)
		if (val->mask[k] != VAL_BYTE_OK)
			return 0;
	free(val->mask); /* every byte known */
	val->mask = NULL;
	return 0;
}

/* ------------------------------------------------------------------ */
/* Unwinding with the CFI                                               */

static Dwarf_CFI *cfi_for(struct ptd_values *v, uint64_t pc, uint64_t *bias)
{
	Dwfl *dwfl = ptd__symbols_dwfl(v->sym);
	Dwfl_Module *m = dwfl ? dwfl_addrmodule(dwfl, pc) : NULL;
	Dwarf_CFI *cfi;
	Dwarf_Addr b = 0;

	if (!m)
		return NULL;
	cfi = dwfl_module_eh_cfi(m, &b);
	if (!cfi)
		cfi = dwfl_module_dwarf_cfi(m, &b);
	*bias = b;
	return cfi;
}

static int unwind_frame(struct ptd_values *v, struct vframe *f, struct vframe *caller, Dwarf_Frame *fr,
			uint64_t bias)
{
	Dwarf_Op *ops, mem[3];
	size_t n;
	struct loc l;
	struct eval_env env = { .f = f, .bias = bias };
	int r;

	if (dwarf_frame_cfa(fr, &ops, &n) == 0 && eval_ops(v, &env, ops, n, &l) == 0 &&
	    (l.kind == LOC_MEM || l.kind == LOC_VALUE)) {
		f->cfa = l.v;
		f->cfa_known = 1;
	}
	if (caller) {
		memset(caller, 0, sizeof(*caller));
		caller->level = f->level + 1;
		f->saved_mask = 0;
		for (r = 0; r < NDREGS; r++) {
			if (dwarf_frame_register(fr, r, mem, &ops, &n) != 0)
				continue;
			/* "undefined" (call-clobbered) registers keep the inner
			 * frame's value, as gdb shows them */
			if (n == 0) { /* same value */
				if (f->known & (1u << r)) {
					caller->regs[r] = f->regs[r];
					caller->known |= 1u << r;
				}
				continue;
			}
			if (eval_ops(v, &env, ops, n, &l) < 0)
				continue;
			if (l.kind == LOC_MEM) {
				uint64_t x;

				f->saved_at[r] = l.v;
				f->saved_mask |= 1u << r;
				if (ptd__mem_read(v, l.v, &x, 8) == 0) {
					caller->regs[r] = x;
					caller->known |= 1u << r;
				}
			} else if (l.kind == LOC_VALUE) {
				caller->regs[r] = l.v;
				caller->known |= 1u << r;
			} else if (l.kind == LOC_REG && l.v < NDREGS && (f->known & (1u << l.v))) {
				caller->regs[r] = f->regs[l.v];
				caller->known |= 1u << r;
			}
		}
		/* The caller's sp is the CFA by definition; its pc is the
		 * return address. */
		if (f->cfa_known) {
			caller->regs[7] = f->cfa;
			caller->known |= 1u << 7;
		}
		if (!(caller->known & (1u << 16)))
			return -1;
		caller->pc = caller->regs[16];
		caller->valid = 1;
	}
	return 0;
}

/* Computes @f's CFA and, when @caller is not NULL, the caller's
 * registers.  Returns 0, or -1 when there is no CFI for f's pc. */
static int unwind(struct ptd_values *v, struct vframe *f, struct vframe *caller)
{
	uint64_t bias = 0, lpc = f->level > 0 ? f->pc - 1 : f->pc;
	Dwarf_CFI *cfi = cfi_for(v, lpc, &bias);
	Dwarf_Frame *fr = NULL;
	int rc;

	if (!cfi || dwarf_cfi_addrframe(cfi, lpc - bias, &fr) != 0) {
		/* The innermost frame at code no module maps (a call through
		 * a null or wild pointer): the call just happened, as gdb
		 * assumes there; the return address is at the sp. */
		uint64_t ra;

		if (f->level > 0 || cfi || !(f->known & (1u << 7)) || module_at(v, f->pc) ||
		    ptd__mem_read(v, f->regs[7], &ra, 8) < 0)
			return -1;
		f->cfa = f->regs[7] + 8;
		f->cfa_known = 1;
		f->saved_mask = 1u << 16;
		f->saved_at[16] = f->regs[7];
		if (caller) {
			memset(caller, 0, sizeof(*caller));
			caller->level = f->level + 1;
			/* the callee-saved registers are untouched yet */
			for (int r = 0; r < NDREGS; r++)
				if ((r == 3 || r == 6 || (r >= 12 && r <= 15)) && (f->known & (1u << r))) {
					caller->regs[r] = f->regs[r];
					caller->known |= 1u << r;
				}
			caller->regs[7] = f->cfa;
			caller->regs[16] = ra;
			caller->known |= 1u << 7 | 1u << 16;
			caller->pc = ra;
			caller->valid = 1;
		}
		return 0;
	}
	rc = unwind_frame(v, f, caller, fr, bias);
	free(fr); /* libdw allocates the frame for its caller */
	return rc;
}

/* ------------------------------------------------------------------ */
/* Binding to a thread and frame                                        */

int ptd_values_alloc(struct ptd_values **out)
{
	struct ptd_values *v;

	if (!out)
		return -ptde_invalid;
	v = calloc(1, sizeof(*v));
	if (!v)
		return ptd__err(-ptde_nomem, "out of memory");
	v->frame_args_mode = 1; /* gdb's default, scalars */
	v->print_max = 200;     /* gdb's default print elements */
	ptd__vt_builtins(v);
	if (!v->t_code_ptr || !v->t_flags) {
		ptd_values_free(v);
		return ptd__err(-ptde_nomem, "out of memory");
	}
	*out = v;
	return 0;
}

void ptd_values_free(struct ptd_values *v)
{
	struct vtype *t, *n;
	int i;

	if (!v)
		return;
	for (i = 0; i < v->nhist; i++)
		ptd_value_free(v->hist[i]);
	free(v->hist);
	for (i = 0; i < v->nconv; i++) {
		free(v->conv[i].name);
		ptd_value_free(v->conv[i].val);
	}
	free(v->conv);
	for (i = 0; i < v->nkept; i++)
		ptd_value_free(v->kept[i]);
	free(v->kept);
	for (t = v->types; t; t = n) {
		n = t->next_alloc;
		for (i = 0; i < t->nmembers; i++)
			free(t->members[i].name);
		free(t->members);
		for (i = 0; i < t->nenums; i++)
			free(t->enums[i].name);
		free(t->enums);
		free(t->methods);
		free(t->name);
		free(t);
	}
	free(v->cache);
	free(v);
}

int ptd_values_bind(struct ptd_values *v, const struct ptd_values_target *tg)
{
	struct vframe f, caller;
	int i;

	if (!v || !tg)
		return -ptde_invalid;
	v->sym = tg->symbols;
	v->read = tg->read;
	v->write = tg->write;
	v->set_reg = tg->set_reg;
	v->xstate = tg->xstate;
	v->set_xstate = tg->set_xstate;
	v->ctx = tg->ctx;
	if (tg->ctx_size) {
		if (tg->ctx_size > sizeof(v->ctx_copy))
			return ptd__err(-ptde_invalid, "cannot bind values: context of %zu bytes",
					tg->ctx_size);
		memcpy(v->ctx_copy, tg->ctx, tg->ctx_size);
		v->ctx = v->ctx_copy;
	}
	v->past = tg->past;
	v->used_memory = 0;
	v->used_regs = 0;
	v->pc_only = tg->pc_only;
	/* Types are cached by DIE, and the Dwfl may have been re-reported
	 * since the last command: the cache starts again, and the types only
	 * the last command used are freed (the history keeps its own). */
	ptd__vt_collect(v);
	v->inl_callees = 0;
	memset(&v->frame0, 0, sizeof(v->frame0));
	memset(&v->frame, 0, sizeof(v->frame));
	v->has_regs = tg->regs != NULL;
	if (!tg->regs)
		return 0;
	v->uregs = *tg->regs;
	memset(&f, 0, sizeof(f));
	f.valid = 1;
	f.pc = tg->regs->rip;
	for (i = 0; i < NDREGS; i++)
		memcpy(&f.regs[i], (const char *)tg->regs + dreg_off[i], 8);
	f.known = tg->pc_only ? 1u << 16 : (1u << NDREGS) - 1;
	unwind(v, &f, NULL);
	v->frame0 = f;
	v->inner_cfa_known = 0;
	v->inner_saved_mask = 0;
	for (i = 0; i < tg->level; i++) {
		v->inner_cfa = f.cfa;
		v->inner_cfa_known = f.cfa_known;
		if (unwind(v, &f, &caller) < 0)
			break;
		v->inner_saved_mask = f.saved_mask;
		memcpy(v->inner_saved_at, f.saved_at, sizeof(f.saved_at));
		f = caller;
		unwind(v, &f, NULL);
	}
	v->walk = f;
	v->walk_ok = i == tg->level;
	if (i < tg->level || (tg->level > 0 && f.pc != tg->level_pc)) {
		/* the CFI did not lead to the frame the caller sees: only its
		 * pc is known */
		memset(&f, 0, sizeof(f));
		f.valid = 1;
		f.level = tg->level;
		f.pc = tg->level_pc;
		f.regs[16] = f.pc;
		f.known = 1u << 16;
	}
	v->frame = f;
	return 0;
}

int ptd_values_bind_caller(struct ptd_values *v, uint64_t level_pc)
{
	struct vframe f, caller;
	int level;

	if (!v)
		return -ptde_invalid;
	v->used_memory = 0;
	v->used_regs = 0;
	v->inl_callees = 0;
	if (!v->has_regs)
		return 0;
	/* one more step of ptd_values_bind()'s unwind, from where it was */
	level = v->frame.level + 1;
	f = v->walk;
	if (v->walk_ok) {
		v->inner_cfa = f.cfa;
		v->inner_cfa_known = f.cfa_known;
		if (unwind(v, &f, &caller) == 0) {
			v->inner_saved_mask = f.saved_mask;
			memcpy(v->inner_saved_at, f.saved_at, sizeof(f.saved_at));
			f = caller;
			unwind(v, &f, NULL);
		} else {
			v->walk_ok = 0;
		}
	}
	v->walk = f;
	if (!v->walk_ok || f.pc != level_pc) {
		/* (as ptd_values_bind: only the pc is known there) */
		memset(&f, 0, sizeof(f));
		f.valid = 1;
		f.level = level;
		f.pc = level_pc;
		f.regs[16] = f.pc;
		f.known = 1u << 16;
	}
	v->frame = f;
	return 0;
}

int ptd_values_frame_regs(const struct ptd_values *v, struct user_regs_struct *regs,
			  struct user_regs_struct *known)
{
	uint64_t one = 1, k;
	int i;

	if (!v || !regs || !known)
		return -ptde_invalid;
	if (!v->has_regs)
		return ptd__err(-ptde_not_running, "The program has no registers now.");
	/* eflags and the segment registers: the innermost frame's, as gdb's
	 * unwinder keeps them ("same value") */
	*regs = v->uregs;
	k = v->frame0.known & 1u ? 1 : 0;
	for (i = 0; i < (int)(sizeof(*known) / 8); i++)
		memcpy((char *)known + 8 * i, &k, 8);
	for (i = 0; i < NDREGS; i++) {
		k = (v->frame.known >> i) & 1;
		memcpy((char *)regs + dreg_off[i], &v->frame.regs[i], 8);
		memcpy((char *)known + dreg_off[i], &k, 8);
	}
	memcpy((char *)regs + dreg_off[16], &v->frame.pc, 8);
	memcpy((char *)known + dreg_off[16], &one, 8);
	return 0;
}

int ptd_values_used_exact_regs(const struct ptd_values *v)
{
	return v && v->past && v->has_regs && !v->pc_only && v->used_regs;
}

int ptd_values_used_memory(const struct ptd_values *v)
{
	return v && v->used_memory && v->past;
}

/* ------------------------------------------------------------------ */
/* Variables                                                            */

struct found {
	Dwarf_Die die;
	Dwarf_Die fn; /* enclosing subprogram, for DW_AT_frame_base */
	int has_fn;
	uint64_t bias;
	int ok;
};

static Dwfl_Module *module_at(struct ptd_values *v, uint64_t pc)
{
	Dwfl *dwfl = ptd__symbols_dwfl(v->sym);

	return dwfl ? dwfl_addrmodule(dwfl, pc) : NULL;
}

static uint64_t lookup_pc(struct ptd_values *v)
{
	return v->frame.level > 0 ? v->frame.pc - 1 : v->frame.pc;
}

/* Whether expressions are C++, as gdb's "auto" language decides: from
 * the compile unit of the selected frame's pc, or of main before the
 * program runs. */
int ptd__lang_cplus(struct ptd_values *v)
{
	uint64_t pc = 0, *ents = NULL, *bps = NULL;
	Dwfl_Module *m;
	Dwarf_Die *cu;
	Dwarf_Addr bias;

	if (v->has_regs && v->frame.valid) {
		pc = lookup_pc(v);
	} else {
		if (ptd__symbols_functions(v->sym, "main", &ents, &bps) > 0)
			pc = ents[0];
		free(ents);
		free(bps);
	}
	if (!pc || !(m = module_at(v, pc)) || !(cu = dwfl_module_addrdie(m, pc, &bias)))
		return 0;
	switch (dwarf_srclang(cu)) {
	case DW_LANG_C_plus_plus:
	case DW_LANG_C_plus_plus_03:
	case DW_LANG_C_plus_plus_11:
	case DW_LANG_C_plus_plus_14:
		return 1;
	default:
		return 0;
	}
}

static int is_var(Dwarf_Die *d)
{
	int tag = dwarf_tag(d);

	return tag == DW_TAG_variable || tag == DW_TAG_formal_parameter;
}

/* An enumerator @name among the enumeration types that are children of
 * @scope (C puts enumerators in the scope of their enum). */
static int find_enumerator(Dwarf_Die *scope, const char *name, Dwarf_Die *out)
{
	Dwarf_Die c, e;

	if (dwarf_child(scope, &c) != 0)
		return 0;
	do {
		if (dwarf_tag(&c) != DW_TAG_enumeration_type || dwarf_child(&c, &e) != 0)
			continue;
		do {
			const char *nm = dwarf_diename(&e);

			if (dwarf_tag(&e) == DW_TAG_enumerator && nm && !strcmp(nm, name)) {
				*out = e;
				return 1;
			}
		} while (dwarf_siblingof(&e, &e) == 0);
	} while (dwarf_siblingof(&c, &c) == 0);
	return 0;
}

/* The DWARF scopes of the selected frame at its pc, innermost first, up
 * to its function, then the CU (its file statics and globals), into
 * *@scopes (the caller frees it); the module's bias; the index of the
 * frame's function among them (*@fn, -1 when none): a subprogram, or for
 * the frame of an inlined call its DW_TAG_inlined_subroutine; and the
 * real function around it in *@sub (its DW_AT_frame_base serves the
 * inlined frames too).  Names of the inlined function's variables come
 * through DW_AT_abstract_origin.  Returns the number of scopes, or -1
 * when no debug information covers the pc. */
static int frame_scopes(struct ptd_values *v, Dwarf_Die **scopes, Dwarf_Addr *bias, int *fn,
			Dwarf_Die *sub)
{
	uint64_t pc = lookup_pc(v);
	Dwfl_Module *m = module_at(v, pc);
	Dwarf_Die *cu, *all = NULL, *chain = NULL, *out;
	int n, nc, i, k, start, end, ninl = 0;

	*scopes = NULL;
	*bias = 0;
	*fn = -1;
	memset(sub, 0, sizeof(*sub));
	if (!m || !(cu = dwfl_module_addrdie(m, pc, bias)))
		return -1;
	n = ptd__dwarf_scopes(cu, pc - *bias, &all);
	for (i = 0; i < n; i++)
		ninl += dwarf_tag(&all[i]) == DW_TAG_inlined_subroutine;
	if (n <= 0 || !ninl) {
		for (i = 0; i < n; i++)
			if (dwarf_tag(&all[i]) == DW_TAG_subprogram) {
				*fn = i;
				*sub = all[i];
				break;
			}
		*scopes = all;
		return n;
	}
	/* Inlined code: dwarf_getscopes goes on into the inlined function's
	 * abstract definition; the concrete scopes are the innermost DIE's
	 * parents.  The frame starts after the innermost @inl_callees inlined
	 * calls and ends at the next one (or the real function). */
	nc = dwarf_getscopes_die(&all[0], &chain);
	free(all);
	if (nc <= 0) {
		free(chain);
		return -1;
	}
	for (start = 0, k = 0; start < nc && k < v->inl_callees; start++) {
		int tag = dwarf_tag(&chain[start]);

		if (tag == DW_TAG_subprogram)
			break; /* (more callees than inlined calls: the real frame) */
		if (tag == DW_TAG_inlined_subroutine)
			k++;
	}
	for (end = start; end < nc; end++) {
		int tag = dwarf_tag(&chain[end]);

		if (tag == DW_TAG_inlined_subroutine || tag == DW_TAG_subprogram)
			break;
	}
	for (i = end; i < nc; i++)
		if (dwarf_tag(&chain[i]) == DW_TAG_subprogram) {
			*sub = chain[i];
			break;
		}
	out = malloc(sizeof(*out) * (size_t)(nc + 1));
	if (!out) {
		free(chain);
		return -1;
	}
	k = 0;
	for (i = start; i <= end && i < nc; i++)
		out[k++] = chain[i];
	if (end < nc)
		*fn = k - 1;
	if (dwarf_tag(&chain[nc - 1]) == DW_TAG_compile_unit)
		out[k++] = chain[nc - 1];
	free(chain);
	*scopes = out;
	return k;
}

int ptd_values_select_inline(struct ptd_values *v, int callees)
{
	if (!v || callees < 0)
		return -ptde_invalid;
	v->inl_callees = callees;
	return 0;
}

/* The abstract origin of @d, followed to the end of the chain. */
static int origin_of(Dwarf_Die *d, Dwarf_Die *o)
{
	Dwarf_Attribute a;
	Dwarf_Die cur = *d;
	int k = 0;

	while (k < 8 && dwarf_attr(&cur, DW_AT_abstract_origin, &a) && dwarf_formref_die(&a, o)) {
		cur = *o;
		k++;
	}
	return k > 0;
}

/*
 * The children of scope @scope whose variables are visible in it, into
 * *@out (malloc'ed; the count returned, <0 when out of memory): its own,
 * then for an inlined call (or any DIE with DW_AT_abstract_origin) the
 * children of the abstract function that no direct child refers to -- gdb
 * gives the inlined function's block those too, with no location (a
 * variable gcc put in a nested block is then listed twice, the second
 * time <optimized out>, as gdb lists it).
 */
static int scope_children(Dwarf_Die *scope, Dwarf_Die **out)
{
	Dwarf_Die c, origin, o, *v = NULL;
	Dwarf_Off *refs = NULL;
	int n = 0, cap = 0, nref = 0, capref = 0, has_origin = origin_of(scope, &origin);

	*out = NULL;
#define PUSH_DIE(arr, cnt, capv, x)                                                \
	do {                                                                       \
		if ((cnt) == (capv)) {                                             \
			void *nn = realloc((arr), sizeof(*(arr)) * (size_t)((capv) ? (capv) * 2 : 16)); \
			if (!nn)                                                   \
				goto oom;                                          \
			(arr) = nn;                                                \
			(capv) = (capv) ? (capv) * 2 : 16;                         \
		}                                                                  \
		(arr)[(cnt)++] = (x);                                              \
	} while (0)
	if (dwarf_child(scope, &c) == 0) {
		do {
			PUSH_DIE(v, n, cap, c);
			if (has_origin && dwarf_tag(&c) != DW_TAG_call_site &&
			    dwarf_tag(&c) != DW_TAG_GNU_call_site && origin_of(&c, &o))
				PUSH_DIE(refs, nref, capref, dwarf_dieoffset(&o));
		} while (dwarf_siblingof(&c, &c) == 0);
	}
	if (has_origin && dwarf_child(&origin, &c) == 0) {
		do {
			int tag = dwarf_tag(&c), i;
			Dwarf_Off off = dwarf_dieoffset(&c);

			if (tag != DW_TAG_variable && tag != DW_TAG_formal_parameter)
				continue;
			for (i = 0; i < nref && refs[i] != off; i++)
				;
			if (i == nref)
				PUSH_DIE(v, n, cap, c);
		} while (dwarf_siblingof(&c, &c) == 0);
	}
#undef PUSH_DIE
	free(refs);
	*out = v;
	return n;
oom:
	free(refs);
	free(v);
	return -1;
}

/* Searches the scopes at the frame's pc, innermost first (the CU last:
 * its file statics and globals). */
/* Notes @scope as the block an expression depends on when variable @var
 * found there needs the frame (not a static: a lone DW_OP_addr), keeping
 * the innermost (the narrowest range) of those the evaluation used. */
static void note_block(struct ptd_values *v, Dwarf_Die *scope, Dwarf_Die *var, Dwarf_Addr bias)
{
	Dwarf_Attribute a;
	Dwarf_Op *ops;
	size_t nops;
	Dwarf_Addr base, start, end, lo = UINT64_MAX, hi = 0;
	ptrdiff_t off = 0;

	if (dwarf_tag(scope) == DW_TAG_compile_unit)
		return;
	if (dwarf_attr_integrate(var, DW_AT_location, &a) && dwarf_getlocation(&a, &ops, &nops) == 0 &&
	    nops == 1 && ops[0].atom == DW_OP_addr)
		return;
	while ((off = dwarf_ranges(scope, off, &base, &start, &end)) > 0) {
		if (start < lo)
			lo = start;
		if (end > hi)
			hi = end;
	}
	if (lo >= hi)
		return;
	lo += bias;
	hi += bias;
	if (!v->blk_known || hi - lo < v->blk_hi - v->blk_lo) {
		v->blk_lo = lo;
		v->blk_hi = hi;
		v->blk_known = 1;
	}
}

int ptd_values_expr_block(const struct ptd_values *v, uint64_t *lo, uint64_t *hi)
{
	if (!v || !lo || !hi)
		return -ptde_invalid;
	*lo = v->blk_lo;
	*hi = v->blk_hi;
	return v->blk_known;
}

int ptd_values_in_block(const struct ptd_values *v, uint64_t lo, uint64_t hi)
{
	uint64_t pc;

	if (!v || !v->has_regs || !v->frame.valid)
		return 0;
	pc = v->frame.level > 0 ? v->frame.pc - 1 : v->frame.pc;
	return pc >= lo && pc < hi;
}

static int find_scoped(struct ptd_values *v, const char *name, struct found *fd)
{
	Dwarf_Die *scopes = NULL, c, sub;
	Dwarf_Addr bias = 0;
	int n, i, fn = -1;

	if (!v->has_regs || !v->frame.valid)
		return 0;
	n = frame_scopes(v, &scopes, &bias, &fn, &sub);
	if (n < 0)
		return 0;
	for (i = 0; i < n && !fd->ok; i++) {
		Dwarf_Die *kids = NULL;
		int nk = scope_children(&scopes[i], &kids);

		for (int j = 0; j < nk; j++) {
			const char *nm;

			c = kids[j];
			if (!is_var(&c))
				continue;
			nm = dwarf_diename(&c);
			if (nm && !strcmp(nm, name)) {
				fd->die = c;
				fd->ok = 1;
				note_block(v, &scopes[i], &c, bias);
				break;
			}
		}
		free(kids);
		if (!fd->ok && find_enumerator(&scopes[i], name, &fd->die))
			fd->ok = 1;
	}
	if (fd->ok) {
		fd->bias = bias;
		if (fn >= 0) {
			fd->fn = sub;
			fd->has_fn = 1;
		}
	}
	free(scopes);
	return fd->ok;
}

struct gsearch {
	const char *name;
	struct found *fd;
	int want_fn; /* DW_TAG_subprogram instead of variables */
	int lax;     /* also variables without a location (info address) */
	int ext;     /* only external ones: gdb's global block, searched
		      * before the static symbols of other files */
};

static int search_cu(Dwarf_Die *cu, struct gsearch *gs)
{
	Dwarf_Die c;

	if (!gs->want_fn && !gs->ext && find_enumerator(cu, gs->name, &gs->fd->die)) {
		gs->fd->ok = 1;
		return 1;
	}
	if (dwarf_child(cu, &c) != 0)
		return 0;
	do {
		const char *nm;
		int tag = dwarf_tag(&c);

		if (gs->want_fn ? tag != DW_TAG_subprogram : tag != DW_TAG_variable)
			continue;
		nm = dwarf_diename(&c);
		if (!nm || strcmp(nm, gs->name))
			continue;
		if (gs->ext && !dwarf_hasattr_integrate(&c, DW_AT_external))
			continue;
		if (gs->want_fn ? !dwarf_hasattr(&c, DW_AT_low_pc)
				: !gs->lax && !dwarf_hasattr(&c, DW_AT_location) &&
					  !dwarf_hasattr(&c, DW_AT_const_value))
			continue;
		gs->fd->die = c;
		gs->fd->ok = 1;
		return 1;
	} while (dwarf_siblingof(&c, &c) == 0);
	return 0;
}

static int search_one_cu(Dwarf_Die *cu, Dwarf_Addr bias, void *arg)
{
	struct gsearch *gs = arg;

	if (!search_cu(cu, gs))
		return 0;
	gs->fd->bias = bias;
	return 1;
}

static int search_mod(Dwfl_Module *m, void **ud, const char *n, Dwarf_Addr a, void *arg)
{
	(void)ud, (void)n, (void)a;
	return ptd__dw_each_cu(m, search_one_cu, arg) ? DWARF_CB_ABORT : DWARF_CB_OK;
}

/* C++ qualified names ("geo::count", "Shape::instances"): the
 * declaration found by walking namespaces and classes, then the
 * definition that names it with DW_AT_specification when the
 * declaration has no location of its own. */
#define MAX_QUAL 8

static int find_decl(Dwarf_Die *scope, char **parts, int np, int want_fn, Dwarf_Die *out)
{
	Dwarf_Die c;

	if (dwarf_child(scope, &c) != 0)
		return 0;
	do {
		int tag = dwarf_tag(&c);
		const char *nm = dwarf_diename(&c);

		if (!nm || strcmp(nm, parts[0]))
			continue;
		if (np > 1) {
			if ((tag == DW_TAG_namespace || tag == DW_TAG_structure_type ||
			     tag == DW_TAG_class_type || tag == DW_TAG_union_type) &&
			    find_decl(&c, parts + 1, np - 1, want_fn, out))
				return 1;
			continue;
		}
		if (want_fn ? tag == DW_TAG_subprogram
			    : tag == DW_TAG_variable || tag == DW_TAG_member) {
			*out = c;
			return 1;
		}
	} while (dwarf_siblingof(&c, &c) == 0);
	return 0;
}

struct qsearch {
	char **parts;
	int np, want_fn;
	struct found *fd;
};

static int qualified_in_cu(Dwarf_Die *cu, Dwarf_Addr bias, void *arg)
{
	struct qsearch *q = arg;
	Dwarf_Die decl, c;
	Dwarf_Off want;

	if (!find_decl(cu, q->parts, q->np, q->want_fn, &decl))
		return 0;
	if (q->want_fn ? dwarf_hasattr(&decl, DW_AT_low_pc)
		       : dwarf_hasattr(&decl, DW_AT_location) || dwarf_hasattr(&decl, DW_AT_const_value)) {
		q->fd->die = decl;
		q->fd->ok = 1;
		q->fd->bias = bias;
		return 1;
	}
	want = dwarf_dieoffset(&decl);
	if (dwarf_child(cu, &c) != 0)
		return 0;
	do {
		Dwarf_Attribute a;
		Dwarf_Die spec;
		int tag = dwarf_tag(&c);

		if (q->want_fn ? tag != DW_TAG_subprogram : tag != DW_TAG_variable)
			continue;
		if (!dwarf_attr(&c, DW_AT_specification, &a) || !dwarf_formref_die(&a, &spec) ||
		    dwarf_dieoffset(&spec) != want)
			continue;
		if (q->want_fn ? !dwarf_hasattr(&c, DW_AT_low_pc)
			       : !dwarf_hasattr(&c, DW_AT_location) && !dwarf_hasattr(&c, DW_AT_const_value))
			continue;
		q->fd->die = c;
		q->fd->ok = 1;
		q->fd->bias = bias;
		return 1;
	} while (dwarf_siblingof(&c, &c) == 0);
	return 0;
}

static int qualified_in_mod(Dwfl_Module *m, void **ud, const char *n, Dwarf_Addr a, void *arg)
{
	(void)ud, (void)n, (void)a;
	return ptd__dw_each_cu(m, qualified_in_cu, arg) ? DWARF_CB_ABORT : DWARF_CB_OK;
}

static int find_qualified(struct ptd_values *v, const char *name, int want_fn, struct found *fd)
{
	char buf[256], *parts[MAX_QUAL], *p = buf;
	int np = 0;
	Dwfl *dwfl = ptd__symbols_dwfl(v->sym);

	if (snprintf(buf, sizeof(buf), "%s", name) >= (int)sizeof(buf) || !dwfl)
		return 0;
	while (np < MAX_QUAL) {
		char *sep = strstr(p, "::");

		parts[np++] = p;
		if (!sep)
			break;
		*sep = 0;
		p = sep + 2;
	}
	if (strstr(p, "::"))
		return 0; /* deeper than MAX_QUAL */
	struct qsearch q = { parts, np, want_fn, fd };

	dwfl_getmodules(dwfl, qualified_in_mod, &q, 0);
	return fd->ok;
}

/* @want_fn: 1 a function, 0 a variable, -1 a variable even without a
 * location.  Externals first (gdb's global symbols: a program's function
 * wins over an enumerator of the same name in a library), then the
 * static symbols of every file. */
static int find_global(struct ptd_values *v, const char *name, int want_fn, struct found *fd)
{
	struct gsearch gs = { name, fd, want_fn > 0, want_fn < 0, 1 };
	Dwfl *dwfl = ptd__symbols_dwfl(v->sym);

	if (!dwfl)
		return 0;
	dwfl_getmodules(dwfl, search_mod, &gs, 0);
	if (fd->ok)
		return 1;
	gs.ext = 0;
	dwfl_getmodules(dwfl, search_mod, &gs, 0);
	return fd->ok;
}

/* A variable or a function, the externals of either before the statics. */
static int find_global_any(struct ptd_values *v, const char *name, struct found *fd, int *is_fn)
{
	Dwfl *dwfl = ptd__symbols_dwfl(v->sym);

	for (int ext = 1; ext >= 0 && dwfl; ext--)
		for (int fn = 0; fn <= 1; fn++) {
			struct gsearch gs = { name, fd, fn, 0, ext };

			memset(fd, 0, sizeof(*fd));
			dwfl_getmodules(dwfl, search_mod, &gs, 0);
			if (fd->ok) {
				*is_fn = fn;
				return 1;
			}
		}
	return 0;
}

/* An enumerator's value has its enum's type: find the enum that holds it
 * (libdw has no parent links; scan the CU). */
static int enum_parent(Dwarf_Die *scope, Dwarf_Off want, Dwarf_Die *out, int depth)
{
	Dwarf_Die c, e;

	if (depth > 8 || dwarf_child(scope, &c) != 0)
		return 0;
	do {
		if (dwarf_tag(&c) == DW_TAG_enumeration_type && dwarf_child(&c, &e) == 0) {
			do {
				if (dwarf_dieoffset(&e) == want) {
					*out = c;
					return 1;
				}
			} while (dwarf_siblingof(&e, &e) == 0);
		}
		if (dwarf_haschildren(&c) && dwarf_tag(&c) != DW_TAG_enumeration_type &&
		    enum_parent(&c, want, out, depth + 1))
			return 1;
	} while (dwarf_siblingof(&c, &c) == 0);
	return 0;
}

static int enumerator_value(struct ptd_values *v, struct found *fd, struct ptd_value **out)
{
	Dwarf_Die cu, et;
	Dwarf_Attribute a;
	Dwarf_Sword sv = 0;
	struct vtype *t = v->t_int;
	struct ptd_value *val;

	if (dwarf_diecu(&fd->die, &cu, NULL, NULL) &&
	    enum_parent(&cu, dwarf_dieoffset(&fd->die), &et, 0))
		t = ptd__vt_from_die(v, &et);
	if (!t)
		return ptd__err(-ptde_nomem, "out of memory");
	if (dwarf_attr(&fd->die, DW_AT_const_value, &a))
		dwarf_formsdata(&a, &sv);
	val = ptd__val_new(t);
	if (!val)
		return ptd__err(-ptde_nomem, "out of memory");
	memcpy(val->buf, &sv, ptd__vt_size(t) < 8 ? ptd__vt_size(t) : 8);
	*out = val;
	return 0;
}

struct ptd_value *ptd__val_referent(const struct ptd_value *ref, uint64_t addr)
{
	struct ptd_value *r = ptd__val_new(ptd__vt_strip(ref->type)->target);

	if (!r)
		return NULL;
	r->lval = LV_MEM;
	r->addr = addr;
	r->lazy = 1;
	r->ref_type = ref->type;
	r->ref_addr = addr;
	return r;
}

/* A C++ reference variable is its referent: an lvalue at the address
 * the reference holds, remembering the reference's type for printing. */
static int deref_reference(struct ptd_values *v, struct ptd_value **io)
{
	struct ptd_value *val = *io, *r;
	struct vtype *st = ptd__vt_strip(val->type);
	uint64_t addr = 0;

	if (!st || st->kind != VT_REF || !st->target || val->optimized_out || val->unavailable ||
	    val->not_saved || val->synthetic || val->mask)
		return 0;
	if (ptd__val_fetch(v, val) < 0) {
		ptd_clear_error();
		val->unavailable = 1;
		return 0;
	}
	memcpy(&addr, val->buf, 8);
	r = ptd__val_referent(val, addr);
	if (!r)
		return ptd__err(-ptde_nomem, "out of memory");
	ptd_value_free(val);
	*io = r;
	return 0;
}

/* The value of variable DIE @fd (a location or a constant). */
static int var_value(struct ptd_values *v, struct found *fd, struct ptd_value **out)
{
	Dwarf_Attribute loc, fb;
	struct vtype *t;
	struct ptd_value *val;
	Dwarf_Attribute ta;
	Dwarf_Die td;
	Dwarf_Op *ops;
	size_t n;
	struct loc l;
	struct eval_env env = { .f = &v->frame, .bias = fd->bias };
	int rc;

	if (dwarf_tag(&fd->die) == DW_TAG_enumerator)
		return enumerator_value(v, fd, out);
	if (dwarf_attr_integrate(&fd->die, DW_AT_type, &ta) && dwarf_formref_die(&ta, &td))
		t = ptd__vt_from_die(v, &td);
	else
		t = v->t_int;
	if (!t)
		return ptd__err(-ptde_nomem, "out of memory");
	if (ptd__vt_size(t) > VAL_MAX_SIZE)
		return ptd__err(-ptde_invalid,
				"value requires %llu bytes, which is more than max-value-size",
				(unsigned long long)ptd__vt_size(t));
	val = ptd__val_new(t);
	if (!val)
		return ptd__err(-ptde_nomem, "out of memory");
	if (fd->has_fn && dwarf_attr_integrate(&fd->fn, DW_AT_frame_base, &fb))
		env.fb_attr = &fb;
	if (dwarf_attr(&fd->die, DW_AT_const_value, &loc)) {
		Dwarf_Sword sv = 0;
		Dwarf_Block blk;

		if (dwarf_formsdata(&loc, &sv) == 0)
			memcpy(val->buf, &sv, ptd__vt_size(t) < 8 ? ptd__vt_size(t) : 8);
		else if (dwarf_formblock(&loc, &blk) == 0)
			memcpy(val->buf, blk.data,
			       blk.length < ptd__vt_size(t) ? blk.length : ptd__vt_size(t));
		*out = val;
		return 0;
	}
	if (!dwarf_attr_integrate(&fd->die, DW_AT_location, &loc)) {
		val->optimized_out = 1;
		*out = val;
		return 0;
	}
	rc = dwarf_getlocation_addr(&loc, lookup_pc(v) - fd->bias, &ops, &n, 1);
	if (rc != 1) {
		/* static storage has a single location, valid without a pc */
		if (dwarf_getlocation(&loc, &ops, &n) != 0) {
			val->optimized_out = 1;
			*out = val;
			return 0;
		}
	}
	v->bad_op = 0;
	if (has_pieces(ops, n)) {
		rc = eval_pieces(v, &env, ops, n, val, ptd__vt_size(t));
		if (rc == -2 || (rc < 0 && rc != -ptde_nomem && v->bad_op)) {
			ptd_value_free(val);
			if (rc == -2)
				return ptd__err(-ptde_unsupported,
						"Cannot access thread-local variables: ptdbg does not read TLS");
			return ptd__err(-ptde_unsupported, "Unhandled dwarf expression opcode 0x%x",
					v->bad_op);
		}
		if (rc < 0) {
			ptd_value_free(val);
			return rc == -ptde_nomem ? rc
						 : ptd__err(-ptde_bad_trace, "malformed DWARF location expression");
		}
		if (fd->has_fn)
			v->used_regs = 1;
		*out = val; /* not an lvalue: its bytes live in several places */
		return 0;
	}
	rc = eval_ops(v, &env, ops, n, &l);
	if (rc == -2) {
		ptd_value_free(val);
		return ptd__err(-ptde_unsupported,
				"Cannot access thread-local variables: ptdbg does not read TLS");
	}
	if (rc < 0) {
		ptd_value_free(val);
		if (!v->bad_op) /* a stack underflow or overflow */
			return ptd__err(-ptde_bad_trace, "malformed DWARF location expression");
		return ptd__err(-ptde_unsupported, "Unhandled dwarf expression opcode 0x%x",
				v->bad_op);
	}
	if (fd->has_fn && l.kind != LOC_UNAVAIL && l.kind != LOC_OPTOUT && l.kind != LOC_SYNTH)
		v->used_regs = 1; /* a frame's variable: found through its registers */
	switch (l.kind) {
	case LOC_MEM:
		val->lval = LV_MEM;
		val->addr = l.v;
		val->lazy = 1;
		break;
	case LOC_REG:
		val->lval = LV_REG;
		val->regno = (int)l.v;
		if (l.v >= NDREGS || !(v->frame.known & (1u << l.v)))
			val->unavailable = 1;
		else
			memcpy(val->buf, &v->frame.regs[l.v],
			       ptd__vt_size(t) < 8 ? ptd__vt_size(t) : 8);
		break;
	case LOC_VALUE:
		memcpy(val->buf, &l.v, ptd__vt_size(t) < 8 ? ptd__vt_size(t) : 8);
		break;
	case LOC_UNAVAIL:
		val->unavailable = 1;
		break;
	case LOC_OPTOUT:
		val->optimized_out = 1;
		break;
	case LOC_SYNTH: {
		Dwarf *dbg = dwarf_cu_getdwarf(fd->die.cu);

		val->synthetic = 1;
		val->synth = calloc(1, sizeof(*val->synth));
		if (val->synth && (!dbg || !dwarf_offdie(dbg, l.v, &val->synth->die))) {
			free(val->synth); /* a DIE that is not there: not followed */
			val->synth = NULL;
		} else if (val->synth) {
			val->synth->fn = fd->fn;
			val->synth->has_fn = fd->has_fn;
			val->synth->bias = fd->bias;
			val->synth->off = l.off;
		}
		break;
	}
	}
	*out = val;
	return deref_reference(v, out);
}

int ptd__val_synth_deref(struct ptd_values *v, const struct ptd_value *ptr, struct ptd_value **out)
{
	struct vtype *ps = ptd__vt_strip(ptr->type), *t;
	struct ptd_value *target = NULL, *r;
	struct found fd = { 0 };
	uint64_t sz, tsz;
	int64_t off;
	int rc;

	if (!ptr->synthetic || !ptr->synth || !ps || ps->kind != VT_PTR || !ps->target)
		return ptd__err(-ptde_unsupported, "cannot follow this synthetic pointer");
	if (v->synth_depth > 8) /* pointers to pointers to ...: DWARF is untrusted */
		return ptd__err(-ptde_bad_trace, "synthetic pointers nested too deeply");
	t = ps->target;
	fd.die = ptr->synth->die;
	fd.fn = ptr->synth->fn;
	fd.has_fn = ptr->synth->has_fn;
	fd.bias = ptr->synth->bias;
	fd.ok = 1;
	v->synth_depth++;
	rc = var_value(v, &fd, &target);
	v->synth_depth--;
	if (rc < 0)
		return rc;
	sz = ptd__vt_size(t);
	tsz = ptd__vt_size(target->type);
	off = ptr->synth->off;
	if (off < 0 || (uint64_t)off > tsz || sz > tsz - (uint64_t)off) {
		ptd_value_free(target);
		return ptd__err(-ptde_bad_trace, "a synthetic pointer points outside its variable");
	}
	r = ptd__val_new(t);
	if (!r) {
		ptd_value_free(target);
		return ptd__err(-ptde_nomem, "out of memory");
	}
	if (target->lval == LV_MEM) {
		/* the variable is in memory after all: an lvalue there */
		r->lval = LV_MEM;
		r->addr = target->addr + (uint64_t)off;
		r->lazy = 1;
	} else if (target->optimized_out || target->unavailable) {
		r->optimized_out = target->optimized_out;
		r->unavailable = target->unavailable;
	} else {
		rc = ptd__val_fetch(v, target);
		if (rc < 0) {
			ptd_value_free(target);
			ptd_value_free(r);
			return rc;
		}
		memcpy(r->buf, target->buf + off, sz);
		if (target->mask) {
			int st = ptd__val_bytes_state(target, (uint64_t)off, sz);

			if (st != VAL_BYTE_OK && (r->mask = malloc(sz ? sz : 1)) != NULL)
				memcpy(r->mask, target->mask + off, sz ? sz : 1);
		}
		if (target->lval == LV_REG && off == 0 && sz <= 8) {
			r->lval = LV_REG;
			r->regno = target->regno;
		}
	}
	ptd_value_free(target);
	*out = r;
	return 0;
}

static int func_value(struct ptd_values *v, struct found *fd, struct ptd_value **out)
{
	struct vtype *t = ptd__vt_from_die(v, &fd->die);
	Dwarf_Addr lo = 0;
	struct ptd_value *val;

	if (!t || dwarf_lowpc(&fd->die, &lo) != 0)
		return ptd__err(-ptde_notfound, "cannot find the address of \"%s\"",
				dwarf_diename(&fd->die));
	val = ptd__val_new(t);
	if (!val)
		return ptd__err(-ptde_nomem, "out of memory");
	val->lval = LV_MEM;
	val->addr = lo + fd->bias;
	*out = val;
	return 0;
}

int ptd__lookup_var(struct ptd_values *v, const char *name, struct ptd_value **out)
{
	struct found fd = { 0 };
	uint64_t entry, bp;
	int is_fn = 0;

	if (!v->sym)
		return ptd__err(-ptde_notfound, "No symbol table is loaded.  Use the \"file\" command.");
	if (strstr(name, "::")) {
		if (find_qualified(v, name, 0, &fd))
			return var_value(v, &fd, out);
		memset(&fd, 0, sizeof(fd));
		if (find_qualified(v, name, 1, &fd))
			return func_value(v, &fd, out);
		/* gdb names the scope: No symbol "x" in namespace "a::b". */
		const char *last = name;

		for (const char *q = strstr(name, "::"); q; q = strstr(q + 2, "::"))
			last = q + 2;
		return ptd__err(-ptde_notfound, "No symbol \"%s\" in namespace \"%.*s\".", last,
				(int)(last - 2 - name), name);
	}
	if (find_scoped(v, name, &fd))
		return var_value(v, &fd, out);
	if (find_global_any(v, name, &fd, &is_fn))
		return is_fn ? func_value(v, &fd, out) : var_value(v, &fd, out);
	/* a file's static the compiler dropped: <optimized out>, as gdb */
	memset(&fd, 0, sizeof(fd));
	if (find_global(v, name, -1, &fd) && !dwarf_hasattr_integrate(&fd.die, DW_AT_external))
		return var_value(v, &fd, out);
	memset(&fd, 0, sizeof(fd));
	if (ptd_symbols_function(v->sym, name, &entry, &bp) == 0) {
		struct vtype *t = ptd__vt_new(v, VT_NODEBUG, NULL, 1);
		struct ptd_value *val = t ? ptd__val_new(t) : NULL;

		if (!val)
			return ptd__err(-ptde_nomem, "out of memory");
		val->lval = LV_MEM;
		val->addr = entry;
		*out = val;
		return 0;
	}
	return ptd__err(-ptde_notfound, "No symbol \"%s\" in current context.", name);
}

/* info address's lookup (symquery.c): the variable, enumerator or
 * function @name as print finds it, in the scopes at the selected
 * frame's pc first, then among every module's globals.  Returns 1 when
 * found, else 0. */
int ptd__find_symbol(struct ptd_values *v, const char *name, struct ptd__symfound *out)
{
	struct found fd = { 0 };

	memset(out, 0, sizeof(*out));
	if (!v->sym || strstr(name, "::"))
		return 0;
	if (find_scoped(v, name, &fd)) {
		out->pc = lookup_pc(v);
	} else {
		/* else a variable the compiler left without a location:
		 * gdb's "optimized out" */
		if (!find_global_any(v, name, &fd, &out->func)) {
			memset(&fd, 0, sizeof(fd));
			if (!find_global(v, name, -1, &fd))
				return 0;
		}
		out->pc = v->has_regs && v->frame.valid ? lookup_pc(v) : 0;
	}
	out->die = fd.die;
	out->fn = fd.fn;
	out->has_fn = fd.has_fn;
	out->bias = fd.bias;
	return 1;
}

/* ------------------------------------------------------------------ */
/* Registers                                                            */

int ptd__reg_value(struct ptd_values *v, const char *name, struct ptd_value **out)
{
	struct ptd_value *val;
	struct vtype *t = v->t_i64;
	int r = -1, half = 0, part = 0;
	uint64_t x = 0;
	int known;

	if (!strcmp(name, "pc") || !strcmp(name, "rip")) {
		r = 16;
		t = v->t_code_ptr;
		/* gdb names it "void (*)(void)" when the language is C++ */
		if (ptd__lang_cplus(v)) {
			struct vtype *f = ptd__vt_func(v, v->t_void, 1);

			t = f ? ptd__vt_ptr(v, f) : NULL;
			if (!t)
				t = v->t_code_ptr;
		}
	} else if (!strcmp(name, "sp") || !strcmp(name, "rsp")) {
		r = 7;
		t = v->t_data_ptr;
	} else if (!strcmp(name, "fp") || !strcmp(name, "rbp")) {
		r = 6;
		t = v->t_data_ptr;
	} else if (!strcmp(name, "eflags")) {
		t = v->t_flags;
	} else {
		for (int i = 0; i < 16; i++) {
			char e[8];

			if (!strcmp(name, ptd__dreg_name[i])) {
				r = i;
				break;
			}
			/* eax, r8d: the low 32 bits, as int */
			if (i < 8)
				snprintf(e, sizeof(e), "e%s", ptd__dreg_name[i] + 1);
			else
				snprintf(e, sizeof(e), "%sd", ptd__dreg_name[i]);
			if (!strcmp(name, e)) {
				r = i;
				half = 1;
				t = v->t_i32;
				break;
			}
			/* ax, r8w: the low 16 bits; al, sil, r8l: the low 8;
			 * ah: bits 8 to 15 (gdb's int16_t and int8_t) */
			if (i < 8)
				snprintf(e, sizeof(e), "%s", ptd__dreg_name[i] + 1);
			else
				snprintf(e, sizeof(e), "%sw", ptd__dreg_name[i]);
			if (!strcmp(name, e)) {
				r = i;
				part = 2;
				t = v->t_i16;
				break;
			}
			if (i < 8 && ptd__dreg_name[i][2] == 'x')
				snprintf(e, sizeof(e), "%cl", ptd__dreg_name[i][1]);
			else if (i < 8)
				snprintf(e, sizeof(e), "%sl", ptd__dreg_name[i] + 1);
			else
				snprintf(e, sizeof(e), "%sl", ptd__dreg_name[i]);
			if (!strcmp(name, e)) {
				r = i;
				part = 1;
				t = v->t_i8;
				break;
			}
			if (i < 8 && ptd__dreg_name[i][2] == 'x') {
				snprintf(e, sizeof(e), "%ch", ptd__dreg_name[i][1]);
				if (!strcmp(name, e)) {
					r = i;
					part = 3;
					t = v->t_i8;
					break;
				}
			}
		}
		if (r < 0) {
			static const char *const seg[] = { "cs", "ss", "ds", "es", "fs", "gs",
							   "fs_base", "gs_base", "orig_rax", NULL };
			int i;

			for (i = 0; seg[i] && strcmp(seg[i], name); i++)
				;
			if (!seg[i]) {
				int rc = ptd__xreg_value(v, name, out);

				if (rc)
					return rc < 0 ? rc : 0;
				return ptd__err(-ptde_notfound, "Invalid register `%s'", name);
			}
			t = i < 6 ? v->t_i32 : v->t_long;
		}
	}
	/* (whatis $rax has its type before the program runs; gdb's $pc,
	 * $sp and $fp read the frame even then) */
	if (!v->has_regs && (!v->type_only || !strcmp(name, "pc") || !strcmp(name, "sp") ||
			     !strcmp(name, "fp")))
		return ptd__err(-ptde_not_running, "No registers.");
	val = ptd__val_new(t);
	if (!val)
		return ptd__err(-ptde_nomem, "out of memory");
	if (r >= 0) {
		known = (v->frame.known >> r) & 1;
		x = v->frame.regs[r];
		if (!known && (v->frame.not_saved >> r) & 1)
			val->not_saved = 1;
		val->lval = LV_REG;
		val->regno = r;
	} else {
		/* eflags and the segment registers: the innermost frame's in
		 * every frame (gdb's unwinder has them "same value"), and
		 * written there */
		int k = ptd__other_reg(name);

		known = (v->frame0.known & 1u) != 0;
		if (k >= 0) {
			memcpy(&x, (const char *)&v->uregs + ptd__other_regs[k].off, 8);
			val->lval = LV_REG;
			val->regno = ptd__other_regs[k].regno;
		}
	}
	if (!known)
		val->unavailable = !val->not_saved;
	else if (r != 16)
		v->used_regs = 1;
	if (half)
		x &= 0xffffffffu;
	if (part)
		x = part == 3 ? (x >> 8) & 0xff : part == 2 ? x & 0xffff : x & 0xff;
	if ((half || part) && val->lval == LV_REG) {
		/* $eax = 1 writes those bits of rax, the others kept */
		val->bit_size = half ? 32 : part == 2 ? 16 : 8;
		val->bit_off = part == 3 ? 8 : 0;
	}
	memcpy(val->buf, &x, ptd__vt_size(t) < 8 ? ptd__vt_size(t) : 8);
	*out = val;
	return 0;
}

const struct ptd__other_reg ptd__other_regs[] = {
	{ "eflags", 49, offsetof(struct user_regs_struct, eflags) },
	{ "es", 50, offsetof(struct user_regs_struct, es) },
	{ "cs", 51, offsetof(struct user_regs_struct, cs) },
	{ "ss", 52, offsetof(struct user_regs_struct, ss) },
	{ "ds", 53, offsetof(struct user_regs_struct, ds) },
	{ "fs", 54, offsetof(struct user_regs_struct, fs) },
	{ "gs", 55, offsetof(struct user_regs_struct, gs) },
	{ "fs_base", 58, offsetof(struct user_regs_struct, fs_base) },
	{ "gs_base", 59, offsetof(struct user_regs_struct, gs_base) },
	{ "orig_rax", DREG_ORIG_RAX, offsetof(struct user_regs_struct, orig_rax) },
	{ NULL, 0, 0 },
};

int ptd__other_reg(const char *name)
{
	for (int i = 0; ptd__other_regs[i].name; i++)
		if (!strcmp(name, ptd__other_regs[i].name))
			return i;
	return -1;
}

int ptd__reg_write(struct ptd_values *v, int regno, uint64_t x)
{
	if (!v->set_reg)
		return ptd__err(-ptde_unsupported,
				"cannot write registers: the program is not running live");
	if (v->frame.level != 0 && regno < NDREGS)
		return ptd__err(-ptde_unsupported,
				"cannot write a register of an outer frame");
	return v->set_reg(v->ctx, regno, x);
}

/* ------------------------------------------------------------------ */
/* Locals, arguments, frame information                                 */

static void list_vars(struct ptd_values *v, Dwarf_Die *scope, int args, Dwarf_Die *fn,
		      uint64_t bias, struct sbuf *b, int *count)
{
	Dwarf_Die c, *kids = NULL;
	int nk = scope_children(scope, &kids);

	for (int j = 0; j < nk; j++) {
		int tag = dwarf_tag(&kids[j]);
		const char *nm = dwarf_diename(&kids[j]);
		struct found fd = { 0 };
		struct ptd_value *val = NULL;

		c = kids[j];
		if (!nm || (args ? tag != DW_TAG_formal_parameter : tag != DW_TAG_variable))
			continue;
		fd.die = c;
		fd.fn = *fn;
		fd.has_fn = 1;
		fd.bias = bias;
		fd.ok = 1;
		ptd__sb_add(b, "%s = ", nm);
		ptd_clear_error();
		if (var_value(v, &fd, &val) < 0) {
			ptd__sb_add(b, "<error: %s>\n", ptd_last_error(-ptde_internal));
		} else {
			int rc = ptd__val_print(v, val, 0, 0, b);

			/* (memory a printer needed: after what it printed) */
			if (rc < 0)
				ptd__sb_add(b, "<error reading variable %s (%s)>", nm,
					    ptd_last_error(rc));
			ptd__sb_add(b, "\n");
		}
		ptd_value_free(val);
		(*count)++;
	}
	free(kids);
}

int ptd_values_locals(struct ptd_values *v, int args, char **out)
{
	Dwarf_Die *scopes = NULL, sub;
	Dwarf_Addr bias = 0;
	struct sbuf b = { 0 };
	int i, count = 0, fn = -1;

	if (!v || !out)
		return -ptde_invalid;
	if (!v->has_regs)
		return ptd__err(-ptde_not_running, "No frame selected.");
	if (frame_scopes(v, &scopes, &bias, &fn, &sub) < 0)
		return ptd__err(-ptde_notfound, "No symbol table info available.");
	if (fn < 0) {
		free(scopes);
		return ptd__err(-ptde_notfound, "No symbol table info available.");
	}
	if (args)
		list_vars(v, &scopes[fn], 1, &sub, bias, &b, &count);
	else
		for (i = 0; i <= fn; i++)
			list_vars(v, &scopes[i], 0, &sub, bias, &b, &count);
	free(scopes);
	if (!count)
		ptd__sb_add(&b, "%s\n", args ? "No arguments." : "No locals.");
	if (b.oom) {
		free(b.s);
		return ptd__err(-ptde_nomem, "out of memory");
	}
	*out = b.s;
	return 0;
}

/* ------------------------------------------------------------------ */
/* Entry values (gdb's "print entry-values default")                    */

/* The call site in @fn's subtree (lexical blocks and inlined code
 * included) whose return address is @ret (unbiased): DWARF 5's
 * DW_TAG_call_site with DW_AT_call_return_pc, or GNU's with DW_AT_low_pc. */
static int find_call_site(Dwarf_Die *fn, uint64_t ret, Dwarf_Die *out, int depth)
{
	Dwarf_Die c;

	if (depth > 32 || dwarf_child(fn, &c) != 0)
		return 0;
	do {
		int tag = dwarf_tag(&c);
		Dwarf_Attribute a;
		Dwarf_Addr at;

		if (tag == DW_TAG_call_site || tag == DW_TAG_GNU_call_site) {
			if ((dwarf_attr(&c, DW_AT_call_return_pc, &a) ||
			     dwarf_attr(&c, DW_AT_low_pc, &a)) &&
			    dwarf_formaddr(&a, &at) == 0 && at == ret) {
				*out = c;
				return 1;
			}
		} else if (tag == DW_TAG_lexical_block || tag == DW_TAG_inlined_subroutine) {
			if (find_call_site(&c, ret, out, depth + 1))
				return 1;
		}
	} while (dwarf_siblingof(&c, &c) == 0);
	return 0;
}

/* Where function @fn is entered (unbiased), as gdb's BLOCK_ENTRY_PC:
 * DW_AT_entry_pc or DW_AT_low_pc, else the first of its DW_AT_ranges
 * (a function split into hot and cold parts). */
static int fn_entry_pc(Dwarf_Die *fn, Dwarf_Addr *entry)
{
	Dwarf_Addr base, start, end;

	if (dwarf_entrypc(fn, entry) == 0)
		return 0;
	if (dwarf_ranges(fn, 0, &base, &start, &end) > 0) {
		*entry = start;
		return 0;
	}
	return -1;
}

/* Whether call site @site (in a module at @sbias) calls function @fn
 * (entered at @fn_entry), as gdb decides it: its DW_AT_call_origin is
 * a declaration of that name or a function at that address (an abstract
 * origin of inlined copies has no address, and gdb gives up there; so do
 * indirect calls, DW_AT_call_target, here). */
static int call_site_calls(Dwarf_Die *site, Dwarf_Addr sbias, Dwarf_Die *fn, uint64_t fn_entry)
{
	Dwarf_Attribute oa;
	Dwarf_Die od;
	Dwarf_Addr lo;
	bool decl = false;
	const char *a, *b;

	if (!(dwarf_attr(site, DW_AT_call_origin, &oa) ||
	      dwarf_attr(site, DW_AT_abstract_origin, &oa)) ||
	    !dwarf_formref_die(&oa, &od))
		return 0;
	if (dwarf_attr(&od, DW_AT_declaration, &oa) && dwarf_formflag(&oa, &decl) == 0 && decl) {
		a = dwarf_diename(&od);
		b = dwarf_diename(fn);
		return a && b && !strcmp(a, b);
	}
	return fn_entry_pc(&od, &lo) == 0 && lo + sbias == fn_entry;
}

/* The value register @reg had when the function of frame @f0 was
 * entered: what the caller put there for the call, as its call site's
 * DW_AT_call_value (evaluated in the caller's frame; it may need entry
 * values of the caller in turn, @depth deep).  Returns 0 with *@x set,
 * or -1 when that is not known (no call site information, a call site
 * that does not name this function, a value that needs what is
 * unknown). */
/* The concrete, out-of-line function at @pc (unbiased) in compile unit
 * @cu: dwarf_getscopes goes on from an inlined subroutine into the
 * scopes of its abstract definition, so its first DW_TAG_subprogram is
 * not the function whose frame this is when @pc is in inlined code.
 * Looks in the unit's top level and in namespaces. */
static int concrete_fn(Dwarf_Die *parent, Dwarf_Addr pc, Dwarf_Die *out, int depth)
{
	Dwarf_Die c;

	if (depth > 8 || dwarf_child(parent, &c) != 0)
		return 0;
	do {
		int tag = dwarf_tag(&c);

		if (tag == DW_TAG_subprogram && dwarf_haspc(&c, pc) > 0) {
			*out = c;
			return 1;
		}
		if ((tag == DW_TAG_namespace || tag == DW_TAG_class_type ||
		     tag == DW_TAG_structure_type) && concrete_fn(&c, pc, out, depth + 1))
			return 1;
	} while (dwarf_siblingof(&c, &c) == 0);
	return 0;
}

static int reg_at_entry(struct ptd_values *v, const struct vframe *f0, uint64_t reg, uint64_t *x,
			int depth)
{
	Dwarf_Attribute cv, fb;
	Dwarf_Addr entry, bias = 0, cbias = 0;
	Dwarf_Op *ops;
	size_t n;
	struct vframe f = *f0, caller;
	struct eval_env env = { .f = &caller, .depth = depth + 1 };
	Dwarf_Die site, c, *cu, fndie, cfn;
	Dwfl_Module *m;
	struct loc l;
	uint64_t lpc = f.level > 0 ? f.pc - 1 : f.pc;
	int found = 0, rc = -1;

	if (depth > 8)
		return -1;
	/* the frame's function and where it is entered */
	if (!(m = module_at(v, lpc)) || !(cu = dwfl_module_addrdie(m, lpc, &bias)))
		return -1;
	if (!concrete_fn(cu, lpc - bias, &fndie, 0) || fn_entry_pc(&fndie, &entry) != 0)
		goto out;
	/* the caller's frame, and its call site that returns where this
	 * frame does */
	if (unwind(v, &f, &caller) < 0 || !caller.valid || !caller.pc)
		goto out;
	unwind(v, &caller, NULL); /* its CFA, for DW_OP_fbreg */
	lpc = caller.pc - 1;
	if (!(m = module_at(v, lpc)) || !(cu = dwfl_module_addrdie(m, lpc, &cbias)))
		goto out;
	if (!concrete_fn(cu, lpc - cbias, &cfn, 0) ||
	    !find_call_site(&cfn, caller.pc - cbias, &site, 0) ||
	    !call_site_calls(&site, cbias, &fndie, entry + bias))
		goto out;
	if (dwarf_attr_integrate(&cfn, DW_AT_frame_base, &fb))
		env.fb_attr = &fb;
	env.bias = cbias;
	if (dwarf_child(&site, &c) == 0) {
		do {
			Dwarf_Attribute pl;
			Dwarf_Op *po;
			size_t pn;
			int tag = dwarf_tag(&c);

			if ((tag != DW_TAG_call_site_parameter &&
			     tag != DW_TAG_GNU_call_site_parameter) ||
			    !dwarf_attr(&c, DW_AT_location, &pl) ||
			    dwarf_getlocation(&pl, &po, &pn) != 0 || pn != 1)
				continue;
			if (!((po[0].atom >= DW_OP_reg0 && po[0].atom <= DW_OP_reg31 &&
			       (uint64_t)(po[0].atom - DW_OP_reg0) == reg) ||
			      (po[0].atom == DW_OP_regx && po[0].number == reg)))
				continue;
			if ((dwarf_attr(&c, DW_AT_call_value, &cv) ||
			     dwarf_attr(&c, DW_AT_GNU_call_site_value, &cv)) &&
			    dwarf_getlocation(&cv, &ops, &n) == 0 &&
			    eval_ops(v, &env, ops, n, &l) == 0) {
				/* the expression's result is the value itself */
				if (l.kind == LOC_MEM || l.kind == LOC_VALUE)
					*x = l.v, found = 1;
				else if (l.kind == LOC_REG &&
					 get_reg(&caller, (unsigned)l.v, x) == 0)
					found = 1;
			}
			break;
		} while (dwarf_siblingof(&c, &c) == 0);
	}
	rc = found ? 0 : -1;
out:
	return rc;
}

/* The value parameter @fd (of the selected frame's function) had when
 * the function was entered: its location at the entry is a register,
 * whose value there the caller's call site gives (reg_at_entry).  Writes
 * its bytes into @buf (@size of them) and returns 0, or <0 when it is
 * not known. */
static int entry_value(struct ptd_values *v, struct found *fd, uint8_t *buf, size_t size)
{
	Dwarf_Attribute loc;
	Dwarf_Addr entry;
	Dwarf_Op *ops;
	size_t n;
	uint64_t reg, x = 0;

	if (size > 8 || !fd->has_fn || fn_entry_pc(&fd->fn, &entry) != 0 ||
	    !dwarf_attr_integrate(&fd->die, DW_AT_location, &loc) ||
	    dwarf_getlocation_addr(&loc, entry, &ops, &n, 1) != 1 || n != 1)
		return -1;
	if (ops[0].atom >= DW_OP_reg0 && ops[0].atom <= DW_OP_reg31)
		reg = ops[0].atom - DW_OP_reg0;
	else if (ops[0].atom == DW_OP_regx)
		reg = ops[0].number;
	else
		return -1;
	if (reg_at_entry(v, &v->frame, reg, &x, 0) < 0)
		return -1;
	memcpy(buf, &x, size);
	return 0;
}

/* "argc=1, argv=0x7ffe..." for frame lines, in gdb's "print
 * frame-arguments" modes: 0 all, 1 scalars (aggregates as "..."), 2 none
 * ("argc=..."), 3 presence ("..." for the whole list when there is one). */
int ptd_values_frame_args(struct ptd_values *v, int mode, char **out)
{
	Dwarf_Die *scopes = NULL, c, sub;
	Dwarf_Addr bias = 0;
	struct sbuf b = { 0 };
	int fn = -1, count = 0, used_memory = 0;

	if (!v || !out || mode < 0 || mode > 3)
		return -ptde_invalid;
	if (!v->has_regs)
		return ptd__err(-ptde_not_running, "No frame selected.");
	if (frame_scopes(v, &scopes, &bias, &fn, &sub) < 0)
		return ptd__err(-ptde_notfound, "No symbol table info available.");
	Dwarf_Die *kids = NULL;
	int nk = fn >= 0 ? scope_children(&scopes[fn], &kids) : 0;

	for (int j = 0; j < nk; j++) {
		{
			const char *nm = dwarf_diename(&kids[j]);
			struct found fd = { 0 };
			struct ptd_value *val = NULL;
			struct vtype *st;

			c = kids[j];
			if (!nm || dwarf_tag(&c) != DW_TAG_formal_parameter)
				continue;
			if (mode == 3) {
				ptd__sb_add(&b, "...");
				break;
			}
			ptd__sb_add(&b, "%s%s=", count++ ? ", " : "", nm);
			if (mode == 2) {
				ptd__sb_add(&b, "...");
				continue;
			}
			fd.die = c;
			fd.fn = sub;
			fd.has_fn = 1;
			fd.bias = bias;
			fd.ok = 1;
			ptd_clear_error();
			v->used_memory = 0;
			if (var_value(v, &fd, &val) < 0) {
				ptd__sb_add(&b, "<error: %s>", ptd_last_error(-ptde_internal));
				continue;
			}
			st = ptd__vt_strip(val->type);
			if (mode == 1 && st && ptd__stl_has_printer(st) && !v->past) {
				/* a class of the C++ library: its printer's
				 * summary, its children as "{...}" */
				v->summary = 1;
				if (ptd__val_print(v, val, 0, 0, &b) < 0)
					ptd__sb_add(&b, "<error reading variable: %s>",
						    ptd_last_error(-ptde_internal));
				v->summary = 0;
			} else if (mode == 1 && st &&
				   (st->kind == VT_STRUCT || st->kind == VT_UNION ||
				    st->kind == VT_ARRAY)) {
				ptd__sb_add(&b, "...");
			} else if (v->past && (ptd__val_fetch(v, val), v->used_memory)) {
				/* In the past a frame line shows only what the
				 * recorder knew there: the present memory may
				 * hold another call's value at that address by
				 * now (print says so and shows it; a frame line
				 * is printed at every stop, unasked).  gdb's
				 * record btrace, which keeps no memory either,
				 * says the same. */
				ptd__sb_add(&b, "<unavailable>");
			} else {
				/* gdb's default "print entry-values": the value the
				 * caller passed, when the call site says what it
				 * was, after the value ("n=5, n@entry=6"), or
				 * folded into it when they are equal
				 * ("n=n@entry=6") */
				struct ptd_value *ev = ptd__val_copy(val);
				size_t sz = (size_t)ptd__vt_size(val->type);
				int have_entry = 0, mem = v->used_memory;

				if (ev && st && st->kind != VT_STRUCT && st->kind != VT_UNION &&
				    st->kind != VT_ARRAY && !val->unavailable &&
				    dwarf_tag(&scopes[fn]) == DW_TAG_subprogram) {
					/* (in the past only from what the recorder
					 * knew, as the value itself) */
					v->used_memory = 0;
					have_entry = entry_value(v, &fd, ev->buf, sz) == 0 &&
						     !(v->past && v->used_memory);
					if (have_entry)
						mem |= v->used_memory;
				}
				v->used_memory = 0;
				if (have_entry && val->lazy)
					ptd__val_fetch(v, val);
				if (have_entry && !val->optimized_out && !val->lazy &&
				    !memcmp(val->buf, ev->buf, sz))
					ptd__sb_add(&b, "%s@entry=", nm);
				else
					have_entry = have_entry ? 2 : 0;
				ptd__val_print(v, val, 0, 0, &b);
				if (have_entry == 2) {
					ev->optimized_out = ev->unavailable = 0;
					ev->lazy = 0;
					ev->lval = LV_NONE;
					ptd__sb_add(&b, ", %s@entry=", nm);
					ptd__val_print(v, ev, 0, 0, &b);
				}
				ptd_value_free(ev);
				used_memory |= mem || v->used_memory; /* (what printing read) */
			}
			ptd_value_free(val);
		}
	}
	free(kids);
	free(scopes);
	/* what the front end's note about the present memory is about: the
	 * values printed (a string a known pointer points to) */
	v->used_memory = used_memory;
	if (b.oom) {
		free(b.s);
		return ptd__err(-ptde_nomem, "out of memory");
	}
	*out = b.s ? b.s : strdup("");
	return *out ? 0 : ptd__err(-ptde_nomem, "out of memory");
}

/* Saved registers in gdb's order (rax rbx rcx rdx rsi rdi rbp rsp r8..
 * rip) for info frame. */
static void saved_regs(struct sbuf *b, uint32_t mask, const uint64_t *at)
{
	static const int order[] = { 0, 3, 2, 1, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16 };
	int first = 1;

	if (!mask)
		return;
	ptd__sb_add(b, " Saved registers:\n ");
	for (size_t i = 0; i < sizeof(order) / sizeof(order[0]); i++) {
		int r = order[i];

		if (!(mask & (1u << r)))
			continue;
		ptd__sb_add(b, "%s %s at 0x%llx", first ? "" : ",", ptd__dreg_name[r],
			    (unsigned long long)at[r]);
		first = 0;
	}
	ptd__sb_add(b, "\n");
}

int ptd_values_frame_info(struct ptd_values *v, char **out)
{
	return ptd_values_frame_info_at(v, v ? v->frame.level : 0, out);
}

/* gdb names a C++ function in info frame without its parameter list
 * (cp_remove_params): "thrower" for "thrower(int)", "S::get" for
 * "S::get() const".  Returns @name or @buf. */
static const char *without_params(const char *name, char *buf, size_t n)
{
	size_t len = strlen(name);
	int depth = 0;

	if (len > 6 && !strcmp(name + len - 6, " const"))
		len -= 6;
	if (!len || name[len - 1] != ')')
		return name;
	for (size_t i = len; i-- > 0;) {
		if (name[i] == ')') {
			depth++;
		} else if (name[i] == '(' && --depth == 0) {
			/* ("operator()" of DW_AT_name, a lambda's, has no
			 * parameter list to remove) */
			if (!i || (i >= 8 && !strncmp(name + i - 8, "operator", 8)))
				return name;
			snprintf(buf, n, "%.*s", (int)i, name);
			return buf;
		}
	}
	return name;
}

int ptd_values_frame_info_at(struct ptd_values *v, int level, char **out)
{
	struct sbuf b = { 0 };
	struct vframe f = v ? v->frame : (struct vframe){ 0 };
	struct vframe caller = { 0 };
	struct ptd_symbol s;
	struct ptd_line li;
	struct ptd_inline in[16];
	char *args = NULL, nbuf[512];
	const char *name = NULL;
	uint64_t lpc;
	int ninl = 0, inl_frame, cplus;

	if (!v || !out)
		return -ptde_invalid;
	if (!v->has_regs)
		return ptd__err(-ptde_not_running, "No stack.");
	lpc = lookup_pc(v);
	unwind(v, &f, NULL);
	if (v->sym)
		ninl = ptd_symbols_inlined(v->sym, lpc, in, 16);
	if (ninl < 0)
		ninl = 0;
	/* the frame of an inlined call (gdb: "inlined into frame N"); the
	 * frames around inlined calls are at their call sites' lines */
	inl_frame = v->inl_callees < ninl;
	if (f.cfa_known)
		ptd__sb_add(&b, "Stack level %d, frame at 0x%llx:\n", level,
			    (unsigned long long)f.cfa);
	else
		ptd__sb_add(&b, "Stack level %d, frame at <unavailable>:\n", level);
	ptd__sb_add(&b, " rip = 0x%llx", (unsigned long long)f.pc);
	if (inl_frame)
		name = in[v->inl_callees].name;
	else if (v->sym && ptd_symbols_lookup(v->sym, lpc, &s) == 0)
		name = s.name;
	cplus = ptd__lang_cplus(v);
	if (name && cplus && !inl_frame)
		name = without_params(name, nbuf, sizeof(nbuf));
	if (name)
		ptd__sb_add(&b, " in %s", name);
	if (v->inl_callees > 0 && v->inl_callees <= ninl && in[v->inl_callees - 1].call_file)
		ptd__sb_add(&b, " (%s:%d)",
			    ptd_symbols_display_name(v->sym, in[v->inl_callees - 1].call_file),
			    in[v->inl_callees - 1].call_line);
	else if (v->sym && ptd_symbols_line(v->sym, lpc, &li) == 0 && li.file)
		ptd__sb_add(&b, " (%s:%d)", ptd_symbols_display_name(v->sym, li.file), li.line);
	if (unwind(v, &f, &caller) == 0)
		ptd__sb_add(&b, "; saved rip = 0x%llx\n", (unsigned long long)caller.pc);
	else
		ptd__sb_add(&b, "; saved rip = <unavailable>\n");
	if (inl_frame) {
		/* gdb's form for an inline frame: the real frame's CFA and
		 * saved rip, no argument list address, the registers as the
		 * frame inside it left them */
		if (level > 0 && (v->inl_callees > 0 ? f.cfa_known : v->inner_cfa_known))
			ptd__sb_add(&b, " inlined into frame %d, caller of frame at 0x%llx\n",
				    level + 1,
				    (unsigned long long)(v->inl_callees > 0 ? f.cfa : v->inner_cfa));
		else
			ptd__sb_add(&b, " inlined into frame %d\n", level + 1);
		ptd__sb_add(&b, " source language %s.\n", cplus ? "c++" : "c");
		ptd__sb_add(&b, " Arglist at unknown address.\n");
		if (f.level == 0) {
			ptd__sb_add(&b, " Locals at unknown address, Previous frame's sp in rsp\n");
		} else {
			if (v->inner_cfa_known)
				ptd__sb_add(&b, " Locals at unknown address, Previous frame's sp is "
						"0x%llx\n",
					    (unsigned long long)v->inner_cfa);
			saved_regs(&b, v->inner_saved_mask, v->inner_saved_at);
		}
		goto done;
	}
	{
		/* the frames next to this one, by their CFAs; main is the
		 * outermost frame shown (backtrace past-main off) */
		int outer = caller.valid && !(v->sym && ptd_symbols_lookup(v->sym, lpc, &s) == 0 &&
					      !strcmp(s.name, "main"));
		int inner = (f.level > 0 && v->inner_cfa_known) || (v->inl_callees > 0 && f.cfa_known);
		uint64_t inner_cfa = v->inl_callees > 0 ? f.cfa : v->inner_cfa;

		if (outer) {
			struct vframe cf = caller;

			unwind(v, &cf, NULL);
			outer = cf.cfa_known;
			if (outer)
				ptd__sb_add(&b, " called by frame at 0x%llx%s",
					    (unsigned long long)cf.cfa, inner ? "," : "\n");
		}
		if (inner)
			ptd__sb_add(&b, " caller of frame at 0x%llx\n", (unsigned long long)inner_cfa);
	}
	ptd__sb_add(&b, " source language %s.\n", cplus ? "c++" : "c");
	/* in the user's print frame-arguments mode, as gdb's info frame */
	if (ptd_values_frame_args(v, v->frame_args_mode, &args) == 0) {
		if (f.cfa_known)
			ptd__sb_add(&b, " Arglist at 0x%llx, args: %s\n",
				    (unsigned long long)(f.cfa - 16), args);
		else
			ptd__sb_add(&b, " Arglist at <unavailable>, args: %s\n", args);
		free(args);
	}
	if (f.cfa_known)
		ptd__sb_add(&b, " Locals at 0x%llx, Previous frame's sp is 0x%llx\n",
			    (unsigned long long)(f.cfa - 16), (unsigned long long)f.cfa);
	saved_regs(&b, f.saved_mask, f.saved_at);
done:
	if (b.oom) {
		free(b.s);
		return ptd__err(-ptde_nomem, "out of memory");
	}
	*out = b.s;
	return 0;
}

/* ------------------------------------------------------------------ */
/* finish: the return value                                             */

/* SysV x86-64 classification of one eightbyte of @t at [lo, lo+8):
 * 1 INTEGER, 2 SSE, 0 nothing there. */
static int classify(struct vtype *t, uint64_t base, uint64_t lo)
{
	struct vtype *s = ptd__vt_strip(t);
	uint64_t sz = ptd__vt_size(s);
	int c = 0, i;

	if (!s || base + sz <= lo || base >= lo + 8)
		return 0;
	switch (s->kind) {
	case VT_FLOAT:
		return 2;
	case VT_STRUCT:
	case VT_UNION:
		for (i = 0; i < s->nmembers; i++) {
			int mc = classify(s->members[i].type, base + s->members[i].off, lo);

			if (mc == 1)
				return 1;
			if (mc)
				c = mc;
		}
		return c;
	case VT_ARRAY:
		for (i = 0; i < s->count; i++) {
			int mc = classify(s->target, base + (uint64_t)i * ptd__vt_size(s->target), lo);

			if (mc == 1)
				return 1;
			if (mc)
				c = mc;
		}
		return c;
	default:
		return 1;
	}
}

int ptd_values_return_value(struct ptd_values *v, uint64_t func_pc, const uint8_t xmm[2][16],
			    int have_xmm, struct ptd_value **out)
{
	Dwfl_Module *m;
	Dwarf_Die *cu, *scopes = NULL, td;
	Dwarf_Attribute a;
	Dwarf_Addr bias = 0;
	struct vtype *t = NULL, *s;
	struct ptd_value *val;
	uint64_t sz;
	int n, i, found = 0;

	if (!v || !out)
		return -ptde_invalid;
	m = module_at(v, func_pc);
	if (!m || !(cu = dwfl_module_addrdie(m, func_pc, &bias)))
		return ptd__err(-ptde_notfound, "no debug information for the function");
	n = ptd__dwarf_scopes(cu, func_pc - bias, &scopes);
	for (i = 0; i < n; i++) {
		if (dwarf_tag(&scopes[i]) != DW_TAG_subprogram)
			continue;
		found = 1;
		if (dwarf_attr_integrate(&scopes[i], DW_AT_type, &a) && dwarf_formref_die(&a, &td))
			t = ptd__vt_from_die(v, &td);
		break;
	}
	free(scopes);
	if (!found)
		return ptd__err(-ptde_notfound, "no debug information for the function");
	if (!t || ptd__vt_strip(t)->kind == VT_VOID)
		return ptd__err(-ptde_notfound, "the function returns void");
	s = ptd__vt_strip(t);
	sz = ptd__vt_size(t);
	if (!v->has_regs || !(v->frame0.known & 1u))
		return ptd__err(-ptde_unsupported, "the registers are not known here");
	val = ptd__val_new(t);
	if (!val)
		return ptd__err(-ptde_nomem, "out of memory");
	if (s->kind == VT_FLOAT && sz > 8)
		return ptd__err(-ptde_unsupported, "long double results (st0) are not shown");
	if (sz > 16) {
		/* MEMORY class: rax has the address of the returned object */
		val->lval = LV_MEM;
		val->addr = v->frame0.regs[0];
		val->lazy = 1;
		if (ptd__val_fetch(v, val) < 0) {
			ptd_value_free(val);
			return -ptde_nomap;
		}
	} else {
		int gp = 0, sse = 0;
		const uint64_t gpr[2] = { v->frame0.regs[0], v->frame0.regs[1] }; /* rax, rdx */

		for (uint64_t lo = 0; lo < sz; lo += 8) {
			int c = classify(t, 0, lo);
			uint64_t chunk = sz - lo < 8 ? sz - lo : 8;

			if (c == 2) {
				if (!have_xmm) {
					ptd_value_free(val);
					return ptd__err(-ptde_unsupported,
							"the SSE registers are not known here");
				}
				memcpy(val->buf + lo, xmm[sse++], chunk);
			} else {
				memcpy(val->buf + lo, &gpr[gp++], chunk);
			}
		}
	}
	*out = val;
	return 0;
}

int ptd_values_keep(struct ptd_values *v, const struct ptd_value *val)
{
	struct ptd_value *c, **n;
	int i;

	if (!v || !val)
		return -ptde_invalid;
	c = ptd__val_copy(val);
	if (!c)
		return ptd__err(-ptde_nomem, "out of memory");
	for (i = 0; i < v->nkept; i++)
		if (!v->kept[i])
			break;
	if (i == v->nkept) {
		n = realloc(v->kept, (size_t)(v->nkept + 1) * sizeof(*n));
		if (!n) {
			ptd_value_free(c);
			return ptd__err(-ptde_nomem, "out of memory");
		}
		v->kept = n;
		v->nkept++;
	}
	v->kept[i] = c;
	return i + 1;
}

void ptd_values_unkeep(struct ptd_values *v, int key)
{
	if (!v || key < 1 || key > v->nkept)
		return;
	ptd_value_free(v->kept[key - 1]);
	v->kept[key - 1] = NULL;
}

int ptd_values_format_kept(struct ptd_values *v, int key, const void *bytes, size_t n, int fmt,
			   int top, char **out)
{
	struct ptd_value *k, *c;
	int rc;

	if (!v || !bytes || !out || key < 1 || key > v->nkept || !v->kept[key - 1])
		return -ptde_invalid;
	k = v->kept[key - 1];
	if (n != ptd__vt_size(k->type) || k->bit_size)
		return ptd__err(-ptde_invalid, "cannot format %zu bytes as a value of %llu bytes", n,
				(unsigned long long)ptd__vt_size(k->type));
	c = ptd__val_copy(k);
	if (!c)
		return ptd__err(-ptde_nomem, "out of memory");
	memcpy(c->buf, bytes, n);
	/* other contents, not the object's: nothing to read, nothing unknown */
	c->lazy = 0;
	c->unavailable = c->optimized_out = c->not_saved = c->synthetic = 0;
	free(c->mask);
	c->mask = NULL;
	rc = ptd_value_format(v, c, fmt, top, out);
	ptd_value_free(c);
	return rc;
}

struct vtype *ptd__fn_class_targ(struct ptd_values *v, uint64_t pc)
{
	Dwfl_Module *m = v->sym ? module_at(v, pc) : NULL;
	Dwarf_Die *cu, *all = NULL, *chain = NULL, decl, child, td;
	Dwarf_Attribute a;
	Dwarf_Addr bias = 0;
	struct vtype *t = NULL;
	int n, i, nc;

	if (!m || !(cu = dwfl_module_addrdie(m, pc, &bias)))
		return NULL;
	n = ptd__dwarf_scopes(cu, pc - bias, &all);
	for (i = 0; i < n && dwarf_tag(&all[i]) != DW_TAG_subprogram; i++)
		;
	/* the declaration in the class, and the class around it */
	if (i < n && dwarf_attr(&all[i], DW_AT_specification, &a) && dwarf_formref_die(&a, &decl) &&
	    (nc = dwarf_getscopes_die(&decl, &chain)) > 1 && dwarf_child(&chain[1], &child) == 0) {
		do {
			if (dwarf_tag(&child) == DW_TAG_template_type_parameter &&
			    dwarf_attr(&child, DW_AT_type, &a) && dwarf_formref_die(&a, &td)) {
				t = ptd__vt_from_die(v, &td);
				break;
			}
		} while (dwarf_siblingof(&child, &child) == 0);
	}
	free(chain);
	free(all);
	return t;
}
