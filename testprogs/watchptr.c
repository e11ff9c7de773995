/*
 * watchptr: watchpoints whose expression reads a pointer (`watch *ptr`,
 * `watch head->val`): gdb watches the pointer too, so moving the pointer
 * triggers the watchpoint when the value it now names differs, and later
 * writes through the new target trigger it while the old target does not.
 */
#include <stdio.h>

struct node {
	int val;
	struct node *next;
};

struct node second = { 2, NULL };
struct node first = { 1, &second };
struct node *head = &first;
int x = 5, y = 5, z = 7;
int *ptr;

int main(void)
{
	ptr = &x;
	x = 6;
	ptr = &y;
	y = 8;
	x = 9;
	z = 8;
	ptr = &z;
	head->val = 3;
	head = head->next;
	second.val = 4;
	first.val = 10;
	head = NULL;
	printf("%d %d %d %d %d\n", x, y, z, first.val, second.val);
	return 0;
}
