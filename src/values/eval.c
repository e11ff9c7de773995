/*
 * The C expression evaluator behind print, set var, x and display: a
 * recursive-descent parser that evaluates as it parses (gdb's C grammar,
 * without calls into the program).  Values keep their DWARF type and
 * their place (memory or register), are read lazily, so "&*p", "&arr[1]"
 * and "ptype *p" never touch memory they do not need, and follow C's
 * conversions: promotions, the usual arithmetic conversions, pointer
 * arithmetic scaled by the pointed-to size, arrays decaying to pointers.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/error.h"
#include "values/values_int.h"

#define MAX_DEPTH 400

struct parser {
	struct ptd_values *v;
	const char *p;
	int depth;
	int rc; /* first error, or 0 */
	int lang; /* 0: not known yet, 1: C, 2: C++ */
};

typedef struct ptd_value val_t;

/* Whether the expression is C++ (gdb's language "auto"), found once. */
static int cplus(struct parser *ps)
{
	if (!ps->lang)
		ps->lang = ptd__lang_cplus(ps->v) ? 2 : 1;
	return ps->lang == 2;
}

/* The type of a comparison's or a logical operation's result: int in C,
 * bool in C++. */
static struct vtype *truth_type(struct parser *ps)
{
	return cplus(ps) ? ps->v->t_cxxbool : ps->v->t_int;
}

static val_t *parse_comma(struct parser *ps);
static val_t *parse_assign(struct parser *ps);
static val_t *parse_unary(struct parser *ps);
static val_t *member(struct parser *ps, val_t *x, const char *name);
static int method_compiled(struct parser *ps, struct vtype *s, const char *name, int *count);
static int find_member(struct vtype *s, const char *name, uint64_t *off, struct vt_member *out,
		       int depth);
static val_t *deref(struct parser *ps, val_t *x);

static void skip(struct parser *ps)
{
	while (isspace((unsigned char)*ps->p))
		ps->p++;
}

static val_t *fail(struct parser *ps, int code, const char *fmt, const char *arg)
{
	if (!ps->rc)
		ps->rc = ptd__err(code, fmt, arg);
	return NULL;
}

static val_t *syntax(struct parser *ps)
{
	return fail(ps, -ptde_invalid, "A syntax error in expression, near `%s'.", ps->p);
}

static val_t *oom(struct parser *ps)
{
	return fail(ps, -ptde_nomem, "out of memory%s", "");
}

static val_t *mk_int(struct parser *ps, struct vtype *t, uint64_t x)
{
	val_t *r = ptd__val_new(t);
	uint64_t sz = ptd__vt_size(t);

	if (!r)
		return oom(ps);
	memcpy(r->buf, &x, sz < 8 ? sz : 8);
	return r;
}

static val_t *mk_float(struct parser *ps, struct vtype *t, double d)
{
	val_t *r = ptd__val_new(t);

	if (!r)
		return oom(ps);
	if (ptd__vt_size(t) == 2) {
		unsigned h = ptd__half_from_double(d, ptd__vt_strip(t)->bfloat16);

		r->buf[0] = (uint8_t)h;
		r->buf[1] = (uint8_t)(h >> 8);
	} else if (ptd__vt_size(t) == 4) {
		float f = (float)d;

		memcpy(r->buf, &f, 4);
	} else if (ptd__vt_size(t) == 8) {
		memcpy(r->buf, &d, 8);
	} else {
		long double ld = d;

		memcpy(r->buf, &ld, ptd__vt_size(t) < sizeof(ld) ? ptd__vt_size(t) : sizeof(ld));
	}
	return r;
}

static val_t *mk_ldouble(struct parser *ps, struct vtype *t, long double d)
{
	val_t *r;

	if (ptd__vt_size(t) <= 8)
		return mk_float(ps, t, (double)d);
	r = ptd__val_new(t);
	if (!r)
		return oom(ps);
	memcpy(r->buf, &d, ptd__vt_size(t) < sizeof(d) ? ptd__vt_size(t) : sizeof(d));
	return r;
}

static int fetch(struct parser *ps, val_t *x)
{
	int rc;

	if (x->optimized_out)
		return ps->rc = ptd__err(-ptde_invalid, "value has been optimized out");
	if (x->synthetic)
		return ps->rc = ptd__err(-ptde_unsupported,
					 "cannot follow a synthetic pointer (DW_OP_implicit_pointer): "
					 "ptdbg does not read the variable it stands for");
	if (x->not_saved)
		return ps->rc = ptd__err(-ptde_invalid, "value is not available");
	if (x->unavailable)
		return ps->rc = ptd__err(-ptde_invalid, "value is not available");
	rc = ptd__val_fetch(ps->v, x);
	if (rc < 0 && !ps->rc)
		ps->rc = rc;
	return rc;
}

static struct vtype *S(val_t *x)
{
	return ptd__vt_strip(x->type);
}

static int is_int(struct vtype *t)
{
	return t && (t->kind == VT_INT || t->kind == VT_ENUM || t->kind == VT_FLAGS);
}

static int is_arith(struct vtype *t)
{
	return is_int(t) || (t && t->kind == VT_FLOAT);
}

/* Arrays and functions become pointers (C's decay). */
static val_t *decay(struct parser *ps, val_t *x)
{
	struct vtype *s = x ? S(x) : NULL;
	val_t *r;

	if (!x || !s)
		return x;
	if (s->kind == VT_ARRAY || s->kind == VT_FUNC || s->kind == VT_NODEBUG) {
		if (x->lval != LV_MEM) {
			ptd_value_free(x);
			return fail(ps, -ptde_invalid,
				    "Attempt to take address of value not located in memory.%s", "");
		}
		r = mk_int(ps, ptd__vt_ptr(ps->v, s->kind == VT_ARRAY ? s->target : x->type),
			   x->addr);
		ptd_value_free(x);
		return r;
	}
	return x;
}

/* C leaves a double out of an integer's range undefined; gdb's host
 * conversion saturates on x86-64 in practice: clamp. */
static int64_t d2i(double d)
{
	if (d != d)
		return 0;
	if (d >= 9223372036854775807.0)
		return INT64_MAX;
	if (d <= -9223372036854775808.0)
		return INT64_MIN;
	return (int64_t)d;
}

static uint64_t d2u(double d)
{
	if (d != d || d <= 0)
		return (uint64_t)d2i(d);
	if (d >= 18446744073709551615.0)
		return UINT64_MAX;
	return (uint64_t)d;
}

static int64_t as_i64(val_t *x)
{
	struct vtype *s = S(x);

	if (s->kind == VT_FLOAT) {
		if (s->size == 2)
			return d2i(ptd__half_to_double(x->buf, s->bfloat16));
		if (s->size == 4) {
			float f;

			memcpy(&f, x->buf, 4);
			return d2i(f);
		}
		double d;

		memcpy(&d, x->buf, 8);
		return d2i(d);
	}
	return (int64_t)ptd__bits(x->buf, s->kind == VT_PTR ? 8 : s->size,
				  s->kind == VT_PTR ? 0 : s->is_signed);
}

static double as_double(val_t *x)
{
	struct vtype *s = S(x);

	if (s->kind == VT_FLOAT) {
		if (s->size == 2)
			return ptd__half_to_double(x->buf, s->bfloat16);
		if (s->size == 4) {
			float f;

			memcpy(&f, x->buf, 4);
			return f;
		}
		if (s->size == 8) {
			double d;

			memcpy(&d, x->buf, 8);
			return d;
		}
		long double ld = 0;

		memcpy(&ld, x->buf, sizeof(ld) < s->size ? sizeof(ld) : s->size);
		return (double)ld;
	}
	if (s->is_signed)
		return (double)as_i64(x);
	return (double)(uint64_t)as_i64(x);
}

/* The promoted type of an integer (C: smaller than int becomes int). */
static long double as_ldouble(val_t *x)
{
	struct vtype *s = S(x);
	long double ld = 0;

	if (s->kind != VT_FLOAT && s->kind != VT_PTR)
		/* (64-bit integers exactly, as long double has the digits) */
		return s->is_signed ? (long double)as_i64(x) : (long double)(uint64_t)as_i64(x);
	if (s->kind != VT_FLOAT || s->size <= 8)
		return as_double(x);
	memcpy(&ld, x->buf, sizeof(ld) < s->size ? sizeof(ld) : s->size);
	return ld;
}

static struct vtype *promote(struct ptd_values *v, struct vtype *t)
{
	if (t->kind == VT_FLOAT)
		return t;
	if (t->kind == VT_ENUM)
		return t->size > 4 ? (t->is_signed ? v->t_long : v->t_ulong) : (t->is_signed ? v->t_int : v->t_uint);
	if (t->size < 4 || t->kind == VT_FLAGS)
		return v->t_int;
	if (t->size == 4)
		return t->is_signed ? v->t_int : v->t_uint;
	return t->is_signed ? v->t_long : v->t_ulong;
}

static struct vtype *arith_type(struct ptd_values *v, struct vtype *a, struct vtype *b)
{
	if (a->kind == VT_FLOAT || b->kind == VT_FLOAT) {
		uint64_t sa = a->kind == VT_FLOAT ? a->size : 0, sb = b->kind == VT_FLOAT ? b->size : 0;

		return sa >= sb ? a : b;
	}
	a = promote(v, a);
	b = promote(v, b);
	if (a->size != b->size)
		return a->size > b->size ? a : b;
	if (!a->is_signed)
		return a;
	return b;
}

/* Whether class @t is a base of class @s (at any depth); *@off gets where
 * its part starts in an object of @s.  A virtual base's place is read
 * from the vtable of the object at @addr (@have_addr), skipped without. */
static int base_offset(struct ptd_values *v, struct vtype *s, struct vtype *t, uint64_t addr,
		       int have_addr, uint64_t *off, int depth)
{
	if (!s || depth > 32)
		return 0;
	for (int i = 0; i < s->nmembers; i++) {
		struct vt_member *m = &s->members[i];
		struct vtype *b = ptd__vt_strip(m->type);
		uint64_t sub = 0, moff = m->off, vptr = 0;

		if (!m->is_base || !b)
			continue;
		if (m->is_virtual) {
			int64_t vo = 0;

			if (!have_addr || ptd__mem_read(v, addr, &vptr, 8) < 0 ||
			    ptd__mem_read(v, vptr - (uint64_t)m->vbase_slot, &vo, 8) < 0)
				continue;
			moff = (uint64_t)vo;
		}
		if (b == t || (b->name && t->name && !strcmp(b->name, t->name))) {
			*off = moff;
			return 1;
		}
		if (base_offset(v, b, t, addr + moff, have_addr, &sub, depth + 1)) {
			*off = moff + sub;
			return 1;
		}
	}
	return 0;
}

/* A pointer to a class converted to a pointer to a base class or to a
 * derived one: moved to that part, as C++ and gdb's value_cast_pointers
 * move it (a null pointer stays null).  Returns 0 when neither applies. */
static int class_pointer_cast(struct ptd_values *v, struct vtype *s, struct vtype *t, uint64_t *p)
{
	struct vtype *from = s->target ? ptd__vt_strip(s->target) : NULL;
	struct vtype *to = t->target ? ptd__vt_strip(t->target) : NULL;
	uint64_t off = 0;

	if (!from || !to || from->kind != VT_STRUCT || to->kind != VT_STRUCT || from == to || !*p)
		return 0;
	if (base_offset(v, from, to, *p, 1, &off, 0)) {
		*p += off;
		return 1;
	}
	if (base_offset(v, to, from, 0, 0, &off, 0)) {
		*p -= off;
		return 1;
	}
	return 0;
}

/* Two arrays of one element type and count (gdb assigns one to the
 * other: $xmm0.v4_int32 = $xmm1.v4_int32) */
static int same_array(struct vtype *s, struct vtype *t)
{
	char *a, *b;
	int same;

	if (s->kind != VT_ARRAY || t->kind != VT_ARRAY || s->count != t->count ||
	    ptd__vt_size(s) != ptd__vt_size(t))
		return 0;
	a = ptd__vt_name(s->target, "");
	b = ptd__vt_name(t->target, "");
	same = a && b && !strcmp(a, b);
	free(a);
	free(b);
	return same;
}

