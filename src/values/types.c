/*
 * C types for the value printer: converted once from DWARF DIEs into
 * struct vtype (so values in the $N history outlive a re-run that frees
 * the Dwfl), named as gdb's C type printer names them ("int (*)[4]",
 * "const char *"), expanded one level for ptype, and looked up by name
 * for casts and sizeof.
 */
#include <dwarf.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "symbols/symbols.h"
#include "util/error.h"
#include "values/values_int.h"

static char *xstrdup0(const char *s)
{
	return s ? strdup(s) : NULL;
}

struct vtype *ptd__vt_new(struct ptd_values *v, enum vt_kind k, const char *name, uint64_t size)
{
	struct vtype *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->kind = k;
	t->name = xstrdup0(name);
	t->size = size;
	t->count = -1;
	t->next_alloc = v->types;
	v->types = t;
	return t;
}

struct vtype *ptd__vt_ptr(struct ptd_values *v, struct vtype *to)
{
	struct vtype *t = ptd__vt_new(v, VT_PTR, NULL, 8);

	if (t)
		t->target = to;
	return t;
}

struct vtype *ptd__vt_array(struct ptd_values *v, struct vtype *elem, int64_t count)
{
	struct vtype *t = ptd__vt_new(v, VT_ARRAY, NULL, 0);

	if (!t)
		return NULL;
	t->target = elem;
	t->count = count;
	t->size = count > 0 ? (uint64_t)count * ptd__vt_size(elem) : 0;
	return t;
}

static struct vtype *base(struct ptd_values *v, const char *name, uint64_t size, int sgn, int chr)
{
	struct vtype *t = ptd__vt_new(v, VT_INT, name, size);

	if (t) {
		t->is_signed = sgn;
		t->is_char = chr;
	}
	return t;
}

void ptd__vt_builtins(struct ptd_values *v)
{
	v->t_int = base(v, "int", 4, 1, 0);
	v->t_uint = base(v, "unsigned int", 4, 0, 0);
	v->t_long = base(v, "long", 8, 1, 0);
	v->t_ulong = base(v, "unsigned long", 8, 0, 0);
	v->t_llong = base(v, "long long", 8, 1, 0);
	v->t_ullong = base(v, "unsigned long long", 8, 0, 0);
	v->t_short = base(v, "short", 2, 1, 0);
	v->t_ushort = base(v, "unsigned short", 2, 0, 0);
	v->t_char = base(v, "char", 1, 1, 1);
	v->t_schar = base(v, "signed char", 1, 1, 1);
	v->t_uchar = base(v, "unsigned char", 1, 0, 1);
	v->t_bool = base(v, "_Bool", 1, 0, 0);
	if (v->t_bool)
		v->t_bool->is_bool = 1;
	/* the registers' types, named as gdb names them; int8_t is no char */
	v->t_i8 = base(v, "int8_t", 1, 1, 0);
	v->t_i16 = ptd__vt_new(v, VT_TYPEDEF, "int16_t", 2);
	if (v->t_i16)
		v->t_i16->target = v->t_short;
	v->t_i32 = ptd__vt_new(v, VT_TYPEDEF, "int32_t", 4);
	if (v->t_i32)
		v->t_i32->target = v->t_int;
	v->t_i64 = ptd__vt_new(v, VT_TYPEDEF, "int64_t", 8);
	if (v->t_i64)
		v->t_i64->target = v->t_long;
	v->t_cxxbool = base(v, "bool", 1, 0, 0);
	if (v->t_cxxbool)
		v->t_cxxbool->is_bool = 1;
	v->t_float = ptd__vt_new(v, VT_FLOAT, "float", 4);
	v->t_double = ptd__vt_new(v, VT_FLOAT, "double", 8);
	v->t_ldouble = ptd__vt_new(v, VT_FLOAT, "long double", 16);
	v->t_void = ptd__vt_new(v, VT_VOID, "void", 1);
	v->t_data_ptr = ptd__vt_ptr(v, v->t_void);
	v->t_code_ptr = ptd__vt_ptr(v, NULL);
	if (v->t_code_ptr) {
		struct vtype *fn = ptd__vt_new(v, VT_FUNC, NULL, 1);

		if (fn)
			fn->target = v->t_void;
		v->t_code_ptr->target = fn;
	}
	v->t_flags = ptd__vt_new(v, VT_FLAGS, "i386_eflags", 4);
	if (v->t_flags)
		v->t_flags->flags = ptd__eflags_flags;
}

const struct ptd__flag ptd__eflags_flags[] = {
	{ 0, "CF" },   { 1, "" },     { 2, "PF" },   { 4, "AF" },  { 6, "ZF" },  { 7, "SF" },
	{ 8, "TF" },   { 9, "IF" },   { 10, "DF" },  { 11, "OF" }, { 14, "NT" }, { 16, "RF" },
	{ 17, "VM" },  { 18, "AC" },  { 19, "VIF" }, { 20, "VIP" }, { 21, "ID" }, { -1, NULL },
};

struct vtype *ptd__vt_strip(struct vtype *t)
{
	while (t && (t->kind == VT_TYPEDEF || t->kind == VT_QUAL) && t->target)
		t = t->target;
	return t;
}

uint64_t ptd__vt_size(struct vtype *t)
{
	struct vtype *s = ptd__vt_strip(t);

	if (!s)
		return 0;
	if (s->kind == VT_ARRAY)
		return s->count > 0 ? (uint64_t)s->count * ptd__vt_size(s->target) : 0;
	return s->size;
}

static struct vtype *cache_get(struct ptd_values *v, void *dbg, Dwarf_Off off)
{
	for (size_t i = 0; i < v->ncache; i++)
		if (v->cache[i].dbg == dbg && v->cache[i].off == off)
			return v->cache[i].t;
	return NULL;
}

static void cache_put(struct ptd_values *v, void *dbg, Dwarf_Off off, struct vtype *t)
{
	if (v->ncache == v->cache_cap) {
		size_t cap = v->cache_cap ? 2 * v->cache_cap : 64;
		struct type_cache_ent *c = realloc(v->cache, cap * sizeof(*c));

		if (!c)
			return;
		v->cache = c;
		v->cache_cap = cap;
	}
	v->cache[v->ncache].dbg = dbg;
	v->cache[v->ncache].off = off;
	v->cache[v->ncache].t = t;
	v->ncache++;
}

