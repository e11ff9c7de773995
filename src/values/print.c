/*
 * Values as gdb 13's print shows them: integers, chars ("65 'A'"),
 * _Bool, enums, floats (%g with 9 or 17 digits), pointers with their type
 * at the top level and <symbol+off> after addresses, char pointers and
 * arrays as strings, structs "{x = 1, y = 2}", arrays with
 * "<repeats N times>" and the 200-element limit, and the /x /d /u /o /t
 * /c /a /z /s formats applied element by element.
 */
#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "symbols/symbols.h"
#include "util/error.h"
#include "values/values_int.h"

#define REPEAT_THRESHOLD 10 /* gdb's "print repeats" */

void ptd__sb_add(struct sbuf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (b->oom)
		return;
	for (;;) {
		size_t room = b->cap - b->len;

		va_start(ap, fmt);
		n = vsnprintf(b->s ? b->s + b->len : NULL, room, fmt, ap);
		va_end(ap);
		if (n < 0) {
			b->oom = 1;
			return;
		}
		if ((size_t)n < room) {
			b->len += (size_t)n;
			return;
		}
		size_t cap = b->cap ? b->cap * 2 : 128;

		while (cap - b->len <= (size_t)n)
			cap *= 2;
		char *s = realloc(b->s, cap);

		if (!s) {
			b->oom = 1;
			return;
		}
		b->s = s;
		b->cap = cap;
	}
}

uint64_t ptd__bits(const uint8_t *p, uint64_t size, int is_signed)
{
	uint64_t x = 0;

	if (size > 8)
		size = 8;
	memcpy(&x, p, size);
	if (size < 8 && size > 0 && is_signed && ((x >> (8 * size - 1)) & 1))
		x |= ~0ull << (8 * size);
	return x;
}

/* One character in gdb's escaped form, for '...' (@q = '\'') or "..."
 * (@q = '"'). */
static void put_char(struct sbuf *b, unsigned c, int q)
{
	switch (c) {
	case '\a': ptd__sb_add(b, "\\a"); return;
	case '\b': ptd__sb_add(b, "\\b"); return;
	case '\f': ptd__sb_add(b, "\\f"); return;
	case '\n': ptd__sb_add(b, "\\n"); return;
	case '\r': ptd__sb_add(b, "\\r"); return;
	case '\t': ptd__sb_add(b, "\\t"); return;
	case '\v': ptd__sb_add(b, "\\v"); return;
	case 033: ptd__sb_add(b, "\\033"); return;
	default:
		break;
	}
	if (c == '\\' || (int)c == q)
		ptd__sb_add(b, "\\%c", c);
	else if (c >= 0x20 && c < 0x7f)
		ptd__sb_add(b, "%c", c);
	else if (c <= 0xff)
		ptd__sb_add(b, "\\%03o", c);
	else
		ptd__sb_add(b, "\\x%x", c);
}

static void char_literal(struct sbuf *b, int64_t v)
{
	ptd__sb_add(b, "%lld '", (long long)v);
	put_char(b, (unsigned)(v & 0xff), '\'');
	ptd__sb_add(b, "'");
}

static uint32_t code_unit(const uint8_t *s, size_t i, size_t width)
{
	uint32_t c = 0;

	if (width == 1)
		return s[i];
	memcpy(&c, s + i * width, width == 2 ? 2 : 4);
	return c;
}

void ptd__print_chars(struct sbuf *b, const uint8_t *s, size_t n, size_t width, int more)
{
	size_t i = 0;
	int inq = 0, first = 1;

	if (width != 2 && width != 4)
		width = 1;
	if (!n && !more) {
		ptd__sb_add(b, "\"\"");
		return;
	}
	while (i < n) {
		size_t run = 1;
		uint32_t c = code_unit(s, i, width);

		while (i + run < n && code_unit(s, i + run, width) == c)
			run++;
		if (run > REPEAT_THRESHOLD) {
			if (inq)
				ptd__sb_add(b, "\", ");
			else if (!first)
				ptd__sb_add(b, ", ");
			ptd__sb_add(b, "'");
			put_char(b, c, '\'');
			ptd__sb_add(b, "' <repeats %zu times>", run);
			inq = 0;
			i += run;
		} else {
			if (!inq)
				ptd__sb_add(b, first ? "\"" : ", \"");
			inq = 1;
			put_char(b, c, '"');
			i++;
		}
		first = 0;
	}
	if (inq)
		ptd__sb_add(b, "\"");
	if (more)
		ptd__sb_add(b, "...");
}

/* gdb's generic_printstr: runs longer than the threshold as
 * 'c' <repeats N times>, the rest in quotes; @more: "..." after. */