static val_t *convert(struct parser *ps, val_t *x, struct vtype *to)
{
	struct vtype *s = S(x), *t = ptd__vt_strip(to);
	val_t *r;

	if (!t)
		return NULL;
	if (t->kind == VT_VOID) {
		r = ptd__val_new(to);
		return r ? r : oom(ps);
	}
	if ((t->kind == VT_STRUCT || t->kind == VT_UNION || t->kind == VT_ARRAY)) {
		if (s == t || (s->kind == t->kind && s->size == t->size && s->name && t->name &&
			       !strcmp(s->name, t->name)) || same_array(s, t)) {
			r = ptd__val_copy(x);
			if (!r)
				return oom(ps);
			r->type = to;
			r->lval = LV_NONE;
			return r;
		}
		/* a derived object cast to one of its bases: that part */
		{
			uint64_t off = 0;

			if (s->kind == VT_STRUCT && t->kind == VT_STRUCT && !x->mask &&
			    base_offset(ps->v, s, t, x->addr, x->lval == LV_MEM, &off, 0)) {
				r = ptd__val_new(to);
				if (!r)
					return oom(ps);
				if (off + t->size <= s->size) {
					memcpy(r->buf, x->buf + off, t->size);
				} else if (ptd__mem_read(ps->v, x->addr + off, r->buf, t->size) < 0) {
					ptd_value_free(r);
					if (!ps->rc)
						ps->rc = ptd__err(-ptde_nomap,
								  "Cannot access memory at address 0x%llx",
								  (unsigned long long)(x->addr + off));
					return NULL;
				}
				return r;
			}
		}
		return fail(ps, -ptde_invalid, "Invalid cast.%s", "");
	}
	if (!is_arith(s) && s->kind != VT_PTR)
		return fail(ps, -ptde_invalid, "Invalid cast.%s", "");
	if (t->kind == VT_FLOAT && ptd__vt_size(t) > 8) /* long double, $st0: no double on the way */
		return mk_ldouble(ps, to, as_ldouble(x));
	if (t->kind == VT_FLOAT)
		return mk_float(ps, to, as_double(x));
	if (t->kind == VT_INT && t->is_bool)
		return mk_int(ps, to,
			      s->kind == VT_FLOAT ? as_double(x) != 0 : as_i64(x) != 0);
	if (is_int(t) || t->kind == VT_PTR) {
		if (s->kind == VT_FLOAT) {
			double d = as_double(x);

			return mk_int(ps, to, t->is_signed ? (uint64_t)d2i(d) : d2u(d));
		}
		if (s->kind == VT_PTR && t->kind == VT_PTR) {
			uint64_t a = (uint64_t)as_i64(x);

			class_pointer_cast(ps->v, s, t, &a);
			return mk_int(ps, to, a);
		}
		return mk_int(ps, to, (uint64_t)as_i64(x));
	}
	return fail(ps, -ptde_invalid, "Invalid cast.%s", "");
}

/* ------------------------------------------------------------------ */
/* Type names (casts, sizeof, ptype TYPE)                               */

static int is_kw(const char *w, size_t n)
{
	static const char *const kws[] = { "unsigned", "signed", "short", "long", "int", "char",
					   "float", "double", "void", "_Bool", "const", "volatile",
					   "struct", "union", "enum", NULL };

	for (int i = 0; kws[i]; i++)
		if (strlen(kws[i]) == n && !strncmp(w, kws[i], n))
			return 1;
	return 0;
}

static size_t ident_len(const char *p)
{
	size_t n = 0;

	if (!isalpha((unsigned char)*p) && *p != '_')
		return 0;
	while (isalnum((unsigned char)p[n]) || p[n] == '_')
		n++;
	return n;
}

/* Parses a type name at ps->p; returns NULL (ps->p unchanged, no error)
 * when what follows is not one.  A typedef name shadowed by a variable
 * is a variable, as in gdb. */
static struct vtype *try_type(struct parser *ps)
{
	const char *save = ps->p;
	char words[256] = "";
	size_t n;
	int base_done = 0, qual_const = 0;
	struct vtype *t = NULL;

	skip(ps);
	while ((n = ident_len(ps->p)) > 0) {
		if (!strncmp(ps->p, "const", n) && n == 5) {
			qual_const = 1;
			ps->p += n;
			skip(ps);
			continue;
		}
		if (!strncmp(ps->p, "volatile", n) && n == 8) {
			ps->p += n;
			skip(ps);
			continue;
		}
		if ((n == 6 && !strncmp(ps->p, "struct", 6)) || (n == 5 && !strncmp(ps->p, "union", 5)) ||
		    (n == 4 && !strncmp(ps->p, "enum", 4))) {
			const char *kw = ps->p;
			size_t kn = n, tn;

			if (base_done || words[0])
				break;
			ps->p += n;
			skip(ps);
			tn = ident_len(ps->p);
			if (!tn) {
				ps->p = save;
				return NULL;
			}
			while (ps->p[tn] == ':' && ps->p[tn + 1] == ':' && ident_len(ps->p + tn + 2))
				tn += 2 + ident_len(ps->p + tn + 2);
			snprintf(words, sizeof(words), "%.*s %.*s", (int)kn, kw, (int)tn, ps->p);
			ps->p += tn;
			skip(ps);
			base_done = 1;
			continue;
		}
		if (base_done)
			break;
		if (n == 4 && !strncmp(ps->p, "bool", 4) && !words[0] && cplus(ps)) {
			t = ps->v->t_cxxbool;
			ps->p += n;
			skip(ps);
			base_done = 2;
			continue;
		}
		if (is_kw(ps->p, n)) {
			size_t l = strlen(words);

			snprintf(words + l, sizeof(words) - l, "%s%.*s", l ? " " : "", (int)n, ps->p);
			ps->p += n;
			skip(ps);
			continue;
		}
		if (words[0])
			break;
		/* a typedef name (C++: a class's, "ns::Class"), unless a
		 * variable has that name */
		{
			char name[256];
			val_t *tmp = NULL;

			while (ps->p[n] == ':' && ps->p[n + 1] == ':' && ident_len(ps->p + n + 2))
				n += 2 + ident_len(ps->p + n + 2);
			snprintf(name, sizeof(name), "%.*s", (int)n, ps->p);
			ptd_clear_error();
			if (ptd__lookup_var(ps->v, name, &tmp) == 0) {
				struct vtype *ts = ptd__vt_strip(tmp->type);
				/* in C++ a class's name is the class, not its
				 * constructor */
				int ctor = cplus(ps) && ts && ts->kind == VT_FUNC;

				ptd_value_free(tmp);
				if (!ctor) {
					ps->p = save;
					return NULL;
				}
			}
			ptd_clear_error();
			t = ptd__vt_lookup(ps->v, name);
			if (!t) {
				ps->p = save;
				return NULL;
			}
			ps->p += n;
			skip(ps);
			base_done = 2;
		}
	}
	if (!t && words[0]) {
		/* "unsigned" alone, "long unsigned int": normalise the order */
		t = ptd__vt_lookup(ps->v, words);
		if (!t && !strncmp(words, "long unsigned", 13))
			t = ptd__vt_lookup(ps->v, "unsigned long");
		if (!t && !strncmp(words, "short unsigned", 14))
			t = ptd__vt_lookup(ps->v, "unsigned short");
		if (!t && !strcmp(words, "long long int"))
			t = ptd__vt_lookup(ps->v, "long long");
		if (!t && !strcmp(words, "short int"))
			t = ptd__vt_lookup(ps->v, "short");
		if (!t && !strncmp(words, "struct ", 7)) {
			fail(ps, -ptde_invalid, "No struct type named %s.", words + 7);
			return NULL;
		}
		if (!t && !strncmp(words, "union ", 6)) {
			fail(ps, -ptde_invalid, "No union type named %s.", words + 6);
			return NULL;
		}
		if (!t && !strncmp(words, "enum ", 5)) {
			fail(ps, -ptde_invalid, "No enum type named %s.", words + 5);
			return NULL;
		}
		if (!t) {
			ps->p = save;
			return NULL;
		}
	}
	if (!t) {
		ps->p = save;
		return NULL;
	}
	if (qual_const) {
		struct vtype *q = ptd__vt_new(ps->v, VT_QUAL, "const", ptd__vt_size(t));

		if (q)
			q->target = t;
		t = q;
	}
	while (t && *ps->p == '*') {
		t = ptd__vt_ptr(ps->v, t);
		ps->p++;
		skip(ps);
		/* "char * const": the pointer itself qualified */
		while (t && ((!strncmp(ps->p, "const", 5) && ident_len(ps->p) == 5) ||
			     (!strncmp(ps->p, "volatile", 8) && ident_len(ps->p) == 8))) {
			size_t ql = ident_len(ps->p);
			struct vtype *q = ptd__vt_new(ps->v, VT_QUAL, ql == 5 ? "const" : "volatile", 8);

			if (q)
				q->target = t;
			t = q;
			ps->p += ql;
			skip(ps);
		}
	}
	/* a pointer to a function: "void (*)(void)", "int (**)(int, char *)" */
	if (t && *ps->p == '(') {
		const char *q = ps->p + 1, *back = ps->p;
		int stars = 0;

		while (isspace((unsigned char)*q))
			q++;
		while (*q == '*' || isspace((unsigned char)*q))
			stars += *q++ == '*';
		if (stars && *q == ')') {
			q++;
			while (isspace((unsigned char)*q))
				q++;
		}
		if (stars && *q == '(') {
			struct vtype *f;
			int nparams = 0, isvoid = 0;

			ps->p = q + 1;
			skip(ps);
			/* C's "()" is a function without a prototype, C++'s
			 * takes no arguments: gdb names them "()" and "(void)" */
			f = ptd__vt_func(ps->v, t, cplus(ps));
			while (f && *ps->p != ')') {
				struct vtype *pt;

				if (nparams && *ps->p == ',') {
					ps->p++;
					skip(ps);
				}
				if (!strncmp(ps->p, "...", 3)) {
					f->varargs = 1;
					ps->p += 3;
					skip(ps);
					continue;
				}
				pt = try_type(ps);
				if (!pt) {
					if (!ps->rc)
						ps->p = back;
					f = NULL;
					break;
				}
				skip(ps);
				if (pt->kind == VT_VOID && !nparams && *ps->p == ')')
					isvoid = 1;
				else
					ptd__vt_func_param(f, pt);
				nparams++;
			}
			if (f && *ps->p == ')') {
				ps->p++;
				skip(ps);
				if (isvoid || nparams)
					f->prototyped = 1;
				t = f;
				while (t && stars--)
					t = ptd__vt_ptr(ps->v, t);
			} else if (f) {
				ps->p = back;
			}
		}
	}
	/* int [4] */
	while (t && *ps->p == '[') {
		char *end;
		long long cnt = strtoll(ps->p + 1, &end, 0);

		if (*end != ']')
			break;
		t = ptd__vt_array(ps->v, t, cnt);
		ps->p = end + 1;
		skip(ps);
	}
	return t;
}

/* ------------------------------------------------------------------ */
/* Primaries                                                            */

static int parse_escape(const char **pp)
{
	const char *p = *pp;
	int c;

	if (*p != '\\') {
		*pp = p + 1;
		return (unsigned char)*p;
	}
	p++;
	switch (*p) {
	case 'n': c = '\n'; p++; break;
	case 't': c = '\t'; p++; break;
	case 'r': c = '\r'; p++; break;
	case 'a': c = '\a'; p++; break;
	case 'b': c = '\b'; p++; break;
	case 'f': c = '\f'; p++; break;
	case 'v': c = '\v'; p++; break;
	case 'e': c = 033; p++; break;
	case 'x':
		p++;
		c = (int)strtol(p, (char **)&p, 16);
		break;
	default:
		if (*p >= '0' && *p <= '7') {
			int n = 0;

			c = 0;
			while (n < 3 && *p >= '0' && *p <= '7') {
				c = c * 8 + (*p - '0');
				p++;
				n++;
			}
		} else {
			c = (unsigned char)*p;
			if (*p)
				p++;
		}
	}
	*pp = p;
	return c & 0xff;
}

static val_t *parse_number(struct parser *ps)
{
	struct ptd_values *v = ps->v;
	const char *s = ps->p;
	char *end;
	int is_float = 0;
	uint64_t x;
	int uns = 0, lng = 0, base = 10;

	/* a float if a '.' or exponent comes before a non-digit */
	{
		const char *q = s;

		if (q[0] == '0' && (q[1] == 'x' || q[1] == 'X'))
			;
		else {
			while (isdigit((unsigned char)*q))
				q++;
			if (*q == '.' || *q == 'e' || *q == 'E')
				is_float = 1;
		}
	}
	if (is_float) {
		long double d = strtold(s, &end);
		struct vtype *t = v->t_double;

		if (*end == 'f' || *end == 'F') {
			t = v->t_float;
			d = strtof(s, &end);
			end++;
		} else if (*end == 'l' || *end == 'L') {
			t = v->t_ldouble; /* 1.5L */
			end++;
		} else {
			d = strtod(s, &end);
		}
		if (isalnum((unsigned char)*end) || *end == '_' || *end == '.')
			return fail(ps, -ptde_invalid, "Invalid number \"%s\".", s);
		ps->p = end;
		return mk_ldouble(ps, t, d);
	}
	errno = 0;
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		base = 16;
	else if (s[0] == '0' && isdigit((unsigned char)s[1]))
		base = 8;
	if (s[0] == '0' && (s[1] == 'b' || s[1] == 'B') && (s[2] == '0' || s[2] == '1')) {
		base = 2; /* gdb's 0b101 */
		x = strtoull(s + 2, &end, 2);
	} else {
		x = strtoull(s, &end, 0);
	}
	if (errno)
		return fail(ps, -ptde_invalid, "Numeric constant too large.%s", "");
	for (;;) {
		if (*end == 'u' || *end == 'U')
			uns = 1;
		else if (*end == 'l' || *end == 'L')
			lng = 1;
		else
			break;
		end++;
	}
	if (isalnum((unsigned char)*end) || *end == '_') {
		char tok[64];
		size_t n = 0;

		while (n < sizeof(tok) - 1 && (isalnum((unsigned char)s[n]) || s[n] == '_'))
			tok[n] = s[n], n++;
		tok[n] = '\0';
		return fail(ps, -ptde_invalid, "Invalid number \"%s\".", tok);
	}
	ps->p = end;
	if (!lng && !uns && x <= 0x7fffffff)
		return mk_int(ps, v->t_int, x);
	if (!lng && (uns || base != 10) && x <= 0xffffffffull)
		return mk_int(ps, v->t_uint, x);
	if (!uns && x <= 0x7fffffffffffffffull)
		return mk_int(ps, v->t_long, x);
	return mk_int(ps, v->t_ulong, x);
}

