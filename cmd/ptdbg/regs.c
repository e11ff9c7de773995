/*
 * The registers beyond the general ones, as gdb 13 shows them on x86-64
 * with AVX-512: info all-registers (the general registers, st0-7 and the
 * x87 control registers, mxcsr, k0-7, zmm0-31 as gdb's vector unions in
 * hex), k0-7 after the general registers of info registers, and these
 * by name (info registers zmm1).  The values come from the thread's XSAVE
 * state (ptd_session_xstate); in the recorded past they are
 * <unavailable>, as gdb's btrace has them.
 */
#include <cpuid.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ptdbg/ptdbg.h"
#include "shell.h"

#define XSAVE_MAX 8192

/* XSAVE components (CPUID leaf 0xD sub-leaf = bit number) */
enum { XC_AVX = 2, XC_OPMASK = 5, XC_ZMM_HI256 = 6, XC_HI16_ZMM = 7 };

struct xstate {
	uint8_t buf[XSAVE_MAX];
	size_t size;
	uint64_t bv;   /* components not in their initial (zero) state */
	int ok;
};

/* Where component @c is in the standard-format XSAVE area, and whether
 * this CPU has it (XCR0, CPUID leaf 0xD sub-leaf 0 EAX). */
static int comp_offset(int c, size_t *off, size_t *len)
{
	unsigned a, b, cx, d;

	if (!__get_cpuid_count(0xd, 0, &a, &b, &cx, &d) || !(a & (1u << c)))
		return -1;
	if (!__get_cpuid_count(0xd, (unsigned)c, &a, &b, &cx, &d) || !a)
		return -1;
	*off = b;
	*len = a;
	return 0;
}

static int has_avx512(void)
{
	size_t o, l;

	return comp_offset(XC_OPMASK, &o, &l) == 0 && comp_offset(XC_ZMM_HI256, &o, &l) == 0 &&
	       comp_offset(XC_HI16_ZMM, &o, &l) == 0;
}

static void xstate_read(struct shell *sh, struct xstate *x)
{
	x->size = sizeof(x->buf);
	x->ok = ptd_session_xstate(sh->s, 0, x->buf, &x->size) == 0 && x->size >= 576;
	ptd_clear_error();
	if (x->ok)
		memcpy(&x->bv, x->buf + 512, 8);
}

/* @n bytes of component @c at @at in it, zeros when it is in its initial
 * state or the state is short. */
static void comp_bytes(const struct xstate *x, int c, size_t at, void *out, size_t n)
{
	size_t off, len;

	memset(out, 0, n);
	if (!(x->bv & (1ull << c)) || comp_offset(c, &off, &len) < 0 || at + n > len ||
	    off + at + n > x->size)
		return;
	memcpy(out, x->buf + off + at, n);
}

static void unavailable(const char *name)
{
	printf("%-15s<unavailable>\n", name);
}

/* "k0             0x0                 0" */
static void int_line(const char *name, uint64_t v)
{
	char raw[32];

	snprintf(raw, sizeof(raw), "0x%" PRIx64, v);
	printf("%-15s%-20s%" PRIu64 "\n", name, raw, v);
}

static void kreg(const struct xstate *x, int i)
{
	char name[8];
	uint64_t v;

	snprintf(name, sizeof(name), "k%d", i);
	if (!x->ok) {
		unavailable(name);
		return;
	}
	comp_bytes(x, XC_OPMASK, 8 * (size_t)i, &v, 8);
	int_line(name, v);
}

/* The 64 bytes of zmm@i: xmm (FXSAVE area), the AVX upper half, the
 * ZMM_Hi256 upper half; zmm16-31 whole in Hi16_ZMM. */
static void zmm_bytes(const struct xstate *x, int i, uint8_t z[64])
{
	memset(z, 0, 64);
	if (i < 16) {
		memcpy(z, x->buf + 160 + 16 * i, 16);
		comp_bytes(x, XC_AVX, 16 * (size_t)i, z + 16, 16);
		comp_bytes(x, XC_ZMM_HI256, 32 * (size_t)i, z + 32, 32);
	} else {
		comp_bytes(x, XC_HI16_ZMM, 64 * (size_t)(i - 16), z, 64);
	}
}

/* One member of gdb's vector union: @count elements of @size bytes in
 * hex, runs of 10 or more equal ones as "0x0 <repeats 24 times>". */
