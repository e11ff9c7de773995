// shapes: C++ classes with virtual methods in a namespace, for values as
// gdb shows C++ (type names without the struct keyword, qualified names,
// members of *this without this->, static and namespace variables, and
// references: variables, parameters and members).
#include <cstdio>

namespace geo {
int count = 0;

struct Shape {
	virtual ~Shape() {}
	virtual double area() const = 0;
	int id;
};

struct Rect : Shape {
	double w, h;
	Rect(double a, double b) : w(a), h(b) { id = 1; }
	double area() const override
	{
		double r = w * h;
		return r;
	}
};

double total(Shape **s, int n)
{
	double t = 0;

	for (int i = 0; i < n; i++) {
		t += s[i]->area();
		count++;
	}
	return t;
}
struct Holder {
	int &ref;
	const double &cref;
	int v;
};

int grow(Rect &r, const int &k, int *&p, Holder &h)
{
	r.w += k;
	*p += h.ref;
	return h.v + (int)h.cref;
}
} // namespace geo

int main()
{
	geo::Rect r(2, 3);
	geo::Shape *s[1] = { &r };
	double t = geo::total(s, 1);
	int k = 2, one = 1, *p = &one;
	geo::Holder h{ k, t, 7 };
	int g = geo::grow(r, k, p, h);

	std::printf("%g %d %d %d\n", t, geo::count, g, one);
	return 0;
}