static val_t *history(struct parser *ps)
{
	struct ptd_values *v = ps->v;
	const char *p = ps->p + 1; /* after '$' */
	long idx;
	int back = 0;

	if (*p == '$') {
		p++;
		back = 1;
		if (isdigit((unsigned char)*p)) {
			back = (int)strtol(p, (char **)&p, 10);
			idx = v->nhist - back;
		} else {
			idx = v->nhist - 1;
		}
	} else if (isdigit((unsigned char)*p)) {
		idx = strtol(p, (char **)&p, 10);
		if (idx == 0)
			idx = v->nhist;
	} else {
		idx = v->nhist;
	}
	ps->p = p;
	if (!v->nhist && idx <= 0) {
		val_t *r = ptd__val_new(v->t_void);

		return r ? r : oom(ps);
	}
	if (idx <= 0 || idx > v->nhist) {
		char msg[32];

		if (idx > v->nhist) {
			snprintf(msg, sizeof(msg), "%ld", idx);
			return fail(ps, -ptde_notfound, "History has not yet reached $%s.", msg);
		}
		snprintf(msg, sizeof(msg), "%d", back);
		return fail(ps, -ptde_notfound, "History does not go back to $$%s.", msg);
	}
	{
		val_t *r = ptd__val_copy(v->hist[idx - 1]);

		return r ? r : oom(ps);
	}
}

/* Convenience variable $@name: a copy of its value that assignments
 * write back to (LV_CONV); one never set is void. */
/* The index of convenience variable $@name, made void if new; -1 when
 * out of memory. */
static int conv_slot(struct ptd_values *v, const char *name)
{
	struct conv_var *c;
	int i;

	for (i = 0; i < v->nconv; i++)
		if (!strcmp(v->conv[i].name, name))
			return i;
	c = realloc(v->conv, (size_t)(v->nconv + 1) * sizeof(*c));
	if (!c)
		return -1;
	v->conv = c;
	c[i].name = strdup(name);
	c[i].val = ptd__val_new(v->t_void);
	if (!c[i].name || !c[i].val) {
		free(c[i].name);
		ptd_value_free(c[i].val);
		return -1;
	}
	v->nconv++;
	return i;
}

static val_t *conv_var(struct parser *ps, const char *name)
{
	struct ptd_values *v = ps->v;
	val_t *r;
	int i = conv_slot(v, name);

	if (i < 0)
		return oom(ps);
	r = ptd__val_copy(v->conv[i].val);
	if (!r)
		return oom(ps);
	r->lval = LV_CONV;
	r->regno = i;
	return r;
}

/* A call's arguments: ps->p is at the '(', left after the ')'.  How
 * many went to @args (at most @max), or -1 (the error said, none kept). */
static int parse_args(struct parser *ps, val_t **args, int max)
{
	int n = 0;

	ps->p++;
	skip(ps);
	if (*ps->p == ')') {
		ps->p++;
		return 0;
	}
	for (;;) {
		val_t *a = parse_assign(ps);

		if (!a)
			break;
		if (n == max) {
			ptd_value_free(a);
			fail(ps, -ptde_invalid, "too many arguments in function call%s", "");
			break;
		}
		args[n++] = a;
		skip(ps);
		if (*ps->p == ',') {
			ps->p++;
			continue;
		}
		if (*ps->p == ')') {
			ps->p++;
			return n;
		}
		syntax(ps);
		break;
	}
	while (n > 0)
		ptd_value_free(args[--n]);
	return -1;
}

/* $name(args...), a gdb convenience function: ps->p is at the '('.  As
 * gdb's, it is not called when only the type is wanted (an int then). */
static val_t *convfn_call(struct parser *ps, const char *name)
{
	val_t *args[8], *r = NULL;
	int n = 0, rc;

	if ((n = parse_args(ps, args, (int)(sizeof(args) / sizeof(args[0])))) < 0)
		return NULL;
	if (ps->v->type_only) {
		r = mk_int(ps, ps->v->t_int, 0);
		goto out;
	}
	rc = ptd__convfn_call(ps->v, name, args, n, cplus(ps), &r);
	if (rc < 0 && !ps->rc)
		ps->rc = rc;
out:
	for (int i = 0; i < n; i++)
		ptd_value_free(args[i]);
	return r;
}

static val_t *parse_primary(struct parser *ps)
{
	struct ptd_values *v = ps->v;
	val_t *r = NULL;
	size_t n;

	skip(ps);
	if (*ps->p == '(') {
		ps->p++;
		r = parse_comma(ps);
		if (!r)
			return NULL;
		skip(ps);
		if (*ps->p != ')') {
			ptd_value_free(r);
			return syntax(ps);
		}
		ps->p++;
		return r;
	}
	if (isdigit((unsigned char)*ps->p) || (*ps->p == '.' && isdigit((unsigned char)ps->p[1])))
		return parse_number(ps);
	if (*ps->p == '\'') {
		const char *p = ps->p + 1;
		int c;

		if (*p == '\'')
			return fail(ps, -ptde_invalid,
				    "A character constant must contain at least one character.%s", "");
		if (!*p)
			return fail(ps, -ptde_invalid, "Unmatched single quote.%s", "");
		c = parse_escape(&p);
		if (*p != '\'')
			return fail(ps, -ptde_invalid,
				    strchr(p, '\'') ? "Invalid character constant.%s"
						    : "Unmatched single quote.%s", "");
		ps->p = p + 1;
		return mk_int(ps, v->t_char, (uint64_t)(int64_t)(int8_t)c);
	}
	if (*ps->p == '"') {
		const char *p = ps->p + 1;
		uint8_t buf[1024];
		size_t len = 0;

		for (;;) {
			while (*p && *p != '"' && len < sizeof(buf) - 1)
				buf[len++] = (uint8_t)parse_escape(&p);
			if (*p != '"')
				return fail(ps, -ptde_invalid, "Unterminated string in expression.%s", "");
			p++;
			/* "abc" "def" is one string, as in C */
			while (isspace((unsigned char)*p))
				p++;
			if (*p != '"')
				break;
			p++;
		}
		ps->p = p;
		buf[len++] = 0;
		r = ptd__val_new(ptd__vt_array(v, v->t_char, (int64_t)len));
		if (!r)
			return oom(ps);
		memcpy(r->buf, buf, len);
		return r;
	}
	if (*ps->p == '$') {
		const char *p = ps->p + 1;
		char name[64];

		if (!*p || *p == '$' || isdigit((unsigned char)*p) ||
		    !(isalpha((unsigned char)*p) || *p == '_'))
			return history(ps);
		n = ident_len(p);
		if (n >= sizeof(name))
			n = sizeof(name) - 1;
		snprintf(name, sizeof(name), "%.*s", (int)n, p);
		ps->p = p + ident_len(p);
		ptd_clear_error();
		if (ptd__convfn_is(name)) {
			skip(ps);
			if (*ps->p == '(')
				return convfn_call(ps, name);
			/* the function itself: "<internal function _streq>" */
			{
				struct vtype *t = ptd__vt_new(v, VT_VOID, name, 1);

				if (!t || !(r = ptd__val_new(t)))
					return oom(ps);
				t->internal_fn = 1;
				return r;
			}
		}
		{
			int rc = ptd__convvar(v, name, &r);

			if (rc > 0)
				return r;
			if (rc < 0) {
				if (!ps->rc)
					ps->rc = rc;
				return NULL;
			}
		}
		if (ptd__reg_value(v, name, &r) < 0) {
			if (ps->v->has_regs || strcmp(ptd_last_error(-ptde_notfound), "No registers.")) {
				/* other $names are convenience variables */
				if (!strncmp(ptd_last_error(-ptde_notfound), "Invalid register", 16)) {
					ptd_clear_error();
					return conv_var(ps, name);
				}
			}
			if (!ps->rc)
				ps->rc = -ptde_notfound;
			return NULL;
		}
		return r;
	}
	n = ident_len(ps->p);
	if (n) {
		char name[256];

		if (n == 6 && !strncmp(ps->p, "sizeof", 6)) {
			struct vtype *t = NULL;

			ps->p += 6;
			skip(ps);
			if (*ps->p == '(') {
				const char *save = ps->p;

				ps->p++;
				t = try_type(ps);
				if (ps->rc)
					return NULL;
				skip(ps);
				if (t && *ps->p == ')')
					ps->p++;
				else {
					t = NULL;
					ps->p = save;
				}
			}
			if (!t) {
				val_t *x;

				/* C's sizeof does not evaluate its operand */
				v->type_only++;
				x = parse_unary(ps);
				v->type_only--;
				if (!x)
					return NULL;
				t = x->type;
				ptd_value_free(x);
			}
			return mk_int(ps, v->t_int, ptd__vt_size(t)); /* gdb's C sizeof is int */
		}
		if (cplus(ps) && ((n == 11 && !strncmp(ps->p, "static_cast", 11)) ||
				  (n == 16 && !strncmp(ps->p, "reinterpret_cast", 16)) ||
				  (n == 10 && !strncmp(ps->p, "const_cast", 10)))) {
			struct vtype *t;
			val_t *x;

			/* C++'s named casts: without run-time checks, a
			 * conversion as the C cast does */
			ps->p += n;
			skip(ps);
			if (*ps->p != '<')
				return syntax(ps);
			ps->p++;
			t = try_type(ps);
			if (!t)
				return ps->rc ? NULL : syntax(ps);
			skip(ps);
			if (*ps->p != '>')
				return syntax(ps);
			ps->p++;
			skip(ps);
			if (*ps->p != '(')
				return syntax(ps);
			ps->p++;
			x = parse_comma(ps);
			if (!x)
				return NULL;
			skip(ps);
			if (*ps->p != ')') {
				ptd_value_free(x);
				return syntax(ps);
			}
			ps->p++;
			x = decay(ps, x);
			if (x && fetch(ps, x) == 0)
				r = convert(ps, x, t);
			ptd_value_free(x);
			return r;
		}
		if (((n == 4 && !strncmp(ps->p, "true", 4)) || (n == 5 && !strncmp(ps->p, "false", 5))) &&
		    cplus(ps)) {
			int yes = n == 4;

			ps->p += n;
			return mk_int(ps, v->t_cxxbool, (uint64_t)yes);
		}
		/* C++'s qualified names: ns::name, Class::member */
		while (ps->p[n] == ':' && ps->p[n + 1] == ':' && ident_len(ps->p + n + 2))
			n += 2 + ident_len(ps->p + n + 2);
		if (n >= sizeof(name))
			return fail(ps, -ptde_invalid, "name too long%s", "");
		snprintf(name, sizeof(name), "%.*s", (int)n, ps->p);
		ps->p += n;
		ptd_clear_error();
		if (ptd__lookup_var(v, name, &r) < 0) {
			val_t *self = NULL;

			/* in a C++ method, a member of *this (gdb looks there
			 * after the block's own names) */
			if (!strchr(name, ':') && strcmp(name, "this") &&
			    ptd__lookup_var(v, "this", &self) == 0) {
				struct vtype *st = S(self);

				if (st && st->kind == VT_PTR && st->target) {
					struct vt_member mb;
					uint64_t off = 0;

					if (find_member(ptd__vt_strip(st->target), name, &off, &mb, 0)) {
						val_t *obj = deref(ps, self), *m;

						ptd_clear_error();
						if (!obj)
							return NULL;
						m = member(ps, obj, name);
						ptd_value_free(obj);
						return m;
					}
				}
				ptd_value_free(self);
			}
			ptd_clear_error();
			ptd__lookup_var(v, name, &r); /* the first error again, for the message */
			if (!ps->rc)
				ps->rc = -ptde_notfound;
			return NULL;
		}
		return r;
	}
	return syntax(ps);
}

/* A member of reference type stands for its referent, as a variable does. */
static val_t *ref_member(struct parser *ps, val_t *r)
{
	struct vtype *st = S(r);
	val_t *t;
	uint64_t addr = 0;

	if (!st || st->kind != VT_REF || !st->target || r->optimized_out || r->unavailable)
		return r;
	if (fetch(ps, r) < 0) {
		ptd_value_free(r);
		return NULL;
	}
	memcpy(&addr, r->buf, 8);
	t = ptd__val_referent(r, addr);
	ptd_value_free(r);
	return t ? t : oom(ps);
}

