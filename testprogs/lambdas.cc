// lambdas: C++ as applications are written: a class hierarchy called
// through virtual functions from a template algorithm, lambdas (one
// capturing by reference, one stored in std::function), and an exception
// thrown from inside a lambda four frames below its try, through a
// virtual call and a template.  Exercises indirect calls through vtables
// and std::function's invoker, and an unwind across frames of different
// kinds (lambda, template instance, virtual method).
#include <cstdio>
#include <functional>
#include <stdexcept>
#include <vector>

struct Shape {
	virtual ~Shape() {}
	virtual int area() const = 0;
	virtual int visit(const std::function<int(int)> &f) const { return f(area()); }
};

struct Rect : Shape {
	int w, h;
	Rect(int w_, int h_) : w(w_), h(h_) {}
	int area() const override { return w * h; }
};

struct Square : Rect {
	explicit Square(int s) : Rect(s, s) {}
	int area() const override { return Rect::area() + 0; }
	int visit(const std::function<int(int)> &f) const override { return f(area()) + 1; }
};

template <typename T, typename F>
int fold(const std::vector<T *> &v, F f)
{
	int acc = 0;
	for (T *x : v)
		acc = f(acc, x);
	return acc;
}

int checked(const std::vector<Shape *> &v, int limit)
{
	std::function<int(int)> check = [limit](int a) {
		if (a > limit)
			throw std::out_of_range("too big");
		return a;
	};
	return fold(v, [&check](int acc, Shape *s) { return acc + s->visit(check); });
}

int main()
{
	Rect r1(2, 3), r2(4, 5);
	Square s1(3), s2(7);
	std::vector<Shape *> v = { &r1, &s1, &r2, &s2 };
	int total = 0, caught = 0;

	total = fold(v, [](int acc, Shape *s) { return acc + s->area(); });
	try {
		total += checked(v, 100);
		total += checked(v, 30);
	} catch (const std::out_of_range &e) {
		caught++;
	}
	std::printf("total=%d caught=%d\n", total, caught);
	return 0;
}
