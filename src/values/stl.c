/*
 * The classes of the C++ library (libstdc++) as gdb 13 prints them with
 * the pretty printers GCC ships (libstdcxx/v6/printers.py), done here in
 * C from the same layouts: std::string and the other basic_strings,
 * std::vector (and vector<bool>), std::unique_ptr, std::shared_ptr and
 * std::weak_ptr, std::map, multimap, set and multiset (a walk of the
 * red-black tree), std::list and forward_list, std::deque, std::optional,
 * std::pair, std::tuple, the unordered containers, and std::stack, queue
 * and priority_queue (their container's printer).  Each printer has gdb's two parts: a summary
 * ("std::vector of length 2, capacity 2") and children, which the one
 * layout of gdb's print_children (py-prettyprint.c) shows: "= {...}"
 * after the summary, "[key] = value" for a map, the children on lines
 * of their own with print pretty (but an array's), at most 200 of them
 * ("print elements", then "...").  A child read from memory is printed
 * as any value is, so printers nest and /x reaches the elements.
 *
 * Memory is untrusted (an uninitialised container holds garbage): every
 * walk ends after 200 children, a tree walk's inner loops are bounded,
 * and what cannot be read is said as gdb says it.  A class whose members
 * are not the ones expected (another library version) prints raw.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/error.h"
#include "values/values_int.h"

/* the steps of one move to the next node of a red-black tree: a tree of
 * 2^64 nodes is 128 deep, so more is a cycle */
#define TREE_WALK_MAX 256

enum { HINT_NONE, HINT_ARRAY, HINT_MAP };

struct printer;

/* One object being printed by its printer. */
struct pp {
	struct ptd_values *v;
	struct sbuf *b;
	const struct printer *pr;
	struct vtype *t; /* the class, typedefs stripped */
	const uint8_t *p; /* its bytes */
	uint64_t size;
	uint64_t addr; /* where they are, when in_mem */
	int in_mem;
	int fmt, depth;
	char name[64]; /* gdb's typename: the template's name */
	int hint;
	int none; /* the summary is Python's None (std::pair): "{...}" only */
	/* what the printer's init found, by the printer's own meaning */
	uint64_t off[6];
	struct vtype *ty[3];
	uint64_t x[4];
	struct pp *inner; /* std::optional: the contained object's printer */
	/* std::any: the bytes of a held object kept behind a pointer, which
	 * inner prints, and where they are */
	uint8_t *own;
	uint64_t own_addr;
};

/* The children of one object as gdb's print_children lays them out. */
struct kids {
	struct ptd_values *v;
	struct sbuf *b;
	int depth, fmt;
	int map, array, none, pretty;
	int summary; /* frame arguments: "= {...}" for any children */
	int n;     /* children started */
	int all;   /* the printer had no more */
	int error; /* a child could not be fetched (said in its place) */
};

struct printer {
	const char *name;
	/* 0 when the object is laid out as expected (pp filled in), else
	 * -1: it prints raw */
	int (*init)(struct pp *pp);
	/* writes the summary; 0, or -1 after "<error reading variable: ...>"
	 * (then no children are shown) */
	int (*summary)(struct pp *pp);
	/* calls kid_* for each child; <0 when a child's value could not be
	 * read (gdb gives up the whole print) */
	int (*children)(struct pp *pp, struct kids *k);
};

/* A member of class @t named @name, in the class or, as gdb's
 * value['name'] finds it, in a base class: its offset and type. */
static int member(struct vtype *t, const char *name, uint64_t *off, struct vtype **type, int depth)
{
	int i;

	t = ptd__vt_strip(t);
	if (!t || (t->kind != VT_STRUCT && t->kind != VT_UNION) || depth > 16)
		return -1;
	for (i = 0; i < t->nmembers; i++) {
		struct vt_member *m = &t->members[i];

		if (!m->is_base && !m->bit_size && m->name && !strcmp(m->name, name)) {
			*off = m->off;
			*type = m->type;
			return 0;
		}
	}
	for (i = 0; i < t->nmembers; i++) {
		struct vt_member *m = &t->members[i];
		uint64_t o;

		if (m->is_base && !m->is_virtual && member(m->type, name, &o, type, depth + 1) == 0) {
			*off = m->off + o;
			return 0;
		}
	}
	return -1;
}

/* A path of members from @t ("_M_impl", "_M_start", NULL): the offset
 * and type of the last. */
static int path(struct vtype *t, uint64_t *off, struct vtype **type, ...)
{
	va_list ap;
	const char *name;
	uint64_t total = 0, o;
	int rc = 0;

	va_start(ap, type);
	while ((name = va_arg(ap, const char *))) {
		if (member(t, name, &o, &t, 0) < 0) {
			rc = -1;
			break;
		}
		total += o;
	}
	va_end(ap);
	*off = total;
	*type = t;
	return rc;
}

/* A base class (at any depth) or member class of @t whose name starts
 * with @prefix: its offset in @t and its type. */
static int find_class(struct vtype *t, const char *prefix, int members, uint64_t *off,
		      struct vtype **out, int depth)
{
	int i;

	t = ptd__vt_strip(t);
	if (!t || t->kind != VT_STRUCT || depth > 16)
		return -1;
	if (t->name && !strncmp(t->name, prefix, strlen(prefix))) {
		*off = 0;
		*out = t;
		return 0;
	}
	for (i = 0; i < t->nmembers; i++) {
		struct vt_member *m = &t->members[i];
		uint64_t o;

		if (m->is_virtual || m->bit_size || (!m->is_base && !members))
			continue;
		if (find_class(m->type, prefix, members, &o, out, depth + 1) == 0) {
			*off = m->off + o;
			return 0;
		}
	}
	return -1;
}

/* The value at @off of the object's bytes, @size bytes of it (<= 8),
 * as an unsigned or sign-extended integer; 0 when outside. */
static uint64_t at(const struct pp *pp, uint64_t off, uint64_t size, int is_signed)
{
	if (size > 8 || off > pp->size || size > pp->size - off)
		return 0;
	return ptd__bits(pp->p + off, size, is_signed);
}

/* A pointer member's value (a path of members); -1 when not there. */
static int ptr_at(struct pp *pp, uint64_t *off, struct vtype **pointee, ...)
{
	va_list ap;
	const char *name;
	struct vtype *t = pp->t, *s;
	uint64_t total = 0, o;

	va_start(ap, pointee);
	while ((name = va_arg(ap, const char *))) {
		if (member(t, name, &o, &t, 0) < 0) {
			va_end(ap);
			return -1;
		}
		total += o;
	}
	va_end(ap);
	s = ptd__vt_strip(t);
	if (!s || s->kind != VT_PTR || total > pp->size || pp->size - total < 8)
		return -1;
	*off = total;
	if (pointee)
		*pointee = s->target;
	return 0;
}

/* The type's name as gdb's str(type) writes it (malloc'ed). */
static char *type_str(struct vtype *t)
{
	return t ? ptd__vt_name(t, "") : NULL;
}

/* libstdc++'s type printers for class templates with default arguments
 * (TemplateTypePrinter): a specialisation that uses the defaults is
 * named without them ("std::vector<int>"); {0} and {1} stand for the
 * first arguments. */
static const struct {
	const char *name;
	const char *def[5];
} template_defaults[] = {
	{ "std::unique_ptr", { NULL, "std::default_delete<{0}>" } },
	{ "std::deque", { NULL, "std::allocator<{0}>" } },
	{ "std::forward_list", { NULL, "std::allocator<{0}>" } },
	{ "std::list", { NULL, "std::allocator<{0}>" } },
	{ "std::__cxx11::list", { NULL, "std::allocator<{0}>" } },
	{ "std::vector", { NULL, "std::allocator<{0}>" } },
	{ "std::map", { NULL, NULL, "std::less<{0}>", "std::allocator<std::pair<{0} const, {1}>>" } },
	{ "std::multimap",
	  { NULL, NULL, "std::less<{0}>", "std::allocator<std::pair<{0} const, {1}>>" } },
	{ "std::set", { NULL, "std::less<{0}>", "std::allocator<{0}>" } },
	{ "std::multiset", { NULL, "std::less<{0}>", "std::allocator<{0}>" } },
	{ "std::unordered_map",
	  { NULL, NULL, "std::hash<{0}>", "std::equal_to<{0}>",
	    "std::allocator<std::pair<{0} const, {1}>>" } },
	{ "std::unordered_multimap",
	  { NULL, NULL, "std::hash<{0}>", "std::equal_to<{0}>",
	    "std::allocator<std::pair<{0} const, {1}>>" } },
	{ "std::unordered_set",
	  { NULL, "std::hash<{0}>", "std::equal_to<{0}>", "std::allocator<{0}>" } },
	{ "std::unordered_multiset",
	  { NULL, "std::hash<{0}>", "std::equal_to<{0}>", "std::allocator<{0}>" } },
};

