// shapes: C++ classes with virtual methods in a namespace, for values as
// gdb shows C++ (type names without the struct keyword, qualified names,
// members of *this without this->, static and namespace variables).
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
} // namespace geo

int main()
{
	geo::Rect r(2, 3);
	geo::Shape *s[1] = { &r };
	double t = geo::total(s, 1);

	std::printf("%g %d\n", t, geo::count);
	return 0;
}
