/*
 * watchexpr: watchpoints on lvalues gdb accepts: a struct member, an
 * array element, *pointer, a pointer, a double, a char and a local of a
 * function that returns (its watchpoint ends with the frame).
 */
#include <stdio.h>

struct point {
	int x, y;
};

struct point pt;
int arr[4];
int target;
int *ptr = &target;
double ratio;
char letter = 'a';
const char *name;

int bump(int n)
{
	int local = n;

	local += 5;
	local *= 2;
	return local;
}

int main(void)
{
	pt.x = 3;
	pt.y = 4;
	arr[2] = 7;
	*ptr = 9;
	ratio = 1.5;
	letter = 'z';
	name = "watched";
	ptr = &arr[1];
	int r = bump(1);
	r += bump(2);
	printf("%d %d %d %d %g %c %s %d\n", pt.x, pt.y, arr[2], target, ratio, letter, name, r);
	return 0;
}