/* Whether two type names are the same but for blanks ("> >", ">>"). */
static int same_name(const char *a, const char *b)
{
	for (;;) {
		while (*a == ' ')
			a++;
		while (*b == ' ')
			b++;
		if (*a != *b)
			return 0;
		if (!*a)
			return 1;
		a++;
		b++;
	}
}

#define MAX_TARGS 8

/* The name @name after libstdc++'s type recognizers (the strings by
 * their typedefs' names, the templates above without their defaults),
 * malloc'ed; NULL when none recognises it. */
static char *recognize(struct ptd_values *v, const char *name, int depth)
{
	static const char *const strs[][2] = {
		{ "std::__cxx11::basic_string<char, std::char_traits<char>, std::allocator<char> >",
		  "std::string" },
		{ "std::__cxx11::basic_string<wchar_t, std::char_traits<wchar_t>, std::allocator<wchar_t> >",
		  "std::wstring" },
		{ "std::__cxx11::basic_string<char8_t, std::char_traits<char8_t>, std::allocator<char8_t> >",
		  "std::u8string" },
		{ "std::__cxx11::basic_string<char16_t, std::char_traits<char16_t>, std::allocator<char16_t> >",
		  "std::u16string" },
		{ "std::__cxx11::basic_string<char32_t, std::char_traits<char32_t>, std::allocator<char32_t> >",
		  "std::u32string" },
	};
	const char *lt, *args[MAX_TARGS], *c;
	size_t alen[MAX_TARGS], i, t, nargs = 0;
	struct sbuf out = { 0 };
	int nest = 0, defaulted = 0;
	char tmp[1024];

	if (!name || depth > 8)
		return NULL;
	for (i = 0; i < sizeof(strs) / sizeof(strs[0]); i++)
		if (same_name(name, strs[i][0])) {
			/* (gdb's recognizer looks the typedef up: a program
			 * that never names std::string has none) */
			if (!ptd__vt_lookup(v, strs[i][1]))
				return NULL;
			return strdup(strs[i][1]);
		}
	if (!(lt = strchr(name, '<')) || name[strlen(name) - 1] != '>')
		return NULL;
	for (t = 0; t < sizeof(template_defaults) / sizeof(template_defaults[0]); t++)
		if (strlen(template_defaults[t].name) == (size_t)(lt - name) &&
		    !strncmp(name, template_defaults[t].name, (size_t)(lt - name)))
			break;
	if (t == sizeof(template_defaults) / sizeof(template_defaults[0]))
		return NULL;
	/* the arguments, split at the commas outside brackets */
	args[0] = lt + 1;
	for (c = lt + 1; *c; c++) {
		if (*c == '<' || *c == '(')
			nest++;
		else if ((*c == '>' || *c == ')') && nest > 0)
			nest--;
		else if ((*c == ',' && !nest) || (*c == '>' && !nest)) {
			while (*args[nargs] == ' ')
				args[nargs]++;
			alen[nargs] = (size_t)(c - args[nargs]);
			while (alen[nargs] && args[nargs][alen[nargs] - 1] == ' ')
				alen[nargs]--;
			if (*c == '>' || ++nargs == MAX_TARGS)
				break;
			args[nargs] = c + 1;
		}
	}
	if (*c != '>' || c[1])
		return NULL;
	nargs++;
	/* (strip_inline_namespaces: "std::__cxx11::list" is "std::list") */
	if (!strncmp(name, "std::__cxx11::", 14))
		ptd__sb_add(&out, "std::%.*s<", (int)(lt - name - 14), name + 14);
	else
		ptd__sb_add(&out, "%.*s<", (int)(lt - name), name);
	for (i = 0; i < nargs; i++) {
		const char *def = i < 5 ? template_defaults[t].def[i] : NULL;

		if (def) {
			/* the default with the first arguments put in */
			size_t n = 0;

			for (c = def; *c && n + 1 < sizeof(tmp); c++) {
				if (c[0] == '{' && (c[1] == '0' || c[1] == '1') && c[2] == '}' &&
				    (size_t)(c[1] - '0') < nargs) {
					size_t k = (size_t)(c[1] - '0');

					n += (size_t)snprintf(tmp + n, sizeof(tmp) - n, "%.*s",
							      (int)alen[k], args[k]);
					if (n >= sizeof(tmp))
						n = sizeof(tmp) - 1;
					c += 2;
				} else {
					tmp[n++] = *c;
				}
			}
			tmp[n] = 0;
			char *arg = strndup(args[i], alen[i]);
			int same = arg && same_name(arg, tmp);

			free(arg);
			if (!same) {
				free(out.s);
				return NULL;
			}
			defaulted = 1;
		} else if (defaulted) {
			free(out.s);
			return NULL;
		} else {
			char *arg = strndup(args[i], alen[i]), *r = recognize(v, arg, depth + 1);

			ptd__sb_add(&out, "%s%s", i ? ", " : "", r ? r : arg ? arg : "?");
			free(r);
			free(arg);
		}
	}
	ptd__sb_add(&out, ">");
	if (out.oom) {
		free(out.s);
		return NULL;
	}
	return out.s;
}

/* The type's name as gdb's type recognizers give it (for std::optional's
 * summary), malloc'ed. */
static char *type_recognized(struct ptd_values *v, struct vtype *t)
{
	char *n = type_str(t), *r = recognize(v, n, 0);

	if (r) {
		free(n);
		return r;
	}
	return n;
}

static void num_elements(struct sbuf *b, long long n)
{
	if (n == 1)
		ptd__sb_add(b, "1 element");
	else
		ptd__sb_add(b, "%lld elements", n);
}

/* --- children ----------------------------------------------------- */

static void kids_init(struct kids *k, const struct pp *pp)
{
	memset(k, 0, sizeof(*k));
	k->v = pp->v;
	k->b = pp->b;
	k->depth = pp->depth;
	k->fmt = pp->fmt;
	k->map = pp->hint == HINT_MAP;
	k->array = pp->hint == HINT_ARRAY;
	k->none = pp->none;
	/* an array's children follow print array (off), the others print
	 * pretty */
	k->pretty = k->array ? 0 : pp->v->pretty;
	/* print frame-arguments scalars: gdb's summary mode */
	k->summary = pp->v->summary;
	if (k->summary)
		k->pretty = 0;
}

/* Whether another child may be shown (gdb stops at print elements). */
static int kid_room(const struct kids *k)
{
	return (uint64_t)k->n < (k->summary ? 1 : k->v->print_max);
}

/* A child could not be fetched: gdb says so where it would be, and
 * shows no more. */
static void kid_fetch_error(struct kids *k, const char *msg)
{
	ptd__sb_add(k->b, "<error reading variable: %s>", msg);
	k->error = 1;
}

/* What comes before child @name: the separators, the line break, the
 * name or the map's "[".  1 in summary mode, where the child is not
 * shown (it is counted). */
static int kid_open(struct kids *k, const char *name)
{
	struct sbuf *b = k->b;
	int first_of_pair = !k->map || k->n % 2 == 0;

	if (k->n == 0) {
		if (!k->none)
			ptd__sb_add(b, " = ");
		ptd__sb_add(b, "{");
		if (k->summary) {
			k->n++;
			return 1;
		}
	} else if (first_of_pair) {
		ptd__sb_add(b, k->pretty ? "," : ", ");
	}
	if (first_of_pair && k->pretty)
		ptd__sb_add(b, "\n%*s", 2 + 2 * k->depth, "");
	if (k->map && k->n % 2 == 0)
		ptd__sb_add(b, "[");
	else if (!k->map && !k->array)
		ptd__sb_add(b, "%s = ", name);
	return 0;
}

static void kid_close(struct kids *k)
{
	if (k->map && k->n % 2 == 0)
		ptd__sb_add(k->b, "] = ");
	k->n++;
}

static void kids_end(struct kids *k)
{
	if (!k->n)
		return;
	if (!k->all || k->summary) {
		if (k->pretty)
			ptd__sb_add(k->b, "\n%*s", 2 + 2 * k->depth, "");
		ptd__sb_add(k->b, "...");
	}
	if (k->pretty)
		ptd__sb_add(k->b, "\n%*s", 2 * k->depth, "");
	ptd__sb_add(k->b, "}");
}

/* Prints @t's value from @bytes that are at @addr (in_mem) as the
 * current value's bytes for the time (virtual bases, masks). */
static int print_bytes(struct ptd_values *v, struct vtype *t, const uint8_t *bytes, uint64_t n,
		       uint64_t addr, int in_mem, int fmt, struct sbuf *b, int depth)
{
	const uint8_t *saved_buf = v->print_buf, *saved_mask = v->print_mask;
	uint64_t saved_addr = v->print_addr;
	int saved_in_mem = v->print_in_mem, rc;

	v->print_buf = bytes;
	v->print_mask = NULL;
	v->print_addr = addr;
	v->print_in_mem = in_mem;
	rc = ptd__print_at(v, t, bytes, n, fmt, 0, b, depth);
	v->print_buf = saved_buf;
	v->print_mask = saved_mask;
	v->print_addr = saved_addr;
	v->print_in_mem = saved_in_mem;
	return rc;
}