static void print_string(struct sbuf *b, const uint8_t *s, size_t n, int more)
{
	ptd__print_chars(b, s, n, 1, more);
}

/* The symbol gdb's print_address shows with asm-demangle off, for the
 * /a format: the mangled name (_ZNK4Leaf6weightEv+2), and where an ELF
 * symbol starts that is not the function's entry (a .cold part), that
 * symbol. */
static int symbolize_asm(struct ptd_values *v, uint64_t addr, char *out, size_t n)
{
	struct ptd_symbol s, m;
	const char *name;

	if (ptd_symbols_lookup(v->sym, addr, &s) < 0 || !s.name)
		return -1;
	if (s.offset && ptd_symbols_minimal(v->sym, addr, &m, NULL, 0) == 0 && m.start == addr &&
	    m.name) {
		snprintf(out, n, "%s", m.mangled ? m.mangled : m.name);
		return 0;
	}
	name = s.mangled ? s.mangled : s.name;
	if (s.offset)
		snprintf(out, n, "%s%+lld", name, (long long)s.offset);
	else
		snprintf(out, n, "%s", name);
	return 0;
}

static void print_symbol_suffix_as(struct ptd_values *v, struct sbuf *b, uint64_t addr,
				   int asm_names)
{
	char sym[256];
	int rc;

	if (!v->sym)
		return;
	rc = asm_names ? symbolize_asm(v, addr, sym, sizeof(sym))
		       : ptd_symbols_symbolize(v->sym, addr, sym, sizeof(sym));
	ptd_clear_error();
	if (rc == 0) {
		char *at = strstr(sym, "@@");

		if (at) /* "name@@GLIBC_2.2.5+4": drop the version */
			memmove(at, at + strcspn(at, "+"), strlen(at + strcspn(at, "+")) + 1);
		ptd__sb_add(b, " <%s>", sym);
	}
}

static void print_symbol_suffix(struct ptd_values *v, struct sbuf *b, uint64_t addr)
{
	print_symbol_suffix_as(v, b, addr, 0);
}

static void format_int(struct ptd_values *v, struct sbuf *b, uint64_t raw, uint64_t size,
		       int is_signed, int fmt)
{
	uint64_t m = size >= 8 ? raw : raw & ((1ull << (8 * size)) - 1);
	int64_t sv = (int64_t)ptd__bits((const uint8_t *)&m, size, 1);

	switch (fmt) {
	case 'x':
		ptd__sb_add(b, "0x%llx", (unsigned long long)m);
		return;
	case 'z':
		ptd__sb_add(b, "0x%0*llx", (int)(2 * size), (unsigned long long)m);
		return;
	case 'o':
		ptd__sb_add(b, m ? "0%llo" : "0", (unsigned long long)m);
		return;
	case 't': {
		int i, started = 0;

		for (i = (int)(8 * (size > 8 ? 8 : size)) - 1; i >= 0; i--) {
			if ((m >> i) & 1)
				started = 1;
			if (started)
				ptd__sb_add(b, "%c", (m >> i) & 1 ? '1' : '0');
		}
		if (!started)
			ptd__sb_add(b, "0");
		return;
	}
	case 'd':
		ptd__sb_add(b, "%lld", (long long)sv);
		return;
	case 'u':
		ptd__sb_add(b, "%llu", (unsigned long long)m);
		return;
	case 'c':
		char_literal(b, is_signed ? (int64_t)(int8_t)m : (int64_t)(uint8_t)m);
		return;
	case 'a':
		/* (gdb's print_address: asm names, mangled for C++) */
		ptd__sb_add(b, "0x%llx", (unsigned long long)m);
		print_symbol_suffix_as(v, b, m, 1);
		return;
	default:
		if (is_signed)
			ptd__sb_add(b, "%lld", (long long)sv);
		else
			ptd__sb_add(b, "%llu", (unsigned long long)m);
	}
}

/* 2^@k for -1022 <= k <= 1023, from its bits (no libm here) */
static double pow2(int k)
{
	uint64_t bits = (uint64_t)(k + 1023) << 52;
	double d;

	memcpy(&d, &bits, 8);
	return d;
}

double ptd__half_to_double(const uint8_t *p, int bf16)
{
	unsigned h = (unsigned)p[0] | (unsigned)p[1] << 8;
	int mbits = bf16 ? 7 : 10, ebits = bf16 ? 8 : 5;
	unsigned emax = (1u << ebits) - 1, e = (h >> mbits) & emax, m = h & ((1u << mbits) - 1);
	int bias = (1 << (ebits - 1)) - 1;
	double d;

	if (e == emax)
		d = m ? NAN : INFINITY;
	else if (e)
		d = (double)((1u << mbits) | m) * pow2((int)e - bias - mbits);
	else
		d = (double)m * pow2(1 - bias - mbits);
	return (h >> 15) ? -d : d;
}

