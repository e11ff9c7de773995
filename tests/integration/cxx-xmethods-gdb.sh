#!/usr/bin/env bash
# C++ expressions on the library's containers and smart pointers, which
# gdb 13 evaluates with the xmethods libstdc++ ships (xmethods.py)
# without running the program, and ptdbg natively
# (src/values/xmethods.c), on testprogs/stlxmethods (-O0: no out-of-line
# copy of the inline member functions to call).  Each expression is
# printed by both debuggers and the outputs compared line for line,
# stack addresses aside:
#  - std::vector (of int, bool, strings, structs, vectors, empty):
#    [i], size(), empty(), front(), back(), at() in and out of range
#    (gdb's Python IndexError), the results' members, their /x, their
#    address, assignment through [i], arithmetic on them, the history;
#  - std::array (and an empty one, whose front() is at address 0),
#    std::deque (300 elements over several buffers, at() past the end,
#    a float index), std::list and forward_list, the associative and
#    unordered containers' size() and empty();
#  - unique_ptr (of a struct, null, of an array), shared_ptr (of a
#    struct, null, of arrays): *p, p->x, p.get(), p[i], use_count()
#    (the shipped worker's recursion error);
#  - whatis and ptype of the results: the type the worker declares
#    (std::size_t, Pt *), where gdb evaluates for the type only;
#  - std::string's size(), length(), empty(), capacity(), [i], at(),
#    front(), back(), c_str(), data(), which gdb calls in libstdc++;
#  - the printers of std::variant, std::bitset and std::any (holding
#    an int, a string, a struct, a vector, a map), and of the iterators
#    (what they point to, as gdb's printers show them, null or
#    pointing nowhere), info locals;
#  - the errors: a method the class does not have, one it has but the
#    program has no copy of (gdb cannot call it), an operator it does
#    not have, a method on an int, wrong arguments, a method named
#    without a call (overloaded, or without a copy); print pretty on;
#  - in a frame where the vector is a reference and a pointer;
#  - on garbage (a list whose links go round), size() ends;
#  - in a recording, back before a call (reverse-next): what gdb prints
#    live there.
. "$(dirname "$0")/lib.bash"
need_prereqs stlxmethods stlprint
need_gdb

norm() {
	grep -v -e 'libthread_db' -e '^\[Thread debugging' -e '^\[Inferior 1 ' |
		sed -e 's/0x7ff[0-9a-f]*/STACK/g'
}
compare() { # NAME: ptdbg's and gdb's outputs of CMDS, compared
	ptdbg_batch -- "$TESTPROGS/stlxmethods" | norm >"$TMPDIR/ptdbg.$1"
	gdb_batch -- "$TESTPROGS/stlxmethods" | norm >"$TMPDIR/gdb.$1"
	[ "$(wc -l <"$TMPDIR/gdb.$1")" -gt 5 ] || { cat "$TMPDIR/gdb.$1" >&2; die "$1: gdb did not get there"; }
	diff -u "$TMPDIR/gdb.$1" "$TMPDIR/ptdbg.$1" >&2 ||
		die "$1: ptdbg's values differ from gdb's (- gdb, + ptdbg)"
}

vector=('p vi[1]' 'p vi[5]' 'p vi[-1]' 'p vi.at(-1)' 'p vi.at(1,2)' 'p vi[1,2]' 'p vi.size()'
	'p vi.empty()' 'whatis vi.empty()' 'p vempty.empty()' 'p vempty.size()' 'p vempty.front()'
	'p vempty.back()' 'p vempty[0]' 'p vb.size()' 'p vb[0]' 'p vb[1]' 'p vb.at(9)' 'p vb.front()'
	'p vb.back()' 'whatis vb[0]' 'p &vb[0]' 'p vs[1]' 'p vs.at(0)' 'p vp[1]' 'p vp[1].y'
	'p vp.back().x' 'p vv[1][1]' 'p vv[1]' 'p vv.at(1).size()' 'p/x vi[2]' 'p vi[1] = 20' 'p vi'
	'p vi[1] = 2' 'p vi[vi[0]]' 'p vi[1.5]' 'p vi["a"]' 'p vi[ar[0]-6]' 'p &vi[1]' 'p *&vi[1]'
	'p sizeof(vi[0])' 'p sizeof(vi.size())' 'whatis vi[0]' 'ptype vp[0]' 'whatis vp.front()'
	'p -vi[1]' 'p vi[1]+vi[2]' 'p vi.size()*2' 'p vi.size() - 5' 'output vi[1]' 'echo \n' 'p $'
	'p $$2' 'p vi.size() == 3' 'p !vi.empty()' 'p vi.at(5)' 'p (&vi)->size()' 'p (&vi)->at(5)'
	'p vi . size ( )' 'p vi.at()' 'p vi.at("a")' 'p vi.size(1)' 'p vv[1].back()'
	'p vi.at(vi.size()-1)' 'p/x vp.at(1)' 'output vp.front()' 'echo \n' 'whatis vi.size()'
	'ptype vi.size()' 'whatis vb.size()' 'p vi.size()' 'whatis $' 'whatis (vi.size())')
