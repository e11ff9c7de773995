/*
 * The member functions of the C++ library's containers and smart
 * pointers that gdb 13 evaluates without running the program: the
 * xmethods GCC ships beside its pretty printers (libstdcxx/v6/
 * xmethods.py), done here in C from the same layouts.  They are what a
 * user of gdb gets for "p v[1]", "p v.size()", "p m.empty()", "p *up",
 * "p sp->x" or "p up.get()" in a program built at -O0, whose inline
 * member functions have no out-of-line copy to call.
 *
 * Each gives what its Python worker returns, computed the same way (a
 * deque's size ignores where its first buffer starts, an index is not
 * checked but by at(), std::array's front() of an empty array is at
 * address 0), so the results and the memory errors are gdb's; at()'s
 * out-of-range error is the Python exception gdb reports.  Memory is
 * untrusted: a list's walk ends at a cycle or after a bounded number
 * of nodes.
 *
 * std::string's and std::wstring's size(), [], at() and the like have
 * no xmethod: gdb calls them in libstdc++, which has them compiled;
 * their results are computed here too, as the calls return them.  A
 * method without either is left to the caller (eval.c), which gives
 * gdb's error for it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/error.h"
#include "values/values_int.h"

/* the nodes a list's size() walks before saying the list loops */
#define LIST_WALK_MAX (1u << 24)

enum xm_class { XC_VECTOR, XC_ARRAY, XC_DEQUE, XC_LIST, XC_FLIST, XC_ASSOC, XC_UASSOC,
		XC_UNIQUE, XC_SHARED, XC_STRING };

/* the classes xmethods.py matches, by their template's name */
static const struct {
	const char *name;
	enum xm_class cls;
	const char *methods[7];
} xm_classes[] = {
	{ "std::vector", XC_VECTOR, { "size", "empty", "front", "back", "at", "operator[]" } },
	{ "std::array", XC_ARRAY, { "size", "empty", "front", "back", "at", "operator[]" } },
	{ "std::deque", XC_DEQUE, { "empty", "size", "front", "back", "operator[]", "at" } },
	{ "std::list", XC_LIST, { "empty", "size", "front", "back" } },
	{ "std::__cxx11::list", XC_LIST, { "empty", "size", "front", "back" } },
	{ "std::forward_list", XC_FLIST, { "empty", "front" } },
	{ "std::set", XC_ASSOC, { "size", "empty" } },
	{ "std::map", XC_ASSOC, { "size", "empty" } },
	{ "std::multiset", XC_ASSOC, { "size", "empty" } },
	{ "std::multimap", XC_ASSOC, { "size", "empty" } },
	{ "std::unordered_set", XC_UASSOC, { "size", "empty" } },
	{ "std::unordered_map", XC_UASSOC, { "size", "empty" } },
	{ "std::unordered_multiset", XC_UASSOC, { "size", "empty" } },
	{ "std::unordered_multimap", XC_UASSOC, { "size", "empty" } },
	{ "std::unique_ptr", XC_UNIQUE, { "get", "operator->", "operator*", "operator[]" } },
	{ "std::shared_ptr", XC_SHARED,
	  { "get", "operator->", "operator*", "operator[]", "use_count", "unique" } },
	/* not an xmethod: gdb calls these in the C++ library, which has
	 * them for std::string and std::wstring; their results, computed */
	{ "std::__cxx11::basic_string", XC_STRING,
	  { "size", "length", "empty", "capacity", "operator[]", "at", "front" } },
	{ "std::__cxx11::basic_string", XC_STRING, { "back", "data", "c_str" } },
};

/* One call being evaluated. */
struct xm {
	struct ptd_values *v;
	struct vtype *t; /* the class, typedefs stripped */
	struct ptd_value *obj;
	enum xm_class cls;
	const char *method;
	int has_index, float_index;
	int64_t index;
};

static int oom(void)
{
	return ptd__err(-ptde_nomem, "out of memory");
}

/* Reads memory as the evaluation does: zeros when only the type is
 * wanted (whatis, ptype, sizeof). */
static int rd(struct ptd_values *v, uint64_t addr, void *buf, size_t n)
{
	if (v->type_only) {
		memset(buf, 0, n);
		return 0;
	}
	return ptd__mem_read(v, addr, buf, n);
}

static int rd_ptr(struct ptd_values *v, uint64_t addr, uint64_t *out)
{
	*out = 0;
	return rd(v, addr, out, 8);
}