static void vec_member(const char *name, const uint8_t *z, int count, int size)
{
	printf("%s = {", name);
	for (int i = 0; i < count;) {
		const uint8_t *e = z + (size_t)i * (size_t)size;
		int run = 1;
		char hex[40];

		while (i + run < count && !memcmp(e, z + (size_t)(i + run) * (size_t)size, (size_t)size))
			run++;
		if (size <= 8) {
			uint64_t v = 0;

			memcpy(&v, e, (size_t)size);
			snprintf(hex, sizeof(hex), "0x%" PRIx64, v);
		} else {
			uint64_t lo, hi;

			memcpy(&lo, e, 8);
			memcpy(&hi, e + 8, 8);
			if (hi)
				snprintf(hex, sizeof(hex), "0x%" PRIx64 "%016" PRIx64, hi, lo);
			else
				snprintf(hex, sizeof(hex), "0x%" PRIx64, lo);
		}
		if (i)
			printf(", ");
		if (run >= 10) {
			printf("%s <repeats %d times>", hex, run);
			i += run;
		} else {
			printf("%s", hex);
			i++;
		}
	}
	printf("}");
}

static void zmm(const struct xstate *x, int i)
{
	static const struct {
		const char *name;
		int count, size;
	} m[] = {
		{ "v32_bfloat16", 32, 2 }, { "v32_half", 32, 2 }, { "v16_float", 16, 4 },
		{ "v8_double", 8, 8 },	   { "v64_int8", 64, 1 }, { "v32_int16", 32, 2 },
		{ "v16_int32", 16, 4 },	   { "v8_int64", 8, 8 },  { "v4_int128", 4, 16 },
	};
	char name[8];
	uint8_t z[64];

	snprintf(name, sizeof(name), "zmm%d", i);
	if (!x->ok) {
		unavailable(name);
		return;
	}
	zmm_bytes(x, i, z);
	printf("%-15s{", name);
	for (size_t k = 0; k < sizeof(m) / sizeof(m[0]); k++) {
		if (k)
			printf(", ");
		vec_member(m[k].name, z, m[k].count, m[k].size);
	}
	printf("}\n");
}

/* gdb's xmm and ymm pseudo registers: the low 16 or 32 bytes of zmm@i
 * (xmm's last member a single uint128) */
static void xymm(const struct xstate *x, int i, int ymm)
{
	static const struct {
		const char *name;
		int count, size;
	} mx[] = {
		{ "v8_bfloat16", 8, 2 }, { "v8_half", 8, 2 },	{ "v4_float", 4, 4 },
		{ "v2_double", 2, 8 },	 { "v16_int8", 16, 1 }, { "v8_int16", 8, 2 },
		{ "v4_int32", 4, 4 },	 { "v2_int64", 2, 8 },
	}, my[] = {
		{ "v16_bfloat16", 16, 2 }, { "v16_half", 16, 2 },  { "v8_float", 8, 4 },
		{ "v4_double", 4, 8 },	   { "v32_int8", 32, 1 },  { "v16_int16", 16, 2 },
		{ "v8_int32", 8, 4 },	   { "v4_int64", 4, 8 },   { "v2_int128", 2, 16 },
	};
	char name[8];
	uint8_t z[64];
	size_t n = ymm ? sizeof(my) / sizeof(my[0]) : sizeof(mx) / sizeof(mx[0]);

	snprintf(name, sizeof(name), "%cmm%d", ymm ? 'y' : 'x', i);
	if (!x->ok) {
		unavailable(name);
		return;
	}
	zmm_bytes(x, i, z);
	printf("%-15s{", name);
	for (size_t k = 0; k < n; k++) {
		if (k)
			printf(", ");
		if (ymm)
			vec_member(my[k].name, z, my[k].count, my[k].size);
		else
			vec_member(mx[k].name, z, mx[k].count, mx[k].size);
	}
	if (!ymm) {
		uint64_t lo, hi;

		memcpy(&lo, z, 8);
		memcpy(&hi, z + 8, 8);
		if (hi)
			printf(", uint128 = 0x%" PRIx64 "%016" PRIx64, hi, lo);
		else
			printf(", uint128 = 0x%" PRIx64, lo);
	}
	printf("}\n");
}

static void st(const struct xstate *x, int i)
{
	char name[8], val[64];
	uint8_t r[10];
	long double ld = 0;

	snprintf(name, sizeof(name), "st%d", i);
	if (!x->ok) {
		unavailable(name);
		return;
	}
	/* (the FXSAVE area's registers are st0 first, 16 bytes apart) */
	memcpy(r, x->buf + 32 + 16 * i, 10);
	memcpy(&ld, r, 10);
	snprintf(val, sizeof(val), "%.19Lg", ld);
	printf("%-15s%-20s(raw 0x", name, val);
	for (int k = 9; k >= 0; k--)
		printf("%02x", r[k]);
	printf(")\n");
}

/* gdb's full tag word from FXSAVE's abridged one: 3 (empty) for a free
 * register, else 0 valid, 1 zero or 2 special by its contents. */