/* Child @name: the value of type @t at @addr in memory. */
static int kid_mem(struct kids *k, const char *name, struct vtype *t, uint64_t addr)
{
	uint64_t n = ptd__vt_size(t);
	uint8_t *buf;
	int rc;

	if (kid_open(k, name))
		return 0;
	if (!n || n > VAL_MAX_SIZE)
		return ptd__err(-ptde_invalid,
				"value requires %llu bytes, which is more than max-value-size",
				(unsigned long long)n);
	buf = malloc(n);
	if (!buf)
		return ptd__err(-ptde_nomem, "out of memory");
	rc = ptd__mem_read(k->v, addr, buf, n);
	if (rc == 0)
		rc = print_bytes(k->v, t, buf, n, addr, 1, k->fmt, k->b, k->depth + 1);
	free(buf);
	if (rc < 0)
		return rc;
	kid_close(k);
	return 0;
}

/* Child @name: the value of type @t at @off of the object's own bytes. */
static int kid_here(struct kids *k, const struct pp *pp, const char *name, struct vtype *t,
		    uint64_t off)
{
	int rc;

	if (kid_open(k, name))
		return 0;
	if (off > pp->size)
		ptd__sb_add(k->b, "<invalid type layout>");
	else if ((rc = ptd__print_at(k->v, t, pp->p + off, pp->size - off, k->fmt, 0, k->b,
				     k->depth + 1)) < 0)
		return rc;
	kid_close(k);
	return 0;
}

/* Child @name: a bool the printer computed (Python's True/False). */
static int kid_bool(struct kids *k, const char *name, int x)
{
	uint8_t byte = (uint8_t)!!x;
	int rc;

	if (kid_open(k, name))
		return 0;
	rc = print_bytes(k->v, k->v->t_cxxbool, &byte, 1, 0, 0, k->fmt, k->b, k->depth + 1);
	if (rc < 0)
		return rc;
	kid_close(k);
	return 0;
}

static int read_ptr(struct ptd_values *v, uint64_t addr, uint64_t *out)
{
	*out = 0;
	return ptd__mem_read(v, addr, out, 8);
}

/* --- std::basic_string -------------------------------------------- */

static int string_init(struct pp *pp)
{
	struct vtype *ct, *lt;

	/* (the reference-counted string of the old ABI is not shown: it
	 * has no _M_string_length) */
	if (ptr_at(pp, &pp->off[0], &ct, "_M_dataplus", "_M_p", NULL) < 0 ||
	    path(pp->t, &pp->off[1], &lt, "_M_string_length", NULL) < 0)
		return -1;
	ct = ptd__vt_strip(ct);
	lt = ptd__vt_strip(lt);
	if (!ct || ct->kind != VT_INT || (ct->size != 1 && ct->size != 2 && ct->size != 4) || !lt ||
	    lt->kind != VT_INT || lt->size > 8)
		return -1;
	pp->ty[0] = ct;
	pp->x[0] = lt->size;
	return 0;
}

/* gdb prints the characters the length says (a lazy string): at most
 * print elements of them, "..." after when there are more. */
static int string_summary(struct pp *pp)
{
	struct vtype *ct = pp->ty[0];
	uint64_t ptr = at(pp, pp->off[0], 8, 0), len = at(pp, pp->off[1], pp->x[0], 0);
	uint64_t n = len > pp->v->print_max ? pp->v->print_max : len, w = ct->size;
	const char *prefix = "";
	uint8_t *buf;

	if (ct->name && !strcmp(ct->name, "wchar_t"))
		prefix = "L";
	else if (ct->name && !strcmp(ct->name, "char16_t"))
		prefix = "u";
	else if (ct->name && !strcmp(ct->name, "char32_t"))
		prefix = "U";
	else if (ct->name && !strcmp(ct->name, "char8_t"))
		prefix = "u8";
	buf = malloc(n * w + 1);
	if (!buf) {
		ptd__sb_add(pp->b, "<error: out of memory>");
		return 0;
	}
	if (n && ptd__mem_read(pp->v, ptr, buf, n * w) < 0) {
		ptd__sb_add(pp->b, "<error: Cannot access memory at address 0x%llx>",
			    (unsigned long long)ptr);
		ptd_clear_error();
		free(buf);
		return 0;
	}
	ptd__sb_add(pp->b, "%s", prefix);
	ptd__print_chars(pp->b, buf, n, w, len > n);
	free(buf);
	return 0;
}

/* --- std::vector -------------------------------------------------- */

static int vector_init(struct pp *pp)
{
	struct vtype *et, *wt, *bt = pp->t->ntargs ? ptd__vt_strip(pp->t->targs[0]) : NULL;

	pp->hint = HINT_ARRAY;
	if (bt && bt->kind == VT_INT && bt->is_bool) {
		/* vector<bool>: words of bits, and the offset in the last */
		if (ptr_at(pp, &pp->off[0], &wt, "_M_impl", "_M_start", "_M_p", NULL) < 0 ||
		    ptr_at(pp, &pp->off[1], NULL, "_M_impl", "_M_finish", "_M_p", NULL) < 0 ||
		    path(pp->t, &pp->off[2], &et, "_M_impl", "_M_finish", "_M_offset", NULL) < 0 ||
		    ptr_at(pp, &pp->off[3], NULL, "_M_impl", "_M_end_of_storage", NULL) < 0)
			return -1;
		wt = ptd__vt_strip(wt);
		et = ptd__vt_strip(et);
		if (!wt || !wt->size || wt->size > 8 || !et || et->size > 8)
			return -1;
		pp->x[0] = 1; /* bits */
		pp->x[1] = wt->size;
		pp->x[2] = et->size;
		return 0;
	}
	if (ptr_at(pp, &pp->off[0], &et, "_M_impl", "_M_start", NULL) < 0 ||
	    ptr_at(pp, &pp->off[1], NULL, "_M_impl", "_M_finish", NULL) < 0 ||
	    ptr_at(pp, &pp->off[3], NULL, "_M_impl", "_M_end_of_storage", NULL) < 0 || !et ||
	    !ptd__vt_size(et))
		return -1;
	pp->ty[0] = et;
	pp->x[0] = 0;
	return 0;
}

static int vector_summary(struct pp *pp)
{
	int64_t start = (int64_t)at(pp, pp->off[0], 8, 0), finish = (int64_t)at(pp, pp->off[1], 8, 0);
	int64_t end = (int64_t)at(pp, pp->off[3], 8, 0);

	if (pp->x[0]) {
		int64_t w = (int64_t)pp->x[1], bl = 8 * w;
		int64_t fo = (int64_t)at(pp, pp->off[2], pp->x[2], 1);

		ptd__sb_add(pp->b, "%s<bool> of length %lld, capacity %lld", pp->name,
			    (long long)(bl * ((finish - start) / w) + fo),
			    (long long)(bl * ((end - start) / w)));
		return 0;
	}
	int64_t esz = (int64_t)ptd__vt_size(pp->ty[0]);

	ptd__sb_add(pp->b, "%s of length %lld, capacity %lld", pp->name,
		    (long long)((finish - start) / esz), (long long)((end - start) / esz));
	return 0;
}

static int vector_children(struct pp *pp, struct kids *k)
{
	uint64_t item = at(pp, pp->off[0], 8, 0), finish = at(pp, pp->off[1], 8, 0);
	char name[32];
	int rc;

	if (pp->x[0]) {
		uint64_t w = pp->x[1], so = 0, fo = at(pp, pp->off[2], pp->x[2], 0), word = 0;

		while (kid_room(k)) {
			if (item == finish && so >= fo) {
				k->all = 1;
				return 0;
			}
			word = 0;
			if ((rc = ptd__mem_read(pp->v, item, &word, w)) < 0) {
				kid_fetch_error(k, ptd_last_error(rc));
				return 0;
			}
			snprintf(name, sizeof(name), "[%d]", k->n);
			if ((rc = kid_bool(k, name, (int)((word >> so) & 1))) < 0)
				return rc;
			if (++so >= 8 * w) {
				item += w;
				so = 0;
			}
		}
		return 0;
	}
	uint64_t esz = ptd__vt_size(pp->ty[0]);

	while (kid_room(k)) {
		if (item == finish) {
			k->all = 1;
			return 0;
		}
		snprintf(name, sizeof(name), "[%d]", k->n);
		if ((rc = kid_mem(k, name, pp->ty[0], item)) < 0)
			return rc;
		item += esz;
	}
	return 0;
}

/* --- std::unique_ptr, std::shared_ptr, std::weak_ptr ---------------- */