/* A member path of the class ("_M_impl", "_M_start", NULL): its offset
 * in the object and its type. */
static int path(struct vtype *t, uint64_t *off, struct vtype **type, const char *const *names)
{
	uint64_t total = 0, o;

	for (; *names; names++) {
		if (ptd__stl_member(t, *names, &o, &t) < 0)
			return -1;
		total += o;
	}
	*off = total;
	*type = t;
	return 0;
}

/* The integer at a member path of the object (a pointer or a count). */
static int get(struct xm *x, uint64_t *out, struct vtype **type, const char *const *names)
{
	struct vtype *t, *s;
	uint64_t off, size;

	if (path(x->t, &off, &t, names) < 0)
		return ptd__err(-ptde_invalid, "There is no member named %s.", names[0]);
	s = ptd__vt_strip(t);
	size = ptd__vt_size(t);
	if (!s || size > 8 || !size || off + size > ptd__vt_size(x->obj->type))
		return ptd__err(-ptde_invalid, "There is no member named %s.", names[0]);
	*out = ptd__bits(x->obj->buf + off, size, s->is_signed);
	if (type)
		*type = t;
	return 0;
}

#define PATH(...) ((const char *const[]){ __VA_ARGS__, NULL })

/* The object's address (for a list's head node): gdb's error when it is
 * not in memory. */
static int obj_addr(struct xm *x, uint64_t *addr)
{
	if (x->obj->lval != LV_MEM)
		return ptd__err(-ptde_invalid, "Attempt to take address of value not located in memory.");
	*addr = x->obj->addr;
	return 0;
}

/* An lvalue of type @t at @addr, read when printed. */
static int lval_at(struct vtype *t, uint64_t addr, struct ptd_value **out)
{
	struct ptd_value *r = ptd__val_new(t);

	if (!r)
		return oom();
	r->lval = LV_MEM;
	r->addr = addr;
	r->lazy = 1;
	*out = r;
	return 1;
}

static int int_val(struct vtype *t, uint64_t n, struct ptd_value **out)
{
	struct ptd_value *r = ptd__val_new(t);
	uint64_t sz = ptd__vt_size(t);

	if (!r)
		return oom();
	memcpy(r->buf, &n, sz < 8 ? sz : 8);
	*out = r;
	return 1;
}

static int bool_val(struct xm *x, int b, struct ptd_value **out)
{
	return int_val(x->v->t_cxxbool, (uint64_t)!!b, out);
}

/* The type of a size: std::size_t, as the workers' get_result_type
 * says (what whatis shows); the value printed is what the worker
 * computed, of @actual (a pointer difference is a long). */
static struct vtype *size_type(struct xm *x, struct vtype *actual)
{
	struct vtype *t;

	if (x->v->type_only || !actual) {
		/* (named in its namespace, as gdb names it) */
		t = ptd__vt_new(x->v, VT_TYPEDEF, "std::size_t", 0);
		if (!t)
			return x->v->t_ulong;
		t->target = x->v->t_ulong;
		t->size = ptd__vt_size(t->target);
		return t;
	}
	return actual;
}

/* Python's // and % of an integer by a positive one (floor division). */
static int64_t floordiv(int64_t a, int64_t b)
{
	int64_t q = a / b;

	return (a % b != 0 && a < 0) ? q - 1 : q;
}

static int64_t pymod(int64_t a, int64_t b)
{
	int64_t m = a % b;

	return m < 0 ? m + b : m;
}

static int index_error(const char *what, int64_t i, int64_t size)
{
	return ptd__err(-ptde_invalid,
			"Python Exception <class 'IndexError'>: %s index \"%lld\" should not be >= %lld.\n"
			"Error while executing Python code.",
			what, (long long)i, (long long)size);
}

/* --- std::vector ------------------------------------------------------ */