static uint64_t udata(Dwarf_Die *d, unsigned at, uint64_t dflt)
{
	Dwarf_Attribute a;
	Dwarf_Word w;

	if (dwarf_attr_integrate(d, at, &a) && dwarf_formudata(&a, &w) == 0)
		return w;
	return dflt;
}

static struct vtype *type_of_attr(struct ptd_values *v, Dwarf_Die *d, struct vtype *dflt)
{
	Dwarf_Attribute a;
	Dwarf_Die td;

	if (!dwarf_attr_integrate(d, DW_AT_type, &a) || !dwarf_formref_die(&a, &td))
		return dflt;
	return ptd__vt_from_die(v, &td);
}

static void add_member(struct vtype *t, const char *name, struct vtype *mt, uint64_t off, int bsz,
		       int boff)
{
	struct vt_member *m = realloc(t->members, (size_t)(t->nmembers + 1) * sizeof(*m));

	if (!m)
		return;
	t->members = m;
	/* bit positions come from DWARF, untrusted: a field the printer
	 * cannot shift out safely is shown as a plain member */
	if (bsz < 0 || bsz > 64 || boff < 0 || boff > 63 || boff + bsz > 64)
		bsz = boff = 0;
	m = &t->members[t->nmembers++];
	m->name = xstrdup0(name);
	m->type = mt;
	m->off = off;
	m->bit_size = bsz;
	m->bit_off = boff;
	m->is_base = 0;
	m->is_virtual = 0;
	m->vbase_slot = 0;
}

static int die_is_cplus(Dwarf_Die *die)
{
	Dwarf_Die cu;

	if (!dwarf_diecu(die, &cu, NULL, NULL))
		return 0;
	switch (dwarf_srclang(&cu)) {
	case DW_LANG_C_plus_plus:
	case DW_LANG_C_plus_plus_03:
	case DW_LANG_C_plus_plus_11:
	case DW_LANG_C_plus_plus_14:
		return 1;
	default:
		return 0;
	}
}

/* A C++ type's name with the namespaces and classes around it, as gdb
 * names it ("geo::Shape"); NULL when it has no scope (or no memory). */
static char *cplus_qualified(Dwarf_Die *die, const char *name)
{
	Dwarf_Die *scopes = NULL;
	int n = dwarf_getscopes_die(die, &scopes);
	char *r = NULL;
	size_t len = 0;

	if (!name || n <= 1) {
		free(scopes);
		return NULL;
	}
	/* scopes[0] is the type itself, the last the compile unit */
	for (int i = n - 2; i >= 1; i--) {
		int tag = dwarf_tag(&scopes[i]);
		const char *sn = dwarf_diename(&scopes[i]);

		if (tag != DW_TAG_namespace && tag != DW_TAG_structure_type &&
		    tag != DW_TAG_class_type && tag != DW_TAG_union_type)
			continue;
		sn = sn ? sn : "(anonymous namespace)";
		char *nr = realloc(r, len + strlen(sn) + 3);

		if (!nr) {
			free(r);
			free(scopes);
			return NULL;
		}
		r = nr;
		len += (size_t)sprintf(r + len, "%s::", sn);
	}
	free(scopes);
	if (!r)
		return NULL;
	char *nr = realloc(r, len + strlen(name) + 1);

	if (!nr) {
		free(r);
		return NULL;
	}
	strcpy(nr + len, name);
	return nr;
}

static void set_cplus(struct vtype *t, Dwarf_Die *die, const char *name)
{
	char *q;

	if (!die_is_cplus(die))
		return;
	t->cplus = 1;
	q = cplus_qualified(die, name);
	if (q) {
		free(t->name);
		t->name = q;
	}
}

/* gcc's names of C's integer types as gdb 13 prints them ("long int" is
 * "long", "long unsigned int" "unsigned long"). */
const char *ptd__base_type_name(const char *name)
{
	static const char *const map[][2] = {
		{ "long int", "long" },
		{ "long unsigned int", "unsigned long" },
		{ "short int", "short" },
		{ "short unsigned int", "unsigned short" },
		{ "long long int", "long long" },
		{ "long long unsigned int", "unsigned long long" },
	};

	for (size_t i = 0; name && i < sizeof(map) / sizeof(map[0]); i++)
		if (!strcmp(name, map[i][0]))
			return map[i][1];
	return name;
}

/* A virtual base's location is an expression on the object's address:
 * gcc's "dup; deref; constu N; minus; deref; plus" reads the base's
 * offset N bytes before where the vptr points.  Returns N, or -1 for an
 * expression of another shape. */
static int64_t vbase_slot(Dwarf_Die *die)
{
	Dwarf_Attribute a;
	Dwarf_Op *ops;
	size_t n;

	if (!dwarf_attr(die, DW_AT_data_member_location, &a) || dwarf_getlocation(&a, &ops, &n) != 0 ||
	    n != 6 || ops[0].atom != DW_OP_dup || ops[1].atom != DW_OP_deref ||
	    ops[3].atom != DW_OP_minus || ops[4].atom != DW_OP_deref || ops[5].atom != DW_OP_plus)
		return -1;
	if (ops[2].atom == DW_OP_constu)
		return ops[2].number < (1u << 20) ? (int64_t)ops[2].number : -1;
	if (ops[2].atom >= DW_OP_lit0 && ops[2].atom <= DW_OP_lit31)
		return ops[2].atom - DW_OP_lit0;
	return -1;
}

struct vtype *ptd__vt_func(struct ptd_values *v, struct vtype *ret, int prototyped)
{
	struct vtype *t = ptd__vt_new(v, VT_FUNC, NULL, 1);

	if (t) {
		t->target = ret;
		t->prototyped = prototyped;
	}
	return t;
}

void ptd__vt_func_param(struct vtype *f, struct vtype *param)
{
	add_member(f, NULL, param, 0, 0, 0);
}

/* A C++ enumerator as gdb names it: in the enum's scope ("ns::Red",
 * "S::In::A" is "S::A"), or in the enum's own for an enum class
 * ("Sc::X"). */
static char *enumerator_name(const struct vtype *t, Dwarf_Die *die, const char *name)
{
	size_t scope = 0, i;
	int nest = 0;
	char *q = NULL;

	if (!name || !t->cplus || !t->name)
		return xstrdup0(name);
	if (dwarf_hasattr(die, DW_AT_enum_class)) {
		scope = strlen(t->name);
	} else {
		for (i = 0; t->name[i]; i++) {
			if (t->name[i] == '<' || t->name[i] == '(')
				nest++;
			else if ((t->name[i] == '>' || t->name[i] == ')') && nest > 0)
				nest--;
			else if (!nest && t->name[i] == ':' && t->name[i + 1] == ':')
				scope = i;
		}
	}
	if (!scope)
		return xstrdup0(name);
	if (asprintf(&q, "%.*s::%s", (int)scope, t->name, name) < 0)
		return NULL;
	return q;
}

