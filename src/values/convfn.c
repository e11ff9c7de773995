/*
 * gdb's own convenience functions and computed convenience variables:
 * $_streq, $_strlen, $_memeq, $_regex, $_as_string, the $_caller_is
 * family (gdb 13 writes those in Python, so a wrong argument gets
 * Python's exception as gdb prints it), $_isvoid, $_gdb_setting and
 * $_gdb_setting_str; $_siginfo (gdb's struct siginfo over the kernel's
 * bytes), $_thread, $_gthread and $_inferior.  What only the front end
 * knows (threads, the stop's signal, frames above the selected one,
 * settings) comes through its hooks (struct ptd_values_hooks).
 */
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/error.h"
#include "values/values_int.h"

/* A Python function of gdb's: its class (named in TypeErrors) and
 * parameters after self, the last @nopt of them optional. */
struct pyfn {
	const char *name, *cls;
	const char *params[3];
	int nparams, nopt;
};

static const struct pyfn pyfns[] = {
	{ "_streq", "_StrEq", { "a", "b" }, 2, 0 },
	{ "_strlen", "_StrLen", { "a" }, 1, 0 },
	{ "_memeq", "_MemEq", { "a", "b", "length" }, 3, 0 },
	{ "_regex", "_RegEx", { "string", "regex" }, 2, 0 },
	{ "_as_string", "_AsString", { "val" }, 1, 0 },
	{ "_caller_is", "CallerIs", { "name", "nframes" }, 2, 1 },
	{ "_caller_matches", "CallerMatches", { "name", "nframes" }, 2, 1 },
	{ "_any_caller_is", "AnyCallerIs", { "name", "nframes" }, 2, 1 },
	{ "_any_caller_matches", "AnyCallerMatches", { "name", "nframes" }, 2, 1 },
};

#define NPYFNS (int)(sizeof(pyfns) / sizeof(pyfns[0]))

static const struct pyfn *pyfn_find(const char *name)
{
	for (int i = 0; i < NPYFNS; i++)
		if (!strcmp(pyfns[i].name, name))
			return &pyfns[i];
	return NULL;
}

int ptd__convfn_is(const char *name)
{
	return pyfn_find(name) || !strcmp(name, "_isvoid") || !strcmp(name, "_gdb_setting") ||
	       !strcmp(name, "_gdb_setting_str");
}

/* A Python exception in a gdb function, as gdb 13 prints it: the
 * exception line, then the error. */
static int py_err(int code, const char *cls, const char *msg)
{
	return ptd__err(code, "Python Exception <class '%s'>: %s\nError occurred in Python: %s", cls,
			msg, msg);
}

/* Python's TypeError for a call with the wrong number of arguments. */
static int py_arity(const struct pyfn *f, int nargs)
{
	int req = f->nparams - f->nopt;
	char msg[256];

	if (nargs < req) {
		int miss = req - nargs;
		size_t o;

		o = (size_t)snprintf(msg, sizeof(msg),
				     "%s.invoke() missing %d required positional argument%s: ", f->cls,
				     miss, miss > 1 ? "s" : "");
		for (int i = nargs; i < req && o < sizeof(msg); i++) {
			const char *sep = i == nargs ? "" : miss == 2 ? " and " : i == req - 1 ? ", and " : ", ";

			o += (size_t)snprintf(msg + o, sizeof(msg) - o, "%s'%s'", sep, f->params[i]);
		}
	} else if (f->nopt) {
		snprintf(msg, sizeof(msg),
			 "%s.invoke() takes from %d to %d positional arguments but %d were given", f->cls,
			 req + 1, f->nparams + 1, nargs + 1);
	} else {
		snprintf(msg, sizeof(msg), "%s.invoke() takes %d positional argument%s but %d were given",
			 f->cls, f->nparams + 1, f->nparams + 1 > 1 ? "s" : "", nargs + 1);
	}
	return py_err(-ptde_invalid, "TypeError", msg);
}

static struct ptd_value *mk_int(struct vtype *t, int64_t x)
{
	struct ptd_value *r = ptd__val_new(t);
	uint64_t sz = ptd__vt_size(t);