static unsigned full_ftag(const struct xstate *x)
{
	unsigned abridged = x->buf[4], fsw, top, tag = 0;

	fsw = (unsigned)x->buf[2] | (unsigned)x->buf[3] << 8;
	top = (fsw >> 11) & 7;
	for (unsigned phys = 0; phys < 8; phys++) {
		unsigned t = 3;

		if (abridged & (1u << phys)) {
			/* st(i) holds physical register (i + top) mod 8 */
			const uint8_t *r = x->buf + 32 + 16 * ((phys - top) & 7);
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

static void mxcsr_line(const struct xstate *x)
{
	static const char *const bits[] = { "IE", "DE", "ZE", "OE", "UE", "PE", "DAZ",
					    "IM", "DM", "ZM", "OM", "UM", "PM" };
	uint32_t v;
	char raw[32], nat[128] = "[ ";

	if (!x->ok) {
		unavailable("mxcsr");
		return;
	}
	memcpy(&v, x->buf + 24, 4);
	for (int b = 0; b < 13; b++)
		if (v & (1u << b)) {
			strcat(nat, bits[b]);
			strcat(nat, " ");
		}
	if (v & (1u << 15))
		strcat(nat, "FZ ");
	strcat(nat, "]");
	snprintf(raw, sizeof(raw), "0x%" PRIx32, v);
	printf("%-15s%-20s%s\n", "mxcsr", raw, nat);
}

static void x87_line(const struct xstate *x, const char *name)
{
	uint64_t v = 0;

	if (!x->ok) {
		unavailable(name);
		return;
	}
	if (!strcmp(name, "fctrl"))
		v = (uint64_t)x->buf[0] | (uint64_t)x->buf[1] << 8;
	else if (!strcmp(name, "fstat"))
		v = (uint64_t)x->buf[2] | (uint64_t)x->buf[3] << 8;
	else if (!strcmp(name, "ftag"))
		v = full_ftag(x);
	else if (!strcmp(name, "fop"))
		v = ((uint64_t)x->buf[6] | (uint64_t)x->buf[7] << 8) & 0x7ff;
	else {
		/* the 64-bit FXSAVE format's instruction and operand pointers:
		 * gdb's fioff/fooff their low halves, fiseg/foseg the high */
		int data = name[1] == 'o';
		uint64_t p;

		memcpy(&p, x->buf + (data ? 16 : 8), 8);
		v = !strcmp(name + 2, "off") ? (uint32_t)p : p >> 32;
	}
	int_line(name, v);
}

static const char *const x87_names[] = { "fctrl", "fstat", "ftag", "fiseg",
					 "fioff", "foseg", "fooff", "fop" };

int shell_info_extra_reg(struct shell *sh, const char *name)
{
	struct xstate *x;
	int n = -1, found = 1;
	char tail[8];

	if (sscanf(name, "k%d%7s", &n, tail) == 1 && n >= 0 && n < 8 && has_avx512()) {
	} else if (sscanf(name, "zmm%d%7s", &n, tail) == 1 && n >= 0 && n < 32 && has_avx512()) {
	} else if ((sscanf(name, "xmm%d%7s", &n, tail) == 1 || sscanf(name, "ymm%d%7s", &n, tail) == 1) &&
		   n >= 0 && n < (has_avx512() ? 32 : 16)) {
	} else if (sscanf(name, "st%d%7s", &n, tail) == 1 && n >= 0 && n < 8) {
	} else if (!strcmp(name, "mxcsr")) {
	} else {
		found = 0;
		for (size_t i = 0; i < sizeof(x87_names) / sizeof(x87_names[0]); i++)
			found |= !strcmp(name, x87_names[i]);
		if (!found)
			return 0;
	}
	x = calloc(1, sizeof(*x));
	if (!x)
		return shell_error("out of memory");
	xstate_read(sh, x);
	if (name[0] == 'k')
		kreg(x, n);
	else if (name[0] == 'x' || name[0] == 'y')
		xymm(x, n, name[0] == 'y');
	else if (name[0] == 'z')
		zmm(x, n);
	else if (name[0] == 's' && name[1] == 't')
		st(x, n);
	else if (!strcmp(name, "mxcsr"))
		mxcsr_line(x);
	else
		x87_line(x, name);
	free(x);
	return 1;
}

void shell_print_kregs(struct shell *sh)
{
	struct xstate *x;

	if (!has_avx512() || !(x = calloc(1, sizeof(*x))))
		return;
	xstate_read(sh, x);
	for (int i = 0; i < 8; i++)
		kreg(x, i);
	free(x);
}

void shell_print_extra_regs(struct shell *sh)
{
	struct xstate *x = calloc(1, sizeof(*x));

	if (!x)
		return;
	xstate_read(sh, x);
	for (int i = 0; i < 8; i++)
		st(x, i);
	for (size_t i = 0; i < sizeof(x87_names) / sizeof(x87_names[0]); i++)
		x87_line(x, x87_names[i]);
	mxcsr_line(x);
	if (has_avx512()) {
		for (int i = 0; i < 8; i++)
			kreg(x, i);
		for (int i = 0; i < 32; i++)
			zmm(x, i);
	}
	free(x);
}