/* Notes a member function of the class: its name and its linkage
 * name ("" without one), a pair per declaration (overloads repeat the
 * name). */
static void add_method(struct vtype *t, const char *name, const char *linkage)
{
	size_t n = strlen(name) + 1, l = strlen(linkage ? linkage : "") + 1;
	char *m = realloc(t->methods, t->methods_len + n + l + 1);

	if (!m)
		return;
	memcpy(m + t->methods_len, name, n);
	memcpy(m + t->methods_len + n, linkage ? linkage : "", l);
	t->methods_len += n + l;
	m[t->methods_len] = 0;
	t->methods = m;
}

/* The linkage names of @t's (and its bases') member functions named
 * @name, up to @max of them in @out; how many there are (0: none). */
static int find_methods(struct vtype *t, const char *name, const char **out, int max, int n,
			int depth)
{
	t = ptd__vt_strip(t);
	if (!t || depth > 16 || (t->kind != VT_STRUCT && t->kind != VT_UNION))
		return n;
	for (const char *m = t->methods; m && *m;) {
		const char *l = m + strlen(m) + 1;

		if (!strcmp(m, name)) {
			if (n < max)
				out[n] = l;
			n++;
		}
		m = l + strlen(l) + 1;
	}
	for (int i = 0; i < t->nmembers; i++)
		if (t->members[i].is_base)
			n = find_methods(t->members[i].type, name, out, max, n, depth + 1);
	return n;
}

int ptd__vt_methods(struct vtype *t, const char *name, const char **linkage, int max)
{
	return find_methods(t, name, linkage, max, 0, 0);
}

int ptd__vt_has_method(struct vtype *t, const char *name)
{
	return ptd__vt_methods(t, name, NULL, 0) > 0;
}

struct vtype *ptd__vt_from_die(struct ptd_values *v, Dwarf_Die *die)
{
	void *dbg = dwarf_cu_getdwarf(die->cu);
	Dwarf_Off off = dwarf_dieoffset(die);
	struct vtype *t = cache_get(v, dbg, off);
	Dwarf_Die child;
	const char *name = dwarf_diename(die);
	int tag = dwarf_tag(die);