/* Member @name of @s, also in its C++ base classes (depth first, as
 * declared): the member with its offset from the start of @s. */
static int find_member(struct vtype *s, const char *name, uint64_t *off, struct vt_member *out,
		       int depth)
{
	if (!s || depth > 16 || (s->kind != VT_STRUCT && s->kind != VT_UNION))
		return 0;
	for (int i = 0; i < s->nmembers; i++)
		if (!s->members[i].is_base && s->members[i].name && !strcmp(s->members[i].name, name)) {
			*out = s->members[i];
			out->off += *off;
			return 1;
		}
	for (int i = 0; i < s->nmembers; i++) {
		uint64_t o = *off + s->members[i].off;

		/* (not through a virtual base: its place is in the vtable) */
		if (s->members[i].is_base && !s->members[i].is_virtual &&
		    find_member(ptd__vt_strip(s->members[i].type), name, &o, out, depth + 1)) {
			*off = o;
			return 1;
		}
	}
	return 0;
}

static val_t *member(struct parser *ps, val_t *x, const char *name)
{
	struct vtype *s = S(x);
	struct vt_member mb;
	uint64_t base = 0;
	val_t *r;

	if (s->kind != VT_STRUCT && s->kind != VT_UNION) {
		char *tn = ptd__vt_name(x->type, "");

		fail(ps, -ptde_invalid, "Attempt to extract a component of a value that is not a structure%s.",
		     "");
		free(tn);
		return NULL;
	}
	if (!find_member(s, name, &base, &mb, 0)) {
		int n = 0, there;

		if (!ptd__vt_has_method(s, name))
			return fail(ps, -ptde_notfound,
				    s->methods ? "There is no member or method named %s."
					       : "There is no member named %s.",
				    name);
		/* a method named without a call: gdb's value of it */
		there = method_compiled(ps, s, name, &n);
		if (n > 1)
			return fail(ps, -ptde_invalid,
				    "cannot resolve overloaded method `%s': no arguments supplied", name);
		if (!there)
			return fail(ps, -ptde_invalid, "Cannot take address of method %s.", name);
		return fail(ps, -ptde_unsupported,
			    "ptdbg does not show a method as a value: call it (%s())", name);
	}
	r = ptd__val_new(mb.type);
	if (!r)
		return oom(ps);
	if (x->lval == LV_MEM && x->lazy) {
		r->lval = LV_MEM;
		r->addr = x->addr + mb.off;
		r->lazy = 1;
		r->bit_size = mb.bit_size;
		r->bit_off = mb.bit_off;
		return ref_member(ps, r);
	}
	if ((x->optimized_out || x->unavailable) && !x->not_saved) {
		/* a member of what is not known is not known either, as gdb
		 * prints it */
		r->optimized_out = x->optimized_out;
		r->unavailable = x->unavailable;
		return r;
	}
	if (fetch(ps, x) < 0) {
		ptd_value_free(r);
		return NULL;
	}
	if (mb.off + (mb.bit_size ? (uint64_t)(mb.bit_off +
								   mb.bit_size + 7) / 8
							 : ptd__vt_size(r->type)) > ptd__vt_size(x->type)) {
		/* DWARF is untrusted: a member outside its struct */
		ptd_value_free(r);
		return fail(ps, -ptde_bad_trace, "member %s lies outside its struct", name);
	}
	if (mb.bit_size) {
		uint64_t raw = 0;
		size_t nb = (size_t)(mb.bit_off + mb.bit_size + 7) / 8;

		memcpy(&raw, x->buf + mb.off, nb > 8 ? 8 : nb);
		raw >>= mb.bit_off;
		if (mb.bit_size < 64)
			raw &= (1ull << mb.bit_size) - 1;
		memcpy(r->buf, &raw, ptd__vt_size(r->type) < 8 ? ptd__vt_size(r->type) : 8);
	} else {
		memcpy(r->buf, x->buf + mb.off, ptd__vt_size(r->type));
	}
	if (x->mask) {
		/* a member of a value in pieces: what is known of its bytes */
		uint64_t off = mb.off, sz = ptd__vt_size(r->type), k;
		int st = ptd__val_bytes_state(x, off, sz ? sz : 1);

		if (st != VAL_BYTE_OK) {
			for (k = 0; k < sz && x->mask[off + k] != VAL_BYTE_OK; k++)
				;
			if (k == sz) { /* none known */
				r->optimized_out = st == VAL_BYTE_OPTOUT;
				r->unavailable = st == VAL_BYTE_UNAVAIL;
			} else if ((r->mask = malloc(sz)) != NULL) {
				memcpy(r->mask, x->mask + off, sz);
			} else {
				ptd_value_free(r);
				return oom(ps);
			}
		}
	}
	if (x->lval == LV_MEM) {
		r->lval = LV_MEM;
		r->addr = x->addr + mb.off;
		r->bit_size = mb.bit_size;
		r->bit_off = mb.bit_off;
	} else if (x->lval == LV_CONV && !mb.bit_size) {
		/* $s.x = 1 writes into the convenience variable */
		r->lval = LV_CONV;
		r->regno = x->regno;
		r->conv_part = 1;
		r->addr = (x->conv_part ? x->addr : 0) + mb.off;
	} else if (x->lval == LV_XREG) {
		/* $xmm0.v4_int32 = ... writes into the register */
		r->lval = LV_XREG;
		r->regno = x->regno;
		r->addr = x->addr + mb.off;
	}
	return ref_member(ps, r);
}

static val_t *deref(struct parser *ps, val_t *x)
{
	struct vtype *s;
	val_t *r;

	x = decay(ps, x);
	if (!x)
		return NULL;
	s = S(x);
	if (is_int(s) && s->size >= 4 && s->kind == VT_INT) {
		/* gdb: *INTEGER is the int at that address */
		if (fetch(ps, x) < 0) {
			ptd_value_free(x);
			return NULL;
		}
		r = ptd__val_new(ps->v->t_int);
		if (!r) {
			ptd_value_free(x);
			return oom(ps);
		}
		r->lval = LV_MEM;
		r->addr = (uint64_t)as_i64(x);
		r->lazy = 1;
		ptd_value_free(x);
		return r;
	}
	if (s->kind != VT_PTR) {
		ptd_value_free(x);
		return fail(ps, -ptde_invalid, "Attempt to take contents of a non-pointer value.%s", "");
	}
	if (x->synthetic) {
		int rc = ptd__val_synth_deref(ps->v, x, &r);

		ptd_value_free(x);
		if (rc < 0) {
			if (!ps->rc)
				ps->rc = rc;
			return NULL;
		}
		return r;
	}
	if (fetch(ps, x) < 0) {
		ptd_value_free(x);
		return NULL;
	}
	if (!s->target || ptd__vt_strip(s->target)->kind == VT_VOID) {
		ptd_value_free(x);
		return fail(ps, -ptde_invalid, "Attempt to take contents of a non-pointer value.%s", "");
	}
	if (ptd__vt_size(s->target) > VAL_MAX_SIZE) {
		ptd_value_free(x);
		return fail(ps, -ptde_invalid, "value is larger than max-value-size%s", "");
	}
	r = ptd__val_new(s->target);
	if (!r) {
		ptd_value_free(x);
		return oom(ps);
	}
	r->lval = LV_MEM;
	r->addr = ptd__bits(x->buf, 8, 0);
	r->lazy = ptd__vt_strip(s->target)->kind != VT_FUNC;
	ptd_value_free(x);
	return r;
}

static val_t *binary(struct parser *ps, const char *op, val_t *a, val_t *b);
static val_t *assign(struct parser *ps, val_t *lhs, val_t *rhs);

/* x++, x--, ++x, --x: x = x + 1 written back; the postfix forms give the
 * value x had before, as a plain value. */
static val_t *incdec(struct parser *ps, val_t *x, int up, int post)
{
	val_t *cur, *one, *sum, *old = NULL, *nv;

	if (x->lval == LV_NONE) {
		ptd_value_free(x);
		return fail(ps, -ptde_invalid, "Left operand of assignment is not an lvalue.%s", "");
	}
	if (fetch(ps, x) < 0) {
		ptd_value_free(x);
		return NULL;
	}
	if (post) {
		old = ptd__val_copy(x);
		if (!old) {
			ptd_value_free(x);
			return oom(ps);
		}
		old->lval = LV_NONE;
	}
	cur = ptd__val_copy(x);
	one = mk_int(ps, ps->v->t_int, 1);
	if (!cur || !one) {
		ptd_value_free(cur);
		ptd_value_free(one);
		ptd_value_free(old);
		ptd_value_free(x);
		return ps->rc ? NULL : oom(ps);
	}
	sum = binary(ps, up ? "+" : "-", cur, one);
	if (!sum) {
		ptd_value_free(old);
		ptd_value_free(x);
		return NULL;
	}
	nv = assign(ps, x, sum);
	if (!post)
		return nv;
	if (!nv) {
		ptd_value_free(old);
		return NULL;
	}
	ptd_value_free(nv);
	return old;
}

/* Whether a member function @name of class @s has an out-of-line
 * copy in the program (one of its overloads: a declaration without a
 * linkage name is taken to have one); *@count: how many there are. */
static int method_compiled(struct parser *ps, struct vtype *s, const char *name, int *count)
{
	const char *ln[16];
	int n = ptd__vt_methods(s, name, ln, 16), there = 0;

	for (int i = 0; i < n && i < 16 && !there; i++)
		there = !*ln[i] ||
			(ps->v->sym && ptd_symbols_function(ps->v->sym, ln[i], NULL, NULL) == 0);
	if (count)
		*count = n;
	return there;
}

/* The value of a call of a class's member function the program is
 * not run for: gdb's libstdc++ xmethod when there is one; else the
 * error gdb gives (a class without such a function), or that ptdbg
 * does not call functions in the program.  Frees @x and @args. */
static val_t *xm_call(struct parser *ps, val_t *x, const char *name, val_t **args, int nargs)
{
	val_t *r = NULL;
	int rc = ptd__xm_call(ps->v, x, name, args, nargs, &r);
	char *tn;

	for (int i = 0; i < nargs; i++)
		ptd_value_free(args[i]);
	if (rc > 0) {
		ptd_value_free(x);
		return r;
	}
	if (rc < 0) {
		ptd_value_free(x);
		if (!ps->rc)
			ps->rc = rc;
		return NULL;
	}
	if (ptd__vt_has_method(S(x), name)) {
		/* gdb calls an out-of-line copy; without one (an inline
		 * function of a -O0 program that did not call it) it says
		 * so */
		int there = method_compiled(ps, S(x), name, NULL);

		ptd_value_free(x);
		if (!there && !ps->rc) {
			ptd_clear_error();
			return fail(ps, -ptde_unsupported, "Cannot evaluate function -- may be inlined%s",
				    "");
		}
		return fail(ps, -ptde_unsupported,
			    "cannot call functions in the program: ptdbg does not run code in it%s", "");
	}
	if (!strncmp(name, "operator", 8)) {
		ptd_value_free(x);
		return fail(ps, -ptde_notfound, "No symbol \"%s\" in current context.", name);
	}
	tn = ptd__vt_name(S(x), "");
	if (!ps->rc)
		ps->rc = ptd__err(-ptde_notfound, "Couldn't find method %s::%s", tn ? tn : "?", name);
	free(tn);
	ptd_value_free(x);
	return NULL;
}

/* A class's operator (@name: "operator[]" with @arg, "operator*",
 * "operator->") applied to @x. */
static val_t *class_op(struct parser *ps, val_t *x, const char *name, val_t *arg)
{
	return xm_call(ps, x, name, arg ? &arg : NULL, arg ? 1 : 0);
}

/* x.name(args...): ps->p is at the '('. */
static val_t *method_call(struct parser *ps, val_t *x, const char *name)
{
	val_t *args[16];
	int n = 0;

	if ((n = parse_args(ps, args, (int)(sizeof(args) / sizeof(args[0])))) < 0) {
		ptd_value_free(x);
		return NULL;
	}
	if (S(x)->kind != VT_STRUCT && S(x)->kind != VT_UNION) {
		fail(ps, -ptde_invalid,
		     "Attempt to extract a component of a value that is not a struct or union%s", "");
		goto fail;
	}
	{
		struct vt_member mb;
		uint64_t base = 0;

		if (find_member(S(x), name, &base, &mb, 0)) {
			/* a data member: a pointer to a function */
			fail(ps, -ptde_unsupported,
			     "cannot call functions in the program: ptdbg does not run code in it%s", "");
			goto fail;
		}
	}
	return xm_call(ps, x, name, args, n);
fail:
	for (int i = 0; i < n; i++)
		ptd_value_free(args[i]);
	ptd_value_free(x);
	return NULL;
}