static int vector_call(struct xm *x, struct ptd_value **out)
{
	struct vtype *et = x->t->ntargs ? ptd__vt_strip(x->t->targs[0]) : NULL, *pt, *s;
	uint64_t start, finish;
	int64_t size, i = x->index;
	int rc, isbool = et && et->kind == VT_INT && et->is_bool;
	uint64_t word = 0, wsize = 8, off;

	if (isbool) {
		struct vtype *wt;
		uint64_t fo;

		if ((rc = get(x, &start, &pt, PATH("_M_impl", "_M_start", "_M_p"))) < 0 ||
		    (rc = get(x, &finish, NULL, PATH("_M_impl", "_M_finish", "_M_p"))) < 0 ||
		    (rc = get(x, &fo, NULL, PATH("_M_impl", "_M_finish", "_M_offset"))) < 0)
			return rc;
		s = ptd__vt_strip(pt);
		wt = s && s->kind == VT_PTR ? s->target : NULL;
		wsize = wt ? ptd__vt_size(wt) : 8;
		if (!wsize || wsize > 8)
			wsize = 8;
		size = ((int64_t)(finish - start) / (int64_t)wsize) * (int64_t)wsize * 8 + (int64_t)fo;
	} else {
		if ((rc = get(x, &start, &pt, PATH("_M_impl", "_M_start"))) < 0 ||
		    (rc = get(x, &finish, NULL, PATH("_M_impl", "_M_finish"))) < 0)
			return rc;
		s = ptd__vt_strip(pt);
		if (!s || s->kind != VT_PTR || !s->target || !ptd__vt_size(s->target))
			return ptd__err(-ptde_invalid, "There is no member named _M_start.");
		et = s->target;
		size = (int64_t)(finish - start) / (int64_t)ptd__vt_size(et);
	}
	if (!strcmp(x->method, "size"))
		return int_val(size_type(x, x->v->t_long), (uint64_t)size, out);
	if (!strcmp(x->method, "empty"))
		return bool_val(x, size == 0, out);
	if (!strcmp(x->method, "front"))
		i = 0;
	else if (!strcmp(x->method, "back"))
		i = size - 1;
	else if (!strcmp(x->method, "at") && i >= size)
		return index_error("Vector", i, size);
	if (!isbool)
		return lval_at(et, start + (uint64_t)i * ptd__vt_size(et), out);
	off = start + (uint64_t)floordiv(i, (int64_t)wsize * 8) * wsize;
	if ((rc = rd(x->v, off, &word, wsize)) < 0)
		return rc;
	return bool_val(x, (word >> pymod(i, (int64_t)wsize * 8)) & 1, out);
}

/* --- std::array -------------------------------------------------------- */

static int array_call(struct xm *x, struct ptd_value **out)
{
	struct vtype *vt = x->t->ntargs ? x->t->targs[0] : NULL, *et, *s;
	uint64_t off, n = 0;
	int64_t i = x->index;

	if (!vt || path(x->t, &off, &et, PATH("_M_elems")) < 0)
		return 0;
	s = ptd__vt_strip(et);
	if (s && s->kind == VT_ARRAY && s->count > 0)
		n = (uint64_t)s->count;
	if (!strcmp(x->method, "size"))
		return int_val(size_type(x, NULL), n, out);
	if (!strcmp(x->method, "empty"))
		return bool_val(x, n == 0, out);
	if (!strcmp(x->method, "front"))
		i = 0;
	else if (!strcmp(x->method, "back"))
		i = (int64_t)n - 1;
	else if (!strcmp(x->method, "at") && i >= (int64_t)n)
		return index_error("Array", i, (int64_t)n);
	if (!n && strcmp(x->method, "at"))
		return lval_at(vt, 0, out); /* the worker's null_value() */
	uint64_t esz = ptd__vt_size(s->target);

	if (x->obj->lval == LV_MEM)
		return lval_at(s->target, x->obj->addr + off + (uint64_t)i * esz, out);
	/* an array in the history: its bytes */
	if (i < 0 || (uint64_t)i >= n)
		return ptd__err(-ptde_invalid, "no such vector element");
	struct ptd_value *r = ptd__val_new(s->target);

	if (!r)
		return oom();
	memcpy(r->buf, x->obj->buf + off + (uint64_t)i * esz, esz);
	*out = r;
	return 1;
}

/* --- std::deque -------------------------------------------------------- */