	if (t)
		return t;
	switch (tag) {
	case DW_TAG_base_type: {
		uint64_t enc = udata(die, DW_AT_encoding, 0);

		name = ptd__base_type_name(name);
		uint64_t sz = udata(die, DW_AT_byte_size, 0);

		if (enc == DW_ATE_float) {
			t = ptd__vt_new(v, VT_FLOAT, name, sz);
		} else {
			t = ptd__vt_new(v, VT_INT, name, sz);
			if (!t)
				return NULL;
			t->is_signed = enc == DW_ATE_signed || enc == DW_ATE_signed_char;
			t->is_char = enc == DW_ATE_signed_char || enc == DW_ATE_unsigned_char;
			t->is_bool = enc == DW_ATE_boolean;
		}
		break;
	}
	case DW_TAG_pointer_type:
		t = ptd__vt_ptr(v, NULL);
		if (!t)
			return NULL;
		cache_put(v, dbg, off, t);
		t->target = type_of_attr(v, die, v->t_void);
		return t;
	case DW_TAG_reference_type:
	case DW_TAG_rvalue_reference_type:
		t = ptd__vt_new(v, VT_REF, NULL, 8);
		if (!t)
			return NULL;
		t->rvalue = tag == DW_TAG_rvalue_reference_type;
		cache_put(v, dbg, off, t);
		t->target = type_of_attr(v, die, v->t_void);
		return t;
	case DW_TAG_typedef:
	case DW_TAG_const_type:
	case DW_TAG_volatile_type:
	case DW_TAG_restrict_type:
	case DW_TAG_atomic_type:
		t = ptd__vt_new(v, tag == DW_TAG_typedef ? VT_TYPEDEF : VT_QUAL,
				tag == DW_TAG_typedef	    ? name
				: tag == DW_TAG_const_type    ? "const"
				: tag == DW_TAG_volatile_type ? "volatile"
				: tag == DW_TAG_restrict_type ? "restrict"
							      : "_Atomic",
				0);
		if (!t)
			return NULL;
		cache_put(v, dbg, off, t);
		t->target = type_of_attr(v, die, v->t_void);
		t->size = ptd__vt_size(t->target);
		return t;
	case DW_TAG_structure_type:
	case DW_TAG_union_type:
	case DW_TAG_class_type:
		t = ptd__vt_new(v, tag == DW_TAG_union_type ? VT_UNION : VT_STRUCT, name,
				udata(die, DW_AT_byte_size, 0));
		if (!t)
			return NULL;
		cache_put(v, dbg, off, t);
		set_cplus(t, die, name);
		t->declared = dwarf_hasattr(die, DW_AT_declaration);
		if (dwarf_child(die, &child) == 0) {
			do {
				Dwarf_Attribute a;
				Dwarf_Word loc = 0;
				int bsz = 0, boff = 0;

				if (dwarf_tag(&child) == DW_TAG_inheritance) {
					/* a base class: printed first, as gdb's
					 * "<Base> = {...}" */
					struct vtype *bt = type_of_attr(v, &child, NULL);
					char *bn = bt ? ptd__vt_name(bt, "") : NULL;
					char *mn = NULL;

					int64_t slot = -1;

					if (udata(&child, DW_AT_virtuality, 0) == DW_VIRTUALITY_virtual)
						slot = vbase_slot(&child);
					else if (dwarf_attr(&child, DW_AT_data_member_location, &a))
						dwarf_formudata(&a, &loc);
					if (bn && asprintf(&mn, "<%s>", bn) > 0) {
						add_member(t, mn, bt, loc, 0, 0);
						if (t->members && t->members[t->nmembers - 1].type == bt) {
							t->members[t->nmembers - 1].is_base = 1;
							t->members[t->nmembers - 1].is_virtual = slot >= 0;
							t->members[t->nmembers - 1].vbase_slot = slot;
						}
					}
					free(mn);
					free(bn);
					continue;
				}
				if (dwarf_tag(&child) == DW_TAG_template_type_parameter ||
				    dwarf_tag(&child) == DW_TAG_template_value_parameter) {
					if (t->ntargs < 2 && t->name && !strncmp(t->name, "std::", 5))
						t->targs[t->ntargs++] =
							dwarf_tag(&child) == DW_TAG_template_type_parameter
								? type_of_attr(v, &child, NULL)
								: NULL;
					continue;
				}
				if (dwarf_tag(&child) == DW_TAG_subprogram && dwarf_diename(&child)) {
					Dwarf_Attribute la;
					const char *ln = NULL;

					if (dwarf_attr(&child, DW_AT_linkage_name, &la) ||
					    dwarf_attr(&child, DW_AT_MIPS_linkage_name, &la))
						ln = dwarf_formstring(&la);
					/* a virtual one is called through the vtable:
					 * the object's own override, which has a copy
					 * (also when this one is pure) */
					if (dwarf_hasattr(&child, DW_AT_virtuality))
						ln = NULL;
					add_method(t, dwarf_diename(&child), ln);
					continue;
				}
				if (dwarf_tag(&child) != DW_TAG_member ||
				    dwarf_hasattr(&child, DW_AT_declaration))
					continue; /* (a C++ static member is not in the object) */
				if (dwarf_attr(&child, DW_AT_data_member_location, &a))
					dwarf_formudata(&a, &loc);
				if (dwarf_hasattr(&child, DW_AT_bit_size)) {
					uint64_t dbo = udata(&child, DW_AT_data_bit_offset, UINT64_MAX);

					bsz = (int)udata(&child, DW_AT_bit_size, 0);
					if (dbo != UINT64_MAX) {
						loc = dbo / 8;
						boff = (int)(dbo % 8);
					} else {
						/* DWARF 2/3 big-endian bit offsets */
						uint64_t bs = udata(&child, DW_AT_byte_size, 4);
						int64_t bo = (int64_t)udata(&child, DW_AT_bit_offset, 0);

						boff = (int)(bs * 8 - (uint64_t)bo - (uint64_t)bsz);
					}
				}
				add_member(t, dwarf_diename(&child), type_of_attr(v, &child, v->t_int),
					   loc, bsz, boff);
			} while (dwarf_siblingof(&child, &child) == 0);
		}
		return t;
	case DW_TAG_enumeration_type:
		t = ptd__vt_new(v, VT_ENUM, name, udata(die, DW_AT_byte_size, 4));
		if (!t)
			return NULL;
		cache_put(v, dbg, off, t);
		set_cplus(t, die, name);
		t->target = type_of_attr(v, die, NULL);
		t->is_signed = t->target ? ptd__vt_strip(t->target)->is_signed : 0;
		if (dwarf_child(die, &child) == 0) {
			do {
				Dwarf_Attribute a;
				Dwarf_Sword sv = 0;
				struct vt_enumerator *e;

				if (dwarf_tag(&child) != DW_TAG_enumerator)
					continue;
				if (dwarf_attr(&child, DW_AT_const_value, &a))
					dwarf_formsdata(&a, &sv);
				e = realloc(t->enums, (size_t)(t->nenums + 1) * sizeof(*e));
				if (!e)
					break;
				t->enums = e;
				e[t->nenums].name = enumerator_name(t, die, dwarf_diename(&child));
				e[t->nenums].val = sv;
				t->nenums++;
			} while (dwarf_siblingof(&child, &child) == 0);
		}
		return t;
	case DW_TAG_array_type: {
		/* int a[2][3]: one subrange per dimension, outermost first */
		struct vtype *elem = type_of_attr(v, die, v->t_int);
		int64_t dims[16];
		int nd = 0;

		if (dwarf_child(die, &child) == 0) {
			do {
				if (dwarf_tag(&child) != DW_TAG_subrange_type || nd == 16)
					continue;
				if (dwarf_hasattr(&child, DW_AT_count))
					dims[nd++] = (int64_t)udata(&child, DW_AT_count, 0);
				else if (dwarf_hasattr(&child, DW_AT_upper_bound))
					dims[nd++] = (int64_t)udata(&child, DW_AT_upper_bound, 0) + 1;
				else
					dims[nd++] = -1;
			} while (dwarf_siblingof(&child, &child) == 0);
		}
		if (!nd)
			dims[nd++] = -1;
		t = elem;
		for (int i = nd - 1; i >= 0 && t; i--)
			t = ptd__vt_array(v, t, dims[i]);
		break;
	}
	case DW_TAG_subroutine_type:
	case DW_TAG_subprogram:
		t = ptd__vt_new(v, VT_FUNC, NULL, 1);
		if (!t)
			return NULL;
		cache_put(v, dbg, off, t);
		t->target = type_of_attr(v, die, v->t_void);
		/* C++ has no unprototyped functions: gdb names one without
		 * parameters "(void)" there */
		t->prototyped = dwarf_hasattr_integrate(die, DW_AT_prototyped) || die_is_cplus(die);
		if (dwarf_child(die, &child) == 0) {
			do {
				if (dwarf_tag(&child) == DW_TAG_formal_parameter)
					add_member(t, NULL, type_of_attr(v, &child, v->t_int), 0, 0, 0);
				else if (dwarf_tag(&child) == DW_TAG_unspecified_parameters)
					t->varargs = 1;
			} while (dwarf_siblingof(&child, &child) == 0);
		}
		return t;
	case DW_TAG_unspecified_type:
		t = ptd__vt_new(v, VT_VOID, name ? name : "void", 1);
		break;
	default:
		t = ptd__vt_new(v, VT_VOID, "void", 1);
		break;
	}
	if (t)
		cache_put(v, dbg, off, t);
	return t;
}

/* ------------------------------------------------------------------ */
/* Names                                                                */

int ptd__vt_is_vptr(const char *name)
{
	return name && !strncmp(name, "_vptr", 5) && (name[5] == '.' || name[5] == '$');
}

static char *cat3(const char *a, const char *b, const char *c)
{
	char *r;

	if (asprintf(&r, "%s%s%s", a, b, c) < 0)
		return NULL;
	return r;
}

