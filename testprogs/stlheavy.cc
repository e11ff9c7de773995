// stlheavy: code written with the standard library: std::sort with a
// comparison lambda, a std::map counting words, std::string building.
// At -O2 the algorithms are inlined several levels deep into the caller
// (std::sort's introsort and insertion sort, the map's tree walk), so
// most lines belong to inline frames of headers, and some of the
// template code stays out of line (std::__introsort_loop, the map's
// _M_emplace_hint_unique).
// Exercises stepping in and out of deep inline chains from library
// headers, and calls to template instances named by long mangled names.
#include <algorithm>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

struct Rec {
	std::string word;
	int n;
};

__attribute__((noinline)) static std::map<std::string, int> count(const char *text)
{
	std::map<std::string, int> m;
	std::string w;

	for (const char *p = text;; p++) {
		if (*p >= 'a' && *p <= 'z') {
			w += *p;
			continue;
		}
		if (!w.empty())
			m[w]++;
		w.clear();
		if (!*p)
			break;
	}
	return m;
}

__attribute__((noinline)) static std::vector<Rec> rank(const std::map<std::string, int> &m)
{
	std::vector<Rec> v;

	for (const auto &kv : m)
		v.push_back({ kv.first, kv.second });
	std::sort(v.begin(), v.end(), [](const Rec &a, const Rec &b) {
		return a.n != b.n ? a.n > b.n : a.word < b.word;
	});
	return v;
}

int main()
{
	auto m = count("the cat and the dog and the bird saw a cat by the old dog house");
	auto v = rank(m);
	std::string top;
	for (size_t i = 0; i < v.size() && i < 3; i++)
		top += v[i].word + "=" + std::to_string(v[i].n) + " ";
	std::printf("%zu words, top: %s\n", m.size(), top.c_str());
	return 0;
}