static int deque_call(struct xm *x, struct ptd_value **out)
{
	struct vtype *vt = x->t->ntargs ? x->t->targs[0] : NULL, *pt, *s;
	uint64_t snode, fnode, scur, fcur, ffirst, esz, p;
	int64_t bs, size, i = x->index;
	int rc;

	if ((rc = get(x, &snode, NULL, PATH("_M_impl", "_M_start", "_M_node"))) < 0 ||
	    (rc = get(x, &scur, &pt, PATH("_M_impl", "_M_start", "_M_cur"))) < 0 ||
	    (rc = get(x, &fnode, NULL, PATH("_M_impl", "_M_finish", "_M_node"))) < 0 ||
	    (rc = get(x, &fcur, NULL, PATH("_M_impl", "_M_finish", "_M_cur"))) < 0 ||
	    (rc = get(x, &ffirst, NULL, PATH("_M_impl", "_M_finish", "_M_first"))) < 0)
		return rc;
	s = ptd__vt_strip(pt);
	if (!vt || !s || s->kind != VT_PTR || !(esz = ptd__vt_size(s->target)))
		return 0;
	vt = s->target;
	bs = esz < 512 ? (int64_t)(512 / esz) : 1;
	size = (int64_t)(fnode - snode) / 8 * bs + (int64_t)(fcur - ffirst) / (int64_t)esz;
	if (!strcmp(x->method, "size"))
		return int_val(size_type(x, x->v->t_long), (uint64_t)size, out);
	if (!strcmp(x->method, "empty"))
		return bool_val(x, scur == fcur, out);
	if (!strcmp(x->method, "front"))
		return lval_at(vt, scur, out);
	if (!strcmp(x->method, "back")) {
		if (fcur != ffirst)
			return lval_at(vt, fcur - esz, out);
		if ((rc = rd_ptr(x->v, fnode - 8, &p)) < 0)
			return rc;
		return lval_at(vt, p + (uint64_t)(bs - 1) * esz, out);
	}
	if (!strcmp(x->method, "at") && i >= size)
		return index_error("Deque", i, size);
	if (x->float_index)
		/* (the worker's idx % bufsize of a gdb value) */
		return ptd__err(-ptde_invalid,
				"Python Exception <class 'gdb.error'>: Integer-only operation on floating "
				"point number.\nError while executing Python code.");
	/* the node by Python's floor division, the element by C's % of a
	 * gdb value */
	if ((rc = rd_ptr(x->v, snode + 8 * (uint64_t)floordiv(i, bs), &p)) < 0)
		return rc;
	return lval_at(vt, p + (uint64_t)(i % bs) * esz, out);
}

/* --- std::list, std::forward_list -------------------------------------- */

static int list_call(struct xm *x, struct ptd_value **out)
{
	struct vtype *vt = x->t->ntargs ? x->t->targs[0] : NULL, *impl;
	uint64_t ioff, hoff, noff, next, prev, head = 0, store, n = 0;
	int rc;

	if (!vt || path(x->t, &ioff, &impl, PATH("_M_impl")) < 0 ||
	    path(x->t, &hoff, &impl, PATH("_M_impl", "_M_node")) < 0 ||
	    ptd__stl_member(impl, "_M_next", &noff, &impl) < 0)
		return 0;
	if ((rc = get(x, &next, NULL, PATH("_M_impl", "_M_node", "_M_next"))) < 0 ||
	    (rc = get(x, &prev, NULL, PATH("_M_impl", "_M_node", "_M_prev"))) < 0)
		return rc;
	path(x->t, &ioff, &impl, PATH("_M_impl"));
	store = ptd__stl_node_storage(impl, "std::_List_node<", 16);
	if (!strcmp(x->method, "front"))
		return lval_at(vt, next + store, out);
	if (!strcmp(x->method, "back"))
		return lval_at(vt, prev + store, out);
	if ((rc = obj_addr(x, &head)) < 0)
		return rc;
	head += hoff;
	if (!strcmp(x->method, "empty"))
		return bool_val(x, next == head, out);
	/* (gdb's walk never ends on a list whose links go round: Brent's
	 * cycle check, a node kept at each power of two, ends ours) */
	uint64_t kept = next, power = 1, since = 0;

	/* (whatis/ptype: the type only, no walk over memory read as zeros) */
	while (next != head && !x->v->type_only) {
		if (++n > LIST_WALK_MAX)
			return ptd__err(-ptde_invalid,
					"the list's links do not end (a walk of more than %u nodes)",
					LIST_WALK_MAX);
		if ((rc = rd_ptr(x->v, next + noff, &next)) < 0)
			return rc;
		if (next == kept && next != head)
			return ptd__err(-ptde_invalid,
					"the list's links do not end (they come back to node 0x%llx)",
					(unsigned long long)kept);
		if (++since == power) {
			kept = next;
			power *= 2;
			since = 0;
		}
	}
	return int_val(size_type(x, x->v->t_long), n, out);
}

