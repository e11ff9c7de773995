/*
 * The registers beyond the general ones as values of expressions, as gdb
 * 13 types them on x86-64: $xmm0-15 (0-31 with AVX-512) as the union
 * vec128, $ymm as builtin_type_vec256i, $zmm as builtin_type_vec512i
 * (each member a vector of bfloat16, half, float, double or fixed-size
 * integers), $st0-7 as builtin_type_i387_ext, $mxcsr as the flags type
 * i386_mxcsr, the x87 control registers as int and $k0-7 as uint64_t.
 * Their bytes come from the thread's XSAVE state (the target's xstate
 * callback); where there is none (the recorded past, a loaded trace)
 * they are <unavailable>, as gdb's record btrace has them.  Assignments
 * to them or to a part of them ($xmm0.v4_int32[1] = 5) write the state
 * back.
 */
#include <cpuid.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/error.h"
#include "values/values_int.h"

#define XSAVE_MAX 8192
#define XSAVE_MIN 576 /* the legacy area and the XSAVE header */

/* XSAVE components (CPUID leaf 0xD sub-leaf = bit number); XC_LEGACY
 * stands for the FXSAVE area at the start, always there */
enum { XC_LEGACY = -1, XC_AVX = 2, XC_OPMASK = 5, XC_ZMM_HI256 = 6, XC_HI16_ZMM = 7 };

enum xr_kind { XR_XMM, XR_YMM, XR_ZMM, XR_ST, XR_MXCSR, XR_X87, XR_K };

/* The x87 control registers: where each is in the FXSAVE area (64-bit
 * format: the instruction and operand pointers are 64 bits, gdb's
 * fioff/fooff their low halves and fiseg/foseg the high ones). */
static const struct {
	const char *name;
	unsigned off, len;
} x87_regs[] = {
	{ "fctrl", 0, 2 }, { "fstat", 2, 2 },  { "ftag", 4, 1 },   { "fiseg", 12, 4 },
	{ "fioff", 8, 4 }, { "foseg", 20, 4 }, { "fooff", 16, 4 }, { "fop", 6, 2 },
};

/* Where component @c is in the standard-format XSAVE area, and whether
 * this CPU has it (XCR0, CPUID leaf 0xD sub-leaf 0 EAX). */
static int comp_offset(int c, size_t *off, size_t *len)
{
	/* asked once per component: CPUID is slow in a VM (an exit), and
	 * info all-registers asks for every register */
	static struct {
		int known, have;
		size_t off, len;
	} cache[8];
	unsigned a, b, cx, d;

	if (c == XC_LEGACY) {
		*off = 0;
		*len = 512;
		return 0;
	}
	if (c < 0 || c >= 8)
		return -1;
	if (!cache[c].known) {
		if (__get_cpuid_count(0xd, 0, &a, &b, &cx, &d) && (a & (1u << c)) &&
		    __get_cpuid_count(0xd, (unsigned)c, &a, &b, &cx, &d) && a) {
			cache[c].have = 1;
			cache[c].off = b;
			cache[c].len = a;
		}
		cache[c].known = 1;
	}
	if (!cache[c].have)
		return -1;
	*off = cache[c].off;
	*len = cache[c].len;
	return 0;
}

static int has_comp(int c)
{
	size_t o, l;

	return comp_offset(c, &o, &l) == 0;
}

static int has_avx512(void)
{
	return has_comp(XC_OPMASK) && has_comp(XC_ZMM_HI256) && has_comp(XC_HI16_ZMM);
}

/* A register: its kind and number, and the pieces of the XSAVE area its
 * bytes are in, in order. */
struct xreg {
	enum xr_kind kind;
	int n;
	int npieces;
	struct {
		int comp;
		size_t at, len;
	} piece[3];
	size_t size; /* of its bytes (the value's type may be wider) */
};