	if (r)
		memcpy(r->buf, &x, sz < 8 ? sz : 8);
	return r;
}

/* A Python str as gdb makes a value of it: its characters, no NUL. */
static struct ptd_value *mk_str(struct ptd_values *v, const char *s, size_t n)
{
	struct vtype *t = ptd__vt_array(v, v->t_char, (int64_t)n);
	struct ptd_value *r = t ? ptd__val_new(t) : NULL;

	if (r)
		memcpy(r->buf, s, n);
	return r;
}

/* An integer argument's value; -1 when it is not a number. */
static int int_arg(struct ptd_values *v, struct ptd_value *a, int64_t *out)
{
	struct vtype *s = ptd__vt_strip(a->type);

	if (!s || (s->kind != VT_INT && s->kind != VT_ENUM && s->kind != VT_PTR))
		return -1;
	if (ptd__val_fetch(v, a) < 0)
		return -2;
	*out = (int64_t)ptd__bits(a->buf, ptd__vt_size(s), s->kind != VT_PTR && s->is_signed);
	return 0;
}

static int mem_err(uint64_t addr)
{
	char msg[64];

	snprintf(msg, sizeof(msg), "Cannot access memory at address 0x%llx", (unsigned long long)addr);
	return py_err(-ptde_nomap, "gdb.MemoryError", msg);
}

/*
 * gdb's Value.string(): the characters of a char array (to its first
 * NUL) or of the string a char pointer points to.  0 and a malloc'ed
 * NUL-terminated *@out, or <0 with the Python exception.
 */
static int val_string(struct ptd_values *v, struct ptd_value *a, char **out)
{
	struct vtype *s = ptd__vt_strip(a->type);
	struct vtype *e = s && (s->kind == VT_ARRAY || s->kind == VT_PTR) ? ptd__vt_strip(s->target)
									     : NULL;
	size_t n = 0, cap = 256;
	char *r;

	*out = NULL;
	if (!e || e->kind != VT_INT || ptd__vt_size(e) != 1) {
		char *tn = ptd__vt_name(a->type, ""), msg[300];

		snprintf(msg, sizeof(msg), "Trying to read string with inappropriate type `%s'.",
			 tn ? tn : "?");
		free(tn);
		return py_err(-ptde_invalid, "gdb.error", msg);
	}
	if (s->kind == VT_ARRAY) {
		uint64_t len = ptd__vt_size(s);

		if (ptd__val_fetch(v, a) < 0)
			return -ptde_nomap;
		r = malloc(len + 1);
		if (!r)
			return ptd__err(-ptde_nomem, "out of memory");
		while (n < len && a->buf[n])
			n++;
		memcpy(r, a->buf, n);
		r[n] = 0;
		*out = r;
		return 0;
	}
	{
		uint64_t addr;
		int64_t p;

		if (int_arg(v, a, &p) < 0)
			return -ptde_nomap;
		addr = (uint64_t)p;
		r = malloc(cap);
		if (!r)
			return ptd__err(-ptde_nomem, "out of memory");
		for (;;) {
			char c;

			if (ptd__mem_read(v, addr + n, &c, 1) < 0) {
				free(r);
				return mem_err(addr + n);
			}
			if (n + 1 >= cap) {
				char *g = cap < (1u << 24) ? realloc(r, cap * 2) : NULL;

				if (!g) {
					free(r);
					return ptd__err(-ptde_nomem, "out of memory");
				}
				r = g;
				cap *= 2;
			}
			r[n] = c;
			if (!c)
				break;
			n++;
		}
		*out = r;
		return 0;
	}
}

/* Python's re.match (anchored at the start) with POSIX extended regexes:
 * 1, 0, or <0 for a bad pattern. */
static int pyre_match(const char *pattern, const char *s)
{
	regex_t re;
	regmatch_t m;
	int rc = regcomp(&re, pattern, REG_EXTENDED);

	if (rc) {
		char msg[200];

		regerror(rc, &re, msg, sizeof(msg));
		return py_err(-ptde_invalid, "re.error", msg);
	}
	rc = regexec(&re, s, 1, &m, 0) == 0 && m.rm_so == 0;
	regfree(&re);
	return rc;
}

