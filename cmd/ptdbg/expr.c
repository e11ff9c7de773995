/*
 * The small expression language of the ptdbg shell: what `print`, `x`,
 * `break *ADDR`-style arguments and counts accept.  C integer syntax and
 * operators over 64-bit values, registers as $name, and function names as
 * their entry addresses.  There is no type system beyond what the output
 * needs (gdb prints $pc as a code pointer, $sp as a data pointer, eflags
 * as flags), and no variables: those need DWARF location evaluation.
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "shell.h"

struct parser {
	struct shell *sh;
	const char *p;
	int failed;
	int unavailable;
	int regs_loaded;
	int pc_only;
	int depth; /* nesting of parentheses and unary operators */
	struct user_regs_struct regs;
};

/* Each nesting level costs a few stack frames: a line of 100,000 '(' must
 * get an error, not overflow the stack. */
#define MAX_DEPTH 500

struct val {
	uint64_t v;
	enum expr_kind kind;
};

static struct val parse_binary(struct parser *ps, int minprec);

static void skip(struct parser *ps)
{
	while (isspace((unsigned char)*ps->p))
		ps->p++;
}

static struct val fail(struct parser *ps, const char *fmt, const char *arg)
{
	struct val r = { 0, EXPR_INT };

	if (!ps->failed)
		shell_error(fmt, arg);
	ps->failed = 1;
	return r;
}

static int load_regs(struct parser *ps)
{
	if (ps->regs_loaded)
		return 0;
	if (!ptd_session_alive(ps->sh->s))
		return -1;
	if (ptd_session_regs(ps->sh->s, &ps->regs, &ps->pc_only) < 0)
		return -1;
	ps->regs_loaded = 1;
	return 0;
}

static struct val parse_register(struct parser *ps)
{
	struct val r = { 0, EXPR_LONG };
	const char *canon;
	char name[32];
	size_t n = 0;

	ps->p++; /* '$' */
	while ((isalnum((unsigned char)*ps->p) || *ps->p == '_') && n < sizeof(name) - 1)
		name[n++] = *ps->p++;
	name[n] = '\0';
	if (!n)
		return fail(ps, "History is empty.%s", "");
	if (ptd_print_reg_lookup(name, NULL, NULL, &canon) < 0) {
		/* gdb treats unknown $names as void convenience variables. */
		return fail(ps, "Invalid register `%s'", name);
	}
	if (load_regs(ps) < 0)
		return fail(ps, "No registers.%s", "");
	ptd_print_reg_lookup(canon, &ps->regs, &r.v, NULL);
	if (!strcmp(canon, "rip"))
		r.kind = EXPR_CODE_PTR;
	else if (!strcmp(canon, "rsp") || !strcmp(canon, "rbp"))
		r.kind = EXPR_DATA_PTR;
	else if (!strcmp(canon, "eflags"))
		r.kind = EXPR_EFLAGS;
	if (!strcmp(canon, "rip") && ps->sh->frame_level > 0)
		r.v = ps->sh->frame_pc; /* the selected frame's pc (up/frame N) */
	/* In outer frames only the pc is known; in the recorded past too,
	 * except where the soft recorder trapped (pc_only says which). */
	if ((ps->pc_only || ps->sh->frame_level > 0) && strcmp(canon, "rip")) {
		ps->unavailable = 1;
		r.kind = EXPR_UNAVAILABLE;
	}
	return r;
}

static struct val parse_primary(struct parser *ps)
{
	struct val r = { 0, EXPR_INT };
	char *end;

