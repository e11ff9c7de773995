#!/usr/bin/env bash
# C++ values as gdb 13 shows them (testprogs/shapes): class, struct and
# enum names without the keyword and with their namespaces ("geo::Shape
# *"), a derived object with its base part first ("{<geo::Shape> = {...},
# w = 2, h = 3}"), members of *this by their plain name in a method (also a
# base class's), qualified names of namespace variables (geo::count) and
# gdb's message for one that is not there, breakpoints on qualified
# function names, `ptype` of a derived class with its base list, and C++
# references ("(const int &) @0x...: 2", coerced in expressions, members).
# Outputs are identical to gdb's, stack addresses aside; ptype's methods,
# which ptdbg does not list, are compared apart.
. "$(dirname "$0")/lib.bash"
need_prereqs shapes
need_gdb

norm() {
	grep -v -e 'libthread_db' -e '^\[Thread debugging' -e '^\[Inferior 1 ' |
		sed -e 's/0x7ff[0-9a-f]*/STACK/g'
}
CMDS=('break geo::Rect::area' run bt 'p *this' 'p w' 'p h' 'p w * h' 'p this->w' 'p id'
	'p geo::count' 'whatis this' 'whatis *this' 'p s' up 'p s' 'p *s[0]' 'p s[0]->id' 'whatis s'
	'p geo::nosuch' 'p nosuch' 'p &geo::count' 'p r' down finish)
ptdbg_batch -- "$TESTPROGS/shapes" | norm >"$TMPDIR/ptdbg.out"
gdb_batch -- "$TESTPROGS/shapes" | norm >"$TMPDIR/gdb.out"
diff -u "$TMPDIR/gdb.out" "$TMPDIR/ptdbg.out" >&2 || die "C++ values differ from gdb (- gdb, + ptdbg)"
for want in '^\$1 = {<geo::Shape> = {_vptr.Shape = 0x[0-9a-f]* <vtable for geo::Rect+16>, id = 1}, w = 2, h = 3}$' \
	'^\$2 = 2$' '^type = geo::Shape \*\*$' '^No symbol "nosuch" in namespace "geo"\.$'; do
	qgrep "$want" "$TMPDIR/ptdbg.out" || die "no line matching $want"
done

# references: parameters, their referents in expressions, members
CMDS=('break geo::grow' run 'p r' 'p k' 'p k + 1' 'p p' 'p *p' 'p h' 'p h.ref' 'p h.ref * 3'
	'p &k' 'p r.w' 'whatis r' 'whatis p' 'whatis h.cref' 'info args' 'ptype h' finish)
ptdbg_batch -- "$TESTPROGS/shapes" | norm >"$TMPDIR/ptdbg3.out"
gdb_batch -- "$TESTPROGS/shapes" | norm >"$TMPDIR/gdb3.out"
diff -u "$TMPDIR/gdb3.out" "$TMPDIR/ptdbg3.out" >&2 || die "C++ references differ from gdb (- gdb, + ptdbg)"
qgrep '^\$[0-9]* = (const int &) @STACK: 2$' "$TMPDIR/ptdbg3.out" || die "no reference printed as gdb does"

# ptype: the same head and data members; gdb also lists the methods
CMDS=('break geo::Rect::area' run 'ptype *this' 'ptype geo::count')
ptdbg_batch -- "$TESTPROGS/shapes" | norm >"$TMPDIR/ptdbg2.out"
gdb_batch -- "$TESTPROGS/shapes" | norm | awk '/^  public:$/ { skip = 1 } /^}/ { skip = 0 } !skip' >"$TMPDIR/gdb2.out"
diff -u "$TMPDIR/gdb2.out" "$TMPDIR/ptdbg2.out" >&2 || die "C++ ptype differs from gdb's without its methods"
qgrep '^type = const struct geo::Rect : public geo::Shape {$' "$TMPDIR/ptdbg2.out" || die "no base list in ptype"
# a virtual method through a pointer to the abstract base: gdb calls the
# override (6); ptdbg, which runs no code in the program, says so (it once
# said the pure declaration "may be inlined")
CMDS=('break geo::total' run 'p s[0]->area()' 'p (*s[0]).area()')
out=$(ptdbg_batch -- "$TESTPROGS/shapes")
[ "$(grep -c '^cannot call functions in the program: ptdbg does not run code in it$' <<<"$out")" = 2 ] ||
	die "virtual call: '$out'"
note "$(wc -l <"$TMPDIR/ptdbg.out") + $(wc -l <"$TMPDIR/ptdbg2.out") lines identical to gdb's"
exit 0