static void add_piece(struct xreg *r, int comp, size_t at, size_t len)
{
	r->piece[r->npieces].comp = comp;
	r->piece[r->npieces].at = at;
	r->piece[r->npieces].len = len;
	r->npieces++;
	r->size += len;
}

/* The register named @name (without the $), 0; or -1 when this CPU has
 * none of that name. */
static int xreg_find(const char *name, struct xreg *r)
{
	int n = -1, len = 0;
	char c;
	char again[16];

	memset(r, 0, sizeof(*r));
	/* (the number as written once: xmm01 and xmm+1 are not registers) */
	if (sscanf(name, "%cmm%d%n", &c, &n, &len) == 2 && !name[len] && n >= 0 && n < 32 &&
	    (c == 'x' || c == 'y' || c == 'z') &&
	    snprintf(again, sizeof(again), "%cmm%d", c, n) > 0 && !strcmp(again, name)) {
		int vlen = c == 'x' ? 16 : c == 'y' ? 32 : 64;

		if (n >= 16 || c == 'z') {
			if (!has_avx512())
				return -1;
		} else if (c == 'y' && !has_comp(XC_AVX)) {
			return -1;
		}
		r->kind = c == 'x' ? XR_XMM : c == 'y' ? XR_YMM : XR_ZMM;
		r->n = n;
		if (n >= 16) {
			add_piece(r, XC_HI16_ZMM, 64 * (size_t)(n - 16), (size_t)vlen);
			return 0;
		}
		add_piece(r, XC_LEGACY, 160 + 16 * (size_t)n, 16);
		if (vlen > 16)
			add_piece(r, XC_AVX, 16 * (size_t)n, 16);
		if (vlen > 32)
			add_piece(r, XC_ZMM_HI256, 32 * (size_t)n, 32);
		return 0;
	}
	if (sscanf(name, "st%d%n", &n, &len) == 1 && !name[len] && len == 3 && n >= 0 && n < 8) {
		r->kind = XR_ST;
		r->n = n;
		add_piece(r, XC_LEGACY, 32 + 16 * (size_t)n, 10);
		return 0;
	}
	if (sscanf(name, "k%d%n", &n, &len) == 1 && !name[len] && len == 2 && n >= 0 && n < 8) {
		if (!has_avx512())
			return -1;
		r->kind = XR_K;
		r->n = n;
		add_piece(r, XC_OPMASK, 8 * (size_t)n, 8);
		return 0;
	}
	if (!strcmp(name, "mxcsr")) {
		r->kind = XR_MXCSR;
		add_piece(r, XC_LEGACY, 24, 4);
		return 0;
	}
	for (size_t i = 0; i < sizeof(x87_regs) / sizeof(x87_regs[0]); i++)
		if (!strcmp(name, x87_regs[i].name)) {
			r->kind = XR_X87;
			r->n = (int)i;
			add_piece(r, XC_LEGACY, x87_regs[i].off, x87_regs[i].len);
			return 0;
		}
	return -1;
}

/* ------------------------------------------------------------------ */
/* Types                                                                */

static struct vtype *base(struct ptd_values *v, enum vt_kind k, const char *name, uint64_t size,
			  int sgn)
{
	struct vtype *t = ptd__vt_new(v, k, name, size);

	if (t)
		t->is_signed = sgn;
	return t;
}

static struct vtype *vector(struct ptd_values *v, struct vtype *elem, int64_t count)
{
	struct vtype *t = elem ? ptd__vt_array(v, elem, count) : NULL;

	if (t)
		t->vector = 1;
	return t;
}

static struct vtype *tdef(struct ptd_values *v, const char *name, struct vtype *to)
{
	struct vtype *t = to ? ptd__vt_new(v, VT_TYPEDEF, name, to->size) : NULL;

	if (t)
		t->target = to;
	return t;
}

/* gdb's vector union for a register of @bytes bytes: vec128 has its
 * vectors under typedef names of gdb's i386 target description, the
 * wider ones name their elements directly. */
