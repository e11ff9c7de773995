#!/usr/bin/env bash
# `finish` in the past finishes the frame selected there, also when the
# history ends deeper in a recursion.  break fib, run, record, c, c,
# delete, reverse-finish, reverse-finish: back in fib(10), whose caller is
# main, while the history ends at fib(8)'s entry.  gdb 13 record full
# shows that frame (bt: fib then main) and its `finish` stops at the end
# of the history; ptdbg goes on live from there (a documented difference)
# and must then return from fib(10) into main with 55 -- where gdb's own
# live `finish` out of fib(10) stops, with that value -- not from fib(8)
# into fib(9) with 21.
. "$(dirname "$0")/lib.bash"
need_prereqs fib
need_gdb

prog=$TESTPROGS/fib
CMDS=("break fib" run "record full" c c delete reverse-finish reverse-finish bt finish)
gr=$(gdb_batch -- "$prog")
# gdb's frame after the two reverse-finishes: fib called from main
echo "$gr" | qgrep '^#1  0x[0-9a-f]* in main ' || die "gdb is not in fib(10) called from main: $gr"
echo "$gr" | qgrep '^No more reverse-execution history.' || die "gdb's finish did not reach the end of the history: $gr"
# gdb's live finish out of fib(10)
CMDS=("break fib" run delete finish)
gl=$(gdb_batch -- "$prog")
want_pc=$(echo "$gl" | sed -n 's/^\(0x[0-9a-f]*\) in main .*/\1/p' | tail -n 1)
want_val=$(echo "$gl" | sed -n 's/^Value returned is \$[0-9]* = //p')
[ -n "$want_pc" ] && [ -n "$want_val" ] || die "gdb's finish out of fib(10) gave no stop/value: $gl"

CMDS=("break fib" run record c c delete reverse-finish reverse-finish finish bt)
pt=$(ptdbg_batch -- "$prog") || die "ptdbg failed: $pt"
note "ptdbg:"; note "$pt"
echo "$pt" | qgrep "^$want_pc in main (argc=1, argv=0x[0-9a-f]*) at fib.c:" ||
	die "finish did not return into main at $want_pc (gdb's live finish from fib(10))"
echo "$pt" | qgrep -x "Value returned is \$1 = $want_val" ||
	die "finish did not return fib(10)'s value $want_val"
echo "$pt" | qgrep '^#0  '"$want_pc"' in main ' || die "bt after finish is not in main"
exit 0