static val_t *parse_postfix(struct parser *ps)
{
	val_t *x = parse_primary(ps);

	while (x) {
		skip(ps);
		if (*ps->p == '[') {
			val_t *i, *sum;

			ps->p++;
			i = parse_comma(ps);
			skip(ps);
			if (!i || *ps->p != ']') {
				ptd_value_free(x);
				ptd_value_free(i);
				return ps->rc ? NULL : syntax(ps);
			}
			ps->p++;
			{
				struct vtype *s = S(x);

				if (cplus(ps) && s->kind == VT_STRUCT) {
					x = class_op(ps, x, "operator[]", i);
					continue;
				}
				if (s->kind == VT_ARRAY && x->lval != LV_MEM) {
					/* an array in the history: index its bytes */
					int64_t k;
					val_t *r;

					if (fetch(ps, i) < 0) {
						ptd_value_free(x);
						ptd_value_free(i);
						return NULL;
					}
					k = as_i64(i);
					ptd_value_free(i);
					if (k < 0 || (s->count >= 0 && k >= s->count)) {
						ptd_value_free(x);
						return fail(ps, -ptde_invalid, "no such vector element%s", "");
					}
					r = ptd__val_new(s->target);
					if (r) {
						uint64_t at = (uint64_t)k * ptd__vt_size(s->target);

						memcpy(r->buf, x->buf + at, ptd__vt_size(s->target));
						/* an element of a vector register is a
						 * place in it; one of what is not known,
						 * not known */
						r->unavailable = x->unavailable;
						if (x->lval == LV_XREG) {
							r->lval = LV_XREG;
							r->regno = x->regno;
							r->addr = x->addr + at;
						}
					}
					ptd_value_free(x);
					x = r ? r : oom(ps);
					continue;
				}
				if (s->kind != VT_ARRAY && s->kind != VT_PTR &&
				    !(S(i)->kind == VT_ARRAY || S(i)->kind == VT_PTR)) {
					char *tn = ptd__vt_name(x->type, "");

					fail(ps, -ptde_invalid, "cannot subscript something of type `%s'",
					     tn ? tn : "?");
					free(tn);
					ptd_value_free(x);
					ptd_value_free(i);
					return NULL;
				}
			}
			sum = binary(ps, "+", x, i);
			x = sum ? deref(ps, sum) : NULL;
		} else if (*ps->p == '.' || (ps->p[0] == '-' && ps->p[1] == '>')) {
			int arrow = *ps->p == '-';
			size_t n;
			char name[256];

			ps->p += arrow ? 2 : 1;
			skip(ps);
			n = ident_len(ps->p);
			if (!n || n >= sizeof(name)) {
				ptd_value_free(x);
				return syntax(ps);
			}
			snprintf(name, sizeof(name), "%.*s", (int)n, ps->p);
			ps->p += n;
			if (!cplus(ps)) {
				/* gdb's value_struct_elt: an array stands for its
				 * first element and pointers are followed, for . as
				 * for -> (pt->x, pp.x, pts->y) */
				int hops = 0;

				if (S(x)->kind == VT_ARRAY && x->lval == LV_MEM) {
					x = decay(ps, x);
					if (!x)
						return NULL;
				}
				while (S(x)->kind == VT_PTR && hops++ < 64) {
					x = deref(ps, x);
					if (!x)
						return NULL;
				}
				if (S(x)->kind != VT_STRUCT && S(x)->kind != VT_UNION) {
					ptd_value_free(x);
					return fail(ps, -ptde_invalid,
						    "Attempt to extract a component of a value that is not a %s.",
						    arrow ? "structure pointer" : "structure");
				}
			} else if (S(x)->kind == VT_PTR) {
				x = deref(ps, x);
				if (!x)
					return NULL;
			} else if (arrow && (S(x)->kind == VT_STRUCT || S(x)->kind == VT_UNION)) {
				/* a class's operator->, or (a class without one) its
				 * own member, as gdb takes it */
				if (ptd__xm_has(S(x), "operator->") ||
				    ptd__vt_has_method(S(x), "operator->")) {
					x = class_op(ps, x, "operator->", NULL);
					if (!x)
						return NULL;
					if (S(x)->kind == VT_PTR && !(x = deref(ps, x)))
						return NULL;
				}
			} else if (arrow) {
				ptd_value_free(x);
				return fail(ps, -ptde_invalid,
					    "Attempt to extract a component of a value that is not a structure pointer.%s",
					    "");
			}
			skip(ps);
			if (*ps->p == '(' && cplus(ps)) {
				x = method_call(ps, x, name);
				continue;
			}
			{
				val_t *m = member(ps, x, name);

				ptd_value_free(x);
				x = m;
			}
		} else if (*ps->p == '(') {
			int isvoid = x->lval == LV_CONV && S(x) && S(x)->kind == VT_VOID;

			ptd_value_free(x);
			if (isvoid && !ps->v->has_regs)
				return fail(ps, -ptde_not_running,
					    "You can't do that without a process to debug.%s", "");
			if (isvoid)
				return fail(ps, -ptde_invalid,
					    "Invalid data type for function to be called.%s", "");
			return fail(ps, -ptde_unsupported,
				    "cannot call functions in the program: ptdbg does not run code in it%s",
				    "");
		} else if ((ps->p[0] == '+' && ps->p[1] == '+') || (ps->p[0] == '-' && ps->p[1] == '-')) {
			int up = ps->p[0] == '+';

			ps->p += 2;
			x = incdec(ps, x, up, 1);
			if (!x)
				return NULL;
		} else {
			break;
		}
	}
	return x;
}

static val_t *parse_unary(struct parser *ps)
{
	struct ptd_values *v = ps->v;
	val_t *x, *r;
	char c;

	skip(ps);
	if (++ps->depth > MAX_DEPTH) {
		ps->depth--;
		return fail(ps, -ptde_invalid, "Expression nested too deeply.%s", "");
	}
	c = *ps->p;
	if (c == '(') {
		const char *save = ps->p;
		struct vtype *t;

		ps->p++;
		t = try_type(ps);
		if (ps->rc) {
			ps->depth--;
			return NULL;
		}
		skip(ps);
		if (t && *ps->p == ')') {
			ps->p++;
			x = parse_unary(ps);
			if (x) {
				x = decay(ps, x);
				if (x && fetch(ps, x) == 0)
					r = convert(ps, x, t);
				else
					r = NULL;
				ptd_value_free(x);
				x = r;
			}
			ps->depth--;
			return x;
		}
		ps->p = save;
	}
	if ((c == '-' || c == '+') && ps->p[1] == c) {
		ps->p += 2;
		x = parse_unary(ps);
		x = x ? incdec(ps, x, c == '+', 0) : NULL;
		ps->depth--;
		return x;
	}
	if ((c == '-' || c == '+') && ps->p[1] != c) {
		ps->p++;
		x = parse_unary(ps);
		if (x && fetch(ps, x) == 0) {
			struct vtype *s = S(x);

			if (!is_arith(s)) {
				ptd_value_free(x);
				x = fail(ps, -ptde_invalid, c == '-' ? "Argument to negate operation not a number.%s"
						: "Argument to arithmetic operation not a number or boolean.%s", "");
			} else if (is_int(s) && s->size > 8) {
				ptd_value_free(x);
				x = fail(ps, -ptde_invalid,
					 "That operation is not available on integers of more than 8 bytes.%s", "");
			} else if (c == '-') {
				/* gdb negates a float as 0 - x: -0.0 is 0 */
				if (s->kind == VT_FLOAT)
					r = mk_float(ps, s, 0.0 - as_double(x));
				else
					r = mk_int(ps, promote(v, s), 0 - (uint64_t)as_i64(x));
				ptd_value_free(x);
				x = r;
			} else if (s->kind != VT_FLOAT) {
				r = mk_int(ps, promote(v, s), (uint64_t)as_i64(x));
				ptd_value_free(x);
				x = r;
			}
		} else if (x) {
			ptd_value_free(x);
			x = NULL;
		}
		ps->depth--;
		return x;
	}
	if (c == '!' || c == '~') {
		ps->p++;
		x = decay(ps, parse_unary(ps));
		if (x && fetch(ps, x) == 0) {
			struct vtype *s = S(x);

			if (c == '!')
				r = mk_int(ps, truth_type(ps),
					   s->kind == VT_FLOAT ? as_double(x) == 0 : as_i64(x) == 0);
			else if (!is_int(s))
				r = fail(ps, -ptde_invalid, "Argument to complement operation not an integer, boolean.%s", "");
			else
				r = mk_int(ps, promote(v, s), ~(uint64_t)as_i64(x));
			ptd_value_free(x);
			x = r;
		} else if (x) {
			ptd_value_free(x);
			x = NULL;
		}
		ps->depth--;
		return x;
	}
	if (c == '*') {
		ps->p++;
		x = parse_unary(ps);
		ps->depth--;
		if (x && cplus(ps) && S(x)->kind == VT_STRUCT)
			return class_op(ps, x, "operator*", NULL);
		return x ? deref(ps, x) : NULL;
	}
	if (c == '&' && ps->p[1] != '&') {
		const char *opnd;
		size_t il;

		ps->p++;
		skip(ps);
		opnd = ps->p;
		x = parse_unary(ps);
		ps->depth--;
		if (!x)
			return NULL;
		if (x->lval != LV_MEM || x->bit_size) {
			char name[128];

			/* a variable's own name, also in parentheses, gets gdb's
			 * messages about it */
			const char *oe = ps->p;

			while (oe > opnd && isspace((unsigned char)oe[-1]))
				oe--;
			while (oe - opnd >= 2 && *opnd == '(' && oe[-1] == ')') {
				opnd++;
				oe--;
				while (opnd < oe && isspace((unsigned char)*opnd))
					opnd++;
				while (oe > opnd && isspace((unsigned char)oe[-1]))
					oe--;
			}
			il = ident_len(opnd);
			if (opnd + il != oe)
				il = 0;
			snprintf(name, sizeof(name), "%.*s", (int)(il < 100 ? il : 100), opnd);
			if (il && x->lval == LV_REG && x->regno >= 0 &&
			    x->regno < NDREGS) {
				char msg[200];

				snprintf(msg, sizeof(msg), "%s\" which is in register $%s", name,
					 ptd__dreg_name[x->regno]);
				ptd_value_free(x);
				return fail(ps, -ptde_invalid, "Address requested for identifier \"%s", msg);
			}
			if (il && x->lval == LV_NONE && !x->bit_size) {
				ptd_value_free(x);
				return fail(ps, -ptde_invalid, "Can't take address of \"%s\" which isn't an lvalue.",
					    name);
			}
			ptd_value_free(x);
			return fail(ps, -ptde_invalid,
				    "Attempt to take address of value not located in memory.%s", "");
		}
		r = mk_int(ps, ptd__vt_ptr(v, x->type), x->addr);
		ptd_value_free(x);
		return r;
	}
	x = parse_postfix(ps);
	ps->depth--;
	return x;
}

/* ------------------------------------------------------------------ */
/* Binary operators                                                     */

/* The comparison @op of two floating-point values (a double widens to
 * long double exactly, so one helper serves both). */
static int float_cmp(const char *op, long double x, long double y)
{
	return !strcmp(op, "==") ? x == y : !strcmp(op, "!=") ? x != y
		: !strcmp(op, "<") ? x < y : !strcmp(op, ">") ? x > y
		: !strcmp(op, "<=") ? x <= y : x >= y;
}