/*
 * gdb 13's conversions to these formats are not IEEE's, and mirrored as
 * it gives them: a half loses its sign; a NaN becomes the positive one of
 * mantissa 1, 0 and -0 are 0; below the normal range the fraction is kept
 * with a zero exponent one binade down, and further down the value is 0
 * (-0 for a bfloat16).
 */
unsigned ptd__half_from_double(double d, int bf16)
{
	int mbits = bf16 ? 7 : 10, ebits = bf16 ? 8 : 5, bias = (1 << (ebits - 1)) - 1, e;
	unsigned emax = (1u << ebits) - 1, sign;
	uint64_t bits, f, rem, half;
	const int shift = 52 - mbits;

	memcpy(&bits, &d, 8);
	sign = bf16 ? (unsigned)(bits >> 63) << 15 : 0;
	if (((bits >> 52) & 0x7ff) == 0x7ff)
		return ((bits << 12) ? 0 : sign) | emax << mbits | ((bits << 12) ? 1u : 0);
	if (!(bits << 1))
		return 0;
	if (!((bits >> 52) & 0x7ff)) /* far below the smallest */
		return sign;
	/* d is 1.f * 2^(e - bias): f to mbits bits, to nearest, ties to even */
	e = (int)((bits >> 52) & 0x7ff) - 1023 + bias;
	f = (bits & ((1ull << 52) - 1)) >> shift;
	rem = bits & ((1ull << shift) - 1);
	half = 1ull << (shift - 1);
	if (rem > half || (rem == half && (f & 1)))
		f++;
	if (f == 1ull << mbits) {
		f = 0;
		e++;
	}
	if (e >= (int)emax)
		return sign | emax << mbits;
	if (e < 0)
		return sign;
	return sign | (unsigned)e << mbits | (unsigned)f;
}

/* A 2-byte float (IEEE half, or bfloat16 with @bf16) as gdb prints it:
 * %g with 5 or 4 digits, a NaN with its mantissa bits. */
static void format_half(struct sbuf *b, const uint8_t *p, int bf16)
{
	unsigned h = (unsigned)p[0] | (unsigned)p[1] << 8;
	unsigned mmask = bf16 ? 0x7f : 0x3ff;
	double d = ptd__half_to_double(p, bf16);

	if (isnan(d))
		ptd__sb_add(b, "%snan(0x%x)", (h >> 15) ? "-" : "", h & mmask);
	else if (isinf(d))
		ptd__sb_add(b, d < 0 ? "-inf" : "inf");
	else
		ptd__sb_add(b, "%.*g", bf16 ? 4 : 5, d);
}

/* A number of 9 to 16 bytes in hex (/x of an int128 or of $st0), with
 * its leading zeros for @zeros (/z) */
static void format_wide_hex(struct sbuf *b, const uint8_t *p, uint64_t size, int zeros)
{
	int i = (int)size - 1;

	if (zeros) {
		ptd__sb_add(b, "0x");
		for (; i >= 0; i--)
			ptd__sb_add(b, "%02x", p[i]);
		return;
	}
	while (i > 0 && !p[i])
		i--;
	ptd__sb_add(b, "0x%x", p[i]);
	while (--i >= 0)
		ptd__sb_add(b, "%02x", p[i]);
}

/* A number of 9 to 16 bytes (an int128, the bytes of $st0) in decimal
 * (signed: its top bit is the sign), octal or binary, as /d /u /o /t
 * print it */
static void format_wide(struct sbuf *b, const uint8_t *p, uint64_t size, int fmt, int is_signed)
{
	unsigned __int128 u = 0;
	char digits[136];
	int n = sizeof(digits) - 1, neg = 0;
	unsigned base = fmt == 'o' ? 8 : fmt == 't' ? 2 : 10;

	memcpy(&u, p, size > 16 ? 16 : size);
	if (base == 10 && is_signed && (p[size - 1] & 0x80)) {
		if (size < 16)
			u |= ~(unsigned __int128)0 << (8 * size);
		neg = 1;
		u = -u;
	}
	digits[n] = 0;
	do {
		digits[--n] = (char)('0' + (int)(u % base));
		u /= base;
	} while (u);
	if (base == 8 && strcmp(digits + n, "0"))
		digits[--n] = '0';
	ptd__sb_add(b, "%s%s", neg ? "-" : "", digits + n);
}

/* A format an integer of more than 8 bytes has, printed; 0 if not one
 * (the caller prints it naturally) */
