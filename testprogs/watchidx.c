/*
 * watchidx: watchpoints whose expression reads other variables on the
 * way: `watch a[i]` reads i, `watch p->next->val` reads p and p->next.
 * gdb watches every value the expression reads, so changing i (or p, or
 * p->next) triggers the watchpoint when the element it now names holds
 * another value, and the watchpoint follows the new element.  Also
 * `rwatch`/`awatch` on such expressions, p->next->next->val that cannot
 * be read until n3.next is set, a function whose local is watched, and
 * one whose local index is moved by its callee.
 */
#include <stdio.h>

struct node {
	int val;
	struct node *next;
};

struct node n3 = { 30, NULL };
struct node n2 = { 20, &n3 };
struct node n1 = { 10, &n2 };
struct node *p = &n1;
int a[4] = { 1, 2, 3, 4 };
int i;
int sink;

int sum(int n)
{
	int acc = 0;

	for (int k = 0; k < n; k++)
		acc += a[k];
	return acc;
}

/* moves the caller's index: a watchpoint on the caller's a[j] is
 * evaluated again in the caller's frame, not in this one */
void next_index(int *k)
{
	*k += 1;
}

int walk(void)
{
	int j = 0;
	int acc = a[j];

	next_index(&j);
	acc += a[j];
	return acc;
}

int main(void)
{
	a[0] = 5;
	a[1] = 6;
	i = 1;
	a[0] = 7;
	a[1] = 8;
	sink = a[i];
	i = 3;
	a[3] = 4;
	i = 2;
	n2.val = 21;
	n1.next = &n3;
	n2.val = 22;
	p = &n2;
	n3.val = 31;
	sink = p->next->val;
	p = &n3;
	n3.val = 32;
	n3.next = &n2;
	sink += sum(2);
	sink += walk();
	printf("%d %d %d %d\n", a[0], a[1], sink, n3.val);
	return 0;
}
