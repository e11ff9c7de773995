#!/usr/bin/env bash
# Frame arguments of optimised code (-O2) as gdb 13 prints them by default
# (print frame-arguments scalars, print entry-values default): the value
# the caller passed, found through the caller's DW_TAG_call_site, is
# folded in when it equals the value ("rows=rows@entry=6"), shown after
# it when not, and resolves a DW_OP_entry_value location ("v=v@entry=1"
# in a frame whose v is no longer in a register), also through a
# recursion (thrower's call site passes its own entry value + 1), with a
# call site in another function's frame base (DW_OP_fbreg); a call site
# whose callee has no address (an abstract origin of inlined copies,
# fib -O2) gives no entry value, as gdb gives none.  Stops, bt, finish,
# up and info frame are compared whole (libc's frames: the golden test
# replay-end, "_exit (status=status@entry=0)").
. "$(dirname "$0")/lib.bash"
need_prereqs unwind-O2 switch-O2 loops-O2 fib-O2
need_gdb

clean() {
	grep -v -e '^\[Thread debugging' -e '^Using host libthread_db' -e '^\[Inferior 1' |
		norm_stack
}
compare() {
	local what=$1 prog=$2
	ptdbg_batch -- "$TESTPROGS/$prog" | clean >"$TMPDIR/pt"
	gdb_batch -- "$TESTPROGS/$prog" | clean >"$TMPDIR/gd"
	note "ptdbg ($what):"; note "$(cat "$TMPDIR/pt")"
	diff -u "$TMPDIR/gd" "$TMPDIR/pt" >&2 || die "$what: frame arguments differ from gdb's"
}

CMDS=("break thrower" "break catcher" run bt c bt c bt up "info frame" finish)
compare "entry values in a recursion" unwind-O2
grep -q '^#1  0x[0-9a-f]* in thrower (v=v@entry=1) at unwind.c:' "$TMPDIR/pt" ||
	die "no DW_OP_entry_value resolved through the caller's call site"
CMDS=("break classify" run bt c bt finish)
compare "a call site value computed in the caller" switch-O2
grep -q '^Breakpoint 1, classify (c=c@entry=0, x=x@entry=0) at switch.c:' "$TMPDIR/pt" ||
	die "no folded entry values"
CMDS=("break fill" run bt finish)
compare "entry values of main's call" loops-O2
# fib -O2's call site names the abstract fib (gdb: "DW_AT_call_target is
# not specified"): no entry value.  (At fib's own entry: `break fib` has
# nine places in gdb, its inlined copies.)
a=$(nm "$TESTPROGS/fib-O2" | awk '$3 == "fib" { print "0x" $1 }')
[ -n "$a" ] || die "no fib in fib-O2"
CMDS=("break main" run "break *$a" c bt)
compare "no entry value without a call target" fib-O2
grep -q '^#0  fib (n=10) at fib.c:' "$TMPDIR/pt" || die "fib -O2: not the plain value"
exit 0