static int format_wide_fmt(struct sbuf *b, const uint8_t *p, uint64_t size, int fmt, int is_signed)
{
	switch (fmt) {
	case 'x':
	case 'z':
		format_wide_hex(b, p, size, fmt == 'z');
		return 1;
	case 'd':
	case 'u':
		format_wide(b, p, size, fmt, fmt == 'd' ? 1 : 0);
		return 1;
	case 'o':
	case 't':
		format_wide(b, p, size, fmt, is_signed);
		return 1;
	case 'c':
	case 'a':
		/* (gdb's words, where the value would be) */
		ptd__sb_add(b, "That operation is not available on integers of more than 8 bytes.");
		return 1;
	default:
		return 0;
	}
}

static void format_float(struct sbuf *b, const uint8_t *p, uint64_t size)
{
	double d;
	char tmp[64];

	if (size == 2) {
		format_half(b, p, 0);
		return;
	}
	if (size == 4) {
		float f;

		memcpy(&f, p, 4);
		d = f;
	} else if (size == 8) {
		memcpy(&d, p, 8);
	} else {
		long double ld = 0;

		memcpy(&ld, p, sizeof(ld) < size ? sizeof(ld) : size);
		if (isnan(ld) && size >= 10) {
			/* x87's NaN: its 64-bit mantissa, the integer bit too */
			uint64_t mant;

			memcpy(&mant, p, 8);
			ptd__sb_add(b, "%snan(0x%llx)", (p[9] & 0x80) ? "-" : "",
				    (unsigned long long)mant);
			return;
		}
		if (isnan(ld) || isinf(ld))
			d = (double)ld;
		else {
			ptd__sb_add(b, "%.21Lg", ld); /* x87's 64 bits: gdb's 21 digits */
			return;
		}
	}
	if (isnan(d)) {
		uint64_t bits;

		if (size == 4) {
			uint32_t fb;

			memcpy(&fb, p, 4);
			ptd__sb_add(b, "%snan(0x%x)", (fb >> 31) ? "-" : "", fb & 0x7fffff);
			return;
		}
		memcpy(&bits, &d, 8);
		ptd__sb_add(b, "%snan(0x%llx)", (bits >> 63) ? "-" : "",
			    (unsigned long long)(bits & 0xfffffffffffffull));
		return;
	}
	if (isinf(d)) {
		ptd__sb_add(b, d < 0 ? "-inf" : "inf");
		return;
	}
	snprintf(tmp, sizeof(tmp), "%.*g", size == 4 ? 9 : 17, d);
	ptd__sb_add(b, "%s", tmp);
}


/* A char pointer's string: up to print elements characters before the
 * NUL. */
static void pointed_string(struct ptd_values *v, struct sbuf *b, uint64_t addr)
{
	uint8_t *s = NULL;
	size_t n = 0, cap = 0;

	while (n < v->print_max + 1) {
		long got;

		if (n == cap) {
			uint8_t *ns = realloc(s, cap = cap ? cap * 2 : 256);

			if (!ns) {
				b->oom = 1;
				free(s);
				return;
			}
			s = ns;
		}
		got = v->read ? v->read(v->ctx, addr + n, &s[n], 1) : -1;

		v->used_memory = 1;
		if (got != 1) {
			if (!n) {
				ptd__sb_add(b, " <error: Cannot access memory at address 0x%llx>",
					    (unsigned long long)addr);
				free(s);
				return;
			}
			break;
		}
		if (!s[n])
			break;
		n++;
	}
	ptd__sb_add(b, " ");
	if (n > v->print_max)
		print_string(b, s, v->print_max, 1);
	else
		print_string(b, s, n, 0);
	free(s);
}

static int is_char_type(struct vtype *t)
{
	t = ptd__vt_strip(t);
	return t && t->kind == VT_INT && t->is_char && t->size == 1;
}

/* gdb leaves the type out before a pointer's value only for a plain
 * pointer to "char" (maybe const or volatile: the string says what it
 * is); a typedef of one, or unsigned char *, keeps it. */
static int plain_char_pointer(struct vtype *orig)
{
	struct vtype *to;

	while (orig && orig->kind == VT_QUAL)
		orig = orig->target;
	if (!orig || orig->kind != VT_PTR)
		return 0;
	for (to = orig->target; to && to->kind == VT_QUAL;)
		to = to->target;
	return to && to->kind == VT_INT && to->name && !strcmp(to->name, "char");
}

/* @t is the pointer type, @orig the value's own type (a typedef of it,
 * qualifiers), whose name goes before the value at the top. */
