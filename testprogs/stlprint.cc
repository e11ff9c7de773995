// stlprint: the libstdc++ types C++ users print most, each in a few
// states (empty, short, long, nested), for the pretty printers of
// ptdbg's print compared with gdb 13's libstdc++ printers
// (tests/integration/cxx-printers-gdb.sh).  fill() sets the containers
// once, change() gives them other contents (so a point before change()
// in a recording saw other contents than the present), and corrupt()
// holds containers whose insides are garbage, as an uninitialised
// variable's are: printing them must end, with gdb's output or an error.
#include <array>
#include <cstdio>
#include <cstring>
#include <deque>
#include <forward_list>
#include <list>
#include <map>
#include <memory>
#include <new>
#include <optional>
#include <queue>
#include <set>
#include <stack>
#include <string>
#include <tuple>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

struct Pt {
	int x, y;
};

struct Holder {
	std::string name;
	std::vector<int> v;
	std::unique_ptr<Pt> p;
};

std::string g_str = "global";
std::vector<int> g_vec;
std::map<int, int> g_map;
std::list<int> g_list;
std::set<int> g_set;
std::shared_ptr<int> g_sp;

__attribute__((noinline)) static void fill()
{
	g_vec = { 1, 2, 3 };
	g_map = { { 1, 2 }, { 3, 4 } };
	g_list = { 10, 20 };
	g_set = { 5 };
	g_sp = std::make_shared<int>(8);
	g_str = "before";
}

__attribute__((noinline)) static void change()
{
	g_vec.push_back(4);
	g_vec[0] = 100;
	g_map[7] = 8;
	g_map.erase(1);
	g_list.push_front(5);
	g_set.clear();
	g_sp.reset();
	g_str = "after, and long enough not to fit the string's own buffer";
}

__attribute__((noinline)) static int corrupt()
{
	// Raw bytes shaped as containers: a list whose node links to itself,
	// a map whose node count lies, a vector whose end is before its
	// start, a string with an absurd length and a pointer nowhere.
	alignas(std::list<int>) unsigned char lb[sizeof(std::list<int>)];
	alignas(std::map<int, int>) unsigned char mb[sizeof(std::map<int, int>)];
	alignas(std::vector<int>) unsigned char vb[sizeof(std::vector<int>)];
	alignas(std::string) unsigned char sb[sizeof(std::string)];
	void **lp = (void **)lb, **mp = (void **)mb, **vp = (void **)vb, **sp = (void **)sb;

	// _M_node {_M_next, _M_prev}, _M_size: a node pointing at another
	// that points to itself
	static void *loop[3];
	loop[0] = loop;
	loop[1] = loop;
	lp[0] = loop;
	lp[1] = loop;
	lp[2] = (void *)5;
	// _M_impl: compare (8), header {color, parent, left, right}, count
	memset(mb, 0, sizeof(mb));
	mp[2] = (void *)0x10; // parent nowhere
	mp[3] = (void *)0x10;
	mp[4] = (void *)0x10;
	mp[5] = (void *)3;
	vp[0] = (void *)0x20;
	vp[1] = (void *)0x10;
	vp[2] = (void *)0x10;
	sp[0] = (void *)0x18;
	sp[1] = (void *)1000000000;
	// a tree node whose links all lead back to itself: a walk to the
	// next node never ends (gdb's printer loops forever on it)
	alignas(std::map<int, int>) unsigned char cb[sizeof(std::map<int, int>)];
	void **cp = (void **)cb;
	static void *cyc[6];
	cyc[1] = cyc;
	cyc[2] = cyc;
	cyc[3] = cyc;
	memset(cb, 0, sizeof(cb));
	cp[2] = cyc;
	cp[3] = cyc;
	cp[4] = cyc;
	cp[5] = (void *)5;
	auto &bad_cycle = *std::launder(reinterpret_cast<std::map<int, int> *>(cb));
	(void)bad_cycle;
	auto &bad_list = *std::launder(reinterpret_cast<std::list<int> *>(lb));
	auto &bad_map = *std::launder(reinterpret_cast<std::map<int, int> *>(mb));
	auto &bad_vec = *std::launder(reinterpret_cast<std::vector<int> *>(vb));
	auto &bad_str = *std::launder(reinterpret_cast<std::string *>(sb));
	(void)bad_list;
	(void)bad_map;
	(void)bad_vec;
	(void)bad_str;
	return 0; // corrupt here
}

__attribute__((noinline)) static std::string label(const std::vector<int> &v,
						   const std::string &name, std::map<int, int> m,
						   std::vector<int> empty, int k)
{
	std::string r = name;

	r += ":" + std::to_string(v.size() + m.size() + empty.size() + k);
	return r; // label end
}

__attribute__((noinline)) static std::vector<int> evens(int n)
{
	std::vector<int> r;

	for (int i = 0; i < n; i++)
		r.push_back(2 * i);
	return r;
}