static int unique_init(struct pp *pp)
{
	struct vtype *impl, *head, *pt;
	uint64_t o1, o2;

	if (!pp->t->ntargs || !pp->t->targs[0] || pp->t->nmembers < 1)
		return -1;
	/* the pointer is element 0 of a std::tuple inside the first member
	 * (_M_t): its _Head_base<0, pointer> */
	impl = pp->t->members[0].type;
	if (find_class(impl, "std::_Head_base<0,", 1, &o1, &head, 0) < 0 ||
	    member(head, "_M_head_impl", &o2, &pt, 0) < 0)
		return -1;
	pt = ptd__vt_strip(pt);
	if (!pt || pt->kind != VT_PTR)
		return -1;
	pp->off[0] = pp->t->members[0].off + o1 + o2;
	pp->ty[0] = pt;
	return 0;
}

static int unique_summary(struct pp *pp)
{
	char *n = type_str(pp->t->targs[0]);

	ptd__sb_add(pp->b, "std::unique_ptr<%s>", n ? n : "?");
	free(n);
	return 0;
}

static int smart_children(struct pp *pp, struct kids *k)
{
	if (!kid_room(k))
		return 0;
	k->all = 1;
	return kid_here(k, pp, "get()", pp->ty[0], pp->off[0]);
}

static int shared_init(struct pp *pp)
{
	struct vtype *pt, *cb, *t;

	if (!pp->t->ntargs || !pp->t->targs[0])
		return -1;
	if (path(pp->t, &pp->off[0], &pt, "_M_ptr", NULL) < 0 ||
	    ptr_at(pp, &pp->off[1], &cb, "_M_refcount", "_M_pi", NULL) < 0 ||
	    member(cb, "_M_use_count", &pp->off[2], &t, 0) < 0 || ptd__vt_size(t) != 4 ||
	    member(cb, "_M_weak_count", &pp->off[3], &t, 0) < 0 || ptd__vt_size(t) != 4)
		return -1;
	pp->ty[0] = pt;
	return 0;
}

static int shared_summary(struct pp *pp)
{
	uint64_t pi = at(pp, pp->off[1], 8, 0);
	int32_t use = 0, weak = 0;
	char *n = type_str(pp->t->targs[0]);
	int rc;

	if (pi && ((rc = ptd__mem_read(pp->v, pi + pp->off[2], &use, 4)) < 0 ||
		   (rc = ptd__mem_read(pp->v, pi + pp->off[3], &weak, 4)) < 0)) {
		ptd__sb_add(pp->b, "<error reading variable: %s>", ptd_last_error(rc));
		free(n);
		return -1;
	}
	ptd__sb_add(pp->b, "%s<%s> (", pp->name, n ? n : "?");
	free(n);
	if (!pi)
		ptd__sb_add(pp->b, "empty)");
	else if (!use)
		ptd__sb_add(pp->b, "expired, weak count %d)", weak);
	else
		ptd__sb_add(pp->b, "use count %d, weak count %lld)", use, (long long)weak - 1);
	return 0;
}

/* --- the red-black tree: std::map, multimap, set, multiset ---------- */

/* The node type of a container, an argument of the allocator among its
 * implementation's bases ("std::allocator<std::_Rb_tree_node<V> >"), and
 * where a node keeps its value (@fallback when it is not described). */
static uint64_t node_storage(struct vtype *impl, const char *node_prefix, uint64_t fallback)
{
	struct vtype *alloc, *node, *t;
	uint64_t o;

	if (find_class(impl, "std::allocator<", 0, &o, &alloc, 0) < 0 || !alloc->ntargs ||
	    !(node = ptd__vt_strip(alloc->targs[0])) || !node->name ||
	    strncmp(node->name, node_prefix, strlen(node_prefix)))
		return fallback;
	if (member(node, "_M_storage", &o, &t, 0) == 0)
		return o;
	return fallback;
}

static int tree_init(struct pp *pp)
{
	struct vtype *rt, *impl, *ht, *t, *val;
	uint64_t o;

	if (path(pp->t, &o, &rt, "_M_t", NULL) < 0 || !(rt = ptd__vt_strip(rt)) || rt->ntargs < 2 ||
	    !(val = rt->targs[1]) || path(rt, &pp->off[0], &impl, "_M_impl", NULL) < 0 ||
	    path(impl, &pp->off[1], &ht, "_M_header", NULL) < 0 ||
	    path(impl, &pp->off[2], &t, "_M_node_count", NULL) < 0 || ptd__vt_size(t) > 8)
		return -1;
	pp->x[3] = ptd__vt_size(t);
	/* the links of a node, as the header's */
	if (member(ht, "_M_parent", &pp->x[0], &t, 0) < 0 ||
	    member(ht, "_M_left", &pp->x[1], &t, 0) < 0 ||
	    member(ht, "_M_right", &pp->x[2], &t, 0) < 0)
		return -1;
	pp->off[1] += pp->off[0] + o; /* the header in the object */
	pp->off[2] += pp->off[0] + o; /* the count */
	pp->off[3] = node_storage(impl, "std::_Rb_tree_node<", 32);
	pp->ty[0] = val;
	if (pp->hint == HINT_MAP &&
	    (member(val, "first", &pp->off[4], &pp->ty[1], 0) < 0 ||
	     member(val, "second", &pp->off[5], &pp->ty[2], 0) < 0))
		return -1;
	return 0;
}

static int map_init(struct pp *pp)
{
	pp->hint = HINT_MAP;
	return tree_init(pp);
}

static int tree_summary(struct pp *pp)
{
	ptd__sb_add(pp->b, "%s with ", pp->name);
	num_elements(pp->b, (long long)at(pp, pp->off[2], pp->x[3], 0));
	return 0;
}

/* The node after @node in order (RbtreeIterator's walk): 0, or <0 with
 * the error message in @err. */
static int tree_next(struct pp *pp, uint64_t *node, char *err, size_t errlen)
{
	uint64_t n = *node, x, parent;
	int rc, steps = 0;

#define LINK(a, off, out)                                                     \
	do {                                                                  \
		if ((rc = read_ptr(pp->v, (a) + (off), (out))) < 0)           \
			goto fail;                                            \
		if (++steps > TREE_WALK_MAX)                                  \
			goto loop;                                            \
	} while (0)
	LINK(n, pp->x[2], &x);
	if (x) {
		n = x;
		for (;;) {
			LINK(n, pp->x[1], &x);
			if (!x)
				break;
			n = x;
		}
	} else {
		LINK(n, pp->x[0], &parent);
		for (;;) {
			LINK(parent, pp->x[2], &x);
			if (n != x)
				break;
			n = parent;
			LINK(parent, pp->x[0], &parent);
		}
		LINK(n, pp->x[2], &x);
		if (x != parent)
			n = parent;
	}
#undef LINK
	*node = n;
	return 0;
fail:
	snprintf(err, errlen, "%s", ptd_last_error(rc));
	return rc;
loop:
	snprintf(err, errlen, "the tree's links do not end (a walk of more than %d nodes)",
		 TREE_WALK_MAX);
	return -ptde_invalid;
}

static int tree_children(struct pp *pp, struct kids *k)
{
	uint64_t size = at(pp, pp->off[2], pp->x[3], 0), count = 0;
	uint64_t node = at(pp, pp->off[1] + pp->x[1], 8, 0), cur;
	char name[32], err[160];
	int rc;

	while (kid_room(k)) {
		if (count == size) {
			k->all = 1;
			return 0;
		}
		cur = node;
		if (++count < size && tree_next(pp, &node, err, sizeof(err)) < 0) {
			kid_fetch_error(k, err);
			return 0;
		}
		snprintf(name, sizeof(name), "[%d]", k->n);
		if (pp->hint != HINT_MAP)
			rc = kid_mem(k, name, pp->ty[0], cur + pp->off[3]);
		else if ((rc = kid_mem(k, name, pp->ty[1], cur + pp->off[3] + pp->off[4])) == 0 &&
			 kid_room(k)) {
			snprintf(name, sizeof(name), "[%d]", k->n);
			rc = kid_mem(k, name, pp->ty[2], cur + pp->off[3] + pp->off[5]);
		}
		if (rc < 0)
			return rc;
	}
	return 0;
}

/* --- std::list ------------------------------------------------------ */

static int list_init(struct pp *pp)
{
	struct vtype *impl, *ht, *t;
	uint64_t o;

	if (!pp->in_mem || !pp->t->ntargs || !pp->t->targs[0] ||
	    path(pp->t, &o, &impl, "_M_impl", NULL) < 0 ||
	    path(impl, &pp->off[0], &ht, "_M_node", NULL) < 0 ||
	    member(ht, "_M_next", &pp->off[1], &t, 0) < 0)
		return -1;
	pp->off[0] += o; /* the head node in the object */
	pp->off[1] += pp->off[0];
	pp->off[2] = node_storage(impl, "std::_List_node<", 16);
	pp->ty[0] = pp->t->targs[0];
	return 0;
}