static struct vtype *vec_union(struct ptd_values *v, int bytes)
{
	static const struct {
		const char *member, *tdef;
		int kind; /* 0 int, 1 float, 2 bfloat16 */
		int esize;
	} m[] = {
		{ "bfloat16", "bf16", 2, 2 }, { "half", "h", 1, 2 },   { "float", "f", 1, 4 },
		{ "double", "d", 1, 8 },      { "int8", "i8", 0, 1 },  { "int16", "i16", 0, 2 },
		{ "int32", "i32", 0, 4 },     { "int64", "i64", 0, 8 }, { "int128", "i128", 0, 16 },
	};
	static const char *const wide_float[] = { "bfloat16", "half", "float", "double" };
	static const char *const narrow_float[] = { "builtin_type_bfloat16", "builtin_type_ieee_half",
						    "builtin_type_ieee_single",
						    "builtin_type_ieee_double" };
	struct vtype *u = ptd__vt_new(v, VT_UNION,
				      bytes == 16   ? "vec128"
				      : bytes == 32 ? "builtin_type_vec256i"
						    : "builtin_type_vec512i",
				      (uint64_t)bytes);
	size_t n = sizeof(m) / sizeof(m[0]);

	if (!u || !(u->members = calloc(n, sizeof(*u->members))))
		return NULL;
	for (size_t i = 0; i < n; i++) {
		struct vt_member *mb = &u->members[u->nmembers];
		int count = bytes / m[i].esize;
		char name[32], tn[32];
		struct vtype *e, *t;

		if (m[i].esize == 16 && bytes == 16) {
			/* vec128's last member is one number */
			t = base(v, VT_INT, "uint128_t", 16, 0);
			snprintf(name, sizeof(name), "uint128");
		} else {
			if (m[i].kind) {
				e = base(v, VT_FLOAT,
					 bytes == 16 ? narrow_float[i] : wide_float[i],
					 (uint64_t)m[i].esize, 1);
				if (e && m[i].kind == 2)
					e->bfloat16 = 1;
			} else {
				snprintf(tn, sizeof(tn), "%s_t", m[i].member);
				e = base(v, VT_INT, tn, (uint64_t)m[i].esize, 1);
			}
			t = vector(v, e, count);
			if (bytes == 16) {
				snprintf(tn, sizeof(tn), "v%d%s", count, m[i].tdef);
				t = tdef(v, tn, t);
			}
			snprintf(name, sizeof(name), "v%d_%s", count, m[i].member);
		}
		if (!t || !(mb->name = strdup(name)))
			return NULL;
		mb->type = t;
		u->nmembers++;
	}
	return u;
}

/* gdb's flags type of mxcsr: a bool per bit */
static struct vtype *mxcsr_type(struct ptd_values *v)
{
	static const struct ptd__flag f[] = {
		{ 0, "IE" },  { 1, "DE" },  { 2, "ZE" },  { 3, "OE" },	{ 4, "UE" },
		{ 5, "PE" },  { 6, "DAZ" }, { 7, "IM" },  { 8, "DM" },	{ 9, "ZM" },
		{ 10, "OM" }, { 11, "UM" }, { 12, "PM" }, { 15, "FZ" }, { -1, NULL },
	};
	struct vtype *t = ptd__vt_new(v, VT_FLAGS, "i386_mxcsr", 4);

	if (t)
		t->flags = f;
	return t;
}

static struct vtype *xreg_type(struct ptd_values *v, const struct xreg *r)
{
	switch (r->kind) {
	case XR_XMM:
		return vec_union(v, 16);
	case XR_YMM:
		return vec_union(v, 32);
	case XR_ZMM:
		return vec_union(v, 64);
	case XR_ST:
		return base(v, VT_FLOAT, "builtin_type_i387_ext", 10, 1);
	case XR_MXCSR:
		return mxcsr_type(v);
	case XR_K:
		return base(v, VT_INT, "uint64_t", 8, 0);
	default:
		return v->t_int;
	}
}