static val_t *binary(struct parser *ps, const char *op, val_t *a, val_t *b)
{
	struct ptd_values *v = ps->v;
	struct vtype *sa, *sb, *rt;
	val_t *r = NULL;
	int cmp = !strcmp(op, "==") || !strcmp(op, "!=") || !strcmp(op, "<") ||
		  !strcmp(op, ">") || !strcmp(op, "<=") || !strcmp(op, ">=");

	if (!strcmp(op, "@")) {
		/* gdb's artificial array: @b elements of a's type from a on */
		int64_t cnt;

		if (!b || fetch(ps, b) < 0)
			goto out;
		if (a->lval != LV_MEM || a->bit_size) {
			r = fail(ps, -ptde_invalid, "Only values in memory can be extended with '@'.%s", "");
			goto out;
		}
		if (!is_int(S(b)) || (cnt = as_i64(b)) <= 0) {
			char num[32];

			snprintf(num, sizeof(num), "%lld", is_int(S(b)) ? (long long)as_i64(b) : 0LL);
			r = fail(ps, -ptde_invalid, "Invalid number %s of repetitions.", num);
			goto out;
		}
		if ((uint64_t)cnt > VAL_MAX_SIZE || (uint64_t)cnt * ptd__vt_size(a->type) > VAL_MAX_SIZE) {
			char num[32];

			snprintf(num, sizeof(num), "%llu",
				 (unsigned long long)cnt * (unsigned long long)ptd__vt_size(a->type));
			r = fail(ps, -ptde_invalid,
				 "value requires %s bytes, which is more than max-value-size", num);
			goto out;
		}
		r = ptd__val_new(ptd__vt_array(v, a->type, cnt));
		if (!r) {
			r = oom(ps);
			goto out;
		}
		r->lval = LV_MEM;
		r->addr = a->addr;
		r->lazy = 1;
		goto out;
	}
	a = decay(ps, a);
	b = decay(ps, b);
	if (!a || !b || fetch(ps, a) < 0 || fetch(ps, b) < 0)
		goto out;
	sa = S(a);
	sb = S(b);
	if (sa->kind == VT_UNION && sb->kind == VT_UNION && sa->size == sb->size &&
	    (!strcmp(op, "==") || !strcmp(op, "!="))) {
		/* gdb compares two unions of one size byte by byte ($xmm0 == $xmm1) */
		int eq = !memcmp(a->buf, b->buf, sa->size);

		r = mk_int(ps, truth_type(ps), (uint64_t)(op[0] == '=' ? eq : !eq));
		goto out;
	}
	if ((is_int(sa) && sa->size > 8) || (is_int(sb) && sb->size > 8)) {
		/* (the int128 of the vector registers) */
		r = fail(ps, -ptde_invalid,
			 "That operation is not available on integers of more than 8 bytes.%s", "");
		goto out;
	}
	if (!strcmp(op, "&&") || !strcmp(op, "||")) {
		int x = sa->kind == VT_FLOAT ? as_double(a) != 0 : as_i64(a) != 0;
		int y = sb->kind == VT_FLOAT ? as_double(b) != 0 : as_i64(b) != 0;

		r = mk_int(ps, truth_type(ps), op[0] == '&' ? (x && y) : (x || y));
		goto out;
	}
	/* pointer arithmetic */
	if (sa->kind == VT_PTR || sb->kind == VT_PTR) {
		uint64_t pa = (uint64_t)as_i64(a), pb = (uint64_t)as_i64(b);

		if (cmp) {
			int res = !strcmp(op, "==") ? pa == pb : !strcmp(op, "!=") ? pa != pb
				: !strcmp(op, "<") ? pa < pb : !strcmp(op, ">") ? pa > pb
				: !strcmp(op, "<=") ? pa <= pb : pa >= pb;

			r = mk_int(ps, truth_type(ps), (uint64_t)res);
			goto out;
		}
		if (sa->kind == VT_PTR && sb->kind == VT_PTR && !strcmp(op, "-")) {
			uint64_t esz = ptd__vt_size(sa->target);

			if (!esz)
				esz = 1;
			r = mk_int(ps, v->t_long, (uint64_t)(((int64_t)(pa - pb)) / (int64_t)esz));
			goto out;
		}
		if ((op[0] == '+' || op[0] == '-') && !op[1]) {
			val_t *p = sa->kind == VT_PTR ? a : b, *i = sa->kind == VT_PTR ? b : a;
			struct vtype *ps_t = S(p);
			uint64_t esz = ptd__vt_size(ps_t->target);

			if (!is_int(S(i)) || (op[0] == '-' && p == b)) {
				r = fail(ps, -ptde_invalid, "Argument to arithmetic operation not a number or boolean.%s", "");
				goto out;
			}
			if (!esz || ptd__vt_strip(ps_t->target)->kind == VT_VOID)
				esz = 1;
			r = mk_int(ps, p->type,
				   (uint64_t)as_i64(p) + (op[0] == '+' ? 1 : -1) * (uint64_t)as_i64(i) * esz);
			goto out;
		}
		r = fail(ps, -ptde_invalid, "Argument to arithmetic operation not a number or boolean.%s", "");
		goto out;
	}
	if (!is_arith(sa) || !is_arith(sb)) {
		if (cmp && sa->kind == sb->kind && (sa->kind == VT_STRUCT))
			r = fail(ps, -ptde_invalid, "Argument to comparison operation not a number, boolean or pointer.%s", "");
		else
			r = fail(ps, -ptde_invalid, "Argument to arithmetic operation not a number or boolean.%s", "");
		goto out;
	}
	rt = arith_type(v, sa, sb);
	if (!strcmp(op, "<<") || !strcmp(op, ">>"))
		rt = promote(v, sa);
	if (rt->kind == VT_FLOAT && rt->size > 8) {
		/* long double arithmetic in long double, as gdb's */
		long double x = as_ldouble(a), y = as_ldouble(b), z;

		if (cmp) {
			r = mk_int(ps, truth_type(ps), (uint64_t)float_cmp(op, x, y));
			goto out;
		}
		switch (op[0]) {
		case '+': z = x + y; break;
		case '-': z = x - y; break;
		case '*': z = x * y; break;
		case '/': z = x / y; break;
		default:
			r = fail(ps, -ptde_invalid, "Integer only operation %s.", op);
			goto out;
		}
		r = mk_ldouble(ps, rt, z);
		goto out;
	}
	if (rt->kind == VT_FLOAT) {
		double x = as_double(a), y = as_double(b), z;

		if (cmp) {
			r = mk_int(ps, truth_type(ps), (uint64_t)float_cmp(op, x, y));
			goto out;
		}
		switch (op[0]) {
		case '+': z = x + y; break;
		case '-': z = x - y; break;
		case '*': z = x * y; break;
		case '/': z = x / y; break;
		default:
			r = fail(ps, -ptde_invalid, "Integer only operation %s.", op);
			goto out;
		}
		r = mk_float(ps, rt, z);
		goto out;
	}
	{
		int sgn = rt->is_signed;
		uint64_t x = (uint64_t)as_i64(a), y = (uint64_t)as_i64(b), z = 0;
		int64_t sx, sy;

		if (rt->size == 4) {
			x = sgn ? (uint64_t)(int64_t)(int32_t)x : (uint32_t)x;
			y = sgn ? (uint64_t)(int64_t)(int32_t)y : (uint32_t)y;
		}
		sx = (int64_t)x;
		sy = (int64_t)y;
		if (cmp) {
			int res = !strcmp(op, "==") ? x == y : !strcmp(op, "!=") ? x != y
				: !strcmp(op, "<") ? (sgn ? sx < sy : x < y)
				: !strcmp(op, ">") ? (sgn ? sx > sy : x > y)
				: !strcmp(op, "<=") ? (sgn ? sx <= sy : x <= y)
				: (sgn ? sx >= sy : x >= y);

			r = mk_int(ps, truth_type(ps), (uint64_t)res);
			goto out;
		}
		if (!strcmp(op, "+"))
			z = x + y;
		else if (!strcmp(op, "-"))
			z = x - y;
		else if (!strcmp(op, "*"))
			z = x * y;
		else if (!strcmp(op, "/") || !strcmp(op, "%")) {
			if (!y) {
				r = fail(ps, -ptde_invalid, "Division by zero%s", "");
				goto out;
			}
			if (sgn && sy == -1)
				z = op[0] == '/' ? (uint64_t)0 - x : 0;
			else if (sgn)
				z = op[0] == '/' ? (uint64_t)(sx / sy) : (uint64_t)(sx % sy);
			else
				z = op[0] == '/' ? x / y : x % y;
		} else if (op[0] == '<' || op[0] == '>') {
			/* gdb 13 makes a shift by a negative count or by the
			 * width or more 0, with a warning */
			int64_t cnt = (int64_t)ptd__bits(b->buf, sb->size, sb->is_signed);
			const char *dir = op[0] == '<' ? "left" : "right";

			if (sb->is_signed && cnt < 0) {
				snprintf(v->warning, sizeof(v->warning), "%s shift count is negative", dir);
				z = 0;
			} else if ((uint64_t)cnt >= rt->size * 8) {
				snprintf(v->warning, sizeof(v->warning),
					 "%s shift count >= width of type", dir);
				z = 0;
			} else if (op[0] == '<') {
				z = x << cnt;
			} else {
				z = sgn ? (uint64_t)(sx >> cnt) : x >> cnt;
			}
		} else if (!strcmp(op, "&"))
			z = x & y;
		else if (!strcmp(op, "|"))
			z = x | y;
		else if (!strcmp(op, "^"))
			z = x ^ y;
		r = mk_int(ps, rt, z);
	}
out:
	ptd_value_free(a);
	ptd_value_free(b);
	return r;
}

struct binop {
	const char *tok;
	int prec;
};

static const struct binop binops[] = {
	{ "||", 1 }, { "&&", 2 }, { "==", 6 }, { "!=", 6 }, { "<=", 7 }, { ">=", 7 },
	{ "<<", 8 }, { ">>", 8 }, { "|", 3 }, { "^", 4 }, { "&", 5 }, { "<", 7 },
	{ ">", 7 }, { "@", 9 }, { "+", 10 }, { "-", 10 }, { "*", 11 }, { "/", 11 }, { "%", 11 },
};

static const struct binop *peek_op(struct parser *ps)
{
	skip(ps);
	for (size_t i = 0; i < sizeof(binops) / sizeof(binops[0]); i++) {
		size_t n = strlen(binops[i].tok);

		if (strncmp(ps->p, binops[i].tok, n))
			continue;
		/* "a = b" is not "a == b"; "<<=" and friends are assignments */
		if (ps->p[n] == '=' && strcmp(binops[i].tok, "==") && strcmp(binops[i].tok, "!=") &&
		    strcmp(binops[i].tok, "<=") && strcmp(binops[i].tok, ">="))
			return NULL;
		return &binops[i];
	}
	return NULL;
}

static val_t *parse_binary(struct parser *ps, int minprec)
{
	val_t *lhs = parse_unary(ps), *rhs;
	const struct binop *op;

	while (lhs && (op = peek_op(ps)) && op->prec > minprec) {
		ps->p += strlen(op->tok);
		if (++ps->depth > MAX_DEPTH) {
			ps->depth--;
			ptd_value_free(lhs);
			return fail(ps, -ptde_invalid, "Expression nested too deeply.%s", "");
		}
		rhs = parse_binary(ps, op->prec);
		ps->depth--;
		if (!rhs) {
			ptd_value_free(lhs);
			return NULL;
		}
		lhs = binary(ps, op->tok, lhs, rhs);
	}
	return lhs;
}

static val_t *parse_cond(struct parser *ps)
{
	val_t *c = parse_binary(ps, 0), *a, *b;
	int t;

	skip(ps);
	if (!c || *ps->p != '?')
		return c;
	ps->p++;
	c = decay(ps, c);
	if (!c || fetch(ps, c) < 0) {
		ptd_value_free(c);
		return NULL;
	}
	t = S(c)->kind == VT_FLOAT ? as_double(c) != 0 : as_i64(c) != 0;
	ptd_value_free(c);
	a = parse_comma(ps);
	skip(ps);
	if (!a || *ps->p != ':') {
		ptd_value_free(a);
		return ps->rc ? NULL : syntax(ps);
	}
	ps->p++;
	b = parse_cond(ps);
	if (!b) {
		ptd_value_free(a);
		return NULL;
	}
	if (t) {
		ptd_value_free(b);
		return a;
	}
	ptd_value_free(a);
	return b;
}