static int list_summary(struct pp *pp)
{
	if (at(pp, pp->off[1], 8, 0) == pp->addr + pp->off[0])
		ptd__sb_add(pp->b, "empty ");
	ptd__sb_add(pp->b, "%s", pp->name);
	return 0;
}

static int list_children(struct pp *pp, struct kids *k)
{
	uint64_t head = pp->addr + pp->off[0], node = at(pp, pp->off[1], 8, 0), next;
	uint64_t next_off = pp->off[1] - pp->off[0];
	char name[32];
	int rc;

	while (kid_room(k)) {
		if (node == head) {
			k->all = 1;
			return 0;
		}
		if ((rc = read_ptr(pp->v, node + next_off, &next)) < 0) {
			kid_fetch_error(k, ptd_last_error(rc));
			return 0;
		}
		snprintf(name, sizeof(name), "[%d]", k->n);
		if ((rc = kid_mem(k, name, pp->ty[0], node + pp->off[2])) < 0)
			return rc;
		node = next;
	}
	return 0;
}

/* --- std::deque ----------------------------------------------------- */

static int deque_init(struct pp *pp)
{
	struct vtype *et = NULL, *t;
	uint64_t esz;

	pp->hint = HINT_ARRAY;
	/* _M_start's _M_cur, _M_last, _M_node; _M_finish's _M_cur, _M_node
	 * and _M_first */
	if (ptr_at(pp, &pp->off[0], &et, "_M_impl", "_M_start", "_M_cur", NULL) < 0 ||
	    ptr_at(pp, &pp->off[2], NULL, "_M_impl", "_M_start", "_M_last", NULL) < 0 ||
	    ptr_at(pp, &pp->off[3], NULL, "_M_impl", "_M_start", "_M_node", NULL) < 0 ||
	    ptr_at(pp, &pp->off[4], NULL, "_M_impl", "_M_finish", "_M_cur", NULL) < 0 ||
	    ptr_at(pp, &pp->off[5], NULL, "_M_impl", "_M_finish", "_M_node", NULL) < 0 ||
	    path(pp->t, &pp->x[3], &t, "_M_impl", "_M_finish", "_M_first", NULL) < 0)
		return -1;
	esz = ptd__vt_size(et);
	if (!esz)
		return -1;
	pp->ty[0] = et;
	pp->x[0] = esz;
	pp->x[1] = esz < 512 ? 512 / esz : 1; /* elements in a buffer */
	return 0;
}

static int deque_summary(struct pp *pp)
{
	int64_t esz = (int64_t)pp->x[0], bs = (int64_t)pp->x[1];
	int64_t sn = (int64_t)at(pp, pp->off[3], 8, 0), fnode = (int64_t)at(pp, pp->off[5], 8, 0);
	int64_t scur = (int64_t)at(pp, pp->off[0], 8, 0), slast = (int64_t)at(pp, pp->off[2], 8, 0);
	int64_t fcur = (int64_t)at(pp, pp->off[4], 8, 0), ffirst = (int64_t)at(pp, pp->x[3], 8, 0);
	int64_t size = bs * ((fnode - sn) / 8 - 1) + (slast - scur) / esz + (fcur - ffirst) / esz;

	ptd__sb_add(pp->b, "%s with ", pp->name);
	num_elements(pp->b, (long long)size);
	return 0;
}

static int deque_children(struct pp *pp, struct kids *k)
{
	uint64_t esz = pp->x[0], node = at(pp, pp->off[3], 8, 0), p = at(pp, pp->off[0], 8, 0);
	uint64_t end = at(pp, pp->off[2], 8, 0), last = at(pp, pp->off[4], 8, 0), cur;
	char name[32];
	int rc;

	while (kid_room(k)) {
		if (p == last) {
			k->all = 1;
			return 0;
		}
		cur = p;
		p += esz;
		if (p == end) {
			/* the next buffer (read before this element shows) */
			node += 8;
			if ((rc = read_ptr(pp->v, node, &p)) < 0) {
				kid_fetch_error(k, ptd_last_error(rc));
				return 0;
			}
			end = p + pp->x[1] * esz;
		}
		snprintf(name, sizeof(name), "[%d]", k->n);
		if ((rc = kid_mem(k, name, pp->ty[0], cur)) < 0)
			return rc;
	}
	return 0;
}

/* --- the hash tables: std::unordered_map, set and their multi ------- */

static int hash_init(struct pp *pp)
{
	struct vtype *h, *t, *alloc, *node, *val;
	uint64_t o, ho;

	if (path(pp->t, &ho, &h, "_M_h", NULL) < 0 || !(h = ptd__vt_strip(h)) || h->ntargs < 2 ||
	    !(val = h->targs[1]) || path(h, &pp->off[0], &t, "_M_before_begin", "_M_nxt", NULL) < 0 ||
	    path(h, &pp->off[1], &t, "_M_element_count", NULL) < 0 || ptd__vt_size(t) > 8)
		return -1;
	pp->x[0] = ptd__vt_size(t);
	pp->off[0] += ho;
	pp->off[1] += ho;
	/* _Hashtable_alloc<allocator<_Hash_node<V, cached> > >: where a node
	 * keeps its value (after the next pointer) */
	pp->off[2] = 8;
	if (find_class(h, "std::__detail::_Hashtable_alloc<", 0, &o, &alloc, 0) == 0 &&
	    alloc->ntargs && (alloc = ptd__vt_strip(alloc->targs[0])) && alloc->ntargs &&
	    (node = ptd__vt_strip(alloc->targs[0])) &&
	    member(node, "_M_storage", &pp->off[2], &t, 0) < 0)
		pp->off[2] = 8;
	pp->ty[0] = val;
	if (pp->hint == HINT_MAP && (member(val, "first", &pp->off[4], &pp->ty[1], 0) < 0 ||
				     member(val, "second", &pp->off[5], &pp->ty[2], 0) < 0))
		return -1;
	return 0;
}

static int umap_init(struct pp *pp)
{
	pp->hint = HINT_MAP;
	return hash_init(pp);
}

static int hash_summary(struct pp *pp)
{
	ptd__sb_add(pp->b, "%s with ", pp->name);
	num_elements(pp->b, (long long)at(pp, pp->off[1], pp->x[0], 0));
	return 0;
}

static int hash_children(struct pp *pp, struct kids *k)
{
	uint64_t node = at(pp, pp->off[0], 8, 0), next;
	char name[32];
	int rc;

	while (kid_room(k)) {
		if (!node) {
			k->all = 1;
			return 0;
		}
		if ((rc = read_ptr(pp->v, node, &next)) < 0) {
			kid_fetch_error(k, ptd_last_error(rc));
			return 0;
		}
		snprintf(name, sizeof(name), "[%d]", k->n);
		if (pp->hint != HINT_MAP)
			rc = kid_mem(k, name, pp->ty[0], node + pp->off[2]);
		else if ((rc = kid_mem(k, name, pp->ty[1], node + pp->off[2] + pp->off[4])) == 0 &&
			 kid_room(k))
			rc = kid_mem(k, name, pp->ty[2], node + pp->off[2] + pp->off[5]);
		if (rc < 0)
			return rc;
		node = next;
	}
	return 0;
}

/* --- std::pair, std::optional ---------------------------------------- */

static int pair_init(struct pp *pp)
{
	pp->none = 1;
	if (member(pp->t, "first", &pp->off[0], &pp->ty[0], 0) < 0 ||
	    member(pp->t, "second", &pp->off[1], &pp->ty[1], 0) < 0)
		return -1;
	return 0;
}

static int pair_summary(struct pp *pp)
{
	(void)pp;
	return 0;
}

static int pair_children(struct pp *pp, struct kids *k)
{
	int rc = kid_here(k, pp, "first", pp->ty[0], pp->off[0]);

	if (rc < 0)
		return rc;
	k->all = 1;
	return kid_here(k, pp, "second", pp->ty[1], pp->off[1]);
}

static int pp_init(struct pp *pp, struct ptd_values *v, struct vtype *s, const uint8_t *p,
		   uint64_t avail, int fmt, struct sbuf *b, int depth);
static void pp_fini(struct pp *pp);

static int optional_init(struct pp *pp)
{
	struct vtype *et, *vt, *cs;

	if (!pp->t->ntargs || !pp->t->targs[0] ||
	    path(pp->t, &pp->off[0], &et, "_M_payload", "_M_engaged", NULL) < 0 ||
	    ptd__vt_size(et) != 1 ||
	    path(pp->t, &pp->off[1], &vt, "_M_payload", "_M_payload", "_M_value", NULL) < 0)
		return -1;
	pp->ty[0] = vt;
	pp->x[0] = at(pp, pp->off[0], 1, 0) != 0; /* engaged */
	/* a contained object with children of its own shows them (gdb's
	 * default visualizer of the contained value) */
	cs = ptd__vt_strip(vt);
	if (pp->x[0] && cs && cs->kind == VT_STRUCT && cs->cplus && pp->off[1] <= pp->size) {
		struct pp *in = calloc(1, sizeof(*in));

		if (!in)
			return -1;
		if (pp_init(in, pp->v, cs, pp->p + pp->off[1], pp->size - pp->off[1], pp->fmt,
			    pp->b, pp->depth) == 0 &&
		    in->pr->children) {
			pp->inner = in;
			pp->hint = in->hint;
		} else {
			free(in);
		}
	}
	return 0;
}

