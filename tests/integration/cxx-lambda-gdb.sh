#!/usr/bin/env bash
# Lambdas as gdb 13 shows them (testprogs/lambdas, -O0 and -O2): the
# operator() of a lambda is described inside its enclosing function's DIE
# (in the closure's DW_TAG_structure_type) but its code lies outside that
# function's ranges, so it is found by its own ranges.  Inside it: the
# stop and frame lines name "operator()" with its arguments (__closure,
# the parameters), info locals shows the captures, info args, print of a
# capture and of the closure ("const struct {...} * const"), ptype of the
# closure, no "this", and finish out of it (at -O0 with its value).  Outputs are
# identical to gdb's, stack addresses aside; frames outside the lambda,
# which gdb names with its own C++ printer, are left out.
# `break checked` has the one location gdb gives: a demangled name matches
# a function name without its parameter list only where that list ends
# it, not the lambdas inside checked ("checked(...)::{lambda(int)#1}::
# operator()(int) const") nor templates instantiated for them (whose
# demangled names start with their return type "checked(...)::...").
# A name without scope matches in any class or namespace ("area": Rect's
# and Square's), and a template's name without its arguments ("fold":
# both instances, out of line or inlined); the locations are gdb's.
# print takes a name as it is: "p fold" has no symbol, as in gdb.
. "$(dirname "$0")/lib.bash"
need_prereqs lambdas lambdas-O2
need_gdb

norm() {
	grep -v -e 'libthread_db' -e '^\[Thread debugging' -e '^\[Inferior 1 ' -e '^Run till exit' \
		-e 'invoke\.h:' -e '^  *{ return std::forward' -e '^fold<' -e '^[0-9][0-9]*[[:space:]]*acc = f' |
		sed -e 's/0x7ff[0-9a-f]*/STACK/g'
}
L=$(line_of lambdas.cc 'if (a > limit)')
CMDS=("break $L" run 'bt 1' frame 'info locals' 'info args' 'p limit' 'p a' 'p a + limit'
	'p __closure' 'p *__closure' 'p __closure->__limit' 'whatis __closure' 'ptype __closure'
	'p this' 'p *this' finish)
for prog in lambdas lambdas-O2; do
	ptdbg_batch -- "$TESTPROGS/$prog" | norm >"$TMPDIR/ptdbg.$prog"
	gdb_batch -- "$TESTPROGS/$prog" | norm >"$TMPDIR/gdb.$prog"
	diff -u "$TMPDIR/gdb.$prog" "$TMPDIR/ptdbg.$prog" >&2 ||
		die "$prog: inside a lambda ptdbg differs from gdb (- gdb, + ptdbg)"
	for want in '^#0  operator() (__closure=STACK, a=6) at lambdas.cc:' '^limit = 100$' \
		'^\$[0-9]* = {__limit = 100}$'; do
		qgrep "$want" "$TMPDIR/ptdbg.$prog" || die "$prog: no line matching $want"
	done
done
qgrep '^Value returned is \$[0-9]* = 6$' "$TMPDIR/ptdbg.lambdas" || die "no value returned from the lambda"

CMDS=('break checked' 'info breakpoints' 'break checked(std::vector<Shape*, std::allocator<Shape*> > const&, int)' run 'bt 1')
for prog in lambdas lambdas-O2; do
	ptdbg_batch -- "$TESTPROGS/$prog" | norm >"$TMPDIR/ptdbg-b.$prog"
	gdb_batch -- "$TESTPROGS/$prog" | norm >"$TMPDIR/gdb-b.$prog"
	diff -u "$TMPDIR/gdb-b.$prog" "$TMPDIR/ptdbg-b.$prog" >&2 ||
		die "$prog: break checked differs from gdb (- gdb, + ptdbg)"
	qgrep '^Breakpoint 1 at 0x[0-9a-f]*: file lambdas.cc, line 42\.$' "$TMPDIR/ptdbg-b.$prog" ||
		die "$prog: break checked does not have one location"
	# (the vector argument as libstdc++'s printer shows it in a frame line)
	qgrep '^#0  checked (v=std::vector of length 4, capacity 4 = {\.\.\.}, limit=' "$TMPDIR/ptdbg-b.$prog" ||
		die "$prog: no stop in checked"
done

for prog in lambdas lambdas-O2; do
	for f in area visit fold Square Rect::area checked; do
		CMDS=("break $f" 'info breakpoints')
		ptdbg_batch -- "$TESTPROGS/$prog" | grep -o -e '^Breakpoint 1 at [^ ]*' -e '^1\.[0-9]* *y *0x[0-9a-f]*' \
			-e 'locations)$' >"$TMPDIR/ptdbg-f.$prog"
		gdb_batch -- "$TESTPROGS/$prog" | grep -o -e '^Breakpoint 1 at [^ ]*' -e '^1\.[0-9]* *y *0x[0-9a-f]*' \
			-e 'locations)$' >"$TMPDIR/gdb-f.$prog"
		[ -s "$TMPDIR/gdb-f.$prog" ] || die "$prog: gdb has no break $f"
		diff -u "$TMPDIR/gdb-f.$prog" "$TMPDIR/ptdbg-f.$prog" >&2 ||
			die "$prog: the locations of break $f differ from gdb's (- gdb, + ptdbg)"
	done
done
CMDS=('break main' run 'p fold' 'p area2')
ptdbg_batch -- "$TESTPROGS/lambdas" | norm | grep -e '^No symbol' -e '^\$' >"$TMPDIR/ptdbg-p"
gdb_batch -- "$TESTPROGS/lambdas" | norm | grep -e '^No symbol' -e '^\$' >"$TMPDIR/gdb-p"
diff -u "$TMPDIR/gdb-p" "$TMPDIR/ptdbg-p" >&2 || die "print of a template's name differs from gdb (- gdb, + ptdbg)"
note "$(cat "$TMPDIR"/ptdbg.lambdas* | wc -l) lines identical to gdb's"
exit 0
