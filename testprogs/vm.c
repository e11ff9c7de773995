/*
 * vm: a bytecode interpreter whose dispatch is a computed goto (gcc's
 * labels as values: a table of &&label, `goto *ops[*pc++]`), the way
 * fast interpreters are written.  The program computes the sum of the
 * squares 1..n (argv[1], 6 by default) with a loop in bytecode and
 * calls a native function from one opcode.  Exercises an indirect jmp
 * at the end of every opcode's code, to targets that are labels inside
 * one function rather than functions.
 */
#include <stdio.h>
#include <stdlib.h>

enum { OP_PUSH, OP_LOAD, OP_STORE, OP_ADD, OP_MUL, OP_DEC, OP_JNZ, OP_CALL, OP_HALT };

static int native_calls;

__attribute__((noinline)) int native_sq(int x)
{
	native_calls++;
	return x * x;
}

int run(const int *code, int n)
{
	static const void *ops[] = {
		&&op_push, &&op_load, &&op_store, &&op_add, &&op_mul,
		&&op_dec, &&op_jnz, &&op_call, &&op_halt,
	};
	int stack[16], vars[4] = { n, 0, 0, 0 };
	int sp = 0;
	const int *pc = code;

#define NEXT goto *ops[*pc++]
	NEXT;
op_push:
	stack[sp++] = *pc++;
	NEXT;
op_load:
	stack[sp++] = vars[*pc++];
	NEXT;
op_store:
	vars[*pc++] = stack[--sp];
	NEXT;
op_add:
	sp--;
	stack[sp - 1] += stack[sp];
	NEXT;
op_mul:
	sp--;
	stack[sp - 1] *= stack[sp];
	NEXT;
op_dec:
	stack[sp - 1]--;
	NEXT;
op_jnz:
	if (stack[--sp])
		pc = code + *pc;
	else
		pc++;
	NEXT;
op_call:
	stack[sp - 1] = native_sq(stack[sp - 1]);
	NEXT;
op_halt:
	return vars[1];
#undef NEXT
}

int main(int argc, char **argv)
{
	/* vars[0] = n; vars[1] = 0; do { vars[1] += sq(vars[0]); } while (--vars[0]); */
	static const int code[] = {
		OP_LOAD, 1, OP_LOAD, 0, OP_CALL, OP_ADD, OP_STORE, 1, /* 0..7 */
		OP_LOAD, 0, OP_DEC, OP_STORE, 0, OP_LOAD, 0, OP_JNZ, 0, /* 8..16 */
		OP_HALT,
	};
	int n = argc > 1 ? atoi(argv[1]) : 6;
	int r = run(code, n);

	printf("sum of squares 1..%d = %d (%d native calls)\n", n, r, native_calls);
	return 0;
}
