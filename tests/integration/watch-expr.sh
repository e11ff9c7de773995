#!/usr/bin/env bash
# watch/rwatch/awatch on any lvalue the evaluator knows, against gdb 13 on
# testprogs/watchexpr: a struct member, an array element, *pointer (gdb
# spends a debug register on the pointer too, so the first group stays
# within gdb's four), a char, a char *, a pointer and a double:
#  - the stops and "Old value = / New value =" printed in the value's type
#    as gdb prints them ("97 'a'", "0x402008 \"watched\"", "(int *)
#    0x404060 <target>", "1.5") and the info watchpoints table equal gdb's;
#  - set before run on a member, armed when the program starts;
#  - a local of the selected frame is watched at its stack address, and
#    the watchpoint ends when its frame returns ("Watchpoint N deleted
#    because the program has left the block..."), also in recursion;
#  - errors: a constant, an unknown symbol (gdb's messages), an expression
#    not in memory and an object larger than a debug register (ptdbg's:
#    gdb falls back to software watchpoints there).
. "$(dirname "$0")/lib.bash"
need_prereqs watchexpr
need_gdb
prog=$TESTPROGS/watchexpr

clean() {
	grep -v -e '^\[Thread debugging' -e '^Using host libthread_db' -e '^\[Inferior 1'
}

CMDS=("break main" run "watch pt.y" "watch arr[2]" "watch *ptr" c c c "info watchpoints" delete
      "watch letter" "watch name" "awatch ptr" "watch ratio" c c c c "info watchpoints")
pt=$(ptdbg_batch -- "$prog" | clean) || die "ptdbg failed"
gd=$(gdb_batch -- "$prog" | clean)
note "ptdbg:"; note "$pt"
echo "$pt" | qgrep "^New value = 122 'z'$" || die "no char value"
echo "$pt" | qgrep '^New value = (int \*) 0x[0-9a-f]* <arr+4>$' || die "no pointer value"
diff -u <(echo "$gd") <(echo "$pt") >&2 || die "watchpoints on expressions differ from gdb"

# before run
CMDS=("watch pt.y" run c)
pt=$(ptdbg_batch -- "$prog" | clean) || die "ptdbg failed (before run)"
gd=$(gdb_batch -- "$prog" | clean)
note "ptdbg (before run):"; note "$pt"
diff -u <(echo "$gd") <(echo "$pt") >&2 || die "a member watched before run differs from gdb"

# a local while its frame runs, and its end when the frame returns: the
# watchpoint is deleted with gdb's message and the stop is in the caller;
# the next call of bump does not trigger it
CMDS=("break bump" run "watch local" c c c "info watchpoints" c "info watchpoints" c)
pt=$(ptdbg_batch -- "$prog" | clean | norm_stack) || die "ptdbg failed (local)"
gd=$(gdb_batch -- "$prog" | clean | norm_stack)
note "ptdbg (local):"; note "$pt"
[ "$(echo "$pt" | grep -c '^New value = ')" = 3 ] || die "the local's three writes were not seen"
echo "$pt" | qgrep -x 'Watchpoint 2 deleted because the program has left the block in' ||
	die "the local's watchpoint did not end with its frame"
diff -u <(echo "$gd") <(echo "$pt") >&2 || die "a watched local differs from gdb"

# recursion: the argument of fib(9) is watched; fib(8), fib(7)... return
# to the same address first, deeper in the stack, and pass; the stop is
# fib(9)'s own return into fib(10)
CMDS=("break fib" run c "delete 1" "watch n" c bt c)
pt=$(ptdbg_batch -- "$TESTPROGS/fib" | clean | norm_stack) || die "ptdbg failed (recursion)"
gd=$(gdb_batch -- "$TESTPROGS/fib" | clean | norm_stack)
note "ptdbg (recursion):"; note "$pt"
echo "$pt" | qgrep '^#1 .* in main (argc=1, argv=0xSTACK) at fib.c' || die "the scope did not end in fib(10)"
diff -u <(echo "$gd") <(echo "$pt") >&2 || die "a watched argument in recursion differs from gdb"

# errors
CMDS=("break main" run "watch 5" "watch nosuch" "watch pt.x + 1" "watch pt" "watch arr")
pt=$(ptdbg_batch -- "$prog" 2>&1 | clean)
note "ptdbg (errors):"; note "$pt"
for msg in "Cannot watch constant value \`5'." 'No symbol "nosuch" in current context.' \
	'cannot watch "pt.x + 1": not an object in memory (ptdbg has only hardware watchpoints)' \
	'cannot watch "arr": 16 bytes (at most 8, one debug register)'; do
	echo "$pt" | qgrep -xF "$msg" || die "missing message: $msg"
done
echo "$pt" | qgrep -x 'Hardware watchpoint [0-9]*: pt' || die "an 8-byte struct was not watched"
exit 0