	skip(ps);
	if (*ps->p == '(') {
		ps->p++;
		r = parse_binary(ps, 0);
		skip(ps);
		if (*ps->p != ')')
			return fail(ps, "A syntax error in expression, near `%s'.", ps->p);
		ps->p++;
		return r;
	}
	if (*ps->p == '$')
		return parse_register(ps);
	if (*ps->p == '\'') {
		if (ps->p[1] && ps->p[2] == '\'') {
			r.v = (unsigned char)ps->p[1];
			ps->p += 3;
			return r;
		}
		return fail(ps, "Unmatched single quote.%s", "");
	}
	if (isdigit((unsigned char)*ps->p)) {
		errno = 0;
		r.v = strtoull(ps->p, &end, 0);
		if (errno || isalnum((unsigned char)*end) || *end == '_')
			return fail(ps, "Invalid number \"%s\".", ps->p);
		ps->p = end;
		r.kind = r.v > 0x7fffffff ? EXPR_LONG : EXPR_INT;
		return r;
	}
	if (isalpha((unsigned char)*ps->p) || *ps->p == '_') {
		char name[256];
		size_t n = 0;
		uint64_t entry, bp;
		struct ptd_symbols *sym = ptd_session_symbols(ps->sh->s);

		while ((isalnum((unsigned char)*ps->p) || *ps->p == '_' || *ps->p == '.') &&
		       n < sizeof(name) - 1)
			name[n++] = *ps->p++;
		name[n] = '\0';
		if (!sym)
			return fail(ps, "No symbol table is loaded.  Use the \"file\" command.%s", "");
		if (ptd_symbols_function(sym, name, &entry, &bp) < 0)
			return fail(ps, "No symbol \"%s\" in current context.", name);
		r.v = entry;
		r.kind = EXPR_CODE_PTR;
		return r;
	}
	if (!*ps->p)
		return fail(ps, "A syntax error in expression, near `%s'.", ps->p);
	return fail(ps, "A syntax error in expression, near `%s'.", ps->p);
}

static struct val parse_unary(struct parser *ps);

static struct val parse_unary_op(struct parser *ps)
{
	struct val r;

	switch (*ps->p) {
	case '-':
		ps->p++;
		r = parse_unary(ps);
		r.v = -r.v;
		if (r.kind == EXPR_CODE_PTR || r.kind == EXPR_DATA_PTR || r.kind == EXPR_EFLAGS)
			r.kind = EXPR_LONG;
		return r;
	case '+':
		ps->p++;
		return parse_unary(ps);
	case '~':
		ps->p++;
		r = parse_unary(ps);
		r.v = ~r.v;
		if (r.kind != EXPR_INT && r.kind != EXPR_UNAVAILABLE)
			r.kind = EXPR_LONG;
		return r;
	case '!':
		ps->p++;
		r = parse_unary(ps);
		r.v = !r.v;
		if (r.kind != EXPR_UNAVAILABLE)
			r.kind = EXPR_INT;
		return r;
	default:
		return parse_primary(ps);
	}
}

static struct val parse_unary(struct parser *ps)
{
	struct val r = { 0, EXPR_INT };

	skip(ps);
	if (ps->depth >= MAX_DEPTH)
		return fail(ps, "Expression nested too deeply.%s", "");
	ps->depth++;
	r = parse_unary_op(ps);
	ps->depth--;
	return r;
}

struct binop {
	const char *tok;
	int prec;
};

/* C precedences, higher binds tighter; longer tokens first. */
static const struct binop binops[] = {
	{ "||", 1 }, { "&&", 2 }, { "==", 6 }, { "!=", 6 }, { "<=", 7 }, { ">=", 7 },
	{ "<<", 8 }, { ">>", 8 }, { "|", 3 }, { "^", 4 }, { "&", 5 }, { "<", 7 },
	{ ">", 7 }, { "+", 9 }, { "-", 9 }, { "*", 10 }, { "/", 10 }, { "%", 10 },
};

static const struct binop *peek_op(struct parser *ps)
{
	size_t i;

	skip(ps);
	for (i = 0; i < sizeof(binops) / sizeof(binops[0]); i++)
		if (!strncmp(ps->p, binops[i].tok, strlen(binops[i].tok)))
			return &binops[i];
	return NULL;
}

static int is_signed_kind(enum expr_kind k)
{
	return k == EXPR_INT || k == EXPR_LONG;
}

static struct val apply(struct parser *ps, const char *op, struct val a, struct val b)
{
	struct val r;
	int64_t sa = (int64_t)a.v, sb = (int64_t)b.v;
	int sgn = is_signed_kind(a.kind) && is_signed_kind(b.kind);