/* lhs = rhs: writes the converted value to memory or a register. */
static val_t *assign(struct parser *ps, val_t *lhs, val_t *rhs)
{
	struct ptd_values *v = ps->v;
	val_t *nv;
	uint64_t sz = ptd__vt_size(lhs->type);
	int rc = 0;

	if (lhs->lval == LV_CONV) {
		/* a convenience variable takes the value and its type */
		val_t *keep;

		rhs = decay(ps, rhs);
		if (!rhs || fetch(ps, rhs) < 0) {
			ptd_value_free(lhs);
			ptd_value_free(rhs);
			return NULL;
		}
		if (lhs->conv_part) {
			/* a member: converted to its type, stored in place */
			struct ptd_value *whole = lhs->regno >= 0 && lhs->regno < v->nconv
							  ? v->conv[lhs->regno].val
							  : NULL;

			keep = convert(ps, rhs, lhs->type);
			ptd_value_free(rhs);
			if (keep && whole && !v->type_only &&
			    lhs->addr + sz <= ptd__vt_size(whole->type))
				memcpy(whole->buf + lhs->addr, keep->buf, sz);
			if (keep) {
				keep->lval = LV_CONV;
				keep->regno = lhs->regno;
				keep->conv_part = 1;
				keep->addr = lhs->addr;
			}
			ptd_value_free(lhs);
			return keep;
		}
		keep = ptd__val_copy(rhs);
		if (!keep) {
			ptd_value_free(lhs);
			ptd_value_free(rhs);
			return oom(ps);
		}
		keep->lazy = 0;
		keep->lval = LV_NONE;
		keep->conv_part = 0;
		keep->addr = 0;
		keep->ref_type = NULL;
		keep->bit_size = keep->bit_off = 0;
		if (!v->type_only && lhs->regno >= 0 && lhs->regno < v->nconv) {
			ptd_value_free(v->conv[lhs->regno].val);
			v->conv[lhs->regno].val = keep;
			keep = ptd__val_copy(keep);
			if (!keep) {
				ptd_value_free(lhs);
				ptd_value_free(rhs);
				return oom(ps);
			}
		}
		keep->lval = LV_CONV;
		keep->regno = lhs->regno;
		ptd_value_free(lhs);
		ptd_value_free(rhs);
		return keep;
	}
	if (!v->write && !v->set_reg) {
		ptd_value_free(lhs);
		ptd_value_free(rhs);
		return fail(ps, -ptde_unsupported,
			    "cannot write memory: the program is not running live here "
			    "(the recorded past and loaded traces are read-only)%s", "");
	}
	if (lhs->lval == LV_NONE) {
		ptd_value_free(lhs);
		ptd_value_free(rhs);
		return fail(ps, -ptde_invalid, "Left operand of assignment is not an lvalue.%s", "");
	}
	/* (an array is assigned whole, not as a pointer) */
	if (S(lhs)->kind != VT_ARRAY || S(rhs)->kind != VT_ARRAY)
		rhs = decay(ps, rhs);
	if (!rhs || fetch(ps, rhs) < 0) {
		ptd_value_free(lhs);
		ptd_value_free(rhs);
		return NULL;
	}
	nv = convert(ps, rhs, lhs->type);
	ptd_value_free(rhs);
	if (!nv) {
		ptd_value_free(lhs);
		return NULL;
	}
	if (v->type_only) {
		/* sizeof(x = 1), a type-only evaluation: nothing is written */
	} else if (lhs->lval == LV_MEM) {
		if (!v->write) {
			rc = ptd__err(-ptde_unsupported,
				      "cannot write memory: the program is not running live here "
				      "(the recorded past and loaded traces are read-only)");
		} else if (lhs->bit_size) {
			uint64_t word = 0, mask;
			size_t nb = (size_t)(lhs->bit_off + lhs->bit_size + 7) / 8, x;

			if (nb > 8)
				nb = 8;
			rc = ptd__mem_read(v, lhs->addr, &word, nb);
			if (rc == 0) {
				mask = (lhs->bit_size < 64 ? (1ull << lhs->bit_size) - 1 : ~0ull) << lhs->bit_off;
				x = (size_t)ptd__bits(nv->buf, sz, 0);
				if (lhs->bit_size < 64 && (x >> lhs->bit_size) &&
				    ~(uint64_t)x >> (lhs->bit_size - 1))
					snprintf(v->warning, sizeof(v->warning),
						 "Value does not fit in %d bits.", lhs->bit_size);
				word = (word & ~mask) | (((uint64_t)x << lhs->bit_off) & mask);
				if (v->write(v->ctx, lhs->addr, &word, nb) != (long)nb)
					rc = ptd__err(-ptde_nomap, "Cannot access memory at address 0x%llx",
						      (unsigned long long)lhs->addr);
				/* the value as stored, truncated to the field */
				x = (size_t)((word & mask) >> lhs->bit_off);
				memset(nv->buf, 0, sz);
				memcpy(nv->buf, &x, sz < 8 ? sz : 8);
			}
		} else if (v->write(v->ctx, lhs->addr, nv->buf, sz) != (long)sz) {
			rc = ptd__err(-ptde_nomap, "Cannot access memory at address 0x%llx",
				      (unsigned long long)lhs->addr);
		}
	} else if (lhs->lval == LV_XREG) {
		if (lhs->unavailable)
			rc = ptd__err(-ptde_unsupported, "value is not available");
		else
			rc = ptd__xreg_write(v, lhs, nv->buf, sz);
	} else {
		uint64_t x = ptd__bits(nv->buf, sz, 0);

		if (lhs->bit_size && lhs->regno >= 0 && lhs->regno < NDREGS) {
			/* a part of a register ($eax, $ah): the rest as it is */
			uint64_t mask = (lhs->bit_size < 64 ? (1ull << lhs->bit_size) - 1 : ~0ull)
					<< lhs->bit_off;

			x = (v->frame.regs[lhs->regno] & ~mask) | ((x << lhs->bit_off) & mask);
		}
		if (lhs->unavailable || lhs->not_saved)
			rc = ptd__err(-ptde_unsupported, "value is not available");
		else
			rc = ptd__reg_write(v, lhs->regno, x);
		for (int k = 0; rc == 0 && ptd__other_regs[k].name; k++)
			if (ptd__other_regs[k].regno == lhs->regno)
				memcpy((char *)&v->uregs + ptd__other_regs[k].off, &x, 8);
		if (rc == 0 && lhs->regno >= 0 && lhs->regno < NDREGS) {
			v->frame.regs[lhs->regno] = x;
			if (v->frame.level == 0)
				v->frame0.regs[lhs->regno] = x;
		}
	}
	if (rc < 0) {
		if (!ps->rc)
			ps->rc = rc;
		ptd_value_free(lhs);
		ptd_value_free(nv);
		return NULL;
	}
	nv->lval = lhs->lval;
	nv->addr = lhs->addr;
	nv->regno = lhs->regno;
	if (lhs->lval == LV_REG) {
		nv->bit_size = lhs->bit_size;
		nv->bit_off = lhs->bit_off;
	}
	ptd_value_free(lhs);
	return nv;
}

static val_t *parse_assign(struct parser *ps)
{
	val_t *lhs = parse_cond(ps), *rhs;
	static const char *const ops[] = { "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=",
					   "<<=", ">>=", NULL };

	skip(ps);
	if (!lhs)
		return NULL;
	if (ps->p[0] == '=' && ps->p[1] != '=') {
		ps->p++;
		rhs = parse_assign(ps);
		if (!rhs) {
			ptd_value_free(lhs);
			return NULL;
		}
		return assign(ps, lhs, rhs);
	}
	for (int i = 0; ops[i]; i++) {
		size_t n = strlen(ops[i]);
		char op[4];
		val_t *cur, *res;

		if (strncmp(ps->p, ops[i], n))
			continue;
		ps->p += n;
		rhs = parse_assign(ps);
		if (!rhs) {
			ptd_value_free(lhs);
			return NULL;
		}
		snprintf(op, sizeof(op), "%.*s", (int)(n - 1), ops[i]);
		cur = ptd__val_copy(lhs);
		if (!cur) {
			ptd_value_free(lhs);
			ptd_value_free(rhs);
			return oom(ps);
		}
		res = binary(ps, op, cur, rhs);
		if (!res) {
			ptd_value_free(lhs);
			return NULL;
		}
		return assign(ps, lhs, res);
	}
	return lhs;
}

static val_t *parse_comma(struct parser *ps)
{
	val_t *x = parse_assign(ps);

	for (;;) {
		skip(ps);
		if (!x || *ps->p != ',')
			return x;
		ps->p++;
		ptd_value_free(x);
		x = parse_assign(ps);
	}
}

int ptd_values_eval(struct ptd_values *v, const char *expr, struct ptd_value **out)
{
	struct parser ps = { 0 };
	val_t *r;

	if (!v || !expr || !out)
		return -ptde_invalid;
	ps.v = v;
	ps.p = expr;
	v->warning[0] = '\0';
	v->blk_known = 0;
	skip(&ps);
	if (!*ps.p)
		return ptd__err(-ptde_invalid, "Argument required (expression to compute).");
	ptd_clear_error();
	r = parse_comma(&ps);
	if (r) {
		skip(&ps);
		if (*ps.p) {
			ptd_value_free(r);
			r = syntax(&ps);
		}
	}
	if (!r)
		return ps.rc ? ps.rc : ptd__err(-ptde_internal, "expression failed");
	*out = r;
	return 0;
}

/*
 * gdb's update_watchpoint: the places a watchpoint on @expr watches are
 * the object itself and every value its evaluation fetched from memory,
 * structs and arrays excepted (a[i] reads i; p->next->val reads p and
 * p->next; a struct fetched whole is not a place to watch).
 */
int ptd_values_watch_chain(struct ptd_values *v, const char *expr, struct ptd_watch_loc *locs,
			   int max)
{
	struct ptd_value *val = NULL;
	int rc, n = 0;

	if (!v || !expr || !locs || max < 1)
		return -ptde_invalid;
	v->chain_on = 1;
	v->nchain = 0;
	v->chain_failed.size = 0;
	rc = ptd_values_eval(v, expr, &val);
	v->chain_on = 0;
	if (rc < 0) {
		/* gdb keeps watching what was read before the error (p of
		 * p->next->val while p is NULL): its change may make the
		 * expression readable */
		int any = 0;

		for (int i = 0; i < v->nchain; i++)
			any |= v->chain[i].scalar && v->chain[i].size >= 1 && v->chain[i].size <= 8;
		if (!any)
			return rc;
		locs[n].addr = 0;
		locs[n++].len = 0;
		/* and the value whose read failed (gdb: "watch it anyway in
		 * case it becomes readable"), after the ones read */
		if (v->chain_failed.scalar && v->chain_failed.size >= 1 &&
		    v->chain_failed.size <= 8 && v->nchain < (int)(sizeof(v->chain) / sizeof(v->chain[0])))
			v->chain[v->nchain++] = v->chain_failed;
	} else if (val->lval != LV_MEM) {
		ptd_value_free(val);
		return ptd__err(-ptde_invalid, "cannot watch \"%s\": not an object in memory", expr);
	} else {
		locs[n].addr = val->addr;
		locs[n++].len = (int)ptd__vt_size(val->type);
		ptd_value_free(val);
	}
	for (int i = 0; i < v->nchain && n < max; i++) {
		int dup = 0;

		if (!v->chain[i].scalar || v->chain[i].size < 1 || v->chain[i].size > 8)
			continue;
		for (int k = 0; k < n; k++)
			dup |= locs[k].len && locs[k].addr == v->chain[i].addr &&
			       locs[k].len == (int)v->chain[i].size;
		if (dup)
			continue;
		locs[n].addr = v->chain[i].addr;
		locs[n++].len = (int)v->chain[i].size;
	}
	return n;
}

int ptd_values_eval_type(struct ptd_values *v, const char *expr, struct ptd_value **out)
{
	int rc;

	if (!v)
		return -ptde_invalid;
	v->type_only++;
	rc = ptd_values_eval(v, expr, out);
	v->type_only--;
	return rc;
}

int ptd_values_record(struct ptd_values *v, const struct ptd_value *val)
{
	struct ptd_value *c;

	if (!v || !val)
		return -ptde_invalid;
	if (v->nhist == v->hist_cap) {
		int cap = v->hist_cap ? 2 * v->hist_cap : 16;
		struct ptd_value **h = realloc(v->hist, (size_t)cap * sizeof(*h));

		if (!h)
			return ptd__err(-ptde_nomem, "out of memory");
		v->hist = h;
		v->hist_cap = cap;
	}
	c = ptd__val_copy(val);
	if (!c)
		return ptd__err(-ptde_nomem, "out of memory");
	/* a history value is a snapshot: it never reads memory again */
	c->lazy = 0;
	v->hist[v->nhist++] = c;
	return v->nhist;
}

int ptd_values_type_name(struct ptd_values *v, const char *name, int expand, char **out)
{
	struct parser ps = { 0 };
	struct vtype *t;

	if (!v || !name || !out)
		return -ptde_invalid;
	ps.v = v;
	ps.p = name;
	t = try_type(&ps);
	if (ps.rc)
		return ps.rc;
	skip(&ps);
	if (!t || *ps.p)
		return -ptde_notfound;
	/* whatis of a typedef's name unrolls that one level, as gdb does
	 * ("whatis node_t" gives "struct node") */
	if (!expand && t->kind == VT_TYPEDEF && t->target)
		t = t->target;
	*out = expand == 2 ? ptd__vt_ptype_offsets(t) : expand ? ptd__vt_ptype(t) : ptd__vt_name(t, "");
	return *out ? 0 : ptd__err(-ptde_nomem, "out of memory");
}

int ptd_value_as_address(struct ptd_values *v, struct ptd_value *val, uint64_t *addr)
{
	struct vtype *s;
	int rc;

	if (!v || !val || !addr)
		return -ptde_invalid;
	s = ptd__vt_strip(val->type);
	if (s && (s->kind == VT_ARRAY || s->kind == VT_FUNC || s->kind == VT_NODEBUG) &&
	    val->lval == LV_MEM) {
		*addr = val->addr;
		return 0;
	}
	if (val->unavailable || val->not_saved)
		return ptd__err(-ptde_invalid, "value is not available");
	if (val->optimized_out)
		return ptd__err(-ptde_invalid, "value has been optimized out");
	if (val->synthetic)
		return ptd__err(-ptde_invalid, "value is a synthetic pointer");
	rc = ptd__val_fetch(v, val);
	if (rc < 0)
		return rc;
	if (s && s->kind == VT_FLOAT) {
		struct parser ps = { .v = v };

		*addr = (uint64_t)as_i64(val);
		(void)ps;
		return 0;
	}
	if (s && (s->kind == VT_STRUCT || s->kind == VT_UNION))
		return ptd__err(-ptde_invalid, "Value can't be converted to integer.");
	if (!s || (s->kind != VT_INT && s->kind != VT_PTR && s->kind != VT_ENUM && s->kind != VT_FLAGS))
		return ptd__err(-ptde_invalid, "Invalid cast.");
	*addr = ptd__bits(val->buf, s->kind == VT_PTR ? 8 : s->size, s->kind == VT_PTR ? 0 : s->is_signed);
	return 0;
}

const char *ptd_values_warning(const struct ptd_values *v)
{
	return v && v->warning[0] ? v->warning : NULL;
}

