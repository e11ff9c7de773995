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
note "$(cat "$TMPDIR"/ptdbg.lambdas* | wc -l) lines identical to gdb's"
exit 0