	if (a.kind == EXPR_UNAVAILABLE || b.kind == EXPR_UNAVAILABLE) {
		r.v = 0;
		r.kind = EXPR_UNAVAILABLE;
		return r;
	}
	/* Pointer arithmetic keeps the pointer kind (gdb: $pc + 4). */
	if ((a.kind == EXPR_CODE_PTR || a.kind == EXPR_DATA_PTR) && (op[0] == '+' || op[0] == '-') &&
	    !op[1] && is_signed_kind(b.kind))
		r.kind = a.kind;
	else if (a.kind == EXPR_INT && b.kind == EXPR_INT)
		r.kind = EXPR_INT;
	else
		r.kind = EXPR_LONG;

	if (!strcmp(op, "+"))
		r.v = a.v + b.v;
	else if (!strcmp(op, "-"))
		r.v = a.v - b.v;
	else if (!strcmp(op, "*"))
		r.v = a.v * b.v;
	else if (!strcmp(op, "/") || !strcmp(op, "%")) {
		if (!b.v)
			return fail(ps, "Division by zero%s", "");
		if (sgn && sa == INT64_MIN && sb == -1) /* overflows: the CPU traps */
			r.v = op[0] == '/' ? a.v : 0;
		else if (sgn)
			r.v = op[0] == '/' ? (uint64_t)(sa / sb) : (uint64_t)(sa % sb);
		else
			r.v = op[0] == '/' ? a.v / b.v : a.v % b.v;
	} else if (!strcmp(op, "<<"))
		r.v = b.v >= 64 ? 0 : a.v << b.v;
	else if (!strcmp(op, ">>"))
		r.v = b.v >= 64 ? 0 : (sgn ? (uint64_t)(sa >> b.v) : a.v >> b.v);
	else if (!strcmp(op, "&"))
		r.v = a.v & b.v;
	else if (!strcmp(op, "|"))
		r.v = a.v | b.v;
	else if (!strcmp(op, "^"))
		r.v = a.v ^ b.v;
	else {
		if (!strcmp(op, "&&"))
			r.v = a.v && b.v;
		else if (!strcmp(op, "||"))
			r.v = a.v || b.v;
		else if (!strcmp(op, "=="))
			r.v = a.v == b.v;
		else if (!strcmp(op, "!="))
			r.v = a.v != b.v;
		else if (!strcmp(op, "<"))
			r.v = sgn ? sa < sb : a.v < b.v;
		else if (!strcmp(op, ">"))
			r.v = sgn ? sa > sb : a.v > b.v;
		else if (!strcmp(op, "<="))
			r.v = sgn ? sa <= sb : a.v <= b.v;
		else
			r.v = sgn ? sa >= sb : a.v >= b.v;
		r.kind = EXPR_INT;
	}
	if (r.kind == EXPR_INT)
		r.v = (uint64_t)(int64_t)(int32_t)r.v;
	return r;
}

static struct val parse_binary(struct parser *ps, int minprec)
{
	struct val lhs = parse_unary(ps), rhs;
	const struct binop *op;

	while (!ps->failed && (op = peek_op(ps)) && op->prec > minprec) {
		ps->p += strlen(op->tok);
		rhs = parse_binary(ps, op->prec);
		if (ps->failed)
			break;
		lhs = apply(ps, op->tok, lhs, rhs);
	}
	return lhs;
}

int shell_eval(struct shell *sh, const char *expr, uint64_t *val, enum expr_kind *kind)
{
	struct parser ps = { .sh = sh, .p = expr };
	struct val r;

	skip(&ps);
	if (!*ps.p)
		return shell_error("Argument required (expression to compute).");
	r = parse_binary(&ps, 0);
	if (ps.failed)
		return -1;
	skip(&ps);
	if (*ps.p)
		return shell_error("A syntax error in expression, near `%s'.", ps.p);
	*val = r.v;
	if (kind)
		*kind = r.kind;
	return 0;
}