static int flist_call(struct xm *x, struct ptd_value **out)
{
	struct vtype *vt = x->t->ntargs ? x->t->targs[0] : NULL, *impl;
	uint64_t ioff, next;
	int rc;

	if (!vt || path(x->t, &ioff, &impl, PATH("_M_impl")) < 0)
		return 0;
	if ((rc = get(x, &next, NULL, PATH("_M_impl", "_M_head", "_M_next"))) < 0)
		return rc;
	if (!strcmp(x->method, "empty"))
		return bool_val(x, next == 0, out);
	return lval_at(vt, next + ptd__stl_node_storage(impl, "std::_Fwd_list_node<", 8), out);
}

/* --- the associative containers ----------------------------------------- */

static int assoc_call(struct xm *x, struct ptd_value **out)
{
	struct vtype *t;
	uint64_t n;
	int rc = x->cls == XC_UASSOC ? get(x, &n, &t, PATH("_M_h", "_M_element_count"))
				     : get(x, &n, &t, PATH("_M_t", "_M_impl", "_M_node_count"));

	if (rc < 0)
		return rc;
	if (!strcmp(x->method, "empty"))
		return bool_val(x, n == 0, out);
	return int_val(size_type(x, NULL), n, out);
}

/* --- std::unique_ptr, std::shared_ptr ----------------------------------- */

/* The pointer a smart pointer holds, as a value of its member's type
 * (a shared_ptr's "element_type *", named in its scope as gdb names it). */
static int smart_ptr(struct xm *x, struct ptd_value **out)
{
	struct vtype *t, *s, *head = NULL;
	uint64_t off, o1 = 0, o2;

	if (x->cls == XC_UNIQUE) {
		/* _M_t's tuple, its _Head_base<0, pointer>'s _M_head_impl */
		if (!x->t->nmembers ||
		    ptd__stl_find_class(x->t->members[0].type, "std::_Head_base<0,", 1, &o1, &head) <
			    0 ||
		    ptd__stl_member(head, "_M_head_impl", &o2, &t) < 0)
			return 0;
		off = x->t->members[0].off + o1 + o2;
	} else {
		uint64_t bo;
		struct vtype *base;

		if (path(x->t, &off, &t, PATH("_M_ptr")) < 0)
			return 0;
		s = ptd__vt_strip(t);
		/* element_type is a typedef of the __shared_ptr base */
		if (t->kind == VT_PTR && s->target && s->target->kind == VT_TYPEDEF &&
		    s->target->name && !strchr(s->target->name, ':') &&
		    ptd__stl_find_class(x->t, "std::__shared_ptr<", 0, &bo, &base) == 0 && base->name) {
			struct vtype *td = ptd__vt_new(x->v, VT_TYPEDEF, NULL, 0);
			char *n = NULL;

			if (!td || asprintf(&n, "%s::%s", base->name, s->target->name) < 0)
				return oom();
			td->name = n;
			td->target = s->target->target;
			td->size = ptd__vt_size(td->target);
			t = ptd__vt_ptr(x->v, td);
			if (!t)
				return oom();
		}
	}
	s = ptd__vt_strip(t);
	if (!s || s->kind != VT_PTR || off + 8 > ptd__vt_size(x->obj->type))
		return 0;
	struct ptd_value *r = ptd__val_new(t);

	if (!r)
		return oom();
	memcpy(r->buf, x->obj->buf + off, 8);
	*out = r;
	return 1;
}

static int smart_call(struct xm *x, struct ptd_value **out)
{
	struct ptd_value *p = NULL;
	struct vtype *s, *et;
	uint64_t addr;
	int rc;

	if ((rc = smart_ptr(x, &p)) <= 0)
		return rc;
	if (!strcmp(x->method, "get") || !strcmp(x->method, "operator->")) {
		*out = p;
		return 1;
	}
	s = ptd__vt_strip(p->type);
	addr = ptd__bits(p->buf, 8, 0);
	ptd_value_free(p);
	et = s->target;
	if (!et || ptd__vt_strip(et)->kind == VT_VOID)
		return ptd__err(-ptde_invalid, "Attempt to take contents of a non-pointer value.");
	if (!strcmp(x->method, "operator*"))
		return lval_at(et, addr, out);
	return lval_at(et, addr + (uint64_t)x->index * ptd__vt_size(et), out);
}

/* --- std::string, std::wstring ------------------------------------------ */

/* A typedef named @name of @target, made here: what the library's
 * declarations call the type (gdb names a result by them). */
