// inherit: C++ class layouts that need glue code: multiple inheritance
// (a call through the second base's vtable goes to a thunk that adjusts
// `this` and jumps to the method), virtual inheritance (the adjustment
// is read from the vtable), a covariant return (the thunk also adjusts
// the pointer returned), nested try/catch with a rethrow, and work done
// outside main: a static constructor, a static destructor and an atexit
// handler.
// Exercises thunks (code with no line of its own that jumps into a
// method), returns through a thunk, an exception caught, rethrown and
// caught again, and code run before and after main.
#include <cstdio>
#include <cstdlib>
#include <stdexcept>

struct Named {
	virtual ~Named() {}
	virtual const char *name() const { return "named"; }
};

struct Counted {
	int count = 0;
	virtual ~Counted() {}
	virtual int bump(int by) { return count += by; }
};

struct Node : virtual Named, Counted {
	int id;
	explicit Node(int i) : id(i) {}
	const char *name() const override { return id & 1 ? "odd" : "even"; }
	int bump(int by) override { return count += by * id; }
	virtual Node *self() { return this; }
};

struct Base2 {
	virtual ~Base2() {}
	virtual Base2 *clone() const = 0;
	virtual int weight() const = 0;
};

struct Leaf : Node, Base2 {
	explicit Leaf(int i) : Node(i) {}
	Leaf *clone() const override { return new Leaf(id + 10); }
	int weight() const override { return id * 3; }
	Leaf *self() override { return this; }
};

static int log_[16], nlog;
static void note(int v)
{
	if (nlog < 16)
		log_[nlog++] = v;
}

struct Registry {
	int started;
	Registry() : started(42) { note(1); }
	~Registry() { note(2); std::printf("registry down after %d notes\n", nlog); }
};
static Registry registry;

static void at_end() { note(3); }

__attribute__((noinline)) int use_counted(Counted *c, int by) { return c->bump(by); }
__attribute__((noinline)) const char *use_named(const Named *n) { return n->name(); }
__attribute__((noinline)) int use_base2(const Base2 *b)
{
	Base2 *copy = b->clone();
	int w = copy->weight();
	delete copy;
	return w;
}

__attribute__((noinline)) int risky(int v)
{
	if (v % 3 == 0)
		throw std::runtime_error("multiple of three");
	return v * 2;
}

__attribute__((noinline)) int layered(int v)
{
	try {
		try {
			return risky(v);
		} catch (const std::runtime_error &e) {
			note(v);
			throw;
		}
	} catch (const std::exception &e) {
		return -v;
	}
}

int main()
{
	std::atexit(at_end);
	Leaf a(3), b(4);
	int total = registry.started;
	total += use_counted(&a, 2) + use_counted(&b, 5);
	total += use_named(&a)[0] + use_named(&b)[0];
	total += use_base2(&a) + use_base2(&b);
	total += a.self()->id;
	for (int v = 1; v <= 4; v++)
		total += layered(v);
	std::printf("total=%d notes=%d\n", total, nlog);
	return 0;
}
