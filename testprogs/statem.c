/*
 * statem: a tokenizer written as a switch-based state machine (dense case
 * values, so gcc -O2 compiles it to a jump table: an indirect jump
 * through a table in .rodata), an evaluator that recurses through a
 * table of function pointers (each node kind's handler calls eval, which
 * calls the next handler), and error recovery with setjmp in a loop: a
 * bad input longjmps out of the recursion back to the loop, which goes
 * on with the next input.
 * Exercises indirect jumps within a function, recursion whose calls are
 * all indirect, and setjmp returning many times in one frame.
 */
#include <setjmp.h>
#include <stdio.h>

enum tok { T_NUM, T_ADD, T_MUL, T_NEG, T_END, T_BAD };
enum state { S_START, S_NUM, S_OP, S_SPACE, S_DONE, S_ERROR };

static jmp_buf recover;
static enum tok toks[32];
static int vals[32], ntok, pos;

static int lex(const char *s)
{
	enum state st = S_START;
	int n = 0, v = 0;

	for (;;) {
		char c = *s;

		switch (st) {
		case S_START:
			if (c >= '0' && c <= '9')
				st = S_NUM, v = 0;
			else if (c == '+' || c == '*' || c == '-')
				st = S_OP;
			else if (c == ' ')
				st = S_SPACE;
			else if (c == 0)
				st = S_DONE;
			else
				st = S_ERROR;
			break;
		case S_NUM:
			if (c >= '0' && c <= '9') {
				v = v * 10 + (c - '0');
				s++;
			} else {
				toks[n] = T_NUM;
				vals[n++] = v;
				st = S_START;
			}
			break;
		case S_OP:
			toks[n++] = c == '+' ? T_ADD : c == '*' ? T_MUL : T_NEG;
			s++;
			st = S_START;
			break;
		case S_SPACE:
			s++;
			st = S_START;
			break;
		case S_DONE:
			toks[n++] = T_END;
			return n;
		case S_ERROR:
			toks[n++] = T_BAD;
			return n;
		}
	}
}

/* Prefix notation: "+ 1 * 2 3" is 1 + 2 * 3. */
static int eval(void);
static int do_num(void) { return vals[pos - 1]; }
static int do_add(void) { int a = eval(); return a + eval(); }
static int do_mul(void) { int a = eval(); return a * eval(); }
static int do_neg(void) { return -eval(); }
static int do_bad(void) { longjmp(recover, pos); }
static int (*const handlers[])(void) = {
	[T_NUM] = do_num, [T_ADD] = do_add, [T_MUL] = do_mul,
	[T_NEG] = do_neg, [T_END] = do_bad, [T_BAD] = do_bad,
};

__attribute__((noinline)) static int eval(void)
{
	enum tok t = toks[pos++];

	return handlers[t]();
}

int main(void)
{
	static const char *const inputs[] = { "+ 1 * 2 3", "* + 4 5 - 6", "+ 7 x 8",
					      "* 12 + 3 4", "+ 1", "- * 3 + 2 + 1 1" };
	volatile int total = 0, bad = 0;
	volatile unsigned i;

	for (i = 0; i < sizeof inputs / sizeof inputs[0]; i++) {
		int at = setjmp(recover);

		if (at) {
			bad++;
			continue;
		}
		ntok = lex(inputs[i]);
		pos = 0;
		total += eval();
	}
	printf("total=%d bad=%d\n", total, bad);
	return 0;
}