static void print_pointer(struct ptd_values *v, struct vtype *t, struct vtype *orig, uint64_t x,
			  int fmt, int top, struct sbuf *b)
{
	struct vtype *to = ptd__vt_strip(t->target);

	if (fmt && fmt != 's' && fmt != 'a') {
		format_int(v, b, x, 8, 0, fmt);
		return;
	}
	if (is_char_type(to) && fmt != 'a') {
		if (top && !plain_char_pointer(orig)) {
			char *n = ptd__vt_name(orig, "");

			ptd__sb_add(b, "(%s) ", n ? n : "?");
			free(n);
		}
		ptd__sb_add(b, "0x%llx", (unsigned long long)x);
		if (x) {
			print_symbol_suffix(v, b, x);
			pointed_string(v, b, x);
		}
		return;
	}
	if (top && fmt != 'a') {
		char *n = ptd__vt_name(orig, "");

		ptd__sb_add(b, "(%s) ", n ? n : "?");
		free(n);
	}
	ptd__sb_add(b, "0x%llx", (unsigned long long)x);
	if ((to && to->kind == VT_FUNC) || x)
		print_symbol_suffix_as(v, b, x, fmt == 'a');
}

static void print_flags(struct sbuf *b, const struct vtype *t, uint64_t x)
{
	const struct ptd__flag *f = t->flags ? t->flags : ptd__eflags_flags;

	ptd__sb_add(b, "[ ");
	for (; f->name; f++)
		if (f->name[0] && (x & (1ull << f->bit)))
			ptd__sb_add(b, "%s ", f->name);
	ptd__sb_add(b, "]");
}

static int print_array(struct ptd_values *v, struct vtype *t, const uint8_t *p, int fmt,
		       struct sbuf *b, int depth)
{
	uint64_t esz = ptd__vt_size(t->target);
	int64_t n = t->count < 0 ? 0 : t->count, i = 0, printed = 0;
	int rc;

	if (is_char_type(t->target) && (!fmt || fmt == 's')) {
		size_t len = (size_t)n;
		int more = 0;

		if (len > v->print_max) {
			len = v->print_max;
			more = 1;
		} else if (len && !p[len - 1]) {
			len--; /* gdb drops one trailing NUL */
		}
		print_string(b, p, len, more);
		return 0;
	}
	ptd__sb_add(b, "{");
	while (i < n && (uint64_t)printed < v->print_max) {
		int64_t run = 1;

		while (i + run < n && esz && !memcmp(p + i * esz, p + (i + run) * esz, esz))
			run++;
		if (i)
			ptd__sb_add(b, ", ");
		if (run > REPEAT_THRESHOLD) {
			rc = ptd__print_at(v, t->target, p + i * esz, esz, fmt, 0, b, depth + 1);
			if (rc < 0)
				return rc;
			ptd__sb_add(b, " <repeats %lld times>", (long long)run);
			i += run;
			printed += REPEAT_THRESHOLD;
		} else {
			rc = ptd__print_at(v, t->target, p + i * esz, esz, fmt, 0, b, depth + 1);
			if (rc < 0)
				return rc;
			i++;
			printed++;
		}
	}
	if (i < n)
		ptd__sb_add(b, "...");
	ptd__sb_add(b, "}");
	return 0;
}

/* A virtual base of the object at @p (a part of the value printing): at
 * the offset the object's vtable gives, read from memory (it may lie
 * outside the bytes at hand); gdb's "<invalid address>" for an object not
 * in memory. */
static void print_virtual_base(struct ptd_values *v, struct vtype *s, struct vt_member *m,
			       const uint8_t *p, int fmt, struct sbuf *b, int depth)
{
	uint64_t obj, vptr = 0, bsz = ptd__vt_size(m->type);
	int64_t off = 0;
	const uint8_t *saved_buf = v->print_buf, *saved_mask = v->print_mask;
	uint64_t saved_addr = v->print_addr;
	uint8_t *tmp;

	if (!v->print_in_mem || !v->print_buf || p < v->print_buf || s->size < 8) {
		ptd__sb_add(b, "<invalid address>");
		return;
	}
	obj = v->print_addr + (uint64_t)(p - v->print_buf);
	memcpy(&vptr, p, 8);
	if (ptd__mem_read(v, vptr - (uint64_t)m->vbase_slot, &off, 8) < 0) {
		ptd__sb_add(b, "<error: Cannot access memory at address 0x%llx>",
			    (unsigned long long)(vptr - (uint64_t)m->vbase_slot));
		return;
	}
	tmp = bsz && bsz <= VAL_MAX_SIZE ? malloc(bsz) : NULL;
	if (!tmp || ptd__mem_read(v, obj + (uint64_t)off, tmp, bsz) < 0) {
		ptd__sb_add(b, "<error: Cannot access memory at address 0x%llx>",
			    (unsigned long long)(obj + (uint64_t)off));
		free(tmp);
		return;
	}
	/* the base's bytes as read from memory, and where they are */
	v->print_buf = tmp;
	v->print_mask = NULL;
	v->print_addr = obj + (uint64_t)off;
	ptd__print_at(v, m->type, tmp, bsz, fmt, 0, b, depth);
	v->print_buf = saved_buf;
	v->print_mask = saved_mask;
	v->print_addr = saved_addr;
	free(tmp);
}

