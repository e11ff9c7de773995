/*
 * Variables of every kind the value printer must show as gdb does: locals,
 * arguments, globals, statics, structs, unions, enums, arrays, pointers,
 * floats, bit-fields, and functions returning each kind `finish` prints.
 * The tests break at the functions and at the lines marked "stop here".
 */
#include <stdio.h>
#include <string.h>

struct point {
	int x;
	int y;
};

struct rec {
	char name[16];
	int id;
	double score;
	struct point pos;
	struct rec *next;
	unsigned flags : 3;
	unsigned mode : 5;
};

union num {
	int i;
	float f;
	unsigned char b[4];
};

enum color { RED, GREEN = 5, BLUE };

struct big {
	long a, b, c;
};

typedef struct point point_t;

int g_counter = 42;
static long s_total = -7;
double g_ratio = 0.5;
int g_arr[5] = { 1, 2, 3, 4, 5 };
int g_zero[12];
const char *g_msg = "hello";
struct rec g_rec;
static point_t origin = { -1, 1 };
unsigned char g_bytes[3] = { 0, 200, 'z' };

struct point make_point(int x, int y)
{
	struct point p = { x, y };

	return p;
}

struct big make_big(long a)
{
	struct big b = { a, a + 1, a + 2 };

	return b;
}

double half(double v)
{
	return v / 2;
}

float third(float v)
{
	return v / 3;
}

char *name_of(struct rec *r)
{
	return r->name;
}

long sum(const int *a, int n)
{
	long t = 0;
	int i;

	for (i = 0; i < n; i++)
		t += a[i];
	return t; /* stop here: sum */
}

unsigned char low(unsigned v)
{
	return v & 0xff;
}

enum color pick(int k)
{
	return k ? BLUE : RED;
}

static int helper(int depth)
{
	static int calls;
	int local = depth * 2;

	calls++;
	if (depth > 0)
		return helper(depth - 1) + local;
	return local; /* stop here: helper */
}

int main(int argc, char **argv)
{
	int n = 10;
	char c = 'A';
	short sh = -3;
	unsigned u = 4000000000u;
	long big = -1234567890123L;
	float f = 1.5f;
	double d = 2.25;
	int arr[4] = { 10, 20, 30, 40 };
	int *p = &arr[1];
	struct point pt = { 3, 4 };
	struct point *pp = &pt;
	union num un;
	enum color col = GREEN;
	char buf[8] = "abc";
	_Bool flag = 1;
	int *nullp = NULL;
	struct point pts[2] = { { 1, 2 }, { 5, 6 } };
	long total;

	un.i = 0x3fc00000;
	strcpy(g_rec.name, "first");
	g_rec.id = 1;
	g_rec.score = 9.75;
	g_rec.pos = pt;
	g_rec.next = &g_rec;
	g_rec.flags = 5;
	g_rec.mode = 17;
	total = sum(arr, 4); /* stop here: main */
	pt = make_point(n, c);
	total += make_big(total).c;
	d = half(d) + third(f);
	printf("%s %ld %d %d %g %u %d %d\n", name_of(&g_rec), total, helper(2), low(u),
	       d, pick(n), *p + pp->y + buf[0] + flag + sh + (nullp == NULL) + pts[1].x,
	       col + un.b[0] + (int)big + g_counter + (int)s_total + origin.x + g_bytes[1]);
	return g_ratio > 1;
}
