/*
 * parse: a recursive-descent parser and evaluator of integer expressions
 * (argv[1], "2*(3+4)-(5-(6*2))/3+7*(1+2*(3-1))" by default): expr, term
 * and factor call each other, and a parenthesis starts over at expr, so
 * the recursion is mutual and its depth follows the input.  At -O2 gcc
 * inlines skip_spaces into the loops and ends evaluate with a jump to
 * expr (a tail call), so frames disappear and reappear.
 * Exercises mutual recursion, sibling calls and returns through several
 * frames of different functions at once.
 */
#include <stdio.h>

static const char *p;
static int depth, max_depth;

static void skip_spaces(void)
{
	while (*p == ' ')
		p++;
}

int expr(void);

__attribute__((noinline)) int factor(void)
{
	int v = 0;

	skip_spaces();
	if (*p == '-') {
		p++;
		return -factor();
	}
	if (*p == '(') {
		p++;
		if (++depth > max_depth)
			max_depth = depth;
		v = expr();
		depth--;
		skip_spaces();
		if (*p == ')')
			p++;
		return v;
	}
	while (*p >= '0' && *p <= '9')
		v = v * 10 + (*p++ - '0');
	return v;
}

__attribute__((noinline)) int term(void)
{
	int v = factor();

	for (;;) {
		skip_spaces();
		if (*p == '*') {
			p++;
			v *= factor();
		} else if (*p == '/') {
			int d;

			p++;
			d = factor();
			v = d ? v / d : 0;
		} else {
			return v;
		}
	}
}

__attribute__((noinline)) int expr(void)
{
	int v = term();

	for (;;) {
		skip_spaces();
		if (*p == '+') {
			p++;
			v += term();
		} else if (*p == '-') {
			p++;
			v -= term();
		} else {
			return v;
		}
	}
}

__attribute__((noinline)) int evaluate(const char *s)
{
	p = s;
	depth = max_depth = 0;
	return expr();
}

int main(int argc, char **argv)
{
	const char *in = argc > 1 ? argv[1] : "2*(3+4)-(5-(6*2))/3+7*(1+2*(3-1))";
	int v = evaluate(in);

	printf("%s = %d (depth %d)\n", in, v, max_depth);
	return 0;
}