int ptd__print_at(struct ptd_values *v, struct vtype *t, const uint8_t *p, uint64_t avail, int fmt,
		  int top, struct sbuf *b, int depth)
{
	struct vtype *s = ptd__vt_strip(t);
	uint64_t x;
	int i;

	if (!s || depth > 32) {
		ptd__sb_add(b, "...");
		return 0;
	}
	/* DWARF is untrusted: a member or element that does not lie inside
	 * the bytes of its container is not read */
	if (ptd__vt_size(s) > avail && s->kind != VT_FUNC && s->kind != VT_VOID) {
		ptd__sb_add(b, "<invalid type layout>");
		return 0;
	}
	/* a scalar in a piece that is not known (a value in pieces) */
	if (v->print_mask && v->print_buf && p >= v->print_buf && s->kind != VT_STRUCT &&
	    s->kind != VT_UNION && s->kind != VT_ARRAY) {
		uint64_t off = (uint64_t)(p - v->print_buf), k;

		for (k = 0; k < ptd__vt_size(s); k++)
			if (v->print_mask[off + k] != VAL_BYTE_OK) {
				ptd__sb_add(b, v->print_mask[off + k] == VAL_BYTE_UNAVAIL ? "<unavailable>"
											   : "<optimized out>");
				return 0;
			}
	}
	/* gdb 13's /f takes an integer's (an enum's, a pointer's) bytes as
	 * a float of the same size where there is one */
	if (fmt == 'f' && (s->kind == VT_INT || s->kind == VT_ENUM || s->kind == VT_PTR ||
			   s->kind == VT_FLAGS) &&
	    (ptd__vt_size(s) == 4 || ptd__vt_size(s) == 8)) {
		format_float(b, p, ptd__vt_size(s));
		return 0;
	}
	switch (s->kind) {
	case VT_INT:
		if (s->size > 8) {
			/* int128_t and uint128_t of the vector registers */
			if (!format_wide_fmt(b, p, s->size, fmt, s->is_signed))
				format_wide(b, p, s->size, 'd', s->is_signed);
			return 0;
		}
		x = ptd__bits(p, s->size, s->is_signed);
		if (fmt && fmt != 's') {
			format_int(v, b, x, s->size, s->is_signed, fmt);
		} else if (s->is_bool && x <= 1) {
			ptd__sb_add(b, x ? "true" : "false");
		} else if (s->is_char && s->size == 1) {
			char_literal(b, (int64_t)x);
		} else {
			format_int(v, b, x, s->size, s->is_signed, 0);
		}
		return 0;
	case VT_ENUM:
		x = ptd__bits(p, s->size, s->is_signed);
		if (fmt && fmt != 's') {
			format_int(v, b, x, s->size, s->is_signed, fmt);
			return 0;
		}
		for (i = 0; i < s->nenums; i++)
			if ((uint64_t)s->enums[i].val == x ||
			    (s->size < 8 && ((uint64_t)s->enums[i].val & ((1ull << (8 * s->size)) - 1)) ==
						    (x & ((1ull << (8 * s->size)) - 1)))) {
				ptd__sb_add(b, "%s", s->enums[i].name);
				return 0;
			}
		format_int(v, b, x, s->size, s->is_signed, 0);
		return 0;
	case VT_FLOAT:
		if (fmt && fmt != 's' && fmt != 'f') {
			if (fmt == 'c') {
				/* gdb 13 converts a float to an integer for these */
				double d;

				if (s->size == 4) {
					float f;

					memcpy(&f, p, 4);
					d = f;
				} else if (s->size == 8) {
					memcpy(&d, p, 8);
				} else {
					long double ld = 0;

					memcpy(&ld, p, s->size > 10 ? 10 : s->size);
					d = s->size == 10 ? (double)ld : ptd__half_to_double(p, s->bfloat16);
				}
				format_int(v, b, d != d || d > 1e18 || d < -1e18 ? 0 : (uint64_t)(int64_t)d,
					   s->size, 1, fmt);
				return 0;
			}
			/* $st0's bytes as an integer, as gdb 13's /x /d */
			if (s->size > 8 && format_wide_fmt(b, p, s->size, fmt, 1))
				return 0;
			format_int(v, b, ptd__bits(p, s->size, 0), s->size, 0, fmt);
			return 0;
		}
		if (s->size == 2)
			format_half(b, p, s->bfloat16);
		else
			format_float(b, p, s->size);
		return 0;
	case VT_PTR:
		x = ptd__bits(p, 8, 0);
		print_pointer(v, s, t, x, fmt, top, b);
		return 0;
	case VT_REF:
		/* a reference inside an aggregate: only where it refers, as
		 * gdb prints it */
		ptd__sb_add(b, "@0x%llx", (unsigned long long)ptd__bits(p, 8, 0));
		return 0;
	case VT_ARRAY:
		return print_array(v, s, p, fmt, b, depth);
	case VT_STRUCT:
	case VT_UNION: {
		/* gdb's layout: each base part followed by ", ", then the
		 * members separated by ","; with print pretty each on a line
		 * of its own, two spaces deeper per level, and "members of
		 * Class:" between a class's bases and its own members */
		int nbases = 0, fields = 0, rc;

		/* a class of the C++ library as gdb's libstdc++ printers
		 * show it, unless print/r asked for the raw members */
		if (!v->raw && s->cplus && s->kind == VT_STRUCT) {
			rc = ptd__stl_print(v, s, p, fmt, b, depth);
			if (rc)
				return rc < 0 ? rc : 0;
		}
		ptd__sb_add(b, "{");
		for (i = 0; i < s->nmembers; i++) {
			struct vt_member *m = &s->members[i];

			if (m->is_base) {
				nbases++;
				if (v->pretty)
					ptd__sb_add(b, "\n%*s", 2 * (depth + 1), "");
			} else {
				if (fields)
					ptd__sb_add(b, v->pretty ? "," : ", ");
				else if (nbases && v->pretty)
					ptd__sb_add(b, "\n%*smembers of %s:", 2 * (depth + 1), "",
						    s->name ? s->name : "");
				fields++;
				if (v->pretty)
					ptd__sb_add(b, "\n%*s", 2 * (depth + 1), "");
			}
			if (m->name)
				ptd__sb_add(b, "%s = ", m->name);
			if (m->is_virtual) {
				print_virtual_base(v, s, m, p, fmt, b, depth + 1);
			} else if (m->bit_size) {
				uint64_t raw = 0;
				struct vtype *ms = ptd__vt_strip(m->type);
				uint8_t tmp[8];

				if (m->off + (uint64_t)(m->bit_off + m->bit_size + 7) / 8 > s->size) {
					ptd__sb_add(b, "<invalid type layout>");
					continue;
				}
				memcpy(&raw, p + m->off,
				       (size_t)((m->bit_off + m->bit_size + 7) / 8) > 8
					       ? 8
					       : (size_t)((m->bit_off + m->bit_size + 7) / 8));
				raw >>= m->bit_off;
				if (m->bit_size < 64)
					raw &= (1ull << m->bit_size) - 1;
				if (ms && ms->is_signed && m->bit_size < 64 &&
				    ((raw >> (m->bit_size - 1)) & 1))
					raw |= ~0ull << m->bit_size;
				memcpy(tmp, &raw, 8);
				rc = ptd__print_at(v, m->type, tmp, sizeof(tmp), fmt, 0, b, depth + 1);
				if (rc < 0)
					return rc;
			} else {
				/* the vtable pointer shows as an address with its
				 * symbol whatever the format, as gdb's
				 * print_function_pointer_address shows it */
				rc = ptd__print_at(v, m->type, p + m->off,
						   m->off <= s->size ? s->size - m->off : 0,
						   ptd__vt_is_vptr(m->name) ? 0 : fmt, 0, b, depth + 1);
				if (rc < 0)
					return rc;
			}
			if (m->is_base)
				ptd__sb_add(b, ", ");
		}
		/* a C++ class with no data members of its own says so */
		if (s->cplus && !fields)
			ptd__sb_add(b, "<No data fields>");
		else if (v->pretty && fields)
			ptd__sb_add(b, "\n%*s", 2 * depth, "");
		ptd__sb_add(b, "}");
		return 0;
	}
	case VT_FLAGS:
		x = ptd__bits(p, s->size, 0);
		if (fmt && fmt != 's')
			format_int(v, b, x, 4, 0, fmt);
		else
			print_flags(b, s, x);
		return 0;
	case VT_VOID:
		if (s->internal_fn)
			ptd__sb_add(b, "<internal function %s>", s->name);
		else
			ptd__sb_add(b, "void");
		return 0;
	default:
		return 0;
	}
}