static char *base_name(struct vtype *t)
{
	const char *kw = t->cplus		? ""
			 : t->kind == VT_STRUCT ? "struct "
			 : t->kind == VT_UNION	? "union "
			 : t->kind == VT_ENUM	? "enum "
						: "";
	char *r;

	if (t->kind == VT_NODEBUG)
		return strdup("<text variable, no debug info>");
	if (t->internal_fn)
		return strdup("<internal function>");
	if (t->name) {
		if (asprintf(&r, "%s%s", kw, t->name) < 0)
			return NULL;
		return r;
	}
	/* (C++ leaves the keyword out of names only: a lambda's closure
	 * is a "struct {...}" there too) */
	if (t->kind == VT_STRUCT || t->kind == VT_UNION || t->kind == VT_ENUM)
		return cat3(t->kind == VT_STRUCT ? "struct "
			    : t->kind == VT_UNION ? "union "
						  : "enum ",
			    "{...}", "");
	return strdup("void");
}

static char *params(struct vtype *f)
{
	char *r = strdup("("), *n;

	for (int i = 0; r && i < f->nmembers; i++) {
		char *pn = ptd__vt_name(f->members[i].type, "");

		n = pn ? cat3(r, i ? ", " : "", pn) : NULL;
		free(pn);
		free(r);
		r = n;
	}
	if (r && f->varargs) {
		n = cat3(r, f->nmembers ? ", ..." : "...", "");
		free(r);
		r = n;
	} else if (r && !f->nmembers && f->prototyped) {
		n = cat3(r, "void", "");
		free(r);
		r = n;
	}
	if (r) {
		n = cat3(r, ")", "");
		free(r);
		r = n;
	}
	return r;
}

static char *vt_declare(struct vtype *t, const char *decl, int bare);

/* The C declarator algorithm: pointers go left, arrays and functions go
 * right, with parentheses where a pointer meets one of those. */
char *ptd__vt_name(struct vtype *t, const char *decl)
{
	return vt_declare(t, decl, 0);
}

/* With bare set, the base type and the qualifiers that apply to it are left
 * out: what remains is the declarator ptype writes after an expanded
 * "struct node {...}" ("*", "*(node_t *, int)"). */
static char *vt_declare(struct vtype *t, const char *decl, int bare)
{
	char *d = NULL, *r = NULL, *b;

	if (!t)
		return strdup(bare ? decl : "void");
	switch (t->kind) {
	case VT_PTR:
	case VT_REF:
		d = cat3(t->kind == VT_PTR ? "*" : t->rvalue ? "&&" : "&", decl, "");
		r = d ? vt_declare(t->target, d, bare) : NULL;
		free(d);
		return r;
	case VT_ARRAY: {
		char dim[64];

		if (t->vector && !bare) {
			/* gdb's vector: "float v8_float __attribute__ ((vector_size(8)))" */
			snprintf(dim, sizeof(dim), "__attribute__ ((vector_size(%lld)))",
				 (long long)t->count);
			b = vt_declare(t->target, decl, 0);
			r = b ? cat3(b, " ", dim) : NULL;
			free(b);
			return r;
		}
		if (t->count >= 0)
			snprintf(dim, sizeof(dim), "[%lld]", (long long)t->count);
		else
			snprintf(dim, sizeof(dim), "[]");
		d = decl[0] == '*' || decl[0] == '&' ? cat3("(", decl, ")") : strdup(decl);
		b = d ? cat3(d, dim, "") : NULL;
		r = b ? vt_declare(t->target, b, bare) : NULL;
		free(d);
		free(b);
		return r;
	}
	case VT_FUNC: {
		char *p = params(t);

		d = decl[0] == '*' || decl[0] == '&' ? cat3("(", decl, ")") : strdup(decl);
		b = d && p ? cat3(d, p, "") : NULL;
		r = b ? vt_declare(t->target, b, bare) : NULL;
		free(d);
		free(b);
		free(p);
		return r;
	}
	case VT_QUAL:
		if (t->target && t->target->kind == VT_PTR) {
			/* char *const p */
			d = cat3("* ", t->name, decl[0] ? " " : "");
			b = d ? cat3(d, decl, "") : NULL;
			r = b ? vt_declare(t->target->target, b, bare) : NULL;
			free(d);
			free(b);
			return r;
		}
		b = vt_declare(t->target, decl, bare);
		if (bare)
			return b;
		r = b ? cat3(t->name, " ", b) : NULL;
		free(b);
		return r;
	default:
		if (bare)
			return strdup(decl);
		b = base_name(t);
		if (!b)
			return NULL;
		if (!decl[0])
			return b;
		r = cat3(b, " ", decl);
		free(b);
		return r;
	}
}

static char *vt_declare(struct vtype *t, const char *decl, int bare);

/* A member whose type is a struct or union without a name (or a pointer
 * to one, an array of them) is shown expanded by ptype, its own members
 * one level further in (gdb expands an anonymous type one level more
 * than a named one): "union {\n        int _pad;\n ...\n    } _sifields";
 * NULL for other members. */
static char *anon_expanded(struct vtype *t, const char *decl)
{
	struct vtype *in = t;
	char *r, *n, *d;

	while (in && (in->kind == VT_PTR || in->kind == VT_ARRAY) && !in->vector && in->target)
		in = in->target;
	if (!in || (in->kind != VT_STRUCT && in->kind != VT_UNION) || in->name || in->cplus)
		return NULL;
	r = strdup(in->kind == VT_UNION ? "union {\n" : "struct {\n");
	for (int i = 0; r && i < in->nmembers; i++) {
		char *md = ptd__vt_name(in->members[i].type,
					in->members[i].name ? in->members[i].name : "");

		n = md ? cat3(r, "        ", md) : NULL;
		free(md);
		free(r);
		r = n ? cat3(n, ";\n", "") : NULL;
		free(n);
	}
	d = vt_declare(t, decl, 1);
	n = r && d ? cat3(r, d[0] ? "    } " : "    }", d) : NULL;
	free(d);
	free(r);
	return n;
}