/* The function of the frame @up above the selected one: 1 (name in
 * @buf), 2 (a frame without a name), 0 (none), <0. */
static int frame_fn(struct ptd_values *v, int up, char *buf, size_t n)
{
	int rc = v->hooks.frame_function ? v->hooks.frame_function(v->hooks.ctx, up, buf, n) : -1;

	if (rc < 0 && up == 0)
		return py_err(-ptde_not_running, "gdb.error", "No frame is currently selected.");
	return rc < 0 ? 0 : rc;
}

/* $_caller_is and friends: @any walks the frames up to @nframes above the
 * selected one, else only that one is looked at; @re: a regular
 * expression's match at the start of the name. */
static int caller(struct ptd_values *v, const struct pyfn *f, struct ptd_value **args, int nargs,
		  int any, int re, int *truth)
{
	int64_t nframes = 1;
	char name[512], *want = NULL;
	int rc, fr, up = 0;

	(void)f;
	if (nargs > 1 && int_arg(v, args[1], &nframes) == -1)
		return py_err(-ptde_invalid, "TypeError",
			      "'<' not supported between instances of 'gdb.Value' and 'int'");
	if (nframes < 0)
		return py_err(-ptde_invalid, "ValueError", "nframes must be >= 0");
	fr = frame_fn(v, 0, name, sizeof(name));
	if (fr < 0)
		return fr;
	*truth = 0;
	if (!any) {
		if (nframes > 0) {
			fr = frame_fn(v, (int)(nframes > 100000 ? 100000 : nframes), name, sizeof(name));
			if (fr <= 0)
				return fr;
		}
		rc = val_string(v, args[0], &want);
		if (rc < 0)
			return rc;
		rc = fr == 2 ? 0 : re ? pyre_match(want, name) : !strcmp(want, name);
		free(want);
		if (rc < 0)
			return rc;
		*truth = rc;
		return 0;
	}
	rc = val_string(v, args[0], &want);
	if (rc < 0)
		return rc;
	for (;;) {
		rc = fr == 2 ? 0 : re ? pyre_match(want, name) : !strcmp(want, name);
		if (rc != 0)
			break;
		if (up >= nframes)
			break;
		fr = frame_fn(v, ++up, name, sizeof(name));
		if (fr <= 0) {
			rc = fr;
			break;
		}
	}
	free(want);
	if (rc < 0)
		return rc;
	*truth = rc;
	return 0;
}

/* $_memeq(a, b, length): the bytes at two addresses compared. */
static int memeq(struct ptd_values *v, struct ptd_value **args, int *truth)
{
	int64_t len;
	uint8_t *ba, *bb;
	int rc;

	if (int_arg(v, args[2], &len) == -1)
		return py_err(-ptde_invalid, "TypeError",
			      "'<' not supported between instances of 'gdb.Value' and 'int'");
	if (len < 0)
		return py_err(-ptde_invalid, "ValueError", "length must be non-negative");
	*truth = 1;
	if (len == 0)
		return 0;
	if (len > VAL_MAX_SIZE)
		return py_err(-ptde_invalid, "gdb.error",
			      "value requires more bytes than the max-value-size allows");
	ba = calloc(1, (size_t)len);
	bb = calloc(1, (size_t)len);
	if (!ba || !bb) {
		free(ba);
		free(bb);
		return ptd__err(-ptde_nomem, "out of memory");
	}
	rc = 0;
	for (int i = 0; i < 2 && rc == 0; i++) {
		struct ptd_value *a = args[i];
		struct vtype *s = ptd__vt_strip(a->type);
		uint8_t *to = i ? bb : ba;
		int64_t p;

		if (s && s->kind == VT_ARRAY && a->lval != LV_MEM) {
			/* a string literal: gdb puts it in the program's
			 * memory first; its bytes are these */
			uint64_t n = ptd__vt_size(s);

			if (!v->has_regs)
				rc = py_err(-ptde_not_running, "gdb.error",
					    "evaluation of this expression requires the target "
					    "program to be active");
			else if (ptd__val_fetch(v, a) < 0)
				rc = -ptde_nomap;
			else
				memcpy(to, a->buf, n < (uint64_t)len ? n : (uint64_t)len);
			continue;
		}
		if (s && s->kind == VT_ARRAY)
			p = (int64_t)a->addr;
		else if (int_arg(v, a, &p) < 0) {
			rc = py_err(-ptde_invalid, "gdb.error", "Invalid reinterpret_cast.");
			break;
		}
		if (ptd__mem_read(v, (uint64_t)p, to, (size_t)len) < 0)
			rc = mem_err((uint64_t)p);
	}
	if (rc == 0)
		*truth = !memcmp(ba, bb, (size_t)len);
	free(ba);
	free(bb);
	return rc;
}