/* ------------------------------------------------------------------ */
/* printf "FORMAT", ARGS... as gdb's printf                             */

enum pf_class { PF_INT, PF_LONG, PF_LLONG, PF_DOUBLE, PF_LDOUBLE, PF_STRING, PF_PTR, PF_PERCENT };

struct pf_piece {
	char lit[256];  /* text before the conversion (escapes done) */
	char spec[32];  /* the conversion without its length modifier */
	enum pf_class cls;
	int has_conv;
};

/* Splits the format into pieces, as gdb's format_pieces checks it. */
static int pf_parse(const char *f, struct pf_piece **out, int *nout)
{
	struct pf_piece *pc = NULL, *cur;
	int n = 0;
	size_t ll;

	for (;;) {
		cur = realloc(pc, (size_t)(n + 1) * sizeof(*pc));
		if (!cur) {
			free(pc);
			return ptd__err(-ptde_nomem, "out of memory");
		}
		pc = cur;
		cur = &pc[n++];
		memset(cur, 0, sizeof(*cur));
		ll = 0;
		while (*f && !(*f == '%' && f[1] != '%')) {
			int c = *f == '%' ? (f += 2, '%') : parse_escape(&f);

			if (ll + 1 < sizeof(cur->lit))
				cur->lit[ll++] = (char)c;
		}
		if (!*f)
			break;
		/* a conversion: flags, width, precision, length, letter */
		{
			const char *s = f++;
			int lng = 0, big_l = 0, z = 0;
			size_t k;

			f += strspn(f, "-+ #0'");
			if (*f == '*')
				goto star;
			while (isdigit((unsigned char)*f))
				f++;
			if (*f == '.') {
				f++;
				if (*f == '*')
					goto star;
				while (isdigit((unsigned char)*f))
					f++;
			}
			k = (size_t)(f - s);
			while (*f == 'l') {
				lng++;
				f++;
			}
			if (*f == 'L') {
				big_l = 1;
				f++;
			} else if (*f == 'z') {
				z = 1;
				f++;
			}
			if (k + 2 > sizeof(cur->spec)) {
				free(pc);
				return ptd__err(-ptde_invalid, "Bad format string");
			}
			memcpy(cur->spec, s, k);
			cur->has_conv = 1;
			switch (*f) {
			case 'd': case 'i': case 'u': case 'o': case 'x': case 'X': case 'c':
				if (big_l)
					goto bad;
				cur->cls = lng >= 2 ? PF_LLONG : lng || z ? PF_LONG : PF_INT;
				break;
			case 'f': case 'F': case 'e': case 'E': case 'g': case 'G':
				if (lng)
					goto bad;
				cur->cls = big_l ? PF_LDOUBLE : PF_DOUBLE;
				break;
			case 's':
				if (lng || big_l || z)
					goto bad;
				cur->cls = PF_STRING;
				break;
			case 'p':
				if (lng || big_l || z)
					goto bad;
				cur->cls = PF_PTR;
				break;
			case 'n':
				free(pc);
				return ptd__err(-ptde_invalid, "Format specifier `n' not supported in printf");
			default:
				goto bad;
			}
			cur->spec[k] = *f++;
			cur->spec[k + 1] = '\0';
			continue;
bad:
			{
				int c = *f;

				free(pc);
				return ptd__err(-ptde_invalid, "Unrecognized format specifier '%c' in printf",
						c);
			}
star:
			free(pc);
			return ptd__err(-ptde_invalid, "`*' not supported for precision or width in printf");
		}
	}
	*out = pc;
	*nout = n;
	return 0;
}

/* The string @x points to (or holds, as a char array) for %s. */
static int pf_string(struct ptd_values *v, val_t *x, char **out)
{
	struct vtype *s = S(x);
	size_t len = 0, cap = 64;
	char *buf;
	uint64_t a;

	if (s->kind == VT_ARRAY) {
		uint64_t n = ptd__vt_size(x->type);

		*out = strndup((const char *)x->buf, (size_t)n);
		return *out ? 0 : ptd__err(-ptde_nomem, "out of memory");
	}
	if (s->kind != VT_PTR && !is_int(s))
		return ptd__err(-ptde_invalid, "Value can't be converted to integer.");
	a = (uint64_t)as_i64(x);
	if (!a) {
		*out = strdup("(null)");
		return *out ? 0 : ptd__err(-ptde_nomem, "out of memory");
	}
	if (!(buf = malloc(cap)))
		return ptd__err(-ptde_nomem, "out of memory");
	for (;;) {
		char c;

		if (ptd__mem_read(v, a + len, &c, 1) < 0) {
			free(buf);
			return ptd__err(-ptde_nomap, "Cannot access memory at address 0x%llx",
					(unsigned long long)(a + len));
		}
		if (len + 1 == cap) {
			char *nb = realloc(buf, cap *= 2);

			if (!nb) {
				free(buf);
				return ptd__err(-ptde_nomem, "out of memory");
			}
			buf = nb;
		}
		buf[len++] = c;
		if (!c)
			break;
	}
	*out = buf;
	return 0;
}

/* Formats one argument @x by piece @pc into @fp. */
static int pf_arg(struct ptd_values *v, const struct pf_piece *pc, val_t *x, FILE *fp)
{
	struct vtype *s = S(x);
	char spec[40];
	size_t k = strlen(pc->spec);

	switch (pc->cls) {
	case PF_INT:
	case PF_LONG:
	case PF_LLONG: {
		long long i;

		if (!is_arith(s) && s->kind != VT_PTR)
			return ptd__err(-ptde_invalid, "Value can't be converted to integer.");
		i = as_i64(x);
		if (pc->cls == PF_INT)
			i = strchr("di", pc->spec[k - 1]) ? (long long)(int)i : (long long)(unsigned)i;
		snprintf(spec, sizeof(spec), "%.*sll%c", (int)(k - 1), pc->spec, pc->spec[k - 1]);
		if (pc->spec[k - 1] == 'c')
			fprintf(fp, pc->spec, (int)i);
		else
			fprintf(fp, spec, i);
		return 0;
	}
	case PF_DOUBLE:
	case PF_LDOUBLE: {
		double d;

		/* gdb takes an integer's bytes as a float of its size */
		if (s->kind == VT_FLOAT) {
			d = as_double(x);
		} else if ((is_int(s) || s->kind == VT_PTR) && (s->size == 4 || s->size == 8)) {
			float f;

			if (s->size == 4)
				memcpy(&f, x->buf, 4), d = f;
			else
				memcpy(&d, x->buf, 8);
		} else {
			return ptd__err(-ptde_invalid, "Value can't be converted to float.");
		}
		if (pc->cls == PF_LDOUBLE) {
			snprintf(spec, sizeof(spec), "%.*sL%c", (int)(k - 1), pc->spec, pc->spec[k - 1]);
			fprintf(fp, spec, (long double)d);
		} else {
			fprintf(fp, pc->spec, d);
		}
		return 0;
	}
	case PF_STRING: {
		char *str = NULL;
		int rc = pf_string(v, x, &str);

		if (rc < 0)
			return rc;
		fprintf(fp, pc->spec, str);
		free(str);
		return 0;
	}
	case PF_PTR:
		if (!is_arith(s) && s->kind != VT_PTR)
			return ptd__err(-ptde_invalid, "Value can't be converted to integer.");
		fprintf(fp, pc->spec, (void *)(uintptr_t)as_i64(x));
		return 0;
	default:
		return 0;
	}
}

int ptd_values_printf(struct ptd_values *v, const char *args, char **out)
{
	struct pf_piece *pc = NULL;
	val_t **vals = NULL;
	char fmt[1024], *text = NULL;
	const char *p, *q;
	int n = 0, nconv = 0, nargs = 0, rc = 0;
	size_t len = 0, tlen = 0;
	FILE *fp;

	if (!v || !args || !out)
		return -ptde_invalid;
	p = args;
	while (isspace((unsigned char)*p))
		p++;
	if (!*p)
		return ptd__err(-ptde_invalid,
				"Argument required (format-control string and values to print).");
	if (*p != '"')
		return ptd__err(-ptde_invalid, "Bad format string, missing '\"'.");
	for (q = p + 1; *q && *q != '"'; q++)
		if (*q == '\\' && q[1])
			q++;
	if (*q != '"')
		return ptd__err(-ptde_invalid, "Bad format string, non-terminated '\"'.");
	len = (size_t)(q - p - 1);
	if (len >= sizeof(fmt))
		return ptd__err(-ptde_invalid, "Bad format string");
	memcpy(fmt, p + 1, len);
	fmt[len] = '\0';
	p = q + 1;
	while (isspace((unsigned char)*p))
		p++;
	if (*p && *p != ',')
		return ptd__err(-ptde_invalid, "Invalid argument syntax");
	rc = pf_parse(fmt, &pc, &n);
	if (rc < 0)
		return rc;
	for (int i = 0; i < n; i++)
		nconv += pc[i].has_conv;
	/* the arguments, split at the commas outside brackets and quotes,
	 * all evaluated before anything prints */
	while (*p == ',') {
		int depth = 0;
		char quote = 0, *e;
		val_t *x = NULL, **nv;

		q = ++p;
		while (*q && (depth || quote || *q != ',')) {
			if (quote) {
				if (*q == '\\' && q[1])
					q++;
				else if (*q == quote)
					quote = 0;
			} else if (*q == '"' || *q == '\'') {
				quote = *q;
			} else if (*q == '(' || *q == '[') {
				depth++;
			} else if ((*q == ')' || *q == ']') && depth) {
				depth--;
			}
			q++;
		}
		e = strndup(p, (size_t)(q - p));
		nv = realloc(vals, (size_t)(nargs + 1) * sizeof(*vals));
		if (!e || !nv) {
			free(e);
			rc = ptd__err(-ptde_nomem, "out of memory");
			goto out;
		}
		vals = nv;
		rc = ptd_values_eval(v, e, &x);
		free(e);
		if (rc < 0)
			goto out;
		vals[nargs++] = x;
		{
			struct parser ps = { .v = v };

			if (fetch(&ps, x) < 0) {
				rc = ps.rc ? ps.rc : -ptde_invalid;
				goto out;
			}
		}
		p = q;
	}
	if (nargs != nconv) {
		rc = ptd__err(-ptde_invalid, "Wrong number of arguments for specified format-string");
		goto out;
	}
	fp = open_memstream(&text, &tlen);
	if (!fp) {
		rc = ptd__err(-ptde_nomem, "out of memory");
		goto out;
	}
	for (int i = 0, a = 0; i < n && rc == 0; i++) {
		fputs(pc[i].lit, fp);
		if (pc[i].has_conv)
			rc = pf_arg(v, &pc[i], vals[a++], fp);
	}
	fclose(fp);
	if (rc < 0) {
		free(text);
		goto out;
	}
	*out = text;
out:
	for (int i = 0; i < nargs; i++)
		ptd_value_free(vals[i]);
	free(vals);
	free(pc);
	return rc;
}

int ptd_values_set_pretty(struct ptd_values *v, int on)
{
	if (!v)
		return -ptde_invalid;
	v->pretty = !!on;
	return 0;
}

int ptd_values_set_print_elements(struct ptd_values *v, unsigned n)
{
	if (!v)
		return -ptde_invalid;
	v->print_max = n ? n : UINT64_MAX;
	return 0;
}

int ptd_values_set_frame_args(struct ptd_values *v, int mode)
{
	if (!v || mode < 0 || mode > 3)
		return -ptde_invalid;
	v->frame_args_mode = mode;
	return 0;
}

/* $@name = @val (taken over; NULL: void). */
static int conv_store(struct ptd_values *v, const char *name, struct ptd_value *val)
{
	int i = conv_slot(v, name);

	if (!val)
		val = ptd__val_new(v->t_void);
	if (i < 0 || !val) {
		ptd_value_free(val);
		return ptd__err(-ptde_nomem, "out of memory");
	}
	val->lazy = 0;
	val->lval = LV_NONE;
	ptd_value_free(v->conv[i].val);
	v->conv[i].val = val;
	return 0;
}

int ptd_values_set_last_examined(struct ptd_values *v, uint64_t addr, int size, int contents)
{
	struct vtype *it, *pt;
	struct ptd_value *p, *c = NULL;

	if (!v || (size != 1 && size != 2 && size != 4 && size != 8))
		return -ptde_invalid;
	it = size == 1 ? v->t_i8 : size == 2 ? v->t_i16 : size == 4 ? v->t_i32 : v->t_i64;
	pt = ptd__vt_ptr(v, it);
	p = pt ? ptd__val_new(pt) : NULL;
	if (!p)
		return ptd__err(-ptde_nomem, "out of memory");
	memcpy(p->buf, &addr, 8);
	if (contents) {
		c = ptd__val_new(it);
		if (c && ptd__mem_read(v, addr, c->buf, (size_t)size) < 0) {
			ptd_value_free(c);
			c = NULL;
		}
	}
	if (conv_store(v, "_", p) < 0)
		return -ptde_nomem;
	return conv_store(v, "__", c);
}