/* The child of an optional or a variant holding a value of type
 * pp->ty[0] at @off (none when @empty): the inner printer's, or the
 * value itself. */
static int contained_children(struct pp *pp, struct kids *k, int empty, uint64_t off)
{
	if (empty) {
		k->all = 1;
		return 0;
	}
	if (pp->inner)
		return pp->inner->pr->children(pp->inner, k);
	if (!kid_room(k))
		return 0;
	k->all = 1;
	return kid_here(k, pp, "[contained value]", pp->ty[0], off);
}

/* The end of their summary: " containing " and the inner printer's. */
static int contained_summary(struct pp *pp)
{
	if (!pp->inner)
		return 0;
	/* (Python's "%s" of a summary that is None) */
	ptd__sb_add(pp->b, " containing %s", pp->inner->none ? "None" : "");
	return pp->inner->pr->summary(pp->inner);
}

static int optional_summary(struct pp *pp)
{
	char *n = type_recognized(pp->v, pp->t->targs[0]);

	ptd__sb_add(pp->b, "std::optional<%s>", n ? n : "?");
	free(n);
	if (!pp->x[0]) {
		ptd__sb_add(pp->b, " [no contained value]");
		return 0;
	}
	return contained_summary(pp);
}

static int optional_children(struct pp *pp, struct kids *k)
{
	return contained_children(pp, k, !pp->x[0], pp->off[1]);
}

/* --- std::stack, std::queue, std::priority_queue ---------------------- */

/* "std::stack wrapping: " and the underlying container's printer */
static int adaptor_init(struct pp *pp)
{
	struct vtype *ct, *cs;
	uint64_t off;
	struct pp *in;

	if (member(pp->t, "c", &off, &ct, 0) < 0 || !(cs = ptd__vt_strip(ct)) ||
	    cs->kind != VT_STRUCT || off > pp->size || !(in = calloc(1, sizeof(*in))))
		return -1;
	if (pp_init(in, pp->v, cs, pp->p + off, pp->size - off, pp->fmt, pp->b, pp->depth) < 0) {
		free(in);
		return -1;
	}
	pp->inner = in;
	pp->hint = in->hint;
	pp->none = in->none;
	return 0;
}

static int adaptor_summary(struct pp *pp)
{
	ptd__sb_add(pp->b, "%s wrapping: ", pp->name);
	return pp->inner->pr->summary(pp->inner);
}

static int adaptor_children(struct pp *pp, struct kids *k)
{
	if (!pp->inner->pr->children) {
		k->all = 1;
		return 0;
	}
	return pp->inner->pr->children(pp->inner, k);
}

/* --- std::forward_list ------------------------------------------------ */

static int flist_init(struct pp *pp)
{
	struct vtype *impl, *t;
	uint64_t o;

	if (!pp->t->ntargs || !pp->t->targs[0] || path(pp->t, &o, &impl, "_M_impl", NULL) < 0 ||
	    ptr_at(pp, &pp->off[0], NULL, "_M_impl", "_M_head", "_M_next", NULL) < 0)
		return -1;
	/* a node: its next pointer, then the value */
	pp->off[1] = node_storage(impl, "std::_Fwd_list_node<", 8);
	if (member(ptd__vt_strip(impl), "_M_head", &o, &t, 0) < 0 ||
	    member(t, "_M_next", &pp->off[2], &t, 0) < 0)
		return -1;
	pp->ty[0] = pp->t->targs[0];
	return 0;
}

static int flist_summary(struct pp *pp)
{
	if (!at(pp, pp->off[0], 8, 0))
		ptd__sb_add(pp->b, "empty ");
	ptd__sb_add(pp->b, "%s", pp->name);
	return 0;
}

static int flist_children(struct pp *pp, struct kids *k)
{
	uint64_t node = at(pp, pp->off[0], 8, 0), next;
	char name[32];
	int rc;

	while (kid_room(k)) {
		if (!node) {
			k->all = 1;
			return 0;
		}
		if ((rc = read_ptr(pp->v, node + pp->off[2], &next)) < 0) {
			kid_fetch_error(k, ptd_last_error(rc));
			return 0;
		}
		snprintf(name, sizeof(name), "[%d]", k->n);
		if ((rc = kid_mem(k, name, pp->ty[0], node + pp->off[1])) < 0)
			return rc;
		node = next;
	}
	return 0;
}

/* --- std::tuple ------------------------------------------------------ */

/* A tuple is a chain of _Tuple_impl<i, ...> bases, each with the next
 * and a _Head_base<i, T> holding element i (in _M_head_impl, or being
 * it when T is an empty class). */
static int tuple_init(struct pp *pp)
{
	(void)pp;
	return 0;
}

static int tuple_summary(struct pp *pp)
{
	ptd__sb_add(pp->b, pp->t->nmembers ? "%s containing" : "empty %s", pp->name);
	return 0;
}

static int tuple_children(struct pp *pp, struct kids *k)
{
	struct vtype *head = pp->t, *it, *s;
	uint64_t hoff = 0, ioff;
	char name[32];
	int rc, count = 0;

	if (head->nmembers == 1 ||
	    (head->nmembers == 2 && (s = ptd__vt_strip(head->members[1].type)) && s->name &&
	     !strncmp(s->name, "std::__tuple_base", 17))) {
		hoff = head->members[0].off;
		head = ptd__vt_strip(head->members[0].type);
	}
	while (kid_room(k)) {
		if (!head || head->kind != VT_STRUCT || !head->nmembers || head->nmembers > 2) {
			k->all = 1;
			return 0;
		}
		if (head->nmembers == 1) {
			it = head->members[0].type;
			ioff = hoff + head->members[0].off;
			head = NULL;
		} else {
			it = head->members[1].type;
			ioff = hoff + head->members[1].off;
			hoff += head->members[0].off;
			head = ptd__vt_strip(head->members[0].type);
		}
		s = ptd__vt_strip(it);
		if (s && s->kind == VT_STRUCT && s->nmembers && s->members[0].name &&
		    !strcmp(s->members[0].name, "_M_head_impl")) {
			ioff += s->members[0].off;
			it = s->members[0].type;
		}
		snprintf(name, sizeof(name), "[%d]", ++count);
		if ((rc = kid_here(k, pp, name, it, ioff)) < 0)
			return rc;
	}
	return 0;
}

/* --- std::variant ----------------------------------------------------- */

/* _M_u is a chain of unions: _M_first holds alternative 0 (in an
 * _Uninitialized<T>), _M_rest the union of the others; all start where
 * _M_u does.  x[0] the alternatives, x[1] the index, ty[0] the
 * contained one's type, off[0] where it is. */
static int variant_init(struct pp *pp)
{
	struct vtype *u, *t, *first, *it;
	uint64_t o, io;
	int n = 0;

	if (path(pp->t, &pp->off[0], &u, "_M_u", NULL) < 0 ||
	    path(pp->t, &io, &it, "_M_index", NULL) < 0 || ptd__vt_size(it) > 8)
		return -1;
	pp->x[1] = at(pp, io, ptd__vt_size(it), 0);
	for (t = u; n < 64 && member(t, "_M_first", &o, &first, 0) == 0; n++) {
		first = ptd__vt_strip(first);
		if (!first || !first->ntargs || !first->targs[0])
			return -1;
		if ((uint64_t)n == pp->x[1])
			pp->ty[0] = first->targs[0];
		if (member(t, "_M_rest", &o, &t, 0) < 0)
			break;
	}
	pp->x[0] = (uint64_t)n;
	pp->hint = HINT_ARRAY;
	if (pp->x[1] >= pp->x[0]) {
		pp->ty[0] = NULL;
		return 0;
	}
	/* a contained object with children of its own shows them */
	struct vtype *cs = ptd__vt_strip(pp->ty[0]);

	if (cs && cs->kind == VT_STRUCT && cs->cplus && pp->off[0] <= pp->size) {
		struct pp *in = calloc(1, sizeof(*in));

		if (!in)
			return -1;
		if (pp_init(in, pp->v, cs, pp->p + pp->off[0], pp->size - pp->off[0], pp->fmt, pp->b,
			    pp->depth) == 0 &&
		    in->pr->children) {
			pp->inner = in;
			pp->hint = in->hint;
		} else {
			free(in);
		}
	}
	return 0;
}