/* ------------------------------------------------------------------ */
/* Reading and writing                                                  */

/* The XSAVE state of the bound thread into @buf: its size, or 0 when
 * there is none (the past, no thread). */
static size_t xstate_get(struct ptd_values *v, uint8_t *buf)
{
	size_t size = XSAVE_MAX;

	if (!v->xstate || !v->has_regs || v->xstate(v->ctx, buf, &size) < 0 || size < XSAVE_MIN) {
		ptd_clear_error();
		return 0;
	}
	return size;
}

/* The register's bytes from XSAVE area @x: a component in its initial
 * state (its XSTATE_BV bit clear) reads as zeros. */
static void xreg_bytes(const struct xreg *r, const uint8_t *x, size_t size, uint8_t *out)
{
	uint64_t bv;

	memcpy(&bv, x + 512, 8);
	for (int i = 0; i < r->npieces; i++) {
		size_t off, len;
		int c = r->piece[i].comp;

		memset(out, 0, r->piece[i].len);
		if (comp_offset(c, &off, &len) == 0 && (c == XC_LEGACY || (bv >> c) & 1) &&
		    r->piece[i].at + r->piece[i].len <= len &&
		    off + r->piece[i].at + r->piece[i].len <= size)
			memcpy(out, x + off + r->piece[i].at, r->piece[i].len);
		out += r->piece[i].len;
	}
}

/* gdb's full tag word from FXSAVE's abridged one: 3 (empty) for a free
 * register, else 0 valid, 1 zero or 2 special by its contents. */
static unsigned full_ftag(const uint8_t *x)
{
	unsigned abridged = x[4], fsw, top, tag = 0;

	fsw = (unsigned)x[2] | (unsigned)x[3] << 8;
	top = (fsw >> 11) & 7;
	for (unsigned phys = 0; phys < 8; phys++) {
		unsigned t = 3;

		if (abridged & (1u << phys)) {
			/* st(i) holds physical register (i + top) mod 8 */
			const uint8_t *r = x + 32 + 16 * ((phys - top) & 7);
			unsigned exp = ((unsigned)r[9] << 8 | r[8]) & 0x7fff;
			uint64_t mant;

			memcpy(&mant, r, 8);
			if (exp == 0x7fff)
				t = 2;
			else if (exp == 0)
				t = mant ? 2 : 1;
			else
				t = mant >> 63 ? 0 : 2;
		}
		tag |= t << (2 * phys);
	}
	return tag;
}

int ptd__xreg_value(struct ptd_values *v, const char *name, struct ptd_value **out)
{
	struct xreg r;
	struct vtype *t;
	struct ptd_value *val;
	uint8_t *x;
	size_t size;

	if (xreg_find(name, &r) < 0)
		return 0;
	/* Before the program runs gdb knows the executable's architecture
	 * only, without AVX and AVX-512: $ymm0 and $k0 are convenience
	 * variables then.  The others have their types (whatis $xmm0). */
	if (!v->has_regs && (r.kind == XR_YMM || r.kind == XR_ZMM || r.kind == XR_K || r.n >= 16))
		return 0;
	if (!v->has_regs && !v->type_only)
		return ptd__err(-ptde_not_running, "No registers.");
	t = xreg_type(v, &r);
	if (!t || !(val = ptd__val_new(t)))
		return ptd__err(-ptde_nomem, "out of memory");
	x = malloc(XSAVE_MAX);
	if (!x) {
		ptd_value_free(val);
		return ptd__err(-ptde_nomem, "out of memory");
	}
	size = xstate_get(v, x);
	if (!size && v->type_only && !v->has_regs) {
		/* (whatis before run: the type, zeros) */
		val->lval = LV_XREG;
		val->regno = (int)r.kind << 8 | r.n;
	} else if (!size) {
		val->unavailable = 1;
	} else {
		xreg_bytes(&r, x, size, val->buf);
		if (r.kind == XR_X87 && !strcmp(name, "fop"))
			val->buf[1] &= 0x07;
		if (r.kind == XR_X87 && !strcmp(name, "ftag")) {
			/* gdb's full tag word, from FXSAVE's abridged one */
			unsigned tag = full_ftag(x);

			memcpy(val->buf, &tag, 4);
		}
		val->lval = LV_XREG;
		val->regno = (int)r.kind << 8 | r.n;
		val->addr = 0;
	}
	free(x);
	*out = val;
	return 1;
}