/* ptype: expands the outermost struct, union or enum (after typedefs). */
char *ptd__vt_ptype(struct vtype *t)
{
	struct vtype *s = t;
	char *r, *n;
	int i;

	while (s && s->kind == VT_TYPEDEF && s->target)
		s = s->target;
	if (!s)
		return strdup("void");
	/* a pointer, array or function of a struct keeps the struct expanded
	 * in gdb ("struct point {...} *"); find the innermost named type */
	{
		struct vtype *in = s;
		char *decl, *head;

		while (in && (in->kind == VT_PTR || in->kind == VT_REF || in->kind == VT_ARRAY ||
			      in->kind == VT_FUNC || in->kind == VT_QUAL) && in->target)
			in = in->target;
		while (in && in->kind == VT_TYPEDEF && in->target)
			in = in->target;
		if (s->kind == VT_FLAGS && s->flags) {
			/* "flag i386_mxcsr {\n    bool IE @0;\n...}" */
			struct sbuf sb = { 0 };

			ptd__sb_add(&sb, "flag %s {\n", s->name ? s->name : "");
			for (const struct ptd__flag *f = s->flags; f->name; f++)
				ptd__sb_add(&sb, "    bool %s%s@%d;\n", f->name, f->name[0] ? " " : "",
					    f->bit);
			ptd__sb_add(&sb, "}");
			if (sb.oom) {
				free(sb.s);
				return NULL;
			}
			return sb.s;
		}
		if (!in || (in->kind != VT_STRUCT && in->kind != VT_UNION && in->kind != VT_ENUM))
			return ptd__vt_name(s, "");
		if (in->kind == VT_ENUM) {
			head = base_name(in);
			r = head ? cat3(head, " {", "") : NULL;
			free(head);
			for (i = 0; r && i < in->nenums; i++) {
				char val[64] = "";

				if (in->enums[i].val != (i ? in->enums[i - 1].val + 1 : 0))
					snprintf(val, sizeof(val), " = %lld", (long long)in->enums[i].val);
				n = cat3(r, i ? ", " : "", in->enums[i].name);
				free(r);
				r = n ? cat3(n, val, "") : NULL;
				free(n);
			}
			n = r ? cat3(r, "}", "") : NULL;
			free(r);
			r = n;
		} else {
			int nb = 0;

			/* ptype names the keyword in C++ too; an anonymous one
			 * (a lambda's closure) is "struct {" */
			head = !in->name   ? strdup(in->kind == VT_UNION ? "union" : "struct")
			       : in->cplus ? cat3(in->kind == VT_UNION ? "union " : "struct ",
						  in->name, "")
					   : base_name(in);
			/* C++ base classes: "struct Rect : public Shape {" */
			for (i = 0; head && i < in->nmembers; i++) {
				char *bn;

				if (!in->members[i].is_base)
					continue;
				bn = ptd__vt_name(in->members[i].type, "");
				n = bn ? cat3(head, nb++ ? ", public " : " : public ", bn) : NULL;
				free(bn);
				free(head);
				head = n;
			}
			r = head ? cat3(head, " {\n", "") : NULL;
			free(head);
			if (r && in->declared && !in->nmembers) {
				n = cat3(r, "    <incomplete type>\n", "");
				free(r);
				r = n;
			}
			for (i = 0; r && i < in->nmembers; i++) {
				struct vt_member *m = &in->members[i];
				char *md;

				/* nor the vtable pointer gcc adds (gdb leaves
				 * "_vptr.Shape" out too) */
				if (m->is_base || ptd__vt_is_vptr(m->name))
					continue;
				md = anon_expanded(m->type, m->name ? m->name : "");
				if (!md)
					md = ptd__vt_name(m->type, m->name ? m->name : "");
				char bits[32] = "";

				if (m->bit_size)
					snprintf(bits, sizeof(bits), " : %d", m->bit_size);
				n = md ? cat3(r, "    ", md) : NULL;
				free(md);
				free(r);
				r = n ? cat3(n, bits, ";\n") : NULL;
				free(n);
			}
			n = r ? cat3(r, "}", "") : NULL;
			free(r);
			r = n;
		}
		if (!r || in == s)
			return r;
		/* the declarator around it ("} *", "} *(int)"), and the
		 * qualifiers of the expanded type itself before it
		 * ("const struct node {...} *") */
		decl = vt_declare(s, "", 1);
		n = decl && r ? cat3(r, decl[0] ? " " : "", decl) : NULL;
		free(decl);
		free(r);
		r = n;
		for (struct vtype *w = s; r && w && w != in; w = w->target) {
			if (w->kind == VT_QUAL && w->target && w->target->kind != VT_PTR) {
				n = cat3(w->name, " ", r);
				free(r);
				r = n;
			}
		}
		return r;
	}
}

/* ------------------------------------------------------------------ */
/* ptype/o: offsets, sizes, holes (gdb's print_offset_data)             */

/* The comment column's width ("/\* offset      |    size *\/") */
#define PO_COL 27

struct po {
	struct sbuf *b;
	uint64_t end_bit; /* where the field before ended, in the struct */
};

static struct vtype *po_strip(struct vtype *t)
{
	while (t && (t->kind == VT_TYPEDEF || t->kind == VT_QUAL) && t->target)
		t = t->target;
	return t;
}

/* gdb's maybe_print_hole: bits then bytes between the end of the field
 * before and @bit (none before the first field) */
static void po_hole(struct po *p, uint64_t bit, const char *what)
{
	uint64_t hole;

	if (!p->end_bit || p->end_bit >= bit)
		return;
	hole = bit - p->end_bit;
	if (hole % 8)
		ptd__sb_add(p->b, "/* XXX %2u-bit %-7s    */\n", (unsigned)(hole % 8), what);
	if (hole / 8)
		ptd__sb_add(p->b, "/* XXX %2u-byte %-7s   */\n", (unsigned)(hole / 8), what);
}

static void po_body(struct sbuf *b, struct vtype *t, uint64_t base_bit, int depth);