static int variant_summary(struct pp *pp)
{
	struct vtype *u, *t, *first;
	uint64_t o;
	int n = 0;

	ptd__sb_add(pp->b, "%s<", pp->name);
	path(pp->t, &o, &u, "_M_u", NULL);
	for (t = u; n < (int)pp->x[0] && member(t, "_M_first", &o, &first, 0) == 0; n++) {
		char *name = type_recognized(pp->v, ptd__vt_strip(first)->targs[0]);

		ptd__sb_add(pp->b, "%s%s", n ? ", " : "", name ? name : "?");
		free(name);
		if (member(t, "_M_rest", &o, &t, 0) < 0)
			break;
	}
	ptd__sb_add(pp->b, ">");
	if (!pp->ty[0]) {
		ptd__sb_add(pp->b, " [no contained value]");
		return 0;
	}
	ptd__sb_add(pp->b, " [index %d]", (int)pp->x[1]);
	return contained_summary(pp);
}

static int variant_children(struct pp *pp, struct kids *k)
{
	return contained_children(pp, k, !pp->ty[0], pp->off[0]);
}

/* --- std::bitset ------------------------------------------------------ */

/* _M_w: a word, or an array of them; off[0] where, x[0] the word's
 * size, x[1] how many (0: an empty bitset without _M_w) */
static int bitset_init(struct pp *pp)
{
	struct vtype *wt, *s;

	if (path(pp->t, &pp->off[0], &wt, "_M_w", NULL) < 0) {
		pp->x[1] = 0;
		return 0;
	}
	s = ptd__vt_strip(wt);
	if (s && s->kind == VT_ARRAY && s->count >= 0) {
		pp->x[0] = ptd__vt_size(s->target);
		pp->x[1] = (uint64_t)s->count;
	} else {
		pp->x[0] = ptd__vt_size(wt);
		pp->x[1] = 1;
	}
	if (!pp->x[0] || pp->x[0] > 8 || pp->off[0] + pp->x[0] * pp->x[1] > pp->size)
		return -1;
	return 0;
}

static int bitset_summary(struct pp *pp)
{
	ptd__sb_add(pp->b, "%s", pp->name);
	return 0;
}

static int bitset_children(struct pp *pp, struct kids *k)
{
	char name[32];
	int rc;

	for (uint64_t i = 0; i < pp->x[1]; i++) {
		uint64_t w = at(pp, pp->off[0] + i * pp->x[0], pp->x[0], 0);

		for (uint64_t bit = 0; w; bit++, w >>= 1) {
			int32_t one = 1;

			if (!(w & 1))
				continue;
			if (!kid_room(k))
				return 0;
			snprintf(name, sizeof(name), "[%llu]",
				 (unsigned long long)(i * pp->x[0] * 8 + bit));
			if (kid_open(k, name))
				continue;
			if ((rc = print_bytes(k->v, k->v->t_int, (const uint8_t *)&one, 4, 0, 0,
					      k->fmt, k->b, k->depth + 1)) < 0)
				return rc;
			kid_close(k);
		}
	}
	k->all = 1;
	return 0;
}

/* --- the iterators ------------------------------------------------------ */

/* What an iterator points to, printed as its summary (the printers'
 * str() of the value): x[0] what kind, ty[0] the value's type, off[0]
 * the member holding the pointer, x[1] where in a node the value is. */
static int iter_init(struct pp *pp, const char *member_name, uint64_t in_node)
{
	struct vtype *pt, *s;

	if (path(pp->t, &pp->off[0], &pt, member_name, NULL) < 0 || !(s = ptd__vt_strip(pt)) ||
	    s->kind != VT_PTR || pp->off[0] + 8 > pp->size)
		return -1;
	pp->x[1] = in_node;
	if (in_node == 0) {
		pp->ty[0] = s->target;
	} else {
		if (pp->t->ntargs && pp->t->targs[0]) {
			pp->ty[0] = pp->t->targs[0];
		} else {
			/* (GCC describes no template parameters for some:
			 * the type named by the first argument) */
			const char *a = strchr(pp->t->name, '<') + 1, *c;
			int nest = 0;
			char *arg;

			for (c = a; *c && (nest || (*c != ',' && *c != '>')); c++)
				nest += *c == '<' ? 1 : *c == '>' ? -1 : 0;
			if (!(arg = strndup(a, (size_t)(c - a))))
				return -1;
			pp->ty[0] = ptd__vt_lookup(pp->v, arg);
			free(arg);
		}
	}
	if (!pp->ty[0] || !ptd__vt_size(pp->ty[0]))
		return -1;
	return 0;
}

static int vec_iter_init(struct pp *pp)
{
	pp->x[0] = 0;
	return iter_init(pp, "_M_current", 0);
}

static int deque_iter_init(struct pp *pp)
{
	pp->x[0] = 1;
	return iter_init(pp, "_M_cur", 0);
}

static int list_iter_init(struct pp *pp)
{
	pp->x[0] = 2;
	return iter_init(pp, "_M_node", 16);
}

static int flist_iter_init(struct pp *pp)
{
	pp->x[0] = 3;
	return iter_init(pp, "_M_node", 8);
}

static int tree_iter_init(struct pp *pp)
{
	pp->x[0] = 4;
	return iter_init(pp, "_M_node", 32);
}

static int iter_summary(struct pp *pp)
{
	static const char *const cont[] = { "std::vector", "std::deque", "std::list",
					    "std::forward_list", "associative container" };
	uint64_t ptr = at(pp, pp->off[0], 8, 0), n = ptd__vt_size(pp->ty[0]);
	uint8_t *buf;
	int rc;

	if (!ptr) {
		ptd__sb_add(pp->b, "non-dereferenceable iterator for %s", cont[pp->x[0]]);
		return 0;
	}
	if (n > VAL_MAX_SIZE || !(buf = malloc(n))) {
		ptd__sb_add(pp->b, "<error: out of memory>");
		return 0;
	}
	if ((rc = ptd__mem_read(pp->v, ptr + pp->x[1], buf, n)) < 0) {
		/* (the printer's str() raised gdb.MemoryError) */
		ptd__sb_add(pp->b, "<error reading variable: %s>", ptd_last_error(rc));
		ptd_clear_error();
		free(buf);
		return 0;
	}
	/* (str() of the value: at the top) */
	print_bytes(pp->v, pp->ty[0], buf, n, ptr + pp->x[1], 1, pp->fmt, pp->b, 0);
	free(buf);
	return 0;
}

/* --- std::any ------------------------------------------------------- */

/* While the held object behind the pointer is printed (@on), the bytes
 * being printed are its own, where it is in memory. */
struct held {
	const uint8_t *buf;
	uint64_t addr;
	int in_mem;
};

static void any_held(struct pp *pp, struct held *h, int on)
{
	struct ptd_values *v = pp->v;

	if (!pp->own)
		return;
	if (on) {
		h->buf = v->print_buf;
		h->addr = v->print_addr;
		h->in_mem = v->print_in_mem;
		v->print_buf = pp->own;
		v->print_addr = pp->own_addr;
		v->print_in_mem = 1;
	} else {
		v->print_buf = h->buf;
		v->print_addr = h->addr;
		v->print_in_mem = h->in_mem;
	}
}

/* The held object's type is the argument of the class of the manager
 * function _M_manager points to (_Manager_internal<T>, keeping it in
 * the object's buffer, or _Manager_external<T>, behind _M_ptr).  ty[0]
 * the type (NULL: empty), x[0] 1 when external, off[0] the buffer,
 * off[1] the pointer. */
static int any_init(struct pp *pp)
{
	struct vtype *t;
	struct ptd_symbol sym;
	uint64_t moff, mgr;

	if (path(pp->t, &moff, &t, "_M_manager", NULL) < 0 || ptd__vt_size(t) != 8 ||
	    path(pp->t, &pp->off[0], &t, "_M_storage", "_M_buffer", NULL) < 0 ||
	    path(pp->t, &pp->off[1], &t, "_M_storage", "_M_ptr", NULL) < 0 ||
	    pp->off[1] + 8 > pp->size)
		return -1;
	if (!(mgr = at(pp, moff, 8, 0)))
		return 0;
	if (!pp->v->sym || ptd_symbols_lookup(pp->v->sym, mgr, &sym) < 0 || !sym.name)
		return -1;
	if (strstr(sym.name, "::_Manager_external<"))
		pp->x[0] = 1;
	else if (!strstr(sym.name, "::_Manager_internal<"))
		return -1;
	if (!(pp->ty[0] = ptd__fn_class_targ(pp->v, mgr)))
		return -1;
	/* a held object with children of its own shows them (gdb's
	 * default visualizer of the held value) */
	struct vtype *cs = ptd__vt_strip(pp->ty[0]);
	const uint8_t *bytes = pp->p + pp->off[0];
	uint64_t n = pp->size - pp->off[0];
	int rc;

	if (!cs || cs->kind != VT_STRUCT || !cs->cplus || pp->off[0] > pp->size ||
	    !ptd__stl_has_printer(cs))
		return 0;
	if (pp->x[0]) {
		n = ptd__vt_size(cs);
		pp->own_addr = at(pp, pp->off[1], 8, 0);
		if (!n || n > VAL_MAX_SIZE || !(pp->own = malloc(n)))
			return 0;
		if (ptd__mem_read(pp->v, pp->own_addr, pp->own, n) < 0) {
			ptd_clear_error();
			return 0;
		}
		bytes = pp->own;
	}
	struct pp *in = calloc(1, sizeof(*in));

	if (!in)
		return -1;
	struct held h = { 0 };

	any_held(pp, &h, 1);
	rc = pp_init(in, pp->v, cs, bytes, n, pp->fmt, pp->b, pp->depth);
	any_held(pp, &h, 0);
	if (rc == 0 && in->pr->children) {
		pp->inner = in;
		pp->hint = in->hint;
	} else {
		pp_fini(in);
		free(in);
	}
	return 0;
}