static struct vtype *named(struct xm *x, const char *name, struct vtype *target)
{
	struct vtype *t = ptd__vt_new(x->v, VT_TYPEDEF, name, 0);

	if (!t)
		return NULL;
	t->target = target;
	t->size = ptd__vt_size(target);
	return t;
}

static int string_call(struct xm *x, struct ptd_value **out)
{
	struct vtype *ct = ptd__vt_strip(x->t->targs[0]), *t, *ref;
	uint64_t ptr, len, loff, esz = ptd__vt_size(ct);
	int64_t i = x->index;
	char *n = NULL, *cn;
	int rc;

	if ((rc = get(x, &ptr, NULL, PATH("_M_dataplus", "_M_p"))) < 0 ||
	    (rc = get(x, &len, NULL, PATH("_M_string_length"))) < 0)
		return rc;
	if (!esz)
		return 0;
	if (!strcmp(x->method, "size") || !strcmp(x->method, "length") ||
	    !strcmp(x->method, "capacity")) {
		if (!strcmp(x->method, "capacity")) {
			/* the object's own buffer holds 15 bytes' worth */
			/* (the anonymous union after the length: the local
			 * buffer or _M_allocated_capacity) */
			if (path(x->t, &loff, &t, PATH("_M_string_length")) < 0 ||
			    (loff += 8) + 8 > ptd__vt_size(x->obj->type))
				return 0;
			if (x->obj->lval == LV_MEM && ptr == x->obj->addr + loff)
				len = 15 / esz;
			else
				len = ptd__bits(x->obj->buf + loff, 8, 0);
		}
		cn = ptd__vt_name(x->t, "");
		if (!cn || asprintf(&n, "%s::size_type", cn) < 0) {
			free(cn);
			return oom();
		}
		free(cn);
		t = named(x, n, x->v->t_ulong);
		free(n);
		return t ? int_val(t, len, out) : oom();
	}
	if (!strcmp(x->method, "empty"))
		return bool_val(x, len == 0, out);
	if (!strcmp(x->method, "data") || !strcmp(x->method, "c_str")) {
		struct vtype *c = ptd__vt_new(x->v, VT_QUAL, "const", 0);

		if (!c)
			return oom();
		c->target = x->t->targs[0];
		c->size = esz;
		t = ptd__vt_ptr(x->v, c);
		return t ? int_val(t, ptr, out) : oom();
	}
	if (!strcmp(x->method, "front"))
		i = 0;
	else if (!strcmp(x->method, "back"))
		i = (int64_t)len - 1;
	else if (!strcmp(x->method, "at") && (uint64_t)i >= len && !x->v->type_only) {
		/* it throws std::out_of_range, which gdb stops the call at
		 * (not asked for the type only: whatis evaluates no call) */
		cn = ptd__vt_name(x->t, "");
		rc = ptd__err(-ptde_invalid,
				"The program being debugged entered a std::terminate call, most likely\n"
				"caused by an unhandled C++ exception.  GDB blocked this call in order\n"
				"to prevent the program from being terminated, and has restored the\n"
				"context to its original state before the call.\n"
				"To change this behaviour use \"set unwind-on-terminating-exception off\".\n"
				"Evaluation of the expression containing the function "
				"(%s::at(unsigned long))\n"
				"will be abandoned.",
				cn ? cn : "?");
		free(cn);
		return rc;
	}
	/* a reference to the character, named as the library declares it */
	if (asprintf(&n, "__gnu_cxx::__alloc_traits<std::allocator<%s>, %s>::value_type", ct->name,
		     ct->name) < 0)
		return oom();
	t = named(x, n, x->t->targs[0]);
	free(n);
	if (!t || !(ref = ptd__vt_new(x->v, VT_REF, NULL, 8)))
		return oom();
	ref->target = t;
	struct ptd_value *rv = ptd__val_new(ref), *r;
	uint64_t addr = ptr + (uint64_t)i * esz;

	if (!rv)
		return oom();
	memcpy(rv->buf, &addr, 8);
	r = ptd__val_referent(rv, addr);
	ptd_value_free(rv);
	if (!r)
		return oom();
	*out = r;
	return 1;
}

/* --- matching and calling ------------------------------------------------ */

/* The class's entry in xm_classes when @method is one of its xmethods
 * (the matchers' test of the class's name: the template's name, then
 * its arguments to the end), else -1. */