/* $_gdb_setting and $_gdb_setting_str (gdb's own, not Python). */
static int setting(struct ptd_values *v, const char *fn, struct ptd_value **args, int nargs,
		   struct ptd_value **out)
{
	int str = !strcmp(fn, "_gdb_setting_str");
	enum ptd_setting_kind k = PTD_SETTING_NONE;
	struct vtype *s;
	char *name = NULL, buf[512];
	int rc;

	if (nargs == 0)
		return ptd__err(-ptde_invalid, "You must provide an argument to $%s", fn);
	if (nargs > 1)
		return ptd__err(-ptde_invalid, "You can only provide one argument to $%s", fn);
	s = ptd__vt_strip(args[0]->type);
	if (!s || s->kind != VT_ARRAY || !s->target || ptd__vt_strip(s->target)->kind != VT_INT ||
	    ptd__vt_size(ptd__vt_strip(s->target)) != 1)
		return ptd__err(-ptde_invalid, "First argument of $%s must be a string.", fn);
	rc = val_string(v, args[0], &name);
	if (rc < 0)
		return rc;
	buf[0] = 0;
	if (v->hooks.setting)
		k = v->hooks.setting(v->hooks.ctx, name, buf, sizeof(buf));
	free(name);
	if (k == PTD_SETTING_NONE)
		return ptd__err(-ptde_invalid,
				"First argument of $%s must be a valid setting of the 'show' command.",
				fn);
	if (str || k == PTD_SETTING_STRING) {
		/* (an empty one is a NUL, as gdb's value_cstring makes it) */
		*out = mk_str(v, buf, strlen(buf) ? strlen(buf) : 1);
	} else if (k == PTD_SETTING_BOOL || k == PTD_SETTING_AUTOBOOL) {
		*out = mk_int(v->t_int, !strcmp(buf, "on") ? 1 : !strcmp(buf, "auto") ? -1 : 0);
	} else {
		long x = !strcmp(buf, "unlimited") ? 0 : strtol(buf, NULL, 10);

		*out = mk_int(k == PTD_SETTING_UINT ? v->t_uint : v->t_int, x);
	}
	return *out ? 0 : ptd__err(-ptde_nomem, "out of memory");
}