int main()
{
	std::string s = "hello";
	std::string empty;
	std::string longs = "a string longer than fifteen characters";
	std::string esc = "tab\there \"quoted\"\n";
	std::string rep(30, 'z');
	std::string big(300, 'b');
	std::wstring ws = L"wide";
	std::vector<int> vi = { 1, 2, 3 };
	std::vector<int> vempty;
	std::vector<int> vbig(250);
	std::vector<bool> vb = { true, false, true, true };
	std::vector<std::string> vs = { "a", "bc" };
	std::vector<std::vector<int>> vv = { { 1 }, { 2, 3 } };
	std::vector<Pt> vp = { { 1, 2 }, { 3, 4 } };
	std::vector<char> vc = { 'h', 'i' };
	std::vector<double> vd = { 1.5, -2.25 };
	std::unique_ptr<int> up(new int(7));
	std::unique_ptr<Pt> upnull;
	std::unique_ptr<int[]> uparr(new int[2]{ 1, 2 });
	std::shared_ptr<int> sp = std::make_shared<int>(42);
	std::shared_ptr<int> sp2 = sp;
	std::weak_ptr<int> wp = sp;
	std::shared_ptr<Pt> spnull;
	std::shared_ptr<Pt> sppt(new Pt{ 5, 6 });
	std::map<int, int> mi = { { 1, 2 }, { 3, 4 } };
	std::map<std::string, int> ms = { { "one", 1 }, { "two", 2 } };
	std::map<int, std::vector<int>> mv = { { 1, { 9, 8 } } };
	std::map<int, int> mempty;
	std::multimap<int, int> mm = { { 1, 1 }, { 1, 2 } };
	std::set<int> si = { 3, 1, 2 };
	std::multiset<int> msi = { 2, 2, 1 };
	std::set<std::string> ss = { "x", "y" };
	std::list<int> li = { 4, 5, 6 };
	std::list<std::string> ls = { "p", "q" };
	std::list<int> lempty;
	std::optional<int> oi = 5;
	std::optional<int> onone;
	std::optional<std::string> ostr = "opt";
	std::pair<int, std::string> pr = { 1, "one" };
	std::array<int, 3> ar = { 7, 8, 9 };
	std::array<std::string, 2> as = { "m", "n" };
	std::unordered_map<int, int> um = { { 1, 10 } };
	std::unordered_set<int> us = { 42 };
	std::deque<int> dq = { 1, 2, 3 };
	Holder h{ "holder", { 1, 2 }, std::make_unique<Pt>(Pt{ 3, 4 }) };
	std::unique_ptr<std::string> upstr(new std::string("owned"));
	std::optional<std::vector<int>> ovec = std::vector<int>{ 4, 5 };
	std::optional<std::pair<int, int>> opair = std::pair<int, int>{ 1, 2 };
	std::weak_ptr<int> wexp;
	{
		auto tmp = std::make_shared<int>(1);
		wexp = tmp;
	}
	std::map<std::string, std::vector<std::string>> msv = { { "k", { "v1", "v2" } } };
	std::vector<int> v200(200, 7);
	std::vector<int> v201(201);
	std::u16string u16 = u"sixteen";
	std::u32string u32 = U"thirty-two";
	std::string nul("a\0b", 3);
	std::vector<std::map<int, int>> vm = { { { 1, 1 } }, {} };
	std::unordered_map<std::string, int> ums = { { "a", 1 }, { "b", 2 } };
	std::unordered_multiset<int> ums2 = { 3, 3 };
	std::deque<std::string> dqs(130, "s");
	std::tuple<int, std::string, double> tu{ 1, "two", 3.5 };
	std::tuple<> tempty;
	std::tuple<std::vector<int>> tv{ { 1, 2 } };
	std::forward_list<int> fl = { 1, 2 };
	std::forward_list<int> flempty;
	std::stack<int> st;
	st.push(1);
	st.push(2);
	std::queue<std::string> qu;
	qu.push("q");
	std::priority_queue<int> pq;
	pq.push(3);
	pq.push(9);
	std::map<int, int> mbig;
	for (int i = 0; i < 210; i++)
		mbig[i] = i;
	for (int i = 0; i < 250; i++)
		vbig[i] = i;

	std::string lab = label(vi, s, mi, vempty, 3);
	std::vector<int> ev = evens(4);
	fill();
	change();
	corrupt();
	std::printf("%s %zu %zu %d\n", lab.c_str(), upstr->size() + ovec->size() + msv.size() + v200.size() + v201.size() + u16.size() + u32.size() + nul.size() + vm.size() + ums.size() + (size_t)std::get<0>(tu) + std::tuple_size<decltype(tempty)>::value + std::get<0>(tv).size() + (size_t)fl.empty() + (size_t)flempty.empty() + st.size() + qu.size() + pq.size() + ums2.size() + dqs.size() + (size_t)opair->first + (size_t)wexp.expired() + ev.size() + vi.size() + vs.size() + mi.size() + li.size() + um.size() +
					    us.size() + dq.size() + ar.size() + as.size(),
		    s.size() + ws.size() + g_vec.size(), *up + *sp + pr.first + (oi ? *oi : 0) +
							(int)(h.v.size() + vb.size() + vc.size() + vd.size()));
	return 0; // main end
}