/* One member of @t (a struct or union at @base_bit of the outermost) */
static void po_member(struct sbuf *b, struct po *p, struct vtype *t, struct vt_member *m,
		      uint64_t base_bit, int depth)
{
	struct vtype *mt = po_strip(m->type);
	uint64_t size = ptd__vt_size(m->type), bit = m->off * 8 + (uint64_t)m->bit_off;
	int expand = mt && (mt->kind == VT_STRUCT || mt->kind == VT_UNION) && mt->nmembers &&
		     m->type->kind != VT_PTR;

	if (t->kind == VT_UNION) {
		/* (a union's members have no offsets: their sizes) */
		ptd__sb_add(b, "/*                %6llu */", (unsigned long long)size);
	} else {
		po_hole(p, bit, "hole");
		if (m->bit_size || (base_bit + bit) % 8)
			ptd__sb_add(b, "/* %6llu:%2u   |  %6llu */",
				    (unsigned long long)((base_bit + bit) / 8),
				    (unsigned)((base_bit + bit) % 8), (unsigned long long)size);
		else
			ptd__sb_add(b, "/* %6llu      |  %6llu */", (unsigned long long)((base_bit + bit) / 8),
				    (unsigned long long)size);
		p->end_bit = bit + (m->bit_size ? (uint64_t)m->bit_size : size * 8);
	}
	ptd__sb_add(b, "%*s", 4 * (depth + 1), "");
	if (expand) {
		char *head = !mt->name ? strdup(mt->kind == VT_UNION ? "union" : "struct")
				       : mt->cplus ? cat3(mt->kind == VT_UNION ? "union " : "struct ",
							  mt->name, "")
						   : base_name(mt);

		ptd__sb_add(b, "%s {\n", head ? head : "struct");
		free(head);
		po_body(b, mt, base_bit + bit, depth + 1);
		ptd__sb_add(b, "%*s} %s;\n", PO_COL + 4 * (depth + 1), "", m->name ? m->name : "");
		return;
	}
	{
		char *md = ptd__vt_name(m->type, m->name ? m->name : "");

		if (m->bit_size)
			ptd__sb_add(b, "%s : %d;\n", md ? md : "", m->bit_size);
		else
			ptd__sb_add(b, "%s;\n", md ? md : "");
		free(md);
	}
}

/* The members of struct or union @t (at @base_bit of the outermost), its
 * padding and its total size line; @depth: its nesting (0 the outermost) */
static void po_body(struct sbuf *b, struct vtype *t, uint64_t base_bit, int depth)
{
	struct po p = { b, 0 };
	int label = 0;

	/* a C++ class's own vtable pointer is a private field for gdb: an
	 * access label then comes before the first member shown */
	for (int i = 0; t->cplus && i < t->nmembers; i++)
		label |= !t->members[i].is_base && ptd__vt_is_vptr(t->members[i].name);
	for (int i = 0; i < t->nmembers; i++) {
		struct vt_member *m = &t->members[i];

		if (m->is_base || ptd__vt_is_vptr(m->name))
			continue;
		if (label) {
			ptd__sb_add(b, "%*spublic:\n", PO_COL + 2 + 4 * depth, "");
			label = 0;
		}
		po_member(b, &p, t, m, base_bit, depth);
	}
	if (!t->nmembers)
		ptd__sb_add(b, "%*s<no data fields>\n", PO_COL + 4 * (depth + 1), "");
	if (t->kind != VT_UNION)
		po_hole(&p, t->size * 8, "padding");
	ptd__sb_add(b, "\n%*s/* total size (bytes): %4llu */\n", PO_COL + 4 * (depth + 1), "",
		    (unsigned long long)t->size);
}

char *ptd__vt_ptype_offsets(struct vtype *t)
{
	struct vtype *s = po_strip(t), *top = s;
	struct sbuf b = { 0 };
	char *head, *decl = NULL;

	/* a pointer or array of a struct: the struct, then the declarator
	 * ("} *"), as ptype's */
	while (s && (s->kind == VT_PTR || s->kind == VT_REF || s->kind == VT_ARRAY ||
		     s->kind == VT_QUAL || s->kind == VT_TYPEDEF) && s->target)
		s = s->target;
	if (!s || (s->kind != VT_STRUCT && s->kind != VT_UNION) || (s->declared && !s->nmembers))
		return ptd__vt_ptype(t);
	if (top != s)
		decl = vt_declare(top, "", 1);
	head = !s->name ? strdup(s->kind == VT_UNION ? "union" : "struct")
	       : s->cplus ? cat3(s->kind == VT_UNION ? "union " : "struct ", s->name, "")
			  : base_name(s);
	/* C++ bases: "struct Node : public virtual Named, public Counted" */
	for (int i = 0, nb = 0; head && i < s->nmembers; i++) {
		char *bn, *n;

		if (!s->members[i].is_base)
			continue;
		bn = ptd__vt_name(s->members[i].type, "");
		n = bn ? cat3(head, nb++ ? ", public " : " : public ",
			      s->members[i].is_virtual ? "virtual " : "")
		       : NULL;
		free(head);
		head = n ? cat3(n, bn, "") : NULL;
		free(n);
		free(bn);
	}
	{
		/* gdb's header only for a struct or union itself (not through a
		 * typedef or a pointer) */
		struct vtype *q = t;

		while (q && q->kind == VT_QUAL && q->target)
			q = q->target;
		if (q && (q->kind == VT_STRUCT || q->kind == VT_UNION))
			ptd__sb_add(&b, "/* offset      |    size */  ");
	}
	ptd__sb_add(&b, "type = %s {\n", head ? head : "struct");
	free(head);
	po_body(&b, s, 0, 0);
	ptd__sb_add(&b, "%*s}%s%s", PO_COL + 2, "", decl && decl[0] ? " " : "", decl ? decl : "");
	free(decl);
	return b.s;
}

/* ------------------------------------------------------------------ */
/* Lookup by name                                                       */

struct find_ctx {
	const char *name;
	int tag; /* DW_TAG_structure_type... or 0: typedef or base type */
	Dwarf_Die found;
	int ok;
};

static int tag_matches(int tag, struct find_ctx *fc, int cplus)
{
	if (fc->tag)
		return tag == fc->tag || (fc->tag == DW_TAG_structure_type && tag == DW_TAG_class_type);
	if (tag == DW_TAG_typedef || tag == DW_TAG_base_type)
		return 1;
	/* C++ names its classes, unions and enums without a keyword */
	return cplus && (tag == DW_TAG_structure_type || tag == DW_TAG_class_type ||
			 tag == DW_TAG_union_type || tag == DW_TAG_enumeration_type);
}

/* Looks for @name among the children of @scope; a qualified C++ name
 * ("geo::Rect") goes down through the namespaces and classes it names. */
static int find_in_scope(Dwarf_Die *scope, const char *name, struct find_ctx *fc, int cplus)
{
	const char *sep = cplus ? strstr(name, "::") : NULL;
	size_t head = sep ? (size_t)(sep - name) : strlen(name);
	Dwarf_Die c;

	if (dwarf_child(scope, &c) != 0)
		return 0;
	do {
		int tag = dwarf_tag(&c);
		const char *n = dwarf_diename(&c);

		if (sep) {
			if ((tag == DW_TAG_namespace || tag == DW_TAG_structure_type ||
			     tag == DW_TAG_class_type || tag == DW_TAG_union_type) &&
			    n && strlen(n) == head && !strncmp(n, name, head) &&
			    find_in_scope(&c, sep + 2, fc, cplus))
				return 1;
			continue;
		}
		if (!tag_matches(tag, fc, cplus))
			continue;
		if (dwarf_hasattr(&c, DW_AT_declaration))
			continue;
		if (n && !strcmp(n, name)) {
			fc->found = c;
			fc->ok = 1;
			return 1;
		}
	} while (dwarf_siblingof(&c, &c) == 0);
	return 0;
}