static int xm_find(struct vtype *t, const char *method)
{
	const char *lt;

	if (!t || t->kind != VT_STRUCT || !t->name || !(lt = strchr(t->name, '<')) ||
	    t->name[strlen(t->name) - 1] != '>')
		return -1;
	for (size_t i = 0; i < sizeof(xm_classes) / sizeof(xm_classes[0]); i++) {
		if (strlen(xm_classes[i].name) != (size_t)(lt - t->name) ||
		    strncmp(t->name, xm_classes[i].name, (size_t)(lt - t->name)))
			continue;
		for (int k = 0; k < 7 && xm_classes[i].methods[k]; k++)
			if (!strcmp(xm_classes[i].methods[k], method))
				return (int)i;
	}
	return -1;
}

/* Whether a smart pointer's xmethod applies to its kind: operator[]
 * only to unique_ptr<T[]>, operator* and -> only to the others (the
 * workers' _supports). */
static int smart_supports(struct vtype *t, const char *method)
{
	struct vtype *et = t->ntargs ? ptd__vt_strip(t->targs[0]) : NULL;
	int is_array = et && et->kind == VT_ARRAY;

	if (!et)
		return 0;
	if (!strcmp(method, "operator[]"))
		return is_array;
	if (!strcmp(method, "operator*") || !strcmp(method, "operator->"))
		return !is_array;
	return 1;
}

/* The worker class's name and its argument's, for Python's TypeError
 * when an index is missing. */
static void worker_name(enum xm_class cls, const char *method, char *buf, size_t n)
{
	static const char *const prefix[] = { "Vector", "Array", "Deque", "List", "ForwardList",
					      "AssociativeContainer", "AssociativeContainer",
					      "UniquePtr", "SharedPtr" };

	snprintf(buf, n, "%s%sWorker", prefix[cls], !strcmp(method, "at") ? "At" : "Subscript");
}

int ptd__xm_has(struct vtype *t, const char *method)
{
	int i;

	t = ptd__vt_strip(t);
	if ((i = xm_find(t, method)) < 0)
		return 0;
	if (xm_classes[i].cls == XC_UNIQUE || xm_classes[i].cls == XC_SHARED)
		return smart_supports(t, method);
	if (xm_classes[i].cls == XC_STRING) {
		/* the library's own: of char and wchar_t */
		struct vtype *ct = t->ntargs ? ptd__vt_strip(t->targs[0]) : NULL;

		return ct && ct->name && (!strcmp(ct->name, "char") || !strcmp(ct->name, "wchar_t"));
	}
	return 1;
}

/* The type the worker's get_result_type declares, for whatis and ptype
 * (gdb evaluates for the type only there), where it is not the
 * value's: a size computed as a long, a smart pointer's "Pt *" where
 * the member says element_type, a string's reference typedef. */
static int whatis_type(struct xm *x, struct ptd_value *r)
{
	const char *m = x->method;
	struct vtype *et = x->t->ntargs ? x->t->targs[0] : NULL, *s;
	char *cn, *n = NULL;

	if (x->cls == XC_STRING) {
		if (strcmp(m, "operator[]") && strcmp(m, "at") && strcmp(m, "front") &&
		    strcmp(m, "back"))
			return 1;
		if (!r->ref_type || !(cn = ptd__vt_name(x->t, "")))
			return 1;
		if (asprintf(&n, "%s::reference", cn) < 0)
			n = NULL;
		free(cn);
		r->whatis_type = n ? named(x, n, r->ref_type) : NULL;
		free(n);
		return 1;
	}
	if (!strcmp(m, "size") &&
	    (x->cls == XC_VECTOR || x->cls == XC_DEQUE || x->cls == XC_LIST)) {
		int saved = x->v->type_only;

		x->v->type_only = 1;
		r->whatis_type = size_type(x, NULL);
		x->v->type_only = saved;
		return 1;
	}
	if ((x->cls == XC_UNIQUE || x->cls == XC_SHARED) && et) {
		s = ptd__vt_strip(et);
		if (s && s->kind == VT_ARRAY)
			et = s->target;
		if (!strcmp(m, "get") || !strcmp(m, "operator->"))
			r->whatis_type = ptd__vt_ptr(x->v, et);
		else
			r->whatis_type = et;
	}
	return 1;
}

/* The class's name in gdb's overload errors (the strings by their
 * typedefs' names, as its type printers give them), malloc'ed. */
