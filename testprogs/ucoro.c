/*
 * ucoro: a generator coroutine on a stack of its own, switched to and
 * from with swapcontext (ucontext.h).  The generator yields the first
 * Fibonacci numbers one at a time; main's consumer sums them.  Every
 * switch moves the stack pointer to the other stack and "returns" into
 * the other side's swapcontext call, and the coroutine's first entry
 * comes through makecontext's trampoline.  Exercises returns that do not
 * go back to their call and a stack that is not the thread's.
 */
#include <stdio.h>
#include <ucontext.h>

static ucontext_t main_ctx, gen_ctx;
static char gen_stack[64 * 1024];
static int yielded, done, sum;

static void yield(int v)
{
	yielded = v;
	swapcontext(&gen_ctx, &main_ctx);
}

void generator(int n)
{
	int a = 0, b = 1;

	for (int i = 0; i < n; i++) {
		yield(a);
		int t = a + b;
		a = b;
		b = t;
	}
	done = 1;
}

int consume(int n)
{
	sum = 0;
	getcontext(&gen_ctx);
	gen_ctx.uc_stack.ss_sp = gen_stack;
	gen_ctx.uc_stack.ss_size = sizeof(gen_stack);
	gen_ctx.uc_link = &main_ctx;
	makecontext(&gen_ctx, (void (*)(void))generator, 1, n);
	for (;;) {
		swapcontext(&main_ctx, &gen_ctx);
		if (done)
			break;
		sum += yielded;
	}
	return sum;
}

int main(void)
{
	int s = consume(8);

	printf("sum=%d\n", s);
	return 0;
}