int ptd__convfn_call(struct ptd_values *v, const char *name, struct ptd_value **args, int nargs,
		     int cplus, struct ptd_value **out)
{
	const struct pyfn *f = pyfn_find(name);
	struct vtype *truth_t = cplus ? v->t_cxxbool : v->t_int;
	int rc, truth = 0;

	*out = NULL;
	if (!strcmp(name, "_isvoid")) {
		struct vtype *t;

		if (nargs != 1)
			return ptd__err(-ptde_invalid, "You must provide one argument for $_isvoid.");
		t = ptd__vt_strip(args[0]->type);
		*out = mk_int(v->t_int, t->kind == VT_VOID && !t->internal_fn);
		return *out ? 0 : ptd__err(-ptde_nomem, "out of memory");
	}
	if (!f)
		return setting(v, name, args, nargs, out);
	if (nargs < f->nparams - f->nopt || nargs > f->nparams)
		return py_arity(f, nargs);
	if (!strcmp(name, "_as_string")) {
		struct sbuf b = { 0 };

		rc = ptd__val_print(v, args[0], 0, 0, &b);
		if (rc < 0 || b.oom) {
			free(b.s);
			return rc < 0 ? rc : ptd__err(-ptde_nomem, "out of memory");
		}
		*out = mk_str(v, b.s ? b.s : "", b.len);
		free(b.s);
		return *out ? 0 : ptd__err(-ptde_nomem, "out of memory");
	}
	if (!strcmp(name, "_strlen")) {
		char *s;

		rc = val_string(v, args[0], &s);
		if (rc < 0)
			return rc;
		*out = mk_int(v->t_llong, (int64_t)strlen(s));
		free(s);
		return *out ? 0 : ptd__err(-ptde_nomem, "out of memory");
	}
	if (!strcmp(name, "_streq") || !strcmp(name, "_regex")) {
		char *a, *b;

		rc = val_string(v, args[0], &a);
		if (rc < 0)
			return rc;
		rc = val_string(v, args[1], &b);
		if (rc < 0) {
			free(a);
			return rc;
		}
		rc = name[1] == 's' ? !strcmp(a, b) : pyre_match(b, a);
		free(a);
		free(b);
		if (rc < 0)
			return rc;
		truth = rc;
	} else if (!strcmp(name, "_memeq")) {
		rc = memeq(v, args, &truth);
		if (rc < 0)
			return rc;
	} else {
		int any = !strncmp(name, "_any_", 5);

		rc = caller(v, f, args, nargs, any, strstr(name, "matches") != NULL, &truth);
		if (rc < 0)
			return rc;
	}
	*out = mk_int(truth_t, truth);
	return *out ? 0 : ptd__err(-ptde_nomem, "out of memory");
}

/* ------------------------------------------------------------------ */
/* $_siginfo: gdb's struct siginfo for x86-64 Linux                     */

struct fld {
	const char *name;
	struct vtype *type;
	uint64_t off;
};

static struct vtype *aggregate(struct ptd_values *v, enum vt_kind k, const char *name,
			       uint64_t size, const struct fld *f, int n)
{
	struct vtype *t = ptd__vt_new(v, k, name, size);

	if (!t)
		return NULL;
	t->members = calloc((size_t)n, sizeof(*t->members));
	if (!t->members)
		return NULL;
	for (int i = 0; i < n; i++) {
		if (!f[i].type)
			return NULL;
		t->members[i].name = strdup(f[i].name);
		if (!t->members[i].name)
			return NULL;
		t->members[i].type = f[i].type;
		t->members[i].off = f[i].off;
		t->nmembers = i + 1;
	}
	return t;
}

static struct vtype *tdef(struct ptd_values *v, const char *name, struct vtype *to)
{
	struct vtype *t = ptd__vt_new(v, VT_TYPEDEF, name, to ? to->size : 0);

	if (t)
		t->target = to;
	return t;
}

/*
 * The type as gdb builds it (linux_get_siginfo_type): its members are
 * laid out one after the other without alignment, so _sigchld's clocks
 * are at 28 and 36, and its "short" _addr_lsb is as wide as a long.
 */
static struct vtype *siginfo_type(struct ptd_values *v)
{
	struct vtype *pid = tdef(v, "__pid_t", v->t_int), *uid = tdef(v, "__uid_t", v->t_uint);
	struct vtype *clk = tdef(v, "__clock_t", v->t_long);
	struct vtype *vp = ptd__vt_ptr(v, v->t_void);
	struct vtype *lshort = ptd__vt_new(v, VT_INT, "short", 8), *pad, *sigval, *u;