int ptd__val_print(struct ptd_values *v, struct ptd_value *val, int fmt, int top, struct sbuf *b)
{
	struct vtype *s = ptd__vt_strip(val->type);
	int rc;

	if (val->ref_type) {
		/* a C++ reference: "(int &) @0x7ffe...: 3" */
		struct ptd_value tmp = *val;

		/* gdb's pretty printers take the reference as its referent:
		 * no "(T &) @0x...:" before what they print */
		if (!v->raw && ptd__stl_has_printer(val->type)) {
			tmp.ref_type = NULL;
			rc = ptd__val_print(v, &tmp, fmt, top, b);
			val->lazy = tmp.lazy;
			return rc;
		}
		if (top) {
			char *n = ptd__vt_name(val->ref_type, "");

			ptd__sb_add(b, "(%s) ", n ? n : "?");
			free(n);
		}
		ptd__sb_add(b, "@0x%llx: ", (unsigned long long)val->ref_addr);
		tmp.ref_type = NULL;
		rc = ptd__val_print(v, &tmp, fmt, 0, b);
		/* (tmp shares val's buffers; what fetching read stays in val) */
		val->lazy = tmp.lazy;
		return rc;
	}

	if (val->optimized_out) {
		ptd__sb_add(b, "<optimized out>");
		return 0;
	}
	if (val->synthetic) {
		/* typed as a pointer's value is at the top ("(struct cfg *)"),
		 * but for char pointers, as gdb shows it */
		struct vtype *to = s && s->kind == VT_PTR ? ptd__vt_strip(s->target) : NULL;

		if (top && s && s->kind == VT_PTR && !(to && is_char_type(to))) {
			char *n = ptd__vt_name(val->type, "");

			ptd__sb_add(b, "(%s) ", n ? n : "?");
			free(n);
		}
		ptd__sb_add(b, "<synthetic pointer>");
		return 0;
	}
	if (val->not_saved) {
		ptd__sb_add(b, "<not saved>");
		return 0;
	}
	if (val->unavailable) {
		ptd__sb_add(b, "<unavailable>");
		return 0;
	}
	if (s && s->kind == VT_FUNC && fmt && strchr("xduotz", fmt)) {
		/* gdb's function value is one byte long: its first */
		uint8_t byte;

		if (ptd__mem_read(v, val->addr, &byte, 1) < 0)
			return ptd__err(-ptde_nomap, "Cannot access memory at address 0x%llx",
					(unsigned long long)val->addr);
		format_int(v, b, byte, 1, 0, fmt);
		return 0;
	}
	if (s && (s->kind == VT_FUNC || s->kind == VT_NODEBUG)) {
		char *n = ptd__vt_name(val->type, "");

		ptd__sb_add(b, "{%s} 0x%llx", n ? n : "?", (unsigned long long)val->addr);
		free(n);
		print_symbol_suffix(v, b, val->addr);
		return 0;
	}
	ptd_clear_error();
	rc = ptd__val_fetch(v, val);
	if (rc < 0) {
		if (top)
			return rc;
		ptd__sb_add(b, "<error: %s>", ptd_last_error(rc));
		return 0;
	}
	v->print_buf = val->buf;
	v->print_mask = val->mask;
	v->print_addr = val->addr;
	v->print_in_mem = val->lval == LV_MEM && !val->bit_size;
	rc = ptd__print_at(v, val->type, val->buf, ptd__vt_size(val->type), fmt, top, b, 0);
	v->print_buf = v->print_mask = NULL;
	v->print_in_mem = 0;
	return rc;
}