static char *class_name(struct xm *x)
{
	if (x->cls == XC_STRING)
		return strdup(!strcmp(ptd__vt_strip(x->t->targs[0])->name, "char") ? "std::string"
										    : "std::wstring");
	return ptd__vt_name(x->t, "");
}

int ptd__xm_call(struct ptd_values *v, struct ptd_value *obj, const char *method,
		 struct ptd_value **args, int nargs, struct ptd_value **out)
{
	struct xm x = { .v = v, .obj = obj, .method = method };
	int i, rc, want;
	char *cn;

	*out = NULL;
	x.t = ptd__vt_strip(obj->type);
	if (!ptd__xm_has(x.t, method))
		return 0;
	i = xm_find(x.t, method);
	x.cls = xm_classes[i].cls;
	if (x.cls == XC_SHARED && (!strcmp(method, "use_count") || !strcmp(method, "unique")))
		/* (the worker's constructor calls itself) */
		return ptd__err(-ptde_invalid,
				"Python Exception <class 'RecursionError'>: maximum recursion depth exceeded\n"
				"Error while looking for matching xmethod workers defined in Python.");
	want = !strcmp(method, "at") || !strcmp(method, "operator[]");
	if (x.cls == XC_STRING && nargs < want)
		return ptd__err(-ptde_invalid, "Too few arguments in function call.");
	if (nargs > want) {
		cn = class_name(&x);
		rc = !strcmp(method, "operator[]")
			     ? ptd__err(-ptde_invalid,
					"Cannot resolve function operator[] to any overloaded instance")
			     : ptd__err(-ptde_invalid,
					"Cannot resolve method %s::%s to any overloaded instance",
					cn ? cn : "?", method);
		free(cn);
		return rc;
	}
	if (want && nargs < 1) {
		char wn[64];

		worker_name(x.cls, method, wn, sizeof(wn));
		return ptd__err(-ptde_invalid,
				"Python Exception <class 'TypeError'>: %s.__call__() missing 1 required "
				"positional argument: '%s'\nError while executing Python code.",
				wn, !strcmp(method, "operator[]") && x.cls != XC_ARRAY &&
						    x.cls != XC_UNIQUE && x.cls != XC_SHARED
					    ? "subscript"
					    : "index");
	}
	if (want) {
		struct ptd_value *a = args[0];
		struct vtype *as;

		if ((rc = ptd__val_fetch(v, a)) < 0)
			return rc;
		as = ptd__vt_strip(a->type);
		if (as && (as->kind == VT_INT || as->kind == VT_ENUM)) {
			x.index = (int64_t)ptd__bits(a->buf, ptd__vt_size(as), as->is_signed);
		} else if (as && as->kind == VT_FLOAT && ptd__vt_size(as) == 8) {
			double d;

			memcpy(&d, a->buf, 8);
			x.index = (int64_t)d;
			x.float_index = 1;
		} else if (as && as->kind == VT_FLOAT && ptd__vt_size(as) == 4) {
			float f;

			memcpy(&f, a->buf, 4);
			x.index = (int64_t)f;
			x.float_index = 1;
		} else {
			cn = class_name(&x);
			rc = !strcmp(method, "operator[]")
				     ? ptd__err(-ptde_invalid, "Cannot resolve function operator[] to any "
							       "overloaded instance")
				     : ptd__err(-ptde_invalid,
						"Cannot resolve method %s::%s to any overloaded instance",
						cn ? cn : "?", method);
			free(cn);
			return rc;
		}
		x.has_index = 1;
	}
	if ((rc = ptd__val_fetch(v, obj)) < 0)
		return rc;
	switch (x.cls) {
	case XC_VECTOR: rc = vector_call(&x, out); break;
	case XC_ARRAY: rc = array_call(&x, out); break;
	case XC_DEQUE: rc = deque_call(&x, out); break;
	case XC_LIST: rc = list_call(&x, out); break;
	case XC_FLIST: rc = flist_call(&x, out); break;
	case XC_ASSOC:
	case XC_UASSOC: rc = assoc_call(&x, out); break;
	case XC_UNIQUE:
	case XC_SHARED: rc = smart_call(&x, out); break;
	case XC_STRING: rc = string_call(&x, out); break;
	}
	if (rc > 0 && *out && (rc = whatis_type(&x, *out)) < 0) {
		ptd_value_free(*out);
		*out = NULL;
	}
	return rc;
}
