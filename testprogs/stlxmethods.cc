// stlxmethods: libstdc++ containers and smart pointers for the
// expressions C++ users type on them (v[1], v.size(), m.empty(), *up,
// sp->x, up.get(), s.length()), which gdb 13 evaluates with the
// libstdc++ xmethods without running the program, compared with ptdbg's
// (tests/integration/cxx-xmethods-gdb.sh).  Built at -O0: the inline
// member functions have no out-of-line copy to call.
#include <any>
#include <array>
#include <bitset>
#include <cstdio>
#include <cstring>
#include <deque>
#include <forward_list>
#include <list>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <variant>
#include <vector>

struct Pt {
	int x, y;
};

static int touched;

__attribute__((noinline)) static void touch()
{
	touched++;
}

__attribute__((noinline)) static int use(const std::vector<int> &rv, std::vector<int> *pv)
{
	return (int)rv.size() + (int)pv->size(); // use here
}

int main()
{
	std::vector<int> vi = { 1, 2, 3 };
	std::vector<int> vempty;
	std::vector<bool> vb = { true, false, true, true };
	std::vector<std::string> vs = { "a", "bc" };
	std::vector<Pt> vp = { { 1, 2 }, { 3, 4 } };
	std::vector<std::vector<int>> vv = { { 1 }, { 2, 3 } };
	std::array<int, 3> ar = { 7, 8, 9 };
	std::array<int, 0> ar0 = {};
	std::array<Pt, 2> ap = { { { 1, 2 }, { 3, 4 } } };
	std::deque<int> dq;
	for (int i = 0; i < 300; i++)
		dq.push_back(i * 2);
	std::deque<int> dqempty;
	std::deque<std::string> dqs = { "x", "y" };
	std::list<int> li = { 4, 5, 6 };
	std::list<int> lempty;
	std::forward_list<int> fl = { 1, 2 };
	std::forward_list<int> flempty;
	std::map<int, int> mi = { { 1, 2 }, { 3, 4 } };
	std::multimap<int, int> mm = { { 1, 1 }, { 1, 2 } };
	std::set<int> si = { 3, 1, 2 };
	std::multiset<int> msi = { 2, 2, 1 };
	std::unordered_map<int, int> um = { { 1, 10 } };
	std::unordered_set<int> us;
	std::unordered_multimap<int, int> umm = { { 1, 1 }, { 1, 2 } };
	std::unordered_multiset<int> ums = { 3, 3, 4 };
	std::unique_ptr<Pt> up(new Pt{ 5, 6 });
	std::unique_ptr<Pt> upnull;
	std::unique_ptr<int[]> uparr(new int[3]{ 1, 2, 3 });
	std::unique_ptr<int> upi(new int(7));
	std::shared_ptr<Pt> sp = std::make_shared<Pt>(Pt{ 7, 8 });
	std::shared_ptr<Pt> sp2 = sp;
	std::shared_ptr<Pt> spnull;
	std::shared_ptr<int[]> sparr(new int[2]{ 4, 5 });
	std::shared_ptr<int[2]> sparr2(new int[2]{ 6, 7 });
	std::weak_ptr<Pt> wp = sp;
	std::string s = "hello";
	std::string sempty;
	std::optional<int> oi = 5;
	std::optional<Pt> op = Pt{ 1, 2 };
	std::variant<int, std::string, Pt> va = 3;
	std::variant<int, std::string, Pt> vas = std::string("var");
	std::variant<int, std::string, Pt> vap = Pt{ 1, 2 };
	std::bitset<10> bs(0x205);
	std::bitset<70> bsbig;
	bsbig.set(1);
	bsbig.set(65);
	std::bitset<8> bsnone;
	std::any an = 4;
	std::any anempty;
	std::any anstr = std::string("in any");
	std::any anvec = std::vector<int>{ 1, 2 };
	std::any anmap = std::map<int, int>{ { 1, 2 } };
	std::any anpt = Pt{ 3, 4 };
	std::variant<int, std::vector<int>> vavec = std::vector<int>{ 3, 4 };
	std::bitset<0> bs0;
	auto vit = vi.begin() + 1;
	auto mit = mi.begin();
	auto lit = li.begin();
	auto sit = si.begin();
	auto dit = dq.begin() + 2;
	auto umit = um.begin();
	auto vend = vi.end();
	std::vector<int>::iterator vnull{};
	std::vector<int>::iterator vbad = vnull;
	void *nowhere = (void *)0x10;
	std::memcpy((void *)&vbad, &nowhere, sizeof(nowhere)); // an iterator holding garbage
	int x = 1;
	touch(); // xm here
	std::printf("%d\n", use(vi, &vi) + x + (int)vempty.size() + (int)vb.size() + (int)vs.size() + vp[0].x + (int)vv.size() + ar[0] + (int)ar0.size() + ap[0].x + (int)dq.size() + (int)dqempty.size() + (int)dqs.size() + (int)li.size() + (int)lempty.size() + (int)fl.empty() + (int)flempty.empty() + (int)mi.size() + (int)mm.size() + (int)si.size() + (int)msi.size() + (int)um.size() + (int)us.size() + (int)umm.size() + (int)ums.size() + up->x + (int)!upnull + uparr[0] + *upi + sp->x + (int)!spnull + sparr[0] + sparr2[0] + (int)wp.expired() + (int)s.size() + (int)sempty.size() + *oi + op->x + (int)va.index() + (int)vas.index() + (int)vap.index() + (int)bs.count() + (int)bsbig.count() + (int)bsnone.count() + (int)an.has_value() + (int)anempty.has_value() + (int)anstr.has_value() + (int)anvec.has_value() + (int)anmap.has_value() + (int)anpt.has_value() + (int)vavec.index() + (int)bs0.size() + *vit + mit->first + *lit + *sit + *dit + umit->first + (int)(vend - vit));
	return 0; // main end
}