static int any_summary(struct pp *pp)
{
	char *n;

	if (!pp->ty[0]) {
		ptd__sb_add(pp->b, "%s [no contained value]", pp->name);
		return 0;
	}
	ptd__sb_add(pp->b, "%s containing ", pp->name);
	if (pp->inner) {
		struct held h = { 0 };
		int rc;

		if (pp->inner->none)
			ptd__sb_add(pp->b, "None");
		any_held(pp, &h, 1);
		rc = pp->inner->pr->summary(pp->inner);
		any_held(pp, &h, 0);
		return rc;
	}
	n = type_recognized(pp->v, pp->ty[0]);
	ptd__sb_add(pp->b, "%s", n ? n : "?");
	free(n);
	return 0;
}

static int any_children(struct pp *pp, struct kids *k)
{
	if (!pp->ty[0]) {
		k->all = 1;
		return 0;
	}
	if (pp->inner) {
		struct held h = { 0 };
		int rc;

		any_held(pp, &h, 1);
		rc = pp->inner->pr->children(pp->inner, k);
		any_held(pp, &h, 0);
		return rc;
	}
	if (!kid_room(k))
		return 0;
	k->all = 1;
	if (pp->x[0])
		return kid_mem(k, "[contained value]", pp->ty[0], at(pp, pp->off[1], 8, 0));
	return kid_here(k, pp, "[contained value]", pp->ty[0], pp->off[0]);
}

/* --- the table -------------------------------------------------------- */

static const struct printer printers[] = {
	{ "std::__cxx11::basic_string", string_init, string_summary, NULL },
	{ "std::vector", vector_init, vector_summary, vector_children },
	{ "std::unique_ptr", unique_init, unique_summary, smart_children },
	{ "std::shared_ptr", shared_init, shared_summary, smart_children },
	{ "std::weak_ptr", shared_init, shared_summary, smart_children },
	{ "std::map", map_init, tree_summary, tree_children },
	{ "std::multimap", map_init, tree_summary, tree_children },
	{ "std::set", tree_init, tree_summary, tree_children },
	{ "std::multiset", tree_init, tree_summary, tree_children },
	{ "std::__cxx11::list", list_init, list_summary, list_children },
	{ "std::list", list_init, list_summary, list_children },
	{ "std::deque", deque_init, deque_summary, deque_children },
	{ "std::unordered_map", umap_init, hash_summary, hash_children },
	{ "std::unordered_multimap", umap_init, hash_summary, hash_children },
	{ "std::unordered_set", hash_init, hash_summary, hash_children },
	{ "std::unordered_multiset", hash_init, hash_summary, hash_children },
	{ "std::pair", pair_init, pair_summary, pair_children },
	{ "std::optional", optional_init, optional_summary, optional_children },
	{ "std::stack", adaptor_init, adaptor_summary, adaptor_children },
	{ "std::queue", adaptor_init, adaptor_summary, adaptor_children },
	{ "std::priority_queue", adaptor_init, adaptor_summary, adaptor_children },
	{ "std::forward_list", flist_init, flist_summary, flist_children },
	{ "std::tuple", tuple_init, tuple_summary, tuple_children },
	{ "std::variant", variant_init, variant_summary, variant_children },
	{ "std::any", any_init, any_summary, any_children },
	{ "std::bitset", bitset_init, bitset_summary, bitset_children },
	{ "__gnu_cxx::__normal_iterator", vec_iter_init, iter_summary, NULL },
	{ "std::_Deque_iterator", deque_iter_init, iter_summary, NULL },
	{ "std::_List_iterator", list_iter_init, iter_summary, NULL },
	{ "std::_List_const_iterator", list_iter_init, iter_summary, NULL },
	{ "std::_Fwd_list_iterator", flist_iter_init, iter_summary, NULL },
	{ "std::_Fwd_list_const_iterator", flist_iter_init, iter_summary, NULL },
	{ "std::_Rb_tree_iterator", tree_iter_init, iter_summary, NULL },
	{ "std::_Rb_tree_const_iterator", tree_iter_init, iter_summary, NULL },
};

static const struct printer *find_printer(const char *name)
{
	for (size_t i = 0; i < sizeof(printers) / sizeof(printers[0]); i++)
		if (!strcmp(printers[i].name, name))
			return &printers[i];
	return NULL;
}

/* gdb's lookup: the class's name is a template's ("std::vector<...>",
 * nothing after the closing '>'), and the template's name is in the
 * table. */
static const struct printer *printer_of(struct vtype *s, char *base, size_t n)
{
	const char *lt;
	size_t len;

	if (s->name && !strcmp(s->name, "std::any") && n > 8) {
		/* (the one class printed that is not a template) */
		strcpy(base, s->name);
		return find_printer(base);
	}
	if (!s->name || (strncmp(s->name, "std::", 5) && strncmp(s->name, "__gnu_cxx::", 11)) ||
	    !(lt = strchr(s->name, '<')))
		return NULL;
	len = strlen(s->name);
	if (s->name[len - 1] != '>' || (size_t)(lt - s->name) >= n)
		return NULL;
	/* the argument list closes at the end, not before ("...>::node") */
	int nest = 0;

	for (const char *c = lt; *c; c++) {
		if (*c == '<')
			nest++;
		else if (*c == '>' && --nest == 0 && c[1])
			return NULL;
	}
	memcpy(base, s->name, (size_t)(lt - s->name));
	base[lt - s->name] = 0;
	return find_printer(base);
}

int ptd__stl_has_printer(struct vtype *t)
{
	char base[64];

	t = ptd__vt_strip(t);
	return t && t->kind == VT_STRUCT && t->cplus && printer_of(t, base, sizeof(base));
}

static int pp_init(struct pp *pp, struct ptd_values *v, struct vtype *s, const uint8_t *p,
		   uint64_t avail, int fmt, struct sbuf *b, int depth)
{
	memset(pp, 0, sizeof(*pp));
	pp->pr = printer_of(s, pp->name, sizeof(pp->name));
	if (!pp->pr || ptd__vt_size(s) > avail || s->declared)
		return -1;
	pp->v = v;
	pp->b = b;
	pp->t = s;
	pp->p = p;
	pp->size = ptd__vt_size(s);
	pp->fmt = fmt;
	pp->depth = depth;
	/* where the object is, as its printer may need (a list's head) */
	if (v->print_in_mem && v->print_buf && p >= v->print_buf) {
		pp->in_mem = 1;
		pp->addr = v->print_addr + (uint64_t)(p - v->print_buf);
	}
	return pp->pr->init(pp);
}

static void pp_fini(struct pp *pp)
{
	free(pp->own);
	pp->own = NULL;
	if (pp->inner)
		pp_fini(pp->inner);
	free(pp->inner);
	pp->inner = NULL;
}

int ptd__stl_print(struct ptd_values *v, struct vtype *s, const uint8_t *p, int fmt, struct sbuf *b,
		   int depth)
{
	struct pp pp;
	struct kids k;
	int rc;

	if (pp_init(&pp, v, s, p, ptd__vt_size(s), fmt, b, depth) < 0) {
		pp_fini(&pp);
		return 0;
	}
	if (pp.pr->summary(&pp) < 0 || !pp.pr->children) {
		pp_fini(&pp);
		return 1;
	}
	kids_init(&k, &pp);
	rc = pp.pr->children(&pp, &k);
	if (rc >= 0)
		kids_end(&k);
	pp_fini(&pp);
	return rc < 0 ? rc : 1;
}

/* --- for the xmethods (xmethods.c) ------------------------------------ */

int ptd__stl_member(struct vtype *t, const char *name, uint64_t *off, struct vtype **type)
{
	return member(t, name, off, type, 0);
}

int ptd__stl_find_class(struct vtype *t, const char *prefix, int members, uint64_t *off,
			struct vtype **out)
{
	return find_class(t, prefix, members, off, out, 0);
}

uint64_t ptd__stl_node_storage(struct vtype *impl, const char *node_prefix, uint64_t fallback)
{
	return node_storage(impl, node_prefix, fallback);
}
