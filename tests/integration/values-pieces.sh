#!/usr/bin/env bash
# Values the optimiser took apart, as gdb 13 shows them (testprogs/synthptr
# at -O2): a struct kept in registers and constants (DW_OP_piece) prints
# whole; the pointer to it that the inlined sum() gets is a <synthetic
# pointer> (DW_OP_implicit_pointer) in frame lines, print and info args,
# and following it (*c, c->n, c.vals[1]) reads the variable it stands for;
# a member of a value that is optimized out is <optimized out>, not an
# error; & of a variable that is not in memory names it (isn't an lvalue, in
# register $R).  Outputs must be identical to gdb's.
. "$(dirname "$0")/lib.bash"
need_prereqs synthptr-O2
need_gdb

prog=$TESTPROGS/synthptr-O2
readelf --debug-dump=info,loc "$prog" | qgrep 'DW_OP_implicit_pointer' ||
	die "the compiler made no implicit pointer in $prog: the test would not test it"
readelf --debug-dump=info,loc "$prog" | qgrep 'DW_OP_piece' ||
	die "the compiler made no composite location in $prog"
norm() { grep -v -e 'libthread_db' -e '^\[Thread debugging' -e '^\[Inferior 1 '; }
CMDS=('break synthptr.c:35' run 'info locals' 'info args' 'p c' 'output c' 'echo \n' 'p c.n'
	'p c.vals' 'p c.vals[1]' 'p *c' 'p/x *c' 'p &c' 'bt' 'up' 'p c' 'p c.n'
	'p c.vals[3]' 'info locals' 'whatis c' 'p sizeof(c)')
ptdbg_batch -- "$prog" | norm >"$TMPDIR/ptdbg.out"
gdb_batch -- "$prog" | norm >"$TMPDIR/gdb.out"
diff -u "$TMPDIR/gdb.out" "$TMPDIR/ptdbg.out" >&2 || die "values in pieces differ from gdb (- gdb, + ptdbg)"
qgrep '^Breakpoint 1, sum (c=<synthetic pointer>) at' "$TMPDIR/ptdbg.out" || die "no synthetic pointer in the stop line"
qgrep '^\$[0-9]* = {vals = 0x[0-9a-f]*, n = 4}$' "$TMPDIR/ptdbg.out" || die "the struct in pieces is not printed whole"
note "$(wc -l <"$TMPDIR/ptdbg.out") lines identical to gdb's"

# the address of a variable in a register, named or in parentheses
need_prereqs fib-O2
CMDS=('break fib' run 'p &n' 'p &(n)' 'p & n' 'p &1' 'p &(n)+1')
# (fib has inlined copies: only the lines after the stop are compared)
ptdbg_batch -- "$TESTPROGS/fib-O2" | norm | grep -v '^Breakpoint 1' >"$TMPDIR/ptdbg2.out"
gdb_batch -- "$TESTPROGS/fib-O2" | norm | grep -v '^Breakpoint 1' >"$TMPDIR/gdb2.out"
diff -u "$TMPDIR/gdb2.out" "$TMPDIR/ptdbg2.out" >&2 || die "&register-variable differs from gdb"
qgrep 'Address requested for identifier "n" which is in register \$rdi' "$TMPDIR/ptdbg2.out" ||
	die "no register message"
exit 0