static int find_in_cu(Dwarf_Die *cu, struct find_ctx *fc)
{
	return find_in_scope(cu, fc->name, fc, die_is_cplus(cu));
}

int ptd__dw_each_cu(Dwfl_Module *m, int (*fn)(Dwarf_Die *cu, Dwarf_Addr bias, void *arg), void *arg)
{
	Dwarf_Addr bias;
	Dwarf *dw = dwfl_module_getdwarf(m, &bias);
	Dwarf_Off off = 0, next;
	size_t hsz;
	int rc;

	if (!dw)
		return 0;
	while (dwarf_nextcu(dw, off, &next, &hsz, NULL, NULL, NULL) == 0) {
		Dwarf_Die cu;

		if (dwarf_offdie(dw, off + hsz, &cu) && (rc = fn(&cu, bias, arg)) != 0)
			return rc;
		off = next;
	}
	return 0;
}

static int find_cu(Dwarf_Die *cu, Dwarf_Addr bias, void *arg)
{
	(void)bias;
	return find_in_cu(cu, arg);
}

static int find_mod(Dwfl_Module *m, void **ud, const char *n, Dwarf_Addr a, void *arg)
{
	(void)ud, (void)n, (void)a;
	return ptd__dw_each_cu(m, find_cu, arg) ? DWARF_CB_ABORT : DWARF_CB_OK;
}

static const struct {
	const char *words; /* canonical spelling after normalisation */
	const char *name;
} int_names[] = {
	{ "int", "int" }, { "signed int", "int" }, { "signed", "int" },
	{ "unsigned int", "unsigned int" }, { "unsigned", "unsigned int" },
	{ "long", "long" }, { "long int", "long" }, { "signed long", "long" },
	{ "unsigned long", "unsigned long" }, { "long unsigned int", "unsigned long" },
	{ "unsigned long int", "unsigned long" },
	{ "long long", "long long" }, { "unsigned long long", "unsigned long long" },
	{ "short", "short" }, { "short int", "short" }, { "unsigned short", "unsigned short" },
	{ "char", "char" }, { "signed char", "signed char" }, { "unsigned char", "unsigned char" },
	{ "_Bool", "_Bool" }, { "float", "float" }, { "double", "double" },
	{ "long double", "long double" }, { "void", "void" },
};

struct vtype *ptd__vt_lookup(struct ptd_values *v, const char *name)
{
	struct find_ctx fc = { 0 };
	const char *canon = NULL;
	size_t i;

	if (!strncmp(name, "struct ", 7)) {
		fc.tag = DW_TAG_structure_type;
		name += 7;
	} else if (!strncmp(name, "union ", 6)) {
		fc.tag = DW_TAG_union_type;
		name += 6;
	} else if (!strncmp(name, "enum ", 5)) {
		fc.tag = DW_TAG_enumeration_type;
		name += 5;
	} else {
		for (i = 0; i < sizeof(int_names) / sizeof(int_names[0]); i++)
			if (!strcmp(int_names[i].words, name))
				canon = int_names[i].name;
	}
	if (canon) {
		struct vtype *b[] = { v->t_int,	  v->t_uint,   v->t_long,  v->t_ulong,  v->t_llong,
				      v->t_ullong, v->t_short, v->t_ushort, v->t_char,   v->t_schar,
				      v->t_uchar, v->t_bool,  v->t_float,  v->t_double, v->t_ldouble,
				      v->t_void };
		for (i = 0; i < sizeof(b) / sizeof(b[0]); i++)
			if (b[i] && !strcmp(b[i]->name, canon))
				return b[i];
		return NULL;
	}
	fc.name = name;
	if (v->sym) {
		Dwfl *dwfl = ptd__symbols_dwfl(v->sym);

		if (dwfl)
			dwfl_getmodules(dwfl, find_mod, &fc, 0);
	}
	if (!fc.ok)
		return NULL;
	return ptd__vt_from_die(v, &fc.found);
}

static void mark(struct vtype *t)
{
	/* iterative along target chains, recursive into members */
	while (t && !t->mark) {
		t->mark = 1;
		for (int i = 0; i < t->nmembers; i++)
			mark(t->members[i].type);
		for (int i = 0; i < t->ntargs; i++)
			mark(t->targs[i]);
		t = t->target;
	}
}

static void vt_free(struct vtype *t)
{
	free(t->methods);
	for (int i = 0; i < t->nmembers; i++)
		free(t->members[i].name);
	free(t->members);
	for (int i = 0; i < t->nenums; i++)
		free(t->enums[i].name);
	free(t->enums);
	free(t->name);
	free(t);
}

void ptd__vt_collect(struct ptd_values *v)
{
	struct vtype *builtins[] = { v->t_int,	  v->t_uint,  v->t_long,      v->t_ulong,
				     v->t_char,	  v->t_double, v->t_float,    v->t_void,
				     v->t_bool,	  v->t_code_ptr, v->t_data_ptr, v->t_flags,
				     v->t_short,  v->t_ushort, v->t_uchar,    v->t_llong,
				     v->t_ullong, v->t_schar, v->t_ldouble, v->t_cxxbool,
				     v->t_i8,	  v->t_i16,   v->t_i32,	  v->t_i64 };
	struct vtype **pp, *t;

	for (t = v->types; t; t = t->next_alloc)
		t->mark = 0;
	for (size_t i = 0; i < sizeof(builtins) / sizeof(builtins[0]); i++)
		mark(builtins[i]);
	for (int i = 0; i < v->nhist; i++)
		mark(v->hist[i]->type);
	for (int i = 0; i < v->nconv; i++)
		mark(v->conv[i].val->type);
	for (int i = 0; i < v->nkept; i++)
		if (v->kept[i])
			mark(v->kept[i]->type);
	for (pp = &v->types; *pp;) {
		t = *pp;
		if (t->mark) {
			pp = &t->next_alloc;
			continue;
		}
		*pp = t->next_alloc;
		vt_free(t);
	}
	v->ncache = 0; /* it may name freed types */
}