array=('p ar[1]' 'p ar.at(3)' 'p ar.at(-1)' 'p ar.size()' 'whatis ar.size()' 'p ar.empty()'
	'p ar.front()' 'p ar.back()' 'p ar0.size()' 'p ar0.empty()' 'p ar0.front()' 'p ar0.back()'
	'p ar0[0]' 'p ar0.at(0)' 'p ap[1].y' 'p &ar[1]' 'whatis ar[0]' 'whatis ar0.front()' 'p ar.at()'
	'p ap.front()' 'p/x ap.back()' 'p ar[1.5]')
deque=('p dq[1]' 'p dq[150]' 'p dq[299]' 'p dq[300]' 'p dq.at(299)' 'p dq.at(300)' 'p dq.size()'
	'p dq.empty()' 'p dq.front()' 'p dq.back()' 'p dqempty.size()' 'p dqempty.empty()'
	'p dqempty.back()' 'p dqempty.front()' 'p dqs[1]' 'p &dq[200]' 'p dq[-1]' 'p dq.at(-1)'
	'whatis dq.size()' 'whatis li.size()'
	'p dq.at()' 'p dq.at(1.5)')
lists=('p li.size()' 'p li.empty()' 'p li.front()' 'p li.back()' 'p lempty.size()'
	'p lempty.empty()' 'p lempty.front()' 'p li[0]' 'p li.at(0)' 'whatis li.front()'
	'p &li.front()' 'p fl.empty()' 'p fl.front()' 'p flempty.empty()' 'p flempty.front()'
	'p fl.size()' 'whatis fl.front()')
assoc=('p mi.size()' 'p mi.empty()' 'whatis mi.size()' 'p mm.size()' 'p si.size()' 'p msi.size()'
	'p um.size()' 'p us.empty()' 'p umm.size()' 'p ums.size()' 'p ums.empty()' 'p mi.front()'
	'p mi.foo()' 'p/x mi.size()' 'p mi.at(1)' 'p si.count(1)' 'p vi.data()' 'p vi.capacity()')
smart=('p *up' 'p up->x' 'p up.get()' 'whatis up.get()' 'p (*up).y' 'p up.get()->y' 'p *upnull'
	'p upnull->x' 'p upnull.get()' 'p uparr[1]' 'p uparr.get()' 'p *uparr' 'p uparr->x'
	'whatis uparr[0]' 'p *upi' 'p/x *upi' 'p &*up' 'p *sp' 'p sp->y' 'p sp.get()'
	'p sp.use_count()' 'p sp.unique()' 'p *spnull' 'p spnull.get()' 'p sparr[1]' 'p sparr.get()'
	'p *sparr' 'p sparr2[1]' 'p sparr2[2]' 'p sparr2.get()' 'p *wp' 'p wp->x' 'p up->z' 'p up.x'
	'whatis sp.get()' 'whatis *sp' 'whatis sp->x' 'ptype *sp' 'whatis uparr.get()'
	'whatis sparr.get()' 'whatis uparr[0]' 'p up[0]' 'p sp[0]' 'p sp.reset()' 'p up.release()'
	'p oi.has_value()' 'p wp.lock()' 'p oi.has_value' 'p mi.at' 'p vi.capacity' 'p vi.empty'
	'p vi.front' 'p *vi' 'p vi->x' 'p *x' 'p x.size()' 'p x[0]' 'p x->y' 'p x.foo'
	'p vi.x' 'p vp.x' 'p vi.foo(1)' 'p vp[0][0]' 'p vp[0].x.size()')
string=('p s.at(10)' 'p s.front()' 'p s.back()' 'p s.data()' 'p s.c_str()' 'p s.capacity()'
	'p s.empty()' 'p sempty.empty()' 'p s.at(1)' 'p s[1]' 'p s.length()' 'p s.size()' 'p s[10]'
	'p sempty.size()' 'p s.at(-1)' 'p s.at()' 'p s.size(1)' 'p s.empty(2)' 'p s[1,2]' 'p s["a"]'
	'p s.at("a")' 'p vs[1].size()' 'p vs[1][0]' 'p s.size() - 10' 'p/x s[0]' 'p vs.back().back()'
	'p vs[1].capacity()' 'p sempty.capacity()' 'whatis s.size()' 'whatis s[0]' 'whatis s.at(1)'
	'whatis s.c_str()')