	if (lshort)
		lshort->is_signed = 1;
	pad = ptd__vt_array(v, v->t_int, 28);
	if (pad)
		pad->vector = 1;
	{
		const struct fld f[] = { { "sival_int", v->t_int, 0 }, { "sival_ptr", vp, 0 } };

		sigval = aggregate(v, VT_UNION, "sigval_t", 8, f, 2);
	}
	{
		const struct fld bnd[] = { { "_lower", vp, 0 }, { "_upper", vp, 8 } };
		struct vtype *addr_bnd = aggregate(v, VT_STRUCT, NULL, 16, bnd, 2);
		const struct fld kill[] = { { "si_pid", pid, 0 }, { "si_uid", uid, 4 } };
		const struct fld timer[] = { { "si_tid", v->t_int, 0 },
					     { "si_overrun", v->t_int, 4 },
					     { "si_sigval", sigval, 8 } };
		const struct fld rt[] = { { "si_pid", pid, 0 }, { "si_uid", uid, 4 },
					  { "si_sigval", sigval, 8 } };
		const struct fld chld[] = { { "si_pid", pid, 0 },	  { "si_uid", uid, 4 },
					    { "si_status", v->t_int, 8 }, { "si_utime", clk, 12 },
					    { "si_stime", clk, 20 } };
		const struct fld fault[] = { { "si_addr", vp, 0 },
					     { "_addr_lsb", lshort, 8 },
					     { "_addr_bnd", addr_bnd, 16 } };
		const struct fld poll[] = { { "si_band", v->t_long, 0 }, { "si_fd", v->t_int, 8 } };
		const struct fld sys[] = { { "_call_addr", vp, 0 },
					   { "_syscall", v->t_int, 8 },
					   { "_arch", v->t_uint, 12 } };
		const struct fld uf[] = {
			{ "_pad", pad, 0 },
			{ "_kill", aggregate(v, VT_STRUCT, NULL, 8, kill, 2), 0 },
			{ "_timer", aggregate(v, VT_STRUCT, NULL, 16, timer, 3), 0 },
			{ "_rt", aggregate(v, VT_STRUCT, NULL, 16, rt, 3), 0 },
			{ "_sigchld", aggregate(v, VT_STRUCT, NULL, 28, chld, 5), 0 },
			{ "_sigfault", aggregate(v, VT_STRUCT, NULL, 32, fault, 3), 0 },
			{ "_sigpoll", aggregate(v, VT_STRUCT, NULL, 12, poll, 2), 0 },
			{ "_sigsys", aggregate(v, VT_STRUCT, NULL, 16, sys, 3), 0 },
		};

		u = aggregate(v, VT_UNION, NULL, 112, uf, 8);
	}
	{
		const struct fld top[] = { { "si_signo", v->t_int, 0 },
					   { "si_errno", v->t_int, 4 },
					   { "si_code", v->t_int, 8 },
					   { "_sifields", u, 16 } };

		return aggregate(v, VT_STRUCT, "siginfo", 128, top, 4);
	}
}

int ptd__convvar(struct ptd_values *v, const char *name, struct ptd_value **out)
{
	*out = NULL;
	if (!strcmp(name, "_siginfo")) {
		uint8_t buf[128];
		struct vtype *t;
		int rc;

		if (!v->hooks.siginfo)
			return 0;
		memset(buf, 0, sizeof(buf));
		rc = v->hooks.siginfo(v->hooks.ctx, buf, sizeof(buf));
		if (rc == 0)
			return 0;
		/* (whatis and ptype do not read it, as gdb's lazy value) */
		if (rc < 0 && !v->type_only)
			return ptd__err(-ptde_unsupported, "Unable to read siginfo");
		t = siginfo_type(v);
		*out = t ? ptd__val_new(t) : NULL;
		if (!*out)
			return ptd__err(-ptde_nomem, "out of memory");
		memcpy((*out)->buf, buf, sizeof(buf));
		return 1;
	}
	if (!strcmp(name, "_thread") || !strcmp(name, "_gthread") || !strcmp(name, "_inferior")) {
		long x;

		if (!v->hooks.conv_int || v->hooks.conv_int(v->hooks.ctx, name, &x) <= 0)
			return 0;
		*out = mk_int(v->t_int, x);
		return *out ? 1 : ptd__err(-ptde_nomem, "out of memory");
	}
	return 0;
}

void ptd_values_set_hooks(struct ptd_values *v, const struct ptd_values_hooks *h)
{
	if (!v)
		return;
	if (h)
		v->hooks = *h;
	else
		memset(&v->hooks, 0, sizeof(v->hooks));
}