int ptd_value_format(struct ptd_values *v, struct ptd_value *val, int fmt, int top, char **out)
{
	struct sbuf b = { 0 };
	int rc, raw;

	if (!v || !val || !out)
		return -ptde_invalid;
	raw = !!(fmt & PTD_FMT_RAW);
	fmt &= ~PTD_FMT_RAW;
	if (fmt && !strchr("xduotcsazf", fmt))
		return ptd__err(-ptde_invalid, "Undefined output format \"%c\".", fmt);
	v->raw = raw;
	rc = ptd__val_print(v, val, fmt, top, &b);
	v->raw = 0;
	if (rc < 0) {
		free(b.s);
		return rc;
	}
	if (b.oom || !b.s) {
		free(b.s);
		if (b.oom)
			return ptd__err(-ptde_nomem, "out of memory");
		b.s = strdup("");
		if (!b.s)
			return ptd__err(-ptde_nomem, "out of memory");
	}
	*out = b.s;
	return 0;
}

int ptd_value_type_name(const struct ptd_value *val, int expand, char **out)
{
	struct vtype *t;

	if (!val || !out)
		return -ptde_invalid;
	t = val->whatis_type ? val->whatis_type : val->ref_type ? val->ref_type : val->type;
	*out = expand == 2 ? ptd__vt_ptype_offsets(t) : expand ? ptd__vt_ptype(t) : ptd__vt_name(t, "");
	return *out ? 0 : ptd__err(-ptde_nomem, "out of memory");
}

uint64_t ptd_value_size(const struct ptd_value *val)
{
	return val ? ptd__vt_size(val->type) : 0;
}