int ptd__xreg_write(struct ptd_values *v, const struct ptd_value *lhs, const void *bytes,
		    size_t n)
{
	static const char *const prefix[] = { "xmm", "ymm", "zmm", "st", "mxcsr", "", "k" };
	int kind = lhs->regno >> 8, num = lhs->regno & 0xff;
	char name[16];
	struct xreg r;
	uint8_t *x, *regb, abridged;
	size_t size, pos = 0;
	uint64_t bv;
	int rc;

	if (kind == XR_X87)
		snprintf(name, sizeof(name), "%s", x87_regs[num].name);
	else if (kind == XR_MXCSR)
		snprintf(name, sizeof(name), "mxcsr");
	else
		snprintf(name, sizeof(name), "%s%d", prefix[kind], num);
	if (xreg_find(name, &r) < 0)
		return ptd__err(-ptde_internal, "no register %s", name);
	if (r.kind == XR_X87 && !strcmp(name, "ftag") && lhs->addr == 0 && n >= 2) {
		/* the full tag word written as FXSAVE keeps it: a bit per
		 * register that is not empty (3) */
		unsigned tag = (unsigned)((const uint8_t *)bytes)[0] |
			       (unsigned)((const uint8_t *)bytes)[1] << 8;

		abridged = 0;
		for (int i = 0; i < 8; i++)
			if (((tag >> (2 * i)) & 3) != 3)
				abridged |= (uint8_t)(1u << i);
		bytes = &abridged;
		n = 1;
	}
	/* (an x87 control register's int is wider than its bytes) */
	if (r.kind == XR_X87 && lhs->addr == 0 && n > r.size)
		n = r.size;
	if (lhs->addr + n > r.size)
		return ptd__err(-ptde_internal, "no register %s of %zu bytes", name, n);
	if (!v->set_xstate || !v->set_reg)
		return ptd__err(-ptde_unsupported,
				"cannot write registers: the program is not running live");
	/* (every frame has the innermost one's: gdb writes them there from
	 * any frame) */
	x = malloc(XSAVE_MAX + 64);
	if (!x)
		return ptd__err(-ptde_nomem, "out of memory");
	regb = x + XSAVE_MAX;
	size = xstate_get(v, x);
	if (!size) {
		free(x);
		return ptd__err(-ptde_unsupported, "value is not available");
	}
	xreg_bytes(&r, x, size, regb);
	memcpy(regb + lhs->addr, bytes, n);
	memcpy(&bv, x + 512, 8);
	for (int i = 0; i < r.npieces; i++) {
		size_t off, len;
		int c = r.piece[i].comp;

		if (comp_offset(c, &off, &len) < 0 || off + len > size) {
			free(x);
			return ptd__err(-ptde_internal, "register %s is not in the XSAVE state", name);
		}
		if (c != XC_LEGACY && !((bv >> c) & 1)) {
			/* a component leaving its initial state starts from zeros */
			memset(x + off, 0, len);
			bv |= 1ull << c;
		}
		memcpy(x + off + r.piece[i].at, regb + pos, r.piece[i].len);
		pos += r.piece[i].len;
	}
	memcpy(x + 512, &bv, 8);
	rc = v->set_xstate(v->ctx, x, size);
	free(x);
	return rc < 0 ? rc : 0;
}