printers=('p va' 'p vas' 'p vap' 'p bs' 'p bsbig' 'p bsnone' 'p vit' 'p mit' 'p lit' 'p sit'
	'p dit' 'p umit' 'p vend' 'p/x bs' 'p/x va' 'p/x vit' 'p/x mit' 'p an' 'p anempty' 'p anstr'
	'p anvec' 'p anmap' 'p anpt' 'p/x anpt' 'p vavec' 'p bs0' 'p vnull' 'p vbad' 'info locals')
pretty=('set print pretty on' 'p vap' 'p bs' 'p mit' 'p va' 'p *up' 'p *sp' 'p vp[1]' 'p vv[1]'
	'p vs.front()' 'p ap.back()' 'p anvec' 'p anmap' 'p vavec' 'info locals')
CMDS=("break $(line_of stlxmethods.cc '// xm here')" run "${vector[@]}" "${array[@]}" "${deque[@]}"
	"${lists[@]}" "${assoc[@]}" "${smart[@]}" "${string[@]}" "${printers[@]}" "${pretty[@]}")
compare live
for want in '^\$1 = 2$' '^\$[0-9]* = 300$' \
	"^Python Exception <class 'IndexError'>: Vector index \"5\" should not be >= 3.$" \
	'^\$[0-9]* = (Pt \*) 0x[0-9a-f]*$' '^\$[0-9]* = {x = 5, y = 6}$' \
	'^\$[0-9]* = (__gnu_cxx::__alloc_traits<std::allocator<char>, char>::value_type &) @STACK: 101 .e.$'; do
	qgrep "$want" "$TMPDIR/ptdbg.live" || die "live: no line matching $want"
done

# A vector as a reference and through a pointer (the frame of use()),
# and the caller's after up.
CMDS=('break use' run 'p rv[1]' 'p rv.size()' 'p rv.back()' 'p pv->size()' 'p (*pv)[2]'
	'p pv->at(3)' 'p pv->empty()' 'p &rv[0] == &(*pv)[0]' up 'p vi.back()' 'p dq[2]' 'p mi.size()')
compare frame

# Garbage (testprogs/stlprint's corrupt()): a list whose node links to
# itself, whose size() gdb's worker walks forever; ptdbg's ends.
ex=()
for c in "break $(line_of stlprint.cc 'return 0; // corrupt here')" run 'p bad_list.size()' \
	'p bad_list.empty()' 'p bad_vec.size()' 'p bad_map.empty()' 'p 1'; do
	ex+=(-ex "$c")
done
timeout 60 "$PTDBG" -batch "${ex[@]}" "$TESTPROGS/stlprint" >"$TMPDIR/garbage" 2>&1 </dev/null
for want in "the list's links do not end (they come back to node 0x[0-9a-f]*)" '\$1 = false' \
	'\$2 = -4' '\$3 = false' '\$4 = 1'; do
	grep -x "$want" "$TMPDIR/garbage" >/dev/null || {
		cat "$TMPDIR/garbage" >&2
		die "garbage: no line matching $want"
	}
done

# In a recording, back before touch() (reverse-next): the same values,
# what gdb prints live at that line.
past=('p vi[1]' 'p vi.size()' 'p vb[2]' 'p dq[150]' 'p dq.back()' 'p li.size()' 'p li.back()'
	'p mi.size()' 'p um.empty()' 'p *up' 'p sp->y' 'p ar.at(2)' 'p s.length()' 'p vs.at(1)'
	'p vi.at(3)')
here=$(line_of stlxmethods.cc '// xm here')
CMDS=("break $here" run record next reverse-next 'echo BEGIN\n' "${past[@]}" 'echo END\n')
ptdbg_batch -- "$TESTPROGS/stlxmethods" | norm >"$TMPDIR/ptdbg.past"
sed -n '/^BEGIN$/,/^END$/p' "$TMPDIR/ptdbg.past" |
	grep -v -e '^warning: memory is shown as it is now' -e '^note: the registers' >"$TMPDIR/ptdbg.past.sec"
sed -n '/^BEGIN$/q;p' "$TMPDIR/ptdbg.past" | tail -n 1 | qgrep "^${here#*:}	" || {
	cat "$TMPDIR/ptdbg.past" >&2
	die "reverse-next did not go back before touch()"
}
CMDS=("break $here" run 'echo BEGIN\n' "${past[@]}" 'echo END\n')
gdb_batch -- "$TESTPROGS/stlxmethods" | norm | sed -n '/^BEGIN$/,/^END$/p' >"$TMPDIR/gdb.past.sec"
[ "$(wc -l <"$TMPDIR/gdb.past.sec")" -gt 10 ] || die "gdb did not get to $here"
diff -u "$TMPDIR/gdb.past.sec" "$TMPDIR/ptdbg.past.sec" >&2 ||
	die "in the past the values differ from gdb's live ones (- gdb, + ptdbg)"
note "$(cat "$TMPDIR"/ptdbg.live "$TMPDIR"/ptdbg.frame "$TMPDIR"/ptdbg.past.sec | wc -l) lines identical to gdb's"
exit 0
